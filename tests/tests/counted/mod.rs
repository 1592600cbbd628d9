//! The counting allocator of the bounded-memory tests (`bounded_tools.rs`,
//! `bounded_texts.rs`, `hostile_schemas.rs`): every byte allocated while a
//! closure runs is counted, freed or not, an upper bound of its peak. Each
//! test binary that includes this module counts with it (one global
//! allocator a binary), and holds one test function: the counter is global.

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The tools' memory rule: 256 times the input, at least 512 MiB.
#[allow(dead_code)]
pub fn bound(input: usize) -> usize {
    (256 * input).max(512 << 20)
}

/// Bytes allocated while `f` runs, and its result.
pub fn allocated_by<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let region = Region::new(GLOBAL);
    let t = f();
    let s = region.change();
    (s.bytes_allocated + s.bytes_reallocated.max(0) as usize, t)
}
