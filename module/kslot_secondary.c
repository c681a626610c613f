// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_secondary: side values keyed by handles of another kslot table.
 * See include/linux/kslot_secondary.h for the rules.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kslot_secondary.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kslot_internal.h"

static size_t kslot_secondary_page_bytes(size_t elem_size, u32 shift)
{
	struct kslot_secondary_page *page;

	return ALIGN(struct_size(page, gen, BIT(shift)), 8) +
	       BIT(shift) * elem_size;
}

static gfp_t kslot_secondary_gfp(const struct kslot_secondary *sec, gfp_t gfp)
{
	return kslot_gfp(gfp, sec->flags & KSLOT_SECONDARY_ACCOUNT);
}

static u32 kslot_secondary_max_pages(const struct kslot_secondary *sec)
{
	return DIV_ROUND_UP(sec->max_entries, BIT(sec->page_shift));
}

static void *kslot_secondary_value(struct kslot_secondary *sec,
				   struct kslot_secondary_page *page, u32 off)
{
	return (void *)page + sec->values_offset + (size_t)off * sec->elem_size;
}

static size_t kslot_secondary_dir_bytes(u32 nr)
{
	struct kslot_secondary_dir *dir;

	return struct_size(dir, page, nr);
}

static int kslot_secondary_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_secondary_stats st;

	kslot_secondary_get_stats(m->private, &st);
	seq_printf(m, "count: %u\npages: %u\nentries_per_page: %u\nbytes: %zu\n",
		   st.count, st.pages, st.entries_per_page, st.bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_secondary_stats);

/**
 * kslot_secondary_init() - Initialise an empty secondary map.
 * @sec: The map.
 * @name: If not NULL, expose the map's counters in debugfs as
 *	kslot/secondary-@name.
 * @elem_size: Size of one value, 1 .. %KSLOT_SECONDARY_MAX_ELEM_SIZE.
 * @max_entries: Handle indices accepted, 1 .. %KSLOT_MAX_ENTRIES; use the
 *	primary's max_entries.
 * @flags: %KSLOT_SECONDARY_LOCK_BH or %KSLOT_SECONDARY_LOCK_IRQ (not
 *	both), and %KSLOT_SECONDARY_ACCOUNT.
 *
 * Nothing is allocated until the first insert.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @elem_size or @max_entries is out of range or
 * @flags holds unknown bits or both lock flags.
 */
int kslot_secondary_init(struct kslot_secondary *sec, const char *name,
			 size_t elem_size, u32 max_entries, unsigned int flags)
{
	u32 shift = KSLOT_SECONDARY_PAGE_SHIFT;

	if (!elem_size || elem_size > KSLOT_SECONDARY_MAX_ELEM_SIZE)
		return -EINVAL;
	if (!max_entries || max_entries > KSLOT_MAX_ENTRIES)
		return -EINVAL;
	if (!kslot_lock_flags_valid(flags, KSLOT_SECONDARY_FLAGS_ALL))
		return -EINVAL;

	while (shift && kslot_secondary_page_bytes(elem_size, shift) > 4096)
		shift--;
	memset(sec, 0, sizeof(*sec));
	spin_lock_init(&sec->lock);
	sec->elem_size = elem_size;
	sec->page_shift = shift;
	sec->values_offset = kslot_secondary_page_bytes(elem_size, shift) -
			     BIT(shift) * elem_size;
	sec->page_bytes = kslot_secondary_page_bytes(elem_size, shift);
	sec->max_entries = max_entries;
	sec->flags = flags;
	if (name)
		sec->debugfs = kslot_debugfs_create("secondary", name, sec,
						    &kslot_secondary_stats_fops);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_secondary_init);

/* Free every page; called with the lock held or with no other user. */
static void kslot_secondary_free_pages(struct kslot_secondary *sec)
{
	u32 i;

	for (i = 0; sec->dir && i < sec->dir->nr; i++) {
		kfree(sec->dir->page[i]);
		sec->dir->page[i] = NULL;
	}
	sec->nr_pages = 0;
	WRITE_ONCE(sec->count, 0);
}

