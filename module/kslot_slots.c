// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core's API: init and destroy, the writers under the table lock
 * and their conditional and __ forms, the lock-free readers, and reserve.
 * Keyed tables and restore are in kslot_slots_keyed.c, the storage and
 * its growth in kslot_slots_core.c; kslot_slots_core.h has what they
 * share.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kref.h>
#include <linux/percpu.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "kslot_slots_core.h"

/**
 * __kslot_slots_init() - Initialise a generational slot table.
 * @s: The table.
 * @kind: debugfs prefix of the structure built on it, e.g. "map".
 * @name: If not NULL, expose the counters in debugfs as kslot/@kind-@name.
 *	Names should be unique; a duplicate is not exposed.
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_SLOTS_LOCK_BH or %KSLOT_SLOTS_LOCK_IRQ (not both),
 *	%KSLOT_SLOTS_ACCOUNT, %KSLOT_SLOTS_HANDLE32 for 32-bit handles
 *	(their bit split follows from @max_entries: see kslot_slots.h),
 *	and %KSLOT_SLOTS_KEYED.
 * @keys: The lockdep classes of the table lock, one per lock mode
 *	(kslot_slots_init() passes its call site's: kslot_lock_classes()).
 *
 * No memory is allocated until the first growth (kslot_slots_alloc(),
 * kslot_slots_reserve(), a keyed write), but the debugfs file of a named
 * table.
 *
 * Context: Process context if @name is given, otherwise any context.
 * Return: 0, or -EINVAL if @max_entries is out of range or @flags holds
 * unknown bits, both lock flags, or %KSLOT_SLOTS_KEYED with
 * %KSLOT_SLOTS_HANDLE32.
 */
int __kslot_slots_init(struct kslot_slots *s, const char *kind,
		       const char *name, u32 max_entries, unsigned int flags,
		       struct lock_class_key *keys)
{
	if (!max_entries || max_entries > KSLOT_MAX_ENTRIES)
		return -EINVAL;
	if (!kslot_lock_flags_valid(flags, KSLOT_SLOTS_FLAGS_ALL))
		return -EINVAL;
	/* Keyed tables and restore speak the 64-bit format only. */
	if ((flags & KSLOT_SLOTS_KEYED) && (flags & KSLOT_SLOTS_HANDLE32))
		return -EINVAL;

	memset(s, 0, sizeof(*s));
	spin_lock_init(&s->lock);
	kslot_lock_set_class(&s->lock, flags, keys);
	s->flags = flags;
	kslot_slots_init_format(s, max_entries);
	/* A 32-bit table's handles carry no tag. */
	s->tag = flags & KSLOT_SLOTS_HANDLE32 ? 0 : kslot_random_tag();
	s->free_head = KSLOT_SLOTS_NONE;
	s->max_entries = max_entries;
	/* The writers' fast paths: see kslot_slots_lock_writes(). */
	s->flags |= KSLOT_SLOTS_F_LOCKED;
	if (!(flags & KSLOT_SLOTS_KEYED))
		s->flags |= KSLOT_SLOTS_F_ALLOC;
	if (name)
		s->debugfs = kslot_slots_debugfs(s, kind, name);
	return 0;
}
EXPORT_SYMBOL_GPL(__kslot_slots_init);

/**
 * kslot_slots_destroy() - Tear down a table.
 * @s: The table.
 * @fn: If not NULL, called once for every live entry (placeholders
 *	included, with a NULL object), with the table lock not held.
 * @data: Passed to @fn.
 *
 * The caller must ensure no writer runs and no new lookup starts.
 * Lookups already inside an RCU read-side critical section may finish:
 * they still read @s (its directory pointer and handle format) and the
 * chunks, which are freed a grace period after this call.  So @s itself
 * may be freed, or initialised again, only a grace period after this
 * returns (kfree_rcu(), or after synchronize_rcu()).  Meanwhile the
 * table is an empty one, as a zeroed table is: a late writer fails.  A
 * zeroed table needs nothing.
 *
 * @fn runs before the table is unpublished, and a lookup that began
 * before this call may return the object @fn is given until a grace
 * period after destroy returns: @fn frees it after a grace period
 * (kfree_rcu(), call_rcu(), or a put whose last reference does so), not
 * at once, unless no lookup can be running.  The walk calls @fn for
 * every live slot below the capacity, up to %KSLOT_MAX_ENTRIES, in one
 * loop: destroy has no resched point of its own, so that it may run in
 * any context.  It holds no lock while it walks: a caller in process
 * context with a large table lets others run from @fn (cond_resched()).
 *
 * Context: Process context for a named table (its debugfs file is
 * removed); otherwise any context that @fn allows.
 */
