//! the original wandering terrain's bicubic Bézier patch: the surface between four neighbouring samples, shaped by their
//! heights and slopes. The CPU twin of `shaders/bezier_patch.gdshaderinc`; both must agree.
//!
//! Sample (i, j) sits at terrain position (i + 0.5, j + 0.5) in sample units (texel centres, as in the
//! document). For a point `s = pos - 0.5` in sample space the patch spans samples `floor(s)` and
//! `floor(s) + 1` on each axis, with `t = fract(s)`; indices outside the grid clamp to the edge, each axis on
//! its own (the shader's clamp-to-edge texture sampling).
//!
//! With corner heights h and slopes (sx, sz) (height change over a third of a sample, see `slope_pass`), the
//! 16 control heights are, for rows k along Z and columns along X:
//! ```text
//! k=0: h00        h00+sx00        h10-sx10        h10
//! k=1: h00+sz00   h00+sz00+sx00   h10+sz10-sx10   h10+sz10
//! k=2: h01-sz01   h01-sz01+sx01   h11-sz11-sx11   h11-sz11
//! k=3: h01        h01+sx01        h11-sx11        h11
//! ```
//! which is exactly what the original's four curves u0..u3 evaluate (its control points' X/Z sit at thirds,
//! so X and Z are linear in the parameters).

/// Cubic Bernstein weights at t.
#[inline(always)]
fn bernstein(t: f32) -> [f32; 4] {
    let m = 1.0 - t;
    [m * m * m, 3.0 * t * m * m, 3.0 * t * t * m, t * t * t]
}

/// Derivative weights of a cubic Bézier at t, applied to control differences.
#[inline(always)]
fn bernstein_deriv(t: f32) -> [f32; 3] {
    let m = 1.0 - t;
    [3.0 * m * m, 6.0 * t * m, 3.0 * t * t]
}

/// A sample of the patch's data: (height, slope x, slope z), slopes being the height change over a third
/// of a sample (the control point offset).
pub type Texel = [f32; 3];

/// Splits a sample-space point into the patch's lower corner index and the local parameters (t_u, t_v).
/// `as i64` saturates, so huge coordinates clamp instead of overflowing.
#[inline(always)]
pub fn locate(sx: f64, sz: f64) -> ([i64; 2], f32, f32) {
    let (fx, fz) = (floor(sx), floor(sz));
    ([fx as i64, fz as i64], (sx - fx) as f32, (sz - fz) as f32)
}

/// `f64::floor`, inlined: without SSE4.1 the standard one is a library call, which dominated the
/// clipmap data windows' per-texel cost. Same result for every input (NaN, infinities and values beyond
/// 2^52, which are whole numbers already, take the standard path).
#[inline(always)]
pub fn floor(x: f64) -> f64 {
    if x.abs() < 4.5e15 {
        let t = x as i64 as f64;
        if t > x {
            t - 1.0
        } else if t == x {
            x // keeps -0.0
        } else {
            t
        }
    } else {
        x.floor()
    }
}

/// The four corner samples (lower x/lower z, upper x/lower z, lower x/upper z, upper x/upper z) of the
/// patch containing sample-space point `s` in a `width * depth` grid, indices clamped to the grid per axis.
#[inline(always)]
fn corners(data: &[Texel], width: usize, depth: usize, sx: f64, sz: f64) -> ([Texel; 4], f32, f32) {
    let ([ix, iz], tu, tv) = locate(sx, sz);
    let cx = |i: i64| i.clamp(0, width as i64 - 1) as usize;
    let cz = |i: i64| i.clamp(0, depth as i64 - 1) as usize;
    let (x0, x1, z0, z1) = (
        cx(ix),
        cx(ix.saturating_add(1)),
        cz(iz),
        cz(iz.saturating_add(1)),
    );
    (
        [
            data[z0 * width + x0],
            data[z0 * width + x1],
            data[z1 * width + x0],
            data[z1 * width + x1],
        ],
        tu,
        tv,
    )
}

/// The 16 control heights, rows along Z (see module docs).
#[inline(always)]
fn control(c: &[Texel; 4]) -> [[f32; 4]; 4] {
    let [p00, p10, p01, p11] = *c;
    let row = |a: Texel, b: Texel, dz_a: f32, dz_b: f32| {
        let (ha, hb) = (a[0] + dz_a, b[0] + dz_b);
        [ha, ha + a[1], hb - b[1], hb]
    };
    [
        row(p00, p10, 0.0, 0.0),
        row(p00, p10, p00[2], p10[2]),
        row(p01, p11, -p01[2], -p11[2]),
        row(p01, p11, 0.0, 0.0),
    ]
}

/// Lowest and highest control height of the patch with corners `c`: the surface lies between them (the
/// convex hull property of Bézier surfaces).
pub fn control_bounds(c: &[Texel; 4]) -> (f32, f32) {
    control(c)
        .iter()
        .flatten()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &k| {
            (lo.min(k), hi.max(k))
        })
}

/// Height of the patch with corners `c` (see `corners`) at local parameters (tu, tv).
#[inline]
pub fn height_in_patch(c: &[Texel; 4], tu: f32, tv: f32) -> f32 {
    let k = control(c);
    let (bu, bv) = (bernstein(tu), bernstein(tv));
    let mut h = 0.0;
    for r in 0..4 {
        h += bv[r] * (bu[0] * k[r][0] + bu[1] * k[r][1] + bu[2] * k[r][2] + bu[3] * k[r][3]);
    }
    h
}

