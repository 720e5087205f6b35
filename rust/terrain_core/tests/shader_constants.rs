//! The shaders decode the control word with their own constants: they must equal the Rust owner's
//! (`control.rs`), or painting and holes would draw differently from what `get_layer_weights` and
//! `is_hole` report.

use terrain_core::control::{GPU_HOLE, MAX_LAYERS, PAINT_MASK};

fn shader(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shaders")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The value of `#define NAME value` (a `u` suffix allowed).
fn define(src: &str, name: &str) -> u32 {
    let line = src
        .lines()
        .find(|l| l.split_whitespace().take(2).eq(["#define", name]))
        .unwrap_or_else(|| panic!("#define {name} not found"));
    let v = line.split_whitespace().nth(2).expect("a value");
    v.trim_end_matches('u').parse().expect("a number")
}

#[test]
fn the_shaders_decode_the_control_word_as_control_rs_lays_it_out() {
    let td = shader("terrain_data.gdshaderinc");
    let mask = define(&td, "TD_SLOT_MASK");
    let overlay = define(&td, "TD_OVERLAY_SHIFT");
    let blend = define(&td, "TD_BLEND_SHIFT");
    let hole = define(&td, "TD_HOLE_BIT");
    assert_eq!(1 << hole, GPU_HOLE);
    // Slots: 0 (auto) and 1 + layer for every layer; the blend byte ends where the GPU hole bit starts.
    assert_eq!(mask as usize, MAX_LAYERS);
    assert_eq!(mask.count_ones(), overlay);
    assert_eq!(overlay * 2, blend);
    assert_eq!((255 << blend) | (mask << overlay) | mask, PAINT_MASK);
    // Round trip through the Rust encoder.
    let p = terrain_core::control::Paint {
        base: 5,
        overlay: 41,
        blend: 200,
    };
    let c = p.encode();
    assert_eq!(
        (c & mask, (c >> overlay) & mask, (c >> blend) & 255),
        (5, 41, 200)
    );
    let tm = shader("terrain_material.gdshaderinc");
    assert_eq!(define(&tm, "TM_MAX_LAYERS") as usize, MAX_LAYERS);
    // Nothing outside terrain_data.gdshaderinc decodes the word by hand.
    for name in [
        "terrain_material.gdshaderinc",
        "terrain_pixel_art.gdshaderinc",
        "clipmap.gdshaderinc",
        "wandering_terrain.gdshaderinc",
    ] {
        let s = shader(name);
        assert!(
            !s.contains(">> 20u") && !s.contains(">> 12u") && !s.contains(">> 6u"),
            "{name} decodes the control word itself"
        );
    }
}