void kslot_slots_destroy(struct kslot_slots *s,
			 void (*fn)(void *obj, u64 handle, void *data),
			 void *data)
{
	/* No writer runs: the caller's promise. */
	struct kslot_dir *dir = rcu_dereference_protected(s->dir, true);
	u32 i;

	/* Zeroed, or destroyed already: nothing to do. */
	if (kslot_slots_zeroed(s))
		return;
	kslot_debugfs_remove(s->debugfs);
	s->debugfs = NULL;
	for (i = 0; fn && i < s->capacity; i++) {
		const struct kslot_slot *slot =
			kslot_dir_at(dir, i, KSLOT_SLOTS_CHUNK_SHIFT,
				     sizeof(*slot));
		u64 word = slot->word;

		if (kslot_gen_is_live(kslot_slots_word_gen(s, word)))
			fn(slot->obj, word, data);
	}
	/* New lookups find no table; running ones keep the chunks. */
	RCU_INIT_POINTER(s->dir, NULL);
	if (dir)
		kslot_slots_free_dir(s, dir);
	/*
	 * Empty as a zeroed table is, so that a writer that comes late
	 * fails (-ENOSPC, -ENOENT) rather than grow a table under the old
	 * tag.  The handle format stays: running lookups read it.
	 */
	s->flags &= ~(KSLOT_SLOTS_F_LOCKED | KSLOT_SLOTS_F_ALLOC);
	s->max_entries = 0;
	s->waiting = 0;
	s->retired = 0;
	s->restoring = false;
	s->capacity = 0;
	WRITE_ONCE(s->count, 0);
	s->free_head = KSLOT_SLOTS_NONE;
}
EXPORT_SYMBOL_GPL(kslot_slots_destroy);

/* Point live @slot (of @handle) at @obj.  Called with the lock held. */
static __always_inline void kslot_slots_set(struct kslot_slots *s,
					    struct kslot_slot *slot,
					    u64 handle, void *obj)
{
	kslot_slots_store(s, slot, kslot_slots_handle_index(s, handle),
			  KSLOT_SLOTS_SET, 0, obj);
}

/* kslot_slots_replace() with the lock held. */
static __always_inline void *
kslot_slots_replace_locked(struct kslot_slots *s, u64 handle, void *obj)
{
	struct kslot_slot *slot = kslot_slots_live(s, handle);
	void *old;

	if (!slot)
		return ERR_PTR(-ENOENT);
	old = slot->obj;
	kslot_slots_set(s, slot, handle, obj);
	return old;
}

/* kslot_slots_remove() with the lock held. */
static __always_inline void *
kslot_slots_remove_locked(struct kslot_slots *s, u64 handle)
{
	struct kslot_slot *slot = kslot_slots_live(s, handle);
	void *obj;

	if (!slot)
		return NULL;
	obj = slot->obj;
	kslot_slots_release(s, slot, handle);
	return obj;
}

/* The live slot of @handle if it holds @old; else -ENOENT or -EBUSY. */
static struct kslot_slot *kslot_slots_live_if(struct kslot_slots *s,
					      u64 handle, void *old)
{
	struct kslot_slot *slot = kslot_slots_live(s, handle);

	if (!slot)
		return ERR_PTR(-ENOENT);
	if (slot->obj != old)
		return ERR_PTR(-EBUSY);
	return slot;
}

/* The conditional writers with the lock held. */
static int kslot_slots_replace_if_locked(struct kslot_slots *s, u64 handle,
					 void *old, void *obj)
{
	struct kslot_slot *slot = kslot_slots_live_if(s, handle, old);

	if (IS_ERR(slot))
		return PTR_ERR(slot);
	kslot_slots_set(s, slot, handle, obj);
	return 0;
}

