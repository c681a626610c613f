/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kslot_slots: the generational slot core under kslot's handle tables.
 *
 * It owns the slot storage and its growth, the free list, the generations,
 * the per-table tag, the one handle check, the counters and debugfs.
 * Each slot stores a pointer, which the tables built on it (kslot_map,
 * ...) give its meaning.  What /dev/kslot alone uses (keyed tables,
 * reset, restore, the dump) is in module/kslot_dev_lib.h, namespace
 * KSLOT_DEV.  The handle formats are in
 * kslot_handle.h; their sizes, 32-bit reuse, the slot words, the storage
 * and why one compare checks a handle are in docs/core.rst.
 *
 * operation                           | lock                  | may sleep
 * ------------------------------------+-----------------------+-------------
 * __kslot_slots_lookup(),             | caller: RCU or lock   | no
 * kslot_slots_read*()                 |                       |
 * kslot_slots_lookup(), _find(),      | takes RCU             | no
 * _find_range(), _get()               |                       |
 * kslot_slots_alloc(), _alloc_bulk(), | takes the lock,       | if gfp allows
 * _reserve()                          | drops it to grow      |
 * kslot_slots_replace(), _remove(),   | takes the lock        | no
 * _remove_bulk(), the _if forms,      |                       |
 * _stats()                            |                       |
 * __kslot_slots_alloc() and the       | caller: table lock    | no (never
 * other __ writers                    | (kslot_slots_lock())  | allocates)
 * kslot_slots_destroy()               | caller: no writers;   | if named
 *                                     | free @s a grace       | (debugfs)
 *                                     | period later          |
 *
 * The bulk calls drop the lock every %KSLOT_SLOTS_BULK entries.
 * The __ writers use free slots only: kslot_slots_reserve() provides them
 * beforehand (the xa_reserve() pattern).  A zeroed table is a valid empty
 * one of max_entries 0, whose lock was never initialised: do not call
 * kslot_slots_lock() on it.  Re-initialising a table starts its
 * generations over: present no handle of its previous life to a 32-bit
 * table, which has no tag to reject it.
 */
#ifndef _LINUX_KSLOT_SLOTS_H
#define _LINUX_KSLOT_SLOTS_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/kslot_handle.h>
#include <linux/kslot_lock.h>
#include <linux/nospec.h>
#include <linux/prefetch.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/*
 * Readers load a slot's word in one single-copy-atomic 64-bit access.
 * Kconfig says "depends on 64BIT"; this catches an out-of-tree build.
 */
#ifndef CONFIG_64BIT
#error "kslot needs a 64-bit kernel (CONFIG_64BIT)"
#endif

struct dentry;

/* Writers take the table lock with spin_lock_bh(). */
#define KSLOT_SLOTS_LOCK_BH	KSLOT_LOCK_BH
/* Writers take the table lock with spin_lock_irqsave(). */
#define KSLOT_SLOTS_LOCK_IRQ	KSLOT_LOCK_IRQ
/* Charge the slot tables to the current memcg. */
#define KSLOT_SLOTS_ACCOUNT	BIT(2)
/* Issue 32-bit handles (nonzero, below 2^31): see kslot_handle.h. */
#define KSLOT_SLOTS_HANDLE32	BIT(3)
/*
 * Keyed table: the caller picks the handles (module/kslot_dev_lib.h);
 * kslot_slots_alloc() refuses.
 */
#define KSLOT_SLOTS_KEYED	BIT(5)
#define KSLOT_SLOTS_FLAGS_ALL	(KSLOT_SLOTS_LOCK_BH | KSLOT_SLOTS_LOCK_IRQ | \
				 KSLOT_SLOTS_ACCOUNT | KSLOT_SLOTS_HANDLE32 | \
				 KSLOT_SLOTS_KEYED)
/*
 * Set by init, never passed to it: the lock is initialised (LOCKED), and
 * the table has a free list (ALLOC).  The writers' one test before the lock.
 */
#define KSLOT_SLOTS_F_LOCKED	BIT(30)
#define KSLOT_SLOTS_F_ALLOC	BIT(31)

