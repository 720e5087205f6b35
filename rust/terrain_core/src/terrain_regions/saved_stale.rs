//! The stale-mips record of a generator-backed map: the rectangles of coarser levels an edit made stale
//! and no save has refreshed, kept in `stale.mips` beside the regions. Saving such a map writes its
//! edited regions and this record instead of refreshing every coarser level first: on an endless map the
//! refresh generates a region at each of 16 levels (a second of work an untouched map never does unless
//! it draws there). Whoever reads a level later (a far ring, the background lane) refreshes it as before.
//!
//! A text file, one rectangle a line: `level x0 z0 x1 z1` (mip-0 samples, inclusive). Listing a rectangle
//! too many is harmless (a refresh is a box filter of what is below), one too few would leave a coarse
//! level out of date, so a save first writes the old record, the new one and the coarser regions it is
//! about to write, then its regions, then the new record: a crash between leaves a record that still
//! covers every level whose file may be old. A height edit and the save's snapshot exclude each other
//! (`edit_gate`), so no saved sample lacks the record of the levels above it.

use super::error::write_error;
use super::files::write_safely;
use super::mips::Rect;
use super::{RegionError, TerrainRegions};
use std::fs;
use std::path::Path;

/// The record's file name in a map's folder.
pub const STALE_MIPS_FILE: &str = "stale.mips";

/// Rectangles of coarser levels: (level, mip-0 rectangle).
pub(super) type StaleList = Vec<(usize, Rect)>;

/// The record in `dir`, empty when there is none; None when it cannot be read or parsed (then every
/// stored region counts as stale, see `restore_saved_stale`).
pub(super) fn read(dir: &Path) -> Option<StaleList> {
    let text = match fs::read_to_string(dir.join(STALE_MIPS_FILE)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Vec::new()),
        Err(_) => return None,
    };
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Vec<usize> = line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        match v[..] {
            [m, x0, z0, x1, z1] if m >= 1 && x0 <= x1 && z0 <= z1 => {
                out.push((m, [x0, z0, x1, z1]))
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Writes the record (safely: the old file or the new one after a crash); an empty list removes it.
pub(super) fn write(dir: &Path, list: &StaleList) -> Result<(), RegionError> {
    let path = dir.join(STALE_MIPS_FILE);
    if list.is_empty() {
        return match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                write_error(format!("cannot remove {}: {e}", path.display()))
            }
            _ => Ok(()),
        };
    }
    let mut text = String::with_capacity(list.len() * 40);
    for (m, [x0, z0, x1, z1]) in list {
        text.push_str(&format!("{m} {x0} {z0} {x1} {z1}\n"));
    }
    write_safely(&path, &[text.as_bytes()])
}

impl TerrainRegions {
    /// Saves a generator-backed map's edits: its dirty regions and the record of the coarser levels still
    /// stale (see the module). `progress` counts the regions written. Returns the regions written.
    pub(super) fn save_deferring_mips(
        &self,
        progress: &crate::progress::Progress,
    ) -> Result<usize, RegionError> {
        // Both taken while no refresh runs: a rectangle refreshed after this is in the record, and the
        // region it refreshed is either in the snapshot or derived from the record again.
        // No height edit is half done either (its samples written, its stale levels not yet noted).
        let (stale, snapshot) = {
            let _one = self.settling.lock().expect("mips refresh");
            let _edits = self.edit_gate.write().expect("edit gate");
            (self.stale_list(), self.dirty_snapshot())
        };
        if snapshot.is_empty() {
            progress.set_total(progress.done());
            return Ok(0);
        }
        progress.set_total(progress.done() + snapshot.len() as u64);
        // First a record covering whatever a crash part-way could leave behind: the old record, what is
        // stale, and the coarser regions about to be written (their files may stay the old ones).
        let mut first = self
            .read_checked()
            .unwrap_or_else(|| self.stored_region_rects());
        first.extend(stale.iter().copied());
        first.extend(
            snapshot
                .iter()
                .filter(|((m, _, _), _, _)| *m > 0)
                .map(|&((m, rx, rz), _, _)| (m as usize, self.region_rect(m, rx, rz))),
        );
        write(&self.dir, &first)?;
        self.write_snapshot(&snapshot, progress)?;
        write(&self.dir, &stale)?;
        self.finish_save(&snapshot)
    }

    /// Lists the record's rectangles as stale again (on opening, and when unsaved edits are discarded).
    /// A record that cannot be read makes every level over every stored region of the finest level
    /// stale: slower to refresh, never out of date.
    pub(super) fn restore_saved_stale(&self) {
        let list = self
            .read_checked()
            .unwrap_or_else(|| self.stored_region_rects());
        if !list.is_empty() {
            self.mark_stale(&list);
        }
    }

    /// The record, None when it cannot be read or names a level or sample outside this map.
    fn read_checked(&self) -> Option<StaleList> {
        let list = read(&self.dir)?;
        let [w, d] = self.meta.mip_size(0);
        let mips = self.meta.mips as usize;
        let fits = |&(m, [_, _, x1, z1]): &(usize, Rect)| m < mips && x1 < w && z1 < d;
        list.iter().all(fits).then_some(list)
    }

