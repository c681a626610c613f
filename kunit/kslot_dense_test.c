// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_dense, the dense generational slot map.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kslot_dense.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "kslot_dev_lib.h"
#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(KSLOT_DEV);

/* A 24-byte value: not a power of two, to catch stride mistakes. */
struct tval {
	u64 id;
	u64 check;
	u32 a;
	u32 b;
};

static struct tval tv(u64 id)
{
	return (struct tval){ .id = id, .check = id * 0x9e3779b97f4a7c15ULL,
			      .a = lower_32_bits(id) ^ 0x5a5a5a5a,
			      .b = ~lower_32_bits(id) };
}

static bool tv_eq(const struct tval *v, u64 id)
{
	struct tval want = tv(id);

	return !memcmp(v, &want, sizeof(want));
}

static void dense_init(struct kunit *test, struct kslot_dense *d, u32 max)
{
	KUNIT_ASSERT_EQ(test, kslot_dense_init(d, NULL, sizeof(struct tval),
					       max, 0), 0);
}

static u64 ins(struct kunit *test, struct kslot_dense *d, u64 id)
{
	struct tval v = tv(id);
	u64 h = 0;

	KUNIT_ASSERT_EQ(test, kslot_dense_insert(d, &h, &v, GFP_KERNEL), 0);
	return h;
}

/* Slot @i of the core under @d (no lock: test only). */
static struct kslot_slot *dslot(struct kslot_dense *d, u32 i)
{
	struct kslot_dir *dir = rcu_dereference_protected(d->slots.dir,
								true);

	return kslot_dir_at(dir, i, KSLOT_SLOTS_CHUNK_SHIFT,
			    sizeof(struct kslot_slot));
}

static u64 dgen(struct kslot_dense *d, u32 i)
{
	return kslot_slots_handle_gen(&d->slots, dslot(d, i)->word);
}

/* The slot and the generation of handle @h of @d. */
static u32 dindex(const struct kslot_dense *d, u64 h)
{
	return kslot_slots_handle_index(&d->slots, h);
}

static u64 dhgen(const struct kslot_dense *d, u64 h)
{
	return kslot_slots_handle_gen(&d->slots, h);
}

/* A live slot's packed position, or a free slot's free-list link. */
static u32 dlink(struct kslot_dense *d, u32 i)
{
	const struct kslot_slot *slot = dslot(d, i);

	if (kslot_gen_is_live(dgen(d, i)))
		return kslot_dense_obj_pos(slot->obj);
	return (unsigned long)slot->obj;
}

/* The value at packed position @pos (no lock: test only). */
static struct tval *dval(struct kslot_dense *d, u32 pos)
{
	return kslot_dense_dir_at(rcu_dereference_protected(d->vals, true),
				  d->shift, d->elem_size, pos);
}

/* The handle of packed position @pos in the reverse map (test only). */
static u64 drev(struct kslot_dense *d, u32 pos)
{
	return *(u64 *)kslot_dense_dir_at(rcu_dereference_protected(d->rev,
								    true),
					  d->shift, sizeof(u64), pos);
}

/* Handles the table rejected so far, summed over the CPUs. */
static u64 rejected(struct kslot_dense *d)
{
	struct kslot_slots_stats ss;

	kslot_slots_stats(&d->slots, &ss);
	return ss.rejected;
}

/* The id of the value at packed position @pos (no lock: test only). */
static u64 id_at(struct kslot_dense *d, u32 pos)
{
	return dval(d, pos)->id;
}

/*
 * Positions per chunk of the packed array of struct tval: four pages of
 * 24-byte values, rounded down to a power of two, 4 * PAGE_SIZE / 32
 * (512 with 4 KiB pages).
 */
#define TV_PER	((u32)(PAGE_SIZE / 8))

/*
 * Check the three arrays against each other: every live position's slot
 * points back at it, and the free list holds exactly the free slots.
 */
static void check_invariants(struct kunit *test, struct kslot_dense *d)
{
	u32 pos, i, nfree = 0, nlive = 0, nretired = 0;

	for (pos = 0; pos < d->count; pos++) {
		u32 index = dindex(d, drev(d, pos));

		KUNIT_ASSERT_EQ(test, dslot(d, index)->word, drev(d, pos));
		KUNIT_ASSERT_EQ(test, dlink(d, index), pos);
	}
	for (i = 0; i < d->slots.capacity; i++) {
		if (kslot_gen_is_live(dgen(d, i)))
			nlive++;
		else if (dlink(d, i) == KSLOT_SLOTS_RETIRED)
			nretired++;
	}
	for (i = d->slots.free_head; i != KSLOT_SLOTS_NONE; i = dlink(d, i)) {
		KUNIT_ASSERT_LT(test, i, d->slots.capacity);
		KUNIT_ASSERT_FALSE(test, kslot_gen_is_live(dgen(d, i)));
		KUNIT_ASSERT_LE(test, ++nfree, d->slots.capacity);
	}
	KUNIT_ASSERT_EQ(test, nlive, d->count);
	KUNIT_ASSERT_EQ(test, nretired, d->slots.retired);
	KUNIT_ASSERT_EQ(test, nfree + nlive + nretired, d->slots.capacity);
}

static void kslot_dense_test_init(struct kunit *test)
{
	struct kslot_dense d;

	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, 0, 16, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, 8, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, 8,
					       KSLOT_MAX_ENTRIES + 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, 8, 16, BIT(9)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, 8, 16,
					       KSLOT_DENSE_LOCK_BH |
					       KSLOT_DENSE_LOCK_IRQ), -EINVAL);
	/* Sizes whose product overflows, or exceeds INT_MAX bytes. */
	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, SIZE_MAX, 16, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, SIZE_MAX / 2 + 1,
					       2, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_init(&d, NULL, 256,
					       KSLOT_MAX_ENTRIES, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_dense_init(&d, "kunit", 64,
					       KSLOT_MAX_ENTRIES,
					       KSLOT_DENSE_LOCK_IRQ |
					       KSLOT_DENSE_ACCOUNT), 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 0);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(d.vals));
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_insert(struct kunit *test)
{
	struct kslot_dense d;
	u64 h0, h1, hz = 0;
	struct tval v;

	dense_init(test, &d, 64);
	h0 = ins(test, &d, 100);
	h1 = ins(test, &d, 101);
	KUNIT_EXPECT_EQ(test, dindex(&d, h0), 0);
	KUNIT_EXPECT_EQ(test, dindex(&d, h1), 1);
	KUNIT_EXPECT_EQ(test, dhgen(&d, h0), 1);
	KUNIT_EXPECT_EQ(test,
			kslot_slots_handle_tag(&d.slots, h0), d.slots.tag);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 2);
	/* The first table: KSLOT_SLOTS_MIN slots, capped at max_entries. */
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 64);
	/* One chunk of the packed array, capped at max_entries too. */
	KUNIT_EXPECT_EQ(test, d.room, 64);
	KUNIT_EXPECT_EQ(test, id_at(&d, 0), 100);
	KUNIT_EXPECT_EQ(test, id_at(&d, 1), 101);
	/* A NULL value is inserted zeroed. */
	KUNIT_ASSERT_EQ(test, kslot_dense_insert(&d, &hz, NULL, GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&d, hz, &v), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&v, 0, sizeof(v)));
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_lookup_update(struct kunit *test)
{
	struct kslot_dense d;
	unsigned long flags;
	struct tval v, *p;
	u64 h;

	dense_init(test, &d, 64);
	h = ins(test, &d, 7);
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, h, &v), 0);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v, 7));
	KUNIT_EXPECT_TRUE(test, kslot_dense_contains(&d, h));
	v = tv(8);
	KUNIT_EXPECT_EQ(test, kslot_dense_update(&d, h, &v), 0);
	memset(&v, 0, sizeof(v));
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, h, &v), 0);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v, 8));
	/* The accessor under the lock sees the same value, in place. */
	flags = kslot_dense_lock(&d);
	p = __kslot_dense_lookup(&d, h);
	KUNIT_EXPECT_PTR_EQ(test, (void *)p, __kslot_dense_at(&d, 0));
	KUNIT_EXPECT_EQ(test, __kslot_dense_handle_at(&d, 0), h);
	kslot_dense_unlock(&d, flags);
	KUNIT_EXPECT_TRUE(test, tv_eq(p, 8));
	/* Stale handle: update and lookup refuse, the buffer is untouched. */
	v = tv(9);
	h += kslot_test_gens(&d.slots, 2);
	KUNIT_EXPECT_EQ(test, kslot_dense_update(&d, h, &v), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, h, &v), -ENOENT);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v, 9));
	KUNIT_EXPECT_EQ(test, rejected(&d), 2);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Several values in one call, up to the first handle not live. */
static void kslot_dense_test_lookup_many(struct kunit *test)
{
	struct tval v[4];
	struct kslot_dense d;
	u64 h[4];
	int i;

	dense_init(test, &d, 64);
	for (i = 0; i < 3; i++)
		h[i] = ins(test, &d, 10 + i);
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup_many(&d, h, 3, v), 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, tv_eq(&v[i], 10 + i));
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup_many(&d, h, 0, v), 0);
	/* A stale handle ends the run; the values before it are copied. */
	h[3] = h[2];
	h[2] = h[1] + kslot_test_gens(&d.slots, 2);
	memset(v, 0, sizeof(v));
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup_many(&d, h, 4, v), 2);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v[0], 10));
	KUNIT_EXPECT_TRUE(test, tv_eq(&v[1], 11));
	/* Nothing after it is looked up, nor copied. */
	KUNIT_EXPECT_NULL(test, memchr_inv(&v[3], 0, sizeof(v[3])));
	KUNIT_EXPECT_EQ(test, rejected(&d), 1);
	/* The null handle too, counted as no rejection. */
	h[0] = 0;
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup_many(&d, h, 4, v), 0);
	KUNIT_EXPECT_EQ(test, rejected(&d), 1);
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_erase(struct kunit *test)
{
	struct kslot_dense d;
	struct tval v;
	u64 h;

	dense_init(test, &d, 64);
	h = ins(test, &d, 3);
	KUNIT_EXPECT_EQ(test, kslot_dense_erase(&d, h, &v), 0);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v, 3));
	KUNIT_EXPECT_EQ(test, kslot_dense_erase(&d, h, NULL), -ENOENT);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, h));
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	KUNIT_EXPECT_EQ(test, d.slots.free_head, 0);
	KUNIT_EXPECT_EQ(test, dgen(&d, 0), 2);
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

/*
 * Seed 000's memory-layout picture: packed data C, A, B; reverse map
 * [3, 2, 0]; slot 1 freed and at the head of the free list.  The picture
 * has three live values after one delete, so it takes a fourth insert;
 * slot 3 holding the first value means the free list was 3, 2, 1, 0 when
 * the inserts began, which four inserts and erases in order arrange.
 */
