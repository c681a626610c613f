// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_pool: slab-style fixed-size object pool.  See
 * include/linux/kslot_pool.h for the rules, and kslot_pool_internal.h for
 * the slab layout and the slab lists.
 *
 * This file holds the paths of every allocation and free: the per-CPU
 * caches and their drain, the slabs, the reserve, pass-through objects,
 * bulk allocation and free, and the debug-mode checks.  Creation and
 * destruction, the slab geometry, the shrinker and the statistics are in
 * kslot_pool_setup.c.
 */
#include <linux/cpu.h>
#include <linux/export.h>
#include <linux/kasan-checks.h>
#include <linux/kmemleak.h>
#include <linux/kslot_pool.h>
#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/poison.h>
#include <linux/ratelimit.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "kslot_pool_internal.h"

__printf(2, 3) void kslot_pool_report(struct kslot_pool *pool,
				      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(&pool->report_rs))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (pool->hot.flags & KSLOT_POOL_NOWARN)
		pr_err("kslot_pool %s: %pV\n", pool->name, &vaf);
	else
		WARN(1, "kslot_pool %s: %pV\n", pool->name, &vaf);
	va_end(args);
}

static gfp_t kslot_pool_gfp(const struct kslot_pool *pool, gfp_t gfp)
{
	return kslot_gfp(gfp & ~(__GFP_ZERO | __GFP_COMP),
			 pool->hot.flags & KSLOT_POOL_ACCOUNT);
}

static int kslot_pool_slab_cmp(const void *key, const struct rb_node *node)
{
	const void *slab = rb_entry(node, struct kslot_pool_slab, node);

	if (key < slab)
		return -1;
	return key > slab;
}

static bool kslot_pool_slab_less(struct rb_node *a, const struct rb_node *b)
{
	return kslot_pool_slab_cmp(rb_entry(a, struct kslot_pool_slab, node),
				   b) < 0;
}

/*
 * Is @obj the start of an object carved from one of the pool's slabs?
 * Looks only at the slab tree, never at the memory @obj points to.
 */
static bool kslot_pool_owns(struct kslot_pool *pool, const void *obj)
	__must_hold(&pool->lock)
{
	struct kslot_pool_slab *slab = kslot_pool_slab_of(pool, obj);
	unsigned long off;

	if (!rb_find(slab, &pool->slab_tree, kslot_pool_slab_cmp))
		return false;
	off = obj - kslot_pool_slab_base(pool, slab);
	return off % pool->stride == 0 && off / pool->stride < slab->nr_objs;
}

/*
 * Debug-mode checks of an object about to be handed out: its state word
 * and its poison.  The object is reported, then handed out all the same:
 * it is not on any free list any more.
 */
static void kslot_pool_debug_alloc(struct kslot_pool *pool, void *obj)
{
	unsigned long *state = kslot_pool_state(pool, obj);
	unsigned long old, flags;
	void *bad = NULL;

	spin_lock_irqsave(&pool->lock, flags);
	old = *state;
	if (old == KSLOT_POOL_STATE_FREE && pool->poison)
		bad = memchr_inv(obj, POISON_FREE, pool->hot.size);
	if (old != KSLOT_POOL_STATE_FREE || bad)
		pool->poison_errors++;
	*state = KSLOT_POOL_STATE_LIVE;
	spin_unlock_irqrestore(&pool->lock, flags);

	if (old != KSLOT_POOL_STATE_FREE)
		kslot_pool_report(pool, "allocated object %p has a corrupted state word %#lx",
				  obj, old);
	else if (bad)
		kslot_pool_report(pool, "object %p was modified after free (byte %td of %u)",
				  obj, bad - obj, pool->hot.size);
}

/*
 * Debug-mode checks of a pointer being freed.  Return: true if it is a
 * live object of the pool, now marked free and poisoned.
 */
