/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_arena: a bump allocator for memory whose pieces die together.
 *
 * Allocation moves an offset forward inside the current chunk; when the
 * chunk is full a new one is chained in front of it.  There is no per
 * allocation bookkeeping and no way to free one allocation: the arena is
 * reset as a whole, or rewound to a mark taken earlier (scoped
 * temporaries).  A two-frame helper keeps this frame's and last frame's
 * arenas, so data built in one frame survives one more.
 *
 * Rules:
 *
 * +---------------------------+--------------------+-------------------+
 * | operation                 | lock               | may sleep         |
 * +---------------------------+--------------------+-------------------+
 * | kslot_arena_init()        | none (no memory)   | no                |
 * | kslot_arena_alloc()       | caller-serialised  | only if gfp       |
 * |                           |                    | allows            |
 * | kslot_arena_mark()        | caller-serialised  | no                |
 * | kslot_arena_rewind(),     | caller-serialised  | no                |
 * | kslot_arena_reset(),      |                    |                   |
 * | kslot_arena_destroy()     |                    |                   |
 * | kslot_arena_stats()       | caller-serialised  | no                |
 * | kslot_arena_frames_*()    | caller-serialised  | as above          |
 * +---------------------------+--------------------+-------------------+
 *
 * - The arena has no lock of its own: like a list_head, every call on one
 *   arena must be serialised by the caller (one owner, or the caller's
 *   lock).  Nothing but kslot_arena_alloc() allocates, and only with the
 *   gfp the caller passes, so an arena may be used from any context whose
 *   gfp it passes.  Chunks are kmalloc() memory, freed with kfree(), so
 *   reset, rewind and destroy are safe in any context but NMI.
 * - Memory returned by kslot_arena_alloc() stays valid until a reset, a
 *   rewind to a mark taken before it, or destroy.
 * - max_size bounds the bytes of chunk memory the arena holds (chunk
 *   headers included, the spare chunk included); an allocation that would
 *   need more fails with -ENOSPC.
 * - reset and rewind keep at most one standard-sized chunk as a spare, so
 *   a frame loop reaches a steady state with no allocation at all.
 */
#ifndef _LINUX_KSLOT_ARENA_H
#define _LINUX_KSLOT_ARENA_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/types.h>

/* Charge the arena's chunks to the current memcg. */
#define KSLOT_ARENA_ACCOUNT	BIT(0)
#define KSLOT_ARENA_FLAGS_ALL	KSLOT_ARENA_ACCOUNT

/* Standard chunk size (header included) when 0 is given. */
#define KSLOT_ARENA_DEFAULT_CHUNK	PAGE_SIZE
/* Smallest standard chunk. */
#define KSLOT_ARENA_MIN_CHUNK		256
/* Largest alignment an allocation may ask for. */
#define KSLOT_ARENA_MAX_ALIGN		PAGE_SIZE

/**
 * struct kslot_arena_chunk - One chunk of an arena.
 *
 * Every member is private:
 *
 * - prev: The chunk allocated before this one, or NULL.
 * - seq: Sequence number, unique for the arena's lifetime; marks name it.
 * - base_used: The arena's used bytes when this chunk became current.
 * - size: Usable bytes in @data.
 * - alloc_size: Bytes allocated for the chunk, header included.
 * - data: The memory handed out.
 */
struct kslot_arena_chunk {
	/* private: */
	struct kslot_arena_chunk *prev;
	u64 seq;
	size_t base_used;
	size_t size;
	size_t alloc_size;
	u8 data[] __aligned(16);
};

/**
 * struct kslot_arena - A bump allocator.
 *
 * Every member is private:
 *
 * - head: The current chunk (newest), or NULL while empty.
 * - pos: Offset of the first free byte in @head's data.
 * - spare: A standard chunk kept by reset or rewind, or NULL.
 * - chunk_size: Bytes of a standard chunk, header included.
 * - max_size: Limit on @footprint.
 * - footprint: Bytes of chunk memory held, spare included.
 * - high_water: Largest used byte count seen since init.
 * - next_seq: Sequence number of the next chunk to become current.
 * - nr_chunks: Chunks held, spare included.
 * - flags: %KSLOT_ARENA_* flags given at init.
 */
