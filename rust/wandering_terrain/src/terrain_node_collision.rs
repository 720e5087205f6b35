//! `TerrainNode` collision: the mode constants, bringing the tiles up to date (`update_collision`) and
//! their counts. The properties (mode, radius, layer, mask, material, subdivision) are in `terrain_node.rs`
//! (gdext wants property accessors in the class's first API block); the tiles in `collision.rs`.

use super::*;

#[godot_api(secondary)]
impl TerrainNode {
    /// World positions of the grid points drawn for *Debug → Visible Collision Shapes* (every tile's
    /// points, as handed to the physics engine); empty when the scene tree does not show collision.
    #[func]
    pub(crate) fn get_collision_debug_points(&self) -> PackedVector3Array {
        self.collision.debug_points()
    }

    /// `collision_mode`: no collision.
    #[constant]
    const COLLISION_DISABLED: i64 = MODE_DISABLED;

    /// `collision_mode`: tiles around the target.
    #[constant]
    const COLLISION_DYNAMIC: i64 = MODE_DYNAMIC;

    /// `collision_mode`: every tile.
    #[constant]
    const COLLISION_FULL: i64 = MODE_FULL;

    /// Brings collision up to date now: every tile the mode wants around the target and every tile pending
    /// edits touched, waiting for the worker threads. Each physics frame does this without waiting (grids
    /// are computed on workers and arrive a frame or two later). Returns the number of tiles written.
    #[func]
    pub(crate) fn update_collision(&mut self) -> i64 {
        self.step_collision(true)
    }

    /// Collision tiles that were computed on the main thread because the worker threads had not brought
    /// them when the target reached them (a measure of whether collision keeps up with the target).
    #[func]
    pub(crate) fn get_collision_late_tiles(&self) -> i64 {
        self.collision.late_tiles() as i64
    }

    /// Number of collision tiles (heightmap shapes of 64 x 64 sample cells) in use.
    #[func]
    pub(crate) fn get_collision_tile_count(&self) -> i64 {
        self.collision.tile_count() as i64
    }
}

impl TerrainNode {
    /// Collision for the target and the pending edits (`update_collision`; `now`: wait for the workers).
    pub(crate) fn step_collision(&mut self, now: bool) -> i64 {
        let frame = match self.collision_frame {
            Some(f) if !now => f,
            _ => self.terrain_frame(),
        };
        self.collision_frame = Some(frame);
        let target = self.target_position().map(|p| {
            [
                (f64::from(p.x) - frame.origin[0]) / frame.scale[0],
                (f64::from(p.z) - frame.origin[2]) / frame.scale[2],
            ]
        });
        if !now && self.collision.idle(&frame, target) {
            return 0;
        }
        let data = self.terrain_data.clone();
        if data.is_none() {
            let g = self.streamed.clone();
            return self
                .collision
                .update(g.as_deref(), g.as_ref(), &frame, target, now) as i64;
        }
        let d = data.as_ref().map(|d| d.bind());
        self.collision
            .update(d.as_ref().map(|d| d.core()), None, &frame, target, now) as i64
    }
}
