//! Clipmap data windows: the terrain data a geometry clipmap draws from, bounded by the view.
//!
//! Losasso & Hoppe's geometry clipmaps keep each level's *data* in a window around the viewer too. Here
//! every level has a `window × window` layer of texels (one layer of a texture array), addressed
//! toroidally (texel slot = index mod window), so when the target moves only the rows and columns that came
//! into view are computed, and an edit recomputes only the texels that depend on the changed samples.
//!
//! - **Lattice layers** (one per level L): texel (gx, gz) holds the surface at the level's vertex lattice
//!   point `(gx, gz) * u_L` (world X/Z, `u_L = vertex_spacing * 2^L`): `(h, dh/dx * step / 3, dh/dz *
//!   step / 3)` with `h` `TerrainData::height_at` there (exactly, for an unscaled node at the origin; else
//!   to the rounding of the world → sample mapping) and `step` the lattice step
//!   — the same (height, slope) layout as the sample data, so the shader's Bézier patch runs unchanged over
//!   it. A vertex on the lattice reads its height back exactly (the patch at a corner is the corner's
//!   height), so every level draws `get_height` at its vertices, and two levels that share a vertex store
//!   the same f32 there: the levels meet bit for bit. Between lattice points the patch is a C1 cubic with
//!   the surface's own derivatives at the corners (used for geomorphing and coarse-level shading).
//! - **Fine layer** (the last): the samples themselves around the target (`TerrainData::texel`, clamped at
//!   the terrain's edges like the shader's sampling), so per-pixel heights and normals near the viewer are the
//!   exact patch. The shader uses it wherever it covers a pixel's patch and falls back to the level's lattice
//!   layer elsewhere.
//!
//! Every texel also carries the control value (`control::gpu_control`: the paint and a hole flag, exact in
//! an f32): for the fine layer, its sample's paint and whether it is a hole (the shader hides a triangle with
//! a hole corner, as `TerrainData::height_at`); for a lattice layer, the paint of the sample nearest its point
//! and whether the point lies in a hole (its height is the surface as if there were none).
//!
//! The twin of `shaders/clipmap_data.gdshaderinc`.

/// A layer's texel: height, slope x, slope z (the Bézier patch's data), control (`control::gpu_control`).
pub type Texel = [f32; 4];

use crate::clipmap::ClipmapConfig;
use crate::control::gpu_control;
use crate::control::HOLE;
use crate::sample_rect::SampleRect;
use crate::samples::Samples;
use std::ops::Range;

/// Terrain space → world: `world = terrain * scale + origin` per axis (a node moved and scaled, not rotated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub origin: [f64; 3],
    pub scale: [f64; 3],
}

impl Default for Frame {
    fn default() -> Self {
        Self {
            origin: [0.0; 3],
            scale: [1.0; 3],
        }
    }
}

impl Frame {
    /// Terrain position → world, in f64 (exact far out; the caller narrows the small result).
    pub fn to_world(&self, t: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|a| t[a] * self.scale[a] + self.origin[a])
    }

    /// World position → terrain, in f64.
    pub fn to_terrain(&self, w: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|a| (w[a] - self.origin[a]) / self.scale[a])
    }

    /// This frame seen from a world whose origin moved by `by` (`origin_shift`): what was at `p + by` is at `p`.
    pub fn shifted(&self, by: [f64; 3]) -> Frame {
        Frame {
            origin: [0, 1, 2].map(|a| self.origin[a] - by[a]),
            scale: self.scale,
        }
    }
}

/// Texels per side of every layer: a level spans lattice indices `[m - 2N - 1, m + 2N + 2]` around the
/// target's cell `m` (see `clipmap::layout`); one more index for the patch's upper corner and one of margin.
pub fn window_size(cfg: &ClipmapConfig) -> usize {
    4 * cfg.tile_resolution() as usize + 6
}

