/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_map: a generational handle table mapping u64 handles to pointers.
 *
 * A driver stores an object and receives a handle (see kslot_handle.h for
 * the bit layout).  Erasing the object bumps the slot's generation, so a
 * stale handle is rejected instead of reaching the slot's next occupant.
 *
 * Rules:
 *
 * +-------------------------+----------------------+--------------------+
 * | operation               | lock                 | may sleep          |
 * +-------------------------+----------------------+--------------------+
 * | kslot_map_lookup()      | none (takes RCU)     | no                 |
 * | __kslot_map_lookup()    | caller: RCU or lock  | no                 |
 * | kslot_map_lookup_get()  | none (takes RCU)     | no                 |
 * | kslot_map_find() and    | none (takes RCU)     | no                 |
 * | kslot_map_for_each()    |                      |                    |
 * | kslot_map_alloc()       | map lock, dropped to | only if gfp allows |
 * |                         | allocate a chunk     |                    |
 * | kslot_map_replace(),    | map lock             | no                 |
 * | kslot_map_remove()      |                      |                    |
 * | kslot_map_destroy()     | caller: no users     | if named (debugfs) |
 * +-------------------------+----------------------+--------------------+
 *
 * - Writers serialise on an internal spinlock.  By default it is taken
 *   with spin_lock(), so writers must not run in softirq or hardirq
 *   context.  Create the map with %KSLOT_MAP_LOCK_BH or %KSLOT_MAP_LOCK_IRQ
 *   to make every writer safe from softirq or hardirq context.
 * - Slots live in chunks of %KSLOT_MAP_CHUNK_SLOTS that never move and are
 *   freed only by kslot_map_destroy(), after an RCU grace period.  The chunk
 *   directory is replaced on growth and the old one freed after a grace
 *   period, as fs/file.c does for the fd table.
 * - The map never frees the objects stored in it.  An object removed from
 *   the map may still be in the hands of an RCU reader that looked it up
 *   before the removal, so free it with kfree_rcu() (or call_rcu()), or
 *   allocate it from a SLAB_TYPESAFE_BY_RCU cache and take references with
 *   kslot_map_lookup_get(), which re-checks the handle after the get.
 * - A slot is live from kslot_map_alloc() until kslot_map_remove().  A
 *   slot allocated with a NULL object is reserved: lookups return NULL
 *   until kslot_map_replace() publishes an object.
 */
#ifndef _LINUX_KSLOT_MAP_H
#define _LINUX_KSLOT_MAP_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/kslot_handle.h>
#include <linux/kslot_lock.h>
#include <linux/nospec.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/types.h>

struct dentry;

#define KSLOT_MAP_CHUNK_SHIFT	8
#define KSLOT_MAP_CHUNK_SLOTS	BIT(KSLOT_MAP_CHUNK_SHIFT)
#define KSLOT_MAP_CHUNK_MASK	(KSLOT_MAP_CHUNK_SLOTS - 1)

/* Writers take the map lock with spin_lock_bh(). */
#define KSLOT_MAP_LOCK_BH	KSLOT_LOCK_BH
/* Writers take the map lock with spin_lock_irqsave(). */
#define KSLOT_MAP_LOCK_IRQ	KSLOT_LOCK_IRQ
/* Charge the map's own memory (chunks, directory) to the current memcg. */
#define KSLOT_MAP_ACCOUNT	BIT(2)
#define KSLOT_MAP_FLAGS_ALL	(KSLOT_MAP_LOCK_BH | KSLOT_MAP_LOCK_IRQ | \
				 KSLOT_MAP_ACCOUNT)

/**
 * struct kslot_map_slot - One slot of a kslot_map.
 * @obj: The stored object; NULL while free or reserved.
 * @gen: Generation: odd while live, even while free, 0 once retired.
 * @next: Index of the next free slot while this one is free.
 */
struct kslot_map_slot {
	void *obj;
	u32 gen;
	u32 next;
};

