/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_dense: a generational slot map that stores fixed-size values
 * inline and keeps them packed, for drivers that walk every live value
 * each tick.
 *
 * A kslot_slots table whose live slots hold their value's packed position
 * (plus one: NULL until kslot_dense_insert() publishes it), the values at
 * positions 0 .. count - 1, and a reverse map from position to handle.
 * Erase is swap-and-pop: the last value moves into the hole.  Both arrays
 * grow in chunks that never move (docs/core.rst).
 *
 * operation                           | lock                  | may sleep
 * ------------------------------------+-----------------------+-------------
 * kslot_dense_lookup(),               | none (takes RCU)      | no
 * _lookup_many(),                     |                       |
 * kslot_dense_contains()              |                       |
 * kslot_dense_count()                 | none                  | no
 * kslot_dense_insert(), _insert_n(),  | takes the lock,       | if gfp allows
 * _reserve()                          | drops it to allocate  |
 * kslot_dense_update(), _erase(),     | takes the lock        | no
 * _extract(), _extract_range(),       |                       |
 * _stats()                            |                       |
 * kslot_dense_erase_n(), _retain(),   | takes the lock, drops | no
 * _clear()                            | it every batch        |
 * __kslot_dense_lookup(),             | caller: table lock    | no
 * __kslot_dense_at(), _handle_at(),   | (kslot_dense_lock())  |
 * kslot_dense_for_each_locked()       |                       |
 * kslot_dense_destroy()               | caller: no writers    | if named
 *
 * - kslot_dense_lookup() copies a value under RCU and a sequence count that
 *   every move or overwrite bumps: it returns the value stored under the
 *   handle at one instant of the call, never a moved or torn one.  It
 *   waits for writers, so it runs only where the lock flags shut them out
 *   (kslot_lock.h) and returns -EDEADLK elsewhere.
 * - The bulk writers hold the lock for a batch at a time; other writers
 *   and lookups run between batches.
 * - Pointers into the packed data are not stable: one from
 *   __kslot_dense_lookup() or __kslot_dense_at() is valid until the lock is
 *   dropped, and for reading only.  Change a value with
 *   kslot_dense_update() or in kslot_dense_retain()'s callback, which runs
 *   under the lock and must not sleep or call into the same table.
 * - To walk without holding the lock, use kslot_dense_extract()'s slot-index
 *   cursor, which inserts and erases do not disturb.
 */
#ifndef _LINUX_KSLOT_DENSE_H
#define _LINUX_KSLOT_DENSE_H

#include <linux/gfp.h>
#include <linux/kslot_handle.h>
#include <linux/kslot_lock.h>
#include <linux/kslot_slots.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* Take the table lock with spin_lock_bh(). */
#define KSLOT_DENSE_LOCK_BH	KSLOT_SLOTS_LOCK_BH
/* Take the table lock with spin_lock_irqsave(). */
#define KSLOT_DENSE_LOCK_IRQ	KSLOT_SLOTS_LOCK_IRQ
/* Charge the table's arrays to the current memcg. */
#define KSLOT_DENSE_ACCOUNT	KSLOT_SLOTS_ACCOUNT
#define KSLOT_DENSE_FLAGS_ALL	(KSLOT_DENSE_LOCK_BH | KSLOT_DENSE_LOCK_IRQ | \
				 KSLOT_DENSE_ACCOUNT)

/**
 * struct kslot_dense - A dense generational slot map.
 *
 * Every field is private: use the functions below.
 */
struct kslot_dense {
	/* private: */
	/* Handles -> packed position + 1 (NULL while not yet published). */
	struct kslot_slots slots;
	/* Serialises the writers; see the rules above. */
	spinlock_t lock;
	/* Bumped around every move or overwrite of a published value. */
	seqcount_spinlock_t seq;
	/* The values (RCU) and the reverse map: chunks of 1 << @shift. */
	struct kslot_dir __rcu *vals;
	struct kslot_dir __rcu *rev;
	/* Bytes per value, live values (read locklessly), room in @vals. */
	u32 elem_size;
	u32 count;
	u32 room;
	u32 shift;
	/* Memory the chunks of @vals and of @rev take, at the allocator's size. */
	size_t vals_bytes;
	size_t rev_bytes;
};

/**
 * struct kslot_dense_stats - A snapshot of a table's counters.
 * @count: Live values.
 * @capacity: Slots allocated so far.
 * @max_entries: Capacity limit.
 * @retired: Slots retired for good.
 * @elem_size: Size of one value.
 * @room: Values the packed array holds before it must grow.
 * @bytes: Memory the slots and both arrays take, at the allocator's size
 *	(not a replaced directory).
 * @rejected: Nonzero handles that named no live entry.
 * @grow_bytes: Memory one more insert may allocate (an upper bound); 0 if
 *	nothing must (or can) grow.
 * @vals_grow_bytes: The packed arrays' part of @grow_bytes.
 */
