// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_objtable: handle-keyed objects, a kslot_pool plus a kslot_map.
 * See include/linux/kslot_objtable.h for the rules.
 *
 * Each pool object is the caller's bytes followed by a hidden trailer:
 *
 *	[ object (size bytes) | pad | struct kslot_objtable_hdr ]
 *
 * The map holds the object pointer from allocation on; the trailer's
 * published flag is what makes lookups return it.
 */
#include <linux/export.h>
#include <linux/kslot_objtable.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <linux/slab.h>

#include "kslot_internal.h"

static struct kslot_objtable_hdr *kslot_objtable_hdr(struct kslot_objtable *t,
						     const void *obj)
{
	return (struct kslot_objtable_hdr *)(obj + t->hdr_offset);
}

/*
 * A grace period after the last reference: no lookup or reference
 * reaches the object, so release may free what it owns at once.
 */
static void kslot_objtable_free_rcu(struct rcu_head *rcu)
{
	struct kslot_objtable_hdr *hdr = container_of(rcu,
						      struct kslot_objtable_hdr,
						      rcu);
	struct kslot_objtable *t = hdr->table;
	void *obj = (void *)hdr - t->hdr_offset;

	if (t->release)
		t->release(obj);
	kslot_pool_free(t->pool, obj);
}

/**
 * kslot_objtable_create() - Create a table of handle-keyed objects.
 * @cfg: Object size, alignment, constructor, capacity and flags.
 *
 * Context: Process context; may sleep.
 * Return: The table, ERR_PTR(-EINVAL) if @cfg has a zero or too large
 * size, a bad alignment, @max_entries out of range or unknown or
 * conflicting flags, or ERR_PTR(-ENOMEM).
 */
struct kslot_objtable *
kslot_objtable_create(const struct kslot_objtable_config *cfg)
{
	const unsigned int map_flags = KSLOT_OBJTABLE_LOCK_BH |
				       KSLOT_OBJTABLE_LOCK_IRQ |
				       KSLOT_OBJTABLE_ACCOUNT;
	struct kslot_pool_config pcfg = {};
	struct kslot_objtable *t;
	size_t hdr_offset;
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	int ret;

	if (!cfg->size ||
	    !kslot_lock_flags_valid(cfg->flags, KSLOT_OBJTABLE_FLAGS_ALL))
		return ERR_PTR(-EINVAL);
	if (!cfg->max_entries || cfg->max_entries > KSLOT_MAX_ENTRIES)
		return ERR_PTR(-EINVAL);
	hdr_offset = ALIGN(cfg->size, __alignof__(struct kslot_objtable_hdr));
	if (hdr_offset < cfg->size)
		return ERR_PTR(-EINVAL);
	pcfg.name = cfg->name;
	pcfg.size = size_add(hdr_offset, sizeof(struct kslot_objtable_hdr));
	pcfg.align = cfg->align ? max_t(size_t, cfg->align,
					__alignof__(struct kslot_objtable_hdr)) :
				  0;
	pcfg.ctor = cfg->ctor;
	if (cfg->flags & KSLOT_OBJTABLE_DEBUG)
		pcfg.flags |= KSLOT_POOL_DEBUG;
	if (cfg->flags & KSLOT_OBJTABLE_NOWARN)
		pcfg.flags |= KSLOT_POOL_NOWARN;
	if (cfg->flags & KSLOT_OBJTABLE_ACCOUNT) {
		pcfg.flags |= KSLOT_POOL_ACCOUNT;
		gfp |= __GFP_ACCOUNT;
	}

	if (kslot_should_fail_alloc())
		return ERR_PTR(-ENOMEM);
	t = kzalloc(sizeof(*t), gfp);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->pool = kslot_pool_create(&pcfg);
	if (IS_ERR(t->pool)) {
		ret = PTR_ERR(t->pool);
		kfree(t);
		return ERR_PTR(ret);
	}
	ret = kslot_map_init(&t->map, cfg->name, cfg->max_entries,
			     cfg->flags & map_flags);
	if (ret) {
		kslot_pool_destroy(t->pool);
		kfree(t);
		return ERR_PTR(ret);
	}
	t->hdr_offset = hdr_offset;
	t->release = cfg->release;
	t->zero = !cfg->ctor;
	return t;
}
EXPORT_SYMBOL_GPL(kslot_objtable_create);

