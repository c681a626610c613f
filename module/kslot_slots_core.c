// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core's storage: the handle format, the chunks and their
 * growth, and the waiting slots of 32-bit tables.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "kslot_slots_core.h"

/* The generation takes the bits the index does not need (docs/core.rst). */
void kslot_slots_init_format(struct kslot_slots *s, u32 max_entries)
{
	bool h32 = s->flags & KSLOT_SLOTS_HANDLE32;
	u32 b = kslot_index_bits(max_entries);

	/* Read by lookups: a static table sets it at its first growth. */
	WRITE_ONCE(s->index_mask, BIT(b) - 1);
	s->tag_shift = b;
	s->gen_shift = h32 ? b : b + KSLOT_TAG_BITS;
	s->gen_low = BIT_ULL(s->gen_shift) - 1;
	s->gen_bits = (BIT_ULL(kslot_gen_bits(max_entries, h32)) - 1) <<
		      s->gen_shift;
}

size_t kslot_slots_chunk_bytes(u32 slots)
{
	return kmalloc_size_roundup(slots * sizeof(struct kslot_slot));
}

/* Every chunk is whole but the last one of a table at max_entries. */
static size_t kslot_slots_chunks_bytes(u32 capacity)
{
	u32 part = capacity % KSLOT_SLOTS_CHUNK;

	return (size_t)(capacity / KSLOT_SLOTS_CHUNK) *
	       kslot_slots_chunk_bytes(KSLOT_SLOTS_CHUNK) +
	       (part ? kslot_slots_chunk_bytes(part) : 0);
}

static u32 kslot_slots_max_chunks(const struct kslot_slots *s)
{
	return DIV_ROUND_UP(s->max_entries, KSLOT_SLOTS_CHUNK);
}

/* Slots of the chunk that starts at slot @cap that may hold entries. */
static u32 kslot_slots_chunk_usable(const struct kslot_slots *s, u32 cap)
{
	return min(s->max_entries - cap, KSLOT_SLOTS_CHUNK);
}

/* At least two, so that the clamp of index 1 never lands on slot 0. */
static u32 kslot_slots_chunk_slots(const struct kslot_slots *s, u32 cap)
{
	return max(kslot_slots_chunk_usable(s, cap), 2U);
}

/* Its directory, chunks and counter.  Lock held, or no writer running. */
size_t kslot_slots_bytes(struct kslot_slots *s)
{
	struct kslot_dir *dir = kslot_slots_dir(s);

	if (!dir)
		return 0;
	return kslot_dir_bytes(dir) + kslot_dir_counter_bytes() +
	       kslot_slots_chunks_bytes(kslot_dir_total(dir));
}

/* Memory the next growth would allocate (an upper bound).  Lock held. */
size_t kslot_slots_grow_bytes(struct kslot_slots *s)
{
	struct kslot_dir *dir = kslot_slots_dir(s);
	struct kslot_dir_grow g;

	if (s->capacity >= s->max_entries)
		return 0;
	kslot_dir_prepare(dir, kslot_slots_max_chunks(s), &g);
	return kslot_slots_chunk_bytes(kslot_slots_chunk_slots(s, s->capacity)) +
	       kslot_dir_grow_bytes(&g) + (dir ? 0 : kslot_dir_counter_bytes());
}

/**
 * kslot_slots_grow_to_bytes() - What growing a table to a slot allocates.
 * @s: The table (its max_entries and flags).
 * @capacity: Its capacity now.
 * @index: The slot the growth must reach.
 *
 * An upper bound: the chunks, and every directory on the way (a replaced
 * one waits for its grace period).
 *
 * Context: Any context.
 * Return: Bytes, 0 if slot @index exists already or is beyond
 * max_entries.
 */
u64 kslot_slots_grow_to_bytes(const struct kslot_slots *s, u32 capacity,
			      u32 index)
{
	u32 max = kslot_slots_max_chunks(s), cap;
	/* The capacity fixes the chunks, and they the directory's shape. */
	u32 chunks = DIV_ROUND_UP(capacity, KSLOT_SLOTS_CHUNK);
	u32 room = kslot_dir_room(chunks, max);
	struct kslot_dir_grow g;
	u64 bytes = 0;

	if (index < capacity || index >= s->max_entries)
		return 0;
	if (!capacity)
		bytes += kslot_dir_counter_bytes();
	for (cap = capacity; cap <= index;
	     cap += kslot_slots_chunk_usable(s, cap)) {
		kslot_dir_need(room, chunks++, max, &g);
		if (g.room)
			room = g.room;
		bytes += kslot_dir_grow_bytes(&g) +
			 kslot_slots_chunk_bytes(kslot_slots_chunk_slots(s, cap));
	}
	return bytes;
}
EXPORT_SYMBOL_NS_GPL(kslot_slots_grow_to_bytes, KSLOT_INTERNAL);

