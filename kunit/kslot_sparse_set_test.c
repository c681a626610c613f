// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_sparse_set, the dense list plus paged sparse index.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/kslot_sparse_set.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define PAGE_B	sizeof(struct kslot_sparse_set_page)
#define L1_B	sizeof(struct kslot_sparse_set_l1)
#define L2_B	sizeof(struct kslot_sparse_set_l2)
#define L3_B	sizeof(struct kslot_sparse_set_l3)

static void set_init(struct kunit *test, struct kslot_sparse_set *set,
		     u32 max)
{
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_init(set, max, 0), 0);
}

static void add(struct kunit *test, struct kslot_sparse_set *set, u32 key)
{
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_add(set, key, GFP_KERNEL), 0);
}

/* Both directions agree: dense[pos(k)] == k for every member. */
static void check_invariants(struct kunit *test, struct kslot_sparse_set *set)
{
	u32 pos, key;

	kslot_sparse_set_for_each(set, pos, key)
		KUNIT_ASSERT_EQ(test, kslot_sparse_set_pos(set, key), pos);
}

static void kslot_sparse_set_test_init(struct kunit *test)
{
	struct kslot_sparse_set_stats st;
	struct kslot_sparse_set set;

	KUNIT_EXPECT_EQ(test, kslot_sparse_set_init(&set, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_init(&set,
						    KSLOT_SPARSE_SET_MAX_COUNT +
						    1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_init(&set, 16, BIT(5)),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_init(&set,
						    KSLOT_SPARSE_SET_MAX_COUNT,
						    KSLOT_SPARSE_SET_ACCOUNT), 0);
	kslot_sparse_set_stats(&set, &st);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	KUNIT_EXPECT_EQ(test, st.pages, 0);
	KUNIT_EXPECT_EQ(test, st.nodes, 0);
	KUNIT_EXPECT_EQ(test, st.index_bytes, 0);
	KUNIT_EXPECT_EQ(test, st.dense_bytes, 0);
	KUNIT_EXPECT_FALSE(test, kslot_sparse_set_contains(&set, 0));
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_remove(&set, 0), -ENOENT);
	KUNIT_EXPECT_NULL(test, kslot_sparse_set_keys(&set));
	kslot_sparse_set_destroy(&set);
}

static void kslot_sparse_set_test_add(struct kunit *test)
{
	struct kslot_sparse_set set;
	const u32 *keys;

	set_init(test, &set, 64);
	add(test, &set, 5);
	add(test, &set, 9);
	add(test, &set, 2);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_add(&set, 9, GFP_KERNEL),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_count(&set), 3);
	keys = kslot_sparse_set_keys(&set);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	KUNIT_EXPECT_EQ(test, keys[0], 5);
	KUNIT_EXPECT_EQ(test, keys[1], 9);
	KUNIT_EXPECT_EQ(test, keys[2], 2);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 5), 0);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 9), 1);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 2), 2);
	/* Absent keys in a present page and in a missing page. */
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 3),
			KSLOT_SPARSE_SET_INVALID);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 1U << 20),
			KSLOT_SPARSE_SET_INVALID);
	KUNIT_EXPECT_TRUE(test, kslot_sparse_set_contains(&set, 2));
	KUNIT_EXPECT_FALSE(test, kslot_sparse_set_contains(&set, 3));
	kslot_sparse_set_destroy(&set);
}

/* swap_remove: the last member fills the hole and its position is fixed. */
static void kslot_sparse_set_test_remove(struct kunit *test)
{
	struct kslot_sparse_set set;
	const u32 *keys;

	set_init(test, &set, 64);
	add(test, &set, 5);
	add(test, &set, 9);
	add(test, &set, 2);
	add(test, &set, 7);
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_remove(&set, 9), 0);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_remove(&set, 9), -ENOENT);
	keys = kslot_sparse_set_keys(&set);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_count(&set), 3);
	KUNIT_EXPECT_EQ(test, keys[0], 5);
	KUNIT_EXPECT_EQ(test, keys[1], 7);
	KUNIT_EXPECT_EQ(test, keys[2], 2);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 7), 1);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 9),
			KSLOT_SPARSE_SET_INVALID);
	check_invariants(test, &set);
	kslot_sparse_set_destroy(&set);
}

