// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core's per-CPU magazines (%KSLOT_SLOTS_PERCPU; docs/core.rst):
 * each CPU keeps free slots of its own, so an allocation and a remove on
 * one CPU take its magazine's local lock instead of the table lock.  An
 * allocation from the magazine owns its slot and needs no atomic; a
 * remove changes the live slot by one compare-and-exchange
 * (kslot_slots_store() with KSLOT_SLOTS_ATOMIC), so that two racing
 * removes, or a remove and a writer under the table lock, cannot both
 * win.
 *
 * Only its own CPU touches a magazine while the table's bypass is down.
 * A growth (whose copy must see every write) and the drain (which takes
 * every CPU's free slots) raise the bypass and wait a grace period
 * (kslot_slots_quiesce()): a magazine writer is an RCU reader from its
 * test of the bypass to its last magazine access, so after the grace
 * period every magazine writer takes the table lock, and the magazines
 * are the table lock's.  A writer that may not sleep does not wait: it
 * fails with -ENOMEM and the table's worker (kslot_slots_quiesce_work())
 * waits and finishes the job.
 */
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "kslot_slots_core.h"

/*
 * local_lock_init() makes one lockdep class per call site: one site per
 * lock mode, so that magazines of tables whose writers run in interrupts
 * and of tables whose writers do not are not taken for one lock used both
 * ways.
 */
static void kslot_slots_mag_lock_init_task(struct kslot_slots_mag *m)
{
	local_lock_init(&m->lock);
}

static void kslot_slots_mag_lock_init_bh(struct kslot_slots_mag *m)
{
	local_lock_init(&m->lock);
}

static void kslot_slots_mag_lock_init_irq(struct kslot_slots_mag *m)
{
	local_lock_init(&m->lock);
}

/* The magazines of a per-CPU table, or NULL.  Process context. */
struct kslot_slots_mag __percpu *
kslot_slots_mags_alloc(const struct kslot_slots *s)
{
	struct kslot_slots_mag __percpu *mags;
	int cpu;

	if (kslot_should_fail_alloc())
		return NULL;
	mags = alloc_percpu_gfp(struct kslot_slots_mag,
				kslot_gfp(GFP_KERNEL,
					  s->flags & KSLOT_SLOTS_ACCOUNT));
	if (!mags)
		return NULL;
	for_each_possible_cpu(cpu) {
		struct kslot_slots_mag *m = per_cpu_ptr(mags, cpu);

		if (s->flags & KSLOT_SLOTS_LOCK_IRQ)
			kslot_slots_mag_lock_init_irq(m);
		else if (s->flags & KSLOT_SLOTS_LOCK_BH)
			kslot_slots_mag_lock_init_bh(m);
		else
			kslot_slots_mag_lock_init_task(m);
	}
	return mags;
}

/*
 * This CPU's magazine, its local lock held, if the bypass is down; NULL
 * otherwise (then use the table lock).
 */
static __always_inline struct kslot_slots_mag *
kslot_slots_mag_get(struct kslot_slots *s, unsigned long *irqflags)
{
	*irqflags = kslot_slots_mag_lock(s);
	/*
	 * Pairs with kslot_slots_bypass_end(): not bypassed, so no growth
	 * runs and this is the current table; a bypass raised after this
	 * load waits for the unlock (kslot_slots_quiesce()).
	 */
	if (likely(!smp_load_acquire(&s->bypass)))
		return this_cpu_ptr(s->mags);
	kslot_slots_mag_unlock(s, *irqflags);
	return NULL;
}

/* The current table, for a writer holding a magazine lock. */
static __always_inline struct kslot_slot *
kslot_slots_mag_table(struct kslot_slots *s)
{
	/* Growths wait for magazine writers before they copy or publish. */
	return rcu_dereference_check(s->slots, rcu_read_lock_any_held());
}

/* The slot @handle names for a magazine writer, or NULL. */
static __always_inline struct kslot_slot *
kslot_slots_mag_slot(struct kslot_slots *s, u64 handle)
{
	/* A free word never equals a handle; the atomics decide races. */
	return kslot_slots_match(s, kslot_slots_mag_table(s), handle);
}

/*
 * Move @n free slots from the bottom of @m (handed out last) to the head
 * of the free list, keeping the order in which they would be handed out.
 * Called with @m's lock and the table lock held.  Returns @n.
 */
static u32 kslot_slots_flush(struct kslot_slots *s, struct kslot_slots_mag *m,
			     u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u32 index = m->idx[i];

		kslot_slots_relink_to(s, kslot_slots_at(s, index), index,
				      s->free_head);
		s->free_head = index;
	}
	m->nr -= n;
	memmove(m->idx, m->idx + n, m->nr * sizeof(m->idx[0]));
	return n;
}

