//! An instance's rotation and the ground's slope, computed to the same bits on every architecture (also
//! the stored rotation's encoding and decoding, `Instance::rotation` and `encode_rotation`).
//!
//! glam's quaternions sum with SIMD in an order that differs between x86_64 (SSE2) and arm64 (NEON), its
//! slerp uses a SIMD sine approximation only on x86, and std's `acos`/`sin` call the platform's C maths
//! library: the same scatter gave other transforms on arm64 (found by the arm64 suite under qemu). Here
//! every step is a scalar IEEE operation in a fixed order (Rust never fuses a multiply and an add) and the
//! transcendental functions come from `libm`, pure Rust.

use glam::{Quat, Vec3};

/// Slope of a ground normal in degrees from horizontal (0 flat, 90 a wall).
pub(super) fn slope_degrees(n: Vec3) -> f32 {
    libm::acosf(n.y.clamp(-1.0, 1.0)) * (180.0 / std::f32::consts::PI)
}

/// Quaternion product `a * b` (apply `b`, then `a`), components in a fixed order.
fn mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// `q` scaled to unit length, the squares summed in one fixed order.
pub(super) fn normalized(q: [f32; 4]) -> [f32; 4] {
    let [x, y, z, w] = q;
    let r = 1.0 / ((x * x + y * y) + (z * z + w * w)).sqrt();
    [x * r, y * r, z * r, w * r]
}

/// The shortest turn from up to the unit normal `n`: axis up × n, half the angle.
fn tilt(n: Vec3) -> [f32; 4] {
    if n.y >= 1.0 - 2.0 * f32::EPSILON {
        return [0.0, 0.0, 0.0, 1.0];
    }
    if n.y <= -1.0 + 2.0 * f32::EPSILON {
        return [1.0, 0.0, 0.0, 0.0]; // upside down: half a turn about X
    }
    normalized([n.z, 0.0, -n.x, 1.0 + n.y])
}

/// The way from no turn to `q` (w ≥ 0), a share `s` of it along the sphere (slerp from identity).
fn part_of(q: [f32; 4], s: f32) -> [f32; 4] {
    let dot = q[3];
    if dot >= 1.0 - f32::EPSILON {
        let l = [q[0] * s, q[1] * s, q[2] * s, (1.0 - s) + q[3] * s];
        return normalized(l);
    }
    let theta = libm::acosf(dot);
    let sin_theta = libm::sinf(theta);
    let a = libm::sinf((1.0 - s) * theta) / sin_theta;
    let b = libm::sinf(s * theta) / sin_theta;
    [q[0] * b, q[1] * b, q[2] * b, a + q[3] * b]
}

/// An instance's rotation: `align` (0 upright, 1 along the ground) of the tilt to the ground normal `n`,
/// after a turn of `yaw` radians about the up axis.
pub(super) fn placement(n: Vec3, align: f32, yaw: Option<f32>) -> Quat {
    let turn = yaw.map_or([0.0, 0.0, 0.0, 1.0], |a| {
        let (s, c) = libm::sincosf(a * 0.5);
        [0.0, s, 0.0, c]
    });
    let lean = part_of(tilt(n), align);
    Quat::from_array(mul(lean, turn))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_glam_to_within_rounding() {
        let mut worst = 0.0f32;
        for i in 0..2000 {
            let t = i as f32 * 0.37;
            let n = Vec3::new(t.sin() * 0.6, 1.0, (t * 1.7).cos() * 0.6).normalize();
            let align = (i % 11) as f32 / 10.0;
            let yaw = t * 2.3 % std::f32::consts::TAU;
            let glam = Quat::IDENTITY.slerp(Quat::from_rotation_arc(Vec3::Y, n), align)
                * Quat::from_rotation_y(yaw);
            let mine = placement(n, align, Some(yaw));
            // The same rotation (q and -q are one rotation).
            let d = mine.dot(glam).abs();
            worst = if d.is_finite() {
                worst.max(1.0 - d)
            } else {
                f32::INFINITY
            };
            let slope = n.y.acos().to_degrees();
            assert!((slope_degrees(n) - slope).abs() < 1e-3, "{slope}");
        }
        assert!(worst < 1e-5, "worst 1 - |dot| {worst}");
    }

    #[test]
    fn fixed_bits() {
        // Pinned on x86_64; the arm64 build must give the same bits (the Godot golden scatter checks
        // that under qemu).
        let n = Vec3::new(0.3, 0.9, -0.2).normalize();
        let q = placement(n, 0.5, Some(1.25));
        let bits = q.to_array().map(f32::to_bits);
        assert_eq!(bits, [0x3b6691e0, 0x3f151b16, 0xbdc2a9c9, 0x3f4eaa51]);
        assert!((q.length() - 1.0).abs() < 1e-6);
        assert_eq!(placement(Vec3::Y, 1.0, None), Quat::IDENTITY);
    }
}
