// SPDX-License-Identifier: GPL-2.0
/*
 * kslot_hive: bucket array with a low-complexity jump-counting skipfield.
 * See include/linux/kslot_hive.h for the rules.
 *
 * Skipfield invariants, per active group (S is its skipfield):
 * - S[i] == 0 iff slot i is live, or i >= last (never handed out).
 *   S[-1] and S[capacity] are zero sentinels.
 * - A skipblock (maximal run of erased slots) s..e has
 *   S[s] == S[e] == e - s + 1.  Its middle nodes are nonzero with no
 *   other meaning.
 * - Live bit i is set iff S[i] == 0 and i < last.  Erased-word bit w is
 *   set iff live word w has an erased slot below last, so the lowest
 *   erased slot of the lowest such word starts a skipblock: that is the
 *   slot an insert reuses.  Erased elements' memory is never written.
 * - The group is in the hive's erasure list iff count < last, and in the
 *   active list iff count > 0.
 *
 * Groups are page allocations so that an element pointer finds its group
 * in O(1): the group header sits at the start of the folio, and the
 * folio's private field points to it.
 */
#include <linux/align.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kmemleak.h>
#include <linux/kslot_hive.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/shrinker.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "kslot_internal.h"

/*
 * Group layout: the header (with the erased-word bitmap), the live bitmap
 * (a u64 per 64 slots), the skipfield with its zero nodes -1 and
 * capacity, the elements.
 */
static u32 kslot_hive_bitmap_words(u32 cap)
{
	return DIV_ROUND_UP(cap, KSLOT_HIVE_LIVE_BITS);
}

static u16 *kslot_hive_skipfield_of(struct kslot_hive_group *g, u32 cap)
{
	return (u16 *)(g->live + kslot_hive_bitmap_words(cap)) + 1;
}

/* Offset of the element area of a group of @cap elements. */
static size_t kslot_hive_elems_offset(const struct kslot_hive *hive, u32 cap)
{
	return ALIGN(sizeof(struct kslot_hive_group) +
		     kslot_hive_bitmap_words(cap) * sizeof(u64) +
		     (cap + 2) * sizeof(u16), hive->align);
}

/* Whether a group of @cap elements fits in @bytes. */
static bool kslot_hive_fits(const struct kslot_hive *hive, size_t cap,
			    size_t bytes)
{
	return kslot_hive_elems_offset(hive, cap) + cap * hive->elem_size <=
	       bytes;
}

/* Elements an order-@order group can hold. */
static u32 kslot_hive_fit(const struct kslot_hive *hive, unsigned int order)
{
	size_t bytes = PAGE_SIZE << order;
	size_t cap;

	if (!kslot_hive_fits(hive, 1, bytes))
		return 0;
	/*
	 * A slot costs its element, a node and a bit: start from that
	 * estimate, then step to the exact bound (the fixed parts, the
	 * erased-word bits and the rounding move it by a slot or two).
	 */
	cap = bytes * BITS_PER_BYTE /
	      (hive->elem_size * BITS_PER_BYTE + 2 * BITS_PER_BYTE + 1);
	cap = min_t(size_t, cap, KSLOT_HIVE_MAX_CAPACITY);
	while (!kslot_hive_fits(hive, cap, bytes))
		cap--;
	while (cap < KSLOT_HIVE_MAX_CAPACITY &&
	       kslot_hive_fits(hive, cap + 1, bytes))
		cap++;
	return cap;
}

/*
 * The order of a group asked to hold @want elements: the smallest that
 * holds them, or the largest.  A group of max_capacity elements is of
 * the order this gives for max_capacity, whatever it was asked to hold.
 */
static unsigned int kslot_hive_order(const struct kslot_hive *hive, u32 want)
{
	unsigned int order = 0;

	while (order < KSLOT_HIVE_MAX_ORDER && kslot_hive_fit(hive, order) < want)
		order++;
	return order;
}

/*
 * Offsets in a group divide by the element size as a multiply and a
 * shift: with inv = 2^40 / size + 1, off * inv / 2^40 = off / size +
 * off * e / 2^40 for some 0 < e <= 1, and off * size < 2^40 keeps the
 * error below 1 / size, so the floor is exact.
 */
#define KSLOT_HIVE_INV_SHIFT	40
#define KSLOT_HIVE_INV_ONE	BIT_ULL(KSLOT_HIVE_INV_SHIFT)
static_assert((u64)(PAGE_SIZE << KSLOT_HIVE_MAX_ORDER) * KSLOT_HIVE_MAX_ELEM <
	      KSLOT_HIVE_INV_ONE);

/* @off / elem_size, for an offset inside a group. */
static u32 kslot_hive_index(const struct kslot_hive *hive, size_t off)
{
	return ((u64)off * hive->elem_inv) >> KSLOT_HIVE_INV_SHIFT;
}

