// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_map: generational handle table.  See include/linux/kslot_map.h for
 * the rules and include/linux/kslot_handle.h for the handle format.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kslot_map.h>
#include <linux/log2.h>
#include <linux/minmax.h>
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

static struct kslot_map_table *kslot_map_table_locked(struct kslot_map *map)
{
	return rcu_dereference_protected(map->table,
					 lockdep_is_held(&map->lock));
}

/*
 * The table of a map with no slots yet: one slot (mask 0) whose key, 0,
 * equals only the null handle, for which the object read is NULL anyway.
 * Every empty map points at it, so lookups never check for a NULL table.
 */
static union {
	struct kslot_map_table table;
	u8 bytes[sizeof(struct kslot_map_table) +
		 sizeof(struct kslot_map_slot)];
} kslot_map_empty_table;

static struct kslot_map_table *kslot_map_empty(void)
{
	return &kslot_map_empty_table.table;
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
	RCU_INIT_POINTER(map->table, kslot_map_empty());
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

static void kslot_map_table_free_rcu(struct rcu_head *head)
{
	kvfree(container_of(head, struct kslot_map_table, rcu));
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
	struct kslot_map_table *t;
	u32 i;

	kslot_debugfs_remove(map->debugfs);
	map->debugfs = NULL;
	t = rcu_dereference_protected(map->table, true);
	for (i = 0; fn && i < map->nr_slots; i++) {
		struct kslot_map_slot *slot = &t->slots[i];

		if (kslot_gen_is_live(kslot_map_slot_gen(slot->key)))
			fn(slot->obj, slot->key, data);
	}
	/*
	 * New lookups find the empty table; lookups already running keep
	 * using the old one, which stays in place until the grace period
	 * ends.  Walkers clamp the slot count to the table they loaded.
	 */
	rcu_assign_pointer(map->table, kslot_map_empty());
	/* Pairs with the acquire in __kslot_map_slot(), kslot_map_find(). */
	smp_store_release(&map->nr_slots, 0);
	map->count = 0;
	map->free_head = KSLOT_MAP_NONE;
	if (t != kslot_map_empty())
		call_rcu(&t->rcu, kslot_map_table_free_rcu);
}
EXPORT_SYMBOL_GPL(kslot_map_destroy);

/* Slots a table holds; the shared empty table holds none. */
static u32 kslot_map_table_size(struct kslot_map_table *t)
{
	return t == kslot_map_empty() ? 0 : t->mask + 1;
}

/* Slots usable after the next growth step from @nr. */
static u32 kslot_map_grow_target(const struct kslot_map *map, u32 nr)
{
	return min(nr + KSLOT_MAP_CHUNK_SLOTS, map->max_entries);
}

/*
 * Allocate the bigger table the next growth step needs, if it needs one,
 * with the lock dropped.  @nr and @size are the slot count and table size
 * seen under the lock; the caller re-checks them after retaking it.
 */
static int kslot_map_grow_alloc(struct kslot_map *map, u32 nr, u32 size,
				struct kslot_map_table **newt, gfp_t gfp)
{
	u32 want = kslot_map_grow_target(map, nr);
	size_t bytes;

	*newt = NULL;
	if (want <= size)
		return 0;
	want = max_t(u32, roundup_pow_of_two(want), KSLOT_MAP_MIN_TABLE);
	bytes = struct_size(*newt, slots, want);
	gfp = kslot_map_gfp(map, gfp);
	if (kslot_should_fail_alloc())
		return -ENOMEM;
	/* kvmalloc() may only sleep if the caller allows it. */
	if (gfpflags_allow_blocking(gfp))
		*newt = kvmalloc(bytes, gfp);
	else
		*newt = kmalloc(bytes, gfp);
	if (!*newt)
		return -ENOMEM;
	(*newt)->mask = want - 1;
	return 0;
}

/*
 * Install a growth step; called with the lock held and the state
 * unchanged since kslot_map_grow_alloc().  Copies the table into @newt if
 * there is one, then links the next slots into the free list.
 */
static void kslot_map_grow_install(struct kslot_map *map,
				   struct kslot_map_table *newt)
{
	struct kslot_map_table *t = kslot_map_table_locked(map);
	u32 base = map->nr_slots;
	u32 end = kslot_map_grow_target(map, base);
	u32 i;

