use super::*;
use crate::generation::{Generated, NoiseParams};
use crate::placement_rules::PlacementRules;
use crate::samples::{self, Samples};
use crate::terrain_data::{Region, TerrainData};

fn hills(n: usize, spacing: f64) -> TerrainData {
    let h: Vec<f32> = (0..n * n)
        .map(|i| {
            let (x, z) = ((i % n) as f32, (i / n) as f32);
            (x * 0.11).sin() * 6.0 + (z * 0.07).cos() * 4.0 + x * 0.05
        })
        .collect();
    TerrainData::from_heights(n, n, spacing, h).unwrap()
}

fn all(_: f64, _: f64) -> f32 {
    1.0
}

fn up(x: f64, y: f64, z: f64) -> Placement {
    Placement {
        pos: [x, y, z],
        rot: Quat::from_rotation_y(0.3),
        scale: [1.0, 2.0, 1.5],
    }
}

/// Every drawn instance of `store` on `t`: (x, y, z).
fn drawn<S: Samples>(t: &S, store: &InstanceStore, mesh: usize) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for (&k, cell) in store.cells() {
        for d in draw_cell(t, store.cell_area(k).min, cell) {
            if d.mesh == mesh {
                let o = d.origin.map(|v| v as f32);
                out.extend(
                    d.buffer
                        .chunks(12)
                        .map(|c| [c[3] + o[0], c[7], c[11] + o[1]]),
                );
            }
        }
    }
    out
}

#[test]
fn an_instance_is_32_bytes() {
    assert_eq!(std::mem::size_of::<Instance>(), 32);
}

#[test]
fn added_instances_keep_their_height_above_the_ground_through_an_edit() {
    let mut t = hills(128, 1.0);
    let mut s = InstanceStore::default();
    let ps: Vec<Placement> = (0..200)
        .map(|i| {
            let (x, z) = (3.0 + (i % 20) as f64 * 6.1, 2.0 + (i / 20) as f64 * 12.3);
            let g = samples::height_at(&t, x, z);
            up(x, f64::from(g) + 0.25, z)
        })
        .collect();
    let (n, cells) = s.add(0, &ps, &|x, z| ground_of(&t, x, z)).unwrap();
    assert_eq!(n, 200);
    assert!(!cells.is_empty());
    let check = |t: &TerrainData, s: &InstanceStore| {
        let d = drawn(t, s, 0);
        assert_eq!(d.len(), 200);
        for [x, y, z] in d {
            let g = samples::height_at(t, f64::from(x), f64::from(z));
            assert!((y - g - 0.25).abs() < 1e-4, "y {y} ground {g}");
        }
    };
    check(&t, &s);
    let r = Region {
        x: 10,
        z: 10,
        w: 100,
        d: 100,
    };
    t.set_heights_region(r, &vec![7.5; 100 * 100]).unwrap();
    check(&t, &s);
}

#[test]
fn outside_a_finite_terrain_nothing_is_added() {
    let t = hills(64, 2.0);
    let mut s = InstanceStore::default();
    let ps = [
        up(-1.0, 0.0, 5.0),
        up(5.0, 0.0, 129.0),
        up(f64::NAN, 0.0, 1.0),
        up(127.0, 0.0, 1.0),
    ];
    let (n, _) = s.add(0, &ps, &|x, z| ground_of(&t, x, z)).unwrap();
    assert_eq!(n, 1);
    assert_eq!(s.count(0), 1);
    assert!(s.add(MAX_MESHES, &ps, &|x, z| ground_of(&t, x, z)).is_err());
}

#[test]
fn a_hole_hides_an_instance_and_filling_it_brings_it_back() {
    let mut t = hills(64, 1.0);
    let mut s = InstanceStore::default();
    s.add(1, &[up(20.5, 0.0, 20.5), up(40.0, 0.0, 40.0)], &|x, z| {
        ground_of(&t, x, z)
    })
    .unwrap();
    assert_eq!(drawn(&t, &s, 1).len(), 2);
    let r = Region {
        x: 18,
        z: 18,
        w: 4,
        d: 4,
    };
    t.set_holes_region(r, &[1; 16]).unwrap();
    let d = drawn(&t, &s, 1);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0][0], 40.0);
    t.set_holes_region(r, &[0; 16]).unwrap();
    assert_eq!(drawn(&t, &s, 1).len(), 2);
    assert_eq!(s.count(1), 2);
}

#[test]
fn removal_by_area_and_mesh_counts_what_it_takes() {
    let t = hills(128, 1.0);
    let mut s = InstanceStore::new(16.0).unwrap();
    let rules = Rules::default();
    for m in 0..3 {
        let area = Area {
            min: [0.0, 0.0],
            max: [128.0, 128.0],
        };
        let ps = scatter(&rules, &t, area, 1000, m as u64, &all);
        s.add(m, &ps, &|x, z| ground_of(&t, x, z)).unwrap();
    }
    let area = Area {
        min: [10.0, 20.0],
        max: [70.0, 50.0],
    };
    let mut inside = 0;
    s.for_each_in(1, area, &mut |_, _, _| inside += 1);
    assert!(inside > 50);
    let (n, _) = s.remove(Some(1), area);
    assert_eq!(n, inside);
    assert_eq!(s.count(1), 1000 - inside);
    let mut left = 0;
    s.for_each_in(1, area, &mut |_, _, _| left += 1);
    assert_eq!(left, 0);
    let before = s.total();
    let (n, _) = s.remove(None, area);
    assert_eq!(s.total(), before - n);
    for m in 0..3 {
        s.for_each_in(m, area, &mut |_, _, _| panic!("left inside"));
    }
}

