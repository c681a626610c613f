/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_slots: the generational slot core under kslot's handle tables.
 *
 * It owns the slot storage and its growth, the free list, the generations
 * and what happens when they wrap, the per-table tag, the one handle check, the
 * counters (rejected handles included), debugfs and the slot dump.  Each
 * slot stores a pointer; the tables built on it (kslot_map, ...) give the
 * pointer its meaning.
 *
 * Handle formats, chosen per table at init from its max_entries and
 * flags (both are u64 in the API).  Either takes b = kslot_index_bits()
 * = max(1, order_base_2(max_entries)) index bits, just enough for
 * max_entries, and gives the generation every bit the format leaves:
 *
 *  64-bit (default), kslot_handle.h:
 *   63 62               b+8 b+7       b b-1           0
 *  +--+-------------------+-----------+---------------+
 *  |1 | generation        |  tag (8)  |   index (b)   |
 *  |  | (55 - b)          |           |               |
 *  +--+-------------------+-----------+---------------+
 *
 *  32-bit (%KSLOT_SLOTS_HANDLE32), for u32 ids of an existing uAPI:
 *   63         31 30              b b-1           0
 *  +-------------+-----------------+---------------+
 *  |   0 (33)    | generation      |   index (b)   |
 *  |             | (31 - b)        |               |
 *  +-------------+-----------------+---------------+
 *
 * A 64-bit handle has bit 63 set (%KSLOT_HANDLE64_BIT) and a random tag
 * per table.  A 32-bit table has no tag (its tag is 0); its handles are
 * nonzero (a live generation is odd, so bit b is set) and below 2^31, so
 * they fit an xa_limit_31b id and a driver may keep them in a u32.  A
 * slot serves G = 2^(g - 1) allocations per cycle of its generation
 * (half its generations), g being the generation bits
 * (kslot_slots_gen_bits()):
 *
 * +----------------+-------+-----+---------+---------------------------+
 * | format,        | index | gen | G, per  | 64-bit: allocations       |
 * | max_entries    | bits  | bits| slot    | before the table retires; |
 * |                |       |     |         | 32-bit: reuse distance    |
 * +----------------+-------+-----+---------+---------------------------+
 * | 64-bit, 1      | 1     | 54  | 2^53    | 2^53                      |
 * | 64-bit, 256    | 8     | 47  | 2^46    | 2^54                      |
 * | 64-bit, 65536  | 16    | 39  | 2^38    | 2^54                      |
 * | 64-bit, 2^20   | 20    | 35  | 2^34    | 2^54                      |
 * | 64-bit, 2^24   | 24    | 31  | 2^30    | 2^54                      |
 * | 32-bit, 1      | 1     | 30  | 2^29    | 2^29 (G), no lifetime     |
 * | 32-bit, 256    | 8     | 23  | 2^22    | 2^22 (G), no lifetime     |
 * | 32-bit, 65536  | 16    | 15  | 2^14    | 2^20 (D), no lifetime     |
 * | 32-bit, 2^20   | 20    | 11  | 2^10    | 2^20 (D), no lifetime     |
 * | 32-bit, 2^24   | 24    | 7   | 2^6     | 2^20 (D), no lifetime     |
 * +----------------+-------+-----+---------+---------------------------+
 *
 * (a max_entries that is not a power of two takes the bits of the next
 * one).  The remove that would wrap a slot's generation to 0 ends its
 * cycle:
 *
 * - A 64-bit table retires the slot for good: no handle is ever issued
 *   twice.  Once every slot up to max_entries is retired, every
 *   allocation (and kslot_slots_reserve()) returns -ENOSPC for the life
 *   of the table: after max_entries * 2^(54 - b) allocations, at least
 *   2^53 (max_entries 1) and 2^54 for a power of two (docs/core.rst).
 * - A 32-bit table has no lifetime limit.  The slot waits, behind the
 *   slots that began to wait before it, until the table has issued
 *   D - G more allocations (D = %KSLOT_SLOTS_REUSE_DISTANCE, 2^20), then
 *   starts a new cycle at generation 0.  Guarantee: no handle is issued
 *   again within max(G, D) allocations of the table (a slot's first
 *   handle of a cycle was issued G - 1 allocations before its last).
 *   Allocations take a waiting slot that has waited long enough before
 *   they grow the table, so churn does not grow it: its memory follows
 *   the peak live count, plus about D / G waiting slots.  The exception:
 *   a full table (every slot up to max_entries live or waiting, none
 *   waited long enough) hands out the slot that waited longest early
 *   rather than fail, so then the distance is only G plus its wait;
 *   -ENOSPC means every slot is live.  iommufd's table (2^20 entries,
 *   G = 1024): ids repeat no sooner than 2^20 allocations apart, with
 *   1024 slots (16 KiB) for one object created and destroyed forever.
 *
 * Re-initialising a table starts its generations over: a 32-bit table
 * carries no tag to tell its old handles from new ones, so no handle of
 * its previous life may be presented to it.
 *
 * One slot, 16 bytes (g_shift: b + 8 for 64-bit, b for 32-bit; F: bit
 * 63 in a 64-bit table, 0 in a 32-bit one):
 *
 *            word (u64)                          obj (void *)
 *  live:     the whole handle:                   the object (NULL while
 *            F | generation (odd) | tag | index  a placeholder)
 *  free:     F | generation (even) << g_shift |  next free index
 *            index^1
 *  retired:  F | 0 << g_shift | index^1          KSLOT_SLOTS_RETIRED
 *  waiting:  bit 63 | wait start << 32 |         next waiting index
 *            0 << g_shift | index^1              (32-bit tables)
 *
 * Why one compare of the word with the handle suffices (bounds, free and
 * waiting words matching nothing, the formats never mixing, the null
 * handle), and the reasons behind everything below: docs/core.rst.
 *
 * Zero is empty: a zeroed struct kslot_slots (or kslot_map) is a valid
 * empty table of max_entries 0.  Lookups miss, removes and replaces find
 * nothing, allocations fail with -ENOSPC, the stats are zero and destroy
 * does nothing; its lock is never taken (it was never initialised: so do
 * not call kslot_slots_lock() on it).  A table to write to is
 * initialised, or defined with DEFINE_KSLOT_MAP().
 *
 * Rules:
 *
 * +----------------------------+----------------------+--------------------+
 * | operation                  | lock                 | may sleep          |
 * +----------------------------+----------------------+--------------------+
 * | __kslot_slots_lookup(),    | caller: RCU or lock  | no                 |
 * | kslot_slots_read_begin(),  |                      |                    |
 * | kslot_slots_read(),        |                      |                    |
 * | kslot_slots_read_prefetch()|                      |                    |
 * | kslot_slots_read_slot()    |                      |                    |
 * | kslot_slots_lookup(),      | none (takes RCU)     | no                 |
 * | kslot_slots_lookup_get(),  |                      |                    |
 * | kslot_slots_find(),        |                      |                    |
 * | kslot_slots_find_range()   |                      |                    |
 * | kslot_slots_alloc(),       | table lock, dropped  | only if gfp allows |
 * | kslot_slots_alloc_bulk(),  | to allocate and      |                    |
 * | kslot_slots_reserve()      | (bulk: and every     |                    |
 * |                            | %KSLOT_SLOTS_BULK)   |                    |
 * | kslot_slots_replace(),     | table lock           | no                 |
 * | kslot_slots_remove(),      |                      |                    |
 * | kslot_slots_remove_bulk(), | (bulk: dropped every |                    |
 * |                            | %KSLOT_SLOTS_BULK)   |                    |
 * | kslot_slots_replace_if(),  |                      |                    |
 * | kslot_slots_remove_if(),   |                      |                    |
 * | kslot_slots_get_stats(),   |                      |                    |
 * | kslot_slots_dump()         |                      |                    |
 * | __kslot_slots_alloc(),     | caller: table lock   | no (never          |
 * | __kslot_slots_replace(),   | (kslot_slots_lock()) | allocates)         |
 * | __kslot_slots_remove(),    |                      |                    |
 * | __kslot_slots_replace_if(),|                      |                    |
 * | __kslot_slots_remove_if()  |                      |                    |
 * | kslot_slots_destroy()      | caller: no writers;  | if named (debugfs) |
 * |                            | free @s a grace      |                    |
 * |                            | period later         |                    |
 * | kslot_slots_insert_at(),   | table lock, dropped  | only if gfp allows |
 * | kslot_slots_store_at(),    | to grow, as alloc    |                    |
 * | kslot_slots_restore_*()    |                      |                    |
 * | kslot_slots_reset()        | table lock           | no                 |
 * | kslot_slots_restore_done() | table lock, dropped  | yes: reschedules   |
 * |                            | every                | between chunks     |
 * |                            | %KSLOT_SLOTS_WALK    |                    |
 * +----------------------------+----------------------+--------------------+
 *
 * Writers under the lock (the xa_lock() pattern): kslot_slots_lock()
 * takes the table lock as the table's lock flags say; while it is held,
 * __kslot_slots_lookup() and the __ writers may be called, and no other
 * writer changes the table.  The __ writers never allocate memory:
 * __kslot_slots_alloc() uses free slots only, which kslot_slots_reserve()
 * provides beforehand (the idr_preload() / xa_reserve() pattern).
 *
 * Storage: the slots lie in chunks of %KSLOT_SLOTS_CHUNK slots (one page)
 * that never move.  A growth adds a chunk: it allocates it with the lock
 * dropped, then, under the lock, links its slots into the free list and
 * appends it to the table's directory, the one array lookups index
 * (slot i is chunk i / %KSLOT_SLOTS_CHUNK, slot i % %KSLOT_SLOTS_CHUNK).
 * A full directory is replaced by one twice its size holding the same
 * chunk pointers; the old one is freed after a grace period.  Past 32 KiB
 * of directory (4088 chunks) it stays, and the chunks beyond go to its
 * far part, leaves of 4096 chunk pointers, which a lookup reaches out of
 * line (module/kslot_dir.c).  No slot is ever copied, so no writer
 * mirrors, waits for a grace period or depends on a worker.
 *
 * Destroy: once kslot_slots_destroy() returns, new lookups find no table;
 * lookups already in an RCU read-side section finish on the chunks,
 * which are freed after a grace period, and still read @s itself (its
 * directory pointer and handle format).  So @s may be freed or reused
 * (re-initialised) only a grace period after destroy: kfree_rcu(), or
 * after synchronize_rcu(), as the caller would free any RCU-read object.
 *
 * Keyed tables and restore, the storage, its growth and the ordering of
 * writers and readers: docs/core.rst.
 */