/* Slots per chunk, one page; a smaller table has one chunk of its size. */
#define KSLOT_SLOTS_CHUNK	256U
#define KSLOT_SLOTS_CHUNK_SHIFT	8	/* ilog2(KSLOT_SLOTS_CHUNK) */
/* Slots a table of max_entries this or more has after its first growth. */
#define KSLOT_SLOTS_MIN		KSLOT_SLOTS_CHUNK
/* A 32-bit table issues no handle again within this many allocations. */
#define KSLOT_SLOTS_REUSE_DISTANCE	BIT(20)
/* Slots or values a walk of a whole table handles per hold of its lock. */
#define KSLOT_SLOTS_WALK	1024U
/* Entries a bulk alloc or remove handles per hold of the table lock. */
#define KSLOT_SLOTS_BULK	32U

/* Free-list link values, in a free slot's object field. */
#define KSLOT_SLOTS_NONE	U32_MAX
#define KSLOT_SLOTS_RETIRED	(U32_MAX - 1)

/* The tag of a keyed table until its first insert binds one. */
#define KSLOT_SLOTS_TAG_UNBOUND	U32_MAX

/**
 * struct kslot_slot - One slot: the live handle and its object, or a free
 *	word and the free-list link (docs/design.rst).
 */
struct kslot_slot {
	/* private: */
	u64 word;
	void *obj;
};

/**
 * struct kslot_dir - A directory of chunks that never move.
 *
 * The one growable storage of kslot that lock-free readers index
 * (module/kslot_dir.c): a slot table's chunks, what a lookup reaches
 * through the table's RCU pointer; kslot_dense's packed values.  Its
 * first chunk pointers are near, in @chunk (32 KiB of directory at
 * most); the rest are far, in leaves of 4096 under @far.  Every field is
 * private:
 *
 * - rcu: Frees the directory a grace period after it is replaced or the
 *   table destroyed or reset.
 * - nr: Elements of the near chunks lookups may index: written with
 *   release after the chunk pointers (under the owner's lock), read with
 *   acquire by lookups.
 * - rejected: Handles that named no live entry, counted per CPU (the
 *   table's one counter, carried from directory to directory).
 * - far: The far leaves, NULL before the first far chunk: set once, as
 *   each leaf, before @far_nr covers them.
 * - far_nr: Elements of the far chunks lookups may index, as @nr.
 * - chunks: Chunk pointers set, near and far (the owner's lock).
 * - room: Near chunk pointers it has room for.
 * - leaves: Leaf pointers @far has room for.
 * - owner: The chunks, the far leaves and the counter are freed with
 *   this directory (false once a larger one took them over; the
 *   owner's lock).
 * - index_mask: A slot table's handle index mask, for the slow path of
 *   its lookups (kslot_slots_read_far()); 0 in kslot_dense's.
 * - chunk: The near chunks.
 */
struct kslot_dir {
	/* private: */
	struct rcu_head rcu;
	unsigned long nr;
	u64 __percpu *rejected;
	void ***far;
	unsigned long far_nr;
	u32 chunks;
	u32 room;
	u32 index_mask;
	u16 leaves;
	bool owner;
	void *chunk[] __counted_by(room);
};

/**
 * kslot_dir_nr() - The elements of a directory's near chunks readers may index.
 * @dir: A directory, from its owner's RCU-protected pointer.
 *
 * The acquire pairs with the release that appends a chunk: the chunk
 * pointers below the count, and their contents, are seen initialised.
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element count, at least 1.
 */
static __always_inline unsigned long kslot_dir_nr(const struct kslot_dir *dir)
{
	/* Pairs with the release in kslot_dir_append(). */
	return smp_load_acquire(&dir->nr);
}

/**
 * kslot_dir_total() - The elements a directory lets readers index.
 * @dir: A directory, from its owner's RCU-protected pointer.
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element count, near and far, at least 1.
 */
static __always_inline unsigned long
kslot_dir_total(const struct kslot_dir *dir)
{
	/* The far count first: once it is not 0 the near one is final. */
	unsigned long far = smp_load_acquire(&dir->far_nr);

	return kslot_dir_nr(dir) + far;
}

/* Chunk pointers in a far leaf of a directory: 32 KiB of them. */
#define KSLOT_DIR_LEAF_SHIFT	12
#define KSLOT_DIR_LEAF		BIT(KSLOT_DIR_LEAF_SHIFT)