static bool kslot_pool_debug_free(struct kslot_pool *pool, void *obj,
				  unsigned long caller)
{
	enum { OK, FOREIGN, DOUBLE, CORRUPT } err = OK;
	unsigned long *state, old = 0, flags;

	spin_lock_irqsave(&pool->lock, flags);
	if (!kslot_pool_owns(pool, obj)) {
		pool->bad_frees++;
		err = FOREIGN;
		goto out;
	}
	state = kslot_pool_state(pool, obj);
	old = *state;
	if (old == KSLOT_POOL_STATE_FREE) {
		pool->double_frees++;
		err = DOUBLE;
	} else if (old != KSLOT_POOL_STATE_LIVE) {
		pool->poison_errors++;
		err = CORRUPT;
	} else {
		*state = KSLOT_POOL_STATE_FREE;
		if (pool->poison)
			memset(obj, POISON_FREE, pool->hot.size);
	}
out:
	spin_unlock_irqrestore(&pool->lock, flags);

	switch (err) {
	case OK:
		break;
	case FOREIGN:
		kslot_pool_report(pool,
				  "free of %p: not an object of this pool (caller %pS)",
				  obj, (void *)caller);
		break;
	case DOUBLE:
		kslot_pool_report(pool, "double free of %p (caller %pS)",
				  obj, (void *)caller);
		break;
	case CORRUPT:
		kslot_pool_report(pool,
				  "free of %p: corrupted state word %#lx (caller %pS)",
				  obj, old, (void *)caller);
		break;
	}
	return err == OK;
}

/* Give @nr objects back to their slabs. */
void kslot_pool_flush_locked(struct kslot_pool *pool, void **objs,
			     unsigned int nr)
	__must_hold(&pool->lock)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct kslot_pool_slab *slab = kslot_pool_slab_of(pool, objs[i]);

		if (!slab->freelist)
			list_move(&slab->list, &pool->partial);
		*kslot_pool_fp(pool, objs[i]) = slab->freelist;
		slab->freelist = objs[i];
		slab->inuse--;
		pool->nr_slab_free++;
		if (!slab->inuse) {
			list_move(&slab->list, &pool->empty);
			pool->nr_empty++;
		}
	}
}

/* Take up to @want objects off the slabs into @dst; return how many. */
static unsigned int kslot_pool_take_locked(struct kslot_pool *pool,
					   void **dst, unsigned int want)
	__must_hold(&pool->lock)
{
	unsigned int got = 0;

	while (got < want) {
		struct kslot_pool_slab *slab;

		slab = list_first_entry_or_null(&pool->partial,
						struct kslot_pool_slab, list);
		if (!slab) {
			slab = list_first_entry_or_null(&pool->empty,
							struct kslot_pool_slab,
							list);
			if (!slab)
				break;
			list_move(&slab->list, &pool->partial);
			pool->nr_empty--;
		}
		while (got < want && slab->freelist) {
			void *obj = slab->freelist;

			slab->freelist = *kslot_pool_fp(pool, obj);
			slab->inuse++;
			pool->nr_slab_free--;
			dst[got++] = obj;
		}
		if (!slab->freelist)
			list_move(&slab->list, &pool->full);
	}
	return got;
}

/* Move up to a batch of objects from the slabs into a CPU's cache. */
static void kslot_pool_refill_locked(struct kslot_pool *pool,
				     struct kslot_pool_cpu *pc)
	__must_hold(&pool->lock)
{
	if (pc->count < pool->batch)
		pc->count += kslot_pool_take_locked(pool, pc->objs + pc->count,
						    pool->batch - pc->count);
}

/* Flush this CPU's whole cache back to the slabs. */
void kslot_pool_drain_local(struct kslot_pool *pool)
{
	struct kslot_pool_cpu *pc;
	unsigned long irqflags, flags;

	irqflags = kslot_pool_cpu_lock(&pool->hot);
	pc = this_cpu_ptr(pool->hot.cpu);
	if (pc->count) {
		spin_lock_irqsave(&pool->lock, flags);
		kslot_pool_flush_locked(pool, pc->objs, pc->count);
		spin_unlock_irqrestore(&pool->lock, flags);
		pc->count = 0;
	}
	kslot_pool_cpu_unlock(&pool->hot, irqflags);
}

/*
 * Flush every CPU's cache: online CPUs run a work item on themselves, the
 * caches of offline CPUs (which nothing can use while the hotplug lock is
 * held) are flushed from here.
 */
void kslot_pool_drain_all(struct kslot_pool *pool)
{
	unsigned long flags;
	unsigned int cpu;

	might_sleep();
	cpus_read_lock();
	for_each_online_cpu(cpu)
		/* A racy peek: an empty cache needs no work item. */
		if (kslot_pool_racy(per_cpu_ptr(pool->hot.cpu, cpu)->count))
			queue_work_on(cpu, system_wq,
				      &per_cpu_ptr(pool->drain, cpu)->work);
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(pool->drain, cpu)->work);
	for_each_possible_cpu(cpu) {
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->hot.cpu, cpu);

		if (cpu_online(cpu) || !pc->count)
			continue;
		spin_lock_irqsave(&pool->lock, flags);
		kslot_pool_flush_locked(pool, pc->objs, pc->count);
		spin_unlock_irqrestore(&pool->lock, flags);
		pc->count = 0;
	}
	cpus_read_unlock();
}

