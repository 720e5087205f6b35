//! Water from the terrain's own heights: lakes by depression filling, flow directions and accumulation,
//! river centre lines. Engine-free; the water node, its surface and its queries build on it.
//!
//! **Depression filling** is the Priority-Flood of Barnes, Lehman and Mulla (2014), in its variant with a
//! plain queue for cells inside depressions: the grid's edge is the outlet; cells are taken lowest first,
//! and a cell reached from a higher level takes that level. The filled surface minus the ground is the
//! water depth of every lake at its spill level. The sea is what the edge floods up to the sea level: a
//! basin whose spill lies below the sea level is sea; an enclosed one whose rim stands above it keeps its
//! own lake (no flooding of basins behind a coast).
//!
//! **Flow** follows the filled surface: down the steepest of the eight neighbours where it falls, and over
//! flats and lakes towards the cell the flood came from (the flood reaches every cell from its outlet, so
//! the two together drain everything). Cells are accumulated in the reverse of the flood's order, which
//! visits every receiver before its donors: each cell passes on its own area and all it received, so the
//! outlets together carry the whole grid (`FlowField::check_conserved`). The order is fixed by heights
//! and indices alone: the same grid gives the same flow, bit for bit.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// A grid of heights: `w` × `d` samples `spacing` apart, row-major.
#[derive(Clone, Copy, Debug)]
pub struct Grid<'a> {
    pub heights: &'a [f32],
    pub w: usize,
    pub d: usize,
    pub spacing: f64,
}

/// Bad input to the water computations: what, and what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct WaterError(pub String);

impl std::fmt::Display for WaterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Grid<'_> {
    fn check(&self) -> Result<(), WaterError> {
        if self.w < 2 || self.d < 2 || self.heights.len() != self.w * self.d {
            return Err(WaterError(format!(
                "the area must hold at least 2 × 2 samples, got {} × {}",
                self.w, self.d
            )));
        }
        if let Some(i) = self.heights.iter().position(|h| !h.is_finite()) {
            return Err(WaterError(format!(
                "sample ({}, {}) is not finite (a hole or a damaged map)",
                i % self.w,
                i / self.w
            )));
        }
        Ok(())
    }
}

/// The eight neighbours (dx, dz) in a fixed order, and their distances in samples.
const NEIGHBOURS: [(i64, i64); 8] = [
    (1, 0),
    (0, 1),
    (-1, 0),
    (0, -1),
    (1, 1),
    (-1, 1),
    (-1, -1),
    (1, -1),
];
const DIAGONAL: f64 = std::f64::consts::SQRT_2;

/// The neighbours of cell `c` inside the grid, and the distance to each (samples).
fn neighbours(g: Grid, c: usize) -> impl Iterator<Item = (usize, f64)> {
    let (cx, cz) = ((c % g.w) as i64, (c / g.w) as i64);
    NEIGHBOURS.into_iter().filter_map(move |(dx, dz)| {
        let (x, z) = (cx + dx, cz + dz);
        let inside = x >= 0 && z >= 0 && x < g.w as i64 && z < g.d as i64;
        let run = if dx != 0 && dz != 0 { DIAGONAL } else { 1.0 };
        inside.then(|| (z as usize * g.w + x as usize, run))
    })
}

/// The pond holding wet cell `s`: the connected water of its level above `sea_level`. Each of its cells
/// is passed to `enter` once it is reached; `enter` marks it and says whether it was new.
fn pond(g: Grid, f: &Flood, sea_level: f32, s: usize, mut enter: impl FnMut(usize) -> bool) {
    let level = f.filled[s];
    let same = |i: usize| f.filled[i] == level && f.filled[i] > g.heights[i] && level > sea_level;
    let mut stack = Vec::new();
    if enter(s) {
        stack.push(s);
    }
    while let Some(c) = stack.pop() {
        for (k, _) in neighbours(g, c) {
            if same(k) && enter(k) {
                stack.push(k);
            }
        }
    }
}

