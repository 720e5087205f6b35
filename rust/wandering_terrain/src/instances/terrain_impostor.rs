//! `TerrainImpostor`: an octahedral impostor atlas baked from a `TerrainInstanceMesh` (core
//! `terrain_core::impostor`; drawn by `shaders/terrain_impostor.gdshader`).

use crate::async_job::{AsyncJob, Outcome};
use crate::instances::impostor_source::Source;
use crate::look::terrain_material::default_material;
use godot::classes::image::Format;
use godot::classes::mesh::ArrayType;
use godot::classes::{
    ArrayMesh, IResource, Image, ImageTexture, Mesh, PackedScene, ShaderMaterial, Texture2D,
};
use godot::prelude::*;
use std::hash::{Hash, Hasher};
use terrain_core::impostor::{
    bake, max_level, with_mips, BakeSurface, BakedImpostor, ImpostorError, ImpostorLayout,
};
use terrain_core::progress::Progress;

pub const SHADER: &str = "res://addons/wandering_terrain/shaders/terrain_impostor.gdshader";
pub const SHADER_PIXEL_ART: &str =
    "res://addons/wandering_terrain/shaders/terrain_impostor_pixel_art.gdshader";

type BakeJob = AsyncJob<Result<BakedImpostor, ImpostorError>, Progress, i64>;

