//! Identity with the original wandering terrain's generator: fixtures made by running its script in Godot 4.6
//! (`tests/fixtures/wandering_mesh/fixtures.json`: counts and SHA-256 of the raw arrays, full arrays for
//! the small cases).

use sha2::{Digest, Sha256};
use terrain_core::wandering_mesh::{generate, LodConfig, LodConfigError};

fn fixtures() -> serde_json::Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/wandering_mesh/fixtures.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn hex(bytes: impl AsRef<[u8]>) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn identical_to_document_generator() {
    let f = fixtures();
    let mut checked = 0;
    for case in f["cases"].as_array().unwrap() {
        let size = case["start_size"].as_f64().unwrap();
        let sub = case["start_subdivision"].as_i64().unwrap();
        let lods: Vec<i64> = case["lods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let what = format!("start_size {size}, start_subdivision {sub}, lods {lods:?}");
        let cfg = match LodConfig::new(size, sub, &lods, u64::MAX) {
            Ok(c) => c,
            Err(LodConfigError::LodEntry { value: 0, .. }) => {
                // The original emits -1 indices for a 0 entry; we refuse it instead (documented).
                assert!(case["negative_index_count"].as_i64().unwrap() > 0, "{what}");
                continue;
            }
            Err(e) => panic!("{what}: {e}"),
        };
        let m = generate(&cfg);
        assert_eq!(
            m.positions.len() as i64,
            case["vertex_count"].as_i64().unwrap(),
            "{what}"
        );
        assert_eq!(
            m.indices.len() as i64,
            case["index_count"].as_i64().unwrap(),
            "{what}"
        );
        if let Some(v) = case.get("vertices") {
            let want: Vec<f32> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            let got: Vec<f32> = m.positions.iter().flatten().copied().collect();
            assert_eq!(got, want, "{what}: vertices");
            let want: Vec<i32> = case["indices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap() as i32)
                .collect();
            assert_eq!(m.indices, want, "{what}: indices");
        }
        let vbytes: Vec<u8> = m
            .positions
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let ibytes: Vec<u8> = m.indices.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(
            hex(&vbytes),
            case["vertices_sha256"].as_str().unwrap(),
            "{what}: vertex hash"
        );
        assert_eq!(
            hex(&ibytes),
            case["indices_sha256"].as_str().unwrap(),
            "{what}: index hash"
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} fixture cases checked");
}
