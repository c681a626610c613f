// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_map: generational handle table.  See include/linux/kslot_map.h for
 * the rules and include/linux/kslot_handle.h for the handle format.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kslot_map.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "kslot_internal.h"

struct kslot_map_lock_state {
	unsigned long irqflags;
};

static void kslot_map_lock(struct kslot_map *map,
			   struct kslot_map_lock_state *ls)
	__acquires(&map->lock)
{
	ls->irqflags = __kslot_lock(&map->lock, map->flags);
}

static void kslot_map_unlock(struct kslot_map *map,
			     struct kslot_map_lock_state *ls)
	__releases(&map->lock)
{
	__kslot_unlock(&map->lock, map->flags, ls->irqflags);
}

static gfp_t kslot_map_gfp(const struct kslot_map *map, gfp_t gfp)
{
	return kslot_gfp(gfp, map->flags & KSLOT_MAP_ACCOUNT);
}

static struct kslot_map_dir *kslot_map_dir_locked(struct kslot_map *map)
{
	return rcu_dereference_protected(map->dir, lockdep_is_held(&map->lock));
}

static int kslot_map_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_map_stats st;

	kslot_map_get_stats(m->private, &st);
	seq_printf(m, "count: %u\ncapacity: %u\nmax_entries: %u\n",
		   st.count, st.capacity, st.max_entries);
	seq_printf(m, "retired: %u\nrejected: %llu\n", st.retired,
		   st.rejected);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_map_stats);

/**
 * kslot_map_init() - Initialise a generational handle table.
 * @map: The map to initialise.
 * @name: If not NULL, expose the map's counters in debugfs as
 *	kslot/map-@name.  Names should be unique; a duplicate is not exposed.
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_MAP_LOCK_BH or %KSLOT_MAP_LOCK_IRQ (not both), and
 *	%KSLOT_MAP_ACCOUNT.
 *
 * No memory is allocated for slots until the first kslot_map_alloc().
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @max_entries is out of range or @flags holds
 * unknown bits or both lock flags.
 */
int kslot_map_init(struct kslot_map *map, const char *name, u32 max_entries,
		   unsigned int flags)
{
	if (!max_entries || max_entries > KSLOT_MAX_ENTRIES)
		return -EINVAL;
	if (!kslot_lock_flags_valid(flags, KSLOT_MAP_FLAGS_ALL))
		return -EINVAL;

	memset(map, 0, sizeof(*map));
	spin_lock_init(&map->lock);
	RCU_INIT_POINTER(map->dir, NULL);
	map->tag = kslot_random_tag();
	map->flags = flags;
	map->free_head = KSLOT_MAP_NONE;
	map->max_entries = max_entries;
	atomic_long_set(&map->rejected, 0);
	if (name)
		map->debugfs = kslot_debugfs_create("map", name, map,
						    &kslot_map_stats_fops);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_map_init);

static void kslot_map_dir_free_all(struct rcu_head *head)
{
	struct kslot_map_dir *dir = container_of(head, struct kslot_map_dir,
						 rcu);
	u32 i;

	for (i = 0; i < dir->nr_chunks; i++)
		kfree(dir->chunks[i]);
	kvfree(dir);
}

/**
 * kslot_map_destroy() - Tear down a map.
 * @map: The map.
 * @fn: If not NULL, called once for every live entry (reserved ones
 *	included, with a NULL object), without the map lock held.
 * @data: Passed to @fn.
 *
 * The caller must ensure no other writer runs and no new lookup starts.
 * Lookups already inside an RCU read-side critical section may finish:
 * the slot memory is freed only after a grace period.  The map may be
 * initialised again afterwards, and must be before any other use.
 *
 * Context: Process context for a named map (its debugfs file is removed);
 * otherwise any context that @fn allows.
 */
