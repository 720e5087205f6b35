//! `TerrainData`: the heightfield resource (maths in `terrain_core::terrain_data` and friends).

use crate::data::terrain_brush::TerrainBrush;
use crate::data::terrain_data::editable_texture::EditableTexture;
use crate::data::terrain_edit_log::TerrainEditLog;
use crate::sample_rect::to_rect2i;
use godot::classes::image::Format;
use godot::classes::{IResource, Image, Resource};
use godot::global::Error;
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::brush as core_brush;
use terrain_core::heightmap_io::Heightmap;
use terrain_core::samples::Samples;
use terrain_core::terrain_data::{self as core, Region, DEFAULT_SAMPLE_BUDGET};
use terrain_core::terrain_edit_log::Edit;

mod control;
mod edit_log;
pub(crate) mod editable_texture;
pub(crate) mod elevation;
mod erosion;
mod files;
mod generate;
mod import;
mod layers;
mod texture;
mod water;

/// Longest an edit waits for the worker jobs reading the terrain before it copies it instead.
const SHARED_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

// Packed Vector2 data is read as `[f32; 2]` pairs (gdext's Vector2 is `repr(C)` of two f32).
const _: () = assert!(std::mem::size_of::<Vector2>() == 8);

/// A heightfield: `size` samples of `heights` (row-major, `size.x * size.y`), `spacing` world units apart,
/// sample (i, j) at world X/Z `((i + 0.5) * spacing, (j + 0.5) * spacing)`, and its derived data: the slopes
/// of the Bézier patches and the data texture (`FORMAT_RGBF`: r = height, g = slope x, b = slope z) that the terrain
/// shaders sample.
///
/// `get_height` evaluates the same bicubic Bézier patch as the shaders, so it returns what the GPU draws.
/// Edits go through `set_heights_region` (or the `heights` property); they update only the dirty rectangle
/// of the derived data, update the data texture in place and emit `changed` and `region_changed`.
///
/// Bad input (sizes outside `sample_budget`, a heights array of the wrong length, NaN or infinite heights,
/// unsupported or damaged files) is refused with an error naming the property and the allowed range; the
/// resource keeps its previous state. Non-finite heights are refused, not sanitised.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainData {
    /// Largest number of samples (`size.x * size.y`) accepted, so a typo cannot allocate gigabytes.
    #[export(range = (1.0, 268435456.0, or_greater))]
    #[export_group(name = "Limits")]
    #[var(set = set_sample_budget)]
    sample_budget: i64,

    /// Number of samples along X and Z. Changing it keeps the overlapping heights; new samples are 0.
    #[export]
    #[export_group(name = "Heightfield")]
    #[var(get = get_size, set = set_size)]
    size: Vector2i,
    /// World units between neighbouring samples (> 0). Scales positions, not heights.
    #[export(range = (0.001, 1000.0, 0.001, or_greater))]
    #[var(get = get_spacing, set = set_spacing)]
    spacing: f64,
    /// The heights, row-major (`index = z * size.x + x`), `size.x * size.y` values. Stored in the resource.
    /// Assigning a new array replaces all heights; it must have the right length and finite values.
    /// (The getter is `get_all_heights`: `get_heights` is the batch sampler, as in the design contract.)
    #[export(storage)]
    #[var(get = get_all_heights, set = set_heights)]
    #[allow(dead_code)] // the heights live in `core`; this field only declares the property
    heights: PackedFloat32Array,
    /// Control data per sample, row-major, or empty when nothing is painted: 4 bytes a sample holding two
    /// layer slots, their blend and the hole bit (layout in the docs' materials page). Stored in the
    /// resource; edit it with `set_layer_region`, `set_holes_region` or brushes rather than by hand.
    #[export(storage)]
    #[var(get = get_control, set = set_control)]
    #[allow(dead_code)]
    // the control map lives in `core`; this field only declares the property
    control: PackedInt32Array,
    /// The sculpted ground under terrain paths and stamps (`get_layer_base`). Declared after the heights
    /// and control: a loaded resource takes it after them.
    #[export(storage)]
    #[var(get = get_layer_base, set = set_layer_base)]
    #[allow(dead_code)] // lives in `layers`; this field only declares the property
    layer_base: PackedByteArray,

    /// Records every edit as an operation to send to other machines and replay there
    /// (`TerrainEditLog`); null: edits are not recorded. Set from a script, not saved with the map (save
    /// the log as a file of its own): the editor reads a saved resource's object properties on a worker
    /// thread, where no Godot value may be made.
    #[var]
    edit_log: Option<Gd<TerrainEditLog>>,
    /// What the terrain layers wrote, waiting to be recorded in `edit_log`.
    layer_writes: crate::data::terrain_edit_log::LayerWrites,

    /// Shared with the worker jobs that draw it (`shared`); edits go through `core_mut`.
    core: Arc<core::TerrainData>,
    image: Option<Gd<Image>>,
    texture: Option<EditableTexture>,
    /// The control values as an RF texture for the wandering terrain shader (made on first use).
    control_texture: Option<EditableTexture>,
    /// A generation running on worker threads (`generate_async`).
    job: Option<generate::GenerationJob>,
    /// A heightmap file being decoded on a worker thread (`import_heightmap_async`).
    import_job: Option<import::ImportJob>,
    /// An erosion running on a worker thread (`erode_async`).
    erosion_job: Option<erosion::ErosionJob>,
    /// Terrain layers (paths, stamps) over the sculpted heights, and the sculpted ground under them.
    layers: crate::data::layer_state::LayerState,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainData {
    fn init(base: Base<Resource>) -> Self {
        Self {
            sample_budget: DEFAULT_SAMPLE_BUDGET as i64,
            size: Vector2i::new(64, 64),
            spacing: 1.0,
            heights: PackedFloat32Array::new(),
            control: PackedInt32Array::new(),
            layer_base: PackedByteArray::new(),
            edit_log: None,
            layer_writes: Default::default(),
            core: Arc::new(core::TerrainData::flat(64, 64, 1.0)),
            image: None,
            texture: None,
            control_texture: None,
            job: None,
            import_job: None,
            erosion_job: None,
            layers: Default::default(),
            base,
        }
    }
}

