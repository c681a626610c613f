// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_bench: kslot's structures against the ones a driver would
 * otherwise use, measured side by side in one run.
 *
 * Loading the module runs every benchmark once per size in the sizes=
 * parameter and prints one TAP-like line per comparison:
 *
 *   ok N <name> size=<n> kslot_ns=<ns/op> anchor=<what> anchor_ns=<ns/op>
 *
 * Every figure is the fastest of reps= repetitions of a loop timed with
 * ktime_get_ns().  Both sides of a comparison see the same entries in the
 * same order (the random orders come from one prandom state seeded with
 * seed=).  A failed setup prints "not ok".  The module stays loaded
 * until rmmod; it keeps no state once its init returns.
 *
 * scripts/bench.sh runs it on Debian's stock kernel with the full sizes;
 * "make check" loads it once with a tiny size (bench/kslot_bench.sh).
 */
#define pr_fmt(fmt) "kslot_bench: " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/kslot_dense.h>
#include <linux/kslot_hive.h>
#include <linux/kslot_map.h>
#include <linux/kslot_objtable.h>
#include <linux/kslot_pool.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <linux/xarray.h>

/* objpool arrived in Linux 6.7; Kbuild tells (the module builds for 6.1). */
#ifdef KSLOT_BENCH_OBJPOOL
#include <linux/objpool.h>
#define KB_HAVE_OBJPOOL	1
#else
#define KB_HAVE_OBJPOOL	0
#endif

static unsigned int sizes[8] = { 1024, 65536, 1048576 };
static int nr_sizes = 3;
module_param_array(sizes, uint, &nr_sizes, 0444);
MODULE_PARM_DESC(sizes, "Live entries per run (default 1024,65536,1048576)");

static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "Repetitions of each timed loop; the fastest counts");

static unsigned int seed = 20240607;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "Seed of the random orders (the same for both sides)");

static unsigned int min_ops = 1U << 18;
module_param(min_ops, uint, 0444);
MODULE_PARM_DESC(min_ops, "Fewest operations in a timed loop that can repeat");

static unsigned int clear_entries = KSLOT_MAX_ENTRIES;
module_param(clear_entries, uint, 0444);
MODULE_PARM_DESC(clear_entries, "Values of the dense clear whose longest lock hold is measured (default 16M; 0: none)");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "Run only these groups, comma-separated: map, dense (clear_entries too), hive, pool, objtable, smp (default: all)");

/* Is group @name selected by only=? */
static bool kb_want(const char *name)
{
	const char *p = only;
	size_t len = strlen(name);

	if (!p || !*p)
		return true;
	while (*p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchrnul(p, ',');
		if (*p)
			p++;
	}
	return false;
}

#define KB_FLOOR_SHIFT	8
#define KB_FLOOR_SLOTS	BIT(KB_FLOOR_SHIFT)
#define KB_BULK		32
#define KB_OBJPOOL_OBJS	1024

/*
 * The floor: a chunked flat slot array with a generation check, in the
 * handle format of the map's (KSLOT_MAX_ENTRIES): its index mask, and the
 * shift to the bits above the tag (the generation and bit 63), which a
 * slot holds.
 */
struct kb_floor_slot {
	u64 gen;
	void *obj;
};

struct kb_floor {
	struct kb_floor_slot **chunks;
	u32 nr;
	u32 index_mask;
	u32 gen_shift;
};

/* Everything one size's benchmarks share. */
struct kb_ctx {
	u32 n;
	u64 *objs;		/* objs[i] = i; &objs[i] is the i-th value */
	u32 *perm;		/* a random permutation of 0 .. n-1 */
	u64 *handles;		/* kslot_map handles, insertion order */
	u64 *rhandles;		/* handles[perm[i]] */
	u32 *ids;		/* xarray/IDR ids, insertion order */
	u32 *rids;		/* ids[perm[i]] */
	void **ptrs;		/* scratch: objects, hive elements */
	struct kslot_map map;
	struct xarray xa;
	struct idr idr;
	struct kb_floor floor;
	bool rand;
	int err;
	unsigned long sink;
};

static unsigned int kb_tests;
static struct rnd_state kb_rnd;

static void *kb_val(struct kb_ctx *c, u32 i)
{
	return &c->objs[i];
}

/* Ops per timed loop of an operation that can repeat over n entries. */
static u32 kb_passes(u32 n)
{
	return max(1U, min_ops / max(n, 1U));
}

/* ns/op in hundredths, from the fastest repetition. */
static u64 kb_cns(u64 ns, u64 ops)
{
	return ops ? div64_u64(ns * 100, ops) : 0;
}

static void kb_row(const char *name, u32 size, u64 kslot_cns,
		   const char *anchor, u64 anchor_cns)
{
	pr_info("ok %u %s size=%u kslot_ns=%llu.%02llu anchor=%s anchor_ns=%llu.%02llu\n",
		++kb_tests, name, size, kslot_cns / 100, kslot_cns % 100,
		anchor, anchor_cns / 100, anchor_cns % 100);
}

static void kb_fail(const char *name, u32 size, int err)
{
	pr_info("not ok %u %s size=%u # error %d\n", ++kb_tests, name, size,
		err);
}

static void kb_skip(const char *name, u32 size, const char *why)
{
	pr_info("ok %u %s size=%u # SKIP %s\n", ++kb_tests, name, size, why);
}

/*
 * Run @fn reps times; each call returns the ns of one timed loop of @ops
 * operations.  Return: hundredths of ns per op of the fastest, 0 if any
 * repetition set c->err.
 */
static u64 kb_time(struct kb_ctx *c, u64 (*fn)(struct kb_ctx *c), u64 ops)
{
	u64 best = U64_MAX;
	unsigned int r;

	for (r = 0; r < max(reps, 1U); r++) {
		u64 ns = fn(c);

		if (c->err)
			return 0;
		best = min(best, ns);
		cond_resched();
	}
	return kb_cns(best, ops);
}

/* ---- the map and its anchors: XArray, IDR and the flat floor ---- */

static int kb_map_fill(struct kb_ctx *c)
{
	u32 i;
	int ret;

	kslot_map_destroy(&c->map, NULL, NULL);
	ret = kslot_map_init(&c->map, NULL, KSLOT_MAX_ENTRIES, 0);
	for (i = 0; !ret && i < c->n; i++)
		ret = kslot_map_alloc(&c->map, &c->handles[i], kb_val(c, i),
				      GFP_KERNEL);
	return ret;
}

static int kb_xa_fill(struct kb_ctx *c)
{
	u32 i;
	int ret = 0;

	xa_destroy(&c->xa);
	xa_init_flags(&c->xa, XA_FLAGS_ALLOC);
	for (i = 0; !ret && i < c->n; i++)
		ret = xa_alloc(&c->xa, &c->ids[i], kb_val(c, i), xa_limit_32b,
			       GFP_KERNEL);
	return ret;
}

static int kb_idr_fill(struct kb_ctx *c)
{
	u32 i;
	int id;

	idr_destroy(&c->idr);
	idr_init(&c->idr);
	for (i = 0; i < c->n; i++) {
		id = idr_alloc(&c->idr, kb_val(c, i), 0, 0, GFP_KERNEL);
		if (id < 0)
			return id;
		/* The same lowest-free policy as xa_alloc(): ids match. */
		if (id != c->ids[i])
			return -EINVAL;
	}
	return 0;
}

