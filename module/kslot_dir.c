// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk directory: the one way kslot grows storage that lock-free
 * readers index (the slot core's slots; kslot_dense's packed values).
 *
 * Storage lies in chunks of a fixed number of elements that never move.
 * Readers reach them through a directory, struct kslot_dir, published
 * under RCU: element i is in chunk i / per-chunk, and the directory's nr
 * (acquire, against the release that appends a chunk) bounds i.  A
 * growth allocates a chunk, and a directory twice as large when the
 * current one is full, with the owner's lock dropped; under the lock it
 * appends the chunk (kslot_dir_append()), which either sets the next
 * chunk pointer and then nr, or fills the new directory and publishes
 * it.  Each directory takes a power of two of bytes, twice the last,
 * but the last, which holds just the chunks the storage may have
 * (kslot_dir_grown_room()).  A replaced directory is freed after a grace period; the chunks
 * stay, owned by the new one.  Nothing is copied but chunk pointers, so
 * no writer mirrors, waits for a grace period or depends on a worker.
 *
 * Locking: every function but the allocations is called under the
 * owner's lock (or with no writer running, at destroy); the allocations
 * are made with it dropped.
 */
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "kslot_internal.h"

/* Memory a directory takes: @dir's, or one of @room not yet allocated. */
size_t kslot_dir_bytes(const struct kslot_dir *dir, u32 room)
{
	return kslot_kvmalloc_bytes(dir, struct_size(dir, chunk, room));
}

/* Memory of a per-CPU counter (kslot_dir_alloc() with @counter). */
size_t kslot_dir_counter_bytes(void)
{
	return (size_t)num_possible_cpus() * sizeof(u64);
}

/*
 * The room of the directory that replaces a full one of @room chunks (0:
 * the first), for storage of at most @max chunks.  Each takes twice the
 * memory of the last, a power of two, so kmalloc() and vmalloc() waste
 * none of it; the last holds no more than @max.
 */
u32 kslot_dir_grown_room(u32 room, u32 max)
{
	struct kslot_dir *dir;
	size_t size = room ?
		2 * roundup_pow_of_two(struct_size(dir, chunk, room)) :
		roundup_pow_of_two(struct_size(dir, chunk, 1));

	return min_t(size_t, max, (size - offsetof(struct kslot_dir, chunk)) /
				  sizeof(void *));
}

/*
 * The room of the directory that appending a chunk to @dir (NULL: none
 * yet) needs, for storage of at most @max chunks, or 0 if @dir has room.
 */
u32 kslot_dir_next_room(const struct kslot_dir *dir, u32 max)
{
	if (dir && dir->chunks < dir->room)
		return 0;
	return kslot_dir_grown_room(dir ? dir->room : 0, max);
}

/*
 * An empty directory with room for @room chunks, and a zeroed per-CPU
 * counter if @counter (the first directory of a slot table).  Called
 * with the owner's lock dropped.
 */
struct kslot_dir *kslot_dir_alloc(u32 room, bool counter, gfp_t gfp)
{
	struct kslot_dir *dir;
	size_t size = struct_size(dir, chunk, room);

	if (kslot_should_fail_alloc())
		return NULL;
	/* kvmalloc() may sleep; atomic callers get what kmalloc() can do. */
	if (gfpflags_allow_blocking(gfp))
		dir = kvzalloc(size, gfp);
	else
		dir = kzalloc(size, gfp);
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
 * Free a directory that was never published (a growth that lost a
 * race or failed), with the owner's lock dropped: vfree() may sleep.
 */
void kslot_dir_discard(struct kslot_dir *dir)
{
	if (!dir)
		return;
	free_percpu(dir->rejected);
	kvfree(dir);
}

/* After a grace period: the owner takes the chunks and counter with it. */
static void kslot_dir_free_rcu(struct rcu_head *rcu)
{
	struct kslot_dir *dir = container_of(rcu, struct kslot_dir, rcu);
	u32 i;

	if (dir->owner) {
		for (i = 0; i < dir->chunks; i++)
			kvfree(dir->chunk[i]);
		free_percpu(dir->rejected);
	}
	kvfree(dir);
}

/*
 * Free @dir, no longer published, after a grace period, through @acct
 * (or call_rcu()).  A replaced directory goes alone; the owner (the last
 * one, at destroy or reset) takes its chunks and counter, which take
 * @owned bytes.  Owner's lock held, or no writer running.
 */
void kslot_dir_free(struct kslot_dir *dir, size_t owned,
		    struct kslot_free_acct *acct)
{
	size_t bytes = kslot_dir_bytes(dir, dir->room);

	if (dir->owner)
		bytes += owned;
	kslot_free_rcu(acct, &dir->rcu, kslot_dir_free_rcu, bytes);
}

/**
 * kslot_dir_append() - Publish a chunk.
 * @pdir: The owner's RCU pointer to its directory.
 * @cur: The directory it points to (NULL: none yet).
 * @next: A directory from kslot_dir_alloc() of kslot_dir_next_room(@cur),
 *	or NULL if @cur has room.
 * @chunk: The chunk, fully initialised.
 * @nr: The elements readers may index from now on.
 * @acct: Where a replaced directory goes (NULL: call_rcu()).
 *
 * The chunk (and, in a new directory, the chunk pointers) before what
 * publishes them: the release of nr, or rcu_assign_pointer().
 *
 * Context: The owner's lock held.
 */
void kslot_dir_append(struct kslot_dir __rcu **pdir, struct kslot_dir *cur,
		      struct kslot_dir *next, void *chunk, unsigned long nr,
		      struct kslot_free_acct *acct)
{
	if (!next) {
		cur->chunk[cur->chunks++] = chunk;
		/* Pairs with kslot_dir_nr(). */
		smp_store_release(&cur->nr, nr);
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
		kslot_dir_free(cur, 0, acct);
	}
}
