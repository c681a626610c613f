// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kslot: users, accounts and charging (kslot_dev.ko).
 *
 * What the tables of an open file take is charged to the file (max_bytes)
 * and to its opener's user, at every level of its user namespace
 * (max_user_bytes).  Memory a table stops using stays charged until it is
 * freed, after an RCU grace period.  The rest of the device is in
 * kslot_dev.c.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
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
 * a reference on its user, and each user on its parent.
 */
static DEFINE_HASHTABLE(kslot_dev_users, 6);
static DEFINE_MUTEX(kslot_dev_users_lock);

static unsigned long kslot_user_key(struct user_namespace *ns, kuid_t uid)
{
	return hash_ptr(ns, 32) ^ __kuid_val(uid);
}

/* Drop a reference on @u, and on its parents as they go. */
static void __kslot_user_put(struct kslot_user *u)
{
	struct kslot_user *parent;

	lockdep_assert_held(&kslot_dev_users_lock);
	while (u && refcount_dec_and_test(&u->ref)) {
		hash_del(&u->node);
		WARN_ON_ONCE(atomic64_read(&u->charge.bytes) ||
			     atomic64_read(&u->charge.pending));
		parent = u->parent;
		put_user_ns(u->ns);
		kfree(u);
		u = parent;
	}
}

/* The user @uid of @ns, with a new reference; kslot_dev_users_lock held. */
static struct kslot_user *__kslot_user_get(struct user_namespace *ns,
					   kuid_t uid)
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
	if (ns->parent) {
		parent = __kslot_user_get(ns->parent, ns->owner);
		if (!parent)
			return NULL;
	}
	u = kslot_should_fail_alloc() ? NULL : kzalloc(sizeof(*u), KSLOT_DEV_GFP);
	if (!u) {
		__kslot_user_put(parent);
		return NULL;
	}
	refcount_set(&u->ref, 1);
	u->ns = get_user_ns(ns);
	u->uid = uid;
	u->parent = parent;
	hash_add(kslot_dev_users, &u->node, key);
	return u;
}

static struct kslot_user *kslot_user_get(const struct cred *cred)
{
	struct kslot_user *u;

	mutex_lock(&kslot_dev_users_lock);
	u = __kslot_user_get(cred->user_ns, cred->uid);
	mutex_unlock(&kslot_dev_users_lock);
	return u;
}

static void kslot_user_put(struct kslot_user *u)
{
	mutex_lock(&kslot_dev_users_lock);
	__kslot_user_put(u);
	mutex_unlock(&kslot_dev_users_lock);
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
		 * with the smp_wmb() of kslot_acct_defer().
		 */
		smp_rmb();
		if ((u64)old + atomic64_read(&c->pending) + bytes > limit)
			return -EDQUOT;
	} while (!atomic64_try_cmpxchg(&c->bytes, &old, old + bytes));
	return 0;
}

/*
 * Charge @bytes to @a's file and each of its user levels, or to none:
 * -EDQUOT, with *@full set to the counter that would have gone over.
 */
static int kslot_acct_try_charge(struct kslot_acct *a, u64 bytes,
				 struct kslot_charge **full)
{
	u64 limit = kslot_acct_user_limit(a);
	struct kslot_user *u, *v;

