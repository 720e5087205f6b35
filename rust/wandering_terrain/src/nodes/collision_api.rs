//! The collision surface both terrain nodes share, written once: the mode constants, `update_collision`,
//! the tile counts and the debug points. A node using it has a `collision: TerrainCollision` field and a
//! `step_collision(&mut self, now: bool) -> i64` method (what "the target" is differs: a TerrainNode's
//! `target`, a WanderingTerrain's camera). gdext registers methods per class, hence a macro rather than
//! a trait. The `collision_*` property accessors stay in each node's first API block: gdext 0.5 finds a
//! property's getter and setter only there (tried: moving them here fails to compile). They are
//! one-line calls into `TerrainCollision`, which holds the rules.

macro_rules! collision_api {
    ($class:ident) => {
        #[godot_api(secondary)]
        impl $class {
            /// `collision_mode`: no collision.
            #[constant]
            const COLLISION_DISABLED: i64 = $crate::physics::collision::MODE_DISABLED;
            /// `collision_mode`: tiles around the followed target (a TerrainNode's `target`, a
            /// WanderingTerrain's camera).
            #[constant]
            const COLLISION_DYNAMIC: i64 = $crate::physics::collision::MODE_DYNAMIC;
            /// `collision_mode`: every tile.
            #[constant]
            const COLLISION_FULL: i64 = $crate::physics::collision::MODE_FULL;

            /// World positions of the grid points drawn for *Debug → Visible Collision Shapes* (every
            /// tile's points, as handed to the physics engine); empty when the scene tree does not show
            /// collision.
            #[func]
            pub(crate) fn get_collision_debug_points(&self) -> PackedVector3Array {
                self.collision.debug_points()
            }

            /// Brings collision up to date now: every tile the mode wants around the target and every
            /// tile pending edits touched, waiting for the worker threads. Each physics frame does this
            /// without waiting (grids are computed on workers and arrive a frame or two later). Returns
            /// the number of tiles written.
            #[func]
            pub(crate) fn update_collision(&mut self) -> i64 {
                self.step_collision(true)
            }

            /// Collision tiles computed on the main thread because the worker threads had not brought
            /// them when the target reached them (a measure of whether collision keeps up).
            #[func]
            pub(crate) fn get_collision_late_tiles(&self) -> i64 {
                self.collision.late_tiles() as i64
            }

            /// Number of collision tiles (heightmap shapes, 64 × 64 sample cells at subdivision 1) in use.
            #[func]
            pub(crate) fn get_collision_tile_count(&self) -> i64 {
                self.collision.tile_count() as i64
            }
        }
    };
}

pub(crate) use collision_api;
