//! `TerrainData`'s control map: holes and painted layers (layout and blending in `terrain_core::material`).

use super::TerrainData;
use crate::data::terrain_data::editable_texture::{Channels, EditableTexture};
use crate::sample_rect::to_rect2i;
use godot::classes::image::Format;
use godot::classes::{Image, Texture2D};
use godot::prelude::*;
use terrain_core::control::HOLE;
use terrain_core::control::{gpu_control, MAX_LAYERS};
use terrain_core::material;
use terrain_core::terrain_data::Region;
use terrain_core::terrain_edit_log::Edit;

#[godot_api(secondary)]
impl TerrainData {
    /// Most layers a terrain can paint (layer indices 0 .. 62): `get_layer_weights` returns this many values.
    #[constant]
    const MAX_LAYERS: i64 = MAX_LAYERS as i64;

    /// Marks holes (non-zero bytes) and clears them (zero) in `region`, row-major. Holes follow the physics
    /// engines' rule for heightmaps: the square between four samples is split into two triangles along its
    /// (x + 1, z)–(x, z + 1) diagonal, and a triangle with a hole sample at a corner is open — `get_height`
    /// is NaN there, `TerrainNode` draws nothing and its collision has none, so what you see is what you
    /// stand on. Returns false and changes nothing on bad input.
    #[func]
    pub(super) fn set_holes_region(&mut self, region: Rect2i, holes: PackedByteArray) -> bool {
        let Some(r) = self.region(region) else {
            return false;
        };
        let result = self.under_layers(Some(r), |d| {
            d.core_mut().set_holes_region(r, holes.as_slice())
        });
        let ok = self.control_edited("set_holes_region", result);
        if ok {
            self.log_edit(|| {
                Some(Edit::Holes {
                    rect: r.into(),
                    holes: holes.to_vec(),
                })
            });
        }
        ok
    }

    /// Hole marks of the samples in `region` (1: hole, 0: ground), row-major.
    #[func]
    fn get_holes_region(&self, region: Rect2i) -> PackedByteArray {
        let Some(r) = self.region(region) else {
            return PackedByteArray::new();
        };
        let mut out = PackedByteArray::new();
        for z in r.z..r.z + r.d {
            for x in r.x..r.x + r.w {
                let c = self.core.control(x as i64, z as i64);
                out.push(u8::from(c & HOLE != 0));
            }
        }
        out
    }

    /// Whether world X/Z `pos` lies in a hole (then `get_height` is NaN there).
    #[func]
    fn is_hole(&self, pos: Vector2) -> bool {
        let s = self.core.spacing();
        self.core
            .is_hole_at_sample(f64::from(pos.x) / s - 0.5, f64::from(pos.y) / s - 0.5)
    }

    /// The control values of the samples in `region`, row-major (paint and hole bit; layout in the docs'
    /// materials page). With `set_control_region`, what an undo system stores.
    #[func]
    pub(crate) fn get_control_region(&self, region: Rect2i) -> PackedInt32Array {
        let Some(r) = self.region(region) else {
            return PackedInt32Array::new();
        };
        let mut out = PackedInt32Array::new();
        for z in r.z..r.z + r.d {
            for x in r.x..r.x + r.w {
                out.push(self.core.control(x as i64, z as i64) as i32);
            }
        }
        out
    }

    /// Writes control values (from `get_control_region`) into `region`, exactly. Returns false and
    /// changes nothing on bad input.
    #[func]
    pub(crate) fn set_control_region(&mut self, region: Rect2i, values: PackedInt32Array) -> bool {
        let Some(r) = self.region(region) else {
            return false;
        };
        if values.len() != r.w * r.d {
            godot_error!(
                "TerrainData.set_control_region: values must hold region.size.x * region.size.y = {} values, got {}; nothing changed",
                r.w * r.d,
                values.len()
            );
            return false;
        }
        let v = values.as_slice();
        let dirty = self.under_layers(Some(r), |d| {
            d.core_mut().update_control(r, |k, _| v[k] as u32)
        });
        self.log_edit(|| {
            let values = v.iter().map(|&c| c as u32).collect();
            Some(Edit::Control {
                rect: r.into(),
                values,
            })
        });
        self.control_edited("set_control_region", Ok(dirty))
    }

    /// Paints `layer` (0 .. 62, an index into the `TerrainMaterial`'s layers) with `weights` (0..1, one per
    /// sample of `region`, row-major). A sample holds two layers and their blend: the painted layer gets
    /// its weight and the rest goes to the strongest other layer there (unpainted ground — auto-texturing by
    /// height bands — if none); weight 0 fades the layer out. Emits `changed` and `region_changed`; returns
    /// false and changes nothing on bad input.
    #[func]
    pub(super) fn set_layer_region(
        &mut self,
        region: Rect2i,
        layer: i64,
        weights: PackedFloat32Array,
    ) -> bool {
        let Some(r) = self.region(region) else {
            return false;
        };
        let result = self.under_layers(Some(r), |d| {
            d.core_mut().set_layer_region(r, layer, weights.as_slice())
        });
        let ok = self.control_edited("set_layer_region", result);
        if ok {
            self.log_edit(|| {
                let weights = weights.to_vec();
                Some(Edit::Paint {
                    rect: r.into(),
                    layer: layer as u8,
                    weights,
                })
            });
        }
        ok
    }