/* Link @n fresh objects of a slab into its free list; no lock needed. */
static struct kslot_pool_slab *kslot_pool_carve(struct kslot_pool *pool,
						void *base, unsigned int n)
{
	struct kslot_pool_slab *slab = base + pool->hdr_offset;
	unsigned int i;

	for (i = 0; i < n; i++) {
		void *obj = base + i * pool->stride;

		if (pool->ctor)
			pool->ctor(obj);
		if (kslot_pool_debug(pool)) {
			if (pool->poison)
				memset(obj, POISON_FREE, pool->hot.size);
			*kslot_pool_state(pool, obj) = KSLOT_POOL_STATE_FREE;
		}
		*kslot_pool_fp(pool, obj) = i + 1 < n ? obj + pool->stride :
							NULL;
	}
	INIT_LIST_HEAD(&slab->list);
	RB_CLEAR_NODE(&slab->node);
	slab->freelist = base;
	slab->inuse = 0;
	slab->nr_objs = n;
	return slab;
}

/*
 * Allocate and carve a slab, without any lock held.  The objects are
 * reserved against max_objects first.
 * Return: The slab, ERR_PTR(-ENOSPC) at the limit, or ERR_PTR(-ENOMEM).
 */
static struct kslot_pool_slab *kslot_pool_new_slab(struct kslot_pool *pool,
						   gfp_t gfp)
{
	size_t bytes = kslot_pool_slab_bytes(pool);
	unsigned long flags, n = pool->objs_per_slab;
	struct page *page = NULL;
	void *base;

	spin_lock_irqsave(&pool->lock, flags);
	if (pool->max_objects) {
		unsigned long used = pool->nr_objects + pool->nr_reserved;

		n = used >= pool->max_objects ? 0 :
			min(n, pool->max_objects - used);
	}
	pool->nr_reserved += n;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!n)
		return ERR_PTR(-ENOSPC);

	if (!kslot_should_fail_alloc())
		page = alloc_pages(kslot_pool_gfp(pool, gfp), pool->order);
	if (!page)
		goto unreserve;
	base = page_address(page);
	/* Buddy blocks are aligned to their size; masking relies on it. */
	if (WARN_ON_ONCE(!IS_ALIGNED((unsigned long)base, bytes))) {
		__free_pages(page, pool->order);
		goto unreserve;
	}
	/* Scan the slab for pointers, but never report it: the pool owns it. */
	kmemleak_alloc(base, bytes, 0, gfp);
	return kslot_pool_carve(pool, base, n);

unreserve:
	spin_lock_irqsave(&pool->lock, flags);
	pool->nr_reserved -= n;
	spin_unlock_irqrestore(&pool->lock, flags);
	return ERR_PTR(-ENOMEM);
}

static void kslot_pool_add_slab_locked(struct kslot_pool *pool,
				       struct kslot_pool_slab *slab)
	__must_hold(&pool->lock)
{
	pool->nr_reserved -= slab->nr_objs;
	pool->nr_objects += slab->nr_objs;
	pool->nr_slab_free += slab->nr_objs;
	pool->nr_slabs++;
	pool->nr_empty++;
	list_add(&slab->list, &pool->empty);
	rb_add(&slab->node, &pool->slab_tree, kslot_pool_slab_less);
}

/* Unlink a slab from the pool; the caller frees it after unlocking. */
void kslot_pool_unlink_slab_locked(struct kslot_pool *pool,
				   struct kslot_pool_slab *slab,
				   struct list_head *to)
	__must_hold(&pool->lock)
{
	if (!slab->inuse)
		pool->nr_empty--;
	pool->nr_objects -= slab->nr_objs;
	pool->nr_slab_free -= slab->nr_objs - slab->inuse;
	pool->nr_slabs--;
	rb_erase(&slab->node, &pool->slab_tree);
	list_move(&slab->list, to);
}

void kslot_pool_free_slab(struct kslot_pool *pool,
			  struct kslot_pool_slab *slab)
{
	void *base = kslot_pool_slab_base(pool, slab);

