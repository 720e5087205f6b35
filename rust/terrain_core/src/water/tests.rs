use super::*;

/// A plain at 10 with round bowls: (centre x, centre z, radius, depth below the plain, rim height above
/// it). A bowl is a paraboloid that crosses 10 + rim at its radius and keeps rising to a crest 3 samples
/// beyond, with one spillway (a channel east from the centre's row) cut down to exactly 10 + rim: its lake
/// stands at 10 + rim and covers π r².
fn bowls(n: usize, list: &[(f64, f64, f64, f32, f32)]) -> Vec<f32> {
    let mut h = vec![10.0f32; n * n];
    for z in 0..n {
        for x in 0..n {
            for &(cx, cz, r, depth, rim) in list {
                let d = ((x as f64 - cx).powi(2) + (z as f64 - cz).powi(2)).sqrt();
                let bowl = |d: f64| 10.0 + rim - (depth + rim) * (1.0 - (d / r).powi(2)) as f32;
                let spillway = z as f64 == cz && x as f64 > cx + r;
                if d < r + 5.0 && spillway {
                    h[z * n + x] = 10.0 + rim;
                } else if d < r + 3.0 {
                    h[z * n + x] = bowl(d);
                } else if d < r + 5.0 {
                    h[z * n + x] = bowl(r + 3.0);
                }
            }
        }
    }
    h
}

#[test]
fn three_bowls_give_three_lakes_at_their_rims() {
    let n = 256;
    let list = [
        (70.0, 70.0, 40.0, 6.0, 3.0),
        (180.0, 80.0, 30.0, 4.0, 1.0),
        (120.0, 190.0, 25.0, 8.0, 2.5),
    ];
    let h = bowls(n, &list);
    let g = Grid {
        heights: &h,
        w: n,
        d: n,
        spacing: 1.0,
    };
    let lakes = find_lakes(g, f32::NEG_INFINITY, 10.0, 0.1).unwrap();
    assert_eq!(lakes.len(), 3, "{lakes:?}");
    for &(cx, cz, r, depth, rim) in &list {
        let lake = lakes
            .iter()
            .find(|l| {
                let [x, z] = l.deepest;
                (x as f64 - cx).abs() <= 1.0 && (z as f64 - cz).abs() <= 1.0
            })
            .expect("a lake at each bowl");
        assert!(
            (lake.level - (10.0 + rim)).abs() < 0.01,
            "level {} vs {}",
            lake.level,
            10.0 + rim
        );
        let analytic = std::f64::consts::PI * r * r;
        assert!(
            (lake.area - analytic).abs() <= 0.01 * analytic,
            "area {} vs πr² {analytic}",
            lake.area
        );
        assert!(
            (lake.depth - (depth + rim)).abs() < 0.05,
            "depth {}",
            lake.depth
        );
    }
    // A sea above the lowest rim takes that lake; the others keep theirs.
    let with_sea = find_lakes(g, 11.5, 10.0, 0.1).unwrap();
    assert_eq!(with_sea.len(), 2);
}

#[test]
fn a_basin_inside_another_fills_to_the_outer_rim_and_neighbours_stay_apart() {
    let n = 160;
    // Two bowls side by side: the lower rim must not take the other's level.
    let mut h = bowls(
        n,
        &[(45.0, 80.0, 25.0, 5.0, 1.0), (115.0, 80.0, 25.0, 5.0, 4.0)],
    );
    // A pit inside the second bowl: one lake with it, at the outer rim.
    for z in 76..84 {
        for x in 111..119 {
            h[z * n + x] = -20.0;
        }
    }
    let g = Grid {
        heights: &h,
        w: n,
        d: n,
        spacing: 2.0,
    };
    let lakes = find_lakes(g, f32::NEG_INFINITY, 1.0, 0.0).unwrap();
    assert_eq!(lakes.len(), 2);
    let mut levels: Vec<f32> = lakes.iter().map(|l| l.level).collect();
    levels.sort_by(f32::total_cmp);
    assert_eq!(levels, vec![11.0, 14.0]);
    let deep = lakes.iter().find(|l| l.level == 14.0).unwrap();
    assert!((deep.depth - 34.0).abs() < 1e-4, "depth {}", deep.depth);
    let analytic = std::f64::consts::PI * 25.0 * 25.0 * 4.0;
    assert!(
        (deep.area - analytic).abs() < 0.01 * analytic,
        "area in terrain units²: {}",
        deep.area
    );
}

/// A plane falling towards z = 0 with a V valley along x = 64.
fn valley(n: usize) -> Vec<f32> {
    (0..n * n)
        .map(|i| {
            let (x, z) = ((i % n) as f32, (i / n) as f32);
            0.05 * z + 0.2 * (x - 64.0).abs()
        })
        .collect()
}

#[test]
fn a_river_follows_the_valley_floor_and_flow_is_conserved() {
    let n = 128;
    let h = valley(n);
    let g = Grid {
        heights: &h,
        w: n,
        d: n,
        spacing: 1.0,
    };
    let f = flow(g, f32::NEG_INFINITY).unwrap();
    assert!(f.check_conserved(), "everything leaves by the outlets");
    let total: f64 = f.accumulation.iter().map(|&a| f64::from(a)).sum();
    assert!(total > n as f64 * n as f64, "cells pass water on");
    let rivers = f.rivers(300.0).unwrap();
    assert!(!rivers.is_empty());
    let main = &rivers[0];
    assert!(
        main.len() > n / 2,
        "the main river runs most of the valley ({})",
        main.len()
    );
    for &[x, z] in main {
        assert!(
            x.abs_diff(64) <= 1,
            "river at ({x}, {z}) off the valley floor"
        );
    }
    assert_eq!(main.last().unwrap()[1], 0, "it leaves at the low edge");
    // The same grid, the same flow, bit for bit.
    let again = flow(g, f32::NEG_INFINITY).unwrap();
    assert_eq!(again.receiver, f.receiver);
    assert_eq!(again.accumulation, f.accumulation);
}

