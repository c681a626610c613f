/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the kslot tables with an internal spinlock (kslot_map, kslot_dense,
 * kslot_secondary) take it: the caller chooses the context at init, once,
 * with one of these flags, instead of calling _bh or _irq variants.
 *
 * flag             | lock taken          | writers may run in
 * -----------------+---------------------+------------------------------
 * (none)           | spin_lock()         | process context
 * %KSLOT_LOCK_BH   | spin_lock_bh()      | process or softirq context
 * %KSLOT_LOCK_IRQ  | spin_lock_irqsave() | any context (but see RT below)
 *
 * Lookups take no lock (RCU only).  Where they may run:
 *
 * lookup                      | (none)  | %KSLOT_LOCK_BH | %KSLOT_LOCK_IRQ
 * ----------------------------+---------+----------------+----------------
 * kslot_map's and             | any     | any            | any
 * kslot_secondary's lookups,  | context | context        | context
 * kslot_dense_contains()      |         |                |
 * kslot_dense_get(),          | process | process or     | process, softirq
 * kslot_dense_get_many()      | context | softirq        | or hardirq
 *
 * A dense get copies a value under a sequence count, waiting for a writer
 * inside its write section; where it could interrupt that writer on its
 * own CPU it would wait forever, so it runs only in the contexts the
 * writers shut out, and returns -EDEADLK in the others (NMI included).
 *
 * Names follow one rule in every kslot header: a function whose name
 * starts with __ requires the caller to hold something, the table lock
 * (__kslot_map_remove(), __kslot_dense_at()) or rcu_read_lock()
 * (__kslot_map_lookup(), __kslot_objtable_lookup(),
 * __kslot_secondary_lookup()); its kernel-doc "Context:" says which.
 * A function without __ takes whatever it needs itself (kslot_map_lookup()
 * takes RCU, kslot_map_remove() the lock).  Structures without a lock of
 * their own (kslot_sparse_set, kslot_hive, kslot_arena) leave every
 * serialisation to their owner, like a list_head, and use no __.
 *
 * On PREEMPT_RT the same flags hold, with the meaning RT gives the locks:
 *
 * - spinlock_t is a sleeping lock (an rt_mutex with priority inheritance);
 *   holding it disables migration, not preemption.  No writer may be
 *   called with a raw_spinlock_t held, or with preemption or interrupts
 *   disabled by hand.
 * - %KSLOT_LOCK_BH: softirqs run in task context (the raising task or
 *   ksoftirqd) and spin_lock_bh() takes the per-CPU BH local lock, so a
 *   softirq writer is serialised exactly as on other kernels.
 * - %KSLOT_LOCK_IRQ: interrupt handlers are threaded, so a handler is a
 *   task and may call writers; spin_lock_irqsave() does not disable
 *   interrupts there.  Code that really runs in hardirq context on RT
 *   (IRQF_NO_THREAD handlers, hrtimers in HRTIMER_MODE_HARD, anything
 *   under raw_spin_lock() or local_irq_disable()) must not call a writer:
 *   that is unsupported, and CONFIG_PROVE_RAW_LOCK_NESTING and
 *   CONFIG_DEBUG_ATOMIC_SLEEP report it.  Nor a dense get, which takes
 *   the table lock there to wait for a writer: it returns -EDEADLK in
 *   true hardirq context on RT, whatever the flag.  kslot offers no raw-lock
 *   tables: a writer's work (allocation, growth) is not bounded enough
 *   for a raw lock.
 */
#ifndef _LINUX_KSLOT_LOCK_H
#define _LINUX_KSLOT_LOCK_H

#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>

#define KSLOT_LOCK_BH	BIT(0)
#define KSLOT_LOCK_IRQ	BIT(1)

/**
 * kslot_lock_flags_valid() - Check the lock flags of an init call.
 * @flags: The flags given to init.
 * @all: Every flag the structure knows.
 *
 * Context: Any context.
 * Return: false if @flags has unknown bits or both lock flags.
 */
static inline bool kslot_lock_flags_valid(unsigned int flags,
					  unsigned int all)
{
	return !(flags & ~all) &&
	       (flags & (KSLOT_LOCK_BH | KSLOT_LOCK_IRQ)) !=
	       (KSLOT_LOCK_BH | KSLOT_LOCK_IRQ);
}

/**
 * kslot_lock_mode() - The lock mode of a table's flags.
 * @flags: The flags given to init.
 *
 * Context: Any context.
 * Return: 0 for a process-context lock, 1 for %KSLOT_LOCK_BH, 2 for
 * %KSLOT_LOCK_IRQ: the index of the mode's lockdep class.
 */