static u64 kb_map_alloc(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();

	c->err = kb_map_fill(c);
	return ktime_get_ns() - t;
}

static u64 kb_xa_alloc(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();

	c->err = kb_xa_fill(c);
	return ktime_get_ns() - t;
}

static u64 kb_idr_alloc(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();

	c->err = kb_idr_fill(c);
	return ktime_get_ns() - t;
}

static void kb_floor_free(struct kb_floor *f)
{
	u32 i;

	for (i = 0; f->chunks && i < DIV_ROUND_UP(f->nr, KB_FLOOR_SLOTS); i++)
		kfree(f->chunks[i]);
	kvfree(f->chunks);
	f->chunks = NULL;
	f->nr = 0;
}

/* Slot i holds the i-th value at generation 1, as a fresh kslot_map. */
static int kb_floor_fill(struct kb_ctx *c)
{
	struct kb_floor *f = &c->floor;
	u32 nr_chunks = DIV_ROUND_UP(c->n, KB_FLOOR_SLOTS);
	u32 b = kslot_index_bits(KSLOT_MAX_ENTRIES), i;

	kb_floor_free(f);
	f->index_mask = BIT(b) - 1;
	f->gen_shift = b + KSLOT_TAG_BITS;
	f->chunks = kvcalloc(nr_chunks, sizeof(*f->chunks), GFP_KERNEL);
	if (!f->chunks)
		return -ENOMEM;
	for (i = 0; i < nr_chunks; i++) {
		f->chunks[i] = kcalloc(KB_FLOOR_SLOTS, sizeof(**f->chunks),
				       GFP_KERNEL);
		if (!f->chunks[i]) {
			f->nr = i * KB_FLOOR_SLOTS;
			return -ENOMEM;
		}
	}
	for (i = 0; i < c->n; i++) {
		struct kb_floor_slot *s = &f->chunks[i >> KB_FLOOR_SHIFT]
						   [i % KB_FLOOR_SLOTS];

		s->gen = (KSLOT_HANDLE64_BIT | 1ULL << f->gen_shift) >>
			 f->gen_shift;
		s->obj = kb_val(c, i);
	}
	f->nr = c->n;
	return 0;
}

/*
 * Bounds check, Spectre clamp, chunk, generation compare: the least a
 * generational lookup does.  Caller holds RCU.
 */
static __always_inline void *__kb_floor_lookup(struct kb_floor *f, u64 handle)
{
	u32 i = (u32)handle & f->index_mask;
	struct kb_floor_slot *s;

	if (unlikely(i >= f->nr))
		return NULL;
	i = array_index_nospec(i, f->nr);
	s = &f->chunks[i >> KB_FLOOR_SHIFT][i % KB_FLOOR_SLOTS];
	if (unlikely(READ_ONCE(s->gen) != handle >> f->gen_shift))
		return NULL;
	return READ_ONCE(s->obj);
}

/* The floor as a call that takes RCU, as kslot_map_lookup() and xa_load(). */
static noinline void *kb_floor_lookup(struct kb_floor *f, u64 handle)
{
	void *obj;

	rcu_read_lock();
	obj = __kb_floor_lookup(f, handle);
	rcu_read_unlock();
	return obj;
}

/* Every structure must give back the value stored: checked before timing. */
static int kb_check_lookups(struct kb_ctx *c)
{
	u32 i;

	for (i = 0; i < c->n; i++) {
		void *want = kb_val(c, i);

		void *idr;

		rcu_read_lock();
		idr = idr_find(&c->idr, c->ids[i]);
		rcu_read_unlock();
		if (kslot_map_lookup(&c->map, c->handles[i]) != want ||
		    xa_load(&c->xa, c->ids[i]) != want || idr != want ||
		    kb_floor_lookup(&c->floor, c->handles[i]) != want)
			return -EIO;
	}
	return 0;
}

