// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line parts of the native shim (see kslot_shim.h): the slow paths
 * of locks and preemption, RCU's grace periods and deferred frees,
 * per-CPU memory, size-aligned page blocks that an interior pointer finds
 * again (a direct map and its vmemmap), kmalloc()'s slabs carved from
 * them, vmalloc() areas, a fixed-seed random source, and
 * what kslot_main.c provides in the kernel (the debugfs hooks, the
 * shrinker wrappers, kslot_kvfree_rcu_head()).
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kslot_shim.h"

__thread int kslot_shim_cpu KSLOT_SHIM_TLS;
__thread unsigned long kslot_shim_cpu_off KSLOT_SHIM_TLS;
__thread unsigned int kslot_shim_preempt_count KSLOT_SHIM_TLS =
	KSLOT_SHIM_PREEMPT_IDLE;
__thread int kslot_shim_lock_expect KSLOT_SHIM_TLS;
__thread int kslot_shim_rcu_nesting KSLOT_SHIM_TLS;
#ifdef KSLOT_SHIM_LOCK_MODES
__thread unsigned int kslot_shim_bh_count, kslot_shim_irq_flag;
#endif
#ifdef KSLOT_SHIM_COUNT_ATOMICS
__thread unsigned long kslot_shim_atomics[KSLOT_SHIM_RMW_KINDS] KSLOT_SHIM_TLS;
#endif

/*
 * Lock-hold tracking: locks taken in this stretch, its start, the worst,
 * and how many holds lasted each whole microsecond (the last bucket: that
 * or longer), for percentiles that one preemption of the machine's (a
 * hold of any length can take one) does not decide.
 */
#define HOLD_BUCKETS	4096
static __thread unsigned int hold_locks;
static __thread uint64_t hold_t0, hold_max;
static __thread uint32_t hold_hist[HOLD_BUCKETS];

uint64_t kslot_shim_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A lock word never holds 2: while tracking, every acquire comes here. */
#define HOLD_EXPECT	2

