// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_dense: dense generational slot map (slots, packed values, reverse
 * map).  See include/linux/kslot_dense.h for the rules.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kslot_dense.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kslot_internal.h"

/*
 * The three arrays share one allocation:
 *
 *   [ rcu_head | data: capacity * elem_size | pad to 8 | slots | rev ]
 *
 * The rcu_head lets a replaced allocation be freed from atomic context
 * even when it came from vmalloc.
 */
struct kslot_dense_mem {
	struct rcu_head rcu;
	u64 data[];
};

#define KSLOT_DENSE_DATA_OFFSET	offsetof(struct kslot_dense_mem, data)

/* Offset of the slot array; saturates at SIZE_MAX on overflow. */
static size_t kslot_dense_slots_offset(size_t elem_size, u32 cap)
{
	size_t end = size_add(size_mul(cap, elem_size),
			      KSLOT_DENSE_DATA_OFFSET + 7);

	return end == SIZE_MAX ? SIZE_MAX : end & ~(size_t)7;
}

static size_t kslot_dense_rev_offset(size_t elem_size, u32 cap)
{
	return size_add(kslot_dense_slots_offset(elem_size, cap),
			size_mul(cap, sizeof(struct kslot_dense_slot)));
}

/* Bytes of the allocation for @cap entries; SIZE_MAX on overflow. */
static size_t kslot_dense_bytes(size_t elem_size, u32 cap)
{
	return size_add(kslot_dense_rev_offset(elem_size, cap),
			size_mul(cap, sizeof(u32)));
}

static gfp_t kslot_dense_gfp(const struct kslot_dense *dense, gfp_t gfp)
{
	return kslot_gfp(gfp, dense->flags & KSLOT_DENSE_ACCOUNT);
}

/* Accessors that do not assert the lock, for init and destroy. */
static void *kslot_dense_elem(struct kslot_dense *dense, u32 pos)
{
	return dense->data + (size_t)pos * dense->elem_size;
}

static u64 kslot_dense_make(struct kslot_dense *dense, u32 index)
{
	return kslot_handle_make(index, dense->tag, dense->slots[index].gen);
}

static int kslot_dense_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_dense_stats st;

	kslot_dense_get_stats(m->private, &st);
	seq_printf(m, "count: %u\ncapacity: %u\nmax_entries: %u\n",
		   st.count, st.capacity, st.max_entries);
	seq_printf(m, "elem_size: %u\nbytes: %zu\nretired: %u\nrejected: %llu\n",
		   st.elem_size, st.bytes, st.retired, st.rejected);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_dense_stats);

/**
 * kslot_dense_init() - Initialise a dense slot map.
 * @dense: The table to initialise.
 * @name: If not NULL, expose the table's counters in debugfs as
 *	kslot/dense-@name.  A duplicate name is not exposed.
 * @elem_size: Size of one value in bytes.  Values are stored at multiples
 *	of @elem_size from an 8-byte aligned base, so use a multiple of the
 *	alignment the values need.
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_DENSE_LOCK_BH or %KSLOT_DENSE_LOCK_IRQ (not both), and
 *	%KSLOT_DENSE_ACCOUNT.
 *
 * Nothing is allocated until the first insert or reserve.  The arrays at
 * @max_entries must fit in one allocation of at most INT_MAX bytes (about
 * @max_entries * (@elem_size + 12)).
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @elem_size is 0, @max_entries is out of range,
 * the arrays at @max_entries would exceed INT_MAX bytes, or @flags holds
 * unknown bits or both lock flags.
 */
int kslot_dense_init(struct kslot_dense *dense, const char *name,
		     size_t elem_size, u32 max_entries, unsigned int flags)
{
	if (!elem_size || !max_entries || max_entries > KSLOT_MAX_ENTRIES)
		return -EINVAL;
	if (!kslot_lock_flags_valid(flags, KSLOT_DENSE_FLAGS_ALL))
		return -EINVAL;
	if (kslot_dense_bytes(elem_size, max_entries) > INT_MAX)
		return -EINVAL;

	memset(dense, 0, sizeof(*dense));
	spin_lock_init(&dense->lock);
	dense->elem_size = elem_size;
	dense->max_entries = max_entries;
	dense->free_head = KSLOT_DENSE_NONE;
	dense->tag = kslot_random_tag();
	dense->flags = flags;
	if (name)
		dense->debugfs = kslot_debugfs_create("dense", name, dense,
						      &kslot_dense_stats_fops);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_dense_init);