static u64 kb_map_lookup(struct kb_ctx *c)
{
	const u64 *h = c->rand ? c->rhandles : c->handles;
	u32 p, i, passes = kb_passes(c->n);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();

	for (p = 0; p < passes; p++)
		for (i = 0; i < c->n; i++)
			sum += (unsigned long)kslot_map_lookup(&c->map, h[i]);
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

static u64 kb_floor_lookups(struct kb_ctx *c)
{
	const u64 *h = c->rand ? c->rhandles : c->handles;
	u32 p, i, passes = kb_passes(c->n);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();

	for (p = 0; p < passes; p++)
		for (i = 0; i < c->n; i++)
			sum += (unsigned long)kb_floor_lookup(&c->floor, h[i]);
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

/* Inline lookups under one rcu_read_lock() per pass: kslot and floor. */
static u64 kb_map_lookup_inline(struct kb_ctx *c)
{
	const u64 *h = c->rand ? c->rhandles : c->handles;
	u32 p, i, passes = kb_passes(c->n);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();

	for (p = 0; p < passes; p++) {
		rcu_read_lock();
		for (i = 0; i < c->n; i++)
			sum += (unsigned long)__kslot_map_lookup(&c->map, h[i]);
		rcu_read_unlock();
	}
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

static u64 kb_floor_lookup_inline(struct kb_ctx *c)
{
	const u64 *h = c->rand ? c->rhandles : c->handles;
	u32 p, i, passes = kb_passes(c->n);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();

	for (p = 0; p < passes; p++) {
		rcu_read_lock();
		for (i = 0; i < c->n; i++)
			sum += (unsigned long)__kb_floor_lookup(&c->floor, h[i]);
		rcu_read_unlock();
	}
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

static u64 kb_xa_lookup(struct kb_ctx *c)
{
	const u32 *id = c->rand ? c->rids : c->ids;
	u32 p, i, passes = kb_passes(c->n);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();

	for (p = 0; p < passes; p++)
		for (i = 0; i < c->n; i++)
			sum += (unsigned long)xa_load(&c->xa, id[i]);
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

static u64 kb_idr_lookup(struct kb_ctx *c)
{
	const u32 *id = c->rand ? c->rids : c->ids;
	u32 p, i, passes = kb_passes(c->n);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();

	/* idr_find() needs the caller's RCU; the others take it per call. */
	for (p = 0; p < passes; p++)
		for (i = 0; i < c->n; i++) {
			rcu_read_lock();
			sum += (unsigned long)idr_find(&c->idr, id[i]);
			rcu_read_unlock();
		}
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

/* Remove a random live entry and allocate a new one, n times. */
static u64 kb_map_churn(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < c->n && !c->err; i++) {
		c->sink += (unsigned long)kslot_map_remove(&c->map,
							   c->rhandles[i]);
		c->err = kslot_map_alloc(&c->map, &c->rhandles[i],
					 kb_val(c, 0), GFP_KERNEL);
	}
	return ktime_get_ns() - t;
}

static u64 kb_xa_churn(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < c->n && !c->err; i++) {
		xa_erase(&c->xa, c->rids[i]);
		c->err = xa_alloc(&c->xa, &c->rids[i], kb_val(c, 0),
				  xa_limit_32b, GFP_KERNEL);
	}
	return ktime_get_ns() - t;
}

static u64 kb_idr_churn(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	int id;
	u32 i;

	for (i = 0; i < c->n; i++) {
		idr_remove(&c->idr, c->rids[i]);
		id = idr_alloc(&c->idr, kb_val(c, 0), 0, 0, GFP_KERNEL);
		if (id < 0) {
			c->err = id;
			break;
		}
		c->rids[i] = id;
	}
	return ktime_get_ns() - t;
}

/* Removal of every entry of a freshly built structure (built untimed). */
static u64 kb_map_remove(struct kb_ctx *c)
{
	const u64 *h = c->rand ? c->rhandles : c->handles;
	u64 t;
	u32 i;

	c->err = kb_map_fill(c);
	for (i = 0; i < c->n; i++)
		c->rhandles[i] = c->handles[c->perm[i]];
	if (c->err)
		return 0;
	t = ktime_get_ns();
	for (i = 0; i < c->n; i++)
		if (!kslot_map_remove(&c->map, h[i]))
			c->err = -EIO;
	return ktime_get_ns() - t;
}

static u64 kb_xa_remove(struct kb_ctx *c)
{
	const u32 *id = c->rand ? c->rids : c->ids;
	u64 t;
	u32 i;

	c->err = kb_xa_fill(c);
	for (i = 0; i < c->n; i++)
		c->rids[i] = c->ids[c->perm[i]];
	if (c->err)
		return 0;
	t = ktime_get_ns();
	for (i = 0; i < c->n; i++)
		if (!xa_erase(&c->xa, id[i]))
			c->err = -EIO;
	return ktime_get_ns() - t;
}

static u64 kb_idr_remove(struct kb_ctx *c)
{
	const u32 *id = c->rand ? c->rids : c->ids;
	u64 t;
	u32 i;

	c->err = kb_idr_fill(c);
	if (c->err)
		return 0;
	t = ktime_get_ns();
	for (i = 0; i < c->n; i++)
		if (!idr_remove(&c->idr, id[i]))
			c->err = -EIO;
	return ktime_get_ns() - t;
}

static void kb_shuffle_keys(struct kb_ctx *c)
{
	u32 i;

	for (i = 0; i < c->n; i++) {
		c->rhandles[i] = c->handles[c->perm[i]];
		c->rids[i] = c->ids[c->perm[i]];
	}
}

static void kb_bench_map(struct kb_ctx *c)
{
	static const char * const order[] = { "seq", "rand" };
	u32 n = c->n, passes = kb_passes(n);
	u64 k, x, d, f;
	char name[40];
	int o;

	/* Allocation into an empty structure; leaves each one full. */
	k = kb_time(c, kb_map_alloc, n);
	x = c->err ? 0 : kb_time(c, kb_xa_alloc, n);
	d = c->err ? 0 : kb_time(c, kb_idr_alloc, n);
	if (!c->err)
		c->err = kb_floor_fill(c);
	if (!c->err)
		c->err = kb_check_lookups(c);
	if (c->err) {
		kb_fail("map_alloc", n, c->err);
		return;
	}
	kb_row("map_alloc", n, k, "xa_alloc", x);
	kb_row("map_alloc", n, k, "idr_alloc", d);
	kb_shuffle_keys(c);

	for (o = 0; o < 2; o++) {
		c->rand = o;
		k = kb_time(c, kb_map_lookup, (u64)n * passes);
		x = kb_time(c, kb_xa_lookup, (u64)n * passes);
		d = kb_time(c, kb_idr_lookup, (u64)n * passes);
		f = kb_time(c, kb_floor_lookups, (u64)n * passes);
		snprintf(name, sizeof(name), "map_lookup_%s", order[o]);
		kb_row(name, n, k, "xa_load", x);
		kb_row(name, n, k, "idr_find", d);
		kb_row(name, n, k, "flat_floor", f);
		/* The caller-holds-RCU fast path against the inline floor. */
		k = kb_time(c, kb_map_lookup_inline, (u64)n * passes);
		f = kb_time(c, kb_floor_lookup_inline, (u64)n * passes);
		snprintf(name, sizeof(name), "map_lookup_inline_%s", order[o]);
		kb_row(name, n, k, "flat_floor_inline", f);
		kb_row(name, n, k, "xa_load", x);
	}

	/* Steady state: n live entries, remove one and allocate one. */
	c->rand = true;
	k = kb_time(c, kb_map_churn, n);
	x = c->err ? 0 : kb_time(c, kb_xa_churn, n);
	if (c->err) {
		kb_fail("map_alloc_remove", n, c->err);
		return;
	}
	/* The XArray churn left rids[] holding the live ids; IDR is alike. */
	d = kb_time(c, kb_idr_churn, n);
	if (c->err) {
		kb_fail("map_alloc_remove", n, c->err);
		return;
	}
	kb_row("map_alloc_remove", n, k, "xa_alloc+xa_erase", x);
	kb_row("map_alloc_remove", n, k, "idr_alloc+idr_remove", d);

	for (o = 0; o < 2; o++) {
		c->rand = o;
		k = kb_time(c, kb_map_remove, n);
		x = c->err ? 0 : kb_time(c, kb_xa_remove, n);
		d = c->err ? 0 : kb_time(c, kb_idr_remove, n);
		snprintf(name, sizeof(name), "map_remove_%s", order[o]);
		if (c->err) {
			kb_fail(name, n, c->err);
			return;
		}
		kb_row(name, n, k, "xa_erase", x);
		kb_row(name, n, k, "idr_remove", d);
	}
}

/* ---- dense iteration against xa_for_each ---- */

static struct kslot_dense kb_dense;

static u64 kb_dense_iter(struct kb_ctx *c)
{
	struct kslot_dense *dense = &kb_dense;
	u32 p, pos, passes = kb_passes(c->n);
	unsigned long flags, sum = 0;
	u64 t = ktime_get_ns();
	void *elem;

	for (p = 0; p < passes; p++) {
		flags = kslot_dense_lock(dense);
		kslot_dense_for_each_locked(dense, pos, elem)
			sum += *(u64 *)elem;
		kslot_dense_unlock(dense, flags);
	}
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

static u64 kb_xa_iter(struct kb_ctx *c)
{
	u32 p, passes = kb_passes(c->n);
	unsigned long index, sum = 0;
	u64 t = ktime_get_ns();
	void *entry;

	for (p = 0; p < passes; p++)
		xa_for_each(&c->xa, index, entry)
			sum += *(u64 *)entry;
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

static void kb_bench_dense(struct kb_ctx *c)
{
	struct kslot_dense *dense = &kb_dense;
	u32 i, n = c->n;
	u64 k, x, h;
	int ret;

	ret = kb_xa_fill(c);
	if (!ret)
		ret = kslot_dense_init(dense, NULL, sizeof(u64), n, 0);
	if (ret) {
		kb_fail("dense_iter", n, ret);
		return;
	}
	for (i = 0; !ret && i < n; i++)
		ret = kslot_dense_insert(dense, &h, &c->objs[i], GFP_KERNEL);
	if (!ret && kslot_dense_count(dense) != n)
		ret = -EIO;
	if (ret) {
		kb_fail("dense_iter", n, ret);
	} else {
		k = kb_time(c, kb_dense_iter, (u64)n * kb_passes(n));
		x = kb_time(c, kb_xa_iter, (u64)n * kb_passes(n));
		kb_row("dense_iter", n, k, "xa_for_each", x);
	}
	kslot_dense_destroy(dense, NULL, NULL);
}

/*
 * ---- the longest hold of a dense table's lock in a clear ----
 *
 * A clear of n values holds the lock for a batch at a time.  Another CPU
 * takes the lock over and over meanwhile; the longest it waited is the
 * longest hold it ran into (plus its own noise).  Against it: the whole
 * clear, what one hold would last if the clear took the lock once.
 */
struct kb_hold {
	struct kslot_dense *dense;
	u64 longest;
	u64 takes;
};

static int kb_hold_observer(void *p)
{
	struct kb_hold *o = p;

	while (!kthread_should_stop()) {
		u64 t = ktime_get_ns();
		unsigned long flags = kslot_dense_lock(o->dense);

		t = ktime_get_ns() - t;
		kslot_dense_unlock(o->dense, flags);
		o->longest = max(o->longest, t);
		o->takes++;
		cond_resched();
	}
	return 0;
}

static void kb_bench_dense_clear(u32 n)
{
	struct kslot_dense *dense = &kb_dense;
	struct kb_hold o = { .dense = dense };
	const u32 batch = 4096;
	struct task_struct *t;
	u32 done, cpu;
	u64 *h, whole;
	int ret;

	if (num_online_cpus() < 2) {
		kb_skip("dense_clear_longest_hold", n, "needs two CPUs");
		return;
	}
	h = kvmalloc_array(batch, sizeof(*h), GFP_KERNEL);
	ret = h ? kslot_dense_init(dense, NULL, sizeof(u64), n, 0) : -ENOMEM;
	for (done = 0; !ret && done < n; done += min(n - done, batch)) {
		ret = kslot_dense_insert_n(dense, h, NULL, min(n - done, batch),
					   GFP_KERNEL);
		cond_resched();
	}
	if (ret) {
		kb_fail("dense_clear_longest_hold", n, ret);
		goto out;
	}
	/* The clear on the first CPU, the observer on another. */
	cpu = cpumask_first(cpu_online_mask);
	ret = set_cpus_allowed_ptr(current, cpumask_of(cpu));
	t = ret ? ERR_PTR(ret) : kthread_create(kb_hold_observer, &o,
						 "kslot_bench_hold");
	if (IS_ERR(t)) {
		kb_fail("dense_clear_longest_hold", n, PTR_ERR(t));
		goto out;
	}
	kthread_bind(t, cpumask_next(cpu, cpu_online_mask));
	get_task_struct(t);
	wake_up_process(t);
	/* Until the observer runs: a clear before it would measure nothing. */
	while (!READ_ONCE(o.takes))
		cond_resched();
	whole = ktime_get_ns();
	kslot_dense_clear(dense);
	whole = ktime_get_ns() - whole;
	kthread_stop(t);
	put_task_struct(t);
	if (kslot_dense_count(dense)) {
		kb_fail("dense_clear_longest_hold", n, -EIO);
		goto out;
	}
	kb_row("dense_clear_longest_hold", n, o.longest * 100,
	       "dense_clear_whole", whole * 100);
	pr_info("# dense clear %u: longest lock hold %llu us (the whole clear %llu us; %llu takes of the lock meanwhile)\n",
		n, div_u64(o.longest, 1000), div_u64(whole, 1000), o.takes);
out:
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kslot_dense_destroy(dense, NULL, NULL);
	kvfree(h);
}

/* ---- hive iteration against a packed array of the live count ---- */

static struct kslot_hive kb_hive;
static u32 kb_hive_live;

static u64 kb_hive_iter(struct kb_ctx *c)
{
	u32 p, passes = kb_passes(kb_hive_live);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();
	void *elem;

	for (p = 0; p < passes; p++)
		kslot_hive_for_each(&kb_hive, elem)
			sum += *(u64 *)elem;
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

/* The packed array is objs[0 .. live-1]. */
static u64 kb_packed_iter(struct kb_ctx *c)
{
	const u64 *a = READ_ONCE(c->objs);
	u32 p, i, passes = kb_passes(kb_hive_live);
	unsigned long sum = 0;
	u64 t = ktime_get_ns();

	for (p = 0; p < passes; p++) {
		for (i = 0; i < kb_hive_live; i++)
			sum += a[i];
		/* Keep each pass a real walk of the array. */
		barrier();
	}
	t = ktime_get_ns() - t;
	c->sink += sum;
	return t;
}

static void kb_bench_hive(struct kb_ctx *c, unsigned int pct)
{
	struct kslot_hive_params params = { .elem_size = sizeof(u64) };
	u32 i, n = c->n, erase = (u64)n * pct / 100;
	char name[24];
	u64 k, a;
	int ret;

	snprintf(name, sizeof(name), "hive_iter_%u", pct);
	ret = kslot_hive_init(&kb_hive, &params);
	for (i = 0; !ret && i < n; i++) {
		u64 *e = kslot_hive_insert(&kb_hive, GFP_KERNEL);

		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			break;
		}
		*e = i;
		c->ptrs[i] = e;
	}
	for (i = 0; !ret && i < erase; i++)
		ret = kslot_hive_erase(&kb_hive, c->ptrs[c->perm[i]]);
	kb_hive_live = n - erase;
	if (!ret && kslot_hive_count(&kb_hive) != kb_hive_live)
		ret = -EIO;
	if (ret || !kb_hive_live) {
		kb_fail(name, n, ret);
	} else {
		k = kb_time(c, kb_hive_iter,
			    (u64)kb_hive_live * kb_passes(kb_hive_live));
		a = kb_time(c, kb_packed_iter,
			    (u64)kb_hive_live * kb_passes(kb_hive_live));
		kb_row(name, n, k, "packed_array", a);
	}
	kslot_hive_destroy(&kb_hive, NULL, NULL);
}

/*
 * The shape of plf::hive's benchmarks: fill an empty hive with n u64,
 * erase every other one, insert as many again, timed together; against
 * kmem_cache objects of the same size allocated and freed alike.
 */
static struct kmem_cache *kb_hive_cache;

static u64 kb_hive_churn(struct kb_ctx *c)
{
	struct kslot_hive_params params = { .elem_size = sizeof(u64) };
	u32 i, n = c->n;
	u64 t, *e;

	c->err = kslot_hive_init(&kb_hive, &params);
	if (c->err)
		return 0;
	t = ktime_get_ns();
	for (i = 0; i < n; i++) {
		e = kslot_hive_insert(&kb_hive, GFP_KERNEL);
		if (IS_ERR(e))
			goto fail;
		*e = i;
		c->ptrs[i] = e;
	}
	for (i = 0; i < n; i += 2)
		kslot_hive_erase(&kb_hive, c->ptrs[i]);
	for (i = 0; i < n; i += 2) {
		e = kslot_hive_insert(&kb_hive, GFP_KERNEL);
		if (IS_ERR(e))
			goto fail;
		*e = i;
	}
	t = ktime_get_ns() - t;
	if (kslot_hive_count(&kb_hive) != n)
		c->err = -EIO;
	kslot_hive_destroy(&kb_hive, NULL, NULL);
	return t;
fail:
	c->err = PTR_ERR(e);
	kslot_hive_destroy(&kb_hive, NULL, NULL);
	return 0;
}

static void kb_cache_free_all(struct kb_ctx *c, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		if (c->ptrs[i])
			kmem_cache_free(kb_hive_cache, c->ptrs[i]);
}

static u64 kb_cache_churn(struct kb_ctx *c)
{
	u32 i, j, n = c->n, filled = n;
	u64 t, *e;

	t = ktime_get_ns();
	for (i = 0; i < n; i++) {
		e = kmem_cache_alloc(kb_hive_cache, GFP_KERNEL);
		if (!e) {
			filled = i;
			goto fail;
		}
		*e = i;
		c->ptrs[i] = e;
	}
	for (i = 0; i < n; i += 2)
		kmem_cache_free(kb_hive_cache, c->ptrs[i]);
	for (i = 0; i < n; i += 2) {
		e = kmem_cache_alloc(kb_hive_cache, GFP_KERNEL);
		if (!e) {
			/* Slots i, i + 2, ... were freed above. */
			for (j = i; j < n; j += 2)
				c->ptrs[j] = NULL;
			goto fail;
		}
		*e = i;
		c->ptrs[i] = e;
	}
	t = ktime_get_ns() - t;
	kb_cache_free_all(c, n);
	return t;
fail:
	c->err = -ENOMEM;
	kb_cache_free_all(c, filled);
	return 0;
}

static void kb_bench_hive_churn(struct kb_ctx *c)
{
	u64 ops = c->n + 2 * DIV_ROUND_UP(c->n, 2), k, a;

	kb_hive_cache = kmem_cache_create("kslot_bench", sizeof(u64), 0, 0,
					  NULL);
	if (!kb_hive_cache) {
		kb_fail("hive_fill_erase2_refill", c->n, -ENOMEM);
		return;
	}
	k = kb_time(c, kb_hive_churn, ops);
	a = k ? kb_time(c, kb_cache_churn, ops) : 0;
	if (!k || !a)
		kb_fail("hive_fill_erase2_refill", c->n, c->err ?: -EIO);
	else
		kb_row("hive_fill_erase2_refill", c->n, k, "kmem_cache", a);
	kmem_cache_destroy(kb_hive_cache);
	kb_hive_cache = NULL;
}

/* ---- pools against kmem_cache (and objpool) ---- */

struct kb_pool_ctx {
	struct kslot_pool *pool;
	struct kmem_cache *cache;
#if KB_HAVE_OBJPOOL
	struct objpool_head objpool;
#endif
	u32 ops;
};

static struct kb_pool_ctx kb_pool;

static u64 kb_pool_hot(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < kb_pool.ops; i++) {
		void *p = kslot_pool_alloc(kb_pool.pool, GFP_KERNEL);

		if (unlikely(!p)) {
			c->err = -ENOMEM;
			break;
		}
		kslot_pool_free(kb_pool.pool, p);
	}
	return ktime_get_ns() - t;
}

static u64 kb_cache_hot(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < kb_pool.ops; i++) {
		void *p = kmem_cache_alloc(kb_pool.cache, GFP_KERNEL);

		if (unlikely(!p)) {
			c->err = -ENOMEM;
			break;
		}
		kmem_cache_free(kb_pool.cache, p);
	}
	return ktime_get_ns() - t;
}

#if KB_HAVE_OBJPOOL
static u64 kb_objpool_hot(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < kb_pool.ops; i++) {
		void *p = objpool_pop(&kb_pool.objpool);

		if (unlikely(!p)) {
			c->err = -ENOMEM;
			break;
		}
		objpool_push(p, &kb_pool.objpool);
	}
	return ktime_get_ns() - t;
}
#endif

/* n allocations, then n frees: the pattern of a table being filled. */
static u64 kb_pool_fill(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i, got;

	for (got = 0; got < c->n; got++) {
		c->ptrs[got] = kslot_pool_alloc(kb_pool.pool, GFP_KERNEL);
		if (!c->ptrs[got])
			break;
	}
	for (i = 0; i < got; i++)
		kslot_pool_free(kb_pool.pool, c->ptrs[i]);
	if (got < c->n)
		c->err = -ENOMEM;
	return ktime_get_ns() - t;
}

static u64 kb_cache_fill(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i, got;

	for (got = 0; got < c->n; got++) {
		c->ptrs[got] = kmem_cache_alloc(kb_pool.cache, GFP_KERNEL);
		if (!c->ptrs[got])
			break;
	}
	for (i = 0; i < got; i++)
		kmem_cache_free(kb_pool.cache, c->ptrs[i]);
	if (got < c->n)
		c->err = -ENOMEM;
	return ktime_get_ns() - t;
}

/* The bulk interfaces, KB_BULK objects at a time. */
static u64 kb_pool_bulk(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < kb_pool.ops / KB_BULK; i++) {
		if (kslot_pool_alloc_bulk(kb_pool.pool, GFP_KERNEL, KB_BULK,
					  c->ptrs)) {
			c->err = -ENOMEM;
			break;
		}
		kslot_pool_free_bulk(kb_pool.pool, KB_BULK, c->ptrs);
	}
	return ktime_get_ns() - t;
}

static u64 kb_cache_bulk(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < kb_pool.ops / KB_BULK; i++) {
		if (kmem_cache_alloc_bulk(kb_pool.cache, GFP_KERNEL, KB_BULK,
					  c->ptrs) != KB_BULK) {
			c->err = -ENOMEM;
			break;
		}
		kmem_cache_free_bulk(kb_pool.cache, KB_BULK, c->ptrs);
	}
	return ktime_get_ns() - t;
}

/* Hold n live objects of each side while the hot pair runs. */
static int kb_pool_hold(struct kb_ctx *c, void **held, bool kslot)
{
	u32 i;

	for (i = 0; i < c->n; i++) {
		held[i] = kslot ? kslot_pool_alloc(kb_pool.pool, GFP_KERNEL) :
				  kmem_cache_alloc(kb_pool.cache, GFP_KERNEL);
		if (!held[i])
			return -ENOMEM;
	}
	return 0;
}

static void kb_pool_release(struct kb_ctx *c, void **held, bool kslot)
{
	u32 i;

	for (i = 0; i < c->n && held[i]; i++) {
		if (kslot)
			kslot_pool_free(kb_pool.pool, held[i]);
		else
			kmem_cache_free(kb_pool.cache, held[i]);
		held[i] = NULL;
	}
}

/* The hot pair asking for zeroed objects (kmem_cache zeroes under init_on_alloc). */
static u64 kb_pool_hot_zero(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < kb_pool.ops; i++) {
		void *p = kslot_pool_alloc(kb_pool.pool,
					   GFP_KERNEL | __GFP_ZERO);

		if (unlikely(!p)) {
			c->err = -ENOMEM;
			break;
		}
		kslot_pool_free(kb_pool.pool, p);
	}
	return ktime_get_ns() - t;
}