static int kslot_slots_remove_if_locked(struct kslot_slots *s, u64 handle,
					void *old)
{
	struct kslot_slot *slot = kslot_slots_live_if(s, handle, old);

	if (IS_ERR(slot))
		return PTR_ERR(slot);
	kslot_slots_release(s, slot, handle);
	return 0;
}

/*
 * kslot_slots_alloc() of a table without %KSLOT_SLOTS_F_ALLOC: zeroed or
 * keyed.  No lock held.
 */
static noinline int kslot_slots_alloc_other(struct kslot_slots *s)
{
	return kslot_slots_zeroed(s) ? -ENOSPC : -EINVAL;
}

/*
 * kslot_slots_alloc() that found no free slot, or a restore running:
 * grow, then take a slot.  Called with the lock held (@irqflags from
 * kslot_slots_lock()); releases it.
 */
static noinline int kslot_slots_alloc_grow(struct kslot_slots *s, void *obj,
					   u64 *handle, gfp_t gfp,
					   unsigned long irqflags)
	__releases(&s->lock)
{
	int ret = kslot_slots_grow_alloc(s, &irqflags, gfp,
					 kslot_slots_has_free, 0);

	if (!ret)
		*handle = kslot_slots_take(s, obj);
	kslot_slots_unlock(s, irqflags);
	return ret;
}

/* kslot_slots_alloc() of a table with %KSLOT_SLOTS_F_ALLOC. */
static noinline int kslot_slots_alloc_locked(struct kslot_slots *s,
					     void *obj, u64 *handle, gfp_t gfp)
{
	unsigned long irqflags = kslot_slots_lock(s);

	/* The fast path: a free slot, no growth, no restore. */
	if (unlikely(s->free_head == KSLOT_SLOTS_NONE || s->restoring))
		return kslot_slots_alloc_grow(s, obj, handle, gfp, irqflags);
	*handle = kslot_slots_take(s, obj);
	kslot_slots_unlock(s, irqflags);
	return 0;
}

/**
 * kslot_slots_alloc() - Store a pointer and issue a handle for it.
 * @s: The table.
 * @obj: The pointer, or NULL for a placeholder (lookups return NULL
 *	until kslot_slots_replace() publishes an object).
 * @handle: Set to the new handle on success; untouched on failure.
 * @gfp: Allocation flags for growing the table.
 *
 * Reuses the most recently freed slot if there is one, otherwise grows
 * the table by a chunk (see the top of kslot_slots.h).  The object's
 * contents must be initialised before the call: lookups may return it as
 * soon as the handle is live, before this function returns.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock, and
 * drops it to allocate a chunk.  Never waits for a grace period.
 * Return: 0, -ENOMEM if growing the table failed (only when no slot is
 * free), -ENOSPC if the table holds max_entries slots (live or retired)
 * and none is free, or -EINVAL if the table is keyed or being restored
 * (it has no free list), a restore that began while this call grew the
 * table included.
 */
int kslot_slots_alloc(struct kslot_slots *s, void *obj, u64 *handle,
		      gfp_t gfp)
{
	/* Both tail calls: neither path pays the other's stack frame. */
	if (likely(s->flags & KSLOT_SLOTS_F_ALLOC))
		return kslot_slots_alloc_locked(s, obj, handle, gfp);
	return kslot_slots_alloc_other(s);
}
EXPORT_SYMBOL_GPL(kslot_slots_alloc);

/**
 * kslot_slots_replace() - Replace the pointer a handle refers to.
 * @s: The table.
 * @handle: A live handle, placeholder or not.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * The handle keeps its generation.  Lookups see the old or the new
 * pointer; the caller owns the old one and must let RCU readers finish
 * with it before freeing it.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The previous pointer (NULL for a placeholder), or
 * ERR_PTR(-ENOENT) if @handle is not live in @s.
 */
void *kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj)
{
	unsigned long irqflags;
	void *old;

	/* Zeroed: nothing is live. */
	if (unlikely(!kslot_slots_lock_writes(s)))
		return ERR_PTR(-ENOENT);
	irqflags = kslot_slots_lock(s);
	old = kslot_slots_replace_locked(s, handle, obj);
	kslot_slots_unlock(s, irqflags);
	return old;
}
EXPORT_SYMBOL_GPL(kslot_slots_replace);

