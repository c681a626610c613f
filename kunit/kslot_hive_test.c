// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_hive, the bucket array with a jump-counting
 * skipfield.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/kslot_hive.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static void hive_init(struct kunit *test, struct kslot_hive *h,
		      size_t elem_size, size_t align, u32 min_cap,
		      u32 max_cap, u32 max_unused)
{
	struct kslot_hive_params p = {
		.elem_size = elem_size,
		.align = align,
		.min_capacity = min_cap,
		.max_capacity = max_cap,
		.max_unused = max_unused,
	};

	KUNIT_ASSERT_EQ(test, kslot_hive_init(h, &p), 0);
}

/* A hive of ints in groups of exactly @cap elements. */
static void int_hive(struct kunit *test, struct kslot_hive *h, u32 cap,
		     u32 max_unused)
{
	hive_init(test, h, sizeof(int), __alignof__(int), cap, cap,
		  max_unused);
	KUNIT_ASSERT_EQ(test, h->elem_size, sizeof(int));
}

/* Live words of @g. */
static u32 live_words(struct kslot_hive_group *g)
{
	return DIV_ROUND_UP(g->capacity, 64);
}

/* Bit @w of @g's erased-word bitmap. */
static bool erased_word(struct kslot_hive_group *g, u32 w)
{
	return g->erased[w / 64] & BIT_ULL(w % 64);
}

/* The lowest erased slot of @g, from its skipfield, or -1. */
static int first_erased(struct kslot_hive_group *g)
{
	u32 j;

	for (j = 0; j < g->last; j++)
		if (g->skipfield[j])
			return j;
	return -1;
}

/* Walk a group's skipfield and check every invariant the hive relies on. */
static void group_check(struct kunit *test, struct kslot_hive *h,
			struct kslot_hive_group *g)
{
	u16 *s = g->skipfield;
	u32 j, w, live = 0;

	KUNIT_ASSERT_TRUE(test, g->active);
	KUNIT_ASSERT_PTR_EQ(test, g->hive, h);
	KUNIT_ASSERT_GT(test, g->count, 0);
	KUNIT_ASSERT_LE(test, g->last, g->capacity);
	KUNIT_ASSERT_EQ(test, s[-1], 0);
	KUNIT_ASSERT_EQ(test, s[g->capacity], 0);
	for (j = g->last; j < g->capacity; j++)
		KUNIT_ASSERT_EQ(test, s[j], 0);
	for (j = 0; j < g->last;) {
		u32 len = s[j], m;

		if (!len) {
			live++;
			j++;
			continue;
		}
		/* A maximal run with its length at both ends. */
		KUNIT_ASSERT_LE(test, j + len, g->last);
		KUNIT_ASSERT_EQ(test, s[j + len - 1], len);
		KUNIT_ASSERT_EQ(test, s[j + len], 0);
		for (m = j + 1; m + 1 < j + len; m++)
			KUNIT_ASSERT_NE(test, s[m], 0);
		j += len;
	}
	KUNIT_ASSERT_EQ(test, live, g->count);
	/* The live bitmap is the skipfield's zero nodes below last. */
	for (j = 0; j < round_up(g->capacity, 64); j++)
		KUNIT_ASSERT_EQ(test, !!(g->live[j / 64] & BIT_ULL(j % 64)),
				j < g->last && !s[j]);
	/* Erased-word bit w: live word w has an erased slot below last. */
	for (w = 0; w < live_words(g); w++) {
		bool erased = false;

		for (j = w * 64; j < min(w * 64 + 64, g->last); j++)
			erased |= s[j] != 0;
		KUNIT_ASSERT_EQ(test, erased_word(g, w), erased);
	}
	for (; w < KSLOT_HIVE_ERASED_WORDS * 64; w++)
		KUNIT_ASSERT_FALSE(test, erased_word(g, w));
}

/* The whole hive: groups, counters, the erasure and unused lists. */
static void hive_check(struct kunit *test, struct kslot_hive *h)
{
	size_t count = 0, cap = 0, groups = 0, with_free = 0, bytes = 0;
	struct kslot_hive_group *g, *prev = NULL;
	size_t n = 0;

	for (g = h->first; g; prev = g, g = g->next) {
		KUNIT_ASSERT_PTR_EQ(test, g->prev, prev);
		if (g->next)
			KUNIT_ASSERT_EQ(test, g->last, g->capacity);
		group_check(test, h, g);
		if (g->count < g->last)
			with_free++;
		count += g->count;
		cap += g->capacity;
		bytes += PAGE_SIZE << g->order;
		groups++;
	}
	KUNIT_ASSERT_PTR_EQ(test, h->back, prev);
	KUNIT_ASSERT_EQ(test, count, h->count);
	KUNIT_ASSERT_EQ(test, cap, h->capacity);
	KUNIT_ASSERT_EQ(test, groups, h->nr_groups);
	prev = NULL;
	for (g = h->erasures; g; prev = g, g = g->erase_next) {
		KUNIT_ASSERT_PTR_EQ(test, g->erase_prev, prev);
		KUNIT_ASSERT_TRUE(test, g->active);
		KUNIT_ASSERT_LT(test, g->count, g->last);
		KUNIT_ASSERT_LT(test, n, with_free);
		n++;
	}
	KUNIT_ASSERT_EQ(test, n, with_free);
	cap = 0;
	n = 0;
	for (g = h->unused; g; g = g->next) {
		KUNIT_ASSERT_FALSE(test, g->active);
		KUNIT_ASSERT_PTR_EQ(test, g->hive, h);
		cap += g->capacity;
		bytes += PAGE_SIZE << g->order;
		n++;
	}
	KUNIT_ASSERT_EQ(test, n, h->nr_unused);
	KUNIT_ASSERT_EQ(test, cap, h->unused_capacity);
	KUNIT_ASSERT_EQ(test, bytes, h->bytes);
	cap = 0;
	n = 0;
	bytes = 0;
	for (g = h->spare; g; g = g->next) {
		KUNIT_ASSERT_FALSE(test, g->active);
		KUNIT_ASSERT_PTR_EQ(test, g->hive, h);
		cap += g->capacity;
		bytes += PAGE_SIZE << g->order;
		n++;
	}
	KUNIT_ASSERT_EQ(test, n, h->nr_spare);
	KUNIT_ASSERT_EQ(test, cap, h->spare_capacity);
	KUNIT_ASSERT_EQ(test, bytes, h->spare_bytes);
	if (n)
		KUNIT_ASSERT_EQ(test, h->flags & KSLOT_HIVE_SHRINK,
				KSLOT_HIVE_SHRINK);
}

static int *insert_int(struct kunit *test, struct kslot_hive *h, int v)
{
	int *p = kslot_hive_insert(h, GFP_KERNEL);

	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	*p = v;
	return p;
}

/*
 * Bytes a group of @cap 16-byte elements takes: the header, a u64 of live
 * bits per 64 slots, @cap + 2 skipfield nodes, the elements 8-aligned.
 */
static size_t group_bytes16(u32 cap)
{
	return ALIGN(sizeof(struct kslot_hive_group) +
		     DIV_ROUND_UP(cap, 64) * sizeof(u64) +
		     (cap + 2) * sizeof(u16), 8) + cap * 16;
}