/*
 * Time both sides of a comparison alternately, reps times, and keep the
 * fastest of each: a change of load on the host hits both alike.
 */
static void kb_time_pair(struct kb_ctx *c, u64 (*fk)(struct kb_ctx *c),
			 u64 (*fa)(struct kb_ctx *c), u64 ops, u64 *k, u64 *a)
{
	u64 bk = U64_MAX, ba = U64_MAX;
	unsigned int r;

	for (r = 0; r < max(reps, 1U) && !c->err; r++) {
		bk = min(bk, fk(c));
		if (!c->err)
			ba = min(ba, fa(c));
		cond_resched();
	}
	*k = c->err ? 0 : kb_cns(bk, ops);
	*a = c->err ? 0 : kb_cns(ba, ops);
}

/* Time a pair and print its row (or the failure). */
static void kb_pair_row(struct kb_ctx *c, const char *name, const char *anchor,
			u64 (*fk)(struct kb_ctx *c),
			u64 (*fa)(struct kb_ctx *c), u64 ops)
{
	u64 k, a;

	kb_time_pair(c, fk, fa, ops, &k, &a);
	if (c->err)
		kb_fail(name, c->n, c->err);
	else
		kb_row(name, c->n, k, anchor, a);
	c->err = 0;
}

/*
 * Pools against kmem_cache and objpool.  The main rows use a pool for
 * task context (KSLOT_POOL_TASK), as the benchmark runs there; the
 * pool_hot_anyctx rows use the default pool, usable from any context like
 * kmem_cache.  Both sides hold n live objects while the hot pairs run.
 */
