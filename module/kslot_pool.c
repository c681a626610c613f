// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_pool: slab-style fixed-size object pool.  See
 * include/linux/kslot_pool.h for the rules.
 *
 * Layout.  A slab is 2^order pages from the page allocator, aligned to its
 * size, so the slab of an object is found by masking the object's address.
 * The slab header sits at the end of the slab; objects start at the slab's
 * first byte and repeat every @stride bytes.  Each object slot is
 *
 *	[ object (size bytes) | pad | free pointer | state word ]
 *
 * where the free pointer is moved out of the object only when the pool has
 * a constructor or runs in debug mode (otherwise it overlays the first word
 * of a free object), and the state word exists only in debug mode.
 *
 * Slab lists, all under pool->lock:
 *  - empty:   every carved object is on the slab's free list (inuse == 0);
 *  - partial: some objects out, some on the free list;
 *  - full:    the free list is empty.
 * "Out" means allocated or sitting in a per-CPU cache.  Debug mode also
 * keeps every slab in an rbtree by address, to tell the pool's objects
 * from foreign pointers without touching the memory they point to.
 */
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kasan-checks.h>
#include <linux/kmemleak.h>
#include <linux/kslot_pool.h>
#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/poison.h>
#include <linux/ratelimit.h>
#include <linux/rbtree.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "kslot_internal.h"

static bool kslot_pool_debug_all;
module_param_named(pool_debug, kslot_pool_debug_all, bool, 0644);
MODULE_PARM_DESC(pool_debug,
		 "Create every kslot_pool in debug mode (poison, double-free and pointer checks)");

static bool kslot_pool_passthrough_all = IS_ENABLED(CONFIG_KASAN);
module_param_named(pool_passthrough, kslot_pool_passthrough_all, bool, 0644);
MODULE_PARM_DESC(pool_passthrough,
		 "Back every non-debug kslot_pool created while set with kmalloc(), one allocation per object, so KASAN and KFENCE see each object (default: on with CONFIG_KASAN)");

/*
 * A deliberately racy read, for statistics and estimates: the per-CPU
 * counters and cache counts, written by their CPU under its local lock, and
 * counters under the pool lock, read without it where a stale value only
 * makes an estimate (shrinker count, drain skipping an empty cache) or a
 * snapshot (kslot_pool_get_stats()) less exact.
 */
#define kslot_pool_racy(x)	data_race(x)

/* Objects per slab the order choice aims for. */
#define KSLOT_POOL_MIN_OBJS	8UL
/* Debug-mode state words; anything else is a corrupted state. */
#define KSLOT_POOL_STATE_FREE	0x6b736c6f74465245UL
#define KSLOT_POOL_STATE_LIVE	0x6b736c6f744c4956UL

/**
 * struct kslot_pool_drain - Work that drains one CPU's cache on that CPU.
 * @work: Queued on the CPU by kslot_pool_drain_all().
 * @pool: The pool.
 */
struct kslot_pool_drain {
	struct work_struct work;
	struct kslot_pool *pool;
};

/**
 * struct kslot_pool_slab - Header at the end of every slab.
 * @list: On the pool's empty, partial or full list.
 * @node: In the pool's slab tree, by address.
 * @freelist: First free object of the slab.
 * @inuse: Objects of the slab not on @freelist.
 * @nr_objs: Objects carved from the slab.
 */
struct kslot_pool_slab {
	struct list_head list;
	struct rb_node node;
	void *freelist;
	unsigned int inuse;
	unsigned int nr_objs;
};

