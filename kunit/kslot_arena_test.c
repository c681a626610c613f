// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_arena, the bump allocator.
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/kslot_arena.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define CHUNK		256
#define HDR		sizeof(struct kslot_arena_chunk)
#define DATA		(CHUNK - HDR)

static void arena_init(struct kunit *test, struct kslot_arena *a,
		       size_t chunk, size_t max)
{
	KUNIT_ASSERT_EQ(test, kslot_arena_init(a, chunk, max, 0), 0);
}

static struct kslot_arena_stats arena_stats(struct kslot_arena *a)
{
	struct kslot_arena_stats st;

	kslot_arena_stats(a, &st);
	return st;
}

static void kslot_arena_test_init(struct kunit *test)
{
	struct kslot_arena a;

	KUNIT_EXPECT_EQ(test, kslot_arena_init(&a, KSLOT_ARENA_MIN_CHUNK - 1,
					       0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_arena_init(&a, KMALLOC_MAX_SIZE + 1, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_arena_init(&a, 1024, 1023, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_arena_init(&a, 1024, 0, BIT(5)), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_arena_init(&a, 0, 0, KSLOT_ARENA_ACCOUNT),
			0);
	KUNIT_EXPECT_EQ(test, a.chunk_size, KSLOT_ARENA_DEFAULT_CHUNK);
	KUNIT_EXPECT_EQ(test, a.max_size, SIZE_MAX);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, 0);
	KUNIT_EXPECT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 8, 8,
							  GFP_KERNEL)));
	kslot_arena_destroy(&a);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 0);
}

static void kslot_arena_test_alloc_align(struct kunit *test)
{
	struct kslot_arena a;
	u8 *p[14];
	size_t align;
	int i;

	arena_init(test, &a, 0, 0);
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, 0, 8, GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, 8, 0, GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, 8, 24, GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, 8, 2 * PAGE_SIZE,
						    GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, SIZE_MAX, 8,
						    GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, KMALLOC_MAX_SIZE, 1,
						    GFP_KERNEL),
			    ERR_PTR(-EINVAL));
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 0);
	/* Odd sizes between aligned requests: every alignment is honoured. */
	for (i = 0, align = 1; align <= PAGE_SIZE; i++, align <<= 1) {
		p[i] = kslot_arena_alloc(&a, 3, align, GFP_KERNEL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(p[i]));
		KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)p[i], align));
		memset(p[i], i, 3);
	}
	for (i = 0, align = 1; align <= PAGE_SIZE; i++, align <<= 1)
		KUNIT_EXPECT_NULL(test, memchr_inv(p[i], i, 3));
	kslot_arena_destroy(&a);
}

/* Bump within a chunk, then chain a new one; used bytes are exact. */
static void kslot_arena_test_chunks(struct kunit *test)
{
	struct kslot_arena a;
	u8 *p, *q;

	arena_init(test, &a, CHUNK, 0);
	p = kslot_arena_alloc(&a, 100, 1, GFP_KERNEL);
	q = kslot_arena_alloc(&a, 100, 1, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_ASSERT_FALSE(test, IS_ERR(q));
	KUNIT_EXPECT_PTR_EQ(test, q, p + 100);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 200);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, CHUNK);
	/* DATA - 200 bytes remain: the next 100 go to a new chunk. */
	KUNIT_ASSERT_LT(test, DATA - 200, 100);
	p = kslot_arena_alloc(&a, 100, 1, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_PTR_EQ(test, p, &a.head->data[0]);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 300);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 2);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, 2 * CHUNK);
	/* The tail of the new chunk is used up exactly. */
	q = kslot_arena_alloc(&a, DATA - 100, 1, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, q, p + 100);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 2);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 200 + DATA);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).high_water, 200 + DATA);
	kslot_arena_destroy(&a);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, 0);
}

