/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot generational handles: the u64 format shared by every kslot table.
 *
 *  63                              32 31      24 23                     0
 * +----------------------------------+----------+------------------------+
 * |           generation             |   tag    |         index          |
 * +----------------------------------+----------+------------------------+
 *
 * - index:      the slot, 0 .. KSLOT_INDEX_MAX.
 * - tag:        eight bits chosen at random when the table is created, so
 *               a handle issued by another table is rejected unless the
 *               two tags collide (probability 1/256 per pair of tables).
 * - generation: a per-slot counter. It is odd while the slot is live and
 *               even while it is free; each alloc and each erase adds one.
 *               Handles therefore always carry an odd generation.
 *
 * Rules:
 *
 * - The value 0 is never a valid handle (its generation, 0, is even), so
 *   zeroed memory is a null handle.  KSLOT_HANDLE_NULL names it.
 * - A slot is used by at most KSLOT_GEN_REUSES allocations (2^31).  When
 *   the erase of a live slot would wrap its generation back to zero, the
 *   slot is retired: it never goes back on the free list and is counted.
 *   A stale handle can therefore never match again, however old it is.
 * - A handle from another table of the same kind is accepted only if its
 *   tag matches (1/256) *and* its index and generation name a live slot.
 */
#ifndef _LINUX_KSLOT_HANDLE_H
#define _LINUX_KSLOT_HANDLE_H

#include <linux/bits.h>
#include <linux/random.h>
#include <linux/types.h>

#define KSLOT_HANDLE_NULL	0ULL
#define KSLOT_INDEX_BITS	24
#define KSLOT_TAG_BITS		8
#define KSLOT_GEN_SHIFT		32
#define KSLOT_INDEX_MAX		(BIT(KSLOT_INDEX_BITS) - 1)
#define KSLOT_MAX_ENTRIES	BIT(KSLOT_INDEX_BITS)
#define KSLOT_TAG_MASK		(BIT(KSLOT_TAG_BITS) - 1)
/* Allocations one slot can serve before it is retired. */
#define KSLOT_GEN_REUSES	BIT(31)

/**
 * kslot_handle_make() - Pack an index, tag and generation into a handle.
 * @index: Slot index, at most %KSLOT_INDEX_MAX.
 * @tag: Table tag, at most %KSLOT_TAG_MASK.
 * @gen: Live (odd) generation of the slot.
 *
 * Context: Any context.
 * Return: The handle.
 */
static inline u64 kslot_handle_make(u32 index, u32 tag, u32 gen)
{
	return ((u64)gen << KSLOT_GEN_SHIFT) |
	       ((u64)(tag & KSLOT_TAG_MASK) << KSLOT_INDEX_BITS) |
	       (index & KSLOT_INDEX_MAX);
}

/**
 * kslot_handle_index() - Slot index of a handle.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The index bits of @handle.
 */
static inline u32 kslot_handle_index(u64 handle)
{
	return handle & KSLOT_INDEX_MAX;
}

/**
 * kslot_handle_tag() - Table tag of a handle.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The tag bits of @handle.
 */
static inline u32 kslot_handle_tag(u64 handle)
{
	return (handle >> KSLOT_INDEX_BITS) & KSLOT_TAG_MASK;
}

/**
 * kslot_handle_gen() - Generation of a handle.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The generation bits of @handle.
 */
static inline u32 kslot_handle_gen(u64 handle)
{
	return handle >> KSLOT_GEN_SHIFT;
}

/**
 * kslot_gen_is_live() - Does a generation mark a live slot?
 * @gen: A slot or handle generation.
 *
 * Context: Any context.
 * Return: true if @gen is odd.
 */
static inline bool kslot_gen_is_live(u32 gen)
{
	return gen & 1;
}

/**
 * kslot_gen_last_use() - Is this live generation the slot's last?
 * @gen: The live (odd) generation of a slot.
 *
 * Erasing a slot at this generation would wrap it to zero, so the slot
 * must be retired instead.
 *
 * Context: Any context.
 * Return: true if the erase of a slot at @gen must retire it.
 */
static inline bool kslot_gen_last_use(u32 gen)
{
	return gen == U32_MAX;
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
#define __KSLOT_DEFINE_HANDLE(name, type)				\
struct name {								\
	type raw;							\
};									\
static inline u64 name##_raw(struct name h)				\
{									\
	return h.raw;							\
}									\
static inline struct name name##_from_raw(type raw)			\
{									\
	return (struct name){ .raw = raw };				\
}									\
static inline bool name##_is_null(struct name h)			\
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
 * (%KSLOT_SLOTS_HANDLE32): ``struct name { u32 raw; }``, with
 * ``name_from_raw(u32 raw)`` and ``name_raw()`` still returning the u64
 * the table's functions take.  Only a table of 32-bit handles issues
 * handles that fit (they are below 2^31).
 */
#define KSLOT_DEFINE_HANDLE32(name)	__KSLOT_DEFINE_HANDLE(name, u32)

#endif /* _LINUX_KSLOT_HANDLE_H */