/* kslot_slots_remove() of an initialised table. */
static noinline void *kslot_slots_remove_lock(struct kslot_slots *s,
					      u64 handle)
{
	unsigned long irqflags = kslot_slots_lock(s);
	void *obj = kslot_slots_remove_locked(s, handle);

	kslot_slots_unlock(s, irqflags);
	return obj;
}

/**
 * kslot_slots_remove() - Remove an entry and invalidate its handle.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * Bumps the slot's generation, so @handle and every copy of it are
 * rejected from now on, and puts the slot at the head of the free list,
 * or retires it if its generations are used up.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: The removed pointer, or NULL if @handle was not live (or was a
 * placeholder, which is released all the same).
 */
void *kslot_slots_remove(struct kslot_slots *s, u64 handle)
{
	/* Zeroed: nothing is live. */
	if (unlikely(!kslot_slots_lock_writes(s)))
		return NULL;
	return kslot_slots_remove_lock(s, handle);
}
EXPORT_SYMBOL_GPL(kslot_slots_remove);

/**
 * kslot_slots_alloc_bulk() - Issue handles for several pointers at once.
 * @s: The table.
 * @objs: The pointers (NULL entries are placeholders).
 * @nr: How many.
 * @handles: Receives the handle of each pointer issued, in order.
 * @gfp: Allocation flags for growing the table.
 *
 * kslot_slots_alloc() of each of @objs in order, with one hold of the
 * table lock for up to %KSLOT_SLOTS_BULK of them: the lock's
 * atomics are paid once per batch, not once per entry.  It stops at the
 * first that fails; the ones before stay issued (unlike
 * kmem_cache_alloc_bulk(), it is not all or nothing).
 *
 * Context: As kslot_slots_alloc(); the table lock is dropped between
 * batches (and the CPU yielded if @gfp may sleep).
 * Return: The number of handles issued, 1 .. @nr (0 for @nr 0); or, if
 * not even the first could be, kslot_slots_alloc()'s error for it
 * (-ENOMEM, -ENOSPC or -EINVAL); -EINVAL if @nr is above %INT_MAX.
 * Fewer than @nr means the next one failed.
 */
int kslot_slots_alloc_bulk(struct kslot_slots *s, void *const *objs, u32 nr,
			   u64 *handles, gfp_t gfp)
{
	unsigned long irqflags;
	u32 done = 0, end;
	int ret = 0;

	if (nr > INT_MAX)
		return -EINVAL;
	if (kslot_slots_zeroed(s))
		return nr ? -ENOSPC : 0;
	while (done < nr && !ret) {
		end = done + min(nr - done, KSLOT_SLOTS_BULK);
		irqflags = kslot_slots_lock(s);
		ret = kslot_slots_no_alloc(s);
		for (; done < end && !ret; done++) {
			if (unlikely(s->free_head == KSLOT_SLOTS_NONE)) {
				ret = kslot_slots_grow_alloc(s, &irqflags, gfp,
							     kslot_slots_has_free,
							     0);
				if (ret)
					break;
			}
			handles[done] = kslot_slots_take(s, objs[done]);
			/* Fetch the next slot while this one is written. */
			if (s->free_head != KSLOT_SLOTS_NONE)
				prefetchw(kslot_slots_at(s, s->free_head));
		}
		kslot_slots_unlock(s, irqflags);
		if (gfpflags_allow_blocking(gfp))
			cond_resched();
	}
	return done ? done : ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_alloc_bulk);

/**
 * kslot_slots_remove_bulk() - Remove several entries at once.
 * @s: The table.
 * @handles: The handles, valid or not.
 * @nr: How many.
 * @objs: Receives the pointer each removed entry held (NULL for a
 *	placeholder), in order.
 *
 * kslot_slots_remove() of each of @handles in order, with one hold of the
 * table lock for up to %KSLOT_SLOTS_BULK of them, whose slots
 * are prefetched first so that their cache misses overlap.  It stops at
 * the first handle that is not live (counted as rejected, unless it is
 * the null handle): that one and those after it are left alone, and their
 * @objs untouched.
 *
 * Context: As kslot_slots_remove(); the table lock is dropped between
 * batches, which is a preemption point on a preemptible kernel (it may
 * run in atomic context, so it does not call cond_resched()).
 * Return: The number of entries removed: @nr, or the index of the first
 * handle that was not live; 0 (nothing removed) if @nr is above %INT_MAX.
 */
