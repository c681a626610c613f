/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_map: a generational handle table mapping u64 handles to pointers.
 *
 * A driver stores an object and receives a handle (see kslot_handle.h for
 * the bit layout, which the map chooses from its max_entries:
 * kslot_map_handle_index() and kslot_map_handle_gen() take it apart).
 * Erasing the object bumps the slot's generation, so a stale handle is
 * rejected instead of reaching the slot's next occupant.
 *
 * Rules:
 *
 * +-------------------------+----------------------+--------------------+
 * | operation               | lock                 | may sleep          |
 * +-------------------------+----------------------+--------------------+
 * | kslot_map_lookup(),     | none (takes RCU)     | no                 |
 * | kslot_map_get(),        |                      |                    |
 * | kslot_map_find(),       |                      |                    |
 * | kslot_map_for_each()    |                      |                    |
 * | __kslot_map_lookup(),   | caller: RCU or lock  | no                 |
 * | kslot_map_read_begin(), |                      |                    |
 * | kslot_map_read()        |                      |                    |
 * | kslot_map_alloc(),      | map lock, dropped to | only if gfp allows |
 * | kslot_map_alloc_bulk()  | allocate a chunk     |                    |
 * |                         | (bulk: and every     |                    |
 * |                         | %KSLOT_SLOTS_BULK)   |                    |
 * | kslot_map_reserve()     | as kslot_map_alloc() | only if gfp allows |
 * | kslot_map_replace(),    | map lock             | no                 |
 * | kslot_map_remove(),     |                      |                    |
 * | kslot_map_remove_bulk() | (bulk: dropped every |                    |
 * |                         | %KSLOT_SLOTS_BULK)   |                    |
 * | kslot_map_replace_if(), |                      |                    |
 * | kslot_map_remove_if()   |                      |                    |
 * | kslot_map_stats(),      | takes the map lock   | no                 |
 * | kslot_map_lock()        |                      |                    |
 * | __kslot_map_alloc(),    | caller: map lock     | no (never          |
 * | __kslot_map_replace(),  | (kslot_map_lock())   | allocates)         |
 * | __kslot_map_remove(),   |                      |                    |
 * | __kslot_map_replace_if()|                      |                    |
 * | __kslot_map_remove_if() |                      |                    |
 * | kslot_map_destroy()     | caller: no users;    | if named (debugfs) |
 * |                         | free the map a grace |                    |
 * |                         | period later         |                    |
 * +-------------------------+----------------------+--------------------+
 *
 * - Writers serialise on an internal spinlock.  By default it is taken
 *   with spin_lock(), so writers must not run in softirq or hardirq
 *   context.  Create the map with %KSLOT_MAP_LOCK_BH or %KSLOT_MAP_LOCK_IRQ
 *   to make every writer safe from softirq or hardirq context.
 * - The map is a kslot_slots table (kslot_slots.h): chunks of slots that
 *   never move, found through a directory that a growth replaces (a
 *   grace period later it is freed) only when it is full.  No writer
 *   waits for a grace period.
 * - The map never frees the objects stored in it.  An object removed from
 *   the map may still be in the hands of an RCU reader that looked it up
 *   before the removal, so free it with kfree_rcu() (or call_rcu()), or
 *   allocate it from a SLAB_TYPESAFE_BY_RCU cache and take references with
 *   kslot_map_get(), which re-checks the handle after the get.
 * - A slot is live from kslot_map_alloc() until kslot_map_remove().  A
 *   slot allocated with a NULL object is a placeholder: lookups return NULL
 *   until kslot_map_replace() publishes an object.  ("Reserve" in kslot
 *   always means capacity: kslot_map_reserve() makes room for
 *   allocations.)
 * - %KSLOT_MAP_HANDLE32 at init makes the map issue 32-bit handles
 *   (nonzero, below 2^31, still u64 in the API) for a u32 id of an
 *   existing uAPI; kslot_slots.h gives the bit split and the reuses per
 *   slot.  Handles of the two formats never match each other's maps.
 *   kslot_secondary keys the 64-bit handles of a map only.
 *
 * The XArray patterns, for a driver converted from one (every XArray and
 * IDR call: the conversion table of docs/kslot.rst):
 *
 * +----------------------------------+------------------------------------+
 * | XArray                           | kslot_map                          |
 * +----------------------------------+------------------------------------+
 * | xa_load(), then                  | kslot_map_get() (free the objects  |
 * | kref_get_unless_zero(), in one   | a grace period after the last put) |
 * | rcu_read_lock() section          |                                    |
 * | xa_lock() / xa_unlock()          | kslot_map_lock() / _unlock()       |
 * | xa_load() under xa_lock()        | __kslot_map_lookup() under the lock|
 * | __xa_alloc(), __xa_store(),      | __kslot_map_alloc(),               |
 * | __xa_erase()                     | __kslot_map_replace(),             |
 * |                                  | __kslot_map_remove()               |
 * | xa_cmpxchg(), __xa_cmpxchg()     | kslot_map_replace_if(),            |
 * |                                  | kslot_map_remove_if() and __ forms |
 * | xa_alloc(XA_ZERO_ENTRY), then    | kslot_map_alloc(NULL), then        |
 * | xa_cmpxchg(XA_ZERO_ENTRY, obj)   | kslot_map_replace_if(NULL, obj)    |
 * | xa_reserve(), idr_preload()      | kslot_map_reserve()                |
 * +----------------------------------+------------------------------------+
 *
 * For example, a get that must not race a remove, and a remove only if
 * the map holds the last reference:
 *
 *	flags = kslot_map_lock(&map);
 *	obj = __kslot_map_lookup(&map, h);
 *	if (obj && !refcount_inc_not_zero(&obj->users))
 *		obj = NULL;
 *	kslot_map_unlock(&map, flags);
 *
 *	flags = kslot_map_lock(&map);
 *	if (refcount_dec_if_one(&obj->users))
 *		ret = __kslot_map_remove_if(&map, h, obj);
 *	kslot_map_unlock(&map, flags);
 */
