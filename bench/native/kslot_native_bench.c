// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark driver: kslot against the kernel's XArray, both built
 * as ordinary userspace code, on the machine's real caches.
 *
 *   kslot_native_bench [-r REPS] [-s SEED] [SIZE...]
 *	prints "ok N native_<name> size=.. kslot_ns=.. anchor=.. anchor_ns=.."
 *   kslot_native_bench --count N
 *	one pass of each lookup over N entries in random order, for
 *	valgrind --tool=callgrind (instructions per call)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_bench.h"

static unsigned int reps = 5;
static unsigned int tests;
static uint64_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return rnd_state >> 33;
}

struct keys {
	uint32_t n;
	uint32_t *perm;
	uint64_t *h, *rh;
	uint32_t *id, *rid;
};

static void row(const char *name, uint32_t n, double k, const char *anchor,
		double a)
{
	printf("ok %u native_%s size=%u kslot_ns=%.2f anchor=%s anchor_ns=%.2f\n",
	       ++tests, name, n, k, anchor, a);
	fflush(stdout);
}

static void fail(const char *name, uint32_t n)
{
	printf("not ok %u native_%s size=%u\n", ++tests, name, n);
	fflush(stdout);
}

static uint32_t passes_for(uint32_t n)
{
	uint32_t p = (1U << 22) / (n ? n : 1);

	return p ? p : 1;
}

static void keys_init(struct keys *k, uint32_t n, unsigned int seed)
{
	uint32_t i;

	k->n = n;
	k->perm = malloc(sizeof(*k->perm) * n);
	k->h = malloc(sizeof(*k->h) * n);
	k->rh = malloc(sizeof(*k->rh) * n);
	k->id = malloc(sizeof(*k->id) * n);
	k->rid = malloc(sizeof(*k->rid) * n);
	if (!k->perm || !k->h || !k->rh || !k->id || !k->rid) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	rnd_state = seed;
	for (i = 0; i < n; i++)
		k->perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		uint32_t j = rnd() % (i + 1), t = k->perm[i];

		k->perm[i] = k->perm[j];
		k->perm[j] = t;
	}
}

static void keys_shuffle(struct keys *k)
{
	uint32_t i;

	for (i = 0; i < k->n; i++) {
		k->rh[i] = k->h[k->perm[i]];
		k->rid[i] = k->id[k->perm[i]];
	}
}

static void keys_free(struct keys *k)
{
	free(k->perm);
	free(k->h);
	free(k->rh);
	free(k->id);
	free(k->rid);
}

#define BEST(expr) ({							\
	uint64_t __best = UINT64_MAX;					\
	for (unsigned int __r = 0; __r < reps; __r++) {			\
		uint64_t __t = (expr);					\
		if (__t && __t < __best)				\
			__best = __t;					\
	}								\
	__best == UINT64_MAX ? 0 : __best; })

static double per(uint64_t ns, uint64_t ops)
{
	return ops ? (double)ns / ops : 0;
}

