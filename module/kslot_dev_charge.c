// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kslot: users, accounts and charging (kslot_dev.ko).
 *
 * What an open file takes (itself, from open, the buffers its commands
 * hold and its tables) is charged to the file (max_bytes) and to its
 * opener's user, at every level of its user namespace (max_user_bytes),
 * as is each user's own struct.  Memory a table stops using stays charged
 * until it is freed, after an RCU grace period.  The rest of the device
 * is in kslot_dev.c.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "kslot_dev.h"
#include "kslot_internal.h"

/*
 * Users, keyed by user namespace and kuid, as ucounts are: a user's
 * charge is charged to the owner of its namespace in the parent
 * namespace too, and so on up to the initial namespace, so that the uids
 * of a namespace (an /etc/subuid range, say) spend their creator's budget
 * instead of each having one of its own.  Each open file's account holds
 * a reference on its user, and each user on its parent.  The lock is a
 * spinlock: nothing under it sleeps (the users an open may add are
 * allocated before it is taken), so no open or close of one user waits
 * long on another's.
 */
static DEFINE_HASHTABLE(kslot_dev_users, 6);
static DEFINE_SPINLOCK(kslot_dev_users_lock);

static unsigned long kslot_user_key(struct user_namespace *ns, kuid_t uid)
{
	return hash_ptr(ns, 32) ^ __kuid_val(uid);
}

/* Charge (or, negative, uncharge) @u and every level above it: no limit. */
static void kslot_user_adjust(struct kslot_user *u, s64 delta)
{
	for (; u; u = u->parent)
		atomic64_add(delta, &u->charge.bytes);
	atomic64_add(delta, &kslot_dev_bytes);
}

/*
 * What a user's struct takes.  It is charged to the user and the levels
 * above it from the open that makes it (whose own charge, right after,
 * checks the limits with it) until it is freed: a user with a subordinate
 * uid range would otherwise pin one uncharged per uid it opens a file
 * as.
 */
static u64 kslot_user_size(void)
{
	return kmalloc_size_roundup(sizeof(struct kslot_user));
}

/* Drop a reference on @u, and on its parents as they go. */
static void __kslot_user_put(struct kslot_user *u)
{
	struct kslot_user *parent;

	lockdep_assert_held(&kslot_dev_users_lock);
	while (u && refcount_dec_and_test(&u->ref)) {
		hash_del(&u->node);
		kslot_user_adjust(u, -(s64)kslot_user_size());
		WARN_ON_ONCE(atomic64_read(&u->charge.bytes) ||
			     atomic64_read(&u->charge.pending));
		parent = u->parent;
		put_user_ns(u->ns);
		kfree(u);
		u = parent;
	}
}

/*
 * The user @uid of @ns, with a new reference; kslot_dev_users_lock held.
 * A user not known yet takes @spare[@ns->level], allocated by the caller
 * (one per namespace level: each level adds at most one user).
 */
static struct kslot_user *__kslot_user_get(struct user_namespace *ns,
					   kuid_t uid,
					   struct kslot_user **spare)
{
	unsigned long key = kslot_user_key(ns, uid);
	struct kslot_user *u, *parent = NULL;

	lockdep_assert_held(&kslot_dev_users_lock);
	hash_for_each_possible(kslot_dev_users, u, node, key) {
		if (u->ns == ns && uid_eq(u->uid, uid)) {
			refcount_inc(&u->ref);
			return u;
		}
	}
	/* Namespaces nest at most 32 deep: so does this recursion. */
	if (ns->parent)
		parent = __kslot_user_get(ns->parent, ns->owner, spare);
	u = spare[ns->level];
	spare[ns->level] = NULL;
	refcount_set(&u->ref, 1);
	u->ns = get_user_ns(ns);
	u->uid = uid;
	u->parent = parent;
	hash_add(kslot_dev_users, &u->node, key);
	kslot_user_adjust(u, kslot_user_size());
	return u;
}

/* Users a namespace chain may need at most: levels 0 to 32. */
#define KSLOT_USER_LEVELS	33

static struct kslot_user *kslot_user_get(const struct cred *cred)
{
	struct kslot_user *spare[KSLOT_USER_LEVELS] = {}, *u = NULL;
	unsigned int i, levels = cred->user_ns->level + 1;

