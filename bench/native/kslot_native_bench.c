// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark driver: kslot against the kernel's XArray and Rust's
 * slotmap crate, all built as ordinary userspace code, on the machine's
 * real caches.  Every side gets the same sizes, the same values, the same
 * permutation for random order (one seeded shuffle per size) and the same
 * number of repetitions; each figure is the best of them.
 *
 *   kslot_native_bench [-r REPS] [-s SEED] [--hive] [SIZE...]
 *	prints "ok N native_<name> size=.. kslot_ns=.. anchor=.. anchor_ns=.."
 *	(2-CPU rows add XArray's own figures as more key=value pairs)
 *	native_grow_stall rows: the longest writer call while another thread
 *	fills a fresh table to SIZE (kslot_ns/anchor_ns = worst ns)
 *   kslot_native_bench --stall N
 *	only the growth-stall and lock-hold rows
 *	for every size (after --hive: only the hive's rows; after --dense:
 *	only kslot_dense's)
 *   kslot_native_bench --dense-iter SIZE...
 *	only kslot_dense's iteration against a packed array, in turn
 *   kslot_native_bench --layout SIZE...
 *	a packed array against the same values in pieces with gaps between
 *	them (the layout of kslot_dense's chunks), in turn
 *   kslot_native_bench --twolevel SIZE...
 *	only the two-level tables' lookups against the flat floor and the
 *	map's own (growth scheme b, see run_twolevel())
 *   kslot_native_bench_count --count-atomics N
 *	atomic read-modify-writes per alloc+remove pair and per lookup
 *	(the counting build)
 *   kslot_native_bench --count N
 *	one pass of each lookup over N entries in random order, and N hive
 *	and kslot_dense inserts, N/2 random erases and a walk, for
 *	valgrind --tool=callgrind (instructions per call)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "native_bench.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Repetitions; sizes of BIG_SIZE entries or more run at most BIG_REPS. */
#define BIG_SIZE	4194304U
#define BIG_REPS	3
static unsigned int reps = 5, size_reps;
static unsigned int tests;
static int sets_only;
static int hive_only, dense_only, dense_iter_only, layout_only;
static int churn_only, twolevel_only;
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

/* The random permutation, and unless @perm_only the handle arrays. */
static void keys_init(struct keys *k, uint32_t n, unsigned int seed,
		      int perm_only)
{
	uint32_t i;

	memset(k, 0, sizeof(*k));
	k->n = n;
	k->perm = malloc(sizeof(*k->perm) * n);
	if (!perm_only) {
		k->h = malloc(sizeof(*k->h) * n);
		k->rh = malloc(sizeof(*k->rh) * n);
		k->id = malloc(sizeof(*k->id) * n);
		k->rid = malloc(sizeof(*k->rid) * n);
	}
	if (!k->perm || (!perm_only && (!k->h || !k->rh || !k->id || !k->rid))) {
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
	for (unsigned int __r = 0; __r < size_reps; __r++) {		\
		uint64_t __t = (expr);					\
		if (__t && __t < __best)				\
			__best = __t;					\
	}								\
	__best == UINT64_MAX ? 0 : __best; })

static double per(uint64_t ns, uint64_t ops)
{
	return ops ? (double)ns / ops : 0;
}

/*
 * Two CPUs doing alloc+remove on one table: each thread churns its own
 * half of the first SMP_OPS handles in random order (all of them in tables
 * of up to SMP_OPS entries).  The time is the wall clock from the release
 * of both threads to the end of the later one.
 */
#define SMP_OPS		4194304U

struct part {
	pthread_t thread;
	pthread_barrier_t *start;
	int cpu, xa;
	uint64_t *h;
	uint32_t *id;
	uint32_t n;
	uint64_t t0, t1, ok;
};

static void *part_main(void *arg)
{
	struct part *p = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	kn_thread_start(p->cpu);
	xn_thread_start();
	pthread_barrier_wait(p->start);
	p->t0 = nb_now();
	p->ok = p->xa ? xn_churn_time(p->id, p->n) : kn_map_churn_time(p->h, p->n);
	p->t1 = nb_now();
	xn_thread_stop();
	kn_thread_stop();
	return NULL;
}

static uint64_t churn_threads(struct keys *k, uint32_t ops, int threads,
			      int xa)
{
	struct part parts[2];
	pthread_barrier_t start;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int i, ok = 1;

	pthread_barrier_init(&start, NULL, threads);
	for (i = 0; i < threads; i++) {
		uint32_t from = (uint64_t)ops * i / threads;
		uint32_t to = (uint64_t)ops * (i + 1) / threads;

		parts[i] = (struct part){ .start = &start, .cpu = i, .xa = xa,
			.h = k->rh + from, .id = k->rid + from, .n = to - from };
		if (pthread_create(&parts[i].thread, NULL, part_main, &parts[i])) {
			fprintf(stderr, "pthread_create failed\n");
			exit(1);
		}
	}
	for (i = 0; i < threads; i++) {
		pthread_join(parts[i].thread, NULL);
		ok &= parts[i].ok != 0;
		t0 = parts[i].t0 < t0 ? parts[i].t0 : t0;
		t1 = parts[i].t1 > t1 ? parts[i].t1 : t1;
	}
	pthread_barrier_destroy(&start);
	return ok ? t1 - t0 : 0;
}

static void run_smp2(struct keys *k)
{
	uint32_t n = k->n, ops = n < SMP_OPS ? n : SMP_OPS;
	double k1, k2, x1, x2;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || n < 2) {
		printf("# native: smp2_map_alloc_remove size=%u skipped: %s\n",
		       n, "fewer than 2 CPUs");
		return;
	}
	k1 = per(BEST(churn_threads(k, ops, 1, 0)), ops);
	k2 = per(BEST(churn_threads(k, ops, 2, 0)), ops);
	x1 = per(BEST(churn_threads(k, ops, 1, 1)), ops);
	x2 = per(BEST(churn_threads(k, ops, 2, 1)), ops);
	if (!k1 || !k2 || !x1 || !x2 || kn_map_check_live(k->rh, n) ||
	    xn_check_live(k->rid, n)) {
		fail("smp2_map_alloc_remove", n);
		return;
	}
	/* ratio = 2-CPU throughput / 1-CPU throughput, XArray's beside it. */
	printf("ok %u native_smp2_map_alloc_remove size=%u kslot_ns=%.2f ",
	       ++tests, n, k2);
	printf("anchor=kslot_map_1cpu anchor_ns=%.2f ", k1);
	printf("xa_1cpu_ns=%.2f xa_2cpu_ns=%.2f xa_ratio=%.3f\n", x1, x2,
	       x1 / x2);
	row("smp2_map_alloc_remove", n, k2, "xa_alloc+xa_erase_2cpu", x2);
}

/*
 * Best of size_reps runs of two loops taken in turn, so that kslot and its
 * anchor see the same load on a shared machine.
 */
#define BEST2(ea, eb, pa, pb) do {					\
	uint64_t __a = UINT64_MAX, __b = UINT64_MAX, __t;		\
	for (unsigned int __r = 0; __r < size_reps; __r++) {		\
		__t = (ea);						\
		if (__t && __t < __a)					\
			__a = __t;					\
		__t = (eb);						\
		if (__t && __t < __b)					\
			__b = __t;					\
	}								\
	*(pa) = __a == UINT64_MAX ? 0 : __a;				\
	*(pb) = __b == UINT64_MAX ? 0 : __b;				\
} while (0)

/*
 * slotmap's rows, each kslot figure measured again in turn with the
 * anchor's.  The kslot map is refilled (k->h, k->rh) and left empty.
 */
static void run_slotmap(struct keys *k, int dense_ok)
{
	static const char * const order[] = { "seq", "rand" };
	uint32_t n = k->n, passes = passes_for(n), kind;
	uint64_t lookups = (uint64_t)n * passes, a, b;
	char name[48];
	int o;

	for (kind = 0; kind < sn_kinds(); kind++) {
		const char *anchor = sn_name(kind);

		BEST2(kn_map_alloc_time(n, k->h), sn_alloc_time(kind, n), &a,
		      &b);
		if (!a || !b || kn_map_check(k->h, n) || sn_check(kind, n)) {
			fail("map_alloc", n);
			sn_free(kind);
			continue;
		}
		row("map_alloc", n, per(a, n), anchor, per(b, n));
		keys_shuffle(k);
		sn_shuffle(kind, k->perm, n);
		for (o = 0; o < 2; o++) {
			const uint64_t *h = o ? k->rh : k->h;

			BEST2(kn_map_lookup_time(h, n, passes),
			      sn_lookup_time(kind, o, passes), &a, &b);
			snprintf(name, sizeof(name), "map_lookup_%s", order[o]);
			row(name, n, per(a, lookups), anchor, per(b, lookups));
			BEST2(kn_map_lookup_inline_time(h, n, passes),
			      sn_lookup_time(kind, o, passes), &a, &b);
			snprintf(name, sizeof(name), "map_lookup_inline_%s",
				 order[o]);
			row(name, n, per(a, lookups), anchor, per(b, lookups));
			BEST2(kn_map_read_time(h, n, passes),
			      sn_lookup_time(kind, o, passes), &a, &b);
			snprintf(name, sizeof(name), "map_read_batch_%s",
				 order[o]);
			row(name, n, per(a, lookups), anchor, per(b, lookups));
		}
		BEST2(kn_map_churn_time(k->rh, n), sn_churn_time(kind), &a, &b);
		row("map_alloc_remove", n, per(a, n), anchor, per(b, n));
		BEST2(kn_map_bulk_churn_time(k->rh, n), sn_churn_time(kind), &a,
		      &b);
		row("map_alloc_remove_bulk", n, per(a, n), anchor, per(b, n));

		a = UINT64_MAX;
		b = UINT64_MAX;
		for (unsigned int r = 0; r < size_reps; r++) {
			uint64_t t;

			kn_map_fill(n, k->h);
			keys_shuffle(k);
			t = kn_map_remove_time(k->rh, n);
			a = t < a ? t : a;
			sn_alloc_time(kind, n);
			sn_shuffle(kind, k->perm, n);
			t = sn_remove_time(kind);
			b = t && t < b ? t : b;
		}
		row("map_remove_rand", n, per(a, n), anchor, per(b, n));

		sn_alloc_time(kind, n);
		if (dense_ok) {
			BEST2(kn_dense_iter_time(passes),
			      sn_iter_time(kind, passes), &a, &b);
			row("dense_iter", n, per(a, lookups), anchor,
			    per(b, lookups));
		}
		sn_free(kind);
	}
}

struct stall_side {
	int (*setup)(void);
	int (*poke)(void);
	int (*alloc)(void);
};

#define STALL_US	65536

struct stall_run {
	const struct stall_side *side;
	int stop, started;		/* __atomic */
	uint64_t poke_max, alloc_max, pokes;
	uint32_t us[STALL_US];		/* poke latencies, 1 us buckets */
};

/* The latency (ns, at 1 us resolution) below which @frac of the pokes ran. */
static double stall_pct(const struct stall_run *r, double frac)
{
	uint64_t want = r->pokes * frac, seen = 0;
	uint32_t i;

	for (i = 0; i < STALL_US; i++) {
		seen += r->us[i];
		if (seen >= want)
			return (i + 1) * 1000.0;
	}
	return r->poke_max;
}

static void *stall_poker(void *arg)
{
	struct stall_run *r = arg;

	kn_thread_start(1);
	xn_thread_start();
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		uint64_t t = nb_now();

		if (r->side->poke())
			break;
		t = nb_now() - t;
		if (t > r->poke_max)
			r->poke_max = t;
		r->us[t / 1000 < STALL_US ? t / 1000 : STALL_US - 1]++;
		r->pokes++;
		__atomic_store_n(&r->started, 1, __ATOMIC_RELAXED);
	}
	xn_thread_stop();
	kn_thread_stop();
	return NULL;
}

