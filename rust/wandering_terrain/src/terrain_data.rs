//! `TerrainData`: the heightfield resource (maths in `terrain_core::terrain_data` and friends).

use crate::editable_texture::{Channels, EditableTexture};
use crate::sample_rect::to_rect2i;
use crate::terrain_brush::TerrainBrush;
use crate::terrain_generator::TerrainGenerator;
use godot::classes::image::Format;
use godot::classes::{
    file_access::ModeFlags, FileAccess, IResource, Image, ImageTexture, Noise, Resource, Texture2D,
};
use godot::global::Error;
use godot::prelude::*;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use terrain_core::generation::{self, NoiseKind, NoiseParams};
use terrain_core::heightmap_io::{self, FileFormat, Heightmap};
use terrain_core::terrain_data::{self as core, Region, DEFAULT_SAMPLE_BUDGET};

#[path = "terrain_data_control.rs"]
mod control;
#[path = "terrain_data_elevation.rs"]
pub(crate) mod elevation;
#[path = "terrain_data_erosion.rs"]
mod erosion;
#[path = "terrain_data_import.rs"]
mod import;

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

    core: core::TerrainData,
    image: Option<Gd<Image>>,
    texture: Option<EditableTexture>,
    /// The control values as an RF texture for the wandering terrain shader (made on first use).
    control_texture: Option<EditableTexture>,
    /// A generation running on worker threads (`generate_async`).
    job: Option<GenerationJob>,
    /// A heightmap file being decoded on a worker thread (`import_heightmap_async`).
    import_job: Option<import::ImportJob>,
    /// An erosion running on a worker thread (`erode_async`).
    erosion_job: Option<erosion::ErosionJob>,
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
            core: core::TerrainData::flat(64, 64, 1.0),
            image: None,
            texture: None,
            control_texture: None,
            job: None,
            import_job: None,
            erosion_job: None,
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

