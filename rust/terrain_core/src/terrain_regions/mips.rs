//! The coarser mips of an edited region map, refreshed off the editing thread. An edit of mip 0 only
//! notes, per coarser level, the rectangle it changed; the level is box-filtered again over it by the
//! background lane (`refresh_mips_in_background`), or first by whatever reads that level before (a far
//! clipmap ring on a worker, a save). So an edit costs the caller its own samples, not a region at every
//! level: an endless map's first edit in a new place read a region at each of its 16 levels (1 s on the
//! main thread).

use super::{Key, RegionError, TerrainRegions};
use crate::progress::Progress;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A rectangle of mip-0 samples, `[x0, z0, x1, z1]` inclusive.
pub(super) type Rect = [usize; 4];

/// Rectangles each coarser level must be box-filtered again over; `levels[m]` is for level m (index 0
/// unused). Two rectangles of a level are joined when their union at that level costs little more than
/// both: a brush stroke's dabs become one rectangle, far-apart edits stay apart.
#[derive(Default)]
pub(super) struct StaleMips {
    levels: Vec<Vec<Rect>>,
}

/// Extra samples a joined rectangle may cover at its level beyond the two it replaces.
const JOIN_SLACK: usize = 4096;

impl StaleMips {
    fn add(&mut self, mips: u32, r: Rect) {
        for m in 1..mips as usize {
            self.add_at(mips, m, r);
        }
    }

    /// Lists `r` as stale at level `m` only, joined with the level's rectangles where that is cheap.
    fn add_at(&mut self, mips: u32, m: usize, mut r: Rect) {
        self.levels.resize_with(mips as usize, Vec::new);
        let list = &mut self.levels[m];
        // Join with every rectangle that makes a cheap union, until none does.
        while let Some(i) = list.iter().position(|&o| cheap_union(m, o, r)) {
            r = union(list.swap_remove(i), r);
        }
        list.push(r);
    }

    fn is_empty(&self) -> bool {
        self.levels.iter().all(Vec::is_empty)
    }
}

/// Samples a mip-0 rectangle covers at level `m`.
fn area(m: usize, [x0, z0, x1, z1]: Rect) -> usize {
    ((x1 >> m) - (x0 >> m) + 1) * ((z1 >> m) - (z0 >> m) + 1)
}

fn union(a: Rect, b: Rect) -> Rect {
    [
        a[0].min(b[0]),
        a[1].min(b[1]),
        a[2].max(b[2]),
        a[3].max(b[3]),
    ]
}

fn cheap_union(m: usize, a: Rect, b: Rect) -> bool {
    area(m, union(a, b)) <= area(m, a) + area(m, b) + JOIN_SLACK
}

impl TerrainRegions {
    /// Notes that mip 0 changed over `w × d` samples at (x, z): every coarser level is stale there.
    pub(super) fn mips_changed(&self, x: usize, z: usize, w: usize, d: usize) {
        if self.meta.mips < 2 {
            return;
        }
        let mut s = self.stale.lock().expect("stale mips");
        s.add(self.meta.mips, [x, z, x + w - 1, z + d - 1]);
        self.stale_any.store(true, Ordering::Release);
    }

    /// Brings levels 1..=`m` up to date (reads of level m call this first). One refresh at a time: a
    /// second reader waits for current samples rather than reading half-refreshed ones. The stale list
    /// itself is held only to take a rectangle, so an edit never waits for a refresh.
    pub(super) fn settle_mips(&self, m: u32) -> Result<(), RegionError> {
        self.settle_mips_counting(m, None)
    }

    /// `settle_mips`, adding one to `progress` per rectangle refreshed (a save's progress).
    pub(super) fn settle_mips_counting(
        &self,
        m: u32,
        progress: Option<&Progress>,
    ) -> Result<(), RegionError> {
        if m == 0 || !self.stale_any.load(Ordering::Acquire) {
            return Ok(());
        }
        let _one = self.settling.lock().expect("mips refresh");
        loop {
            match self.refresh_next(m as usize) {
                None => return Ok(()),
                // Kept for the next read: nothing is lost, and the error reaches this reader.
                Some(Err(e)) => return Err(e),
                Some(Ok(())) => {
                    if let Some(p) = progress {
                        p.add(1);
                    }
                }
            }
        }
    }

    /// Every stale rectangle with its level (what a generator-backed map's save records).
    pub(super) fn stale_list(&self) -> Vec<(usize, Rect)> {
        let s = self.stale.lock().expect("stale mips");
        let levels = s.levels.iter().enumerate().skip(1);
        levels
            .flat_map(|(m, l)| l.iter().map(move |&r| (m, r)))
            .collect()
    }

    /// Lists rectangles of the given levels as stale (levels past the map's last are left out).
    pub(super) fn mark_stale(&self, list: &[(usize, Rect)]) {
        let mips = self.meta.mips;
        let mut s = self.stale.lock().expect("stale mips");
        for &(m, r) in list.iter().filter(|(m, _)| *m < mips as usize) {
            s.add_at(mips, m, r);
        }
        self.stale_any.store(!s.is_empty(), Ordering::Release);
    }

