// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kslot_secondary, side values keyed by the handles of a
 * kslot_map or a kslot_dense.
 */
#include <kunit/test.h>
#include <linux/kslot_dense.h>
#include <linux/kslot_map.h>
#include <linux/kslot_secondary.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "kslot_dev_lib.h"
#include "kslot_internal.h"
#include "kslot_test_util.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define COOKIE(i)	((void *)(unsigned long)(((i) + 1) * 16))

struct side {
	u64 a;
	u64 b;
};

static struct side sv(u64 x)
{
	return (struct side){ .a = x, .b = ~x };
}

static void sec_init(struct kunit *test, struct kslot_secondary *sec,
		     u32 max)
{
	KUNIT_ASSERT_EQ(test, kslot_secondary_init(sec, NULL,
						   sizeof(struct side), max,
						   0), 0);
}

static void map_init(struct kunit *test, struct kslot_map *map, u32 max)
{
	KUNIT_ASSERT_EQ(test, kslot_map_init(map, NULL, max, 0), 0);
}

static u64 map_alloc(struct kunit *test, struct kslot_map *map, u32 i)
{
	u64 h = 0;

	KUNIT_ASSERT_EQ(test, kslot_map_alloc(map, &h, COOKIE(i), GFP_KERNEL),
			0);
	return h;
}

static int put(struct kslot_secondary *sec, u64 h, u64 x)
{
	struct side v = sv(x);

	return kslot_secondary_insert(sec, h, &v, GFP_KERNEL);
}

/* The value under @h is sv(@x). */
static bool has(struct kslot_secondary *sec, u64 h, u64 x)
{
	struct side v;

	return !kslot_secondary_lookup(sec, h, &v) && v.a == x && v.b == ~x;
}

static void kslot_secondary_test_init(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_secondary sec;

	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL, 0, 16, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL,
						   KSLOT_SECONDARY_MAX_ELEM_SIZE
						   + 1, 16, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL, SIZE_MAX, 16,
						   0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL, 8, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL, 8,
						   KSLOT_MAX_ENTRIES + 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL, 8, 16, BIT(4)),
			-EINVAL);
	/* The core's keyed flag is the secondary's own business. */
	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL, 8, 16,
						   KSLOT_SLOTS_KEYED), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_init(&sec, NULL, 8, 16,
						   KSLOT_SECONDARY_LOCK_BH |
						   KSLOT_SECONDARY_LOCK_IRQ),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, kslot_secondary_init(&sec, "kunit", 16,
						   KSLOT_MAX_ENTRIES,
						   KSLOT_SECONDARY_LOCK_BH |
						   KSLOT_SECONDARY_ACCOUNT), 0);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.count, 0);
	KUNIT_EXPECT_EQ(test, st.capacity, 0);
	KUNIT_EXPECT_EQ(test, st.max_entries, KSLOT_MAX_ENTRIES);
	KUNIT_EXPECT_EQ(test, kslot_slots_tag(&sec.slots),
			KSLOT_SLOTS_TAG_UNBOUND);
	kslot_secondary_destroy(&sec);
	KUNIT_ASSERT_EQ(test, kslot_secondary_init(&sec, NULL,
						   KSLOT_SECONDARY_MAX_ELEM_SIZE,
						   16, 0), 0);
	KUNIT_EXPECT_EQ(test,
			kslot_secondary_insert(&sec,
					       kslot_test_handle(&sec.slots, 3,
								 7, 1),
					       NULL, GFP_KERNEL), 0);
	kslot_secondary_destroy(&sec);
}