#[godot_api]
impl TerrainData {
    /// Emitted after an edit with the rectangle of samples whose data (height or slopes) changed.
    #[signal]
    fn region_changed(region: Rect2i);

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
    fn get_bounds(&self) -> Rect2i {
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
        match self.core.set_spacing(value) {
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
    /// Outside the terrain the patch maths continues with edge samples (as the shader's clamped sampling);
    /// a NaN or infinite position gives NaN.
    #[func]
    pub fn get_height(&self, pos: Vector2) -> f32 {
        self.core.height_at(f64::from(pos.x), f64::from(pos.y))
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
    fn apply_brush(
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
        if b.tool.is_instancer_tool() {
            godot_error!("TerrainData.apply_brush: INSTANCE_ADD / INSTANCE_REMOVE / DETAIL_ADD / DETAIL_REMOVE brushes go to TerrainInstancer.apply_brush");
            return Rect2i::default();
        }
        let c = [f64::from(center.x), f64::from(center.y)];
        match terrain_core::brush::apply(&mut self.core, &b, c, delta) {
            // Holes and paint leave the heights (and the data texture) alone: only the control map changed.
            Ok(Some(dirty)) if b.tool.edits_control() => {
                self.control_edited("apply_brush", Ok(dirty));
                to_rect2i(dirty)
            }
            Ok(Some(dirty)) => {
                self.update_texture_region(dirty);
                self.base_mut().emit_changed();
                self.signals().region_changed().emit(to_rect2i(dirty));
                to_rect2i(dirty)
            }
            Ok(None) => Rect2i::default(),
            Err(e) => {
                godot_error!("TerrainData.apply_brush: {e}; nothing changed");
                Rect2i::default()
            }
        }
    }

    /// The first point where the ray from `origin` along `direction` meets the drawn surface (terrain
    /// space, as `get_height`): exact to float precision (its height is `get_height` there), through holes,
    /// from above only (the surface is drawn one-sided). A vector of NaN when the ray misses.
    #[func]
    pub fn raycast(&self, origin: Vector3, direction: Vector3) -> Vector3 {
        let o = [origin.x, origin.y, origin.z].map(f64::from);
        let d = [direction.x, direction.y, direction.z].map(f64::from);
        match terrain_core::raycast::raycast(&self.core, o, d) {
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

    /// The data image (`FORMAT_RGBF`, r = height, g = slope x, b = slope z), kept and updated by edits.
    #[func]
    fn get_data_image(&mut self) -> Gd<Image> {
        if self.image.is_none() {
            self.image = Some(self.whole_data_image());
        }
        self.image.clone().expect("data image")
    }

    /// The data texture for the shaders' `data_tex`: one texture object, updated in place by edits (by
    /// rectangle on Forward+ and Mobile, see `editable_texture.rs`).
    #[func]
    pub fn get_data_texture(&mut self) -> Gd<Texture2D> {
        if self.texture.is_none() {
            let kept = self.image.is_some();
            let img = self.get_data_image();
            self.texture = EditableTexture::new(Channels::Rgb, &img, false);
            // The device holds the data: the image is made again if someone asks for it.
            if !kept
                && self
                    .texture
                    .as_ref()
                    .is_some_and(EditableTexture::by_rectangle)
            {
                self.image = None;
            }
        }
        match &self.texture {
            Some(t) => t.texture(),
            None => {
                godot_error!("TerrainData.get_data_texture: the texture could not be made");
                ImageTexture::new_gd().upcast()
            }
        }
    }

    #[func]
    fn get_control(&self) -> PackedInt32Array {
        self.core.control_map().iter().map(|&c| c as i32).collect()
    }

    #[func]
    fn set_control(&mut self, value: PackedInt32Array) {
        let control: Vec<u32> = value.as_slice().iter().map(|&c| c as u32).collect();
        match self.core.set_control_map(control) {
            Ok(()) => {
                self.update_control_texture(None);
                let all = self.core.all();
                self.base_mut().emit_changed();
                self.signals().region_changed().emit(to_rect2i(all));
            }
            Err(e) => {
                godot_error!("TerrainData.{e} (or be empty); keeping the previous control data")
            }
        }
    }

    /// Heights of the samples in `region` (x, z, width, depth), row-major.
    #[func]
    fn get_heights_region(&self, region: Rect2i) -> PackedFloat32Array {
        match self.region(region) {
            Some(r) => PackedFloat32Array::from(self.core.heights_region(r).as_slice()),
            None => PackedFloat32Array::new(),
        }
    }

    /// Replaces the heights in `region` with `values` (row-major, `region.size.x * region.size.y`). Only that
    /// rectangle (grown by one sample for the slopes) of the data and texture is recomputed. Returns false
    /// and changes nothing on bad input.
    #[func]
    fn set_heights_region(&mut self, region: Rect2i, values: PackedFloat32Array) -> bool {
        let Some(r) = self.region(region) else {
            return false;
        };
        match self.core.set_heights_region(r, values.as_slice()) {
            Ok(dirty) => {
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

    /// Fills the terrain (current `size`) with the heights a `TerrainGenerator` describes (fractal noise,
    /// rows in parallel). Returns false and changes nothing without a generator.
    #[func]
    fn generate(&mut self, generator: Option<Gd<TerrainGenerator>>) -> bool {
        let Some(g) = generator else {
            godot_error!("TerrainData.generate: generator must be a TerrainGenerator, got null");
            return false;
        };
        let p = g.bind().params();
        self.generate_with(&p, "generate")
    }

    /// Starts generating heights as `generate` does, on worker threads: the game or the editor keeps running.
    /// Watch `get_generation_progress()` and call `finish_generation()` (e.g. once a frame) until it returns
    /// true; the heights are installed then, with `changed` and `region_changed`. `cancel_generation()` stops
    /// it and keeps the old heights. Returns false, with an error, on bad settings or while one is running.
    #[func]
    fn generate_async(&mut self, generator: Option<Gd<TerrainGenerator>>) -> bool {
        let Some(g) = generator else {
            godot_error!(
                "TerrainData.generate_async: generator must be a TerrainGenerator, got null"
            );
            return false;
        };
        if self.job.is_some() {
            godot_error!(
                "TerrainData.generate_async: a generation is running; finish or cancel it first"
            );
            return false;
        }
        let p = g.bind().params();
        let (w, d) = (self.core.width(), self.core.depth());
        let progress = Arc::new(generation::Progress::default());
        let watch = progress.clone();
        let handle = std::thread::spawn(move || {
            let mut heights = vec![0.0; w * d];
            generation::generate_watched(&p, w, &mut heights, &watch)
                .map(|done| done.then_some(heights))
                .map_err(|e| e.to_string())
        });
        self.job = Some(GenerationJob {
            progress,
            handle,
            size: (w, d),
        });
        true
    }

    /// Share of a running generation done, 0..1; -1 when none runs.
    #[func]
    fn get_generation_progress(&self) -> f64 {
        match &self.job {
            Some(j) => j.progress.rows.load(Ordering::Relaxed) as f64 / j.size.1.max(1) as f64,
            None => -1.0,
        }
    }

    /// Asks a running generation to stop; `finish_generation()` then returns true and keeps the old heights.
    #[func]
    fn cancel_generation(&mut self) {
        if let Some(j) = &self.job {
            j.progress.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Installs a finished generation (true), or returns false while it still runs. True also when there
    /// is none, or it was cancelled, or the size changed meanwhile (then with an error, heights kept).
    #[func]
    fn finish_generation(&mut self) -> bool {
        if self.job.as_ref().is_some_and(|j| !j.handle.is_finished()) {
            return false;
        }
        let Some(job) = self.job.take() else {
            return true;
        };
        // A cancel that came after the last row still wins: cancelled means the old heights, always.
        let cancelled = job.progress.cancel.load(Ordering::Relaxed);
        match job.handle.join() {
            Ok(Ok(Some(_))) if cancelled => {}
            Ok(Ok(Some(heights))) => {
                if job.size != (self.core.width(), self.core.depth()) {
                    godot_error!("TerrainData.finish_generation: size changed while generating; heights kept");
                } else {
                    self.replace_heights(heights, "generate_async");
                }
            }
            Ok(Ok(None)) => {}
            Ok(Err(e)) => godot_error!("TerrainData.generate_async: {e}; nothing changed"),
            Err(_) => {
                godot_error!("TerrainData.generate_async: the generation failed; nothing changed")
            }
        }
        true
    }

    /// Shorthand for `generate` with a generator of these settings (see `TerrainGenerator` for their
    /// meaning and ranges; `noise_type` is one of the NOISE_* constants). Returns false and changes nothing
    /// on bad parameters.
    #[func]
    #[allow(clippy::too_many_arguments)]
    fn generate_noise(
        &mut self,
        seed: i64,
        frequency: f64,
        octaves: i64,
        lacunarity: f64,
        gain: f64,
        height: f64,
        sea_level: f64,
        noise_type: i64,
    ) -> bool {
        let Some(kind) = NoiseKind::from_index(noise_type) else {
            godot_error!("TerrainData.generate_noise: noise_type must be in [0, 3] (NOISE_*), got {noise_type}");
            return false;
        };
        let p = NoiseParams {
            kind,
            seed: seed as u32,
            frequency,
            octaves: octaves.clamp(0, 1 << 20) as usize,
            lacunarity,
            gain,
            height,
            sea_level,
            ..Default::default()
        };
        self.generate_with(&p, "generate_noise")
    }

    /// Fills the terrain (current `size`) from a Godot `Noise` resource: height = max(noise.get_noise_2d(x, z)
    /// * height, sea_level) per sample, exactly as the resource computes it. Godot's image functions return
    /// 8-bit images, so the values are read with one native call per sample, on the calling thread.
    #[func]
    fn generate_from_noise(
        &mut self,
        noise: Option<Gd<Noise>>,
        height: f64,
        sea_level: f64,
    ) -> bool {
        let Some(noise) = noise else {
            godot_error!(
                "TerrainData.generate_from_noise: noise must be a Noise resource, got null"
            );
            return false;
        };
        if !height.is_finite() || sea_level.is_nan() {
            godot_error!("TerrainData.generate_from_noise: height must be finite and sea_level a number, got {height} and {sea_level}");
            return false;
        }
        let (w, d) = (self.core.width(), self.core.depth());
        let mut heights = Vec::with_capacity(w * d);
        for z in 0..d {
            for x in 0..w {
                let v = f64::from(noise.get_noise_2d(x as f32, z as f32)) * height;
                heights.push(v.max(sea_level) as f32);
            }
        }
        self.replace_heights(heights, "generate_from_noise")
    }

    /// Loads a heightmap file; `size` becomes the file's. By extension: `.png` (8- or 16-bit, decoded here
    /// with full 16-bit precision), `.r16` (raw little-endian unsigned 16-bit), `.r32`/`.raw` (raw
    /// little-endian float heights), `.exr` (float, through Godot's loader). Integer formats map their range
    /// to [min_height, max_height] (height-band texturing's heightmaps do the same); float formats hold
    /// heights as they are. Raw files need `raw_width` (samples per row). Elevation files (`.tif`,
    /// `.tiff`, `.hgt`, `.asc`) are read as `import_elevation(path, NODATA_HOLES)` does (heights in metres
    /// and the file's spacing; min_height, max_height and raw_width are not used).
    #[func]
    fn import_heightmap(
        &mut self,
        path: GString,
        min_height: f64,
        max_height: f64,
        raw_width: i64,
    ) -> Error {
        let p = path.to_string();
        if heightmap_io::elevation::is_elevation(&p) {
            return self.import_elevation(path, Self::NODATA_HOLES);
        }
        let format = match FileFormat::from_path(&p) {
            Ok(f) => f,
            Err(e) => {
                godot_error!("TerrainData.import_heightmap: {e}");
                return Error::ERR_FILE_UNRECOGNIZED;
            }
        };
        if format == FileFormat::Exr {
            let Some(img) = Image::load_from_file(&path) else {
                godot_error!("TerrainData.import_heightmap: cannot load {p} as an EXR image");
                return Error::ERR_FILE_CORRUPT;
            };
            return if self.import_image(Some(img), min_height, max_height) {
                Error::OK
            } else {
                Error::ERR_INVALID_DATA
            };
        }
        if !FileAccess::file_exists(&path) {
            godot_error!("TerrainData.import_heightmap: no file at {p}");
            return Error::ERR_FILE_NOT_FOUND;
        }
        let bytes = FileAccess::get_file_as_bytes(&path);
        let budget = budget_of(self.sample_budget);
        let res = format.decode(
            bytes.as_slice(),
            min_height,
            max_height,
            raw_width.max(0) as usize,
            budget,
        );
        match res {
            Ok(h) => self.install(h, &format!("import_heightmap({p})")),
            Err(e) => {
                godot_error!("TerrainData.import_heightmap({p}): {e}; nothing changed");
                elevation::import_error_code(&e)
            }
        }
    }

    /// Writes the heights to a file; the format follows the extension as in `import_heightmap`. PNG takes
    /// `bit_depth` 8 or 16; integer formats map [min_height, max_height] to their full range (values
    /// outside are clamped). Float formats (`.r32`, `.raw`, `.exr`) write heights as they are.
    #[func]
    fn export_heightmap(
        &mut self,
        path: GString,
        min_height: f64,
        max_height: f64,
        bit_depth: i64,
    ) -> Error {
        let p = path.to_string();
        let format = match FileFormat::from_path(&p) {
            Ok(f) => f,
            Err(e) => {
                godot_error!("TerrainData.export_heightmap: {e}");
                return Error::ERR_FILE_UNRECOGNIZED;
            }
        };
        let bytes = if format == FileFormat::Exr {
            // Encoded by Godot into memory, written below: a failure to write names the file.
            self.export_image()
                .save_exr_to_buffer_ex()
                .grayscale(true)
                .done()
        } else {
            let (w, d) = (self.core.width(), self.core.depth());
            let bits = bit_depth.clamp(0, 64) as u32;
            match format.encode(self.core.heights(), w, d, bits, min_height, max_height) {
                Ok(b) => PackedByteArray::from(b.as_slice()),
                Err(e) => {
                    godot_error!("TerrainData.export_heightmap({p}): {e}");
                    return elevation::import_error_code(&e);
                }
            }
        };
        if bytes.is_empty() {
            godot_error!("TerrainData.export_heightmap({p}): this Godot build cannot encode EXR; use .r32 for lossless heights");
            return Error::ERR_UNAVAILABLE;
        }
        let Some(mut f) = FileAccess::open(&path, ModeFlags::WRITE) else {
            godot_error!("TerrainData.export_heightmap: cannot write {p}");
            return FileAccess::get_open_error();
        };
        f.store_buffer(&bytes);
        f.close();
        Error::OK
    }

    /// Takes heights from an Image; `size` becomes the image's. 8-bit formats (L8, R8, RGB8, RGBA8, LA8, RG8)
    /// use their first channel mapped to [min_height, max_height]; float formats (RF, RH, RGF, RGH, RGBF,
    /// RGBH, RGBAF, RGBAH) hold heights as they are. Returns false and changes nothing otherwise.
    #[func]
    fn import_image(&mut self, image: Option<Gd<Image>>, min_height: f64, max_height: f64) -> bool {
        let Some(image) = image else {
            godot_error!("TerrainData.import_image: image is null");
            return false;
        };
        if image.is_empty() {
            godot_error!("TerrainData.import_image: image is empty");
            return false;
        }
        let fmt = image.get_format();
        let float = [
            Format::RF,
            Format::RH,
            Format::RGF,
            Format::RGH,
            Format::RGBF,
            Format::RGBH,
            Format::RGBAF,
            Format::RGBAH,
        ];
        let byte = [
            Format::L8,
            Format::R8,
            Format::RGB8,
            Format::RGBA8,
            Format::LA8,
            Format::RG8,
        ];
        let (w, d) = (image.get_width() as usize, image.get_height() as usize);
        if let Err(e) = core::check_size(w as i64, d as i64, budget_of(self.sample_budget)) {
            godot_error!("TerrainData.import_image: {e}");
            return false;
        }
        let mut img = image.duplicate_resource();
        let budget = budget_of(self.sample_budget);
        let decoded = if float.contains(&fmt) {
            img.convert(Format::RF);
            heightmap_io::decode_raw_f32(img.get_data().as_slice(), w, budget)
        } else if byte.contains(&fmt) {
            // R8 keeps the first channel (L8 would mix RGB into luminance); heightmaps are read from red.
            img.convert(Format::R8);
            heightmap_io::decode_u8(img.get_data().as_slice(), w, min_height, max_height, budget)
        } else {
            godot_error!(
                "TerrainData.import_image: unsupported image format {fmt:?}; use L8, R8, RGB8, RGBA8, LA8, RG8 or a float format (RF, RH, RGF, RGH, RGBF, RGBH, RGBAF, RGBAH)"
            );
            return false;
        };
        match decoded {
            Ok(h) => self.install(h, "import_image") == Error::OK,
            Err(e) => {
                godot_error!("TerrainData.import_image: {e}; nothing changed");
                false
            }
        }
    }

    /// The heights as a `FORMAT_RF` Image (world units, lossless).
    #[func]
    fn export_image(&self) -> Gd<Image> {
        let bytes = heightmap_io::encode_raw_f32(self.core.heights());
        let (w, d) = (self.core.width() as i32, self.core.depth() as i32);
        Image::create_from_data(
            w,
            d,
            false,
            Format::RF,
            &PackedByteArray::from(bytes.as_slice()),
        )
        .expect("image")
    }
}

/// A generation on worker threads: its progress and result.
struct GenerationJob {
    progress: Arc<generation::Progress>,
    handle: std::thread::JoinHandle<Result<Option<Vec<f32>>, String>>,
    size: (usize, usize),
}

impl Drop for TerrainData {
    fn drop(&mut self) {
        // A generation outliving its terrain stops early and frees its buffer on its own.
        if let Some(j) = &self.job {
            j.progress.cancel.store(true, Ordering::Relaxed);
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

    fn generate_with(&mut self, p: &NoiseParams, what: &str) -> bool {
        let (w, d) = (self.core.width(), self.core.depth());
        let mut heights = vec![0.0; w * d];
        if let Err(e) = generation::generate(p, w, &mut heights) {
            godot_error!("TerrainData.{what}: {e}; nothing changed");
            return false;
        }
        self.replace_heights(heights, what)
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
        self.core = t;
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
    }

    /// Copies a rectangle of the derived data into the kept image and re-uploads the texture.
    fn update_texture_region(&mut self, r: Region) {
        if r.is_empty() || (self.image.is_none() && self.texture.is_none()) {
            return;
        }
        let rows = self.core.texels_region(r);
        if let Some(img) = self.image.as_mut() {
            let patch = Image::create_from_data(
                r.w as i32,
                r.d as i32,
                false,
                Format::RGBF,
                &data_bytes(&rows),
            )
            .expect("patch image");
            let src = Rect2i::new(Vector2i::ZERO, Vector2i::new(r.w as i32, r.d as i32));
            img.blit_rect(&patch, src, Vector2i::new(r.x as i32, r.z as i32));
        }
        if let Some(tex) = self.texture.as_mut() {
            // Without rectangle updates the whole kept image is re-sent (it exists then: see get_data_texture).
            let image = &self.image;
            tex.update_rect(
                [r.x as u32, r.z as u32],
                [r.w as u32, r.d as u32],
                rows.as_flattened(),
                || image.clone().expect("the image of a texture updated whole"),
            );
        }
    }

    /// The whole data as a new image.
    fn whole_data_image(&self) -> Gd<Image> {
        let (w, d) = (self.core.width() as i32, self.core.depth() as i32);
        let all = self.core.texels_region(self.core.all());
        Image::create_from_data(w, d, false, Format::RGBF, &data_bytes(&all)).expect("data image")
    }
}
