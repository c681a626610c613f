/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/kslot internals (kslot_dev.ko): open files and tables, and what the
 * files of the device share.
 */
#ifndef _KSLOT_DEV_H
#define _KSLOT_DEV_H

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/kslot_slots.h>
#include <linux/kslot_dense.h>
#include <linux/kslot_map.h>
#include <linux/kslot_pool.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <uapi/linux/kslot.h>

#include "kslot_dev_lib.h"
#include "kslot_internal.h"

/* Rounds of the handle seal. */
#define KSLOT_SEAL_ROUNDS	3

/**
 * struct kslot_seal - The key of one table's handle seal.
 * @mul: Odd multipliers, one per round.
 * @inv: Their inverses modulo 2^64.
 *
 * The seal is a bijection of the 64-bit handle space: per round, a
 * multiplication by an odd constant (carries low bits upward) then
 * x ^= x >> 32 (carries the high half into the low half), each invertible.
 * It maps 0 to 0, so the null handle stays null and no live entry is ever
 * handed out as 0.  It is keyed per file and table: kslot_seal_init()
 * derives the multipliers from the file's secret and the table id with
 * SipHash, once, at create.  It exists to make a wrong handle (off by one,
 * from another table or another file) decode to an unrelated kernel
 * handle, which the table then rejects unless it happens to match a live
 * slot's tag, index and generation.  It is no secret: the key of a table
 * travels in its EXPORT image, and ITERATE hands out every handle.
 */
struct kslot_seal {
	u64 mul[KSLOT_SEAL_ROUNDS];
	u64 inv[KSLOT_SEAL_ROUNDS];
};

/* The inverse of odd @m modulo 2^64 (Newton: each step doubles the bits). */
static inline u64 kslot_seal_inverse(u64 m)
{
	u64 x = m;	/* m * m == 1 (mod 8): 3 bits */
	int i;

	for (i = 0; i < 5; i++)
		x *= 2 - m * x;
	return x;
}

/*
 * Does multiplying by @m let a one-bit difference of the low half through
 * unmixed?  A round turns a difference of +-2^j (j < 32: off by one, a
 * flipped bit of the low half) into +-2^j * @m, whose bits 32..63 are
 * bits 32 - j .. 63 - j of @m.  If those are all 0 or all 1 for some j,
 * the product lies in [-2^32, 2^32) as a signed number: the difference
 * stays in the low half, where the xorshift does not move it.  So @m is
 * weak exactly if it has 32 equal bits in a row among bits 1..63 (1,
 * -1, and every @m below 2^32 or above -2^32 among them).
 */
static inline bool kslot_seal_mul_weak(u64 m)
{
	int j;

	for (j = 0; j < 32; j++) {
		u32 hi = (m << j) >> 32;

		if (!hi || hi == U32_MAX)
			return true;
	}
	return false;
}

/*
 * A key that mixes: every multiplier odd, and neither it nor its inverse
 * (the multiplier of unsealing, which a change to a user handle goes
 * through) weak.
 */
static inline bool kslot_seal_key_ok(const u64 mul[KSLOT_SEAL_ROUNDS])
{
	int i;

	for (i = 0; i < KSLOT_SEAL_ROUNDS; i++) {
		if (!(mul[i] & 1) || kslot_seal_mul_weak(mul[i]) ||
		    kslot_seal_mul_weak(kslot_seal_inverse(mul[i])))
			return false;
	}
	return true;
}

/*
 * Key @s with multipliers @mul.  Returns -EINVAL if the key does not mix
 * (kslot_seal_key_ok(): an even or weak multiplier, from a hostile IMPORT
 * image), 0 otherwise.
 */
static inline int kslot_seal_set(struct kslot_seal *s,
				 const u64 mul[KSLOT_SEAL_ROUNDS])
{
	int i;

	if (!kslot_seal_key_ok(mul))
		return -EINVAL;
	for (i = 0; i < KSLOT_SEAL_ROUNDS; i++) {
		s->mul[i] = mul[i];
		s->inv[i] = kslot_seal_inverse(mul[i]);
	}
	return 0;
}

