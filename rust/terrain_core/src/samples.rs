//! The sample grid a clipmap's data windows are computed from: heights on a grid of `spacing`, their
//! slopes, paint and holes. A `TerrainData` is a finite grid (indices clamp at its edges); a generator
//! (`generation::Generated`) is an endless one whose samples are computed where they are needed. Both give
//! the surface through the same Bézier patch maths, so whatever the source, `get_height` is what is drawn.

use crate::bezier_patch::{self, Texel};
use crate::control::HOLE;

/// The slope of a sample from its neighbours below and above: the central difference scaled to a third of
/// a sample. Every path (texel, patch corners, slope pass) uses this one function, so they agree bit for bit.
#[inline(always)]
pub(crate) fn slope(lo: f32, hi: f32) -> f32 {
    (hi - lo) * (1.0 / 6.0)
}

/// The four corner texels of a patch from the 4 x 4 block of heights around it (rows along Z, columns
/// along X; the block's own corners are not read): `texel`'s arithmetic, so every source that reads a block
/// at once (a TerrainData inside its grid, a region, a generator) gives the bits of the texel path.
#[inline(always)]
pub(crate) fn block_texels(r: &[[f32; 4]; 4]) -> [Texel; 4] {
    let t = slope;
    [
        [r[1][1], t(r[1][0], r[1][2]), t(r[0][1], r[2][1])],
        [r[1][2], t(r[1][1], r[1][3]), t(r[0][2], r[2][2])],
        [r[2][1], t(r[2][0], r[2][2]), t(r[1][1], r[3][1])],
        [r[2][2], t(r[2][1], r[2][3]), t(r[1][2], r[3][2])],
    ]
}

/// The four corner texels of the patch whose lower corner is the sample at index `at` of a row-major grid
/// of `width` samples a row, reading its 4 x 4 block of heights at once (the caller checks that the block
/// lies inside the grid): every source that stores rows of heights (a TerrainData, a region, a block)
/// reads a patch this way.
#[inline(always)]
pub(crate) fn grid_texels(heights: &[f32], width: usize, at: usize) -> [Texel; 4] {
    let row = |o: usize| -> [f32; 4] {
        let r = &heights[o - 1..o + 3];
        [r[0], r[1], r[2], r[3]]
    };
    block_texels(&[
        row(at - width),
        row(at),
        row(at + width),
        row(at + 2 * width),
    ])
}

/// A grid of samples, readable from any thread.
/// Where sample `i` lies along an axis: its centre, `(i + 0.5) × spacing`. The one sample-centre rule
/// (brushes, stamps, the raycast, navigation and water place samples by it).
#[inline]
pub fn sample_centre(i: f64, spacing: f64) -> f64 {
    (i + 0.5) * spacing
}

/// The fractional sample index at position `p` along an axis: `sample_centre`'s inverse.
#[inline]
pub fn sample_index(p: f64, spacing: f64) -> f64 {
    p / spacing - 0.5
}

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
        bezier_patch::control_bounds(&corners(ix, iz, |x, z| self.texel(x, z)))
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

    /// Heights and control values of samples `x0 .. x0 + w` × `z0 .. z0 + d` (inside a finite grid),
    /// row-major, into `heights` and `control` (cleared first; `control` stays empty when every value is 0).
    /// Sources with a cheaper bulk read (a cursor over region files, rows of a stored grid) override it.
    fn read_block(
        &self,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
        heights: &mut Vec<f32>,
        control: &mut Vec<u32>,
    ) {
        heights.clear();
        control.clear();
        let mut painted = false;
        for j in 0..d as i64 {
            for i in 0..w as i64 {
                let (x, z) = (x0.saturating_add(i), z0.saturating_add(j));
                heights.push(self.texel(x, z)[0]);
                let c = self.control(x, z);
                painted |= c != 0;
                control.push(c);
            }
        }
        if !painted {
            control.clear();
        }
    }
}

