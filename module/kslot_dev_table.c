// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kslot: the table kinds, map and dense, over the slot core
 * (kslot_dev.ko).
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/kslot.h>

#include "kslot_dev.h"
#include "kslot_internal.h"

/* A bounce buffer for one record. */
int kslot_dev_bounce(struct kslot_table *t, struct kslot_tmp *b)
{
	return kslot_dev_tmp_alloc(t->file, b, t->record_size, 0);
}

/*
 * The buffers of a dump of @n slots, as one temporary buffer: the core's
 * slots, the slots for userspace and the reverse map.
 */
int kslot_dump_buf_alloc(struct kslot_file *f, struct kslot_dump_buf *db,
			 u32 n)
{
	size_t core = array_size(n, sizeof(*db->core));
	size_t slots = array_size(n, sizeof(*db->slots));
	int ret;

	ret = kslot_dev_tmp_alloc(f, &db->tmp,
				  core + slots + array_size(n, sizeof(u32)),
				  __GFP_ZERO);
	if (ret)
		return ret;
	db->core = db->tmp.p;
	db->slots = db->tmp.p + core;
	db->reverse = db->tmp.p + core + slots;
	return 0;
}

void kslot_dump_buf_free(struct kslot_file *f, struct kslot_dump_buf *db)
{
	kslot_dev_tmp_free(f, &db->tmp);
}

/*
 * ---- table kinds ----
 *
 * Both kinds are a kslot_slots table (t->slots): handles, their check, the
 * counters, the slot dump and the walk in slot order are the core's, the
 * same for every kind.  The kinds differ only in where a record lives:
 * a map slot points at a struct kslot_rec of its own; a dense slot holds
 * the record's position in kslot_dense's packed array.  The functions
 * below are those payload hooks.
 */

/*
 * The records of map table @t: a pool of its own, whose slabs (pages
 * from the page allocator, charged to the memory cgroup) are charged to
 * the table whole, however few of their records live.  Records of one
 * size from a shared kmalloc cache would be charged one by one, while a
 * single live record keeps its whole slab page allocated.  Its per-CPU
 * caches hold one object each, so that the slabs of erased records go
 * back once they are empty (kslot_pool_trim(), after each batch of
 * frees), but for at most one slab per CPU that holds a cached record
 * (charged, as kslot_pool_bytes() counts it): it needs no shrinker, and
 * has none, so that a user's tables add none to reclaim's walk.  Task
 * context only: records are allocated and freed by commands, by the free
 * worker and by destroy.  Its own slabs even on a
 * KASAN kernel, whose pools otherwise pass each object to kmalloc():
 * there too a record must not pin a slab page it is not charged.
 */
static void kslot_map_recs_config(struct kslot_pool_config *cfg,
				  u32 record_size)
{
	*cfg = (struct kslot_pool_config) {
		.size = struct_size_t(struct kslot_rec, data, record_size),
		.cache_size = 1,
		.flags = KSLOT_POOL_ACCOUNT | KSLOT_POOL_TASK |
			 KSLOT_POOL_SLABS | KSLOT_POOL_NOSHRINKER,
	};
}

/*
 * What a new table of @kind and @record_size takes besides its struct
 * (kslot_dev_table_size()) once kslot_table_init() or
 * kslot_table_restore_init() made it: a map table's records' pool.
 */
u64 kslot_table_init_bytes(u32 kind, u32 record_size)
{
	struct kslot_pool_config cfg;

	if (kind == KSLOT_KIND_DENSE)
		return 0;
	kslot_map_recs_config(&cfg, record_size);
	return kslot_pool_create_bytes(&cfg);
}

/*
 * The largest record size up to @cap that a map table's records' pool
 * lays out in debug mode too (kslot.pool_debug may be set at any time,
 * and a debug pool's objects carry 16 bytes more): a little under 32 KiB
 * on 4 KiB pages.  Every size below it fits.
 */
