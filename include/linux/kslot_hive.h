/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_hive: a bucket array with a jump-counting skipfield.
 *
 * Elements of one fixed size live in groups.  Each group is one page
 * allocation holding a header, bitmaps of its live slots and of its words
 * with erased slots, a u16 skipfield and the elements; groups are chained
 * in iteration order and never move, so a pointer to a live element stays
 * valid until that element is erased.  Erased elements are skipped with
 * the low-complexity jump-counting pattern: each run of erased slots (a
 * skipblock) stores its length in its first and last skipfield node, so
 * stepping to the next or previous live element is a read and an add,
 * never a loop.  kslot_hive_for_each() takes the live slots 64 at a time
 * from the bitmap (a find-first-set per element, no load to wait on) and
 * jumps over the skipblock after each word's last live slot with the
 * skipfield.  A bit per live word marks the words that hold erased slots,
 * and the groups with erased slots are linked, so an insert finds a slot
 * to reuse in O(1) (the group's lowest erased slot) and an erase writes
 * only the group's bitmaps and skipfield, never an element.
 *
 * Rules:
 *
 * +---------------------------+---------------------+------------------+
 * | operation                 | lock                | may sleep        |
 * +---------------------------+---------------------+------------------+
 * | kslot_hive_init()         | none (no memory)    | with SHRINK      |
 * | kslot_hive_insert()       | caller: exclusive   | only if gfp      |
 * | kslot_hive_reserve()      |                     | allows           |
 * | kslot_hive_erase(),       | caller: exclusive   | no               |
 * | kslot_hive_erase_cursor(),|                     |                  |
 * | kslot_hive_insert_at(),   |                     |                  |
 * | kslot_hive_clear(),       |                     |                  |
 * | kslot_hive_trim()         |                     |                  |
 * | kslot_hive_destroy()      | caller: exclusive   | with SHRINK      |
 * | cursors, for_each,        | caller: shared      | no               |
 * | kslot_hive_cursor_at(),   | (no writer running) |                  |
 * | kslot_hive_stats()        |                     |                  |
 * +---------------------------+---------------------+------------------+
 *
 * - The hive has no lock of its own for its elements.  It is a plain data
 *   structure, like an rbtree: writers need exclusive access (the caller's
 *   mutex or spinlock), readers need only exclude writers (e.g. an rwsem,
 *   or the same lock).  Only insert and reserve allocate, with the
 *   caller's gfp; everything else is safe in any context but NMI.
 * - Insert and erase are O(1) (insert amortised: a group that comes into
 *   use clears its skipfield once).  Stepping a cursor forward or
 *   backward is O(1).  kslot_hive_insert_at() is O(length of the erased
 *   run it splits).
 * - A pointer or cursor to a live element stays valid until that element
 *   is erased; inserts and other erases do not move it.
 * - Groups point back to their struct kslot_hive (to reject foreign
 *   pointers), so a hive that holds groups must not be copied or moved.
 * - An element's memory is uninitialised after insert (unless gfp has
 *   __GFP_ZERO); the hive does not write it after erase.  Groups are page
 *   memory outside the slab allocator: KASAN does not see a use after
 *   erase inside a group, only after the group is freed.
 * - With %KSLOT_HIVE_SHRINK, groups emptied beyond max_unused are kept
 *   as spares, reused before any new group is allocated, and freed by the
 *   kslot shrinker under memory pressure (or by kslot_hive_trim()).
 *   kslot_hive_init() and kslot_hive_destroy() of such a hive may sleep;
 *   the shrinker takes only the hive's internal spare lock, never the
 *   caller's.  After kslot_hive_destroy() the hive leaves the shrinker
 *   and frees groups emptied beyond max_unused at once.  A spare group
 *   can be freed at any time, so with %KSLOT_HIVE_SHRINK a stale pointer
 *   into an emptied group is undefined (not -ENOENT).
 * - Without it, a group emptied beyond max_unused is freed at once, and a
 *   stale pointer into it is a pointer into freed pages: the calls that
 *   take an element pointer answer -EINVAL while those pages hold no
 *   group of the hive, and once a new group of the hive lies there the
 *   pointer names one of its slots.  -ENOENT for an emptied group holds
 *   only while the group is kept for reuse (up to max_unused).
 * - A group is 2^order pages (order at most %KSLOT_HIVE_MAX_ORDER) with as
 *   many elements as fit, capped at max_capacity.  The capacity asked of a
 *   new group doubles the hive (it is the hive's capacity so far), clamped
 *   to [min_capacity, max_capacity].
 */
#ifndef _LINUX_KSLOT_HIVE_H
#define _LINUX_KSLOT_HIVE_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>

/* Charge the hive's groups to the current memcg. */
#define KSLOT_HIVE_ACCOUNT	BIT(0)
/* Keep emptied groups beyond max_unused until memory pressure. */
#define KSLOT_HIVE_SHRINK	BIT(1)
#define KSLOT_HIVE_FLAGS_ALL	(KSLOT_HIVE_ACCOUNT | KSLOT_HIVE_SHRINK)

/* Largest group allocation: 2^order pages. */
#define KSLOT_HIVE_MAX_ORDER	PAGE_ALLOC_COSTLY_ORDER
/* Largest group capacity the u16 skipfield can address. */
#define KSLOT_HIVE_MAX_CAPACITY	(U16_MAX - 1)
/* Largest element, after padding. */
#define KSLOT_HIVE_MAX_ELEM	PAGE_SIZE
/* Capacity limits used when the parameters leave them 0. */
#define KSLOT_HIVE_DEFAULT_MIN	8
#define KSLOT_HIVE_DEFAULT_MAX	8192
/* Slots per u64 word of a group's live bitmap. */
#define KSLOT_HIVE_LIVE_BITS	BITS_PER_TYPE(u64)
/* Most slots a group can have: each takes a skipfield node and a byte. */
#define KSLOT_HIVE_MAX_SLOTS						\
	(KSLOT_HIVE_MAX_CAPACITY < (PAGE_SIZE << KSLOT_HIVE_MAX_ORDER) / 3 ?	\
	 KSLOT_HIVE_MAX_CAPACITY : (PAGE_SIZE << KSLOT_HIVE_MAX_ORDER) / 3)
/* Words of a group's erased-word bitmap: a bit per live word. */
#define KSLOT_HIVE_ERASED_WORDS						\
	((KSLOT_HIVE_MAX_SLOTS + KSLOT_HIVE_LIVE_BITS * KSLOT_HIVE_LIVE_BITS - \
	  1) / (KSLOT_HIVE_LIVE_BITS * KSLOT_HIVE_LIVE_BITS))

struct kslot_hive;

/**
 * struct kslot_hive_group - One group: header, live bitmap, skipfield and
 *	elements.
 *
 * Every member is private:
 *
 * - skipfield: Jump-counting skipfield of @capacity nodes.  Nodes -1 and
 *   @capacity exist and are always 0, as are nodes from @last on.
 * - elements: The first element.
 * - hive: The owning hive, to reject pointers from elsewhere.
 * - last: Slots in use, live or erased: elements from @last on were never
 *   handed out.  Equal to @capacity in every group but the back one.
 * - count: Live elements; never 0 while the group is in the active list.
 * - capacity: Elements the group holds.
 * - order: Page order of the group's allocation.
 * - active: The group is in the active (iteration) list.
 * - erased: Bit w is set iff live word w has an erased slot below @last.
 *   In the cache line of the fields an erase reads.
 * - next: Next group in iteration order (or in the unused list).
 * - prev: Previous group in iteration order.
 * - erase_next: Next group with erased slots.
 * - erase_prev: Previous group with erased slots.
 * - live: Bit i is set iff slot i is live (node i is 0 and i < @last):
 *   what kslot_hive_for_each() walks.
 */
struct kslot_hive_group {
	/* private: */
	u16 *skipfield;
	void *elements;
	struct kslot_hive *hive;
	u32 last;
	u32 count;
	u16 capacity;
	u8 order;
	bool active;
	u64 erased[KSLOT_HIVE_ERASED_WORDS];
	struct kslot_hive_group *next;
	struct kslot_hive_group *prev;
	struct kslot_hive_group *erase_next;
	struct kslot_hive_group *erase_prev;
	u64 live[];
};

/**
 * struct kslot_hive_params - How to build a hive.
 * @elem_size: Element size in bytes, at least 1.  Padded to a multiple
 *	of the alignment; at most %KSLOT_HIVE_MAX_ELEM after padding.
 * @align: Element alignment, a power of two up to PAGE_SIZE; 0 for
 *	__alignof__(unsigned long long).
 * @min_capacity: Smallest capacity asked of a new group; 0 for
 *	%KSLOT_HIVE_DEFAULT_MIN.
 * @max_capacity: Largest group capacity, at most
 *	%KSLOT_HIVE_MAX_CAPACITY; 0 for %KSLOT_HIVE_DEFAULT_MAX.  Lowered to
 *	what an order-%KSLOT_HIVE_MAX_ORDER group can hold.
 * @max_unused: Emptied groups kept for reuse; more are freed (with
 *	%KSLOT_HIVE_SHRINK: kept as spares until memory pressure).  Groups
 *	made by kslot_hive_reserve() stay unused, whatever this limit, until
 *	an insert takes them or kslot_hive_trim() frees them.
 * @flags: %KSLOT_HIVE_ACCOUNT, %KSLOT_HIVE_SHRINK, or 0.
 */
struct kslot_hive_params {
	size_t elem_size;
	size_t align;
	u32 min_capacity;
	u32 max_capacity;
	u32 max_unused;
	unsigned int flags;
};

/**
 * struct kslot_hive - A hive of fixed-size elements.
 *
 * Every member is private:
 *
 * - first: First group in iteration order, or NULL when empty.
 * - back: Last group in iteration order: new slots come from its end.
 * - erasures: First group with erased slots, or NULL.
 * - unused: Singly linked (through @next) groups kept for reuse.
 * - elem_size: Element size after padding.
 * - elem_inv: 2^40 / @elem_size + 1: an offset in a group times this,
 *   shifted right by 40, is the offset divided by @elem_size.
 * - align: Element alignment.
 * - min_capacity: Smallest capacity asked of a new group.
 * - max_capacity: Largest group capacity.
 * - max_group_mask: Clears the offset in a group of @max_capacity
 *   elements (aligned to its size) from an address in it.
 * - max_group_elems: Offset of such a group's elements.
 * - max_group_skip: Offset of such a group's skipfield.
 * - max_unused: Emptied groups kept for reuse.
 * - flags: %KSLOT_HIVE_* flags.
 * - count: Live elements.
 * - capacity: Slots in active groups.
 * - unused_capacity: Slots in unused groups.
 * - nr_groups: Active groups.
 * - nr_unused: Unused groups.
 * - bytes: Bytes of group memory held, active and unused (not spare).
 * - spare: Singly linked (through @next) emptied groups beyond
 *   @max_unused, for reuse until the shrinker frees them.
 * - nr_spare: Spare groups.
 * - spare_bytes: Bytes of the spare groups.
 * - spare_capacity: Slots in the spare groups.
 * - spare_lock: Guards @spare and its counters against the shrinker (a
 *   raw lock: taken in any context writers run in).
 * - shrink_node: In the shrinker's list of hives, while @flags has
 *   %KSLOT_HIVE_SHRINK and the hive is not destroyed; else empty.
 */
struct kslot_hive {
	/* private: */
	struct kslot_hive_group *first;
	struct kslot_hive_group *back;
	struct kslot_hive_group *erasures;
	struct kslot_hive_group *unused;
	u64 elem_inv;
	u32 elem_size;
	u32 align;
	u32 min_capacity;
	u32 max_capacity;
	unsigned long max_group_mask;
	u32 max_group_elems;
	u32 max_group_skip;
	u32 max_unused;
	unsigned int flags;
	size_t count;
	size_t capacity;
	size_t unused_capacity;
	size_t nr_groups;
	size_t nr_unused;
	size_t bytes;
	struct kslot_hive_group *spare;
	size_t nr_spare;
	size_t spare_bytes;
	size_t spare_capacity;
	raw_spinlock_t spare_lock;
	struct list_head shrink_node;
};

/**
 * struct kslot_hive_cursor - A position in a hive.
 *
 * Every member is private:
 *
 * - group: The element's group; NULL for a cursor not on an element.
 * - index: The element's index in @group.
 */
struct kslot_hive_cursor {
	/* private: */
	struct kslot_hive_group *group;
	u32 index;
};

/**
 * struct kslot_hive_stats - A snapshot of a hive's counters.
 * @count: Live elements.
 * @capacity: Element slots held, in active, unused and spare groups.
 * @groups: Active groups.
 * @unused_groups: Groups kept for reuse, up to max_unused (or reserved).
 * @spare_groups: Emptied groups beyond max_unused kept until memory
 *	pressure (%KSLOT_HIVE_SHRINK).
 * @bytes: Bytes of group memory held.
 * @elem_size: Element size after padding.
 */
struct kslot_hive_stats {
	size_t count;
	size_t capacity;
	size_t groups;
	size_t unused_groups;
	size_t spare_groups;
	size_t bytes;
	u32 elem_size;
};

int kslot_hive_init(struct kslot_hive *hive,
		    const struct kslot_hive_params *params);
void kslot_hive_destroy(struct kslot_hive *hive,
			void (*fn)(void *elem, void *data), void *data);
void *kslot_hive_insert(struct kslot_hive *hive, gfp_t gfp);
void *kslot_hive_insert_at(struct kslot_hive *hive, void *slot);
int kslot_hive_erase(struct kslot_hive *hive, void *elem);
void *kslot_hive_erase_cursor(struct kslot_hive *hive,
			      struct kslot_hive_cursor *cur);
int kslot_hive_cursor_at(const struct kslot_hive *hive, const void *elem,
			 struct kslot_hive_cursor *cur);
int kslot_hive_reserve(struct kslot_hive *hive, size_t n, gfp_t gfp);
void kslot_hive_trim(struct kslot_hive *hive);
void kslot_hive_clear(struct kslot_hive *hive);
void kslot_hive_stats(const struct kslot_hive *hive,
		      struct kslot_hive_stats *st);

/**
 * kslot_hive_count() - Number of live elements.
 * @hive: The hive.
 *
 * Context: Caller excludes writers.
 * Return: Live elements.
 */
static inline size_t kslot_hive_count(const struct kslot_hive *hive)
{
	return hive->count;
}

/**
 * kslot_hive_cursor_elem() - The element a cursor is on.
 * @hive: The hive.
 * @cur: A cursor on a live element.
 *
 * Context: Caller excludes writers.
 * Return: The element.
 */
static inline void *kslot_hive_cursor_elem(const struct kslot_hive *hive,
					   const struct kslot_hive_cursor *cur)
{
	return cur->group->elements + (size_t)cur->index * hive->elem_size;
}

/**
 * kslot_hive_first() - Put a cursor on the first live element.
 * @hive: The hive.
 * @cur: The cursor.
 *
 * Context: Caller excludes writers.
 * Return: The first element in iteration order, or NULL if the hive is
 * empty (@cur is then not on an element).
 */
static inline void *kslot_hive_first(const struct kslot_hive *hive,
				     struct kslot_hive_cursor *cur)
{
	struct kslot_hive_group *g = hive->first;

	cur->group = g;
	if (!g)
		return NULL;
	/* A run of erased slots at the front stores its length in node 0. */
	cur->index = g->skipfield[0];
	return kslot_hive_cursor_elem(hive, cur);
}

/**
 * kslot_hive_last() - Put a cursor on the last live element.
 * @hive: The hive.
 * @cur: The cursor.
 *
 * Context: Caller excludes writers.
 * Return: The last element in iteration order, or NULL if the hive is
 * empty (@cur is then not on an element).
 */
static inline void *kslot_hive_last(const struct kslot_hive *hive,
				    struct kslot_hive_cursor *cur)
{
	struct kslot_hive_group *g = hive->back;

	cur->group = g;
	if (!g)
		return NULL;
	cur->index = g->last - 1 - g->skipfield[g->last - 1];
	return kslot_hive_cursor_elem(hive, cur);
}

/**
 * kslot_hive_next() - Step a cursor to the next live element.
 * @hive: The hive.
 * @cur: A cursor on a live element.
 *
 * One skipfield read and one add: node i+1 is 0 if element i+1 is live,
 * else the start of a skipblock holding its length.
 *
 * Context: Caller excludes writers.
 * Return: The next element, or NULL at the end (@cur is then unchanged).
 */
static inline void *kslot_hive_next(const struct kslot_hive *hive,
				    struct kslot_hive_cursor *cur)
{
	struct kslot_hive_group *g = cur->group;
	u32 i = cur->index + 1;

	i += g->skipfield[i];
	if (unlikely(i == g->last)) {
		g = g->next;
		if (!g)
			return NULL;
		cur->group = g;
		i = g->skipfield[0];
	}
	cur->index = i;
	return g->elements + (size_t)i * hive->elem_size;
}

/**
 * kslot_hive_prev() - Step a cursor to the previous live element.
 * @hive: The hive.
 * @cur: A cursor on a live element.
 *
 * Context: Caller excludes writers.
 * Return: The previous element, or NULL at the start (@cur is then
 * unchanged).
 */
static inline void *kslot_hive_prev(const struct kslot_hive *hive,
				    struct kslot_hive_cursor *cur)
{
	struct kslot_hive_group *g = cur->group;
	/* Node -1 is a zero sentinel, so i may go to -1 but never below. */
	int i = (int)cur->index - 1;

	i -= g->skipfield[i];
	if (unlikely(i < 0)) {
		g = g->prev;
		if (!g)
			return NULL;
		cur->group = g;
		i = g->last - 1;
		i -= g->skipfield[i];
	}
	cur->index = i;
	return g->elements + (size_t)i * hive->elem_size;
}

/**
 * struct kslot_hive_iter - State of kslot_hive_for_each() (internal).
 *
 * Every member is private:
 *
 * - at: The element the next step returns, if @more.
 * - base: The element of the first slot of @at's word of @group->live.
 * - mask: Live slots of that word after @at (bit k: slot 64 * word + k).
 * - top: The word's last live slot.
 * - more: @at is valid: the walk has not ended.
 * - group: The group of @at.
 * - size: Element size.
 *
 * The walk steps through the group's live bitmap a u64 word at a time
 * (find first set, clear it), so a step does not wait on a load.  When a
 * word holds no more live slots, the walk goes on in the next word if it
 * holds any; else the jump count in the skipfield node after the word's
 * last live slot says where the next live slot is: the walk jumps over
 * that run of erased slots in O(1), however long it is.
 *
 * The walk is kept one element ahead of the element the loop body sees,
 * so the body may erase that element (the erase changes no other slot's
 * bit, and the element ahead keeps its group alive).
 */
struct kslot_hive_iter {
	/* private: */
	void *at;
	void *base;
	u64 mask;
	u32 top;
	bool more;
	struct kslot_hive_group *group;
	size_t size;
};

/* Put @it on live slot @j of @g, or on the next group's first if past. */
static __always_inline void kslot_hive_iter_at(struct kslot_hive_iter *it,
					       struct kslot_hive_group *g,
					       u32 j)
{
	u32 w;
	u64 word;

	if (unlikely(j >= g->last)) {
		g = g->next;
		if (!g) {
			it->more = false;
			return;
		}
		/* A run of erased slots at the front stores its length in node 0. */
		j = g->skipfield[0];
	}
	it->group = g;
	w = j / KSLOT_HIVE_LIVE_BITS;
	word = g->live[w];
	w *= KSLOT_HIVE_LIVE_BITS;
	it->top = w + fls64(word) - 1;
	it->mask = word & (~1ULL << (j - w));
	it->base = g->elements + (size_t)w * it->size;
	it->at = g->elements + (size_t)j * it->size;
}

static __always_inline struct kslot_hive_iter
kslot_hive_iter_init(const struct kslot_hive *hive)
{
	struct kslot_hive_iter it = { .size = hive->elem_size };

	it.more = hive->first;
	if (it.more)
		kslot_hive_iter_at(&it, hive->first, hive->first->skipfield[0]);
	return it;
}

/* Step @it past the element it is on. */
static __always_inline void kslot_hive_iter_next(struct kslot_hive_iter *it)
{
	struct kslot_hive_group *g;
	u32 w, j;
	u64 word;

	if (likely(it->mask)) {
		it->at = it->base + (size_t)__ffs64(it->mask) * it->size;
		it->mask &= it->mask - 1;
		return;
	}
	/* The word is done: the next word, if it has a live slot... */
	g = it->group;
	w = it->top / KSLOT_HIVE_LIVE_BITS + 1;
	w *= KSLOT_HIVE_LIVE_BITS;
	if (likely(w < g->last)) {
		word = g->live[w / KSLOT_HIVE_LIVE_BITS];
		if (likely(word)) {
			it->top = w + fls64(word) - 1;
			it->base = g->elements + (size_t)w * it->size;
			it->at = it->base + (size_t)__ffs64(word) * it->size;
			it->mask = word & (word - 1);
			return;
		}
	}
	/*
	 * ...else jump: @top was the word's last live slot, so node top + 1
	 * is live, or starts a skipblock and holds the jump to the next live
	 * slot, or is node last (zero).
	 */
	j = it->top + 1;
	kslot_hive_iter_at(it, g, j + g->skipfield[j]);
}

/**
 * struct kslot_hive_riter - State of kslot_hive_for_each_reverse()
 *	(internal).
 *
 * Every member is private:
 *
 * - elem: The element the next step returns, or NULL at the end.
 * - skip: Skipfield node of @elem.
 * - end: Node -1 of @group: where the walk leaves the group.
 * - group: The group of @elem.
 * - size: Element size.
 *
 * One jump-counting step per element, kept one element ahead like
 * struct kslot_hive_iter.
 */
struct kslot_hive_riter {
	/* private: */
	void *elem;
	const u16 *skip;
	const u16 *end;
	struct kslot_hive_group *group;
	size_t size;
};

/* Put @it on the last live element of @g, or end the walk. */
static inline void kslot_hive_riter_group(struct kslot_hive_riter *it,
					  struct kslot_hive_group *g)
{
	u32 i;

	it->group = g;
	if (!g) {
		it->elem = NULL;
		return;
	}
	i = g->last - 1 - g->skipfield[g->last - 1];
	it->end = g->skipfield - 1;
	it->skip = g->skipfield + i;
	it->elem = g->elements + (size_t)i * it->size;
}

static inline struct kslot_hive_riter
kslot_hive_riter_init(const struct kslot_hive *hive)
{
	struct kslot_hive_riter it = { .size = hive->elem_size };

	kslot_hive_riter_group(&it, hive->back);
	return it;
}

/* Step function of kslot_hive_for_each_reverse(). */
static __always_inline void *
kslot_hive_riter_next(struct kslot_hive_riter *it)
{
	void *elem = it->elem;
	const u16 *s;
	size_t jump;

	if (!elem)
		return NULL;
	s = it->skip - 1;
	jump = *s;
	s -= jump;
	it->elem -= (jump + 1) * it->size;
	it->skip = s;
	if (unlikely(s <= it->end))
		kslot_hive_riter_group(it, it->group->prev);
	return elem;
}

/**
 * kslot_hive_for_each() - Iterate over the live elements of a hive.
 * @hive: The hive.
 * @elem: Set to each element in turn.
 *
 * The body may erase @elem (and only @elem) with kslot_hive_erase(), and
 * may insert: an element inserted during the walk may or may not be
 * visited.
 */
#define kslot_hive_for_each(hive, elem)					\
	for (struct kslot_hive_iter __kslot_hive_it =			\
		kslot_hive_iter_init(hive);				\
	     __kslot_hive_it.more && ((elem) = __kslot_hive_it.at,	\
		kslot_hive_iter_next(&__kslot_hive_it), true);)

/**
 * kslot_hive_for_each_reverse() - Iterate over a hive from the back.
 * @hive: The hive.
 * @elem: Set to each element in turn, last first.
 *
 * The same rules as kslot_hive_for_each().
 */
#define kslot_hive_for_each_reverse(hive, elem)				\
	for (struct kslot_hive_riter __kslot_hive_it =			\
		kslot_hive_riter_init(hive);				\
	     ((elem) = kslot_hive_riter_next(&__kslot_hive_it));)

#endif /* _LINUX_KSLOT_HIVE_H */