#[test]
fn bytes_round_trip_bit_exact_and_bad_bytes_are_refused() {
    let t = hills(128, 1.0);
    let mut s = InstanceStore::new(20.0).unwrap();
    let rules = Rules {
        placement: PlacementRules {
            align: 0.7,
            scale: [0.5, 2.0],
            offset: -0.3,
            ..PlacementRules::default()
        },
        ..Rules::default()
    };
    let area = Area {
        min: [0.0, 0.0],
        max: [128.0, 128.0],
    };
    s.add(0, &scatter(&rules, &t, area, 500, 9, &all), &|x, z| {
        ground_of(&t, x, z)
    })
    .unwrap();
    s.add(2, &scatter(&rules, &t, area, 300, 10, &all), &|x, z| {
        ground_of(&t, x, z)
    })
    .unwrap();
    let b = s.to_bytes();
    let back = InstanceStore::from_bytes(&b).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.to_bytes(), b);
    for cut in [0, 3, 4, 8, 19, 20, 40, b.len() / 2, b.len() - 1] {
        assert!(InstanceStore::from_bytes(&b[..cut]).is_err(), "cut {cut}");
    }
    let mut bad = b.clone();
    bad[4] = 9;
    assert!(matches!(
        InstanceStore::from_bytes(&bad),
        Err(FormatError::Version(_))
    ));
    // A count far beyond the bytes is refused before anything is allocated for it.
    let mut huge = b[..20].to_vec();
    huge.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f]);
    assert!(matches!(
        InstanceStore::from_bytes(&huge),
        Err(FormatError::Truncated)
    ));
}

#[test]
fn scatter_is_deterministic_inside_its_area_and_follows_the_rules() {
    let t = hills(256, 1.0);
    let rules = Rules {
        placement: PlacementRules {
            slope: [0.0, 20.0],
            scale: [0.5, 1.5],
            ..PlacementRules::default()
        },
        ..Rules::default()
    };
    let area = Area {
        min: [30.0, 40.0],
        max: [200.0, 180.0],
    };
    let a = scatter(&rules, &t, area, 2000, 42, &all);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let b = pool.install(|| scatter(&rules, &t, area, 2000, 42, &all));
    assert_eq!(a, b);
    assert_eq!(a.len(), 2000);
    assert_ne!(a, scatter(&rules, &t, area, 2000, 43, &all));
    for p in &a {
        assert!(area.contains(p.pos[0], p.pos[2]));
        let n = samples::normal_at(&t, p.pos[0], p.pos[2]);
        assert!(n[1].acos().to_degrees() <= 20.0 + 1e-3);
        assert!((0.5..=1.5).contains(&p.scale[0]));
        let g = samples::height_at(&t, p.pos[0], p.pos[2]);
        assert_eq!(p.pos[1], f64::from(g));
    }
    // Only half the ground is allowed: about half the candidates pass.
    let half = |x: f64, _: f64| if x < 115.0 { 1.0 } else { 0.0 };
    let h = scatter(&rules, &t, area, 500, 1, &half);
    assert!(h.iter().all(|p| p.pos[0] < 115.0));
}

#[test]
fn aligned_placements_stand_along_the_ground_normal() {
    let t = hills(128, 1.0);
    let rules = Rules {
        placement: PlacementRules {
            align: 1.0,
            ..PlacementRules::default()
        },
        random_yaw: false,
        ..Rules::default()
    };
    let area = Area {
        min: [5.0, 5.0],
        max: [120.0, 120.0],
    };
    for p in scatter(&rules, &t, area, 50, 3, &all) {
        let n = Vec3::from(samples::normal_at(&t, p.pos[0], p.pos[2]));
        assert!((p.rot * Vec3::Y).distance(n) < 1e-5);
    }
}

#[test]
fn painting_fills_toward_the_density_and_removal_thins() {
    let t = hills(256, 1.0);
    let rules = Rules {
        density: 0.05,
        ..Rules::default()
    };
    let mut s = InstanceStore::default();
    let (c, r) = ([128.0, 128.0], 20.0);
    let area = Area {
        min: [c[0] - r, c[1] - r],
        max: [c[0] + r, c[1] + r],
    };
    let hard = |x: f64, z: f64| f32::from((x - c[0]).hypot(z - c[1]) < r);
    for dab in 0..40u64 {
        let mut existing = 0;
        s.for_each_in(0, area, &mut |_, _, _| existing += 1);
        let ps = dab_add(&rules, &t, c, r, existing, 0.5, dab, &hard);
        s.add(0, &ps, &|x, z| ground_of(&t, x, z)).unwrap();
    }
    let target = 0.05 * std::f64::consts::PI * r * r;
    let n = s.count(0) as f64;
    assert!(
        n <= target.ceil() + 1.0 && n >= target * 0.9,
        "{n} vs {target}"
    );
    let (gone, _) = s.remove_where(Some(0), area, &mut |x, z| {
        dab_removes(0.5, 7, hard(x, z), x, z)
    });
    assert!(
        gone as f64 > n * 0.3 && (gone as f64) < n * 0.7,
        "{gone} of {n}"
    );
}

