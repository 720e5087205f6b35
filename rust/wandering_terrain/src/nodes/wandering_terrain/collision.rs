//! `WanderingTerrain`'s collision: the tiles around its camera (the rules in core `collision_tiles.rs`, the
//! API in `collision_api!`).

use super::*;

impl WanderingTerrain {
    /// Collision for the camera and the pending edits (`update_collision`; `now`: wait for the workers).
    pub(super) fn step_collision(&mut self, now: bool) -> i64 {
        let o = self.origin();
        let frame = Frame {
            origin: [f64::from(o.x), 0.0, f64::from(o.y)],
            scale: [1.0; 3],
        };
        let to_terrain = move |p: Vector3| [f64::from(p.x - o.x), f64::from(p.z - o.y)];
        let target = self
            .followed_camera()
            .map(|c| to_terrain(c.get_global_position()));
        let tree = self.base().is_inside_tree().then(|| self.base().get_tree());
        self.collision
            .gather_targets(target, tree.as_ref(), to_terrain);
        // Still targets and no edit: nothing to read.
        if !now && self.collision.idle(&frame) {
            return 0;
        }
        let data = self.terrain_data.clone();
        let d = data.as_ref().map(|d| d.bind());
        self.collision
            .update(d.as_ref().map(|d| d.core()), None, &frame, now) as i64
    }
}
