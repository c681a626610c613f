// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kslot: the kslot tables, for userspace (kslot_dev.ko).
 *
 * A module of its own on top of the kslot.ko library, so that a driver can
 * use the library without the device.  A thin layer over the kernel API:
 * it validates arguments, keeps each open file's tables in a private
 * namespace, seals handles with a per-file and per-table key, and
 * enforces the per-file limits (this module's parameters).  The tables themselves are
 * kslot_map (records behind stable slots) and kslot_dense (records packed
 * densely).  The ABI is documented in include/uapi/linux/kslot.h.
 *
 * Locking: each file has an rw_semaphore.  Commands on a table hold it for
 * reading; creating and destroying tables hold it for writing, so a table
 * cannot go away under a command.  Within a table, kslot_map and
 * kslot_dense do their own locking; GET copies the record out without a
 * table lock (RCU; for a dense table, RCU and its sequence count).
 *
 * This file holds the parameters, the open files, INFO, CREATE and
 * DESTROY, and the dispatch.  The rest has a file per idea:
 * kslot_dev_charge.c (users, accounts, charging), kslot_dev_table.c (the
 * table kinds), kslot_dev_cmds.c (the commands on entries) and
 * kslot_dev_image.c (EXPORT and IMPORT); what they share is in
 * kslot_dev.h.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/random.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <uapi/linux/kslot.h>

#include "kslot_dev.h"
#include "kslot_internal.h"

/*
 * Record bytes of a dense table at max_entries: its arrays are one
 * allocation, which kslot_dense caps at INT_MAX bytes with the slots and
 * the reverse map (12 bytes per entry: at most 192 MiB more).
 */
#define KSLOT_DENSE_MAX_BYTES	BIT_ULL(30)
#define KSLOT_RECORD_SIZE_CAP	65536U

/* The device's limits are kslot_dev.ko's parameters ("modinfo kslot_dev"). */
static unsigned int max_tables = 64;
module_param(max_tables, uint, 0644);
MODULE_PARM_DESC(max_tables, "Tables per open file of /dev/kslot (default 64)");

unsigned long kslot_dev_max_bytes = 64UL << 20;
module_param_named(max_bytes, kslot_dev_max_bytes, ulong, 0644);
MODULE_PARM_DESC(max_bytes,
		 "Bytes of memory the tables of one open file take (default 64 MiB)");

/* 0 at load: 1/32 of RAM, at least 16 MiB (set in kslot_dev_init()). */
unsigned long kslot_dev_max_user_bytes;
module_param_named(max_user_bytes, kslot_dev_max_user_bytes, ulong, 0644);
MODULE_PARM_DESC(max_user_bytes,
		 "Bytes of memory the tables of one user take across its open files; CAP_SYS_RESOURCE openers are exempt (default 1/32 of RAM, at least 16 MiB)");

static unsigned int max_record_size = 4096;
module_param(max_record_size, uint, 0644);
MODULE_PARM_DESC(max_record_size,
		 "Largest record size of a table of any kind, at most 65536, and at most what a map table's records' pool holds (default 4096)");

/*
 * The record sizes every kind of table takes, one limit for all (INFO
 * gives one): what a map table's records' pool holds, in debug mode too
 * (set in kslot_dev_init()).
 */
static u32 kslot_dev_record_cap __ro_after_init = KSLOT_RECORD_SIZE_CAP;

static unsigned int max_entries = 1U << 20;
module_param(max_entries, uint, 0644);
MODULE_PARM_DESC(max_entries,
		 "Largest max_entries of a table, at most 16777216 (default 1048576)");

/* Totals over every open file, shown in debugfs as kslot/dev-stats. */
static atomic_long_t kslot_dev_files = ATOMIC_LONG_INIT(0);
static atomic_long_t kslot_dev_tables = ATOMIC_LONG_INIT(0);
atomic64_t kslot_dev_bytes = ATOMIC64_INIT(0);
static struct dentry *kslot_dev_debugfs, *kslot_dev_debugfs_tables;

/* Open files, for the debugfs table listing. */
static LIST_HEAD(kslot_dev_file_list);
static DEFINE_MUTEX(kslot_dev_file_lock);
static u32 kslot_dev_file_seq;

/* Current limits, clamped to what the implementation can do. */
static u32 kslot_dev_max_record_size(void)
{
	return clamp(READ_ONCE(max_record_size), 1U, kslot_dev_record_cap);
}

static u32 kslot_dev_max_entries(void)
{
	return clamp_t(u32, READ_ONCE(max_entries), 1U, KSLOT_MAX_ENTRIES);
}

/* ---- the device's commands: INFO, CREATE, DESTROY ---- */

static int kslot_ioc_info(struct kslot_file *f, void *arg, void __user *uarg)
{
	struct kslot_info *info = arg;

	/* __reserved lies among the output fields. */
	if (info->flags ||
	    !kslot_dev_out_zero(info, offsetof(struct kslot_info, abi_version),
				sizeof(*info)))
		return -EINVAL;
	info->abi_version = KSLOT_ABI_VERSION;
	info->kinds = kslot_dev_kinds(false);
	info->create_flags = 0;
	info->max_tables = READ_ONCE(max_tables);
	info->max_record_size = kslot_dev_max_record_size();
	info->max_entries = kslot_dev_max_entries();
	info->max_batch = KSLOT_MAX_BATCH;
	info->max_bytes = READ_ONCE(kslot_dev_max_bytes);
	info->max_user_bytes = kslot_acct_user_limit(f->acct);
	info->dense_max_bytes = KSLOT_DENSE_MAX_BYTES;
	info->import_kinds = kslot_dev_kinds(true);
	info->image_version = KSLOT_IMAGE_VERSION;
	return 0;
}

/* The checks CREATE and IMPORT make of a table's shape: 0 or -EINVAL. */
int kslot_dev_check_shape(u32 kind, u32 record_size, u32 max)
{
	if (kind != KSLOT_KIND_MAP && kind != KSLOT_KIND_DENSE)
		return -EINVAL;
	if (!record_size || record_size > kslot_dev_max_record_size())
		return -EINVAL;
	if (!max || max > kslot_dev_max_entries())
		return -EINVAL;
	if (kind == KSLOT_KIND_DENSE &&
	    (u64)record_size * max > KSLOT_DENSE_MAX_BYTES)
		return -EINVAL;
	return 0;
}

/*
 * Make a table of @f, an empty one or (@img) one to restore from an
 * image, whose tag and seal it takes; the file's first table gives it
 * its spare (kslot_dev_spare_new()).  The caller holds f->rwsem for
 * writing and has checked the shape.
 */
struct kslot_table *kslot_dev_table_new(struct kslot_file *f, u32 kind,
					u32 record_size, u32 max,
					const struct kslot_image *img)
{
	/* The table, and what its init allocates (settled below). */
	u64 pre = kslot_dev_table_size() +
		  kslot_table_init_bytes(kind, record_size);
	struct kslot_table *t;
	u32 id, next_id = f->next_id;
	int ret;

	if (f->nr_tables >= READ_ONCE(max_tables))
		return ERR_PTR(-ENOSPC);
	if (!f->nr_tables) {
		ret = kslot_dev_spare_new(f);
		if (ret)
			return ERR_PTR(ret);
	}
	ret = kslot_dev_charge(f, pre);
	if (ret)
		goto spare;
	ret = -ENOMEM;
	t = kslot_should_fail_alloc() ? NULL :
	    kzalloc(sizeof(*t), KSLOT_DEV_GFP);
	if (!t)
		goto uncharge;
	t->file = f;
	t->kind = kind;
	t->record_size = record_size;
	t->max_entries = max;
	t->charged = kslot_dev_table_size();
	spin_lock_init(&t->charge_lock);
	mutex_init(&t->insert_lock);
	ret = kslot_should_fail_alloc() ? -ENOMEM :
	      xa_alloc_cyclic(&f->tables, &id, t, xa_limit_31b, &f->next_id,
			      KSLOT_DEV_GFP);
	if (ret < 0)
		goto free;
	t->id = id;
	if (img) {
		/* kslot_import_check() has checked the key. */
		ret = kslot_seal_set(&t->seal, img->seal) ?:
		      kslot_table_restore_init(t, img->tag);
	} else {
		kslot_seal_init(&t->seal, &f->secret, id);
		ret = kslot_table_init(t);
	}
	if (ret)
		goto erase;
	kslot_table_set_acct(t);
	/* The records' pool (its struct and per-CPU caches): precharged. */
	kslot_dev_write_end(t, pre - kslot_dev_table_size());
	f->nr_tables++;
	atomic_long_inc(&kslot_dev_tables);
	return t;
erase:
	xa_erase(&f->tables, id);
	/* The id was never given out: the next table gets it. */
	f->next_id = next_id;
	/* Pending with its id's nodes; init left no records' pool. */
	kslot_dev_table_defer(t);
	goto uncharge;
free:
	kfree(t);
uncharge:
	kslot_dev_uncharge(f, pre);
spare:
	if (!f->nr_tables)
		kslot_dev_spare_free(f);
	return ERR_PTR(ret);
}

/*
 * Tear down a table already unlinked from its file (the last one takes
 * the file's spare with it), under f->rwsem for writing or at the file's
 * release.  The table waits for a grace period, charged as pending, as
 * its id's nodes do; a map table's records' pool with it, until the
 * records erased before have been freed into it (kslot_dev_table_defer()).
 */
void kslot_table_free(struct kslot_file *f, struct kslot_table *t)
{
	u64 charged;

	/*
	 * No command runs on it: nothing is precharged.  But the free
	 * worker settles a live map table as its erased records come back
	 * (kslot_acct_recs_done()): its charge is read as it dies.
	 */
	spin_lock(&t->charge_lock);
	t->dead = true;
	charged = t->charged;
	spin_unlock(&t->charge_lock);
	kslot_table_destroy(t);
	mutex_destroy(&t->insert_lock);
	f->nr_tables--;
	atomic_long_dec(&kslot_dev_tables);
	/* Pending before the uncharge: see kslot_acct_push(). */
	kslot_dev_table_defer(t);
	kslot_dev_uncharge(f, charged);
	if (!f->nr_tables)
		kslot_dev_spare_free(f);
}

/*
 * Undo kslot_dev_table_new() for a command that failed after it, under
 * f->rwsem for writing: the table goes, and the id cursor is set back to
 * @next_id, what it was before, as the id was never given out: a failed
 * command changes nothing, the next table's id included.
 */
void kslot_dev_table_unmake(struct kslot_file *f, struct kslot_table *t,
			    u32 next_id)
{
	xa_erase(&f->tables, t->id);
	kslot_table_free(f, t);
	f->next_id = next_id;
}

static int kslot_ioc_create(struct kslot_file *f, void *arg, void __user *uarg)
{
	struct kslot_create __user *uc = uarg;
	struct kslot_create *c = arg;
	struct kslot_table *t;
	u32 next_id;
	int ret;

	if (c->flags || c->table_id)
		return -EINVAL;
	ret = kslot_dev_check_shape(c->kind, c->record_size, c->max_entries);
	if (ret)
		return ret;
	/* An unwritable table_id fails before anything is created. */
	if (put_user(0, &uc->table_id))
		return -EFAULT;

	if (down_write_killable(&f->rwsem))
		return -EINTR;
	next_id = f->next_id;
	t = kslot_dev_table_new(f, c->kind, c->record_size, c->max_entries,
				NULL);
	ret = PTR_ERR_OR_ZERO(t);
	if (!ret && put_user(t->id, &uc->table_id)) {
		kslot_dev_table_unmake(f, t, next_id);
		ret = -EFAULT;
	}
	up_write(&f->rwsem);
	return ret;
}

static int kslot_ioc_destroy(struct kslot_file *f, void *arg,
			     void __user *uarg)
{
	struct kslot_destroy *d = arg;
	struct kslot_table *t;
	int ret = -ENOENT;

	if (d->flags || d->__reserved)
		return -EINVAL;
	if (down_write_killable(&f->rwsem))
		return -EINTR;
	t = kslot_dev_table(f, d->table_id);
	if (t) {
		xa_erase(&f->tables, t->id);
		kslot_table_free(f, t);
		ret = 0;
	}
	up_write(&f->rwsem);
	return ret;
}

/* ---- dispatch ---- */

static_assert(offsetofend(struct kslot_info, max_bytes) ==
	      KSLOT_INFO_SIZE_VER0);

union kslot_ioctl_buf {
	struct kslot_info info;
	struct kslot_create create;
	struct kslot_destroy destroy;
	struct kslot_entry entry;
	struct kslot_batch batch;
	struct kslot_iterate iterate;
	struct kslot_stats stats;
	struct kslot_dump dump;
	struct kslot_export export;
	struct kslot_import import;
};

/*
 * Every command is _IO(KSLOT_IOCTL_TYPE, nr): the argument size travels in
 * the struct, not the command.  @min_size is the struct's first size
 * (its current size unless it grew: KSLOT_OP_V).
 *
 * Only commands without side effects (@copy_out) have their struct copied
 * back whole; the others write their few output fields themselves, after
 * checking up front that they are writable, so that a command that fails
 * with -EFAULT has changed nothing.
 */
struct kslot_ioctl_op {
	size_t size;
	size_t min_size;
	bool copy_out;
	int (*fn)(struct kslot_file *f, void *arg, void __user *uarg);
};

#define KSLOT_OP_V(_cmd, _fn, _type, _min, _ro)				\
	[_IOC_NR(_cmd)] = { .size = sizeof(_type), .min_size = (_min),	\
			    .fn = _fn, .copy_out = (_ro) }
#define KSLOT_OP(_cmd, _fn, _type)					\
	KSLOT_OP_V(_cmd, _fn, _type, sizeof(_type), false)
#define KSLOT_OP_RO(_cmd, _fn, _type)					\
	KSLOT_OP_V(_cmd, _fn, _type, sizeof(_type), true)

static const struct kslot_ioctl_op kslot_ioctl_ops[] = {
	KSLOT_OP_V(KSLOT_IOC_INFO, kslot_ioc_info, struct kslot_info,
		   KSLOT_INFO_SIZE_VER0, true),
	KSLOT_OP(KSLOT_IOC_CREATE, kslot_ioc_create, struct kslot_create),
	KSLOT_OP(KSLOT_IOC_DESTROY, kslot_ioc_destroy, struct kslot_destroy),
	KSLOT_OP(KSLOT_IOC_INSERT, kslot_ioc_insert, struct kslot_entry),
	KSLOT_OP(KSLOT_IOC_GET, kslot_ioc_get, struct kslot_entry),
	KSLOT_OP(KSLOT_IOC_UPDATE, kslot_ioc_update, struct kslot_entry),
	KSLOT_OP(KSLOT_IOC_ERASE, kslot_ioc_erase, struct kslot_entry),
	KSLOT_OP(KSLOT_IOC_INSERT_BATCH, kslot_ioc_insert_batch,
		 struct kslot_batch),
	KSLOT_OP(KSLOT_IOC_GET_BATCH, kslot_ioc_get_batch, struct kslot_batch),
	KSLOT_OP(KSLOT_IOC_ERASE_BATCH, kslot_ioc_erase_batch,
		 struct kslot_batch),
	KSLOT_OP_RO(KSLOT_IOC_ITERATE, kslot_ioc_iterate, struct kslot_iterate),
	KSLOT_OP_RO(KSLOT_IOC_STATS, kslot_ioc_stats, struct kslot_stats),
	KSLOT_OP_RO(KSLOT_IOC_DUMP, kslot_ioc_dump, struct kslot_dump),
	KSLOT_OP(KSLOT_IOC_EXPORT, kslot_ioc_export, struct kslot_export),
	KSLOT_OP(KSLOT_IOC_IMPORT, kslot_ioc_import, struct kslot_import),
};

static long kslot_fops_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct kslot_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	const struct kslot_ioctl_op *op;
	union kslot_ioctl_buf buf;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	int ret;

	if (cmd != _IO(KSLOT_IOCTL_TYPE, nr) ||
	    nr >= ARRAY_SIZE(kslot_ioctl_ops))
		return -ENOTTY;
	/* A mispredicted bound must not index past the table (Spectre v1). */
	op = &kslot_ioctl_ops[array_index_nospec(nr,
						 ARRAY_SIZE(kslot_ioctl_ops))];
	if (!op->fn)
		return -ENOTTY;
	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	/* As openat2() and clone3(): no struct grows beyond a page. */
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&buf, op->size, uarg, usize);
	if (ret)
		return ret;
	ret = op->fn(f, &buf, uarg);
	if (ret || !op->copy_out)
		return ret;
	if (copy_to_user(uarg, &buf, min_t(size_t, op->size, usize)))
		return -EFAULT;
	return 0;
}

