//! A heightfield and its derived data (the "terrain data" of camera-following LOD rings with Bézier-patch
//! heights: height, slope x, slope z per sample).
//!
//! Only the heights are stored (4 bytes a sample); the slopes are derived where they are needed (`texel`,
//! `slope_pass`), so no full-size copy of derived data is kept. Heights are `f32`, row-major (`index = z * width + x`), sample (x, z) at world
//! `((x + 0.5) * spacing, (z + 0.5) * spacing)`. The slope pass is the original wandering terrain's: from the neighbours
//! (clamped to the sample itself at the edges) `n = normalize(dX, 2, dZ)`, `n.y *= -3`, slope = `n.xz / n.y`.
//! The normalisation cancels, so slope x = `(h[x+1] - h[x-1]) / 6` and likewise in z: the central difference
//! per sample scaled to a third of a sample, the offset of the Bézier control points.

use crate::bezier_patch::{self, Texel};
use crate::control::HOLE;
use crate::height_range::{min_max, HeightRange};
pub use crate::sample_rect::Region;
use crate::samples::{grid_texels, patch_of, slope, Samples};
use std::fmt;

/// Default budget of samples (8192²): larger terrains are refused before allocating.
pub const DEFAULT_SAMPLE_BUDGET: u64 = 8192 * 8192;
/// Largest side in samples: the data texture must fit Godot's and the GPUs' texture size limit.
pub const MAX_SIDE: i64 = 16384;

#[derive(Clone, Debug, PartialEq)]
pub enum TerrainDataError {
    Size {
        width: i64,
        depth: i64,
        budget: u64,
    },
    Spacing(f64),
    /// An array of the wrong length: `property` must hold `of` (a description of the count) values.
    Length {
        property: &'static str,
        of: &'static str,
        got: usize,
        want: usize,
    },
    NonFinite {
        property: &'static str,
        index: usize,
        value: f32,
    },
    Region {
        x: i64,
        z: i64,
        w: i64,
        d: i64,
        width: usize,
        depth: usize,
    },
    /// A layer index outside 0 .. MAX_LAYERS.
    Layer(i64),
    /// A paint weight outside [0, 1] (or NaN).
    Weight {
        index: usize,
        value: f32,
    },
}

impl fmt::Display for TerrainDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Size { width, depth, budget } => write!(
                f,
                "size must be at least 1 x 1 samples, at most {MAX_SIDE} on a side and at most {budget} samples \
                 in all (sample_budget), got {width} x {depth}"
            ),
            Self::Spacing(v) => write!(f, "spacing must be a number in [0.001, 1000000], got {v}"),
            Self::Length {
                property,
                of,
                got,
                want,
            } => write!(f, "{property} must hold {of} = {want} values, got {got}"),
            Self::NonFinite { property, index, value } => {
                write!(
                    f,
                    "{property} must be finite, within ±{MAX_HEIGHT_VALUE}; value {index} is {value} (NaN and \
                     infinities are refused)"
                )
            }
            Self::Region { x, z, w, d, width, depth } => write!(
                f,
                "region ({x}, {z}, {w} x {d}) must lie inside the {width} x {depth} samples of the terrain"
            ),
            Self::Layer(v) => write!(
                f,
                "layer must be in [0, {}], got {v}",
                crate::control::MAX_LAYERS - 1
            ),
            Self::Weight { index, value } => {
                write!(f, "weights must be in [0, 1]; value {index} is {value}")
            }
        }
    }
}

impl std::error::Error for TerrainDataError {}

/// Checks a size against the budget.
pub fn check_size(width: i64, depth: i64, budget: u64) -> Result<(usize, usize), TerrainDataError> {
    let ok = (1..=MAX_SIDE).contains(&width)
        && (1..=MAX_SIDE).contains(&depth)
        && (width as u128) * (depth as u128) <= u128::from(budget);
    if ok {
        Ok((width as usize, depth as usize))
    } else {
        Err(TerrainDataError::Size {
            width,
            depth,
            budget,
        })
    }
}