#ifndef _LINUX_KSLOT_SLOTS_H
#define _LINUX_KSLOT_SLOTS_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/kslot_handle.h>
#include <linux/kslot_lock.h>
#include <linux/nospec.h>
#include <linux/prefetch.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/*
 * A slot's word is loaded and compared by lock-free readers in one
 * single-copy-atomic 64-bit access (smp_load_acquire() of a u64): kslot
 * needs a 64-bit kernel.  Kconfig says "depends on 64BIT"; this catches
 * an out-of-tree (DKMS) build against a 32-bit kernel.
 */
#ifndef CONFIG_64BIT
#error "kslot needs a 64-bit kernel (CONFIG_64BIT)"
#endif

struct dentry;

/* Writers take the table lock with spin_lock_bh(). */
#define KSLOT_SLOTS_LOCK_BH	KSLOT_LOCK_BH
/* Writers take the table lock with spin_lock_irqsave(). */
#define KSLOT_SLOTS_LOCK_IRQ	KSLOT_LOCK_IRQ
/* Charge the slot tables to the current memcg. */
#define KSLOT_SLOTS_ACCOUNT	BIT(2)
/* Issue 32-bit handles (nonzero, below 2^31): see the top of this file. */
#define KSLOT_SLOTS_HANDLE32	BIT(3)
/*
 * Keyed table: the caller addresses the slots (kslot_slots_insert_at(),
 * kslot_slots_store_at()); no free list, kslot_slots_alloc() refuses.
 */
