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

const GDEXTENSION: &str = "wandering_terrain.gdextension";
const RES_ADDON: &str = "res://addons/wandering_terrain/";

/// Each line of a `.gdextension`, with its library entry (key, path relative to the addon) when it is a
/// line of `[libraries]`.
fn lines_with_entries(text: &str) -> Vec<(&str, Option<(String, String)>)> {
    let mut in_libs = false;
    text.lines()
        .map(|l| {
            let t = l.trim();
            if t.starts_with('[') {
                in_libs = t == "[libraries]";
            }
            let entry = (in_libs && !t.starts_with('[') && !t.starts_with(';'))
                .then(|| t.split_once('='))
                .flatten()
                .map(|(k, v)| {
                    let v = v.trim().trim_matches('"').trim_start_matches(RES_ADDON);
                    (k.trim().to_string(), v.to_string())
                });
            (l, entry)
        })
        .collect()
}

/// The `[libraries]` entries of a `.gdextension`: (key, path relative to the addon).
fn library_entries(text: &str) -> Vec<(String, String)> {
    lines_with_entries(text)
        .into_iter()
        .filter_map(|(_, e)| e)
        .collect()
}

/// The `.gdextension` with only the library lines whose file (or framework folder) is shipped.
fn shipped_gdextension(text: &str, shipped: &[PathBuf]) -> String {
    lines_with_entries(text)
        .into_iter()
        .filter(|(_, e)| {
            e.as_ref()
                .is_none_or(|(_, rel)| shipped.iter().any(|f| f.starts_with(rel)))
        })
        .map(|(l, _)| format!("{l}\n"))
        .collect()
}

/// This machine's `.gdextension` keys (what `cargo xtask build` lays out).
fn host_keys() -> Vec<String> {
    let arch = if cfg!(target_arch = "aarch64") {
        "arm64"
    } else {
        "x86_64"
    };
    if cfg!(target_os = "macos") {
        vec!["macos.debug".into(), "macos.release".into()]
    } else {
        let os = if cfg!(target_os = "windows") {
            "windows"
        } else {
            "linux"
        };
        ["debug", "release"]
            .map(|p| format!("{os}.{p}.{arch}"))
            .to_vec()
    }
}

/// Writes `target/package/wandering_terrain-<version>.zip` from the laid-out addon: every file of it
/// except `bin/`, where only the libraries the `.gdextension` names ship — this machine's, or with
/// `all_platforms` every one laid out; the zip's `.gdextension` lists exactly those. Returns its path and
/// the `.gdextension` keys it ships.
pub fn make(repo: &Path, all_platforms: bool) -> Result<(PathBuf, Vec<String>), String> {
    let addon = repo.join("addons/wandering_terrain");
    let mut all = vec![];
    collect(&addon, &addon, &mut all)?;
    let ext_text = std::fs::read_to_string(addon.join(GDEXTENSION)).map_err(|e| e.to_string())?;
    let host = host_keys();
    let entries: Vec<(String, String)> = library_entries(&ext_text)
        .into_iter()
        .filter(|(k, _)| all_platforms || host.contains(k))
        .collect();
    let named = |f: &PathBuf| entries.iter().any(|(_, rel)| f.starts_with(rel));
    let files: Vec<PathBuf> = all
        .into_iter()
        .filter(|f| !f.starts_with("bin") || named(f))
        .collect();
    let shipped: Vec<String> = entries
        .iter()
        .filter(|(_, rel)| files.iter().any(|f| f.starts_with(rel)))
        .map(|(k, _)| k.clone())
        .collect();
    if shipped.is_empty() {
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
    let mut add = |name: String, bytes: &[u8]| -> Result<(), String> {
        z.start_file(name, opts).map_err(|e| e.to_string())?;
        z.write_all(bytes).map_err(|e| e.to_string())
    };
    for rel in &files {
        let name = format!(
            "addons/wandering_terrain/{}",
            rel.to_string_lossy().replace('\\', "/")
        );
        let bytes = if rel == Path::new(GDEXTENSION) {
            shipped_gdextension(&ext_text, &files).into_bytes()
        } else {
            let src = addon.join(rel);
            std::fs::read(&src).map_err(|e| format!("{}: {e}", src.display()))?
        };
        add(name, &bytes)?;
    }
    let license = std::fs::read(repo.join("LICENSE")).map_err(|e| e.to_string())?;
    add("addons/wandering_terrain/LICENSE".into(), &license)?;
    z.finish().map_err(|e| e.to_string())?;
    Ok((zip_path, shipped))
}

/// Every library line of the zip's `.gdextension` names a file (or a framework's files) in the zip;
/// returns the keys.
pub fn check_entries(zip_path: &Path) -> Result<Vec<String>, String> {
    let f = std::fs::File::open(zip_path).map_err(|e| e.to_string())?;
    let mut z = zip::ZipArchive::new(f).map_err(|e| e.to_string())?;
    let names: Vec<String> = z.file_names().map(String::from).collect();
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut z
            .by_name(&format!("addons/wandering_terrain/{GDEXTENSION}"))
            .map_err(|e| format!("{GDEXTENSION} not in the zip: {e}"))?,
        &mut text,
    )
    .map_err(|e| e.to_string())?;
    let mut keys = Vec::new();
    for (k, rel) in library_entries(&text) {
        let want = format!("addons/wandering_terrain/{rel}");
        if !names
            .iter()
            .any(|n| n == &want || n.starts_with(&format!("{want}/")))
        {
            return Err(format!("{k} = {rel}: not in {}", zip_path.display()));
        }
        keys.push(k);
    }
    Ok(keys)
}

/// Unpacks a package zip into `dest` (a project folder).
pub fn unpack(zip_path: &Path, dest: &Path) -> Result<(), String> {
    let f = std::fs::File::open(zip_path).map_err(|e| e.to_string())?;
    let mut z = zip::ZipArchive::new(f).map_err(|e| e.to_string())?;
    z.extract(dest).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_gdextension_names_only_the_libraries_shipped() {
        let text = "[configuration]\nentry_symbol = \"x\"\n\n[libraries]\n; a comment\n\
                    linux.debug.x86_64 = \"res://addons/wandering_terrain/bin/a.so\"\n\
                    macos.debug = \"res://addons/wandering_terrain/bin/m.framework\"\n\
                    windows.debug.x86_64 = \"res://addons/wandering_terrain/bin/w.dll\"\n\n[icons]\nA = \"i.svg\"\n";
        let entries = library_entries(text);
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[1], ("macos.debug".into(), "bin/m.framework".into()));
        let shipped = [
            PathBuf::from("bin/a.so"),
            PathBuf::from("bin/m.framework/m"),
        ];
        let out = shipped_gdextension(text, &shipped);
        assert!(out.contains("linux.debug.x86_64") && out.contains("macos.debug"));
        assert!(!out.contains("windows"), "{out}");
        assert!(
            out.contains("entry_symbol") && out.contains("; a comment") && out.contains("A = ")
        );
    }
}
