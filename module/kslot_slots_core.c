// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core's storage: the handle format of a table, its tables and
 * their growth, and the waiting slots of 32-bit tables.  The writers are
 * in kslot_slots.c (and kslot_slots_percpu.c, kslot_slots_keyed.c); every
 * slot they change goes through kslot_slots_store() (kslot_slots_core.h).
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "kslot_slots_core.h"

/*
 * The handle formats (the top of kslot_slots.h): a table's index mask, the
 * bit its generation starts at and its tag say everything.
 */

/* Index bits of a 32-bit table of @max_entries slots (at least 2 slots). */
static u32 kslot_slots_index_bits32(u32 max_entries)
{
	return max(fls64(max_entries - 1), 1);
}

void kslot_slots_init_format(struct kslot_slots *s, u32 max_entries)
{
	if (s->flags & KSLOT_SLOTS_HANDLE32) {
		u32 bits = kslot_slots_index_bits32(max_entries);

		s->index_mask = BIT(bits) - 1;
		s->gen_shift = bits;
		s->tag = 0;
	} else {
		s->index_mask = KSLOT_INDEX_MAX;
		s->gen_shift = KSLOT_GEN_SHIFT;
		s->tag = kslot_random_tag();
	}
	s->gen_low = BIT_ULL(s->gen_shift) - 1;
	s->gen_bits = (u64)kslot_slots_gen_max(s) << s->gen_shift;
}

/**
 * kslot_grow_start() - Start a copy-on-grow into a new array.
 * @g: The growth state, with no growth in progress.
 * @next: The new array, allocated by the owner with its lock dropped.
 *
 * See kslot_internal.h for the mechanism.
 *
 * Context: Caller holds the owner's lock.
 */
void kslot_grow_start(struct kslot_grow *g, void *next)
{
	g->next = next;
	g->copied = 0;
}

/**
 * kslot_grow_copy() - Copy the next batch of a growth.
 * @g: The growth state, with a growth in progress.
 * @end: Elements the current array holds now (it may have shrunk below
 *	what was copied, or grown, since the last batch).
 * @span: The arrays copied together, element by element.
 * @nr: Entries in @span.
 *
 * Copies elements from @g->copied on, at most %KSLOT_GROW_BATCH_BYTES of
 * all @span arrays together (at least one element).
 *
 * Context: Caller holds the owner's lock.
 * Return: true once elements 0 .. @end - 1 are all copied: the new array
 * may be published.
 */
bool kslot_grow_copy(struct kslot_grow *g, u32 end,
		     const struct kslot_grow_span *span, unsigned int nr)
{
	size_t unit = 0;
	unsigned int i;
	u32 n;

	if (g->copied >= end)
		return true;
	for (i = 0; i < nr; i++)
		unit += span[i].size;
	n = min_t(size_t, end - g->copied,
		  max_t(size_t, KSLOT_GROW_BATCH_BYTES / unit, 1));
	for (i = 0; i < nr; i++)
		memcpy(span[i].dst + (size_t)g->copied * span[i].size,
		       span[i].src + (size_t)g->copied * span[i].size,
		       (size_t)n * span[i].size);
	g->copied += n;
	return g->copied >= end;
}

/* Memory a table takes (0 for none). */
size_t kslot_slots_table_bytes(struct kslot_slot *slots)
{
	struct kslot_slots_table *t;

	if (!slots)
		return 0;
	t = kslot_slots_hdr(slots);
	return kslot_kvmalloc_bytes(t, struct_size(t, slots, t->nr));
}

/*
 * Slots of the first table: %KSLOT_SLOTS_MIN; for a 32-bit table whose
 * slots serve few allocations each, enough that one live entry churned
 * never waits for a slot (D / G slots, up to %KSLOT_SLOTS_MIN32).
 */
static u32 kslot_slots_first(const struct kslot_slots *s)
{
	u32 g = kslot_slots_gen_max(s) / 2 + 1;

	if (!(s->flags & KSLOT_SLOTS_HANDLE32))
		return KSLOT_SLOTS_MIN;
	return max(KSLOT_SLOTS_MIN,
		   min(KSLOT_SLOTS_MIN32, (u32)(KSLOT_SLOTS_REUSE_DISTANCE / g)));
}

u32 kslot_slots_grown(const struct kslot_slots *s, u32 capacity)
{
	u64 want = capacity ? 2ULL * capacity : kslot_slots_first(s);

	return min_t(u64, want, s->max_entries);
}

/* Slots of a table of @nr that may hold entries. */
static u32 kslot_slots_usable(const struct kslot_slots *s, unsigned long nr)
{
	return min_t(unsigned long, nr, s->max_entries);
}

