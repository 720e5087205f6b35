//! `TerrainNode.debug_view` (see `debug_view.rs`): the debug shader is `terrain_node_debug.gdshader`; both
//! materials get the clipmap's parameters.

use super::*;

crate::nodes::debug_view_api::debug_view_api!(TerrainNode);

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

    /// Sets a per-frame shader parameter on the node's material, the debug view's and the surface cache's.
    pub(crate) fn set_param(&mut self, name: &StringName, value: &Variant) {
        for m in self.shader_materials() {
            m.set_shader_parameter(name, value);
        }
    }

    /// The COLLISION, REGIONS and INSTANCES views: the cells around the target, every frame while shown.
    pub(crate) fn update_cell_view(&mut self) {
        use crate::nodes::debug_view::{CELLS, COLLISION, INSTANCES, NAVIGATION, REGIONS};
        let on = self.debug_view == NAVIGATION;
        let cells = matches!(self.debug_view, COLLISION | REGIONS | INSTANCES);
        if !(on || cells || self.nav_view.is_shown()) {
            return;
        }
        // Around the target now, not where the windows were last laid out (a target that moves within
        // a window's snap leaves that behind).
        let Some(p) = self.target_position() else {
            return;
        };
        if on || self.nav_view.is_shown() {
            let host = self.terrain_surface();
            let mut node = self.base().clone().upcast::<Node3D>();
            self.nav_view.update(&mut node, &host, "TerrainNode", p, on);
        }
        if !matches!(self.debug_view, COLLISION | REGIONS | INSTANCES) {
            return;
        }
        let (x, z) = self.to_terrain_xz(Vector2::new(p.x, p.z));
        let node = self.base().clone().upcast::<Node>();
        let states = self.cells.states_mut();
        let placed = if self.debug_view == COLLISION {
            self.collision.tile_states([x, z], CELLS, states)
        } else if self.debug_view == INSTANCES {
            crate::instances::terrain_instancer::TerrainInstancer::child_cell_states(
                &node,
                [x, z],
                CELLS,
                states,
            )
        } else {
            match (&self.terrain_data, &self.terrain_regions) {
                (None, Some(r)) => r.bind().store().map(|s| {
                    let side = s.meta().region as f64 * s.spacing();
                    let first = [x, z].map(|t| (t / side).floor() as i64 - CELLS as i64 / 2);
                    s.region_states(first[0], first[1], CELLS, CELLS, states);
                    ([first[0] as f64 * side, first[1] as f64 * side], side)
                }),
                _ => {
                    states.clear();
                    None
                }
            }
        };
        // The shader's terrain positions are relative to the origin shift: so is the window's corner.
        let sh = self.shift_in_terrain();
        match (placed, self.debug_material.as_mut()) {
            (Some((origin, size)), Some(m)) => {
                self.cells
                    .show(m, [origin[0] - sh[0], origin[1] - sh[1]], size)
            }
            (None, Some(m)) => self.cells.show_none(m),
            _ => {}
        }
    }

    /// Makes (or drops) the debug view's material for `debug_view` and draws with it.
    pub(crate) fn show_debug_view(&mut self) {
        self.cells.reset();
        crate::nodes::debug_view::show(
            &mut self.debug_material,
            self.debug_view,
            DEBUG_SHADER,
            "TerrainNode.debug_view",
            self.height_range,
            self.terrain_material.as_mut(),
        );
        self.apply_override();
        self.update_material();
    }
}
