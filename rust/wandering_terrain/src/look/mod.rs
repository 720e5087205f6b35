//! How the terrain looks: `TerrainMaterial` (texture layers and their blending), `TerrainLayer`, and the
//! surface cache meshes blend into (`TerrainBlendMaterial`).

pub(crate) mod ground_surface;
pub(crate) mod surface_cache;
pub(crate) mod terrain_blend_material;
pub(crate) mod terrain_layer;
pub(crate) mod terrain_material;