/*
 * A table of @nr slots (at least two, see the top of kslot_slots.h) whose
 * slots from @from on are free and chained in order; the slots below
 * @from are left for the copy.  Called with the lock dropped.
 */
static struct kslot_slots_table *
kslot_slots_table_alloc(struct kslot_slots *s, u32 nr, u32 from, gfp_t gfp)
{
	struct kslot_slots_table *t;
	size_t size;
	u32 i, end;

	nr = max(nr, 2U);
	end = kslot_slots_usable(s, nr);
	size = struct_size(t, slots, nr);
	/*
	 * try_cmpxchg128() needs 16-byte aligned slots.  kmalloc() aligns
	 * power-of-two sizes naturally, and rounds any size above 192 up to
	 * one; vmalloc() memory is page aligned.
	 */
	if (s->mags)
		size = max_t(size_t, size, 256);

	if (kslot_should_fail_alloc())
		return NULL;
	gfp = kslot_gfp(gfp, s->flags & KSLOT_SLOTS_ACCOUNT);
	/* kvmalloc() may sleep; atomic callers get what kmalloc() can do. */
	if (gfpflags_allow_blocking(gfp))
		t = kvmalloc(size, gfp);
	else
		t = kmalloc(size, gfp);
	if (!t)
		return NULL;
	t->nr = nr;
	for (i = from; i < nr; i++) {
		t->slots[i].word = kslot_slots_free_word(s, i, 0);
		t->slots[i].obj = kslot_slots_link(i + 1 < end ? i + 1 :
						   KSLOT_SLOTS_NONE);
	}
	return t;
}

/* Publish the fully copied new table, its new slots first on the free list. */
static void kslot_slots_publish(struct kslot_slots *s)
{
	struct kslot_slot *old = kslot_slots_locked(s);
	struct kslot_slots_table *t = s->grow.next;
	u32 end = kslot_slots_usable(s, t->nr);

	t->slots[end - 1].obj = kslot_slots_link(s->free_head);
	s->free_head = s->capacity;
	s->capacity = end;
	s->grow.next = NULL;
	/* The copy and the new free slots before the pointer. */
	rcu_assign_pointer(s->slots, t->slots);
	/*
	 * Then the growth's bypass ends: a magazine writer that sees it
	 * ended sees the new table.
	 */
	if (s->mags)
		kslot_slots_bypass_end(s);
	if (old) {
		t = kslot_slots_hdr(old);
		kslot_free_rcu(s->free_acct, t,
			       kslot_slots_table_bytes(old));
	}
}

/**
 * kslot_slots_quiesce() - Wait until no magazine writer runs unbypassed.
 * @s: A per-CPU table whose bypass is raised.
 * @irqflags: The table lock's saved flags.
 * @gfp: The caller's allocation flags: whether it may sleep.
 *
 * A magazine writer holds its CPU's local lock, an RCU read section,
 * from its test of s->bypass to its last magazine access: once a grace
 * period has passed since the bypass rose (s->bypass_gp), every writer
 * that did not see it has finished, and every later one takes the table
 * lock.  Then the magazines and the slots they hold are the table lock's
 * to read and change: for a growth's copy, for the drain.
 *
 * Context: Called and returns with the table lock held; drops it to wait
 * for the grace period.  A caller that may not sleep does not wait.
 * Return: true if quiesced; false if the grace period has not passed and
 * @gfp may not sleep (the lock was not dropped).
 */
bool kslot_slots_quiesce(struct kslot_slots *s, unsigned long *irqflags,
			 gfp_t gfp)
	__must_hold(&s->lock)
{
	unsigned long gp = s->bypass_gp;

	if (poll_state_synchronize_rcu(gp))
		return true;
	if (!gfpflags_allow_blocking(gfp))
		return false;
	kslot_slots_unlock(s, *irqflags);
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_QUIESCE);
	cond_synchronize_rcu(gp);
	*irqflags = kslot_slots_lock(s);
	return true;
}

/*
 * Start a growth: allocate the next table with the lock dropped.  Gives
 * it up if, meanwhile, another writer started or finished one, or
 * @done(@s, @arg) came to hold.  Called and returns with the lock held.
 */