	kmemleak_free(base);
	__free_pages(virt_to_page(base), pool->order);
}

/* Recompute the reasons for the out-of-line paths. */
void kslot_pool_update_slow_locked(struct kslot_pool *pool)
	__must_hold(&pool->lock)
{
	unsigned int slow = 0;

	if (kslot_pool_debug(pool) || pool->passthrough)
		slow = __KSLOT_POOL_SLOW_ALLOC | __KSLOT_POOL_SLOW_FREE;
	if (pool->nr_reserve < pool->min_nr)
		slow |= __KSLOT_POOL_SLOW_FREE;
	/* Read locklessly by the inline fast paths. */
	WRITE_ONCE(pool->hot.slow, slow);
}

/* Put a freed object into the reserve if it is short; true if it did. */
static bool kslot_pool_reserve_push(struct kslot_pool *pool, void *obj)
{
	unsigned long flags;
	bool put = false;

	if (!pool->min_nr)
		return false;
	spin_lock_irqsave(&pool->lock, flags);
	if (pool->nr_reserve < pool->min_nr) {
		pool->reserve[pool->nr_reserve++] = obj;
		put = true;
		if (pool->nr_reserve == pool->min_nr)
			kslot_pool_update_slow_locked(pool);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return put;
}

/* Take an object from the reserve, or NULL if it is empty. */
static void *kslot_pool_reserve_pop(struct kslot_pool *pool)
{
	unsigned long flags;
	void *obj = NULL;

	if (!pool->min_nr)
		return NULL;
	spin_lock_irqsave(&pool->lock, flags);
	if (pool->nr_reserve) {
		obj = pool->reserve[--pool->nr_reserve];
		kslot_pool_update_slow_locked(pool);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return obj;
}

/* Pass-through: every object is its own kmalloc() object. */
static void *kslot_pool_pt_alloc(struct kslot_pool *pool, gfp_t gfp)
{
	unsigned long flags;
	void *obj = NULL;
	bool ok;

	spin_lock_irqsave(&pool->lock, flags);
	ok = !pool->max_objects || pool->nr_objects < pool->max_objects;
	if (ok)
		pool->nr_objects++;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!ok)
		return NULL;
	if (!kslot_should_fail_alloc())
		obj = kmalloc(pool->pt_size, kslot_pool_gfp(pool, gfp));
	if (!obj) {
		spin_lock_irqsave(&pool->lock, flags);
		pool->nr_objects--;
		spin_unlock_irqrestore(&pool->lock, flags);
		return NULL;
	}
	if (pool->ctor)
		pool->ctor(obj);
	return obj;
}

static void kslot_pool_pt_free(struct kslot_pool *pool, void *obj)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	pool->nr_objects--;
	spin_unlock_irqrestore(&pool->lock, flags);
	kfree(obj);
}

/*
 * The allocation slow path of the pool's own slabs: take an object from
 * this CPU's cache, else refill the cache from the slabs, else grow the
 * pool by a slab (with both locks dropped), else, at the limit, drain
 * every CPU's cache once if the caller may sleep.
 */
static void *kslot_pool_alloc_slow(struct kslot_pool *pool, gfp_t gfp,
				   bool grow)
{
	struct kslot_pool_slab *slab = NULL;
	unsigned long irqflags, flags;
	struct kslot_pool_cpu *pc;
	bool drained = false, missed = false;
	void *obj;

	irqflags = kslot_pool_cpu_lock(&pool->hot);
	pc = this_cpu_ptr(pool->hot.cpu);
	for (;;) {
		if (slab || !pc->count) {
			if (!pc->count && !missed) {
				pc->alloc_misses++;
				missed = true;
			}
			spin_lock_irqsave(&pool->lock, flags);
			if (slab) {
				kslot_pool_add_slab_locked(pool, slab);
				slab = NULL;
			}
			kslot_pool_refill_locked(pool, pc);
			spin_unlock_irqrestore(&pool->lock, flags);
		}
		if (pc->count)
			break;
		kslot_pool_cpu_unlock(&pool->hot, irqflags);
		if (!grow)
			return NULL;

		slab = kslot_pool_new_slab(pool, gfp);
		if (IS_ERR(slab)) {
			if (PTR_ERR(slab) != -ENOSPC || drained ||
			    !gfpflags_allow_blocking(gfp))
				return NULL;
			kslot_pool_drain_all(pool);
			drained = true;
			slab = NULL;
		}
		irqflags = kslot_pool_cpu_lock(&pool->hot);
		pc = this_cpu_ptr(pool->hot.cpu);
	}
	if (!missed)
		pc->alloc_hits++;
	obj = pc->objs[--pc->count];
	kslot_pool_cpu_unlock(&pool->hot, irqflags);
	return obj;
}

