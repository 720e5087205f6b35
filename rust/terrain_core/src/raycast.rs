//! The first point where a ray meets the drawn surface (for cursors, picking and games).
//!
//! The ray is walked patch by patch (the squares between samples, in sample space) with a 2D DDA. A patch's
//! surface lies between the lowest and highest of its 16 Bézier control heights (convex hull), so a patch the
//! ray passes above or below is skipped without evaluating it. In the others the height difference along the
//! ray is sampled and the first downward crossing (ray above the surface, then below) is refined by
//! bisection; the returned height is the patch's own, so `height_at` of the hit equals the hit's height.
//! Holes are open (the ray goes on through them); a ray meets the surface only from above, as drawn.

use crate::samples::Samples;
use glam::{DVec2, DVec3};

/// Samples of the height difference per patch crossing (the surface along a line is a polynomial of degree
/// 6 in the ray parameter: at most a few sign changes per patch).
const STEPS_PER_PATCH: usize = 16;
/// Bisection steps: beyond f64's resolution of the parameter on any sensible ray.
const BISECTIONS: usize = 60;

/// First intersection of `origin + t * dir` (t >= 0) with the surface of `terrain`, in terrain space; None
/// when the ray misses (or `dir` is zero, or anything is non-finite).
/// On an endless terrain a ray is followed this far (terrain units) unless told otherwise: the walk visits
/// every patch under the ray, so an unbounded one could run for ever.
pub const ENDLESS_REACH: f64 = 8192.0;

pub fn raycast<S: Samples + ?Sized>(
    terrain: &S,
    origin: [f64; 3],
    dir: [f64; 3],
) -> Option<[f64; 3]> {
    raycast_within(terrain, origin, dir, f64::INFINITY)
}

