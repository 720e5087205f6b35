//! wandering_terrain: the GDExtension. Thin Godot classes over `terrain_core`; one module per class,
//! named like the class and like the `terrain_core` module it wraps.

use godot::prelude::*;

mod async_job;
mod clipmap_data;
mod collision;
mod collision_api;
mod collision_debug;
mod debug_view;
mod detail_cells;
mod editable_texture;
mod follow;
mod instance_cells;
mod navigation;
mod sample_rect;
mod terrain_brush;
mod terrain_data;
mod terrain_detail_layer;
mod terrain_erosion;
mod terrain_generator;
mod terrain_instance_mesh;
mod terrain_instancer;
mod terrain_instances;
mod terrain_layer;
mod terrain_material;
mod terrain_node;
mod terrain_regions;
mod wandering_mesh;
mod wandering_terrain;

struct WanderingTerrainExtension;

#[gdextension]
unsafe impl ExtensionLibrary for WanderingTerrainExtension {
    fn on_stage_init(stage: InitStage) {
        // Navigation bakes see terrain nodes from the start (when the server exists by then; otherwise the
        // first terrain node entering a tree registers the parser).
        if stage == InitStage::MainLoop {
            navigation::register();
        }
    }

    fn on_stage_deinit(stage: InitStage) {
        // The navigation parser goes while the servers are surely alive: the main loop ends before they
        // are finalised (and no terrain node registers it again after that).
        if stage == InitStage::MainLoop {
            navigation::close();
        }
        // The last stage deinitialised (min_level is Scene) before the library is unloaded: no streaming
        // or collision job may still be running its code (quitting mid-edit crashed there).
        if stage == InitStage::Scene {
            terrain_core::workers::shut_down();
        }
    }
}
