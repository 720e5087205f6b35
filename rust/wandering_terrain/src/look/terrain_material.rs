//! `TerrainMaterial`: the layers of a terrain and every shader parameter of its look (blending maths in
//! `terrain_core::material`, shader in `shaders/terrain_material.gdshaderinc`).

use crate::follow::weak;
use crate::look::terrain_layer::TerrainLayer;
use crate::object_array::objects_of;
use godot::classes::image::{Format, Interpolation};
use godot::classes::{IResource, Image, Resource, Shader, ShaderMaterial, Texture2DArray};
use godot::prelude::*;
use terrain_core::control::MAX_LAYERS;
use terrain_core::material::{Band, Blending};

/// Largest size of one layer texture array (all layers, RGBA8 with mipmaps): 1 GiB. `layers` and
/// `texture_size` together must fit (63 layers of 1024², 16 of 2048² or 4 of 4096² do).
pub const MAX_ARRAY_BYTES: u64 = 1 << 30;

/// Bytes of one texture array of `layers` layers of `size`² RGBA8 texels with mipmaps.
fn array_bytes(layers: usize, size: i64) -> u64 {
    layers as u64 * (size * size) as u64 * 4 * 4 / 3
}

/// Shader parameters this resource sets (runtime state: taken out of a material while a scene is saved).
pub const PARAMS: &[&str] = &[
    "layer_albedo",
    "layer_normal",
    "layer_count",
    "layer_color",
    "layer_params",
    "layer_deform",
    "auto_texturing",
    "triplanar_slope",
    "blend_sharpness",
    "cliff_layer",
    "cliff_slope",
];

/// The look of a terrain: up to 63 `TerrainLayer`s, painted per sample (`TerrainData.set_layer_region`,
/// brushes, splat maps) and, where nothing is painted, chosen by height bands (`auto_texturing`).
/// Set it as `terrain_material` on a `TerrainNode` or `WanderingTerrain`; it builds one `Texture2DArray`
/// for all albedos and one for all normal maps (every layer resized to `texture_size`, rebuilt only when
/// a layer or this material changes) and owns every shader parameter of the look. A pixel blends at most
/// four layers, whatever the layer count. With your own ShaderMaterial, include
/// `terrain_material.gdshaderinc` and call `apply_to(material)`.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainMaterial {
    /// The layers; their index is what painting uses (`TerrainBrush.layer`, `set_layer_region`). At most 63.
    /// Assign a new array to change the list (appending to the array you read does not reach the material);
    /// edits of a layer's own properties are followed.
    #[export]
    #[var(set = set_layers)]
    layers: Array<Option<Gd<TerrainLayer>>>,
    /// Unpainted ground takes the layers' height bands (else layer 0).
    #[export]
    #[var(set = set_auto_texturing)]
    auto_texturing: bool,
    /// Triplanar layers use three projections where the ground's normal has y below this (0.7 ≈ 45°),
    /// [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_triplanar_slope)]
    triplanar_slope: f64,
    /// 0: weights as painted; 1: nearly hard edges between layers. [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_blend_sharpness)]
    blend_sharpness: f64,
    /// Auto-texturing puts this layer on steep ground (normal y below `cliff_slope`): rock on cliffs.
    /// -1: none. [-1, 62].
    #[export(range = (-1.0, 62.0, 1.0))]
    #[var(set = set_cliff_layer)]
    cliff_layer: i64,
    /// Normal y below which `cliff_layer` covers unpainted ground (0.75 ≈ 41°), [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_cliff_slope)]
    cliff_slope: f64,
    /// Side of every layer's textures in the arrays (a power of two in [16, 4096]); with the layer count it
    /// must fit 1 GiB per array (63 layers of 1024², 16 of 2048², 4 of 4096²).
    #[export(enum = (S64 = 64, S128 = 128, S256 = 256, S512 = 512, S1024 = 1024, S2048 = 2048, S4096 = 4096))]
    #[var(set = set_texture_size)]
    texture_size: i64,
    albedo_array: Option<Gd<Texture2DArray>>,
    normal_array: Option<Gd<Texture2DArray>>,
    /// The arrays need a rebuild before the next `apply_to`.
    dirty: bool,
    /// `blending()`, made again at every change (`look_changed`): the CPU twin is asked per query.
    blending: Blending,
    /// Each layer's `surface_name`, made with `blending` (`get_surface_name` reads no layer).
    surface_names: Vec<StringName>,
    /// The connections to the layers (`follow::Links`).
    layer_links: crate::follow::Links,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainMaterial {
    /// A plain `[...]` set on `layers` through an untyped reference: converted here (the typed setter takes
    /// only typed arrays); a wrong element is refused by name.
    fn on_set(&mut self, property: StringName, value: Variant) -> bool {
        if property != "layers" {
            return false;
        }
        let Ok(plain) = value.try_to::<VarArray>() else {
            return false;
        };
        if let Some(a) = objects_of::<TerrainLayer>("TerrainMaterial.layers", &plain) {
            self.set_layers(a);
        }
        true
    }

    fn init(base: Base<Resource>) -> Self {
        Self {
            layers: Array::new(),
            auto_texturing: true,
            triplanar_slope: 0.7,
            blend_sharpness: 0.0,
            cliff_layer: -1,
            cliff_slope: 0.75,
            texture_size: 512,
            albedo_array: None,
            normal_array: None,
            dirty: true,
            blending: Blending::default(),
            surface_names: Vec::new(),
            layer_links: Default::default(),
            base,
        }
    }
}

