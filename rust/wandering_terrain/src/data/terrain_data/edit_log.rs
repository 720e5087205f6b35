//! `TerrainData`'s edits as data: what its edit calls record into `edit_log`, and `apply_edit`, which
//! replays an operation through the same calls (`data/terrain_edit_log.rs`).

use super::TerrainData;
use crate::data::terrain_edit_log::{self as edit_log, Logged, TerrainEditLog};
use crate::sample_rect::from_rect2i;
use godot::global::Error;
use godot::prelude::*;
use terrain_core::brush::Brush;
use terrain_core::terrain_data::Region;
use terrain_core::terrain_edit::TerrainEdit;
use terrain_core::terrain_edit_log::{content_hash, Edit};

#[godot_api(secondary)]
impl TerrainData {
    /// Applies an operation recorded by another machine's `edit_log` (its `operation_recorded` bytes), in
    /// sequence order: OK when applied or held until the operations before it arrive (then applied with
    /// them); ERR_ALREADY_EXISTS for one already applied (ignored); ERR_INVALID_DATA for malformed or
    /// truncated bytes, ERR_INVALID_PARAMETER for another map's operation, ERR_UNCONFIGURED without an
    /// `edit_log` — nothing applied and the log unchanged. Same build, same base map, same operations:
    /// the same heights and control bit for bit, whatever the thread count.
    #[func]
    fn apply_edit(&mut self, operation: PackedByteArray) -> Error {
        edit_log::apply_edit(self, &operation)
    }

    /// A 64-bit hash of the heights (their bits) and control values in `region` (the whole terrain when
    /// `region` is empty): equal on two machines exactly when they hold the same terrain there. -1 (with an
    /// error) for a region outside the samples.
    #[func]
    fn get_content_hash(&self, region: Rect2i) -> i64 {
        let r = if region.size.x == 0 && region.size.y == 0 {
            self.core.all().into()
        } else {
            from_rect2i(region)
        };
        let read = TerrainEdit::heights(&*self.core, r)
            .and_then(|h| Ok((h, TerrainEdit::control(&*self.core, r)?)));
        match read {
            Ok((h, c)) => content_hash(&h, &c) as i64,
            Err(e) => {
                godot_error!("TerrainData.get_content_hash: {e}");
                -1
            }
        }
    }
}

impl TerrainData {
    /// An edit succeeded: `edit_log` records it, then what the layers wrote again on top of it.
    pub(super) fn log_edit(&mut self, edit: impl FnOnce() -> Option<Edit>) {
        if let Some(mut log) = self.edit_log.clone() {
            log.bind_mut().edited(edit);
        }
        self.flush_layer_writes();
    }

    /// Records what the terrain layers wrote (`LayerWrites`).
    pub(super) fn flush_layer_writes(&mut self) {
        self.layer_writes.flush(&self.edit_log, &*self.core);
    }

    /// The dab to apply: as its operation carries it when edits are recorded.
    pub(super) fn logged_dab(&self, b: &Brush, center: [f64; 2], delta: f64) -> Option<Edit> {
        edit_log::logged_dab(&self.edit_log, b, center, delta)
    }

    /// A dab succeeded (`changed`: the samples whose surface changed): recorded (`dab_edit`).
    pub(super) fn dab_done(&mut self, logged: Option<&Edit>, b: &Brush, changed: Option<Region>) {
        if self.edit_log.is_none() {
            return;
        }
        let edit = edit_log::dab_edit(logged, b, changed.map(Into::into), &*self.core);
        self.log_edit(|| edit);
    }
}

impl Logged for TerrainData {
    const CLASS: &'static str = "TerrainData";

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
