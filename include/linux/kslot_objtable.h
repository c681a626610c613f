/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_objtable: handle-keyed objects, a kslot_pool plus a kslot_map.
 *
 * The common driver pattern in one structure: kslot_objtable_alloc()
 * takes an object from the table's pool and publishes it under a fresh
 * generational handle; lookups find it from the handle without a lock;
 * kslot_objtable_free() retires the handle.
 *
 * Rules:
 *
 * +-----------------------------+----------------------+------------------+
 * | operation                   | lock                 | may sleep        |
 * +-----------------------------+----------------------+------------------+
 * | __kslot_objtable_lookup()   | caller: RCU          | no               |
 * | kslot_objtable_get()        | none (takes RCU)     | no               |
 * | kslot_objtable_put(),       | map lock (free)      | no               |
 * | kslot_objtable_free(),      |                      |                  |
 * | kslot_objtable_publish()    |                      |                  |
 * | kslot_objtable_alloc(),     | pool and map locks,  | only if gfp      |
 * | kslot_objtable_alloc_       | dropped to allocate  | allows           |
 * | placeholder()               |                      |                  |
 * | kslot_objtable_create(),    | caller: no users     | yes              |
 * | kslot_objtable_destroy()    |                      |                  |
 * +-----------------------------+----------------------+------------------+
 *
 * - Lifetime: deferred free.  Every object has a reference count, and the
 *   handle holds one reference.  kslot_objtable_free() bumps the handle's
 *   generation (so no lookup finds the object through it again) and drops
 *   that reference.  When the last reference goes, an RCU callback, after
 *   a grace period, calls the table's release callback on the object (if
 *   it has one) and hands it back to the pool.  So:
 *   - an object found by __kslot_objtable_lookup() stays valid until the
 *     caller leaves its RCU read-side critical section, even if the handle
 *     is freed meanwhile;
 *   - a reference from kslot_objtable_get() keeps the object valid until
 *     kslot_objtable_put(), with or without RCU;
 *   - the memory is recycled only after a grace period with no reference
 *     left, and a stale handle never matches a newer generation, so a
 *     stale handle never yields a recycled object;
 *   - release sees an object no lookup or reference can reach any more:
 *     it frees what the object owns at once, with no grace period of its
 *     own.  It runs from the RCU callback (in softirq context or an RCU
 *     kthread, never inside rcu_read_lock()), so it must not sleep: work
 *     that sleeps goes to a workqueue.  In a table with a constructor it
 *     leaves the object in its constructed state, as the pool wants it
 *     back.
 * - The object returned by kslot_objtable_alloc() is not a counted
 *   reference: it is valid until its handle is freed (by anyone) and a
 *   grace period passes.  Take a reference with kslot_objtable_get() to
 *   keep it longer.
 * - kslot_objtable_alloc() publishes the object at once, zeroed (or in its
 *   constructed state if the table has a constructor); readers may find it
 *   before the caller fills it in.  To fill it in first, allocate with
 *   kslot_objtable_alloc_placeholder() and publish with
 *   kslot_objtable_publish().
 * - Writers (alloc, publish, free) serialise on the map lock; create the
 *   table with %KSLOT_OBJTABLE_LOCK_BH or %KSLOT_OBJTABLE_LOCK_IRQ to call
 *   them from softirq or hardirq context.  The pool works in any context.
 * - Each object carries a 40-byte trailer after the caller's bytes (the
 *   handle, the reference count, the published flag, an rcu_head and the
 *   table).  The map holds the object from allocation on; a placeholder
 *   is an object whose trailer says it is not published yet, so a lookup
 *   reads the trailer after the slot (one more load, in the object's last
 *   cache line, which kslot_objtable_get() touches anyway for the
 *   reference) and the map entries carry nothing but the pointer.
 */
#ifndef _LINUX_KSLOT_OBJTABLE_H
#define _LINUX_KSLOT_OBJTABLE_H

#include <linux/kslot_map.h>
#include <linux/kslot_pool.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>

/* Writers take the map lock with spin_lock_bh(). */
#define KSLOT_OBJTABLE_LOCK_BH		KSLOT_MAP_LOCK_BH
/* Writers take the map lock with spin_lock_irqsave(). */
#define KSLOT_OBJTABLE_LOCK_IRQ		KSLOT_MAP_LOCK_IRQ
/* Charge the map and the pool to the current memcg. */
#define KSLOT_OBJTABLE_ACCOUNT		KSLOT_MAP_ACCOUNT
/* Run the pool in debug mode (see kslot_pool.h). */
#define KSLOT_OBJTABLE_DEBUG		BIT(3)
/* Report pool misuse without a WARN backtrace (see kslot_pool.h). */
#define KSLOT_OBJTABLE_NOWARN		BIT(4)
#define KSLOT_OBJTABLE_FLAGS_ALL	(KSLOT_OBJTABLE_LOCK_BH |	\
					 KSLOT_OBJTABLE_LOCK_IRQ |	\
					 KSLOT_OBJTABLE_ACCOUNT |	\
					 KSLOT_OBJTABLE_DEBUG |		\
					 KSLOT_OBJTABLE_NOWARN)