#[godot_api]
impl TerrainMaterial {
    #[func]
    fn set_layers(&mut self, v: Array<Option<Gd<TerrainLayer>>>) {
        if v.len() > MAX_LAYERS {
            godot_error!(
                "TerrainMaterial.layers must hold at most {MAX_LAYERS} layers, got {}; keeping the previous layers",
                v.len()
            );
            return;
        }
        if array_bytes(v.len(), self.texture_size) > MAX_ARRAY_BYTES {
            godot_error!(
                "TerrainMaterial.layers: {} layers of {}² would need {} MB per texture array, over the 1024 MB budget; lower texture_size first; keeping the previous layers",
                v.len(),
                self.texture_size,
                array_bytes(v.len(), self.texture_size) >> 20
            );
            return;
        }
        // A layer's parameters only need re-sending; its textures need the arrays rebuilt.
        let me = self.to_gd();
        // A layer listed twice is followed once.
        let mut seen = Vec::new();
        let unique = v.iter_shared().flatten().filter(|l| {
            let id = l.instance_id();
            !seen.contains(&id) && {
                seen.push(id);
                true
            }
        });
        self.layer_links.replace(unique.flat_map(|l| {
            [
                l.signals()
                    .changed()
                    .connect(weak(&me, Self::layer_changed)),
                l.signals()
                    .textures_changed()
                    .connect(weak(&me, Self::layer_textures_changed)),
            ]
        }));
        self.layers = v;
        self.dirty = true;
        self.look_changed();
    }
    fn layer_changed(&mut self) {
        self.look_changed();
    }

    /// The layer's `changed` follows and re-sends everything.
    fn layer_textures_changed(&mut self) {
        self.dirty = true;
    }

    #[func]
    fn set_auto_texturing(&mut self, v: bool) {
        self.auto_texturing = v;
        self.look_changed();
    }

    #[func]
    fn set_triplanar_slope(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainMaterial.triplanar_slope must be in [0, 1], got {v}; keeping {}",
                self.triplanar_slope
            );
            return;
        }
        self.triplanar_slope = v;
        self.look_changed();
    }

    #[func]
    fn set_blend_sharpness(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainMaterial.blend_sharpness must be in [0, 1], got {v}; keeping {}",
                self.blend_sharpness
            );
            return;
        }
        self.blend_sharpness = v;
        self.look_changed();
    }

    #[func]
    fn set_cliff_layer(&mut self, v: i64) {
        if !(-1..MAX_LAYERS as i64).contains(&v) {
            godot_error!(
                "TerrainMaterial.cliff_layer must be in [-1, {}], got {v}; keeping {}",
                MAX_LAYERS - 1,
                self.cliff_layer
            );
            return;
        }
        self.cliff_layer = v;
        self.look_changed();
    }

    #[func]
    fn set_cliff_slope(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainMaterial.cliff_slope must be in [0, 1], got {v}; keeping {}",
                self.cliff_slope
            );
            return;
        }
        self.cliff_slope = v;
        self.look_changed();
    }

    #[func]
    fn set_texture_size(&mut self, v: i64) {
        if !(16..=4096).contains(&v) || v.count_ones() != 1 {
            godot_error!(
                "TerrainMaterial.texture_size must be a power of two in [16, 4096], got {v}; keeping {}",
                self.texture_size
            );
            return;
        }
        if array_bytes(self.layers.len(), v) > MAX_ARRAY_BYTES {
            godot_error!(
                "TerrainMaterial.texture_size {v} with {} layers would need {} MB per texture array, over the 1024 MB budget; keeping {}",
                self.layers.len(),
                array_bytes(self.layers.len(), v) >> 20,
                self.texture_size
            );
            return;
        }
        self.texture_size = v;
        self.dirty = true;
        self.look_changed();
    }

    /// Sets every parameter of the look on `material` (a ShaderMaterial whose shader includes
    /// `terrain_material.gdshaderinc`). The nodes call this themselves.
    #[func]
    pub fn apply_to(&mut self, material: Option<Gd<ShaderMaterial>>) {
        let Some(mut m) = material else {
            godot_error!("TerrainMaterial.apply_to: material must be a ShaderMaterial, got null");
            return;
        };
        self.rebuild();
        let (colors, params): (PackedVector4Array, PackedVector4Array) = self
            .layer_slots()
            .map(|l| {
                let l = l.bind();
                (l.color(), l.params())
            })
            .unzip();
        m.set_shader_parameter("layer_albedo", &self.albedo_array.to_variant());
        m.set_shader_parameter("layer_normal", &self.normal_array.to_variant());
        m.set_shader_parameter("layer_count", &(self.layers.len() as i32).to_variant());
        m.set_shader_parameter("layer_color", &colors.to_variant());
        m.set_shader_parameter("layer_params", &params.to_variant());
        let deform: PackedVector2Array = self.layer_slots().map(|l| l.bind().deform()).collect();
        m.set_shader_parameter("layer_deform", &deform.to_variant());
        m.set_shader_parameter("auto_texturing", &self.auto_texturing.to_variant());
        m.set_shader_parameter(
            "triplanar_slope",
            &(self.triplanar_slope as f32).to_variant(),
        );
        m.set_shader_parameter(
            "blend_sharpness",
            &(self.blend_sharpness as f32).to_variant(),
        );
        m.set_shader_parameter("cliff_layer", &(self.cliff_layer as i32).to_variant());
        m.set_shader_parameter("cliff_slope", &(self.cliff_slope as f32).to_variant());
    }

    /// The layers' albedo textures as one array (one slice per layer); null without layers.
    #[func]
    fn get_albedo_array(&mut self) -> Option<Gd<Texture2DArray>> {
        self.rebuild();
        self.albedo_array.clone()
    }

    /// The layers' normal maps as one array (flat where a layer has none); null without layers.
    #[func]
    fn get_normal_array(&mut self) -> Option<Gd<Texture2DArray>> {
        self.rebuild();
        self.normal_array.clone()
    }
}