#define KSLOT_SLOTS_KEYED	BIT(5)
#define KSLOT_SLOTS_FLAGS_ALL	(KSLOT_SLOTS_LOCK_BH | KSLOT_SLOTS_LOCK_IRQ | \
				 KSLOT_SLOTS_ACCOUNT | KSLOT_SLOTS_HANDLE32 | \
				 KSLOT_SLOTS_KEYED)
/*
 * Set by init, never passed to it: the writers' one test before the lock.
 * %KSLOT_SLOTS_F_LOCKED: the table is initialised (its lock is).
 * %KSLOT_SLOTS_F_ALLOC: also, it has a free list to allocate from (it is
 * not keyed).  A zeroed table has neither, so its writers take the slow
 * path, which answers for it without the lock it never initialised.
 */
#define KSLOT_SLOTS_F_LOCKED	BIT(30)
#define KSLOT_SLOTS_F_ALLOC	BIT(31)

/*
 * Slots per chunk: one page of slots.  The last chunk stops at
 * max_entries, so a table of max_entries below this has one chunk of
 * max_entries slots (two for a table of one).
 *
 * Why chunks: a growth adds one and moves nothing, so it costs the same
 * at every size (an allocation of a page and 256 free words linked; a
 * directory twice as large or a far leaf, 32 KiB at most, now and then),
 * and nothing a writer holds, no index, no slot pointer, goes stale.  A
 * lookup pays one dependent load for the directory entry, as the flat
 * floor of the benchmarks does (docs/benchmarks.rst); past the 4088th
 * chunk, two more, out of line.
 */
#define KSLOT_SLOTS_CHUNK	256U
#define KSLOT_SLOTS_CHUNK_SHIFT	8	/* ilog2(KSLOT_SLOTS_CHUNK) */
/* Slots a table of max_entries this or more has after its first growth. */
#define KSLOT_SLOTS_MIN		KSLOT_SLOTS_CHUNK
/*
 * A 32-bit table issues no handle again within this many allocations
 * (but when full: see the top).
 */
#define KSLOT_SLOTS_REUSE_DISTANCE	BIT(20)
/*
 * Slots or values a walk of a whole table handles per hold of its lock:
 * kslot_slots_restore_done(), and kslot_dense_clear() and
 * kslot_dense_retain().
 */
#define KSLOT_SLOTS_WALK	1024U
/* Entries a bulk alloc or remove handles per hold of the table lock. */
#define KSLOT_SLOTS_BULK	32U

/* Free-list link values, in a free slot's object field. */
#define KSLOT_SLOTS_NONE	U32_MAX
#define KSLOT_SLOTS_RETIRED	(U32_MAX - 1)

/*
 * The tag of a keyed table created by kslot_slots_init_tag() without one:
 * the first kslot_slots_insert_at() or kslot_slots_store_at() binds it.
 */
#define KSLOT_SLOTS_TAG_UNBOUND	U32_MAX

/**
 * struct kslot_slot - One slot.
 *
 * Every field is private (the inline lookups read it):
 *
 * - word: The live handle, or the free or retired word (see the top).
 * - obj: The stored pointer of a live slot, the free-list link of a free
 *   one (see the top).
 */
struct kslot_slot {
	/* private: */
	u64 word;
	void *obj;
};

/**
 * struct kslot_dir - A directory of chunks that never move.
 *
 * The one growable storage of kslot that lock-free readers index
 * (module/kslot_dir.c): a slot table's chunks, what a lookup reaches
 * through the table's RCU pointer; kslot_dense's packed values.  Its
 * first chunk pointers are near, in @chunk (32 KiB of directory at
 * most); the rest are far, in leaves of 4096 under @far.  Every field is
 * private:
 *
 * - rcu: Frees the directory a grace period after it is replaced or the
 *   table destroyed.
 * - nr: Elements of the near chunks lookups may index: written with
 *   release after the chunk pointers (under the table lock), read with
 *   acquire by lookups.
 * - rejected: Handles that named no live entry, counted per CPU (the
 *   table's one counter, carried from directory to directory).
 * - far: The far leaves, NULL before the first far chunk: set once, as
 *   each leaf, before @far_nr covers them.
 * - far_nr: Elements of the far chunks lookups may index, as @nr.
 * - chunks: Chunk pointers set, near and far (table lock).
 * - room: Near chunk pointers it has room for.
 * - leaves: Leaf pointers @far has room for.
 * - owner: The chunks, the far leaves and the counter are freed with
 *   this directory (false once a larger one took them over; table lock).
 * - index_mask: A slot table's handle index mask, for the slow path of
 *   its lookups (kslot_slots_read_far()); 0 in kslot_dense's.
 * - chunk: The near chunks.
 */
struct kslot_dir {
	/* private: */
	struct rcu_head rcu;
	unsigned long nr;
	u64 __percpu *rejected;
	void ***far;
	unsigned long far_nr;
	u32 chunks;
	u32 room;
	u32 index_mask;
	u16 leaves;
	bool owner;
	void *chunk[] __counted_by(room);
};

/**
 * kslot_dir_nr() - The elements of a directory's near chunks readers may index.
 * @dir: A directory, from its owner's RCU-protected pointer.
 *
 * The acquire pairs with the release that appends a chunk: the chunk
 * pointers below the count, and their contents, are seen initialised.
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element count, at least 1.
 */
static __always_inline unsigned long kslot_dir_nr(const struct kslot_dir *dir)
{
	/* Pairs with the release in kslot_dir_append(). */
	return smp_load_acquire(&dir->nr);
}

/**
 * kslot_dir_total() - The elements a directory lets readers index.
 * @dir: A directory, from its owner's RCU-protected pointer.
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element count, near and far, at least 1.
 */
