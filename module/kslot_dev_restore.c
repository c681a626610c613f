// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_dense's init with a tag and restore, for /dev/kslot
 * (module/kslot_dev_lib.h, namespace KSLOT_DEV): a checkpointed table is
 * recreated slot by slot, as the core restores its slots
 * (kslot_dev_keyed.c), each live entry's value appended to the packed
 * array.  Built into kslot.ko; the rest of the table is in kslot_dense.c.
 */
#include <linux/export.h>
#include <linux/kslot_dense.h>
#include <linux/string.h>

#include "kslot_dense_internal.h"
#include "kslot_dev_lib.h"

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
	int ret;

	if (tag > KSLOT_TAG_MASK)
		return -EINVAL;
	ret = kslot_dense_setup(dense, elem_size, max_entries, flags, keys);
	if (ret)
		return ret;
	return kslot_slots_init_tag(&dense->slots, "dense", name, max_entries,
				    flags, tag);
}
EXPORT_SYMBOL_NS_GPL(__kslot_dense_init_tag, KSLOT_DEV);

/**
 * kslot_dense_restore_slot() - Recreate one slot of a checkpointed table.
 * @dense: The table, new (kslot_dense_init_tag() with the old tag and
 *	max_entries, no value inserted) or being restored.
 * @index: The slot.
 * @gen: Its generation: odd recreates a live entry, whose handle is
 *	kslot_slots_handle_make() of @index and @gen in the table's format
 *	and tag; even
 *	recreates a free slot at that generation, so that the old handles of
 *	the slot stay stale.
 * @elem: The live entry's value (elem_size bytes, not pointing into the
 *	table), or NULL for a zeroed one; NULL for a free slot.
 * @gfp: Allocation flags for growing the slots to @index and the packed
 *	array by one value.
 *
 * The first restore call puts the table in restore mode: until
 * kslot_dense_restore_done(), inserts and kslot_dense_reserve() fail with
 * -EINVAL; lookups, updates and erases work on what is restored so far.
 * A live entry's value goes to the end of the packed array, so the packed
 * order is the order of the restore calls (a checkpoint's packed order is
 * not restored).  Each slot may be restored once; slots never restored
 * stay free at generation 0.  The caller serialises the restore calls.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0; -EINVAL if @index is at or beyond max_entries, @gen is
 * even and @elem is not NULL, or @gen is above the format's largest;
 * -EBUSY if the table holds values and is not being restored; -EEXIST if
 * the slot was restored already; -ENOSPC if the packed array is full
 * (max_entries values); -ENOMEM if growing failed.  The table is
 * unchanged on error (but for growth and restore mode).
 */
int kslot_dense_restore_slot(struct kslot_dense *dense, u32 index, u64 gen,
			     const void *elem, gfp_t gfp)
{
	unsigned long irqflags;
	u64 handle;
	void *dst;
	u32 pos;
	int ret;

	if (!kslot_gen_is_live(gen)) {
		if (elem)
			return -EINVAL;
		return kslot_slots_restore_slot(&dense->slots, index, gen, NULL,
						gfp);
	}
	/* Room first: its failure leaves the slots as they were. */
	irqflags = kslot_dense_lock(dense);
	ret = kslot_dense_make_room(dense, 1, gfp, &irqflags);
	kslot_dense_unlock(dense, irqflags);
	if (ret)
		return ret;
	/* The slot, a placeholder (NULL): lookups skip it until published. */
	ret = kslot_slots_restore_slot(&dense->slots, index, gen, NULL, gfp);
	if (ret)
		return ret;
	handle = kslot_slots_handle_make(&dense->slots, index, gen);
	irqflags = kslot_dense_lock(dense);
	/* Inserts refuse while restoring: the room is still there. */
	ret = kslot_dense_make_room(dense, 1, gfp, &irqflags);
	if (ret) {
		kslot_slots_remove(&dense->slots, handle);
		goto out;
	}
	pos = dense->count;
	dst = kslot_dense_elem(dense, pos);
	if (elem)
		memcpy(dst, elem, dense->elem_size);
	else
		memset(dst, 0, dense->elem_size);
	*kslot_dense_rev(dense, pos) = handle;
	WRITE_ONCE(dense->count, pos + 1);
	/* Publish: the value before the slot's position, as insert. */
	WARN_ON_ONCE(kslot_slots_replace(&dense->slots, handle,
					 kslot_dense_pos_obj(pos), NULL));
out:
	kslot_dense_unlock(dense, irqflags);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kslot_dense_restore_slot, KSLOT_DEV);

/**
 * kslot_dense_restore_retired() - Recreate a retired slot.
 * @dense: The table, new or being restored (see kslot_dense_restore_slot()).
 * @index: The slot, retired in the checkpoint.
 * @gfp: Allocation flags for growing the slots to @index.
 *
 * The slot is retired for good and counted, as an erase at the last
 * generation would have left it (kslot_slots_restore_retired()).
 *
 * Context: As kslot_dense_restore_slot().
 * Return: 0; -EINVAL if @index is at or beyond max_entries; -EBUSY if the
 * table holds values and is not being restored; -EEXIST if the slot was
 * restored already; -ENOMEM if growing the slots failed.
 */
int kslot_dense_restore_retired(struct kslot_dense *dense, u32 index,
				gfp_t gfp)
{
	return kslot_slots_restore_retired(&dense->slots, index, gfp);
}
EXPORT_SYMBOL_NS_GPL(kslot_dense_restore_retired, KSLOT_DEV);

/**
 * kslot_dense_restore_done() - End a restore: rebuild the free list.
 * @dense: The table.
 *
 * Chains every free slot, lowest first (kslot_slots_restore_done()), and
 * leaves restore mode: inserts work again.  Harmless on a table that is
 * not being restored.
 *
 * Context: Process context; may sleep.  Takes and releases the core's
 * lock, for a walk of every slot, and reschedules between its chunks.
 */
void kslot_dense_restore_done(struct kslot_dense *dense)
{
	kslot_slots_restore_done(&dense->slots);
}
EXPORT_SYMBOL_NS_GPL(kslot_dense_restore_done, KSLOT_DEV);
