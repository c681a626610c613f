// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core's API: init, destroy, the writers and the lock-free
 * readers.  The design is in docs/core.rst.
 * Keyed tables and restore, for /dev/kslot, are in kslot_dev_keyed.c.
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
 * @name: If not NULL, expose the counters in debugfs as kslot/@kind-@name
 *	(a duplicate name is not exposed).
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_SLOTS_LOCK_BH or %KSLOT_SLOTS_LOCK_IRQ (not both),
 *	%KSLOT_SLOTS_ACCOUNT, %KSLOT_SLOTS_HANDLE32, %KSLOT_SLOTS_KEYED.
 * @keys: The lockdep classes of the table lock, one per lock mode.
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
 * @fn: If not NULL, called for every live entry, without the table lock.
 * @data: Passed to @fn.
 *
 * The caller ensures no writer runs and no new lookup starts.  Running
 * lookups may still read @s and return the objects: @fn frees them, and
 * the caller frees or reuses @s, only a grace period later (kfree_rcu()).
 *
 * Context: Process context for a named table, else any that @fn allows.
 */
void kslot_slots_destroy(struct kslot_slots *s,
			 void (*fn)(void *obj, u64 handle, void *data),
			 void *data)
{
	/* No writer runs: the caller's promise. */
	struct kslot_dir *dir = rcu_dereference_protected(s->dir, true);
	u32 i;

	/* Zeroed, or destroyed already. */
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
	/* A late writer fails as on a zeroed table; lookups read the format. */
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

static __always_inline void kslot_slots_set(struct kslot_slots *s,
					    struct kslot_slot *slot,
					    u64 handle, void *obj)
{
	kslot_slots_store(s, slot, kslot_slots_handle_index(s, handle),
			  KSLOT_SLOTS_SET, 0, obj);
}

static __always_inline int
kslot_slots_replace_locked(struct kslot_slots *s, u64 handle, void *obj,
			   void **old)
{
	struct kslot_slot *slot = kslot_slots_live(s, handle);

	if (!slot)
		return -ENOENT;
	if (old)
		*old = slot->obj;
	kslot_slots_set(s, slot, handle, obj);
	return 0;
}

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

/* A table without %KSLOT_SLOTS_F_ALLOC: zeroed or keyed. */
static noinline int kslot_slots_alloc_other(struct kslot_slots *s)
{
	return kslot_slots_zeroed(s) ? -ENOSPC : -EINVAL;
}

/* No free slot, or a restore running: grow, then take a slot. */
static noinline int kslot_slots_alloc_grow(struct kslot_slots *s, u64 *handle,
					   void *obj, gfp_t gfp,
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

static noinline int kslot_slots_alloc_locked(struct kslot_slots *s,
					     u64 *handle, void *obj, gfp_t gfp)
{
	unsigned long irqflags = kslot_slots_lock(s);

	if (unlikely(s->free_head == KSLOT_SLOTS_NONE || s->restoring))
		return kslot_slots_alloc_grow(s, handle, obj, gfp, irqflags);
	*handle = kslot_slots_take(s, obj);
	kslot_slots_unlock(s, irqflags);
	return 0;
}

/**
 * kslot_slots_alloc() - Store a pointer and issue a handle for it.
 * @s: The table.
 * @handle: Set to the new handle on success; untouched on failure.
 * @obj: The pointer, or NULL for a placeholder.  Lookups may return it
 *	before this returns: initialise it first.
 * @gfp: Allocation flags for growing the table.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the lock flags allow.  Takes the table lock; drops it to grow.
 * Return: 0, -ENOMEM if no slot is free and growing failed, -ENOSPC if
 * max_entries slots are live or retired and none is free, or -EINVAL if
 * the table is keyed or being restored.
 */
int kslot_slots_alloc(struct kslot_slots *s, u64 *handle, void *obj,
		      gfp_t gfp)
{
	/* Both tail calls: neither path pays the other's stack frame. */
	if (likely(s->flags & KSLOT_SLOTS_F_ALLOC))
		return kslot_slots_alloc_locked(s, handle, obj, gfp);
	return kslot_slots_alloc_other(s);
}
EXPORT_SYMBOL_GPL(kslot_slots_alloc);

/**
 * kslot_slots_replace() - Replace the pointer a handle refers to.
 * @s: The table.
 * @handle: A live handle, placeholder or not.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 * @old: If not NULL, set to the previous pointer (NULL for a
 *	placeholder); untouched on error.
 *
 * The handle keeps its generation.  Lookups see the old or the new
 * pointer; the caller owns the old one and must let RCU readers finish
 * with it before freeing it.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 * Return: 0, or -ENOENT if @handle is not live in @s.
 */
int kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj,
			void **old)
{
	unsigned long irqflags;
	int ret;

	/* Zeroed: nothing is live. */
	if (unlikely(!kslot_slots_lock_writes(s)))
		return -ENOENT;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_replace_locked(s, handle, obj, old);
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_replace);

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
 * Context: Any context the lock flags allow; takes and releases the lock.
 * Return: The removed pointer, or NULL if @handle was not live or was a
 * placeholder (removed all the same; kslot_slots_remove_if() with a NULL
 * @old tells the two apart).
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
 * @handles: Receives the handle of each pointer issued, in order.
 * @objs: The pointers (NULL entries are placeholders).
 * @nr: How many.
 * @gfp: Allocation flags for growing the table.
 *
 * Context: As kslot_slots_alloc(); the lock is dropped (and the CPU yielded
 * if @gfp may sleep) every %KSLOT_SLOTS_BULK entries.
 * Return: The number of handles issued, 1 .. @nr (0 for @nr 0); if not
 * even the first was, kslot_slots_alloc()'s error (-ENOMEM, -ENOSPC or
 * -EINVAL); -EINVAL if @nr is above %INT_MAX.
 */
