//! The texture array the clipmap data windows are drawn from, and how their written slots reach it.
//!
//! A moving window writes a strip of columns and one of rows of each level (the windows are toroidal), an
//! edit its footprint; Godot's `Texture2DArray.update_layer` re-sends a whole layer each time (1 MB for a
//! 262² layer, 0.3–0.6 ms under Vulkan here, 8 layers on a fast frame). On the rendering-device renderers
//! (Forward+, Mobile) the array is made on the `RenderingDevice` instead and wrapped in a
//! `Texture2DArrayRD`; the written rectangles of every layer are packed into one or two small staging
//! textures, sent in one update each, and copied into their layers on the GPU. The Compatibility renderer, a
//! separate render thread (the device belongs to that thread) and the headless renderer keep a
//! `Texture2DArray` of tiles whose written tiles are re-sent whole (`clipmap_tiles.rs`). The same technique as the wandering terrain's
//! whole-terrain textures (`editable_texture.rs`), for an array and many rectangles at once.

use super::clipmap_texels::{write_texels, Sent, TEXEL_BYTES};
use super::clipmap_tiles::TileLayers;
use crate::data::terrain_data::editable_texture::device;
use crate::staging_textures::StagingTextures;
use godot::classes::rendering_device::{DataFormat, TextureType, TextureUsageBits};
use godot::classes::{
    RdTextureFormat, RdTextureView, RenderingDevice, Texture2DArrayRd, TextureLayered,
};
use godot::global::Error;
use godot::prelude::*;
use terrain_core::clipmap_data::{ClipmapData, SlotRect};

/// Staging sides are multiples of this (few distinct sizes to keep), and at most this many are kept.
const STAGING_STEP: u32 = 32;
const STAGING_KEPT: usize = 6;

pub enum ClipmapLayers {
    /// Layers stored as tiles, written tiles re-sent whole (`clipmap_tiles.rs`).
    Tiles(TileLayers),
    Device(DeviceLayers),
}

pub struct DeviceLayers {
    rd: Gd<RenderingDevice>,
    rid: Rid,
    wrap: Gd<Texture2DArrayRd>,
    window: u32,
    staging: StagingTextures,
    /// Kept buffers: the staging texels, and the rectangles placed in them (layer, rect, corner there).
    bytes: PackedByteArray,
    placed: Vec<(usize, SlotRect, [u32; 2])>,
}

/// One layer's texels as bytes, in `buf` (kept by the caller).
fn layer_bytes<'a>(
    data: &ClipmapData,
    layer: usize,
    buf: &'a mut PackedByteArray,
) -> &'a PackedByteArray {
    let texels = data.layer(layer);
    buf.resize(texels.len() * TEXEL_BYTES);
    write_texels(texels, buf.as_mut_slice());
    buf
}

impl ClipmapLayers {
    /// The array of every layer of `data`, on the rendering device when this thread may use it.
    pub fn new(data: &ClipmapData) -> Option<Self> {
        if let Some(d) = device().and_then(|rd| DeviceLayers::new(rd, data)) {
            return Some(Self::Device(d));
        }
        TileLayers::new(data).map(Self::Tiles)
    }

    pub fn texture(&self) -> Gd<TextureLayered> {
        match self {
            Self::Tiles(t) => t.texture().upcast(),
            Self::Device(d) => d.wrap.clone().upcast(),
        }
    }

    /// Tiles a side each window layer is stored as (the shader's `clipmap_split`).
    pub fn split(&self) -> i32 {
        match self {
            Self::Tiles(t) => t.split() as i32,
            Self::Device(_) => 1,
        }
    }

    /// Sends what `data` wrote since its last `clear_written` (the caller clears it after).
    pub fn send(&mut self, data: &ClipmapData) -> Sent {
        match self {
            Self::Tiles(t) => t.send(data),
            Self::Device(d) => d.send(data),
        }
    }
}

impl DeviceLayers {
    fn new(mut rd: Gd<RenderingDevice>, data: &ClipmapData) -> Option<Self> {
        let window = data.window() as u32;
        let mut f = RdTextureFormat::new_gd();
        f.set_format(DataFormat::R32G32B32A32_SFLOAT);
        f.set_texture_type(TextureType::TYPE_2D_ARRAY);
        f.set_width(window);
        f.set_height(window);
        f.set_array_layers(data.layer_count() as u32);
        // Copy-from too: `get_layer_data()` reads a layer back through it.
        f.set_usage_bits(
            TextureUsageBits::SAMPLING_BIT
                | TextureUsageBits::CAN_UPDATE_BIT
                | TextureUsageBits::CAN_COPY_TO_BIT
                | TextureUsageBits::CAN_COPY_FROM_BIT,
        );
        let mut buf = PackedByteArray::new();
        let mut layers: Array<PackedByteArray> = Array::new();
        for layer in 0..data.layer_count() {
            layers.push(layer_bytes(data, layer, &mut buf));
        }
        let rid = rd
            .texture_create_ex(&f, &RdTextureView::new_gd())
            .data(&layers)
            .done();
        if !rid.is_valid() {
            return None;
        }
        let mut wrap = Texture2DArrayRd::new_gd();
        wrap.set_texture_rd_rid(rid);
        Some(Self {
            rd,
            rid,
            wrap,
            window,
            staging: StagingTextures::new(DataFormat::R32G32B32A32_SFLOAT, STAGING_KEPT),
            bytes: buf,
            placed: Vec::new(),
        })
    }

