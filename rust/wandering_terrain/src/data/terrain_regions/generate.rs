//! `TerrainRegions.generate` and `generate_async`: a generator's terrain written to a region folder, on the
//! calling thread or a worker with progress (the same job slot as imports: one folder job at a time).

use super::{error_code, TerrainRegions};
use crate::async_job::AsyncJob;
use crate::data::terrain_data::elevation::disk_path;
use crate::data::terrain_generator::TerrainGenerator;
use godot::global::Error;
use godot::prelude::*;
use std::path::PathBuf;
use terrain_core::generation::Generated;
use terrain_core::progress::Progress;
use terrain_core::terrain_regions::{self as core, Existing, RegionMeta};

/// Checked arguments of a generation: the generator's terrain, the map's header, the folder on disk;
/// or the error code (the error message, naming `what`, is logged).
fn arguments(
    what: &str,
    generator: Option<Gd<TerrainGenerator>>,
    size: Vector2i,
    spacing: f64,
    folder: &GString,
    region_size: i64,
) -> Result<(Generated, RegionMeta, PathBuf), Error> {
    let Some(g) = generator else {
        godot_error!("{what}: generator must be a TerrainGenerator, got null");
        return Err(Error::ERR_INVALID_PARAMETER);
    };
    let gen = Generated::new(&g.bind().params(), spacing).map_err(|e| {
        godot_error!("{what}: {e}");
        Error::ERR_INVALID_PARAMETER
    })?;
    let meta = RegionMeta::new(
        size.x.max(0) as usize,
        size.y.max(0) as usize,
        spacing,
        region_size.clamp(0, 1 << 20) as usize,
    )
    .map_err(|e| {
        godot_error!("{what}: {e}");
        error_code(&e)
    })?;
    Ok((gen, meta, disk_path(folder)))
}

/// Writes `gen`'s terrain as `meta` describes into `dir`, counting regions in `progress`.
fn write(
    gen: &Generated,
    meta: RegionMeta,
    dir: &std::path::Path,
    existing: Existing,
    progress: &Progress,
) -> Result<RegionMeta, core::RegionError> {
    let r = meta.region;
    let source = |rx: usize, rz: usize, [w, d]: [usize; 2]| {
        let mut h = Vec::with_capacity(w * d);
        for z in 0..d {
            for x in 0..w {
                h.push(gen.height((rx * r + x) as i64, (rz * r + z) as i64));
            }
        }
        (h, Vec::new())
    };
    core::write_regions_with(dir, meta, existing, &source, progress)
}

#[godot_api(secondary)]
impl TerrainRegions {
    /// Writes the terrain of `generator` (`size` samples, `spacing` apart) to `folder` as region files of
    /// `region_size`² samples, without holding the map in memory. Disk: about 5.3 bytes a sample with the
    /// mips (4096²: 90 MB, seconds; 65536²: 23 GB, minutes); the calling thread waits — for a progress bar
    /// use `generate_async`. Returns OK, or an error code (with an error message): ERR_INVALID_PARAMETER
    /// on bad input, ERR_ALREADY_EXISTS when `folder` holds a map and `overwrite` is false (nothing is
    /// written), ERR_FILE_CANT_WRITE when a file cannot be written.
    #[func]
    fn generate(
        generator: Option<Gd<TerrainGenerator>>,
        size: Vector2i,
        spacing: f64,
        folder: GString,
        region_size: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> Error {
        let what = "TerrainRegions.generate";
        let (gen, meta, dir) = match arguments(what, generator, size, spacing, &folder, region_size)
        {
            Ok(a) => a,
            Err(e) => return e,
        };
        let existing = Existing::replace_if(overwrite);
        match write(&gen, meta, &dir, existing, &Progress::default()) {
            Ok(_) => Error::OK,
            Err(e) => {
                godot_error!("{what}: {e}");
                error_code(&e)
            }
        }
    }

    /// Starts `generate` on a worker thread and opens `folder` here when done: poll
    /// `get_generation_progress()` (the share of regions written) and call `finish_generation()` (e.g. once a
    /// frame) until it returns true; `cancel_generation()` stops it and leaves the folder as it was. Returns
    /// OK when started; otherwise an error code (ERR_BUSY while a generation or an import runs here, or
    /// `generate`'s for bad input) and nothing starts.
    #[func]
    fn generate_async(
        &mut self,
        generator: Option<Gd<TerrainGenerator>>,
        size: Vector2i,
        spacing: f64,
        folder: GString,
        region_size: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> Error {
        let what = "TerrainRegions.generate_async";
        if self.import.is_some() {
            godot_error!("{what}: a generation or an import is running; finish or cancel it first");
            return Error::ERR_BUSY;
        }
        let (gen, meta, dir) = match arguments(what, generator, size, spacing, &folder, region_size)
        {
            Ok(a) => a,
            Err(e) => return e,
        };
        let existing = Existing::replace_if(overwrite);
        if let Err(e) = core::check_new_map(&dir, existing) {
            godot_error!("{what}: {e}");
            return Error::ERR_ALREADY_EXISTS;
        }
        self.import = Some(AsyncJob::start((folder, what.into()), move |p| {
            write(&gen, meta, &dir, existing, p).map_err(|e| e.to_string())
        }));
        Error::OK
    }

    /// -1 when no generation runs; the share of regions written, [0, 1), while one runs; 1 when it is
    /// ready for `finish_generation()`. (One job runs at a time: during an import this is its progress.)
    #[func]
    fn get_generation_progress(&self) -> f64 {
        self.get_import_progress()
    }

    /// Asks the running generation to stop; the folder keeps what it held.
    #[func]
    fn cancel_generation(&mut self) {
        self.cancel_import();
    }

    /// Opens the folder of a finished generation and returns true; false while it runs, or when it failed
    /// (with an error) or was cancelled; true with nothing to do when none runs.
    #[func]
    fn finish_generation(&mut self) -> bool {
        self.finish_import()
    }
}
