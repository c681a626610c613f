// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_secondary: side values keyed by handles of another kslot table,
 * on a keyed kslot_slots table.  See include/linux/kslot_secondary.h for
 * the rules and the storage trade-off.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kslot_secondary.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kslot_dev_lib.h"
#include "kslot_internal.h"

/* One stored value; the slot points at @data. */
struct kslot_secondary_value {
	struct rcu_head rcu;
	u8 data[];
};

static void kslot_secondary_value_free(void *data)
{
	struct kslot_secondary_value *v;

	if (!data)
		return;
	v = container_of(data, struct kslot_secondary_value, data[0]);
	kfree_rcu(v, rcu);
}

/**
 * __kslot_secondary_init() - Initialise an empty secondary map.
 * @sec: The map.
 * @name: If not NULL, expose the map's counters in debugfs as
 *	kslot/secondary-@name.
 * @elem_size: Size of one value, 1 .. %KSLOT_SECONDARY_MAX_ELEM_SIZE.
 * @max_entries: Handle indices accepted, 1 .. %KSLOT_MAX_ENTRIES: the
 *	primary's max_entries, which chose the format of its handles
 *	(kslot_index_bits(); a 64-bit primary, the secondary refuses
 *	32-bit handles).
 * @flags: %KSLOT_SECONDARY_LOCK_BH or %KSLOT_SECONDARY_LOCK_IRQ (not
 *	both), and %KSLOT_SECONDARY_ACCOUNT.
 * @keys: The lockdep classes of the map lock, one per lock mode
 *	(kslot_secondary_init() passes its call site's: kslot_lock_classes()).
 *
 * Nothing is allocated until the first insert.
 *
 * Context: Process context if @name is given, otherwise any context.
 * Return: 0, or -EINVAL if @elem_size or @max_entries is out of range or
 * @flags holds unknown bits or both lock flags.
 */
int __kslot_secondary_init(struct kslot_secondary *sec, const char *name,
			   size_t elem_size, u32 max_entries,
			   unsigned int flags, struct lock_class_key *keys)
{
	int ret;

	if (!elem_size || elem_size > KSLOT_SECONDARY_MAX_ELEM_SIZE ||
	    flags & ~KSLOT_SECONDARY_FLAGS_ALL)
		return -EINVAL;
	ret = __kslot_slots_init_tag(&sec->slots, "secondary", name,
				     max_entries, flags | KSLOT_SLOTS_KEYED,
				     KSLOT_SLOTS_TAG_UNBOUND, keys);
	if (!ret)
		sec->elem_size = elem_size;
	return ret;
}
EXPORT_SYMBOL_GPL(__kslot_secondary_init);

static void kslot_secondary_drop(void *obj, u64 handle, void *data)
{
	kslot_secondary_value_free(obj);
}

/**
 * kslot_secondary_destroy() - Free all of a secondary map's memory.
 * @sec: The map.
 *
 * The caller must ensure no writer runs and no new lookup starts; lookups
 * already under RCU may finish (values are freed after a grace period);
 * they read @sec itself too, so free it, or initialise it again, only a
 * grace period after this returns.
 *
 * Context: Process context for a named map (its debugfs file is removed);
 * otherwise any context.
 */
void kslot_secondary_destroy(struct kslot_secondary *sec)
{
	kslot_slots_destroy(&sec->slots, kslot_secondary_drop, NULL);
}
EXPORT_SYMBOL_GPL(kslot_secondary_destroy);

/**
 * kslot_secondary_insert() - Store a value under a handle.
 * @sec: The map.
 * @handle: A live handle of the primary table.
 * @val: elem_size bytes to copy in, or NULL for a zeroed value.
 * @gfp: Allocation flags for the value and for growing the table.
 *
 * If the entry for @handle's index holds the same handle, the value is
 * replaced; if it holds an older handle of that index (one the primary
 * has since erased), the entry gives way; if it holds a newer one, or a
 * remove has moved the slot past @handle, the insert is refused.  The
 * first insert binds @sec to @handle's tag.  A replaced value is freed
 * after a grace period.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the map's lock flags allow.  Takes and releases the table lock.
 * Return: 0, -EINVAL if @handle is null, has an even generation, an index
 * at or beyond max_entries, or a tag other than the bound one, -ESTALE if
 * the slot is at a newer generation (or retired), or -ENOMEM; the map is
 * unchanged on error.
 */
int kslot_secondary_insert(struct kslot_secondary *sec, u64 handle,
			   const void *val, gfp_t gfp)
{
	struct kslot_secondary_value *v;
	void *old;

	if (kslot_should_fail_alloc())
		return -ENOMEM;
	v = kmalloc(struct_size(v, data, sec->elem_size),
		    kslot_gfp(gfp, sec->slots.flags & KSLOT_SECONDARY_ACCOUNT));
	if (!v)
		return -ENOMEM;
	if (val)
		memcpy(v->data, val, sec->elem_size);
	else
		memset(v->data, 0, sec->elem_size);
	old = kslot_slots_store_at(&sec->slots, handle, v->data, gfp);
	if (IS_ERR(old)) {
		/* Never published. */
		kfree(v);
		return PTR_ERR(old);
	}
	kslot_secondary_value_free(old);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_secondary_insert);