/* Make room in the full, locked @m: a batch to the free list. */
static noinline void kslot_slots_flush_batch(struct kslot_slots *s,
					     struct kslot_slots_mag *m)
{
	unsigned long irqflags = kslot_slots_lock(s);

	kslot_slots_flush(s, m, KSLOT_SLOTS_MAG_BATCH);
	kslot_slots_unlock(s, irqflags);
}

/*
 * Fill the empty @m with up to a batch of slots from the free list, in
 * free-list order.  Called with @m's lock held; takes the table lock.
 */
static noinline void kslot_slots_refill(struct kslot_slots *s,
					struct kslot_slots_mag *m)
{
	unsigned long irqflags = kslot_slots_lock(s);
	u32 i, n = 0;

	while (n < KSLOT_SLOTS_MAG_BATCH && s->free_head != KSLOT_SLOTS_NONE) {
		u32 index = s->free_head;
		struct kslot_slot *slot = kslot_slots_at(s, index);

		s->free_head = kslot_slots_next(slot);
		kslot_slots_relink_to(s, slot, index, KSLOT_SLOTS_CACHED);
		m->idx[n++] = index;
	}
	if (n)
		WRITE_ONCE(s->mags_drained, false);
	kslot_slots_unlock(s, irqflags);
	/* The first taken is handed out first: reverse into stack order. */
	for (i = 0; i < n / 2; i++)
		swap(m->idx[i], m->idx[n - 1 - i]);
	m->nr = n;
}

/* The grow loop's condition for the worker: nothing to start. */
static bool kslot_slots_started(const struct kslot_slots *s, u32 unused)
{
	return true;
}

/**
 * kslot_slots_drain() - Move every magazine's free slots to the free list.
 * @s: A per-CPU table.
 * @irqflags: The table lock's saved flags.
 * @gfp: The caller's allocation flags: whether it may sleep.
 * @ret: What the caller returns if no slot turns up: -ENOSPC (the table
 *	is full, so its waiting slots may thaw early), -ENOMEM, or 0 (the
 *	dump, which wants the free list complete, not a slot).
 *
 * For an allocation that found no free slot and could not grow, for the
 * dump and for the worker.  With the bypass raised and the magazines
 * quiesced, every CPU's magazine (offline CPUs' too) goes to the free
 * list under the table lock, in CPU order, and no slot can move into a
 * magazine meanwhile: afterwards every free slot is on the list, and an
 * empty list means that none is free anywhere.  While no magazine has
 * taken a slot since the last drain, there is nothing to wait for.
 *
 * Context: Called and returns with the table lock held; drops it to wait
 * for a grace period.  A caller that may not sleep gets -ENOMEM if it
 * would have to wait, and the worker drains instead.
 * Return: 0 if a free slot is on the list; @ret if none is; -ENOMEM if
 * the drain was left to the worker.
 */
int kslot_slots_drain(struct kslot_slots *s, unsigned long *irqflags,
		      gfp_t gfp, int ret)
	__must_hold(&s->lock)
{
	int cpu;

	if (!READ_ONCE(s->mags_drained)) {
		kslot_slots_bypass_begin(s);
		if (!kslot_slots_quiesce(s, irqflags, gfp)) {
			kslot_slots_bypass_end(s);
			s->drain_wanted = true;
			queue_work(system_wq, &s->quiesce_work);
			return -ENOMEM;
		}
		for_each_possible_cpu(cpu) {
			struct kslot_slots_mag *m = per_cpu_ptr(s->mags, cpu);

			kslot_slots_flush(s, m, m->nr);
		}
		WRITE_ONCE(s->mags_drained, true);
		kslot_slots_bypass_end(s);
	}
	/* None free anywhere: a full 32-bit table's oldest waiting slot. */
	if (s->free_head != KSLOT_SLOTS_NONE ||
	    (ret == -ENOSPC && kslot_slots_thaw(s, true)))
		return 0;
	return ret;
}

/**
 * kslot_slots_quiesce_work() - What a writer that may not sleep left.
 * @work: The table's quiesce_work.
 *
 * Waits for the grace period a per-CPU table's growth or drain needed,
 * then finishes the running growth (it allocates nothing: the writer
 * that started it allocated the table, charged where that writer was)
 * and, if one was asked for, drains the magazines.  It thaws no waiting
 * slot early: that is for an allocation of a full table (its retry).
 *
 * Context: Process context (the system workqueue).
 */
