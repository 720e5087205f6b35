//! A terrain stamp's layer (`TerrainStamp` on the Godot side): a height image (a crater, a mesa, an
//! imported feature) placed on the terrain by a transform and blended into the ground below (add, max,
//! min or replace), with a strength and a falloff towards its edges. A layer over the sculpted terrain
//! (`layers`): moving, turning or scaling it composes its old and new tiles again.

use crate::layers::{tile_rect, tiles_over, Layer, Tile, TileKey, TILE};
use crate::sample_rect::SampleRect;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// How the stamp's heights meet the ground's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StampBlend {
    /// Ground + the image's heights (a bump or, with negative heights, a dent on any ground).
    Add,
    /// The higher of the two (a mesa that does not bury hills).
    Max,
    /// The lower of the two (a crater's bowl that does not fill valleys).
    Min,
    /// The image's heights (a feature placed as it is).
    Replace,
}

impl StampBlend {
    pub fn from_index(i: i64) -> Option<Self> {
        [Self::Add, Self::Max, Self::Min, Self::Replace]
            .get(usize::try_from(i).ok()?)
            .copied()
    }
}

/// A height image: `width` × `depth` values, row-major, in 0..1 or any range (scaled by the height).
#[derive(Clone, Debug, PartialEq)]
pub struct StampImage {
    pub width: usize,
    pub depth: usize,
    pub values: Vec<f32>,
}

impl StampImage {
    /// Bilinear value at (u, v) in [0, 1]² (texel centres at (i + 0.5) / width).
    fn at(&self, u: f64, v: f64) -> f32 {
        let fx = (u * self.width as f64 - 0.5).clamp(0.0, (self.width - 1) as f64);
        let fz = (v * self.depth as f64 - 0.5).clamp(0.0, (self.depth - 1) as f64);
        let (x0, z0) = (fx.floor() as usize, fz.floor() as usize);
        let (x1, z1) = ((x0 + 1).min(self.width - 1), (z0 + 1).min(self.depth - 1));
        let (tx, tz) = ((fx - x0 as f64) as f32, (fz - z0 as f64) as f32);
        let h = |x: usize, z: usize| self.values[z * self.width + x];
        let top = h(x0, z0) + (h(x1, z0) - h(x0, z0)) * tx;
        let bottom = h(x0, z1) + (h(x1, z1) - h(x0, z1)) * tx;
        top + (bottom - top) * tz
    }
}

/// Bad stamp settings: the property and what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct StampError(pub String);

impl fmt::Display for StampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a stamp lies and how it blends (terrain units).
#[derive(Clone, Debug, PartialEq)]
pub struct StampPlacement {
    /// Terrain X/Z → the image's (u, v): `uv = m · (x, z) + o`; the image covers u, v in [0, 1].
    pub to_uv: [[f64; 3]; 2],
    /// Height of the image's 0.
    pub base: f32,
    /// Height of the image's 1 above `base`.
    pub height: f32,
    pub blend: StampBlend,
    /// 0..1: how much of the stamp's result replaces the ground.
    pub strength: f32,
    /// 0..1: the share of the way from the edge to the centre over which the stamp fades in.
    pub falloff: f32,
}

/// The stamp's layer.
pub struct StampLayer {
    image: Arc<StampImage>,
    place: StampPlacement,
    spacing: f64,
    tiles: BTreeSet<TileKey>,
}