u32 kslot_slots_remove_bulk(struct kslot_slots *s, const u64 *handles,
			    u32 nr, void **objs)
{
	unsigned long irqflags;
	u32 done = 0, end, i;

	if (nr > INT_MAX || kslot_slots_zeroed(s))
		return 0;
	while (done < nr) {
		struct kslot_dir *dir;
		struct kslot_slot *slot;

		end = done + min(nr - done, KSLOT_SLOTS_BULK);
		irqflags = kslot_slots_lock(s);
		dir = kslot_slots_dir(s);
		for (i = done; dir && i < end; i++) {
			u32 index = kslot_slots_handle_index(s, handles[i]);

			prefetchw(__kslot_slots_slot(dir, dir->nr, index));
		}
		for (; done < end; done++) {
			slot = kslot_slots_live(s, handles[done]);
			if (!slot)
				break;
			objs[done] = slot->obj;
			kslot_slots_release(s, slot, handles[done]);
		}
		kslot_slots_unlock(s, irqflags);
		if (done < end)
			break;
	}
	return done;
}
EXPORT_SYMBOL_GPL(kslot_slots_remove_bulk);

/**
 * kslot_slots_reject() - Count a handle that named no live entry.
 * @dir: The directory the handle was looked up in.
 * @handle: The handle looked up, replaced or removed.
 *
 * The end of the slow path of kslot_slots_read() and of the writers'
 * handle check: every handle but the null one that did not match a live
 * slot is a rejection, counted on this CPU in the table's counter, which
 * lives as long as the directory does.  It writes nothing shared.
 *
 * Context: Any context; caller holds rcu_read_lock() or the table lock.
 */
void kslot_slots_reject(const struct kslot_dir *dir, u64 handle)
{
	if (handle)
		this_cpu_inc(*dir->rejected);
}
EXPORT_SYMBOL_GPL(kslot_slots_reject);

/**
 * kslot_slots_read_far() - The slow path of kslot_slots_read().
 * @dir: The directory the handle was looked up in.
 * @handle: A handle, valid or not, that the slot its index names in the
 *	near chunks (clamped) did not match.
 *
 * A slot past the directory's near chunks is in its far part
 * (module/kslot_dir.c), read here, out of line, so that a lookup's fast
 * path stays that of one array.  Any other handle is a rejection.
 *
 * Context: Any context; caller holds rcu_read_lock() or the table lock.
 * Return: As kslot_slots_read().
 */
void *kslot_slots_read_far(const struct kslot_dir *dir, u64 handle)
{
	const struct kslot_slot *slot;
	void *obj;

	slot = __kslot_dir_far(dir, (u32)handle & dir->index_mask,
			       KSLOT_SLOTS_CHUNK_SHIFT, sizeof(*slot));
	if (slot && kslot_slot_load(slot, handle, &obj))
		return obj;
	kslot_slots_reject(dir, handle);
	return NULL;
}
EXPORT_SYMBOL_GPL(kslot_slots_read_far);

/**
 * kslot_slots_count_reject() - Count a handle that named no live entry.
 * @s: The table.
 * @handle: The handle looked up, replaced or removed.
 *
 * kslot_slots_reject() for a structure built on the table that found
 * @handle stale by its own means.  A table that has not grown counts
 * nothing.
 *
 * Context: Any context.
 */
