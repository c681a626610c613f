/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel primitives kslot's core structures use, for the native
 * userspace build in bench/native.  The kslot sources compile unmodified
 * against it: bench/native/Makefile generates a one-line stub for each
 * kernel header they include, and each stub includes this file.
 *
 * Model: KSLOT_SHIM_CPUS CPUs.  A thread says which CPU it is with
 * kslot_shim_set_cpu() (the main thread is CPU 0), and no two running
 * threads claim the same CPU, so per-CPU data has one copy per CPU while
 * local locks and interrupt masking only count (see below).  Memory comes
 * from an arena carved as the kernel's direct map and slabs are (see
 * "memory" below).  The red-black tree and its header come from the kernel
 * tree's tools/ at build time.
 *
 * What each primitive costs, here and in the kernel (x86-64; the kernel
 * figures are for a production config without lockdep, "preempt" being
 * CONFIG_PREEMPT_RCU, as Debian's PREEMPT_DYNAMIC kernels have it):
 *
 * | primitive                 | shim                     | kernel                          |
 * |---------------------------|--------------------------|---------------------------------|
 * | rcu_read_lock()           | thread counter inc,      | preempt: call of __rcu_read_lock|
 * |                           | barrier(): 1 instruction | (task counter inc), ~4 instr.;  |
 * |                           |                          | non-preempt: nothing            |
 * | rcu_read_unlock()         | barrier(), counter dec:  | preempt: call, dec, test of     |
 * |                           | 1 instruction            | ->rcu_read_unlock_special,      |
 * |                           |                          | ~7 instr.; non-preempt: nothing |
 * | synchronize_rcu()         | membarrier(), then wait  | a grace period                  |
 * |                           | for every registered     |                                 |
 * |                           | thread's RCU and preempt |                                 |
 * |                           | counts to read 0         |                                 |
 * | call_rcu(), kvfree_rcu(), | the callback queued on a | the callback queued on this     |
 * | kfree_rcu()               | list under a mutex; it   | CPU's list, interrupts off;     |
 * |                           | runs (the core's own,    | it runs after a grace period,   |
 * |                           | kslot_slots_dir_free_rcu,| in softirq context              |
 * |                           | kslot_kvfree_rcu_head)   |                                 |
 * |                           | at the bench's next      |                                 |
 * |                           | kslot_shim_rcu_reclaim() |                                 |
 * | get_state_/poll_state_/   | a load of the grace-     | a load of the grace-period      |
 * | cond_synchronize_rcu()    | period count (odd while  | sequence (and a full barrier);  |
 * |                           | one runs); cond_: the    | cond_: a grace period unless    |
 * |                           | above unless it passed   | one passed                      |
 * | spin_lock()               | counter inc + locked     | preempt_count inc + locked      |
 * |                           | cmpxchg, branch to slow  | cmpxchg, branch to slow path    |
 * |                           | path: 1 atomic           | (the call of _raw_spin_lock     |
 * |                           |                          | adds ~3 instr.): 1 atomic       |
 * | spin_unlock()             | release store, counter   | release store, preempt_count    |
 * |                           | dec + branch on zero     | dec + branch on zero            |
 * | spin_lock_bh()/_irqsave() | as spin_lock()           | + local_bh_disable() (~15       |
 * |                           |                          | instr. on enable) / pushf, cli, |
 * |                           |                          | popf                            |
 * | kslot_spin_lock_flags()   | folds to spin_lock(): the| two tests and branches of the   |
 * | and _unlock_flags(), a    | three modes compile to   | table's flags at lock and two at|
 * | table without a lock flag | the same code; with      | unlock, the saved irqflags live |
 * |                           | -DKSLOT_SHIM_LOCK_MODES  | across the section: 27 instr.   |
 * |                           | they differ, as in the   | more per alloc+remove pair than |
 * |                           | kernel                   | the default shim counts         |
 * | preempt_disable(),        | thread counter inc / dec | per-CPU preempt_count inc / dec |
 * | local_lock()              | + branch on zero         | + branch on zero                |
 * | local_lock_irqsave()      | nothing                  | pushf, cli ... popf             |
 * | this_cpu_ptr()            | add of the thread's CPU  | add of %gs:this_cpu_off         |
 * |                           | offset (%fs-relative)    |                                 |
 * | this_cpu_read/write/add/  | that add, then the plain | one %gs-relative instruction    |
 * | inc() (the core's count   | access: ~3 instructions  |                                 |
 * | of rejected handles)      |                          |                                 |
 * | alloc_percpu_gfp(),       | first fit in a reserved  | the per-CPU allocator (a chunk  |
 * | free_percpu()             | range under a mutex,     | bitmap under its lock); a       |
 * |                           | zeroed on every CPU; a   | table's first growth and its    |
 * |                           | table's first growth and | destroy                         |
 * |                           | its destroy              |                                 |
 * | kmalloc(), kzalloc(),     | an object of the size    | an object of the size class     |
 * | kmalloc_array() (a 4 KiB  | class's slab, one mutex  | from this CPU's slab, no lock   |
 * | chunk of slots); above    | for every class; above   | (a new slab now and then);      |
 * | 8 KiB (a kslot_dense      | 8 KiB a block of pages;  | above 8 KiB the page allocator; |
 * | chunk of values)          | from the arena, whose    | from the direct map, mapped     |
 * |                           | pages are written a huge | already                         |
 * |                           | page at a time, when     |                                 |
 * |                           | first handed out         |                                 |
 * | kvmalloc(), kvzalloc()    | kmalloc() up to 4 MiB,   | kmalloc() while it succeeds,    |
 * | (a directory)             | then vmalloc()           | then vmalloc()                  |
 * | vmalloc(), __vmalloc()    | mmap() of 4 KiB pages,   | pages allocated one by one and  |
 * | (a kslot_dense chunk of   | all written at once;     | mapped in the vmalloc range;    |
 * | values above 32 KiB)      | vfree() munmap()s        | vfree() unmaps (a TLB flush)    |
 * | cond_resched()            | nothing                  | a need-resched test (and a      |
 * |                           |                          | schedule if set)                |
 * | xchg(), cmpxchg64(),      | the same locked          | the same                        |
 * | try_cmpxchg(),            | instruction              |                                 |
 * | try_cmpxchg128(),         |                          |                                 |
 * | atomic*_inc/dec(), kref   |                          |                                 |
 *
 * The counts are per thread (TLS, local-exec: one %fs-relative instruction
 * each), as the kernel's are per task or per CPU.  The bench drives grace
 * periods: the frees RCU defers wait on a list until it calls
 * kslot_shim_rcu_reclaim() (kn_kslot.c does at every table reset), and
 * only registered threads (rcu_register_thread()) are waited for.
 *
 * Built with -DKSLOT_SHIM_COUNT_ATOMICS (the Makefile's counting build,
 * kslot_native_bench_count), every atomic read-modify-write above (a lock
 * acquire, xchg, cmpxchg, cmpxchg128, atomic inc/dec, kref) also adds one
 * to the thread's kslot_shim_atomics[] of its kind (KSLOT_SHIM_RMW_*).
 */
#ifndef KSLOT_SHIM_H
#define KSLOT_SHIM_H

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;

/* ---- compiler ---- */
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
/* <linux/prefetch.h>: prefetchw() is PREFETCHW on x86, as here. */
#define prefetch(x)		__builtin_prefetch(x)
#define prefetchw(x)		__builtin_prefetch(x, 1)
#ifndef barrier
#define barrier()		__asm__ __volatile__("" : : : "memory")
#endif
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
/* One thread: no race for KCSAN to ignore. */
#define data_race(x)		(x)
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
/*
 * <linux/jump_label.h>: a static key is a patched jump in the kernel (a
 * NOP while false); here a load and a test.
 */
struct static_key_false {
	int enabled;
};

#define DEFINE_STATIC_KEY_FALSE(name)	struct static_key_false name
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name
#define static_branch_unlikely(k)	unlikely(READ_ONCE((k)->enabled))
#define static_branch_enable(k)		WRITE_ONCE((k)->enabled, 1)
#define static_branch_disable(k)	WRITE_ONCE((k)->enabled, 0)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_acquire__after_ctrl_dep()	smp_rmb()
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
/* Per-thread counters: one %fs-relative instruction each. */
#define KSLOT_SHIM_TLS		__attribute__((__tls_model__("local-exec")))
/* The kinds of atomic read-modify-write the counting build tells apart. */
enum {
	KSLOT_SHIM_RMW_LOCK,		/* a spinlock acquire (cmpxchg) */
	KSLOT_SHIM_RMW_CMPXCHG,		/* cmpxchg64(), kref_get_unless_zero() */
	KSLOT_SHIM_RMW_CMPXCHG128,	/* try_cmpxchg128() */
	KSLOT_SHIM_RMW_XCHG,		/* xchg() */
	KSLOT_SHIM_RMW_ADD,		/* atomic*_inc/dec(), kref_put() */
	KSLOT_SHIM_RMW_KINDS
};

#ifdef KSLOT_SHIM_COUNT_ATOMICS
extern __thread unsigned long kslot_shim_atomics[KSLOT_SHIM_RMW_KINDS]
	KSLOT_SHIM_TLS;
#define kslot_shim_count_atomic(kind)	((void)kslot_shim_atomics[kind]++)
#else
#define kslot_shim_count_atomic(kind)	((void)0)
#endif
#define xchg(p, v) ({							\
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_XCHG);					\
	__atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); })
