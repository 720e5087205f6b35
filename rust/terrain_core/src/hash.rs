//! The counter-based hashing every deterministic placer and simulation draws its numbers from (scatter,
//! detail, erosion): a number is a function of (seed, index), never of a generator's state, so results
//! do not depend on order, threads or machine.

/// SplitMix64's finaliser: a well-mixed 64-bit value of `x`.
#[inline]
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