/**
 * struct kslot_pool - A pool of fixed-size objects.
 * @hot: What the inline fast paths read: the per-CPU caches, the flags,
 *	the object size and the cache capacity.
 * @batch: Objects moved by one refill or flush.
 * @stride: Distance between objects in a slab.
 * @fp_offset: Offset of the free pointer in an object slot.
 * @order: Page order of a slab.
 * @objs_per_slab: Objects in a full slab.
 * @hdr_offset: Offset of the slab header in a slab.
 * @poison: Debug mode poisons free objects (no constructor).
 * @passthrough: Every object is its own kmalloc() object (sanitizers).
 * @pt_size: The kmalloc() size of a pass-through object.
 * @ctor: Object constructor, or NULL.
 * @max_objects: Limit on carved objects; 0 for none.
 * @min_nr: Objects the reserve keeps.
 * @shrinker: Returns free slabs under memory pressure.
 * @drain: Per-CPU drain work.
 * @debugfs: Debugfs file, or NULL.
 * @name: Name used in reports.
 * @lock: Protects everything below.
 * @partial: Slabs with objects both out and free.
 * @full: Slabs with no free object.
 * @empty: Slabs with every object free.
 * @slab_tree: All slabs, by address.
 * @nr_slabs: Slabs held.
 * @nr_empty: Slabs on @empty.
 * @nr_objects: Objects carved.
 * @nr_reserved: Objects of slabs being allocated, counted against
 *	@max_objects.
 * @nr_slab_free: Objects on slab free lists.
 * @nr_reserve: Objects in @reserve.
 * @reserve: The reserve, an array of @min_nr objects.
 * @double_frees: Debug mode: double frees refused.
 * @bad_frees: Debug mode: foreign pointers refused.
 * @poison_errors: Debug mode: poison or state corruption found.
 * @report_rs: Rate limit of misuse reports.
 */
struct kslot_pool {
	/* Read-mostly; the fast paths read nothing else. */
	struct kslot_pool_hot hot;
	unsigned int batch;
	unsigned int stride;
	unsigned int fp_offset;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int hdr_offset;
	bool poison;
	bool passthrough;
	void (*ctor)(void *obj);
	unsigned long max_objects;
	unsigned int min_nr;
	unsigned int pt_size;
	struct shrinker *shrinker;
	struct kslot_pool_drain __percpu *drain;
	struct dentry *debugfs;
	char name[KSLOT_POOL_NAME_LEN];

	spinlock_t lock ____cacheline_aligned_in_smp;
	struct list_head partial;
	struct list_head full;
	struct list_head empty;
	struct rb_root slab_tree;
	unsigned long nr_slabs;
	unsigned long nr_empty;
	unsigned long nr_objects;
	unsigned long nr_reserved;
	unsigned long nr_slab_free;
	unsigned int nr_reserve;
	void **reserve;
	unsigned long double_frees;
	unsigned long bad_frees;
	unsigned long poison_errors;
	struct ratelimit_state report_rs;
};

/* The geometry kslot_pool_create() derives from a config. */
struct kslot_pool_layout {
	unsigned int stride;
	unsigned int fp_offset;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int hdr_offset;
	unsigned int cache_size;
};

static size_t kslot_pool_slab_bytes(const struct kslot_pool *pool)
{
	return PAGE_SIZE << pool->order;
}

static void **kslot_pool_fp(const struct kslot_pool *pool, void *obj)
{
	return obj + pool->fp_offset;
}

static unsigned long *kslot_pool_state(const struct kslot_pool *pool,
				       void *obj)
{
	return obj + pool->fp_offset + sizeof(void *);
}

static bool kslot_pool_debug(const struct kslot_pool *pool)
{
	return pool->hot.flags & KSLOT_POOL_DEBUG;
}

/* The slab an object of this pool belongs to. */
static struct kslot_pool_slab *kslot_pool_slab_of(const struct kslot_pool *pool,
						  const void *obj)
{
	unsigned long base = (unsigned long)obj &
			     ~(kslot_pool_slab_bytes(pool) - 1);

	return (struct kslot_pool_slab *)(base + pool->hdr_offset);
}

static void *kslot_pool_slab_base(const struct kslot_pool *pool,
				  struct kslot_pool_slab *slab)
{
	return (void *)slab - pool->hdr_offset;
}