/*
 * The seal of table @table_id of the file whose secret is @secret.  A
 * multiplier that does not mix (one random odd value in 2^25 or fewer) is
 * derived again, so that every key CREATE makes, and EXPORT writes,
 * passes IMPORT's check.
 */
static inline void kslot_seal_init(struct kslot_seal *s,
				   const siphash_key_t *secret, u32 table_id)
{
	u64 mul[KSLOT_SEAL_ROUNDS];
	u32 n;
	int i;

	for (i = 0; i < KSLOT_SEAL_ROUNDS; i++) {
		mul[i] = siphash_2u32(table_id, i, secret) | 1;
		n = 1;
		while (kslot_seal_mul_weak(mul[i]) ||
		       kslot_seal_mul_weak(kslot_seal_inverse(mul[i])))
			mul[i] = siphash_3u32(table_id, i, n++, secret) | 1;
	}
	kslot_seal_set(s, mul);
}

/* Kernel handle -> user handle. */
static inline u64 kslot_seal(const struct kslot_seal *s, u64 h)
{
	int i;

	for (i = 0; i < KSLOT_SEAL_ROUNDS; i++) {
		h *= s->mul[i];
		h ^= h >> 32;
	}
	return h;
}

/* User handle -> kernel handle: the inverse of kslot_seal(). */
static inline u64 kslot_unseal(const struct kslot_seal *s, u64 h)
{
	int i;

	for (i = KSLOT_SEAL_ROUNDS - 1; i >= 0; i--) {
		h ^= h >> 32;	/* its own inverse for a shift of 32 */
		h *= s->inv[i];
	}
	return h;
}

/**
 * struct kslot_charge - The counters of one limit: a file's or a user's.
 * @bytes: Bytes charged for what the tables take now, and precharges.
 * @pending: Bytes the tables no longer use, waiting for an RCU grace
 *	period before they are freed.  They count against the limit too.
 * @freed: Bytes freed after their grace period so far (wraps around);
 *	a charge that waits for @pending watches it.
 */
struct kslot_charge {
	atomic64_t bytes;
	atomic64_t pending;
	atomic64_t freed;
};

/**
 * struct kslot_user - What one user of one user namespace has charged
 *	across its open files.
 * @node: Entry in the module's hash of users.
 * @ref: Open files (their accounts) of this user, and users whose
 *	namespace's owner it is (@parent).
 * @ns: The user namespace (a reference is held).
 * @uid: The user.
 * @parent: The owner of @ns in the parent namespace, NULL in the initial
 *	one: every level is charged, as ucounts do.
 * @charge: Bytes charged against the max_user_bytes limit: what its
 *	files take, and its own struct and those of the users below it.
 */
struct kslot_user {
	struct hlist_node node;
	refcount_t ref;
	struct user_namespace *ns;
	kuid_t uid;
	struct kslot_user *parent;
	struct kslot_charge charge;
};

/*
 * What the memory a table stops using keeps in its rcu_head while it
 * waits for its grace period: the next one, and the memory itself (a
 * tagged pointer, below) or, on the account's callback list, what frees
 * it (the slot core's directories and chunks, kslot_dense's arrays).
 */
struct kslot_freed {
	struct kslot_freed *next;
	union {
		void *mem;
		rcu_callback_t free;
	};
};

/**
 * struct kslot_acct - The charges of one open file, which outlive it
 *	while memory it freed waits for a grace period.
 * @ref: The file, and a batch of memory waiting (@busy).
 * @charge: Bytes charged against the max_bytes limit.
 * @user: The opener's charges across its files (a reference is held).
 * @unlimited: The opener had CAP_SYS_RESOURCE in the initial user
 *	namespace: max_user_bytes does not apply (its bytes still count for
 *	every user level).
 * @free_acct: The hook the file's tables free memory through.
 * @lock: Protects the lists, their bytes and @busy.
 * @next: Memory freed since the running grace period started.
 * @next_cb: The same, freed by a callback (the tables' free_acct hook).
 * @next_bytes: Their bytes.
 * @gp: Memory freed before it: freed once it ends.
 * @gp_cb: The same, freed by a callback.
 * @gp_bytes: Their bytes.
 * @busy: @rwork is queued or running.
 * @released: Its file is released: its own memory counts as pending
 *	until it is freed (kslot_acct_release()).
 * @rwork: Frees @gp after a grace period, then uncharges it.
 */