/**
 * struct kslot_objtable_hdr - Hidden trailer of every object.
 *
 * Every field is private to kslot_objtable.
 */
struct kslot_objtable_hdr {
	/* private: */
	/* The handle the object was allocated under. */
	u64 handle;
	/* References: one for the live handle, one per kslot_objtable_get(). */
	refcount_t ref;
	/* Lookups return the object once set (release, after its contents). */
	bool published;
	/* Defers the release and the return to the pool past a grace period. */
	struct rcu_head rcu;
	/* Whose release and pool the callback uses (destroy waits for it). */
	struct kslot_objtable *table;
};

/**
 * struct kslot_objtable_config - Parameters of kslot_objtable_create().
 * @name: If not NULL, names the debugfs files kslot/map-@name and
 *	kslot/pool-@name.
 * @size: Object size in bytes, at least 1.
 * @align: Object alignment: 0 for the default, else a power of two up to
 *	%KSLOT_POOL_MAX_ALIGN.
 * @ctor: Optional constructor (see struct kslot_pool_config); without one
 *	objects are handed out zeroed.
 * @release: Optional: called once for every object the table handed out
 *	(placeholders too), a grace period after its last reference is
 *	gone, before it goes back to the pool.  From an RCU callback: it
 *	must not sleep.
 * @max_entries: Most objects with a live handle at once (published or
 *	placeholders), 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_OBJTABLE_* flags.
 */
struct kslot_objtable_config {
	const char *name;
	size_t size;
	size_t align;
	void (*ctor)(void *obj);
	void (*release)(void *obj);
	u32 max_entries;
	unsigned int flags;
};

/**
 * struct kslot_objtable - Handle-keyed objects.
 *
 * Every field is private: use the functions below.
 */
struct kslot_objtable {
	/* private: */
	/*
	 * Handles to objects: every live handle's slot holds its object,
	 * placeholder or published (the trailer tells which).
	 */
	struct kslot_map map;
	/* Object memory (the objects with their trailers). */
	struct kslot_pool *pool;
	/* Offset of the hidden trailer in each object. */
	size_t hdr_offset;
	/* Called on each object before it goes back to the pool, or NULL. */
	void (*release)(void *obj);
	/* Objects are zeroed on allocation (no constructor). */
	bool zero;
};

/**
 * struct kslot_objtable_stats - A snapshot of a table's counters.
 * @map: The handle map's counters (count = published objects and
 *	placeholders).
 * @pool: The pool's counters (in_use includes objects freed but waiting
 *	for a grace period or a last reference).
 */
struct kslot_objtable_stats {
	struct kslot_slots_stats map;
	struct kslot_pool_stats pool;
};

struct kslot_objtable *
kslot_objtable_create(const struct kslot_objtable_config *cfg);
void kslot_objtable_destroy(struct kslot_objtable *table);
void *kslot_objtable_alloc(struct kslot_objtable *table, u64 *handle,
			   gfp_t gfp);
void *kslot_objtable_alloc_placeholder(struct kslot_objtable *table,
				       u64 *handle, gfp_t gfp);
int kslot_objtable_publish(struct kslot_objtable *table, void *obj);
void *kslot_objtable_get(struct kslot_objtable *table, u64 handle);
void kslot_objtable_put(struct kslot_objtable *table, void *obj);
int kslot_objtable_free(struct kslot_objtable *table, u64 handle);
u64 kslot_objtable_handle(struct kslot_objtable *table, const void *obj);
void kslot_objtable_stats(struct kslot_objtable *table,
			  struct kslot_objtable_stats *st);

/**
 * __kslot_objtable_lookup() - Find the object a handle refers to.
 * @table: The table.
 * @handle: A handle, valid or not.
 *
 * The object stays valid until the caller leaves its RCU read-side
 * critical section, even if the handle is freed meanwhile; take a
 * reference with kslot_objtable_get() to keep it longer.
 *
 * Context: Caller holds rcu_read_lock().
 * Return: The object, or NULL if @handle is stale, forged, from another
 * table, or names an object not yet published.
 */
static inline void *__kslot_objtable_lookup(struct kslot_objtable *table,
					    u64 handle)
{
	void *obj = __kslot_map_lookup(&table->map, handle);
	struct kslot_objtable_hdr *hdr;

	if (!obj)
		return NULL;
	hdr = obj + table->hdr_offset;
	/* Pairs with the release in kslot_objtable_publish(). */
	return smp_load_acquire(&hdr->published) ? obj : NULL;
}

/**
 * kslot_objtable_count() - Number of objects with a live handle.
 * @table: The table.
 *
 * Context: Any context.  Lockless; may be stale unless writers are
 * excluded.
 * Return: Published objects and placeholders whose handle was not freed.
 */
static inline u32 kslot_objtable_count(const struct kslot_objtable *table)
{
	return kslot_map_count(&table->map);
}

#endif /* _LINUX_KSLOT_OBJTABLE_H */
