/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_secondary: fixed-size side values keyed by the handles another
 * kslot table issued (a kslot_map or a kslot_dense), without touching that
 * table.  A driver attaches per-object data that only some objects have,
 * or that one subsystem owns, the way Rust slotmap's SecondaryMap does.
 *
 * Each handle index has at most one entry: the generation of the handle
 * it was stored under, and the value.  Generations only grow within a
 * slot (kslot tables retire a slot rather than wrap its generation, see
 * kslot_handle.h), so comparing them needs no wrap-around arithmetic:
 *
 * - insert under a handle as new as the stored one, or newer, stores the
 *   value (a newer handle means the primary reused the slot, so the old
 *   entry is dead and is replaced in place);
 * - insert under an older handle is refused with -ESTALE;
 * - lookups match the generation exactly, so a stale handle, or one newer
 *   than the entry, finds nothing.
 *
 * The secondary does not learn when the primary erases a handle: the
 * entry stays reachable by that handle until it is removed, replaced by a
 * newer handle of the same slot, or swept by kslot_secondary_retain()
 * with a predicate that asks the primary (lazy clearing).
 *
 * The first insert binds the secondary to the primary's handle tag;
 * handles with another tag are refused (insert) or find nothing (lookup)
 * until kslot_secondary_clear().
 *
 * Memory: entries live in pages of up to 64 consecutive indices (smaller
 * for big values, so a page stays within about 4 KiB), allocated on first
 * use, under a directory that grows to the highest index used.  Pages
 * emptied by remove are kept until kslot_secondary_retain() or
 * kslot_secondary_clear() frees them.
 *
 * Rules:
 *
 * +------------------------------+------------------------+---------------+
 * | operation                    | lock                   | may sleep     |
 * +------------------------------+------------------------+---------------+
 * | kslot_secondary_insert()     | map lock, dropped to   | only if gfp   |
 * |                              | allocate a page        | allows        |
 * | kslot_secondary_get(),       | map lock               | no            |
 * | kslot_secondary_contains(),  |                        |               |
 * | kslot_secondary_remove(),    |                        |               |
 * | kslot_secondary_retain(),    |                        |               |
 * | kslot_secondary_clear(),     |                        |               |
 * | kslot_secondary_get_stats()  |                        |               |
 * | __kslot_secondary_lookup()   | caller holds the lock  | no            |
 * | kslot_secondary_count()      | none (a snapshot)      | no            |
 * | kslot_secondary_destroy()    | caller: no other users | yes           |
 * +------------------------------+------------------------+---------------+
 *
 * - An internal spinlock serialises everything, taken with spin_lock()
 *   unless the map was created with %KSLOT_SECONDARY_LOCK_BH or
 *   %KSLOT_SECONDARY_LOCK_IRQ.
 * - A value pointer from __kslot_secondary_lookup() is valid until the
 *   caller drops the lock.  Values do not move while their entry lives.
 * - The retain predicate runs under the secondary's lock.  It may take the
 *   primary's lock (kslot_dense_contains()) or RCU (kslot_map_lookup()),
 *   which fixes the lock order secondary -> primary: never call into a
 *   secondary while holding its primary's lock.
 */
#ifndef _LINUX_KSLOT_SECONDARY_H
#define _LINUX_KSLOT_SECONDARY_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/kslot_handle.h>
#include <linux/kslot_lock.h>
#include <linux/lockdep.h>
#include <linux/nospec.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct dentry;

/* Take the map lock with spin_lock_bh(). */
#define KSLOT_SECONDARY_LOCK_BH		KSLOT_LOCK_BH
/* Take the map lock with spin_lock_irqsave(). */
#define KSLOT_SECONDARY_LOCK_IRQ	KSLOT_LOCK_IRQ
/* Charge the map's pages and directory to the current memcg. */
#define KSLOT_SECONDARY_ACCOUNT		BIT(2)
#define KSLOT_SECONDARY_FLAGS_ALL	(KSLOT_SECONDARY_LOCK_BH | \
					 KSLOT_SECONDARY_LOCK_IRQ | \
					 KSLOT_SECONDARY_ACCOUNT)

/* Largest value a secondary map stores. */
#define KSLOT_SECONDARY_MAX_ELEM_SIZE	4096
/* Entries per page are 2^KSLOT_SECONDARY_PAGE_SHIFT or fewer. */
#define KSLOT_SECONDARY_PAGE_SHIFT	6

/**
 * struct kslot_secondary_page - Entries of consecutive handle indices.
 * @used: Entries in use.
 * @gen: Per entry, the generation it was stored under, or 0 if empty.
 *	The values follow, from the map's @values_offset.
 */
struct kslot_secondary_page {
	u32 used;
	u32 gen[];
};

/**
 * struct kslot_secondary_dir - Page directory, replaced as the map grows.
 * @rcu: Frees a replaced directory from atomic context.
 * @nr: Entries in @page.
 * @page: Pages, NULL where no entry was ever stored.
 */
struct kslot_secondary_dir {
	struct rcu_head rcu;
	u32 nr;
	struct kslot_secondary_page *page[] __counted_by(nr);
};