void kslot_slots_count_reject(struct kslot_slots *s, u64 handle)
{
	const struct kslot_dir *dir;

	rcu_read_lock();
	dir = rcu_dereference(s->dir);
	if (dir)
		kslot_slots_reject(dir, handle);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(kslot_slots_count_reject);

/**
 * kslot_slots_lookup() - Find the pointer a handle refers to.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * Takes the RCU read lock itself, as xa_load() does.  Unless the caller
 * holds rcu_read_lock() across the call and its use of the object, or
 * keeps the object alive by other means, the object may be freed as soon
 * as this returns.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The pointer, or NULL if @handle is stale, forged, from another
 * table, or a placeholder.
 */
void *kslot_slots_lookup(struct kslot_slots *s, u64 handle)
{
	void *obj;

	rcu_read_lock();
	obj = __kslot_slots_lookup(s, handle);
	rcu_read_unlock();
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_slots_lookup);

/**
 * kslot_slots_lookup_get() - Look up a handle and take a kref on the object.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @ref_offset: Offset of the struct kref inside the stored objects.
 * @release: The objects' kref release function.
 *
 * The kref_get_unless_zero() pattern drivers use with xa_load().  After
 * the reference is taken, the slot is read again (as __fget_files_rcu()
 * re-checks the fdtable): it must still hold this object under this
 * handle, in a table not destroyed meanwhile.  That keeps it correct for
 * objects from a
 * SLAB_TYPESAFE_BY_RCU cache, whose memory may hold a new object by the
 * time the reference is taken; then the reference is dropped with
 * @release semantics and NULL returned, or, if the handle is still live
 * and only its object was replaced meanwhile, the lookup starts over.
 *
 * Context: Any context.  Takes and releases the RCU read lock.  @release
 * may be called (for the last reference, when the entry was removed while
 * it was looked up), after the RCU read lock is released: it must be safe
 * in the caller's context, and may sleep if the caller may.
 * Return: The object with a reference held, or NULL.
 */
void *kslot_slots_lookup_get(struct kslot_slots *s, u64 handle,
			     size_t ref_offset,
			     void (*release)(struct kref *ref))
{
	const struct kslot_dir *dir;
	const struct kslot_slot *slot;
	struct kref *ref;
	bool stale, live;
	void *obj;

again:
	stale = false;
	rcu_read_lock();
	obj = __kslot_slots_lookup(s, handle);
	if (!obj)
		goto out;
	ref = obj + ref_offset;
	if (!kref_get_unless_zero(ref)) {
		obj = NULL;
		goto out;
	}
	/*
	 * The increment is a relaxed RMW: order the re-check after it, as
	 * refcount_inc_not_zero_acquire() would.
	 */
	smp_acquire__after_ctrl_dep();
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_LOOKUP_GET);
	/* Destroyed meanwhile: no directory, nothing is live. */
	dir = rcu_dereference(s->dir);
	slot = dir ? kslot_dir_at(dir, kslot_slots_handle_index(s, handle),
				  KSLOT_SLOTS_CHUNK_SHIFT, sizeof(*slot)) :
		     NULL;
	live = slot && READ_ONCE(slot->word) == handle;
	stale = !live || READ_ONCE(slot->obj) != obj;
out:
	rcu_read_unlock();
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_LOOKUP_OUT);
	/*
	 * The reference may be the last one (a remover dropped the table's
	 * meanwhile): @release may sleep, so it runs outside the read-side
	 * section, where the reference keeps the object alive.
	 */
	if (stale) {
		kref_put(ref, release);
		obj = NULL;
		/* Still live, replaced meanwhile: as __fget_files_rcu(). */
		if (live)
			goto again;
	}
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_slots_lookup_get);

/**
 * kslot_slots_find_range() - Find the next published entry in a slot range.
 * @s: The table.
 * @index: Slot to start from; set to the slot found, or to the first slot
 *	not scanned.
 * @end: Slot to stop before; the scan is bounded by @end - *@index, not by
 *	the table's size, so a caller can bound the work of one call.
 * @handle: Set to the handle of the entry found.
 *
 * Placeholders are skipped.  Each entry returned was live at some
 * point during the call.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The pointer, or NULL when no published entry is in *@index ..
 * @end - 1; then *@index is @end, or the table's size if the table ends
 * before @end (*@handle is unchanged).
 */
void *kslot_slots_find_range(struct kslot_slots *s, u32 *index, u32 end,
			     u64 *handle)
{
	const struct kslot_dir *dir;
	void *found = NULL;
	u32 i;

	rcu_read_lock();
	dir = rcu_dereference(s->dir);
	end = min_t(unsigned long, end, dir ? kslot_dir_total(dir) : 0);
	for (i = *index; i < end; i++) {
		/* Clamped as a lookup's: the loop bound may be mispredicted. */
		const struct kslot_slot *slot =
			kslot_dir_at(dir, i, KSLOT_SLOTS_CHUNK_SHIFT,
				     sizeof(*slot));
		/* Word, object, word, as kslot_slots_read(). */
		u64 word = smp_load_acquire(&slot->word);
		void *obj;

		if (!kslot_gen_is_live(kslot_slots_word_gen(s, word)))
			continue;
		obj = READ_ONCE(slot->obj);
		smp_rmb(); /* Object before the word re-check. */
		if (!obj || READ_ONCE(slot->word) != word)
			continue;
		*handle = word;
		found = obj;
		break;
	}
	rcu_read_unlock();
	*index = max(i, *index);
	return found;
}
EXPORT_SYMBOL_GPL(kslot_slots_find_range);