/// A cell in the flood's heap: lowest level first, then lowest index (a fixed order).
#[derive(Clone, Copy, PartialEq)]
struct Entry {
    level: f32,
    index: u32,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        o.level
            .total_cmp(&self.level)
            .then_with(|| o.index.cmp(&self.index))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The filled surface, and for every cell the cell the flood reached it from (itself for an outlet) and
/// the order cells were taken in.
pub struct Flood {
    pub filled: Vec<f32>,
    pub from: Vec<u32>,
    pub order: Vec<u32>,
}

/// Fills every depression of `g` to its spill level; the grid's edge drains away.
pub fn fill(g: Grid) -> Result<Flood, WaterError> {
    g.check()?;
    let n = g.w * g.d;
    let mut filled = g.heights.to_vec();
    let mut from = vec![u32::MAX; n];
    let mut order = Vec::with_capacity(n);
    let mut heap = BinaryHeap::new();
    let mut pit = VecDeque::new();
    for z in 0..g.d {
        for x in 0..g.w {
            let i = z * g.w + x;
            let edge = x == 0 || z == 0 || x == g.w - 1 || z == g.d - 1;
            if edge {
                from[i] = i as u32;
                heap.push(Entry {
                    level: g.heights[i],
                    index: i as u32,
                });
            }
        }
    }
    loop {
        let c = match pit.pop_front() {
            Some(c) => c,
            None => match heap.pop() {
                Some(e) => e.index as usize,
                None => break,
            },
        };
        order.push(c as u32);
        for (k, _) in neighbours(g, c) {
            if from[k] != u32::MAX {
                continue;
            }
            from[k] = c as u32;
            if filled[k] <= filled[c] {
                // In a depression (or on a flat): the water stands at the level that reached it.
                filled[k] = filled[c];
                pit.push_back(k);
            } else {
                heap.push(Entry {
                    level: filled[k],
                    index: k as u32,
                });
            }
        }
    }
    Ok(Flood {
        filled,
        from,
        order,
    })
}

/// A lake: its level (the spill height), its area (terrain units²: of the ground below the level, the
/// heights blended bilinearly between samples), its greatest depth, its bounding rectangle of samples
/// (x, z, w, d), its deepest sample and how many samples it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Lake {
    pub level: f32,
    pub area: f64,
    pub depth: f32,
    pub bounds: [usize; 4],
    pub deepest: [usize; 2],
    pub cells: usize,
}

/// The lakes of `g`: connected water (filled above the ground) of one level each, above `sea_level` (what
/// lies lower is sea: `f32::NEG_INFINITY` for none), at least `min_area` (terrain units²) and `min_depth`
/// deep, largest first.
pub fn find_lakes(
    g: Grid,
    sea_level: f32,
    min_area: f64,
    min_depth: f32,
) -> Result<Vec<Lake>, WaterError> {
    if !(min_area.is_finite() && min_area >= 0.0) {
        return Err(WaterError(format!("min_area must be ≥ 0, got {min_area}")));
    }
    if !(min_depth.is_finite() && min_depth >= 0.0) {
        return Err(WaterError(format!(
            "min_depth must be ≥ 0, got {min_depth}"
        )));
    }
    if sea_level.is_nan() {
        return Err(WaterError(
            "sea_level must be a number (-INF for no sea)".into(),
        ));
    }
    let f = fill(g)?;
    let n = g.w * g.d;
    let wet = |i: usize| f.filled[i] > g.heights[i] && f.filled[i] > sea_level;
    let mut seen = vec![false; n];
    // Per grid square (lower corner's index): the last lake that counted it.
    let mut counted = vec![u32::MAX; n];
    let mut lakes = Vec::new();
    let mut cells = Vec::new();
    // Each pond's own id, so no square counted for one is skipped for another.
    let mut ponds = 0u32;
    for s in 0..n {
        if seen[s] || !wet(s) {
            continue;
        }
        cells.clear();
        pond(g, &f, sea_level, s, |k| {
            let new = !seen[k];
            if new {
                seen[k] = true;
                cells.push(k);
            }
            new
        });
        let lake = describe(g, f.filled[s], &cells, &mut counted, ponds);
        ponds += 1;
        if lake.area >= min_area && lake.depth >= min_depth {
            lakes.push(lake);
        }
    }
    lakes.sort_by(|a, b| b.area.total_cmp(&a.area).then(a.bounds.cmp(&b.bounds)));
    Ok(lakes)
}