/**
 * struct kslot_secondary - Side values keyed by another table's handles.
 * @lock: Protects everything below; see the rules above.
 * @dir: Page directory, NULL until the first insert.
 * @elem_size: Size of one value.
 * @page_shift: log2 of the entries per page.
 * @values_offset: Offset of the first value in a page (8-byte aligned).
 * @page_bytes: Size of a page.
 * @max_entries: Handle indices accepted: 0 .. @max_entries - 1.
 * @count: Entries stored; read locklessly by kslot_secondary_count().
 * @nr_pages: Pages allocated.
 * @tag: Handle tag of the primary, once @tag_bound.
 * @tag_bound: Set by the first insert, cleared by kslot_secondary_clear().
 * @flags: %KSLOT_SECONDARY_* flags given at init.
 * @debugfs: Debugfs file of a named map, or NULL.
 */
struct kslot_secondary {
	spinlock_t lock;	/* See the rules above. */
	struct kslot_secondary_dir *dir;
	u32 elem_size;
	u32 page_shift;
	u32 values_offset;
	u32 page_bytes;
	u32 max_entries;
	u32 count;
	u32 nr_pages;
	u32 tag;
	bool tag_bound;
	unsigned int flags;
	struct dentry *debugfs;
};

/**
 * struct kslot_secondary_stats - A snapshot of a map's counters.
 * @count: Entries stored.
 * @pages: Pages allocated.
 * @entries_per_page: Entries one page holds.
 * @bytes: Bytes of the pages and directory.
 */
struct kslot_secondary_stats {
	u32 count;
	u32 pages;
	u32 entries_per_page;
	size_t bytes;
};

int kslot_secondary_init(struct kslot_secondary *sec, const char *name,
			 size_t elem_size, u32 max_entries, unsigned int flags);
void kslot_secondary_destroy(struct kslot_secondary *sec);
int kslot_secondary_insert(struct kslot_secondary *sec, u64 handle,
			   const void *val, gfp_t gfp);
int kslot_secondary_get(struct kslot_secondary *sec, u64 handle, void *buf);
bool kslot_secondary_contains(struct kslot_secondary *sec, u64 handle);
int kslot_secondary_remove(struct kslot_secondary *sec, u64 handle,
			   void *buf);
u32 kslot_secondary_retain(struct kslot_secondary *sec,
			   bool (*keep)(u64 handle, void *val, void *arg),
			   void *arg);
void kslot_secondary_clear(struct kslot_secondary *sec);
void kslot_secondary_get_stats(struct kslot_secondary *sec,
			       struct kslot_secondary_stats *st);

/**
 * kslot_secondary_lock() - Take a secondary map's lock.
 * @sec: The map.
 *
 * While it is held the caller may use __kslot_secondary_lookup() and no
 * other kslot_secondary function on @sec.
 *
 * Context: Any context the map's lock flags allow.
 * Return: Saved interrupt flags to pass to kslot_secondary_unlock().
 */
static inline unsigned long kslot_secondary_lock(struct kslot_secondary *sec)
	__acquires(&sec->lock)
{
	return __kslot_lock(&sec->lock, sec->flags);
}

/**
 * kslot_secondary_unlock() - Release a secondary map's lock.
 * @sec: The map.
 * @irqflags: The value kslot_secondary_lock() returned.
 *
 * Context: Caller holds the map lock.
 */
static inline void kslot_secondary_unlock(struct kslot_secondary *sec,
					  unsigned long irqflags)
	__releases(&sec->lock)
{
	__kslot_unlock(&sec->lock, sec->flags, irqflags);
}

/**
 * kslot_secondary_count() - Number of entries stored.
 * @sec: The map.
 *
 * Entries of handles the primary has erased count until they are cleared.
 *
 * Context: Any context.  Lockless snapshot.
 * Return: Entries stored.
 */
static inline u32 kslot_secondary_count(const struct kslot_secondary *sec)
{
	return READ_ONCE(sec->count);
}

/**
 * __kslot_secondary_lookup() - Find the value stored under a handle.
 * @sec: The map.
 * @handle: A handle, valid or not.
 *
 * Context: Caller holds the map lock; the pointer is valid until it drops
 * it.
 * Return: The value (elem_size bytes), or NULL if no entry was stored
 * under exactly @handle (stale, newer, foreign, or never stored).
 */
static inline void *__kslot_secondary_lookup(struct kslot_secondary *sec,
					     u64 handle)
{
	u32 gen = kslot_handle_gen(handle);
	u32 index = kslot_handle_index(handle);
	struct kslot_secondary_page *page;
	u32 pidx, off;

	lockdep_assert_held(&sec->lock);
	if (!kslot_gen_is_live(gen) || !sec->tag_bound ||
	    kslot_handle_tag(handle) != sec->tag || !sec->dir)
		return NULL;
	pidx = index >> sec->page_shift;
	if (pidx >= sec->dir->nr)
		return NULL;
	page = sec->dir->page[array_index_nospec(pidx, sec->dir->nr)];
	off = index & (BIT(sec->page_shift) - 1);
	if (!page || page->gen[off] != gen)
		return NULL;
	return (void *)page + sec->values_offset + (size_t)off * sec->elem_size;
}

#endif /* _LINUX_KSLOT_SECONDARY_H */