/// Data windows of every level of a clipmap, kept current by `follow` and `refresh`.
#[derive(Clone, Debug)]
pub struct ClipmapData {
    cfg: ClipmapConfig,
    window: usize,
    /// `levels` lattice layers, then the fine layer; each `window²` texels, row-major by slot.
    layers: Vec<Vec<Texel>>,
    /// Index (lattice or sample) of each layer's window corner; None: nothing valid yet.
    origins: Vec<Option<[i64; 2]>>,
    /// Per layer, the slots written since `clear_written`: what a GPU copy of the layers lacks.
    written: Vec<Written>,
}

/// A rectangle of slots of a layer: `[x, z)` to `[x + w, z + d)`, inside the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotRect {
    pub x: u32,
    pub z: u32,
    pub w: u32,
    pub d: u32,
}

/// The slots of a layer written since the last `clear_written`: a few rectangles (a move brings a strip of
/// columns and one of rows, each split in two where it wraps round the window; an edit its footprint), or
/// the whole layer once they are many or cover much of it (one whole upload then costs less than many).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    pub whole: bool,
    pub rects: Vec<SlotRect>,
}

/// Rectangles kept per layer before the layer counts as written whole.
const WRITTEN_RECTS: usize = 16;

impl Written {
    pub fn is_empty(&self) -> bool {
        !self.whole && self.rects.is_empty()
    }

    fn clear(&mut self) {
        self.whole = false;
        self.rects.clear();
    }

    /// Notes index ranges `xs × zs` (at most a window each) of a `window`-wide layer, split where they wrap.
    fn note(&mut self, window: usize, xs: &Range<i64>, zs: &Range<i64>) {
        if self.whole {
            return;
        }
        let w = window as i64;
        let split = |r: &Range<i64>| -> [(u32, u32); 2] {
            let start = r.start.rem_euclid(w);
            let len = (r.end - r.start).min(w);
            let first = len.min(w - start);
            [(start as u32, first as u32), (0, (len - first) as u32)]
        };
        for (x, xw) in split(xs) {
            for (z, zd) in split(zs) {
                if xw > 0 && zd > 0 {
                    self.rects.push(SlotRect { x, z, w: xw, d: zd });
                }
            }
        }
        let area: u64 = self
            .rects
            .iter()
            .map(|r| u64::from(r.w) * u64::from(r.d))
            .sum();
        if self.rects.len() > WRITTEN_RECTS || area * 2 >= (window * window) as u64 {
            self.whole = true;
            self.rects.clear();
        }
    }
}

/// A third, as a factor: the control point offset of a slope (one function of the lattice step for every
/// level, so decimated and direct texels agree bit for bit).
const THIRD: f32 = 1.0 / 3.0;

/// Texels computed in one call beyond which the work is spread over the thread pool.
const PARALLEL_TEXELS: usize = 4096;

impl ClipmapData {
    pub fn new(cfg: &ClipmapConfig) -> Self {
        let window = window_size(cfg);
        let count = cfg.levels() as usize + 1;
        Self {
            cfg: *cfg,
            window,
            layers: vec![vec![[0.0; 4]; window * window]; count],
            origins: vec![None; count],
            written: vec![Written::default(); count],
        }
    }