	if (newt) {
		memcpy(newt->slots, t->slots, base * sizeof(t->slots[0]));
		for (i = base; i <= newt->mask; i++) {
			newt->slots[i].key = kslot_map_free_key(i, 0);
			newt->slots[i].next = KSLOT_MAP_NONE;
		}
	} else {
		newt = t;
	}
	for (i = base; i < end; i++)
		newt->slots[i].next = i + 1 < end ? i + 1 : KSLOT_MAP_NONE;
	if (newt != t) {
		/* Readers that see the new table see its slots. */
		rcu_assign_pointer(map->table, newt);
		if (t != kslot_map_empty())
			call_rcu(&t->rcu, kslot_map_table_free_rcu);
	}
	map->free_head = base;
	/* Readers that see the new count see the table that holds it. */
	smp_store_release(&map->nr_slots, end);
}

/*
 * Make sure the free list is not empty.  Called and returns with the lock
 * held; drops it to allocate.
 */
static int kslot_map_grow(struct kslot_map *map,
			  struct kslot_map_lock_state *ls, gfp_t gfp)
	__must_hold(&map->lock)
{
	struct kslot_map_table *newt = NULL;
	int ret = 0;

	while (map->free_head == KSLOT_MAP_NONE) {
		struct kslot_map_table *t = kslot_map_table_locked(map);
		u32 nr = map->nr_slots;
		u32 size = kslot_map_table_size(t);

		if (nr >= map->max_entries) {
			ret = -ENOSPC;
			break;
		}
		if (kslot_map_grow_target(map, nr) > size) {
			kslot_map_unlock(map, ls);
			ret = kslot_map_grow_alloc(map, nr, size, &newt, gfp);
			kslot_map_lock(map, ls);
			if (ret)
				break;
			/* Someone else grew the map or freed a slot meanwhile. */
			if (map->nr_slots != nr ||
			    map->free_head != KSLOT_MAP_NONE ||
			    kslot_map_table_locked(map) != t) {
				/* vfree() may sleep: free with the lock dropped. */
				kslot_map_unlock(map, ls);
				kvfree(newt);
				newt = NULL;
				kslot_map_lock(map, ls);
				continue;
			}
		}
		kslot_map_grow_install(map, newt);
		newt = NULL;
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
	slot = &kslot_map_table_locked(map)->slots[index];
	map->free_head = slot->next;
	gen = kslot_map_slot_gen(slot->key) + 1;
	WRITE_ONCE(slot->obj, obj);
	/* Object before key; see __kslot_map_lookup(). */
	smp_wmb();
	*handle = kslot_handle_make(index, map->tag, gen);
	WRITE_ONCE(slot->key, *handle);
	map->count++;
out:
	kslot_map_unlock(map, &ls);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_map_alloc);

/*
 * The live slot @handle names, or NULL.  Called with the lock held.  A
 * key equals a handle only if the slot is live under that very handle.
 */
static struct kslot_map_slot *kslot_map_live_slot(struct kslot_map *map,
						  u64 handle)
{
	struct kslot_map_table *t = kslot_map_table_locked(map);
	struct kslot_map_slot *slot = &t->slots[(u32)handle & t->mask];

	return handle && slot->key == handle ? slot : NULL;
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
	u32 index, gen;

	kslot_map_lock(map, &ls);
	slot = kslot_map_live_slot(map, handle);
	if (!slot)
		goto out;
	obj = slot->obj;
	index = kslot_handle_index(handle);
	gen = kslot_handle_gen(handle) + 1;
	WRITE_ONCE(slot->key, kslot_map_free_key(index, gen));
	/* Key before object (and link); see __kslot_map_lookup(). */
	smp_wmb();
	map->count--;
	if (!gen) {
		WRITE_ONCE(slot->next, KSLOT_MAP_RETIRED);
		map->retired++;
	} else {
		WRITE_ONCE(slot->next, map->free_head);
		map->free_head = index;
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
	struct kslot_map_table *t;
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
	t = rcu_dereference(map->table);
	slot = &t->slots[(u32)handle & READ_ONCE(t->mask)];
	if (READ_ONCE(slot->key) != handle || READ_ONCE(slot->obj) != obj) {
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
	struct kslot_map_table *t;
	void *found = NULL;
	u32 i, nr;

	rcu_read_lock();
	/* Pairs with the release in kslot_map_grow_install(). */
	nr = smp_load_acquire(&map->nr_slots);
	t = rcu_dereference(map->table);
	/* destroy() may have swapped in the empty table after the load. */
	nr = min(nr, READ_ONCE(t->mask) + 1);
	for (i = *index; i < nr; i++) {
		struct kslot_map_slot *slot = &t->slots[i];
		u64 key = READ_ONCE(slot->key);
		void *obj;

		if (!kslot_gen_is_live(kslot_map_slot_gen(key)))
			continue;
		/* The same protocol as __kslot_map_lookup(). */
		smp_rmb();
		obj = READ_ONCE(slot->obj);
		smp_rmb(); /* Object before the key re-check. */
		if (!obj || READ_ONCE(slot->key) != key)
			continue;
		*index = i;
		*handle = key;
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
 * For debugging tools (the /dev/kslot DUMP command).
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
	for (i = 0; i < max && start + i < map->nr_slots; i++) {
		struct kslot_map_slot *slot = __kslot_map_slot(map, start + i);
		u32 gen = kslot_map_slot_gen(slot->key);

		info->slots[i].gen = gen;
		info->slots[i].next = kslot_gen_is_live(gen) ? KSLOT_MAP_NONE :
							     slot->next;
	}
	info->returned = i;
	kslot_map_unlock(map, &ls);
}

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
	if (slot && !kslot_gen_is_live(kslot_map_slot_gen(slot->key)) &&
	    slot->next != KSLOT_MAP_RETIRED && !kslot_gen_is_live(gen)) {
		WRITE_ONCE(slot->key, kslot_map_free_key(index, gen));
		ret = 0;
	}
	kslot_map_unlock(map, &ls);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_map_test_set_gen);
#endif
