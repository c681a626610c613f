// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime of objects behind kslot handles (docs/kslot.rst walks
 * through it): pool objects with a kref, of which the map holds one.  Two
 * threads create and destroy objects; a third looks up handles known live
 * (their own object), known stale (nothing) and being destroyed (their
 * own object or nothing).  Init fails if any lookup went wrong.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kref.h>
#include <linux/kslot_map.h>
#include <linux/kslot_pool.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>

#define EX_PINNED	16	/* objects live from init to exit */
#define EX_CHURN	32	/* objects each churning thread keeps */

static unsigned int churn_ms = 2000;
module_param(churn_ms, uint, 0444);
MODULE_PARM_DESC(churn_ms, "How long init watches the churn, in ms");

struct ex_obj {
	struct kref ref;	/* the map's, and one per lookup */
	struct rcu_head rcu;	/* freed a grace period after the last put */
	u64 handle;		/* set before lookups can find the object */
};

/* What the threads count. */
enum { EX_LIVE, EX_STALE_NULL, EX_RACE_HIT, EX_RACE_GONE, EX_CREATED,
	EX_REUSED, EX_WRONG, EX_NR };

struct ex_churner {
	u64 live[EX_CHURN];
	u64 stale[EX_CHURN];		/* what live[] held before */
};

struct ex_dev {
	struct kslot_map map;		/* handle -> struct ex_obj */
	struct task_struct *threads[3];
	u64 pinned[EX_PINNED];
	struct ex_churner ch[2];
	atomic_long_t n[EX_NR];
	struct rcu_head rcu;		/* the map outlives its lookups */
};

static struct kslot_pool *ex_pool;
static struct ex_dev *ex;

static void ex_free_rcu(struct rcu_head *rcu)
{
	kslot_pool_free(ex_pool, container_of(rcu, struct ex_obj, rcu));
}

/* A lookup may be about to take a reference: free after a grace period. */
static void ex_release(struct kref *ref)
{
	call_rcu(&container_of(ref, struct ex_obj, ref)->rcu, ex_free_rcu);
}

static u64 ex_create(void)
{
	struct ex_obj *obj = kslot_pool_alloc(ex_pool, GFP_KERNEL);
	u64 h;

	if (!obj)
		return 0;
	kref_init(&obj->ref);
	/* A placeholder: the handle goes into the object, then it is shown. */
	if (kslot_map_alloc(&ex->map, &h, NULL, GFP_KERNEL)) {
		kslot_pool_free(ex_pool, obj);	/* never published */
		return 0;
	}
	obj->handle = h;
	WARN_ON(kslot_map_replace_if(&ex->map, h, NULL, obj));
	atomic_long_inc(&ex->n[EX_CREATED]);
	return h;
}

static void ex_destroy(u64 h)
{
	struct ex_obj *obj = kslot_map_remove(&ex->map, h);

	if (obj)		/* h is stale from here on */
		kref_put(&obj->ref, ex_release);	/* the map's */
}

/* 1: the object published under @h, 0: none, -1: another one. */
static int ex_lookup(u64 h)
{
	struct ex_obj *obj = kslot_map_get(&ex->map, h, struct ex_obj, ref,
					   ex_release);
	int ret;

	if (!obj)
		return 0;
	ret = obj->handle == h ? 1 : -1;
	kref_put(&obj->ref, ex_release);
	return ret;
}

static int ex_churn(void *data)
{
	struct ex_churner *c = data;
	unsigned int i = 0;
	u64 old, h;

	for (; !kthread_should_stop(); i = (i + 1) % EX_CHURN) {
		old = c->live[i];
		if (old) {
			ex_destroy(old);
			WRITE_ONCE(c->stale[i], old);
		}
		h = ex_create();
		if (!h)
			atomic_long_inc(&ex->n[EX_WRONG]);
		else if (old && kslot_map_handle_index(&ex->map, h) ==
				 kslot_map_handle_index(&ex->map, old))
			atomic_long_inc(&ex->n[EX_REUSED]);
		WRITE_ONCE(c->live[i], h);
		cond_resched();
	}
	return 0;
}

static void ex_count(bool right, int n)
{
	atomic_long_inc(&ex->n[right ? n : EX_WRONG]);
}

