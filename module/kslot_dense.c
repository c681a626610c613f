// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_dense: dense generational slot map, a kslot_slots table whose slots
 * point into a packed value array.  See include/linux/kslot_dense.h for the
 * rules.  The restore of a checkpointed table is in kslot_dense_restore.c.
 */
#include <linux/export.h>
#include <linux/kslot_dense.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kslot_dense_internal.h"

/*
 * The packed array and the reverse map share one allocation:
 *
 *   [ rcu_head | room | data: room * elem_size | pad to 8 | rev: room ]
 *
 * Lock-free readers reach it through dense->vals; a replaced one is freed
 * after a grace period.
 */
struct kslot_dense_vals {
	struct rcu_head rcu;
	u32 room;
	u64 data[];
};

#define KSLOT_DENSE_DATA_OFFSET	offsetof(struct kslot_dense_vals, data)

/* Offset of the reverse map; saturates at SIZE_MAX on overflow. */
static size_t kslot_dense_rev_offset(size_t elem_size, u32 room)
{
	size_t end = size_add(size_mul(room, elem_size),
			      KSLOT_DENSE_DATA_OFFSET + 7);

	return end == SIZE_MAX ? SIZE_MAX : end & ~(size_t)7;
}

/* Bytes of the allocation for @room values; SIZE_MAX on overflow. */
static size_t kslot_dense_bytes(size_t elem_size, u32 room)
{
	return size_add(kslot_dense_rev_offset(elem_size, room),
			size_mul(room, sizeof(u64)));
}

/* Memory packed array @vals takes. */
static size_t kslot_dense_vals_bytes(const struct kslot_dense *dense,
				     const struct kslot_dense_vals *vals)
{
	return kslot_kvmalloc_bytes(vals, kslot_dense_bytes(dense->elem_size,
							    vals->room));
}

/* The reverse map of packed array @vals. */
static u64 *kslot_dense_vals_rev(const struct kslot_dense *dense,
				 struct kslot_dense_vals *vals)
{
	return (void *)vals + kslot_dense_rev_offset(dense->elem_size,
						     vals->room);
}

/*
 * A writer changed the value (and handle) at @pos: if a growth has copied
 * that position already, write the new array too (the core's mirror).
 * Called with the lock held.
 */
void __kslot_dense_mirror(struct kslot_dense *dense, u32 pos)
{
	struct kslot_dense_vals *next = dense->grow.next;

	memcpy((void *)next->data + (size_t)pos * dense->elem_size,
	       kslot_dense_elem(dense, pos), dense->elem_size);
	kslot_dense_vals_rev(dense, next)[pos] = dense->rev[pos];
}

static int kslot_dense_setup(struct kslot_dense *dense, const char *name,
			     size_t elem_size, u32 max_entries,
			     unsigned int flags, bool tagged, u32 tag,
			     struct lock_class_key *keys)
{
	if (!elem_size || kslot_dense_bytes(elem_size, max_entries) > INT_MAX)
		return -EINVAL;
	if (flags & ~KSLOT_DENSE_FLAGS_ALL)
		return -EINVAL;
	memset(dense, 0, sizeof(*dense));
	spin_lock_init(&dense->lock);
	kslot_lock_set_class(&dense->lock, flags, keys);
	seqcount_spinlock_init(&dense->seq, &dense->lock);
	dense->elem_size = elem_size;
	if (tagged)
		return kslot_slots_init_tag(&dense->slots, "dense", name,
					    max_entries, flags, tag);
	return kslot_slots_init(&dense->slots, "dense", name, max_entries,
				flags);
}

/**
 * __kslot_dense_init() - Initialise a dense slot map.
 * @dense: The table to initialise.
 * @name: If not NULL, expose the table's counters in debugfs as
 *	kslot/dense-@name.  A duplicate name is not exposed.
 * @elem_size: Size of one value in bytes.  Values are stored at multiples
 *	of @elem_size from an 8-byte aligned base, so use a multiple of the
 *	alignment the values need.
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_DENSE_LOCK_BH or %KSLOT_DENSE_LOCK_IRQ (not both), and
 *	%KSLOT_DENSE_ACCOUNT.
 * @keys: The lockdep classes of the table lock, one per lock mode
 *	(kslot_dense_init() passes its call site's: kslot_lock_classes()).
 *
 * Nothing is allocated until the first insert or reserve.  The packed
 * array at @max_entries must fit in one allocation of at most INT_MAX
 * bytes (about @max_entries * (@elem_size + 8)).
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @elem_size is 0, @max_entries is out of range,
 * the packed array at @max_entries would exceed INT_MAX bytes, or @flags
 * holds unknown bits or both lock flags.
 */