/**
 * kslot_slots_find() - Find the next published entry at or after an index.
 * @s: The table.
 * @index: Slot to start from; set to the slot found.
 * @handle: Set to the handle of the entry found.
 *
 * Placeholders are skipped.  Each entry returned was live at some
 * point during the call.  The scan runs to the end of the table if need
 * be: bound it with kslot_slots_find_range().
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The pointer, or NULL when no published entry remains at or
 * after *@index (then *@index and *@handle are unchanged).
 */
void *kslot_slots_find(struct kslot_slots *s, u32 *index, u64 *handle)
{
	u32 i = *index;
	void *found = kslot_slots_find_range(s, &i, U32_MAX, handle);

	if (found)
		*index = i;
	return found;
}
EXPORT_SYMBOL_GPL(kslot_slots_find);

/*
 * Writers with the lock held, conditional writers and preload: what a
 * driver needs to use the table as it would use an XArray under xa_lock()
 * (xa_cmpxchg(), xa_reserve() / idr_preload()).
 */

/**
 * __kslot_slots_alloc() - Issue a handle with the table lock held.
 * @s: The table.
 * @obj: The pointer, or NULL for a placeholder (lookups return NULL
 *	until a replace publishes an object).
 * @handle: Set to the new handle on success; untouched on failure.
 *
 * Never allocates memory and never drops the lock: it takes a free slot
 * of the current table, which kslot_slots_reserve() can provide
 * beforehand.  As with kslot_slots_alloc(), the object's contents must be
 * initialised before the call.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0, -ENOMEM if the table has no free slot but could grow (call
 * kslot_slots_reserve() first), -ENOSPC if it holds max_entries slots
 * (live or retired) and none is free, or -EINVAL if the table is keyed or
 * being restored (it has no free list).
 */
int __kslot_slots_alloc(struct kslot_slots *s, void *obj, u64 *handle)
	__must_hold(&s->lock)
{
	int ret;

	lockdep_assert_held(&s->lock);
	ret = kslot_slots_no_alloc(s);
	if (ret)
		return ret;
	if (s->free_head == KSLOT_SLOTS_NONE && !kslot_slots_thaw(s, false) &&
	    (s->capacity < s->max_entries || !kslot_slots_thaw(s, true)))
		return s->capacity < s->max_entries ? -ENOMEM : -ENOSPC;
	*handle = kslot_slots_take(s, obj);
	return 0;
}
EXPORT_SYMBOL_GPL(__kslot_slots_alloc);

/**
 * __kslot_slots_replace() - Replace a handle's pointer with the lock held.
 * @s: The table.
 * @handle: A live handle, placeholder or not.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * kslot_slots_replace() for a caller that holds the table lock.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: The previous pointer (NULL for a placeholder), or
 * ERR_PTR(-ENOENT) if @handle is not live in @s.
 */
void *__kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	return kslot_slots_replace_locked(s, handle, obj);
}
EXPORT_SYMBOL_GPL(__kslot_slots_replace);

/**
 * __kslot_slots_remove() - Remove an entry with the lock held.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * kslot_slots_remove() for a caller that holds the table lock.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: The removed pointer, or NULL if @handle was not live (or was a
 * placeholder, which is released all the same).
 */
void *__kslot_slots_remove(struct kslot_slots *s, u64 handle)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	return kslot_slots_remove_locked(s, handle);
}
EXPORT_SYMBOL_GPL(__kslot_slots_remove);

/**
 * __kslot_slots_replace_if() - Replace a pointer if it is still @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder (to
 *	publish a placeholder exactly once).
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * The xa_cmpxchg() pattern with the table lock held.  The handle keeps
 * its generation; the caller owns @old afterwards and must let RCU
 * readers finish with it before freeing it.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0 if the slot held @old and now holds @obj, -ENOENT if @handle
 * is not live in @s, or -EBUSY if the slot holds another pointer than
 * @old; nothing is changed on error.
 */
