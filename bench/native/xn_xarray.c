// SPDX-License-Identifier: GPL-2.0
/*
 * The XArray side of the native benchmark, built with the headers of the
 * kernel tree's tools/testing/radix-tree harness against the tree's own
 * lib/xarray.c (see xa_lib.c).
 */
#include <linux/xarray.h>
#include <linux/radix-tree.h>

#include "native_bench.h"

static DEFINE_XARRAY_ALLOC(xa);
static unsigned long sink;

unsigned long xn_sink(void)
{
	return sink;
}

int xn_setup(void)
{
	rcu_register_thread();
	radix_tree_init();
	return 0;
}

int xn_fill(uint32_t n, uint32_t *ids)
{
	uint32_t i;

	xa_destroy(&xa);
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	for (i = 0; i < n; i++)
		if (xa_alloc(&xa, &ids[i], nb_val(i), xa_limit_32b, GFP_KERNEL))
			return -1;
	return 0;
}

/* Allocation into an empty array, teardown of the old one not timed. */
uint64_t xn_alloc_time(uint32_t n, uint32_t *ids)
{
	uint64_t t;
	uint32_t i;

	xa_destroy(&xa);
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	t = nb_now();
	for (i = 0; i < n; i++)
		if (xa_alloc(&xa, &ids[i], nb_val(i), xa_limit_32b, GFP_KERNEL))
			return 0;
	return nb_now() - t;
}

int xn_check(const uint32_t *ids, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (xa_load(&xa, ids[i]) != nb_val(i))
			return -1;
	return 0;
}

/* After alloc+remove: every id finds nb_val(0). */
int xn_check_live(const uint32_t *ids, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (xa_load(&xa, ids[i]) != nb_val(0))
			return -1;
	return 0;
}

uint64_t xn_load_time(const uint32_t *ids, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < n; i++)
			sum += (unsigned long)xa_load(&xa, ids[i]);
	t = nb_now() - t;
	sink += sum;
	return t;
}

/* The advanced API under the caller's RCU, as __kslot_map_lookup(). */
uint64_t xn_xas_load_time(const uint32_t *ids, uint32_t n, uint32_t passes)
{
	XA_STATE(xas, &xa, 0);
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++) {
		rcu_read_lock();
		for (i = 0; i < n; i++) {
			xas_set(&xas, ids[i]);
			sum += (unsigned long)xas_load(&xas);
		}
		rcu_read_unlock();
	}
	t = nb_now() - t;
	sink += sum;
	return t;
}

/* Also run by two threads at once on disjoint parts of ids. */
uint64_t xn_churn_time(uint32_t *ids, uint32_t n)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t i;

	for (i = 0; i < n; i++) {
		sum += (unsigned long)xa_erase(&xa, ids[i]);
		if (xa_alloc(&xa, &ids[i], nb_val(0), xa_limit_32b, GFP_KERNEL))
			return 0;
	}
	t = nb_now() - t;
	__atomic_fetch_add(&sink, sum, __ATOMIC_RELAXED);
	return t;
}

uint64_t xn_erase_time(const uint32_t *ids, uint32_t n)
{
	uint64_t t = nb_now();
	uint32_t i;

	for (i = 0; i < n; i++)
		sink += (unsigned long)xa_erase(&xa, ids[i]);
	return nb_now() - t;
}

uint64_t xn_iter_time(uint32_t passes)
{
	unsigned long index, sum = 0;
	uint64_t t = nb_now();
	uint32_t p;
	void *entry;

	for (p = 0; p < passes; p++)
		xa_for_each(&xa, index, entry)
			sum += (unsigned long)entry;
	t = nb_now() - t;
	sink += sum;
	return t;
}

void xn_count_loads(const uint32_t *ids, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		sink += (unsigned long)xa_load(&xa, ids[i]);
}

/* The same growth-stall harness as kn_stall_*(): xa_store() on one index. */
static uint32_t stall_id;

int xn_stall_setup(void)
{
	xa_destroy(&xa);
	xa_init_flags(&xa, XA_FLAGS_ALLOC);
	return xa_alloc(&xa, &stall_id, nb_val(0), xa_limit_32b, GFP_KERNEL);
}

int xn_stall_poke(void)
{
	return xa_is_err(xa_store(&xa, stall_id, nb_val(1), GFP_KERNEL)) ?
	       -1 : 0;
}

int xn_stall_alloc(void)
{
	uint32_t id;

	return xa_alloc(&xa, &id, nb_val(2), xa_limit_32b, GFP_KERNEL);
}