#ifndef _LINUX_KSLOT_MAP_H
#define _LINUX_KSLOT_MAP_H

#include <linux/kref.h>
#include <linux/kslot_slots.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* Writers take the map lock with spin_lock_bh(). */
#define KSLOT_MAP_LOCK_BH	KSLOT_SLOTS_LOCK_BH
/* Writers take the map lock with spin_lock_irqsave(). */
#define KSLOT_MAP_LOCK_IRQ	KSLOT_SLOTS_LOCK_IRQ
/* Charge the map's own memory (its slot table) to the current memcg. */
#define KSLOT_MAP_ACCOUNT	KSLOT_SLOTS_ACCOUNT
/* Issue 32-bit handles (nonzero, below 2^31): see kslot_handle.h. */
#define KSLOT_MAP_HANDLE32	KSLOT_SLOTS_HANDLE32
#define KSLOT_MAP_FLAGS_ALL	(KSLOT_MAP_LOCK_BH | KSLOT_MAP_LOCK_IRQ | \
				 KSLOT_MAP_ACCOUNT | KSLOT_MAP_HANDLE32)

/**
 * struct kslot_map - A generational handle table.
 */
struct kslot_map {
	/* private: */
	struct kslot_slots slots;
};

/**
 * KSLOT_MAP_INIT() - Initialise a map defined statically.
 * @max: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @fl: %KSLOT_MAP_LOCK_BH or %KSLOT_MAP_LOCK_IRQ (not both) and
 *	%KSLOT_MAP_ACCOUNT; a map of 32-bit handles needs kslot_map_init().
 *
 * As XARRAY_INIT(): the map kslot_map_init() would leave, without a
 * debugfs file.
 */
#define KSLOT_MAP_INIT(max, fl) {					\
	.slots = KSLOT_SLOTS_INIT(max, fl),				\
}

/**
 * DEFINE_KSLOT_MAP() - Define a map, ready for use.
 * @name: The map's name.
 * @max: As KSLOT_MAP_INIT().
 * @fl: As KSLOT_MAP_INIT().
 *
 * As DEFINE_XARRAY().  After kslot_map_destroy() the map must be
 * initialised with kslot_map_init() before any other use.
 */
#define DEFINE_KSLOT_MAP(name, max, fl)					\
	struct kslot_map name = KSLOT_MAP_INIT(max, fl)

/**
 * kslot_map_init() - Initialise a generational handle table.
 * @map: The map to initialise.
 * @name: If not NULL, expose the map's counters in debugfs as
 *	kslot/map-@name (unless another map has the name).
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_MAP_LOCK_BH or %KSLOT_MAP_LOCK_IRQ (not both),
 *	%KSLOT_MAP_ACCOUNT, %KSLOT_MAP_HANDLE32.
 *
 * Context: Process context if @name is given, otherwise any context.
 * Return: 0, or -EINVAL if @max_entries is out of range or @flags holds
 * unknown bits or both lock flags.
 */