static __always_inline unsigned long
kslot_dir_total(const struct kslot_dir *dir)
{
	/* The far count first: once it is not 0 the near one is final. */
	unsigned long far = smp_load_acquire(&dir->far_nr);

	return kslot_dir_nr(dir) + far;
}

/* Chunk pointers in a far leaf of a directory: 32 KiB of them. */
#define KSLOT_DIR_LEAF_SHIFT	12
#define KSLOT_DIR_LEAF		BIT(KSLOT_DIR_LEAF_SHIFT)

/**
 * __kslot_dir_far() - Element @i of a directory's far part.
 * @dir: A directory, from its owner's RCU-protected pointer.
 * @i: An element index, trusted or not.
 * @shift: Elements per chunk, as a shift.
 * @size: Bytes per element.
 *
 * The slow path of a lookup, out of line: kslot_dir_far(), and a slot
 * table's kslot_slots_read_far().  The acquire of the far count pairs
 * with the release in kslot_dir_append(): the far array, the leaf and
 * the chunk an index below it names are seen initialised.  The index is
 * clamped with array_index_nospec().
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element, or NULL if @i is not in the far part readers may
 * index (an index of the near part included).
 */
static __always_inline void *__kslot_dir_far(const struct kslot_dir *dir,
					     unsigned long i, u32 shift,
					     size_t size)
{
	/* Pairs with the release in kslot_dir_append(). */
	unsigned long nr = smp_load_acquire(&dir->far_nr), c;
	/*
	 * The far part starts at the near count, final once the far one is
	 * not 0; below, the subtraction wraps: past @nr too.
	 */
	unsigned long f = i - READ_ONCE(dir->nr);

	if (f >= nr)
		return NULL;
	f = array_index_nospec(f, nr);
	c = f >> shift;
	return dir->far[c >> KSLOT_DIR_LEAF_SHIFT][c & (KSLOT_DIR_LEAF - 1)] +
	       (f & (BIT(shift) - 1)) * size;
}

void *kslot_dir_far(const struct kslot_dir *dir, unsigned long i, u32 shift,
		    size_t size);

/**
 * kslot_dir_at() - Element @i of a directory, near or far.
 * @dir: A directory, from its owner's RCU-protected pointer.
 * @i: An element index, trusted or not.
 * @shift: Elements per chunk, as a shift.
 * @size: Bytes per element.
 *
 * The index is clamped with array_index_nospec() in either part.
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element, or NULL if @i is past those readers may index.
 */
static __always_inline void *kslot_dir_at(const struct kslot_dir *dir,
					  unsigned long i, u32 shift,
					  size_t size)
{
	unsigned long nr = kslot_dir_nr(dir);

	if (likely(i < nr)) {
		i = array_index_nospec(i, nr);
		return dir->chunk[i >> shift] + (i & (BIT(shift) - 1)) * size;
	}
	return kslot_dir_far(dir, i, shift, size);
}

/**
 * kslot_dir_slot() - Slot @i of a slot table's directory's near chunks.
 * @dir: The directory.
 * @i: A slot index below its nr.
 *
 * Context: Caller holds rcu_read_lock() or the table lock.
 * Return: The slot.
 */
static __always_inline struct kslot_slot *
kslot_dir_slot(const struct kslot_dir *dir, unsigned long i)
{
	return (struct kslot_slot *)dir->chunk[i >> KSLOT_SLOTS_CHUNK_SHIFT] +
	       (i & (KSLOT_SLOTS_CHUNK - 1));
}

/**
 * struct kslot_free_acct - Who frees the memory a table stops using.
 * @queue: Call @free(@rcu) after an RCU grace period, as call_rcu()
 *	would, and account for @bytes until then: what the memory @free
 *	frees takes, at the allocator's size.  Called maybe with the table
 *	lock held, in any context the table's writers run in: it must not
 *	sleep.  @free does not sleep either (call_rcu() runs it in softirq
 *	context when a table has no account): @queue may call it from an
 *	RCU callback or from process context.
 *
 * Optional, per table (kslot_slots_set_free_acct()).  Without one a table
 * frees a replaced or destroyed directory and its chunks (and kslot_dense
 * its packed array) with call_rcu(), which leaves the memory uncounted
 * until the kernel gets round to it.
 */
struct kslot_free_acct {
	void (*queue)(struct kslot_free_acct *acct, struct rcu_head *rcu,
		      rcu_callback_t free, size_t bytes);
};

/**
 * struct kslot_slots - A generational slot table.
 *
 * Every field is private: use the functions below.
 */
struct kslot_slots {
	/* private: */
	/*
	 * Read by every lookup: the directory of the table's chunks (RCU),
	 * NULL before the first growth (and in a zeroed or destroyed
	 * table).  The random tag of this table's handles (0 for 32-bit
	 * handles), and the KSLOT_SLOTS_* flags given at init.  The handle
	 * format: the mask of the index bits, the bit the tag starts at
	 * (the index bits) and the bit the generation starts at (see the
	 * top of this file).  All but @dir are set at init (the format of a
	 * static table at its first growth, under @lock, before its first
	 * directory is published; its @tag then too, or when first read:
	 * __kslot_slots_bind_tag()).
	 */
	struct kslot_dir __rcu *dir;
	u32 tag;
	unsigned int flags;
	u32 index_mask;
	u32 tag_shift;
	u32 gen_shift;
	/*
	 * The same format as masks, for the writers' fast paths: the bits
	 * below the generation (BIT(gen_shift) - 1: index and tag), and the
	 * generation's bits in place.
	 */
	u32 gen_low;
	u64 gen_bits;
	/* Written by writers under @lock: a cache line of their own. */
	spinlock_t lock ____cacheline_aligned_in_smp;
	/* Slots of the table that can hold entries (the directory's nr). */
	u32 capacity;
	/* First free slot, or KSLOT_SLOTS_NONE. */
	u32 free_head;
	/* Live slots, placeholders included (read locklessly). */
	u32 count;
	u32 max_entries;
	/* Slots retired because their generations were used up (64-bit). */
	u32 retired;
	/*
	 * 32-bit tables: allocations issued, modulo 2^32; the slots whose
	 * generations wrapped, waiting in the order they came (oldest
	 * @wait_head, linked as the free list; unused while @waiting is 0).
	 */
	u32 issued;
	u32 waiting;
	u32 wait_head;
	u32 wait_tail;
	/* Debugfs file of a named table, or NULL. */
	struct dentry *debugfs;
	/* Between the first kslot_slots_restore_*() and restore_done(). */
	bool restoring;
	/* Where replaced and destroyed memory goes, or NULL: call_rcu(). */
	struct kslot_free_acct *free_acct;
};