static void kslot_dense_test_seed_layout(struct kunit *test)
{
	u64 h[4], a, b, c, x;
	struct kslot_dense d;
	int i;

	dense_init(test, &d, 8);
	for (i = 0; i < 4; i++)
		h[i] = ins(test, &d, i);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h[i], NULL), 0);
	KUNIT_EXPECT_EQ(test, d.slots.free_head, 3);
	c = ins(test, &d, 'C');
	a = ins(test, &d, 'A');
	x = ins(test, &d, 'X');
	b = ins(test, &d, 'B');
	KUNIT_EXPECT_EQ(test, dindex(&d, c), 3);
	KUNIT_EXPECT_EQ(test, dindex(&d, a), 2);
	KUNIT_EXPECT_EQ(test, dindex(&d, x), 1);
	KUNIT_EXPECT_EQ(test, dindex(&d, b), 0);
	/* Erase X at position 2: B, the last value, moves into the hole. */
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, x, NULL), 0);

	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 3);
	KUNIT_EXPECT_EQ(test, id_at(&d, 0), 'C');
	KUNIT_EXPECT_EQ(test, id_at(&d, 1), 'A');
	KUNIT_EXPECT_EQ(test, id_at(&d, 2), 'B');
	KUNIT_EXPECT_EQ(test, dindex(&d, drev(&d, 0)), 3);
	KUNIT_EXPECT_EQ(test, dindex(&d, drev(&d, 1)), 2);
	KUNIT_EXPECT_EQ(test, dindex(&d, drev(&d, 2)), 0);
	/* The index array points at the data: slot 0 -> 2, 2 -> 1, 3 -> 0. */
	KUNIT_EXPECT_EQ(test, dlink(&d, 0), 2);
	KUNIT_EXPECT_EQ(test, dlink(&d, 2), 1);
	KUNIT_EXPECT_EQ(test, dlink(&d, 3), 0);
	/* Freed slot at the head; its link continues the free list. */
	KUNIT_EXPECT_EQ(test, d.slots.free_head, 1);
	KUNIT_EXPECT_EQ(test, dlink(&d, 1), 4);
	KUNIT_EXPECT_EQ(test, dlink(&d, 4), 5);
	KUNIT_EXPECT_FALSE(test, kslot_gen_is_live(dgen(&d, 1)));
	/* Each slot was used twice: live generation 3, freed slot 1 at 4. */
	KUNIT_EXPECT_EQ(test, dgen(&d, 0), 3);
	KUNIT_EXPECT_EQ(test, dgen(&d, 1), 4);
	KUNIT_EXPECT_EQ(test, dgen(&d, 3), 3);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, x));
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, h[1]));
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Seed 000's swap-and-pop: erase B from A B C D gives A D C. */
static void kslot_dense_test_seed_swap_pop(struct kunit *test)
{
	struct kslot_dense d;
	struct tval v;
	u64 h[4];
	int i;

	dense_init(test, &d, 8);
	for (i = 0; i < 4; i++)
		h[i] = ins(test, &d, 'A' + i);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, dindex(&d, drev(&d, i)), i);
		KUNIT_EXPECT_EQ(test, dlink(&d, i), i);
	}
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h[1], NULL), 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 3);
	KUNIT_EXPECT_EQ(test, id_at(&d, 0), 'A');
	KUNIT_EXPECT_EQ(test, id_at(&d, 1), 'D');
	KUNIT_EXPECT_EQ(test, id_at(&d, 2), 'C');
	KUNIT_EXPECT_EQ(test, dindex(&d, drev(&d, 0)), 0);
	KUNIT_EXPECT_EQ(test, dindex(&d, drev(&d, 1)), 3);
	KUNIT_EXPECT_EQ(test, dindex(&d, drev(&d, 2)), 2);
	/* D's slot now points at position 1. */
	KUNIT_EXPECT_EQ(test, dlink(&d, 3), 1);
	KUNIT_EXPECT_EQ(test, d.slots.free_head, 1);
	/* D's handle still works; B's does not. */
	KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&d, h[3], &v), 0);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v, 'D'));
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, h[1], &v), -ENOENT);
	/* Erasing the last value moves nothing. */
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h[2], NULL), 0);
	KUNIT_EXPECT_EQ(test, id_at(&d, 0), 'A');
	KUNIT_EXPECT_EQ(test, id_at(&d, 1), 'D');
	KUNIT_EXPECT_EQ(test, dlink(&d, 3), 1);
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Seed 000's generation timeline: the old key is invalid, the new valid. */
static void kslot_dense_test_seed_timeline(struct kunit *test)
{
	struct kslot_dense d;
	struct tval v;
	u64 a, b;

	dense_init(test, &d, 8);
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 0);
	a = ins(test, &d, 'A');
	KUNIT_EXPECT_EQ(test, dindex(&d, a), 0);
	KUNIT_EXPECT_EQ(test, dhgen(&d, a), 1);
	KUNIT_EXPECT_EQ(test, dgen(&d, 0), 1);
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, a, NULL), 0);
	KUNIT_EXPECT_EQ(test, dgen(&d, 0), 2);
	b = ins(test, &d, 'B');
	KUNIT_EXPECT_EQ(test, dindex(&d, b), 0);
	KUNIT_EXPECT_EQ(test, dhgen(&d, b), 3);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, a));
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, a, &v), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_dense_erase(&d, a, NULL), -ENOENT);
	KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&d, b, &v), 0);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v, 'B'));
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_bulk(struct kunit *test)
{
	struct tval vals[10], v;
	struct kslot_dense d;
	u64 h[24];
	int i;

	for (i = 0; i < 10; i++)
		vals[i] = tv(1000 + i);
	dense_init(test, &d, 24);
	KUNIT_EXPECT_EQ(test, kslot_dense_insert_n(&d, h, vals, 0, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_erase_n(&d, h, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_dense_insert_n(&d, h, vals, 10,
						   GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 10);
	for (i = 0; i < 10; i++) {
		KUNIT_EXPECT_EQ(test, dindex(&d, h[i]), i);
		KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&d, h[i], &v), 0);
		KUNIT_EXPECT_TRUE(test, tv_eq(&v, 1000 + i));
	}
	/* All or nothing: 10 + 15 > 24. */
	KUNIT_EXPECT_EQ(test, kslot_dense_insert_n(&d, h + 10, NULL, 15,
						   GFP_KERNEL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 10);
	/* Bulk erase skips repeated and stale handles. */
	h[10] = h[0];
	h[11] = h[1] + kslot_test_gens(&d.slots, 2);
	KUNIT_EXPECT_EQ(test, kslot_dense_erase_n(&d, h, 12), 10);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	/* Zeroed bulk insert fills exactly to the limit. */
	KUNIT_ASSERT_EQ(test, kslot_dense_insert_n(&d, h, NULL, 24, GFP_KERNEL),
			0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 24);
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 24);
	KUNIT_EXPECT_EQ(test, kslot_dense_insert(&d, h, NULL, GFP_KERNEL),
			-ENOSPC);
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

static bool keep_odd_ids(u64 handle, void *elem, void *arg)
{
	struct tval *v = elem;
	u32 *calls = arg;

	(*calls)++;
	return v->id & 1;
}

static void kslot_dense_test_retain(struct kunit *test)
{
	const u32 n = 100;
	struct kslot_dense d;
	u32 i, calls = 0;
	struct tval v;
	u64 h[100];

	dense_init(test, &d, 128);
	for (i = 0; i < n; i++)
		h[i] = ins(test, &d, i);
	KUNIT_EXPECT_EQ(test, kslot_dense_retain(&d, keep_odd_ids, &calls),
			n / 2);
	/* Every value was offered exactly once. */
	KUNIT_EXPECT_EQ(test, calls, n);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), n / 2);
	for (i = 0; i < n; i++) {
		int ret = kslot_dense_lookup(&d, h[i], &v);

		KUNIT_EXPECT_EQ(test, ret, i & 1 ? 0 : -ENOENT);
		if (!ret)
			KUNIT_EXPECT_TRUE(test, tv_eq(&v, i));
	}
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_clear(struct kunit *test)
{
	struct kslot_dense d;
	u64 h[20], h2;
	u32 i;

	dense_init(test, &d, 64);
	for (i = 0; i < 20; i++)
		h[i] = ins(test, &d, i);
	kslot_dense_clear(&d);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 64);
	KUNIT_EXPECT_EQ(test, d.room, 64);
	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, h[i]));
	check_invariants(test, &d);
	h2 = ins(test, &d, 99);
	KUNIT_EXPECT_EQ(test, dhgen(&d, h2), 3);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 1);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Locked packed walk: every live value exactly once, with its handle. */
static void kslot_dense_test_walk_locked(struct kunit *test)
{
	const u32 n = 2 * TV_PER + 100;
	struct kslot_dense d;
	unsigned long *seen, flags;
	u32 i, pos, visits = 0;
	struct tval *v;
	u64 *h;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_NOT_NULL(test, h);
	dense_init(test, &d, n);
	for (i = 0; i < n; i++)
		h[i] = ins(test, &d, i);
	/* Three chunks: the walk crosses two chunk boundaries. */
	KUNIT_EXPECT_EQ(test, d.room, n);
	KUNIT_EXPECT_GT(test, n, 2 * TV_PER);
	for (i = 0; i < n; i += 3)
		KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h[i], NULL), 0);
	flags = kslot_dense_lock(&d);
	kslot_dense_for_each_locked(&d, pos, v) {
		if (v->id >= n || __test_and_set_bit(v->id, seen) ||
		    (void *)v != __kslot_dense_at(&d, pos) ||
		    __kslot_dense_handle_at(&d, pos) != h[v->id] ||
		    !tv_eq(v, v->id))
			break;
		visits++;
	}
	kslot_dense_unlock(&d, flags);
	KUNIT_EXPECT_EQ(test, visits, n - DIV_ROUND_UP(n, 3));
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, test_bit(i, seen), i % 3 != 0);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Memory of a chunk of @n positions of @size bytes, a kmalloc(). */
static size_t chunk_bytes(u32 n, size_t size)
{
	return kmalloc_size_roundup(n * size);
}

/* Memory of a directory with room for @room chunks. */
static size_t dir_bytes(u32 room)
{
	return kmalloc_size_roundup(struct_size_t(struct kslot_dir, chunk,
						  room));
}

/*
 * The packed array of @room tvals, as allocated: chunks of TV_PER values
 * and handles (the last one maybe short), and two directories.
 */
/* What the growth from @room tvals allocates (max_entries @max). */
/*
 * The room of the directory that replaces a full one of @room chunks (0:
 * the first), for at most @max: a power of two of bytes, twice the last,
 * up to 32 KiB (module/kslot_dir.c).
 */
static u32 dir_grown_room(u32 room, u32 max)
{
	size_t size = room ?
		2 * roundup_pow_of_two(struct_size_t(struct kslot_dir, chunk,
						     room)) :
		roundup_pow_of_two(struct_size_t(struct kslot_dir, chunk, 1));

	size = min_t(size_t, size, SZ_32K);
	return min_t(size_t, max, (size - offsetof(struct kslot_dir, chunk)) /
				  sizeof(void *));
}

/* The room of the directory that holds @chunks chunks, for at most @max. */
static u32 dir_room(u32 chunks, u32 max)
{
	u32 room = dir_grown_room(0, max);

	while (room < chunks)
		room = dir_grown_room(room, max);
	return room;
}

static size_t tval_bytes(u32 room, u32 max)
{
	u32 full = room / TV_PER, part = room % TV_PER;
	u32 chunks = DIV_ROUND_UP(room, TV_PER);
	size_t bytes;

	if (!room)
		return 0;
	bytes = full * (chunk_bytes(TV_PER, sizeof(struct tval)) +
			chunk_bytes(TV_PER, sizeof(u64)));
	if (part)
		bytes += chunk_bytes(part, sizeof(struct tval)) +
			 chunk_bytes(part, sizeof(u64));
	return bytes + 2 * dir_bytes(dir_room(chunks,
					      DIV_ROUND_UP(max, TV_PER)));
}

static size_t tval_grow_bytes(u32 room, u32 max)
{
	u32 n = min(TV_PER, max - room), chunks = room / TV_PER;
	u32 maxc = DIV_ROUND_UP(max, TV_PER);
	size_t bytes = chunk_bytes(n, sizeof(struct tval)) +
		       chunk_bytes(n, sizeof(u64));

	/* No directory yet, or a full one: both are (re)allocated. */
	if (!chunks)
		bytes += 2 * dir_bytes(dir_grown_room(0, maxc));
	else if (chunks == dir_room(chunks, maxc))
		bytes += 2 * dir_bytes(dir_grown_room(chunks, maxc));
	return bytes;
}

/* Memory freed through a table's account, and how much. */
struct bytes_acct {
	struct kslot_free_acct acct;
	size_t bytes;
};

static void bytes_acct_queue(struct kslot_free_acct *acct,
			     struct rcu_head *rcu, rcu_callback_t free,
			     size_t bytes)
{
	container_of(acct, struct bytes_acct, acct)->bytes += bytes;
	call_rcu(rcu, free);
}

/*
 * Bytes: the core's slots plus the chunks and directories of the packed
 * array, each at its allocator's size; vals_grow_bytes is what the next
 * growth allocates; destroy frees exactly what the stats counted.
 */
