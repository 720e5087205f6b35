//! The terrain's data and what makes or edits it: `TerrainData` (one heightmap in memory),
//! `TerrainRegions` (a map on disk), the generator, erosion and brush resources.

pub(crate) mod edit_target;
pub(crate) mod layer_state;
pub(crate) mod terrain_brush;
pub(crate) mod terrain_brush_stroke;
pub(crate) mod terrain_data;
pub(crate) mod terrain_edit_log;
pub(crate) mod terrain_erosion;
pub(crate) mod terrain_generator;
pub(crate) mod terrain_regions;
pub(crate) mod water_analysis;
