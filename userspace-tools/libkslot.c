// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libkslot: C wrappers for the /dev/kslot ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libkslot.h"

#define U64_PTR(p)	((uint64_t)(uintptr_t)(p))

int kslot_open(void)
{
	int fd = open(KSLOT_DEVICE, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int kslot_close(int fd)
{
	return close(fd) ? -errno : 0;
}

int kslot_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int kslot_info(int fd, struct kslot_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return kslot_ioctl(fd, KSLOT_IOC_INFO, info);
}

int kslot_create(int fd, uint32_t kind, uint32_t record_size,
		 uint32_t max_entries, uint32_t *table_id)
{
	struct kslot_create c = {
		.size = sizeof(c),
		.kind = kind,
		.record_size = record_size,
		.max_entries = max_entries,
	};
	int ret = kslot_ioctl(fd, KSLOT_IOC_CREATE, &c);

	if (!ret)
		*table_id = c.table_id;
	return ret;
}

int kslot_destroy(int fd, uint32_t table_id)
{
	struct kslot_destroy d = { .size = sizeof(d), .table_id = table_id };

	return kslot_ioctl(fd, KSLOT_IOC_DESTROY, &d);
}

static int kslot_entry_cmd(int fd, unsigned long cmd, uint32_t table_id,
			   uint64_t *handle, const void *rec,
			   uint32_t record_size)
{
	struct kslot_entry e = {
		.size = sizeof(e),
		.table_id = table_id,
		.record_size = record_size,
		.handle = cmd == KSLOT_IOC_INSERT ? 0 : *handle,
		.record_ptr = U64_PTR(rec),
	};
	int ret = kslot_ioctl(fd, cmd, &e);

	if (!ret && cmd == KSLOT_IOC_INSERT)
		*handle = e.handle;
	return ret;
}

int kslot_insert(int fd, uint32_t table_id, const void *rec,
		 uint32_t record_size, uint64_t *handle)
{
	return kslot_entry_cmd(fd, KSLOT_IOC_INSERT, table_id, handle, rec,
			       record_size);
}

int kslot_get(int fd, uint32_t table_id, uint64_t handle, void *rec,
	      uint32_t record_size)
{
	return kslot_entry_cmd(fd, KSLOT_IOC_GET, table_id, &handle, rec,
			       record_size);
}

int kslot_update(int fd, uint32_t table_id, uint64_t handle,
		 const void *rec, uint32_t record_size)
{
	return kslot_entry_cmd(fd, KSLOT_IOC_UPDATE, table_id, &handle, rec,
			       record_size);
}

int kslot_erase(int fd, uint32_t table_id, uint64_t handle)
{
	return kslot_entry_cmd(fd, KSLOT_IOC_ERASE, table_id, &handle, NULL, 0);
}

static int kslot_batch_cmd(int fd, unsigned long cmd, uint32_t table_id,
			   const uint64_t *handles, const void *recs,
			   uint32_t record_size, uint32_t count,
			   uint32_t *done)
{
	struct kslot_batch b = {
		.size = sizeof(b),
		.table_id = table_id,
		.record_size = record_size,
		.count = count,
		.handles_ptr = U64_PTR(handles),
		.records_ptr = U64_PTR(recs),
	};
	int ret = kslot_ioctl(fd, cmd, &b);

	if (done)
		*done = b.done;
	return ret;
}

int kslot_insert_batch(int fd, uint32_t table_id, const void *recs,
		       uint32_t record_size, uint32_t count,
		       uint64_t *handles, uint32_t *done)
{
	return kslot_batch_cmd(fd, KSLOT_IOC_INSERT_BATCH, table_id, handles,
			       recs, record_size, count, done);
}

int kslot_get_batch(int fd, uint32_t table_id, const uint64_t *handles,
		    uint32_t count, void *recs, uint32_t record_size,
		    uint32_t *done)
{
	return kslot_batch_cmd(fd, KSLOT_IOC_GET_BATCH, table_id, handles,
			       recs, record_size, count, done);
}

int kslot_erase_batch(int fd, uint32_t table_id, const uint64_t *handles,
		      uint32_t count, uint32_t *done)
{
	return kslot_batch_cmd(fd, KSLOT_IOC_ERASE_BATCH, table_id, handles,
			       NULL, 0, count, done);
}

int kslot_iterate(int fd, uint32_t table_id, uint64_t *cursor,
		  uint64_t *handles, void *recs, uint32_t record_size,
		  uint32_t max, uint32_t *count)
{
	struct kslot_iterate it = {
		.size = sizeof(it),
		.table_id = table_id,
		.record_size = recs ? record_size : 0,
		.cursor = *cursor,
		.max = max,
		.handles_ptr = U64_PTR(handles),
		.records_ptr = U64_PTR(recs),
	};
	int ret = kslot_ioctl(fd, KSLOT_IOC_ITERATE, &it);

	if (!ret) {
		*cursor = it.cursor;
		*count = it.count;
	}
	return ret;
}

int kslot_stats(int fd, uint32_t table_id, struct kslot_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->table_id = table_id;
	return kslot_ioctl(fd, KSLOT_IOC_STATS, st);
}

int kslot_dump(int fd, struct kslot_dump *dump)
{
	if (!dump->size)
		dump->size = sizeof(*dump);
	return kslot_ioctl(fd, KSLOT_IOC_DUMP, dump);
}

int kslot_export_buf(int fd, uint32_t table_id, void *buf, uint64_t buf_size,
		     uint64_t *size)
{
	struct kslot_export x = {
		.size = sizeof(x),
		.table_id = table_id,
		.image_ptr = U64_PTR(buf),
		.buf_size = buf_size,
	};
	int ret = kslot_ioctl(fd, KSLOT_IOC_EXPORT, &x);

	if (!ret || ret == -ERANGE)
		*size = x.image_size;
	return ret;
}

int kslot_export(int fd, uint32_t table_id, void **image, size_t *size)
{
	uint64_t need = 0;
	void *buf = NULL;
	int ret;

	/* Ask for the size, then export; again if the table grew between. */
	ret = kslot_export_buf(fd, table_id, NULL, 0, &need);
	while (!ret) {
		void *p = realloc(buf, need ? need : 1);
		uint64_t got = 0;

		if (!p) {
			ret = -ENOMEM;
			break;
		}
		buf = p;
		ret = kslot_export_buf(fd, table_id, buf, need, &got);
		if (!ret) {
			*image = buf;
			*size = got;
			return 0;
		}
		if (ret == -ERANGE) {
			need = got;
			ret = 0;
		}
	}
	free(buf);
	return ret;
}

int kslot_import(int fd, const void *image, size_t size, uint32_t *table_id)
{
	struct kslot_import im = {
		.size = sizeof(im),
		.image_ptr = U64_PTR(image),
		.image_size = size,
	};
	int ret = kslot_ioctl(fd, KSLOT_IOC_IMPORT, &im);

	if (!ret && table_id)
		*table_id = im.table_id;
	return ret;
}

const char *kslot_kind_name(uint32_t kind)
{
	switch (kind) {
	case KSLOT_KIND_MAP:
		return "map";
	case KSLOT_KIND_DENSE:
		return "dense";
	default:
		return "unknown";
	}
}
