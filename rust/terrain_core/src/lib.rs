//! terrain_core: the engine-free algorithms of wandering_terrain. No Godot types here; the gdext crate
//! converts at its boundary. One concept per module, named like its Godot class and shader.

pub mod wandering_mesh;
