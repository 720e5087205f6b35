//! A terrain path's layer (`TerrainPath` on the Godot side): a road, ramp or riverbed laid along a curve
//! as a layer over the sculpted terrain (`layers`). Within half its width the ground takes the curve's
//! height (banked by the point's tilt); over the falloff it blends back to the ground below; a paint layer,
//! holes and a cleared verge (no instances or detail) ride along.
//!
//! The curve is Godot's Curve3D: cubic Bézier segments between points, each cut into pieces about a sample
//! long. A sample's distance to the path is its distance to the nearest piece (the distance-field splat
//! of spline deformers such as Unreal's landscape splines). Pieces are kept per curve segment, so moving
//! one point changes two segments and only their tiles are composed again (`changed_tiles`).

use crate::control::{paint, Paint, CLEAR, HOLE};
use crate::layers::{tile_rect, tiles_over, Layer, Tile, TileKey, TILE, TILE_SAMPLES};
use crate::sample_rect::SampleRect;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What a path does to the heights under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathMode {
    /// The ground takes the curve's height (cut and fill): a road, a ramp.
    Follow,
    /// Only where the curve is above the ground: an embankment.
    Raise,
    /// Only where the curve is below the ground: a cutting, a trench.
    Lower,
    /// Down to `depth` below the curve, where the ground is higher: a riverbed under its water line.
    Carve,
}

impl PathMode {
    pub fn from_index(i: i64) -> Option<Self> {
        [Self::Follow, Self::Raise, Self::Lower, Self::Carve]
            .get(usize::try_from(i).ok()?)
            .copied()
    }
}

/// The paint a path lays (a road's surface layer).
#[derive(Clone, Debug, PartialEq)]
pub struct PathPaint {
    /// Control slot painted (`control::slot_of(layer)`).
    pub slot: u8,
    /// Full width at full weight, terrain units.
    pub width: f32,
    /// Blend beyond it, terrain units.
    pub falloff: f32,
    /// How far the painted edge wanders in and out, terrain units.
    pub edge_noise: f32,
}

/// A path's settings (terrain units).
#[derive(Clone, Debug, PartialEq)]
pub struct PathShape {
    /// Full width of the flat part.
    pub width: f32,
    /// Width of the blend on each side.
    pub falloff: f32,
    /// Weight across the falloff, from the edge (first) to its end (last), evenly spaced; None: smoothstep.
    pub falloff_curve: Option<Vec<f32>>,
    pub mode: PathMode,
    /// How far below the curve `Carve` digs.
    pub depth: f32,
    pub paint: Option<PathPaint>,
    /// Holes within half the width (a tunnel's mouth, a bridge's gap).
    pub holes: bool,
    /// Clears instances and detail within half the width plus this margin; None: leaves them.
    pub clear_margin: Option<f32>,
}

/// Largest width, falloff or depth accepted, terrain units.
pub const MAX_EXTENT: f32 = 100_000.0;

/// Bad path settings or points: the property (or point) and what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub enum PathError {
    Range {
        property: &'static str,
        value: f64,
        allowed: &'static str,
    },
    Point {
        index: usize,
        what: &'static str,
    },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Range {
                property,
                value,
                allowed,
            } => write!(f, "{property} must be {allowed}, got {value}"),
            PathError::Point { index, what } => write!(f, "curve point {index} {what}"),
        }
    }
}

fn check(property: &'static str, v: f32, lo: f32, allowed: &'static str) -> Result<(), PathError> {
    if v.is_finite() && v >= lo && v <= MAX_EXTENT {
        return Ok(());
    }
    Err(PathError::Range {
        property,
        value: f64::from(v),
        allowed,
    })
}

impl PathShape {
    /// Refuses widths, falloffs and depths outside what works (the property named).
    pub fn check(&self) -> Result<(), PathError> {
        check("width", self.width, f32::MIN_POSITIVE, "in (0, 100000]")?;
        check("falloff_width", self.falloff, 0.0, "in [0, 100000]")?;
        check("depth", self.depth, 0.0, "in [0, 100000]")?;
        if let Some(p) = &self.paint {
            check("paint_width", p.width, 0.0, "in [0, 100000]")?;
            check("paint_falloff", p.falloff, 0.0, "in [0, 100000]")?;
            check("paint_edge_noise", p.edge_noise, 0.0, "in [0, 100000]")?;
        }
        if let Some(m) = self.clear_margin {
            check("clear_margin", m, 0.0, "in [0, 100000]")?;
        }
        Ok(())
    }

