/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slot core's own header, shared by its files and nothing else:
 *
 *   kslot_slots_core.c    storage, growth, the 32-bit waiting slots
 *   kslot_slots.c         the API: init, alloc, lookup, replace, remove
 *   kslot_slots_percpu.c  per-CPU magazines
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
 * KUnit's hook at the test points of kslot_internal.h, or NULL: one load
 * and an untaken branch where no case sets it.
 */
#if IS_ENABLED(CONFIG_KUNIT)
extern kslot_slots_test_hook_t kslot_slots_test_hook;

static inline void kslot_slots_test_point(struct kslot_slots *s,
					  enum kslot_slots_test_point point)
{
	kslot_slots_test_hook_t fn = READ_ONCE(kslot_slots_test_hook);

	if (unlikely(fn))
		fn(s, point);
}
#else
static inline void kslot_slots_test_point(struct kslot_slots *s,
					  enum kslot_slots_test_point point)
{
}
#endif

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
 * they take the table lock; false for a per-CPU table with magazines and
 * for a zeroed one, which their slow paths answer for.
 */
static __always_inline bool kslot_slots_lock_writes(const struct kslot_slots *s)
{
	return likely(s->flags & KSLOT_SLOTS_F_LOCKED);
}

static inline struct kslot_slots_table *
kslot_slots_hdr(struct kslot_slot *slots)
{
	return container_of(slots, struct kslot_slots_table, slots[0]);
}

static inline struct kslot_slot *kslot_slots_locked(struct kslot_slots *s)
{
	return rcu_dereference_protected(s->slots, lockdep_is_held(&s->lock));
}

/*
 * The handle formats (the top of kslot_slots.h): a table's index mask, the
 * bit its generation starts at and its tag say everything.
 */

/* The generation of a word or handle (32-bit: 31 - gen_shift bits). */
static inline u32 kslot_slots_word_gen(const struct kslot_slots *s, u64 word)
{
	return word >> s->gen_shift;
}

/* The largest generation of the table's format (odd: the last live one). */
static inline u32 kslot_slots_gen_max(const struct kslot_slots *s)
{
	if (s->flags & KSLOT_SLOTS_HANDLE32)
		return BIT(31 - s->gen_shift) - 1;
	return U32_MAX;
}

/*
 * The handle that issuing free slot @index (word @word) makes: the
 * generation + 1 in place (a free slot's generation is below the last),
 * the table's tag and @index (the handle formats, the top of
 * kslot_slots.h).
 */
static __always_inline u64 kslot_slots_issue_word(const struct kslot_slots *s,
						  u64 word, u32 index)
{
	return ((word | s->gen_low) + 1) |
	       (u64)s->tag << KSLOT_INDEX_BITS | index;
}

/*
 * The free word that ends live @handle of slot @index: its generation +
 * 1, as kslot_slots_free_word(); 0 if that wraps (the format's last
 * generation was used: the slot's cycle ends).  The carry out of the
 * generation leaves none of its bits set, in either format.
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
					u32 index, u32 gen)
{
	return (u64)gen << s->gen_shift | (index ^ 1);
}

static inline void *kslot_slots_link(u32 next)
{
	return (void *)(unsigned long)next;
}

static inline u32 kslot_slots_next(const struct kslot_slot *slot)
{
	/* Per-CPU tables: the dump reads it while magazine writers write. */
	return (unsigned long)READ_ONCE(slot->obj);
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

/*
 * Per-CPU tables (the top of kslot_slots.h).  Their magazines need
 * try_cmpxchg128() on a slot: without it a per-CPU table has none, and
 * every writer takes the table lock.
 */
#if defined(system_has_cmpxchg128) && defined(CONFIG_ARCH_SUPPORTS_INT128)
static inline bool kslot_slots_can_mag(void)
{
	return system_has_cmpxchg128();
}