	if (WARN_ON_ONCE(levels > KSLOT_USER_LEVELS))
		return NULL;
	for (i = 0; i < levels; i++) {
		spare[i] = kslot_should_fail_alloc() ? NULL :
			   kzalloc(sizeof(*spare[i]), KSLOT_DEV_GFP);
		if (!spare[i])
			goto out;
	}
	spin_lock(&kslot_dev_users_lock);
	u = __kslot_user_get(cred->user_ns, cred->uid, spare);
	spin_unlock(&kslot_dev_users_lock);
out:
	for (i = 0; i < levels; i++)
		kfree(spare[i]);
	return u;
}

static void kslot_user_put(struct kslot_user *u)
{
	spin_lock(&kslot_dev_users_lock);
	__kslot_user_put(u);
	spin_unlock(&kslot_dev_users_lock);
}

/*
 * Charging.  A table is charged what it really takes: the struct
 * kslot_table and its share of the file's id index (a fixed
 * KSLOT_TABLE_ID_BYTES), its structure's memory as the structure reports
 * it (slot storage and dense arrays at their capacity, not their live
 * entries, and a growth's new table while it fills), and each separately
 * allocated record at its slab size.  The charge goes to the file
 * (max_bytes) and to the opener's user across all its files
 * (max_user_bytes), at every level of its user namespace.
 *
 * - Before an insert, the memory it may allocate is charged up front (the
 *   precharge): the record, and the structure's next growth when the
 *   inserts in flight on the table outnumber its free room.  If that
 *   exceeds a limit the insert fails with -EDQUOT before allocating.
 * - After a write command, kslot_dev_settle() measures the table again and
 *   charges or uncharges the difference; then the precharge is dropped.
 * - Tables never shrink: an emptied table keeps its capacity charged until
 *   DESTROY (or close), which uncharges everything it uses, and charges
 *   it as pending until it is freed (below).
 */

/*
 * Memory a table stops using (a map record erased or replaced, a slot
 * array or packed array a growth replaced, what a destroyed table held)
 * is freed after an RCU grace period, for the lookups that may still
 * read it, and stays charged until then: as pending bytes, to the file
 * and to every user level, which count against the limits as the bytes
 * in use do.  Each file's account batches it: what is freed while a batch
 * waits for its grace period waits for the next one; a work item frees
 * each batch once its grace period is over, in process context (so a
 * large vmalloc()ed array is really freed there), then uncharges it.  An
 * account outlives its file until its last batch is freed.
 */
struct workqueue_struct *kslot_dev_wq;
static DECLARE_WAIT_QUEUE_HEAD(kslot_dev_free_wait);
/* Accounts alive (a file open, or a batch waiting), for module exit. */
atomic_long_t kslot_dev_accts = ATOMIC_LONG_INIT(0);
atomic64_t kslot_dev_pending = ATOMIC64_INIT(0);

/*
 * Add @bytes to @c unless its bytes and pending bytes would exceed @limit:
 * -EDQUOT.
 */
static int kslot_charge_add(struct kslot_charge *c, u64 bytes, u64 limit)
{
	s64 old = atomic64_read(&c->bytes);

	do {
		/*
		 * Bytes that @old no longer counts are pending by now: pairs
		 * with the smp_wmb() of kslot_acct_push() and
		 * kslot_dev_recs_erased().
		 */
		smp_rmb();
		if ((u64)old + atomic64_read(&c->pending) + bytes > limit)
			return -EDQUOT;
	} while (!atomic64_try_cmpxchg(&c->bytes, &old, old + bytes));
	return 0;
}

/* @limit raised by @slack; an exempt user's U64_MAX stays. */
static u64 kslot_limit_slack(u64 limit, u64 slack)
{
	return limit > U64_MAX - slack ? U64_MAX : limit + slack;
}

/*
 * Charge @bytes to @a's file and each of its user levels, or to none:
 * -EDQUOT, with *@full set to the counter that would have gone over.
 * Each counter may go @slack past its limit (a command's buffers).
 */
static int kslot_acct_try_charge(struct kslot_acct *a, u64 bytes, u64 slack,
				 struct kslot_charge **full)
{
	u64 limit = kslot_limit_slack(kslot_acct_user_limit(a), slack);
	struct kslot_user *u, *v;

