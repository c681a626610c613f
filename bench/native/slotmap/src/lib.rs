// SPDX-License-Identifier: GPL-2.0
//! Rust's `slotmap` crate as an anchor of kslot's native benchmark.
//!
//! kslot_native_bench (C) calls these `sn_*` functions (declared in
//! native_bench.h) for `SlotMap`, `HopSlotMap` and `DenseSlotMap`, chosen
//! by `kind` (0, 1, 2).  The driver passes the same sizes, the same
//! permutation for random order and the same repetition counts that it
//! gives kslot, so both sides run the same operations on the same key
//! order.  Each `*_time` function runs one whole timed loop here and
//! returns its nanoseconds (CLOCK_MONOTONIC, as the C side's nb_now()); a
//! failure returns 0, which the driver reports as a failed row.
#![allow(deprecated)] // HopSlotMap is deprecated upstream but still shipped

use slotmap::{DefaultKey, DenseSlotMap, HopSlotMap, Key, SlotMap};
use std::os::raw::c_char;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

static SINK: AtomicU64 = AtomicU64::new(0);

/// The value stored for entry i, as nb_val() on the C side.
fn val(i: u32) -> u64 {
    (u64::from(i) + 1) << 3
}

fn sink(v: u64) {
    SINK.fetch_add(v, Ordering::Relaxed);
}

fn ns(t: Instant) -> u64 {
    (t.elapsed().as_nanos() as u64).max(1)
}

/// The operations the benchmark needs, common to the three maps.
trait Table {
    fn make() -> Self;
    fn ins(&mut self, v: u64) -> DefaultKey;
    fn look(&self, k: DefaultKey) -> Option<&u64>;
    fn del(&mut self, k: DefaultKey) -> Option<u64>;
    fn sum(&self) -> u64;
}

macro_rules! table {
    ($t:ident) => {
        impl Table for $t<DefaultKey, u64> {
            fn make() -> Self {
                $t::new()
            }
            #[inline(always)]
            fn ins(&mut self, v: u64) -> DefaultKey {
                self.insert(v)
            }
            #[inline(always)]
            fn look(&self, k: DefaultKey) -> Option<&u64> {
                self.get(k)
            }
            #[inline(always)]
            fn del(&mut self, k: DefaultKey) -> Option<u64> {
                self.remove(k)
            }
            fn sum(&self) -> u64 {
                self.values().fold(0u64, |s, v| s.wrapping_add(*v))
            }
        }
    };
}

table!(SlotMap);
table!(HopSlotMap);
table!(DenseSlotMap);

/// One map with its keys in insertion order and in the driver's order.
struct State<T> {
    map: Option<T>,
    keys: Vec<DefaultKey>,
    rkeys: Vec<DefaultKey>,
}

trait Ops {
    fn fill(&mut self, n: u32) -> u64;
    fn check(&self, n: u32) -> bool;
    fn shuffle(&mut self, perm: &[u32]);
    fn lookup(&self, rand: bool, passes: u32) -> u64;
    fn churn(&mut self) -> u64;
    fn remove(&mut self) -> u64;
    fn iter(&self, passes: u32) -> u64;
    fn free(&mut self);
}

impl<T: Table> Ops for State<T> {
    /// Drop the old map (not timed), then time a new one and n inserts.
    fn fill(&mut self, n: u32) -> u64 {
        self.map = None;
        self.keys.clear();
        self.keys.reserve(n as usize);
        let t = Instant::now();
        let mut m = T::make();
        for i in 0..n {
            self.keys.push(m.ins(val(i)));
        }
        let t = ns(t);
        self.map = Some(m);
        t
    }

    fn check(&self, n: u32) -> bool {
        let m = match &self.map {
            Some(m) => m,
            None => return false,
        };
        self.keys.len() == n as usize
            && self
                .keys
                .iter()
                .enumerate()
                .all(|(i, k)| m.look(*k) == Some(&val(i as u32)))
    }

    fn shuffle(&mut self, perm: &[u32]) {
        let keys = &self.keys;
        self.rkeys.clear();
        self.rkeys.extend(perm.iter().map(|&p| keys[p as usize]));
    }

