// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_sparse_set: dense list plus paged sparse index.  See
 * include/linux/kslot_sparse_set.h for the memory policy and the rules.
 */
#include <linux/export.h>
#include <linux/kslot_sparse_set.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kslot_internal.h"

#define KSLOT_SPARSE_SET_MIN_CAPACITY	16

static u32 kslot_sparse_set_l1_index(u32 key)
{
	return key >> KSLOT_SPARSE_SET_L1_SHIFT;
}

static u32 kslot_sparse_set_l2_index(u32 key)
{
	return (key >> KSLOT_SPARSE_SET_L2_SHIFT) &
	       (KSLOT_SPARSE_SET_L2_SIZE - 1);
}

static u32 kslot_sparse_set_l3_index(u32 key)
{
	return (key >> KSLOT_SPARSE_SET_L3_SHIFT) &
	       (KSLOT_SPARSE_SET_L3_SIZE - 1);
}

static gfp_t kslot_sparse_set_gfp(const struct kslot_sparse_set *set,
				  gfp_t gfp)
{
	return kslot_gfp(gfp, set->flags & KSLOT_SPARSE_SET_ACCOUNT);
}

static size_t kslot_sparse_set_dense_bytes(u32 capacity)
{
	struct kslot_sparse_set_dense *d;

	return struct_size(d, key, capacity);
}

/**
 * kslot_sparse_set_init() - Initialise an empty sparse set.
 * @set: The set.
 * @max_count: Member limit, 1 .. %KSLOT_SPARSE_SET_MAX_COUNT.
 * @flags: %KSLOT_SPARSE_SET_ACCOUNT or 0.
 *
 * Nothing is allocated until the first add.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL if @max_count is out of range or @flags holds
 * unknown bits.
 */
int kslot_sparse_set_init(struct kslot_sparse_set *set, u32 max_count,
			  unsigned int flags)
{
	if (!max_count || max_count > KSLOT_SPARSE_SET_MAX_COUNT)
		return -EINVAL;
	if (flags & ~KSLOT_SPARSE_SET_FLAGS_ALL)
		return -EINVAL;
	memset(set, 0, sizeof(*set));
	set->max_count = max_count;
	set->flags = flags;
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_sparse_set_init);

/* Pieces an add may need, allocated before the set is touched. */
struct kslot_sparse_set_prealloc {
	struct kslot_sparse_set_l1 *l1;
	struct kslot_sparse_set_l2 *l2;
	struct kslot_sparse_set_l3 *l3;
	struct kslot_sparse_set_page *page;
	struct kslot_sparse_set_dense *dense;
	u32 capacity;
};

static void *kslot_sparse_set_node_alloc(struct kslot_sparse_set *set,
					 size_t size, gfp_t gfp)
{
	if (kslot_should_fail_alloc())
		return NULL;
	return kzalloc(size, kslot_sparse_set_gfp(set, gfp));
}

static struct kslot_sparse_set_page *
kslot_sparse_set_page_alloc(struct kslot_sparse_set *set, gfp_t gfp)
{
	struct kslot_sparse_set_page *page;

	if (kslot_should_fail_alloc())
		return NULL;
	page = kmalloc(sizeof(*page), kslot_sparse_set_gfp(set, gfp));
	if (page)
		memset(page->pos, 0xff, sizeof(page->pos));
	return page;
}

static void kslot_sparse_set_dense_free(struct kslot_sparse_set_dense *dense,
					gfp_t gfp)
{
	if (!dense)
		return;
	/* vfree() may sleep; defer it where the caller cannot. */
	if (is_vmalloc_addr(dense) && !gfpflags_allow_blocking(gfp))
		kvfree_rcu(dense, rcu);
	else
		kvfree(dense);
}

static void kslot_sparse_set_prealloc_free(struct kslot_sparse_set_prealloc *p)
{
	kfree(p->l1);
	kfree(p->l2);
	kfree(p->l3);
	kfree(p->page);
	/* Never published, so never seen by anyone: free it directly. */
	kvfree(p->dense);
}