static __printf(2, 3) void kslot_pool_report(struct kslot_pool *pool,
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
static void kslot_pool_flush_locked(struct kslot_pool *pool, void **objs,
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
static void kslot_pool_drain_local(struct kslot_pool *pool)
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

static void kslot_pool_drain_work(struct work_struct *work)
{
	kslot_pool_drain_local(container_of(work, struct kslot_pool_drain,
					    work)->pool);
}

/*
 * Flush every CPU's cache: online CPUs run a work item on themselves, the
 * caches of offline CPUs (which nothing can use while the hotplug lock is
 * held) are flushed from here.
 */
static void kslot_pool_drain_all(struct kslot_pool *pool)
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
static void kslot_pool_unlink_slab_locked(struct kslot_pool *pool,
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

static void kslot_pool_free_slab(struct kslot_pool *pool,
				 struct kslot_pool_slab *slab)
{
	void *base = kslot_pool_slab_base(pool, slab);

	kmemleak_free(base);
	__free_pages(virt_to_page(base), pool->order);
}

/* Recompute the reasons for the out-of-line paths. */
static void kslot_pool_update_slow_locked(struct kslot_pool *pool)
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
static bool kslot_pool_reserve_put(struct kslot_pool *pool, void *obj)
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
static void *kslot_pool_reserve_get(struct kslot_pool *pool)
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
static void *kslot_pool_alloc_slow(struct kslot_pool *pool, gfp_t gfp)
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
	if (unlikely(kslot_pool_want_zero(gfp)))
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
		obj = kslot_pool_alloc_slow(pool, gfp);
	if (unlikely(!obj)) {
		obj = kslot_pool_reserve_get(pool);
		if (!obj)
			return NULL;
	}
	kslot_pool_alloc_finish(pool, obj, gfp);
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_pool_alloc_slowpath);

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
static void kslot_pool_cache_put(struct kslot_pool *pool,
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
		if (!kslot_pool_reserve_put(pool, obj))
			kslot_pool_pt_free(pool, obj);
		return;
	}
	if (unlikely(!kslot_pool_free_prepare(pool, obj, _RET_IP_)))
		return;
	if (kslot_pool_reserve_put(pool, obj))
		return;
	irqflags = kslot_pool_cpu_lock(&pool->hot);
	pc = this_cpu_ptr(pool->hot.cpu);
	kslot_pool_cache_put(pool, pc, obj);
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
		if (unlikely(kslot_pool_want_zero(gfp)))
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

/* Free up to @max wholly free slabs; return how many. */
static unsigned long kslot_pool_free_empty(struct kslot_pool *pool,
					   unsigned long max)
{
	struct kslot_pool_slab *slab, *tmp;
	unsigned long flags, n = 0;
	LIST_HEAD(victims);

	spin_lock_irqsave(&pool->lock, flags);
	list_for_each_entry_safe(slab, tmp, &pool->empty, list) {
		if (n == max)
			break;
		kslot_pool_unlink_slab_locked(pool, slab, &victims);
		n++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	list_for_each_entry_safe(slab, tmp, &victims, list)
		kslot_pool_free_slab(pool, slab);
	return n;
}

/**
 * kslot_pool_shrink() - Return wholly free slabs to the page allocator.
 * @pool: The pool.
 *
 * Drains every CPU's cache into the slabs first, so a slab counts as free
 * once every object carved from it has been freed, on whichever CPU.  A
 * pass-through pool has no slabs: nothing is done.
 *
 * Context: Process context; may sleep.  Takes the CPU hotplug read lock
 * and the pool lock, and waits for a work item on every CPU with cached
 * objects.
 * Return: The number of slabs freed.
 */
unsigned long kslot_pool_shrink(struct kslot_pool *pool)
{
	if (pool->passthrough)
		return 0;
	kslot_pool_drain_all(pool);
	return kslot_pool_free_empty(pool, ULONG_MAX);
}
EXPORT_SYMBOL_GPL(kslot_pool_shrink);

static struct kslot_pool *kslot_pool_of_shrinker(struct shrinker *s)
{
	return kslot_shrinker_private(s);
}

/*
 * The shrinker: objects in wholly free slabs, and in the reclaiming CPU's
 * cache (which the scan flushes first).  Racy reads: an estimate.
 */
static unsigned long kslot_pool_shrink_count(struct shrinker *s,
					     struct shrink_control *sc)
{
	struct kslot_pool *pool = kslot_pool_of_shrinker(s);
	unsigned long n;

	n = kslot_pool_racy(pool->nr_empty) * pool->objs_per_slab +
	    kslot_pool_racy(raw_cpu_ptr(pool->hot.cpu)->count);
	return n ?: SHRINK_EMPTY;
}

static unsigned long kslot_pool_shrink_scan(struct shrinker *s,
					    struct shrink_control *sc)
{
	struct kslot_pool *pool = kslot_pool_of_shrinker(s);

	kslot_pool_drain_local(pool);
	return kslot_pool_free_empty(pool, DIV_ROUND_UP(sc->nr_to_scan,
							pool->objs_per_slab)) *
	       pool->objs_per_slab;
}

static int kslot_pool_shrinker_register(struct kslot_pool *pool)
{
	pool->shrinker = NULL;
	if (!kslot_should_fail_alloc())
		pool->shrinker = kslot_shrinker_create("kslot_pool-", pool->name,
						       kslot_pool_shrink_count,
						       kslot_pool_shrink_scan,
						       pool);
	return pool->shrinker ? 0 : -ENOMEM;
}

static void kslot_pool_shrinker_unregister(struct kslot_pool *pool)
{
	kslot_shrinker_destroy(pool->shrinker);
	pool->shrinker = NULL;
}

/**
 * kslot_pool_size() - Object size of a pool.
 * @pool: The pool.
 *
 * Context: Any context.
 * Return: The size given at creation: the bytes a caller may use.
 */
size_t kslot_pool_size(const struct kslot_pool *pool)
{
	return pool->hot.size;
}
EXPORT_SYMBOL_GPL(kslot_pool_size);

/**
 * kslot_pool_get_stats() - Read a pool's counters.
 * @pool: The pool.
 * @st: Filled with the counters.
 *
 * The per-CPU counters are read without their locks, so the snapshot is
 * exact only while no allocation or free runs.  A pass-through pool counts
 * its objects (@objects, @in_use, @reserved) and nothing else.
 *
 * Context: Any context.  Takes and releases the pool lock.
 */
void kslot_pool_get_stats(struct kslot_pool *pool,
			  struct kslot_pool_stats *st)
{
	unsigned long flags;
	unsigned int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->hot.cpu, cpu);

		st->cached += kslot_pool_racy(pc->count);
		st->alloc_hits += kslot_pool_racy(pc->alloc_hits);
		st->alloc_misses += kslot_pool_racy(pc->alloc_misses);
		st->free_hits += kslot_pool_racy(pc->free_hits);
		st->free_misses += kslot_pool_racy(pc->free_misses);
	}
	spin_lock_irqsave(&pool->lock, flags);
	st->objects = pool->nr_objects;
	st->reserved = pool->nr_reserve;
	st->free = min(pool->nr_slab_free + st->cached,
		       st->objects - st->reserved);
	st->slabs = pool->nr_slabs;
	st->empty_slabs = pool->nr_empty;
	st->double_frees = pool->double_frees;
	st->bad_frees = pool->bad_frees;
	st->poison_errors = pool->poison_errors;
	spin_unlock_irqrestore(&pool->lock, flags);
	st->in_use = st->objects - st->free - st->reserved;
	st->objs_per_slab = pool->objs_per_slab;
	st->slab_bytes = kslot_pool_slab_bytes(pool);
}
EXPORT_SYMBOL_GPL(kslot_pool_get_stats);

static int kslot_pool_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_pool_stats st;

	kslot_pool_get_stats(m->private, &st);
	seq_printf(m, "in_use: %lu\nfree: %lu\nreserved: %lu\ncached: %lu\nobjects: %lu\n",
		   st.in_use, st.free, st.reserved, st.cached, st.objects);
	seq_printf(m, "slabs: %lu\nempty_slabs: %lu\nobjs_per_slab: %u\nslab_bytes: %u\n",
		   st.slabs, st.empty_slabs, st.objs_per_slab, st.slab_bytes);
	seq_printf(m, "alloc_hits: %llu\nalloc_misses: %llu\nfree_hits: %llu\nfree_misses: %llu\n",
		   st.alloc_hits, st.alloc_misses, st.free_hits,
		   st.free_misses);
	seq_printf(m, "double_frees: %lu\nbad_frees: %lu\npoison_errors: %lu\n",
		   st.double_frees, st.bad_frees, st.poison_errors);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_pool_stats);

