/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kslot KUnit suites.
 */
#ifndef _KSLOT_TEST_UTIL_H
#define _KSLOT_TEST_UTIL_H

#include "kslot_internal.h"

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

#endif /* _KSLOT_TEST_UTIL_H */