fn budget_of(v: i64) -> u64 {
    v.max(1) as u64
}

fn data_bytes(data: &[[f32; 3]]) -> PackedByteArray {
    let mut bytes = PackedByteArray::new();
    bytes.resize(data.len() * 12);
    for (out, d) in bytes.as_mut_slice().chunks_exact_mut(12).zip(data) {
        out[0..4].copy_from_slice(&d[0].to_le_bytes());
        out[4..8].copy_from_slice(&d[1].to_le_bytes());
        out[8..12].copy_from_slice(&d[2].to_le_bytes());
    }
    bytes
}

impl TerrainData {
    /// One dab of `b` at terrain X/Z `center` (f64), its reach computed here (`apply_brush`, a replayed
    /// operation); `call` names the caller in errors.
    pub(crate) fn dab_at(
        &mut self,
        call: &str,
        b: &core_brush::Brush,
        center: [f64; 2],
        delta: f64,
    ) -> Rect2i {
        let reach = terrain_core::terrain_edit::dab_reach(
            Some(self.core.all().into()),
            self.core.spacing(),
            center,
            b.size(),
        );
        self.brush_dab(call, b, center, delta, reach)
    }

    /// One dab of `b` at terrain X/Z `center` (f64), `reach` the samples it can change
    /// (`terrain_edit::dab_reach`, computed once a dab by the caller): the edit goes the same way as
    /// `set_heights_region` / `set_holes_region` (signals, textures, layers). `call` names the caller in
    /// errors.
    pub(crate) fn brush_dab(
        &mut self,
        call: &str,
        b: &terrain_core::brush::Brush,
        center: [f64; 2],
        delta: f64,
        reach: Option<terrain_core::sample_rect::SampleRect>,
    ) -> Rect2i {
        use terrain_core::terrain_edit::TerrainEdit;
        if b.tool.is_instancer_tool() {
            godot_error!("TerrainData.{call}: INSTANCE_ADD / INSTANCE_REMOVE / DETAIL_ADD / DETAIL_REMOVE brushes go to TerrainInstancer.apply_brush");
            return Rect2i::default();
        }
        let reach = reach.map(|r| Region {
            x: r.x as usize,
            z: r.z as usize,
            w: r.w,
            d: r.d,
        });
        // With a log, the dab applied is the one its operation carries (a receiver applies the same).
        let logged = self.logged_dab(b, center, delta);
        let (b, center, delta) = logged
            .as_ref()
            .and_then(crate::data::terrain_edit_log::dab_parts)
            .unwrap_or((b, center, delta));
        let result = self.under_layers(reach, |d| d.core_mut().apply_brush(b, center, delta));
        if let Ok(changed) = &result {
            self.dab_done(logged.as_ref(), b, changed.map(region_of));
        }
        match result {
            // Holes and paint leave the heights (and the data texture) alone: only the control map changed.
            Ok(Some(dirty)) if b.tool.edits_control() => {
                let dirty = region_of(dirty);
                self.control_edited(call, Ok(dirty));
                to_rect2i(dirty)
            }
            Ok(Some(dirty)) => {
                let dirty = region_of(dirty);
                self.update_texture_region(dirty);
                self.base_mut().emit_changed();
                self.signals().region_changed().emit(to_rect2i(dirty));
                to_rect2i(dirty)
            }
            Ok(None) => Rect2i::default(),
            Err(e) => {
                godot_error!("TerrainData.{call}: {e}; nothing changed");
                Rect2i::default()
            }
        }
    }
}