/* The flags a static table may have: the rest need kslot_slots_init(). */
#define KSLOT_SLOTS_STATIC_FLAGS	(KSLOT_SLOTS_LOCK_BH | KSLOT_SLOTS_LOCK_IRQ | \
					 KSLOT_SLOTS_ACCOUNT)

/**
 * KSLOT_SLOTS_INIT() - Initialise a table defined statically.
 * @max: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @fl: %KSLOT_SLOTS_LOCK_BH or %KSLOT_SLOTS_LOCK_IRQ (not both) and
 *	%KSLOT_SLOTS_ACCOUNT, nothing else: 64-bit handles,
 *	not keyed (those need kslot_slots_init(); other bits are dropped).
 *
 * The static initialiser, as XARRAY_INIT() is: the table equals one
 * kslot_slots_init() would leave, but that it has no debugfs file and
 * chooses its handle format (from @max) at its first growth, and draws
 * its random tag at its first growth or kslot_slots_tag(), whichever
 * comes first.  Its lock is a static lock:
 * lockdep gives it a class of its own (keyed by its address).
 */
#define KSLOT_SLOTS_INIT(max, fl) {					\
	.tag = KSLOT_SLOTS_TAG_UNBOUND,					\
	.flags = KSLOT_SLOTS_F_LOCKED | KSLOT_SLOTS_F_ALLOC |		\
		 ((fl) & KSLOT_SLOTS_STATIC_FLAGS),			\
	.lock = __SPIN_LOCK_UNLOCKED(kslot_slots.lock),			\
	.free_head = KSLOT_SLOTS_NONE,					\
	.max_entries = (max),						\
}

/**
 * struct kslot_slots_stats - A snapshot of a table's counters.
 * @count: Live entries, placeholders included.
 * @capacity: Slots allocated so far.
 * @max_entries: Capacity limit.
 * @retired: Slots retired for good (64-bit tables).
 * @waiting: Slots whose generations wrapped, waiting to start over
 *	(32-bit tables).
 * @rejected: Nonzero handles that named no live entry: of lookups,
 *	replaces and removes (and their _if forms), once the table has
 *	grown (a table with no chunk counts nothing).
 * @bytes: Memory the slot storage takes, at the allocator's size: the
 *	directory, the chunks and the per-CPU counter.  A replaced
 *	directory is not counted (it is freed after a grace period).
 * @grow_bytes: Memory the next growth would allocate (an upper bound); 0
 *	if the table cannot grow.
 */
struct kslot_slots_stats {
	u32 count;
	u32 capacity;
	u32 max_entries;
	u32 retired;
	u32 waiting;
	u64 rejected;
	u64 bytes;
	u64 grow_bytes;
};

/**
 * struct kslot_slots_dump_slot - One slot as kslot_slots_dump() shows it.
 * @obj: The stored pointer (NULL unless live).
 * @gen: The slot's generation (0 for a retired or waiting one).
 * @next: Next free slot (or %KSLOT_SLOTS_NONE) of a free slot, next
 *	waiting slot of a waiting one (32-bit tables), %KSLOT_SLOTS_RETIRED
 *	for a retired one, %KSLOT_SLOTS_NONE if live.
 */
struct kslot_slots_dump_slot {
	void *obj;
	u64 gen;
	u32 next;
};

/**
 * struct kslot_slots_dump - A snapshot of part of a table.
 * @slots: Caller-allocated array receiving the slots.
 * @capacity: Slots allocated in the table.
 * @free_head: First free slot or %KSLOT_SLOTS_NONE.
 * @count: Live entries.
 * @returned: Slots written to @slots.
 */
struct kslot_slots_dump {
	struct kslot_slots_dump_slot *slots;
	u32 capacity;
	u32 free_head;
	u32 count;
	u32 returned;
};

int __kslot_slots_init(struct kslot_slots *s, const char *kind,
		       const char *name, u32 max_entries, unsigned int flags,
		       struct lock_class_key *keys);

/**
 * kslot_slots_init() - Initialise a table, its lock in the caller's class.
 * @s: The table.
 * @kind: As __kslot_slots_init().
 * @name: As __kslot_slots_init().
 * @max_entries: As __kslot_slots_init().
 * @flags: As __kslot_slots_init().
 *
 * __kslot_slots_init() with lockdep classes of this call site, one per
 * lock mode (kslot_lock_classes()).
 *
 * Context: As __kslot_slots_init().
 * Return: As __kslot_slots_init().
 */
#define kslot_slots_init(s, kind, name, max_entries, flags)		\
	__kslot_slots_init(s, kind, name, max_entries, flags,		\
			   kslot_lock_classes())
void kslot_slots_destroy(struct kslot_slots *s,
			 void (*fn)(void *obj, u64 handle, void *data),
			 void *data);
int kslot_slots_alloc(struct kslot_slots *s, void *obj, u64 *handle,
		      gfp_t gfp);
void *kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj);
void *kslot_slots_remove(struct kslot_slots *s, u64 handle);
int kslot_slots_alloc_bulk(struct kslot_slots *s, void *const *objs, u32 nr,
			   u64 *handles, gfp_t gfp);
u32 kslot_slots_remove_bulk(struct kslot_slots *s, const u64 *handles,
			    u32 nr, void **objs);
void *kslot_slots_lookup(struct kslot_slots *s, u64 handle);
void *kslot_slots_lookup_get(struct kslot_slots *s, u64 handle,
			     size_t ref_offset,
			     void (*release)(struct kref *ref));