/*
 * A new open file, charged what it takes itself (its struct kslot_file
 * and struct kslot_acct) to its limits and its user's, as its tables
 * are: -EDQUOT if the user has no room for it (or -EINTR, waiting for
 * memory to be freed: kslot_dev_charge()).
 */
static int kslot_fops_open(struct inode *inode, struct file *file)
{
	u64 bytes = kslot_dev_file_size() + kslot_acct_size();
	struct kslot_file *f;
	int ret;

	if (kslot_should_fail_alloc())
		return -ENOMEM;
	f = kzalloc(sizeof(*f), KSLOT_DEV_GFP);
	if (!f)
		return -ENOMEM;
	f->acct = kslot_acct_new(file->f_cred);
	if (!f->acct) {
		kfree(f);
		return -ENOMEM;
	}
	ret = kslot_dev_charge(f, bytes);
	if (ret)
		goto put;
	init_rwsem(&f->rwsem);
	xa_init_flags(&f->tables, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	get_random_bytes(&f->secret, sizeof(f->secret));
	f->pid = task_tgid_vnr(current);
	/* The debugfs listing may hold it: never an unkillable wait. */
	if (mutex_lock_killable(&kslot_dev_file_lock)) {
		ret = -EINTR;
		goto uncharge;
	}
	f->id = ++kslot_dev_file_seq;
	list_add_tail(&f->node, &kslot_dev_file_list);
	mutex_unlock(&kslot_dev_file_lock);
	file->private_data = f;
	atomic_long_inc(&kslot_dev_files);
	return 0;
uncharge:
	kslot_dev_uncharge(f, bytes);
put:
	kslot_acct_put(f->acct);
	kfree(f);
	return ret;
}

static int kslot_fops_release(struct inode *inode, struct file *file)
{
	struct kslot_file *f = file->private_data;
	struct kslot_acct *a = f->acct;
	struct kslot_table *t;
	unsigned long id;

	/*
	 * Not killable: a close cannot fail.  Nothing holds the lock long:
	 * an open adds its file, the debugfs listing reads the files
	 * without waiting on any of them or allocating.
	 */
	mutex_lock(&kslot_dev_file_lock);
	list_del(&f->node);
	mutex_unlock(&kslot_dev_file_lock);
	xa_for_each(&f->tables, id, t) {
		xa_erase(&f->tables, id);
		kslot_table_free(f, t);
		cond_resched();
	}
	xa_destroy(&f->tables);
	/* No command runs: the spare went with the last table. */
	WARN_ON_ONCE(f->spare);
	kfree(f);
	/* Every buffer is freed: nothing but the file stays charged. */
	kslot_acct_release(a);
	atomic_long_dec(&kslot_dev_files);
	return 0;
}

static const struct file_operations kslot_fops = {
	.owner = THIS_MODULE,
	.open = kslot_fops_open,
	.release = kslot_fops_release,
	.unlocked_ioctl = kslot_fops_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static int kslot_dev_stats_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "files: %ld\ntables: %ld\nbytes: %lld\npending: %lld\n",
		   atomic_long_read(&kslot_dev_files),
		   atomic_long_read(&kslot_dev_tables),
		   (long long)atomic64_read(&kslot_dev_bytes),
		   (long long)atomic64_read(&kslot_dev_pending));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_dev_stats);