	*full = &a->charge;
	if (kslot_charge_add(&a->charge, bytes,
			     kslot_limit_slack(READ_ONCE(kslot_dev_max_bytes),
					       slack)))
		return -EDQUOT;
	for (u = a->user; u; u = u->parent)
		if (kslot_charge_add(&u->charge, bytes, limit))
			break;
	if (!u) {
		atomic64_add(bytes, &kslot_dev_bytes);
		return 0;
	}
	*full = &u->charge;
	for (v = a->user; v != u; v = v->parent)
		atomic64_sub(bytes, &v->charge.bytes);
	atomic64_sub(bytes, &a->charge.bytes);
	return -EDQUOT;
}

/* Has @c freed the @pending bytes it had when its freed count was @freed? */
static bool kslot_charge_drained(struct kslot_charge *c, u64 freed,
				 u64 pending)
{
	return (u64)atomic64_read(&c->freed) - freed >= pending ||
	       !atomic64_read(&c->pending);
}

/*
 * Charge @bytes to @f and its user, up to @slack past their limits, or
 * fail with -EDQUOT.  If a limit is in the way while memory charged to
 * it waits for its grace period, wait (killably: -EINTR) until as much
 * has been freed, then try once more, or (!@retry) return -EAGAIN.
 * Process context.
 */
static int __kslot_dev_charge(struct kslot_file *f, u64 bytes, u64 slack,
			      bool retry)
{
	struct kslot_charge *c;
	u64 freed, pending;
	int ret;

	ret = kslot_acct_try_charge(f->acct, bytes, slack, &c);
	if (ret != -EDQUOT)
		return ret;
	freed = atomic64_read(&c->freed);
	/*
	 * The freed count first: a batch freed between the two reads can
	 * only end the wait early (kslot_acct_work() lowers pending first).
	 */
	smp_rmb();
	pending = atomic64_read(&c->pending);
	if (!pending)
		return -EDQUOT;
	if (wait_event_killable(kslot_dev_free_wait,
				kslot_charge_drained(c, freed, pending)))
		return -EINTR;
	if (!retry)
		return -EAGAIN;
	return kslot_acct_try_charge(f->acct, bytes, slack, &c);
}

int kslot_dev_charge(struct kslot_file *f, u64 bytes)
{
	return __kslot_dev_charge(f, bytes, 0, true);
}

/*
 * Charge a growth of map table @t's records' pool, or find that it needs
 * none: -EAGAIN once a wait for memory waiting for its grace period is
 * over (erased records may be back in the pool), else as
 * kslot_dev_charge().
 */
static int kslot_dev_charge_recs_grow(struct kslot_table *t, bool retry)
{
	return __kslot_dev_charge(t->file, t->recs_grow, 0, retry);
}

/*
 * A record of map table @t: an object its pool holds already, else one
 * from a slab the pool adds, charged before it is allocated: *@pre is
 * raised by the slab's bytes, which the caller uncharges once the table
 * is settled.  A limit in the way while erased records wait for their
 * grace period waits for them (they may free an object) once.
 * Returns the record or ERR_PTR(-EDQUOT, -EINTR, -ENOMEM).
 */
struct kslot_rec *kslot_dev_rec_alloc(struct kslot_table *t, u64 *pre)
{
	struct kslot_rec *rec;
	bool waited = false;
	int ret;

	for (;;) {
		rec = kslot_pool_alloc_nogrow(t->recs);
		if (rec)
			return rec;
		ret = kslot_dev_charge_recs_grow(t, waited);
		if (ret != -EAGAIN)
			break;
		waited = true;
	}
	if (ret)
		return ERR_PTR(ret);
	*pre += t->recs_grow;
	rec = kslot_pool_alloc(t->recs, KSLOT_DEV_GFP);
	return rec ?: ERR_PTR(-ENOMEM);
}

/*
 * A temporary buffer of @size bytes for a command of @f, in @b (zeroed if
 * @gfp has __GFP_ZERO).  Up to %KSLOT_DEV_SPARE bytes, not zeroed: the
 * file's spare if no other command holds it, which allocates nothing.
 * Else a buffer of its own, charged to the memory cgroup, and to the
 * file's and its user's limits at what it takes (its slab, or its pages)
 * until it is freed: a command may hold it while a user copy waits, as
 * long as the user likes.  The buffers may take the counters up to
 * %KSLOT_DEV_TMP_SLACK past the limits, so that a command of a file at
 * its limit still gets one.  The charge may wait, and fail with -EDQUOT
 * or -EINTR (kslot_dev_charge()).  The caller holds f->rwsem (either way)
 * until kslot_dev_tmp_free().  Returns 0 or -errno.
 */