/* Debug checks and zeroing of an object being handed out. */
static void kslot_pool_alloc_finish(struct kslot_pool *pool, void *obj,
				    gfp_t gfp)
{
	if (unlikely(kslot_pool_debug(pool)))
		kslot_pool_debug_alloc(pool, obj);
	if (unlikely(kslot_pool_want_zero(&pool->hot, gfp)))
		memset(obj, 0, pool->hot.size);
}

/**
 * kslot_pool_alloc_slowpath() - The out-of-line part of kslot_pool_alloc().
 * @pool: The pool.
 * @gfp: As for kslot_pool_alloc().
 *
 * Called by kslot_pool_alloc() when this CPU's cache is empty, or always
 * for a pool in debug mode or a pass-through: allocates from the slabs
 * (or kmalloc()), growing the pool if @gfp allows, and falls back on the
 * reserve when that fails.  Use kslot_pool_alloc() instead.
 *
 * Context: As kslot_pool_alloc().
 * Return: The object, or NULL if no memory could be had, the pool holds
 * max_objects objects and the reserve is empty.
 */
void *kslot_pool_alloc_slowpath(struct kslot_pool *pool, gfp_t gfp)
{
	void *obj;

	if (pool->passthrough)
		obj = kslot_pool_pt_alloc(pool, gfp);
	else
		obj = kslot_pool_alloc_slow(pool, gfp, true);
	if (unlikely(!obj)) {
		obj = kslot_pool_reserve_pop(pool);
		if (!obj)
			return NULL;
	}
	kslot_pool_alloc_finish(pool, obj, gfp);
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_pool_alloc_slowpath);

/**
 * kslot_pool_alloc_nogrow() - Allocate an object the pool has already.
 * @pool: The pool.
 *
 * As kslot_pool_alloc(), but never grows the pool nor takes from the
 * reserve: the object comes from a CPU cache or a slab the pool holds.
 * For a caller that must account for the memory a growth takes before
 * it is made (kslot_pool_grow_bytes()), then calls kslot_pool_alloc().
 * A pass-through pool has no objects of its own: always NULL.
 *
 * Context: As kslot_pool_alloc(); does not sleep.
 * Return: The object, or NULL if the pool has none free.
 */
void *kslot_pool_alloc_nogrow(struct kslot_pool *pool)
{
	void *obj;

	kslot_pool_check_context(pool);
	if (pool->passthrough)
		return NULL;
	obj = kslot_pool_alloc_slow(pool, 0, false);
	if (obj)
		kslot_pool_alloc_finish(pool, obj, 0);
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_pool_alloc_nogrow);

#ifdef CONFIG_PROVE_LOCKING
/**
 * kslot_pool_context_error() - Report a task-only pool used outside task
 *	context.
 * @pool: A %KSLOT_POOL_TASK pool.
 * @ip: Where it was used.
 *
 * Called on lockdep kernels (CONFIG_PROVE_LOCKING, without which it does
 * not exist) by kslot_pool_alloc(), kslot_pool_free() and
 * the other allocation and free paths when a %KSLOT_POOL_TASK pool is
 * used from a softirq or hardirq (an RCU callback is one) or with
 * interrupts disabled, where its per-CPU cache, guarded against
 * preemption only, may be in the middle of an update.  Counted in
 * &struct kslot_pool_stats.context_errors and reported as other misuse
 * (a WARN, or an error line with %KSLOT_POOL_NOWARN); the operation goes
 * ahead.
 *
 * Context: Any context.
 */
void kslot_pool_context_error(struct kslot_pool *pool, unsigned long ip)
{
	atomic_long_inc(&pool->context_errors);
	kslot_pool_report(pool, "KSLOT_POOL_TASK pool used in %s context by %pS",
			  in_nmi() ? "NMI" : in_hardirq() ? "hardirq" :
			  in_serving_softirq() ? "softirq" :
			  "interrupts-disabled", (void *)ip);
}
EXPORT_SYMBOL_GPL(kslot_pool_context_error);
#endif

