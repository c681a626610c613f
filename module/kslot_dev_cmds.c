// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kslot: the commands on a table's entries (kslot_dev.ko): INSERT,
 * GET, UPDATE and ERASE, their batches, ITERATE, STATS and DUMP.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <uapi/linux/kslot.h>

#include "kslot_dev.h"
#include "kslot_internal.h"

/* Slots one ITERATE call scans at most, live or not. */
#define KSLOT_SCAN_BUDGET	16384U

/* Records GET copies through a buffer on the stack, not a kslot_tmp. */
#define KSLOT_GET_STACK		64U

/* ---- commands ---- */

/* Decode a user handle for @t; 0 on success. */
static int kslot_dev_handle(struct kslot_table *t, u64 uh, u64 *h)
{
	if (!uh)
		return -EINVAL;
	*h = kslot_unseal(&t->seal, uh);
	return 0;
}

/*
 * Look up the table of an entry or batch command and check its record
 * fields.  @need_record: the command moves records (else record_size and
 * the record pointer must be 0).  Returns with f->rwsem held for reading
 * on success.
 */
static struct kslot_table *kslot_dev_begin(struct kslot_file *f, u32 flags,
					   u32 table_id, u32 record_size,
					   u64 record_ptr, bool need_record)
{
	struct kslot_table *t;

	if (flags)
		return ERR_PTR(-EINVAL);
	if (!need_record && (record_size || record_ptr))
		return ERR_PTR(-EINVAL);
	/* A command stuck on a user page must not hold up a fatal signal. */
	if (down_read_killable(&f->rwsem))
		return ERR_PTR(-EINTR);
	t = kslot_dev_table(f, table_id);
	if (!t) {
		up_read(&f->rwsem);
		return ERR_PTR(-ENOENT);
	}
	if (need_record && record_size != t->record_size) {
		up_read(&f->rwsem);
		return ERR_PTR(-EINVAL);
	}
	return t;
}

static void kslot_dev_end(struct kslot_file *f)
{
	up_read(&f->rwsem);
}

/*
 * Insert one record; the user handle is written to @handle_u and @uh.
 * The record is allocated and copied in outside any lock (the copy may
 * wait on a user page), a growth of a map table's records' pool, or a
 * dense table's bounce buffer, charged first (kslot_rec_from_user());
 * then, under t->insert_lock, the growth the insert must make, if any,
 * is charged, the insert made and the table settled, so that every byte
 * the insert allocates was charged first.
 */
static int kslot_dev_insert_one(struct kslot_table *t, const void __user *rec_u,
				u64 __user *handle_u, u64 *uh)
{
	struct kslot_tmp b = {};
	u64 pre = 0, grow = 0;
	void *rec;
	int ret;
	u64 h;

	/* An unwritable handle fails before anything is stored. */
	if (put_user(0, handle_u))
		return -EFAULT;
	rec = kslot_rec_from_user(t, rec_u, &pre, &b);
	if (IS_ERR(rec)) {
		/* A growth of the pool, or a record given back, is settled. */
		kslot_dev_write_end(t, pre);
		return PTR_ERR(rec);
	}
	if (mutex_lock_killable(&t->insert_lock)) {
		kslot_rec_free(t, rec);
		kslot_dev_tmp_free(t->file, &b);
		kslot_dev_write_end(t, pre);
		return -EINTR;
	}
	ret = kslot_dev_precharge_growth(t, 1, &grow);
	if (ret > 0)
		ret = kslot_table_insert(t, rec, &h);
	else
		kslot_rec_free(t, rec);
	/*
	 * What the table takes changed only if it or its records' pool
	 * grew, or a record went back to the pool (which may free a slab).
	 */
	if (ret || grow || pre)
		kslot_dev_settle(t);
	mutex_unlock(&t->insert_lock);
	kslot_dev_tmp_free(t->file, &b);
	kslot_dev_uncharge(t->file, pre + grow);
	if (ret)
		return ret;
	*uh = kslot_seal(&t->seal, h);
	if (put_user(*uh, handle_u)) {
		/*
		 * The page went away meanwhile: take the entry back, unless
		 * another thread (which found it by ITERATE) already erased
		 * it.
		 */
		kslot_table_erase(t, h);
		kslot_dev_write_end(t, 0);
		return -EFAULT;
	}
	return 0;
}