int kslot_dev_tmp_alloc(struct kslot_file *f, struct kslot_tmp *b,
			size_t size, gfp_t gfp)
{
	int ret;

	b->spare = false;
	if (size <= KSLOT_DEV_SPARE && !(gfp & __GFP_ZERO)) {
		/* Ordered after the last holder's kslot_dev_tmp_free(). */
		b->p = xchg(&f->spare, NULL);
		if (b->p) {
			b->bytes = 0;
			b->spare = true;
			return 0;
		}
	}
	b->p = NULL;
	b->bytes = kslot_kvmalloc_bytes(NULL, size);
	ret = __kslot_dev_charge(f, b->bytes, KSLOT_DEV_TMP_SLACK, true);
	if (ret)
		return ret;
	if (!kslot_should_fail_alloc())
		b->p = kvmalloc(size, KSLOT_DEV_GFP | gfp);
	if (b->p)
		return 0;
	kslot_dev_uncharge(f, b->bytes);
	return -ENOMEM;
}

/*
 * Free @b, from kslot_dev_tmp_alloc() (or zeroed: nothing), or give the
 * spare back to its file.
 */
void kslot_dev_tmp_free(struct kslot_file *f, struct kslot_tmp *b)
{
	if (!b->p)
		return;
	if (b->spare) {
		/* What this command wrote in it, before the next one's xchg(). */
		smp_store_release(&f->spare, b->p);
	} else {
		kvfree(b->p);
		kslot_dev_uncharge(f, b->bytes);
	}
	b->p = NULL;
}

/*
 * Give @f its spare, with its first table: charged to its limits
 * (kslot_dev_charge(): it may wait, and fail with -EDQUOT or -EINTR), so
 * that the buffer every file with a table keeps counts against them.
 * The caller holds f->rwsem for writing.  Returns 0 or -errno.
 */
int kslot_dev_spare_new(struct kslot_file *f)
{
	u64 bytes = kslot_kvmalloc_bytes(NULL, KSLOT_DEV_SPARE);
	void *p = NULL;
	int ret;

	ret = kslot_dev_charge(f, bytes);
	if (ret)
		return ret;
	if (!kslot_should_fail_alloc())
		p = kmalloc(KSLOT_DEV_SPARE, KSLOT_DEV_GFP);
	if (!p) {
		kslot_dev_uncharge(f, bytes);
		return -ENOMEM;
	}
	WRITE_ONCE(f->spare, p);
	return 0;
}

/*
 * Free @f's spare, with its last table.  The caller holds f->rwsem for
 * writing (or @f is being released): no command holds the spare.
 */
void kslot_dev_spare_free(struct kslot_file *f)
{
	void *p = xchg(&f->spare, NULL);

	if (WARN_ON_ONCE(!p))
		return;
	kfree(p);
	kslot_dev_uncharge(f, kslot_kvmalloc_bytes(NULL, KSLOT_DEV_SPARE));
}

/* Charge (or, negative, uncharge) what is allocated already: no limit. */
void kslot_acct_adjust(struct kslot_acct *a, s64 delta)
{
	atomic64_add(delta, &a->charge.bytes);
	kslot_user_adjust(a->user, delta);
}

/* Add @delta to the pending bytes of @a and its users. */
static void kslot_acct_pending(struct kslot_acct *a, s64 delta)
{
	struct kslot_user *u;

	atomic64_add(delta, &a->charge.pending);
	for (u = a->user; u; u = u->parent)
		atomic64_add(delta, &u->charge.pending);
	atomic64_add(delta, &kslot_dev_pending);
}

/* Count @bytes as freed for @a and its users (for waiting charges). */
static void kslot_acct_freed(struct kslot_acct *a, u64 bytes)
{
	struct kslot_user *u;

	atomic64_add(bytes, &a->charge.freed);
	for (u = a->user; u; u = u->parent)
		atomic64_add(bytes, &u->charge.freed);
}

/*
 * @bytes pending for @a are freed: they stop counting, and the charges
 * waiting for them look again.
 */
