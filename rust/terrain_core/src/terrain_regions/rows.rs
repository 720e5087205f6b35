//! A region map written from whole rows arriving north to south (an elevation file streamed in): mip 0
//! goes to a scratch folder a band of `region` rows at a time, the coarser mips are built from it, and
//! only a finished map replaces what the folder held — a failed import leaves the folder as it was.
//! Memory: one band, `width × region` heights (and as many control values once a hole arrives).

use super::{build_levels, clear_regions, err, file, write_le, RegionError, RegionMeta};
use crate::control::HOLE;
use std::fs;
use std::path::{Path, PathBuf};

pub struct RowWriter {
    dir: PathBuf,
    scratch: PathBuf,
    meta: RegionMeta,
    heights: Vec<f32>,
    control: Vec<u32>,
    /// Rows held in the band, bands written, rows taken.
    rows: usize,
    bands: usize,
    taken: usize,
    range: (f32, f32),
    holes: bool,
    done: bool,
}

/// The scratch folder's name inside the target folder.
const SCRATCH: &str = ".importing";

impl RowWriter {
    pub fn new(dir: &Path, meta: RegionMeta) -> Result<Self, RegionError> {
        let scratch = dir.join(SCRATCH);
        if scratch.exists() {
            fs::remove_dir_all(&scratch)
                .or_else(|e| err(format!("cannot clear {}: {e}", scratch.display())))?;
        }
        fs::create_dir_all(&scratch)
            .or_else(|e| err(format!("cannot create {}: {e}", scratch.display())))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            scratch,
            meta,
            heights: Vec::with_capacity(meta.width * meta.region),
            control: Vec::new(),
            rows: 0,
            bands: 0,
            taken: 0,
            range: (f32::INFINITY, f32::NEG_INFINITY),
            holes: false,
            done: false,
        })
    }

    /// Bytes held for the band being gathered.
    pub fn bytes(&self) -> usize {
        self.heights.capacity() * 4 + self.control.capacity() * 4
    }

    /// Rows written so far.
    pub fn rows_written(&self) -> usize {
        self.taken
    }

    /// Appends whole rows (`width` samples each); `holes[i]` marks sample i as a hole.
    pub fn push(&mut self, heights: &[f32], holes: &[bool]) -> Result<(), RegionError> {
        let w = self.meta.width;
        if !heights.len().is_multiple_of(w) || holes.len() != heights.len() {
            return err(format!(
                "rows of {w} samples expected, got {} heights and {} hole flags",
                heights.len(),
                holes.len()
            ));
        }
        for (h, m) in heights.chunks_exact(w).zip(holes.chunks_exact(w)) {
            if self.rows_written() >= self.meta.depth {
                return err(format!("more than the {} rows of the map", self.meta.depth));
            }
            for &v in h {
                self.range = (self.range.0.min(v), self.range.1.max(v));
            }
            self.heights.extend_from_slice(h);
            if !self.holes && m.iter().any(|&b| b) {
                self.holes = true;
            }
            if self.holes {
                self.control.resize(self.rows * w, 0);
                self.control
                    .extend(m.iter().map(|&b| if b { HOLE } else { 0 }));
            }
            self.rows += 1;
            self.taken += 1;
            if self.rows == self.meta.region || self.rows_written() == self.meta.depth {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Writes the band's mip-0 regions.
    fn flush(&mut self) -> Result<(), RegionError> {
        let (w, r, rz) = (self.meta.width, self.meta.region, self.bands);
        self.control
            .resize(if self.holes { self.rows * w } else { 0 }, 0);
        let mut h = Vec::with_capacity(r * r);
        let mut c = Vec::with_capacity(r * r);
        for rx in 0..w.div_ceil(r) {
            let (x0, x1) = (rx * r, (rx * r + r).min(w));
            h.clear();
            c.clear();
            for z in 0..self.rows {
                h.extend_from_slice(&self.heights[z * w + x0..z * w + x1]);
                if self.holes {
                    c.extend_from_slice(&self.control[z * w + x0..z * w + x1]);
                }
            }
            write_le(&file(&self.scratch, 'h', 0, rx, rz), &h, f32::to_le_bytes)?;
            if c.iter().any(|&v| v != 0) {
                write_le(&file(&self.scratch, 'c', 0, rx, rz), &c, u32::to_le_bytes)?;
            }
        }
        self.heights.clear();
        self.control.clear();
        self.rows = 0;
        self.bands += 1;
        Ok(())
    }

    /// Builds the coarser mips and moves the finished map into the folder (replacing the map it held;
    /// other files stay). Returns the header written.
    pub fn finish(mut self) -> Result<RegionMeta, RegionError> {
        if self.rows_written() != self.meta.depth {
            return err(format!(
                "{} of the map's {} rows arrived",
                self.rows_written(),
                self.meta.depth
            ));
        }
        let meta = build_levels(&self.scratch, self.meta, None, self.range, self.holes)?;
        clear_regions(&self.dir)?;
        let entries = fs::read_dir(&self.scratch)
            .or_else(|e| err(format!("cannot list {}: {e}", self.scratch.display())))?;
        for e in entries.flatten() {
            let to = self.dir.join(e.file_name());
            fs::rename(e.path(), &to)
                .or_else(|er| err(format!("cannot move {}: {er}", to.display())))?;
        }
        self.done = true;
        let _ = fs::remove_dir(&self.scratch);
        Ok(meta)
    }
}

impl Drop for RowWriter {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_dir_all(&self.scratch);
        }
    }
}
