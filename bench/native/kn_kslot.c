// SPDX-License-Identifier: GPL-2.0
/*
 * The kslot side of the native benchmark: kslot_map, kslot_dense,
 * kslot_hive and kslot_pool built from module/ through the shim, plus the
 * flat chunked slot array that is the floor of a generational lookup.
 */
#include <linux/kslot_dense.h>
#include <linux/kslot_hive.h>
#include <linux/kslot_map.h>
#include <linux/kslot_pool.h>
#include <linux/kslot_secondary.h>
#include <linux/kslot_sparse_set.h>

#include "kslot_internal.h"
#include "kslot_slots_core.h"
#include "native_bench.h"

static struct kslot_map map;
static struct kslot_dense dense;
static struct kslot_hive hive;
static unsigned long sink;

unsigned long kn_sink(void)
{
	return sink;
}

int kn_setup(void)
{
	rcu_register_thread();
	return kslot_map_init(&map, NULL, KSLOT_MAX_ENTRIES, 0);
}

/*
 * A CPU of the shim for the calling thread, and its registration with the
 * shim's RCU (the XArray side registers with liburcu: xn_thread_start()).
 */
void kn_thread_start(int cpu)
{
	kslot_shim_set_cpu(cpu);
	rcu_register_thread();
}

void kn_thread_stop(void)
{
	rcu_unregister_thread();
}

static int kn_map_reset(void)
{
	kslot_map_destroy(&map, NULL, NULL);
	kslot_shim_rcu_reclaim();
	return kslot_map_init(&map, NULL, KSLOT_MAX_ENTRIES, 0);
}

static int kn_map_add(uint32_t n, uint64_t *handles)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++)
		ret = kslot_map_alloc(&map, &handles[i], nb_val(i), GFP_KERNEL);
	return ret;
}

int kn_map_fill(uint32_t n, uint64_t *handles)
{
	return kn_map_reset() ?: kn_map_add(n, handles);
}

/* Allocation into an empty map, growth included, teardown not. */
uint64_t kn_map_alloc_time(uint32_t n, uint64_t *handles)
{
	uint64_t t;

	if (kn_map_reset())
		return 0;
	t = nb_now();
	if (kn_map_add(n, handles))
		return 0;
	return nb_now() - t;
}

int kn_map_check(const uint64_t *h, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (kslot_map_lookup(&map, h[i]) != nb_val(i))
			return -1;
	return 0;
}

/* After alloc+remove: every handle finds nb_val(0), and only those live. */
int kn_map_check_live(const uint64_t *h, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (kslot_map_lookup(&map, h[i]) != nb_val(0))
			return -1;
	return kslot_map_count(&map) == n ? 0 : -1;
}

uint64_t kn_map_lookup_time(const uint64_t *h, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < n; i++)
			sum += (unsigned long)kslot_map_lookup(&map, h[i]);
	t = nb_now() - t;
	sink += sum;
	return t;
}

