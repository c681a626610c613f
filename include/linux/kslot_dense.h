/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_dense: a generational slot map that stores fixed-size values
 * inline and keeps them packed, for drivers that walk every live value
 * each tick.
 *
 * Three arrays, all of the table's capacity:
 *
 * - slots:  per handle index, a generation and a link.  The link of a live
 *           slot is the value's position in the packed array; the link of
 *           a free slot is the next free slot (the free list is threaded
 *           through the free slots); a retired slot is marked
 *           %KSLOT_DENSE_RETIRED.
 * - data:   the values, packed: positions 0 .. count - 1 are live, in no
 *           particular order.  Each value is elem_size bytes.
 * - rev:    the reverse map, position -> slot index, so that erase can fix
 *           the slot of the value it moves.
 *
 * Erase is swap-and-pop: the last value moves into the hole and its slot
 * is pointed at its new position, so the data stays packed in O(1).
 * Handles use the kslot_map format and rules (see kslot_handle.h): odd
 * generations are live, every erase bumps the generation, and a slot whose
 * generation would wrap is retired instead of reused.
 *
 * Rules:
 *
 * +------------------------------+------------------------+---------------+
 * | operation                    | lock                   | may sleep     |
 * +------------------------------+------------------------+---------------+
 * | kslot_dense_insert(),        | table lock, dropped to | only if gfp   |
 * | kslot_dense_insert_n(),      | allocate bigger arrays | allows        |
 * | kslot_dense_reserve()        |                        |               |
 * | kslot_dense_get(),           | table lock             | no            |
 * | kslot_dense_update(),        |                        |               |
 * | kslot_dense_contains(),      |                        |               |
 * | kslot_dense_erase(),         |                        |               |
 * | kslot_dense_erase_n(),       |                        |               |
 * | kslot_dense_retain(),        |                        |               |
 * | kslot_dense_clear(),         |                        |               |
 * | kslot_dense_find(),          |                        |               |
 * | kslot_dense_get_stats()      |                        |               |
 * | __kslot_dense_lookup(),      | caller holds the lock  | no            |
 * | kslot_dense_at(),            | (kslot_dense_lock())   |               |
 * | kslot_dense_handle_at(),     |                        |               |
 * | kslot_dense_for_each_locked()|                        |               |
 * | kslot_dense_count()          | none (a snapshot)      | no            |
 * | kslot_dense_destroy()        | caller: no other users | yes           |
 * +------------------------------+------------------------+---------------+
 *
 * - Every operation, lookups included, takes the table's internal
 *   spinlock: the values live inside the table and move on erase and on
 *   growth, so there is no lockless read path.  By default the lock is
 *   taken with spin_lock(), so callers must not use the table from softirq
 *   or hardirq context; create the table with %KSLOT_DENSE_LOCK_BH or
 *   %KSLOT_DENSE_LOCK_IRQ to allow that.
 * - Pointers into the packed data are NOT stable.  Any insert may move
 *   every value (the arrays are reallocated when the table grows) and any
 *   erase moves the last value into the erased one's place.  A pointer
 *   from __kslot_dense_lookup() or kslot_dense_at() is valid only until
 *   the caller drops the lock; to keep a value, copy it out with
 *   kslot_dense_get() and refer to it by handle.
 * - Growth allocates new arrays with the lock dropped, then takes the lock
 *   again and copies the old contents over, so a single insert that grows
 *   the table copies the whole table under the lock (amortised O(1) per
 *   insert).  Callers that cannot afford that, or must not allocate at
 *   insert time, call kslot_dense_reserve() ahead.  The table never
 *   shrinks before kslot_dense_destroy().
 * - Callbacks (kslot_dense_retain()) run under the lock and must not sleep
 *   or call back into the same table.
 * - Iterating without holding the lock for the whole walk is done with the
 *   slot-index cursor of kslot_dense_find(), which is stable across
 *   inserts and erases; packed positions are not.
 * - A store of fixed-size records (say, behind an ioctl) maps one call to
 *   one function: kslot_dense_insert(), kslot_dense_get() into a bounce
 *   buffer (copy it to user space after the call, never under the lock),
 *   kslot_dense_update(), kslot_dense_erase(), kslot_dense_count(), and
 *   kslot_dense_find() for a listing resumed from a u32 cursor.
 */
#ifndef _LINUX_KSLOT_DENSE_H
#define _LINUX_KSLOT_DENSE_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/kslot_handle.h>
#include <linux/kslot_lock.h>
#include <linux/lockdep.h>
#include <linux/nospec.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct dentry;

