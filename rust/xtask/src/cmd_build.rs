//! `cargo xtask build [--release]`: the extension built and `addons/wandering_terrain/` laid out.

use super::*;

pub(crate) fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Builds the cdylib and copies it plus `shaders/` into the addon folder.
pub(crate) fn build(repo: &Path, release: bool) -> Result<(), String> {
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
pub(crate) fn sync_plugin_version(addon: &Path) -> Result<(), String> {
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

pub(crate) fn slot_names(os: &str, ext: &str) -> Vec<String> {
    let prefix = if os == "windows" { "" } else { "lib" };
    ["debug", "release"]
        .iter()
        .map(|p| format!("{prefix}{LIB_NAME}.{os}.{p}.x86_64.{ext}"))
        .collect()
}
