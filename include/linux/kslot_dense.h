/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_dense: a generational slot map that stores fixed-size values
 * inline and keeps them packed, for drivers that walk every live value
 * each tick.
 *
 * A kslot_slots table (kslot_slots.h) plus two arrays:
 *
 * - slots:  the core's slots.  They own the handles, the generations with
 *           retire-on-wrap, the free list, the tag, the one handle check,
 *           the counters and debugfs.  A live slot's object field holds
 *           the value's position in the packed array (plus one, so that it
 *           is never NULL); a slot allocated but not yet published by
 *           kslot_dense_insert() holds NULL, and lookups skip it.
 * - data:   the values, packed: positions 0 .. count - 1 are live, in no
 *           particular order.  Each value is elem_size bytes.
 * - rev:    the reverse map, position -> handle, so that erase can repoint
 *           the slot of the value it moves, and a walk of the packed array
 *           knows each value's handle.
 *
 * Erase is swap-and-pop: the last value moves into the hole and its slot
 * is pointed at its new position, so the data stays packed in O(1).
 *
 * Rules:
 *
 * +------------------------------+------------------------+---------------+
 * | operation                    | lock                   | may sleep     |
 * +------------------------------+------------------------+---------------+
 * | kslot_dense_get(),           | none (takes RCU); not  | no            |
 * | kslot_dense_get_many()       | where it could         |               |
 * |                              | interrupt a writer     |               |
 * |                              | (below)                |               |
 * | kslot_dense_contains()       | none (takes RCU)       | no            |
 * | kslot_dense_insert(),        | table lock, dropped to | only if gfp   |
 * | kslot_dense_insert_n(),      | allocate               | allows        |
 * | kslot_dense_reserve()        |                        |               |
 * | kslot_dense_update(),        | table lock             | no            |
 * | kslot_dense_erase(),         |                        |               |
 * | kslot_dense_find(),          |                        |               |
 * | kslot_dense_find_range(),    |                        |               |
 * | kslot_dense_get_stats()      |                        |               |
 * | kslot_dense_erase_n(),       | table lock, dropped    | no            |
 * | kslot_dense_retain(),        | every %KSLOT_SLOTS_WALK|               |
 * | kslot_dense_clear()          | values (erase_n: every |               |
 * |                              | %KSLOT_SLOTS_BULK)     |               |
 * | __kslot_dense_lookup(),      | caller holds the lock  | no            |
 * | __kslot_dense_at(),          | (kslot_dense_lock())   |               |
 * | __kslot_dense_handle_at(),   |                        |               |
 * | kslot_dense_for_each_locked()|                        |               |
 * | kslot_dense_restore_slot(),  | table lock, dropped to | only if gfp   |
 * | kslot_dense_restore_retired()| allocate               | allows        |
 * | kslot_dense_restore_done()   | the core's lock,       | yes           |
 * |                              | dropped every          |               |
 * |                              | %KSLOT_SLOTS_WALK      |               |
 * | kslot_dense_count()          | none (a snapshot)      | no            |
 * | kslot_dense_destroy()        | caller: no writers     | if named      |
 * +------------------------------+------------------------+---------------+
 *
 * - Lookups take no lock.  kslot_dense_get() copies the value out under
 *   RCU and a sequence count the writers bump around every change that
 *   moves or overwrites a value (erase, update, and each batch of
 *   erase_n, retain and clear): a copy that raced such a change is
 *   retried.  So every successful get returns exactly the value stored
 *   under the handle at one instant of the call, never a value
 *   swap-and-pop moved into its place, never a torn one.  Inserts only
 *   append past every published position and publish the handle last, so
 *   they do not disturb readers.  The sequence count is a
 *   seqcount_spinlock_t on the table lock: on PREEMPT_RT a reader that
 *   finds a writer inside takes the lock to wait for it instead of
 *   spinning.
 * - Writers serialise on the table lock (then on the core's own lock for
 *   the slot changes), taken as the lock flags say (kslot_lock.h).  A get
 *   waits for a writer inside its write section, so it must not run where
 *   it could interrupt one on its own CPU: it would wait forever.  So
 *   kslot_dense_get() and kslot_dense_get_many() run only in the contexts
 *   the writers shut out:
 *
 *   - without a lock flag: process context;
 *   - with %KSLOT_DENSE_LOCK_BH: process or softirq context;
 *   - with %KSLOT_DENSE_LOCK_IRQ: process, softirq or hardirq context.
 *
 *   Elsewhere (NMI context included) a get returns -EDEADLK and get_many
 *   copies nothing, whether or not a writer is there, so a misplaced call
 *   fails every time, not once in a while.  kslot_dense_contains() reads
 *   the slot only and runs in any context.
 * - Bulk writers (erase_n, retain, clear) hold the lock, and the write
 *   section gets wait on, for a batch at a time, as the core's walks do:
 *   between batches the table is as that many erases one by one would
 *   leave it, and other writers and gets run.  Each function's comment
 *   says what it does with what they change meanwhile.
 * - Pointers into the packed data are NOT stable: any erase moves the
 *   last value into the erased one's place.  A pointer from
 *   __kslot_dense_lookup() or __kslot_dense_at() is valid only until the
 *   caller drops the lock, and is for reading: change a value with
 *   kslot_dense_update() or in kslot_dense_retain()'s callback, which keep
 *   lock-free readers in step.  To keep a value, copy it out with
 *   kslot_dense_get() and refer to it by handle.
 * - Growth: the packed array grows the way the core grows its slots
 *   (kslot_slots.h, "Storage"): in chunks that never move, reached through
 *   a directory (struct kslot_dir, module/kslot_dir.c).  A chunk holds a
 *   power of two of positions, four pages of values (or one value, if
 *   larger), fewer if the reverse map's 8 bytes per position are more, or
 *   if max_entries ends the table sooner; position p is in chunk
 *   p >> shift.  The values and the reverse map are two directories of
 *   such chunks, grown together, so a chunk of values is whole pages
 *   with no slab around it, and a reader's chunk holds values only.  An
 *   insert that finds the array full allocates a chunk of each (and what
 *   the directories need for them: twice as large when full, or a far
 *   leaf) with the lock dropped, then, under the lock, appends them,
 *   unless another insert grew the array meanwhile (then it frees them
 *   and uses that one's room).  No value is ever copied by a growth:
 *   it costs the same at every size, and no writer mirrors or waits for a
 *   grace period.  Callers that must not allocate at insert time call
 *   kslot_dense_reserve() ahead.  The table never shrinks before
 *   kslot_dense_destroy().
 * - Memory: per entry, the core's 16-byte slot, the value and its 8-byte
 *   handle in the reverse map; per chunk, a pointer in each directory.
 * - Callbacks (kslot_dense_retain()) run under the lock and must not sleep
 *   or call back into the same table; lock-free readers wait while they
 *   run (for a batch of them).
 * - Iterating without holding the lock for the whole walk is done with the
 *   slot-index cursor of kslot_dense_find(), which is stable across
 *   inserts and erases; packed positions are not.
 * - A store of fixed-size records (say, behind an ioctl) maps one call to
 *   one function: kslot_dense_insert(), kslot_dense_get() into a bounce
 *   buffer (copy it to user space after the call), kslot_dense_update(),
 *   kslot_dense_erase(), kslot_dense_count(), and kslot_dense_find() for a
 *   listing resumed from a u32 cursor.
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
	/*
	 * The packed values, for lock-free readers (RCU), and the reverse
	 * map (position -> handle, lock held): directories of chunks of
	 * 1 << @shift positions, NULL before the first growth and after
	 * destroy.
	 */
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
 * @bytes: Memory the table's slots and packed array take, at the
 *	allocator's size: the core's (kslot_slots_stats.bytes), the chunks
 *	of values and of the reverse map and their two directories.  A
 *	replaced directory is not counted (it is freed after a grace
 *	period).
 * @rejected: Nonzero handles that named no live entry (gets, updates,
 *	erases).
 * @grow_bytes: Memory one more insert may allocate: the next growth of
 *	the slots if none is free, plus that of the packed array if it is
 *	full (an upper bound); 0 if neither must (or can) grow.
 * @vals_grow_bytes: The packed array's part of @grow_bytes: memory the
 *	next value stored allocates for it (kslot_dense_restore_slot() too)
 *	if it is full: a chunk of values, one of the reverse map, and what
 *	the two directories need for them (each twice as large if the
 *	current ones are full, or a far leaf); 0 otherwise.
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
 * __kslot_dense_init() with lockdep classes of this call site, one per
 * lock mode (kslot_lock_classes()).
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
int kslot_dense_insert(struct kslot_dense *dense, const void *elem,
		       u64 *handle, gfp_t gfp);
int kslot_dense_insert_n(struct kslot_dense *dense, const void *elems, u32 n,
			 u64 *handles, gfp_t gfp);
int kslot_dense_get(struct kslot_dense *dense, u64 handle, void *buf);
u32 kslot_dense_get_many(struct kslot_dense *dense, const u64 *handles,
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
int kslot_dense_find(struct kslot_dense *dense, u32 *cursor, u64 *handles,
		     void *buf, u32 max);
int kslot_dense_find_range(struct kslot_dense *dense, u32 *cursor, u32 end,
			   u64 *handles, void *buf, u32 max);
void kslot_dense_get_stats(struct kslot_dense *dense,
			   struct kslot_dense_stats *st);
int __kslot_dense_init_tag(struct kslot_dense *dense, const char *name,
			   size_t elem_size, u32 max_entries,
			   unsigned int flags, u32 tag,
			   struct lock_class_key *keys);

/**
 * kslot_dense_init_tag() - Initialise a tagged dense map, lock in the caller's class.
 * @dense: The table to initialise.
 * @name: As __kslot_dense_init_tag().
 * @elem_size: As __kslot_dense_init_tag().
 * @max_entries: As __kslot_dense_init_tag().
 * @flags: As __kslot_dense_init_tag().
 * @tag: As __kslot_dense_init_tag().
 *
 * Context: Process context.
 * Return: As __kslot_dense_init_tag().
 */
#define kslot_dense_init_tag(dense, name, elem_size, max_entries, flags, tag) \
	__kslot_dense_init_tag(dense, name, elem_size, max_entries, flags,   \
			       tag, kslot_lock_classes())
int kslot_dense_restore_slot(struct kslot_dense *dense, u32 index, u64 gen,
			     const void *elem, gfp_t gfp);
int kslot_dense_restore_retired(struct kslot_dense *dense, u32 index,
				gfp_t gfp);
void kslot_dense_restore_done(struct kslot_dense *dense);

/**
 * kslot_dense_lock() - Take a table's lock.
 * @dense: The table.
 *
 * Takes the lock the way the table's flags ask (plain, _bh or _irqsave),
 * inside an RCU read-side critical section (the slots are RCU-managed).
 * While it is held the caller may use __kslot_dense_lookup(),
 * __kslot_dense_at(), __kslot_dense_handle_at() and
 * kslot_dense_for_each_locked(), and must not call any other
 * kslot_dense function on the same table.
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
 * Context: Any context.  Lockless; the value may be stale by the time it
 * is used unless the caller holds the table lock.
 * Return: Live values.
 */
static inline u32 kslot_dense_count(const struct kslot_dense *dense)
{
	return READ_ONCE(dense->count);
}

/*
 * Position @pos of a directory of the table (the values or the reverse
 * map), whose chunks hold 1 << @shift positions of @size bytes each.  No
 * lock asserted: the caller holds the table lock, or is a reader under
 * RCU with @pos below the directory's count (kslot_dir_total()).
 */
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
 * Context: Caller holds the table lock; the pointer is valid until it
 * drops it, for reading only (see the rules above).
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

/*
 * A published slot's object field: the value's packed position plus one,
 * so that it is never NULL (NULL marks a slot not yet published).
 */
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
 * The core's one handle check (__kslot_slots_lookup()): the index is
 * clamped with array_index_nospec() and the slot compared with the whole
 * handle, so a forged handle cannot steer a speculative read outside the
 * table.
 *
 * Context: Caller holds the table lock (kslot_dense_lock()); the pointer
 * is valid until it drops it, for reading only (see the rules above:
 * values move).
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
 *
 * Every field is private.
 */
struct kslot_dense_walk {
	/* private: */
	/*
	 * The directory of the values, the next value, the bytes between
	 * values, its position, the end of the walk, and the chunks'
	 * positions as a shift and a mask (named apart from the macro's
	 * parameters).
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
 * The walk keeps the directory, the value size and the count in locals,
 * so that the compiler need not reload them around the caller's loop body
 * (which may store through any pointer), and it ends on the count, not on
 * a NULL element: within a chunk the loop is the packed array's own, a
 * directory load at each chunk's start.
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
 * The next value: the next in the chunk, or the first of the next chunk.
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
 * Visits every live value exactly once, in packed order: a walk of the
 * packed array's chunks themselves.  The caller holds the table lock for the whole
 * walk and must not insert or erase during it (use kslot_dense_retain()
 * to erase while walking); __kslot_dense_handle_at(@dense, @pos) gives each
 * value's handle.
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