/* Per-CPU cache size for an object stride, when the config leaves it 0. */
static unsigned int kslot_pool_default_cache(unsigned int stride)
{
	if (stride <= 256)
		return 64;
	if (stride <= 1024)
		return 32;
	if (stride <= 4096)
		return 16;
	return 8;
}

/*
 * Choose the slab order: the smallest one holding @want objects with at
 * most an eighth of the slab unused (counting only the @max objects a
 * limited pool will ever carve), else the smallest one holding @want,
 * else the largest, if it holds one object.
 */
static int kslot_pool_choose_order(struct kslot_pool_layout *l,
				   unsigned long want, unsigned long max)
{
	const size_t hdr = ALIGN(sizeof(struct kslot_pool_slab),
				 sizeof(void *));
	int order, first_fit = -1, any_fit = -1;

	for (order = 0; order <= KSLOT_POOL_MAX_ORDER; order++) {
		size_t bytes = PAGE_SIZE << order;
		size_t n = (bytes - hdr) / l->stride;
		size_t used = min_t(size_t, n, max);

		if (!n)
			continue;
		any_fit = order;
		if (n < want)
			continue;
		if (first_fit < 0)
			first_fit = order;
		if ((bytes - hdr - used * l->stride) * 8 <= bytes)
			break;
	}
	if (order > KSLOT_POOL_MAX_ORDER)
		order = first_fit >= 0 ? first_fit : any_fit;
	if (order < 0)
		return -EINVAL;
	l->order = order;
	l->hdr_offset = (PAGE_SIZE << order) - hdr;
	l->objs_per_slab = l->hdr_offset / l->stride;
	return 0;
}