void *kslot_slots_find(struct kslot_slots *s, u32 *index, u64 *handle);
void *kslot_slots_find_range(struct kslot_slots *s, u32 *index, u32 end,
			     u64 *handle);
void kslot_slots_get_stats(struct kslot_slots *s,
			   struct kslot_slots_stats *st);
void kslot_slots_dump(struct kslot_slots *s, u32 start, u32 max,
		      struct kslot_slots_dump *d);
void kslot_slots_count_reject(struct kslot_slots *s, u64 handle);
int kslot_slots_reserve(struct kslot_slots *s, u32 nr, gfp_t gfp);
int __kslot_slots_alloc(struct kslot_slots *s, void *obj, u64 *handle);
void *__kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj);
void *__kslot_slots_remove(struct kslot_slots *s, u64 handle);
int kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			   void *obj);
int __kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			     void *obj);
int kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old);
int __kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old);

/**
 * kslot_slots_lock() - Take a table's writer lock.
 * @s: The table.
 *
 * Takes the lock the way the table's lock flags say (spin_lock(),
 * spin_lock_bh() or spin_lock_irqsave(); see kslot_lock.h).  While it is
 * held, lookups with __kslot_slots_lookup() and the __ writers may be
 * called, and lockdep knows the lock is held.
 *
 * Context: Any context the table's lock flags allow; not with the lock
 * already held.
 * Return: Saved interrupt flags for kslot_slots_unlock().
 */
static __always_inline unsigned long kslot_slots_lock(struct kslot_slots *s)
	__acquires(&s->lock)
{
	return kslot_spin_lock_flags(&s->lock, s->flags);
}

/**
 * kslot_slots_lock_nested() - Take a table's writer lock inside another's.
 * @s: The table.
 * @subclass: The lockdep subclass, 1 .. 7.
 *
 * kslot_slots_lock() for a caller that holds the lock of another table of
 * the same lockdep class (tables initialised at one call site share one,
 * see kslot_lock_classes()), always in the same order.
 *
 * Context: As kslot_slots_lock().
 * Return: Saved interrupt flags for kslot_slots_unlock().
 */
static __always_inline unsigned long
kslot_slots_lock_nested(struct kslot_slots *s, unsigned int subclass)
	__acquires(&s->lock)
{
	return kslot_spin_lock_flags_nested(&s->lock, s->flags, subclass);
}

/**
 * kslot_slots_unlock() - Release a table's writer lock.
 * @s: The table.
 * @irqflags: The value kslot_slots_lock() returned.
 *
 * Context: Caller holds the table lock.
 */
static __always_inline void kslot_slots_unlock(struct kslot_slots *s,
					       unsigned long irqflags)
	__releases(&s->lock)
{
	kslot_spin_unlock_flags(&s->lock, s->flags, irqflags);
}

/**
 * kslot_slots_handle_index() - The slot index bits of a handle.
 * @s: The table whose format applies.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The index bits of @handle in @s's format (not bounded by the
 * table's size).
 */
static __always_inline u32 kslot_slots_handle_index(const struct kslot_slots *s,
						    u64 handle)
{
	return (u32)handle & READ_ONCE(s->index_mask);
}

/**
 * kslot_slots_handle_tag() - The tag bits of a handle.
 * @s: The table whose format applies.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The bits of @handle at @s's tag position, 0 .. %KSLOT_TAG_MASK;
 * 0 for a table of 32-bit handles, which have none.
 */
static inline u32 kslot_slots_handle_tag(const struct kslot_slots *s,
					 u64 handle)
{
	/* A 32-bit table's gen_low is its index mask: no tag bits. */
	return (handle & s->gen_low) >> s->tag_shift;
}

/**
 * kslot_slots_handle_gen() - The generation of a handle.
 * @s: The table whose format applies.
 * @handle: A handle (or a slot's word), valid or not.
 *
 * Context: Any context.
 * Return: The generation bits of @handle in @s's format: odd for a
 * handle the table may have issued.
 */
static inline u64 kslot_slots_handle_gen(const struct kslot_slots *s,
					 u64 handle)
{
	return (handle & s->gen_bits) >> s->gen_shift;
}

/**
 * kslot_slots_gen_bits() - The generation bits of a table's handles.
 * @s: The table, initialised (and grown once, if defined statically).
 *
 * kslot_gen_bits() of its max_entries and format: a slot serves
 * 2^(bits - 1) allocations per cycle of its generation, and a 64-bit
 * table max_entries times that before it retires (the top of this file).
 *
 * Context: Any context.
 * Return: The number of generation bits.
 */
static inline u32 kslot_slots_gen_bits(const struct kslot_slots *s)
{
	return fls64(s->gen_bits) - s->gen_shift;
}

/**
 * kslot_slots_handle_make() - The handle of a slot at a generation.
 * @s: The table whose format and tag apply.
 * @index: The slot, below max_entries.
 * @gen: Its generation, odd and at most the table's largest
 *	(2^kslot_slots_gen_bits() - 1).
 *
 * The handle the table issued (or would issue) for slot @index at
 * generation @gen: what a restore recreates, and what a test forges.
 *
 * Context: Any context.
 * Return: The handle.
 */
static inline u64 kslot_slots_handle_make(const struct kslot_slots *s,
					  u32 index, u64 gen)
{
	u64 f = s->flags & KSLOT_SLOTS_HANDLE32 ? 0 : KSLOT_HANDLE64_BIT;

	return f | (gen << s->gen_shift & s->gen_bits) |
	       (u64)(READ_ONCE(s->tag) & KSLOT_TAG_MASK) << s->tag_shift |
	       (index & s->index_mask);
}

/* Keyed tables and restore: see module/kslot_slots_keyed.c. */
int __kslot_slots_init_tag(struct kslot_slots *s, const char *kind,
			   const char *name, u32 max_entries,
			   unsigned int flags, u32 tag,
			   struct lock_class_key *keys);