/**
 * __kslot_dir_far() - Element @i of a directory's far part.
 * @dir: A directory, from its owner's RCU-protected pointer.
 * @i: An element index, trusted or not.
 * @shift: Elements per chunk, as a shift.
 * @size: Bytes per element.
 *
 * The slow path of a lookup, out of line: kslot_dir_far(), and a slot
 * table's kslot_slots_read_far().  The acquire of the far count pairs
 * with the release in kslot_dir_append(): the far array, the leaf and
 * the chunk an index below it names are seen initialised.  The index is
 * clamped with array_index_nospec().
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element, or NULL if @i is not in the far part readers may
 * index (an index of the near part included).
 */
static __always_inline void *__kslot_dir_far(const struct kslot_dir *dir,
					     unsigned long i, u32 shift,
					     size_t size)
{
	/* Pairs with the release in kslot_dir_append(). */
	unsigned long nr = smp_load_acquire(&dir->far_nr), c;
	/*
	 * The far part starts at the near count, final once the far one is
	 * not 0; below, the subtraction wraps: past @nr too.
	 */
	unsigned long f = i - READ_ONCE(dir->nr);

	if (f >= nr)
		return NULL;
	f = array_index_nospec(f, nr);
	c = f >> shift;
	return dir->far[c >> KSLOT_DIR_LEAF_SHIFT][c & (KSLOT_DIR_LEAF - 1)] +
	       (f & (BIT(shift) - 1)) * size;
}

void *kslot_dir_far(const struct kslot_dir *dir, unsigned long i, u32 shift,
		    size_t size);

/**
 * kslot_dir_at() - Element @i of a directory, near or far.
 * @dir: A directory, from its owner's RCU-protected pointer.
 * @i: An element index, trusted or not.
 * @shift: Elements per chunk, as a shift.
 * @size: Bytes per element.
 *
 * The index is clamped with array_index_nospec() in either part.
 *
 * Context: Caller holds rcu_read_lock() or the owner's lock.
 * Return: The element, or NULL if @i is past those readers may index.
 */
static __always_inline void *kslot_dir_at(const struct kslot_dir *dir,
					  unsigned long i, u32 shift,
					  size_t size)
{
	unsigned long nr = kslot_dir_nr(dir);

	if (likely(i < nr)) {
		i = array_index_nospec(i, nr);
		return dir->chunk[i >> shift] + (i & (BIT(shift) - 1)) * size;
	}
	return kslot_dir_far(dir, i, shift, size);
}

/**
 * kslot_dir_slot() - Slot @i of a slot table's directory's near chunks.
 * @dir: The directory.
 * @i: A slot index below its nr.
 *
 * Context: Caller holds rcu_read_lock() or the table lock.
 * Return: The slot.
 */
static __always_inline struct kslot_slot *
kslot_dir_slot(const struct kslot_dir *dir, unsigned long i)
{
	return (struct kslot_slot *)dir->chunk[i >> KSLOT_SLOTS_CHUNK_SHIFT] +
	       (i & (KSLOT_SLOTS_CHUNK - 1));
}

/**
 * struct kslot_free_acct - Who frees the memory a table stops using.
 * @queue: Call @free(@rcu) after an RCU grace period, as call_rcu() would,
 *	and account for @bytes (the allocator's size) until then.  Called in
 *	any context the table's writers run in, maybe under the table lock:
 *	it must not sleep.  @free does not sleep either.
 *
 * Optional (kslot_slots_set_free_acct(), module/kslot_dev_lib.h); without
 * one, call_rcu().
 */
struct kslot_free_acct {
	void (*queue)(struct kslot_free_acct *acct, struct rcu_head *rcu,
		      rcu_callback_t free, size_t bytes);
};

/**
 * struct kslot_slots - A generational slot table.
 *
 * Every field is private: use the functions below.
 */
