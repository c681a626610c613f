// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_slots: the generational slot core.  See include/linux/kslot_slots.h
 * for the slot format, the storage and the rules.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kslot_slots.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kslot_internal.h"

/*
 * KUnit's hook at the test points of kslot_internal.h, or NULL: one load
 * and an untaken branch where no case sets it.
 */
#if IS_ENABLED(CONFIG_KUNIT)
static kslot_slots_test_hook_t kslot_slots_test_hook;

static void kslot_slots_test_point(struct kslot_slots *s,
				   enum kslot_slots_test_point point)
{
	kslot_slots_test_hook_t fn = READ_ONCE(kslot_slots_test_hook);

	if (unlikely(fn))
		fn(s, point);
}
#else
static void kslot_slots_test_point(struct kslot_slots *s,
				   enum kslot_slots_test_point point)
{
}
#endif

/*
 * A zeroed table (never initialised: max_entries 0) is an empty one whose
 * lock was never initialised: the writers answer for it without taking
 * the lock (see "Zero is empty" in kslot_slots.h).
 */
static __always_inline bool kslot_slots_zeroed(const struct kslot_slots *s)
{
	return unlikely(!s->max_entries);
}

static struct kslot_slots_table *kslot_slots_hdr(struct kslot_slot *slots)
{
	return container_of(slots, struct kslot_slots_table, slots[0]);
}

static struct kslot_slot *kslot_slots_locked(struct kslot_slots *s)
{
	return rcu_dereference_protected(s->slots, lockdep_is_held(&s->lock));
}

/*
 * The handle formats (the top of kslot_slots.h): a table's index mask, the
 * bit its generation starts at and its tag say everything.
 */

/* Index bits of a 32-bit table of @max_entries slots (at least 2 slots). */
static u32 kslot_slots_index_bits32(u32 max_entries)
{
	return max(fls64(max_entries - 1), 1);
}

static void kslot_slots_init_format(struct kslot_slots *s, u32 max_entries)
{
	if (s->flags & KSLOT_SLOTS_HANDLE32) {
		u32 bits = kslot_slots_index_bits32(max_entries);

		s->index_mask = BIT(bits) - 1;
		s->gen_shift = bits;
		s->tag = 0;
	} else {
		s->index_mask = KSLOT_INDEX_MAX;
		s->gen_shift = KSLOT_GEN_SHIFT;
		s->tag = kslot_random_tag();
	}
}

/* The generation of a word or handle (32-bit: 31 - gen_shift bits). */
static u32 kslot_slots_word_gen(const struct kslot_slots *s, u64 word)
{
	return word >> s->gen_shift;
}

/* The largest generation of the table's format (odd: the last live one). */
static u32 kslot_slots_gen_max(const struct kslot_slots *s)
{
	if (s->flags & KSLOT_SLOTS_HANDLE32)
		return BIT(31 - s->gen_shift) - 1;
	return U32_MAX;
}

/* The generation after @gen; 0 when @gen was the slot's last. */
static u32 kslot_slots_gen_next(const struct kslot_slots *s, u32 gen)
{
	return (gen + 1) & kslot_slots_gen_max(s);
}

static u64 kslot_slots_make(const struct kslot_slots *s, u32 index, u32 gen)
{
	return (u64)gen << s->gen_shift |
	       (u64)s->tag << KSLOT_INDEX_BITS | index;
}

/* The word of free (or, with @gen 0, retired) slot @index: see the top. */
static u64 kslot_slots_free_word(const struct kslot_slots *s, u32 index,
				 u32 gen)
{
	return (u64)gen << s->gen_shift | (index ^ 1);
}

static void *kslot_slots_link(u32 next)
{
	return (void *)(unsigned long)next;
}

static u32 kslot_slots_next(const struct kslot_slot *slot)
{
	/* Per-CPU tables: the dump reads it while magazine writers write. */
	return (unsigned long)READ_ONCE(slot->obj);
}

/*
 * Per-CPU tables (the top of kslot_slots.h).  Their magazines need
 * try_cmpxchg128() on a slot: without it a per-CPU table has none, and
 * every writer takes the table lock.
 */
#if defined(system_has_cmpxchg128) && defined(CONFIG_ARCH_SUPPORTS_INT128)
static bool kslot_slots_can_mag(void)
{
	return system_has_cmpxchg128();
}

/* A slot's two fields as one u128, as they lie in memory. */
static u128 kslot_slots_pack(u64 word, void *obj)
{
	u128 o = (unsigned long)obj;

	return IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? (u128)word << 64 | o :
						   o << 64 | word;
}

/*
 * Change @slot from {@cur->word, @cur->obj} to {@word, @obj} in one
 * try_cmpxchg128().  On failure @cur is set to what the slot holds.
 */
static bool kslot_slots_cas2(struct kslot_slot *slot, struct kslot_slot *cur,
			     u64 word, void *obj)
{
	u128 o = kslot_slots_pack(cur->word, cur->obj);

	if (try_cmpxchg128((u128 *)slot, &o, kslot_slots_pack(word, obj)))
		return true;
	if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN)) {
		cur->word = o >> 64;
		cur->obj = (void *)(unsigned long)(u64)o;
	} else {
		cur->word = (u64)o;
		cur->obj = (void *)(unsigned long)(u64)(o >> 64);
	}
	return false;
}
#else
static bool kslot_slots_can_mag(void)
{
	return false;
}

static bool kslot_slots_cas2(struct kslot_slot *slot, struct kslot_slot *cur,
			     u64 word, void *obj)
{
	/* Never called: a table without magazines has no lock-free writer. */
	return false;
}
#endif

/*
 * A magazine lock is taken in one function and released in another (or
 * not kept at all, see kslot_slots_mag_get()), which sparse cannot
 * follow: it is kept out of sparse's lock context.
 */
static __always_inline unsigned long
kslot_slots_mag_lock(struct kslot_slots *s, struct kslot_slots_mag *m)
{
	unsigned long irqflags = kslot_spin_lock_flags(&m->lock, s->flags);

	__release(&m->lock);
	return irqflags;
}

static __always_inline void
kslot_slots_mag_unlock(struct kslot_slots *s, struct kslot_slots_mag *m,
		       unsigned long irqflags)
{
	__acquire(&m->lock);
	kslot_spin_unlock_flags(&m->lock, s->flags, irqflags);
}

/*
 * spin_lock_init() makes one lockdep class per call site: one site per
 * lock mode, so that magazines of tables whose writers run in interrupts
 * and of tables whose writers do not are not taken for one lock used both
 * ways.
 */
static void kslot_slots_mag_lock_init_task(struct kslot_slots_mag *m)
{
	spin_lock_init(&m->lock);
}

static void kslot_slots_mag_lock_init_bh(struct kslot_slots_mag *m)
{
	spin_lock_init(&m->lock);
}

static void kslot_slots_mag_lock_init_irq(struct kslot_slots_mag *m)
{
	spin_lock_init(&m->lock);
}

/* The magazines of a per-CPU table, or NULL.  Process context. */
static struct kslot_slots_mag __percpu *
kslot_slots_mags_alloc(const struct kslot_slots *s)
{
	struct kslot_slots_mag __percpu *mags;
	int cpu;

	if (kslot_should_fail_alloc())
		return NULL;
	mags = alloc_percpu_gfp(struct kslot_slots_mag,
				kslot_gfp(GFP_KERNEL,
					  s->flags & KSLOT_SLOTS_ACCOUNT));
	if (!mags)
		return NULL;
	for_each_possible_cpu(cpu) {
		struct kslot_slots_mag *m = per_cpu_ptr(mags, cpu);

		if (s->flags & KSLOT_SLOTS_LOCK_IRQ)
			kslot_slots_mag_lock_init_irq(m);
		else if (s->flags & KSLOT_SLOTS_LOCK_BH)
			kslot_slots_mag_lock_init_bh(m);
		else
			kslot_slots_mag_lock_init_task(m);
	}
	return mags;
}