uint64_t kn_map_lookup_inline_time(const uint64_t *h, uint32_t n,
				   uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++) {
		rcu_read_lock();
		for (i = 0; i < n; i++)
			sum += (unsigned long)__kslot_map_lookup(&map, h[i]);
		rcu_read_unlock();
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

/*
 * The handle format of the maps here (KSLOT_MAX_ENTRIES entries): the
 * index mask, and the shift to the bits above the tag (the generation and
 * bit 63).
 */
#define KN_INDEX_BITS	kslot_index_bits(KSLOT_MAX_ENTRIES)
#define KN_INDEX_MASK	(BIT(KN_INDEX_BITS) - 1)
#define KN_GEN_SHIFT	(KN_INDEX_BITS + KSLOT_TAG_BITS)

/*
 * The floor: bounds check, clamp, chunk, generation compare; its chunks
 * kmalloc()ed as the map's are.
 */
#define FLOOR_SHIFT	8
#define FLOOR_SLOTS	BIT(FLOOR_SHIFT)

struct floor_slot {
	u64 gen;
	void *obj;
};

static struct floor_slot **floor_chunks;
static u32 floor_nr;

int kn_floor_fill(uint32_t n)
{
	u32 i, nr_chunks = DIV_ROUND_UP(n, FLOOR_SLOTS);

	for (i = 0; i < DIV_ROUND_UP(floor_nr, FLOOR_SLOTS); i++)
		kfree(floor_chunks[i]);
	kvfree(floor_chunks);
	floor_nr = 0;
	floor_chunks = kvcalloc(nr_chunks, sizeof(*floor_chunks), GFP_KERNEL);
	if (!floor_chunks)
		return -1;
	for (i = 0; i < nr_chunks; i++) {
		floor_chunks[i] = kcalloc(FLOOR_SLOTS, sizeof(**floor_chunks),
					  GFP_KERNEL);
		if (!floor_chunks[i])
			return -1;
	}
	for (i = 0; i < n; i++) {
		floor_chunks[i >> FLOOR_SHIFT][i % FLOOR_SLOTS].gen =
			(KSLOT_HANDLE64_BIT | 1ULL << KN_GEN_SHIFT) >>
			KN_GEN_SHIFT;
		floor_chunks[i >> FLOOR_SHIFT][i % FLOOR_SLOTS].obj = nb_val(i);
	}
	floor_nr = n;
	return 0;
}

static __always_inline void *floor_lookup(u64 handle)
{
	u32 i = (u32)handle & KN_INDEX_MASK;
	struct floor_slot *s;

	if (unlikely(i >= floor_nr))
		return NULL;
	i = array_index_nospec(i, floor_nr);
	s = &floor_chunks[i >> FLOOR_SHIFT][i % FLOOR_SLOTS];
	if (unlikely(READ_ONCE(s->gen) != handle >> KN_GEN_SHIFT))
		return NULL;
	return READ_ONCE(s->obj);
}

uint64_t kn_floor_inline_time(const uint64_t *h, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++) {
		rcu_read_lock();
		for (i = 0; i < n; i++)
			sum += (unsigned long)floor_lookup(h[i]);
		rcu_read_unlock();
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

/*
 * Growth scheme (b) of the slot core: a two-level table, measured here
 * against the flat floor and kslot's flat table before any module change.
 * The same 16-byte slot (struct kslot_slot) and the same lookup as
 * __kslot_slots_lookup() (clamp, word == handle with acquire, object,
 * re-check), only the address of the slot differs:
 *
 *  - doubling chunks (tl_*): a directory of TL_DIR chunk pointers
 *    embedded in the table, chunk k of TL_B << k slots covering indices
 *    [TL_B * (2^k - 1), TL_B * (2^(k+1) - 1)).  With j = i + TL_B and
 *    h = fls(j) - 1, slot i is dir[h - TL_B_SHIFT][j ^ (1 << h)].  A
 *    growth publishes one more chunk and then the new nr: nothing moves,
 *    no mirror, no quiesce, nothing copied.
 *  - fixed chunks (fc_*): chunks of FC_SLOTS slots under an
 *    RCU-published directory (reloaded per lookup, as kslot reloads its
 *    table pointer); a growth copies only the directory.
 *
 * Both are filled from a kslot_map's handles, so the handles looked up are
 * the map's, and every word matches as in the map.
 */
#define TL_B_SHIFT	6
#define TL_B		BIT(TL_B_SHIFT)
#define TL_DIR		32

struct tl_table {
	u32 nr;
	u32 index_mask;
	struct kslot_slot __rcu *dir[TL_DIR];
};

static struct tl_table tl;

static void tl_free(void)
{
	unsigned int k;

	for (k = 0; k < TL_DIR; k++)
		kvfree(tl.dir[k]);
	memset(&tl, 0, sizeof(tl));
}

/* The slot of index @i < the table's capacity, for the fill. */
static struct kslot_slot *tl_slot(u32 i)
{
	u32 j = i + TL_B, h = fls64(j) - 1;

	return &tl.dir[h - TL_B_SHIFT][j ^ (1U << h)];
}

static __always_inline void *tl_lookup(struct tl_table *t, u64 handle)
{
	const struct kslot_slot *chunk, *slot;
	u32 i = (u32)handle & t->index_mask;
	unsigned long j, h;
	void *obj;

	i = array_index_nospec(i, READ_ONCE(t->nr));
	j = i + TL_B;
	/* The kernel's __fls(): one bsr (j is never 0). */
	__asm__("bsr %1, %0" : "=r" (h) : "rm" (j));
	chunk = rcu_dereference((t->dir - TL_B_SHIFT)[h]);
	/* A zeroed table has no chunk. */
	if (unlikely(!chunk))
		return NULL;
	slot = &chunk[j ^ (1UL << h)];
	/* Word, object, word, as __kslot_slots_lookup(). */
	if (unlikely(smp_load_acquire(&slot->word) != handle))
		return NULL;
	obj = READ_ONCE(slot->obj);
	smp_rmb(); /* Object before the word re-check. */
	if (unlikely(READ_ONCE(slot->word) != handle))
		return NULL;
	return obj;
}

#define FC_SHIFT	12
#define FC_SLOTS	BIT(FC_SHIFT)

struct fc_dir {
	u32 nr;
	struct kslot_slot *chunk[];
};

struct fc_table {
	struct fc_dir __rcu *dir;
	u32 index_mask;
};

static struct fc_table fc;

static void fc_free(void)
{
	u32 k;

	if (fc.dir)
		for (k = 0; k < DIV_ROUND_UP(fc.dir->nr, FC_SLOTS); k++)
			kvfree(fc.dir->chunk[k]);
	kvfree(fc.dir);
	memset(&fc, 0, sizeof(fc));
}

static __always_inline void *fc_lookup(struct fc_table *t, u64 handle)
{
	const struct fc_dir *dir = rcu_dereference(t->dir);
	const struct kslot_slot *slot;
	u32 i = (u32)handle & t->index_mask;
	void *obj;

	if (unlikely(!dir))
		return NULL;
	i = array_index_nospec(i, dir->nr);
	slot = &dir->chunk[i >> FC_SHIFT][i & (FC_SLOTS - 1)];
	/* Word, object, word, as __kslot_slots_lookup(). */
	if (unlikely(smp_load_acquire(&slot->word) != handle))
		return NULL;
	obj = READ_ONCE(slot->obj);
	smp_rmb(); /* Object before the word re-check. */
	if (unlikely(READ_ONCE(slot->word) != handle))
		return NULL;
	return obj;
}

/*
 * Both tables, holding every handle of h[0 .. n-1] (the map's, entry i
 * nb_val(i)), at least one slot.
 */
int kn_tl_fill(const uint64_t *h, uint32_t n)
{
	u32 i, k, nr = 1, cap, chunks;

	tl_free();
	fc_free();
	for (i = 0; i < n; i++)
		nr = max(nr, ((u32)h[i] & KN_INDEX_MASK) + 1);
	tl.index_mask = KN_INDEX_MASK;
	fc.index_mask = KN_INDEX_MASK;
	for (k = 0, cap = 0; cap < nr; k++) {
		tl.dir[k] = kvzalloc(sizeof(*tl.dir[k]) * (TL_B << k),
				     GFP_KERNEL);
		if (!tl.dir[k])
			return -1;
		cap += TL_B << k;
	}
	tl.nr = cap;
	chunks = DIV_ROUND_UP(nr, FC_SLOTS);
	fc.dir = kvzalloc(struct_size(fc.dir, chunk, chunks), GFP_KERNEL);
	if (!fc.dir)
		return -1;
	for (k = 0; k < chunks; k++) {
		fc.dir->chunk[k] = kvzalloc(sizeof(*fc.dir->chunk[k]) * FC_SLOTS,
					    GFP_KERNEL);
		if (!fc.dir->chunk[k])
			return -1;
	}
	fc.dir->nr = chunks * FC_SLOTS;
	for (i = 0; i < n; i++) {
		u32 x = (u32)h[i] & KN_INDEX_MASK;
		struct kslot_slot *s = tl_slot(x);

		s->word = h[i];
		s->obj = nb_val(i);
		s = &fc.dir->chunk[x >> FC_SHIFT][x & (FC_SLOTS - 1)];
		s->word = h[i];
		s->obj = nb_val(i);
	}
	return 0;
}

uint64_t kn_tl_inline_time(const uint64_t *h, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++) {
		rcu_read_lock();
		for (i = 0; i < n; i++)
			sum += (unsigned long)tl_lookup(&tl, h[i]);
		rcu_read_unlock();
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

uint64_t kn_fc_inline_time(const uint64_t *h, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++) {
		rcu_read_lock();
		for (i = 0; i < n; i++)
			sum += (unsigned long)fc_lookup(&fc, h[i]);
		rcu_read_unlock();
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

void kn_tl_free(void)
{
	tl_free();
	fc_free();
}

/* Every handle of h[0 .. n-1] finds nb_val(i) in both tables. */
int kn_tl_check(const uint64_t *h, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (tl_lookup(&tl, h[i]) != nb_val(i) ||
		    fc_lookup(&fc, h[i]) != nb_val(i) ||
		    tl_lookup(&tl, h[i] ^ BIT_ULL(KN_GEN_SHIFT + 1)) ||
		    fc_lookup(&fc, h[i] ^ BIT_ULL(KN_GEN_SHIFT + 1)))
			return -1;
	return 0;
}

/* Also run by two threads at once on disjoint parts of h. */
uint64_t kn_map_churn_time(uint64_t *h, uint32_t n)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t i;

	for (i = 0; i < n; i++) {
		sum += (unsigned long)kslot_map_remove(&map, h[i]);
		if (kslot_map_alloc(&map, &h[i], nb_val(0), GFP_KERNEL))
			return 0;
	}
	t = nb_now() - t;
	__atomic_fetch_add(&sink, sum, __ATOMIC_RELAXED);
	return t;
}

/*
 * The batch reader: runs of KN_READ_RUN lookups, each under one RCU
 * section with the table loaded once (kslot_map_read_begin()), as
 * GET_BATCH reads its chunks.
 */
#define KN_READ_RUN	256U

/*
 * One run, prefetching KSLOT_SLOTS_READ_AHEAD handles on into a ring of
 * slots if @prefetch, as GET_BATCH does.
 */
static __always_inline unsigned long kn_map_read_run(struct kslot_map_reader *r,
						     const uint64_t *h,
						     uint32_t n, bool prefetch)
{
	const uint32_t ahead = prefetch ? KSLOT_SLOTS_READ_AHEAD : 0;
	const struct kslot_slot *ring[KSLOT_SLOTS_READ_AHEAD], *slot;
	unsigned long sum = 0;
	uint32_t i;

	for (i = 0; i < n && i < ahead; i++)
		ring[i] = kslot_map_read_prefetch(r, h[i]);
	for (i = 0; i < n; i++) {
		if (ahead) {
			slot = ring[i % ahead];
			if (i + ahead < n)
				ring[i % ahead] =
					kslot_map_read_prefetch(r, h[i + ahead]);
			sum += (unsigned long)kslot_map_read_slot(r, slot, h[i]);
		} else {
			sum += (unsigned long)kslot_map_read(r, h[i]);
		}
	}
	return sum;
}

uint64_t kn_map_read_time(const uint64_t *h, uint32_t n, uint32_t passes)
{
	struct kslot_map_reader r;
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i, m;

	for (p = 0; p < passes; p++) {
		for (i = 0; i < n; i += m) {
			m = n - i < KN_READ_RUN ? n - i : KN_READ_RUN;
			rcu_read_lock();
			kslot_map_read_begin(&r, &map);
			if (m > KSLOT_SLOTS_READ_AHEAD &&
			    kslot_map_read_ahead(&r))
				sum += kn_map_read_run(&r, h + i, m, true);
			else
				sum += kn_map_read_run(&r, h + i, m, false);
			rcu_read_unlock();
		}
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

/*
 * kn_map_churn_time() in bulk: KSLOT_SLOTS_BULK entries removed with one
 * kslot_map_remove_bulk(), then as many stored again with one
 * kslot_map_alloc_bulk().
 */
uint64_t kn_map_bulk_churn_time(uint64_t *h, uint32_t n)
{
	void *objs[KSLOT_SLOTS_BULK];
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t i, k, m;

	for (i = 0; i < n; i += m) {
		m = n - i < KSLOT_SLOTS_BULK ? n - i : KSLOT_SLOTS_BULK;
		if (kslot_map_remove_bulk(&map, h + i, m, objs) != m)
			return 0;
		for (k = 0; k < m; k++)
			sum += (unsigned long)objs[k];
		if (kslot_map_alloc_bulk(&map, h + i, objs, m, GFP_KERNEL) !=
		    (int)m)
			return 0;
	}
	t = nb_now() - t;
	__atomic_fetch_add(&sink, sum, __ATOMIC_RELAXED);
	return t;
}

uint64_t kn_map_remove_time(const uint64_t *h, uint32_t n)
{
	uint64_t t = nb_now();
	uint32_t i;

	for (i = 0; i < n; i++)
		sink += (unsigned long)kslot_map_remove(&map, h[i]);
	return nb_now() - t;
}

int kn_dense_fill(uint32_t n)
{
	u64 v, h;
	u32 i;
	int ret;

	kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	ret = kslot_dense_init(&dense, NULL, sizeof(u64), n, 0);
	for (i = 0; !ret && i < n; i++) {
		v = (uintptr_t)nb_val(i);
		ret = kslot_dense_insert(&dense, &h, &v, GFP_KERNEL);
	}
	return ret;
}

uint64_t kn_dense_iter_time(uint32_t passes)
{
	unsigned long flags, sum = 0;
	uint64_t t = nb_now();
	u32 p, pos;
	void *elem;

	for (p = 0; p < passes; p++) {
		flags = kslot_dense_lock(&dense);
		kslot_dense_for_each_locked(&dense, pos, elem)
			sum += *(u64 *)elem;
		kslot_dense_unlock(&dense, flags);
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

/* Insert @n u64 elements into a fresh hive, element i holding i. */
static int kn_hive_insert_all(uint32_t n, u64 **ptrs)
{
	struct kslot_hive_params params = { .elem_size = sizeof(u64) };
	u32 i;
	int ret;

	kslot_hive_destroy(&hive, NULL, NULL);
	kslot_shim_rcu_reclaim();
	ret = kslot_hive_init(&hive, &params);
	for (i = 0; !ret && i < n; i++) {
		ptrs[i] = kslot_hive_insert(&hive, GFP_KERNEL);
		if (IS_ERR(ptrs[i]))
			return -1;
		*ptrs[i] = i;
	}
	return ret;
}

static u64 **hive_ptrs;
static uint32_t hive_ptrs_n;

static int kn_hive_ptrs(uint32_t n)
{
	if (hive_ptrs_n >= n)
		return 0;
	free(hive_ptrs);
	hive_ptrs = calloc(n ?: 1, sizeof(*hive_ptrs));
	hive_ptrs_n = hive_ptrs ? n : 0;
	return hive_ptrs ? 0 : -1;
}

uint64_t kn_hive_insert_time(uint32_t n)
{
	uint64_t t;

	if (kn_hive_ptrs(n))
		return 0;
	t = nb_now();
	if (kn_hive_insert_all(n, hive_ptrs))
		return 0;
	return nb_now() - t;
}

/* After kn_hive_insert_time(n): erase elements perm[0 .. erase-1]. */
uint64_t kn_hive_erase_time(const uint32_t *perm, uint32_t erase)
{
	uint64_t t = nb_now();
	u32 i;

	for (i = 0; i < erase; i++)
		if (kslot_hive_erase(&hive, hive_ptrs[perm[i]]))
			return 0;
	return nb_now() - t;
}

/*
 * The shape of plf::hive's benchmarks: fill an empty hive with @n
 * elements, erase @erase of them (perm[0 .. erase-1], or with @perm NULL
 * every other one from the first), then insert @refill more.  The hive is
 * emptied and made again before the timing.
 */
uint64_t kn_hive_churn_time(uint32_t n, const uint32_t *perm, uint32_t erase,
			    uint32_t refill)
{
	struct kslot_hive_params params = { .elem_size = sizeof(u64) };
	uint64_t t;
	u32 i;

	if (kn_hive_ptrs(n))
		return 0;
	kslot_hive_destroy(&hive, NULL, NULL);
	kslot_shim_rcu_reclaim();
	if (kslot_hive_init(&hive, &params))
		return 0;
	t = nb_now();
	for (i = 0; i < n; i++) {
		hive_ptrs[i] = kslot_hive_insert(&hive, GFP_KERNEL);
		if (IS_ERR(hive_ptrs[i]))
			return 0;
		*hive_ptrs[i] = i;
	}
	for (i = 0; i < erase; i++)
		if (kslot_hive_erase(&hive, hive_ptrs[perm ? perm[i] : 2 * i]))
			return 0;
	for (i = 0; i < refill; i++) {
		u64 *e = kslot_hive_insert(&hive, GFP_KERNEL);

		if (IS_ERR(e))
			return 0;
		*e = i;
	}
	return nb_now() - t;
}

static u64 *dense_h;
static uint32_t dense_h_n;

static int kn_dense_handles(uint32_t n)
{
	if (dense_h_n >= n)
		return 0;
	free(dense_h);
	dense_h = calloc(n ?: 1, sizeof(*dense_h));
	dense_h_n = dense_h ? n : 0;
	return dense_h ? 0 : -1;
}

uint64_t kn_dense_insert_time(uint32_t n)
{
	uint64_t t;
	u64 v;
	u32 i;
	int ret;

	if (kn_dense_handles(n))
		return 0;
	kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	t = nb_now();
	ret = kslot_dense_init(&dense, NULL, sizeof(u64), n, 0);
	for (i = 0; !ret && i < n; i++) {
		v = i;
		ret = kslot_dense_insert(&dense, &dense_h[i], &v, GFP_KERNEL);
	}
	if (ret)
		return 0;
	return nb_now() - t;
}

/* kn_hive_churn_time() on kslot_dense, its handles for the pointers. */
uint64_t kn_dense_churn_time(uint32_t n, const uint32_t *perm, uint32_t erase,
			     uint32_t refill)
{
	uint64_t t, h;
	u64 v;
	u32 i;

	if (kn_dense_handles(n))
		return 0;
	kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	if (kslot_dense_init(&dense, NULL, sizeof(u64), n, 0))
		return 0;
	t = nb_now();
	for (i = 0; i < n; i++) {
		v = i;
		if (kslot_dense_insert(&dense, &dense_h[i], &v, GFP_KERNEL))
			return 0;
	}
	for (i = 0; i < erase; i++)
		if (kslot_dense_erase(&dense, dense_h[perm ? perm[i] : 2 * i],
				      NULL))
			return 0;
	for (i = 0; i < refill; i++) {
		v = i;
		if (kslot_dense_insert(&dense, &h, &v, GFP_KERNEL))
			return 0;
	}
	return nb_now() - t;
}

/* After kn_dense_insert_time(n): erase the values perm[0 .. erase-1]. */
uint64_t kn_dense_erase_time(const uint32_t *perm, uint32_t erase)
{
	uint64_t t = nb_now();
	u32 i;

	for (i = 0; i < erase; i++)
		if (kslot_dense_erase(&dense, dense_h[perm[i]], NULL))
			return 0;
	return nb_now() - t;
}

/*
 * After kn_dense_insert_time(n): @passes rounds of kslot_dense_lookup() on
 * the handles perm[0 .. n-1] (each takes what it needs itself).
 */
uint64_t kn_dense_lookup_time(const uint32_t *perm, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	u32 p, i;
	u64 v;

	for (p = 0; p < passes; p++)
		for (i = 0; i < n; i++) {
			if (kslot_dense_lookup(&dense, dense_h[perm[i]], &v))
				return 0;
			sum += v;
		}
	t = nb_now() - t;
	sink += sum;
	return t;
}

/* The same lookups with __kslot_dense_lookup(), the lock held per pass. */
uint64_t kn_dense_lookup_locked_time(const uint32_t *perm, uint32_t n,
				     uint32_t passes)
{
	unsigned long flags, sum = 0;
	uint64_t t = nb_now();
	u64 *v;
	u32 p, i;

	for (p = 0; p < passes; p++) {
		flags = kslot_dense_lock(&dense);
		for (i = 0; i < n; i++) {
			v = __kslot_dense_lookup(&dense, dense_h[perm[i]]);
			if (!v)
				break;
			sum += *v;
		}
		kslot_dense_unlock(&dense, flags);
		if (i < n)
			return 0;
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

/* For callgrind: one operation per call. */
static noinline void *kn_hive_insert_one(void)
{
	return kslot_hive_insert(&hive, GFP_KERNEL);
}

static noinline int kn_hive_erase_one(void *elem)
{
	return kslot_hive_erase(&hive, elem);
}

static noinline unsigned long kn_hive_iter_pass(void)
{
	unsigned long sum = 0;
	void *elem;

	kslot_hive_for_each(&hive, elem)
		sum += *(u64 *)elem;
	return sum;
}

static noinline unsigned long kn_packed_pass(const u64 *a, u32 n)
{
	unsigned long sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += a[i];
	return sum;
}

static noinline int kn_dense_insert_one(u64 v, u64 *h)
{
	return kslot_dense_insert(&dense, h, &v, GFP_KERNEL);
}

static noinline int kn_dense_erase_one(u64 h)
{
	return kslot_dense_erase(&dense, h, NULL);
}

/*
 * n inserts, erase of perm[0 .. n/2-1], one walk over the n - n/2 left
 * (and over a packed array of as many); the same inserts and erases on
 * kslot_dense.
 */
int kn_count_hive(uint32_t n, const uint32_t *perm)
{
	struct kslot_hive_params params = { .elem_size = sizeof(u64) };
	u64 *packed;
	u32 i;

	if (kn_hive_ptrs(n))
		return -1;
	kslot_hive_destroy(&hive, NULL, NULL);
	kslot_shim_rcu_reclaim();
	if (kslot_hive_init(&hive, &params))
		return -1;
	for (i = 0; i < n; i++) {
		hive_ptrs[i] = kn_hive_insert_one();
		if (IS_ERR(hive_ptrs[i]))
			return -1;
		*hive_ptrs[i] = i;
	}
	for (i = 0; i < n / 2; i++)
		if (kn_hive_erase_one(hive_ptrs[perm[i]]))
			return -1;
	sink += kn_hive_iter_pass();
	packed = calloc(n - n / 2 ?: 1, sizeof(*packed));
	if (!packed)
		return -1;
	sink += kn_packed_pass(packed, n - n / 2);
	free(packed);

	kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	if (kn_dense_handles(n) ||
	    kslot_dense_init(&dense, NULL, sizeof(u64), n, 0))
		return -1;
	for (i = 0; i < n; i++)
		if (kn_dense_insert_one(i, &dense_h[i]))
			return -1;
	for (i = 0; i < n / 2; i++)
		if (kn_dense_erase_one(dense_h[perm[i]]))
			return -1;
	return 0;
}

int kn_hive_fill(uint32_t n, const uint32_t *perm, uint32_t erase)
{
	if (kn_hive_ptrs(n) || kn_hive_insert_all(n, hive_ptrs))
		return -1;
	return kn_hive_erase_time(perm, erase) || !erase ? 0 : -1;
}

uint64_t kn_hive_iter_time(uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	void *elem;
	u32 p;

	for (p = 0; p < passes; p++)
		kslot_hive_for_each(&hive, elem)
			sum += *(u64 *)elem;
	t = nb_now() - t;
	sink += sum;
	return t;
}

/* The packed array, as a kernel user would kvmalloc() it. */
uint64_t kn_packed_iter_time(uint32_t live, uint32_t passes)
{
	u64 *a = kvmalloc(sizeof(*a) * (live ?: 1), GFP_KERNEL);
	unsigned long sum = 0;
	uint64_t t;
	u32 p, i;

	if (!a)
		return 0;
	for (i = 0; i < live; i++)
		a[i] = i;
	t = nb_now();
	for (p = 0; p < passes; p++) {
		for (i = 0; i < live; i++)
			sum += a[i];
		barrier();
	}
	t = nb_now() - t;
	sink += sum;
	kvfree(a);
	return t;
}

/*
 * The values 0 .. @n - 1 cut into pieces of @piece bytes, each @gap bytes
 * after the one before, in one kvmalloc()ed area, and walked piece by
 * piece: the layout of kslot_dense's chunks of values without its walk
 * (16 KiB pieces 16 KiB apart are its chunks with those of the reverse
 * map between them, as they are allocated), for --layout.
 */
uint64_t kn_pieces_iter_time(uint32_t n, size_t piece, size_t gap,
			     uint32_t passes)
{
	u32 per = piece / sizeof(u64), nr = DIV_ROUND_UP(n, per);
	char *area = kvmalloc((size_t)nr * (piece + gap), GFP_KERNEL);
	unsigned long sum = 0;
	u32 p, c, i, end;
	const u64 *v;
	uint64_t t;

	if (!area)
		return 0;
	for (i = 0; i < n; i++)
		((u64 *)(area + (size_t)(i / per) * (piece + gap)))[i % per] = i;
	t = nb_now();
	for (p = 0; p < passes; p++) {
		for (c = 0; c < nr; c++) {
			v = (const u64 *)(area + (size_t)c * (piece + gap));
			end = min(per, n - c * per);
			for (i = 0; i < end; i++)
				sum += v[i];
		}
		barrier();
	}
	t = nb_now() - t;
	sink += sum;
	kvfree(area);
	return t;
}

uint64_t kn_pool_hot_time(unsigned int size, uint32_t ops)
{
	struct kslot_pool_config cfg = { .name = "native", .size = size };
	struct kslot_pool *pool = kslot_pool_create(&cfg);
	uint64_t t;
	u32 i;

	if (IS_ERR(pool))
		return 0;
	t = nb_now();
	for (i = 0; i < ops; i++) {
		void *p = kslot_pool_alloc(pool, GFP_KERNEL);

		barrier();
		kslot_pool_free(pool, p);
	}
	t = nb_now() - t;
	kslot_pool_destroy(pool);
	return t;
}

uint64_t kn_malloc_hot_time(unsigned int size, uint32_t ops)
{
	uint64_t t = nb_now();
	u32 i;

	for (i = 0; i < ops; i++) {
		void *p = malloc(size);

		/* The pool zeroes nothing without __GFP_ZERO: neither here. */
		__asm__ __volatile__("" : : "r" (p) : "memory");
		free(p);
	}
	return nb_now() - t;
}

/* For callgrind: one lookup per call, so Ir per call is the path length. */
static noinline void *kn_lookup_one(u64 handle)
{
	return __kslot_map_lookup(&map, handle);
}

static noinline void *kn_floor_one(u64 handle)
{
	return floor_lookup(handle);
}

static noinline void *kn_tl_one(u64 handle)
{
	return tl_lookup(&tl, handle);
}

static noinline void *kn_fc_one(u64 handle)
{
	return fc_lookup(&fc, handle);
}

/* callgrind: both two-level tables, one noinline call per lookup. */
void kn_count_tl(const uint64_t *h, uint32_t n)
{
	u32 i;

	rcu_read_lock();
	for (i = 0; i < n; i++)
		sink += (unsigned long)kn_tl_one(h[i]) +
			(unsigned long)kn_fc_one(h[i]);
	rcu_read_unlock();
}

void kn_count_lookups(const uint64_t *h, uint32_t n)
{
	u32 i;

	rcu_read_lock();
	for (i = 0; i < n; i++)
		sink += (unsigned long)kn_lookup_one(h[i]);
	rcu_read_unlock();
}

/*
 * The calling thread's atomic read-modify-write operations so far, in the
 * counting build (kslot_native_bench_count), in all or (0 .. KN_RMW_KINDS
 * - 1, see kn_rmw_name()) of one kind; UINT64_MAX in the other build.
 */
uint64_t kn_atomics_of(int kind)
{
#ifdef KSLOT_SHIM_COUNT_ATOMICS
	uint64_t sum = 0;
	int i;

	if (kind >= 0)
		return kslot_shim_atomics[kind];
	for (i = 0; i < KSLOT_SHIM_RMW_KINDS; i++)
		sum += kslot_shim_atomics[i];
	return sum;
#else
	return UINT64_MAX;
#endif
}

uint64_t kn_atomics(void)
{
	return kn_atomics_of(-1);
}

const char *kn_rmw_name(int kind)
{
	static const char * const names[KN_RMW_KINDS] = {
		[KSLOT_SHIM_RMW_LOCK] = "lock",
		[KSLOT_SHIM_RMW_CMPXCHG] = "cmpxchg",
		[KSLOT_SHIM_RMW_CMPXCHG128] = "cmpxchg128",
		[KSLOT_SHIM_RMW_XCHG] = "xchg",
		[KSLOT_SHIM_RMW_ADD] = "atomic_add",
	};

	return kind >= 0 && kind < KN_RMW_KINDS && names[kind] ? names[kind] : "?";
}

/* The atomics of a remove and of an alloc of the churn, apart. */
uint64_t kn_map_churn_atomics(uint64_t *h, uint32_t n, uint64_t *rm,
			      uint64_t *al)
{
	uint32_t i;

	*rm = 0;
	*al = 0;
	for (i = 0; i < n; i++) {
		uint64_t a = kn_atomics();

		sink += (unsigned long)kslot_map_remove(&map, h[i]);
		*rm += kn_atomics() - a;
		a = kn_atomics();
		if (kslot_map_alloc(&map, &h[i], nb_val(0), GFP_KERNEL))
			return 0;
		*al += kn_atomics() - a;
	}
	return 1;
}

/* callgrind: alloc+remove, each kslot_map_remove() then kslot_map_alloc(). */
noinline uint64_t kn_count_churn(uint64_t *h, uint32_t n)
{
	return kn_map_churn_time(h, n);
}

noinline uint64_t kn_count_bulk_churn(uint64_t *h, uint32_t n)
{
	return kn_map_bulk_churn_time(h, n);
}

/*
 * The pair's floor: the churn of kn_map_churn_time() with the core's own
 * fast paths (module/kslot_slots_core.h: the handle check, the release,
 * the take, each under the table lock) inlined into the loop, falling
 * back to the exported calls when the fast path cannot go on.  What is
 * left when every call, return, frame, flag test and wrapper is gone:
 * the lock, the table's own work and the loop.  Only for callgrind
 * (--count-churn-floor); it reaches into the core, which no user may.
 */
static __always_inline void *kn_floor_remove(struct kslot_slots *s,
					     u64 handle)
{
	struct kslot_slot *slot;
	unsigned long irqflags;
	void *obj = NULL;

	irqflags = kslot_slots_lock(s);
	slot = kslot_slots_live(s, handle);
	if (slot) {
		obj = slot->obj;
		kslot_slots_release(s, slot, handle);
	}
	kslot_slots_unlock(s, irqflags);
	return obj;
}

static __always_inline int kn_floor_alloc(struct kslot_slots *s, void *obj,
					  u64 *handle)
{
	unsigned long irqflags = kslot_slots_lock(s);

	if (likely(s->free_head != KSLOT_SLOTS_NONE && !s->restoring)) {
		*handle = kslot_slots_take(s, obj);
		kslot_slots_unlock(s, irqflags);
		return 0;
	}
	kslot_slots_unlock(s, irqflags);
	return kslot_slots_alloc(s, handle, obj, GFP_KERNEL);
}

noinline uint64_t kn_count_churn_floor(uint64_t *h, uint32_t n)
{
	unsigned long sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		sum += (unsigned long)kn_floor_remove(&map.slots, h[i]);
		if (kn_floor_alloc(&map.slots, nb_val(0), &h[i]))
			return 0;
	}
	__atomic_fetch_add(&sink, sum, __ATOMIC_RELAXED);
	return 1;
}

void kn_count_map_lookups(const uint64_t *h, uint32_t n)
{
	u32 i;

	for (i = 0; i < n; i++)
		sink += (unsigned long)kslot_map_lookup(&map, h[i]);
}

void kn_count_floor(const uint64_t *h, uint32_t n)
{
	u32 i;

	rcu_read_lock();
	for (i = 0; i < n; i++)
		sink += (unsigned long)kn_floor_one(h[i]);
	rcu_read_unlock();
}

/*
 * callgrind: the lookup inlined into a caller's loop, as drivers use it,
 * and the same loop with the lookup taken out (each handle summed as it
 * is).  Their difference per handle is what the inlined lookup costs: no
 * call, no return, no move of the result into the return register.
 */
static __always_inline unsigned long kn_inline_base(u64 handle)
{
	/* Keep the compiler from vectorising the base loop. */
	__asm__ __volatile__("" : "+r" (handle));
	return handle;
}

#define KN_COUNT_LOOP(name, expr)					\
noinline void name(const uint64_t *h, uint32_t n)			\
{									\
	unsigned long sum = 0;						\
	u32 i;								\
									\
	rcu_read_lock();						\
	for (i = 0; i < n; i++)						\
		sum += (unsigned long)(expr);				\
	rcu_read_unlock();						\
	sink += sum;							\
}

KN_COUNT_LOOP(kn_count_inline_lookup, __kslot_map_lookup(&map, h[i]))
KN_COUNT_LOOP(kn_count_inline_floor, floor_lookup(h[i]))
KN_COUNT_LOOP(kn_count_inline_base, kn_inline_base(h[i]))
KN_COUNT_LOOP(kn_count_inline_tl, tl_lookup(&tl, h[i]))
KN_COUNT_LOOP(kn_count_inline_fc, fc_lookup(&fc, h[i]))

/*
 * Growth stall: one thread allocates (the map grows, copying in batches)
 * while another replaces one entry over and over; the longest replace is
 * the worst a writer waits for the growth.
 */
static u64 stall_h;

int kn_stall_setup(void)
{
	kslot_map_destroy(&map, NULL, NULL);
	kslot_shim_rcu_reclaim();
	if (kslot_map_init(&map, NULL, KSLOT_MAX_ENTRIES, 0))
		return -1;
	return kslot_map_alloc(&map, &stall_h, nb_val(0), GFP_KERNEL);
}

int kn_stall_poke(void)
{
	return kslot_map_replace(&map, stall_h, nb_val(1), NULL) ? -1 : 0;
}

int kn_stall_alloc(void)
{
	u64 h;

	return kslot_map_alloc(&map, &h, nb_val(2), GFP_KERNEL);
}

/*
 * The same for kslot_dense (64-byte records): one thread inserts (the
 * packed array grows) while another overwrites one value over and over.
 */
#define KN_DENSE_STALL_SIZE	64

static u64 dense_stall_h;
static struct kslot_map kmap_hold;

int kn_dense_stall_setup(void)
{
	char v[KN_DENSE_STALL_SIZE] = { 0 };

	kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	if (kslot_dense_init(&dense, NULL, sizeof(v), KSLOT_MAX_ENTRIES, 0))
		return -1;
	return kslot_dense_insert(&dense, &dense_stall_h, v, GFP_KERNEL);
}

int kn_dense_stall_poke(void)
{
	char v[KN_DENSE_STALL_SIZE] = { 1 };

	return kslot_dense_update(&dense, dense_stall_h, v) ? -1 : 0;
}

int kn_dense_stall_alloc(void)
{
	char v[KN_DENSE_STALL_SIZE] = { 2 };
	u64 h;

	return kslot_dense_insert(&dense, &h, v, GFP_KERNEL);
}

/*
 * The longest lock hold (thread CPU time, see the shim) while one thread
 * fills a fresh table to @n: a kslot_dense of 64-byte records, or with
 * @map a kslot_map.  Every writer of the table waits at most that long.
 */
uint64_t kn_grow_hold_time(uint32_t n, int map)
{
	char v[KN_DENSE_STALL_SIZE] = { 3 };
	uint64_t worst;
	int ret = 0;
	u32 i;
	u64 h;

	kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	if (map ? kslot_map_init(&kmap_hold, NULL, n, 0) :
		  kslot_dense_init(&dense, NULL, sizeof(v), n, 0))
		return 0;
	kslot_shim_hold_begin();
	for (i = 0; !ret && i < n; i++)
		ret = map ? kslot_map_alloc(&kmap_hold, &h, nb_val(i),
					    GFP_KERNEL) :
			    kslot_dense_insert(&dense, &h, v, GFP_KERNEL);
	worst = kslot_shim_hold_end();
	if (map)
		kslot_map_destroy(&kmap_hold, NULL, NULL);
	else
		kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	return ret ? 0 : worst;
}

/*
 * The lock holds (thread CPU time) of kslot_dense_clear() of @n u64
 * values: the longest, the 99.9th and 99.99th percentiles and their
 * number, and the whole clear's time (what one hold would last if the
 * clear took the lock once).  The table is filled 4096 values per
 * kslot_dense_insert_n(), untimed.
 */
int kn_dense_clear_hold(uint32_t n, struct kn_hold *r)
{
	static u64 h[4096];
	uint64_t t;
	u32 done, m;
	int ret;

	kslot_dense_destroy(&dense, NULL, NULL);
	kslot_shim_rcu_reclaim();
	ret = kslot_dense_init(&dense, NULL, sizeof(u64), n, 0);
	for (done = 0; !ret && done < n; done += m) {
		m = min_t(u32, n - done, ARRAY_SIZE(h));
		ret = kslot_dense_insert_n(&dense, h, NULL, m, GFP_KERNEL);
	}
	if (ret)
		return ret;
	kslot_shim_hold_begin();
	t = nb_now();
	kslot_dense_clear(&dense);
	r->whole = nb_now() - t;
	r->max = kslot_shim_hold_end();
	r->p999 = kslot_shim_hold_pct(0.999, &r->holds);
	r->p9999 = kslot_shim_hold_pct(0.9999, NULL);
	return kslot_dense_count(&dense) ? -EIO : 0;
}

/*
 * For callgrind: one pool operation per call, on a task-context pool (the
 * inline fast path; the shim's local locks cost nothing, like the
 * preempt_count increment they stand for).
 */
static noinline void *kn_pool_alloc_one(struct kslot_pool *pool)
{
	return kslot_pool_alloc(pool, GFP_KERNEL);
}

static noinline void kn_pool_free_one(struct kslot_pool *pool, void *p)
{
	kslot_pool_free(pool, p);
}

static noinline int kn_pool_alloc_bulk_one(struct kslot_pool *pool,
					   void **objs)
{
	return kslot_pool_alloc_bulk(pool, GFP_KERNEL, KN_POOL_BULK, objs);
}

static noinline void kn_pool_free_bulk_one(struct kslot_pool *pool,
					   void **objs)
{
	kslot_pool_free_bulk(pool, KN_POOL_BULK, objs);
}

static noinline void *kn_malloc_one(size_t size)
{
	return malloc(size);
}

static noinline void kn_free_one(void *p)
{
	free(p);
}

void kn_count_pool(uint32_t n)
{
	struct kslot_pool_config cfg = { .name = "native", .size = 64 };
	void *objs[KN_POOL_BULK];
	struct kslot_pool *pool;
	u32 i;

#ifdef KSLOT_POOL_TASK
	cfg.flags = KSLOT_POOL_TASK;
#endif
	pool = kslot_pool_create(&cfg);
	if (IS_ERR(pool))
		return;
	for (i = 0; i < n; i++)
		kn_pool_free_one(pool, kn_pool_alloc_one(pool));
	for (i = 0; i < n / KN_POOL_BULK; i++) {
		if (kn_pool_alloc_bulk_one(pool, objs))
			break;
		kn_pool_free_bulk_one(pool, objs);
	}
	for (i = 0; i < n; i++)
		kn_free_one(kn_malloc_one(64));
	kslot_pool_destroy(pool);
}

/*
 * The sparse set (its own three-level tree) and the secondary (a keyed
 * slot table), for the decision their headers state.
 */
static struct kslot_sparse_set sset;

int kn_sset_fill(const uint32_t *keys, uint32_t n)
{
	uint32_t i;

	kslot_sparse_set_destroy(&sset);
	kslot_shim_rcu_reclaim();
	if (kslot_sparse_set_init(&sset, KSLOT_SPARSE_SET_MAX_COUNT, 0))
		return -1;
	for (i = 0; i < n; i++)
		if (kslot_sparse_set_add(&sset, keys[i], GFP_KERNEL))
			return -1;
	return 0;
}

uint64_t kn_sset_add_time(const uint32_t *keys, uint32_t n)
{
	uint64_t t;
	uint32_t i;

	kslot_sparse_set_destroy(&sset);
	kslot_shim_rcu_reclaim();
	if (kslot_sparse_set_init(&sset, KSLOT_SPARSE_SET_MAX_COUNT, 0))
		return 0;
	t = nb_now();
	for (i = 0; i < n; i++)
		if (kslot_sparse_set_add(&sset, keys[i], GFP_KERNEL))
			return 0;
	return nb_now() - t;
}

uint64_t kn_sset_pos_time(const uint32_t *keys, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < n; i++)
			sum += kslot_sparse_set_pos(&sset, keys[i]);
	t = nb_now() - t;
	sink += sum;
	return t;
}

uint64_t kn_sset_remove_time(const uint32_t *keys, uint32_t n)
{
	uint64_t t = nb_now();
	uint32_t i;

	for (i = 0; i < n; i++)
		if (kslot_sparse_set_remove(&sset, keys[i]))
			return 0;
	return nb_now() - t;
}

static struct kslot_secondary ksec;
static int ksec_ready;

int kn_sec_fill(const uint64_t *h, uint32_t n)
{
	uint32_t i;

	if (ksec_ready)
		kslot_secondary_destroy(&ksec);
	kslot_shim_rcu_reclaim();
	ksec_ready = 1;
	if (kslot_secondary_init(&ksec, NULL, sizeof(u64), KSLOT_MAX_ENTRIES,
				 0))
		return -1;
	for (i = 0; i < n; i++) {
		u64 v = i;

		if (kslot_secondary_insert(&ksec, h[i], &v, GFP_KERNEL))
			return -1;
	}
	return 0;
}

uint64_t kn_sec_lookup_time(const uint64_t *h, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < n; i++) {
			u64 v = 0;

			kslot_secondary_lookup(&ksec, h[i], &v);
			sum += v;
		}
	t = nb_now() - t;
	sink += sum;
	return t;
}