static void kslot_secondary_test_insert_lookup(struct kunit *test)
{
	struct kslot_secondary sec;
	struct kslot_map map;
	const struct side *p;
	struct side v;
	u64 h[3];
	int i;

	map_init(test, &map, 64);
	sec_init(test, &sec, 64);
	for (i = 0; i < 3; i++)
		h[i] = map_alloc(test, &map, i);
	KUNIT_EXPECT_EQ(test, put(&sec, h[0], 100), 0);
	KUNIT_EXPECT_EQ(test, put(&sec, h[2], 102), 0);
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 2);
	KUNIT_EXPECT_TRUE(test, has(&sec, h[0], 100));
	KUNIT_EXPECT_TRUE(test, has(&sec, h[2], 102));
	/* Only some objects have side data. */
	KUNIT_EXPECT_FALSE(test, kslot_secondary_contains(&sec, h[1]));
	KUNIT_EXPECT_TRUE(test, kslot_secondary_contains(&sec, h[2]));
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, __kslot_secondary_lookup(&sec, h[1]));
	p = __kslot_secondary_lookup(&sec, h[0]);
	KUNIT_EXPECT_NOT_NULL(test, p);
	/* Overwrite under the same handle: a new copy, the old one intact. */
	v = sv(200);
	KUNIT_EXPECT_EQ(test, kslot_secondary_insert(&sec, h[0], &v,
						     GFP_ATOMIC), 0);
	if (p)
		KUNIT_EXPECT_EQ(test, p->a, 100);
	KUNIT_EXPECT_PTR_NE(test, __kslot_secondary_lookup(&sec, h[0]),
			    (const void *)p);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, has(&sec, h[0], 200));
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 2);
	/* A NULL value is stored zeroed. */
	KUNIT_EXPECT_EQ(test, kslot_secondary_insert(&sec, h[1], NULL,
						     GFP_KERNEL), 0);
	KUNIT_ASSERT_EQ(test, kslot_secondary_lookup(&sec, h[1], &v), 0);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(&v, 0, sizeof(v)));
	KUNIT_EXPECT_TRUE(test, has(&sec, h[2], 102));
	kslot_secondary_destroy(&sec);
	kslot_map_destroy(&map, NULL, NULL);
}

/* Generation order: older refused, newer replaces, lookups match exactly. */
static void kslot_secondary_test_generations(struct kunit *test)
{
	struct kslot_secondary sec;
	struct kslot_map map;
	struct side v;
	u64 h1, h2;

	map_init(test, &map, 8);
	sec_init(test, &sec, 8);
	h1 = map_alloc(test, &map, 0);
	KUNIT_EXPECT_EQ(test, put(&sec, h1, 1), 0);
	kslot_map_remove(&map, h1);
	h2 = map_alloc(test, &map, 1);
	KUNIT_ASSERT_EQ(test, kslot_map_handle_index(&map, h1),
			kslot_map_handle_index(&map, h2));
	KUNIT_ASSERT_GT(test, kslot_map_handle_gen(&map, h2),
			kslot_map_handle_gen(&map, h1));
	/* The entry of h1 is still there: a lookup with h2 finds nothing. */
	KUNIT_EXPECT_TRUE(test, has(&sec, h1, 1));
	KUNIT_EXPECT_EQ(test, kslot_secondary_lookup(&sec, h2, &v), -ENOENT);
	/* The newer handle replaces it in place. */
	KUNIT_EXPECT_EQ(test, put(&sec, h2, 2), 0);
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 1);
	KUNIT_EXPECT_TRUE(test, has(&sec, h2, 2));
	/* The stale handle finds nothing, and cannot write back. */
	KUNIT_EXPECT_EQ(test, kslot_secondary_lookup(&sec, h1, &v), -ENOENT);
	KUNIT_EXPECT_FALSE(test, kslot_secondary_contains(&sec, h1));
	KUNIT_EXPECT_EQ(test, put(&sec, h1, 3), -ESTALE);
	KUNIT_EXPECT_EQ(test, kslot_secondary_remove(&sec, h1, NULL), -ENOENT);
	KUNIT_EXPECT_TRUE(test, has(&sec, h2, 2));
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 1);
	kslot_secondary_destroy(&sec);
	kslot_map_destroy(&map, NULL, NULL);
}