#define cmpxchg64(p, o, n) ({						\
	__typeof__(*(p)) __o = (o);					\
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_CMPXCHG);					\
	__atomic_compare_exchange_n(p, &__o, n, 0, __ATOMIC_SEQ_CST,	\
				    __ATOMIC_SEQ_CST);			\
	__o; })
#define try_cmpxchg(p, po, n) ({					\
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_CMPXCHG);		\
	__atomic_compare_exchange_n(p, po, n, 0, __ATOMIC_SEQ_CST,	\
				    __ATOMIC_SEQ_CST); })
/* The userspace build is 64-bit, as kslot requires. */
#define CONFIG_64BIT	1
/* cmpxchg16b: x86-64 has it (every CPU since 2006). */
typedef unsigned __int128 u128;
#define CONFIG_ARCH_SUPPORTS_INT128	1
#define system_has_cmpxchg128()		1
static inline bool try_cmpxchg128(u128 *p, u128 *o, u128 n)
{
	u64 lo = (u64)*o, hi = (u64)(*o >> 64);
	bool ok;

	kslot_shim_count_atomic(KSLOT_SHIM_RMW_CMPXCHG128);

	__asm__ __volatile__("lock cmpxchg16b %1"
			     : "=@ccz"(ok), "+m"(*p), "+a"(lo), "+d"(hi)
			     : "b"((u64)n), "c"((u64)(n >> 64)) : "memory");
	if (!ok)
		*o = (u128)hi << 64 | lo;
	return ok;
}

