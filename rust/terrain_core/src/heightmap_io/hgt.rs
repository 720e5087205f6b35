//! SRTM `.hgt` tiles: big-endian i16 metres, 1201² (3 arc-seconds) or 3601² (1 arc-second) samples
//! covering one degree, north row first, −32768 where the radar saw nothing. A tile is named by its
//! south-west corner (`N45E006.hgt`); neighbouring tiles share their edge row and column, so a mosaic of
//! n × m tiles of side s has (n (s − 1) + 1) × (m (s − 1) + 1) samples and no seam.

use super::rows::{metres_per_degree, shown, ElevationInfo, RowReader};
use super::HeightmapError;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

pub const VOID: i16 = -32768;

/// Most tiles a mosaic may span (a 64° × 64° box; 24 GB of 1201² tiles).
pub const MAX_TILES: usize = 4096;

/// The south-west corner (latitude, longitude) from a name like `N45E006.hgt` or `s03w071.hgt`.
pub fn corner_of(path: &Path) -> Result<(i32, i32), HeightmapError> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_ascii_uppercase())
        .unwrap_or_default();
    let b = stem.as_bytes();
    let parse = |s: &[u8]| std::str::from_utf8(s).ok()?.parse::<i32>().ok();
    let ok = b.len() >= 7
        && matches!(b[0], b'N' | b'S')
        && matches!(b[3], b'E' | b'W')
        && b[1..3].iter().chain(&b[4..7]).all(u8::is_ascii_digit);
    match (
        ok,
        parse(&b[1..3.min(b.len())]),
        parse(&b[4.min(b.len())..7.min(b.len())]),
    ) {
        (true, Some(lat), Some(lon)) if lat < 90 && lon <= 180 => Ok((
            if b[0] == b'S' { -lat } else { lat },
            if b[3] == b'W' { -lon } else { lon },
        )),
        _ => Err(HeightmapError::Format(format!(
            "{}: an SRTM tile is named by its south-west corner, like N45E006.hgt",
            shown(path)
        ))),
    }
}

/// Samples per side from a tile's byte length.
fn side_of(path: &Path) -> Result<usize, HeightmapError> {
    let len = std::fs::metadata(path)
        .map_err(|e| HeightmapError::Read(format!("{}: cannot read: {e}", shown(path))))?
        .len();
    match len {
        2_884_802 => Ok(1201),
        25_934_402 => Ok(3601),
        n => Err(HeightmapError::Format(format!(
            "{}: {n} bytes is not an SRTM tile (1201² or 3601² samples of 2 bytes: 2884802 or 25934402 bytes)",
            shown(path)
        ))),
    }
}

/// Tiles read as one map, a row at a time.
pub struct Mosaic {
    info: ElevationInfo,
    side: usize,
    /// Tiles by (row from the north, column from the west).
    tiles: HashMap<(usize, usize), PathBuf>,
    across: usize,
    /// Open readers of the current tile row, by column.
    open: Vec<Option<BufReader<File>>>,
    /// Tile row the readers are at, and the next row within it they return.
    band: usize,
    row_in_band: usize,
    next: usize,
    bytes: Vec<u8>,
}

