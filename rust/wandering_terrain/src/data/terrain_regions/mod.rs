//! `TerrainRegions`: a map stored as a folder of region files, read on demand within a memory budget
//! (format, mips and cache in `terrain_core::terrain_regions`). Saved with `TerrainData.save_regions` or
//! written from a generator by `TerrainRegions.generate`; drawn by a `TerrainNode` through `terrain_regions`.

use crate::data::terrain_data::elevation::disk_path;
use crate::data::terrain_data::TerrainData;
use crate::data::terrain_generator::TerrainGenerator;
use godot::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use terrain_core::generation::Generated;
use terrain_core::samples;
use terrain_core::terrain_regions::{
    self as core, Existing, RegionMeta, DEFAULT_BUDGET, MIN_BUDGET,
};

mod edit;
mod edit_log;
mod generate;
mod import;
mod layers;
mod save;
mod water;

/// A terrain map stored as a folder of region files (`terrain.regions` plus one file per region and mip
/// level), for maps bigger than memory: 65536² samples is 16 GB of heights, of which only the regions around
/// the view are read. Heights and control values are kept bit for bit; coarser mip levels (each sample the
/// mean of the 2 × 2 below) are stored too, and a `TerrainNode` draws its far rings from them.
///
/// Queries (`get_height`, `get_normal`, and through a TerrainNode `raycast` and collision) read the full
/// resolution, loading the regions they touch — about 3 ms per 512² region here when it is not
/// loaded yet. Call `prefetch` ahead of time (it loads on a worker thread) and `is_loaded` to know.
///
/// The map is editable like a `TerrainData` (`set_heights_region`, `set_holes_region`, `set_layer_region`,
/// `set_control_region`, `apply_brush`; `changed` and `region_changed` follow): edited regions stay in
/// memory until `save()` writes them (only them, each file safely, the header last) or
/// `discard_changes()` forgets them. Real-world elevation
/// files (GeoTIFF, SRTM tiles, ESRI ASCII grids) of any size import with `import_heightmaps`.
///
/// Folders are read with the file system of the OS: use `user://` or a path on disk (a folder inside an
/// exported game's `.pck` cannot be read). Writing a folder that a TerrainRegions has open does not update
/// it: open it again.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainRegions {
    /// Where regions without files come from: with a generator, the folder may hold only its header and
    /// the regions someone edited and saved (`create`, `create_endless`); every other region is computed
    /// when read. Null: every region is read from its file. (Listed before `folder`, so a saved resource
    /// has its generator when its folder opens.)
    #[export]
    #[var(set = set_generator)]
    generator: Option<Gd<TerrainGenerator>>,
    /// The folder holding `terrain.regions` (res://, user:// or a path on disk). Setting it opens the folder;
    /// a folder that cannot be opened is refused with an error and the previous one is kept.
    #[export(global_dir)]
    #[var(set = set_folder)]
    folder: GString,
    /// Megabytes of regions kept in memory, [16, 1048576]: least recently used regions are dropped
    /// beyond it.
    #[export(range = (16.0, 16384.0, 1.0, or_greater))]
    #[var(set = set_budget_mb)]
    budget_mb: i64,
    /// Records every edit as an operation to send to other machines and replay there
    /// (`TerrainEditLog`); null: edits are not recorded. Set from a script, not saved with the map (save
    /// the log as a file of its own).
    #[var]
    edit_log: Option<Gd<crate::data::terrain_edit_log::TerrainEditLog>>,
    /// What the terrain layers wrote, waiting to be recorded in `edit_log`.
    layer_writes: crate::data::terrain_edit_log::LayerWrites,
    store: Option<Arc<core::TerrainRegions>>,
    /// Set while a prefetch runs: one at a time.
    prefetching: Arc<AtomicBool>,
    /// An elevation file being imported on a worker thread (`import_heightmaps_async`).
    import: Option<import::RegionImport>,
    /// A save running on a worker thread (`save_async`).
    saving: Option<save::RegionSave>,
    /// Terrain layers (paths, stamps) over the sculpted heights, and the sculpted ground under them.
    layers: crate::data::layer_state::LayerState,
    /// `kept_version` of the layers' sculpted ground as last opened or saved.
    saved_layer_base: u64,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainRegions {
    fn init(base: Base<Resource>) -> Self {
        Self {
            folder: GString::new(),
            budget_mb: (DEFAULT_BUDGET >> 20) as i64,
            generator: None,
            edit_log: None,
            layer_writes: Default::default(),
            store: None,
            prefetching: Arc::new(AtomicBool::new(false)),
            import: None,
            saving: None,
            layers: Default::default(),
            saved_layer_base: 0,
            base,
        }
    }
}