struct kslot_acct {
	refcount_t ref;
	struct kslot_charge charge;
	struct kslot_user *user;
	bool unlimited;
	struct kslot_free_acct free_acct;
	spinlock_t lock;	/* see above */
	struct kslot_freed *next;
	struct kslot_freed *next_cb;
	u64 next_bytes;
	struct kslot_freed *gp;
	struct kslot_freed *gp_cb;
	u64 gp_bytes;
	bool busy;
	bool released;
	struct rcu_work rwork;
};

/**
 * struct kslot_file - One open file of /dev/kslot: a table namespace.
 * @rwsem: Held for reading by table commands, for writing by create and
 *	destroy.
 * @tables: Table id -> struct kslot_table.
 * @next_id: Cursor for cyclic table id allocation, so ids are not reused
 *	soon and a destroyed table's handles cannot reach its successor.
 * @nr_tables: Tables in @tables.
 * @acct: Its charges, and its user's.
 * @spare: While it has a table, a temporary buffer of %KSLOT_DEV_SPARE
 *	bytes charged to its limits, kept for its commands: NULL while
 *	one holds it.  Taken by xchg() and given back by
 *	smp_store_release() under @rwsem (either way); allocated and
 *	freed with the first and last table, under @rwsem for writing.
 * @secret: Key from which each table's handle seal is derived.
 * @node: Entry in the list of open files (for debugfs).
 * @id: Number of this open file, for debugfs.
 * @pid: Thread group that opened it, for debugfs.
 */
struct kslot_file {
	struct rw_semaphore rwsem;
	struct xarray tables;
	u32 next_id;
	u32 nr_tables;
	struct kslot_acct *acct;
	void *spare;
	siphash_key_t secret;
	struct list_head node;
	u32 id;
	pid_t pid;
};

/**
 * struct kslot_table_stats - A table's counters and memory, as its kind
 *	reports them.
 * @entries: Live entries.
 * @capacity: Slots allocated.
 * @max_entries: Capacity limit.
 * @retired: Slots retired for good.
 * @bytes: Memory of the structure (not of separately allocated records).
 * @grow_bytes: Memory its next growth would allocate; 0 if it cannot grow.
 * @room: Inserts that fit before the structure must grow.
 * @rejected: Nonzero handles that named no live entry, as the core counts
 *	them: each -ENOENT of GET, UPDATE and ERASE, and a walk's lookup
 *	or an insert's rollback erase that lost a race with an erase.
 */
struct kslot_table_stats {
	u64 entries;
	u64 capacity;
	u64 max_entries;
	u64 retired;
	u64 bytes;
	u64 grow_bytes;
	u64 room;
	u64 rejected;
};

