/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/kslot internals (kslot_dev.ko): open files and tables.
 */
#ifndef _KSLOT_DEV_H
#define _KSLOT_DEV_H

#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/kslot_slots.h>
#include <linux/kslot_dense.h>
#include <linux/kslot_map.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/siphash.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <uapi/linux/kslot.h>

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
 * @charge: Bytes charged against the max_user_bytes limit.
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
 * waits for its grace period: the next one, and the memory itself.
 */
struct kslot_freed {
	struct kslot_freed *next;
	void *mem;
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
 * @next_bytes: Its bytes.
 * @gp: Memory freed before it: freed once it ends.
 * @gp_bytes: Its bytes.
 * @busy: @rwork is queued or running.
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
	u64 next_bytes;
	struct kslot_freed *gp;
	u64 gp_bytes;
	bool busy;
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
 * @rec_bytes: Memory of one separately allocated record (0 if records
 *	live in the structure).
 * @insert_lock: Serialises inserts from their growth check to their
 *	settle, so that the insert that finds no room is the one that grows.
 * @charge_lock: Serialises updates of @charged.
 * @charged: Bytes charged for the table: itself, its structure and its
 *	records, as last measured.
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
	struct mutex insert_lock;	/* see above */
	spinlock_t charge_lock;	/* protects @charged */
	u64 charged;
	struct kslot_slots *slots;
	struct kslot_seal seal;
	union {
		struct kslot_map map;
		struct kslot_dense dense;
	};
};

#endif /* _KSLOT_DEV_H */
