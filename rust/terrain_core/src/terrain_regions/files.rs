//! Region files on disk: `region²` little-endian values (f32 heights or u32 control), then an 8-byte
//! trailer — `WTC1` and the CRC-32 of the values — so a damaged or truncated file is found, not drawn.
//! Files without the trailer (written before it existed) are still read. Every file is written to a
//! temporary name, synced and renamed over the old one: a crash leaves either the old file or the new.

use super::error::{read_error, write_error, RegionError};
use super::format::{RegionMeta, HEADER};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const TRAILER: &[u8; 4] = b"WTC1";

pub(super) fn file(dir: &Path, kind: char, m: u32, rx: usize, rz: usize) -> PathBuf {
    dir.join(format!("{kind}{m}_{rx}_{rz}.bin"))
}

pub(super) fn write_le<T: Copy>(
    path: &Path,
    values: &[T],
    to_le: impl Fn(T) -> [u8; 4],
) -> Result<(), RegionError> {
    let mut bytes = Vec::with_capacity(values.len() * 4 + 8);
    put_le(&mut bytes, values, to_le);
    write_bytes(path, &bytes)
}

/// Appends values as little-endian bytes (written so the copy vectorises).
pub(super) fn put_le<T: Copy>(bytes: &mut Vec<u8>, values: &[T], to_le: impl Fn(T) -> [u8; 4]) {
    let at = bytes.len();
    bytes.resize(at + values.len() * 4, 0);
    for (d, &v) in bytes[at..].chunks_exact_mut(4).zip(values) {
        d.copy_from_slice(&to_le(v));
    }
}

/// Writes a region file's values (adding the checksum trailer) safely: temporary name, sync, rename.
pub(super) fn write_bytes(path: &Path, values: &[u8]) -> Result<(), RegionError> {
    let crc = crc32fast::hash(values);
    let mut trailer = [0u8; 8];
    trailer[..4].copy_from_slice(TRAILER);
    trailer[4..].copy_from_slice(&crc.to_le_bytes());
    write_safely(path, &[values, &trailer])
}

impl RegionMeta {
    /// Writes the header into `dir`, last and safely: a folder whose header is there holds a whole map.
    pub(super) fn write(&self, dir: &Path) -> Result<(), RegionError> {
        write_safely(&dir.join(HEADER), &[self.to_text().as_bytes()])
    }

    /// Reads the header of the map in `dir`.
    pub(super) fn read(dir: &Path) -> Result<Self, RegionError> {
        let path = dir.join(HEADER);
        let bytes = fs::read(&path)
            .or_else(|e| read_error(format!("cannot read {}: {e}", path.display())))?;
        Self::parse(bytes, &path)
    }
}

/// Writes `parts` to `path` so that a crash leaves the old file or the new one, never a mix: a temporary
/// file beside it, synced, then renamed over it.
pub(super) fn write_safely(path: &Path, parts: &[&[u8]]) -> Result<(), RegionError> {
    let fail =
        |e: std::io::Error| RegionError::Write(format!("cannot write {}: {e}", path.display()));
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let mut f = fs::File::create(&tmp).map_err(fail)?;
        for p in parts {
            f.write_all(p).map_err(fail)?;
        }
        f.sync_all().map_err(fail)?;
    }
    fs::rename(&tmp, path).map_err(fail)
}

/// Reads a region file of `count` values, checking its trailer when it has one.
pub(super) fn read_le(path: &Path, count: usize) -> Result<Vec<[u8; 4]>, RegionError> {
    let mut f = fs::File::open(path)
        .or_else(|e| read_error(format!("cannot read {}: {e}", path.display())))?;
    let mut bytes = Vec::with_capacity(count * 4 + 8);
    f.read_to_end(&mut bytes)
        .or_else(|e| read_error(format!("cannot read {}: {e}", path.display())))?;
    let n = count * 4;
    if bytes.len() == n + 8 {
        let (values, trailer) = bytes.split_at(n);
        let crc = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
        if &trailer[..4] != TRAILER || crc32fast::hash(values) != crc {
            return Err(RegionError::Damaged(format!(
                "{}: the checksum does not match: the file is damaged",
                path.display()
            )));
        }
    } else if bytes.len() != n {
        return Err(RegionError::Damaged(format!(
            "{}: {} bytes, want {} ({count} values and an 8-byte checksum): truncated or damaged",
            path.display(),
            bytes.len(),
            n + 8
        )));
    }
    Ok(bytes[..n]
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect())
}

