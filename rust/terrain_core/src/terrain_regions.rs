//! Terrain stored as a folder of region files, read on demand within a memory budget: maps far bigger than
//! memory (65536² samples is 16 GB of heights) drawn and queried like a `TerrainData`.
//!
//! A folder holds `terrain.regions` (a small text header: size, spacing, region size, mip count, height
//! range, whether there is a control map) and per mip level `m` files `h<m>_<rx>_<rz>.bin`: `region²`
//! little-endian f32 heights (fewer at the map's right and far edges), row-major; mip 0 also has
//! `c0_<rx>_<rz>.bin` control values (u32) where any sample is painted or a hole. Mip level m is the map
//! box-filtered 2^m times (each sample the mean of the 2 × 2 of the level below: it sits at the centre of
//! what it averages, so every level keeps the half-sample-centre convention with `spacing * 2^m`).
//!
//! Mip 0 is the data itself (saved and opened bit for bit); queries (`Samples`, `height_at`, raycasts,
//! collision) read it, loading the regions they touch. Coarser clipmap levels draw from coarser mips
//! (`Samples::coarse`: a lattice step of 2^k samples reads mip k − 1), so the far rings cost a few regions
//! each instead of the whole map. Loaded regions are kept in a cache bounded by `budget` bytes (least
//! recently used go first); a query outside loaded regions loads synchronously — about 3 ms per
//! 512² region here — or call `prefetch` first and ask `is_loaded`.

use crate::bezier_patch::{self, Texel};
use crate::sample_rect::SampleRect;
use crate::samples::Samples;
use crate::samples::{corners, grid_texels, slope};
use crate::terrain_data::TerrainData;
use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

mod edit;
pub use edit::{REGION_ABSENT, REGION_EDITED, REGION_FAILED, REGION_LOADED};
mod files;
pub mod generated;
mod rows;
pub(crate) use files::HEADER;
use files::{file, read_le, write_le, write_safely};
pub use rows::RowWriter;

const MAGIC: &str = "wandering_terrain regions 1";

/// What went wrong with a region map; each kind carries a message naming the setting or the file.
#[derive(Clone, Debug, PartialEq)]
pub enum RegionError {
    /// A setting out of range (region size, map size, spacing) or an edit that does not fit the map.
    Invalid(String),
    /// A file that cannot be opened or read.
    Read(String),
    /// A file or folder that cannot be written, created, moved or removed.
    Write(String),
    /// A file whose content is wrong: a header that does not parse, a failed checksum, a short region.
    Damaged(String),
}

impl RegionError {
    pub fn message(&self) -> &str {
        match self {
            Self::Invalid(m) | Self::Read(m) | Self::Write(m) | Self::Damaged(m) => m,
        }
    }
}

impl std::error::Error for RegionError {}

impl fmt::Display for RegionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// A terrain setting or edit refused by `TerrainData`'s rules (the same rules for region maps).
impl From<crate::terrain_data::TerrainDataError> for RegionError {
    fn from(e: crate::terrain_data::TerrainDataError) -> Self {
        Self::Invalid(e.to_string())
    }
}

fn invalid<T>(m: String) -> Result<T, RegionError> {
    Err(RegionError::Invalid(m))
}

fn read_error<T>(m: String) -> Result<T, RegionError> {
    Err(RegionError::Read(m))
}

fn write_error<T>(m: String) -> Result<T, RegionError> {
    Err(RegionError::Write(m))
}

/// What the header says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionMeta {
    pub width: usize,
    pub depth: usize,
    pub spacing: f64,
    /// Samples per region side (a power of two, 16..=4096).
    pub region: usize,
    /// Mip levels stored (1 + until the map fits one region).
    pub mips: u32,
    pub range: (f32, f32),
    pub has_control: bool,
    /// Sample index (in the coordinates queries, edits and nodes use) of stored sample (0, 0): 0 for a
    /// map that starts at the origin; `-ENDLESS_SIDE / 2` for an endless map, centred on the origin.
    pub origin: [i64; 2],
    /// An endless map (generator-backed): it reports no size, so a node draws and collides with it like an
    /// endless generator, and stores only the regions someone edited.
    pub endless: bool,
}

/// Samples a side an endless map spans, centred on the origin: ±8,388,608 samples, more than a float
/// position can place to a centimetre (a float's step is 1 m at 8,388,608 m, and Godot's physics and
/// rendering use floats), so the bound is never the one a game meets.
pub const ENDLESS_SIDE: usize = 1 << 24;

/// The region sizes a map takes: a power of two in [16, 4096] samples a side.
pub fn check_region_size(region: usize) -> Result<(), RegionError> {
    if !(region.is_power_of_two() && (16..=4096).contains(&region)) {
        return invalid(format!(
            "region_size must be a power of two in [16, 4096], got {region}"
        ));
    }
    Ok(())
}

