//! Saving a `TerrainRegions`: the edited regions written to the folder, on the calling thread (`save`) or
//! a worker with progress (`save_async`). A map stored whole refreshes the levels above them first; a
//! generator-backed (or endless) map writes a record of its stale levels instead (`stale.mips`), which
//! the next reader refreshes: its first save after an edit generates no coarser region.

use super::{error_code, TerrainRegions};
use crate::async_job::{AsyncJob, Outcome};
use godot::global::Error;
use godot::prelude::*;
use terrain_core::progress::Progress;
use terrain_core::terrain_regions::RegionError;

/// A save on a worker thread: regions written, or the error.
pub(super) type RegionSave = AsyncJob<Result<usize, RegionError>, Progress>;

#[godot_api(secondary)]
impl TerrainRegions {
    /// Writes the edited regions (and the levels above them) to the folder — only those; each file is
    /// written to a temporary name, synced and renamed, the header last, so a crash leaves every region
    /// old or new. OK when nothing waits; an error naming the file otherwise (the edits stay unsaved).
    /// The calling thread waits (a running `save_async` first); for a progress bar use `save_async`.
    #[func]
    fn save(&mut self) -> Error {
        let Some(s) = self.store() else {
            godot_error!("TerrainRegions.save: no folder is open");
            return Error::ERR_UNCONFIGURED;
        };
        let running = self.wait_for_save();
        if running != Error::OK {
            return running;
        }
        let res = s.save();
        self.saved("TerrainRegions.save", res)
    }

    /// Starts `save()` on a worker thread: poll `get_save_progress()` and call `finish_save()` (e.g. once a
    /// frame) until it returns something other than ERR_BUSY. Edits may go on meanwhile: each is written
    /// by this save or stays unsaved for the next (none is lost, no file is half written). Returns OK when started
    /// (or when nothing waits to be saved), ERR_BUSY while a save runs, ERR_UNCONFIGURED without a folder.
    #[func]
    fn save_async(&mut self) -> Error {
        let Some(s) = self.store() else {
            godot_error!("TerrainRegions.save_async: no folder is open");
            return Error::ERR_UNCONFIGURED;
        };
        if self.saving.is_some() {
            godot_error!("TerrainRegions.save_async: a save is running; call finish_save() first");
            return Error::ERR_BUSY;
        }
        self.saving = Some(AsyncJob::start((), move |p| s.save_counting(p)));
        Error::OK
    }

    /// -1 when no save runs; the share done, [0, 1), while one runs (a stored map's coarser levels
    /// refreshed, then each region written); 1 when it is ready for `finish_save()`.
    #[func]
    fn get_save_progress(&self) -> f64 {
        crate::async_job::progress_of(&self.saving)
    }

    /// Ends a finished `save_async`: OK when it saved (or none runs), ERR_BUSY while it runs, or the
    /// error of the file it could not write (logged; the edits stay unsaved).
    #[func]
    fn finish_save(&mut self) -> Error {
        match AsyncJob::take_ended(&mut self.saving) {
            Ok(job) => self.end_save(job),
            Err(true) => Error::OK,
            Err(false) => Error::ERR_BUSY,
        }
    }
}

impl TerrainRegions {
    /// Waits for a running `save_async` and ends it (a second save must not write the same files at the
    /// same time); OK when none ran.
    pub(super) fn wait_for_save(&mut self) -> Error {
        match self.saving.take() {
            None => Error::OK,
            Some(job) => self.end_save(job),
        }
    }

    /// Joins a save job (at once when it has ended) and reports how it went.
    fn end_save(&mut self, job: RegionSave) -> Error {
        let res = match job.finish().0 {
            Outcome::Done(r) => r,
            Outcome::Cancelled | Outcome::Failed => {
                Err(RegionError::Write("the save stopped before its end".into()))
            }
        };
        self.saved("TerrainRegions.save_async", res)
    }

    /// After the regions were written: the layers' sculpted ground beside them (on this thread: it lives
    /// in this resource), and the error reported by `what`.
    fn saved(&mut self, what: &str, res: Result<usize, RegionError>) -> Error {
        match res.and_then(|_| self.save_layer_base()) {
            Ok(_) => {
                // The save's buffers are free now, and the frames since the last save left free memory
                // behind live allocations: given back to the system (`free_memory.rs`).
                terrain_core::free_memory::return_free_pages();
                Error::OK
            }
            Err(e) => {
                godot_error!("{what}: {e}; the edits stay unsaved");
                error_code(&e)
            }
        }
    }
}
