//! `debug_view` of both terrain nodes: a material of the node's debug shader (made of the shipped
//! includes, `terrain_debug.gdshaderinc`) drawn instead of the node's material while a view is chosen. The
//! node's material and its parameters stay as they are and both get the node's parameters, so switching back
//! is instant; nothing is made while the view is OFF.

use crate::terrain_material::{self, TerrainMaterial};
use godot::classes::ShaderMaterial;
use godot::prelude::*;

/// The last view (CONTROL); views are numbered alike on both nodes.
pub const LAST: i64 = 8;
/// The views, for the property hint and errors.
pub const NAMES: &str =
    "OFF, CHECKER, HEIGHTMAP, NORMALS, SLOPE, LEVELS, HOLES, LAYER_WEIGHTS, CONTROL";

/// `debug_view` → the debug shader's `debug_mode` (terrain_debug.gdshaderinc) and whether holes show.
fn mode_of(view: i64) -> (i32, bool) {
    match view {
        1 => (3, false),
        3 => (1, false),
        4 => (5, false),
        5 => (6, false),
        6 => (4, true),
        7 => (7, false),
        8 => (8, false),
        _ => (4, false),
    }
}

/// Whether `value` is a view; else an error naming `property` and the range.
pub fn check(property: &str, value: i64, kept: i64) -> bool {
    let ok = (0..=LAST).contains(&value);
    if !ok {
        godot_error!("{property} must be in [0, {LAST}] ({NAMES}), got {value}; keeping {kept}");
    }
    ok
}

/// Makes, updates or drops (`view` 0) the debug material of `shader` in `slot`, with the node's height
/// range and look (the layer views blend with it).
pub fn show(
    slot: &mut Option<Gd<ShaderMaterial>>,
    view: i64,
    shader: &str,
    property: &str,
    range: Vector2,
    look: Option<&mut Gd<TerrainMaterial>>,
) {
    if view == 0 {
        *slot = None;
        return;
    }
    let (mode, holes) = mode_of(view);
    let m = slot.get_or_insert_with(|| terrain_material::default_material(shader, property));
    m.set_shader_parameter("debug_mode", &mode.to_variant());
    m.set_shader_parameter("show_holes", &holes.to_variant());
    m.set_shader_parameter("debug_height_range", &range.to_variant());
    terrain_material::bind(look, Some(m));
}