/// A changed rectangle of this data's own samples (never negative) as its grid's rows and columns.
fn region_of(r: terrain_core::sample_rect::SampleRect) -> Region {
    Region {
        x: r.x as usize,
        z: r.z as usize,
        w: r.w,
        d: r.d,
    }
}

#[godot_api]
impl TerrainData {
    /// Emitted after an edit with the rectangle of samples whose data (height or slopes) changed.
    #[signal]
    pub(crate) fn region_changed(region: Rect2i);

    /// Perlin base noise (the NOISE_* constants are the noise types of `generate_noise`).
    #[constant]
    const NOISE_PERLIN: i64 = 0;
    /// OpenSimplex base noise.
    #[constant]
    const NOISE_OPEN_SIMPLEX: i64 = 1;
    /// SuperSimplex base noise.
    #[constant]
    const NOISE_SUPER_SIMPLEX: i64 = 2;
    /// Value base noise.
    #[constant]
    const NOISE_VALUE: i64 = 3;

    /// The budget applies to later changes of size (it is stored before `size` in saved files, so it is not
    /// checked against the current size).
    #[func]
    fn set_sample_budget(&mut self, value: i64) {
        if value < 1 {
            godot_error!("TerrainData.sample_budget must be >= 1, got {value}");
            return;
        }
        self.sample_budget = value;
    }

    #[func]
    pub fn get_size(&self) -> Vector2i {
        Vector2i::new(self.core.width() as i32, self.core.depth() as i32)
    }

    /// The samples this terrain holds, (0, 0, size): the rectangle edit and read calls take, as
    /// `TerrainRegions.get_bounds` (whose endless maps' samples are signed).
    #[func]
    pub(crate) fn get_bounds(&self) -> Rect2i {
        Rect2i::new(Vector2i::ZERO, self.get_size())
    }