/* Take the table lock with spin_lock_bh(). */
#define KSLOT_DENSE_LOCK_BH	KSLOT_LOCK_BH
/* Take the table lock with spin_lock_irqsave(). */
#define KSLOT_DENSE_LOCK_IRQ	KSLOT_LOCK_IRQ
/* Charge the table's arrays to the current memcg. */
#define KSLOT_DENSE_ACCOUNT	BIT(2)
#define KSLOT_DENSE_FLAGS_ALL	(KSLOT_DENSE_LOCK_BH | KSLOT_DENSE_LOCK_IRQ | \
				 KSLOT_DENSE_ACCOUNT)

/* Smallest capacity the table grows to. */
#define KSLOT_DENSE_MIN_CAPACITY	16

#define KSLOT_DENSE_NONE	U32_MAX
#define KSLOT_DENSE_RETIRED	(U32_MAX - 1)

/**
 * struct kslot_dense_slot - One entry of the slot array.
 * @gen: Generation: odd while live, even while free; a retired slot keeps
 *	the (even) generation it wrapped to.
 * @link: Position of the value while live; next free slot (or
 *	%KSLOT_DENSE_NONE) while free; %KSLOT_DENSE_RETIRED once retired.
 */
struct kslot_dense_slot {
	u32 gen;
	u32 link;
};

/**
 * struct kslot_dense - A dense generational slot map.
 * @lock: Protects every other field except as noted; see the rules above.
 * @mem: The single allocation holding @data, @slots and @rev.
 * @data: Packed values, @elem_size bytes each; 8-byte aligned.
 * @slots: Slot array, @capacity entries.
 * @rev: Reverse map, position -> slot index, @capacity entries.
 * @elem_size: Size of one value in bytes.
 * @count: Live values; written under the lock, read locklessly by
 *	kslot_dense_count().
 * @capacity: Entries allocated in each array.
 * @max_entries: Capacity limit given at init.
 * @free_head: First free slot, or %KSLOT_DENSE_NONE.
 * @retired: Slots retired because their generation was used up.
 * @tag: Random tag carried by every handle of this table.
 * @flags: %KSLOT_DENSE_* flags given at init.
 * @rejected: Lookups that rejected a nonzero handle.
 * @debugfs: Debugfs file of a named table, or NULL.
 */
struct kslot_dense {
	spinlock_t lock;	/* See the rules above. */
	void *mem;
	void *data;
	struct kslot_dense_slot *slots;
	u32 *rev;
	u32 elem_size;
	u32 count;
	u32 capacity;
	u32 max_entries;
	u32 free_head;
	u32 retired;
	u32 tag;
	unsigned int flags;
	u64 rejected;
	struct dentry *debugfs;
};

/**
 * struct kslot_dense_stats - A snapshot of a table's counters.
 * @count: Live values.
 * @capacity: Entries allocated in each array.
 * @max_entries: Capacity limit.
 * @retired: Slots retired for good.
 * @elem_size: Size of one value.
 * @bytes: Size of the table's allocation.
 * @rejected: Lookups that rejected a nonzero handle.
 */
struct kslot_dense_stats {
	u32 count;
	u32 capacity;
	u32 max_entries;
	u32 retired;
	u32 elem_size;
	size_t bytes;
	u64 rejected;
};

int kslot_dense_init(struct kslot_dense *dense, const char *name,
		     size_t elem_size, u32 max_entries, unsigned int flags);
void kslot_dense_destroy(struct kslot_dense *dense,
			 void (*fn)(void *elem, u64 handle, void *data),
			 void *data);
int kslot_dense_reserve(struct kslot_dense *dense, u32 n, gfp_t gfp);
int kslot_dense_insert(struct kslot_dense *dense, const void *elem,
		       u64 *handle, gfp_t gfp);
int kslot_dense_insert_n(struct kslot_dense *dense, const void *elems, u32 n,
			 u64 *handles, gfp_t gfp);
int kslot_dense_get(struct kslot_dense *dense, u64 handle, void *buf);
int kslot_dense_update(struct kslot_dense *dense, u64 handle,
		       const void *elem);
bool kslot_dense_contains(struct kslot_dense *dense, u64 handle);
int kslot_dense_erase(struct kslot_dense *dense, u64 handle, void *buf);
int kslot_dense_erase_n(struct kslot_dense *dense, const u64 *handles,
			u32 n);
u32 kslot_dense_retain(struct kslot_dense *dense,
		       bool (*keep)(void *elem, u64 handle, void *arg),
		       void *arg);
void kslot_dense_clear(struct kslot_dense *dense);
int kslot_dense_find(struct kslot_dense *dense, u32 *cursor, u64 *handles,
		     void *buf, u32 max);
void kslot_dense_get_stats(struct kslot_dense *dense,
			   struct kslot_dense_stats *st);

/**
 * kslot_dense_lock() - Take a table's lock.
 * @dense: The table.
 *
 * Takes the lock the way the table's flags ask (plain, _bh or _irqsave).
 * While it is held the caller may use __kslot_dense_lookup(),
 * kslot_dense_at(), kslot_dense_handle_at() and
 * kslot_dense_for_each_locked(), and must not call any other
 * kslot_dense function on the same table.
 *
 * Context: Any context the table's lock flags allow.
 * Return: Saved interrupt flags to pass to kslot_dense_unlock().
 */
