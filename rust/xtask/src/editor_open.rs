//! The demo scenes opened in the real editor (headless): tool-mode code paths — TerrainNode following the
//! editor camera, collision in the edited world, setup warnings, the plugin entry — must log no error.

use crate::godot::Godot;
use crate::{run_godot, scan};
use std::path::Path;
use std::time::Duration;

/// Opens every scene of `godot-project/scenes` in the editor for a few hundred frames; (passed, failed).
pub fn run(g: &Godot, repo: &Path) -> Result<(usize, usize), String> {
    let project = repo.join("godot-project");
    let p = project.display().to_string();
    let mut scenes: Vec<String> = std::fs::read_dir(project.join("scenes"))
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tscn"))
        .collect();
    scenes.sort();
    let (mut ok, mut bad) = (0, 0);
    for s in scenes {
        let log = repo
            .join("target/godot-tests/editor")
            .join(format!("{s}.log"));
        let scene = format!("scenes/{s}");
        let run = run_godot(
            g,
            &[
                "--headless",
                "--editor",
                "--audio-driver",
                "Dummy",
                "--path",
                &p,
                &scene,
                "--quit-after",
                "150",
            ],
            &[],
            &log,
            Duration::from_secs(300),
        )?;
        let errors: Vec<&str> = run.log.lines().filter(|l| scan::is_error_line(l)).collect();
        if errors.is_empty() && !run.timed_out {
            println!("  ok   editor opens {s}");
            ok += 1;
        } else {
            println!(
                "  FAIL editor opens {s}: {} error lines, e.g. {:?} (log {})",
                errors.len(),
                errors.first(),
                log.display()
            );
            bad += 1;
        }
    }
    Ok((ok, bad))
}
