// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_dense: a kslot_slots table whose slots point into a packed array
 * of values, with a reverse map (position -> handle) read under the lock
 * only.  docs/core.rst, "kslot_dense's packed array", has the design.
 * Init with a tag and restore, for /dev/kslot, are in kslot_dev_restore.c.
 */
#include <linux/export.h>
#include <linux/kslot_dense.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kslot_dense_internal.h"

/* Above the largest kmalloc() slab: whole pages, no slab overhead. */
#define KSLOT_DENSE_CHUNK_BYTES	(4 * PAGE_SIZE)

/* Positions per chunk of values or handles, whichever are larger. */
static u32 kslot_dense_chunk_shift(size_t elem_size)
{
	size_t per = KSLOT_DENSE_CHUNK_BYTES /
		     max_t(size_t, elem_size, sizeof(u64));

	return per ? ilog2(per) : 0;
}

static u32 kslot_dense_max_chunks(const struct kslot_dense *dense)
{
	return DIV_ROUND_UP(dense->slots.max_entries, BIT(dense->shift));
}

/* Positions of the chunk from position @room on. */
static u32 kslot_dense_chunk_len(const struct kslot_dense *dense, u32 room)
{
	return min_t(u32, dense->slots.max_entries - room, BIT(dense->shift));
}

/* The values' directory; the reverse map's holds as many chunks. */
static struct kslot_dir *kslot_dense_dir(struct kslot_dense *dense)
{
	return rcu_dereference_protected(dense->vals,
					 lockdep_is_held(&dense->lock));
}

static struct kslot_dir *kslot_dense_rev_dir(struct kslot_dense *dense)
{
	return rcu_dereference_protected(dense->rev,
					 lockdep_is_held(&dense->lock));
}

/* A class per lock mode: lockdep holds a mode's readers to its writers. */
static struct lock_class_key kslot_dense_seq_keys[KSLOT_LOCK_MODES];
static const char * const kslot_dense_seq_names[KSLOT_LOCK_MODES] = {
	"kslot_dense_seq", "kslot_dense_seq_bh", "kslot_dense_seq_irq",
};

/*
 * Init, but for the slots, which __kslot_dense_init() and
 * __kslot_dense_init_tag() (kslot_dev_restore.c) initialise each its way.
 */
int kslot_dense_setup(struct kslot_dense *dense, size_t elem_size,
		      u32 max_entries, unsigned int flags,
		      struct lock_class_key *keys)
{
	/* The values and the reverse map at max_entries: INT_MAX at most. */
	if (!elem_size ||
	    size_mul(size_add(elem_size, sizeof(u64)), max_entries) > INT_MAX)
		return -EINVAL;
	if (flags & ~KSLOT_DENSE_FLAGS_ALL)
		return -EINVAL;
	memset(dense, 0, sizeof(*dense));
	spin_lock_init(&dense->lock);
	kslot_lock_set_class(&dense->lock, flags, keys);
	seqcount_spinlock_init(&dense->seq, &dense->lock);
	lockdep_set_class_and_name(&dense->seq.seqcount,
				   &kslot_dense_seq_keys[kslot_lock_mode(flags)],
				   kslot_dense_seq_names[kslot_lock_mode(flags)]);
	dense->elem_size = elem_size;
	dense->shift = kslot_dense_chunk_shift(elem_size);
	return 0;
}

/**
 * __kslot_dense_init() - Initialise a dense slot map.
 * @dense: The table to initialise.
 * @name: If not NULL, expose the counters in debugfs as kslot/dense-@name
 *	(a duplicate name is not exposed).
 * @elem_size: Size of one value in bytes; values are stored at multiples
 *	of it from an 8-byte aligned base.
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_DENSE_LOCK_BH or %KSLOT_DENSE_LOCK_IRQ (not both), and
 *	%KSLOT_DENSE_ACCOUNT.
 * @keys: The lockdep classes of the table lock, one per lock mode.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @elem_size is 0, @max_entries is out of range,
 * @max_entries * (@elem_size + 8) exceeds INT_MAX bytes, or @flags holds
 * unknown bits or both lock flags.
 */