/// A lake's numbers from its cells.
fn describe(g: Grid, level: f32, cells: &[usize], counted: &mut [u32], id: u32) -> Lake {
    let (mut x0, mut z0, mut x1, mut z1) = (usize::MAX, usize::MAX, 0, 0);
    let (mut depth, mut deepest) = (0.0f32, [0, 0]);
    let mut squares = 0.0f64;
    for &c in cells {
        let (cx, cz) = (c % g.w, c / g.w);
        (x0, z0, x1, z1) = (x0.min(cx), z0.min(cz), x1.max(cx), z1.max(cz));
        if level - g.heights[c] > depth {
            depth = level - g.heights[c];
            deepest = [cx, cz];
        }
        // The four grid squares this sample is a corner of, each counted once.
        for (sx, sz) in [
            (cx.wrapping_sub(1), cz.wrapping_sub(1)),
            (cx, cz.wrapping_sub(1)),
            (cx.wrapping_sub(1), cz),
            (cx, cz),
        ] {
            if sx >= g.w - 1 || sz >= g.d - 1 || counted[sz * g.w + sx] == id {
                continue;
            }
            counted[sz * g.w + sx] = id;
            squares += below(g, sx, sz, level);
        }
    }
    Lake {
        level,
        area: squares * g.spacing * g.spacing,
        depth,
        bounds: [x0, z0, x1 - x0 + 1, z1 - z0 + 1],
        deepest,
        cells: cells.len(),
    }
}

/// Share of grid square (x, z)–(x + 1, z + 1) whose bilinear height lies below `level` (4 × 4 points).
fn below(g: Grid, x: usize, z: usize, level: f32) -> f64 {
    let at = |dx: usize, dz: usize| g.heights[(z + dz) * g.w + x + dx];
    let c = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)];
    if c.iter().all(|&h| h < level) {
        return 1.0;
    }
    if c.iter().all(|&h| h >= level) {
        return 0.0;
    }
    let mut n = 0;
    for j in 0..4 {
        for i in 0..4 {
            let (u, v) = ((i as f32 + 0.5) / 4.0, (j as f32 + 0.5) / 4.0);
            let top = c[0] + (c[1] - c[0]) * u;
            let bottom = c[2] + (c[3] - c[2]) * u;
            n += usize::from(top + (bottom - top) * v < level);
        }
    }
    n as f64 / 16.0
}

/// The water level of every sample: `sea_level` where the sea stands (what the edge floods at or below
/// it), a lake's level over the lake holding each of `points` (samples of the grid), `NEG_INFINITY`
/// elsewhere. Also, per point, the level of its lake (None: the point is dry or in the sea). What a water
/// surface draws and its queries answer: water stands at a point when one of the four samples around it
/// has a level and the ground there is below it.
pub fn water_levels(
    g: Grid,
    sea_level: f32,
    points: &[[usize; 2]],
) -> Result<(Vec<f32>, Vec<Option<f32>>), WaterError> {
    if sea_level.is_nan() {
        return Err(WaterError(
            "sea_level must be a number (-INF for no sea)".into(),
        ));
    }
    let f = fill(g)?;
    let mut levels: Vec<f32> = f
        .filled
        .iter()
        .map(|&v| {
            if v <= sea_level {
                sea_level
            } else {
                f32::NEG_INFINITY
            }
        })
        .collect();
    let mut found = Vec::with_capacity(points.len());
    let wet = |i: usize| f.filled[i] > g.heights[i] && f.filled[i] > sea_level;
    for &[x, z] in points {
        // Off the grid (a point outside the area) finds nothing.
        if x >= g.w || z >= g.d || !wet(z * g.w + x) {
            found.push(None);
            continue;
        }
        let s = z * g.w + x;
        let level = f.filled[s];
        found.push(Some(level));
        if levels[s] == level {
            continue;
        }
        pond(g, &f, sea_level, s, |k| {
            let new = levels[k] != level;
            levels[k] = level;
            new
        });
    }
    Ok((levels, found))
}

/// A terrain's water as drawn and queried: the level of every sample of a rectangle (`water_levels`, the
/// corner rule), the sea beyond it, and the rivers. Shared with the workers that place instances and grow
/// detail (which avoid water, or seek it, by their rules).
#[derive(Clone, Debug, Default)]
pub struct WaterLevels {
    pub levels: Vec<f32>,
    /// The samples `levels` covers (query coordinates).
    pub rect: crate::sample_rect::SampleRect,
    pub spacing: f64,
    /// The sea's level beyond the rectangle; None: no sea.
    pub sea: Option<f32>,
    pub rivers: Vec<RiverSurface>,
}

