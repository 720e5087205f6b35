//! Collision tiles: the drawn surface as height grids for the physics engine's heightmap shapes.
//!
//! A physics heightmap is linear between its points while the drawn surface is the Bézier patch, so the
//! grid samples the patch `subdivision` times per sample spacing: subdivision 1 uses the samples themselves
//! (the patch at a sample centre is the sample's height), 2 and 4 add points between them where the patch
//! bulges. Points sit at terrain positions `(0.5 + k / subdivision) * spacing` on each axis, so collision
//! covers the samples' hull `[0.5, size - 0.5] * spacing` (the drawn terrain reaches half a sample further).
//!
//! The terrain is cut into square tiles of `points - 1` grid cells (`(points - 1) / subdivision` sample
//! cells; `points` is a power of two plus one), each one heightmap shape, so an edit or a move rebuilds only
//! the tiles it touches, and a tile costs the same whatever the subdivision. Small tiles suit collision
//! around a moving target (a tile is quick to build); `Tiling::for_count` picks larger ones when a whole
//! terrain must fit a number of bodies (Jolt allows 10240 by default). Neighbouring tiles share their border points (same
//! positions, same heights), so there is no seam. Every tile is square (Jolt builds a real height field
//! only for square maps); points of the last tiles beyond the terrain are NaN, which both engines treat as
//! holes.

use crate::sample_rect::SampleRect;
use crate::samples::{SampleBlock, Samples};
use std::fmt;
use std::ops::Range;

/// Grid points per tile side of `Tiling::new` (a power of two plus one: Jolt builds square height fields in
/// blocks of two).
pub const TILE_POINTS: usize = 129;
/// Accepted subdivisions.
pub const SUBDIVISIONS: [u32; 3] = [1, 2, 4];

#[derive(Clone, Debug, PartialEq)]
pub enum CollisionError {
    Subdivision(i64),
    Radius(f64),
}

impl std::error::Error for CollisionError {}

impl fmt::Display for CollisionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Subdivision(v) => write!(f, "collision_subdivision must be 1, 2 or 4, got {v}"),
            Self::Radius(v) => write!(
                f,
                "collision_radius must be a finite number in (0, 100000], got {v}"
            ),
        }
    }
}

pub fn check_subdivision(v: i64) -> Result<u32, CollisionError> {
    SUBDIVISIONS
        .iter()
        .copied()
        .find(|&s| i64::from(s) == v)
        .ok_or(CollisionError::Subdivision(v))
}

pub fn check_radius(v: f64) -> Result<f64, CollisionError> {
    if v.is_finite() && v > 0.0 && v <= 1.0e5 {
        Ok(v)
    } else {
        Err(CollisionError::Radius(v))
    }
}

/// A tile's index (tile column, tile row).
pub type TileId = [usize; 2];

/// The tiling of a terrain for a subdivision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tiling {
    /// Sample cells of the terrain per axis (size - 1).
    cells: [usize; 2],
    /// Sample index where tile (0, 0) starts: 0 for a terrain; far below zero for an endless world, whose
    /// tiles then cover `ENDLESS_CELLS` samples a side around the origin.
    origin: [i64; 2],
    pub subdivision: u32,
    /// Sample cells per tile side.
    tile_cells: usize,
    /// Grid points per tile side.
    points: usize,
    /// Largest height difference (terrain units) a tile's grid may take from a coarser subdivision; 0:
    /// every tile at `subdivision` (`with_tolerance`).
    tolerance: f32,
}

/// A tile's height grid, ready for a heightmap shape: `width * depth` points, row-major (X fastest), one
/// grid step apart; the shape's centre sits at terrain position `centre` and its step is `step` world
/// units (before the node's scale).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TileGrid {
    pub width: usize,
    pub depth: usize,
    pub heights: Vec<f32>,
    pub centre: [f64; 2],
    pub step: f64,
    pub min_height: f32,
    pub max_height: f32,
}

