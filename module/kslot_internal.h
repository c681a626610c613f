/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Definitions shared by the kslot module's own files; not part of the API.
 */
#ifndef _KSLOT_INTERNAL_H
#define _KSLOT_INTERNAL_H

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/jump_label.h>
#include <linux/kslot_dense.h>
#include <linux/kslot_slots.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

struct dentry;
struct shrinker;
struct shrink_control;

/* MODULE_VERSION() of kslot.ko and kslot_dev.ko; dkms.conf agrees. */
#define KSLOT_VERSION "0.1.0"

/*
 * The symbols below that kslot.ko exports are for kslot_dev.ko (and the
 * KUnit suites) only: they are exported in the KSLOT_INTERNAL namespace,
 * which those import and no other module should.
 */

/* The gfp flags of kslot's own allocations (never warn, memcg if asked). */
static inline gfp_t kslot_gfp(gfp_t gfp, bool account)
{
	return gfp | __GFP_NOWARN | (account ? __GFP_ACCOUNT : 0);
}

/*
 * Largest array kslot_kvmalloc() takes from kmalloc(): beyond, a page
 * order the allocator calls costly.
 */
#define KSLOT_KMALLOC_MAX	(PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER)

/*
 * A large array that lock-free readers index (a chunk of kslot_dense's
 * packed values): kmalloc() up to KSLOT_KMALLOC_MAX, vmalloc() in pages
 * beyond.  Unlike kvmalloc(), never a huge vmalloc() mapping, which is
 * rounded up to whole PMD-size pages (an array of 4 MiB + 16 bytes would
 * take 6 MiB), and, for a caller that may sleep, never a kmalloc() above
 * that (which compacts memory to make room, and whose pages, once freed,
 * may sit in the per-CPU lists out of the free count).  So such an array
 * takes its size in pages.  An atomic caller gets what kmalloc() can do.
 * Freed with kvfree().
 */
static inline void *kslot_kvmalloc(size_t size, gfp_t gfp)
{
	if (size <= KSLOT_KMALLOC_MAX || !gfpflags_allow_blocking(gfp))
		return kvmalloc(size, gfp);
	return __vmalloc(size, gfp);
}

/*
 * Memory a vmalloc() of @size takes: its pages, a huge mapping's rounded
 * up to whole PMD-size pages (@huge).  Not the area's array of page
 * pointers (a 512th of the area) nor its bookkeeping (about 128 bytes).
 */
static inline size_t kslot_vmalloc_bytes(size_t size, bool huge)
{
	return huge ? ALIGN(size, PMD_SIZE) : PAGE_ALIGN(size);
}

/*
 * Memory a kvmalloc() or kslot_kvmalloc() of @size takes: a kmalloc() is
 * rounded up to its slab (or page order), a vmalloc() to pages
 * (kslot_vmalloc_bytes()).  kvmalloc() may map an area of PMD_SIZE or
 * more with huge pages (where the architecture can), which it then aligns
 * to PMD_SIZE: such an area is charged as huge (an area of small pages
 * that happens to be aligned so too, as well).  With @p NULL (a growth
 * not yet made) the largest of these, so a prediction is never short
 * (up to a page, both only kmalloc()).
 */
static inline size_t kslot_kvmalloc_bytes(const void *p, size_t size)
{
	bool huge = IS_ENABLED(CONFIG_HAVE_ARCH_HUGE_VMALLOC) &&
		    size >= PMD_SIZE;

	if (!p && size <= PAGE_SIZE)
		return kmalloc_size_roundup(size);
	if (!p)
		return max(size > KMALLOC_MAX_SIZE ? 0 :
			   kmalloc_size_roundup(size),
			   kslot_vmalloc_bytes(size, huge));
	if (is_vmalloc_addr(p))
		return kslot_vmalloc_bytes(size, huge &&
					   IS_ALIGNED((unsigned long)p,
						      PMD_SIZE));
	return kmalloc_size_roundup(size);
}

/*
 * What a kslot_kvmalloc() of @size will take (kslot_kvmalloc_bytes()
 * measures it once made): never short, and exact beyond
 * KSLOT_KMALLOC_MAX, where it can only be pages.
 */