impl StampLayer {
    /// The layer of `image` at `place` on a terrain of `spacing`, clipped to `bounds` (None: endless).
    pub fn new(
        image: Arc<StampImage>,
        place: StampPlacement,
        spacing: f64,
        bounds: Option<SampleRect>,
    ) -> Result<Self, StampError> {
        let bad = |what: &str| Err(StampError(what.to_string()));
        if image.width == 0 || image.depth == 0 || image.values.len() != image.width * image.depth {
            return bad("image must be a non-empty height image");
        }
        if image.values.iter().any(|v| !v.is_finite()) {
            return bad("image holds a non-finite value");
        }
        if !(place.height.is_finite() && place.height.abs() <= 1e6) {
            return bad("height must be within ±1000000");
        }
        if !(0.0..=1.0).contains(&place.strength) {
            return bad("strength must be in [0, 1]");
        }
        if !(0.0..=1.0).contains(&place.falloff) {
            return bad("falloff must be in [0, 1]");
        }
        if !place.base.is_finite() || place.to_uv.iter().flatten().any(|v| !v.is_finite()) {
            return bad("the stamp's transform must be finite with a non-zero size");
        }
        let mut layer = Self {
            image,
            place,
            spacing,
            tiles: BTreeSet::new(),
        };
        if let Some(r) = layer.rect() {
            let r = bounds.map_or(r, |b| r.intersect(b));
            layer.tiles = tiles_over(r).collect();
        }
        Ok(layer)
    }

    /// The samples under the image's square (None when its transform is degenerate).
    fn rect(&self) -> Option<SampleRect> {
        let m = &self.place.to_uv;
        let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
        if det.abs() < 1e-18 {
            return None;
        }
        // The square's corners in terrain X/Z: the inverse of `to_uv`.
        let corner = |u: f64, v: f64| {
            let (du, dv) = (u - m[0][2], v - m[1][2]);
            [
                (m[1][1] * du - m[0][1] * dv) / det,
                (-m[1][0] * du + m[0][0] * dv) / det,
            ]
        };
        let c = [
            corner(0.0, 0.0),
            corner(1.0, 0.0),
            corner(0.0, 1.0),
            corner(1.0, 1.0),
        ];
        let s = |v: f64| v / self.spacing - 0.5;
        let x0 = c
            .iter()
            .map(|p| s(p[0]))
            .fold(f64::INFINITY, f64::min)
            .floor();
        let x1 = c
            .iter()
            .map(|p| s(p[0]))
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil();
        let z0 = c
            .iter()
            .map(|p| s(p[1]))
            .fold(f64::INFINITY, f64::min)
            .floor();
        let z1 = c
            .iter()
            .map(|p| s(p[1]))
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil();
        if !(x1 - x0).is_finite() || (x1 - x0) > 1e7 || (z1 - z0) > 1e7 {
            return None;
        }
        Some(SampleRect {
            x: x0 as i64,
            z: z0 as i64,
            w: (x1 - x0) as usize + 1,
            d: (z1 - z0) as usize + 1,
        })
    }
}

impl Layer for StampLayer {
    fn tiles(&self) -> &BTreeSet<TileKey> {
        &self.tiles
    }

