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
#[cfg(test)]
mod doc_check;
mod doc_snippets;
mod editor_open;
mod editor_shot;
mod fresh_project;
mod godot;
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
        Some("textures") => textures::generate(&repo.join("godot-project/textures")).map(|files| {
            files.iter().for_each(|f| println!("{f}"));
            true
        }),
        Some("package") => package_command(&repo, &args[1..]),
        Some("editor") => editor_only(&repo),
        Some("platforms") => platforms_only(&repo),
        _ => {
            eprintln!("usage: cargo xtask build [--release] | test [--no-render] [--filter TEXT] | demo [--renderer opengl3|vulkan] [--measure] | bench [--quick] [--godot-only] [--no-render] [--only TEXT] | editor | package [--debug] [--all-platforms] | platforms | textures | godot -- ARGS");
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

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Builds the cdylib and copies it plus `shaders/` into the addon folder.
fn build(repo: &Path, release: bool) -> Result<(), String> {
    let mut c = cargo();
    c.current_dir(repo).args(["build", "-p", LIB_NAME]);
    if release {
        c.arg("--release");
    }
    if !c.status().map_err(|e| e.to_string())?.success() {
        return Err("cargo build failed".into());
    }
    let profile = if release { "release" } else { "debug" };
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or(repo.join("target"));
    let (file, dest_names): (String, Vec<String>) = if cfg!(target_os = "windows") {
        (format!("{LIB_NAME}.dll"), slot_names("windows", "dll"))
    } else if cfg!(target_os = "macos") {
        (format!("lib{LIB_NAME}.dylib"), slot_names("macos", "dylib"))
    } else {
        (format!("lib{LIB_NAME}.so"), slot_names("linux", "so"))
    };
    let addon = repo.join("addons/wandering_terrain");
    sync_plugin_version(&addon)?;
    let bin = addon.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| e.to_string())?;
    let src = target.join(profile).join(&file);
    // Godot's editor build (what tests and the demo run) loads the `debug` entry and exported release games
    // the `release` entry; both get this build so a benchmark really measures optimised code. On a Mac the
    // entries name frameworks (universal in a package; this machine's architecture alone here).
    if cfg!(target_os = "macos") {
        for p in ["debug", "release"] {
            macos_framework::write(&bin, p, std::slice::from_ref(&src))?;
        }
    }
    for name in dest_names
        .into_iter()
        .filter(|_| !cfg!(target_os = "macos"))
    {
        let dst = bin.join(&name);
        let tmp = bin.join(format!(".{name}.tmp"));
        std::fs::copy(&src, &tmp).map_err(|e| format!("copy {}: {e}", src.display()))?;
        std::fs::rename(&tmp, &dst).map_err(|e| e.to_string())?;
    }
    let shaders = addon.join("shaders");
    std::fs::create_dir_all(&shaders).map_err(|e| e.to_string())?;
    for e in std::fs::read_dir(repo.join("shaders"))
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let p = e.path();
        if p.extension()
            .is_some_and(|x| x == "gdshader" || x == "gdshaderinc")
        {
            std::fs::copy(&p, shaders.join(p.file_name().unwrap())).map_err(|e| e.to_string())?;
        }
    }
    eprintln!(
        "xtask: addon laid out in {} ({profile} build)",
        addon.display()
    );
    Ok(())
}

/// The version lives in the workspace Cargo.toml (this crate's version): `plugin.cfg` follows it.
fn sync_plugin_version(addon: &Path) -> Result<(), String> {
    let path = addon.join("plugin.cfg");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let want = format!("version=\"{}\"", env!("CARGO_PKG_VERSION"));
    let new: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("version=") {
                want.clone()
            } else {
                l.to_string()
            }
        })
        .collect();
    let new = new.join("\n") + "\n";
    if new != text {
        std::fs::write(&path, new).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn slot_names(os: &str, ext: &str) -> Vec<String> {
    let prefix = if os == "windows" { "" } else { "lib" };
    ["debug", "release"]
        .iter()
        .map(|p| format!("{prefix}{LIB_NAME}.{os}.{p}.x86_64.{ext}"))
        .collect()
}

/// Runs a command, streaming its stdout, and returns the stdout text.
fn run_streaming(mut c: Command) -> Result<(bool, String), String> {
    let mut child = c
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut text = String::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.map_err(|e| e.to_string())?;
        println!("{line}");
        text.push_str(&line);
        text.push('\n');
    }
    let ok = child.wait().map_err(|e| e.to_string())?.success();
    Ok((ok, text))
}

