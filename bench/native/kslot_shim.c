// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line parts of the native shim (see kslot_shim.h): the slow paths
 * of locks and preemption, RCU's grace periods and deferred frees,
 * per-CPU memory, size-aligned page blocks that an interior pointer finds
 * again (a direct map and its vmemmap), a fixed-seed random source, and
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

/* Lock-hold tracking: locks taken in this stretch, its start, the worst. */
static __thread unsigned int hold_locks;
static __thread uint64_t hold_t0, hold_max;

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
}

/* Start tracking the calling thread's lock holds (no lock held). */
void kslot_shim_hold_begin(void)
{
	hold_locks = 0;
	hold_max = 0;
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
