use super::*;
use crate::control::{paint, slot_of, HOLE};
use crate::generation::{Generated, NoiseParams};
use crate::placement_rules::PlacementRules;
use crate::samples::height_at;
use crate::terrain_data::TerrainData;

fn flat(n: usize, spacing: f64) -> TerrainData {
    TerrainData::from_heights(n, n, spacing, vec![2.0; n * n]).unwrap()
}

fn layer(density: f64, cell: f64, seed: u64) -> DetailLayer {
    let rules = DetailRules {
        density,
        seed,
        placement: PlacementRules {
            slope: [0.0, 90.0],
            ..DetailRules::default().placement
        },
        ..DetailRules::default()
    };
    DetailLayer {
        grid: DetailGrid::new(density, cell).unwrap(),
        rules,
        ground: Ground::default(),
    }
}

fn all_in<S: Samples>(l: &DetailLayer, s: &S, area: Area) -> Vec<[f64; 3]> {
    instances_in(l, s, area, usize::MAX)
        .into_iter()
        .map(|c| c.0)
        .collect()
}

#[test]
fn density_is_within_five_percent_over_a_large_flat_area() {
    let t = flat(257, 1.0);
    for density in [0.5, 3.0, 8.0] {
        let l = layer(density, 16.0, 3);
        let area = Area {
            min: [10.0, 10.0],
            max: [210.0, 210.0],
        };
        let n = all_in(&l, &t, area).len() as f64;
        let want = density * 200.0 * 200.0;
        assert!((n / want - 1.0).abs() < 0.05, "{n} of {want}");
    }
}

#[test]
fn a_cell_is_the_same_whatever_the_cell_size_and_call() {
    let t = flat(129, 1.0);
    let small = layer(2.0, 8.0, 11);
    let big = layer(2.0, 32.0, 11);
    assert_ne!(small.grid.cell_size(), big.grid.cell_size());
    // Big cell (1, 1) drawn; the same points from the small grid's cells over its area.
    let key = (1, 1);
    let mut d = DetailDraw::default();
    generate_cell(&big, &t, key, &mut d);
    let origin = big.grid.cell_area(key).min;
    let mut a: Vec<[f32; 3]> = d
        .buffer
        .chunks(FLOATS)
        .map(|c| [c[3] + origin[0] as f32, c[7], c[11] + origin[1] as f32])
        .collect();
    let mut b: Vec<[f32; 3]> = all_in(&small, &t, big.grid.cell_area(key))
        .into_iter()
        .map(|p| p.map(|v| v as f32))
        .collect();
    let order = |p: &[f32; 3], q: &[f32; 3]| p.partial_cmp(q).unwrap();
    a.sort_by(order);
    b.sort_by(order);
    assert_eq!(a.len(), b.len());
    for (p, q) in a.iter().zip(&b) {
        assert!((p[0] - q[0]).abs() < 1e-4 && (p[2] - q[2]).abs() < 1e-4 && p[1] == q[1]);
    }
    // Generating again gives the same bytes; another seed does not.
    let mut again = DetailDraw::default();
    generate_cell(&big, &t, key, &mut again);
    assert_eq!(d, again);
    let mut other = DetailDraw::default();
    generate_cell(&layer(2.0, 32.0, 12), &t, key, &mut other);
    assert_ne!(d.buffer, other.buffer);
}

#[test]
fn instances_stand_on_the_surface_and_none_over_holes() {
    let mut t = TerrainData::from_heights(
        65,
        65,
        1.0,
        (0..65 * 65)
            .map(|i| ((i % 65) as f32 * 0.2).sin() * 3.0)
            .collect(),
    )
    .unwrap();
    let mut control = vec![0u32; 65 * 65];
    for z in 20..40 {
        for x in 20..40 {
            control[z * 65 + x] = HOLE;
        }
    }
    t.set_control_map(control).unwrap();
    let mut l = layer(4.0, 16.0, 5);
    l.rules.placement.offset = 0.0;
    let area = Area {
        min: [0.0, 0.0],
        max: [64.0, 64.0],
    };
    let got = all_in(&l, &t, area);
    assert!(got.len() > 10_000);
    for p in &got {
        let h = height_at(&t, p[0], p[2]);
        assert!(h.is_finite(), "over a hole at {p:?}");
        assert!((f64::from(h) - p[1]).abs() < 1e-4, "{p:?} vs {h}");
    }
    // The hole's middle is empty.
    assert!(!got
        .iter()
        .any(|p| (22.0..38.0).contains(&p[0]) && (22.0..38.0).contains(&p[2])));
}