/// Sums cargo test's `test result:` lines.
fn cargo_counts(out: &str) -> (usize, usize) {
    let (mut p, mut f) = (0, 0);
    for l in out.lines().filter(|l| l.starts_with("test result:")) {
        let num = |key: &str| {
            l.split(';')
                .find(|s| s.trim_end().ends_with(key))
                .and_then(|s| s.split_whitespace().rev().nth(1))
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(0)
        };
        p += num("passed");
        f += num("failed");
    }
    (p, f)
}

pub struct GodotRun {
    pub ok_exit: bool,
    pub timed_out: bool,
    pub log: String,
}

/// Runs Godot with a timeout; stdout and stderr go to one log file so their order is kept.
pub fn run_godot(
    g: &Godot,
    args: &[&str],
    env: &[(String, String)],
    log_path: &Path,
    timeout: Duration,
) -> Result<GodotRun, String> {
    if let Some(d) = log_path.parent() {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let f = std::fs::File::create(log_path).map_err(|e| e.to_string())?;
    let f2 = f.try_clone().map_err(|e| e.to_string())?;
    let mut c = g.command();
    c.args(args).stdout(f).stderr(f2).stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().map_err(|e| format!("starting Godot: {e}"))?;
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(s);
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = String::from_utf8_lossy(&std::fs::read(log_path).unwrap_or_default()).into_owned();
    Ok(GodotRun {
        ok_exit: status.is_some_and(|s| s.success()),
        timed_out,
        log,
    })
}

/// The addon's extension file, as a project lists it.
pub const EXTENSION: &str = "res://addons/wandering_terrain/wandering_terrain.gdextension";

/// Lists the addon in the project's `.godot/extension_list.cfg` before its first import, keeping any
/// other extension listed there. A headless import that *discovers* an extension aborts at exit (Godot
/// #111048: the editor queues the extension's class docs for a later frame, and `--import` quits first);
/// one that finds it listed loads it at start-up and exits cleanly (measured: 10 of 10 cold imports
/// aborted, 0 of 10 seeded ones).
pub fn list_extension(project: &Path) -> Result<(), String> {
    let dir = project.join(".godot");
    let file = dir.join("extension_list.cfg");
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    if old.lines().any(|l| l.trim() == EXTENSION) {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut text = old;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(EXTENSION);
    text.push('\n');
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))
}

/// One headless `--import` pass over `project`, logged to `log`.
pub fn run_import(g: &Godot, project: &Path, log: &Path) -> Result<GodotRun, String> {
    let p = project.display().to_string();
    let args = [
        "--headless",
        "--audio-driver",
        "Dummy",
        "--path",
        &p,
        "--import",
    ];
    run_godot(g, &args, &[], log, Duration::from_secs(600))
}

/// `--import` pass so the class cache exists, with the extension listed first (see `list_extension`).
fn import(g: &Godot, project: &Path, logs: &Path) -> Result<(), String> {
    list_extension(project)?;
    let p = project.display().to_string();
    let log = logs.join(format!(
        "import-{}.log",
        project.file_name().unwrap().to_string_lossy()
    ));
    let r = run_import(g, project, &log)?;
    clean_import(&r, &log).map_err(|e| format!("Godot could not import {p} cleanly ({e})"))
}

/// Whether an import pass exited cleanly with no error line; otherwise what went wrong, naming the log.
pub fn clean_import(r: &GodotRun, log: &Path) -> Result<(), String> {
    let errors: Vec<&str> = r.log.lines().filter(|l| scan::is_error_line(l)).collect();
    if r.ok_exit && errors.is_empty() {
        return Ok(());
    }
    Err(format!(
        "exit ok {}, timed out {}, {} error lines, e.g. {:?}; log {}",
        r.ok_exit,
        r.timed_out,
        errors.len(),
        errors.first(),
        log.display()
    ))
}

