/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slot core's own header, shared by its files and nothing else:
 *
 *   kslot_slots_core.c    storage, growth, the 32-bit waiting slots
 *   kslot_slots.c         the API: init, alloc, lookup, replace, remove
 *   kslot_slots_keyed.c   keyed tables and checkpoint/restore
 *   kslot_slots_debug.c   debugfs, dump, KUnit hooks
 *
 * It holds what the writers of all of them share: the slot words (the
 * top of kslot_slots.h), the handle check, and kslot_slots_store(), the
 * one function that writes a slot (docs/core.rst).
 */
#ifndef _KSLOT_SLOTS_CORE_H
#define _KSLOT_SLOTS_CORE_H

#include <linux/kslot_slots.h>

#include "kslot_internal.h"

/*
 * A zeroed table (never initialised: max_entries 0) is an empty one whose
 * lock was never initialised: the writers answer for it without taking
 * the lock (see "Zero is empty" in kslot_slots.h).
 */
static __always_inline bool kslot_slots_zeroed(const struct kslot_slots *s)
{
	return unlikely(!s->max_entries);
}

/*
 * The writers' one test before the lock (%KSLOT_SLOTS_F_LOCKED): true if
 * the table is initialised; false for a zeroed one, which their slow
 * paths answer for.
 */
static __always_inline bool kslot_slots_lock_writes(const struct kslot_slots *s)
{
	return likely(s->flags & KSLOT_SLOTS_F_LOCKED);
}

/* The directory.  Called with the lock held (or no writer running). */
static inline struct kslot_dir *kslot_slots_dir(struct kslot_slots *s)
{
	return rcu_dereference_protected(s->dir, lockdep_is_held(&s->lock) ||
					 !kslot_slots_lock_writes(s));
}

/*
 * The handle formats (the top of kslot_slots.h): a table's index mask, the
 * bits its tag and generation start at, its generation mask and its tag
 * say everything.
 */

/* The generation of a word or handle (none of a waiting word's stamp). */
static inline u64 kslot_slots_word_gen(const struct kslot_slots *s, u64 word)
{
	return kslot_slots_handle_gen(s, word);
}

/* The largest generation of the table's format (odd: the last live one). */
static inline u64 kslot_slots_gen_max(const struct kslot_slots *s)
{
	return s->gen_bits >> s->gen_shift;
}

/* Bit 63 of every handle and free word of a 64-bit table; 0 if 32-bit. */
static inline u64 kslot_slots_fmt_bit(const struct kslot_slots *s)
{
	return s->flags & KSLOT_SLOTS_HANDLE32 ? 0 : KSLOT_HANDLE64_BIT;
}

/*
 * The handle that issuing free slot @index (word @word) makes: the
 * generation + 1 in place (a free slot's generation is below the last,
 * so the carry stops in the generation: bit 63 of a 64-bit free word
 * stays), the table's tag and @index (the handle formats, the top of
 * kslot_slots.h).
 */
static __always_inline u64 kslot_slots_issue_word(const struct kslot_slots *s,
						  u64 word, u32 index)
{
	return ((word | s->gen_low) + 1) |
	       (u64)s->tag << s->tag_shift | index;
}

/*
 * The free word that ends live @handle of slot @index: its generation +
 * 1, as kslot_slots_free_word(); 0 if that wraps (the format's last
 * generation was used: the slot's cycle ends).  The carry out of the
 * generation leaves none of its bits set, in either format (in the
 * 64-bit one it carries on through bit 63 and out of the word).
 */
static __always_inline u64 kslot_slots_end_word(const struct kslot_slots *s,
						u64 handle, u32 index)
{
	u64 next = (handle | s->gen_low) + 1;

	if (unlikely(!(next & s->gen_bits)))
		return 0;
	return next | (index ^ 1);
}

/* The word of free (or, with @gen 0, retired) slot @index: see the top. */
static inline u64 kslot_slots_free_word(const struct kslot_slots *s,
					u32 index, u64 gen)
{
	return kslot_slots_fmt_bit(s) | gen << s->gen_shift | (index ^ 1);
}

static inline void *kslot_slots_link(u32 next)
{
	return (void *)(unsigned long)next;
}

static inline u32 kslot_slots_next(const struct kslot_slot *slot)
{
	return (unsigned long)slot->obj;
}

/*
 * A 32-bit table's waiting slots (the top of kslot_slots.h).  The word of
 * a waiting slot is its free word at generation 0, with
 * KSLOT_SLOTS_WAIT_BIT and the allocations issued when it began to wait
 * (31 bits) above: it matches no handle of either format, as a free word
 * does.
 */
