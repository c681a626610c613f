// SPDX-License-Identifier: GPL-2.0
#include <linux/kslot_map.h>
#include <linux/module.h>
#include <linux/slab.h>

static int __init mydrv_init(void)
{
	u32 *obj = kzalloc(sizeof(*obj), GFP_KERNEL);	/* any object */
	struct kslot_map map;
	u64 h;						/* index, tag, generation */

	if (!obj || kslot_map_init(&map, NULL, 4096, 0) ||
	    kslot_map_alloc(&map, obj, &h, GFP_KERNEL)) {
		kfree(obj);
		return -ENOMEM;
	}
	WARN_ON(kslot_map_lookup(&map, h) != obj);	/* live: the object */
	kfree_rcu_mightsleep(kslot_map_remove(&map, h));	/* generation + 1 */
	WARN_ON(kslot_map_lookup(&map, h));		/* stale: NULL, for good */
	kslot_map_destroy(&map, NULL, NULL);
	return 0;
}
module_init(mydrv_init);
MODULE_DESCRIPTION("kslot README example: a stale handle is rejected");
MODULE_LICENSE("GPL");