static void kslot_objtable_drop_entry(void *entry, u64 handle, void *data)
{
	kslot_objtable_put(data, entry);
	/* Destroy is for process context: a large table lets others run. */
	cond_resched();
}

/**
 * kslot_objtable_destroy() - Destroy a table.
 * @table: The table, or NULL.
 *
 * Frees every live handle, waits for the pending RCU frees (the release
 * callback runs for each object whose last reference is gone), and
 * destroys the pool.  Objects still referenced through
 * kslot_objtable_get() are neither released nor freed: the pool reports
 * them and leaks their slabs (see kslot_pool_destroy()); their last
 * kslot_objtable_put() must not come after this call.  The caller must
 * ensure no other writer runs and no new lookup starts.
 *
 * Context: Process context; may sleep (synchronize_rcu(), rcu_barrier()).
 */
void kslot_objtable_destroy(struct kslot_objtable *table)
{
	if (!table)
		return;
	kslot_map_destroy(&table->map, kslot_objtable_drop_entry, table);
	/*
	 * Lookups that started before the destroy may still read the map
	 * (its struct is in @table): a grace period first, whether or not
	 * any callback is queued.  Then every object freed so far is back
	 * in the pool.
	 */
	synchronize_rcu();
	rcu_barrier();
	kslot_pool_destroy(table->pool);
	kfree(table);
}
EXPORT_SYMBOL_GPL(kslot_objtable_destroy);

static void *kslot_objtable_new(struct kslot_objtable *t, u64 *handle,
				gfp_t gfp, bool publish)
{
	struct kslot_objtable_hdr *hdr;
	void *obj;
	u64 h;
	int ret;

	obj = kslot_pool_alloc(t->pool, t->zero ? gfp | __GFP_ZERO : gfp);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	hdr = kslot_objtable_hdr(t, obj);
	hdr->handle = KSLOT_HANDLE_NULL;
	refcount_set(&hdr->ref, 1);
	/* Unpublished first, so the trailer holds the handle before lookups see it. */
	hdr->published = false;
	hdr->table = t;
	ret = kslot_map_alloc(&t->map, &h, obj, gfp);
	if (ret) {
		/* Never published: no reader can hold it. */
		kslot_pool_free(t->pool, obj);
		return ERR_PTR(ret);
	}
	WRITE_ONCE(hdr->handle, h);
	if (publish) {
		/* Contents and handle before the flag, for the lookups. */
		smp_store_release(&hdr->published, true);
	}
	*handle = h;
	return obj;
}

/**
 * kslot_objtable_alloc() - Allocate an object and publish it.
 * @table: The table.
 * @handle: Set to the object's handle on success; untouched on failure.
 * @gfp: Allocation flags for the pool and the map.
 *
 * The object is zeroed, or constructed if the table has a constructor,
 * and lookups may find it as soon as it is published, before this
 * returns.  Use kslot_objtable_alloc_placeholder() to fill it in first.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.
 * Return: The object, ERR_PTR(-ENOMEM) if memory for the pool or the map
 * could not be allocated, or ERR_PTR(-ENOSPC) if max_entries handles are
 * in use.
 */
void *kslot_objtable_alloc(struct kslot_objtable *table, u64 *handle,
			   gfp_t gfp)
{
	return kslot_objtable_new(table, handle, gfp, true);
}
EXPORT_SYMBOL_GPL(kslot_objtable_alloc);

/**
 * kslot_objtable_alloc_placeholder() - Allocate an object, publish it later.
 * @table: The table.
 * @handle: Set to the object's handle on success; untouched on failure.
 * @gfp: Allocation flags for the pool and the map.
 *
 * As kslot_objtable_alloc(), but lookups return NULL for the handle until
 * kslot_objtable_publish().  kslot_objtable_free() releases a placeholder
 * like a published object.
 *
 * Context: As kslot_objtable_alloc().
 * Return: As kslot_objtable_alloc().
 */
