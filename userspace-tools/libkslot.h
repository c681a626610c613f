/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libkslot: C wrappers for the /dev/kslot ioctls.
 *
 * Every function returns 0 (or a file descriptor for kslot_open()) on
 * success and a negative errno on failure; errno is not relied upon.
 * The structs and constants are those of <linux/kslot.h>.
 */
#ifndef LIBKSLOT_H
#define LIBKSLOT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kslot.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KSLOT_DEVICE	"/dev/kslot"

int kslot_open(void);
int kslot_close(int fd);

/* The raw command, for callers that build the struct themselves. */
int kslot_ioctl(int fd, unsigned long cmd, void *arg);

int kslot_info(int fd, struct kslot_info *info);
int kslot_create(int fd, uint32_t kind, uint32_t record_size,
		 uint32_t max_entries, uint32_t *table_id);
int kslot_destroy(int fd, uint32_t table_id);

int kslot_insert(int fd, uint32_t table_id, const void *rec,
		 uint32_t record_size, uint64_t *handle);
int kslot_get(int fd, uint32_t table_id, uint64_t handle, void *rec,
	      uint32_t record_size);
int kslot_update(int fd, uint32_t table_id, uint64_t handle,
		 const void *rec, uint32_t record_size);
int kslot_erase(int fd, uint32_t table_id, uint64_t handle);

/*
 * Batches: entries are processed in order.  *done (if not NULL) receives
 * how many succeeded; on failure the return value is the errno of entry
 * *done, and entries before it stay done.
 */
int kslot_insert_batch(int fd, uint32_t table_id, const void *recs,
		       uint32_t record_size, uint32_t count,
		       uint64_t *handles, uint32_t *done);
int kslot_get_batch(int fd, uint32_t table_id, const uint64_t *handles,
		    uint32_t count, void *recs, uint32_t record_size,
		    uint32_t *done);
int kslot_erase_batch(int fd, uint32_t table_id, const uint64_t *handles,
		      uint32_t count, uint32_t *done);

/*
 * One page of a table walk: start with *cursor = 0 and repeat until
 * *cursor == KSLOT_CURSOR_END.  recs may be NULL (then record_size 0).
 */
int kslot_iterate(int fd, uint32_t table_id, uint64_t *cursor,
		  uint64_t *handles, void *recs, uint32_t record_size,
		  uint32_t max, uint32_t *count);

/* table_id 0: the whole file. */
int kslot_stats(int fd, uint32_t table_id, struct kslot_stats *st);
int kslot_dump(int fd, struct kslot_dump *dump);

/*
 * Checkpoint and restore.  kslot_export() allocates the image (free() it)
 * and sets *image and *size; kslot_import() makes a new table from one.
 * kslot_export_buf() is the raw command: *size receives the image's size
 * (buf_size 0 only asks for it).
 */
int kslot_export_buf(int fd, uint32_t table_id, void *buf, uint64_t buf_size,
		     uint64_t *size);
int kslot_export(int fd, uint32_t table_id, void **image, size_t *size);
int kslot_import(int fd, const void *image, size_t size, uint32_t *table_id);

const char *kslot_kind_name(uint32_t kind);

#ifdef __cplusplus
}
#endif

#endif /* LIBKSLOT_H */
