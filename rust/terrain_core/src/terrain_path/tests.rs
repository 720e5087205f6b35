use super::*;
use crate::control::slot_of;
use crate::layers::tests::Grid;
use crate::layers::{Ground, LayerStack};
use std::sync::Arc;

fn shape() -> PathShape {
    PathShape {
        width: 8.0,
        falloff: 6.0,
        falloff_curve: None,
        mode: PathMode::Follow,
        depth: 0.0,
        paint: None,
        holes: false,
        clear_margin: None,
    }
}

/// A straight point (handles on it) at terrain (x, y, z).
fn pt(x: f64, y: f64, z: f64) -> PathPoint {
    PathPoint {
        position: [x, y, z],
        before: [x, y, z],
        after: [x, y, z],
        tilt: 0.0,
        width: 1.0,
    }
}

fn bounds(g: &Grid) -> Option<SampleRect> {
    g.bounds()
}

fn h(g: &Grid, x: usize, z: usize) -> f32 {
    g.h[z * g.w + x]
}

#[test]
fn a_flattening_path_takes_the_curves_height_and_blends_by_its_falloff() {
    let mut g = Grid::hills(160);
    let original = g.h.clone();
    // Along X at z = 80.5 (sample row 80), from 10 to 150, rising from 2 to 9.
    let pts = [pt(10.5, 2.0, 80.5), pt(150.5, 9.0, 80.5)];
    let layer = Arc::new(PathLayer::new(shape(), &pts, 1.0, bounds(&g)).unwrap());
    let mut s = LayerStack::default();
    s.set(1, 0, layer, None, &g);
    s.compose_now(&mut g);
    for x in [20usize, 60, 100, 140] {
        let want = 2.0 + 7.0 * (x as f32 - 10.0) / 140.0;
        assert!(
            (h(&g, x, 80) - want).abs() < 1e-4,
            "centre at {x}: {} vs {want}",
            h(&g, x, 80)
        );
        // Within half the width: flat across.
        assert!((h(&g, x, 84) - h(&g, x, 80)).abs() < 1e-4);
        // Across the falloff: the smoothstep blend of the curve and the ground.
        for dz in 5..10usize {
            let u = (dz as f32 - 4.0) / 6.0;
            let w = 1.0 - u * u * (3.0 - 2.0 * u);
            let ground = original[(80 + dz) * 160 + x];
            let want = ground + (h(&g, x, 80) - ground) * w;
            assert!(
                (h(&g, x, 80 + dz) - want).abs() < 1e-3,
                "falloff at {x}, {dz}"
            );
        }
        // Beyond it: bit-exact.
        assert_eq!(h(&g, x, 80 + 10), original[90 * 160 + x]);
        assert_eq!(h(&g, x, 80 - 11), original[69 * 160 + x]);
    }
    assert_eq!(h(&g, 0, 80), original[80 * 160], "beyond the round end");
}

#[test]
fn moving_one_point_recomposes_only_its_two_segments_and_back_is_bit_identical() {
    let mut g = Grid::hills(256);
    let original = g.h.clone();
    let mut pts: Vec<PathPoint> = (0..6)
        .map(|i| {
            pt(
                20.0 + 40.0 * i as f64,
                5.0 + i as f64,
                60.0 + 25.0 * (i % 2) as f64,
            )
        })
        .collect();
    let mut s = LayerStack::default();
    let first = Arc::new(PathLayer::new(shape(), &pts, 1.0, bounds(&g)).unwrap());
    s.set(1, 0, first.clone(), None, &g);
    s.compose_now(&mut g);
    let with_path = g.h.clone();
    pts[3].position[2] += 30.0;
    pts[3].before[2] += 30.0;
    pts[3].after[2] += 30.0;
    let moved = Arc::new(PathLayer::new(shape(), &pts, 1.0, bounds(&g)).unwrap());
    let changed = moved.changed_tiles(&first);
    assert!(
        changed.len() < first.tiles().len(),
        "{} of {}",
        changed.len(),
        first.tiles().len()
    );
    s.set(1, 0, moved.clone(), Some(changed), &g);
    s.compose_now(&mut g);
    // The same as composing everything from scratch.
    let mut fresh = Grid::hills(256);
    let mut s2 = LayerStack::default();
    s2.set(1, 0, moved.clone(), None, &fresh);
    s2.compose_now(&mut fresh);
    assert_eq!(
        g.h, fresh.h,
        "recomposing the changed tiles equals recomposing all"
    );
    // And back.
    let back = Arc::new(PathLayer::new(shape(), &pts_back(&pts), 1.0, bounds(&g)).unwrap());
    s.set(1, 0, back.clone(), Some(back.changed_tiles(&moved)), &g);
    s.compose_now(&mut g);
    assert_eq!(g.h, with_path, "moved back: bit-identical");
    s.remove(1);
    s.compose_now(&mut g);
    assert_eq!(g.h, original, "deleted: the sculpted terrain");
}