impl WaterLevels {
    /// The water level at terrain X/Z (x, z): the highest of the four samples around it (beyond the
    /// rectangle, the sea's) and of the rivers over it; `NEG_INFINITY` where there is none.
    pub fn level_at(&self, x: f64, z: f64) -> f32 {
        let sx = x / self.spacing - 0.5 - self.rect.x as f64;
        let sz = z / self.spacing - 0.5 - self.rect.z as f64;
        let (ix, iz) = (sx.floor() as i64, sz.floor() as i64);
        let mut level = f32::NEG_INFINITY;
        for (dx, dz) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (x, z) = (ix + dx, iz + dz);
            let inside = x >= 0 && z >= 0 && x < self.rect.w as i64 && z < self.rect.d as i64;
            let l = if inside {
                self.levels[z as usize * self.rect.w + x as usize]
            } else {
                self.sea.unwrap_or(f32::NEG_INFINITY)
            };
            level = level.max(l);
        }
        let river = self
            .river_at(x, z)
            .map_or(f32::NEG_INFINITY, |(y, _)| y as f32);
        level.max(river)
    }

    /// The depth of water over ground at height `ground` at terrain X/Z (x, z); None where it is dry.
    pub fn depth_at(&self, x: f64, z: f64, ground: f32) -> Option<f32> {
        let l = self.level_at(x, z);
        (l.is_finite() && ground < l).then_some(l - ground)
    }

    /// The highest river surface over terrain X/Z (x, z) and its flow direction there.
    pub fn river_at(&self, x: f64, z: f64) -> Option<(f64, [f64; 2])> {
        self.rivers
            .iter()
            .filter_map(|r| r.at(x, z))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }
}

/// A river's water surface: a ribbon `half_width` to each side of its centre line (terrain units, points
/// upstream first); its height along the line is the line's.
#[derive(Clone, Debug, PartialEq)]
pub struct RiverSurface {
    pub points: Vec<[f64; 3]>,
    pub half_width: f64,
    /// X/Z box of the ribbon (min x, min z, max x, max z): most points placing instances and detail are
    /// nowhere near a river, and are answered without walking its line.
    bounds: [f64; 4],
}