int kslot_slots_alloc_bulk(struct kslot_slots *s, u64 *handles,
			   void *const *objs, u32 nr, gfp_t gfp)
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
 * @objs: Receives the pointer each removed entry held, in order.
 *
 * Context: As kslot_slots_remove(); the lock is dropped every
 * %KSLOT_SLOTS_BULK entries.
 * Return: The number of entries removed: @nr, or the index of the first
 * handle not live; 0 if @nr is above %INT_MAX.
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
 * kslot_slots_lookup() - Find the pointer a handle refers to.
 * @s: The table.
 * @handle: A handle, valid or not.
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
 * kslot_slots_get() - Look up a handle and take a kref on the object.
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
void *kslot_slots_get(struct kslot_slots *s, u64 handle,
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
	/* The increment is relaxed: order the re-check after it. */
	smp_acquire__after_ctrl_dep();
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_GET);
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
	/* Outside the read section: a last put's @release may sleep. */
	if (stale) {
		kref_put(ref, release);
		obj = NULL;
		/* Still live, replaced meanwhile: as __fget_files_rcu(). */
		if (live)
			goto again;
	}
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_slots_get);

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
 * kslot_slots_find() - Find the first published entry in an index range.
 * @s: The table.
 * @index: Slot to start from; set to the slot found.
 * @max: Last slot to look at (inclusive; %U32_MAX for no limit).
 * @handle: Set to the handle of the entry found.
 *
 * The xa_find() of a table: the published entry with the lowest index
 * that is at least *@index and at most @max.  Placeholders are skipped.
 * Each entry returned was live at some point during the call.  The scan
 * runs up to @max or the end of the table: kslot_slots_find_range()
 * bounds the work of one call instead.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The pointer, or NULL when no published entry is in *@index ..
 * @max (then *@index and *@handle are unchanged).
 */
void *kslot_slots_find(struct kslot_slots *s, u32 *index, u32 max,
		       u64 *handle)
{
	u32 i = *index;
	/* No index reaches KSLOT_MAX_ENTRIES: max + 1 cannot wrap. */
	void *found = kslot_slots_find_range(s, &i,
					     min_t(u32, max, KSLOT_INDEX_MAX) + 1,
					     handle);

	if (found)
		*index = i;
	return found;
}
EXPORT_SYMBOL_GPL(kslot_slots_find);

/**
 * __kslot_slots_alloc() - Issue a handle with the table lock held.
 * @s: The table.
 * @handle: Set to the new handle on success; untouched on failure.
 * @obj: The pointer, or NULL for a placeholder; initialised.
 *
 * Never allocates: kslot_slots_reserve() provides the free slots.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0, -ENOMEM if no slot is free but the table could grow,
 * -ENOSPC if max_entries slots are live or retired and none is free, or
 * -EINVAL if the table is keyed or being restored.
 */
int __kslot_slots_alloc(struct kslot_slots *s, u64 *handle, void *obj)
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
 * @old: If not NULL, set to the previous pointer (NULL for a
 *	placeholder); untouched on error.
 *
 * kslot_slots_replace() for a caller that holds the table lock.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0, or -ENOENT if @handle is not live in @s.
 */
int __kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj,
			  void **old)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	return kslot_slots_replace_locked(s, handle, obj, old);
}
EXPORT_SYMBOL_GPL(__kslot_slots_replace);

/**
 * __kslot_slots_remove() - Remove an entry with the lock held.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: As kslot_slots_remove().
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
 * @old: The pointer the slot must hold; NULL for a placeholder.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * As xa_cmpxchg().  The caller owns @old and frees it after a grace period.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0, -ENOENT if @handle is not live in @s, or -EBUSY if the slot
 * holds another pointer than @old; nothing is changed on error.
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
 * Context: Any context the lock flags allow; takes and releases the lock.
 * Return: 0, -ENOENT if @handle is not live in @s, or -EBUSY if the slot
 * holds another pointer than @old; nothing is changed on error.
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
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0, -ENOENT if @handle is not live in @s, or -EBUSY if the slot
 * holds another pointer than @old; nothing is changed on error.
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
 * Context: Any context the lock flags allow; takes and releases the lock.
 * Return: 0, -ENOENT if @handle is not live in @s, or -EBUSY if the slot
 * holds another pointer than @old; nothing is changed on error.
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
 * Grows the table until @nr slots are free for allocations with any gfp.
 * As with idr_preload(), the room is the table's: a caller counting on
 * it keeps other allocators out.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the lock flags allow.  Takes the table lock; drops it to grow.
 * Return: 0 (also for @nr 0), -ENOMEM if growing failed (it may have
 * grown part of the way), -ENOSPC if @nr slots do not fit under
 * max_entries beside the live and retired ones, or -EINVAL if the table
 * is keyed or being restored.
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