#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define __acquire(x)		((void)0)
#define __release(x)		((void)0)
#define __rcu
#define __percpu
#define __counted_by(m)
#define ____cacheline_aligned_in_smp	__attribute__((__aligned__(64)))
#define __aligned(n)		__attribute__((__aligned__(n)))
#define fallthrough		__attribute__((__fallthrough__))
#define _RET_IP_		((unsigned long)__builtin_return_address(0))
#define IS_ENABLED(option)	0
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#define module_param_named(name, var, type, perm)
#define MODULE_PARM_DESC(name, desc)

/* ---- numbers ---- */
#define U8_MAX			UINT8_MAX
#define U16_MAX			UINT16_MAX
#define U32_MAX			UINT32_MAX
#define U64_MAX			UINT64_MAX
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ALIGN(x, a)		(((x) + ((__typeof__(x))(a) - 1)) & \
				 ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define max3(a, b, c)		max(max(a, b), c)
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))
#define swap(a, b) \
	do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

#define div_u64(n, d)		((u64)(n) / (u32)(d))
#define BITS_PER_BYTE		8
#define BITS_PER_TYPE(t)	(sizeof(t) * BITS_PER_BYTE)

static inline unsigned int __ffs64(u64 x)
{
	return (unsigned int)__builtin_ctzll(x);
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline int ilog2(unsigned long n)
{
	return 63 - __builtin_clzl(n);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)

static inline size_t size_mul(size_t a, size_t b)
{
	size_t r;

	return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

static inline size_t size_add(size_t a, size_t b)
{
	size_t r;

	return __builtin_add_overflow(a, b, &r) ? SIZE_MAX : r;
}

#define struct_size(p, member, n) \
	size_add(sizeof(*(p)), size_mul(sizeof(*(p)->member), n))
#define struct_size_t(type, member, n) \
	struct_size((type *)NULL, member, n)

/* ---- errors and reports ---- */
#define MAX_ERRNO	4095
#define ERR_PTR(e)	((void *)(long)(e))
#define PTR_ERR(p)	((long)(p))
#define IS_ERR(p)	((unsigned long)(p) >= (unsigned long)-MAX_ERRNO)
#define IS_ERR_OR_NULL(p)	(!(p) || IS_ERR(p))
#define pr_err(...)	fprintf(stderr, __VA_ARGS__)
#define pr_warn(...)	fprintf(stderr, __VA_ARGS__)
#define WARN(c, ...)	({ bool __c = (c); if (__c) pr_warn(__VA_ARGS__); __c; })
#define WARN_ON(c)	WARN(c, "WARN_ON(%s) at %s:%d\n", #c, __FILE__, __LINE__)
#define WARN_ON_ONCE(c)	WARN_ON(c)
/* Every thread is a task: no interrupt context here. */
#define in_task()	1
#define in_nmi()	0
#define in_hardirq()	0
#define preemptible()	1
#define might_sleep()	do { } while (0)
#define cond_resched()	do { } while (0)
#define lockdep_assert_held(l)	do { } while (0)
#define lockdep_is_held(l)	1
/* No lockdep: a class key is empty, setting one does nothing. */
struct lock_class_key { };
#define lockdep_set_class(l, key)	do { (void)(key); } while (0)
#define lockdep_set_class_and_name(l, key, name) \
	do { (void)(key); (void)(name); } while (0)
#define SINGLE_DEPTH_NESTING	1

struct va_format {
	const char *fmt;
	va_list *va;
};

struct ratelimit_state {
	int unused;
};

#define ratelimit_state_init(rs, interval, burst)	do { } while (0)
#define __ratelimit(rs)	1

/* ---- atomics and references ---- */
typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, i, __ATOMIC_RELAXED)
#define atomic_long_read(v)	atomic_read(v)
#define atomic_long_set(v, i)	atomic_set(v, i)
#define atomic_long_inc(v) ({					\
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_ADD);					\
	__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED); })
