/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool's own header, shared by its two files and nothing else:
 *
 *   kslot_pool.c        the paths of every allocation and free: per-CPU
 *                       caches, slabs, the reserve, pass-through objects,
 *                       bulk, the debug-mode checks
 *   kslot_pool_setup.c  create and destroy, the slab geometry, the
 *                       shrinker, statistics and the KUnit hooks
 *
 * See include/linux/kslot_pool.h for the rules.
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
#ifndef _KSLOT_POOL_INTERNAL_H
#define _KSLOT_POOL_INTERNAL_H

#include <linux/kslot_pool.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/ratelimit.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "kslot_internal.h"

/*
 * A deliberately racy read, for statistics and estimates: the per-CPU
 * counters and cache counts, written by their CPU under its local lock, and
 * counters under the pool lock, read without it where a stale value only
 * makes an estimate (shrinker count, drain skipping an empty cache) or a
 * snapshot (kslot_pool_stats()) less exact.
 */
#define kslot_pool_racy(x)	data_race(x)

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
 * @fixed_bytes: Memory of the pool itself: its struct and per-CPU data.
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
 * @context_errors: Lockdep kernels: a %KSLOT_POOL_TASK pool used outside
 *	task context (kslot_pool_context_error()).
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
	size_t fixed_bytes;
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
	atomic_long_t context_errors;	/* any context: no lock */
	struct ratelimit_state report_rs;
};

/* In kslot_pool.c, for kslot_pool_setup.c. */
__printf(2, 3) void kslot_pool_report(struct kslot_pool *pool,
				      const char *fmt, ...);
void kslot_pool_flush_locked(struct kslot_pool *pool, void **objs,
			     unsigned int nr)
	__must_hold(&pool->lock);
void kslot_pool_drain_local(struct kslot_pool *pool);
void kslot_pool_drain_all(struct kslot_pool *pool);
void kslot_pool_unlink_slab_locked(struct kslot_pool *pool,
				   struct kslot_pool_slab *slab,
				   struct list_head *to)
	__must_hold(&pool->lock);
void kslot_pool_free_slab(struct kslot_pool *pool,
			  struct kslot_pool_slab *slab);
void kslot_pool_update_slow_locked(struct kslot_pool *pool)
	__must_hold(&pool->lock);
int kslot_pool_fill_reserve(struct kslot_pool *pool, gfp_t gfp);
void kslot_pool_drop_reserve(struct kslot_pool *pool);

static inline size_t kslot_pool_slab_bytes(const struct kslot_pool *pool)
{
	return PAGE_SIZE << pool->order;
}

static inline void **kslot_pool_fp(const struct kslot_pool *pool, void *obj)
{
	return obj + pool->fp_offset;
}

static inline unsigned long *kslot_pool_state(const struct kslot_pool *pool,
					      void *obj)
{
	return obj + pool->fp_offset + sizeof(void *);
}

static inline bool kslot_pool_debug(const struct kslot_pool *pool)
{
	return pool->hot.flags & KSLOT_POOL_DEBUG;
}

/* The slab an object of this pool belongs to. */
static inline struct kslot_pool_slab *
kslot_pool_slab_of(const struct kslot_pool *pool, const void *obj)
{
	unsigned long base = (unsigned long)obj &
			     ~(kslot_pool_slab_bytes(pool) - 1);

	return (struct kslot_pool_slab *)(base + pool->hdr_offset);
}

static inline void *kslot_pool_slab_base(const struct kslot_pool *pool,
					 struct kslot_pool_slab *slab)
{
	return (void *)slab - pool->hdr_offset;
}

#endif /* _KSLOT_POOL_INTERNAL_H */