int __kslot_dense_init(struct kslot_dense *dense, const char *name,
		       size_t elem_size, u32 max_entries, unsigned int flags,
		       struct lock_class_key *keys)
{
	return kslot_dense_setup(dense, name, elem_size, max_entries, flags,
				 false, 0, keys);
}
EXPORT_SYMBOL_GPL(__kslot_dense_init);

/**
 * __kslot_dense_init_tag() - Initialise a dense slot map with a given tag.
 * @dense: The table to initialise.
 * @name: As kslot_dense_init().
 * @elem_size: As kslot_dense_init().
 * @max_entries: As kslot_dense_init().
 * @flags: As kslot_dense_init().
 * @tag: The tag of the table's handles, 0 .. %KSLOT_TAG_MASK: a table
 *	restored with kslot_dense_restore_slot() keeps its old tag, so that
 *	its old handles work again.
 * @keys: As __kslot_dense_init().
 *
 * kslot_dense_init() chooses a random tag instead.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @tag is above %KSLOT_TAG_MASK or for
 * kslot_dense_init()'s reasons.
 */
int __kslot_dense_init_tag(struct kslot_dense *dense, const char *name,
			   size_t elem_size, u32 max_entries,
			   unsigned int flags, u32 tag,
			   struct lock_class_key *keys)
{
	if (tag > KSLOT_TAG_MASK)
		return -EINVAL;
	return kslot_dense_setup(dense, name, elem_size, max_entries, flags,
				 true, tag, keys);
}
EXPORT_SYMBOL_GPL(__kslot_dense_init_tag);

/**
 * kslot_dense_destroy() - Tear down a dense slot map.
 * @dense: The table.
 * @fn: If not NULL, called once for every live value, in packed order,
 *	with the value, its handle and @data.  The value's memory is freed
 *	when this function returns.
 * @data: Passed to @fn.
 *
 * The caller must ensure no writer runs and no new lookup starts.
 * Lookups already inside kslot_dense_get() may finish: the memory is freed
 * after a grace period.  The table may be initialised again afterwards.
 * Destroying a zeroed table that was never initialised does nothing.
 *
 * Context: Process context for a named table (its debugfs file is
 * removed); otherwise any context that @fn allows.
 */
void kslot_dense_destroy(struct kslot_dense *dense,
			 void (*fn)(void *elem, u64 handle, void *data),
			 void *data)
{
	struct kslot_dense_vals *vals = rcu_dereference_protected(dense->vals,
								  true);
	struct kslot_dense_vals *next = dense->grow.next;
	struct kslot_free_acct *acct = dense->slots.free_acct;
	u32 pos;

	if (!dense->elem_size)
		return;
	for (pos = 0; fn && pos < dense->count; pos++)
		fn(kslot_dense_elem(dense, pos), dense->rev[pos], data);
	kslot_slots_destroy(&dense->slots, NULL, NULL);
	RCU_INIT_POINTER(dense->vals, NULL);
	if (vals)
		kslot_free_rcu(acct, vals,
			       kslot_dense_vals_bytes(dense, vals));
	/* Never published; freed the same way so any context may destroy. */
	if (next)
		kslot_free_rcu(acct, next,
			       kslot_dense_vals_bytes(dense, next));
	dense->grow.next = NULL;
	dense->data = NULL;
	dense->rev = NULL;
	WRITE_ONCE(dense->count, 0);
	dense->room = 0;
}
EXPORT_SYMBOL_GPL(kslot_dense_destroy);

static struct kslot_dense_vals *kslot_dense_vals_alloc(struct kslot_dense *d,
						       u32 room, gfp_t gfp)
{
	if (kslot_should_fail_alloc())
		return NULL;
	gfp = kslot_gfp(gfp, d->slots.flags & KSLOT_DENSE_ACCOUNT);
	/* Without a blocking gfp, kmalloc() only. */
	return kslot_kvmalloc(kslot_dense_bytes(d->elem_size, room), gfp);
}

/*
 * Free a packed array that lost a race and was never published, after
 * the lock is dropped.  A vmalloc'ed one cannot be vfree()d where the
 * caller may not sleep, so it goes through kvfree_rcu() then.
 */