/* A slot's two fields as one u128, as they lie in memory. */
static inline u128 kslot_slots_pack(u64 word, void *obj)
{
	u128 o = (unsigned long)obj;

	return IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? (u128)word << 64 | o :
						   o << 64 | word;
}

/*
 * Change @slot from {@cur->word, @cur->obj} to {@word, @obj} in one
 * try_cmpxchg128().  On failure @cur is set to what the slot holds.
 */
static __always_inline bool kslot_slots_cas2(struct kslot_slot *slot,
					     struct kslot_slot *cur,
					     u64 word, void *obj)
{
	u128 o = kslot_slots_pack(cur->word, cur->obj);

	if (try_cmpxchg128((u128 *)slot, &o, kslot_slots_pack(word, obj)))
		return true;
	if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN)) {
		cur->word = o >> 64;
		cur->obj = (void *)(unsigned long)(u64)o;
	} else {
		cur->word = (u64)o;
		cur->obj = (void *)(unsigned long)(u64)(o >> 64);
	}
	return false;
}
#else
static inline bool kslot_slots_can_mag(void)
{
	return false;
}

static inline bool kslot_slots_cas2(struct kslot_slot *slot,
				    struct kslot_slot *cur, u64 word,
				    void *obj)
{
	/* Never called: a table without magazines has no lock-free writer. */
	return false;
}
#endif

/*
 * This CPU's magazine lock, as the table's lock flags say: a local lock,
 * with interrupts or softirqs disabled too if writers run there.  Its
 * holder is an RCU reader, which is what the quiesce waits for
 * (kslot_slots_quiesce()).  Returns the saved interrupt flags.
 */
static __always_inline unsigned long kslot_slots_mag_lock(struct kslot_slots *s)
{
	unsigned long irqflags = 0;

	/* One test for the commonest mode, writers in process context. */
	if (likely(!(s->flags & (KSLOT_SLOTS_LOCK_IRQ | KSLOT_SLOTS_LOCK_BH)))) {
		local_lock(&s->mags->lock);
	} else if (s->flags & KSLOT_SLOTS_LOCK_IRQ) {
		local_lock_irqsave(&s->mags->lock, irqflags);
	} else {
		local_bh_disable();
		local_lock(&s->mags->lock);
	}
	return irqflags;
}

static __always_inline void kslot_slots_mag_unlock(struct kslot_slots *s,
						   unsigned long irqflags)
{
	if (likely(!(s->flags & (KSLOT_SLOTS_LOCK_IRQ | KSLOT_SLOTS_LOCK_BH)))) {
		local_unlock(&s->mags->lock);
	} else if (s->flags & KSLOT_SLOTS_LOCK_IRQ) {
		local_unlock_irqrestore(&s->mags->lock, irqflags);
	} else {
		local_unlock(&s->mags->lock);
		local_bh_enable();
	}
}

/*
 * A writer changed slot @i of the current table: if a growth has copied
 * it already, write the copy too.  Called with the lock held.
 */
static __always_inline void kslot_slots_mirror(struct kslot_slots *s,
					       const struct kslot_slot *slot,
					       u32 i)
{
	if (kslot_grow_copied(&s->grow, i)) {
		struct kslot_slots_table *next = s->grow.next;

		next->slots[i] = *slot;
	}
}

/* The writable slot @i of the current table.  Called with the lock held. */
static __always_inline struct kslot_slot *kslot_slots_at(struct kslot_slots *s,
							 u32 i)
{
	return &kslot_slots_locked(s)[i];
}

/* Keyed tables and restores have no free list to allocate from. */
static inline int kslot_slots_no_alloc(const struct kslot_slots *s)
{
	return (s->flags & KSLOT_SLOTS_KEYED) || s->restoring ? -EINVAL : 0;
}

/*
 * The writers' handle check: the slot of table @slots (NULL before the
 * first growth) that @handle names if it is live under @handle, else NULL
 * (a rejection, counted as a lookup's).  It is the lookup's clamp and
 * single compare (__kslot_slots_slot(), the top of kslot_slots.h); no
 * slot's word is 0, so the null handle never matches.
 */