fn print_report(label: &str, r: &scan::Report, log: &Path) {
    for c in &r.cases {
        if c.passed {
            println!("  ok   {label} {}", c.name);
        } else {
            println!("  FAIL {label} {}", c.name);
            for why in &c.reasons {
                println!("         {why}");
            }
        }
    }
    for e in &r.stray_errors {
        println!("  FAIL {label} log: {e}");
    }
    if !r.finished {
        println!(
            "  FAIL {label} the runner did not finish (see {})",
            log.display()
        );
    }
}

struct Totals {
    passed: usize,
    failed: usize,
    lines: Vec<String>,
    /// Each failure again at the end, so that a log cut to its tail (as CI shows it) still names them.
    failures: Vec<String>,
}

impl Totals {
    fn add(&mut self, stage: &str, p: usize, f: usize) {
        self.passed += p;
        self.failed += f;
        self.lines
            .push(format!("{stage:>28}: {p} passed, {f} failed"));
    }

    /// Adds a Godot run's counts and names its failures.
    fn add_report(&mut self, stage: &str, r: &scan::Report) {
        self.add(stage, r.passed(), r.failed());
        for c in r.cases.iter().filter(|c| !c.passed) {
            let why = c.reasons.first().map(String::as_str).unwrap_or("");
            self.failures.push(format!("{stage} {}: {why}", c.name));
        }
        for e in &r.stray_errors {
            self.failures
                .push(format!("{stage} (outside any case): {e}"));
        }
        if !r.finished {
            self.failures
                .push(format!("{stage}: the run did not finish"));
        }
    }
}

/// Runs the GDScript suites in `dir` (relative to `tests/`) and scans the log.
pub(crate) fn run_suites(
    g: &Godot,
    repo: &Path,
    dir: &str,
    label: &str,
    renderer: Option<Renderer>,
    display: Option<&str>,
    filter: Option<&str>,
) -> Result<scan::Report, String> {
    let tests = repo.join("tests");
    let log = repo.join("target/godot-tests").join(format!("{label}.log"));
    let tp = tests.display().to_string();
    let out_dir = repo.join("target/godot-tests").join(label);
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let out = out_dir.display().to_string();
    let mut args: Vec<&str> = vec!["--audio-driver", "Dummy", "--path", &tp];
    let mut env = Vec::new();
    match renderer {
        None => args.insert(0, "--headless"),
        Some(r) => {
            args.extend([
                "--rendering-driver",
                r.driver(),
                "--rendering-method",
                r.method(),
            ]);
            args.extend(["--resolution", "320x240"]);
            env = g.render_env(repo);
            env.push(("DISPLAY".into(), display.unwrap_or(":0").to_string()));
        }
    }
    let renderer_name = renderer.map(|r| r.driver()).unwrap_or("headless");
    args.extend([
        "-s",
        "res://runner.gd",
        "--",
        "--dir",
        dir,
        "--out",
        &out,
        "--renderer",
        renderer_name,
    ]);
    if let Some(f) = filter {
        args.extend(["--filter", f]);
    }
    let run = run_godot(g, &args, &env, &log, Duration::from_secs(1200))?;
    let mut r = scan::scan(&run.log);
    if run.timed_out {
        r.stray_errors.push("Godot timed out".into());
    } else if !run.ok_exit && r.failed() == 0 {
        r.stray_errors
            .push("Godot exited with an error status".into());
    }
    print_report(label, &r, &log);
    println!("  ({label}: log {}, pictures in {out})", log.display());
    Ok(r)
}