/**
 * kslot_dense_destroy() - Tear down a dense slot map.
 * @dense: The table.
 * @fn: If not NULL, called once for every live value, in packed order,
 *	with the value, its handle and @data.  The value's memory is freed
 *	when this function returns.
 * @data: Passed to @fn.
 *
 * The caller must ensure nobody else uses the table.  The table may be
 * initialised again afterwards.
 *
 * Context: Process context (the arrays may be vmalloc memory).
 */
void kslot_dense_destroy(struct kslot_dense *dense,
			 void (*fn)(void *elem, u64 handle, void *data),
			 void *data)
{
	u32 pos;

	kslot_debugfs_remove(dense->debugfs);
	dense->debugfs = NULL;
	for (pos = 0; fn && pos < dense->count; pos++)
		fn(kslot_dense_elem(dense, pos),
		   kslot_dense_make(dense, dense->rev[pos]), data);
	kvfree(dense->mem);
	dense->mem = NULL;
	dense->data = NULL;
	dense->slots = NULL;
	dense->rev = NULL;
	WRITE_ONCE(dense->count, 0);
	dense->capacity = 0;
	dense->retired = 0;
	dense->free_head = KSLOT_DENSE_NONE;
}
EXPORT_SYMBOL_GPL(kslot_dense_destroy);

/* Free slots: neither live nor retired, all on the free list. */
static u32 kslot_dense_nr_free(const struct kslot_dense *dense)
{
	return dense->capacity - dense->count - dense->retired;
}

static struct kslot_dense_mem *kslot_dense_mem_alloc(struct kslot_dense *dense,
						     u32 cap, gfp_t gfp)
{
	if (kslot_should_fail_alloc())
		return NULL;
	/* Without a blocking gfp, kvmalloc() is kmalloc() only. */
	return kvmalloc(kslot_dense_bytes(dense->elem_size, cap),
			kslot_dense_gfp(dense, gfp));
}

/*
 * Free an allocation replaced by growth, after the lock is dropped.  A
 * vmalloc'ed one cannot be vfree()d where the caller may not sleep, so it
 * goes through kvfree_rcu() then.
 */
static void kslot_dense_mem_free(struct kslot_dense_mem *mem, gfp_t gfp)
{
	if (!mem)
		return;
	if (is_vmalloc_addr(mem) && !gfpflags_allow_blocking(gfp))
		kvfree_rcu(mem, rcu);
	else
		kvfree(mem);
}

/* Capacity to grow to so that @n more values fit. */
static u32 kslot_dense_grow_target(const struct kslot_dense *dense, u32 n)
{
	u32 need = dense->count + dense->retired + n;
	u32 want = max3(2 * dense->capacity, need,
			(u32)KSLOT_DENSE_MIN_CAPACITY);

	return min(want, dense->max_entries);
}

/*
 * Switch to @mem, a new allocation for @cap entries: copy the arrays over
 * and put the new slots at the head of the free list, lowest index first.
 * Returns the old allocation, to be freed once the lock is dropped.
 */
static struct kslot_dense_mem *kslot_dense_install(struct kslot_dense *dense,
						   struct kslot_dense_mem *mem,
						   u32 cap)
{
	struct kslot_dense_mem *old = dense->mem;
	size_t esz = dense->elem_size;
	struct kslot_dense_slot *slots;
	u32 *rev;
	u32 i;

	slots = (void *)mem + kslot_dense_slots_offset(esz, cap);
	rev = (void *)mem + kslot_dense_rev_offset(esz, cap);
	if (old) {
		memcpy(mem->data, dense->data, dense->count * esz);
		memcpy(slots, dense->slots, dense->capacity * sizeof(*slots));
		memcpy(rev, dense->rev, dense->count * sizeof(*rev));
	}
	for (i = dense->capacity; i < cap; i++) {
		slots[i].gen = 0;
		slots[i].link = i + 1 < cap ? i + 1 : dense->free_head;
	}
	dense->free_head = dense->capacity;
	dense->mem = mem;
	dense->data = mem->data;
	dense->slots = slots;
	dense->rev = rev;
	dense->capacity = cap;
	return old;
}

/*
 * Make sure @n slots are free, growing the arrays if needed.  Called and
 * returns with the lock held; drops it to allocate.  *@stale collects an
 * allocation to free after the final unlock.
 */
