//! `debug_view` of both terrain nodes: a material of the node's debug shader (made of the shipped
//! includes, `terrain_debug.gdshaderinc`) drawn instead of the node's material while a view is chosen. The
//! node's material and its parameters stay as they are and both get the node's parameters, so switching back
//! is instant; nothing is made while the view is OFF.

use crate::terrain_material::{self, TerrainMaterial};
use godot::classes::ShaderMaterial;
use godot::prelude::*;

/// The last view (INSTANCES); views are numbered alike on both nodes.
pub const LAST: i64 = 11;
/// The views, for the property hint and errors.
pub const NAMES: &str =
    "OFF, CHECKER, HEIGHTMAP, NORMALS, SLOPE, LEVELS, HOLES, LAYER_WEIGHTS, CONTROL, COLLISION, REGIONS, INSTANCES";
/// The views drawn from cells the node fills in every frame (`CellView`).
pub const COLLISION: i64 = 9;
pub const REGIONS: i64 = 10;
pub const INSTANCES: i64 = 11;
/// Side of the cells view's window, in cells (centred on the target).
pub const CELLS: usize = 64;

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
        9..=11 => (9, false),
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

/// The window of cells of the COLLISION and REGIONS views: one state per cell (see
/// `terrain_debug.gdshaderinc`), sent as an R8 texture when it changed.
#[derive(Default)]
pub struct CellView {
    states: Vec<u8>,
    sent: Vec<u8>,
    texture: Option<Gd<godot::classes::ImageTexture>>,
    placed: Option<([f64; 2], f64)>,
}

impl CellView {
    /// The states to fill: `CELLS`² row-major, cell (0, 0) first.
    pub fn states_mut(&mut self) -> &mut Vec<u8> {
        &mut self.states
    }

    /// Shows the filled states on `m`, the window's first cell having corner `origin` and side `size`
    /// (terrain units).
    pub fn show(&mut self, m: &mut Gd<ShaderMaterial>, origin: [f64; 2], size: f64) {
        use godot::classes::image::Format;
        use godot::classes::{Image, ImageTexture};
        self.states.resize(CELLS * CELLS, 0);
        if self.texture.is_none() || self.states != self.sent {
            self.sent.clone_from(&self.states);
            let bytes = PackedByteArray::from(self.states.as_slice());
            let n = CELLS as i32;
            let Some(img) = Image::create_from_data(n, n, false, Format::R8, &bytes) else {
                return;
            };
            match self.texture.as_mut() {
                Some(t) => t.update(&img),
                None => {
                    self.texture = ImageTexture::create_from_image(&img);
                    m.set_shader_parameter("debug_cells", &self.texture.to_variant());
                }
            }
        }
        if self.placed != Some((origin, size)) {
            self.placed = Some((origin, size));
            let o = Vector2::new(origin[0] as f32, origin[1] as f32);
            m.set_shader_parameter("debug_cell_origin", &o.to_variant());
            m.set_shader_parameter("debug_cell_size", &(size as f32).to_variant());
        }
    }

    /// A new material: everything is sent again.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// The instance cells of `node`'s first `TerrainInstancer` child around terrain X/Z `target` (the
/// INSTANCES view), into `states`.
pub fn instance_cells(
    node: &Gd<Node>,
    target: [f64; 2],
    states: &mut Vec<u8>,
) -> Option<([f64; 2], f64)> {
    let inst = node.get_children().iter_shared().find_map(|c| {
        c.try_cast::<crate::terrain_instancer::TerrainInstancer>()
            .ok()
    });
    match inst {
        Some(i) => i.bind().cell_states(target, CELLS, states),
        None => {
            states.clear();
            None
        }
    }
}
