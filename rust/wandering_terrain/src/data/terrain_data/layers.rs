//! `TerrainData`'s side of the layers over its sculpted heights (`terrain_core::layers`; paths and stamps
//! make them): the kept sculpted tiles, saved with the resource (`layer_base`); edits under a layer kept
//! as sculpted changes; composed tiles written in.

use super::TerrainData;
use crate::data::layer_state::LayerState;
use crate::sample_rect::to_rect2i;
use godot::prelude::*;
use terrain_core::layers::Ground;
use terrain_core::sample_rect::SampleRect;
use terrain_core::terrain_data::Region;

#[godot_api(secondary)]
impl TerrainData {
    /// Bytes kept for the terrain layers' sculpted ground (8 a sample of the tiles they cover).
    #[func]
    fn get_layer_base_bytes(&self) -> i64 {
        self.layers.stack.kept_bytes() as i64
    }
}

impl TerrainData {
    /// Runs `edit` on samples `r`; where layers cover them, what it changed goes into their sculpted ground
    /// and the layers apply again on top.
    pub(super) fn under_layers<R>(
        &mut self,
        r: Option<Region>,
        edit: impl FnOnce(&mut Self) -> R,
    ) -> R {
        if self.layers.stack.is_empty() {
            return edit(self);
        }
        let before = r.and_then(|r| self.layers.stack.before(r.into(), &Reader(self)));
        // What the layers write again on top is recorded after the edit's own operation.
        self.layer_writes.enter();
        let out = edit(self);
        if let Some(b) = before {
            self.with_layers(|layers, ground| {
                layers.stack.sculpted(b, ground);
            });
        }
        self.layer_writes.leave();
        out
    }

    /// The whole heightfield was replaced: the layers' sculpted ground is read from it again and the layers
    /// apply on top (composed now).
    pub(super) fn layers_replaced(&mut self) {
        if self.layers.stack.is_empty() {
            return;
        }
        self.with_layers(|layers, ground| {
            layers.stack.replaced(ground);
            layers.finish(ground);
        });
    }

    /// Runs `f` on the layer stack with this data as its ground; what it wrote is announced once after.
    pub(crate) fn with_layers<R>(
        &mut self,
        f: impl FnOnce(&mut LayerState, &mut dyn Ground) -> R,
    ) -> R {
        let mut stack = std::mem::take(&mut self.layers);
        let mut w = Writer {
            data: self,
            written: Vec::new(),
        };
        let out = f(&mut stack, &mut w);
        let written = std::mem::take(&mut w.written);
        self.layers = stack;
        self.layer_writes.wrote(self.edit_log.is_some(), &written);
        if !self.layer_writes.in_edit() {
            self.flush_layer_writes();
        }
        if !written.is_empty() {
            self.base_mut().emit_changed();
            for r in written {
                self.signals().region_changed().emit(to_rect2i(r));
            }
        }
        out
    }

    /// The `layer_base` property: the kept tiles as saved.
    pub(super) fn layer_base(&self) -> PackedByteArray {
        PackedByteArray::from(self.layers.stack.to_bytes().as_slice())
    }

    pub(super) fn load_layer_base(&mut self, value: PackedByteArray) {
        if let Err(e) = self.layers.stack.load_bytes(value.as_slice()) {
            godot_error!("TerrainData.layer_base: {e}; keeping the previous layer base");
        }
    }

    pub(crate) fn layer_bounds(&self) -> SampleRect {
        self.core.all().into()
    }
}

fn read(d: &TerrainData, r: SampleRect) -> (Vec<f32>, Vec<u32>) {
    let reg = Region {
        x: r.x as usize,
        z: r.z as usize,
        w: r.w,
        d: r.d,
    };
    let h = d.core.heights_region(reg);
    let mut c = Vec::with_capacity(r.w * r.d);
    for z in r.z..r.z + r.d as i64 {
        for x in r.x..r.x + r.w as i64 {
            c.push(d.core.control(x, z));
        }
    }
    (h, c)
}

/// The data as a ground to read (before an edit).
struct Reader<'a>(&'a TerrainData);

impl Ground for Reader<'_> {
    fn bounds(&self) -> Option<SampleRect> {
        Some(self.0.layer_bounds())
    }
    fn read(&self, r: SampleRect) -> (Vec<f32>, Vec<u32>) {
        read(self.0, r)
    }
    fn write(&mut self, _: SampleRect, _: &[f32], _: &[u32]) {
        unreachable!("a reader does not write")
    }
}

/// The data as a ground the layers write into: heights, control values and the textures, the changed
/// rectangles collected to be announced once.
struct Writer<'a> {
    data: &'a mut TerrainData,
    written: Vec<Region>,
}

impl Ground for Writer<'_> {
    fn bounds(&self) -> Option<SampleRect> {
        Some(self.data.layer_bounds())
    }

    fn read(&self, r: SampleRect) -> (Vec<f32>, Vec<u32>) {
        read(self.data, r)
    }

    fn write(&mut self, r: SampleRect, heights: &[f32], control: &[u32]) {
        let reg = Region {
            x: r.x as usize,
            z: r.z as usize,
            w: r.w,
            d: r.d,
        };
        let (old_h, old_c) = read(self.data, r);
        let d = &mut *self.data;
        if old_h != heights {
            match d.core_mut().set_heights_region(reg, heights) {
                Ok(dirty) => {
                    d.update_texture_region(dirty);
                    self.written.push(dirty);
                }
                Err(e) => godot_error!("TerrainData: a terrain layer's heights: {e}"),
            }
        }
        if old_c != control {
            let dirty = d.core_mut().update_control(reg, |k, _| control[k]);
            d.update_control_texture(Some(dirty));
            self.written.push(dirty);
        }
    }
}