/*
 * The shrinker: one for all hives made with KSLOT_HIVE_SHRINK, which sit
 * on a list under a mutex.  It frees spare groups only; a spare group is
 * on no other list and holds no element, so the hive's own state (which
 * the caller's lock guards) is never touched.
 */
static LIST_HEAD(kslot_hive_shrink_list);
static DEFINE_MUTEX(kslot_hive_shrink_mutex);
static atomic_long_t kslot_hive_nr_spare = ATOMIC_LONG_INIT(0);
static struct shrinker *kslot_hive_shrinker;

static void kslot_hive_shrink_add(struct kslot_hive *hive)
{
	mutex_lock(&kslot_hive_shrink_mutex);
	list_add(&hive->shrink_node, &kslot_hive_shrink_list);
	mutex_unlock(&kslot_hive_shrink_mutex);
}

/* On the shrinker's list (a zeroed, never initialised hive is not). */
static bool kslot_hive_shrinking(const struct kslot_hive *hive)
{
	return hive->shrink_node.next && !list_empty(&hive->shrink_node);
}

static void kslot_hive_shrink_del(struct kslot_hive *hive)
{
	if (!kslot_hive_shrinking(hive))
		return;
	mutex_lock(&kslot_hive_shrink_mutex);
	list_del_init(&hive->shrink_node);
	mutex_unlock(&kslot_hive_shrink_mutex);
}

/**
 * kslot_hive_init() - Initialise an empty hive.
 * @hive: The hive.
 * @params: Element size and alignment, group capacity limits, how many
 *	emptied groups to keep, flags.  See struct kslot_hive_params.
 *
 * No memory is allocated until the first insert or reserve.  With
 * %KSLOT_HIVE_SHRINK the hive joins the shrinker's list of hives.
 *
 * Context: Any context; process context with %KSLOT_HIVE_SHRINK.
 * Return: 0, or -EINVAL if the element size is 0 or too big once padded,
 * the alignment is not a power of two up to PAGE_SIZE, the capacity
 * limits are out of order or beyond %KSLOT_HIVE_MAX_CAPACITY, an explicit
 * min_capacity does not fit in an order-%KSLOT_HIVE_MAX_ORDER group, or
 * the flags hold unknown bits.
 */
int kslot_hive_init(struct kslot_hive *hive,
		    const struct kslot_hive_params *params)
{
	size_t align = params->align ?: __alignof__(unsigned long long);
	u32 max_cap = params->max_capacity ?: KSLOT_HIVE_DEFAULT_MAX;
	u32 min_cap = params->min_capacity;
	size_t size = params->elem_size;

	if (!size || !is_power_of_2(align) || align > PAGE_SIZE)
		return -EINVAL;
	if (params->flags & ~KSLOT_HIVE_FLAGS_ALL)
		return -EINVAL;
	if (size > KSLOT_HIVE_MAX_ELEM || max_cap > KSLOT_HIVE_MAX_CAPACITY ||
	    min_cap > max_cap)
		return -EINVAL;
	size = ALIGN(size, align);
	if (size > KSLOT_HIVE_MAX_ELEM)
		return -EINVAL;

	memset(hive, 0, sizeof(*hive));
	hive->elem_size = size;
	hive->elem_inv = div_u64(KSLOT_HIVE_INV_ONE, size) + 1;
	hive->align = align;
	max_cap = min(max_cap, kslot_hive_fit(hive, KSLOT_HIVE_MAX_ORDER));
	if (!min_cap)
		min_cap = min_t(u32, KSLOT_HIVE_DEFAULT_MIN, max_cap);
	if (!min_cap || min_cap > max_cap)
		return -EINVAL;
	hive->min_capacity = min_cap;
	hive->max_capacity = max_cap;
	hive->max_group_mask = ~((PAGE_SIZE << kslot_hive_order(hive, max_cap)) -
				 1);
	hive->max_group_elems = kslot_hive_elems_offset(hive, max_cap);
	hive->max_group_skip = offsetof(struct kslot_hive_group, live) +
			       kslot_hive_bitmap_words(max_cap) * sizeof(u64) +
			       sizeof(u16);
	hive->max_unused = params->max_unused;
	hive->flags = params->flags;
	raw_spin_lock_init(&hive->spare_lock);
	INIT_LIST_HEAD(&hive->shrink_node);
	if (hive->flags & KSLOT_HIVE_SHRINK)
		kslot_hive_shrink_add(hive);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_hive_init);

