//! The lowest and highest height of a heightfield, kept current by edits without rescanning it.
//!
//! The nodes ask for the range on every change (culling boxes, the debug views), so it must be exact
//! after every edit. An edit that only adds values extends the range at once; one that overwrites the
//! lowest or highest sample (lowering the highest peak) can shrink it, and only then is the range
//! recomputed, from a table of per-tile ranges where only the tiles edited since the last recomputation
//! are scanned again (a 256² dab on 4096² scans about 25 tiles of 64², not 16 M samples).

use crate::sample_rect::Region;

/// Side of a range tile, in samples.
const TILE: usize = 64;

#[derive(Clone, Debug)]
pub struct HeightRange {
    range: (f32, f32),
    /// Tiles per row (of `TILE` samples, the last one short).
    cols: usize,
    /// Per tile: its lowest and highest sample, exact unless `stale`.
    tiles: Vec<(f32, f32)>,
    stale: Vec<bool>,
}

/// Two ranges are equal when they report the same range (the tile table is a cache).
impl PartialEq for HeightRange {
    fn eq(&self, other: &Self) -> bool {
        self.range == other.range
    }
}

/// Lowest and highest value, (INF, -INF) for none.
pub fn min_max(values: &[f32]) -> (f32, f32) {
    values
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        })
}

fn union(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    (a.0.min(b.0), a.1.max(b.1))
}

impl HeightRange {
    /// The range of `width × depth` row-major heights.
    pub fn of(heights: &[f32], width: usize, depth: usize) -> Self {
        let cols = width.div_ceil(TILE);
        let rows = depth.div_ceil(TILE);
        let mut r = Self {
            range: (f32::INFINITY, f32::NEG_INFINITY),
            cols,
            tiles: vec![(f32::INFINITY, f32::NEG_INFINITY); cols * rows],
            stale: vec![true; cols * rows],
        };
        r.rescan(heights, width);
        r
    }

    /// (lowest, highest); (INF, -INF) for no samples.
    pub fn get(&self) -> (f32, f32) {
        self.range
    }

    /// Takes an edit of `r`, whose new values span `written` and whose overwritten samples included the
    /// old lowest (`lost.0`) or highest (`lost.1`) value; `heights` are the heights after the edit.
    pub fn edited(
        &mut self,
        heights: &[f32],
        width: usize,
        r: Region,
        written: (f32, f32),
        lost: (bool, bool),
    ) {
        if r.is_empty() {
            return;
        }
        for tz in r.z / TILE..=(r.z + r.d - 1) / TILE {
            for tx in r.x / TILE..=(r.x + r.w - 1) / TILE {
                self.stale[tz * self.cols + tx] = true;
            }
        }
        let (lo, hi) = self.range;
        // An overwritten extreme matters only when the new values do not reach it again.
        if (lost.0 && written.0 > lo) || (lost.1 && written.1 < hi) {
            self.rescan(heights, width);
        } else {
            self.range = union(self.range, written);
        }
    }

    /// Scans the stale tiles and takes the range from the table.
    fn rescan(&mut self, heights: &[f32], width: usize) {
        let depth = heights.len() / width.max(1);
        for (i, t) in self.tiles.iter_mut().enumerate() {
            if !std::mem::take(&mut self.stale[i]) {
                continue;
            }
            let (x0, z0) = ((i % self.cols) * TILE, (i / self.cols) * TILE);
            let (x1, z1) = ((x0 + TILE).min(width), (z0 + TILE).min(depth));
            *t = (z0..z1).fold((f32::INFINITY, f32::NEG_INFINITY), |acc, z| {
                union(acc, min_max(&heights[z * width + x0..z * width + x1]))
            });
        }
        self.range = self
            .tiles
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |a, &t| union(a, t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random edits (raising and lowering the extremes among them) keep the range equal to a full scan.
    #[test]
    fn edits_keep_the_range_exact() {
        let (w, d) = (200, 130);
        let mut h: Vec<f32> = (0..w * d).map(|i| ((i * 37) % 101) as f32).collect();
        let mut range = HeightRange::of(&h, w, d);
        assert_eq!(range.get(), min_max(&h));
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for k in 0..400 {
            let (x, z) = (next(w), next(d));
            let r = Region {
                x,
                z,
                w: 1 + next(w - x),
                d: 1 + next(d - z),
            };
            let (lo, hi) = range.get();
            // Every fourth edit flattens to a value inside the range, so extremes get lost.
            let v = if k % 4 == 0 {
                (lo + hi) * 0.5
            } else {
                next(300) as f32 - 100.0
            };
            let mut lost = (false, false);
            for zz in r.z..r.z + r.d {
                for s in &mut h[zz * w + r.x..zz * w + r.x + r.w] {
                    lost.0 |= *s == lo;
                    lost.1 |= *s == hi;
                    *s = v;
                }
            }
            range.edited(&h, w, r, (v, v), lost);
            assert_eq!(range.get(), min_max(&h), "edit {k} of {r:?}");
        }
    }

    #[test]
    fn empty_heights_have_no_range() {
        let r = HeightRange::of(&[], 0, 0);
        assert_eq!(r.get(), (f32::INFINITY, f32::NEG_INFINITY));
    }
}
