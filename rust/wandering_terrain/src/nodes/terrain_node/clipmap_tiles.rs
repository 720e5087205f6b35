//! The clipmap data windows where a texture array can only be sent by whole layers (Compatibility, a
//! separate render thread, the headless renderer): each window layer is stored as 4 × 4 tiles, each
//! its own texture layer, so a moving window re-sends the tiles its row and column strips cross — 7 of
//! 16 — and an edit the tiles of its footprint, not whole 287 KB layers (0.4–0.65 ms a layer on the
//! software OpenGL driver, 8 layers on a fast frame). The shader finds a slot's tile in `cd_at`
//! (`clipmap_data.gdshaderinc`, `clipmap_split`).
//!
//! Three textures take turns: a frame's tiles go into the one drawn from longest ago (with the tiles it
//! missed since), then the material switches to it. Updating a texture a frame still being drawn reads
//! makes a driver wait for that frame (the software driver here: 2.2–2.5 ms whatever the bytes, with
//! workers busy on the cores) or copy the whole array first (mobile drivers' "ghosting"); drivers keep
//! up to two frames in flight, so two textures were not enough on a flight that writes every frame.

use super::clipmap_texels::{write_texels, Sent, TEXEL_BYTES};
use godot::classes::image::Format;
use godot::classes::{Image, Texture2DArray};
use godot::global::Error;
use godot::prelude::*;
use terrain_core::clipmap_data::{ClipmapData, SlotRect};

/// Textures taking turns (`TileLayers`).
const TURNS: usize = 3;

/// Tiles a side each window layer is split into: 4 (16 texture layers a window layer), or 3 where that
/// would pass the 256 array layers OpenGL ES 3 and WebGL 2 promise (more than 16 window layers).
fn split_for(layers: usize) -> usize {
    if layers * 16 <= 256 {
        4
    } else {
        3
    }
}

pub struct TileLayers {
    /// The textures, and which one the material draws from.
    tex: [Gd<Texture2DArray>; TURNS],
    front: usize,
    /// Per window layer and texture, the tiles written since that texture was last brought up to date.
    behind: Vec<[u16; TURNS]>,
    /// Tiles a side (`split_for`).
    split: usize,
    /// Texels a tile side: the window divided by `SPLIT`, rounded up (the last tiles' extra slots unused).
    tile: usize,
    /// Kept buffer: one tile's bytes.
    buf: PackedByteArray,
}

impl TileLayers {
    /// Every layer of `data`, as tiles; None when the texture cannot be made.
    pub fn new(data: &ClipmapData) -> Option<Self> {
        let split = split_for(data.layer_count());
        let tile = data.window().div_ceil(split);
        let mut me = Self {
            tex: std::array::from_fn(|_| Texture2DArray::new_gd()),
            front: 0,
            behind: vec![[0; TURNS]; data.layer_count()],
            split,
            tile,
            buf: PackedByteArray::new(),
        };
        let mut images = Array::new();
        for layer in 0..data.layer_count() {
            for t in 0..split * split {
                images.push(&me.tile_image(data, layer, t)?);
            }
        }
        for t in &mut me.tex {
            if t.create_from_images(&images) != Error::OK {
                return None;
            }
        }
        Some(me)
    }

    /// The texture to draw from now.
    pub fn texture(&self) -> Gd<Texture2DArray> {
        self.tex[self.front].clone()
    }

    /// Tiles a side (the shader's `clipmap_split`).
    pub fn split(&self) -> usize {
        self.split
    }

    /// Sends the tiles that `data`'s written rectangles (or whole layers) cross into the texture drawn
    /// from longest ago, with those it missed since, and makes it the front one (`Sent::swapped`).
    pub fn send(&mut self, data: &ClipmapData) -> Sent {
        let mut sent = Sent::default();
        if (0..data.layer_count()).all(|l| data.written(l).is_empty()) {
            return sent;
        }
        let (n, back) = (self.split * self.split, (self.front + 1) % TURNS);
        for layer in 0..data.layer_count() {
            let w = data.written(layer);
            let now = if w.whole {
                u16::MAX
            } else {
                w.rects.iter().fold(0, |m, r| m | self.crossed(*r))
            };
            let tiles = now | self.behind[layer][back];
            let mut missed = 0u16;
            for t in (0..n).filter(|t| tiles & (1 << t) != 0) {
                if let Some(img) = self.tile_image(data, layer, t) {
                    self.tex[back].update_layer(&img, (layer * n + t) as i32);
                    sent.bytes += self.buf.len() as u64;
                } else {
                    missed |= 1 << t;
                }
            }
            // The others lack this frame's tiles (and this one what could not be sent).
            for (k, b) in self.behind[layer].iter_mut().enumerate() {
                *b = if k == back { missed } else { *b | now };
            }
            sent.layers += u64::from(now != 0);
        }
        self.front = back;
        sent.swapped = true;
        sent
    }

    /// The tiles (bit ty · split + tx) a rectangle of slots crosses.
    fn crossed(&self, r: SlotRect) -> u16 {
        let span =
            |a: u32, n: u32| (a as usize / self.tile)..=((a + n.max(1) - 1) as usize / self.tile);
        let (mut m, last) = (0u16, self.split - 1);
        for ty in span(r.z, r.d) {
            for tx in span(r.x, r.w) {
                m |= 1 << (ty.min(last) * self.split + tx.min(last));
            }
        }
        m
    }

    /// Tile `t` of `layer` as an image (slots past the window's edge zero).
    fn tile_image(&mut self, data: &ClipmapData, layer: usize, t: usize) -> Option<Gd<Image>> {
        let (w, s) = (data.window(), self.tile);
        let (x0, z0) = ((t % self.split) * s, (t / self.split) * s);
        let texels = data.layer(layer);
        self.buf.resize(s * s * TEXEL_BYTES);
        let out = self.buf.as_mut_slice();
        out.fill(0);
        let n = w.saturating_sub(x0).min(s);
        for z in 0..s.min(w.saturating_sub(z0)) {
            let src = (z0 + z) * w + x0;
            let dst = z * s * TEXEL_BYTES;
            write_texels(&texels[src..src + n], &mut out[dst..dst + n * TEXEL_BYTES]);
        }
        Image::create_from_data(s as i32, s as i32, false, Format::RGBAF, &self.buf)
    }
}