static __always_inline struct kslot_slot *
kslot_slots_match(struct kslot_slots *s, struct kslot_slot *slots, u64 handle)
{
	struct kslot_slot *slot;

	if (unlikely(!slots))
		goto reject;
	slot = (struct kslot_slot *)
		__kslot_slots_slot(slots, kslot_slots_handle_index(s, handle));
	/* Per-CPU tables: magazine writers change words without the lock. */
	if (likely(READ_ONCE(slot->word) == handle))
		return slot;
reject:
	kslot_slots_count_reject(s, handle);
	return NULL;
}

/* The live slot @handle names, or NULL.  Called with the lock held. */
static __always_inline struct kslot_slot *
kslot_slots_live(struct kslot_slots *s, u64 handle)
{
	return kslot_slots_match(s, kslot_slots_locked(s), handle);
}

/*
 * The slot transitions (docs/core.rst, "One store"): what
 * kslot_slots_store() does to a slot.  A slot is live (its word is its
 * handle, its object the entry's pointer) or not (a free, retired,
 * waiting or cached word, and a link).
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
	/* Not live -> not live: a new link only (free list, magazines). */
	KSLOT_SLOTS_RELINK,
	KSLOT_SLOTS_OP_MASK = 7,
	/*
	 * FREE and SET of a per-CPU table, whose magazine writers bypass
	 * the table lock: only if the slot still holds its handle (and the
	 * object given, unless KSLOT_SLOTS_ANY), in one atomic, so that of
	 * two racing writers exactly one wins.
	 */
	KSLOT_SLOTS_ATOMIC = 8,
	KSLOT_SLOTS_ANY = 16,
};

/*
 * kslot_slots_store() - Change slot @index (@slot) of the current table.
 * @s: The table.
 * @m: The magazine of the writer, locked (the table's bypass is 0, so no
 *	growth runs: no mirror), or NULL for a writer under the table lock.
 * @slot: The slot.
 * @index: Its index.
 * @op: An enum kslot_slots_op, with its modifiers.
 * @word: The new word (LIVE, RELIVE: the handle; FREE and LINK: a word
 *	that matches no handle; SET, RELINK: unused).
 * @obj: The new object (LIVE, SET, RELIVE) or link (FREE, LINK, RELINK).
 * @old: ATOMIC only: in, the object the slot must hold (not read with
 *	KSLOT_SLOTS_ANY); on success, the object it held (FREE with
 *	KSLOT_SLOTS_ANY, and SET).
 * @handle: ATOMIC only: the handle the slot must hold.
 *
 * The one place a slot's word and object are written: it owns their
 * order against lock-free readers (__kslot_slots_lookup() loads the
 * word, then the object, then the word again), the live count (the
 * table's, or @m's), the allocations issued (32-bit waits) and the growth
 * mirror.  Free-list and waiting-list bookkeeping is the caller's.
 *
 * Return: 0; ATOMIC only: -ENOENT if the slot no longer holds @handle
 * (a racing writer won; counted as a rejection), -EBUSY if it holds
 * another object than *@old.
 */
