//! Agreement with the original wandering terrain's `compute_terrain_data` and `get_height`, from fixtures made by running its
//! functions in Godot 4.6 (`tests/fixtures/terrain_data/fixtures.json`). Sample positions lie where the
//! original's clamp does not engage (both coordinates in [0.5, size - 0.5]).

use terrain_core::terrain_data::TerrainData;

fn fixtures() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/terrain_data/fixtures.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn floats(v: &serde_json::Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

/// The fixture case's heights as a terrain with the given spacing.
fn terrain(case: &serde_json::Value, spacing: f64) -> TerrainData {
    let size: Vec<usize> = case["size"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    TerrainData::from_heights(size[0], size[1], spacing, floats(&case["heights"])).unwrap()
}

#[test]
fn slopes_and_heights_match_document() {
    let f = fixtures();
    let cases = f["cases"].as_array().unwrap();
    assert!(cases.len() >= 3);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let t = terrain(case, 1.0);
        let (lo, hi) = t.height_range();
        let tol = 1e-5 * (hi - lo).max(1.0);

        let want = floats(&case["data"]);
        let data = t.texels_region(t.all());
        for (i, (got, want)) in data.iter().zip(want.chunks_exact(3)).enumerate() {
            for c in 0..3 {
                assert!(
                    (got[c] - want[c]).abs() <= tol,
                    "case {name}: data[{i}][{c}] = {} want {}",
                    got[c],
                    want[c]
                );
            }
        }

        let mut worst = 0.0f32;
        let samples = case["samples"].as_array().unwrap();
        for s in samples {
            let s = floats(s);
            let got = t.height_at(f64::from(s[0]), f64::from(s[1]));
            worst = worst.max((got - s[2]).abs());
            assert!(
                (got - s[2]).abs() <= tol,
                "case {name}: get_height({}, {}) = {got}, document {}",
                s[0],
                s[1],
                s[2]
            );
        }
        assert!(
            samples.len() >= 500,
            "case {name}: {} samples",
            samples.len()
        );
        eprintln!(
            "case {name}: {} samples, worst |error| {worst:e} (tolerance {tol:e})",
            samples.len()
        );
    }
}

#[test]
fn spacing_scales_positions_not_maths() {
    let f = fixtures();
    let case = &f["cases"][1];
    let one = terrain(case, 1.0);
    let four = terrain(case, 4.0);
    for &(x, z) in &[(3.3, 7.1), (10.0, 10.0), (0.2, 31.9), (-3.0, 40.0)] {
        assert_eq!(one.height_at(x, z), four.height_at(x * 4.0, z * 4.0));
        let (a, b) = (one.normal_at(x, z), four.normal_at(x * 4.0, z * 4.0));
        // Same height change over 4x the distance: the normal tilts less.
        assert!(b[1] >= a[1] - 1e-6);
    }
}

#[test]
fn edges_clamp_each_axis_on_its_own() {
    // Near and beyond every edge the result equals the patch maths with per-axis clamped samples: check it
    // against an explicitly padded terrain (the edge rows repeated), where no clamp engages.
    let f = fixtures();
    let case = &f["cases"][0];
    let (w, d) = (13usize, 9usize);
    let heights = floats(&case["heights"]);
    let t = TerrainData::from_heights(w, d, 1.0, heights).unwrap();
    let pad = 3usize;
    let (pw, pd) = (w + 2 * pad, d + 2 * pad);
    let mut padded = vec![[0.0f32; 3]; pw * pd];
    for z in 0..pd {
        for x in 0..pw {
            let sx = (x as i64 - pad as i64).clamp(0, w as i64 - 1) as usize;
            let sz = (z as i64 - pad as i64).clamp(0, d as i64 - 1) as usize;
            padded[z * pw + x] = t.texel(sx as i64, sz as i64);
        }
    }
    for &(x, z) in &[
        (0.0, 4.0),
        (0.25, 0.3),
        (-1.7, 5.0),
        (12.9, 8.8),
        (13.0, 2.0),
        (14.2, 9.6),
        (6.0, -0.9),
        (6.5, 9.0),
        (6.5, 10.4),
        (-0.5, -0.5),
        (13.5, 9.5),
    ] {
        let want = terrain_core::bezier_patch::height(
            &padded,
            pw,
            pd,
            x - 0.5 + pad as f64,
            z - 0.5 + pad as f64,
        );
        let got = t.height_at(x, z);
        assert!(
            (got - want).abs() < 1e-5,
            "({x}, {z}): {got} vs padded {want}"
        );
        assert!(got.is_finite());
    }
    assert!(t.height_at(f64::NAN, 1.0).is_nan());
    assert!(t.height_at(1.0, f64::INFINITY).is_nan());
}