/* Copy the record of user handle @uh out to @rec_u, through @buf. */
static int kslot_dev_get_one(struct kslot_table *t, u64 uh, void *buf,
			     void __user *rec_u)
{
	int ret;
	u64 h;

	ret = kslot_dev_handle(t, uh, &h);
	if (ret)
		return ret;
	ret = kslot_table_lookup(t, h, buf);
	if (ret)
		return ret;
	if (copy_to_user(rec_u, buf, t->record_size))
		return -EFAULT;
	return 0;
}

/* Erase one entry; the caller settles the table. */
static int kslot_dev_erase_one(struct kslot_table *t, u64 uh)
{
	int ret;
	u64 h;

	ret = kslot_dev_handle(t, uh, &h);
	if (ret)
		return ret;
	return kslot_table_erase(t, h);
}

static int kslot_ioc_entry(struct kslot_file *f, void *arg, void __user *uarg,
			   unsigned int cmd)
{
	struct kslot_entry *e = arg;
	struct kslot_entry __user *ue = uarg;
	void __user *rec_u = u64_to_user_ptr(e->record_ptr);
	struct kslot_table *t;
	struct kslot_tmp buf;
	int ret;
	u64 h;

	t = kslot_dev_begin(f, e->flags, e->table_id, e->record_size,
			    e->record_ptr, cmd != KSLOT_IOC_ERASE);
	if (IS_ERR(t))
		return PTR_ERR(t);
	switch (cmd) {
	case KSLOT_IOC_INSERT:
		ret = e->handle ? -EINVAL :
		      kslot_dev_insert_one(t, rec_u, &ue->handle, &e->handle);
		break;
	case KSLOT_IOC_GET:
		if (t->record_size <= KSLOT_GET_STACK) {
			u64 small[KSLOT_GET_STACK / sizeof(u64)];

			ret = kslot_dev_get_one(t, e->handle, small, rec_u);
			break;
		}
		ret = kslot_dev_bounce(t, &buf);
		if (ret)
			break;
		ret = kslot_dev_get_one(t, e->handle, buf.p, rec_u);
		kslot_dev_tmp_free(f, &buf);
		break;
	case KSLOT_IOC_UPDATE:
		ret = kslot_dev_handle(t, e->handle, &h);
		if (!ret)
			ret = kslot_table_update(t, h, rec_u);
		break;
	default:
		ret = kslot_dev_erase_one(t, e->handle);
		kslot_dev_write_end(t, 0);
		break;
	}
	kslot_dev_end(f);
	return ret;
}

int kslot_ioc_insert(struct kslot_file *f, void *arg, void __user *uarg)
{
	return kslot_ioc_entry(f, arg, uarg, KSLOT_IOC_INSERT);
}

int kslot_ioc_get(struct kslot_file *f, void *arg, void __user *uarg)
{
	return kslot_ioc_entry(f, arg, uarg, KSLOT_IOC_GET);
}

int kslot_ioc_update(struct kslot_file *f, void *arg, void __user *uarg)
{
	return kslot_ioc_entry(f, arg, uarg, KSLOT_IOC_UPDATE);
}

int kslot_ioc_erase(struct kslot_file *f, void *arg, void __user *uarg)
{
	return kslot_ioc_entry(f, arg, uarg, KSLOT_IOC_ERASE);
}

/* Entry @handle_u / @rec_u of an INSERT or ERASE batch. */
static int kslot_dev_batch_one(struct kslot_table *t, unsigned int cmd,
			       u64 __user *handle_u, void __user *rec_u)
{
	u64 uh;

	if (cmd == KSLOT_IOC_INSERT_BATCH)
		return kslot_dev_insert_one(t, rec_u, handle_u, &uh);
	if (get_user(uh, handle_u))
		return -EFAULT;
	return kslot_dev_erase_one(t, uh);
}