#define kslot_map_init(map, name, max_entries, flags)			\
	__kslot_map_init(map, name, max_entries, flags, kslot_lock_classes())

/**
 * __kslot_map_init() - kslot_map_init() with the lock classes given.
 * @map: The map to initialise.
 * @name: As kslot_map_init().
 * @max_entries: As kslot_map_init().
 * @flags: As kslot_map_init().
 * @keys: The lockdep classes of the map lock (kslot_lock_classes()).
 *
 * Context: As kslot_map_init().
 * Return: As kslot_map_init().
 */
static inline int __kslot_map_init(struct kslot_map *map, const char *name,
				   u32 max_entries, unsigned int flags,
				   struct lock_class_key *keys)
{
	/* A map issues its own handles: it is never a keyed table. */
	if (flags & ~KSLOT_MAP_FLAGS_ALL)
		return -EINVAL;
	return __kslot_slots_init(&map->slots, "map", name, max_entries,
				  flags, keys);
}

/**
 * kslot_map_destroy() - Tear down a map.
 * @map: The map.
 * @fn: If not NULL, called once for every live entry (placeholders
 *	included, with a NULL object), without the map lock held.
 * @data: Passed to @fn.
 *
 * The caller ensures that no writer runs and no new lookup starts, and
 * frees or re-initialises @map only a grace period after this returns.
 * A running lookup may still return the object @fn is given: @fn frees
 * it after a grace period.  There is no resched point: a caller in
 * process context with a large map calls cond_resched() from @fn.
 *
 * Context: Process context for a named map (its debugfs file is removed);
 * otherwise any context that @fn allows.
 */
static inline void kslot_map_destroy(struct kslot_map *map,
				     void (*fn)(void *obj, u64 handle,
						void *data),
				     void *data)
{
	kslot_slots_destroy(&map->slots, fn, data);
}

/**
 * kslot_map_alloc() - Store an object and issue a handle for it.
 * @map: The map.
 * @handle: Set to the new handle on success; untouched on failure.
 * @obj: The object, or NULL for a placeholder that kslot_map_replace()
 *	publishes later.
 * @gfp: Allocation flags for growing the map.
 *
 * Initialise the object first: lookups may return it before this returns.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the map's lock flags allow.  Takes and releases the map lock.
 * Return: 0, -ENOMEM if growing the map failed, or -ENOSPC if the map
 * holds max_entries slots (live or retired) and none is free.
 */
static inline int kslot_map_alloc(struct kslot_map *map, u64 *handle,
				  void *obj, gfp_t gfp)
{
	return kslot_slots_alloc(&map->slots, handle, obj, gfp);
}

/**
 * kslot_map_replace() - Replace the object a handle refers to.
 * @map: The map.
 * @handle: A live handle, placeholder or not.
 * @obj: The new object; NULL turns the entry back into a placeholder.
 * @old: If not NULL, set to the previous object (NULL for a
 *	placeholder); untouched on error.
 *
 * The handle keeps its generation.  Lookups see either the old or the new
 * object; the caller owns the old one and must respect the RCU rule
 * before freeing it.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: 0, or -ENOENT if @handle is not live in @map.
 */
static inline int kslot_map_replace(struct kslot_map *map, u64 handle,
				    void *obj, void **old)
{
	return kslot_slots_replace(&map->slots, handle, obj, old);
}

/**
 * kslot_map_remove() - Remove an entry and invalidate its handle.
 * @map: The map.
 * @handle: A handle, valid or not.
 *
 * Every copy of @handle is rejected from now on.
 *
 * Returns the object, as xa_erase() does, so NULL stands both for a
 * stale handle and for a placeholder (released all the same):
 * kslot_map_remove_if(map, handle, NULL) tells them apart.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: The removed object, or NULL if @handle was not live or was a
 * placeholder.
 */
static inline void *kslot_map_remove(struct kslot_map *map, u64 handle)
{
	return kslot_slots_remove(&map->slots, handle);
}