    #[func]
    fn set_size(&mut self, value: Vector2i) {
        match core::check_size(
            i64::from(value.x),
            i64::from(value.y),
            budget_of(self.sample_budget),
        ) {
            Ok((w, d)) => {
                if (w, d) != (self.core.width(), self.core.depth()) {
                    self.replace(self.core.resized(w, d));
                }
            }
            Err(e) => godot_error!("TerrainData.{e}; keeping {}", self.get_size()),
        }
    }

    #[func]
    pub fn get_spacing(&self) -> f64 {
        self.core.spacing()
    }

    #[func]
    fn set_spacing(&mut self, value: f64) {
        match self.core_mut().set_spacing(value) {
            Ok(()) => {
                self.spacing = value;
                self.base_mut().emit_changed();
            }
            Err(e) => godot_error!("TerrainData.{e}; keeping {}", self.core.spacing()),
        }
    }

    #[func]
    fn get_all_heights(&self) -> PackedFloat32Array {
        PackedFloat32Array::from(self.core.heights())
    }

    #[func]
    fn set_heights(&mut self, value: PackedFloat32Array) {
        let (w, d) = (self.core.width(), self.core.depth());
        match core::TerrainData::from_heights(w, d, self.core.spacing(), value.as_slice().to_vec())
        {
            Ok(t) => self.replace(t),
            Err(e) => {
                godot_error!("TerrainData.{e} (size is {w} x {d}); keeping the previous heights")
            }
        }
    }

    /// Height of the terrain at world X/Z `pos`: the shader's Bézier patch, so exactly what is drawn.
    /// Outside the terrain the patch maths continues with edge samples (as the shader's clamped sampling:
    /// the height of the nearest edge); ask `is_inside` whether `pos` is on the terrain. A NaN or infinite
    /// position gives NaN.
    #[func]
    pub fn get_height(&self, pos: Vector2) -> f32 {
        self.core.height_at(f64::from(pos.x), f64::from(pos.y))
    }

    /// Whether terrain X/Z `pos` lies on this terrain: from (0, 0) to `size × spacing`, edges included
    /// (where instances and detail may stand). Outside, `get_height` answers the nearest edge's height.
    #[func]
    pub fn is_inside(&self, pos: Vector2) -> bool {
        terrain_core::samples::is_inside(&*self.core, f64::from(pos.x), f64::from(pos.y))
    }

    /// `get_height` for many positions at once (in parallel, without a call per point).
    #[func]
    fn get_heights(&self, positions: PackedVector2Array) -> PackedFloat32Array {
        let pts = positions.as_slice();
        // SAFETY: Vector2 is repr(C) { x: f32, y: f32 } (size checked above), so a slice of them is a slice of
        // [f32; 2] with the same length.
        let pairs: &[[f32; 2]] =
            unsafe { std::slice::from_raw_parts(pts.as_ptr().cast(), pts.len()) };
        let mut out = PackedFloat32Array::new();
        out.resize(pts.len());
        self.core.heights_at(pairs, out.as_mut_slice());
        out
    }

    /// Unit normal of the drawn surface at world X/Z `pos` (from the patch derivatives, as the shader).
    #[func]
    pub fn get_normal(&self, pos: Vector2) -> Vector3 {
        let n = self.core.normal_at(f64::from(pos.x), f64::from(pos.y));
        Vector3::new(n[0], n[1], n[2])
    }

