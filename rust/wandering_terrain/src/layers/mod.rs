//! Layers over the sculpted terrain, as nodes: `TerrainPath` (roads, ramps, riverbeds along a curve) and
//! `TerrainStamp` (a height image placed by a transform). Each finds its terrain through the terrain
//! contract (`layer_link`) and hands its layer to the resource it edits (`data::layer_state`).

pub(crate) mod layer_link;
pub(crate) mod terrain_path;
pub(crate) mod terrain_stamp;