    /// Farthest a path writes from its centre line, per unit of width scale and beyond it.
    fn reach(&self, half: f32) -> f32 {
        let mut r = half + self.falloff;
        if let Some(p) = &self.paint {
            r = r.max(p.width * 0.5 * (half * 2.0 / self.width) + p.falloff + p.edge_noise);
        }
        if let Some(m) = self.clear_margin {
            r = r.max(half + m);
        }
        r
    }
}

/// A curve point in terrain space: its position, its Bézier handles as positions (position + in / out),
/// its tilt (radians, banking the surface about the curve) and its width scale (1 = the path's width).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathPoint {
    pub position: [f64; 3],
    pub before: [f64; 3],
    pub after: [f64; 3],
    pub tilt: f32,
    pub width: f32,
}

/// A piece of the curve in sample coordinates (x, z) with its heights, tilts and half widths (terrain
/// units) at both ends.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Piece {
    a: [f64; 2],
    b: [f64; 2],
    y: [f32; 2],
    tilt: [f32; 2],
    half: [f32; 2],
}

/// A vertex of the cut curve: sample coordinates (x, z), height, tilt and half width (terrain units).
/// Piece `i` runs from vertex `i` to vertex `i + 1` of its segment.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vertex {
    xz: [f64; 2],
    y: f32,
    tilt: f32,
    half: f32,
}

/// One curve segment (point i to i + 1): its vertices in the layer's list and the tiles its pieces reach.
#[derive(Clone, Debug)]
struct Part {
    ends: [PathPoint; 2],
    first: u32,
    pieces: u32,
    tiles: BTreeSet<TileKey>,
}

/// Most pieces one segment is cut into.
const MAX_PIECES: usize = 4096;