#define atomic_long_dec(v) ({					\
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_ADD);					\
	__atomic_fetch_sub(&(v)->counter, 1, __ATOMIC_RELAXED); })
#define ATOMIC_LONG_INIT(i)	{ (i) }

typedef struct {
	int64_t counter;
} atomic64_t;

#define atomic64_read(v)	atomic_read(v)
#define atomic64_set(v, i)	atomic_set(v, i)
#define atomic64_inc(v) ({						\
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_ADD);					\
	__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED); })

struct kref {
	atomic_t refcount;
};

static inline bool kref_get_unless_zero(struct kref *k)
{
	int old = atomic_read(&k->refcount);

	while (old && (kslot_shim_count_atomic(KSLOT_SHIM_RMW_CMPXCHG), 1) &&
	       !__atomic_compare_exchange_n(&k->refcount.counter, &old,
						   old + 1, false,
						   __ATOMIC_SEQ_CST,
						   __ATOMIC_RELAXED))
		;
	return old != 0;
}

static inline int kref_put(struct kref *k, void (*release)(struct kref *k))
{
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_ADD);
	if (__atomic_sub_fetch(&k->refcount.counter, 1, __ATOMIC_SEQ_CST))
		return 0;
	release(k);
	return 1;
}

/*
 * ---- preemption: a per-thread count, as the kernel's preempt_count ----
 * x86 keeps need-resched inverted in the top bit of its count, so that
 * preempt_enable() is one decrement and a branch on zero.  Here the top
 * bit (KSLOT_SHIM_PREEMPT_IDLE) stays set except while the thread's lock
 * holds are tracked (kslot_shim_hold_begin()), when the count reaching
 * zero takes the branch: the end of a stretch with a lock held.
 */
#define KSLOT_SHIM_PREEMPT_IDLE		0x80000000U
extern __thread unsigned int kslot_shim_preempt_count KSLOT_SHIM_TLS;
void kslot_shim_preempt_zero(void);

/* One instruction each, as the kernel's %gs-relative incl and decl. */
static __always_inline void kslot_shim_preempt_disable(void)
{
	__asm__ __volatile__("incl %0" : "+m" (kslot_shim_preempt_count)
			     : : "memory");
}

static __always_inline void kslot_shim_preempt_enable(void)
{
	bool zero;

	__asm__ __volatile__("decl %0" : "+m" (kslot_shim_preempt_count),
			     "=@ccz" (zero) : : "memory");
	if (unlikely(zero))
		kslot_shim_preempt_zero();
}

/* ---- locks: real spinlocks, with the kernel's fast paths ---- */
typedef struct {
	int locked;
} spinlock_t;

static inline void spin_lock_init(spinlock_t *l)
{
	l->locked = 0;
}

/*
 * Lock-hold tracking (kslot_shim_hold_begin()/_end(), called with no lock
 * held): while on, the thread's longest stretch with any spinlock held, in
 * thread CPU time (so that the machine's scheduler, which can preempt a
 * userspace lock holder as it cannot preempt a kernel one, does not
 * count).  It costs the fast paths nothing: the acquire's expected value
 * (kslot_shim_lock_expect, 0) is then one no lock word holds, so every
 * acquire takes the slow path, which notes the start; the release's
 * preempt count reaches zero, which notes the end.
 */
extern __thread int kslot_shim_lock_expect KSLOT_SHIM_TLS;
uint64_t kslot_shim_thread_ns(void);
void kslot_shim_hold_begin(void);
uint64_t kslot_shim_hold_end(void);
uint64_t kslot_shim_hold_pct(double q, uint64_t *holds);
void kslot_shim_spin_lock_slow(spinlock_t *l);

/* The kernel's queued_spin_lock(): one cmpxchg, else the slow path. */
static __always_inline void spin_lock(spinlock_t *l)
{
	int old = kslot_shim_lock_expect;

	kslot_shim_preempt_disable();
	kslot_shim_count_atomic(KSLOT_SHIM_RMW_LOCK);
	if (unlikely(!__atomic_compare_exchange_n(&l->locked, &old, 1, false,
						  __ATOMIC_ACQUIRE,
						  __ATOMIC_RELAXED)))
		kslot_shim_spin_lock_slow(l);
}

static __always_inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	kslot_shim_preempt_enable();
}

#ifdef KSLOT_SHIM_LOCK_MODES
/*
 * The _bh and _irqsave locks as code of their own (a softirq count, a
 * saved "interrupt flag"), so that a table's lock-mode tests
 * (kslot_spin_lock_flags()) stay in the compiled code as in the kernel.
 */