impl RiverSurface {
    pub fn new(points: Vec<[f64; 3]>, half_width: f64) -> Self {
        let mut b = [
            f64::INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        for p in &points {
            b = [
                b[0].min(p[0]),
                b[1].min(p[2]),
                b[2].max(p[0]),
                b[3].max(p[2]),
            ];
        }
        let bounds = [
            b[0] - half_width,
            b[1] - half_width,
            b[2] + half_width,
            b[3] + half_width,
        ];
        Self {
            points,
            half_width,
            bounds,
        }
    }

    /// At terrain X/Z (x, z) within the ribbon: the surface height and the direction the water flows
    /// (unit X/Z, downstream) at the nearest point of the line. None off the ribbon.
    pub fn at(&self, x: f64, z: f64) -> Option<(f64, [f64; 2])> {
        let b = &self.bounds;
        if !(b[0] <= x && x <= b[2] && b[1] <= z && z <= b[3]) {
            return None;
        }
        let mut best: Option<(f64, f64, [f64; 2])> = None;
        for w in self.points.windows(2) {
            let (a, b) = (w[0], w[1]);
            let ab = [b[0] - a[0], b[2] - a[2]];
            let len2 = ab[0] * ab[0] + ab[1] * ab[1];
            if len2 <= 0.0 {
                continue;
            }
            let t = (((x - a[0]) * ab[0] + (z - a[2]) * ab[1]) / len2).clamp(0.0, 1.0);
            let q = [a[0] + ab[0] * t, a[2] + ab[1] * t];
            let d2 = (x - q[0]).powi(2) + (z - q[1]).powi(2);
            if best.is_none_or(|(bd, _, _)| d2 < bd) {
                let len = len2.sqrt();
                best = Some((d2, a[1] + (b[1] - a[1]) * t, [ab[0] / len, ab[1] / len]));
            }
        }
        let (d2, y, dir) = best?;
        (d2 <= self.half_width * self.half_width).then_some((y, dir))
    }
}

/// Where each cell's water goes, and how much passes through it.
pub struct FlowField {
    pub w: usize,
    pub d: usize,
    /// The cell each cell drains into (itself at an outlet).
    pub receiver: Vec<u32>,
    /// Cells draining through each cell, itself included (multiply by spacing² for an area).
    pub accumulation: Vec<f32>,
    /// Whether a cell lies in a filled depression (a lake, chosen or not): rivers pause there.
    pub ponded: Vec<bool>,
}

/// Flow over `g` (see the module): steepest descent on the filled surface, the flood's way across flats
/// and lakes, accumulated downstream; the sea (filled at or below `sea_level`) takes what reaches it.
pub fn flow(g: Grid, sea_level: f32) -> Result<FlowField, WaterError> {
    if sea_level.is_nan() {
        return Err(WaterError(
            "sea_level must be a number (-INF for no sea)".into(),
        ));
    }
    let f = fill(g)?;
    let n = g.w * g.d;
    let mut receiver = f.from.clone();
    for (c, r) in receiver.iter_mut().enumerate() {
        if *r as usize == c {
            continue;
        }
        if f.filled[c] <= sea_level {
            *r = c as u32;
            continue;
        }
        if let Some(k) = steepest(g, &f.filled, c) {
            *r = k;
        }
    }
    let mut accumulation = vec![1.0f32; n];
    for &c in f.order.iter().rev() {
        let r = receiver[c as usize] as usize;
        if r != c as usize {
            accumulation[r] += accumulation[c as usize];
        }
    }
    let ponded = (0..n).map(|i| f.filled[i] > g.heights[i]).collect();
    Ok(FlowField {
        w: g.w,
        d: g.d,
        receiver,
        accumulation,
        ponded,
    })
}

/// The neighbour the filled surface falls to most steeply from cell `c` (None on a flat or in a pit).
fn steepest(g: Grid, filled: &[f32], c: usize) -> Option<u32> {
    let mut best = (0.0f64, None);
    for (k, run) in neighbours(g, c) {
        let slope = f64::from(filled[c] - filled[k]) / run;
        if slope > best.0 {
            best = (slope, Some(k as u32));
        }
    }
    best.1
}

impl FlowField {
    /// The water leaving the grid (at its outlets) equals the cells' own contributions: the check that
    /// nothing is lost or counted twice.
    pub fn check_conserved(&self) -> bool {
        let out: f64 = (0..self.receiver.len())
            .filter(|&i| self.receiver[i] as usize == i)
            .map(|i| f64::from(self.accumulation[i]))
            .sum();
        (out - self.receiver.len() as f64).abs() < 1e-6 * self.receiver.len() as f64
    }

    /// River centre lines: from every cell where the accumulation first reaches `threshold` cells,
    /// downstream to an outlet or to a river already traced (the confluence is the line's last point).
    /// A river crossing a filled depression (a lake) pauses there: the line ends at the lake and a new one
    /// starts where the water leaves it. Each line is a list of samples (x, z), upstream first; longest
    /// first.
    pub fn rivers(&self, threshold: f32) -> Result<Vec<Vec<[usize; 2]>>, WaterError> {
        if !(threshold.is_finite() && threshold >= 2.0) {
            return Err(WaterError(format!(
                "threshold must be at least 2 cells, got {threshold}"
            )));
        }
        let n = self.receiver.len();
        let river = |i: usize| self.accumulation[i] >= threshold;
        // A source: a river cell none of whose donors is a river cell.
        let mut fed = vec![false; n];
        for c in 0..n {
            let r = self.receiver[c] as usize;
            if r != c && river(c) {
                fed[r] = true;
            }
        }
        let mut traced = vec![false; n];
        let mut lines = Vec::new();
        for s in (0..n).filter(|&i| river(i) && !fed[i]) {
            let mut line = Vec::new();
            let mut c = s;
            loop {
                if self.ponded[c] {
                    if line.len() >= 2 {
                        lines.push(std::mem::take(&mut line));
                    }
                    line.clear();
                } else {
                    line.push([c % self.w, c / self.w]);
                }
                if traced[c] {
                    break;
                }
                traced[c] = true;
                let r = self.receiver[c] as usize;
                if r == c {
                    break;
                }
                c = r;
            }
            if line.len() >= 2 {
                lines.push(line);
            }
        }
        lines.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        Ok(lines)
    }
}

#[cfg(test)]
mod tests;
