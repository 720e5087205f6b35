//! The two terrain nodes (`TerrainNode`: clipmap windows over any source; `WanderingTerrain`: one mesh
//! over a TerrainData) and what they share: the collision API, debug views, the floating origin.

pub(crate) mod collision_api;
pub(crate) mod debug_view;
pub(crate) mod debug_view_api;
pub(crate) mod floating_origin;
pub(crate) mod interaction_api;
pub(crate) mod origin_shift;
pub(crate) mod server_mode;
pub(crate) mod setup;
pub(crate) mod surface_cache_api;
pub(crate) mod terrain_host_api;
pub(crate) mod terrain_node;
pub(crate) mod wandering_mesh;
pub(crate) mod wandering_terrain;
