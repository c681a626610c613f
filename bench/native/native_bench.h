/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The native benchmark's sides: kslot (kn_*, built through the shim), the
 * kernel's XArray (xn_*, built with tools/testing/radix-tree's headers)
 * and Rust's slotmap crate (sn_*, slotmap/src/lib.rs, a static library).
 * The driver sees only these plain C declarations.  Every *_time()
 * function returns the nanoseconds of one timed loop, or 0 on failure.
 */
#ifndef NATIVE_BENCH_H
#define NATIVE_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * The thread's CPU time: the machine is shared, and a loop the scheduler
 * preempts must not count the other programs' time (a long loop would
 * be charged more often than a short one, skewing every ratio).
 */
static inline uint64_t nb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The value stored for entry i, the same on both sides. */
static inline void *nb_val(uint32_t i)
{
	return (void *)(uintptr_t)(((uint64_t)i + 1) << 3);
}

int kn_setup(void);
uint64_t kn_count_churn(uint64_t *h, uint32_t n);
uint64_t kn_count_bulk_churn(uint64_t *h, uint32_t n);
uint64_t kn_count_churn_floor(uint64_t *h, uint32_t n);
uint64_t kn_atomics(void);
#define KN_RMW_KINDS	5
uint64_t kn_atomics_of(int kind);
const char *kn_rmw_name(int kind);
uint64_t kn_map_churn_atomics(uint64_t *h, uint32_t n, uint64_t *rm,
			      uint64_t *al);
void kn_thread_start(int cpu);
void kn_thread_stop(void);
int kn_map_fill(uint32_t n, uint64_t *handles);
uint64_t kn_map_alloc_time(uint32_t n, uint64_t *handles);
uint64_t kn_map_lookup_time(const uint64_t *h, uint32_t n, uint32_t passes);
uint64_t kn_map_lookup_inline_time(const uint64_t *h, uint32_t n,
				   uint32_t passes);
int kn_floor_fill(uint32_t n);
uint64_t kn_floor_inline_time(const uint64_t *h, uint32_t n,
			      uint32_t passes);
uint64_t kn_map_churn_time(uint64_t *h, uint32_t n);
uint64_t kn_map_bulk_churn_time(uint64_t *h, uint32_t n);
uint64_t kn_map_read_time(const uint64_t *h, uint32_t n, uint32_t passes);
uint64_t kn_map_remove_time(const uint64_t *h, uint32_t n);
int kn_map_check(const uint64_t *h, uint32_t n);
int kn_map_check_live(const uint64_t *h, uint32_t n);
int kn_dense_fill(uint32_t n);
uint64_t kn_dense_iter_time(uint32_t passes);
int kn_hive_fill(uint32_t n, const uint32_t *perm, uint32_t erase);
uint64_t kn_hive_iter_time(uint32_t passes);
uint64_t kn_hive_insert_time(uint32_t n);
uint64_t kn_hive_erase_time(const uint32_t *perm, uint32_t erase);
uint64_t kn_hive_churn_time(uint32_t n, const uint32_t *perm, uint32_t erase,
			    uint32_t refill);
uint64_t kn_dense_insert_time(uint32_t n);
uint64_t kn_dense_erase_time(const uint32_t *perm, uint32_t erase);
uint64_t kn_dense_churn_time(uint32_t n, const uint32_t *perm, uint32_t erase,
			     uint32_t refill);
uint64_t kn_dense_lookup_time(const uint32_t *perm, uint32_t n,
			      uint32_t passes);
uint64_t kn_dense_lookup_locked_time(const uint32_t *perm, uint32_t n,
				     uint32_t passes);
int kn_count_hive(uint32_t n, const uint32_t *perm);
uint64_t kn_packed_iter_time(uint32_t live, uint32_t passes);
uint64_t kn_pieces_iter_time(uint32_t n, size_t piece, size_t gap,
			     uint32_t passes);