impl RegionMeta {
    pub fn new(
        width: usize,
        depth: usize,
        spacing: f64,
        region: usize,
    ) -> Result<Self, RegionError> {
        check_region_size(region)?;
        if width < 2 || depth < 2 || width > 1 << 24 || depth > 1 << 24 {
            return invalid(format!(
                "size must be in [2, 16777216] a side, got {width} x {depth}"
            ));
        }
        // One spacing rule for every source (a map saved from any valid TerrainData opens).
        crate::terrain_data::check_spacing(spacing)?;
        let mut mips = 1;
        while width.max(depth).div_ceil(1 << (mips - 1)) > region {
            mips += 1;
        }
        Ok(Self {
            width,
            depth,
            spacing,
            region,
            mips,
            range: (0.0, 0.0),
            has_control: false,
            origin: [0, 0],
            endless: false,
        })
    }

    /// An endless map's layout: `ENDLESS_SIDE`² samples centred on the origin.
    pub fn endless(spacing: f64, region: usize) -> Result<Self, RegionError> {
        let mut m = Self::new(ENDLESS_SIDE, ENDLESS_SIDE, spacing, region)?;
        m.origin = [-(ENDLESS_SIDE as i64 / 2); 2];
        m.endless = true;
        Ok(m)
    }

    /// The stored index of sample `p` (query coordinates) on axis `a`.
    pub fn stored(&self, a: usize, p: i64) -> i64 {
        p - self.origin[a]
    }

    /// The samples whose data (height or slopes) an edit of stored rectangle (x, z, w, d) changed, in query
    /// coordinates: the rectangle grown by the one sample a slope reads, kept inside the map (what
    /// `TerrainData`'s edits report too, so windows and collision refresh the slopes beside an edit).
    pub fn changed_rect(&self, x: usize, z: usize, w: usize, d: usize) -> SampleRect {
        let (x0, z0) = (x.saturating_sub(1), z.saturating_sub(1));
        let (x1, z1) = ((x + w + 1).min(self.width), (z + d + 1).min(self.depth));
        SampleRect {
            x: self.public(0, x0),
            z: self.public(1, z0),
            w: x1.saturating_sub(x0),
            d: z1.saturating_sub(z0),
        }
    }

    /// The query coordinate of stored sample `s` on axis `a`.
    pub fn public(&self, a: usize, s: usize) -> i64 {
        s as i64 + self.origin[a]
    }

    /// Samples per side of mip level `m`.
    pub fn mip_size(&self, m: u32) -> [usize; 2] {
        [self.width.div_ceil(1 << m), self.depth.div_ceil(1 << m)]
    }

    /// Regions per side of mip level `m`.
    pub fn regions(&self, m: u32) -> [usize; 2] {
        self.mip_size(m).map(|s| s.div_ceil(self.region))
    }

    /// Samples per side of region (rx, rz) of mip `m`.
    fn region_dims(&self, m: u32, rx: usize, rz: usize) -> [usize; 2] {
        let [w, d] = self.mip_size(m);
        [
            (w - rx * self.region).min(self.region),
            (d - rz * self.region).min(self.region),
        ]
    }

    fn write(&self, dir: &Path) -> Result<(), RegionError> {
        let text = format!(
            "{MAGIC}\nwidth {}\ndepth {}\nspacing {:?}\nregion {}\nmips {}\nrange {:?} {:?}\ncontrol {}\n",
            self.width,
            self.depth,
            self.spacing,
            self.region,
            self.mips,
            self.range.0,
            self.range.1,
            u8::from(self.has_control)
        );
        // Only endless maps say where they start: older readers open every other map unchanged.
        let text = if self.endless {
            format!(
                "{text}endless 1\norigin {} {}\n",
                self.origin[0], self.origin[1]
            )
        } else {
            text
        };
        // Written last, safely: a folder whose header is there holds a whole map.
        write_safely(&dir.join(HEADER), &[text.as_bytes()])
    }

    fn read(dir: &Path) -> Result<Self, RegionError> {
        let path = dir.join(HEADER);
        let bytes = fs::read(&path)
            .or_else(|e| read_error(format!("cannot read {}: {e}", path.display())))?;
        let bad = |what: &str| RegionError::Damaged(format!("{}: {what}", path.display()));
        let text = String::from_utf8(bytes).map_err(|_| bad("not text: the header is damaged"))?;
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(bad(&format!("not a region folder header (want `{MAGIC}`)")));
        }
        let mut kv = HashMap::new();
        for l in lines {
            if let Some((k, v)) = l.split_once(' ') {
                kv.insert(k.to_string(), v.to_string());
            }
        }
        let get = |k: &str| kv.get(k).ok_or_else(|| bad(&format!("missing `{k}`")));
        let num = |k: &str| -> Result<f64, RegionError> {
            get(k)?
                .parse::<f64>()
                .map_err(|_| bad(&format!("`{k}` is not a number")))
        };
        let int = |k: &str| -> Result<usize, RegionError> {
            get(k)?
                .parse::<usize>()
                .map_err(|_| bad(&format!("`{k}` is not a whole number")))
        };
        let mut meta = Self::new(
            int("width")?,
            int("depth")?,
            num("spacing")?,
            int("region")?,
        )
        .map_err(|e| bad(e.message()))?;
        if int("mips")? != meta.mips as usize {
            return Err(bad("`mips` does not match the size and region size"));
        }
        let r: Vec<f32> = get("range")?
            .split(' ')
            .filter_map(|v| v.parse().ok())
            .collect();
        if r.len() != 2 || !r.iter().all(|v| v.is_finite()) {
            return Err(bad("`range` must be two finite numbers"));
        }
        meta.range = (r[0], r[1]);
        meta.has_control = int("control")? == 1;
        if kv.contains_key("endless") {
            if int("endless")? != 1 || (meta.width, meta.depth) != (ENDLESS_SIDE, ENDLESS_SIDE) {
                return Err(bad("`endless` must be 1, with a size of 16777216 a side"));
            }
            let o: Vec<i64> = get("origin")?
                .split(' ')
                .filter_map(|v| v.parse().ok())
                .collect();
            let half = -(ENDLESS_SIDE as i64 / 2);
            if o != [half, half] {
                return Err(bad(&format!("`origin` must be {half} {half}")));
            }
            meta.origin = [half, half];
            meta.endless = true;
        }
        Ok(meta)
    }
}