void kslot_map_destroy(struct kslot_map *map,
		       void (*fn)(void *obj, u64 handle, void *data),
		       void *data)
{
	struct kslot_map_dir *dir;
	u32 i;

	kslot_debugfs_remove(map->debugfs);
	map->debugfs = NULL;
	dir = rcu_dereference_protected(map->dir, true);
	for (i = 0; fn && i < map->nr_slots; i++) {
		struct kslot_map_slot *slot =
			&dir->chunks[i >> KSLOT_MAP_CHUNK_SHIFT]
				    [i & KSLOT_MAP_CHUNK_MASK];

		if (kslot_gen_is_live(slot->gen))
			fn(slot->obj, kslot_handle_make(i, map->tag, slot->gen),
			   data);
	}
	/*
	 * New lookups find no slot; lookups already running keep using the
	 * directory, which stays in place until the grace period ends.
	 */
	smp_store_release(&map->nr_slots, 0);
	WRITE_ONCE(map->count, 0);
	map->free_head = KSLOT_MAP_NONE;
	if (dir)
		call_rcu(&dir->rcu, kslot_map_dir_free_all);
}
EXPORT_SYMBOL_GPL(kslot_map_destroy);

/* Memory allocated outside the lock for one growth step. */
struct kslot_map_grow {
	struct kslot_map_slot *chunk;
	struct kslot_map_dir *dir;
};

static u32 kslot_map_chunks_for(u32 slots)
{
	return DIV_ROUND_UP(slots, KSLOT_MAP_CHUNK_SLOTS);
}

/*
 * Allocate what the next growth step needs, with the lock dropped.
 * @nr and @nr_chunks are the slot count and directory size seen under the
 * lock; the caller re-checks them after retaking it.
 */
static int kslot_map_grow_alloc(struct kslot_map *map, u32 nr, u32 nr_chunks,
				struct kslot_map_grow *grow, gfp_t gfp)
{
	u32 chunk = nr >> KSLOT_MAP_CHUNK_SHIFT;

	gfp = kslot_map_gfp(map, gfp);
	if (kslot_should_fail_alloc())
		return -ENOMEM;
	grow->chunk = kcalloc(KSLOT_MAP_CHUNK_SLOTS, sizeof(*grow->chunk), gfp);
	if (!grow->chunk)
		return -ENOMEM;
	if (chunk >= nr_chunks) {
		u32 want = max(2 * nr_chunks, 1U);

		want = min(want, kslot_map_chunks_for(map->max_entries));
		/* kvmalloc() may only sleep if the caller allows it. */
		if (kslot_should_fail_alloc())
			grow->dir = NULL;
		else if (gfpflags_allow_blocking(gfp))
			grow->dir = kvzalloc(struct_size(grow->dir, chunks,
							 want), gfp);
		else
			grow->dir = kzalloc(struct_size(grow->dir, chunks,
							want), gfp);
		if (!grow->dir) {
			kfree(grow->chunk);
			grow->chunk = NULL;
			return -ENOMEM;
		}
		grow->dir->nr_chunks = want;
	}
	return 0;
}

/* Install a growth step; called with the lock held and the state unchanged. */
static void kslot_map_grow_install(struct kslot_map *map,
				   struct kslot_map_grow *grow)
{
	struct kslot_map_dir *old = kslot_map_dir_locked(map);
	struct kslot_map_dir *dir = old;
	u32 base = map->nr_slots;
	u32 end = min(base + KSLOT_MAP_CHUNK_SLOTS, map->max_entries);
	u32 i;

	if (grow->dir) {
		dir = grow->dir;
		if (old)
			memcpy(dir->chunks, old->chunks,
			       old->nr_chunks * sizeof(old->chunks[0]));
	}
	for (i = base; i < end; i++)
		grow->chunk[i - base].next = i + 1 < end ? i + 1 :
							   KSLOT_MAP_NONE;
	dir->chunks[base >> KSLOT_MAP_CHUNK_SHIFT] = grow->chunk;
	if (grow->dir) {
		rcu_assign_pointer(map->dir, dir);
		if (old)
			kvfree_rcu(old, rcu);
	}
	map->free_head = base;
	/* Readers that see the new count see the chunk and directory. */
	smp_store_release(&map->nr_slots, end);
	grow->chunk = NULL;
	grow->dir = NULL;
}

/*
 * Make sure the free list is not empty.  Called and returns with the lock
 * held; drops it to allocate.
 */
