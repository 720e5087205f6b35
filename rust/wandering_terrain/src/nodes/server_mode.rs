//! Server mode: a terrain node on a dedicated server draws nothing — no meshes, data windows, textures,
//! surface cache or interaction field — and keeps what a server needs: collision around its targets,
//! queries (`get_height`, `raycast`) and the region files those read. AUTO turns it on for a dedicated
//! server export (the `dedicated_server` feature) or a `--headless` run, never in the editor; a project
//! that renders offscreen while headless (its tests) sets `wandering_terrain/server/draw_when_headless`.

use godot::classes::{DisplayServer, Engine, Os, ProjectSettings};
use godot::prelude::*;

/// `server_mode` values.
pub const AUTO: i64 = 0;
pub const ON: i64 = 1;
pub const OFF: i64 = 2;

/// The project setting that keeps headless runs drawing (false when absent).
pub const DRAW_WHEN_HEADLESS: &str = "wandering_terrain/server/draw_when_headless";

/// Whether a node with `mode` draws nothing now.
pub fn serving(mode: i64) -> bool {
    match mode {
        ON => true,
        OFF => false,
        _ => {
            if Engine::singleton().is_editor_hint() {
                return false;
            }
            let headless = Os::singleton().has_feature("dedicated_server")
                || DisplayServer::singleton().get_name() == "headless";
            let ps = ProjectSettings::singleton();
            let draw = ps.has_setting(DRAW_WHEN_HEADLESS)
                && ps
                    .get_setting(DRAW_WHEN_HEADLESS)
                    .try_to::<bool>()
                    .unwrap_or(false);
            headless && !draw
        }
    }
}

/// Checks a `server_mode` value; the error names `property` and the range.
pub fn check(property: &str, v: i64) -> bool {
    if (AUTO..=OFF).contains(&v) {
        return true;
    }
    godot_error!("{property} must be SERVER_MODE_AUTO (0), SERVER_MODE_ON (1) or SERVER_MODE_OFF (2), got {v}; kept");
    false
}