/*
 * Checks and preparation of an object about to be freed.
 * Return: false if the free must not go ahead (debug mode refused it).
 */
static bool kslot_pool_free_prepare(struct kslot_pool *pool, void *obj,
				    unsigned long caller)
{
	if (unlikely(kslot_pool_debug(pool)))
		return kslot_pool_debug_free(pool, obj, caller);
	/* Catches pointers into freed or another allocator's memory. */
	kasan_check_write(obj, pool->hot.size);
	if (unlikely(want_init_on_free()) && !pool->ctor)
		memset(obj, 0, pool->hot.size);
	return true;
}

/* Make room in a full CPU cache by flushing its oldest batch. */
static void kslot_pool_free_slow(struct kslot_pool *pool,
				 struct kslot_pool_cpu *pc)
{
	unsigned long flags;

	pc->free_misses++;
	spin_lock_irqsave(&pool->lock, flags);
	kslot_pool_flush_locked(pool, pc->objs, pool->batch);
	spin_unlock_irqrestore(&pool->lock, flags);
	pc->count -= pool->batch;
	memmove(pc->objs, pc->objs + pool->batch,
		pc->count * sizeof(pc->objs[0]));
}

/* Push a prepared object into this CPU's cache, flushing if it is full. */
static void kslot_pool_cache_push(struct kslot_pool *pool,
				  struct kslot_pool_cpu *pc, void *obj)
{
	if (unlikely(pc->count == pool->hot.cache_size))
		kslot_pool_free_slow(pool, pc);
	else
		pc->free_hits++;
	pc->objs[pc->count++] = obj;
}

/**
 * kslot_pool_free_slowpath() - The out-of-line part of kslot_pool_free().
 * @pool: The pool the object was allocated from.
 * @obj: The object, or NULL (nothing is done).
 *
 * Called by kslot_pool_free() when this CPU's cache is full or the
 * reserve is short, or always for a pool in debug mode or a pass-through.
 * Use kslot_pool_free() instead.
 *
 * Context: As kslot_pool_free().
 */