static void kslot_sparse_set_test_remove_last(struct kunit *test)
{
	struct kslot_sparse_set set;
	const u32 *keys;

	set_init(test, &set, 64);
	add(test, &set, 10);
	add(test, &set, 20);
	add(test, &set, 30);
	/* The last member: nothing moves. */
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_remove(&set, 30), 0);
	keys = kslot_sparse_set_keys(&set);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_count(&set), 2);
	KUNIT_EXPECT_EQ(test, keys[0], 10);
	KUNIT_EXPECT_EQ(test, keys[1], 20);
	KUNIT_EXPECT_FALSE(test, kslot_sparse_set_contains(&set, 30));
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 20), 1);
	check_invariants(test, &set);
	kslot_sparse_set_destroy(&set);
}

static void kslot_sparse_set_test_remove_only(struct kunit *test)
{
	struct kslot_sparse_set set;

	set_init(test, &set, 64);
	add(test, &set, 42);
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_remove(&set, 42), 0);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_count(&set), 0);
	KUNIT_EXPECT_FALSE(test, kslot_sparse_set_contains(&set, 42));
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_remove(&set, 42), -ENOENT);
	/* And it can come back. */
	add(test, &set, 42);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 42), 0);
	kslot_sparse_set_destroy(&set);
}

static void kslot_sparse_set_test_extremes(struct kunit *test)
{
	struct kslot_sparse_set set;

	set_init(test, &set, 64);
	add(test, &set, U32_MAX);
	add(test, &set, 0);
	add(test, &set, U32_MAX - 1);
	KUNIT_EXPECT_TRUE(test, kslot_sparse_set_contains(&set, U32_MAX));
	KUNIT_EXPECT_TRUE(test, kslot_sparse_set_contains(&set, 0));
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, U32_MAX - 1), 2);
	KUNIT_EXPECT_FALSE(test, kslot_sparse_set_contains(&set,
							   U32_MAX - 2));
	KUNIT_EXPECT_EQ(test, set.nr_pages, 2);
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_remove(&set, U32_MAX), 0);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, U32_MAX - 1), 0);
	check_invariants(test, &set);
	kslot_sparse_set_destroy(&set);
}

/* Keys {0, 2^31}: two pages, and only those pages, whatever else is used. */
static void kslot_sparse_set_test_two_pages(struct kunit *test)
{
	const size_t index_bytes = 2 * PAGE_B + L1_B + 2 * L2_B + 2 * L3_B;
	struct kslot_sparse_set_stats st;
	struct kslot_sparse_set set;
	u32 i;

	set_init(test, &set, 4096);
	add(test, &set, 0);
	add(test, &set, BIT(31));
	kslot_sparse_set_stats(&set, &st);
	KUNIT_EXPECT_EQ(test, st.pages, 2);
	KUNIT_EXPECT_EQ(test, st.nodes, 5);
	KUNIT_EXPECT_EQ(test, st.index_bytes, index_bytes);
	KUNIT_EXPECT_EQ(test, PAGE_B, 4096);
	/* Filling both pages allocates no more pages. */
	for (i = 1; i < KSLOT_SPARSE_SET_PAGE_KEYS; i++) {
		add(test, &set, i);
		add(test, &set, BIT(31) + i);
	}
	kslot_sparse_set_stats(&set, &st);
	KUNIT_EXPECT_EQ(test, st.count, 2 * KSLOT_SPARSE_SET_PAGE_KEYS);
	KUNIT_EXPECT_EQ(test, st.pages, 2);
	KUNIT_EXPECT_EQ(test, st.index_bytes, index_bytes);
	KUNIT_EXPECT_EQ(test, st.capacity, 2048);
	KUNIT_EXPECT_EQ(test, st.dense_bytes,
			sizeof(struct kslot_sparse_set_dense) + 2048 * 4);
	check_invariants(test, &set);
	/* Empty pages are kept by remove ... */
	for (i = 0; i < KSLOT_SPARSE_SET_PAGE_KEYS; i++)
		KUNIT_ASSERT_EQ(test, kslot_sparse_set_remove(&set, i), 0);
	kslot_sparse_set_stats(&set, &st);
	KUNIT_EXPECT_EQ(test, st.pages, 2);
	/* ... and freed by shrink, with the nodes above them. */
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_shrink(&set), 1);
	kslot_sparse_set_stats(&set, &st);
	KUNIT_EXPECT_EQ(test, st.pages, 1);
	KUNIT_EXPECT_EQ(test, st.nodes, 3);
	KUNIT_EXPECT_EQ(test, st.index_bytes, PAGE_B + L1_B + L2_B + L3_B);
	KUNIT_EXPECT_TRUE(test, kslot_sparse_set_contains(&set, BIT(31) + 7));
	KUNIT_EXPECT_FALSE(test, kslot_sparse_set_contains(&set, 7));
	check_invariants(test, &set);
	kslot_sparse_set_clear(&set);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_shrink(&set), 1);
	kslot_sparse_set_stats(&set, &st);
	KUNIT_EXPECT_EQ(test, st.pages, 0);
	KUNIT_EXPECT_EQ(test, st.nodes, 0);
	KUNIT_EXPECT_EQ(test, st.index_bytes, 0);
	KUNIT_EXPECT_EQ(test, st.dense_bytes, 0);
	/* Usable again after a full shrink. */
	add(test, &set, BIT(31));
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, BIT(31)), 0);
	kslot_sparse_set_destroy(&set);
}

