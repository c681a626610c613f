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

/* Objects per slab the order choice aims for. */
#define KSLOT_POOL_MIN_OBJS	8UL
/* Debug-mode state words; anything else is a corrupted state. */
#define KSLOT_POOL_STATE_FREE	0x6b736c6f74465245UL
#define KSLOT_POOL_STATE_LIVE	0x6b736c6f744c4956UL

/**
 * struct kslot_pool_cpu - One CPU's cache of free objects.
 * @lock: Protects the cache; taken with interrupts disabled.
 * @count: Objects in @objs.
 * @alloc_hits: Allocations served from the cache.
 * @alloc_misses: Allocations that refilled the cache.
 * @free_hits: Frees that went straight into the cache.
 * @free_misses: Frees that flushed a batch first.
 * @objs: The cached objects, a stack of pool->cache_size entries.
 */
struct kslot_pool_cpu {
	local_lock_t lock;
	unsigned int count;
	unsigned long alloc_hits;
	unsigned long alloc_misses;
	unsigned long free_hits;
	unsigned long free_misses;
	void *objs[];
};

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
 * @cpu: Per-CPU caches.
 * @flags: %KSLOT_POOL_* flags.
 * @size: Object size asked for.
 * @cache_size: Capacity of each per-CPU cache.
 * @batch: Objects moved by one refill or flush.
 * @stride: Distance between objects in a slab.
 * @fp_offset: Offset of the free pointer in an object slot.
 * @order: Page order of a slab.
 * @objs_per_slab: Objects in a full slab.
 * @hdr_offset: Offset of the slab header in a slab.
 * @poison: Debug mode poisons free objects (no constructor).
 * @ctor: Object constructor, or NULL.
 * @max_objects: Limit on carved objects; 0 for none.
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
 * @double_frees: Debug mode: double frees refused.
 * @bad_frees: Debug mode: foreign pointers refused.
 * @poison_errors: Debug mode: poison or state corruption found.
 * @report_rs: Rate limit of misuse reports.
 */
struct kslot_pool {
	/* Read-mostly; the fast paths read nothing else. */
	struct kslot_pool_cpu __percpu *cpu;
	unsigned int flags;
	unsigned int size;
	unsigned int cache_size;
	unsigned int batch;
	unsigned int stride;
	unsigned int fp_offset;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int hdr_offset;
	bool poison;
	void (*ctor)(void *obj);
	unsigned long max_objects;
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
	return pool->flags & KSLOT_POOL_DEBUG;
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
	if (pool->flags & KSLOT_POOL_NOWARN)
		pr_err("kslot_pool %s: %pV\n", pool->name, &vaf);
	else
		WARN(1, "kslot_pool %s: %pV\n", pool->name, &vaf);
	va_end(args);
}

static gfp_t kslot_pool_gfp(const struct kslot_pool *pool, gfp_t gfp)
{
	return kslot_gfp(gfp & ~(__GFP_ZERO | __GFP_COMP),
			 pool->flags & KSLOT_POOL_ACCOUNT);
}

