// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk directory: the one way kslot grows storage that lock-free
 * readers index (the slot core's slots; kslot_dense's packed values).
 *
 * Storage lies in chunks of a fixed number of elements that never move.
 * Readers reach them through a directory, struct kslot_dir, published
 * under RCU: element i is in chunk i / per-chunk.  The directory holds
 * the first chunk pointers itself (near), bounded by its nr (acquire,
 * against the release that appends a chunk): a lookup pays one
 * dependent load.  It grows by a power of two of bytes, twice the last,
 * up to 32 KiB (order 3), which a growth in atomic context still gets
 * from a fragmented machine: a directory of every chunk of 2^24 slots
 * would be order 8.  The chunks past a full near part are far, 4096
 * chunk pointers (32 KiB) to a leaf, under an array of leaf pointers
 * sized once for the storage's most chunks (32 KiB at most), bounded by
 * far_nr as the near ones are by nr.  A lookup reaches them out of line
 * (__kslot_dir_far()): two dependent loads more.
 *
 * A growth allocates a chunk and what the directory needs for it (a
 * directory twice as large when the near part is full and may grow, or
 * the far array with the first far chunk, a leaf with every 4096th),
 * with the owner's lock dropped; under the lock it appends the chunk
 * (kslot_dir_append()), which sets the chunk pointer, then the count, or
 * fills the new directory and publishes it.  A replaced directory is
 * freed after a grace period; the chunks stay, owned by the new one.
 * Once the near part is full the directory is never replaced, and the
 * far leaves never move.  Nothing is copied but chunk pointers, so no
 * writer mirrors, waits for a grace period or depends on a worker.
 *
 * Locking: kslot_dir_far() runs under RCU; the rest that reads or
 * changes a directory runs under the owner's lock (or with no writer
 * running, at destroy), and the allocations with it dropped.
 */
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "kslot_internal.h"

/* The most a growth allocates for the directory at once: order 3. */
#define KSLOT_DIR_MAX_BYTES	SZ_32K

/* A leaf is one such allocation at most (exactly, on 64-bit). */
static_assert(KSLOT_DIR_LEAF * sizeof(void *) <= KSLOT_DIR_MAX_BYTES);
/* A far array at its largest: storage of 2^24 chunks of one element. */
static_assert(KSLOT_MAX_ENTRIES / KSLOT_DIR_LEAF <= U16_MAX);

/* Memory a directory takes: its near part, the far array and leaves. */
size_t kslot_dir_bytes(const struct kslot_dir *dir)
{
	size_t bytes = kslot_kvmalloc_bytes(dir, struct_size(dir, chunk,
							     dir->room));
	u32 i;

	if (!dir->far)
		return bytes;
	bytes += kslot_kvmalloc_bytes(dir->far,
				      dir->leaves * sizeof(*dir->far));
	for (i = 0; i < dir->leaves && dir->far[i]; i++)
		bytes += kslot_kvmalloc_bytes(dir->far[i],
					      KSLOT_DIR_MAX_BYTES);
	return bytes;
}

/* Memory of a per-CPU counter (kslot_dir_grow_alloc() with @counter). */
size_t kslot_dir_counter_bytes(void)
{
	return (size_t)num_possible_cpus() * sizeof(u64);
}

/*
 * The room of the directory that replaces a full one of @room chunks (0:
 * the first), for storage of at most @max chunks: twice the memory of
 * the last, a power of two, so kmalloc() wastes none of it, up to
 * KSLOT_DIR_MAX_BYTES; no more than @max chunks.  @room itself if the
 * near part cannot grow.
 */
static u32 kslot_dir_grown_room(u32 room, u32 max)
{
	size_t size = room ?
		2 * roundup_pow_of_two(struct_size_t(struct kslot_dir, chunk,
						     room)) :
		roundup_pow_of_two(struct_size_t(struct kslot_dir, chunk, 1));

	size = min_t(size_t, size, KSLOT_DIR_MAX_BYTES);
	return min_t(size_t, max, (size - offsetof(struct kslot_dir, chunk)) /
				  sizeof(void *));
}

/* The room of the directory of storage of @chunks chunks (0: none). */
u32 kslot_dir_room(u32 chunks, u32 max)
{
	u32 room = 0, next;

	while (room < chunks) {
		next = kslot_dir_grown_room(room, max);
		if (next == room)
			break;
		room = next;
	}
	return room;
}

/*
 * What appending a chunk to storage of @chunks chunks (of @max at most)
 * whose directory has @room near chunks (0: no directory yet) allocates:
 * sets @g's sizes and clears its allocations.
 */
