//! `WanderingTerrain.debug_view`'s cell and navigation views (the views themselves in `debug_view.rs`).

use super::*;

impl WanderingTerrain {
    /// The COLLISION and INSTANCES views: the cells around the camera, every frame while shown (REGIONS:
    /// none); the NAVIGATION view's lines.
    pub(super) fn update_cell_view(&mut self) {
        use crate::nodes::debug_view::{CELLS, COLLISION, INSTANCES, NAVIGATION, REGIONS};
        let on = self.debug_view == NAVIGATION;
        let cells = matches!(self.debug_view, COLLISION | INSTANCES | REGIONS);
        if !(on || cells || self.nav_view.is_shown()) {
            return;
        }
        let Some(cam) = self.followed_camera() else {
            return;
        };
        if on || self.nav_view.is_shown() {
            let host = self.terrain_surface();
            let mut node = self.base().clone().upcast::<Node3D>();
            let at = cam.get_global_position();
            self.nav_view
                .update(&mut node, &host, "WanderingTerrain", at, on);
        }
        if !cells {
            return;
        }
        let (o, p) = (self.origin(), cam.get_global_position());
        let target = [f64::from(p.x - o.x), f64::from(p.z - o.y)];
        let node = self.base().clone().upcast::<Node>();
        let states = self.cells.states_mut();
        let placed = match self.debug_view {
            COLLISION => self.collision.tile_states(target, CELLS, states),
            INSTANCES => crate::instances::terrain_instancer::TerrainInstancer::child_cell_states(
                &node, target, CELLS, states,
            ),
            _ => None,
        };
        match (placed, self.debug_material.as_mut()) {
            (Some((origin, size)), Some(m)) => self.cells.show(m, origin, size),
            (None, Some(m)) => self.cells.show_none(m),
            _ => {}
        }
    }
}
