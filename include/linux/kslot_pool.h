/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_pool: a slab-style pool of fixed-size objects.
 *
 * Objects are carved from slabs: naturally aligned blocks of 2^order pages
 * from the page allocator, with a small slab header at the end of each
 * block, so an object's slab is found by masking its address.  A free
 * object holds the free list link inside itself (after the object when the
 * pool has a constructor or runs in debug mode, so neither the constructed
 * state nor the poison is overwritten).  Every CPU keeps a small cache of
 * free objects (a magazine): kslot_pool_alloc() and kslot_pool_free() are
 * inline and, on a hit, only pop or push that cache under its local lock,
 * with no shared lock, atomic operation or function call.  A miss refills,
 * and a full cache flushes, a batch of objects under the pool lock, out of
 * line.
 *
 * Rules:
 *
 * +-------------------------+-----------------------+--------------------+
 * | operation               | lock                  | may sleep          |
 * +-------------------------+-----------------------+--------------------+
 * | kslot_pool_alloc(),     | per-CPU cache (local  | only if gfp allows |
 * | kslot_pool_alloc_bulk() | lock, see the context |                    |
 * |                         | flags); pool lock on  |                    |
 * |                         | a miss, dropped to    |                    |
 * |                         | grow                  |                    |
 * | kslot_pool_free(),      | per-CPU cache; pool   | no                 |
 * | kslot_pool_free_bulk()  | lock to flush a full  |                    |
 * |                         | cache or refill the   |                    |
 * |                         | reserve               |                    |
 * | kslot_pool_stats()      | pool lock             | no                 |
 * | kslot_pool_shrink()     | CPU hotplug lock,     | yes                |
 * |                         | pool lock             |                    |
 * | kslot_pool_create(),    | none                  | yes                |
 * | kslot_pool_destroy()    | caller: no users      |                    |
 * +-------------------------+-----------------------+--------------------+
 *
 * - Context: by default allocation and free work in any context, hard
 *   interrupts included: the per-CPU cache is taken with
 *   local_lock_irqsave() and the pool lock with spin_lock_irqsave().
 *   %KSLOT_POOL_TASK promises that the pool is used from task context only
 *   (never from a softirq or hardirq handler, nor with interrupts
 *   disabled): the cache is then taken with local_lock(), which on a
 *   non-RT kernel only disables preemption.  %KSLOT_POOL_BH allows softirq
 *   context too and disables bottom halves around the cache instead.  On
 *   PREEMPT_RT the local lock is a per-CPU sleeping lock in every mode and
 *   the pool lock a sleeping spinlock, so hardirq context (and callers
 *   holding a raw spinlock) are not supported there.
 * - A pool grows only when the gfp flags given to the allocation allow it
 *   to get pages.
 * - max_objects bounds the objects the pool carves, free or not.  Free
 *   objects may sit in other CPUs' caches; when an allocation that may
 *   sleep finds the pool at its limit, it drains every CPU's cache first,
 *   so it fails only when max_objects objects really are allocated.  That
 *   drain flushes per-CPU work on system_wq under cpus_read_lock(), so
 *   such an allocation must not come from a WQ_MEM_RECLAIM worker or a
 *   CPU-hotplug callback.
 * - Reserve (@min_nr): like mempool_create(), the pool keeps that many
 *   objects aside.  An allocation the allocator refuses (no memory for a
 *   slab, or max_objects reached) is served from the reserve, and frees
 *   refill the reserve before anything else.
 * - Memory pressure: every pool but one made with %KSLOT_POOL_NOSHRINKER
 *   (whose owner trims it) registers a shrinker.  Under reclaim it
 *   flushes the reclaiming CPU's cache and returns the slabs whose objects
 *   are all free.  kslot_pool_shrink() does the same on demand, after
 *   draining every CPU's cache.
 * - kslot_pool_destroy() with objects still allocated reports their number
 *   (a WARN, or an error line with %KSLOT_POOL_NOWARN), frees only the
 *   wholly free slabs and leaks the pool with the slabs still in use: the
 *   memory of an object a driver forgot is never reused under it.
 * - Debug mode (%KSLOT_POOL_DEBUG, or the kslot.pool_debug module
 *   parameter for every pool created while it is set) tracks each object's
 *   state in a word after the object and takes the pool lock on every
 *   alloc and free.  It poisons freed objects (unless the pool has a
 *   constructor) and checks the poison on allocation, and refuses a double
 *   free, a pointer outside the pool's slabs and a pointer into the middle
 *   of an object: each is reported, counted in the stats, and leaves the
 *   pool untouched.  A debug pool always uses its own slabs.
 * - Sanitizers: KASAN and KFENCE cannot see inside the pool's own slabs.
 *   So on a kernel built with CONFIG_KASAN every pool created while the
 *   kslot.pool_passthrough module parameter is set (its default there) is
 *   a pass-through: each object is its own kmalloc() object, so KASAN
 *   reports a use after free or an out-of-bounds access of a pool object
 *   like any other (and KFENCE samples them).  The per-CPU caches, the
 *   slabs and their statistics are then unused; limits, the reserve,
 *   zeroing and the constructor (run on every allocation) work as before.
 *   Setting the parameter to 0 keeps the pool's own slab path under test
 *   on such a kernel; there kslot_pool_free() still checks the object with
 *   kasan_check_write().
 * - Not for objects that RCU readers may still see after the free: use
 *   kslot_objtable, or call_rcu() before kslot_pool_free().  An RCU
 *   callback runs in softirq context, so a pool freed into from call_rcu()
 *   must not be %KSLOT_POOL_TASK (%KSLOT_POOL_BH or no context flag);
 *   a %KSLOT_POOL_TASK pool frees a grace period later from task
 *   context, e.g. queue_rcu_work().  On a kernel with lockdep
 *   (CONFIG_PROVE_LOCKING) each allocation or free of a %KSLOT_POOL_TASK
 *   pool outside task context, or with interrupts disabled, is reported
 *   and counted (&struct kslot_pool_stats.context_errors); elsewhere the
 *   check compiles away.
 */
