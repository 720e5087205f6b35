//! A region map written from whole rows arriving north to south (an elevation file streamed in): mip 0
//! goes to a scratch folder a band of `region` rows at a time, on a writer thread while the next band is
//! read; that thread also box-filters each band into mip 1 (the same sums in the same order as
//! `downsample`, so the levels equal a `save` bit for bit), the coarser mips are then built from mip 1,
//! and only a finished map replaces what the folder held — a failed import leaves the folder as it was.
//! Memory: two bands (`width × region` heights, and as many hole flags once a hole arrives) and
//! half a band of mip 1.

use super::error::{invalid, write_error, RegionError};
use super::files::{file, put_le, write_bytes, Existing, Scratch};
use super::format::RegionMeta;
use super::write::build_levels;
use crate::control::HOLE;
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

/// `region` rows of the map (fewer in the last band).
struct Band {
    rz: usize,
    rows: usize,
    heights: Vec<f32>,
    /// Which samples are holes; empty while no hole has arrived (a byte a sample until written).
    holes: Vec<bool>,
}

pub struct RowWriter {
    scratch: Option<Scratch>,
    meta: RegionMeta,
    band: Band,
    taken: usize,
    range: (f32, f32),
    holes: bool,
    to_writer: Option<SyncSender<Band>>,
    writer: Option<JoinHandle<Result<(), RegionError>>>,
}

impl RowWriter {
    pub fn new(dir: &Path, meta: RegionMeta, existing: Existing) -> Result<Self, RegionError> {
        let scratch = Scratch::new(dir, ".importing", existing)?;
        // A rendezvous channel: the reader fills one band while the writer writes the other.
        let (tx, rx) = sync_channel::<Band>(0);
        let (out, m) = (scratch.path().to_path_buf(), meta);
        let writer = std::thread::spawn(move || {
            let mut mip1 = Mip1::new(m);
            for band in rx {
                write_band(
                    &out,
                    &m,
                    0,
                    band.rz,
                    band.rows,
                    m.width,
                    &band.heights,
                    &band.holes,
                )?;
                mip1.add(&out, &band)?;
            }
            mip1.flush(&out)
        });
        Ok(Self {
            scratch: Some(scratch),
            meta,
            band: Band {
                rz: 0,
                rows: 0,
                heights: Vec::with_capacity(meta.width * meta.region),
                holes: Vec::new(),
            },
            taken: 0,
            range: (f32::INFINITY, f32::NEG_INFINITY),
            holes: false,
            to_writer: Some(tx),
            writer: Some(writer),
        })
    }

    /// Rows taken so far.
    pub fn rows_written(&self) -> usize {
        self.taken
    }

    /// Appends whole rows (`width` samples each); `holes[i]` marks sample i as a hole.
    pub fn push(&mut self, heights: &[f32], holes: &[bool]) -> Result<(), RegionError> {
        let w = self.meta.width;
        if !heights.len().is_multiple_of(w) || holes.len() != heights.len() {
            return invalid(format!(
                "rows of {w} samples expected, got {} heights and {} hole flags",
                heights.len(),
                holes.len()
            ));
        }
        for (h, m) in heights.chunks_exact(w).zip(holes.chunks_exact(w)) {
            if self.taken >= self.meta.depth {
                return invalid(format!("more than the {} rows of the map", self.meta.depth));
            }
            let (lo, hi) = h.iter().fold(self.range, |(a, b), &v| (a.min(v), b.max(v)));
            self.range = (lo, hi);
            self.band.heights.extend_from_slice(h);
            self.holes |= m.contains(&true);
            if self.holes {
                let b = &mut self.band;
                b.holes.resize(b.rows * w, false);
                b.holes.extend_from_slice(m);
            }
            self.band.rows += 1;
            self.taken += 1;
            if self.band.rows == self.meta.region || self.taken == self.meta.depth {
                self.send()?;
            }
        }
        Ok(())
    }

    /// Hands the band to the writer thread and starts the next one.
    fn send(&mut self) -> Result<(), RegionError> {
        let (w, r) = (self.meta.width, self.meta.region);
        let next = Band {
            rz: self.band.rz + 1,
            rows: 0,
            heights: Vec::with_capacity(w * r),
            holes: Vec::new(),
        };
        let mut band = std::mem::replace(&mut self.band, next);
        if self.holes {
            band.holes.resize(band.rows * w, false);
        }
        let sent = self
            .to_writer
            .as_ref()
            .is_some_and(|tx| tx.send(band).is_ok());
        if !sent {
            // The writer stopped on an error: report it.
            return self
                .join_writer()
                .and_then(|_| write_error("the region writer stopped".into()));
        }
        Ok(())
    }

