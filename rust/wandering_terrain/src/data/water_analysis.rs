//! Lakes, rivers and flow over a rectangle of a terrain resource's samples (`terrain_core::water`), as
//! GDScript values: `TerrainData` and `TerrainRegions` offer the same three calls through this file.

use godot::classes::image::Format;
use godot::classes::{Curve3D, Image};
use godot::prelude::*;
use terrain_core::sample_rect::SampleRect;
use terrain_core::water::{self, FlowField, Grid};

/// Most samples one call reads (a call needs about 20 bytes a sample while it runs).
pub const MAX_SAMPLES: usize = 2048 * 2048;

/// The heights of a rectangle of samples (query coordinates) and the spacing between them.
pub(crate) struct Area {
    pub heights: Vec<f32>,
    pub rect: SampleRect,
    pub spacing: f64,
}

impl Area {
    fn grid(&self) -> Grid<'_> {
        Grid {
            heights: &self.heights,
            w: self.rect.w,
            d: self.rect.d,
            spacing: self.spacing,
        }
    }

    /// Terrain X/Z of sample (x, z) of the area.
    fn position(&self, x: usize, z: usize) -> Vector2 {
        let p = |o: i64, i: usize| {
            terrain_core::samples::sample_centre((o + i as i64) as f64, self.spacing)
        };
        Vector2::new(p(self.rect.x, x) as f32, p(self.rect.z, z) as f32)
    }
}

fn sea(who: &str, sea_level: f64) -> Option<f32> {
    if sea_level.is_nan() || sea_level > 1e9 {
        godot_error!(
            "{who}: sea_level must be a number up to 1e9 (-INF for no sea), got {sea_level}"
        );
        return None;
    }
    Some(sea_level.max(f64::from(f32::MIN)) as f32)
}

/// `find_lakes`: one Dictionary a lake (`level`, `area` in terrain units², `depth`, `bounds` as a Rect2 in
/// terrain units, `point`: its deepest place, `samples`), largest first.
pub(crate) fn lakes(
    who: &str,
    a: &Area,
    min_area: f64,
    min_depth: f64,
    sea_level: f64,
) -> Array<VarDictionary> {
    let Some(sea) = sea(who, sea_level) else {
        return Array::new();
    };
    let found = water::find_lakes(a.grid(), sea, min_area, min_depth as f32);
    let lakes = match found {
        Ok(l) => l,
        Err(e) => {
            godot_error!("{who}: {e}; no lakes");
            return Array::new();
        }
    };
    let sp = a.spacing as f32;
    lakes
        .iter()
        .map(|l| {
            let mut d = VarDictionary::new();
            let [x, z, w, dd] = l.bounds;
            let corner = a.position(x, z) - Vector2::splat(0.5 * sp);
            d.set("level", l.level);
            d.set("area", l.area);
            d.set("depth", l.depth);
            d.set(
                "bounds",
                Rect2::new(corner, Vector2::new(w as f32 * sp, dd as f32 * sp)),
            );
            d.set("point", a.position(l.deepest[0], l.deepest[1]));
            d.set("samples", l.cells as i64);
            d
        })
        .collect()
}

fn flow(who: &str, a: &Area, sea_level: f64) -> Option<FlowField> {
    let sea = sea(who, sea_level)?;
    match water::flow(a.grid(), sea) {
        Ok(f) => Some(f),
        Err(e) => {
            godot_error!("{who}: {e}; nothing computed");
            None
        }
    }
}

/// `find_rivers`: a Curve3D a river (terrain space, on the ground, upstream first), where at least
/// `min_catchment` terrain units² drain through; longest first.
pub(crate) fn rivers(
    who: &str,
    a: &Area,
    min_catchment: f64,
    sea_level: f64,
) -> Array<Gd<Curve3D>> {
    let cell = a.spacing * a.spacing;
    if !(min_catchment.is_finite() && min_catchment >= 2.0 * cell) {
        godot_error!(
            "{who}: min_catchment must be at least two samples' area ({}), got {min_catchment}; no rivers",
            2.0 * cell
        );
        return Array::new();
    }
    let Some(f) = flow(who, a, sea_level) else {
        return Array::new();
    };
    let lines = match f.rivers((min_catchment / cell) as f32) {
        Ok(l) => l,
        Err(e) => {
            godot_error!("{who}: {e}; no rivers");
            return Array::new();
        }
    };
    lines
        .iter()
        .map(|line| {
            let mut c = Curve3D::new_gd();
            for &[x, z] in simplify(line).iter() {
                let p = a.position(x, z);
                c.add_point(Vector3::new(p.x, a.heights[z * a.rect.w + x], p.y));
            }
            c
        })
        .collect()
}

/// Drops points of a line of samples that lie within 0.75 samples of the straight line between their
/// neighbours that are kept (Douglas–Peucker), ends always kept.
fn simplify(line: &[[usize; 2]]) -> Vec<[usize; 2]> {
    let mut keep = vec![false; line.len()];
    keep[0] = true;
    keep[line.len() - 1] = true;
    let mut stack = vec![(0, line.len() - 1)];
    while let Some((i, j)) = stack.pop() {
        let p = |k: usize| [line[k][0] as f64, line[k][1] as f64];
        let (a, b) = (p(i), p(j));
        let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2))
            .sqrt()
            .max(1e-9);
        let mut far = (0.0, 0);
        for k in i + 1..j {
            let q = p(k);
            let d = ((b[0] - a[0]) * (a[1] - q[1]) - (a[0] - q[0]) * (b[1] - a[1])).abs() / len;
            if d > far.0 {
                far = (d, k);
            }
        }
        if far.0 > 0.75 {
            keep[far.1] = true;
            stack.push((i, far.1));
            stack.push((far.1, j));
        }
    }
    line.iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(p, _)| *p)
        .collect()
}

/// `get_flow_map`: an RGBF image of the area, a pixel a sample: red and green the direction the water
/// leaves the sample in (X, Z, unit length; 0 where it leaves the area or meets the sea), blue the
/// catchment in terrain units² (what drains through the sample, itself included).
pub(crate) fn flow_map(who: &str, a: &Area, sea_level: f64) -> Option<Gd<Image>> {
    let f = flow(who, a, sea_level)?;
    let (w, d) = (a.rect.w, a.rect.d);
    let cell = (a.spacing * a.spacing) as f32;
    let mut bytes = PackedByteArray::new();
    bytes.resize(w * d * 12);
    for (i, out) in bytes.as_mut_slice().chunks_exact_mut(12).enumerate() {
        let r = f.receiver[i] as usize;
        let (dx, dz) = (
            (r % w) as f32 - (i % w) as f32,
            (r / w) as f32 - (i / w) as f32,
        );
        let len = (dx * dx + dz * dz).sqrt().max(1e-9);
        let v = if r == i {
            [0.0, 0.0]
        } else {
            [dx / len, dz / len]
        };
        out[0..4].copy_from_slice(&v[0].to_le_bytes());
        out[4..8].copy_from_slice(&v[1].to_le_bytes());
        out[8..12].copy_from_slice(&(f.accumulation[i] * cell).to_le_bytes());
    }
    Image::create_from_data(w as i32, d as i32, false, Format::RGBF, &bytes)
}