static void kslot_dense_test_bytes(struct kunit *test)
{
	const u32 max = 3 * TV_PER + 20, maxc = DIV_ROUND_UP(max, TV_PER);
	struct bytes_acct ba = { .acct.queue = bytes_acct_queue };
	struct kslot_slots_stats ss;
	struct kslot_dense_stats st;
	struct kslot_dense d;
	size_t before, grow;
	u32 i;

	dense_init(test, &d, max);
	kslot_slots_set_free_acct(&d.slots, &ba.acct);
	KUNIT_EXPECT_EQ(test, BIT(d.shift), TV_PER);
	kslot_dense_stats(&d, &st);
	kslot_slots_stats(&d.slots, &ss);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	KUNIT_EXPECT_EQ(test, st.room, 0);
	KUNIT_EXPECT_EQ(test, st.vals_grow_bytes, tval_grow_bytes(0, max));
	KUNIT_EXPECT_EQ(test, st.grow_bytes,
			ss.grow_bytes + tval_grow_bytes(0, max));
	for (i = 0; i < max; i++) {
		u32 chunks = i / TV_PER;

		kslot_dense_stats(&d, &st);
		kslot_slots_stats(&d.slots, &ss);
		before = st.bytes - ss.bytes;
		grow = st.vals_grow_bytes;
		/* Only a full array grows, by one chunk. */
		KUNIT_ASSERT_EQ(test, grow, i == st.room ?
				tval_grow_bytes(i, max) : 0);
		ins(test, &d, i);
		kslot_dense_stats(&d, &st);
		kslot_slots_stats(&d.slots, &ss);
		KUNIT_ASSERT_EQ(test, st.room, min(round_up(i + 1, TV_PER), max));
		KUNIT_ASSERT_EQ(test, st.bytes,
				ss.bytes + tval_bytes(st.room, max));
		/* The growth's memory, less the directories it replaced. */
		if (grow)
			KUNIT_ASSERT_EQ(test, st.bytes - ss.bytes - before,
					grow - (chunks && chunks ==
						dir_room(chunks, maxc) ?
						2 * dir_bytes(chunks) : 0));
	}
	KUNIT_EXPECT_EQ(test, st.room, max);
	KUNIT_EXPECT_EQ(test, st.vals_grow_bytes, 0);
	KUNIT_EXPECT_EQ(test, st.grow_bytes, 0);
	/* Destroy frees what the stats counted, and no more. */
	ba.bytes = 0;
	kslot_dense_destroy(&d, NULL, NULL);
	KUNIT_EXPECT_EQ(test, ba.bytes, st.bytes);
	kslot_dense_stats(&d, &st);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	rcu_barrier();
}

static void kslot_dense_test_extract_range(struct kunit *test)
{
	struct kslot_dense d;
	struct tval buf[2];
	u32 cursor = 1;
	u64 h[3], hb[2];

	dense_init(test, &d, 1000);
	h[0] = ins(test, &d, 0);
	h[1] = ins(test, &d, 1);
	h[2] = ins(test, &d, 2);
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h[1], NULL), 0);
	/* Slot 1 is free; the range ends before slot 2. */
	KUNIT_EXPECT_EQ(test, kslot_dense_extract_range(&d, &cursor, 2, hb, buf,
							2), 0);
	KUNIT_EXPECT_EQ(test, cursor, 2);
	KUNIT_EXPECT_EQ(test, kslot_dense_extract_range(&d, &cursor, 1000, hb,
							buf, 2), 1);
	KUNIT_EXPECT_EQ(test, hb[0], h[2]);
	KUNIT_EXPECT_TRUE(test, tv_eq(&buf[0], 2));
	/* The slots end at their first capacity, before 1000. */
	KUNIT_EXPECT_EQ(test, cursor, KSLOT_SLOTS_MIN);
	cursor = 0;
	KUNIT_EXPECT_EQ(test, kslot_dense_extract_range(&d, &cursor, 3, hb, buf,
							1), 1);
	KUNIT_EXPECT_EQ(test, hb[0], h[0]);
	KUNIT_EXPECT_EQ(test, cursor, 1);
	KUNIT_EXPECT_EQ(test, kslot_dense_extract_range(&d, &cursor, 3, hb, buf,
							0), -EINVAL);
	KUNIT_EXPECT_EQ(test, cursor, 1);
	kslot_dense_destroy(&d, NULL, NULL);
}

/*
 * Resumable walk by slot cursor, in small batches, erasing and inserting
 * between batches: values live throughout are seen exactly once.
 */
static void kslot_dense_test_extract(struct kunit *test)
{
	const u32 n = 200, batch = 7;
	struct kslot_dense d;
	u32 i, cursor = 0, steady = 0;
	unsigned long *seen;
	struct tval *buf;
	u64 *h, hb[7];
	int got;

	seen = kunit_kcalloc(test, BITS_TO_LONGS(2 * n), sizeof(long),
			     GFP_KERNEL);
	h = kunit_kcalloc(test, 2 * n, sizeof(*h), GFP_KERNEL);
	buf = kunit_kcalloc(test, batch, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	dense_init(test, &d, 2 * n);
	KUNIT_EXPECT_EQ(test, kslot_dense_extract(&d, &cursor, hb, buf, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_extract(&d, &cursor, hb, buf, batch),
			0);
	for (i = 0; i < n; i++)
		h[i] = ins(test, &d, i);
	i = n;
	while ((got = kslot_dense_extract(&d, &cursor, hb, buf, batch)) > 0) {
		int j;

		for (j = 0; j < got; j++) {
			u64 id = buf[j].id;

			KUNIT_ASSERT_LT(test, id, (u64)2 * n);
			KUNIT_ASSERT_TRUE(test, tv_eq(&buf[j], id));
			KUNIT_ASSERT_EQ(test, hb[j], h[id]);
			KUNIT_ASSERT_FALSE(test, __test_and_set_bit(id, seen));
		}
		/*
		 * Erase ids 0, 5, 10, ... (moving others in the packed
		 * array) and insert new ones into the freed slots.
		 */
		if (i < 2 * n && (i - n) * 5 < n) {
			KUNIT_ASSERT_EQ(test,
					kslot_dense_erase(&d, h[(i - n) * 5],
							  NULL), 0);
			h[i] = ins(test, &d, i);
			i++;
		}
	}
	for (i = 0; i < n; i++) {
		if (kslot_dense_contains(&d, h[i])) {
			KUNIT_EXPECT_TRUE(test, test_bit(i, seen));
			steady++;
		}
	}
	KUNIT_EXPECT_GT(test, steady, n / 2);
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_growth(struct kunit *test)
{
	const u32 n = 1000;
	struct kslot_dense_stats st;
	struct kslot_dense d;
	u32 i, cap = 0, grows = 0, room = 0, room_grows = 0;
	struct tval v;
	u64 *h;

	h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	dense_init(test, &d, n);
	for (i = 0; i < n; i++) {
		h[i] = ins(test, &d, i);
		if (d.slots.capacity != cap) {
			cap = d.slots.capacity;
			grows++;
		}
		if (d.room != room) {
			room = d.room;
			room_grows++;
		}
	}
	/* Slots: a chunk of KSLOT_SLOTS_CHUNK at a time, the last clamped. */
	KUNIT_EXPECT_EQ(test, grows, DIV_ROUND_UP(n, KSLOT_SLOTS_CHUNK));
	KUNIT_EXPECT_EQ(test, d.slots.capacity, n);
	/* Packed array: a chunk of TV_PER at a time, the last one clamped. */
	KUNIT_EXPECT_EQ(test, room_grows, DIV_ROUND_UP(n, TV_PER));
	KUNIT_EXPECT_EQ(test, d.room, n);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&d, h[i], &v), 0);
		KUNIT_ASSERT_TRUE(test, tv_eq(&v, i));
		KUNIT_ASSERT_EQ(test, dindex(&d, h[i]), i);
	}
	kslot_dense_stats(&d, &st);
	KUNIT_EXPECT_EQ(test, st.count, n);
	KUNIT_EXPECT_EQ(test, st.capacity, n);
	KUNIT_EXPECT_EQ(test, st.elem_size, sizeof(struct tval));
	KUNIT_EXPECT_GE(test, st.bytes, (size_t)n * (sizeof(struct tval) + 24));
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* A model of a table's values, to check one against the other. */
struct grow_model {
	u32 n;		/* ids issued */
	u64 *h;		/* id -> handle */
	u64 *key;	/* id -> tv() key of its value */
	bool *live;
	u32 *slot2id;	/* slot index -> id of its latest value */
};

static void grow_model_init(struct kunit *test, struct grow_model *m, u32 max)
{
	m->n = 0;
	m->h = kunit_kcalloc(test, max, sizeof(*m->h), GFP_KERNEL);
	m->key = kunit_kcalloc(test, max, sizeof(*m->key), GFP_KERNEL);
	m->live = kunit_kcalloc(test, max, sizeof(*m->live), GFP_KERNEL);
	m->slot2id = kunit_kcalloc(test, max, sizeof(*m->slot2id), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->slot2id);
	KUNIT_ASSERT_NOT_NULL(test, m->h);
	KUNIT_ASSERT_NOT_NULL(test, m->key);
	KUNIT_ASSERT_NOT_NULL(test, m->live);
}

static void grow_ins(struct kunit *test, struct kslot_dense *d,
		     struct grow_model *m)
{
	m->key[m->n] = m->n;
	m->h[m->n] = ins(test, d, m->n);
	m->slot2id[dindex(d, m->h[m->n])] = m->n;
	m->live[m->n++] = true;
}

/* Every id as the model has it, through lookup and the packed walk. */
static void grow_check(struct kunit *test, struct kslot_dense *d,
		       const struct grow_model *m)
{
	unsigned long flags;
	u32 id, pos, nlive = 0, seen = 0;
	struct tval v, *p;

	for (id = 0; id < m->n; id++) {
		if (!m->live[id]) {
			KUNIT_ASSERT_EQ(test,
					kslot_dense_lookup(d, m->h[id], &v),
					-ENOENT);
			continue;
		}
		nlive++;
		KUNIT_ASSERT_EQ(test, kslot_dense_lookup(d, m->h[id], &v), 0);
		KUNIT_ASSERT_TRUE(test, tv_eq(&v, m->key[id]));
	}
	KUNIT_ASSERT_EQ(test, kslot_dense_count(d), nlive);
	flags = kslot_dense_lock(d);
	kslot_dense_for_each_locked(d, pos, p) {
		u64 h = __kslot_dense_handle_at(d, pos);

		id = m->slot2id[dindex(d, h)];
		if (id >= m->n || !m->live[id] || m->h[id] != h ||
		    !tv_eq(p, m->key[id]))
			break;
		seen++;
	}
	kslot_dense_unlock(d, flags);
	KUNIT_ASSERT_EQ(test, seen, nlive);
	check_invariants(test, d);
}

/*
 * The test-point hook (kslot_slots_test_set_hook()): one case at a time
 * sets it, with the table it watches and what to do there.
 */
static struct {
	struct kslot_dense *d;
	enum kslot_slots_test_point point;
	void (*fn)(struct kslot_dense *d);
	unsigned int calls;
	bool busy;
} tp;

static void tp_hook(struct kslot_slots *s, enum kslot_slots_test_point point)
{
	if (!tp.d || s != &tp.d->slots || point != tp.point || tp.busy)
		return;
	tp.busy = true;
	tp.calls++;
	tp.fn(tp.d);
	tp.busy = false;
}

static void tp_clear(void)
{
	kslot_slots_test_set_hook(NULL);
	tp.d = NULL;
}

static void tp_clear_action(void *unused)
{
	tp_clear();
}

/* Set the hook for the case; cleared when the case ends, however. */
static void tp_set(struct kunit *test, struct kslot_dense *d,
		   enum kslot_slots_test_point point,
		   void (*fn)(struct kslot_dense *d))
{
	tp.d = d;
	tp.point = point;
	tp.fn = fn;
	tp.calls = 0;
	tp.busy = false;
	kslot_slots_test_set_hook(tp_hook);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, tp_clear_action, NULL),
			0);
}

/* The packed position a live handle's slot points at (test only). */
static u32 pos_of(struct kslot_dense *d, u64 h)
{
	return dlink(d, dindex(d, h));
}

/* Another insert grows the packed array while the first allocates. */
static struct grow_model *gr_m;
static int gr_ret;