/**
 * kslot_slots_init_tag() - Initialise a tagged table, lock in the caller's class.
 * @s: The table.
 * @kind: As __kslot_slots_init_tag().
 * @name: As __kslot_slots_init_tag().
 * @max_entries: As __kslot_slots_init_tag().
 * @flags: As __kslot_slots_init_tag().
 * @tag: As __kslot_slots_init_tag().
 *
 * Context: As __kslot_slots_init_tag().
 * Return: As __kslot_slots_init_tag().
 */
#define kslot_slots_init_tag(s, kind, name, max_entries, flags, tag)	\
	__kslot_slots_init_tag(s, kind, name, max_entries, flags, tag,	\
			       kslot_lock_classes())
int kslot_slots_insert_at(struct kslot_slots *s, u64 handle, void *obj,
			  gfp_t gfp);
void *kslot_slots_store_at(struct kslot_slots *s, u64 handle, void *obj,
			   gfp_t gfp);
int kslot_slots_reset(struct kslot_slots *s, u32 tag);
int kslot_slots_restore_slot(struct kslot_slots *s, u32 index, u64 gen,
			     void *obj, gfp_t gfp);
int kslot_slots_restore_retired(struct kslot_slots *s, u32 index, gfp_t gfp);
void kslot_slots_restore_done(struct kslot_slots *s);

/**
 * __kslot_slots_slot() - The slot an untrusted index names, near part.
 * @dir: A table's directory, from the RCU-protected pointer.
 * @nr: Its near slot count, read with kslot_dir_nr().
 * @index: A slot index from an untrusted handle.
 *
 * The index is clamped with array_index_nospec(): past @nr it becomes 0,
 * whose word cannot match a handle with that index (see the top of this
 * file), so the handle of a far slot takes the slow path
 * (kslot_slots_read_far()).
 *
 * Context: Caller holds rcu_read_lock() or the table lock.
 * Return: The slot to compare the handle with.
 */
static __always_inline const struct kslot_slot *
__kslot_slots_slot(const struct kslot_dir *dir, unsigned long nr,
		   u32 index)
{
	return kslot_dir_slot(dir, array_index_nospec((unsigned long)index, nr));
}

/**
 * struct kslot_slots_reader - A table pinned for a run of lookups.
 *
 * The batch reader, as &struct xa_state is XArray's: kslot_slots_read_begin()
 * loads the published directory once, and each kslot_slots_read()
 * resolves a handle against it with no further load of the table's own
 * fields.  On the caller's stack; no cleanup.
 */
struct kslot_slots_reader {
	/* private: */
	const struct kslot_dir *dir;
	unsigned long nr;
	u32 index_mask;
};

/**
 * kslot_slots_read_begin() - Pin a table for a run of lookups.
 * @r: The reader, on the caller's stack.
 * @s: The table.
 *
 * Slots never move, so each kslot_slots_read() sees its slot as it is
 * when it reads it: never a later occupant of the slot under an old
 * handle.  A growth that publishes meanwhile adds slots the run may not
 * index (it sees the directory's near part as it was at this call, its
 * far part as it is); a run that must see them calls this again.
 *
 * Context: Caller holds rcu_read_lock() (or the table lock) from this call
 * to its last kslot_slots_read().
 */
static __always_inline void kslot_slots_read_begin(struct kslot_slots_reader *r,
						   struct kslot_slots *s)
{
	const struct kslot_dir *dir =
		rcu_dereference_check(s->dir, lockdep_is_held(&s->lock));

	r->dir = dir;
	/* The clamp; read only with a directory (kslot_slots_read()). */
	r->nr = dir ? kslot_dir_nr(dir) : 0;
	/* Ordered after the count's acquire: a static table's is set late. */
	r->index_mask = READ_ONCE(s->index_mask);
}

void kslot_slots_reject(const struct kslot_dir *dir, u64 handle);
void *kslot_slots_read_far(const struct kslot_dir *dir, u64 handle);

/* True, with the object in *@obj, if @slot is live under @handle. */
static __always_inline bool kslot_slot_load(const struct kslot_slot *slot,
					    u64 handle, void **obj)
{
	/* Word, object, word: pairs with the release in the writers. */
	if (unlikely(smp_load_acquire(&slot->word) != handle))
		return false;
	*obj = READ_ONCE(slot->obj);
	smp_rmb(); /* Object before the word re-check. */
	return likely(READ_ONCE(slot->word) == handle);
}

/**
 * kslot_slots_read_slot() - Look up a handle at the slot a prefetch found.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 * @slot: What kslot_slots_read_prefetch() returned for @handle in this run.
 * @handle: A handle, valid or not.
 *
 * kslot_slots_read() with the clamp and the slot's address already done:
 * a run that prefetches pays for them once per handle.  @slot must be
 * the one kslot_slots_read_prefetch() returned for this very @handle: a
 * free slot's word names a neighbouring index, so a forged handle read at
 * any other slot could match a free slot's word.
 *
 * Context: As kslot_slots_read_begin().
 * Return: As kslot_slots_read().
 */
static __always_inline void *
kslot_slots_read_slot(const struct kslot_slots_reader *r,
		      const struct kslot_slot *slot, u64 handle)
{
	void *obj;

	if (kslot_slot_load(slot, handle, &obj))
		return obj;
	/* A slot past the near chunks, or a miss: out of line. */
	return kslot_slots_read_far(r->dir, handle);
}

/**
 * kslot_slots_read() - Look up a handle in a pinned table.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 * @handle: A handle, valid or not.
 *
 * Clamp the index, compare the slot's word with @handle, load the object,
 * compare again: the object returned is the one published under @handle,
 * never a later occupant of the slot.  A miss is counted on this CPU.
 *
 * Context: As kslot_slots_read_begin().
 * Return: The object, or NULL if @handle is not live in the pinned table
 * or is a placeholder.
 */