    /// Stale rectangles listed, all levels (what a save refreshes first).
    pub(super) fn stale_rect_count(&self) -> usize {
        let s = self.stale.lock().expect("stale mips");
        s.levels.iter().map(Vec::len).sum()
    }

    /// Refreshes a stale rectangle of the finest stale level up to `top` (the finest first: a coarser
    /// level is filtered from it); None when none is left there. The caller holds `settling`. The rectangle
    /// stays listed until it is refreshed, so a count of unsaved regions never misses it.
    fn refresh_next(&self, top: usize) -> Option<Result<(), RegionError>> {
        let (level, r) = {
            let s = self.stale.lock().expect("stale mips");
            let top = top.min(s.levels.len().saturating_sub(1));
            match (1..=top).find(|&l| !s.levels[l].is_empty()) {
                Some(l) => (l, *s.levels[l].last().expect("found above")),
                None => {
                    if s.is_empty() {
                        self.stale_any.store(false, Ordering::Release);
                    }
                    return None;
                }
            }
        };
        let res = self.refresh_level(level as u32, r);
        if res.is_ok() {
            // Unless an edit meanwhile joined it into a bigger one (refreshed again later).
            let mut s = self.stale.lock().expect("stale mips");
            if let Some(i) = s.levels[level].iter().position(|&o| o == r) {
                s.levels[level].swap_remove(i);
            }
        }
        Some(res)
    }

    /// The regions of coarser levels that stale rectangles cover (they become dirty when refreshed).
    pub(super) fn stale_mip_regions(&self) -> HashSet<Key> {
        let s = self.stale.lock().expect("stale mips");
        let r = self.meta.region;
        let mut keys = HashSet::new();
        for (m, list) in s.levels.iter().enumerate().skip(1) {
            let [mw, md] = self.meta.mip_size(m as u32);
            for &[x0, z0, x1, z1] in list {
                let (x1, z1) = ((x1 >> m).min(mw - 1), (z1 >> m).min(md - 1));
                for rz in (z0 >> m) / r..=z1 / r {
                    keys.extend(((x0 >> m) / r..=x1 / r).map(|rx| (m as u32, rx, rz)));
                }
            }
        }
        keys
    }

    /// Refreshes the stale levels on the background lane (`workers`), a rectangle of a level per job, so
    /// that a save finds them done; the caller's thread pays nothing, and a far ring that reads a level
    /// meanwhile waits for one rectangle at most. One chain of jobs a map; it ends when nothing is stale.
    pub fn refresh_mips_in_background(self: &Arc<Self>) {
        if !self.stale_any.load(Ordering::Acquire) || self.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        let weak = Arc::downgrade(self);
        crate::workers::spawn_background(move || {
            let Some(map) = weak.upgrade() else {
                return;
            };
            let t0 = std::time::Instant::now();
            let step = map.settle_step();
            map.queued.store(false, Ordering::Release);
            // A quarter of a core at most: the workers computing collision and windows need the rest
            // (refreshed back to back, a fast flight's ground was late on 1 % of its physics ticks).
            let rest = t0.elapsed() * 3;
            drop(map);
            std::thread::sleep(rest);
            // The next rectangle, or an edit that came while `queued` was still set (nothing when none is
            // stale). A damaged region stops the chain: a read reports it.
            if let (Ok(()), Some(map)) = (step, weak.upgrade()) {
                map.refresh_mips_in_background();
            }
        });
    }

    /// Refreshes one stale rectangle of the finest stale level (none left: nothing stale any more).
    fn settle_step(&self) -> Result<(), RegionError> {
        let _one = self.settling.lock().expect("mips refresh");
        self.refresh_next(usize::MAX).unwrap_or(Ok(()))
    }

