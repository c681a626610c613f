// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_slots, the generational slot core: one case per
 * function, then the slot format, bounds, tags, retire-on-wrap, growth,
 * stale-table readers, and growth under concurrent writers and readers.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/kslot_slots.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "kslot_dev_lib.h"
#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(KSLOT_DEV);
/* kslot_slots_grow_to_bytes(), kslot_dev.ko's, checked here. */
MODULE_IMPORT_NS(KSLOT_INTERNAL);

#define COOKIE(i)	((void *)(unsigned long)(((i) + 1) * 16))

static void slots_init(struct kunit *test, struct kslot_slots *s, u32 max)
{
	KUNIT_ASSERT_EQ(test, kslot_slots_init(s, "test", NULL, max, 0), 0);
}

static u64 slots_alloc(struct kunit *test, struct kslot_slots *s, void *obj)
{
	u64 h = 0;

	KUNIT_ASSERT_EQ(test, kslot_slots_alloc(s, &h, obj, GFP_KERNEL), 0);
	return h;
}

static s64 rejected(struct kslot_slots *s)
{
	struct kslot_slots_stats st;

	kslot_slots_stats(s, &st);
	return st.rejected;
}

/* The slot @index of the table, read under RCU. */
static struct kslot_slot slot_at(struct kslot_slots *s, u32 index)
{
	const struct kslot_dir *dir;
	struct kslot_slot v;

	rcu_read_lock();
	dir = rcu_dereference(s->dir);
	v = *(struct kslot_slot *)kslot_dir_at(dir, index,
					       KSLOT_SLOTS_CHUNK_SHIFT,
					       sizeof(v));
	rcu_read_unlock();
	return v;
}

/* What a directory with room for @room chunks takes. */
static size_t dir_bytes(u32 room)
{
	return kslot_kvmalloc_bytes(NULL,
			struct_size_t(struct kslot_dir, chunk, room));
}

/* What a chunk of @n slots takes. */
static size_t chunk_bytes(u32 n)
{
	return kmalloc_size_roundup(n * sizeof(struct kslot_slot));
}

/* What the per-CPU counter of rejections takes. */
static size_t counter_bytes(void)
{
	return num_possible_cpus() * sizeof(u64);
}

static void kslot_slots_test_init(struct kunit *test)
{
	struct kslot_slots s;

	KUNIT_EXPECT_EQ(test, kslot_slots_init(&s, "t", NULL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_init(&s, "t", NULL,
					       KSLOT_MAX_ENTRIES + 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_init(&s, "t", NULL, 8, BIT(7)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_init(&s, "t", NULL, 8,
					       KSLOT_SLOTS_LOCK_BH |
					       KSLOT_SLOTS_LOCK_IRQ), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_slots_init(&s, "t", "kunit",
					       KSLOT_MAX_ENTRIES,
					       KSLOT_SLOTS_LOCK_IRQ |
					       KSLOT_SLOTS_ACCOUNT), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_EQ(test, s.free_head, KSLOT_SLOTS_NONE);
	KUNIT_EXPECT_LE(test, kslot_slots_tag(&s), KSLOT_TAG_MASK);
	/* No table yet: nothing matches, nothing is allocated or counted. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, KSLOT_HANDLE_NULL));
	KUNIT_EXPECT_NULL(test,
			  kslot_slots_lookup(&s, kslot_test_handle(&s, 0, s.tag,
								   1)));
	KUNIT_EXPECT_EQ(test, rejected(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_alloc(struct kunit *test)
{
	struct kslot_slots s;
	u64 h0, h1;

	slots_init(test, &s, 64);
	h0 = slots_alloc(test, &s, COOKIE(0));
	h1 = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, h0, kslot_test_handle(&s, 0, s.tag, 1));
	KUNIT_EXPECT_EQ(test, h1, kslot_test_handle(&s, 1, s.tag, 1));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 2);
	/* max_entries below the first table size: the table is clamped. */
	KUNIT_EXPECT_EQ(test, s.capacity, 64);
	KUNIT_EXPECT_EQ(test, s.free_head, 2);
	/* A live slot's word is its whole handle. */
	KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word, h0);
	KUNIT_EXPECT_PTR_EQ(test, slot_at(&s, 1).obj, COOKIE(1));
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_lookup(struct kunit *test)
{
	struct kslot_slots s;
	u64 h;

	slots_init(test, &s, 64);
	h = slots_alloc(test, &s, COOKIE(7));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(7));
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, __kslot_slots_lookup(&s, h), COOKIE(7));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, rejected(&s), 0);
	KUNIT_EXPECT_NULL(test,
			  kslot_slots_lookup(&s, h + kslot_test_gens(&s, 2)));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h ^ 1));
	KUNIT_EXPECT_EQ(test, rejected(&s), 2);
	/* The null handle is refused but not counted. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, KSLOT_HANDLE_NULL));
	KUNIT_EXPECT_EQ(test, rejected(&s), 2);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_replace(struct kunit *test)
{
	struct kslot_slots s;
	u64 h;
	void *old;

	slots_init(test, &s, 64);
	h = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, h, COOKIE(2), &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(2));
	KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word, h);
	/* A refused replace leaves @old alone. */
	old = COOKIE(7);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_replace(&s, h + kslot_test_gens(&s, 2),
					    COOKIE(3), &old),
			-ENOENT);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(7));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(2));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(2));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, h, COOKIE(3), NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_remove(struct kunit *test)
{
	struct kslot_slots s;
	u64 h0, h1, h2;

	slots_init(test, &s, 64);
	h0 = slots_alloc(test, &s, COOKIE(0));
	h1 = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h0), COOKIE(0));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s, h0));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h0));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	KUNIT_EXPECT_EQ(test, s.free_head, 0);
	/* The free word: even generation, the neighbour's index; the link. */
	KUNIT_EXPECT_EQ(test,
			slot_at(&s, 0).word, kslot_test_free_word(&s, 0, 2));
	KUNIT_EXPECT_PTR_EQ(test, slot_at(&s, 0).obj, (void *)2UL);
	/* LIFO reuse with the next generation. */
	h2 = slots_alloc(test, &s, COOKIE(2));
	KUNIT_EXPECT_EQ(test, h2, kslot_test_handle(&s, 0, s.tag, 3));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h0));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h1), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h2), COOKIE(2));
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Placeholder then publish: a placeholder is live but looks up NULL. */
static void kslot_slots_test_placeholder(struct kunit *test)
{
	struct kslot_slots s;
	u32 index = 0;
	u64 h, it = 0;
	void *old;

	slots_init(test, &s, 64);
	h = slots_alloc(test, &s, NULL);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_EQ(test, rejected(&s), 0);
	KUNIT_EXPECT_NULL(test, kslot_slots_find(&s, &index, U32_MAX, &it));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, h, COOKIE(9), &old), 0);
	KUNIT_EXPECT_NULL(test, old);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(9));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, h, NULL, &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(9));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s, h));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_find(struct kunit *test)
{
	struct kslot_slots s;
	u64 h[5], it = 0;
	u32 index = 0, i;

	slots_init(test, &s, 64);
	for (i = 0; i < 5; i++)
		h[i] = slots_alloc(test, &s, i == 2 ? NULL : COOKIE(i));
	kslot_slots_remove(&s, h[1]);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_find(&s, &index, U32_MAX, &it),
			    COOKIE(0));
	KUNIT_EXPECT_EQ(test, index, 0);
	KUNIT_EXPECT_EQ(test, it, h[0]);
	index = 1;
	/* Slot 1 is free and slot 2 a placeholder: both skipped. */
	KUNIT_EXPECT_NULL(test, kslot_slots_find(&s, &index, 2, &it));
	KUNIT_EXPECT_EQ(test, index, 1);
	KUNIT_EXPECT_EQ(test, it, h[0]);
	/* @max is inclusive. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_find(&s, &index, 3, &it),
			    COOKIE(3));
	KUNIT_EXPECT_EQ(test, index, 3);
	KUNIT_EXPECT_EQ(test, it, h[3]);
	index = 4;
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_find(&s, &index, U32_MAX, &it),
			    COOKIE(4));
	KUNIT_EXPECT_EQ(test, index, 4);
	KUNIT_EXPECT_EQ(test, it, h[4]);
	index = 5;
	KUNIT_EXPECT_NULL(test, kslot_slots_find(&s, &index, U32_MAX, &it));
	KUNIT_EXPECT_EQ(test, index, 5);
	/* A start above @max finds nothing. */
	index = 4;
	KUNIT_EXPECT_NULL(test, kslot_slots_find(&s, &index, 3, &it));
	KUNIT_EXPECT_EQ(test, index, 4);
	index = U32_MAX;
	KUNIT_EXPECT_NULL(test, kslot_slots_find(&s, &index, U32_MAX, &it));
	KUNIT_EXPECT_EQ(test, index, U32_MAX);
	KUNIT_EXPECT_EQ(test, it, h[4]);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_find_range(struct kunit *test)
{
	struct kslot_slots s;
	u64 h[3], it = 0;
	u32 index = 0, i;

	slots_init(test, &s, 1000);
	for (i = 0; i < 3; i++)
		h[i] = slots_alloc(test, &s, COOKIE(i + 1));
	kslot_slots_remove(&s, h[1]);
	/* Slot 0 is outside 1 .. 1, slot 1 is free: stops at the end. */
	index = 1;
	KUNIT_EXPECT_NULL(test, kslot_slots_find_range(&s, &index, 2, &it));
	KUNIT_EXPECT_EQ(test, index, 2);
	KUNIT_EXPECT_EQ(test, it, 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_find_range(&s, &index, 3, &it),
			    COOKIE(3));
	KUNIT_EXPECT_EQ(test, index, 2);
	KUNIT_EXPECT_EQ(test, it, h[2]);
	/* Past the table's 256 slots: the index stops at its size. */
	index = 3;
	KUNIT_EXPECT_NULL(test, kslot_slots_find_range(&s, &index, 900, &it));
	KUNIT_EXPECT_EQ(test, index, KSLOT_SLOTS_MIN);
	index = 0;
	KUNIT_EXPECT_NULL(test, kslot_slots_find_range(&s, &index, 0, &it));
	KUNIT_EXPECT_EQ(test, index, 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * Memory reported: none before the first chunk, then the directory, the
 * counter and the chunks, at the allocator's sizes; the next growth's
 * upper bound beside it.
 */
static void kslot_slots_test_bytes(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u32 i;

	slots_init(test, &s, 300);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	KUNIT_EXPECT_EQ(test, st.grow_bytes,
			chunk_bytes(256) + dir_bytes(2) + counter_bytes());
	slots_alloc(test, &s, COOKIE(1));
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.bytes,
			chunk_bytes(256) + dir_bytes(2) + counter_bytes());
	/* The last chunk stops at max_entries; the directory has room. */
	KUNIT_EXPECT_EQ(test, st.grow_bytes, chunk_bytes(44));
	for (i = 1; i < 257; i++)
		slots_alloc(test, &s, COOKIE(1));
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, 300);
	KUNIT_EXPECT_EQ(test, st.bytes, chunk_bytes(256) + chunk_bytes(44) +
					dir_bytes(2) + counter_bytes());
	KUNIT_EXPECT_EQ(test, st.grow_bytes, 0);
	kslot_slots_destroy(&s, NULL, NULL);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	rcu_barrier();
}

/* A free account that counts what it is given, then frees it after RCU. */
struct tacct {
	struct kslot_free_acct fa;
	size_t bytes;
	int calls;
};

static void tacct_queue(struct kslot_free_acct *fa, struct rcu_head *rcu,
			rcu_callback_t free, size_t bytes)
{
	struct tacct *a = container_of(fa, struct tacct, fa);

	a->bytes += bytes;
	a->calls++;
	call_rcu(rcu, free);
}

/*
 * A table with a free account sends it each directory a growth replaces
 * (the chunks stay), and at destroy its last one with the chunks and the
 * counter, each with what it takes (the bytes its stats counted).  The
 * first directory (128 bytes) has room for eight chunks, the second (256)
 * for 24.
 */
static void kslot_slots_test_free_acct(struct kunit *test)
{
	struct tacct a = { .fa.queue = tacct_queue };
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u32 i;

	slots_init(test, &s, 8192);
	kslot_slots_set_free_acct(&s, &a.fa);
	slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, a.calls, 0);
	/* The 2049th entry adds a ninth chunk: the directory is replaced. */
	for (i = 1; i < 8 * KSLOT_SLOTS_CHUNK; i++)
		slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, a.calls, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_test_dir_room(&s), 8);
	slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.bytes, dir_bytes(8));
	KUNIT_EXPECT_EQ(test, kslot_slots_test_dir_room(&s), 24);
	KUNIT_EXPECT_EQ(test, dir_bytes(8), 128);
	KUNIT_EXPECT_EQ(test, dir_bytes(24), 256);
	kslot_slots_stats(&s, &st);
	kslot_slots_destroy(&s, NULL, NULL);
	KUNIT_EXPECT_EQ(test, a.calls, 2);
	KUNIT_EXPECT_EQ(test, a.bytes, dir_bytes(8) + st.bytes);
	/* The callbacks are this module's. */
	rcu_barrier();
}

struct destroyed {
	struct kslot_slots *s;
	unsigned long sum;
};

static void sum_destroyed(void *obj, u64 handle, void *data)
{
	struct destroyed *d = data;

	d->sum += (unsigned long)obj + kslot_slots_handle_gen(d->s, handle);
}

static void kslot_slots_test_destroy(struct kunit *test)
{
	struct kslot_slots s;
	struct destroyed d = { .s = &s };
	u64 h;

	slots_init(test, &s, 64);
	slots_alloc(test, &s, COOKIE(0));
	slots_alloc(test, &s, NULL);
	h = slots_alloc(test, &s, COOKIE(2));
	kslot_slots_remove(&s, h);
	kslot_slots_destroy(&s, sum_destroyed, &d);
	/* The live one and the placeholder, each at generation 1. */
	KUNIT_EXPECT_EQ(test, d.sum, (unsigned long)COOKIE(0) + 2);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
}

static void kslot_slots_test_stats(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u64 h;

	slots_init(test, &s, 300);
	h = slots_alloc(test, &s, COOKIE(0));
	slots_alloc(test, &s, COOKIE(1));
	kslot_slots_remove(&s, h);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.count, 1);
	KUNIT_EXPECT_EQ(test, st.capacity, KSLOT_SLOTS_MIN);
	KUNIT_EXPECT_EQ(test, st.max_entries, 300);
	KUNIT_EXPECT_EQ(test, st.retired, 0);
	KUNIT_EXPECT_EQ(test, st.rejected, 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_dump(struct kunit *test)
{
	struct kslot_slots_dump_slot ds[4];
	struct kslot_slots_dump d = { .slots = ds };
	struct kslot_slots s;
	u64 h0, h1;

	slots_init(test, &s, 3);
	h0 = slots_alloc(test, &s, COOKIE(0));
	h1 = slots_alloc(test, &s, COOKIE(1));
	kslot_slots_remove(&s, h0);
	kslot_slots_dump(&s, 0, ARRAY_SIZE(ds), &d);
	KUNIT_EXPECT_EQ(test, d.capacity, 3);
	KUNIT_EXPECT_EQ(test, d.free_head, 0);
	KUNIT_EXPECT_EQ(test, d.count, 1);
	KUNIT_EXPECT_EQ(test, d.returned, 3);
	KUNIT_EXPECT_NULL(test, ds[0].obj);
	KUNIT_EXPECT_EQ(test, ds[0].gen, 2);
	KUNIT_EXPECT_EQ(test, ds[0].next, 2);
	KUNIT_EXPECT_PTR_EQ(test, ds[1].obj, COOKIE(1));
	KUNIT_EXPECT_EQ(test, ds[1].gen, kslot_slots_handle_gen(&s, h1));
	KUNIT_EXPECT_EQ(test, ds[1].next, KSLOT_SLOTS_NONE);
	KUNIT_EXPECT_EQ(test, ds[2].gen, 0);
	KUNIT_EXPECT_EQ(test, ds[2].next, KSLOT_SLOTS_NONE);
	/* From an offset, and past the end. */
	kslot_slots_dump(&s, 2, ARRAY_SIZE(ds), &d);
	KUNIT_EXPECT_EQ(test, d.returned, 1);
	kslot_slots_dump(&s, 3, ARRAY_SIZE(ds), &d);
	KUNIT_EXPECT_EQ(test, d.returned, 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Tag, generation and index are one compare: each alone refuses. */
static void kslot_slots_test_tag_mismatch(struct kunit *test)
{
	struct kslot_slots s, other;
	u64 h, oh;

	slots_init(test, &s, 64);
	slots_init(test, &other, 64);
	other.tag = s.tag ^ 1;
	h = slots_alloc(test, &s, COOKIE(0));
	oh = slots_alloc(test, &other, COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&s, h),
			kslot_slots_handle_index(&other, oh));
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_gen(&s, h),
			kslot_slots_handle_gen(&other, oh));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, oh));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&other, h));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s, oh));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, oh, NULL, NULL), -ENOENT);
	/* The lookup, the remove and the replace of @oh each count. */
	KUNIT_EXPECT_EQ(test, rejected(&s), 3);
	KUNIT_EXPECT_EQ(test, rejected(&other), 1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(0));
	kslot_slots_destroy(&s, NULL, NULL);
	kslot_slots_destroy(&other, NULL, NULL);
}

/*
 * An index past the table is clamped to slot 0 and refused by the compare,
 * even when the rest of the handle equals slot 0's.
 */
static void kslot_slots_test_bounds(struct kunit *test)
{
	struct kslot_slots s;
	u64 h0;

	slots_init(test, &s, 1000);
	h0 = slots_alloc(test, &s, COOKIE(0));
	KUNIT_EXPECT_EQ(test, s.capacity, KSLOT_SLOTS_MIN);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h0 | KSLOT_SLOTS_MIN));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h0 |
						   (KSLOT_SLOTS_MIN + 1)));
	/* 1000 entries: 10 index bits, all set: 1023. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h0 | s.index_mask));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s, h0 | s.index_mask));
	/* A free slot in range, at the generation it would have. */
	KUNIT_EXPECT_NULL(test,
			  kslot_slots_lookup(&s, kslot_test_handle(&s, 1, s.tag,
								   1)));
	KUNIT_EXPECT_EQ(test, rejected(&s), 5);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h0), COOKIE(0));
	kslot_slots_destroy(&s, NULL, NULL);
}