static int kslot_slots_stats_show(struct seq_file *m, void *unused)
{
	struct kslot_slots_stats st;

	kslot_slots_get_stats(m->private, &st);
	seq_printf(m, "count: %u\ncapacity: %u\nmax_entries: %u\n",
		   st.count, st.capacity, st.max_entries);
	seq_printf(m, "retired: %u\nwaiting: %u\nrejected: %llu\nbytes: %llu\n",
		   st.retired, st.waiting, st.rejected, st.bytes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kslot_slots_stats);

/**
 * __kslot_slots_init() - Initialise a generational slot table.
 * @s: The table.
 * @kind: debugfs prefix of the structure built on it, e.g. "map".
 * @name: If not NULL, expose the counters in debugfs as kslot/@kind-@name.
 *	Names should be unique; a duplicate is not exposed.
 * @max_entries: Capacity limit, 1 .. %KSLOT_MAX_ENTRIES.
 * @flags: %KSLOT_SLOTS_LOCK_BH or %KSLOT_SLOTS_LOCK_IRQ (not both),
 *	%KSLOT_SLOTS_ACCOUNT, %KSLOT_SLOTS_HANDLE32 for 32-bit handles
 *	(their bit split follows from @max_entries: see kslot_slots.h),
 *	%KSLOT_SLOTS_KEYED, and %KSLOT_SLOTS_PERCPU for per-CPU magazines
 *	(not with %KSLOT_SLOTS_KEYED).
 * @keys: The lockdep classes of the table lock, one per lock mode
 *	(kslot_slots_init() passes its call site's: kslot_lock_classes()).
 *
 * No memory is allocated for slots until the first kslot_slots_alloc();
 * a per-CPU table allocates its magazines here.
 *
 * Context: Process context if @name is given or @flags holds
 * %KSLOT_SLOTS_PERCPU, otherwise any context.
 * Return: 0, -EINVAL if @max_entries is out of range or @flags holds
 * unknown bits, both lock flags, %KSLOT_SLOTS_KEYED with
 * %KSLOT_SLOTS_HANDLE32 or with %KSLOT_SLOTS_PERCPU, or -ENOMEM if the
 * magazines of a per-CPU table could not be allocated.
 */
int __kslot_slots_init(struct kslot_slots *s, const char *kind,
		       const char *name, u32 max_entries, unsigned int flags,
		       struct lock_class_key *keys)
{
	if (!max_entries || max_entries > KSLOT_MAX_ENTRIES)
		return -EINVAL;
	if (!kslot_lock_flags_valid(flags, KSLOT_SLOTS_FLAGS_ALL))
		return -EINVAL;
	/* Keyed tables and restore speak the 64-bit format only. */
	if ((flags & KSLOT_SLOTS_KEYED) && (flags & KSLOT_SLOTS_HANDLE32))
		return -EINVAL;
	/* Keyed writes assume a table lock no remover bypasses. */
	if ((flags & KSLOT_SLOTS_KEYED) && (flags & KSLOT_SLOTS_PERCPU))
		return -EINVAL;

	memset(s, 0, sizeof(*s));
	spin_lock_init(&s->lock);
	kslot_lock_set_class(&s->lock, flags, keys);
	s->flags = flags;
	kslot_slots_init_format(s, max_entries);
	s->free_head = KSLOT_SLOTS_NONE;
	s->max_entries = max_entries;
	atomic64_set(&s->rejected, 0);
	if ((flags & KSLOT_SLOTS_PERCPU) && kslot_slots_can_mag()) {
		s->mags = kslot_slots_mags_alloc(s);
		if (!s->mags)
			return -ENOMEM;
	}
	if (name)
		s->debugfs = kslot_debugfs_create(kind, name, s,
						  &kslot_slots_stats_fops);
	return 0;
}
EXPORT_SYMBOL_GPL(__kslot_slots_init);

static size_t kslot_slots_table_bytes(struct kslot_slot *slots);

/**
 * kslot_slots_destroy() - Tear down a table.
 * @s: The table.
 * @fn: If not NULL, called once for every live entry (placeholders
 *	included, with a NULL object), with the table lock not held.
 * @data: Passed to @fn.
 *
 * The caller must ensure no writer runs and no new lookup starts.
 * Lookups already inside an RCU read-side critical section may finish:
 * the table is freed after a grace period.  The magazines of a per-CPU
 * table are freed with it (their slots are indices into it).  The table
 * may be initialised again afterwards, and must be before any other use.
 *
 * Context: Process context for a named or per-CPU table (its debugfs
 * file is removed, its magazines freed); otherwise any context that @fn
 * allows.
 */
void kslot_slots_destroy(struct kslot_slots *s,
			 void (*fn)(void *obj, u64 handle, void *data),
			 void *data)
{
	struct kslot_slot *slots = rcu_dereference_protected(s->slots, true);
	u32 i;

	kslot_debugfs_remove(s->debugfs);
	s->debugfs = NULL;
	for (i = 0; fn && i < s->capacity; i++) {
		u64 word = slots[i].word;

		if (kslot_gen_is_live(kslot_slots_word_gen(s, word)))
			fn(slots[i].obj, word, data);
	}
	/* New lookups find no table; running ones keep the old one. */
	RCU_INIT_POINTER(s->slots, NULL);
	if (slots) {
		struct kslot_slots_table *t = kslot_slots_hdr(slots);

		kslot_free_rcu(s->free_acct, t,
			       kslot_slots_table_bytes(slots));
	}
	/* Never published; freed the same way so any context may destroy. */
	if (s->grow.next) {
		struct kslot_slots_table *t = s->grow.next;

		kslot_free_rcu(s->free_acct, t,
			       kslot_slots_table_bytes(t->slots));
	}
	s->grow.next = NULL;
	s->bypass = 0;
	s->waiting = 0;
	/* Slots in magazines (of offline CPUs too) go with the table. */
	free_percpu(s->mags);
	s->mags = NULL;
	s->capacity = 0;
	WRITE_ONCE(s->count, 0);
	s->free_head = KSLOT_SLOTS_NONE;
}
EXPORT_SYMBOL_GPL(kslot_slots_destroy);

/**
 * kslot_grow_start() - Start a copy-on-grow into a new array.
 * @g: The growth state, with no growth in progress.
 * @next: The new array, allocated by the owner with its lock dropped.
 *
 * See kslot_internal.h for the mechanism.
 *
 * Context: Caller holds the owner's lock.
 */
void kslot_grow_start(struct kslot_grow *g, void *next)
{
	g->next = next;
	g->copied = 0;
}

/**
 * kslot_grow_copy() - Copy the next batch of a growth.
 * @g: The growth state, with a growth in progress.
 * @end: Elements the current array holds now (it may have shrunk below
 *	what was copied, or grown, since the last batch).
 * @span: The arrays copied together, element by element.
 * @nr: Entries in @span.
 *
 * Copies elements from @g->copied on, at most %KSLOT_GROW_BATCH_BYTES of
 * all @span arrays together (at least one element).
 *
 * Context: Caller holds the owner's lock.
 * Return: true once elements 0 .. @end - 1 are all copied: the new array
 * may be published.
 */
bool kslot_grow_copy(struct kslot_grow *g, u32 end,
		     const struct kslot_grow_span *span, unsigned int nr)
{
	size_t unit = 0;
	unsigned int i;
	u32 n;

	if (g->copied >= end)
		return true;
	for (i = 0; i < nr; i++)
		unit += span[i].size;
	n = min_t(size_t, end - g->copied,
		  max_t(size_t, KSLOT_GROW_BATCH_BYTES / unit, 1));
	for (i = 0; i < nr; i++)
		memcpy(span[i].dst + (size_t)g->copied * span[i].size,
		       span[i].src + (size_t)g->copied * span[i].size,
		       (size_t)n * span[i].size);
	g->copied += n;
	return g->copied >= end;
}

/* Memory a table takes (0 for none). */
static size_t kslot_slots_table_bytes(struct kslot_slot *slots)
{
	struct kslot_slots_table *t;

	if (!slots)
		return 0;
	t = kslot_slots_hdr(slots);
	return kslot_kvmalloc_bytes(t, struct_size(t, slots, t->nr));
}

/*
 * Slots of the first table: %KSLOT_SLOTS_MIN; for a 32-bit table whose
 * slots serve few allocations each, enough that one live entry churned
 * never waits for a slot (D / G slots, up to %KSLOT_SLOTS_MIN32).
 */
static u32 kslot_slots_first(const struct kslot_slots *s)
{
	u32 g = kslot_slots_gen_max(s) / 2 + 1;

	if (!(s->flags & KSLOT_SLOTS_HANDLE32))
		return KSLOT_SLOTS_MIN;
	return max(KSLOT_SLOTS_MIN,
		   min(KSLOT_SLOTS_MIN32, (u32)(KSLOT_SLOTS_REUSE_DISTANCE / g)));
}

static u32 kslot_slots_grown(const struct kslot_slots *s, u32 capacity)
{
	u64 want = capacity ? 2ULL * capacity : kslot_slots_first(s);

	return min_t(u64, want, s->max_entries);
}

/* Slots of a table of @nr that may hold entries. */
static u32 kslot_slots_usable(const struct kslot_slots *s, unsigned long nr)
{
	return min_t(unsigned long, nr, s->max_entries);
}

/*
 * A table of @nr slots (at least two, see the top of kslot_slots.h) whose
 * slots from @from on are free and chained in order; the slots below
 * @from are left for the copy.  Called with the lock dropped.
 */
static struct kslot_slots_table *
kslot_slots_table_alloc(struct kslot_slots *s, u32 nr, u32 from, gfp_t gfp)
{
	struct kslot_slots_table *t;
	size_t size;
	u32 i, end;

	nr = max(nr, 2U);
	end = kslot_slots_usable(s, nr);
	size = struct_size(t, slots, nr);
	/*
	 * try_cmpxchg128() needs 16-byte aligned slots.  kmalloc() aligns
	 * power-of-two sizes naturally, and rounds any size above 192 up to
	 * one; vmalloc() memory is page aligned.
	 */
	if (s->mags)
		size = max_t(size_t, size, 256);

	if (kslot_should_fail_alloc())
		return NULL;
	gfp = kslot_gfp(gfp, s->flags & KSLOT_SLOTS_ACCOUNT);
	/* kvmalloc() may sleep; atomic callers get what kmalloc() can do. */
	if (gfpflags_allow_blocking(gfp))
		t = kvmalloc(size, gfp);
	else
		t = kmalloc(size, gfp);
	if (!t)
		return NULL;
	t->nr = nr;
	for (i = from; i < nr; i++) {
		t->slots[i].word = kslot_slots_free_word(s, i, 0);
		t->slots[i].obj = kslot_slots_link(i + 1 < end ? i + 1 :
						   KSLOT_SLOTS_NONE);
	}
	return t;
}

/*
 * The growth loop's condition: true once the table has what the writer
 * growing it needs (see kslot_slots_grow()).  Called with the lock held.
 */
typedef bool (*kslot_slots_done_t)(const struct kslot_slots *s, u32 arg);

/*
 * Per-CPU tables: send the magazine writers to the table lock, for a
 * growth (whose mirror only sees writers under the lock) or an exact
 * drain; the count of reasons is written under the lock.
 */
static void kslot_slots_bypass_begin(struct kslot_slots *s)
	__must_hold(&s->lock)
{
	WRITE_ONCE(s->bypass, s->bypass + 1);
}

/* The magazines may be used again: pairs with kslot_slots_mag_get(). */
static void kslot_slots_bypass_end(struct kslot_slots *s)
	__must_hold(&s->lock)
{
	/* What the bypassed writers wrote, before the magazines return. */
	smp_store_release(&s->bypass, s->bypass - 1);
}

/* Publish the fully copied new table, its new slots first on the free list. */
static void kslot_slots_publish(struct kslot_slots *s)
{
	struct kslot_slot *old = kslot_slots_locked(s);
	struct kslot_slots_table *t = s->grow.next;
	u32 end = kslot_slots_usable(s, t->nr);

	t->slots[end - 1].obj = kslot_slots_link(s->free_head);
	s->free_head = s->capacity;
	s->capacity = end;
	s->grow.next = NULL;
	/* The copy and the new free slots before the pointer. */
	rcu_assign_pointer(s->slots, t->slots);
	/*
	 * Then the growth's bypass ends: a magazine writer that sees it
	 * ended sees the new table.
	 */
	if (s->mags)
		kslot_slots_bypass_end(s);
	if (old) {
		t = kslot_slots_hdr(old);
		kslot_free_rcu(s->free_acct, t,
			       kslot_slots_table_bytes(old));
	}
}

/*
 * Wait for every magazine writer that may not have seen s->bypass raised:
 * take and release each CPU's magazine lock.  Called and returns with the
 * table lock held; drops it meanwhile (lock order: magazine, then table).
 */
static void kslot_slots_quiesce(struct kslot_slots *s, unsigned long *irqflags)
	__must_hold(&s->lock)
{
	int cpu;

	kslot_slots_unlock(s, *irqflags);
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_QUIESCE);
	for_each_possible_cpu(cpu) {
		struct kslot_slots_mag *m = per_cpu_ptr(s->mags, cpu);

		kslot_slots_mag_unlock(s, m, kslot_slots_mag_lock(s, m));
	}
	*irqflags = kslot_slots_lock(s);
}

/*
 * Start a growth: allocate the next table with the lock dropped.  Gives
 * it up if, meanwhile, another writer started or finished one, or
 * @done(@s, @arg) came to hold.  Called and returns with the lock held.
 */
static int kslot_slots_grow_start(struct kslot_slots *s,
				  unsigned long *irqflags, gfp_t gfp,
				  kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock)
{
	u32 cap = s->capacity;
	struct kslot_slots_table *t;

	if (cap >= s->max_entries)
		return -ENOSPC;
	kslot_slots_unlock(s, *irqflags);
	t = kslot_slots_table_alloc(s, kslot_slots_grown(s, cap), cap, gfp);
	*irqflags = kslot_slots_lock(s);
	if (!t)
		return -ENOMEM;
	if (s->grow.next || s->capacity != cap || done(s, arg)) {
		kslot_slots_unlock(s, *irqflags);
		kvfree(t);
		*irqflags = kslot_slots_lock(s);
		return 0;
	}
	kslot_grow_start(&s->grow, t);
	s->grow_seq++;
	/* A table defined statically draws its tag before its first handle. */
	if (s->tag == KSLOT_SLOTS_TAG_UNBOUND && !(s->flags & KSLOT_SLOTS_KEYED))
		WRITE_ONCE(s->tag, kslot_random_tag());
	s->quiesced = !s->mags;
	/* Magazine writers take the table lock until the publication. */
	if (s->mags)
		kslot_slots_bypass_begin(s);
	return 0;
}

/*
 * One step of the running growth: wait for the magazine writers once, or
 * copy one batch, publishing the table after the last.  Called and
 * returns with the lock held; the quiesce drops it.
 */
static void kslot_slots_grow_step(struct kslot_slots *s,
				  unsigned long *irqflags)
	__must_hold(&s->lock)
{
	struct kslot_slots_table *next = s->grow.next;

	if (!s->quiesced) {
		u32 seq = s->grow_seq;

		kslot_slots_quiesce(s, irqflags);
		/*
		 * Meanwhile another writer may have published this growth
		 * and started the next, whose table may even lie where this
		 * one's did: only the growth that is still the same one, by
		 * its sequence number, is quiesced.
		 */
		if (s->grow.next && s->grow_seq == seq)
			s->quiesced = true;
		return;
	}
	/* One batch under the lock; writers mirror what is copied. */
	if (kslot_grow_copy(&s->grow, s->capacity,
			    &(struct kslot_grow_span){ next->slots,
						       kslot_slots_locked(s),
						       sizeof(struct kslot_slot) },
			    1))
		kslot_slots_publish(s);
}

/* Between copy batches: let other writers in. */
static void kslot_slots_grow_pause(struct kslot_slots *s,
				   unsigned long *irqflags, gfp_t gfp)
	__must_hold(&s->lock)
{
	kslot_slots_unlock(s, *irqflags);
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_GROW_PAUSE);
	if (gfpflags_allow_blocking(gfp))
		cond_resched();
	*irqflags = kslot_slots_lock(s);
}

static bool kslot_slots_thaw(struct kslot_slots *s, bool force);

/* What growing writers wait for: a free slot, a slot index, free slots. */
static bool kslot_slots_has_free(const struct kslot_slots *s, u32 unused)
{
	return s->free_head != KSLOT_SLOTS_NONE;
}

static bool kslot_slots_has_index(const struct kslot_slots *s, u32 index)
{
	return index < s->capacity;
}

static u32 kslot_slots_free_slots(const struct kslot_slots *s);

/*
 * A full table's waiting slots are room: an allocation that finds no
 * other slot takes them (see kslot_slots_thaw()).
 */
static bool kslot_slots_has_room(const struct kslot_slots *s, u32 nr)
{
	u32 room = kslot_slots_free_slots(s);

	if (s->capacity >= s->max_entries)
		room += s->waiting;
	return room >= nr;
}

