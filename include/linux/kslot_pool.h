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
 * free objects (a magazine): the fast paths of kslot_pool_alloc() and
 * kslot_pool_free() touch only that cache, with interrupts disabled and no
 * shared lock or atomic operation.  A miss refills, and a full cache
 * flushes, a batch of objects under the pool lock.
 *
 * Rules:
 *
 * +-------------------------+-----------------------+--------------------+
 * | operation               | lock                  | may sleep          |
 * +-------------------------+-----------------------+--------------------+
 * | kslot_pool_alloc(),     | per-CPU cache (irqs   | only if gfp allows |
 * | kslot_pool_alloc_bulk() | off); pool lock on a  |                    |
 * |                         | miss, dropped to grow |                    |
 * | kslot_pool_free(),      | per-CPU cache (irqs   | no                 |
 * | kslot_pool_free_bulk()  | off); pool lock to    |                    |
 * |                         | flush a full cache    |                    |
 * | kslot_pool_get_stats()  | pool lock             | no                 |
 * | kslot_pool_shrink()     | CPU hotplug lock,     | yes                |
 * |                         | pool lock             |                    |
 * | kslot_pool_create(),    | none                  | yes                |
 * | kslot_pool_destroy()    | caller: no users      |                    |
 * +-------------------------+-----------------------+--------------------+
 *
 * - Allocation and free work in any context, hard interrupts included:
 *   both locks are taken with interrupts disabled.  A pool grows only when
 *   the gfp flags given to the allocation allow it to get pages.
 * - max_objects bounds the objects the pool carves, free or not.  Free
 *   objects may sit in other CPUs' caches; when an allocation that may
 *   sleep finds the pool at its limit, it drains every CPU's cache first,
 *   so it fails only when max_objects objects really are allocated.
 * - kslot_pool_shrink() drains every CPU's cache and returns the slabs
 *   whose objects are all free to the page allocator.
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
 *   pool untouched.
 * - KASAN and KFENCE do not see inside the pool: the slab pages stay
 *   accessible as a whole while the pool owns them.  kslot_pool_free()
 *   checks the object with kasan_check_write(), which catches a pointer
 *   into freed or foreign-allocator memory, but a read or write of a
 *   pool object after it was freed, or a write past its end into the next
 *   object of the same slab, stays invisible to KASAN.  Debug mode catches
 *   writes after free (at the next allocation of the object), not reads.
 * - Not for objects that RCU readers may still see after the free: use
 *   kslot_objtable, or call_rcu() before kslot_pool_free().
 */
#ifndef _LINUX_KSLOT_POOL_H
#define _LINUX_KSLOT_POOL_H

#include <linux/bits.h>
#include <linux/gfp.h>
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
#define KSLOT_POOL_FLAGS_ALL	(KSLOT_POOL_DEBUG | KSLOT_POOL_ACCOUNT | \
				 KSLOT_POOL_NOWARN)

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
 * @flags: %KSLOT_POOL_DEBUG, %KSLOT_POOL_ACCOUNT, %KSLOT_POOL_NOWARN.
 */
struct kslot_pool_config {
	const char *name;
	size_t size;
	size_t align;
	void (*ctor)(void *obj);
	unsigned long max_objects;
	unsigned int cache_size;
	unsigned int flags;
};

/**
 * struct kslot_pool_stats - A snapshot of a pool's counters.
 * @in_use: Objects allocated and not freed.
 * @free: Free objects, in the slabs and in the per-CPU caches.
 * @cached: Of @free, the objects in per-CPU caches.
 * @objects: Objects carved from the slabs (@in_use + @free).
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
 */
struct kslot_pool_stats {
	unsigned long in_use;
	unsigned long free;
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
};

struct kslot_pool *kslot_pool_create(const struct kslot_pool_config *cfg);
void kslot_pool_destroy(struct kslot_pool *pool);
void *kslot_pool_alloc(struct kslot_pool *pool, gfp_t gfp);
void kslot_pool_free(struct kslot_pool *pool, void *obj);
int kslot_pool_alloc_bulk(struct kslot_pool *pool, gfp_t gfp, size_t nr,
			  void **objs);
void kslot_pool_free_bulk(struct kslot_pool *pool, size_t nr, void **objs);
unsigned long kslot_pool_shrink(struct kslot_pool *pool);
size_t kslot_pool_size(const struct kslot_pool *pool);
void kslot_pool_get_stats(struct kslot_pool *pool,
			  struct kslot_pool_stats *st);

#endif /* _LINUX_KSLOT_POOL_H */
