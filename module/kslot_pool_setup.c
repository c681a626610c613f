// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_pool: creation and destruction of a pool, the slab geometry, the
 * shrinker, statistics and debugfs, and the KUnit hooks.  The allocation
 * and free paths, and the reserve, are in kslot_pool.c; what both files
 * share is in kslot_pool_internal.h.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kslot_pool.h>
#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/ratelimit.h>
#include <linux/rbtree.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "kslot_pool_internal.h"

static bool kslot_pool_debug_all;
module_param_named(pool_debug, kslot_pool_debug_all, bool, 0644);
MODULE_PARM_DESC(pool_debug,
		 "Create every kslot_pool in debug mode (poison, double-free and pointer checks)");

static bool kslot_pool_passthrough_all = IS_ENABLED(CONFIG_KASAN);
module_param_named(pool_passthrough, kslot_pool_passthrough_all, bool, 0644);
MODULE_PARM_DESC(pool_passthrough,
		 "Back every non-debug kslot_pool created while set with kmalloc(), one allocation per object, so KASAN and KFENCE see each object (default: on with CONFIG_KASAN)");

/* Objects per slab the order choice aims for. */
#define KSLOT_POOL_MIN_OBJS	8UL

/* The geometry kslot_pool_create() derives from a config. */
struct kslot_pool_layout {
	unsigned int stride;
	unsigned int fp_offset;
	unsigned int order;
	unsigned int objs_per_slab;
	unsigned int hdr_offset;
	unsigned int cache_size;
};

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

/**
 * kslot_pool_trim() - Return wholly free slabs to the page allocator now.
 * @pool: The pool.
 *
 * As kslot_pool_shrink(), but draining only this CPU's cache: a slab one
 * of whose objects sits in another CPU's cache stays.  For a pool whose
 * caches are small, that a caller trims after each batch of frees on the
 * CPU that made them, so that the pool holds no more than its objects'
 * slabs, and one per CPU (kslot_pool_bytes()).
 *
 * Context: Process context.  Takes this CPU's cache and the pool lock.
 * Return: The number of slabs freed.
 */
unsigned long kslot_pool_trim(struct kslot_pool *pool)
{
	if (pool->passthrough)
		return 0;
	kslot_pool_drain_local(pool);
	if (!kslot_pool_racy(pool->nr_empty))
		return 0;
	return kslot_pool_free_empty(pool, ULONG_MAX);
}
EXPORT_SYMBOL_GPL(kslot_pool_trim);

/**
 * kslot_pool_bytes() - Memory a pool holds.
 * @pool: The pool.
 *
 * Its struct, its per-CPU caches and its slabs, whole, whether their
 * objects are allocated or free; a pass-through pool's objects at their
 * kmalloc() size.  Not the shrinker's own allocation.  A racy read: exact
 * only while nothing allocates from or frees to the pool.
 *
 * Context: Any context.
 * Return: Bytes.
 */
size_t kslot_pool_bytes(const struct kslot_pool *pool)
{
	size_t bytes = pool->fixed_bytes;

	if (pool->passthrough)
		return bytes + kslot_pool_racy(pool->nr_objects) *
			       kmalloc_size_roundup(pool->pt_size);
	return bytes + kslot_pool_racy(pool->nr_slabs) *
		       kslot_pool_slab_bytes(pool);
}
EXPORT_SYMBOL_GPL(kslot_pool_bytes);

/**
 * kslot_pool_grow_bytes() - Memory one growth of a pool takes.
 * @pool: The pool.
 *
 * An allocation takes at most this much new memory: a slab, or a
 * pass-through pool's object at its kmalloc() size.
 *
 * Context: Any context.
 * Return: Bytes.
 */
size_t kslot_pool_grow_bytes(const struct kslot_pool *pool)
{
	if (pool->passthrough)
		return kmalloc_size_roundup(pool->pt_size);
	return kslot_pool_slab_bytes(pool);
}
EXPORT_SYMBOL_GPL(kslot_pool_grow_bytes);

/**
 * kslot_pool_obj_bytes() - A pool object's share of the pool's memory.
 * @pool: The pool.
 *
 * A slab's bytes over the objects it holds (rounded down, so that
 * kslot_pool_bytes() is never below the objects' count times this), or a
 * pass-through pool's object at its kmalloc() size.
 *
 * Context: Any context.
 * Return: Bytes.
 */
size_t kslot_pool_obj_bytes(const struct kslot_pool *pool)
{
	if (pool->passthrough)
		return kmalloc_size_roundup(pool->pt_size);
	return kslot_pool_slab_bytes(pool) / pool->objs_per_slab;
}
EXPORT_SYMBOL_GPL(kslot_pool_obj_bytes);

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
 * kslot_pool_stats() - Read a pool's counters.
 * @pool: The pool.
 * @st: Filled with the counters.
 *
 * The per-CPU counters are read without their locks, so the snapshot is
 * exact only while no allocation or free runs.  A pass-through pool counts
 * its objects (@objects, @in_use, @reserved) and nothing else.
 *
 * Context: Any context.  Takes and releases the pool lock.
 */
