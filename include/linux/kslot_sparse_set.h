/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_sparse_set: a set of u32 keys with O(1) add, remove and membership
 * test, and iteration over a packed list of the members.
 *
 * Two structures index each other:
 *
 * - the dense list: the member keys, packed at positions 0 .. count - 1
 *   (what iteration walks);
 * - the sparse index: per key, the key's position in the dense list, or
 *   %KSLOT_SPARSE_SET_INVALID when the key is absent.  There is no
 *   per-key flag: the position is what makes removal O(1).
 *
 * Removal is swap-remove: the last member moves into the removed key's
 * position and its sparse entry is rewritten to that position.
 *
 * Memory.  The sparse index is paged: a page holds the positions of 1024
 * consecutive keys (4 KiB) and is allocated when the first key in its
 * range is added, so memory follows the key ranges actually used, not the
 * 2^32 key space.  Pages hang off a fixed three-level directory (key bits
 * 31-24, 23-17, 16-10; nodes of 2 KiB, 1 KiB and 1 KiB) allocated on the
 * same demand, so a lookup is always four loads.  Two keys as far apart as
 * 0 and 2^31 cost two pages (plus five directory nodes).
 *
 * Why its own tree and not the slot core or an XArray: keys are any u32
 * (the core indexes 2^24 slots at most), and measured natively
 * (bench/native "--sets", ns per operation, this tree : a sparse set on an
 * XArray that maps key to xa_mk_value(position)), the tree wins every
 * lookup and every operation on clustered keys:
 *
 *   keys 0..n-1, random order   1K            64K           1M
 *   position lookup             2.3 : 13.6    3.9 : 47.5    27.8 : 325
 *   add                         9.9 : 40.9    12.5 : 61.9   10.4 : 41.5
 *   swap-remove                 11.7 : 130    26.5 : 289    90.3 : 1285
 *   keys spread over the u32s
 *   position lookup             7.4 : 107     123 : 1300
 *   add                         5423 : 1454   4772 : 903
 *   swap-remove                 141 : 1235    524 : 3915
 *
 * It loses only adds of keys spread so far apart that each needs a page of
 * its own (and then 4 KiB per key, where an XArray node serves 64 keys):
 * a set of scattered keys is better kept in an XArray.
 *
 * Empty-page policy: pages (and directory nodes) are KEPT when their last
 * key is removed, so a key that comes and goes does not allocate and free
 * a page each time, and remove never allocates, frees or fails for a
 * present key.  kslot_sparse_set_shrink() frees every empty page and
 * node (and the dense list if the set is empty) when the caller wants the
 * memory back.
 *
 * Rules:
 *
 * +-----------------------------------+------------------+---------------+
 * | operation                         | serialisation    | may sleep     |
 * +-----------------------------------+------------------+---------------+
 * | kslot_sparse_set_add()            | caller, writer   | only if gfp   |
 * |                                   |                  | allows        |
 * | kslot_sparse_set_remove(),        | caller, writer   | no            |
 * | kslot_sparse_set_clear()          |                  |               |
 * | kslot_sparse_set_shrink(),        | caller, writer   | yes           |
 * | kslot_sparse_set_destroy()        |                  |               |
 * | kslot_sparse_set_contains(),      | caller, reader   | no            |
 * | kslot_sparse_set_pos(),           |                  |               |
 * | kslot_sparse_set_count(),         |                  |               |
 * | kslot_sparse_set_for_each(),      |                  |               |
 * | kslot_sparse_set_stats()          |                  |               |
 * +-----------------------------------+------------------+---------------+
 *
 * - The set has no lock of its own, like a list_head or an rb_root: it is
 *   meant to live inside an object its owner already serialises.  Writers
 *   must exclude every other user; readers may run concurrently with each
 *   other.  Under a spinlock, pass GFP_ATOMIC (or GFP_NOWAIT) to add.
 * - Positions are not stable: a remove moves the last member.  Iterating
 *   with kslot_sparse_set_for_each_reverse() allows removing the current
 *   key inside the loop.
 */
#ifndef _LINUX_KSLOT_SPARSE_SET_H
#define _LINUX_KSLOT_SPARSE_SET_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#define KSLOT_SPARSE_SET_INVALID	U32_MAX

/* Charge the set's memory to the current memcg. */
#define KSLOT_SPARSE_SET_ACCOUNT	BIT(0)
#define KSLOT_SPARSE_SET_FLAGS_ALL	KSLOT_SPARSE_SET_ACCOUNT

/* Most members a set may be given at init. */
#define KSLOT_SPARSE_SET_MAX_COUNT	BIT(28)