/**
 * struct kslot_table - A table of fixed-size records.
 * @file: The file it belongs to.
 * @id: Its id within @file.
 * @kind: enum kslot_table_kind.
 * @record_size: Bytes per record.
 * @max_entries: Capacity limit.
 * @rec_bytes: A record's share of the memory of @recs: the bytes an
 *	erased record waiting for its grace period counts as pending (0 if
 *	records live in the structure).
 * @recs_grow: Memory one growth of @recs takes (a slab): charged before
 *	an insert that finds no free record in @recs makes it.
 * @insert_lock: Serialises inserts from their growth check to their
 *	settle, so that the insert that finds no room is the one that grows.
 * @room: Inserts that will find room without a growth, as last
 *	measured less those made since: a lower bound, as nothing but an
 *	insert takes room (an erase may add some).  Under @insert_lock.
 * @charge_lock: Serialises updates of @charged and @dead, and the
 *	free worker's decisions on @recs_pending and @recs_kept.
 * @dead: Destroyed: never settled again; its records still waiting for
 *	their grace period keep their bytes pending (@recs_kept) until the
 *	table itself, which holds @recs, is freed after them.
 * @charged: Bytes charged for the table: itself, its structure and its
 *	records' pool, less what its erased records count as pending, as
 *	last measured.
 * @recs: A map table's records: a pool of its own, whose slabs are
 *	charged whole, so that erasing records pins nothing uncharged.
 * @recs_pending: Bytes of erased records of @recs waiting for their
 *	grace period (counted as pending, not in @charged).
 * @recs_kept: Bytes of records freed into @recs after the table died,
 *	kept pending until the table (and @recs) is freed.
 * @free_rcu: Where a destroyed table waits to be freed after a grace
 *	period, a map table after its records (struct kslot_freed).
 * @slots: The slot core under either kind (handles, counters, dump, walk).
 * @seal: Key of the handle seal of this table.
 * @map: The kslot_map of a map table.
 * @dense: The kslot_dense of a dense table.
 */
struct kslot_table {
	struct kslot_file *file;
	u32 id;
	u32 kind;
	u32 record_size;
	u32 max_entries;
	u32 rec_bytes;
	u32 recs_grow;
	struct mutex insert_lock;	/* see above */
	u32 room;
	spinlock_t charge_lock;	/* protects @charged, @dead */
	bool dead;
	u64 charged;
	struct kslot_pool *recs;
	atomic64_t recs_pending;
	u64 recs_kept;
	struct rcu_head free_rcu;
	struct kslot_slots *slots;
	struct kslot_seal seal;
	union {
		struct kslot_map map;
		struct kslot_dense dense;
	};
};

#define KSLOT_MAX_BATCH		1024U

/*
 * Memory a file's tables keep, and the buffers of its commands (struct
 * kslot_tmp: they may be held while a user copy waits): charged to the
 * opener's memory cgroup, and failing with -ENOMEM rather than invoking
 * the OOM killer when the cgroup (or the machine) is out of memory:
 * userspace asked for it and can handle the error, and the OOM killer
 * would pick some other process in the cgroup, since this memory counts
 * for no task.  (kvmalloc() then reclaims harder before its vmalloc()
 * fallback.  A records pool's own struct, from kslot_pool_create(), is
 * the exception: GFP_KERNEL_ACCOUNT.)
 */
#define KSLOT_DEV_GFP		(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
				 __GFP_NOWARN)

/*
 * How far the temporary buffers of commands (struct kslot_tmp), charged
 * like the tables, may take a file and each of its user levels past
 * their limits (the uapi header states it): a command at the limit still
 * gets one, and all the threads of a user held up in user copies pin at
 * most this much more than max_user_bytes, however many files they use.
 */
#define KSLOT_DEV_TMP_SLACK	(16U * 1024)

/*
 * Size of the temporary buffer a file with a table keeps for its
 * commands (struct kslot_file's @spare), so that a GET of a record or a
 * GET_BATCH chunk allocates nothing (kslot_dev_tmp_alloc()), even once
 * the memory cgroup is full.
 */
#define KSLOT_DEV_SPARE		SZ_4K

/**
 * struct kslot_tmp - A temporary buffer of a command, which the command
 *	may hold while it copies from or to userspace (and so for as long
 *	as a user page makes it wait).
 * @p: The buffer.
 * @bytes: Memory it takes, charged to its file's limits and its user's
 *	until it is freed (0 for the spare, charged with the file's first
 *	table).
 * @spare: It is its file's spare, to give back.
 */
struct kslot_tmp {
	void *p;
	u64 bytes;
	bool spare;
};

/* Slots a walk of a table covers between two resched points. */
#define KSLOT_WALK_CHUNK	256U

/* A record of a map table (in t->recs); freed after a grace period. */
struct kslot_rec {
	struct rcu_head rcu;
	u8 data[];
};