static void kslot_sparse_set_test_iterate(struct kunit *test)
{
	const u32 n = 500;
	struct kslot_sparse_set set;
	u32 pos, key, i, visits = 0;
	unsigned long *seen;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	set_init(test, &set, n);
	for (i = 0; i < n; i++)
		add(test, &set, i * 40503U);	/* Spread over many pages. */
	kslot_sparse_set_for_each(&set, pos, key) {
		KUNIT_ASSERT_EQ(test, key % 40503U, 0);
		KUNIT_ASSERT_FALSE(test, __test_and_set_bit(key / 40503U,
							    seen));
		visits++;
	}
	KUNIT_EXPECT_EQ(test, visits, n);
	/* Reverse walk removing every other key as it goes. */
	bitmap_zero(seen, n);
	visits = 0;
	kslot_sparse_set_for_each_reverse(&set, pos, key) {
		KUNIT_ASSERT_FALSE(test, __test_and_set_bit(key / 40503U,
							    seen));
		visits++;
		if ((key / 40503U) & 1)
			KUNIT_ASSERT_EQ(test,
					kslot_sparse_set_remove(&set, key), 0);
	}
	KUNIT_EXPECT_EQ(test, visits, n);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_count(&set), n / 2);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test,
				kslot_sparse_set_contains(&set, i * 40503U),
				!(i & 1));
	check_invariants(test, &set);
	kslot_sparse_set_destroy(&set);
}

static void kslot_sparse_set_test_clear(struct kunit *test)
{
	struct kslot_sparse_set_stats st;
	struct kslot_sparse_set set;
	u32 i;

	set_init(test, &set, 100);
	for (i = 0; i < 100; i++)
		add(test, &set, i * 7919U);
	kslot_sparse_set_clear(&set);
	kslot_sparse_set_stats(&set, &st);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	KUNIT_EXPECT_EQ(test, st.capacity, 100);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_FALSE(test, kslot_sparse_set_contains(&set,
								   i * 7919U));
	add(test, &set, 7919U);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_pos(&set, 7919U), 0);
	kslot_sparse_set_destroy(&set);
}

static void kslot_sparse_set_test_enospc(struct kunit *test)
{
	struct kslot_sparse_set set;
	u32 i;

	set_init(test, &set, 20);
	for (i = 0; i < 20; i++)
		add(test, &set, i);
	KUNIT_EXPECT_EQ(test, set.capacity, 20);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_add(&set, 20, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_add(&set, 3, GFP_KERNEL),
			-EEXIST);
	KUNIT_ASSERT_EQ(test, kslot_sparse_set_remove(&set, 3), 0);
	add(test, &set, 20);
	kslot_sparse_set_destroy(&set);
}

/* Owner-serialised use under a spinlock with interrupts off. */
static void kslot_sparse_set_test_atomic(struct kunit *test)
{
	struct kslot_sparse_set set;
	unsigned long flags;
	spinlock_t lock;	/* Stands for the owner's lock. */
	int fails = 0;
	u32 i;

	spin_lock_init(&lock);
	set_init(test, &set, 1000);
	spin_lock_irqsave(&lock, flags);
	for (i = 0; i < 300; i++)
		fails += !!kslot_sparse_set_add(&set, i * 1000003U, GFP_ATOMIC);
	for (i = 0; i < 300; i += 2)
		fails += !!kslot_sparse_set_remove(&set, i * 1000003U);
	spin_unlock_irqrestore(&lock, flags);
	KUNIT_EXPECT_EQ(test, fails, 0);
	KUNIT_EXPECT_EQ(test, kslot_sparse_set_count(&set), 150);
	check_invariants(test, &set);
	kslot_sparse_set_destroy(&set);
}