struct kslot_slots {
	/* private: */
	/*
	 * Read by every lookup: the directory (RCU; NULL before the first
	 * growth), the tag, the flags and the handle format.  A static table
	 * sets the format at its first growth, before it publishes @dir.
	 */
	struct kslot_dir __rcu *dir;
	u32 tag;
	unsigned int flags;
	u32 index_mask;
	u32 tag_shift;
	u32 gen_shift;
	/* The same format as masks, for the writers' fast paths. */
	u32 gen_low;
	u64 gen_bits;
	/* Written by writers under @lock: a cache line of their own. */
	spinlock_t lock ____cacheline_aligned_in_smp;
	/* Slots that can hold entries (near and far, less the padding). */
	u32 capacity;
	/* First free slot, or KSLOT_SLOTS_NONE. */
	u32 free_head;
	/* Live slots, placeholders included (read locklessly). */
	u32 count;
	u32 max_entries;
	/* Slots retired because their generations were used up (64-bit). */
	u32 retired;
	/* 32-bit tables: allocations issued; the waiting slots, oldest first. */
	u32 issued;
	u32 waiting;
	u32 wait_head;
	u32 wait_tail;
	/* Debugfs file of a named table, or NULL. */
	struct dentry *debugfs;
	/* Between the first kslot_slots_restore_*() and restore_done(). */
	bool restoring;
	/* Where replaced and destroyed memory goes, or NULL: call_rcu(). */
	struct kslot_free_acct *free_acct;
};

/* The flags a static table may have: the rest need kslot_slots_init(). */
#define KSLOT_SLOTS_STATIC_FLAGS	(KSLOT_SLOTS_LOCK_BH | KSLOT_SLOTS_LOCK_IRQ | \
					 KSLOT_SLOTS_ACCOUNT)

/**
 * KSLOT_SLOTS_INIT() - Initialise a table defined statically.
 * @max: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @fl: %KSLOT_SLOTS_LOCK_BH or %KSLOT_SLOTS_LOCK_IRQ (not both) and
 *	%KSLOT_SLOTS_ACCOUNT; other bits are dropped.
 *
 * As XARRAY_INIT(): the table kslot_slots_init() would leave, without a
 * debugfs file, of 64-bit handles.  Its lock has a lockdep class of its
 * own; its tag is drawn at its first growth or kslot_slots_tag().
 */
#define KSLOT_SLOTS_INIT(max, fl) {					\
	.tag = KSLOT_SLOTS_TAG_UNBOUND,					\
	.flags = KSLOT_SLOTS_F_LOCKED | KSLOT_SLOTS_F_ALLOC |		\
		 ((fl) & KSLOT_SLOTS_STATIC_FLAGS),			\
	.lock = __SPIN_LOCK_UNLOCKED(kslot_slots.lock),			\
	.free_head = KSLOT_SLOTS_NONE,					\
	.max_entries = (max),						\
}

/**
 * struct kslot_slots_stats - A snapshot of a table's counters.
 * @count: Live entries, placeholders included.
 * @capacity: Slots allocated so far.
 * @max_entries: Capacity limit.
 * @retired: Slots retired for good (64-bit tables).
 * @waiting: Slots whose generations wrapped, waiting to start over
 *	(32-bit tables).
 * @rejected: Nonzero handles that named no live entry, once the table
 *	has grown.
 * @bytes: Memory the directory, the chunks and the per-CPU counter take,
 *	at the allocator's size (not a replaced directory).
 * @grow_bytes: Memory the next growth would allocate (an upper bound); 0
 *	if the table cannot grow.
 */
struct kslot_slots_stats {
	u32 count;
	u32 capacity;
	u32 max_entries;
	u32 retired;
	u32 waiting;
	u64 rejected;
	u64 bytes;
	u64 grow_bytes;
};

int __kslot_slots_init(struct kslot_slots *s, const char *kind,
		       const char *name, u32 max_entries, unsigned int flags,
		       struct lock_class_key *keys);

/**
 * kslot_slots_init() - Initialise a table, its lock in the caller's class.
 * @s: The table.
 * @kind: As __kslot_slots_init().
 * @name: As __kslot_slots_init().
 * @max_entries: As __kslot_slots_init().
 * @flags: As __kslot_slots_init().
 *
 * Context: As __kslot_slots_init().
 * Return: As __kslot_slots_init().
 */
#define kslot_slots_init(s, kind, name, max_entries, flags)		\
	__kslot_slots_init(s, kind, name, max_entries, flags,		\
			   kslot_lock_classes())
void kslot_slots_destroy(struct kslot_slots *s,
			 void (*fn)(void *obj, u64 handle, void *data),
			 void *data);
int kslot_slots_alloc(struct kslot_slots *s, u64 *handle, void *obj,
		      gfp_t gfp);
int kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj,
			void **old);