/*
 * Grow the table until @done(@s, @arg) holds: the one growth loop of the
 * table (allocation, reserve, keyed writes and restore).
 *
 * A growth this loop starts, or finds running, is run to its publication
 * before it returns, whatever other writers free meanwhile: no table
 * stays half copied (with its next table allocated, every writer
 * mirroring, and a per-CPU table's magazines bypassed) until some later
 * allocation happens to need a slot.  Other writers that need to grow
 * meanwhile copy batches too.
 *
 * Called and returns with the lock held; drops it to allocate, to
 * quiesce the magazines and between copy batches.
 */
static int kslot_slots_grow(struct kslot_slots *s, unsigned long *irqflags,
			    gfp_t gfp, kslot_slots_done_t done, u32 arg)
	__must_hold(&s->lock)
{
	for (;;) {
		int ret;

		if (!s->grow.next) {
			if (done(s, arg))
				return 0;
			/* Waiting slots before new memory; when full, early. */
			if (kslot_slots_thaw(s, false))
				continue;
			ret = kslot_slots_grow_start(s, irqflags, gfp, done,
						     arg);
			/* Per-CPU tables drain their magazines first. */
			if (ret == -ENOSPC && !s->mags &&
			    kslot_slots_thaw(s, true))
				continue;
			if (ret)
				return ret;
			continue;
		}
		kslot_slots_grow_step(s, irqflags);
		if (s->grow.next)
			kslot_slots_grow_pause(s, irqflags, gfp);
	}
}

/*
 * A writer changed slot @i of the current table: if a growth has copied
 * it already, write the copy too.  Called with the lock held.
 */
static void kslot_slots_mirror(struct kslot_slots *s,
			       const struct kslot_slot *slot, u32 i)
{
	if (kslot_grow_copied(&s->grow, i)) {
		struct kslot_slots_table *next = s->grow.next;

		next->slots[i] = *slot;
	}
}

/* The writable slot @i of the current table.  Called with the lock held. */
static struct kslot_slot *kslot_slots_at(struct kslot_slots *s, u32 i)
{
	return &kslot_slots_locked(s)[i];
}

/* Keyed tables and restores have no free list to allocate from. */
static int kslot_slots_no_alloc(const struct kslot_slots *s)
{
	return (s->flags & KSLOT_SLOTS_KEYED) || s->restoring ? -EINVAL : 0;
}

/* The writers' helpers, further down. */
static __always_inline u64 kslot_slots_take(struct kslot_slots *s,
					    void *obj);
static __always_inline void *
kslot_slots_replace_locked(struct kslot_slots *s, u64 handle, void *obj);
static __always_inline void *
kslot_slots_remove_locked(struct kslot_slots *s, u64 handle);
static int kslot_slots_alloc_percpu(struct kslot_slots *s, void *obj,
				    u64 *handle, gfp_t gfp);
static void *kslot_slots_remove_percpu(struct kslot_slots *s, u64 handle);
static void *kslot_slots_replace_percpu(struct kslot_slots *s, u64 handle,
					void *obj);
static int kslot_slots_remove_if_percpu(struct kslot_slots *s, u64 handle,
					void *old);
static int kslot_slots_set_percpu(struct kslot_slots *s, u64 handle,
				  void **old, bool any, void *obj);
static u32 kslot_slots_drain(struct kslot_slots *s);

/**
 * kslot_slots_alloc() - Store a pointer and issue a handle for it.
 * @s: The table.
 * @obj: The pointer, or NULL for a placeholder (lookups return NULL
 *	until kslot_slots_replace() publishes an object).
 * @handle: Set to the new handle on success; untouched on failure.
 * @gfp: Allocation flags for growing the table.
 *
 * Reuses the most recently freed slot if there is one (this CPU's, in a
 * per-CPU table), otherwise grows the table (see the top of
 * kslot_slots.h).  The object's contents must be initialised before the
 * call: lookups may return it as soon as the handle is live, before this
 * function returns.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock (in a
 * per-CPU table: this CPU's magazine lock, the table lock only to refill
 * the magazine or to grow).
 * Return: 0, -ENOMEM if growing the table failed, -ENOSPC if the table
 * holds max_entries slots (live or retired) and none is free (in a
 * per-CPU table: in the free list or any CPU's magazine), or -EINVAL if
 * the table is keyed or being restored (it has no free list).
 */
int kslot_slots_alloc(struct kslot_slots *s, void *obj, u64 *handle,
		      gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	if (unlikely(s->mags))
		return kslot_slots_alloc_percpu(s, obj, handle, gfp);
	if (kslot_slots_zeroed(s))
		return -ENOSPC;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_no_alloc(s);
	if (ret)
		goto out;
	/* The fast path takes a free slot without calling the growth. */
	if (unlikely(s->free_head == KSLOT_SLOTS_NONE)) {
		ret = kslot_slots_grow(s, &irqflags, gfp, kslot_slots_has_free,
				       0);
		if (ret)
			goto out;
	}
	/* kslot_slots_grow() returns 0 with a free slot. */
	*handle = kslot_slots_take(s, obj);
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_alloc);

/*
 * The writers' handle check: the slot of table @slots (NULL before the
 * first growth) that @handle names if it is live under @handle, else NULL
 * (a rejection, counted as a lookup's).  It is the lookup's clamp and
 * single compare (__kslot_slots_slot(), the top of kslot_slots.h); no
 * slot's word is 0, so the null handle never matches.
 */
static __always_inline struct kslot_slot *
kslot_slots_match(struct kslot_slots *s, struct kslot_slot *slots, u64 handle)
{
	struct kslot_slot *slot;

	if (unlikely(!slots))
		goto reject;
	slot = (struct kslot_slot *)
		__kslot_slots_slot(slots, kslot_slots_handle_index(s, handle));
	/* Per-CPU tables: magazine writers change words without the lock. */
	if (likely(READ_ONCE(slot->word) == handle))
		return slot;
reject:
	kslot_slots_count_reject(s, handle);
	return NULL;
}

/* The live slot @handle names, or NULL.  Called with the lock held. */
static __always_inline struct kslot_slot *
kslot_slots_live(struct kslot_slots *s, u64 handle)
{
	return kslot_slots_match(s, kslot_slots_locked(s), handle);
}

/**
 * kslot_slots_replace() - Replace the pointer a handle refers to.
 * @s: The table.
 * @handle: A live handle, placeholder or not.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * The handle keeps its generation.  Lookups see the old or the new
 * pointer; the caller owns the old one and must let RCU readers finish
 * with it before freeing it.  In a per-CPU table, against a racing
 * kslot_slots_remove() of the same handle, either the replace comes first
 * (and the remove returns @obj) or the remove does (and this returns
 * ERR_PTR(-ENOENT)).
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock (in a per-CPU table: this CPU's magazine lock, the table
 * lock only while a growth runs).
 * Return: The previous pointer (NULL for a placeholder), or
 * ERR_PTR(-ENOENT) if @handle is not live in @s.
 */