/* One line of key=value pairs per table of every open file. */
static int kslot_dev_tables_show(struct seq_file *m, void *unused)
{
	struct kslot_file *f;
	struct kslot_table *t;
	unsigned long id;

	if (mutex_lock_killable(&kslot_dev_file_lock))
		return -EINTR;
	list_for_each_entry(f, &kslot_dev_file_list, node) {
		/* Never wait on a file (its commands may wait on user pages). */
		if (!down_read_trylock(&f->rwsem)) {
			seq_printf(m, "file=%u pid=%d busy\n", f->id, f->pid);
			continue;
		}
		xa_for_each(&f->tables, id, t) {
			struct kslot_table_stats st;

			kslot_table_stats(t, &st);
			/* bytes: as charged; measured: what it takes now. */
			seq_printf(m, "file=%u pid=%d table=%u kind=%s record_size=%u entries=%llu capacity=%llu max_entries=%llu bytes=%llu measured=%llu retired=%llu rejected=%llu\n",
				   f->id, f->pid, t->id,
				   t->kind == KSLOT_KIND_MAP ? "map" : "dense",
				   t->record_size, st.entries, st.capacity,
				   st.max_entries, kslot_dev_charged(t),
				   kslot_dev_measure(t), st.retired,
				   st.rejected);
		}
		up_read(&f->rwsem);
	}
	mutex_unlock(&kslot_dev_file_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_dev_tables);

static struct miscdevice kslot_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kslot",
	.fops = &kslot_fops,
	/* Per-file namespaces, memcg accounting and per-file limits. */
	.mode = 0666,
};