static void kslot_acct_done(struct kslot_acct *a, u64 bytes)
{
	kslot_acct_pending(a, -(s64)bytes);
	/* Pending, then freed: see kslot_dev_charge(). */
	smp_wmb();
	kslot_acct_freed(a, bytes);
	if (wq_has_sleeper(&kslot_dev_free_wait))
		wake_up_all(&kslot_dev_free_wait);
}

/*
 * Drop a reference on @a.  The last frees it; once its file is released,
 * its own memory stops counting then (pending since kslot_acct_release()).
 */
void kslot_acct_put(struct kslot_acct *a)
{
	if (!refcount_dec_and_test(&a->ref))
		return;
	if (a->released)
		kslot_acct_done(a, kslot_acct_size());
	WARN_ON_ONCE(atomic64_read(&a->charge.bytes) ||
		     atomic64_read(&a->charge.pending));
	kslot_user_put(a->user);
	kfree(a);
	atomic_long_dec(&kslot_dev_accts);
}

/*
 * The file of @a is released, its tables and buffers freed, its struct
 * kslot_file too: uncharge it and @a, which counts as pending until it is
 * freed after the memory it still has waiting for a grace period, and
 * drop the file's reference.
 */
void kslot_acct_release(struct kslot_acct *a)
{
	a->released = true;
	kslot_acct_pending(a, kslot_acct_size());
	/* Pending before the uncharge: see kslot_charge_add(). */
	smp_wmb();
	kslot_acct_adjust(a, -(s64)(kslot_dev_file_size() +
				    kslot_acct_size()));
	/* What the tables freed may still wait for its grace period. */
	WARN_ON_ONCE(atomic64_read(&a->charge.bytes));
	kslot_acct_put(a);
}

/* Start a grace period for the memory freed since the last: a->lock held. */
static void kslot_acct_start(struct kslot_acct *a)
{
	lockdep_assert_held(&a->lock);
	a->gp = a->next;
	a->gp_cb = a->next_cb;
	a->gp_bytes = a->next_bytes;
	a->next = NULL;
	a->next_cb = NULL;
	a->next_bytes = 0;
	queue_rcu_work(kslot_dev_wq, &a->rwork);
}

static void kslot_dev_settle_charge(struct kslot_table *t);

/*
 * @n records of map table @t were freed into its pool: their bytes stop
 * being pending, the slabs they emptied go back and the table is charged
 * what its pool holds now.  Unless the table is dead: then the pool, with
 * the slabs the records were in, is freed only with the table, and their
 * bytes stay pending until then (@t->recs_kept).  Returns the bytes that
 * stay pending.
 */
static u64 kslot_acct_recs_done(struct kslot_table *t, u64 n)
{
	u64 bytes = n * t->rec_bytes, kept = 0;

	kslot_pool_trim(t->recs);
	spin_lock(&t->charge_lock);
	if (t->dead) {
		t->recs_kept += bytes;
		kept = bytes;
	} else {
		atomic64_sub(bytes, &t->recs_pending);
		kslot_dev_settle_charge(t);
	}
	spin_unlock(&t->charge_lock);
	return kept;
}

/*
 * A batch's grace period is over: free it, uncharge it, start the next.
 * Map records go back to their table's pool first, then the destroyed
 * tables of the batch are freed, a map table with its pool (its records
 * are in this batch or an earlier one: a table is destroyed after its
 * erases, under its file's rwsem).
 */
