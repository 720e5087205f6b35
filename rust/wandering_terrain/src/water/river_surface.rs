//! The rivers of a `TerrainWater`: each a ribbon of water along a centre line (core
//! `water::RiverSurface`), as a mesh in terrain space for the water shader (its `UV.y` runs downstream,
//! in terrain units, for the flow).

use godot::classes::mesh::PrimitiveType;
use godot::classes::{ArrayMesh, Curve3D, SurfaceTool};
use godot::prelude::*;
use terrain_core::water::RiverSurface;

/// The centre line of `curve` (terrain space) with points about `step` apart, as a river surface.
pub(crate) fn from_curve(curve: &Gd<Curve3D>, step: f64, half_width: f64) -> Option<RiverSurface> {
    let baked = curve.get_baked_points();
    let mut points: Vec<[f64; 3]> = Vec::new();
    for p in baked.as_slice() {
        let q = [p.x, p.y, p.z].map(f64::from);
        if !q.iter().all(|v| v.is_finite()) {
            return None;
        }
        let far = points.last().is_none_or(|l: &[f64; 3]| {
            ((q[0] - l[0]).powi(2) + (q[2] - l[2]).powi(2)).sqrt() >= step
        });
        if far {
            points.push(q);
        }
    }
    if let (Some(last), Some(end)) = (points.last().copied(), baked.as_slice().last()) {
        let end = [end.x, end.y, end.z].map(f64::from);
        if last != end {
            points.push(end);
        }
    }
    (points.len() >= 2).then(|| RiverSurface::new(points, half_width))
}

/// A ribbon mesh over the river: two vertices a point, `half_width` to each side, at the line's height.
pub(crate) fn mesh(r: &RiverSurface) -> Option<Gd<ArrayMesh>> {
    let mut st = SurfaceTool::new_gd();
    st.begin(PrimitiveType::TRIANGLES);
    let p = &r.points;
    let mut along = 0.0f64;
    for i in 0..p.len() {
        let (a, b) = (p[i.saturating_sub(1)], p[(i + 1).min(p.len() - 1)]);
        let t = [b[0] - a[0], b[2] - a[2]];
        let len = (t[0] * t[0] + t[1] * t[1]).sqrt().max(1e-9);
        let n = [-t[1] / len * r.half_width, t[0] / len * r.half_width];
        if i > 0 {
            along += ((p[i][0] - p[i - 1][0]).powi(2) + (p[i][2] - p[i - 1][2]).powi(2)).sqrt();
        }
        for (side, s) in [(0.0, 1.0), (1.0, -1.0)] {
            st.set_uv(Vector2::new(side, along as f32));
            st.set_normal(Vector3::UP);
            st.add_vertex(Vector3::new(
                (p[i][0] + n[0] * s) as f32,
                p[i][1] as f32,
                (p[i][2] + n[1] * s) as f32,
            ));
        }
    }
    for i in 0..p.len() as i32 - 1 {
        let k = 2 * i;
        for v in [k, k + 1, k + 2, k + 1, k + 3, k + 2] {
            st.add_index(v);
        }
    }
    st.commit()
}