    pub fn window(&self) -> usize {
        self.window
    }
    pub fn config(&self) -> &ClipmapConfig {
        &self.cfg
    }
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }
    /// Index of the fine (sample) layer: after the levels' lattice layers.
    pub fn fine_layer(&self) -> usize {
        self.layers.len() - 1
    }
    pub fn layer(&self, i: usize) -> &[Texel] {
        &self.layers[i]
    }
    /// Index of a layer's window corner (lattice index for levels, sample index for the fine layer).
    pub fn origin(&self, i: usize) -> Option<[i64; 2]> {
        self.origins[i]
    }
    /// The slots of layer `i` written since `clear_written`.
    pub fn written(&self, i: usize) -> &Written {
        &self.written[i]
    }
    /// Forget what was written (a GPU copy of the layers is current); keeps the lists' memory.
    pub fn clear_written(&mut self) {
        self.written.iter_mut().for_each(Written::clear);
    }

    /// Bytes of texture data the layers hold (16 per texel).
    pub fn bytes(&self) -> usize {
        self.layers.len() * self.window * self.window * std::mem::size_of::<Texel>()
    }

    /// Forget every window: the next `follow` recomputes everything (new data, spacing or frame).
    pub fn invalidate(&mut self) {
        self.origins.iter_mut().for_each(|o| *o = None);
    }

    /// Where each layer's window should start for a target at world X/Z `target`.
    fn wanted_origin<S: Samples + ?Sized>(
        &self,
        layer: usize,
        terrain: &S,
        frame: &Frame,
        target: [f64; 2],
    ) -> [i64; 2] {
        let half = 2 * i64::from(self.cfg.tile_resolution()) + 2;
        let cell = if layer < self.fine_layer() {
            let u = self.cfg.scale(layer as u32);
            target.map(|t| t / u)
        } else {
            let s = terrain.spacing();
            [
                (target[0] - frame.origin[0]) / frame.scale[0] / s - 0.5,
                (target[1] - frame.origin[2]) / frame.scale[2] / s - 0.5,
            ]
        };
        // A non-finite target lays out at 0 like `clipmap::layout`; far targets are clamped where f64
        // still holds whole numbers, so window arithmetic cannot overflow.
        const FAR: f64 = 4.5e15;
        cell.map(|c| {
            if c.is_finite() {
                (c.clamp(-FAR, FAR).floor() as i64) - half
            } else {
                -half
            }
        })
    }

    /// Moves every window to the target; returns the mask of layers whose texels changed (bit i = layer i).
    pub fn follow<S: Samples + ?Sized>(
        &mut self,
        terrain: &S,
        frame: &Frame,
        target: [f64; 2],
    ) -> u64 {
        let w = self.window as i64;
        let mut changed = 0u64;
        let recopy = self.uses_coarse(terrain, frame);
        // Index rectangles of the previous level filled in this call.
        let mut finer_dirty: Vec<(Range<i64>, Range<i64>)> = Vec::new();
        for layer in 0..self.layers.len() {
            let want = self.wanted_origin(layer, terrain, frame, target);
            let (xs, zs) = (want[0]..want[0] + w, want[1]..want[1] + w);
            let mut dirty = Vec::new();
            match self.origins[layer] {
                Some(old) if old == want => {}
                Some(old) if (want[0] - old[0]).abs() < w && (want[1] - old[1]).abs() < w => {
                    // Only the columns and rows that came into view.
                    let cols = if want[0] > old[0] {
                        old[0] + w..want[0] + w
                    } else {
                        want[0]..old[0]
                    };
                    let rows = if want[1] > old[1] {
                        old[1] + w..want[1] + w
                    } else {
                        want[1]..old[1]
                    };
                    dirty.push((cols, zs.clone()));
                    dirty.push((xs.clone(), rows));
                }
                _ => dirty.push((xs.clone(), zs.clone())),
            }
            // Where levels draw from different grids (a region folder's mips), a texel is copied from the
            // finer level wherever that level holds the point — also where the finer window has just
            // arrived, so levels keep meeting bit for bit as windows move at different paces.
            if recopy && layer > 0 && layer < self.fine_layer() {
                let half = |a: i64| a.div_euclid(2) + a.rem_euclid(2);
                for (fx, fz) in &finer_dirty {
                    let rx = half(fx.start).max(xs.start)..half(fx.end).min(xs.end);
                    let rz = half(fz.start).max(zs.start)..half(fz.end).min(zs.end);
                    if !rx.is_empty() && !rz.is_empty() {
                        dirty.push((rx, rz));
                    }
                }
            }
            if dirty.iter().all(|(x, z)| x.is_empty() || z.is_empty()) {
                finer_dirty.clear();
                continue;
            }
            self.origins[layer] = Some(want);
            for (x, z) in &dirty {
                self.fill(layer, terrain, frame, x.clone(), z.clone());
            }
            changed |= 1 << layer;
            finer_dirty = dirty;
        }
        changed
    }

    /// Whether some level draws from a coarser grid than the one below it.
    fn uses_coarse<S: Samples + ?Sized>(&self, terrain: &S, frame: &Frame) -> bool {
        let last = self.fine_layer().saturating_sub(1) as u32;
        let step = self.cfg.scale(last) / (frame.scale[0].abs() * terrain.spacing());
        terrain.coarse(step).is_some()
    }

    /// Recomputes the texels that depend on the samples of `changed` (heights edited there); returns the
    /// mask of layers whose texels changed. A source that draws coarse levels from its own coarser levels
    /// (a region map's mips, each sample the mean of 2^k samples) has those levels' ranges grown by one
    /// lattice step, the reach of that averaging.
    pub fn refresh<S: Samples + ?Sized>(
        &mut self,
        terrain: &S,
        frame: &Frame,
        changed: impl Into<SampleRect>,
    ) -> u64 {
        let changed: SampleRect = changed.into();
        let size = terrain.size();
        let (width, depth) = (size.map(|s| s[0]), size.map(|s| s[1]));
        if changed.is_empty() {
            return 0;
        }
        let mut mask = 0u64;
        for layer in 0..self.layers.len() {
            let Some(o) = self.origins[layer] else {
                continue;
            };
            let (xs, zs) = if layer == self.fine_layer() {
                (
                    fine_range(changed.x, changed.w, width),
                    fine_range(changed.z, changed.d, depth),
                )
            } else {
                let u = self.cfg.scale(layer as u32);
                let sp = terrain.spacing();
                let step = u / (frame.scale[0].abs() * sp);
                let c = if terrain.coarse(step).is_some() {
                    grow(changed, step.ceil() as usize, size)
                } else {
                    changed
                };
                (
                    lattice_range(c.x, c.w, width, sp, frame, 0, u),
                    lattice_range(c.z, c.d, depth, sp, frame, 2, u),
                )
            };
            let w = self.window as i64;
            let xs = xs.start.max(o[0])..xs.end.min(o[0] + w);
            let zs = zs.start.max(o[1])..zs.end.min(o[1] + w);
            if xs.is_empty() || zs.is_empty() {
                continue;
            }
            self.fill(layer, terrain, frame, xs, zs);
            mask |= 1 << layer;
        }
        mask
    }

    /// Computes the texels of indices `xs × zs` (inside the layer's window) into their slots.
    ///
    /// A level's lattice point with index g is the finer level's point 2g, so where the finer level's window
    /// (already current: levels are updated finest first) holds it, the texel is copied from there with its
    /// slopes doubled (the lattice step doubles) — the same bits a direct computation gives, as 2g·u and
    /// g·2u are the same product and scaling by 2 is exact.
    fn fill<S: Samples + ?Sized>(
        &mut self,
        layer: usize,
        terrain: &S,
        frame: &Frame,
        xs: Range<i64>,
        zs: Range<i64>,
    ) {
        if xs.is_empty() || zs.is_empty() {
            return;
        }
        // A coarse level may draw from a coarser grid of the same terrain (a region folder's mips).
        if layer != self.fine_layer() {
            let step = self.cfg.scale(layer as u32) / (frame.scale[0].abs() * terrain.spacing());
            if let Some(c) = terrain.coarse(step) {
                return self.fill_from(layer, &*c, frame, xs, zs);
            }
        }
        self.fill_from(layer, terrain, frame, xs, zs)
    }

    fn fill_from<S: Samples + ?Sized>(
        &mut self,
        layer: usize,
        terrain: &S,
        frame: &Frame,
        xs: Range<i64>,
        zs: Range<i64>,
    ) {
        use rayon::prelude::*;
        let w = self.window as i64;
        let fine = layer == self.fine_layer();
        let u = self.cfg.scale(layer as u32);
        // World X/Z → sample space, as factors (no division per texel): s = (world - origin) * k - 0.5.
        let sp = terrain.spacing();
        let (kx, kz) = (1.0 / (frame.scale[0] * sp), 1.0 / (frame.scale[2] * sp));
        // Lattice step in samples, per axis: slopes are a third of it times the derivative per sample.
        let (step_x, step_z) = ((u * kx) as f32 * THIRD, (u * kz) as f32 * THIRD);
        let (finer, rest) = self.layers.split_at_mut(layer);
        let finer_origin = if layer > 0 && !fine {
            self.origins[layer - 1]
        } else {
            None
        };
        let finer = finer.last().map(|l| l.as_slice());
        let texel = |gx: i64, gz: i64| -> Texel {
            if fine {
                let [h, sx, sz] = terrain.texel(gx, gz);
                let c = terrain.control(gx, gz);
                return [h, sx, sz, gpu_control(c, c & HOLE != 0)];
            }
            if let (Some(o), Some(f)) = (finer_origin, finer) {
                let (fx, fz) = (gx.wrapping_mul(2), gz.wrapping_mul(2));
                if (o[0]..o[0] + w).contains(&fx) && (o[1]..o[1] + w).contains(&fz) {
                    let t = f[(fz.rem_euclid(w) * w + fx.rem_euclid(w)) as usize];
                    return [t[0], t[1] * 2.0, t[2] * 2.0, t[3]];
                }
            }
            let sx = (gx as f64 * u - frame.origin[0]) * kx - 0.5;
            let sz = (gz as f64 * u - frame.origin[2]) * kz - 0.5;
            let (h, du, dv) = terrain.patch_gradient(sx, sz);
            // Paint of the sample nearest the lattice point (far levels blend it coarsely).
            let c = terrain.control(sx.round() as i64, sz.round() as i64);
            let hole = terrain.is_hole_at_sample(sx, sz);
            [h, du * step_x, dv * step_z, gpu_control(c, hole)]
        };
        let z0 = zs.start;
        let fill_row = |slot_row: usize, row: &mut [Texel]| {
            // The one z of `zs` whose slot row this is (|zs| <= window), if any.
            let z = z0 + (slot_row as i64 - z0.rem_euclid(w)).rem_euclid(w);
            if !zs.contains(&z) {
                return;
            }
            // Slots advance with x and wrap once at most (|xs| <= window): no division per texel.
            let mut slot = xs.start.rem_euclid(w) as usize;
            for x in xs.clone() {
                row[slot] = texel(x, z);
                slot += 1;
                if slot == row.len() {
                    slot = 0;
                }
            }
        };
        let count = (xs.end - xs.start) as usize * (zs.end - zs.start) as usize;
        self.written[layer].note(self.window, &xs, &zs);
        let rows = &mut rest[0];
        if count >= PARALLEL_TEXELS {
            rows.par_chunks_mut(self.window)
                .enumerate()
                .for_each(|(r, row)| fill_row(r, row));
        } else {
            rows.chunks_mut(self.window)
                .enumerate()
                .for_each(|(r, row)| fill_row(r, row));
        }
    }
}

