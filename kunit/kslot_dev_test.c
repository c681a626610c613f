// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the internals of /dev/kslot (kslot_dev.h): the handle
 * seal, and the sizes the device charges.  Header-only code, so the
 * suite tests exactly what kslot_dev.ko compiles, without the device.
 */
#include <kunit/test.h>
#include <linux/bits.h>
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

/*
 * Kernel handles of the largest table (KSLOT_MAX_ENTRIES): its 24 index
 * bits leave the fewest bits above them, tag and generation, for a
 * decoded handle to get wrong, and its index and tag are the most bits
 * that name a slot.
 */
#define H_INDEX_BITS	kslot_index_bits(KSLOT_MAX_ENTRIES)
#define H_GEN_SHIFT	(H_INDEX_BITS + KSLOT_TAG_BITS)
#define H_SLOT_MASK	(BIT_ULL(H_GEN_SHIFT) - 1)

static u64 rnd_handle(struct rnd_state *rs)
{
	u64 gen = (prandom_u32_state(rs) & (BIT(31) - 1)) | 1;

	return KSLOT_HANDLE64_BIT | gen << H_GEN_SHIFT |
	       (u64)(prandom_u32_state(rs) & KSLOT_TAG_MASK) << H_INDEX_BITS |
	       (prandom_u32_state(rs) & (BIT(H_INDEX_BITS) - 1));
}

/*
 * The user handle @uh of kernel handle @h, unsealed by @other: how often
 * it names @h's slot in a table with @h's tag (it should never).
 */
static int same_slot(const struct kslot_seal *other, u64 uh, u64 h)
{
	u64 got = kslot_unseal(other, uh);

	return (got & H_SLOT_MASK) == (h & H_SLOT_MASK);
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

/* Two keys the weak-key rule accepts: one dense, one sparse. */
static const u64 accepted[][KSLOT_SEAL_ROUNDS] = {
	{ 0x9e3779b97f4a7c15ULL, 0xff51afd7ed558ccdULL, 0xc4ceb9fe1a85ec53ULL },
	{ 0x0000030000010001ULL, 0x0000400800200001ULL, 0x0010000400800001ULL },
};

static void seal_set_rejects_even(struct kunit *test)
{
	u64 mul[KSLOT_SEAL_ROUNDS];
	struct kslot_seal s;

	memcpy(mul, accepted[0], sizeof(mul));
	KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, mul), 0);
	KUNIT_EXPECT_EQ(test, kslot_unseal(&s, kslot_seal(&s, 12345)), 12345ULL);
	mul[2] = 8;
	KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, mul), -EINVAL);
	mul[2] = 0;
	KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, mul), -EINVAL);
}

/*
 * Keys that do not mix: a multiplier, or its inverse, with 32 equal bits
 * in a row among bits 1..63.
 */
static void seal_set_rejects_weak(struct kunit *test)
{
	static const u64 weak[] = {
		1, 3, 0xffffffffULL, U64_MAX, U64_MAX - 2,
		BIT_ULL(63) | 1,		/* bits 1..62 zero */
		BIT_ULL(32) | 1,		/* its inverse: bits 32..63 one */
		0xffffffff00000001ULL,		/* bits 32..63 one */
		0x00000003fffffffdULL,		/* bits 2..33 one */
	};
	u64 mul[KSLOT_SEAL_ROUNDS];
	struct kslot_seal s;
	int i, r;

	for (i = 0; i < ARRAY_SIZE(weak); i++) {
		KUNIT_EXPECT_TRUE(test, kslot_seal_mul_weak(weak[i]) ||
				  kslot_seal_mul_weak(kslot_seal_inverse(weak[i])));
		for (r = 0; r < KSLOT_SEAL_ROUNDS; r++) {
			memcpy(mul, accepted[1], sizeof(mul));
			mul[r] = weak[i];
			KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, mul), -EINVAL);
		}
	}
	/* The run of 31 equal bits is the longest that passes. */
	KUNIT_EXPECT_FALSE(test, kslot_seal_mul_weak(0xaaaaaaab00000001ULL));
	KUNIT_EXPECT_TRUE(test, kslot_seal_mul_weak(0xaaaaaaaa00000001ULL));
	for (i = 0; i < ARRAY_SIZE(accepted); i++)
		KUNIT_EXPECT_EQ(test, kslot_seal_set(&s, accepted[i]), 0);
}