int __kslot_dense_init(struct kslot_dense *dense, const char *name,
		       size_t elem_size, u32 max_entries, unsigned int flags,
		       struct lock_class_key *keys)
{
	int ret = kslot_dense_setup(dense, elem_size, max_entries, flags, keys);

	if (ret)
		return ret;
	return kslot_slots_init(&dense->slots, "dense", name, max_entries,
				flags);
}
EXPORT_SYMBOL_GPL(__kslot_dense_init);

/**
 * kslot_dense_destroy() - Tear down a dense slot map.
 * @dense: The table.
 * @fn: If not NULL, called for every live value, in packed order, with
 *	its handle and @data; the value's memory is freed after destroy.
 * @data: Passed to @fn.
 *
 * As kslot_slots_destroy(): the caller ensures no writer runs and no new
 * lookup starts, and frees or reuses @dense only a grace period later.
 *
 * Context: Process context for a named table, else any that @fn allows.
 */
void kslot_dense_destroy(struct kslot_dense *dense,
			 void (*fn)(void *elem, u64 handle, void *data),
			 void *data)
{
	struct kslot_dir *vals = rcu_dereference_protected(dense->vals, true);
	struct kslot_dir *rev = rcu_dereference_protected(dense->rev, true);
	struct kslot_free_acct *acct = dense->slots.free_acct;
	u32 pos;

	if (!dense->elem_size)
		return;
	for (pos = 0; fn && pos < dense->count; pos++)
		fn(kslot_dense_elem(dense, pos), *kslot_dense_rev(dense, pos),
		   data);
	kslot_slots_destroy(&dense->slots, NULL, NULL);
	RCU_INIT_POINTER(dense->vals, NULL);
	RCU_INIT_POINTER(dense->rev, NULL);
	/* After a grace period: readers may still copy from the chunks. */
	if (vals) {
		kslot_dir_free(vals, dense->vals_bytes, acct);
		kslot_dir_free(rev, dense->rev_bytes, acct);
	}
	WRITE_ONCE(dense->count, 0);
	dense->room = 0;
	dense->vals_bytes = 0;
	dense->rev_bytes = 0;
}
EXPORT_SYMBOL_GPL(kslot_dense_destroy);

/* A chunk of @size bytes, with the lock dropped. */
static void *kslot_dense_chunk_alloc(size_t size, gfp_t gfp)
{
	if (kslot_should_fail_alloc())
		return NULL;
	kslot_test_note_alloc(size);
	/* Without a blocking gfp, kmalloc() only; never huge pages. */
	return kslot_kvmalloc(size, gfp);
}

/*
 * Append a chunk of @n positions to each directory, with what @vg and @rg
 * allocated for them (kslot_dir_prepare()).
 */
static void kslot_dense_publish(struct kslot_dense *dense,
				struct kslot_dir_grow *vg,
				struct kslot_dir_grow *rg,
				void *vchunk, void *rchunk, u32 n)
{
	u32 room = dense->room + n;

	dense->vals_bytes += kslot_kvmalloc_bytes(vchunk,
						  (size_t)n * dense->elem_size);
	dense->rev_bytes += kslot_kvmalloc_bytes(rchunk, n * sizeof(u64));
	/* The reverse map is read under the lock only: any order serves it. */
	kslot_dir_append(&dense->slots, &dense->rev, kslot_dense_rev_dir(dense),
			 rg, rchunk, room);
	/*
	 * The chunk before the count (release) or the new directory
	 * (rcu_assign_pointer()), before the insert publishes a handle in it.
	 */
	kslot_dir_append(&dense->slots, &dense->vals, kslot_dense_dir(dense),
			 vg, vchunk, room);
	/* Read locklessly by kslot_dense_insert_n()'s hint. */
	WRITE_ONCE(dense->room, room);
}

/*
 * Add a chunk of values and one of the reverse map (and what each
 * directory needs for it: one twice as large, or a far leaf), allocated
 * with the lock dropped, as kslot_slots_grow_one().
 * kslot_dense_lock() holds RCU with the lock.
 */