/*
 * What a struct kslot_freed frees, in the low bits of its mem: memory to
 * kvfree() (no bit), a map record (KSLOT_FREED_REC: mem is its table, the
 * record holds the struct kslot_freed), or a destroyed table and a map
 * table's records' pool (KSLOT_FREED_TABLE), freed after the records.
 */
#define KSLOT_FREED_REC		1UL
#define KSLOT_FREED_TABLE	2UL
#define KSLOT_FREED_MASK	3UL

/* kslot_dev.c: the parameters, open files, table create and destroy. */
extern unsigned long kslot_dev_max_bytes;
extern unsigned long kslot_dev_max_user_bytes;
extern atomic64_t kslot_dev_bytes;
int kslot_dev_check_shape(u32 kind, u32 record_size, u32 max);
struct kslot_table *kslot_dev_table_new(struct kslot_file *f, u32 kind,
					u32 record_size, u32 max,
					const struct kslot_image *img);
void kslot_table_free(struct kslot_file *f, struct kslot_table *t);
void kslot_dev_table_unmake(struct kslot_file *f, struct kslot_table *t,
			    u32 next_id);

/* kslot_dev_charge.c: users, accounts and charging. */
extern struct workqueue_struct *kslot_dev_wq;
extern atomic_long_t kslot_dev_accts;
extern atomic64_t kslot_dev_pending;
int kslot_dev_charge(struct kslot_file *f, u64 bytes);
void kslot_acct_adjust(struct kslot_acct *a, s64 delta);
void kslot_acct_put(struct kslot_acct *a);
void kslot_acct_defer(struct kslot_acct *a, void *mem,
		      struct rcu_head *rcu, u64 bytes);
void kslot_dev_recs_erased(struct kslot_table *t, void *const *recs, u32 n);
struct kslot_rec *kslot_dev_rec_alloc(struct kslot_table *t, u64 *pre);
void kslot_dev_table_defer(struct kslot_table *t);
struct kslot_acct *kslot_acct_new(const struct cred *cred);
void kslot_acct_release(struct kslot_acct *a);
void kslot_dev_settle(struct kslot_table *t);
u64 kslot_dev_measure(struct kslot_table *t);
int kslot_dev_tmp_alloc(struct kslot_file *f, struct kslot_tmp *b,
			size_t size, gfp_t gfp);
void kslot_dev_tmp_free(struct kslot_file *f, struct kslot_tmp *b);
int kslot_dev_spare_new(struct kslot_file *f);
void kslot_dev_spare_free(struct kslot_file *f);

/* kslot_dev_table.c: the table kinds. */
int kslot_dev_bounce(struct kslot_table *t, struct kslot_tmp *b);
u64 kslot_table_init_bytes(u32 kind, u32 record_size);
u32 kslot_map_record_cap(u32 cap);
int kslot_table_init(struct kslot_table *t);
void kslot_table_set_acct(struct kslot_table *t);
void kslot_table_destroy(struct kslot_table *t);
void *kslot_rec_from_user(struct kslot_table *t, const void __user *src,
			  u64 *pre, struct kslot_tmp *b);
void kslot_rec_free(struct kslot_table *t, struct kslot_rec *rec);
u32 kslot_table_lookup_many(struct kslot_table *t, u64 *h, u32 n, u8 *buf,
			    const struct kslot_seal *seal);
int kslot_table_update(struct kslot_table *t, u64 h,
		       const void __user *rec_u);
int kslot_table_erase(struct kslot_table *t, u64 h);
void kslot_table_stats(struct kslot_table *t, struct kslot_table_stats *st);
/* A dump's buffers (kslot_table_dump()), for @n slots: one allocation. */
struct kslot_dump_buf {
	struct kslot_tmp tmp;
	struct kslot_slots_dump_slot *core;
	struct kslot_dump_slot *slots;
	u32 *reverse;
};

int kslot_dump_buf_alloc(struct kslot_file *f, struct kslot_dump_buf *db,
			 u32 n);
