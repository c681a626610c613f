// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_demo: walks through a kslot_map's life in plain words on the
 * kernel log.  Loaded by "make run"; it does its work at load time and
 * can be unloaded right after.
 */
#include <linux/kslot_map.h>
#include <linux/module.h>
#include <linux/slab.h>

#define DEMO_MAX	1024

struct demo_obj {
	const char *name;
	struct rcu_head rcu;
};

static void demo_show(struct kslot_map *map, const char *what, u64 handle)
{
	struct demo_obj *obj;

	rcu_read_lock();
	obj = __kslot_map_lookup(map, handle);
	pr_info("  lookup %-22s handle %#018llx (slot %u, generation %llu) -> %s\n",
		what, handle, kslot_map_handle_index(map, handle),
		kslot_map_handle_gen(map, handle),
		obj ? obj->name : "REJECTED (no such live handle)");
	rcu_read_unlock();
}

static int demo_new(struct kslot_map *map, const char *name, u64 *handle)
{
	struct demo_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	int ret;

	if (!obj)
		return -ENOMEM;
	obj->name = name;
	ret = kslot_map_alloc(map, handle, obj, GFP_KERNEL);
	if (ret) {
		kfree(obj);
		return ret;
	}
	pr_info("  insert %-22s -> handle %#018llx (slot %u, generation %llu)\n",
		name, *handle, kslot_map_handle_index(map, *handle),
		kslot_map_handle_gen(map, *handle));
	return 0;
}

static void demo_free(void *obj, u64 handle, void *data)
{
	kfree(obj);
}

static int __init kslot_demo_init(void)
{
	struct kslot_slots_stats st;
	struct demo_obj *obj;
	struct kslot_map map;
	u64 a, b, c;
	int ret;

	pr_info("kslot demo: a generational handle table (kslot_map)\n");
	ret = kslot_map_init(&map, "demo", DEMO_MAX, 0);
	if (ret)
		return ret;
	pr_info("1. Handles are issued: index, tag and generation packed in a u64.\n");
	ret = demo_new(&map, "\"alpha\"", &a) ?:
	      demo_new(&map, "\"beta\"", &b);
	if (ret)
		goto out;
	pr_info("2. Handles are looked up without a lock (RCU).\n");
	demo_show(&map, "alpha", a);
	demo_show(&map, "beta", b);
	pr_info("3. alpha is erased: its slot's generation is bumped.\n");
	obj = kslot_map_remove(&map, a);
	kfree_rcu(obj, rcu);
	pr_info("4. gamma is inserted and reuses alpha's slot, one generation on.\n");
	ret = demo_new(&map, "\"gamma\"", &c);
	if (ret)
		goto out;
	pr_info("   alpha had slot %u generation %llu; gamma has slot %u generation %llu\n",
		kslot_map_handle_index(&map, a), kslot_map_handle_gen(&map, a),
		kslot_map_handle_index(&map, c), kslot_map_handle_gen(&map, c));
	pr_info("5. The stale alpha handle is rejected instead of reaching gamma.\n");
	demo_show(&map, "alpha (stale)", a);
	demo_show(&map, "gamma", c);
	/* The lowest tag bit, just above the index bits. */
	demo_show(&map, "forged (other tag)",
		  a ^ BIT_ULL(kslot_index_bits(DEMO_MAX)));
	kslot_map_stats(&map, &st);
	pr_info("6. Stats: %u live, %u slots, %u retired, %llu lookups rejected.\n",
		st.count, st.capacity, st.retired, st.rejected);
	pr_info("kslot demo: done\n");
out:
	kslot_map_destroy(&map, demo_free, NULL);
	return ret;
}

static void __exit kslot_demo_exit(void)
{
	rcu_barrier();
}

module_init(kslot_demo_init);
module_exit(kslot_demo_exit);

MODULE_DESCRIPTION("kslot demonstration");
MODULE_VERSION("0.1.0");
MODULE_LICENSE("GPL");
