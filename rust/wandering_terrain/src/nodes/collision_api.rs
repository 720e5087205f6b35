//! The collision surface both terrain nodes share, written once: the mode constants, `update_collision`,
//! the tile counts and the debug points, and the `collision` object they hold (`CollisionObject`). A node
//! using it has a `collision: CollisionTiles` field and a
//! `step_collision(&mut self, now: bool) -> i64` method (what "the target" is differs: a TerrainNode's
//! `target`, a WanderingTerrain's camera). gdext registers methods per class, hence a macro rather than
//! a trait. The `collision_*` property accessors stay in each node's first API block: gdext 0.5 finds a
//! property's getter and setter only there (tried: moving them here fails to compile). They are
//! one-line calls into `CollisionObject` and `TerrainCollision`, which hold the rules.

macro_rules! collision_api {
    // `$retiled`: what the node does when a settings change makes its tiles again.
    ($class:ident, $retiled:expr) => {
        impl $class {
            /// The handler following the `collision` object's `changed`.
            pub(crate) fn collision_handler(&self) -> impl FnMut() + 'static {
                crate::follow::weak(&self.to_gd(), Self::on_collision_changed)
            }

            /// The `collision` object changed (or was replaced): its settings reach the tiles.
            pub(crate) fn on_collision_changed(&mut self) {
                if self.collision_object.sync(&mut self.collision) {
                    ($retiled)(self);
                }
            }

            /// An old `collision_*` property changed the object: every holder applies it (this node
            /// too, through its handler: the guard lets that call in while this one is running).
            pub(crate) fn collision_changed_here(&mut self) {
                let object = self.collision_object.0.clone();
                let _guard = self.base_mut();
                object.upcast::<godot::classes::Resource>().emit_changed();
            }
        }

        #[godot_api(secondary)]
        impl $class {
            /// `collision_mode`: no collision.
            #[constant]
            const COLLISION_DISABLED: i64 = $crate::physics::collision_tiles::MODE_DISABLED;
            /// `collision_mode`: tiles around the followed target (a TerrainNode's `target`, a
            /// WanderingTerrain's camera).
            #[constant]
            const COLLISION_DYNAMIC: i64 = $crate::physics::collision_tiles::MODE_DYNAMIC;
            /// `collision_mode`: every tile.
            #[constant]
            const COLLISION_FULL: i64 = $crate::physics::collision_tiles::MODE_FULL;

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

            /// Makes `node` a collision target: collision exists within `radius` world units of it
            /// ([0, 100000], max norm; 0: `collision.radius`) for as long as it lives, besides around the
            /// node's own target — players on a server, NPCs far from the camera. A tile two targets want
            /// is one tile; tiles nearest a moving target come first. Calling it again sets the radius.
            /// Nodes in the group `terrain_collision_targets` are targets too (radius: their
            /// `terrain_collision_radius` metadata, else `collision.radius`). A freed target leaves the
            /// list by itself. Returns false (with an error) for a null node or a radius out of range.
            #[func]
            pub(crate) fn add_collision_target(
                &mut self,
                node: Option<Gd<godot::classes::Node3D>>,
                #[opt(default = 0.0)] radius: f64,
            ) -> bool {
                let class = stringify!($class);
                let Some(node) = node else {
                    godot_error!("{class}.add_collision_target: node must be a Node3D, got null");
                    return false;
                };
                match self.collision.targets.add(&node, radius) {
                    Ok(()) => {
                        ($retiled)(self);
                        true
                    }
                    Err(e) => {
                        godot_error!("{class}.add_collision_target: {e}; not added");
                        false
                    }
                }
            }

            /// Stops following `node` (its tiles go unless another target wants them). Whether it was a
            /// collision target.
            #[func]
            pub(crate) fn remove_collision_target(
                &mut self,
                node: Option<Gd<godot::classes::Node3D>>,
            ) -> bool {
                let gone = node.is_some_and(|n| self.collision.targets.remove(&n));
                if gone {
                    ($retiled)(self);
                }
                gone
            }

            /// The nodes added with `add_collision_target` that are still alive (not the group's).
            #[func]
            pub(crate) fn get_collision_targets(&mut self) -> Array<Gd<godot::classes::Node3D>> {
                self.collision.targets.nodes()
            }

            /// Removes every target added with `add_collision_target`.
            #[func]
            pub(crate) fn clear_collision_targets(&mut self) {
                self.collision.targets.clear();
                ($retiled)(self);
            }
        }
    };
}

pub(crate) use collision_api;

use crate::follow::Links;
use crate::physics::collision_tiles::{CollisionSettings, CollisionTiles};
use crate::physics::terrain_collision::TerrainCollision;
use godot::prelude::*;

/// A node's `collision` object: the settings both nodes hold (`TerrainCollision`), and its copy in the
/// node's tiles. The node follows the object's `changed` (`follow`); the old `collision_*` properties,
/// kept for saved scenes, forward to it through `forward`.
pub(crate) struct CollisionObject(pub Gd<TerrainCollision>, Links);

impl Default for CollisionObject {
    fn default() -> Self {
        Self(TerrainCollision::new_gd(), Links::default())
    }
}

impl CollisionObject {
    pub fn settings(&self) -> CollisionSettings {
        self.0.bind().settings().clone()
    }

    /// The object's settings into the node's tiles; whether the tiles are made again (the node wakes).
    pub fn sync(&self, tiles: &mut CollisionTiles) -> bool {
        tiles.apply(&self.settings())
    }

    /// A new object (null: a default one); the node's handler moves to it (`changed`, not deferred: a
    /// setting applies at once).
    pub fn replace(&mut self, v: Option<Gd<TerrainCollision>>, handler: impl FnMut() + 'static) {
        self.0 = v.unwrap_or_else(TerrainCollision::new_gd);
        self.follow(handler);
    }

    /// Connects the node's handler (again after a re-entry: the old connection is dropped first).
    pub fn follow(&mut self, handler: impl FnMut() + 'static) {
        let h = self.0.signals().changed().connect(handler);
        self.1.replace([h]);
    }

    /// An old `collision_*` setter: `store` runs on the object (checked there, `what` naming the old
    /// property in errors); returns whether it changed anything, for the node to emit the object's
    /// `changed` (its own handler and every other holder's apply it).
    pub fn forward(&self, store: impl FnOnce(&mut TerrainCollision) -> bool) -> bool {
        store(&mut self.0.clone().bind_mut())
    }
}