fn test(repo: &Path, args: &[String]) -> Result<bool, String> {
    let t0 = Instant::now();
    let mut totals = Totals {
        passed: 0,
        failed: 0,
        lines: vec![],
        failures: vec![],
    };

    // `--filter TEXT` runs only the Godot cases whose name contains TEXT (and skips the Rust tests and the
    // runner self-test): for working on one case.
    let filter = opt(args, "--filter");
    if filter.is_none() {
        println!("== Rust tests (cargo test --workspace)");
        let mut c = cargo();
        c.current_dir(repo).args(["test", "--workspace"]);
        let (ok, out) = run_streaming(c)?;
        let (p, f) = cargo_counts(&out);
        totals.add("rust", p, if ok { f } else { f.max(1) });
    }

    println!("== Build and lay out the addon");
    build(repo, false)?;
    let g = godot::find_or_provision(repo)?;
    println!("xtask: using Godot {}", g.description);
    let logs = repo.join("target/godot-tests");
    import(&g, &repo.join("tests"), &logs)?;

    println!("== Godot suites (headless)");
    let r = run_suites(&g, repo, "res://suites", "godot", None, None, filter)?;
    totals.add_report("godot suites", &r);

    // Every GDScript block of the docs, run as the docs assume (a filter that names no block skips it).
    let n = doc_snippets::write_suite(repo)?;
    println!("== Doc snippets ({n} GDScript blocks of README.md and docs/, headless)");
    let r = run_suites(
        &g,
        repo,
        "res://doc_snippets",
        "doc-snippets",
        None,
        None,
        filter,
    )?;
    totals.add_report("doc snippets", &r);

    // Collision in real physics, once per engine (selected by the project's override.cfg).
    for (label, engine) in [
        ("physics-godot", "GodotPhysics3D"),
        ("physics-jolt", "Jolt Physics"),
    ] {
        println!("== Physics suites ({engine})");
        let cfg = repo.join("tests/override.cfg");
        std::fs::write(&cfg, format!("[physics]\n3d/physics_engine=\"{engine}\"\n"))
            .map_err(|e| e.to_string())?;
        let r = run_suites(&g, repo, "res://physics", label, None, None, filter);
        let _ = std::fs::remove_file(&cfg);
        let r = r?;
        totals.add_report(label, &r);
    }

    if filter.is_none() {
        self_test(&g, repo, &mut totals)?;
        println!("== The demo scenes in the editor (headless)");
        import(&g, &repo.join("godot-project"), &logs)?;
        let (p, f) = editor_open::run(&g, repo)?;
        totals.add("editor", p, f);
        let r = editor_open::tools(&g, repo)?;
        totals.add_report("editor tools", &r);
    }

    if filter.is_none() {
        // Before the fresh project, whose package then ships every library built here.
        println!(
            "== Platforms: cross-built libraries checked here (skipped without their toolchains)"
        );
        let (p, f) = platform_checks::run(repo);
        totals.add("platforms", p, f);
    }

    if !args.iter().any(|a| a == "--no-render") {
        let x = godot::start_xvfb()?;
        if filter.is_none() {
            println!("== The package in a fresh project");
            let (p, f) = fresh_project::run(&g, repo, &x.display)?;
            totals.add("fresh project", p, f);
        }
        for r in [Renderer::OpenGl3, Renderer::Vulkan] {
            println!("== Render tests under Xvfb {} ({})", x.display, r.driver());
            let label = format!("render-{}", r.driver());
            let rep = run_suites(
                &g,
                repo,
                "res://render",
                &label,
                Some(r),
                Some(&x.display),
                filter,
            )?;
            totals.add_report(&label, &rep);
        }
    }

    println!("== Summary ({:.0} s)", t0.elapsed().as_secs_f64());
    for l in &totals.lines {
        println!("{l}");
    }
    for f in &totals.failures {
        println!("  FAILED {f}");
    }
    println!("{} passed, {} failed", totals.passed, totals.failed);
    Ok(totals.failed == 0)
}

/// The runner self-test: a suite that must fail in exactly the planted ways.
fn self_test(g: &Godot, repo: &Path, totals: &mut Totals) -> Result<(), String> {
    println!("== Runner self-test: a suite that must fail");
    let r = run_suites(g, repo, "res://selftest", "selftest", None, None, None)?;
    // tests/selftest/selftest_suite.gd: exactly one case passes; each other case breaks the rules one way.
    let expect = ["selftest_suite/test_passes"];
    let sound = r.finished
        && r.cases.len() == 8
        && r.cases
            .iter()
            .all(|c| c.passed == expect.contains(&c.name.as_str()));
    println!(
        "  runner self-test: {}",
        if sound {
            "ok (the failures above were expected)"
        } else {
            "FAIL: the runner did not catch every planted failure"
        }
    );
    totals.add("runner self-test", usize::from(sound), usize::from(!sound));
    Ok(())
}