void kslot_slots_quiesce_work(struct work_struct *work)
{
	struct kslot_slots *s = container_of(work, struct kslot_slots,
					     quiesce_work);
	unsigned long irqflags = kslot_slots_lock(s);

	kslot_slots_grow(s, &irqflags, GFP_KERNEL, kslot_slots_started, 0);
	if (s->drain_wanted) {
		s->drain_wanted = false;
		kslot_slots_drain(s, &irqflags, GFP_KERNEL, -ENOMEM);
	}
	kslot_slots_unlock(s, irqflags);
}

/*
 * Hand out the slot on top of @m, locked and not empty: it is this
 * magazine's alone, so no atomic is needed.  Returns the handle.
 */
static __always_inline u64 kslot_slots_mag_pop(struct kslot_slots *s,
					       struct kslot_slots_mag *m,
					       void *obj)
{
	u32 index = m->idx[--m->nr];
	struct kslot_slot *slot = &kslot_slots_mag_table(s)[index];
	u64 h = kslot_slots_issue_word(s, READ_ONCE(slot->word), index);

	kslot_slots_store(s, m, slot, index, KSLOT_SLOTS_LIVE, h, obj, 0, NULL);
	return h;
}

/*
 * kslot_slots_alloc() of a table with magazines, when this CPU's had no
 * free slot (or a growth runs): under the table lock.
 */
static noinline int kslot_slots_alloc_percpu_locked(struct kslot_slots *s,
						    void *obj, u64 *handle,
						    gfp_t gfp)
{
	unsigned long irqflags = kslot_slots_lock(s);
	int ret;

	/*
	 * A caller that may not sleep, with free slots in magazines, has
	 * them drained (by the worker if need be) rather than grow the
	 * table for them.
	 */
	if (!gfpflags_allow_blocking(gfp) &&
	    s->free_head == KSLOT_SLOTS_NONE && !s->grow.next &&
	    kslot_slots_free_slots(s) && !READ_ONCE(s->mags_drained)) {
		ret = kslot_slots_drain(s, &irqflags, gfp, -ENOMEM);
		goto out;
	}
	ret = kslot_slots_grow(s, &irqflags, gfp, kslot_slots_has_free, 0);
	/*
	 * No free slot and no room to grow (or no memory): free slots may
	 * sit in magazines.  An atomic caller's growth left to the worker
	 * (-ENOMEM, a growth running) drains nothing either.
	 */
	if (unlikely(ret) && (gfpflags_allow_blocking(gfp) || !s->grow.next))
		ret = kslot_slots_drain(s, &irqflags, gfp, ret);
out:
	if (!ret)
		*handle = kslot_slots_take(s, obj);
	kslot_slots_unlock(s, irqflags);
	return ret;
}

/* kslot_slots_alloc() of a table with magazines. */
noinline int kslot_slots_alloc_percpu(struct kslot_slots *s, void *obj,
				      u64 *handle, gfp_t gfp)
{
	struct kslot_slots_mag *m;
	unsigned long irqflags;

	m = kslot_slots_mag_get(s, &irqflags);
	if (likely(m)) {
		if (unlikely(!m->nr))
			kslot_slots_refill(s, m);
		if (likely(m->nr)) {
			*handle = kslot_slots_mag_pop(s, m, obj);
			kslot_slots_mag_unlock(s, irqflags);
			return 0;
		}
		kslot_slots_mag_unlock(s, irqflags);
	}
	return kslot_slots_alloc_percpu_locked(s, obj, handle, gfp);
}

/*
 * kslot_slots_remove() (@any) or kslot_slots_remove_if() (only if the
 * entry holds *@old) of a table with magazines, under the table lock:
 * while a growth runs, or to retire the slot.
 */
static noinline int kslot_slots_free_percpu_locked(struct kslot_slots *s,
						   u64 handle, void **old,
						   bool any)
{
	unsigned long irqflags = kslot_slots_lock(s);
	struct kslot_slot *slot = kslot_slots_live(s, handle);
	int ret = -ENOENT;

	if (slot)
		ret = kslot_slots_release(s, slot, handle,
					  KSLOT_SLOTS_ATOMIC |
					  (any ? KSLOT_SLOTS_ANY : 0), old);
	kslot_slots_unlock(s, irqflags);
	return ret;
}

/*
 * kslot_slots_remove() (@any) or kslot_slots_remove_if() (only if the
 * entry holds *@old) of a table with magazines.  Returns 0 with the
 * removed object in *@old, -ENOENT or -EBUSY.
 */