/**
 * struct kslot_map_dir - The chunk directory, replaced as the map grows.
 * @rcu: Frees a replaced directory after readers are done with it.
 * @nr_chunks: Number of entries in @chunks.
 * @chunks: Pointers to the slot chunks; NULL beyond the map's capacity.
 */
struct kslot_map_dir {
	struct rcu_head rcu;
	u32 nr_chunks;
	struct kslot_map_slot *chunks[] __counted_by(nr_chunks);
};

/**
 * struct kslot_map - A generational handle table.
 * @dir: The chunk directory (RCU-protected).
 * @nr_slots: Slots readers may index; published with release semantics
 *	after the chunk holding them.
 * @tag: Random tag carried by every handle of this map.
 * @flags: %KSLOT_MAP_* flags given at init.
 * @lock: Serialises writers.
 * @free_head: First free slot, or %KSLOT_MAP_NONE.
 * @count: Live slots (including reserved ones).
 * @max_entries: Capacity limit given at init.
 * @retired: Slots retired because their generation was used up.
 * @rejected: Lookups rejected (stale, forged or foreign handles).
 * @debugfs: Debugfs file of a named map, or NULL.
 */
struct kslot_map {
	/* Read by every lookup. */
	struct kslot_map_dir __rcu *dir;
	u32 nr_slots;
	u32 tag;
	unsigned int flags;
	/* Written by writers: a cache line of their own. */
	spinlock_t lock ____cacheline_aligned_in_smp;	/* See the rules. */
	u32 free_head;
	u32 count;
	u32 max_entries;
	u32 retired;
	atomic_long_t rejected;
	struct dentry *debugfs;
};

#define KSLOT_MAP_NONE		U32_MAX
#define KSLOT_MAP_RETIRED	(U32_MAX - 1)

/**
 * struct kslot_map_stats - A snapshot of a map's counters.
 * @count: Live entries, including reserved ones.
 * @capacity: Slots allocated so far.
 * @max_entries: Capacity limit.
 * @retired: Slots retired for good.
 * @rejected: Lookups that rejected a nonzero handle.
 */
struct kslot_map_stats {
	u32 count;
	u32 capacity;
	u32 max_entries;
	u32 retired;
	u64 rejected;
};

int kslot_map_init(struct kslot_map *map, const char *name, u32 max_entries,
		   unsigned int flags);
void kslot_map_destroy(struct kslot_map *map,
		       void (*fn)(void *obj, u64 handle, void *data),
		       void *data);
int kslot_map_alloc(struct kslot_map *map, void *obj, u64 *handle,
		    gfp_t gfp);
void *kslot_map_replace(struct kslot_map *map, u64 handle, void *obj);
void *kslot_map_remove(struct kslot_map *map, u64 handle);
void *kslot_map_lookup(struct kslot_map *map, u64 handle);
void *kslot_map_lookup_get(struct kslot_map *map, u64 handle,
			   size_t ref_offset,
			   void (*release)(struct kref *ref));
void *kslot_map_find(struct kslot_map *map, u32 *index, u64 *handle);
void kslot_map_get_stats(struct kslot_map *map, struct kslot_map_stats *st);

/**
 * __kslot_map_slot() - Find the slot an index names.
 * @map: The map.
 * @index: A slot index from an untrusted handle.
 *
 * The index is bounds-checked and then clamped with array_index_nospec()
 * so a mispredicted bounds check cannot read beyond the table.
 *
 * Context: Caller holds rcu_read_lock() or the map lock.
 * Return: The slot, or NULL if @index is beyond the map's slots.
 */
static inline struct kslot_map_slot *
__kslot_map_slot(struct kslot_map *map, u32 index)
{
	/* Pairs with the release in kslot_map_grow_install(). */
	u32 nr = smp_load_acquire(&map->nr_slots);
	struct kslot_map_dir *dir;

	if (unlikely(index >= nr))
		return NULL;
	index = array_index_nospec(index, nr);
	dir = rcu_dereference_check(map->dir, lockdep_is_held(&map->lock));
	return &dir->chunks[index >> KSLOT_MAP_CHUNK_SHIFT]
			   [index & KSLOT_MAP_CHUNK_MASK];
}