/* CREATE's keys all pass IMPORT's check. */
static void seal_init_mixes(struct kunit *test)
{
	struct kslot_seal s;
	u32 id;

	for (id = 0; id < 4096; id++) {
		kslot_seal_init(&s, &key_a, id);
		KUNIT_ASSERT_TRUE(test, kslot_seal_key_ok(s.mul));
	}
}

/*
 * Keys the rule accepts: a handle off by one or with a flipped bit never
 * decodes to the tag and generation of the handle (the neighbouring
 * slots' handles, which the key {1, 1, 1} reached).
 */
static void seal_accepted_off_by_one(struct kunit *test)
{
	struct kslot_seal s;
	struct rnd_state rs;
	int i, k, bit, same = 0;

	for (k = 0; k < ARRAY_SIZE(accepted); k++) {
		KUNIT_ASSERT_EQ(test, kslot_seal_set(&s, accepted[k]), 0);
		prandom_seed_state(&rs, 9 + k);
		for (i = 0; i < SAMPLES; i++) {
			u64 h = rnd_handle(&rs), uh = kslot_seal(&s, h);
			u64 near[] = { uh + 1, uh - 1, 0 };
			int j;

			bit = prandom_u32_state(&rs) % 64;
			near[2] = uh ^ BIT_ULL(bit);
			for (j = 0; j < ARRAY_SIZE(near); j++) {
				u64 got = kslot_unseal(&s, near[j]);

				same += got >> H_INDEX_BITS ==
					h >> H_INDEX_BITS;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, same, 0);
}

/*
 * What an open file and a command's buffer are charged is what they take
 * (kslot_dev_file_size(), kslot_acct_size(), kslot_kvmalloc_bytes()):
 * the slab object, or the pages, that a kmalloc() or kvmalloc() of their
 * size gets, not the size asked for.  A DUMP of 455 slots (16380 bytes)
 * takes 16 KiB, a dense table's bounce buffer of a 32000-byte record
 * 32 KiB.
 */
static void charge_footprint(struct kunit *test)
{
	static const size_t sizes[] = {
		1, 64, 65, 200, 4096, 4097, 4112, 9216, 16380, 32000,
	};
	struct kslot_file *f;
	struct kslot_acct *a;
	size_t bytes;
	void *p;
	int i;

	f = kunit_kmalloc(test, sizeof(*f), GFP_KERNEL);
	a = kunit_kmalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, ksize(f), kslot_dev_file_size());
	KUNIT_EXPECT_EQ(test, ksize(a), kslot_acct_size());
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		p = kvmalloc(sizes[i], GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p);
		bytes = is_vmalloc_addr(p) ? PAGE_ALIGN(sizes[i]) : ksize(p);
		kvfree(p);
		KUNIT_EXPECT_EQ_MSG(test, bytes,
				    kslot_kvmalloc_bytes(NULL, sizes[i]),
				    "a buffer of %zu bytes", sizes[i]);
	}
	KUNIT_EXPECT_EQ(test, kslot_kvmalloc_bytes(NULL, 16380), SZ_16K);
	KUNIT_EXPECT_EQ(test, kslot_kvmalloc_bytes(NULL, 32000), SZ_32K);
}

static struct kunit_case kslot_dev_test_cases[] = {
	KUNIT_CASE(seal_inverse),
	KUNIT_CASE(seal_bijection),
	KUNIT_CASE(seal_tables_differ),
	KUNIT_CASE(seal_files_differ),
	KUNIT_CASE(seal_off_by_one),
	KUNIT_CASE(seal_set_rejects_even),
	KUNIT_CASE(seal_set_rejects_weak),
	KUNIT_CASE(seal_init_mixes),
	KUNIT_CASE(seal_accepted_off_by_one),
	KUNIT_CASE(charge_footprint),
	{}
};

static struct kunit_suite kslot_dev_test_suite = {
	.name = "kslot_dev",
	.test_cases = kslot_dev_test_cases,
};

kunit_test_suite(kslot_dev_test_suite);

MODULE_DESCRIPTION("KUnit tests for /dev/kslot internals (the handle seal, the charged sizes)");
MODULE_LICENSE("GPL");
