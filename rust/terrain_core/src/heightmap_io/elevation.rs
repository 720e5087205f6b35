//! Elevation files — GeoTIFF, SRTM `.hgt` (one tile or a mosaic) and ESRI ASCII grids — read a block of rows
//! at a time: heights in metres as stored, the sample spacing from the file, NoData found and either cut
//! as holes or filled from the neighbours. Reading by rows lets a file bigger than memory stream into a
//! region map (`terrain_regions::RowWriter`); `read_all` gathers a small one for a `TerrainData`.

use super::rows::{guard, shown};
pub use super::rows::{ElevationInfo, RowReader};
use super::{asc, geotiff, hgt, HeightmapError};
use crate::progress::Progress;
use std::path::{Path, PathBuf};

/// The extensions read here, for messages.
pub const EXTENSIONS: &str = ".tif, .tiff, .hgt or .asc";

/// Whether `path` names an elevation file (by extension).
pub fn is_elevation(path: &str) -> bool {
    matches!(ext(path).as_str(), "tif" | "tiff" | "hgt" | "asc")
}

fn ext(path: &str) -> String {
    path.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Opens one file, or several `.hgt` tiles as one mosaic (placed by the south-west corners in their
/// names; missing tiles inside the box are NoData).
pub fn open(paths: &[PathBuf]) -> Result<Box<dyn RowReader>, HeightmapError> {
    let Some(first) = paths.first() else {
        return Err(HeightmapError::Invalid("no file given".into()));
    };
    let name = first.to_string_lossy().to_string();
    guard(&name, || {
        match ext(&name).as_str() {
        "hgt" => Ok(Box::new(hgt::Mosaic::open(paths)?) as Box<dyn RowReader>),
        e if paths.len() > 1 => Err(HeightmapError::Invalid(format!(
            "{name}: only .hgt tiles make a mosaic (named by their south-west corner), not .{e} files"
        ))),
        "tif" | "tiff" => Ok(Box::new(geotiff::Reader::open(first)?) as Box<dyn RowReader>),
        "asc" => Ok(Box::new(asc::Reader::open(first)?) as Box<dyn RowReader>),
        e => Err(HeightmapError::Format(format!(
            "{name}: unsupported elevation file type '.{e}'; use {EXTENSIONS}"
        ))),
    }
    })
}

/// What a pass over the samples finds (`get_import_info`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Lowest and highest height present ((0, 0) when every sample is missing).
    pub range: (f32, f32),
    pub nodata_count: u64,
}

/// Rows read per step by `scan` and the importers.
pub const BLOCK_ROWS: usize = 256;

/// Reads every sample once, a block of rows at a time.
pub fn scan(r: &mut dyn RowReader) -> Result<Stats, HeightmapError> {
    let (w, d) = (r.info().width, r.info().depth);
    let (mut lo, mut hi, mut missing) = (f32::INFINITY, f32::NEG_INFINITY, 0u64);
    let mut buf = Vec::with_capacity(w * BLOCK_ROWS);
    for z0 in (0..d).step_by(BLOCK_ROWS) {
        buf.clear();
        r.read_rows(BLOCK_ROWS.min(d - z0), &mut buf)?;
        for &v in &buf {
            if v.is_nan() {
                missing += 1;
            } else {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    r.finish()?;
    Ok(Stats {
        range: if lo <= hi { (lo, hi) } else { (0.0, 0.0) },
        nodata_count: missing,
    })
}

/// What becomes of missing samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoData {
    /// Filled (so normals and coarse levels stay sane) and cut as holes.
    Holes,
    /// Filled from the neighbours.
    Fill,
}

/// Fills missing samples block by block, each from its filled neighbours: samples next to known ones are
/// filled first (the mean of their known 8-neighbours), then the next ring inward from those, and so on.
/// The last row of the block above counts as known, so a void crossing blocks stays continuous. A block
/// with nothing known (and none above) is filled with 0 (sea level).
#[derive(Default)]
pub struct Filler {
    above: Vec<f32>,
    known: Vec<bool>,
    frontier: Vec<usize>,
    next: Vec<usize>,
    queued: Vec<bool>,
    values: Vec<(usize, f32)>,
}

impl Filler {
    /// Fills the NaNs of `block` (`width` per row) in place.
    pub fn fill(&mut self, block: &mut [f32], width: usize) {
        let rows = block.len() / width;
        let has_above = self.above.len() == width;
        self.known.clear();
        self.known.extend(block.iter().map(|v| !v.is_nan()));
        self.queued.clear();
        self.queued.resize(block.len(), false);
        self.frontier.clear();
        let any = has_above || self.known.iter().any(|&k| k);
        if !any {
            block.fill(0.0);
        }
        for (i, v) in block.iter().enumerate() {
            if v.is_nan() && (self.next_to_known(i, width, rows, has_above)) {
                self.frontier.push(i);
                self.queued[i] = true;
            }
        }
        while !self.frontier.is_empty() {
            self.values.clear();
            for &i in &self.frontier {
                let v = self.mean_of_known(block, i, width, rows, has_above);
                self.values.push((i, v));
            }
            for &(i, v) in &self.values {
                block[i] = v;
                self.known[i] = true;
            }
            self.next.clear();
            for &(i, _) in &self.values {
                for n in neighbours(i, width, rows) {
                    if !self.known[n] && !self.queued[n] {
                        self.queued[n] = true;
                        self.next.push(n);
                    }
                }
            }
            std::mem::swap(&mut self.frontier, &mut self.next);
        }
        self.above.clear();
        self.above
            .extend_from_slice(&block[(rows.max(1) - 1) * width..rows * width]);
    }

    fn next_to_known(&self, i: usize, width: usize, rows: usize, above: bool) -> bool {
        (above && i < width) || neighbours(i, width, rows).any(|n| self.known[n])
    }

    fn mean_of_known(&self, b: &[f32], i: usize, width: usize, rows: usize, above: bool) -> f32 {
        let (mut sum, mut n) = (0.0f64, 0u32);
        for k in neighbours(i, width, rows).filter(|&k| self.known[k]) {
            sum += f64::from(b[k]);
            n += 1;
        }
        if above && i < width {
            let x = i % width;
            for ax in x.saturating_sub(1)..(x + 2).min(width) {
                sum += f64::from(self.above[ax]);
                n += 1;
            }
        }
        (sum / f64::from(n.max(1))) as f32
    }
}

/// The 8-neighbours of sample `i` inside a `width × rows` block.
fn neighbours(i: usize, width: usize, rows: usize) -> impl Iterator<Item = usize> {
    let (x, z) = ((i % width) as isize, (i / width) as isize);
    (-1..=1isize)
        .flat_map(move |dz| (-1..=1isize).map(move |dx| (x + dx, z + dz)))
        .filter(move |&(nx, nz)| {
            (nx, nz) != (x, z)
                && nx >= 0
                && nz >= 0
                && (nx as usize) < width
                && (nz as usize) < rows
        })
        .map(move |(nx, nz)| nz as usize * width + nx as usize)
}

/// Reads a whole file in blocks of `BLOCK_ROWS` rows, fills its missing samples and hands each block to
/// `sink` as (first row, heights, which samples were missing).
pub fn for_each_block(
    r: &mut dyn RowReader,
    mut sink: impl FnMut(usize, &[f32], &[bool]) -> Result<(), HeightmapError>,
) -> Result<(), HeightmapError> {
    let (w, d) = (r.info().width, r.info().depth);
    let mut filler = Filler::default();
    let mut buf = Vec::with_capacity(w * BLOCK_ROWS);
    let mut missing = Vec::with_capacity(w * BLOCK_ROWS);
    for z0 in (0..d).step_by(BLOCK_ROWS) {
        buf.clear();
        r.read_rows(BLOCK_ROWS.min(d - z0), &mut buf)?;
        missing.clear();
        missing.extend(buf.iter().map(|v| v.is_nan()));
        filler.fill(&mut buf, w);
        sink(z0, &buf, &missing)?;
    }
    r.finish()
}

/// A whole file in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Elevation {
    pub info: ElevationInfo,
    pub width: usize,
    pub depth: usize,
    pub heights: Vec<f32>,
    /// Which samples were missing (all false when none was).
    pub missing: Vec<bool>,
}

/// Reads a whole file (or mosaic) of at most `budget` samples.
pub fn read_all(paths: &[PathBuf], budget: u64) -> Result<Elevation, HeightmapError> {
    let mut r = open(paths)?;
    let info = r.info().clone();
    let (w, d) = (info.width, info.depth);
    if (w as u128) * (d as u128) > u128::from(budget) {
        return Err(HeightmapError::Invalid(format!(
            "{}: {w} x {d} samples is more than the sample_budget of {budget}; import it into a region map",
            info.path.display()
        )));
    }
    let mut heights = Vec::with_capacity(w * d);
    let mut missing = Vec::with_capacity(w * d);
    for_each_block(r.as_mut(), |_, h, m| {
        heights.extend_from_slice(h);
        missing.extend_from_slice(m);
        Ok(())
    })?;
    Ok(Elevation {
        info,
        width: w,
        depth: d,
        heights,
        missing,
    })
}

/// Streams a file (or `.hgt` mosaic) into a region map in `dir` of `region`² regions, a block of rows at a
/// time, never holding the whole image: memory is one band of `region` rows. The spacing is the file's
/// north–south spacing. A failure or `cancel` leaves the folder as it was; so does a map already in `dir`
/// unless `existing` is `Replace`.
pub fn import_regions(
    paths: &[PathBuf],
    dir: &Path,
    region: usize,
    nodata: NoData,
    existing: crate::terrain_regions::Existing,
    progress: &Progress,
) -> Result<crate::terrain_regions::RegionMeta, HeightmapError> {
    use crate::terrain_regions::{RegionMeta, RowWriter};

    let mut r = open(paths)?;
    let info = r.info().clone();
    // The region writer's failures keep their kind: a bad setting, or the output folder (its files
    // written, then read back for the coarser levels) failing; never the input file's content.
    let e = |x: crate::terrain_regions::RegionError| {
        use crate::terrain_regions::RegionError as R;
        match x {
            R::Invalid(_) => HeightmapError::Invalid(format!("{}: {x}", shown(&info.path))),
            R::Exists(_) => HeightmapError::Invalid(x.to_string()),
            R::Read(_) | R::Write(_) | R::Damaged(_) => HeightmapError::Write(x.to_string()),
        }
    };
    let meta = RegionMeta::new(info.width, info.depth, info.spacing[1], region).map_err(e)?;
    progress.set_total(info.depth as u64);
    let mut out = RowWriter::new(dir, meta, existing).map_err(e)?;
    let no_holes = vec![false; info.width * BLOCK_ROWS];
    for_each_block(r.as_mut(), |z0, h, missing| {
        if progress.is_cancelled() {
            return Err(HeightmapError::Cancelled(format!(
                "{}: cancelled",
                shown(&info.path)
            )));
        }
        let holes = match nodata {
            NoData::Holes => missing,
            NoData::Fill => &no_holes[..h.len()],
        };
        out.push(h, holes).map_err(e)?;
        progress.set_done((z0 + h.len() / info.width) as u64);
        Ok(())
    })?;
    out.finish().map_err(e)
}

#[cfg(test)]
mod tests;