void *kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj)
{
	unsigned long irqflags;
	void *old;

	if (s->mags)
		return kslot_slots_replace_percpu(s, handle, obj);
	if (kslot_slots_zeroed(s))
		goto reject;
	irqflags = kslot_slots_lock(s);
	old = kslot_slots_replace_locked(s, handle, obj);

	kslot_slots_unlock(s, irqflags);
	return old;
reject:
	kslot_slots_count_reject(s, handle);
	return ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL_GPL(kslot_slots_replace);

/**
 * kslot_slots_remove() - Remove an entry and invalidate its handle.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * Bumps the slot's generation, so @handle and every copy of it are
 * rejected from now on, and puts the slot at the head of the free list
 * (in a per-CPU table: onto this CPU's magazine), or retires it if its
 * generations are used up.  In a per-CPU table the generation moves with
 * one cmpxchg: of two racing removes of one handle exactly one succeeds.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock (in a per-CPU table: this CPU's magazine lock, the table
 * lock only to flush the magazine, to retire the slot or while a growth
 * runs).
 * Return: The removed pointer, or NULL if @handle was not live (or was a
 * placeholder, which is released all the same).
 */
void *kslot_slots_remove(struct kslot_slots *s, u64 handle)
{
	unsigned long irqflags;
	void *obj;

	if (unlikely(s->mags))
		return kslot_slots_remove_percpu(s, handle);
	if (kslot_slots_zeroed(s)) {
		kslot_slots_count_reject(s, handle);
		return NULL;
	}
	irqflags = kslot_slots_lock(s);
	obj = kslot_slots_remove_locked(s, handle);

	kslot_slots_unlock(s, irqflags);
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_slots_remove);

/**
 * kslot_slots_count_reject() - Count a handle that named no live entry.
 * @s: The table.
 * @handle: The handle looked up, replaced or removed.
 *
 * The slow path of __kslot_slots_lookup() and of the writers' handle
 * check (replace, remove and their _if forms): every handle but the null
 * one that did not match a live slot is a rejection.
 *
 * Context: Any context.
 */
void kslot_slots_count_reject(struct kslot_slots *s, u64 handle)
{
	if (handle)
		atomic64_inc(&s->rejected);
}
EXPORT_SYMBOL_GPL(kslot_slots_count_reject);

/**
 * kslot_slots_lookup() - Find the pointer a handle refers to.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * Takes the RCU read lock itself, as xa_load() does.  Unless the caller
 * holds rcu_read_lock() across the call and its use of the object, or
 * keeps the object alive by other means, the object may be freed as soon
 * as this returns.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The pointer, or NULL if @handle is stale, forged, from another
 * table, or a placeholder.
 */
void *kslot_slots_lookup(struct kslot_slots *s, u64 handle)
{
	void *obj;

	rcu_read_lock();
	obj = __kslot_slots_lookup(s, handle);
	rcu_read_unlock();
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_slots_lookup);

/**
 * kslot_slots_lookup_get() - Look up a handle and take a kref on the object.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @ref_offset: Offset of the struct kref inside the stored objects.
 * @release: The objects' kref release function.
 *
 * The kref_get_unless_zero() pattern drivers use with xa_load().  After
 * the reference is taken, the slot is read again from the *current* table
 * (a lookup may have run on a table a growth replaced, as
 * __fget_files_rcu() re-checks the fdtable): it must still hold this
 * object under this handle.  That keeps it correct for objects from a
 * SLAB_TYPESAFE_BY_RCU cache, whose memory may hold a new object by the
 * time the reference is taken; then the reference is dropped with
 * @release semantics and NULL returned, or, if the handle is still live
 * and only its object was replaced meanwhile, the lookup starts over.
 *
 * Context: Any context.  Takes and releases the RCU read lock.  @release
 * may be called (for the last reference, when the entry was removed while
 * it was looked up), after the RCU read lock is released: it must be safe
 * in the caller's context, and may sleep if the caller may.
 * Return: The object with a reference held, or NULL.
 */
void *kslot_slots_lookup_get(struct kslot_slots *s, u64 handle,
			     size_t ref_offset,
			     void (*release)(struct kref *ref))
{
	const struct kslot_slot *slot;
	struct kref *ref;
	bool stale, live;
	void *obj;

again:
	stale = false;
	rcu_read_lock();
	obj = __kslot_slots_lookup(s, handle);
	if (!obj)
		goto out;
	ref = obj + ref_offset;
	if (!kref_get_unless_zero(ref)) {
		obj = NULL;
		goto out;
	}
	/*
	 * The increment is a relaxed RMW: order the re-check after it, as
	 * refcount_inc_not_zero_acquire() would.
	 */
	smp_acquire__after_ctrl_dep();
	kslot_slots_test_point(s, KSLOT_SLOTS_TP_LOOKUP_GET);
	slot = __kslot_slots_slot(rcu_dereference(s->slots),
				  kslot_slots_handle_index(s, handle));
	live = READ_ONCE(slot->word) == handle;
	stale = !live || READ_ONCE(slot->obj) != obj;
out:
	rcu_read_unlock();
	/*
	 * The reference may be the last one (a remover dropped the table's
	 * meanwhile): @release may sleep, so it runs outside the read-side
	 * section, where the reference keeps the object alive.
	 */
	if (stale) {
		kref_put(ref, release);
		obj = NULL;
		/* Still live, replaced meanwhile: as __fget_files_rcu(). */
		if (live)
			goto again;
	}
	return obj;
}
EXPORT_SYMBOL_GPL(kslot_slots_lookup_get);

/**
 * kslot_slots_find_range() - Find the next published entry in a slot range.
 * @s: The table.
 * @index: Slot to start from; set to the slot found, or to the first slot
 *	not scanned.
 * @end: Slot to stop before; the scan is bounded by @end - *@index, not by
 *	the table's size, so a caller can bound the work of one call.
 * @handle: Set to the handle of the entry found.
 *
 * Placeholders are skipped.  Each entry returned was live at some
 * point during the call.
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The pointer, or NULL when no published entry is in *@index ..
 * @end - 1; then *@index is @end, or the table's size if the table ends
 * before @end (*@handle is unchanged).
 */
void *kslot_slots_find_range(struct kslot_slots *s, u32 *index, u32 end,
			     u64 *handle)
{
	struct kslot_slot *slots;
	void *found = NULL;
	u32 i;

	rcu_read_lock();
	slots = rcu_dereference(s->slots);
	end = min_t(unsigned long, end,
		    slots ? kslot_slots_hdr(slots)->nr : 0);
	for (i = *index; i < end; i++) {
		const struct kslot_slot *slot = &slots[i];
		/* Word, object, word, as __kslot_slots_lookup(). */
		u64 word = smp_load_acquire(&slot->word);
		void *obj;

		if (!kslot_gen_is_live(kslot_slots_word_gen(s, word)))
			continue;
		obj = READ_ONCE(slot->obj);
		smp_rmb(); /* Object before the word re-check. */
		if (!obj || READ_ONCE(slot->word) != word)
			continue;
		*handle = word;
		found = obj;
		break;
	}
	rcu_read_unlock();
	*index = max(i, *index);
	return found;
}
EXPORT_SYMBOL_GPL(kslot_slots_find_range);

/**
 * kslot_slots_find() - Find the next published entry at or after an index.
 * @s: The table.
 * @index: Slot to start from; set to the slot found.
 * @handle: Set to the handle of the entry found.
 *
 * Placeholders are skipped.  Each entry returned was live at some
 * point during the call.  The scan runs to the end of the table if need
 * be: bound it with kslot_slots_find_range().
 *
 * Context: Any context.  Takes and releases the RCU read lock.
 * Return: The pointer, or NULL when no published entry remains at or
 * after *@index (then *@index and *@handle are unchanged).
 */
void *kslot_slots_find(struct kslot_slots *s, u32 *index, u64 *handle)
{
	u32 i = *index;
	void *found = kslot_slots_find_range(s, &i, U32_MAX, handle);

	if (found)
		*index = i;
	return found;
}
EXPORT_SYMBOL_GPL(kslot_slots_find);

/**
 * kslot_slots_get_stats() - Read a table's counters.
 * @s: The table.
 * @st: Filled with a consistent snapshot of the counters.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock.
 */
void kslot_slots_get_stats(struct kslot_slots *s,
			   struct kslot_slots_stats *st)
{
	struct kslot_slots_table *next;
	unsigned long irqflags;

	if (kslot_slots_zeroed(s)) {
		memset(st, 0, sizeof(*st));
		st->rejected = atomic64_read(&s->rejected);
		return;
	}
	irqflags = kslot_slots_lock(s);
	next = s->grow.next;

	st->count = kslot_slots_count(s);
	st->capacity = s->capacity;
	st->max_entries = s->max_entries;
	st->retired = s->retired;
	st->waiting = s->waiting;
	st->bytes = kslot_slots_table_bytes(kslot_slots_locked(s)) +
		    (next ? kslot_slots_table_bytes(next->slots) : 0);
	st->grow_bytes = 0;
	if (!next && s->capacity < s->max_entries) {
		u32 nr = max(kslot_slots_grown(s, s->capacity), 2U);
		size_t size = struct_size_t(struct kslot_slots_table, slots, nr);

		st->grow_bytes = kslot_kvmalloc_bytes(NULL, size);
	}
	kslot_slots_unlock(s, irqflags);
	st->rejected = atomic64_read(&s->rejected);
}
EXPORT_SYMBOL_GPL(kslot_slots_get_stats);

/**
 * kslot_slots_dump() - Copy a consistent snapshot of some slots.
 * @s: The table.
 * @start: First slot.
 * @max: Slots @d->slots has room for.
 * @d: Receives the slots, the free-list head and the counts.
 *
 * For debugging tools (the /dev/kslot DUMP command).  In a per-CPU table
 * every CPU's magazine is flushed into the free list first, in the order
 * its slots would be handed out, so the free list shown is complete.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock (in a per-CPU table: every magazine lock first).
 */
void kslot_slots_dump(struct kslot_slots *s, u32 start, u32 max,
		      struct kslot_slots_dump *d)
{
	unsigned long irqflags;
	u32 i;

	if (kslot_slots_zeroed(s)) {
		d->capacity = 0;
		d->free_head = KSLOT_SLOTS_NONE;
		d->count = 0;
		d->returned = 0;
		return;
	}
	kslot_slots_drain(s);
	irqflags = kslot_slots_lock(s);
	d->capacity = s->capacity;
	d->free_head = s->free_head;
	d->count = kslot_slots_count(s);
	for (i = 0; start < s->capacity && i < min(max, s->capacity - start);
	     i++) {
		const struct kslot_slot *slot = kslot_slots_at(s, start + i);
		/* Per-CPU tables: magazine writers do not take the lock. */
		u32 gen = kslot_slots_word_gen(s, READ_ONCE(slot->word)) &
			  kslot_slots_gen_max(s);
		bool live = kslot_gen_is_live(gen);

		d->slots[i].obj = live ? READ_ONCE(slot->obj) : NULL;
		d->slots[i].gen = gen;
		d->slots[i].next = live ? KSLOT_SLOTS_NONE :
					  kslot_slots_next(slot);
	}
	d->returned = i;
	kslot_slots_unlock(s, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_slots_dump);

/*
 * Writers with the lock held, conditional writers and preload: what a
 * driver needs to use the table as it would use an XArray under xa_lock()
 * (xa_cmpxchg(), xa_reserve() / idr_preload()).
 */

/* Issue free slot @s->free_head for @obj.  Called with the lock held. */
static __always_inline u64 kslot_slots_take(struct kslot_slots *s, void *obj)
{
	u32 index = s->free_head;
	struct kslot_slot *slot = kslot_slots_at(s, index);
	u64 h;

	s->free_head = kslot_slots_next(slot);
	h = kslot_slots_make(s, index, kslot_slots_word_gen(s, slot->word) + 1);
	WRITE_ONCE(slot->obj, obj);
	/* Object before word; see __kslot_slots_lookup(). */
	smp_store_release(&slot->word, h);
	kslot_slots_mirror(s, slot, index);
	/* kslot_slots_count() reads it without the lock. */
	WRITE_ONCE(s->count, s->count + 1);
	s->issued++;
	return h;
}

/*
 * Allocations the table issued, modulo 2^32: under the lock, and by each
 * CPU's magazine.  Called with the lock held.  A magazine counts a slot's
 * allocation before it publishes the handle, so the remove that ends the
 * slot's cycle (after it saw the handle) finds every allocation of the
 * slot in its stamp; allocations of other slots racing with the sum are
 * in it or not.
 */
static u32 kslot_slots_issued(const struct kslot_slots *s)
{
	u32 n = s->issued;
	int cpu;

	if (s->mags)
		for_each_possible_cpu(cpu)
			n += READ_ONCE(per_cpu_ptr(s->mags, cpu)->issued);
	return n;
}

/*
 * A 32-bit table's waiting slots (the top of kslot_slots.h).  The word of
 * a waiting slot is its free word at generation 0, with
 * KSLOT_SLOTS_WAIT_BIT and the allocations issued when it began to wait
 * (31 bits) above: it matches no handle of either format, as a free word
 * does.
 */
#define KSLOT_SLOTS_WAIT_BIT	BIT_ULL(63)
#define KSLOT_SLOTS_WAIT_MASK	(BIT(31) - 1)

static u64 kslot_slots_wait_word(const struct kslot_slots *s, u32 index)
{
	return KSLOT_SLOTS_WAIT_BIT |
	       (u64)(kslot_slots_issued(s) & KSLOT_SLOTS_WAIT_MASK) << 32 |
	       kslot_slots_free_word(s, index, 0);
}

/*
 * Has the waiting slot of @word waited long enough, @issued being the
 * allocations issued now?  Its handles were issued before it began to
 * wait, the first of them at least G - 1 allocations before (G: the
 * allocations a slot serves per cycle of its generation), and it serves
 * nothing until it leaves: after D - G allocations of waiting, none of its
 * handles is issued again within D (KSLOT_SLOTS_REUSE_DISTANCE).
 */
static bool kslot_slots_ripe(const struct kslot_slots *s, u64 word,
			     u32 issued)
{
	u32 g = kslot_slots_gen_max(s) / 2 + 1;
	u32 waited = (issued - (u32)(word >> 32)) & KSLOT_SLOTS_WAIT_MASK;

	return g >= KSLOT_SLOTS_REUSE_DISTANCE ||
	       waited >= KSLOT_SLOTS_REUSE_DISTANCE - g;
}

/* Slot @index begins to wait, behind the others.  Lock held. */
static void kslot_slots_wait(struct kslot_slots *s, u32 index)
{
	if (s->waiting) {
		struct kslot_slot *tail = kslot_slots_at(s, s->wait_tail);

		WRITE_ONCE(tail->obj, kslot_slots_link(index));
		kslot_slots_mirror(s, tail, s->wait_tail);
	} else {
		s->wait_head = index;
	}
	s->wait_tail = index;
	s->waiting++;
}

/*
 * Move the slot that waited longest to the head of the free list if it
 * waited long enough, or with @force whatever its wait (a full table:
 * see the top of kslot_slots.h).  One at a time, as allocations need
 * them: each takes the slot that waited longest.  Returns whether it
 * moved.  Lock held.
 */
static bool kslot_slots_thaw(struct kslot_slots *s, bool force)
{
	u32 index = s->wait_head;
	struct kslot_slot *slot;

	if (!s->waiting)
		return false;
	slot = kslot_slots_at(s, index);
	if (!force && !kslot_slots_ripe(s, slot->word, kslot_slots_issued(s)))
		return false;
	s->wait_head = kslot_slots_next(slot);
	s->waiting--;
	/* A new cycle of its generation, from 0. */
	WRITE_ONCE(slot->word, kslot_slots_free_word(s, index, 0));
	WRITE_ONCE(slot->obj, kslot_slots_link(s->free_head));
	kslot_slots_mirror(s, slot, index);
	s->free_head = index;
	return true;
}

/*
 * Where a slot freed at generation @gen goes, and the word and link it
 * takes there: the free list; retired for good (a 64-bit table, @gen 0);
 * or, in a 32-bit table, the end of the waiting slots (@gen 0).  Writes
 * nothing: kslot_slots_freed() files it once its word is written.  Lock
 * held.
 */
static __always_inline u64 kslot_slots_free_to(struct kslot_slots *s,
					       u32 index, u32 gen, void **link)
{
	if (likely(gen)) {
		*link = kslot_slots_link(s->free_head);
		return kslot_slots_free_word(s, index, gen);
	}
	if (!(s->flags & KSLOT_SLOTS_HANDLE32)) {
		*link = kslot_slots_link(KSLOT_SLOTS_RETIRED);
		return kslot_slots_free_word(s, index, 0);
	}
	*link = kslot_slots_link(KSLOT_SLOTS_NONE);
	return kslot_slots_wait_word(s, index);
}

static __always_inline void kslot_slots_freed(struct kslot_slots *s,
					      u32 index, u32 gen)
{
	if (likely(gen))
		s->free_head = index;
	else if (!(s->flags & KSLOT_SLOTS_HANDLE32))
		s->retired++;
	else
		kslot_slots_wait(s, index);
}

/* Point live @slot (of @handle) at @obj.  Called with the lock held. */
static void kslot_slots_set(struct kslot_slots *s, struct kslot_slot *slot,
			    u64 handle, void *obj)
{
	/* Object contents before the pointer, as rcu_assign_pointer(). */
	smp_store_release(&slot->obj, obj);
	kslot_slots_mirror(s, slot, kslot_slots_handle_index(s, handle));
}

/* Free (or retire) live @slot of @handle.  Called with the lock held. */
static __always_inline void kslot_slots_release(struct kslot_slots *s,
						struct kslot_slot *slot,
						u64 handle)
{
	u32 index = kslot_slots_handle_index(s, handle);
	/* The format's last generation was used: 0 ends the slot's cycle. */
	u32 gen = kslot_slots_gen_next(s, kslot_slots_word_gen(s, handle));
	void *link = kslot_slots_link(s->free_head);
	u64 word = kslot_slots_free_word(s, index, gen);

	if (unlikely(!gen))
		word = kslot_slots_free_to(s, index, gen, &link);
	WRITE_ONCE(slot->word, word);
	/* Word before object; see __kslot_slots_lookup(). */
	smp_wmb();
	WRITE_ONCE(slot->obj, link);
	kslot_slots_mirror(s, slot, index);
	if (likely(gen))
		s->free_head = index;
	else
		kslot_slots_freed(s, index, gen);
	WRITE_ONCE(s->count, s->count - 1);
}

/* kslot_slots_replace() of a table without magazines; lock held. */
static __always_inline void *
kslot_slots_replace_locked(struct kslot_slots *s, u64 handle, void *obj)
{
	struct kslot_slot *slot = kslot_slots_live(s, handle);
	void *old;

	if (!slot)
		return ERR_PTR(-ENOENT);
	old = slot->obj;
	kslot_slots_set(s, slot, handle, obj);
	return old;
}

/* kslot_slots_remove() of a table without magazines; lock held. */
static __always_inline void *
kslot_slots_remove_locked(struct kslot_slots *s, u64 handle)
{
	struct kslot_slot *slot = kslot_slots_live(s, handle);
	void *obj;

	if (!slot)
		return NULL;
	obj = slot->obj;
	kslot_slots_release(s, slot, handle);
	return obj;
}

/* The live slot of @handle if it holds @old; else -ENOENT or -EBUSY. */
static struct kslot_slot *kslot_slots_live_if(struct kslot_slots *s,
					      u64 handle, void *old)
{
	struct kslot_slot *slot = kslot_slots_live(s, handle);

	if (!slot)
		return ERR_PTR(-ENOENT);
	if (slot->obj != old)
		return ERR_PTR(-EBUSY);
	return slot;
}

/* Conditional writers of a table without magazines; lock held. */
static int kslot_slots_replace_if_locked(struct kslot_slots *s, u64 handle,
					 void *old, void *obj)
{
	struct kslot_slot *slot = kslot_slots_live_if(s, handle, old);

	if (IS_ERR(slot))
		return PTR_ERR(slot);
	kslot_slots_set(s, slot, handle, obj);
	return 0;
}

static int kslot_slots_remove_if_locked(struct kslot_slots *s, u64 handle,
					void *old)
{
	struct kslot_slot *slot = kslot_slots_live_if(s, handle, old);

	if (IS_ERR(slot))
		return PTR_ERR(slot);
	kslot_slots_release(s, slot, handle);
	return 0;
}

/* A per-CPU table offers no __ writer: its removes bypass the lock. */
static bool kslot_slots_no_locked_writers(const struct kslot_slots *s)
{
	return WARN_ON_ONCE(s->flags & KSLOT_SLOTS_PERCPU);
}

/**
 * __kslot_slots_alloc() - Issue a handle with the table lock held.
 * @s: The table.
 * @obj: The pointer, or NULL for a placeholder (lookups return NULL
 *	until a replace publishes an object).
 * @handle: Set to the new handle on success; untouched on failure.
 *
 * Never allocates memory and never drops the lock: it takes a free slot
 * of the current table, which kslot_slots_reserve() can provide
 * beforehand.  As with kslot_slots_alloc(), the object's contents must be
 * initialised before the call.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0, -ENOMEM if the table has no free slot but could grow (call
 * kslot_slots_reserve() first), -ENOSPC if it holds max_entries slots
 * (live or retired) and none is free, or -EINVAL if the table is keyed,
 * being restored (it has no free list) or per-CPU (it offers no __
 * writer: this also WARNs).
 */
int __kslot_slots_alloc(struct kslot_slots *s, void *obj, u64 *handle)
	__must_hold(&s->lock)
{
	int ret;

	lockdep_assert_held(&s->lock);
	if (kslot_slots_no_locked_writers(s))
		return -EINVAL;
	ret = kslot_slots_no_alloc(s);
	if (ret)
		return ret;
	if (s->free_head == KSLOT_SLOTS_NONE && !kslot_slots_thaw(s, false) &&
	    (s->capacity < s->max_entries || !kslot_slots_thaw(s, true)))
		return s->capacity < s->max_entries ? -ENOMEM : -ENOSPC;
	*handle = kslot_slots_take(s, obj);
	return 0;
}
EXPORT_SYMBOL_GPL(__kslot_slots_alloc);

/**
 * __kslot_slots_replace() - Replace a handle's pointer with the lock held.
 * @s: The table.
 * @handle: A live handle, placeholder or not.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * kslot_slots_replace() for a caller that holds the table lock.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: The previous pointer (NULL for a placeholder), ERR_PTR(-ENOENT)
 * if @handle is not live in @s, or ERR_PTR(-EINVAL) if the table is
 * per-CPU (it offers no __ writer: this also WARNs).
 */
void *__kslot_slots_replace(struct kslot_slots *s, u64 handle, void *obj)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	if (kslot_slots_no_locked_writers(s))
		return ERR_PTR(-EINVAL);
	return kslot_slots_replace_locked(s, handle, obj);
}
EXPORT_SYMBOL_GPL(__kslot_slots_replace);

/**
 * __kslot_slots_remove() - Remove an entry with the lock held.
 * @s: The table.
 * @handle: A handle, valid or not.
 *
 * kslot_slots_remove() for a caller that holds the table lock.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: The removed pointer, or NULL if @handle was not live (or was a
 * placeholder, which is released all the same), or if the table is
 * per-CPU (it offers no __ writer: this WARNs and changes nothing).
 */
void *__kslot_slots_remove(struct kslot_slots *s, u64 handle)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	if (kslot_slots_no_locked_writers(s))
		return NULL;
	return kslot_slots_remove_locked(s, handle);
}
EXPORT_SYMBOL_GPL(__kslot_slots_remove);