/* A request bigger than a standard chunk gets its own chunk. */
static void kslot_arena_test_oversized(struct kunit *test)
{
	struct kslot_arena a;
	u8 *p;

	arena_init(test, &a, CHUNK, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 8, 1,
							  GFP_KERNEL)));
	p = kslot_arena_alloc(&a, 1000, 64, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)p, 64));
	memset(p, 0x5a, 1000);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 2);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint,
			CHUNK + HDR + 1000 + 63);
	KUNIT_EXPECT_EQ(test, a.head->alloc_size, HDR + 1000 + 63);
	kslot_arena_destroy(&a);
}

static void kslot_arena_test_zero(struct kunit *test)
{
	struct kslot_arena_mark m;
	struct kslot_arena a;
	u8 *p;

	arena_init(test, &a, CHUNK, 0);
	kslot_arena_mark(&a, &m);
	p = kslot_arena_alloc(&a, 64, 8, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	memset(p, 0xff, 64);
	KUNIT_ASSERT_EQ(test, kslot_arena_rewind(&a, &m), 0);
	p = kslot_arena_alloc(&a, 64, 8, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_NULL(test, memchr_inv(p, 0, 64));
	kslot_arena_destroy(&a);
}

/* Reset frees all chunks but one, which the next allocation reuses. */
static void kslot_arena_test_reset(struct kunit *test)
{
	struct kslot_arena a;
	bool injected;
	void *p;
	int i;

	arena_init(test, &a, CHUNK, 0);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 100, 8,
								  GFP_KERNEL)));
	KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 2000, 8,
							  GFP_KERNEL)));
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 6);
	kslot_arena_reset(&a);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, CHUNK);
	/* Two 100-byte pieces per chunk, 8-aligned: 204 bytes each. */
	KUNIT_EXPECT_EQ(test, arena_stats(&a).high_water, 5 * 204 + 2000);
	KUNIT_EXPECT_NULL(test, a.head);
	KUNIT_EXPECT_NOT_NULL(test, a.spare);
	/* The spare serves the next chunk without allocating. */
	p = kslot_test_with_fail_nth(1, &injected,
				     kslot_arena_alloc(&a, 100, 8, GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	KUNIT_EXPECT_NULL(test, a.spare);
	kslot_arena_reset(&a);
	kslot_arena_reset(&a);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	kslot_arena_destroy(&a);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, 0);
}

static void kslot_arena_test_mark_rewind(struct kunit *test)
{
	struct kslot_arena_mark outer, inner, empty;
	struct kslot_arena a;
	u8 *base, *p, *q;
	int i;

	arena_init(test, &a, CHUNK, 0);
	kslot_arena_mark(&a, &empty);
	KUNIT_EXPECT_EQ(test, empty.seq, 0);
	base = kslot_arena_alloc(&a, 40, 8, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(base));
	memset(base, 0xab, 40);
	kslot_arena_mark(&a, &outer);
	p = kslot_arena_alloc(&a, 16, 8, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	kslot_arena_mark(&a, &inner);
	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 100, 8,
								  GFP_KERNEL)));
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 5);
	/* Inner first: back in the first chunk, three chunks dropped. */
	KUNIT_ASSERT_EQ(test, kslot_arena_rewind(&a, &inner), 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 56);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 2);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, 2 * CHUNK);
	q = kslot_arena_alloc(&a, 8, 8, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, q, p + 16);
	/* Then the outer mark: the next allocation reuses p. */
	KUNIT_ASSERT_EQ(test, kslot_arena_rewind(&a, &outer), 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 40);
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, 16, 8, GFP_KERNEL), p);
	KUNIT_EXPECT_NULL(test, memchr_inv(base, 0xab, 40));
	/* A mark ahead of the current position is refused, nothing changes. */
	KUNIT_ASSERT_EQ(test, kslot_arena_rewind(&a, &outer), 0);
	KUNIT_EXPECT_EQ(test, kslot_arena_rewind(&a, &inner), -EINVAL);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 40);
	/* The empty mark rewinds to nothing. */
	KUNIT_ASSERT_EQ(test, kslot_arena_rewind(&a, &empty), 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	/* Marks in chunks freed by a reset are refused. */
	KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 8, 8,
							  GFP_KERNEL)));
	kslot_arena_mark(&a, &outer);
	kslot_arena_reset(&a);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 8, 8,
							  GFP_KERNEL)));
	KUNIT_EXPECT_EQ(test, kslot_arena_rewind(&a, &outer), -EINVAL);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 8);
	kslot_arena_destroy(&a);
}