/// Sample cells a side that an endless world's tiling covers, centred on the origin (2^31: ±1e9 samples).
pub const ENDLESS_CELLS: usize = 1 << 31;

impl Tiling {
    pub fn new<S: Samples + ?Sized>(terrain: &S, subdivision: u32) -> Self {
        Self::with_points(terrain, subdivision, TILE_POINTS)
    }

    /// Tiles of `points` grid points a side (a power of two plus one, at least 5).
    pub fn with_points<S: Samples + ?Sized>(terrain: &S, subdivision: u32, points: usize) -> Self {
        let points = (points.max(5) - 1).next_power_of_two() + 1;
        let (cells, origin) = match terrain.size() {
            Some([w, d]) => ([w.saturating_sub(1), d.saturating_sub(1)], [0, 0]),
            None => {
                let half = (ENDLESS_CELLS / 2) as i64;
                ([ENDLESS_CELLS; 2], [-half, -half])
            }
        };
        Self {
            cells,
            origin,
            subdivision,
            tile_cells: ((points - 1) / subdivision as usize).max(1),
            points,
            tolerance: 0.0,
        }
    }

    /// Tiles whose surface a coarser subdivision follows within `tolerance` (terrain height units) take
    /// it: flat and gentle ground needs a point a sample, curved ground keeps the finer points where the
    /// drawn patch bends (`coarsen`). A physics engine's cost is in the points (Jolt builds a compressed
    /// height field from them). 0, NaN or less: every tile at the full subdivision.
    pub fn with_tolerance(mut self, tolerance: f32) -> Self {
        self.tolerance = if tolerance > 0.0 { tolerance } else { 0.0 };
        self
    }

    /// The smallest tiles (from `TILE_POINTS`) that cover the terrain in at most `max_tiles` tiles.
    pub fn for_count<S: Samples + ?Sized>(terrain: &S, subdivision: u32, max_tiles: usize) -> Self {
        let mut t = Self::new(terrain, subdivision);
        while t.tile_count() > max_tiles && t.points < (1 << 14) {
            t = Self::with_points(terrain, subdivision, 2 * t.points - 1);
        }
        t
    }

    /// Grid points per tile side.
    pub fn points(&self) -> usize {
        self.points
    }

    /// Sample cells per tile side.
    pub fn tile_cells(&self) -> usize {
        self.tile_cells
    }

    /// Tiles per axis (0 for a terrain of one sample on an axis: no area to collide with).
    pub fn tiles(&self) -> [usize; 2] {
        self.cells.map(|c| c.div_ceil(self.tile_cells))
    }

    pub fn tile_count(&self) -> usize {
        let [x, z] = self.tiles();
        x * z
    }

    /// Tiles whose surface depends on the samples of `r` (an edited region, in the terrain's sample
    /// coordinates): the patch reads samples up to two away (corners and their slope neighbours).
    pub fn tiles_touching(&self, r: SampleRect) -> impl Iterator<Item = TileId> + use<> {
        let (xs, zs) = self.touching(r);
        zs.flat_map(move |z| xs.clone().map(move |x| [x, z]))
    }

    /// How many tiles `tiles_touching(r)` yields, without walking them (an endless map's discarded edits
    /// may span millions).
    pub fn count_touching(&self, r: SampleRect) -> usize {
        let (xs, zs) = self.touching(r);
        xs.len() * zs.len()
    }

    /// Whether `tiles_touching(r)` yields `id`.
    pub fn touches(&self, id: TileId, r: SampleRect) -> bool {
        let (xs, zs) = self.touching(r);
        xs.contains(&id[0]) && zs.contains(&id[1])
    }