/**
 * __kslot_slots_replace_if() - Replace a pointer if it is still @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder (to
 *	publish a placeholder exactly once).
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * The xa_cmpxchg() pattern with the table lock held.  The handle keeps
 * its generation; the caller owns @old afterwards and must let RCU
 * readers finish with it before freeing it.
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0 if the slot held @old and now holds @obj, -ENOENT if @handle
 * is not live in @s, -EBUSY if the slot holds another pointer than @old,
 * or -EINVAL if the table is per-CPU (it offers no __ writer: this also
 * WARNs); nothing is changed on error.
 */
int __kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			     void *obj)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	if (kslot_slots_no_locked_writers(s))
		return -EINVAL;
	return kslot_slots_replace_if_locked(s, handle, old, obj);
}
EXPORT_SYMBOL_GPL(__kslot_slots_replace_if);

/**
 * kslot_slots_replace_if() - Replace a pointer if it is still @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder.
 * @obj: The new pointer; NULL turns the entry back into a placeholder.
 *
 * __kslot_slots_replace_if() with the table lock taken and released; in
 * a per-CPU table one try_cmpxchg128() of the slot, under this CPU's
 * magazine lock.
 *
 * Context: Any context the table's lock flags allow; not with the table
 * lock held.  Takes and releases the table lock (in a per-CPU table: this
 * CPU's magazine lock, the table lock only while a growth runs).
 * Return: 0 if the slot held @old and now holds @obj, -ENOENT if @handle
 * is not live in @s, or -EBUSY if the slot holds another pointer than
 * @old (nothing is changed on error).
 */
int kslot_slots_replace_if(struct kslot_slots *s, u64 handle, void *old,
			   void *obj)
{
	unsigned long irqflags;
	int ret;

	if (s->mags)
		return kslot_slots_set_percpu(s, handle, &old, false, obj);
	if (kslot_slots_zeroed(s)) {
		kslot_slots_count_reject(s, handle);
		return -ENOENT;
	}
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_replace_if_locked(s, handle, old, obj);
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_replace_if);

/**
 * __kslot_slots_remove_if() - Remove an entry if it still holds @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder.
 *
 * The xa_cmpxchg(xa, id, old, NULL) pattern with the table lock held: on
 * success the generation moves on, as with __kslot_slots_remove().
 *
 * Context: Caller holds the table lock (kslot_slots_lock()).
 * Return: 0 if the entry held @old and is removed, -ENOENT if @handle is
 * not live in @s, -EBUSY if the slot holds another pointer than @old, or
 * -EINVAL if the table is per-CPU (it offers no __ writer: this also
 * WARNs); nothing is changed on error.
 */
int __kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old)
	__must_hold(&s->lock)
{
	lockdep_assert_held(&s->lock);
	if (kslot_slots_no_locked_writers(s))
		return -EINVAL;
	return kslot_slots_remove_if_locked(s, handle, old);
}
EXPORT_SYMBOL_GPL(__kslot_slots_remove_if);

/**
 * kslot_slots_remove_if() - Remove an entry if it still holds @old.
 * @s: The table.
 * @handle: A handle, valid or not.
 * @old: The pointer the slot must hold; NULL for a placeholder.
 *
 * __kslot_slots_remove_if() with the table lock taken and released; in a
 * per-CPU table one try_cmpxchg128() of the slot, onto this CPU's
 * magazine.
 *
 * Context: Any context the table's lock flags allow; not with the table
 * lock held.  Takes and releases the table lock (in a per-CPU table: this
 * CPU's magazine lock, the table lock only to flush it, to retire the
 * slot or while a growth runs).
 * Return: 0 if the entry held @old and is removed, -ENOENT if @handle is
 * not live in @s, or -EBUSY if the slot holds another pointer than @old
 * (nothing is changed on error).
 */
int kslot_slots_remove_if(struct kslot_slots *s, u64 handle, void *old)
{
	unsigned long irqflags;
	int ret;

	if (s->mags)
		return kslot_slots_remove_if_percpu(s, handle, old);
	if (kslot_slots_zeroed(s)) {
		kslot_slots_count_reject(s, handle);
		return -ENOENT;
	}
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_remove_if_locked(s, handle, old);
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_remove_if);

/*
 * Per-CPU tables: the magazines (the top of kslot_slots.h).  Their
 * writers change live slots only atomically (cmpxchg64() of the word, or
 * try_cmpxchg128() of word and object), under their magazine lock or,
 * while a growth runs, under the table lock.
 */

/*
 * Free live @slot of @handle, to free @word and @link, if it still holds
 * @handle (and *@old, unless @any).  Returns 0 with the removed object in
 * *@old, -ENOENT or -EBUSY.
 */
static __always_inline int
kslot_slots_cas_free(struct kslot_slots *s, struct kslot_slot *slot,
		     u64 handle, void **old, bool any, u64 word, void *link)
{
	struct kslot_slot cur = { .word = handle, .obj = *old };

	if (any) {
		/* Of two racing removes, one wins the word. */
		if (cmpxchg64(&slot->word, handle, word) != handle)
			goto reject;
		/* The slot is ours: no replace lands after the cmpxchg. */
		*old = READ_ONCE(slot->obj);
		WRITE_ONCE(slot->obj, link);
		return 0;
	}
	if (kslot_slots_cas2(slot, &cur, word, link))
		return 0;
	if (cur.word == handle)
		return -EBUSY;
reject:
	/* A racing remove won: as a failed compare, a rejection. */
	kslot_slots_count_reject(s, handle);
	return -ENOENT;
}

/*
 * Point live @slot of @handle at @obj, from any object (@any) or only
 * from *@old.  Returns 0 with the object replaced in *@old, -ENOENT or
 * -EBUSY.
 */
static int kslot_slots_cas_obj(struct kslot_slots *s,
			       struct kslot_slot *slot, u64 handle,
			       void **old, bool any, void *obj)
{
	struct kslot_slot cur = {
		.word = handle,
		.obj = any ? READ_ONCE(slot->obj) : *old,
	};

	/* A full barrier: object contents before the pointer. */
	while (!kslot_slots_cas2(slot, &cur, handle, obj)) {
		if (cur.word != handle) {
			/* A racing remove won: a rejection. */
			kslot_slots_count_reject(s, handle);
			return -ENOENT;
		}
		if (!any)
			return -EBUSY;
	}
	*old = cur.obj;
	return 0;
}

/* Free or retire live @slot of @handle atomically, table lock held. */
static int kslot_slots_release_cas(struct kslot_slots *s,
				   struct kslot_slot *slot, u64 handle,
				   void **old, bool any)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u32 gen = kslot_slots_gen_next(s, kslot_slots_word_gen(s, handle));
	void *link;
	u64 word = kslot_slots_free_to(s, index, gen, &link);
	int ret;

	ret = kslot_slots_cas_free(s, slot, handle, old, any, word, link);
	if (ret)
		return ret;
	kslot_slots_mirror(s, slot, index);
	kslot_slots_freed(s, index, gen);
	WRITE_ONCE(s->count, s->count - 1);
	return 0;
}