int kslot_slots_grow_start(struct kslot_slots *s, unsigned long *irqflags,
			   gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock)
{
	u32 cap = s->capacity;
	struct kslot_slots_table *t;

	if (cap >= s->max_entries)
		return -ENOSPC;
	kslot_slots_unlock(s, *irqflags);
	t = kslot_slots_table_alloc(s, kslot_slots_grown(s, cap), cap, gfp);
	*irqflags = kslot_slots_lock(s);
	if (!t)
		return -ENOMEM;
	if (s->grow.next || s->capacity != cap || done(s, arg)) {
		kslot_slots_unlock(s, *irqflags);
		kvfree(t);
		*irqflags = kslot_slots_lock(s);
		return 0;
	}
	kslot_grow_start(&s->grow, t);
	s->grow_seq++;
	/* A table defined statically draws its tag before its first handle. */
	if (s->tag == KSLOT_SLOTS_TAG_UNBOUND && !(s->flags & KSLOT_SLOTS_KEYED))
		WRITE_ONCE(s->tag, kslot_random_tag());
	/*
	 * With no table yet, no magazine writer can change one: nothing to
	 * quiesce.
	 */
	s->quiesced = !s->mags || !cap;
	/* Magazine writers take the table lock until the publication. */
	if (s->mags)
		kslot_slots_bypass_begin(s);
	return 0;
}

/*
 * One step of the running growth: wait for the magazine writers once, or
 * copy one batch, publishing the table after the last.  Called and
 * returns with the lock held; the quiesce drops it.  Returns 0, or
 * -EAGAIN if the magazines are not quiesced and @gfp may not sleep.
 */
int kslot_slots_grow_step(struct kslot_slots *s, unsigned long *irqflags,
			  gfp_t gfp)
	__must_hold(&s->lock)
{
	struct kslot_slots_table *next = s->grow.next;

	if (!s->quiesced) {
		u32 seq = s->grow_seq;

		if (!kslot_slots_quiesce(s, irqflags, gfp))
			return -EAGAIN;
		/*
		 * Meanwhile another writer may have published this growth
		 * and started the next, whose table may even lie where this
		 * one's did: only the growth that is still the same one, by
		 * its sequence number, is quiesced.
		 */
		if (s->grow.next && s->grow_seq == seq)
			s->quiesced = true;
		return 0;
	}
	/* One batch under the lock; writers mirror what is copied. */
	if (kslot_grow_copy(&s->grow, s->capacity,
			    &(struct kslot_grow_span){ next->slots,
						       kslot_slots_locked(s),
						       sizeof(struct kslot_slot) },
			    1))
		kslot_slots_publish(s);
	return 0;
}

/* Between copy batches: let other writers in. */
static void kslot_slots_grow_pause(struct kslot_slots *s,
				   unsigned long *irqflags, gfp_t gfp)
	__must_hold(&s->lock)
{
	kslot_slots_unlock(s, *irqflags);
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_GROW_PAUSE);
	if (gfpflags_allow_blocking(gfp))
		cond_resched();
	*irqflags = kslot_slots_lock(s);
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

/*
 * A full table's waiting slots are room: an allocation that finds no
 * other slot takes them (see kslot_slots_thaw()).
 */
bool kslot_slots_has_room(const struct kslot_slots *s, u32 nr)
{
	u32 room = kslot_slots_free_slots(s);

	if (s->capacity >= s->max_entries)
		room += s->waiting;
	return room >= nr;
}

/*
 * Grow the table until @done(@s, @arg) holds: the one growth loop of the
 * table (allocation, reserve, keyed writes and restore).
 *
 * A growth this loop starts, or finds running, is run to its publication
 * before it returns, whatever other writers free meanwhile: no table
 * stays half copied (with its next table allocated, every writer
 * mirroring, and a per-CPU table's magazines bypassed) until some later
 * allocation happens to need a slot.  Other writers that need to grow
 * meanwhile copy batches too.
 *
 * A per-CPU table's growth waits a grace period for its magazine writers
 * (kslot_slots_quiesce()): a caller whose @gfp may not sleep gets -ENOMEM
 * instead if none has passed since the growth started, and the table's
 * worker finishes the growth.
 *
 * Called and returns with the lock held; drops it to allocate, to
 * quiesce the magazines and between copy batches.
 */
int kslot_slots_grow(struct kslot_slots *s, unsigned long *irqflags,
		     gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock)
{
	for (;;) {
		int ret;

		if (!s->grow.next) {
			if (done(s, arg))
				return 0;
			/* Waiting slots before new memory; when full, early. */
			if (kslot_slots_thaw(s, false))
				continue;
			ret = kslot_slots_grow_start(s, irqflags, gfp, done,
						     arg);
			/* Per-CPU tables drain their magazines first. */
			if (ret == -ENOSPC && !s->mags &&
			    kslot_slots_thaw(s, true))
				continue;
			if (ret)
				return ret;
			continue;
		}
		if (kslot_slots_grow_step(s, irqflags, gfp)) {
			/* Atomic: the worker waits and copies instead. */
			queue_work(system_wq, &s->quiesce_work);
			return -ENOMEM;
		}
		if (s->grow.next)
			kslot_slots_grow_pause(s, irqflags, gfp);
	}
}