struct kslot_dense_stats {
	u32 count;
	u32 capacity;
	u32 max_entries;
	u32 retired;
	u32 elem_size;
	u32 room;
	size_t bytes;
	u64 rejected;
	size_t grow_bytes;
	size_t vals_grow_bytes;
};

int __kslot_dense_init(struct kslot_dense *dense, const char *name,
		       size_t elem_size, u32 max_entries, unsigned int flags,
		       struct lock_class_key *keys);

/**
 * kslot_dense_init() - Initialise a dense slot map, lock in the caller's class.
 * @dense: The table to initialise.
 * @name: As __kslot_dense_init().
 * @elem_size: As __kslot_dense_init().
 * @max_entries: As __kslot_dense_init().
 * @flags: As __kslot_dense_init().
 *
 * Context: Process context.
 * Return: As __kslot_dense_init().
 */
#define kslot_dense_init(dense, name, elem_size, max_entries, flags)	\
	__kslot_dense_init(dense, name, elem_size, max_entries, flags,	\
			   kslot_lock_classes())

void kslot_dense_destroy(struct kslot_dense *dense,
			 void (*fn)(void *elem, u64 handle, void *data),
			 void *data);
int kslot_dense_reserve(struct kslot_dense *dense, u32 n, gfp_t gfp);
int kslot_dense_insert(struct kslot_dense *dense, u64 *handle,
		       const void *elem, gfp_t gfp);
int kslot_dense_insert_n(struct kslot_dense *dense, u64 *handles,
			 const void *elems, u32 n, gfp_t gfp);
int kslot_dense_lookup(struct kslot_dense *dense, u64 handle, void *buf);
u32 kslot_dense_lookup_many(struct kslot_dense *dense, const u64 *handles,
			    u32 n, void *buf);
int kslot_dense_update(struct kslot_dense *dense, u64 handle,
		       const void *elem);
bool kslot_dense_contains(struct kslot_dense *dense, u64 handle);
int kslot_dense_erase(struct kslot_dense *dense, u64 handle, void *buf);
int kslot_dense_erase_n(struct kslot_dense *dense, const u64 *handles,
			u32 n);
u32 kslot_dense_retain(struct kslot_dense *dense,
		       bool (*keep)(u64 handle, void *elem, void *arg),
		       void *arg);
void kslot_dense_clear(struct kslot_dense *dense);
int kslot_dense_extract(struct kslot_dense *dense, u32 *cursor, u64 *handles,
			void *buf, u32 max);
int kslot_dense_extract_range(struct kslot_dense *dense, u32 *cursor, u32 end,
			      u64 *handles, void *buf, u32 max);
void kslot_dense_stats(struct kslot_dense *dense,
		       struct kslot_dense_stats *st);

/**
 * kslot_dense_lock() - Take a table's lock.
 * @dense: The table.
 *
 * While it is held the caller may use the __ functions and
 * kslot_dense_for_each_locked(), and no other kslot_dense function on
 * the same table.
 *
 * Context: Any context the table's lock flags allow.
 * Return: Saved interrupt flags to pass to kslot_dense_unlock().
 */
static __always_inline unsigned long
kslot_dense_lock(struct kslot_dense *dense)
	__acquires(&dense->lock)
{
	rcu_read_lock();
	return kslot_spin_lock_flags(&dense->lock, dense->slots.flags);
}

/**
 * kslot_dense_unlock() - Release a table's lock.
 * @dense: The table.
 * @irqflags: The value kslot_dense_lock() returned.
 *
 * Context: Caller holds the table lock.
 */
static __always_inline void kslot_dense_unlock(struct kslot_dense *dense,
					       unsigned long irqflags)
	__releases(&dense->lock)
{
	kslot_spin_unlock_flags(&dense->lock, dense->slots.flags, irqflags);
	rcu_read_unlock();
}

/**
 * kslot_dense_count() - Number of live values.
 * @dense: The table.
 *
 * Context: Any context.  Lockless: stale unless the caller holds the lock.
 * Return: Live values.
 */
static inline u32 kslot_dense_count(const struct kslot_dense *dense)
{
	return READ_ONCE(dense->count);
}

/* Position @pos of the values or the reverse map; lock or RCU held. */
static __always_inline void *kslot_dense_dir_at(const struct kslot_dir *dir,
						u32 shift, size_t size,
						u32 pos)
{
	return kslot_dir_at(dir, pos, shift, size);
}

