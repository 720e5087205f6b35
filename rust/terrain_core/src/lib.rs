//! terrain_core: the engine-free algorithms of wandering_terrain. No Godot types here; the gdext crate
//! converts at its boundary. One concept per module, named like its Godot class and shader.

pub mod bezier_patch;
pub mod brush;
pub mod brush_stroke;
pub mod cells;
pub mod clipmap;
pub mod clipmap_data;
pub mod clipmap_stream;
pub mod collision;
pub mod collision_bands;
pub mod collision_stream;
pub mod collision_tiles;
pub mod control;
pub mod detail;
pub mod erosion;
pub mod free_memory;
pub mod generation;
mod hash;
pub mod height_range;
pub mod heightmap_io;
pub mod impostor;
pub mod instances;
pub mod interaction_field;
pub mod layers;
pub mod material;
pub mod navigation;
pub mod origin_shift;
pub mod placement_rules;
pub mod progress;
pub mod raycast;
pub mod sample_rect;
pub mod samples;
pub mod surface_cache;
pub mod terrain_data;
pub mod terrain_edit;
pub mod terrain_edit_log;
pub mod terrain_path;
pub mod terrain_regions;
pub mod terrain_stamp;
#[cfg(test)]
pub(crate) mod test_terrains;
mod thread_priority;
pub mod wandering_mesh;
pub mod wandering_terrain;
pub mod water;
pub mod workers;