/* Allocate everything adding @key needs; the set is not modified. */
static int kslot_sparse_set_prealloc(struct kslot_sparse_set *set, u32 key,
				     struct kslot_sparse_set_prealloc *p,
				     gfp_t gfp)
{
	struct kslot_sparse_set_l2 *l2 = NULL;
	struct kslot_sparse_set_l3 *l3 = NULL;

	if (set->root)
		l2 = set->root->l2[kslot_sparse_set_l1_index(key)];
	if (l2)
		l3 = l2->l3[kslot_sparse_set_l2_index(key)];
	if (!set->root) {
		p->l1 = kslot_sparse_set_node_alloc(set, sizeof(*p->l1), gfp);
		if (!p->l1)
			return -ENOMEM;
	}
	if (!l2) {
		p->l2 = kslot_sparse_set_node_alloc(set, sizeof(*p->l2), gfp);
		if (!p->l2)
			return -ENOMEM;
	}
	if (!l3) {
		p->l3 = kslot_sparse_set_node_alloc(set, sizeof(*p->l3), gfp);
		if (!p->l3)
			return -ENOMEM;
	}
	if (!l3 || !l3->page[kslot_sparse_set_l3_index(key)]) {
		p->page = kslot_sparse_set_page_alloc(set, gfp);
		if (!p->page)
			return -ENOMEM;
	}
	if (set->count < set->capacity)
		return 0;
	p->capacity = min(max(2 * set->capacity,
			      (u32)KSLOT_SPARSE_SET_MIN_CAPACITY),
			  set->max_count);
	if (kslot_should_fail_alloc())
		return -ENOMEM;
	/* Without a blocking gfp, kvmalloc() is kmalloc() only. */
	p->dense = kvmalloc(kslot_sparse_set_dense_bytes(p->capacity),
			    kslot_sparse_set_gfp(set, gfp));
	return p->dense ? 0 : -ENOMEM;
}

/* Link the preallocated pieces in; returns the page covering @key. */
static struct kslot_sparse_set_page *
kslot_sparse_set_install(struct kslot_sparse_set *set, u32 key,
			 struct kslot_sparse_set_prealloc *p, gfp_t gfp)
{
	struct kslot_sparse_set_l2 **l2p;
	struct kslot_sparse_set_l3 **l3p;
	struct kslot_sparse_set_page **pagep;

	if (p->l1) {
		set->root = p->l1;
		set->nr_nodes++;
		set->index_bytes += sizeof(*p->l1);
	}
	l2p = &set->root->l2[kslot_sparse_set_l1_index(key)];
	if (p->l2) {
		*l2p = p->l2;
		set->nr_nodes++;
		set->index_bytes += sizeof(*p->l2);
	}
	l3p = &(*l2p)->l3[kslot_sparse_set_l2_index(key)];
	if (p->l3) {
		*l3p = p->l3;
		set->nr_nodes++;
		set->index_bytes += sizeof(*p->l3);
	}
	pagep = &(*l3p)->page[kslot_sparse_set_l3_index(key)];
	if (p->page) {
		*pagep = p->page;
		set->nr_pages++;
		set->index_bytes += sizeof(*p->page);
	}
	if (p->dense) {
		struct kslot_sparse_set_dense *old = set->dense;

		if (old)
			memcpy(p->dense->key, old->key,
			       set->count * sizeof(old->key[0]));
		set->dense = p->dense;
		set->capacity = p->capacity;
		kslot_sparse_set_dense_free(old, gfp);
	}
	return *pagep;
}

/**
 * kslot_sparse_set_add() - Add a key.
 * @set: The set.
 * @key: Any u32.
 * @gfp: Allocation flags for a new page, directory node or a bigger
 *	dense list.
 *
 * Appends @key to the dense list and records its position in the sparse
 * index.  Everything the add needs is allocated before the set is
 * modified, so a failed add leaves it as it was.
 *
 * Context: Caller serialises all access.  Process context if @gfp allows
 * sleeping, otherwise any context.
 * Return: 0, -EEXIST if @key is already a member, -ENOSPC if the set
 * holds max_count members, or -ENOMEM.
 */