/// A copy of a grid's samples over a rectangle: heights and control values, plus what the grid's reads
/// need (its size for clamping, spacing, whether rows are stored). It answers every `Samples` read inside
/// the rectangle with the source's own bits (the same clamping, the same texel and patch arithmetic), so
/// the collision workers compute tiles from it while the source is being edited, and a generator's
/// fractal is evaluated once per sample instead of twelve times per collision point. Reads outside the
/// rectangle are clamped into it: size it with a margin (`collision::Tiling::tile_block`).
#[derive(Clone, Debug, Default)]
pub struct SampleBlock {
    /// First sample (x, z) of the rectangle.
    origin: [i64; 2],
    w: usize,
    d: usize,
    /// The source's size (None: endless, no clamping).
    size: Option<[usize; 2]>,
    spacing: f64,
    heights: Vec<f32>,
    /// Empty: every value 0.
    control: Vec<u32>,
    bounds: (f32, f32),
    /// Whether the source gives rows of stored samples (a collision grid of subdivision 1 copies them).
    rows: bool,
}

impl SampleBlock {
    /// Copies samples `x0 .. x0 + w` × `z0 .. z0 + d` of `source` (the part inside a finite grid).
    pub fn copy<S: Samples + ?Sized>(source: &S, x0: i64, z0: i64, w: usize, d: usize) -> Self {
        let mut b = Self::default();
        b.copy_from(source, x0, z0, w, d);
        b
    }

    /// `copy` into this block's buffers.
    pub fn copy_from<S: Samples + ?Sized>(
        &mut self,
        source: &S,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
    ) {
        let (mut x0, mut z0, mut x1, mut z1) = (
            x0,
            z0,
            x0.saturating_add(w as i64),
            z0.saturating_add(d as i64),
        );
        if let Some([sw, sd]) = source.size() {
            let (sw, sd) = (sw as i64, sd as i64);
            x0 = x0.clamp(0, sw - 1);
            z0 = z0.clamp(0, sd - 1);
            x1 = x1.clamp(x0 + 1, sw);
            z1 = z1.clamp(z0 + 1, sd);
        }
        let (w, d) = ((x1 - x0).max(1) as usize, (z1 - z0).max(1) as usize);
        source.read_block(x0, z0, w, d, &mut self.heights, &mut self.control);
        self.origin = [x0, z0];
        (self.w, self.d) = (w, d);
        self.size = source.size();
        self.spacing = source.spacing();
        self.bounds = source.height_bounds();
        self.rows = self.size.is_some() && source.sample_row(x0 as usize, z0 as usize, 1).is_some();
    }

    /// The rectangle's first sample and its size.
    pub fn rect(&self) -> ([i64; 2], [usize; 2]) {
        (self.origin, [self.w, self.d])
    }

    /// Sample (x, z) clamped to the source's grid: the index every read of a finite grid starts from.
    #[inline(always)]
    fn grid(&self, x: i64, z: i64) -> (i64, i64) {
        match self.size {
            Some([w, d]) => (x.clamp(0, w as i64 - 1), z.clamp(0, d as i64 - 1)),
            None => (x, z),
        }
    }

    /// Index in the buffers of grid sample (x, z), clamped into the rectangle.
    #[inline(always)]
    fn index(&self, x: i64, z: i64) -> usize {
        let i = (x.saturating_sub(self.origin[0])).clamp(0, self.w as i64 - 1) as usize;
        let j = (z.saturating_sub(self.origin[1])).clamp(0, self.d as i64 - 1) as usize;
        j * self.w + i
    }

    #[inline(always)]
    fn height(&self, x: i64, z: i64) -> f32 {
        self.heights[self.index(x, z)]
    }

    /// The patch's corner texels: where its 4 x 4 block of heights needs no clamping (inside the grid and
    /// the rectangle) read at once, with `TerrainData`'s arithmetic; else through `texel`. Same bits.
    #[inline(always)]
    fn patch(&self, sx: f64, sz: f64) -> ([Texel; 4], f32, f32) {
        let ([ix, iz], tu, tv) = bezier_patch::locate(sx, sz);
        let inside_grid = match self.size {
            Some([w, d]) => ix >= 1 && iz >= 1 && ix < w as i64 - 2 && iz < d as i64 - 2,
            None => true,
        };
        let (bx, bz) = (
            ix.wrapping_sub(self.origin[0]),
            iz.wrapping_sub(self.origin[1]),
        );
        if inside_grid && bx >= 1 && bz >= 1 && bx + 2 < self.w as i64 && bz + 2 < self.d as i64 {
            let at = bz as usize * self.w + bx as usize;
            return (grid_texels(&self.heights, self.w, at), tu, tv);
        }
        patch_of(self, sx, sz)
    }
}

