// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_arena: bump allocator over a chain of chunks.  See
 * include/linux/kslot_arena.h for the rules.
 *
 * The chain runs from the current chunk (head) back to the oldest one.
 * Chunks become current in increasing sequence order, so a mark names its
 * chunk by sequence number alone and is checked against the chain without
 * ever dereferencing a chunk that may have been freed.
 *
 * KASAN sees each chunk as one kmalloc() object: memory handed out and
 * then reset or rewound stays addressable, so a use after reset is not
 * reported unless the chunk itself was freed.
 */
#include <linux/align.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kslot_arena.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kslot_internal.h"

/* Largest chunk, header included: whatever kmalloc() can serve. */
#define KSLOT_ARENA_MAX_CHUNK	KMALLOC_MAX_SIZE

/**
 * kslot_arena_init() - Initialise an empty arena.
 * @arena: The arena.
 * @chunk_size: Bytes of a standard chunk, header included, from
 *	%KSLOT_ARENA_MIN_CHUNK to KMALLOC_MAX_SIZE; 0 for
 *	%KSLOT_ARENA_DEFAULT_CHUNK.  A request too big for a standard chunk
 *	gets a chunk of its own.
 * @max_size: Limit on the chunk memory the arena may hold, at least
 *	@chunk_size; 0 for no limit.
 * @flags: %KSLOT_ARENA_ACCOUNT or 0.
 *
 * No memory is allocated until the first kslot_arena_alloc().
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if @chunk_size is out of range, @max_size is
 * smaller than a standard chunk, or @flags holds unknown bits.
 */
int kslot_arena_init(struct kslot_arena *arena, size_t chunk_size,
		     size_t max_size, unsigned int flags)
{
	if (!chunk_size)
		chunk_size = KSLOT_ARENA_DEFAULT_CHUNK;
	if (chunk_size < KSLOT_ARENA_MIN_CHUNK ||
	    chunk_size > KSLOT_ARENA_MAX_CHUNK)
		return -EINVAL;
	if (!max_size)
		max_size = SIZE_MAX;
	if (max_size < chunk_size)
		return -EINVAL;
	if (flags & ~KSLOT_ARENA_FLAGS_ALL)
		return -EINVAL;

	memset(arena, 0, sizeof(*arena));
	arena->chunk_size = chunk_size;
	arena->max_size = max_size;
	arena->flags = flags;
	arena->next_seq = 1;
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_arena_init);

static void kslot_arena_free_chunk(struct kslot_arena *arena,
				   struct kslot_arena_chunk *chunk)
{
	arena->footprint -= chunk->alloc_size;
	arena->nr_chunks--;
	kfree(chunk);
}

/*
 * Free the chunks from the head back to (not including) @stop, keeping
 * one standard chunk as the spare if there is none.
 */
static void kslot_arena_release(struct kslot_arena *arena,
				struct kslot_arena_chunk *stop)
{
	struct kslot_arena_chunk *chunk = arena->head;

	while (chunk != stop) {
		struct kslot_arena_chunk *prev = chunk->prev;

		if (!arena->spare && chunk->alloc_size == arena->chunk_size) {
			chunk->prev = NULL;
			arena->spare = chunk;
		} else {
			kslot_arena_free_chunk(arena, chunk);
		}
		chunk = prev;
	}
	arena->head = stop;
}

/**
 * kslot_arena_destroy() - Free every chunk of an arena.
 * @arena: The arena.
 *
 * All memory handed out becomes invalid.  The arena is left empty and may
 * be used again (or initialised again).
 *
 * Context: Any context but NMI.  Caller-serialised.
 */
void kslot_arena_destroy(struct kslot_arena *arena)
{
	kslot_arena_release(arena, NULL);
	if (arena->spare)
		kslot_arena_free_chunk(arena, arena->spare);
	arena->spare = NULL;
	arena->pos = 0;
}
EXPORT_SYMBOL_GPL(kslot_arena_destroy);

/* Offset in @chunk where @size bytes aligned to @align fit, or -1. */
static ssize_t kslot_arena_fit(const struct kslot_arena_chunk *chunk,
			       size_t pos, size_t size, size_t align)
{
	uintptr_t base = (uintptr_t)chunk->data;
	size_t off = ALIGN(base + pos, align) - base;

	if (off > chunk->size || size > chunk->size - off)
		return -1;
	return off;
}

static void kslot_arena_push(struct kslot_arena *arena,
			     struct kslot_arena_chunk *chunk)
{
	chunk->base_used = kslot_arena_used(arena);
	chunk->seq = arena->next_seq++;
	chunk->prev = arena->head;
	arena->head = chunk;
	arena->pos = 0;
}

