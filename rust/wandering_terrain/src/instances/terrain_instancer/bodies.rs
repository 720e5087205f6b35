//! The instancer's physics bodies: one per cell with collidable instances near what the terrain's
//! collision follows (its target and its collision targets).

use super::*;

impl TerrainInstancer {
    /// Bodies on the shown cells within the collision radius of a collision centre; the others' go to the
    /// pool.
    pub(super) fn collide(&mut self, host: &TerrainSurface) {
        let has_shapes = self.resolved.iter().any(|r| !r.shapes.is_empty());
        let centres: Vec<Vector3> = streaming::collision_centres(host).collect();
        let (false, Some(res), true) = (centres.is_empty(), self.instances.clone(), has_shapes)
        else {
            if self.cells.body_count() > 0 {
                let keys: Vec<CellKey> = self.cells.map.keys().copied().collect();
                keys.into_iter().for_each(|k| self.cells.uncollide(k));
            }
            return;
        };
        let Some(space) = self.base().get_world_3d().map(|w| w.get_space()) else {
            return;
        };
        let res = res.bind();
        let store = res.store();
        let scale = host.to_world.basis.get_scale().x.abs().max(1e-6);
        let radius = self.collision_radius as f32 / scale;
        let view = View {
            meshes: &self.resolved,
            scenario: Rid::Invalid,
            frame: self.frame,
            visible: true,
        };
        let owner = self.base().instance_id();
        let layers = [self.collision_layer, self.collision_mask];
        let keys: Vec<CellKey> = self.cells.map.keys().copied().collect();
        for k in keys {
            let near = radius > 0.0
                && centres
                    .iter()
                    .any(|&t| cell_distance(store, k, t) <= radius);
            let Some(c) = self.cells.map.get(&k) else {
                continue;
            };
            if near && c.shown > 0 && !body_current(c) {
                self.cells.collide(k, &view, space, layers, owner);
            } else if !near && c.data.has_body() {
                self.cells.uncollide(k);
            }
        }
    }
}