static int kslot_dense_grow_one(struct kslot_dense *dense, gfp_t gfp,
				unsigned long *irqflags)
	__must_hold(&dense->lock) __must_hold(RCU)
{
	struct kslot_dir_grow vg, rg;
	u32 room = dense->room, n;
	void *vchunk, *rchunk = NULL;
	bool grown, ok;

	if (room >= dense->slots.max_entries)
		return -ENOSPC;
	n = kslot_dense_chunk_len(dense, room);
	/* The two directories have the same shape. */
	kslot_dir_prepare(kslot_dense_dir(dense), kslot_dense_max_chunks(dense),
			  &vg);
	rg = vg;
	gfp = kslot_gfp(gfp, dense->slots.flags & KSLOT_DENSE_ACCOUNT);
	kslot_dense_unlock(dense, *irqflags);
	/* A long growth (reserve) lets others run between chunks. */
	if (gfpflags_allow_blocking(gfp))
		cond_resched();
	vchunk = kslot_dense_chunk_alloc((size_t)n * dense->elem_size, gfp);
	if (vchunk)
		rchunk = kslot_dense_chunk_alloc(n * sizeof(u64), gfp);
	ok = rchunk && kslot_dir_grow_alloc(&vg, false, gfp) &&
	     kslot_dir_grow_alloc(&rg, false, gfp);
	kslot_slots_test_point(&dense->slots, KSLOT_SLOTS_TP_DENSE_GROW);
	*irqflags = kslot_dense_lock(dense);
	grown = dense->room != room;
	if (!ok || grown) {
		/* Freed with the lock dropped: vfree() may sleep. */
		kslot_dense_unlock(dense, *irqflags);
		kvfree(vchunk);
		kvfree(rchunk);
		kslot_dir_grow_discard(&vg);
		kslot_dir_grow_discard(&rg);
		*irqflags = kslot_dense_lock(dense);
		return grown ? 0 : -ENOMEM;
	}
	kslot_dense_publish(dense, &vg, &rg, vchunk, rchunk, n);
	return 0;
}

/* Room for @n more values in the packed array; drops the lock to grow. */
int kslot_dense_make_room(struct kslot_dense *dense, u32 n, gfp_t gfp,
			  unsigned long *irqflags)
	__must_hold(&dense->lock)
{
	while (dense->room - dense->count < n) {
		int ret;

		if (n > dense->slots.max_entries - dense->count)
			return -ENOSPC;
		ret = kslot_dense_grow_one(dense, gfp, irqflags);
		if (ret)
			return ret;
	}
	return 0;
}

/* Swap-and-pop the value of @handle at @pos.  Lock held, seq open. */
static void __kslot_dense_erase(struct kslot_dense *dense, u64 handle,
				u32 pos, void *buf)
{
	u32 last = dense->count - 1;
	u64 moved;

	if (buf)
		memcpy(buf, kslot_dense_elem(dense, pos), dense->elem_size);
	kslot_slots_remove(&dense->slots, handle);
	if (pos != last) {
		memcpy(kslot_dense_elem(dense, pos),
		       kslot_dense_elem(dense, last), dense->elem_size);
		moved = *kslot_dense_rev(dense, last);
		*kslot_dense_rev(dense, pos) = moved;
		WARN_ON_ONCE(kslot_slots_replace(&dense->slots, moved,
						 kslot_dense_pos_obj(pos), NULL));
	}
	WRITE_ONCE(dense->count, last);
}

/* Give back slots taken by a failed insert, newest first. */
static void kslot_dense_drop_placeholders(struct kslot_dense *dense,
					  const u64 *handles, u32 n)
{
	while (n--)
		kslot_slots_remove(&dense->slots, handles[n]);
}

/**
 * kslot_dense_reserve() - Make room for more values ahead of time.
 * @dense: The table.
 * @n: Number of values that must fit without allocating.
 * @gfp: Allocation flags.
 *
 * The room is the table's: any caller's inserts may use it.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the lock flags allow.  Takes and releases the table lock.
 * Return: 0, -EINVAL if @n is 0 or the table is being restored, -ENOSPC
 * if @n more values would exceed max_entries (counting retired slots), or
 * -ENOMEM.
 */