static int kslot_pool_layout(const struct kslot_pool_config *cfg,
			     unsigned int flags, struct kslot_pool_layout *l)
{
	size_t align = max_t(size_t, cfg->align, sizeof(void *));
	unsigned long max;
	size_t slot;

	if (!cfg->size || cfg->size > PAGE_SIZE << KSLOT_POOL_MAX_ORDER)
		return -EINVAL;
	if (cfg->align && (!is_power_of_2(cfg->align) ||
			   cfg->align > KSLOT_POOL_MAX_ALIGN))
		return -EINVAL;
	if (cfg->cache_size > KSLOT_POOL_MAX_CACHE)
		return -EINVAL;
	if (cfg->ctor || (flags & KSLOT_POOL_DEBUG)) {
		/* The free pointer (and state word) go after the object. */
		l->fp_offset = ALIGN(cfg->size, sizeof(void *));
		slot = l->fp_offset + sizeof(void *);
		if (flags & KSLOT_POOL_DEBUG)
			slot += sizeof(unsigned long);
	} else {
		l->fp_offset = 0;
		slot = max_t(size_t, cfg->size, sizeof(void *));
	}
	l->stride = ALIGN(slot, align);
	max = cfg->max_objects ?: ULONG_MAX;
	if (kslot_pool_choose_order(l, min(max, KSLOT_POOL_MIN_OBJS), max))
		return -EINVAL;
	l->cache_size = cfg->cache_size ?:
			kslot_pool_default_cache(l->stride);
	return 0;
}

/*
 * local_lock_init() makes one lockdep class per call site: one site per
 * context mode, so that a task-only pool's cache (taken with interrupts
 * on) and a default pool's (taken in hardirq context) are not one class.
 */
static void kslot_pool_lock_init_task(local_lock_t *lock)
{
	local_lock_init(lock);
}

