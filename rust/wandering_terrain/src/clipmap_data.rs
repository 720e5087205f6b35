//! The GPU side of the clipmap data windows (`terrain_core::clipmap_data`): all layers in one
//! `Texture2DArray` (works in both renderers); a layer is re-sent only when its texels changed, which costs a
//! few hundred microseconds instead of re-sending a whole-terrain texture.

use godot::classes::image::Format;
use godot::classes::{Image, Texture2DArray};
use godot::prelude::*;
use terrain_core::clipmap::ClipmapConfig;
use terrain_core::clipmap_data::{ClipmapData, Frame, Texel};
use terrain_core::terrain_data::{Region, TerrainData};

/// The data windows of one TerrainNode and their texture.
pub struct ClipmapTexture {
    data: ClipmapData,
    texture: Option<Gd<Texture2DArray>>,
    /// Kept upload buffer: one layer of RGBAF texels.
    bytes: PackedByteArray,
    /// Bytes sent to the GPU since the last `take_uploaded`.
    uploaded: u64,
}

/// Bytes per texel (RGBA, 32-bit float).
const TEXEL_BYTES: usize = std::mem::size_of::<Texel>();

/// RGBAF bytes of a layer (little-endian f32 quadruples: one copy on little-endian machines).
fn write_layer(layer: &[Texel], out: &mut [u8]) {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: a Texel is [f32; 4] (16 bytes, no padding); reading a slice of them as bytes is valid.
        let bytes = unsafe {
            std::slice::from_raw_parts(layer.as_ptr().cast::<u8>(), std::mem::size_of_val(layer))
        };
        out.copy_from_slice(bytes);
    }
    #[cfg(not(target_endian = "little"))]
    for (o, t) in out.chunks_exact_mut(TEXEL_BYTES).zip(layer) {
        for (b, v) in o.chunks_exact_mut(4).zip(t) {
            b.copy_from_slice(&v.to_le_bytes());
        }
    }
}

impl ClipmapTexture {
    pub fn new(cfg: &ClipmapConfig) -> Self {
        Self {
            data: ClipmapData::new(cfg),
            texture: None,
            bytes: PackedByteArray::new(),
            uploaded: 0,
        }
    }

    pub fn texture(&self) -> Option<Gd<Texture2DArray>> {
        self.texture.clone()
    }
    pub fn window(&self) -> usize {
        self.data.window()
    }
    pub fn fine_layer(&self) -> usize {
        self.data.fine_layer()
    }
    /// Sample index of the fine window's corner (for the shader's coverage test).
    pub fn fine_origin(&self) -> Vector2 {
        let o = self.data.origin(self.data.fine_layer()).unwrap_or([0, 0]);
        Vector2::new(o[0] as f32, o[1] as f32)
    }
    /// Bytes uploaded since the last call.
    pub fn take_uploaded(&mut self) -> u64 {
        std::mem::take(&mut self.uploaded)
    }

    /// Everything is recomputed on the next update (new terrain, spacing or frame).
    pub fn invalidate(&mut self) {
        self.data.invalidate();
    }

    /// Moves the windows to `target`, recomputes what `dirty` touched and re-sends the changed layers.
    /// Returns true when the texture object was created (the material must be given it).
    pub fn update(
        &mut self,
        terrain: &TerrainData,
        frame: &Frame,
        target: [f64; 2],
        dirty: Option<Region>,
    ) -> bool {
        // Edits first: texels that `follow` computes afresh are already current.
        let mut changed = match dirty {
            Some(r) => self.data.refresh(terrain, frame, r),
            None => 0,
        };
        changed |= self.data.follow(terrain, frame, target);
        if self.texture.is_none() {
            self.create_texture();
            return true;
        }
        for layer in 0..self.data.layer_count() {
            if changed & (1 << layer) != 0 {
                self.upload(layer);
            }
        }
        false
    }

    fn layer_image(&mut self, layer: usize) -> Gd<Image> {
        let w = self.data.window();
        self.bytes.resize(w * w * TEXEL_BYTES);
        write_layer(self.data.layer(layer), self.bytes.as_mut_slice());
        self.uploaded += self.bytes.len() as u64;
        Image::create_from_data(w as i32, w as i32, false, Format::RGBAF, &self.bytes)
            .expect("layer image")
    }

    fn upload(&mut self, layer: usize) {
        let img = self.layer_image(layer);
        if let Some(tex) = self.texture.as_mut() {
            tex.update_layer(&img, layer as i32);
        }
    }

    fn create_texture(&mut self) {
        let mut images = Array::new();
        for layer in 0..self.data.layer_count() {
            images.push(&self.layer_image(layer));
        }
        let mut tex = Texture2DArray::new_gd();
        let err = tex.create_from_images(&images);
        if err != godot::global::Error::OK {
            godot_error!("TerrainNode: cannot create the clipmap data texture ({err:?})");
        }
        self.texture = Some(tex);
    }
}