#ifndef _LINUX_KSLOT_POOL_H
#define _LINUX_KSLOT_POOL_H

#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/kasan-checks.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/types.h>

struct kslot_pool;

/* Debug mode: poison, state tracking, double-free and pointer checks. */
#define KSLOT_POOL_DEBUG	BIT(0)
/* Charge the slabs (and the pool itself) to the current memcg. */
#define KSLOT_POOL_ACCOUNT	BIT(1)
/*
 * Report misuse (double free, foreign pointer, poison, objects left at
 * destroy) on one error line without a WARN backtrace.  Meant for tests
 * that provoke misuse on purpose.
 */
#define KSLOT_POOL_NOWARN	BIT(2)
/*
 * Used from task context only: never from a softirq or hardirq handler
 * (an RCU callback of call_rcu() included), nor with interrupts disabled.
 * The per-CPU cache is taken with local_lock() (preemption off) instead
 * of local_lock_irqsave().
 */
#define KSLOT_POOL_TASK		BIT(3)
/*
 * Used from task and softirq context, never from a hardirq handler: the
 * per-CPU cache is taken with bottom halves disabled instead of
 * interrupts.
 */
#define KSLOT_POOL_BH		BIT(4)
/*
 * Always carve the pool's own slabs, even while kslot.pool_passthrough
 * asks for a kmalloc() object each (KASAN's kernels): for a caller that
 * charges the slabs whole, and must see them as slabs wherever it runs.
 * KASAN then sees an object only through kslot_pool_free()'s check.
 */
#define KSLOT_POOL_SLABS	BIT(5)
/*
 * No shrinker: the caller gives the pool's empty slabs back itself, with
 * kslot_pool_trim() after each batch of frees.  A trim drains only its own
 * CPU's cache: up to the cache size of objects per CPU, with their slabs,
 * stay until that CPU trims or the pool is destroyed, so such a pool
 * wants a small cache (kslot_pool_bytes() counts those slabs).  For
 * pools made on demand by an unprivileged user (a table of /dev/kslot
 * each), whose number must not lengthen every reclaim's walk of the
 * shrinkers, nor each pin a shrinker that nothing charges.
 */
#define KSLOT_POOL_NOSHRINKER	BIT(6)
#define KSLOT_POOL_FLAGS_ALL	(KSLOT_POOL_DEBUG | KSLOT_POOL_ACCOUNT | \
				 KSLOT_POOL_NOWARN | KSLOT_POOL_TASK | \
				 KSLOT_POOL_BH | KSLOT_POOL_SLABS | \
				 KSLOT_POOL_NOSHRINKER)