void kslot_dump_buf_free(struct kslot_file *f, struct kslot_dump_buf *db);
int kslot_table_dump(struct kslot_table *t, struct kslot_dump *d,
		     struct kslot_dump_buf *db);
int kslot_table_restore_init(struct kslot_table *t, u32 tag);
int kslot_table_restore(struct kslot_table *t, u32 index, u64 gen,
			u32 state, const void __user *rec_u, u64 *pre);
void kslot_table_restore_done(struct kslot_table *t);

/* kslot_dev_cmds.c: the commands on entries. */
int kslot_ioc_insert(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_get(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_update(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_erase(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_insert_batch(struct kslot_file *f, void *arg,
			   void __user *uarg);
int kslot_ioc_get_batch(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_erase_batch(struct kslot_file *f, void *arg,
			  void __user *uarg);
int kslot_ioc_iterate(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_stats(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_dump(struct kslot_file *f, void *arg, void __user *uarg);

/* kslot_dev_image.c: checkpoint and restore. */
int kslot_ioc_export(struct kslot_file *f, void *arg, void __user *uarg);
int kslot_ioc_import(struct kslot_file *f, void *arg, void __user *uarg);

/*
 * What the hot paths (GET, INSERT, ERASE and their batches) call in
 * another file, and small helpers: inline, as they were when the device
 * was one file.
 */

static inline u64 kslot_acct_user_limit(const struct kslot_acct *a)
{
	return a->unlimited ? U64_MAX : READ_ONCE(kslot_dev_max_user_bytes);
}

static inline void kslot_dev_adjust(struct kslot_file *f, s64 delta)
{
	kslot_acct_adjust(f->acct, delta);
}

static inline void kslot_dev_uncharge(struct kslot_file *f, u64 bytes)
{
	kslot_dev_adjust(f, -(s64)bytes);
}

/*
 * A table alone under each of the XArray nodes below the top one of a
 * 31-bit index (shifts 0 to 24: 5 of them) takes 5 nodes.
 */
static_assert(KSLOT_TABLE_ID_BYTES >= 5 * sizeof(struct xa_node));

/*
 * Memory of an open file itself, its struct kslot_file, at its slab size:
 * charged from open until release.
 */
static inline u64 kslot_dev_file_size(void)
{
	return kmalloc_size_roundup(sizeof(struct kslot_file));
}

/*
 * Memory of an open file's struct kslot_acct: charged from open, and as
 * pending from release until it is freed.
 */
static inline u64 kslot_acct_size(void)
{
	return kmalloc_size_roundup(sizeof(struct kslot_acct));
}

/* Memory of the struct kslot_table itself, and of its id in f->tables. */
static inline u64 kslot_dev_table_size(void)
{
	return kmalloc_size_roundup(sizeof(struct kslot_table)) +
	       KSLOT_TABLE_ID_BYTES;
}

static inline bool kslot_table_is_dense(const struct kslot_table *t)
{
	return t->kind == KSLOT_KIND_DENSE;
}

/*
 * Store @rec, a record from kslot_rec_from_user(), and set the kernel
 * handle.  A map record is the entry's own, or freed on failure; a dense
 * table copies its record in, from the caller's bounce buffer.
 */
static inline int kslot_table_insert(struct kslot_table *t, void *rec,
				     u64 *h)
{
	int ret;

	if (kslot_table_is_dense(t))
		return kslot_dense_insert(&t->dense, h, rec, KSLOT_DEV_GFP);
	ret = kslot_map_alloc(&t->map, h, rec, KSLOT_DEV_GFP);
	if (ret)
		kslot_rec_free(t, rec);
	return ret;
}

/* Copy the record of kernel handle @h into @buf, taking no lock. */
static inline int kslot_table_lookup(struct kslot_table *t, u64 h, void *buf)
{
	return kslot_table_lookup_many(t, &h, 1, buf, NULL) ? 0 : -ENOENT;
}

/*
 * The record of an entry erased from map table @t: freed after RCU, and
 * charged until then, as pending; the caller's settle uncharges it as in
 * use.
 */
static inline void kslot_map_rec_erased(struct kslot_table *t,
					struct kslot_rec *rec)
{
	void *recs[] = { rec };

	kslot_dev_recs_erased(t, recs, 1);
}

static inline u32 kslot_table_tag(struct kslot_table *t)
{
	return kslot_slots_tag(t->slots);
}

/* What @t is charged, as last settled. */
static inline u64 kslot_dev_charged(struct kslot_table *t)
{
	u64 bytes;

	spin_lock(&t->charge_lock);
	bytes = t->charged;
	spin_unlock(&t->charge_lock);
	return bytes;
}

/*
 * Precharge the growth an insert into @t must make if the table has no
 * room left; *@bytes is set to what is charged.  The caller holds
 * t->insert_lock, so no other insert takes the room meanwhile: the insert
 * that finds none is the one that grows.  The room is measured only once
 * t->room, the inserts known to fit, runs out.  Returns how many inserts
 * may be made before the next check, at most @n (not 0) and at least 1
 * (the one that grows, or fails with -ENOSPC if the table cannot); or
 * -EDQUOT, or -EINTR if waiting for pending memory to be freed was
 * interrupted (kslot_dev_charge()).
 */
static inline int kslot_dev_precharge_growth(struct kslot_table *t, u32 n,
					     u64 *bytes)
{
	struct kslot_table_stats ts;
	u32 fit;
	int ret;

	lockdep_assert_held(&t->insert_lock);
	*bytes = 0;
	if (!t->room) {
		kslot_table_stats(t, &ts);
		if (!ts.room && ts.grow_bytes) {
			ret = kslot_dev_charge(t->file, ts.grow_bytes);
			if (ret)
				return ret;
			*bytes = ts.grow_bytes;
			return 1;
		}
		t->room = min_t(u64, ts.room, U32_MAX);
	}
	/* No room and no growth (max_entries): one, to fail -ENOSPC. */
	fit = clamp_t(u32, t->room, 1, n);
	t->room -= min(fit, t->room);
	return fit;
}

/* After a command that may have changed @t's memory: charge what it is. */
static inline void kslot_dev_write_end(struct kslot_table *t, u64 pre)
{
	kslot_dev_settle(t);
	kslot_dev_uncharge(t->file, pre);
}

/*
 * The first published entry in slots *@pos .. @end - 1, in slot order:
 * set *@pos and its kernel handle, and copy its record if @buf is not
 * NULL.  Or -ENOENT, with *@pos the first slot not scanned (@end, or the
 * table's size if it ends before).
 */
static inline int kslot_table_next(struct kslot_table *t, u32 *pos,
				   u32 end, u64 *h, void *buf)
{
	u32 i = *pos;

	while (kslot_slots_find_range(t->slots, &i, end, h)) {
		/* An entry erased since is skipped, as if found after. */
		if (!buf || !kslot_table_lookup(t, *h, buf)) {
			*pos = i;
			return 0;
		}
		i++;
	}
	*pos = i;
	return -ENOENT;
}

/* Bit (1 << kind) per kind; @import: only the kinds IMPORT takes. */
static inline u32 kslot_dev_kinds(bool import)
{
	return BIT(KSLOT_KIND_MAP) | BIT(KSLOT_KIND_DENSE);
}

/* The table a command names; the caller holds f->rwsem. */
static inline struct kslot_table *kslot_dev_table(struct kslot_file *f, u32 id)
{
	return id ? xa_load(&f->tables, id) : NULL;
}

/*
 * True if bytes @first .. @end - 1 of the argument @arg (its output-only
 * fields) are zero, as they must be on input (see the uapi header).
 */
static inline bool kslot_dev_out_zero(const void *arg, size_t first,
				      size_t end)
{
	return !memchr_inv((const u8 *)arg + first, 0, end - first);
}

#endif /* _KSLOT_DEV_H */