static void kslot_secondary_test_bad_handles(struct kunit *test)
{
	struct kslot_secondary sec;
	struct kslot_map map;
	u64 h, foreign;

	/* The primary's max_entries: 4 index bits, 12 .. 15 past the end. */
	map_init(test, &map, 12);
	sec_init(test, &sec, 12);
	h = map_alloc(test, &map, 0);
	KUNIT_EXPECT_EQ(test, put(&sec, KSLOT_HANDLE_NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, put(&sec, h + kslot_test_gens(&map.slots, 1), 1),
			-EINVAL);
	/* Not a 64-bit handle. */
	KUNIT_EXPECT_EQ(test, put(&sec, h & ~KSLOT_HANDLE64_BIT, 1), -EINVAL);
	foreign = kslot_slots_handle_make(&map.slots, 12, 1);
	KUNIT_EXPECT_EQ(test, put(&sec, foreign, 1), -EINVAL);
	foreign = kslot_slots_handle_make(&map.slots, 15, 1);
	KUNIT_EXPECT_EQ(test, put(&sec, foreign, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 0);
	/* The first insert binds the primary's tag. */
	KUNIT_EXPECT_EQ(test, put(&sec, h, 1), 0);
	foreign = kslot_test_handle(&map.slots, 1, map.slots.tag ^ 1, 1);
	KUNIT_EXPECT_EQ(test, put(&sec, foreign, 2), -EINVAL);
	KUNIT_EXPECT_FALSE(test, kslot_secondary_contains(&sec, foreign));
	foreign = kslot_test_handle(&map.slots, 0, map.slots.tag ^ 1, 1);
	KUNIT_EXPECT_FALSE(test, kslot_secondary_contains(&sec, foreign));
	foreign = kslot_test_handle(&map.slots, 1, map.slots.tag ^ 1, 1);
	KUNIT_EXPECT_FALSE(test, kslot_secondary_contains(&sec,
							  KSLOT_HANDLE_NULL));
	/* clear() unbinds it. */
	kslot_secondary_clear(&sec);
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 0);
	KUNIT_EXPECT_FALSE(test, kslot_secondary_contains(&sec, h));
	KUNIT_EXPECT_EQ(test, put(&sec, foreign, 2), 0);
	KUNIT_EXPECT_TRUE(test, has(&sec, foreign, 2));
	KUNIT_EXPECT_EQ(test, put(&sec, h, 1), -EINVAL);
	kslot_secondary_destroy(&sec);
	kslot_map_destroy(&map, NULL, NULL);
}

static bool keep_all(u64 handle, void *val, void *arg)
{
	return true;
}

static void kslot_secondary_test_remove(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_secondary sec;
	struct kslot_map map;
	struct side v;
	u64 h[70], newer;
	int i;

	map_init(test, &map, 128);
	sec_init(test, &sec, 128);
	for (i = 0; i < 70; i++) {
		h[i] = map_alloc(test, &map, i);
		KUNIT_ASSERT_EQ(test, put(&sec, h[i], i), 0);
	}
	KUNIT_EXPECT_EQ(test, kslot_secondary_remove(&sec, h[65], &v), 0);
	KUNIT_EXPECT_EQ(test, v.a, 65);
	KUNIT_EXPECT_EQ(test, kslot_secondary_remove(&sec, h[65], &v), -ENOENT);
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 69);
	/* The slot moved past h[65]: it cannot come back, a newer one can. */
	KUNIT_EXPECT_EQ(test, put(&sec, h[65], 65), -ESTALE);
	KUNIT_EXPECT_FALSE(test, kslot_secondary_contains(&sec, h[65]));
	newer = h[65] + kslot_test_gens(&map.slots, 2);
	KUNIT_EXPECT_EQ(test, put(&sec, newer, 9), 0);
	KUNIT_EXPECT_TRUE(test, has(&sec, newer, 9));
	for (i = 64; i < 70; i++)
		kslot_secondary_remove(&sec, h[i], NULL);
	KUNIT_EXPECT_EQ(test, kslot_secondary_retain(&sec, keep_all, NULL), 0);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.count, 65);
	KUNIT_EXPECT_EQ(test, st.capacity, 128);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_TRUE(test, has(&sec, h[i], i));
	kslot_secondary_destroy(&sec);
	kslot_map_destroy(&map, NULL, NULL);
}

static bool map_live(u64 handle, void *val, void *arg)
{
	return kslot_map_lookup(arg, handle);
}