int kslot_dense_reserve(struct kslot_dense *dense, u32 n, gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	if (!n)
		return -EINVAL;
	ret = kslot_slots_reserve(&dense->slots, n, gfp);
	if (ret)
		return ret;
	irqflags = kslot_dense_lock(dense);
	ret = kslot_dense_make_room(dense, n, gfp, &irqflags);
	kslot_dense_unlock(dense, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_dense_reserve);

/**
 * kslot_dense_insert() - Store a value and issue a handle for it.
 * @dense: The table.
 * @handle: Set to the new handle on success; untouched on failure.
 * @elem: elem_size bytes to copy in, or NULL for a zeroed value; not
 *	inside the table.
 * @gfp: Allocation flags, used if the table must grow.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the lock flags allow.  Takes and releases the table lock.
 * Return: 0, -ENOSPC if the table holds max_entries slots (live or
 * retired), -EINVAL if the table is being restored, or -ENOMEM if growing
 * failed; as kslot_dense_insert_n(), nothing is stored on error.
 */
int kslot_dense_insert(struct kslot_dense *dense, u64 *handle,
		       const void *elem, gfp_t gfp)
{
	return kslot_dense_insert_n(dense, handle, elem, 1, gfp);
}
EXPORT_SYMBOL_GPL(kslot_dense_insert);

/**
 * kslot_dense_insert_n() - Store @n values at once.
 * @dense: The table.
 * @handles: Array of @n, set to the new handles in order on success.
 * @elems: @n values of elem_size bytes, back to back, or NULL for @n
 *	zeroed values; not inside the table.
 * @n: Number of values.
 * @gfp: Allocation flags, used if the table must grow.
 *
 * All or nothing: no value is stored on error.  Chunks added stay as
 * room, and slots taken before a later growth failed (other inserts used
 * the room) are given back, their generations moved on.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the lock flags allow.  Takes and releases the table lock.
 * Return: 0, -EINVAL if @n is 0 or the table is being restored, -ENOSPC
 * if @n more values would exceed max_entries (counting retired slots), or
 * -ENOMEM.
 */
int kslot_dense_insert_n(struct kslot_dense *dense, u64 *handles,
			 const void *elems, u32 n, gfp_t gfp)
{
	unsigned long irqflags;
	int ret = 0;
	u32 i;

	if (!n)
		return -EINVAL;
	/* Grow first, on a lockless hint: a failure then changes nothing. */
	if (READ_ONCE(dense->room) - READ_ONCE(dense->count) < n) {
		irqflags = kslot_dense_lock(dense);
		ret = kslot_dense_make_room(dense, n, gfp, &irqflags);
		kslot_dense_unlock(dense, irqflags);
		if (ret)
			return ret;
	}
	/* The slots, placeholders (NULL): lookups skip them until published. */
	if (n > 1)
		ret = kslot_slots_reserve(&dense->slots, n, gfp);
	for (i = 0; !ret && i < n; i++) {
		ret = kslot_slots_alloc(&dense->slots, &handles[i], NULL, gfp);
		if (ret)
			kslot_dense_drop_placeholders(dense, handles, i);
	}
	if (ret)
		return ret;
	kslot_slots_test_point(&dense->slots, KSLOT_SLOTS_TP_DENSE_INSERT);
	irqflags = kslot_dense_lock(dense);
	ret = kslot_dense_make_room(dense, n, gfp, &irqflags);
	if (ret)
		kslot_dense_drop_placeholders(dense, handles, n);
	for (i = 0; !ret && i < n; i++) {
		u32 pos = dense->count;
		void *dst = kslot_dense_elem(dense, pos);

		if (elems)
			memcpy(dst, elems + (size_t)i * dense->elem_size,
			       dense->elem_size);
		else
			memset(dst, 0, dense->elem_size);
		*kslot_dense_rev(dense, pos) = handles[i];
		WRITE_ONCE(dense->count, pos + 1);
		/*
		 * The value before its position (release).  Erase skips
		 * unpublished slots, so the slot is still ours.
		 */
		WARN_ON_ONCE(kslot_slots_replace(&dense->slots, handles[i],
						 kslot_dense_pos_obj(pos),
						 NULL));
	}
	kslot_dense_unlock(dense, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_dense_insert_n);

/*
 * A lookup waits for a writer inside its write section: it may run only where
 * the lock flags shut writers out, never in NMI.  On PREEMPT_RT it may take
 * the lock, a sleeping one there: not in true hardirq context.
 */
static __always_inline bool
kslot_dense_may_read(const struct kslot_dense *dense)
{
	unsigned int flags = dense->slots.flags;

	/* On RT a reader may take the (sleeping) lock: not atomic tasks. */
	if (likely(in_task()))
		return !IS_ENABLED(CONFIG_PREEMPT_RT) || preemptible();
	if (in_nmi())
		return false;
	if (in_hardirq())
		return !IS_ENABLED(CONFIG_PREEMPT_RT) &&
		       (flags & KSLOT_DENSE_LOCK_IRQ);
	/* Serving a softirq. */
	return flags & (KSLOT_DENSE_LOCK_BH | KSLOT_DENSE_LOCK_IRQ);
}

/* kslot_dense_lookup() under the caller's RCU read lock. */
static __always_inline bool kslot_dense_copy_out(struct kslot_dense *dense,
						 u64 handle, void *buf)
{
	const struct kslot_dir *vals;
	unsigned int seq;
	void *obj;

	do {
		seq = read_seqcount_begin(&dense->seq);
		obj = __kslot_slots_lookup(&dense->slots, handle);
		if (!obj)
			break;
		kslot_slots_test_point(&dense->slots,
				       KSLOT_SLOTS_TP_DENSE_LOOKUP);
		/* Slot before directory: pairs with kslot_dense_publish(). */
		smp_rmb();
		vals = rcu_dereference(dense->vals);
		/* Destroyed since the slot lookup: nothing is live. */
		if (unlikely(!vals)) {
			obj = NULL;
			break;
		}
		/* Clamped in the directory, as a lookup's index. */
		kslot_copy_value(buf, kslot_dense_dir_at(vals, dense->shift,
							 dense->elem_size,
							 kslot_dense_obj_pos(obj)),
				 dense->elem_size);
	} while (read_seqcount_retry(&dense->seq, seq));
	return obj;
}

/**
 * kslot_dense_lookup() - Copy out the value a handle names, without a lock.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @buf: elem_size bytes to copy the value into.
 *
 * @buf gets the value of @handle at one instant of the call, never a
 * mix.  A lookup waits for a writer in its write section, so it is refused
 * where it could interrupt one on its own CPU.
 *
 * Context: Process context; also softirq context with
 * %KSLOT_DENSE_LOCK_BH, and softirq or hardirq context with
 * %KSLOT_DENSE_LOCK_IRQ (on PREEMPT_RT, threaded handlers only, and a
 * task only if it is preemptible).  Never NMI context.  Takes and
 * releases the RCU read lock.
 * Return: 0, -ENOENT if @handle is not live in @dense (@buf may have
 * been written), or -EDEADLK in a context the table's lock flags do not
 * allow, or on PREEMPT_RT in a task with preemption or interrupts off
 * (@buf untouched).
 */
int kslot_dense_lookup(struct kslot_dense *dense, u64 handle, void *buf)
{
	bool live;

	if (unlikely(!kslot_dense_may_read(dense)))
		return -EDEADLK;
	rcu_read_lock();
	live = kslot_dense_copy_out(dense, handle, buf);
	rcu_read_unlock();
	return live ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_dense_lookup);

/**
 * kslot_dense_lookup_many() - Copy out the values of several handles.
 * @dense: The table.
 * @handles: @n handles, valid or not.
 * @n: How many.
 * @buf: @n * elem_size bytes: the value of @handles[i] goes to
 *	@buf + i * elem_size.
 *
 * kslot_dense_lookup() of each handle, up to the first not live.
 *
 * Context: As kslot_dense_lookup(); one RCU read-side critical section, so
 * the caller bounds @n.
 * Return: The number of values copied: @n, or the index of the first
 * handle not live (its part of @buf may have been written); 0 in a
 * context kslot_dense_lookup() refuses.
 */
u32 kslot_dense_lookup_many(struct kslot_dense *dense, const u64 *handles,
			    u32 n, void *buf)
{
	size_t size = dense->elem_size;
	u32 i;

	if (unlikely(!kslot_dense_may_read(dense)))
		return 0;
	rcu_read_lock();
	for (i = 0; i < n; i++)
		if (!kslot_dense_copy_out(dense, handles[i], buf + i * size))
			break;
	rcu_read_unlock();
	return i;
}
EXPORT_SYMBOL_GPL(kslot_dense_lookup_many);

/**
 * kslot_dense_update() - Overwrite the value a handle names.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @elem: elem_size bytes to copy in.
 *
 * Context: Any context the lock flags allow; takes and releases the lock.
 * Return: 0, or -ENOENT if @handle is not live in @dense.
 */
int kslot_dense_update(struct kslot_dense *dense, u64 handle,
		       const void *elem)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	void *obj = __kslot_slots_lookup(&dense->slots, handle);

	if (obj) {
		u32 pos = kslot_dense_obj_pos(obj);

		write_seqcount_begin(&dense->seq);
		memcpy(__kslot_dense_at(dense, pos), elem, dense->elem_size);
		write_seqcount_end(&dense->seq);
	}
	kslot_dense_unlock(dense, irqflags);
	return obj ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_dense_update);

/**
 * kslot_dense_contains() - Is a handle live?
 * @dense: The table.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: true if @handle names a published value of @dense.
 */
bool kslot_dense_contains(struct kslot_dense *dense, u64 handle)
{
	return kslot_slots_lookup(&dense->slots, handle);
}
EXPORT_SYMBOL_GPL(kslot_dense_contains);

/* Erase the value of @handle if it is published.  Lock held, seq open. */
static bool __kslot_dense_erase_handle(struct kslot_dense *dense, u64 handle,
				       void *buf)
{
	void *obj = __kslot_slots_lookup(&dense->slots, handle);

	if (!obj)
		return false;
	__kslot_dense_erase(dense, handle, kslot_dense_obj_pos(obj), buf);
	return true;
}

/**
 * kslot_dense_erase() - Remove a value and invalidate its handle.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @buf: If not NULL, receives the removed value (elem_size bytes).
 *
 * Swap-and-pop: the last value of the packed array moves into the hole.
 *
 * Context: Any context the lock flags allow; takes and releases the lock.
 * Return: 0, or -ENOENT if @handle is not live in @dense.
 */
int kslot_dense_erase(struct kslot_dense *dense, u64 handle, void *buf)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	bool erased;

	write_seqcount_begin(&dense->seq);
	erased = __kslot_dense_erase_handle(dense, handle, buf);
	write_seqcount_end(&dense->seq);
	kslot_dense_unlock(dense, irqflags);
	return erased ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_dense_erase);

