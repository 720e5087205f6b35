//! `cargo xtask test`'s platform step: each cross target whose toolchain is here is built (debug, no debug
//! info) and laid out in the addon's `bin/`, then checked — format, architecture, entry symbol and
//! imports (`binary_check.rs`), the Windows DLL loaded under Wine by a small mingw program, and the
//! Linux arm64 library run through Godot suites under qemu (`arm64_suite.rs`). A target whose toolchain
//! is missing is skipped with the reason printed, so a plain machine still passes.

use crate::binary_check;
use crate::platforms::{self, Target, CROSS};
use object::Architecture;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One check's name and outcome (the text says what was seen).
type Step = (String, Result<String, String>);

/// Checks every library of `profile` laid out in `bin/` for the cross targets (and this machine's).
fn check_bin(repo: &Path, profile: &str, only: &[Target]) -> Vec<Step> {
    let bin = repo.join("addons/wandering_terrain/bin");
    let mut steps: Vec<Step> = vec![];
    if only.contains(&Target::WindowsX86_64) {
        let p = bin.join(Target::WindowsX86_64.slot_name(profile));
        steps.push(("Windows x86_64 DLL".into(), binary_check::windows(&p)));
    }
    if only.contains(&Target::LinuxArm64) {
        let p = bin.join(Target::LinuxArm64.slot_name(profile));
        steps.push((
            "Linux arm64 library".into(),
            binary_check::linux(&p, Architecture::Aarch64),
        ));
    }
    if only.contains(&Target::MacosArm64) && only.contains(&Target::MacosX86_64) {
        let p = bin.join(crate::macos_framework::name(profile));
        steps.push((
            "macOS universal framework".into(),
            binary_check::macos_framework(&p),
        ));
    }
    steps
}

/// For `package --all-platforms`: every laid-out library passes, or the first failure is the error.
pub fn check_laid_out(repo: &Path, release: bool) -> Result<(), String> {
    let profile = if release { "release" } else { "debug" };
    for (name, r) in check_bin(repo, profile, &CROSS) {
        println!("xtask: {name}: {}", r?);
    }
    Ok(())
}

fn wine() -> Option<PathBuf> {
    ["/usr/lib/wine/wine64", "/usr/bin/wine64", "/usr/bin/wine"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// Builds the loader (and the ProcessPrng stand-in Wine 8 lacks) with mingw and loads `dll` with it
/// under Wine, in a prefix of its own under `target/`.
fn wine_load(repo: &Path, dll: &Path) -> Result<String, String> {
    let wine = wine().ok_or("wine not found: apt-get install wine64")?;
    let dir = repo.join("target/platforms/wine");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = repo.join("tests/platforms");
    let gcc = |args: &[&str]| -> Result<(), String> {
        let out = Command::new("x86_64-w64-mingw32-gcc")
            .args(args)
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("x86_64-w64-mingw32-gcc: {e}"))?;
        out.status
            .success()
            .then_some(())
            .ok_or_else(|| String::from_utf8_lossy(&out.stderr).to_string())
    };
    let loader = src.join("load_library.c").display().to_string();
    gcc(&["-O1", "-static", "-o", "load_library.exe", &loader])?;
    let shim = src.join("bcryptprimitives_shim.c").display().to_string();
    gcc(&[
        "-O1",
        "-shared",
        "-o",
        "bcryptprimitives.dll",
        &shim,
        "-ladvapi32",
    ])?;
    let win_path = format!("Z:{}", dll.display()).replace('/', "\\");
    let out = Command::new(&wine)
        .arg("load_library.exe")
        .arg(&win_path)
        .current_dir(&dir)
        .env("WINEPREFIX", dir.join("prefix"))
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .output()
        .map_err(|e| format!("{}: {e}", wine.display()))?;
    let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() && said.contains("gdext_rust_init found") {
        Ok(said)
    } else {
        Err(format!(
            "{said} {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ))
    }
}

/// The test step; returns (passed, failed) and prints a line per check or skip.
pub fn run(repo: &Path) -> (usize, usize) {
    let mut built: Vec<(Target, PathBuf)> = vec![];
    let mut steps: Vec<Step> = vec![];
    for t in CROSS {
        if let Some(why) = platforms::missing(t) {
            println!("  skip {}: {why}", t.triple());
            continue;
        }
        match platforms::build(repo, t, false) {
            Ok(p) => built.push((t, p)),
            Err(e) => steps.push((format!("build {}", t.triple()), Err(e))),
        }
    }
    // The two macOS slices make one framework: both or neither.
    let macs = built
        .iter()
        .filter(|(t, _)| matches!(t, Target::MacosArm64 | Target::MacosX86_64))
        .count();
    if macs == 1 {
        built.retain(|(t, _)| !matches!(t, Target::MacosArm64 | Target::MacosX86_64));
    }
    let targets: Vec<Target> = built.iter().map(|(t, _)| *t).collect();
    match platforms::lay_out(repo, &built) {
        Ok(_) => steps.extend(check_bin(repo, "debug", &targets)),
        Err(e) => steps.push(("lay out the cross-built libraries".into(), Err(e))),
    }
    let bin = repo.join("addons/wandering_terrain/bin");
    if targets.contains(&Target::WindowsX86_64) {
        let dll = bin.join(Target::WindowsX86_64.slot_name("debug"));
        match wine() {
            Some(_) => steps.push((
                "Windows DLL loads under Wine (LoadLibrary + GetProcAddress)".into(),
                wine_load(repo, &dll),
            )),
            None => println!("  skip Wine load: wine not found: apt-get install wine64"),
        }
    }
    if let Some(r) = crate::workflow_lint::run(repo) {
        steps.push(("release workflow passes actionlint".into(), r));
    }
    let (mut passed, mut failed) = (0, 0);
    for (name, r) in &steps {
        match r {
            Ok(seen) => {
                println!("  ok   platform {name}: {seen}");
                passed += 1;
            }
            Err(e) => {
                println!("  FAIL platform {name}\n         {e}");
                failed += 1;
            }
        }
    }
    if targets.contains(&Target::LinuxArm64) && crate::arm64_suite::missing().is_none() {
        match crate::arm64_suite::core_tests(repo) {
            Ok((p, f, secs)) => {
                println!(
                    "  arm64 core unit tests under qemu: {p} passed, {f} failed in {secs:.0} s"
                );
                passed += p;
                failed += f;
            }
            Err(e) => {
                println!("  FAIL platform arm64 core unit tests\n         {e}");
                failed += 1;
            }
        }
    }
    if targets.contains(&Target::LinuxArm64) {
        match crate::arm64_suite::missing() {
            Some(why) => println!("  skip arm64 suites: {why}"),
            None => match crate::arm64_suite::run(repo) {
                Ok((p, f, secs)) => {
                    println!("  arm64 suites under qemu: {p} passed, {f} failed in {secs:.0} s");
                    passed += p;
                    failed += f;
                }
                Err(e) => {
                    println!("  FAIL platform arm64 suites\n         {e}");
                    failed += 1;
                }
            },
        }
    }
    (passed, failed)
}
