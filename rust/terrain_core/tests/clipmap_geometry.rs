//! Clipmap geometry: lattice snapping, exact coverage (no overlap, no gap), watertight seams between levels.

use std::collections::HashMap;
use terrain_core::clipmap::{build_meshes, layout, ClipmapConfig, PieceKind, PlacedPiece};

type Lattice = (i64, i64);

/// All placed triangles in finest-lattice integer coordinates (x, z); seams once (one winding).
fn triangles(cfg: &ClipmapConfig, target: [f64; 2]) -> (Vec<[(i64, i64); 3]>, Vec<bool>) {
    let meshes = build_meshes(cfg);
    let mut placed = vec![PlacedPiece::default(); cfg.piece_count()];
    layout(cfg, target, &mut placed);
    let unit = cfg.vertex_spacing();
    let mut tris = Vec::new();
    let mut is_seam = Vec::new();
    for p in &placed {
        // Every level sits on its own lattice.
        for o in p.origin {
            assert!(
                ((o / p.scale).round() - o / p.scale).abs() < 1e-9,
                "{p:?} off its lattice"
            );
        }
        let m = meshes.get(p.kind);
        let step = if p.kind == PieceKind::Seam { 6 } else { 3 };
        for t in m.indices.chunks(step) {
            let v = [t[0], t[1], t[2]].map(|i| {
                let q = m.positions[i as usize];
                let x = (p.origin[0] + f64::from(q[0]) * p.scale) / unit;
                let z = (p.origin[1] + f64::from(q[1]) * p.scale) / unit;
                assert!((x - x.round()).abs() < 1e-6 && (z - z.round()).abs() < 1e-6);
                (x.round() as i64, z.round() as i64)
            });
            tris.push(v);
            is_seam.push(p.kind == PieceKind::Seam);
        }
    }
    (tris, is_seam)
}

fn cross(a: (i64, i64), b: (i64, i64), c: (i64, i64)) -> i64 {
    (b.1 - a.1) * (c.0 - a.0) - (b.0 - a.0) * (c.1 - a.1)
}

fn check(n: i64, levels: i64, target: [f64; 2]) {
    let cfg = ClipmapConfig::new(n, levels, 1.0).unwrap();
    let (tris, seam) = triangles(&cfg, target);

    // One winding: clockwise from +Y (negative cross) for every surface triangle; seams have zero area.
    for (t, &s) in tris.iter().zip(&seam) {
        let c = cross(t[0], t[1], t[2]);
        if s {
            assert_eq!(c, 0, "seam triangle with area");
        } else {
            assert!(c < 0, "triangle {t:?} winds the wrong way or is degenerate");
        }
    }

    // Coverage: sample points (scaled by 4 to stay off every edge) must be covered exactly once inside the
    // outermost level's core and not at all outside it.
    let top = levels as u32 - 1;
    let u_top = cfg.scale(top);
    let m = target.map(|t| (t / u_top).floor());
    let a = m.map(|m| ((m - 2.0 * n as f64) * u_top) as i64);
    let side = ((4 * n + 1) as f64 * u_top) as i64;
    let (x0, z0) = (a[0] - 2, a[1] - 2);
    let w = side + 4;
    let mut count = vec![0u8; (w * w) as usize];
    for (t, &s) in tris.iter().zip(&seam) {
        if s {
            continue;
        }
        // Points at (x + 0.3, z + 0.45) in finest units, times 20 to work in integers.
        let xs = t.map(|p| p.0);
        let zs = t.map(|p| p.1);
        for z in *zs.iter().min().unwrap()..*zs.iter().max().unwrap() {
            for x in *xs.iter().min().unwrap()..*xs.iter().max().unwrap() {
                let p = (x * 20 + 6, z * 20 + 9);
                let s20 = t.map(|q| (q.0 * 20, q.1 * 20));
                let (c0, c1, c2) = (
                    cross(s20[0], s20[1], p),
                    cross(s20[1], s20[2], p),
                    cross(s20[2], s20[0], p),
                );
                if c0 < 0 && c1 < 0 && c2 < 0 {
                    let (i, j) = (x - x0, z - z0);
                    assert!(
                        i >= 0 && j >= 0 && i < w && j < w,
                        "triangle outside the clipmap"
                    );
                    count[(j * w + i) as usize] += 1;
                }
            }
        }
    }
    for j in 0..w {
        for i in 0..w {
            let inside = (2..2 + side).contains(&i) && (2..2 + side).contains(&j);
            let c = count[(j * w + i) as usize];
            assert_eq!(
                c,
                u8::from(inside),
                "cell ({}, {}) covered {c} times (n {n}, levels {levels}, target {target:?})",
                i + x0,
                j + z0
            );
        }
    }

    // Watertight: welded by position, every edge borders exactly two triangles (seams included), except the
    // outer border of the outermost level, which borders one.
    let mut edges: HashMap<(Lattice, Lattice), u32> = HashMap::new();
    for t in &tris {
        for (p, q) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            *edges
                .entry(if p < q { (p, q) } else { (q, p) })
                .or_default() += 1;
        }
    }
    let on_border = |p: (i64, i64), q: (i64, i64)| {
        let (lo_x, hi_x, lo_z, hi_z) = (a[0], a[0] + side, a[1], a[1] + side);
        (p.0 == q.0 && (p.0 == lo_x || p.0 == hi_x)) || (p.1 == q.1 && (p.1 == lo_z || p.1 == hi_z))
    };
    for (&(p, q), &k) in &edges {
        let want = if on_border(p, q) { 1 } else { 2 };
        assert_eq!(
            k, want,
            "edge {p:?}-{q:?} borders {k} triangles (T-junction or overlap)"
        );
    }
}

#[test]
fn small_clipmaps_at_many_targets() {
    for (n, levels) in [(2, 1), (2, 3), (4, 4), (6, 3), (8, 2)] {
        for target in [
            [0.0, 0.0],
            [0.5, 0.5],
            [3.7, -2.2],
            [-17.3, 40.9],
            [1000.25, -999.75],
            [7.999, 8.001],
        ] {
            check(n, levels, target);
        }
    }
}

#[test]
fn pieces_move_only_when_their_level_snaps() {
    let cfg = ClipmapConfig::new(8, 4, 1.0).unwrap();
    let mut a = vec![PlacedPiece::default(); cfg.piece_count()];
    let mut b = a.clone();
    layout(&cfg, [10.2, 10.2], &mut a);
    layout(&cfg, [10.9, 10.7], &mut b);
    assert_eq!(a, b, "a sub-quad move changes nothing");
    layout(&cfg, [11.1, 10.7], &mut b);
    let moved: Vec<u32> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(x, _)| x.level)
        .collect();
    assert!(moved.contains(&0) && !moved.contains(&3), "{moved:?}");
}