static void kb_bench_pool(struct kb_ctx *c, unsigned int size)
{
	struct kslot_pool_config cfg = { .name = "kslot_bench", .size = size,
					 .flags = KSLOT_POOL_TASK };
	u32 n = c->n, ops = max(n, min_ops), bulk_ops;
	void **held, **cheld = NULL;
	char name[32];
	int ret;

	bulk_ops = ops / KB_BULK * KB_BULK;
	held = kvcalloc(n, sizeof(*held), GFP_KERNEL);
	if (held)
		cheld = kvcalloc(n, sizeof(*cheld), GFP_KERNEL);
	kb_pool.pool = kslot_pool_create(&cfg);
	kb_pool.cache = kmem_cache_create("kslot_bench", size, 0, 0, NULL);
	kb_pool.ops = ops;
	snprintf(name, sizeof(name), "pool_hot_%u", size);
	if (!cheld || IS_ERR(kb_pool.pool) || !kb_pool.cache) {
		kb_fail(name, n, -ENOMEM);
		goto out;
	}
	ret = kb_pool_hold(c, held, true);
	if (!ret)
		ret = kb_pool_hold(c, cheld, false);
	if (ret) {
		kb_fail(name, n, ret);
		goto release;
	}
	kb_pair_row(c, name, "kmem_cache_alloc+free", kb_pool_hot,
		    kb_cache_hot, ops);
#if KB_HAVE_OBJPOOL
	/* objpool has a fixed capacity: only the hot pair compares. */
	ret = objpool_init(&kb_pool.objpool, KB_OBJPOOL_OBJS, size,
			   GFP_KERNEL, NULL, NULL, NULL);
	if (ret) {
		kb_fail(name, n, ret);
	} else {
		kb_pair_row(c, name, "objpool_pop+push", kb_pool_hot,
			    kb_objpool_hot, ops);
		objpool_fini(&kb_pool.objpool);
	}
#else
	kb_skip(name, n, "no objpool before Linux 6.7");
#endif
	snprintf(name, sizeof(name), "pool_hot_zero_%u", size);
	kb_pair_row(c, name, "kmem_cache_alloc+free", kb_pool_hot_zero,
		    kb_cache_hot, ops);
	snprintf(name, sizeof(name), "pool_bulk%u_%u", KB_BULK, size);
	kb_pair_row(c, name, "kmem_cache_alloc_bulk+free_bulk", kb_pool_bulk,
		    kb_cache_bulk, bulk_ops);

	/* The default, any-context pool. */
	kb_pool_release(c, held, true);
	kslot_pool_destroy(kb_pool.pool);
	cfg.flags = 0;
	kb_pool.pool = kslot_pool_create(&cfg);
	snprintf(name, sizeof(name), "pool_hot_anyctx_%u", size);
	ret = IS_ERR(kb_pool.pool) ? PTR_ERR(kb_pool.pool) :
				     kb_pool_hold(c, held, true);
	if (ret)
		kb_fail(name, n, ret);
	else
		kb_pair_row(c, name, "kmem_cache_alloc+free", kb_pool_hot,
			    kb_cache_hot, ops);
release:
	if (!IS_ERR(kb_pool.pool))
		kb_pool_release(c, held, true);
	kb_pool_release(c, cheld, false);
	if (IS_ERR(kb_pool.pool))
		goto out;
	kslot_pool_shrink(kb_pool.pool);
	kmem_cache_shrink(kb_pool.cache);

	snprintf(name, sizeof(name), "pool_fill_%u", size);
	kb_pair_row(c, name, "kmem_cache_alloc+free", kb_pool_fill,
		    kb_cache_fill, n);
out:
	c->err = 0;
	if (!IS_ERR_OR_NULL(kb_pool.pool))
		kslot_pool_destroy(kb_pool.pool);
	kmem_cache_destroy(kb_pool.cache);
	kb_pool.cache = NULL;
	kvfree(cheld);
	kvfree(held);
}