static void gr_insert(struct kslot_dense *d)
{
	struct tval v = tv(gr_m->n);

	gr_ret = kslot_dense_insert(d, &gr_m->h[gr_m->n], &v, GFP_KERNEL);
	if (gr_ret)
		return;
	gr_m->key[gr_m->n] = gr_m->n;
	gr_m->slot2id[dindex(d, gr_m->h[gr_m->n])] = gr_m->n;
	gr_m->live[gr_m->n++] = true;
}

/*
 * Two growths at once: the second appends its chunk (and stores its
 * value there) while the first has its own allocated and the lock
 * dropped.  The first sees the array grew, frees its chunks and stores
 * its value in the second's: one chunk added, not two.  A growth that
 * appended without looking would add a chunk of positions no count
 * reaches, or overflow the directory the second replaced.
 */
static void kslot_dense_test_grow_race(struct kunit *test)
{
	struct grow_model m;
	struct kslot_slots_stats ss;
	struct kslot_dense_stats st;
	struct kslot_dense d;
	u32 i, first;

	dense_init(test, &d, 4 * TV_PER);
	grow_model_init(test, &m, 4 * TV_PER);
	for (i = 0; i < TV_PER; i++)
		grow_ins(test, &d, &m);
	KUNIT_ASSERT_EQ(test, d.room, TV_PER);
	gr_m = &m;
	gr_ret = -EINVAL;
	tp_set(test, &d, KSLOT_SLOTS_TP_DENSE_GROW, gr_insert);
	/* The model's next id goes to the hook's insert: this one is after. */
	m.key[m.n + 1] = m.n + 1;
	m.h[m.n + 1] = ins(test, &d, m.n + 1);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_ASSERT_EQ(test, gr_ret, 0);
	first = m.n++;
	m.slot2id[dindex(&d, m.h[first])] = first;
	m.live[first] = true;
	KUNIT_EXPECT_EQ(test, d.room, 2 * TV_PER);
	/* The hook's value first, in the chunk it added; then this one. */
	KUNIT_EXPECT_EQ(test, pos_of(&d, m.h[first - 1]), TV_PER);
	KUNIT_EXPECT_EQ(test, pos_of(&d, m.h[first]), TV_PER + 1);
	kslot_dense_stats(&d, &st);
	kslot_slots_stats(&d.slots, &ss);
	KUNIT_EXPECT_EQ(test, st.bytes, ss.bytes + tval_bytes(2 * TV_PER, 4 * TV_PER));
	grow_check(test, &d, &m);
	/* The rest of the chunk, then the next growth. */
	while (m.n < 3 * TV_PER)
		grow_ins(test, &d, &m);
	KUNIT_EXPECT_EQ(test, d.room, 3 * TV_PER);
	grow_check(test, &d, &m);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* kslot_dense_test_far's values: 2 KiB, the id first. */
#define FAR_SIZE	2048U

static struct {
	u64 h;
	u64 *buf;
	int ret[2];
} fg;

static void fg_lookup(struct kslot_dense *d)
{
	fg.ret[tp.calls - 1] = kslot_dense_lookup(d, fg.h, fg.buf);
}

/*
 * A table of 4096 chunks of 8 values of 2 KiB, whose two directories
 * would take 32 KiB and more, grows past their near parts with no
 * allocation above 32 KiB (order 3): the last chunks are far
 * (module/kslot_dir.c).  A lookup of a far value runs while each
 * directory appends the last far chunk, its count not yet released; the
 * lookups, the walk and an erase that moves a far value to a near
 * position reach the far chunks; the stats count the far parts, and
 * destroy frees what they counted.
 */
static void kslot_dense_test_far(struct kunit *test)
{
	const u32 per = rounddown_pow_of_two(4 * PAGE_SIZE / FAR_SIZE);
	const u32 chunks = 4096, max = chunks * per;
	struct bytes_acct ba = { .acct.queue = bytes_acct_queue };
	struct kslot_slots_stats ss;
	struct kslot_dense_stats st;
	struct kslot_dense d;
	unsigned long flags;
	u64 *h, *buf;
	u32 i, n = 0, pos;
	void *elem;

	KUNIT_ASSERT_GT(test, chunks, KSLOT_TEST_DIR_NEAR);
	h = kunit_kcalloc(test, max, sizeof(*h), GFP_KERNEL);
	buf = kunit_kzalloc(test, FAR_SIZE, GFP_KERNEL);
	fg.buf = kunit_kzalloc(test, FAR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, fg.buf);
	KUNIT_ASSERT_EQ(test, kslot_dense_init(&d, NULL, FAR_SIZE, max, 0), 0);
	kslot_slots_set_free_acct(&d.slots, &ba.acct);
	KUNIT_ASSERT_EQ(test, BIT(d.shift), per);
	kslot_slots_test_alloc_max();
	for (i = 0; i < max - per; i++) {
		*buf = i;
		KUNIT_ASSERT_EQ(test, kslot_dense_insert(&d, &h[i], buf,
							 GFP_KERNEL), 0);
	}
	fg.h = h[i - 1];
	fg.ret[0] = -EINVAL;
	fg.ret[1] = -EINVAL;
	tp_set(test, &d, KSLOT_SLOTS_TP_FAR, fg_lookup);
	for (; i < max; i++) {
		*buf = i;
		KUNIT_ASSERT_EQ(test, kslot_dense_insert(&d, &h[i], buf,
							 GFP_KERNEL), 0);
	}
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 2);
	KUNIT_EXPECT_EQ(test, fg.ret[0], 0);
	KUNIT_EXPECT_EQ(test, fg.ret[1], 0);
	KUNIT_EXPECT_EQ(test, *fg.buf, max - per - 1);
	KUNIT_EXPECT_LE(test, kslot_slots_test_alloc_max(), SZ_32K);
	for (i = 0; i < max; i++) {
		KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&d, h[i], buf), 0);
		KUNIT_ASSERT_EQ(test, *buf, i);
	}
	flags = kslot_dense_lock(&d);
	kslot_dense_for_each_locked(&d, pos, elem)
		n += *(u64 *)elem == pos;
	kslot_dense_unlock(&d, flags);
	KUNIT_EXPECT_EQ(test, n, max);
	/* Swap-and-pop: the last value, far, moves to position 0, near. */
	KUNIT_EXPECT_EQ(test, kslot_dense_erase(&d, h[0], buf), 0);
	KUNIT_EXPECT_EQ(test, *buf, 0);
	KUNIT_EXPECT_EQ(test, pos_of(&d, h[max - 1]), 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, h[max - 1], buf), 0);
	KUNIT_EXPECT_EQ(test, *buf, max - 1);
	kslot_dense_stats(&d, &st);
	kslot_slots_stats(&d.slots, &ss);
	KUNIT_EXPECT_EQ(test, st.room, max);
	KUNIT_EXPECT_EQ(test, st.bytes,
			ss.bytes + chunks * (chunk_bytes(per, FAR_SIZE) +
					     chunk_bytes(per, sizeof(u64))) +
			2 * kslot_test_dir_far_bytes(chunks, chunks));
	ba.bytes = 0;
	kslot_dense_destroy(&d, NULL, NULL);
	KUNIT_EXPECT_EQ(test, ba.bytes, st.bytes);
	rcu_barrier();
}

/* While a growth allocates: erase a value (swap-and-pop). */
static void ge_erase(struct kslot_dense *d)
{
	gr_ret = kslot_dense_erase(d, gr_m->h[5], NULL);
	if (!gr_ret)
		gr_m->live[5] = false;
}

/*
 * An erase while a growth has its chunks allocated and the lock dropped:
 * the last value moves into the hole, the count drops, and the growth,
 * which copies nothing, appends its chunk after the room (not after the
 * values) and the insert stores its value at the new count.  A growth
 * that derived its chunk's place from the count it found the array full
 * at would misplace the chunk.
 */
static void kslot_dense_test_grow_erase(struct kunit *test)
{
	struct grow_model m;
	struct kslot_slots_stats ss;
	struct kslot_dense_stats st;
	struct kslot_dense d;
	u32 i;

	dense_init(test, &d, 4 * TV_PER);
	grow_model_init(test, &m, 4 * TV_PER);
	for (i = 0; i < TV_PER; i++)
		grow_ins(test, &d, &m);
	gr_m = &m;
	gr_ret = -EINVAL;
	tp_set(test, &d, KSLOT_SLOTS_TP_DENSE_GROW, ge_erase);
	grow_ins(test, &d, &m);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_ASSERT_EQ(test, gr_ret, 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), TV_PER);
	KUNIT_EXPECT_EQ(test, d.room, 2 * TV_PER);
	/* The last value moved into the hole; the new one took the end. */
	KUNIT_EXPECT_EQ(test, pos_of(&d, m.h[TV_PER - 1]), 5);
	KUNIT_EXPECT_EQ(test, pos_of(&d, m.h[TV_PER]), TV_PER - 1);
	kslot_dense_stats(&d, &st);
	kslot_slots_stats(&d.slots, &ss);
	KUNIT_EXPECT_EQ(test, st.bytes, ss.bytes + tval_bytes(2 * TV_PER, 4 * TV_PER));
	grow_check(test, &d, &m);
	/* The new chunk fills from the old one's end on, then grows. */
	while (m.n < 2 * TV_PER + 2)
		grow_ins(test, &d, &m);
	KUNIT_EXPECT_EQ(test, d.room, 3 * TV_PER);
	KUNIT_EXPECT_EQ(test, pos_of(&d, m.h[2 * TV_PER + 1]), 2 * TV_PER);
	grow_check(test, &d, &m);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Between a lookup's slot read and its read of the array: destroy. */
static void gd_destroy(struct kslot_dense *d)
{
	kslot_dense_destroy(d, NULL, NULL);
}

/*
 * A lookup whose table is destroyed after its slot lookup found the value:
 * the directory is gone (NULL), so the entry is stale and the lookup says
 * -ENOENT.  Without the re-check of the directory pointer, the lookup reads
 * through NULL.
 */
static void kslot_dense_test_lookup_destroyed(struct kunit *test)
{
	struct kslot_dense d;
	struct tval v;
	u64 h;

	dense_init(test, &d, 16);
	h = ins(test, &d, 7);
	tp_set(test, &d, KSLOT_SLOTS_TP_DENSE_LOOKUP, gd_destroy);
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, h, &v), -ENOENT);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(d.vals));
	/* A lookup that starts now finds no slot, and touches nothing. */
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, h, &v), -ENOENT);
	/* The struct outlives the readers by a grace period; then free. */
	synchronize_rcu();
	rcu_barrier();
}

/*
 * After a reserve, inserts allocate nothing: with the first kslot
 * allocation of each insert set to fail, none fails.  That says something
 * only if the failure is injected where an insert does allocate: the
 * first insert, into an empty table, shows it is.
 */
