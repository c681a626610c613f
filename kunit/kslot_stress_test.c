// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kslot_stress: kthreads hammering one kslot_map and one
 * kslot_objtable on every CPU for a bounded time (the map a second time
 * per-CPU, with its writers bound to CPUs).
 *
 * Writers own disjoint sets of entries and keep a private copy of their
 * handles, so at any time each writer knows exactly what the table must
 * hold for it: a lost entry, an entry handed to two writers, or a handle
 * that reaches another writer's object is caught.  Readers look up handles
 * that writers publish in a shared ring (live or already stale) and check
 * that whatever they find was stored under that very handle; a timer does
 * the same from softirq context.  An iterator walks the table meanwhile.
 * At the end, the table's contents are compared with the union of what the
 * writers own.
 *
 * The duration of each case is the stress_ms module parameter.  Every
 * thread counts its operations; the totals are printed as KTAP comments.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kslot_map.h>
#include <linux/kslot_objtable.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include "kslot_internal.h"

static unsigned int stress_ms = 1500;
module_param(stress_ms, uint, 0444);
MODULE_PARM_DESC(stress_ms, "Duration of each stress case (default 1500 ms)");

#define NR_WRITERS	4
#define NR_READERS	2
#define PER_WRITER	384
#define RING		256
#define STALE		16

/* What a writer stores; @check ties the fields together. */
struct sobj {
	u64 handle;
	u32 owner;
	u32 k;
	u64 seq;
	u64 check;
	struct rcu_head rcu;
};

static u64 sobj_check(u64 h, u32 owner, u32 k, u64 seq)
{
	return ~h ^ ((u64)owner << 48) ^ ((u64)k << 32) ^ seq;
}

static void sobj_fill(struct sobj *o, u64 h, u32 owner, u32 k, u64 seq)
{
	WRITE_ONCE(o->handle, h);
	o->owner = owner;
	o->k = k;
	o->seq = seq;
	WRITE_ONCE(o->check, sobj_check(h, owner, k, seq));
}

/* Was @o stored under @h?  Readers may race with nothing but publication. */
static bool sobj_matches(const struct sobj *o, u64 h)
{
	return READ_ONCE(o->handle) == h &&
	       READ_ONCE(o->check) == sobj_check(h, READ_ONCE(o->owner),
						 READ_ONCE(o->k),
						 READ_ONCE(o->seq));
}

struct stress;

struct writer {
	struct stress *s;
	u32 id;
	u64 handles[PER_WRITER];
	struct sobj *objs[PER_WRITER];
	u64 seq[PER_WRITER];
	u64 stale[STALE];
};

/* One stress run: the table under test and its counters. */
struct stress {
	struct kunit *test;
	struct kslot_map map;
	struct kslot_objtable *ot;
	bool objtable;
	/* Writers bound to CPUs in turn (two CPUs: two each). */
	bool pinned;
	atomic_t stop;
	u64 ring[RING];
	struct writer w[NR_WRITERS];
	struct timer_list timer;
	atomic_long_t ops, lookups, hits, walks, softirq_lookups;
	atomic_long_t errors, enomem;
	char first_error[128];
	atomic_t have_error;
};

static void stress_error(struct stress *s, const char *what, u64 h)
{
	atomic_long_inc(&s->errors);
	if (atomic_cmpxchg(&s->have_error, 0, 1) == 0)
		snprintf(s->first_error, sizeof(s->first_error),
			 "%s (handle %#llx)", what, h);
}

/* ---- table-independent operations ---- */

static struct sobj *stress_lookup(struct stress *s, u64 h)
{
	if (s->objtable)
		return __kslot_objtable_lookup(s->ot, h);
	return __kslot_map_lookup(&s->map, h);
}

static int stress_insert(struct stress *s, struct writer *w, u32 k)
{
	u64 seq = ++w->seq[k];
	struct sobj *o;
	u64 h;
	int ret;

	if (s->objtable) {
		/* Fill in before publishing: readers check every field. */
		o = kslot_objtable_alloc_placeholder(s->ot, &h, GFP_KERNEL);
		if (IS_ERR(o))
			return PTR_ERR(o);
		sobj_fill(o, h, w->id, k, seq);
		ret = kslot_objtable_publish(s->ot, o);
		if (ret)
			return ret;
	} else {
		o = kmalloc(sizeof(*o), GFP_KERNEL);
		if (!o)
			return -ENOMEM;
		ret = kslot_map_alloc(&s->map, &h, NULL, GFP_KERNEL);
		if (ret) {
			kfree(o);
			return ret;
		}
		sobj_fill(o, h, w->id, k, seq);
		kslot_map_replace(&s->map, h, o, NULL);
	}
	w->handles[k] = h;
	w->objs[k] = o;
	WRITE_ONCE(s->ring[(w->id * PER_WRITER + k) % RING], h);
	return 0;
}