/* ---- objtable against kmem_cache + XArray ---- */

#define KB_OBJ_SIZE	64

static struct kslot_objtable *kb_otab;

static u64 kb_otab_cycle(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i;

	for (i = 0; i < c->n; i++) {
		void *obj, *found;
		u64 h;

		obj = kslot_objtable_alloc(kb_otab, &h, GFP_KERNEL);
		if (IS_ERR(obj)) {
			c->err = PTR_ERR(obj);
			break;
		}
		rcu_read_lock();
		found = __kslot_objtable_lookup(kb_otab, h);
		rcu_read_unlock();
		if (unlikely(found != obj))
			c->err = -EIO;
		kslot_objtable_free(kb_otab, h);
	}
	return ktime_get_ns() - t;
}

static u64 kb_xa_obj_cycle(struct kb_ctx *c)
{
	u64 t = ktime_get_ns();
	u32 i, id;

	for (i = 0; i < c->n; i++) {
		void *obj = kmem_cache_alloc(kb_pool.cache,
					     GFP_KERNEL | __GFP_ZERO);

		if (!obj || xa_alloc(&c->xa, &id, obj, xa_limit_32b,
				     GFP_KERNEL)) {
			kmem_cache_free(kb_pool.cache, obj);
			c->err = -ENOMEM;
			break;
		}
		if (unlikely(xa_load(&c->xa, id) != obj))
			c->err = -EIO;
		xa_erase(&c->xa, id);
		kmem_cache_free(kb_pool.cache, obj);
	}
	return ktime_get_ns() - t;
}

