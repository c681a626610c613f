/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slot core's own header: the slot words, the writers' handle check
 * and kslot_slots_store(), the one function that writes a slot.
 */
#ifndef _KSLOT_SLOTS_CORE_H
#define _KSLOT_SLOTS_CORE_H

#include <linux/kslot_slots.h>

#include "kslot_internal.h"

/* Never initialised: empty, and its lock may not be taken. */
static __always_inline bool kslot_slots_zeroed(const struct kslot_slots *s)
{
	return unlikely(!s->max_entries);
}

/* The writers' one test before the lock: false for a zeroed table. */
static __always_inline bool kslot_slots_lock_writes(const struct kslot_slots *s)
{
	return likely(s->flags & KSLOT_SLOTS_F_LOCKED);
}

/* Lock held, or no writer running. */
static inline struct kslot_dir *kslot_slots_dir(struct kslot_slots *s)
{
	return rcu_dereference_protected(s->dir, lockdep_is_held(&s->lock) ||
					 !kslot_slots_lock_writes(s));
}

/* The generation bits only, not a waiting word's stamp. */
static inline u64 kslot_slots_word_gen(const struct kslot_slots *s, u64 word)
{
	return kslot_slots_handle_gen(s, word);
}

/* Odd: the last live generation. */
static inline u64 kslot_slots_gen_max(const struct kslot_slots *s)
{
	return s->gen_bits >> s->gen_shift;
}

/* Bit 63 of every handle and free word of a 64-bit table; 0 if 32-bit. */
static inline u64 kslot_slots_fmt_bit(const struct kslot_slots *s)
{
	return s->flags & KSLOT_SLOTS_HANDLE32 ? 0 : KSLOT_HANDLE64_BIT;
}

/* Issuing free @word: one add, whose carry stops in the generation. */
static __always_inline u64 kslot_slots_issue_word(const struct kslot_slots *s,
						  u64 word, u32 index)
{
	return ((word | s->gen_low) + 1) |
	       (u64)s->tag << s->tag_shift | index;
}

/* The free word ending live @handle, or 0 at the end of its cycle. */
static __always_inline u64 kslot_slots_end_word(const struct kslot_slots *s,
						u64 handle, u32 index)
{
	u64 next = (handle | s->gen_low) + 1;

	if (unlikely(!(next & s->gen_bits)))
		return 0;
	return next | (index ^ 1);
}

/* The word of free (or, with @gen 0, retired) slot @index. */
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
 * A waiting slot's word: its free word at generation 0, this bit, and
 * the allocations issued when it began to wait (31 bits) above.
 */
#define KSLOT_SLOTS_WAIT_BIT	BIT_ULL(63)
#define KSLOT_SLOTS_WAIT_MASK	(BIT(31) - 1)

/* Count a nonzero handle that named no live entry; RCU or the lock held. */
static inline void kslot_slots_reject(const struct kslot_dir *dir, u64 handle)
{
	if (handle)
		this_cpu_inc(*dir->rejected);
}

/* Slot @i (below the capacity), near or far.  Lock held. */
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

/* The live slot of @handle, or NULL (counted as rejected).  Lock held. */
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

/* The slot transitions of kslot_slots_store() (docs/core.rst). */
enum kslot_slots_op {
	KSLOT_SLOTS_LIVE,	/* not live -> live */
	KSLOT_SLOTS_FREE,	/* live -> not live */
	KSLOT_SLOTS_SET,	/* live -> live, another object */
	KSLOT_SLOTS_RELIVE,	/* live -> live under a newer handle */
	KSLOT_SLOTS_LINK,	/* not live -> not live, new word and link */
	KSLOT_SLOTS_RELINK,	/* not live -> not live, new link */
};

/*
 * The one place a slot's word and object are written: it owns their
 * order against kslot_slots_read() and the live count.  @word is unused
 * by SET and RELINK; @obj is a link unless the slot is live after.
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
		/* Via a free word: no lookup mixes the handles' objects. */
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

/* The growth loop's condition: true once the writer has what it needs. */
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

static __always_inline u64 kslot_slots_take(struct kslot_slots *s, void *obj)
{
	u32 index = s->free_head;
	struct kslot_slot *slot = kslot_slots_at(s, index);
	u64 h;

	s->free_head = kslot_slots_next(slot);
	h = kslot_slots_issue_word(s, slot->word, index);
	kslot_slots_store(s, slot, index, KSLOT_SLOTS_LIVE, h, obj);
	/* The stamp of a 32-bit wait. */
	s->issued++;
	return h;
}

/* Free live @slot to the head of the free list, or retire it. */
static __always_inline void kslot_slots_release(struct kslot_slots *s,
						struct kslot_slot *slot,
						u64 handle)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u64 word = kslot_slots_end_word(s, handle, index);

	/* The last generation was used: the slot's cycle ends. */
	if (unlikely(!word)) {
		kslot_slots_release_last(s, slot, handle);
		return;
	}
	kslot_slots_store(s, slot, index, KSLOT_SLOTS_FREE, word,
			  kslot_slots_link(s->free_head));
	s->free_head = index;
}

/* kslot_slots_debug.c */
struct dentry *kslot_slots_debugfs(struct kslot_slots *s, const char *kind,
				   const char *name);

#endif /* _KSLOT_SLOTS_CORE_H */