static void stress_erase(struct stress *s, struct writer *w, u32 k)
{
	u64 h = w->handles[k];
	struct sobj *o;

	if (s->objtable) {
		if (kslot_objtable_free(s->ot, h))
			stress_error(s, "objtable free of an owned handle failed",
				     h);
	} else {
		o = kslot_map_remove(&s->map, h);
		if (o != w->objs[k])
			stress_error(s, "map remove returned another object", h);
		if (o)
			kfree_rcu(o, rcu);
	}
	w->stale[w->seq[k] % STALE] = h;
	w->handles[k] = 0;
	w->objs[k] = NULL;
}

/* Map only: a new object under the same handle. */
static void stress_replace(struct stress *s, struct writer *w, u32 k)
{
	u64 h = w->handles[k];
	struct sobj *o = kmalloc(sizeof(*o), GFP_KERNEL), *old;
	void *prev = NULL;
	int ret;

	if (!o) {
		atomic_long_inc(&s->enomem);
		return;
	}
	sobj_fill(o, h, w->id, k, ++w->seq[k]);
	ret = kslot_map_replace(&s->map, h, o, &prev);
	old = prev;
	if (ret || old != w->objs[k])
		stress_error(s, "map replace returned another object", h);
	if (ret || !old) {
		kfree(o);
		return;
	}
	w->objs[k] = o;
	kfree_rcu(old, rcu);
}

/* An owned entry must be exactly what the writer stored. */
static void stress_check_owned(struct stress *s, struct writer *w, u32 k)
{
	u64 h = w->handles[k];
	struct sobj *o;

	rcu_read_lock();
	o = stress_lookup(s, h);
	if (o != w->objs[k] || !sobj_matches(o, h) || o->owner != w->id ||
	    o->k != k)
		stress_error(s, "owned handle reached the wrong object", h);
	rcu_read_unlock();
}

static void stress_check_stale(struct stress *s, struct writer *w, u32 i)
{
	u64 h = w->stale[i];
	struct sobj *o;

	if (!h)
		return;
	rcu_read_lock();
	o = stress_lookup(s, h);
	rcu_read_unlock();
	if (o)
		stress_error(s, "stale handle still resolves", h);
}

static int stress_writer(void *arg)
{
	struct writer *w = arg;
	struct stress *s = w->s;
	struct rnd_state rnd;
	long ops = 0;

	prandom_seed_state(&rnd, 1000 + w->id);
	while (!atomic_read(&s->stop)) {
		u32 r = prandom_u32_state(&rnd);
		u32 k = r % PER_WRITER;
		int ret;

		if (!w->handles[k]) {
			ret = stress_insert(s, w, k);
			if (ret == -ENOMEM)
				atomic_long_inc(&s->enomem);
			else if (ret)
				stress_error(s, "insert failed", (u64)ret);
		} else {
			switch ((r >> 16) % 8) {
			case 0:
			case 1:
				stress_erase(s, w, k);
				break;
			case 2:
				if (!s->objtable) {
					stress_replace(s, w, k);
					break;
				}
				fallthrough;
			default:
				stress_check_owned(s, w, k);
				break;
			}
		}
		stress_check_stale(s, w, (r >> 24) % STALE);
		if (++ops % 64 == 0)
			cond_resched();
	}
	atomic_long_add(ops, &s->ops);
	return 0;
}

