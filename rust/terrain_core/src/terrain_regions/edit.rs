//! Editing a region map: heights and control values set in rectangles (the regions they touch are copied
//! on write, kept in memory as dirty — never evicted — and the coarser mips over the rectangle are
//! box-filtered again at once, so far rings follow too), `save` writing only the dirty regions (each file
//! safely, the header last), `discard_changes`. Regions that cannot be read are stand-ins of holes,
//! reported once.

use super::files::{file, write_le};
use super::{Key, Region, RegionError, TerrainRegions};
use crate::control::HOLE;
use crate::progress::Progress;
use crate::terrain_data::MAX_HEIGHT_VALUE;
use crate::terrain_edit::TerrainEdit;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A dirty region in a save's snapshot: its key, whether its heights and its control values changed.
pub(super) type Dirty = (Key, (bool, bool), Arc<Region>);

/// What an edit changes: heights, control values.
pub(super) const HEIGHTS: (bool, bool) = (true, false);
const CONTROL: (bool, bool) = (false, true);

/// Regions that could not be read, and those not reported yet.
/// `region_states` values.
pub const REGION_ABSENT: u8 = 0;
pub const REGION_LOADED: u8 = 1;
pub const REGION_EDITED: u8 = 2;
pub const REGION_FAILED: u8 = 3;

#[derive(Default)]
pub(super) struct Failures {
    known: HashMap<Key, RegionError>,
    unreported: Vec<(Key, String)>,
}

impl TerrainRegions {
    /// Lowest and highest height, edits included.
    pub fn bounds(&self) -> (f32, f32) {
        *self.bounds.lock().expect("bounds")
    }

    /// Whether any sample may hold paint or a hole.
    pub fn has_control(&self) -> bool {
        self.has_control.load(Ordering::Relaxed)
    }

    /// `has_control`, after reading the mip-0 region holding sample (x, z) (it may fail and become holes).
    pub(super) fn has_control_at(&self, x: i64, z: i64) -> bool {
        if !self.has_control() {
            let _ = self.region(self.key(0, x, z));
        }
        self.has_control()
    }

    /// The failure of region `key`, if it failed before.
    pub(super) fn failure(&self, key: Key) -> Option<RegionError> {
        let f = self.failed.lock().expect("failures");
        f.known.get(&key).cloned()
    }

    /// Records a region that cannot be read and returns its stand-in: holes at the lowest height.
    pub(super) fn failed(&self, key: Key, e: RegionError) -> Region {
        let mut f = self.failed.lock().expect("failures");
        if !f.known.contains_key(&key) {
            f.unreported.push((key, e.to_string()));
            f.known.insert(key, e);
        }
        self.has_control.store(true, Ordering::Relaxed);
        let [w, d] = self.meta.region_dims(key.0, key.1, key.2);
        Region {
            width: w,
            heights: vec![self.meta.range.0; w * d],
            control: if key.0 == 0 {
                vec![HOLE; w * d]
            } else {
                Vec::new()
            },
        }
    }

    /// Failures not reported yet: (mip, region x, region z, message naming the file).
    pub fn take_failures(&self) -> Vec<(u32, usize, usize, String)> {
        let mut f = self.failed.lock().expect("failures");
        f.unreported
            .drain(..)
            .map(|((m, x, z), e)| (m, x, z, e))
            .collect()
    }

    /// The state of the mip-0 regions `(x0 + i, z0 + j)` (region indices counted from the query origin,
    /// see `RegionMeta::origin`) for i < `w`, j < `d` (row-major into `out`):
    /// `REGION_ABSENT` outside the map or not in memory, `REGION_LOADED`, `REGION_EDITED` (unsaved) or
    /// `REGION_FAILED` (damaged: drawn as holes). For the region-cache debug view.
    pub fn region_states(&self, x0: i64, z0: i64, w: usize, d: usize, out: &mut Vec<u8>) {
        out.clear();
        out.resize(w * d, REGION_ABSENT);
        let [rw, rd] = self.meta.regions(0);
        let r = self.meta.region as i64;
        let (x0, z0) = (x0 - self.meta.origin[0] / r, z0 - self.meta.origin[1] / r);
        let cache = self.cache.lock().expect("cache");
        let failed = self.failed.lock().expect("failures");
        for (k, s) in out.iter_mut().enumerate() {
            let (x, z) = (x0 + (k % w) as i64, z0 + (k / w) as i64);
            if !(0..rw as i64).contains(&x) || !(0..rd as i64).contains(&z) {
                continue;
            }
            let key = (0, x as usize, z as usize);
            *s = if failed.known.contains_key(&key) {
                REGION_FAILED
            } else if cache.dirty.contains_key(&key) {
                REGION_EDITED
            } else if cache.map.contains_key(&key) {
                REGION_LOADED
            } else {
                REGION_ABSENT
            };
        }
    }