static void kslot_acct_work(struct work_struct *work)
{
	struct kslot_acct *a = container_of(to_rcu_work(work),
					    struct kslot_acct, rwork);
	struct kslot_freed *fr, *next, *cb, *tables = NULL;
	struct kslot_table *t, *last = NULL;
	unsigned long flags, tag;
	u64 bytes, n = 0;

	spin_lock_irqsave(&a->lock, flags);
	fr = a->gp;
	cb = a->gp_cb;
	bytes = a->gp_bytes;
	a->gp = NULL;
	a->gp_cb = NULL;
	a->gp_bytes = 0;
	spin_unlock_irqrestore(&a->lock, flags);
	for (; cb; cb = next) {
		/* @cb lies in the memory it frees. */
		next = cb->next;
		cb->free((struct rcu_head *)cb);
		cond_resched();
	}
	for (; fr; fr = next) {
		/* @fr lies in the memory it frees. */
		next = fr->next;
		tag = (unsigned long)fr->mem & KSLOT_FREED_MASK;
		t = (void *)((unsigned long)fr->mem & ~KSLOT_FREED_MASK);
		if (tag == KSLOT_FREED_TABLE) {
			fr->next = tables;
			tables = fr;
			continue;
		}
		if (tag != KSLOT_FREED_REC) {
			kvfree(fr->mem);
		} else {
			/* A run of records of one table is settled once. */
			if (t != last && n)
				bytes -= kslot_acct_recs_done(last, n);
			if (t != last)
				n = 0;
			last = t;
			kslot_pool_free(t->recs, container_of((struct rcu_head *)fr,
							      struct kslot_rec,
							      rcu));
			n++;
		}
		cond_resched();
	}
	if (n)
		bytes -= kslot_acct_recs_done(last, n);
	for (fr = tables; fr; fr = next) {
		next = fr->next;
		t = container_of((struct rcu_head *)fr, struct kslot_table,
				 free_rcu);
		bytes += t->recs_kept;
		kslot_pool_destroy(t->recs);
		kfree(t);
		cond_resched();
	}
	kslot_acct_done(a, bytes);

	spin_lock_irqsave(&a->lock, flags);
	if (a->next || a->next_cb) {
		kslot_acct_start(a);
		spin_unlock_irqrestore(&a->lock, flags);
		return;
	}
	a->busy = false;
	spin_unlock_irqrestore(&a->lock, flags);
	kslot_acct_put(a);
}

static_assert(sizeof(struct kslot_freed) <= sizeof(struct rcu_head));

/*
 * Queue the chain @first .. @last, linked by their next but for @last's,
 * (on the callback list if @cb) for the next grace period: @bytes in all,
 * pending already (kslot_acct_pending()).
 */
static void kslot_acct_splice(struct kslot_acct *a, struct kslot_freed *first,
			      struct kslot_freed *last, bool cb, u64 bytes)
{
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	if (cb) {
		last->next = a->next_cb;
		a->next_cb = first;
	} else {
		last->next = a->next;
		a->next = first;
	}
	a->next_bytes += bytes;
	if (!a->busy) {
		a->busy = true;
		refcount_inc(&a->ref);
		kslot_acct_start(a);
	}
	spin_unlock_irqrestore(&a->lock, flags);
}

/* Queue @fr (on the callback list if @cb) for the next grace period. */
static void kslot_acct_push(struct kslot_acct *a, struct kslot_freed *fr,
			    bool cb, u64 bytes)
{
	kslot_acct_pending(a, bytes);
	/* Pending before the caller's uncharge: see kslot_charge_add(). */
	smp_wmb();
	kslot_acct_splice(a, fr, fr, cb, bytes);
}

/*
 * Free @mem, which a table of @a no longer uses and whose rcu_head is
 * @rcu, after a grace period (@mem is tagged: KSLOT_FREED_*).  Its
 * @bytes, charged already, become pending bytes; the caller then
 * uncharges them from the bytes in use (a settle, or the uncharge of a
 * destroyed table).  Any context.
 */
void kslot_acct_defer(struct kslot_acct *a, void *mem,
		      struct rcu_head *rcu, u64 bytes)
{
	struct kslot_freed *fr = (struct kslot_freed *)rcu;

	fr->mem = mem;
	kslot_acct_push(a, fr, false, bytes);
}

/* The tables' hook (struct kslot_free_acct): slot and packed arrays. */
static void kslot_acct_queue(struct kslot_free_acct *fa,
			     struct rcu_head *rcu, rcu_callback_t free,
			     size_t bytes)
{
	struct kslot_freed *fr = (struct kslot_freed *)rcu;

	fr->free = free;
	kslot_acct_push(container_of(fa, struct kslot_acct, free_acct), fr,
			true, bytes);
}

/* The account of a file opened with @cred, or NULL. */
struct kslot_acct *kslot_acct_new(const struct cred *cred)
{
	struct kslot_acct *a;