/**
 * kslot_map_alloc_bulk() - Store several objects at once.
 * @map: The map.
 * @handles: Receives the handle of each object stored, in order.
 * @objs: The objects (NULL entries are placeholders).
 * @nr: How many.
 * @gfp: Allocation flags for growing the map.
 *
 * Stops at the first that fails; the ones before stay stored.
 *
 * Context: As kslot_map_alloc().
 * Return: The number stored, 1 .. @nr (0 for @nr 0); if not even the
 * first could be, -ENOMEM or -ENOSPC; -EINVAL if @nr is above %INT_MAX.
 */
static inline int kslot_map_alloc_bulk(struct kslot_map *map,
				       u64 *handles, void *const *objs, u32 nr,
				       gfp_t gfp)
{
	return kslot_slots_alloc_bulk(&map->slots, handles, objs, nr, gfp);
}

/**
 * kslot_map_remove_bulk() - Remove several entries at once.
 * @map: The map.
 * @handles: The handles, valid or not.
 * @nr: How many.
 * @objs: Receives the object each removed entry held (NULL for a
 *	placeholder), in order.
 *
 * Stops at the first handle that is not live, leaving it and the rest.
 *
 * Context: As kslot_map_remove().
 * Return: The number of entries removed: @nr, or the index of the first
 * handle that was not live.
 */
static inline u32 kslot_map_remove_bulk(struct kslot_map *map,
					const u64 *handles, u32 nr,
					void **objs)
{
	return kslot_slots_remove_bulk(&map->slots, handles, nr, objs);
}

/**
 * kslot_map_lock() - Take the map's writer lock.
 * @map: The map.
 *
 * The xa_lock() of a map: while it is held, the __kslot_map_*() functions
 * may be called and no other writer changes the map.
 *
 * Context: Any context the map's lock flags allow; not with the map lock
 * held.
 * Return: Saved interrupt flags to pass to kslot_map_unlock().
 */
static inline unsigned long kslot_map_lock(struct kslot_map *map)
	__acquires(&map->slots.lock)
{
	return kslot_slots_lock(&map->slots);
}

/**
 * kslot_map_lock_nested() - Take a map's writer lock inside another's.
 * @map: The map.
 * @subclass: The lockdep subclass, 1 .. 7.
 *
 * For the inner of two maps initialised at one call site (they share a
 * lockdep class), always taken in the same order.
 *
 * Context: As kslot_map_lock().
 * Return: Saved interrupt flags to pass to kslot_map_unlock().
 */
static inline unsigned long kslot_map_lock_nested(struct kslot_map *map,
						  unsigned int subclass)
	__acquires(&map->slots.lock)
{
	return kslot_slots_lock_nested(&map->slots, subclass);
}

/**
 * kslot_map_unlock() - Release the map's writer lock.
 * @map: The map.
 * @flags: The value kslot_map_lock() returned.
 *
 * Context: Caller holds the map lock.
 */
static inline void kslot_map_unlock(struct kslot_map *map,
				    unsigned long flags)
	__releases(&map->slots.lock)
{
	kslot_slots_unlock(&map->slots, flags);
}

/**
 * kslot_map_reserve() - Make room so that allocations cannot fail for memory.
 * @map: The map.
 * @nr: Allocations to make room for.
 * @gfp: Allocation flags for growing the map.
 *
 * The idr_preload() / xa_reserve() of a map: until the @nr free slots are
 * used, kslot_map_alloc() with any gfp and __kslot_map_alloc() fail only
 * with -ENOSPC.  Other allocators may use them too; nothing is released.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the map's lock flags allow; not with the map lock held.
 * Return: 0 (also for @nr 0), -ENOMEM if growing the map failed, or
 * -ENOSPC if @nr more entries do not fit under max_entries (the map is
 * not grown) or no longer fit once concurrent allocators took some.
 */
static inline int kslot_map_reserve(struct kslot_map *map, u32 nr, gfp_t gfp)
{
	return kslot_slots_reserve(&map->slots, nr, gfp);
}

/**
 * __kslot_map_alloc() - Store an object with the map lock held.
 * @map: The map.
 * @handle: Set to the new handle on success; untouched on failure.
 * @obj: The object, or NULL for a placeholder.
 *
 * Never allocates memory: kslot_map_reserve() makes the free slots.
 *
 * Context: Caller holds the map lock (kslot_map_lock()).
 * Return: 0, -ENOMEM if no slot is free but the map could grow, or
 * -ENOSPC if it holds max_entries slots (live or retired) and none is free.
 */
static inline int __kslot_map_alloc(struct kslot_map *map, u64 *handle,
				    void *obj)
	__must_hold(&map->slots.lock)
{
	return __kslot_slots_alloc(&map->slots, handle, obj);
}

