/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot generational handles: the u64 every kslot table issues.
 *
 * A handle packs a slot index, the table's tag and the slot's generation
 * in the table's format, which the table chooses at init from its
 * max_entries and flags (the top of kslot_slots.h has both formats and
 * what a table of each size gets).  Take a handle apart only with the
 * table's own accessors (kslot_slots_handle_index() and its kin): no
 * layout is common to all tables.  The default, 64-bit format:
 *
 *  63 62                  b+8 b+7        b b-1            0
 * +--+----------------------+------------+----------------+
 * |1 | generation (55 - b)  |  tag (8)   |   index (b)    |
 * +--+----------------------+------------+----------------+
 *
 * - index:      the slot, in the b = kslot_index_bits(max_entries) bits
 *               the table's max_entries needs.
 * - tag:        eight bits chosen at random when the table is created, so
 *               a handle issued by another table is rejected unless the
 *               bits at this table's tag position equal its tag
 *               (probability 1/256 per pair of tables).
 * - generation: a per-slot counter.  It is odd while the slot is live and
 *               even while it is free; each alloc and each erase adds one.
 *               Handles therefore always carry an odd generation.  It has
 *               every bit the index and tag leave, but bit 63.
 * - bit 63:     set in every handle of a 64-bit table
 *               (%KSLOT_HANDLE64_BIT): it keeps them apart from 32-bit
 *               handles, which are below 2^31.
 *
 * Rules:
 *
 * - The value 0 is never a valid handle (its generation, 0, is even), so
 *   zeroed memory is a null handle.  KSLOT_HANDLE_NULL names it.
 * - A slot of a 64-bit table serves 2^(54 - b) allocations.  When the
 *   erase of a live slot would wrap its generation back to zero, the slot
 *   is retired: it never goes back on the free list and is counted.  A
 *   stale handle can therefore never match again, however old it is, and
 *   a table serves max_entries * 2^(54 - b) allocations, at least 2^53
 *   whatever its size, before its last slot retires.
 * - A handle from another table of the same kind is accepted only if its
 *   tag matches (1/256) *and* its index and generation name a live slot.
 */
#ifndef _LINUX_KSLOT_HANDLE_H
#define _LINUX_KSLOT_HANDLE_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/random.h>
#include <linux/types.h>

#define KSLOT_HANDLE_NULL	0ULL
#define KSLOT_TAG_BITS		8
#define KSLOT_TAG_MASK		(BIT(KSLOT_TAG_BITS) - 1)
/* The largest max_entries of a table, and the largest index of any. */
#define KSLOT_MAX_ENTRIES	BIT(24)
#define KSLOT_INDEX_MAX		(KSLOT_MAX_ENTRIES - 1)
/* Set in every handle of a 64-bit table, and in no 32-bit handle. */
#define KSLOT_HANDLE64_BIT	BIT_ULL(63)

/**
 * kslot_index_bits() - Index bits of a table's handles.
 * @max_entries: The table's max_entries, 1 .. %KSLOT_MAX_ENTRIES.
 *
 * Just enough for @max_entries, and at least one (a table has at least
 * two slots); the same in both formats.
 *
 * Context: Any context.
 * Return: max(1, order_base_2(@max_entries)): the bits of
 * @max_entries - 1, or of 1 if that is 0.
 */
static inline u32 kslot_index_bits(u32 max_entries)
{
	return fls64((max_entries - 1) | 1);
}

/**
 * kslot_gen_bits() - Generation bits of a table's handles.
 * @max_entries: The table's max_entries, 1 .. %KSLOT_MAX_ENTRIES.
 * @handle32: The table issues 32-bit handles (%KSLOT_SLOTS_HANDLE32).
 *
 * What the index (and, in the 64-bit format, the tag and bit 63) leave:
 * a slot serves 2^(bits - 1) allocations per cycle of its generation.
 *
 * Context: Any context.
 * Return: 55 - b for a 64-bit table, 31 - b for a 32-bit one, b being
 * kslot_index_bits(@max_entries).
 */
static inline u32 kslot_gen_bits(u32 max_entries, bool handle32)
{
	return (handle32 ? 31 : 63 - KSLOT_TAG_BITS) -
	       kslot_index_bits(max_entries);
}

/**
 * kslot_gen_is_live() - Does a generation mark a live slot?
 * @gen: A slot or handle generation.
 *
 * Context: Any context.
 * Return: true if @gen is odd.
 */
static inline bool kslot_gen_is_live(u64 gen)
{
	return gen & 1;
}

/**
 * kslot_random_tag() - Choose a tag for a new table.
 *
 * Context: Any context.
 * Return: A random tag in 0 .. %KSLOT_TAG_MASK.
 */
static inline u32 kslot_random_tag(void)
{
	return get_random_u32() & KSLOT_TAG_MASK;
}

/*
 * The body of KSLOT_DEFINE_HANDLE() and KSLOT_DEFINE_HANDLE32(): @type is
 * the struct's name, @raw_type its member's type.
 */
#define __KSLOT_DEFINE_HANDLE(type, raw_type)				\
struct type {								\
	raw_type raw;							\
};									\
static inline u64 type##_raw(struct type h)				\
{									\
	return h.raw;							\
}									\
static inline struct type type##_from_raw(u64 raw)			\
{									\
	return (struct type){ .raw = raw };				\
}									\
static inline bool type##_is_null(struct type h)			\
{									\
	return !h.raw;							\
}

/**
 * KSLOT_DEFINE_HANDLE() - Define a handle type of its own for one table.
 * @name: Name of the struct and prefix of its helpers.
 *
 * Defines ``struct name { u64 raw; }`` and three inline helpers:
 * ``u64 name_raw(struct name h)`` (the handle to pass to the table's
 * functions), ``struct name name_from_raw(u64 raw)`` (wrap a handle the
 * table issued) and ``bool name_is_null(struct name h)``.  A driver
 * defines one handle type per table type and takes it in its own
 * wrappers, so a handle of one table passed where another's is expected
 * does not compile (what Rust slotmap's new_key_type! gives).  The struct
 * is as big as the handle and is passed in a register.
 *
 * Example, with the error the compiler gives::
 *
 *	KSLOT_DEFINE_HANDLE(ctx_handle);
 *	KSLOT_DEFINE_HANDLE(buf_handle);
 *
 *	struct buf *buf_get(struct kslot_map *bufs, struct buf_handle h);
 *
 *	struct ctx_handle c = ctx_handle_from_raw(h);
 *	buf_get(&bufs, c);
 *	// error: incompatible type for argument 2 of 'buf_get'
 */
#define KSLOT_DEFINE_HANDLE(name)	__KSLOT_DEFINE_HANDLE(name, u64)

/**
 * KSLOT_DEFINE_HANDLE32() - Define a 32-bit handle type for one table.
 * @name: Name of the struct and prefix of its helpers.
 *
 * As KSLOT_DEFINE_HANDLE(), for a table of 32-bit handles
 * (%KSLOT_SLOTS_HANDLE32): ``struct name { u32 raw; }``, half the size.
 * ``name_raw()`` still returns the u64 the table's functions take, and
 * ``name_from_raw()`` keeps the low 32 bits of its argument, which hold
 * all of a 32-bit handle (they are below 2^31); use it for no other
 * table's handles.
 */
#define KSLOT_DEFINE_HANDLE32(name)	__KSLOT_DEFINE_HANDLE(name, u32)

#endif /* _LINUX_KSLOT_HANDLE_H */
