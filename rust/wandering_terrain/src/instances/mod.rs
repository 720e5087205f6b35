//! What stands on the terrain: `TerrainInstancer` (trees, rocks, props in cells) and its detail layers
//! (grass), with the resources that describe them.

pub(crate) mod detail_cells;
pub(crate) mod impostor_cells;
pub(crate) mod impostor_source;
pub(crate) mod instance_cells;
pub(crate) mod instance_stroke;
pub(crate) mod terrain_detail_layer;
pub(crate) mod terrain_impostor;
pub(crate) mod terrain_instance_mesh;
pub(crate) mod terrain_instancer;
pub(crate) mod terrain_instances;