static __always_inline int
kslot_slots_store(struct kslot_slots *s, struct kslot_slots_mag *m,
		  struct kslot_slot *slot, u32 index, unsigned int op,
		  u64 word, void *obj, u64 handle, void **old)
{
	struct kslot_slot cur;

	switch (op & KSLOT_SLOTS_OP_MASK) {
	case KSLOT_SLOTS_LIVE:
		if (m) {
			/*
			 * Counted before the word is published: the remove
			 * that ends the slot's cycle, on any CPU, then sees
			 * this allocation in the stamp it takes.
			 */
			WRITE_ONCE(m->count, m->count + 1);
			WRITE_ONCE(m->issued, m->issued + 1);
		}
		WRITE_ONCE(slot->obj, obj);
		/* Object before word; see __kslot_slots_lookup(). */
		smp_store_release(&slot->word, word);
		/* kslot_slots_count() reads it without the lock. */
		if (!m)
			WRITE_ONCE(s->count, s->count + 1);
		break;
	case KSLOT_SLOTS_FREE:
		if (!(op & KSLOT_SLOTS_ATOMIC)) {
			WRITE_ONCE(slot->word, word);
			/* Word before object; see __kslot_slots_lookup(). */
			smp_wmb();
			WRITE_ONCE(slot->obj, obj);
		} else if (op & KSLOT_SLOTS_ANY) {
			/* Of two racing removes, one wins the word. */
			if (cmpxchg64(&slot->word, handle, word) != handle)
				goto reject;
			/* The slot is ours: no replace lands after it. */
			*old = READ_ONCE(slot->obj);
			WRITE_ONCE(slot->obj, obj);
		} else {
			cur.word = handle;
			cur.obj = *old;
			if (!kslot_slots_cas2(slot, &cur, word, obj))
				goto lost;
		}
		if (m)
			WRITE_ONCE(m->count, m->count - 1);
		else
			WRITE_ONCE(s->count, s->count - 1);
		break;
	case KSLOT_SLOTS_SET:
		if (!(op & KSLOT_SLOTS_ATOMIC)) {
			/* Object contents before the pointer. */
			smp_store_release(&slot->obj, obj);
			break;
		}
		cur.word = handle;
		cur.obj = op & KSLOT_SLOTS_ANY ? READ_ONCE(slot->obj) : *old;
		/* A full barrier: object contents before the pointer. */
		while (!kslot_slots_cas2(slot, &cur, handle, obj))
			if (cur.word != handle || !(op & KSLOT_SLOTS_ANY))
				goto lost;
		*old = cur.obj;
		break;
	case KSLOT_SLOTS_RELIVE:
		cur.word = kslot_slots_free_word(s, index,
						 kslot_slots_word_gen(s, word) - 1);
		WRITE_ONCE(slot->word, cur.word);
		/* Word before object; see __kslot_slots_lookup(). */
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
	if (!m)
		kslot_slots_mirror(s, slot, index);
	return 0;
lost:
	if (cur.word == handle)
		return -EBUSY;
reject:
	/* A racing remove won: as a failed compare, a rejection. */
	kslot_slots_count_reject(s, handle);
	return -ENOENT;
}

/* Relink slot @index, not live, to @next.  Lock held. */
static __always_inline void kslot_slots_relink_to(struct kslot_slots *s,
						  struct kslot_slot *slot,
						  u32 index, u32 next)
{
	kslot_slots_store(s, NULL, slot, index, KSLOT_SLOTS_RELINK, 0,
			  kslot_slots_link(next), 0, NULL);
}

/* kslot_slots_core.c: storage, growth, the 32-bit waiting slots. */
void kslot_slots_init_format(struct kslot_slots *s, u32 max_entries);
size_t kslot_slots_table_bytes(struct kslot_slot *slots);
u32 kslot_slots_grown(const struct kslot_slots *s, u32 capacity);

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
int kslot_slots_grow_start(struct kslot_slots *s, unsigned long *irqflags,
			   gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock);
int kslot_slots_grow_step(struct kslot_slots *s, unsigned long *irqflags,
			  gfp_t gfp)
	__must_hold(&s->lock);
bool kslot_slots_quiesce(struct kslot_slots *s, unsigned long *irqflags,
			 gfp_t gfp)
	__must_hold(&s->lock);

/*
 * Per-CPU tables: send the magazine writers to the table lock, for a
 * growth (whose mirror only sees writers under the lock) or an exact
 * drain; the count of reasons is written under the lock.
 */
static inline void kslot_slots_bypass_begin(struct kslot_slots *s)
	__must_hold(&s->lock)
{
	u32 old = s->bypass;

	WRITE_ONCE(s->bypass, old + 1);
	/*
	 * Magazine writers that start after this store see it (they are
	 * RCU readers): once this state has passed, none uses a magazine.
	 * While the bypass stays raised, the first state covers them all.
	 */
	if (!old)
		s->bypass_gp = get_state_synchronize_rcu();
}

/* The magazines may be used again: pairs with kslot_slots_mag_get(). */
static inline void kslot_slots_bypass_end(struct kslot_slots *s)
	__must_hold(&s->lock)
{
	/* What the bypassed writers wrote, before the magazines return. */
	smp_store_release(&s->bypass, s->bypass - 1);
}

u32 kslot_slots_free_slots(const struct kslot_slots *s);
bool kslot_slots_thaw(struct kslot_slots *s, bool force);
int kslot_slots_release_last(struct kslot_slots *s, struct kslot_slot *slot,
			     u64 handle, unsigned int op, void **old);

/* Issue free slot @s->free_head for @obj.  Called with the lock held. */
static __always_inline u64 kslot_slots_take(struct kslot_slots *s, void *obj)
{
	u32 index = s->free_head;
	struct kslot_slot *slot = kslot_slots_at(s, index);
	u64 h;

	s->free_head = kslot_slots_next(slot);
	h = kslot_slots_issue_word(s, slot->word, index);
	kslot_slots_store(s, NULL, slot, index, KSLOT_SLOTS_LIVE, h, obj, 0,
			  NULL);
	/* An allocation issued (the stamps of 32-bit waits). */
	s->issued++;
	return h;
}

/*
 * Free (or retire) live @slot of @handle under the table lock; with
 * KSLOT_SLOTS_ATOMIC in @op (a per-CPU table) only if it still holds
 * @handle and *@old (see kslot_slots_store()).  Returns 0, -ENOENT or
 * -EBUSY (ATOMIC only).
 */
static __always_inline int kslot_slots_release(struct kslot_slots *s,
					       struct kslot_slot *slot,
					       u64 handle, unsigned int op,
					       void **old)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u64 word = kslot_slots_end_word(s, handle, index);
	int ret;

	/* The format's last generation was used: the slot's cycle ends. */
	if (unlikely(!word))
		return kslot_slots_release_last(s, slot, handle, op, old);
	ret = kslot_slots_store(s, NULL, slot, index, KSLOT_SLOTS_FREE | op,
				word, kslot_slots_link(s->free_head), handle,
				old);
	if (likely(!ret))
		s->free_head = index;
	return ret;
}