extern __thread unsigned int kslot_shim_bh_count, kslot_shim_irq_flag;
#define spin_lock_bh(l) \
	do { kslot_shim_bh_count++; spin_lock(l); } while (0)
#define spin_unlock_bh(l) \
	do { spin_unlock(l); kslot_shim_bh_count--; } while (0)
#define spin_lock_irqsave(l, f) \
	do { (f) = kslot_shim_irq_flag; kslot_shim_irq_flag = 1; \
	     spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f) \
	do { spin_unlock(l); kslot_shim_irq_flag = (f); } while (0)
#else
#define spin_lock_bh(l)				spin_lock(l)
#define spin_unlock_bh(l)			spin_unlock(l)
#define spin_lock_irqsave(l, f)			do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)		do { (void)(f); spin_unlock(l); } while (0)
#endif
#define spin_lock_nested(l, sub)		spin_lock(l)
#define spin_lock_irqsave_nested(l, f, sub)	spin_lock_irqsave(l, f)

typedef spinlock_t raw_spinlock_t;
#define raw_spin_lock_init(l)			spin_lock_init(l)
#define raw_spin_lock_irqsave(l, f)		spin_lock_irqsave(l, f)
#define raw_spin_unlock_irqrestore(l, f)	spin_unlock_irqrestore(l, f)

/* A sequence count tied to a spinlock, as <linux/seqlock.h> has it. */
typedef struct {
	unsigned int sequence;
} seqcount_spinlock_t;

#define seqcount_spinlock_init(s, l)	((s)->sequence = 0)

static inline unsigned int read_seqcount_begin(const seqcount_spinlock_t *s)
{
	unsigned int seq;

	while ((seq = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE)) & 1)
		__builtin_ia32_pause();
	return seq;
}

static inline int read_seqcount_retry(const seqcount_spinlock_t *s,
				      unsigned int seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != seq;
}

static inline void write_seqcount_begin(seqcount_spinlock_t *s)
{
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void write_seqcount_end(seqcount_spinlock_t *s)
{
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELEASE);
}

/* A mutex as a spinlock: nothing here sleeps while holding one. */
struct mutex {
	spinlock_t lock;	/* the whole mutex */
};

#define DEFINE_MUTEX(name)	struct mutex name = { { 0 } }
#define mutex_lock(m)		spin_lock(&(m)->lock)
#define mutex_unlock(m)		spin_unlock(&(m)->lock)

typedef struct {
	int unused;
} local_lock_t;

#define local_lock_init(l)			do { } while (0)
#define local_lock(l)				kslot_shim_preempt_disable()
#define local_unlock(l)				kslot_shim_preempt_enable()
#define local_bh_disable()			kslot_shim_preempt_disable()
#define local_bh_enable()			kslot_shim_preempt_enable()
#define local_lock_irqsave(l, f)		do { (f) = 0; } while (0)
#define local_unlock_irqrestore(l, f)		do { (void)(f); } while (0)
#define cpus_read_lock()			do { } while (0)
#define cpus_read_unlock()			do { } while (0)

/*
 * ---- per-CPU data: one copy per CPU, a fixed stride apart ----
 * As in the kernel, CPU n's copy of any per-CPU object (or of a field in
 * it) is at the same offset from CPU 0's, so per_cpu_ptr() works on
 * interior pointers and this_cpu_*() on per-CPU lvalues.
 */
#define KSLOT_SHIM_CPUS			2
#define KSLOT_SHIM_PERCPU_STRIDE	(1UL << 30)
#define nr_cpu_ids			KSLOT_SHIM_CPUS
extern __thread int kslot_shim_cpu KSLOT_SHIM_TLS;
/* This CPU's offset, as the kernel's this_cpu_off: one add per access. */
extern __thread unsigned long kslot_shim_cpu_off KSLOT_SHIM_TLS;
void kslot_shim_set_cpu(int cpu);
void *kslot_shim_alloc_percpu(size_t size, size_t align);
void kslot_shim_free_percpu(void *p);

#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < KSLOT_SHIM_CPUS; (cpu)++)
#define for_each_online_cpu(cpu)	for_each_possible_cpu(cpu)
#define cpu_online(cpu)			((unsigned int)(cpu) < KSLOT_SHIM_CPUS)
#define cpu_possible(cpu)		cpu_online(cpu)
#define num_online_cpus()		KSLOT_SHIM_CPUS
#define num_possible_cpus()		KSLOT_SHIM_CPUS
#define smp_processor_id()		kslot_shim_cpu
#define raw_smp_processor_id()		kslot_shim_cpu
#define preempt_disable()		kslot_shim_preempt_disable()
#define preempt_enable()		kslot_shim_preempt_enable()
#define migrate_disable()		kslot_shim_preempt_disable()
#define migrate_enable()		kslot_shim_preempt_enable()
#define get_cpu()			({ preempt_disable(); kslot_shim_cpu; })
#define put_cpu()			preempt_enable()
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + \
			 (size_t)(cpu) * KSLOT_SHIM_PERCPU_STRIDE))