static void kslot_dense_test_reserve(struct kunit *test)
{
	struct kslot_dense d;
	bool injected;
	u32 i;
	u64 h;
	int ret;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	dense_init(test, &d, 100);
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_dense_insert(&d, &h, NULL,
							  GFP_KERNEL));
	KUNIT_ASSERT_TRUE(test, injected);
	KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	KUNIT_EXPECT_EQ(test, d.room, 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_reserve(&d, 0, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_reserve(&d, 101, GFP_KERNEL),
			-ENOSPC);
	KUNIT_ASSERT_EQ(test, kslot_dense_reserve(&d, 40, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 100);
	/* A chunk of the packed array: TV_PER positions, up to max_entries. */
	KUNIT_EXPECT_EQ(test, d.room, 100);
	/* The reserved room is used without any allocation. */
	for (i = 0; i < 40; i++) {
		ret = kslot_test_with_fail_nth(1, &injected,
					       kslot_dense_insert(&d, &h, NULL,
								  GFP_KERNEL));
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_ASSERT_FALSE(test, injected);
	}
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 100);
	KUNIT_EXPECT_EQ(test, d.room, 100);
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_enospc(struct kunit *test)
{
	const u32 max = 20;
	struct kslot_dense d;
	u64 h, first = 0;
	u32 i;

	dense_init(test, &d, max);
	for (i = 0; i < max; i++) {
		h = ins(test, &d, i);
		if (!i)
			first = h;
	}
	KUNIT_EXPECT_EQ(test, d.slots.capacity, max);
	KUNIT_EXPECT_EQ(test, kslot_dense_insert(&d, &h, NULL, GFP_KERNEL),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), max);
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, first, NULL), 0);
	h = ins(test, &d, 77);
	KUNIT_EXPECT_EQ(test, dindex(&d, h), 0);
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_dense_test_retire(struct kunit *test)
{
	struct kslot_dense_stats st;
	struct kslot_dense d;
	u64 h, h2, hn[15];

	dense_init(test, &d, 16);
	h = ins(test, &d, 1);
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h, NULL), 0);
	/* Age the free slot 0 to its last generation (51 bits). */
	KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&d.slots, 0,
						       BIT_ULL(51) - 2), 0);
	h = ins(test, &d, 2);
	KUNIT_EXPECT_EQ(test, dindex(&d, h), 0);
	KUNIT_EXPECT_EQ(test, dhgen(&d, h), BIT_ULL(51) - 1);
	KUNIT_EXPECT_TRUE(test, kslot_dense_contains(&d, h));
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h, NULL), 0);
	KUNIT_EXPECT_EQ(test, dlink(&d, 0), KSLOT_SLOTS_RETIRED);
	KUNIT_EXPECT_EQ(test, d.slots.free_head, 1);
	kslot_dense_stats(&d, &st);
	KUNIT_EXPECT_EQ(test, st.retired, 1);
	check_invariants(test, &d);
	/* Slot 0 is never handed out again, and old handles stay dead. */
	h2 = ins(test, &d, 3);
	KUNIT_EXPECT_EQ(test, dindex(&d, h2), 1);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, h));
	h2 = kslot_slots_handle_make(&d.slots, 0, 1);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, h2));
	/* A retired slot counts against max_entries: 15 more fit, not 16. */
	KUNIT_EXPECT_EQ(test, kslot_dense_insert_n(&d, hn, NULL, 15,
						   GFP_KERNEL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, kslot_dense_insert_n(&d, hn, NULL, 14,
						   GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 15);
	kslot_dense_clear(&d);
	KUNIT_EXPECT_EQ(test, d.slots.retired, 1);
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

/*
 * Restore: a table recreated slot by slot from another's dump (with its
 * tag) answers every live handle with its value and every stale one with
 * -ENOENT; bad calls fail with their errno and change nothing.
 */
static void kslot_dense_test_restore(struct kunit *test)
{
	struct kslot_slots_dump_slot *ds;
	struct kslot_slots_dump dump = {};
	struct kslot_dense a, b;
	u64 h[6], stale, h2;
	struct tval v;
	u32 i;

	ds = kunit_kcalloc(test, 16, sizeof(*ds), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ds);
	dump.slots = ds;
	dense_init(test, &a, 16);
	for (i = 0; i < 6; i++)
		h[i] = ins(test, &a, i);
	stale = h[1];
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&a, h[1], NULL), 0);
	h[1] = ins(test, &a, 11);
	KUNIT_ASSERT_EQ(test, dindex(&a, h[1]), 1);
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&a, h[3], NULL), 0);
	/* Slot 4 retires: 16 entries leave 51 generation bits. */
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&a, h[4], NULL), 0);
	KUNIT_ASSERT_EQ(test, kslot_slots_test_set_gen(&a.slots, 4,
						       BIT_ULL(51) - 2), 0);
	h[4] = ins(test, &a, 4);
	KUNIT_ASSERT_EQ(test, dhgen(&a, h[4]), BIT_ULL(51) - 1);
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&a, h[4], NULL), 0);
	KUNIT_ASSERT_EQ(test, a.slots.retired, 1);
	kslot_slots_dump(&a.slots, 0, 16, &dump);
	KUNIT_ASSERT_EQ(test, dump.returned, 16);

	KUNIT_EXPECT_EQ(test, kslot_dense_init_tag(&b, NULL, sizeof(v), 16, 0,
						   KSLOT_TAG_MASK + 1),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_dense_init_tag(&b, NULL, sizeof(v), 16, 0,
						   kslot_slots_tag(&a.slots)),
			0);
	v = tv(99);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_slot(&b, 16, 1, &v,
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_slot(&b, 2, 2, &v,
						       GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_retired(&b, 16, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&b), 0);
	for (i = 0; i < dump.returned; i++) {
		if (ds[i].next == KSLOT_SLOTS_RETIRED) {
			KUNIT_ASSERT_EQ(test,
					kslot_dense_restore_retired(&b, i,
								    GFP_KERNEL),
					0);
		} else if (kslot_gen_is_live(ds[i].gen)) {
			KUNIT_ASSERT_EQ(test,
					kslot_dense_lookup(&a, h[i], &v), 0);
			KUNIT_ASSERT_EQ(test,
					kslot_dense_restore_slot(&b, i,
								 ds[i].gen, &v,
								 GFP_KERNEL),
					0);
		} else if (ds[i].gen) {
			KUNIT_ASSERT_EQ(test,
					kslot_dense_restore_slot(&b, i,
								 ds[i].gen,
								 NULL,
								 GFP_KERNEL),
					0);
		}
	}
	/* Each slot once; no insert until the free list is rebuilt. */
	v = tv(99);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_slot(&b, 0, 3, &v,
						       GFP_KERNEL), -EEXIST);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_slot(&b, 3, 4, NULL,
						       GFP_KERNEL), -EEXIST);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_retired(&b, 4, GFP_KERNEL),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, kslot_dense_insert(&b, &h2, &v, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&b), kslot_dense_count(&a));
	/* What is restored so far answers lookups already. */
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&b, h[0], &v), 0);
	KUNIT_EXPECT_TRUE(test, tv_eq(&v, 0));
	kslot_dense_restore_done(&b);
	/* Live handles find their values, stale ones nothing. */
	for (i = 0; i < 6; i++) {
		if (i == 3 || i == 4) {
			KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&b, h[i], &v),
					-ENOENT);
			continue;
		}
		KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&b, h[i], &v), 0);
		KUNIT_EXPECT_TRUE(test, tv_eq(&v, i == 1 ? 11 : i));
	}
	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&b, stale, &v), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&b), 4);
	KUNIT_EXPECT_EQ(test, b.slots.retired, 1);
	check_invariants(test, &b);
	/* The free list, lowest first: slot 3 at its next generation, then 6. */
	h2 = ins(test, &b, 20);
	KUNIT_EXPECT_EQ(test, h2, kslot_slots_handle_make(&b.slots, 3, 3));
	h2 = ins(test, &b, 21);
	KUNIT_EXPECT_EQ(test, h2, kslot_slots_handle_make(&b.slots, 6, 1));
	/* Not restoring any more, and holding values. */
	v = tv(99);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_slot(&b, 7, 1, &v,
						       GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_EQ(test, kslot_dense_restore_retired(&b, 7, GFP_KERNEL),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&b), 6);
	check_invariants(test, &b);
	kslot_dense_destroy(&a, NULL, NULL);
	kslot_dense_destroy(&b, NULL, NULL);
}

static void kslot_dense_test_forged(struct kunit *test)
{
	struct kslot_dense d, other;
	struct tval v;
	u64 h, oh;

	dense_init(test, &d, 100);
	dense_init(test, &other, 100);
	other.slots.tag = d.slots.tag ^ 1;
	h = ins(test, &d, 1);
	oh = ins(test, &other, 2);
	KUNIT_EXPECT_EQ(test, dindex(&d, h), dindex(&other, oh));
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, oh));
	KUNIT_EXPECT_EQ(test, kslot_dense_erase(&other, h, NULL), -ENOENT);
	/* Beyond capacity, beyond max_entries, even and newer generations. */
	oh = kslot_slots_handle_make(&d.slots, 16, 1);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, oh));
	oh = kslot_slots_handle_make(&d.slots, d.slots.index_mask, 1);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, oh));
	oh = h + kslot_test_gens(&d.slots, 1);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, oh));
	oh = h + kslot_test_gens(&d.slots, 2);
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, oh));
	/* A free slot in range. */
	KUNIT_EXPECT_EQ(test,
			kslot_dense_lookup(&d,
					   kslot_slots_handle_make(&d.slots,
								   1, 1), &v),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, rejected(&d), 6);
	/* The null handle is refused without being counted. */
	d.slots.tag = 0;
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, KSLOT_HANDLE_NULL));
	KUNIT_EXPECT_EQ(test, rejected(&d), 6);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 1);
	kslot_dense_destroy(&d, NULL, NULL);
	kslot_dense_destroy(&other, NULL, NULL);
}

struct destroyed {
	struct kslot_dense *d;
	u64 sum;
};

static void sum_destroyed(void *elem, u64 handle, void *data)
{
	struct destroyed *ds = data;
	struct tval *v = elem;

	ds->sum += v->id + (dhgen(ds->d, handle) << 16);
}

static void kslot_dense_test_destroy(struct kunit *test)
{
	struct kslot_dense d;
	struct destroyed ds = { .d = &d };
	u64 h;

	dense_init(test, &d, 16);
	ins(test, &d, 1);
	h = ins(test, &d, 2);
	ins(test, &d, 4);
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h, NULL), 0);
	kslot_dense_destroy(&d, sum_destroyed, &ds);
	KUNIT_EXPECT_EQ(test, ds.sum, 5 + (2 << 16));
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(d.vals));
}

/* A KSLOT_DENSE_LOCK_IRQ table works with interrupts off, growth included. */
static void kslot_dense_test_irq_context(struct kunit *test)
{
	const u32 n = 100;
	struct kslot_dense d;
	unsigned long flags;
	u32 i, fails = 0;
	struct tval v;
	u64 *h;

	h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_ASSERT_EQ(test, kslot_dense_init(&d, NULL, sizeof(v), 1000,
					       KSLOT_DENSE_LOCK_IRQ), 0);
	flags = kslot_test_irq_enter();
	for (i = 0; i < n; i++) {
		v = tv(i);
		fails += !!kslot_dense_insert(&d, &h[i], &v, GFP_ATOMIC);
	}
	for (i = 0; i < n; i += 2)
		fails += !!kslot_dense_erase(&d, h[i], NULL);
	kslot_test_irq_exit(flags);
	KUNIT_EXPECT_EQ(test, fails, 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), n / 2);
	KUNIT_EXPECT_EQ(test, d.slots.capacity, 256);
	KUNIT_EXPECT_EQ(test, d.room, TV_PER);
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Randomised operations against a plain array model. */
struct dense_model {
	u64 *h;
	u64 *id;
	u32 n;
};

static u32 model_find(struct dense_model *m, u64 h)
{
	u32 i;

	for (i = 0; i < m->n; i++)
		if (m->h[i] == h)
			return i;
	return U32_MAX;
}

static void model_drop(struct dense_model *m, u32 k)
{
	m->n--;
	m->h[k] = m->h[m->n];
	m->id[k] = m->id[m->n];
}

static bool keep_not_3_mod_7(u64 handle, void *elem, void *arg)
{
	return ((struct tval *)elem)->id % 7 != 3;
}

