/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot generational handles: the u64 every kslot table issues.
 *
 * A handle packs a slot index, the table's tag and the slot's generation.
 * A table chooses its format at init from its max_entries and flags: b =
 * kslot_index_bits(max_entries) index bits, the generation in the rest.
 *
 *   64-bit (default):  1 | generation (55 - b) | tag (8) | index (b)
 *   32-bit (%KSLOT_SLOTS_HANDLE32):  0 (33) | generation (31 - b) | index (b)
 *
 * No layout is common to all tables: take a handle apart only with its
 * table's accessors (kslot_slots_handle_index() and its kin).
 *
 * - 0 is never a valid handle (%KSLOT_HANDLE_NULL): a live slot's
 *   generation is odd.  Zeroed memory is a null handle.
 * - The tag is random per table: a handle of another table is accepted
 *   only if the tags match (1/256) and it names a live slot.  32-bit
 *   handles carry no tag and are below 2^31; the two formats never match
 *   each other's tables.
 * - A slot of a 64-bit table serves 2^(54 - b) allocations, then retires
 *   for good: no handle is ever issued twice, and a table serves at least
 *   2^53.  A 32-bit table's slot then waits, so that no handle recurs
 *   within 2^20 allocations of the table (fewer only in a full table),
 *   and starts over (docs/core.rst).
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
 * Context: Any context.
 * Return: max(1, order_base_2(@max_entries)), in either format.
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
 * A slot serves 2^(bits - 1) allocations per cycle of its generation.
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

/* The body of KSLOT_DEFINE_HANDLE() and KSLOT_DEFINE_HANDLE32(). */
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
 * Defines ``struct name { u64 raw; }`` with ``name_raw()`` (the u64 to
 * pass to the table), ``name_from_raw()`` and ``name_is_null()``, so that
 * a handle of one table type passed where another's is expected does not
 * compile (the struct is passed in a register)::
 *
 *	KSLOT_DEFINE_HANDLE(ctx_handle);
 *	KSLOT_DEFINE_HANDLE(buf_handle);
 *
 *	struct buf *buf_lookup(struct kslot_map *bufs, struct buf_handle h);
 *
 *	struct ctx_handle c = ctx_handle_from_raw(h);
 *	buf_lookup(&bufs, c);
 *	// error: incompatible type for argument 2 of 'buf_lookup'
 */
#define KSLOT_DEFINE_HANDLE(name)	__KSLOT_DEFINE_HANDLE(name, u64)

/**
 * KSLOT_DEFINE_HANDLE32() - Define a 32-bit handle type for one table.
 * @name: Name of the struct and prefix of its helpers.
 *
 * As KSLOT_DEFINE_HANDLE(), with ``struct name { u32 raw; }``:
 * ``name_from_raw()`` keeps the low 32 bits, so use it only for the
 * handles of a table of %KSLOT_SLOTS_HANDLE32.
 */
#define KSLOT_DEFINE_HANDLE32(name)	__KSLOT_DEFINE_HANDLE(name, u32)

#endif /* _LINUX_KSLOT_HANDLE_H */