/* Largest object alignment a pool supports. */
#define KSLOT_POOL_MAX_ALIGN	PAGE_SIZE
/* Largest slab: 2^KSLOT_POOL_MAX_ORDER pages. */
#define KSLOT_POOL_MAX_ORDER	3
/* Largest per-CPU cache. */
#define KSLOT_POOL_MAX_CACHE	256
/* Longest pool name kept (longer names are truncated). */
#define KSLOT_POOL_NAME_LEN	32

/**
 * struct kslot_pool_config - Parameters of kslot_pool_create().
 * @name: Name used in reports and for the debugfs file kslot/pool-@name;
 *	NULL for an anonymous pool without a debugfs file.
 * @size: Object size in bytes, at least 1.  Slabs are at most
 *	2^%KSLOT_POOL_MAX_ORDER pages, which bounds the size.
 * @align: Object alignment: 0 for the default (that of a pointer), else
 *	a power of two up to %KSLOT_POOL_MAX_ALIGN.
 * @ctor: Called once for every object when its slab is created, without
 *	any lock held, in the context of the allocation that grew the pool.
 *	Objects must go back to the pool in their constructed state.
 * @max_objects: Most objects the pool may carve; 0 for no limit.
 * @cache_size: Objects each CPU caches; 0 picks a size from @size.
 * @min_nr: Objects kept in reserve (as mempool_create() keeps them) for
 *	allocations the allocator refuses; 0 for none.  Counted against
 *	@max_objects, so it must not exceed it.
 * @flags: %KSLOT_POOL_DEBUG, %KSLOT_POOL_ACCOUNT, %KSLOT_POOL_NOWARN, and
 *	at most one of %KSLOT_POOL_TASK and %KSLOT_POOL_BH.
 */
struct kslot_pool_config {
	const char *name;
	size_t size;
	size_t align;
	void (*ctor)(void *obj);
	unsigned long max_objects;
	unsigned int cache_size;
	unsigned int min_nr;
	unsigned int flags;
};

/**
 * struct kslot_pool_stats - A snapshot of a pool's counters.
 * @in_use: Objects allocated and not freed.
 * @free: Free objects, in the slabs and in the per-CPU caches.
 * @reserved: Free objects in the reserve (at most the pool's min_nr).
 * @cached: Of @free, the objects in per-CPU caches.
 * @objects: Objects carved from the slabs, or allocated by a pass-through
 *	pool (@in_use + @free + @reserved).
 * @slabs: Slabs the pool holds.
 * @empty_slabs: Slabs whose objects are all free (what shrink returns),
 *	not counting objects that sit in per-CPU caches.
 * @objs_per_slab: Objects one slab holds.
 * @slab_bytes: Size of one slab.
 * @alloc_hits: Allocations served by the per-CPU cache.
 * @alloc_misses: Allocations that had to refill the per-CPU cache.
 * @free_hits: Frees that went into the per-CPU cache.
 * @free_misses: Frees that found the cache full and flushed a batch.
 * @double_frees: Debug mode: frees of an object already free.
 * @bad_frees: Debug mode: frees of a pointer that is not an object of
 *	this pool.
 * @poison_errors: Debug mode: objects found modified while free, or with
 *	a corrupted state word.
 * @context_errors: Lockdep kernels: allocations and frees of a
 *	%KSLOT_POOL_TASK pool outside task context or with interrupts
 *	disabled (each reported as it happens).
 */
struct kslot_pool_stats {
	unsigned long in_use;
	unsigned long free;
	unsigned long reserved;
	unsigned long cached;
	unsigned long objects;
	unsigned long slabs;
	unsigned long empty_slabs;
	unsigned int objs_per_slab;
	unsigned int slab_bytes;
	u64 alloc_hits;
	u64 alloc_misses;
	u64 free_hits;
	u64 free_misses;
	unsigned long double_frees;
	unsigned long bad_frees;
	unsigned long poison_errors;
	unsigned long context_errors;
};

/*
 * What the inline fast paths need to see of a pool.  Nothing here is API:
 * the layout may change with any release.
 */
struct kslot_pool_cpu {
	/* private: */
	local_lock_t lock;
	unsigned int count;		/* objects in objs[] */
	unsigned long alloc_hits;	/* allocations served here */
	unsigned long alloc_misses;	/* allocations that refilled */
	unsigned long free_hits;	/* frees that went straight in */
	unsigned long free_misses;	/* frees that flushed a batch */
	void *objs[];			/* a stack of cache_size objects */
};