/* Allocate a group able to hold at least @want elements (not adopted). */
static struct kslot_hive_group *
kslot_hive_group_alloc(struct kslot_hive *hive, u32 want, gfp_t gfp)
{
	struct kslot_hive_group *g;
	struct folio *folio;
	unsigned int order;

	order = kslot_hive_order(hive, clamp(want, hive->min_capacity,
					     hive->max_capacity));
	gfp = kslot_gfp(gfp & ~(__GFP_ZERO | __GFP_HIGHMEM | __GFP_DMA |
				__GFP_DMA32), hive->flags & KSLOT_HIVE_ACCOUNT);
	if (kslot_should_fail_alloc())
		return NULL;
	folio = folio_alloc(gfp, order);
	if (!folio)
		return NULL;
	g = folio_address(folio);
	/* Scanned for pointers the elements hold, reported if leaked. */
	kmemleak_alloc(g, PAGE_SIZE << order, 1, gfp);
	memset(g, 0, sizeof(*g));
	g->hive = hive;
	g->order = order;
	g->capacity = min(kslot_hive_fit(hive, order), hive->max_capacity);
	g->skipfield = kslot_hive_skipfield_of(g, g->capacity);
	g->elements = (void *)g + kslot_hive_elems_offset(hive, g->capacity);
	folio->private = g;
	return g;
}

static void kslot_hive_group_free(struct kslot_hive_group *g)
{
	struct folio *folio = virt_to_folio(g);

	folio->private = NULL;
	kmemleak_free(g);
	folio_put(folio);
}

static size_t kslot_hive_group_bytes(const struct kslot_hive_group *g)
{
	return PAGE_SIZE << g->order;
}

/* The group holding @p if @p points into one of @hive's groups, or NULL. */
static struct kslot_hive_group *
kslot_hive_group_of(const struct kslot_hive *hive, const void *p)
{
	struct kslot_hive_group *g;
	struct folio *folio;

	if (!virt_addr_valid(p))
		return NULL;
	folio = virt_to_folio(p);
	if (folio_test_slab(folio))
		return NULL;
	g = folio_address(folio);
	if (READ_ONCE(folio->private) != g || g->hive != hive)
		return NULL;
	return g;
}

/*
 * Slot @p of group @g, whose elements and skipfield are at @elements and
 * @skip and which holds @cap: 0 with *@gp, *@sp and *@ip set, -EINVAL if
 * @p is not a slot of @g, or -ENOENT if @g is not in use or the slot was
 * never handed out.
 */
static __always_inline int
kslot_hive_slot_in(const struct kslot_hive *hive, struct kslot_hive_group *g,
		   void *elements, u16 *skip, u32 cap, const void *p,
		   struct kslot_hive_group **gp, u16 **sp, u32 *ip)
{
	size_t off;
	u32 i;

	if (p < elements)
		return -EINVAL;
	off = p - elements;
	i = kslot_hive_index(hive, off);
	if ((size_t)i * hive->elem_size != off || i >= cap)
		return -EINVAL;
	if (!g->active || i >= g->last)
		return -ENOENT;
	*gp = g;
	*sp = skip;
	*ip = i;
	return 0;
}

/* kslot_hive_slot_of() for a slot of any group, or of none. */
static noinline int kslot_hive_slot_any(const struct kslot_hive *hive,
					const void *p,
					struct kslot_hive_group **gp,
					u16 **sp, u32 *ip)
{
	struct kslot_hive_group *g = kslot_hive_group_of(hive, p);

	if (!g)
		return -EINVAL;
	return kslot_hive_slot_in(hive, g, g->elements, g->skipfield,
				  g->capacity, p, gp, sp, ip);
}

/*
 * Find the slot @p names.  Return 0 with *@gp, *@sp (the group's
 * skipfield) and *@ip set, -EINVAL if @p is not a slot of @hive, or
 * -ENOENT if its group is not in use or the slot was never handed out.
 *
 * Most slots of a big hive are in groups of max_capacity, whose address
 * (they are aligned to their size) and layout follow from @p and the
 * hive alone.  So the group is taken to start at @p rounded down to that
 * size, and is checked there: its own folio (not the one of @p's page,
 * which leads to it only through the head page) and its header.  The
 * slot's skipfield nodes are at a fixed offset from it, so their loads,
 * which miss the cache on a random erase, need not wait for those
 * checks.  If it is not a group of max_capacity of @hive, whatever @p
 * is takes the general way.
 */
static __always_inline int
kslot_hive_slot_of(const struct kslot_hive *hive, const void *p,
		   struct kslot_hive_group **gp, u16 **sp, u32 *ip)
{
	struct kslot_hive_group *g;

	g = (void *)((unsigned long)p & hive->max_group_mask);
	if (unlikely(!g || kslot_hive_group_of(hive, g) != g ||
		     g->capacity != hive->max_capacity))
		return kslot_hive_slot_any(hive, p, gp, sp, ip);
	return kslot_hive_slot_in(hive, g, (void *)g + hive->max_group_elems,
				  (void *)g + hive->max_group_skip,
				  hive->max_capacity, p, gp, sp, ip);
}

