//! Cache hints for the walks over a document.
//!
//! The owned document is a tree of separate allocations: a hash's entries,
//! an array's elements, a boxed record each lie wherever the allocator put
//! them, far from their holder. A walk that meets each one cold waits for
//! memory on every container (issue 51: one load, the first entry of each
//! hash, was a tenth of encoding the corpus in each of the two walks).
//!
//! So a walk over a list asks for what lies ahead of it:
//! [`crate::shape::warmed`] hands out a list's elements in order, and as it hands out element `i`, it asks
//! for the memory element `i + WARM_AHEAD` holds out of line
//! ([`crate::shape::Shape::warm`], generated per type) and for the line
//! of element `i + 2 * WARM_AHEAD` itself, whose tag that will read. By the
//! time the walk reaches a child container, its first lines are loaded.
//!
//! A hint is not a read: [`warm`] never faults and changes nothing the
//! program can observe, so a stale or dangling pointer is harmless. It is
//! the one place this crate allows `unsafe` (the intrinsic takes a raw
//! pointer); its lint is `deny`, not `forbid`, for that alone.
//!
//! Measured (`byml_profile encode 60 corpus`, alternated 4 times): 2.00 s
//! without, 1.85 s with. A touch (a real load of the element ahead) was
//! tried in an earlier stop for the to-YAML walk and was slower: the load
//! holds up the walk when it misses, where a hint does not.

/// How many elements ahead of the one handed out [`warmed`] asks for
/// the memory of.
pub const WARM_AHEAD: usize = 4;

/// The most cache lines [`warm_slice`] asks for.
pub const WARM_LINES: usize = 4;

/// Asks the processor to start loading the cache line at `p`. A hint only:
/// it reads nothing and never faults (a dangling or null pointer is fine),
/// and it is nothing where the target has no such instruction.
#[inline(always)]
pub fn warm<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: a prefetch has no effect the program can observe: it does not
    // dereference the pointer and cannot fault, whatever the pointer holds.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// [`warm`] for the first elements of a slice, up to [`WARM_LINES`] cache
/// lines of them: a walk over a short list then meets none of its lines
/// cold, where the processor's own look-ahead needs a few misses in a row
/// before it starts.
#[inline(always)]
pub fn warm_slice<T>(items: &[T]) {
    let bytes = std::mem::size_of_val(items).min(WARM_LINES * 64);
    let p = items.as_ptr().cast::<u8>();
    let mut at = 0;
    while at < bytes {
        warm(p.wrapping_add(at));
        at += 64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_at_any_address_is_harmless() {
        warm(std::ptr::null::<u8>());
        warm(usize::MAX as *const u64);
        let empty: Vec<u64> = Vec::new();
        warm_slice(&empty);
        warm_slice(&[1u8; 1000]);
    }
}
