//! Placement rules (density, scale, yaw, alignment to the ground, offset, slope, layers) and the
//! deterministic placers built on them: `scatter` over an area and the instance brush's dab.
//!
//! Randomness is a counter-based hash of (seed, candidate index) (SplitMix64's finaliser), so a candidate's
//! numbers do not depend on the others: the same seed and terrain give the same transforms on every
//! machine, architecture and thread count (rotations in `rotation.rs`), and candidates are tested in
//! parallel.

use super::rotation;
use super::{Area, Placement};
use crate::hash::mix;
use crate::placement_rules::{PlacementRules, PlacementRulesError};
use crate::samples::{self, Samples};
use glam::Vec3;
use rayon::prelude::*;

/// How a mesh is placed by `scatter` and the instance brush.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// Instances per square terrain unit that painting fills an area up to.
    pub density: f64,
    /// A random turn about the up axis.
    pub random_yaw: bool,
    /// Added to the height above the ground, times the instance's scale: the mesh's lowest point below its
    /// origin, so a mesh centred on its origin stands on the ground instead of sinking into it.
    pub lift: f32,
    /// Scale, slopes, lean and height above the ground (shared with detail).
    pub placement: PlacementRules,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            density: 0.01,
            random_yaw: true,
            lift: 0.0,
            placement: PlacementRules::default(),
        }
    }
}

/// A rule out of its range.
#[derive(Debug, Clone, PartialEq)]
pub enum RulesError {
    Density(f64),
    Placement(PlacementRulesError),
}

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Density(v) => write!(f, "density must be in [0, 100] per square unit, got {v}"),
            Self::Placement(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RulesError {}

/// The largest height above the ground (terrain units).
pub const MAX_OFFSET: f32 = 1e5;

impl Rules {
    pub fn check(&self) -> Result<(), RulesError> {
        if !(0.0..=100.0).contains(&self.density) {
            return Err(RulesError::Density(self.density));
        }
        self.placement
            .check(MAX_OFFSET)
            .map_err(RulesError::Placement)
    }

    /// The placement at terrain (x, z) with the random numbers `r` (in [0, 1)), or None if the ground there
    /// breaks a rule (a hole, outside a finite grid, a slope out of range).
    fn place<S: Samples + ?Sized>(&self, s: &S, x: f64, z: f64, r: [f64; 2]) -> Option<Placement> {
        if !samples::is_inside(s, x, z) {
            return None;
        }
        // NaN over a hole.
        let h = samples::height_at(s, x, z);
        if !h.is_finite() {
            return None;
        }
        let n = Vec3::from(samples::normal_at(s, x, z));
        let slope = rotation::slope_degrees(n);
        let p = &self.placement;
        if !p.allows_slope(slope) {
            return None;
        }
        let yaw = self
            .random_yaw
            .then_some((r[0] * std::f64::consts::TAU) as f32);
        let rot = rotation::placement(n, p.align, yaw);
        let s = p.scale_at(r[1] as f32);
        Some(Placement {
            pos: [x, f64::from(h + p.offset + self.lift * s), z],
            rot,
            scale: [s; 3],
        })
    }
}

/// The `k`-th number in [0, 1) of candidate `i` of stream `seed`.
pub(crate) fn unit(seed: u64, i: u64, k: u64) -> f64 {
    let h = mix(mix(seed ^ 0x9e37_79b9_7f4a_7c15).wrapping_add(i.wrapping_mul(8).wrapping_add(k)));
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// How many candidates `scatter` tries per wanted instance before it gives up on ground the rules refuse.
const TRIES: u64 = 4;

/// Up to `count` placements at uniformly random points of `area` that pass the rules and `layers(x, z)`
/// (the share, in [0, 1], of the ground there that is a layer the mesh may stand on; a candidate passes
/// with that probability). Candidate i's numbers depend only on (seed, i): deterministic, and candidates
/// are tested in parallel, in order.
pub fn scatter<S: Samples + ?Sized>(
    rules: &Rules,
    s: &S,
    area: Area,
    count: usize,
    seed: u64,
    layers: &(dyn Fn(f64, f64) -> f32 + Sync),
) -> Vec<Placement> {
    let mut out = Vec::with_capacity(count);
    let total = (count as u64).saturating_mul(TRIES);
    let mut next = 0u64;
    let size = [area.max[0] - area.min[0], area.max[1] - area.min[1]];
    while out.len() < count && next < total {
        let batch = ((count - out.len()) as u64).max(1024).min(total - next);
        let found: Vec<Option<Placement>> = (next..next + batch)
            .into_par_iter()
            .map(|i| {
                let x = area.min[0] + size[0] * unit(seed, i, 0);
                let z = area.min[1] + size[1] * unit(seed, i, 1);
                if !area.contains(x, z) {
                    return None;
                }
                let keep = f64::from(layers(x, z));
                if keep < 1.0 && unit(seed, i, 2) >= keep {
                    return None;
                }
                rules.place(s, x, z, [unit(seed, i, 3), unit(seed, i, 4)])
            })
            .collect();
        out.extend(found.into_iter().flatten().take(count - out.len()));
        next += batch;
    }
    out
}

/// An instance brush dab that adds: fills the circle toward `rules.density`. `existing` instances of the
/// mesh are already inside; `amount` in [0, 1] is the share of the missing ones added by this dab (the
/// brush's strength × the dab's time). A point is kept with probability `weight(x, z)` (the brush's
/// falloff and image there times the layer rule; nothing beyond the radius).
#[allow(clippy::too_many_arguments)]
pub fn dab_add<S: Samples + ?Sized>(
    rules: &Rules,
    s: &S,
    center: [f64; 2],
    radius: f64,
    existing: usize,
    amount: f64,
    seed: u64,
    weight: &(dyn Fn(f64, f64) -> f32 + Sync),
) -> Vec<Placement> {
    let target = rules.density * std::f64::consts::PI * radius * radius;
    let missing = (target - existing as f64).max(0.0) * amount.clamp(0.0, 1.0);
    // A fractional instance is placed with that probability, so slow strokes still add.
    let whole = missing.floor();
    let n = whole as usize + usize::from(unit(seed, u64::MAX, 0) < missing - whole);
    let area = Area {
        min: [center[0] - radius, center[1] - radius],
        max: [center[0] + radius, center[1] + radius],
    };
    let inside = |x: f64, z: f64| {
        if (x - center[0]).hypot(z - center[1]) >= radius {
            0.0
        } else {
            weight(x, z)
        }
    };
    scatter(rules, s, area, n, seed, &inside)
}

/// Whether a dab that removes takes the instance at (x, z), where the brush's weight is `weight`: with
/// probability `amount × weight`, drawn from the instance's position and the dab's seed.
pub fn dab_removes(amount: f64, seed: u64, weight: f32, x: f64, z: f64) -> bool {
    let p = amount.clamp(0.0, 1.0) * f64::from(weight);
    let i = x.to_bits() ^ z.to_bits().rotate_left(32);
    unit(seed, i, 0) < p
}