void kslot_shim_spin_lock_slow(spinlock_t *l)
{
	int old;

	for (;;) {
		old = 0;
		if (__atomic_compare_exchange_n(&l->locked, &old, 1, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		kslot_shim_count_atomic(KSLOT_SHIM_RMW_LOCK);
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
	}
	if (kslot_shim_lock_expect == HOLD_EXPECT && !hold_locks++)
		hold_t0 = kslot_shim_thread_ns();
}

/* Only while tracking: every lock and preemption section has ended. */
void kslot_shim_preempt_zero(void)
{
	uint64_t t;

	if (!hold_locks)
		return;
	hold_locks = 0;
	t = kslot_shim_thread_ns() - hold_t0;
	if (t > hold_max)
		hold_max = t;
	hold_hist[min_t(uint64_t, t / 1000, HOLD_BUCKETS - 1)]++;
}

/* Start tracking the calling thread's lock holds (no lock held). */
void kslot_shim_hold_begin(void)
{
	hold_locks = 0;
	hold_max = 0;
	memset(hold_hist, 0, sizeof(hold_hist));
	kslot_shim_preempt_count &= ~KSLOT_SHIM_PREEMPT_IDLE;
	kslot_shim_lock_expect = HOLD_EXPECT;
}

/* Stop tracking (no lock held): the longest hold seen, in ns. */
uint64_t kslot_shim_hold_end(void)
{
	kslot_shim_lock_expect = 0;
	kslot_shim_preempt_count |= KSLOT_SHIM_PREEMPT_IDLE;
	return hold_max;
}

/*
 * After kslot_shim_hold_end(): the hold that a fraction @q of the holds
 * tracked stayed under, in ns, rounded up to a microsecond; their number
 * in *@holds if @holds is not NULL.
 */
uint64_t kslot_shim_hold_pct(double q, uint64_t *holds)
{
	uint64_t n = 0, seen = 0;
	unsigned int b;

	for (b = 0; b < HOLD_BUCKETS; b++)
		n += hold_hist[b];
	if (holds)
		*holds = n;
	for (b = 0; b < HOLD_BUCKETS; b++) {
		seen += hold_hist[b];
		if (seen && seen >= q * n)
			break;
	}
	return (uint64_t)(b + 1) * 1000;
}

/*
 * RCU.  A reader only counts (kslot_shim_rcu_nesting, and a lock or a
 * preempt_disable() section, kslot_shim_preempt_count, as in the kernel
 * since RCU's flavours merged), with no barrier, so a grace period first
 * makes every thread run a full barrier (membarrier()), then waits until
 * it has seen each registered thread other than the caller outside any
 * such section, then runs another barrier everywhere.  Deferred callbacks
 * wait on a list for kslot_shim_rcu_reclaim(): nothing runs them behind
 * the bench's back, inside its timed loops.
 */
#define RCU_THREADS	16

static pthread_mutex_t rcu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_thread {
	int *nesting;
	unsigned int *preempt;
} rcu_threads[RCU_THREADS];
static struct rcu_head *rcu_pending;
static int rcu_membarrier = -1;

static void rcu_barrier_all(void)
{
	if (rcu_membarrier > 0) {
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		return;
	}
	if (rcu_membarrier == 0 &&
	    !syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	/* No membarrier(): correct only while one thread reads. */
	smp_mb();
}

void kslot_shim_rcu_register(void)
{
	unsigned int i;

	pthread_mutex_lock(&rcu_lock);
	if (rcu_membarrier < 0)
		rcu_membarrier = !syscall(__NR_membarrier,
					  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
					  0, 0);
	for (i = 0; i < RCU_THREADS; i++) {
		if (rcu_threads[i].nesting == &kslot_shim_rcu_nesting)
			break;
		if (!rcu_threads[i].nesting) {
			rcu_threads[i].nesting = &kslot_shim_rcu_nesting;
			rcu_threads[i].preempt = &kslot_shim_preempt_count;
			break;
		}
	}
	pthread_mutex_unlock(&rcu_lock);
	if (i == RCU_THREADS) {
		fprintf(stderr, "kslot_shim: more than %d RCU threads\n",
			RCU_THREADS);
		abort();
	}
}

void kslot_shim_rcu_unregister(void)
{
	unsigned int i;

	pthread_mutex_lock(&rcu_lock);
	for (i = 0; i < RCU_THREADS; i++)
		if (rcu_threads[i].nesting == &kslot_shim_rcu_nesting)
			rcu_threads[i].nesting = NULL;
	pthread_mutex_unlock(&rcu_lock);
}

unsigned long kslot_shim_rcu_gp_seq;

void kslot_shim_synchronize_rcu(void)
{
	unsigned int i;

	rcu_barrier_all();
	pthread_mutex_lock(&rcu_lock);
	__atomic_store_n(&kslot_shim_rcu_gp_seq, kslot_shim_rcu_gp_seq + 1,
			 __ATOMIC_RELEASE);
	for (i = 0; i < RCU_THREADS; i++) {
		struct rcu_thread *t = &rcu_threads[i];

		if (!t->nesting || t->nesting == &kslot_shim_rcu_nesting)
			continue;
		while (__atomic_load_n(t->nesting, __ATOMIC_ACQUIRE) ||
		       (__atomic_load_n(t->preempt, __ATOMIC_ACQUIRE) &
			~KSLOT_SHIM_PREEMPT_IDLE))
			__builtin_ia32_pause();
	}
	__atomic_store_n(&kslot_shim_rcu_gp_seq, kslot_shim_rcu_gp_seq + 1,
			 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rcu_lock);
	rcu_barrier_all();
}

void kslot_shim_call_rcu(struct rcu_head *head,
			 void (*func)(struct rcu_head *head))
{
	head->func = func;
	pthread_mutex_lock(&rcu_lock);
	head->next = rcu_pending;
	rcu_pending = head;
	pthread_mutex_unlock(&rcu_lock);
}

/* A grace period, then every callback queued before it. */
void kslot_shim_rcu_reclaim(void)
{
	struct rcu_head *head, *next;

	pthread_mutex_lock(&rcu_lock);
	head = rcu_pending;
	rcu_pending = NULL;
	pthread_mutex_unlock(&rcu_lock);
	if (!head)
		return;
	kslot_shim_synchronize_rcu();
	for (; head; head = next) {
		next = head->next;
		head->func(head);
	}
}

void kslot_shim_set_cpu(int cpu)
{
	if (cpu < 0 || cpu >= KSLOT_SHIM_CPUS) {
		fprintf(stderr, "kslot_shim: no CPU %d\n", cpu);
		abort();
	}
	kslot_shim_cpu = cpu;
	kslot_shim_cpu_off = (unsigned long)cpu * KSLOT_SHIM_PERCPU_STRIDE;
}

/*
 * Per-CPU memory: one region of address space, KSLOT_SHIM_PERCPU_STRIDE
 * bytes per CPU, committed as it is touched.  Objects are carved from CPU
 * 0's part (first fit over freed blocks, else at the end) and exist at the
 * same offset in every CPU's part.
 */
#define PERCPU_FREE_MAX	256

static pthread_mutex_t percpu_lock = PTHREAD_MUTEX_INITIALIZER;
static char *percpu_base;
static size_t percpu_end;
static struct {
	size_t off, size;
} percpu_free[PERCPU_FREE_MAX];
static unsigned int percpu_nr_free;

/* Offset of a block of at least size bytes; its size in *got. */
static long percpu_take(size_t size, size_t align, size_t *got)
{
	unsigned int i;
	size_t off;

	for (i = 0; i < percpu_nr_free; i++) {
		if (percpu_free[i].size >= size &&
		    IS_ALIGNED(percpu_free[i].off, align)) {
			off = percpu_free[i].off;
			*got = percpu_free[i].size;
			percpu_free[i] = percpu_free[--percpu_nr_free];
			return off;
		}
	}
	off = ALIGN(percpu_end, align);
	if (off + size > KSLOT_SHIM_PERCPU_STRIDE)
		return -1;
	percpu_end = off + size;
	*got = size;
	return off;
}

void *kslot_shim_alloc_percpu(size_t size, size_t align)
{
	size_t got, *head;
	long off;
	int cpu;

	align = max_t(size_t, align ?: 1, 64);
	size = ALIGN(size ?: 1, 64) + 64;	/* a line for the size */
	pthread_mutex_lock(&percpu_lock);
	if (!percpu_base) {
		void *p = mmap(NULL, KSLOT_SHIM_PERCPU_STRIDE * KSLOT_SHIM_CPUS,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);

		percpu_base = p == MAP_FAILED ? NULL : p;
	}
	off = percpu_base ? percpu_take(size, align, &got) : -1;
	pthread_mutex_unlock(&percpu_lock);
	if (off < 0)
		return NULL;
	for (cpu = 0; cpu < KSLOT_SHIM_CPUS; cpu++)
		memset(percpu_base + off + cpu * KSLOT_SHIM_PERCPU_STRIDE, 0, got);
	head = (size_t *)(percpu_base + off);
	*head = got;
	return percpu_base + off + 64;
}

void kslot_shim_free_percpu(void *p)
{
	size_t off;

	if (!p)
		return;
	off = (char *)p - 64 - percpu_base;
	pthread_mutex_lock(&percpu_lock);
	if (percpu_nr_free < PERCPU_FREE_MAX) {
		percpu_free[percpu_nr_free].off = off;
		percpu_free[percpu_nr_free].size = *(size_t *)(percpu_base + off);
		percpu_nr_free++;
	}
	pthread_mutex_unlock(&percpu_lock);
}

struct kslot_shim_rcu {
	struct rcu_head head;
	void *ptr;
};

static void kslot_shim_rcu_cb(struct rcu_head *head)
{
	struct kslot_shim_rcu *r = container_of(head, struct kslot_shim_rcu,
						head);

	kvfree(r->ptr);
	free(r);
}

void kslot_shim_free_rcu(void *p)
{
	struct kslot_shim_rcu *r = malloc(sizeof(*r));

	if (!r) {
		synchronize_rcu();
		kvfree(p);
		return;
	}
	r->ptr = p;
	call_rcu(&r->head, kslot_shim_rcu_cb);
}

/*
 * The arena: 16 GiB of address space, backed only where used, with
 * transparent huge pages, as large pages map the kernel's direct map.  A
 * buddy allocator carves it: blocks of 2^order pages aligned to their
 * size, a free block's order and list links in its first page's struct
 * folio, and a freed block merged with its buddy while that is free
 * whole, so that pages one order freed serve any other, as the kernel's
 * do.  It grows by a block of the largest order, and a block handed out
 * past the pages written so far has them written up to the next huge
 * page boundary (one huge page at a time, as malloc()'s heap faults
 * them): nothing faults later in a caller's timed loop or lock hold, as
 * nothing faults in the direct map.  One mutex covers the blocks and the
 * slabs below.
 */
#define ARENA_BYTES	BIT_ULL(34)
#define ARENA_ORDERS	11
#define ARENA_BLOCK	(PAGE_SIZE << (ARENA_ORDERS - 1))

char *kslot_shim_arena;
unsigned long kslot_shim_arena_used;
struct folio *kslot_shim_vmemmap;
/* Not a folio of the range: its private field never names its address. */
struct folio kslot_shim_folio_none = { .private = &kslot_shim_folio_none };
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static struct folio *arena_free[ARENA_ORDERS];
/* Bytes of the arena written (mapped) so far. */
static unsigned long arena_mapped;

static int arena_init(void)
{
	size_t map = (ARENA_BYTES >> PAGE_SHIFT) * sizeof(struct folio);
	void *a, *v;

	a = mmap(NULL, ARENA_BYTES + ARENA_BLOCK, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	v = mmap(NULL, map, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a == MAP_FAILED || v == MAP_FAILED)
		return -1;
	madvise(a, ARENA_BYTES + ARENA_BLOCK, MADV_HUGEPAGE);
	madvise(v, map, MADV_HUGEPAGE);
	/* Align the range to the largest block, as physical memory is. */
	kslot_shim_arena = (char *)ALIGN((unsigned long)a, ARENA_BLOCK);
	kslot_shim_vmemmap = v;
	return 0;
}

static void arena_push(struct folio *f, unsigned int order)
{
	f->free_order = order + 1;
	f->prev = NULL;
	f->next = arena_free[order];
	if (f->next)
		f->next->prev = f;
	arena_free[order] = f;
}

static void arena_unlink(struct folio *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		arena_free[f->free_order - 1] = f->next;
	if (f->next)
		f->next->prev = f->prev;
	f->free_order = 0;
}

/* One block of the largest order more. */
static int arena_grow(void)
{
	unsigned long at = kslot_shim_arena_used;

	if ((!kslot_shim_arena && arena_init()) ||
	    at + ARENA_BLOCK > ARENA_BYTES)
		return -1;
	arena_push(&kslot_shim_vmemmap[at >> PAGE_SHIFT], ARENA_ORDERS - 1);
	__atomic_store_n(&kslot_shim_arena_used, at + ARENA_BLOCK,
			 __ATOMIC_RELEASE);
	return 0;
}

/* Write the arena's pages up to @end, to the huge page boundary past it. */
static void arena_map(unsigned long end)
{
	end = ALIGN(end, PMD_SIZE);
	for (; arena_mapped < end; arena_mapped += PAGE_SIZE)
		WRITE_ONCE(kslot_shim_arena[arena_mapped], 0);
}

/*
 * A block of 2^@order pages: the smallest free block that holds it, its
 * upper halves freed until it fits, as the kernel splits one.  Arena lock
 * held.
 */
static struct folio *arena_take(unsigned int order)
{
	unsigned int o = order;
	struct folio *f;

	while (o < ARENA_ORDERS && !arena_free[o])
		o++;
	if (o == ARENA_ORDERS) {
		if (arena_grow())
			return NULL;
		o = ARENA_ORDERS - 1;
	}
	f = arena_free[o];
	arena_unlink(f);
	while (o > order) {
		o--;
		arena_push(f + BIT(o), o);
	}
	f->private = NULL;
	f->addr = kslot_shim_arena +
		  ((unsigned long)(f - kslot_shim_vmemmap) << PAGE_SHIFT);
	arena_map((char *)f->addr - kslot_shim_arena + (PAGE_SIZE << order));
	f->order = order;
	f->slab_cache = NULL;
	for (o = 0; o < BIT(order); o++)
		f[o].head = f;
	return f;
}

/* Free a block, merged with its buddy while that is free.  Lock held. */
static void arena_give(struct folio *f)
{
	unsigned long pfn = f - kslot_shim_vmemmap, i;
	unsigned int order = f->order;
	struct folio *buddy;

	for (i = 0; i < BIT(order); i++)
		f[i].head = NULL;
	while (order < ARENA_ORDERS - 1) {
		buddy = &kslot_shim_vmemmap[pfn ^ BIT(order)];
		if (buddy->free_order != order + 1)
			break;
		arena_unlink(buddy);
		pfn &= ~BIT(order);
		order++;
	}
	arena_push(&kslot_shim_vmemmap[pfn], order);
}

struct folio *kslot_shim_folio_alloc(gfp_t gfp, unsigned int order)
{
	struct folio *folio = NULL;

	pthread_mutex_lock(&arena_lock);
	if (order < ARENA_ORDERS)
		folio = arena_take(order);
	pthread_mutex_unlock(&arena_lock);
	if (folio && (gfp & __GFP_ZERO))
		memset(folio->addr, 0, PAGE_SIZE << order);
	return folio;
}

void kslot_shim_folio_put(struct folio *folio)
{
	if (folio == &kslot_shim_folio_none)
		return;
	pthread_mutex_lock(&arena_lock);
	arena_give(folio);
	pthread_mutex_unlock(&arena_lock);
}

/*
 * kmalloc()'s size classes, as SLUB's kmalloc caches, each with the order
 * of its slabs that SLUB picks on 2 CPUs (the smallest holding 12 objects,
 * at most PAGE_ALLOC_COSTLY_ORDER; /sys/kernel/slab/kmalloc-N/order) and
 * its list of partial slabs.  A slab's free objects are linked through
 * their first word, a new slab's in address order; a slab leaves the list
 * when full, and an empty one goes back to the arena once its class has
 * min_partial partial slabs (SLUB's: half the size's log2, 5 to 10).
 */
struct kslot_shim_kcache {
	unsigned int size;
	unsigned int order;
	unsigned int nr_partial;
	struct folio *partial;
};

static struct kslot_shim_kcache kcaches[] = {
	{ 8, 0 }, { 16, 0 }, { 32, 0 }, { 64, 0 }, { 96, 0 }, { 128, 0 },
	{ 192, 0 }, { 256, 0 }, { 512, 1 }, { 1024, 2 }, { 2048, 3 },
	{ 4096, 3 }, { 8192, 3 },
};

static void slab_list(struct kslot_shim_kcache *c, struct folio *slab)
{
	slab->prev = NULL;
	slab->next = c->partial;
	if (slab->next)
		slab->next->prev = slab;
	c->partial = slab;
	c->nr_partial++;
}

static void slab_unlist(struct kslot_shim_kcache *c, struct folio *slab)
{
	if (slab->prev)
		slab->prev->next = slab->next;
	else
		c->partial = slab->next;
	if (slab->next)
		slab->next->prev = slab->prev;
	c->nr_partial--;
}

/* A new slab of @c, on its partial list.  Arena lock held. */
static struct folio *slab_new(struct kslot_shim_kcache *c)
{
	struct folio *slab = arena_take(c->order);
	unsigned int i, nr = (PAGE_SIZE << c->order) / c->size;
	char *obj;

	if (!slab)
		return NULL;
	obj = slab->addr;
	for (i = 0; i + 1 < nr; i++, obj += c->size)
		*(void **)obj = obj + c->size;
	*(void **)obj = NULL;
	slab->slab_cache = c;
	slab->freelist = slab->addr;
	slab->inuse = 0;
	slab_list(c, slab);
	return slab;
}

/* Larger than the largest class: a block of pages (kmalloc_large()). */
static void *kmalloc_large(size_t n, gfp_t gfp)
{
	unsigned int order = 0;
	struct folio *folio;

	while ((PAGE_SIZE << order) < n)
		order++;
	folio = kslot_shim_folio_alloc(gfp, order);
	return folio ? folio->addr : NULL;
}

void *kslot_shim_kmalloc(size_t n, gfp_t gfp)
{
	struct kslot_shim_kcache *c = kcaches;
	struct folio *slab;
	void *p = NULL;

	if (n > KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_large(n, gfp);
	while (c->size < n)
		c++;
	pthread_mutex_lock(&arena_lock);
	slab = c->partial ?: slab_new(c);
	if (slab) {
		p = slab->freelist;
		slab->freelist = *(void **)p;
		slab->inuse++;
		if (!slab->freelist)
			slab_unlist(c, slab);
	}
	pthread_mutex_unlock(&arena_lock);
	if (p && (gfp & __GFP_ZERO))
		memset(p, 0, c->size);
	return p;
}

void kslot_shim_kfree(const void *p)
{
	struct folio *slab = kslot_shim_virt_to_folio(p);
	struct kslot_shim_kcache *c;

	if (!p)
		return;
	if (slab == &kslot_shim_folio_none) {
		fprintf(stderr, "kslot_shim: kfree(%p): no kmalloc() object\n",
			p);
		abort();
	}
	pthread_mutex_lock(&arena_lock);
	c = slab->slab_cache;
	if (!c) {
		arena_give(slab);
	} else {
		if (!slab->freelist)
			slab_list(c, slab);
		*(void **)p = slab->freelist;
		slab->freelist = (void *)p;
		if (!--slab->inuse &&
		    c->nr_partial >= clamp(ilog2(c->size) / 2, 5, 10)) {
			slab_unlist(c, slab);
			slab->slab_cache = NULL;
			arena_give(slab);
		}
	}
	pthread_mutex_unlock(&arena_lock);
}

/*
 * vmalloc(): a mapping of its own, every page written at once, as
 * vmalloc() allocates and maps them all; 4 KiB pages, or with @huge
 * (kvmalloc()'s VM_ALLOW_HUGE_VMAP) from PMD_SIZE on huge pages, the
 * area then aligned and rounded up to PMD_SIZE.  The page before the area
 * says where the mapping starts and how long it is (the kernel's
 * vmap_area; its guard page is the one after the area).
 */
#define VMALLOC_MAGIC	0x6b736c6f74766d61ULL

struct vmalloc_head {
	u64 magic;
	void *map;
	size_t len;
};

void *kslot_shim_vmalloc(size_t n, gfp_t gfp, bool huge)
{
	size_t align = huge && n >= PMD_SIZE ? PMD_SIZE : PAGE_SIZE;
	size_t bytes = ALIGN(n ?: 1, align), i;
	struct vmalloc_head *head;
	char *map, *area;

	/* Room for the head's page and the alignment. */
	map = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	madvise(map, bytes + align, MADV_NOHUGEPAGE);
	area = (char *)ALIGN((unsigned long)map + PAGE_SIZE, align);
	if (align == PMD_SIZE)
		madvise(area, bytes, MADV_HUGEPAGE);
	for (i = 0; i < bytes; i += PAGE_SIZE)
		WRITE_ONCE(area[i], 0);
	head = (struct vmalloc_head *)(area - PAGE_SIZE);
	head->magic = VMALLOC_MAGIC;
	head->map = map;
	head->len = bytes + align;
	return area;
}

void kslot_shim_vfree(const void *p)
{
	struct vmalloc_head *head;

	if (!p)
		return;
	head = (struct vmalloc_head *)((const char *)p - PAGE_SIZE);
	if (head->magic != VMALLOC_MAGIC) {
		fprintf(stderr, "kslot_shim: vfree(%p): no vmalloc() area\n",
			p);
		abort();
	}
	head->magic = 0;
	munmap(head->map, head->len);
}

u32 kslot_shim_random_u32(void)
{
	static u64 state = 0x853c49e6748fea9bULL;

	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return state >> 33;
}

/* kslot_main.c's kslot_free_rcu() callback: kvfree() the object. */
void kslot_kvfree_rcu_head(struct rcu_head *rcu)
{
	kvfree(rcu);
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

/*
 * No reclaim here: nothing calls the callbacks (hives' spare groups wait
 * for kslot_hive_trim(), pools' free slabs for kslot_pool_shrink()).
 */
struct shrinker *kslot_shrinker_create(const char *prefix, const char *name,
				       unsigned long (*count)(struct shrinker *,
							      struct shrink_control *),
				       unsigned long (*scan)(struct shrinker *,
							     struct shrink_control *),
				       void *private)
{
	struct shrinker *s = calloc(1, sizeof(*s));

	if (s) {
		s->count_objects = count;
		s->scan_objects = scan;
		s->private_data = private;
	}
	return s;
}

void *kslot_shrinker_private(struct shrinker *s)
{
	return s->private_data;
}

void kslot_shrinker_destroy(struct shrinker *s)
{
	free(s);
}
