//! `TerrainRegions`' edits as data: what its edit calls record into `edit_log`, and `apply_edit`, which
//! replays an operation through the same calls (`data/terrain_edit_log.rs`).

use super::TerrainRegions;
use crate::data::terrain_edit_log::{self as edit_log, dab_parts, Logged, TerrainEditLog};
use crate::sample_rect::{from_rect2i, to_rect2i};
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

    /// A dab succeeded (`changed`: the samples whose surface changed): recorded as its operation, or, for
    /// a dab with no compact form (an image brush), as the samples it changed.
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
        let edit = match (logged, changed) {
            (Some(e), _) => Some(e.clone()),
            (None, Some(rect)) if b.tool.edits_control() => TerrainEdit::control(&s, rect)
                .ok()
                .map(|values| Edit::Control { rect, values }),
            (None, Some(rect)) => TerrainEdit::heights(&s, rect)
                .ok()
                .map(|values| Edit::Heights { rect, values }),
            (None, None) => None,
        };
        self.log_edit(|| edit);
    }
}

impl Logged for TerrainRegions {
    const CLASS: &'static str = "TerrainRegions";

    fn edit_log(&self) -> Option<Gd<TerrainEditLog>> {
        self.edit_log.clone()
    }

    fn apply(&mut self, edit: &Edit) {
        match edit {
            Edit::Dab { .. } => {
                let Some((b, center, delta)) = dab_parts(edit) else {
                    return;
                };
                let reach = self.store().and_then(|s| {
                    let bounds = TerrainEdit::bounds(&&*s);
                    terrain_core::terrain_edit::dab_reach(
                        bounds,
                        s.meta().spacing,
                        center,
                        b.size(),
                    )
                });
                self.brush_dab("apply_edit", b, center, delta, reach);
            }
            Edit::Heights { rect, values } => {
                self.set_heights_region(to_rect2i(*rect), values.as_slice().into());
            }
            Edit::Control { rect, values } => {
                let v: Vec<i32> = values.iter().map(|&c| c as i32).collect();
                self.set_control_region(to_rect2i(*rect), v.as_slice().into());
            }
            Edit::Holes { rect, holes } => {
                self.set_holes_region(to_rect2i(*rect), holes.as_slice().into());
            }
            Edit::Paint {
                rect,
                layer,
                weights,
            } => {
                self.set_layer_region(
                    to_rect2i(*rect),
                    i64::from(*layer),
                    weights.as_slice().into(),
                );
            }
        }
    }
}