/*
 * The key pool of the random test: 8 pages' worth of keys, in pages
 * spread over the key space (including the first and the last page).
 */
#define POOL_PAGES	8
#define POOL_KEYS	(POOL_PAGES * KSLOT_SPARSE_SET_PAGE_KEYS)

static const u32 pool_page[POOL_PAGES] = {
	0, 1, 1000, 0x1ffff, 0x20000, 0x200000, 0x2a5a5a, 0x3fffff,
};

static u32 pool_key(u32 i)
{
	return (pool_page[i / KSLOT_SPARSE_SET_PAGE_KEYS] <<
		KSLOT_SPARSE_SET_PAGE_SHIFT) | (i % KSLOT_SPARSE_SET_PAGE_KEYS);
}

static u32 pool_index(u32 key)
{
	u32 page = key >> KSLOT_SPARSE_SET_PAGE_SHIFT, i;

	for (i = 0; i < POOL_PAGES; i++)
		if (pool_page[i] == page)
			return i * KSLOT_SPARSE_SET_PAGE_KEYS +
			       (key % KSLOT_SPARSE_SET_PAGE_KEYS);
	return U32_MAX;
}

/*
 * contains() must agree with a linear scan of the dense list: the scan
 * marks every listed key, then every pool key is asked.
 */
static void check_against_scan(struct kunit *test, struct kslot_sparse_set *set,
			       const unsigned long *model, unsigned long *scan)
{
	u32 pos, key, i;

	bitmap_zero(scan, POOL_KEYS);
	kslot_sparse_set_for_each(set, pos, key) {
		i = pool_index(key);
		KUNIT_ASSERT_NE(test, i, U32_MAX);
		KUNIT_ASSERT_FALSE(test, __test_and_set_bit(i, scan));
	}
	for (i = 0; i < POOL_KEYS; i++) {
		KUNIT_ASSERT_EQ(test, kslot_sparse_set_contains(set,
								pool_key(i)),
				test_bit(i, scan));
		KUNIT_ASSERT_EQ(test, test_bit(i, scan), test_bit(i, model));
	}
	check_invariants(test, set);
}

static void kslot_sparse_set_test_random(struct kunit *test)
{
	const u32 ops = 100000;
	unsigned long *model, *scan;
	struct kslot_sparse_set set;
	u32 i, nmodel = 0, adds = 0;
	struct rnd_state rnd;

	model = kunit_kcalloc(test, BITS_TO_LONGS(POOL_KEYS), sizeof(long),
			      GFP_KERNEL);
	scan = kunit_kcalloc(test, BITS_TO_LONGS(POOL_KEYS), sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model);
	KUNIT_ASSERT_NOT_NULL(test, scan);
	prandom_seed_state(&rnd, 0x7370617273ULL);
	set_init(test, &set, POOL_KEYS);

	for (i = 0; i < ops; i++) {
		u32 r = prandom_u32_state(&rnd);
		/* Bias towards a few hot pages so sets get full and empty. */
		u32 k = (r >> 8) % (r & 1 ? POOL_KEYS : 3000);
		u32 key = pool_key(k);
		u32 op = (r >> 1) % 16;
		int ret;

		if (op < 7) {
			ret = kslot_sparse_set_add(&set, key, GFP_KERNEL);
			KUNIT_ASSERT_EQ(test, ret,
					test_bit(k, model) ? -EEXIST : 0);
			if (!ret) {
				__set_bit(k, model);
				nmodel++;
				adds++;
			}
		} else if (op < 14) {
			ret = kslot_sparse_set_remove(&set, key);
			KUNIT_ASSERT_EQ(test, ret,
					test_bit(k, model) ? 0 : -ENOENT);
			if (!ret) {
				__clear_bit(k, model);
				nmodel--;
			}
		} else {
			KUNIT_ASSERT_EQ(test,
					kslot_sparse_set_contains(&set, key),
					test_bit(k, model));
		}
		KUNIT_ASSERT_EQ(test, kslot_sparse_set_count(&set), nmodel);
		if (i % 2000 == 0)
			check_against_scan(test, &set, model, scan);
		if (i % 25000 == 24999)
			kslot_sparse_set_shrink(&set);
	}
	check_against_scan(test, &set, model, scan);
	kunit_info(test, "%u members, %u adds, %u pages\n", nmodel, adds,
		   set.nr_pages);
	kslot_sparse_set_destroy(&set);
}