/*
 * This CPU's magazine, locked, if no growth runs; NULL otherwise (then
 * use the table lock).
 */
static __always_inline struct kslot_slots_mag *
kslot_slots_mag_get(struct kslot_slots *s, unsigned long *irqflags)
{
	/* A migration here only makes this CPU use another's magazine. */
	struct kslot_slots_mag *m = raw_cpu_ptr(s->mags);

	*irqflags = kslot_slots_mag_lock(s, m);
	/*
	 * Pairs with kslot_slots_bypass_end(): not bypassed, so no growth
	 * runs and this is the current table.
	 */
	if (likely(!smp_load_acquire(&s->bypass)))
		return m;
	kslot_slots_mag_unlock(s, m, *irqflags);
	return NULL;
}

/* The current table, for a writer holding a magazine lock. */
static __always_inline struct kslot_slot *
kslot_slots_mag_table(struct kslot_slots *s)
{
	/* Growths wait for magazine locks before they copy or publish. */
	return rcu_dereference_check(s->slots, rcu_read_lock_any_held());
}

/* The slot @handle names for a magazine writer, or NULL. */
static __always_inline struct kslot_slot *
kslot_slots_mag_slot(struct kslot_slots *s, u64 handle)
{
	/* A free word never equals a handle; the atomics decide races. */
	return kslot_slots_match(s, kslot_slots_mag_table(s), handle);
}

/*
 * Move @n free slots from the bottom of @m (handed out last) to the head
 * of the free list, keeping the order in which they would be handed out.
 * Called with @m's lock and the table lock held.  Returns @n.
 */
static u32 kslot_slots_flush(struct kslot_slots *s, struct kslot_slots_mag *m,
			     u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u32 index = m->idx[i];
		struct kslot_slot *slot = kslot_slots_at(s, index);

		WRITE_ONCE(slot->obj, kslot_slots_link(s->free_head));
		kslot_slots_mirror(s, slot, index);
		s->free_head = index;
	}
	m->nr -= n;
	memmove(m->idx, m->idx + n, m->nr * sizeof(m->idx[0]));
	return n;
}

/* Make room in the full, locked @m: a batch to the free list. */
static noinline void kslot_slots_flush_batch(struct kslot_slots *s,
					     struct kslot_slots_mag *m)
{
	unsigned long irqflags = kslot_slots_lock(s);

	kslot_slots_flush(s, m, KSLOT_SLOTS_MAG_BATCH);
	kslot_slots_unlock(s, irqflags);
}

/*
 * Fill the empty @m with up to a batch of slots from the free list, in
 * free-list order.  Called with @m's lock held; takes the table lock.
 */
static noinline void kslot_slots_refill(struct kslot_slots *s,
					struct kslot_slots_mag *m)
{
	unsigned long irqflags = kslot_slots_lock(s);
	u32 i, n = 0;

	while (n < KSLOT_SLOTS_MAG_BATCH && s->free_head != KSLOT_SLOTS_NONE) {
		u32 index = s->free_head;
		struct kslot_slot *slot = kslot_slots_at(s, index);

		s->free_head = kslot_slots_next(slot);
		WRITE_ONCE(slot->obj, kslot_slots_link(KSLOT_SLOTS_CACHED));
		kslot_slots_mirror(s, slot, index);
		m->idx[n++] = index;
	}
	kslot_slots_unlock(s, irqflags);
	/* The first taken is handed out first: reverse into stack order. */
	for (i = 0; i < n / 2; i++)
		swap(m->idx[i], m->idx[n - 1 - i]);
	m->nr = n;
}

/*
 * Flush every CPU's magazine (offline CPUs' too) into the free list, for
 * an allocation that found none free, for reserve and for the dump.
 * Called with no lock held.  Returns the slots moved.
 */
static u32 kslot_slots_drain(struct kslot_slots *s)
{
	u32 moved = 0;
	int cpu;

	if (!s->mags)
		return 0;
	for_each_possible_cpu(cpu) {
		struct kslot_slots_mag *m = per_cpu_ptr(s->mags, cpu);
		unsigned long mflags = kslot_slots_mag_lock(s, m);

		if (m->nr) {
			unsigned long irqflags = kslot_slots_lock(s);

			moved += kslot_slots_flush(s, m, m->nr);
			kslot_slots_unlock(s, irqflags);
		}
		kslot_slots_mag_unlock(s, m, mflags);
		kslot_slots_test_point(s, KSLOT_SLOTS_TP_DRAIN);
	}
	return moved;
}

/*
 * Hand out the slot on top of @m, locked and not empty: it is this
 * magazine's alone, so no atomic is needed.  Returns the handle.
 */
static __always_inline u64 kslot_slots_mag_pop(struct kslot_slots *s,
					       struct kslot_slots_mag *m,
					       void *obj)
{
	u32 index = m->idx[--m->nr];
	struct kslot_slot *slot = &kslot_slots_mag_table(s)[index];
	u64 h = kslot_slots_make(s, index,
				 kslot_slots_word_gen(s, READ_ONCE(slot->word)) + 1);

	/*
	 * Counted before the word is published: the remove that ends the
	 * slot's cycle, on any CPU, then sees it in the stamp it takes.
	 */
	WRITE_ONCE(m->count, m->count + 1);
	WRITE_ONCE(m->issued, m->issued + 1);
	WRITE_ONCE(slot->obj, obj);
	/* Object before word; see __kslot_slots_lookup(). */
	smp_store_release(&slot->word, h);
	return h;
}

/*
 * kslot_slots_alloc() of a table with magazines, when this CPU's had no
 * free slot (or a growth runs): under the table lock.
 */
static noinline int kslot_slots_alloc_percpu_locked(struct kslot_slots *s,
						    void *obj, u64 *handle,
						    gfp_t gfp)
{
	unsigned long irqflags = kslot_slots_lock(s);
	int ret;

	ret = kslot_slots_grow(s, &irqflags, gfp, kslot_slots_has_free, 0);
	if (unlikely(ret)) {
		/*
		 * No free slot and no room to grow (or no memory): free
		 * slots may sit in magazines.  Bypassed magazine writers
		 * free onto the list instead, so no slot can move into a
		 * magazine the drain has passed: once it is done, every
		 * free slot is on the list, and an empty list means no
		 * slot is free anywhere.
		 */
		kslot_slots_bypass_begin(s);
		kslot_slots_unlock(s, irqflags);
		kslot_slots_drain(s);
		irqflags = kslot_slots_lock(s);
		/* None free anywhere: a full 32-bit table's oldest waiting slot. */
		if (s->free_head != KSLOT_SLOTS_NONE ||
		    (ret == -ENOSPC && kslot_slots_thaw(s, true)))
			ret = 0;
		kslot_slots_bypass_end(s);
	}
	if (!ret)
		*handle = kslot_slots_take(s, obj);
	kslot_slots_unlock(s, irqflags);
	return ret;
}

/* kslot_slots_alloc() of a table with magazines. */
static noinline int kslot_slots_alloc_percpu(struct kslot_slots *s,
					     void *obj, u64 *handle,
					     gfp_t gfp)
{
	struct kslot_slots_mag *m;
	unsigned long irqflags;

	m = kslot_slots_mag_get(s, &irqflags);
	if (likely(m)) {
		if (unlikely(!m->nr))
			kslot_slots_refill(s, m);
		if (likely(m->nr)) {
			*handle = kslot_slots_mag_pop(s, m, obj);
			kslot_slots_mag_unlock(s, m, irqflags);
			return 0;
		}
		kslot_slots_mag_unlock(s, m, irqflags);
	}
	return kslot_slots_alloc_percpu_locked(s, obj, handle, gfp);
}

/*
 * kslot_slots_remove() (@any) or kslot_slots_remove_if() (only if the
 * entry holds *@old) of a table with magazines, under the table lock:
 * while a growth runs, or to retire the slot.
 */
static noinline int kslot_slots_free_percpu_locked(struct kslot_slots *s,
						   u64 handle, void **old,
						   bool any)
{
	unsigned long irqflags = kslot_slots_lock(s);
	struct kslot_slot *slot = kslot_slots_live(s, handle);
	int ret = -ENOENT;

	if (slot)
		ret = kslot_slots_release_cas(s, slot, handle, old, any);
	kslot_slots_unlock(s, irqflags);
	return ret;
}

/*
 * kslot_slots_remove() (@any) or kslot_slots_remove_if() (only if the
 * entry holds *@old) of a table with magazines.  Returns 0 with the
 * removed object in *@old, -ENOENT or -EBUSY.
 */
static __always_inline int kslot_slots_free_percpu(struct kslot_slots *s,
						   u64 handle, void **old,
						   bool any)
{
	u32 index = kslot_slots_handle_index(s, handle);
	u32 gen = kslot_slots_gen_next(s, kslot_slots_word_gen(s, handle));
	struct kslot_slots_mag *m;
	struct kslot_slot *slot;
	unsigned long irqflags;
	int ret = -ENOENT;

	m = kslot_slots_mag_get(s, &irqflags);
	if (unlikely(!m))
		goto locked;
	/* Ending a slot's cycle (its last generation) takes the table lock. */
	if (unlikely(!gen)) {
		kslot_slots_mag_unlock(s, m, irqflags);
		goto locked;
	}
	slot = kslot_slots_mag_slot(s, handle);
	if (slot)
		ret = kslot_slots_cas_free(s, slot, handle, old, any,
					   kslot_slots_free_word(s, index, gen),
					   kslot_slots_link(KSLOT_SLOTS_CACHED));
	if (likely(!ret)) {
		if (unlikely(m->nr == KSLOT_SLOTS_MAG_SIZE))
			kslot_slots_flush_batch(s, m);
		m->idx[m->nr++] = index;
		WRITE_ONCE(m->count, m->count - 1);
	}
	kslot_slots_mag_unlock(s, m, irqflags);
	return ret;
locked:
	return kslot_slots_free_percpu_locked(s, handle, old, any);
}

static noinline void *kslot_slots_remove_percpu(struct kslot_slots *s,
						u64 handle)
{
	void *obj = NULL;

	kslot_slots_free_percpu(s, handle, &obj, true);
	return obj;
}

static int kslot_slots_remove_if_percpu(struct kslot_slots *s, u64 handle,
					void *old)
{
	return kslot_slots_free_percpu(s, handle, &old, false);
}

/*
 * kslot_slots_replace() (@any) or kslot_slots_replace_if() (only if the
 * entry holds *@old) of a table with magazines.  Returns 0 with the
 * replaced object in *@old, -ENOENT or -EBUSY.
 */
static int kslot_slots_set_percpu(struct kslot_slots *s, u64 handle,
				  void **old, bool any, void *obj)
{
	struct kslot_slots_mag *m;
	struct kslot_slot *slot;
	unsigned long irqflags;
	int ret = -ENOENT;

	m = kslot_slots_mag_get(s, &irqflags);
	if (m) {
		slot = kslot_slots_mag_slot(s, handle);
		if (slot)
			ret = kslot_slots_cas_obj(s, slot, handle, old, any,
						  obj);
		kslot_slots_mag_unlock(s, m, irqflags);
		return ret;
	}
	irqflags = kslot_slots_lock(s);
	slot = kslot_slots_live(s, handle);
	if (slot)
		ret = kslot_slots_cas_obj(s, slot, handle, old, any, obj);
	if (!ret)
		kslot_slots_mirror(s, slot, kslot_slots_handle_index(s, handle));
	kslot_slots_unlock(s, irqflags);
	return ret;
}

static void *kslot_slots_replace_percpu(struct kslot_slots *s, u64 handle,
					void *obj)
{
	void *old;
	int ret = kslot_slots_set_percpu(s, handle, &old, true, obj);

	return ret ? ERR_PTR(ret) : old;
}

/**
 * kslot_slots_count_percpu() - kslot_slots_count() of a per-CPU table.
 * @s: A table created with %KSLOT_SLOTS_PERCPU.
 *
 * The sum of the table lock's count and every CPU's magazine count,
 * modulo 2^32 (each may have wrapped; the sum fits), clamped to
 * 0 .. max_entries while writers run.
 *
 * Context: Any context.  Lockless.
 * Return: Live entries, placeholders included.
 */
