//! Editing region maps: edits equal a TerrainData's, saving writes only what changed (and the same bytes a
//! whole save of the edited terrain writes), damaged files are holes and reported, never overwritten.

use super::super::{
    save, RegionError, TerrainRegions, REGION_ABSENT, REGION_EDITED, REGION_FAILED, REGION_LOADED,
};
use crate::control::HOLE;
use crate::sample_rect::SampleRect;
use crate::samples::Samples;
use crate::terrain_data::TerrainData;
use crate::terrain_edit::TerrainEdit;
use crate::terrain_regions::Existing;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wt_edit_{name}_{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn terrain() -> TerrainData {
    let (w, d) = (300, 220);
    let h = (0..w * d)
        .map(|i| ((i % w) as f32 * 0.1).sin() * 7.0 + (i / w) as f32 * 0.05)
        .collect();
    TerrainData::from_heights(w, d, 2.0, h).unwrap()
}

/// Every map file's (bytes, identity). A save writes a new file and renames it over the old one, so a
/// rewritten file is a new inode even when written in the same clock tick (mtimes can be coarse).
fn files(dir: &Path) -> BTreeMap<String, (Vec<u8>, u64)> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            (
                n,
                (
                    fs::read(e.path()).unwrap(),
                    identity(&e.metadata().unwrap()),
                ),
            )
        })
        .collect()
}

#[cfg(unix)]
fn identity(m: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(m)
}

#[cfg(not(unix))]
fn identity(m: &fs::Metadata) -> u64 {
    let t = m.modified().unwrap();
    t.duration_since(std::time::SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

#[test]
fn edits_save_only_what_changed_and_equal_a_whole_save() {
    let mut t = terrain();
    let dir = tmp("save");
    save(&dir, &t, 64, Existing::Refuse).unwrap();
    let before = files(&dir);
    let r = TerrainRegions::open(&dir).unwrap();
    // 40 × 30 samples across the boundary of regions (1, 0) and (2, 0), and holes in region (0, 2).
    let hs: Vec<f32> = (0..40 * 30).map(|i| 50.0 + (i % 13) as f32).collect();
    r.set_heights_region(110, 40, 40, 30, &hs).unwrap();
    t.set_heights_region(t.region(110, 40, 40, 30).unwrap(), &hs)
        .unwrap();
    r.set_control_region(10, 140, 3, 2, &[HOLE; 6]).unwrap();
    t.set_holes_region(t.region(10, 140, 3, 2).unwrap(), &[1; 6])
        .unwrap();
    assert!(r.dirty_regions() > 2);
    assert_eq!(r.heights_region(0, 0, 300, 220), t.heights());
    assert!(r.is_hole_at_sample(11.0, 140.5) && t.is_hole_at_sample(11.0, 140.5));
    assert!(r.bounds().1 >= 62.0);
    // Far rings follow before saving: mip 1 over the edit is the box filter of the edit.
    let m1 = r.mip(1);
    let want = (hs[0] + hs[1] + hs[40] + hs[41]) * 0.25;
    assert_eq!(m1.texel(55, 20)[0], want);
    let written = r.save().unwrap();
    assert_eq!(r.dirty_regions(), 0);
    // The same files a whole save of the edited terrain writes, byte for byte.
    let whole = tmp("whole");
    save(&whole, &t, 64, Existing::Refuse).unwrap();
    let (after, reference) = (files(&dir), files(&whole));
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>()
    );
    let mut changed = 0;
    for (name, (bytes, time)) in &after {
        assert_eq!(bytes, &reference[name].0, "{name}");
        if before.get(name).is_some_and(|b| b.0 == *bytes) {
            assert_eq!(*time, before[name].1, "{name} untouched, not rewritten");
        } else {
            changed += 1;
        }
    }
    assert!(
        changed <= written + 1,
        "{changed} files changed, {written} regions saved"
    );
    let again = TerrainRegions::open(&dir).unwrap();
    assert_eq!(again.heights_region(0, 0, 300, 220), t.heights());
    assert_eq!(again.control_region(10, 140, 3, 2), vec![HOLE; 6]);
}

#[test]
fn dirty_regions_stay_in_memory_and_discard_forgets_them() {
    let t = terrain();
    let dir = tmp("dirty");
    save(&dir, &t, 16, Existing::Refuse).unwrap();
    let r = TerrainRegions::open(&dir).unwrap();
    r.set_budget(0);
    // Every mip-0 region edited: far beyond the smallest cache, all kept.
    r.set_heights_region(0, 0, 300, 220, &vec![3.0; 300 * 220])
        .unwrap();
    let _ = r.heights_region(0, 0, 300, 220);
    assert_eq!(r.heights_region(0, 0, 300, 220), vec![3.0; 300 * 220]);
    assert!(r.dirty_regions() >= 19 * 14);
    r.discard_changes();
    assert_eq!(r.dirty_regions(), 0);
    assert_eq!(r.heights_region(0, 0, 300, 220), t.heights());
    assert_eq!(r.bounds(), TerrainRegions::open(&dir).unwrap().bounds());
    // Bad edits change nothing.
    assert!(r.set_heights_region(290, 0, 20, 1, &[0.0; 20]).is_err());
    assert!(r.set_heights_region(0, 0, 2, 1, &[f32::NAN, 0.0]).is_err());
    assert!(r.set_heights_region(0, 0, 2, 1, &[0.0]).is_err());
    assert_eq!(r.dirty_regions(), 0);
}

#[test]
fn damaged_regions_are_holes_reported_once_and_never_overwritten() {
    let t = terrain();
    let dir = tmp("damaged");
    save(&dir, &t, 64, Existing::Refuse).unwrap();
    let bad = dir.join("h0_1_0.bin");
    let mut bytes = fs::read(&bad).unwrap();
    bytes[100] ^= 0x40;
    fs::write(&bad, &bytes).unwrap();
    fs::write(dir.join("h0_2_1.bin"), &bytes[..1000]).unwrap();
    let r = TerrainRegions::open(&dir).unwrap();
    assert!(
        r.is_hole_at_sample(70.0, 10.0),
        "a damaged region is a hole, not flat ground"
    );
    assert!(!r.is_hole_at_sample(10.0, 10.0));
    assert!(r.is_hole_at_sample(150.0, 70.0), "a truncated one too");
    let f = r.take_failures();
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f
        .iter()
        .any(|x| x.3.contains("h0_1_0.bin") && x.3.contains("checksum")));
    assert!(f
        .iter()
        .any(|x| x.3.contains("h0_2_1.bin") && x.3.contains("truncated")));
    let _ = r.heights_region(0, 0, 300, 220);
    assert!(r.take_failures().is_empty(), "reported once");
    let e = r
        .set_heights_region(60, 5, 10, 10, &[1.0; 100])
        .unwrap_err();
    assert!(matches!(e, RegionError::Damaged(_)), "{e:?}");
    assert!(e.to_string().contains("h0_1_0.bin"), "{e}");
    r.set_heights_region(0, 0, 4, 4, &[1.0; 16]).unwrap();
    // The region-cache view's states: edited (unsaved), damaged, loaded, and outside the map.
    let mut states = Vec::new();
    r.region_states(-1, 0, 6, 1, &mut states);
    assert_eq!(
        states,
        [
            REGION_ABSENT,
            REGION_EDITED,
            REGION_FAILED,
            REGION_LOADED,
            REGION_LOADED,
            REGION_LOADED
        ]
    );
    r.save().unwrap();
    r.region_states(0, 0, 1, 1, &mut states);
    assert_eq!(states, [REGION_LOADED], "saved: no longer edited");
    assert_eq!(
        fs::read(&bad).unwrap(),
        bytes,
        "never overwritten by reads or saves"
    );
}