#[godot_api]
impl TerrainRegions {
    /// Emitted after an edit with the rectangle of samples whose data changed.
    #[signal]
    pub(crate) fn region_changed(region: Rect2i);

    /// Emitted (on the main thread) when a region file cannot be read — damaged, truncated, missing: its
    /// samples are holes until the file is fixed; `message` names the file. Reported once per region.
    #[signal]
    pub(crate) fn region_failed(region: Vector2i, message: GString);

    /// Opens `folder` (see the property); a folder that cannot be opened is refused with an error.
    #[func]
    pub(crate) fn set_folder(&mut self, folder: GString) {
        if folder.is_empty() {
            self.folder = folder;
            self.store = None;
            self.load_layer_base();
            self.base_mut().emit_changed();
            return;
        }
        match self.open_store(&folder) {
            Ok(s) => {
                s.set_budget((self.budget_mb as u64) << 20);
                self.folder = folder;
                self.store = Some(Arc::new(s));
                self.load_layer_base();
                self.base_mut().emit_changed();
            }
            Err(e) => godot_error!("TerrainRegions.folder: {e}; keeping the previous folder"),
        }
    }

    /// Sets the generator (see the property) and opens the folder again with it.
    #[func]
    fn set_generator(&mut self, generator: Option<Gd<TerrainGenerator>>) {
        self.generator = generator;
        if !self.folder.is_empty() {
            let f = self.folder.clone();
            self.set_folder(f);
        }
    }

