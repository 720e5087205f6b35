//! Writing a map as region files: mip 0 from a `TerrainData` (bit for bit) and the box-filtered levels
//! above it, every file written safely (a kill mid-save leaves the old file or the new one).

use super::error::RegionError;
use super::files::{self, file, read_le, write_le, Existing};
use super::format::RegionMeta;
use crate::progress::Progress;
use crate::terrain_data::TerrainData;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The box filter: mip sample (i, j) is the mean of the 2 × 2 samples below it (indices clamped at the
/// finer level's edges). `fine(x, z)` reads the finer level.
pub(super) fn downsample(
    dims: [usize; 2],
    x0: usize,
    z0: usize,
    fine: impl Fn(usize, usize) -> f32,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(dims[0] * dims[1]);
    for j in 0..dims[1] {
        for i in 0..dims[0] {
            let (x, z) = (2 * (x0 + i), 2 * (z0 + j));
            let s = fine(x, z) + fine(x + 1, z) + fine(x, z + 1) + fine(x + 1, z + 1);
            out.push(s * 0.25);
        }
    }
    out
}

/// Makes mip-0 region (rx, rz) of the given size: (heights, control — empty for none).
pub type RegionSource<'a> = dyn Fn(usize, usize, [usize; 2]) -> (Vec<f32>, Vec<u32>) + Sync + 'a;

/// Writes a map to `dir` (created if missing; a map already there is refused unless `existing` is
/// `Replace`, and then replaced file by file, the header last, so a crash leaves every file whole): mip 0 region by region from `source`, each coarser mip from
/// the one below, in quadtree order so only a few regions are in memory at once (the four children of a
/// region are made in parallel). Returns the header written.
pub fn write_regions(
    dir: &Path,
    meta: RegionMeta,
    existing: Existing,
    source: &RegionSource,
) -> Result<RegionMeta, RegionError> {
    write_regions_with(dir, meta, existing, source, &Progress::default())
}

/// `write_regions`, counting the regions written (of every level) in `progress` and stopping with an
/// error when it is cancelled (the folder then holds what it held before).
pub fn write_regions_with(
    dir: &Path,
    meta: RegionMeta,
    existing: Existing,
    source: &RegionSource,
    progress: &Progress,
) -> Result<RegionMeta, RegionError> {
    let scratch = files::Scratch::new(dir, ".saving", existing)?;
    let total: usize = (0..meta.mips)
        .map(|m| {
            let [x, z] = meta.regions(m);
            x * z
        })
        .sum();
    progress.set_total(total as u64);
    let meta = build_levels(
        scratch.path(),
        meta,
        Some(source),
        0,
        (f32::INFINITY, f32::NEG_INFINITY),
        false,
        Some(progress),
    )?;
    scratch.commit()?;
    Ok(meta)
}

/// Writes the levels of `dir` (mip 0 from `source`; or, when None, from level `on_disk` up, the levels
/// up to it being written already), then the header with the height range and control flag found
/// (joined with those given).
pub(super) fn build_levels(
    dir: &Path,
    meta: RegionMeta,
    source: Option<&RegionSource>,
    on_disk: u32,
    range: (f32, f32),
    control: bool,
    progress: Option<&Progress>,
) -> Result<RegionMeta, RegionError> {
    let w = Writer {
        dir,
        meta,
        source,
        on_disk,
        range: Mutex::new(range),
        control: AtomicU64::new(u64::from(control)),
        progress,
    };
    w.build(meta.mips - 1, 0, 0)?;
    let r = w.range.into_inner().expect("range");
    let mut meta = meta;
    meta.range = if r.0 <= r.1 { r } else { (0.0, 0.0) };
    meta.has_control = w.control.load(Ordering::Relaxed) == 1;
    meta.write(dir)?;
    Ok(meta)
}

struct Writer<'a> {
    dir: &'a Path,
    meta: RegionMeta,
    /// Mip 0's maker; None when the levels up to `on_disk` are already written (`RowWriter`).
    source: Option<&'a RegionSource<'a>>,
    on_disk: u32,
    /// Lowest and highest height written.
    range: Mutex<(f32, f32)>,
    /// 1 once any control value is non-zero.
    control: AtomicU64,
    /// Counts the regions written; its cancel flag stops the writing.
    progress: Option<&'a Progress>,
}