static void kslot_hive_test_init(struct kunit *test)
{
	struct kslot_hive_params p = { .elem_size = 1 };
	struct kslot_hive h;

	p.elem_size = 0;
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	p.elem_size = KSLOT_HIVE_MAX_ELEM + 1;
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	p.elem_size = 8;
	p.align = 12;
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	p.align = 2 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	p.align = 0;
	p.min_capacity = 100;
	p.max_capacity = 50;
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	p.min_capacity = 0;
	p.max_capacity = KSLOT_HIVE_MAX_CAPACITY + 1;
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	p.max_capacity = 0;
	p.flags = BIT(9);
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	/* An explicit minimum an order-3 group cannot hold. */
	p.flags = 0;
	p.elem_size = PAGE_SIZE;
	p.min_capacity = 9;
	KUNIT_EXPECT_EQ(test, kslot_hive_init(&h, &p), -EINVAL);
	/* Defaults shrink to fit big elements. */
	p.min_capacity = 0;
	KUNIT_ASSERT_EQ(test, kslot_hive_init(&h, &p), 0);
	KUNIT_EXPECT_LT(test, h.max_capacity, 8);
	KUNIT_EXPECT_EQ(test, h.min_capacity, h.max_capacity);
	/* Padding: only to the alignment. */
	p.elem_size = 1;
	p.align = 1;
	KUNIT_ASSERT_EQ(test, kslot_hive_init(&h, &p), 0);
	KUNIT_EXPECT_EQ(test, h.elem_size, 1);
	p.elem_size = 5;
	KUNIT_ASSERT_EQ(test, kslot_hive_init(&h, &p), 0);
	KUNIT_EXPECT_EQ(test, h.elem_size, 5);
	p.align = 4;
	KUNIT_ASSERT_EQ(test, kslot_hive_init(&h, &p), 0);
	KUNIT_EXPECT_EQ(test, h.elem_size, 8);
	p.elem_size = 12;
	p.align = 0;
	p.flags = KSLOT_HIVE_ACCOUNT;
	KUNIT_ASSERT_EQ(test, kslot_hive_init(&h, &p), 0);
	KUNIT_EXPECT_EQ(test, h.elem_size, 16);
	KUNIT_EXPECT_EQ(test, h.min_capacity, KSLOT_HIVE_DEFAULT_MIN);
	/* The default maximum, lowered to what an order-3 group holds. */
	KUNIT_EXPECT_LE(test, h.max_capacity, KSLOT_HIVE_DEFAULT_MAX);
	KUNIT_EXPECT_LE(test, group_bytes16(h.max_capacity),
			PAGE_SIZE << KSLOT_HIVE_MAX_ORDER);
	if (h.max_capacity < KSLOT_HIVE_DEFAULT_MAX)
		KUNIT_EXPECT_GT(test, group_bytes16(h.max_capacity + 1),
				PAGE_SIZE << KSLOT_HIVE_MAX_ORDER);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 0);
	KUNIT_EXPECT_FALSE(test, IS_ERR(kslot_hive_insert(&h, GFP_KERNEL)));
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
	KUNIT_EXPECT_EQ(test, h.bytes, 0);
}

static void kslot_hive_test_insert(struct kunit *test)
{
	struct kslot_hive h;
	u64 *p, *q;

	hive_init(test, &h, sizeof(u64), 0, 0, 0, 0);
	p = kslot_hive_insert(&h, GFP_KERNEL);
	q = kslot_hive_insert(&h, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_ASSERT_FALSE(test, IS_ERR(q));
	KUNIT_EXPECT_PTR_EQ(test, q, p + 1);
	KUNIT_EXPECT_EQ(test, *q, 0);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 2);
	KUNIT_EXPECT_EQ(test, h.nr_groups, 1);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)p, 8));
	/* Erase leaves the element's memory alone; __GFP_ZERO clears it. */
	*p = ~0ULL;
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p), 0);
	KUNIT_EXPECT_EQ(test, *p, ~0ULL);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL |
							__GFP_ZERO), p);
	KUNIT_EXPECT_EQ(test, *p, 0);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
}

/*
 * The seed's worked example: ten elements with positions 1-2 and 7-8
 * erased.  Both skipblocks hold their length (2) at both ends; forward
 * iteration visits 0, 3, 4, 5, 6, 9 and backward the reverse.
 */
static void kslot_hive_test_seed_example(struct kunit *test)
{
	static const int vals[10] = { 5, 2, 7, 28, 10, 6, 3, 8, 1, 15 };
	static const u16 skip[10] = { 0, 2, 2, 0, 0, 0, 0, 2, 2, 0 };
	static const u32 order[6] = { 0, 3, 4, 5, 6, 9 };
	struct kslot_hive_cursor cur;
	struct kslot_hive_group *g;
	struct kslot_hive h;
	int *p[10], *e, i;

	int_hive(test, &h, 16, 0);
	for (i = 0; i < 10; i++)
		p[i] = insert_int(test, &h, vals[i]);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[1]), 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[2]), 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[7]), 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[8]), 0);
	g = h.first;
	KUNIT_ASSERT_EQ(test, g->last, 10);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, g->skipfield[i], skip[i]);
	KUNIT_EXPECT_TRUE(test, erased_word(g, 0));
	KUNIT_EXPECT_PTR_EQ(test, h.erasures, g);

	i = 0;
	for (e = kslot_hive_first(&h, &cur); e; e = kslot_hive_next(&h, &cur)) {
		KUNIT_ASSERT_LT(test, i, 6);
		KUNIT_EXPECT_EQ(test, cur.index, order[i]);
		KUNIT_EXPECT_EQ(test, *e, vals[order[i]]);
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, 6);
	for (e = kslot_hive_last(&h, &cur); e; e = kslot_hive_prev(&h, &cur)) {
		i--;
		KUNIT_ASSERT_GE(test, i, 0);
		KUNIT_EXPECT_EQ(test, cur.index, order[i]);
		KUNIT_EXPECT_EQ(test, *e, vals[order[i]]);
	}
	KUNIT_EXPECT_EQ(test, i, 0);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
}

/* Skipblock s..e: its length at both ends, live (or sentinel) around it. */
static void expect_run(struct kunit *test, struct kslot_hive_group *g,
		       int s, int e)
{
	u16 *sk = g->skipfield;

	KUNIT_EXPECT_EQ_MSG(test, sk[s], e - s + 1, "run %d..%d start", s, e);
	KUNIT_EXPECT_EQ_MSG(test, sk[e], e - s + 1, "run %d..%d end", s, e);
	KUNIT_EXPECT_EQ_MSG(test, sk[s - 1], 0, "run %d..%d left", s, e);
	KUNIT_EXPECT_EQ_MSG(test, sk[e + 1], 0, "run %d..%d right", s, e);
}

/*
 * The four erase cases, with the run length checked at both ends; the
 * erased-word bits and the erasure list follow.
 */
static void kslot_hive_test_erase_cases(struct kunit *test)
{
	struct kslot_hive_group *g;
	struct kslot_hive h;
	int *p[130], i;

	int_hive(test, &h, 130, 0);
	for (i = 0; i < 130; i++)
		p[i] = insert_int(test, &h, i);
	g = h.first;
	KUNIT_EXPECT_NULL(test, h.erasures);

	/* No erased neighbour: a new one-node run; the word is marked. */
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[3]), 0);
	expect_run(test, g, 3, 3);
	KUNIT_EXPECT_PTR_EQ(test, h.erasures, g);
	KUNIT_EXPECT_TRUE(test, erased_word(g, 0));
	KUNIT_EXPECT_FALSE(test, erased_word(g, 1));
	/* The element's memory is left as it was. */
	KUNIT_EXPECT_EQ(test, *p[3], 3);

	/* Erased left neighbour: the left run grows at its end. */
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[4]), 0);
	expect_run(test, g, 3, 4);
	KUNIT_EXPECT_EQ(test, g->skipfield[4], 2);

	/* Erased right neighbour: the right run grows at its start. */
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[7]), 0);
	expect_run(test, g, 7, 7);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[6]), 0);
	expect_run(test, g, 6, 7);
	expect_run(test, g, 3, 4);
	hive_check(test, &h);

	/* Both neighbours erased: the two runs join; the middle is nonzero. */
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[5]), 0);
	expect_run(test, g, 3, 7);
	KUNIT_EXPECT_EQ(test, g->skipfield[5], 5);

	/* The same cases against the group's edges (sentinel nodes). */
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[0]), 0);
	expect_run(test, g, 0, 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[129]), 0);
	expect_run(test, g, 129, 129);
	KUNIT_EXPECT_TRUE(test, erased_word(g, 2));
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[1]), 0);
	expect_run(test, g, 0, 1);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[128]), 0);
	expect_run(test, g, 128, 129);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[2]), 0);
	expect_run(test, g, 0, 7);
	hive_check(test, &h);

	/* A run across a word boundary joins the same way. */
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[64]), 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[62]), 0);
	KUNIT_EXPECT_TRUE(test, erased_word(g, 1));
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[63]), 0);
	expect_run(test, g, 62, 64);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 130 - 13);
	KUNIT_EXPECT_EQ(test, first_erased(g), 0);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
}

