//! Libraries for every desktop platform Godot runs on, cross-built from this Linux machine:
//! Windows x86_64 (mingw), Linux arm64 (gcc-aarch64-linux-gnu) and macOS arm64 + x86_64 (zig as the
//! linker), merged into one universal binary inside a `.framework` (`macos_framework.rs`).
//!
//! rustup cannot download other targets' standard libraries here, so the cross builds use Debian's
//! `rustc-web`/`cargo-web` with `rust-web-src` and build `std` for the target (`-Zbuild-std`, allowed by
//! `RUSTC_BOOTSTRAP=1`). Every toolchain comes from a package registry; a missing one is named with the
//! package that brings it, and nothing half-built is laid out.

use crate::LIB_NAME;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Debian Rust the cross builds use (pinned: its `std` sources must match the compiler).
const DEBIAN_RUST: &str = "1.96";
/// The zig (PyPI `ziglang`) the macOS builds link with.
pub const ZIG_VERSION: &str = "0.17.1";
/// The oldest macOS the libraries load on (Godot 4.6 needs 10.13 on Intel, 11 on Apple silicon).
const MACOS_MIN: &str = "11.0";

/// A cross target: its Rust triple and the `.gdextension` key it fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    WindowsX86_64,
    LinuxArm64,
    MacosArm64,
    MacosX86_64,
}

pub const CROSS: [Target; 4] = [
    Target::WindowsX86_64,
    Target::LinuxArm64,
    Target::MacosArm64,
    Target::MacosX86_64,
];

impl Target {
    pub fn triple(self) -> &'static str {
        match self {
            Self::WindowsX86_64 => "x86_64-pc-windows-gnu",
            Self::LinuxArm64 => "aarch64-unknown-linux-gnu",
            Self::MacosArm64 => "aarch64-apple-darwin",
            Self::MacosX86_64 => "x86_64-apple-darwin",
        }
    }

    /// The file cargo writes.
    fn built_file(self) -> String {
        match self {
            Self::WindowsX86_64 => format!("{LIB_NAME}.dll"),
            Self::LinuxArm64 => format!("lib{LIB_NAME}.so"),
            Self::MacosArm64 | Self::MacosX86_64 => format!("lib{LIB_NAME}.dylib"),
        }
    }

    /// The name in the addon's `bin/` (macOS slices are merged into the framework instead).
    pub fn slot_name(self, profile: &str) -> String {
        match self {
            Self::WindowsX86_64 => format!("{LIB_NAME}.windows.{profile}.x86_64.dll"),
            Self::LinuxArm64 => format!("lib{LIB_NAME}.linux.{profile}.arm64.so"),
            Self::MacosArm64 => format!("lib{LIB_NAME}.macos.{profile}.arm64.dylib"),
            Self::MacosX86_64 => format!("lib{LIB_NAME}.macos.{profile}.x86_64.dylib"),
        }
    }

    /// What this target needs besides Debian's Rust: None when present, else the message naming the
    /// package to install.
    pub fn missing_linker(self) -> Option<String> {
        match self {
            Self::WindowsX86_64 => (!on_path("x86_64-w64-mingw32-gcc")).then(|| {
                "x86_64-w64-mingw32-gcc not found: apt-get install gcc-mingw-w64-x86-64".into()
            }),
            Self::LinuxArm64 => {
                let libc = Path::new("/usr/aarch64-linux-gnu/lib/libc.so.6").exists();
                (!on_path("aarch64-linux-gnu-gcc") || !libc).then(|| {
                    "aarch64-linux-gnu-gcc or its libc not found: apt-get install \
                     gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
                        .into()
                })
            }
            Self::MacosArm64 | Self::MacosX86_64 => zig_missing(),
        }
    }

    /// Cargo's environment for this target's linker and link flags.
    fn link_env(self, repo: &Path) -> Result<Vec<(String, String)>, String> {
        let key = self.triple().to_uppercase().replace('-', "_");
        let linker = format!("CARGO_TARGET_{key}_LINKER");
        Ok(match self {
            // Statically linked C runtime: the DLL imports only DLLs every Windows has (no libgcc_s,
            // no libwinpthread).
            Self::WindowsX86_64 => vec![
                (linker, "x86_64-w64-mingw32-gcc".into()),
                (
                    format!("CARGO_TARGET_{key}_RUSTFLAGS"),
                    "-C target-feature=+crt-static".into(),
                ),
            ],
            Self::LinuxArm64 => vec![(linker, "aarch64-linux-gnu-gcc".into())],
            Self::MacosArm64 | Self::MacosX86_64 => {
                let zig_target = if self == Self::MacosArm64 {
                    format!("aarch64-macos.{MACOS_MIN}")
                } else {
                    format!("x86_64-macos.{MACOS_MIN}")
                };
                vec![
                    (linker, zig_linker(repo, &zig_target)?.display().to_string()),
                    // rustc strips Mach-O with an objcopy that Debian's Rust does not ship (cargo
                    // strips whenever debug info is off); the builds carry no debug info anyway.
                    ("CARGO_PROFILE_RELEASE_STRIP".into(), "false".into()),
                    ("CARGO_PROFILE_DEV_STRIP".into(), "false".into()),
                ]
            }
        })
    }
}