/* No handle equals a free or retired word where it is compared. */
static void kslot_slots_test_free_word(struct kunit *test)
{
	struct kslot_slots s;
	u64 h0, h1;

	slots_init(test, &s, 1);
	/* max_entries 1 still gets a two-slot table. */
	h0 = slots_alloc(test, &s, COOKIE(0));
	KUNIT_EXPECT_EQ(test, s.capacity, 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h1, COOKIE(1),
						GFP_KERNEL), -ENOSPC);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h0), COOKIE(0));
	/* Slot 0's free word, and slot 1's (never used) word, as handles. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, slot_at(&s, 0).word));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, slot_at(&s, 1).word));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s, slot_at(&s, 0).word));
	/* Free at generation 0: bit 63 alone (a 32-bit table's: 0). */
	KUNIT_EXPECT_EQ(test, slot_at(&s, 1).word, KSLOT_HANDLE64_BIT);
	KUNIT_EXPECT_EQ(test, slot_at(&s, 1).word,
			kslot_test_free_word(&s, 1, 0));
	/* None is the null handle: all three count. */
	KUNIT_EXPECT_EQ(test, rejected(&s), 3);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_retire(struct kunit *test)
{
	struct kslot_slots_dump_slot ds[1];
	struct kslot_slots_dump d = { .slots = ds };
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u64 h, h2, last, gmax;

	slots_init(test, &s, 8);
	/* 8 entries: 3 index bits, 8 tag bits, 52 generation bits. */
	KUNIT_ASSERT_EQ(test, kslot_slots_gen_bits(&s), 52);
	gmax = BIT_ULL(52) - 1;
	h = slots_alloc(test, &s, COOKIE(0));
	kslot_slots_remove(&s, h);
	/* The hook refuses odd generations, live and out-of-range slots. */
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&s, 0, gmax), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&s, 0, gmax + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&s, 8, 2), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&s, 0, gmax - 1), 0);
	last = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, last, kslot_test_handle(&s, 0, s.tag, gmax));
	/* The largest handle of slot 0: every bit from the tag's up. */
	KUNIT_EXPECT_EQ(test, last, GENMASK_ULL(63, 11) | s.tag << 3);
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&s, 0, 2), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, last), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, last), COOKIE(1));
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.retired, 1);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	KUNIT_EXPECT_EQ(test, s.free_head, 1);
	kslot_slots_dump(&s, 0, 1, &d);
	KUNIT_EXPECT_EQ(test, ds[0].gen, 0);
	KUNIT_EXPECT_EQ(test, ds[0].next, KSLOT_SLOTS_RETIRED);
	/* The retired word names slot 1, whatever is compared there. */
	KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word, KSLOT_HANDLE64_BIT | 1);
	/* Slot 0 is never handed out again, and no old handle matches. */
	h2 = slots_alloc(test, &s, COOKIE(2));
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&s, h2), 1);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, last));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, slot_at(&s, 0).word));
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&s, 0, 2), -EINVAL);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_growth(struct kunit *test)
{
	const u32 max = 5000, n = 4100;
	struct kslot_slots s;
	u32 i, want = KSLOT_SLOTS_MIN;
	u64 *h;

	h = kunit_kcalloc(test, max, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	slots_init(test, &s, max);
	for (i = 0; i < n; i++) {
		h[i] = slots_alloc(test, &s, COOKIE(i));
		KUNIT_ASSERT_EQ(test, kslot_slots_handle_index(&s, h[i]), i);
		if (i == want)
			want += KSLOT_SLOTS_CHUNK;
		KUNIT_ASSERT_EQ(test, s.capacity, min(want, max));
	}
	KUNIT_EXPECT_EQ(test, s.capacity, 17 * KSLOT_SLOTS_CHUNK);
	for (i = n; i < max; i++)
		h[i] = slots_alloc(test, &s, COOKIE(i));
	/* The last chunk is clamped to max_entries. */
	KUNIT_EXPECT_EQ(test, s.capacity, max);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h[0], NULL, GFP_KERNEL),
			-ENOSPC);
	for (i = 0; i < max; i++)
		KUNIT_ASSERT_PTR_EQ(test, kslot_slots_lookup(&s, h[i]),
				    COOKIE(i));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), max);
	KUNIT_EXPECT_EQ(test, rejected(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * The largest table grows to the top (2^24 slots, 65536 chunks) with no
 * allocation above 32 KiB (order 3), which a growth in atomic context
 * gets from a fragmented machine: the directory holds its first chunks
 * itself and the rest in its far part.  Lookups (one by one and
 * pinned), writers and finds reach a far slot; the stats count the far
 * part, and destroy frees what they counted.  What /dev/kslot charges
 * before a growth (kslot_slots_grow_to_bytes()) is what the growths
 * allocated (the directories they replaced included), from none and
 * from the near part to the top.
 */
static void kslot_slots_test_grow_top(struct kunit *test)
{
	const u32 max = KSLOT_MAX_ENTRIES, last = max - KSLOT_SLOTS_CHUNK;
	const u32 chunks = max / KSLOT_SLOTS_CHUNK;
	struct tacct a = { .fa.queue = tacct_queue };
	struct kslot_slots_reader r;
	struct kslot_slots_stats st;
	u32 index = last - 3, near = 4000 * KSLOT_SLOTS_CHUNK;
	struct kslot_slots s;
	u64 h, found, all, rest, before;
	void *old;

	slots_init(test, &s, max);
	kslot_slots_set_free_acct(&s, &a.fa);
	kslot_slots_test_alloc_max();
	all = kslot_slots_grow_to_bytes(&s, 0, max - 1);
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(&s, near, GFP_KERNEL), 0);
	rest = kslot_slots_grow_to_bytes(&s, near, max - 1);
	kslot_slots_stats(&s, &st);
	before = a.bytes + st.bytes;
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(&s, max, GFP_KERNEL), 0);
	KUNIT_EXPECT_LE(test, kslot_slots_test_alloc_max(), SZ_32K);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, a.bytes + st.bytes, all);
	KUNIT_EXPECT_EQ(test, a.bytes + st.bytes - before, rest);
	KUNIT_EXPECT_EQ(test, kslot_slots_test_dir_room(&s),
			KSLOT_TEST_DIR_NEAR);
	/* A growth puts its chunk first on the free list: the last one's. */
	h = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, h, kslot_test_handle(&s, last, s.tag, 1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read(&r, h), COOKIE(1));
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, h +
						 kslot_test_gens(&s, 2)));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, rejected(&s), 1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_find_range(&s, &index, max,
							 &found), COOKIE(1));
	KUNIT_EXPECT_EQ(test, index, last);
	KUNIT_EXPECT_EQ(test, found, h);
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, h, COOKIE(2), &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(2));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s, h));
	KUNIT_EXPECT_EQ(test, rejected(&s), 3);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, max);
	KUNIT_EXPECT_EQ(test, st.grow_bytes, 0);
	KUNIT_EXPECT_EQ(test, st.bytes,
			chunks * chunk_bytes(KSLOT_SLOTS_CHUNK) +
			counter_bytes() +
			kslot_test_dir_far_bytes(chunks, chunks));
	a.bytes = 0;
	kslot_slots_destroy(&s, NULL, NULL);
	KUNIT_EXPECT_EQ(test, a.bytes, st.bytes);
	rcu_barrier();
}

/* Growth with interrupts off: GFP_ATOMIC tables, no sleeping. */
static void kslot_slots_test_irq_context(struct kunit *test)
{
	const u32 n = KSLOT_SLOTS_MIN + 44;
	unsigned long flags;
	struct kslot_slots s;
	int ret = 0;
	u32 i;
	u64 *h;

	h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_EQ(test, kslot_slots_init(&s, "t", NULL, 1024,
					       KSLOT_SLOTS_LOCK_IRQ), 0);
	flags = kslot_test_irq_enter();
	for (i = 0; i < n && !ret; i++)
		ret = kslot_slots_alloc(&s, &h[i], COOKIE(i), GFP_ATOMIC);
	for (i = 0; i < n && !ret; i++)
		if (kslot_slots_remove(&s, h[i]) != COOKIE(i))
			ret = -EINVAL;
	kslot_test_irq_exit(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 2 * KSLOT_SLOTS_MIN);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * Fail the @nth allocation of kslot_slots_alloc() on @s, for each @nth in
 * turn until one is not injected: each injected one fails with -ENOMEM
 * and changes nothing.  Returns the handle of the one that succeeds.
 */
static u64 fault_sweep(struct kunit *test, struct kslot_slots *s, void *obj)
{
	struct kslot_slots_stats before, after;
	unsigned int nth;
	bool injected;
	u64 h = 0;
	int ret;

	for (nth = 1; nth < 10; nth++) {
		kslot_slots_stats(s, &before);
		ret = kslot_test_with_fail_nth(nth, &injected,
					       kslot_slots_alloc(s, &h, obj,
								 GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
		kslot_slots_stats(s, &after);
		KUNIT_EXPECT_EQ(test, after.count, before.count);
		KUNIT_EXPECT_EQ(test, after.capacity, before.capacity);
		KUNIT_EXPECT_EQ(test, after.bytes, before.bytes);
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	return h;
}

/*
 * Every allocation of a growth fails in turn: -ENOMEM, nothing changed.
 * The first growth makes two (the chunk; the directory, room for eight
 * chunks, with its counter), the second one (the chunk), the ninth two
 * (the chunk; a directory of room for 24).
 */
static void kslot_slots_test_fault(struct kunit *test)
{
	struct kslot_slots s;
	u64 first, h;
	u32 i;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	slots_init(test, &s, 8192);
	first = fault_sweep(test, &s, COOKIE(0));
	KUNIT_EXPECT_EQ(test, s.capacity, KSLOT_SLOTS_CHUNK);
	for (i = 1; i < KSLOT_SLOTS_CHUNK; i++)
		slots_alloc(test, &s, COOKIE(i));
	h = fault_sweep(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, s.capacity, 2 * KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test, kslot_slots_test_dir_room(&s), 8);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	for (i = 1; i < 7 * KSLOT_SLOTS_CHUNK; i++)
		slots_alloc(test, &s, COOKIE(i));
	h = fault_sweep(test, &s, COOKIE(2));
	KUNIT_EXPECT_EQ(test, s.capacity, 9 * KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test, kslot_slots_test_dir_room(&s), 24);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(2));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, first), COOKIE(0));
	kslot_slots_destroy(&s, NULL, NULL);
}

struct ref_obj {
	struct kref ref;
	int released;
};

static void ref_obj_release(struct kref *ref)
{
	container_of(ref, struct ref_obj, ref)->released++;
}

static void kslot_slots_test_get(struct kunit *test)
{
	struct ref_obj *o;
	struct kslot_slots s;
	u64 h;

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	kref_init(&o->ref);
	slots_init(test, &s, 8);
	h = slots_alloc(test, &s, o);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_get(&s, h,
						  offsetof(struct ref_obj, ref),
						  ref_obj_release), o);
	KUNIT_EXPECT_EQ(test, kref_read(&o->ref), 2);
	kref_put(&o->ref, ref_obj_release);
	kref_put(&o->ref, ref_obj_release);
	/* No reference left: not resurrected. */
	KUNIT_EXPECT_NULL(test, kslot_slots_get(&s, h,
						offsetof(struct ref_obj, ref),
						ref_obj_release));
	KUNIT_EXPECT_EQ(test, kref_read(&o->ref), 0);
	KUNIT_EXPECT_EQ(test, o->released, 1);
	/* A stale handle takes no reference. */
	kref_init(&o->ref);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), o);
	KUNIT_EXPECT_NULL(test, kslot_slots_get(&s, h,
						offsetof(struct ref_obj, ref),
						ref_obj_release));
	KUNIT_EXPECT_EQ(test, kref_read(&o->ref), 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * Growth under concurrency: one kthread grows the table from empty over
 * and over (a new table each round) while another replaces and
 * re-allocates the entries already there, and readers look handles up.
 * Objects carry their handle, so a reader can tell if a handle ever
 * reached another object; at the end of a round every entry must be
 * found with its latest object, which fails if a write during a copy was
 * lost (the mirror).
 */
#define GROW_MAX	20000
#define GROW_CHURN	512

struct grow_obj {
	u64 handle;
	struct rcu_head rcu;
};

struct grow_ctx {
	struct kslot_slots s;
	u64 *h;				/* grower's handles */
	u64 churn[GROW_CHURN];		/* churner's handles */
	struct grow_obj *churn_obj[GROW_CHURN];
	atomic_t nr;			/* grower's entries so far */
	atomic_t stop, round_stop, ids;
	atomic_t churning;
	atomic_long_t lookups, hits, wrong, lost, rounds, churns;
};

static struct grow_obj *grow_obj_new(void)
{
	return kzalloc(sizeof(struct grow_obj), GFP_KERNEL);
}

static void grow_free(void *obj, u64 handle, void *data)
{
	kfree(obj);
}

static bool grow_check(struct grow_ctx *c, u64 h, struct grow_obj *want)
{
	return kslot_slots_lookup(&c->s, h) == want;
}

static void grow_churn(struct grow_ctx *c, struct rnd_state *rnd)
{
	u32 k = prandom_u32_state(rnd) % GROW_CHURN;
	struct grow_obj *o = grow_obj_new(), *old;
	void *prev = NULL;

	if (!o)
		return;
	if (c->churn[k] && prandom_u32_state(rnd) & 1) {
		o->handle = c->churn[k];
		kslot_slots_replace(&c->s, c->churn[k], o, &prev);
	} else {
		if (c->churn[k]) {
			old = kslot_slots_remove(&c->s, c->churn[k]);
			WRITE_ONCE(c->churn[k], 0);
			if (old)
				kfree_rcu(old, rcu);
		}
		if (kslot_slots_alloc(&c->s, &o->handle, NULL, GFP_KERNEL)) {
			kfree(o);
			c->churn_obj[k] = NULL;
			return;
		}
		kslot_slots_replace(&c->s, o->handle, o, &prev);
		WRITE_ONCE(c->churn[k], o->handle);
	}
	old = prev;
	if (old)
		kfree_rcu(old, rcu);
	c->churn_obj[k] = o;
	atomic_long_inc(&c->churns);
}

/* The grower: rounds of init, fill to GROW_MAX, check, destroy. */
static int grow_writer(void *arg)
{
	struct grow_ctx *c = arg;
	u32 i, k;

	while (!atomic_read(&c->stop)) {
		if (kslot_slots_init(&c->s, "t", NULL, GROW_MAX + GROW_CHURN,
				     0))
			break;
		memset(c->churn, 0, sizeof(c->churn));
		memset(c->churn_obj, 0, sizeof(c->churn_obj));
		atomic_set(&c->nr, 0);
		atomic_set(&c->round_stop, 0);
		/* Let the churner and the readers in. */
		atomic_set_release(&c->churning, 1);
		for (i = 0; i < GROW_MAX && !atomic_read(&c->stop); i++) {
			struct grow_obj *o = grow_obj_new();

			if (!o)
				break;
			if (kslot_slots_alloc(&c->s, &o->handle, NULL,
					      GFP_KERNEL)) {
				kfree(o);
				break;
			}
			kslot_slots_replace(&c->s, o->handle, o, NULL);
			c->h[i] = o->handle;
			atomic_set_release(&c->nr, i + 1);
			if (i % 256 == 0)
				cond_resched();
		}
		/* Stop the churner and readers, then check everything. */
		atomic_set(&c->round_stop, 1);
		while (atomic_read(&c->churning) != 3)
			usleep_range(500, 1000);
		for (k = 0; k < i; k++) {
			struct grow_obj *o = kslot_slots_lookup(&c->s, c->h[k]);

			if (!o || o->handle != c->h[k])
				atomic_long_inc(&c->lost);
		}
		for (k = 0; k < GROW_CHURN; k++)
			if (c->churn[k] &&
			    !grow_check(c, c->churn[k], c->churn_obj[k]))
				atomic_long_inc(&c->lost);
		synchronize_rcu();
		kslot_slots_destroy(&c->s, grow_free, NULL);
		atomic_long_inc(&c->rounds);
		atomic_set(&c->churning, 0);
		if (atomic_read(&c->stop))
			break;
	}
	atomic_set(&c->churning, 4);
	while (!kthread_should_stop())
		usleep_range(500, 1000);
	return 0;
}

/*
 * The first "reader" thread churns, the others read.  Handshake on
 * c->churning: 1 = round running, 2 = churner parked, 3 = churner and
 * readers parked, 0 = between rounds, 4 = done.
 */
static int grow_reader(void *arg)
{
	struct grow_ctx *c = arg;
	int id = atomic_inc_return(&c->ids);
	struct rnd_state rnd;

	prandom_seed_state(&rnd, 1234 + id);
	while (!kthread_should_stop()) {
		int state = atomic_read_acquire(&c->churning);

		if (state == 4 || (state != 1 && state != 2)) {
			usleep_range(500, 1000);
			continue;
		}
		if (atomic_read(&c->round_stop)) {
			/* Churner parks first, then the (one) reader. */
			if (id == 1 && state == 1)
				atomic_set(&c->churning, 2);
			else if (id != 1 && state == 2)
				atomic_set(&c->churning, 3);
			cond_resched();
			continue;
		}
		if (id == 1) {
			grow_churn(c, &rnd);
		} else {
			u32 nr = atomic_read_acquire(&c->nr);
			u64 h;
			struct grow_obj *o;

			if (!nr)
				continue;
			h = c->h[prandom_u32_state(&rnd) % nr];
			rcu_read_lock();
			o = __kslot_slots_lookup(&c->s, h);
			if (o) {
				atomic_long_inc(&c->hits);
				if (READ_ONCE(o->handle) != h)
					atomic_long_inc(&c->wrong);
			}
			h = READ_ONCE(c->churn[prandom_u32_state(&rnd) %
					       GROW_CHURN]);
			o = __kslot_slots_lookup(&c->s, h);
			if (o && READ_ONCE(o->handle) != h)
				atomic_long_inc(&c->wrong);
			rcu_read_unlock();
			atomic_long_inc(&c->lookups);
		}
		cond_resched();
	}
	return 0;
}

static void kslot_slots_test_grow_concurrent(struct kunit *test)
{
	struct grow_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->h = kunit_kcalloc(test, GROW_MAX, sizeof(*c->h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->h);
	kslot_test_run_threads(test, grow_writer, grow_reader, 2, c, &c->stop,
			       3000);
	kunit_info(test, "%ld rounds, %ld churns, %ld lookups, %ld hits, %ld wrong, %ld lost\n",
		   atomic_long_read(&c->rounds), atomic_long_read(&c->churns),
		   atomic_long_read(&c->lookups), atomic_long_read(&c->hits),
		   atomic_long_read(&c->wrong), atomic_long_read(&c->lost));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&c->wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&c->lost), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&c->rounds), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&c->churns), 100);
	KUNIT_EXPECT_GT(test, atomic_long_read(&c->hits), 100);
	rcu_barrier();
}

