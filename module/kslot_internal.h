/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions shared by the kslot module's own files; not part of the API.
 */
#ifndef _KSLOT_INTERNAL_H
#define _KSLOT_INTERNAL_H

#include <linux/fault-inject.h>
#include <linux/fs.h>
#include <linux/gfp.h>

struct dentry;

/* The gfp flags of kslot's own allocations (never warn, memcg if asked). */
static inline gfp_t kslot_gfp(gfp_t gfp, bool account)
{
	return gfp | __GFP_NOWARN | (account ? __GFP_ACCOUNT : 0);
}

struct dentry *kslot_debugfs_create(const char *kind, const char *name,
				    void *data,
				    const struct file_operations *fops);
void kslot_debugfs_remove(struct dentry *dentry);

#ifdef CONFIG_FAULT_INJECTION
extern struct fault_attr kslot_fail_alloc;

/*
 * Fault point checked before every allocation kslot makes.  It is reached
 * by /proc/self/task/<tid>/fail-nth sweeps like any other, and KUnit arms
 * it alone (kslot_test_fail_alloc_arm()) so that only kslot's own
 * allocations count, not the sanitizers' or debug objects'.
 */
static inline bool kslot_should_fail_alloc(void)
{
	return should_fail(&kslot_fail_alloc, 1);
}
#else
static inline bool kslot_should_fail_alloc(void)
{
	return false;
}
#endif

struct kslot_map;
struct kslot_map_slot;

/**
 * struct kslot_map_dump_info - A snapshot of part of a kslot_map.
 * @slots: Caller-allocated array receiving copies of the slots.
 * @nr_slots: Slots allocated in the map.
 * @free_head: First free slot or KSLOT_MAP_NONE.
 * @count: Live entries.
 * @returned: Slots copied into @slots.
 */
struct kslot_map_dump_info {
	struct kslot_map_slot *slots;
	u32 nr_slots;
	u32 free_head;
	u32 count;
	u32 returned;
};

void kslot_map_dump(struct kslot_map *map, u32 start, u32 max,
		    struct kslot_map_dump_info *info);

#if IS_ENABLED(CONFIG_KUNIT)
#ifdef CONFIG_FAULT_INJECTION
void kslot_test_fail_alloc_arm(unsigned int nth);
bool kslot_test_fail_alloc_disarm(void);
#endif
struct kslot_map;
int kslot_map_test_set_gen(struct kslot_map *map, u32 index, u32 gen);
struct kslot_pool;
unsigned long kslot_pool_test_reap(struct kslot_pool *pool);
unsigned int kslot_pool_test_stride(struct kslot_pool *pool);
bool kslot_pool_test_debug_all(bool on);
bool kslot_pool_test_passthrough_all(bool on);
bool kslot_pool_test_passthrough(struct kslot_pool *pool);
struct shrinker;
struct shrinker *kslot_pool_test_shrinker(struct kslot_pool *pool);
#endif

#endif /* _KSLOT_INTERNAL_H */