/*
 * Allocations the table issued, modulo 2^32: under the lock, and by each
 * CPU's magazine.  Called with the lock held.  A magazine counts a slot's
 * allocation before it publishes the handle, so the remove that ends the
 * slot's cycle (after it saw the handle) finds every allocation of the
 * slot in its stamp; allocations of other slots racing with the sum are
 * in it or not.
 */
static u32 kslot_slots_issued(const struct kslot_slots *s)
{
	u32 n = s->issued;
	int cpu;

	if (s->mags)
		for_each_possible_cpu(cpu)
			n += READ_ONCE(per_cpu_ptr(s->mags, cpu)->issued);
	return n;
}

static u64 kslot_slots_wait_word(const struct kslot_slots *s, u32 index)
{
	return KSLOT_SLOTS_WAIT_BIT |
	       (u64)(kslot_slots_issued(s) & KSLOT_SLOTS_WAIT_MASK) << 32 |
	       kslot_slots_free_word(s, index, 0);
}

/*
 * Has the waiting slot of @word waited long enough, @issued being the
 * allocations issued now?  Its handles were issued before it began to
 * wait, the first of them at least G - 1 allocations before (G: the
 * allocations a slot serves per cycle of its generation), and it serves
 * nothing until it leaves: after D - G allocations of waiting, none of its
 * handles is issued again within D (KSLOT_SLOTS_REUSE_DISTANCE).
 */
static bool kslot_slots_ripe(const struct kslot_slots *s, u64 word,
			     u32 issued)
{
	u32 g = kslot_slots_gen_max(s) / 2 + 1;
	u32 waited = (issued - (u32)(word >> 32)) & KSLOT_SLOTS_WAIT_MASK;

	return g >= KSLOT_SLOTS_REUSE_DISTANCE ||
	       waited >= KSLOT_SLOTS_REUSE_DISTANCE - g;
}

/* Slot @index begins to wait, behind the others.  Lock held. */
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

/*
 * Move the slot that waited longest to the head of the free list if it
 * waited long enough, or with @force whatever its wait (a full table:
 * see the top of kslot_slots.h).  One at a time, as allocations need
 * them: each takes the slot that waited longest.  Returns whether it
 * moved.  Lock held.
 */
bool kslot_slots_thaw(struct kslot_slots *s, bool force)
{
	u32 index = s->wait_head;
	struct kslot_slot *slot;

	if (!s->waiting)
		return false;
	slot = kslot_slots_at(s, index);
	if (!force && !kslot_slots_ripe(s, slot->word, kslot_slots_issued(s)))
		return false;
	s->wait_head = kslot_slots_next(slot);
	s->waiting--;
	/* A new cycle of its generation, from 0. */
	kslot_slots_store(s, NULL, slot, index, KSLOT_SLOTS_LINK,
			  kslot_slots_free_word(s, index, 0),
			  kslot_slots_link(s->free_head), 0, NULL);
	s->free_head = index;
	return true;
}

/*
 * kslot_slots_release() of a slot at the last generation of its format:
 * a 64-bit table retires it for good, a 32-bit one puts it at the end of
 * the waiting slots (the top of kslot_slots.h).  Lock held.
 */
int kslot_slots_release_last(struct kslot_slots *s, struct kslot_slot *slot,
			     u64 handle, unsigned int op, void **old)
{
	u32 index = kslot_slots_handle_index(s, handle);
	bool wait = s->flags & KSLOT_SLOTS_HANDLE32;
	int ret;

	ret = kslot_slots_store(s, NULL, slot, index, KSLOT_SLOTS_FREE | op,
				wait ? kslot_slots_wait_word(s, index) :
				       kslot_slots_free_word(s, index, 0),
				kslot_slots_link(wait ? KSLOT_SLOTS_NONE :
							KSLOT_SLOTS_RETIRED),
				handle, old);
	if (ret)
		return ret;
	if (wait)
		kslot_slots_wait(s, index);
	else
		s->retired++;
	return 0;
}

/*
 * Free slots of the current table (neither live nor retired), those in
 * magazines included: an allocation that needs them flushes them.
 */
u32 kslot_slots_free_slots(const struct kslot_slots *s)
{
	/* A per-CPU count summed under racing writers may be one too many. */
	s64 n = (s64)s->capacity - kslot_slots_count(s) - s->retired -
		s->waiting;

	return max_t(s64, n, 0);
}