/*
 * Entries GET_BATCH takes per chunk: their handles and records share one
 * buffer of at most KSLOT_GET_CHUNK_BYTES, unless one record is larger.
 */
#define KSLOT_GET_CHUNK		256U
#define KSLOT_GET_CHUNK_BYTES	4096U
/* A chunk buffer this small lives on the stack: nothing to charge. */
#define KSLOT_GET_CHUNK_STACK	512U

/*
 * Copy @n elements of @size bytes in from userspace; returns how many
 * arrived whole.  A copy that faults may report less than it copied
 * (arm64 by up to a block): the elements past what it reports are
 * retried one at a time, so the count is exact to the element on every
 * architecture.
 */
static u32 kslot_copy_in(void *dst, const void __user *src, u32 n,
			 size_t size)
{
	size_t left = copy_from_user(dst, src, n * size);
	u32 k;

	if (!left)
		return n;
	for (k = n - DIV_ROUND_UP(left, size); k < n; k++)
		if (copy_from_user(dst + k * size, src + k * size, size))
			break;
	return k;
}

/* kslot_copy_in() the other way. */
static u32 kslot_copy_out(void __user *dst, const void *src, u32 n,
			  size_t size)
{
	size_t left = copy_to_user(dst, src, n * size);
	u32 k;

	if (!left)
		return n;
	for (k = n - DIV_ROUND_UP(left, size); k < n; k++)
		if (copy_to_user(dst + k * size, src + k * size, size))
			break;
	return k;
}

/*
 * GET_BATCH a chunk at a time: one copy in of the chunk's handles, the
 * lookups into a kernel buffer, one copy out of their records, so the
 * per-entry cost is the lookup and the record's bytes, not two user
 * copies.  An unreadable handle or unwritable record ends the batch at
 * that entry with -EFAULT, as if the entries were done one by one.
 */
static int kslot_dev_get_batch(struct kslot_table *t, struct kslot_batch *b,
			       u32 *done)
{
	const u64 __user *handles = u64_to_user_ptr(b->handles_ptr);
	u8 __user *recs = u64_to_user_ptr(b->records_ptr);
	size_t rs = t->record_size;
	u32 chunk = clamp_t(u32, KSLOT_GET_CHUNK_BYTES / (sizeof(u64) + rs), 1,
			    KSLOT_GET_CHUNK);
	u64 stack[KSLOT_GET_CHUNK_STACK / sizeof(u64)];
	struct kslot_tmp tmp = {};
	u32 i = 0, n, j;
	u32 got;
	u64 *uh;
	u8 *buf;
	int ret = 0;

	chunk = min(chunk, b->count);
	if (chunk * (sizeof(*uh) + rs) <= sizeof(stack)) {
		uh = stack;
	} else {
		ret = kslot_dev_tmp_alloc(t->file, &tmp,
					  chunk * (sizeof(*uh) + rs), 0);
		if (ret)
			return ret;
		uh = tmp.p;
	}
	buf = (u8 *)(uh + chunk);
	while (i < b->count && !ret) {
		n = min(chunk, b->count - i);
		got = kslot_copy_in(uh, &handles[i], n, sizeof(*uh));
		if (got < n) {
			n = got;
			ret = -EFAULT;
		}
		/*
		 * Decoded in place (kslot_table_lookup_many()).  The seal
		 * keeps 0 at 0, which no table finds nor counts as rejected
		 * (kslot_slots.h): the run stops there, and the null handle
		 * is -EINVAL.
		 */
		j = kslot_table_lookup_many(t, uh, n, buf, &t->seal);
		if (j < n)
			ret = uh[j] ? -ENOENT : -EINVAL;
		got = kslot_copy_out(recs + i * rs, buf, j, rs);
		if (got < j) {
			j = got;
			ret = -EFAULT;
		}
		i += j;
		cond_resched();
	}
	kslot_dev_tmp_free(t->file, &tmp);
	*done = i;
	return ret;
}

