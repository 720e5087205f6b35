//! Water on the terrain: `TerrainWater` (the sea and chosen lakes, drawn and queried alike). The analysis
//! calls (lakes, rivers, flow) are the resources' (`data/water_analysis.rs`).

pub(crate) mod river_surface;
pub(crate) mod terrain_water;