int kslot_sparse_set_add(struct kslot_sparse_set *set, u32 key, gfp_t gfp)
{
	struct kslot_sparse_set_prealloc p = {};
	struct kslot_sparse_set_page *page;
	int ret;

	if (kslot_sparse_set_contains(set, key))
		return -EEXIST;
	if (set->count >= set->max_count)
		return -ENOSPC;
	ret = kslot_sparse_set_prealloc(set, key, &p, gfp);
	if (ret) {
		kslot_sparse_set_prealloc_free(&p);
		return ret;
	}
	page = kslot_sparse_set_install(set, key, &p, gfp);
	page->pos[key & (KSLOT_SPARSE_SET_PAGE_KEYS - 1)] = set->count;
	set->dense->key[set->count++] = key;
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_sparse_set_add);

static u32 *kslot_sparse_set_entry(struct kslot_sparse_set *set, u32 key)
{
	struct kslot_sparse_set_page *page = kslot_sparse_set_page_of(set, key);

	return page ? &page->pos[key & (KSLOT_SPARSE_SET_PAGE_KEYS - 1)] :
		      NULL;
}

/**
 * kslot_sparse_set_remove() - Remove a key.
 * @set: The set.
 * @key: Any u32.
 *
 * Swap-remove: the last member of the dense list moves into @key's
 * position and its sparse entry is updated; @key's entry becomes
 * %KSLOT_SPARSE_SET_INVALID.  No memory is freed (see the empty-page
 * policy in kslot_sparse_set.h).
 *
 * Context: Caller serialises all access.  Any context.
 * Return: 0, or -ENOENT if @key is not a member.
 */
int kslot_sparse_set_remove(struct kslot_sparse_set *set, u32 key)
{
	u32 *entry = kslot_sparse_set_entry(set, key);
	u32 pos, moved;

	if (!entry || *entry == KSLOT_SPARSE_SET_INVALID)
		return -ENOENT;
	pos = *entry;
	moved = set->dense->key[--set->count];
	set->dense->key[pos] = moved;
	/* When @key was the last member, moved == key: INVALID wins. */
	*kslot_sparse_set_entry(set, moved) = pos;
	*entry = KSLOT_SPARSE_SET_INVALID;
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_sparse_set_remove);

/**
 * kslot_sparse_set_clear() - Remove every key.
 * @set: The set.
 *
 * O(count): resets the sparse entry of each member.  Pages and the dense
 * list are kept.
 *
 * Context: Caller serialises all access.  Any context.
 */
void kslot_sparse_set_clear(struct kslot_sparse_set *set)
{
	u32 i;

	for (i = 0; i < set->count; i++)
		*kslot_sparse_set_entry(set, set->dense->key[i]) =
			KSLOT_SPARSE_SET_INVALID;
	set->count = 0;
}
EXPORT_SYMBOL_GPL(kslot_sparse_set_clear);

static bool kslot_sparse_set_page_empty(const struct kslot_sparse_set_page *pg)
{
	u32 i;

	for (i = 0; i < KSLOT_SPARSE_SET_PAGE_KEYS; i++)
		if (pg->pos[i] != KSLOT_SPARSE_SET_INVALID)
			return false;
	return true;
}

/*
 * Free the empty pages under an L3 node (all of them if @all).  Returns
 * true if the node has no page left.
 */
static bool kslot_sparse_set_shrink_l3(struct kslot_sparse_set *set,
				       struct kslot_sparse_set_l3 *l3,
				       bool all, u32 *freed)
{
	bool empty = true;
	u32 i;

	for (i = 0; i < KSLOT_SPARSE_SET_L3_SIZE; i++) {
		struct kslot_sparse_set_page *page = l3->page[i];

		if (!page)
			continue;
		if (!all && !kslot_sparse_set_page_empty(page)) {
			empty = false;
			continue;
		}
		kfree(page);
		l3->page[i] = NULL;
		set->nr_pages--;
		set->index_bytes -= sizeof(*page);
		(*freed)++;
	}
	return empty;
}