/*
 * ERASE_BATCH of a map table, %KSLOT_SLOTS_BULK entries per
 * kslot_map_remove_bulk(): one copy in of their handles, their checks,
 * one hold of the table lock with the slots prefetched.  It stops where
 * erasing them one by one would, with that entry's error: the first
 * handle that cannot be read (-EFAULT), is the null handle (-EINVAL) or
 * is not live (-ENOENT).
 */
static int kslot_dev_erase_batch(struct kslot_table *t,
				 const u64 __user *handles, u32 count,
				 u32 *done)
{
	void *recs[KSLOT_SLOTS_BULK];
	u64 h[KSLOT_SLOTS_BULK];
	u32 i = 0, n, j, k;
	u32 got;
	int ret = 0;

	while (i < count && !ret) {
		n = min(count - i, KSLOT_SLOTS_BULK);
		got = kslot_copy_in(h, &handles[i], n, sizeof(*h));
		if (got < n) {
			n = got;
			ret = -EFAULT;
		}
		for (j = 0; j < n; j++) {
			int err = kslot_dev_handle(t, h[j], &h[j]);

			if (err) {
				n = j;
				ret = err;
				break;
			}
		}
		k = kslot_map_remove_bulk(&t->map, h, n, recs);
		if (k)
			kslot_dev_recs_erased(t, recs, k);
		/* A handle that is not live comes before the others' errors. */
		if (k < n)
			ret = -ENOENT;
		i += k;
		cond_resched();
	}
	*done = i;
	return ret;
}

/*
 * Store records @objs[0 .. @n - 1] of map table @t, copied in and charged
 * by the caller, in order, under t->insert_lock: as many per hold of the
 * map lock as the map has room for; an entry that must grow the map alone,
 * its growth precharged.  Returns the entries stored; *@err is the next
 * one's error (it is not stored), or 0.
 */
static u32 kslot_dev_store_chunk(struct kslot_table *t, void **objs, u32 n,
				 u64 *h, int *err)
{
	u32 k = 0;
	u64 grow;
	int fit;

	*err = 0;
	while (k < n) {
		fit = kslot_dev_precharge_growth(t, n - k, &grow);
		if (fit > 0)
			fit = kslot_map_alloc_bulk(&t->map, &h[k], &objs[k],
						   fit, KSLOT_DEV_GFP);
		/* A growth charged before its precharge goes; the rest after. */
		if (grow)
			kslot_dev_settle(t);
		kslot_dev_uncharge(t->file, grow);
		if (fit < 0) {
			*err = fit;
			break;
		}
		k += fit;
	}
	return k;
}

/*
 * Up to %KSLOT_SLOTS_BULK entries of a map table's INSERT_BATCH, as
 * kslot_dev_insert_one() would insert them one by one, with a copy and a
 * charge per chunk instead of per entry.  The handle slots are faulted in
 * for writing first (fault_in_safe_writeable(), which writes nothing, so
 * that a concurrent write of another thread to the array is not undone),
 * so that an unwritable one ends the chunk before anything is stored; the
 * records are allocated and copied in one by one, outside any lock (each
 * growth of the records' pool charged first, and held until the table is
 * settled), and stored (kslot_dev_store_chunk()).  The handles go out one
 * put_user() each: from the first that cannot be written, the entries are
 * erased again.  Where a record cannot be allocated, the entries before
 * it are stored and it fails, as it would one by one; where a growth of
 * the table cannot be charged beside the pool growths held, the rest is
 * inserted one by one, so that the batch stops where inserting one by one
 * would, with that entry's error, every handle slot after it untouched.
 * Sets *@done to the entries inserted; returns the next one's error, or 0.
 */