void kslot_pool_free_slowpath(struct kslot_pool *pool, void *obj)
{
	struct kslot_pool_cpu *pc;
	unsigned long irqflags;

	if (unlikely(!obj))
		return;
	if (pool->passthrough) {
		/* kfree() does the checks: KASAN sees a double free. */
		if (!kslot_pool_reserve_push(pool, obj))
			kslot_pool_pt_free(pool, obj);
		return;
	}
	if (unlikely(!kslot_pool_free_prepare(pool, obj, _RET_IP_)))
		return;
	if (kslot_pool_reserve_push(pool, obj))
		return;
	irqflags = kslot_pool_cpu_lock(&pool->hot);
	pc = this_cpu_ptr(pool->hot.cpu);
	kslot_pool_cache_push(pool, pc, obj);
	kslot_pool_cpu_unlock(&pool->hot, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_pool_free_slowpath);

/**
 * kslot_pool_alloc_bulk() - Allocate several objects at once.
 * @pool: The pool.
 * @gfp: As for kslot_pool_alloc().
 * @nr: Number of objects wanted.
 * @objs: Array of at least @nr entries, filled with the objects.
 *
 * All or nothing: on failure no object stays allocated.  Objects come from
 * this CPU's cache and then straight from the slabs, under one
 * acquisition of each lock; the rest, if the pool must grow, one by one
 * through kslot_pool_alloc().
 *
 * Context: As kslot_pool_alloc().
 * Return: 0, or -ENOMEM if not all @nr objects could be allocated (memory
 * for a slab failed or the pool reached max_objects, and the reserve ran
 * out).
 */
int kslot_pool_alloc_bulk(struct kslot_pool *pool, gfp_t gfp, size_t nr,
			  void **objs)
{
	struct kslot_pool_hot *h = &pool->hot;
	struct kslot_pool_cpu *pc;
	unsigned long irqflags, flags;
	size_t i = 0, n;

	if (likely(!(READ_ONCE(h->slow) & __KSLOT_POOL_SLOW_ALLOC))) {
		kslot_pool_check_context(pool);
		irqflags = kslot_pool_cpu_lock(h);
		pc = this_cpu_ptr(h->cpu);
		n = min_t(size_t, nr, pc->count);
		pc->count -= n;
		memcpy(objs, pc->objs + pc->count, n * sizeof(*objs));
		pc->alloc_hits += n;
		if (n < nr) {
			spin_lock_irqsave(&pool->lock, flags);
			n += kslot_pool_take_locked(pool, objs + n,
						    min_t(size_t, nr - n,
							  UINT_MAX));
			spin_unlock_irqrestore(&pool->lock, flags);
		}
		kslot_pool_cpu_unlock(h, irqflags);
		if (unlikely(kslot_pool_want_zero(h, gfp)))
			for (i = 0; i < n; i++)
				memset(objs[i], 0, h->size);
		i = n;
	}
	for (; i < nr; i++) {
		objs[i] = kslot_pool_alloc(pool, gfp);
		if (!objs[i]) {
			kslot_pool_free_bulk(pool, i, objs);
			return -ENOMEM;
		}
	}
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_pool_alloc_bulk);

/**
 * kslot_pool_free_bulk() - Free several objects at once.
 * @pool: The pool.
 * @nr: Number of objects.
 * @objs: The objects; NULL entries are skipped.
 *
 * The objects enter this CPU's cache under one lock acquisition, with
 * batches flushed to the slabs as the cache fills.  In debug mode each
 * object is checked as by kslot_pool_free(), and refused ones are skipped.
 *
 * Context: As kslot_pool_free().
 */
void kslot_pool_free_bulk(struct kslot_pool *pool, size_t nr, void **objs)
{
	struct kslot_pool_hot *h = &pool->hot;
	struct kslot_pool_cpu *pc;
	unsigned int count, hits = 0;
	unsigned long irqflags;
	bool zero;
	size_t i;

	kslot_pool_check_context(pool);
	if (unlikely(READ_ONCE(h->slow) & __KSLOT_POOL_SLOW_FREE)) {
		for (i = 0; i < nr; i++)
			kslot_pool_free_slowpath(pool, objs[i]);
		return;
	}
	/* Not in debug mode: the preparation of kslot_pool_free_prepare(). */
	zero = want_init_on_free() && !pool->ctor;
	irqflags = kslot_pool_cpu_lock(h);
	pc = this_cpu_ptr(h->cpu);
	count = pc->count;
	for (i = 0; i < nr; i++) {
		void *obj = objs[i];

		if (!obj)
			continue;
		kasan_check_write(obj, h->size);
		if (unlikely(zero))
			memset(obj, 0, h->size);
		if (unlikely(count == h->cache_size)) {
			pc->count = count;
			kslot_pool_free_slow(pool, pc);
			count = pc->count;
		} else {
			hits++;
		}
		pc->objs[count++] = obj;
	}
	pc->count = count;
	pc->free_hits += hits;
	kslot_pool_cpu_unlock(h, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_pool_free_bulk);

/* Fill the reserve with @min_nr objects.  Return: 0 or -ENOMEM. */
int kslot_pool_fill_reserve(struct kslot_pool *pool, gfp_t gfp)
{
	unsigned long flags;

	if (!pool->min_nr)
		return 0;
	if (!kslot_should_fail_alloc())
		pool->reserve = kmalloc_array(pool->min_nr,
					      sizeof(*pool->reserve),
					      gfp | __GFP_NOWARN);
	if (!pool->reserve)
		return -ENOMEM;
	spin_lock_irqsave(&pool->lock, flags);
	kslot_pool_update_slow_locked(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	while (kslot_pool_racy(pool->nr_reserve) < pool->min_nr) {
		/* From the allocator proper: never from the reserve itself. */
		void *obj = pool->passthrough ? kslot_pool_pt_alloc(pool, gfp) :
			    kslot_pool_alloc_slow(pool, gfp, true);

		if (!obj)
			return -ENOMEM;
		kslot_pool_alloc_finish(pool, obj, gfp);
		/* The reserve is short: the free refills it. */
		kslot_pool_free_slowpath(pool, obj);
	}
	return 0;
}

/* Give the reserve back to the slabs (or kfree()) before destroying. */
void kslot_pool_drop_reserve(struct kslot_pool *pool)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&pool->lock, flags);
	if (!pool->passthrough)
		kslot_pool_flush_locked(pool, pool->reserve, pool->nr_reserve);
	else
		pool->nr_objects -= pool->nr_reserve;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (pool->passthrough)
		for (i = 0; i < pool->nr_reserve; i++)
			kfree(pool->reserve[i]);
	pool->nr_reserve = 0;
}