void kslot_dense_vals_free(struct kslot_dense_vals *vals, gfp_t gfp)
{
	if (!vals)
		return;
	if (is_vmalloc_addr(vals) && !gfpflags_allow_blocking(gfp))
		kvfree_rcu(vals, rcu);
	else
		kvfree(vals);
}

/*
 * Publish the fully copied new packed array (before any handle of a
 * position beyond the old room).  The old one goes after a grace period.
 */
static void kslot_dense_publish(struct kslot_dense *dense)
{
	struct kslot_dense_vals *old =
		rcu_dereference_protected(dense->vals,
					  lockdep_is_held(&dense->lock));
	struct kslot_dense_vals *vals = dense->grow.next;

	/* The copy and the mirrored writes before the pointer. */
	rcu_assign_pointer(dense->vals, vals);
	dense->data = vals->data;
	dense->rev = kslot_dense_vals_rev(dense, vals);
	/* Read locklessly by kslot_dense_insert_n()'s hint. */
	WRITE_ONCE(dense->room, vals->room);
	dense->grow.next = NULL;
	if (old)
		kslot_free_rcu(dense->slots.free_acct, old,
			       kslot_dense_vals_bytes(dense, old));
}

/* Room of the packed array's next growth, for @n more values. */
static u32 kslot_dense_grown_room(const struct kslot_dense *dense, u32 n)
{
	return min(max3(2 * dense->room, dense->count + n,
			(u32)KSLOT_DENSE_MIN_ROOM), dense->slots.max_entries);
}

/*
 * One step of a growth of the packed array, as the core grows its slots
 * (kslot_internal.h): allocate the new array with the lock dropped, or
 * copy one batch of the live values and their handles into it, publishing
 * it after the last.  @n: values the caller needs room for.  Called and
 * returns with the lock held.  *@stale collects an allocation that lost a
 * race, to free after the final unlock.
 */
static int kslot_dense_grow_step(struct kslot_dense *dense, u32 n, gfp_t gfp,
				 unsigned long *irqflags,
				 struct kslot_dense_vals **stale)
	__must_hold(&dense->lock)
{
	struct kslot_dense_vals *next = dense->grow.next;
	u32 max = dense->slots.max_entries;

	if (!next) {
		u32 room = dense->room;
		u32 want = kslot_dense_grown_room(dense, n);

		if (room >= max)
			return -ENOSPC;
		kslot_dense_unlock(dense, *irqflags);
		kslot_dense_vals_free(*stale, gfp);
		*stale = NULL;
		next = kslot_dense_vals_alloc(dense, want, gfp);
		*irqflags = kslot_dense_lock(dense);
		if (!next)
			return -ENOMEM;
		/* Someone else grew the array or started to meanwhile. */
		if (dense->room != room || dense->grow.next) {
			*stale = next;
			return 0;
		}
		next->room = want;
		kslot_grow_start(&dense->grow, next);
	}
	/* One batch under the lock; writers mirror what is copied. */
	if (kslot_grow_copy(&dense->grow, dense->count,
			    (const struct kslot_grow_span[]){
				{ next->data, dense->data, dense->elem_size },
				{ kslot_dense_vals_rev(dense, next), dense->rev,
				  sizeof(u64) },
			    }, 2))
		kslot_dense_publish(dense);
	return 0;
}

/* Between copy batches, with the lock dropped: let other tasks run. */
static void kslot_dense_resched(gfp_t gfp)
{
	if (gfpflags_allow_blocking(gfp))
		cond_resched();
}

/*
 * Make room for @n more values in the packed array (the slots come from
 * the core).  Called and returns with the lock held; drops it to
 * allocate and between copy batches, so no writer waits for more than one
 * batch.  *@stale collects an allocation to free after the final unlock.
 */
int kslot_dense_make_room(struct kslot_dense *dense, u32 n, gfp_t gfp,
			  unsigned long *irqflags,
			  struct kslot_dense_vals **stale)
	__must_hold(&dense->lock)
{
	while (dense->room - dense->count < n) {
		int ret;

		if (n > dense->slots.max_entries - dense->count)
			return -ENOSPC;
		ret = kslot_dense_grow_step(dense, n, gfp, irqflags, stale);
		if (ret)
			return ret;
		if (!dense->grow.next)
			continue;
		/* Between copy batches: let other writers in. */
		kslot_dense_unlock(dense, *irqflags);
		kslot_dense_vals_free(*stale, gfp);
		*stale = NULL;
		kslot_dense_resched(gfp);
		*irqflags = kslot_dense_lock(dense);
	}
	return 0;
}