#[test]
fn brushes_on_a_region_map_equal_brushes_on_the_terrain() {
    use crate::brush::{apply, Brush, Falloff, Tool};
    let mut t = {
        let (w, d) = (200, 150);
        let h = (0..w * d)
            .map(|i| ((i % w) as f32 * 0.2).sin() * 3.0 + ((i / w) as f32 * 0.15).cos() * 2.0)
            .collect();
        TerrainData::from_heights(w, d, 1.0, h).unwrap()
    };
    let dir = tmp("brush");
    save(&dir, &t, 32, Existing::Refuse).unwrap();
    let r = TerrainRegions::open(&dir).unwrap();
    let tools = [
        Tool::Raise,
        Tool::Smooth,
        Tool::Flatten,
        Tool::Lower,
        Tool::HoleAdd,
        Tool::Paint {
            layer: 2,
            erase: false,
        },
        Tool::HoleRemove,
    ];
    for (k, tool) in tools.into_iter().enumerate() {
        let b = Brush::new(tool, 21.0, 4.0, Falloff::Hardness(0.3), 1.5).unwrap();
        for step in 0..6 {
            // Across region corners and the map's edge.
            let c = [
                30.0 + 9.0 * step as f64 + k as f64,
                31.0 + 7.0 * step as f64,
            ];
            let a = apply(&mut t, &b, c, 0.05).unwrap().map(SampleRect::from);
            let g = TerrainEdit::apply_brush(&mut &r, &b, c, 0.05).unwrap();
            assert_eq!(a, g, "{tool:?} step {step}: changed rectangles");
        }
        let b = Brush::new(tool, 13.0, 4.0, Falloff::Hardness(0.5), 0.0).unwrap();
        assert_eq!(
            apply(&mut t, &b, [2.0, 148.0], 0.1)
                .unwrap()
                .map(SampleRect::from),
            TerrainEdit::apply_brush(&mut &r, &b, [2.0, 148.0], 0.1).unwrap()
        );
    }
    assert_eq!(r.heights_region(0, 0, 200, 150), t.heights());
    assert_eq!(r.control_region(0, 0, 200, 150), t.control_map());
}

/// An edit on one thread while another reads the same region from disk (a worker, the mips refresh):
/// the read must not put the file's copy over the edited one (it did: one edit in a few was lost).
#[test]
fn a_region_read_from_disk_meanwhile_never_undoes_an_edit() {
    let t = terrain();
    let dir = tmp("race");
    save(&dir, &t, 64, Existing::Refuse).unwrap();
    for round in 0..40 {
        let r = std::sync::Arc::new(TerrainRegions::open(&dir).unwrap());
        let reader = {
            let r = r.clone();
            std::thread::spawn(move || {
                r.heights_region(100, 100, 1, 1);
            })
        };
        let v = round as f32 + 0.5;
        r.set_heights_region(100, 100, 1, 1, &[v]).unwrap();
        reader.join().unwrap();
        assert_eq!(r.heights_region(100, 100, 1, 1), vec![v], "round {round}");
    }
}