    fn touching(&self, r: SampleRect) -> (Range<usize>, Range<usize>) {
        let [tx, tz] = self.tiles();
        let tc = self.tile_cells as i64;
        let range = move |start: i64, len: usize, tiles: usize| {
            if tiles == 0 || len == 0 {
                return 0..0;
            }
            let lo = ((start - 2).max(0) / tc).min(tiles as i64);
            let hi = ((start + len as i64 + 1) / tc).min(tiles as i64 - 1);
            lo as usize..(hi + 1).max(lo) as usize
        };
        (
            range(r.x - self.origin[0], r.w, tx),
            range(r.z - self.origin[1], r.d, tz),
        )
    }

    /// Tiles whose area comes within `radius` (terrain units, max norm) of terrain position `p`.
    pub fn tiles_near(
        &self,
        spacing: f64,
        p: [f64; 2],
        radius: f64,
    ) -> impl Iterator<Item = TileId> + use<> {
        let [tx, tz] = self.tiles();
        let tile = self.tile_cells as f64 * spacing;
        let p = [
            p[0] - self.origin[0] as f64 * spacing,
            p[1] - self.origin[1] as f64 * spacing,
        ];
        let range = |c: f64, tiles: usize| {
            // Tile k spans terrain [(0.5 + k * tile_cells) * spacing, + tile].
            let lo = ((c - radius - 0.5 * spacing) / tile).floor();
            let hi = ((c + radius - 0.5 * spacing) / tile).floor();
            if !(lo.is_finite() && hi.is_finite()) || hi < 0.0 || tiles == 0 {
                return 0..0;
            }
            let lo = lo.max(0.0) as usize;
            let hi = (hi as usize).min(tiles - 1);
            lo..hi + 1
        };
        let (xs, zs) = (range(p[0], tx), range(p[1], tz));
        zs.flat_map(move |z| xs.clone().map(move |x| [x, z]))
    }

    /// The samples a tile's grid reads: first sample (x, z) and size of the rectangle, with the margin the
    /// patch and hole reads reach beyond the tile (slope neighbours, hole probes). A `SampleBlock` of it
    /// computes the tile's grid bit for bit.
    pub fn tile_block(&self, id: TileId) -> ([i64; 2], [usize; 2]) {
        const MARGIN: i64 = 3;
        let tc = self.tile_cells as i64;
        let at = |a: usize| self.origin[a] + id[a] as i64 * tc - MARGIN;
        let side = self.tile_cells + 1 + 2 * MARGIN as usize;
        ([at(0), at(1)], [side, side])
    }

    /// Where a tile's grid sits: its centre (terrain X/Z) and its grid step (terrain units).
    pub fn placement(&self, spacing: f64, id: TileId) -> ([f64; 2], f64) {
        let tc = self.tile_cells;
        let half = tc as f64 * 0.5;
        let centre = [
            (0.5 + (self.origin[0] + (id[0] * tc) as i64) as f64 + half) * spacing,
            (0.5 + (self.origin[1] + (id[1] * tc) as i64) as f64 + half) * spacing,
        ];
        (centre, spacing / f64::from(self.subdivision))
    }

    /// The height grid of a tile (into `out`, reusing its buffer).
    pub fn grid<S: Samples + ?Sized>(&self, terrain: &S, id: TileId, out: &mut TileGrid) {
        let sub = self.subdivision as usize;
        let n = self.points;
        let tc = self.tile_cells;
        let (x0, z0) = (id[0] * tc, id[1] * tc);
        out.width = n;
        out.depth = n;
        (out.centre, out.step) = self.placement(terrain.spacing(), id);
        out.heights.clear();
        out.heights.reserve(n * n);
        // Points past the last sample (sample-space coordinate > size - 1) are holes.
        let last = [self.cells[0] * sub, self.cells[1] * sub];
        for j in 0..n {
            let gz = z0 * sub + j;
            if gz > last[1] {
                out.heights.extend(std::iter::repeat_n(f32::NAN, n));
                continue;
            }
            let inside = (last[0] + 1).saturating_sub(x0 * sub).min(n);
            let row = match sub {
                1 => terrain.sample_row(x0, gz, inside),
                _ => None,
            };
            if let Some(row) = row {
                // The samples themselves.
                out.heights.extend_from_slice(row);
            } else {
                // The patch between them (sample-space point k / sub); NaN in holes.
                let sz = gz as f64 / sub as f64 + self.origin[1] as f64;
                let (ox, base) = (self.origin[0] as f64, out.heights.len());
                out.heights.resize(base + inside, 0.0);
                let sx = |i: usize| (x0 * sub + i) as f64 / sub as f64 + ox;
                terrain.patch_heights(sz, &sx, &mut out.heights[base..]);
            }
            out.heights
                .extend(std::iter::repeat_n(f32::NAN, n - inside));
        }
        let (lo, hi) =
            out.heights
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                    if h.is_nan() {
                        (lo, hi)
                    } else {
                        (lo.min(h), hi.max(h))
                    }
                });
        (out.min_height, out.max_height) = if lo <= hi { (lo, hi) } else { (0.0, 0.0) };
        if self.tolerance > 0.0 {
            coarsen(out, sub, self.tolerance);
        }
    }
}