static int kslot_map_grow(struct kslot_map *map,
			  struct kslot_map_lock_state *ls, gfp_t gfp)
	__must_hold(&map->lock)
{
	struct kslot_map_grow grow = {};
	int ret = 0;

	while (map->free_head == KSLOT_MAP_NONE) {
		struct kslot_map_dir *dir = kslot_map_dir_locked(map);
		u32 nr_chunks = dir ? dir->nr_chunks : 0;
		u32 nr = map->nr_slots;

		if (nr >= map->max_entries) {
			ret = -ENOSPC;
			break;
		}
		kslot_map_unlock(map, ls);
		ret = kslot_map_grow_alloc(map, nr, nr_chunks, &grow, gfp);
		kslot_map_lock(map, ls);
		if (ret)
			break;
		dir = kslot_map_dir_locked(map);
		/* Someone else grew the map or freed a slot meanwhile. */
		if (map->nr_slots != nr || map->free_head != KSLOT_MAP_NONE ||
		    (dir ? dir->nr_chunks : 0) != nr_chunks) {
			/* vfree() may sleep: free with the lock dropped. */
			kslot_map_unlock(map, ls);
			kfree(grow.chunk);
			kvfree(grow.dir);
			grow.chunk = NULL;
			grow.dir = NULL;
			kslot_map_lock(map, ls);
			continue;
		}
		kslot_map_grow_install(map, &grow);
	}
	return ret;
}

/**
 * kslot_map_alloc() - Store an object and issue a handle for it.
 * @map: The map.
 * @obj: The object, or NULL to reserve a handle that kslot_map_replace()
 *	publishes later.
 * @handle: Set to the new handle on success; untouched on failure.
 * @gfp: Allocation flags for growing the map.
 *
 * Reuses the most recently freed slot if there is one, otherwise grows
 * the map by one chunk.  The chunk is allocated with the map lock
 * dropped, so @gfp may sleep if the caller can.  The object's contents
 * must be initialised before the call: lookups may return it as soon as
 * the handle is live, before this function returns.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the map's lock flags allow.  Takes and releases the map lock.
 * Return: 0, -ENOMEM if growing the map failed, or -ENOSPC if the map
 * holds max_entries slots (live or retired) and none is free.
 */
int kslot_map_alloc(struct kslot_map *map, void *obj, u64 *handle, gfp_t gfp)
{
	struct kslot_map_lock_state ls;
	struct kslot_map_slot *slot;
	u32 index, gen;
	int ret;

	kslot_map_lock(map, &ls);
	ret = kslot_map_grow(map, &ls, gfp);
	if (ret)
		goto out;
	index = map->free_head;
	slot = __kslot_map_slot(map, index);
	map->free_head = slot->next;
	gen = slot->gen + 1;
	WRITE_ONCE(slot->obj, obj);
	/* Object before generation; see __kslot_map_lookup(). */
	smp_wmb();
	WRITE_ONCE(slot->gen, gen);
	/* kslot_map_count() reads it without the lock. */
	WRITE_ONCE(map->count, map->count + 1);
	*handle = kslot_handle_make(index, map->tag, gen);
out:
	kslot_map_unlock(map, &ls);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_map_alloc);

/* The live slot @handle names, or NULL.  Called with the lock held. */
static struct kslot_map_slot *kslot_map_live_slot(struct kslot_map *map,
						  u64 handle)
{
	u32 gen = kslot_handle_gen(handle);
	struct kslot_map_slot *slot;

	if (!kslot_gen_is_live(gen) || kslot_handle_tag(handle) != map->tag)
		return NULL;
	slot = __kslot_map_slot(map, kslot_handle_index(handle));
	if (!slot || slot->gen != gen)
		return NULL;
	return slot;
}

/**
 * kslot_map_replace() - Replace the object a handle refers to.
 * @map: The map.
 * @handle: A live handle, reserved or not.
 * @obj: The new object; NULL turns the entry back into a reservation.
 *
 * The handle keeps its generation.  Lookups see either the old or the new
 * object; the caller owns the old one and must respect the RCU rule
 * before freeing it.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: The previous object (NULL for a reservation), or
 * ERR_PTR(-ENOENT) if @handle is not live in @map.
 */