impl Mosaic {
    pub fn open(paths: &[PathBuf]) -> Result<Self, HeightmapError> {
        let mut corners = Vec::with_capacity(paths.len());
        let mut side = 0;
        for p in paths {
            let c = corner_of(p)?;
            let s = side_of(p)?;
            if side != 0 && s != side {
                return Err(HeightmapError::Invalid(format!(
                    "{}: {s}² samples, but {} has {side}²: a mosaic's tiles share one resolution",
                    shown(p),
                    shown(&paths[0])
                )));
            }
            side = s;
            if corners.iter().any(|(q, _)| *q == c) {
                return Err(HeightmapError::Invalid(format!(
                    "{}: two tiles at {c:?}",
                    shown(p)
                )));
            }
            corners.push((c, p.clone()));
        }
        let lat_min = corners.iter().map(|c| c.0 .0).min().unwrap_or(0);
        let lat_max = corners.iter().map(|c| c.0 .0).max().unwrap_or(0);
        let lon_min = corners.iter().map(|c| c.0 .1).min().unwrap_or(0);
        let lon_max = corners.iter().map(|c| c.0 .1).max().unwrap_or(0);
        let (down, across) = (
            (lat_max - lat_min + 1) as usize,
            (lon_max - lon_min + 1) as usize,
        );
        if down * across > MAX_TILES {
            return Err(HeightmapError::Invalid(format!(
                "{}: the tiles span {across} x {down} degrees; a mosaic holds at most {MAX_TILES} tiles",
                shown(&paths[0])
            )));
        }
        let tiles = corners
            .into_iter()
            .map(|((lat, lon), p)| (((lat_max - lat) as usize, (lon - lon_min) as usize), p))
            .collect();
        let step = 1.0 / (side - 1) as f64;
        let centre = (lat_min as f64 + lat_max as f64 + 1.0) * 0.5;
        let m = metres_per_degree(centre);
        let info = ElevationInfo {
            path: paths[0].clone(),
            format: "SRTM",
            width: across * (side - 1) + 1,
            depth: down * (side - 1) + 1,
            spacing: [step * m[0], step * m[1]],
            spacing_known: true,
            geographic: true,
            projection: "EPSG:4326".into(),
            origin: [lon_min as f64, lat_max as f64 + 1.0],
            nodata: Some(f64::from(VOID)),
            sample_format: "int16",
        };
        Ok(Self {
            info,
            side,
            tiles,
            across,
            open: Vec::new(),
            band: usize::MAX,
            row_in_band: 0,
            next: 0,
            bytes: Vec::new(),
        })
    }

    /// Opens the readers of tile row `band`, positioned at its row `row`.
    fn enter(&mut self, band: usize, row: usize) -> Result<(), HeightmapError> {
        self.open.clear();
        for c in 0..self.across {
            let r = match self.tiles.get(&(band, c)) {
                None => None,
                Some(p) => {
                    let f = File::open(p).map_err(|e| {
                        HeightmapError::Read(format!("{}: cannot read: {e}", shown(p)))
                    })?;
                    let mut r = BufReader::with_capacity(1 << 16, f);
                    std::io::copy(
                        &mut (&mut r).take((row * self.side * 2) as u64),
                        &mut std::io::sink(),
                    )
                    .map_err(|e| HeightmapError::Read(format!("{}: cannot read: {e}", shown(p))))?;
                    Some(r)
                }
            };
            self.open.push(r);
        }
        self.band = band;
        self.row_in_band = row;
        Ok(())
    }
}

impl RowReader for Mosaic {
    fn info(&self) -> &ElevationInfo {
        &self.info
    }

    fn read_rows(&mut self, rows: usize, out: &mut Vec<f32>) -> Result<(), HeightmapError> {
        let s = self.side;
        for _ in 0..rows {
            if self.next >= self.info.depth {
                return Err(HeightmapError::Format(format!(
                    "{}: read past the last row",
                    shown(&self.info.path)
                )));
            }
            // Shared edge rows come from the tile to the south, except the map's last row.
            let band = (self.next / (s - 1)).min(self.info.depth / (s - 1) - 1);
            let row = self.next - band * (s - 1);
            if band != self.band || row != self.row_in_band {
                self.enter(band, row)?;
            }
            for c in 0..self.across {
                let skip = usize::from(c > 0);
                match &mut self.open[c] {
                    None => out.extend(std::iter::repeat_n(f32::NAN, s - skip)),
                    Some(r) => {
                        self.bytes.resize(s * 2, 0);
                        r.read_exact(&mut self.bytes).map_err(|e| {
                            HeightmapError::Format(format!(
                                "{}: tile ({band}, {c}) is truncated: {e}",
                                shown(&self.info.path)
                            ))
                        })?;
                        out.extend(self.bytes[skip * 2..].chunks_exact(2).map(|b| {
                            match i16::from_be_bytes([b[0], b[1]]) {
                                VOID => f32::NAN,
                                v => f32::from(v),
                            }
                        }));
                    }
                }
            }
            self.row_in_band += 1;
            self.next += 1;
        }
        Ok(())
    }
}

/// A tile's bytes from `height(row, col)` (metres, None for a void), for tests and tools.
pub fn encode(side: usize, mut height: impl FnMut(usize, usize) -> Option<i16>) -> Vec<u8> {
    let mut out = Vec::with_capacity(side * side * 2);
    for z in 0..side {
        for x in 0..side {
            out.extend(height(z, x).unwrap_or(VOID).to_be_bytes());
        }
    }
    out
}