/* n live objects on the XArray side, as the table holds n. */
static int kb_xa_obj_fill(struct kb_ctx *c)
{
	u32 i, id;

	xa_destroy(&c->xa);
	xa_init_flags(&c->xa, XA_FLAGS_ALLOC);
	for (i = 0; i < c->n; i++) {
		void *obj = kmem_cache_alloc(kb_pool.cache,
					     GFP_KERNEL | __GFP_ZERO);

		if (!obj)
			return -ENOMEM;
		if (xa_alloc(&c->xa, &id, obj, xa_limit_32b, GFP_KERNEL)) {
			kmem_cache_free(kb_pool.cache, obj);
			return -ENOMEM;
		}
	}
	return 0;
}

static void kb_xa_obj_release(struct kb_ctx *c)
{
	unsigned long index;
	void *entry;

	xa_for_each(&c->xa, index, entry)
		kmem_cache_free(kb_pool.cache, entry);
	xa_destroy(&c->xa);
}

static void kb_bench_objtable(struct kb_ctx *c)
{
	struct kslot_objtable_config cfg = {
		.name = "kslot_bench",
		.size = KB_OBJ_SIZE,
		.max_entries = KSLOT_MAX_ENTRIES,
	};
	u32 i, n = c->n;
	int ret = 0;
	u64 k, a = 0;

	kb_otab = kslot_objtable_create(&cfg);
	kb_pool.cache = kmem_cache_create("kslot_bench", KB_OBJ_SIZE, 0, 0,
					  NULL);
	if (IS_ERR_OR_NULL(kb_otab) || !kb_pool.cache) {
		kb_fail("objtable_cycle", n, -ENOMEM);
		goto out;
	}
	/* n live objects on each side, then alloc+lookup+free cycles. */
	for (i = 0; !ret && i < n; i++) {
		u64 h;

		if (IS_ERR(kslot_objtable_alloc(kb_otab, &h, GFP_KERNEL)))
			ret = -ENOMEM;
	}
	if (!ret)
		ret = kb_xa_obj_fill(c);
	k = ret ? 0 : kb_time(c, kb_otab_cycle, n);
	if (!ret && !c->err)
		a = kb_time(c, kb_xa_obj_cycle, n);
	if (ret || c->err)
		kb_fail("objtable_cycle", n, ret ?: c->err);
	else
		kb_row("objtable_cycle", n, k,
		       "kmem_cache+xa_alloc+xa_load+xa_erase", a);
	kb_xa_obj_release(c);
out:
	c->err = 0;
	if (!IS_ERR_OR_NULL(kb_otab))
		kslot_objtable_destroy(kb_otab);
	kmem_cache_destroy(kb_pool.cache);
	kb_pool.cache = NULL;
}

/* ---- two CPUs: one kthread per CPU ---- */

enum kb_smp_kind {
	KB_SMP_MAP_LOOKUP,
	KB_SMP_XA_LOOKUP,
	KB_SMP_POOL_HOT,
	KB_SMP_CACHE_HOT,
};

struct kb_smp_thread {
	struct kb_ctx *c;
	enum kb_smp_kind kind;
	u32 first;
	u32 ops;
	u64 ns;
	int err;
	struct completion done;
};

static atomic_t kb_smp_ready;
static atomic_t kb_smp_go;

static void kb_smp_lookups(struct kb_smp_thread *th)
{
	struct kb_ctx *c = th->c;
	unsigned long sum = 0;
	u32 i, j = th->first;

	for (i = 0; i < th->ops; i++) {
		if (th->kind == KB_SMP_MAP_LOOKUP)
			sum += (unsigned long)kslot_map_lookup(&c->map,
							       c->rhandles[j]);
		else
			sum += (unsigned long)xa_load(&c->xa, c->rids[j]);
		if (++j == c->n)
			j = 0;
	}
	WRITE_ONCE(c->sink, c->sink + sum);
}

static void kb_smp_hot(struct kb_smp_thread *th)
{
	u32 i;

	for (i = 0; i < th->ops; i++) {
		void *p;

		if (th->kind == KB_SMP_POOL_HOT)
			p = kslot_pool_alloc(kb_pool.pool, GFP_KERNEL);
		else
			p = kmem_cache_alloc(kb_pool.cache, GFP_KERNEL);
		if (unlikely(!p)) {
			th->err = -ENOMEM;
			return;
		}
		if (th->kind == KB_SMP_POOL_HOT)
			kslot_pool_free(kb_pool.pool, p);
		else
			kmem_cache_free(kb_pool.cache, p);
	}
}

static int kb_smp_fn(void *arg)
{
	struct kb_smp_thread *th = arg;
	u64 t;

	atomic_inc(&kb_smp_ready);
	/* Start together; cond_resched() lets the starter run here too. */
	while (!atomic_read(&kb_smp_go)) {
		cpu_relax();
		cond_resched();
	}
	t = ktime_get_ns();
	if (th->kind == KB_SMP_MAP_LOOKUP || th->kind == KB_SMP_XA_LOOKUP)
		kb_smp_lookups(th);
	else
		kb_smp_hot(th);
	th->ns = ktime_get_ns() - t;
	complete(&th->done);
	return 0;
}

/* One run on CPUs 0 and 1; hundredths of ns per op of the slower thread. */
static u64 kb_smp_once(struct kb_ctx *c, enum kb_smp_kind kind, u32 ops)
{
	struct kb_smp_thread th[2];
	struct task_struct *task[2];
	u64 worst = 0;
	int i, cpu = -1;

	atomic_set(&kb_smp_ready, 0);
	atomic_set(&kb_smp_go, 0);
	for (i = 0; i < 2; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		th[i] = (struct kb_smp_thread){ .c = c, .kind = kind,
						.first = i * (c->n / 2),
						.ops = ops };
		init_completion(&th[i].done);
		task[i] = kthread_create(kb_smp_fn, &th[i], "kslot_bench/%d",
					 cpu);
		if (IS_ERR(task[i])) {
			c->err = PTR_ERR(task[i]);
			atomic_set(&kb_smp_go, 1);
			while (i--)
				wait_for_completion(&th[i].done);
			return 0;
		}
		kthread_bind(task[i], cpu);
		wake_up_process(task[i]);
	}
	while (atomic_read(&kb_smp_ready) < 2)
		usleep_range(500, 1000);
	atomic_set(&kb_smp_go, 1);
	for (i = 0; i < 2; i++) {
		wait_for_completion(&th[i].done);
		if (th[i].err)
			c->err = th[i].err;
		worst = max(worst, kb_cns(th[i].ns, ops));
	}
	return worst;
}

static u64 kb_smp(struct kb_ctx *c, enum kb_smp_kind kind, u32 ops)
{
	u64 best = U64_MAX;
	unsigned int r;

	for (r = 0; r < max(reps, 1U); r++) {
		u64 v = kb_smp_once(c, kind, ops);

		if (c->err)
			return 0;
		best = min(best, v);
	}
	return best;
}