static inline size_t kslot_kvmalloc_size(size_t size)
{
	if (size <= KSLOT_KMALLOC_MAX)
		return kslot_kvmalloc_bytes(NULL, size);
	return kslot_vmalloc_bytes(size, false);
}

/*
 * Call @free(@rcu) after a grace period: through the table's struct
 * kslot_free_acct @acct, which counts @bytes until then, or with
 * call_rcu().  @free runs in softirq context under call_rcu(), or where
 * @acct calls it: it must not sleep (in softirq, kvfree() defers a vfree()
 * itself).
 */
static inline void kslot_free_rcu(struct kslot_free_acct *acct,
				  struct rcu_head *rcu, rcu_callback_t free,
				  size_t bytes)
{
	if (acct)
		acct->queue(acct, rcu, free, bytes);
	else
		call_rcu(rcu, free);
}

/* A kslot_free_rcu() callback: kvfree() the object @rcu begins. */
void kslot_kvfree_rcu_head(struct rcu_head *rcu);

/* kslot_dir.c: the chunk directory (struct kslot_dir). */

/*
 * What a growth allocates for the directory with the owner's lock
 * dropped, then appends with its chunk: sized by kslot_dir_need() (or
 * kslot_dir_prepare()), allocated by kslot_dir_grow_alloc(), owned by
 * the directory once kslot_dir_append() took it, else freed by
 * kslot_dir_grow_discard().  A directory of @room near chunks (the
 * first, or one replacing a full one), or, past a full near part, the
 * far array of @leaves leaves (with the first far chunk) and a leaf
 * (@add_leaf: with every 4096th).
 */
struct kslot_dir_grow {
	u32 room;
	u32 leaves;
	bool add_leaf;
	struct kslot_dir *dir;
	void ***far;
	void **leaf;
};

size_t kslot_dir_bytes(const struct kslot_dir *dir);
size_t kslot_dir_counter_bytes(void);
u32 kslot_dir_room(u32 chunks, u32 max);
void kslot_dir_need(u32 room, u32 chunks, u32 max, struct kslot_dir_grow *g);
void kslot_dir_prepare(const struct kslot_dir *dir, u32 max,
		       struct kslot_dir_grow *g);
size_t kslot_dir_grow_bytes(const struct kslot_dir_grow *g);
bool kslot_dir_grow_alloc(struct kslot_dir_grow *g, bool counter, gfp_t gfp);
void kslot_dir_grow_discard(struct kslot_dir_grow *g);
void kslot_dir_free(struct kslot_dir *dir, size_t owned,
		    struct kslot_free_acct *acct);
void kslot_dir_append(struct kslot_slots *s, struct kslot_dir __rcu **pdir,
		      struct kslot_dir *cur, struct kslot_dir_grow *g,
		      void *chunk, unsigned long nr);

/* What growing @s from @capacity until slot @index exists allocates. */
u64 kslot_slots_grow_to_bytes(const struct kslot_slots *s, u32 capacity,
			      u32 index);

struct dentry *kslot_debugfs_create(const char *kind, const char *name,
				    void *data,
				    const struct file_operations *fops);
void kslot_debugfs_remove(struct dentry *dentry);

/*
 * A registered shrinker named prefix + name (NULL if it could not be made),
 * on any kernel the module builds for, whose callbacks find @private with
 * kslot_shrinker_private(); kslot_shrinker_destroy() unregisters and frees
 * it.  The one shrinker mechanism of kslot (pools and hives).
 */
struct shrinker *kslot_shrinker_create(const char *prefix, const char *name,
				       unsigned long (*count)(struct shrinker *,
							      struct shrink_control *),
				       unsigned long (*scan)(struct shrinker *,
							     struct shrink_control *),
				       void *private);
void *kslot_shrinker_private(struct shrinker *s);
void kslot_shrinker_destroy(struct shrinker *s);

/* The hives' shrinker, made and freed with the module. */
int kslot_hive_shrinker_init(void);
void kslot_hive_shrinker_exit(void);

#ifdef CONFIG_FAULT_INJECTION
bool kslot_should_fail_alloc(void);
#else
static inline bool kslot_should_fail_alloc(void)
{
	return false;
}
#endif

/*
 * Points where the slot core drops its locks, or is between two reads a
 * racing writer may come between: a KUnit case sets a hook that runs
 * there, to force an interleaving rather than wait for it.
 */