struct kslot_arena {
	/* private: */
	struct kslot_arena_chunk *head;
	size_t pos;
	struct kslot_arena_chunk *spare;
	size_t chunk_size;
	size_t max_size;
	size_t footprint;
	size_t high_water;
	u64 next_seq;
	unsigned int nr_chunks;
	unsigned int flags;
};

/**
 * struct kslot_arena_mark - A position to rewind an arena to.
 *
 * Every member is private:
 *
 * - seq: Sequence number of the chunk current when the mark was taken,
 *   or 0 if the arena was empty.
 * - pos: Offset in that chunk.
 */
struct kslot_arena_mark {
	/* private: */
	u64 seq;
	size_t pos;
};

/**
 * struct kslot_arena_stats - A snapshot of an arena's counters.
 * @used: Bytes handed out, alignment padding included, since the last
 *	reset (minus rewound bytes).  The unused tail of a chunk left
 *	behind for a new one is not counted.
 * @high_water: Largest @used seen since init.
 * @footprint: Bytes of chunk memory held, headers and spare included.
 * @max_size: The limit on @footprint.
 * @chunks: Chunks held, spare included.
 */
struct kslot_arena_stats {
	size_t used;
	size_t high_water;
	size_t footprint;
	size_t max_size;
	unsigned int chunks;
};

/**
 * struct kslot_arena_frames - Two arenas used alternately, one per frame.
 *
 * Every member is private:
 *
 * - frame: The two arenas.
 * - cur: Index of this frame's arena in @frame.
 */
struct kslot_arena_frames {
	/* private: */
	struct kslot_arena frame[2];
	unsigned int cur;
};

int kslot_arena_init(struct kslot_arena *arena, size_t chunk_size,
		     size_t max_size, unsigned int flags);
void kslot_arena_destroy(struct kslot_arena *arena);
void *kslot_arena_alloc(struct kslot_arena *arena, size_t size, size_t align,
			gfp_t gfp);
void kslot_arena_mark(const struct kslot_arena *arena,
		      struct kslot_arena_mark *mark);
int kslot_arena_rewind(struct kslot_arena *arena,
		       const struct kslot_arena_mark *mark);
void kslot_arena_reset(struct kslot_arena *arena);
void kslot_arena_stats(const struct kslot_arena *arena,
		       struct kslot_arena_stats *st);

int kslot_arena_frames_init(struct kslot_arena_frames *frames,
			    size_t chunk_size, size_t max_size,
			    unsigned int flags);
void kslot_arena_frames_destroy(struct kslot_arena_frames *frames);
struct kslot_arena *kslot_arena_frames_swap(struct kslot_arena_frames *frames);

/**
 * kslot_arena_used() - Bytes handed out since the last reset.
 * @arena: The arena.
 *
 * Context: Caller-serialised with the arena's other users.
 * Return: Used bytes, alignment padding included.
 */
static inline size_t kslot_arena_used(const struct kslot_arena *arena)
{
	return arena->head ? arena->head->base_used + arena->pos : 0;
}

/**
 * kslot_arena_frame() - This frame's arena.
 * @frames: The two-frame helper.
 *
 * Context: Caller-serialised with the helper's other users.
 * Return: The arena to allocate this frame's data from.
 */
static inline struct kslot_arena *
kslot_arena_frame(struct kslot_arena_frames *frames)
{
	return &frames->frame[frames->cur];
}

/**
 * kslot_arena_prev_frame() - Last frame's arena.
 * @frames: The two-frame helper.
 *
 * Data allocated during the previous frame is still valid here until the
 * next kslot_arena_frames_swap().
 *
 * Context: Caller-serialised with the helper's other users.
 * Return: The arena that was current before the last swap.
 */
static inline struct kslot_arena *
kslot_arena_prev_frame(struct kslot_arena_frames *frames)
{
	return &frames->frame[frames->cur ^ 1];
}

#endif /* _LINUX_KSLOT_ARENA_H */