impl TerrainMaterial {
    /// The layers in order, an empty slot (null, as the inspector's *Add Element* makes) drawn as a
    /// default layer (white, no textures), so painted indices keep their meaning.
    fn layer_slots(&self) -> impl Iterator<Item = Gd<TerrainLayer>> + '_ {
        self.layers
            .iter_shared()
            .map(|l| l.unwrap_or_else(TerrainLayer::new_gd))
    }

    /// Layer `i` (None past the end or for an empty slot).
    pub fn layer(&self, i: usize) -> Option<Gd<TerrainLayer>> {
        self.layers.get(i).flatten()
    }

    /// How many layers there are (indices `0..layer_count()` are what paint and layer rules name).
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    /// What the layer weights depend on (the CPU twin's input).
    pub fn blending(&self) -> Blending {
        self.blending.clone()
    }

    /// Layer `i`'s `surface_name` (empty past the end or for an empty slot).
    pub fn surface_name(&self, i: usize) -> StringName {
        self.surface_names.get(i).cloned().unwrap_or_default()
    }

    /// `blending()` without a copy (a query per call: `get_surface`).
    pub fn blending_ref(&self) -> &Blending {
        &self.blending
    }

    /// Anything changed (this or a layer): the CPU twin's input is made again and the nodes are told.
    fn look_changed(&mut self) {
        self.blending = self.make_blending();
        self.surface_names = self
            .layer_slots()
            .map(|l| l.bind().surface_name())
            .collect();
        self.base_mut().emit_changed();
    }

    fn make_blending(&self) -> Blending {
        let layer_count = self.layers.len();
        let bands = if self.auto_texturing {
            self.layer_slots()
                .enumerate()
                .filter_map(|(layer, l)| {
                    let p = l.bind().params();
                    (p.w > 0.0).then_some(Band {
                        layer,
                        centre: p.z,
                        width: p.w,
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        Blending {
            layer_count,
            bands,
            sharpness: self.blend_sharpness as f32,
            cliff: (self.auto_texturing && self.cliff_layer >= 0)
                .then_some((self.cliff_layer as usize, self.cliff_slope as f32)),
        }
    }

    /// Each layer's tint (linear RGB, its `albedo_color`): what detail standing on it takes.
    pub fn tints(&self) -> Vec<[f32; 3]> {
        self.layer_slots()
            .map(|l| {
                let c = l.bind().color();
                [c.x, c.y, c.z]
            })
            .collect()
    }

    /// Removes this resource's parameters from `material` (before a scene is saved).
    pub fn clear_from(material: &mut Gd<ShaderMaterial>) {
        for name in PARAMS {
            material.set_shader_parameter(*name, &Variant::nil());
        }
    }

    fn rebuild(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        if self.layers.is_empty() {
            self.albedo_array = None;
            self.normal_array = None;
            return;
        }
        let size = self.texture_size as i32;
        let mut albedo: Array<Gd<Image>> = Array::new();
        let mut normal: Array<Gd<Image>> = Array::new();
        for (i, l) in self.layer_slots().enumerate() {
            let l = l.bind();
            albedo.push(&layer_image(
                l.albedo_texture(),
                size,
                [255, 255, 255],
                i,
                "albedo",
            ));
            normal.push(&layer_image(
                l.normal_texture(),
                size,
                [128, 128, 255],
                i,
                "normal",
            ));
        }
        self.albedo_array = array_of(&albedo);
        self.normal_array = array_of(&normal);
    }
}

/// A layer's texture as an RGBA8 image of `size`² with mipmaps, or a plain one of `fill` without a texture.
fn layer_image(
    tex: Option<Gd<godot::classes::Texture2D>>,
    size: i32,
    fill: [u8; 3],
    index: usize,
    what: &str,
) -> Gd<Image> {
    let source = tex.and_then(|t| {
        let img = t.get_image();
        if img.is_none() {
            godot_error!(
                "TerrainMaterial: layer {index}'s {what} texture has no image data; drawn plain"
            );
        }
        img
    });
    let mut img = match source {
        Some(i) => {
            let mut i = i.duplicate_resource();
            if i.is_compressed() {
                i.decompress();
            }
            i.clear_mipmaps();
            i.convert(Format::RGBA8);
            i
        }
        None => {
            let mut i =
                Image::create_empty(size, size, false, Format::RGBA8).expect("plain layer image");
            i.fill(Color::from_rgba8(fill[0], fill[1], fill[2], 255));
            i
        }
    };
    if img.get_width() != size || img.get_height() != size {
        img.resize_ex(size, size)
            .interpolation(Interpolation::LANCZOS)
            .done();
    }
    img.generate_mipmaps();
    img
}

fn array_of(images: &Array<Gd<Image>>) -> Option<Gd<Texture2DArray>> {
    let mut a = Texture2DArray::new_gd();
    if a.create_from_images(images) != godot::global::Error::OK {
        godot_error!("TerrainMaterial: cannot build the layer texture array");
        return None;
    }
    Some(a)
}

/// A ShaderMaterial with the shader at `path` (the nodes' default material).
pub fn default_material(path: &str, who: &str) -> Gd<ShaderMaterial> {
    let mut mat = ShaderMaterial::new_gd();
    match try_load::<Shader>(path) {
        Ok(s) => mat.set_shader(&s),
        Err(e) => godot_error!("{who}: cannot load {path}: {e}"),
    }
    mat
}

/// Puts `look`'s parameters on a node's `material` (or takes them off when the node has no TerrainMaterial,
/// so the shader draws its plain colours).
pub fn bind(look: Option<&mut Gd<TerrainMaterial>>, material: Option<&Gd<ShaderMaterial>>) {
    let Some(m) = material else {
        return;
    };
    match look {
        Some(l) => l.bind_mut().apply_to(Some(m.clone())),
        None => TerrainMaterial::clear_from(&mut m.clone()),
    }
}

/// Sends each layer's texture phase at an origin shift of `shift` terrain units (X, Z) to `material`'s
/// `layer_uv_shift`: fract(shift × repeats per unit) in f64, so that textures far out are where they
/// would be without the shift (the shader adds this to its near-zero coordinates; f32 could not).
pub fn bind_uv_shift(
    look: Option<&Gd<TerrainMaterial>>,
    material: &mut Gd<ShaderMaterial>,
    shift: [f64; 2],
) {
    let Some(look) = look else {
        material.set_shader_parameter("layer_uv_shift", &Variant::nil());
        return;
    };
    let phases: PackedVector2Array = look
        .bind()
        .layer_slots()
        .map(|l| {
            let k = l.bind().uv_scale();
            let p = shift.map(|s| (s * k).rem_euclid(1.0) as f32);
            Vector2::new(p[0], p[1])
        })
        .collect();
    material.set_shader_parameter("layer_uv_shift", &phases.to_variant());
}

/// What the shader blends at terrain X/Z (x, z) of `data` with `look`: one weight per layer of the
/// material (empty without one). `grad_scale` turns terrain slopes into world slopes (the node's
/// vertical over horizontal scale per axis).
pub fn weights_at<S: terrain_core::samples::Samples + ?Sized>(
    look: Option<&Gd<TerrainMaterial>>,
    data: &S,
    x: f64,
    z: f64,
    grad_scale: [f32; 2],
) -> PackedFloat32Array {
    let Some(look) = look else {
        return PackedFloat32Array::new();
    };
    let blending = look.bind().blending();
    let mut out = vec![0.0f32; blending.layer_count];
    for (layer, w) in terrain_core::material::layer_weights(&blending, data, x, z, grad_scale) {
        out[layer] += w;
    }
    PackedFloat32Array::from(out)
}
