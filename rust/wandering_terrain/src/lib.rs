//! wandering_terrain: the GDExtension. Godot classes over `terrain_core`, a folder per concept: `data/`
//! (heightmaps and what edits them), `nodes/` (the two terrain nodes), `look/` (materials), `physics/`
//! (collision, navigation), `instances/` (what stands on the terrain). One module per class, named like
//! the class and like the `terrain_core` module it wraps.

use godot::prelude::*;

mod async_job;
mod data;
mod follow;
mod instances;
mod interaction;
mod layers;
mod look;
mod nodes;
mod object_array;
mod physics;
mod sample_rect;
mod staging_textures;
mod surface;
mod water;
mod work_stats;

struct WanderingTerrainExtension;

/// The thread the extension was loaded on (Godot's main thread).
static MAIN_THREAD: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();

/// Whether this is Godot's main thread: the editor makes objects on worker threads too (its class
/// documentation asks every class for its default values), where no Godot call may be made.
pub(crate) fn on_main_thread() -> bool {
    MAIN_THREAD.get() == Some(&std::thread::current().id())
}

#[gdextension]
unsafe impl ExtensionLibrary for WanderingTerrainExtension {
    fn on_stage_init(stage: InitStage) {
        let _ = MAIN_THREAD.set(std::thread::current().id());
        // Navigation bakes see terrain nodes from the start (when the server exists by then; otherwise the
        // first terrain node entering a tree registers the parser).
        if stage == InitStage::MainLoop {
            physics::navigation::register();
            // Any shader may include terrain_surface.gdshaderinc before a terrain exists.
            look::surface_cache::register_globals();
            interaction::interaction_field::register_globals();
        }
    }

    fn on_stage_deinit(stage: InitStage) {
        // The navigation parser goes while the servers are surely alive: the main loop ends before they
        // are finalised (and no terrain node registers it again after that).
        if stage == InitStage::MainLoop {
            physics::navigation::close();
        }
        // The last stage deinitialised (min_level is Scene) before the library is unloaded: no streaming
        // or collision job may still be running its code (quitting mid-edit crashed there).
        if stage == InitStage::Scene {
            terrain_core::workers::shut_down();
        }
    }
}