/*
 * A bulk write, @batch at a time in a write section, so that readers wait
 * for one batch only.  No cond_resched(): the callers may be atomic.
 */
static void kslot_dense_write_batches(struct kslot_dense *dense,
				      bool (*batch)(struct kslot_dense *dense,
						    void *arg),
				      void *arg)
{
	unsigned long irqflags;
	bool more;

	do {
		irqflags = kslot_dense_lock(dense);
		write_seqcount_begin(&dense->seq);
		more = batch(dense, arg);
		write_seqcount_end(&dense->seq);
		kslot_dense_unlock(dense, irqflags);
		if (more)
			kslot_slots_test_point(&dense->slots,
					       KSLOT_SLOTS_TP_WALK);
	} while (more);
}

struct kslot_dense_erase_n_arg {
	const u64 *handles;
	u32 n;
	u32 done;
	int erased;
};

static bool kslot_dense_erase_n_batch(struct kslot_dense *dense, void *p)
{
	struct kslot_dense_erase_n_arg *a = p;
	u32 end = a->done + min(a->n - a->done, KSLOT_SLOTS_BULK);

	for (; a->done < end; a->done++)
		a->erased += __kslot_dense_erase_handle(dense,
							a->handles[a->done],
							NULL);
	return a->done < a->n;
}