static void kslot_hive_set_live(struct kslot_hive_group *g, u32 i)
{
	g->live[i / KSLOT_HIVE_LIVE_BITS] |= BIT_ULL(i % KSLOT_HIVE_LIVE_BITS);
}

static void kslot_hive_clear_live(struct kslot_hive_group *g, u32 i)
{
	g->live[i / KSLOT_HIVE_LIVE_BITS] &= ~BIT_ULL(i % KSLOT_HIVE_LIVE_BITS);
}

/* Erasure list: the groups with an erased slot (count < last). */
static void kslot_hive_erasures_add(struct kslot_hive *hive,
				    struct kslot_hive_group *g)
{
	g->erase_prev = NULL;
	g->erase_next = hive->erasures;
	if (hive->erasures)
		hive->erasures->erase_prev = g;
	hive->erasures = g;
}

static void kslot_hive_erasures_del(struct kslot_hive *hive,
				    struct kslot_hive_group *g)
{
	if (g->erase_prev)
		g->erase_prev->erase_next = g->erase_next;
	else
		hive->erasures = g->erase_next;
	if (g->erase_next)
		g->erase_next->erase_prev = g->erase_prev;
	g->erase_next = NULL;
	g->erase_prev = NULL;
}

/*
 * Mark live slot @i of @g erased.  The nodes left and right of @i are the
 * end of a skipblock before it and the start of one after it when
 * nonzero, so @i's skipblock runs from i - left to i + right: a new
 * one-node run, one grown by a node, or two joined through @i.  Both ends
 * get its length, and so does node @i (a middle node only has to be
 * nonzero).  One sequence for the four cases: which case it is comes
 * from two loads that often miss the cache, and a branch on them, when
 * mispredicted, would hold back the next erase's loads until they land.
 */
static void kslot_hive_skip_erase(u16 *s, u32 i)
{
	u32 left = s[(int)i - 1], right = s[i + 1];
	u16 len = left + right + 1;

	s[i - left] = len;
	s[i + right] = len;
	s[i] = len;
}

/* Slots of live word @w of @g below last. */
static u64 kslot_hive_used_mask(const struct kslot_hive_group *g, u32 w)
{
	u32 first = w * KSLOT_HIVE_LIVE_BITS;

	if (g->last - first >= KSLOT_HIVE_LIVE_BITS)
		return ~0ULL;
	return BIT_ULL(g->last - first) - 1;
}

/*
 * The start of erased slot @i's skipblock: @i itself, found from the end
 * node's length, or for a middle node (whose value means nothing) by
 * walking left.
 */
static u32 kslot_hive_run_start(const struct kslot_hive_group *g, u32 i)
{
	const u16 *s = g->skipfield;
	u32 start;

	if (!s[(int)i - 1])
		return i;
	if (!s[i + 1])
		return i + 1 - s[i];
	for (start = i - 1; s[(int)start - 1]; start--)
		;
	return start;
}

/*
 * Mark erased slot @i of @g live, given its skipblock's start: what is
 * left of the skipblock is up to two runs, start..i-1 and i+1..end, each
 * with its length at both ends (the stores for an empty side land on
 * node @i or on a zero node beside it, and write 0).
 */
static void kslot_hive_reuse(struct kslot_hive *hive,
			     struct kslot_hive_group *g, u32 i, u32 start)
{
	u32 w = i / KSLOT_HIVE_LIVE_BITS, end;
	u16 *s = g->skipfield;

	end = start + s[start] - 1;
	s[start] = i - start;
	s[(int)i - 1] = i - start;
	s[i + 1] = end - i;
	s[end] = end - i;
	s[i] = 0;

	kslot_hive_set_live(g, i);
	if (!(~g->live[w] & kslot_hive_used_mask(g, w)))
		g->erased[w / KSLOT_HIVE_LIVE_BITS] &=
			~BIT_ULL(w % KSLOT_HIVE_LIVE_BITS);
	if (++g->count == g->last)
		kslot_hive_erasures_del(hive, g);
	hive->count++;
}

/*
 * The lowest erased slot of @g (which has one): the lowest live word with
 * an erased slot holds it, and it starts a skipblock.
 */
static u32 kslot_hive_first_erased(struct kslot_hive_group *g)
{
	const u64 *ew = g->erased;
	u32 k = 0, w;

	while (!ew[k])
		k++;
	w = k * KSLOT_HIVE_LIVE_BITS + __ffs64(ew[k]);
	return w * KSLOT_HIVE_LIVE_BITS + __ffs64(~g->live[w]);
}

