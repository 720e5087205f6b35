//! Detail (grass, flowers, pebbles): instances that are a pure function of the terrain, a few rules and a
//! seed, generated per cell around the camera instead of stored one by one.
//!
//! Placement is a jittered grid (stratified sampling): one candidate per grid square of side
//! `1/sqrt(density)`, moved to a random point of its square. A candidate's random numbers are a counter
//! hash of (seed, grid square), so a cell's detail does not depend on how the world is cut into cells, on
//! threads or on the machine; the grid spreads blades evenly (no clumps, no bare patches) and an area gets
//! its density times its size. A candidate is kept where the ground passes the rules (no hole, slope and
//! height in range) with the probability the ground's layers give (`Ground`).

use crate::clipmap_stream::SharedSamples;
use crate::hash::mix;
pub use crate::instances::Area;
use crate::instances::{block_over, cell_samples};
use crate::material::{layer_weights, Blending};
use crate::placement_rules::{PlacementRules, PlacementRulesError};
use crate::samples::{height_and_gradient_at, SampleBlock, Samples};
use crate::workers::Results;
use glam::{Mat3, Quat, Vec3};
use std::sync::Arc;

pub mod density;
pub use density::DensityMap;

/// A detail cell: (x, z) in cells of `DetailGrid::cell_size`.
pub type DetailKey = (i32, i32);

/// Floats per drawn instance: the transform's three rows (basis row, origin) and a colour (RGB: the ground's
/// tint with the colour jitter; A: a random number for the shader, e.g. the wind's phase).
pub const FLOATS: usize = 16;

/// How one detail layer grows, in terrain units.
#[derive(Clone, Debug, PartialEq)]
pub struct DetailRules {
    /// Candidates per square terrain unit.
    pub density: f64,
    /// Allowed ground height, [min, max].
    pub height: [f32; 2],
    /// How much darker an instance may be drawn, [0, 1].
    pub color_jitter: f32,
    pub seed: u64,
    /// Scale, slopes, lean and height above the ground (shared with instances).
    pub placement: PlacementRules,
}

impl Default for DetailRules {
    fn default() -> Self {
        Self {
            density: 1.0,
            height: [-1e9, 1e9],
            color_jitter: 0.2,
            seed: 0,
            placement: PlacementRules {
                scale: [0.8, 1.2],
                slope: [0.0, 45.0],
                align: 0.5,
                offset: 0.0,
                ..PlacementRules::default()
            },
        }
    }
}

/// A rule out of its range.
#[derive(Debug, Clone, PartialEq)]
pub enum DetailRulesError {
    Density(f64),
    Height([f32; 2]),
    ColorJitter(f32),
    Placement(PlacementRulesError),
}

impl std::fmt::Display for DetailRulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Density(v) => write!(
                f,
                "density must be in (0, {MAX_DENSITY}] per square unit, got {v}"
            ),
            Self::Height(v) => write!(f, "height range must be finite with min ≤ max, got {v:?}"),
            Self::ColorJitter(v) => write!(f, "color_jitter must be in [0, 1], got {v}"),
            Self::Placement(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DetailRulesError {}

/// The most candidates per square terrain unit (a blade every 6 cm).
pub const MAX_DENSITY: f64 = 256.0;

/// The largest height above the ground (terrain units).
pub const MAX_OFFSET: f32 = 1000.0;

impl DetailRules {
    pub fn check(&self) -> Result<(), DetailRulesError> {
        if !(self.density > 0.0 && self.density <= MAX_DENSITY) {
            return Err(DetailRulesError::Density(self.density));
        }
        self.placement
            .check(MAX_OFFSET)
            .map_err(DetailRulesError::Placement)?;
        let [h0, h1] = self.height;
        if !(h0.is_finite() && h1.is_finite() && h0 <= h1) {
            return Err(DetailRulesError::Height(self.height));
        }
        if !(0.0..=1.0).contains(&self.color_jitter) {
            return Err(DetailRulesError::ColorJitter(self.color_jitter));
        }
        Ok(())
    }
}

/// The jittered grid cut into cells of `per_cell`² grid squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DetailGrid {
    step: f64,
    per_cell: i64,
}

/// The most grid squares along a cell's side (a cell holds at most this squared: 16384 instances).
pub const MAX_PER_CELL: i64 = 128;

impl DetailGrid {
    /// The grid of `density` candidates per square unit, in cells of about `cell` units. None unless both
    /// are finite and positive.
    pub fn new(density: f64, cell: f64) -> Option<Self> {
        if !(density > 0.0 && density.is_finite() && cell > 0.0 && cell.is_finite()) {
            return None;
        }
        let step = 1.0 / density.sqrt();
        let per_cell = ((cell / step).round() as i64).clamp(1, MAX_PER_CELL);
        Some(Self { step, per_cell })
    }