static void slots_init32(struct kunit *test, struct kslot_slots *s, u32 max)
{
	KUNIT_ASSERT_EQ(test, kslot_slots_init(s, "test", NULL, max,
					       KSLOT_SLOTS_HANDLE32), 0);
}

/* The 32-bit format: index bits from max_entries, the rest generation. */
static void kslot_slots_test_handle32(struct kunit *test)
{
	static const struct {
		u32 max, bits;
	} fmt[] = {
		{ 1, 1 }, { 2, 1 }, { 3, 2 }, { 256, 8 }, { 257, 9 },
		{ 65536, 16 }, { BIT(20), 20 }, { KSLOT_MAX_ENTRIES, 24 },
	};
	struct kslot_slots_dump_slot ds[2];
	struct kslot_slots_dump d = { .slots = ds };
	struct kslot_slots s;
	u64 h0, h1, h2, it = 0;
	u32 i, index = 0;

	for (i = 0; i < ARRAY_SIZE(fmt); i++) {
		slots_init32(test, &s, fmt[i].max);
		KUNIT_EXPECT_EQ(test, s.index_mask, BIT(fmt[i].bits) - 1);
		KUNIT_EXPECT_EQ(test, s.gen_shift, fmt[i].bits);
		KUNIT_EXPECT_EQ(test, kslot_slots_tag(&s), 0);
		kslot_slots_destroy(&s, NULL, NULL);
	}
	slots_init32(test, &s, 65536);
	h0 = slots_alloc(test, &s, COOKIE(0));
	h1 = slots_alloc(test, &s, COOKIE(1));
	/* Generation 1 at bit 16, then the index; no tag. */
	KUNIT_EXPECT_EQ(test, h0, 0x10000);
	KUNIT_EXPECT_EQ(test, h1, 0x10001);
	KUNIT_EXPECT_EQ(test, slot_at(&s, 1).word, h1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h1), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h0), COOKIE(0));
	/* The free word: generation 2 at bit 16, the neighbour's index. */
	KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word, 0x20001);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, slot_at(&s, 0).word));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h0));
	h2 = slots_alloc(test, &s, COOKIE(2));
	KUNIT_EXPECT_EQ(test, h2, 0x30000);
	/* Index 300 is past the 256-slot table: clamped to slot 0. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, 0x10000 | 300));
	/* Bits above the format are part of the one compare. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h1 | BIT_ULL(31)));
	KUNIT_EXPECT_EQ(test, rejected(&s), 4);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_find(&s, &index, U32_MAX, &it),
			    COOKIE(2));
	KUNIT_EXPECT_EQ(test, it, h2);
	kslot_slots_dump(&s, 0, ARRAY_SIZE(ds), &d);
	KUNIT_EXPECT_EQ(test, ds[0].gen, 3);
	KUNIT_EXPECT_EQ(test, ds[1].gen, 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* 24 index bits leave 7 generation bits: 64 uses, then the slot waits. */
static void kslot_slots_test_handle32_retire(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u64 h, last;

	slots_init32(test, &s, KSLOT_MAX_ENTRIES);
	h = slots_alloc(test, &s, COOKIE(0));
	kslot_slots_remove(&s, h);
	/* Generation 128 does not fit 7 bits. */
	KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&s, 0, 128), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&s, 0, 126), 0);
	last = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, last, 0x7f000000);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, last), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, last), COOKIE(1));
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.retired, 0);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	/* Waiting: generation 0, naming slot 1, since 2 allocations. */
	KUNIT_EXPECT_EQ(test, s.waiting, 1);
	KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word, BIT_ULL(63) | 2ULL << 32 | 1);
	KUNIT_EXPECT_EQ(test, slots_alloc(test, &s, COOKIE(2)), 0x1000001);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, last));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * Every slot of a 32-bit table wrapped: no lifetime limit.  With 30
 * generation bits a slot serves 2^29 allocations, more than the reuse
 * distance, so its wait is over at once: the slot that waited longest
 * starts a new cycle first; -ENOSPC only once every slot is live.
 */
static void kslot_slots_test_handle32_exhausted(struct kunit *test)
{
	/* max_entries 2: 1 index bit, 30 generation bits. */
	const u32 last_free = BIT(30) - 2;
	struct kslot_slots_stats st;
	struct kslot_slots s;
	unsigned long flags;
	u64 h[2], x = 0;
	int ret[2];
	u32 i;

	slots_init32(test, &s, 2);
	for (i = 0; i < 2; i++)
		h[i] = slots_alloc(test, &s, COOKIE(i));
	for (i = 0; i < 2; i++)
		kslot_slots_remove(&s, h[i]);
	for (i = 0; i < 2; i++)
		KUNIT_ASSERT_EQ(test,
				kslot_slots_test_set_gen(&s, i, last_free), 0);
	/* LIFO: slot 1 first.  The largest handles of the format. */
	for (i = 0; i < 2; i++)
		h[i] = slots_alloc(test, &s, COOKIE(i));
	KUNIT_EXPECT_EQ(test, h[0], 0x7fffffff);
	KUNIT_EXPECT_EQ(test, h[1], 0x7ffffffe);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h[i]),
				    COOKIE(i));
	KUNIT_EXPECT_EQ(test, s.waiting, 2);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.retired, 0);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	/* Full: the waiting slots are room, taken as allocations need them. */
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(&s, 2, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.waiting, 2);
	/* Slot 1 waited longest: generation 1 again, then slot 0. */
	KUNIT_EXPECT_EQ(test, slots_alloc(test, &s, COOKIE(2)), 0x3);
	flags = kslot_slots_lock(&s);
	ret[0] = __kslot_slots_alloc(&s, &x, COOKIE(3));
	ret[1] = __kslot_slots_alloc(&s, &h[0], NULL);
	kslot_slots_unlock(&s, flags);
	KUNIT_EXPECT_EQ(test, ret[0], 0);
	KUNIT_EXPECT_EQ(test, x, 0x2);
	KUNIT_EXPECT_EQ(test, ret[1], -ENOSPC);
	KUNIT_EXPECT_EQ(test, h[0], 0x7fffffff);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &x, NULL, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(&s, 1, GFP_KERNEL), -ENOSPC);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.count, 2);
	KUNIT_EXPECT_EQ(test, st.capacity, 2);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h[0]));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h[1]));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, 0x3), COOKIE(2));
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * iommufd's table: 32-bit handles, 2^20 entries, so 11 generation bits
 * and G = 1024 allocations per slot cycle.  One entry created and
 * destroyed 2^21 times: the table grows a chunk at a time while its
 * first slots wait, to D / G = 1024 slots, and then never again.
 */
static void kslot_slots_test_handle32_grows(struct kunit *test)
{
	const u32 slots32 = KSLOT_SLOTS_REUSE_DISTANCE / 1024;
	struct kslot_slots s;
	u32 t;
	u64 h;

	slots_init32(test, &s, BIT(20));
	for (t = 0; t < 2 * KSLOT_SLOTS_REUSE_DISTANCE; t++) {
		if (kslot_slots_alloc(&s, &h, COOKIE(0), GFP_KERNEL))
			break;
		if (kslot_slots_remove(&s, h) != COOKIE(0))
			break;
		if (!(t % 4096))
			cond_resched();
	}
	KUNIT_EXPECT_EQ(test, t, 2 * KSLOT_SLOTS_REUSE_DISTANCE);
	/* Grown a chunk at a time while the first slots waited, then no more. */
	KUNIT_EXPECT_EQ(test, s.capacity, slots32);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * The same table, 2^22 creations and destructions under the lock after
 * a reserve of D / G slots: never -ENOSPC, never more slots, and no
 * handle issued again within KSLOT_SLOTS_REUSE_DISTANCE (2^20)
 * allocations.
 */
static void kslot_slots_test_handle32_churn(struct kunit *test)
{
	const u32 rounds = BIT(22), chunk = 4096;
	const u32 slots32 = KSLOT_SLOTS_REUSE_DISTANCE / 1024;
	u32 t, j, repeats = 0, failures = 0, first;
	unsigned long flags;
	struct kslot_slots s;
	u32 *last;
	u64 h;

	/* The allocation that last issued each (index, generation), + 1. */
	last = vcalloc(BIT(20), sizeof(*last));
	KUNIT_ASSERT_NOT_NULL(test, last);
	slots_init32(test, &s, BIT(20));
	/* The churn allocates under the lock: grow to D / G slots first. */
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(&s, slots32, GFP_KERNEL), 0);
	first = s.capacity;
	KUNIT_EXPECT_EQ(test, first, slots32);
	for (t = 1; t <= rounds; t += chunk) {
		flags = kslot_slots_lock(&s);
		for (j = t; j < t + chunk; j++) {
			u32 index, id;

			if (__kslot_slots_alloc(&s, &h, COOKIE(0))) {
				failures++;
				continue;
			}
			index = h & s.index_mask;
			id = index << 10 | (u32)(h >> s.gen_shift) >> 1;
			if (index >= slots32) {
				failures++;
			} else {
				if (last[id] && j - last[id] < KSLOT_SLOTS_REUSE_DISTANCE)
					repeats++;
				last[id] = j;
			}
			if (__kslot_slots_remove(&s, h) != COOKIE(0))
				failures++;
		}
		kslot_slots_unlock(&s, flags);
		cond_resched();
	}
	vfree(last);
	KUNIT_EXPECT_EQ(test, failures, 0);
	KUNIT_EXPECT_EQ(test, repeats, 0);
	KUNIT_EXPECT_EQ(test, s.capacity, slots32);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	KUNIT_EXPECT_LE(test, s.waiting, slots32);
	KUNIT_EXPECT_EQ(test, s.retired, 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * Each format gives a table the generation bits its index leaves: 55 - b
 * (64-bit) or 31 - b (32-bit) for b index bits.  So a small 64-bit table
 * retires no sooner than a large one: max_entries * 2^(gen bits - 1)
 * allocations, at least 2^53.
 */
static void kslot_slots_test_gen_bits(struct kunit *test)
{
	static const struct {
		u32 max, index, gen64, gen32;
	} fmt[] = {
		{ 1, 1, 54, 30 }, { 256, 8, 47, 23 },
		{ KSLOT_MAX_ENTRIES, 24, 31, 7 },
	};
	struct kslot_slots s;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(fmt); i++) {
		slots_init(test, &s, fmt[i].max);
		KUNIT_EXPECT_EQ(test, kslot_slots_gen_bits(&s), fmt[i].gen64);
		KUNIT_EXPECT_EQ(test, kslot_gen_bits(fmt[i].max, false),
				fmt[i].gen64);
		KUNIT_EXPECT_EQ(test, s.index_mask, BIT(fmt[i].index) - 1);
		KUNIT_EXPECT_EQ(test, s.tag_shift, fmt[i].index);
		KUNIT_EXPECT_EQ(test, s.gen_shift, fmt[i].index + 8);
		/* Allocations before the table retires. */
		KUNIT_EXPECT_GE(test, (u64)fmt[i].max <<
				      (kslot_slots_gen_bits(&s) - 1),
				BIT_ULL(53));
		kslot_slots_destroy(&s, NULL, NULL);
		slots_init32(test, &s, fmt[i].max);
		KUNIT_EXPECT_EQ(test, kslot_slots_gen_bits(&s), fmt[i].gen32);
		KUNIT_EXPECT_EQ(test, kslot_gen_bits(fmt[i].max, true),
				fmt[i].gen32);
		kslot_slots_destroy(&s, NULL, NULL);
	}
	/* A one-entry 64-bit table: 2^53 allocations, 2^47 at the least. */
	slots_init(test, &s, 1);
	KUNIT_EXPECT_EQ(test, 1ULL << (kslot_slots_gen_bits(&s) - 1),
			BIT_ULL(53));
	KUNIT_EXPECT_GE(test, 1ULL << (kslot_slots_gen_bits(&s) - 1),
			BIT_ULL(47));
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * Churn a one-entry table of each format, reading each handle's
 * generation, then jump to the end of the slot's generations: a 64-bit
 * table retires the slot exactly at its last (2^54 - 1), a 32-bit one
 * (at 2^30 - 1) starts it over.
 */
static void kslot_slots_test_churn_one(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u64 h, gmax;
	u32 i, w;

	for (w = 0; w < 2; w++) {
		if (w)
			slots_init32(test, &s, 1);
		else
			slots_init(test, &s, 1);
		gmax = BIT_ULL(w ? 30 : 54) - 1;
		KUNIT_ASSERT_EQ(test, BIT_ULL(kslot_slots_gen_bits(&s)) - 1,
				gmax);
		for (i = 0; i < 1000; i++) {
			h = slots_alloc(test, &s, COOKIE(i));
			KUNIT_ASSERT_EQ(test, kslot_slots_handle_gen(&s, h),
					2 * i + 1);
			KUNIT_ASSERT_EQ(test, h,
					kslot_slots_handle_make(&s, 0,
								2 * i + 1));
			KUNIT_ASSERT_PTR_EQ(test, kslot_slots_remove(&s, h),
					    COOKIE(i));
		}
		KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word,
				kslot_test_free_word(&s, 0, 2000));
		/* Beyond the format: refused. */
		KUNIT_EXPECT_EQ(test, kslot_slots_test_set_gen(&s, 0, gmax + 1),
				-EINVAL);
		KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&s, 0, gmax - 3),
				0);
		/* The last but one generation ends like any other. */
		h = slots_alloc(test, &s, COOKIE(1));
		KUNIT_EXPECT_EQ(test, kslot_slots_handle_gen(&s, h), gmax - 2);
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(1));
		KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word,
				kslot_test_free_word(&s, 0, gmax - 1));
		/* The last: every generation bit set. */
		h = slots_alloc(test, &s, COOKIE(2));
		KUNIT_EXPECT_EQ(test, h, kslot_slots_handle_make(&s, 0, gmax));
		KUNIT_EXPECT_EQ(test, h, w ? GENMASK_ULL(30, 1) :
				GENMASK_ULL(63, 9) | (u64)s.tag << 1);
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(2));
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(2));
		kslot_slots_stats(&s, &st);
		KUNIT_EXPECT_EQ(test, st.count, 0);
		KUNIT_EXPECT_EQ(test, st.retired, w ? 0 : 1);
		KUNIT_EXPECT_EQ(test, st.waiting, w ? 1 : 0);
		KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
		if (w) {
			/* Full: the waiting slot starts over at once. */
			h = slots_alloc(test, &s, COOKIE(3));
			KUNIT_EXPECT_EQ(test,
					h, kslot_slots_handle_make(&s, 0, 1));
		} else {
			/* Retired for good: the table is spent. */
			KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h, COOKIE(3),
								GFP_KERNEL),
					-ENOSPC);
			KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word,
					kslot_test_free_word(&s, 0, 0));
		}
		kslot_slots_destroy(&s, NULL, NULL);
	}
}

/* No handle of one format matches a slot of a table of the other. */
static void kslot_slots_test_formats_never_mix(struct kunit *test)
{
	const u32 n64 = KSLOT_SLOTS_MIN, n32 = 64;
	struct kslot_slots s64, s32;
	u64 *h64, *h32, low;
	u32 i;

	h64 = kunit_kcalloc(test, n64, sizeof(*h64), GFP_KERNEL);
	h32 = kunit_kcalloc(test, n32, sizeof(*h32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h64);
	KUNIT_ASSERT_NOT_NULL(test, h32);
	slots_init(test, &s64, n64);
	slots_init32(test, &s32, n32);
	for (i = 0; i < n64; i++)
		h64[i] = slots_alloc(test, &s64, COOKIE(i));
	for (i = 0; i < n32; i++)
		h32[i] = slots_alloc(test, &s32, COOKIE(i));
	/* 64 entries: 6 index bits, generation 1 at bit 6. */
	KUNIT_EXPECT_EQ(test, h32[0], 0x40);
	KUNIT_EXPECT_EQ(test, h32[n32 - 1], 0x7f);
	/* 256 entries: generation 1 at bit 16, under bit 63. */
	KUNIT_EXPECT_EQ(test, h64[0], KSLOT_HANDLE64_BIT | BIT_ULL(16) |
				      (u64)s64.tag << 8);
	/* Every live handle of each, presented to the other. */
	for (i = 0; i < n64; i++)
		KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s32, h64[i]));
	for (i = 0; i < n32; i++)
		KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s64, h32[i]));
	KUNIT_EXPECT_EQ(test, rejected(&s32), n64);
	KUNIT_EXPECT_EQ(test, rejected(&s64), n32);
	/* Halves: a 32-bit handle with high bits, a 64-bit one without. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s32, h32[0] | BIT_ULL(32)));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s64, lower_32_bits(h64[0])));
	/* Writers refuse them too, and change nothing. */
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s32, h64[0], NULL, NULL),
			-ENOENT);
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s64, h32[0]));
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(&s32, h64[0], COOKIE(0)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s64), n64);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s32), n32);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s64, h64[0]), COOKIE(0));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s32, h32[0]), COOKIE(0));
	/*
	 * Bit 63 is all that parts them: below it, slot 65's handle is a
	 * 32-bit handle of slot 1 (6 index bits) at an odd generation.
	 * Slot 1 of the 32-bit table, brought to that generation, holds it.
	 */
	low = h64[65] & ~KSLOT_HANDLE64_BIT;
	KUNIT_ASSERT_LT(test, low, BIT_ULL(31));
	KUNIT_ASSERT_EQ(test, low & 63, 1);
	KUNIT_ASSERT_TRUE(test, kslot_gen_is_live(low >> 6));
	KUNIT_ASSERT_PTR_EQ(test, kslot_slots_remove(&s32, h32[1]), COOKIE(1));
	KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&s32, 1, (low >> 6) - 1),
			0);
	KUNIT_ASSERT_EQ(test, slots_alloc(test, &s32, COOKIE(65)), low);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s32, low), COOKIE(65));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s32, h64[65]));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s64, low));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s64, h64[65]),
			    COOKIE(65));
	kslot_slots_destroy(&s64, NULL, NULL);
	kslot_slots_destroy(&s32, NULL, NULL);
}