    /// Whether any edit is not saved (cheap: no stale mip is refreshed to answer). On a generator-backed
    /// map the finest level decides: its coarser levels are refreshed from it (before a save, or from the
    /// saved record of stale levels, `saved_stale.rs`). A map stored whole saves its coarser levels too.
    pub fn has_unsaved(&self) -> bool {
        let c = self.cache.lock().expect("cache");
        if self.is_generated() {
            c.dirty.keys().any(|k| k.0 == 0)
        } else {
            self.stale_any.load(Ordering::Acquire) || !c.dirty.is_empty()
        }
    }

    /// Regions edited and not saved: of the finest level on a generator-backed map (its coarser levels
    /// follow them), of every level on a map stored whole (the coarser ones still to refresh included).
    /// Nothing is refreshed to count them: the editor's toolbar asks every frame.
    pub fn dirty_regions(&self) -> usize {
        if self.is_generated() {
            let c = self.cache.lock().expect("cache");
            return c.dirty.keys().filter(|k| k.0 == 0).count();
        }
        if !self.stale_any.load(Ordering::Acquire) {
            return self.cache.lock().expect("cache").dirty.len();
        }
        let mut keys = self.stale_mip_regions();
        keys.extend(self.cache.lock().expect("cache").dirty.keys());
        keys.len()
    }

    /// Checks an edit's rectangle and value count; the rectangle must lie inside the map.
    fn check_rect(
        &self,
        x: usize,
        z: usize,
        w: usize,
        d: usize,
        n: usize,
    ) -> Result<(), RegionError> {
        let (mw, md) = (self.meta.width, self.meta.depth);
        if w == 0 || d == 0 || x + w > mw || z + d > md {
            return Err(RegionError::Invalid(format!(
                "region ({x}, {z}) size ({w}, {d}) must be non-empty and inside the map of {mw} x {md} samples"
            )));
        }
        if n != w * d {
            return Err(RegionError::Invalid(format!(
                "the region holds {} samples, got {n} values",
                w * d
            )));
        }
        Ok(())
    }

    /// Sets the heights of a rectangle of mip 0 (row-major values, finite, within ±1e9) and refreshes
    /// the coarser mips over it. Nothing changes on error.
    pub fn set_heights_region(
        &self,
        x: usize,
        z: usize,
        w: usize,
        d: usize,
        values: &[f32],
    ) -> Result<(), RegionError> {
        self.check_rect(x, z, w, d, values.len())?;
        if let Some(i) = values
            .iter()
            .position(|v| !v.is_finite() || v.abs() > MAX_HEIGHT_VALUE)
        {
            return Err(RegionError::Invalid(format!(
                "heights must be finite, within ±{MAX_HEIGHT_VALUE}; value {i} is {}",
                values[i]
            )));
        }
        let _gate = self.edit_gate.read().expect("edit gate");
        self.edit(0, x, z, w, d, HEIGHTS, |r, i, k| r.heights[i] = values[k])?;
        let (lo, hi) = values
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        {
            let mut b = self.bounds.lock().expect("bounds");
            *b = (b.0.min(lo), b.1.max(hi));
        }
        self.mips_changed(x, z, w, d);
        Ok(())
    }

    /// Sets the control values (paint and hole bit) of a rectangle of mip 0.
    pub fn set_control_region(
        &self,
        x: usize,
        z: usize,
        w: usize,
        d: usize,
        values: &[u32],
    ) -> Result<(), RegionError> {
        self.check_rect(x, z, w, d, values.len())?;
        if values.iter().any(|&v| v != 0) {
            self.has_control.store(true, Ordering::Relaxed);
        }
        self.edit(0, x, z, w, d, CONTROL, |r, i, k| {
            if r.control.is_empty() {
                r.control = vec![0; r.heights.len()];
            }
            r.control[i] = values[k];
        })
    }

