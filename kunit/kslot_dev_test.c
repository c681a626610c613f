// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the internals of /dev/kslot (kslot_dev.h): the handle
 * seal.  Header-only code, so the suite tests exactly what kslot_dev.ko
 * compiles, without the device.
 */
#include <kunit/test.h>
#include <linux/kslot_handle.h>
#include <linux/prandom.h>

#include "kslot_dev.h"

#define SAMPLES	20000

static const siphash_key_t key_a = { { 0x0706050403020100ULL,
					0x0f0e0d0c0b0a0908ULL } };
static const siphash_key_t key_b = { { 0x0706050403020100ULL,
					0x0f0e0d0c0b0a0909ULL } };

static u64 rnd64(struct rnd_state *rs)
{
	return (u64)prandom_u32_state(rs) << 32 | prandom_u32_state(rs);
}

static void seal_inverse(struct kunit *test)
{
	struct rnd_state rs;
	int i;

	prandom_seed_state(&rs, 1);
	KUNIT_EXPECT_EQ(test, kslot_seal_inverse(1), 1ULL);
	KUNIT_EXPECT_EQ(test, kslot_seal_inverse(U64_MAX), U64_MAX);
	for (i = 0; i < SAMPLES; i++) {
		u64 m = rnd64(&rs) | 1;

		KUNIT_ASSERT_EQ(test, m * kslot_seal_inverse(m), 1ULL);
	}
}

/* unseal(seal(x)) == x and seal(unseal(x)) == x. */
static void seal_bijection(struct kunit *test)
{
	static const u64 edge[] = {
		0, 1, 2, 3, U64_MAX, U64_MAX - 1, U32_MAX, 1ULL << 32,
		(1ULL << 32) - 1, (1ULL << 32) + 1, 1ULL << 63,
		(1ULL << 63) - 1, (1ULL << 63) + 1, KSLOT_INDEX_MAX,
		0x5555555555555555ULL, 0xaaaaaaaaaaaaaaaaULL,
	};
	struct kslot_seal s;
	struct rnd_state rs;
	u32 id;
	int i;

	prandom_seed_state(&rs, 2);
	for (id = 1; id < 64; id++) {
		kslot_seal_init(&s, &key_a, id);
		KUNIT_ASSERT_EQ(test, kslot_seal(&s, 0), 0ULL);
		KUNIT_ASSERT_EQ(test, kslot_unseal(&s, 0), 0ULL);
		for (i = 0; i < ARRAY_SIZE(edge); i++) {
			KUNIT_ASSERT_EQ(test,
					kslot_unseal(&s, kslot_seal(&s, edge[i])),
					edge[i]);
			KUNIT_ASSERT_EQ(test,
					kslot_seal(&s, kslot_unseal(&s, edge[i])),
					edge[i]);
		}
		for (i = 0; i < SAMPLES / 16; i++) {
			u64 x = rnd64(&rs);

			KUNIT_ASSERT_EQ(test, kslot_unseal(&s, kslot_seal(&s, x)),
					x);
			KUNIT_ASSERT_EQ(test, kslot_seal(&s, kslot_unseal(&s, x)),
					x);
		}
	}
}

static u64 rnd_handle(struct rnd_state *rs)
{
	return kslot_handle_make(prandom_u32_state(rs) & KSLOT_INDEX_MAX,
				 prandom_u32_state(rs) & KSLOT_TAG_MASK,
				 prandom_u32_state(rs) | 1);
}

/*
 * The user handle @uh of kernel handle @h, unsealed by @other: how often
 * it names @h's slot in a table with @h's tag (it should never).
 */
static int same_slot(const struct kslot_seal *other, u64 uh, u64 h)
{
	u64 got = kslot_unseal(other, uh);

	return kslot_handle_index(got) == kslot_handle_index(h) &&
	       kslot_handle_tag(got) == kslot_handle_tag(h);
}

/* Two keys: no sealed handle is equal, none names the same slot. */
static void check_differ(struct kunit *test, const struct kslot_seal *a,
			 const struct kslot_seal *b, u32 seed)
{
	struct rnd_state rs;
	int i, equal = 0, slot = 0;

	prandom_seed_state(&rs, seed);
	for (i = 0; i < SAMPLES; i++) {
		u64 h = rnd_handle(&rs);

		equal += kslot_seal(a, h) == kslot_seal(b, h);
		slot += same_slot(b, kslot_seal(a, h), h);
	}
	KUNIT_EXPECT_EQ(test, equal, 0);
	KUNIT_EXPECT_EQ(test, slot, 0);
}

static void seal_tables_differ(struct kunit *test)
{
	struct kslot_seal a, b;

	kslot_seal_init(&a, &key_a, 1);
	kslot_seal_init(&b, &key_a, 2);
	check_differ(test, &a, &b, 3);
	/* Every bit of the table id counts (bits 29-30 too). */
	kslot_seal_init(&b, &key_a, 1 | BIT(29));
	check_differ(test, &a, &b, 4);
	kslot_seal_init(&b, &key_a, 1 | BIT(30));
	check_differ(test, &a, &b, 5);
	kslot_seal_init(&b, &key_a, 1 | BIT(31));
	check_differ(test, &a, &b, 6);
}

static void seal_files_differ(struct kunit *test)
{
	struct kslot_seal a, b;

	/* Secrets one bit apart, same table id. */
	kslot_seal_init(&a, &key_a, 1);
	kslot_seal_init(&b, &key_b, 1);
	check_differ(test, &a, &b, 7);
}

/* A user handle off by one (either way) or one bit flipped: another slot. */
static void seal_off_by_one(struct kunit *test)
{
	struct kslot_seal s;
	struct rnd_state rs;
	int i, bit, slot = 0;

	kslot_seal_init(&s, &key_a, 1);
	prandom_seed_state(&rs, 8);
	for (i = 0; i < SAMPLES; i++) {
		u64 h = rnd_handle(&rs), uh = kslot_seal(&s, h);

		slot += same_slot(&s, uh + 1, h);
		slot += same_slot(&s, uh - 1, h);
		bit = prandom_u32_state(&rs) % 64;
		slot += same_slot(&s, uh ^ BIT_ULL(bit), h);
	}
	KUNIT_EXPECT_EQ(test, slot, 0);
}

static void seal_set_rejects_even(struct kunit *test)
{
	u64 mul[KSLOT_SEAL_ROUNDS] = { 3, 5, 7 };
	struct kslot_seal s;

	KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, mul), 0);
	KUNIT_EXPECT_EQ(test, kslot_unseal(&s, kslot_seal(&s, 12345)), 12345ULL);
	mul[2] = 8;
	KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, mul), -EINVAL);
	mul[2] = 0;
	KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, mul), -EINVAL);
}

static struct kunit_case kslot_dev_test_cases[] = {
	KUNIT_CASE(seal_inverse),
	KUNIT_CASE(seal_bijection),
	KUNIT_CASE(seal_tables_differ),
	KUNIT_CASE(seal_files_differ),
	KUNIT_CASE(seal_off_by_one),
	KUNIT_CASE(seal_set_rejects_even),
	{}
};

static struct kunit_suite kslot_dev_test_suite = {
	.name = "kslot_dev",
	.test_cases = kslot_dev_test_cases,
};

kunit_test_suite(kslot_dev_test_suite);

MODULE_DESCRIPTION("KUnit tests for /dev/kslot internals (the handle seal)");
MODULE_LICENSE("GPL");