/**
 * __kslot_dense_at() - The value at a packed position.
 * @dense: The table.
 * @pos: Position, below the table's count.
 *
 * Context: Caller holds the table lock.
 * Return: A pointer to the value's elem_size bytes.
 */
static inline void *__kslot_dense_at(struct kslot_dense *dense, u32 pos)
{
	lockdep_assert_held(&dense->lock);
	return kslot_dense_dir_at(rcu_dereference_protected(dense->vals,
					lockdep_is_held(&dense->lock)),
				  dense->shift, dense->elem_size, pos);
}

/**
 * __kslot_dense_handle_at() - Handle of the value at a packed position.
 * @dense: The table.
 * @pos: Position, below the table's count.
 *
 * Context: Caller holds the table lock.
 * Return: The value's handle.
 */
static inline u64 __kslot_dense_handle_at(struct kslot_dense *dense,
					  u32 pos)
{
	lockdep_assert_held(&dense->lock);
	return *(u64 *)kslot_dense_dir_at(rcu_dereference_protected(dense->rev,
						lockdep_is_held(&dense->lock)),
					  dense->shift, sizeof(u64), pos);
}

/* A published slot holds the packed position plus one, never NULL. */
static inline void *kslot_dense_pos_obj(u32 pos)
{
	return (void *)((unsigned long)pos + 1);
}

static inline u32 kslot_dense_obj_pos(const void *obj)
{
	return (unsigned long)obj - 1;
}

/**
 * __kslot_dense_lookup() - Find the value a handle names, lock held.
 * @dense: The table.
 * @handle: A handle, valid or not.
 *
 * Context: Caller holds the table lock (kslot_dense_lock()).
 * Return: A pointer to the value, or NULL if @handle is not live in
 * @dense (stale, forged, from another table, or null).
 */
static inline void *__kslot_dense_lookup(struct kslot_dense *dense,
					 u64 handle)
{
	void *obj;

	lockdep_assert_held(&dense->lock);
	obj = __kslot_slots_lookup(&dense->slots, handle);
	if (!obj)
		return NULL;
	return __kslot_dense_at(dense, kslot_dense_obj_pos(obj));
}

/**
 * struct kslot_dense_walk - The state of a kslot_dense_for_each_locked()
 *	walk.
 */
struct kslot_dense_walk {
	/* private: */
	/*
	 * Copies, so that the loop body cannot force reloads; named apart
	 * from the macro's parameters.
	 */
	const struct kslot_dir *dir;
	u8 *at;
	size_t step;
	u32 idx;
	u32 nr;
	u32 shift;
	u32 mask;
};

/**
 * __kslot_dense_walk_start() - Start a kslot_dense_for_each_locked() walk.
 * @dense: The table.
 *
 * Context: Caller holds the table lock.
 * Return: The walk's state.
 */
static __always_inline struct kslot_dense_walk
__kslot_dense_walk_start(struct kslot_dense *dense)
{
	const struct kslot_dir *dir =
		rcu_dereference_protected(dense->vals,
					  lockdep_is_held(&dense->lock));

	lockdep_assert_held(&dense->lock);
	return (struct kslot_dense_walk){
		.dir = dir, .at = dense->count ? dir->chunk[0] : NULL,
		.step = dense->elem_size, .idx = 0, .nr = dense->count,
		.shift = dense->shift, .mask = BIT(dense->shift) - 1,
	};
}

/**
 * __kslot_dense_walk_next() - Step a kslot_dense_for_each_locked() walk.
 * @w: The walk's state.
 *
 * Context: Caller holds the table lock.
 */
static __always_inline void __kslot_dense_walk_next(struct kslot_dense_walk *w)
{
	w->at += w->step;
	if (!(++w->idx & w->mask) && w->idx < w->nr)
		w->at = kslot_dir_at(w->dir, w->idx, w->shift, w->step);
}

/**
 * kslot_dense_for_each_locked() - Walk the packed values, lock held.
 * @dense: The table.
 * @pos: u32 set to each value's position in turn.
 * @elem: Pointer set to each value.
 *
 * Visits every live value once, in packed order.  The caller holds the
 * table lock for the whole walk and neither inserts nor erases (erase
 * with kslot_dense_retain()); __kslot_dense_handle_at() gives a handle.
 */
#define kslot_dense_for_each_locked(dense, pos, elem)			\
	for (struct kslot_dense_walk __kslot_dw =			\
		__kslot_dense_walk_start(dense);			\
	     __kslot_dw.idx < __kslot_dw.nr &&				\
	     /* (void): callers need not use pos. */			\
	     ((void)((pos) = __kslot_dw.idx),				\
	      (elem) = (void *)__kslot_dw.at, true);			\
	     __kslot_dense_walk_next(&__kslot_dw))

#endif /* _LINUX_KSLOT_DENSE_H */