/* The four reuse cases, through kslot_hive_insert_at(). */
static void kslot_hive_test_reuse_cases(struct kunit *test)
{
	struct kslot_hive_group *g;
	struct kslot_hive h;
	int *p[10], i, *x;

	int_hive(test, &h, 16, 0);
	for (i = 0; i < 10; i++)
		p[i] = insert_int(test, &h, i);
	g = h.first;
	for (i = 1; i <= 8; i++)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[i]), 0);
	expect_run(test, g, 1, 8);

	/* The end node: the run shrinks from its end. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[8]), p[8]);
	expect_run(test, g, 1, 7);
	KUNIT_EXPECT_EQ(test, g->skipfield[8], 0);
	KUNIT_EXPECT_EQ(test, first_erased(g), 1);

	/* The start node: the run shrinks from its start. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[1]), p[1]);
	expect_run(test, g, 2, 7);
	KUNIT_EXPECT_EQ(test, g->skipfield[1], 0);
	KUNIT_EXPECT_EQ(test, first_erased(g), 2);
	hive_check(test, &h);

	/* A middle node: the run splits in two. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[4]), p[4]);
	expect_run(test, g, 2, 3);
	expect_run(test, g, 5, 7);
	KUNIT_EXPECT_EQ(test, g->skipfield[4], 0);
	KUNIT_EXPECT_EQ(test, first_erased(g), 2);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[6]), p[6]);
	expect_run(test, g, 5, 5);
	expect_run(test, g, 7, 7);
	hive_check(test, &h);

	/* A one-node run: cleared. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[5]), p[5]);
	KUNIT_EXPECT_EQ(test, g->skipfield[5], 0);
	expect_run(test, g, 2, 3);
	expect_run(test, g, 7, 7);
	hive_check(test, &h);

	/* Errors leave the hive alone. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[0]),
			    ERR_PTR(-EBUSY));
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[9] + 1),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, (void *)p[2] + 1),
			    ERR_PTR(-EINVAL));
	x = kmalloc(sizeof(*x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, x),
			    ERR_PTR(-EINVAL));
	kfree(x);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 7);
	hive_check(test, &h);

	/* The last three, then the group has no erasures left. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[2]), p[2]);
	expect_run(test, g, 3, 3);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[3]), p[3]);
	KUNIT_EXPECT_TRUE(test, erased_word(g, 0));
	KUNIT_EXPECT_PTR_EQ(test, h.erasures, g);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[7]), p[7]);
	KUNIT_EXPECT_FALSE(test, erased_word(g, 0));
	KUNIT_EXPECT_NULL(test, h.erasures);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 10);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
}

/*
 * A plain insert takes the lowest erased slot of the first group with
 * erasures (the start of a skipblock, found in the bitmaps in O(1)), the
 * erased words in order, then the never-used slots.
 */
static void kslot_hive_test_insert_reuse(struct kunit *test)
{
	struct kslot_hive_group *g, *g2;
	struct kslot_hive h;
	int *p[150], i;

	int_hive(test, &h, 140, 0);
	for (i = 0; i < 150; i++)
		p[i] = insert_int(test, &h, i);
	g = h.first;
	g2 = h.back;
	KUNIT_ASSERT_PTR_NE(test, g, g2);
	for (i = 3; i <= 5; i++)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[i]), 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[130]), 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[70]), 0);
	expect_run(test, g, 3, 5);
	KUNIT_EXPECT_TRUE(test, erased_word(g, 0));
	KUNIT_EXPECT_TRUE(test, erased_word(g, 1));
	KUNIT_EXPECT_TRUE(test, erased_word(g, 2));
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL), p[3]);
	expect_run(test, g, 4, 5);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL), p[4]);
	expect_run(test, g, 5, 5);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL), p[5]);
	KUNIT_EXPECT_EQ(test, g->skipfield[5], 0);
	KUNIT_EXPECT_FALSE(test, erased_word(g, 0));
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL), p[70]);
	KUNIT_EXPECT_FALSE(test, erased_word(g, 1));
	hive_check(test, &h);
	/* A second group with erasures goes to the front of the list. */
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[145]), 0);
	KUNIT_EXPECT_PTR_EQ(test, h.erasures, g2);
	KUNIT_EXPECT_PTR_EQ(test, h.erasures->erase_next, g);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL), p[145]);
	KUNIT_EXPECT_PTR_EQ(test, h.erasures, g);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL), p[130]);
	KUNIT_EXPECT_NULL(test, h.erasures);
	/* No erasures left: the next never-used slot. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert(&h, GFP_KERNEL), p[149] + 1);
	KUNIT_EXPECT_EQ(test, g2->last, 11);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
}

/*
 * Three groups of 8 with runs at group edges: a front run in group 0, a
 * trailing run in group 1, both in group 2.
 */
static void three_groups(struct kunit *test, struct kslot_hive *h, int **p)
{
	static const int gone[] = { 0, 1, 14, 15, 16, 23 };
	int i;

	int_hive(test, h, 8, 0);
	for (i = 0; i < 24; i++)
		p[i] = insert_int(test, h, i);
	KUNIT_ASSERT_EQ(test, h->nr_groups, 3);
	for (i = 0; i < ARRAY_SIZE(gone); i++)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(h, p[gone[i]]), 0);
	hive_check(test, h);
}

static bool three_groups_live(int v)
{
	return (v >= 2 && v <= 13) || (v >= 17 && v <= 22);
}

static void kslot_hive_test_iterate(struct kunit *test)
{
	struct kslot_hive_cursor cur;
	struct kslot_hive h;
	int *p[24], *e, v;

	three_groups(test, &h, p);
	v = -1;
	for (e = kslot_hive_first(&h, &cur); e; e = kslot_hive_next(&h, &cur)) {
		for (v++; !three_groups_live(v); v++)
			;
		KUNIT_ASSERT_EQ(test, *e, v);
		KUNIT_ASSERT_PTR_EQ(test, e, p[v]);
	}
	KUNIT_EXPECT_EQ(test, v, 22);
	/* At the end the cursor stays on the last element. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_cursor_elem(&h, &cur), p[22]);
	v = 24;
	for (e = kslot_hive_last(&h, &cur); e; e = kslot_hive_prev(&h, &cur)) {
		for (v--; !three_groups_live(v); v--)
			;
		KUNIT_ASSERT_EQ(test, *e, v);
	}
	KUNIT_EXPECT_EQ(test, v, 2);
	v = -1;
	kslot_hive_for_each(&h, e) {
		for (v++; !three_groups_live(v); v++)
			;
		KUNIT_ASSERT_EQ(test, *e, v);
	}
	KUNIT_EXPECT_EQ(test, v, 22);
	v = 24;
	kslot_hive_for_each_reverse(&h, e) {
		for (v--; !three_groups_live(v); v--)
			;
		KUNIT_ASSERT_EQ(test, *e, v);
	}
	KUNIT_EXPECT_EQ(test, v, 2);
	kslot_hive_destroy(&h, NULL, NULL);

	/* An empty hive. */
	int_hive(test, &h, 8, 0);
	KUNIT_EXPECT_NULL(test, kslot_hive_first(&h, &cur));
	KUNIT_EXPECT_NULL(test, kslot_hive_last(&h, &cur));
	kslot_hive_for_each(&h, e)
		KUNIT_FAIL(test, "empty hive yielded an element");
	kslot_hive_destroy(&h, NULL, NULL);
}