uint64_t kn_pool_hot_time(unsigned int size, uint32_t ops);
/* Objects per bulk call of the pool's callgrind count. */
#define KN_POOL_BULK	32
void kn_count_pool(uint32_t n);
uint64_t kn_malloc_hot_time(unsigned int size, uint32_t ops);
void kn_count_lookups(const uint64_t *h, uint32_t n);
void kn_count_map_lookups(const uint64_t *h, uint32_t n);
void kn_count_floor(const uint64_t *h, uint32_t n);
void kn_count_inline_lookup(const uint64_t *h, uint32_t n);
void kn_count_inline_floor(const uint64_t *h, uint32_t n);
void kn_count_inline_base(const uint64_t *h, uint32_t n);
int kn_tl_fill(const uint64_t *h, uint32_t n);
void kn_tl_free(void);
int kn_tl_check(const uint64_t *h, uint32_t n);
uint64_t kn_tl_inline_time(const uint64_t *h, uint32_t n, uint32_t passes);
uint64_t kn_fc_inline_time(const uint64_t *h, uint32_t n, uint32_t passes);
void kn_count_tl(const uint64_t *h, uint32_t n);
void kn_count_inline_tl(const uint64_t *h, uint32_t n);
void kn_count_inline_fc(const uint64_t *h, uint32_t n);
unsigned long kn_sink(void);
int kn_stall_setup(void);
int kn_stall_poke(void);
int kn_stall_alloc(void);
int kn_dense_stall_setup(void);
int kn_dense_stall_poke(void);
int kn_dense_stall_alloc(void);
uint64_t kn_grow_hold_time(uint32_t n, int map);
/* The lock holds of a kslot_dense_clear(), ns (kn_dense_clear_hold()). */
struct kn_hold {
	uint64_t max, p999, p9999, holds, whole;
};

int kn_dense_clear_hold(uint32_t n, struct kn_hold *r);

int kn_sset_fill(const uint32_t *keys, uint32_t n);
uint64_t kn_sset_add_time(const uint32_t *keys, uint32_t n);
uint64_t kn_sset_pos_time(const uint32_t *keys, uint32_t n, uint32_t passes);
uint64_t kn_sset_remove_time(const uint32_t *keys, uint32_t n);
int kn_sec_fill(const uint64_t *h, uint32_t n);
uint64_t kn_sec_lookup_time(const uint64_t *h, uint32_t n, uint32_t passes);

int xn_setup(void);
void xn_thread_start(void);
void xn_thread_stop(void);
int xn_fill(uint32_t n, uint32_t *ids);
uint64_t xn_alloc_time(uint32_t n, uint32_t *ids);
uint64_t xn_load_time(const uint32_t *ids, uint32_t n, uint32_t passes);
uint64_t xn_xas_load_time(const uint32_t *ids, uint32_t n, uint32_t passes);
uint64_t xn_churn_time(uint32_t *ids, uint32_t n);
uint64_t xn_erase_time(const uint32_t *ids, uint32_t n);
uint64_t xn_iter_time(uint32_t passes);
int xn_check(const uint32_t *ids, uint32_t n);
int xn_check_live(const uint32_t *ids, uint32_t n);
void xn_count_loads(const uint32_t *ids, uint32_t n);
int xn_set_fill(const uint32_t *keys, uint32_t n);
uint64_t xn_set_add_time(const uint32_t *keys, uint32_t n);
uint64_t xn_set_pos_time(const uint32_t *keys, uint32_t n, uint32_t passes);
uint64_t xn_set_remove_time(const uint32_t *keys, uint32_t n);
unsigned long xn_sink(void);
int xn_stall_setup(void);
int xn_stall_poke(void);
int xn_stall_alloc(void);

/* kind: 0 SlotMap, 1 HopSlotMap, 2 DenseSlotMap (see sn_name()). */
uint32_t sn_kinds(void);
const char *sn_name(uint32_t kind);
uint64_t sn_alloc_time(uint32_t kind, uint32_t n);
int sn_check(uint32_t kind, uint32_t n);
void sn_shuffle(uint32_t kind, const uint32_t *perm, uint32_t n);
uint64_t sn_lookup_time(uint32_t kind, int rand, uint32_t passes);
uint64_t sn_churn_time(uint32_t kind);
uint64_t sn_remove_time(uint32_t kind);
uint64_t sn_iter_time(uint32_t kind, uint32_t passes);
void sn_count_lookups(void);
void sn_count_inline_get(void);
void sn_count_inline_base(void);
void sn_free(uint32_t kind);
uint64_t sn_sink(void);

#endif /* NATIVE_BENCH_H */