static void kslot_dense_test_random(struct kunit *test)
{
	const u32 max = 2000, ops = 100000, nstale = 256;
	u64 next_id = 1, *stale, hb[8];
	u32 i, stale_n = 0, k, j;
	struct dense_model m = {};
	struct tval v, vb[8];
	struct rnd_state rnd;
	struct kslot_dense d;
	int ret;

	m.h = kunit_kcalloc(test, max, sizeof(u64), GFP_KERNEL);
	m.id = kunit_kcalloc(test, max, sizeof(u64), GFP_KERNEL);
	stale = kunit_kcalloc(test, nstale, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.h);
	KUNIT_ASSERT_NOT_NULL(test, m.id);
	KUNIT_ASSERT_NOT_NULL(test, stale);
	prandom_seed_state(&rnd, 0x64656e7365ULL);
	dense_init(test, &d, max);

	for (i = 0; i < ops; i++) {
		u32 op = prandom_u32_state(&rnd) % 1000;

		if (op < 380) {
			v = tv(next_id);
			ret = kslot_dense_insert(&d, &hb[0], &v, GFP_KERNEL);
			if (m.n == max) {
				KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
				continue;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			m.h[m.n] = hb[0];
			m.id[m.n++] = next_id++;
		} else if (op < 420) {
			u32 n = 1 + prandom_u32_state(&rnd) % 8;

			for (j = 0; j < n; j++)
				vb[j] = tv(next_id + j);
			ret = kslot_dense_insert_n(&d, hb, vb, n, GFP_KERNEL);
			if (m.n + n > max) {
				KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
				continue;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			for (j = 0; j < n; j++) {
				m.h[m.n] = hb[j];
				m.id[m.n++] = next_id++;
			}
		} else if (op < 680 && m.n) {
			k = prandom_u32_state(&rnd) % m.n;
			KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, m.h[k], &v),
					0);
			KUNIT_ASSERT_TRUE(test, tv_eq(&v, m.id[k]));
			stale[stale_n++ % nstale] = m.h[k];
			model_drop(&m, k);
		} else if (op < 720 && m.n) {
			u32 n = 1 + prandom_u32_state(&rnd) % 8, erased = 0;

			for (j = 0; j < n; j++) {
				/* Some stale handles, never erased again. */
				if (!m.n || prandom_u32_state(&rnd) % 4 == 0) {
					hb[j] = stale_n ? stale[j % min(stale_n,
									nstale)] :
						  KSLOT_HANDLE_NULL;
					continue;
				}
				hb[j] = m.h[prandom_u32_state(&rnd) % m.n];
				k = model_find(&m, hb[j]);
				stale[stale_n++ % nstale] = hb[j];
				model_drop(&m, k);
				erased++;
			}
			KUNIT_ASSERT_EQ(test, kslot_dense_erase_n(&d, hb, n),
					erased);
		} else if (op < 870 && m.n) {
			k = prandom_u32_state(&rnd) % m.n;
			KUNIT_ASSERT_EQ(test,
					kslot_dense_lookup(&d, m.h[k], &v), 0);
			KUNIT_ASSERT_TRUE(test, tv_eq(&v, m.id[k]));
		} else if (op < 920 && m.n) {
			k = prandom_u32_state(&rnd) % m.n;
			v = tv(next_id);
			KUNIT_ASSERT_EQ(test, kslot_dense_update(&d, m.h[k], &v),
					0);
			m.id[k] = next_id++;
		} else if (op < 998 && stale_n) {
			k = prandom_u32_state(&rnd) % min(stale_n, nstale);
			KUNIT_ASSERT_FALSE(test,
					   kslot_dense_contains(&d, stale[k]));
			KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, stale[k],
								NULL),
					-ENOENT);
		} else if (op < 999) {
			u32 removed = 0;

			for (k = 0; k < m.n;) {
				if (m.id[k] % 7 != 3) {
					k++;
					continue;
				}
				stale[stale_n++ % nstale] = m.h[k];
				model_drop(&m, k);
				removed++;
			}
			KUNIT_ASSERT_EQ(test,
					kslot_dense_retain(&d, keep_not_3_mod_7,
							   NULL), removed);
		} else if (i % 5 == 0) {
			kslot_dense_clear(&d);
			for (k = 0; k < m.n; k++)
				stale[stale_n++ % nstale] = m.h[k];
			m.n = 0;
		}
		KUNIT_ASSERT_EQ(test, kslot_dense_count(&d), m.n);
		if (i % 1000 == 0)
			check_invariants(test, &d);
	}
	check_invariants(test, &d);
	for (k = 0; k < m.n; k++) {
		KUNIT_ASSERT_EQ(test, kslot_dense_lookup(&d, m.h[k], &v), 0);
		KUNIT_ASSERT_TRUE(test, tv_eq(&v, m.id[k]));
	}
	kunit_info(test, "%u live, capacity %u, %llu ids\n", m.n, d.slots.capacity,
		   next_id - 1);
	kslot_dense_destroy(&d, NULL, NULL);
}

/* Two threads grow the same table at once; each must find its values. */
struct grow_ctx {
	struct kslot_dense d;
	u64 h[2][3000];
	int err[2];
	struct completion start;
	struct completion done[2];
};

struct grow_arg {
	struct grow_ctx *ctx;
	int id;
};

static int grow_thread(void *p)
{
	struct grow_arg *arg = p;
	struct grow_ctx *ctx = arg->ctx;
	u32 i;

	wait_for_completion(&ctx->start);
	for (i = 0; i < ARRAY_SIZE(ctx->h[0]) && !ctx->err[arg->id]; i++) {
		struct tval v = tv(arg->id * 100000 + i);

		ctx->err[arg->id] = kslot_dense_insert(&ctx->d,
						       &ctx->h[arg->id][i],
						       &v, GFP_KERNEL);
		if (i % 64 == 0)
			cond_resched();
	}
	complete(&ctx->done[arg->id]);
	return 0;
}

static void kslot_dense_test_concurrent_growth(struct kunit *test)
{
	struct grow_arg args[2];
	struct task_struct *t[2];
	struct grow_ctx *ctx;
	struct tval v;
	int i, j;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	init_completion(&ctx->start);
	dense_init(test, &ctx->d, 6000);
	for (i = 0; i < 2; i++) {
		init_completion(&ctx->done[i]);
		args[i].ctx = ctx;
		args[i].id = i;
		t[i] = kthread_create(grow_thread, &args[i], "kslot_grow/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		get_task_struct(t[i]);
		wake_up_process(t[i]);
	}
	complete_all(&ctx->start);
	for (i = 0; i < 2; i++) {
		wait_for_completion(&ctx->done[i]);
		kthread_stop(t[i]);
		put_task_struct(t[i]);
	}
	KUNIT_EXPECT_EQ(test, ctx->err[0], 0);
	KUNIT_EXPECT_EQ(test, ctx->err[1], 0);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&ctx->d), 6000);
	for (i = 0; i < 2; i++)
		for (j = 0; j < ARRAY_SIZE(ctx->h[0]); j++) {
			KUNIT_ASSERT_EQ(test,
					kslot_dense_lookup(&ctx->d,
							   ctx->h[i][j], &v),
					0);
			KUNIT_ASSERT_TRUE(test, tv_eq(&v, i * 100000 + j));
		}
	check_invariants(test, &ctx->d);
	kslot_dense_destroy(&ctx->d, NULL, NULL);
}

/*
 * Lock-free lookups racing an eraser and inserter on another CPU.  Each
 * record holds its own handle (tv(handle)), stamped by an update after
 * the insert (zeroed until then), so a lookup that returned a record
 * swap-and-pop moved into its place, a record of the previous occupant,
 * or a mix of two, is caught: every successful lookup must return exactly
 * tv(handle) or the zeroed record the handle was inserted with.  The
 * writer grows the live set round after round (the packed array and the
 * slots grow under the readers) and erases at random (values move).
 */
#define RACE_RING	2048

struct race_ctx {
	struct kslot_dense d;
	u64 ring[RACE_RING];
	atomic_t stop;
	atomic_long_t lookups, hits, wrong, bad_err;
	int err;
};

static int race_writer(void *arg)
{
	struct race_ctx *ctx = arg;
	u32 live = 0, target = 64, i;
	struct rnd_state rnd;
	struct tval v;
	u64 h;

	prandom_seed_state(&rnd, 7);
	while (!atomic_read(&ctx->stop) && !ctx->err) {
		/* Fill up to the target: the table grows under the readers. */
		for (i = 0; live < target && !ctx->err; i++) {
			u32 k = prandom_u32_state(&rnd) % RACE_RING;

			if (kslot_dense_contains(&ctx->d, ctx->ring[k]))
				continue;
			ctx->err = kslot_dense_insert(&ctx->d, &h, NULL,
						      GFP_KERNEL);
			if (ctx->err)
				break;
			v = tv(h);
			ctx->err = kslot_dense_update(&ctx->d, h, &v);
			WRITE_ONCE(ctx->ring[k], h);
			live++;
		}
		/* Erase three quarters at random: values move. */
		while (live > target / 4 && !ctx->err) {
			u32 k = prandom_u32_state(&rnd) % RACE_RING;

			if (!kslot_dense_erase(&ctx->d, ctx->ring[k], NULL))
				live--;
		}
		target = target >= RACE_RING / 2 ? 64 : target * 2;
		cond_resched();
	}
	return 0;
}

static int race_reader(void *arg)
{
	struct race_ctx *ctx = arg;
	struct rnd_state rnd;
	struct tval v, zero = {};

	prandom_seed_state(&rnd, 11 + smp_processor_id());
	while (!atomic_read(&ctx->stop)) {
		u64 h = READ_ONCE(ctx->ring[prandom_u32_state(&rnd) %
					    RACE_RING]);
		int ret;

		if (!h)
			continue;
		ret = kslot_dense_lookup(&ctx->d, h, &v);
		atomic_long_inc(&ctx->lookups);
		if (!ret) {
			atomic_long_inc(&ctx->hits);
			if (!tv_eq(&v, h) && memcmp(&v, &zero, sizeof(v)))
				atomic_long_inc(&ctx->wrong);
		} else if (ret != -ENOENT) {
			atomic_long_inc(&ctx->bad_err);
		}
		if (atomic_long_read(&ctx->lookups) % 256 == 0)
			cond_resched();
	}
	return 0;
}

static void kslot_dense_test_racing_lookup(struct kunit *test)
{
	struct race_ctx *ctx;
	u32 pos;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	dense_init(test, &ctx->d, 4 * RACE_RING);
	kslot_test_run_threads(test, race_writer, race_reader, 1, ctx,
			       &ctx->stop, 2000);
	kunit_info(test, "%ld lookups, %ld hits\n",
		   atomic_long_read(&ctx->lookups),
		   atomic_long_read(&ctx->hits));
	KUNIT_EXPECT_EQ(test, ctx->err, 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ctx->bad_err), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&ctx->hits), 0);
	/* Every value left is stamped with its own handle. */
	for (pos = 0; pos < kslot_dense_count(&ctx->d); pos++)
		KUNIT_ASSERT_TRUE(test, tv_eq(dval(&ctx->d, pos),
					      drev(&ctx->d, pos)));
	check_invariants(test, &ctx->d);
	kslot_dense_destroy(&ctx->d, NULL, NULL);
}

/* The table's visible state, to compare before and after a failure. */
static void check_unchanged(struct kunit *test, struct kslot_dense *d,
			    u32 count, u32 room, const u64 *h)
{
	struct tval v;
	u32 i;

	KUNIT_ASSERT_EQ(test, kslot_dense_count(d), count);
	KUNIT_ASSERT_EQ(test, d->room, room);
	for (i = 0; i < count; i++) {
		KUNIT_ASSERT_EQ(test, kslot_dense_lookup(d, h[i], &v), 0);
		KUNIT_ASSERT_TRUE(test, tv_eq(&v, i));
	}
	if (d->slots.capacity)
		check_invariants(test, d);
}

/*
 * Allocation failure: fail each allocation of each growth in turn; every
 * failure must give -ENOMEM and change nothing: no value stored, no
 * chunk or directory added, the memory as it was.
 */