/**
 * kslot_secondary_destroy() - Free all of a secondary map's memory.
 * @sec: The map.
 *
 * The caller must ensure nobody else uses the map.  It may be initialised
 * again afterwards.
 *
 * Context: Process context (the directory may be vmalloc memory).
 */
void kslot_secondary_destroy(struct kslot_secondary *sec)
{
	kslot_debugfs_remove(sec->debugfs);
	sec->debugfs = NULL;
	kslot_secondary_free_pages(sec);
	kvfree(sec->dir);
	sec->dir = NULL;
	sec->tag_bound = false;
}
EXPORT_SYMBOL_GPL(kslot_secondary_destroy);

/* A directory replaced by growth; vfree() may sleep, so defer it then. */
static void kslot_secondary_dir_free(struct kslot_secondary_dir *dir,
				     gfp_t gfp)
{
	if (!dir)
		return;
	if (is_vmalloc_addr(dir) && !gfpflags_allow_blocking(gfp))
		kvfree_rcu(dir, rcu);
	else
		kvfree(dir);
}

/* Memory allocated with the lock dropped for one insert. */
struct kslot_secondary_grow {
	struct kslot_secondary_page *page;
	struct kslot_secondary_dir *dir;
	struct kslot_secondary_dir *stale;
};

static void kslot_secondary_grow_free(struct kslot_secondary_grow *g,
				      gfp_t gfp)
{
	kfree(g->page);
	kvfree(g->dir);	/* Never published. */
	kslot_secondary_dir_free(g->stale, gfp);
	memset(g, 0, sizeof(*g));
}

/*
 * Allocate the page for page index @pidx and, if the directory has only
 * @nr entries, a bigger directory.  The map is not touched.
 */
static int kslot_secondary_grow_alloc(struct kslot_secondary *sec, u32 pidx,
				      u32 nr, struct kslot_secondary_grow *g,
				      gfp_t gfp)
{
	gfp = kslot_secondary_gfp(sec, gfp);
	if (pidx >= nr) {
		u32 want = min(max3(2 * nr, pidx + 1, 4U),
			       kslot_secondary_max_pages(sec));

		if (kslot_should_fail_alloc())
			return -ENOMEM;
		/* Without a blocking gfp, kvmalloc() is kmalloc() only. */
		g->dir = kvzalloc(kslot_secondary_dir_bytes(want), gfp);
		if (!g->dir)
			return -ENOMEM;
		g->dir->nr = want;
	}
	if (kslot_should_fail_alloc())
		return -ENOMEM;
	g->page = kzalloc(sec->page_bytes, gfp);
	return g->page ? 0 : -ENOMEM;
}

/* Install @g for page index @pidx; lock held, directory still @nr long. */
static void kslot_secondary_grow_install(struct kslot_secondary *sec,
					 u32 pidx,
					 struct kslot_secondary_grow *g)
{
	if (g->dir) {
		if (sec->dir)
			memcpy(g->dir->page, sec->dir->page,
			       sec->dir->nr * sizeof(sec->dir->page[0]));
		g->stale = sec->dir;
		sec->dir = g->dir;
		g->dir = NULL;
	}
	sec->dir->page[pidx] = g->page;
	sec->nr_pages++;
	g->page = NULL;
}

/*
 * Find or make the page holding @index.  Called and returns with the lock
 * held; drops it to allocate.
 */
static struct kslot_secondary_page *
kslot_secondary_page_get(struct kslot_secondary *sec, u32 index,
			 struct kslot_secondary_grow *g, gfp_t gfp,
			 unsigned long *irqflags)
	__must_hold(&sec->lock)
{
	u32 pidx = index >> sec->page_shift;

	for (;;) {
		u32 nr = sec->dir ? sec->dir->nr : 0;
		int ret;

		if (pidx < nr && sec->dir->page[pidx])
			return sec->dir->page[pidx];
		kslot_secondary_unlock(sec, *irqflags);
		kslot_secondary_grow_free(g, gfp);
		ret = kslot_secondary_grow_alloc(sec, pidx, nr, g, gfp);
		*irqflags = kslot_secondary_lock(sec);
		if (ret)
			return NULL;
		/* Someone else grew the directory or added the page. */
		if ((sec->dir ? sec->dir->nr : 0) != nr ||
		    (pidx < nr && sec->dir->page[pidx]))
			continue;
		kslot_secondary_grow_install(sec, pidx, g);
	}
}