static void check_stats_eq(struct kunit *test, struct kslot_sparse_set *set,
			   const struct kslot_sparse_set_stats *want)
{
	struct kslot_sparse_set_stats st;

	kslot_sparse_set_stats(set, &st);
	KUNIT_ASSERT_EQ(test, st.count, want->count);
	KUNIT_ASSERT_EQ(test, st.capacity, want->capacity);
	KUNIT_ASSERT_EQ(test, st.pages, want->pages);
	KUNIT_ASSERT_EQ(test, st.nodes, want->nodes);
	KUNIT_ASSERT_EQ(test, st.index_bytes, want->index_bytes);
	check_invariants(test, set);
}

/*
 * Fail each allocation of an add in turn: -ENOMEM and no change.  The
 * first add needs all five (three nodes, a page, the dense list); a key
 * in a new top-level range needs two nodes and a page; a full dense list
 * needs a bigger one.
 */
static int fault_sweep(struct kunit *test, struct kslot_sparse_set *set,
		       u32 key)
{
	struct kslot_sparse_set_stats before;
	u32 n, faults = 0;
	bool injected;
	int ret;

	kslot_sparse_set_stats(set, &before);
	for (n = 1;; n++) {
		ret = kslot_test_with_fail_nth(n, &injected,
					       kslot_sparse_set_add(set, key,
								    GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
		KUNIT_ASSERT_FALSE(test, kslot_sparse_set_contains(set, key));
		check_stats_eq(test, set, &before);
		faults++;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE(test, kslot_sparse_set_contains(set, key));
	return faults;
}

static void kslot_sparse_set_test_fault(struct kunit *test)
{
	struct kslot_sparse_set set;
	u32 i;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	set_init(test, &set, 1000);
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &set, 0), 5);
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &set, BIT(31)), 3);
	/* Same top-level range, new bits 23-17: one node and a page. */
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &set, BIT(31) | BIT(20)), 2);
	/* Same L3 node, new page. */
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &set, BIT(31) | BIT(12)), 1);
	for (i = 1; i < 12; i++)
		add(test, &set, i);
	KUNIT_EXPECT_EQ(test, set.count, 15);
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &set, 12), 0);
	/* Dense list full at 16: the next add grows it. */
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &set, 13), 1);
	KUNIT_EXPECT_EQ(test, set.capacity, 32);
	/* Everything at once: new page and a full dense list. */
	for (i = 14; i < 29; i++)
		add(test, &set, i);
	KUNIT_EXPECT_EQ(test, set.count, 32);
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &set, 5U << 24), 4);
	kslot_sparse_set_destroy(&set);
}

static struct kunit_case kslot_sparse_set_test_cases[] = {
	KUNIT_CASE(kslot_sparse_set_test_init),
	KUNIT_CASE(kslot_sparse_set_test_add),
	KUNIT_CASE(kslot_sparse_set_test_remove),
	KUNIT_CASE(kslot_sparse_set_test_remove_last),
	KUNIT_CASE(kslot_sparse_set_test_remove_only),
	KUNIT_CASE(kslot_sparse_set_test_extremes),
	KUNIT_CASE(kslot_sparse_set_test_two_pages),
	KUNIT_CASE(kslot_sparse_set_test_iterate),
	KUNIT_CASE(kslot_sparse_set_test_clear),
	KUNIT_CASE(kslot_sparse_set_test_enospc),
	KUNIT_CASE(kslot_sparse_set_test_atomic),
	KUNIT_CASE(kslot_sparse_set_test_random),
	KUNIT_CASE(kslot_sparse_set_test_fault),
	{}
};

static struct kunit_suite kslot_sparse_set_test_suite = {
	.name = "kslot_sparse_set",
	.test_cases = kslot_sparse_set_test_cases,
};

kunit_test_suite(kslot_sparse_set_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_sparse_set");
MODULE_LICENSE("GPL");