/* Private flags of struct kslot_pool_hot. */
#define __KSLOT_POOL_CTOR	BIT(31)	/* the pool has a constructor */
/* ->slow: reasons for the out-of-line paths. */
#define __KSLOT_POOL_SLOW_ALLOC	BIT(0)	/* debug mode or pass-through */
#define __KSLOT_POOL_SLOW_FREE	BIT(1)	/* the same, or the reserve is low */

/* The first member of every struct kslot_pool. */
struct kslot_pool_hot {
	/* private: */
	struct kslot_pool_cpu __percpu *cpu;
	unsigned int flags;		/* KSLOT_POOL_* and __KSLOT_POOL_CTOR */
	unsigned int slow;		/* __KSLOT_POOL_SLOW_* */
	unsigned int size;		/* object size */
	unsigned int cache_size;	/* capacity of objs[] */
};

struct kslot_pool *kslot_pool_create(const struct kslot_pool_config *cfg);
void kslot_pool_destroy(struct kslot_pool *pool);
void *kslot_pool_alloc_slowpath(struct kslot_pool *pool, gfp_t gfp);
void *kslot_pool_alloc_nogrow(struct kslot_pool *pool);
void kslot_pool_free_slowpath(struct kslot_pool *pool, void *obj);
int kslot_pool_alloc_bulk(struct kslot_pool *pool, gfp_t gfp, size_t nr,
			  void **objs);
void kslot_pool_free_bulk(struct kslot_pool *pool, size_t nr, void **objs);
unsigned long kslot_pool_shrink(struct kslot_pool *pool);
unsigned long kslot_pool_trim(struct kslot_pool *pool);
size_t kslot_pool_bytes(const struct kslot_pool *pool);
size_t kslot_pool_create_bytes(const struct kslot_pool_config *cfg);
size_t kslot_pool_grow_bytes(const struct kslot_pool *pool);
size_t kslot_pool_obj_bytes(const struct kslot_pool *pool);
size_t kslot_pool_size(const struct kslot_pool *pool);
void kslot_pool_stats(struct kslot_pool *pool,
		      struct kslot_pool_stats *st);
void kslot_pool_context_error(struct kslot_pool *pool, unsigned long ip);

static __always_inline struct kslot_pool_hot *
kslot_pool_hot(struct kslot_pool *pool)
{
	return (struct kslot_pool_hot *)pool;
}

/*
 * A %KSLOT_POOL_TASK pool used outside task context: reported on lockdep
 * kernels only, so that production builds pay nothing.
 */
static __always_inline void kslot_pool_check_context(struct kslot_pool *pool)
{
#ifdef CONFIG_PROVE_LOCKING
	if (unlikely((kslot_pool_hot(pool)->flags & KSLOT_POOL_TASK) &&
		     (!in_task() || irqs_disabled())))
		kslot_pool_context_error(pool, _THIS_IP_);
#endif
}

/*
 * Take this CPU's cache the way the pool's context flags allow; returns
 * the interrupt flags for kslot_pool_cpu_unlock().
 */
static __always_inline unsigned long
kslot_pool_cpu_lock(const struct kslot_pool_hot *h)
{
	unsigned long irqflags = 0;

	if (h->flags & KSLOT_POOL_TASK) {
		local_lock(&h->cpu->lock);
	} else if (h->flags & KSLOT_POOL_BH) {
		local_bh_disable();
		local_lock(&h->cpu->lock);
	} else {
		local_lock_irqsave(&h->cpu->lock, irqflags);
	}
	return irqflags;
}

static __always_inline void
kslot_pool_cpu_unlock(const struct kslot_pool_hot *h, unsigned long irqflags)
{
	if (h->flags & KSLOT_POOL_TASK) {
		local_unlock(&h->cpu->lock);
	} else if (h->flags & KSLOT_POOL_BH) {
		local_unlock(&h->cpu->lock);
		local_bh_enable();
	} else {
		local_unlock_irqrestore(&h->cpu->lock, irqflags);
	}
}

/*
 * Should an allocation hand out zeroed memory?  If asked (__GFP_ZERO), and
 * under init_on_alloc as SLUB honours it: every object, fresh or used
 * before (a fresh slab's objects carry the free list carved through
 * them), but not over a constructor's work.
 */