u32 kslot_slots_count_percpu(const struct kslot_slots *s)
{
	u32 n = READ_ONCE(s->count);
	int cpu;

	if (s->mags)
		for_each_possible_cpu(cpu)
			n += READ_ONCE(per_cpu_ptr(s->mags, cpu)->count);
	if ((s32)n < 0)
		return 0;
	return min(n, s->max_entries);
}
EXPORT_SYMBOL_GPL(kslot_slots_count_percpu);

/*
 * Free slots of the current table (neither live nor retired), those in
 * magazines included: an allocation that needs them flushes them.
 */
static u32 kslot_slots_free_slots(const struct kslot_slots *s)
{
	/* A per-CPU count summed under racing writers may be one too many. */
	s64 n = (s64)s->capacity - kslot_slots_count(s) - s->retired -
		s->waiting;

	return max_t(s64, n, 0);
}

/**
 * kslot_slots_reserve() - Make room for allocations that must not fail.
 * @s: The table.
 * @nr: Allocations to make room for.
 * @gfp: Allocation flags for growing the table.
 *
 * Grows the table, as kslot_slots_alloc() does (the new table allocated
 * with the lock dropped, copied in batches), until its current table has
 * at least @nr free slots.  Until they are used, kslot_slots_alloc() with
 * any gfp (GFP_ATOMIC included) and __kslot_slots_alloc() under the lock
 * take them and cannot fail for lack of memory.
 *
 * The room is the table's, not the caller's: a concurrent allocator may
 * take the free slots too.  A caller that counts on @nr allocations
 * succeeding must keep other allocators out between the reservation and
 * its allocations (its own lock, or by reserving for all of them), as
 * with idr_preload() followed by allocations under the caller's lock.
 * Free slots stay free (a later remove may add more); there is nothing to
 * release.
 *
 * In a per-CPU table the free slots in every CPU's magazine count: an
 * allocation that finds no other free slot flushes them (rather than fail
 * for memory).
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow; not with the table lock held.  Takes and
 * releases the table lock, and drops it to allocate.
 * Return: 0 (also for @nr 0), -ENOMEM if growing the table failed (it
 * may have grown part of the way), or -ENOSPC if @nr slots do not fit
 * under max_entries beside the live and retired ones (the table is not
 * grown), or no longer fit once concurrent allocators took some; -EINVAL
 * if the table is keyed or being restored (it has no free list).
 */
int kslot_slots_reserve(struct kslot_slots *s, u32 nr, gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	if (kslot_slots_zeroed(s))
		return nr ? -ENOSPC : 0;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_no_alloc(s);
	if (ret)
		goto out;
	if (nr > s->max_entries - kslot_slots_count(s) - s->retired) {
		ret = -ENOSPC;
		goto out;
	}
	ret = kslot_slots_grow(s, &irqflags, gfp, kslot_slots_has_room, nr);
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_reserve);

/*
 * Keyed tables and restore.
 *
 * A keyed table (%KSLOT_SLOTS_KEYED) is addressed by its caller: entries
 * go in at the handles another table issued (kslot_slots_insert_at(),
 * kslot_slots_store_at()), lookups and removes are the usual ones, and
 * there is no free list (kslot_slots_alloc() refuses).  Restore rebuilds
 * any table slot by slot (a checkpoint's live entries, free slots at their
 * generations, retired slots), then its free list.  Both only ever add to
 * the slot format of the top of kslot_slots.h: a live word is the handle,
 * a free word names the neighbour slot.
 */

/**
 * __kslot_slots_init_tag() - Initialise a table whose handles carry a given tag.
 * @s: The table.
 * @kind: As kslot_slots_init().
 * @name: As kslot_slots_init().
 * @max_entries: As kslot_slots_init().
 * @flags: As kslot_slots_init(), %KSLOT_SLOTS_KEYED included.
 * @tag: The tag, 0 .. %KSLOT_TAG_MASK (a restored table keeps its old
 *	one), or, for a keyed table only, %KSLOT_SLOTS_TAG_UNBOUND: the first
 *	kslot_slots_insert_at() or kslot_slots_store_at() binds the tag of
 *	its handle.
 * @keys: As __kslot_slots_init().
 *
 * kslot_slots_init() chooses a random tag instead.
 *
 * Context: As kslot_slots_init().
 * Return: 0, or -EINVAL if @tag is out of range (%KSLOT_SLOTS_TAG_UNBOUND
 * without %KSLOT_SLOTS_KEYED included), if @flags holds
 * %KSLOT_SLOTS_HANDLE32 or %KSLOT_SLOTS_PERCPU, or for
 * kslot_slots_init()'s reasons.
 */
int __kslot_slots_init_tag(struct kslot_slots *s, const char *kind,
			   const char *name, u32 max_entries,
			   unsigned int flags, u32 tag,
			   struct lock_class_key *keys)
{
	int ret;

	/* Keyed and restored tables: 64-bit, and a lock no writer bypasses. */
	if (flags & (KSLOT_SLOTS_HANDLE32 | KSLOT_SLOTS_PERCPU))
		return -EINVAL;
	if (tag > KSLOT_TAG_MASK &&
	    (tag != KSLOT_SLOTS_TAG_UNBOUND || !(flags & KSLOT_SLOTS_KEYED)))
		return -EINVAL;
	ret = __kslot_slots_init(s, kind, name, max_entries, flags, keys);
	if (!ret)
		s->tag = tag;
	return ret;
}
EXPORT_SYMBOL_GPL(__kslot_slots_init_tag);

/* Is slot @slot retired?  Called with the lock held. */
static bool kslot_slots_is_retired(const struct kslot_slots *s,
				   const struct kslot_slot *slot)
{
	return !kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)) &&
	       kslot_slots_next(slot) == KSLOT_SLOTS_RETIRED;
}

/* Make free slot @index live under @handle, holding @obj; lock held. */
static void kslot_slots_make_live(struct kslot_slots *s, u32 index,
				  u64 handle, void *obj)
{
	struct kslot_slot *slot = kslot_slots_at(s, index);

	WRITE_ONCE(slot->obj, obj);
	/* Object before word; see __kslot_slots_lookup(). */
	smp_store_release(&slot->word, handle);
	kslot_slots_mirror(s, slot, index);
	WRITE_ONCE(s->count, s->count + 1);
}

/*
 * Check @handle for a keyed write and grow the table to its slot.  Called
 * and returns with the lock held (dropped to grow); binds an unbound tag
 * once the checks passed.
 */
static int kslot_slots_keyed_prepare(struct kslot_slots *s, u64 handle,
				     unsigned long *irqflags, gfp_t gfp)
	__must_hold(&s->lock)
{
	u32 index = kslot_handle_index(handle), tag = kslot_handle_tag(handle);
	int ret;

	if (!(s->flags & KSLOT_SLOTS_KEYED) ||
	    !kslot_gen_is_live(kslot_handle_gen(handle)) ||
	    index >= s->max_entries ||
	    (s->tag != KSLOT_SLOTS_TAG_UNBOUND && s->tag != tag))
		return -EINVAL;
	ret = kslot_slots_grow(s, irqflags, gfp, kslot_slots_has_index, index);
	if (ret)
		return ret;
	/* The lock was dropped: another insert may have bound the tag. */
	if (s->tag == KSLOT_SLOTS_TAG_UNBOUND)
		WRITE_ONCE(s->tag, tag);
	return s->tag == tag ? 0 : -EINVAL;
}

/**
 * kslot_slots_insert_at() - Make exactly one handle live in a keyed table.
 * @s: A table created with %KSLOT_SLOTS_KEYED.
 * @handle: The handle, issued by another table (the primary).
 * @obj: The pointer to store; NULL stores a placeholder (lookups return
 *	NULL until kslot_slots_replace()).
 * @gfp: Allocation flags for growing the table to @handle's index.
 *
 * The slot @handle names must be free at a generation older than
 * @handle's: then it becomes live under @handle, exactly as if this table
 * had issued it.  An unbound tag (kslot_slots_init_tag()) is bound to
 * @handle's.  The object's contents must be initialised before the call.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0; -EINVAL if the table is not keyed, or @handle has an even
 * generation, an index at or beyond max_entries, or a tag other than the
 * table's; -ENOMEM if growing the table failed; -EEXIST if the slot is
 * live (under @handle or any other generation); -ESTALE if the slot's
 * generation is as new as @handle's or newer, or the slot is retired.
 * The table is unchanged on error (but for growth).
 */
int kslot_slots_insert_at(struct kslot_slots *s, u64 handle, void *obj,
			  gfp_t gfp)
{
	u32 index = kslot_handle_index(handle);
	const struct kslot_slot *slot;
	unsigned long irqflags;
	int ret;

	if (kslot_slots_zeroed(s))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_keyed_prepare(s, handle, &irqflags, gfp);
	if (ret)
		goto out;
	slot = kslot_slots_at(s, index);
	if (kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)))
		ret = -EEXIST;
	else if (kslot_slots_is_retired(s, slot) ||
		 kslot_slots_word_gen(s, slot->word) > kslot_handle_gen(handle))
		ret = -ESTALE;
	else
		kslot_slots_make_live(s, index, handle, obj);
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_insert_at);

/**
 * kslot_slots_store_at() - Store a pointer under a handle of a keyed table.
 * @s: A table created with %KSLOT_SLOTS_KEYED.
 * @handle: The handle, issued by another table (the primary).
 * @obj: The pointer to store (NULL for a placeholder, as
 *	kslot_slots_insert_at()).
 * @gfp: Allocation flags for growing the table to @handle's index.
 *
 * kslot_slots_insert_at() that also takes over a live slot: if the slot
 * is live under @handle, its pointer is replaced (kslot_slots_replace());
 * if it is live under an older generation (the primary has since reused
 * the slot), the old entry gives way to @handle, as a remove and an insert
 * would, with no lookup of either handle seeing the other's pointer.
 *
 * Context: As kslot_slots_insert_at().
 * Return: The previous pointer of the slot (NULL if it was free or a
 * placeholder), which the caller owns, or ERR_PTR() of
 * kslot_slots_insert_at()'s errors but -EEXIST: -ESTALE covers a slot live
 * under a newer generation.
 */
void *kslot_slots_store_at(struct kslot_slots *s, u64 handle, void *obj,
			   gfp_t gfp)
{
	u32 index = kslot_handle_index(handle), gen = kslot_handle_gen(handle);
	struct kslot_slot *slot;
	unsigned long irqflags;
	void *old = NULL;
	u32 cur;
	int ret;

	if (kslot_slots_zeroed(s))
		return ERR_PTR(-EINVAL);
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_keyed_prepare(s, handle, &irqflags, gfp);
	if (ret)
		goto out;
	slot = kslot_slots_at(s, index);
	cur = kslot_slots_word_gen(s, slot->word);
	if (kslot_slots_is_retired(s, slot) || cur > gen) {
		ret = -ESTALE;
	} else if (cur == gen) {
		old = slot->obj;
		/* Object contents before the pointer, as rcu_assign_pointer(). */
		smp_store_release(&slot->obj, obj);
		kslot_slots_mirror(s, slot, index);
	} else if (kslot_gen_is_live(cur)) {
		old = slot->obj;
		/* Through a free word: no lookup pairs a handle and the other's object. */
		WRITE_ONCE(slot->word, kslot_slots_free_word(s, index, gen - 1));
		smp_wmb(); /* Word before object; see __kslot_slots_lookup(). */
		WRITE_ONCE(slot->obj, obj);
		/* Object before the new word, as kslot_slots_alloc(). */
		smp_store_release(&slot->word, handle);
		kslot_slots_mirror(s, slot, index);
	} else {
		kslot_slots_make_live(s, index, handle, obj);
	}
out:
	kslot_slots_unlock(s, irqflags);
	return ret ? ERR_PTR(ret) : old;
}
EXPORT_SYMBOL_GPL(kslot_slots_store_at);

/*
 * Chain the free slots of @lo .. @hi - 1, lowest first, in front of
 * @head; lock held.  Returns the new head.
 */
static u32 kslot_slots_relink_range(struct kslot_slots *s, u32 lo, u32 hi,
				    u32 head)
{
	u32 i;

	for (i = hi; i-- > lo;) {
		struct kslot_slot *slot = kslot_slots_at(s, i);

		if (kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)) ||
		    kslot_slots_is_retired(s, slot))
			continue;
		WRITE_ONCE(slot->obj, kslot_slots_link(head));
		kslot_slots_mirror(s, slot, i);
		head = i;
	}
	return head;
}

/* Chain the free slots, lowest first; lock held. */
static void kslot_slots_relink(struct kslot_slots *s)
{
	s->free_head = kslot_slots_relink_range(s, 0, s->capacity,
						KSLOT_SLOTS_NONE);
}