fn pts_back(pts: &[PathPoint]) -> Vec<PathPoint> {
    let mut p = pts.to_vec();
    p[3].position[2] -= 30.0;
    p[3].before[2] -= 30.0;
    p[3].after[2] -= 30.0;
    p
}

#[test]
fn modes_paint_holes_and_clearing() {
    let g0 = Grid::hills(96);
    let pts = [pt(10.5, 0.0, 48.5), pt(85.5, 0.0, 48.5)];
    let run = |s: PathShape| {
        let mut g = Grid::hills(96);
        let mut st = LayerStack::default();
        st.set(
            1,
            0,
            Arc::new(PathLayer::new(s, &pts, 1.0, g.bounds()).unwrap()),
            None,
            &g,
        );
        st.compose_now(&mut g);
        g
    };
    let raise = run(PathShape {
        mode: PathMode::Raise,
        ..shape()
    });
    let lower = run(PathShape {
        mode: PathMode::Lower,
        ..shape()
    });
    let carve = run(PathShape {
        mode: PathMode::Carve,
        depth: 2.0,
        ..shape()
    });
    for x in 12..84 {
        let g = h(&g0, x, 48);
        assert_eq!(h(&raise, x, 48), g.max(0.0));
        assert_eq!(h(&lower, x, 48), g.min(0.0));
        assert_eq!(h(&carve, x, 48), g.min(-2.0));
    }
    let painted = run(PathShape {
        paint: Some(PathPaint {
            slot: slot_of(3),
            width: 4.0,
            falloff: 0.0,
            edge_noise: 0.0,
        }),
        holes: true,
        clear_margin: Some(2.0),
        ..shape()
    });
    let c = |x: usize, z: usize| painted.c[z * 96 + x];
    assert_eq!(Paint::decode(c(40, 48)).weight_of(slot_of(3)), 1.0);
    assert_eq!(
        Paint::decode(c(40, 51)).weight_of(slot_of(3)),
        0.0,
        "paint is 4 wide"
    );
    assert_ne!(c(40, 52) & HOLE, 0, "holes within half the width");
    assert_eq!(c(40, 53) & HOLE, 0);
    assert_ne!(c(40, 54) & CLEAR, 0, "cleared within the margin");
    assert_eq!(c(40, 55) & CLEAR, 0);
}

#[test]
fn bad_input_is_refused_naming_what() {
    let b = Some(SampleRect {
        x: 0,
        z: 0,
        w: 64,
        d: 64,
    });
    let e = PathLayer::new(
        PathShape {
            width: 0.0,
            ..shape()
        },
        &[pt(0.0, 0.0, 0.0), pt(9.0, 0.0, 0.0)],
        1.0,
        b,
    );
    assert!(e
        .err()
        .unwrap()
        .to_string()
        .starts_with("width must be in (0, 100000]"));
    let e = PathLayer::new(
        shape(),
        &[pt(0.0, 0.0, 0.0), pt(f64::NAN, 0.0, 0.0)],
        1.0,
        b,
    );
    assert_eq!(e.err().unwrap().to_string(), "curve point 1 is not finite");
    let e = PathLayer::new(
        PathShape {
            falloff: f32::NAN,
            ..shape()
        },
        &[],
        1.0,
        b,
    );
    assert!(e.err().unwrap().to_string().contains("falloff_width"));
    // No points, one point, or far outside the map: a layer that covers nothing.
    for pts in [
        vec![],
        vec![pt(3.0, 0.0, 3.0)],
        vec![pt(-900.0, 0.0, 0.0), pt(-800.0, 0.0, 0.0)],
    ] {
        let l = PathLayer::new(shape(), &pts, 1.0, b).unwrap();
        assert!(l.tiles().is_empty());
    }
}

#[test]
fn a_curve_laid_on_the_ground_keeps_the_grade() {
    let pts: Vec<[f64; 3]> = (0..50).map(|i| [i as f64 * 4.0, 0.0, 0.0]).collect();
    let ground = |x: f64, _z: f64| {
        Some(if (80.0..120.0).contains(&x) {
            20.0
        } else {
            (x * 0.1).sin()
        })
    };
    let free = lay_on_ground(&pts, ground, 0.0);
    assert_eq!(free[25], 20.0);
    let y = lay_on_ground(&pts, ground, 0.1);
    for w in y.windows(2) {
        assert!((w[1] - w[0]).abs() <= 0.4 + 1e-9, "{} → {}", w[0], w[1]);
    }
    assert!(
        y[25] > 5.0 && y[25] < 20.0,
        "half cut, half fill: {}",
        y[25]
    );
}