impl Samples for SampleBlock {
    fn spacing(&self) -> f64 {
        self.spacing
    }
    /// `TerrainData::texel`'s rule (neighbours clamped to the grid; none to clamp for an endless source).
    #[inline]
    fn texel(&self, x: i64, z: i64) -> Texel {
        let (x, z) = self.grid(x, z);
        let n = |x: i64, z: i64| {
            let (x, z) = self.grid(x, z);
            self.height(x, z)
        };
        let h = self.height(x, z);
        let sx = slope(n(x.saturating_sub(1), z), n(x.saturating_add(1), z));
        let sz = slope(n(x, z.saturating_sub(1)), n(x, z.saturating_add(1)));
        [h, sx, sz]
    }
    fn control(&self, x: i64, z: i64) -> u32 {
        if self.control.is_empty() {
            return 0;
        }
        let (x, z) = self.grid(x, z);
        self.control[self.index(x, z)]
    }
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        let (c, tu, tv) = self.patch(sx, sz);
        bezier_patch::gradient_in_patch(&c, tu, tv)
    }
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        let (c, tu, tv) = self.patch(sx, sz);
        bezier_patch::height_in_patch(&c, tu, tv)
    }
    fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool {
        if self.control.is_empty() || !(sx.is_finite() && sz.is_finite()) {
            return false;
        }
        hole_rule(self, sx, sz)
    }
    fn size(&self) -> Option<[usize; 2]> {
        self.size
    }
    fn height_bounds(&self) -> (f32, f32) {
        self.bounds
    }
    fn sample_row(&self, x0: usize, z: usize, len: usize) -> Option<&[f32]> {
        if !self.rows || !self.control.is_empty() {
            return None;
        }
        let i = (x0 as i64).checked_sub(self.origin[0])?;
        let j = (z as i64).checked_sub(self.origin[1])?;
        let (i, j) = (usize::try_from(i).ok()?, usize::try_from(j).ok()?);
        if i + len > self.w || j >= self.d {
            return None;
        }
        self.heights.get(j * self.w + i..j * self.w + i + len)
    }
}

/// The four corner texels of the patch at sample-space (sx, sz) through `texel` (the arithmetic every
/// source's patch has), and its local parameters.
#[inline]
pub(crate) fn patch_of<S: Samples + ?Sized>(s: &S, sx: f64, sz: f64) -> ([Texel; 4], f32, f32) {
    let ([ix, iz], tu, tv) = bezier_patch::locate(sx, sz);
    (corners(ix, iz, |x, z| s.texel(x, z)), tu, tv)
}

/// The texels of the patch whose lower corner is sample (ix, iz), in patch order, through `texel`.
#[inline]
pub(crate) fn corners(ix: i64, iz: i64, mut texel: impl FnMut(i64, i64) -> Texel) -> [Texel; 4] {
    let (ix1, iz1) = (ix.saturating_add(1), iz.saturating_add(1));
    [
        texel(ix, iz),
        texel(ix1, iz),
        texel(ix, iz1),
        texel(ix1, iz1),
    ]
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

/// Whether sample-space point (sx, sz) is cleared (`control::CLEAR` on a sample around it: a path's
/// verge): instances there are hidden and detail does not grow.
pub fn is_cleared<S: Samples + ?Sized>(s: &S, sx: f64, sz: f64) -> bool {
    let (c, _) = s.control_corners(sx, sz);
    c.iter().any(|c| c & crate::control::CLEAR != 0)
}

/// Whether terrain position (x, z) is on the grid's samples: finite and within [0, size × spacing] on a
/// finite grid (beyond it `height_at` answers the nearest edge's height), anywhere on an endless one.
pub fn is_inside<S: Samples + ?Sized>(s: &S, x: f64, z: f64) -> bool {
    let sp = s.spacing();
    let inside = |v: f64, n: Option<usize>| {
        v.is_finite() && n.is_none_or(|n| v >= 0.0 && v <= n as f64 * sp)
    };
    let size = s.size();
    inside(x, size.map(|[w, _]| w)) && inside(z, size.map(|[_, d]| d))
}

/// Height at terrain position (x, z) of any grid: the patch, NaN in a hole or for a non-finite position
/// (`TerrainData::height_at`'s rule).
#[inline]
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
#[inline]
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