/*
 * Make a chunk that can hold @size bytes aligned to @align current: the
 * spare if it is big enough, else a new one.  On failure nothing changes.
 */
static int kslot_arena_grow(struct kslot_arena *arena, size_t size,
			    size_t align, gfp_t gfp)
{
	struct kslot_arena_chunk *chunk;
	size_t need, bytes, held;

	/* Room for the worst-case padding, wherever the chunk lands. */
	if (check_add_overflow(size, align - 1, &need))
		return -EINVAL;
	bytes = struct_size(chunk, data, need);
	if (bytes > KSLOT_ARENA_MAX_CHUNK)
		return -EINVAL;
	if (bytes <= arena->chunk_size && arena->spare) {
		chunk = arena->spare;
		arena->spare = NULL;
		kslot_arena_push(arena, chunk);
		return 0;
	}
	bytes = max(bytes, arena->chunk_size);
	/* The spare cannot serve this request; it goes if the limit says so. */
	held = arena->footprint;
	if (arena->spare)
		held -= arena->spare->alloc_size;
	if (bytes > arena->max_size - held)
		return -ENOSPC;

	gfp = kslot_gfp(gfp & ~__GFP_ZERO, arena->flags & KSLOT_ARENA_ACCOUNT);
	if (kslot_should_fail_alloc())
		return -ENOMEM;
	chunk = kmalloc(bytes, gfp);
	if (!chunk)
		return -ENOMEM;
	chunk->alloc_size = bytes;
	chunk->size = bytes - sizeof(*chunk);
	arena->footprint += bytes;
	arena->nr_chunks++;
	if (arena->spare && arena->footprint > arena->max_size) {
		kslot_arena_free_chunk(arena, arena->spare);
		arena->spare = NULL;
	}
	kslot_arena_push(arena, chunk);
	return 0;
}

/**
 * kslot_arena_alloc() - Allocate memory from an arena.
 * @arena: The arena.
 * @size: Bytes wanted, at least 1.
 * @align: Alignment of the returned memory: a power of two, at most
 *	%KSLOT_ARENA_MAX_ALIGN.
 * @gfp: Allocation flags for a new chunk.  With __GFP_ZERO the returned
 *	memory is zeroed.
 *
 * Bumps the current chunk's offset.  When the request does not fit, the
 * spare chunk or a new one becomes current and the old chunk's tail is
 * left unused.  A request larger than a standard chunk gets a chunk of
 * its own size.
 *
 * Context: Any context @gfp is valid in.  Caller-serialised.
 * Return: The memory, or ERR_PTR(-EINVAL) if @size is 0, larger than a
 * chunk can hold, or @align is invalid; ERR_PTR(-ENOSPC) if a new chunk
 * would take the arena beyond its max_size; ERR_PTR(-ENOMEM) if the new
 * chunk could not be allocated.  On failure the arena is unchanged.
 */
void *kslot_arena_alloc(struct kslot_arena *arena, size_t size, size_t align,
			gfp_t gfp)
{
	ssize_t off = -1;
	size_t used;
	void *p;
	int ret;

	if (!size || !is_power_of_2(align) || align > KSLOT_ARENA_MAX_ALIGN)
		return ERR_PTR(-EINVAL);
	if (arena->head)
		off = kslot_arena_fit(arena->head, arena->pos, size, align);
	if (off < 0) {
		ret = kslot_arena_grow(arena, size, align, gfp);
		if (ret)
			return ERR_PTR(ret);
		off = kslot_arena_fit(arena->head, 0, size, align);
		if (WARN_ON_ONCE(off < 0))
			return ERR_PTR(-EINVAL);
	}
	p = arena->head->data + off;
	arena->pos = off + size;
	used = kslot_arena_used(arena);
	if (used > arena->high_water)
		arena->high_water = used;
	if (gfp & __GFP_ZERO)
		memset(p, 0, size);
	return p;
}
EXPORT_SYMBOL_GPL(kslot_arena_alloc);

/**
 * kslot_arena_mark() - Remember the arena's current position.
 * @arena: The arena.
 * @mark: Filled with the position.
 *
 * Context: Any context.  Caller-serialised.
 */
void kslot_arena_mark(const struct kslot_arena *arena,
		      struct kslot_arena_mark *mark)
{
	mark->seq = arena->head ? arena->head->seq : 0;
	mark->pos = arena->pos;
}
EXPORT_SYMBOL_GPL(kslot_arena_mark);