/// `raycast`, following the ray at most `reach` terrain units (`ENDLESS_REACH` on an endless terrain when
/// `reach` is infinite).
pub fn raycast_within<S: Samples + ?Sized>(
    terrain: &S,
    origin: [f64; 3],
    dir: [f64; 3],
    reach: f64,
) -> Option<[f64; 3]> {
    let o = DVec3::from(origin);
    // A unit direction: the walk's minimum step is then a fixed distance.
    let len = DVec3::from(dir).length();
    let d = if len.is_finite() && len > 0.0 {
        DVec3::from(dir) / len
    } else {
        DVec3::from(dir)
    };
    if !(o.is_finite() && d.is_finite()) || d == DVec3::ZERO {
        return None;
    }
    let sp = terrain.spacing();
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    let extent = match terrain.size() {
        Some([w, depth]) => [w as f64 * sp, depth as f64 * sp],
        None => {
            // Endless: clip to the heights the surface can reach instead (its samples' bounds widened by a
            // third of their span: Bézier control heights overshoot the samples by up to two slopes).
            let (lo, hi) = terrain.height_bounds();
            let pad = f64::from(hi - lo) / 3.0 + 1.0;
            let (lo, hi) = (f64::from(lo) - pad, f64::from(hi) + pad);
            if d.y == 0.0 {
                if o.y < lo || o.y > hi {
                    return None;
                }
            } else {
                let (ta, tb) = ((lo - o.y) / d.y, (hi - o.y) / d.y);
                t0 = ta.min(tb).max(0.0);
                t1 = ta.max(tb);
            }
            if reach.is_infinite() {
                t1 = t1.min(ENDLESS_REACH);
            }
            [f64::INFINITY; 2]
        }
    };
    if reach.is_finite() && reach >= 0.0 {
        t1 = t1.min(reach);
    }
    // The drawn area on X/Z: clip the ray to it (slabs).
    for (a, e) in [(0usize, extent[0]), (2, extent[1])] {
        if e.is_infinite() {
            continue;
        }
        if d[a] == 0.0 {
            if o[a] < 0.0 || o[a] > e {
                return None;
            }
        } else {
            let (ta, tb) = ((0.0 - o[a]) / d[a], (e - o[a]) / d[a]);
            t0 = t0.max(ta.min(tb));
            t1 = t1.min(ta.max(tb));
        }
    }
    if t0 > t1 {
        return None;
    }
    if !t1.is_finite() {
        // A vertical ray: one patch.
        t1 = t0;
    }
    // Sample space on X/Z: s = p / spacing - 0.5 per axis.
    let s_at = |t: f64| {
        let p = o + t * d;
        DVec2::new(p.x, p.z) / sp - 0.5
    };
    let diff = |t: f64| -> f64 {
        let s = s_at(t);
        o.y + t * d.y - f64::from(terrain.patch_height(s.x, s.y))
    };
    let in_hole = |t: f64| {
        let s = s_at(t);
        terrain.is_hole_at_sample(s.x, s.y)
    };
    // Vertical rays: the surface under the point, if the ray comes from above it.
    if d.x == 0.0 && d.z == 0.0 {
        let s = s_at(t0);
        let h = f64::from(terrain.patch_height(s.x, s.y));
        let from_above = d.y < 0.0 && o.y >= h;
        return (from_above && !in_hole(t0)).then_some([o.x, h, o.z]);
    }
    // Ray parameters at which it enters each new patch column / row (2D DDA over integer sample space).
    // Where f64 no longer tells neighbouring samples apart the walk cannot advance: nothing to hit there.
    const FAR: f64 = 1.0e15;
    let far = |t: f64| s_at(t).abs().max_element() > FAR;
    if far(t0) || (t1.is_finite() && far(t1)) {
        return None;
    }
    // One patch per border crossing: a bound on the walk's steps (plus slack for the minimum steps).
    let crossings = (t1 - t0) * (d.x.abs() + d.z.abs()) / sp;
    let mut steps_left = if crossings.is_finite() {
        crossings as u64 * 2 + 64
    } else {
        u64::MAX
    };
    let mut t = t0;
    while t < t1 && steps_left > 0 {
        steps_left -= 1;
        let s = s_at(t);
        // Parameter where the ray crosses the next patch border (strictly ahead of where it is).
        let mut t_exit = t1;
        for (k, a) in [(0usize, 0usize), (1, 2)] {
            if d[a] != 0.0 {
                let next = if d[a] > 0.0 {
                    s[k].floor() + 1.0
                } else {
                    s[k].ceil() - 1.0
                };
                let tn = (crate::samples::sample_centre(next, sp) - o[a]) / d[a];
                t_exit = t_exit.min(tn.max(t));
            }
        }
        // Never stall on rounding: advance by at least a tiny step.
        let t_exit = t_exit.max(t + 1e-9 * (1.0 + t.abs()));
        let end = t_exit.min(t1);
        // The patch this stretch lies in (decided at its middle, away from borders).
        let cell = s_at(0.5 * (t + end)).floor();
        // Skip the patch when the ray's height range misses the surface's bound (control hull).
        let (ya, yb) = (o.y + t * d.y, o.y + end * d.y);
        let (cmin, cmax) = terrain.patch_bounds(cell.x as i64, cell.y as i64);
        let (rmin, rmax) = (ya.min(yb), ya.max(yb));
        if rmax >= f64::from(cmin) && rmin <= f64::from(cmax) {
            if let Some(hit) = first_crossing(&diff, &in_hole, t, end) {
                let s = s_at(hit);
                let h = f64::from(terrain.patch_height(s.x, s.y));
                let p = o + hit * d;
                return Some([p.x, h, p.z]);
            }
        }
        t = t_exit;
    }
    None
}