static void kslot_dense_test_fault(struct kunit *test)
{
	const u32 max = 9 * TV_PER + 16;
	struct kslot_dense_stats st, st0;
	struct kslot_dense d;
	u32 n, faults, i, grown;
	struct tval v;
	bool injected;
	void *dir;
	u64 *h;
	int ret;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	h = kunit_kcalloc(test, max, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	dense_init(test, &d, max);

	/*
	 * First insert: the packed array's two chunks and two directories,
	 * then the slots' chunk and directory.  A failure of the slots' chunk
	 * leaves the packed array's room behind, so the next try makes the
	 * slots' allocations first: five faults.
	 */
	v = tv(0);
	for (n = 1, faults = 0;; n++) {
		ret = kslot_test_with_fail_nth(n, &injected,
					       kslot_dense_insert(&d, &h[0], &v,
								  GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
		KUNIT_ASSERT_EQ(test, kslot_dense_count(&d), 0);
		KUNIT_ASSERT_EQ(test, d.slots.count, 0);
		KUNIT_ASSERT_EQ(test, d.slots.capacity, 0);
		if (n <= 4) {
			kslot_dense_stats(&d, &st);
			KUNIT_ASSERT_EQ(test, d.room, 0);
			KUNIT_ASSERT_NULL(test, rcu_access_pointer(d.vals));
			KUNIT_ASSERT_NULL(test, rcu_access_pointer(d.rev));
			KUNIT_ASSERT_EQ(test, st.bytes, 0);
		}
		faults++;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, faults, 5);
	KUNIT_EXPECT_EQ(test, dindex(&d, h[0]), 0);
	KUNIT_EXPECT_EQ(test, dhgen(&d, h[0]), 1);
	KUNIT_EXPECT_EQ(test, d.room, TV_PER);
	for (i = 1; i < TV_PER; i++)
		h[i] = ins(test, &d, i);
	/* Every slot now: only the packed array grows below. */
	KUNIT_ASSERT_EQ(test, kslot_slots_reserve(&d.slots, max - TV_PER,
						  GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, d.slots.capacity, max);

	/*
	 * Each growth: up to 8 chunks fits in the first directories (room
	 * for eight: two allocations), 8 -> 9 replaces both (four), 9 -> 10
	 * (a short chunk) fits in them (two).
	 */
	for (grown = 1; grown <= 9; grown++) {
		u32 cnt = grown * TV_PER;

		v = tv(cnt);
		kslot_dense_stats(&d, &st0);
		dir = rcu_access_pointer(d.vals);
		for (n = 1, faults = 0;; n++) {
			ret = kslot_test_with_fail_nth(n, &injected,
						       kslot_dense_insert(&d, &h[cnt],
									  &v,
									  GFP_KERNEL));
			if (!injected)
				break;
			KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
			check_unchanged(test, &d, cnt, cnt, h);
			kslot_dense_stats(&d, &st);
			KUNIT_ASSERT_EQ(test, st.bytes, st0.bytes);
			KUNIT_ASSERT_EQ(test, st.vals_grow_bytes,
					st0.vals_grow_bytes);
			KUNIT_ASSERT_PTR_EQ(test,
					    (void *)rcu_access_pointer(d.vals),
					    dir);
			faults++;
		}
		KUNIT_ASSERT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, faults, grown == 8 ? 4 : 2);
		check_unchanged(test, &d, cnt + 1, min(cnt + TV_PER, max), h);
		for (i = cnt + 1; i < min(cnt + TV_PER, max); i++)
			h[i] = ins(test, &d, i);
	}
	check_unchanged(test, &d, max, max, h);

	/* A slot from the free list and room in the array: no allocation. */
	KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h[max - 1], NULL), 0);
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_dense_insert(&d, &h[max - 1], NULL,
							  GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, injected);
	kslot_dense_destroy(&d, NULL, NULL);
}

/*
 * Gets from a softirq and a hardirq of this CPU, as a driver's handlers
 * would make them: a tasklet run by the local_bh_enable() that follows
 * its scheduling, and a hard irq_work (a self-IPI).
 */
static struct {
	struct kslot_dense *d;
	u64 h;
	struct tval v;
	int ret;
	u32 many;
	bool ran;
	/* In a write section: the guard against a lookup that never returns. */
	bool guard;
	bool rescued;
	struct tasklet_struct tasklet;
	struct irq_work work;
	struct hrtimer rescue;
} ic;

/*
 * A lookup spinning on the write section it interrupted: make the sequence
 * count even, so that it returns and the case fails instead of hanging
 * the machine (ic_get() puts the count back).
 */
static enum hrtimer_restart ic_rescue(struct hrtimer *t)
{
	ic.rescued = true;
	ic.d->seq.seqcount.sequence++;
	return HRTIMER_NORESTART;
}

static void ic_get(void)
{
	if (ic.guard)
		hrtimer_start(&ic.rescue, ms_to_ktime(1000),
			      HRTIMER_MODE_REL_HARD);
	ic.ret = kslot_dense_lookup(ic.d, ic.h, &ic.v);
	if (ic.guard) {
		hrtimer_cancel(&ic.rescue);
		if (ic.rescued)
			ic.d->seq.seqcount.sequence--;
	} else {
		ic.many = kslot_dense_lookup_many(ic.d, &ic.h, 1, &ic.v);
	}
	WRITE_ONCE(ic.ran, true);
}

static void ic_tasklet(struct tasklet_struct *t)
{
	ic_get();
}

static void ic_irq_work(struct irq_work *w)
{
	ic_get();
}

static void ic_setup(struct kunit *test)
{
	memset(&ic, 0, sizeof(ic));
	tasklet_setup(&ic.tasklet, ic_tasklet);
	ic.work = IRQ_WORK_INIT_HARD(ic_irq_work);
	hrtimer_init(&ic.rescue, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	ic.rescue.function = ic_rescue;
}

/* Get ic.h in a softirq of this CPU; false if it did not run here. */
static bool ic_in_softirq(void)
{
	WRITE_ONCE(ic.ran, false);
	local_bh_disable();
	tasklet_schedule(&ic.tasklet);
	local_bh_enable();
	return READ_ONCE(ic.ran);
}

/* Get ic.h in a hardirq of this CPU; false if it did not run in 2 s. */
static bool ic_in_hardirq(void)
{
	u32 us;

	WRITE_ONCE(ic.ran, false);
	irq_work_queue(&ic.work);
	for (us = 0; us < 2000000 && !READ_ONCE(ic.ran); us++)
		udelay(1);
	return READ_ONCE(ic.ran);
}

/*
 * Where a lookup may run: a lookup waits for a writer inside its write
 * section, so it runs only in the contexts the table's lock flags shut
 * out of the writers, and says -EDEADLK in the others (lookup_many copies
 * nothing), whether or not a writer is there.  A task runs it with
 * bottom halves or interrupts off too, but on PREEMPT_RT only a
 * preemptible one.
 */
static void kslot_dense_test_lookup_context(struct kunit *test)
{
	static const struct {
		unsigned int flags;
		int softirq;
		int hardirq;
	} want[] = {
		{ 0, -EDEADLK, -EDEADLK },
		{ KSLOT_DENSE_LOCK_BH, 0, -EDEADLK },
		/* RT: true hardirq context is never a reader's. */
		{ KSLOT_DENSE_LOCK_IRQ, 0,
		  IS_ENABLED(CONFIG_PREEMPT_RT) ? -EDEADLK : 0 },
	};
	int atomic_task = IS_ENABLED(CONFIG_PREEMPT_RT) ? -EDEADLK : 0;
	unsigned long flags;
	struct kslot_dense d;
	struct tval v;
	u32 i;

	ic_setup(test);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		KUNIT_ASSERT_EQ(test, kslot_dense_init(&d, NULL, sizeof(v), 16,
						       want[i].flags), 0);
		ic.d = &d;
		ic.h = ins(test, &d, 7);
		ic.ret = 1;
		memset(&ic.v, 0, sizeof(ic.v));
		KUNIT_ASSERT_TRUE(test, ic_in_softirq());
		KUNIT_EXPECT_EQ_MSG(test, ic.ret, want[i].softirq,
				    "flags %#x", want[i].flags);
		KUNIT_EXPECT_EQ(test, ic.many, want[i].softirq ? 0 : 1);
		KUNIT_EXPECT_TRUE(test, want[i].softirq ? !ic.v.id :
				  tv_eq(&ic.v, 7));
		ic.ret = 1;
		memset(&ic.v, 0, sizeof(ic.v));
		KUNIT_ASSERT_TRUE(test, ic_in_hardirq());
		KUNIT_EXPECT_EQ_MSG(test, ic.ret, want[i].hardirq,
				    "flags %#x", want[i].flags);
		KUNIT_EXPECT_EQ(test, ic.many, want[i].hardirq ? 0 : 1);
		KUNIT_EXPECT_TRUE(test, want[i].hardirq ? !ic.v.id :
				  tv_eq(&ic.v, 7));
		local_bh_disable();
		KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, ic.h, &v), 0);
		local_bh_enable();
		/* RT: a reader may take the sleeping lock; not atomic tasks. */
		preempt_disable();
		KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, ic.h, &v),
				atomic_task);
		preempt_enable();
		local_irq_save(flags);
		KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, ic.h, &v),
				atomic_task);
		local_irq_restore(flags);
		KUNIT_EXPECT_TRUE(test, tv_eq(&v, 7));
		kslot_dense_destroy(&d, NULL, NULL);
	}
	tasklet_kill(&ic.tasklet);
}

/* What retain's callback saw and did, inside the write section. */
static struct {
	bool seq_odd;
	bool softirq_ran;
	int softirq_ret;
	bool hardirq_ran;
	int hardirq_ret;
} ws;

/*
 * At the value ic.h, with the lock held and the sequence count odd: a
 * softirq (unless bottom halves are off, as with %KSLOT_DENSE_LOCK_BH),
 * then a hardirq, looks that value up on this CPU.
 */
static bool ws_keep(u64 handle, void *elem, void *arg)
{
	if (handle != ic.h)
		return true;
	ws.seq_odd = ic.d->seq.seqcount.sequence & 1;
	ic.guard = true;
	/*
	 * On PREEMPT_RT softirqs run in task context under a lock lockdep
	 * orders before the table's: none runs inside a writer.
	 */
	if (!in_softirq() && !IS_ENABLED(CONFIG_PREEMPT_RT)) {
		ws.softirq_ran = ic_in_softirq();
		ws.softirq_ret = ic.ret;
	}
	ic.guard = false;
	/* A rescued lookup would spin in the hardirq: nothing stops it. */
	if (!ic.rescued) {
		ws.hardirq_ran = ic_in_hardirq();
		ws.hardirq_ret = ic.ret;
	}
	return true;
}

/*
 * The deadlock the rules prevent: a writer of a table without a lock
 * flag (here inside kslot_dense_retain(), whose callback runs in the
 * write section) interrupted on its CPU by a softirq, then a hardirq,
 * that looks a value of the table up.  Waiting for the writer would spin
 * forever; the lookups return -EDEADLK at once.  A table with
 * %KSLOT_DENSE_LOCK_BH: the hardirq.
 */
static void kslot_dense_test_lookup_interrupts_writer(struct kunit *test)
{
	static const unsigned int flags[] = { 0, KSLOT_DENSE_LOCK_BH };
	struct kslot_dense d;
	u32 i, n;

	ic_setup(test);
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		KUNIT_ASSERT_EQ(test, kslot_dense_init(&d, NULL,
						       sizeof(struct tval), 16,
						       flags[i]), 0);
		ic.d = &d;
		for (n = 0; n < 3; n++)
			ic.h = ins(test, &d, n);
		memset(&ws, 0, sizeof(ws));
		ws.softirq_ret = 1;
		ws.hardirq_ret = 1;
		KUNIT_EXPECT_EQ(test, kslot_dense_retain(&d, ws_keep, NULL), 0);
		KUNIT_ASSERT_TRUE(test, ws.seq_odd);
		KUNIT_ASSERT_FALSE_MSG(test, ic.rescued,
				       "a softirq lookup spun on the writer it interrupted");
		if (!flags[i] && !IS_ENABLED(CONFIG_PREEMPT_RT)) {
			KUNIT_EXPECT_TRUE(test, ws.softirq_ran);
			KUNIT_EXPECT_EQ(test, ws.softirq_ret, -EDEADLK);
		}
		KUNIT_EXPECT_TRUE(test, ws.hardirq_ran);
		KUNIT_EXPECT_EQ(test, ws.hardirq_ret, -EDEADLK);
		/* Out of the write section, a task's lookup. */
		KUNIT_EXPECT_EQ(test, kslot_dense_lookup(&d, ic.h, &ic.v), 0);
		KUNIT_EXPECT_TRUE(test, tv_eq(&ic.v, 2));
		kslot_dense_destroy(&d, NULL, NULL);
	}
	tasklet_kill(&ic.tasklet);
}

/*
 * Bulk writes between two batches (KSLOT_SLOTS_TP_WALK, lock dropped):
 * the case's handles, and what its hook did.
 */
static struct {
	struct kunit *test;
	u64 *h;
	u32 n;
	u64 hx[2];
	u32 keep_calls;
} bw;

static void bw_expect_get(struct kslot_dense *d, u64 h, int ret, u64 id)
{
	struct kunit *test = bw.test;
	struct tval v;

	KUNIT_EXPECT_EQ(test, kslot_dense_lookup(d, h, &v), ret);
	if (!ret)
		KUNIT_EXPECT_TRUE(test, tv_eq(&v, id));
}