/**
 * __kslot_map_replace() - Replace an object with the map lock held.
 * @map: The map.
 * @handle: A live handle, placeholder or not.
 * @obj: The new object; NULL turns the entry back into a placeholder.
 * @old: If not NULL, set to the previous object (NULL for a
 *	placeholder); untouched on error.
 *
 * kslot_map_replace() for a caller that holds the map lock.
 *
 * Context: Caller holds the map lock (kslot_map_lock()).
 * Return: 0, or -ENOENT if @handle is not live in @map.
 */
static inline int __kslot_map_replace(struct kslot_map *map, u64 handle,
				      void *obj, void **old)
	__must_hold(&map->slots.lock)
{
	return __kslot_slots_replace(&map->slots, handle, obj, old);
}

/**
 * __kslot_map_remove() - Remove an entry with the map lock held.
 * @map: The map.
 * @handle: A handle, valid or not.
 *
 * Context: Caller holds the map lock (kslot_map_lock()).
 * Return: The removed object, or NULL if @handle was not live or was a
 * placeholder (released all the same).
 */
static inline void *__kslot_map_remove(struct kslot_map *map, u64 handle)
	__must_hold(&map->slots.lock)
{
	return __kslot_slots_remove(&map->slots, handle);
}

/**
 * kslot_map_replace_if() - Replace an object if the entry still holds @old.
 * @map: The map.
 * @handle: A handle, valid or not.
 * @old: The object the entry must hold; NULL for a placeholder.
 * @obj: The new object; NULL turns the entry back into a placeholder.
 *
 * The xa_cmpxchg() of a map.  The handle keeps its generation.
 *
 * Context: Any context the map's lock flags allow; not with the map lock
 * held.  Takes and releases the map lock.
 * Return: 0, -ENOENT if @handle is not live in @map, or -EBUSY if the
 * entry holds another object than @old (nothing is changed on error).
 */
static inline int kslot_map_replace_if(struct kslot_map *map, u64 handle,
				       void *old, void *obj)
{
	return kslot_slots_replace_if(&map->slots, handle, old, obj);
}

/**
 * __kslot_map_replace_if() - kslot_map_replace_if() with the lock held.
 * @map: The map.
 * @handle: A handle, valid or not.
 * @old: The object the entry must hold; NULL for a placeholder.
 * @obj: The new object; NULL turns the entry back into a placeholder.
 *
 * Context: Caller holds the map lock (kslot_map_lock()).
 * Return: 0, -ENOENT if @handle is not live in @map, or -EBUSY if the
 * entry holds another object than @old (nothing is changed on error).
 */
static inline int __kslot_map_replace_if(struct kslot_map *map, u64 handle,
					 void *old, void *obj)
	__must_hold(&map->slots.lock)
{
	return __kslot_slots_replace_if(&map->slots, handle, old, obj);
}

/**
 * kslot_map_remove_if() - Remove an entry if it still holds @old.
 * @map: The map.
 * @handle: A handle, valid or not.
 * @old: The object the entry must hold; NULL for a placeholder.
 *
 * Context: Any context the map's lock flags allow; not with the map lock
 * held.  Takes and releases the map lock.
 * Return: 0, -ENOENT if @handle is not live in @map, or -EBUSY if the
 * entry holds another object than @old (nothing is changed on error).
 */
static inline int kslot_map_remove_if(struct kslot_map *map, u64 handle,
				      void *old)
{
	return kslot_slots_remove_if(&map->slots, handle, old);
}

/**
 * __kslot_map_remove_if() - kslot_map_remove_if() with the lock held.
 * @map: The map.
 * @handle: A handle, valid or not.
 * @old: The object the entry must hold; NULL for a placeholder.
 *
 * Context: Caller holds the map lock (kslot_map_lock()).
 * Return: 0, -ENOENT if @handle is not live in @map, or -EBUSY if the
 * entry holds another object than @old (nothing is changed on error).
 */
static inline int __kslot_map_remove_if(struct kslot_map *map, u64 handle,
					void *old)
	__must_hold(&map->slots.lock)
{
	return __kslot_slots_remove_if(&map->slots, handle, old);
}