fn demo(repo: &Path, args: &[String]) -> Result<bool, String> {
    build(repo, true)?;
    let g = godot::find_or_provision(repo)?;
    println!("xtask: using Godot {}", g.description);
    let project = repo.join("godot-project");
    import(&g, &project, &repo.join("target/demo"))?;
    let pp = project.display().to_string();
    let has_display =
        std::env::var("DISPLAY").is_ok_and(|d| !d.is_empty()) && std::env::var("CI").is_err();
    let renderer = opt(args, "--renderer")
        .map(|s| Renderer::parse(s).ok_or(format!("unknown renderer {s}")))
        .transpose()?;
    if has_display && !args.iter().any(|a| a == "--png") {
        let mut c = g.command();
        c.args(["--path", &pp]);
        if let Some(r) = renderer {
            c.args([
                "--rendering-driver",
                r.driver(),
                "--rendering-method",
                r.method(),
            ]);
        }
        return Ok(c.status().map_err(|e| e.to_string())?.success());
    }
    let renderer = renderer.unwrap_or(Renderer::Vulkan);
    let x = godot::start_xvfb()?;
    let out = repo.join("target/demo");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let mut env = g.render_env(repo);
    env.push(("DISPLAY".into(), x.display.clone()));
    let os = out.display().to_string();
    let log = out.join("demo.log");
    // `--measure`: frame times of the main demo scene instead of pictures.
    let measure = args.iter().any(|a| a == "--measure");
    let script = if measure {
        "res://tools/measure_frame_time.gd"
    } else {
        "res://tools/render_demo.gd"
    };
    let mut godot_args = vec![
        "--audio-driver",
        "Dummy",
        "--rendering-driver",
        renderer.driver(),
        "--rendering-method",
        renderer.method(),
        "--resolution",
        "960x540",
        "--path",
        &pp,
        "-s",
        script,
        "--",
        "--out",
        &os,
    ];
    // `--only NAME`: the demo scenes whose file name contains NAME.
    if let Some(only) = opt(args, "--only") {
        godot_args.extend(["--only", only]);
    }
    let run = run_godot(&g, &godot_args, &env, &log, Duration::from_secs(900))?;
    if measure {
        for l in run
            .log
            .lines()
            .filter(|l| l.starts_with("frametime") || scan::is_error_line(l))
        {
            println!("{l}");
        }
        return Ok(run.ok_exit);
    }
    let pngs: Vec<&str> = run
        .log
        .lines()
        .filter_map(|l| l.strip_prefix("::png "))
        .collect();
    let errors: Vec<&str> = run.log.lines().filter(|l| scan::is_error_line(l)).collect();
    for e in &errors {
        eprintln!("  error in demo: {e}");
    }
    println!(
        "Demo rendered with {} under Xvfb; pictures:",
        renderer.driver()
    );
    for p in &pngs {
        println!("{p}");
    }
    let shot = editor_shot::shoot(&g, repo, &env, renderer);
    match &shot {
        Ok(p) => println!("{}", p.display()),
        Err(e) => eprintln!("  {e}"),
    }
    if pngs.is_empty() {
        return Err(format!(
            "the demo wrote no picture (log: {})",
            log.display()
        ));
    }
    Ok(errors.is_empty() && shot.is_ok())
}