#define KSLOT_SLOTS_WAIT_BIT	BIT_ULL(63)
#define KSLOT_SLOTS_WAIT_MASK	(BIT(31) - 1)

/* Slot @i (below the capacity), near or far.  Called with the lock held. */
static __always_inline struct kslot_slot *kslot_slots_at(struct kslot_slots *s,
							 u32 i)
{
	struct kslot_dir *dir = kslot_slots_dir(s);

	if (likely(i < dir->nr))
		return kslot_dir_slot(dir, i);
	return kslot_dir_far(dir, i, KSLOT_SLOTS_CHUNK_SHIFT,
			     sizeof(struct kslot_slot));
}

struct kslot_slot *kslot_slots_live_far(struct kslot_slots *s,
					struct kslot_dir *dir, u64 handle);

/* Keyed tables and restores have no free list to allocate from. */
static inline int kslot_slots_no_alloc(const struct kslot_slots *s)
{
	return (s->flags & KSLOT_SLOTS_KEYED) || s->restoring ? -EINVAL : 0;
}

/*
 * The writers' handle check: the slot @handle names if it is live under
 * @handle, else NULL (a rejection, counted as a lookup's).  It is the
 * lookup's clamp and single compare (__kslot_slots_slot(), the top of
 * kslot_slots.h), and its slow path for a far slot; no slot's word is 0,
 * so the null handle never matches.  Called with the lock held.
 */
static __always_inline struct kslot_slot *
kslot_slots_live(struct kslot_slots *s, u64 handle)
{
	struct kslot_dir *dir = kslot_slots_dir(s);
	struct kslot_slot *slot;

	if (unlikely(!dir))
		return NULL;
	slot = (struct kslot_slot *)
		__kslot_slots_slot(dir, dir->nr,
				   kslot_slots_handle_index(s, handle));
	if (likely(slot->word == handle))
		return slot;
	return kslot_slots_live_far(s, dir, handle);
}

/*
 * The slot transitions (docs/core.rst, "One store"): what
 * kslot_slots_store() does to a slot.  A slot is live (its word is its
 * handle, its object the entry's pointer) or not (a free, retired or
 * waiting word, and a link).
 */
enum kslot_slots_op {
	/* Not live -> live: the object, then the handle (release). */
	KSLOT_SLOTS_LIVE,
	/* Live -> not live: the free word, then the link (smp_wmb()). */
	KSLOT_SLOTS_FREE,
	/* Live -> live: another object (release). */
	KSLOT_SLOTS_SET,
	/*
	 * Live -> live under a newer handle (a keyed store over an older
	 * generation): through a free word, so that no lookup pairs either
	 * handle with the other's object; the count does not change.
	 */
	KSLOT_SLOTS_RELIVE,
	/* Not live -> not live: a new word and link (thaw, reset, restore). */
	KSLOT_SLOTS_LINK,
	/* Not live -> not live: a new link only (free list, waiting list). */
	KSLOT_SLOTS_RELINK,
};

/*
 * kslot_slots_store() - Change slot @index (@slot).
 * @s: The table.
 * @slot: The slot.
 * @index: Its index.
 * @op: An enum kslot_slots_op.
 * @word: The new word (LIVE, RELIVE: the handle; FREE and LINK: a word
 *	that matches no handle; SET, RELINK: unused).
 * @obj: The new object (LIVE, SET, RELIVE) or link (FREE, LINK, RELINK).
 *
 * The one place a slot's word and object are written, always under the
 * table lock: it owns their order against lock-free readers
 * (kslot_slots_read() loads the word, then the object, then the word
 * again) and the live count.  Free-list and waiting-list bookkeeping is
 * the caller's.
 */