/* Free unpublished @dir after a grace period; the last one with the chunks. */
void kslot_slots_free_dir(struct kslot_slots *s, struct kslot_dir *dir)
{
	kslot_dir_free(dir, kslot_dir_counter_bytes() +
			    kslot_slots_chunks_bytes(kslot_dir_total(dir)),
		       s->free_acct);
}

/*
 * kslot_slots_live()'s slow path, as kslot_slots_read_far() is a
 * lookup's: the far slot live under @handle, else NULL (a rejection).
 * Called with the lock held.
 */
struct kslot_slot *kslot_slots_live_far(struct kslot_slots *s,
					struct kslot_dir *dir, u64 handle)
{
	struct kslot_slot *slot;

	slot = __kslot_dir_far(dir, kslot_slots_handle_index(s, handle),
			       KSLOT_SLOTS_CHUNK_SHIFT, sizeof(*slot));
	if (slot && slot->word == handle)
		return slot;
	kslot_slots_reject(dir, handle);
	return NULL;
}

/*
 * The chunk of @n free slots from slot @cap on, the first @usable chained
 * in order to KSLOT_SLOTS_NONE.  Lock dropped.
 */
static struct kslot_slot *kslot_slots_chunk_alloc(struct kslot_slots *s,
						  u32 cap, u32 n, u32 usable,
						  gfp_t gfp)
{
	struct kslot_slot *chunk;
	u32 i;

	if (kslot_should_fail_alloc())
		return NULL;
	kslot_test_note_alloc(n * sizeof(*chunk));
	chunk = kmalloc_array(n, sizeof(*chunk), gfp);
	if (!chunk)
		return NULL;
	for (i = 0; i < n; i++) {
		chunk[i].word = kslot_slots_free_word(s, cap + i, 0);
		chunk[i].obj = kslot_slots_link(i + 1 < usable ? cap + i + 1 :
						KSLOT_SLOTS_NONE);
	}
	return chunk;
}

/*
 * Publish @chunk from s->capacity on, with what @g allocated for the
 * directory (kslot_dir_prepare()); its usable slots go first on the free
 * list.
 */
static void kslot_slots_publish(struct kslot_slots *s,
				struct kslot_dir_grow *g,
				struct kslot_slot *chunk, u32 n, u32 usable)
{
	u32 cap = s->capacity;

	chunk[usable - 1].obj = kslot_slots_link(s->free_head);
	s->free_head = cap;
	s->capacity = cap + usable;
	/* The format's: a static table's is set by now. */
	if (g->dir)
		g->dir->index_mask = s->index_mask;
	kslot_dir_append(s, &s->dir, kslot_slots_dir(s), g, chunk, cap + n);
}

/*
 * Add one chunk, allocated (with what the directory needs for it: one
 * twice as large, or a far leaf) with the lock dropped.  If another writer
 * grew the table meanwhile, free it all: the caller looks again.
 */
int kslot_slots_grow_one(struct kslot_slots *s, unsigned long *irqflags,
			 gfp_t gfp)
	__must_hold(&s->lock)
{
	struct kslot_dir *dir = kslot_slots_dir(s);
	u32 cap = s->capacity, n, usable;
	struct kslot_slot *chunk;
	struct kslot_dir_grow g;
	bool grown, ok;

	if (cap >= s->max_entries)
		return -ENOSPC;
	n = kslot_slots_chunk_slots(s, cap);
	usable = kslot_slots_chunk_usable(s, cap);
	kslot_dir_prepare(dir, kslot_slots_max_chunks(s), &g);
	gfp = kslot_gfp(gfp, s->flags & KSLOT_SLOTS_ACCOUNT);
	kslot_slots_unlock(s, *irqflags);
	/* A long growth (reserve, restore) lets others run between chunks. */
	if (gfpflags_allow_blocking(gfp))
		cond_resched();
	chunk = kslot_slots_chunk_alloc(s, cap, n, usable, gfp);
	ok = chunk && kslot_dir_grow_alloc(&g, !dir, gfp);
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_GROW);
	*irqflags = kslot_slots_lock(s);
	/*
	 * Only a growth (or a reset) changes the capacity, which fixes the
	 * directory's room: the same capacity, what was allocated still fits.
	 */
	grown = s->capacity != cap;
	if (!ok || grown) {
		/* Freed with the lock dropped: vfree() may sleep. */
		kslot_slots_unlock(s, *irqflags);
		kfree(chunk);
		kslot_dir_grow_discard(&g);
		*irqflags = kslot_slots_lock(s);
		return grown ? 0 : -ENOMEM;
	}
	/* A static table's format and tag come before its first handle. */
	if (!s->gen_bits)
		kslot_slots_init_format(s, s->max_entries);
	if (READ_ONCE(s->tag) == KSLOT_SLOTS_TAG_UNBOUND &&
	    !(s->flags & KSLOT_SLOTS_KEYED))
		__kslot_slots_bind_tag(s);
	kslot_slots_publish(s, &g, chunk, n, usable);
	return 0;
}

