/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_secondary: fixed-size side values keyed by the handles another
 * kslot table issued (a kslot_map or a kslot_dense), without touching that
 * table.  A driver attaches per-object data that only some objects have,
 * or that one subsystem owns, the way Rust slotmap's SecondaryMap does.
 *
 * A secondary is a keyed kslot_slots table (kslot_slots.h,
 * %KSLOT_SLOTS_KEYED): its slot for a handle's index holds the handle the
 * value was stored under (the slot's one-compare word) and a pointer to
 * the value.  Generations only grow within a slot (kslot tables retire a
 * slot rather than wrap its generation, see kslot_handle.h), so comparing
 * them needs no wrap-around arithmetic:
 *
 * - insert under a handle as new as the stored one, or newer, stores the
 *   value (a newer handle means the primary reused the slot, so the old
 *   entry is dead and gives way);
 * - insert under an older handle, or one whose slot a remove has moved
 *   past, is refused with -ESTALE;
 * - lookups match the whole handle exactly, so a stale handle, or one
 *   newer than the entry, finds nothing (and counts as rejected).
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
 * Rules:
 *
 * +------------------------------+------------------------+---------------+
 * | operation                    | lock                   | may sleep     |
 * +------------------------------+------------------------+---------------+
 * | __kslot_secondary_lookup()   | caller: RCU            | no            |
 * | kslot_secondary_lookup(),    | none (takes RCU)       | no            |
 * | kslot_secondary_contains()   |                        |               |
 * | kslot_secondary_insert()     | table lock, dropped to | only if gfp   |
 * |                              | grow                   | allows        |
 * | kslot_secondary_remove()     | table lock             | no            |
 * | kslot_secondary_retain(),    | table lock per remove  | no            |
 * | kslot_secondary_clear()      | (takes RCU to walk)    |               |
 * | kslot_secondary_stats()      | table lock             | no            |
 * | kslot_secondary_count()      | none (a snapshot)      | no            |
 * | kslot_secondary_destroy()    | caller: no other users | if named      |
 * +------------------------------+------------------------+---------------+
 *
 * - Writers serialise on the slot table's spinlock, taken with spin_lock()
 *   unless the map was created with %KSLOT_SECONDARY_LOCK_BH or
 *   %KSLOT_SECONDARY_LOCK_IRQ.
 * - Values are immutable once stored: an insert over an entry stores a new
 *   copy and frees the old one after a grace period, so a reader under RCU
 *   sees one whole value, old or new, never a torn one.
 * - The retain predicate runs under RCU but under no lock of the
 *   secondary's, so it may take its primary's lock or call the primary's
 *   lookups; it must not sleep.
 *
 * Storage, and its trade-off against the page directory this replaced:
 * each value is its own allocation (an rcu_head, then elem_size bytes)
 * that the slot points to, so the secondary shares the core's growth
 * (flat table copied on grow), handle check, stats and debugfs instead of
 * a growth engine of its own.  It costs an allocation per insert (the
 * pages had one per 64 indices), 16 bytes of slot plus the kmalloc size
 * of the value per entry (the pages: 4 bytes plus elem_size), and a
 * lookup loads the value from a second cache line.  In exchange lookups
 * take no lock at all (they took the map lock) and values never tear.
 * Measured natively (bench/native --sets, kslot_secondary_lookup() of an
 * 8-byte value in random order, ns, beside the primary kslot_map's own
 * kslot_map_lookup() in the same run): 1K entries, pages 9.1 (map 3.7),
 * this 7.2 (map 5.2); 64K entries, pages 12.7 (map 9.0), this 116 (map
 * 24.6, a busier machine): the lock-free lookup wins while the values are
 * cached, the second, scattered cache line loses once they are not.  A
 * per-slot inline payload in the core would give both; it is not there
 * yet.
 */
#ifndef _LINUX_KSLOT_SECONDARY_H
#define _LINUX_KSLOT_SECONDARY_H

#include <linux/gfp.h>
#include <linux/kslot_slots.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

/* Take the table lock with spin_lock_bh(). */
#define KSLOT_SECONDARY_LOCK_BH		KSLOT_SLOTS_LOCK_BH
/* Take the table lock with spin_lock_irqsave(). */
#define KSLOT_SECONDARY_LOCK_IRQ	KSLOT_SLOTS_LOCK_IRQ
/* Charge the slot table and the values to the current memcg. */
#define KSLOT_SECONDARY_ACCOUNT		KSLOT_SLOTS_ACCOUNT
#define KSLOT_SECONDARY_FLAGS_ALL	(KSLOT_SECONDARY_LOCK_BH | \
					 KSLOT_SECONDARY_LOCK_IRQ | \
					 KSLOT_SECONDARY_ACCOUNT)

/* Largest value a secondary map stores. */
#define KSLOT_SECONDARY_MAX_ELEM_SIZE	4096

/**
 * struct kslot_secondary - Side values keyed by another table's handles.
 *
 * Every field is private: use the functions below.
 */
struct kslot_secondary {
	/* private: */
	/* Keyed slot table; a live slot points at its value. */
	struct kslot_slots slots;
	/* Size of one value. */
	u32 elem_size;
};

int __kslot_secondary_init(struct kslot_secondary *sec, const char *name,
			   size_t elem_size, u32 max_entries,
			   unsigned int flags, struct lock_class_key *keys);

/**
 * kslot_secondary_init() - Initialise a secondary map, lock in the caller's class.
 * @sec: The map.
 * @name: As __kslot_secondary_init().
 * @elem_size: As __kslot_secondary_init().
 * @max_entries: As __kslot_secondary_init().
 * @flags: As __kslot_secondary_init().
 *
 * __kslot_secondary_init() with lockdep classes of this call site, one
 * per lock mode (kslot_lock_classes()).
 *
 * Context: As __kslot_secondary_init().
 * Return: As __kslot_secondary_init().
 */
#define kslot_secondary_init(sec, name, elem_size, max_entries, flags)	\
	__kslot_secondary_init(sec, name, elem_size, max_entries, flags, \
			       kslot_lock_classes())
void kslot_secondary_destroy(struct kslot_secondary *sec);
int kslot_secondary_insert(struct kslot_secondary *sec, u64 handle,
			   const void *val, gfp_t gfp);
int kslot_secondary_lookup(struct kslot_secondary *sec, u64 handle, void *buf);
bool kslot_secondary_contains(struct kslot_secondary *sec, u64 handle);
int kslot_secondary_remove(struct kslot_secondary *sec, u64 handle,
			   void *buf);
u32 kslot_secondary_retain(struct kslot_secondary *sec,
			   bool (*keep)(u64 handle, void *val, void *arg),
			   void *arg);
void kslot_secondary_clear(struct kslot_secondary *sec);
void kslot_secondary_stats(struct kslot_secondary *sec,
			   struct kslot_slots_stats *st);

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
	return kslot_slots_count(&sec->slots);
}

/**
 * __kslot_secondary_lookup() - Find the value stored under a handle.
 * @sec: The map.
 * @handle: A handle, valid or not.
 *
 * One handle compare in the core (__kslot_slots_lookup()).
 *
 * Context: Caller holds rcu_read_lock(); the value stays valid (and
 * unchanged: values are never written in place) until it drops it.
 * Return: The value (elem_size bytes, read-only), or NULL if no entry was
 * stored under exactly @handle (stale, newer, foreign, or never stored).
 */
static __always_inline const void *
__kslot_secondary_lookup(struct kslot_secondary *sec, u64 handle)
{
	return __kslot_slots_lookup(&sec->slots, handle);
}

#endif /* _LINUX_KSLOT_SECONDARY_H */