/* Lazy clearing of the entries of handles a kslot_map has erased. */
static void kslot_secondary_test_lazy_clear_map(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_secondary sec;
	struct kslot_map map;
	u64 *h;
	int i;

	h = kunit_kcalloc(test, 200, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	map_init(test, &map, 256);
	sec_init(test, &sec, 256);
	for (i = 0; i < 200; i++) {
		h[i] = map_alloc(test, &map, i);
		KUNIT_ASSERT_EQ(test, put(&sec, h[i], i), 0);
	}
	/* Erase the first 64 (page 0) and every fourth of the rest. */
	for (i = 0; i < 200; i++)
		if (i < 64 || i % 4 == 0)
			kslot_map_remove(&map, h[i]);
	/* Until the sweep, the entries stay reachable by their handles. */
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 200);
	KUNIT_EXPECT_TRUE(test, has(&sec, h[0], 0));
	KUNIT_EXPECT_EQ(test, kslot_secondary_retain(&sec, map_live, &map),
			64 + 34);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.count, 200 - 64 - 34);
	for (i = 0; i < 200; i++)
		KUNIT_EXPECT_EQ(test, kslot_secondary_contains(&sec, h[i]),
				!(i < 64 || i % 4 == 0));
	kslot_secondary_destroy(&sec);
	kslot_map_destroy(&map, NULL, NULL);
}

static bool dense_live(u64 handle, void *val, void *arg)
{
	return kslot_dense_contains(arg, handle);
}

/*
 * Keyed by kslot_dense handles: swap-and-pop in the primary moves values
 * but not handles, so side entries stay attached.
 */
static void kslot_secondary_test_dense_primary(struct kunit *test)
{
	struct kslot_secondary sec;
	struct kslot_dense d;
	u64 h[50], x;
	int i;

	KUNIT_ASSERT_EQ(test, kslot_dense_init(&d, NULL, sizeof(u64), 64, 0),
			0);
	sec_init(test, &sec, 64);
	for (i = 0; i < 50; i++) {
		x = i;
		KUNIT_ASSERT_EQ(test, kslot_dense_insert(&d, &h[i], &x,
							 GFP_KERNEL), 0);
		if (i % 2)
			KUNIT_ASSERT_EQ(test, put(&sec, h[i], 1000 + i), 0);
	}
	for (i = 0; i < 50; i += 3)
		KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h[i], NULL), 0);
	for (i = 1; i < 50; i += 2)
		KUNIT_EXPECT_TRUE(test, has(&sec, h[i], 1000 + i));
	KUNIT_EXPECT_EQ(test, kslot_secondary_retain(&sec, dense_live, &d), 8);
	for (i = 0; i < 50; i++)
		KUNIT_EXPECT_EQ(test, kslot_secondary_contains(&sec, h[i]),
				i % 2 && i % 3);
	/* A reused dense slot gets a newer handle; its entry can be reset. */
	KUNIT_ASSERT_EQ(test, kslot_dense_insert(&d, &h[0], NULL, GFP_KERNEL),
			0);
	KUNIT_EXPECT_EQ(test, kslot_slots_handle_index(&d.slots, h[0]), 48);
	KUNIT_EXPECT_EQ(test, put(&sec, h[0], 5), 0);
	KUNIT_EXPECT_TRUE(test, has(&sec, h[0], 5));
	kslot_secondary_destroy(&sec);
	kslot_dense_destroy(&d, NULL, NULL);
}