/// Keeps every `f`-th point of a tile's grid, for the largest `f` dividing the subdivision whose grid
/// the engines' triangles (split along the (x + 1, z)–(x, z + 1) diagonal, as both engines do) put within
/// `tolerance` of every point of the full grid. A tile with a hole keeps every point: its open triangles
/// follow the drawn holes exactly. Neighbours of different subdivisions meet within the tolerance.
fn coarsen(g: &mut TileGrid, sub: usize, tolerance: f32) {
    if g.width != g.depth || g.heights.iter().any(|h| h.is_nan()) {
        return;
    }
    let mut f = sub;
    while f > 1 {
        if (g.width - 1).is_multiple_of(f) && within(g, f, tolerance) {
            let n = g.width;
            let m = (n - 1) / f + 1;
            for j in 0..m {
                for i in 0..m {
                    g.heights[j * m + i] = g.heights[j * f * n + i * f];
                }
            }
            g.heights.truncate(m * m);
            (g.width, g.depth) = (m, m);
            g.step *= f as f64;
            return;
        }
        f /= 2;
    }
}

/// Whether the grid of every `f`-th point stays within `tolerance` of every point of `g`.
fn within(g: &TileGrid, f: usize, tolerance: f32) -> bool {
    let n = g.width;
    let cells = (n - 1) / f;
    let h = |i: usize, j: usize| g.heights[j * n + i];
    (0..n).all(|j| {
        let cj = (j / f).min(cells - 1);
        let v = (j - cj * f) as f32 / f as f32;
        (0..n).all(|i| {
            let ci = (i / f).min(cells - 1);
            let u = (i - ci * f) as f32 / f as f32;
            let (x0, z0, x1, z1) = (ci * f, cj * f, ci * f + f, cj * f + f);
            let y = if u + v <= 1.0 {
                h(x0, z0) + (h(x1, z0) - h(x0, z0)) * u + (h(x0, z1) - h(x0, z0)) * v
            } else {
                h(x1, z1)
                    + (h(x0, z1) - h(x1, z1)) * (1.0 - u)
                    + (h(x1, z0) - h(x1, z1)) * (1.0 - v)
            };
            (y - h(i, j)).abs() <= tolerance
        })
    })
}

impl Tiling {
    /// The grids of many tiles, computed in parallel (into `out`, one per id, reusing its buffers).
    pub fn grids<S: Samples + ?Sized>(&self, terrain: &S, ids: &[TileId], out: &mut Vec<TileGrid>) {
        use rayon::prelude::*;
        out.resize_with(ids.len(), TileGrid::default);
        out.par_iter_mut()
            .zip(ids.par_iter())
            .for_each_init(SampleBlock::default, |block, (g, &id)| {
                self.grid_of(terrain, id, block, g)
            });
    }