/// A mesh seen from `frames` × `frames` directions over the upper hemisphere (octahedral impostor),
/// baked into two atlases: albedo with coverage, and normal with depth. A `TerrainInstanceMesh` with one
/// draws its instances beyond `impostor_distance` as cards showing it, re-lit from the baked normals, with
/// shadows, up to its `visibility_range`.
///
/// Bake with `TerrainInstanceMesh.bake_impostor()` / `bake_impostor_async()` (or the inspector's Bake
/// button), or `bake(source)` here from a Mesh or a PackedScene. Baking runs on the CPU: it needs no renderer, works headless, and gives the same atlas every
/// time. What it reads: the nearest LOD (`mesh`, or the scene's first MeshInstance3D with its transform
/// and materials), StandardMaterial3D's albedo colour and texture, vertex colours, alpha scissor; a
/// ShaderMaterial's `albedo` and `texture_albedo` parameters when present (white otherwise).
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainImpostor {
    /// Views per side of the atlas, [2, 32]; frames of at least 16 pixels.
    #[export(range = (2.0, 32.0, 1.0))]
    #[var(set = set_frames)]
    frames: i64,
    /// Atlas side in pixels, [64, 8192] (rounded down to a multiple of `frames`).
    #[export(range = (64.0, 8192.0, 1.0))]
    #[var(set = set_atlas_size)]
    atlas_size: i64,
    /// Draw the cards in the pixel-art style (texel-snapped, banded light), to go with the pixel-art
    /// terrain look.
    #[export]
    #[var(set = set_pixel_art)]
    pixel_art: bool,
    /// Baked: albedo (sRGB) with coverage in alpha.
    #[export]
    #[var(set = set_albedo_texture)]
    albedo_texture: Option<Gd<Texture2D>>,
    /// Baked: object-space normal (RGB) and depth towards the viewer (A).
    #[export]
    #[var(set = set_normal_depth_texture)]
    normal_depth_texture: Option<Gd<Texture2D>>,
    /// Baked: the frames' centre (object space).
    #[export]
    centre: Vector3,
    /// Baked: the frames' half width (object units).
    #[export]
    radius: f64,
    /// Baked: views per side of the stored atlas.
    #[export]
    baked_frames: i64,
    /// Baked: what the atlas was baked from (a change of the mesh or its materials bakes again).
    #[export]
    source_hash: i64,
    last_bake_msec: f64,
    atlas_hash: i64,
    job: Option<BakeJob>,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainImpostor {
    fn init(base: Base<Resource>) -> Self {
        Self {
            frames: 16,
            atlas_size: 2048,
            pixel_art: false,
            albedo_texture: None,
            normal_depth_texture: None,
            centre: Vector3::ZERO,
            radius: 0.0,
            baked_frames: 0,
            source_hash: 0,
            last_bake_msec: 0.0,
            atlas_hash: 0,
            job: None,
            base,
        }
    }
}

#[godot_api]
impl TerrainImpostor {
    /// The bake finished (`ok`: the atlas was replaced; otherwise the last one is kept).
    #[signal]
    fn bake_finished(ok: bool);

    #[func]
    fn set_frames(&mut self, v: i64) {
        if let Err(e) = ImpostorLayout::new(v, self.atlas_size) {
            godot_error!("TerrainImpostor.frames: {e}; keeping {}", self.frames);
            return;
        }
        self.frames = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_atlas_size(&mut self, v: i64) {
        if let Err(e) = ImpostorLayout::new(self.frames, v) {
            godot_error!(
                "TerrainImpostor.atlas_size: {e}; keeping {}",
                self.atlas_size
            );
            return;
        }
        self.atlas_size = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_pixel_art(&mut self, v: bool) {
        self.pixel_art = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_albedo_texture(&mut self, v: Option<Gd<Texture2D>>) {
        self.albedo_texture = v;
        self.atlas_hash = 0;
    }
    #[func]
    fn set_normal_depth_texture(&mut self, v: Option<Gd<Texture2D>>) {
        self.normal_depth_texture = v;
        self.atlas_hash = 0;
    }

    /// Bakes the atlas from `source` now (about a second at 2048², on the calling thread): a Mesh, or a
    /// PackedScene (its first MeshInstance3D with its transform and materials). A TerrainInstanceMesh bakes
    /// its own with `bake_impostor()`. On an error (null, another type, a scene without a MeshInstance3D,
    /// a mesh without triangles) it says why and keeps the last atlas. Returns whether the atlas was
    /// replaced.
    #[func]
    pub fn bake(&mut self, source: Option<Gd<Resource>>) -> bool {
        match source_of(source) {
            Ok(src) => self.bake_source(&src),
            Err(e) => {
                godot_error!("TerrainImpostor.bake: {e}; keeping the last atlas");
                false
            }
        }
    }

    /// `bake` on a thread; `get_bake_progress()` tells how far, `bake_finished` is emitted from
    /// `poll_bake()` (call it each frame, as the editor's button does). Returns false when a bake is
    /// already running or `source` cannot be baked (the error says why).
    #[func]
    fn bake_async(&mut self, source: Option<Gd<Resource>>) -> bool {
        match source_of(source) {
            Ok(src) => self.bake_source_async(&src),
            Err(e) => {
                godot_error!("TerrainImpostor.bake_async: {e}; keeping the last atlas");
                false
            }
        }
    }

    /// Progress of `bake_async` in [0, 1] (1 when none runs).
    #[func]
    fn get_bake_progress(&self) -> f64 {
        if self.job.is_none() {
            return 1.0;
        }
        crate::async_job::progress_of(&self.job)
    }

    /// Whether a `bake_async` runs (until `poll_bake()` installs it).
    #[func]
    fn is_baking(&self) -> bool {
        self.job.is_some()
    }

    /// Installs a finished `bake_async` (emitting `bake_finished`); true while it still runs.
    #[func]
    fn poll_bake(&mut self) -> bool {
        let job = match AsyncJob::take_ended(&mut self.job) {
            Ok(j) => j,
            Err(running) => return !running,
        };
        let ok = match job.finish() {
            (Outcome::Done(r), hash) => self.install(r, hash),
            _ => false,
        };
        self.signals().bake_finished().emit(ok);
        false
    }

    /// Milliseconds the last bake on this object took (0 before one).
    #[func]
    fn get_last_bake_msec(&self) -> f64 {
        self.last_bake_msec
    }

    /// Whether an atlas is stored.
    #[func]
    pub fn is_baked(&self) -> bool {
        self.albedo_texture.is_some()
            && self.normal_depth_texture.is_some()
            && self.baked_frames >= 2
    }

    /// A hash of the stored atlases' pixels (equal bakes, equal hashes; 0 without an atlas).
    #[func]
    fn get_atlas_hash(&mut self) -> i64 {
        if self.atlas_hash == 0 && self.is_baked() {
            let mut parts: Vec<Vec<u8>> = Vec::new();
            for t in [&self.albedo_texture, &self.normal_depth_texture] {
                if let Some(mut img) = t.as_ref().and_then(|t| t.get_image()) {
                    img.clear_mipmaps();
                    parts.push(img.get_data().to_vec());
                }
            }
            if parts.len() == 2 {
                self.atlas_hash = atlas_hash(&parts[0], &parts[1]);
            }
        }
        self.atlas_hash
    }

    /// A card showing the impostor (an ArrayMesh quad with the impostor material): put it on a
    /// MeshInstance3D for a single far landmark. Null before a bake.
    #[func]
    pub fn make_card_mesh(&self) -> Option<Gd<ArrayMesh>> {
        let material = self.make_material()?;
        let mut verts = PackedVector3Array::new();
        for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            verts.push(Vector3::new(x, y, 0.0));
        }
        let mut arrays = VarArray::new();
        arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
        arrays.set(ArrayType::VERTEX.ord() as usize, &verts.to_variant());
        arrays.set(
            ArrayType::INDEX.ord() as usize,
            &PackedInt32Array::from(&[0, 1, 2, 0, 2, 3][..]).to_variant(),
        );
        let mut mesh = ArrayMesh::new_gd();
        mesh.add_surface_from_arrays(godot::classes::mesh::PrimitiveType::TRIANGLES, &arrays);
        mesh.surface_set_material(0, &material);
        let r = self.radius as f32;
        // The card turns anywhere within the sphere around the centre.
        mesh.set_custom_aabb(Aabb::new(
            self.centre - Vector3::splat(r),
            Vector3::splat(2.0 * r),
        ));
        Some(mesh)
    }

    /// The material drawing this impostor (always shown; the instancer sets the switch distances).
    #[func]
    pub fn make_material(&self) -> Option<Gd<ShaderMaterial>> {
        if !self.is_baked() {
            return None;
        }
        let path = if self.pixel_art {
            SHADER_PIXEL_ART
        } else {
            SHADER
        };
        let mut m = default_material(path, "TerrainImpostor");
        let side = self
            .albedo_texture
            .as_ref()
            .map_or(1, |t| t.get_width().max(1));
        let used = (self.atlas_side() as f32 / side as f32).min(1.0);
        let frame = (self.atlas_side() / self.baked_frames.max(1)).max(1) as u32;
        let params: [(&str, Variant); 7] = [
            ("impostor_max_lod", (max_level(frame) as f32).to_variant()),
            ("impostor_albedo", self.albedo_texture.to_variant()),
            (
                "impostor_normal_depth",
                self.normal_depth_texture.to_variant(),
            ),
            ("impostor_frames", (self.baked_frames as i32).to_variant()),
            ("impostor_atlas_used", used.to_variant()),
            ("impostor_centre", self.centre.to_variant()),
            ("impostor_radius", (self.radius as f32).to_variant()),
        ];
        for (k, v) in params {
            m.set_shader_parameter(k, &v);
        }
        Some(m)
    }
}

impl TerrainImpostor {
    /// The stored atlas's used side (frames × frame size).
    fn atlas_side(&self) -> i64 {
        let side = self
            .albedo_texture
            .as_ref()
            .map_or(0, |t| i64::from(t.get_width()));
        if self.baked_frames >= 2 {
            side / self.baked_frames * self.baked_frames
        } else {
            side
        }
    }

    /// Starts a bake of an already gathered source on a thread (`TerrainInstanceMesh`'s async bake).
    pub fn bake_source_async(&mut self, src: &Source) -> bool {
        if self.job.is_some() {
            godot_error!("TerrainImpostor.bake_async: a bake is already running");
            return false;
        }
        let Ok(layout) = ImpostorLayout::new(self.frames, self.atlas_size) else {
            return false;
        };
        let (surfaces, hash) = (src.surfaces(true), self.hash_of(src));
        self.job = Some(AsyncJob::start(hash, move |p: &Progress| {
            bake(&surfaces, layout, p)
        }));
        true
    }

    /// Bakes from an already gathered source (`TerrainInstanceMesh.bake_impostor`).
    pub fn bake_source(&mut self, src: &Source) -> bool {
        let Ok(layout) = ImpostorLayout::new(self.frames, self.atlas_size) else {
            return false;
        };
        let hash = self.hash_of(src);
        self.bake_now(&src.surfaces(true), hash, layout)
    }

    fn bake_now(&mut self, surfaces: &[BakeSurface], hash: i64, layout: ImpostorLayout) -> bool {
        let t = std::time::Instant::now();
        let r = bake(surfaces, layout, &Progress::default());
        self.last_bake_msec = t.elapsed().as_secs_f64() * 1000.0;
        self.install(r, hash)
    }

    /// The source's hash with the layout (a new layout bakes again too).
    pub fn hash_of(&self, src: &Source) -> i64 {
        src.hash() ^ (self.frames << 40) ^ (self.atlas_size << 20)
    }

    pub fn source_hash(&self) -> i64 {
        self.source_hash
    }
    pub fn radius(&self) -> f32 {
        self.radius as f32
    }

    fn install(&mut self, r: Result<BakedImpostor, ImpostorError>, hash: i64) -> bool {
        let b = match r {
            Ok(b) => b,
            Err(e) => {
                godot_error!("TerrainImpostor.bake: {e}; keeping the last atlas");
                return false;
            }
        };
        let side = b.layout.atlas_side() as i32;
        // Our own mipmaps: coverage kept for the alpha test, colour averaged by coverage.
        let n = b.layout.frames();
        let albedo = with_mips(&b.albedo, side as u32, n, None, 0.5);
        let normal = with_mips(
            &b.normal_depth,
            side as u32,
            n,
            Some(&alpha_bytes(&b.albedo)),
            0.5,
        );
        let tex = |bytes: &[u8]| {
            let img = Image::create_from_data(
                side,
                side,
                true,
                Format::RGBA8,
                &PackedByteArray::from(bytes),
            )?;
            ImageTexture::create_from_image(&img)
        };
        let (a, n) = (tex(&albedo), tex(&normal));
        let (Some(a), Some(n)) = (a, n) else {
            godot_error!(
                "TerrainImpostor.bake: the atlas images could not be made; keeping the last atlas"
            );
            return false;
        };
        self.albedo_texture = Some(a.upcast());
        self.normal_depth_texture = Some(n.upcast());
        self.centre = Vector3::from_array(b.centre);
        self.radius = f64::from(b.radius);
        self.baked_frames = i64::from(b.layout.frames());
        self.source_hash = hash;
        self.atlas_hash = atlas_hash(&b.albedo, &b.normal_depth);
        self.base_mut().emit_changed();
        true
    }
}

/// The pixels' hash (level 0 of both atlases).
fn atlas_hash(albedo: &[u8], normal_depth: &[u8]) -> i64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    albedo.hash(&mut h);
    normal_depth.hash(&mut h);
    (h.finish() as i64).max(1)
}

fn alpha_bytes(rgba: &[u8]) -> Vec<u8> {
    rgba.chunks_exact(4).map(|c| c[3]).collect()
}

/// A Mesh or a PackedScene as a bake's source.
fn source_of(source: Option<Gd<Resource>>) -> Result<Source, String> {
    let r = source.ok_or("source is null")?;
    if let Ok(m) = r.clone().try_cast::<Mesh>() {
        return Ok(Source::of_mesh(m));
    }
    match r.try_cast::<PackedScene>() {
        Ok(sc) => Source::of_scene(&sc),
        Err(r) => Err(format!(
            "source must be a Mesh or a PackedScene, got {} (a TerrainInstanceMesh bakes its own: bake_impostor())",
            r.get_class()
        )),
    }
}
