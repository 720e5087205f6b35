//! The demo scenes opened in the real editor (headless): tool-mode code paths — TerrainNode following the
//! editor camera, collision in the edited world, setup warnings, the plugin entry — must log no error.

use crate::godot::Godot;
use crate::{run_godot, scan};
use std::path::Path;
use std::time::Duration;

/// The terrain tools in the real editor: the test project's driver plugin (tests/editor_test) sends mouse
/// events through the terrain plugin and prints framed cases; the log is scanned like the suites'.
pub fn tools(g: &Godot, repo: &Path) -> Result<scan::Report, String> {
    let p = repo.join("tests").display().to_string();
    let log = repo.join("target/godot-tests/editor/tools.log");
    let run = run_godot(
        g,
        &[
            "--headless",
            "--editor",
            "--audio-driver",
            "Dummy",
            "--path",
            &p,
            "--",
            "--editor-test",
        ],
        &[],
        &log,
        Duration::from_secs(300),
    )?;
    let mut r = scan::scan(&run.log);
    if run.timed_out {
        r.stray_errors.push("the editor timed out".into());
    }
    for c in &r.cases {
        println!(
            "  {} editor {}",
            if c.passed { "ok  " } else { "FAIL" },
            c.name
        );
        for why in &c.reasons {
            println!("         {why}");
        }
    }
    for e in &r.stray_errors {
        println!("  FAIL editor log: {e}");
    }
    if !r.finished {
        println!(
            "  FAIL editor: the driver did not finish (see {})",
            log.display()
        );
    }
    println!("  (editor tools: log {})", log.display());
    Ok(r)
}

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
