// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core's keyed tables, reset, checkpoint/restore and dump, for
 * /dev/kslot (module/kslot_dev_lib.h, namespace KSLOT_DEV; docs/core.rst).
 * Built into kslot.ko: they work on the core's internals.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/nospec.h>

#include "kslot_dev_lib.h"
#include "kslot_slots_core.h"

/*
 * Keyed tables and restore.
 *
 * A keyed table (%KSLOT_SLOTS_KEYED) is addressed by its caller: entries
 * go in at the handles another table issued (kslot_slots_insert_at(),
 * kslot_slots_store_at()), lookups and removes are the usual ones, and
 * there is no free list (kslot_slots_alloc() refuses).  A keyed table
 * reads those handles in its own format, which its max_entries chose
 * (kslot_index_bits()): give it the primary's max_entries.  Restore
 * rebuilds any table slot by slot (a checkpoint's live entries, free
 * slots at their generations, retired slots), then its free list.  Both
 * only ever add to the slot words of docs/core.rst: a live
 * word is the handle, a free word names the neighbour slot.
 */

/**
 * __kslot_slots_init_tag() - Initialise a table whose handles carry a given tag.
 * @s: The table.
 * @kind: As kslot_slots_init().
 * @name: As kslot_slots_init().
 * @max_entries: As kslot_slots_init().
 * @flags: As kslot_slots_init(), %KSLOT_SLOTS_KEYED included.
 * @tag: The tag, 0 .. %KSLOT_TAG_MASK (a restored table keeps its old
 *	one), or, for a keyed table only, %KSLOT_SLOTS_TAG_UNBOUND: the first
 *	kslot_slots_insert_at() or kslot_slots_store_at() binds the tag of
 *	its handle.
 * @keys: As __kslot_slots_init().
 *
 * kslot_slots_init() chooses a random tag instead.
 *
 * Context: As kslot_slots_init().
 * Return: 0, or -EINVAL if @tag is out of range (%KSLOT_SLOTS_TAG_UNBOUND
 * without %KSLOT_SLOTS_KEYED included), if @flags holds
 * %KSLOT_SLOTS_HANDLE32, or for
 * kslot_slots_init()'s reasons.
 */
int __kslot_slots_init_tag(struct kslot_slots *s, const char *kind,
			   const char *name, u32 max_entries,
			   unsigned int flags, u32 tag,
			   struct lock_class_key *keys)
{
	int ret;

	/* Keyed and restored tables speak the 64-bit format. */
	if (flags & KSLOT_SLOTS_HANDLE32)
		return -EINVAL;
	if (tag > KSLOT_TAG_MASK &&
	    (tag != KSLOT_SLOTS_TAG_UNBOUND || !(flags & KSLOT_SLOTS_KEYED)))
		return -EINVAL;
	ret = __kslot_slots_init(s, kind, name, max_entries, flags, keys);
	if (!ret)
		s->tag = tag;
	return ret;
}
EXPORT_SYMBOL_NS_GPL(__kslot_slots_init_tag, KSLOT_DEV);

/* Is slot @slot retired?  Called with the lock held. */
static bool kslot_slots_is_retired(const struct kslot_slots *s,
				   const struct kslot_slot *slot)
{
	return !kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)) &&
	       kslot_slots_next(slot) == KSLOT_SLOTS_RETIRED;
}

/*
 * Slot @index, a caller's index that the growth put below the capacity
 * (kslot_slots_has_index()): clamped to it as fs/file.c clamps an fd, so
 * that a mispredicted check reads nothing past the table.  Lock held.
 */
static struct kslot_slot *kslot_slots_at_checked(struct kslot_slots *s,
						 u32 index)
{
	return kslot_slots_at(s, array_index_nospec(index, s->capacity));
}

/* Make free slot @index live under @handle, holding @obj; lock held. */
static void kslot_slots_make_live(struct kslot_slots *s, u32 index,
				  u64 handle, void *obj)
{
	kslot_slots_store(s, kslot_slots_at_checked(s, index), index,
			  KSLOT_SLOTS_LIVE, handle, obj);
}

/*
 * Check @handle for a keyed write and grow the table to its slot.  Called
 * and returns with the lock held (dropped to grow); binds an unbound tag
 * once the checks passed.
 */