static void kslot_arena_test_max_size(struct kunit *test)
{
	struct kslot_arena_stats before;
	struct kslot_arena a;
	int i;

	arena_init(test, &a, CHUNK, 3 * CHUNK);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, DATA, 1,
								  GFP_KERNEL)));
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, 3 * CHUNK);
	before = arena_stats(&a);
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, 1, 1, GFP_KERNEL),
			    ERR_PTR(-ENOSPC));
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(&a, 4 * CHUNK, 1,
						    GFP_KERNEL),
			    ERR_PTR(-ENOSPC));
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, before.used);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, before.chunks);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).max_size, 3 * CHUNK);
	/* After a reset the spare gives way to a request it cannot serve. */
	kslot_arena_reset(&a);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, CHUNK);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 3 * CHUNK - HDR,
							  1, GFP_KERNEL)));
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, 3 * CHUNK);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	KUNIT_EXPECT_NULL(test, a.spare);
	kslot_arena_destroy(&a);
}

static void kslot_arena_test_stats(struct kunit *test)
{
	struct kslot_arena_mark m;
	struct kslot_arena a;

	arena_init(test, &a, CHUNK, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 10, 1,
							  GFP_KERNEL)));
	kslot_arena_mark(&a, &m);
	/* 6 bytes of padding to the 16-byte boundary count as used. */
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED((unsigned long)a.head->data, 16));
	KUNIT_ASSERT_FALSE(test, IS_ERR(kslot_arena_alloc(&a, 32, 16,
							  GFP_KERNEL)));
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 48);
	KUNIT_EXPECT_EQ(test, kslot_arena_used(&a), 48);
	KUNIT_ASSERT_EQ(test, kslot_arena_rewind(&a, &m), 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).used, 10);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).high_water, 48);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).footprint, CHUNK);
	kslot_arena_destroy(&a);
}

/* Last frame's data survives one swap and is gone after the second. */
static void kslot_arena_test_frames(struct kunit *test)
{
	struct kslot_arena_frames f;
	struct kslot_arena *cur;
	u32 *old, *now;

	KUNIT_EXPECT_EQ(test, kslot_arena_frames_init(&f, 1, 0, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_arena_frames_init(&f, CHUNK, 4 * CHUNK, 0),
			0);
	cur = kslot_arena_frame(&f);
	old = kslot_arena_alloc(cur, sizeof(*old), 4, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(old));
	*old = 1;
	cur = kslot_arena_frames_swap(&f);
	KUNIT_EXPECT_PTR_EQ(test, cur, kslot_arena_frame(&f));
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_prev_frame(&f), &f.frame[0]);
	KUNIT_EXPECT_EQ(test, kslot_arena_used(kslot_arena_prev_frame(&f)), 4);
	now = kslot_arena_alloc(cur, sizeof(*now), 4, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(now));
	*now = *old + 1;
	KUNIT_EXPECT_EQ(test, *now, 2);
	cur = kslot_arena_frames_swap(&f);
	KUNIT_EXPECT_PTR_EQ(test, cur, &f.frame[0]);
	KUNIT_EXPECT_EQ(test, kslot_arena_used(cur), 0);
	KUNIT_EXPECT_EQ(test, kslot_arena_used(kslot_arena_prev_frame(&f)), 4);
	KUNIT_EXPECT_EQ(test, *now, 2);
	/* Steady state: each frame reuses its spare chunk. */
	KUNIT_EXPECT_PTR_EQ(test, kslot_arena_alloc(cur, 4, 4, GFP_KERNEL),
			    old);
	kslot_arena_frames_destroy(&f);
	KUNIT_EXPECT_EQ(test, f.frame[0].footprint + f.frame[1].footprint, 0);
}