/* kslot_slots_percpu.c: the magazines. */
struct kslot_slots_mag __percpu *
kslot_slots_mags_alloc(const struct kslot_slots *s);
int kslot_slots_alloc_percpu(struct kslot_slots *s, void *obj, u64 *handle,
			     gfp_t gfp);
void *kslot_slots_remove_percpu(struct kslot_slots *s, u64 handle);
int kslot_slots_remove_percpu_one(struct kslot_slots *s, u64 handle,
				  void **obj);
void *kslot_slots_replace_percpu(struct kslot_slots *s, u64 handle,
				 void *obj);
int kslot_slots_remove_if_percpu(struct kslot_slots *s, u64 handle,
				 void *old);
int kslot_slots_set_percpu(struct kslot_slots *s, u64 handle, void **old,
			   bool any, void *obj);
int kslot_slots_drain(struct kslot_slots *s, unsigned long *irqflags,
		      gfp_t gfp, int ret)
	__must_hold(&s->lock);
void kslot_slots_quiesce_work(struct work_struct *work);

/* kslot_slots_debug.c: the debugfs file of a named table. */
struct dentry *kslot_slots_debugfs(struct kslot_slots *s, const char *kind,
				   const char *name);

#endif /* _KSLOT_SLOTS_CORE_H */
