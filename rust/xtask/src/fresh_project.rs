//! The package in a brand-new project, as a user gets it: a project made here with nothing but
//! `project.godot`, the zip unpacked into it, imported headless, a script that builds a TerrainNode with
//! generated data and a material, reads `get_height` and renders a frame under Xvfb, then a release export
//! for Linux. Any error line fails it.
//!
//! A headless import that discovers the extension aborts at exit (Godot's extension-docs race, upstream
//! #111048). The procedure documented in the addon's README — list the extension in
//! `.godot/extension_list.cfg`, then import once — is what runs here, and the one pass must exit cleanly.

use crate::godot::{self, Godot, Renderer};
use crate::{clean_import, list_extension, package, run_godot, run_import, scan};
use std::path::{Path, PathBuf};
use std::time::Duration;

const CHECK_SCRIPT: &str = "tests/fresh/fresh_check.gd";

/// Runs every step; returns (passed, failed) step counts and prints each step.
pub fn run(g: &Godot, repo: &Path, display: &str) -> Result<(usize, usize), String> {
    let dir = repo.join("target/fresh-project");
    let logs = repo.join("target/godot-tests/fresh");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("project.godot"),
        "config_version=5\n\n[application]\n\nconfig/name=\"fresh\"\n",
    )
    .map_err(|e| e.to_string())?;
    // Every library laid out: the cross-built ones too when the platform step built them.
    let (zip, _) = package::make(repo, true)?;
    package::unpack(&zip, &dir)?;
    std::fs::copy(repo.join(CHECK_SCRIPT), dir.join("fresh_check.gd"))
        .map_err(|e| e.to_string())?;
    let p = dir.display().to_string();
    let mut steps: Vec<(String, Result<(), String>)> = vec![];

    // Every library the zip's .gdextension names is in the zip (the cross-built ones when built).
    let entries = package::check_entries(&zip);
    let listed = entries.as_ref().map(|k| k.join(" ")).unwrap_or_default();
    println!("  fresh-project: the package ships {listed}");
    steps.push((
        "the package's .gdextension entries point at files in the zip".into(),
        entries.map(|_| ()),
    ));

    // The documented procedure: list the extension, then one import that must exit cleanly.
    let log = logs.join("import.log");
    let imported = list_extension(&dir).and_then(|()| {
        let r = run_import(g, &dir, &log)?;
        clean_import(&r, &log)
    });
    steps.push(("import (extension listed first), one pass".into(), imported));

    // The script, rendering one frame under Xvfb.
    let log = logs.join("check.log");
    let r = Renderer::OpenGl3;
    let mut env = g.render_env(repo);
    env.push(("DISPLAY".into(), display.to_string()));
    let run = run_godot(
        g,
        &[
            "--audio-driver",
            "Dummy",
            "--rendering-driver",
            r.driver(),
            "--rendering-method",
            r.method(),
            "--resolution",
            "320x240",
            "--path",
            &p,
            "-s",
            "res://fresh_check.gd",
        ],
        &env,
        &log,
        Duration::from_secs(300),
    )?;
    steps.push((
        "script: TerrainNode, get_height, one frame".into(),
        clean(&run, "fresh: ok", &log),
    ));

    // A release export for Linux with the Debian release template.
    let exported = match release_template(repo) {
        Ok(tpl) => export(g, &dir, &tpl, &logs),
        Err(e) => Err(e),
    };
    steps.push(("export --export-release Linux".into(), exported));

    let (mut ok, mut bad) = (0, 0);
    for (name, r) in &steps {
        match r {
            Ok(()) => {
                println!("  ok   fresh-project {name}");
                ok += 1;
            }
            Err(e) => {
                println!("  FAIL fresh-project {name}\n         {e}");
                bad += 1;
            }
        }
    }
    Ok((ok, bad))
}

fn clean(run: &crate::GodotRun, marker: &str, log: &Path) -> Result<(), String> {
    let errors: Vec<&str> = run.log.lines().filter(|l| scan::is_error_line(l)).collect();
    if !errors.is_empty() {
        return Err(format!(
            "{} error lines, e.g. {:?} (log {})",
            errors.len(),
            errors[0],
            log.display()
        ));
    }
    if !run.ok_exit || !run.log.contains(marker) {
        return Err(format!(
            "did not finish with {marker:?} (log {})",
            log.display()
        ));
    }
    Ok(())
}

fn export(g: &Godot, dir: &Path, template: &Path, logs: &Path) -> Result<(), String> {
    let presets = format!(
        "[preset.0]\n\nname=\"Linux\"\nplatform=\"Linux\"\nrunnable=true\nexport_filter=\"all_resources\"\ninclude_filter=\"\"\nexclude_filter=\"\"\n\
         export_path=\"build/fresh.x86_64\"\n\n[preset.0.options]\n\ncustom_template/debug=\"\"\n\
         custom_template/release=\"{}\"\nbinary_format/embed_pck=false\nbinary_format/architecture=\"x86_64\"\n",
        template.display()
    );
    std::fs::write(dir.join("export_presets.cfg"), presets).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir.join("build")).map_err(|e| e.to_string())?;
    let log = logs.join("export.log");
    let p = dir.display().to_string();
    let run = run_godot(
        g,
        &[
            "--headless",
            "--audio-driver",
            "Dummy",
            "--path",
            &p,
            "--export-release",
            "Linux",
            "build/fresh.x86_64",
        ],
        &[],
        &log,
        Duration::from_secs(600),
    )?;
    let errors: Vec<&str> = run.log.lines().filter(|l| scan::is_error_line(l)).collect();
    if !errors.is_empty() {
        return Err(format!(
            "{} error lines, e.g. {:?} (log {})",
            errors.len(),
            errors[0],
            log.display()
        ));
    }
    let lib = dir.join("build/libwandering_terrain.linux.release.x86_64.so");
    if !run.ok_exit || !dir.join("build/fresh.pck").exists() || !lib.exists() {
        return Err(format!(
            "no exported game (pck and the extension library) in {} (log {})",
            dir.join("build").display(),
            log.display()
        ));
    }
    Ok(())
}

/// A Linux release export template: Godot's own installed templates for 4.6 if present, else the Debian
/// `godot-template-release` binary, downloaded once into `.cache/godot-templates/`.
fn release_template(repo: &Path) -> Result<PathBuf, String> {
    if let Ok(home) = std::env::var("HOME") {
        let dir = Path::new(&home).join(".local/share/godot/export_templates");
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let t = e.path().join("linux_release.x86_64");
            if e.file_name().to_string_lossy().starts_with("4.6") && t.exists() {
                return Ok(t);
            }
        }
    }
    let root = repo.join(".cache/godot-templates");
    let bin = root.join("root/usr/bin/godot-template-release");
    if bin.exists() {
        return Ok(bin);
    }
    let cache = godot::cached_apt(repo).ok_or(
        "no export template: install Godot 4.6's export templates, or let xtask provision Godot from Debian",
    )?;
    let debs = root.join("debs");
    godot::apt_download(&cache, &debs, &["godot-template-release"])?;
    for e in std::fs::read_dir(&debs)
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let st = std::process::Command::new("dpkg")
            .arg("-x")
            .arg(e.path())
            .arg(root.join("root"))
            .status();
        if !st.is_ok_and(|s| s.success()) {
            return Err(format!("dpkg -x {} failed", e.path().display()));
        }
    }
    bin.exists()
        .then_some(bin.clone())
        .ok_or(format!("{} missing after unpacking", bin.display()))
}