static int ex_look(void *data)
{
	unsigned int i = 0;
	u64 h;
	int r;

	for (; !kthread_should_stop(); i = (i + 1) % (2 * EX_CHURN)) {
		r = ex_lookup(ex->pinned[i % EX_PINNED]);
		ex_count(r == 1, EX_LIVE);
		h = READ_ONCE(ex->ch[i % 2].stale[i / 2]);
		if (h)
			ex_count(ex_lookup(h) == 0, EX_STALE_NULL);
		h = READ_ONCE(ex->ch[i % 2].live[i / 2]);
		if (h) {
			r = ex_lookup(h);
			ex_count(r >= 0, r ? EX_RACE_HIT : EX_RACE_GONE);
		}
		cond_resched();
	}
	return 0;
}

static bool ex_report(const char *when)
{
	long n[EX_NR];
	bool ok;
	int i;

	for (i = 0; i < EX_NR; i++)
		n[i] = atomic_long_read(&ex->n[i]);
	ok = !n[EX_WRONG] && n[EX_LIVE] && n[EX_STALE_NULL] && n[EX_REUSED];
	pr_info("%s: %ld objects created, %ld slots reused; lookups: %ld live right, %ld stale NULL, %ld racing right, %ld racing gone, %ld wrong: %s\n",
		when, n[EX_CREATED], n[EX_REUSED], n[EX_LIVE],
		n[EX_STALE_NULL], n[EX_RACE_HIT], n[EX_RACE_GONE],
		n[EX_WRONG], ok ? "passed" : "FAILED");
	return ok;
}

/* No lookup or writer runs once this returns. */
static void ex_stop(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ex->threads); i++) {
		if (ex->threads[i])
			kthread_stop(ex->threads[i]);
		ex->threads[i] = NULL;
	}
}

static void ex_teardown(void)
{
	struct ex_obj *obj;
	u32 index;
	u64 h;

	ex_stop();
	kslot_map_for_each(&ex->map, index, h, obj) {
		kslot_map_remove(&ex->map, h);
		kref_put(&obj->ref, ex_release);
	}
	kslot_map_destroy(&ex->map, NULL, NULL);
	/* Every ex_free_rcu() has run: the objects are back in the pool. */
	rcu_barrier();
	kslot_pool_destroy(ex_pool);
	/* The map's memory, a grace period after kslot_map_destroy(). */
	kfree_rcu(ex, rcu);
}

static int __init ex_init(void)
{
	/* Frees run in RCU callbacks (softirq), never in hardirq: BH. */
	struct kslot_pool_config cfg = {
		.name = KBUILD_MODNAME,
		.size = sizeof(struct ex_obj),
		.flags = KSLOT_POOL_BH,
	};
	int i, ret;

	ex_pool = kslot_pool_create(&cfg);
	if (IS_ERR(ex_pool))
		return PTR_ERR(ex_pool);
	ex = kzalloc(sizeof(*ex), GFP_KERNEL);
	/* Writers are the threads (task context): the default lock. */
	ret = ex ? kslot_map_init(&ex->map, NULL, 4096, 0) : -ENOMEM;
	if (ret) {
		kfree(ex);
		kslot_pool_destroy(ex_pool);
		return ret;
	}
	for (i = 0; i < EX_PINNED; i++) {
		ex->pinned[i] = ex_create();
		if (!ex->pinned[i]) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	for (i = 0; i < ARRAY_SIZE(ex->threads); i++) {
		ex->threads[i] = i < 2 ?
			kthread_run(ex_churn, &ex->ch[i], "kex_churn/%d", i) :
			kthread_run(ex_look, NULL, "kex_look");
		if (IS_ERR(ex->threads[i])) {
			ret = PTR_ERR(ex->threads[i]);
			ex->threads[i] = NULL;
			goto fail;
		}
	}
	msleep(churn_ms);
	if (!ex_report("init")) {
		ret = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	ex_teardown();
	return ret;
}

static void __exit ex_exit(void)
{
	ex_stop();
	ex_report("exit");	/* the final counts */
	ex_teardown();
}
module_init(ex_init);
module_exit(ex_exit);
MODULE_DESCRIPTION("kslot worked example: pool, kref, lookups, teardown");
MODULE_LICENSE("GPL");
