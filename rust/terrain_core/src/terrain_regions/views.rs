//! Reading a region folder as sample grids: `MipView` (one mip level) and `Samples` for the whole map,
//! through a cursor that keeps the last region it touched.

use super::{Key, Region, TerrainRegions};
use crate::bezier_patch::{self, Texel};
use crate::samples::Samples;
use crate::samples::{corners, grid_texels, slope};
use std::sync::Arc;

/// One mip level of a region folder, read as a sample grid.
pub struct MipView<'a> {
    pub(super) store: &'a TerrainRegions,
    pub(super) mip: u32,
    /// Whether reads refresh stale mips first (all but the refresh's own reads).
    pub(super) settle: bool,
}

/// Reads samples of a mip, keeping the last region it touched (most reads fall in the same region, so the
/// cache's lock is taken once per region rather than once per sample).
pub(super) struct Cursor<'v, 'a> {
    view: &'v MipView<'a>,
    last: Option<(Key, Arc<Region>)>,
}

impl<'v, 'a> Cursor<'v, 'a> {
    pub(super) fn new(view: &'v MipView<'a>) -> Self {
        Self { view, last: None }
    }

    /// Region holding clamped sample (x, z) and the index inside it. A region that cannot be read (a file
    /// removed or damaged after opening) reads as flat ground at the map's lowest height.
    #[inline]
    pub(super) fn locate(&mut self, x: i64, z: i64) -> Option<(&Region, usize)> {
        let s = self.view.store;
        let key = s.key(self.view.mip, x, z);
        if self.last.as_ref().map(|l| l.0) != Some(key) {
            let r = if self.view.settle {
                s.region(key)
            } else {
                s.load(key)
            }
            .ok()?;
            self.last = Some((key, r));
        }
        let [w, d] = s.meta.mip_size(self.view.mip);
        let x = x.clamp(0, w as i64 - 1) as usize % s.meta.region;
        let z = z.clamp(0, d as i64 - 1) as usize % s.meta.region;
        let r = &self.last.as_ref().expect("set above").1;
        Some((r, z * r.width + x))
    }

    #[inline]
    pub(super) fn height(&mut self, x: i64, z: i64) -> f32 {
        let lo = self.view.store.meta.range.0;
        self.locate(x, z).map_or(lo, |(r, i)| r.heights[i])
    }

    /// `TerrainData::texel`'s rule: the sample clamped to the grid, its neighbours clamped again.
    #[inline]
    fn texel(&mut self, x: i64, z: i64) -> Texel {
        let [w, d] = self.view.store.meta.mip_size(self.view.mip);
        let (wl, dl) = (w as i64 - 1, d as i64 - 1);
        let (x, z) = (x.clamp(0, wl), z.clamp(0, dl));
        let h = self.height(x, z);
        let sx = slope(
            self.height((x - 1).max(0), z),
            self.height((x + 1).min(wl), z),
        );
        let sz = slope(
            self.height(x, (z - 1).max(0)),
            self.height(x, (z + 1).min(dl)),
        );
        [h, sx, sz]
    }

    fn patch(&mut self, sx: f64, sz: f64) -> ([Texel; 4], f32, f32) {
        let ([ix, iz], tu, tv) = bezier_patch::locate(sx, sz);
        let meta = &self.view.store.meta;
        let [w, d] = meta.mip_size(self.view.mip).map(|v| v as i64);
        let r = meta.region as i64;
        let inside = ix >= 1 && iz >= 1 && ix < w - 2 && iz < d - 2;
        if inside && (ix - 1) / r == (ix + 2) / r && (iz - 1) / r == (iz + 2) / r {
            // The 4 x 4 block around the patch lies in one region: read it once, with the arithmetic of
            // `TerrainData`'s patch (the same bits as the texel path).
            if let Some((reg, i)) = self.locate(ix, iz) {
                return (grid_texels(&reg.heights, reg.width, i), tu, tv);
            }
        }
        (corners(ix, iz, |x, z| self.texel(x, z)), tu, tv)
    }
}

impl MipView<'_> {
    /// Stored index of this mip's sample at query index 0 subtracted: `origin / 2^mip` (exact, an endless
    /// map's origin being a multiple of every mip's step).
    fn shift(&self) -> [i64; 2] {
        self.store.meta.origin.map(|o| o >> self.mip)
    }
}