static void kslot_hive_test_cursor_at(struct kunit *test)
{
	struct kslot_hive_cursor cur;
	struct kslot_hive h;
	int *p[24];

	three_groups(test, &h, p);
	KUNIT_ASSERT_EQ(test, kslot_hive_cursor_at(&h, p[13], &cur), 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_cursor_elem(&h, &cur), p[13]);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_next(&h, &cur), p[17]);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_prev(&h, &cur), p[13]);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_prev(&h, &cur), p[12]);
	KUNIT_EXPECT_EQ(test, kslot_hive_cursor_at(&h, p[14], &cur), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_hive_cursor_at(&h, (void *)p[3] + 2, &cur),
			-EINVAL);
	kslot_hive_destroy(&h, NULL, NULL);
}

/* for_each may erase the element it is on; erase_cursor steps on. */
static void kslot_hive_test_erase_iterating(struct kunit *test)
{
	struct kslot_hive_cursor cur;
	struct kslot_hive h;
	int *p[24], *e, n = 0, v;

	three_groups(test, &h, p);
	kslot_hive_for_each(&h, e) {
		if (*e % 2 == 0 || *e == 13)
			KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e), 0);
	}
	hive_check(test, &h);
	kslot_hive_for_each(&h, e) {
		KUNIT_EXPECT_TRUE(test, *e % 2 == 1 && *e != 13);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 8);
	/* Reverse, erasing everything: group by group the hive empties. */
	kslot_hive_for_each_reverse(&h, e)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e), 0);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 0);
	KUNIT_EXPECT_EQ(test, h.nr_groups, 0);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);

	three_groups(test, &h, p);
	n = 0;
	v = -1;
	e = kslot_hive_first(&h, &cur);
	while (e) {
		for (v++; !three_groups_live(v); v++)
			;
		KUNIT_ASSERT_EQ(test, *e, v);
		e = kslot_hive_erase_cursor(&h, &cur);
		if (e)
			KUNIT_ASSERT_PTR_EQ(test,
					    kslot_hive_cursor_elem(&h, &cur), e);
		n++;
		hive_check(test, &h);
	}
	KUNIT_EXPECT_EQ(test, n, 18);
	KUNIT_EXPECT_NULL(test, cur.group);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 0);
	kslot_hive_destroy(&h, NULL, NULL);
}

/* for_each may insert: every element present at the start is seen once. */
static void kslot_hive_test_insert_iterating(struct kunit *test)
{
	struct kslot_hive h;
	int *p[24], *e, v, n = 0;
	u32 seen = 0;

	three_groups(test, &h, p);
	kslot_hive_for_each(&h, e) {
		KUNIT_ASSERT_LT(test, n, 100);
		n++;
		if (*e >= 100)
			continue;
		KUNIT_EXPECT_TRUE(test, three_groups_live(*e));
		KUNIT_EXPECT_FALSE(test, seen & BIT(*e));
		seen |= BIT(*e);
		/* Fills erased slots before and after the walk, then the end. */
		insert_int(test, &h, 100 + *e);
	}
	for (v = 0; v < 24; v++)
		KUNIT_EXPECT_EQ(test, !!(seen & BIT(v)), three_groups_live(v));
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 36);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
}

static void kslot_hive_test_erase_errors(struct kunit *test)
{
	struct kslot_hive h, other;
	int *p[24], *x, *o, on_stack;
	void *v;

	three_groups(test, &h, p);
	int_hive(test, &other, 8, 0);
	o = insert_int(test, &other, 1);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, p[0]), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, p[23]), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, (void *)p[4] + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, o), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, &on_stack), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, h.first), -EINVAL);
	x = kmalloc(sizeof(*x), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, x), -EINVAL);
	kfree(x);
	v = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, v), -EINVAL);
	vfree(v);
	/* Never handed out: beyond the back group's last slot. */
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&other, o + 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&other, o + 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 18);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
	kslot_hive_destroy(&other, NULL, NULL);
}

/*
 * Slots of the largest groups are found from their address alone, the
 * others through their folio: both ways give the same answers.
 */
static void kslot_hive_test_slot_lookup(struct kunit *test)
{
	struct kslot_hive_cursor cur;
	struct kslot_hive h, other;
	void **p, *o;
	int i;

	p = kunit_kcalloc(test, 300, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/* 256-byte elements: an order-0 group holds fewer than 64. */
	hive_init(test, &h, 256, 0, 4, 64, 0);
	for (i = 0; i < 300; i++) {
		p[i] = kslot_hive_insert(&h, GFP_KERNEL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(p[i]));
	}
	KUNIT_EXPECT_LT(test, h.first->capacity, 64);
	KUNIT_EXPECT_EQ(test, h.back->capacity, 64);
	KUNIT_EXPECT_GT(test, h.back->order, h.first->order);
	hive_init(test, &other, 256, 0, 64, 64, 0);
	o = kslot_hive_insert(&other, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	for (i = 0; i < 300; i += 3) {
		KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, p[i]), 0);
		KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, p[i]), -ENOENT);
		KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, p[i] + 8), -EINVAL);
	}
	/* A largest group's header and bitmap, another hive's slots. */
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, h.back), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, h.back->live), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, o), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&other, p[1]), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&other, p[298]), -EINVAL);
	/* Never handed out, in the back group (one of the largest). */
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, p[299] + 256), -ENOENT);
	KUNIT_ASSERT_EQ(test, kslot_hive_cursor_at(&h, p[1], &cur), 0);
	KUNIT_EXPECT_PTR_EQ(test, cur.group, h.first);
	KUNIT_EXPECT_EQ(test, cur.index, 1);
	KUNIT_ASSERT_EQ(test, kslot_hive_cursor_at(&h, p[299], &cur), 0);
	KUNIT_EXPECT_PTR_EQ(test, cur.group, h.back);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[297]), p[297]);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[298]),
			    ERR_PTR(-EBUSY));
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 201);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
	kslot_hive_destroy(&other, NULL, NULL);
}

/* New groups ask for the hive's capacity so far, within [min, max]. */
static void kslot_hive_test_growth(struct kunit *test)
{
	const u32 min_cap = 4, max_cap = 64;
	struct kslot_hive_group *g;
	struct kslot_hive h;
	size_t before = 0;
	bool reached = false;
	int i;

	hive_init(test, &h, 256, 0, min_cap, max_cap, 0);
	for (i = 0; i < 400; i++)
		KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_hive_insert(&h,
								  GFP_KERNEL)));
	for (g = h.first; g; g = g->next) {
		u32 want = clamp_t(size_t, before, min_cap, max_cap);

		KUNIT_EXPECT_GE(test, g->capacity, want);
		KUNIT_EXPECT_LE(test, g->capacity, max_cap);
		KUNIT_EXPECT_LE(test, g->order, KSLOT_HIVE_MAX_ORDER);
		/* The elements and the skipfield share one allocation. */
		KUNIT_EXPECT_LE(test, (unsigned long)g->elements +
				g->capacity * 256,
				(unsigned long)g + (PAGE_SIZE << g->order));
		KUNIT_EXPECT_LT(test, (unsigned long)(g->skipfield +
						      g->capacity),
				(unsigned long)g->elements);
		if (g->prev)
			KUNIT_EXPECT_GE(test, g->capacity, g->prev->capacity);
		reached |= g->capacity == max_cap;
		before += g->capacity;
	}
	KUNIT_EXPECT_TRUE(test, reached);
	KUNIT_EXPECT_EQ(test, before, h.capacity);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
}