static noinline_for_stack int
kslot_dev_insert_chunk(struct kslot_table *t, u64 __user *handles,
		       const u8 __user *recs, u32 n, u32 *done)
{
	size_t rs = t->record_size;
	void *objs[KSLOT_SLOTS_BULK];
	u64 h[KSLOT_SLOTS_BULK], pre = 0;
	u32 j, k = 0, w, nrec;
	int ret = 0, tail, err;

	*done = 0;
	w = n - DIV_ROUND_UP(fault_in_safe_writeable((const char __user *)handles,
						     n * sizeof(*h)),
			     sizeof(*h));
	/* The error after the writable slots' entries, if they all go in. */
	tail = w < n ? -EFAULT : 0;
	if (!w)
		goto one_by_one;
	for (nrec = 0; nrec < w; nrec++) {
		objs[nrec] = kslot_rec_from_user(t, recs + nrec * rs, &pre,
						 NULL);
		if (IS_ERR(objs[nrec])) {
			ret = PTR_ERR(objs[nrec]);
			break;
		}
	}
	if (nrec && mutex_lock_killable(&t->insert_lock)) {
		ret = -EINTR;
	} else if (nrec) {
		k = kslot_dev_store_chunk(t, objs, nrec, h, &err);
		mutex_unlock(&t->insert_lock);
		ret = err ?: ret;
	}
	for (j = k; j < nrec; j++)
		kslot_rec_free(t, objs[j]);
	/*
	 * The pool as it is now is charged before its growths' precharge
	 * goes, if it grew or took records back: those not stored, or one
	 * whose copy failed (kslot_dev_store_chunk() settled the table's
	 * growths).
	 */
	if (pre || k < nrec || nrec < w)
		kslot_dev_settle(t);
	kslot_dev_uncharge(t->file, pre);

	for (j = 0; j < k; j++) {
		if (put_user(kslot_seal(&t->seal, h[j]), &handles[j])) {
			/*
			 * The page went away meanwhile: take the entries
			 * back from this one, unless another thread (which
			 * found one by ITERATE) already erased it.
			 */
			for (; j < k; j++)
				kslot_table_erase(t, h[j]);
			kslot_dev_write_end(t, 0);
			return -EFAULT;
		}
		*done = j + 1;
	}
	if (!ret)
		return tail;
	/*
	 * A growth that could not be charged beside records not stored yet
	 * might have been alone: the rest one by one.  Otherwise entry k
	 * fails, its handle slot zeroed as kslot_dev_insert_one() does.
	 */
	if (ret == -EDQUOT && k + 1 < nrec) {
		recs += k * rs;
		handles += k;
		w -= k;
		goto one_by_one;
	}
	put_user(0, &handles[k]);
	return ret;

one_by_one:
	for (j = 0; j < w; j++) {
		ret = kslot_dev_insert_one(t, recs + j * rs, &handles[j],
					   &h[0]);
		if (ret)
			return ret;
		(*done)++;
	}
	return tail;
}

/*
 * INSERT_BATCH of a map table, %KSLOT_SLOTS_BULK entries at a time
 * (kslot_dev_insert_chunk()).  It stops where inserting them one by one
 * would, with that entry's error.
 */
static int kslot_dev_insert_batch(struct kslot_table *t, u64 __user *handles,
				  const u8 __user *recs, u32 count, u32 *done)
{
	u32 i = 0, k;
	int ret = 0;

	while (i < count && !ret) {
		ret = kslot_dev_insert_chunk(t, &handles[i],
					     recs + (size_t)i * t->record_size,
					     min(count - i, KSLOT_SLOTS_BULK),
					     &k);
		i += k;
		cond_resched();
	}
	*done = i;
	return ret;
}