    /// Applies `f(region, index in region, index in the rectangle)` to every sample of a rectangle of
    /// mip `m`: each region touched is loaded first (all of them, so a region that cannot be read
    /// changes nothing), then copied on write and marked dirty in `part` (`HEIGHTS` or `CONTROL`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn edit(
        &self,
        m: u32,
        x: usize,
        z: usize,
        w: usize,
        d: usize,
        part: (bool, bool),
        f: impl Fn(&mut Region, usize, usize),
    ) -> Result<(), RegionError> {
        let r = self.meta.region;
        let keys: Vec<Key> = (z / r..=(z + d - 1) / r)
            .flat_map(|rz| (x / r..=(x + w - 1) / r).map(move |rx| (m, rx, rz)))
            .collect();
        let mut loaded = Vec::with_capacity(keys.len());
        for &k in &keys {
            // As it is now: level m is the one being written (a refresh of stale mips writes level m).
            let reg = self.load(k)?;
            if let Some(e) = self.failure(k) {
                return Err(e);
            }
            loaded.push(reg);
        }
        let mut c = self.cache.lock().expect("cache");
        for (&key, reg) in keys.iter().zip(loaded) {
            c.clock += 1;
            let now = c.clock;
            let (_, rx, rz) = key;
            // The loaded handle goes first: a region nobody else reads is then edited in place.
            let (mut region, counted) = match c.map.remove(&key) {
                Some((cur, _)) => {
                    drop(reg);
                    (cur, true)
                }
                None => (reg, false),
            };
            let before = if counted { region.bytes() } else { 0 };
            let body = Arc::make_mut(&mut region);
            let (x0, z0) = (rx * r, rz * r);
            for j in z.max(z0)..(z + d).min(z0 + body.heights.len() / body.width) {
                for i in x.max(x0)..(x + w).min(x0 + body.width) {
                    f(
                        body,
                        (j - z0) * body.width + (i - x0),
                        (j - z) * w + (i - x),
                    );
                }
            }
            c.bytes = c.bytes - before + region.bytes();
            c.map.insert(key, (region, now));
            let e = c.dirty.entry(key).or_insert((false, false));
            *e = (e.0 || part.0, e.1 || part.1);
        }
        Ok(())
    }

    /// Writes the dirty regions (heights, and control where painted) and then the header, each file
    /// safely; returns how many regions were written. Regions edited again while saving stay dirty.
    pub fn save(&self) -> Result<usize, RegionError> {
        self.save_counting(&Progress::default())
    }

    /// `save`, counting in `progress`. A map stored whole refreshes the stale rectangles of its coarser
    /// levels first (its saved files equal a whole save of the edited map); a generator-backed map writes
    /// the record of them instead (`saved_stale.rs`: an endless map's first save after an edit would
    /// generate a region at every level). Then each region is written. Safe beside edits on other
    /// threads: what it writes is a snapshot.
    pub fn save_counting(&self, progress: &Progress) -> Result<usize, RegionError> {
        if self.is_generated() {
            return self.save_deferring_mips(progress);
        }
        let dirty = self.cache.lock().expect("cache").dirty.len();
        let stale = self.stale_rect_count();
        progress.set_total((stale + dirty + self.stale_mip_regions().len()) as u64);
        self.settle_mips_counting(self.meta.mips - 1, Some(progress))?;
        let snapshot = self.dirty_snapshot();
        if snapshot.is_empty() {
            progress.set_total(progress.done());
            return Ok(0);
        }
        // The count of regions is known now (refreshing made the coarser ones dirty).
        progress.set_total(progress.done() + snapshot.len() as u64);
        self.write_snapshot(&snapshot, progress)?;
        self.finish_save(&snapshot)
    }

    /// The dirty regions as they are now, in key order.
    pub(super) fn dirty_snapshot(&self) -> Vec<Dirty> {
        let c = self.cache.lock().expect("cache");
        let mut v: Vec<_> = c
            .dirty
            .iter()
            .filter_map(|(k, p)| c.map.get(k).map(|(r, _)| (*k, *p, r.clone())))
            .collect();
        v.sort_by_key(|(k, _, _)| *k);
        v
    }

    /// Writes the snapshot's regions (what changed of each), counting them in `progress`.
    pub(super) fn write_snapshot(
        &self,
        snapshot: &[Dirty],
        progress: &Progress,
    ) -> Result<(), RegionError> {
        for ((m, rx, rz), (heights, control), r) in snapshot {
            if *heights {
                write_le(
                    &file(&self.dir, 'h', *m, *rx, *rz),
                    &r.heights,
                    f32::to_le_bytes,
                )?;
            }
            if *control && *m == 0 && !r.control.is_empty() {
                write_le(
                    &file(&self.dir, 'c', 0, *rx, *rz),
                    &r.control,
                    u32::to_le_bytes,
                )?;
            }
            progress.add(1);
        }
        Ok(())
    }

    /// Writes the header last and marks the snapshot's regions saved (unless edited again meanwhile).
    pub(super) fn finish_save(&self, snapshot: &[Dirty]) -> Result<usize, RegionError> {
        let mut meta = self.meta;
        meta.range = self.bounds();
        meta.has_control = self.has_control();
        meta.write(&self.dir)?;
        // The renames above reach the disk with the folder's own entry.
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        let mut c = self.cache.lock().expect("cache");
        for (k, _, r) in snapshot {
            if c.map.get(k).is_some_and(|(cur, _)| Arc::ptr_eq(cur, r)) {
                c.dirty.remove(k);
            }
        }
        drop(c);
        self.evict();
        Ok(snapshot.len())
    }

    /// Forgets every unsaved edit: the regions are read from their files again when next needed. Returns
    /// the stored samples (x, z, w, d) of the mip-0 regions forgotten, None when nothing was unsaved.
    pub fn discard_changes(&self) -> Option<[usize; 4]> {
        let _stale = self.forget_stale_mips();
        let mut c = self.cache.lock().expect("cache");
        let dirty: Vec<Key> = c.dirty.drain().map(|(k, _)| k).collect();
        let mut span: Option<[usize; 4]> = None;
        let r = self.meta.region;
        for k in dirty {
            if let Some((reg, _)) = c.map.remove(&k) {
                c.bytes -= reg.bytes();
            }
            if k.0 == 0 {
                let [w, d] = self.meta.region_dims(0, k.1, k.2);
                let (x0, z0) = (k.1 * r, k.2 * r);
                span = Some(span.map_or([x0, z0, x0 + w, z0 + d], |s| {
                    [
                        s[0].min(x0),
                        s[1].min(z0),
                        s[2].max(x0 + w),
                        s[3].max(z0 + d),
                    ]
                }));
            }
        }
        drop(c);
        let saved = super::RegionMeta::read(&self.dir).unwrap_or(self.meta);
        *self.bounds.lock().expect("bounds") = saved.range;
        let failed = !self.failed.lock().expect("failures").known.is_empty();
        self.has_control
            .store(saved.has_control || failed, Ordering::Relaxed);
        drop(_stale);
        // What the last save left stale is stale again (its refreshed regions were forgotten above).
        self.restore_saved_stale();
        span.map(|[x0, z0, x1, z1]| [x0, z0, x1 - x0, z1 - z0])
    }
}