/* Under the lock: free slots only, -ENOMEM / -ENOSPC, never a growth. */
static void kslot_slots_test_locked_alloc(struct kunit *test)
{
	const u32 max = KSLOT_SLOTS_MIN + 2;
	struct kslot_slots s;
	unsigned long flags;
	int ret = 0;
	u64 h = 0;
	u32 i;

	slots_init(test, &s, max);
	flags = kslot_slots_lock(&s);
	KUNIT_EXPECT_EQ(test, __kslot_slots_alloc(&s, &h, COOKIE(0)), -ENOMEM);
	kslot_slots_unlock(&s, flags);
	KUNIT_EXPECT_EQ(test, h, 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(&s, 1, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, KSLOT_SLOTS_MIN);
	flags = kslot_slots_lock(&s);
	for (i = 0; i < KSLOT_SLOTS_MIN && !ret; i++)
		ret = __kslot_slots_alloc(&s, &h, COOKIE(i));
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, h,
			kslot_test_handle(&s, KSLOT_SLOTS_MIN - 1, s.tag, 1));
	KUNIT_EXPECT_PTR_EQ(test, __kslot_slots_lookup(&s, h),
			    COOKIE(KSLOT_SLOTS_MIN - 1));
	/* Full, but it could grow: -ENOMEM, h untouched. */
	KUNIT_EXPECT_EQ(test, __kslot_slots_alloc(&s, &h, NULL), -ENOMEM);
	kslot_slots_unlock(&s, flags);
	KUNIT_EXPECT_EQ(test, h,
			kslot_test_handle(&s, KSLOT_SLOTS_MIN - 1, s.tag, 1));
	KUNIT_EXPECT_EQ(test, s.capacity, KSLOT_SLOTS_MIN);
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(&s, 2, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, max);
	flags = kslot_slots_lock(&s);
	KUNIT_EXPECT_EQ(test, __kslot_slots_alloc(&s, &h, NULL), 0);
	KUNIT_EXPECT_EQ(test, __kslot_slots_alloc(&s, &h, COOKIE(1)), 0);
	KUNIT_EXPECT_EQ(test, h, kslot_test_handle(&s, max - 1, s.tag, 1));
	/* At max_entries: -ENOSPC. */
	KUNIT_EXPECT_EQ(test, __kslot_slots_alloc(&s, &h, NULL), -ENOSPC);
	kslot_slots_unlock(&s, flags);
	KUNIT_EXPECT_EQ(test, h, kslot_test_handle(&s, max - 1, s.tag, 1));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), max);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_locked_replace(struct kunit *test)
{
	struct kslot_slots s;
	unsigned long flags;
	u64 h;
	void *old;

	slots_init(test, &s, 64);
	h = slots_alloc(test, &s, COOKIE(1));
	flags = kslot_slots_lock(&s);
	KUNIT_EXPECT_EQ(test, __kslot_slots_replace(&s, h, COOKIE(2), &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, __kslot_slots_lookup(&s, h), COOKIE(2));
	KUNIT_EXPECT_EQ(test,
			__kslot_slots_replace(&s, h + kslot_test_gens(&s, 2),
					      COOKIE(3), NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, __kslot_slots_replace(&s, h, NULL, &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(2));
	kslot_slots_unlock(&s, flags);
	/*
	 * Back to a placeholder: live, looks up NULL, not rejected; the
	 * replace of the stale handle was.
	 */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word, h);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	KUNIT_EXPECT_EQ(test, rejected(&s), 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_locked_remove(struct kunit *test)
{
	struct kslot_slots s;
	unsigned long flags;
	u64 h0, h1;

	slots_init(test, &s, 64);
	h0 = slots_alloc(test, &s, COOKIE(0));
	h1 = slots_alloc(test, &s, COOKIE(1));
	flags = kslot_slots_lock(&s);
	KUNIT_EXPECT_PTR_EQ(test, __kslot_slots_remove(&s, h0), COOKIE(0));
	KUNIT_EXPECT_NULL(test, __kslot_slots_remove(&s, h0));
	KUNIT_EXPECT_NULL(test, __kslot_slots_lookup(&s, h0));
	kslot_slots_unlock(&s, flags);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	KUNIT_EXPECT_EQ(test, s.free_head, 0);
	KUNIT_EXPECT_EQ(test,
			slot_at(&s, 0).word, kslot_test_free_word(&s, 0, 2));
	/* The second remove and the lookup. */
	KUNIT_EXPECT_EQ(test, rejected(&s), 2);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h1), COOKIE(1));
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Placeholder, published exactly once, then compare-and-replace. */
static void kslot_slots_test_replace_if(struct kunit *test)
{
	struct kslot_slots s;
	u64 h;

	slots_init(test, &s, 64);
	h = slots_alloc(test, &s, NULL);
	KUNIT_EXPECT_EQ(test, kslot_slots_replace_if(&s, h, COOKIE(9),
						     COOKIE(1)), -EBUSY);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace_if(&s, h, NULL, COOKIE(1)),
			0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	/* A second publish finds the slot taken. */
	KUNIT_EXPECT_EQ(test, kslot_slots_replace_if(&s, h, NULL, COOKIE(2)),
			-EBUSY);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_replace_if(&s, h + kslot_test_gens(&s, 2),
					       COOKIE(1), COOKIE(2)),
			-ENOENT);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace_if(&s, h, COOKIE(1),
						     COOKIE(2)), 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(2));
	/* The handle keeps its generation. */
	KUNIT_EXPECT_EQ(test, slot_at(&s, 0).word, h);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(2));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace_if(&s, h, COOKIE(2),
						     COOKIE(3)), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_locked_replace_if(struct kunit *test)
{
	struct kslot_slots s;
	unsigned long flags;
	u64 h;

	KUNIT_ASSERT_EQ(test, kslot_slots_init(&s, "t", NULL, 64,
					       KSLOT_SLOTS_LOCK_BH), 0);
	h = slots_alloc(test, &s, NULL);
	flags = kslot_slots_lock(&s);
	KUNIT_EXPECT_EQ(test, __kslot_slots_replace_if(&s, h, COOKIE(9),
						       COOKIE(1)), -EBUSY);
	KUNIT_EXPECT_NULL(test, __kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_EQ(test, __kslot_slots_replace_if(&s, h, NULL,
						       COOKIE(1)), 0);
	KUNIT_EXPECT_PTR_EQ(test, __kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, __kslot_slots_replace_if(&s, h ^ 1, COOKIE(1),
						       NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, __kslot_slots_replace_if(&s, h, COOKIE(1),
						       NULL), 0);
	kslot_slots_unlock(&s, flags);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_remove_if(struct kunit *test)
{
	struct kslot_slots s;
	u64 h, r;

	slots_init(test, &s, 64);
	h = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(&s, h, COOKIE(2)), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_remove_if(&s, h + kslot_test_gens(&s, 2),
					      COOKIE(1)), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(&s, h, COOKIE(1)), 0);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_EQ(test,
			slot_at(&s, 0).word, kslot_test_free_word(&s, 0, 2));
	KUNIT_EXPECT_EQ(test, s.free_head, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(&s, h, COOKIE(1)), -ENOENT);
	/* A placeholder is removed with old NULL only. */
	r = slots_alloc(test, &s, NULL);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(&s, r, COOKIE(1)), -EBUSY);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(&s, r, NULL), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_locked_remove_if(struct kunit *test)
{
	struct kslot_slots s;
	unsigned long flags;
	u64 h;

	KUNIT_ASSERT_EQ(test, kslot_slots_init(&s, "t", NULL, 64,
					       KSLOT_SLOTS_LOCK_IRQ), 0);
	h = slots_alloc(test, &s, COOKIE(1));
	flags = kslot_slots_lock(&s);
	KUNIT_EXPECT_EQ(test, __kslot_slots_remove_if(&s, h, NULL), -EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, __kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, __kslot_slots_remove_if(&s, h ^ 1, COOKIE(1)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, __kslot_slots_remove_if(&s, h, COOKIE(1)), 0);
	KUNIT_EXPECT_NULL(test, __kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_EQ(test, __kslot_slots_remove_if(&s, h, COOKIE(1)),
			-ENOENT);
	kslot_slots_unlock(&s, flags);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	/* Both -ENOENT removes and the lookup; -EBUSY is no rejection. */
	KUNIT_EXPECT_EQ(test, rejected(&s), 3);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* @n GFP_ATOMIC allocations with interrupts off: 0 or the first error. */
static int atomic_allocs(struct kslot_slots *s, u64 *h, u32 n)
{
	unsigned long flags = kslot_test_irq_enter();
	int ret = 0;
	u32 i;

	for (i = 0; i < n && !ret; i++)
		ret = kslot_slots_alloc(s, &h[i], COOKIE(i), GFP_ATOMIC);
	kslot_test_irq_exit(flags);
	return ret;
}

/* Reserved room: later allocations, even atomic ones, never allocate. */
static void kslot_slots_test_reserve_capacity(struct kunit *test)
{
	const u32 max = 1000, n = 2 * KSLOT_SLOTS_MIN;
	struct kslot_slots s;
	bool injected;
	u64 *h;
	int ret;

	h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	slots_init(test, &s, max);
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(&s, 0, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(&s, max + 1, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(&s, 300, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, n);
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(&s, n, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, n);
	/* Atomic allocations of the reserved room reach no allocation. */
	ret = kslot_test_with_fail_nth(1, &injected,
				       atomic_allocs(&s, h, n));
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), n);
	KUNIT_EXPECT_EQ(test, s.capacity, n);
	/* A failed growth: -ENOMEM, nothing changed. */
	if (kslot_test_fail_nth_usable()) {
		ret = kslot_test_with_fail_nth(1, &injected,
					       kslot_slots_reserve(&s, 1,
								   GFP_KERNEL));
		KUNIT_EXPECT_TRUE(test, injected);
		KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
		KUNIT_EXPECT_EQ(test, s.capacity, n);
	}
	/* 488 slots left under max_entries. */
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(&s, max - n + 1, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, s.capacity, n);
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(&s, max - n, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, max);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h[n - 1]),
			    COOKIE(n - 1));
	kslot_slots_destroy(&s, NULL, NULL);
}

/* A keyed table of @max slots, its tag unbound. */
static void keyed_init(struct kunit *test, struct kslot_slots *s, u32 max)
{
	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(s, "test", NULL, max,
						   KSLOT_SLOTS_KEYED,
						   KSLOT_SLOTS_TAG_UNBOUND), 0);
}

/*
 * A keyed table is not restored: its writers make free slots live where
 * they are, off any list, so there is no free list to rebuild.  Without
 * the refusal, kslot_slots_restore_done() walked a list that ran into
 * live slots.
 */
static void kslot_slots_test_restore_keyed(struct kunit *test)
{
	struct kslot_slots s;
	u64 h;

	keyed_init(test, &s, 4 * KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&s, 3, 1, COOKIE(1),
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&s, 3, 2, NULL,
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_retired(&s, 4, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, s.restoring);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	/* Its own writers are untouched. */
	h = kslot_test_handle(&s, 3, 7, 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, h, COOKIE(2),
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(2));
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_init_tag(struct kunit *test)
{
	struct kslot_slots s;
	u64 h;

	KUNIT_EXPECT_EQ(test, kslot_slots_init_tag(&s, "t", NULL, 8, 0,
						   KSLOT_TAG_MASK + 1), -EINVAL);
	/* Only a keyed table may wait for its tag. */
	KUNIT_EXPECT_EQ(test, kslot_slots_init_tag(&s, "t", NULL, 8, 0,
						   KSLOT_SLOTS_TAG_UNBOUND),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_init_tag(&s, "t", NULL, 0, 0, 5),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&s, "t", NULL, 8, 0, 0x5a),
			0);
	KUNIT_EXPECT_EQ(test, kslot_slots_tag(&s), 0x5a);
	h = slots_alloc(test, &s, COOKIE(0));
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_tag(&s, h), 0x5a);
	/* Not keyed: insert_at refuses, whatever the handle. */
	h = kslot_test_handle(&s, 1, 0x5a, 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, h, COOKIE(1),
						    GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_store_at(&s, h, COOKIE(1),
						       GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_insert_at(struct kunit *test)
{
	struct kslot_slots s;
	u64 h, h2, x, gmax;
	void *obj;
	u32 cap;
	void *old;

	/* 10 index bits: slots 1000 .. 1023 are past the end. */
	keyed_init(test, &s, 1000);
	h = kslot_test_handle(&s, 300, 0x33, 5);
	gmax = BIT_ULL(kslot_slots_gen_bits(&s)) - 1;
	/* Keyed: no free list to allocate from. */
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h2, COOKIE(0), GFP_KERNEL),
			-EINVAL);
	/* Bad handles: nothing changes, the tag stays unbound. */
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, KSLOT_HANDLE_NULL,
						    COOKIE(0), GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s,
						    h - kslot_test_gens(&s, 1),
						    COOKIE(0), GFP_KERNEL),
			-EINVAL);
	/* Not a 64-bit handle: bit 63 clear. */
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s,
						    h & ~KSLOT_HANDLE64_BIT,
						    COOKIE(0), GFP_KERNEL),
			-EINVAL);
	x = kslot_test_handle(&s, 1000, 0x33, 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, x, COOKIE(0),
						    GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_tag(&s), KSLOT_SLOTS_TAG_UNBOUND);
	/* Exactly h becomes live: the table grows to its index. */
	KUNIT_ASSERT_EQ(test, kslot_slots_insert_at(&s, h, COOKIE(1),
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 512);
	KUNIT_EXPECT_EQ(test, kslot_slots_tag(&s), 0x33);
	KUNIT_EXPECT_EQ(test, slot_at(&s, 300).word, h);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_NULL(test,
			  kslot_slots_lookup(&s, h + kslot_test_gens(&s, 2)));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	/* Live slot: -EEXIST, under h or any other generation. */
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, h, COOKIE(2),
						    GFP_KERNEL), -EEXIST);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_insert_at(&s, h + kslot_test_gens(&s, 2),
					      COOKIE(2), GFP_KERNEL),
			-EEXIST);
	/* The tag is bound now. */
	x = kslot_test_handle(&s, 2, 0x34, 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, x, COOKIE(2),
						    GFP_KERNEL), -EINVAL);
	/* Remove leaves generation 6: h and older are stale, 7 is not. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, h, COOKIE(2),
						    GFP_KERNEL), -ESTALE);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_insert_at(&s, h - kslot_test_gens(&s, 2),
					      COOKIE(2), GFP_KERNEL),
			-ESTALE);
	h2 = h + kslot_test_gens(&s, 2);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, h2, NULL, GFP_KERNEL),
			0);
	/* A placeholder, published by replace as in any table. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h2));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, h2, COOKIE(3), &old), 0);
	KUNIT_EXPECT_NULL(test, old);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h2), COOKIE(3));
	/* A jump of generations on a fresh slot is fine. */
	x = kslot_test_handle(&s, 7, 0x33, 999);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, x, COOKIE(4),
						    GFP_KERNEL), 0);
	cap = s.capacity;
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 2);
	/* Retired slots stay retired. */
	x = kslot_test_handle(&s, 8, 0x33, gmax);
	KUNIT_ASSERT_EQ(test, kslot_slots_insert_at(&s, x, COOKIE(5),
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, x), COOKIE(5));
	x = kslot_test_handle(&s, 8, 0x33, 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, x, COOKIE(6),
						    GFP_KERNEL), -ESTALE);
	KUNIT_EXPECT_EQ(test, s.retired, 1);
	KUNIT_EXPECT_EQ(test, s.capacity, cap);
	obj = kslot_slots_lookup(&s, kslot_test_handle(&s, 7, 0x33, 999));
	KUNIT_EXPECT_PTR_EQ(test, obj, COOKIE(4));
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_insert_at_fault(struct kunit *test)
{
	struct kslot_slots s;
	bool injected;
	int ret;
	u64 h;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	keyed_init(test, &s, 4096);
	h = kslot_test_handle(&s, 8 * KSLOT_SLOTS_CHUNK + 88, 1, 1);
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_slots_insert_at(&s, h, COOKIE(0),
							     GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_tag(&s), KSLOT_SLOTS_TAG_UNBOUND);
	/*
	 * The slot is in the ninth chunk: eleven allocations (a chunk and
	 * the directory, seven chunks, a chunk and a larger directory); the
	 * eleventh fails.
	 */
	ret = kslot_test_with_fail_nth(11, &injected,
				       kslot_slots_insert_at(&s, h, COOKIE(0),
							     GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, s.capacity, 8 * KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, h, COOKIE(0),
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 9 * KSLOT_SLOTS_CHUNK);
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_store_at(struct kunit *test)
{
	struct kslot_slots s;
	u64 h, newer, x;

	/* 6 index bits: slots 60 .. 63 are past the end. */
	keyed_init(test, &s, 60);
	h = kslot_test_handle(&s, 4, 9, 3);
	newer = h + kslot_test_gens(&s, 8);
	/* Free slot: stored, nothing was there. */
	KUNIT_EXPECT_NULL(test, kslot_slots_store_at(&s, h, COOKIE(0),
						     GFP_KERNEL));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(0));
	/* Same handle: the pointer is replaced. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_store_at(&s, h, COOKIE(1),
						       GFP_KERNEL), COOKIE(0));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	/* Newer handle of the slot: the old entry gives way. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_store_at(&s, newer, COOKIE(2),
						       GFP_KERNEL), COOKIE(1));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, newer), COOKIE(2));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	/* Older than the slot: refused, nothing changed. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_store_at(&s, h, COOKIE(3),
						       GFP_KERNEL),
			    ERR_PTR(-ESTALE));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, newer), COOKIE(2));
	x = kslot_test_handle(&s, 4, 8, 99);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_store_at(&s, x, COOKIE(3),
						       GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	x = kslot_test_handle(&s, 60, 9, 1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_store_at(&s, x, COOKIE(3),
						       GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	/* Reset: only an empty table, then every generation is forgotten. */
	KUNIT_EXPECT_EQ(test, kslot_slots_reset(&s, KSLOT_SLOTS_TAG_UNBOUND),
			-EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, newer), COOKIE(2));
	KUNIT_EXPECT_EQ(test, kslot_slots_reset(&s, KSLOT_TAG_MASK + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_reset(&s, KSLOT_SLOTS_TAG_UNBOUND),
			0);
	/* The chunks are gone; the next write grows the table again. */
	KUNIT_EXPECT_EQ(test, s.capacity, 0);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, newer));
	x = kslot_test_handle(&s, 4, 8, 1);
	KUNIT_EXPECT_NULL(test, kslot_slots_store_at(&s, x, COOKIE(4),
						     GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, kslot_slots_tag(&s), 8);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Dump a table, then recreate it slot by slot in a new one. */
static void kslot_slots_test_restore(struct kunit *test)
{
	struct kslot_slots_dump_slot *ds;
	struct kslot_slots_dump d = {};
	struct kslot_slots a, b;
	u64 h[6], stale, h2, gmax;
	u32 i;

	ds = kunit_kcalloc(test, 16, sizeof(*ds), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ds);
	d.slots = ds;
	slots_init(test, &a, 16);
	for (i = 0; i < 6; i++)
		h[i] = slots_alloc(test, &a, i == 5 ? NULL : COOKIE(i));
	stale = h[1];
	kslot_slots_remove(&a, h[1]);
	h[1] = slots_alloc(test, &a, COOKIE(1));
	KUNIT_ASSERT_EQ(test, kslot_slots_handle_index(&a, h[1]), 1);
	kslot_slots_remove(&a, h[3]);
	kslot_slots_remove(&a, h[4]);
	/* 16 entries: 4 index bits leave 51 generation bits. */
	gmax = BIT_ULL(51) - 1;
	KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&a, 4, gmax - 1), 0);
	h[4] = slots_alloc(test, &a, COOKIE(4));
	KUNIT_ASSERT_EQ(test, kslot_slots_handle_gen(&a, h[4]), gmax);
	kslot_slots_remove(&a, h[4]);
	KUNIT_ASSERT_EQ(test, a.retired, 1);
	kslot_slots_dump(&a, 0, 16, &d);
	KUNIT_ASSERT_EQ(test, d.returned, 16);

	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&b, "test", NULL, 16, 0,
						   kslot_slots_tag(&a)), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&b, 16, 1, NULL,
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&b, 2, 2, COOKIE(0),
						       GFP_KERNEL), -EINVAL);
	/* A generation the format cannot carry, live or free. */
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&b, 2, gmax + 2, NULL,
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&b, 2, gmax + 1, NULL,
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_FALSE(test, b.restoring);
	for (i = 0; i < d.returned; i++) {
		if (ds[i].next == KSLOT_SLOTS_RETIRED)
			KUNIT_ASSERT_EQ(test,
					kslot_slots_restore_retired(&b, i,
								    GFP_KERNEL),
					0);
		else if (ds[i].gen)
			KUNIT_ASSERT_EQ(test,
					kslot_slots_restore_slot(&b, i,
								 ds[i].gen,
								 ds[i].obj,
								 GFP_KERNEL),
					0);
	}
	KUNIT_EXPECT_TRUE(test, b.restoring);
	/* Each slot once; no allocation until the free list is rebuilt. */
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&b, 0, 3, NULL,
						       GFP_KERNEL), -EEXIST);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_retired(&b, 4, GFP_KERNEL),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&b, &h2, COOKIE(9),
						GFP_KERNEL), -EINVAL);
	kslot_slots_restore_done(&b);
	KUNIT_EXPECT_FALSE(test, b.restoring);
	/* Live entries at their handles, placeholders NULL. */
	for (i = 0; i < 6; i++) {
		if (i == 3 || i == 4)
			continue;
		KUNIT_EXPECT_EQ(test, slot_at(&b, i).word, h[i]);
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&b, h[i]),
				    i == 5 ? NULL : COOKIE(i));
	}
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&b), kslot_slots_count(&a));
	KUNIT_EXPECT_EQ(test, b.retired, 1);
	/* Stale handles stay stale. */
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&b, stale));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&b, h[3]));
	/* The free list, lowest first: 3, then 6.. ; 4 is retired. */
	KUNIT_EXPECT_EQ(test, b.free_head, 3);
	h2 = slots_alloc(test, &b, COOKIE(7));
	KUNIT_EXPECT_EQ(test, h2, h[3] + kslot_test_gens(&b, 2));
	h2 = slots_alloc(test, &b, COOKIE(8));
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&b, h2), 6);
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_gen(&b, h2), 1);
	/* Restoring a table that has entries outside a restore is refused. */
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&b, 9, 1, NULL,
						       GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_FALSE(test, b.restoring);
	kslot_slots_destroy(&a, NULL, NULL);
	kslot_slots_destroy(&b, NULL, NULL);
}