/// Sample-layer indices whose (clamped) source sample lies in `[start, start + len)` of `size` samples:
/// beyond the terrain's edges every slot repeats the edge sample.
/// `r` grown by `by` samples on every side, kept inside the terrain's `size` (None: endless).
fn grow(r: SampleRect, by: usize, size: Option<[usize; 2]>) -> SampleRect {
    let b = by as i64;
    let (mut x0, mut z0) = (r.x - b, r.z - b);
    let (mut x1, mut z1) = (r.x + r.w as i64 + b, r.z + r.d as i64 + b);
    if let Some([w, d]) = size {
        (x0, z0) = (x0.max(0), z0.max(0));
        (x1, z1) = (x1.min(w as i64), z1.min(d as i64));
    }
    SampleRect {
        x: x0,
        z: z0,
        w: (x1 - x0).max(0) as usize,
        d: (z1 - z0).max(0) as usize,
    }
}

/// Sample-layer indices whose (clamped) source sample lies in `[start, start + len)`: beyond a finite
/// terrain's edges every slot repeats the edge sample, so a range touching an edge reaches past it.
fn fine_range(start: i64, len: usize, size: Option<usize>) -> Range<i64> {
    let end = start + len as i64;
    let lo = if size.is_some() && start <= 0 {
        i64::MIN
    } else {
        start
    };
    let hi = match size {
        Some(s) if end >= s as i64 => i64::MAX,
        _ => end,
    };
    lo..hi
}

