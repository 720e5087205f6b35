//! Where collision is finest: tiles near a target and its path ahead take `collision_tolerance`, tiles
//! farther out `FAR_FACTOR` times it. A physics engine's cost is in the points it is handed (Jolt builds
//! a compressed height field from them, ~70 ns a point), and on hilly ground a 1 cm tolerance keeps every
//! point of subdivision 4; the bodies that need centimetres stand near the target. A coarse tile the
//! target comes near is made again at the near tolerance on the workers (it stays collidable meanwhile,
//! within the far tolerance), never on the main thread.

use crate::collision::{TileId, Tiling};
use std::collections::HashSet;

/// Far tiles' tolerance, as a multiple of `collision_tolerance` (1 cm near, 10 cm far by default).
pub const FAR_FACTOR: f32 = 10.0;

/// Share of `collision_radius` around the target (and its path ahead) where tiles take the near tolerance.
pub const NEAR_SHARE: f64 = 0.25;

/// The near band of one update: the segment from the target to where it is heading, and how far from it
/// a tile's nearest point may lie (terrain units).
#[derive(Clone, Copy)]
pub struct Reach {
    pub from: [f64; 2],
    pub to: [f64; 2],
    pub reach: f64,
    pub spacing: f64,
}

impl Reach {
    /// Whether tile `id` lies (partly) within the near band.
    pub fn is_near(&self, tiling: &Tiling, id: TileId) -> bool {
        let (c, _) = tiling.placement(self.spacing, id);
        // The tile's half diagonal: a tile whose corner is in reach counts.
        let half = tiling.tile_cells() as f64 * self.spacing * std::f64::consts::FRAC_1_SQRT_2;
        segment_distance(c, self.from, self.to) - half <= self.reach
    }
}

/// Whether tile `id` lies within the near band of any target.
pub fn near_any(reaches: &[Reach], tiling: &Tiling, id: TileId) -> bool {
    reaches.iter().any(|r| r.is_near(tiling, id))
}

/// Which tiles were asked for (or made) at the far tolerance, and which of them are being made again
/// at the near one.
#[derive(Default)]
pub struct Bands {
    coarse: HashSet<TileId>,
    refining: HashSet<TileId>,
}

impl Bands {
    pub fn clear(&mut self) {
        self.coarse.clear();
        self.refining.clear();
    }

    /// Tile `id` was asked for at the far tolerance (`far`) or the near one.
    pub fn asked(&mut self, id: TileId, far: bool) {
        if far {
            self.coarse.insert(id);
        } else {
            self.coarse.remove(&id);
        }
    }

    /// Tile `id`'s new grid is in place.
    pub fn written(&mut self, id: &TileId) {
        self.refining.remove(id);
    }

    /// An edit reached the tiles `hit` holds: they are edited now, not merely refined (the tile under
    /// the target is then made at once).
    pub fn edited(&mut self, hit: impl Fn(&TileId) -> bool) {
        self.refining.retain(|id| !hit(id));
    }

    /// Keeps only the tiles `keep` holds (the others were dropped).
    pub fn retain(&mut self, keep: impl Fn(&TileId) -> bool) {
        self.coarse.retain(&keep);
        self.refining.retain(&keep);
    }

    /// Whether tile `id` waits only to be refined (its coarse grid stays in place meanwhile).
    pub fn is_refining(&self, id: &TileId) -> bool {
        self.refining.contains(id)
    }

    /// The coarse tiles in place that came within a target's `near` band (into `out`), but those `edited` holds (they are
    /// made again anyway): the caller touches them so they are made again, at the near tolerance.
    pub fn take_near(
        &mut self,
        used: &HashSet<TileId>,
        tiling: &Tiling,
        near: &[Reach],
        edited: impl Fn(&TileId) -> bool,
        out: &mut Vec<TileId>,
    ) {
        out.clear();
        // Only the tiles around each band (many targets: walking every coarse tile for each was most of a
        // tick's cost).
        for r in near {
            let half = tiling.tile_cells() as f64 * r.spacing * std::f64::consts::FRAC_1_SQRT_2;
            let c = [(r.from[0] + r.to[0]) * 0.5, (r.from[1] + r.to[1]) * 0.5];
            let len = (r.to[0] - r.from[0]).hypot(r.to[1] - r.from[1]);
            out.extend(
                tiling
                    .tiles_near(r.spacing, c, 0.5 * len + r.reach + half)
                    .filter(|id| self.coarse.contains(id) && used.contains(id) && !edited(id))
                    .filter(|id| r.is_near(tiling, *id)),
            );
        }
        out.sort_unstable();
        out.dedup();
        for id in out.iter() {
            self.coarse.remove(id);
            self.refining.insert(*id);
        }
    }
}

/// Distance from point `c` to the segment from `p` to `a`.
pub fn segment_distance(c: [f64; 2], p: [f64; 2], a: [f64; 2]) -> f64 {
    let (dx, dz) = (a[0] - p[0], a[1] - p[1]);
    let len2 = dx * dx + dz * dz;
    let t = if len2 > 0.0 {
        (((c[0] - p[0]) * dx + (c[1] - p[1]) * dz) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (c[0] - p[0] - t * dx).hypot(c[1] - p[1] - t * dz)
}

/// `ids` split by band, each part keeping its order: the near tiles with `near` (the near tolerance's
/// tiling), then the far ones with the far tiling of `bands` (the third item: whether far); near is
/// within any target's band. Without bands every tile is near.
pub fn by_band<'a>(
    near: &Tiling,
    bands: Option<(Tiling, &[Reach])>,
    ids: &'a mut [TileId],
) -> [(&'a [TileId], Tiling, bool); 2] {
    let (split, far) = match bands {
        Some((far, reach)) => (
            partition_in_place(ids, |id| near_any(reach, near, *id)),
            far,
        ),
        None => (ids.len(), *near),
    };
    let (a, b) = ids.split_at(split);
    [(a, *near, false), (b, far, true)]
}

/// Moves the items `front` holds to the front, each part keeping its order; returns how many there are.
fn partition_in_place(v: &mut [TileId], front: impl Fn(&TileId) -> bool) -> usize {
    let mut n = 0;
    for i in 0..v.len() {
        if front(&v[i]) {
            v[n..=i].rotate_right(1);
            n += 1;
        }
    }
    n
}