/* Look up ring handles; hold a reference across a reschedule sometimes. */
static int stress_reader(void *arg)
{
	struct stress *s = arg;
	struct rnd_state rnd;
	long n = 0, hits = 0;

	prandom_seed_state(&rnd, 2000 + raw_smp_processor_id());
	while (!atomic_read(&s->stop)) {
		u32 r = prandom_u32_state(&rnd);
		u64 h = READ_ONCE(s->ring[r % RING]);
		struct sobj *o;

		if (s->objtable && (r & BIT(20))) {
			o = kslot_objtable_get(s->ot, h);
			if (o) {
				hits++;
				if (r & BIT(21))
					cond_resched();
				if (!sobj_matches(o, h))
					stress_error(s, "get reached the wrong object",
						     h);
				kslot_objtable_put(s->ot, o);
			}
		} else {
			rcu_read_lock();
			o = stress_lookup(s, h);
			if (o) {
				hits++;
				if (!sobj_matches(o, h))
					stress_error(s, "lookup reached the wrong object",
						     h);
			}
			rcu_read_unlock();
		}
		if (++n % 64 == 0)
			cond_resched();
	}
	atomic_long_add(n, &s->lookups);
	atomic_long_add(n, &s->ops);
	atomic_long_add(hits, &s->hits);
	return 0;
}

/* Walk the table: every entry once, each stored under its own handle. */
static int stress_walker(void *arg)
{
	struct stress *s = arg;
	struct kslot_map *map = s->objtable ? &s->ot->map : &s->map;
	long walks = 0;

	while (!atomic_read(&s->stop)) {
		u32 pos = 0, last = 0;
		bool first = true;
		u64 h;

		for (;;) {
			struct sobj *o;
			bool ok;

			rcu_read_lock();
			o = kslot_map_find(map, &pos, U32_MAX, &h);
			/* An objtable entry may still be unpublished. */
			ok = !o || (s->objtable &&
				    __kslot_objtable_lookup(s->ot, h) != o) ||
			     sobj_matches(o, h);
			rcu_read_unlock();
			if (!o)
				break;
			if (!ok)
				stress_error(s, "walk reached the wrong object", h);
			if (!first && pos <= last)
				stress_error(s, "walk went backwards", h);
			first = false;
			last = pos++;
			cond_resched();
		}
		walks++;
		/* An empty table must not starve the others. */
		cond_resched();
	}
	atomic_long_add(walks, &s->walks);
	atomic_long_add(walks, &s->ops);
	return 0;
}

/* Lookups from softirq context. */
static void stress_timer_fn(struct timer_list *timer)
{
	struct stress *s = from_timer(s, timer, timer);
	u32 i, start = get_random_u32_below(RING);

	for (i = 0; i < 16; i++) {
		u64 h = READ_ONCE(s->ring[(start + i) % RING]);
		struct sobj *o;

		rcu_read_lock();
		o = stress_lookup(s, h);
		if (o && !sobj_matches(o, h))
			stress_error(s, "softirq lookup reached the wrong object",
				     h);
		rcu_read_unlock();
	}
	atomic_long_add(16, &s->softirq_lookups);
	if (!atomic_read(&s->stop))
		mod_timer(&s->timer, jiffies + 1);
}

/* Compare the table with the union of what the writers own. */
static void stress_final_check(struct kunit *test, struct stress *s)
{
	struct kslot_map *map = s->objtable ? &s->ot->map : &s->map;
	unsigned long *seen;
	u32 owned = 0, visited = 0, pos = 0, i, k;
	struct sobj *o;
	u64 h;

	seen = bitmap_zalloc(NR_WRITERS * PER_WRITER, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < NR_WRITERS; i++) {
		for (k = 0; k < PER_WRITER; k++) {
			if (!s->w[i].handles[k])
				continue;
			owned++;
			stress_check_owned(s, &s->w[i], k);
		}
		for (k = 0; k < STALE; k++)
			stress_check_stale(s, &s->w[i], k);
	}
	rcu_read_lock();
	while ((o = kslot_map_find(map, &pos, U32_MAX, &h))) {
		u32 bit;

		pos++;
		visited++;
		if (!sobj_matches(o, h) || o->owner >= NR_WRITERS ||
		    o->k >= PER_WRITER) {
			stress_error(s, "table holds a foreign object", h);
			continue;
		}
		bit = o->owner * PER_WRITER + o->k;
		if (__test_and_set_bit(bit, seen))
			stress_error(s, "entry held twice", h);
		if (s->w[o->owner].handles[o->k] != h)
			stress_error(s, "table holds an entry no writer owns", h);
	}
	rcu_read_unlock();
	bitmap_free(seen);
	KUNIT_EXPECT_EQ(test, visited, owned);
	KUNIT_EXPECT_EQ(test, kslot_map_count(map), owned);
}