/// Height and its derivatives along X and Z (per sample unit) of the patch with corners `c` at (tu, tv).
#[inline]
pub fn gradient_in_patch(c: &[Texel; 4], tu: f32, tv: f32) -> (f32, f32, f32) {
    let k = control(c);
    let (bu, bv) = (bernstein(tu), bernstein(tv));
    let (du, dv) = (bernstein_deriv(tu), bernstein_deriv(tv));
    // Curves along X for each Z row, evaluated and differentiated in u.
    let mut along = [0.0f32; 4];
    let mut along_du = [0.0f32; 4];
    for r in 0..4 {
        along[r] = bu[0] * k[r][0] + bu[1] * k[r][1] + bu[2] * k[r][2] + bu[3] * k[r][3];
        along_du[r] =
            du[0] * (k[r][1] - k[r][0]) + du[1] * (k[r][2] - k[r][1]) + du[2] * (k[r][3] - k[r][2]);
    }
    let h = bv[0] * along[0] + bv[1] * along[1] + bv[2] * along[2] + bv[3] * along[3];
    let hu = bv[0] * along_du[0] + bv[1] * along_du[1] + bv[2] * along_du[2] + bv[3] * along_du[3];
    let hv = dv[0] * (along[1] - along[0])
        + dv[1] * (along[2] - along[1])
        + dv[2] * (along[3] - along[2]);
    (h, hu, hv)
}

/// Height at sample-space point (sx, sz) (= world position / spacing - 0.5) of a grid of texels, row-major,
/// `width * depth` long.
#[inline]
pub fn height(data: &[Texel], width: usize, depth: usize, sx: f64, sz: f64) -> f32 {
    let (c, tu, tv) = corners(data, width, depth, sx, sz);
    height_in_patch(&c, tu, tv)
}

/// Height and its derivatives along X and Z, per sample unit, at sample-space point (sx, sz) of a grid.
#[inline]
pub fn height_and_gradient(
    data: &[Texel],
    width: usize,
    depth: usize,
    sx: f64,
    sz: f64,
) -> (f32, f32, f32) {
    let (c, tu, tv) = corners(data, width, depth, sx, sz);
    gradient_in_patch(&c, tu, tv)
}

/// Unit normal from derivatives per world unit: the original's cross(dV, dU) = (-dh/dx, 1, -dh/dz).
#[inline]
pub fn normal_from_gradient(dhdx: f32, dhdz: f32) -> [f32; 3] {
    // (−∂h/∂x, 1, −∂h/∂z) scaled to unit length, as the shader's `normalize` does.
    glam::Vec3::new(-dhdx, 1.0, -dhdz).normalize().to_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat_ramp(w: usize, d: usize) -> Vec<[f32; 3]> {
        // h = x: slopes (1/3 per third of a sample) make the patch exactly linear inside.
        (0..w * d)
            .map(|i| [(i % w) as f32, 1.0 / 3.0, 0.0])
            .collect()
    }

    #[test]
    fn sample_centres_hit_heights() {
        let data: Vec<[f32; 3]> = (0..12).map(|i| [i as f32 * 0.7, 0.1, -0.2]).collect();
        for j in 0..3 {
            for i in 0..4 {
                let h = height(&data, 4, 3, i as f64, j as f64);
                assert!((h - data[j * 4 + i][0]).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn linear_ramp_is_reproduced_with_its_gradient() {
        let data = flat_ramp(8, 8);
        for &(x, z) in &[(1.25, 2.5), (3.9, 0.1), (5.5, 6.75)] {
            let (h, hu, hv) = height_and_gradient(&data, 8, 8, x, z);
            assert!((h - x as f32).abs() < 1e-5, "{h} at {x}");
            assert!((hu - 1.0).abs() < 1e-5 && hv.abs() < 1e-6, "{hu} {hv}");
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let data: Vec<[f32; 3]> = (0..64)
            .map(|i| {
                [
                    ((i * 37) % 11) as f32,
                    ((i * 5) % 3) as f32 * 0.1 - 0.1,
                    ((i * 7) % 5) as f32 * 0.05,
                ]
            })
            .collect();
        let e = 1e-3;
        for &(x, z) in &[(1.3, 2.6), (4.2, 4.9), (6.01, 0.4)] {
            let (_, hu, hv) = height_and_gradient(&data, 8, 8, x, z);
            let fu =
                (height(&data, 8, 8, x + e, z) - height(&data, 8, 8, x - e, z)) / (2.0 * e as f32);
            let fv =
                (height(&data, 8, 8, x, z + e) - height(&data, 8, 8, x, z - e)) / (2.0 * e as f32);
            assert!(
                (hu - fu).abs() < 2e-2 && (hv - fv).abs() < 2e-2,
                "{hu} {fu} {hv} {fv}"
            );
        }
    }

    #[test]
    fn floor_matches_std() {
        for &x in &[
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999999,
            -2.000001,
            4.4e15,
            -4.4e15,
            4.6e15,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ] {
            assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "{x}");
        }
        assert!(floor(f64::NAN).is_nan());
    }

    #[test]
    fn non_finite_and_huge_coordinates_do_not_panic() {
        let data = flat_ramp(4, 4);
        for &(x, z) in &[(f64::NAN, 1.0), (1e300, -1e300), (f64::INFINITY, 0.0)] {
            let _ = height(&data, 4, 4, x, z);
        }
    }
}