#define this_cpu_ptr(p) \
	((__typeof__(p))((char *)(p) + kslot_shim_cpu_off))
#define raw_cpu_ptr(p)			this_cpu_ptr(p)
#define per_cpu(var, cpu)		(*per_cpu_ptr(&(var), cpu))
#define this_cpu_read(var)		READ_ONCE(*this_cpu_ptr(&(var)))
#define this_cpu_write(var, v)		WRITE_ONCE(*this_cpu_ptr(&(var)), v)
#define this_cpu_add(var, v)		(*this_cpu_ptr(&(var)) += (v))
#define this_cpu_sub(var, v)		(*this_cpu_ptr(&(var)) -= (v))
#define this_cpu_inc(var)		this_cpu_add(var, 1)
#define this_cpu_dec(var)		this_cpu_sub(var, 1)
#define __this_cpu_read(var)		this_cpu_read(var)
#define __this_cpu_write(var, v)	this_cpu_write(var, v)
#define __this_cpu_add(var, v)		this_cpu_add(var, v)
#define __this_cpu_inc(var)		this_cpu_inc(var)
#define __this_cpu_dec(var)		this_cpu_dec(var)
#define __alloc_percpu_gfp(size, align, gfp) \
	kslot_shim_alloc_percpu(size, align)
#define __alloc_percpu(size, align)	kslot_shim_alloc_percpu(size, align)
#define alloc_percpu_gfp(type, gfp) \
	((type *)kslot_shim_alloc_percpu(sizeof(type), __alignof__(type)))
#define free_percpu(p)			kslot_shim_free_percpu((void *)(p))

/* ---- work items run at once ---- */
struct work_struct {
	void (*func)(struct work_struct *work);
};

#define INIT_WORK(w, f)			((w)->func = (f))
#define system_wq			NULL

static inline bool queue_work_on(int cpu, void *wq, struct work_struct *w)
{
	w->func(w);
	return true;
}

#define flush_work(w)			do { (void)(w); } while (0)
static inline bool cancel_work_sync(struct work_struct *w)
{
	return false;
}

/* What a writer that may not sleep defers: the bench's writers sleep. */
static inline bool queue_work(void *wq, struct work_struct *w)
{
	abort();
}

/* ---- memory ---- */
#define GFP_KERNEL		0x1u
#define GFP_ATOMIC		0x2u
#define GFP_NOWAIT		0x4u
#define __GFP_ZERO		0x100u
#define __GFP_NOWARN		0x200u
#define __GFP_ACCOUNT		0x400u
#define __GFP_COMP		0x800u
#define __GFP_DMA		0x1000u
#define __GFP_DMA32		0x2000u
#define __GFP_HIGHMEM		0x4000u
#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_ALLOC_COSTLY_ORDER	3
#define POISON_FREE		0x6b

static inline bool gfpflags_allow_blocking(gfp_t gfp)
{
	return gfp & GFP_KERNEL;
}

#define want_init_on_alloc(gfp)	(((gfp) & __GFP_ZERO) != 0)
#define want_init_on_free()	false
#define kasan_check_write(p, n)	do { } while (0)
#define kmemleak_alloc(p, n, c, gfp)	do { } while (0)
#define kmemleak_free(p)	do { } while (0)

/*
 * Memory as the kernel hands it out (kslot_shim.c).  The page allocator
 * and kmalloc() share one arena, a reserved range that transparent huge
 * pages back, as large pages map the kernel's direct map: blocks of
 * 2^order pages aligned to their size (a buddy allocator), with a struct
 * folio per page, as the vmemmap has a struct page.  kmalloc() up to
 * KMALLOC_MAX_CACHE_SIZE takes an object of its size class from a slab
 * of that class, a block of pages cut into objects of one size, as
 * SLUB's kmalloc caches; a larger kmalloc() is a block of its own, whole
 * pages.  kfree() finds an object's slab from its address (the slab's
 * metadata is in its struct folio).  vmalloc() maps an area of its own,
 * all its pages at once, with 4 KiB pages; kvmalloc() is kmalloc() up to
 * KMALLOC_MAX_SIZE, beyond it a vmalloc() area mapped with huge pages
 * (kvmalloc()'s VM_ALLOW_HUGE_VMAP, as on x86-64).  docs/benchmarks.rst
 * ("The shim's memory") says what this models and what it does not.
 */
struct page;

struct folio {
	void *private;
	void *addr;
	unsigned int order;
	struct folio *head;
	/* private: the shim's allocators' own */
	/* A slab's size class (NULL: not a slab), free objects, objects out. */
	struct kslot_shim_kcache *slab_cache;
	void *freelist;
	unsigned int inuse;
	/* A free block's order + 1 (0: not the head of a free block). */
	unsigned int free_order;
	/* Links of a free block's list or a partial slab's. */
	struct folio *next, *prev;
};