/* Emptied groups leave the iteration; kept up to max_unused, else freed. */
static void kslot_hive_test_empty_groups(struct kunit *test)
{
	struct kslot_hive_stats st;
	struct kslot_hive h;
	bool injected;
	int *p[24], *q, i;
	size_t bytes;

	int_hive(test, &h, 8, 1);
	for (i = 0; i < 24; i++)
		p[i] = insert_int(test, &h, i);
	bytes = h.bytes;
	for (i = 8; i < 16; i++)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[i]), 0);
	KUNIT_EXPECT_EQ(test, h.nr_groups, 2);
	KUNIT_EXPECT_EQ(test, h.nr_unused, 1);
	KUNIT_EXPECT_EQ(test, h.bytes, bytes);
	KUNIT_EXPECT_EQ(test, kslot_hive_erase(&h, p[9]), -ENOENT);
	KUNIT_EXPECT_PTR_EQ(test, kslot_hive_insert_at(&h, p[9]),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_PTR_EQ(test, h.first->next, h.back);
	hive_check(test, &h);
	/* The back group empties too: over the limit, it is freed. */
	for (i = 23; i >= 16; i--)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, p[i]), 0);
	KUNIT_EXPECT_EQ(test, h.nr_groups, 1);
	KUNIT_EXPECT_EQ(test, h.nr_unused, 1);
	KUNIT_EXPECT_EQ(test, h.bytes, bytes - PAGE_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, h.back, h.first);
	hive_check(test, &h);
	/* The kept group comes back without an allocation. */
	q = kslot_test_with_fail_nth(1, &injected,
				     kslot_hive_insert(&h, GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_ASSERT_FALSE(test, IS_ERR(q));
	KUNIT_EXPECT_EQ(test, h.nr_groups, 2);
	KUNIT_EXPECT_EQ(test, h.nr_unused, 0);
	KUNIT_EXPECT_PTR_EQ(test, h.back->elements, (void *)q);
	hive_check(test, &h);
	kslot_hive_stats(&h, &st);
	KUNIT_EXPECT_EQ(test, st.count, 9);
	KUNIT_EXPECT_EQ(test, st.capacity, 16);
	KUNIT_EXPECT_EQ(test, st.groups, 2);
	KUNIT_EXPECT_EQ(test, st.unused_groups, 0);
	KUNIT_EXPECT_EQ(test, st.bytes, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, st.elem_size, sizeof(int));
	kslot_hive_destroy(&h, NULL, NULL);
}

static void kslot_hive_test_reserve_trim(struct kunit *test)
{
	struct kslot_hive h;
	bool injected;
	size_t cap;
	int ret, i;
	void *e;

	hive_init(test, &h, 16, 0, 4, 64, 0);
	KUNIT_ASSERT_EQ(test, kslot_hive_reserve(&h, 500, GFP_KERNEL), 0);
	KUNIT_EXPECT_GE(test, h.unused_capacity, 500);
	KUNIT_EXPECT_EQ(test, h.nr_groups, 0);
	KUNIT_EXPECT_GE(test, h.nr_unused, 500 / 64);
	hive_check(test, &h);
	cap = h.unused_capacity;
	/* Already there: no allocation. */
	ret = kslot_test_with_fail_nth(1, &injected,
				       kslot_hive_reserve(&h, 400, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, injected);
	/* 500 inserts need no allocation. */
	for (i = 0; i < 500; i++) {
		e = kslot_test_with_fail_nth(1, &injected,
					     kslot_hive_insert(&h, GFP_KERNEL));
		KUNIT_ASSERT_FALSE(test, IS_ERR(e));
		KUNIT_ASSERT_FALSE(test, injected);
	}
	KUNIT_EXPECT_EQ(test, h.capacity + h.unused_capacity, cap);
	hive_check(test, &h);
	kslot_hive_trim(&h);
	KUNIT_EXPECT_EQ(test, h.nr_unused, 0);
	KUNIT_EXPECT_EQ(test, h.unused_capacity, 0);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 500);
	hive_check(test, &h);
	/* Reserve beyond: only the difference is added. */
	KUNIT_ASSERT_EQ(test, kslot_hive_reserve(&h, h.capacity + 1,
						 GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, h.nr_unused, 1);
	kslot_hive_clear(&h);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 0);
	KUNIT_EXPECT_EQ(test, h.nr_groups, 0);
	/* max_unused is 0: the cleared groups were freed, not kept. */
	KUNIT_EXPECT_EQ(test, h.nr_unused, 1);
	hive_check(test, &h);
	kslot_hive_trim(&h);
	KUNIT_EXPECT_EQ(test, h.bytes, 0);
	kslot_hive_destroy(&h, NULL, NULL);
}

static void sum_elem(void *elem, void *data)
{
	*(long *)data += *(int *)elem;
}

static void kslot_hive_test_clear_destroy(struct kunit *test)
{
	struct kslot_hive h;
	long sum = 0;
	int *p[24];

	three_groups(test, &h, p);
	kslot_hive_destroy(&h, sum_elem, &sum);
	/* 0..23 minus 0, 1, 14, 15, 16, 23. */
	KUNIT_EXPECT_EQ(test, sum, 276 - 69);
	KUNIT_EXPECT_EQ(test, h.bytes, 0);
	KUNIT_EXPECT_NULL(test, h.first);
	/* The destroyed hive is usable again. */
	insert_int(test, &h, 1);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);

	three_groups(test, &h, p);
	h.max_unused = 2;
	kslot_hive_clear(&h);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 0);
	KUNIT_EXPECT_EQ(test, h.nr_unused, 2);
	KUNIT_EXPECT_EQ(test, h.bytes, 2 * PAGE_SIZE);
	KUNIT_EXPECT_NULL(test, h.erasures);
	hive_check(test, &h);
	kslot_hive_destroy(&h, NULL, NULL);
	KUNIT_EXPECT_EQ(test, h.bytes, 0);
}

/* No lock, no sleep: usable with interrupts off given GFP_ATOMIC. */
static void kslot_hive_test_atomic(struct kunit *test)
{
	struct kslot_hive h;
	unsigned long flags;
	int *p[64], i, err = 0;

	int_hive(test, &h, 16, 0);
	flags = kslot_test_irq_enter();
	for (i = 0; i < 64; i++) {
		p[i] = kslot_hive_insert(&h, GFP_ATOMIC);
		if (IS_ERR(p[i]))
			err = PTR_ERR(p[i]);
	}
	for (i = 0; !err && i < 64; i++)
		err = kslot_hive_erase(&h, p[i]);
	kslot_hive_trim(&h);
	kslot_test_irq_exit(flags);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, h.bytes, 0);
	kslot_hive_destroy(&h, NULL, NULL);
}

/*
 * Randomised inserts, erases, re-inserts at chosen slots and full walks
 * against a model.  Every element stores its own address: a moved or
 * overwritten element shows up as a wrong back-pointer or a wrong id.
 */
struct rnd_elem {
	void *self;
	u32 id;
	u32 salt;
};

struct rnd_live {
	struct rnd_elem *p;
	u32 id;
};

#define RND_OPS		100000
#define RND_MAX_LIVE	3000
#define RND_RING	64
#define RND_NONE	U32_MAX

struct rnd_model {
	struct rnd_live *live;
	u32 *pos;		/* id -> index in live, or RND_NONE */
	struct rnd_elem **order;
	unsigned long *seen;
	void *ring[RND_RING];
	u32 nlive, next_id, ring_n;
};

static void rnd_add(struct rnd_model *m, struct rnd_elem *e)
{
	u32 id = m->next_id++;

	e->self = e;
	e->id = id;
	e->salt = id * 2654435761U;
	m->pos[id] = m->nlive;
	m->live[m->nlive].p = e;
	m->live[m->nlive++].id = id;
}