    /// Writes a generator-backed map to `folder`: only its header (`size` samples `spacing` apart in regions
    /// of `region_size`²) — no region files until edits are saved — and opens it: a new TerrainRegions
    /// with `generator` set, or null (with an error) on bad input. A folder that already holds a map is
    /// refused with an error naming it, and its files are left alone, unless `overwrite` is true (the old
    /// map and its saved edits are then gone). Open an existing map with `open_generated(folder, generator)`.
    #[func]
    fn create(
        generator: Option<Gd<TerrainGenerator>>,
        size: Vector2i,
        spacing: f64,
        folder: GString,
        region_size: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> Option<Gd<TerrainRegions>> {
        let (w, d) = (size.x.max(0) as usize, size.y.max(0) as usize);
        let region = region_size.clamp(0, 1 << 20) as usize;
        let existing = Existing::replace_if(overwrite);
        Self::created("create", generator, spacing, folder, |dir, gen| {
            core::generated::create(dir, gen, [w, d], spacing, region, existing)
        })
    }

    /// Writes an endless generator-backed map to `folder` (only its header) and opens it: the endless world
    /// of `generator` with samples `spacing` apart, editable like any map and stored in regions of
    /// `region_size`² samples — only those someone edited and saved. Its samples are signed, centred on the
    /// origin (`get_bounds`: ±8388608 a side); a TerrainNode draws it like `terrain_generator`, the same
    /// ground. A new TerrainRegions, or null (with an error) on bad input. A folder that already holds a map
    /// is refused (an error naming it; nothing written) unless `overwrite` is true. To keep a world between
    /// runs: `open_generated(folder, generator)` when `map_exists(folder)`, else `create_endless`.
    #[func]
    fn create_endless(
        generator: Option<Gd<TerrainGenerator>>,
        spacing: f64,
        folder: GString,
        region_size: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> Option<Gd<TerrainRegions>> {
        let region = region_size.clamp(0, 1 << 20) as usize;
        let existing = Existing::replace_if(overwrite);
        Self::created("create_endless", generator, spacing, folder, |dir, gen| {
            core::generated::create_endless(dir, gen, spacing, region, existing)
        })
    }

    /// Whether `folder` holds a map (its `terrain.regions` header): what `create`, `create_endless`,
    /// `generate`, `TerrainData.save_regions` and the imports refuse to replace without `overwrite`.
    #[func]
    fn map_exists(folder: GString) -> bool {
        core::map_exists(&disk_path(&folder))
    }

    #[func]
    fn set_budget_mb(&mut self, mb: i64) {
        if !((MIN_BUDGET >> 20) as i64..=1 << 20).contains(&mb) {
            godot_error!("TerrainRegions.budget_mb must be in [16, 1048576], got {mb}");
            return;
        }
        self.budget_mb = mb;
        if let Some(s) = &self.store {
            s.set_budget((mb as u64) << 20);
        }
    }

    /// Opens a region folder: a new TerrainRegions, or null (with an error) when it cannot be opened.
    #[func]
    fn open(folder: GString) -> Option<Gd<TerrainRegions>> {
        Self::opened(folder, None)
    }

    /// Opens a map made by `create` or `create_endless` again, with the `generator` it was made with: its
    /// regions without files come from it. A new TerrainRegions, or null (with an error) when the folder
    /// cannot be opened, or when it holds a finite map with every region stored (written by `save_regions`
    /// or `generate`: the generator would never be used; open it with `open(folder)`, or keep the
    /// generated world in another folder).
    #[func]
    fn open_generated(
        folder: GString,
        generator: Option<Gd<TerrainGenerator>>,
    ) -> Option<Gd<TerrainRegions>> {
        if generator.is_none() {
            godot_error!(
                "TerrainRegions.open_generated: generator must be a TerrainGenerator, got null"
            );
            return None;
        }
        let r = Self::opened(folder.clone(), generator)?;
        let whole = r.bind().store().is_some_and(|s| s.stores_every_region());
        if whole {
            godot_error!(
                "TerrainRegions.open_generated: {folder} holds a finite map with every region stored (written by save_regions or generate), so the generator would never be used; open it with TerrainRegions.open(folder), or keep the generated world in another folder"
            );
            return None;
        }
        Some(r)
    }

    /// Samples per side; (0, 0) when no folder is open.
    #[func]
    fn get_size(&self) -> Vector2i {
        self.store.as_ref().map_or(Vector2i::ZERO, |s| {
            Vector2i::new(s.meta().width as i32, s.meta().depth as i32)
        })
    }
    /// The samples the map holds, in the coordinates of the edit and read calls and `region_changed`:
    /// (0, 0, size) for a map, (-8388608, -8388608, 16777216, 16777216) for an endless one (its samples are
    /// signed, around the origin). An empty rectangle when no folder is open.
    #[func]
    pub(crate) fn get_bounds(&self) -> Rect2i {
        self.store
            .as_ref()
            .map_or(Rect2i::default(), |s| bounds_of(s.meta()))
    }
    /// Whether the map is endless (`create_endless`): a TerrainNode draws it like an endless generator.
    #[func]
    fn is_endless(&self) -> bool {
        self.store.as_ref().is_some_and(|s| s.meta().endless)
    }
    /// Distance between samples (terrain units); 1 when no folder is open.
    #[func]
    pub(crate) fn get_spacing(&self) -> f64 {
        self.store.as_ref().map_or(1.0, |s| s.meta().spacing)
    }
    /// Lowest and highest height stored.
    #[func]
    fn get_height_range(&self) -> Vector2 {
        self.store.as_ref().map_or(Vector2::ZERO, |s| {
            Vector2::new(s.meta().range.0, s.meta().range.1)
        })
    }
    /// Samples per region side (0 when no folder is open).
    #[func]
    fn get_region_size(&self) -> i64 {
        self.store.as_ref().map_or(0, |s| s.meta().region as i64)
    }
    /// Mip levels stored: full resolution, then halved until the map fits one region.
    #[func]
    fn get_mip_count(&self) -> i64 {
        self.store.as_ref().map_or(0, |s| i64::from(s.meta().mips))
    }

    /// Height at terrain position `pos` (X/Z) — what a TerrainNode draws there (unscaled, at the origin);
    /// NaN in holes, without a folder, or for a non-finite position. Loads the regions it needs.
    #[func]
    fn get_height(&self, pos: Vector2) -> f32 {
        match &self.store {
            Some(s) => samples::height_at(&**s, f64::from(pos.x), f64::from(pos.y)),
            None => f32::NAN,
        }
    }

    /// Whether terrain position `pos` (X/Z) lies on the map (its samples from the origin to `size ×
    /// spacing`; anywhere on an endless map); false without a folder. Outside, `get_height` answers the
    /// nearest edge's height.
    #[func]
    fn is_inside(&self, pos: Vector2) -> bool {
        self.store
            .as_ref()
            .is_some_and(|s| samples::is_inside(&**s, f64::from(pos.x), f64::from(pos.y)))
    }

    /// Unit normal at terrain position `pos`.
    #[func]
    fn get_normal(&self, pos: Vector2) -> Vector3 {
        match &self.store {
            Some(s) => {
                let n = samples::normal_at(&**s, f64::from(pos.x), f64::from(pos.y));
                Vector3::new(n[0], n[1], n[2])
            }
            None => Vector3::UP,
        }
    }

    /// Heights of the samples in `region`, row-major (bit for bit what was saved). Empty for a region
    /// outside the map.
    #[func]
    pub(crate) fn get_heights_region(&self, region: Rect2i) -> PackedFloat32Array {
        match self.checked(region) {
            Some((s, [x, z, w, d])) => PackedFloat32Array::from(s.heights_region(x, z, w, d)),
            None => PackedFloat32Array::new(),
        }
    }

    /// Control values (paint and hole bit) of the samples in `region`, row-major.
    #[func]
    pub(crate) fn get_control_region(&self, region: Rect2i) -> PackedInt32Array {
        match self.checked(region) {
            Some((s, [x, z, w, d])) => s
                .control_region(x, z, w, d)
                .into_iter()
                .map(|c| c as i32)
                .collect(),
            None => PackedInt32Array::new(),
        }
    }

    /// Whether the region holding terrain position `pos` is in memory (queries there cost no file read).
    #[func]
    fn is_loaded(&self, pos: Vector2) -> bool {
        let Some(s) = &self.store else {
            return false;
        };
        let [x, z] = self.sample_of(s, pos);
        s.is_loaded(x, z)
    }

    /// Starts loading, on a worker thread, the regions within `radius` terrain units of `pos`; returns at
    /// once (poll `is_loaded`). One runs at a time (a call while one runs is refused with an error);
    /// regions beyond the budget push older ones out.
    #[func]
    fn prefetch(&self, pos: Vector2, radius: f64) {
        let Some(s) = self.store.clone() else {
            return;
        };
        if !(radius.is_finite() && radius >= 0.0) {
            godot_error!(
                "TerrainRegions.prefetch: radius must be a finite number >= 0, got {radius}"
            );
            return;
        }
        let [x, z] = self.sample_of(&s, pos);
        // No more than the cache can hold is worth loading: cap the square at the budget's regions.
        let regions = (s.budget() as f64 / (s.meta().region as f64).powi(2) / 4.0).sqrt();
        let cap = (regions * 0.5).max(1.0) * s.meta().region as f64;
        let r = (radius / s.meta().spacing).ceil().min(cap) as i64;
        if self.prefetching.swap(true, Ordering::AcqRel) {
            godot_error!("TerrainRegions.prefetch: a prefetch is running; call again once is_loaded says it is done");
            return;
        }
        let busy = self.prefetching.clone();
        // A file that cannot be read shows up as an error on the query that needs it.
        std::thread::spawn(move || {
            let _ = s.prefetch(x, z, r);
            busy.store(false, Ordering::Release);
        });
    }

    /// Bytes of regions in memory.
    #[func]
    fn get_cached_bytes(&self) -> i64 {
        self.store.as_ref().map_or(0, |s| s.cached_bytes() as i64)
    }
    /// Region files read since the folder was opened.
    #[func]
    fn get_loads(&self) -> i64 {
        self.store.as_ref().map_or(0, |s| s.loads() as i64)
    }
}

impl TerrainRegions {
    /// `open` and `open_generated`: a new TerrainRegions with `folder` open, or null (with the error).
    fn opened(
        folder: GString,
        generator: Option<Gd<TerrainGenerator>>,
    ) -> Option<Gd<TerrainRegions>> {
        let mut r = TerrainRegions::new_gd();
        r.bind_mut().generator = generator;
        r.bind_mut().set_folder(folder);
        let ok = r.bind().store.is_some();
        ok.then_some(r)
    }

    /// `create` and `create_endless`: the generator checked, the header written by `make`, and a new
    /// TerrainRegions holding the map `make` opened (null with an error naming `what` on bad input).
    fn created(
        what: &str,
        generator: Option<Gd<TerrainGenerator>>,
        spacing: f64,
        folder: GString,
        make: impl FnOnce(
            &std::path::Path,
            Arc<Generated>,
        ) -> Result<core::TerrainRegions, core::RegionError>,
    ) -> Option<Gd<TerrainRegions>> {
        let Some(g) = generator else {
            godot_error!("TerrainRegions.{what}: generator must be a TerrainGenerator, got null");
            return None;
        };
        let made = Generated::new(&g.bind().params(), spacing)
            .map_err(|e| e.to_string())
            .and_then(|gen| make(&disk_path(&folder), Arc::new(gen)).map_err(|e| e.to_string()));
        let store = match made {
            Ok(s) => s,
            Err(e) => {
                godot_error!("TerrainRegions.{what}: {e}");
                return None;
            }
        };
        // The map just made is the one opened: no second read of the header.
        let mut r = TerrainRegions::new_gd();
        {
            let mut b = r.bind_mut();
            b.generator = Some(g);
            store.set_budget((b.budget_mb as u64) << 20);
            b.folder = folder;
            b.store = Some(Arc::new(store));
        }
        Some(r)
    }

    /// Opens a folder, with the generator as the source of regions without files when one is set.
    fn open_store(&self, folder: &GString) -> Result<core::TerrainRegions, OpenError> {
        let dir = disk_path(folder);
        let Some(g) = &self.generator else {
            let r = core::TerrainRegions::open(&dir)?;
            if r.meta().endless {
                return Err(OpenError::EndlessWithoutGenerator(dir));
            }
            return Ok(r);
        };
        let meta = *core::TerrainRegions::open(&dir)?.meta();
        let gen = Generated::new(&g.bind().params(), meta.spacing).map_err(OpenError::Generator)?;
        Ok(core::TerrainRegions::open_with(
            &dir,
            core::generated::fallback(Arc::new(gen), meta),
        )?)
    }

    /// The opened folder, as a sample grid a TerrainNode draws from.
    pub fn store(&self) -> Option<Arc<core::TerrainRegions>> {
        self.store.clone()
    }

    fn sample_of(&self, s: &core::TerrainRegions, pos: Vector2) -> [i64; 2] {
        let sp = s.meta().spacing;
        [pos.x, pos.y].map(|v| {
            let v = f64::from(v) / sp - 0.5;
            if v.is_finite() {
                v.round().clamp(-1e15, 1e15) as i64
            } else {
                0
            }
        })
    }

    fn checked(&self, region: Rect2i) -> Option<(&core::TerrainRegions, [usize; 4])> {
        let s = self.store.as_deref()?;
        match stored_rect(s.meta(), region) {
            Some(r) if r[2] * r[3] <= 1 << 26 => Some((s, r)),
            _ => {
                godot_error!(
                    "TerrainRegions: region {region} must lie inside the map's samples {} (at most 67108864 samples); nothing read",
                    bounds_of(s.meta())
                );
                None
            }
        }
    }
}

/// The Godot error for a region map's failure: a bad setting, a file that cannot be read or written, or
/// a damaged file.
pub(crate) fn error_code(e: &core::RegionError) -> godot::global::Error {
    use godot::global::Error;
    match e {
        core::RegionError::Invalid(_) => Error::ERR_INVALID_PARAMETER,
        core::RegionError::Read(_) => Error::ERR_FILE_CANT_READ,
        core::RegionError::Write(_) => Error::ERR_FILE_CANT_WRITE,
        core::RegionError::Damaged(_) => Error::ERR_FILE_CORRUPT,
        core::RegionError::Exists(_) => Error::ERR_ALREADY_EXISTS,
    }
}

/// The samples a map holds, in query coordinates (an endless map's are centred on the origin).
fn bounds_of(m: &RegionMeta) -> Rect2i {
    Rect2i::new(
        Vector2i::new(m.origin[0] as i32, m.origin[1] as i32),
        Vector2i::new(m.width as i32, m.depth as i32),
    )
}

/// `r` (query coordinates) as stored (x, z, w, d) when it lies inside the map (it may be empty).
fn stored_rect(m: &RegionMeta, r: Rect2i) -> Option<[usize; 4]> {
    let (x, z) = (
        m.stored(0, i64::from(r.position.x)),
        m.stored(1, i64::from(r.position.y)),
    );
    let (w, d) = (i64::from(r.size.x), i64::from(r.size.y));
    let inside =
        x >= 0 && z >= 0 && w >= 0 && d >= 0 && x + w <= m.width as i64 && z + d <= m.depth as i64;
    inside.then_some([x as usize, z as usize, w as usize, d as usize])
}

#[godot_api(secondary)]
impl TerrainData {
    /// Saves this terrain as a folder of region files of `region_size`² samples (a power of two in
    /// [16, 4096]; 512 is a good size) with its mip levels, for `TerrainRegions` to open. Heights and
    /// control values are kept bit for bit. Returns OK, or an error code with an error message
    /// (ERR_INVALID_PARAMETER for a bad region size, ERR_ALREADY_EXISTS when `folder` holds a map and
    /// `overwrite` is false — nothing is written —, ERR_FILE_CANT_WRITE when a file cannot be written).
    #[func]
    fn save_regions(
        &self,
        folder: GString,
        region_size: i64,
        #[opt(default = false)] overwrite: bool,
    ) -> godot::global::Error {
        let dir = disk_path(&folder);
        let region = region_size.clamp(0, 1 << 20) as usize;
        match core::save(&dir, self.core(), region, Existing::replace_if(overwrite)) {
            Ok(_) => godot::global::Error::OK,
            Err(e) => {
                godot_error!("TerrainData.save_regions: {e}");
                error_code(&e)
            }
        }
    }
}

/// Why a folder cannot be opened (`folder` reports it and keeps the previous one).
#[derive(Debug)]
enum OpenError {
    Regions(core::RegionError),
    /// An endless map's regions come from a generator.
    EndlessWithoutGenerator(std::path::PathBuf),
    Generator(terrain_core::generation::NoiseParamsError),
}

impl From<core::RegionError> for OpenError {
    fn from(e: core::RegionError) -> Self {
        Self::Regions(e)
    }
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Self::Regions(e) => write!(f, "{e}"),
            Self::EndlessWithoutGenerator(dir) => write!(
                f,
                "{} holds an endless map, whose regions come from a generator: set generator first",
                dir.display()
            ),
            Self::Generator(e) => write!(f, "{e}"),
        }
    }
}