impl Writer<'_> {
    /// Region (rx, rz) of mip m: written, and returned for the level above; None outside the map.
    fn build(&self, m: u32, rx: usize, rz: usize) -> Result<Option<Vec<f32>>, RegionError> {
        let meta = &self.meta;
        let [nx, nz] = meta.regions(m);
        if rx >= nx || rz >= nz {
            return Ok(None);
        }
        if self.progress.is_some_and(Progress::is_cancelled) {
            return Err(RegionError::Invalid("cancelled".into()));
        }
        let dims = meta.region_dims(m, rx, rz);
        let Some(source) = self.source.filter(|_| m == 0) else {
            if self.source.is_none() && m == self.on_disk {
                let h = read_le(&file(self.dir, 'h', m, rx, rz), dims[0] * dims[1])?;
                return Ok(Some(h.into_iter().map(f32::from_le_bytes).collect()));
            }
            return self.build_coarse(m, rx, rz, dims).map(Some);
        };
        let (h, c) = source(rx, rz, dims);
        let (lo, hi) = h
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        {
            let mut r = self.range.lock().expect("range");
            *r = (r.0.min(lo), r.1.max(hi));
        }
        if c.iter().any(|&v| v != 0) {
            write_le(&file(self.dir, 'c', 0, rx, rz), &c, u32::to_le_bytes)?;
            self.control.store(1, Ordering::Relaxed);
        }
        write_le(&file(self.dir, 'h', 0, rx, rz), &h, f32::to_le_bytes)?;
        self.written();
        Ok(Some(h))
    }

    /// Region (rx, rz) of mip m > 0 from its four children (made in parallel), written.
    fn build_coarse(
        &self,
        m: u32,
        rx: usize,
        rz: usize,
        dims: [usize; 2],
    ) -> Result<Vec<f32>, RegionError> {
        use rayon::prelude::*;
        let meta = &self.meta;
        let kids = (0..4usize)
            .into_par_iter()
            .map(|k| self.build(m - 1, 2 * rx + k % 2, 2 * rz + k / 2))
            .collect::<Result<Vec<_>, _>>()?;
        let r = meta.region;
        let [fw, fd] = meta.mip_size(m - 1);
        let heights = downsample(dims, rx * r, rz * r, |x, z| {
            // Finer-level sample (x, z), clamped to that level, from the child region holding it
            // (a child outside the map is never read: clamping keeps indices inside).
            let (x, z) = (x.min(fw - 1), z.min(fd - 1));
            let k = (z / r - 2 * rz) * 2 + (x / r - 2 * rx);
            let kid = kids[k].as_ref().expect("child inside the map");
            let width = meta.region_dims(m - 1, x / r, z / r)[0];
            kid[(z % r) * width + x % r]
        });
        write_le(&file(self.dir, 'h', m, rx, rz), &heights, f32::to_le_bytes)?;
        self.written();
        Ok(heights)
    }

    fn written(&self) {
        if let Some(p) = self.progress {
            p.add(1);
        }
    }
}

/// Saves a `TerrainData` as region files (heights and control bit for bit); a map in `dir` is replaced
/// only when `existing` says so.
pub fn save(
    dir: &Path,
    data: &TerrainData,
    region: usize,
    existing: Existing,
) -> Result<RegionMeta, RegionError> {
    let meta = RegionMeta::new(data.width(), data.depth(), data.spacing(), region)?;
    let (w, h, c) = (data.width(), data.heights(), data.control_map());
    write_regions(dir, meta, existing, &|rx, rz, [dw, dd]| {
        let (x0, z0) = (rx * region, rz * region);
        let mut hs = Vec::with_capacity(dw * dd);
        let mut cs = Vec::new();
        for z in z0..z0 + dd {
            hs.extend_from_slice(&h[z * w + x0..z * w + x0 + dw]);
            if !c.is_empty() {
                cs.extend_from_slice(&c[z * w + x0..z * w + x0 + dw]);
            }
        }
        (hs, cs)
    })
}