/**
 * kslot_secondary_insert() - Store a value under a handle.
 * @sec: The map.
 * @handle: A live handle of the primary table.
 * @val: elem_size bytes to copy in, or NULL for a zeroed value.
 * @gfp: Allocation flags for a new page or directory.
 *
 * If the entry for @handle's index holds the same handle, the value is
 * overwritten; if it holds an older handle of that index (one the primary
 * has since erased), the entry is replaced; if it holds a newer one, the
 * insert is refused.  The first insert binds @sec to @handle's tag.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the map's lock flags allow.  Takes and releases the map lock.
 * Return: 0, -EINVAL if @handle is null, has an even generation, an index
 * at or beyond max_entries, or a tag other than the bound one, -ESTALE if
 * the entry holds a newer handle, or -ENOMEM; the map is unchanged on
 * error.
 */
int kslot_secondary_insert(struct kslot_secondary *sec, u64 handle,
			   const void *val, gfp_t gfp)
{
	u32 gen = kslot_handle_gen(handle), index = kslot_handle_index(handle);
	struct kslot_secondary_grow g = {};
	struct kslot_secondary_page *page;
	unsigned long irqflags;
	u32 off;
	int ret = 0;

	if (!kslot_gen_is_live(gen) || index >= sec->max_entries)
		return -EINVAL;
	irqflags = kslot_secondary_lock(sec);
	if (sec->tag_bound && kslot_handle_tag(handle) != sec->tag) {
		ret = -EINVAL;
		goto out;
	}
	page = kslot_secondary_page_get(sec, index, &g, gfp, &irqflags);
	if (!page) {
		ret = -ENOMEM;
		goto out;
	}
	/* page_get() may have dropped the lock: another insert may have bound. */
	if (sec->tag_bound && kslot_handle_tag(handle) != sec->tag) {
		ret = -EINVAL;
		goto out;
	}
	off = index & (BIT(sec->page_shift) - 1);
	if (page->gen[off] > gen) {
		ret = -ESTALE;
		goto out;
	}
	if (!page->gen[off]) {
		page->used++;
		WRITE_ONCE(sec->count, sec->count + 1);
	}
	page->gen[off] = gen;
	if (val)
		memcpy(kslot_secondary_value(sec, page, off), val,
		       sec->elem_size);
	else
		memset(kslot_secondary_value(sec, page, off), 0,
		       sec->elem_size);
	sec->tag = kslot_handle_tag(handle);
	sec->tag_bound = true;
out:
	kslot_secondary_unlock(sec, irqflags);
	kslot_secondary_grow_free(&g, gfp);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_secondary_insert);

/**
 * kslot_secondary_get() - Copy out the value stored under a handle.
 * @sec: The map.
 * @handle: A handle, valid or not.
 * @buf: elem_size bytes to copy the value into.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: 0, or -ENOENT if nothing is stored under exactly @handle.
 */
int kslot_secondary_get(struct kslot_secondary *sec, u64 handle, void *buf)
{
	unsigned long irqflags = kslot_secondary_lock(sec);
	void *val = __kslot_secondary_lookup(sec, handle);

	if (val)
		memcpy(buf, val, sec->elem_size);
	kslot_secondary_unlock(sec, irqflags);
	return val ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_secondary_get);

/**
 * kslot_secondary_contains() - Is a value stored under a handle?
 * @sec: The map.
 * @handle: A handle, valid or not.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: true if an entry is stored under exactly @handle.
 */
bool kslot_secondary_contains(struct kslot_secondary *sec, u64 handle)
{
	unsigned long irqflags = kslot_secondary_lock(sec);
	bool found = __kslot_secondary_lookup(sec, handle);

	kslot_secondary_unlock(sec, irqflags);
	return found;
}
EXPORT_SYMBOL_GPL(kslot_secondary_contains);

