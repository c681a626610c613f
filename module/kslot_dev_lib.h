/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kslot.ko offers /dev/kslot alone, and not the drivers: keyed slot
 * tables and their reset, the checkpoint/restore of a slot table and of a
 * kslot_dense, the slot dump, the handle of a slot at a generation (what a
 * restore recreates), and the account a table frees its memory through
 * (the device's charge).  kslot_dev.ko and the KUnit suites include this
 * header and import the KSLOT_DEV symbol namespace these functions are
 * exported in (MODULE_IMPORT_NS(KSLOT_DEV)); inside kslot.ko,
 * kslot_secondary builds on the keyed tables.
 *
 *   kslot_dev_keyed.c    the slot core's: keyed tables, reset, restore,
 *                        the dump
 *   kslot_dev_restore.c  kslot_dense's: init with a tag, restore
 *
 * Rules (as the tables of kslot_slots.h and kslot_dense.h):
 *
 * +-------------------------------+----------------------+------------------+
 * | operation                     | lock                 | may sleep        |
 * +-------------------------------+----------------------+------------------+
 * | kslot_slots_insert_at(),      | table lock, dropped  | only if gfp      |
 * | kslot_slots_store_at(),       | to grow, as alloc    | allows           |
 * | kslot_slots_restore_slot(),   |                      |                  |
 * | kslot_slots_restore_retired(),|                      |                  |
 * | kslot_dense_restore_slot(),   |                      |                  |
 * | kslot_dense_restore_retired() |                      |                  |
 * | kslot_slots_reset(),          | table lock           | no               |
 * | kslot_slots_dump()            |                      |                  |
 * | kslot_slots_restore_done(),   | the core's lock,     | yes: reschedules |
 * | kslot_dense_restore_done()    | dropped every        | between chunks   |
 * |                               | %KSLOT_SLOTS_WALK    |                  |
 * +-------------------------------+----------------------+------------------+
 *
 * Keyed tables and restore, and the reasons behind them: docs/core.rst.
 */
#ifndef _KSLOT_DEV_LIB_H
#define _KSLOT_DEV_LIB_H

#include <linux/gfp.h>
#include <linux/kslot_dense.h>
#include <linux/kslot_lock.h>
#include <linux/kslot_slots.h>
#include <linux/types.h>

/**
 * struct kslot_slots_dump_slot - One slot as kslot_slots_dump() shows it.
 * @obj: The stored pointer (NULL unless live).
 * @gen: The slot's generation (0 for a retired or waiting one).
 * @next: Next free slot (or %KSLOT_SLOTS_NONE) of a free slot, next
 *	waiting slot of a waiting one (32-bit tables), %KSLOT_SLOTS_RETIRED
 *	for a retired one, %KSLOT_SLOTS_NONE if live.
 */
struct kslot_slots_dump_slot {
	void *obj;
	u64 gen;
	u32 next;
};

/**
 * struct kslot_slots_dump - A snapshot of part of a table.
 * @slots: Caller-allocated array receiving the slots.
 * @capacity: Slots allocated in the table.
 * @free_head: First free slot or %KSLOT_SLOTS_NONE.
 * @count: Live entries.
 * @returned: Slots written to @slots.
 */
struct kslot_slots_dump {
	struct kslot_slots_dump_slot *slots;
	u32 capacity;
	u32 free_head;
	u32 count;
	u32 returned;
};

/**
 * kslot_slots_handle_make() - The handle of a slot at a generation.
 * @s: The table whose format and tag apply.
 * @index: The slot, below max_entries.
 * @gen: Its generation, odd and at most the table's largest
 *	(2^kslot_slots_gen_bits() - 1).
 *
 * The handle the table issued (or would issue) for slot @index at
 * generation @gen: what a restore recreates, and what a test forges.
 *
 * Context: Any context.
 * Return: The handle.
 */
static inline u64 kslot_slots_handle_make(const struct kslot_slots *s,
					  u32 index, u64 gen)
{
	u64 f = s->flags & KSLOT_SLOTS_HANDLE32 ? 0 : KSLOT_HANDLE64_BIT;

	return f | (gen << s->gen_shift & s->gen_bits) |
	       (u64)(READ_ONCE(s->tag) & KSLOT_TAG_MASK) << s->tag_shift |
	       (index & s->index_mask);
}

/**
 * kslot_slots_set_free_acct() - Send the memory a table stops using to an
 *	account.
 * @s: The table, initialised (initialising it clears its account).
 * @acct: The account, or NULL to go back to call_rcu().
 *
 * Every directory the table replaces as it grows, its chunks and
 * directory at destroy or reset, and a kslot_dense table's packed arrays
 * too, then go to @acct->queue(), which must outlive the table's last call.
 *
 * Context: Any context, before the table's first writer.
 */
static inline void kslot_slots_set_free_acct(struct kslot_slots *s,
					     struct kslot_free_acct *acct)
{
	s->free_acct = acct;
}

/* The slot core's: kslot_dev_keyed.c. */
int __kslot_slots_init_tag(struct kslot_slots *s, const char *kind,
			   const char *name, u32 max_entries,
			   unsigned int flags, u32 tag,
			   struct lock_class_key *keys);

/**
 * kslot_slots_init_tag() - Initialise a tagged table, lock in the caller's class.
 * @s: The table.
 * @kind: As __kslot_slots_init_tag().
 * @name: As __kslot_slots_init_tag().
 * @max_entries: As __kslot_slots_init_tag().
 * @flags: As __kslot_slots_init_tag().
 * @tag: As __kslot_slots_init_tag().
 *
 * Context: As __kslot_slots_init_tag().
 * Return: As __kslot_slots_init_tag().
 */
#define kslot_slots_init_tag(s, kind, name, max_entries, flags, tag)	\
	__kslot_slots_init_tag(s, kind, name, max_entries, flags, tag,	\
			       kslot_lock_classes())
int kslot_slots_insert_at(struct kslot_slots *s, u64 handle, void *obj,
			  gfp_t gfp);
void *kslot_slots_store_at(struct kslot_slots *s, u64 handle, void *obj,
			   gfp_t gfp);
int kslot_slots_reset(struct kslot_slots *s, u32 tag);
int kslot_slots_restore_slot(struct kslot_slots *s, u32 index, u64 gen,
			     void *obj, gfp_t gfp);
int kslot_slots_restore_retired(struct kslot_slots *s, u32 index, gfp_t gfp);
void kslot_slots_restore_done(struct kslot_slots *s);
void kslot_slots_dump(struct kslot_slots *s, u32 start, u32 max,
		      struct kslot_slots_dump *d);

/* kslot_dense's: kslot_dev_restore.c. */
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

#endif /* _KSLOT_DEV_LIB_H */