    /// A tile's grid, from a copy of its samples (`block`, reused) when the source computes or loads them
    /// on demand: a generator then evaluates each sample once instead of for every patch that reads it
    /// (about 30 times faster at subdivision 4), a region folder takes its cache's lock once. Same bits.
    pub fn grid_of<S: Samples + ?Sized>(
        &self,
        terrain: &S,
        id: TileId,
        block: &mut SampleBlock,
        out: &mut TileGrid,
    ) {
        if terrain.streamed() {
            let ([x, z], [w, d]) = self.tile_block(id);
            block.copy_from(terrain, x, z, w, d);
            self.grid(block, id, out);
        } else {
            self.grid(terrain, id, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain_data::TerrainData;

    #[test]
    fn an_endless_world_has_tiles_everywhere_and_grids_on_its_surface() {
        use crate::generation::{Generated, NoiseParams};
        let g = Generated::new(&NoiseParams::default(), 1.0).unwrap();
        let tiling = Tiling::with_points(&g, 2, 65);
        for p in [[0.0, 0.0], [-12345.5, 777.25], [3.0e6, -4.0e6]] {
            let ids: Vec<TileId> = tiling.tiles_near(1.0, p, 10.0).collect();
            assert!(!ids.is_empty() && ids.len() <= 4, "{p:?}: {ids:?}");
            let mut grid = TileGrid::default();
            for &id in &ids {
                tiling.grid(&g, id, &mut grid);
                let (c, step) = tiling.placement(1.0, id);
                // Grid point (i, j) is the surface at its terrain position.
                let half = (grid.width - 1) as f64 * 0.5;
                for &(i, j) in &[(0usize, 0usize), (7, 30), (64, 64)] {
                    let x = c[0] + (i as f64 - half) * step;
                    let z = c[1] + (j as f64 - half) * step;
                    let want = crate::samples::height_at(&g, x, z);
                    assert_eq!(grid.heights[j * grid.width + i], want, "{id:?} ({i}, {j})");
                }
            }
            // The tiles around p cover it.
            let inside = ids.iter().any(|&id| {
                let (c, _) = tiling.placement(1.0, id);
                let h = tiling.tile_cells() as f64 * 0.5;
                (p[0] - c[0]).abs() <= h && (p[1] - c[1]).abs() <= h
            });
            assert!(inside, "{p:?}");
            // An edit at p (signed samples) marks exactly the tiles around p whose block reads it.
            let at = [p[0].floor() as i64, p[1].floor() as i64];
            let r = SampleRect {
                x: at[0],
                z: at[1],
                w: 1,
                d: 1,
            };
            let marked: Vec<TileId> = tiling.tiles_touching(r).collect();
            assert_eq!(marked.len(), tiling.count_touching(r));
            assert!(marked.iter().all(|&id| tiling.touches(id, r)));
            let reads = |id: TileId| {
                let (o, n) = tiling.tile_block(id);
                (0..2).all(|a| (o[a]..o[a] + n[a] as i64).contains(&at[a]))
            };
            assert!(
                !marked.is_empty() && marked.iter().all(|&id| reads(id)),
                "{p:?}: {marked:?}"
            );
        }
    }

    fn rough(w: usize, d: usize) -> TerrainData {
        crate::test_terrains::Waves {
            x: (0.9, 2.0),
            z: (0.7, 1.5),
            jitter: (11, 0.2),
        }
        .terrain(w, d, 1.0)
    }

    /// Linear interpolation of a tile grid at terrain position (x, z), as a heightmap shape does.
    fn grid_at(g: &TileGrid, x: f64, z: f64) -> f64 {
        let gx = (x - g.centre[0]) / g.step + (g.width - 1) as f64 / 2.0;
        let gz = (z - g.centre[1]) / g.step + (g.depth - 1) as f64 / 2.0;
        let (i, j) = (
            gx.floor().min(g.width as f64 - 2.0),
            gz.floor().min(g.depth as f64 - 2.0),
        );
        let (u, v) = (gx - i, gz - j);
        let at = |a: f64, b: f64| f64::from(g.heights[b as usize * g.width + a as usize]);
        // Both diagonals give the same value at grid points; a bilinear estimate suffices for the bound.
        (1.0 - v) * ((1.0 - u) * at(i, j) + u * at(i + 1.0, j))
            + v * ((1.0 - u) * at(i, j + 1.0) + u * at(i + 1.0, j + 1.0))
    }

    /// Height of a grid at terrain (x, z) on the engines' triangles (split along (x + 1, z)–(x, z + 1)).
    fn triangle_at(g: &TileGrid, x: f64, z: f64) -> f64 {
        let gx = (x - g.centre[0]) / g.step + (g.width - 1) as f64 / 2.0;
        let gz = (z - g.centre[1]) / g.step + (g.depth - 1) as f64 / 2.0;
        let (i, j) = (
            gx.floor().clamp(0.0, g.width as f64 - 2.0),
            gz.floor().clamp(0.0, g.depth as f64 - 2.0),
        );
        let (u, v) = (gx - i, gz - j);
        let at = |a: f64, b: f64| f64::from(g.heights[b as usize * g.width + a as usize]);
        if u + v <= 1.0 {
            at(i, j) + (at(i + 1.0, j) - at(i, j)) * u + (at(i, j + 1.0) - at(i, j)) * v
        } else {
            let h11 = at(i + 1.0, j + 1.0);
            h11 + (at(i, j + 1.0) - h11) * (1.0 - u) + (at(i + 1.0, j) - h11) * (1.0 - v)
        }
    }

    /// With a tolerance, a tile takes the coarsest subdivision whose triangles stay within it of every point
    /// of its full grid: flat ground a point a sample, rough ground every point, a tile with a hole every
    /// point; the tile covers the same ground either way.
    #[test]
    fn tiles_coarsen_where_the_surface_allows_and_stay_within_the_tolerance() {
        let flat = TerrainData::from_heights(200, 200, 1.0, vec![3.0; 200 * 200]).unwrap();
        let gentle = crate::test_terrains::Waves {
            x: (0.02, 4.0),
            z: (0.015, 3.0),
            jitter: (3, 0.0),
        }
        .terrain(200, 200, 1.0);
        let rough = rough(200, 200);
        let tol = 0.01;
        let mut full = TileGrid::default();
        let mut g = TileGrid::default();
        let mut widths = Vec::new();
        for (name, t) in [("flat", &flat), ("gentle", &gentle), ("rough", &rough)] {
            let fine = Tiling::with_points(t, 4, 65);
            let coarse = fine.with_tolerance(tol);
            let mut w = Vec::new();
            for id in [[0, 0], [1, 1], [2, 1]] {
                fine.grid(t, id, &mut full);
                coarse.grid(t, id, &mut g);
                assert_eq!(g.centre, full.centre, "{name}: same place");
                let span = |g: &TileGrid| g.step * (g.width - 1) as f64;
                assert_eq!(span(&g), span(&full), "{name}: same ground");
                let n = full.width;
                for j in 0..n {
                    for i in 0..n {
                        let x = full.centre[0] + (i as f64 - (n - 1) as f64 / 2.0) * full.step;
                        let z = full.centre[1] + (j as f64 - (n - 1) as f64 / 2.0) * full.step;
                        let e = (triangle_at(&g, x, z) - f64::from(full.heights[j * n + i])).abs();
                        assert!(
                            e <= f64::from(tol) + 1e-5,
                            "{name} {id:?}: {e} at ({i}, {j})"
                        );
                    }
                }
                w.push(g.width);
            }
            widths.push(w);
        }
        assert_eq!(widths[0], vec![17; 3], "flat: a point a sample");
        assert!(
            widths[1].iter().all(|&w| w < 65),
            "gentle ground coarsens: {:?}",
            widths[1]
        );
        assert_eq!(widths[2], vec![65; 3], "rough ground keeps every point");
        // A hole keeps every point; no tolerance keeps them too.
        let mut holed = flat.clone();
        holed
            .set_holes_region(holed.region(5, 5, 2, 2).unwrap(), &[1; 4])
            .unwrap();
        Tiling::with_points(&holed, 4, 65)
            .with_tolerance(tol)
            .grid(&holed, [0, 0], &mut g);
        assert_eq!(g.width, 65, "a tile with a hole");
        Tiling::with_points(&flat, 4, 65)
            .with_tolerance(0.0)
            .grid(&flat, [0, 0], &mut g);
        assert_eq!(g.width, 65, "no tolerance");
    }

    #[test]
    fn grid_points_are_the_drawn_surface_and_tiles_share_borders() {
        let t = rough(300, 140);
        for sub in SUBDIVISIONS {
            let tiling = Tiling::new(&t, sub);
            let tc = tiling.tile_cells();
            assert_eq!(tc * sub as usize, 128);
            let tiles = tiling.tiles();
            assert_eq!(tiles, [299usize.div_ceil(tc), 139usize.div_ceil(tc)]);
            let last_x = tiles[0] - 1;
            let mut g = TileGrid::default();
            let mut right = TileGrid::default();
            tiling.grid(&t, [last_x - 1, tiles[1] - 1], &mut g);
            tiling.grid(&t, [last_x, tiles[1] - 1], &mut right);
            let n = TILE_POINTS;
            assert_eq!((g.width, g.depth, right.width), (n, n, n), "square tiles");
            for j in 0..g.depth {
                let z = g.centre[1] + (j as f64 - (g.depth - 1) as f64 / 2.0) * g.step;
                for i in 0..g.width {
                    let x = g.centre[0] + (i as f64 - (g.width - 1) as f64 / 2.0) * g.step;
                    let got = g.heights[j * g.width + i];
                    if z > 139.5 {
                        assert!(got.is_nan(), "beyond the last sample row: a hole");
                        continue;
                    }
                    let want = t.height_at(x, z);
                    assert!((got - want).abs() < 1e-4, "sub {sub} point ({i}, {j})");
                }
                // The shared border column is the same in both tiles.
                let (a, b) = (
                    g.heights[j * g.width + g.width - 1],
                    right.heights[j * right.width],
                );
                assert!(a == b || (a.is_nan() && b.is_nan()));
                // The last tile ends at the last sample column (x = 299.5); beyond it, holes.
                let last = (299 - last_x * tc) * sub as usize;
                assert_eq!(right.heights[j * n + last].is_nan(), z > 139.5);
                assert!(last + 1 >= n || right.heights[j * n + last + 1].is_nan());
            }
        }
    }

    #[test]
    fn subdivision_reduces_the_error_against_the_patch() {
        let t = rough(130, 130);
        let mut worst = vec![];
        // The first tile at each subdivision covers at least [0.5, 32.5]²: compare there.
        for sub in SUBDIVISIONS {
            let tiling = Tiling::new(&t, sub);
            let mut g = TileGrid::default();
            tiling.grid(&t, [0, 0], &mut g);
            let mut w = 0.0f64;
            for k in 0..4000 {
                let x = 1.0 + (k as f64 * 0.6180339) % 1.0 * 31.0;
                let z = 1.0 + (k as f64 * 0.4142135) % 1.0 * 31.0;
                w = w.max((grid_at(&g, x, z) - f64::from(t.height_at(x, z))).abs());
            }
            worst.push(w);
        }
        assert!(worst[1] < worst[0] && worst[2] < worst[1], "{worst:?}");
    }

    /// Whether the engines keep the triangle of grid cell (i, j) that holds local point (u, v): they drop a
    /// triangle with a NaN corner, cells split along the (i + 1, j)–(i, j + 1) diagonal.
    fn solid_at(g: &TileGrid, i: usize, j: usize, u: f64, v: f64) -> bool {
        let at = |a: usize, b: usize| g.heights[b * g.width + a];
        let corners = if u + v < 1.0 {
            [at(i, j), at(i + 1, j), at(i, j + 1)]
        } else {
            [at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)]
        };
        corners.iter().all(|h| h.is_finite())
    }

    #[test]
    fn holes_open_where_get_height_is_nan() {
        let mut t = rough(40, 40);
        let r = t.region(10, 12, 3, 2).unwrap();
        t.set_holes_region(r, &[1, 0, 1, 0, 0, 1]).unwrap();
        let r = t.region(20, 20, 6, 6).unwrap();
        t.set_holes_region(r, &[1; 36]).unwrap();
        for sub in SUBDIVISIONS {
            let tiling = Tiling::new(&t, sub);
            let mut g = TileGrid::default();
            tiling.grid(&t, [0, 0], &mut g);
            let s = sub as f64;
            let (mut opened_ground, mut closed_holes, mut holes) = (0, 0, 0);
            for k in 0..40000 {
                let x = 1.0 + (k as f64 * 0.6180339) % 1.0 * 30.0;
                let z = 1.0 + (k as f64 * 0.4142135) % 1.0 * 30.0;
                let (gx, gz) = ((x / t.spacing() - 0.5) * s, (z / t.spacing() - 0.5) * s);
                let (i, j) = (gx.floor() as usize, gz.floor() as usize);
                let solid = solid_at(&g, i, j, gx - gx.floor(), gz - gz.floor());
                let hole = t.height_at(x, z).is_nan();
                holes += usize::from(hole);
                opened_ground += usize::from(!hole && !solid);
                closed_holes += usize::from(hole && solid);
            }
            assert!(holes > 1000);
            assert_eq!(
                opened_ground, 0,
                "sub {sub}: collision never opens drawn ground"
            );
            if sub == 1 {
                assert_eq!(closed_holes, 0, "subdivision 1 matches exactly");
            } else {
                // Finer grids keep a few small triangles at the corners of the outline.
                assert!(
                    closed_holes * 50 < holes,
                    "sub {sub}: {closed_holes} of {holes}"
                );
            }
        }
    }

    #[test]
    fn edits_and_moves_select_the_right_tiles() {
        let t = rough(300, 200);
        let tiling = Tiling::new(&t, 2);
        assert_eq!(tiling.tiles(), [5, 4]);
        let r = SampleRect {
            x: 63,
            z: 10,
            w: 2,
            d: 2,
        };
        let ids: Vec<_> = tiling.tiles_touching(r).collect();
        assert_eq!(ids, vec![[0, 0], [1, 0]]);
        let r = SampleRect {
            x: 130,
            z: 130,
            w: 1,
            d: 1,
        };
        assert_eq!(tiling.tiles_touching(r).collect::<Vec<_>>(), vec![[2, 2]]);
        assert_eq!(tiling.count_touching(r), 1);
        let near: Vec<_> = tiling.tiles_near(1.0, [100.0, 100.0], 10.0).collect();
        assert_eq!(near, vec![[1, 1]]);
        assert_eq!(tiling.tiles_near(1.0, [-500.0, 0.0], 10.0).count(), 0);
        assert_eq!(tiling.tiles_near(1.0, [f64::NAN, 0.0], 10.0).count(), 0);
        assert_eq!(tiling.tiles_near(1.0, [150.0, 100.0], 1e6).count(), 20);
        assert!(check_subdivision(3)
            .unwrap_err()
            .to_string()
            .contains("collision_subdivision"));
        assert!(check_radius(f64::NAN).is_err() && check_radius(50.0).is_ok());
        // A body budget: larger tiles, same coverage.
        let big = TerrainData::flat(4096, 4096, 1.0);
        let t4 = Tiling::for_count(&big, 4, 4096);
        assert!(
            t4.tile_count() <= 4096 && t4.points() == 257,
            "{}",
            t4.points()
        );
        assert_eq!(Tiling::with_points(&big, 4, 65).tile_cells(), 16);
    }
}
