//! `TerrainData.import_elevation` and `get_import_info`: real-world elevation files (GeoTIFF, SRTM `.hgt`,
//! ESRI ASCII grids; readers in `terrain_core::heightmap_io::elevation`) imported with their own spacing,
//! NoData cut as holes or filled.

use super::{budget_of, TerrainData};
use godot::classes::ProjectSettings;
use godot::global::Error;
use godot::prelude::*;
use std::path::PathBuf;
use terrain_core::control::HOLE;
use terrain_core::heightmap_io::elevation::{self, Elevation, ElevationInfo, NoData};
use terrain_core::terrain_data as core;

/// A path Godot knows (res://, user:// or on disk) as a path on disk.
pub(crate) fn disk_path(p: &GString) -> PathBuf {
    PathBuf::from(ProjectSettings::singleton().globalize_path(p).to_string())
}

/// The Godot error for a heightmap or elevation file's failure (one mapping for every import and export).
pub(crate) fn import_error_code(e: &terrain_core::heightmap_io::HeightmapError) -> Error {
    use terrain_core::heightmap_io::HeightmapError as H;
    match e {
        H::Format(_) => Error::ERR_FILE_CORRUPT,
        H::Read(_) => Error::ERR_FILE_CANT_READ,
        H::Write(_) => Error::ERR_FILE_CANT_WRITE,
        H::Invalid(_) => Error::ERR_INVALID_PARAMETER,
        H::Cancelled(_) => Error::ERR_SKIP,
    }
}

/// `nodata` as given to the import functions.
pub(crate) fn nodata_of(v: i64, what: &str) -> Option<NoData> {
    match v {
        0 => Some(NoData::Holes),
        1 => Some(NoData::Fill),
        _ => {
            godot_error!(
                "{what}: nodata must be NODATA_HOLES (0) or NODATA_FILL (1), got {v}; nothing changed"
            );
            None
        }
    }
}

/// The header facts of a file as the Dictionary `get_import_info` returns.
pub(crate) fn info_dictionary(i: &ElevationInfo) -> VarDictionary {
    let mut d = VarDictionary::new();
    d.set("format", i.format);
    d.set("size", Vector2i::new(i.width as i32, i.depth as i32));
    d.set("spacing", i.spacing[1]);
    d.set(
        "spacing_xz",
        Vector2::new(i.spacing[0] as f32, i.spacing[1] as f32),
    );
    d.set("spacing_known", i.spacing_known);
    d.set("geographic", i.geographic);
    d.set("projection", i.projection.as_str());
    d.set("origin_x", i.origin[0]);
    d.set("origin_y", i.origin[1]);
    d.set("sample_format", i.sample_format);
    match i.nodata {
        Some(v) => d.set("nodata_value", v),
        None => d.set("nodata_value", &Variant::nil()),
    }
    d
}

#[godot_api(secondary)]
impl TerrainData {
    /// NoData samples become holes (their heights filled from the neighbours underneath).
    #[constant]
    pub const NODATA_HOLES: i64 = 0;
    /// NoData samples are filled from their neighbours.
    #[constant]
    pub const NODATA_FILL: i64 = 1;

    /// What an elevation file (`.tif`/`.tiff` GeoTIFF, `.hgt` SRTM tile, `.asc` ESRI ASCII grid) holds,
    /// before importing it: `format`, `size` (Vector2i), `spacing` (metres north–south, what an import
    /// uses), `spacing_xz` (east–west and north–south metres; geographic data is converted at the map's
    /// latitude), `spacing_known`, `geographic`, `projection` ("EPSG:…" or ""), `origin_x`/`origin_y` (the
    /// north-west sample in the file's coordinates), `sample_format`, `nodata_value` (or null),
    /// `height_range` (Vector2 of the samples present) and `nodata_count`. Reads the whole file once (by
    /// blocks of rows, whatever its size). An empty Dictionary, with an error naming the file, when it
    /// cannot be read.
    #[func]
    fn get_import_info(path: GString) -> VarDictionary {
        let file = disk_path(&path);
        let res = elevation::open(std::slice::from_ref(&file)).and_then(|mut r| {
            let s = elevation::scan(r.as_mut())?;
            Ok((r.info().clone(), s))
        });
        match res {
            Ok((i, s)) => {
                let mut d = info_dictionary(&i);
                d.set("height_range", Vector2::new(s.range.0, s.range.1));
                d.set("nodata_count", s.nodata_count as i64);
                d
            }
            Err(e) => {
                godot_error!("TerrainData.get_import_info: {e}");
                VarDictionary::new()
            }
        }
    }

    /// Imports an elevation file (`.tif`/`.tiff`, `.hgt`, `.asc`): `size` becomes the file's, heights are
    /// its metres as stored, `spacing` its north–south sample spacing in metres (unchanged when the file
    /// does not say). Missing samples (the file's NoData value, NaN, ±inf, beyond ±1e9) are filled from
    /// their neighbours and, with `NODATA_HOLES`, cut as holes. A file of more than `sample_budget`
    /// samples is refused: import it into a region map (`TerrainRegions.import_heightmaps`). Nothing
    /// changes on error.
    #[func]
    pub(super) fn import_elevation(&mut self, path: GString, nodata: i64) -> Error {
        let what = format!("import_elevation({path})");
        let Some(nodata) = nodata_of(nodata, &format!("TerrainData.{what}")) else {
            return Error::ERR_INVALID_PARAMETER;
        };
        // As the other imports: a missing file is ERR_FILE_NOT_FOUND (a file that cannot be read, CANT_READ).
        if !disk_path(&path).is_file() {
            godot_error!("TerrainData.{what}: no file at {path}; nothing changed");
            return Error::ERR_FILE_NOT_FOUND;
        }
        match elevation::read_all(&[disk_path(&path)], budget_of(self.sample_budget)) {
            Ok(e) => self.install_elevation(e, nodata, &what),
            Err(e) => {
                godot_error!("TerrainData.{what}: {e}; nothing changed");
                import_error_code(&e)
            }
        }
    }
}

impl TerrainData {
    /// Installs an elevation file read in full: heights, spacing and (with `NoData::Holes`) holes.
    pub(super) fn install_elevation(&mut self, e: Elevation, nodata: NoData, what: &str) -> Error {
        let spacing = if e.info.spacing_known {
            e.info.spacing[1]
        } else {
            self.core.spacing()
        };
        let holes = nodata == NoData::Holes && e.missing.iter().any(|&m| m);
        let made = core::TerrainData::from_heights(e.width, e.depth, spacing, e.heights).and_then(
            |mut t| {
                if holes {
                    t.set_control_map(
                        e.missing
                            .iter()
                            .map(|&m| if m { HOLE } else { 0 })
                            .collect(),
                    )?;
                }
                Ok(t)
            },
        );
        match made {
            Ok(t) => {
                self.replace(t);
                Error::OK
            }
            Err(e) => {
                godot_error!("TerrainData.{what}: {e}; nothing changed");
                Error::ERR_INVALID_DATA
            }
        }
    }
}
