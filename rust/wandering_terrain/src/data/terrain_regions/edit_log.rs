//! `TerrainRegions`' edits as data: what its edit calls record into `edit_log`, and `apply_edit`, which
//! replays an operation through the same calls (`data/terrain_edit_log.rs`).

use super::TerrainRegions;
use crate::data::terrain_edit_log::{self as edit_log, Logged, TerrainEditLog};
use crate::sample_rect::from_rect2i;
use godot::global::Error;
use godot::prelude::*;
use terrain_core::brush::Brush;
use terrain_core::sample_rect::SampleRect;
use terrain_core::terrain_edit::TerrainEdit;
use terrain_core::terrain_edit_log::{content_hash, Edit};
use terrain_core::terrain_regions as core;

#[godot_api(secondary)]
impl TerrainRegions {
    /// Applies an operation recorded by another machine's `edit_log`, as `TerrainData.apply_edit` (the
    /// same ordering rule and return values).
    #[func]
    fn apply_edit(&mut self, operation: PackedByteArray) -> Error {
        edit_log::apply_edit(self, &operation)
    }

    /// A 64-bit hash of the heights (their bits) and control values in `region` (non-empty, inside the
    /// map; regions there are read): equal on two machines exactly when they hold the same terrain there.
    /// -1 (with an error) for a bad region or no open folder.
    #[func]
    fn get_content_hash(&self, region: Rect2i) -> i64 {
        let Some(s) = self.store() else {
            godot_error!("TerrainRegions.get_content_hash: no folder is open");
            return -1;
        };
        let r = from_rect2i(region);
        let read =
            TerrainEdit::heights(&&*s, r).and_then(|h| Ok((h, TerrainEdit::control(&&*s, r)?)));
        match read {
            Ok((h, c)) => content_hash(&h, &c) as i64,
            Err(e) => {
                godot_error!("TerrainRegions.get_content_hash: {e}");
                -1
            }
        }
    }
}

impl TerrainRegions {
    /// An edit succeeded: `edit_log` records it, then what the layers wrote again on top of it.
    pub(super) fn log_edit(&mut self, edit: impl FnOnce() -> Option<Edit>) {
        if let Some(mut log) = self.edit_log.clone() {
            log.bind_mut().edited(edit);
        }
        self.flush_layer_writes();
    }

    /// Records what the terrain layers wrote (`LayerWrites`).
    pub(super) fn flush_layer_writes(&mut self) {
        if let Some(s) = self.store() {
            self.layer_writes.flush(&self.edit_log, &&*s);
        }
    }

    /// A dab succeeded (`changed`: the samples whose surface changed): recorded (`dab_edit`).
    pub(super) fn dab_done(
        &mut self,
        s: &core::TerrainRegions,
        logged: Option<&Edit>,
        b: &Brush,
        changed: Option<SampleRect>,
    ) {
        if self.edit_log.is_none() {
            return;
        }
        let edit = edit_log::dab_edit(logged, b, changed, &s);
        self.log_edit(|| edit);
    }
}

impl Logged for TerrainRegions {
    const CLASS: &'static str = "TerrainRegions";

    fn edit_log(&self) -> Option<Gd<TerrainEditLog>> {
        self.edit_log.clone()
    }
    fn dab(&mut self, b: &Brush, center: [f64; 2], delta: f64) {
        self.dab_at("apply_edit", b, center, delta);
    }
    fn heights(&mut self, r: Rect2i, v: PackedFloat32Array) {
        self.set_heights_region(r, v);
    }
    fn control(&mut self, r: Rect2i, v: PackedInt32Array) {
        self.set_control_region(r, v);
    }
    fn holes(&mut self, r: Rect2i, v: PackedByteArray) {
        self.set_holes_region(r, v);
    }
    fn paint(&mut self, r: Rect2i, layer: i64, w: PackedFloat32Array) {
        self.set_layer_region(r, layer, w);
    }
}