/* Make @g the back group, empty; its skipfield is cleared here. */
static void kslot_hive_activate(struct kslot_hive *hive,
				struct kslot_hive_group *g)
{
	memset(g->erased, 0, sizeof(g->erased));
	memset(g->live, 0, (void *)(g->skipfield + g->capacity + 1) -
	       (void *)g->live);
	g->last = 0;
	g->count = 0;
	g->active = true;
	g->next = NULL;
	g->prev = hive->back;
	if (hive->back)
		hive->back->next = g;
	else
		hive->first = g;
	hive->back = g;
	hive->capacity += g->capacity;
	hive->nr_groups++;
}

static void kslot_hive_unused_push(struct kslot_hive *hive,
				   struct kslot_hive_group *g)
{
	g->next = hive->unused;
	g->prev = NULL;
	hive->unused = g;
	hive->nr_unused++;
	hive->unused_capacity += g->capacity;
}

static struct kslot_hive_group *kslot_hive_unused_pop(struct kslot_hive *hive)
{
	struct kslot_hive_group *g = hive->unused;

	if (g) {
		hive->unused = g->next;
		hive->nr_unused--;
		hive->unused_capacity -= g->capacity;
	}
	return g;
}

static void kslot_hive_drop(struct kslot_hive *hive,
			    struct kslot_hive_group *g)
{
	hive->bytes -= kslot_hive_group_bytes(g);
	kslot_hive_group_free(g);
}

/*
 * Spare groups: emptied beyond max_unused with KSLOT_HIVE_SHRINK.  The
 * shrinker takes them beside the hive's writers, so they and their
 * counters are under the spare lock, and not in the writers' counters
 * (bytes, unused_capacity).
 */
/* Count @g in (@dir 1) or out of (-1) the spare counters, under the lock. */
static void kslot_hive_spare_count(struct kslot_hive *hive,
				   struct kslot_hive_group *g, int dir)
{
	WRITE_ONCE(hive->nr_spare, hive->nr_spare + dir);
	WRITE_ONCE(hive->spare_bytes,
		   hive->spare_bytes + dir * (long)kslot_hive_group_bytes(g));
	WRITE_ONCE(hive->spare_capacity,
		   hive->spare_capacity + dir * (long)g->capacity);
}

static void kslot_hive_spare_push(struct kslot_hive *hive,
				  struct kslot_hive_group *g)
{
	unsigned long flags;

	hive->bytes -= kslot_hive_group_bytes(g);
	raw_spin_lock_irqsave(&hive->spare_lock, flags);
	g->next = hive->spare;
	g->prev = NULL;
	WRITE_ONCE(hive->spare, g);
	kslot_hive_spare_count(hive, g, 1);
	/* Under the lock, so a racing take never makes the count negative. */
	atomic_long_inc(&kslot_hive_nr_spare);
	raw_spin_unlock_irqrestore(&hive->spare_lock, flags);
}

/* Take a spare group off the list (the caller reuses or frees it). */
static struct kslot_hive_group *kslot_hive_spare_take(struct kslot_hive *hive)
{
	struct kslot_hive_group *g;
	unsigned long flags;

	if (!READ_ONCE(hive->spare))
		return NULL;
	raw_spin_lock_irqsave(&hive->spare_lock, flags);
	g = hive->spare;
	if (g) {
		WRITE_ONCE(hive->spare, g->next);
		kslot_hive_spare_count(hive, g, -1);
		atomic_long_dec(&kslot_hive_nr_spare);
	}
	raw_spin_unlock_irqrestore(&hive->spare_lock, flags);
	return g;
}

/* Free up to @nr spare groups; return how many were freed. */
static unsigned long kslot_hive_spare_free(struct kslot_hive *hive,
					   unsigned long nr)
{
	struct kslot_hive_group *g;
	unsigned long freed = 0;

	while (freed < nr && (g = kslot_hive_spare_take(hive))) {
		kslot_hive_group_free(g);
		freed++;
	}
	return freed;
}

/* Take an emptied group out of iteration; keep it or free it. */
static void kslot_hive_retire(struct kslot_hive *hive,
			      struct kslot_hive_group *g)
{
	/* In the erasure list if it had erased slots before its last erase. */
	if (hive->erasures == g || g->erase_prev)
		kslot_hive_erasures_del(hive, g);
	if (g->prev)
		g->prev->next = g->next;
	else
		hive->first = g->next;
	if (g->next)
		g->next->prev = g->prev;
	else
		hive->back = g->prev;
	g->active = false;
	hive->capacity -= g->capacity;
	hive->nr_groups--;
	if (hive->nr_unused < hive->max_unused)
		kslot_hive_unused_push(hive, g);
	else if (kslot_hive_shrinking(hive))
		kslot_hive_spare_push(hive, g);
	else
		kslot_hive_drop(hive, g);
}