/*
 * Fill a fresh table to @n while another thread writes: worst latencies.
 * The same fill runs once before, untimed and torn down, so that the
 * memory the table takes is mapped already, as the kernel's direct map
 * is: a growth then pays for its allocation, not for the page faults of
 * memory the process never touched (which the shim's arena takes a huge
 * page at a time, and glibc's heap, XArray's nodes, as it grows).
 */
static int stall_measure(const struct stall_side *side, uint32_t n,
			 struct stall_run *r)
{
	pthread_t thread;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->side = side;
	if (side->setup())
		return -1;
	for (i = 1; i < n; i++)
		if (side->alloc())
			return -1;
	if (side->setup() || pthread_create(&thread, NULL, stall_poker, r))
		return -1;
	while (!__atomic_load_n(&r->started, __ATOMIC_RELAXED))
		;
	for (i = 1; i < n; i++) {
		uint64_t t = nb_now();

		if (side->alloc())
			break;
		t = nb_now() - t;
		if (t > r->alloc_max)
			r->alloc_max = t;
	}
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	return i == n ? 0 : -1;
}

static const struct stall_side kn_stall = {
	kn_stall_setup, kn_stall_poke, kn_stall_alloc,
};

static const struct stall_side kn_dense_stall = {
	kn_dense_stall_setup, kn_dense_stall_poke, kn_dense_stall_alloc,
};

