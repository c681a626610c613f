// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line parts of the native shim (see kslot_shim.h): per-CPU
 * copies, deferred frees through liburcu's call_rcu(), size-aligned page
 * blocks that an interior
 * pointer finds again, a fixed-seed random source, and the debugfs hooks
 * kslot_main.c provides in the kernel.
 */
#include "kslot_shim.h"

__thread int kslot_shim_cpu;

void kslot_shim_set_cpu(int cpu)
{
	if (cpu < 0 || cpu >= KSLOT_SHIM_CPUS) {
		fprintf(stderr, "kslot_shim: no CPU %d\n", cpu);
		abort();
	}
	kslot_shim_cpu = cpu;
}

/*
 * KSLOT_SHIM_CPUS zeroed copies, each on its own cache lines; the stride is kept
 * in the line below CPU 0's copy, which is what the pointer points to.
 */
#define PERCPU_HEAD	64

void *kslot_shim_alloc_percpu(size_t size, size_t align)
{
	size_t stride = ALIGN(size ?: 1, max_t(size_t, align, PERCPU_HEAD));
	char *base;

	if (align > PERCPU_HEAD || stride > (SIZE_MAX - PERCPU_HEAD) / KSLOT_SHIM_CPUS)
		return NULL;
	base = aligned_alloc(PERCPU_HEAD, PERCPU_HEAD + stride * KSLOT_SHIM_CPUS);
	if (!base)
		return NULL;
	memset(base, 0, PERCPU_HEAD + stride * KSLOT_SHIM_CPUS);
	((size_t *)(base + PERCPU_HEAD))[-1] = stride;
	return base + PERCPU_HEAD;
}

void kslot_shim_free_percpu(void *p)
{
	if (p)
		free((char *)p - PERCPU_HEAD);
}

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

/* Page number -> folio, open addressing; a folio registers every page. */
#define FOLIO_BITS	20
#define FOLIO_SLOTS	BIT(FOLIO_BITS)

static struct {
	unsigned long pfn;
	struct folio *folio;
} *folio_table;
static struct folio folio_none;

static unsigned long folio_hash(unsigned long pfn)
{
	return (pfn * 0x9e3779b97f4a7c15UL) >> (64 - FOLIO_BITS);
}

static void folio_set(unsigned long pfn, struct folio *folio)
{
	unsigned long i = folio_hash(pfn);

	while (folio_table[i].folio && folio_table[i].pfn != pfn)
		i = (i + 1) & (FOLIO_SLOTS - 1);
	folio_table[i].pfn = pfn;
	folio_table[i].folio = folio;
}

static long folio_find(unsigned long pfn)
{
	unsigned long i = folio_hash(pfn);

	while (folio_table[i].folio || folio_table[i].pfn) {
		if (folio_table[i].pfn == pfn && folio_table[i].folio)
			return i;
		i = (i + 1) & (FOLIO_SLOTS - 1);
	}
	return -1;
}

struct folio *kslot_shim_folio_alloc(gfp_t gfp, unsigned int order)
{
	size_t bytes = PAGE_SIZE << order;
	struct folio *folio;
	unsigned long i;

	if (!folio_table) {
		folio_table = calloc(FOLIO_SLOTS, sizeof(*folio_table));
		if (!folio_table)
			return NULL;
	}
	folio = calloc(1, sizeof(*folio));
	if (!folio)
		return NULL;
	folio->addr = aligned_alloc(bytes, bytes);
	if (!folio->addr) {
		free(folio);
		return NULL;
	}
	if (gfp & __GFP_ZERO)
		memset(folio->addr, 0, bytes);
	folio->order = order;
	for (i = 0; i < (1UL << order); i++)
		folio_set(((unsigned long)folio->addr >> PAGE_SHIFT) + i, folio);
	return folio;
}

struct folio *kslot_shim_virt_to_folio(const void *p)
{
	long i = folio_table ? folio_find((unsigned long)p >> PAGE_SHIFT) : -1;

	return i < 0 ? &folio_none : folio_table[i].folio;
}

void kslot_shim_folio_put(struct folio *folio)
{
	unsigned long i, pfn = (unsigned long)folio->addr >> PAGE_SHIFT;

	if (folio == &folio_none)
		return;
	/* Keep the probe chains intact: leave a tombstone (pfn, NULL). */
	for (i = 0; i < (1UL << folio->order); i++) {
		long at = folio_find(pfn + i);

		if (at >= 0)
			folio_table[at].folio = NULL;
	}
	free(folio->addr);
	free(folio);
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
