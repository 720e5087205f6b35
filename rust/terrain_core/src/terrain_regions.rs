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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

mod edit;
mod error;
pub use edit::{REGION_ABSENT, REGION_EDITED, REGION_FAILED, REGION_LOADED};
mod files;
mod format;
pub mod generated;
mod mips;
mod rows;
mod saved_stale;
mod views;
mod write;

pub use error::RegionError;
pub use files::{
    check_new_map, map_exists, read_layer_base, write_layer_base, Existing, LAYER_BASE_FILE,
};
use files::{file, read_le};
pub use format::{check_region_size, RegionMeta, ENDLESS_SIDE};
pub use rows::RowWriter;
pub use saved_stale::STALE_MIPS_FILE;
use views::Cursor;
pub use views::MipView;
pub use write::{save, write_regions, write_regions_with, RegionSource};

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
    /// Coarser mips an edit made stale, refreshed in the background or when first read (`mips.rs`), and
    /// whether there are any.
    stale: Mutex<mips::StaleMips>,
    stale_any: std::sync::atomic::AtomicBool,
    /// Held while stale mips are refreshed (one refresh at a time).
    settling: Mutex<()>,
    /// Whether a job refreshing them waits on the background lane (`refresh_mips_in_background`).
    queued: std::sync::atomic::AtomicBool,
    /// Held (shared) by a height edit from its samples to its stale mips, and (alone) by a save taking
    /// its snapshot: a save never writes an edit's samples without the record of the levels above them.
    edit_gate: std::sync::RwLock<()>,
}

/// Makes region (mip, x, z) of the given size when it has no file.
pub type Fallback = Arc<dyn Fn(u32, usize, usize, [usize; 2]) -> Vec<f32> + Send + Sync>;