    fn lookup(&self, rand: bool, passes: u32) -> u64 {
        let m = self.map.as_ref().unwrap();
        let keys = if rand { &self.rkeys } else { &self.keys };
        let mut sum = 0u64;
        let t = Instant::now();
        for _ in 0..passes {
            for k in keys.iter() {
                sum = sum.wrapping_add(m.look(*k).copied().unwrap_or(0));
            }
        }
        let t = ns(t);
        sink(sum);
        t
    }

    /// Remove each key in the driver's order and insert again at once.
    fn churn(&mut self) -> u64 {
        let m = self.map.as_mut().unwrap();
        let mut sum = 0u64;
        let t = Instant::now();
        for k in self.rkeys.iter_mut() {
            sum = sum.wrapping_add(m.del(*k).unwrap_or(0));
            *k = m.ins(val(0));
        }
        let t = ns(t);
        sink(sum);
        t
    }

    fn remove(&mut self) -> u64 {
        let m = self.map.as_mut().unwrap();
        let mut sum = 0u64;
        let t = Instant::now();
        for k in self.rkeys.iter() {
            sum = sum.wrapping_add(m.del(*k).unwrap_or(0));
        }
        let t = ns(t);
        sink(sum);
        t
    }

    fn iter(&self, passes: u32) -> u64 {
        let m = self.map.as_ref().unwrap();
        let mut sum = 0u64;
        let t = Instant::now();
        for _ in 0..passes {
            sum = sum.wrapping_add(m.sum());
        }
        let t = ns(t);
        sink(sum);
        t
    }

    fn free(&mut self) {
        self.map = None;
        self.keys = Vec::new();
        self.rkeys = Vec::new();
    }
}

fn state<T>() -> State<T> {
    State {
        map: None,
        keys: Vec::new(),
        rkeys: Vec::new(),
    }
}

struct Bench {
    sm: State<SlotMap<DefaultKey, u64>>,
    hop: State<HopSlotMap<DefaultKey, u64>>,
    dense: State<DenseSlotMap<DefaultKey, u64>>,
}

static mut BENCH: Option<Bench> = None;

/// The driver is single-threaded where it calls into this library.
fn with<R>(kind: u32, f: impl FnOnce(&mut dyn Ops) -> R) -> Option<R> {
    // SAFETY: only the driver's main thread calls the sn_* functions.
    let b = unsafe {
        BENCH.get_or_insert_with(|| Bench {
            sm: state(),
            hop: state(),
            dense: state(),
        })
    };
    match kind {
        0 => Some(f(&mut b.sm)),
        1 => Some(f(&mut b.hop)),
        2 => Some(f(&mut b.dense)),
        _ => None,
    }
}

fn has_map(kind: u32) -> bool {
    // SAFETY: as in with().
    match unsafe { BENCH.as_ref() } {
        Some(b) => match kind {
            0 => b.sm.map.is_some(),
            1 => b.hop.map.is_some(),
            2 => b.dense.map.is_some(),
            _ => false,
        },
        None => false,
    }
}

/// Number of map kinds.
#[no_mangle]
pub extern "C" fn sn_kinds() -> u32 {
    3
}

/// The anchor name of a kind, as results.json carries it.
#[no_mangle]
pub extern "C" fn sn_name(kind: u32) -> *const c_char {
    let s: &'static [u8] = match kind {
        0 => b"slotmap::SlotMap\0",
        1 => b"slotmap::HopSlotMap\0",
        2 => b"slotmap::DenseSlotMap\0",
        _ => b"?\0",
    };
    s.as_ptr() as *const c_char
}

/// A new map of n entries, values val(0..n), timed (insertion only).
#[no_mangle]
pub extern "C" fn sn_alloc_time(kind: u32, n: u32) -> u64 {
    with(kind, |s| s.fill(n)).unwrap_or(0)
}

/// 0 if every key in insertion order finds its value, else -1.
#[no_mangle]
pub extern "C" fn sn_check(kind: u32, n: u32) -> i32 {
    if has_map(kind) && with(kind, |s| s.check(n)) == Some(true) {
        0
    } else {
        -1
    }
}