fn bench(repo: &Path, args: &[String]) -> Result<bool, String> {
    let quick = args.iter().any(|a| a == "--quick");
    if !args.iter().any(|a| a == "--godot-only") {
        let mut c = cargo();
        c.current_dir(repo).args(["bench", "-p", "terrain_core"]);
        if quick {
            c.args(["--", "--quick"]);
        }
        if !c.status().map_err(|e| e.to_string())?.success() {
            return Err("cargo bench failed".into());
        }
    }
    build(repo, true)?;
    let g = godot::find_or_provision(repo)?;
    println!("xtask: using Godot {}", g.description);
    import(&g, &repo.join("tests"), &repo.join("target/godot-bench"))?;
    let tp = repo.join("tests").display().to_string();
    let log = repo.join("target/godot-bench/bench.log");
    // `--only TEXT`: just the Godot-side benches whose file name contains TEXT.
    let only = opt(args, "--only");
    let mut a = vec![
        "--headless",
        "--audio-driver",
        "Dummy",
        "--path",
        &tp,
        "-s",
        "res://bench/bench_runner.gd",
        "--",
    ];
    if quick {
        a.push("--quick");
    }
    if let Some(o) = only {
        a.extend(["--only", o]);
    }
    let run = run_godot(&g, &a, &[], &log, Duration::from_secs(900))?;
    let mut ok = print_bench(&run);
    // The collision bench again under Jolt (the tests project defaults to Godot Physics).
    if only.is_none_or(|o| "bench_collision.gd".contains(o)) {
        a.retain(|x| Some(*x) != only && *x != "--only");
        a.extend(["--only", "collision"]);
        let run = with_jolt(repo, || {
            run_godot(
                &g,
                &a,
                &[],
                &repo.join("target/godot-bench/bench-jolt.log"),
                Duration::from_secs(900),
            )
        })?;
        ok &= print_bench(&run);
    }
    // Benches that need a real renderer (texture memory, uploads), under Xvfb for both renderers.
    if !args.iter().any(|a| a == "--no-render") {
        let x = godot::start_xvfb()?;
        // `--renderer vulkan|opengl3`: one renderer only (a 20-minute soak per renderer).
        let one = opt(args, "--renderer");
        for r in [Renderer::Vulkan, Renderer::OpenGl3]
            .into_iter()
            .filter(|r| one.is_none_or(|o| o == r.driver()))
        {
            let log = repo
                .join("target/godot-bench")
                .join(format!("bench-{}.log", r.driver()));
            let mut a = vec![
                "--audio-driver",
                "Dummy",
                "--rendering-driver",
                r.driver(),
                "--rendering-method",
                r.method(),
                "--resolution",
                "960x540",
                "--path",
                &tp,
                "-s",
                "res://bench/render_bench_runner.gd",
                "--",
            ];
            if quick {
                a.push("--quick");
            }
            if let Some(o) = only {
                a.extend(["--only", o]);
            }
            let mut env = g.render_env(repo);
            env.push(("DISPLAY".into(), x.display.clone()));
            // The full soak alone flies 20 minutes: a quick run's half-hour limit cut it short.
            let limit = Duration::from_secs(if quick { 1800 } else { 7200 });
            let run = run_godot(&g, &a, &env, &log, limit)?;
            ok &= print_bench(&run);
            // The main-thread bench again under Jolt (Godot 4.6's default for new projects), on both
            // renderers.
            if only.is_none_or(|o| "render_bench_main_thread.gd".contains(o)) {
                a.retain(|x| Some(*x) != only && *x != "--only");
                a.extend(["--only", "main_thread"]);
                let log = repo.join(format!("target/godot-bench/bench-{}-jolt.log", r.driver()));
                let run = with_jolt(repo, || {
                    run_godot(&g, &a, &env, &log, Duration::from_secs(1800))
                })?;
                ok &= print_bench(&run);
            }
        }
    }
    Ok(ok)
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

/// Runs `f` with the tests project switched to Jolt Physics (it defaults to Godot Physics).
fn with_jolt<T>(repo: &Path, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let cfg = repo.join("tests/override.cfg");
    std::fs::write(&cfg, "[physics]\n3d/physics_engine=\"Jolt Physics\"\n")
        .map_err(|e| e.to_string())?;
    let r = f();
    let _ = std::fs::remove_file(&cfg);
    r
}

/// Prints a bench run's result lines; false when it failed or logged errors.
fn print_bench(run: &GodotRun) -> bool {
    for l in run
        .log
        .lines()
        .filter(|l| l.starts_with("bench") || l.starts_with("::") || scan::is_error_line(l))
    {
        println!("{l}");
    }
    run.ok_exit && !run.log.lines().any(scan::is_error_line)
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