void kslot_dir_need(u32 room, u32 chunks, u32 max, struct kslot_dir_grow *g)
{
	u32 far = chunks - room;

	*g = (struct kslot_dir_grow){};
	if (chunks < room)
		return;
	g->room = kslot_dir_grown_room(room, max);
	if (g->room > room)
		return;
	/* The near part is full at KSLOT_DIR_MAX_BYTES: the chunk is far. */
	g->room = 0;
	if (!far)
		g->leaves = DIV_ROUND_UP(max - room, KSLOT_DIR_LEAF);
	g->add_leaf = !(far % KSLOT_DIR_LEAF);
}

/* kslot_dir_need() for the chunk after those of @dir (NULL: none yet). */
void kslot_dir_prepare(const struct kslot_dir *dir, u32 max,
		       struct kslot_dir_grow *g)
{
	kslot_dir_need(dir ? dir->room : 0, dir ? dir->chunks : 0, max, g);
}

/* Memory what @g sizes takes once allocated (an upper bound). */
size_t kslot_dir_grow_bytes(const struct kslot_dir_grow *g)
{
	size_t bytes = 0;

	if (g->room)
		bytes += kslot_kvmalloc_bytes(NULL,
					      struct_size_t(struct kslot_dir,
							    chunk, g->room));
	if (g->leaves)
		bytes += kslot_kvmalloc_bytes(NULL, g->leaves * sizeof(void *));
	if (g->add_leaf)
		bytes += kslot_kvmalloc_bytes(NULL, KSLOT_DIR_MAX_BYTES);
	return bytes;
}

/* Zeroed memory for a growth, with the owner's lock dropped. */
static void *kslot_dir_zalloc(size_t size, gfp_t gfp)
{
	if (kslot_should_fail_alloc())
		return NULL;
	kslot_test_note_alloc(size);
	/* kvmalloc() may sleep; atomic callers get what kmalloc() can do. */
	if (gfpflags_allow_blocking(gfp))
		return kvzalloc(size, gfp);
	return kzalloc(size, gfp);
}

/* An empty directory of @room near chunks; a zeroed counter if @counter. */
static struct kslot_dir *kslot_dir_alloc(u32 room, bool counter, gfp_t gfp)
{
	struct kslot_dir *dir;

	dir = kslot_dir_zalloc(struct_size(dir, chunk, room), gfp);
	if (!dir)
		return NULL;
	dir->room = room;
	dir->owner = true;
	if (counter) {
		dir->rejected = alloc_percpu_gfp(u64, gfp);
		if (!dir->rejected) {
			kvfree(dir);
			return NULL;
		}
	}
	return dir;
}

/*
 * Allocate what @g sizes, with the owner's lock dropped; @counter: a
 * per-CPU counter with a directory (the first of a slot table).  False
 * if an allocation failed: kslot_dir_grow_discard() frees the others.
 */
bool kslot_dir_grow_alloc(struct kslot_dir_grow *g, bool counter, gfp_t gfp)
{
	if (g->room) {
		g->dir = kslot_dir_alloc(g->room, counter, gfp);
		return g->dir;
	}
	if (g->leaves) {
		g->far = kslot_dir_zalloc(g->leaves * sizeof(*g->far), gfp);
		if (!g->far)
			return false;
	}
	if (g->add_leaf)
		g->leaf = kslot_dir_zalloc(KSLOT_DIR_MAX_BYTES, gfp);
	return !g->add_leaf || g->leaf;
}

/*
 * Free what kslot_dir_grow_alloc() allocated and no append published (a
 * growth that lost a race or failed), with the owner's lock dropped:
 * vfree() may sleep.
 */
void kslot_dir_grow_discard(struct kslot_dir_grow *g)
{
	if (g->dir)
		free_percpu(g->dir->rejected);
	kvfree(g->dir);
	kvfree(g->far);
	kvfree(g->leaf);
}

/* Chunk @c of those set, near or far.  Owner's lock held, or no writer. */
static void *kslot_dir_chunk(const struct kslot_dir *dir, u32 c)
{
	if (c < dir->room)
		return dir->chunk[c];
	c -= dir->room;
	return dir->far[c >> KSLOT_DIR_LEAF_SHIFT][c & (KSLOT_DIR_LEAF - 1)];
}