static int kslot_slots_keyed_prepare(struct kslot_slots *s, u64 handle,
				     unsigned long *irqflags, gfp_t gfp)
	__must_hold(&s->lock)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u32 tag = kslot_slots_handle_tag(s, handle);
	int ret;

	/* A handle of the table's format: bit 63 and a live generation. */
	if (!(s->flags & KSLOT_SLOTS_KEYED) || !(handle & KSLOT_HANDLE64_BIT) ||
	    !kslot_gen_is_live(kslot_slots_handle_gen(s, handle)) ||
	    index >= s->max_entries ||
	    (s->tag != KSLOT_SLOTS_TAG_UNBOUND && s->tag != tag))
		return -EINVAL;
	ret = kslot_slots_grow(s, irqflags, gfp, kslot_slots_has_index, index);
	if (ret)
		return ret;
	/* The lock was dropped: another insert may have bound the tag. */
	if (s->tag == KSLOT_SLOTS_TAG_UNBOUND)
		WRITE_ONCE(s->tag, tag);
	return s->tag == tag ? 0 : -EINVAL;
}

/**
 * kslot_slots_insert_at() - Make exactly one handle live in a keyed table.
 * @s: A table created with %KSLOT_SLOTS_KEYED.
 * @handle: The handle, issued by another table (the primary).
 * @obj: The pointer to store; NULL stores a placeholder (lookups return
 *	NULL until kslot_slots_replace()).
 * @gfp: Allocation flags for growing the table to @handle's index.
 *
 * The slot @handle names must be free at a generation older than
 * @handle's: then it becomes live under @handle, exactly as if this table
 * had issued it.  An unbound tag (kslot_slots_init_tag()) is bound to
 * @handle's.  The object's contents must be initialised before the call.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0; -EINVAL if the table is not keyed, or @handle is not a
 * 64-bit handle (bit 63 clear) or has an even generation, an index at or
 * beyond max_entries, or a tag other than the table's; -ENOMEM if
 * growing the table failed; -EEXIST if the slot is live (under @handle
 * or any other generation); -ESTALE if the slot's generation is as new
 * as @handle's or newer, or the slot is retired.  The table is unchanged
 * on error (but for growth).
 */
int kslot_slots_insert_at(struct kslot_slots *s, u64 handle, void *obj,
			  gfp_t gfp)
{
	u32 index = kslot_slots_handle_index(s, handle);
	const struct kslot_slot *slot;
	unsigned long irqflags;
	int ret;

	if (kslot_slots_zeroed(s))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_keyed_prepare(s, handle, &irqflags, gfp);
	if (ret)
		goto out;
	slot = kslot_slots_at_checked(s, index);
	if (kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)))
		ret = -EEXIST;
	else if (kslot_slots_is_retired(s, slot) ||
		 kslot_slots_word_gen(s, slot->word) >
		 kslot_slots_handle_gen(s, handle))
		ret = -ESTALE;
	else
		kslot_slots_make_live(s, index, handle, obj);
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_insert_at, KSLOT_DEV);

/**
 * kslot_slots_store_at() - Store a pointer under a handle of a keyed table.
 * @s: A table created with %KSLOT_SLOTS_KEYED.
 * @handle: The handle, issued by another table (the primary).
 * @obj: The pointer to store (NULL for a placeholder, as
 *	kslot_slots_insert_at()).
 * @gfp: Allocation flags for growing the table to @handle's index.
 *
 * kslot_slots_insert_at() that also takes over a live slot: if the slot
 * is live under @handle, its pointer is replaced (kslot_slots_replace());
 * if it is live under an older generation (the primary has since reused
 * the slot), the old entry gives way to @handle, as a remove and an insert
 * would, with no lookup of either handle seeing the other's pointer.
 *
 * Context: As kslot_slots_insert_at().
 * Return: The previous pointer of the slot (NULL if it was free or a
 * placeholder), which the caller owns, or ERR_PTR() of
 * kslot_slots_insert_at()'s errors but -EEXIST: -ESTALE covers a slot live
 * under a newer generation.
 */
