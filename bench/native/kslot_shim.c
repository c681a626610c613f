// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line parts of the native shim (see kslot_shim.h): deferred frees
 * through liburcu's call_rcu(), size-aligned page blocks that an interior
 * pointer finds again (a direct map and its vmemmap), a fixed-seed random
 * source, and the debugfs hooks kslot_main.c provides in the kernel.
 */
#include <sys/mman.h>

#include "kslot_shim.h"

struct kslot_shim_rcu {
	struct rcu_head head;
	void *ptr;
};

static void kslot_shim_rcu_cb(struct rcu_head *head)
{
	struct kslot_shim_rcu *r = caa_container_of(head, struct kslot_shim_rcu,
						    head);

	free(r->ptr);
	free(r);
}

void kslot_shim_free_rcu(void *p)
{
	struct kslot_shim_rcu *r = malloc(sizeof(*r));

	if (!r) {
		synchronize_rcu();
		free(p);
		return;
	}
	r->ptr = p;
	call_rcu(&r->head, kslot_shim_rcu_cb);
}

/*
 * The reserved range: 4 GiB of address space, backed only where used,
 * with transparent huge pages as the kernel's direct map has huge pages.
 * Freed blocks wait on a list per order for the next allocation.
 */
#define ARENA_BYTES	BIT(32)
#define ARENA_ORDERS	11

char *kslot_shim_arena;
unsigned long kslot_shim_arena_used;
struct folio *kslot_shim_vmemmap;
/* Not a folio of the range: its private field never names its address. */
struct folio kslot_shim_folio_none = { .private = &kslot_shim_folio_none };
static void *arena_free[ARENA_ORDERS];

static int arena_init(void)
{
	size_t map = (ARENA_BYTES >> PAGE_SHIFT) * sizeof(struct folio);
	void *a, *v;

	a = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	v = mmap(NULL, map, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a == MAP_FAILED || v == MAP_FAILED)
		return -1;
	madvise(a, ARENA_BYTES, MADV_HUGEPAGE);
	madvise(v, map, MADV_HUGEPAGE);
	/* Align the range to the largest block, as physical memory is. */
	kslot_shim_arena = (char *)ALIGN((unsigned long)a,
					 PAGE_SIZE << (ARENA_ORDERS - 1));
	kslot_shim_vmemmap = v;
	return 0;
}

struct folio *kslot_shim_folio_alloc(gfp_t gfp, unsigned int order)
{
	size_t bytes = PAGE_SIZE << order;
	struct folio *folio;
	unsigned long i, pfn;
	void *addr;

	if (order >= ARENA_ORDERS || (!kslot_shim_arena && arena_init()))
		return NULL;
	addr = arena_free[order];
	if (addr) {
		arena_free[order] = *(void **)addr;
	} else {
		unsigned long at = ALIGN(kslot_shim_arena_used, bytes);

		if (at + bytes > ARENA_BYTES - (PAGE_SIZE << ARENA_ORDERS))
			return NULL;
		addr = kslot_shim_arena + at;
		kslot_shim_arena_used = at + bytes;
	}
	if (gfp & __GFP_ZERO)
		memset(addr, 0, bytes);
	pfn = ((char *)addr - kslot_shim_arena) >> PAGE_SHIFT;
	folio = &kslot_shim_vmemmap[pfn];
	folio->private = NULL;
	folio->addr = addr;
	folio->order = order;
	for (i = 0; i < (1UL << order); i++)
		kslot_shim_vmemmap[pfn + i].head = folio;
	return folio;
}

void kslot_shim_folio_put(struct folio *folio)
{
	unsigned long i;

	if (folio == &kslot_shim_folio_none)
		return;
	for (i = 0; i < (1UL << folio->order); i++)
		folio[i].head = NULL;
	*(void **)folio->addr = arena_free[folio->order];
	arena_free[folio->order] = folio->addr;
}

u32 kslot_shim_random_u32(void)
{
	static u64 state = 0x853c49e6748fea9bULL;

	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return state >> 33;
}

struct dentry *kslot_debugfs_create(const char *kind, const char *name,
				    void *data,
				    const struct file_operations *fops)
{
	return NULL;
}

void kslot_debugfs_remove(struct dentry *dentry)
{
}

/* No reclaim here: the hives' spare groups wait for kslot_hive_trim(). */
struct shrinker *kslot_shrinker_create(const char *name,
				       unsigned long (*count)(struct shrinker *,
							      struct shrink_control *),
				       unsigned long (*scan)(struct shrinker *,
							     struct shrink_control *))
{
	return NULL;
}

void kslot_shrinker_destroy(struct shrinker *s)
{
}