#[test]
fn slope_height_and_layer_rules_refuse_ground() {
    // A ramp: slope atan(0.5) ≈ 26.6°, heights 0..32.
    let n = 65;
    let mut t = TerrainData::from_heights(
        n,
        n,
        1.0,
        (0..n * n).map(|i| (i % n) as f32 * 0.5).collect(),
    )
    .unwrap();
    let area = Area {
        min: [4.0, 4.0],
        max: [60.0, 60.0],
    };
    let mut l = layer(2.0, 16.0, 1);
    l.rules.placement.slope = [0.0, 20.0];
    assert!(all_in(&l, &t, area).is_empty());
    l.rules.placement.slope = [20.0, 30.0];
    assert!(!all_in(&l, &t, area).is_empty());
    l.rules.height = [5.0, 10.0];
    let got = all_in(&l, &t, area);
    assert!(!got.is_empty());
    assert!(got.iter().all(|p| (5.0..=10.0).contains(&p[1])));
    // Layers: the left half painted layer 1, the right layer 2; detail grows on layer 2 only.
    let control: Vec<u32> = (0..n * n)
        .map(|i| paint(0, slot_of(if i % n < 32 { 1 } else { 2 }), 1.0))
        .collect();
    t.set_control_map(control).unwrap();
    l.rules.height = [-1e9, 1e9];
    l.ground = Ground {
        blending: Some(Blending {
            layer_count: 4,
            ..Blending::default()
        }),
        allowed: vec![2],
        tints: vec![[1.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        ..Ground::default()
    };
    let got = instances_in(&l, &t, area, usize::MAX);
    assert!(!got.is_empty());
    for (p, _, rgba) in &got {
        // Layer 2's samples start at x = 32 (sample centres at x + 0.5); blending reaches a sample back.
        assert!(p[0] > 31.5, "{p:?}");
        if p[0] > 34.0 {
            assert!(rgba[0] < 1e-6 && rgba[1] > 0.7, "{rgba:?}");
        }
    }
    // Nothing is allowed: nothing grows.
    l.ground.allowed = vec![3];
    assert!(all_in(&l, &t, area).is_empty());
}

#[test]
fn endless_worlds_grow_detail_far_out_on_their_surface() {
    let g = Generated::new(&NoiseParams::default(), 1.0).unwrap();
    let l = layer(4.0, 16.0, 9);
    let far = 100_000.0;
    let key = l.grid.cell_of(far, -far);
    let area = l.grid.cell_area(key);
    let mut d = DetailDraw::default();
    // Through a copied block, as the workers do.
    let (o, n) = cell_samples(area, g.spacing());
    let block = SampleBlock::copy(&g, o[0], o[1], n[0], n[1]);
    generate_cell(&l, &block, key, &mut d);
    assert!(d.count() > 100);
    for c in d.buffer.chunks(FLOATS) {
        let (x, z) = (
            area.min[0] + f64::from(c[3]),
            area.min[1] + f64::from(c[11]),
        );
        assert!(area.contains(x, z));
        let h = height_at(&g, x, z);
        assert!((h - c[7]).abs() < 1e-3, "{h} vs {}", c[7]);
    }
}

#[test]
fn rules_refuse_values_out_of_range() {
    let ok = DetailRules::default();
    assert!(ok.check().is_ok());
    let bad = [
        DetailRules {
            density: 0.0,
            ..ok.clone()
        },
        DetailRules {
            density: f64::NAN,
            ..ok.clone()
        },
        DetailRules {
            placement: PlacementRules {
                scale: [2.0, 1.0],
                ..ok.placement
            },
            ..ok.clone()
        },
        DetailRules {
            placement: PlacementRules {
                slope: [0.0, 91.0],
                ..ok.placement
            },
            ..ok.clone()
        },
        DetailRules {
            placement: PlacementRules {
                offset: 1001.0,
                ..ok.placement
            },
            ..ok.clone()
        },
        DetailRules {
            height: [f32::NAN, 1.0],
            ..ok.clone()
        },
        DetailRules {
            color_jitter: 1.5,
            ..ok.clone()
        },
    ];
    for b in bad {
        assert!(b.check().is_err(), "{b:?}");
    }
    assert!(DetailGrid::new(0.0, 16.0).is_none());
    assert!(DetailGrid::new(1.0, f64::INFINITY).is_none());
    // Areas too far or too big give nothing rather than overflowing or running for ever.
    let g =
        crate::generation::Generated::new(&crate::generation::NoiseParams::default(), 1.0).unwrap();
    let l = layer(4.0, 16.0, 1);
    let far = Area {
        min: [1e18, 0.0],
        max: [1e18 + 10.0, 10.0],
    };
    assert!(instances_in(&l, &g, far, usize::MAX).is_empty());
    let huge = Area {
        min: [0.0, 0.0],
        max: [1e6, 1e6],
    };
    assert!(instances_in(&l, &g, huge, usize::MAX).is_empty());
    // A cell never holds more than MAX_PER_CELL² candidates.
    let g = DetailGrid::new(MAX_DENSITY, 1000.0).unwrap();
    assert_eq!(g.per_cell(), (MAX_PER_CELL * MAX_PER_CELL) as usize);
}

#[test]
fn the_stream_gives_what_a_direct_call_gives() {
    let t = Arc::new(flat(65, 1.0));
    let l = Arc::new(layer(2.0, 16.0, 4));
    let keys = vec![((0, 0), 1), ((1, 2), 2), ((3, 3), 3)];
    let mut s = DetailStream::default();
    let block = Arc::new(block_for(&*t, &l.grid, &[(0, 0), (1, 2), (3, 3)]));
    s.request(0, l.clone(), block, keys.clone());
    let mut out = Vec::new();
    s.wait(&mut out);
    assert_eq!(out.len(), 3);
    assert_eq!(s.in_flight(), 0);
    for r in out {
        let mut d = DetailDraw::default();
        generate_cell(&l, &*t, r.key, &mut d);
        assert_eq!(r.draw, d);
        assert!(keys.contains(&(r.key, r.stamp)));
    }
}

#[test]
fn a_grid_counts_and_tests_the_cells_of_an_area_without_walking_them() {
    use crate::instances::Area;
    let g = DetailGrid::new(2.0, 16.0).unwrap();
    for area in [
        Area {
            min: [-40.5, 3.0],
            max: [70.0, 90.25],
        },
        Area {
            min: [-1.0, -1.0],
            max: [-0.5, -0.5],
        },
        Area {
            min: [160.0, -33.0],
            max: [160.0, -33.0],
        },
    ] {
        let cells: Vec<_> = g.cells_in(area).collect();
        assert_eq!(g.count_in(area), cells.len() as u64, "{area:?}");
        for z in -8..10 {
            for x in -8..12 {
                assert_eq!(
                    g.overlaps(area, (x, z)),
                    cells.contains(&(x, z)),
                    "{area:?} ({x}, {z})"
                );
            }
        }
    }
    // An area thousands of kilometres wide is counted, not walked.
    let wide = Area {
        min: [-400.0, -400.0],
        max: [3.0e9, 3.0e9],
    };
    assert!(g.count_in(wide) > 1 << 40);
    assert!(g.overlaps(wide, (0, 0)) && !g.overlaps(wide, (-100, 0)));
}