/**
 * __kslot_map_lookup() - Look up a handle without taking any lock.
 * @map: The map.
 * @handle: A handle, valid or not.
 *
 * The fast path: a tag compare, a bounds check, and a generation compare
 * before and after the object load, so the object returned is the one
 * that was published under @handle and not a later occupant of the slot.
 *
 * Context: Caller holds rcu_read_lock() or the map lock.
 * Return: The object, or NULL if @handle is not live in @map (or is
 * reserved).  The object is only guaranteed to stay valid while the
 * caller stays in the RCU read-side critical section.
 */
static inline void *__kslot_map_lookup(struct kslot_map *map, u64 handle)
{
	u32 gen = kslot_handle_gen(handle);
	struct kslot_map_slot *slot;
	void *obj;

	if (unlikely(!kslot_gen_is_live(gen) ||
		     kslot_handle_tag(handle) != map->tag))
		goto reject;
	slot = __kslot_map_slot(map, kslot_handle_index(handle));
	if (unlikely(!slot || READ_ONCE(slot->gen) != gen))
		goto reject;
	/* Generation, object, generation: pairs with smp_wmb() in writers. */
	smp_rmb();
	obj = READ_ONCE(slot->obj);
	smp_rmb(); /* Object before the generation re-check. */
	if (unlikely(READ_ONCE(slot->gen) != gen))
		goto reject;
	return obj;
reject:
	if (handle)
		atomic_long_inc(&map->rejected);
	return NULL;
}

/**
 * kslot_map_count() - Number of live entries.
 * @map: The map.
 *
 * Context: Any context.  Lockless; the value may be stale by the time it
 * is used unless the caller excludes writers.
 * Return: Live entries, including reserved ones.
 */
static inline u32 kslot_map_count(const struct kslot_map *map)
{
	return READ_ONCE(map->count);
}

/**
 * __kslot_map_next() - Step function of kslot_map_for_each().
 * @map: The map.
 * @pos: Cursor: the slot to search from; advanced past the entry found.
 * @index: Set to the slot of the entry found.
 * @handle: Set to the handle of the entry found.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The next live object, or NULL at the end.
 */
static inline void *__kslot_map_next(struct kslot_map *map, u32 *pos,
				     u32 *index, u64 *handle)
{
	void *obj = kslot_map_find(map, pos, handle);

	if (obj)
		*index = (*pos)++;
	return obj;
}

/**
 * kslot_map_for_each() - Iterate over the live objects of a map.
 * @map: The map.
 * @index: u32 set to the slot index of each entry.
 * @handle: u64 set to the handle of each entry.
 * @obj: Set to each object.
 *
 * Reserved entries are skipped.  Removing entries (including the current
 * one) and allocating new ones during the walk is safe: each live entry
 * present for the whole walk is visited exactly once, entries added or
 * removed during the walk may or may not be.  Every step takes
 * rcu_read_lock() itself, so the caller may sleep in the loop body, and
 * must hold its own reference if it uses @obj after it could be freed.
 */
#define kslot_map_for_each(map, index, handle, obj)			\
	for (u32 __kslot_pos = 0;					\
	     ((obj) = __kslot_map_next((map), &__kslot_pos, &(index),	\
				       &(handle)));)

/**
 * kslot_map_get() - Look up a handle and take a reference on the object.
 * @map: The map.
 * @handle: A handle, valid or not.
 * @type: Type of the stored objects.
 * @member: Name of the struct kref in @type.
 * @release: kref release function of @type.
 *
 * Context: Any context.
 * Return: A referenced @type pointer, or NULL.
 */
#define kslot_map_get(map, handle, type, member, release)		\
	((type *)kslot_map_lookup_get((map), (handle),			\
				      offsetof(type, member), (release)))

#endif /* _LINUX_KSLOT_MAP_H */