/* Its files go into kslot.ko's debugfs directory, as kslot/dev-*. */
static int __init kslot_dev_init(void)
{
	int ret;

	if (!kslot_dev_max_user_bytes)
		kslot_dev_max_user_bytes = max(totalram_pages() / 32 * PAGE_SIZE,
					       16UL << 20);
	kslot_dev_record_cap = kslot_map_record_cap(KSLOT_RECORD_SIZE_CAP);
	kslot_dev_wq = alloc_workqueue("kslot_dev_free", 0, 0);
	if (!kslot_dev_wq)
		return -ENOMEM;
	ret = misc_register(&kslot_miscdev);
	if (ret) {
		destroy_workqueue(kslot_dev_wq);
		return ret;
	}
	kslot_dev_debugfs = kslot_debugfs_create("dev", "stats", NULL,
						 &kslot_dev_stats_fops);
	kslot_dev_debugfs_tables = kslot_debugfs_create("dev", "tables", NULL,
							&kslot_dev_tables_fops);
	return 0;
}

/* No file is open: each open file holds a reference on this module. */
static void __exit kslot_dev_exit(void)
{
	kslot_debugfs_remove(kslot_dev_debugfs);
	kslot_debugfs_remove(kslot_dev_debugfs_tables);
	misc_deregister(&kslot_miscdev);
	/* Closed files' memory may still wait for its grace period. */
	while (atomic_long_read(&kslot_dev_accts)) {
		rcu_barrier();
		flush_workqueue(kslot_dev_wq);
	}
	destroy_workqueue(kslot_dev_wq);
}

module_init(kslot_dev_init);
module_exit(kslot_dev_exit);

MODULE_DESCRIPTION("/dev/kslot: kslot handle tables for userspace, with per-file limits");
MODULE_AUTHOR("The kslot developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(KSLOT_VERSION);
MODULE_IMPORT_NS(KSLOT_DEV);
MODULE_IMPORT_NS(KSLOT_INTERNAL);