/* Empty the entry at @off of @page; lock held. */
static void kslot_secondary_drop(struct kslot_secondary *sec,
				 struct kslot_secondary_page *page, u32 off)
{
	page->gen[off] = 0;
	page->used--;
	WRITE_ONCE(sec->count, sec->count - 1);
}

/**
 * kslot_secondary_remove() - Remove the value stored under a handle.
 * @sec: The map.
 * @handle: A handle, valid or not.
 * @buf: If not NULL, receives the removed value.
 *
 * Only an entry stored under exactly @handle is removed.  The page is
 * kept even if this empties it.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: 0, or -ENOENT if nothing is stored under exactly @handle.
 */
int kslot_secondary_remove(struct kslot_secondary *sec, u64 handle,
			   void *buf)
{
	unsigned long irqflags = kslot_secondary_lock(sec);
	void *val = __kslot_secondary_lookup(sec, handle);

	if (val) {
		u32 index = kslot_handle_index(handle);

		if (buf)
			memcpy(buf, val, sec->elem_size);
		kslot_secondary_drop(sec, sec->dir->page[index >>
							 sec->page_shift],
				     index & (BIT(sec->page_shift) - 1));
	}
	kslot_secondary_unlock(sec, irqflags);
	return val ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_secondary_remove);

/**
 * kslot_secondary_retain() - Sweep entries a predicate rejects.
 * @sec: The map.
 * @keep: Called for every entry with the handle it was stored under, its
 *	value and @arg; the entry is removed if it returns false.  Runs
 *	under the map lock: it must not sleep or call into @sec.
 * @arg: Passed to @keep.
 *
 * The lazy clearing pass: with a @keep that asks the primary whether the
 * handle is still live, it drops the entries of erased handles.  Pages
 * left empty, by this pass or by earlier removes, are freed.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: The number of entries removed.
 */
u32 kslot_secondary_retain(struct kslot_secondary *sec,
			   bool (*keep)(u64 handle, void *val, void *arg),
			   void *arg)
{
	unsigned long irqflags = kslot_secondary_lock(sec);
	u32 per_page = BIT(sec->page_shift);
	u32 pidx, off, removed = 0;

	for (pidx = 0; sec->dir && pidx < sec->dir->nr; pidx++) {
		struct kslot_secondary_page *page = sec->dir->page[pidx];

		if (!page)
			continue;
		for (off = 0; off < per_page && page->used; off++) {
			u32 gen = page->gen[off];
			u64 h;

			if (!gen)
				continue;
			h = kslot_handle_make(pidx * per_page + off, sec->tag,
					      gen);
			if (keep(h, kslot_secondary_value(sec, page, off),
				 arg))
				continue;
			kslot_secondary_drop(sec, page, off);
			removed++;
		}
		if (!page->used) {
			kfree(page);
			sec->dir->page[pidx] = NULL;
			sec->nr_pages--;
		}
	}
	kslot_secondary_unlock(sec, irqflags);
	return removed;
}
EXPORT_SYMBOL_GPL(kslot_secondary_retain);

/**
 * kslot_secondary_clear() - Remove every entry and unbind the tag.
 * @sec: The map.
 *
 * Frees every page; the directory is kept.  Afterwards the map accepts
 * the handles of any primary, as when new.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 */
void kslot_secondary_clear(struct kslot_secondary *sec)
{
	unsigned long irqflags = kslot_secondary_lock(sec);

	kslot_secondary_free_pages(sec);
	sec->tag_bound = false;
	kslot_secondary_unlock(sec, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_secondary_clear);

/**
 * kslot_secondary_get_stats() - Read a secondary map's counters.
 * @sec: The map.
 * @st: Filled with a consistent snapshot.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 */
void kslot_secondary_get_stats(struct kslot_secondary *sec,
			       struct kslot_secondary_stats *st)
{
	unsigned long irqflags = kslot_secondary_lock(sec);

	st->count = sec->count;
	st->pages = sec->nr_pages;
	st->entries_per_page = BIT(sec->page_shift);
	st->bytes = (size_t)sec->nr_pages * sec->page_bytes +
		    (sec->dir ? kslot_secondary_dir_bytes(sec->dir->nr) : 0);
	kslot_secondary_unlock(sec, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_secondary_get_stats);