    /// Forgets the stale rectangles (the edits behind them are being discarded); returns the refresh
    /// lock, so that no refresh runs until the caller is done.
    pub(super) fn forget_stale_mips(&self) -> std::sync::MutexGuard<'_, ()> {
        let one = self.settling.lock().expect("mips refresh");
        self.stale.lock().expect("stale mips").levels.clear();
        self.stale_any.store(false, Ordering::Release);
        one
    }

    /// Box-filters level `m` again over the mip-0 rectangle `r` from level m − 1 as it is now (the sums of
    /// `downsample`, in its order).
    fn refresh_level(&self, m: u32, [x0, z0, x1, z1]: Rect) -> Result<(), RegionError> {
        let [mw, md] = self.meta.mip_size(m);
        let (x0, z0) = (x0 >> m, z0 >> m);
        let (x1, z1) = ((x1 >> m).min(mw - 1), (z1 >> m).min(md - 1));
        let [fw, fd] = self.meta.mip_size(m - 1);
        // The finer samples under the rectangle, read once (clamped at the finer level's edges).
        let (fx0, fz0) = (2 * x0, 2 * z0);
        let (fx1, fz1) = ((2 * x1 + 1).min(fw - 1), (2 * z1 + 1).min(fd - 1));
        let bw = fx1 - fx0 + 1;
        let fine = self.block(m - 1, fx0, fz0, bw, fz1 - fz0 + 1, false);
        let at = |a: usize, b: usize| fine[(b.min(fd - 1) - fz0) * bw + a.min(fw - 1) - fx0];
        let (cw, cd) = (x1 - x0 + 1, z1 - z0 + 1);
        let mut values = Vec::with_capacity(cw * cd);
        for j in z0..=z1 {
            for i in x0..=x1 {
                let (fx, fz) = (2 * i, 2 * j);
                let s = at(fx, fz) + at(fx + 1, fz) + at(fx, fz + 1) + at(fx + 1, fz + 1);
                values.push(s * 0.25);
            }
        }
        self.edit(m, x0, z0, cw, cd, super::edit::HEIGHTS, |r, i, k| {
            r.heights[i] = values[k]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{save, Existing, TerrainRegions};
    use crate::samples::Samples;
    use crate::terrain_data::TerrainData;

    fn map(name: &str) -> TerrainRegions {
        let dir = std::env::temp_dir().join(format!("wt_mips_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (w, d) = (300, 220);
        let h = (0..w * d)
            .map(|i| ((i % w) as f32 * 0.1).sin() * 7.0)
            .collect();
        let t = TerrainData::from_heights(w, d, 2.0, h).unwrap();
        save(&dir, &t, 64, Existing::Refuse).unwrap();
        TerrainRegions::open(&dir).unwrap()
    }

    #[test]
    fn an_edit_reads_no_coarser_level_until_one_is_read() {
        let r = map("lazy");
        assert!(r.meta.mips >= 3);
        let hs: Vec<f32> = (0..40 * 30).map(|i| 50.0 + (i % 13) as f32).collect();
        r.set_heights_region(110, 40, 40, 30, &hs).unwrap();
        // The four mip-0 regions under the edit (64² each), nothing coarser.
        assert_eq!(r.loads(), 4);
        let want = (hs[0] + hs[1] + hs[40] + hs[41]) * 0.25;
        assert_eq!(r.mip(1).texel(55, 20)[0], want);
        // Level 1 is current (its two regions under the edit read to write them), level 2 still waits.
        assert_eq!(r.loads(), 6);
        assert!(r.stale.lock().unwrap().levels[2].len() == 1);
        // The count of unsaved regions is the same before and after the refresh.
        let counted = r.dirty_regions();
        r.settle_mips(r.meta.mips - 1).unwrap();
        assert_eq!(r.dirty_regions(), counted);
        let want2 = {
            let m1 = r.mip(1);
            (m1.texel(56, 20)[0] + m1.texel(57, 20)[0] + m1.texel(56, 21)[0] + m1.texel(57, 21)[0])
                * 0.25
        };
        assert_eq!(r.mip(2).texel(28, 10)[0], want2);
        assert!(r.has_unsaved());
        r.save().unwrap();
        assert!(!r.has_unsaved() && r.stale.lock().unwrap().is_empty());
    }

    #[test]
    fn the_background_lane_refreshes_every_stale_level_and_reads_agree() {
        let r = std::sync::Arc::new(map("later"));
        let hs: Vec<f32> = (0..40 * 30).map(|i| 50.0 + (i % 13) as f32).collect();
        r.set_heights_region(110, 40, 40, 30, &hs).unwrap();
        r.set_heights_region(10, 150, 20, 20, &[3.0; 400]).unwrap();
        let counted = r.dirty_regions();
        r.refresh_mips_in_background();
        let t0 = std::time::Instant::now();
        while r.stale_any.load(std::sync::atomic::Ordering::Acquire) {
            assert!(
                t0.elapsed().as_secs() < 30,
                "the background lane never finished"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(r.stale.lock().unwrap().is_empty());
        assert_eq!(r.dirty_regions(), counted);
        let want = (hs[0] + hs[1] + hs[40] + hs[41]) * 0.25;
        assert_eq!(r.mip(1).texel(55, 20)[0], want);
    }

    #[test]
    fn a_strokes_dabs_make_one_rectangle_a_level_and_far_edits_stay_apart() {
        let r = map("join");
        for k in 0..50 {
            r.set_heights_region(20 + k * 2, 30 + k, 16, 16, &[9.0; 256])
                .unwrap();
        }
        r.set_heights_region(280, 200, 8, 8, &[3.0; 64]).unwrap();
        let s = r.stale.lock().unwrap();
        assert_eq!(
            s.levels[1].len(),
            2,
            "the stroke joined, the far edit apart"
        );
        drop(s);
        // Discarding forgets them: nothing is refreshed from edits that no longer exist.
        r.discard_changes();
        assert!(!r.has_unsaved() && r.stale.lock().unwrap().is_empty());
    }
}