    fn join_writer(&mut self) -> Result<(), RegionError> {
        self.to_writer = None;
        match self.writer.take().map(JoinHandle::join) {
            None | Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(e),
            Some(Err(_)) => write_error("the region writer failed".into()),
        }
    }

    /// Builds the coarser mips and moves the finished map into the folder (replacing the map it held;
    /// other files stay). Returns the header written.
    pub fn finish(mut self) -> Result<RegionMeta, RegionError> {
        if self.taken != self.meta.depth {
            return invalid(format!(
                "{} of the map's {} rows arrived",
                self.taken, self.meta.depth
            ));
        }
        self.join_writer()?;
        let on_disk = if self.meta.mips > 1 { 1 } else { 0 };
        let scratch = self.scratch.take().expect("taken once");
        let meta = build_levels(
            scratch.path(),
            self.meta,
            None,
            on_disk,
            self.range,
            self.holes,
            None,
        )?;
        scratch.commit()?;
        Ok(meta)
    }
}

impl Drop for RowWriter {
    fn drop(&mut self) {
        // The writer first: the scratch folder (removed with `scratch` unless committed) must be idle.
        let _ = self.join_writer();
        self.scratch = None;
    }
}

/// Writes the regions of row `rz` of mip `m` from `rows` whole rows of `width` samples.
#[allow(clippy::too_many_arguments)]
fn write_band(
    dir: &Path,
    meta: &RegionMeta,
    m: u32,
    rz: usize,
    rows: usize,
    width: usize,
    heights: &[f32],
    hole: &[bool],
) -> Result<(), RegionError> {
    let r = meta.region;
    let mut h = Vec::with_capacity(r * r * 4);
    let mut c = Vec::with_capacity(if hole.is_empty() { 0 } else { r * r * 4 });
    let mut control = Vec::with_capacity(if hole.is_empty() { 0 } else { r });
    for rx in 0..width.div_ceil(r) {
        let (x0, x1) = (rx * r, (rx * r + r).min(width));
        h.clear();
        c.clear();
        let mut holes = false;
        for z in 0..rows {
            put_le(
                &mut h,
                &heights[z * width + x0..z * width + x1],
                f32::to_le_bytes,
            );
            if !hole.is_empty() {
                let row = &hole[z * width + x0..z * width + x1];
                holes |= row.contains(&true);
                control.clear();
                control.extend(row.iter().map(|&b| if b { HOLE } else { 0 }));
                put_le(&mut c, &control, u32::to_le_bytes);
            }
        }
        write_bytes(&file(dir, 'h', m, rx, rz), &h)?;
        if holes {
            write_bytes(&file(dir, 'c', m, rx, rz), &c)?;
        }
    }
    Ok(())
}

/// Mip 1 gathered from the bands of mip 0: each band of `region` rows gives `region / 2` rows, two bands a
/// row of mip-1 regions.
struct Mip1 {
    meta: RegionMeta,
    width: usize,
    rows: Vec<f32>,
    count: usize,
    rz: usize,
}

impl Mip1 {
    fn new(meta: RegionMeta) -> Self {
        let width = meta.mip_size(1)[0];
        Self {
            meta,
            width,
            rows: Vec::new(),
            count: 0,
            rz: 0,
        }
    }

    fn add(&mut self, dir: &Path, b: &Band) -> Result<(), RegionError> {
        if self.meta.mips < 2 {
            return Ok(());
        }
        let (w, fw) = (self.meta.width, self.width);
        for j in 0..b.rows.div_ceil(2) {
            // The sums of `downsample`, in its order (the map's last row and column clamp).
            let z = 2 * j;
            let r0 = &b.heights[z * w..(z + 1) * w];
            let z1 = (z + 1).min(b.rows - 1);
            let r1 = &b.heights[z1 * w..(z1 + 1) * w];
            self.rows.extend((0..fw).map(|i| {
                let (x, x1) = (2 * i, (2 * i + 1).min(w - 1));
                (r0[x] + r0[x1] + r1[x] + r1[x1]) * 0.25
            }));
            self.count += 1;
            if self.count == self.meta.region {
                self.flush(dir)?;
            }
        }
        Ok(())
    }

    fn flush(&mut self, dir: &Path) -> Result<(), RegionError> {
        if self.count == 0 {
            return Ok(());
        }
        write_band(
            dir,
            &self.meta,
            1,
            self.rz,
            self.count,
            self.width,
            &self.rows,
            &[],
        )?;
        self.rows.clear();
        self.count = 0;
        self.rz += 1;
        Ok(())
    }
}
