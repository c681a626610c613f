/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/kslot internals (kslot_dev.ko): open files and tables.
 */
#ifndef _KSLOT_DEV_H
#define _KSLOT_DEV_H

#include <linux/atomic.h>
#include <linux/kslot_dense.h>
#include <linux/kslot_map.h>
#include <linux/rwsem.h>
#include <linux/siphash.h>
#include <linux/xarray.h>
#include <uapi/linux/kslot.h>

/**
 * struct kslot_file - One open file of /dev/kslot: a table namespace.
 * @rwsem: Held for reading by table commands, for writing by create and
 *	destroy.
 * @tables: Table id -> struct kslot_table.
 * @next_id: Cursor for cyclic table id allocation, so ids are not reused
 *	soon and a destroyed table's handles cannot reach its successor.
 * @nr_tables: Tables in @tables.
 * @bytes: Bytes charged against the max_bytes limit.
 * @secret: Key of the handle scrambling.
 * @node: Entry in the list of open files (for debugfs).
 * @id: Number of this open file, for debugfs.
 * @pid: Thread group that opened it, for debugfs.
 */
struct kslot_file {
	struct rw_semaphore rwsem;
	struct xarray tables;
	u32 next_id;
	u32 nr_tables;
	atomic64_t bytes;
	siphash_key_t secret;
	struct list_head node;
	u32 id;
	pid_t pid;
};

/**
 * struct kslot_table - A table of fixed-size records.
 * @file: The file it belongs to.
 * @id: Its id within @file.
 * @kind: enum kslot_table_kind.
 * @record_size: Bytes per record.
 * @max_entries: Capacity limit.
 * @entry_overhead: Bytes charged per entry beyond the record.
 * @rejected: Handles rejected with -ENOENT.
 * @slots: The slot core under either kind (handles, counters, dump, walk).
 * @map: The kslot_map of a map table.
 * @dense: The kslot_dense of a dense table.
 */
struct kslot_table {
	struct kslot_file *file;
	u32 id;
	u32 kind;
	u32 record_size;
	u32 max_entries;
	u32 entry_overhead;
	atomic64_t rejected;
	struct kslot_slots *slots;
	union {
		struct kslot_map map;
		struct kslot_dense dense;
	};
};

#endif /* _KSLOT_DEV_H */