/// One loaded region.
#[derive(Clone, Debug)]
struct Region {
    width: usize,
    heights: Vec<f32>,
    /// Empty: nothing painted in this region.
    control: Vec<u32>,
}

impl Region {
    fn bytes(&self) -> usize {
        (self.heights.len() + self.control.len()) * 4
    }
}

type Key = (u32, usize, usize);

#[derive(Default)]
struct Cache {
    map: HashMap<Key, (Arc<Region>, u64)>,
    bytes: usize,
    clock: u64,
    /// Edited regions not saved yet (never evicted): whether their heights, their control values changed.
    dirty: HashMap<Key, (bool, bool)>,
}

/// A folder of region files, opened for reading and editing (`edit.rs`).
pub struct TerrainRegions {
    dir: PathBuf,
    /// The layout (size, spacing, regions, mips) and what the header said when opened or last saved.
    meta: RegionMeta,
    /// Lowest and highest height with the edits (grows with them; exact again after `save`).
    bounds: Mutex<(f32, f32)>,
    /// Whether any control value may be set (the header's flag, or an edit's, or a failed region's holes).
    has_control: std::sync::atomic::AtomicBool,
    cache: Mutex<Cache>,
    budget: AtomicU64,
    loads: AtomicU64,
    /// Regions that could not be read: drawn as holes, reported once (`take_failures`).
    failed: Mutex<edit::Failures>,
    /// Where regions without files come from (a generator-backed map stores only edited regions).
    fallback: Option<Fallback>,
}

/// Makes region (mip, x, z) of the given size when it has no file.
pub type Fallback = Arc<dyn Fn(u32, usize, usize, [usize; 2]) -> Vec<f32> + Send + Sync>;

/// Default cache budget: 256 MB of loaded regions.
pub const DEFAULT_BUDGET: u64 = 256 << 20;
/// Smallest budget a `TerrainRegions` takes: 16 MB.
pub const MIN_BUDGET: u64 = 16 << 20;
/// Fewest regions the cache keeps whatever its budget (16 MB of 512² regions, 1 GB of 4096² ones).
pub const MIN_REGIONS: usize = 16;

