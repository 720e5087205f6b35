//! The Linux arm64 library run for real: Debian's arm64 Godot (the same 4.6 package as on x86_64, with its
//! arm64 libraries, unpacked into `.cache/godot-arm64/`) under qemu's user-mode emulator, headless, runs a
//! subset of the Godot suites with the arm64 build of the extension. This proves the library is correct on
//! a second architecture (memory layout, atomics, SIMD fallbacks), not only that it links.

use crate::godot::{self, Godot};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The suites (and physics suite) run under emulation: TerrainData, TerrainNode, the instancer, and
/// collision with Godot Physics. Left out: the endless flight's collision case, which asks for tiles
/// within two physics ticks of a 5 m step — under a 10–50× slower emulator the engine runs several ticks
/// per frame to catch up, so it measures the emulator, not the library (it runs natively on x86_64).
pub const SUITES: &str = "test_terrain_data,test_terrain_node,test_terrain_instancer";
pub const PHYSICS: &str = "test_collision,-test_endless_world_collides_around_a_flying_target";

const QEMU: &str = "qemu-aarch64-static";

/// Why the suites cannot run here, or None.
pub fn missing() -> Option<String> {
    let ok = Command::new(QEMU)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (!ok).then(|| format!("{QEMU} not found: apt-get install qemu-user-static"))
}

/// The arm64 Godot, unpacked once from Debian (forky, else sid) into `.cache/godot-arm64/`.
pub fn provision(repo: &Path) -> Result<Godot, String> {
    let cache = repo.join(".cache/godot-arm64");
    let root = cache.join("root");
    let marker = cache.join("root.complete");
    if !marker.exists() {
        let mirror = godot::debian_mirror();
        let mut last = String::new();
        for suite in ["forky", "sid"] {
            eprintln!(
                "xtask: downloading Godot 4 for arm64 from Debian {suite} into {}",
                cache.display()
            );
            match godot::download_suite(&cache, &mirror, suite, "arm64", &["godot"]) {
                Ok(()) => {
                    let n = godot::unpack_debs(&cache.join("debs"), &root)?;
                    eprintln!("xtask: unpacked {n} arm64 packages");
                    last.clear();
                    break;
                }
                Err(e) => last = e,
            }
        }
        if !last.is_empty() {
            return Err(format!("no arm64 Godot: {last}"));
        }
        std::fs::write(&marker, "").map_err(|e| e.to_string())?;
    }
    let lib = root.join("usr/lib/aarch64-linux-gnu");
    let loader: PathBuf = lib.join("ld-linux-aarch64.so.1");
    let mut g = Godot {
        program: PathBuf::from(QEMU),
        prefix: vec![
            loader.display().to_string(),
            "--library-path".into(),
            format!("{}:{}", lib.display(), lib.join("pulseaudio").display()),
            root.join("usr/bin/godot").display().to_string(),
        ],
        env: vec![],
        root: None,
        description: String::new(),
    };
    let out = g.command().arg("--version").output();
    match out {
        Ok(o) if String::from_utf8_lossy(&o.stdout).starts_with("4.") => {
            g.description = format!(
                "{} (Debian arm64 package under {QEMU})",
                String::from_utf8_lossy(&o.stdout).trim()
            );
            Ok(g)
        }
        Ok(o) => Err(format!(
            "the arm64 Godot does not run under {QEMU}: {}",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Err(e) => Err(format!("{QEMU}: {e}")),
    }
}

/// The core's unit tests built for arm64 and run under qemu, with the cross linker's arm64 libc
/// (`/usr/aarch64-linux-gnu`) as the system root; returns (passed, failed, seconds) from the harness.
pub fn core_tests(repo: &Path) -> Result<(usize, usize, f64), String> {
    let exe = crate::platforms::build_core_tests(repo, crate::platforms::Target::LinuxArm64)?;
    let t0 = Instant::now();
    let out = Command::new(QEMU)
        .args(["-L", "/usr/aarch64-linux-gnu"])
        .arg(&exe)
        .output()
        .map_err(|e| format!("{QEMU}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (p, f) = crate::cargo_counts(&text);
    if p == 0 && f == 0 {
        return Err(format!(
            "no test result from {}: {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    for l in text
        .lines()
        .filter(|l| l.contains("FAILED") || l.contains("panicked"))
    {
        println!("         {l}");
    }
    Ok((p, f, t0.elapsed().as_secs_f64()))
}

/// Runs the subset; returns (cases passed, cases failed, seconds).
pub fn run(repo: &Path) -> Result<(usize, usize, f64), String> {
    let g = provision(repo)?;
    println!("xtask: arm64: {}", g.description);
    let t0 = Instant::now();
    let r = crate::run_suites(&g, repo, "res://suites", "arm64", None, None, Some(SUITES))?;
    let (mut passed, mut failed) = (r.passed(), r.failed());
    // Collision in real physics (Godot Physics), as the x86_64 physics suites run it.
    let cfg = repo.join("tests/override.cfg");
    std::fs::write(&cfg, "[physics]\n3d/physics_engine=\"GodotPhysics3D\"\n")
        .map_err(|e| e.to_string())?;
    let r = crate::run_suites(
        &g,
        repo,
        "res://physics",
        "arm64-physics",
        None,
        None,
        Some(PHYSICS),
    );
    let _ = std::fs::remove_file(&cfg);
    let r = r?;
    passed += r.passed();
    failed += r.failed();
    Ok((passed, failed, t0.elapsed().as_secs_f64()))
}