    /// Side of a grid square.
    pub fn step(&self) -> f64 {
        self.step
    }

    pub fn cell_size(&self) -> f64 {
        self.step * self.per_cell as f64
    }

    /// Candidates in a cell.
    pub fn per_cell(&self) -> usize {
        (self.per_cell * self.per_cell) as usize
    }

    pub fn cell_area(&self, k: DetailKey) -> Area {
        let c = self.cell_size();
        Area {
            min: [f64::from(k.0) * c, f64::from(k.1) * c],
            max: [f64::from(k.0 + 1) * c, f64::from(k.1 + 1) * c],
        }
    }

    /// The cell holding terrain (x, z) (clamped to the keys' range).
    pub fn cell_of(&self, x: f64, z: f64) -> DetailKey {
        let c = self.cell_size();
        let k = |v: f64| {
            (v / c)
                .floor()
                .clamp(f64::from(i32::MIN), f64::from(i32::MAX - 1)) as i32
        };
        (k(x), k(z))
    }

    /// How many cells `cells_in(area)` yields, without walking them (an endless map's edits may span
    /// billions).
    pub fn count_in(&self, area: Area) -> u64 {
        let (x0, z0) = self.cell_of(area.min[0], area.min[1]);
        let (x1, z1) = self.cell_of(area.max[0], area.max[1]);
        let n = |a: i32, b: i32| (i64::from(b) - i64::from(a) + 1).max(0) as u64;
        n(x0, x1) * n(z0, z1)
    }

    /// Whether `cells_in(area)` yields `key`.
    pub fn overlaps(&self, area: Area, key: DetailKey) -> bool {
        let (x0, z0) = self.cell_of(area.min[0], area.min[1]);
        let (x1, z1) = self.cell_of(area.max[0], area.max[1]);
        (x0..=x1).contains(&key.0) && (z0..=z1).contains(&key.1)
    }

    /// The cells overlapping `area`, row by row.
    pub fn cells_in(&self, area: Area) -> impl Iterator<Item = DetailKey> {
        let (x0, z0) = self.cell_of(area.min[0], area.min[1]);
        let (x1, z1) = self.cell_of(area.max[0], area.max[1]);
        (z0..=z1).flat_map(move |z| (x0..=x1).map(move |x| (x, z)))
    }
}

/// What the ground's layers say of detail: the share of the ground it grows on (a candidate is kept with
/// that probability) and the tint it takes from the layers under it.
#[derive(Clone, Debug, Default)]
pub struct Ground {
    /// The terrain material's blending (None: one plain ground, every candidate kept, white).
    pub blending: Option<Blending>,
    pub grad_scale: [f32; 2],
    /// Layers detail grows on (empty: any).
    pub allowed: Vec<usize>,
    /// Each layer's tint (linear RGB); a layer without one tints white.
    pub tints: Vec<[f32; 3]>,
    /// The painted density (one byte a terrain sample), multiplied with the layers' share.
    pub density: DensityMap,
    /// The terrain's water, for the rules' water placement; None: no water.
    pub water: Option<std::sync::Arc<crate::water::WaterLevels>>,
}

impl Ground {
    /// (share of allowed layers, tint) at terrain (x, z).
    pub fn at<S: Samples + ?Sized>(&self, s: &S, x: f64, z: f64) -> (f32, [f32; 3]) {
        if crate::samples::is_cleared(s, x / s.spacing() - 0.5, z / s.spacing() - 0.5) {
            return (0.0, [1.0; 3]);
        }
        let painted = self.density.at(x / s.spacing(), z / s.spacing());
        let Some(b) = &self.blending else {
            return (painted, [1.0; 3]);
        };
        let weights = layer_weights(b, s, x, z, self.grad_scale);
        let mut keep = 0.0;
        let mut tint = [0.0f32; 3];
        let mut total = 0.0;
        for &(l, w) in &weights {
            if self.allowed.contains(&l) {
                keep += w;
            }
            let t = self.tints.get(l).copied().unwrap_or([1.0; 3]);
            for c in 0..3 {
                tint[c] += w * t[c];
            }
            total += w;
        }
        if self.allowed.is_empty() {
            keep = 1.0;
        }
        if total > 0.0 {
            tint = tint.map(|c| c / total);
        } else {
            tint = [1.0; 3];
        }
        (keep * painted, tint)
    }
}

/// Everything a layer's cells are generated from (shared with the workers).
#[derive(Clone, Debug)]
pub struct DetailLayer {
    pub rules: DetailRules,
    pub grid: DetailGrid,
    pub ground: Ground,
}

/// A cell's instances: `FLOATS` per instance, origins relative to the cell's lower corner on X and Z (so
/// that f32 keeps its precision far from the origin) and absolute on Y.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DetailDraw {
    pub buffer: Vec<f32>,
    /// Lowest and highest relative origin.
    pub lo: [f32; 3],
    pub hi: [f32; 3],
    pub max_scale: f32,
}