/// Whether `name` is one of a map's files (the header or a region file, or a temporary one of them).
fn is_map_file(name: &str) -> bool {
    let name = name.strip_suffix(".tmp").unwrap_or(name);
    name == HEADER
        || name == LAYER_BASE_FILE
        || name == super::STALE_MIPS_FILE
        || ((name.starts_with('h') || name.starts_with('c'))
            && name.len() > 5
            && name.ends_with(".bin")
            && name[1..name.len() - 4].split('_').count() == 3
            && name[1..name.len() - 4]
                .split('_')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
}

/// What a new map does to a map already in its folder: `Refuse` (the default everywhere a user writes a
/// map: the old one may hold edits that exist nowhere else) or `Replace` it, when the caller says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Existing {
    #[default]
    Refuse,
    Replace,
}

impl Existing {
    /// `Replace` when `overwrite` is true.
    pub fn replace_if(overwrite: bool) -> Self {
        if overwrite {
            Self::Replace
        } else {
            Self::Refuse
        }
    }
}

/// Whether `dir` holds a map (its header is there).
pub fn map_exists(dir: &Path) -> bool {
    dir.join(HEADER).is_file()
}

/// Refuses a new map in `dir` when one is there and `existing` is `Refuse`, naming the folder.
pub fn check_new_map(dir: &Path, existing: Existing) -> Result<(), RegionError> {
    if existing == Existing::Refuse && map_exists(dir) {
        return Err(RegionError::Exists(format!(
            "{} already holds a map ({HEADER}); nothing was written. Pass overwrite = true to replace it, \
             or choose another folder",
            dir.display()
        )));
    }
    Ok(())
}

/// A folder inside a map's folder where a whole new map is written before it replaces the old one.
pub(super) struct Scratch {
    dir: PathBuf,
    path: PathBuf,
    done: bool,
}

impl Scratch {
    /// A scratch folder for a new map in `dir`; refused (nothing touched) when `dir` holds a map that
    /// `existing` does not let it replace.
    pub(super) fn new(dir: &Path, name: &str, existing: Existing) -> Result<Self, RegionError> {
        check_new_map(dir, existing)?;
        let path = dir.join(name);
        if path.exists() {
            fs::remove_dir_all(&path)
                .or_else(|e| write_error(format!("cannot clear {}: {e}", path.display())))?;
        }
        fs::create_dir_all(&path)
            .or_else(|e| write_error(format!("cannot create {}: {e}", path.display())))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            path,
            done: false,
        })
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Moves the new map over the old: region files first (each rename replaces one whole file), the
    /// header last, then the old map's files the new one does not have are removed. Other files stay.
    pub(super) fn commit(mut self) -> Result<(), RegionError> {
        let list = |d: &Path| -> Result<Vec<String>, RegionError> {
            Ok(fs::read_dir(d)
                .or_else(|e| write_error(format!("cannot list {}: {e}", d.display())))?
                .flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| is_map_file(n))
                .collect())
        };
        let new = list(&self.path)?;
        let mv = |n: &String| {
            fs::rename(self.path.join(n), self.dir.join(n)).or_else(|e| {
                write_error(format!("cannot move {}: {e}", self.dir.join(n).display()))
            })
        };
        for n in new.iter().filter(|n| *n != HEADER) {
            mv(n)?;
        }
        if let Some(h) = new.iter().find(|n| *n == HEADER) {
            mv(h)?;
        }
        for old in list(&self.dir)? {
            if !new.contains(&old) {
                let p = self.dir.join(&old);
                fs::remove_file(&p)
                    .or_else(|e| write_error(format!("cannot remove {}: {e}", p.display())))?;
            }
        }
        self.done = true;
        let _ = fs::remove_dir(&self.path);
        Ok(())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// The file a map keeps its terrain layers' sculpted ground in (`layers::LayerStack::to_bytes`).
pub const LAYER_BASE_FILE: &str = "layers.base";

/// Writes the layers' sculpted ground beside the regions (safely: old or new after a crash); no layer
/// removes the file.
pub fn write_layer_base(dir: &Path, bytes: &[u8]) -> Result<(), RegionError> {
    let path = dir.join(LAYER_BASE_FILE);
    if bytes.is_empty() {
        return match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(RegionError::Write(format!(
                "cannot remove {}: {e}",
                path.display()
            ))),
            _ => Ok(()),
        };
    }
    write_safely(&path, &[bytes])
}

/// The layers' sculpted ground saved with the map (empty when there is none).
pub fn read_layer_base(dir: &Path) -> Result<Vec<u8>, RegionError> {
    let path = dir.join(LAYER_BASE_FILE);
    match fs::read(&path) {
        Ok(b) => Ok(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(RegionError::Read(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}
