/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_dense's own header, shared by its files and nothing else:
 *
 *   kslot_dense.c          the table: init and destroy, the growth of the
 *                          packed array, insert, get, update, erase, the
 *                          walks, statistics, the KUnit hook
 *   kslot_dense_restore.c  the restore of a checkpointed table
 *
 * See include/linux/kslot_dense.h for the rules.
 */
#ifndef _KSLOT_DENSE_INTERNAL_H
#define _KSLOT_DENSE_INTERNAL_H

#include <linux/kslot_dense.h>

#include "kslot_internal.h"

/* The packed array and its reverse map: see kslot_dense.c. */
struct kslot_dense_vals;

/* In kslot_dense.c, for kslot_dense_restore.c and the inlines below. */
void __kslot_dense_mirror(struct kslot_dense *dense, u32 pos);
void kslot_dense_vals_free(struct kslot_dense_vals *vals, gfp_t gfp);
int kslot_dense_make_room(struct kslot_dense *dense, u32 n, gfp_t gfp,
			  unsigned long *irqflags,
			  struct kslot_dense_vals **stale)
	__must_hold(&dense->lock);

/* The value at @pos, without asserting the lock (init, destroy). */
static inline void *kslot_dense_elem(struct kslot_dense *dense, u32 pos)
{
	return dense->data + (size_t)pos * dense->elem_size;
}

static __always_inline void kslot_dense_mirror(struct kslot_dense *dense,
					       u32 pos)
{
	if (unlikely(kslot_grow_copied(&dense->grow, pos)))
		__kslot_dense_mirror(dense, pos);
}

#endif /* _KSLOT_DENSE_INTERNAL_H */