void *kslot_objtable_alloc_placeholder(struct kslot_objtable *table,
				       u64 *handle, gfp_t gfp)
{
	return kslot_objtable_new(table, handle, gfp, false);
}
EXPORT_SYMBOL_GPL(kslot_objtable_alloc_placeholder);

/**
 * kslot_objtable_publish() - Make a placeholder visible to lookups.
 * @table: The table.
 * @obj: An object from kslot_objtable_alloc_placeholder().
 *
 * The object's contents written before the call are visible to every
 * lookup that finds it.  Publishing an object twice is harmless.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the map lock (to check the handle).
 * Return: 0, or -ENOENT if the object's handle was freed meanwhile.
 */
int kslot_objtable_publish(struct kslot_objtable *table, void *obj)
{
	struct kslot_objtable_hdr *hdr = kslot_objtable_hdr(table, obj);

	/* The contents before the flag; see __kslot_objtable_lookup(). */
	smp_store_release(&hdr->published, true);
	/* Still live?  Storing the same object changes nothing. */
	return kslot_map_replace(&table->map, READ_ONCE(hdr->handle), obj,
				 NULL);
}
EXPORT_SYMBOL_GPL(kslot_objtable_publish);

/**
 * kslot_objtable_get() - Look up a handle and take a reference.
 * @table: The table.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The object, to be released with kslot_objtable_put(), or NULL
 * if @handle is stale, forged, from another table or not yet published.
 */
void *kslot_objtable_get(struct kslot_objtable *table, u64 handle)
{
	void *obj;

	rcu_read_lock();
	obj = __kslot_objtable_lookup(table, handle);
	/* Zero references: the handle was freed after the lookup read it. */
	if (obj && !refcount_inc_not_zero(&kslot_objtable_hdr(table, obj)->ref))
		obj = NULL;
	rcu_read_unlock();
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_objtable_get);

/**
 * kslot_objtable_put() - Drop a reference from kslot_objtable_get().
 * @table: The table.
 * @obj: The object.
 *
 * The last reference hands the object to the table's release callback
 * and back to the pool after an RCU grace period.
 *
 * Context: Any context.
 */
void kslot_objtable_put(struct kslot_objtable *table, void *obj)
{
	struct kslot_objtable_hdr *hdr = kslot_objtable_hdr(table, obj);

	if (refcount_dec_and_test(&hdr->ref))
		call_rcu(&hdr->rcu, kslot_objtable_free_rcu);
}
EXPORT_SYMBOL_GPL(kslot_objtable_put);

/**
 * kslot_objtable_free() - Free a handle and the table's reference.
 * @table: The table.
 * @handle: A handle, valid or not.
 *
 * Bumps the handle's generation, so no lookup finds the object through
 * it again, and drops the reference the handle held: the object is
 * released and returns to the pool a grace period after its last
 * reference is gone.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the map lock.
 * Return: 0, or -ENOENT if @handle is not live in @table.
 */
int kslot_objtable_free(struct kslot_objtable *table, u64 handle)
{
	void *entry = kslot_map_remove(&table->map, handle);

	if (!entry)
		return -ENOENT;
	kslot_objtable_put(table, entry);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_objtable_free);

/**
 * kslot_objtable_handle() - The handle an object was allocated under.
 * @table: The table.
 * @obj: An object of @table that the caller may access.
 *
 * Context: Any context.
 * Return: The handle, which may already have been freed.
 */
u64 kslot_objtable_handle(struct kslot_objtable *table, const void *obj)
{
	return READ_ONCE(kslot_objtable_hdr(table, obj)->handle);
}
EXPORT_SYMBOL_GPL(kslot_objtable_handle);

/**
 * kslot_objtable_stats() - Read a table's counters.
 * @table: The table.
 * @st: Filled with the map's and the pool's counters.
 *
 * Context: Any context the table's lock flags allow.
 */
void kslot_objtable_stats(struct kslot_objtable *table,
			  struct kslot_objtable_stats *st)
{
	kslot_map_stats(&table->map, &st->map);
	kslot_pool_stats(table->pool, &st->pool);
}
EXPORT_SYMBOL_GPL(kslot_objtable_stats);