static const struct stall_side xn_stall = {
	xn_stall_setup, xn_stall_poke, xn_stall_alloc,
};

/*
 * The longest lock hold of kslot_dense_clear() of n values (thread CPU
 * time, best of 3), against the whole clear (the in-kernel row
 * dense_clear_longest_hold measures the same from another CPU), with the
 * number of holds and the 99.9th and 99.99th percentiles of the best run:
 * on a shared machine the longest of thousands of holds is the one the
 * machine preempted.
 */
static void run_dense_clear(uint32_t n)
{
	struct kn_hold best = { .max = UINT64_MAX }, r;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (kn_dense_clear_hold(n, &r)) {
			fail("dense_clear_lock_hold_max", n);
			return;
		}
		if (r.max < best.max)
			best = r;
	}
	printf("ok %u native_dense_clear_lock_hold_max size=%u kslot_ns=%lu ",
	       ++tests, n, best.max);
	printf("anchor=dense_clear_whole anchor_ns=%lu holds=%lu p999_ns=%lu p9999_ns=%lu\n",
	       best.whole, best.holds, best.p999, best.p9999);
	fflush(stdout);
}

static void run_stall(uint32_t n)
{
	static struct stall_run k, x, d;
	uint64_t a, b;

	if (stall_measure(&kn_stall, n, &k) || stall_measure(&xn_stall, n, &x) ||
	    stall_measure(&kn_dense_stall, n, &d)) {
		fail("grow_stall", n);
		return;
	}
	/* The machine's scheduler adds to the max; p99.99 is the table's. */
	row("grow_stall_writer_max", n, k.poke_max, "xa_store_during_xa_alloc",
	    x.poke_max);
	row("grow_stall_writer_p9999", n, stall_pct(&k, 0.9999),
	    "xa_store_during_xa_alloc", stall_pct(&x, 0.9999));
	row("grow_stall_writer_p999999", n, stall_pct(&k, 0.999999),
	    "xa_store_during_xa_alloc", stall_pct(&x, 0.999999));
	row("grow_stall_alloc_max", n, k.alloc_max, "xa_alloc_worst",
	    x.alloc_max);
	/* kslot_dense, 64-byte records: an update while inserts grow it. */
	row("dense_grow_stall_writer_max", n, d.poke_max, "map_replace",
	    k.poke_max);
	row("dense_grow_stall_writer_p999999", n, stall_pct(&d, 0.999999),
	    "map_replace", stall_pct(&k, 0.999999));
	row("dense_grow_stall_insert_max", n, d.alloc_max, "map_alloc",
	    k.alloc_max);
	/* The longest lock hold of a fill to n (thread CPU time), best of 3. */
	size_reps = 3;
	a = BEST(kn_grow_hold_time(n, 0));
	b = BEST(kn_grow_hold_time(n, 1));
	row("dense_grow_lock_hold_max", n, a, "map_grow_lock_hold_max", b);
	run_dense_clear(n);
}