static __always_inline void
kslot_slots_store(struct kslot_slots *s, struct kslot_slot *slot, u32 index,
		  enum kslot_slots_op op, u64 word, void *obj)
{
	lockdep_assert_held(&s->lock);
	switch (op) {
	case KSLOT_SLOTS_LIVE:
		WRITE_ONCE(slot->obj, obj);
		/* Object before word; see kslot_slots_read(). */
		smp_store_release(&slot->word, word);
		/* kslot_slots_count() reads it without the lock. */
		WRITE_ONCE(s->count, s->count + 1);
		break;
	case KSLOT_SLOTS_FREE:
		WRITE_ONCE(slot->word, word);
		/* Word before object; see kslot_slots_read(). */
		smp_wmb();
		WRITE_ONCE(slot->obj, obj);
		WRITE_ONCE(s->count, s->count - 1);
		break;
	case KSLOT_SLOTS_SET:
		/* Object contents before the pointer. */
		smp_store_release(&slot->obj, obj);
		break;
	case KSLOT_SLOTS_RELIVE:
		WRITE_ONCE(slot->word,
			   kslot_slots_free_word(s, index,
						 kslot_slots_word_gen(s, word) - 1));
		/* Word before object; see kslot_slots_read(). */
		smp_wmb();
		WRITE_ONCE(slot->obj, obj);
		/* Object before the new word, as LIVE. */
		smp_store_release(&slot->word, word);
		break;
	case KSLOT_SLOTS_LINK:
		WRITE_ONCE(slot->word, word);
		WRITE_ONCE(slot->obj, obj);
		break;
	case KSLOT_SLOTS_RELINK:
		WRITE_ONCE(slot->obj, obj);
		break;
	}
}

/* Relink slot @index, not live, to @next.  Lock held. */
static __always_inline void kslot_slots_relink_to(struct kslot_slots *s,
						  struct kslot_slot *slot,
						  u32 index, u32 next)
{
	kslot_slots_store(s, slot, index, KSLOT_SLOTS_RELINK, 0,
			  kslot_slots_link(next));
}

/* kslot_slots_core.c: storage, growth, the 32-bit waiting slots. */
void kslot_slots_init_format(struct kslot_slots *s, u32 max_entries);
size_t kslot_slots_chunk_bytes(u32 slots);
size_t kslot_slots_bytes(struct kslot_slots *s);
size_t kslot_slots_grow_bytes(struct kslot_slots *s);
void kslot_slots_free_dir(struct kslot_slots *s, struct kslot_dir *dir);

/*
 * The growth loop's condition: true once the table has what the writer
 * growing it needs (see kslot_slots_grow()).  Called with the lock held.
 */
typedef bool (*kslot_slots_done_t)(const struct kslot_slots *s, u32 arg);
bool kslot_slots_has_free(const struct kslot_slots *s, u32 unused);
bool kslot_slots_has_index(const struct kslot_slots *s, u32 index);
bool kslot_slots_has_room(const struct kslot_slots *s, u32 nr);
int kslot_slots_grow(struct kslot_slots *s, unsigned long *irqflags,
		     gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock);
int kslot_slots_grow_one(struct kslot_slots *s, unsigned long *irqflags,
			 gfp_t gfp)
	__must_hold(&s->lock);
int kslot_slots_grow_alloc(struct kslot_slots *s, unsigned long *irqflags,
			   gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock);

u32 kslot_slots_free_slots(const struct kslot_slots *s);
bool kslot_slots_thaw(struct kslot_slots *s, bool force);
void kslot_slots_release_last(struct kslot_slots *s, struct kslot_slot *slot,
			      u64 handle);

/* Issue free slot @s->free_head for @obj.  Called with the lock held. */
static __always_inline u64 kslot_slots_take(struct kslot_slots *s, void *obj)
{
	u32 index = s->free_head;
	struct kslot_slot *slot = kslot_slots_at(s, index);
	u64 h;

	s->free_head = kslot_slots_next(slot);
	h = kslot_slots_issue_word(s, slot->word, index);
	kslot_slots_store(s, slot, index, KSLOT_SLOTS_LIVE, h, obj);
	/* An allocation issued (the stamps of 32-bit waits). */
	s->issued++;
	return h;
}

/*
 * Free (or retire) live @slot of @handle: the slot goes to the head of
 * the free list.  Called with the lock held.
 */
static __always_inline void kslot_slots_release(struct kslot_slots *s,
						struct kslot_slot *slot,
						u64 handle)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u64 word = kslot_slots_end_word(s, handle, index);

	/* The format's last generation was used: the slot's cycle ends. */
	if (unlikely(!word)) {
		kslot_slots_release_last(s, slot, handle);
		return;
	}
	kslot_slots_store(s, slot, index, KSLOT_SLOTS_FREE, word,
			  kslot_slots_link(s->free_head));
	s->free_head = index;
}

/* kslot_slots_debug.c: the debugfs file of a named table. */
struct dentry *kslot_slots_debugfs(struct kslot_slots *s, const char *kind,
				   const char *name);

#endif /* _KSLOT_SLOTS_CORE_H */