extern char *kslot_shim_arena;
extern unsigned long kslot_shim_arena_used;
extern struct folio *kslot_shim_vmemmap;
extern struct folio kslot_shim_folio_none;

struct folio *kslot_shim_folio_alloc(gfp_t gfp, unsigned int order);
void kslot_shim_folio_put(struct folio *folio);
void *kslot_shim_kmalloc(size_t n, gfp_t gfp);
void kslot_shim_kfree(const void *p);
void *kslot_shim_vmalloc(size_t n, gfp_t gfp, bool huge);
void kslot_shim_vfree(const void *p);

/* A pointer into the arena's pages handed out so far. */
static inline bool kslot_shim_in_arena(const void *p)
{
	return (unsigned long)((const char *)p - kslot_shim_arena) <
	       READ_ONCE(kslot_shim_arena_used);
}

static inline struct folio *kslot_shim_virt_to_folio(const void *p)
{
	struct folio *f;

	if (!kslot_shim_in_arena(p))
		return &kslot_shim_folio_none;
	f = kslot_shim_vmemmap[((const char *)p - kslot_shim_arena) >>
			       PAGE_SHIFT].head;
	return f ? f : &kslot_shim_folio_none;
}

#define folio_alloc(gfp, order)		kslot_shim_folio_alloc(gfp, order)
#define folio_put(f)			kslot_shim_folio_put(f)
#define folio_address(f)		((f)->addr)
#define folio_test_slab(f)		(!!(f)->slab_cache)
#define virt_to_folio(p)		kslot_shim_virt_to_folio(p)
#define virt_addr_valid(p)		((p) != NULL)
#define alloc_pages(gfp, order) \
	((struct page *)({ struct folio *__f = folio_alloc(gfp, order); \
			   __f ? __f->addr : NULL; }))
#define page_address(page)		((void *)(page))
#define virt_to_page(p)			((struct page *)(p))
#define __free_pages(page, order) \
	kslot_shim_folio_put(kslot_shim_virt_to_folio(page))

/* SLUB's largest kmalloc cache, and the largest block (MAX_PAGE_ORDER). */
#define KMALLOC_MAX_CACHE_SIZE		(2 * PAGE_SIZE)
#define KMALLOC_MAX_SIZE		(PAGE_SIZE << 10)
#define PMD_SIZE			(1UL << 21)

#define kmalloc(n, gfp)			kslot_shim_kmalloc(n, gfp)
#define kzalloc(n, gfp)			kmalloc(n, (gfp) | __GFP_ZERO)
#define kcalloc(n, s, gfp)		kzalloc(size_mul(n, s), gfp)
#define kmalloc_array(n, s, gfp)	kmalloc(size_mul(n, s), gfp)
#define kfree(p)			kslot_shim_kfree(p)
#define vmalloc(n)			kslot_shim_vmalloc(n, GFP_KERNEL, false)
#define __vmalloc(n, gfp)		kslot_shim_vmalloc(n, gfp, false)
#define vfree(p)			kslot_shim_vfree(p)
/* Not the arena: every other pointer the module frees is a vmalloc() one. */
#define is_vmalloc_addr(p)		((p) && !kslot_shim_in_arena(p))

/*
 * kmalloc() first, as the kernel's kvmalloc(), which on a machine with
 * memory to spare gets what it asks up to KMALLOC_MAX_SIZE; vmalloc() for
 * what no kmalloc() can serve.
 */
static inline void *kvmalloc(size_t n, gfp_t gfp)
{
	if (n <= KMALLOC_MAX_SIZE)
		return kmalloc(n, gfp);
	if (!gfpflags_allow_blocking(gfp))
		return NULL;
	return kslot_shim_vmalloc(n, gfp, true);
}

#define kvzalloc(n, gfp)		kvmalloc(n, (gfp) | __GFP_ZERO)
#define kvcalloc(n, s, gfp)		kvzalloc(size_mul(n, s), gfp)

static inline void kvfree(const void *p)
{
	if (is_vmalloc_addr(p))
		vfree(p);
	else
		kfree(p);
}

/* <linux/sizes.h> */
#define SZ_4K				0x00001000
#define SZ_32K				0x00008000
#define SZ_64K				0x00010000
#define SZ_1M				0x00100000
#define PAGE_ALIGN(n)			(((n) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))

/* The size classes above, as the kernel's kmalloc_size_roundup() sees them. */
static inline size_t kmalloc_size_roundup(size_t n)
{
	if (n <= 8)
		return 8;
	if (n > 64 && n <= 96)
		return 96;
	if (n > 128 && n <= 192)
		return 192;
	return roundup_pow_of_two(n);
}

void kslot_shim_free_rcu(void *p);
#define kfree_rcu(p, field)		kslot_shim_free_rcu(p)
#define kvfree_rcu(p, field)		kslot_shim_free_rcu(p)