/*
 * The hive: insert, erase of every element in random order (against
 * kslot_dense's, the same count and order), fill and erase of a random
 * half, fill, erase of every other one and refill (kslot_dense the same),
 * iteration at 0/50/90% erased (against a packed array of the live
 * count).
 */
static void run_hive(uint32_t n, const struct keys *k)
{
	uint64_t a, b;
	char name[48];
	int o;

	a = BEST(kn_hive_insert_time(n));
	b = BEST(kn_dense_insert_time(n));
	if (!a || !b)
		fail("hive_insert", n);
	else
		row("hive_insert", n, per(a, n), "dense_insert", per(b, n));

	a = UINT64_MAX;
	b = UINT64_MAX;
	/* Beyond 1M a repetition is seconds of DRAM misses: two suffice. */
	for (unsigned int r = 0; r < (n > (1U << 20) && reps > 2 ? 2 : reps);
	     r++) {
		uint64_t t;

		t = kn_hive_insert_time(n) ? kn_hive_erase_time(k->perm, n) : 0;
		a = t && t < a ? t : a;
		t = kn_dense_insert_time(n) ? kn_dense_erase_time(k->perm, n) : 0;
		b = t && t < b ? t : b;
	}
	if (a == UINT64_MAX || b == UINT64_MAX)
		fail("hive_erase_rand", n);
	else
		row("hive_erase_rand", n, per(a, n), "dense_erase_rand",
		    per(b, n));

	/*
	 * The shape of plf::hive's benchmarks, per operation: fill and erase
	 * a random half (n + n/2 operations); fill, erase every other one,
	 * refill as many (2n).
	 */
	a = BEST(kn_hive_churn_time(n, k->perm, n / 2, 0));
	b = BEST(kn_dense_churn_time(n, k->perm, n / 2, 0));
	if (!a || !b)
		fail("hive_fill_erase_half", n);
	else
		row("hive_fill_erase_half", n, per(a, n + n / 2),
		    "dense_fill_erase_half", per(b, n + n / 2));
	a = BEST(kn_hive_churn_time(n, NULL, n / 2, n / 2));
	b = BEST(kn_dense_churn_time(n, NULL, n / 2, n / 2));
	if (!a || !b)
		fail("hive_fill_erase2_refill", n);
	else
		row("hive_fill_erase2_refill", n, per(a, 2 * (n / 2) + n),
		    "dense_fill_erase2_refill", per(b, 2 * (n / 2) + n));

	for (o = 0; o < 3; o++) {
		static const unsigned int pct[] = { 0, 50, 90 };
		uint32_t erase = (uint64_t)n * pct[o] / 100, live = n - erase;
		uint32_t lp = passes_for(live);

		snprintf(name, sizeof(name), "hive_iter_%u", pct[o]);
		if (!live || kn_hive_fill(n, k->perm, erase)) {
			fail(name, n);
			continue;
		}
		a = BEST(kn_hive_iter_time(lp));
		b = BEST(kn_packed_iter_time(live, lp));
		row(name, n, per(a, (uint64_t)live * lp), "packed_array",
		    per(b, (uint64_t)live * lp));
	}
}

/*
 * Growth scheme (b): random lookups, inlined into the caller's loop, in the
 * two-level tables of kn_tl_fill() (doubling chunks under an embedded
 * directory; fixed chunks under an RCU-published one) against the flat
 * floor and against the map's own inline lookup, the four loops taken in
 * turn.  The map and the floor are filled (k->h, k->rh).
 */