/**
 * kslot_dense_erase_n() - Remove the values of @n handles at once.
 * @dense: The table.
 * @handles: Array of @n handles; stale or repeated ones are skipped.
 * @n: Number of handles.
 *
 * kslot_dense_erase() of each handle, %KSLOT_SLOTS_BULK per hold of the
 * lock.
 *
 * Context: Any context the lock flags allow; takes the lock once per batch.
 * Return: The number of values erased, or -EINVAL if @n is 0.
 */
int kslot_dense_erase_n(struct kslot_dense *dense, const u64 *handles, u32 n)
{
	struct kslot_dense_erase_n_arg a = { .handles = handles, .n = n };

	if (!n)
		return -EINVAL;
	kslot_dense_write_batches(dense, kslot_dense_erase_n_batch, &a);
	return a.erased;
}
EXPORT_SYMBOL_GPL(kslot_dense_erase_n);

struct kslot_dense_retain_arg {
	bool (*keep)(u64 handle, void *elem, void *arg);
	void *arg;
	/* Positions below it are still to be offered. */
	u32 pos;
	u32 erased;
};

static bool kslot_dense_retain_batch(struct kslot_dense *dense, void *p)
{
	struct kslot_dense_retain_arg *a = p;
	/* Erases meanwhile may have left fewer values than the walk had. */
	u32 pos = min(a->pos, dense->count);
	u32 stop = pos - min(pos, KSLOT_SLOTS_WALK);

	while (pos > stop) {
		u64 handle = *kslot_dense_rev(dense, --pos);

		if (a->keep(handle, kslot_dense_elem(dense, pos), a->arg))
			continue;
		/* The last value moves to @pos: offered, or inserted since. */
		__kslot_dense_erase(dense, handle, pos, NULL);
		a->erased++;
	}
	a->pos = pos;
	return pos;
}

