/* SPDX-License-Identifier: GPL-2.0 */
/* kslot_dense's own header: kslot_dense.c and kslot_dev_restore.c. */
#ifndef _KSLOT_DENSE_INTERNAL_H
#define _KSLOT_DENSE_INTERNAL_H

#include <linux/kslot_dense.h>

#include "kslot_internal.h"

/* In kslot_dense.c, for kslot_dev_restore.c. */
int kslot_dense_setup(struct kslot_dense *dense, size_t elem_size,
		      u32 max_entries, unsigned int flags,
		      struct lock_class_key *keys);
int kslot_dense_make_room(struct kslot_dense *dense, u32 n, gfp_t gfp,
			  unsigned long *irqflags)
	__must_hold(&dense->lock);

/* Not asserting the lock: held, or no writer runs (destroy). */
static inline void *kslot_dense_elem(struct kslot_dense *dense, u32 pos)
{
	return kslot_dense_dir_at(rcu_dereference_protected(dense->vals, true),
				  dense->shift, dense->elem_size, pos);
}

static inline u64 *kslot_dense_rev(struct kslot_dense *dense, u32 pos)
{
	return kslot_dense_dir_at(rcu_dereference_protected(dense->rev, true),
				  dense->shift, sizeof(u64), pos);
}

#endif /* _KSLOT_DENSE_INTERNAL_H */
