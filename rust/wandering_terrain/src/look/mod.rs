//! How the terrain looks: `TerrainMaterial` (texture layers and their blending) and `TerrainLayer`.

pub(crate) mod terrain_layer;
pub(crate) mod terrain_material;
