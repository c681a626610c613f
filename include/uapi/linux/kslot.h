/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/kslot: generational handle tables for userspace.
 *
 * Every open file of /dev/kslot is a private namespace of tables.  Tables
 * and their entries die with the file.  A table id or handle of one file
 * means nothing to another.
 *
 * Extensible arguments.  Every argument struct begins with __u32 size,
 * which the caller sets to sizeof(the struct it was built with).  The
 * kernel reads it with copy_struct_from_user():
 *
 *   size < the first version's size          -EINVAL
 *   size > the page size                     -E2BIG (as openat2())
 *   size > the kernel's, nonzero extra bytes -E2BIG
 *   size > the kernel's, zero extra bytes    accepted
 *   size < the kernel's (a newer field)      missing fields read as zero
 *
 * Every flags field, every field named __reserved, and every field
 * marked "out" (output only) must be zero on input (-EINVAL otherwise),
 * so that a later version can give any of them a meaning as an input.
 * Fields marked "in/out" are inputs.  User pointers are __u64.  The structs have no
 * implicit padding and the same layout on 32-bit and 64-bit userspace.
 *
 * Errors common to every command:
 *
 *   -EFAULT  an argument or array pointer is not readable/writable
 *   -EINVAL  bad size, nonzero flags or reserved field, record_size not
 *            the table's, the null handle (0)
 *   -ENOENT  table_id names no table of this file; or a handle names no
 *            live entry of this table (stale, forged, off by one, from
 *            another table or another file: they are not told apart)
 *   -ENOTTY  unknown command
 *   -EINTR   a fatal signal came while waiting for another command of
 *            the file (one that may be waiting on a user page)
 *
 * Limits (module parameters, reported by KSLOT_IOC_INFO):
 *
 *   -ENOSPC  CREATE: the file holds max_tables tables; commands that
 *            add entries: the table holds max_entries entries (a
 *            namespace is full either way; never -EMFILE, which would
 *            read as "too many open files")
 *   -EDQUOT  the memory the file takes (the file itself, from open;
 *            each table, its slots or arrays at their allocated capacity,
 *            as the kernel maps them, a map table's records as the pages
 *            of its own record pool, whole, however few records each
 *            still holds, and a fixed KSLOT_TABLE_ID_BYTES for the
 *            table's id), with the 4 KiB buffer a file keeps for its
 *            commands while it has a table and the temporary buffers its
 *            commands hold (a GET or ITERATE record, a GET_BATCH chunk of
 *            at most 4 KiB or one record and its handle, a DUMP's slots,
 *            an EXPORT's walk and record, the bounce buffer of a dense
 *            table's record: any command that takes one may fail so;
 *            they alone may pass either limit, by 16 KiB), would exceed
 *            max_bytes, or the memory of all the files of the opener's
 *            user (and of the user itself) would exceed max_user_bytes
 *            (not applied to files opened with CAP_SYS_RESOURCE in the
 *            initial user namespace).  open() of the device fails so
 *            too, when the user has no room for the file itself.  A
 *            user is a uid of a user namespace, and its memory counts
 *            for the namespace's owner in the parent namespace too, up
 *            to the initial namespace, as ucounts count (so a
 *            namespace's uids, an /etc/subuid range mapped by newuidmap
 *            say, spend their creator's budget, at every level against
 *            max_user_bytes).  An insert that would grow
 *            a table counts the growth; an insert (or UPDATE) into a map
 *            table counts its records and one growth of the record pool
 *            (a block of at most 32 KiB) before it is made.  Tables do not shrink: erasing
 *            gives back a map table's records (once the pages of its
 *            record pool that they held are empty), and only DESTROY or
 *            close gives back a table's capacity.
 *
 *            Memory stays charged until it is freed: a record erased or
 *            replaced, a slot array or packed array that a growth
 *            replaced, and everything of a destroyed table (or of a
 *            closed file) wait for an RCU grace period before they are
 *            freed, and count against both limits until then (STATS
 *            bytes does not show them).  A command that would pass a
 *            limit while such memory is waiting does not fail at once:
 *            it waits, killably (-EINTR on a fatal signal), until as
 *            much as was waiting has been freed (a grace period or two,
 *            milliseconds), then checks once more, and fails with
 *            -EDQUOT only if the limit still holds it back.  An UPDATE
 *            of a map table needs room for one more record: the new one
 *            while the old one waits.
 *   -ENOMEM  the kernel could not allocate memory (memcg limit included;
 *            the OOM killer is not invoked for a table's memory)
 *
 * Handles.  A handle is a kernel handle (slot index, table tag, slot
 * generation) run through the table's seal: a bijection of the 64-bit
 * space keyed per open file and per table, which maps 0 to 0.
 *
 *   It guarantees: every handle the table issued works until its entry
 *   is erased and never again after; 0 is never issued; a handle that is
 *   off by one or has a flipped bit, or comes from another table or
 *   another file, decodes to an unrelated kernel handle and is refused
 *   with -ENOENT unless it matches a live slot's tag (8 bits), index
 *   and exact generation (31 to 54 bits, the more the smaller the
 *   table's max_entries) by chance.  The KUnit suite kslot_dev
 *   checks this for such handles; the seal is not cryptographic, so no
 *   bound is promised against handles chosen to collide.
 *
 *   It does not guarantee: secrecy or unforgeability.  It is not a MAC;
 *   whoever holds the file can list every handle (ITERATE, DUMP) and can
 *   read the table's key from an EXPORT image.  A handle is a capability
 *   only in the sense that the file is.
 *
 * A failed command changes nothing, except where a batch says otherwise.
 * Commands that change state write their outputs (table_id, handle,
 * done) before the change takes effect, so this holds for -EFAULT too.
 */
#ifndef _UAPI_LINUX_KSLOT_H
#define _UAPI_LINUX_KSLOT_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 2: a generation is a __u64 in DUMP and in images (a table's generation
 * takes the bits its index does not need, up to 54).
 */
#define KSLOT_ABI_VERSION	2

/*
 * What each table is charged for its id in its file's index of tables,
 * a fixed estimate whatever ids the file's tables hold: the index is an
 * XArray of 31-bit ids, where one table may be alone in up to 5 nodes of
 * 576 bytes (64-bit), however far apart CREATE spaces the ids.
 */
#define KSLOT_TABLE_ID_BYTES	3072

/*
 * The ioctl type.  0xBC has no entry in the 6.12 kernel's
 * Documentation/userspace-api/ioctl/ioctl-number.rst (0xB9 .. 0xBF are
 * unlisted) and no uapi header uses it as an ioctl type (DRM's
 * DRM_IOWR(0xBC, ...) is command 0xBC of type 'd').  A mainline
 * submission adds the line "0xBC  00-1F  uapi/linux/kslot.h" there.
 *
 * Command numbers: _IO(KSLOT_IOCTL_TYPE, nr), with the argument's size in
 * its first field, as iommufd (include/uapi/linux/iommufd.h) does, rather
 * than _IOR/_IOW/_IOWR with the v1 struct:
 *   - the size field lets a struct grow without a new command number;
 *     _IOWR would bake the v1 size into the number, so a v2 struct would
 *     need a second number per command (or a kernel that accepts several),
 *     and the size encoded in the number would duplicate the size field;
 *   - every command both reads its struct and writes outputs back, so
 *     the direction bits would be _IOWR everywhere and carry nothing;
 *   - copy_struct_from_user() then gives the size rules above, the same
 *     as openat2(), clone3() and iommufd.
 * A command number with direction or size bits set is -ENOTTY.
 */
#define KSLOT_IOCTL_TYPE	0xBC

/* Table kinds (struct kslot_create.kind, bit n of kslot_info.kinds). */
enum kslot_table_kind {
	KSLOT_KIND_MAP = 1,	/* kslot_map: records behind stable slots */
	KSLOT_KIND_DENSE = 2,	/* kslot_dense: records packed densely */
};

/* KSLOT_IOC_INFO: what this kernel supports. */
struct kslot_info {
	__u32 size;
	__u32 flags;
	__u32 abi_version;	/* out: KSLOT_ABI_VERSION */
	__u32 kinds;		/* out: bit (1 << kind) per supported kind */
	__u32 create_flags;	/* out: flags kslot_create accepts */
	__u32 max_tables;	/* out: tables per open file */
	__u32 max_record_size;	/* out: bytes per record */
	__u32 max_entries;	/* out: entries per table */
	__u32 max_batch;	/* out: entries per batch command */
	__u32 __reserved;
	__u64 max_bytes;	/* out: bytes per open file */
	/* Beyond KSLOT_INFO_SIZE_VER0: */
	/* out: record_size * max_entries of a dense table is at most this */
	__u64 dense_max_bytes;
	/* out: bit (1 << kind) per kind IMPORT takes (EXPORT takes all) */
	__u32 import_kinds;
	__u32 image_version;	/* out: KSLOT_IMAGE_VERSION */
	/* out: bytes per user across its files; ~0 if this file is exempt */
	__u64 max_user_bytes;
};

/* INFO's first size; a smaller struct reads the fields it has. */
#define KSLOT_INFO_SIZE_VER0	48

/*
 * KSLOT_IOC_CREATE: make a table of fixed-size records.  CREATE fails
 * with -EINVAL unless kind is in info.kinds, flags within
 * info.create_flags, record_size in 1 .. info.max_record_size,
 * max_entries in 1 .. info.max_entries and, for a dense table,
 * record_size * max_entries <= info.dense_max_bytes; with -ENOSPC at
 * info.max_tables tables; with -EDQUOT if the table would take the file
 * past info.max_bytes or its user past info.max_user_bytes (a file's
 * first table comes with the 4 KiB buffer the file then keeps for its
 * commands, charged with it; its last table takes it away).
 */
struct kslot_create {
	__u32 size;
	__u32 flags;
	__u32 kind;		/* enum kslot_table_kind */
	__u32 record_size;	/* 1 .. max_record_size */
	__u32 max_entries;	/* 1 .. max_entries */
	__u32 table_id;		/* out: nonzero id within this file */
};

/* KSLOT_IOC_DESTROY: destroy a table and all its entries. */
struct kslot_destroy {
	__u32 size;
	__u32 flags;
	__u32 table_id;
	__u32 __reserved;
};

/*
 * KSLOT_IOC_INSERT: copy a record in, return its new handle.
 * KSLOT_IOC_GET:    copy the record of a handle out.
 * KSLOT_IOC_UPDATE: replace the record of a handle (the handle stays).
 * KSLOT_IOC_ERASE:  erase the entry; record_size and record_ptr must be 0.
 */
struct kslot_entry {
	__u32 size;
	__u32 flags;
	__u32 table_id;
	__u32 record_size;	/* must equal the table's record size */
	__u64 handle;		/* out for INSERT, in for the others */
	__u64 record_ptr;	/* user buffer of record_size bytes */
};

/*
 * KSLOT_IOC_INSERT_BATCH: records_ptr[count] in, handles_ptr[count] out.
 * KSLOT_IOC_GET_BATCH:    handles_ptr[count] in, records_ptr[count] out.
 * KSLOT_IOC_ERASE_BATCH:  handles_ptr[count] in; record_size and
 *                         records_ptr must be 0.
 *
 * Entries are processed in order.  On success the command returns 0 and
 * done == count.  If entry i fails, entries 0 .. i-1 stay done, done is
 * set to i, and the command fails with entry i's errno; nothing of entry
 * i or later is changed.  A count of 0 does nothing and succeeds (the
 * pointers are not read).  count > max_batch is -EINVAL.
 *
 * done is written back on failure as on success, whatever the entry's
 * errno (-EFAULT on an entry's handle or record included).  The kernel
 * writes 0 to done before it processes any entry, so a struct that cannot
 * be written fails with -EFAULT and nothing done.  Only if the struct
 * itself stops being writable during the command (another thread unmaps
 * or write-protects it) is done lost (-EFAULT); the entries done can
 * still be told from the arrays: INSERT_BATCH writes 0 to handles_ptr[i]
 * before entry i and its handle after it (an entry whose handle cannot
 * be written is taken back), so with the array zeroed beforehand the
 * entries done are its leading nonzero handles; ERASE_BATCH's done
 * entries are those whose handle now gets -ENOENT; GET_BATCH changes
 * nothing.
 */
struct kslot_batch {
	__u32 size;
	__u32 flags;
	__u32 table_id;
	__u32 record_size;
	__u32 count;
	__u32 done;		/* out */
	__u64 handles_ptr;	/* __u64 array */
	__u64 records_ptr;	/* count * record_size bytes */
};

#define KSLOT_CURSOR_END	(~0ULL)

/*
 * KSLOT_IOC_ITERATE: list entries a page at a time.
 *
 * Start with cursor = 0; each call returns up to max entries (count, out)
 * and advances cursor, which is KSLOT_CURSOR_END once the table is done.
 * A call scans a bounded number of slots, so it may return fewer than max
 * entries, or none, before the end: only KSLOT_CURSOR_END ends the walk.
 * The cursor is a position in the table's slot order, which entries never
 * change, so entries erased or inserted between calls do not disturb the
 * walk: no entry is returned twice, and no entry that survives the whole
 * walk is skipped.  records_ptr may be 0 (with record_size 0) to list
 * handles only.
 */
struct kslot_iterate {
	__u32 size;
	__u32 flags;
	__u32 table_id;
	__u32 record_size;
	__u64 cursor;		/* in/out */
	__u32 max;		/* capacity of the arrays, 1 .. max_batch */
	__u32 count;		/* out */
	__u64 handles_ptr;
	__u64 records_ptr;
};

/* KSLOT_IOC_STATS: counters of one table, or of the file (table_id 0). */
struct kslot_stats {
	__u32 size;
	__u32 flags;
	__u32 table_id;		/* 0 for the whole file */
	__u32 kind;		/* out; 0 for the file */
	__u32 record_size;	/* out; 0 for the file */
	__u32 tables;		/* out: tables (1 for a table) */
	__u64 entries;		/* out: live entries */
	__u64 capacity;		/* out: slots allocated */
	__u64 max_entries;	/* out: capacity limit (sum for the file) */
	/*
	 * out: bytes charged against max_bytes for what the tables take
	 * now (not memory they freed that waits for a grace period); for
	 * the file, with the file itself, the 4 KiB buffer it keeps while
	 * it has a table and the buffers its commands hold now
	 */
	__u64 bytes;
	__u64 retired;		/* out: slots retired for good */
	__u64 rejected;		/* out: nonzero handles naming no live entry */
};

/* Slot states in struct kslot_dump_slot. */
enum kslot_slot_state {
	KSLOT_SLOT_FREE = 0,
	KSLOT_SLOT_LIVE = 1,
	KSLOT_SLOT_RETIRED = 2,
};

#define KSLOT_DUMP_NONE		(~0U)

struct kslot_dump_slot {
	__u32 index;
	__u32 state;		/* enum kslot_slot_state */
	__u64 gen;		/* raw slot generation */
	__u32 link;		/* free: next free slot; dense live: packed
				 * position; otherwise KSLOT_DUMP_NONE
				 */
	__u32 __reserved;	/* out: 0 */
};

/*
 * KSLOT_IOC_DUMP: a read-only view of a table's internals, for debugging
 * a stale handle: slots start .. start + max - 1 and, for dense tables,
 * the reverse map (packed position -> slot) of positions start .. .
 * Only the caller's own tables can be dumped.
 */
struct kslot_dump {
	__u32 size;
	__u32 flags;
	__u32 table_id;
	__u32 start;
	__u32 max;		/* capacity of the arrays, 1 .. max_batch */
	__u32 count;		/* out: slots returned */
	__u32 nr_slots;		/* out: slots allocated */
	__u32 free_head;	/* out: first free slot or KSLOT_DUMP_NONE */
	__u32 live;		/* out: live entries (packed length) */
	__u32 reverse_count;	/* out: reverse-map entries returned */
	__u64 slots_ptr;	/* struct kslot_dump_slot[max] */
	__u64 reverse_ptr;	/* __u32[max], dense tables; may be 0 */
	__u64 user_handle;	/* in: a handle to decode, or 0 */
	__u64 decoded_gen;	/* out: its generation */
	__u32 decoded_index;	/* out: its slot, or KSLOT_DUMP_NONE */
	__u32 __reserved;	/* out: 0 */
};

/*
 * Checkpoint and restore: KSLOT_IOC_EXPORT writes a table out as an
 * image; KSLOT_IOC_IMPORT recreates it as a new table of the calling file
 * (any open file of /dev/kslot, in any process).  In the new table every
 * handle the image's table had issued names the same record, and every
 * handle that was stale stays stale: the slots come back at their
 * generations (retired slots retired), and the table's tag, seal key and
 * max_entries (which chose the layout of its kernel handles) travel in
 * the image, so the handles need no translation.
 *
 * The seal key in the image is in the clear: the seal is no secret (see
 * Handles above), and an image gives whoever holds it exactly what
 * ITERATE gives the holder of the file.  Tables that share an image's
 * tag and key accept each other's handles: two tables imported from one
 * image, and a table imported into the file that holds the table the
 * image was exported from (a handle of either names, in the other, the
 * entry of the same slot and generation, if that is live).  Otherwise a
 * table imported from an image accepts no handle of the file's other
 * tables.
 *
 * The seal of an imported table.  The image's key is taken as it is, so
 * IMPORT refuses (-EINVAL) a key that does not mix: one of whose three
 * multipliers m, or m's inverse modulo 2^64, has 32 equal bits in a row
 * among bits 1..63 (1, -1 and every m below 2^32 or above 2^64 - 2^32
 * among them).  Why that suffices: a round of the seal (and of its
 * inverse, with the inverse multipliers) multiplies by m, then xors the
 * high half into the low half.  A handle off by one, or with bit j < 32
 * flipped, differs by +-2^j, and after the multiplication by +-2^j * m,
 * whose bits 32..63 are bits 32 - j .. 63 - j of m.  A refused m is
 * exactly one for which, for some j, these are all 0 or all 1: the
 * difference stays within the low half (the key {1, 1, 1} left it in
 * bit 0, so the handles of neighbouring slots differed in bit 0 only).
 * With any accepted key every round carries such a difference into the
 * high half, and its xorshift back into the low half, so no round passes
 * it through unmixed.  A random odd multiplier is refused with a
 * probability below 2^-25; CREATE derives none that is, so every image
 * EXPORT writes passes.
 *
 * What the seal then guarantees for an imported table: with the key of
 * an image EXPORT wrote, what it guarantees a created table (see Handles
 * above; the KUnit suite checks both keys CREATE makes and keys the rule
 * accepts).  With a key written by hand and accepted, a handle off by one
 * or with a bit flipped decodes to another kernel handle, which is
 * refused unless it matches a live slot by chance; the seal being no
 * cryptographic permutation, no bound is promised against a key chosen
 * to make such matches (whoever writes the image can list every handle
 * anyway).  The handles an imported table accepts are exactly those of
 * the slots the image lists as live, at their listed generations.  An
 * image EXPORT wrote sets no generation back, so a handle stale in the
 * exported table stays stale in the imported one; an image edited to set
 * a slot's generation back makes that slot's old handle of that
 * generation work again in the imported table (only there: IMPORT never
 * changes the exported table).
 *
 * The image, in host byte order, without padding:
 *
 *   struct kslot_image                  the header
 *   nr_slots times, by increasing index:
 *     struct kslot_image_slot           a slot
 *     record_size bytes                 its record, if the slot is live
 *
 * Slots not listed are free at generation 0 (never used); EXPORT lists
 * every other slot.  A live slot
 * has an odd gen, a free one an even gen, a retired one gen 0.
 */
#define KSLOT_IMAGE_MAGIC	0x544c534bU	/* "KSLT" read as a __u32 LE */
/* 2: per-table handle layouts, and a __u64 generation per slot. */
#define KSLOT_IMAGE_VERSION	2

struct kslot_image {
	__u32 magic;		/* KSLOT_IMAGE_MAGIC */
	__u32 version;		/* KSLOT_IMAGE_VERSION */
	__u32 kind;		/* enum kslot_table_kind */
	__u32 record_size;
	__u32 max_entries;
	__u32 tag;		/* the tag of the table's handles */
	__u32 nr_slots;		/* entries of the slot array */
	__u32 live;		/* live slots, and records */
	__u64 seal[3];		/* the handle seal's key (odd multipliers) */
	__u64 __reserved;
};

struct kslot_image_slot {
	__u32 index;
	__u32 state;		/* enum kslot_slot_state */
	__u64 gen;
};

/*
 * KSLOT_IOC_EXPORT: write table table_id as an image into image_ptr, a
 * buffer of buf_size bytes.  image_size (out) receives the image's size.
 * With buf_size 0 the command only does that (and succeeds); with a
 * buf_size below the image's size it fails with -ERANGE and writes only
 * image_size.  The size holds until the table changes.  The image is one
 * instant of the table: the command excludes the file's other commands.
 */
struct kslot_export {
	__u32 size;
	__u32 flags;
	__u32 table_id;
	__u32 __reserved;
	__u64 image_ptr;
	__u64 buf_size;
	__u64 image_size;	/* out */
};

/*
 * KSLOT_IOC_IMPORT: make a new table from the image at image_ptr, of
 * exactly image_size bytes; table_id (out) is its id.  Besides CREATE's
 * errors for the image's kind, record_size and max_entries (-EINVAL,
 * -ENOSPC at max_tables, -EDQUOT if the table, its slots and its records
 * would take the file past max_bytes or its user past max_user_bytes;
 * as for an insert, each is charged before it is allocated, a dense
 * table's packed array included, so IMPORTs running at once cannot
 * together pass a limit):
 *
 *   -EBADMSG     a malformed image: bad magic, image_size not the size
 *                the header implies (truncated, trailing bytes), nr_slots
 *                or live above max_entries, a slot index not above the
 *                previous one (duplicate) or at/above max_entries, an
 *                unknown state, a generation the state cannot have (live
 *                even, free odd, retired nonzero) or the table's handles
 *                cannot carry (above 2^(55 - b) - 1, b the index bits
 *                of max_entries: max(1, ceil(log2(max_entries)))), a
 *                live count not the header's, a tag above 255, an even
 *                seal multiplier, or a nonzero __reserved
 *   -EINVAL      besides CREATE's: a well-formed image whose seal key does
 *                not mix (see "The seal of an imported table" above)
 *   -EPROTONOSUPPORT  an image version this kernel does not read
 *   -EOPNOTSUPP  a known kind this kernel cannot import (see info.kinds
 *                and info.import_kinds)
 *   -EINTR       a fatal signal came during the IMPORT
 *
 * On failure nothing is created.
 */
struct kslot_import {
	__u32 size;
	__u32 flags;
	__u64 image_ptr;
	__u64 image_size;
	__u32 table_id;		/* out */
	__u32 __reserved;
};

#define KSLOT_IOC_INFO		_IO(KSLOT_IOCTL_TYPE, 0x00)
#define KSLOT_IOC_CREATE	_IO(KSLOT_IOCTL_TYPE, 0x01)
#define KSLOT_IOC_DESTROY	_IO(KSLOT_IOCTL_TYPE, 0x02)
#define KSLOT_IOC_INSERT	_IO(KSLOT_IOCTL_TYPE, 0x03)
#define KSLOT_IOC_GET		_IO(KSLOT_IOCTL_TYPE, 0x04)
#define KSLOT_IOC_UPDATE	_IO(KSLOT_IOCTL_TYPE, 0x05)
#define KSLOT_IOC_ERASE		_IO(KSLOT_IOCTL_TYPE, 0x06)
#define KSLOT_IOC_INSERT_BATCH	_IO(KSLOT_IOCTL_TYPE, 0x07)
#define KSLOT_IOC_GET_BATCH	_IO(KSLOT_IOCTL_TYPE, 0x08)
#define KSLOT_IOC_ERASE_BATCH	_IO(KSLOT_IOCTL_TYPE, 0x09)
#define KSLOT_IOC_ITERATE	_IO(KSLOT_IOCTL_TYPE, 0x0a)
#define KSLOT_IOC_STATS		_IO(KSLOT_IOCTL_TYPE, 0x0b)
#define KSLOT_IOC_DUMP		_IO(KSLOT_IOCTL_TYPE, 0x0c)
#define KSLOT_IOC_EXPORT	_IO(KSLOT_IOCTL_TYPE, 0x0d)
#define KSLOT_IOC_IMPORT	_IO(KSLOT_IOCTL_TYPE, 0x0e)

#endif /* _UAPI_LINUX_KSLOT_H */