static void run_twolevel(struct keys *k)
{
	uint32_t n = k->n, passes = passes_for(n);
	uint64_t lookups = (uint64_t)n * passes, best[4], t;
	unsigned int r, i;

	if (kn_tl_fill(k->h, n) || kn_tl_check(k->h, n)) {
		fail("twolevel_lookup_inline_rand", n);
		kn_tl_free();
		return;
	}
	for (i = 0; i < 4; i++)
		best[i] = UINT64_MAX;
	for (r = 0; r < size_reps; r++) {
		for (i = 0; i < 4; i++) {
			t = i == 0 ? kn_floor_inline_time(k->rh, n, passes) :
			    i == 1 ? kn_map_lookup_inline_time(k->rh, n, passes) :
			    i == 2 ? kn_tl_inline_time(k->rh, n, passes) :
				     kn_fc_inline_time(k->rh, n, passes);
			best[i] = t && t < best[i] ? t : best[i];
		}
	}
	kn_tl_free();
	row("twolevel_lookup_inline_rand", n, per(best[2], lookups),
	    "flat_floor_inline", per(best[0], lookups));
	row("twolevel_lookup_inline_rand", n, per(best[2], lookups),
	    "map_lookup_inline", per(best[1], lookups));
	row("chunked_lookup_inline_rand", n, per(best[3], lookups),
	    "flat_floor_inline", per(best[0], lookups));
	row("chunked_lookup_inline_rand", n, per(best[3], lookups),
	    "map_lookup_inline", per(best[1], lookups));
}

/* --twolevel: only run_twolevel()'s rows. */
static void run_twolevel_size(uint32_t n, unsigned int seed)
{
	struct keys k;

	size_reps = n >= BIG_SIZE && reps > BIG_REPS ? BIG_REPS : reps;
	keys_init(&k, n, seed, 0);
	if (kn_map_fill(n, k.h) || kn_floor_fill(n)) {
		fail("twolevel_lookup_inline_rand", n);
	} else {
		keys_shuffle(&k);
		run_twolevel(&k);
	}
	keys_free(&k);
}

/*
 * --churn: only the alloc+remove rows, as run_size() and run_slotmap()
 * measure them (against xa_alloc+xa_erase, the 2-CPU row, against
 * slotmap::SlotMap), for a quick comparison of builds.
 */
static void run_churn(uint32_t n, unsigned int seed)
{
	struct keys k;
	uint64_t a, b;

	size_reps = n >= BIG_SIZE && reps > BIG_REPS ? BIG_REPS : reps;
	keys_init(&k, n, seed, 0);
	if (kn_map_fill(n, k.h) || xn_fill(n, k.id)) {
		fail("map_alloc_remove", n);
		keys_free(&k);
		return;
	}
	keys_shuffle(&k);
	a = BEST(kn_map_churn_time(k.rh, n));
	b = BEST(xn_churn_time(k.rid, n));
	row("map_alloc_remove", n, per(a, n), "xa_alloc+xa_erase", per(b, n));
	run_smp2(&k);
	if (sn_alloc_time(0, n)) {
		sn_shuffle(0, k.perm, n);
		BEST2(kn_map_churn_time(k.rh, n), sn_churn_time(0), &a, &b);
		row("map_alloc_remove", n, per(a, n), sn_name(0), per(b, n));
		BEST2(kn_map_bulk_churn_time(k.rh, n), sn_churn_time(0), &a,
		      &b);
		row("map_alloc_remove_bulk", n, per(a, n), sn_name(0),
		    per(b, n));
		sn_free(0);
	} else {
		fail("map_alloc_remove", n);
	}
	keys_free(&k);
}