/// Query coordinates in, stored ones to the cursor: an endless map's samples are signed around the origin.
impl Samples for MipView<'_> {
    fn spacing(&self) -> f64 {
        self.store.meta.spacing * f64::from(1u32 << self.mip)
    }
    fn texel(&self, x: i64, z: i64) -> Texel {
        let [ox, oz] = self.shift();
        Cursor::new(self).texel(x - ox, z - oz)
    }
    fn control(&self, x: i64, z: i64) -> u32 {
        let [ox, oz] = self.shift();
        let (x, z) = (x - ox, z - oz);
        if self.mip != 0 || !self.store.has_control_at(x, z) {
            return 0;
        }
        let mut c = Cursor::new(self);
        c.locate(x, z)
            .map_or(0, |(r, i)| r.control.get(i).copied().unwrap_or(0))
    }
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        let [ox, oz] = self.shift();
        let (c, tu, tv) = Cursor::new(self).patch(sx - ox as f64, sz - oz as f64);
        bezier_patch::gradient_in_patch(&c, tu, tv)
    }
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        let [ox, oz] = self.shift();
        let (c, tu, tv) = Cursor::new(self).patch(sx - ox as f64, sz - oz as f64);
        bezier_patch::height_in_patch(&c, tu, tv)
    }
    fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool {
        if self.mip != 0 || !(sx.is_finite() && sz.is_finite()) {
            return false;
        }
        // The region under the sample is read first: one that cannot be read turns into holes.
        let [ox, oz] = self.shift();
        if !self
            .store
            .has_control_at(sx.floor() as i64 - ox, sz.floor() as i64 - oz)
        {
            return false;
        }
        crate::samples::hole_rule(self, sx, sz)
    }
    fn size(&self) -> Option<[usize; 2]> {
        (!self.store.meta.endless).then(|| self.store.meta.mip_size(self.mip))
    }
    fn height_bounds(&self) -> (f32, f32) {
        self.store.bounds()
    }
}

/// The folder as a sample grid: mip 0 for queries, coarser mips for coarse clipmap levels.
impl Samples for TerrainRegions {
    fn patch_heights(&self, sz: f64, sx: &dyn Fn(usize) -> f64, out: &mut [f32]) {
        let view = self.mip(0);
        if self.has_control() {
            // Holes need the control values: the general path.
            return Samples::patch_heights(&view, sz, sx, out);
        }
        // One cursor for the row: the cache's lock once per region instead of once per point.
        let mut cur = Cursor::new(&view);
        let [ox, oz] = self.meta.origin.map(|o| o as f64);
        for (i, o) in out.iter_mut().enumerate() {
            let (c, tu, tv) = cur.patch(sx(i) - ox, sz - oz);
            *o = bezier_patch::height_in_patch(&c, tu, tv);
        }
    }
    fn spacing(&self) -> f64 {
        self.meta.spacing
    }
    fn texel(&self, x: i64, z: i64) -> Texel {
        self.mip(0).texel(x, z)
    }
    fn control(&self, x: i64, z: i64) -> u32 {
        self.mip(0).control(x, z)
    }
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        self.mip(0).patch_gradient(sx, sz)
    }
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        self.mip(0).patch_height(sx, sz)
    }
    fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool {
        self.mip(0).is_hole_at_sample(sx, sz)
    }
    fn size(&self) -> Option<[usize; 2]> {
        (!self.meta.endless).then_some([self.meta.width, self.meta.depth])
    }
    fn streamed(&self) -> bool {
        true
    }
    fn height_bounds(&self) -> (f32, f32) {
        self.bounds()
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
        // One cursor for the block: the cache's lock once per region instead of once per sample.
        let view = self.mip(0);
        let mut cur = Cursor::new(&view);
        let (x0, z0) = (self.meta.stored(0, x0), self.meta.stored(1, z0));
        heights.clear();
        control.clear();
        for j in 0..d as i64 {
            for i in 0..w as i64 {
                heights.push(cur.height(x0 + i, z0 + j));
            }
        }
        if self.has_control() {
            for j in 0..d as i64 {
                for i in 0..w as i64 {
                    let c = cur.locate(x0 + i, z0 + j);
                    control.push(c.map_or(0, |(r, k)| r.control.get(k).copied().unwrap_or(0)));
                }
            }
        }
    }
    fn coarse(&self, step: f64) -> Option<Box<dyn Samples + '_>> {
        // A lattice step of 2^k samples reads mip k - 1: two mip samples per step keep the far rings'
        // shape while each ring touches only a few regions.
        let k = step.max(1.0).log2().floor() as i64 - 1;
        let m = k.clamp(0, i64::from(self.meta.mips) - 1) as u32;
        (m > 0).then(|| Box::new(self.mip(m)) as Box<dyn Samples + '_>)
    }
}
