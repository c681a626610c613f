// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kslot: checkpoint and restore (kslot_dev.ko): EXPORT writes a
 * table's image, IMPORT makes a table from one (struct kslot_image in
 * the uapi header).
 */
#include <linux/mm.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <uapi/linux/kslot.h>

#include "kslot_dev.h"
#include "kslot_internal.h"

/* ---- checkpoint and restore ---- */

struct kslot_export_walk {
	void __user *image;	/* NULL: count only */
	u64 off;		/* bytes of the image so far */
	u32 nr_slots;
	u32 live;
	void *buf;		/* a record */
};

/* One slot of the table for the image (counted, or written out). */
static int kslot_export_slot(struct kslot_table *t,
			     const struct kslot_dump_slot *ds,
			     struct kslot_export_walk *w)
{
	/* A retired slot has no generation left (dense ones keep theirs). */
	struct kslot_image_slot is = {
		.index = ds->index, .state = ds->state,
		.gen = ds->state == KSLOT_SLOT_RETIRED ? 0 : ds->gen,
	};
	bool live = ds->state == KSLOT_SLOT_LIVE;
	int ret;

	/* Never used: what IMPORT assumes of slots not listed. */
	if (ds->state == KSLOT_SLOT_FREE && !ds->gen)
		return 0;
	if (w->image) {
		if (copy_to_user(w->image + w->off, &is, sizeof(is)))
			return -EFAULT;
		if (live) {
			u64 h = kslot_slots_handle_make(t->slots, ds->index,
							ds->gen);

			ret = kslot_table_lookup(t, h, w->buf);
			/* The file's rwsem is held for writing. */
			if (WARN_ON_ONCE(ret))
				return ret;
			if (copy_to_user(w->image + w->off + sizeof(is), w->buf,
					 t->record_size))
				return -EFAULT;
		}
	}
	w->off += sizeof(is) + (live ? t->record_size : 0);
	w->nr_slots++;
	w->live += live;
	return 0;
}

/* Walk every slot of @t below its capacity, in index order. */
static int kslot_export_walk(struct kslot_table *t, struct kslot_export_walk *w)
{
	struct kslot_dump d = { .max = KSLOT_WALK_CHUNK };
	struct kslot_dump_buf db;
	u32 i;
	int ret;

	ret = kslot_dump_buf_alloc(t->file, &db, d.max);
	if (ret)
		return ret;
	for (;;) {
		ret = kslot_table_dump(t, &d, &db);
		if (ret)
			goto out;
		for (i = 0; i < d.count; i++) {
			ret = kslot_export_slot(t, &db.slots[i], w);
			if (ret)
				goto out;
		}
		if (!d.count || d.start + d.count >= d.nr_slots)
			break;
		d.start += d.count;
		cond_resched();
	}
	ret = 0;
out:
	kslot_dump_buf_free(t->file, &db);
	return ret;
}

int kslot_ioc_export(struct kslot_file *f, void *arg, void __user *uarg)
{
	struct kslot_export __user *ux = uarg;
	struct kslot_export *x = arg;
	struct kslot_export_walk w = {};
	struct kslot_image img = {};
	struct kslot_tmp buf = {};
	struct kslot_table *t;
	int ret;

	if (x->flags || x->__reserved || x->image_size)
		return -EINVAL;
	if (put_user(0, &ux->image_size))
		return -EFAULT;
	/* Writers excluded: the image is one instant of the table. */
	if (down_write_killable(&f->rwsem))
		return -EINTR;
	t = kslot_dev_table(f, x->table_id);
	ret = -ENOENT;
	if (!t)
		goto unlock;
	w.off = sizeof(img);
	ret = kslot_export_walk(t, &w);
	if (ret)
		goto unlock;
	ret = -EFAULT;
	if (put_user(w.off, &ux->image_size))
		goto unlock;
	/* A size query, or a buffer too small for the image. */
	ret = x->buf_size ? -ERANGE : 0;
	if (x->buf_size < w.off)
		goto unlock;
	img = (struct kslot_image){
		.magic = KSLOT_IMAGE_MAGIC, .version = KSLOT_IMAGE_VERSION,
		.kind = t->kind, .record_size = t->record_size,
		.max_entries = t->max_entries, .tag = kslot_table_tag(t),
		.nr_slots = w.nr_slots, .live = w.live,
	};
	memcpy(img.seal, t->seal.mul, sizeof(img.seal));
	ret = -EFAULT;
	if (copy_to_user(u64_to_user_ptr(x->image_ptr), &img, sizeof(img)))
		goto unlock;
	ret = kslot_dev_bounce(t, &buf);
	if (ret)
		goto unlock;
	w = (struct kslot_export_walk){
		.image = u64_to_user_ptr(x->image_ptr), .off = sizeof(img),
		.buf = buf.p,
	};
	ret = kslot_export_walk(t, &w);
	kslot_dev_tmp_free(f, &buf);
unlock:
	up_write(&f->rwsem);
	return ret;
}

