//! The sample grid a clipmap's data windows are computed from: heights on a grid of `spacing`, their
//! slopes, paint and holes. A `TerrainData` is a finite grid (indices clamp at its edges); a generator
//! (`generation::Generated`) is an endless one whose samples are computed where they are needed. Both give
//! the surface through the same Bézier patch maths, so whatever the source, `get_height` is what is drawn.

use crate::bezier_patch::{self, Texel};
use crate::terrain_data::{TerrainData, HOLE};

/// A grid of samples, readable from any thread.
pub trait Samples: Sync {
    /// Distance between samples, in terrain units.
    fn spacing(&self) -> f64;
    /// (height, slope x, slope z) of sample (x, z) (`terrain_data::slope` from its neighbours).
    fn texel(&self, x: i64, z: i64) -> Texel;
    /// Control value (`material`'s paint and hole bit) of sample (x, z); 0 = unpainted.
    fn control(&self, x: i64, z: i64) -> u32;
    /// Height and its derivatives per sample unit at sample-space point (sx, sz) (holes ignored).
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32);
    /// Height at sample-space point (sx, sz) (holes ignored).
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        self.patch_gradient(sx, sz).0
    }
    /// Whether sample-space point (sx, sz) lies in a hole triangle.
    fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool;
    /// Samples per side (X, Z) of a finite grid; None for an endless one.
    fn size(&self) -> Option<[usize; 2]>;

    /// Lowest and highest sample height (an endless source: the most its samples can reach).
    fn height_bounds(&self) -> (f32, f32);

    /// Lowest and highest control height of the patch whose lower corner is sample (ix, iz): its surface
    /// lies between them.
    fn patch_bounds(&self, ix: i64, iz: i64) -> (f32, f32) {
        let (ix1, iz1) = (ix.saturating_add(1), iz.saturating_add(1));
        let c = [
            self.texel(ix, iz),
            self.texel(ix1, iz),
            self.texel(ix, iz1),
            self.texel(ix1, iz1),
        ];
        bezier_patch::control_bounds(&c)
    }

    /// Heights at sample-space points (sx(i), sz) for every `out[i]`, NaN where every triangle around a
    /// point is a hole (`is_hole_all_around`): a collision grid's row.
    fn patch_heights(&self, sz: f64, sx: &dyn Fn(usize) -> f64, out: &mut [f32]) {
        for (i, o) in out.iter_mut().enumerate() {
            let x = sx(i);
            *o = if self.is_hole_all_around(x, sz) {
                f32::NAN
            } else {
                self.patch_height(x, sz)
            };
        }
    }

    /// Whether samples are computed or read on demand (a generator, region files) rather than held in
    /// memory: then nothing should ask for all of them (e.g. collision for every tile).
    fn streamed(&self) -> bool {
        false
    }

    /// A coarser grid to draw clipmap levels whose lattice step spans `step` samples from (stored mip
    /// levels of a region folder); None: this grid itself.
    fn coarse(&self, _step: f64) -> Option<Box<dyn Samples + '_>> {
        None
    }

    /// Heights of samples `x0 .. x0 + len` of row `z`, when they are stored and there is no hole (a
    /// collision grid copies them); None to compute them through the patch instead.
    fn sample_row(&self, _x0: usize, _z: usize, _len: usize) -> Option<&[f32]> {
        None
    }

    /// Whether every triangle touching sample-space point (sx, sz) is a hole: the points a collision grid
    /// may set to NaN without opening ground that is drawn (probes just around the point reach each
    /// triangle that touches it).
    fn is_hole_all_around(&self, sx: f64, sz: f64) -> bool {
        const E: f64 = 1e-6;
        const PROBES: [(f64, f64); 8] = [
            (2.0, 1.0),
            (1.0, 2.0),
            (-1.0, 2.0),
            (-2.0, 1.0),
            (-2.0, -1.0),
            (-1.0, -2.0),
            (1.0, -2.0),
            (2.0, -1.0),
        ];
        self.is_hole_at_sample(sx, sz)
            && PROBES
                .iter()
                .all(|&(dx, dz)| self.is_hole_at_sample(sx + dx * E, sz + dz * E))
    }

    /// The control values of the four samples around sample-space point (sx, sz) and the point's offsets
    /// from the first: what a pixel's layer blend is made of.
    fn control_corners(&self, sx: f64, sz: f64) -> ([u32; 4], [f32; 2]) {
        let ([ix, iz], tu, tv) = bezier_patch::locate(sx, sz);
        let (ix1, iz1) = (ix.saturating_add(1), iz.saturating_add(1));
        let c = [
            self.control(ix, iz),
            self.control(ix1, iz),
            self.control(ix, iz1),
            self.control(ix1, iz1),
        ];
        (c, [tu, tv])
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
}

/// `TerrainData`'s hole rule over any grid's control values: the square between four samples is split
/// along its (x + 1, z)–(x, z + 1) diagonal and a triangle with a hole sample at a corner is a hole.
pub fn hole_rule<S: Samples + ?Sized>(s: &S, sx: f64, sz: f64) -> bool {
    let ([ix, iz], tu, tv) = bezier_patch::locate(sx, sz);
    let h = |x, z| s.control(x, z) & HOLE != 0;
    let (ix1, iz1) = (ix.saturating_add(1), iz.saturating_add(1));
    if tu + tv < 1.0 {
        h(ix, iz) || h(ix1, iz) || h(ix, iz1)
    } else {
        h(ix1, iz) || h(ix, iz1) || h(ix1, iz1)
    }
}

/// Height at terrain position (x, z) of any grid: the patch, NaN in a hole or for a non-finite position
/// (`TerrainData::height_at`'s rule).
pub fn height_at<S: Samples + ?Sized>(s: &S, x: f64, z: f64) -> f32 {
    if !(x.is_finite() && z.is_finite()) {
        return f32::NAN;
    }
    let sp = s.spacing();
    let (sx, sz) = (x / sp - 0.5, z / sp - 0.5);
    if s.is_hole_at_sample(sx, sz) {
        return f32::NAN;
    }
    s.patch_height(sx, sz)
}

/// Height and its derivatives per terrain unit at terrain position (x, z); NaN for a non-finite position.
pub fn height_and_gradient_at<S: Samples + ?Sized>(s: &S, x: f64, z: f64) -> (f32, f32, f32) {
    if !(x.is_finite() && z.is_finite()) {
        return (f32::NAN, f32::NAN, f32::NAN);
    }
    let sp = s.spacing();
    let (h, hu, hv) = s.patch_gradient(x / sp - 0.5, z / sp - 0.5);
    (h, hu / sp as f32, hv / sp as f32)
}

/// Unit normal at terrain position (x, z).
pub fn normal_at<S: Samples + ?Sized>(s: &S, x: f64, z: f64) -> [f32; 3] {
    if !(x.is_finite() && z.is_finite()) {
        return [f32::NAN; 3];
    }
    let (_, gx, gz) = height_and_gradient_at(s, x, z);
    bezier_patch::normal_from_gradient(gx, gz)
}