/**
 * kslot_dir_far() - Element @i of a directory's far part.
 * @dir: A directory, from its owner's RCU-protected pointer.
 * @i: An element index, trusted or not.
 * @shift: Elements per chunk, as a shift.
 * @size: Bytes per element.
 *
 * __kslot_dir_far() out of line: the slow path of kslot_dir_at().
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: As __kslot_dir_far().
 */
void *kslot_dir_far(const struct kslot_dir *dir, unsigned long i, u32 shift,
		    size_t size)
{
	return __kslot_dir_far(dir, i, shift, size);
}
EXPORT_SYMBOL_GPL(kslot_dir_far);

/* After a grace period: the owner takes its chunks, far part and counter. */
static void kslot_dir_free_rcu(struct rcu_head *rcu)
{
	struct kslot_dir *dir = container_of(rcu, struct kslot_dir, rcu);
	u32 i;

	if (dir->owner) {
		for (i = 0; i < dir->chunks; i++)
			kvfree(kslot_dir_chunk(dir, i));
		for (i = 0; dir->far && i < dir->leaves; i++)
			kvfree(dir->far[i]);
		kvfree(dir->far);
		free_percpu(dir->rejected);
	}
	kvfree(dir);
}

/*
 * Free @dir, no longer published, after a grace period, through @acct
 * (or call_rcu()).  A replaced directory goes alone; the owner (the last
 * one, at destroy or reset) takes its far part, and its chunks and
 * counter, which take @owned bytes.  Owner's lock held, or no writer
 * running.
 */
void kslot_dir_free(struct kslot_dir *dir, size_t owned,
		    struct kslot_free_acct *acct)
{
	size_t bytes = kslot_dir_bytes(dir);

	if (dir->owner)
		bytes += owned;
	kslot_free_rcu(acct, &dir->rcu, kslot_dir_free_rcu, bytes);
}

/* Append @chunk to the far part of @dir, whose near part is full. */
static void kslot_dir_append_far(struct kslot_slots *s, struct kslot_dir *dir,
				 struct kslot_dir_grow *g, void *chunk,
				 unsigned long nr)
{
	u32 c = dir->chunks++ - dir->room;

	/* No reader indexes what is set here before the release below. */
	if (g->far) {
		dir->far = g->far;
		dir->leaves = g->leaves;
	}
	if (g->leaf)
		dir->far[c >> KSLOT_DIR_LEAF_SHIFT] = g->leaf;
	dir->far[c >> KSLOT_DIR_LEAF_SHIFT][c & (KSLOT_DIR_LEAF - 1)] = chunk;
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_FAR);
	/* Pairs with __kslot_dir_far(). */
	smp_store_release(&dir->far_nr, nr - dir->nr);
}

/**
 * kslot_dir_append() - Publish a chunk.
 * @s: The table the storage is of: a replaced directory goes to its free
 *	account (none: call_rcu()).
 * @pdir: The owner's RCU pointer to its directory.
 * @cur: The directory it points to (NULL: none yet).
 * @g: What kslot_dir_grow_alloc() allocated, as kslot_dir_prepare() of
 *	@cur sized it; the directory owns it from now on.
 * @chunk: The chunk, fully initialised.
 * @nr: The elements readers may index from now on, near and far.
 *
 * The chunk (and, in a new directory, the chunk pointers; in the far
 * part, the far array and the leaf) before what publishes them: the
 * release of a count, or rcu_assign_pointer().
 *
 * Context: The owner's lock held.
 */
void kslot_dir_append(struct kslot_slots *s, struct kslot_dir __rcu **pdir,
		      struct kslot_dir *cur, struct kslot_dir_grow *g,
		      void *chunk, unsigned long nr)
{
	struct kslot_dir *next = g->dir;

	if (!next && cur->chunks < cur->room) {
		cur->chunk[cur->chunks++] = chunk;
		/* Pairs with kslot_dir_nr(). */
		smp_store_release(&cur->nr, nr);
		return;
	}
	if (!next) {
		kslot_dir_append_far(s, cur, g, chunk, nr);
		return;
	}
	if (cur) {
		memcpy(next->chunk, cur->chunk,
		       cur->chunks * sizeof(*cur->chunk));
		next->chunks = cur->chunks;
		/* The counter moves too (@next was allocated without one). */
		next->rejected = cur->rejected;
	}
	next->chunk[next->chunks++] = chunk;
	next->nr = nr;
	rcu_assign_pointer(*pdir, next);
	if (cur) {
		/* Lookups may still read it: its chunks stay, @next's now. */
		cur->owner = false;
		kslot_dir_free(cur, 0, s->free_acct);
	}
}
