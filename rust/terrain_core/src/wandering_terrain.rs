//! Placement of the original wandering terrain's wandering mesh: at the camera on X/Z, rotated so the mesh's +Z (its LOD
//! rings' forward direction) points where the camera looks, optionally snapped to the mesh's grid.
//!
//! The shader maps a mesh vertex `v` to terrain position `R(rotation) * v + position`, with
//! `R(a) * (x, z) = (x cos a - z sin a, x sin a + z cos a)` (the original wandering terrain's vertex stage). `R(a) * (0, 1)`
//! is `(-sin a, cos a)`, so facing the horizontal direction `f` takes `a = atan2(-f.x, f.z)`; for a camera
//! without roll that is the original's `PI - camera.rotation.y`.
//!
//! Snapping: in the mesh's own frame the position is rounded to a multiple of `snap` (the mesh's coarsest
//! vertex spacing). Every vertex then lands on the same lattice `R(a) * snap * Z²` wherever the camera is,
//! so moving the camera never changes which terrain points the vertices sample.

/// Where to put the mesh: terrain-space position (X, Z) and rotation (radians).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub position: [f64; 2],
    pub rotation: f64,
}

/// Placement for a camera at `camera` (X, Z) looking along `forward` (X, Z; need not be normalised).
/// A vertical view (forward ≈ 0) faces +Z. `back_offset` moves the mesh that far behind the camera.
pub fn place(camera: [f64; 2], forward: [f64; 2], snap: f64, back_offset: f64) -> Placement {
    let len = (forward[0] * forward[0] + forward[1] * forward[1]).sqrt();
    let (fx, fz) = if len > 1e-6 && len.is_finite() {
        (forward[0] / len, forward[1] / len)
    } else {
        (0.0, 1.0)
    };
    let rotation = (-fx).atan2(fz);
    let back = if back_offset.is_finite() {
        back_offset.max(0.0)
    } else {
        0.0
    };
    let mut p = [camera[0] - fx * back, camera[1] - fz * back];
    if !(p[0].is_finite() && p[1].is_finite()) {
        p = [0.0, 0.0];
    }
    if snap > 0.0 && snap.is_finite() {
        let (c, s) = (rotation.cos(), rotation.sin());
        // Into the mesh frame (R(-a)), round, back out (R(a)).
        let q = [p[0] * c + p[1] * s, -p[0] * s + p[1] * c];
        let q = [(q[0] / snap).round() * snap, (q[1] / snap).round() * snap];
        p = [q[0] * c - q[1] * s, q[0] * s + q[1] * c];
    }
    Placement {
        position: p,
        rotation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rot(a: f64, v: [f64; 2]) -> [f64; 2] {
        [
            v[0] * a.cos() - v[1] * a.sin(),
            v[0] * a.sin() + v[1] * a.cos(),
        ]
    }

    #[test]
    fn faces_the_view_direction() {
        for &(fx, fz) in &[(0.0, 1.0), (1.0, 0.0), (-0.3, -0.8), (0.5, 0.5)] {
            let p = place([3.0, 4.0], [fx, fz], 0.0, 0.0);
            let d = rot(p.rotation, [0.0, 1.0]);
            let n = (fx * fx + fz * fz).sqrt();
            assert!((d[0] - fx / n).abs() < 1e-12 && (d[1] - fz / n).abs() < 1e-12);
            assert_eq!(p.position, [3.0, 4.0]);
        }
        // the original wandering terrain: rotation = PI - camera.rotation.y, forward = (-sin ry, -cos ry).
        let ry = 0.7f64;
        let p = place([0.0, 0.0], [-ry.sin(), -ry.cos()], 0.0, 0.0);
        assert!((p.rotation - (std::f64::consts::PI - ry)).abs() < 1e-12);
    }

    #[test]
    fn snapped_vertices_stay_on_one_lattice() {
        let f = [0.37, -0.9];
        let snap = 0.5;
        let a = place([10.0, 20.0], f, snap, 0.0);
        let vertex = [0.25, 1.75];
        let wa = rot(a.rotation, vertex);
        for k in 1..50 {
            let cam = [10.0 + 0.0731 * k as f64, 20.0 - 0.0517 * k as f64];
            let b = place(cam, f, snap, 0.0);
            // The world position of a vertex, moved back into the mesh frame, differs by whole grid steps.
            let d = [
                b.position[0] + rot(b.rotation, vertex)[0] - a.position[0] - wa[0],
                b.position[1] + rot(b.rotation, vertex)[1] - a.position[1] - wa[1],
            ];
            let q = rot(-a.rotation, d);
            for c in q {
                assert!(((c / snap).round() - c / snap).abs() < 1e-9, "{q:?}");
            }
            assert!(
                ((b.position[0] - cam[0]).powi(2) + (b.position[1] - cam[1]).powi(2)).sqrt()
                    <= snap
            );
        }
    }

    #[test]
    fn degenerate_input_is_safe() {
        let p = place([f64::NAN, 1.0], [0.0, 0.0], 1.0, f64::INFINITY);
        assert!(p.position[0].is_finite() && p.rotation == 0.0);
    }
}