static bool kslot_sparse_set_shrink_l2(struct kslot_sparse_set *set,
				       struct kslot_sparse_set_l2 *l2,
				       bool all, u32 *freed)
{
	bool empty = true;
	u32 i;

	for (i = 0; i < KSLOT_SPARSE_SET_L2_SIZE; i++) {
		struct kslot_sparse_set_l3 *l3 = l2->l3[i];

		if (!l3)
			continue;
		if (!kslot_sparse_set_shrink_l3(set, l3, all, freed)) {
			empty = false;
			continue;
		}
		kfree(l3);
		l2->l3[i] = NULL;
		set->nr_nodes--;
		set->index_bytes -= sizeof(*l3);
	}
	return empty;
}

/* Free empty pages and nodes (everything if @all); returns pages freed. */
static u32 kslot_sparse_set_free_index(struct kslot_sparse_set *set, bool all)
{
	struct kslot_sparse_set_l1 *l1 = set->root;
	bool empty = true;
	u32 i, freed = 0;

	if (!l1)
		return 0;
	for (i = 0; i < KSLOT_SPARSE_SET_L1_SIZE; i++) {
		struct kslot_sparse_set_l2 *l2 = l1->l2[i];

		if (!l2)
			continue;
		if (!kslot_sparse_set_shrink_l2(set, l2, all, &freed)) {
			empty = false;
			continue;
		}
		kfree(l2);
		l1->l2[i] = NULL;
		set->nr_nodes--;
		set->index_bytes -= sizeof(*l2);
	}
	if (empty) {
		kfree(l1);
		set->root = NULL;
		set->nr_nodes--;
		set->index_bytes -= sizeof(*l1);
	}
	return freed;
}

/**
 * kslot_sparse_set_shrink() - Give back memory the set no longer needs.
 * @set: The set.
 *
 * Frees every sparse index page that holds no member, every directory
 * node left without pages, and the dense list if the set is empty.  Walks
 * every page: O(pages * 1024).
 *
 * Context: Caller serialises all access.  Process context (the dense list
 * may be vmalloc memory).
 * Return: The number of pages freed.
 */
u32 kslot_sparse_set_shrink(struct kslot_sparse_set *set)
{
	u32 freed = kslot_sparse_set_free_index(set, false);

	if (!set->count) {
		kvfree(set->dense);
		set->dense = NULL;
		set->capacity = 0;
	}
	return freed;
}
EXPORT_SYMBOL_GPL(kslot_sparse_set_shrink);

/**
 * kslot_sparse_set_destroy() - Free all of a set's memory.
 * @set: The set.
 *
 * The set is left empty and may be used again (or initialised again).
 *
 * Context: Caller serialises all access.  Process context.
 */
void kslot_sparse_set_destroy(struct kslot_sparse_set *set)
{
	kslot_sparse_set_free_index(set, true);
	kvfree(set->dense);
	set->dense = NULL;
	set->capacity = 0;
	set->count = 0;
}
EXPORT_SYMBOL_GPL(kslot_sparse_set_destroy);

/**
 * kslot_sparse_set_stats() - Read a set's size and memory use.
 * @set: The set.
 * @st: Filled in.
 *
 * Context: Caller serialises against writers.  Any context.
 */
void kslot_sparse_set_stats(const struct kslot_sparse_set *set,
			    struct kslot_sparse_set_stats *st)
{
	st->count = set->count;
	st->capacity = set->capacity;
	st->pages = set->nr_pages;
	st->nodes = set->nr_nodes;
	st->index_bytes = set->index_bytes;
	st->dense_bytes = set->dense ?
			  kslot_sparse_set_dense_bytes(set->capacity) : 0;
}
EXPORT_SYMBOL_GPL(kslot_sparse_set_stats);