/* No lock, no sleep: usable with interrupts off given GFP_ATOMIC. */
static void kslot_arena_test_atomic(struct kunit *test)
{
	struct kslot_arena_mark m;
	struct kslot_arena a;
	unsigned long flags;
	void *p = NULL;
	int i, ret;

	arena_init(test, &a, CHUNK, 0);
	flags = kslot_test_irq_enter();
	kslot_arena_mark(&a, &m);
	for (i = 0; i < 8; i++)
		p = kslot_arena_alloc(&a, 100, 8, GFP_ATOMIC);
	ret = kslot_arena_rewind(&a, &m);
	kslot_arena_reset(&a);
	kslot_test_irq_exit(flags);
	KUNIT_EXPECT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, arena_stats(&a).chunks, 1);
	kslot_arena_destroy(&a);
}

/* Randomised allocations, marks, rewinds and resets against a model. */
struct arena_live {
	u8 *p;
	u32 size;
	u8 fill;
};

struct arena_level {
	struct kslot_arena_mark mark;
	size_t used;
	u32 nlive;
};

#define ARENA_MAX_LIVE	4096
#define ARENA_MAX_DEPTH	16

static void arena_verify(struct kunit *test, struct arena_live *live,
			 u32 nlive)
{
	u32 i;

	for (i = 0; i < nlive; i++)
		KUNIT_ASSERT_NULL(test, memchr_inv(live[i].p, live[i].fill,
						   live[i].size));
}

static void kslot_arena_test_random(struct kunit *test)
{
	struct arena_level level[ARENA_MAX_DEPTH];
	const u32 ops = 100000;
	struct arena_live *live;
	struct rnd_state rnd;
	struct kslot_arena a;
	u32 nlive = 0, depth = 0, i, enospc = 0, rewinds = 0;

	live = kunit_kcalloc(test, ARENA_MAX_LIVE, sizeof(*live), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, live);
	prandom_seed_state(&rnd, 0x6172656e61ULL);
	arena_init(test, &a, 1024, 8 * 1024);

	for (i = 0; i < ops; i++) {
		u32 op = prandom_u32_state(&rnd) % 1000;
		size_t used = kslot_arena_used(&a);

		if (op < 700 && nlive < ARENA_MAX_LIVE) {
			u32 size = 1 + prandom_u32_state(&rnd) % 300;
			size_t align = 1UL << (prandom_u32_state(&rnd) % 7);
			u8 *p = kslot_arena_alloc(&a, size, align, GFP_KERNEL);

			if (p == ERR_PTR(-ENOSPC)) {
				KUNIT_ASSERT_EQ(test, kslot_arena_used(&a),
						used);
				enospc++;
				kslot_arena_reset(&a);
				nlive = 0;
				depth = 0;
				continue;
			}
			KUNIT_ASSERT_FALSE(test, IS_ERR(p));
			KUNIT_ASSERT_TRUE(test, IS_ALIGNED((unsigned long)p,
							   align));
			KUNIT_ASSERT_GE(test, kslot_arena_used(&a),
					used + size);
			live[nlive].p = p;
			live[nlive].size = size;
			live[nlive].fill = i;
			memset(p, live[nlive].fill, size);
			nlive++;
		} else if (op < 800 && depth < ARENA_MAX_DEPTH) {
			kslot_arena_mark(&a, &level[depth].mark);
			level[depth].used = used;
			level[depth++].nlive = nlive;
		} else if (op < 950 && depth) {
			u32 d = prandom_u32_state(&rnd) % depth;

			KUNIT_ASSERT_EQ(test,
					kslot_arena_rewind(&a, &level[d].mark),
					0);
			KUNIT_ASSERT_EQ(test, kslot_arena_used(&a),
					level[d].used);
			nlive = level[d].nlive;
			depth = d + 1;
			rewinds++;
		} else if (op < 953) {
			kslot_arena_reset(&a);
			KUNIT_ASSERT_EQ(test, kslot_arena_used(&a), 0);
			nlive = 0;
			depth = 0;
		}
		KUNIT_ASSERT_LE(test, a.footprint, a.max_size);
		KUNIT_ASSERT_GE(test, a.high_water, kslot_arena_used(&a));
		if (i % 256 == 0)
			arena_verify(test, live, nlive);
	}
	arena_verify(test, live, nlive);
	kunit_info(test, "%u rewinds, %u -ENOSPC, high water %zu\n", rewinds,
		   enospc, a.high_water);
	KUNIT_EXPECT_GT(test, enospc, 0);
	KUNIT_EXPECT_GT(test, rewinds, 1000);
	kslot_arena_destroy(&a);
}