static void run_size(uint32_t n, unsigned int seed)
{
	static const char * const order[] = { "seq", "rand" };
	uint32_t passes = passes_for(n);
	uint64_t lookups = (uint64_t)n * passes;
	struct keys k;
	int dense_ok;
	uint64_t a, b, c;
	char name[48];
	int o;

	size_reps = n >= BIG_SIZE && reps > BIG_REPS ? BIG_REPS : reps;
	keys_init(&k, n, seed, 0);
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
		row(name, n, per(a, lookups), "xa_load", per(b, lookups));
		a = BEST(kn_map_lookup_inline_time(h, n, passes));
		c = BEST(kn_floor_inline_time(h, n, passes));
		snprintf(name, sizeof(name), "map_lookup_inline_%s", order[o]);
		row(name, n, per(a, lookups), "flat_floor_inline",
		    per(c, lookups));
		row(name, n, per(a, lookups), "xa_load", per(b, lookups));
		c = BEST(xn_xas_load_time(id, n, passes));
		row(name, n, per(a, lookups), "xas_load_caller_rcu",
		    per(c, lookups));
	}

	run_twolevel(&k);

	a = BEST(kn_map_churn_time(k.rh, n));
	b = BEST(xn_churn_time(k.rid, n));
	row("map_alloc_remove", n, per(a, n), "xa_alloc+xa_erase", per(b, n));
	run_smp2(&k);

	/* Removal of every entry in random order, from a fresh fill. */
	a = UINT64_MAX;
	b = UINT64_MAX;
	for (unsigned int r = 0; r < size_reps; r++) {
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
	dense_ok = !kn_dense_fill(n);
	if (!dense_ok) {
		fail("dense_iter", n);
	} else {
		a = BEST(kn_dense_iter_time(passes));
		b = BEST(xn_iter_time(passes));
		c = BEST(kn_packed_iter_time(n, passes));
		row("dense_iter", n, per(a, lookups), "xa_for_each",
		    per(b, lookups));
		row("dense_iter", n, per(a, lookups), "packed_array",
		    per(c, lookups));
	}
	/* The other tables stay filled: the slotmap rows run beside them. */
	run_slotmap(&k, dense_ok);

	run_hive(n, &k);

	for (o = 0; o < 2; o++) {
		unsigned int size = o ? 512 : 64;
		uint32_t ops = 1U << 22;

		snprintf(name, sizeof(name), "pool_hot_%u", size);
		a = BEST(kn_pool_hot_time(size, ops));
		b = BEST(kn_malloc_hot_time(size, ops));
		row(name, n, per(a, ops), "malloc+free", per(b, ops));
	}
	keys_free(&k);
	run_stall(n);
}

/*
 * Only kslot_dense's rows (--dense): inserts, lookups in random order
 * (kslot_dense_lookup(), and __kslot_dense_lookup() with the lock held over
 * a pass), random erases, a walk against a packed array, and the longest
 * lock hold of a clear.
 */
static void run_dense_size(uint32_t n, unsigned int seed)
{
	uint32_t passes = passes_for(n);
	uint64_t lookups = (uint64_t)n * passes, a, b;
	struct keys k;

	size_reps = n >= BIG_SIZE && reps > BIG_REPS ? BIG_REPS : reps;
	keys_init(&k, n, seed, 1);
	a = BEST(kn_dense_insert_time(n));
	if (!a) {
		fail("dense_insert", n);
		keys_free(&k);
		return;
	}
	row("dense_insert", n, per(a, n), "none", 0);
	a = BEST(kn_dense_lookup_time(k.perm, n, passes));
	b = BEST(kn_dense_lookup_locked_time(k.perm, n, passes));
	row("dense_lookup_rand", n, per(a, lookups), "dense_lookup_locked",
	    per(b, lookups));
	a = BEST(kn_dense_insert_time(n) ? kn_dense_erase_time(k.perm, n) : 0);
	row("dense_erase_rand", n, per(a, n), "none", 0);
	if (kn_dense_fill(n)) {
		fail("dense_iter", n);
	} else {
		a = BEST(kn_dense_iter_time(passes));
		b = BEST(kn_packed_iter_time(n, passes));
		row("dense_iter", n, per(a, lookups), "packed_array",
		    per(b, lookups));
	}
	keys_free(&k);
	run_dense_clear(n);
}

/*
 * Only kslot_dense's iteration against a packed array of as many values
 * (--dense-iter), the two loops in turn in every repetition, so that both
 * see the same load.
 */
static void run_dense_iter(uint32_t n)
{
	uint32_t passes = passes_for(n);
	uint64_t lookups = (uint64_t)n * passes, a, b;

	size_reps = reps;
	if (kn_dense_fill(n)) {
		fail("dense_iter", n);
		return;
	}
	BEST2(kn_dense_iter_time(passes), kn_packed_iter_time(n, passes), &a,
	      &b);
	row("dense_iter", n, per(a, lookups), "packed_array", per(b, lookups));
}

/*
 * What the layout of kslot_dense's packed values costs an iteration
 * (--layout): a packed array of n values against the same values in
 * pieces with gaps between them (kn_pieces_iter_time()), in turn in every
 * repetition.  Rows native_layout_iter_<piece>_gap<gap>, ns per value.
 */
static void run_layout(uint32_t n)
{
	static const struct {
		size_t piece, gap;
	} lay[] = {
		{ 16384, 0 }, { 16384, 4096 }, { 16384, 16384 },
		{ 65536, 16384 }, { 262144, 16384 }, { 2097152, 16384 },
	};
	uint32_t passes = passes_for(n);
	uint64_t lookups = (uint64_t)n * passes, a, b;
	char name[64];
	unsigned int l;

	size_reps = reps;
	for (l = 0; l < ARRAY_SIZE(lay); l++) {
		BEST2(kn_pieces_iter_time(n, lay[l].piece, lay[l].gap, passes),
		      kn_packed_iter_time(n, passes), &a, &b);
		snprintf(name, sizeof(name), "layout_iter_%zuk_gap%zuk",
			 lay[l].piece / 1024, lay[l].gap / 1024);
		if (!a || !b)
			fail(name, n);
		else
			row(name, n, per(a, lookups), "packed_array",
			    per(b, lookups));
	}
}