/* Check an image's header against the image size; 0 or -errno. */
static int kslot_import_check(const struct kslot_image *img, u64 size)
{
	int ret, i;

	if (img->magic != KSLOT_IMAGE_MAGIC)
		return -EBADMSG;
	if (img->version != KSLOT_IMAGE_VERSION)
		return -EPROTONOSUPPORT;
	if (img->__reserved)
		return -EBADMSG;
	ret = kslot_dev_check_shape(img->kind, img->record_size,
				    img->max_entries);
	if (ret)
		return ret;
	if (!(kslot_dev_kinds(true) & BIT(img->kind)))
		return -EOPNOTSUPP;
	if (img->nr_slots > img->max_entries || img->live > img->nr_slots ||
	    img->tag > KSLOT_TAG_MASK)
		return -EBADMSG;
	for (i = 0; i < KSLOT_SEAL_ROUNDS; i++)
		if (!(img->seal[i] & 1))
			return -EBADMSG;
	if (size != sizeof(*img) +
		    (u64)img->nr_slots * sizeof(struct kslot_image_slot) +
		    (u64)img->live * img->record_size)
		return -EBADMSG;
	/* Well formed, but a key that does not mix (see the uapi header). */
	if (!kslot_seal_key_ok(img->seal))
		return -EINVAL;
	return 0;
}

/*
 * Check one slot of an image after slot @prev (-1: the first), for table
 * @t made of its header: its generation must fit @t's handles.
 */
static int kslot_import_check_slot(struct kslot_table *t,
				   const struct kslot_image *img,
				   const struct kslot_image_slot *is, s64 prev)
{
	if (is->index <= prev || is->index >= img->max_entries ||
	    is->gen >= BIT_ULL(kslot_slots_gen_bits(t->slots)))
		return -EBADMSG;
	switch (is->state) {
	case KSLOT_SLOT_LIVE:
		return kslot_gen_is_live(is->gen) ? 0 : -EBADMSG;
	case KSLOT_SLOT_FREE:
		return kslot_gen_is_live(is->gen) ? -EBADMSG : 0;
	case KSLOT_SLOT_RETIRED:
		return is->gen ? -EBADMSG : 0;
	default:
		return -EBADMSG;
	}
}

/*
 * Precharge the restore of slot @index into @t: everything it may
 * allocate, before it does, under the checks of an insert.  That is its
 * record (a dense table's value goes to the packed array, which a full
 * array makes grow by
 * kslot_dense_stats.vals_grow_bytes), and the slot capacity it makes the
 * table grow to (restoring a slot grows the table to it, whatever the
 * slots below hold, so a small image cannot pin a large uncharged slot
 * array): every chunk up to the slot, and every directory on the way.
 * *@grow is set if a growth is precharged.  Returns the bytes charged,
 * -EDQUOT, or -EINTR.
 */
static s64 kslot_import_precharge(struct kslot_table *t, u32 index, bool live,
				  bool *grow)
{
	struct kslot_table_stats ts;
	u64 bytes = 0;
	int ret;

	kslot_table_stats(t, &ts);
	/* A map record may add a slab to the records' pool: settled at once. */
	*grow = index >= ts.capacity;
	if (live && kslot_table_is_dense(t)) {
		struct kslot_dense_stats ds;

		kslot_dense_stats(&t->dense, &ds);
		if (ds.vals_grow_bytes) {
			bytes += ds.vals_grow_bytes;
			*grow = true;
		}
	}
	/* A replaced directory stays charged until its grace period ends. */
	bytes += kslot_slots_grow_to_bytes(t->slots, ts.capacity,
					   index);
	if (!bytes)
		return 0;
	ret = kslot_dev_charge(t->file, bytes);
	if (ret)
		return ret;
	return bytes;
}