    /// Applies one dab of `brush` at terrain X/Z `center` lasting `delta` seconds (pass each frame's delta
    /// while a stroke goes on). Returns the rectangle of samples whose surface changed (empty when nothing
    /// changed); the change goes the same way as `set_heights_region` / `set_holes_region`: `changed` and
    /// `region_changed` are emitted, nodes refresh only that rectangle.
    #[func]
    pub(crate) fn apply_brush(
        &mut self,
        brush: Option<Gd<TerrainBrush>>,
        center: Vector2,
        delta: f64,
    ) -> Rect2i {
        let Some(b) = brush else {
            godot_error!("TerrainData.apply_brush: brush must be a TerrainBrush, got null");
            return Rect2i::default();
        };
        let b = b.bind().core();
        self.dab_at(
            "apply_brush",
            &b,
            [f64::from(center.x), f64::from(center.y)],
            delta,
        )
    }
    /// The first point where the ray from `origin` along `direction` meets the drawn surface (terrain
    /// space, as `get_height`): exact to float precision (its height is `get_height` there), through holes,
    /// from above only (the surface is drawn one-sided). A vector of NaN when the ray misses.
    #[func]
    pub fn raycast(&self, origin: Vector3, direction: Vector3) -> Vector3 {
        let o = [origin.x, origin.y, origin.z].map(f64::from);
        let d = [direction.x, direction.y, direction.z].map(f64::from);
        match terrain_core::raycast::raycast(&*self.core, o, d) {
            Some(p) => Vector3::new(p[0] as f32, p[1] as f32, p[2] as f32),
            None => Vector3::new(f32::NAN, f32::NAN, f32::NAN),
        }
    }

    /// Lowest and highest height as (min, max).
    #[func]
    pub fn get_height_range(&self) -> Vector2 {
        let (lo, hi) = self.core.height_range();
        Vector2::new(lo, hi)
    }

    #[func]
    fn get_control(&self) -> PackedInt32Array {
        self.core.control_map().iter().map(|&c| c as i32).collect()
    }

    #[func]
    fn set_control(&mut self, value: PackedInt32Array) {
        let control: Vec<u32> = value.as_slice().iter().map(|&c| c as u32).collect();
        match self.core_mut().set_control_map(control) {
            Ok(()) => {
                self.update_control_texture(None);
                let all = self.core.all();
                self.base_mut().emit_changed();
                self.signals().region_changed().emit(to_rect2i(all));
                self.layers_replaced();
            }
            Err(e) => {
                godot_error!("TerrainData.{e} (or be empty); keeping the previous control data")
            }
        }
    }

    /// The sculpted heights and control values under terrain paths and stamps (tiles of 32² samples, only
    /// where a layer covers the ground), saved with the resource so a reopened scene applies its layers
    /// from them, not again on top of themselves. Not meant to be edited by hand.
    #[func]
    fn get_layer_base(&self) -> PackedByteArray {
        self.layer_base()
    }

    #[func]
    fn set_layer_base(&mut self, value: PackedByteArray) {
        self.load_layer_base(value);
    }

    /// Heights of the samples in `region` (x, z, width, depth), row-major.
    #[func]
    pub(crate) fn get_heights_region(&self, region: Rect2i) -> PackedFloat32Array {
        match self.region(region) {
            Some(r) => PackedFloat32Array::from(self.core.heights_region(r).as_slice()),
            None => PackedFloat32Array::new(),
        }
    }

    /// Replaces the heights in `region` with `values` (row-major, `region.size.x * region.size.y`). Only that
    /// rectangle (grown by one sample for the slopes) of the data and texture is recomputed. Returns false
    /// and changes nothing on bad input.
    #[func]
    pub(crate) fn set_heights_region(
        &mut self,
        region: Rect2i,
        values: PackedFloat32Array,
    ) -> bool {
        let Some(r) = self.region(region) else {
            return false;
        };
        let result = self.under_layers(Some(r), |d| {
            d.core_mut().set_heights_region(r, values.as_slice())
        });
        match result {
            Ok(dirty) => {
                self.log_edit(|| {
                    let values = values.to_vec();
                    Some(Edit::Heights {
                        rect: r.into(),
                        values,
                    })
                });
                self.update_texture_region(dirty);
                self.base_mut().emit_changed();
                self.signals().region_changed().emit(to_rect2i(dirty));
                true
            }
            Err(e) => {
                godot_error!("TerrainData.set_heights_region: {e}; nothing changed");
                false
            }
        }
    }
}