static __always_inline void *kslot_slots_read(const struct kslot_slots_reader *r,
					      u64 handle)
{
	/* No directory before the first growth (or in a zeroed table). */
	if (unlikely(!r->dir))
		return NULL;
	return kslot_slots_read_slot(r, __kslot_slots_slot(r->dir, r->nr,
				     (u32)handle & r->index_mask), handle);
}

/*
 * A run prefetches the slots of a table of this many slots or more (one
 * beyond the first-level cache), this many handles ahead of the one it
 * reads.
 */
#define KSLOT_SLOTS_PREFETCH_MIN	4096U
#define KSLOT_SLOTS_READ_AHEAD	8U

/**
 * kslot_slots_read_ahead() - How far ahead a run should prefetch.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 *
 * Over a table larger than the first-level cache, a run that prefetches
 * the slot of the handle %KSLOT_SLOTS_READ_AHEAD places ahead of the one
 * it reads (kslot_slots_read_prefetch()) overlaps its cache misses, as
 * kslot_slots_remove_bulk() prefetches its batch.  Over a smaller one the
 * prefetches cost more than they save: a caller tests this once per run
 * and runs a loop without them.
 *
 * Context: As kslot_slots_read_begin().
 * Return: %KSLOT_SLOTS_READ_AHEAD, or 0 for a table of fewer than
 * %KSLOT_SLOTS_PREFETCH_MIN slots.
 */
static __always_inline u32
kslot_slots_read_ahead(const struct kslot_slots_reader *r)
{
	return r->nr >= KSLOT_SLOTS_PREFETCH_MIN ? KSLOT_SLOTS_READ_AHEAD : 0;
}

/**
 * kslot_slots_read_prefetch() - Start loading the slot a handle names.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 * @handle: A handle, valid or not, that the run reads soon.
 *
 * Call it only in a run kslot_slots_read_ahead() allows (there is a
 * table).  The index is clamped as a lookup's is (array_index_nospec():
 * the chunk pointer is loaded before the prefetch, so a mispredicted
 * bound must not reach past the directory), so no handle makes the
 * reader touch memory outside the table; nothing is counted.  Keep the
 * slot returned (a ring of %KSLOT_SLOTS_READ_AHEAD on the stack) and
 * read @handle with kslot_slots_read_slot(): the address is then worked
 * out once.  Use the ring only in a run of more than
 * %KSLOT_SLOTS_READ_AHEAD handles, whose first that many fill it: a read
 * that runs ahead of a mispredicted loop exit then still finds a clamped
 * slot there, never a stale word of the stack.
 *
 * Context: As kslot_slots_read_begin().
 * Return: The slot @handle's clamped index names (slot 0 for an index
 * past the table), only for kslot_slots_read_slot() on @handle in this
 * run.
 */
static __always_inline const struct kslot_slot *
kslot_slots_read_prefetch(const struct kslot_slots_reader *r, u64 handle)
{
	const struct kslot_slot *slot =
		__kslot_slots_slot(r->dir, r->nr, (u32)handle & r->index_mask);

	prefetch(slot);
	return slot;
}

/**
 * __kslot_slots_lookup() - Look up a handle without taking any lock.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * A run of one lookup: kslot_slots_read_begin() then kslot_slots_read().
 *
 * Context: Caller holds rcu_read_lock() or the table lock.
 * Return: The object, or NULL if @handle is not live in @s or is a
 * placeholder.
 * The object stays valid only while the caller stays in the RCU read-side
 * critical section (or holds a reference).
 */
static __always_inline void *__kslot_slots_lookup(struct kslot_slots *s,
						  u64 handle)
{
	struct kslot_slots_reader r;

	kslot_slots_read_begin(&r, s);
	return kslot_slots_read(&r, handle);
}

/**
 * kslot_slots_count() - Number of live entries.
 * @s: The table.
 *
 * Context: Any context.  Lockless; the value may be stale by the time it
 * is used unless the caller excludes writers.
 * Return: Live entries, placeholders included.
 */
static inline u32 kslot_slots_count(const struct kslot_slots *s)
{
	return READ_ONCE(s->count);
}

/*
 * Draw the tag of a table defined statically (KSLOT_SLOTS_INIT()): the
 * first of its first growth and kslot_slots_tag() binds it, the other
 * finds it bound.
 */
static inline u32 __kslot_slots_bind_tag(struct kslot_slots *s)
{
	u32 old = KSLOT_SLOTS_TAG_UNBOUND, tag = kslot_random_tag();

	if (!try_cmpxchg(&s->tag, &old, tag))
		tag = old;
	return tag;
}

/**
 * kslot_slots_tag() - The tag every handle of a table carries.
 * @s: The table.
 *
 * A table defined statically that has not grown yet draws its tag here:
 * its first handle carries it.
 *
 * Context: Any context but NMI (get_random_u32() for an unbound tag).
 * Return: The tag, 0 .. %KSLOT_TAG_MASK; 0 for a table of 32-bit handles,
 * which carry none; %KSLOT_SLOTS_TAG_UNBOUND for a keyed table no insert
 * has bound yet.
 */
static inline u32 kslot_slots_tag(struct kslot_slots *s)
{
	u32 tag = READ_ONCE(s->tag);

	if (unlikely(tag == KSLOT_SLOTS_TAG_UNBOUND) &&
	    (s->flags & KSLOT_SLOTS_F_ALLOC))
		tag = __kslot_slots_bind_tag(s);
	return tag;
}

/**
 * kslot_slots_set_free_acct() - Send the memory a table stops using to an
 *	account.
 * @s: The table, initialised (initialising it clears its account).
 * @acct: The account, or NULL to go back to call_rcu().
 *
 * Every directory the table replaces as it grows, its chunks and
 * directory at destroy or reset, and a kslot_dense table's packed arrays
 * too, then go to @acct->queue(), which must outlive the table's last call.
 *
 * Context: Any context, before the table's first writer.
 */
static inline void kslot_slots_set_free_acct(struct kslot_slots *s,
					     struct kslot_free_acct *acct)
{
	s->free_acct = acct;
}

#endif /* _LINUX_KSLOT_SLOTS_H */