fn bezier(p: &[[f64; 3]; 4], t: f64) -> [f64; 3] {
    let u = 1.0 - t;
    let w = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
    [0, 1, 2].map(|a| w[0] * p[0][a] + w[1] * p[1][a] + w[2] * p[2][a] + w[3] * p[3][a])
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The path's layer: its shape, the terrain's sample spacing, its pieces per segment and which pieces
/// reach each tile.
pub struct PathLayer {
    shape: PathShape,
    spacing: f64,
    parts: Vec<Part>,
    verts: Vec<Vertex>,
    tiles: BTreeSet<TileKey>,
    /// The pieces (by their first vertex) that reach each tile.
    index: BTreeMap<TileKey, Vec<u32>>,
    bounds: Option<SampleRect>,
}

impl PathLayer {
    /// The layer of `points` (at least two, finite) on a terrain of `spacing`, clipped to `bounds` (a
    /// finite map's samples; None for an endless one).
    pub fn new(
        shape: PathShape,
        points: &[PathPoint],
        spacing: f64,
        bounds: Option<SampleRect>,
    ) -> Result<Self, PathError> {
        shape.check()?;
        for (index, p) in points.iter().enumerate() {
            let finite = p
                .position
                .iter()
                .chain(&p.before)
                .chain(&p.after)
                .all(|v| v.is_finite());
            if !finite || !p.tilt.is_finite() {
                return Err(PathError::Point {
                    index,
                    what: "is not finite",
                });
            }
            if !(p.width.is_finite() && (0.0..=1000.0).contains(&p.width)) {
                return Err(PathError::Point {
                    index,
                    what: "has a width scale outside [0, 1000]",
                });
            }
            if p.position.iter().any(|v| v.abs() > 1e12) {
                return Err(PathError::Point {
                    index,
                    what: "lies farther than 1e12 from the terrain's origin",
                });
            }
        }
        let mut layer = Self {
            shape,
            spacing,
            parts: Vec::new(),
            verts: Vec::new(),
            tiles: BTreeSet::new(),
            index: BTreeMap::new(),
            bounds,
        };
        for w in points.windows(2) {
            let part = layer.part([w[0], w[1]]);
            for id in part.first..part.first + part.pieces {
                for t in layer.piece_tiles(&layer.piece(id)) {
                    layer.index.entry(t).or_default().push(id);
                }
            }
            layer.tiles.extend(&part.tiles);
            layer.parts.push(part);
        }
        Ok(layer)
    }

    /// Segment `ends[0]` → `ends[1]` cut into pieces about a sample long (its vertices appended).
    fn part(&mut self, ends: [PathPoint; 2]) -> Part {
        let c = [
            ends[0].position,
            ends[0].after,
            ends[1].before,
            ends[1].position,
        ];
        let length = dist(c[0], c[1]) + dist(c[1], c[2]) + dist(c[2], c[3]);
        let n = ((length / self.spacing).ceil() as usize).clamp(1, MAX_PIECES);
        let sp = self.spacing;
        let half = self.shape.width * 0.5;
        let first = self.verts.len() as u32;
        for k in 0..=n {
            let t = k as f64 / n as f64;
            let p = match k {
                0 => c[0],
                _ if k == n => c[3],
                _ => bezier(&c, t),
            };
            let lerp = |a: f32, b: f32| a + (b - a) * t as f32;
            self.verts.push(Vertex {
                xz: [p[0] / sp - 0.5, p[2] / sp - 0.5],
                y: p[1] as f32,
                tilt: lerp(ends[0].tilt, ends[1].tilt),
                half: lerp(ends[0].width * half, ends[1].width * half),
            });
        }
        let mut tiles = BTreeSet::new();
        for id in first..first + n as u32 {
            tiles.extend(self.piece_tiles(&self.piece(id)));
        }
        Part {
            ends,
            first,
            pieces: n as u32,
            tiles,
        }
    }

    /// Piece `id`: from vertex `id` to the next.
    fn piece(&self, id: u32) -> Piece {
        let (a, b) = (self.verts[id as usize], self.verts[id as usize + 1]);
        Piece {
            a: a.xz,
            b: b.xz,
            y: [a.y, b.y],
            tilt: [a.tilt, b.tilt],
            half: [a.half, b.half],
        }
    }

    /// The samples a piece can write (its box grown by its reach), clipped to the map.
    fn piece_rect(&self, p: &Piece) -> SampleRect {
        let r = f64::from(self.shape.reach(p.half[0].max(p.half[1]))) / self.spacing;
        let x0 = (p.a[0].min(p.b[0]) - r).floor() as i64;
        let z0 = (p.a[1].min(p.b[1]) - r).floor() as i64;
        let x1 = (p.a[0].max(p.b[0]) + r).ceil() as i64;
        let z1 = (p.a[1].max(p.b[1]) + r).ceil() as i64;
        let rect = SampleRect {
            x: x0,
            z: z0,
            w: (x1 - x0 + 1) as usize,
            d: (z1 - z0 + 1) as usize,
        };
        self.bounds.map_or(rect, |b| rect.intersect(b))
    }

    fn piece_tiles(&self, p: &Piece) -> impl Iterator<Item = TileKey> {
        tiles_over(self.piece_rect(p))
    }

    /// Tiles whose result differs from `old`'s: those of the segments that changed (old and new), or all
    /// of both when the shape, spacing or number of points changed.
    pub fn changed_tiles(&self, old: &PathLayer) -> BTreeSet<TileKey> {
        let same = self.shape == old.shape
            && self.spacing == old.spacing
            && self.bounds == old.bounds
            && self.parts.len() == old.parts.len();
        if !same {
            return self.tiles.union(&old.tiles).copied().collect();
        }
        let mut out = BTreeSet::new();
        for (a, b) in self.parts.iter().zip(&old.parts) {
            if a.ends != b.ends {
                out.extend(&a.tiles);
                out.extend(&b.tiles);
            }
        }
        out
    }

    /// Heap bytes of the layer itself (pieces and their index by tile).
    pub fn heap_bytes(&self) -> usize {
        let pieces = self.verts.len() * std::mem::size_of::<Vertex>();
        let index: usize = self.index.values().map(|v| 48 + v.len() * 4).sum();
        pieces + index + self.tiles.len() * 24 + self.parts.len() * std::mem::size_of::<Part>()
    }

    /// Pieces the curve was cut into.
    pub fn piece_count(&self) -> usize {
        self.parts.iter().map(|p| p.pieces as usize).sum()
    }
}

/// Weight across a falloff: 1 within `half`, down to 0 at `half + falloff` (smoothstep, or the curve).
fn weight(d: f32, half: f32, falloff: f32, curve: Option<&[f32]>) -> f32 {
    if d <= half {
        return 1.0;
    }
    if falloff <= 0.0 {
        return 0.0;
    }
    let u = (d - half) / falloff;
    if u >= 1.0 {
        return 0.0;
    }
    match curve {
        Some(c) if c.len() >= 2 => {
            let f = u * (c.len() - 1) as f32;
            let i = (f as usize).min(c.len() - 2);
            let t = f - i as f32;
            (c[i] + (c[i + 1] - c[i]) * t).clamp(0.0, 1.0)
        }
        _ => 1.0 - u * u * (3.0 - 2.0 * u),
    }
}

/// Smooth value noise in [-1, 1] over sample (x, z), lattice every `period` samples.
fn edge_noise(x: i64, z: i64, period: i64) -> f32 {
    let (cx, cz) = (x.div_euclid(period), z.div_euclid(period));
    let (fx, fz) = (
        x.rem_euclid(period) as f32 / period as f32,
        z.rem_euclid(period) as f32 / period as f32,
    );
    let v = |i: i64, j: i64| {
        let h = crate::hash::mix((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (j as u64));
        (h >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    };
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sz) = (s(fx), s(fz));
    let top = v(cx, cz) + (v(cx + 1, cz) - v(cx, cz)) * sx;
    let bottom = v(cx, cz + 1) + (v(cx + 1, cz + 1) - v(cx, cz + 1)) * sx;
    top + (bottom - top) * sz
}

/// The nearest piece of a sample: squared distance (samples), the piece, where along it, which side.
#[derive(Clone, Copy)]
struct Nearest {
    d2: f64,
    piece: u32,
    t: f32,
    side: f32,
}

impl Layer for PathLayer {
    fn tiles(&self) -> &BTreeSet<TileKey> {
        &self.tiles
    }

    fn apply(&self, key: TileKey, tile: &mut Tile) {
        let Some(near) = self.nearest(key) else {
            return;
        };
        let tr = tile_rect(key);
        let sp = self.spacing as f32;
        let full_half = self.shape.width * 0.5;
        let period = ((3.0 / self.spacing).round() as i64).max(1);
        for (k, n) in near.iter().enumerate() {
            if !n.d2.is_finite() {
                continue;
            }
            let p = &self.piece(n.piece);
            let lerp = |v: [f32; 2]| v[0] + (v[1] - v[0]) * n.t;
            let d = n.d2.sqrt() as f32 * sp;
            let half = lerp(p.half);
            self.apply_height(
                &mut tile.heights[k],
                d,
                half,
                lerp(p.y),
                lerp(p.tilt),
                n.side * sp,
            );
            let c = &mut tile.control[k];
            if let Some(pt) = &self.shape.paint {
                let (x, z) = (tr.x + k as i64 % TILE, tr.z + k as i64 / TILE);
                let pd = d + edge_noise(x, z, period) * pt.edge_noise;
                let ph = pt.width
                    * 0.5
                    * if full_half > 0.0 {
                        half / full_half
                    } else {
                        1.0
                    };
                let w = weight(pd, ph, pt.falloff, None);
                if w > 0.0 {
                    let cur = Paint::decode(*c).weight_of(pt.slot);
                    *c = paint(*c, pt.slot, cur + (1.0 - cur) * w);
                }
            }
            if self.shape.holes && d <= half {
                *c |= HOLE;
            }
            if self.shape.clear_margin.is_some_and(|m| d <= half + m) {
                *c |= CLEAR;
            }
        }
    }
}

impl PathLayer {
    /// Each sample of tile `key`: its nearest piece (None when no piece reaches the tile).
    fn nearest(&self, key: TileKey) -> Option<Vec<Nearest>> {
        let list = self.index.get(&key)?;
        let tr = tile_rect(key);
        let mut near = vec![
            Nearest {
                d2: f64::INFINITY,
                piece: 0,
                t: 0.0,
                side: 0.0,
            };
            TILE_SAMPLES
        ];
        for &id in list {
            let p = &self.piece(id);
            let r = self.piece_rect(p).intersect(tr);
            let ab = [p.b[0] - p.a[0], p.b[1] - p.a[1]];
            let len2 = ab[0] * ab[0] + ab[1] * ab[1];
            for z in r.z..r.z + r.d as i64 {
                for x in r.x..r.x + r.w as i64 {
                    let ap = [x as f64 - p.a[0], z as f64 - p.a[1]];
                    let t = if len2 > 0.0 {
                        ((ap[0] * ab[0] + ap[1] * ab[1]) / len2).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    let q = [ap[0] - ab[0] * t, ap[1] - ab[1] * t];
                    let d2 = q[0] * q[0] + q[1] * q[1];
                    let n = &mut near[((z - tr.z) * TILE + (x - tr.x)) as usize];
                    if d2 < n.d2 {
                        let cross = ab[0] * ap[1] - ab[1] * ap[0];
                        let side = if len2 > 0.0 { cross / len2.sqrt() } else { 0.0 };
                        *n = Nearest {
                            d2,
                            piece: id,
                            t: t as f32,
                            side: side as f32,
                        };
                    }
                }
            }
        }
        Some(near)
    }

    /// Samples the path writes (within its reach of the centre line): what its memory is counted against.
    pub fn covered_samples(&self) -> usize {
        let sp = self.spacing as f32;
        self.tiles
            .iter()
            .filter_map(|&t| self.nearest(t))
            .flatten()
            .filter(|n| {
                if !n.d2.is_finite() {
                    return false;
                }
                let p = &self.piece(n.piece);
                let half = p.half[0] + (p.half[1] - p.half[0]) * n.t;
                n.d2.sqrt() as f32 * sp <= self.shape.reach(half)
            })
            .count()
    }

    /// One sample's height: blended towards the curve's (banked by the tilt, lowered by `depth` when
    /// carving) by the falloff weight, as the mode allows.
    fn apply_height(&self, h: &mut f32, d: f32, half: f32, y: f32, tilt: f32, side: f32) {
        let s = &self.shape;
        let w = weight(d, half, s.falloff, s.falloff_curve.as_deref());
        if w <= 0.0 {
            return;
        }
        let mut target = y - side * tilt.tan();
        if s.mode == PathMode::Carve {
            target -= s.depth;
        }
        let allowed = match s.mode {
            PathMode::Follow => true,
            PathMode::Raise => target > *h,
            PathMode::Lower | PathMode::Carve => target < *h,
        };
        if allowed {
            *h = if w >= 1.0 {
                target
            } else {
                *h + (target - *h) * w
            };
        }
    }
}

/// Heights for a curve laid on the ground: each point takes `ground`'s height under it (points where it
/// has none keep theirs), then, with `max_grade` > 0 (rise over run), the heights are evened to that grade
/// half by cutting, half by filling: the mean of the highest profile of that grade below the ground and
/// the lowest above it (both keep the grade, so their mean does).
pub fn lay_on_ground(
    points: &[[f64; 3]],
    mut ground: impl FnMut(f64, f64) -> Option<f64>,
    max_grade: f64,
) -> Vec<f64> {
    let y: Vec<f64> = points
        .iter()
        .map(|p| ground(p[0], p[2]).unwrap_or(p[1]))
        .collect();
    if max_grade <= 0.0 || !max_grade.is_finite() || points.len() < 2 {
        return y;
    }
    let run: Vec<f64> = points
        .windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][2] - w[0][2]).powi(2)).sqrt() * max_grade)
        .collect();
    let envelope = |cut: bool| {
        let mut e = y.clone();
        let pick = |a: f64, b: f64| if cut { a.min(b) } else { a.max(b) };
        let sign = if cut { 1.0 } else { -1.0 };
        for i in 1..e.len() {
            e[i] = pick(e[i], e[i - 1] + sign * run[i - 1]);
        }
        for i in (0..e.len() - 1).rev() {
            e[i] = pick(e[i], e[i + 1] + sign * run[i]);
        }
        e
    };
    let (below, above) = (envelope(true), envelope(false));
    below
        .iter()
        .zip(&above)
        .map(|(a, b)| 0.5 * (a + b))
        .collect()
}

#[cfg(test)]
mod tests;
