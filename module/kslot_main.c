// SPDX-License-Identifier: GPL-2.0
/*
 * kslot: generational handle tables and slab-style pools for drivers.
 *
 * kslot.ko is the library: it exports the API of include/linux/kslot_*.h
 * and creates no device (/dev/kslot is kslot_dev.ko, a user of it).  This
 * file holds the module's entry points, the debugfs root that the data
 * structures and kslot_dev.ko put their files in, and kslot's fault point.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "kslot_internal.h"

static struct dentry *kslot_debugfs_root;

#ifdef CONFIG_FAULT_INJECTION
static DECLARE_FAULT_ATTR(kslot_fail_alloc);

/**
 * kslot_should_fail_alloc() - The fault point before each kslot allocation.
 *
 * Checked before every allocation kslot.ko and kslot_dev.ko make.  It is
 * reached by /proc/self/task/<tid>/fail-nth sweeps like any other, and
 * KUnit arms it alone (kslot_test_fail_alloc_arm()) so that only kslot's
 * own allocations count, not the sanitizers' or debug objects'.  Without
 * CONFIG_FAULT_INJECTION it is an inline returning false.
 *
 * Context: Any context.
 * Return: true if the allocation must fail (as if with -ENOMEM).
 */
bool kslot_should_fail_alloc(void)
{
	return should_fail(&kslot_fail_alloc, 1);
}
EXPORT_SYMBOL_NS_GPL(kslot_should_fail_alloc, KSLOT_INTERNAL);