static void kb_bench_smp(struct kb_ctx *c)
{
	struct kslot_pool_config cfg = { .name = "kslot_bench", .size = 64,
					 .flags = KSLOT_POOL_TASK };
	u32 n = c->n, ops = max(n, min_ops);
	u64 k, a, k1, a1;
	unsigned int r;
	int ret;

	if (num_online_cpus() < 2) {
		kb_skip("smp2_lookup_rand", n, "fewer than 2 CPUs online");
		return;
	}
	ret = kb_map_fill(c);
	if (!ret)
		ret = kb_xa_fill(c);
	if (ret) {
		kb_fail("smp2_lookup_rand", n, ret);
		return;
	}
	kb_shuffle_keys(c);
	k = kb_smp(c, KB_SMP_MAP_LOOKUP, ops);
	a = kb_smp(c, KB_SMP_XA_LOOKUP, ops);
	if (c->err) {
		kb_fail("smp2_lookup_rand", n, c->err);
		c->err = 0;
		return;
	}
	kb_row("smp2_lookup_rand", n, k, "xa_load", a);

	kb_pool.pool = kslot_pool_create(&cfg);
	kb_pool.cache = kmem_cache_create("kslot_bench", 64, 0, 0, NULL);
	kb_pool.ops = ops;
	if (IS_ERR(kb_pool.pool) || !kb_pool.cache) {
		kb_fail("smp2_pool_hot_64", n, -ENOMEM);
		goto out;
	}
	/* Each repetition runs all four loops: host load hits them alike. */
	k = U64_MAX;
	a = U64_MAX;
	k1 = U64_MAX;
	a1 = U64_MAX;
	for (r = 0; r < max(reps, 1U) && !c->err; r++) {
		k = min(k, kb_smp_once(c, KB_SMP_POOL_HOT, ops));
		if (!c->err)
			a = min(a, kb_smp_once(c, KB_SMP_CACHE_HOT, ops));
		if (!c->err)
			k1 = min(k1, kb_cns(kb_pool_hot(c), ops));
		if (!c->err)
			a1 = min(a1, kb_cns(kb_cache_hot(c), ops));
		cond_resched();
	}
	if (c->err) {
		kb_fail("smp2_pool_hot_64", n, c->err);
		goto out;
	}
	kb_row("smp2_pool_hot_64", n, k, "kmem_cache_alloc+free", a);
	/*
	 * Scaling: the same loops on one CPU, measured here; a ratio below 1
	 * is the slowdown of going to two CPUs, to compare with kmem_cache's.
	 */
	kb_row("smp2_pool_hot_64", n, k, "kslot_pool_1cpu", k1);
	kb_row("smp2_cache_scaling_64", n, a, "kmem_cache_1cpu", a1);
out:
	c->err = 0;
	if (!IS_ERR_OR_NULL(kb_pool.pool))
		kslot_pool_destroy(kb_pool.pool);
	kmem_cache_destroy(kb_pool.cache);
	kb_pool.cache = NULL;
}

/* ---- driver ---- */

static void kb_ctx_free(struct kb_ctx *c)
{
	kslot_map_destroy(&c->map, NULL, NULL);
	xa_destroy(&c->xa);
	idr_destroy(&c->idr);
	kb_floor_free(&c->floor);
	kvfree(c->objs);
	kvfree(c->perm);
	kvfree(c->handles);
	kvfree(c->rhandles);
	kvfree(c->ids);
	kvfree(c->rids);
	kvfree(c->ptrs);
}

static int kb_ctx_init(struct kb_ctx *c, u32 n)
{
	u32 i;

	memset(c, 0, sizeof(*c));
	c->n = n;
	xa_init_flags(&c->xa, XA_FLAGS_ALLOC);
	idr_init(&c->idr);
	if (kslot_map_init(&c->map, NULL, KSLOT_MAX_ENTRIES, 0))
		return -EINVAL;
	c->objs = kvmalloc_array(n, sizeof(*c->objs), GFP_KERNEL);
	c->perm = kvmalloc_array(n, sizeof(*c->perm), GFP_KERNEL);
	c->handles = kvmalloc_array(n, sizeof(*c->handles), GFP_KERNEL);
	c->rhandles = kvmalloc_array(n, sizeof(*c->rhandles), GFP_KERNEL);
	c->ids = kvmalloc_array(n, sizeof(*c->ids), GFP_KERNEL);
	c->rids = kvmalloc_array(n, sizeof(*c->rids), GFP_KERNEL);
	c->ptrs = kvcalloc(max_t(u32, n, KB_BULK), sizeof(*c->ptrs),
			   GFP_KERNEL);
	if (!c->objs || !c->perm || !c->handles || !c->rhandles || !c->ids ||
	    !c->rids || !c->ptrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		c->objs[i] = i;
		c->perm[i] = i;
	}
	/* Fisher-Yates from the fixed seed: the same order every run. */
	for (i = n - 1; i > 0; i--) {
		u32 j = prandom_u32_state(&kb_rnd) % (i + 1);

		swap(c->perm[i], c->perm[j]);
	}
	return 0;
}

static void kb_run_size(u32 n)
{
	struct kb_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	int ret;

	if (!c) {
		kb_fail("setup", n, -ENOMEM);
		return;
	}
	prandom_seed_state(&kb_rnd, seed);
	ret = kb_ctx_init(c, n);
	if (ret) {
		kb_fail("setup", n, ret);
		goto out;
	}
	if (kb_want("map"))
		kb_bench_map(c);
	c->err = 0;
	if (kb_want("dense"))
		kb_bench_dense(c);
	c->err = 0;
	if (kb_want("hive")) {
		kb_bench_hive(c, 0);
		kb_bench_hive(c, 50);
		kb_bench_hive(c, 90);
		c->err = 0;
		kb_bench_hive_churn(c);
	}
	if (kb_want("pool")) {
		kb_bench_pool(c, 64);
		kb_bench_pool(c, 512);
	}
	if (kb_want("objtable"))
		kb_bench_objtable(c);
	if (kb_want("smp"))
		kb_bench_smp(c);
	pr_info("# size %u done (sink %lu)\n", n, c->sink & 1);
out:
	kb_ctx_free(c);
	kfree(c);
}

static int __init kslot_bench_init(void)
{
	int i;

	kb_tests = 0;
	pr_info("TAP version 13\n");
	pr_info("# kernel %s %s %s\n", utsname()->sysname,
		utsname()->release, utsname()->version);
	pr_info("# cpus %u reps %u seed %u min_ops %u only %s\n",
		num_online_cpus(), reps, seed, min_ops, only ?: "all");
	for (i = 0; i < nr_sizes; i++)
		if (sizes[i] && sizes[i] <= KSLOT_MAX_ENTRIES / 2)
			kb_run_size(sizes[i]);
	if (kb_want("dense") && clear_entries &&
	    clear_entries <= KSLOT_MAX_ENTRIES)
		kb_bench_dense_clear(clear_entries);
	pr_info("1..%u\n", kb_tests);
	return 0;
}

static void __exit kslot_bench_exit(void)
{
}

module_init(kslot_bench_init);
module_exit(kslot_bench_exit);
MODULE_DESCRIPTION("kslot benchmarks against XArray, IDR, kmem_cache and objpool");
MODULE_LICENSE("GPL");