void *kslot_slots_store_at(struct kslot_slots *s, u64 handle, void *obj,
			   gfp_t gfp)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u64 gen = kslot_slots_handle_gen(s, handle), cur;
	struct kslot_slot *slot;
	unsigned long irqflags;
	void *old = NULL;
	int ret;

	if (kslot_slots_zeroed(s))
		return ERR_PTR(-EINVAL);
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_keyed_prepare(s, handle, &irqflags, gfp);
	if (ret)
		goto out;
	slot = kslot_slots_at_checked(s, index);
	cur = kslot_slots_word_gen(s, slot->word);
	if (kslot_slots_is_retired(s, slot) || cur > gen) {
		ret = -ESTALE;
	} else if (cur == gen) {
		old = slot->obj;
		kslot_slots_store(s, slot, index, KSLOT_SLOTS_SET, 0, obj);
	} else if (kslot_gen_is_live(cur)) {
		old = slot->obj;
		/*
		 * Through a free word: no lookup pairs a handle and the
		 * other's object.
		 */
		kslot_slots_store(s, slot, index, KSLOT_SLOTS_RELIVE, handle,
				  obj);
	} else {
		kslot_slots_make_live(s, index, handle, obj);
	}
out:
	kslot_slots_unlock(s, irqflags);
	return ret ? ERR_PTR(ret) : old;
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_store_at, KSLOT_DEV);

/*
 * Chain the free slots of @lo .. @hi - 1, lowest first, in front of
 * @head; lock held.  Returns the new head.
 */
static u32 kslot_slots_relink_range(struct kslot_slots *s, u32 lo, u32 hi,
				    u32 head)
{
	u32 i;

	for (i = hi; i-- > lo;) {
		struct kslot_slot *slot = kslot_slots_at(s, i);

		if (kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)) ||
		    kslot_slots_is_retired(s, slot))
			continue;
		kslot_slots_relink_to(s, slot, i, head);
		head = i;
	}
	return head;
}

/**
 * kslot_slots_reset() - Forget every generation of an empty table.
 * @s: The table.
 * @tag: The tag from now on, as kslot_slots_init_tag() takes it.
 *
 * The table becomes as new: its chunks go (freed after a grace period,
 * as at destroy), retired and waiting slots with them, and so does its
 * rejected counter; it keeps its name, flags and lock.  The next handles
 * start over at generation 1 from slot 0, so handles issued before may
 * match again: only reset a table whose old handles are all gone, or
 * whose @tag differs from the old one.  Lookups still running on the old
 * chunks find nothing live (the table was empty).
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock; constant time.
 * Return: 0, -EBUSY if the table holds live entries, or -EINVAL if @tag is
 * out of range (any tag but 0 for a table of 32-bit handles) or the table
 * is zeroed.
 */
int kslot_slots_reset(struct kslot_slots *s, u32 tag)
{
	struct kslot_dir *dir;
	unsigned long irqflags;
	int ret = 0;

	if (tag > KSLOT_TAG_MASK &&
	    (tag != KSLOT_SLOTS_TAG_UNBOUND || !(s->flags & KSLOT_SLOTS_KEYED)))
		return -EINVAL;
	/* A 32-bit table's handles carry no tag. */
	if ((s->flags & KSLOT_SLOTS_HANDLE32) && tag)
		return -EINVAL;
	if (kslot_slots_zeroed(s))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	if (s->count) {
		ret = -EBUSY;
		goto out;
	}
	dir = kslot_slots_dir(s);
	RCU_INIT_POINTER(s->dir, NULL);
	if (dir)
		kslot_slots_free_dir(s, dir);
	s->capacity = 0;
	s->free_head = KSLOT_SLOTS_NONE;
	s->retired = 0;
	s->waiting = 0;
	s->issued = 0;
	s->restoring = false;
	WRITE_ONCE(s->tag, tag);
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_reset, KSLOT_DEV);

/*
 * Start or continue a restore: grow to @index, whose slot must still be
 * as a new table has it.  Called and returns with the lock held.
 */