/* Only the hive's rows (--hive): at 16M the map's would take long. */
static void run_hive_size(uint32_t n, unsigned int seed)
{
	struct keys k;

	size_reps = n >= BIG_SIZE && reps > BIG_REPS ? BIG_REPS : reps;
	keys_init(&k, n, seed, 1);
	run_hive(n, &k);
	keys_free(&k);
}

/*
 * The sparse set against a sparse set on an XArray (--sets), with dense
 * keys (0 .. n-1) and keys spread over the u32 space, and the secondary's
 * lookups against the map's that issued its handles.
 */
static void run_sets(uint32_t n, unsigned int seed)
{
	static const char * const dist[] = { "dense", "spread" };
	uint32_t passes = passes_for(n);
	uint64_t lookups = (uint64_t)n * passes;
	uint32_t *keys = malloc(sizeof(*keys) * n), *rkeys;
	struct keys k;
	uint64_t a, b;
	char name[48];
	uint32_t i;
	int d;

	rkeys = malloc(sizeof(*rkeys) * n);
	if (!keys || !rkeys)
		exit(1);
	size_reps = n >= BIG_SIZE && reps > BIG_REPS ? BIG_REPS : reps;
	keys_init(&k, n, seed, 0);
	for (d = 0; d < 2; d++) {
		/* An odd multiplier is a bijection of the u32s: distinct keys. */
		for (i = 0; i < n; i++)
			keys[i] = d ? i * 2654435761U : i;
		for (i = 0; i < n; i++)
			rkeys[i] = keys[k.perm[i]];
		a = BEST(kn_sset_add_time(keys, n));
		b = BEST(xn_set_add_time(keys, n));
		snprintf(name, sizeof(name), "sparse_set_add_%s", dist[d]);
		if (!a || !b) {
			fail(name, n);
			continue;
		}
		row(name, n, per(a, n), "xa_insert_set", per(b, n));
		a = BEST(kn_sset_pos_time(rkeys, n, passes));
		b = BEST(xn_set_pos_time(rkeys, n, passes));
		snprintf(name, sizeof(name), "sparse_set_pos_rand_%s", dist[d]);
		row(name, n, per(a, lookups), "xa_load_set", per(b, lookups));
		a = UINT64_MAX;
		b = UINT64_MAX;
		for (unsigned int r = 0; r < size_reps; r++) {
			uint64_t t;

			if (kn_sset_fill(keys, n) || xn_set_fill(keys, n))
				break;
			t = kn_sset_remove_time(rkeys, n);
			a = t < a ? t : a;
			t = xn_set_remove_time(rkeys, n);
			b = t < b ? t : b;
		}
		snprintf(name, sizeof(name), "sparse_set_remove_rand_%s",
			 dist[d]);
		if (!a || !b || a == UINT64_MAX)
			fail(name, n);
		else
			row(name, n, per(a, n), "xa_erase_set", per(b, n));
	}
	if (kn_map_fill(n, k.h) || kn_sec_fill(k.h, n)) {
		fail("secondary_lookup_rand", n);
	} else {
		keys_shuffle(&k);
		a = BEST(kn_sec_lookup_time(k.rh, n, passes));
		b = BEST(kn_map_lookup_time(k.rh, n, passes));
		row("secondary_lookup_rand", n, per(a, lookups), "map_lookup",
		    per(b, lookups));
	}
	keys_free(&k);
	free(keys);
	free(rkeys);
}

/*
 * One pass of each lookup, and the hive's and kslot_dense's inserts,
 * erases and a walk (kn_count_hive()), for callgrind.
 */
static int count_mode(uint32_t n)
{
	struct keys k;

	keys_init(&k, n, 1, 0);
	if (kn_map_fill(n, k.h) || xn_fill(n, k.id) || kn_floor_fill(n))
		return 1;
	keys_shuffle(&k);
	kn_count_lookups(k.rh, n);
	kn_count_map_lookups(k.rh, n);
	kn_count_floor(k.rh, n);
	kn_count_inline_lookup(k.rh, n);
	kn_count_inline_floor(k.rh, n);
	kn_count_inline_base(k.rh, n);
	if (kn_tl_fill(k.h, n))
		return 1;
	kn_count_tl(k.rh, n);
	kn_count_inline_tl(k.rh, n);
	kn_count_inline_fc(k.rh, n);
	kn_tl_free();
	xn_count_loads(k.rid, n);
	if (!sn_alloc_time(0, n))
		return 1;
	sn_shuffle(0, k.perm, n);
	sn_count_lookups();
	sn_count_inline_get();
	sn_count_inline_base();
	if (kn_count_hive(n, k.perm))
		return 1;
	kn_count_pool(n);
	printf("# sink %lu\n", (kn_sink() + xn_sink() + sn_sink()) & 1);
	keys_free(&k);
	return 0;
}