static void kslot_pool_lock_init_bh(local_lock_t *lock)
{
	local_lock_init(lock);
}

static void kslot_pool_lock_init_any(local_lock_t *lock)
{
	local_lock_init(lock);
}

static void kslot_pool_init_cpus(struct kslot_pool *pool)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->hot.cpu, cpu);
		struct kslot_pool_drain *d = per_cpu_ptr(pool->drain, cpu);

		if (pool->hot.flags & KSLOT_POOL_TASK)
			kslot_pool_lock_init_task(&pc->lock);
		else if (pool->hot.flags & KSLOT_POOL_BH)
			kslot_pool_lock_init_bh(&pc->lock);
		else
			kslot_pool_lock_init_any(&pc->lock);
		pc->count = 0;
		INIT_WORK(&d->work, kslot_pool_drain_work);
		d->pool = pool;
	}
}

/* The kmalloc() size of a pass-through object: its size, or a power of
 * two at least its alignment when kmalloc()'s own is not enough.
 */
static size_t kslot_pool_pt_size(const struct kslot_pool_config *cfg)
{
	if (cfg->align <= ARCH_KMALLOC_MINALIGN)
		return cfg->size;
	return roundup_pow_of_two(max(cfg->size, cfg->align));
}

/* Fill the reserve with @min_nr objects.  Return: 0 or -ENOMEM. */
static int kslot_pool_fill_reserve(struct kslot_pool *pool, gfp_t gfp)
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
			    kslot_pool_alloc_slow(pool, gfp);

		if (!obj)
			return -ENOMEM;
		kslot_pool_alloc_finish(pool, obj, gfp);
		/* The reserve is short: the free refills it. */
		kslot_pool_free_slowpath(pool, obj);
	}
	return 0;
}

/* Give the reserve back to the slabs (or kfree()) before destroying. */
static void kslot_pool_drop_reserve(struct kslot_pool *pool)
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

/**
 * kslot_pool_create() - Create an object pool.
 * @cfg: Object size, alignment, constructor, limits and flags.
 *
 * Allocates the pool, its per-CPU caches and its shrinker, and fills the
 * reserve; slabs are otherwise allocated on demand by kslot_pool_alloc().
 * A non-debug pool created while the kslot.pool_passthrough parameter is
 * set (by default on a kernel with CONFIG_KASAN) is a pass-through: see
 * the rules in include/linux/kslot_pool.h.
 *
 * Context: Process context; may sleep.
 * Return: The pool, ERR_PTR(-EINVAL) if @cfg has a zero or too large
 * size, an alignment that is not a power of two or exceeds
 * %KSLOT_POOL_MAX_ALIGN, a cache size above %KSLOT_POOL_MAX_CACHE, a
 * @min_nr above a nonzero @max_objects, unknown flags or both
 * %KSLOT_POOL_TASK and %KSLOT_POOL_BH, or ERR_PTR(-ENOMEM).
 */
struct kslot_pool *kslot_pool_create(const struct kslot_pool_config *cfg)
{
	unsigned int flags = cfg->flags;
	struct kslot_pool_layout l;
	struct kslot_pool *pool;
	gfp_t gfp = GFP_KERNEL;

	if (flags & ~KSLOT_POOL_FLAGS_ALL)
		return ERR_PTR(-EINVAL);
	if ((flags & KSLOT_POOL_TASK) && (flags & KSLOT_POOL_BH))
		return ERR_PTR(-EINVAL);
	if (cfg->max_objects && cfg->min_nr > cfg->max_objects)
		return ERR_PTR(-EINVAL);
	if (READ_ONCE(kslot_pool_debug_all))
		flags |= KSLOT_POOL_DEBUG;
	if (kslot_pool_layout(cfg, flags, &l))
		return ERR_PTR(-EINVAL);
	if (flags & KSLOT_POOL_ACCOUNT)
		gfp |= __GFP_ACCOUNT;