static void kslot_secondary_test_pages(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_secondary sec;
	struct kslot_slots *f = &sec.slots;
	u32 tag = 0x5a;

	/* 12 index bits: 4000 .. 4095 are past the end. */
	sec_init(test, &sec, 4000);
	KUNIT_EXPECT_EQ(test, put(&sec, kslot_test_handle(f, 0, tag, 1), 0), 0);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, KSLOT_SLOTS_MIN);
	KUNIT_EXPECT_EQ(test, put(&sec, kslot_test_handle(f, 63, tag, 1), 63),
			0);
	KUNIT_EXPECT_EQ(test, put(&sec, kslot_test_handle(f, 1000, tag, 9),
				  1000), 0);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.count, 3);
	KUNIT_EXPECT_EQ(test, st.capacity, 1024);
	/* The highest index the map takes. */
	KUNIT_EXPECT_EQ(test, put(&sec, kslot_test_handle(f, 3999, tag, 1), 1),
			0);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, 4000);
	KUNIT_EXPECT_EQ(test, put(&sec, kslot_test_handle(f, 4000, tag, 1), 1),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, has(&sec, kslot_test_handle(f, 1000, tag, 9),
				    1000));
	KUNIT_EXPECT_TRUE(test,
			  has(&sec, kslot_test_handle(f, 63, tag, 1), 63));
	KUNIT_EXPECT_TRUE(test, has(&sec, kslot_test_handle(f, 3999, tag, 1),
				    1));
	kslot_secondary_destroy(&sec);
}

/* A slot whose last generation was removed is retired; clear() revives. */
static void kslot_secondary_test_retire(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_secondary sec;
	struct kslot_slots *f = &sec.slots;
	u64 last;

	sec_init(test, &sec, 16);
	/* 16 entries: 4 index bits leave 51 generation bits. */
	KUNIT_ASSERT_EQ(test, kslot_slots_gen_bits(f), 51);
	last = kslot_test_handle(f, 5, 9, BIT_ULL(51) - 1);
	KUNIT_EXPECT_EQ(test, put(&sec, last, 1), 0);
	KUNIT_EXPECT_EQ(test, kslot_secondary_remove(&sec, last, NULL), 0);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.retired, 1);
	KUNIT_EXPECT_EQ(test, put(&sec, last, 1), -ESTALE);
	KUNIT_EXPECT_EQ(test, put(&sec, kslot_test_handle(f, 5, 9, 1), 1),
			-ESTALE);
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 0);
	kslot_secondary_clear(&sec);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.retired, 0);
	KUNIT_EXPECT_EQ(test, put(&sec, kslot_test_handle(f, 5, 4, 1), 3), 0);
	KUNIT_EXPECT_TRUE(test, has(&sec, kslot_test_handle(f, 5, 4, 1), 3));
	kslot_secondary_destroy(&sec);
}

/* A KSLOT_SECONDARY_LOCK_IRQ map works with interrupts off. */
static void kslot_secondary_test_irq_context(struct kunit *test)
{
	struct kslot_secondary sec;
	unsigned long flags;
	struct side v;
	int i, fails = 0;
	u64 h;

	KUNIT_ASSERT_EQ(test, kslot_secondary_init(&sec, NULL, sizeof(v), 1024,
						   KSLOT_SECONDARY_LOCK_IRQ),
			0);
	flags = kslot_test_irq_enter();
	for (i = 0; i < 1024; i += 5) {
		v = sv(i);
		h = kslot_test_handle(&sec.slots, i, 1, 1);
		fails += !!kslot_secondary_insert(&sec, h, &v, GFP_ATOMIC);
	}
	for (i = 0; i < 1024; i += 5)
		fails += !has(&sec, kslot_test_handle(&sec.slots, i, 1, 1), i);
	kslot_test_irq_exit(flags);
	KUNIT_EXPECT_EQ(test, fails, 0);
	KUNIT_EXPECT_EQ(test, kslot_secondary_count(&sec), 205);
	kslot_secondary_destroy(&sec);
}

/*
 * Random operations on a kslot_dense primary and a secondary keyed by
 * its handles, against a per-index model of the secondary.
 */
#define RMAX	512

struct sec_model {
	u32 gen[RMAX];		/* Generation of the entry, 0 if none. */
	u32 past[RMAX];		/* Generation a remove left, 0 if none. */
	u64 val[RMAX];
	u32 live_gen[RMAX];	/* Primary's live generation, 0 if free. */
	u64 live[RMAX];
	u32 nlive;
	u64 stale[256];
	u32 nstale;
	u32 count;
};