	if (kslot_should_fail_alloc())
		return NULL;
	a = kzalloc(sizeof(*a), KSLOT_DEV_GFP);
	if (!a)
		return NULL;
	a->user = kslot_user_get(cred);
	if (!a->user) {
		kfree(a);
		return NULL;
	}
	refcount_set(&a->ref, 1);
	/* As pipes: the opener's capability, checked once, at open. */
	a->unlimited = capable(CAP_SYS_RESOURCE);
	a->free_acct.queue = kslot_acct_queue;
	spin_lock_init(&a->lock);
	INIT_RCU_WORK(&a->rwork, kslot_acct_work);
	atomic_long_inc(&kslot_dev_accts);
	return a;
}

/*
 * What @t takes: itself, its structure, and its records' pool, whole,
 * less the records waiting for their grace period, which are charged as
 * pending.
 */
static u64 kslot_dev_table_bytes(const struct kslot_table *t,
				 const struct kslot_table_stats *ts)
{
	u64 bytes = kslot_dev_table_size() + ts->bytes, recs, pending;

	if (!t->recs)
		return bytes;
	recs = kslot_pool_bytes(t->recs);
	pending = atomic64_read(&t->recs_pending);
	return bytes + (recs > pending ? recs - pending : 0);
}

/* What @t takes now: what kslot_dev_settle() charges it. */
u64 kslot_dev_measure(struct kslot_table *t)
{
	struct kslot_table_stats ts;

	kslot_table_stats(t, &ts);
	return kslot_dev_table_bytes(t, &ts);
}

/* kslot_dev_settle() with t->charge_lock held; nothing once @t is dead. */
static void kslot_dev_settle_charge(struct kslot_table *t)
{
	u64 now;

	lockdep_assert_held(&t->charge_lock);
	if (t->dead)
		return;
	now = kslot_dev_measure(t);
	kslot_dev_adjust(t->file, (s64)(now - t->charged));
	t->charged = now;
}

/* Charge the difference between what @t takes now and what it was charged. */
void kslot_dev_settle(struct kslot_table *t)
{
	spin_lock(&t->charge_lock);
	kslot_dev_settle_charge(t);
	spin_unlock(&t->charge_lock);
}

/*
 * Records @recs[0 .. @n - 1] (@n at least 1), erased from map table @t
 * (or replaced), go back to the table's pool after a grace period, queued
 * at once.  Their share of the pool is charged as pending until then:
 * moved from the table's charge by the caller's settle.  Any context a
 * command runs in.
 */
void kslot_dev_recs_erased(struct kslot_table *t, void *const *recs, u32 n)
{
	void *mem = (void *)((unsigned long)t | KSLOT_FREED_REC);
	struct kslot_freed *first = NULL, *last = NULL, *fr;
	u64 bytes = (u64)n * t->rec_bytes;
	u32 i;

	if (WARN_ON_ONCE(!n))
		return;
	/* One run of @t's: the free worker settles @t once for it. */
	for (i = n; i--; ) {
		fr = (struct kslot_freed *)&((struct kslot_rec *)recs[i])->rcu;
		fr->mem = mem;
		fr->next = first;
		first = fr;
		if (!last)
			last = fr;
	}
	kslot_acct_pending(t->file->acct, bytes);
	/*
	 * Pending for the file before a settle of @t (the free worker's,
	 * concurrent) can uncharge them: see kslot_charge_add().
	 */
	smp_wmb();
	atomic64_add(bytes, &t->recs_pending);
	kslot_acct_splice(t->file->acct, first, last, false, bytes);
}

/*
 * Table @t, unlinked from its file and destroyed (dead, uncharged; a map
 * table's live records back in its pool), is freed after a grace period:
 * the nodes of its id that xa_erase() dropped from the file's index wait
 * for one in call_rcu(), and a map table's pool for the records it still
 * has waiting.  Until then, what it holds is pending: the table and its
 * id, and a map table's pool but for those records (pending already).
 */
void kslot_dev_table_defer(struct kslot_table *t)
{
	u64 recs, pending, bytes = kslot_dev_table_size();

	if (t->recs) {
		kslot_pool_trim(t->recs);
		spin_lock(&t->charge_lock);
		recs = kslot_pool_bytes(t->recs);
		pending = atomic64_read(&t->recs_pending);
		bytes += recs > pending ? recs - pending : 0;
		spin_unlock(&t->charge_lock);
	}
	kslot_acct_defer(t->file->acct,
			 (void *)((unsigned long)t | KSLOT_FREED_TABLE),
			 &t->free_rcu, bytes);
}