static void *kslot_hive_elem(const struct kslot_hive *hive,
			     struct kslot_hive_group *g, u32 i)
{
	return g->elements + (size_t)i * hive->elem_size;
}

/*
 * The back group is full (or there is none): a group kept for reuse, a
 * spare or a new one becomes the back.  Out of line, so that an insert's
 * own path stays short.
 */
static noinline struct kslot_hive_group *
kslot_hive_new_back(struct kslot_hive *hive, gfp_t gfp)
{
	struct kslot_hive_group *g;

	g = kslot_hive_unused_pop(hive);
	if (!g) {
		g = kslot_hive_spare_take(hive);
		if (g)
			hive->bytes += kslot_hive_group_bytes(g);
	}
	if (!g) {
		/* Ask for as much as the hive holds: its capacity doubles. */
		g = kslot_hive_group_alloc(hive, min_t(size_t, hive->capacity,
						       U32_MAX), gfp);
		if (!g)
			return NULL;
		hive->bytes += kslot_hive_group_bytes(g);
	}
	kslot_hive_activate(hive, g);
	return g;
}

/**
 * kslot_hive_insert() - Add an element.
 * @hive: The hive.
 * @gfp: Allocation flags for a new group.  With __GFP_ZERO the element is
 *	zeroed.
 *
 * Reuses an erased slot if there is one (the lowest erased slot of the
 * first group with erasures), else the next never-used slot of the back
 * group, else a group kept for reuse or a new one.
 *
 * Context: Any context @gfp is valid in.  Caller holds the hive
 * exclusively.
 * Return: The new element's memory, or ERR_PTR(-ENOMEM) if a new group
 * was needed and could not be allocated (the hive is then unchanged).
 */
void *kslot_hive_insert(struct kslot_hive *hive, gfp_t gfp)
{
	struct kslot_hive_group *g = hive->erasures;
	void *elem;
	u32 i;

	if (g) {
		i = kslot_hive_first_erased(g);
		kslot_hive_reuse(hive, g, i, i);
	} else {
		g = hive->back;
		if (unlikely(!g || g->last == g->capacity)) {
			g = kslot_hive_new_back(hive, gfp);
			if (!g)
				return ERR_PTR(-ENOMEM);
		}
		i = g->last++;
		kslot_hive_set_live(g, i);
		g->count++;
		hive->count++;
	}
	elem = kslot_hive_elem(hive, g, i);
	if (gfp & __GFP_ZERO)
		memset(elem, 0, hive->elem_size);
	return elem;
}
EXPORT_SYMBOL_GPL(kslot_hive_insert);

/**
 * kslot_hive_insert_at() - Bring a chosen erased slot back into use.
 * @hive: The hive.
 * @slot: The address of an erased element, e.g. to undo its erase.
 *
 * The slot is live again at the same address, with undefined contents.
 * Unlike kslot_hive_insert(), the slot may lie in the middle of a run of
 * erased slots; finding that run's start costs O(its length).
 *
 * Context: Any context but NMI.  Caller holds the hive exclusively.
 * Return: @slot, or ERR_PTR(-EINVAL) if @slot is not an element slot of
 * @hive (a slot of a group that was emptied and freed included: see the
 * top of kslot_hive.h), ERR_PTR(-EBUSY) if it is live, or
 * ERR_PTR(-ENOENT) if its group was emptied and kept for reuse (the slot
 * no longer exists) or the slot was never used.
 */
void *kslot_hive_insert_at(struct kslot_hive *hive, void *slot)
{
	struct kslot_hive_group *g;
	u16 *s;
	u32 i;
	int ret;

	ret = kslot_hive_slot_of(hive, slot, &g, &s, &i);
	if (ret)
		return ERR_PTR(ret);
	if (!s[i])
		return ERR_PTR(-EBUSY);
	kslot_hive_reuse(hive, g, i, kslot_hive_run_start(g, i));
	return slot;
}
EXPORT_SYMBOL_GPL(kslot_hive_insert_at);

static void kslot_hive_erase_at(struct kslot_hive *hive,
				struct kslot_hive_group *g, u16 *s, u32 i)
{
	u32 w = i / KSLOT_HIVE_LIVE_BITS;

	hive->count--;
	if (!--g->count) {
		kslot_hive_retire(hive, g);
		return;
	}
	kslot_hive_clear_live(g, i);
	kslot_hive_skip_erase(s, i);
	g->erased[w / KSLOT_HIVE_LIVE_BITS] |=
		BIT_ULL(w % KSLOT_HIVE_LIVE_BITS);
	if (g->count + 1 == g->last)
		kslot_hive_erasures_add(hive, g);
}