/*
 * Erase the published value at @pos whose handle is @handle: swap-and-pop.
 * Called with the lock held, inside a write section of dense->seq.
 */
static void __kslot_dense_erase(struct kslot_dense *dense, u64 handle,
				u32 pos, void *buf)
{
	u32 last = dense->count - 1;

	if (buf)
		memcpy(buf, kslot_dense_elem(dense, pos), dense->elem_size);
	kslot_slots_remove(&dense->slots, handle);
	if (pos != last) {
		memcpy(kslot_dense_elem(dense, pos),
		       kslot_dense_elem(dense, last), dense->elem_size);
		dense->rev[pos] = dense->rev[last];
		kslot_dense_mirror(dense, pos);
		kslot_slots_replace(&dense->slots, dense->rev[pos],
				    kslot_dense_pos_obj(pos));
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
 * Grows the slots (kslot_slots_reserve()) and the packed array.  After
 * success, the next @n inserts (by any caller) need no allocation unless
 * other inserts use the room first.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0, -EINVAL if @n is 0 or the table is being restored (until
 * kslot_dense_restore_done()), -ENOSPC if @n more values would exceed
 * max_entries (counting retired slots), or -ENOMEM.
 */
int kslot_dense_reserve(struct kslot_dense *dense, u32 n, gfp_t gfp)
{
	struct kslot_dense_vals *stale = NULL;
	unsigned long irqflags;
	int ret;

	if (!n)
		return -EINVAL;
	ret = kslot_slots_reserve(&dense->slots, n, gfp);
	if (ret)
		return ret;
	irqflags = kslot_dense_lock(dense);
	ret = kslot_dense_make_room(dense, n, gfp, &irqflags, &stale);
	kslot_dense_unlock(dense, irqflags);
	kslot_dense_vals_free(stale, gfp);
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
 * recently freed one, or the lowest new one if the slots had to grow.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0, -ENOSPC if the table holds max_entries slots (live or
 * retired), -EINVAL if the table is being restored (until
 * kslot_dense_restore_done()), or -ENOMEM if growing failed; the table is
 * unchanged on error (but see kslot_dense_insert_n() for a race with other
 * inserts).
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
 * All or nothing: the packed array is grown first if needed, then the
 * slots are taken (lookups do not see them), then every value is stored
 * and published under one hold of the lock.  If anything fails, no value
 * is stored; only if the packed array must grow again after the slots
 * were taken (other inserts used the room meanwhile) and that fails are
 * the slots given back (their generations move on).
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0, -EINVAL if @n is 0 or the table is being restored (until
 * kslot_dense_restore_done()), -ENOSPC if @n more values would exceed
 * max_entries (counting retired slots), or -ENOMEM.
 */
int kslot_dense_insert_n(struct kslot_dense *dense, const void *elems, u32 n,
			 u64 *handles, gfp_t gfp)
{
	struct kslot_dense_vals *stale = NULL;
	unsigned long irqflags;
	int ret = 0;
	u32 i;

	if (!n)
		return -EINVAL;
	/*
	 * Grow the packed array first if it looks short (a lockless hint,
	 * checked again below): its failure then changes nothing, not even
	 * the slots' capacity.
	 */
	if (READ_ONCE(dense->room) - READ_ONCE(dense->count) < n) {
		irqflags = kslot_dense_lock(dense);
		ret = kslot_dense_make_room(dense, n, gfp, &irqflags, &stale);
		kslot_dense_unlock(dense, irqflags);
		kslot_dense_vals_free(stale, gfp);
		stale = NULL;
		if (ret)
			return ret;
	}
	/* The slots, placeholders (NULL): lookups skip them until published. */
	if (n > 1)
		ret = kslot_slots_reserve(&dense->slots, n, gfp);
	for (i = 0; !ret && i < n; i++) {
		ret = kslot_slots_alloc(&dense->slots, NULL, &handles[i], gfp);
		if (ret)
			kslot_dense_drop_placeholders(dense, handles, i);
	}
	if (ret)
		return ret;
	irqflags = kslot_dense_lock(dense);
	ret = kslot_dense_make_room(dense, n, gfp, &irqflags, &stale);
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
		dense->rev[pos] = handles[i];
		kslot_dense_mirror(dense, pos);
		WRITE_ONCE(dense->count, pos + 1);
		/*
		 * Publish: the value before the slot's position (release).
		 * Only this table's writers change its slots and erase skips
		 * unpublished ones, so the slot is still ours.
		 */
		kslot_slots_replace(&dense->slots, handles[i],
				    kslot_dense_pos_obj(pos));
	}
	kslot_dense_unlock(dense, irqflags);
	kslot_dense_vals_free(stale, gfp);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_dense_insert_n);

/**
 * kslot_dense_get() - Copy out the value a handle names, without a lock.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @buf: elem_size bytes to copy the value into.
 *
 * Under RCU: the core's handle check gives the value's position, the copy
 * is taken from the packed array and retried if a writer moved or
 * overwrote a value meanwhile (the table's sequence count changed).  On
 * success @buf holds exactly the value stored under @handle at one
 * instant of the call: never the value swap-and-pop moved into its
 * place, never a mix of an old and a new value.
 *
 * Context: Any context the table's lock flags allow (a reader must not
 * interrupt a writer of the same table on its CPU).  Takes and releases
 * the RCU read lock.
 * Return: 0, or -ENOENT if @handle is not live in @dense (@buf may have
 * been written).
 */
int kslot_dense_get(struct kslot_dense *dense, u64 handle, void *buf)
{
	const struct kslot_dense_vals *vals;
	unsigned int seq;
	void *obj;
	u32 pos;

	rcu_read_lock();
	do {
		seq = read_seqcount_begin(&dense->seq);
		obj = __kslot_slots_lookup(&dense->slots, handle);
		if (!obj)
			break;
		/*
		 * The position before the array that holds it: the array
		 * is published before any handle of a position in it.
		 */
		smp_rmb();
		vals = rcu_dereference(dense->vals);
		pos = array_index_nospec(kslot_dense_obj_pos(obj), vals->room);
		kslot_copy_value(buf, (void *)vals->data +
				 (size_t)pos * dense->elem_size,
				 dense->elem_size);
	} while (read_seqcount_retry(&dense->seq, seq));
	rcu_read_unlock();
	return obj ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_dense_get);

/**
 * kslot_dense_update() - Overwrite the value a handle names.
 * @dense: The table.
 * @handle: A handle, valid or not.
 * @elem: elem_size bytes to copy in.
 *
 * The handle and the value's position do not change; kslot_dense_get()
 * sees the old or the new value, never a mix.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
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
		kslot_dense_mirror(dense, pos);
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
	bool erased;

	write_seqcount_begin(&dense->seq);
	erased = __kslot_dense_erase_handle(dense, handle, buf);
	write_seqcount_end(&dense->seq);
	kslot_dense_unlock(dense, irqflags);
	return erased ? 0 : -ENOENT;
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
	write_seqcount_begin(&dense->seq);
	for (i = 0; i < n; i++)
		erased += __kslot_dense_erase_handle(dense, handles[i], NULL);
	write_seqcount_end(&dense->seq);
	kslot_dense_unlock(dense, irqflags);
	return erased;
}
EXPORT_SYMBOL_GPL(kslot_dense_erase_n);

/**
 * kslot_dense_retain() - Keep only the values a predicate accepts.
 * @dense: The table.
 * @keep: Called once for every live value with its handle, the value and
 *	@arg; the value is erased if it returns false.  It may modify the
 *	value, must not sleep, and must not call into @dense.
 * @arg: Passed to @keep.
 *
 * One pass over the packed array under the lock (lock-free readers wait
 * for it).  After a swap-and-pop the value moved into the hole is
 * examined next, so every value is offered to @keep exactly once.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The number of values erased.
 */
u32 kslot_dense_retain(struct kslot_dense *dense,
		       bool (*keep)(u64 handle, void *elem, void *arg),
		       void *arg)
{
	unsigned long irqflags = kslot_dense_lock(dense);
	u32 pos = 0, erased = 0;

	write_seqcount_begin(&dense->seq);
	while (pos < dense->count) {
		u64 handle = dense->rev[pos];

		if (keep(handle, kslot_dense_elem(dense, pos), arg)) {
			/* keep() may have changed the value. */
			kslot_dense_mirror(dense, pos);
			pos++;
			continue;
		}
		__kslot_dense_erase(dense, handle, pos, NULL);
		erased++;
	}
	write_seqcount_end(&dense->seq);
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

	write_seqcount_begin(&dense->seq);
	for (pos = 0; pos < dense->count; pos++)
		kslot_slots_remove(&dense->slots, dense->rev[pos]);
	WRITE_ONCE(dense->count, 0);
	write_seqcount_end(&dense->seq);
	kslot_dense_unlock(dense, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_dense_clear);

/**
 * kslot_dense_find_range() - Copy out live values of a slot range.
 * @dense: The table.
 * @cursor: Slot index to resume from (0 to start); advanced past the last
 *	value copied, or to the first slot not scanned.
 * @end: Slot index to stop before.  The lock is held for at most @end -
 *	*@cursor slots, not for the table's capacity, so a caller bounds the
 *	work of one call.
 * @handles: If not NULL, array of @max receiving the handles found.
 * @buf: If not NULL, @max * elem_size bytes receiving the values found.
 * @max: Most values to copy.
 *
 * As kslot_dense_find(), over the slots *@cursor .. @end - 1 only.  If
 * fewer than @max values are returned, *@cursor is @end, or the capacity
 * if the table ends before @end.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The number of values copied, or -EINVAL if @max is 0.
 */
int kslot_dense_find_range(struct kslot_dense *dense, u32 *cursor, u32 end,
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
EXPORT_SYMBOL_GPL(kslot_dense_find_range);

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
 * call holds the lock only for its own batch, which may scan the whole
 * slot array to find @max values: bound it with kslot_dense_find_range().
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The number of values copied (0 once the walk is over), or
 * -EINVAL if @max is 0.
 */
int kslot_dense_find(struct kslot_dense *dense, u32 *cursor, u64 *handles,
		     void *buf, u32 max)
{
	return kslot_dense_find_range(dense, cursor, U32_MAX, handles, buf,
				      max);
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
	struct kslot_dense_vals *next = dense->grow.next;
	struct kslot_slots_stats ss;

	kslot_slots_get_stats(&dense->slots, &ss);
	st->count = dense->count;
	st->capacity = ss.capacity;
	st->max_entries = ss.max_entries;
	st->retired = ss.retired;
	st->elem_size = dense->elem_size;
	st->room = dense->room;
	st->bytes = ss.bytes;
	if (dense->room) {
		const void *vals = rcu_dereference_protected(dense->vals,
					lockdep_is_held(&dense->lock));
		size_t size = kslot_dense_bytes(dense->elem_size, dense->room);

		st->bytes += kslot_kvmalloc_bytes(vals, size);
	}
	/* A growth in progress: the array it fills is taken already. */
	if (next) {
		size_t size = kslot_dense_bytes(dense->elem_size, next->room);

		st->bytes += kslot_kvmalloc_bytes(next, size);
	}
	/* What one more insert may allocate: the growth of a full array. */
	st->grow_bytes = ss.count + ss.retired >= ss.capacity ?
			 ss.grow_bytes : 0;
	st->vals_grow_bytes = 0;
	if (!next && dense->count >= dense->room &&
	    dense->room < ss.max_entries) {
		u32 room = kslot_dense_grown_room(dense, 1);
		size_t size = kslot_dense_bytes(dense->elem_size, room);

		st->vals_grow_bytes = kslot_kvmalloc_size(size);
		st->grow_bytes += st->vals_grow_bytes;
	}
	st->rejected = ss.rejected;
	kslot_dense_unlock(dense, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_dense_get_stats);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kslot_dense_test_grow_step() - One growth step on demand (KUnit only).
 * @dense: The table.
 *
 * Starts a growth of the packed array (allocates the next one and copies
 * the first batch) or copies one more batch, publishing after the last,
 * whether or not room is short, so a test can write between batches.
 *
 * Context: Process context.
 * Return: 0, -ENOMEM, or -ENOSPC if the packed array cannot grow.
 */
int kslot_dense_test_grow_step(struct kslot_dense *dense)
{
	struct kslot_dense_vals *stale = NULL;
	unsigned long irqflags = kslot_dense_lock(dense);
	int ret = kslot_dense_grow_step(dense, 1, GFP_KERNEL, &irqflags,
					&stale);

	kslot_dense_unlock(dense, irqflags);
	kslot_dense_vals_free(stale, GFP_KERNEL);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_dense_test_grow_step);
#endif
