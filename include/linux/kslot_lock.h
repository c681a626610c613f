/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the kslot tables with an internal spinlock (kslot_map, kslot_dense,
 * kslot_secondary) take it: the caller chooses the context once, at init,
 * with one of these flags, instead of calling _bh or _irq variants.
 *
 * flag             | lock taken          | writers may run in
 * -----------------+---------------------+------------------------------
 * (none)           | spin_lock()         | process context
 * %KSLOT_LOCK_BH   | spin_lock_bh()      | process or softirq context
 * %KSLOT_LOCK_IRQ  | spin_lock_irqsave() | any context but NMI
 *
 * Lookups take no lock (RCU only) and run in any context, but for
 * kslot_dense_lookup() and kslot_dense_lookup_many(): they wait for a writer
 * inside its write section, so they run only where the flag shuts the
 * writers out (process context; with BH softirq too; with IRQ hardirq
 * too) and return -EDEADLK elsewhere, NMI included.
 *
 * A function whose name starts with __ needs the caller to hold the table
 * lock or rcu_read_lock() (its "Context:" says which); one without takes
 * what it needs.  Tables with no lock of their own (kslot_sparse_set,
 * kslot_hive, kslot_arena) leave serialisation to their owner and use no __.
 *
 * PREEMPT_RT: the flags keep their meaning (softirqs and threaded interrupt
 * handlers are tasks there).  No writer may be called with a raw spinlock
 * held, with interrupts or preemption disabled by hand, or in a handler
 * that is not threaded (IRQF_NO_THREAD, HRTIMER_MODE_HARD).  A dense lookup
 * may take the (sleeping) lock there, so it returns -EDEADLK in true
 * hardirq context and in a task with preemption or interrupts off,
 * whatever the flag.
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
 * As spin_lock_init(), gives every init call site classes of its own, one
 * per lock mode.  Tables of one site and mode share a class: a driver that
 * nests two takes the inner one with the table's _lock_nested() form.
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
