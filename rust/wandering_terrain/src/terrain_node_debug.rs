//! `TerrainNode.debug_view`: a material of the debug shader (`terrain_node_debug.gdshader`, made of the
//! shipped includes) drawn instead of the node's material while a view is chosen; the node's material and
//! its parameters stay as they are, and both get the clipmap's parameters, so switching back is instant.

use super::*;

/// `debug_view` → the debug shader's `debug_mode` (terrain_debug.gdshaderinc) and whether holes show.
fn mode_of(view: i64) -> (i32, bool) {
    match view {
        1 => (3, false),
        3 => (1, false),
        4 => (5, false),
        5 => (6, false),
        6 => (4, true),
        _ => (4, false),
    }
}

#[godot_api(secondary)]
impl TerrainNode {
    /// `debug_view`: the node's own material.
    #[constant]
    const DEBUG_VIEW_OFF: i64 = 0;
    /// `debug_view`: sample cells in alternating greys (spacing and UV).
    #[constant]
    const DEBUG_VIEW_CHECKER: i64 = 1;
    /// `debug_view`: heights in grey over the terrain's height range.
    #[constant]
    const DEBUG_VIEW_HEIGHTMAP: i64 = 2;
    /// `debug_view`: the normal as a colour (r = x, g = z, b = y; x and z * 0.5 + 0.5).
    #[constant]
    const DEBUG_VIEW_NORMALS: i64 = 3;
    /// `debug_view`: slope in grey (0 flat … 1 vertical).
    #[constant]
    const DEBUG_VIEW_SLOPE: i64 = 4;
    /// `debug_view`: a colour per clipmap level.
    #[constant]
    const DEBUG_VIEW_LEVELS: i64 = 5;
    /// `debug_view`: holes tinted instead of cut, over the heightmap.
    #[constant]
    const DEBUG_VIEW_HOLES: i64 = 6;
}

impl TerrainNode {
    /// The material the pieces draw with: the debug view's while one is chosen.
    pub(crate) fn drawn_rid(&self) -> Rid {
        self.debug_material
            .as_ref()
            .or(self.material.as_ref())
            .map_or(Rid::Invalid, |m| m.get_rid())
    }

    /// Points every piece at the drawn material.
    pub(crate) fn apply_override(&mut self) {
        let rid = self.drawn_rid();
        let mut rs = RenderingServer::singleton();
        for &i in &self.instances {
            rs.instance_geometry_set_material_override(i, rid);
        }
    }

    /// Sets a per-frame shader parameter on the node's material and on the debug view's.
    pub(crate) fn set_param(&mut self, name: &StringName, value: &Variant) {
        for m in self
            .material
            .iter_mut()
            .chain(self.debug_material.iter_mut())
        {
            m.set_shader_parameter(name, value);
        }
    }

    /// Makes (or drops) the debug view's material for `debug_view` and draws with it.
    pub(crate) fn show_debug_view(&mut self) {
        if self.debug_view == 0 {
            self.debug_material = None;
        } else {
            let (mode, holes) = mode_of(self.debug_view);
            let range = self.height_range;
            let m = self.debug_material.get_or_insert_with(|| {
                terrain_material::default_material(DEBUG_SHADER, "TerrainNode.debug_view")
            });
            m.set_shader_parameter("debug_mode", &mode.to_variant());
            m.set_shader_parameter("show_holes", &holes.to_variant());
            m.set_shader_parameter("debug_height_range", &range.to_variant());
        }
        self.apply_override();
        self.update_material();
    }
}