static u64 pick_handle(struct sec_model *m, struct rnd_state *rnd)
{
	if (m->nstale && (!m->nlive || prandom_u32_state(rnd) % 3 == 0))
		return m->stale[prandom_u32_state(rnd) %
				min_t(u32, m->nstale, 256)];
	if (!m->nlive)
		return KSLOT_HANDLE_NULL;
	return m->live[prandom_u32_state(rnd) % m->nlive];
}

static void kslot_secondary_test_random(struct kunit *test)
{
	const u32 ops = 20000;
	struct kslot_secondary sec;
	struct rnd_state rnd;
	struct kslot_dense d;
	struct sec_model *m;
	u32 i, k, idx, gen;
	struct side v;
	u64 h;
	int ret;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	prandom_seed_state(&rnd, 0x7365636f6eULL);
	KUNIT_ASSERT_EQ(test, kslot_dense_init(&d, NULL, 4, RMAX, 0), 0);
	sec_init(test, &sec, RMAX);

	for (i = 0; i < ops; i++) {
		u32 op = prandom_u32_state(&rnd) % 100;

		if (op < 25) {
			ret = kslot_dense_insert(&d, &h, NULL, GFP_KERNEL);
			if (m->nlive == RMAX) {
				KUNIT_ASSERT_EQ(test, ret, -ENOSPC);
				continue;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			m->live[m->nlive++] = h;
			m->live_gen[kslot_slots_handle_index(&d.slots, h)] =
				kslot_slots_handle_gen(&d.slots, h);
		} else if (op < 45 && m->nlive) {
			k = prandom_u32_state(&rnd) % m->nlive;
			h = m->live[k];
			KUNIT_ASSERT_EQ(test, kslot_dense_erase(&d, h, NULL), 0);
			m->live[k] = m->live[--m->nlive];
			m->live_gen[kslot_slots_handle_index(&d.slots, h)] = 0;
			m->stale[m->nstale++ % 256] = h;
		} else if (op < 70) {
			h = pick_handle(m, &rnd);
			if (!h)
				continue;
			idx = kslot_slots_handle_index(&d.slots, h);
			gen = kslot_slots_handle_gen(&d.slots, h);
			v = sv(prandom_u32_state(&rnd));
			ret = kslot_secondary_insert(&sec, h, &v, GFP_KERNEL);
			if (m->gen[idx] > gen ||
			    (!m->gen[idx] && m->past[idx] > gen)) {
				KUNIT_ASSERT_EQ(test, ret, -ESTALE);
				continue;
			}
			KUNIT_ASSERT_EQ(test, ret, 0);
			m->count += !m->gen[idx];
			m->gen[idx] = gen;
			m->val[idx] = v.a;
		} else if (op < 95) {
			h = pick_handle(m, &rnd);
			idx = kslot_slots_handle_index(&d.slots, h);
			gen = kslot_slots_handle_gen(&d.slots, h);
			if (h && m->gen[idx] == gen)
				KUNIT_ASSERT_TRUE(test, has(&sec, h,
							    m->val[idx]));
			else
				KUNIT_ASSERT_FALSE(test,
						   kslot_secondary_contains(&sec,
									    h));
		} else if (op < 99) {
			h = pick_handle(m, &rnd);
			idx = kslot_slots_handle_index(&d.slots, h);
			gen = kslot_slots_handle_gen(&d.slots, h);
			ret = kslot_secondary_remove(&sec, h, &v);
			if (h && m->gen[idx] == gen) {
				KUNIT_ASSERT_EQ(test, ret, 0);
				KUNIT_ASSERT_EQ(test, v.a, m->val[idx]);
				m->past[idx] = gen + 1;
				m->gen[idx] = 0;
				m->count--;
			} else {
				KUNIT_ASSERT_EQ(test, ret, -ENOENT);
			}
		} else {
			u32 removed = 0;

			for (idx = 0; idx < RMAX; idx++) {
				if (!m->gen[idx] ||
				    m->gen[idx] == m->live_gen[idx])
					continue;
				m->past[idx] = m->gen[idx] + 1;
				m->gen[idx] = 0;
				m->count--;
				removed++;
			}
			KUNIT_ASSERT_EQ(test,
					kslot_secondary_retain(&sec, dense_live,
							       &d), removed);
		}
		KUNIT_ASSERT_EQ(test, kslot_secondary_count(&sec), m->count);
	}
	kunit_info(test, "%u entries, %u live handles\n", m->count,
		   m->nlive);
	kslot_secondary_destroy(&sec);
	kslot_dense_destroy(&d, NULL, NULL);
}

static void check_state(struct kunit *test, struct kslot_secondary *sec,
			const struct kslot_slots_stats *want, u32 tag)
{
	const struct kslot_slots *f = &sec->slots;
	struct kslot_slots_stats st;
	u32 i;

	kslot_secondary_stats(sec, &st);
	KUNIT_ASSERT_EQ(test, st.count, want->count);
	KUNIT_ASSERT_EQ(test, st.capacity, want->capacity);
	for (i = 0; i < 64 * 4; i += 64)
		if (i < want->count * 64)
			KUNIT_ASSERT_TRUE(test, has(sec,
						    kslot_test_handle(f, i,
								      tag, 1),
						    i));
}

/* Insert under handle index @index, failing each allocation in turn. */
static int fault_sweep(struct kunit *test, struct kslot_secondary *sec,
		       u32 index, u32 tag)
{
	struct kslot_slots_stats before;
	u64 h = kslot_test_handle(&sec->slots, index, tag, 1);
	u32 n, faults = 0;
	bool injected;
	int ret;

	kslot_secondary_stats(sec, &before);
	for (n = 1;; n++) {
		struct side v = sv(index);

		ret = kslot_test_with_fail_nth(n, &injected,
					       kslot_secondary_insert(sec, h, &v,
								      GFP_KERNEL));
		if (!injected)
			break;
		KUNIT_ASSERT_EQ(test, ret, -ENOMEM);
		KUNIT_ASSERT_FALSE(test, kslot_secondary_contains(sec, h));
		check_state(test, sec, &before, tag);
		faults++;
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE(test, has(sec, h, index));
	return faults;
}

static void kslot_secondary_test_fault(struct kunit *test)
{
	struct kslot_slots_stats st;
	struct kslot_secondary sec;
	u32 tag = 3;

	if (!kslot_test_fail_nth_usable())
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
	sec_init(test, &sec, 4096);
	/* First insert: the value, the first chunk and the directory. */
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &sec, 0, tag), 3);
	/* Within the chunk: the value only. */
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &sec, 64, tag), 1);
	/* Beyond it: the value and the next chunk (the directory has room). */
	KUNIT_EXPECT_EQ(test, fault_sweep(test, &sec, 64 * 4, tag), 2);
	kslot_secondary_stats(&sec, &st);
	KUNIT_EXPECT_EQ(test, st.capacity, 2 * KSLOT_SLOTS_MIN);
	kslot_secondary_destroy(&sec);
}