	*full = &a->charge;
	if (kslot_charge_add(&a->charge, bytes, READ_ONCE(kslot_dev_max_bytes)))
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
 * Charge @bytes to @f and its user, or fail with -EDQUOT.  If a limit is
 * in the way while memory charged to it waits for its grace period, wait
 * (killably: -EINTR) until as much has been freed, then try once more.
 * Process context.
 */
int kslot_dev_charge(struct kslot_file *f, u64 bytes)
{
	struct kslot_charge *c;
	u64 freed, pending;
	int ret;

	ret = kslot_acct_try_charge(f->acct, bytes, &c);
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
	return kslot_acct_try_charge(f->acct, bytes, &c);
}

/* Charge (or, negative, uncharge) what is allocated already: no limit. */
void kslot_acct_adjust(struct kslot_acct *a, s64 delta)
{
	struct kslot_user *u;

	atomic64_add(delta, &a->charge.bytes);
	for (u = a->user; u; u = u->parent)
		atomic64_add(delta, &u->charge.bytes);
	atomic64_add(delta, &kslot_dev_bytes);
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

void kslot_acct_put(struct kslot_acct *a)
{
	if (!refcount_dec_and_test(&a->ref))
		return;
	WARN_ON_ONCE(atomic64_read(&a->charge.bytes) ||
		     atomic64_read(&a->charge.pending));
	kslot_user_put(a->user);
	kfree(a);
	atomic_long_dec(&kslot_dev_accts);
}

/* Start a grace period for the memory freed since the last: a->lock held. */
static void kslot_acct_start(struct kslot_acct *a)
{
	lockdep_assert_held(&a->lock);
	a->gp = a->next;
	a->gp_bytes = a->next_bytes;
	a->next = NULL;
	a->next_bytes = 0;
	queue_rcu_work(kslot_dev_wq, &a->rwork);
}

/* A batch's grace period is over: free it, uncharge it, start the next. */
static void kslot_acct_work(struct work_struct *work)
{
	struct kslot_acct *a = container_of(to_rcu_work(work),
					    struct kslot_acct, rwork);
	struct kslot_freed *fr, *next;
	unsigned long flags;
	u64 bytes;

	spin_lock_irqsave(&a->lock, flags);
	fr = a->gp;
	bytes = a->gp_bytes;
	a->gp = NULL;
	a->gp_bytes = 0;
	spin_unlock_irqrestore(&a->lock, flags);
	for (; fr; fr = next) {
		/* @fr lies in the memory it frees. */
		next = fr->next;
		fr->free((struct rcu_head *)fr);
		cond_resched();
	}
	kslot_acct_pending(a, -(s64)bytes);
	/* Pending, then freed: see kslot_dev_charge(). */
	smp_wmb();
	kslot_acct_freed(a, bytes);
	if (wq_has_sleeper(&kslot_dev_free_wait))
		wake_up_all(&kslot_dev_free_wait);

	spin_lock_irqsave(&a->lock, flags);
	if (a->next) {
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
 * Call @free(@rcu) after a grace period, for memory a table of @a no
 * longer uses.  Its @bytes, charged already, become pending bytes; the
 * caller then uncharges them from the bytes in use (a settle, or the
 * uncharge of a destroyed table).  Any context.
 */
void kslot_acct_defer(struct kslot_acct *a, struct rcu_head *rcu,
		      rcu_callback_t free, u64 bytes)
{
	struct kslot_freed *fr = (struct kslot_freed *)rcu;
	unsigned long flags;

	kslot_acct_pending(a, bytes);
	/* Pending before the caller's uncharge: see kslot_charge_add(). */
	smp_wmb();
	fr->free = free;
	spin_lock_irqsave(&a->lock, flags);
	fr->next = a->next;
	a->next = fr;
	a->next_bytes += bytes;
	if (!a->busy) {
		a->busy = true;
		refcount_inc(&a->ref);
		kslot_acct_start(a);
	}
	spin_unlock_irqrestore(&a->lock, flags);
}

/* The tables' hook (struct kslot_free_acct): slot and packed arrays. */
static void kslot_acct_queue(struct kslot_free_acct *fa,
			     struct rcu_head *rcu, rcu_callback_t free,
			     size_t bytes)
{
	kslot_acct_defer(container_of(fa, struct kslot_acct, free_acct), rcu,
			 free, bytes);
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

/* What @t takes: itself, its structure, its separately allocated records. */
static u64 kslot_dev_table_bytes(const struct kslot_table *t,
				 const struct kslot_table_stats *ts)
{
	return kslot_dev_table_size() + ts->bytes + ts->entries * t->rec_bytes;
}

/* Charge the difference between what @t takes now and what it was charged. */
void kslot_dev_settle(struct kslot_table *t)
{
	struct kslot_table_stats ts;
	u64 now;

	spin_lock(&t->charge_lock);
	kslot_table_stats(t, &ts);
	now = kslot_dev_table_bytes(t, &ts);
	kslot_dev_adjust(t->file, (s64)(now - t->charged));
	t->charged = now;
	spin_unlock(&t->charge_lock);
}
