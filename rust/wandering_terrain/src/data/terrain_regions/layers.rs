//! `TerrainRegions`' side of the layers over its sculpted heights (`terrain_core::layers`; paths and
//! stamps make them): the kept sculpted tiles, saved with the map (`layers.base` beside the regions, by
//! `save()`); edits under a layer kept as sculpted changes; composed tiles written in.

use super::TerrainRegions;
use crate::data::layer_state::LayerState;
use crate::sample_rect::to_rect2i;
use godot::prelude::*;
use terrain_core::layers::Ground;
use terrain_core::sample_rect::SampleRect;
use terrain_core::terrain_regions::{self as core, read_layer_base, write_layer_base};

impl TerrainRegions {
    /// Runs `edit` on samples `r` (query coordinates); where layers cover them, what it changed goes into
    /// their sculpted ground and the layers apply again on top.
    pub(super) fn under_layers<R>(
        &mut self,
        r: Option<SampleRect>,
        edit: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let Some(store) = self.store() else {
            return edit(self);
        };
        if self.layers.stack.is_empty() {
            return edit(self);
        }
        let before = r.and_then(|r| self.layers.stack.before(r, &Rows(&store)));
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

    /// Runs `f` on the layer stack with the open map as its ground; what it wrote is announced once after.
    /// Without an open map nothing runs (None).
    pub(crate) fn with_layers<R>(
        &mut self,
        f: impl FnOnce(&mut LayerState, &mut dyn Ground) -> R,
    ) -> Option<R> {
        let store = self.store()?;
        let mut stack = std::mem::take(&mut self.layers);
        let mut w = Writer {
            rows: Rows(&store),
            written: Vec::new(),
        };
        let out = f(&mut stack, &mut w);
        let written = w.written;
        self.layers = stack;
        self.report_failures();
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
        Some(out)
    }

    /// Reads the layers' sculpted ground saved with the map just opened.
    pub(super) fn load_layer_base(&mut self) {
        let Some(s) = self.store() else {
            self.layers = LayerState::default();
            return;
        };
        let mut layers = LayerState::default();
        let loaded = read_layer_base(s.dir())
            .map_err(|e| e.to_string())
            .and_then(|b| layers.stack.load_bytes(&b).map_err(|e| e.to_string()));
        if let Err(e) = loaded {
            godot_error!(
                "TerrainRegions: {}: {e}; the terrain layers start from the ground as it is",
                core::LAYER_BASE_FILE
            );
        }
        self.saved_layer_base = layers.stack.kept_version();
        self.layers = layers;
    }

    /// Whether the layers' sculpted ground changed since it was opened or saved.
    pub(super) fn layer_base_unsaved(&self) -> bool {
        self.layers.stack.kept_version() != self.saved_layer_base
    }

    /// Writes the layers' sculpted ground beside the regions (after them: `save()`).
    pub(super) fn save_layer_base(&mut self) -> Result<(), core::RegionError> {
        let Some(s) = self.store() else {
            return Ok(());
        };
        if !self.layer_base_unsaved() {
            return Ok(());
        }
        write_layer_base(s.dir(), &self.layers.stack.to_bytes())?;
        self.saved_layer_base = self.layers.stack.kept_version();
        Ok(())
    }
}

/// The open map's samples by query coordinates.
struct Rows<'a>(&'a core::TerrainRegions);

impl Rows<'_> {
    fn stored(&self, r: SampleRect) -> (usize, usize) {
        let m = self.0.meta();
        (m.stored(0, r.x) as usize, m.stored(1, r.z) as usize)
    }
}

impl Ground for Rows<'_> {
    fn bounds(&self) -> Option<SampleRect> {
        let m = self.0.meta();
        Some(SampleRect {
            x: m.origin[0],
            z: m.origin[1],
            w: m.width,
            d: m.depth,
        })
    }

    fn read(&self, r: SampleRect) -> (Vec<f32>, Vec<u32>) {
        let (x, z) = self.stored(r);
        (
            self.0.heights_region(x, z, r.w, r.d),
            self.0.control_region(x, z, r.w, r.d),
        )
    }

    fn write(&mut self, _: SampleRect, _: &[f32], _: &[u32]) {
        unreachable!("rows are written through a Writer")
    }
}

/// The open map as a ground the layers write into, the changed rectangles collected to be announced once.
struct Writer<'a> {
    rows: Rows<'a>,
    written: Vec<SampleRect>,
}

impl Ground for Writer<'_> {
    fn bounds(&self) -> Option<SampleRect> {
        self.rows.bounds()
    }

    fn read(&self, r: SampleRect) -> (Vec<f32>, Vec<u32>) {
        self.rows.read(r)
    }

    fn write(&mut self, r: SampleRect, heights: &[f32], control: &[u32]) {
        let (old_h, old_c) = self.rows.read(r);
        let (x, z) = self.rows.stored(r);
        let s = self.rows.0;
        let mut changed = false;
        if old_h != heights {
            match s.set_heights_region(x, z, r.w, r.d, heights) {
                Ok(()) => changed = true,
                Err(e) => godot_error!("TerrainRegions: a terrain layer's heights: {e}"),
            }
        }
        if old_c != control {
            match s.set_control_region(x, z, r.w, r.d, control) {
                Ok(()) => changed = true,
                Err(e) => godot_error!("TerrainRegions: a terrain layer's control values: {e}"),
            }
        }
        if changed {
            let c = s.meta().changed_rect(x, z, r.w, r.d);
            self.written.push(c);
        }
    }
}
