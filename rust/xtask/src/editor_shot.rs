//! The demo's editor screenshot: the real editor under Xvfb with the open world selected, the terrain
//! toolbar and the brush ring, written to `docs/editor.png`, and the wandering terrain demo as the editor
//! shows it, `docs/editor_wandering.png` (driven by
//! `godot-project/tools/editor_shot/editor_shot.gd`).

use crate::godot::{Godot, Renderer};
use crate::{run_godot, scan};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Renders the editor picture; returns its path.
pub fn shoot(
    g: &Godot,
    repo: &Path,
    env: &[(String, String)],
    renderer: Renderer,
) -> Result<PathBuf, String> {
    let project = repo.join("godot-project").display().to_string();
    let png = repo.join("docs/editor.png");
    let log = repo.join("target/demo/editor_shot.log");
    let png_arg = png.display().to_string();
    let run = run_godot(
        g,
        &[
            "--editor",
            "--audio-driver",
            "Dummy",
            "--rendering-driver",
            renderer.driver(),
            "--rendering-method",
            renderer.method(),
            "--resolution",
            "1280x720",
            "--path",
            &project,
            "--",
            "--editor-screenshot",
            &png_arg,
        ],
        env,
        &log,
        Duration::from_secs(300),
    )?;
    // The editor may abort at exit after the picture (Godot's extension-docs race, upstream #111048):
    // what counts is the picture and no error line before it.
    let before_exit = run
        .log
        .rsplit_once("::png ")
        .map_or(run.log.as_str(), |(a, _)| a);
    if let Some(e) = before_exit.lines().find(|l| scan::is_error_line(l)) {
        return Err(format!("editor screenshot: {e} (log {})", log.display()));
    }
    if run.log.matches("::png ").count() < 2 {
        return Err(format!(
            "editor screenshot: no picture (log {})",
            log.display()
        ));
    }
    Ok(png)
}