/* A free slot restored at its generation keeps older handles stale. */
static void kslot_slots_test_restore_free(struct kunit *test)
{
	struct kslot_slots s;
	u64 h;

	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&s, "test", NULL, 600, 0, 7),
			0);
	/* Beyond the first table: restore grows the table. */
	KUNIT_ASSERT_EQ(test, kslot_slots_restore_slot(&s, 300, 40, NULL,
						       GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 512);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	KUNIT_EXPECT_EQ(test, slot_at(&s, 300).word,
			kslot_test_free_word(&s, 300, 40));
	kslot_slots_restore_done(&s);
	/* Slot 0 first; take them all down to 300. */
	do {
		h = slots_alloc(test, &s, COOKIE(0));
	} while (kslot_slots_handle_index(&s, h) != 300);
	KUNIT_EXPECT_EQ(test, h, kslot_test_handle(&s, 300, 7, 41));
	/* restore_done() outside a restore changes nothing. */
	kslot_slots_restore_done(&s);
	KUNIT_EXPECT_EQ(test, s.free_head, 301);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * The writers on a table that has allocated nothing (no table yet) and
 * on one that has: the null handle and a never-issued handle of slot 0
 * change nothing, and only the latter counts as rejected.
 */
static void null_handle_writers(struct kunit *test, struct kslot_slots *s)
{
	u64 h, h0 = kslot_test_handle(s, 0, s->tag, 1);

	KUNIT_EXPECT_NULL(test, kslot_slots_remove(s, 0));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(s, 0, COOKIE(1), NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_replace_if(s, 0, NULL, COOKIE(1)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(s, 0, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, rejected(s), 0);
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(s, h0));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(s, h0, COOKIE(1), NULL),
			-ENOENT);
	/* No table: nothing to count in. */
	KUNIT_EXPECT_EQ(test, rejected(s), 0);
	/* Still no table. */
	KUNIT_EXPECT_NULL(test, rcu_dereference_protected(s->dir, 1));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(s), 0);
	/* With a table: the null handle still changes nothing. */
	h = slots_alloc(test, s, COOKIE(2));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(s, 0));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(s, 0, COOKIE(3), NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, rejected(s), 0);
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(s, h0 + 2));
	KUNIT_EXPECT_EQ(test, rejected(s), 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(s), 1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(s, h), COOKIE(2));
}

static void kslot_slots_test_null_handle(struct kunit *test)
{
	struct kslot_slots s;
	unsigned long flags;

	slots_init(test, &s, 64);
	flags = kslot_slots_lock(&s);
	KUNIT_EXPECT_NULL(test, __kslot_slots_remove(&s, 0));
	KUNIT_EXPECT_EQ(test, __kslot_slots_replace(&s, 0, COOKIE(1), NULL),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, __kslot_slots_remove_if(&s, 0, NULL), -ENOENT);
	kslot_slots_unlock(&s, flags);
	null_handle_writers(test, &s);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* ---- soundness: forced interleavings, lock classes, zeroed tables ---- */

/*
 * The test-point hook (kslot_slots_test_set_hook()): one case at a time
 * sets it, with the table it watches and what to do there.
 */
static struct {
	struct kslot_slots *s;
	enum kslot_slots_test_point point;
	void (*fn)(struct kslot_slots *s);
	unsigned int calls;
	bool busy;
	/* Every point the table passed, BIT(point), whoever passed it. */
	unsigned long passed;
} tp;

static void tp_hook(struct kslot_slots *s, enum kslot_slots_test_point point)
{
	if (s != tp.s)
		return;
	tp.passed |= BIT(point);
	if (point != tp.point || tp.busy)
		return;
	tp.busy = true;
	tp.calls++;
	tp.fn(s);
	tp.busy = false;
}

static void tp_clear(void)
{
	kslot_slots_test_set_hook(NULL);
	tp.s = NULL;
}

static void tp_clear_action(void *unused)
{
	tp_clear();
}

/* Set the hook for the case; cleared when the case ends, however. */
static void tp_set(struct kunit *test, struct kslot_slots *s,
		   enum kslot_slots_test_point point,
		   void (*fn)(struct kslot_slots *s))
{
	tp.s = s;
	tp.point = point;
	tp.fn = fn;
	tp.calls = 0;
	tp.busy = false;
	tp.passed = 0;
	kslot_slots_test_set_hook(tp_hook);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, tp_clear_action, NULL),
			0);
}

/* An object the table holds a reference to. */
struct lg_obj {
	struct kref ref;
	u64 h;
	int released;
	/* Released before kslot_slots_get() left its RCU section. */
	bool released_in_rcu;
};

static struct lg_obj *lg;

static void lg_release(struct kref *ref)
{
	struct lg_obj *o = container_of(ref, struct lg_obj, ref);

	/* A release may sleep: mutex_lock(), vfree(), synchronize_rcu(). */
	might_sleep();
	/*
	 * The lookup passes KSLOT_SLOTS_TP_LOOKUP_OUT right after its
	 * rcu_read_unlock(): before that, it holds the read lock.
	 */
	o->released_in_rcu = !(tp.passed & BIT(KSLOT_SLOTS_TP_LOOKUP_OUT));
	o->released++;
}

/* Between the lookup's reference and its re-check: remove, drop the table's. */
static void lg_remove(struct kslot_slots *s)
{
	if (kslot_slots_remove(s, lg->h) == lg)
		kref_put(&lg->ref, lg_release);
}

/*
 * kslot_slots_get() whose entry is removed after it took its
 * reference: the re-check fails and its put is the last one, so the
 * release (which may sleep) runs, outside the RCU read-side section
 * (after the lookup passed KSLOT_SLOTS_TP_LOOKUP_OUT).  A put before the
 * rcu_read_unlock() releases inside it.
 */
static void kslot_slots_test_get_last_ref(struct kunit *test)
{
	struct kslot_slots s;

	lg = kunit_kzalloc(test, sizeof(*lg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lg);
	kref_init(&lg->ref);
	slots_init(test, &s, 16);
	lg->h = slots_alloc(test, &s, lg);
	tp_set(test, &s, KSLOT_SLOTS_TP_GET, lg_remove);
	KUNIT_EXPECT_NULL(test, kslot_slots_get(&s, lg->h,
						offsetof(struct lg_obj, ref),
						lg_release));
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_EQ(test, lg->released, 1);
	KUNIT_EXPECT_FALSE(test, lg->released_in_rcu);
	KUNIT_EXPECT_EQ(test, kref_read(&lg->ref), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Between the lookup's reference and its re-check: replace the object. */
static struct lg_obj *lg2;

static void lg_replace(struct kslot_slots *s)
{
	void *old;

	if (!kslot_slots_replace(s, lg->h, lg2, &old) && old == lg)
		kref_put(&lg->ref, lg_release);
}

/*
 * kslot_slots_get() whose entry's object is replaced after it took
 * its reference: the handle is still live, so it starts over and returns
 * the new object, with a reference, as __fget_files_rcu() retries.
 */
static void kslot_slots_test_get_replaced(struct kunit *test)
{
	struct kslot_slots s;
	void *got;

	lg = kunit_kzalloc(test, sizeof(*lg), GFP_KERNEL);
	lg2 = kunit_kzalloc(test, sizeof(*lg2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lg);
	KUNIT_ASSERT_NOT_NULL(test, lg2);
	kref_init(&lg->ref);
	kref_init(&lg2->ref);
	slots_init(test, &s, 16);
	lg->h = slots_alloc(test, &s, lg);
	tp_set(test, &s, KSLOT_SLOTS_TP_GET, lg_replace);
	got = kslot_slots_get(&s, lg->h, offsetof(struct lg_obj, ref),
			      lg_release);
	tp_clear();
	KUNIT_EXPECT_PTR_EQ(test, got, lg2);
	KUNIT_EXPECT_EQ(test, lg->released, 1);
	KUNIT_EXPECT_FALSE(test, lg->released_in_rcu);
	KUNIT_EXPECT_EQ(test, kref_read(&lg2->ref), 2);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Between the lookup's reference and its re-check: destroy the table. */
static void lg_put_destroyed(void *obj, u64 handle, void *data)
{
	struct lg_obj *o = obj;

	kref_put(&o->ref, lg_release);
}

static void lg_destroy(struct kslot_slots *s)
{
	kslot_slots_destroy(s, lg_put_destroyed, NULL);
}

/*
 * kslot_slots_get() whose table is destroyed after it took its
 * reference: the re-check finds no directory, so the entry is stale, and
 * the put after the read-side section is the last one.  Without the
 * check of the directory pointer, the re-check reads through NULL.
 */
static void kslot_slots_test_get_destroyed(struct kunit *test)
{
	struct kslot_slots s;

	lg = kunit_kzalloc(test, sizeof(*lg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lg);
	kref_init(&lg->ref);
	slots_init(test, &s, 16);
	lg->h = slots_alloc(test, &s, lg);
	tp_set(test, &s, KSLOT_SLOTS_TP_GET, lg_destroy);
	KUNIT_EXPECT_NULL(test, kslot_slots_get(&s, lg->h,
						offsetof(struct lg_obj, ref),
						lg_release));
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_EQ(test, lg->released, 1);
	KUNIT_EXPECT_FALSE(test, lg->released_in_rcu);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, lg->h));
	/* The struct outlives the readers by a grace period; then free. */
	synchronize_rcu();
}

/*
 * A free account that records what destroy gives it: the bytes, whether
 * the table still published its directory then, and whether the free
 * ran, which it passes on to call_rcu().
 */
static struct {
	struct kslot_slots *s;
	rcu_callback_t free;
	size_t bytes;
	int calls;
	bool published;
	bool ran;
} dq;

static void dq_free(struct rcu_head *rcu)
{
	WRITE_ONCE(dq.ran, true);
	dq.free(rcu);
}

static void dq_queue(struct kslot_free_acct *fa, struct rcu_head *rcu,
		     rcu_callback_t free, size_t bytes)
{
	dq.free = free;
	dq.bytes += bytes;
	dq.calls++;
	dq.published = !!rcu_access_pointer(dq.s->dir);
	call_rcu(rcu, dq_free);
}

/*
 * Lookups already in their read-side section when the table is destroyed
 * finish on its chunks, and lookups that start after it find no table:
 * destroy unpublishes the directory, then queues it with the chunks and
 * the counter (all the table's bytes) for after a grace period, never
 * freeing them itself.  Freed at once, the queue gets nothing (and the
 * pinned reader's reads are a use after free KASAN reports); queued
 * while still published, a lookup that starts meanwhile would outlive
 * the grace period.
 */
static void kslot_slots_test_destroy_readers(struct kunit *test)
{
	static struct kslot_free_acct fa = { .queue = dq_queue };
	struct kslot_slots_reader r;
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u64 h, stale;

	slots_init(test, &s, 600);
	memset(&dq, 0, sizeof(dq));
	dq.s = &s;
	kslot_slots_set_free_acct(&s, &fa);
	h = slots_alloc(test, &s, COOKIE(1));
	stale = slots_alloc(test, &s, COOKIE(2));
	KUNIT_ASSERT_PTR_EQ(test, kslot_slots_remove(&s, stale), COOKIE(2));
	kslot_slots_stats(&s, &st);
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	kslot_slots_destroy(&s, NULL, NULL);
	KUNIT_EXPECT_EQ(test, dq.calls, 1);
	KUNIT_EXPECT_EQ(test, dq.bytes, st.bytes);
	KUNIT_EXPECT_FALSE(test, dq.published);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read(&r, h), COOKIE(1));
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, stale));
	/* A lookup that starts now finds no table, and touches nothing. */
	KUNIT_EXPECT_NULL(test, rcu_dereference(s.dir));
	KUNIT_EXPECT_NULL(test, __kslot_slots_lookup(&s, h));
	rcu_read_unlock();
	/* The free ran once the readers were done. */
	rcu_barrier();
	KUNIT_EXPECT_TRUE(test, dq.ran);
}

/* Another allocation grows the table while the first allocates. */
static u64 gr_h;
static int gr_ret;

static void gr_alloc(struct kslot_slots *s)
{
	gr_ret = kslot_slots_alloc(s, &gr_h, COOKIE(2), GFP_KERNEL);
}

/*
 * Two growths at once: the second publishes its chunk while the first
 * has its own allocated and the lock dropped.  The first sees the table
 * grew, frees its chunk and takes a slot of the second's: one chunk
 * added, not two, and every slot where its index says.  A growth that
 * published without looking would add a chunk whose slots carry the
 * indices of the one before it.
 */
static void kslot_slots_test_grow_race(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u32 i;
	u64 h;

	slots_init(test, &s, 4 * KSLOT_SLOTS_CHUNK);
	for (i = 0; i < KSLOT_SLOTS_CHUNK; i++)
		slots_alloc(test, &s, COOKIE(0));
	tp_set(test, &s, KSLOT_SLOTS_TP_GROW, gr_alloc);
	h = slots_alloc(test, &s, COOKIE(1));
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_ASSERT_EQ(test, gr_ret, 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 2 * KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_handle_index(&s, gr_h), KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_handle_index(&s, h), KSLOT_SLOTS_CHUNK + 1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, gr_h), COOKIE(2));
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.count, KSLOT_SLOTS_CHUNK + 2);
	KUNIT_EXPECT_EQ(test, st.bytes, 2 * chunk_bytes(KSLOT_SLOTS_CHUNK) +
					dir_bytes(2) + counter_bytes());
	/* The rest of the new chunk, in order, then the next growth. */
	for (i = KSLOT_SLOTS_CHUNK + 2; i < 2 * KSLOT_SLOTS_CHUNK; i++) {
		h = slots_alloc(test, &s, COOKIE(0));
		KUNIT_ASSERT_EQ(test, kslot_slots_handle_index(&s, h), i);
	}
	h = slots_alloc(test, &s, COOKIE(0));
	KUNIT_EXPECT_EQ(test,
			kslot_slots_handle_index(&s, h), 2 * KSLOT_SLOTS_CHUNK);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* While a growth allocates: free a slot. */