/* A failed chunk allocation gives -ENOMEM and leaves the arena as it was. */
static void kslot_arena_test_fault(struct kunit *test)
{
	struct kslot_arena_stats before, after;
	struct kslot_arena_mark m;
	struct kslot_arena a;
	u32 n, faults = 0;
	bool injected;
	u8 *p, *keep;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	arena_init(test, &a, CHUNK, 0);
	for (n = 1;; n++) {
		p = kslot_test_with_fail_nth(n, &injected,
					     kslot_arena_alloc(&a, 64, 8,
							       GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_PTR_EQ(test, p, ERR_PTR(-ENOMEM));
		KUNIT_ASSERT_EQ(test, arena_stats(&a).chunks, 0);
		KUNIT_ASSERT_EQ(test, arena_stats(&a).footprint, 0);
		faults++;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_EQ(test, faults, 1);
	keep = p;
	memset(keep, 0x3c, 64);
	kslot_arena_mark(&a, &m);
	/* A new chunk (standard, then oversized) while one is current. */
	kslot_arena_stats(&a, &before);
	p = kslot_test_with_fail_nth(1, &injected,
				     kslot_arena_alloc(&a, DATA, 8,
						       GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_PTR_EQ(test, p, ERR_PTR(-ENOMEM));
	p = kslot_test_with_fail_nth(1, &injected,
				     kslot_arena_alloc(&a, 4 * CHUNK, 8,
						       GFP_KERNEL));
	KUNIT_EXPECT_TRUE(test, injected);
	KUNIT_EXPECT_PTR_EQ(test, p, ERR_PTR(-ENOMEM));
	kslot_arena_stats(&a, &after);
	KUNIT_EXPECT_EQ(test, after.used, before.used);
	KUNIT_EXPECT_EQ(test, after.chunks, before.chunks);
	KUNIT_EXPECT_EQ(test, after.footprint, before.footprint);
	KUNIT_EXPECT_EQ(test, after.high_water, before.high_water);
	/* The arena still works from where it was. */
	p = kslot_arena_alloc(&a, 8, 8, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, p, keep + 64);
	KUNIT_EXPECT_EQ(test, kslot_arena_rewind(&a, &m), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(keep, 0x3c, 64));
	/* Bumping, rewinding and resetting never allocate. */
	p = kslot_test_with_fail_nth(1, &injected,
				     kslot_arena_alloc(&a, 8, 8, GFP_KERNEL));
	KUNIT_EXPECT_FALSE(test, injected);
	KUNIT_EXPECT_FALSE(test, IS_ERR(p));
	kslot_arena_destroy(&a);
}

static struct kunit_case kslot_arena_test_cases[] = {
	KUNIT_CASE(kslot_arena_test_init),
	KUNIT_CASE(kslot_arena_test_alloc_align),
	KUNIT_CASE(kslot_arena_test_chunks),
	KUNIT_CASE(kslot_arena_test_oversized),
	KUNIT_CASE(kslot_arena_test_zero),
	KUNIT_CASE(kslot_arena_test_reset),
	KUNIT_CASE(kslot_arena_test_mark_rewind),
	KUNIT_CASE(kslot_arena_test_max_size),
	KUNIT_CASE(kslot_arena_test_stats),
	KUNIT_CASE(kslot_arena_test_frames),
	KUNIT_CASE(kslot_arena_test_atomic),
	KUNIT_CASE(kslot_arena_test_random),
	KUNIT_CASE(kslot_arena_test_fault),
	{}
};

static struct kunit_suite kslot_arena_test_suite = {
	.name = "kslot_arena",
	.test_cases = kslot_arena_test_cases,
};

kunit_test_suite(kslot_arena_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_arena");
MODULE_LICENSE("GPL");