/**
 * __kslot_map_lookup() - Look up a handle without taking any lock.
 * @map: The map.
 * @handle: A handle, valid or not.
 *
 * Context: Caller holds rcu_read_lock() or the map lock.
 * Return: The object, valid while the caller stays in the RCU read-side
 * critical section, or NULL if @handle is not live in @map (or is a
 * placeholder).
 */
static __always_inline void *__kslot_map_lookup(struct kslot_map *map,
						u64 handle)
{
	return __kslot_slots_lookup(&map->slots, handle);
}

/**
 * struct kslot_map_reader - A map pinned for a run of lookups.
 *
 * On the caller's stack, with no cleanup.
 */
struct kslot_map_reader {
	/* private: */
	struct kslot_slots_reader r;
};

/**
 * kslot_map_read_begin() - Pin a map for a run of lookups.
 * @r: The reader, on the caller's stack.
 * @map: The map.
 *
 * Each kslot_map_read() sees its slot as it was at some moment since this
 * call.  Chunks a growth adds to the near part later are not seen (the
 * far part is seen as it is); a run that must see them begins again.
 *
 * Context: Caller holds rcu_read_lock() (or the map lock) from this call
 * to its last kslot_map_read().
 */
static __always_inline void kslot_map_read_begin(struct kslot_map_reader *r,
						 struct kslot_map *map)
{
	kslot_slots_read_begin(&r->r, &map->slots);
}

/**
 * kslot_map_read() - Look up a handle in a pinned map.
 * @r: A reader begun by kslot_map_read_begin() in this RCU section.
 * @handle: A handle, valid or not.
 *
 * Context: As kslot_map_read_begin().
 * Return: The object, or NULL if @handle is not live in the pinned table
 * (or is a placeholder).
 */
static __always_inline void *kslot_map_read(const struct kslot_map_reader *r,
					    u64 handle)
{
	return kslot_slots_read(&r->r, handle);
}

/**
 * kslot_map_read_ahead() - How far ahead a run over a map should prefetch.
 * @r: A reader begun by kslot_map_read_begin() in this RCU section.
 *
 * Test it once per run; if nonzero, prefetch that many handles ahead with
 * kslot_map_read_prefetch() and read them with kslot_map_read_slot().
 *
 * Context: As kslot_map_read_begin().
 * Return: %KSLOT_SLOTS_READ_AHEAD, or 0 for a small map.
 */
static __always_inline u32
kslot_map_read_ahead(const struct kslot_map_reader *r)
{
	return kslot_slots_read_ahead(&r->r);
}

/**
 * kslot_map_read_prefetch() - Start loading the slot a handle names.
 * @r: A reader begun by kslot_map_read_begin() in this RCU section.
 * @handle: A handle, valid or not, that the run reads soon.
 *
 * Keep the slot as kslot_slots_read_prefetch() says.
 *
 * Context: As kslot_map_read_begin().
 * Return: The slot @handle names, only for kslot_map_read_slot() on
 * @handle in this run.
 */
static __always_inline const struct kslot_slot *
kslot_map_read_prefetch(const struct kslot_map_reader *r, u64 handle)
{
	return kslot_slots_read_prefetch(&r->r, handle);
}

/**
 * kslot_map_read_slot() - Look up a handle at the slot its prefetch found.
 * @r: A reader begun by kslot_map_read_begin() in this RCU section.
 * @slot: What kslot_map_read_prefetch() returned for @handle in this run.
 * @handle: A handle, valid or not.
 *
 * @slot must be the one returned for this very @handle.
 *
 * Context: As kslot_map_read_begin().
 * Return: As kslot_map_read().
 */
static __always_inline void *
kslot_map_read_slot(const struct kslot_map_reader *r,
		    const struct kslot_slot *slot, u64 handle)
{
	return kslot_slots_read_slot(&r->r, slot, handle);
}

/**
 * kslot_map_lookup() - Find the object a handle refers to.
 * @map: The map.
 * @handle: A handle, valid or not.
 *
 * Unless the caller holds rcu_read_lock() across the call and its use of
 * the object, or a reference, the object may be freed once this returns.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The object, or NULL if @handle is stale, forged, from another
 * map, or a placeholder.
 */
static __always_inline void *kslot_map_lookup(struct kslot_map *map,
					      u64 handle)
{
	void *obj;

	rcu_read_lock();
	obj = __kslot_slots_lookup(&map->slots, handle);
	rcu_read_unlock();
	return obj;
}