/**
 * kslot_hive_erase() - Remove an element.
 * @hive: The hive.
 * @elem: A live element of @hive.
 *
 * The slot joins its group's skipfield; a group left empty leaves the
 * iteration order and is kept for reuse (up to max_unused) or freed.
 * The element's memory must not be used afterwards.
 *
 * Context: Any context but NMI.  Caller holds the hive exclusively.
 * Return: 0, -EINVAL if @elem is not an element slot of @hive, or -ENOENT
 * if it is not live (erased already, or never handed out).  On error the
 * hive is unchanged.
 */
int kslot_hive_erase(struct kslot_hive *hive, void *elem)
{
	struct kslot_hive_group *g;
	u16 *s;
	u32 i;
	int ret;

	ret = kslot_hive_slot_of(hive, elem, &g, &s, &i);
	if (ret)
		return ret;
	if (s[i])
		return -ENOENT;
	kslot_hive_erase_at(hive, g, s, i);
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_hive_erase);

/**
 * kslot_hive_erase_cursor() - Remove the element under a cursor, step on.
 * @hive: The hive.
 * @cur: A cursor on a live element; moved to the next live element.
 *
 * Context: Any context but NMI.  Caller holds the hive exclusively.
 * Return: The next element in iteration order, or NULL if the erased
 * element was the last (@cur is then not on an element).
 */
void *kslot_hive_erase_cursor(struct kslot_hive *hive,
			      struct kslot_hive_cursor *cur)
{
	struct kslot_hive_cursor next = *cur;
	void *elem = kslot_hive_next(hive, &next);

	/* The next element's slot and group survive this erase. */
	kslot_hive_erase_at(hive, cur->group, cur->group->skipfield,
			    cur->index);
	if (elem)
		*cur = next;
	else
		cur->group = NULL;
	return elem;
}
EXPORT_SYMBOL_GPL(kslot_hive_erase_cursor);

/**
 * kslot_hive_cursor_at() - Put a cursor on an element given by pointer.
 * @hive: The hive.
 * @elem: A live element of @hive.
 * @cur: Set to @elem's position.
 *
 * O(1): the element's page leads to its group.
 *
 * Context: Any context.  Caller excludes writers.
 * Return: 0, -EINVAL if @elem is not an element slot of @hive, or -ENOENT
 * if it is not live.
 */
int kslot_hive_cursor_at(const struct kslot_hive *hive, const void *elem,
			 struct kslot_hive_cursor *cur)
{
	struct kslot_hive_group *g;
	u16 *s;
	u32 i;
	int ret;

	ret = kslot_hive_slot_of(hive, elem, &g, &s, &i);
	if (ret)
		return ret;
	if (s[i])
		return -ENOENT;
	cur->group = g;
	cur->index = i;
	return 0;
}
EXPORT_SYMBOL_GPL(kslot_hive_cursor_at);

/**
 * kslot_hive_reserve() - Make room for a number of elements.
 * @hive: The hive.
 * @n: Elements the hive should hold without allocating.
 * @gfp: Allocation flags.
 *
 * Allocates groups onto the unused list until the slots held (in active
 * and unused groups) reach @n.  They stay on the unused list, whatever
 * max_unused says, until inserts take them or kslot_hive_trim() frees
 * them; once used, a group that empties again obeys max_unused.
 *
 * Context: Any context @gfp is valid in.  Caller holds the hive
 * exclusively.
 * Return: 0, or -ENOMEM if a group could not be allocated (then nothing
 * was added).
 */
int kslot_hive_reserve(struct kslot_hive *hive, size_t n, gfp_t gfp)
{
	struct kslot_hive_group *list = NULL, *g;
	size_t held = hive->capacity + hive->unused_capacity;
	size_t bytes = 0, cap = 0;
	unsigned int nr = 0;

	while (held + cap < n) {
		g = kslot_hive_group_alloc(hive, min_t(size_t, n - held - cap,
						       U32_MAX), gfp);
		if (!g)
			goto fail;
		g->next = list;
		list = g;
		cap += g->capacity;
		bytes += kslot_hive_group_bytes(g);
		nr++;
	}
	while (list) {
		g = list;
		list = g->next;
		kslot_hive_unused_push(hive, g);
	}
	hive->bytes += bytes;
	return 0;
fail:
	while (list) {
		g = list;
		list = g->next;
		kslot_hive_group_free(g);
	}
	return -ENOMEM;
}
EXPORT_SYMBOL_GPL(kslot_hive_reserve);

/**
 * kslot_hive_trim() - Free the groups kept for reuse.
 * @hive: The hive.
 *
 * Frees the unused groups, reserved ones included, and the spare ones.
 *
 * Context: Any context but NMI.  Caller holds the hive exclusively.
 */
