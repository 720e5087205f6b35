//! `cargo xtask package`: the addon as a zip a user unpacks into a project — `addons/wandering_terrain/`
//! with the built libraries, shaders, icons, `plugin.cfg`, the `.gdextension`, a short README and LICENSE.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Files of the addon folder that ship (not editor import caches or temporaries).
fn ships(rel: &Path) -> bool {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let ext = rel
        .extension()
        .map(|e| e.to_string_lossy())
        .unwrap_or_default();
    !name.starts_with('.') && !matches!(ext.as_ref(), "import" | "tmp")
}

fn collect(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let rel = p.strip_prefix(base).unwrap().to_path_buf();
        if p.is_dir() {
            collect(&p, base, out)?;
        } else if ships(&rel) {
            out.push(rel);
        }
    }
    Ok(())
}

/// Writes `target/package/wandering_terrain-<version>.zip` from the laid-out addon; returns its path.
pub fn make(repo: &Path) -> Result<PathBuf, String> {
    let addon = repo.join("addons/wandering_terrain");
    let mut files = vec![];
    collect(&addon, &addon, &mut files)?;
    if !files.iter().any(|f| f.starts_with("bin")) {
        return Err("no library in addons/wandering_terrain/bin: build first".into());
    }
    let out_dir = repo.join("target/package");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let zip_path = out_dir.join(format!(
        "wandering_terrain-{}.zip",
        env!("CARGO_PKG_VERSION")
    ));
    let f = std::fs::File::create(&zip_path).map_err(|e| e.to_string())?;
    let mut z = zip::ZipWriter::new(f);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    let mut add = |name: String, src: &Path| -> Result<(), String> {
        let bytes = std::fs::read(src).map_err(|e| format!("{}: {e}", src.display()))?;
        z.start_file(name, opts).map_err(|e| e.to_string())?;
        z.write_all(&bytes).map_err(|e| e.to_string())
    };
    for rel in &files {
        let name = format!(
            "addons/wandering_terrain/{}",
            rel.to_string_lossy().replace('\\', "/")
        );
        add(name, &addon.join(rel))?;
    }
    add(
        "addons/wandering_terrain/LICENSE".into(),
        &repo.join("LICENSE"),
    )?;
    z.finish().map_err(|e| e.to_string())?;
    Ok(zip_path)
}

/// Unpacks a package zip into `dest` (a project folder).
pub fn unpack(zip_path: &Path, dest: &Path) -> Result<(), String> {
    let f = std::fs::File::open(zip_path).map_err(|e| e.to_string())?;
    let mut z = zip::ZipArchive::new(f).map_err(|e| e.to_string())?;
    z.extract(dest).map_err(|e| e.to_string())
}