/**
 * kslot_slots_reset() - Forget every generation of an empty table.
 * @s: The table.
 * @tag: The tag from now on, as kslot_slots_init_tag() takes it.
 *
 * Every slot becomes free at generation 0, retired ones included, and the
 * free list is rebuilt, lowest slot first: the table is as new, but keeps
 * its memory, its name and its rejected counter.  Handles issued before
 * may match again once the slots are reused, so only reset a table whose
 * old handles are all gone, or whose @tag differs from the old one.
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock, for a walk of every slot.
 * Return: 0, -EBUSY if the table holds live entries, or -EINVAL if @tag is
 * out of range (any tag but 0 for a table of 32-bit handles) or the table
 * is per-CPU.
 */
int kslot_slots_reset(struct kslot_slots *s, u32 tag)
{
	unsigned long irqflags;
	int ret = 0;
	u32 i;

	if (tag > KSLOT_TAG_MASK &&
	    (tag != KSLOT_SLOTS_TAG_UNBOUND || !(s->flags & KSLOT_SLOTS_KEYED)))
		return -EINVAL;
	/* A 32-bit table's handles carry no tag. */
	if ((s->flags & KSLOT_SLOTS_HANDLE32) && tag)
		return -EINVAL;
	/* Its slots may sit in magazines: a per-CPU table is never reset. */
	if ((s->flags & KSLOT_SLOTS_PERCPU) || kslot_slots_zeroed(s))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	if (s->count) {
		ret = -EBUSY;
		goto out;
	}
	for (i = 0; i < s->capacity; i++) {
		struct kslot_slot *slot = kslot_slots_at(s, i);

		WRITE_ONCE(slot->word, kslot_slots_free_word(s, i, 0));
		/* Un-retire; kslot_slots_relink() chains it. */
		WRITE_ONCE(slot->obj, kslot_slots_link(KSLOT_SLOTS_NONE));
		kslot_slots_mirror(s, slot, i);
	}
	kslot_slots_relink(s);
	s->retired = 0;
	s->waiting = 0;
	s->restoring = false;
	WRITE_ONCE(s->tag, tag);
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_reset);

/*
 * Start or continue a restore: grow to @index, whose slot must still be
 * as a new table has it.  Called and returns with the lock held.
 */
static int kslot_slots_restore_prepare(struct kslot_slots *s, u32 index,
				       unsigned long *irqflags, gfp_t gfp)
	__must_hold(&s->lock)
{
	const struct kslot_slot *slot;
	int ret;

	/* Restore speaks the 64-bit format only, under the table lock. */
	if (index >= s->max_entries ||
	    (s->flags & (KSLOT_SLOTS_HANDLE32 | KSLOT_SLOTS_PERCPU)))
		return -EINVAL;
	if (!s->restoring && s->count)
		return -EBUSY;
	/* From now on kslot_slots_alloc() refuses: the free list is stale. */
	s->restoring = true;
	ret = kslot_slots_grow(s, irqflags, gfp, kslot_slots_has_index, index);
	if (ret)
		return ret;
	slot = kslot_slots_at(s, index);
	if (slot->word != kslot_slots_free_word(s, index, 0) ||
	    kslot_slots_is_retired(s, slot))
		return -EEXIST;
	return 0;
}

/**
 * kslot_slots_restore_slot() - Recreate one slot of a checkpointed table.
 * @s: The table, new (no live entry) or being restored.
 * @index: The slot.
 * @gen: Its generation: odd recreates a live entry, whose handle is
 *	kslot_handle_make(@index, tag, @gen) with the table's tag (give the
 *	old one to kslot_slots_init_tag()); even recreates a free slot at
 *	that generation, so the old handles of the slot stay stale.
 * @obj: The live entry's pointer (NULL for a placeholder); NULL for a
 *	free slot.
 * @gfp: Allocation flags for growing the table to @index.
 *
 * The first restore call puts the table in restore mode: until
 * kslot_slots_restore_done(), kslot_slots_alloc() refuses with -EINVAL
 * (lookups, replace and remove work on what is restored so far).  Each
 * slot may be restored once; slots never restored stay free at
 * generation 0.  The caller serialises the restore calls.
 *
 * Context: Process context if @gfp allows sleeping, otherwise any context
 * the table's lock flags allow.  Takes and releases the table lock.
 * Return: 0; -EINVAL if @index is at or beyond max_entries, if @gen is even
 * and @obj is not NULL, if the table issues 32-bit handles (restore
 * speaks the 64-bit format only) or is per-CPU; -EBUSY if the table
 * holds entries and is not being restored; -EEXIST if the slot was
 * restored already; -ENOMEM if growing the table failed.  The table is
 * unchanged on error (but for growth and restore mode).
 */
int kslot_slots_restore_slot(struct kslot_slots *s, u32 index, u32 gen,
			     void *obj, gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	if ((!kslot_gen_is_live(gen) && obj) || kslot_slots_zeroed(s))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_restore_prepare(s, index, &irqflags, gfp);
	if (ret)
		goto out;
	if (kslot_gen_is_live(gen)) {
		kslot_slots_make_live(s, index,
				      kslot_handle_make(index, s->tag, gen), obj);
	} else {
		struct kslot_slot *slot = kslot_slots_at(s, index);

		WRITE_ONCE(slot->word, kslot_slots_free_word(s, index, gen));
		kslot_slots_mirror(s, slot, index);
	}
out:
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_restore_slot);

/**
 * kslot_slots_restore_retired() - Recreate a retired slot.
 * @s: The table, new or being restored (see kslot_slots_restore_slot()).
 * @index: The slot, retired in the checkpoint.
 * @gfp: Allocation flags for growing the table to @index.
 *
 * The slot is retired for good and counted, as a remove at the last
 * generation would have left it.
 *
 * Context: As kslot_slots_restore_slot().
 * Return: 0, or kslot_slots_restore_slot()'s errors but the one of @gen.
 */
int kslot_slots_restore_retired(struct kslot_slots *s, u32 index, gfp_t gfp)
{
	unsigned long irqflags;
	int ret;

	if (kslot_slots_zeroed(s))
		return -EINVAL;
	irqflags = kslot_slots_lock(s);
	ret = kslot_slots_restore_prepare(s, index, &irqflags, gfp);
	if (!ret) {
		struct kslot_slot *slot = kslot_slots_at(s, index);

		WRITE_ONCE(slot->obj, kslot_slots_link(KSLOT_SLOTS_RETIRED));
		kslot_slots_mirror(s, slot, index);
		s->retired++;
	}
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_GPL(kslot_slots_restore_retired);

/* Slots kslot_slots_restore_done() chains per hold of the table lock. */
#define KSLOT_SLOTS_RELINK_CHUNK	1024U

/*
 * Between two chunks of kslot_slots_restore_done(), which has chained the
 * free slots from @pos up in front of @head, removes pushed slots on the
 * free list: keep those at or above @pos (the walk has passed them) in
 * front of @head and leave out the others, which the walk chains when it
 * gets to them.  Lock held; returns the new head.
 */
static u32 kslot_slots_relink_pushed(struct kslot_slots *s, u32 head, u32 pos)
{
	u32 i = s->free_head, keep = head;

	while (i != head) {
		struct kslot_slot *slot = kslot_slots_at(s, i);
		u32 next = kslot_slots_next(slot);

		if (i >= pos) {
			WRITE_ONCE(slot->obj, kslot_slots_link(keep));
			kslot_slots_mirror(s, slot, i);
			keep = i;
		}
		i = next;
	}
	s->free_head = keep;
	return keep;
}

/**
 * kslot_slots_restore_done() - End a restore: rebuild the free list.
 * @s: The table.
 *
 * Chains every free slot below the capacity, lowest first (so the next
 * allocations take the lowest free slots, whatever order the checkpoint's
 * free list had; slots removed during the call may come first), and
 * leaves restore mode.  Harmless on a table that is not being restored.
 * The walk holds the table lock for %KSLOT_SLOTS_RELINK_CHUNK slots at a
 * time, never for the whole capacity; lookups, replace and remove may run
 * between its chunks, as during the restore.  The caller serialises it
 * with the restore calls and kslot_slots_reset().
 *
 * Context: Any context the table's lock flags allow.  Takes and releases
 * the table lock, once per chunk of slots.
 */
void kslot_slots_restore_done(struct kslot_slots *s)
{
	u32 head = KSLOT_SLOTS_NONE, hi, lo;
	unsigned long irqflags;

	if (kslot_slots_zeroed(s))
		return;
	irqflags = kslot_slots_lock(s);
	if (!s->restoring)
		goto out;
	for (hi = s->capacity; hi; hi = lo) {
		lo = hi - min(hi, KSLOT_SLOTS_RELINK_CHUNK);
		head = kslot_slots_relink_range(s, lo, hi, head);
		s->free_head = head;
		if (!lo)
			break;
		kslot_slots_unlock(s, irqflags);
		irqflags = kslot_slots_lock(s);
		if (s->free_head != head)
			head = kslot_slots_relink_pushed(s, head, lo);
	}
	/* An empty table: no slot, an empty list. */
	if (!s->capacity)
		s->free_head = KSLOT_SLOTS_NONE;
	s->restoring = false;
out:
	kslot_slots_unlock(s, irqflags);
}
EXPORT_SYMBOL_GPL(kslot_slots_restore_done);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kslot_slots_test_set_hook() - Run a function at the core's test points (KUnit only).
 * @fn: Called with the table and the point (enum kslot_slots_test_point)
 *	wherever the core drops its locks or may be raced between two
 *	reads; NULL for none.  It filters on the table itself.
 *
 * A case sets it to force an interleaving, and sets it back before it
 * ends.
 *
 * Context: Process context.
 * Return: The hook set before.
 */
kslot_slots_test_hook_t kslot_slots_test_set_hook(kslot_slots_test_hook_t fn)
{
	kslot_slots_test_hook_t old = READ_ONCE(kslot_slots_test_hook);

	WRITE_ONCE(kslot_slots_test_hook, fn);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_set_hook);

/**
 * kslot_slots_test_set_gen() - Age a free slot (KUnit only).
 * @s: The table.
 * @index: A free slot below the capacity.
 * @gen: New even generation, to start the slot near retirement.
 *
 * Context: Any context the table's lock flags allow.
 * Return: 0, or -EINVAL if the slot is not free (live or retired), is
 * beyond the capacity, or @gen is odd or does not fit the table's
 * generation bits.
 */
int kslot_slots_test_set_gen(struct kslot_slots *s, u32 index, u32 gen)
{
	unsigned long irqflags = kslot_slots_lock(s);
	struct kslot_slot *slot;
	int ret = -EINVAL;

	if (index < s->capacity && !kslot_gen_is_live(gen) &&
	    gen <= kslot_slots_gen_max(s)) {
		slot = kslot_slots_at(s, index);
		if (!kslot_gen_is_live(kslot_slots_word_gen(s, slot->word)) &&
		    !(slot->word & KSLOT_SLOTS_WAIT_BIT) &&
		    kslot_slots_next(slot) != KSLOT_SLOTS_RETIRED) {
			WRITE_ONCE(slot->word,
				   kslot_slots_free_word(s, index, gen));
			kslot_slots_mirror(s, slot, index);
			ret = 0;
		}
	}
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_set_gen);

/* The KUnit step grows for its own sake. */
static bool kslot_slots_never(const struct kslot_slots *s, u32 unused)
{
	return false;
}

/**
 * kslot_slots_test_grow_step() - One growth step on demand (KUnit only).
 * @s: The table.
 *
 * Starts a growth (allocates the next table) or copies one batch of it,
 * publishing after the last, whether or not the free list is empty, so a
 * test can write between batches.
 *
 * Context: Process context.
 * Return: 0, -ENOMEM, or -ENOSPC if the table cannot grow.
 */
int kslot_slots_test_grow_step(struct kslot_slots *s)
{
	unsigned long irqflags = kslot_slots_lock(s);
	int ret = 0;

	if (!s->grow.next)
		ret = kslot_slots_grow_start(s, &irqflags, GFP_KERNEL,
					     kslot_slots_never, 0);
	/* Quiesce the magazines first if need be, then copy one batch. */
	if (!ret && s->grow.next && !s->quiesced)
		kslot_slots_grow_step(s, &irqflags);
	if (!ret && s->grow.next)
		kslot_slots_grow_step(s, &irqflags);
	kslot_slots_unlock(s, irqflags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_slots_test_grow_step);
#endif