/*
 * Instruction counts of alloc+remove (callgrind --toggle-collect=
 * kn_count_churn): a map of n entries, each removed and allocated again
 * in random order by @loop.
 * --count-bulk-churn N: the same through kslot_map_remove_bulk() and
 * kslot_map_alloc_bulk() (--toggle-collect=kn_count_bulk_churn).
 * --count-churn-floor N: the same with the core's fast paths inlined into
 * the loop, the pair's floor (--toggle-collect=kn_count_churn_floor).
 */
static int count_churn(uint32_t n, uint64_t (*loop)(uint64_t *h, uint32_t n))
{
	struct keys k;

	keys_init(&k, n, 1, 0);
	if (kn_map_fill(n, k.h))
		return 1;
	keys_shuffle(&k);
	if (!loop(k.rh, n))
		return 1;
	keys_free(&k);
	return 0;
}

/*
 * --count-atomics N (the counting build, kslot_native_bench_count):
 * atomic read-modify-write operations per alloc+remove pair (the same
 * loop as --count-churn), per kslot_map_lookup() and per inline lookup,
 * over a map of N entries in random order.  Rows native_atomics_*, the
 * count in kslot_ns.
 */
static int count_atomics(uint32_t n)
{
	uint64_t a, rm, al, kind[KN_RMW_KINDS];
	struct keys k;
	int i;

	if (kn_atomics() == UINT64_MAX) {
		fprintf(stderr, "--count-atomics: not the counting build\n");
		return 1;
	}
	printf("TAP version 13\n");
	keys_init(&k, n, 1, 0);
	if (kn_map_fill(n, k.h))
		return 1;
	keys_shuffle(&k);
	for (i = 0; i < KN_RMW_KINDS; i++)
		kind[i] = kn_atomics_of(i);
	a = kn_atomics();
	if (!kn_map_churn_time(k.rh, n))
		return 1;
	row("atomics_map_alloc_remove", n, per(kn_atomics() - a, n), "none", 0);
	printf("# native: atomics per alloc+remove pair, by kind:");
	for (i = 0; i < KN_RMW_KINDS; i++)
		printf(" %s=%.2f", kn_rmw_name(i),
		       per(kn_atomics_of(i) - kind[i], n));
	printf("\n");
	if (!kn_map_churn_atomics(k.rh, n, &rm, &al))
		return 1;
	row("atomics_map_remove", n, per(rm, n), "none", 0);
	row("atomics_map_alloc", n, per(al, n), "none", 0);
	a = kn_atomics();
	kn_map_lookup_time(k.rh, n, 1);
	row("atomics_map_lookup_rand", n, per(kn_atomics() - a, n), "none", 0);
	a = kn_atomics();
	kn_map_lookup_inline_time(k.rh, n, 1);
	row("atomics_map_lookup_inline_rand", n, per(kn_atomics() - a, n),
	    "none", 0);
	printf("1..%u\n", tests);
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
	if (argc == 3 && !strcmp(argv[1], "--count-churn"))
		return count_churn(strtoul(argv[2], NULL, 0), kn_count_churn);
	if (argc == 3 && !strcmp(argv[1], "--count-bulk-churn"))
		return count_churn(strtoul(argv[2], NULL, 0),
				   kn_count_bulk_churn);
	if (argc == 3 && !strcmp(argv[1], "--count-churn-floor"))
		return count_churn(strtoul(argv[2], NULL, 0),
				   kn_count_churn_floor);
	if (argc == 3 && !strcmp(argv[1], "--count-atomics"))
		return count_atomics(strtoul(argv[2], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "--stall")) {
		run_stall(strtoul(argv[2], NULL, 0));
		return 0;
	}
	printf("TAP version 13\n");
	printf("# native: %s\n", SN_VERSION);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--churn"))
			churn_only = 1;
		else if (churn_only)
			run_churn(strtoul(argv[i], NULL, 0), seed);
		else if (!strcmp(argv[i], "--twolevel"))
			twolevel_only = 1;
		else if (twolevel_only)
			run_twolevel_size(strtoul(argv[i], NULL, 0), seed);
		else if (!strcmp(argv[i], "--hive"))
			hive_only = 1;
		else if (!strcmp(argv[i], "--sets"))
			sets_only = 1;
		else if (sets_only)
			run_sets(strtoul(argv[i], NULL, 0), seed);
		else if (!strcmp(argv[i], "--layout"))
			layout_only = 1;
		else if (layout_only)
			run_layout(strtoul(argv[i], NULL, 0));
		else if (!strcmp(argv[i], "--dense-iter"))
			dense_iter_only = 1;
		else if (dense_iter_only)
			run_dense_iter(strtoul(argv[i], NULL, 0));
		else if (!strcmp(argv[i], "--dense"))
			dense_only = 1;
		else if (dense_only)
			run_dense_size(strtoul(argv[i], NULL, 0), seed);
		else if (hive_only)
			run_hive_size(strtoul(argv[i], NULL, 0), seed);
		else
			run_size(strtoul(argv[i], NULL, 0), seed);
	}
	printf("1..%u\n", tests);
	return 0;
}