static int kslot_slots_restore_prepare(struct kslot_slots *s, u32 index,
				       unsigned long *irqflags, gfp_t gfp)
	__must_hold(&s->lock)
{
	const struct kslot_slot *slot;
	int ret;

	/*
	 * Restore speaks the 64-bit format only, under the table lock, and
	 * rebuilds a free list: a keyed table has none (its writers make
	 * free slots live where they are, off any list).
	 */
	if (index >= s->max_entries ||
	    (s->flags & (KSLOT_SLOTS_HANDLE32 | KSLOT_SLOTS_KEYED)))
		return -EINVAL;
	if (!s->restoring && s->count)
		return -EBUSY;
	/* From now on kslot_slots_alloc() refuses: the free list is stale. */
	s->restoring = true;
	ret = kslot_slots_grow(s, irqflags, gfp, kslot_slots_has_index, index);
	if (ret)
		return ret;
	slot = kslot_slots_at_checked(s, index);
	if (slot->word != kslot_slots_free_word(s, index, 0) ||
	    kslot_slots_is_retired(s, slot))
		return -EEXIST;
	return 0;
}

/**
 * kslot_slots_restore_slot() - Recreate one slot of a checkpointed table.
 * @s: The table, new (no live entry) or being restored.
 * @index: The slot.
 * @gen: Its generation: odd recreates a live entry, whose handle is
 *	kslot_slots_handle_make(@s, @index, @gen), with the table's tag
 *	(give the old one and the old max_entries, which chose the handle
 *	format, to kslot_slots_init_tag()); even recreates a free slot at
 *	that generation, so the old handles of the slot stay stale.
 * @obj: The live entry's pointer (NULL for a placeholder); NULL for a
 *	free slot.
 * @gfp: Allocation flags for growing the table to @index.
 *
 * The first restore call puts the table in restore mode: until
 * kslot_slots_restore_done(), kslot_slots_alloc() refuses with -EINVAL
 * (lookups, replace and remove work on what is restored so far).  Each
 * slot may be restored once; slots never restored stay free at
 * generation 0.  The caller serialises the restore calls.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0; -EINVAL if @index is at or beyond max_entries, if @gen is even
 * and @obj is not NULL, if @gen is above the format's largest generation
 * (2^kslot_slots_gen_bits() - 1), if the table issues 32-bit handles
 * (restore speaks the 64-bit format only) or is keyed (it has no free
 * list to rebuild); -EBUSY if the table holds entries and is not being
 * restored; -EEXIST if the slot was restored already; -ENOMEM if growing
 * the table failed.  The table is unchanged on error (but for growth and
 * restore mode).
 */
int kslot_slots_restore_slot(struct kslot_slots *s, u32 index, u64 gen,
			     void *obj, gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	/* Of max_entries: a static table sets its format as it first grows. */
	if ((!kslot_gen_is_live(gen) && obj) || kslot_slots_zeroed(s) ||
	    gen >= BIT_ULL(kslot_gen_bits(s->max_entries, false)))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_restore_prepare(s, index, &irqflags, gfp);
	if (ret)
		goto out;
	if (kslot_gen_is_live(gen)) {
		kslot_slots_make_live(s, index,
				      kslot_slots_handle_make(s, index, gen),
				      obj);
	} else {
		struct kslot_slot *slot = kslot_slots_at_checked(s, index);

		kslot_slots_store(s, slot, index, KSLOT_SLOTS_LINK,
				  kslot_slots_free_word(s, index, gen), slot->obj);
	}
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_restore_slot, KSLOT_DEV);

/**
 * kslot_slots_restore_retired() - Recreate a retired slot.
 * @s: The table, new or being restored (see kslot_slots_restore_slot()).
 * @index: The slot, retired in the checkpoint.
 * @gfp: Allocation flags for growing the table to @index.
 *
 * The slot is retired for good and counted, as a remove at the last
 * generation would have left it.
 *
 * Context: As kslot_slots_restore_slot().
 * Return: 0, or kslot_slots_restore_slot()'s errors but the one of @gen.
 */
int kslot_slots_restore_retired(struct kslot_slots *s, u32 index, gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	if (kslot_slots_zeroed(s))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_restore_prepare(s, index, &irqflags, gfp);
	if (!ret) {
		kslot_slots_relink_to(s, kslot_slots_at_checked(s, index),
				      index, KSLOT_SLOTS_RETIRED);
		s->retired++;
	}
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_restore_retired, KSLOT_DEV);