static u64 gf_victim;
static int gf_ret;

static void gf_remove_only(struct kslot_slots *s)
{
	if (kslot_slots_remove(s, gf_victim) == COOKIE(5))
		gf_ret = 0;
}

/* A restore begins while an allocation has the lock dropped to grow. */
static int rs_ret;

static void rs_restore(struct kslot_slots *s)
{
	rs_ret = kslot_slots_restore_slot(s, 0, 5, COOKIE(3), GFP_KERNEL);
}

/*
 * A restore may begin while an allocation grows the table (it asks only
 * that no entry be live, and the allocation has none yet), and makes the
 * free list stale: the allocation, one at a time or in bulk, and a
 * reserve then refuse as writers after the restore began do, and the
 * restored entry stays.  Without the second look, the allocation took
 * slot 0, live under the restored handle, off the stale list, and the
 * reserve reported room for allocations that then failed.
 */
static void kslot_slots_test_grow_restore(struct kunit *test)
{
	void *objs[2] = { COOKIE(1), COOKIE(2) };
	u64 hs[2] = { 0, 0 }, h = 0, rh;
	struct kslot_slots s;
	int mode, ret;

	for (mode = 0; mode < 3; mode++) {
		slots_init(test, &s, 4 * KSLOT_SLOTS_CHUNK);
		rs_ret = -ENOENT;
		tp_set(test, &s, KSLOT_SLOTS_TP_GROW, rs_restore);
		if (mode == 2)
			ret = kslot_slots_reserve(&s, 2, GFP_KERNEL);
		else if (mode == 1)
			ret = kslot_slots_alloc_bulk(&s, hs, objs, 2,
						     GFP_KERNEL);
		else
			ret = kslot_slots_alloc(&s, &h, COOKIE(1), GFP_KERNEL);
		tp_clear();
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
		KUNIT_EXPECT_EQ(test, tp.calls, 1);
		KUNIT_EXPECT_EQ(test, rs_ret, 0);
		rh = kslot_test_handle(&s, 0, kslot_slots_tag(&s), 5);
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, rh),
				    COOKIE(3));
		KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
		/* The rebuilt list: the lowest free slot next. */
		kslot_slots_restore_done(&s);
		h = slots_alloc(test, &s, COOKIE(4));
		KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&s, h), 1);
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, rh),
				    COOKIE(3));
		KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 2);
		kslot_slots_destroy(&s, NULL, NULL);
	}
}

/*
 * An atomic allocation whose growth fails for memory while a remove
 * frees a slot: it takes that slot instead of failing.  Without the
 * second look at the free list after the failed growth, -ENOMEM with a
 * free slot on the list.
 */
static void kslot_slots_test_grow_nomem_free_slot(struct kunit *test)
{
	bool injected;
	u64 h = 0;
	int ret;
	u32 i;
	struct kslot_slots s;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	slots_init(test, &s, 4 * KSLOT_SLOTS_CHUNK);
	for (i = 0; i < KSLOT_SLOTS_CHUNK; i++) {
		h = slots_alloc(test, &s, COOKIE(i == 9 ? 5 : 0));
		if (i == 9)
			gf_victim = h;
	}
	gf_ret = -EINVAL;
	tp_set(test, &s, KSLOT_SLOTS_TP_GROW, gf_remove_only);
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_slots_alloc(&s, &h, COOKIE(1),
							 GFP_ATOMIC));
	tp_clear();
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_EQ(test, gf_ret, 0);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&s, h), 9);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_EQ(test, s.capacity, KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), KSLOT_SLOTS_CHUNK);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Between two holds of restore_done()'s walk: remove two entries. */
static void rw_remove(struct kslot_slots *s)
{
	if (tp.calls > 1)
		return;
	kslot_slots_remove(s, kslot_test_handle(s, 10, 7, 1));
	kslot_slots_remove(s, kslot_test_handle(s, 2500, 7, 1));
}

/*
 * kslot_slots_restore_done() drops the lock between KSLOT_SLOTS_WALK
 * slots; removes in between push slots on the free list, one the walk
 * has passed (2500) and one it has not (10).  The list it leaves has
 * every free slot exactly once: the walked ones lowest first, the pushed
 * one it had passed ahead of them.  Without its re-check of the list head
 * after the lock was dropped, slot 2500 is lost from the list.
 */
static void kslot_slots_test_restore_walk(struct kunit *test)
{
	const u32 n = 3000;
	unsigned long *seen;
	struct kslot_slots s;
	u32 i, index;
	u64 h;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&s, "test", NULL, n, 0, 7),
			0);
	KUNIT_ASSERT_EQ(test, kslot_slots_restore_slot(&s, 10, 1, COOKIE(1),
						       GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kslot_slots_restore_slot(&s, 2500, 1, COOKIE(2),
						       GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kslot_slots_restore_slot(&s, n - 1, 1, COOKIE(3),
						       GFP_KERNEL), 0);
	tp_set(test, &s, KSLOT_SLOTS_TP_WALK, rw_remove);
	kslot_slots_restore_done(&s);
	tp_clear();
	/* Three holds of the lock for 3000 slots, 1024 at a time. */
	KUNIT_EXPECT_EQ(test, tp.calls, 2);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 1);
	for (i = 0; i < n - 1; i++) {
		h = slots_alloc(test, &s, COOKIE(0));
		index = kslot_slots_handle_index(&s, h);
		KUNIT_ASSERT_FALSE(test, __test_and_set_bit(index, seen));
	}
	KUNIT_EXPECT_EQ(test, find_first_zero_bit(seen, n), n - 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h, COOKIE(0), GFP_KERNEL),
			-ENOSPC);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Inside a growth: empty the table, reset it, grow it to one chunk. */
static u64 *gz_h;
static u32 gz_n;
static u64 gz_b;
static int gz_ret;

static void gz_reset(struct kslot_slots *s)
{
	u32 i;

	for (i = 0; i < gz_n; i++)
		kslot_slots_remove(s, gz_h[i]);
	gz_ret = kslot_slots_reset(s, 10);
	if (!gz_ret)
		gz_ret = kslot_slots_alloc(s, &gz_b, COOKIE(2), GFP_KERNEL);
}

/*
 * A reset while an allocation grows the table (the allocation has no
 * entry yet, so the table may be emptied), then another allocation grows
 * the reset table to one chunk: the first growth's chunk, made for slot
 * 512 of a directory that is gone, is discarded, and the allocation takes
 * a slot of the new table.  Then every slot up to max_entries is issued
 * once, under the new tag.  A growth that published unless the table had
 * grown past it (a reset shrinks it) put that chunk at slot 256, its
 * slots naming the indices and links of slots 512 on.
 */
static void kslot_slots_test_grow_reset(struct kunit *test)
{
	const u32 max = 4 * KSLOT_SLOTS_CHUNK;
	unsigned long *seen;
	struct kslot_slots s;
	u32 i, index;
	u64 h;

	gz_n = 2 * KSLOT_SLOTS_CHUNK;
	gz_h = kunit_kcalloc(test, gz_n, sizeof(*gz_h), GFP_KERNEL);
	seen = kunit_kcalloc(test, BITS_TO_LONGS(max), sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gz_h);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&s, "test", NULL, max, 0,
						   9), 0);
	for (i = 0; i < gz_n; i++)
		gz_h[i] = slots_alloc(test, &s, COOKIE(0));
	gz_ret = -EINVAL;
	tp_set(test, &s, KSLOT_SLOTS_TP_GROW, gz_reset);
	h = slots_alloc(test, &s, COOKIE(1));
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_EQ(test, gz_ret, 0);
	KUNIT_EXPECT_EQ(test, gz_b, kslot_test_handle(&s, 0, 10, 1));
	KUNIT_EXPECT_EQ(test, h, kslot_test_handle(&s, 1, 10, 1));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 2);
	/* Further allocations would follow the wrong chunk's links. */
	KUNIT_ASSERT_EQ(test, s.capacity, KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, gz_b), COOKIE(2));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, gz_h[0]));
	__set_bit(0, seen);
	__set_bit(1, seen);
	for (i = 2; i < max; i++) {
		h = slots_alloc(test, &s, COOKIE(0));
		index = kslot_slots_handle_index(&s, h);
		KUNIT_ASSERT_EQ(test, h, kslot_test_handle(&s, index, 10, 1));
		KUNIT_ASSERT_LT(test, index, max);
		KUNIT_ASSERT_FALSE(test, __test_and_set_bit(index, seen));
	}
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h, NULL, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), max);
	KUNIT_EXPECT_EQ(test, s.capacity, max);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * An allocation in a kthread that grows the table, and the test's thread
 * that meanwhile empties, resets and restores the table, whose
 * restore_done() lets the allocation go on between two holds of its walk
 * and waits for it there.
 */
static struct {
	struct kslot_slots *s;
	struct task_struct *task;
	struct completion window, go, done;
	unsigned int grows, walks;
	u64 h;
	int ret;
} gw;

static void gw_hook(struct kslot_slots *s, enum kslot_slots_test_point point)
{
	if (s != gw.s)
		return;
	if (point == KSLOT_SLOTS_TP_GROW && current == gw.task &&
	    !gw.grows++) {
		complete(&gw.window);
		wait_for_completion_timeout(&gw.go, 10 * HZ);
	} else if (point == KSLOT_SLOTS_TP_WALK && !gw.walks++) {
		complete(&gw.go);
		wait_for_completion_timeout(&gw.done, 10 * HZ);
	}
}

static int gw_alloc(void *unused)
{
	gw.ret = kslot_slots_alloc(gw.s, &gw.h, COOKIE(9), GFP_KERNEL);
	complete(&gw.done);
	return 0;
}

/*
 * An allocation begun before a restore, whose growth publishes its chunk
 * between two holds of kslot_slots_restore_done()'s walk: the table it
 * grew was emptied, reset and restored to the same capacity meanwhile
 * (the same directory shape, so the chunk fits), but it is being
 * restored, and the allocation refuses as one begun after the restore
 * did (-EINVAL).  The restored entries stay, the walk keeps the pushed
 * chunk's slots on its list, and every other slot up to max_entries is
 * issued once.  Without the look at the restore after the growth, the
 * allocation took a slot of the free list the walk was rebuilding.
 */
static void kslot_slots_test_grow_restore_walk(struct kunit *test)
{
	const u32 max = 4096, cap = 2 * KSLOT_SLOTS_WALK;
	const u32 rs[3] = { 10, 1500, cap - 1 }, gens[3] = { 5, 3, 1 };
	struct task_struct *t;
	unsigned long *seen;
	struct kslot_slots s;
	u32 i, index;
	u64 *hs, h;

	hs = kunit_kcalloc(test, cap, sizeof(*hs), GFP_KERNEL);
	seen = kunit_kcalloc(test, BITS_TO_LONGS(max), sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hs);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&s, "test", NULL, max, 0,
						   7), 0);
	for (i = 0; i < cap; i++)
		hs[i] = slots_alloc(test, &s, COOKIE(0));
	memset(&gw, 0, sizeof(gw));
	gw.s = &s;
	init_completion(&gw.window);
	init_completion(&gw.go);
	init_completion(&gw.done);
	kslot_slots_test_set_hook(gw_hook);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, tp_clear_action, NULL),
			0);
	t = kthread_create(gw_alloc, NULL, "kslot_test/gw");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	gw.task = t;
	get_task_struct(t);
	wake_up_process(t);
	/* The allocation has its chunk, the lock dropped. */
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&gw.window, 10 * HZ),
			0);
	for (i = 0; i < cap; i++)
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, hs[i]),
				    COOKIE(0));
	KUNIT_EXPECT_EQ(test, kslot_slots_reset(&s, 8), 0);
	for (i = 0; i < ARRAY_SIZE(rs); i++)
		KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(&s, rs[i],
							       gens[i],
							       COOKIE(i + 1),
							       GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, cap);
	kslot_slots_restore_done(&s);
	kthread_stop(t);
	put_task_struct(t);
	tp_clear();
	KUNIT_EXPECT_EQ(test, gw.grows, 1);
	KUNIT_EXPECT_EQ(test, gw.walks, 1);
	KUNIT_EXPECT_EQ(test, gw.ret, -EINVAL);
	/* Its chunk was published. */
	KUNIT_EXPECT_EQ(test, s.capacity, cap + KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 3);
	for (i = 0; i < ARRAY_SIZE(rs); i++) {
		h = kslot_test_handle(&s, rs[i], 8, gens[i]);
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h),
				    COOKIE(i + 1));
		__set_bit(rs[i], seen);
	}
	for (i = ARRAY_SIZE(rs); i < max; i++) {
		h = slots_alloc(test, &s, COOKIE(0));
		index = kslot_slots_handle_index(&s, h);
		KUNIT_ASSERT_EQ(test, h, kslot_test_handle(&s, index, 8, 1));
		KUNIT_ASSERT_LT(test, index, max);
		KUNIT_ASSERT_FALSE(test, __test_and_set_bit(index, seen));
	}
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h, NULL, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), max);
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Inside a reserve's growth: an allocation publishes the last chunk. */
static u64 rr_h;
static int rr_ret;

static void rr_alloc(struct kslot_slots *s)
{
	rr_ret = kslot_slots_alloc(s, &rr_h, COOKIE(2), GFP_KERNEL);
}

/* Was @h among the @n handles of @issued? */
static bool was_issued(const u64 *issued, u32 n, u64 h)
{
	while (n--)
		if (issued[n] == h)
			return true;
	return false;
}

/*
 * A 32-bit table one chunk short of max_entries, with no free slot and
 * four slots waiting: a reserve of all the room left (the chunk and the
 * waiting slots), while inside its growth an allocation publishes that
 * chunk and takes one slot.  The reserve fails (-ENOSPC) and leaves the
 * waiting slots waiting, in their order: the next allocations take the
 * chunk's slots, whose handles were never issued, and only then, the
 * table full, the slot that waited longest, early, one at a time.  A
 * reserve that released the waiting slots to make room (which they were
 * already) released them all, the youngest last, at the head of the
 * free list: the next allocation reissued a handle that slot had issued
 * some allocations before, where the table promises D.  11 index bits:
 * G = 2^19, so no slot waits long enough within this test.
 */
static void kslot_slots_test_handle32_reserve_race(struct kunit *test)
{
	const u32 max = 2048, cap = max - KSLOT_SLOTS_CHUNK, w = 4;
	const u32 last_free = BIT(20) - 2, shift = 11;
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u64 *issued, h;
	u32 i, n = 0;
	int ret;

	issued = kunit_kcalloc(test, max + w, sizeof(*issued), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, issued);
	slots_init32(test, &s, max);
	KUNIT_ASSERT_EQ(test, s.gen_shift, shift);
	for (i = 0; i < cap; i++)
		issued[n++] = slots_alloc(test, &s, COOKIE(0));
	/* Slots 0 .. w - 1 serve their last generation, then wait, in order. */
	for (i = 0; i < w; i++) {
		kslot_slots_remove(&s, issued[i]);
		KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&s, i, last_free),
				0);
	}
	for (i = 0; i < w; i++)
		issued[n++] = slots_alloc(test, &s, COOKIE(1));
	for (i = 0; i < w; i++)
		KUNIT_ASSERT_PTR_EQ(test,
				    kslot_slots_remove(&s, (u64)(last_free + 1) <<
							   shift | i),
				    COOKIE(1));
	KUNIT_ASSERT_EQ(test, s.waiting, w);
	KUNIT_ASSERT_EQ(test, s.free_head, KSLOT_SLOTS_NONE);
	rr_ret = -EINVAL;
	tp_set(test, &s, KSLOT_SLOTS_TP_GROW, rr_alloc);
	ret = kslot_slots_reserve(&s, KSLOT_SLOTS_CHUNK + w, GFP_KERNEL);
	tp_clear();
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_EQ(test, rr_ret, 0);
	KUNIT_EXPECT_EQ(test, rr_h, BIT(shift) | cap);
	issued[n++] = rr_h;
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, max);
	KUNIT_EXPECT_EQ(test, st.count, cap - w + 1);
	KUNIT_EXPECT_EQ(test, st.waiting, w);
	for (i = cap + 1; i < max; i++) {
		h = slots_alloc(test, &s, COOKIE(3));
		KUNIT_EXPECT_EQ(test, h, BIT(shift) | i);
		KUNIT_ASSERT_FALSE(test, was_issued(issued, n, h));
	}
	/* Full: the slot that waited longest, at generation 1 again. */
	KUNIT_EXPECT_EQ(test, slots_alloc(test, &s, COOKIE(4)), BIT(shift));
	KUNIT_EXPECT_EQ(test, s.waiting, w - 1);
	KUNIT_EXPECT_EQ(test, slots_alloc(test, &s, COOKIE(4)),
			BIT(shift) | 1);
	KUNIT_EXPECT_EQ(test, s.waiting, w - 2);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * A table whose directory's near part is full and whose far part holds
 * @far chunks (module/kslot_dir.c), with room for one chunk more.
 */