/// The box filter: mip sample (i, j) is the mean of the 2 × 2 samples below it (indices clamped at the
/// finer level's edges). `fine(x, z)` reads the finer level.
fn downsample(
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

/// Writes a map to `dir` (created if missing; its old map is replaced file by file, the header last, so a
/// crash leaves every file whole): mip 0 region by region from `source`, each coarser mip from
/// the one below, in quadtree order so only a few regions are in memory at once (the four children of a
/// region are made in parallel). Returns the header written.
pub fn write_regions(
    dir: &Path,
    meta: RegionMeta,
    source: &RegionSource,
) -> Result<RegionMeta, RegionError> {
    let scratch = files::Scratch::new(dir, ".saving")?;
    let meta = build_levels(
        scratch.path(),
        meta,
        Some(source),
        0,
        (f32::INFINITY, f32::NEG_INFINITY),
        false,
    )?;
    scratch.commit()?;
    Ok(meta)
}

/// Writes the levels of `dir` (mip 0 from `source`; or, when None, from level `on_disk` up, the levels
/// up to it being written already), then the header with the height range and control flag found
/// (joined with those given).
fn build_levels(
    dir: &Path,
    meta: RegionMeta,
    source: Option<&RegionSource>,
    on_disk: u32,
    range: (f32, f32),
    control: bool,
) -> Result<RegionMeta, RegionError> {
    let w = Writer {
        dir,
        meta,
        source,
        on_disk,
        range: Mutex::new(range),
        control: AtomicU64::new(u64::from(control)),
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
}

impl Writer<'_> {
    /// Region (rx, rz) of mip m: written, and returned for the level above; None outside the map.
    fn build(&self, m: u32, rx: usize, rz: usize) -> Result<Option<Vec<f32>>, RegionError> {
        let meta = &self.meta;
        let [nx, nz] = meta.regions(m);
        if rx >= nx || rz >= nz {
            return Ok(None);
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
        Ok(heights)
    }
}

/// Saves a `TerrainData` as region files (heights and control bit for bit).
pub fn save(dir: &Path, data: &TerrainData, region: usize) -> Result<RegionMeta, RegionError> {
    let meta = RegionMeta::new(data.width(), data.depth(), data.spacing(), region)?;
    let (w, h, c) = (data.width(), data.heights(), data.control_map());
    write_regions(dir, meta, &|rx, rz, [dw, dd]| {
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

impl TerrainRegions {
    pub fn open(dir: &Path) -> Result<Self, RegionError> {
        let meta = RegionMeta::read(dir)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            meta,
            bounds: Mutex::new(meta.range),
            has_control: std::sync::atomic::AtomicBool::new(meta.has_control),
            cache: Mutex::new(Cache::default()),
            budget: AtomicU64::new(DEFAULT_BUDGET),
            loads: AtomicU64::new(0),
            failed: Mutex::new(edit::Failures::default()),
            fallback: None,
        })
    }

    /// Opens a folder whose missing regions come from `fallback` (see `generated`).
    pub fn open_with(dir: &Path, fallback: Fallback) -> Result<Self, RegionError> {
        let mut r = Self::open(dir)?;
        r.fallback = Some(fallback);
        Ok(r)
    }

    /// Whether regions without files are generated.
    pub fn is_generated(&self) -> bool {
        self.fallback.is_some()
    }

    pub fn meta(&self) -> &RegionMeta {
        &self.meta
    }
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bytes of regions the cache may keep (regions in use by a running query stay alive beyond it).
    pub fn set_budget(&self, bytes: u64) {
        self.budget.store(bytes, Ordering::Relaxed);
        self.evict();
    }
    pub fn budget(&self) -> u64 {
        self.budget.load(Ordering::Relaxed)
    }
    /// The budget the cache keeps to: at least `MIN_REGIONS` regions, so the few regions a clipmap ring or a
    /// collision tile reads at once are never pushed out by each other (which would read them again and
    /// again).
    fn effective_budget(&self) -> usize {
        let region = self.meta.region * self.meta.region * 4;
        (self.budget() as usize).max(MIN_REGIONS * region)
    }
    /// Bytes of regions in the cache.
    pub fn cached_bytes(&self) -> usize {
        self.cache.lock().expect("cache").bytes
    }
    /// Region files read since opening.
    pub fn loads(&self) -> u64 {
        self.loads.load(Ordering::Relaxed)
    }

    /// Whether the mip-0 region holding sample (x, z) (query coordinates, clamped to the map) is loaded.
    pub fn is_loaded(&self, x: i64, z: i64) -> bool {
        let key = self.key(0, self.meta.stored(0, x), self.meta.stored(1, z));
        self.cache.lock().expect("cache").map.contains_key(&key)
    }

    /// Loads the mip-0 regions within `radius` samples of sample (x, z); returns how many were read.
    pub fn prefetch(&self, x: i64, z: i64, radius: i64) -> Result<usize, RegionError> {
        let (x, z) = (self.meta.stored(0, x), self.meta.stored(1, z));
        let (a, b) = (
            self.key(0, x - radius, z - radius),
            self.key(0, x + radius, z + radius),
        );
        let mut n = 0;
        for rz in a.2..=b.2 {
            for rx in a.1..=b.1 {
                if !self
                    .cache
                    .lock()
                    .expect("cache")
                    .map
                    .contains_key(&(0, rx, rz))
                {
                    self.region((0, rx, rz))?;
                    n += 1;
                }
            }
        }
        Ok(n)
    }

    /// The region key holding sample (x, z) of mip m (indices clamped to the mip).
    fn key(&self, m: u32, x: i64, z: i64) -> Key {
        let [w, d] = self.meta.mip_size(m);
        let x = x.clamp(0, w as i64 - 1) as usize;
        let z = z.clamp(0, d as i64 - 1) as usize;
        (m, x / self.meta.region, z / self.meta.region)
    }

    /// A region, from the cache or read now.
    fn region(&self, key: Key) -> Result<Arc<Region>, RegionError> {
        {
            let mut c = self.cache.lock().expect("cache");
            c.clock += 1;
            let now = c.clock;
            if let Some(e) = c.map.get_mut(&key) {
                e.1 = now;
                return Ok(e.0.clone());
            }
        }
        let r = match self.read_region(key) {
            Ok(r) => Arc::new(r),
            // Not drawn as ground: a stand-in of holes, the failure kept for the report.
            Err(e) => Arc::new(self.failed(key, e)),
        };
        let mut c = self.cache.lock().expect("cache");
        c.clock += 1;
        let now = c.clock;
        if c.map.insert(key, (r.clone(), now)).is_none() {
            c.bytes += r.bytes();
        }
        drop(c);
        self.evict();
        Ok(r)
    }

    /// Reads region `key` from its files.
    fn read_region(&self, key: Key) -> Result<Region, RegionError> {
        let (m, rx, rz) = key;
        if let Some(e) = self.failure(key) {
            return Err(e);
        }
        let [w, d] = self.meta.region_dims(m, rx, rz);
        let hpath = file(&self.dir, 'h', m, rx, rz);
        let heights: Vec<f32> = match &self.fallback {
            Some(f) if !hpath.exists() => f(m, rx, rz, [w, d]),
            _ => read_le(&hpath, w * d)?
                .into_iter()
                .map(f32::from_le_bytes)
                .collect(),
        };
        let cpath = file(&self.dir, 'c', m, rx, rz);
        let control = if m == 0 && self.has_control() && cpath.exists() {
            read_le(&cpath, w * d)?
                .into_iter()
                .map(u32::from_le_bytes)
                .collect()
        } else {
            Vec::new()
        };
        self.loads.fetch_add(1, Ordering::Relaxed);
        Ok(Region {
            width: w,
            heights,
            control,
        })
    }

    /// Drops least recently used regions until the cache fits its budget (edited ones stay).
    fn evict(&self) {
        let budget = self.effective_budget();
        let mut c = self.cache.lock().expect("cache");
        // The newest region stays whatever the budget: its reader needs it now.
        while c.bytes > budget && c.map.len() > 1 + c.dirty.len() {
            let Some(oldest) = c
                .map
                .iter()
                .filter(|(k, _)| !c.dirty.contains_key(*k))
                .min_by_key(|(_, (_, t))| *t)
                .map(|(k, _)| *k)
            else {
                break;
            };
            if let Some((r, _)) = c.map.remove(&oldest) {
                c.bytes -= r.bytes();
            }
        }
    }

    /// The view of mip level `m` as a sample grid.
    pub fn mip(&self, m: u32) -> MipView<'_> {
        MipView {
            store: self,
            mip: m.min(self.meta.mips - 1),
        }
    }

    /// Heights of mip 0 in a rectangle (clamped reads), row-major: what a `TerrainData` of that region holds.
    pub fn heights_region(&self, x: usize, z: usize, w: usize, d: usize) -> Vec<f32> {
        self.mip_block(0, x, z, w, d)
    }

    /// Heights of mip `m` in a rectangle, row-major: row spans copied region by region where the
    /// rectangle lies inside the mip, clamped reads otherwise.
    pub(crate) fn mip_block(&self, m: u32, x: usize, z: usize, w: usize, d: usize) -> Vec<f32> {
        let [mw, md] = self.meta.mip_size(m);
        let v = self.mip(m);
        let mut cur = Cursor::new(&v);
        let mut out = Vec::with_capacity(w * d);
        if x + w > mw || z + d > md {
            for j in 0..d {
                for i in 0..w {
                    out.push(cur.height((x + i) as i64, (z + j) as i64));
                }
            }
            return out;
        }
        let r = self.meta.region;
        for j in z..z + d {
            let mut i = x;
            while i < x + w {
                let end = ((i / r + 1) * r).min(x + w);
                match cur.locate(i as i64, j as i64) {
                    Some((reg, k)) => out.extend_from_slice(&reg.heights[k..k + (end - i)]),
                    None => out.extend(std::iter::repeat_n(self.meta.range.0, end - i)),
                }
                i = end;
            }
        }
        out
    }

    /// Control values of mip 0 in a rectangle (stored indices, clamped reads), row-major. A region without
    /// paint holds no control values (0); one that cannot be read is holes.
    pub fn control_region(&self, x: usize, z: usize, w: usize, d: usize) -> Vec<u32> {
        let view = self.mip(0);
        let mut cur = Cursor::new(&view);
        let mut out = Vec::with_capacity(w * d);
        for j in 0..d {
            for i in 0..w {
                let c = cur.locate((x + i) as i64, (z + j) as i64);
                out.push(c.map_or(0, |(r, k)| r.control.get(k).copied().unwrap_or(0)));
            }
        }
        out
    }
}

/// One mip level of a region folder, read as a sample grid.
pub struct MipView<'a> {
    store: &'a TerrainRegions,
    mip: u32,
}

/// Reads samples of a mip, keeping the last region it touched (most reads fall in the same region, so the
/// cache's lock is taken once per region rather than once per sample).
struct Cursor<'v, 'a> {
    view: &'v MipView<'a>,
    last: Option<(Key, Arc<Region>)>,
}

impl<'v, 'a> Cursor<'v, 'a> {
    fn new(view: &'v MipView<'a>) -> Self {
        Self { view, last: None }
    }

    /// Region holding clamped sample (x, z) and the index inside it. A region that cannot be read (a file
    /// removed or damaged after opening) reads as flat ground at the map's lowest height.
    #[inline]
    fn locate(&mut self, x: i64, z: i64) -> Option<(&Region, usize)> {
        let s = self.view.store;
        let key = s.key(self.view.mip, x, z);
        if self.last.as_ref().map(|l| l.0) != Some(key) {
            let r = s.region(key).ok()?;
            self.last = Some((key, r));
        }
        let [w, d] = s.meta.mip_size(self.view.mip);
        let x = x.clamp(0, w as i64 - 1) as usize % s.meta.region;
        let z = z.clamp(0, d as i64 - 1) as usize % s.meta.region;
        let r = &self.last.as_ref().expect("set above").1;
        Some((r, z * r.width + x))
    }

    #[inline]
    fn height(&mut self, x: i64, z: i64) -> f32 {
        let lo = self.view.store.meta.range.0;
        self.locate(x, z).map_or(lo, |(r, i)| r.heights[i])
    }

    /// `TerrainData::texel`'s rule: the sample clamped to the grid, its neighbours clamped again.
    #[inline]
    fn texel(&mut self, x: i64, z: i64) -> Texel {
        let [w, d] = self.view.store.meta.mip_size(self.view.mip);
        let (wl, dl) = (w as i64 - 1, d as i64 - 1);
        let (x, z) = (x.clamp(0, wl), z.clamp(0, dl));
        let h = self.height(x, z);
        let sx = slope(
            self.height((x - 1).max(0), z),
            self.height((x + 1).min(wl), z),
        );
        let sz = slope(
            self.height(x, (z - 1).max(0)),
            self.height(x, (z + 1).min(dl)),
        );
        [h, sx, sz]
    }

    fn patch(&mut self, sx: f64, sz: f64) -> ([Texel; 4], f32, f32) {
        let ([ix, iz], tu, tv) = bezier_patch::locate(sx, sz);
        let meta = &self.view.store.meta;
        let [w, d] = meta.mip_size(self.view.mip).map(|v| v as i64);
        let r = meta.region as i64;
        let inside = ix >= 1 && iz >= 1 && ix < w - 2 && iz < d - 2;
        if inside && (ix - 1) / r == (ix + 2) / r && (iz - 1) / r == (iz + 2) / r {
            // The 4 x 4 block around the patch lies in one region: read it once, with the arithmetic of
            // `TerrainData`'s patch (the same bits as the texel path).
            if let Some((reg, i)) = self.locate(ix, iz) {
                return (grid_texels(&reg.heights, reg.width, i), tu, tv);
            }
        }
        (corners(ix, iz, |x, z| self.texel(x, z)), tu, tv)
    }
}

impl MipView<'_> {
    /// Stored index of this mip's sample at query index 0 subtracted: `origin / 2^mip` (exact, an endless
    /// map's origin being a multiple of every mip's step).
    fn shift(&self) -> [i64; 2] {
        self.store.meta.origin.map(|o| o >> self.mip)
    }
}

