//! `cargo xtask <command>`: the project's task runner.
//!
//! - `build [--release]`   build the extension and lay out `addons/wandering_terrain/` (library + shaders)
//! - `test`                Rust tests, Godot suites (headless), runner self-test, render tests (both renderers)
//! - `demo [--renderer R] [--png | --measure]` open the demo in Godot; without a display (or with `--png`)
//!   render each demo view to PNG; `--measure` prints the terrain demos' frame times
//! - `bench [--quick]`     criterion benches for terrain_core and the Godot-side bench scripts
//! - `textures`            regenerate the demo's ground textures (committed PNGs in godot-project/textures)
//! - `godot -- ARGS…`      run the provisioned Godot with ARGS (handy for debugging)
//! - `package [--debug] [--all-platforms]` the addon zip; `--all-platforms` cross-builds Windows, macOS
//!   (universal framework) and Linux arm64 too
//! - `platforms`           only `test`'s platform step: cross-build (debug) and check every platform here

mod arm64_suite;
mod binary_check;
mod cmd_bench;
mod cmd_build;
mod cmd_csharp;
mod cmd_demo;
mod cmd_test;
#[cfg(test)]
mod doc_check;
mod doc_snippets;
mod editor_open;
mod editor_shot;
mod fresh_project;
mod godot;
mod godot_run;
#[cfg(test)]
mod import_graph;
mod macos_framework;
mod package;
mod platform_checks;
mod platforms;
mod scan;
mod textures;
mod workflow_lint;

use godot::{Godot, Renderer};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

const LIB_NAME: &str = "wandering_terrain";

use cmd_bench::*;
use cmd_build::*;
use cmd_demo::*;
use cmd_test::*;
pub(crate) use godot_run::*;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// The checkout holding the current directory, when it is one of this project's (it has the xtask).
fn checkout_here() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .find(|d| d.join("rust/xtask/Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// Refuses to run from another checkout than the one this binary was built from: two checkouts sharing
/// `CARGO_TARGET_DIR` share `target/debug/xtask`, and cargo may run the other one's without rebuilding.
fn check_checkout(repo: &Path) -> Result<(), String> {
    match checkout_here() {
        Some(here) if here.canonicalize().ok() != repo.canonicalize().ok() => Err(format!(
            "xtask: this binary was built from {} but runs in {}; rebuild it here \
             (touch rust/xtask/src/main.rs) or use a target directory of this checkout's own",
            repo.display(),
            here.display()
        )),
        _ => Ok(()),
    }
}

/// `cargo xtask editor`: only the editor steps of `test` (the demo scenes and the editor tools in the real
/// editor, headless), for working on the editor plugin.
fn editor_only(repo: &Path) -> Result<bool, String> {
    build(repo, false)?;
    let g = godot::find_or_provision(repo)?;
    let logs = repo.join("target/godot-tests");
    import(&g, &repo.join("godot-project"), &logs)?;
    let (p, f) = editor_open::run(&g, repo)?;
    let r = editor_open::tools(&g, repo)?;
    let (p, f) = (p + r.passed(), f + r.failed());
    println!("editor: {p} passed, {f} failed");
    Ok(f == 0)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repo = repo_root();
    if let Err(e) = check_checkout(&repo) {
        eprintln!("{e}");
        return ExitCode::FAILURE;
    }
    let res = match args.first().map(String::as_str) {
        Some("build") => build(&repo, args.iter().any(|a| a == "--release")).map(|_| true),
        Some("test") => test(&repo, &args[1..]),
        Some("demo") => demo(&repo, &args[1..]),
        Some("bench") => bench(&repo, &args[1..]),
        Some("godot") => run_raw_godot(&repo, &args[1..]),
        Some("csharp") => cmd_csharp::csharp(&repo, &args[1..]),
        Some("textures") => textures::generate(&repo.join("godot-project/textures")).map(|files| {
            files.iter().for_each(|f| println!("{f}"));
            true
        }),
        Some("package") => package_command(&repo, &args[1..]),
        Some("editor") => editor_only(&repo),
        Some("platforms") => platforms_only(&repo),
        _ => {
            eprintln!("usage: cargo xtask build [--release] | test [--no-render] [--filter TEXT] | demo [--renderer opengl3|vulkan] [--measure] | bench [--quick] [--godot-only] [--no-render] [--only TEXT] [--renderer vulkan|opengl3] [--physics jolt] | csharp [--check] | editor | package [--debug] [--all-platforms] | platforms | textures | godot -- ARGS");
            return ExitCode::from(2);
        }
    };
    match res {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `package [--debug] [--all-platforms]`: this machine's library (and, with `--all-platforms`, every
/// desktop platform's, cross-built) zipped with the addon.
fn package_command(repo: &Path, args: &[String]) -> Result<bool, String> {
    let release = !args.iter().any(|a| a == "--debug");
    let all = args.iter().any(|a| a == "--all-platforms");
    // The cross builds first: `build_all` refuses before building anything when a toolchain is missing
    // (never a half-built zip).
    if all {
        platforms::build_all(repo, release)?;
        platform_checks::check_laid_out(repo, release)?;
    }
    let t0 = Instant::now();
    build(repo, release)?;
    println!(
        "xtask: built this machine's library in {:.0} s",
        t0.elapsed().as_secs_f64()
    );
    let (z, shipped) = package::make(repo, all)?;
    if all {
        let want = [
            "linux.release.x86_64",
            "linux.release.arm64",
            "windows.release.x86_64",
            "macos.release",
        ];
        if let Some(k) = want.iter().find(|k| !shipped.iter().any(|s| s == *k)) {
            return Err(format!("the zip ships {shipped:?}, not {k}"));
        }
    }
    package::check_entries(&z)?;
    println!("xtask: the zip ships {}", shipped.join(" "));
    println!("{}", z.display());
    Ok(true)
}

fn opt<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// `cargo xtask platforms` on its own: what `cargo xtask test` has done by the time it reaches its
/// platform step — the host library laid out and the tests project imported (the arm64 suite runs that
/// project; on a fresh clone nothing had imported it and every case failed).
fn platforms_only(repo: &Path) -> Result<bool, String> {
    build(repo, false)?;
    let g = godot::find_or_provision(repo)?;
    import(&g, &repo.join("tests"), &repo.join("target/godot-tests"))?;
    let (p, f) = platform_checks::run(repo);
    println!("{p} passed, {f} failed");
    Ok(f == 0)
}

fn run_raw_godot(repo: &Path, args: &[String]) -> Result<bool, String> {
    let g = godot::find_or_provision(repo)?;
    eprintln!("xtask: using Godot {}", g.description);
    let args: Vec<&String> = args.iter().skip_while(|a| *a == "--").collect();
    let mut c = g.command();
    c.args(args);
    for (k, v) in g.render_env(repo) {
        c.env(k, v);
    }
    Ok(c.status().map_err(|e| e.to_string())?.success())
}