#[test]
fn a_cell_drawn_from_a_block_is_the_cell_drawn_from_the_source() {
    let mut t = hills(200, 1.5);
    t.set_holes_region(
        Region {
            x: 50,
            z: 50,
            w: 6,
            d: 6,
        },
        &[1; 36],
    )
    .unwrap();
    let mut s = InstanceStore::default();
    let area = Area {
        min: [0.0, 0.0],
        max: [300.0, 300.0],
    };
    let ps = scatter(&Rules::default(), &t, area, 3000, 5, &all);
    s.add(0, &ps, &|x, z| ground_of(&t, x, z)).unwrap();
    let keys: Vec<CellKey> = s.cells().map(|(k, _)| *k).collect();
    let block = block_for(&t, &s, &keys);
    for k in keys {
        let o = s.cell_area(k).min;
        let a = draw_cell(&t, o, s.cell(k).unwrap());
        let b = draw_cell(&block, o, s.cell(k).unwrap());
        assert_eq!(a, b);
    }
    // An endless world: a far cell is finite and the same from the stream's per-cell block.
    let g = Generated::new(&NoiseParams::default(), 1.0).unwrap();
    let mut e = InstanceStore::default();
    let far = Area {
        min: [1.0e6, -2.0e6],
        max: [1.0e6 + 64.0, -2.0e6 + 64.0],
    };
    let ps = scatter(&Rules::default(), &g, far, 100, 1, &all);
    assert_eq!(ps.len(), 100);
    e.add(0, &ps, &|x, z| ground_of(&g, x, z)).unwrap();
    let mut stream = InstanceStream::default();
    let cells: Vec<(CellKey, u64)> = e.cells().map(|(k, _)| (*k, 3)).collect();
    stream.request(std::sync::Arc::new(g.clone()), &e, &cells);
    let mut out = Vec::new();
    stream.wait(&mut out);
    assert_eq!(out.len(), cells.len());
    for c in out {
        assert_eq!(c.stamp, 3);
        let direct = draw_cell(&g, e.cell_area(c.key).min, e.cell(c.key).unwrap());
        assert_eq!(c.meshes, direct);
        assert!(c.meshes[0].buffer.iter().all(|v| v.is_finite()));
    }
}

#[test]
fn instances_at_a_million_on_4096_squared_density_cost_under_40_bytes_each() {
    // A quarter of the area at the same density (a debug-build test stays quick).
    let t = hills(512, 4.0);
    let mut s = InstanceStore::default();
    let area = Area {
        min: [0.0, 0.0],
        max: [2048.0, 2048.0],
    };
    let ps = scatter(&Rules::default(), &t, area, 250_000, 1, &all);
    s.add(0, &ps, &|x, z| ground_of(&t, x, z)).unwrap();
    s.shrink();
    let per = s.heap_bytes() as f64 / s.total() as f64;
    assert_eq!(s.total(), 250_000);
    assert!(per <= 40.0, "{per} bytes per instance");
}

#[test]
fn extract_and_replace_give_back_an_area() {
    let t = hills(128, 1.0);
    let mut s = InstanceStore::default();
    let area = Area {
        min: [0.0, 0.0],
        max: [128.0, 128.0],
    };
    s.add(
        0,
        &scatter(&Rules::default(), &t, area, 800, 2, &all),
        &|x, z| ground_of(&t, x, z),
    )
    .unwrap();
    let before = s.clone();
    let dab = Area {
        min: [30.0, 30.0],
        max: [70.0, 70.0],
    };
    let keys = s.keys_over(dab, 100).unwrap();
    // 30..70 in cells of 32: cells 0..=2 on each axis; 64..96 is touched, 96 is not.
    assert_eq!(keys.len(), 9);
    let snap = s.extract_cells(&keys);
    s.remove(None, dab);
    assert_ne!(s, before);
    s.replace_cells(&keys, &snap);
    assert_eq!(s.to_bytes(), before.to_bytes());
    // A cell's own area reaches no neighbour.
    let one = s.cell_area((1, 1));
    assert_eq!(s.keys_over(one, 10).unwrap(), vec![(1, 1)]);
    assert!(s.keys_over(area, 3).is_none());
}

#[test]
fn area_distance_is_zero_inside_and_euclidean_outside() {
    let a = Area {
        min: [0.0, 0.0],
        max: [10.0, 4.0],
    };
    assert_eq!(a.distance(5.0, 2.0), 0.0);
    assert_eq!(a.distance(13.0, 2.0), 3.0);
    assert_eq!(a.distance(13.0, 8.0), 5.0);
    assert_eq!(a.distance(-3.0, -4.0), 5.0);
}
