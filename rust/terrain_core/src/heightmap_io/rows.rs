//! What every elevation format reader shares: the header they report (`ElevationInfo`), the trait they
//! implement (`RowReader`), and the helpers they read values with. `elevation` picks a reader by file and
//! drives it; the readers depend only on this.

use super::HeightmapError;
use crate::terrain_data::MAX_HEIGHT_VALUE;
use std::path::{Path, PathBuf};

/// What a file's header says (no pass over the samples).
#[derive(Clone, Debug, PartialEq)]
pub struct ElevationInfo {
    /// The file (or the first tile of a mosaic), for messages.
    pub path: PathBuf,
    pub format: &'static str,
    pub width: usize,
    pub depth: usize,
    /// Metres between samples east–west and north–south. Geographic data (degrees) is converted at the
    /// latitude of the map's centre; `[1, 1]` when the file does not say (`spacing_known` false).
    pub spacing: [f64; 2],
    pub spacing_known: bool,
    /// Whether the file's coordinates are degrees of longitude and latitude.
    pub geographic: bool,
    /// "EPSG:32633", a WKT name, or "" when unknown.
    pub projection: String,
    /// Coordinates (file units: metres, or degrees for geographic data) of the north-west sample's centre.
    pub origin: [f64; 2],
    /// The value that marks missing samples, if the file names one.
    pub nodata: Option<f64>,
    /// "int16", "float32", …
    pub sample_format: &'static str,
}

/// Reads an elevation file top (north) row first.
pub trait RowReader: Send {
    fn info(&self) -> &ElevationInfo;
    /// Appends the next `rows` rows (`width` values each) to `out`: metres, NaN where a sample is missing.
    fn read_rows(&mut self, rows: usize, out: &mut Vec<f32>) -> Result<(), HeightmapError>;
    /// Called after the last row: a file holding more than its header says is refused here.
    fn finish(&mut self) -> Result<(), HeightmapError> {
        Ok(())
    }
}

/// Runs a parser step, turning a panic in a decoder into an error naming the file (a damaged file must
/// not take the engine down).
pub(crate) fn guard<T>(
    name: &str,
    f: impl FnOnce() -> Result<T, HeightmapError>,
) -> Result<T, HeightmapError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(HeightmapError::Format(format!(
            "{name}: the file is damaged (its decoder failed)"
        )))
    })
}

/// A stored value as a height: NaN when it is the NoData value, not finite, or beyond the heights a
/// terrain holds (±`MAX_HEIGHT_VALUE`: such values are fill markers, never ground).
pub(crate) fn height(v: f64, nodata: Option<f64>) -> f32 {
    let missing =
        nodata.is_some_and(|n| v == n || (n.is_nan() && v.is_nan()) || v as f32 == n as f32);
    if missing || !v.is_finite() || v.abs() > f64::from(MAX_HEIGHT_VALUE) {
        f32::NAN
    } else {
        v as f32
    }
}

/// Metres per degree of longitude and latitude at `lat` degrees (WGS 84 series).
pub(crate) fn metres_per_degree(lat: f64) -> [f64; 2] {
    let p = lat.to_radians();
    [
        111_412.84 * p.cos() - 93.5 * (3.0 * p).cos() + 0.118 * (5.0 * p).cos(),
        111_132.92 - 559.82 * (2.0 * p).cos() + 1.175 * (4.0 * p).cos() - 0.0023 * (6.0 * p).cos(),
    ]
}

/// `path` as text for messages.
pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}