pub fn check_spacing(spacing: f64) -> Result<f64, TerrainDataError> {
    // The shaders take spacing as an f32 uniform and divide by it: keep it well inside f32's range.
    if (1.0e-3..=1.0e6).contains(&spacing) {
        Ok(spacing)
    } else {
        Err(TerrainDataError::Spacing(spacing))
    }
}

/// Largest |height|: slopes (differences of neighbours) and culling boxes must stay finite in f32.
pub const MAX_HEIGHT_VALUE: f32 = 1.0e9;

pub fn check_finite(property: &'static str, values: &[f32]) -> Result<(), TerrainDataError> {
    // NaN fails `is_finite`; the bound keeps slopes and boxes finite.
    match values
        .iter()
        .position(|v| !v.is_finite() || v.abs() > MAX_HEIGHT_VALUE)
    {
        Some(index) => Err(TerrainDataError::NonFinite {
            property,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// The heightfield; (height, slope x, slope z) texels are derived on demand.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainData {
    width: usize,
    depth: usize,
    spacing: f64,
    heights: Vec<f32>,
    /// Lowest and highest height, kept current by edits: the nodes ask for it on every change.
    range: HeightRange,
    /// Control data per sample (bit `HOLE` marks a hole); empty while nothing is painted (all zero).
    control: Vec<u32>,
    /// Non-zero values in `control`, kept by edits: an edit that clears the last one drops the map without
    /// scanning it.
    nonzero: usize,
}

impl TerrainData {
    /// A flat terrain of the given size.
    pub fn flat(width: usize, depth: usize, spacing: f64) -> Self {
        Self::from_heights(width, depth, spacing, vec![0.0; width * depth])
            .expect("flat terrain is valid")
    }

    /// Takes heights (validated: length and finiteness).
    pub fn from_heights(
        width: usize,
        depth: usize,
        spacing: f64,
        heights: Vec<f32>,
    ) -> Result<Self, TerrainDataError> {
        if heights.len() != width * depth {
            return Err(TerrainDataError::Length {
                property: "heights",
                of: "size.x * size.y",
                got: heights.len(),
                want: width * depth,
            });
        }
        check_finite("heights", &heights)?;
        let spacing = check_spacing(spacing)?;
        let range = HeightRange::of(&heights, width, depth);
        Ok(Self {
            width,
            depth,
            spacing,
            heights,
            range,
            control: Vec::new(),
            nonzero: 0,
        })
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn depth(&self) -> usize {
        self.depth
    }
    pub fn spacing(&self) -> f64 {
        self.spacing
    }
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }
    /// The whole terrain as a region.
    pub fn all(&self) -> Region {
        Region {
            x: 0,
            z: 0,
            w: self.width,
            d: self.depth,
        }
    }

    /// (height, slope x, slope z) of sample (x, z), indices clamped to the grid: the slope pass for one
    /// sample (neighbours beyond the edge are the sample itself).
    #[inline(always)]
    pub fn texel(&self, x: i64, z: i64) -> Texel {
        let (wl, dl) = (self.width as i64 - 1, self.depth as i64 - 1);
        let (x, z) = (x.clamp(0, wl), z.clamp(0, dl));
        let at = |x: i64, z: i64| self.heights[z as usize * self.width + x as usize];
        let h = at(x, z);
        let sx = slope(at((x - 1).max(0), z), at((x + 1).min(wl), z));
        let sz = slope(at(x, (z - 1).max(0)), at(x, (z + 1).min(dl)));
        [h, sx, sz]
    }

    /// Texels of a region, row-major (what a data texture of that region holds).
    pub fn texels_region(&self, r: Region) -> Vec<Texel> {
        let mut out = vec![[0.0; 3]; r.w * r.d];
        slope_pass(&self.heights, self.width, self.depth, r, &mut out);
        out
    }

    /// The four corner texels of the patch at sample-space point (sx, sz), and its local parameters.
    #[inline(always)]
    fn patch(&self, sx: f64, sz: f64) -> ([Texel; 4], f32, f32) {
        let ([ix, iz], tu, tv) = bezier_patch::locate(sx, sz);
        let (w, d) = (self.width as i64, self.depth as i64);
        if ix >= 1 && iz >= 1 && ix < w - 2 && iz < d - 2 {
            // Inside: the 4x4 block of heights around the patch, read once, no clamping.
            let at = iz as usize * self.width + ix as usize;
            return (grid_texels(&self.heights, self.width, at), tu, tv);
        }
        patch_of(self, sx, sz)
    }

    pub fn into_heights(self) -> Vec<f32> {
        self.heights
    }

    pub fn set_spacing(&mut self, spacing: f64) -> Result<(), TerrainDataError> {
        self.spacing = check_spacing(spacing)?;
        Ok(())
    }

    /// Resized copy: the overlapping samples are kept, new ones are 0.
    pub fn resized(&self, width: usize, depth: usize) -> Self {
        let mut h = vec![0.0; width * depth];
        for z in 0..depth.min(self.depth) {
            let n = width.min(self.width);
            h[z * width..z * width + n]
                .copy_from_slice(&self.heights[z * self.width..z * self.width + n]);
        }
        let mut t =
            Self::from_heights(width, depth, self.spacing, h).expect("resized terrain is valid");
        if !self.control.is_empty() {
            t.control = vec![0; width * depth];
            for z in 0..depth.min(self.depth) {
                let n = width.min(self.width);
                t.control[z * width..z * width + n]
                    .copy_from_slice(&self.control[z * self.width..z * self.width + n]);
            }
            t.nonzero = t.control.iter().filter(|&&c| c != 0).count();
            if t.nonzero == 0 {
                t.control = Vec::new();
            }
        }
        t
    }

    /// Control data of sample (x, z), indices clamped to the grid.
    #[inline]
    pub fn control(&self, x: i64, z: i64) -> u32 {
        if self.control.is_empty() {
            return 0;
        }
        let x = x.clamp(0, self.width as i64 - 1) as usize;
        let z = z.clamp(0, self.depth as i64 - 1) as usize;
        self.control[z * self.width + x]
    }

    /// The whole control map (empty: all zero).
    pub fn control_map(&self) -> &[u32] {
        &self.control
    }

    /// Replaces the control map (`width * depth` values, or empty for all zero).
    pub fn set_control_map(&mut self, control: Vec<u32>) -> Result<(), TerrainDataError> {
        if !control.is_empty() && control.len() != self.width * self.depth {
            return Err(TerrainDataError::Length {
                property: "control",
                of: "size.x * size.y",
                got: control.len(),
                want: self.width * self.depth,
            });
        }
        self.nonzero = control.iter().filter(|&&c| c != 0).count();
        self.control = if self.nonzero == 0 {
            Vec::new()
        } else {
            control
        };
        Ok(())
    }

    /// Whether any sample is a hole.
    pub fn has_holes(&self) -> bool {
        self.control.iter().any(|&c| c & HOLE != 0)
    }

    /// Marks (non-zero) or clears (zero) holes in a region, row-major. Returns the region whose drawn
    /// surface changed (grown by one sample: the patches around a sample).
    pub fn set_holes_region(
        &mut self,
        r: Region,
        holes: &[u8],
    ) -> Result<Region, TerrainDataError> {
        if holes.len() != r.w * r.d {
            return Err(TerrainDataError::Length {
                property: "holes",
                of: "region.size.x * region.size.y",
                got: holes.len(),
                want: r.w * r.d,
            });
        }
        Ok(self.update_control(r, |k, c| if holes[k] != 0 { c | HOLE } else { c & !HOLE }))
    }

    /// Paints weights (0..1, row-major) of `layer` in a region (see `control::paint`). Returns the region
    /// whose drawn surface changed (grown by one sample, as for holes).
    pub fn set_layer_region(
        &mut self,
        r: Region,
        layer: i64,
        weights: &[f32],
    ) -> Result<Region, TerrainDataError> {
        if !(0..crate::control::MAX_LAYERS as i64).contains(&layer) {
            return Err(TerrainDataError::Layer(layer));
        }
        if weights.len() != r.w * r.d {
            return Err(TerrainDataError::Length {
                property: "weights",
                of: "region.size.x * region.size.y",
                got: weights.len(),
                want: r.w * r.d,
            });
        }
        if let Some((index, &value)) = weights
            .iter()
            .enumerate()
            .find(|(_, w)| !(0.0..=1.0).contains(*w))
        {
            return Err(TerrainDataError::Weight { index, value });
        }
        let slot = crate::control::slot_of(layer as usize);
        Ok(self.update_control(r, |k, c| crate::control::paint(c, slot, weights[k])))
    }

    /// Replaces the control value of every sample of `r` by `f(index in r, old value)`; allocates the map on
    /// the first non-zero value and drops it when all is zero again. Returns the grown region.
    pub fn update_control(&mut self, r: Region, f: impl Fn(usize, u32) -> u32) -> Region {
        if self.control.is_empty() {
            let any = (0..r.w * r.d).any(|k| f(k, 0) != 0);
            if !any {
                return self.grow(r);
            }
            self.control = vec![0; self.width * self.depth];
        }
        for (row, z) in (r.z..r.z + r.d).enumerate() {
            let dst = &mut self.control[z * self.width + r.x..z * self.width + r.x + r.w];
            for (i, c) in dst.iter_mut().enumerate() {
                let new = f(row * r.w + i, *c);
                self.nonzero = self.nonzero + usize::from(new != 0) - usize::from(*c != 0);
                *c = new;
            }
        }
        // Nothing left in the control map: back to no map (nothing stored, nothing saved).
        if self.nonzero == 0 {
            self.control = Vec::new();
        }
        self.grow(r)
    }

    /// Painted weight per layer at world X/Z (bilinear over the four samples around it, as the shader
    /// blends them); `out` holds one value per layer and is zeroed first. What is missing to 1 is auto
    /// (height bands).
    pub fn layer_weights_at(&self, x: f64, z: f64, out: &mut [f32]) {
        out.iter_mut().for_each(|w| *w = 0.0);
        if self.control.is_empty() || !(x.is_finite() && z.is_finite()) {
            return;
        }
        let (corners, [tx, tz]) =
            Samples::control_corners(self, x / self.spacing - 0.5, z / self.spacing - 0.5);
        let k = [
            (1.0 - tx) * (1.0 - tz),
            tx * (1.0 - tz),
            (1.0 - tx) * tz,
            tx * tz,
        ];
        for (c, k) in corners.iter().zip(k) {
            for (slot, w) in crate::control::Paint::decode(*c).weights() {
                if let Some(o) = usize::from(slot)
                    .checked_sub(1)
                    .and_then(|l| out.get_mut(l))
                {
                    *o += w * k;
                }
            }
        }
    }

    fn hole_sample(&self, x: i64, z: i64) -> bool {
        self.control(x, z) & HOLE != 0
    }

    /// Whether the patch whose lower corner is sample (ix, iz) has any hole (a hole sample at a corner).
    #[inline]
    pub fn patch_has_hole(&self, ix: i64, iz: i64) -> bool {
        if self.control.is_empty() {
            return false;
        }
        let h = |x, z| self.hole_sample(x, z);
        let (ix1, iz1) = (ix.saturating_add(1), iz.saturating_add(1));
        h(ix, iz) || h(ix1, iz) || h(ix, iz1) || h(ix1, iz1)
    }

    /// Whether sample-space point (sx, sz) lies in a hole triangle (see `HOLE`); points on the diagonal
    /// belong to the upper triangle.
    #[inline]
    pub fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool {
        if self.control.is_empty() || !(sx.is_finite() && sz.is_finite()) {
            return false;
        }
        crate::samples::hole_rule(self, sx, sz)
    }

    /// Whether every triangle touching sample-space point (sx, sz) is a hole: the points a collision grid
    /// may set to NaN without opening ground that is drawn (probes just around the point reach each
    /// triangle that touches it).
    pub fn is_hole_all_around(&self, sx: f64, sz: f64) -> bool {
        crate::samples::Samples::is_hole_all_around(self, sx, sz)
    }

    /// Validates a region given as signed numbers (from a user).
    pub fn region(&self, x: i64, z: i64, w: i64, d: i64) -> Result<Region, TerrainDataError> {
        let inside = x >= 0
            && z >= 0
            && w >= 0
            && d >= 0
            && x + w <= self.width as i64
            && z + d <= self.depth as i64;
        if inside {
            Ok(Region {
                x: x as usize,
                z: z as usize,
                w: w as usize,
                d: d as usize,
            })
        } else {
            Err(TerrainDataError::Region {
                x,
                z,
                w,
                d,
                width: self.width,
                depth: self.depth,
            })
        }
    }

    /// Heights of a region, row-major.
    pub fn heights_region(&self, r: Region) -> Vec<f32> {
        let mut out = Vec::with_capacity(r.w * r.d);
        for z in r.z..r.z + r.d {
            out.extend_from_slice(&self.heights[z * self.width + r.x..z * self.width + r.x + r.w]);
        }
        out
    }

    /// Replaces the heights of a region. Returns the region of derived data that changed (the region grown
    /// by one sample: neighbours' slopes depend on it).
    pub fn set_heights_region(
        &mut self,
        r: Region,
        values: &[f32],
    ) -> Result<Region, TerrainDataError> {
        if values.len() != r.w * r.d {
            return Err(TerrainDataError::Length {
                property: "values",
                of: "region.size.x * region.size.y",
                got: values.len(),
                want: r.w * r.d,
            });
        }
        check_finite("values", values)?;
        // Only when an edit overwrites the lowest or highest sample can the range shrink.
        let (lo, hi) = self.range.get();
        let mut lost = (false, false);
        for (row, z) in (r.z..r.z + r.d).enumerate() {
            let dst = &mut self.heights[z * self.width + r.x..z * self.width + r.x + r.w];
            for &h in dst.iter() {
                lost.0 |= h == lo;
                lost.1 |= h == hi;
            }
            dst.copy_from_slice(&values[row * r.w..(row + 1) * r.w]);
        }
        self.range
            .edited(&self.heights, self.width, r, min_max(values), lost);
        Ok(self.grow(r))
    }

    fn grow(&self, r: Region) -> Region {
        if r.is_empty() {
            return r;
        }
        let (x0, z0) = (r.x.saturating_sub(1), r.z.saturating_sub(1));
        let (x1, z1) = (
            (r.x + r.w + 1).min(self.width),
            (r.z + r.d + 1).min(self.depth),
        );
        Region {
            x: x0,
            z: z0,
            w: x1 - x0,
            d: z1 - z0,
        }
    }

    /// Height at world position (x, z): the Bézier patch, as the shader draws it. NaN inside a hole (see
    /// `HOLE`) and for a non-finite position. Outside the terrain the maths continues with clamped samples,
    /// like the shader's sampling.
    #[inline]
    pub fn height_at(&self, x: f64, z: f64) -> f32 {
        crate::samples::height_at(self, x, z)
    }

    /// Height and its derivatives along X and Z per terrain-space unit at terrain position (x, z); NaN for
    /// a non-finite position.
    #[inline]
    pub fn height_and_gradient_at(&self, x: f64, z: f64) -> (f32, f32, f32) {
        crate::samples::height_and_gradient_at(self, x, z)
    }

    /// Height at sample-space point (sx, sz) (= terrain position / spacing - 0.5) of the surface as if
    /// there were no holes.
    #[inline]
    pub fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        let (c, tu, tv) = self.patch(sx, sz);
        bezier_patch::height_in_patch(&c, tu, tv)
    }

    /// Height and its derivatives per sample unit at sample-space point (sx, sz) (= terrain position /
    /// spacing - 0.5), for callers that map many points into sample space themselves.
    #[inline]
    pub fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        let (c, tu, tv) = self.patch(sx, sz);
        bezier_patch::gradient_in_patch(&c, tu, tv)
    }

    /// Unit normal at world position (x, z) from the patch derivatives; (NaN, NaN, NaN) for a non-finite
    /// position.
    pub fn normal_at(&self, x: f64, z: f64) -> [f32; 3] {
        crate::samples::normal_at(self, x, z)
    }

    /// Heights at many world positions (x, z pairs), in parallel.
    pub fn heights_at(&self, points: &[[f32; 2]], out: &mut [f32]) {
        use rayon::prelude::*;
        const CHUNK: usize = 16 * 1024;
        out.par_chunks_mut(CHUNK)
            .zip(points.par_chunks(CHUNK))
            .for_each(|(o, p)| {
                // Random points miss the cache on each of a patch's four rows: the rows of the points a
                // few ahead are asked for while this one is computed, so the misses overlap.
                const AHEAD: usize = 16;
                for (i, (o, q)) in o.iter_mut().zip(p).enumerate() {
                    if let Some(next) = p.get(i + AHEAD) {
                        self.prefetch_patch(f64::from(next[0]), f64::from(next[1]));
                    }
                    *o = self.height_at(f64::from(q[0]), f64::from(q[1]));
                }
            });
    }

    /// Asks the CPU to bring in the four rows of heights the patch at terrain position (x, z) reads (a
    /// hint: no effect on results, nothing on targets without one).
    #[inline(always)]
    fn prefetch_patch(&self, x: f64, z: f64) {
        #[cfg(target_arch = "x86_64")]
        {
            let (sx, sz) = (x / self.spacing - 0.5, z / self.spacing - 0.5);
            if !(sx >= 1.0 && sz >= 1.0) {
                return;
            }
            let (ix, iz) = (sx as usize, sz as usize);
            if ix + 2 >= self.width || iz + 2 >= self.depth {
                return;
            }
            for row in iz - 1..iz + 3 {
                let at = row * self.width + ix - 1;
                // SAFETY: `at` is inside `heights` (checked above); prefetching never faults.
                unsafe {
                    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                    _mm_prefetch::<_MM_HINT_T0>(self.heights.as_ptr().add(at).cast());
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (x, z);
    }

    /// Lowest and highest height (0, 0 for no samples).
    pub fn height_range(&self) -> (f32, f32) {
        let (lo, hi) = self.range.get();
        if lo > hi {
            (0.0, 0.0)
        } else {
            (lo, hi)
        }
    }
}

impl Samples for TerrainData {
    #[inline(always)]
    fn spacing(&self) -> f64 {
        TerrainData::spacing(self)
    }
    #[inline(always)]
    fn texel(&self, x: i64, z: i64) -> Texel {
        TerrainData::texel(self, x, z)
    }
    #[inline(always)]
    fn control(&self, x: i64, z: i64) -> u32 {
        TerrainData::control(self, x, z)
    }
    #[inline(always)]
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        TerrainData::patch_gradient(self, sx, sz)
    }
    #[inline(always)]
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        TerrainData::patch_height(self, sx, sz)
    }
    #[inline(always)]
    fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool {
        TerrainData::is_hole_at_sample(self, sx, sz)
    }
    fn size(&self) -> Option<[usize; 2]> {
        Some([self.width(), self.depth()])
    }
    fn height_bounds(&self) -> (f32, f32) {
        self.height_range()
    }
    fn sample_row(&self, x0: usize, z: usize, len: usize) -> Option<&[f32]> {
        if !self.control_map().is_empty() {
            return None;
        }
        let row = z * self.width() + x0;
        self.heights().get(row..row + len)
    }
    fn read_block(
        &self,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
        heights: &mut Vec<f32>,
        control: &mut Vec<u32>,
    ) {
        // Row copies: the block of an edit's collision tiles is taken on the main thread.
        let (x0, z0) = (x0 as usize, z0 as usize);
        let width = self.width();
        heights.clear();
        control.clear();
        for z in z0..z0 + d {
            heights.extend_from_slice(&self.heights()[z * width + x0..z * width + x0 + w]);
        }
        let map = self.control_map();
        if !map.is_empty() {
            for z in z0..z0 + d {
                control.extend_from_slice(&map[z * width + x0..z * width + x0 + w]);
            }
        }
    }
}

/// The slope pass over a region: writes the texels of region `r` into `out` (`r.w * r.d`, row-major);
/// rows in parallel for large regions.
pub fn slope_pass(heights: &[f32], width: usize, depth: usize, r: Region, out: &mut [Texel]) {
    use rayon::prelude::*;
    assert_eq!(out.len(), r.w * r.d, "slope_pass output length");
    if r.is_empty() {
        return;
    }
    let row = |z: usize, out: &mut [Texel]| {
        let base = z * width;
        let up = if z > 0 { base - width } else { base };
        let down = if z + 1 < depth { base + width } else { base };
        for (o, x) in out.iter_mut().zip(r.x..r.x + r.w) {
            let h = heights[base + x];
            let hmx = if x > 0 { heights[base + x - 1] } else { h };
            let hpx = if x + 1 < width {
                heights[base + x + 1]
            } else {
                h
            };
            let (hmz, hpz) = (heights[up + x], heights[down + x]);
            *o = [h, slope(hmx, hpx), slope(hmz, hpz)];
        }
    };
    // Small regions (brush strokes) are not worth waking the thread pool for.
    if r.w * r.d >= 64 * 1024 {
        out.par_chunks_mut(r.w)
            .enumerate()
            .for_each(|(i, o)| row(r.z + i, o));
    } else {
        out.chunks_mut(r.w)
            .enumerate()
            .for_each(|(i, o)| row(r.z + i, o));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_edit_matches_full_recompute() {
        let h: Vec<f32> = (0..7 * 5).map(|i| ((i * 13) % 7) as f32).collect();
        let mut t = TerrainData::from_heights(7, 5, 1.0, h.clone()).unwrap();
        let r = t.region(2, 1, 3, 2).unwrap();
        let grown = t
            .set_heights_region(r, &[9.0, 8.0, 7.0, 6.0, 5.0, 4.0])
            .unwrap();
        assert_eq!(
            grown,
            Region {
                x: 1,
                z: 0,
                w: 5,
                d: 4
            }
        );
        let full = TerrainData::from_heights(7, 5, 1.0, t.heights().to_vec()).unwrap();
        assert_eq!(t.height_range(), full.height_range());
        // texels_region is the slope pass over the region.
        let texels = t.texels_region(grown);
        for (i, tx) in texels.iter().enumerate() {
            let (x, z) = (grown.x + i % grown.w, grown.z + i / grown.w);
            assert_eq!(*tx, t.texel(x as i64, z as i64));
        }
        assert_eq!(t.heights_region(r), vec![9.0, 8.0, 7.0, 6.0, 5.0, 4.0]);
        // Overwriting the highest and the lowest samples shrinks the range.
        let whole = t.region(0, 0, 7, 5).unwrap();
        t.set_heights_region(whole, &[1.5; 35]).unwrap();
        assert_eq!(t.height_range(), (1.5, 1.5));
        t.set_heights_region(t.region(3, 3, 1, 1).unwrap(), &[-4.0])
            .unwrap();
        assert_eq!(t.height_range(), (-4.0, 1.5));
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(check_size(0, 5, 100).is_err());
        assert!(check_size(-1, 5, 100).is_err());
        assert!(check_size(11, 10, 100)
            .unwrap_err()
            .to_string()
            .contains("sample_budget"));
        assert!(TerrainData::from_heights(2, 2, 1.0, vec![0.0; 3])
            .unwrap_err()
            .to_string()
            .contains("4 values, got 3"));
        let e = TerrainData::from_heights(2, 1, 1.0, vec![0.0, f32::NAN])
            .unwrap_err()
            .to_string();
        assert!(e.contains("value 1 is NaN"), "{e}");
        let t = TerrainData::flat(4, 4, 1.0);
        assert!(t.region(3, 0, 2, 1).is_err());
        assert!(t.region(-1, 0, 1, 1).is_err());
        assert!(check_spacing(0.0).is_err() && check_spacing(f64::NAN).is_err());
    }

    #[test]
    fn resize_keeps_overlap() {
        let t = TerrainData::from_heights(3, 2, 1.0, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(t.resized(2, 3).heights(), &[1.0, 2.0, 4.0, 5.0, 0.0, 0.0]);
    }
}