static int kslot_ioc_batch(struct kslot_file *f, void *arg, void __user *uarg,
			   unsigned int cmd)
{
	struct kslot_batch *b = arg;
	struct kslot_batch __user *ub = uarg;
	u64 __user *handles = u64_to_user_ptr(b->handles_ptr);
	u8 __user *recs = u64_to_user_ptr(b->records_ptr);
	struct kslot_table *t;
	int ret = 0;
	u32 i;

	if (b->done || b->count > KSLOT_MAX_BATCH)
		return -EINVAL;
	/* An unwritable done fails before any entry is processed. */
	if (put_user(0, &ub->done))
		return -EFAULT;
	t = kslot_dev_begin(f, b->flags, b->table_id, b->record_size,
			    b->records_ptr, cmd != KSLOT_IOC_ERASE_BATCH);
	if (IS_ERR(t))
		return PTR_ERR(t);
	if (!b->count) {
		i = 0;
	} else if (cmd == KSLOT_IOC_GET_BATCH) {
		ret = kslot_dev_get_batch(t, b, &i);
	} else if (cmd == KSLOT_IOC_INSERT_BATCH && !kslot_table_is_dense(t)) {
		ret = kslot_dev_insert_batch(t, handles, recs, b->count, &i);
	} else if (cmd == KSLOT_IOC_ERASE_BATCH && !kslot_table_is_dense(t)) {
		ret = kslot_dev_erase_batch(t, handles, b->count, &i);
		kslot_dev_write_end(t, 0);
	} else {
		for (i = 0; i < b->count; i++) {
			ret = kslot_dev_batch_one(t, cmd, &handles[i],
						  recs + (size_t)i *
						  t->record_size);
			if (ret)
				break;
		}
		/* Inserts settled themselves; erases are settled here. */
		if (cmd == KSLOT_IOC_ERASE_BATCH)
			kslot_dev_write_end(t, 0);
	}
	if (put_user(i, &ub->done))
		ret = -EFAULT;
	kslot_dev_end(f);
	return ret;
}

int kslot_ioc_insert_batch(struct kslot_file *f, void *arg,
			   void __user *uarg)
{
	return kslot_ioc_batch(f, arg, uarg, KSLOT_IOC_INSERT_BATCH);
}

int kslot_ioc_get_batch(struct kslot_file *f, void *arg, void __user *uarg)
{
	return kslot_ioc_batch(f, arg, uarg, KSLOT_IOC_GET_BATCH);
}

int kslot_ioc_erase_batch(struct kslot_file *f, void *arg,
			  void __user *uarg)
{
	return kslot_ioc_batch(f, arg, uarg, KSLOT_IOC_ERASE_BATCH);
}

int kslot_ioc_iterate(struct kslot_file *f, void *arg, void __user *uarg)
{
	struct kslot_iterate *it = arg;
	u64 __user *handles = u64_to_user_ptr(it->handles_ptr);
	u8 __user *recs = u64_to_user_ptr(it->records_ptr);
	bool with_records = it->records_ptr != 0;
	struct kslot_tmp tmp = {};
	struct kslot_table *t;
	u32 pos, end, n = 0;
	void *buf = NULL;
	bool over = false;
	int ret = 0;
	u64 h;

	if (it->count || !it->max || it->max > KSLOT_MAX_BATCH)
		return -EINVAL;
	if (it->cursor > KSLOT_INDEX_MAX + 1ULL &&
	    it->cursor != KSLOT_CURSOR_END)
		return -EINVAL;
	t = kslot_dev_begin(f, it->flags, it->table_id, it->record_size,
			    it->records_ptr, with_records);
	if (IS_ERR(t))
		return PTR_ERR(t);
	if (it->cursor == KSLOT_CURSOR_END)
		goto out;
	if (with_records) {
		ret = kslot_dev_bounce(t, &tmp);
		if (ret)
			goto out;
		buf = tmp.p;
	}
	/*
	 * Bounded by the slots it scans, not by the table's capacity: a call
	 * that scanned KSLOT_SCAN_BUDGET slots returns, maybe with fewer than
	 * max entries, and the next call resumes from the cursor.
	 */
	pos = it->cursor;
	end = min_t(u64, (u64)pos + KSLOT_SCAN_BUDGET, KSLOT_INDEX_MAX + 1ULL);
	while (n < it->max) {
		if (kslot_table_next(t, &pos, end, &h, buf)) {
			over = pos < end || end == KSLOT_INDEX_MAX + 1ULL;
			break;
		}
		if (put_user(kslot_seal(&t->seal, h), &handles[n]) ||
		    (buf && copy_to_user(recs + (size_t)n * t->record_size,
					 buf, t->record_size))) {
			ret = -EFAULT;
			goto out;
		}
		n++;
		pos++;
	}
	it->count = n;
	it->cursor = over ? KSLOT_CURSOR_END : pos;
out:
	kslot_dev_tmp_free(f, &tmp);
	kslot_dev_end(f);
	return ret;
}

