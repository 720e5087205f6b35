//! Topology properties of the wandering mesh over random valid parameters.

use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use terrain_core::wandering_mesh::{generate, LodConfig, DEFAULT_VERTEX_BUDGET};

/// Positions in units of the finest vertex spacing, where every vertex is a lattice point.
fn lattice(cfg: &LodConfig, p: &[[f32; 3]]) -> Vec<(i64, i64)> {
    let unit = cfg.start_size() / (1u64 << cfg.start_subdivision()) as f64;
    p.iter()
        .map(|v| {
            let (x, z) = (v[0] as f64 / unit, v[2] as f64 / unit);
            let (rx, rz) = (x.round(), z.round());
            assert!(
                (x - rx).abs() < 1e-3 && (z - rz).abs() < 1e-3,
                "vertex {v:?} off the lattice"
            );
            assert_eq!(v[1], 0.0);
            (rx as i64, rz as i64)
        })
        .collect()
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

fn check_properties(size: f64, sub: i64, lods: &[i64]) -> Result<(), TestCaseError> {
    let cfg = LodConfig::new(size, sub, lods, DEFAULT_VERTEX_BUDGET).unwrap();
    let m = generate(&cfg);
    let pts = lattice(&cfg, &m.positions);
    let n = pts.len();
    let index_of: HashMap<(i64, i64), usize> =
        pts.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    prop_assert_eq!(index_of.len(), n, "duplicate vertex positions");
    prop_assert_eq!(m.indices.len() % 3, 0);

    let mut used = vec![false; n];
    // Directed edge -> count; an interior edge must appear once each way, a border edge once.
    let mut directed: HashMap<(usize, usize), u32> = HashMap::new();
    let mut tris = HashSet::new();
    for t in m.indices.chunks_exact(3) {
        let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
        prop_assert!(a < n && b < n && c < n, "index out of range");
        let (pa, pb, pc) = (pts[a], pts[b], pts[c]);
        let cross_y = (pb.1 - pa.1) * (pc.0 - pa.0) - (pb.0 - pa.0) * (pc.1 - pa.1);
        prop_assert!(cross_y != 0, "degenerate triangle {:?}", (pa, pb, pc));
        // Clockwise seen from +Y (Godot's front face): the XZ cross product's Y is negative.
        prop_assert!(
            cross_y < 0,
            "triangle {:?} winds the other way",
            (pa, pb, pc)
        );
        for (u, v) in [(a, b), (b, c), (c, a)] {
            *directed.entry((u, v)).or_default() += 1;
            used[u] = true;
        }
        let mut key = [pa, pb, pc];
        key.sort();
        prop_assert!(tris.insert(key), "duplicate triangle");
    }
    prop_assert!(used.iter().all(|&u| u), "unused vertex");

    let mut border_next: HashMap<usize, usize> = HashMap::new();
    for (&(u, v), &k) in &directed {
        prop_assert_eq!(k, 1, "edge used twice in one direction");
        if !directed.contains_key(&(v, u)) {
            prop_assert!(
                border_next.insert(u, v).is_none(),
                "border vertex with two outgoing border edges"
            );
        }
        // No T-junction: no vertex strictly inside this edge.
        let (p, q) = (pts[u], pts[v]);
        let g = gcd(q.0 - p.0, q.1 - p.1);
        for s in 1..g {
            let r = (p.0 + (q.0 - p.0) / g * s, p.1 + (q.1 - p.1) / g * s);
            prop_assert!(
                !index_of.contains_key(&r),
                "T-junction: vertex {:?} inside edge {:?}-{:?}",
                r,
                p,
                q
            );
        }
    }
    // The border is one closed loop through all border edges.
    let start = *border_next.keys().next().unwrap();
    let (mut at, mut steps) = (start, 0);
    loop {
        at = border_next[&at];
        steps += 1;
        if at == start || steps > border_next.len() {
            break;
        }
    }
    prop_assert_eq!(steps, border_next.len(), "border is not a single loop");

    // Mirror symmetry about X = 0, of the vertex set and of the triangle set.
    for p in &pts {
        prop_assert!(
            index_of.contains_key(&(-p.0, p.1)),
            "no mirror image of vertex {:?}",
            p
        );
    }
    for key in &tris {
        let mut m = key.map(|p| (-p.0, p.1));
        m.sort();
        prop_assert!(tris.contains(&m), "no mirror image of triangle {:?}", key);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn wandering_mesh_is_a_clean_surface(
        size in prop::sample::select(vec![0.25, 1.0, 1.7, 3.0]),
        sub in 1i64..=5,
        lods in prop::collection::vec(1i64..=3, 0..6),
    ) {
        check_properties(size, sub, &lods)?;
    }
}

#[test]
fn document_cases_are_clean() {
    for (size, sub, lods) in [
        (1.0, 4, vec![3, 1, 2]),
        (2.5, 3, vec![2, 2, 2, 2, 2]),
        (1.0, 6, vec![2, 2, 2, 2]),
        (1.0, 2, vec![5]),
    ] {
        check_properties(size, sub, &lods).unwrap();
    }
}