/**
 * kslot_dense_retain() - Keep only the values a predicate accepts.
 * @dense: The table.
 * @keep: Called with each live value's handle, the value and @arg; the
 *	value is erased if it returns false.  It may modify the value, must
 *	not sleep, and must not call into @dense.
 * @arg: Passed to @keep.
 *
 * %KSLOT_SLOTS_WALK values per hold of the lock.  Every value live for the
 * whole call is offered at least once; exactly once with no other writer.
 *
 * Context: Any context the lock flags allow; takes the lock once per batch.
 * Return: The number of values erased.
 */
u32 kslot_dense_retain(struct kslot_dense *dense,
		       bool (*keep)(u64 handle, void *elem, void *arg),
		       void *arg)
{
	struct kslot_dense_retain_arg a = {
		.keep = keep, .arg = arg, .pos = U32_MAX,
	};

	kslot_dense_write_batches(dense, kslot_dense_retain_batch, &a);
	return a.erased;
}
EXPORT_SYMBOL_GPL(kslot_dense_retain);

/* Pop the last %KSLOT_SLOTS_WALK values: nothing moves. */
static bool kslot_dense_clear_batch(struct kslot_dense *dense, void *unused)
{
	u32 pos = dense->count, stop = pos - min(pos, KSLOT_SLOTS_WALK);

	while (pos > stop)
		kslot_slots_remove(&dense->slots, *kslot_dense_rev(dense, --pos));
	WRITE_ONCE(dense->count, pos);
	return pos;
}

/**
 * kslot_dense_clear() - Erase every value.
 * @dense: The table.
 *
 * %KSLOT_SLOTS_WALK values per hold of the lock, until none is left; the
 * arrays are kept for reuse.
 *
 * Context: Any context the lock flags allow; takes the lock once per batch.
 */
void kslot_dense_clear(struct kslot_dense *dense)
{
	kslot_dense_write_batches(dense, kslot_dense_clear_batch, NULL);
}
EXPORT_SYMBOL_GPL(kslot_dense_clear);

/**
 * kslot_dense_extract_range() - Copy out live values of a slot range.
 * @dense: The table.
 * @cursor: Slot index to resume from (0 to start); advanced past the last
 *	value copied, or to the first slot not scanned.
 * @end: Slot index to stop before: it bounds the work of one call.
 * @handles: If not NULL, array of @max receiving the handles found.
 * @buf: If not NULL, @max * elem_size bytes receiving the values found.
 * @max: Most values to copy.
 *
 * If fewer than @max values are copied, *@cursor is @end, or the capacity
 * if the table ends before @end.
 *
 * Context: Any context the lock flags allow; takes and releases the lock.
 * Return: The number of values copied, or -EINVAL if @max is 0.
 */
