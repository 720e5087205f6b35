//! Small staging textures on the rendering device, kept by size and reused: a rectangle is written into
//! one with `texture_update`, then copied into a bigger texture with `texture_copy` (Godot has no partial
//! upload of a texture). Used by the wandering terrain's whole-terrain textures (`editable_texture.rs`) and
//! a TerrainNode's clipmap data array (`clipmap_layers.rs`).

use godot::classes::rendering_device::{DataFormat, TextureUsageBits};
use godot::classes::{RdTextureFormat, RdTextureView, RenderingDevice};
use godot::prelude::*;

pub struct StagingTextures {
    format: DataFormat,
    /// Textures by size, most recently used last; at most `kept`.
    list: Vec<([u32; 2], Rid)>,
    kept: usize,
}

impl StagingTextures {
    pub fn new(format: DataFormat, kept: usize) -> Self {
        Self {
            format,
            list: Vec::new(),
            kept,
        }
    }

    /// A staging texture of `size` (made, or reused from the last few sizes); `who` names the caller in
    /// the error.
    pub fn get(&mut self, rd: &mut Gd<RenderingDevice>, size: [u32; 2], who: &str) -> Option<Rid> {
        if let Some(i) = self.list.iter().position(|(s, _)| *s == size) {
            let e = self.list.remove(i);
            self.list.push(e);
            return Some(e.1);
        }
        if self.list.len() >= self.kept {
            let (_, old) = self.list.remove(0);
            rd.free_rid(old);
        }
        let mut f = RdTextureFormat::new_gd();
        f.set_format(self.format);
        f.set_width(size[0]);
        f.set_height(size[1]);
        f.set_usage_bits(TextureUsageBits::CAN_UPDATE_BIT | TextureUsageBits::CAN_COPY_FROM_BIT);
        let rid = rd.texture_create(&f, &RdTextureView::new_gd());
        if !rid.is_valid() {
            godot_error!("{who}: cannot make a staging texture on the rendering device");
            return None;
        }
        self.list.push((size, rid));
        Some(rid)
    }

    /// Frees the texture of `size`, if kept (a big one is not worth keeping).
    pub fn forget(&mut self, rd: &mut Gd<RenderingDevice>, size: [u32; 2]) {
        if let Some(i) = self.list.iter().position(|(s, _)| *s == size) {
            let (_, r) = self.list.remove(i);
            rd.free_rid(r);
        }
    }

    pub fn free_all(&mut self, rd: &mut Gd<RenderingDevice>) {
        for (_, r) in self.list.drain(..) {
            rd.free_rid(r);
        }
    }
}