static int kslot_dense_make_room(struct kslot_dense *dense, u32 n, gfp_t gfp,
				 unsigned long *irqflags,
				 struct kslot_dense_mem **stale)
	__must_hold(&dense->lock)
{
	while (kslot_dense_nr_free(dense) < n) {
		u32 cap = dense->capacity, want;
		struct kslot_dense_mem *mem;

		if (n > dense->max_entries - dense->count - dense->retired)
			return -ENOSPC;
		want = kslot_dense_grow_target(dense, n);
		kslot_dense_unlock(dense, *irqflags);
		kslot_dense_mem_free(*stale, gfp);
		*stale = NULL;
		mem = kslot_dense_mem_alloc(dense, want, gfp);
		*irqflags = kslot_dense_lock(dense);
		if (!mem)
			return -ENOMEM;
		/* Someone else grew the table meanwhile: try again. */
		if (dense->capacity != cap) {
			*stale = mem;
			continue;
		}
		*stale = kslot_dense_install(dense, mem, want);
	}
	return 0;
}

/* Take a free slot for a new value; the caller made room. */
static u64 __kslot_dense_insert(struct kslot_dense *dense, const void *elem)
{
	u32 index = dense->free_head, pos = dense->count;
	struct kslot_dense_slot *slot = &dense->slots[index];
	void *dst = kslot_dense_elem(dense, pos);

	dense->free_head = slot->link;
	slot->gen++;
	slot->link = pos;
	dense->rev[pos] = index;
	if (elem)
		memcpy(dst, elem, dense->elem_size);
	else
		memset(dst, 0, dense->elem_size);
	WRITE_ONCE(dense->count, pos + 1);
	return kslot_handle_make(index, dense->tag, slot->gen);
}

/* Release a live slot: bump its generation, free or retire it. */
static void kslot_dense_release_slot(struct kslot_dense *dense, u32 index)
{
	struct kslot_dense_slot *slot = &dense->slots[index];

	if (kslot_gen_last_use(slot->gen)) {
		slot->gen = 0;
		slot->link = KSLOT_DENSE_RETIRED;
		dense->retired++;
		return;
	}
	slot->gen++;
	slot->link = dense->free_head;
	dense->free_head = index;
}

/* Erase the live value of slot @index: swap-and-pop. */
static void __kslot_dense_erase(struct kslot_dense *dense, u32 index,
				void *buf)
{
	u32 pos = dense->slots[index].link, last = dense->count - 1;

	if (buf)
		memcpy(buf, kslot_dense_elem(dense, pos), dense->elem_size);
	if (pos != last) {
		memcpy(kslot_dense_elem(dense, pos),
		       kslot_dense_elem(dense, last), dense->elem_size);
		dense->rev[pos] = dense->rev[last];
		dense->slots[dense->rev[pos]].link = pos;
	}
	WRITE_ONCE(dense->count, last);
	kslot_dense_release_slot(dense, index);
}

/* Slot index of a live handle, or %KSLOT_DENSE_NONE.  Lock held. */
static u32 kslot_dense_live_index(struct kslot_dense *dense, u64 handle)
{
	u32 gen = kslot_handle_gen(handle);
	u32 index = kslot_handle_index(handle);

	if (!kslot_gen_is_live(gen) || kslot_handle_tag(handle) != dense->tag ||
	    index >= dense->capacity)
		goto reject;
	index = array_index_nospec(index, dense->capacity);
	if (dense->slots[index].gen != gen)
		goto reject;
	return index;
reject:
	if (handle)
		dense->rejected++;
	return KSLOT_DENSE_NONE;
}

/**
 * kslot_dense_reserve() - Make room for more values ahead of time.
 * @dense: The table.
 * @n: Number of values that must fit without allocating.
 * @gfp: Allocation flags.
 *
 * After success, the next @n inserts (by any caller) need no allocation
 * unless other inserts use the room first.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0, -EINVAL if @n is 0, -ENOSPC if @n more values would exceed
 * max_entries (counting retired slots), or -ENOMEM.
 */
int kslot_dense_reserve(struct kslot_dense *dense, u32 n, gfp_t gfp)
{
	struct kslot_dense_mem *stale = NULL;
	unsigned long irqflags;
	int ret;

	if (!n)
		return -EINVAL;
	irqflags = kslot_dense_lock(dense);
	ret = kslot_dense_make_room(dense, n, gfp, &irqflags, &stale);
	kslot_dense_unlock(dense, irqflags);
	kslot_dense_mem_free(stale, gfp);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_dense_reserve);

/**
 * kslot_dense_insert() - Store a value and issue a handle for it.
 * @dense: The table.
 * @elem: elem_size bytes to copy in, or NULL for a zeroed value.  Must not
 *	point into the table.
 * @handle: Set to the new handle on success; untouched on failure.
 * @gfp: Allocation flags, used if the table must grow.
 *
 * The value goes to the end of the packed array.  The slot is the most
 * recently freed one, or the lowest new one if the table had to grow.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0, -ENOSPC if the table holds max_entries slots (live or
 * retired), or -ENOMEM if growing failed; the table is unchanged on error.
 */