/// Lattice indices (world step `u`, axis `axis` of the frame) whose texel depends on samples in
/// `[start, start + len)`: the patch at sample-space `s` reads the samples `floor(s) - 1 ..= floor(s) + 2`
/// (corners and their slope neighbours), so terrain positions in `[(start - 1.5), (start + len + 1.5)) *
/// spacing` are affected — everything beyond an edge the range touches, as sampling clamps there.
fn lattice_range(
    start: i64,
    len: usize,
    size: Option<usize>,
    spacing: f64,
    frame: &Frame,
    axis: usize,
    u: f64,
) -> Range<i64> {
    let end = start + len as i64;
    let lo = if size.is_some() && start <= 0 {
        f64::NEG_INFINITY
    } else {
        (start as f64 - 1.5) * spacing
    };
    let hi = match size {
        Some(s) if end >= s as i64 => f64::INFINITY,
        _ => (end as f64 + 1.5) * spacing,
    };
    let (a, b) = (
        (lo * frame.scale[axis] + frame.origin[axis]) / u,
        (hi * frame.scale[axis] + frame.origin[axis]) / u,
    );
    let (a, b) = (a.min(b), a.max(b));
    // One index of slack on each side against rounding; `as i64` saturates the infinite ends.
    (a.floor() as i64).saturating_sub(1)..(b.ceil() as i64).saturating_add(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::GPU_HOLE;
    use crate::terrain_data::TerrainData;

    fn rough(w: usize, d: usize) -> TerrainData {
        crate::test_terrains::Waves {
            x: (0.37, 5.0),
            z: (0.23, 3.0),
            jitter: (13, 0.1),
        }
        .terrain(w, d, 1.0)
    }

    /// Every slot of every valid window holds what a fresh computation gives.
    fn assert_consistent(cd: &ClipmapData, t: &TerrainData, frame: &Frame) {
        let mut fresh = cd.clone();
        fresh.origins = cd.origins.clone();
        let w = cd.window as i64;
        for layer in 0..cd.layer_count() {
            let Some(o) = cd.origins[layer] else { continue };
            fresh.fill(layer, t, frame, o[0]..o[0] + w, o[1]..o[1] + w);
            assert_eq!(cd.layers[layer], fresh.layers[layer], "layer {layer}");
        }
    }

    #[test]
    fn lattice_texels_are_exact_heights_and_levels_agree() {
        let cfg = ClipmapConfig::new(4, 3, 1.0).unwrap();
        let t = rough(64, 48);
        let frame = Frame::default();
        let mut cd = ClipmapData::new(&cfg);
        assert_eq!(cd.follow(&t, &frame, [30.3, 20.7]), 0b1111);
        let w = cd.window as i64;
        for level in 0..3usize {
            let o = cd.origin(level).unwrap();
            let u = cfg.scale(level as u32);
            for gz in o[1]..o[1] + w {
                for gx in o[0]..o[0] + w {
                    let slot = (gz.rem_euclid(w) * w + gx.rem_euclid(w)) as usize;
                    let [h, sx, sz, _] = cd.layer(level)[slot];
                    assert_eq!(h, t.height_at(gx as f64 * u, gz as f64 * u));
                    // Copied (decimated) texels have the bits of a direct computation.
                    let (_, du, dv) = t.patch_gradient(gx as f64 * u - 0.5, gz as f64 * u - 0.5);
                    let k = u as f32 * THIRD;
                    assert_eq!((sx, sz), (du * k, dv * k));
                }
            }
        }
        // A vertex shared by levels 0 and 1 holds the same bits in both layers.
        let (o0, o1) = (cd.origin(0).unwrap(), cd.origin(1).unwrap());
        let g1 = [o1[0] + 8, o1[1] + 9];
        let g0 = [g1[0] * 2, g1[1] * 2];
        assert!(g0[0] >= o0[0] && g0[0] < o0[0] + w && g0[1] >= o0[1] && g0[1] < o0[1] + w);
        let at = |l: usize, g: [i64; 2]| {
            cd.layer(l)[(g[1].rem_euclid(w) * w + g[0].rem_euclid(w)) as usize][0]
        };
        assert_eq!(at(0, g0).to_bits(), at(1, g1).to_bits());
    }

    #[test]
    fn moving_updates_only_new_rows_and_stays_consistent() {
        let cfg = ClipmapConfig::new(4, 4, 0.5).unwrap();
        let t = rough(80, 80);
        let frame = Frame {
            origin: [3.0, 1.0, -2.0],
            scale: [1.5, 2.0, 1.5],
        };
        let mut cd = ClipmapData::new(&cfg);
        cd.follow(&t, &frame, [20.0, 20.0]);
        let mut p = [20.0, 20.0];
        for step in 0..40 {
            p = [p[0] + 0.7 * (step as f64 * 0.3).cos(), p[1] - 0.9];
            cd.follow(&t, &frame, p);
            assert_consistent(&cd, &t, &frame);
        }
        // A jump beyond the window refills it.
        cd.follow(&t, &frame, [-300.0, 500.0]);
        assert_consistent(&cd, &t, &frame);
        // Standing still changes nothing.
        assert_eq!(cd.follow(&t, &frame, [-300.0, 500.0]), 0);
    }

    #[test]
    fn refresh_after_an_edit_matches_a_full_recompute() {
        let cfg = ClipmapConfig::new(4, 4, 1.0).unwrap();
        let frame = Frame::default();
        for &(x, z, w, d) in &[
            (20, 22, 5, 3),
            (0, 30, 4, 4),
            (60, 60, 4, 4),
            (10, 0, 50, 2),
        ] {
            let mut t = rough(64, 64);
            let mut cd = ClipmapData::new(&cfg);
            cd.follow(&t, &frame, [25.0, 27.0]);
            let r = t.region(x, z, w, d).unwrap();
            let vals: Vec<f32> = (0..r.w * r.d).map(|i| 40.0 - i as f32).collect();
            let grown = t.set_heights_region(r, &vals).unwrap();
            cd.refresh(&t, &frame, grown);
            assert_consistent(&cd, &t, &frame);
        }
    }

    #[test]
    fn holes_reach_the_windows() {
        let cfg = ClipmapConfig::new(4, 3, 1.0).unwrap();
        let frame = Frame::default();
        let mut t = rough(64, 64);
        let mut cd = ClipmapData::new(&cfg);
        cd.follow(&t, &frame, [30.0, 30.0]);
        let r = t.region(28, 29, 4, 3).unwrap();
        let grown = t.set_holes_region(r, &[1; 12]).unwrap();
        cd.refresh(&t, &frame, grown);
        assert_consistent(&cd, &t, &frame);
        let w = cd.window() as i64;
        let fine = cd.fine_layer();
        let at = |l: usize, x: i64, z: i64| {
            cd.layer(l)[(z.rem_euclid(w) * w + x.rem_euclid(w)) as usize]
        };
        assert_eq!(at(fine, 29, 30)[3], GPU_HOLE as f32);
        assert_eq!(at(fine, 27, 30)[3], 0.0);
        // Level 0's lattice point (30, 31) is inside the hole (samples 28..31 x 29..31), (20, 20) is not.
        assert!(t.height_at(30.0, 31.0).is_nan());
        assert_eq!(at(0, 30, 31)[3], GPU_HOLE as f32);
        assert_eq!(at(0, 20, 20)[3], 0.0);
        assert!(at(0, 30, 31)[0].is_finite(), "vertices keep a height");
    }

    #[test]
    fn far_and_non_finite_targets_do_not_overflow() {
        let cfg = ClipmapConfig::new(4, 3, 1.0).unwrap();
        let mut t = rough(16, 16);
        t.set_holes_region(t.region(2, 2, 2, 2).unwrap(), &[1; 4])
            .unwrap();
        let mut cd = ClipmapData::new(&cfg);
        for p in [
            [1e30, -1e30],
            [f64::NAN, 0.0],
            [f64::INFINITY, 1.0],
            [-1e300, 5.0],
            [3.0, 3.0],
        ] {
            cd.follow(&t, &Frame::default(), p);
            cd.refresh(&t, &Frame::default(), t.all());
        }
        for p in [[1e300, 1e300], [-1e300, 1.0], [f64::MAX, f64::MIN]] {
            let _ = (
                t.height_at(p[0], p[1]),
                t.normal_at(p[0], p[1]),
                t.is_hole_all_around(p[0], p[1]),
            );
        }
    }

    /// Every slot whose texel differs from `before` lies in a written rectangle of its layer (or the layer
    /// is written whole); returns the written share of the layers' slots.
    fn assert_written_covers(cd: &ClipmapData, before: &ClipmapData) -> f64 {
        let w = cd.window();
        let mut written = 0usize;
        for l in 0..cd.layer_count() {
            let wr = cd.written(l);
            let inside = |x: usize, z: usize| {
                wr.whole
                    || wr.rects.iter().any(|r| {
                        (r.x as usize..(r.x + r.w) as usize).contains(&x)
                            && (r.z as usize..(r.z + r.d) as usize).contains(&z)
                    })
            };
            for z in 0..w {
                for x in 0..w {
                    let (a, b) = (cd.layer(l)[z * w + x], before.layer(l)[z * w + x]);
                    let same = a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits());
                    assert!(
                        same || inside(x, z),
                        "layer {l} slot ({x}, {z}) changed unnoted"
                    );
                    written += usize::from(inside(x, z));
                }
            }
            for r in &wr.rects {
                assert!(
                    r.w > 0 && r.d > 0 && (r.x + r.w) as usize <= w && (r.z + r.d) as usize <= w
                );
            }
        }
        written as f64 / (cd.layer_count() * w * w) as f64
    }

    #[test]
    fn written_rectangles_cover_every_change_and_little_else() {
        let cfg = ClipmapConfig::new(8, 4, 1.0).unwrap();
        let mut t = rough(200, 200);
        let frame = Frame::default();
        let mut cd = ClipmapData::new(&cfg);
        cd.follow(&t, &frame, [60.0, 60.0]);
        assert!(
            (0..cd.layer_count()).all(|l| cd.written(l).whole),
            "a first fill is whole"
        );
        cd.clear_written();
        assert!((0..cd.layer_count()).all(|l| cd.written(l).is_empty()));
        // Small moves (wrapping round the window as they go): strips only.
        let mut p = [60.0, 60.0];
        for step in 0..30 {
            let before = cd.clone();
            p = [p[0] + 1.3, p[1] - 0.8 * (step as f64 * 0.4).cos()];
            cd.follow(&t, &frame, p);
            let share = assert_written_covers(&cd, &before);
            assert!(share < 0.2, "step {step}: {share} of the slots written");
            cd.clear_written();
        }
        // An edit: its footprint on each level.
        let before = cd.clone();
        let r = t.region(70, 40, 6, 5).unwrap();
        let grown = t.set_heights_region(r, &[9.0; 30]).unwrap();
        cd.refresh(&t, &frame, grown);
        let share = assert_written_covers(&cd, &before);
        assert!(
            share > 0.0 && share < 0.05,
            "an edit writes {share} of the slots"
        );
        // A jump: every layer whole.
        cd.clear_written();
        let before = cd.clone();
        cd.follow(&t, &frame, [-500.0, 900.0]);
        assert_written_covers(&cd, &before);
        assert!((0..cd.layer_count()).all(|l| cd.written(l).whole));
    }

    #[test]
    fn memory_is_bounded_by_the_view() {
        let cfg = ClipmapConfig::new(32, 7, 1.0).unwrap();
        let cd = ClipmapData::new(&cfg);
        // 8 layers of 134² texels of 16 bytes, whatever the terrain's size.
        assert_eq!(cd.bytes(), 8 * 134 * 134 * 16);
    }
}
