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

/// Declares the global shader uniforms once, when the rendering server exists (also called before a
/// shader that reads them is first loaded: a first editor start builds class defaults before the main
/// loop stage).
pub(crate) fn register_globals() {
    static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if DONE.load(std::sync::atomic::Ordering::Acquire)
        || !godot::classes::Engine::singleton().has_singleton("RenderingServer")
    {
        return;
    }
    DONE.store(true, std::sync::atomic::Ordering::Release);
    look::surface_cache::register_globals();
    interaction::interaction_field::register_globals();
}

/// With WANDERING_TERRAIN_DOCS_OUT set to a folder, writes every class's documentation there (the XML the
/// editor help shows, from the `///` comments): the C# wrapper generator (`cargo xtask csharp`) reads it.
fn dump_docs() {
    let Ok(dir) = std::env::var("WANDERING_TERRAIN_DOCS_OUT") else {
        return;
    };
    let dir = std::path::Path::new(&dir);
    let _ = std::fs::create_dir_all(dir);
    for (i, xml) in godot::docs::__gather_xml_docs().enumerate() {
        if let Err(e) = std::fs::write(dir.join(format!("{i}.xml")), xml) {
            godot_error!(
                "wandering_terrain: cannot write the class docs into {}: {e}",
                dir.display()
            );
            return;
        }
    }
}

#[gdextension]
unsafe impl ExtensionLibrary for WanderingTerrainExtension {
    fn on_stage_init(stage: InitStage) {
        let _ = MAIN_THREAD.set(std::thread::current().id());
        // Navigation bakes see terrain nodes from the start (when the server exists by then; otherwise the
        // first terrain node entering a tree registers the parser).
        // Any shader may include terrain_surface.gdshaderinc or interaction_field.gdshaderinc before a
        // terrain exists: their global uniforms are declared as soon as the rendering server is up (the
        // editor compiles TerrainBlendMaterial's shader for its class docs before the main loop starts).
        if stage == InitStage::Scene || stage == InitStage::MainLoop {
            register_globals();
        }
        if stage == InitStage::MainLoop {
            physics::navigation::register();
            dump_docs();
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