/**
 * kslot_arena_rewind() - Free everything allocated since a mark.
 * @arena: The arena.
 * @mark: A mark taken on @arena.
 *
 * Chunks that became current after the mark are freed (one standard
 * chunk is kept as the spare) and the next allocation starts where the
 * mark was taken.  Marks nest: rewinding to an outer mark also drops
 * everything after the inner ones.  A mark is no longer valid once the
 * arena was reset, or rewound to an earlier position, and new chunks
 * came into use; such a mark is detected when its chunk is gone or its
 * position lies ahead of the current one.
 *
 * Context: Any context but NMI.  Caller-serialised.
 * Return: 0, or -EINVAL if @mark does not name a position at or before
 * the current one in @arena's chain (the arena is then unchanged).
 */
int kslot_arena_rewind(struct kslot_arena *arena,
		       const struct kslot_arena_mark *mark)
{
	struct kslot_arena_chunk *chunk = arena->head;

	if (!mark->seq) {
		if (mark->pos)
			return -EINVAL;
		kslot_arena_reset(arena);
		return 0;
	}
	while (chunk && chunk->seq > mark->seq)
		chunk = chunk->prev;
	if (!chunk || chunk->seq != mark->seq || mark->pos > chunk->size)
		return -EINVAL;
	if (chunk == arena->head && mark->pos > arena->pos)
		return -EINVAL;
	kslot_arena_release(arena, chunk);
	arena->pos = mark->pos;
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_arena_rewind);

/**
 * kslot_arena_reset() - Free everything allocated from an arena.
 * @arena: The arena.
 *
 * Every chunk is freed except one standard chunk, kept as the spare for
 * the next allocation.  kslot_arena_destroy() frees that one too.
 *
 * Context: Any context but NMI.  Caller-serialised.
 */
void kslot_arena_reset(struct kslot_arena *arena)
{
	kslot_arena_release(arena, NULL);
	arena->pos = 0;
}
EXPORT_SYMBOL_GPL(kslot_arena_reset);

/**
 * kslot_arena_stats() - Read an arena's counters.
 * @arena: The arena.
 * @st: Filled with the counters.
 *
 * Context: Any context.  Caller-serialised.
 */
void kslot_arena_stats(const struct kslot_arena *arena,
		       struct kslot_arena_stats *st)
{
	st->used = kslot_arena_used(arena);
	st->high_water = arena->high_water;
	st->footprint = arena->footprint;
	st->max_size = arena->max_size;
	st->chunks = arena->nr_chunks;
}
EXPORT_SYMBOL_GPL(kslot_arena_stats);

/**
 * kslot_arena_frames_init() - Initialise a two-frame arena helper.
 * @frames: The helper.
 * @chunk_size: Standard chunk size of each frame's arena, as for
 *	kslot_arena_init().
 * @max_size: Limit of each frame's arena, as for kslot_arena_init().
 * @flags: As for kslot_arena_init().
 *
 * Context: Any context.
 * Return: 0, or -EINVAL as kslot_arena_init().
 */
int kslot_arena_frames_init(struct kslot_arena_frames *frames,
			    size_t chunk_size, size_t max_size,
			    unsigned int flags)
{
	int ret;

	ret = kslot_arena_init(&frames->frame[0], chunk_size, max_size, flags);
	if (ret)
		return ret;
	/* Same arguments: cannot fail once the first one succeeded. */
	kslot_arena_init(&frames->frame[1], chunk_size, max_size, flags);
	frames->cur = 0;
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_arena_frames_init);

/**
 * kslot_arena_frames_destroy() - Free both frames' memory.
 * @frames: The helper.
 *
 * Context: Any context but NMI.  Caller-serialised.
 */
void kslot_arena_frames_destroy(struct kslot_arena_frames *frames)
{
	kslot_arena_destroy(&frames->frame[0]);
	kslot_arena_destroy(&frames->frame[1]);
}
EXPORT_SYMBOL_GPL(kslot_arena_frames_destroy);

/**
 * kslot_arena_frames_swap() - Start a new frame.
 * @frames: The helper.
 *
 * The current arena becomes last frame's arena, whose data stays valid
 * for one more frame.  The arena of the frame before that is reset and
 * becomes current.
 *
 * Context: Any context but NMI.  Caller-serialised.
 * Return: The new frame's arena (now empty).
 */
struct kslot_arena *kslot_arena_frames_swap(struct kslot_arena_frames *frames)
{
	frames->cur ^= 1;
	kslot_arena_reset(&frames->frame[frames->cur]);
	return &frames->frame[frames->cur];
}
EXPORT_SYMBOL_GPL(kslot_arena_frames_swap);