enum kslot_slots_test_point {
	/* kslot_slots_get(): reference taken, slot not re-read. */
	KSLOT_SLOTS_TP_GET,
	/* kslot_slots_get(): out of its read-side section. */
	KSLOT_SLOTS_TP_LOOKUP_OUT,
	/* A growth has allocated its chunk, no lock held. */
	KSLOT_SLOTS_TP_GROW,
	/*
	 * kslot_slots_restore_done()'s walk, or a bulk write of kslot_dense,
	 * between two holds of the lock.
	 */
	KSLOT_SLOTS_TP_WALK,
	/* kslot_dense_lookup(): slot looked up, packed array not yet read. */
	KSLOT_SLOTS_TP_DENSE_LOOKUP,
	/* A growth of kslot_dense's packed array has its chunks, no lock. */
	KSLOT_SLOTS_TP_DENSE_GROW,
	/* kslot_dense_insert_n(): slots taken, values not stored, no lock. */
	KSLOT_SLOTS_TP_DENSE_INSERT,
	/*
	 * kslot_dir_append(): a far chunk (and its leaf) set, the count that
	 * lets readers index it not yet released (lock held).
	 */
	KSLOT_SLOTS_TP_FAR,
};

typedef void (*kslot_slots_test_hook_t)(struct kslot_slots *s,
					enum kslot_slots_test_point point);

/*
 * KUnit's hook at the test points.  A lookup must not load a writable
 * function pointer in a production build: the hook is read only once a
 * case has set it, behind a static key that is a NOP until then.
 */
#if IS_ENABLED(CONFIG_KUNIT)
DECLARE_STATIC_KEY_FALSE(kslot_slots_test_key);
extern kslot_slots_test_hook_t kslot_slots_test_hook;

static inline void kslot_slots_test_point(struct kslot_slots *s,
					  enum kslot_slots_test_point point)
{
	kslot_slots_test_hook_t fn;

	if (!static_branch_unlikely(&kslot_slots_test_key))
		return;
	fn = READ_ONCE(kslot_slots_test_hook);
	if (fn)
		fn(s, point);
}
#else
static inline void kslot_slots_test_point(struct kslot_slots *s,
					  enum kslot_slots_test_point point)
{
}
#endif

#if !IS_ENABLED(CONFIG_KUNIT)
static inline void kslot_test_note_alloc(size_t size)
{
}
#endif

#if IS_ENABLED(CONFIG_KUNIT)
#ifdef CONFIG_FAULT_INJECTION
void kslot_test_fail_alloc_arm(unsigned int nth);
bool kslot_test_fail_alloc_disarm(void);
#endif
struct kslot_slots;
int kslot_slots_test_set_gen(struct kslot_slots *s, u32 index, u64 gen);
int kslot_slots_test_grow_step(struct kslot_slots *s);
u32 kslot_slots_test_dir_room(struct kslot_slots *s);
kslot_slots_test_hook_t kslot_slots_test_set_hook(kslot_slots_test_hook_t fn);
void kslot_test_note_alloc(size_t size);
size_t kslot_slots_test_alloc_max(void);
struct kslot_pool;
unsigned long kslot_pool_test_reap(struct kslot_pool *pool);
unsigned int kslot_pool_test_stride(struct kslot_pool *pool);
bool kslot_pool_test_debug_all(bool on);
struct shrinker *kslot_hive_test_shrinker(void);
bool kslot_pool_test_passthrough_all(bool on);
bool kslot_pool_test_passthrough(struct kslot_pool *pool);
struct shrinker;
struct shrinker *kslot_pool_test_shrinker(struct kslot_pool *pool);
#endif

/*
 * Copy one stored value out (kslot_dense_lookup(), kslot_secondary_lookup()):
 * the common small sizes as single moves (a constant size lets the
 * compiler inline the memcpy()), the others by memcpy().
 */
static __always_inline void kslot_copy_value(void *dst, const void *src,
					     u32 size)
{
	switch (size) {
	case 4:
		memcpy(dst, src, 4);
		break;
	case 8:
		memcpy(dst, src, 8);
		break;
	case 16:
		memcpy(dst, src, 16);
		break;
	default:
		memcpy(dst, src, size);
		break;
	}
}

#endif /* _KSLOT_INTERNAL_H */
