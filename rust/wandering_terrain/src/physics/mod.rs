//! The terrain in the physics and navigation servers: the collision settings object, collision tiles,
//! their debug lines, and the navigation source-geometry parser.

pub(crate) mod collision_debug;
pub(crate) mod collision_targets;
pub(crate) mod collision_tiles;
pub(crate) mod navigation;
pub(crate) mod resting_bodies;
pub(crate) mod terrain_collision;