int kslot_ioc_stats(struct kslot_file *f, void *arg, void __user *uarg)
{
	struct kslot_stats *st = arg;
	struct kslot_table *t;
	unsigned long id;

	if (st->flags ||
	    !kslot_dev_out_zero(st, offsetof(struct kslot_stats, kind),
				sizeof(*st)))
		return -EINVAL;
	if (down_read_killable(&f->rwsem))
		return -EINTR;
	if (st->table_id) {
		struct kslot_table_stats ts;

		t = kslot_dev_table(f, st->table_id);
		if (!t) {
			up_read(&f->rwsem);
			return -ENOENT;
		}
		kslot_table_stats(t, &ts);
		st->entries = ts.entries;
		st->capacity = ts.capacity;
		st->max_entries = ts.max_entries;
		st->retired = ts.retired;
		st->kind = t->kind;
		st->record_size = t->record_size;
		st->tables = 1;
		st->bytes = kslot_dev_charged(t);
		st->rejected = ts.rejected;
	} else {
		xa_for_each(&f->tables, id, t) {
			struct kslot_table_stats ts;

			kslot_table_stats(t, &ts);
			st->entries += ts.entries;
			st->capacity += ts.capacity;
			st->max_entries += ts.max_entries;
			st->retired += ts.retired;
			st->rejected += ts.rejected;
		}
		st->tables = f->nr_tables;
		st->bytes = atomic64_read(&f->acct->charge.bytes);
	}
	up_read(&f->rwsem);
	return 0;
}

int kslot_ioc_dump(struct kslot_file *f, void *arg, void __user *uarg)
{
	struct kslot_dump *d = arg;
	struct kslot_dump_buf db;
	struct kslot_table *t;
	int ret;

	if (d->flags || !d->max || d->max > KSLOT_MAX_BATCH ||
	    !kslot_dev_out_zero(d, offsetof(struct kslot_dump, count),
				offsetof(struct kslot_dump, slots_ptr)) ||
	    !kslot_dev_out_zero(d, offsetof(struct kslot_dump, decoded_gen),
				sizeof(*d)))
		return -EINVAL;
	t = kslot_dev_begin(f, 0, d->table_id, 0, 0, false);
	if (IS_ERR(t))
		return PTR_ERR(t);
	ret = kslot_dump_buf_alloc(f, &db, d->max);
	if (ret) {
		kslot_dev_end(f);
		return ret;
	}
	d->decoded_index = KSLOT_DUMP_NONE;
	d->decoded_gen = 0;
	if (d->user_handle) {
		u64 h = kslot_unseal(&t->seal, d->user_handle);

		/* A kernel handle of the table's format and tag. */
		if ((h & KSLOT_HANDLE64_BIT) &&
		    kslot_slots_handle_tag(t->slots, h) == kslot_table_tag(t)) {
			d->decoded_index =
				kslot_slots_handle_index(t->slots, h);
			d->decoded_gen = kslot_slots_handle_gen(t->slots, h);
		}
	}
	ret = kslot_table_dump(t, d, &db);
	if (ret)
		goto out;
	ret = -EFAULT;
	if (copy_to_user(u64_to_user_ptr(d->slots_ptr), db.slots,
			 array_size(d->count, sizeof(*db.slots))))
		goto out;
	if (d->reverse_ptr &&
	    copy_to_user(u64_to_user_ptr(d->reverse_ptr), db.reverse,
			 array_size(d->reverse_count, sizeof(*db.reverse))))
		goto out;
	ret = 0;
out:
	kslot_dump_buf_free(f, &db);
	kslot_dev_end(f);
	return ret;
}