static void run_size(uint32_t n, unsigned int seed)
{
	static const char * const order[] = { "seq", "rand" };
	uint32_t passes = passes_for(n);
	struct keys k;
	uint64_t a, b, c;
	char name[48];
	int o;

	keys_init(&k, n, seed);
	a = BEST(kn_map_alloc_time(n, k.h));
	b = BEST(xn_alloc_time(n, k.id));
	if (!a || !b || kn_map_check(k.h, n) || xn_check(k.id, n) ||
	    kn_floor_fill(n)) {
		fail("map_alloc", n);
		keys_free(&k);
		return;
	}
	row("map_alloc", n, per(a, n), "xa_alloc", per(b, n));
	keys_shuffle(&k);

	for (o = 0; o < 2; o++) {
		const uint64_t *h = o ? k.rh : k.h;
		const uint32_t *id = o ? k.rid : k.id;

		a = BEST(kn_map_lookup_time(h, n, passes));
		b = BEST(xn_load_time(id, n, passes));
		snprintf(name, sizeof(name), "map_lookup_%s", order[o]);
		row(name, n, per(a, (uint64_t)n * passes), "xa_load",
		    per(b, (uint64_t)n * passes));
		a = BEST(kn_map_lookup_inline_time(h, n, passes));
		c = BEST(kn_floor_inline_time(h, n, passes));
		snprintf(name, sizeof(name), "map_lookup_inline_%s", order[o]);
		row(name, n, per(a, (uint64_t)n * passes), "flat_floor_inline",
		    per(c, (uint64_t)n * passes));
		row(name, n, per(a, (uint64_t)n * passes), "xa_load",
		    per(b, (uint64_t)n * passes));
		c = BEST(xn_xas_load_time(id, n, passes));
		row(name, n, per(a, (uint64_t)n * passes), "xas_load_caller_rcu",
		    per(c, (uint64_t)n * passes));
	}

	a = BEST(kn_map_churn_time(k.rh, n));
	b = BEST(xn_churn_time(k.rid, n));
	row("map_alloc_remove", n, per(a, n), "xa_alloc+xa_erase", per(b, n));

	/* Removal of every entry in random order, from a fresh fill. */
	a = UINT64_MAX;
	b = UINT64_MAX;
	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t;

		kn_map_fill(n, k.h);
		xn_fill(n, k.id);
		keys_shuffle(&k);
		t = kn_map_remove_time(k.rh, n);
		a = t < a ? t : a;
		t = xn_erase_time(k.rid, n);
		b = t < b ? t : b;
	}
	row("map_remove_rand", n, per(a, n), "xa_erase", per(b, n));

	xn_fill(n, k.id);
	if (kn_dense_fill(n)) {
		fail("dense_iter", n);
	} else {
		a = BEST(kn_dense_iter_time(passes));
		b = BEST(xn_iter_time(passes));
		row("dense_iter", n, per(a, (uint64_t)n * passes),
		    "xa_for_each", per(b, (uint64_t)n * passes));
	}

	for (o = 0; o < 3; o++) {
		static const unsigned int pct[] = { 0, 50, 90 };
		uint32_t erase = (uint64_t)n * pct[o] / 100, live = n - erase;
		uint32_t lp = passes_for(live);

		snprintf(name, sizeof(name), "hive_iter_%u", pct[o]);
		if (!live || kn_hive_fill(n, k.perm, erase)) {
			fail(name, n);
			continue;
		}
		a = BEST(kn_hive_iter_time(lp));
		b = BEST(kn_packed_iter_time(live, lp));
		row(name, n, per(a, (uint64_t)live * lp), "packed_array",
		    per(b, (uint64_t)live * lp));
	}

	for (o = 0; o < 2; o++) {
		unsigned int size = o ? 512 : 64;
		uint32_t ops = 1U << 22;

		snprintf(name, sizeof(name), "pool_hot_%u", size);
		a = BEST(kn_pool_hot_time(size, ops));
		b = BEST(kn_malloc_hot_time(size, ops));
		row(name, n, per(a, ops), "malloc+free", per(b, ops));
	}
	keys_free(&k);
}

/* One pass of each lookup, for callgrind. */
static int count_mode(uint32_t n)
{
	struct keys k;

	keys_init(&k, n, 1);
	if (kn_map_fill(n, k.h) || xn_fill(n, k.id) || kn_floor_fill(n))
		return 1;
	keys_shuffle(&k);
	kn_count_lookups(k.rh, n);
	kn_count_map_lookups(k.rh, n);
	kn_count_floor(k.rh, n);
	xn_count_loads(k.rid, n);
	kn_count_pool(n);
	printf("# sink %lu\n", (kn_sink() + xn_sink()) & 1);
	keys_free(&k);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int seed = 20240607;
	int i;

	if (kn_setup() || xn_setup()) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "--count"))
		return count_mode(strtoul(argv[2], NULL, 0));
	printf("TAP version 13\n");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else
			run_size(strtoul(argv[i], NULL, 0), seed);
	}
	printf("1..%u\n", tests);
	return 0;
}
