//! `TerrainNode` collision: the shared collision surface (`collision_api.rs`: constants,
//! `update_collision`, counts, debug points) and this node's step (its target and frame); the tiles in
//! `physics/collision_tiles.rs`. The property accessors are in `terrain_node/mod.rs` (the class's first API block).

use super::*;

// A setting that makes the tiles again wakes the node's physics processing.
crate::nodes::collision_api::collision_api!(TerrainNode, |t: &mut TerrainNode| t.wake());

impl TerrainNode {
    /// Collision for the target and the pending edits (`update_collision`; `now`: wait for the workers).
    pub(crate) fn step_collision(&mut self, now: bool) -> i64 {
        let frame = match self.collision_frame {
            Some(f) if !now => f,
            _ => self.terrain_frame(),
        };
        self.collision_frame = Some(frame);
        // Timed from here: gathering the targets is part of a tick's cost.
        let t0 = std::time::Instant::now();
        let seen = self.target_position();
        self.collision_seen = seen;
        let target = seen.map(|p| self.terrain_xz(frame, p));
        let tree = self.base().is_inside_tree().then(|| self.base().get_tree());
        let to_terrain = |p: Vector3| terrain_xz(frame, p);
        self.collision
            .gather_targets(target, tree.as_ref(), to_terrain);
        if !now && self.collision.idle(&frame) {
            return 0;
        }
        let data = self.terrain_data.clone();
        let written = if data.is_none() {
            let g = self.streamed.clone();
            self.collision.update(g.as_deref(), g.as_ref(), &frame, now)
        } else {
            let d = data.as_ref().map(|d| d.bind());
            self.collision
                .update(d.as_ref().map(|d| d.core()), None, &frame, now)
        };
        self.work.collision_steps += 1;
        self.work.collision_tiles += written as u64;
        self.work.collision_usec += crate::work_stats::usec_since(t0);
        written as i64
    }

    /// Terrain-space X/Z of world position `p` through `frame`.
    pub(crate) fn terrain_xz(&self, frame: Frame, p: Vector3) -> [f64; 2] {
        terrain_xz(frame, p)
    }
}

/// Terrain-space X/Z of world position `p` through `frame`.
fn terrain_xz(frame: Frame, p: Vector3) -> [f64; 2] {
    [
        (f64::from(p.x) - frame.origin[0]) / frame.scale[0],
        (f64::from(p.z) - frame.origin[2]) / frame.scale[2],
    ]
}