void *kslot_slots_remove(struct kslot_slots *s, u64 handle);
int kslot_slots_alloc_bulk(struct kslot_slots *s, u64 *handles,
			   void *const *objs, u32 nr, gfp_t gfp);
u32 kslot_slots_remove_bulk(struct kslot_slots *s, const u64 *handles,
			    u32 nr, void **objs);
void *kslot_slots_lookup(struct kslot_slots *s, u64 handle);
void *kslot_slots_get(struct kslot_slots *s, u64 handle,
		      size_t ref_offset,
		      void (*release)(struct kref *ref));
void *kslot_slots_find(struct kslot_slots *s, u32 *index, u32 max,
		       u64 *handle);
void *kslot_slots_find_range(struct kslot_slots *s, u32 *index, u32 end,
			     u64 *handle);
void kslot_slots_stats(struct kslot_slots *s,
		       struct kslot_slots_stats *st);
int kslot_slots_reserve(struct kslot_slots *s, u32 nr, gfp_t gfp);
int __kslot_slots_alloc(struct kslot_slots *s, u64 *handle, void *obj);
int __kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj,
			  void **old);
void *__kslot_slots_remove(struct kslot_slots *s, u64 handle);
int kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			   void *obj);
int __kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			     void *obj);
int kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old);
int __kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old);

/**
 * kslot_slots_lock() - Take a table's writer lock.
 * @s: The table.
 *
 * As the table's lock flags say (kslot_lock.h).  While it is held, the __
 * functions may be called and no other writer changes the table.
 *
 * Context: Any context the table's lock flags allow; not with the lock
 * already held.
 * Return: Saved interrupt flags for kslot_slots_unlock().
 */
static __always_inline unsigned long kslot_slots_lock(struct kslot_slots *s)
	__acquires(&s->lock)
{
	return kslot_spin_lock_flags(&s->lock, s->flags);
}

/**
 * kslot_slots_lock_nested() - Take a table's writer lock inside another's.
 * @s: The table.
 * @subclass: The lockdep subclass, 1 .. 7.
 *
 * For a caller that holds the lock of another table of the same lockdep
 * class (kslot_lock_classes()), always in the same order.
 *
 * Context: As kslot_slots_lock().
 * Return: Saved interrupt flags for kslot_slots_unlock().
 */
static __always_inline unsigned long
kslot_slots_lock_nested(struct kslot_slots *s, unsigned int subclass)
	__acquires(&s->lock)
{
	return kslot_spin_lock_flags_nested(&s->lock, s->flags, subclass);
}

/**
 * kslot_slots_unlock() - Release a table's writer lock.
 * @s: The table.
 * @irqflags: The value kslot_slots_lock() returned.
 *
 * Context: Caller holds the table lock.
 */
static __always_inline void kslot_slots_unlock(struct kslot_slots *s,
					       unsigned long irqflags)
	__releases(&s->lock)
{
	kslot_spin_unlock_flags(&s->lock, s->flags, irqflags);
}

/**
 * kslot_slots_handle_index() - The slot index bits of a handle.
 * @s: The table whose format applies.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The index bits of @handle in @s's format (not bounded by the
 * table's size).
 */
static __always_inline u32 kslot_slots_handle_index(const struct kslot_slots *s,
						    u64 handle)
{
	return (u32)handle & READ_ONCE(s->index_mask);
}

/**
 * kslot_slots_handle_tag() - The tag bits of a handle.
 * @s: The table whose format applies.
 * @handle: A handle, valid or not.
 *
 * Context: Any context.
 * Return: The bits of @handle at @s's tag position, 0 .. %KSLOT_TAG_MASK;
 * 0 for a table of 32-bit handles, which have none.
 */
static inline u32 kslot_slots_handle_tag(const struct kslot_slots *s,
					 u64 handle)
{
	/* A 32-bit table's gen_low is its index mask: no tag bits. */
	return (handle & s->gen_low) >> s->tag_shift;
}

/**
 * kslot_slots_handle_gen() - The generation of a handle.
 * @s: The table whose format applies.
 * @handle: A handle (or a slot's word), valid or not.
 *
 * Context: Any context.
 * Return: The generation bits of @handle in @s's format: odd for a
 * handle the table may have issued.
 */