#define KSLOT_SPARSE_SET_PAGE_SHIFT	10
#define KSLOT_SPARSE_SET_PAGE_KEYS	BIT(KSLOT_SPARSE_SET_PAGE_SHIFT)
#define KSLOT_SPARSE_SET_L3_SHIFT	10
#define KSLOT_SPARSE_SET_L3_SIZE	BIT(7)
#define KSLOT_SPARSE_SET_L2_SHIFT	17
#define KSLOT_SPARSE_SET_L2_SIZE	BIT(7)
#define KSLOT_SPARSE_SET_L1_SHIFT	24
#define KSLOT_SPARSE_SET_L1_SIZE	BIT(8)

/**
 * struct kslot_sparse_set_page - Dense positions of 1024 consecutive keys.
 *
 * Every member is private:
 *
 * - pos: Position of each key in the dense list, or
 *   %KSLOT_SPARSE_SET_INVALID.
 */
struct kslot_sparse_set_page {
	/* private: */
	u32 pos[KSLOT_SPARSE_SET_PAGE_KEYS];
};

/**
 * struct kslot_sparse_set_l3 - Directory node for key bits 16-10.
 *
 * Every member is private:
 *
 * - page: Pages, NULL where no key was ever added.
 */
struct kslot_sparse_set_l3 {
	/* private: */
	struct kslot_sparse_set_page *page[KSLOT_SPARSE_SET_L3_SIZE];
};

/**
 * struct kslot_sparse_set_l2 - Directory node for key bits 23-17.
 *
 * Every member is private:
 *
 * - l3: Lower nodes, NULL where unused.
 */
struct kslot_sparse_set_l2 {
	/* private: */
	struct kslot_sparse_set_l3 *l3[KSLOT_SPARSE_SET_L2_SIZE];
};

/**
 * struct kslot_sparse_set_l1 - Root directory node, for key bits 31-24.
 *
 * Every member is private:
 *
 * - l2: Lower nodes, NULL where unused.
 */
struct kslot_sparse_set_l1 {
	/* private: */
	struct kslot_sparse_set_l2 *l2[KSLOT_SPARSE_SET_L1_SIZE];
};

/**
 * struct kslot_sparse_set_dense - The dense list's allocation.
 *
 * Every member is private:
 *
 * - rcu: Frees a replaced list from atomic context when it is vmalloc'ed.
 * - key: The members, packed (kslot_sparse_set_keys() returns them).
 */
struct kslot_sparse_set_dense {
	/* private: */
	struct rcu_head rcu;
	u32 key[];
};

/**
 * struct kslot_sparse_set - A sparse set of u32 keys.
 *
 * Every member is private (use the functions below):
 *
 * - root: Root of the sparse index, NULL until the first add.
 * - dense: The dense list, NULL until the first add.
 * - count: Members.
 * - capacity: Keys the dense list has room for.
 * - max_count: Member limit given at init.
 * - nr_pages: Sparse index pages allocated.
 * - nr_nodes: Directory nodes allocated (all levels).
 * - index_bytes: Bytes of the pages and nodes.
 * - flags: %KSLOT_SPARSE_SET_* flags given at init.
 */
struct kslot_sparse_set {
	/* private: */
	struct kslot_sparse_set_l1 *root;
	struct kslot_sparse_set_dense *dense;
	u32 count;
	u32 capacity;
	u32 max_count;
	u32 nr_pages;
	u32 nr_nodes;
	size_t index_bytes;
	unsigned int flags;
};

/**
 * struct kslot_sparse_set_stats - A snapshot of a set's memory use.
 * @count: Members.
 * @capacity: Keys the dense list has room for.
 * @pages: Sparse index pages.
 * @nodes: Directory nodes.
 * @index_bytes: Bytes of the pages and nodes.
 * @dense_bytes: Bytes of the dense list.
 */
struct kslot_sparse_set_stats {
	u32 count;
	u32 capacity;
	u32 pages;
	u32 nodes;
	size_t index_bytes;
	size_t dense_bytes;
};

int kslot_sparse_set_init(struct kslot_sparse_set *set, u32 max_count,
			  unsigned int flags);
void kslot_sparse_set_destroy(struct kslot_sparse_set *set);
int kslot_sparse_set_add(struct kslot_sparse_set *set, u32 key, gfp_t gfp);
int kslot_sparse_set_remove(struct kslot_sparse_set *set, u32 key);
void kslot_sparse_set_clear(struct kslot_sparse_set *set);
u32 kslot_sparse_set_shrink(struct kslot_sparse_set *set);
void kslot_sparse_set_stats(const struct kslot_sparse_set *set,
			    struct kslot_sparse_set_stats *st);

/**
 * kslot_sparse_set_page_of() - The sparse index page covering a key.
 * @set: The set.
 * @key: Any key.
 *
 * Context: Caller serialises against writers.
 * Return: The page, or NULL if no key in its range was ever added (or the
 * page was freed by kslot_sparse_set_shrink()).
 */