fn on_path(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The Python that has `ziglang`, or the message naming the package.
fn zig_missing() -> Option<String> {
    let out = Command::new("python3")
        .args(["-m", "ziglang", "version"])
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
            (v != ZIG_VERSION).then(|| {
                format!("zig {v} found, {ZIG_VERSION} wanted: pip install ziglang=={ZIG_VERSION}")
            })
        }
        _ => Some(format!(
            "zig not found (python3 -m ziglang): pip install ziglang=={ZIG_VERSION}"
        )),
    }
}

/// Debian's cargo and rustc with `std` sources, or the message naming the packages.
pub fn debian_rust_missing() -> Option<String> {
    let want = "apt-get install rustc-web cargo-web rust-web-src (Debian bookworm-security)";
    let v = Command::new("/usr/bin/rustc").arg("--version").output();
    let version = match v {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).to_string(),
        _ => return Some(format!("/usr/bin/rustc not found: {want}")),
    };
    if !version.starts_with(&format!("rustc {DEBIAN_RUST}.")) {
        return Some(format!(
            "/usr/bin/rustc is `{}`, the cross builds are pinned to {DEBIAN_RUST}: {want}",
            version.trim()
        ));
    }
    if !Path::new("/usr/bin/cargo").exists() {
        return Some(format!("/usr/bin/cargo not found: {want}"));
    }
    if !Path::new("/usr/lib/rustlib/src/rust/library/std").is_dir() {
        return Some(format!(
            "the standard library's sources are missing: {want}"
        ));
    }
    None
}

/// Why `target` cannot be built here, or None.
pub fn missing(target: Target) -> Option<String> {
    debian_rust_missing().or_else(|| target.missing_linker())
}

/// Writes the linker script for zig: rustc passes `-arch`, which zig does not take (the target says it).
fn zig_linker(repo: &Path, zig_target: &str) -> Result<PathBuf, String> {
    let dir = repo.join("target/cross/linkers");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("zigcc-{zig_target}"));
    let script = format!(
        "#!/usr/bin/env python3\n\
         # zig cc as the macOS linker (written by cargo xtask): drops the -arch flags rustc passes.\n\
         import os, sys\n\
         args, skip = [], False\n\
         for a in sys.argv[1:]:\n\
         \x20   if skip:\n\
         \x20       skip = False\n\
         \x20   elif a == \"-arch\":\n\
         \x20       skip = True\n\
         \x20   else:\n\
         \x20       args.append(a)\n\
         os.execvp(\"python3\", [\"python3\", \"-m\", \"ziglang\", \"cc\", \"-target\", \"{zig_target}\"] + args)\n"
    );
    std::fs::write(&path, script).map_err(|e| e.to_string())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| e.to_string())?;
    Ok(path)
}

/// Debian's cargo set up for `target`: `cargo <verb> --target T -Zbuild-std…` into `target/cross`.
fn debian_cargo(repo: &Path, target: Target, verb: &str) -> Result<Command, String> {
    if let Some(why) = missing(target) {
        return Err(why);
    }
    let mut c = Command::new("/usr/bin/cargo");
    c.current_dir(repo)
        .args([verb, "--target", target.triple()])
        .args([
            "-Zbuild-std=std,panic_unwind",
            "--target-dir",
            "target/cross",
        ])
        .env("RUSTC_BOOTSTRAP", "1")
        .env("RUSTC", "/usr/bin/rustc")
        .env("RUSTDOC", "/usr/bin/rustdoc")
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("CARGO");
    for (k, v) in target.link_env(repo)? {
        c.env(k, v);
    }
    Ok(c)
}