static void rnd_del(struct rnd_model *m, u32 k)
{
	m->pos[m->live[k].id] = RND_NONE;
	m->ring[m->ring_n++ % RND_RING] = m->live[k].p;
	m->live[k] = m->live[--m->nlive];
	if (k < m->nlive)
		m->pos[m->live[k].id] = k;
}

static void rnd_walk(struct kunit *test, struct kslot_hive *h,
		     struct rnd_model *m)
{
	struct kslot_hive_cursor cur;
	struct rnd_elem *e;
	u32 n = 0;

	bitmap_zero(m->seen, RND_OPS);
	for (e = kslot_hive_first(h, &cur); e; e = kslot_hive_next(h, &cur)) {
		KUNIT_ASSERT_PTR_EQ(test, e->self, e);
		KUNIT_ASSERT_LT(test, e->id, m->next_id);
		KUNIT_ASSERT_EQ(test, e->salt, e->id * 2654435761U);
		KUNIT_ASSERT_NE(test, m->pos[e->id], RND_NONE);
		KUNIT_ASSERT_PTR_EQ(test, m->live[m->pos[e->id]].p, e);
		KUNIT_ASSERT_FALSE(test, __test_and_set_bit(e->id, m->seen));
		KUNIT_ASSERT_LT(test, n, m->nlive);
		m->order[n++] = e;
	}
	KUNIT_ASSERT_EQ(test, n, m->nlive);
	KUNIT_ASSERT_EQ(test, kslot_hive_count(h), m->nlive);
	for (e = kslot_hive_last(h, &cur); e; e = kslot_hive_prev(h, &cur))
		KUNIT_ASSERT_PTR_EQ(test, e, m->order[--n]);
	KUNIT_ASSERT_EQ(test, n, 0);
	hive_check(test, h);
}