	if (kslot_should_fail_alloc())
		return ERR_PTR(-ENOMEM);
	pool = kzalloc(sizeof(*pool), gfp | __GFP_NOWARN);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	if (!kslot_should_fail_alloc())
		pool->hot.cpu = __alloc_percpu_gfp(struct_size(pool->hot.cpu,
							       objs,
							       l.cache_size),
						   __alignof__(struct kslot_pool_cpu),
						   gfp);
	if (!pool->hot.cpu)
		goto nomem;
	if (!kslot_should_fail_alloc())
		pool->drain = alloc_percpu_gfp(struct kslot_pool_drain, gfp);
	if (!pool->drain)
		goto nomem;

	pool->hot.flags = flags | (cfg->ctor ? __KSLOT_POOL_CTOR : 0);
	pool->hot.size = cfg->size;
	pool->hot.cache_size = l.cache_size;
	pool->batch = max(l.cache_size / 2, 1U);
	pool->stride = l.stride;
	pool->fp_offset = l.fp_offset;
	pool->order = l.order;
	pool->objs_per_slab = l.objs_per_slab;
	pool->hdr_offset = l.hdr_offset;
	pool->poison = (flags & KSLOT_POOL_DEBUG) && !cfg->ctor;
	pool->passthrough = !(flags & KSLOT_POOL_DEBUG) &&
			    READ_ONCE(kslot_pool_passthrough_all);
	pool->pt_size = kslot_pool_pt_size(cfg);
	pool->ctor = cfg->ctor;
	pool->max_objects = cfg->max_objects;
	pool->min_nr = cfg->min_nr;
	strscpy(pool->name, cfg->name ?: "anon", sizeof(pool->name));
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->partial);
	INIT_LIST_HEAD(&pool->full);
	INIT_LIST_HEAD(&pool->empty);
	pool->slab_tree = RB_ROOT;
	ratelimit_state_init(&pool->report_rs, 5 * HZ, 10);
	kslot_pool_init_cpus(pool);
	kslot_pool_update_slow_locked(pool);
	if (!pool->passthrough && kslot_pool_shrinker_register(pool))
		goto nomem;
	if (kslot_pool_fill_reserve(pool, gfp)) {
		kslot_pool_destroy(pool);
		return ERR_PTR(-ENOMEM);
	}
	if (cfg->name)
		pool->debugfs = kslot_debugfs_create("pool", cfg->name, pool,
						     &kslot_pool_stats_fops);
	return pool;

nomem:
	free_percpu(pool->drain);
	free_percpu(pool->hot.cpu);
	kfree(pool);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(kslot_pool_create);

/* Free every slab on @list and return how many objects were still out. */
static unsigned long kslot_pool_release_list(struct kslot_pool *pool,
					     struct list_head *list)
{
	struct kslot_pool_slab *slab, *tmp;
	unsigned long flags, out = 0;
	LIST_HEAD(victims);