/**
 * kslot_map_find() - Find the first live object in an index range.
 * @map: The map.
 * @index: Slot to start from; set to the slot found.
 * @max: Last slot to look at (inclusive; %U32_MAX for no limit).
 * @handle: Set to the handle of the entry found.
 *
 * The xa_find() of a map: the live object with the lowest slot index
 * that is at least *@index and at most @max.  Placeholders are skipped.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The object, or NULL when no live object is in *@index .. @max
 * (then *@index and *@handle are unchanged).
 */
static inline void *kslot_map_find(struct kslot_map *map, u32 *index,
				   u32 max, u64 *handle)
{
	return kslot_slots_find(&map->slots, index, max, handle);
}

/**
 * kslot_map_stats() - Read a map's counters.
 * @map: The map.
 * @st: Filled with a consistent snapshot of the counters.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 */
static inline void kslot_map_stats(struct kslot_map *map,
				   struct kslot_slots_stats *st)
{
	kslot_slots_stats(&map->slots, st);
}

/**
 * kslot_map_count() - Number of live entries.
 * @map: The map.
 *
 * Context: Any context.  Lockless: stale unless writers are excluded.
 * Return: Live entries, including placeholders.
 */
static inline u32 kslot_map_count(const struct kslot_map *map)
{
	return kslot_slots_count(&map->slots);
}

/**
 * kslot_map_tag() - The tag every handle of a map carries.
 * @map: The map.
 *
 * Context: Any context but NMI (kslot_slots_tag()).
 * Return: The tag, 0 .. %KSLOT_TAG_MASK; 0 for a map of 32-bit handles.
 */
static inline u32 kslot_map_tag(struct kslot_map *map)
{
	return kslot_slots_tag(&map->slots);
}

/**
 * kslot_map_handle_index() - The slot a handle names in a map.
 * @map: The map whose handle format applies.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The index bits of @handle in @map's format.
 */
static inline u32 kslot_map_handle_index(const struct kslot_map *map,
					 u64 handle)
{
	return kslot_slots_handle_index(&map->slots, handle);
}

/**
 * kslot_map_handle_gen() - The generation of a handle in a map.
 * @map: The map whose handle format applies.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The generation bits of @handle in @map's format.
 */
static inline u64 kslot_map_handle_gen(const struct kslot_map *map,
				       u64 handle)
{
	return kslot_slots_handle_gen(&map->slots, handle);
}

/* kslot_map_for_each()'s cursor, at slot 0. */
static inline u32 *__kslot_map_first(u32 *index)
{
	*index = 0;
	return index;
}

/**
 * kslot_map_for_each() - Iterate over the live objects of a map.
 * @map: The map.
 * @index: u32 set to the slot index of each entry: the cursor, as
 *	xa_for_each()'s.
 * @handle: u64 set to the handle of each entry.
 * @obj: Set to each object.
 *
 * kslot_map_find() from slot 0, then from the slot after each entry
 * found (an index stays below %KSLOT_MAX_ENTRIES: the step never wraps).
 * Skips placeholders.  Each entry live for the whole walk is visited once,
 * whatever the body adds or removes.  The body may sleep, and holds its
 * own reference to use @obj after it could be freed.
 */
#define kslot_map_for_each(map, index, handle, obj)			\
	for (u32 *__kslot_i = __kslot_map_first(&(index));		\
	     ((obj) = kslot_map_find((map), __kslot_i, U32_MAX, &(handle))); \
	     (*__kslot_i)++)

/**
 * kslot_map_get() - Look up a handle and take a kref on the object.
 * @map: The map.
 * @handle: A handle, valid or not.
 * @type: Type of the stored objects.
 * @member: Name of the struct kref in @type.
 * @release: kref release function of @type.
 *
 * xa_load() then kref_get_unless_zero(), in one call (kslot_slots_get()):
 * after the reference is taken, the handle is checked again against the
 * current table, so this is also correct for objects from a
 * SLAB_TYPESAFE_BY_RCU cache.
 *
 * Context: Any context.  Takes and releases the RCU read lock.  @release
 * may be called, so it must be safe in the caller's context.
 * Return: A referenced @type pointer, or NULL if @handle is stale,
 * forged, from another map, a placeholder, or its object's last
 * reference is gone.
 */
#define kslot_map_get(map, handle, type, member, release)		\
	((type *)kslot_slots_get(&(map)->slots, (handle),		\
				 offsetof(type, member), (release)))

#endif /* _LINUX_KSLOT_MAP_H */