impl Drop for TerrainData {
    fn drop(&mut self) {
        // A generation outliving its terrain stops early and frees its buffer on its own.
        if let Some(j) = &self.job {
            j.cancel();
        }
        self.cancel_import();
        if let Some(j) = &self.erosion_job {
            j.cancel();
        }
    }
}

impl TerrainData {
    /// The engine-free terrain (for the nodes that draw it).
    pub fn core(&self) -> &core::TerrainData {
        &self.core
    }

    /// The terrain as worker jobs read it (a `TerrainNode`'s data windows), taken by a job when it starts
    /// running and held while it runs; an edit waits for that (`core_mut`), so a job never sees half an
    /// edit, and a job queued behind others holds nothing up.
    pub fn shared_weak(&self) -> std::sync::Weak<dyn Samples + Send> {
        let weak: std::sync::Weak<core::TerrainData> = Arc::downgrade(&self.core);
        weak
    }

    /// The terrain to edit. A job reading it (`shared_weak`) holds it for a few milliseconds at most:
    /// waiting costs less than copying the terrain; one holding it longer than `SHARED_WAIT` (none should)
    /// keeps the old copy and the edit gets a new one. Queued jobs hold only a `Weak`: the edit then moves
    /// the terrain (a shallow move, no copy of the heights) and those jobs leave the windows to the next.
    fn core_mut(&mut self) -> &mut core::TerrainData {
        let start = std::time::Instant::now();
        while Arc::strong_count(&self.core) > 1 && start.elapsed() < SHARED_WAIT {
            std::thread::yield_now();
        }
        Arc::make_mut(&mut self.core)
    }

    fn region(&self, r: Rect2i) -> Option<Region> {
        let res = self.core.region(
            i64::from(r.position.x),
            i64::from(r.position.y),
            i64::from(r.size.x),
            i64::from(r.size.y),
        );
        match res {
            Ok(r) => Some(r),
            Err(e) => {
                godot_error!("TerrainData: {e}; nothing changed");
                None
            }
        }
    }

    /// Takes new heights of the current size (generation).
    fn replace_heights(&mut self, heights: Vec<f32>, what: &str) -> bool {
        let (width, depth) = (self.core.width(), self.core.depth());
        let h = Heightmap {
            width,
            depth,
            heights,
        };
        self.install(h, what) == Error::OK
    }

    /// Validates and installs a whole new heightfield (size from the heightmap); nothing changes on error.
    fn install(&mut self, h: Heightmap, what: &str) -> Error {
        match core::TerrainData::from_heights(h.width, h.depth, self.core.spacing(), h.heights) {
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

    /// Installs new terrain data: the image and texture are refreshed (recreated only if the size changed).
    fn replace(&mut self, mut t: core::TerrainData) {
        let same_size = t.width() == self.core.width() && t.depth() == self.core.depth();
        // New heights of the same size keep the holes and paint (a new size brings its own).
        if same_size && t.control_map().is_empty() && !self.core.control_map().is_empty() {
            let control = self.core.control_map().to_vec();
            t.set_control_map(control).expect("same size");
        }
        self.core = Arc::new(t);
        self.size = self.get_size();
        let (w, d) = (self.core.width() as i32, self.core.depth() as i32);
        // The whole data changed: write it into the kept image once (no patch + blit).
        if let Some(img) = self.image.as_mut() {
            let all = self.core.texels_region(self.core.all());
            img.set_data(w, d, false, Format::RGBF, &data_bytes(&all));
        }
        if self.texture.is_some() {
            let img = match &self.image {
                Some(i) => i.clone(),
                None => self.whole_data_image(),
            };
            // A new size gets new GPU storage in the same texture object.
            if let Some(tex) = self.texture.as_mut() {
                tex.replace(&img);
            }
        }
        self.update_control_texture(None);
        self.base_mut().emit_changed();
        let all = Rect2i::new(Vector2i::ZERO, Vector2i::new(w, d));
        self.signals().region_changed().emit(all);
        self.layers_replaced();
    }
}