static inline void *memchr_inv(const void *p, int c, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != (unsigned char)c)
			return (void *)(s + i);
	return NULL;
}

static inline size_t strscpy(char *d, const char *s, size_t n)
{
	snprintf(d, n, "%s", s);
	return strlen(d);
}

/*
 * ---- RCU: a per-thread nesting count, as preemptible RCU's ----
 * Grace periods: see the top of this file and kslot_shim.c.
 */
extern __thread int kslot_shim_rcu_nesting KSLOT_SHIM_TLS;

static __always_inline void rcu_read_lock(void)
{
	__asm__ __volatile__("incl %0" : "+m" (kslot_shim_rcu_nesting)
			     : : "memory");
}

static __always_inline void rcu_read_unlock(void)
{
	__asm__ __volatile__("decl %0" : "+m" (kslot_shim_rcu_nesting)
			     : : "memory");
}

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

typedef void (*rcu_callback_t)(struct rcu_head *head);

void kslot_shim_rcu_register(void);
void kslot_shim_rcu_unregister(void);
void kslot_shim_synchronize_rcu(void);
void kslot_shim_call_rcu(struct rcu_head *head,
			 void (*func)(struct rcu_head *head));
void kslot_shim_rcu_reclaim(void);

/*
 * Grace-period states, as the kernel's polled API: the count is odd while
 * a synchronize_rcu() runs and each one adds 2, so a state is the even
 * count that the first grace period starting after it ends at.
 */
extern unsigned long kslot_shim_rcu_gp_seq;

static inline unsigned long get_state_synchronize_rcu(void)
{
	return (__atomic_load_n(&kslot_shim_rcu_gp_seq, __ATOMIC_ACQUIRE) +
		3) & ~1UL;
}

static inline bool poll_state_synchronize_rcu(unsigned long state)
{
	return (long)(__atomic_load_n(&kslot_shim_rcu_gp_seq,
				      __ATOMIC_ACQUIRE) - state) >= 0;
}

#define cond_synchronize_rcu(state) \
	do { if (!poll_state_synchronize_rcu(state)) synchronize_rcu(); } while (0)
#define rcu_register_thread()		kslot_shim_rcu_register()
#define rcu_unregister_thread()		kslot_shim_rcu_unregister()
#define synchronize_rcu()		kslot_shim_synchronize_rcu()
#define call_rcu(head, func)		kslot_shim_call_rcu(head, func)
#define rcu_barrier()			kslot_shim_rcu_reclaim()
#define rcu_dereference(p)		READ_ONCE(p)
#define rcu_dereference_check(p, c)	READ_ONCE(p)
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_read_lock_any_held()	1
#define rcu_dereference_protected(p, c)	(p)
#define rcu_assign_pointer(p, v) \
	__atomic_store_n(&(p), (__typeof__(p))(v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v)		((p) = (v))

/* ---- lists ---- */
struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

static inline void list_del_init(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	INIT_LIST_HEAD(e);
}

static inline void list_move(struct list_head *e, struct list_head *head)
{
	list_del_init(e);
	list_add(e, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

#define list_entry(p, type, member)	container_of(p, type, member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_first_entry_or_null(head, type, member) \
	((head)->next != (head) ? list_entry((head)->next, type, member) : NULL)
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

/* ---- shrinkers: kslot_shrinker_create() registers nothing ---- */
#define ARCH_KMALLOC_MINALIGN		8

/* ---- misc ---- */
struct shrink_control {
	gfp_t gfp_mask;
	unsigned long nr_to_scan;
};

struct shrinker {
	unsigned long (*count_objects)(struct shrinker *s,
				       struct shrink_control *sc);
	unsigned long (*scan_objects)(struct shrinker *s,
				      struct shrink_control *sc);
	void *private_data;
};

#define SHRINK_STOP		(~0UL)
#define SHRINK_EMPTY		(~0UL - 1)

struct dentry;
struct file_operations {
	int unused;
};

struct seq_file {
	void *private;
};

#define seq_printf(m, ...)	((void)(m))
#define DEFINE_SHOW_ATTRIBUTE(name) \
	static const struct file_operations name##_fops __attribute__((unused)) = { \
		.unused = sizeof(&name##_show) \
	}

u32 kslot_shim_random_u32(void);
#define get_random_u32()	kslot_shim_random_u32()

/* Clamp an index below size without a branch the CPU could mispredict. */
static inline unsigned long array_index_mask_nospec(unsigned long index,
						    unsigned long size)
{
	unsigned long mask;

	__asm__("cmp %1,%2; sbb %0,%0;" : "=r" (mask)
		: "g" (size), "r" (index) : "cc");
	return mask;
}

#define array_index_nospec(index, size)					\
({									\
	__typeof__(index) _i = (index);					\
	unsigned long _mask = array_index_mask_nospec(_i, size);	\
	(__typeof__(_i))(_i & _mask);					\
})

#endif /* KSLOT_SHIM_H */