#[test]
fn lakes_drain_through_their_spill_point() {
    let n = 96;
    let h = bowls(n, &[(48.0, 48.0, 20.0, 4.0, 1.0)]);
    let g = Grid {
        heights: &h,
        w: n,
        d: n,
        spacing: 1.0,
    };
    let f = flow(g, f32::NEG_INFINITY).unwrap();
    assert!(f.check_conserved());
    // Every cell of the lake drains somewhere that ends at the edge (no loop, no sink inside).
    for start in [48 * n + 48, 40 * n + 45] {
        let mut c = start;
        let mut steps = 0;
        while f.receiver[c] as usize != c {
            c = f.receiver[c] as usize;
            steps += 1;
            assert!(steps < n * n, "a loop");
        }
        let (x, z) = (c % n, c / n);
        assert!(
            x == 0 || z == 0 || x == n - 1 || z == n - 1,
            "ends at the edge, not at ({x}, {z})"
        );
    }
}

#[test]
fn bad_input_is_refused() {
    let mut h = vec![0.0f32; 16];
    let g = |h: &[f32]| {
        find_lakes(
            Grid {
                heights: h,
                w: 4,
                d: 4,
                spacing: 1.0,
            },
            f32::NEG_INFINITY,
            0.0,
            0.0,
        )
    };
    assert!(g(&h).unwrap().is_empty(), "a flat map has no lake");
    h[5] = f32::NAN;
    assert_eq!(
        g(&h).unwrap_err().0,
        "sample (1, 1) is not finite (a hole or a damaged map)"
    );
    let ok = vec![0.0f32; 16];
    let grid = Grid {
        heights: &ok,
        w: 4,
        d: 4,
        spacing: 1.0,
    };
    assert!(find_lakes(grid, 0.0, -1.0, 0.0)
        .unwrap_err()
        .0
        .starts_with("min_area"));
    assert!(flow(grid, 0.0)
        .unwrap()
        .rivers(0.5)
        .unwrap_err()
        .0
        .starts_with("threshold"));
    let empty: Vec<f32> = Vec::new();
    let none = Grid {
        heights: &empty,
        w: 0,
        d: 0,
        spacing: 1.0,
    };
    assert!(fill(none).is_err());
}

#[test]
fn water_levels_hold_the_sea_and_the_chosen_lakes_only() {
    let n = 200;
    let h = bowls(
        n,
        &[(50.0, 50.0, 25.0, 5.0, 3.0), (140.0, 140.0, 25.0, 5.0, 2.0)],
    );
    let g = Grid {
        heights: &h,
        w: n,
        d: n,
        spacing: 1.0,
    };
    // The sea at 10.5 floods the plain (10); the bowls' rims stand above it: their basins stay dry unless
    // chosen. Only the first lake is chosen; a dry point and a point in the sea find none.
    let (levels, found) = water_levels(
        g,
        10.5,
        &[[50, 50], [5, 5], [100, 100], [usize::MAX, usize::MAX]],
    )
    .unwrap();
    assert_eq!(
        found,
        vec![Some(13.0), None, None, None],
        "a point off the grid finds none"
    );
    assert_eq!(levels[50 * n + 50], 13.0);
    assert_eq!(
        levels[140 * n + 140],
        f32::NEG_INFINITY,
        "the other basin is not flooded by the sea"
    );
    assert_eq!(levels[5 * n + 5], 10.5, "the plain is under the sea");
    assert!(water_levels(g, f32::NAN, &[]).is_err());
}

#[test]
fn a_river_surface_is_its_lines_height_within_its_width() {
    let r = RiverSurface::new(
        vec![[0.0, 10.0, 0.0], [100.0, 5.0, 0.0], [100.0, 0.0, 50.0]],
        4.0,
    );
    assert!(
        r.at(-5.0, 0.0).is_none() && r.at(50.0, -4.5).is_none(),
        "outside its box"
    );
    let (y, dir) = r.at(50.0, 3.0).unwrap();
    assert!((y - 7.5).abs() < 1e-9);
    assert_eq!(dir, [1.0, 0.0]);
    assert!(r.at(50.0, 4.5).is_none(), "beyond half the width");
    let (y, dir) = r.at(101.0, 25.0).unwrap();
    assert!((y - 2.5).abs() < 1e-9);
    assert_eq!(dir, [0.0, 1.0], "downstream on the second stretch");
}

#[test]
fn a_river_pauses_in_a_lake() {
    // The valley with a pit dug in its floor halfway down: the river ends at the pond and goes on after.
    let n = 128;
    let mut h = valley(n);
    for z in 60..70 {
        for x in 60..69 {
            h[z * n + x] -= 4.0;
        }
    }
    let g = Grid {
        heights: &h,
        w: n,
        d: n,
        spacing: 1.0,
    };
    let f = flow(g, f32::NEG_INFINITY).unwrap();
    let rivers = f.rivers(300.0).unwrap();
    assert!(rivers.len() >= 2, "split at the pond: {}", rivers.len());
    for line in &rivers {
        for &[x, z] in line {
            assert!(!f.ponded[z * n + x], "no river point in the pond");
        }
    }
}