/// Default cache budget: 256 MB of loaded regions.
pub const DEFAULT_BUDGET: u64 = 256 << 20;
/// Smallest budget a `TerrainRegions` takes: 16 MB.
pub const MIN_BUDGET: u64 = 16 << 20;
/// Fewest regions the cache keeps whatever its budget (16 MB of 512² regions, 1 GB of 4096² ones).
pub const MIN_REGIONS: usize = 16;

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
            stale: Mutex::default(),
            stale_any: std::sync::atomic::AtomicBool::new(false),
            settling: Mutex::new(()),
            queued: std::sync::atomic::AtomicBool::new(false),
            edit_gate: std::sync::RwLock::new(()),
        }
        .with_saved_stale())
    }

    /// The coarser levels a generator-backed map's last save left stale, listed again.
    fn with_saved_stale(self) -> Self {
        self.restore_saved_stale();
        self
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

    /// Whether every region of the finest level has a file: a finite map written whole (`save_regions`,
    /// `generate`), where a generator would never be asked for a region. False for an endless map.
    pub fn stores_every_region(&self) -> bool {
        if self.meta.endless {
            return false;
        }
        let [rw, rd] = self.meta.regions(0);
        (0..rd).all(|rz| (0..rw).all(|rx| files::file(&self.dir, 'h', 0, rx, rz).is_file()))
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

    /// A region, from the cache or read now; a coarser mip's refreshed first where an edit made it stale.
    fn region(&self, key: Key) -> Result<Arc<Region>, RegionError> {
        // A failure here is a region that cannot be read: reported with the failures, drawn as holes.
        let _ = self.settle_mips(key.0);
        self.load(key)
    }

    /// A region as it is now, from the cache or read now.
    fn load(&self, key: Key) -> Result<Arc<Region>, RegionError> {
        if let Some(r) = self.cached(key) {
            return Ok(r);
        }
        let read = self.read_region(key);
        // Another thread loaded it meanwhile — and may have edited it since (an edit on the main thread
        // while a worker read the same region from disk): the cached one wins, or the edit was lost.
        if let Some(r) = self.cached(key) {
            return Ok(r);
        }
        let r = match read {
            Ok(r) => Arc::new(r),
            // Not drawn as ground: a stand-in of holes, the failure kept for the report.
            Err(e) => Arc::new(self.failed(key, e)),
        };
        let mut c = self.cache.lock().expect("cache");
        c.clock += 1;
        let now = c.clock;
        if let Some(e) = c.map.get_mut(&key) {
            e.1 = now;
            return Ok(e.0.clone());
        }
        c.map.insert(key, (r.clone(), now));
        c.bytes += r.bytes();
        drop(c);
        self.evict();
        Ok(r)
    }

    /// Region `key` if it is in the cache (marked as just used).
    fn cached(&self, key: Key) -> Option<Arc<Region>> {
        let mut c = self.cache.lock().expect("cache");
        c.clock += 1;
        let now = c.clock;
        let e = c.map.get_mut(&key)?;
        e.1 = now;
        Some(e.0.clone())
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
            settle: true,
        }
    }

    /// Heights of mip 0 in a rectangle (clamped reads), row-major: what a `TerrainData` of that region holds.
    pub fn heights_region(&self, x: usize, z: usize, w: usize, d: usize) -> Vec<f32> {
        self.block(0, x, z, w, d, true)
    }

    /// Heights of mip `m` in a rectangle, row-major: row spans copied region by region where the
    /// rectangle lies inside the mip, clamped reads otherwise. `settle`: stale mips refreshed first (not
    /// when the refresh itself reads).
    fn block(&self, m: u32, x: usize, z: usize, w: usize, d: usize, settle: bool) -> Vec<f32> {
        let [mw, md] = self.meta.mip_size(m);
        let mut v = self.mip(m);
        v.settle = settle;
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

#[cfg(test)]
mod tests {
    use super::format::HEADER;
    use super::*;
    use crate::clipmap::ClipmapConfig;
    use crate::clipmap_data::{ClipmapData, Frame};
    use crate::samples::Samples;
    use crate::samples::{height_at, normal_at};
    use crate::terrain_data::TerrainData;
    use std::fs;

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
            save(&d, &t, 16, Existing::Refuse).unwrap();
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
        let meta = save(&dir, &t, 32, Existing::Refuse).unwrap();
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
        save(&dir, &t, 16, Existing::Refuse).unwrap();
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
        save(&dir, &t, 32, Existing::Refuse).unwrap();
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
        save(&dir, &t, 32, Existing::Refuse).unwrap();
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
        assert!(save(&dir, &t, 100, Existing::Refuse)
            .unwrap_err()
            .to_string()
            .contains("region_size"));
        assert!(TerrainRegions::open(&dir.join("nope"))
            .err()
            .unwrap()
            .to_string()
            .contains("terrain.regions"));
        // The kinds a caller acts on: a bad setting, a folder that cannot be read.
        assert!(matches!(
            save(&dir, &t, 100, Existing::Refuse),
            Err(RegionError::Invalid(_))
        ));
        assert!(matches!(
            TerrainRegions::open(&dir.join("nope")),
            Err(RegionError::Read(_))
        ));
        save(&dir, &t, 16, Existing::Refuse).unwrap();
        // A damaged region file: a hole there (NaN), not flat ground, and a failure naming it.
        fs::write(dir.join("h0_1_1.bin"), [0u8; 10]).unwrap();
        let r = TerrainRegions::open(&dir).unwrap();
        let h = height_at(&r, 24.0, 24.0);
        assert!(h.is_nan());
        assert!(r.take_failures()[0].3.contains("h0_1_1.bin"));
        // Saving again into the same folder is refused, naming it, unless told to replace; replacing
        // leaves none of the old map's files (paint, other sizes).
        let painted = terrain(150, 97);
        let again = save(&dir, &painted, 16, Existing::Refuse);
        assert!(
            matches!(&again, Err(RegionError::Exists(m)) if m.contains(&*dir.to_string_lossy()))
        );
        save(&dir, &painted, 16, Existing::Replace).unwrap();
        assert!(dir.join("c0_4_1.bin").exists());
        save(&dir, &t, 32, Existing::Replace).unwrap();
        assert!(!dir.join("c0_4_1.bin").exists() && !dir.join("h0_5_5.bin").exists());
        fs::write(dir.join("notes.txt"), "kept").unwrap();
        save(&dir, &t, 32, Existing::Replace).unwrap();
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