    fn apply(&self, key: TileKey, tile: &mut Tile) {
        let (p, tr, sp) = (&self.place, tile_rect(key), self.spacing);
        let m = &p.to_uv;
        for k in 0..tile.heights.len() {
            let x = crate::samples::sample_centre((tr.x + k as i64 % TILE) as f64, sp);
            let z = crate::samples::sample_centre((tr.z + k as i64 / TILE) as f64, sp);
            let u = m[0][0] * x + m[0][1] * z + m[0][2];
            let v = m[1][0] * x + m[1][1] * z + m[1][2];
            if !(0.0..=1.0).contains(&u) || !(0.0..=1.0).contains(&v) {
                continue;
            }
            // 0 at the edge, 1 at the centre.
            let edge = (u.min(1.0 - u).min(v).min(1.0 - v) * 2.0) as f32;
            let fade = if p.falloff > 0.0 {
                let t = (edge / p.falloff).min(1.0);
                t * t * (3.0 - 2.0 * t)
            } else {
                1.0
            };
            let w = p.strength * fade;
            if w <= 0.0 {
                continue;
            }
            let h = &mut tile.heights[k];
            let s = self.image.at(u, v) * p.height;
            let target = match p.blend {
                StampBlend::Add => *h + s,
                StampBlend::Max => h.max(p.base + s),
                StampBlend::Min => h.min(p.base + s),
                StampBlend::Replace => p.base + s,
            };
            *h = if w >= 1.0 {
                target
            } else {
                *h + (target - *h) * w
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::tests::Grid;
    use crate::layers::{Ground, LayerStack};

    /// A crater: a bowl of depth 1 at the centre rising to 0 at the rim.
    fn crater(n: usize) -> Arc<StampImage> {
        let values = (0..n * n)
            .map(|i| {
                let (x, z) = (
                    (i % n) as f32 / (n - 1) as f32,
                    (i / n) as f32 / (n - 1) as f32,
                );
                let r = ((x - 0.5).powi(2) + (z - 0.5).powi(2)).sqrt() * 2.0;
                -(1.0 - r.min(1.0))
            })
            .collect();
        Arc::new(StampImage {
            width: n,
            depth: n,
            values,
        })
    }

    /// A square of `size` centred on terrain (cx, cz), axis-aligned.
    fn square(cx: f64, cz: f64, size: f64) -> [[f64; 3]; 2] {
        [
            [1.0 / size, 0.0, 0.5 - cx / size],
            [0.0, 1.0 / size, 0.5 - cz / size],
        ]
    }

    fn place(blend: StampBlend, to_uv: [[f64; 3]; 2]) -> StampPlacement {
        StampPlacement {
            to_uv,
            base: 0.0,
            height: 10.0,
            blend,
            strength: 1.0,
            falloff: 0.0,
        }
    }

    #[test]
    fn a_stamp_blends_where_it_lies_and_leaves_the_rest() {
        let mut g = Grid::hills(128);
        let original = g.h.clone();
        let stamp = StampLayer::new(
            crater(33),
            place(StampBlend::Add, square(64.0, 64.0, 40.0)),
            1.0,
            g.bounds(),
        )
        .unwrap();
        let mut s = LayerStack::default();
        s.set(7, 0, Arc::new(stamp), None, &g);
        s.compose_now(&mut g);
        let i = 63 * 128 + 63; // sample 63 is at 63.5: the centre of the crater's 64
        assert!(
            (g.h[i] - (original[i] - 10.0)).abs() < 0.5,
            "{} vs {}",
            g.h[i],
            original[i]
        );
        assert_eq!(
            g.h[10 * 128 + 10],
            original[10 * 128 + 10],
            "outside: untouched"
        );
        // Replace and min at the centre.
        let mut g2 = Grid::hills(128);
        let rep = StampLayer::new(
            crater(33),
            StampPlacement {
                base: 3.0,
                ..place(StampBlend::Replace, square(64.0, 64.0, 40.0))
            },
            1.0,
            g2.bounds(),
        )
        .unwrap();
        let mut s2 = LayerStack::default();
        s2.set(1, 0, Arc::new(rep), None, &g2);
        s2.compose_now(&mut g2);
        assert!((g2.h[i] - (3.0 - 10.0)).abs() < 0.5);
        s2.remove(1);
        s2.compose_now(&mut g2);
        assert_eq!(g2.h, original);
    }

    #[test]
    fn bad_stamps_are_refused() {
        let img = crater(5);
        let ok = place(StampBlend::Max, square(0.0, 0.0, 10.0));
        let b = Some(SampleRect {
            x: 0,
            z: 0,
            w: 64,
            d: 64,
        });
        let err = |p: StampPlacement| StampLayer::new(img.clone(), p, 1.0, b).err().unwrap().0;
        assert!(err(StampPlacement {
            strength: 2.0,
            ..ok.clone()
        })
        .starts_with("strength"));
        assert!(err(StampPlacement {
            height: f32::NAN,
            ..ok.clone()
        })
        .starts_with("height"));
        let degenerate =
            StampLayer::new(img.clone(), place(StampBlend::Add, [[0.0; 3]; 2]), 1.0, b);
        assert!(
            degenerate.unwrap().tiles().is_empty(),
            "a zero-size stamp covers nothing"
        );
    }
}