static void far_init(struct kunit *test, struct kslot_slots *s, u32 far)
{
	const u32 chunks = KSLOT_TEST_DIR_NEAR + far;

	slots_init(test, s, (chunks + 1) * KSLOT_SLOTS_CHUNK);
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(s, chunks * KSLOT_SLOTS_CHUNK,
						  GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, s->capacity, chunks * KSLOT_SLOTS_CHUNK);
	KUNIT_ASSERT_EQ(test, kslot_slots_test_dir_room(s),
			KSLOT_TEST_DIR_NEAR);
}

/*
 * What a lockless reader finds where a growth publishes a far chunk, its
 * pointer and leaf set and the count not yet released: the leaf and the
 * chunk of the last element the far count covers (read as
 * kslot_dir_far() reads them, but tested for NULL first), and, if they
 * are there, a lookup of a live far slot and of the new chunk's first.
 */
static struct {
	u64 h, forged;
	void *found, *forged_found;
	bool leaf, chunk;
} fl;

static void fl_lookup(struct kslot_slots *s)
{
	const struct kslot_dir *dir;
	void **leaf;
	u32 c;

	rcu_read_lock();
	dir = rcu_dereference(s->dir);
	/* As kslot_dir_far(): pairs with the release of the far count. */
	c = (smp_load_acquire(&dir->far_nr) - 1) / KSLOT_SLOTS_CHUNK;
	leaf = dir->far ? dir->far[c / KSLOT_TEST_DIR_LEAF] : NULL;
	fl.leaf = leaf;
	fl.chunk = leaf && leaf[c % KSLOT_TEST_DIR_LEAF];
	if (fl.chunk) {
		fl.found = kslot_slots_lookup(s, fl.h);
		fl.forged_found = kslot_slots_lookup(s, fl.forged);
	}
	rcu_read_unlock();
}

/*
 * A growth publishes the first chunk of a new far leaf while lookups run:
 * at the point between the chunk and leaf set and the count released, a
 * reader finds every chunk the far count covers (a count released before
 * the leaf would send it through a NULL leaf), a live far slot as ever
 * and the new chunk's slot not yet (a rejection).  Once published, the
 * new chunk's slots are the next allocations.
 */
static void kslot_slots_test_far_publish(struct kunit *test)
{
	struct kslot_slots s;
	u32 next;
	u64 h;

	far_init(test, &s, KSLOT_TEST_DIR_LEAF);
	next = s.capacity;
	fl.h = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&s, fl.h),
			next - KSLOT_SLOTS_CHUNK);
	fl.forged = kslot_test_handle(&s, next, s.tag, 1);
	fl.found = NULL;
	fl.forged_found = COOKIE(0);
	tp_set(test, &s, KSLOT_SLOTS_TP_FAR, fl_lookup);
	KUNIT_ASSERT_EQ(test, kslot_slots_test_grow_step(&s), 0);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_TRUE(test, fl.leaf);
	KUNIT_EXPECT_TRUE(test, fl.chunk);
	KUNIT_EXPECT_PTR_EQ(test, fl.found, COOKIE(1));
	KUNIT_EXPECT_NULL(test, fl.forged_found);
	KUNIT_EXPECT_EQ(test, rejected(&s), 1);
	h = slots_alloc(test, &s, COOKIE(2));
	KUNIT_EXPECT_EQ(test, h, fl.forged);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(2));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, fl.h), COOKIE(1));
	kslot_slots_destroy(&s, NULL, NULL);
}

static int fg_ret;

static void fg_grow(struct kslot_slots *s)
{
	fg_ret = kslot_slots_test_grow_step(s);
}

/*
 * Two growths into the far part at once: the first has its chunk, the
 * far array and the first leaf allocated, the lock dropped, when the
 * second (the hook) publishes its own.  The first frees all three: one
 * far array and one leaf, counted once, none leaked (kmemleak).
 */
static void kslot_slots_test_far_grow_race(struct kunit *test)
{
	const u32 chunks = KSLOT_TEST_DIR_NEAR + 1;
	struct kslot_slots_stats st;
	struct kslot_slots s;
	u64 h;

	far_init(test, &s, 0);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.grow_bytes,
			chunk_bytes(KSLOT_SLOTS_CHUNK) +
			kmalloc_size_roundup(sizeof(void *)) + SZ_32K);
	fg_ret = -EINVAL;
	kslot_slots_test_alloc_max();
	tp_set(test, &s, KSLOT_SLOTS_TP_GROW, fg_grow);
	KUNIT_ASSERT_EQ(test, kslot_slots_test_grow_step(&s), 0);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_EQ(test, fg_ret, 0);
	/* Each allocated a leaf, the largest. */
	KUNIT_EXPECT_EQ(test, kslot_slots_test_alloc_max(), SZ_32K);
	KUNIT_EXPECT_EQ(test, s.capacity, chunks * KSLOT_SLOTS_CHUNK);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.bytes,
			chunks * chunk_bytes(KSLOT_SLOTS_CHUNK) +
			counter_bytes() +
			kslot_test_dir_far_bytes(chunks, chunks));
	KUNIT_EXPECT_EQ(test, st.grow_bytes, 0);
	h = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&s, h),
			KSLOT_TEST_DIR_NEAR * KSLOT_SLOTS_CHUNK);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h), COOKIE(1));
	kslot_slots_destroy(&s, NULL, NULL);
}

/* Misses on every online CPU: each counted once, none lost. */
static long miss_n(void *arg)
{
	struct kslot_slots *s = arg;
	long found = 0;
	u32 i;

	for (i = 0; i < 1000; i++)
		found += !!kslot_slots_lookup(s, BIT_ULL(40) | 3);
	return found;
}

/*
 * Rejections are counted per CPU (a miss writes only its CPU's counter)
 * and summed by the stats: misses on each online CPU, writers' misses
 * included, all counted.  The null handle is no rejection.
 */
static void kslot_slots_test_reject_percpu(struct kunit *test)
{
	struct kslot_slots s;
	int cpu, cpus = 0;

	slots_init(test, &s, 64);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, BIT_ULL(40) | 3));
	/* No chunk yet: nothing to count in. */
	KUNIT_EXPECT_EQ(test, rejected(&s), 0);
	slots_alloc(test, &s, COOKIE(1));
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, miss_n, &s), 0);
		cpus++;
	}
	/* Each CPU's misses in its own slot, nowhere else. */
	rcu_read_lock();
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test,
				*per_cpu_ptr(rcu_dereference(s.dir)->rejected,
					     cpu), 1000);
	rcu_read_unlock();
	cpus_read_unlock();
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, 0));
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(&s, BIT_ULL(40) | 3));
	KUNIT_EXPECT_EQ(test, rejected(&s), 1000 * cpus + 1);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * remove_bulk() refuses a count above INT_MAX, as alloc_bulk() does,
 * before it reads a handle; a count not a multiple of the batch ends
 * where it should.
 */
static void kslot_slots_test_remove_bulk_bounds(struct kunit *test)
{
	void *objs[KSLOT_SLOTS_BULK + 3];
	u64 h[KSLOT_SLOTS_BULK + 3];
	struct kslot_slots s;
	u32 i;

	slots_init(test, &s, 64);
	for (i = 0; i < ARRAY_SIZE(h); i++)
		h[i] = slots_alloc(test, &s, COOKIE(i));
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(&s, h, (u32)INT_MAX + 1,
						      objs), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(&s, h, U32_MAX, objs),
			0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), ARRAY_SIZE(h));
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(&s, h, ARRAY_SIZE(h),
						      objs), ARRAY_SIZE(h));
	for (i = 0; i < ARRAY_SIZE(h); i++)
		KUNIT_EXPECT_PTR_EQ(test, objs[i], COOKIE(i));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * reset: the chunks go to the free account and are freed a grace period
 * later (a reader pinned across it still reads them: an immediate free is
 * a use after free KASAN reports), the table as new (slot 0, generation
 * 1, no rejections), its flags and lock kept.
 */
static void kslot_slots_test_reset_frees(struct kunit *test)
{
	struct tacct a = { .fa.queue = tacct_queue };
	struct kslot_slots_stats st;
	struct kslot_slots_reader r;
	struct kslot_slots s;
	u64 h;
	u32 i;

	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&s, "test", NULL, 4096, 0,
						   9), 0);
	kslot_slots_set_free_acct(&s, &a.fa);
	for (i = 0; i < 3 * KSLOT_SLOTS_CHUNK; i++)
		h = slots_alloc(test, &s, COOKIE(i));
	KUNIT_EXPECT_NULL(test,
			  kslot_slots_lookup(&s, h + kslot_test_gens(&s, 2)));
	KUNIT_EXPECT_EQ(test, kslot_slots_reset(&s, 10), -EBUSY);
	for (i = 0; i < 3 * KSLOT_SLOTS_CHUNK; i++)
		kslot_slots_remove(&s, kslot_test_handle(&s, i, 9, 1));
	kslot_slots_stats(&s, &st);
	a.bytes = 0;
	a.calls = 0;
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	KUNIT_EXPECT_EQ(test, kslot_slots_reset(&s, 10), 0);
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, h));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.bytes, st.bytes);
	kslot_slots_stats(&s, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, 0);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	KUNIT_EXPECT_EQ(test, st.rejected, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_tag(&s), 10);
	h = slots_alloc(test, &s, COOKIE(1));
	KUNIT_EXPECT_EQ(test, h, kslot_test_handle(&s, 0, 10, 1));
	kslot_slots_destroy(&s, NULL, NULL);
	rcu_barrier();
}

/* One alloc and remove, in whatever context the caller is in. */
static int write_once(struct kslot_slots *s)
{
	u64 h;
	int ret = kslot_slots_alloc(s, &h, COOKIE(1), GFP_ATOMIC);

	if (ret)
		return ret;
	return kslot_slots_remove(s, h) == COOKIE(1) ? 0 : -EINVAL;
}

struct ctx_writer {
	struct kslot_slots *s;
	struct timer_list timer;
	struct irq_work work;
	struct completion done;
	bool in_context;
	int ret;
};

static void softirq_write(struct timer_list *t)
{
	struct ctx_writer *w = from_timer(w, t, timer);

	w->in_context = in_serving_softirq();
	w->ret = write_once(w->s);
	complete(&w->done);
}

static void hardirq_write(struct irq_work *work)
{
	struct ctx_writer *w = container_of(work, struct ctx_writer, work);

	/* On PREEMPT_RT a plain irq_work runs in a thread, as a handler. */
	w->in_context = IS_ENABLED(CONFIG_PREEMPT_RT) || in_hardirq();
	w->ret = write_once(w->s);
	complete(&w->done);
}

/* write_once() on @s in a real softirq (a timer): it succeeds. */
static void ctx_softirq(struct kunit *test, struct ctx_writer *w,
			struct kslot_slots *s)
{
	w->s = s;
	w->in_context = false;
	init_completion(&w->done);
	timer_setup_on_stack(&w->timer, softirq_write, 0);
	mod_timer(&w->timer, jiffies + 1);
	wait_for_completion(&w->done);
	del_timer_sync(&w->timer);
	destroy_timer_on_stack(&w->timer);
	KUNIT_EXPECT_TRUE(test, w->in_context);
	KUNIT_EXPECT_EQ(test, w->ret, 0);
}

/* write_once() on @s in a real hardirq (an irq_work): it succeeds. */
static void ctx_hardirq(struct kunit *test, struct ctx_writer *w,
			struct kslot_slots *s)
{
	w->s = s;
	w->in_context = false;
	init_completion(&w->done);
	init_irq_work(&w->work, hardirq_write);
	irq_work_queue(&w->work);
	wait_for_completion(&w->done);
	irq_work_sync(&w->work);
	KUNIT_EXPECT_TRUE(test, w->in_context);
	KUNIT_EXPECT_EQ(test, w->ret, 0);
}

/* One init site for every table of the case: classes differ by mode. */
static void slots_init_flags(struct kunit *test, struct kslot_slots *s,
			     unsigned int flags)
{
	KUNIT_ASSERT_EQ(test, kslot_slots_init(s, "test", NULL, 64, flags), 0);
}

/*
 * A table written from a real softirq (a timer), one from a real hardirq
 * (an irq_work) and one in process context with both enabled, all
 * initialised at one site: each lock mode has its own lockdep class, so
 * lockdep sees no inconsistent usage and stays on.  Two tables of one
 * class nest with kslot_slots_lock_nested().
 */
static void kslot_slots_test_lock_classes(struct kunit *test)
{
	struct kslot_slots *t = kunit_kcalloc(test, 4, sizeof(*t), GFP_KERNEL);
	struct kslot_slots *plain = &t[0], *other = &t[1], *bh = &t[2],
			   *irq = &t[3];
	struct ctx_writer w = {};
	unsigned long f1, f2;

	KUNIT_ASSERT_NOT_NULL(test, t);
	if (IS_ENABLED(CONFIG_LOCKDEP) && !debug_locks)
		kunit_skip(test, "lockdep is off already");
	slots_init_flags(test, plain, 0);
	slots_init_flags(test, other, 0);
	slots_init_flags(test, bh, KSLOT_SLOTS_LOCK_BH);
	slots_init_flags(test, irq, KSLOT_SLOTS_LOCK_IRQ);
	/* Process context, softirqs and interrupts enabled. */
	KUNIT_EXPECT_EQ(test, write_once(plain), 0);
	KUNIT_EXPECT_EQ(test, write_once(bh), 0);
	KUNIT_EXPECT_EQ(test, write_once(irq), 0);
	/* A softirq writer of the BH table, a hardirq one of the IRQ table. */
	ctx_softirq(test, &w, bh);
	ctx_hardirq(test, &w, irq);
	/* Process context again, after the interrupt contexts. */
	KUNIT_EXPECT_EQ(test, write_once(plain), 0);
	KUNIT_EXPECT_EQ(test, write_once(bh), 0);
	/* Two tables of one class, nested in one order. */
	f1 = kslot_slots_lock(plain);
	f2 = kslot_slots_lock_nested(other, SINGLE_DEPTH_NESTING);
	kslot_slots_unlock(other, f2);
	kslot_slots_unlock(plain, f1);
	if (IS_ENABLED(CONFIG_LOCKDEP))
		KUNIT_EXPECT_TRUE(test, debug_locks);
	kslot_slots_destroy(irq, NULL, NULL);
	kslot_slots_destroy(bh, NULL, NULL);
	kslot_slots_destroy(other, NULL, NULL);
	kslot_slots_destroy(plain, NULL, NULL);
}

/* A zeroed table, never initialised, is an empty one. */
static void kslot_slots_test_zeroed(struct kunit *test)
{
	struct kslot_slots *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct kslot_slots_dump_slot ds[2];
	struct kslot_slots_dump d = { .slots = ds };
	/* Any nonzero value: a zeroed table has no format. */
	u64 h = BIT_ULL(32);
	struct kslot_slots_stats st;
	u32 i = 0;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(s, 0));
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(s, h));
	KUNIT_EXPECT_NULL(test, kslot_slots_get(s, h, 0, NULL));
	KUNIT_EXPECT_NULL(test, kslot_slots_find(s, &i, U32_MAX, &h));
	KUNIT_EXPECT_NULL(test, kslot_slots_find_range(s, &i, 100, &h));
	KUNIT_EXPECT_EQ(test, i, 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(s), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(s, &h, COOKIE(0), GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, h, BIT_ULL(32));
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(s, 1, GFP_KERNEL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_slots_reserve(s, 0, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(s, h, COOKIE(1), NULL),
			-ENOENT);
	KUNIT_EXPECT_NULL(test, kslot_slots_remove(s, h));
	KUNIT_EXPECT_EQ(test, kslot_slots_replace_if(s, h, NULL, COOKIE(1)),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_if(s, h, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(s, h, NULL, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_store_at(s, h, NULL, GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_EQ(test, kslot_slots_reset(s, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_slot(s, 0, 1, NULL,
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_restore_retired(s, 0, GFP_KERNEL),
			-EINVAL);
	kslot_slots_restore_done(s);
	kslot_slots_stats(s, &st);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	KUNIT_EXPECT_EQ(test, st.capacity, 0);
	KUNIT_EXPECT_EQ(test, st.max_entries, 0);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	/* A zeroed table counts nothing: it has no counter. */
	KUNIT_EXPECT_EQ(test, st.rejected, 0);
	kslot_slots_dump(s, 0, ARRAY_SIZE(ds), &d);
	KUNIT_EXPECT_EQ(test, d.returned, 0);
	KUNIT_EXPECT_EQ(test, d.free_head, KSLOT_SLOTS_NONE);
	kslot_slots_destroy(s, NULL, NULL);
	kslot_slots_destroy(s, NULL, NULL);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(s, h));
	KUNIT_EXPECT_EQ(test, kslot_slots_count(s), 0);
}

/*
 * The writers' one test before the lock (%KSLOT_SLOTS_F_LOCKED and
 * %KSLOT_SLOTS_F_ALLOC): set by init as the table's kind says, and both
 * sent to the slow paths where they must be, which answer exactly.
 */
static void kslot_slots_test_fast_flags(struct kunit *test)
{
	const u32 fast = KSLOT_SLOTS_F_LOCKED | KSLOT_SLOTS_F_ALLOC;
	struct kslot_slots s;
	u64 h = 0;
	void *old;

	slots_init(test, &s, 8);
	KUNIT_EXPECT_EQ(test, s.flags & fast, fast);
	/* The caller's flags stay as given beside them. */
	KUNIT_EXPECT_EQ(test, s.flags & ~fast, 0);
	h = slots_alloc(test, &s, COOKIE(0));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(0));
	kslot_slots_destroy(&s, NULL, NULL);

	/* Keyed: the writers take the lock, but there is no free list. */
	KUNIT_ASSERT_EQ(test, kslot_slots_init(&s, "test", NULL, 8,
					       KSLOT_SLOTS_KEYED), 0);
	KUNIT_EXPECT_EQ(test, s.flags & fast, KSLOT_SLOTS_F_LOCKED);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc(&s, &h, COOKIE(1), GFP_KERNEL),
			-EINVAL);
	h = kslot_test_handle(&s, 3, kslot_slots_tag(&s), 1);
	KUNIT_EXPECT_EQ(test, kslot_slots_insert_at(&s, h, COOKIE(1),
						    GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_replace(&s, h, COOKIE(2), &old), 0);
	KUNIT_EXPECT_PTR_EQ(test, old, COOKIE(1));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h), COOKIE(2));
	kslot_slots_destroy(&s, NULL, NULL);

	/* Init refuses them from the caller. */
	KUNIT_EXPECT_EQ(test, kslot_slots_init(&s, "test", NULL, 8,
					       KSLOT_SLOTS_F_LOCKED), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_slots_init(&s, "test", NULL, 8,
					       KSLOT_SLOTS_F_ALLOC), -EINVAL);
}

/* kslot_slots_alloc_bulk(): in order, up to max_entries, then -ENOSPC. */
static void kslot_slots_test_alloc_bulk(struct kunit *test)
{
	u64 *h = kunit_kcalloc(test, 300, sizeof(*h), GFP_KERNEL);
	void **objs = kunit_kcalloc(test, 300, sizeof(*objs), GFP_KERNEL);
	struct kslot_slots s, k;
	u64 one = 0;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (i = 0; i < 300; i++)
		objs[i] = i == 7 ? NULL : COOKIE(i);
	slots_init(test, &s, 300);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(&s, h, objs, 0,
						     GFP_KERNEL), 0);
	/* More than one batch, and a growth in the middle of one. */
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(&s, h, objs, 100,
						     GFP_KERNEL), 100);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 100);
	/* The rest: room for 200 of them only. */
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(&s, h + 100, objs + 100,
						     250, GFP_KERNEL), 200);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 300);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(&s, &one, objs, 1,
						     GFP_KERNEL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, one, 0);
	for (i = 0; i < 300; i++) {
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h[i]),
				    objs[i]);
		KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&s, h[i]), i);
	}
	kslot_slots_destroy(&s, NULL, NULL);

	/* A keyed table has no free list. */
	KUNIT_ASSERT_EQ(test, kslot_slots_init_tag(&k, "test", NULL, 64,
						   KSLOT_SLOTS_KEYED, 5), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(&k, h, objs, 3,
						     GFP_KERNEL), -EINVAL);
	kslot_slots_destroy(&k, NULL, NULL);
}