void *kslot_map_replace(struct kslot_map *map, u64 handle, void *obj)
{
	struct kslot_map_lock_state ls;
	struct kslot_map_slot *slot;
	void *old = ERR_PTR(-ENOENT);

	kslot_map_lock(map, &ls);
	slot = kslot_map_live_slot(map, handle);
	if (slot) {
		old = slot->obj;
		/* Object contents before the pointer, as rcu_assign_pointer(). */
		smp_store_release(&slot->obj, obj);
	}
	kslot_map_unlock(map, &ls);
	return old;
}
EXPORT_SYMBOL_GPL(kslot_map_replace);

/**
 * kslot_map_remove() - Remove an entry and invalidate its handle.
 * @map: The map.
 * @handle: A handle, valid or not.
 *
 * Bumps the slot's generation, so @handle and every copy of it are
 * rejected from now on, and puts the slot at the head of the free list,
 * or retires it if its generations are used up.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 * Return: The removed object, or NULL if @handle was not live (or was a
 * reservation, which is released all the same).
 */
void *kslot_map_remove(struct kslot_map *map, u64 handle)
{
	struct kslot_map_lock_state ls;
	struct kslot_map_slot *slot;
	void *obj = NULL;

	kslot_map_lock(map, &ls);
	slot = kslot_map_live_slot(map, handle);
	if (!slot)
		goto out;
	obj = slot->obj;
	WRITE_ONCE(slot->gen, slot->gen + 1);
	/* Generation before object; see __kslot_map_lookup(). */
	smp_wmb();
	WRITE_ONCE(slot->obj, NULL);
	WRITE_ONCE(map->count, map->count - 1);
	if (!slot->gen) {
		slot->next = KSLOT_MAP_RETIRED;
		map->retired++;
	} else {
		slot->next = map->free_head;
		map->free_head = kslot_handle_index(handle);
	}
out:
	kslot_map_unlock(map, &ls);
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_map_remove);

/**
 * kslot_map_lookup() - Find the object a handle refers to.
 * @map: The map.
 * @handle: A handle, valid or not.
 *
 * Takes the RCU read lock itself, as xa_load() does.  Unless the caller
 * holds rcu_read_lock() across the call and its use of the object, or
 * keeps the object alive by other means, the object may be freed as soon
 * as this returns.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The object, or NULL if @handle is stale, forged, from another
 * map, or reserved.
 */
void *kslot_map_lookup(struct kslot_map *map, u64 handle)
{
	void *obj;

	rcu_read_lock();
	obj = __kslot_map_lookup(map, handle);
	rcu_read_unlock();
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_map_lookup);

/**
 * kslot_map_lookup_get() - Look up a handle and take a kref on the object.
 * @map: The map.
 * @handle: A handle, valid or not.
 * @ref_offset: Offset of the struct kref inside the stored objects.
 * @release: The objects' kref release function.
 *
 * The kref_get_unless_zero() pattern drivers use with xa_load().  After
 * the reference is taken the handle is checked again, so this is also
 * correct for objects from a SLAB_TYPESAFE_BY_RCU cache, whose memory may
 * be reused by a new object while the lookup runs: if the slot changed,
 * the reference is dropped with @release semantics and NULL returned.
 *
 * Context: Any context.  Takes and releases the RCU read lock.  @release
 * may be called, so it must be safe in the caller's context.
 * Return: The object with a reference held, or NULL.
 */
void *kslot_map_lookup_get(struct kslot_map *map, u64 handle,
			   size_t ref_offset,
			   void (*release)(struct kref *ref))
{
	struct kslot_map_slot *slot;
	struct kref *ref;
	void *obj;

	rcu_read_lock();
	obj = __kslot_map_lookup(map, handle);
	if (!obj)
		goto out;
	ref = obj + ref_offset;
	if (!kref_get_unless_zero(ref)) {
		obj = NULL;
		goto out;
	}
	/*
	 * The increment is a relaxed RMW: order the re-check after it, as
	 * refcount_inc_not_zero_acquire() would.  Then the slot must still
	 * hold this object at this generation.
	 */
	smp_acquire__after_ctrl_dep();
	slot = __kslot_map_slot(map, kslot_handle_index(handle));
	if (!slot || READ_ONCE(slot->gen) != kslot_handle_gen(handle) ||
	    READ_ONCE(slot->obj) != obj) {
		kref_put(ref, release);
		obj = NULL;
	}
out:
	rcu_read_unlock();
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_map_lookup_get);

