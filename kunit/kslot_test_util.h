/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kslot KUnit suites.
 */
#ifndef _KSLOT_TEST_UTIL_H
#define _KSLOT_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kslot_slots.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "kslot_internal.h"

#define KSLOT_TEST_MAX_THREADS	8

/*
 * Enter the context of an interrupt handler, for the cases that call a
 * structure from "any context".  Interrupts are disabled; on PREEMPT_RT,
 * where interrupt handlers are threads that run with bottom halves
 * disabled (irq_forced_thread_fn()), and where code with interrupts really
 * disabled may not take a spinlock_t or allocate, bottom halves are
 * disabled instead.  Returns what kslot_test_irq_exit() needs.
 */
static inline unsigned long kslot_test_irq_enter(void)
{
	unsigned long flags = 0;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		local_bh_disable();
	else
		local_irq_save(flags);
	return flags;
}

/* Leave the context kslot_test_irq_enter() entered. */
static inline void kslot_test_irq_exit(unsigned long flags)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		local_bh_enable();
	else
		local_irq_restore(flags);
}

/*
 * Run @writer and @nr_readers copies of @reader as kthreads, spread over
 * the online CPUs, for @ms milliseconds; then set *@stop and wait for all
 * of them.
 */
static inline void kslot_test_run_threads(struct kunit *test,
					  int (*writer)(void *),
					  int (*reader)(void *),
					  int nr_readers, void *ctx,
					  atomic_t *stop, unsigned int ms)
{
	struct task_struct *t[KSLOT_TEST_MAX_THREADS];
	int i, n = nr_readers + 1;

	KUNIT_ASSERT_LE(test, n, KSLOT_TEST_MAX_THREADS);
	for (i = 0; i < n; i++) {
		t[i] = kthread_create(i ? reader : writer, ctx, "kslot_test/%d",
				      i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
		kthread_bind(t[i], i % num_online_cpus());
		get_task_struct(t[i]);
		wake_up_process(t[i]);
	}
	msleep(ms);
	atomic_set(stop, 1);
	for (i = 0; i < n; i++) {
		kthread_stop(t[i]);
		put_task_struct(t[i]);
	}
}

/* Can a suite fail the n-th kslot allocation of a call? */
static inline bool kslot_test_fail_nth_usable(void)
{
	return IS_ENABLED(CONFIG_FAULT_INJECTION);
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * Evaluate @expr with the @n-th kslot allocation in this task failing;
 * *@injected tells whether that allocation was reached.
 */
#define kslot_test_with_fail_nth(n, injected, expr)	({		\
	typeof(expr) __ret;						\
	kslot_test_fail_alloc_arm(n);					\
	__ret = (expr);							\
	*(injected) = kslot_test_fail_alloc_disarm();			\
	__ret;								\
})
#else
#define kslot_test_with_fail_nth(n, injected, expr)	({		\
	(void)(n);							\
	*(injected) = false;						\
	(expr);								\
})
#endif

/*
 * Handles and words in the format of table @s (kslot_handle.h, docs/core.rst),
 * for cases that forge a handle or check a slot's word.
 */

/* @n generations in place: @h + kslot_test_gens(s, 2) is @h's next one. */
static inline u64 kslot_test_gens(const struct kslot_slots *s, u64 n)
{
	return n << s->gen_shift;
}

/* Bit 63 of a 64-bit table's handles and free words; 0 if 32-bit. */
static inline u64 kslot_test_fmt_bit(const struct kslot_slots *s)
{
	return s->flags & KSLOT_SLOTS_HANDLE32 ? 0 : KSLOT_HANDLE64_BIT;
}

/* Slot @index at @gen under tag @tag: @s's own handle if @tag is its tag. */
static inline u64 kslot_test_handle(const struct kslot_slots *s, u32 index,
				    u32 tag, u64 gen)
{
	return kslot_test_fmt_bit(s) | kslot_test_gens(s, gen) |
	       (u64)(tag & KSLOT_TAG_MASK) << s->tag_shift | index;
}

/* The word of free slot @index at @gen (0 also for a retired one). */
static inline u64 kslot_test_free_word(const struct kslot_slots *s,
				       u32 index, u64 gen)
{
	return kslot_test_fmt_bit(s) | kslot_test_gens(s, gen) | (index ^ 1);
}

/*
 * The chunk pointers of a directory's near part at its largest (32 KiB
 * of directory) and of a far leaf (module/kslot_dir.c).
 */
#define KSLOT_TEST_DIR_NEAR	((SZ_32K - offsetof(struct kslot_dir, chunk)) / \
				 sizeof(void *))
#define KSLOT_TEST_DIR_LEAF	4096U

/*
 * What a directory of @chunks chunks takes past its full near part, for
 * storage of at most @max: the near part, the far array (sized for @max)
 * and the leaves.
 */
static inline size_t kslot_test_dir_far_bytes(u32 chunks, u32 max)
{
	u32 far = chunks - KSLOT_TEST_DIR_NEAR;

	return kmalloc_size_roundup(struct_size_t(struct kslot_dir, chunk,
						  KSLOT_TEST_DIR_NEAR)) +
	       kmalloc_size_roundup(DIV_ROUND_UP(max - KSLOT_TEST_DIR_NEAR,
						 KSLOT_TEST_DIR_LEAF) *
				    sizeof(void *)) +
	       DIV_ROUND_UP(far, KSLOT_TEST_DIR_LEAF) * SZ_32K;
}

#endif /* _KSLOT_TEST_UTIL_H */