static inline unsigned long kslot_dense_lock(struct kslot_dense *dense)
	__acquires(&dense->lock)
{
	return __kslot_lock(&dense->lock, dense->flags);
}

/**
 * kslot_dense_unlock() - Release a table's lock.
 * @dense: The table.
 * @irqflags: The value kslot_dense_lock() returned.
 *
 * Context: Caller holds the table lock.
 */
static inline void kslot_dense_unlock(struct kslot_dense *dense,
				      unsigned long irqflags)
	__releases(&dense->lock)
{
	__kslot_unlock(&dense->lock, dense->flags, irqflags);
}

/**
 * kslot_dense_count() - Number of live values.
 * @dense: The table.
 *
 * Context: Any context.  Lockless; the value may be stale by the time it
 * is used unless the caller holds the table lock.
 * Return: Live values.
 */
static inline u32 kslot_dense_count(const struct kslot_dense *dense)
{
	return READ_ONCE(dense->count);
}

/**
 * kslot_dense_at() - The value at a packed position.
 * @dense: The table.
 * @pos: Position, below the table's count.
 *
 * Context: Caller holds the table lock; the pointer is valid until it
 * drops it.
 * Return: A pointer to the value's elem_size bytes.
 */
static inline void *kslot_dense_at(struct kslot_dense *dense, u32 pos)
{
	lockdep_assert_held(&dense->lock);
	return dense->data + (size_t)pos * dense->elem_size;
}

/**
 * kslot_dense_handle_at() - Handle of the value at a packed position.
 * @dense: The table.
 * @pos: Position, below the table's count.
 *
 * Context: Caller holds the table lock.
 * Return: The value's handle.
 */
static inline u64 kslot_dense_handle_at(struct kslot_dense *dense, u32 pos)
{
	u32 index;

	lockdep_assert_held(&dense->lock);
	index = dense->rev[pos];
	return kslot_handle_make(index, dense->tag, dense->slots[index].gen);
}

/**
 * __kslot_dense_lookup() - Find the value a handle names, lock held.
 * @dense: The table.
 * @handle: A handle, valid or not.
 *
 * The handle's index is bounds-checked and clamped with
 * array_index_nospec(), so a forged handle cannot steer a speculative
 * read outside the table.
 *
 * Context: Caller holds the table lock; the pointer is valid until it
 * drops it (see the rules above: values move).
 * Return: A pointer to the value, or NULL if @handle is not live in
 * @dense (stale, forged, from another table, or null).
 */
static inline void *__kslot_dense_lookup(struct kslot_dense *dense,
					 u64 handle)
{
	u32 gen = kslot_handle_gen(handle);
	u32 index = kslot_handle_index(handle);
	struct kslot_dense_slot *slot;

	lockdep_assert_held(&dense->lock);
	if (unlikely(!kslot_gen_is_live(gen) ||
		     kslot_handle_tag(handle) != dense->tag ||
		     index >= dense->capacity))
		goto reject;
	slot = &dense->slots[array_index_nospec(index, dense->capacity)];
	if (unlikely(slot->gen != gen))
		goto reject;
	return kslot_dense_at(dense, slot->link);
reject:
	if (handle)
		dense->rejected++;
	return NULL;
}

/**
 * __kslot_dense_next_locked() - Step function of kslot_dense_for_each_locked().
 * @dense: The table.
 * @cursor: Next position to visit; advanced.
 * @pos: Set to the position of the value returned.
 *
 * Context: Caller holds the table lock.
 * Return: The value at *@cursor, or NULL past the last one.
 */
static inline void *__kslot_dense_next_locked(struct kslot_dense *dense,
					      u32 *cursor, u32 *pos)
{
	if (*cursor >= dense->count)
		return NULL;
	*pos = *cursor;
	return kslot_dense_at(dense, (*cursor)++);
}

/**
 * kslot_dense_for_each_locked() - Walk the packed values, lock held.
 * @dense: The table.
 * @pos: u32 set to each value's position in turn.
 * @elem: Pointer set to each value.
 *
 * Visits every live value exactly once, in packed order.  The caller
 * holds the table lock for the whole walk and must not insert or erase
 * during it (use kslot_dense_retain() to erase while walking);
 * kslot_dense_handle_at(@dense, @pos) gives each value's handle.
 */
#define kslot_dense_for_each_locked(dense, pos, elem)			\
	for (u32 __kslot_dcur = 0;					\
	     ((elem) = __kslot_dense_next_locked((dense), &__kslot_dcur,	\
						 &(pos)));)

#endif /* _LINUX_KSLOT_DENSE_H */
