//! The instancer's physics bodies: one per cell near the terrain's target with collidable instances.

use super::*;

impl TerrainInstancer {
    /// Bodies on the shown cells within the collision radius of the target; the others' go to the pool.
    pub(super) fn collide(&mut self, host: &TerrainSurface) {
        let has_shapes = self.resolved.iter().any(|r| !r.shapes.is_empty());
        let (Some(t), Some(res), true) = (host.target, self.instances.clone(), has_shapes) else {
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
        let t = host.to_world.affine_inverse() * t;
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
            let near = radius > 0.0 && cell_distance(store, k, t) <= radius;
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