int kslot_dense_insert(struct kslot_dense *dense, const void *elem,
		       u64 *handle, gfp_t gfp)
{
	return kslot_dense_insert_n(dense, elem, 1, handle, gfp);
}
EXPORT_SYMBOL_GPL(kslot_dense_insert);

/**
 * kslot_dense_insert_n() - Store @n values at once.
 * @dense: The table.
 * @elems: @n values of elem_size bytes, back to back, or NULL for @n
 *	zeroed values.  Must not point into the table.
 * @n: Number of values.
 * @handles: Array of @n, set to the new handles in order on success.
 * @gfp: Allocation flags, used if the table must grow.
 *
 * All or nothing: either every value is inserted, under one hold of the
 * lock, or none is.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0, -EINVAL if @n is 0, -ENOSPC if @n more values would exceed
 * max_entries (counting retired slots), or -ENOMEM; the table is
 * unchanged on error.
 */
int kslot_dense_insert_n(struct kslot_dense *dense, const void *elems, u32 n,
			 u64 *handles, gfp_t gfp)
{
	struct kslot_dense_mem *stale = NULL;
	unsigned long irqflags;
	int ret;
	u32 i;

	if (!n)
		return -EINVAL;
	irqflags = kslot_dense_lock(dense);
	ret = kslot_dense_make_room(dense, n, gfp, &irqflags, &stale);
	for (i = 0; !ret && i < n; i++)
		handles[i] = __kslot_dense_insert(dense, elems ? elems +
						  (size_t)i * dense->elem_size :
						  NULL);
	kslot_dense_unlock(dense, irqflags);
	kslot_dense_mem_free(stale, gfp);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_dense_insert_n);

/**
 * kslot_dense_get() - Copy out the value a handle names.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @buf: elem_size bytes to copy the value into.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: 0, or -ENOENT if @handle is not live in @dense (@buf untouched).
 */
int kslot_dense_get(struct kslot_dense *dense, u64 handle, void *buf)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	void *elem = __kslot_dense_lookup(dense, handle);

	if (elem)
		memcpy(buf, elem, dense->elem_size);
	kslot_dense_unlock(dense, irqflags);
	return elem ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_dense_get);

/**
 * kslot_dense_update() - Overwrite the value a handle names.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @elem: elem_size bytes to copy in.
 *
 * The handle and the value's position do not change.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: 0, or -ENOENT if @handle is not live in @dense.
 */
int kslot_dense_update(struct kslot_dense *dense, u64 handle,
		       const void *elem)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	void *dst = __kslot_dense_lookup(dense, handle);

	if (dst)
		memcpy(dst, elem, dense->elem_size);
	kslot_dense_unlock(dense, irqflags);
	return dst ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_dense_update);

/**
 * kslot_dense_contains() - Is a handle live?
 * @dense: The table.
 * @handle: A handle, valid or not.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: true if @handle names a live value of @dense.
 */
bool kslot_dense_contains(struct kslot_dense *dense, u64 handle)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	bool live = __kslot_dense_lookup(dense, handle);

	kslot_dense_unlock(dense, irqflags);
	return live;
}
EXPORT_SYMBOL_GPL(kslot_dense_contains);

/**
 * kslot_dense_erase() - Remove a value and invalidate its handle.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @buf: If not NULL, receives the removed value (elem_size bytes).
 *
 * Swap-and-pop: the last value of the packed array moves into the hole.
 * The slot's generation is bumped, so @handle is rejected from now on;
 * the slot goes to the head of the free list, or is retired if its
 * generations are used up.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: 0, or -ENOENT if @handle is not live in @dense.
 */
int kslot_dense_erase(struct kslot_dense *dense, u64 handle, void *buf)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	u32 index = kslot_dense_live_index(dense, handle);

	if (index != KSLOT_DENSE_NONE)
		__kslot_dense_erase(dense, index, buf);
	kslot_dense_unlock(dense, irqflags);
	return index != KSLOT_DENSE_NONE ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_dense_erase);

/**
 * kslot_dense_erase_n() - Remove the values of @n handles at once.
 * @dense: The table.
 * @handles: Array of @n handles; stale or repeated ones are skipped.
 * @n: Number of handles.
 *
 * Erases under one hold of the lock, in array order.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The number of values erased, or -EINVAL if @n is 0.
 */