    /// Painted weight of every layer (`MAX_LAYERS` values, index = layer) at world X/Z `pos`: the four
    /// samples around it blended bilinearly, as the shader blends them. What is missing to 1 is unpainted
    /// ground, which the material textures by height bands (`TerrainNode.get_layer_weights` resolves that
    /// too). All zero outside the terrain's painted area and for a non-finite `pos`.
    #[func]
    fn get_layer_weights(&self, pos: Vector2) -> PackedFloat32Array {
        let mut out = [0.0f32; MAX_LAYERS];
        self.core
            .layer_weights_at(f64::from(pos.x), f64::from(pos.y), &mut out);
        PackedFloat32Array::from(&out[..])
    }

    /// Paints the whole terrain from a splat map as large as the terrain (texel (x, z) = sample (x, z)):
    /// red, green and blue select layers `first_layer + 1 .. + 3` and black (what is left) `first_layer`,
    /// the two strongest per sample kept; transparent texels (alpha < 0.5) add holes. Maps from World
    /// Machine, Gaea or the classic 4-colour splat workflow load this way. Returns false on bad input.
    #[func]
    fn import_splat_map(&mut self, image: Option<Gd<Image>>, first_layer: i64) -> bool {
        let Some(image) = image else {
            godot_error!(
                "TerrainData.import_splat_map: image must be an Image, got null; nothing changed"
            );
            return false;
        };
        let (w, d) = (image.get_width(), image.get_height());
        if (w as usize, d as usize) != (self.core.width(), self.core.depth()) {
            godot_error!(
                "TerrainData.import_splat_map: image must be {} x {} (the terrain's size), got {w} x {d}; nothing changed",
                self.core.width(),
                self.core.depth()
            );
            return false;
        }
        let mut img = image.duplicate_resource();
        if img.is_compressed() {
            img.decompress();
        }
        img.convert(Format::RGBA8);
        let data = img.get_data();
        let result = material::import_splat(self.core_mut(), data.as_slice(), first_layer);
        self.control_edited("import_splat_map", result)
    }

    /// The splat map of layers `first_layer .. + 3` (RGBA8, the terrain's size): red, green, blue = weights
    /// of layers `first_layer + 1 .. + 3`, black what is left; alpha 0 at holes. `import_splat_map` reads it
    /// back exactly.
    #[func]
    fn export_splat_map(&self, first_layer: i64) -> Option<Gd<Image>> {
        if !(0..MAX_LAYERS as i64).contains(&first_layer) {
            godot_error!(
                "TerrainData.export_splat_map: first_layer must be in [0, {}], got {first_layer}",
                MAX_LAYERS - 1
            );
            return None;
        }
        let bytes = material::export_splat(&self.core, first_layer as usize);
        let (w, d) = (self.core.width() as i32, self.core.depth() as i32);
        Image::create_from_data(w, d, false, Format::RGBA8, &PackedByteArray::from(bytes))
    }

    /// The control values as a texture (`FORMAT_RF`, the paint and hole flag the shaders decode, see
    /// `terrain_data.gdshaderinc`) for shaders that sample the whole terrain (the wandering terrain's
    /// `control_tex`); null while nothing is painted and there are no holes. Kept and re-sent by edits.
    #[func]
    pub fn get_control_texture(&mut self) -> Option<Gd<Texture2D>> {
        if self.core.control_map().is_empty() {
            return None;
        }
        if self.control_texture.is_none() {
            let img = self.control_image();
            self.control_texture = EditableTexture::new(Channels::R, &img, true);
        }
        self.control_texture.as_ref().map(EditableTexture::texture)
    }
}

impl TerrainData {
    /// After a control edit: refresh the control texture, tell the nodes, or report the error.
    pub(super) fn control_edited(
        &mut self,
        what: &str,
        result: Result<Region, terrain_core::terrain_data::TerrainDataError>,
    ) -> bool {
        match result {
            Ok(dirty) => {
                self.update_control_texture(Some(dirty));
                self.base_mut().emit_changed();
                self.signals().region_changed().emit(to_rect2i(dirty));
                true
            }
            Err(e) => {
                godot_error!("TerrainData.{what}: {e}; nothing changed");
                false
            }
        }
    }

    fn control_image(&self) -> Gd<Image> {
        let mut bytes = PackedByteArray::new();
        bytes.resize(self.core.control_map().len() * 4);
        for (out, &c) in bytes
            .as_mut_slice()
            .chunks_exact_mut(4)
            .zip(self.core.control_map())
        {
            out.copy_from_slice(&gpu_control(c, c & HOLE != 0).to_le_bytes());
        }
        let (w, d) = (self.core.width() as i32, self.core.depth() as i32);
        Image::create_from_data(w, d, false, Format::RF, &bytes).expect("control image")
    }

    /// Re-sends the control texture after the control data changed (if it is in use).
    pub(super) fn update_control_texture(&mut self, dirty: Option<Region>) {
        if self.control_texture.is_none() {
            return;
        }
        if self.core.control_map().is_empty() {
            self.control_texture = None;
            return;
        }
        match dirty {
            // By rectangle: on the device, or into the kept image.
            Some(r) if !r.is_empty() => {
                let values: Vec<f32> = (r.z..r.z + r.d)
                    .flat_map(|z| (r.x..r.x + r.w).map(move |x| (x, z)))
                    .map(|(x, z)| {
                        let c = self.core.control(x as i64, z as i64);
                        gpu_control(c, c & HOLE != 0)
                    })
                    .collect();
                if let Some(tex) = self.control_texture.as_mut() {
                    tex.update_rect(
                        [r.x as u32, r.z as u32],
                        [r.w as u32, r.d as u32],
                        &values,
                        || unreachable!("the control texture keeps its image"),
                    );
                }
            }
            _ => {
                let img = self.control_image();
                if let Some(tex) = self.control_texture.as_mut() {
                    tex.replace(&img);
                }
            }
        }
    }
}