static inline u64 kslot_slots_handle_gen(const struct kslot_slots *s,
					 u64 handle)
{
	return (handle & s->gen_bits) >> s->gen_shift;
}

/**
 * kslot_slots_gen_bits() - The generation bits of a table's handles.
 * @s: The table, initialised (and grown once, if defined statically).
 *
 * Context: Any context.
 * Return: The number of generation bits.
 */
static inline u32 kslot_slots_gen_bits(const struct kslot_slots *s)
{
	return fls64(s->gen_bits) - s->gen_shift;
}

/**
 * __kslot_slots_slot() - The slot an untrusted index names, near part.
 * @dir: A table's directory, from the RCU-protected pointer.
 * @nr: Its near slot count, read with kslot_dir_nr().
 * @index: A slot index from an untrusted handle.
 *
 * The clamp sends an index past @nr to slot 0, whose word cannot match
 * it; a far slot's handle takes the slow path (kslot_slots_read_far()).
 *
 * Context: Caller holds rcu_read_lock() or the table lock.
 * Return: The slot to compare the handle with.
 */
static __always_inline const struct kslot_slot *
__kslot_slots_slot(const struct kslot_dir *dir, unsigned long nr,
		   u32 index)
{
	return kslot_dir_slot(dir, array_index_nospec((unsigned long)index, nr));
}

/**
 * struct kslot_slots_reader - A table pinned for a run of lookups.
 *
 * As &struct xa_state: on the caller's stack, with no cleanup.
 */
struct kslot_slots_reader {
	/* private: */
	const struct kslot_dir *dir;
	unsigned long nr;
	u32 index_mask;
};

/**
 * kslot_slots_read_begin() - Pin a table for a run of lookups.
 * @r: The reader, on the caller's stack.
 * @s: The table.
 *
 * The run does not see chunks a growth adds to the near part after this
 * call (it sees the far part as it is); a run that must see them calls
 * this again.
 *
 * Context: Caller holds rcu_read_lock() (or the table lock) from this call
 * to its last kslot_slots_read().
 */
static __always_inline void kslot_slots_read_begin(struct kslot_slots_reader *r,
						   struct kslot_slots *s)
{
	const struct kslot_dir *dir =
		rcu_dereference_check(s->dir, lockdep_is_held(&s->lock));

	r->dir = dir;
	/* The clamp; read only with a directory (kslot_slots_read()). */
	r->nr = dir ? kslot_dir_nr(dir) : 0;
	/* Ordered after the count's acquire: a static table's is set late. */
	r->index_mask = READ_ONCE(s->index_mask);
}

void *kslot_slots_read_far(const struct kslot_dir *dir, u64 handle);

/* True, with the object in *@obj, if @slot is live under @handle. */
static __always_inline bool kslot_slot_load(const struct kslot_slot *slot,
					    u64 handle, void **obj)
{
	/* Word, object, word: pairs with the release in the writers. */
	if (unlikely(smp_load_acquire(&slot->word) != handle))
		return false;
	*obj = READ_ONCE(slot->obj);
	smp_rmb(); /* Object before the word re-check. */
	return likely(READ_ONCE(slot->word) == handle);
}

/**
 * kslot_slots_read_slot() - Look up a handle at the slot a prefetch found.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 * @slot: What kslot_slots_read_prefetch() returned for @handle in this run.
 * @handle: A handle, valid or not.
 *
 * @slot must be the one returned for this very @handle: a forged handle
 * read at another slot could match a free slot's word.
 *
 * Context: As kslot_slots_read_begin().
 * Return: As kslot_slots_read().
 */
static __always_inline void *
kslot_slots_read_slot(const struct kslot_slots_reader *r,
		      const struct kslot_slot *slot, u64 handle)
{
	void *obj;

	if (kslot_slot_load(slot, handle, &obj))
		return obj;
	/* A slot past the near chunks, or a miss: out of line. */
	return kslot_slots_read_far(r->dir, handle);
}

/**
 * kslot_slots_read() - Look up a handle in a pinned table.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 * @handle: A handle, valid or not.
 *
 * Context: As kslot_slots_read_begin().
 * Return: The object, or NULL if @handle is not live in the pinned table
 * or is a placeholder.
 */