static inline unsigned int kslot_lock_mode(unsigned int flags)
{
	return flags & KSLOT_LOCK_IRQ ? 2 : flags & KSLOT_LOCK_BH ? 1 : 0;
}

/* Lock modes: none, %KSLOT_LOCK_BH, %KSLOT_LOCK_IRQ. */
#define KSLOT_LOCK_MODES	3

/**
 * kslot_lock_classes() - Lockdep classes for a table lock, per site.
 *
 * Like spin_lock_init(), this declares static struct lock_class_keys
 * where it is expanded, one per lock mode; the init function takes the
 * one of the table's mode (kslot_lock_set_class()).  So every init call
 * site (every file calling a static inline init, as with
 * xa_init_flags()) gets classes of its own, and a table written from
 * softirqs never shares one with a table written with softirqs enabled.
 * Tables initialised at one site and in one mode share a class: a driver
 * that nests two of them takes the inner one with its _lock_nested()
 * form.
 *
 * Context: Any context.
 * Return: %KSLOT_LOCK_MODES keys, for the init functions that take them.
 */
#define kslot_lock_classes()						\
({									\
	static struct lock_class_key __kslot_lock_keys[KSLOT_LOCK_MODES]; \
	__kslot_lock_keys;						\
})

/**
 * kslot_lock_set_class() - Put a table lock in its mode's class.
 * @lock: The lock, initialised.
 * @flags: The table's flags.
 * @keys: What kslot_lock_classes() gave the table's init.
 *
 * Context: Any context; before the lock is first taken.
 */
static inline void kslot_lock_set_class(spinlock_t *lock, unsigned int flags,
					struct lock_class_key *keys)
{
	static const char * const names[KSLOT_LOCK_MODES] = {
		"kslot_table_lock", "kslot_table_lock_bh", "kslot_table_lock_irq",
	};
	unsigned int mode = kslot_lock_mode(flags);

	lockdep_set_class_and_name(lock, &keys[mode], names[mode]);
}

/**
 * kslot_spin_lock_flags() - Take a table's spinlock the way its flags ask.
 * @lock: The lock.
 * @flags: The table's flags.
 *
 * Context: Any context the flags allow.
 * Return: Saved interrupt flags for kslot_spin_unlock_flags().
 */
static __always_inline unsigned long
kslot_spin_lock_flags(spinlock_t *lock, unsigned int flags)
	__acquires(lock)
{
	unsigned long irqflags = 0;

	/* One test for the commonest mode, writers in process context. */
	if (likely(!(flags & (KSLOT_LOCK_IRQ | KSLOT_LOCK_BH))))
		spin_lock(lock);
	else if (flags & KSLOT_LOCK_IRQ)
		spin_lock_irqsave(lock, irqflags);
	else
		spin_lock_bh(lock);
	return irqflags;
}

/**
 * kslot_spin_lock_flags_nested() - Take a table's spinlock, nested.
 * @lock: The lock.
 * @flags: The table's flags.
 * @subclass: The lockdep subclass, 1 .. 7, of a lock taken inside
 *	another of its class (spin_lock_nested()).
 *
 * Released by kslot_spin_unlock_flags(), as kslot_spin_lock_flags().
 *
 * Context: Any context the flags allow.
 * Return: Saved interrupt flags for kslot_spin_unlock_flags().
 */
static __always_inline unsigned long
kslot_spin_lock_flags_nested(spinlock_t *lock, unsigned int flags,
			     unsigned int subclass)
	__acquires(lock)
{
	unsigned long irqflags = 0;

	if (flags & KSLOT_LOCK_IRQ) {
		spin_lock_irqsave_nested(lock, irqflags, subclass);
	} else if (flags & KSLOT_LOCK_BH) {
		/* spin_lock_bh(), nested: spin_unlock_bh() undoes both. */
		local_bh_disable();
		spin_lock_nested(lock, subclass);
	} else {
		spin_lock_nested(lock, subclass);
	}
	return irqflags;
}

/**
 * kslot_spin_unlock_flags() - Release a lock kslot_spin_lock_flags() took.
 * @lock: The lock.
 * @flags: The table's flags.
 * @irqflags: The value kslot_spin_lock_flags() returned.
 *
 * Context: Caller holds @lock.
 */
static __always_inline void
kslot_spin_unlock_flags(spinlock_t *lock, unsigned int flags,
			unsigned long irqflags)
	__releases(lock)
{
	if (likely(!(flags & (KSLOT_LOCK_IRQ | KSLOT_LOCK_BH))))
		spin_unlock(lock);
	else if (flags & KSLOT_LOCK_IRQ)
		spin_unlock_irqrestore(lock, irqflags);
	else
		spin_unlock_bh(lock);
}

#endif /* _LINUX_KSLOT_LOCK_H */