void kslot_hive_trim(struct kslot_hive *hive)
{
	struct kslot_hive_group *g;

	while ((g = kslot_hive_unused_pop(hive)))
		kslot_hive_drop(hive, g);
	kslot_hive_spare_free(hive, ULONG_MAX);
}
EXPORT_SYMBOL_GPL(kslot_hive_trim);

/**
 * kslot_hive_clear() - Erase every element.
 * @hive: The hive.
 *
 * The groups are kept for reuse up to max_unused; the rest are freed.
 *
 * Context: Any context but NMI.  Caller holds the hive exclusively.
 */
void kslot_hive_clear(struct kslot_hive *hive)
{
	while (hive->first) {
		hive->count -= hive->first->count;
		hive->first->count = 0;
		kslot_hive_retire(hive, hive->first);
	}
}
EXPORT_SYMBOL_GPL(kslot_hive_clear);

/**
 * kslot_hive_destroy() - Free all of a hive's memory.
 * @hive: The hive.
 * @fn: If not NULL, called for every live element first, in order.
 * @data: Passed to @fn.
 *
 * The hive is left empty, with its parameters, and may be used again
 * (without the shrinker: see %KSLOT_HIVE_SHRINK).
 *
 * Context: Any context but NMI (and what @fn needs); process context for
 * a hive made with %KSLOT_HIVE_SHRINK.  Caller holds the hive exclusively.
 */
void kslot_hive_destroy(struct kslot_hive *hive,
			void (*fn)(void *elem, void *data), void *data)
{
	struct kslot_hive_group *g;
	void *elem;

	if (fn) {
		kslot_hive_for_each(hive, elem)
			fn(elem, data);
	}
	/* Out of the shrinker's list first: it may be freeing spares now. */
	kslot_hive_shrink_del(hive);
	while ((g = hive->first)) {
		hive->first = g->next;
		kslot_hive_drop(hive, g);
	}
	kslot_hive_trim(hive);
	hive->back = NULL;
	hive->erasures = NULL;
	hive->count = 0;
	hive->capacity = 0;
	hive->nr_groups = 0;
}
EXPORT_SYMBOL_GPL(kslot_hive_destroy);

/**
 * kslot_hive_stats() - Read a hive's counters.
 * @hive: The hive.
 * @st: Filled with the counters.
 *
 * Context: Any context.  Caller excludes writers.
 */
void kslot_hive_stats(const struct kslot_hive *hive,
		      struct kslot_hive_stats *st)
{
	st->count = hive->count;
	st->groups = hive->nr_groups;
	st->unused_groups = hive->nr_unused;
	st->elem_size = hive->elem_size;
	/* The shrinker may be freeing spares: each counter is a snapshot. */
	st->spare_groups = READ_ONCE(hive->nr_spare);
	st->bytes = hive->bytes + READ_ONCE(hive->spare_bytes);
	st->capacity = hive->capacity + hive->unused_capacity +
		       READ_ONCE(hive->spare_capacity);
}
EXPORT_SYMBOL_GPL(kslot_hive_stats);

static unsigned long kslot_hive_shrink_count(struct shrinker *s,
					     struct shrink_control *sc)
{
	return atomic_long_read(&kslot_hive_nr_spare) ?: SHRINK_EMPTY;
}

static unsigned long kslot_hive_shrink_scan(struct shrinker *s,
					    struct shrink_control *sc)
{
	struct kslot_hive *hive;
	unsigned long freed = 0;

	mutex_lock(&kslot_hive_shrink_mutex);
	list_for_each_entry(hive, &kslot_hive_shrink_list, shrink_node) {
		if (freed >= sc->nr_to_scan)
			break;
		freed += kslot_hive_spare_free(hive, sc->nr_to_scan - freed);
	}
	mutex_unlock(&kslot_hive_shrink_mutex);
	return freed ?: SHRINK_STOP;
}

int kslot_hive_shrinker_init(void)
{
	kslot_hive_shrinker = kslot_shrinker_create("kslot-hive", "",
						    kslot_hive_shrink_count,
						    kslot_hive_shrink_scan, NULL);
	return kslot_hive_shrinker ? 0 : -ENOMEM;
}

void kslot_hive_shrinker_exit(void)
{
	kslot_shrinker_destroy(kslot_hive_shrinker);
	kslot_hive_shrinker = NULL;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kslot_hive_test_shrinker() - The hives' shrinker (KUnit only).
 *
 * For the suite to call its count and scan callbacks.
 *
 * Context: Any context.
 * Return: The registered shrinker, or NULL if it could not be made.
 */
struct shrinker *kslot_hive_test_shrinker(void)
{
	return kslot_hive_shrinker;
}
EXPORT_SYMBOL_IF_KUNIT(kslot_hive_test_shrinker);
#endif