static __always_inline bool kslot_pool_want_zero(const struct kslot_pool_hot *h,
						 gfp_t gfp)
{
	return want_init_on_alloc(gfp) &&
	       (!(h->flags & __KSLOT_POOL_CTOR) || (gfp & __GFP_ZERO));
}

/**
 * kslot_pool_alloc() - Allocate an object.
 * @pool: The pool.
 * @gfp: Allocation flags, used only if the pool must grow.  __GFP_ZERO
 *	zeroes the object (even in a pool with a constructor).
 *
 * Takes an object from this CPU's cache (inline); on a miss, calls
 * kslot_pool_alloc_slowpath(), which refills the cache with a batch from the
 * slabs, growing the pool by one slab if they have none free, and falls
 * back on the reserve.  An object from a pool with a constructor is in its
 * constructed state; otherwise its contents are undefined unless
 * __GFP_ZERO asks for zeroes, or init_on_alloc is on (as for kmalloc(),
 * every object is then handed out zeroed).
 *
 * Context: Any context the pool's flags allow; process context if @gfp
 * allows sleeping.  Takes the CPU cache's local lock, and the pool lock on
 * a miss.
 * Return: The object, or NULL if memory for a new slab could not be
 * allocated or the pool holds max_objects allocated objects, and the
 * reserve is empty.
 */
static __always_inline void *kslot_pool_alloc(struct kslot_pool *pool,
					      gfp_t gfp)
{
	struct kslot_pool_hot *h = kslot_pool_hot(pool);
	struct kslot_pool_cpu *pc;
	unsigned long irqflags;
	void *obj;

	kslot_pool_check_context(pool);
	if (unlikely(READ_ONCE(h->slow) & __KSLOT_POOL_SLOW_ALLOC))
		return kslot_pool_alloc_slowpath(pool, gfp);
	irqflags = kslot_pool_cpu_lock(h);
	pc = this_cpu_ptr(h->cpu);
	if (likely(pc->count)) {
		obj = pc->objs[--pc->count];
		pc->alloc_hits++;
		kslot_pool_cpu_unlock(h, irqflags);
		if (unlikely(kslot_pool_want_zero(h, gfp)))
			memset(obj, 0, h->size);
		return obj;
	}
	kslot_pool_cpu_unlock(h, irqflags);
	return kslot_pool_alloc_slowpath(pool, gfp);
}

/**
 * kslot_pool_free() - Give an object back to its pool.
 * @pool: The pool the object was allocated from.
 * @obj: The object, or NULL (nothing is done).
 *
 * The object goes into this CPU's cache (inline); a full cache, a reserve
 * below its min_nr, debug mode and pass-through pools go through
 * kslot_pool_free_slowpath().  Freeing an object twice, or a pointer that is not
 * an object of @pool, corrupts the pool unless it runs in debug mode
 * (which refuses and reports both) or is a pass-through under KASAN
 * (which reports both).
 *
 * Context: Any context the pool's flags allow.  Takes the CPU cache's
 * local lock, and the pool lock when the cache is full.
 */
static __always_inline void kslot_pool_free(struct kslot_pool *pool,
					    void *obj)
{
	struct kslot_pool_hot *h = kslot_pool_hot(pool);
	struct kslot_pool_cpu *pc;
	unsigned long irqflags;

	if (unlikely(!obj))
		return;
	kslot_pool_check_context(pool);
	if (unlikely(READ_ONCE(h->slow) & __KSLOT_POOL_SLOW_FREE)) {
		kslot_pool_free_slowpath(pool, obj);
		return;
	}
	irqflags = kslot_pool_cpu_lock(h);
	pc = this_cpu_ptr(h->cpu);
	if (likely(pc->count < h->cache_size)) {
		/* Catches pointers into freed or another allocator's memory. */
		kasan_check_write(obj, h->size);
		if (unlikely(want_init_on_free()) &&
		    !(h->flags & __KSLOT_POOL_CTOR))
			memset(obj, 0, h->size);
		pc->objs[pc->count++] = obj;
		pc->free_hits++;
		kslot_pool_cpu_unlock(h, irqflags);
		return;
	}
	kslot_pool_cpu_unlock(h, irqflags);
	kslot_pool_free_slowpath(pool, obj);
}

#endif /* _LINUX_KSLOT_POOL_H */