int kslot_dense_extract_range(struct kslot_dense *dense, u32 *cursor, u32 end,
			      u64 *handles, void *buf, u32 max)
{
	unsigned long irqflags;
	u32 i = *cursor;
	int found = 0;
	void *obj;
	u64 h;

	if (!max)
		return -EINVAL;
	irqflags = kslot_dense_lock(dense);
	while (found < max &&
	       (obj = kslot_slots_find_range(&dense->slots, &i, end, &h))) {
		if (handles)
			handles[found] = h;
		if (buf)
			memcpy(buf + (size_t)found * dense->elem_size,
			       kslot_dense_elem(dense, kslot_dense_obj_pos(obj)),
			       dense->elem_size);
		found++;
		*cursor = ++i;
	}
	*cursor = i;
	kslot_dense_unlock(dense, irqflags);
	return found;
}
EXPORT_SYMBOL_GPL(kslot_dense_extract_range);

/**
 * kslot_dense_extract() - Copy out live values from a resumable cursor.
 * @dense: The table.
 * @cursor: Slot index to resume from (0 to start); advanced past the last
 *	value copied.
 * @handles: If not NULL, array of @max receiving the handles found.
 * @buf: If not NULL, @max * elem_size bytes receiving the values found.
 * @max: Most values to copy.
 *
 * Walks the slots, whose indices do not move: every value live for the
 * whole walk is returned exactly once.  One call may scan every slot:
 * bound it with kslot_dense_extract_range().
 *
 * Context: Any context the lock flags allow; takes and releases the lock.
 * Return: The number of values copied (0 once the walk is over), or
 * -EINVAL if @max is 0.
 */
int kslot_dense_extract(struct kslot_dense *dense, u32 *cursor, u64 *handles,
			void *buf, u32 max)
{
	return kslot_dense_extract_range(dense, cursor, U32_MAX, handles, buf,
					 max);
}
EXPORT_SYMBOL_GPL(kslot_dense_extract);

/**
 * kslot_dense_stats() - Read a table's counters.
 * @dense: The table.
 * @st: Filled with a consistent snapshot.
 *
 * Context: Any context the lock flags allow; takes and releases the lock.
 */
void kslot_dense_stats(struct kslot_dense *dense,
		       struct kslot_dense_stats *st)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	struct kslot_dir *vals = kslot_dense_dir(dense);
	struct kslot_dir *rev = kslot_dense_rev_dir(dense);
	struct kslot_slots_stats ss;

	kslot_slots_stats(&dense->slots, &ss);
	st->count = dense->count;
	st->capacity = ss.capacity;
	st->max_entries = ss.max_entries;
	st->retired = ss.retired;
	st->elem_size = dense->elem_size;
	st->room = dense->room;
	st->bytes = ss.bytes;
	/* The two directories and their chunks. */
	if (vals)
		st->bytes += kslot_dir_bytes(vals) + kslot_dir_bytes(rev) +
			     dense->vals_bytes + dense->rev_bytes;
	/* What one more insert may allocate: the growth of a full array. */
	st->grow_bytes = ss.count + ss.retired >= ss.capacity ?
			 ss.grow_bytes : 0;
	st->vals_grow_bytes = 0;
	if (dense->count >= dense->room && dense->room < ss.max_entries) {
		u32 n = kslot_dense_chunk_len(dense, dense->room);
		struct kslot_dir_grow g;

		kslot_dir_prepare(vals, kslot_dense_max_chunks(dense), &g);
		st->vals_grow_bytes =
			kslot_kvmalloc_size((size_t)n * dense->elem_size) +
			kslot_kvmalloc_size(n * sizeof(u64)) +
			2 * kslot_dir_grow_bytes(&g);
		st->grow_bytes += st->vals_grow_bytes;
	}
	st->rejected = ss.rejected;
	kslot_dense_unlock(dense, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_dense_stats);