    fn send(&mut self, data: &ClipmapData) -> Sent {
        let mut sent = Sent::default();
        let mut whole = 0u64;
        for layer in 0..data.layer_count() {
            let w = data.written(layer);
            if w.whole {
                whole |= 1 << layer;
            }
            sent.layers += u64::from(!w.is_empty());
        }
        // Tall rectangles (column strips) side by side, wide ones (row strips) stacked: two staging
        // textures with little slack, whatever the mix.
        for tall in [true, false] {
            sent.bytes += self.send_rects(data, tall, &mut whole);
        }
        for layer in (0..data.layer_count()).filter(|l| whole & (1 << l) != 0) {
            let bytes = layer_bytes(data, layer, &mut self.bytes);
            sent.bytes += bytes.len() as u64;
            let err = self.rd.texture_update(self.rid, layer as u32, bytes);
            report(err);
        }
        sent
    }

    /// Packs the tall (or wide) rectangles of the layers not written whole into one staging texture,
    /// sends it and copies them into their layers; a pack bigger than the layers it serves marks them
    /// whole instead. Returns the bytes sent.
    fn send_rects(&mut self, data: &ClipmapData, tall: bool, whole: &mut u64) -> u64 {
        self.placed.clear();
        let (mut along, mut across) = (0u32, 0u32);
        let mut layers = 0u64;
        for layer in (0..data.layer_count()).filter(|l| *whole & (1 << l) == 0) {
            for r in data
                .written(layer)
                .rects
                .iter()
                .filter(|r| (r.d >= r.w) == tall)
            {
                let at = if tall { [along, 0] } else { [0, along] };
                self.placed.push((layer, *r, at));
                let (a, c) = if tall { (r.w, r.d) } else { (r.d, r.w) };
                along += a;
                across = across.max(c);
                layers |= 1 << layer;
            }
        }
        if self.placed.is_empty() {
            return 0;
        }
        let side = |v: u32| v.div_ceil(STAGING_STEP) * STAGING_STEP;
        let size = if tall {
            [side(along), side(across)]
        } else {
            [side(across), side(along)]
        };
        let area = u64::from(size[0]) * u64::from(size[1]);
        if area >= u64::from(layers.count_ones()) * u64::from(self.window).pow(2) {
            *whole |= layers;
            return 0;
        }
        let Some(staging) = self.staging.get(&mut self.rd, size, "TerrainNode") else {
            *whole |= layers;
            return 0;
        };
        self.bytes.resize(area as usize * TEXEL_BYTES);
        let out = self.bytes.as_mut_slice();
        let (w, row_out) = (self.window as usize, size[0] as usize * TEXEL_BYTES);
        for &(layer, r, at) in &self.placed {
            let texels = data.layer(layer);
            for z in 0..r.d as usize {
                let src = (r.z as usize + z) * w + r.x as usize;
                let dst = (at[1] as usize + z) * row_out + at[0] as usize * TEXEL_BYTES;
                let n = r.w as usize;
                write_texels(&texels[src..src + n], &mut out[dst..dst + n * TEXEL_BYTES]);
            }
        }
        let err = self.rd.texture_update(staging, 0, &self.bytes);
        if err != Error::OK {
            report(err);
            *whole |= layers;
            return 0;
        }
        for &(layer, r, at) in &self.placed {
            let err = self.rd.texture_copy(
                staging,
                self.rid,
                Vector3::new(at[0] as f32, at[1] as f32, 0.0),
                Vector3::new(r.x as f32, r.z as f32, 0.0),
                Vector3::new(r.w as f32, r.d as f32, 1.0),
                0,
                0,
                0,
                layer as u32,
            );
            report(err);
        }
        self.bytes.len() as u64
    }
}

fn report(err: Error) {
    if err != Error::OK {
        godot_error!("TerrainNode: updating the clipmap data texture on the rendering device failed ({err:?})");
    }
}

impl Drop for DeviceLayers {
    fn drop(&mut self) {
        // The wrapper lets go of the device texture first (materials may still hold it).
        self.wrap.set_texture_rd_rid(Rid::Invalid);
        self.staging.free_all(&mut self.rd);
        self.rd.free_rid(self.rid);
    }
}