int kslot_dense_erase_n(struct kslot_dense *dense, const u64 *handles, u32 n)
{
	unsigned long irqflags;
	int erased = 0;
	u32 i;

	if (!n)
		return -EINVAL;
	irqflags = kslot_dense_lock(dense);
	for (i = 0; i < n; i++) {
		u32 index = kslot_dense_live_index(dense, handles[i]);

		if (index == KSLOT_DENSE_NONE)
			continue;
		__kslot_dense_erase(dense, index, NULL);
		erased++;
	}
	kslot_dense_unlock(dense, irqflags);
	return erased;
}
EXPORT_SYMBOL_GPL(kslot_dense_erase_n);

/**
 * kslot_dense_retain() - Keep only the values a predicate accepts.
 * @dense: The table.
 * @keep: Called once for every live value with the value, its handle and
 *	@arg; the value is erased if it returns false.  It may modify the
 *	value, must not sleep, and must not call into @dense.
 * @arg: Passed to @keep.
 *
 * One pass over the packed array under the lock.  After a swap-and-pop
 * the value moved into the hole is examined next, so every value is
 * offered to @keep exactly once.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The number of values erased.
 */
u32 kslot_dense_retain(struct kslot_dense *dense,
		       bool (*keep)(void *elem, u64 handle, void *arg),
		       void *arg)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	u32 pos = 0, erased = 0;

	while (pos < dense->count) {
		u32 index = dense->rev[pos];

		if (keep(kslot_dense_elem(dense, pos),
			 kslot_dense_make(dense, index), arg)) {
			pos++;
			continue;
		}
		__kslot_dense_erase(dense, index, NULL);
		erased++;
	}
	kslot_dense_unlock(dense, irqflags);
	return erased;
}
EXPORT_SYMBOL_GPL(kslot_dense_retain);

/**
 * kslot_dense_clear() - Erase every value.
 * @dense: The table.
 *
 * Every live handle becomes stale, as if erased one by one; the arrays
 * are kept for reuse.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 */
void kslot_dense_clear(struct kslot_dense *dense)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	u32 pos;

	for (pos = 0; pos < dense->count; pos++)
		kslot_dense_release_slot(dense, dense->rev[pos]);
	WRITE_ONCE(dense->count, 0);
	kslot_dense_unlock(dense, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_dense_clear);

/**
 * kslot_dense_find() - Copy out live values from a resumable cursor.
 * @dense: The table.
 * @cursor: Slot index to resume from (0 to start); advanced past the last
 *	value copied.
 * @handles: If not NULL, array of @max receiving the handles found.
 * @buf: If not NULL, @max * elem_size bytes receiving the values found.
 * @max: Most values to copy.
 *
 * Walks the slot array, not the packed array, because slot indices do not
 * move: across any number of calls, with inserts and erases in between,
 * every value that stays live for the whole walk is returned exactly once
 * (values inserted or erased during the walk may or may not be).  Each
 * call holds the lock only for its own batch.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The number of values copied (0 once the walk is over), or
 * -EINVAL if @max is 0.
 */
int kslot_dense_find(struct kslot_dense *dense, u32 *cursor, u64 *handles,
		     void *buf, u32 max)
{
	unsigned long irqflags;
	int found = 0;
	u32 i;

	if (!max)
		return -EINVAL;
	irqflags = kslot_dense_lock(dense);
	for (i = *cursor; i < dense->capacity && found < max; i++) {
		struct kslot_dense_slot *slot = &dense->slots[i];

		if (!kslot_gen_is_live(slot->gen))
			continue;
		if (handles)
			handles[found] = kslot_dense_make(dense, i);
		if (buf)
			memcpy(buf + (size_t)found * dense->elem_size,
			       kslot_dense_elem(dense, slot->link),
			       dense->elem_size);
		found++;
	}
	*cursor = max(i, *cursor);
	kslot_dense_unlock(dense, irqflags);
	return found;
}
EXPORT_SYMBOL_GPL(kslot_dense_find);

/**
 * kslot_dense_get_stats() - Read a table's counters.
 * @dense: The table.
 * @st: Filled with a consistent snapshot.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 */
void kslot_dense_get_stats(struct kslot_dense *dense,
			   struct kslot_dense_stats *st)
{
	unsigned long irqflags = kslot_dense_lock(dense);

	st->count = dense->count;
	st->capacity = dense->capacity;
	st->max_entries = dense->max_entries;
	st->retired = dense->retired;
	st->elem_size = dense->elem_size;
	st->bytes = dense->capacity ?
		    kslot_dense_bytes(dense->elem_size, dense->capacity) : 0;
	st->rejected = dense->rejected;
	kslot_dense_unlock(dense, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_dense_get_stats);