u32 kslot_map_record_cap(u32 cap)
{
	struct kslot_pool_config cfg;
	u32 lo = 1, hi = cap, mid;

	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		kslot_map_recs_config(&cfg, mid);
		cfg.flags |= KSLOT_POOL_DEBUG;
		if (kslot_pool_create_bytes(&cfg))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static int kslot_map_recs_init(struct kslot_table *t)
{
	struct kslot_pool_config cfg;
	struct kslot_pool *pool;

	kslot_map_recs_config(&cfg, t->record_size);
	pool = kslot_pool_create(&cfg);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	t->recs = pool;
	t->rec_bytes = kslot_pool_obj_bytes(pool);
	t->recs_grow = kslot_pool_grow_bytes(pool);
	return 0;
}

int kslot_table_init(struct kslot_table *t)
{
	int ret;

	if (kslot_table_is_dense(t)) {
		/* Records live in the packed array. */
		t->rec_bytes = 0;
		t->slots = &t->dense.slots;
		return kslot_dense_init(&t->dense, NULL, t->record_size,
					t->max_entries, KSLOT_DENSE_ACCOUNT);
	}
	ret = kslot_map_recs_init(t);
	if (ret)
		return ret;
	t->slots = &t->map.slots;
	ret = kslot_map_init(&t->map, NULL, t->max_entries, KSLOT_MAP_ACCOUNT);
	if (ret) {
		kslot_pool_destroy(t->recs);
		t->recs = NULL;
	}
	return ret;
}

/* The memory a new table @t stops using stays charged until it is freed. */
void kslot_table_set_acct(struct kslot_table *t)
{
	kslot_slots_set_free_acct(t->slots, &t->file->acct->free_acct);
}

/*
 * Free the records of map table @t, KSLOT_WALK_CHUNK slots at a time,
 * rescheduling after each chunk, empty slots included: the core's destroy
 * walks every slot for its callback, without a resched point between
 * empty ones.  Destroy runs in process context (DESTROY, close, a failed
 * CREATE or IMPORT).
 */
static void kslot_map_free_recs(struct kslot_table *t)
{
	u32 pos = 0, end;
	void *rec;
	u64 h;

	for (;;) {
		end = pos + KSLOT_WALK_CHUNK;
		while ((rec = kslot_slots_find_range(t->slots, &pos, end, &h))) {
			kslot_pool_free(t->recs, rec);
			pos++;
		}
		/* Short of @end: the table ends there. */
		if (pos < end)
			break;
		cond_resched();
	}
}

/* Commands hold the file's rwsem, so no reader is left. */
void kslot_table_destroy(struct kslot_table *t)
{
	if (kslot_table_is_dense(t)) {
		kslot_dense_destroy(&t->dense, NULL, NULL);
		return;
	}
	/* The records go first; the slots still point at them, unread. */
	kslot_map_free_recs(t);
	kslot_map_destroy(&t->map, NULL, NULL);
}

/*
 * Free @rec, from kslot_rec_from_user(), that @t did not store; a slab
 * of the records' pool it leaves empty goes at once.  A dense table's
 * record is its caller's bounce buffer: nothing to do.
 */
void kslot_rec_free(struct kslot_table *t, struct kslot_rec *rec)
{
	if (!t->recs)
		return;
	kslot_pool_free(t->recs, rec);
	kslot_pool_trim(t->recs);
}

/*
 * A record from userspace: a map record of its own (a struct kslot_rec),
 * from the table's pool (a growth of the pool it needs is charged first
 * and added to *@pre, which the caller uncharges once it has settled the
 * table); or, for a dense table, the record in the bounce buffer @b (a
 * command buffer, charged as one while the copy waits on the user's
 * page: kslot_dev_bounce()), which the table copies in and the caller
 * then frees (kslot_dev_tmp_free()).  @b is not used for a map table
 * (NULL where @t is one).  Returns the record or an ERR_PTR().
 */
void *kslot_rec_from_user(struct kslot_table *t, const void __user *src,
			  u64 *pre, struct kslot_tmp *b)
{
	struct kslot_rec *rec;
	int ret;

	if (kslot_should_fail_alloc())
		return ERR_PTR(-ENOMEM);
	if (!t->recs) {
		ret = kslot_dev_bounce(t, b);
		if (ret)
			return ERR_PTR(ret);
		if (copy_from_user(b->p, src, t->record_size)) {
			kslot_dev_tmp_free(t->file, b);
			return ERR_PTR(-EFAULT);
		}
		return b->p;
	}
	rec = kslot_dev_rec_alloc(t, pre);
	if (IS_ERR(rec))
		return rec;
	if (copy_from_user(rec->data, src, t->record_size)) {
		kslot_rec_free(t, rec);
		return ERR_PTR(-EFAULT);
	}
	return rec;
}

/*
 * A map table's run, under the caller's RCU; @rs is its record size.
 * With @seal, h[] holds user handles, each decoded in place just before
 * its lookup or, with @prefetch (a large table: kslot_map_read_ahead()),
 * as its slot is prefetched that many handles ahead into a ring, where
 * its lookup finds it: one pass over the handles, one address each.
 */
static __always_inline u32 kslot_table_read_run(struct kslot_map_reader *r,
						u64 *h, u32 n, u8 *buf,
						size_t rs,
						const struct kslot_seal *seal,
						bool prefetch)
{
	const u32 ahead = prefetch ? KSLOT_SLOTS_READ_AHEAD : 0;
	const struct kslot_slot *ring[KSLOT_SLOTS_READ_AHEAD], *slot;
	struct kslot_rec *rec;
	u32 i;

	for (i = 0; i < min(n, ahead); i++) {
		if (seal)
			h[i] = kslot_unseal(seal, h[i]);
		ring[i] = kslot_map_read_prefetch(r, h[i]);
	}
	for (i = 0; i < n; i++) {
		if (ahead) {
			slot = ring[i % ahead];
			if (i + ahead < n) {
				if (seal)
					h[i + ahead] = kslot_unseal(seal,
								    h[i + ahead]);
				ring[i % ahead] =
					kslot_map_read_prefetch(r, h[i + ahead]);
			}
			rec = kslot_map_read_slot(r, slot, h[i]);
		} else {
			if (seal)
				h[i] = kslot_unseal(seal, h[i]);
			rec = kslot_map_read(r, h[i]);
		}
		if (!rec)
			break;
		memcpy(buf + i * rs, rec->data, rs);
	}
	return i;
}

static __always_inline u32 kslot_table_read_many(struct kslot_table *t,
						 u64 *h, u32 n, u8 *buf,
						 size_t rs,
						 const struct kslot_seal *seal)
{
	struct kslot_map_reader r;

	/*
	 * The table is loaded once for the run (a chunk of GET_BATCH).  A
	 * run of more handles than the ring holds fills it first.
	 */
	kslot_map_read_begin(&r, &t->map);
	if (n > KSLOT_SLOTS_READ_AHEAD && kslot_map_read_ahead(&r))
		return kslot_table_read_run(&r, h, n, buf, rs, seal, true);
	return kslot_table_read_run(&r, h, n, buf, rs, seal, false);
}

/*
 * Copy the records of the @n handles @h into @buf, one after the other,
 * taking no lock; stop at the first handle that is not live.  With
 * @seal, @h holds user handles, decoded in place up to and including
 * the one the run stops at (a dense table decodes them all, a map
 * table's run some beyond it); without, kernel handles, left as they
 * are.  Either kind looks them all up in one RCU read-side section, so
 * the caller bounds @n (GET_BATCH: a chunk).  Returns the records
 * copied.
 */
u32 kslot_table_lookup_many(struct kslot_table *t, u64 *h, u32 n, u8 *buf,
			    const struct kslot_seal *seal)
{
	size_t rs = t->record_size;
	u32 i;

	if (kslot_table_is_dense(t)) {
		if (seal)
			for (i = 0; i < n; i++)
				h[i] = kslot_unseal(seal, h[i]);
		return kslot_dense_lookup_many(&t->dense, h, n, buf);
	}
	rcu_read_lock();
	/* Small records of a constant size are copied inline. */
	switch (rs) {
	case 8:
		i = kslot_table_read_many(t, h, n, buf, 8, seal);
		break;
	case 16:
		i = kslot_table_read_many(t, h, n, buf, 16, seal);
		break;
	default:
		i = kslot_table_read_many(t, h, n, buf, rs, seal);
		break;
	}
	rcu_read_unlock();
	return i;
}

/* Replace the record of kernel handle @h of map table @t from userspace. */
static int kslot_map_update(struct kslot_table *t, u64 h,
			    const void __user *rec_u)
{
	struct kslot_rec *rec;
	u64 pre = 0;
	void *old;
	bool live;
	int ret;

	rcu_read_lock();
	live = __kslot_map_lookup(&t->map, h);
	rcu_read_unlock();
	if (!live)
		return -ENOENT;
	/* The new record, while the old one waits for its grace period. */
	rec = kslot_rec_from_user(t, rec_u, &pre, NULL);
	if (IS_ERR(rec)) {
		ret = PTR_ERR(rec);
		goto uncharge;
	}
	ret = kslot_map_replace(&t->map, h, rec, &old);
	if (ret || !old) {
		kslot_rec_free(t, rec);
		ret = -ENOENT;
		goto uncharge;
	}
	/* Charged until freed, as pending bytes. */
	kslot_map_rec_erased(t, old);
	ret = 0;
uncharge:
	/* The table's charge counts the new record: the precharge goes. */
	kslot_dev_write_end(t, pre);
	return ret;
}

/* Replace the record of kernel handle @h from userspace. */
int kslot_table_update(struct kslot_table *t, u64 h,
		       const void __user *rec_u)
{
	struct kslot_tmp b;
	u64 pre = 0;
	void *rec;
	int ret;

	if (!kslot_table_is_dense(t))
		return kslot_map_update(t, h, rec_u);
	/* A bounce buffer: the table copies the record in place. */
	rec = kslot_rec_from_user(t, rec_u, &pre, &b);
	if (IS_ERR(rec))
		return PTR_ERR(rec);
	ret = kslot_dense_update(&t->dense, h, rec);
	kslot_dev_tmp_free(t->file, &b);
	return ret;
}

int kslot_table_erase(struct kslot_table *t, u64 h)
{
	struct kslot_rec *rec;

	if (kslot_table_is_dense(t))
		return kslot_dense_erase(&t->dense, h, NULL);
	rec = kslot_map_remove(&t->map, h);
	if (!rec)
		return -ENOENT;
	kslot_map_rec_erased(t, rec);
	return 0;
}

/*
 * ---- the generic part: the core's ----
 */

/*
 * The counters of @t, and the memory its structure takes: the core's
 * slots, and a dense table's packed array, which is the one payload
 * memory the core does not know of.
 */
void kslot_table_stats(struct kslot_table *t, struct kslot_table_stats *st)
{
	struct kslot_slots_stats ss;
	struct kslot_dense_stats ds;
	u32 used;

	if (kslot_table_is_dense(t)) {
		kslot_dense_stats(&t->dense, &ds);
		used = ds.count + ds.retired;
		*st = (struct kslot_table_stats){
			.entries = ds.count, .capacity = ds.capacity,
			.max_entries = ds.max_entries, .retired = ds.retired,
			.bytes = ds.bytes, .grow_bytes = ds.grow_bytes,
			.room = min(ds.room - ds.count,
				    used < ds.capacity ? ds.capacity - used : 0),
			.rejected = ds.rejected,
		};
		return;
	}
	kslot_slots_stats(t->slots, &ss);
	used = ss.count + ss.retired;
	*st = (struct kslot_table_stats){
		.entries = ss.count, .capacity = ss.capacity,
		.max_entries = ss.max_entries, .retired = ss.retired,
		.bytes = ss.bytes, .grow_bytes = ss.grow_bytes,
		.room = used < ss.capacity ? ss.capacity - used : 0,
		.rejected = ss.rejected,
	};
}

/*
 * The core's slot dump of a dense table, with its live length and reverse
 * map, under the table lock so that positions hold still meanwhile.
 */
static void kslot_dense_table_dump(struct kslot_table *t, struct kslot_dump *d,
				   struct kslot_slots_dump *info, u32 *reverse)
{
	struct kslot_dense *dense = &t->dense;
	unsigned long irqflags = kslot_dense_lock(dense);
	u32 i;

	kslot_slots_dump(t->slots, d->start, d->max, info);
	d->live = kslot_dense_count(dense);
	for (i = 0; i < d->max && d->start + i < d->live; i++) {
		u64 h = __kslot_dense_handle_at(dense, d->start + i);

		reverse[i] = kslot_slots_handle_index(t->slots, h);
	}
	d->reverse_count = i;
	kslot_dense_unlock(dense, irqflags);
}

/*
 * Fill a struct kslot_dump and the arrays of @db (for at least d->max
 * slots) from the core's slot dump.
 */
int kslot_table_dump(struct kslot_table *t, struct kslot_dump *d,
		     struct kslot_dump_buf *db)
{
	struct kslot_dump_slot *slots = db->slots;
	bool dense = kslot_table_is_dense(t);
	struct kslot_slots_dump info;
	u32 *reverse = db->reverse;
	u32 i;

	info.slots = db->core;
	if (dense) {
		kslot_dense_table_dump(t, d, &info, reverse);
	} else {
		kslot_slots_dump(t->slots, d->start, d->max, &info);
		d->live = info.count;
		d->reverse_count = 0;
	}
	d->nr_slots = info.capacity;
	d->free_head = info.free_head == KSLOT_SLOTS_NONE ? KSLOT_DUMP_NONE :
							  info.free_head;
	d->count = info.returned;
	for (i = 0; i < info.returned; i++) {
		const struct kslot_slots_dump_slot *s = &info.slots[i];

		slots[i].index = d->start + i;
		slots[i].gen = s->gen;
		slots[i].link = KSLOT_DUMP_NONE;
		if (kslot_gen_is_live(s->gen)) {
			slots[i].state = KSLOT_SLOT_LIVE;
			if (dense && s->obj)
				slots[i].link = kslot_dense_obj_pos(s->obj);
		} else if (s->next == KSLOT_SLOTS_RETIRED) {
			slots[i].state = KSLOT_SLOT_RETIRED;
		} else {
			slots[i].state = KSLOT_SLOT_FREE;
			if (s->next != KSLOT_SLOTS_NONE)
				slots[i].link = s->next;
		}
	}
	return 0;
}

/*
 * IMPORT's payload hooks: recreate a table slot by slot (the slot core's
 * restore, or kslot_dense's, which appends each live record to the packed
 * array: the packed order is not part of an image).
 */
int kslot_table_restore_init(struct kslot_table *t, u32 tag)
{
	int ret;

	if (kslot_table_is_dense(t)) {
		/* Records live in the packed array. */
		t->rec_bytes = 0;
		t->slots = &t->dense.slots;
		return kslot_dense_init_tag(&t->dense, NULL, t->record_size,
					    t->max_entries,
					    KSLOT_DENSE_ACCOUNT, tag);
	}
	ret = kslot_map_recs_init(t);
	if (ret)
		return ret;
	t->slots = &t->map.slots;
	ret = kslot_slots_init_tag(&t->map.slots, "map", NULL,
				   t->max_entries, KSLOT_MAP_ACCOUNT, tag);
	if (ret) {
		kslot_pool_destroy(t->recs);
		t->recs = NULL;
	}
	return ret;
}

static int kslot_dense_table_restore(struct kslot_table *t, u32 index,
				     u64 gen, u32 state,
				     const void __user *rec_u)
{
	struct kslot_tmp b;
	u64 pre = 0;
	void *rec;
	int ret;

	if (state == KSLOT_SLOT_RETIRED)
		return kslot_dense_restore_retired(&t->dense, index,
						   KSLOT_DEV_GFP);
	if (state != KSLOT_SLOT_LIVE)
		return kslot_dense_restore_slot(&t->dense, index, gen, NULL,
						KSLOT_DEV_GFP);
	/* A bounce buffer: the table copies the record in. */
	rec = kslot_rec_from_user(t, rec_u, &pre, &b);
	if (IS_ERR(rec))
		return PTR_ERR(rec);
	ret = kslot_dense_restore_slot(&t->dense, index, gen, rec,
				       KSLOT_DEV_GFP);
	kslot_dev_tmp_free(t->file, &b);
	return ret;
}

int kslot_table_restore(struct kslot_table *t, u32 index, u64 gen,
			u32 state, const void __user *rec_u, u64 *pre)
{
	struct kslot_rec *rec;
	int ret;

	if (kslot_table_is_dense(t))
		return kslot_dense_table_restore(t, index, gen, state, rec_u);
	if (state == KSLOT_SLOT_RETIRED)
		return kslot_slots_restore_retired(&t->map.slots, index,
						   KSLOT_DEV_GFP);
	if (state != KSLOT_SLOT_LIVE)
		return kslot_slots_restore_slot(&t->map.slots, index, gen,
						NULL, KSLOT_DEV_GFP);
	rec = kslot_rec_from_user(t, rec_u, pre, NULL);
	if (IS_ERR(rec))
		return PTR_ERR(rec);
	ret = kslot_slots_restore_slot(&t->map.slots, index, gen, rec,
				       KSLOT_DEV_GFP);
	if (ret)
		kslot_rec_free(t, rec);
	return ret;
}

void kslot_table_restore_done(struct kslot_table *t)
{
	if (kslot_table_is_dense(t))
		kslot_dense_restore_done(&t->dense);
	else
		kslot_slots_restore_done(&t->map.slots);
}