/// The first downward crossing of `diff` (ray height − surface height) in [a, b] outside holes.
fn first_crossing(
    diff: &impl Fn(f64) -> f64,
    in_hole: &impl Fn(f64) -> bool,
    a: f64,
    b: f64,
) -> Option<f64> {
    let mut prev_t = a;
    let mut prev = diff(a);
    if prev == 0.0 && !in_hole(a) {
        return Some(a);
    }
    for k in 1..=STEPS_PER_PATCH {
        let t = a + (b - a) * k as f64 / STEPS_PER_PATCH as f64;
        let cur = diff(t);
        if prev > 0.0 && cur <= 0.0 {
            let (mut lo, mut hi) = (prev_t, t);
            for _ in 0..BISECTIONS {
                let mid = 0.5 * (lo + hi);
                if diff(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            if !in_hole(hi) {
                return Some(hi);
            }
        }
        prev_t = t;
        prev = cur;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain_data::TerrainData;

    fn hills() -> TerrainData {
        crate::test_terrains::Waves {
            x: (0.4, 4.0),
            z: (0.3, 3.0),
            jitter: (5, 0.3),
        }
        .terrain(48, 40, 0.5)
    }

    /// Brute force: march the ray in tiny steps to its first downward crossing outside holes.
    fn march(t: &TerrainData, o: [f64; 3], d: [f64; 3]) -> Option<[f64; 3]> {
        let ext = [
            t.width() as f64 * t.spacing(),
            t.depth() as f64 * t.spacing(),
        ];
        let mut prev: Option<f64> = None;
        for k in 0..400_000 {
            let s = k as f64 * 0.0005;
            let p = [o[0] + s * d[0], o[1] + s * d[1], o[2] + s * d[2]];
            if p[0] < 0.0 || p[2] < 0.0 || p[0] > ext[0] || p[2] > ext[1] {
                prev = None;
                continue;
            }
            let h = t.height_at(p[0], p[2]);
            if h.is_nan() {
                prev = None;
                continue;
            }
            let diff = p[1] - f64::from(h);
            if prev.is_some_and(|v| v > 0.0) && diff <= 0.0 {
                return Some(p);
            }
            prev = Some(diff);
        }
        None
    }

    #[test]
    fn hits_lie_on_the_surface_and_none_is_missed() {
        let mut t = hills();
        t.set_holes_region(t.region(20, 10, 5, 6).unwrap(), &[1; 30])
            .unwrap();
        let mut hits = 0;
        for k in 0..300 {
            let f = k as f64;
            let o = [
                (f * 0.618).fract() * 24.0,
                12.0 + (f * 0.37).fract() * 6.0,
                (f * 0.414).fract() * 20.0,
            ];
            let d = [(f * 1.3).sin(), -0.3 - (f * 0.71).fract(), (f * 0.9).cos()];
            let got = raycast(&t, o, d);
            let want = march(&t, o, d);
            match (got, want) {
                (Some(g), Some(w)) => {
                    hits += 1;
                    let h = t.height_at(g[0], g[2]);
                    assert!(
                        (f64::from(h) - g[1]).abs() < 1e-4,
                        "hit on the surface: {g:?} vs {h}"
                    );
                    // Along the ray the brute force's first crossing is at the same place (its step).
                    let dist = ((g[0] - w[0]).powi(2) + (g[2] - w[2]).powi(2)).sqrt();
                    assert!(dist < 0.01, "ray {k}: {g:?} vs marched {w:?}");
                }
                (None, None) => {}
                (g, w) => panic!("ray {k}: raycast {g:?}, marched {w:?}"),
            }
        }
        assert!(hits > 50, "{hits} hits");
    }

    #[test]
    fn misses_and_degenerate_rays() {
        let t = hills();
        assert_eq!(
            raycast(&t, [5.0, 50.0, 5.0], [0.0, 1.0, 0.0]),
            None,
            "looking up"
        );
        assert_eq!(
            raycast(&t, [-5.0, 50.0, 5.0], [-1.0, -1.0, 0.0]),
            None,
            "outside, away"
        );
        assert_eq!(
            raycast(&t, [5.0, 50.0, 5.0], [0.0, 0.0, 0.0]),
            None,
            "no direction"
        );
        assert_eq!(raycast(&t, [f64::NAN, 50.0, 5.0], [0.0, -1.0, 0.0]), None);
        let down = raycast(&t, [5.3, 50.0, 7.1], [0.0, -1.0, 0.0]).unwrap();
        assert_eq!(down[1], f64::from(t.height_at(5.3, 7.1)));
        assert_eq!(
            raycast(&t, [5.3, -50.0, 7.1], [0.0, -1.0, 0.0]),
            None,
            "below the surface"
        );
    }
}

#[cfg(test)]
mod spiky {
    use super::*;
    use crate::terrain_data::TerrainData;

    #[test]
    fn hits_on_spiky_ground_lie_on_it() {
        let (w, d) = (48, 48);
        let h: Vec<f32> = (0..w * d)
            .map(|i| (((i * 2654435761usize) >> 7) % 1000) as f32 / 1000.0 * 80.0 - 10.0)
            .collect();
        let t = TerrainData::from_heights(w, d, 1.0, h).unwrap();
        let mut bad = vec![];
        for k in 0..2000 {
            let f = k as f64;
            let o = [
                (f * 0.618).fract() * 60.0 - 6.0,
                (f * 0.37).fract() * 100.0 - 20.0,
                (f * 0.414).fract() * 60.0 - 6.0,
            ];
            let dir = [(f * 1.3).sin(), (f * 0.71).cos(), (f * 0.9).cos()];
            if let Some(p) = raycast(&t, o, dir) {
                let g = f64::from(t.height_at(p[0], p[2]));
                if (g - p[1]).abs() > 1e-3 {
                    bad.push((k, o, dir, p, g));
                }
            }
        }
        assert!(bad.is_empty(), "{} bad, e.g. {:?}", bad.len(), bad.first());
    }
}