static void kslot_hive_test_random(struct kunit *test)
{
	u32 i, inserts = 0, erases = 0, at_ok = 0, at_busy = 0, at_gone = 0;
	struct kslot_hive_cursor cur;
	struct rnd_model *m;
	struct rnd_state rnd;
	struct kslot_hive h;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	m->live = kunit_kcalloc(test, RND_MAX_LIVE, sizeof(*m->live),
				GFP_KERNEL);
	m->order = kunit_kcalloc(test, RND_MAX_LIVE, sizeof(*m->order),
				 GFP_KERNEL);
	m->pos = kunit_kcalloc(test, RND_OPS, sizeof(*m->pos), GFP_KERNEL);
	m->seen = kunit_kcalloc(test, BITS_TO_LONGS(RND_OPS),
				sizeof(unsigned long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->live);
	KUNIT_ASSERT_NOT_NULL(test, m->order);
	KUNIT_ASSERT_NOT_NULL(test, m->pos);
	KUNIT_ASSERT_NOT_NULL(test, m->seen);
	memset(m->pos, 0xff, RND_OPS * sizeof(*m->pos));
	prandom_seed_state(&rnd, 0x68697665ULL);
	hive_init(test, &h, sizeof(struct rnd_elem), 0, 4, 32, 2);

	for (i = 0; i < RND_OPS; i++) {
		u32 op = prandom_u32_state(&rnd) % 100, k;
		struct rnd_elem *e;

		/* Drift between mostly-full and mostly-empty phases. */
		if ((i / 20000) % 2)
			op = op < 50 ? op + 10 : op;
		if (op < 48 && m->nlive < RND_MAX_LIVE) {
			e = kslot_hive_insert(&h, GFP_KERNEL);
			KUNIT_ASSERT_FALSE(test, IS_ERR(e));
			rnd_add(m, e);
			inserts++;
		} else if (op < 90 && m->nlive) {
			k = prandom_u32_state(&rnd) % m->nlive;
			KUNIT_ASSERT_EQ(test,
					kslot_hive_erase(&h, m->live[k].p), 0);
			rnd_del(m, k);
			erases++;
		} else if (op < 95 && m->ring_n) {
			void *slot = m->ring[prandom_u32_state(&rnd) %
					     min(m->ring_n, RND_RING)];

			e = kslot_hive_insert_at(&h, slot);
			if (!IS_ERR(e)) {
				KUNIT_ASSERT_PTR_EQ(test, e, slot);
				rnd_add(m, e);
				at_ok++;
			} else if (e == ERR_PTR(-EBUSY)) {
				/* Taken again by an insert: live, intact. */
				e = slot;
				KUNIT_ASSERT_PTR_EQ(test, e->self, e);
				KUNIT_ASSERT_PTR_EQ(test,
						    m->live[m->pos[e->id]].p,
						    e);
				at_busy++;
			} else {
				/* Its group emptied since (and maybe freed). */
				KUNIT_ASSERT_TRUE(test,
						  e == ERR_PTR(-ENOENT) ||
						  e == ERR_PTR(-EINVAL));
				at_gone++;
			}
		} else if (m->nlive) {
			k = prandom_u32_state(&rnd) % m->nlive;
			e = m->live[k].p;
			KUNIT_ASSERT_EQ(test, kslot_hive_cursor_at(&h, e, &cur),
					0);
			KUNIT_ASSERT_PTR_EQ(test,
					    kslot_hive_cursor_elem(&h, &cur), e);
			e = kslot_hive_next(&h, &cur);
			if (e)
				KUNIT_ASSERT_PTR_EQ(test, kslot_hive_prev(&h, &cur),
						    m->live[k].p);
		}
		if (i % 1000 == 999)
			rnd_walk(test, &h, m);
		if (i % 30000 == 29999) {
			kslot_hive_clear(&h);
			while (m->nlive)
				rnd_del(m, m->nlive - 1);
			rnd_walk(test, &h, m);
		}
	}
	rnd_walk(test, &h, m);
	kunit_info(test, "%u inserts, %u erases, insert_at %u/%u/%u, %zu groups\n",
		   inserts, erases, at_ok, at_busy, at_gone, h.nr_groups);
	KUNIT_EXPECT_GT(test, at_ok, 100);
	KUNIT_EXPECT_GT(test, at_busy, 100);
	KUNIT_EXPECT_GT(test, at_gone, 10);
	kslot_hive_destroy(&h, NULL, NULL);
}

static void expect_stats_eq(struct kunit *test,
			    const struct kslot_hive_stats *a,
			    const struct kslot_hive_stats *b)
{
	KUNIT_EXPECT_EQ(test, a->count, b->count);
	KUNIT_EXPECT_EQ(test, a->capacity, b->capacity);
	KUNIT_EXPECT_EQ(test, a->groups, b->groups);
	KUNIT_EXPECT_EQ(test, a->unused_groups, b->unused_groups);
	KUNIT_EXPECT_EQ(test, a->bytes, b->bytes);
}

static long hive_sum(struct kslot_hive *h)
{
	long sum = 0;
	int *e;

	kslot_hive_for_each(h, e)
		sum += *e;
	return sum;
}

/*
 * Allocation failure: each allocation an insert or reserve makes fails in
 * turn, and must give -ENOMEM with the hive exactly as it was.
 */
static void kslot_hive_test_fault(struct kunit *test)
{
	struct kslot_hive_stats before, after;
	u32 n, faults = 0, i;
	struct kslot_hive h;
	bool injected;
	int *e, *first;
	long sum;
	int ret;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	int_hive(test, &h, 8, 1);
	/* The first insert allocates the first group. */
	for (n = 1;; n++) {
		e = kslot_test_with_fail_nth(n, &injected,
					     kslot_hive_insert(&h, GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_PTR_EQ(test, e, ERR_PTR(-ENOMEM));
		KUNIT_ASSERT_EQ(test, h.bytes, 0);
		KUNIT_ASSERT_NULL(test, h.first);
		hive_check(test, &h);
		faults++;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(e));
	KUNIT_EXPECT_EQ(test, faults, 1);
	first = e;
	*first = 100;
	for (i = 1; i < 8; i++)
		insert_int(test, &h, i);
	KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, first), 0);
	KUNIT_ASSERT_PTR_EQ(test, kslot_hive_insert_at(&h, first), first);
	*first = 0;
	/* The ninth needs a second group. */
	kslot_hive_stats(&h, &before);
	sum = hive_sum(&h);
	e = kslot_test_with_fail_nth(1, &injected,
				     kslot_hive_insert(&h, GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_PTR_EQ(test, e, ERR_PTR(-ENOMEM));
	kslot_hive_stats(&h, &after);
	expect_stats_eq(test, &before, &after);
	KUNIT_EXPECT_EQ(test, hive_sum(&h), sum);
	hive_check(test, &h);
	insert_int(test, &h, 8);
	/* A reserve of several groups fails at each of them in turn. */
	kslot_hive_stats(&h, &before);
	faults = 0;
	for (n = 1;; n++) {
		ret = kslot_test_with_fail_nth(n, &injected,
					       kslot_hive_reserve(&h, 64,
								  GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
		kslot_hive_stats(&h, &after);
		expect_stats_eq(test, &before, &after);
		hive_check(test, &h);
		faults++;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* 16 slots held, 48 more in groups of 8. */
	KUNIT_EXPECT_EQ(test, faults, 6);
	KUNIT_EXPECT_EQ(test, h.nr_unused, 6);
	/* Nothing else allocates. */
	e = kslot_test_with_fail_nth(1, &injected,
				     kslot_hive_insert(&h, GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_ASSERT_FALSE(test, IS_ERR(e));
	ret = kslot_test_with_fail_nth(1, &injected, kslot_hive_erase(&h, e));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_EQ(test, ret, 0);
	e = kslot_test_with_fail_nth(1, &injected, kslot_hive_insert_at(&h, e));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_FALSE(test, IS_ERR(e));
	kslot_hive_clear(&h);
	kslot_hive_trim(&h);
	hive_check(test, &h);
	KUNIT_EXPECT_EQ(test, h.bytes, 0);
	kslot_hive_destroy(&h, NULL, NULL);
}

/*
 * The walk across bitmap words: live slots in adjacent words, words with
 * no live slot (jumped with the skipfield), runs of erased slots spanning
 * several words, the first and last slot of a group, several groups.
 * Each pattern is checked against a model, forward and backward.
 */
static void kslot_hive_test_walk_words(struct kunit *test)
{
	static const u32 pct[] = { 0, 10, 50, 90, 98, 100 };
	const u32 cap = 300, n = 3 * cap;
	struct rnd_state rnd;
	struct kslot_hive h;
	unsigned long *gone;
	u32 i, k, p, seen;
	int **e, *v;

	e = kunit_kcalloc(test, n, sizeof(*e), GFP_KERNEL);
	gone = kunit_kcalloc(test, BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	prandom_seed_state(&rnd, 0x776f7264ULL);
	for (p = 0; p < ARRAY_SIZE(pct) * 3; p++) {
		int_hive(test, &h, cap, 0);
		for (i = 0; i < n; i++)
			e[i] = insert_int(test, &h, i);
		bitmap_zero(gone, n);
		for (i = 0; i < n; i++) {
			/* Patterns 6..11: whole words erased; 12..: runs. */
			u32 r = prandom_u32_state(&rnd) % 100;
			bool erase = r < pct[p % ARRAY_SIZE(pct)];

			if (p >= 6 && p < 12)
				erase = erase || (i % cap) / 64 == 1 ||
					(i % cap) / 64 == 3;
			if (p >= 12)
				erase = erase || ((i % cap) >= 60 &&
						  (i % cap) < 260);
			/* Keep slot 0 of the middle group and the very last. */
			if (i == cap || i == n - 1)
				erase = false;
			if (erase) {
				KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e[i]),
						0);
				__set_bit(i, gone);
			}
		}
		hive_check(test, &h);
		k = find_first_zero_bit(gone, n);
		seen = 0;
		kslot_hive_for_each(&h, v) {
			KUNIT_ASSERT_LT(test, k, n);
			KUNIT_ASSERT_EQ(test, *v, k);
			k = find_next_zero_bit(gone, n, k + 1);
			seen++;
		}
		KUNIT_EXPECT_EQ(test, k, n);
		KUNIT_EXPECT_EQ(test, seen, kslot_hive_count(&h));
		k = n - 1;
		kslot_hive_for_each_reverse(&h, v) {
			while (test_bit(k, gone))
				k--;
			KUNIT_ASSERT_EQ(test, *v, k);
			k--;
		}
		kslot_hive_destroy(&h, NULL, NULL);
	}
}

/* What the shrinker's count and scan return, called as reclaim calls them. */
static unsigned long shrink_count(struct shrinker *shr)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };

	return shr->count_objects(shr, &sc);
}

static unsigned long shrink_scan(struct shrinker *shr, unsigned long nr)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL,
				     .nr_to_scan = nr };

	return shr->scan_objects(shr, &sc);
}

static void expect_groups(struct kunit *test, struct kslot_hive *h,
			  size_t groups, size_t unused, size_t spare,
			  size_t group_bytes)
{
	struct kslot_hive_stats st;

	hive_check(test, h);
	kslot_hive_stats(h, &st);
	KUNIT_EXPECT_EQ(test, st.groups, groups);
	KUNIT_EXPECT_EQ(test, st.unused_groups, unused);
	KUNIT_EXPECT_EQ(test, st.spare_groups, spare);
	KUNIT_EXPECT_EQ(test, st.capacity, (groups + unused + spare) * 8);
	KUNIT_EXPECT_EQ(test, st.bytes, (groups + unused + spare) * group_bytes);
}

/*
 * KSLOT_HIVE_SHRINK: groups emptied beyond max_unused wait as spares, are
 * reused before new ones, and the registered shrinker frees them (and
 * only them) under pressure.
 */
static void kslot_hive_test_shrink_spares(struct kunit *test)
{
	struct kslot_hive_params p = {
		.elem_size = sizeof(int),
		.align = __alignof__(int),
		.min_capacity = 8,
		.max_capacity = 8,
		.max_unused = 1,
		.flags = KSLOT_HIVE_SHRINK,
	};
	struct shrinker *shr = kslot_hive_test_shrinker();
	struct kslot_hive h;
	size_t gb;
	int *e[40];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, shr);
	KUNIT_ASSERT_EQ(test, kslot_hive_init(&h, &p), 0);
	/* No hive holds a spare group. */
	KUNIT_EXPECT_EQ(test, shrink_count(shr), SHRINK_EMPTY);
	KUNIT_EXPECT_EQ(test, shrink_scan(shr, 10), SHRINK_STOP);

	for (i = 0; i < 40; i++)
		e[i] = insert_int(test, &h, i);
	gb = PAGE_SIZE << h.first->order;
	expect_groups(test, &h, 5, 0, 0, gb);
	for (i = 0; i < 40; i++)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e[i]), 0);
	/* One kept for reuse (max_unused), four spares. */
	expect_groups(test, &h, 0, 1, 4, gb);
	KUNIT_EXPECT_EQ(test, shrink_count(shr), 4);

	KUNIT_EXPECT_EQ(test, shrink_scan(shr, 3), 3);
	expect_groups(test, &h, 0, 1, 1, gb);
	KUNIT_EXPECT_EQ(test, shrink_count(shr), 1);

	/* Inserts take the unused group, then the spare, then allocate. */
	for (i = 0; i < 24; i++)
		e[i] = insert_int(test, &h, i);
	expect_groups(test, &h, 3, 0, 0, gb);
	KUNIT_EXPECT_EQ(test, shrink_count(shr), SHRINK_EMPTY);
	KUNIT_EXPECT_EQ(test, shrink_scan(shr, 10), SHRINK_STOP);

	/* The shrinker never frees the groups max_unused keeps. */
	for (i = 0; i < 24; i++)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e[i]), 0);
	expect_groups(test, &h, 0, 1, 2, gb);
	KUNIT_EXPECT_EQ(test, shrink_scan(shr, 10), 2);
	expect_groups(test, &h, 0, 1, 0, gb);
	KUNIT_EXPECT_EQ(test, shrink_scan(shr, 10), SHRINK_STOP);

	/* kslot_hive_trim() frees spares and unused groups alike. */
	for (i = 0; i < 16; i++)
		e[i] = insert_int(test, &h, i);
	kslot_hive_clear(&h);
	expect_groups(test, &h, 0, 1, 1, gb);
	kslot_hive_trim(&h);
	expect_groups(test, &h, 0, 0, 0, gb);
	KUNIT_EXPECT_EQ(test, shrink_count(shr), SHRINK_EMPTY);

	/* Destroyed, the hive leaves the shrinker: no more spares. */
	for (i = 0; i < 16; i++)
		e[i] = insert_int(test, &h, i);
	kslot_hive_destroy(&h, NULL, NULL);
	KUNIT_EXPECT_EQ(test, h.bytes, 0);
	KUNIT_EXPECT_EQ(test, shrink_count(shr), SHRINK_EMPTY);
	for (i = 0; i < 16; i++)
		e[i] = insert_int(test, &h, i);
	for (i = 0; i < 16; i++)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e[i]), 0);
	expect_groups(test, &h, 0, 1, 0, gb);
	KUNIT_EXPECT_EQ(test, shrink_count(shr), SHRINK_EMPTY);
	kslot_hive_destroy(&h, NULL, NULL);
}

