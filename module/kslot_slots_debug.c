// SPDX-License-Identifier: GPL-2.0
/* The slot core's counters, debugfs file and KUnit hooks. */
#include <linux/export.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kslot_slots_core.h"

static int kslot_slots_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_slots_stats st;

	kslot_slots_stats(m->private, &st);
	seq_printf(m, "count: %u\ncapacity: %u\nmax_entries: %u\n",
		   st.count, st.capacity, st.max_entries);
	seq_printf(m, "retired: %u\nwaiting: %u\nrejected: %llu\nbytes: %llu\n",
		   st.retired, st.waiting, st.rejected, st.bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_slots_stats);

/* Process context. */
struct dentry *kslot_slots_debugfs(struct kslot_slots *s, const char *kind,
				   const char *name)
{
	return kslot_debugfs_create(kind, name, s, &kslot_slots_stats_fops);
}

/**
 * kslot_slots_stats() - Read a table's counters.
 * @s: The table.
 * @st: Filled with the counters, all but @st->rejected at one instant.
 *
 * Context: Any context the lock flags allow; takes and releases the lock.
 */
void kslot_slots_stats(struct kslot_slots *s,
		       struct kslot_slots_stats *st)
{
	struct kslot_dir *dir;
	unsigned long irqflags;
	int cpu;

	memset(st, 0, sizeof(*st));
	if (kslot_slots_zeroed(s))
		return;
	irqflags = kslot_slots_lock(s);
	st->count = kslot_slots_count(s);
	st->capacity = s->capacity;
	st->max_entries = s->max_entries;
	st->retired = s->retired;
	st->waiting = s->waiting;
	st->bytes = kslot_slots_bytes(s);
	st->grow_bytes = kslot_slots_grow_bytes(s);
	kslot_slots_unlock(s, irqflags);
	/* The counter lives as long as the directory: sum it under RCU. */
	rcu_read_lock();
	dir = rcu_dereference(s->dir);
	if (dir)
		for_each_possible_cpu(cpu)
			st->rejected += READ_ONCE(*per_cpu_ptr(dir->rejected,
							       cpu));
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(kslot_slots_stats);

#if IS_ENABLED(CONFIG_KUNIT)
DEFINE_STATIC_KEY_FALSE(kslot_slots_test_key);
kslot_slots_test_hook_t kslot_slots_test_hook;

/**
 * kslot_slots_test_set_hook() - Run a function at the core's test points (KUnit only).
 * @fn: Called with the table and the point (enum kslot_slots_test_point)
 *	wherever the core drops its locks or may race between two reads;
 *	NULL for none.
 *
 * Context: Process context; may sleep (static key patching).
 * Return: The hook set before.
 */
kslot_slots_test_hook_t kslot_slots_test_set_hook(kslot_slots_test_hook_t fn)
{
	kslot_slots_test_hook_t old = READ_ONCE(kslot_slots_test_hook);

	WRITE_ONCE(kslot_slots_test_hook, fn);
	if (fn && !old)
		static_branch_enable(&kslot_slots_test_key);
	else if (!fn && old)
		static_branch_disable(&kslot_slots_test_key);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_set_hook);

/**
 * kslot_slots_test_set_gen() - Age a free slot (KUnit only).
 * @s: The table.
 * @index: A free slot below the capacity.
 * @gen: New even generation, at most the table's largest less one.
 *
 * Context: Any context the table's lock flags allow.
 * Return: 0, or -EINVAL if the slot is not free (live, retired or
 * waiting), is beyond the capacity, or @gen is odd or does not fit the
 * table's generation bits.
 */
int kslot_slots_test_set_gen(struct kslot_slots *s, u32 index, u64 gen)
{
	unsigned long irqflags = kslot_slots_lock(s);
	struct kslot_slot *slot;
	int ret = -EINVAL;

	if (index < s->capacity && !kslot_gen_is_live(gen) &&
	    gen <= kslot_slots_gen_max(s)) {
		slot = kslot_slots_at(s, index);
		/* Bit 63 marks a waiting word in a 32-bit table only. */
		if (!kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)) &&
		    !(slot->word & KSLOT_SLOTS_WAIT_BIT &
		      ~kslot_slots_fmt_bit(s)) &&
		    kslot_slots_next(slot) != KSLOT_SLOTS_RETIRED) {
			kslot_slots_store(s, slot, index, KSLOT_SLOTS_LINK,
					  kslot_slots_free_word(s, index, gen),
					  slot->obj);
			ret = 0;
		}
	}
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_set_gen);

/**
 * kslot_slots_test_grow_step() - Add one chunk on demand (KUnit only).
 * @s: The table.
 *
 * Context: Process context.
 * Return: 0, -ENOMEM, or -ENOSPC if the table cannot grow.
 */
int kslot_slots_test_grow_step(struct kslot_slots *s)
{
	unsigned long irqflags = kslot_slots_lock(s);
	u32 cap = s->capacity;
	int ret = 0;

	while (!ret && s->capacity == cap)
		ret = kslot_slots_grow_one(s, &irqflags, GFP_KERNEL);
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_grow_step);

/**
 * kslot_slots_test_dir_room() - The chunk pointers a directory holds (KUnit only).
 * @s: The table.
 *
 * Context: Process context.
 * Return: The room of the table's directory, 0 if it has none.
 */
u32 kslot_slots_test_dir_room(struct kslot_slots *s)
{
	unsigned long irqflags = kslot_slots_lock(s);
	struct kslot_dir *dir = kslot_slots_dir(s);
	u32 room = dir ? dir->room : 0;

	kslot_slots_unlock(s, irqflags);
	return room;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_dir_room);

/* The largest growth allocation since kslot_slots_test_alloc_max(). */
static size_t kslot_test_alloc_largest;

/*
 * Note a growth's allocation of @size bytes.  Racy: the cases that read
 * the largest grow one table at a time.
 */
void kslot_test_note_alloc(size_t size)
{
	if (size > READ_ONCE(kslot_test_alloc_largest))
		WRITE_ONCE(kslot_test_alloc_largest, size);
}

/**
 * kslot_slots_test_alloc_max() - The largest growth allocation (KUnit only).
 *
 * The largest single allocation that a growth of any table asked for (a
 * chunk of slots or of kslot_dense's values, a directory or a part of
 * one) since the last call, which starts over.
 *
 * Context: Any context.
 * Return: Its size in bytes, 0 if none.
 */
size_t kslot_slots_test_alloc_max(void)
{
	return xchg(&kslot_test_alloc_largest, 0);
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_alloc_max);
#endif
