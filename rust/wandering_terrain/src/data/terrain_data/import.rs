//! `TerrainData.import_heightmap_async`: decoding a heightmap file on a worker thread (formats in
//! `terrain_core::heightmap_io`), so a big file does not stop the editor or the game.

use super::{budget_of, TerrainData};
use crate::async_job::{AsyncJob, Outcome};
use godot::classes::FileAccess;
use godot::global::Error;
use godot::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use terrain_core::heightmap_io::elevation::{self, Elevation, NoData};
use terrain_core::heightmap_io::{FileFormat, Heightmap};

/// What a worker decoded.
pub(super) enum Imported {
    Heightmap(Heightmap),
    Elevation(Elevation, NoData),
}

/// A heightmap being decoded on a worker thread; the info is the call, for messages.
pub(super) type ImportJob = AsyncJob<Result<Imported, String>, AtomicBool, String>;

#[godot_api(secondary)]
impl TerrainData {
    /// Starts `import_heightmap` on a worker thread (same arguments and formats): the file is read and
    /// decoded off the main thread; `finish_import()` installs the result (size and heights) once it is
    /// done. EXR files go through Godot's image loader and are imported at once. Returns OK when started;
    /// otherwise an error code (ERR_BUSY while another import runs, ERR_FILE_NOT_FOUND,
    /// ERR_FILE_UNRECOGNIZED) and nothing changes. Elevation files are read as
    /// `import_elevation_async(path, NODATA_HOLES)` does.
    #[func]
    fn import_heightmap_async(
        &mut self,
        path: GString,
        min_height: f64,
        max_height: f64,
        raw_width: i64,
    ) -> Error {
        if self.import_job.is_some() {
            godot_error!("TerrainData.import_heightmap_async: an import is running; finish or cancel it first");
            return Error::ERR_BUSY;
        }
        let p = path.to_string();
        if elevation::is_elevation(&p) {
            return self.import_elevation_async(path, Self::NODATA_HOLES);
        }
        let format = match FileFormat::from_path(&p) {
            Ok(f) => f,
            Err(e) => {
                godot_error!("TerrainData.import_heightmap_async: {e}");
                return Error::ERR_FILE_UNRECOGNIZED;
            }
        };
        if format == FileFormat::Exr {
            return self.import_heightmap(path, min_height, max_height, raw_width);
        }
        if !FileAccess::file_exists(&path) {
            godot_error!("TerrainData.import_heightmap_async: no file at {p}");
            return Error::ERR_FILE_NOT_FOUND;
        }
        // A file on disk is read by the worker too; one inside a pack is read here (Godot's file API).
        let disk = super::elevation::disk_path(&path);
        let bytes = if disk.is_file() {
            None
        } else {
            Some(FileAccess::get_file_as_bytes(&path).to_vec())
        };
        let budget = budget_of(self.sample_budget);
        let what = format!("import_heightmap_async({p})");
        self.import_job = Some(AsyncJob::start(what, move |stop: &AtomicBool| {
            let bytes = match bytes {
                Some(b) => b,
                None => std::fs::read(&disk)
                    .map_err(|e| format!("cannot read {}: {e}", disk.display()))?,
            };
            if stop.load(Ordering::Relaxed) {
                return Err("cancelled".into());
            }
            let w = raw_width.max(0) as usize;
            format
                .decode(&bytes, min_height, max_height, w, budget)
                .map(Imported::Heightmap)
                .map_err(|e| e.to_string())
        }));
        Error::OK
    }

    /// Starts `import_elevation` on a worker thread; `finish_import()` installs the result. Returns OK when
    /// started; otherwise an error code (ERR_INVALID_PARAMETER for a bad `nodata`, ERR_FILE_NOT_FOUND,
    /// ERR_BUSY while another import runs) and nothing changes.
    #[func]
    fn import_elevation_async(&mut self, path: GString, nodata: i64) -> Error {
        let what = format!("import_elevation_async({path})");
        if self.import_job.is_some() {
            godot_error!("TerrainData.{what}: an import is running; finish or cancel it first");
            return Error::ERR_BUSY;
        }
        let Some(nodata) = super::elevation::nodata_of(nodata, &format!("TerrainData.{what}"))
        else {
            return Error::ERR_INVALID_PARAMETER;
        };
        let file = super::elevation::disk_path(&path);
        if !file.is_file() {
            godot_error!("TerrainData.{what}: no file at {path}");
            return Error::ERR_FILE_NOT_FOUND;
        }
        let budget = budget_of(self.sample_budget);
        self.import_job = Some(AsyncJob::start(what, move |_| {
            elevation::read_all(&[file], budget)
                .map(|e| Imported::Elevation(e, nodata))
                .map_err(|e| e.to_string())
        }));
        Error::OK
    }

    /// -1 when no import runs, 0 while the file is read and decoded, 1 when it is ready for
    /// `finish_import()`.
    #[func]
    fn get_import_progress(&self) -> f64 {
        match &self.import_job {
            None => -1.0,
            Some(j) if !j.is_running() => 1.0,
            Some(_) => 0.0,
        }
    }

    /// Asks the running import to stop; `finish_import()` then changes nothing.
    #[func]
    pub(super) fn cancel_import(&mut self) {
        if let Some(j) = &self.import_job {
            j.cancel();
        }
    }

    /// Installs a finished import (size and heights; `changed` and `region_changed` are emitted) and returns
    /// true; false while it still runs; true with nothing to do when none runs. A cancelled or failed import
    /// changes nothing (a failure logs an error naming the file).
    #[func]
    fn finish_import(&mut self) -> bool {
        let job = match AsyncJob::take_ended(&mut self.import_job) {
            Ok(job) => job,
            Err(none) => return none,
        };
        match job.finish() {
            (Outcome::Done(Ok(Imported::Heightmap(h))), what) => {
                self.install(h, &what);
            }
            (Outcome::Done(Ok(Imported::Elevation(e, nodata))), what) => {
                self.install_elevation(e, nodata, &what);
            }
            (Outcome::Cancelled, _) => {}
            (Outcome::Done(Err(e)), what) => {
                godot_error!("TerrainData.{what}: {e}; nothing changed")
            }
            (Outcome::Failed, what) => {
                godot_error!("TerrainData.{what}: the import failed; nothing changed")
            }
        }
        true
    }
}