impl DetailDraw {
    pub fn count(&self) -> usize {
        self.buffer.len() / FLOATS
    }
}

/// The `k`-th random number in [0, 1) of grid square (i, j).
fn unit(seed: u64, i: i64, j: i64, k: u64) -> f64 {
    let square = mix(i as u64 ^ 0x9e37_79b9_7f4a_7c15) ^ (j as u64).rotate_left(29);
    let h = mix(mix(seed.wrapping_add(k.wrapping_mul(0x2545_f491_4f6c_dd1d))) ^ square);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// The instances of cell `key` of `layer` on surface `s` (`out` is refilled).
pub fn generate_cell<S: Samples + ?Sized>(
    layer: &DetailLayer,
    s: &S,
    key: DetailKey,
    out: &mut DetailDraw,
) {
    out.buffer.clear();
    out.lo = [f32::INFINITY; 3];
    out.hi = [f32::NEG_INFINITY; 3];
    out.max_scale = 0.0;
    let n = layer.grid.per_cell;
    let (i0, j0) = (i64::from(key.0) * n, i64::from(key.1) * n);
    let origin = layer.grid.cell_area(key).min;
    for j in j0..j0 + n {
        for i in i0..i0 + n {
            let Some((p, basis, rgba)) = candidate(layer, s, i, j) else {
                continue;
            };
            let o = [
                (p[0] - origin[0]) as f32,
                p[1] as f32,
                (p[2] - origin[1]) as f32,
            ];
            for (r, &o) in o.iter().enumerate() {
                out.buffer.extend_from_slice(&[
                    basis.x_axis[r],
                    basis.y_axis[r],
                    basis.z_axis[r],
                    o,
                ]);
                out.lo[r] = out.lo[r].min(o);
                out.hi[r] = out.hi[r].max(o);
            }
            out.buffer.extend_from_slice(&rgba);
            out.max_scale = out.max_scale.max(basis.y_axis.length());
        }
    }
}

/// Grid square (i, j)'s instance: terrain position, basis and colour, or None where the rules refuse it.
fn candidate<S: Samples + ?Sized>(
    layer: &DetailLayer,
    s: &S,
    i: i64,
    j: i64,
) -> Option<([f64; 3], Mat3, [f32; 4])> {
    let (r, step, seed) = (&layer.rules, layer.grid.step, layer.rules.seed);
    let x = (i as f64 + unit(seed, i, j, 0)) * step;
    let z = (j as f64 + unit(seed, i, j, 1)) * step;
    if !crate::samples::is_inside(s, x, z) {
        return None;
    }
    let sp = s.spacing();
    if s.is_hole_at_sample(x / sp - 0.5, z / sp - 0.5) {
        return None;
    }
    let (h, gx, gz) = height_and_gradient_at(s, x, z);
    if !(r.height[0] <= h && h <= r.height[1]) {
        return None;
    }
    let n = Vec3::from(crate::bezier_patch::normal_from_gradient(gx, gz));
    let slope = n.y.clamp(-1.0, 1.0).acos().to_degrees();
    let p = &r.placement;
    if !p.allows_slope(slope) {
        return None;
    }
    let depth = layer
        .ground
        .water
        .as_ref()
        .and_then(|w| w.depth_at(x, z, h));
    if !p.allows_water(depth) {
        return None;
    }
    let (keep, tint) = layer.ground.at(s, x, z);
    if keep < 1.0 && unit(seed, i, j, 2) >= f64::from(keep) {
        return None;
    }
    let yaw = Quat::from_rotation_y((unit(seed, i, j, 3) * std::f64::consts::TAU) as f32);
    let tilt = Quat::from_rotation_arc(Vec3::Y, n);
    let rot = Quat::IDENTITY.slerp(tilt, p.align) * yaw;
    let sc = p.scale_at(unit(seed, i, j, 4) as f32);
    let dark = 1.0 - r.color_jitter * unit(seed, i, j, 5) as f32;
    let rgba = [
        tint[0] * dark,
        tint[1] * dark,
        tint[2] * dark,
        unit(seed, i, j, 6) as f32,
    ];
    Some((
        [x, f64::from(h + p.offset), z],
        Mat3::from_quat(rot) * sc,
        rgba,
    ))
}

/// Every instance of `layer` inside `area` of surface `s`: (terrain position, basis, colour), row by row
/// of cells, each cell's in grid order (what the cells draw, filtered to the area).
pub fn instances_in<S: Samples + ?Sized>(
    layer: &DetailLayer,
    s: &S,
    area: Area,
    limit: usize,
) -> Vec<([f64; 3], Mat3, [f32; 4])> {
    let mut out = Vec::new();
    let area = clip(s, area);
    let near = area
        .min
        .iter()
        .chain(&area.max)
        .all(|v| v.abs() <= MAX_COORDINATE);
    if !(near && area.is_valid() && candidates_in(layer, area) <= MAX_CANDIDATES) {
        return out;
    }
    let step = layer.grid.step;
    // Only the grid squares that can hold a point of the area.
    let lo = |v: f64| (v / step).floor() as i64;
    let (i0, i1) = (lo(area.min[0]), lo(area.max[0]));
    let (j0, j1) = (lo(area.min[1]), lo(area.max[1]));
    for key in layer.grid.cells_in(area) {
        let n = layer.grid.per_cell;
        let (ci, cj) = (i64::from(key.0) * n, i64::from(key.1) * n);
        for j in cj.max(j0)..(cj + n).min(j1 + 1) {
            for i in ci.max(i0)..(ci + n).min(i1 + 1) {
                if out.len() >= limit {
                    return out;
                }
                if let Some(c) = candidate(layer, s, i, j) {
                    if area.contains(c.0[0], c.0[2]) {
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

/// The farthest terrain coordinate detail is grown at (grid indices stay far from overflowing).
pub const MAX_COORDINATE: f64 = 1.0e15;

/// The most grid squares `instances_in` looks at (an area with more is refused by its caller).
pub const MAX_CANDIDATES: f64 = 1.0e8;

/// `area` clipped to a finite surface's extent (an empty area when they do not meet).
pub fn clip<S: Samples + ?Sized>(s: &S, mut area: Area) -> Area {
    if let Some([w, d]) = s.size() {
        let sp = s.spacing();
        area.min = [area.min[0].max(0.0), area.min[1].max(0.0)];
        area.max = [
            area.max[0].min(w as f64 * sp),
            area.max[1].min(d as f64 * sp),
        ];
        area.max = [area.max[0].max(area.min[0]), area.max[1].max(area.min[1])];
    }
    area
}

/// How many grid squares of `layer` an area covers (what `instances_in` would look at).
pub fn candidates_in(layer: &DetailLayer, area: Area) -> f64 {
    let step = layer.grid.step;
    ((area.max[0] - area.min[0]) / step + 1.0).max(0.0)
        * ((area.max[1] - area.min[1]) / step + 1.0).max(0.0)
}

/// A finished cell.
#[derive(Debug, Clone)]
pub struct DetailResult {
    pub layer: usize,
    pub key: DetailKey,
    pub stamp: u64,
    pub draw: DetailDraw,
}

/// Detail cells computed on the worker pool (the one clipmaps, collision and instances stream on).
#[derive(Default)]
pub struct DetailStream {
    results: Results<DetailResult>,
}

impl DetailStream {
    pub fn in_flight(&self) -> usize {
        self.results.in_flight()
    }

    /// Generates `cells` (key, stamp) of layer `index` on a worker. `source` must stay readable: an endless
    /// source (a block is copied per cell on the worker) or a `SampleBlock` covering the cells
    /// (`block_for`).
    pub fn request(
        &mut self,
        index: usize,
        layer: Arc<DetailLayer>,
        source: SharedSamples,
        cells: Vec<(DetailKey, u64)>,
    ) {
        if cells.is_empty() {
            return;
        }
        self.results.spawn(cells.len(), move || {
            let mut block = SampleBlock::default();
            let endless = source.size().is_none();
            cells
                .into_iter()
                .map(|(key, stamp)| {
                    let mut draw = DetailDraw::default();
                    // A cell that panics comes back empty (and shown), so nothing waits for it.
                    let grown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        if endless {
                            let (o, n) = cell_samples(layer.grid.cell_area(key), source.spacing());
                            block.copy_from(&*source, o[0], o[1], n[0], n[1]);
                            generate_cell(&layer, &block, key, &mut draw);
                        } else {
                            generate_cell(&layer, &*source, key, &mut draw);
                        }
                    }));
                    if grown.is_err() {
                        draw = DetailDraw::default();
                    }
                    DetailResult {
                        layer: index,
                        key,
                        stamp,
                        draw,
                    }
                })
                .collect()
        });
    }

    pub fn poll(&mut self, out: &mut Vec<DetailResult>) {
        self.results.poll(out);
    }

    pub fn wait(&mut self, out: &mut Vec<DetailResult>) {
        self.results.wait(out);
    }
}

/// A copy of the samples cells `keys` of `grid` read from a finite source (taken on the caller's thread,
/// so that later edits do not race the worker).
pub fn block_for<S: Samples + ?Sized>(s: &S, grid: &DetailGrid, keys: &[DetailKey]) -> SampleBlock {
    block_over(s, keys.iter().map(|&k| grid.cell_area(k)))
}

#[cfg(test)]
mod tests;
