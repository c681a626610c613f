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
	return kslot_map_init(&map, NULL, KSLOT_MAX_ENTRIES, 0);
}

int kn_map_fill(uint32_t n, uint64_t *handles)
{
	uint32_t i;
	int ret;

	kslot_map_destroy(&map, NULL, NULL);
	ret = kslot_map_init(&map, NULL, KSLOT_MAX_ENTRIES, 0);
	for (i = 0; !ret && i < n; i++)
		ret = kslot_map_alloc(&map, nb_val(i), &handles[i], GFP_KERNEL);
	return ret;
}

uint64_t kn_map_alloc_time(uint32_t n, uint64_t *handles)
{
	uint64_t t = nb_now();

	if (kn_map_fill(n, handles))
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

/* The floor: bounds check, clamp, chunk, generation compare. */
#define FLOOR_SHIFT	8
#define FLOOR_SLOTS	BIT(FLOOR_SHIFT)

struct floor_slot {
	u32 gen;
	void *obj;
};

static struct floor_slot **floor_chunks;
static u32 floor_nr;

int kn_floor_fill(uint32_t n)
{
	u32 i, nr_chunks = DIV_ROUND_UP(n, FLOOR_SLOTS);

	for (i = 0; i < DIV_ROUND_UP(floor_nr, FLOOR_SLOTS); i++)
		free(floor_chunks[i]);
	free(floor_chunks);
	floor_nr = 0;
	floor_chunks = calloc(nr_chunks, sizeof(*floor_chunks));
	if (!floor_chunks)
		return -1;
	for (i = 0; i < nr_chunks; i++) {
		floor_chunks[i] = calloc(FLOOR_SLOTS, sizeof(**floor_chunks));
		if (!floor_chunks[i])
			return -1;
	}
	for (i = 0; i < n; i++) {
		floor_chunks[i >> FLOOR_SHIFT][i % FLOOR_SLOTS].gen = 1;
		floor_chunks[i >> FLOOR_SHIFT][i % FLOOR_SLOTS].obj = nb_val(i);
	}
	floor_nr = n;
	return 0;
}

static __always_inline void *floor_lookup(u64 handle)
{
	u32 i = kslot_handle_index(handle);
	struct floor_slot *s;

	if (unlikely(i >= floor_nr))
		return NULL;
	i = array_index_nospec(i, floor_nr);
	s = &floor_chunks[i >> FLOOR_SHIFT][i % FLOOR_SLOTS];
	if (unlikely(READ_ONCE(s->gen) != kslot_handle_gen(handle)))
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

uint64_t kn_map_churn_time(uint64_t *h, uint32_t n)
{
	uint64_t t = nb_now();
	uint32_t i;

	for (i = 0; i < n; i++) {
		sink += (unsigned long)kslot_map_remove(&map, h[i]);
		if (kslot_map_alloc(&map, nb_val(0), &h[i], GFP_KERNEL))
			return 0;
	}
	return nb_now() - t;
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
	ret = kslot_dense_init(&dense, NULL, sizeof(u64), n, 0);
	for (i = 0; !ret && i < n; i++) {
		v = (uintptr_t)nb_val(i);
		ret = kslot_dense_insert(&dense, &v, &h, GFP_KERNEL);
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

int kn_hive_fill(uint32_t n, const uint32_t *perm, uint32_t erase)
{
	struct kslot_hive_params params = { .elem_size = sizeof(u64) };
	u64 **ptrs = calloc(n ?: 1, sizeof(*ptrs));
	u32 i;
	int ret;

	if (!ptrs)
		return -1;
	kslot_hive_destroy(&hive, NULL, NULL);
	ret = kslot_hive_init(&hive, &params);
	for (i = 0; !ret && i < n; i++) {
		ptrs[i] = kslot_hive_insert(&hive, GFP_KERNEL);
		if (!ptrs[i])
			ret = -1;
		else
			*ptrs[i] = i;
	}
	for (i = 0; !ret && i < erase; i++)
		ret = kslot_hive_erase(&hive, ptrs[perm[i]]);
	free(ptrs);
	return ret;
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

uint64_t kn_packed_iter_time(uint32_t live, uint32_t passes)
{
	u64 *a = malloc(sizeof(*a) * (live ?: 1));
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
	free(a);
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

void kn_count_lookups(const uint64_t *h, uint32_t n)
{
	u32 i;

	rcu_read_lock();
	for (i = 0; i < n; i++)
		sink += (unsigned long)kn_lookup_one(h[i]);
	rcu_read_unlock();
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
