//! `TerrainRegions.import_heightmaps`: elevation files (GeoTIFF, SRTM `.hgt` mosaics, ESRI ASCII grids)
//! streamed into a region folder a block of rows at a time (`terrain_core::heightmap_io::elevation::
//! import_regions`), so files larger than memory import; on the calling thread or a worker.

use super::TerrainRegions;
use crate::async_job::{AsyncJob, Outcome};
use crate::data::terrain_data::elevation::{disk_path, import_error_code, nodata_of};
use godot::global::Error;
use godot::prelude::*;
use std::path::PathBuf;
use terrain_core::heightmap_io::elevation::{self, NoData};
use terrain_core::progress::Progress;
use terrain_core::terrain_regions::{check_new_map, Existing, RegionMeta};

/// An import running on a worker thread; the info is the folder to open and the call, for messages.
pub(super) type RegionImport = AsyncJob<Result<RegionMeta, String>, Progress, (GString, String)>;

/// Checked arguments: (files on disk, folder on disk, region size, NoData handling), or the error code
/// (the error message is logged).
fn arguments(
    paths: &PackedStringArray,
    folder: &GString,
    region_size: i64,
    nodata: i64,
    overwrite: bool,
    what: &str,
) -> Result<(Vec<PathBuf>, PathBuf, usize, NoData), Error> {
    let nodata = nodata_of(nodata, what).ok_or(Error::ERR_INVALID_PARAMETER)?;
    if paths.is_empty() {
        godot_error!("{what}: paths is empty; give one file or the .hgt tiles of a mosaic");
        return Err(Error::ERR_INVALID_PARAMETER);
    }
    if folder.is_empty() {
        godot_error!("{what}: folder is empty");
        return Err(Error::ERR_INVALID_PARAMETER);
    }
    let files: Vec<PathBuf> = paths.as_slice().iter().map(disk_path).collect();
    if let Some(f) = files.iter().find(|f| !f.is_file()) {
        godot_error!("{what}: no file at {}", f.display());
        return Err(Error::ERR_FILE_NOT_FOUND);
    }
    let region = region_size.clamp(0, 1 << 20) as usize;
    if let Err(e) = terrain_core::terrain_regions::check_region_size(region) {
        godot_error!("{what}: {e}; nothing changed");
        return Err(Error::ERR_INVALID_PARAMETER);
    }
    let dir = disk_path(folder);
    if let Err(e) = check_new_map(&dir, Existing::replace_if(overwrite)) {
        godot_error!("{what}: {e}");
        return Err(Error::ERR_ALREADY_EXISTS);
    }
    Ok((files, dir, region, nodata))
}

#[godot_api(secondary)]
impl TerrainRegions {
    /// Imports an elevation file (`.tif`/`.tiff`, `.hgt`, `.asc`) into `folder` as region files of
    /// `region_size`² samples (a power of two in [16, 4096]) and opens it here. The file is read a block of
    /// rows at a time, so it may be larger than memory (memory: `region_size` rows of the map). Heights are
    /// the file's metres; the spacing its north–south spacing in metres. `nodata` is
    /// `TerrainData.NODATA_HOLES` or `NODATA_FILL`. Returns OK, or an error code with an error naming the
    /// file (ERR_INVALID_PARAMETER, ERR_FILE_NOT_FOUND, ERR_FILE_CANT_READ, ERR_FILE_CORRUPT for a file
    /// that cannot be imported, ERR_FILE_CANT_WRITE when the folder cannot be written, ERR_ALREADY_EXISTS
    /// when `folder` holds a map and `overwrite` is false); the folder then holds what it held before.
    #[func]
    fn import_heightmap(
        &mut self,
        path: GString,
        folder: GString,
        region_size: i64,
        nodata: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> Error {
        let mut paths = PackedStringArray::new();
        paths.push(&path);
        self.import_heightmaps(paths, folder, region_size, nodata, overwrite)
    }

    /// `import_heightmap` for several SRTM `.hgt` tiles making one map (placed by the south-west corners in
    /// their names, sharing their edge samples; tiles missing inside the box are NoData), or one file.
    #[func]
    fn import_heightmaps(
        &mut self,
        paths: PackedStringArray,
        folder: GString,
        region_size: i64,
        nodata: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> Error {
        let what = "TerrainRegions.import_heightmaps";
        let (files, dir, region, nodata) =
            match arguments(&paths, &folder, region_size, nodata, overwrite, what) {
                Ok(a) => a,
                Err(e) => return e,
            };
        let existing = Existing::replace_if(overwrite);
        match elevation::import_regions(
            &files,
            &dir,
            region,
            nodata,
            existing,
            &Progress::default(),
        ) {
            Ok(_) => {
                self.set_folder(folder.clone());
                if self.store.is_some() {
                    Error::OK
                } else {
                    Error::ERR_CANT_OPEN
                }
            }
            Err(e) => {
                godot_error!("{what}: {e}; nothing changed");
                import_error_code(&e)
            }
        }
    }

    /// Starts `import_heightmaps` on a worker thread; poll `get_import_progress()` and call
    /// `finish_import()` to open the folder. Returns OK when started; otherwise an error code (ERR_BUSY while
    /// another import runs, or `import_heightmaps`'s for bad input) and nothing starts.
    #[func]
    fn import_heightmaps_async(
        &mut self,
        paths: PackedStringArray,
        folder: GString,
        region_size: i64,
        nodata: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> Error {
        let what = "TerrainRegions.import_heightmaps_async";
        if self.import.is_some() {
            godot_error!("{what}: an import is running; finish or cancel it first");
            return Error::ERR_BUSY;
        }
        let (files, dir, region, nodata) =
            match arguments(&paths, &folder, region_size, nodata, overwrite, what) {
                Ok(a) => a,
                Err(e) => return e,
            };
        let existing = Existing::replace_if(overwrite);
        self.import = Some(AsyncJob::start((folder, what.into()), move |p| {
            elevation::import_regions(&files, &dir, region, nodata, existing, p)
                .map_err(|e| e.to_string())
        }));
        Error::OK
    }

    /// -1 when no import runs; the share of rows read, [0, 1), while one runs; 1 when it is ready for
    /// `finish_import()`.
    #[func]
    pub(super) fn get_import_progress(&self) -> f64 {
        crate::async_job::progress_of(&self.import)
    }

    /// Asks the running import to stop; the folder keeps what it held.
    #[func]
    pub(super) fn cancel_import(&mut self) {
        if let Some(j) = &self.import {
            j.cancel();
        }
    }

    /// Opens the folder of a finished import and returns true; false while it runs or when it failed or was
    /// cancelled (a failure logs an error naming the file); true with nothing to do when none runs.
    #[func]
    pub(super) fn finish_import(&mut self) -> bool {
        let job = match AsyncJob::take_ended(&mut self.import) {
            Ok(job) => job,
            Err(none) => return none,
        };
        match job.finish() {
            (Outcome::Done(Ok(_)), (folder, _)) => {
                self.set_folder(folder);
                self.store.is_some()
            }
            (Outcome::Cancelled, _) => false,
            (Outcome::Done(Err(e)), (_, what)) => {
                godot_error!("{what}: {e}; nothing changed");
                false
            }
            (Outcome::Failed, (_, what)) => {
                godot_error!("{what}: the import failed; nothing changed");
                false
            }
        }
    }
}