/**
 * kslot_map_find() - Find the next live object at or after an index.
 * @map: The map.
 * @index: Slot to start from; set to the slot found.
 * @handle: Set to the handle of the entry found.
 *
 * The step function of kslot_map_for_each().  Reserved entries are
 * skipped.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The object, or NULL when no live object remains at or after
 * *@index (then *@index and *@handle are unchanged).
 */
void *kslot_map_find(struct kslot_map *map, u32 *index, u64 *handle)
{
	struct kslot_map_dir *dir;
	void *found = NULL;
	u32 i, nr;

	rcu_read_lock();
	/* Pairs with the release in kslot_map_grow_install(). */
	nr = smp_load_acquire(&map->nr_slots);
	dir = rcu_dereference(map->dir);
	for (i = *index; i < nr; i++) {
		struct kslot_map_slot *slot =
			&dir->chunks[i >> KSLOT_MAP_CHUNK_SHIFT]
				    [i & KSLOT_MAP_CHUNK_MASK];
		u32 gen = READ_ONCE(slot->gen);
		void *obj;

		if (!kslot_gen_is_live(gen))
			continue;
		/* The same protocol as __kslot_map_lookup(). */
		smp_rmb();
		obj = READ_ONCE(slot->obj);
		smp_rmb(); /* Object before the generation re-check. */
		if (!obj || READ_ONCE(slot->gen) != gen)
			continue;
		*index = i;
		*handle = kslot_handle_make(i, map->tag, gen);
		found = obj;
		break;
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(kslot_map_find);

/**
 * kslot_map_get_stats() - Read a map's counters.
 * @map: The map.
 * @st: Filled with a consistent snapshot of the counters.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 */
void kslot_map_get_stats(struct kslot_map *map, struct kslot_map_stats *st)
{
	struct kslot_map_lock_state ls;

	kslot_map_lock(map, &ls);
	st->count = map->count;
	st->capacity = map->nr_slots;
	st->max_entries = map->max_entries;
	st->retired = map->retired;
	kslot_map_unlock(map, &ls);
	st->rejected = atomic_long_read(&map->rejected);
}
EXPORT_SYMBOL_GPL(kslot_map_get_stats);

/**
 * kslot_map_dump() - Copy a consistent snapshot of some slots.
 * @map: The map.
 * @start: First slot.
 * @max: Slots @info->slots has room for.
 * @info: Receives the slots and the map's free-list head and counts.
 *
 * For debugging tools (the /dev/kslot DUMP command of kslot_dev.ko).
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the map lock.
 */
void kslot_map_dump(struct kslot_map *map, u32 start, u32 max,
		    struct kslot_map_dump_info *info)
{
	struct kslot_map_lock_state ls;
	u32 i;

	kslot_map_lock(map, &ls);
	info->nr_slots = map->nr_slots;
	info->free_head = map->free_head;
	info->count = map->count;
	for (i = 0; i < max && start + i < map->nr_slots; i++)
		info->slots[i] = *__kslot_map_slot(map, start + i);
	info->returned = i;
	kslot_map_unlock(map, &ls);
}
EXPORT_SYMBOL_NS_GPL(kslot_map_dump, KSLOT_INTERNAL);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kslot_map_test_set_gen() - Age a free slot (KUnit only).
 * @map: The map.
 * @index: A free, allocated-before slot.
 * @gen: New even generation, to start the slot near retirement.
 *
 * Context: Any context the map's lock flags allow.
 * Return: 0, or -EINVAL if the slot is not free or @gen is odd.
 */
int kslot_map_test_set_gen(struct kslot_map *map, u32 index, u32 gen)
{
	struct kslot_map_lock_state ls;
	struct kslot_map_slot *slot;
	int ret = -EINVAL;

	kslot_map_lock(map, &ls);
	slot = __kslot_map_slot(map, index);
	if (slot && !kslot_gen_is_live(slot->gen) &&
	    slot->next != KSLOT_MAP_RETIRED && !kslot_gen_is_live(gen)) {
		WRITE_ONCE(slot->gen, gen);
		ret = 0;
	}
	kslot_map_unlock(map, &ls);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_map_test_set_gen);
#endif