/*
 * Restore the slots of image @src into the new table @t.  Each slot is
 * precharged; the table is settled after each growth and every
 * KSLOT_WALK_CHUNK slots, so the precharge stays small, as for inserts.
 */
static int kslot_import_slots(struct kslot_table *t,
			      const struct kslot_image *img,
			      const u8 __user *src)
{
	u64 off = sizeof(*img), pre = 0, recpre;
	struct kslot_image_slot is;
	u32 i, live = 0;
	s64 prev = -1, bytes;
	int ret = 0;
	bool grow;

	for (i = 0; i < img->nr_slots; i++) {
		/*
		 * Every slot, whatever its state: an image may list millions
		 * of slots the loop skips.  A fatal signal fails the whole
		 * IMPORT, which then creates nothing.
		 */
		ret = -EINTR;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
		if (i && !(i % KSLOT_WALK_CHUNK)) {
			kslot_dev_write_end(t, pre);
			pre = 0;
		}
		ret = -EFAULT;
		if (copy_from_user(&is, src + off, sizeof(is)))
			break;
		off += sizeof(is);
		ret = kslot_import_check_slot(t, img, &is, prev);
		if (ret)
			break;
		prev = is.index;
		if (is.state == KSLOT_SLOT_FREE && !is.gen)
			continue;
		/* More live slots than the header says. */
		ret = -EBADMSG;
		if (is.state == KSLOT_SLOT_LIVE && live == img->live)
			break;
		bytes = kslot_import_precharge(t, is.index,
					       is.state == KSLOT_SLOT_LIVE, &grow);
		recpre = 0;
		ret = bytes < 0 ? bytes :
		      kslot_table_restore(t, is.index, is.gen, is.state,
					  src + off, &recpre);
		if (bytes > 0)
			pre += bytes;
		/* A growth of the records' pool (charged first): settled. */
		pre += recpre;
		grow |= recpre > 0;
		/* Settled now, a growth's precharge and the records' go. */
		if (grow) {
			kslot_dev_write_end(t, pre);
			pre = 0;
		}
		if (ret)
			break;
		if (is.state == KSLOT_SLOT_LIVE) {
			off += t->record_size;
			live++;
		}
	}
	kslot_dev_write_end(t, pre);
	if (ret)
		return ret;
	return live == img->live ? 0 : -EBADMSG;
}

int kslot_ioc_import(struct kslot_file *f, void *arg, void __user *uarg)
{
	struct kslot_import __user *ui = uarg;
	struct kslot_import *im = arg;
	const u8 __user *src = u64_to_user_ptr(im->image_ptr);
	struct kslot_image img;
	struct kslot_table *t;
	u32 next_id;
	int ret;

	if (im->flags || im->__reserved || im->table_id)
		return -EINVAL;
	if (im->image_size < sizeof(img))
		return -EBADMSG;
	if (copy_from_user(&img, src, sizeof(img)))
		return -EFAULT;
	ret = kslot_import_check(&img, im->image_size);
	if (ret)
		return ret;
	/* An unwritable table_id fails before anything is created. */
	if (put_user(0, &ui->table_id))
		return -EFAULT;

	if (down_write_killable(&f->rwsem))
		return -EINTR;
	next_id = f->next_id;
	t = kslot_dev_table_new(f, img.kind, img.record_size, img.max_entries,
				&img);
	ret = PTR_ERR_OR_ZERO(t);
	if (ret)
		goto unlock;
	ret = kslot_import_slots(t, &img, src);
	kslot_table_restore_done(t);
	if (!ret && put_user(t->id, &ui->table_id))
		ret = -EFAULT;
	if (ret)
		kslot_dev_table_unmake(f, t, next_id);
unlock:
	up_write(&f->rwsem);
	return ret;
}