#[cfg(test)]
mod tests;

impl TerrainRegions {
    /// A stored rectangle in the map's own (public) coordinates, for the edit contract's calls.
    fn public_rect(
        &self,
        x: usize,
        z: usize,
        w: usize,
        d: usize,
    ) -> crate::sample_rect::SampleRect {
        crate::sample_rect::SampleRect {
            x: self.meta.public(0, x),
            z: self.meta.public(1, z),
            w,
            d,
        }
    }

    /// Marks (1) or clears (0) holes in a rectangle, as `TerrainData::set_holes_region`.
    pub fn set_holes_region(
        &self,
        x: usize,
        z: usize,
        w: usize,
        d: usize,
        holes: &[u8],
    ) -> Result<(), RegionError> {
        self.check_rect(x, z, w, d, w * d)?;
        let r = self.public_rect(x, z, w, d);
        TerrainEdit::set_holes(&mut &*self, r, holes)
            .map(|_| ())
            .map_err(edit_error)
    }

    /// Paints a layer's weights in a rectangle, as `TerrainData::set_layer_region`.
    pub fn set_layer_region(
        &self,
        x: usize,
        z: usize,
        w: usize,
        d: usize,
        layer: i64,
        weights: &[f32],
    ) -> Result<(), RegionError> {
        self.check_rect(x, z, w, d, w * d)?;
        let r = self.public_rect(x, z, w, d);
        TerrainEdit::set_layer(&mut &*self, r, layer, weights)
            .map(|_| ())
            .map_err(edit_error)
    }
}

/// An edit refused by the contract's rules, as the map's own error.
fn edit_error(e: crate::terrain_edit::EditError) -> RegionError {
    match e {
        crate::terrain_edit::EditError::Regions(e) => e,
        e => RegionError::Invalid(e.to_string()),
    }
}