/// Builds the core's unit tests for `target` (to run under an emulator); returns the test executable.
pub fn build_core_tests(repo: &Path, target: Target) -> Result<PathBuf, String> {
    let mut c = debian_cargo(repo, target, "test")?;
    c.args(["-p", "terrain_core", "--lib", "--no-run"]);
    let out = c.output().map_err(|e| format!("/usr/bin/cargo: {e}"))?;
    let text = String::from_utf8_lossy(&out.stderr);
    // cargo names the built test as "Executable unittests src/lib.rs (PATH)".
    let exe = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Executable unittests src/lib.rs ("))
        .and_then(|l| l.strip_suffix(')'));
    match (out.status.success(), exe) {
        (true, Some(p)) => Ok(repo.join(p)),
        _ => Err(format!(
            "cargo test --no-run --target {} failed: {}",
            target.triple(),
            text.lines()
                .rev()
                .find(|l| l.contains("error"))
                .unwrap_or("")
        )),
    }
}

/// Builds the extension for `target` with Debian's Rust; returns the built library. Debug builds carry
/// no debug info (they are for the checks, not a debugger).
pub fn build(repo: &Path, target: Target, release: bool) -> Result<PathBuf, String> {
    let mut c = debian_cargo(repo, target, "build")?;
    c.args(["-p", LIB_NAME]);
    if release {
        c.arg("--release");
    }
    let t0 = std::time::Instant::now();
    let status = c.status().map_err(|e| format!("/usr/bin/cargo: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build --target {} failed", target.triple()));
    }
    let profile = if release { "release" } else { "debug" };
    let built = repo
        .join("target/cross")
        .join(target.triple())
        .join(profile)
        .join(target.built_file());
    let size = std::fs::metadata(&built).map(|m| m.len()).unwrap_or(0);
    println!(
        "xtask: built {} ({profile}) in {:.0} s: {:.1} MB",
        target.triple(),
        t0.elapsed().as_secs_f64(),
        size as f64 / 1e6
    );
    Ok(built)
}

/// Builds every cross target and lays the libraries out in the addon's `bin/` (the macOS slices as one
/// universal framework). All or nothing: a missing toolchain stops before anything is built, and files
/// are copied only once every build succeeded. Returns the names laid out.
pub fn build_all(repo: &Path, release: bool) -> Result<Vec<String>, String> {
    let why: Vec<String> = CROSS.iter().filter_map(|t| missing(*t)).collect();
    if !why.is_empty() {
        return Err(format!(
            "cannot build every platform here:\n  {}",
            why.join("\n  ")
        ));
    }
    let mut built = Vec::new();
    for t in CROSS {
        built.push((t, build(repo, t, release)?));
    }
    lay_out(repo, &built)
}

/// Copies built libraries into `bin/` under both slot names, debug and release, as `cargo xtask build` does
/// for this machine's: Godot's editor loads the `debug` entry and exported games the `release` one, so a
/// package built for release gives the editor optimised code too. The two macOS slices become the
/// framework. Returns the names laid out.
pub fn lay_out(repo: &Path, built: &[(Target, PathBuf)]) -> Result<Vec<String>, String> {
    let bin = repo.join("addons/wandering_terrain/bin");
    std::fs::create_dir_all(&bin).map_err(|e| e.to_string())?;
    let mut names = Vec::new();
    let mut mac = Vec::new();
    for (t, path) in built {
        if matches!(t, Target::MacosArm64 | Target::MacosX86_64) {
            mac.push(path.clone());
            continue;
        }
        for profile in ["debug", "release"] {
            let name = t.slot_name(profile);
            let tmp = bin.join(format!(".{name}.tmp"));
            std::fs::copy(path, &tmp).map_err(|e| format!("copy {}: {e}", path.display()))?;
            std::fs::rename(&tmp, bin.join(&name)).map_err(|e| e.to_string())?;
            names.push(name);
        }
    }
    if !mac.is_empty() {
        for profile in ["debug", "release"] {
            names.push(crate::macos_framework::write(&bin, profile, &mac)?);
        }
    }
    Ok(names)
}
