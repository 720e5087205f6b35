use super::*;
use crate::brush::Falloff;
use crate::terrain_regions::{save, Existing};

fn terrain() -> TerrainData {
    let mut t = crate::test_terrains::Waves {
        x: (0.21, 9.0),
        z: (0.13, 5.0),
        jitter: (17, 0.07),
    }
    .terrain(100, 80, 1.5);
    t.set_holes_region(t.region(40, 30, 3, 4).unwrap(), &[1; 12])
        .unwrap();
    t.set_layer_region(t.region(70, 20, 9, 9).unwrap(), 2, &[1.0; 81])
        .unwrap();
    t
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("wt_edit_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A TerrainData edited only through the trait's required calls: the written-once paths (the dab's
/// block, control edits on a copy), to compare with TerrainData's own.
struct Blocked(TerrainData);

impl TerrainEdit for Blocked {
    fn bounds(&self) -> Option<SampleRect> {
        TerrainEdit::bounds(&self.0)
    }
    fn spacing(&self) -> f64 {
        self.0.spacing()
    }
    fn heights(&self, r: SampleRect) -> Result<Vec<f32>, EditError> {
        TerrainEdit::heights(&self.0, r)
    }
    fn control(&self, r: SampleRect) -> Result<Vec<u32>, EditError> {
        TerrainEdit::control(&self.0, r)
    }
    fn set_heights(&mut self, r: SampleRect, v: &[f32]) -> Result<SampleRect, EditError> {
        self.0.set_heights(r, v)
    }
    fn set_control(&mut self, r: SampleRect, v: &[u32]) -> Result<SampleRect, EditError> {
        self.0.set_control(r, v)
    }
}

fn brushes() -> Vec<Brush> {
    let tools = [
        Tool::Raise,
        Tool::Smooth,
        Tool::Flatten,
        Tool::Slope {
            from: [20.0, -3.0, 15.0],
            to: [120.0, 9.0, 100.0],
        },
        Tool::Paint {
            layer: 3,
            erase: false,
        },
        Tool::HoleAdd,
        Tool::Lower,
    ];
    tools
        .into_iter()
        .map(|t| Brush::new(t, 17.0, 3.0, Falloff::Hardness(0.4), 2.5).unwrap())
        .collect()
}

/// The same edits on two terrains: calls, then dabs at the middle, at an edge and a corner.
fn edit_both(a: &mut dyn TerrainEdit, b: &mut dyn TerrainEdit) {
    let r = SampleRect {
        x: 10,
        z: 12,
        w: 7,
        d: 5,
    };
    let v: Vec<f32> = (0..35).map(|i| i as f32 * 0.25 - 3.0).collect();
    let calls = |e: &mut dyn TerrainEdit| {
        e.set_heights(r, &v).unwrap();
        e.set_holes(
            SampleRect {
                x: 60,
                z: 50,
                w: 4,
                d: 3,
            },
            &[1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1],
        )
        .unwrap();
        e.set_layer(
            SampleRect {
                x: 5,
                z: 60,
                w: 3,
                d: 3,
            },
            5,
            &[0.5; 9],
        )
        .unwrap();
    };
    calls(a);
    calls(b);
    for (i, brush) in brushes().iter().enumerate() {
        for c in [[75.3, 61.1], [1.0, 40.0], [149.0, 119.0], [33.3, 7.7]] {
            let c = [c[0] + i as f64 * 0.37, c[1]];
            let ra = a.apply_brush(brush, c, 0.1).unwrap();
            let rb = b.apply_brush(brush, c, 0.1).unwrap();
            assert_eq!(ra.is_some(), rb.is_some(), "{:?} at {c:?}", brush.tool);
        }
    }
}

fn all(e: &dyn TerrainEdit) -> (Vec<f32>, Vec<u32>) {
    let b = e.bounds().unwrap();
    (e.heights(b).unwrap(), e.control(b).unwrap())
}

#[test]
fn a_region_map_takes_every_edit_as_a_terrain_data_does() {
    let t = terrain();
    let dir = tmp("same");
    save(&dir, &t, 32, Existing::Refuse).unwrap();
    let map = TerrainRegions::open(&dir).unwrap();
    let mut data = t.clone();
    edit_both(&mut data, &mut &map);
    let (h0, c0) = all(&data);
    let (h1, c1) = all(&&map);
    // The map's dabs run on a copy of the samples around them: the same heights bit for bit.
    assert_eq!(h0, h1);
    assert_eq!(c0, c1);
    assert_ne!(h0, t.heights(), "the edits changed the heights");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_written_once_dab_equals_the_in_place_one_slopes_included() {
    // A slope's ends are positions: a dab on a copy of the samples once ramped toward ends shifted by
    // the copy's corner (a region map's slope brush missed by metres).
    let mut data = terrain();
    let mut blocked = Blocked(terrain());
    edit_both(&mut data, &mut blocked);
    let (h0, c0) = all(&data);
    let (h1, c1) = all(&blocked);
    assert_eq!(h0, h1);
    assert_eq!(c0, c1);
}

#[test]
fn an_edit_outside_the_terrain_is_refused_and_changes_nothing() {
    let mut data = terrain();
    let before = data.heights().to_vec();
    let r = SampleRect {
        x: 95,
        z: -2,
        w: 10,
        d: 4,
    };
    let e = data.set_heights(r, &[1.0; 40]).unwrap_err();
    assert!(matches!(e, EditError::Outside { .. }));
    assert!(e.to_string().contains("region (95, -2, 10 x 4)"), "{e}");
    assert!(data.set_holes(r, &[1; 40]).is_err());
    assert!(TerrainEdit::heights(&data, r).is_err());
    let wrong = SampleRect {
        x: 0,
        z: 0,
        w: 3,
        d: 3,
    };
    assert!(matches!(
        data.set_control(wrong, &[0; 8]),
        Err(EditError::Terrain(TerrainDataError::Length { .. }))
    ));
    assert_eq!(data.heights(), before.as_slice());
}

#[test]
fn a_dab_off_the_terrain_or_at_a_non_finite_centre_changes_nothing() {
    let mut data = terrain();
    let before = data.heights().to_vec();
    let b = &brushes()[0];
    for c in [[-500.0, 10.0], [f64::NAN, 3.0], [10.0, f64::INFINITY]] {
        assert_eq!(data.apply_brush(b, c, 0.1).unwrap(), None);
        assert_eq!(Blocked(data.clone()).apply_brush(b, c, 0.1).unwrap(), None);
    }
    assert_eq!(data.heights(), before.as_slice());
}