/*
 * The bench's size classes that fit the debug VM: 1K and 64K elements.
 * 64K u64 elements fill every group size from the smallest to the
 * largest (order 3, asserted below) and many of the largest, so 1M would
 * exercise no other path, and takes 17 s under TCG with KASAN (64K: 0.5).
 */
static const u32 hive_sizes[] = { 1024, 65536 };

static void hive_size_desc(const u32 *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u", *n);
}

KUNIT_ARRAY_PARAM(hive_size, hive_sizes, hive_size_desc);

/*
 * n u64 elements (element i holds i), half erased in a random order: the
 * walks see exactly the survivors in insertion order, then the hive
 * empties by erasing from inside a walk.  The groups are checked node by
 * node after each phase.
 */
static void kslot_hive_test_sizes(struct kunit *test)
{
	u32 i, n = *(const u32 *)test->param_value, live = n - n / 2;
	u64 sum = 0, want = 0, *e, prev;
	struct kslot_hive_stats st;
	struct rnd_state rnd;
	unsigned long *erased;
	struct kslot_hive h;
	u64 **ptrs;
	u32 *perm;

	ptrs = kvmalloc_array(n, sizeof(*ptrs), GFP_KERNEL);
	perm = kvmalloc_array(n, sizeof(*perm), GFP_KERNEL);
	erased = kvcalloc(BITS_TO_LONGS(n), sizeof(long), GFP_KERNEL);
	if (!ptrs || !perm || !erased) {
		kvfree(ptrs);
		kvfree(perm);
		kvfree(erased);
		KUNIT_FAIL(test, "no memory for %u elements", n);
		return;
	}
	hive_init(test, &h, sizeof(u64), 0, 0, 0, 0);
	for (i = 0; i < n; i++) {
		ptrs[i] = kslot_hive_insert(&h, GFP_KERNEL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(ptrs[i]));
		*ptrs[i] = i;
		perm[i] = i;
	}
	if (n >= 65536) {
		KUNIT_EXPECT_EQ(test, h.back->capacity, h.max_capacity);
		KUNIT_EXPECT_EQ(test, h.back->order, KSLOT_HIVE_MAX_ORDER);
	}
	prandom_seed_state(&rnd, n);
	for (i = n - 1; i > 0; i--) {
		u32 j = prandom_u32_state(&rnd) % (i + 1);

		swap(perm[i], perm[j]);
	}
	for (i = 0; i < n / 2; i++) {
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, ptrs[perm[i]]), 0);
		__set_bit(perm[i], erased);
	}
	KUNIT_ASSERT_EQ(test, kslot_hive_count(&h), live);
	hive_check(test, &h);

	/* Forward: every survivor once, in insertion order. */
	i = 0;
	prev = 0;
	kslot_hive_for_each(&h, e) {
		KUNIT_ASSERT_LT(test, *e, n);
		KUNIT_ASSERT_FALSE(test, test_bit(*e, erased));
		KUNIT_ASSERT_PTR_EQ(test, e, ptrs[*e]);
		if (i)
			KUNIT_ASSERT_GT(test, *e, prev);
		prev = *e;
		sum += *e;
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, live);
	for (i = n / 2; i < n; i++)
		want += perm[i];
	KUNIT_EXPECT_EQ(test, sum, want);
	/* Backward: the same, last first. */
	i = 0;
	sum = 0;
	kslot_hive_for_each_reverse(&h, e) {
		if (i)
			KUNIT_ASSERT_LT(test, *e, prev);
		prev = *e;
		sum += *e;
		i++;
	}
	KUNIT_EXPECT_EQ(test, i, live);
	KUNIT_EXPECT_EQ(test, sum, want);

	/* Erase every other survivor from inside a walk, then the rest. */
	i = 0;
	kslot_hive_for_each(&h, e)
		if (i++ % 2)
			KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e), 0);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), live - live / 2);
	hive_check(test, &h);
	kslot_hive_for_each(&h, e)
		KUNIT_ASSERT_EQ(test, kslot_hive_erase(&h, e), 0);
	KUNIT_EXPECT_EQ(test, kslot_hive_count(&h), 0);
	kslot_hive_stats(&h, &st);
	KUNIT_EXPECT_EQ(test, st.groups, 0);
	KUNIT_EXPECT_EQ(test, st.bytes, 0);
	KUNIT_EXPECT_PTR_EQ(test, h.first, NULL);
	kslot_hive_destroy(&h, NULL, NULL);
	kvfree(ptrs);
	kvfree(perm);
	kvfree(erased);
}

static struct kunit_case kslot_hive_test_cases[] = {
	KUNIT_CASE(kslot_hive_test_init),
	KUNIT_CASE(kslot_hive_test_insert),
	KUNIT_CASE(kslot_hive_test_seed_example),
	KUNIT_CASE(kslot_hive_test_erase_cases),
	KUNIT_CASE(kslot_hive_test_reuse_cases),
	KUNIT_CASE(kslot_hive_test_insert_reuse),
	KUNIT_CASE(kslot_hive_test_iterate),
	KUNIT_CASE(kslot_hive_test_cursor_at),
	KUNIT_CASE(kslot_hive_test_erase_iterating),
	KUNIT_CASE(kslot_hive_test_insert_iterating),
	KUNIT_CASE(kslot_hive_test_erase_errors),
	KUNIT_CASE(kslot_hive_test_slot_lookup),
	KUNIT_CASE(kslot_hive_test_growth),
	KUNIT_CASE(kslot_hive_test_empty_groups),
	KUNIT_CASE(kslot_hive_test_reserve_trim),
	KUNIT_CASE(kslot_hive_test_clear_destroy),
	KUNIT_CASE(kslot_hive_test_atomic),
	KUNIT_CASE(kslot_hive_test_random),
	KUNIT_CASE(kslot_hive_test_fault),
	KUNIT_CASE(kslot_hive_test_walk_words),
	KUNIT_CASE(kslot_hive_test_shrink_spares),
	KUNIT_CASE_PARAM(kslot_hive_test_sizes, hive_size_gen_params),
	{}
};

static struct kunit_suite kslot_hive_test_suite = {
	.name = "kslot_hive",
	.test_cases = kslot_hive_test_cases,
};

kunit_test_suite(kslot_hive_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_hive");
MODULE_LICENSE("GPL");