void kslot_pool_stats(struct kslot_pool *pool,
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
	st->context_errors = atomic_long_read(&pool->context_errors);
	st->in_use = st->objects - st->free - st->reserved;
	st->objs_per_slab = pool->objs_per_slab;
	st->slab_bytes = kslot_pool_slab_bytes(pool);
}
EXPORT_SYMBOL_GPL(kslot_pool_stats);

static int kslot_pool_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_pool_stats st;

	kslot_pool_stats(m->private, &st);
	seq_printf(m, "in_use: %lu\nfree: %lu\nreserved: %lu\ncached: %lu\nobjects: %lu\n",
		   st.in_use, st.free, st.reserved, st.cached, st.objects);
	seq_printf(m, "slabs: %lu\nempty_slabs: %lu\nobjs_per_slab: %u\nslab_bytes: %u\n",
		   st.slabs, st.empty_slabs, st.objs_per_slab, st.slab_bytes);
	seq_printf(m, "alloc_hits: %llu\nalloc_misses: %llu\nfree_hits: %llu\nfree_misses: %llu\n",
		   st.alloc_hits, st.alloc_misses, st.free_hits,
		   st.free_misses);
	seq_printf(m, "double_frees: %lu\nbad_frees: %lu\npoison_errors: %lu\ncontext_errors: %lu\n",
		   st.double_frees, st.bad_frees, st.poison_errors,
		   st.context_errors);
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

static void kslot_pool_drain_work(struct work_struct *work)
{
	kslot_pool_drain_local(container_of(work, struct kslot_pool_drain,
					    work)->pool);
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

/* What a pool of layout @l takes before its first slab: struct, caches. */
static size_t kslot_pool_fixed_bytes(const struct kslot_pool_layout *l)
{
	return kmalloc_size_roundup(sizeof(struct kslot_pool)) +
	       num_possible_cpus() *
	       (struct_size_t(struct kslot_pool_cpu, objs, l->cache_size) +
		sizeof(struct kslot_pool_drain));
}

/**
 * kslot_pool_create_bytes() - Memory a pool takes as it is created.
 * @cfg: What kslot_pool_create() would be given.
 *
 * What kslot_pool_bytes() reports of the new pool before its first
 * allocation: its struct and per-CPU caches, so that a caller can charge
 * them before it creates the pool.  The reserve a nonzero @cfg->min_nr
 * fills is not counted (slabs, kslot_pool_grow_bytes() each), nor the
 * shrinker (none with %KSLOT_POOL_NOSHRINKER).
 *
 * Context: Any context.
 * Return: Bytes, or 0 if kslot_pool_create() would refuse @cfg's object
 * layout (its size, alignment or cache size); other refusals (flags,
 * @min_nr) are not checked.
 */
size_t kslot_pool_create_bytes(const struct kslot_pool_config *cfg)
{
	unsigned int flags = cfg->flags;
	struct kslot_pool_layout l;

	if (READ_ONCE(kslot_pool_debug_all))
		flags |= KSLOT_POOL_DEBUG;
	if (kslot_pool_layout(cfg, flags, &l))
		return 0;
	return kslot_pool_fixed_bytes(&l);
}
EXPORT_SYMBOL_GPL(kslot_pool_create_bytes);

/* The kmalloc() size of a pass-through object: its size, or a power of
 * two at least its alignment when kmalloc()'s own is not enough.
 */
static size_t kslot_pool_pt_size(const struct kslot_pool_config *cfg)
{
	if (cfg->align <= ARCH_KMALLOC_MINALIGN)
		return cfg->size;
	return roundup_pow_of_two(max(cfg->size, cfg->align));
}

/**
 * kslot_pool_create() - Create an object pool.
 * @cfg: Object size, alignment, constructor, limits and flags.
 *
 * Allocates the pool, its per-CPU caches and (unless
 * %KSLOT_POOL_NOSHRINKER) its shrinker, and fills the
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
	pool->passthrough = !(flags & (KSLOT_POOL_DEBUG | KSLOT_POOL_SLABS)) &&
			    READ_ONCE(kslot_pool_passthrough_all);
	pool->pt_size = kslot_pool_pt_size(cfg);
	pool->ctor = cfg->ctor;
	pool->max_objects = cfg->max_objects;
	pool->min_nr = cfg->min_nr;
	pool->fixed_bytes = kslot_pool_fixed_bytes(&l);
	strscpy(pool->name, cfg->name ?: "anon", sizeof(pool->name));
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->partial);
	INIT_LIST_HEAD(&pool->full);
	INIT_LIST_HEAD(&pool->empty);
	pool->slab_tree = RB_ROOT;
	ratelimit_state_init(&pool->report_rs, 5 * HZ, 10);
	kslot_pool_init_cpus(pool);
	kslot_pool_update_slow_locked(pool);
	if (!pool->passthrough && !(flags & KSLOT_POOL_NOSHRINKER) &&
	    kslot_pool_shrinker_register(pool))
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
 * Return: The shrinker, whose callbacks a test may call, or NULL for a
 * pool made with %KSLOT_POOL_NOSHRINKER.
 */
struct shrinker *kslot_pool_test_shrinker(struct kslot_pool *pool)
{
	return pool->shrinker;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_pool_test_shrinker);
#endif