/*
 * Clear, between its batches: the first erased the last KSLOT_SLOTS_WALK
 * values and nothing else; insert two values (appended at the end) and
 * erase the first value (the last moves into its place).
 */
static void cb_between(struct kslot_dense *d)
{
	struct kunit *test = bw.test;
	const u32 w = KSLOT_SLOTS_WALK;
	struct tval vals[2] = { tv(9000), tv(9001) };

	/* Each batch erased w values; the first hook added one. */
	KUNIT_EXPECT_EQ(test, kslot_dense_count(d),
			bw.n - tp.calls * w + (tp.calls > 1));
	if (tp.calls == 1) {
		bw_expect_get(d, bw.h[bw.n - w], -ENOENT, 0);
		bw_expect_get(d, bw.h[bw.n - w - 1], 0, bw.n - w - 1);
		KUNIT_EXPECT_EQ(test, kslot_dense_insert_n(d, bw.hx, vals, 2,
							   GFP_KERNEL), 0);
		KUNIT_EXPECT_EQ(test, pos_of(d, bw.hx[1]), bw.n - w + 1);
		KUNIT_EXPECT_EQ(test, kslot_dense_erase(d, bw.h[0], NULL), 0);
		KUNIT_EXPECT_EQ(test, pos_of(d, bw.hx[1]), 0);
	}
	/* Still live: the moved value, and those of no batch yet. */
	bw_expect_get(d, bw.hx[1], 0, 9001);
	bw_expect_get(d, bw.h[1], 0, 1);
	bw_expect_get(d, bw.h[0], -ENOENT, 0);
}

/*
 * A clear holds the lock, and the write section lock-free lookups wait on,
 * for KSLOT_SLOTS_WALK values at a time.  Between batches the table is
 * whole: lookups find the values not yet erased, an insert_n appends, an
 * erase moves the last value.  The clear goes on until the table is
 * empty, the values inserted meanwhile included.
 */
static void kslot_dense_test_clear_batches(struct kunit *test)
{
	const u32 n = 3 * KSLOT_SLOTS_WALK + 100;
	struct kslot_dense d;
	u32 i;

	bw.test = test;
	bw.n = n;
	bw.h = kunit_kcalloc(test, n, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bw.h);
	memset(bw.hx, 0, sizeof(bw.hx));
	dense_init(test, &d, n + 2);
	for (i = 0; i < n; i++)
		bw.h[i] = ins(test, &d, i);
	tp_set(test, &d, KSLOT_SLOTS_TP_WALK, cb_between);
	kslot_dense_clear(&d);
	tp_clear();
	/* Batches of 1024, 1024, 1024 and 101 (the hook's +2 -1): 3 gaps. */
	KUNIT_EXPECT_EQ(test, tp.calls, 3);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	KUNIT_EXPECT_EQ(test, d.slots.count, 0);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_FALSE(test, kslot_dense_contains(&d, bw.h[i]));
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, bw.hx[0]));
	KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, bw.hx[1]));
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

static bool rb_keep_even(u64 handle, void *elem, void *arg)
{
	bw.keep_calls++;
	return !(((struct tval *)elem)->id & 1);
}

/*
 * Retain, after its first batch: it walked the last KSLOT_SLOTS_WALK
 * positions (the values bw.n - w .. bw.n - 1, not yet moved) and erased
 * the odd ones; the rest is still to come.  Insert an odd value: it is
 * appended past the walk, so it is not offered, and stays.
 */
static void rb_between(struct kslot_dense *d)
{
	struct kunit *test = bw.test;
	const u32 w = KSLOT_SLOTS_WALK;
	struct tval v = tv(9001);

	if (tp.calls != 1)
		return;
	KUNIT_EXPECT_EQ(test, bw.keep_calls, w);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(d), bw.n - w / 2);
	bw_expect_get(d, bw.h[bw.n - 1], -ENOENT, 0);
	bw_expect_get(d, bw.h[bw.n - 2], 0, bw.n - 2);
	bw_expect_get(d, bw.h[bw.n - w - 1], 0, bw.n - w - 1);
	KUNIT_EXPECT_EQ(test, kslot_dense_insert(d, &bw.hx[0], &v, GFP_KERNEL),
			0);
}

/*
 * A retain walks the packed array from the end, KSLOT_SLOTS_WALK values
 * per hold of the lock: between batches the erases so far are done and
 * the others not, and a value inserted meanwhile is not offered.
 */
static void kslot_dense_test_retain_batches(struct kunit *test)
{
	const u32 n = 2 * KSLOT_SLOTS_WALK + 10;
	struct kslot_dense d;
	u32 i;

	bw.test = test;
	bw.n = n;
	bw.keep_calls = 0;
	bw.h = kunit_kcalloc(test, n, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bw.h);
	memset(bw.hx, 0, sizeof(bw.hx));
	dense_init(test, &d, n + 1);
	for (i = 0; i < n; i++)
		bw.h[i] = ins(test, &d, i);
	tp_set(test, &d, KSLOT_SLOTS_TP_WALK, rb_between);
	KUNIT_EXPECT_EQ(test, kslot_dense_retain(&d, rb_keep_even, NULL), n / 2);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 2);
	/* Every value offered once; not the one inserted meanwhile. */
	KUNIT_EXPECT_EQ(test, bw.keep_calls, n);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), n / 2 + 1);
	bw.test = test;
	bw_expect_get(&d, bw.hx[0], 0, 9001);
	for (i = 0; i < n; i++)
		bw_expect_get(&d, bw.h[i], i & 1 ? -ENOENT : 0, i);
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

/*
 * Erase_n, after its first batch of KSLOT_SLOTS_BULK handles: those are
 * erased and the others not; erase one of the next batch here, which
 * erase_n then finds stale and skips.
 */
static void eb_between(struct kslot_dense *d)
{
	struct kunit *test = bw.test;
	const u32 b = KSLOT_SLOTS_BULK;

	/* The hook's erase is one of the second batch's. */
	KUNIT_EXPECT_EQ(test, kslot_dense_count(d), bw.n - tp.calls * b);
	if (tp.calls != 1)
		return;
	bw_expect_get(d, bw.h[b - 1], -ENOENT, 0);
	bw_expect_get(d, bw.h[b], 0, b);
	KUNIT_EXPECT_EQ(test, kslot_dense_erase(d, bw.h[b + 8], NULL), 0);
}

/* Erase_n holds the lock for KSLOT_SLOTS_BULK handles at a time. */
static void kslot_dense_test_erase_n_batches(struct kunit *test)
{
	const u32 n = 2 * KSLOT_SLOTS_BULK + 5;
	struct kslot_dense d;
	u32 i;

	bw.test = test;
	bw.n = n;
	bw.h = kunit_kcalloc(test, n, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bw.h);
	dense_init(test, &d, n);
	for (i = 0; i < n; i++)
		bw.h[i] = ins(test, &d, i);
	tp_set(test, &d, KSLOT_SLOTS_TP_WALK, eb_between);
	KUNIT_EXPECT_EQ(test, kslot_dense_erase_n(&d, bw.h, n), n - 1);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 2);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 0);
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

static u64 in_handles[5];

/*
 * Insert_n has taken its slots, placeholders, and not yet stored its
 * values: the core counts them, no lookup sees them.  A clear now erases
 * the values and leaves the placeholders.
 */
static void in_clear(struct kslot_dense *d)
{
	struct kunit *test = bw.test;
	u32 i;

	KUNIT_EXPECT_EQ(test, kslot_dense_count(d), bw.n);
	KUNIT_EXPECT_EQ(test, d->slots.count, bw.n + 5);
	for (i = 0; i < 5; i++)
		bw_expect_get(d, in_handles[i], -ENOENT, 0);
	kslot_dense_clear(d);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(d), 0);
	KUNIT_EXPECT_EQ(test, d->slots.count, 5);
	for (i = 0; i < 5; i++)
		bw_expect_get(d, in_handles[i], -ENOENT, 0);
}

/*
 * kslot_dense_insert_n() racing kslot_dense_clear(): the clear runs
 * while the insert holds placeholders.  The clear erases the values that
 * were there and nothing else; the insert then stores its five values at
 * the start of the emptied array, all published, none lost, no
 * placeholder left.
 */
static void kslot_dense_test_insert_n_clear(struct kunit *test)
{
	const u32 n = 10;
	struct tval vals[5], v;
	struct kslot_dense d;
	u64 h[10];
	u32 i;

	bw.test = test;
	bw.n = n;
	bw.h = h;
	dense_init(test, &d, 32);
	for (i = 0; i < n; i++)
		h[i] = ins(test, &d, i);
	for (i = 0; i < 5; i++)
		vals[i] = tv(100 + i);
	tp_set(test, &d, KSLOT_SLOTS_TP_DENSE_INSERT, in_clear);
	KUNIT_ASSERT_EQ(test, kslot_dense_insert_n(&d, in_handles, vals, 5,
						   GFP_KERNEL), 0);
	tp_clear();
	KUNIT_EXPECT_EQ(test, tp.calls, 1);
	KUNIT_EXPECT_EQ(test, kslot_dense_count(&d), 5);
	KUNIT_EXPECT_EQ(test, d.slots.count, 5);
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, pos_of(&d, in_handles[i]), i);
		KUNIT_ASSERT_EQ(test,
				kslot_dense_lookup(&d, in_handles[i], &v), 0);
		KUNIT_EXPECT_TRUE(test, tv_eq(&v, 100 + i));
	}
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_FALSE(test, kslot_dense_contains(&d, h[i]));
	check_invariants(test, &d);
	kslot_dense_destroy(&d, NULL, NULL);
}

static struct kunit_case kslot_dense_test_cases[] = {
	KUNIT_CASE(kslot_dense_test_init),
	KUNIT_CASE(kslot_dense_test_insert),
	KUNIT_CASE(kslot_dense_test_lookup_update),
	KUNIT_CASE(kslot_dense_test_lookup_many),
	KUNIT_CASE(kslot_dense_test_erase),
	KUNIT_CASE(kslot_dense_test_seed_layout),
	KUNIT_CASE(kslot_dense_test_seed_swap_pop),
	KUNIT_CASE(kslot_dense_test_seed_timeline),
	KUNIT_CASE(kslot_dense_test_bulk),
	KUNIT_CASE(kslot_dense_test_retain),
	KUNIT_CASE(kslot_dense_test_clear),
	KUNIT_CASE(kslot_dense_test_walk_locked),
	KUNIT_CASE(kslot_dense_test_extract),
	KUNIT_CASE(kslot_dense_test_extract_range),
	KUNIT_CASE(kslot_dense_test_bytes),
	KUNIT_CASE(kslot_dense_test_growth),
	KUNIT_CASE(kslot_dense_test_grow_race),
	KUNIT_CASE_SLOW(kslot_dense_test_far),
	KUNIT_CASE(kslot_dense_test_grow_erase),
	KUNIT_CASE(kslot_dense_test_lookup_destroyed),
	KUNIT_CASE(kslot_dense_test_reserve),
	KUNIT_CASE(kslot_dense_test_enospc),
	KUNIT_CASE(kslot_dense_test_retire),
	KUNIT_CASE(kslot_dense_test_restore),
	KUNIT_CASE(kslot_dense_test_forged),
	KUNIT_CASE(kslot_dense_test_destroy),
	KUNIT_CASE(kslot_dense_test_irq_context),
	KUNIT_CASE(kslot_dense_test_random),
	KUNIT_CASE(kslot_dense_test_concurrent_growth),
	KUNIT_CASE(kslot_dense_test_racing_lookup),
	KUNIT_CASE(kslot_dense_test_fault),
	KUNIT_CASE(kslot_dense_test_lookup_context),
	KUNIT_CASE(kslot_dense_test_lookup_interrupts_writer),
	KUNIT_CASE(kslot_dense_test_clear_batches),
	KUNIT_CASE(kslot_dense_test_retain_batches),
	KUNIT_CASE(kslot_dense_test_erase_n_batches),
	KUNIT_CASE(kslot_dense_test_insert_n_clear),
	{}
};

static struct kunit_suite kslot_dense_test_suite = {
	.name = "kslot_dense",
	.test_cases = kslot_dense_test_cases,
};

kunit_test_suite(kslot_dense_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_dense");
MODULE_LICENSE("GPL");