static void kslot_fault_init(void)
{
	/* Injected failures are expected; keep the console clean. */
	kslot_fail_alloc.verbose = 0;
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	fault_create_debugfs_attr("fail_alloc", kslot_debugfs_root,
				  &kslot_fail_alloc);
#endif
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kslot_test_fail_alloc_arm() - Fail the @nth kslot allocation (KUnit only).
 * @nth: Which allocation of the current task fails, from 1.
 *
 * Uses the kslot_fail_alloc attribute's task filter and byte budget, so
 * only kslot's own allocation sites count, and only in this task.
 *
 * Context: Process context; not concurrently with another armed test.
 */
void kslot_test_fail_alloc_arm(unsigned int nth)
{
	current->make_it_fail = 1;
	kslot_fail_alloc.task_filter = true;
	kslot_fail_alloc.interval = 1;
	atomic_set(&kslot_fail_alloc.space, nth);
	atomic_set(&kslot_fail_alloc.times, 1);
	WRITE_ONCE(kslot_fail_alloc.probability, 100);
}
EXPORT_SYMBOL_IF_KUNIT(kslot_test_fail_alloc_arm);

/**
 * kslot_test_fail_alloc_disarm() - Stop failing allocations (KUnit only).
 *
 * Context: Process context.
 * Return: true if the armed failure was injected.
 */
bool kslot_test_fail_alloc_disarm(void)
{
	WRITE_ONCE(kslot_fail_alloc.probability, 0);
	kslot_fail_alloc.task_filter = false;
	current->make_it_fail = 0;
	return atomic_read(&kslot_fail_alloc.times) == 0;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_test_fail_alloc_disarm);
#endif
#else
static void kslot_fault_init(void)
{
}
#endif

/**
 * kslot_debugfs_create() - Expose one named structure in debugfs.
 * @kind: Prefix naming the structure type, e.g. "map".
 * @name: The structure's name.
 * @data: Private data for @fops.
 * @fops: File operations of the read-only file.
 *
 * Creates kslot/@kind-@name.  Debugfs failures are not errors: the file is
 * for debugging only.
 *
 * Context: Process context.
 * Return: The dentry, or NULL or an error pointer if it was not created;
 * either may be passed to kslot_debugfs_remove().
 */
struct dentry *kslot_debugfs_create(const char *kind, const char *name,
				    void *data,
				    const struct file_operations *fops)
{
	struct dentry *d;
	char *fname;

	if (IS_ERR_OR_NULL(kslot_debugfs_root))
		return NULL;
	fname = kasprintf(GFP_KERNEL, "%s-%s", kind, name);
	if (!fname)
		return NULL;
	d = debugfs_create_file(fname, 0400, kslot_debugfs_root, data, fops);
	kfree(fname);
	return d;
}
EXPORT_SYMBOL_NS_GPL(kslot_debugfs_create, KSLOT_INTERNAL);

/**
 * kslot_debugfs_remove() - Remove a file made by kslot_debugfs_create().
 * @dentry: Its return value.
 *
 * Context: Process context.
 */
void kslot_debugfs_remove(struct dentry *dentry)
{
	if (!IS_ERR_OR_NULL(dentry))
		debugfs_remove(dentry);
}
EXPORT_SYMBOL_NS_GPL(kslot_debugfs_remove, KSLOT_INTERNAL);

/**
 * kslot_kvfree_rcu_head() - Free the object an rcu_head begins.
 * @rcu: The rcu_head, the first field of a kvmalloc()ed object.
 *
 * A kslot_free_rcu() callback for arrays and records that need nothing
 * else done when they are freed.
 *
 * Context: Any context but NMI (kvfree() defers a vfree() in softirq).
 */
void kslot_kvfree_rcu_head(struct rcu_head *rcu)
{
	kvfree(rcu);
}
EXPORT_SYMBOL_NS_GPL(kslot_kvfree_rcu_head, KSLOT_INTERNAL);

/*
 * Shrinkers: shrinker_alloc() and shrinker_register() since Linux 6.7, a
 * caller-allocated struct shrinker and register_shrinker() before (Kbuild
 * tells which the kernel has).  Before 6.7 a struct shrinker has no
 * private_data, so the shrinker is embedded in a struct kslot_shrinker.
 */
#ifndef KSLOT_HAVE_SHRINKER_ALLOC
struct kslot_shrinker {
	struct shrinker shrinker;
	void *private;
};
#endif

struct shrinker *kslot_shrinker_create(const char *prefix, const char *name,
				       unsigned long (*count)(struct shrinker *,
							      struct shrink_control *),
				       unsigned long (*scan)(struct shrinker *,
							     struct shrink_control *),
				       void *private)
{
	struct shrinker *s;

#ifdef KSLOT_HAVE_SHRINKER_ALLOC
	s = shrinker_alloc(0, "%s%s", prefix, name);
	if (!s)
		return NULL;
	s->private_data = private;
	s->count_objects = count;
	s->scan_objects = scan;
	shrinker_register(s);
#else
	struct kslot_shrinker *ks = kzalloc(sizeof(*ks), GFP_KERNEL);

	if (!ks)
		return NULL;
	ks->private = private;
	s = &ks->shrinker;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	if (register_shrinker(s, "%s%s", prefix, name)) {
		kfree(ks);
		return NULL;
	}
#endif
	return s;
}

void *kslot_shrinker_private(struct shrinker *s)
{
#ifdef KSLOT_HAVE_SHRINKER_ALLOC
	return s->private_data;
#else
	return container_of(s, struct kslot_shrinker, shrinker)->private;
#endif
}

void kslot_shrinker_destroy(struct shrinker *s)
{
	if (!s)
		return;
#ifdef KSLOT_HAVE_SHRINKER_ALLOC
	shrinker_free(s);
#else
	unregister_shrinker(s);
	kfree(container_of(s, struct kslot_shrinker, shrinker));
#endif
}

static int __init kslot_init(void)
{
	int ret;

	kslot_debugfs_root = debugfs_create_dir("kslot", NULL);
	kslot_fault_init();
	ret = kslot_hive_shrinker_init();
	if (ret)
		debugfs_remove(kslot_debugfs_root);
	return ret;
}

static void __exit kslot_exit(void)
{
	kslot_hive_shrinker_exit();
	debugfs_remove(kslot_debugfs_root);
	/* Directories and chunks are freed from RCU callbacks in this module. */
	rcu_barrier();
}

module_init(kslot_init);
module_exit(kslot_exit);

MODULE_DESCRIPTION("kslot library: generational handle tables and slab-style pools");
MODULE_AUTHOR("The kslot developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(KSLOT_VERSION);
