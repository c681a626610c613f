// SPDX-License-Identifier: GPL-2.0
#include <linux/kslot_map.h>
#include <linux/module.h>
#include <linux/slab.h>

static DEFINE_KSLOT_MAP(map, 4096, 0);	/* not on a stack: see mydrv_exit() */

static int __init mydrv_init(void)
{
	u32 *obj = kzalloc(sizeof(*obj), GFP_KERNEL);	/* any object */
	u64 h;						/* index, tag, generation */

	if (!obj || kslot_map_alloc(&map, &h, obj, GFP_KERNEL)) {
		kfree(obj);				/* never published */
		return -ENOMEM;
	}
	WARN_ON(kslot_map_lookup(&map, h) != obj);	/* live: the object */
	kfree_rcu_mightsleep(kslot_map_remove(&map, h));	/* generation + 1 */
	WARN_ON(kslot_map_lookup(&map, h));		/* stale: NULL, for good */
	return 0;
}

static void __exit mydrv_exit(void)
{
	kslot_map_destroy(&map, NULL, NULL);	/* no users left */
	synchronize_rcu();	/* a grace period before the map's memory goes */
}
module_init(mydrv_init);
module_exit(mydrv_exit);
MODULE_DESCRIPTION("kslot README example: a stale handle is rejected");
MODULE_LICENSE("GPL");