int __kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			     void *obj)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	return kslot_slots_replace_if_locked(s, handle, old, obj);
}
EXPORT_SYMBOL_GPL(__kslot_slots_replace_if);

/**
 * kslot_slots_replace_if() - Replace a pointer if it is still @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * __kslot_slots_replace_if() with the table lock taken and released.
 *
 * Context: Any context the table's lock flags allow; not with the table
 * lock held.  Takes and releases the table lock.
 * Return: 0 if the slot held @old and now holds @obj, -ENOENT if @handle
 * is not live in @s, or -EBUSY if the slot holds another pointer than
 * @old (nothing is changed on error).
 */
int kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			   void *obj)
{
	unsigned long irqflags;
	int ret;

	/* Zeroed: nothing is live. */
	if (unlikely(!kslot_slots_lock_writes(s)))
		return -ENOENT;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_replace_if_locked(s, handle, old, obj);
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_replace_if);

/**
 * __kslot_slots_remove_if() - Remove an entry if it still holds @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder.
 *
 * The xa_cmpxchg(xa, id, old, NULL) pattern with the table lock held: on
 * success the generation moves on, as with __kslot_slots_remove().
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0 if the entry held @old and is removed, -ENOENT if @handle is
 * not live in @s, or -EBUSY if the slot holds another pointer than @old;
 * nothing is changed on error.
 */
int __kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	return kslot_slots_remove_if_locked(s, handle, old);
}
EXPORT_SYMBOL_GPL(__kslot_slots_remove_if);

/**
 * kslot_slots_remove_if() - Remove an entry if it still holds @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder.
 *
 * __kslot_slots_remove_if() with the table lock taken and released.
 *
 * Context: Any context the table's lock flags allow; not with the table
 * lock held.  Takes and releases the table lock.
 * Return: 0 if the entry held @old and is removed, -ENOENT if @handle is
 * not live in @s, or -EBUSY if the slot holds another pointer than @old
 * (nothing is changed on error).
 */
int kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old)
{
	unsigned long irqflags;
	int ret;

	/* Zeroed: nothing is live. */
	if (unlikely(!kslot_slots_lock_writes(s)))
		return -ENOENT;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_remove_if_locked(s, handle, old);
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_remove_if);

/**
 * kslot_slots_reserve() - Make room for allocations that must not fail.
 * @s: The table.
 * @nr: Allocations to make room for.
 * @gfp: Allocation flags for growing the table.
 *
 * Grows the table, as kslot_slots_alloc() does (chunk by chunk, each
 * allocated with the lock dropped), until it has at least @nr free
 * slots; a full 32-bit table's waiting slots count, and stay waiting
 * until an allocation takes them (the top of kslot_slots.h).  Until they
 * are used, kslot_slots_alloc() with any gfp
 * (GFP_ATOMIC included) and __kslot_slots_alloc() under the lock take
 * them and cannot fail for lack of memory.
 *
 * The room is the table's, not the caller's: a concurrent allocator may
 * take the free slots too.  A caller that counts on @nr allocations
 * succeeding must keep other allocators out between the reservation and
 * its allocations (its own lock, or by reserving for all of them), as
 * with idr_preload() followed by allocations under the caller's lock.
 * Free slots stay free (a later remove may add more); there is nothing to
 * release.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow; not with the table lock held.  Takes and
 * releases the table lock, and drops it to allocate.
 * Return: 0 (also for @nr 0), -ENOMEM if growing the table failed (it
 * may have grown part of the way), or -ENOSPC if @nr slots do not fit
 * under max_entries beside the live and retired ones (the table is not
 * grown), or no longer fit once concurrent allocators took some; -EINVAL
 * if the table is keyed or being restored (it has no free list), a
 * restore that began while this call grew the table included.
 */
int kslot_slots_reserve(struct kslot_slots *s, u32 nr, gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	if (kslot_slots_zeroed(s))
		return nr ? -ENOSPC : 0;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_no_alloc(s);
	if (ret)
		goto out;
	if (nr > s->max_entries - kslot_slots_count(s) - s->retired) {
		ret = -ENOSPC;
		goto out;
	}
	ret = kslot_slots_grow_alloc(s, &irqflags, gfp, kslot_slots_has_room,
				     nr);
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_reserve);