    /// Region (m, rx, rz) as a rectangle of mip-0 samples (clamped to the map).
    fn region_rect(&self, m: u32, rx: usize, rz: usize) -> Rect {
        let r = self.meta.region;
        let [w, d] = self.meta.region_dims(m, rx, rz);
        let [mw, md] = self.meta.mip_size(0);
        let (x0, z0) = ((rx * r) << m, (rz * r) << m);
        let (x1, z1) = (((rx * r + w) << m) - 1, ((rz * r + d) << m) - 1);
        [x0, z0, x1.min(mw - 1), z1.min(md - 1)]
    }

    /// Every stored region of the finest level as a stale rectangle of every coarser level.
    fn stored_region_rects(&self) -> StaleList {
        let r = self.meta.region;
        let mut out = Vec::new();
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return out;
        };
        for name in entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
        {
            let Some(rest) = name
                .strip_prefix("h0_")
                .and_then(|n| n.strip_suffix(".bin"))
            else {
                continue;
            };
            let Some((Ok(rx), Ok(rz))) = rest.split_once('_').map(|(a, b)| (a.parse(), b.parse()))
            else {
                continue;
            };
            let [nx, nz] = self.meta.regions(0);
            if rx >= nx || rz >= nz {
                continue;
            }
            let [w, d] = self.meta.region_dims(0, rx, rz);
            let rect = [rx * r, rz * r, rx * r + w - 1, rz * r + d - 1];
            out.extend((1..self.meta.mips as usize).map(|m| (m, rect)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::{Generated, NoiseParams};
    use crate::samples::Samples;
    use crate::terrain_regions::generated::{create, fallback};
    use crate::terrain_regions::Existing;
    use std::sync::Arc;

    /// Level m's samples over the mip-0 rectangle (x, z, w, d).
    fn levels(r: &TerrainRegions, x: usize, z: usize, w: usize, d: usize) -> Vec<[f32; 3]> {
        (1..r.meta().mips)
            .flat_map(|m| {
                let v = r.mip(m);
                let (x0, z0, x1, z1) = (x >> m, z >> m, (x + w - 1) >> m, (z + d - 1) >> m);
                (z0..=z1)
                    .flat_map(move |j| (x0..=x1).map(move |i| (i, j)))
                    .map(move |(i, j)| v.texel(i as i64, j as i64))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// A record survives discarding edits made after it, and a damaged record still brings every
    /// coarser level over the stored regions up to date.
    #[test]
    fn the_record_outlives_a_discard_and_a_damaged_one_costs_time_not_samples() {
        let dir = std::env::temp_dir().join(format!("wt_saved_stale_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let g = Arc::new(Generated::new(&NoiseParams::default(), 1.0).unwrap());
        let r = create(&dir, g.clone(), [1000, 700], 1.0, 64, Existing::Refuse).unwrap();
        r.set_heights_region(130, 140, 10, 10, &[7.0; 100]).unwrap();
        r.save().unwrap();
        assert_eq!(
            read(&dir).map(|l| l.len()),
            Some(r.meta().mips as usize - 1)
        );
        // Read after the save: refreshed from the record, not an unsaved change.
        let edited = levels(&r, 130, 140, 10, 10);
        assert!(!r.has_unsaved());

        let open = || TerrainRegions::open_with(&dir, fallback(g.clone(), *r.meta())).unwrap();
        let again = open();
        assert_eq!(levels(&again, 130, 140, 10, 10), edited);
        // An edit over the same place, then discarded: the levels are the saved edit's again, not the
        // generator's (the refreshed regions were forgotten with the edit, the record listed again).
        again
            .set_heights_region(128, 128, 20, 20, &[-9.0; 400])
            .unwrap();
        assert_ne!(levels(&again, 130, 140, 10, 10), edited);
        again.discard_changes();
        assert!(!again.has_unsaved());
        assert_eq!(levels(&again, 130, 140, 10, 10), edited);

        // A damaged record: every level over the stored region is refreshed (whole regions: samples
        // beside the edit may be filtered where the session kept the generator's nearest sample).
        let centre = |r: &TerrainRegions| [r.mip(1).texel(67, 72)[0], r.mip(2).texel(33, 36)[0]];
        std::fs::write(dir.join(STALE_MIPS_FILE), "2 1 x\n").unwrap();
        assert_eq!(read(&dir), None);
        assert_eq!(centre(&open()), [7.0, 7.0]);
        // A record naming samples outside the map counts as damaged (it would make a refresh underflow).
        std::fs::write(dir.join(STALE_MIPS_FILE), "2 0 0 5000000 3\n").unwrap();
        assert!(read(&dir).is_some());
        assert_eq!(centre(&open()), [7.0, 7.0]);
        std::fs::remove_file(dir.join(STALE_MIPS_FILE)).unwrap();
        assert!(
            centre(&open()).iter().all(|&h| h != 7.0),
            "without the record the levels are the generator's: the record is what keeps them"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