static __always_inline int kslot_slots_free_percpu(struct kslot_slots *s,
						   u64 handle, void **old,
						   bool any)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u64 word = kslot_slots_end_word(s, handle, index);
	struct kslot_slots_mag *m;
	struct kslot_slot *slot;
	unsigned long irqflags;
	int ret = -ENOENT;

	m = kslot_slots_mag_get(s, &irqflags);
	if (unlikely(!m))
		goto locked;
	/* Ending a slot's cycle (its last generation) takes the table lock. */
	if (unlikely(!word)) {
		kslot_slots_mag_unlock(s, irqflags);
		goto locked;
	}
	slot = kslot_slots_mag_slot(s, handle);
	if (slot)
		ret = kslot_slots_store(s, m, slot, index,
					KSLOT_SLOTS_FREE | KSLOT_SLOTS_ATOMIC |
					(any ? KSLOT_SLOTS_ANY : 0),
					word, kslot_slots_link(KSLOT_SLOTS_CACHED),
					handle, old);
	if (likely(!ret)) {
		if (unlikely(m->nr == KSLOT_SLOTS_MAG_SIZE))
			kslot_slots_flush_batch(s, m);
		m->idx[m->nr++] = index;
		/* A free slot off the list: the next drain has work. */
		if (unlikely(READ_ONCE(s->mags_drained)))
			WRITE_ONCE(s->mags_drained, false);
	}
	kslot_slots_mag_unlock(s, irqflags);
	return ret;
locked:
	return kslot_slots_free_percpu_locked(s, handle, old, any);
}

/* kslot_slots_remove() of a table with magazines. */
noinline void *kslot_slots_remove_percpu(struct kslot_slots *s, u64 handle)
{
	void *obj = NULL;

	kslot_slots_free_percpu(s, handle, &obj, true);
	return obj;
}

/* One entry of kslot_slots_remove_bulk(): 0, or -ENOENT if not live. */
int kslot_slots_remove_percpu_one(struct kslot_slots *s, u64 handle,
				  void **obj)
{
	return kslot_slots_free_percpu(s, handle, obj, true);
}

int kslot_slots_remove_if_percpu(struct kslot_slots *s, u64 handle, void *old)
{
	return kslot_slots_free_percpu(s, handle, &old, false);
}

/*
 * kslot_slots_replace() (@any) or kslot_slots_replace_if() (only if the
 * entry holds *@old) of a table with magazines.  Returns 0 with the
 * replaced object in *@old, -ENOENT or -EBUSY.
 */
int kslot_slots_set_percpu(struct kslot_slots *s, u64 handle, void **old,
			   bool any, void *obj)
{
	unsigned int op = KSLOT_SLOTS_SET | KSLOT_SLOTS_ATOMIC |
			  (any ? KSLOT_SLOTS_ANY : 0);
	u32 index = kslot_slots_handle_index(s, handle);
	struct kslot_slots_mag *m;
	struct kslot_slot *slot;
	unsigned long irqflags;
	int ret = -ENOENT;

	m = kslot_slots_mag_get(s, &irqflags);
	if (m) {
		slot = kslot_slots_mag_slot(s, handle);
		if (slot)
			ret = kslot_slots_store(s, m, slot, index, op, handle,
						obj, handle, old);
		kslot_slots_mag_unlock(s, irqflags);
		return ret;
	}
	irqflags = kslot_slots_lock(s);
	slot = kslot_slots_live(s, handle);
	if (slot)
		ret = kslot_slots_store(s, NULL, slot, index, op, handle, obj,
					handle, old);
	kslot_slots_unlock(s, irqflags);
	return ret;
}

void *kslot_slots_replace_percpu(struct kslot_slots *s, u64 handle,
				 void *obj)
{
	void *old;
	int ret = kslot_slots_set_percpu(s, handle, &old, true, obj);

	return ret ? ERR_PTR(ret) : old;
}

/**
 * kslot_slots_count_percpu() - kslot_slots_count() of a per-CPU table.
 * @s: A table created with %KSLOT_SLOTS_PERCPU.
 *
 * The sum of the table lock's count and every CPU's magazine count,
 * modulo 2^32 (each may have wrapped; the sum fits), clamped to
 * 0 .. max_entries while writers run.
 *
 * Context: Any context.  Lockless.
 * Return: Live entries, placeholders included.
 */
u32 kslot_slots_count_percpu(const struct kslot_slots *s)
{
	u32 n = READ_ONCE(s->count);
	int cpu;

	if (s->mags)
		for_each_possible_cpu(cpu)
			n += READ_ONCE(per_cpu_ptr(s->mags, cpu)->count);
	if ((s32)n < 0)
		return 0;
	return min(n, s->max_entries);
}
EXPORT_SYMBOL_GPL(kslot_slots_count_percpu);