/**
 * kslot_secondary_lookup() - Copy out the value stored under a handle.
 * @sec: The map.
 * @handle: A handle, valid or not.
 * @buf: elem_size bytes to copy the value into.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: 0, or -ENOENT if nothing is stored under exactly @handle.
 */
int kslot_secondary_lookup(struct kslot_secondary *sec, u64 handle, void *buf)
{
	const void *val;

	rcu_read_lock();
	val = __kslot_secondary_lookup(sec, handle);
	if (val)
		kslot_copy_value(buf, val, sec->elem_size);
	rcu_read_unlock();
	return val ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(kslot_secondary_lookup);

/**
 * kslot_secondary_contains() - Is a value stored under a handle?
 * @sec: The map.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: true if an entry is stored under exactly @handle.
 */
bool kslot_secondary_contains(struct kslot_secondary *sec, u64 handle)
{
	return kslot_slots_lookup(&sec->slots, handle);
}
EXPORT_SYMBOL_GPL(kslot_secondary_contains);

/**
 * kslot_secondary_remove() - Remove the value stored under a handle.
 * @sec: The map.
 * @handle: A handle, valid or not.
 * @buf: If not NULL, receives the removed value.
 *
 * Only an entry stored under exactly @handle is removed.  The slot moves
 * past @handle's generation, so @handle cannot be inserted again (a newer
 * handle of the slot can).
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the table lock.
 * Return: 0, or -ENOENT if nothing is stored under exactly @handle.
 */
int kslot_secondary_remove(struct kslot_secondary *sec, u64 handle,
			   void *buf)
{
	void *val = kslot_slots_remove(&sec->slots, handle);

	if (!val)
		return -ENOENT;
	/* Ours now; readers that found it keep it until a grace period. */
	if (buf)
		memcpy(buf, val, sec->elem_size);
	kslot_secondary_value_free(val);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_secondary_remove);

/**
 * kslot_secondary_retain() - Sweep entries a predicate rejects.
 * @sec: The map.
 * @keep: Called for every entry with the handle it was stored under, its
 *	value (read-only) and @arg; the entry is removed if it returns
 *	false.  Runs under RCU and no lock of @sec: it must not sleep, and
 *	may take the primary's lock or look handles up in it.
 * @arg: Passed to @keep.
 *
 * The lazy clearing pass: with a @keep that asks the primary whether the
 * handle is still live, it drops the entries of erased handles.  Entries
 * inserted or replaced during the pass may or may not be visited; one
 * replaced after @keep saw it is not removed.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the RCU read lock and, per removal, the table lock.
 * Return: The number of entries removed.
 */
u32 kslot_secondary_retain(struct kslot_secondary *sec,
			   bool (*keep)(u64 handle, void *val, void *arg),
			   void *arg)
{
	u32 index = 0, removed = 0;
	u64 handle;
	void *val;

	rcu_read_lock();
	for (; (val = kslot_slots_find(&sec->slots, &index, U32_MAX, &handle));
	     index++) {
		if (keep(handle, val, arg))
			continue;
		/* Only the value keep() saw: a store since then stays. */
		if (!kslot_slots_remove_if(&sec->slots, handle, val)) {
			kslot_secondary_value_free(val);
			removed++;
		}
	}
	rcu_read_unlock();
	return removed;
}
EXPORT_SYMBOL_GPL(kslot_secondary_retain);

static bool kslot_secondary_keep_none(u64 handle, void *val, void *arg)
{
	return false;
}

/**
 * kslot_secondary_clear() - Remove every entry and unbind the tag.
 * @sec: The map.
 *
 * Afterwards the map accepts the handles of any primary, at any
 * generation, as when new; the slot table's chunks are freed (after a
 * grace period).  An insert racing with the clear may survive it (then
 * the tag stays bound and the chunks stay).
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the RCU read lock and the table lock (once per entry, then once for a
 * walk of every slot).
 */
void kslot_secondary_clear(struct kslot_secondary *sec)
{
	kslot_secondary_retain(sec, kslot_secondary_keep_none, NULL);
	kslot_slots_reset(&sec->slots, KSLOT_SLOTS_TAG_UNBOUND);
}
EXPORT_SYMBOL_GPL(kslot_secondary_clear);

/**
 * kslot_secondary_stats() - Read a secondary map's counters.
 * @sec: The map.
 * @st: Filled with a consistent snapshot (kslot_slots_stats()):
 *	entries stored, slots allocated, the index limit, retired slots and
 *	rejected handles.
 *
 * Context: Any context the map's lock flags allow.  Takes and releases
 * the table lock.
 */
void kslot_secondary_stats(struct kslot_secondary *sec,
			   struct kslot_slots_stats *st)
{
	kslot_slots_stats(&sec->slots, st);
}
EXPORT_SYMBOL_GPL(kslot_secondary_stats);