/// Query coordinates in, stored ones to the cursor: an endless map's samples are signed around the origin.
impl Samples for MipView<'_> {
    fn spacing(&self) -> f64 {
        self.store.meta.spacing * f64::from(1u32 << self.mip)
    }
    fn texel(&self, x: i64, z: i64) -> Texel {
        let [ox, oz] = self.shift();
        Cursor::new(self).texel(x - ox, z - oz)
    }
    fn control(&self, x: i64, z: i64) -> u32 {
        let [ox, oz] = self.shift();
        let (x, z) = (x - ox, z - oz);
        if self.mip != 0 || !self.store.has_control_at(x, z) {
            return 0;
        }
        let mut c = Cursor::new(self);
        c.locate(x, z)
            .map_or(0, |(r, i)| r.control.get(i).copied().unwrap_or(0))
    }
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        let [ox, oz] = self.shift();
        let (c, tu, tv) = Cursor::new(self).patch(sx - ox as f64, sz - oz as f64);
        bezier_patch::gradient_in_patch(&c, tu, tv)
    }
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        let [ox, oz] = self.shift();
        let (c, tu, tv) = Cursor::new(self).patch(sx - ox as f64, sz - oz as f64);
        bezier_patch::height_in_patch(&c, tu, tv)
    }
    fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool {
        if self.mip != 0 || !(sx.is_finite() && sz.is_finite()) {
            return false;
        }
        // The region under the sample is read first: one that cannot be read turns into holes.
        let [ox, oz] = self.shift();
        if !self
            .store
            .has_control_at(sx.floor() as i64 - ox, sz.floor() as i64 - oz)
        {
            return false;
        }
        crate::samples::hole_rule(self, sx, sz)
    }
    fn size(&self) -> Option<[usize; 2]> {
        (!self.store.meta.endless).then(|| self.store.meta.mip_size(self.mip))
    }
    fn height_bounds(&self) -> (f32, f32) {
        self.store.bounds()
    }
}