static __always_inline void *kslot_slots_read(const struct kslot_slots_reader *r,
					      u64 handle)
{
	/* No directory before the first growth (or in a zeroed table). */
	if (unlikely(!r->dir))
		return NULL;
	return kslot_slots_read_slot(r, __kslot_slots_slot(r->dir, r->nr,
				     (u32)handle & r->index_mask), handle);
}

/* A run over this many slots or more prefetches this many handles ahead. */
#define KSLOT_SLOTS_PREFETCH_MIN	4096U
#define KSLOT_SLOTS_READ_AHEAD	8U

/**
 * kslot_slots_read_ahead() - How far ahead a run should prefetch.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 *
 * Test it once per run: over a table that fits the first-level cache,
 * prefetches cost more than they save.
 *
 * Context: As kslot_slots_read_begin().
 * Return: %KSLOT_SLOTS_READ_AHEAD, or 0 for a table of fewer than
 * %KSLOT_SLOTS_PREFETCH_MIN slots.
 */
static __always_inline u32
kslot_slots_read_ahead(const struct kslot_slots_reader *r)
{
	return r->nr >= KSLOT_SLOTS_PREFETCH_MIN ? KSLOT_SLOTS_READ_AHEAD : 0;
}

/**
 * kslot_slots_read_prefetch() - Start loading the slot a handle names.
 * @r: A reader begun by kslot_slots_read_begin() in this RCU section.
 * @handle: A handle, valid or not, that the run reads soon.
 *
 * Only in a run kslot_slots_read_ahead() allows.  Keep the slot in a ring
 * of %KSLOT_SLOTS_READ_AHEAD on the stack, filled before the first read
 * (so in a run of more handles than that): a read speculated past the
 * loop's end then finds a clamped slot, never a stale stack word.
 *
 * Context: As kslot_slots_read_begin().
 * Return: The slot @handle names, clamped, only for kslot_slots_read_slot()
 * on @handle in this run.
 */
static __always_inline const struct kslot_slot *
kslot_slots_read_prefetch(const struct kslot_slots_reader *r, u64 handle)
{
	const struct kslot_slot *slot =
		__kslot_slots_slot(r->dir, r->nr, (u32)handle & r->index_mask);

	prefetch(slot);
	return slot;
}

/**
 * __kslot_slots_lookup() - Look up a handle without taking any lock.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * Context: Caller holds rcu_read_lock() or the table lock.
 * Return: The object, valid while the caller stays in the RCU read-side
 * critical section; NULL if @handle is not live in @s or is a placeholder.
 */
static __always_inline void *__kslot_slots_lookup(struct kslot_slots *s,
						  u64 handle)
{
	struct kslot_slots_reader r;

	kslot_slots_read_begin(&r, s);
	return kslot_slots_read(&r, handle);
}

/**
 * kslot_slots_count() - Number of live entries.
 * @s: The table.
 *
 * Context: Any context.  Lockless; the value may be stale by the time it
 * is used unless the caller excludes writers.
 * Return: Live entries, placeholders included.
 */
static inline u32 kslot_slots_count(const struct kslot_slots *s)
{
	return READ_ONCE(s->count);
}

/* A static table's tag: its first growth or kslot_slots_tag() draws it. */
static inline u32 __kslot_slots_bind_tag(struct kslot_slots *s)
{
	u32 old = KSLOT_SLOTS_TAG_UNBOUND, tag = kslot_random_tag();

	if (!try_cmpxchg(&s->tag, &old, tag))
		tag = old;
	return tag;
}

/**
 * kslot_slots_tag() - The tag every handle of a table carries.
 * @s: The table.
 *
 * Context: Any context but NMI (get_random_u32() for an unbound tag).
 * Return: The tag, 0 .. %KSLOT_TAG_MASK; 0 for a table of 32-bit handles,
 * which carry none; %KSLOT_SLOTS_TAG_UNBOUND for a keyed table no insert
 * has bound yet.
 */
static inline u32 kslot_slots_tag(struct kslot_slots *s)
{
	u32 tag = READ_ONCE(s->tag);

	if (unlikely(tag == KSLOT_SLOTS_TAG_UNBOUND) &&
	    (s->flags & KSLOT_SLOTS_F_ALLOC))
		tag = __kslot_slots_bind_tag(s);
	return tag;
}

#endif /* _LINUX_KSLOT_SLOTS_H */