	spin_lock_irqsave(&pool->lock, flags);
	list_for_each_entry_safe(slab, tmp, list, list) {
		out += slab->inuse;
		kslot_pool_unlink_slab_locked(pool, slab, &victims);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	list_for_each_entry_safe(slab, tmp, &victims, list)
		kslot_pool_free_slab(pool, slab);
	return out;
}

static void kslot_pool_free_struct(struct kslot_pool *pool)
{
	kfree(pool->reserve);
	free_percpu(pool->drain);
	free_percpu(pool->hot.cpu);
	kfree(pool);
}

/**
 * kslot_pool_destroy() - Destroy a pool.
 * @pool: The pool, or NULL.
 *
 * The caller must ensure nothing allocates from or frees to the pool any
 * more.  If objects are still allocated, their number is reported (a WARN
 * unless the pool has %KSLOT_POOL_NOWARN) and only the wholly free slabs
 * are released: the slabs still in use, and the pool itself, are leaked
 * rather than handed back to the page allocator under their users.
 *
 * Context: Process context; may sleep.
 */
void kslot_pool_destroy(struct kslot_pool *pool)
{
	unsigned long flags, in_use, slabs;
	unsigned int cpu;

	if (!pool)
		return;
	kslot_debugfs_remove(pool->debugfs);
	pool->debugfs = NULL;
	if (!pool->passthrough)
		kslot_pool_shrinker_unregister(pool);
	kslot_pool_drop_reserve(pool);
	if (pool->passthrough) {
		in_use = pool->nr_objects;
		if (in_use) {
			kslot_pool_report(pool,
					  "%lu objects still in use at destroy: leaking the pool",
					  in_use);
			return;
		}
		kslot_pool_free_struct(pool);
		return;
	}
	/* No users: every cache, online or not, is flushed from here. */
	for_each_possible_cpu(cpu) {
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->hot.cpu, cpu);

		spin_lock_irqsave(&pool->lock, flags);
		kslot_pool_flush_locked(pool, pc->objs, pc->count);
		spin_unlock_irqrestore(&pool->lock, flags);
		pc->count = 0;
	}
	kslot_pool_release_list(pool, &pool->empty);
	spin_lock_irqsave(&pool->lock, flags);
	in_use = pool->nr_objects - pool->nr_slab_free;
	slabs = pool->nr_slabs;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (in_use) {
		kslot_pool_report(pool,
				  "%lu objects still in use at destroy: leaking %lu slabs",
				  in_use, slabs);
		return;
	}
	kslot_pool_free_struct(pool);
}
EXPORT_SYMBOL_GPL(kslot_pool_destroy);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kslot_pool_test_reap() - Free what kslot_pool_destroy() leaked (KUnit).
 * @pool: A pool destroyed with objects still allocated.
 *
 * Context: Process context.
 * Return: The number of objects that were still allocated.
 */
unsigned long kslot_pool_test_reap(struct kslot_pool *pool)
{
	unsigned long out;

	if (pool->passthrough) {
		/* The objects are the caller's to kfree(). */
		out = pool->nr_objects;
		kslot_pool_free_struct(pool);
		return out;
	}
	out = kslot_pool_release_list(pool, &pool->partial);
	out += kslot_pool_release_list(pool, &pool->full);
	kslot_pool_free_struct(pool);
	return out;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_pool_test_reap);

/**
 * kslot_pool_test_stride() - Distance between objects of a pool (KUnit).
 * @pool: The pool.
 *
 * Context: Any context.
 * Return: The stride, to compute neighbour objects and interior pointers.
 */
unsigned int kslot_pool_test_stride(struct kslot_pool *pool)
{
	return pool->stride;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_pool_test_stride);

/**
 * kslot_pool_test_debug_all() - Set the pool_debug parameter (KUnit only).
 * @on: The new value.
 *
 * Context: Process context.
 * Return: The previous value.
 */
bool kslot_pool_test_debug_all(bool on)
{
	return xchg(&kslot_pool_debug_all, on);
}
EXPORT_SYMBOL_IF_KUNIT(kslot_pool_test_debug_all);

/**
 * kslot_pool_test_passthrough_all() - Set pool_passthrough (KUnit only).
 * @on: The new value: pools created from now on are pass-throughs.
 *
 * Context: Process context.
 * Return: The previous value.
 */
bool kslot_pool_test_passthrough_all(bool on)
{
	return xchg(&kslot_pool_passthrough_all, on);
}
EXPORT_SYMBOL_IF_KUNIT(kslot_pool_test_passthrough_all);

/**
 * kslot_pool_test_passthrough() - Is a pool a pass-through (KUnit only)?
 * @pool: The pool.
 *
 * Context: Any context.
 * Return: true if every object of @pool is its own kmalloc() object.
 */
bool kslot_pool_test_passthrough(struct kslot_pool *pool)
{
	return pool->passthrough;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_pool_test_passthrough);

/**
 * kslot_pool_test_shrinker() - The shrinker of a pool (KUnit only).
 * @pool: A pool that is not a pass-through.
 *
 * Context: Any context.
 * Return: The shrinker, whose callbacks a test may call.
 */
struct shrinker *kslot_pool_test_shrinker(struct kslot_pool *pool)
{
	return pool->shrinker;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_pool_test_shrinker);
#endif