/* What growing writers wait for: a free slot, a slot index, free slots. */
bool kslot_slots_has_free(const struct kslot_slots *s, u32 unused)
{
	return s->free_head != KSLOT_SLOTS_NONE;
}

bool kslot_slots_has_index(const struct kslot_slots *s, u32 index)
{
	return index < s->capacity;
}

/* A full table's waiting slots are room: see kslot_slots_thaw(). */
bool kslot_slots_has_room(const struct kslot_slots *s, u32 nr)
{
	u32 room = kslot_slots_free_slots(s);

	if (s->capacity >= s->max_entries)
		room += s->waiting;
	return room >= nr;
}

/*
 * The one growth loop: until @done(@s, @arg), take a ripe waiting slot or
 * add a chunk.  Returns 0, -ENOMEM, or -ENOSPC at max_entries.
 */
int kslot_slots_grow(struct kslot_slots *s, unsigned long *irqflags,
		     gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock)
{
	for (;;) {
		int ret;

		if (done(s, arg))
			return 0;
		if (kslot_slots_thaw(s, false))
			continue;
		ret = kslot_slots_grow_one(s, irqflags, gfp);
		/* Early only for an allocation: a reserve counts them. */
		if (ret == -ENOSPC && done == kslot_slots_has_free &&
		    kslot_slots_thaw(s, true))
			continue;
		/* The lock was dropped: a slot may have come free meanwhile. */
		if (ret == -ENOMEM &&
		    (done(s, arg) || kslot_slots_thaw(s, false)))
			continue;
		if (ret)
			return ret;
	}
}

/*
 * kslot_slots_grow() for the free list's writers: a restore that began
 * while the lock was dropped made the free list stale (-EINVAL).
 */
int kslot_slots_grow_alloc(struct kslot_slots *s, unsigned long *irqflags,
			   gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock)
{
	int ret = kslot_slots_no_alloc(s);

	if (!ret)
		ret = kslot_slots_grow(s, irqflags, gfp, done, arg);
	return kslot_slots_no_alloc(s) ?: ret;
}

static u64 kslot_slots_wait_word(const struct kslot_slots *s, u32 index)
{
	return KSLOT_SLOTS_WAIT_BIT |
	       (u64)(s->issued & KSLOT_SLOTS_WAIT_MASK) << 32 |
	       kslot_slots_free_word(s, index, 0);
}

/* Waited D - G allocations: no handle recurs within D (docs/core.rst). */
static bool kslot_slots_ripe(const struct kslot_slots *s, u64 word,
			     u32 issued)
{
	/* A 32-bit table's: below 2^30. */
	u32 g = kslot_slots_gen_max(s) / 2 + 1;
	u32 waited = (issued - (u32)(word >> 32)) & KSLOT_SLOTS_WAIT_MASK;

	return g >= KSLOT_SLOTS_REUSE_DISTANCE ||
	       waited >= KSLOT_SLOTS_REUSE_DISTANCE - g;
}

/* Slot @index waits behind the others. */
static void kslot_slots_wait(struct kslot_slots *s, u32 index)
{
	if (s->waiting) {
		kslot_slots_relink_to(s, kslot_slots_at(s, s->wait_tail),
				      s->wait_tail, index);
	} else {
		s->wait_head = index;
	}
	s->wait_tail = index;
	s->waiting++;
}

/* Free the slot that waited longest if ripe, or with @force (full table). */
bool kslot_slots_thaw(struct kslot_slots *s, bool force)
{
	u32 index = s->wait_head;
	struct kslot_slot *slot;

	if (!s->waiting)
		return false;
	slot = kslot_slots_at(s, index);
	if (!force && !kslot_slots_ripe(s, slot->word, s->issued))
		return false;
	s->wait_head = kslot_slots_next(slot);
	s->waiting--;
	/* A new cycle of its generation, from 0. */
	kslot_slots_store(s, slot, index, KSLOT_SLOTS_LINK,
			  kslot_slots_free_word(s, index, 0),
			  kslot_slots_link(s->free_head));
	s->free_head = index;
	return true;
}

/* The last generation: a 64-bit table retires the slot, a 32-bit one waits. */
void kslot_slots_release_last(struct kslot_slots *s, struct kslot_slot *slot,
			      u64 handle)
{
	u32 index = kslot_slots_handle_index(s, handle);
	bool wait = s->flags & KSLOT_SLOTS_HANDLE32;

	kslot_slots_store(s, slot, index, KSLOT_SLOTS_FREE,
			  wait ? kslot_slots_wait_word(s, index) :
				 kslot_slots_free_word(s, index, 0),
			  kslot_slots_link(wait ? KSLOT_SLOTS_NONE :
						  KSLOT_SLOTS_RETIRED));
	if (wait)
		kslot_slots_wait(s, index);
	else
		s->retired++;
}

/* Neither live, retired nor waiting. */
u32 kslot_slots_free_slots(const struct kslot_slots *s)
{
	return s->capacity - s->count - s->retired - s->waiting;
}