static inline struct kslot_sparse_set_page *
kslot_sparse_set_page_of(const struct kslot_sparse_set *set, u32 key)
{
	const struct kslot_sparse_set_l1 *l1 = set->root;
	const struct kslot_sparse_set_l2 *l2;
	const struct kslot_sparse_set_l3 *l3;

	if (!l1)
		return NULL;
	l2 = l1->l2[key >> KSLOT_SPARSE_SET_L1_SHIFT];
	if (!l2)
		return NULL;
	l3 = l2->l3[(key >> KSLOT_SPARSE_SET_L2_SHIFT) &
		    (KSLOT_SPARSE_SET_L2_SIZE - 1)];
	if (!l3)
		return NULL;
	return l3->page[(key >> KSLOT_SPARSE_SET_L3_SHIFT) &
			(KSLOT_SPARSE_SET_L3_SIZE - 1)];
}

/**
 * kslot_sparse_set_pos() - Position of a key in the dense list.
 * @set: The set.
 * @key: Any key.
 *
 * Context: Caller serialises against writers.
 * Return: The key's position, or %KSLOT_SPARSE_SET_INVALID if absent.
 */
static inline u32 kslot_sparse_set_pos(const struct kslot_sparse_set *set,
				       u32 key)
{
	const struct kslot_sparse_set_page *page =
		kslot_sparse_set_page_of(set, key);

	if (!page)
		return KSLOT_SPARSE_SET_INVALID;
	return page->pos[key & (KSLOT_SPARSE_SET_PAGE_KEYS - 1)];
}

/**
 * kslot_sparse_set_contains() - Is a key a member?
 * @set: The set.
 * @key: Any key.
 *
 * Context: Caller serialises against writers.
 * Return: true if @key is in @set.
 */
static inline bool kslot_sparse_set_contains(const struct kslot_sparse_set *set,
					     u32 key)
{
	return kslot_sparse_set_pos(set, key) != KSLOT_SPARSE_SET_INVALID;
}

/**
 * kslot_sparse_set_count() - Number of members.
 * @set: The set.
 *
 * Context: Caller serialises against writers.
 * Return: Members.
 */
static inline u32 kslot_sparse_set_count(const struct kslot_sparse_set *set)
{
	return set->count;
}

/**
 * kslot_sparse_set_keys() - The dense list itself.
 * @set: The set.
 *
 * Context: Caller serialises against writers; the array moves when an add
 * grows it.
 * Return: kslot_sparse_set_count() members, or NULL if none was ever
 * added.
 */
static inline const u32 *kslot_sparse_set_keys(const struct kslot_sparse_set *set)
{
	return set->dense ? set->dense->key : NULL;
}

/**
 * kslot_sparse_set_next() - Step function of kslot_sparse_set_for_each().
 * @set: The set.
 * @cursor: Next position to visit; advanced.
 * @pos: Set to the position of the key returned.
 * @key: Set to the key at that position.
 *
 * Context: Caller serialises against writers.
 * Return: false past the last member.
 */
static inline bool kslot_sparse_set_next(const struct kslot_sparse_set *set,
					 u32 *cursor, u32 *pos, u32 *key)
{
	if (*cursor >= set->count)
		return false;
	*pos = *cursor;
	*key = set->dense->key[(*cursor)++];
	return true;
}

/**
 * kslot_sparse_set_prev() - Step of kslot_sparse_set_for_each_reverse().
 * @set: The set.
 * @cursor: Position last visited, or %KSLOT_SPARSE_SET_INVALID to start
 *	at the end; moved down by one.
 * @pos: Set to the position of the key returned.
 * @key: Set to the key at that position.
 *
 * Context: Caller serialises against writers.
 * Return: false once position 0 was visited.
 */
static inline bool kslot_sparse_set_prev(const struct kslot_sparse_set *set,
					 u32 *cursor, u32 *pos, u32 *key)
{
	if (*cursor == KSLOT_SPARSE_SET_INVALID)
		*cursor = set->count;
	if (!*cursor)
		return false;
	*pos = --*cursor;
	*key = set->dense->key[*cursor];
	return true;
}

/**
 * kslot_sparse_set_for_each() - Walk the members in dense order.
 * @set: The set.
 * @pos: u32 set to each member's position.
 * @key: u32 set to each member.
 *
 * The set must not change during the walk.
 */
#define kslot_sparse_set_for_each(set, pos, key)			\
	for (u32 __kslot_scur = 0;					\
	     kslot_sparse_set_next((set), &__kslot_scur, &(pos), &(key));)

/**
 * kslot_sparse_set_for_each_reverse() - Walk the members, last first.
 * @set: The set.
 * @pos: u32 set to each member's position.
 * @key: u32 set to each member.
 *
 * Removing the current key inside the loop is allowed (the member moved
 * into its place was already visited); adding keys is not.
 */
#define kslot_sparse_set_for_each_reverse(set, pos, key)		\
	for (u32 __kslot_scur = KSLOT_SPARSE_SET_INVALID;		\
	     kslot_sparse_set_prev((set), &__kslot_scur, &(pos), &(key));)

#endif /* _LINUX_KSLOT_SPARSE_SET_H */