/* A bulk whose second growth fails: the first table's worth is issued. */
static void kslot_slots_test_alloc_bulk_fault(struct kunit *test)
{
	u32 n = KSLOT_SLOTS_MIN + 44, i;
	u64 *h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	void **objs = kunit_kcalloc(test, n, sizeof(*objs), GFP_KERNEL);
	struct kslot_slots s;
	bool injected;
	int ret;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	for (i = 0; i < n; i++)
		objs[i] = COOKIE(i);
	slots_init(test, &s, 4096);
	ret = kslot_test_with_fail_nth(3, &injected,
				       kslot_slots_alloc_bulk(&s, h, objs, n,
							      GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_EQ(test, ret, KSLOT_SLOTS_MIN);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), KSLOT_SLOTS_MIN);
	/* The rest: none issued, the error itself. */
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_slots_alloc_bulk(&s, h + ret,
							      objs + ret, 44,
							      GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), KSLOT_SLOTS_MIN);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(&s, h + KSLOT_SLOTS_MIN,
						     objs + KSLOT_SLOTS_MIN, 44,
						     GFP_KERNEL), 44);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h[i]),
				    objs[i]);
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * kslot_slots_remove_bulk(): in order, placeholders included, stopping at
 * the first handle that is not live.
 */
static void kslot_slots_bulk_remove_case(struct kunit *test,
					 unsigned int flags)
{
	u64 *h = kunit_kcalloc(test, 100, sizeof(*h), GFP_KERNEL);
	void **objs = kunit_kcalloc(test, 100, sizeof(*objs), GFP_KERNEL);
	void **out = kunit_kcalloc(test, 100, sizeof(*out), GFP_KERNEL);
	struct kslot_slots s;
	u64 three[3];
	s64 rej;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < 100; i++)
		objs[i] = i == 10 ? NULL : COOKIE(i);
	KUNIT_ASSERT_EQ(test, kslot_slots_init(&s, "test", NULL, 1024, flags),
			0);
	KUNIT_ASSERT_EQ(test, kslot_slots_alloc_bulk(&s, h, objs, 100,
						     GFP_KERNEL), 100);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(&s, h, 0, out), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(&s, h, 50, out), 50);
	for (i = 0; i < 50; i++) {
		KUNIT_EXPECT_PTR_EQ(test, out[i], objs[i]);
		KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h[i]));
	}
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 50);
	/* A stale handle in the middle: the one before goes, not the one after. */
	three[0] = h[50];
	three[1] = h[0];
	three[2] = h[51];
	out[2] = COOKIE(999);
	rej = rejected(&s);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(&s, three, 3, out), 1);
	KUNIT_EXPECT_PTR_EQ(test, out[0], objs[50]);
	KUNIT_EXPECT_PTR_EQ(test, out[2], COOKIE(999));
	KUNIT_EXPECT_EQ(test, rejected(&s), rej + 1);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_lookup(&s, h[51]), objs[51]);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 49);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(&s, h + 51, 49, out), 49);
	KUNIT_EXPECT_EQ(test, kslot_slots_count(&s), 0);
	/* The freed slots are issued again, under new generations. */
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(&s, three, objs, 3,
						     GFP_KERNEL), 3);
	KUNIT_EXPECT_LT(test, kslot_slots_handle_index(&s, three[0]), 100);
	KUNIT_EXPECT_NE(test,
			three[0], h[kslot_slots_handle_index(&s, three[0])]);
	KUNIT_EXPECT_NULL(test, kslot_slots_lookup(&s, h[0]));
	kslot_slots_destroy(&s, NULL, NULL);
}

static void kslot_slots_test_remove_bulk(struct kunit *test)
{
	struct kslot_slots *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	u64 h = BIT_ULL(32);
	void *obj = COOKIE(3);

	kslot_slots_bulk_remove_case(test, 0);
	/* A zeroed table removes nothing, and counts nothing. */
	KUNIT_ASSERT_NOT_NULL(test, z);
	KUNIT_EXPECT_EQ(test, kslot_slots_remove_bulk(z, &h, 1, &obj), 0);
	KUNIT_EXPECT_PTR_EQ(test, obj, COOKIE(3));
	KUNIT_EXPECT_EQ(test, rejected(z), 0);
	KUNIT_EXPECT_EQ(test, kslot_slots_alloc_bulk(z, &h, &obj, 1,
						     GFP_KERNEL), -ENOSPC);
}

/*
 * The batch reader: one table pinned for a run of lookups.  Writes to the
 * pinned table show; a growth published meanwhile leaves it readable, and
 * a new reader sees the new table.
 */
static void kslot_slots_test_reader(struct kunit *test)
{
	struct kslot_slots *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	u64 *h = kunit_kcalloc(test, KSLOT_SLOTS_MIN + 1, sizeof(*h),
			       GFP_KERNEL);
	struct kslot_slots_reader r;
	struct kslot_slots s;
	u64 gone, forged;
	s64 rej;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, z);
	KUNIT_ASSERT_NOT_NULL(test, h);
	slots_init(test, &s, 4096);
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	/* No table yet. */
	KUNIT_EXPECT_NULL(test,
			  kslot_slots_read(&r, kslot_test_handle(&s, 0, 0, 1)));
	rcu_read_unlock();
	for (i = 0; i < KSLOT_SLOTS_MIN; i++)
		h[i] = slots_alloc(test, &s, COOKIE(i));
	gone = h[3];
	kslot_slots_remove(&s, gone);
	forged = kslot_test_handle(&s, kslot_slots_handle_index(&s, h[4]),
				   kslot_slots_handle_tag(&s, h[4]) ^ 1,
				   kslot_slots_handle_gen(&s, h[4]));
	rej = rejected(&s);
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	for (i = 0; i < KSLOT_SLOTS_MIN; i++)
		if (i != 3)
			KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read(&r, h[i]),
					    COOKIE(i));
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, gone));
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, forged));
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, 0));
	/* An index past the table is clamped, and matches nothing. */
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, h[5] + 4096));
	KUNIT_EXPECT_EQ(test, rejected(&s), rej + 3);
	/* A remove in the pinned table shows at once. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_remove(&s, h[6]), COOKIE(6));
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, h[6]));
	/* Fill the hole, then grow: the pinned table stays readable. */
	KUNIT_ASSERT_EQ(test, kslot_slots_alloc(&s, &h[3], COOKIE(3),
						GFP_ATOMIC), 0);
	KUNIT_ASSERT_EQ(test, kslot_slots_alloc(&s, &h[6], COOKIE(6),
						GFP_ATOMIC), 0);
	KUNIT_ASSERT_EQ(test, kslot_slots_alloc(&s, &h[KSLOT_SLOTS_MIN],
						COOKIE(KSLOT_SLOTS_MIN),
						GFP_ATOMIC), 0);
	KUNIT_EXPECT_EQ(test, s.capacity, 2 * KSLOT_SLOTS_MIN);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read(&r, h[0]), COOKIE(0));
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, h[KSLOT_SLOTS_MIN]));
	kslot_slots_read_begin(&r, &s);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read(&r, h[KSLOT_SLOTS_MIN]),
			    COOKIE(KSLOT_SLOTS_MIN));
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read(&r, h[6]), COOKIE(6));
	/* A zeroed table: nothing to pin. */
	kslot_slots_read_begin(&r, z);
	KUNIT_EXPECT_NULL(test, kslot_slots_read(&r, h[0]));
	rcu_read_unlock();
	kslot_slots_destroy(&s, NULL, NULL);
}

/*
 * A run that prefetches ahead, over a table past KSLOT_SLOTS_PREFETCH_MIN
 * slots: every read of a prefetched slot is as without it, and
 * prefetching a forged handle, one past the table or the null handle
 * counts no rejection.  A live slot read with a handle of another live
 * slot rejects it (and counts it): a live word holds its own index.
 */
static void kslot_slots_test_read_prefetch(struct kunit *test)
{
	const u32 n = KSLOT_SLOTS_PREFETCH_MIN - KSLOT_SLOTS_CHUNK + 1;
	u64 *h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	const struct kslot_slot *ring[KSLOT_SLOTS_READ_AHEAD], *slot;
	const u32 ahead = KSLOT_SLOTS_READ_AHEAD;
	struct kslot_slots_reader r;
	struct kslot_slots s;
	u32 i, found = 0;
	s64 rej;

	KUNIT_ASSERT_NOT_NULL(test, h);
	slots_init(test, &s, 2 * KSLOT_SLOTS_PREFETCH_MIN);
	for (i = 0; i < n; i++)
		h[i] = slots_alloc(test, &s, COOKIE(i));
	KUNIT_ASSERT_EQ(test, s.capacity, KSLOT_SLOTS_PREFETCH_MIN);
	rej = rejected(&s);
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	KUNIT_EXPECT_EQ(test, kslot_slots_read_ahead(&r),
			KSLOT_SLOTS_READ_AHEAD);
	kslot_slots_read_prefetch(&r, h[0] ^ (1ULL << 40));
	kslot_slots_read_prefetch(&r,
				  kslot_test_handle(&s, s.index_mask, 0, 1));
	kslot_slots_read_prefetch(&r, 0);
	for (i = 0; i < ahead; i++)
		ring[i] = kslot_slots_read_prefetch(&r, h[i]);
	for (i = 0; i < n; i++) {
		slot = ring[i % ahead];
		if (i + ahead < n)
			ring[i % ahead] = kslot_slots_read_prefetch(&r,
								    h[i + ahead]);
		found += kslot_slots_read_slot(&r, slot, h[i]) == COOKIE(i);
		found += kslot_slots_read(&r, h[i]) == COOKIE(i);
	}
	KUNIT_EXPECT_EQ(test, found, 2 * n);
	KUNIT_EXPECT_EQ(test, rejected(&s), rej);
	/* h[1]'s slot for h[0]: rejected, counted once. */
	slot = kslot_slots_read_prefetch(&r, h[1]);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read_slot(&r, slot, h[0]), NULL);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read_slot(&r, slot, h[1]),
			    COOKIE(1));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, rejected(&s), rej + 1);
	kslot_slots_destroy(&s, NULL, NULL);
	/* No table, then one below the threshold: no prefetching. */
	slots_init(test, &s, 2 * KSLOT_SLOTS_PREFETCH_MIN);
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	KUNIT_EXPECT_EQ(test, kslot_slots_read_ahead(&r), 0);
	rcu_read_unlock();
	h[0] = slots_alloc(test, &s, COOKIE(0));
	rcu_read_lock();
	kslot_slots_read_begin(&r, &s);
	KUNIT_EXPECT_EQ(test, kslot_slots_read_ahead(&r), 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_slots_read(&r, h[0]), COOKIE(0));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, rejected(&s), 0);
	kslot_slots_destroy(&s, NULL, NULL);
}

static struct kunit_case kslot_slots_test_cases[] = {
	KUNIT_CASE(kslot_slots_test_init),
	KUNIT_CASE(kslot_slots_test_alloc),
	KUNIT_CASE(kslot_slots_test_lookup),
	KUNIT_CASE(kslot_slots_test_replace),
	KUNIT_CASE(kslot_slots_test_remove),
	KUNIT_CASE(kslot_slots_test_free_acct),
	KUNIT_CASE(kslot_slots_test_placeholder),
	KUNIT_CASE(kslot_slots_test_find),
	KUNIT_CASE(kslot_slots_test_find_range),
	KUNIT_CASE(kslot_slots_test_bytes),
	KUNIT_CASE(kslot_slots_test_destroy),
	KUNIT_CASE(kslot_slots_test_stats),
	KUNIT_CASE(kslot_slots_test_dump),
	KUNIT_CASE(kslot_slots_test_get),
	KUNIT_CASE(kslot_slots_test_tag_mismatch),
	KUNIT_CASE(kslot_slots_test_bounds),
	KUNIT_CASE(kslot_slots_test_free_word),
	KUNIT_CASE(kslot_slots_test_retire),
	KUNIT_CASE(kslot_slots_test_growth),
	KUNIT_CASE_SLOW(kslot_slots_test_grow_top),
	KUNIT_CASE(kslot_slots_test_irq_context),
	KUNIT_CASE(kslot_slots_test_fault),
	KUNIT_CASE(kslot_slots_test_handle32),
	KUNIT_CASE(kslot_slots_test_handle32_retire),
	KUNIT_CASE(kslot_slots_test_handle32_exhausted),
	KUNIT_CASE_SLOW(kslot_slots_test_handle32_churn),
	KUNIT_CASE_SLOW(kslot_slots_test_handle32_grows),
	KUNIT_CASE(kslot_slots_test_gen_bits),
	KUNIT_CASE(kslot_slots_test_churn_one),
	KUNIT_CASE(kslot_slots_test_formats_never_mix),
	KUNIT_CASE(kslot_slots_test_locked_alloc),
	KUNIT_CASE(kslot_slots_test_locked_replace),
	KUNIT_CASE(kslot_slots_test_locked_remove),
	KUNIT_CASE(kslot_slots_test_replace_if),
	KUNIT_CASE(kslot_slots_test_locked_replace_if),
	KUNIT_CASE(kslot_slots_test_remove_if),
	KUNIT_CASE(kslot_slots_test_locked_remove_if),
	KUNIT_CASE(kslot_slots_test_reserve_capacity),
	KUNIT_CASE_SLOW(kslot_slots_test_grow_concurrent),
	KUNIT_CASE(kslot_slots_test_init_tag),
	KUNIT_CASE(kslot_slots_test_restore_keyed),
	KUNIT_CASE(kslot_slots_test_insert_at),
	KUNIT_CASE(kslot_slots_test_insert_at_fault),
	KUNIT_CASE(kslot_slots_test_store_at),
	KUNIT_CASE(kslot_slots_test_restore),
	KUNIT_CASE(kslot_slots_test_restore_free),
	KUNIT_CASE(kslot_slots_test_null_handle),
	KUNIT_CASE(kslot_slots_test_get_last_ref),
	KUNIT_CASE(kslot_slots_test_get_replaced),
	KUNIT_CASE(kslot_slots_test_get_destroyed),
	KUNIT_CASE(kslot_slots_test_destroy_readers),
	KUNIT_CASE(kslot_slots_test_grow_race),
	KUNIT_CASE(kslot_slots_test_grow_restore),
	KUNIT_CASE(kslot_slots_test_grow_nomem_free_slot),
	KUNIT_CASE(kslot_slots_test_restore_walk),
	KUNIT_CASE(kslot_slots_test_grow_reset),
	KUNIT_CASE(kslot_slots_test_grow_restore_walk),
	KUNIT_CASE(kslot_slots_test_handle32_reserve_race),
	KUNIT_CASE_SLOW(kslot_slots_test_far_publish),
	KUNIT_CASE(kslot_slots_test_far_grow_race),
	KUNIT_CASE(kslot_slots_test_reject_percpu),
	KUNIT_CASE(kslot_slots_test_remove_bulk_bounds),
	KUNIT_CASE(kslot_slots_test_reset_frees),
	KUNIT_CASE(kslot_slots_test_lock_classes),
	KUNIT_CASE(kslot_slots_test_zeroed),
	KUNIT_CASE(kslot_slots_test_fast_flags),
	KUNIT_CASE(kslot_slots_test_alloc_bulk),
	KUNIT_CASE(kslot_slots_test_alloc_bulk_fault),
	KUNIT_CASE(kslot_slots_test_remove_bulk),
	KUNIT_CASE(kslot_slots_test_reader),
	KUNIT_CASE(kslot_slots_test_read_prefetch),
	{}
};

static struct kunit_suite kslot_slots_test_suite = {
	.name = "kslot_slots",
	.test_cases = kslot_slots_test_cases,
};

kunit_test_suite(kslot_slots_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_slots");
MODULE_LICENSE("GPL");