static struct kunit_case kslot_secondary_test_cases[] = {
	KUNIT_CASE(kslot_secondary_test_init),
	KUNIT_CASE(kslot_secondary_test_insert_lookup),
	KUNIT_CASE(kslot_secondary_test_generations),
	KUNIT_CASE(kslot_secondary_test_bad_handles),
	KUNIT_CASE(kslot_secondary_test_remove),
	KUNIT_CASE(kslot_secondary_test_lazy_clear_map),
	KUNIT_CASE(kslot_secondary_test_dense_primary),
	KUNIT_CASE(kslot_secondary_test_pages),
	KUNIT_CASE(kslot_secondary_test_retire),
	KUNIT_CASE(kslot_secondary_test_irq_context),
	/* Every insert and remove costs a kfree_rcu() on the debug kernel. */
	KUNIT_CASE_SLOW(kslot_secondary_test_random),
	KUNIT_CASE(kslot_secondary_test_fault),
	{}
};

static struct kunit_suite kslot_secondary_test_suite = {
	.name = "kslot_secondary",
	.test_cases = kslot_secondary_test_cases,
};

kunit_test_suite(kslot_secondary_test_suite);

MODULE_DESCRIPTION("KUnit tests for kslot_secondary");
MODULE_LICENSE("GPL");
