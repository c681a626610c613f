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

/* liburcu's registration of a thread that runs XArray code. */
void xn_thread_start(void)
{
	rcu_register_thread();
}

void xn_thread_stop(void)
{
	rcu_unregister_thread();
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

/* A sparse set on an XArray: key -> xa_mk_value(position), dense keys. */
static DEFINE_XARRAY(xset);
static uint32_t *xset_keys;
static uint32_t xset_count;

int xn_set_fill(const uint32_t *keys, uint32_t n)
{
	uint32_t i;

	xa_destroy(&xset);
	free(xset_keys);
	xset_keys = malloc(sizeof(*xset_keys) * (n ? n : 1));
	xset_count = 0;
	if (!xset_keys)
		return -1;
	for (i = 0; i < n; i++) {
		if (xa_insert(&xset, keys[i], xa_mk_value(xset_count),
			      GFP_KERNEL))
			return -1;
		xset_keys[xset_count++] = keys[i];
	}
	return 0;
}

uint64_t xn_set_add_time(const uint32_t *keys, uint32_t n)
{
	uint64_t t;

	xa_destroy(&xset);
	t = nb_now();
	if (xn_set_fill(keys, n))
		return 0;
	return nb_now() - t;
}

uint64_t xn_set_pos_time(const uint32_t *keys, uint32_t n, uint32_t passes)
{
	unsigned long sum = 0;
	uint64_t t = nb_now();
	uint32_t p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < n; i++)
			sum += xa_to_value(xa_load(&xset, keys[i]));
	t = nb_now() - t;
	sink += sum;
	return t;
}

/* Swap-remove, as kslot_sparse_set_remove(): erase, move the last key. */
uint64_t xn_set_remove_time(const uint32_t *keys, uint32_t n)
{
	uint64_t t = nb_now();
	uint32_t i;

	for (i = 0; i < n; i++) {
		void *e = xa_erase(&xset, keys[i]);
		uint32_t pos, moved;

		if (!e)
			return 0;
		pos = xa_to_value(e);
		moved = xset_keys[--xset_count];
		xset_keys[pos] = moved;
		if (moved != keys[i])
			xa_store(&xset, moved, xa_mk_value(pos), GFP_KERNEL);
	}
	return nb_now() - t;
}