/* Should an allocation hand out zeroed memory? */
static bool kslot_pool_want_zero(const struct kslot_pool *pool, gfp_t gfp)
{
	if (gfp & __GFP_ZERO)
		return true;
	return !pool->ctor && want_init_on_alloc(gfp);
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
		bad = memchr_inv(obj, POISON_FREE, pool->size);
	if (old != KSLOT_POOL_STATE_FREE || bad)
		pool->poison_errors++;
	*state = KSLOT_POOL_STATE_LIVE;
	spin_unlock_irqrestore(&pool->lock, flags);

	if (old != KSLOT_POOL_STATE_FREE)
		kslot_pool_report(pool, "allocated object %p has a corrupted state word %#lx",
				  obj, old);
	else if (bad)
		kslot_pool_report(pool, "object %p was modified after free (byte %td of %u)",
				  obj, bad - obj, pool->size);
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
			memset(obj, POISON_FREE, pool->size);
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

/* Move up to a batch of objects from the slabs into a CPU's cache. */
static void kslot_pool_refill_locked(struct kslot_pool *pool,
				     struct kslot_pool_cpu *pc)
	__must_hold(&pool->lock)
{
	while (pc->count < pool->batch) {
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
		while (pc->count < pool->batch && slab->freelist) {
			void *obj = slab->freelist;

			slab->freelist = *kslot_pool_fp(pool, obj);
			slab->inuse++;
			pool->nr_slab_free--;
			pc->objs[pc->count++] = obj;
		}
		if (!slab->freelist)
			list_move(&slab->list, &pool->full);
	}
}

/* Flush this CPU's whole cache back to the slabs. */
static void kslot_pool_drain_local(struct kslot_pool *pool)
{
	struct kslot_pool_cpu *pc;
	unsigned long flags;

	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	if (pc->count) {
		spin_lock(&pool->lock);
		kslot_pool_flush_locked(pool, pc->objs, pc->count);
		spin_unlock(&pool->lock);
		pc->count = 0;
	}
	local_unlock_irqrestore(&pool->cpu->lock, flags);
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
		if (READ_ONCE(per_cpu_ptr(pool->cpu, cpu)->count))
			queue_work_on(cpu, system_wq,
				      &per_cpu_ptr(pool->drain, cpu)->work);
	for_each_online_cpu(cpu)
		flush_work(&per_cpu_ptr(pool->drain, cpu)->work);
	for_each_possible_cpu(cpu) {
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->cpu, cpu);

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
				memset(obj, POISON_FREE, pool->size);
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

/*
 * The allocation slow path: refill this CPU's cache from the slabs, else
 * grow the pool by a slab (with both locks dropped), else, at the limit,
 * drain every CPU's cache once if the caller may sleep.  Called with the
 * CPU cache lock held; returns with it released.
 */
static void *kslot_pool_alloc_slow(struct kslot_pool *pool, gfp_t gfp,
				   unsigned long flags)
{
	struct kslot_pool_slab *slab = NULL;
	struct kslot_pool_cpu *pc;
	bool drained = false;
	void *obj;

	pc = this_cpu_ptr(pool->cpu);
	pc->alloc_misses++;
	for (;;) {
		spin_lock(&pool->lock);
		if (slab) {
			kslot_pool_add_slab_locked(pool, slab);
			slab = NULL;
		}
		if (!pc->count)
			kslot_pool_refill_locked(pool, pc);
		spin_unlock(&pool->lock);
		if (pc->count)
			break;
		local_unlock_irqrestore(&pool->cpu->lock, flags);

		slab = kslot_pool_new_slab(pool, gfp);
		if (IS_ERR(slab)) {
			if (PTR_ERR(slab) != -ENOSPC || drained ||
			    !gfpflags_allow_blocking(gfp))
				return NULL;
			kslot_pool_drain_all(pool);
			drained = true;
			slab = NULL;
		}
		local_lock_irqsave(&pool->cpu->lock, flags);
		pc = this_cpu_ptr(pool->cpu);
	}
	obj = pc->objs[--pc->count];
	local_unlock_irqrestore(&pool->cpu->lock, flags);
	return obj;
}

/* Debug checks and zeroing of an object being handed out. */
static void kslot_pool_alloc_finish(struct kslot_pool *pool, void *obj,
				    gfp_t gfp)
{
	if (unlikely(kslot_pool_debug(pool)))
		kslot_pool_debug_alloc(pool, obj);
	if (unlikely(kslot_pool_want_zero(pool, gfp)))
		memset(obj, 0, pool->size);
}

/**
 * kslot_pool_alloc() - Allocate an object.
 * @pool: The pool.
 * @gfp: Allocation flags, used only if the pool must grow.  __GFP_ZERO
 *	zeroes the object (even in a pool with a constructor).
 *
 * Takes an object from this CPU's cache; on a miss, refills the cache
 * with a batch from the slabs, growing the pool by one slab if they have
 * none free.  An object from a pool with a constructor is in its
 * constructed state; otherwise its contents are undefined unless
 * __GFP_ZERO (or init_on_alloc) asks for zeroes.
 *
 * Context: Any context; process context if @gfp allows sleeping.  Takes
 * the CPU cache lock with interrupts disabled, and the pool lock on a
 * miss.
 * Return: The object, or NULL if memory for a new slab could not be
 * allocated or the pool holds max_objects allocated objects.
 */
void *kslot_pool_alloc(struct kslot_pool *pool, gfp_t gfp)
{
	struct kslot_pool_cpu *pc;
	unsigned long flags;
	void *obj;

	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	if (likely(pc->count)) {
		obj = pc->objs[--pc->count];
		pc->alloc_hits++;
		local_unlock_irqrestore(&pool->cpu->lock, flags);
	} else {
		obj = kslot_pool_alloc_slow(pool, gfp, flags);
		if (unlikely(!obj))
			return NULL;
	}
	kslot_pool_alloc_finish(pool, obj, gfp);
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_pool_alloc);

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
	kasan_check_write(obj, pool->size);
	if (unlikely(want_init_on_free()) && !pool->ctor)
		memset(obj, 0, pool->size);
	return true;
}

/* Make room in a full CPU cache by flushing its oldest batch. */
static void kslot_pool_free_slow(struct kslot_pool *pool,
				 struct kslot_pool_cpu *pc)
{
	pc->free_misses++;
	spin_lock(&pool->lock);
	kslot_pool_flush_locked(pool, pc->objs, pool->batch);
	spin_unlock(&pool->lock);
	pc->count -= pool->batch;
	memmove(pc->objs, pc->objs + pool->batch,
		pc->count * sizeof(pc->objs[0]));
}

/**
 * kslot_pool_free() - Give an object back to its pool.
 * @pool: The pool the object was allocated from.
 * @obj: The object, or NULL (nothing is done).
 *
 * The object goes into this CPU's cache; a full cache first flushes a
 * batch of its oldest objects back to their slabs.  Freeing an object
 * twice, or a pointer that is not an object of @pool, corrupts the pool
 * unless it runs in debug mode, which refuses and reports both.
 *
 * Context: Any context.  Takes the CPU cache lock with interrupts
 * disabled, and the pool lock when the cache is full (or in debug mode).
 */
void kslot_pool_free(struct kslot_pool *pool, void *obj)
{
	struct kslot_pool_cpu *pc;
	unsigned long flags;

	if (unlikely(!obj))
		return;
	if (unlikely(!kslot_pool_free_prepare(pool, obj, _RET_IP_)))
		return;
	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	if (unlikely(pc->count == pool->cache_size))
		kslot_pool_free_slow(pool, pc);
	else
		pc->free_hits++;
	pc->objs[pc->count++] = obj;
	local_unlock_irqrestore(&pool->cpu->lock, flags);
}
EXPORT_SYMBOL_GPL(kslot_pool_free);

/**
 * kslot_pool_alloc_bulk() - Allocate several objects at once.
 * @pool: The pool.
 * @gfp: As for kslot_pool_alloc().
 * @nr: Number of objects wanted.
 * @objs: Array of at least @nr entries, filled with the objects.
 *
 * All or nothing: on failure no object stays allocated.  Objects in this
 * CPU's cache are taken under one lock acquisition; the rest come one by
 * one through kslot_pool_alloc().
 *
 * Context: As kslot_pool_alloc().
 * Return: 0, or -ENOMEM if not all @nr objects could be allocated (memory
 * for a slab failed or the pool reached max_objects).
 */
int kslot_pool_alloc_bulk(struct kslot_pool *pool, gfp_t gfp, size_t nr,
			  void **objs)
{
	struct kslot_pool_cpu *pc;
	unsigned long flags;
	size_t i, n;

	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	n = min_t(size_t, nr, pc->count);
	for (i = 0; i < n; i++)
		objs[i] = pc->objs[--pc->count];
	pc->alloc_hits += n;
	local_unlock_irqrestore(&pool->cpu->lock, flags);
	for (i = 0; i < n; i++)
		kslot_pool_alloc_finish(pool, objs[i], gfp);
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
	struct kslot_pool_cpu *pc;
	unsigned long flags;
	size_t i;

	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	for (i = 0; i < nr; i++) {
		if (!objs[i] || !kslot_pool_free_prepare(pool, objs[i],
							 _RET_IP_))
			continue;
		if (pc->count == pool->cache_size)
			kslot_pool_free_slow(pool, pc);
		else
			pc->free_hits++;
		pc->objs[pc->count++] = objs[i];
	}
	local_unlock_irqrestore(&pool->cpu->lock, flags);
}
EXPORT_SYMBOL_GPL(kslot_pool_free_bulk);

/**
 * kslot_pool_shrink() - Return wholly free slabs to the page allocator.
 * @pool: The pool.
 *
 * Drains every CPU's cache into the slabs first, so a slab counts as free
 * once every object carved from it has been freed, on whichever CPU.
 *
 * Context: Process context; may sleep.  Takes the CPU hotplug read lock
 * and the pool lock, and waits for a work item on every CPU with cached
 * objects.
 * Return: The number of slabs freed.
 */
unsigned long kslot_pool_shrink(struct kslot_pool *pool)
{
	struct kslot_pool_slab *slab, *tmp;
	unsigned long flags, n = 0;
	LIST_HEAD(victims);

	kslot_pool_drain_all(pool);
	spin_lock_irqsave(&pool->lock, flags);
	list_for_each_entry_safe(slab, tmp, &pool->empty, list) {
		kslot_pool_unlink_slab_locked(pool, slab, &victims);
		n++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	list_for_each_entry_safe(slab, tmp, &victims, list)
		kslot_pool_free_slab(pool, slab);
	return n;
}
EXPORT_SYMBOL_GPL(kslot_pool_shrink);

/**
 * kslot_pool_size() - Object size of a pool.
 * @pool: The pool.
 *
 * Context: Any context.
 * Return: The size given at creation: the bytes a caller may use.
 */
size_t kslot_pool_size(const struct kslot_pool *pool)
{
	return pool->size;
}
EXPORT_SYMBOL_GPL(kslot_pool_size);

/**
 * kslot_pool_get_stats() - Read a pool's counters.
 * @pool: The pool.
 * @st: Filled with the counters.
 *
 * The per-CPU counters are read without their locks, so the snapshot is
 * exact only while no allocation or free runs.
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
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->cpu, cpu);

		st->cached += READ_ONCE(pc->count);
		st->alloc_hits += READ_ONCE(pc->alloc_hits);
		st->alloc_misses += READ_ONCE(pc->alloc_misses);
		st->free_hits += READ_ONCE(pc->free_hits);
		st->free_misses += READ_ONCE(pc->free_misses);
	}
	spin_lock_irqsave(&pool->lock, flags);
	st->objects = pool->nr_objects;
	st->free = min(pool->nr_slab_free + st->cached, st->objects);
	st->slabs = pool->nr_slabs;
	st->empty_slabs = pool->nr_empty;
	st->double_frees = pool->double_frees;
	st->bad_frees = pool->bad_frees;
	st->poison_errors = pool->poison_errors;
	spin_unlock_irqrestore(&pool->lock, flags);
	st->in_use = st->objects - st->free;
	st->objs_per_slab = pool->objs_per_slab;
	st->slab_bytes = kslot_pool_slab_bytes(pool);
}
EXPORT_SYMBOL_GPL(kslot_pool_get_stats);

static int kslot_pool_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_pool_stats st;

	kslot_pool_get_stats(m->private, &st);
	seq_printf(m, "in_use: %lu\nfree: %lu\ncached: %lu\nobjects: %lu\n",
		   st.in_use, st.free, st.cached, st.objects);
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

static void kslot_pool_init_cpus(struct kslot_pool *pool)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->cpu, cpu);
		struct kslot_pool_drain *d = per_cpu_ptr(pool->drain, cpu);

		local_lock_init(&pc->lock);
		pc->count = 0;
		INIT_WORK(&d->work, kslot_pool_drain_work);
		d->pool = pool;
	}
}

/**
 * kslot_pool_create() - Create an object pool.
 * @cfg: Object size, alignment, constructor, limits and flags.
 *
 * Allocates the pool and its per-CPU caches; slabs are allocated on
 * demand by kslot_pool_alloc().
 *
 * Context: Process context; may sleep.
 * Return: The pool, ERR_PTR(-EINVAL) if @cfg has a zero or too large
 * size, an alignment that is not a power of two or exceeds
 * %KSLOT_POOL_MAX_ALIGN, a cache size above %KSLOT_POOL_MAX_CACHE or
 * unknown flags, or ERR_PTR(-ENOMEM).
 */
struct kslot_pool *kslot_pool_create(const struct kslot_pool_config *cfg)
{
	unsigned int flags = cfg->flags;
	struct kslot_pool_layout l;
	struct kslot_pool *pool;
	gfp_t gfp = GFP_KERNEL;

	if (flags & ~KSLOT_POOL_FLAGS_ALL)
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
		pool->cpu = __alloc_percpu_gfp(struct_size(pool->cpu, objs,
							   l.cache_size),
					       __alignof__(struct kslot_pool_cpu),
					       gfp);
	if (!pool->cpu)
		goto nomem;
	if (!kslot_should_fail_alloc())
		pool->drain = alloc_percpu_gfp(struct kslot_pool_drain, gfp);
	if (!pool->drain)
		goto nomem;

	pool->flags = flags;
	pool->size = cfg->size;
	pool->cache_size = l.cache_size;
	pool->batch = max(l.cache_size / 2, 1U);
	pool->stride = l.stride;
	pool->fp_offset = l.fp_offset;
	pool->order = l.order;
	pool->objs_per_slab = l.objs_per_slab;
	pool->hdr_offset = l.hdr_offset;
	pool->poison = (flags & KSLOT_POOL_DEBUG) && !cfg->ctor;
	pool->ctor = cfg->ctor;
	pool->max_objects = cfg->max_objects;
	strscpy(pool->name, cfg->name ?: "anon", sizeof(pool->name));
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->partial);
	INIT_LIST_HEAD(&pool->full);
	INIT_LIST_HEAD(&pool->empty);
	pool->slab_tree = RB_ROOT;
	ratelimit_state_init(&pool->report_rs, 5 * HZ, 10);
	kslot_pool_init_cpus(pool);
	if (cfg->name)
		pool->debugfs = kslot_debugfs_create("pool", cfg->name, pool,
						     &kslot_pool_stats_fops);
	return pool;

nomem:
	free_percpu(pool->cpu);
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
	free_percpu(pool->drain);
	free_percpu(pool->cpu);
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
	/* No users: every cache, online or not, is flushed from here. */
	for_each_possible_cpu(cpu) {
		struct kslot_pool_cpu *pc = per_cpu_ptr(pool->cpu, cpu);

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
#endif