/// The folder as a sample grid: mip 0 for queries, coarser mips for coarse clipmap levels.
impl Samples for TerrainRegions {
    fn patch_heights(&self, sz: f64, sx: &dyn Fn(usize) -> f64, out: &mut [f32]) {
        let view = self.mip(0);
        if self.has_control() {
            // Holes need the control values: the general path.
            return Samples::patch_heights(&view, sz, sx, out);
        }
        // One cursor for the row: the cache's lock once per region instead of once per point.
        let mut cur = Cursor::new(&view);
        let [ox, oz] = self.meta.origin.map(|o| o as f64);
        for (i, o) in out.iter_mut().enumerate() {
            let (c, tu, tv) = cur.patch(sx(i) - ox, sz - oz);
            *o = bezier_patch::height_in_patch(&c, tu, tv);
        }
    }
    fn spacing(&self) -> f64 {
        self.meta.spacing
    }
    fn texel(&self, x: i64, z: i64) -> Texel {
        self.mip(0).texel(x, z)
    }
    fn control(&self, x: i64, z: i64) -> u32 {
        self.mip(0).control(x, z)
    }
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        self.mip(0).patch_gradient(sx, sz)
    }
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        self.mip(0).patch_height(sx, sz)
    }
    fn is_hole_at_sample(&self, sx: f64, sz: f64) -> bool {
        self.mip(0).is_hole_at_sample(sx, sz)
    }
    fn size(&self) -> Option<[usize; 2]> {
        (!self.meta.endless).then_some([self.meta.width, self.meta.depth])
    }
    fn streamed(&self) -> bool {
        true
    }
    fn height_bounds(&self) -> (f32, f32) {
        self.bounds()
    }
    fn read_block(
        &self,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
        heights: &mut Vec<f32>,
        control: &mut Vec<u32>,
    ) {
        // One cursor for the block: the cache's lock once per region instead of once per sample.
        let view = self.mip(0);
        let mut cur = Cursor::new(&view);
        let (x0, z0) = (self.meta.stored(0, x0), self.meta.stored(1, z0));
        heights.clear();
        control.clear();
        for j in 0..d as i64 {
            for i in 0..w as i64 {
                heights.push(cur.height(x0 + i, z0 + j));
            }
        }
        if self.has_control() {
            for j in 0..d as i64 {
                for i in 0..w as i64 {
                    let c = cur.locate(x0 + i, z0 + j);
                    control.push(c.map_or(0, |(r, k)| r.control.get(k).copied().unwrap_or(0)));
                }
            }
        }
    }
    fn coarse(&self, step: f64) -> Option<Box<dyn Samples + '_>> {
        // A lattice step of 2^k samples reads mip k - 1: two mip samples per step keep the far rings'
        // shape while each ring touches only a few regions.
        let k = step.max(1.0).log2().floor() as i64 - 1;
        let m = k.clamp(0, i64::from(self.meta.mips) - 1) as u32;
        (m > 0).then(|| Box::new(self.mip(m)) as Box<dyn Samples + '_>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clipmap::ClipmapConfig;
    use crate::clipmap_data::{ClipmapData, Frame};
    use crate::samples::{height_at, normal_at};

    fn terrain(w: usize, d: usize) -> TerrainData {
        let mut t = crate::test_terrains::Waves {
            x: (0.21, 9.0),
            z: (0.13, 5.0),
            jitter: (17, 0.07),
        }
        .terrain(w, d, 1.5);
        t.set_holes_region(t.region(40, 30, 3, 4).unwrap(), &[1; 12])
            .unwrap();
        t.set_layer_region(t.region(70, 20, 9, 9).unwrap(), 2, &[1.0; 81])
            .unwrap();
        t
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("wt_regions_{name}_{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn every_spacing_a_terrain_data_takes_saves_and_opens() {
        // One spacing rule: a TerrainData of spacing 2000 (valid) was once refused by the region writer.
        for spacing in [1e-3, 2000.0, 1e6] {
            let d = tmp(&format!("spacing_{spacing}"));
            let t =
                TerrainData::from_heights(20, 20, spacing, (0..400).map(|i| i as f32).collect())
                    .unwrap();
            save(&d, &t, 16).unwrap();
            let r = TerrainRegions::open(&d).unwrap();
            assert_eq!(r.spacing(), spacing);
            assert_eq!(r.heights_region(0, 0, 20, 20), t.heights());
            let _ = fs::remove_dir_all(&d);
        }
        let e = crate::generation::Generated::new(&crate::generation::NoiseParams::default(), 0.0);
        assert_eq!(
            e.err().map(|e| e.to_string()),
            Some("spacing must be a number in [0.001, 1000000], got 0".to_string())
        );
    }

    #[test]
    fn save_and_open_are_bit_exact_and_the_surface_is_the_same() {
        let t = terrain(150, 97);
        let dir = tmp("exact");
        let meta = save(&dir, &t, 32).unwrap();
        assert_eq!(
            meta.mips, 4,
            "150 samples in 32-sample regions: mips of 150, 75, 38, 19"
        );
        let r = TerrainRegions::open(&dir).unwrap();
        assert_eq!(r.meta(), &meta);
        let hs = r.heights_region(0, 0, 150, 97);
        assert!(hs
            .iter()
            .zip(t.heights())
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        assert_eq!(r.control_region(0, 0, 150, 97), t.control_map());
        for i in 0..3000 {
            let (x, z) = (
                -5.0 + (i as f64 * 0.731) % 240.0,
                -5.0 + (i as f64 * 0.377) % 160.0,
            );
            let (a, b) = (height_at(&r, x, z), t.height_at(x, z));
            assert!(a.to_bits() == b.to_bits(), "({x}, {z}): {a} vs {b}");
            if !a.is_nan() {
                assert_eq!(normal_at(&r, x, z), t.normal_at(x, z));
            }
        }
        assert!(height_at(&r, 62.0, 50.0).is_nan(), "the hole is kept");
        // Mip 1 is the 2 x 2 mean of mip 0.
        let m1 = r.mip(1);
        let want = (t.heights()[0] + t.heights()[1] + t.heights()[150] + t.heights()[151]) * 0.25;
        assert_eq!(m1.texel(0, 0)[0], want);
        assert_eq!(m1.spacing(), 3.0);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cache_keeps_to_its_budget_and_prefetch_loads_ahead() {
        let t = terrain(256, 256);
        let dir = tmp("budget");
        save(&dir, &t, 16).unwrap();
        let r = TerrainRegions::open(&dir).unwrap();
        let one = 16 * 16 * 4;
        // Below `MIN_REGIONS` regions the cache keeps that many.
        r.set_budget(6 * one as u64);
        assert!(!r.is_loaded(100, 100));
        assert_eq!(
            r.prefetch(100, 100, 10).unwrap(),
            4,
            "a 21-sample square over 2 x 2 regions"
        );
        assert!(r.is_loaded(100, 100) && r.is_loaded(90, 110));
        for i in 0..200 {
            let _ = height_at(&r, (i * 13 % 380) as f64, (i * 29 % 380) as f64);
            assert!(
                r.cached_bytes() <= MIN_REGIONS * one,
                "{} bytes",
                r.cached_bytes()
            );
        }
        assert!(
            r.loads() > 16,
            "regions were dropped and read again: {}",
            r.loads()
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn clipmap_windows_over_regions_match_the_data_near_and_use_mips_far() {
        let t = terrain(300, 300);
        let dir = tmp("clipmap");
        save(&dir, &t, 32).unwrap();
        let r = TerrainRegions::open(&dir).unwrap();
        let cfg = ClipmapConfig::new(8, 5, 1.5).unwrap();
        let frame = Frame::default();
        let (mut a, mut b) = (ClipmapData::new(&cfg), ClipmapData::new(&cfg));
        a.follow(&t, &frame, [200.0, 210.0]);
        b.follow(&r, &frame, [200.0, 210.0]);
        // Lattice steps of 1 and 2 samples (levels 0, 1) and the fine layer read mip 0: identical.
        for l in [0, 1, a.fine_layer()] {
            assert_eq!(a.layer(l), b.layer(l), "layer {l}");
        }
        // Level 3 (step 8 samples) draws mip 2: close to the data, not equal.
        assert_ne!(a.layer(3), b.layer(3));
        let near = a
            .layer(3)
            .iter()
            .zip(b.layer(3))
            .all(|(p, q)| (p[0] - q[0]).abs() < 6.0);
        assert!(near, "coarse level within the relief's detail");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn levels_meet_bit_for_bit_while_the_target_moves_over_mips() {
        let t = terrain(600, 600);
        let dir = tmp("meet");
        save(&dir, &t, 32).unwrap();
        let r = TerrainRegions::open(&dir).unwrap();
        let cfg = ClipmapConfig::new(8, 5, 1.0).unwrap();
        let frame = Frame::default();
        let mut cd = ClipmapData::new(&cfg);
        let w = cd.window() as i64;
        let at = |cd: &ClipmapData, l: usize, g: [i64; 2]| {
            cd.layer(l)[(g[1].rem_euclid(w) * w + g[0].rem_euclid(w)) as usize][0]
        };
        for step in 0..120 {
            let p = [150.0 + step as f64 * 2.7, 160.0 + step as f64 * 1.3];
            cd.follow(&r, &frame, p);
            // Every point of level l + 1 that level l holds has the same height in both.
            for l in 0..3usize {
                let (o0, o1) = (cd.origin(l).unwrap(), cd.origin(l + 1).unwrap());
                for gz in o1[1]..o1[1] + w {
                    for gx in o1[0]..o1[0] + w {
                        let f = [2 * gx, 2 * gz];
                        if (o0[0]..o0[0] + w).contains(&f[0]) && (o0[1]..o0[1] + w).contains(&f[1])
                        {
                            assert_eq!(
                                at(&cd, l, f).to_bits(),
                                at(&cd, l + 1, [gx, gz]).to_bits(),
                                "step {step}, levels {l}/{}, point {f:?}",
                                l + 1
                            );
                        }
                    }
                }
            }
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_folders_and_settings_are_named() {
        let t = terrain(96, 64);
        let dir = tmp("bad");
        assert!(save(&dir, &t, 100)
            .unwrap_err()
            .to_string()
            .contains("region_size"));
        assert!(TerrainRegions::open(&dir.join("nope"))
            .err()
            .unwrap()
            .to_string()
            .contains("terrain.regions"));
        // The kinds a caller acts on: a bad setting, a folder that cannot be read.
        assert!(matches!(save(&dir, &t, 100), Err(RegionError::Invalid(_))));
        assert!(matches!(
            TerrainRegions::open(&dir.join("nope")),
            Err(RegionError::Read(_))
        ));
        save(&dir, &t, 16).unwrap();
        // A damaged region file: a hole there (NaN), not flat ground, and a failure naming it.
        fs::write(dir.join("h0_1_1.bin"), [0u8; 10]).unwrap();
        let r = TerrainRegions::open(&dir).unwrap();
        let h = height_at(&r, 24.0, 24.0);
        assert!(h.is_nan());
        assert!(r.take_failures()[0].3.contains("h0_1_1.bin"));
        // Saving again into the same folder leaves none of the old map's files (paint, other sizes).
        let painted = terrain(150, 97);
        save(&dir, &painted, 16).unwrap();
        assert!(dir.join("c0_4_1.bin").exists());
        save(&dir, &t, 32).unwrap();
        assert!(!dir.join("c0_4_1.bin").exists() && !dir.join("h0_5_5.bin").exists());
        fs::write(dir.join("notes.txt"), "kept").unwrap();
        save(&dir, &t, 32).unwrap();
        assert!(dir.join("notes.txt").exists(), "other files are left alone");
        fs::write(dir.join(HEADER), "something else").unwrap();
        assert!(TerrainRegions::open(&dir)
            .err()
            .unwrap()
            .to_string()
            .contains("header"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