static void stress_run(struct kunit *test, struct stress *s)
{
	struct task_struct *t[NR_WRITERS + NR_READERS + 1];
	unsigned long start;
	int i, n = 0;

	s->test = test;
	timer_setup(&s->timer, stress_timer_fn, 0);
	for (i = 0; i < NR_WRITERS; i++) {
		s->w[i].s = s;
		s->w[i].id = i;
		t[n] = kthread_create(stress_writer, &s->w[i], "kslot_sw/%d",
				      i);
		if (s->pinned && !IS_ERR(t[n]))
			kthread_bind(t[n], cpumask_nth(i % num_online_cpus(),
						       cpu_online_mask));
		n++;
	}
	for (i = 0; i < NR_READERS; i++)
		t[n++] = kthread_create(stress_reader, s, "kslot_sr/%d", i);
	t[n++] = kthread_create(stress_walker, s, "kslot_swalk");
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		get_task_struct(t[i]);
	}
	start = jiffies;
	for (i = 0; i < n; i++)
		wake_up_process(t[i]);
	mod_timer(&s->timer, jiffies + 1);
	msleep(stress_ms);
	atomic_set(&s->stop, 1);
	for (i = 0; i < n; i++) {
		kthread_stop(t[i]);
		put_task_struct(t[i]);
	}
	timer_shutdown_sync(&s->timer);
	kunit_info(test, "%u ms on %u CPUs: %ld ops (%ld lookups, %ld hits, %ld walks, %ld softirq lookups), %ld -ENOMEM, %ld errors\n",
		   jiffies_to_msecs(jiffies - start), num_online_cpus(),
		   atomic_long_read(&s->ops), atomic_long_read(&s->lookups),
		   atomic_long_read(&s->hits), atomic_long_read(&s->walks),
		   atomic_long_read(&s->softirq_lookups),
		   atomic_long_read(&s->enomem), atomic_long_read(&s->errors));
	stress_final_check(test, s);
	if (atomic_long_read(&s->errors))
		KUNIT_FAIL(test, "%ld errors, the first: %s",
			   atomic_long_read(&s->errors), s->first_error);
	KUNIT_EXPECT_GT(test, atomic_long_read(&s->hits), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&s->walks), 0);
}

static void stress_map_free(void *obj, u64 handle, void *data)
{
	kfree(obj);
}

static void kslot_stress_test_map(struct kunit *test)
{
	struct stress *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	/* Exactly what the writers can own: -ENOSPC would be a lost slot. */
	KUNIT_ASSERT_EQ(test, kslot_map_init(&s->map, NULL,
					     NR_WRITERS * PER_WRITER, 0), 0);
	stress_run(test, s);
	kslot_map_destroy(&s->map, stress_map_free, NULL);
}

static void kslot_stress_test_objtable(struct kunit *test)
{
	struct kslot_objtable_config cfg = {
		.size = sizeof(struct sobj),
		.max_entries = NR_WRITERS * PER_WRITER,
		.flags = KSLOT_OBJTABLE_DEBUG,
	};
	struct stress *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct kslot_objtable_stats st;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->ot = kslot_objtable_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(s->ot));
	s->objtable = true;
	stress_run(test, s);
	/* Every freed object is back in the pool once the callbacks ran. */
	rcu_barrier();
	kslot_objtable_stats(s->ot, &st);
	KUNIT_EXPECT_EQ(test, st.pool.in_use, kslot_objtable_count(s->ot));
	KUNIT_EXPECT_EQ(test, st.pool.double_frees + st.pool.bad_frees +
			      st.pool.poison_errors, 0);
	kslot_objtable_destroy(s->ot);
}

static struct kunit_case kslot_stress_test_cases[] = {
	KUNIT_CASE_SLOW(kslot_stress_test_map),
	KUNIT_CASE_SLOW(kslot_stress_test_objtable),
	{}
};

static struct kunit_suite kslot_stress_test_suite = {
	.name = "kslot_stress",
	.test_cases = kslot_stress_test_cases,
};

kunit_test_suite(kslot_stress_test_suite);

MODULE_DESCRIPTION("SMP stress of kslot_map and kslot_objtable");
MODULE_LICENSE("GPL");