/// The driver's order: rkeys[i] = keys[perm[i]].
///
/// # Safety
/// perm points to n indices below the map's size.
#[no_mangle]
pub unsafe extern "C" fn sn_shuffle(kind: u32, perm: *const u32, n: u32) {
    let perm = std::slice::from_raw_parts(perm, n as usize);
    with(kind, |s| s.shuffle(perm));
}

/// passes lookups of every key, in insertion (rand = 0) or driver order.
#[no_mangle]
pub extern "C" fn sn_lookup_time(kind: u32, rand: i32, passes: u32) -> u64 {
    if !has_map(kind) {
        return 0;
    }
    with(kind, |s| s.lookup(rand != 0, passes)).unwrap_or(0)
}

/// remove + insert of every key in driver order (the keys are replaced).
#[no_mangle]
pub extern "C" fn sn_churn_time(kind: u32) -> u64 {
    if !has_map(kind) {
        return 0;
    }
    with(kind, |s| s.churn()).unwrap_or(0)
}

/// Removal of every key in driver order.
#[no_mangle]
pub extern "C" fn sn_remove_time(kind: u32) -> u64 {
    if !has_map(kind) {
        return 0;
    }
    with(kind, |s| s.remove()).unwrap_or(0)
}

/// passes iterations over the values.
#[no_mangle]
pub extern "C" fn sn_iter_time(kind: u32, passes: u32) -> u64 {
    if !has_map(kind) {
        return 0;
    }
    with(kind, |s| s.iter(passes)).unwrap_or(0)
}

/// Drop a kind's map and keys.
#[no_mangle]
pub extern "C" fn sn_free(kind: u32) {
    with(kind, |s| s.free());
}

#[no_mangle]
pub extern "C" fn sn_sink() -> u64 {
    SINK.load(Ordering::Relaxed)
}

/// One `SlotMap` lookup per call, for callgrind's instructions per call.
#[inline(never)]
#[no_mangle]
#[allow(improper_ctypes_definitions)]
pub extern "C" fn sn_slotmap_get_one(m: &SlotMap<DefaultKey, u64>, k: DefaultKey) -> u64 {
    m.get(k).copied().unwrap_or(0)
}

/// `SlotMap::get()` inlined into a loop over the keys in driver order
/// (callgrind: the difference per key from `sn_count_inline_base()` is
/// what the inlined lookup costs).
#[inline(never)]
#[no_mangle]
pub extern "C" fn sn_count_inline_get() {
    // SAFETY: as in with().
    if let Some(b) = unsafe { BENCH.as_ref() } {
        if let Some(m) = &b.sm.map {
            let mut sum = 0u64;
            for k in b.sm.rkeys.iter() {
                sum = sum.wrapping_add(m.get(*k).copied().unwrap_or(0));
            }
            sink(sum);
        }
    }
}

/// The loop of `sn_count_inline_get()` with the lookup taken out: each
/// key is summed as it is, through an empty asm so that the loop is not
/// vectorised.
#[inline(never)]
#[no_mangle]
pub extern "C" fn sn_count_inline_base() {
    // SAFETY: as in with().
    if let Some(b) = unsafe { BENCH.as_ref() } {
        if b.sm.map.is_some() {
            let mut sum = 0u64;
            for k in b.sm.rkeys.iter() {
                let mut v = k.data().as_ffi();
                // SAFETY: an empty asm that only claims to change v.
                unsafe { std::arch::asm!("/* {0} */", inout(reg) v) };
                sum = sum.wrapping_add(v);
            }
            sink(sum);
        }
    }
}

/// One pass of `sn_slotmap_get_one()` over the SlotMap's keys in driver
/// order.
#[no_mangle]
pub extern "C" fn sn_count_lookups() {
    // SAFETY: as in with().
    if let Some(b) = unsafe { BENCH.as_ref() } {
        if let Some(m) = &b.sm.map {
            let sum =
                b.sm.rkeys
                    .iter()
                    .fold(0u64, |s, k| s.wrapping_add(sn_slotmap_get_one(m, *k)));
            sink(sum);
        }
    }
}