/*
 * Between two chunks of kslot_slots_restore_done(), which has chained the
 * free slots from @pos up in front of @head, removes pushed slots on the
 * free list: keep those at or above @pos (the walk has passed them) in
 * front of @head and leave out the others, which the walk chains when it
 * gets to them.  Lock held; returns the new head.
 */
static u32 kslot_slots_relink_pushed(struct kslot_slots *s, u32 head, u32 pos)
{
	u32 i = s->free_head, keep = head;

	while (i != head) {
		struct kslot_slot *slot = kslot_slots_at(s, i);
		u32 next = kslot_slots_next(slot);

		if (i >= pos) {
			kslot_slots_relink_to(s, slot, i, keep);
			keep = i;
		}
		i = next;
	}
	s->free_head = keep;
	return keep;
}

/**
 * kslot_slots_restore_done() - End a restore: rebuild the free list.
 * @s: The table.
 *
 * Chains every free slot below the capacity, lowest first (so the next
 * allocations take the lowest free slots, whatever order the checkpoint's
 * free list had; slots removed during the call may come first), and
 * leaves restore mode.  Harmless on a table that is not being restored.
 * The walk holds the table lock for %KSLOT_SLOTS_WALK slots at a
 * time, never for the whole capacity, and reschedules between them;
 * lookups, replace and remove may run between its chunks, as during the
 * restore.  The caller serialises it with the restore calls and
 * kslot_slots_reset().
 *
 * Context: Process context; may sleep (a restore is a bulk load: an
 * image of 2^20 slots is a walk of 2^20 slots).  Takes and releases the
 * table lock, once per chunk of slots.
 */
void kslot_slots_restore_done(struct kslot_slots *s)
{
	u32 head = KSLOT_SLOTS_NONE, hi, lo;
	unsigned long irqflags;

	might_sleep();
	if (kslot_slots_zeroed(s))
		return;
	irqflags = kslot_slots_lock(s);
	if (!s->restoring)
		goto out;
	for (hi = s->capacity; hi; hi = lo) {
		lo = hi - min(hi, KSLOT_SLOTS_WALK);
		head = kslot_slots_relink_range(s, lo, hi, head);
		s->free_head = head;
		if (!lo)
			break;
		kslot_slots_unlock(s, irqflags);
		kslot_slots_test_point(s, KSLOT_SLOTS_TP_WALK);
		cond_resched();
		irqflags = kslot_slots_lock(s);
		if (s->free_head != head)
			head = kslot_slots_relink_pushed(s, head, lo);
	}
	/* An empty table: no slot, an empty list. */
	if (!s->capacity)
		s->free_head = KSLOT_SLOTS_NONE;
	s->restoring = false;
out:
	kslot_slots_unlock(s, irqflags);
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_restore_done, KSLOT_DEV);

/**
 * kslot_slots_dump() - Copy a consistent snapshot of some slots.
 * @s: The table.
 * @start: First slot.
 * @max: Slots @d->slots has room for.
 * @d: Receives the slots, the free-list head and the counts.
 *
 * For debugging tools (the /dev/kslot DUMP command).
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 */
void kslot_slots_dump(struct kslot_slots *s, u32 start, u32 max,
		      struct kslot_slots_dump *d)
{
	unsigned long irqflags;
	u32 i;

	if (kslot_slots_zeroed(s)) {
		d->capacity = 0;
		d->free_head = KSLOT_SLOTS_NONE;
		d->count = 0;
		d->returned = 0;
		return;
	}
	irqflags = kslot_slots_lock(s);
	d->capacity = s->capacity;
	d->free_head = s->free_head;
	d->count = kslot_slots_count(s);
	for (i = 0; start < s->capacity && i < min(max, s->capacity - start);
	     i++) {
		const struct kslot_slot *slot = kslot_slots_at(s, start + i);
		u64 gen = kslot_slots_word_gen(s, slot->word);
		bool live = kslot_gen_is_live(gen);

		d->slots[i].obj = live ? slot->obj : NULL;
		d->slots[i].gen = gen;
		d->slots[i].next = live ? KSLOT_SLOTS_NONE :
					  kslot_slots_next(slot);
	}
	d->returned = i;
	kslot_slots_unlock(s, irqflags);
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_dump, KSLOT_DEV);
