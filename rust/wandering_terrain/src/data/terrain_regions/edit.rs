//! Editing a `TerrainRegions` from GDScript (the rules in `terrain_core::terrain_regions::edit`): the
//! same calls as `TerrainData`'s, saving only what changed, and damaged regions reported as signals.

use super::TerrainRegions;
use crate::data::terrain_brush::TerrainBrush;
use crate::sample_rect::to_rect2i;
use godot::prelude::*;
use terrain_core::sample_rect::SampleRect;
use terrain_core::terrain_edit_log::Edit;

#[godot_api(secondary)]
impl TerrainRegions {
    /// Sets the heights of the samples in `region` (row-major, finite, within ±1e9). The coarser levels
    /// over it follow at once; the change stays in memory until `save()`. False (nothing changed) on bad
    /// input or a region that cannot be read.
    #[func]
    pub(crate) fn set_heights_region(
        &mut self,
        region: Rect2i,
        values: PackedFloat32Array,
    ) -> bool {
        let edit = |rect| Edit::Heights {
            rect,
            values: values.to_vec(),
        };
        self.edited("set_heights_region", region, edit, |s, (x, z, w, d)| {
            s.set_heights_region(x, z, w, d, values.as_slice())
        })
    }

    /// Control values (paint and hole bit) of the samples in `region`, as `TerrainData.set_control_region`.
    #[func]
    pub(crate) fn set_control_region(&mut self, region: Rect2i, values: PackedInt32Array) -> bool {
        let v: Vec<u32> = values.as_slice().iter().map(|&c| c as u32).collect();
        let edit = |rect| Edit::Control {
            rect,
            values: v.clone(),
        };
        self.edited("set_control_region", region, edit, |s, (x, z, w, d)| {
            s.set_control_region(x, z, w, d, &v)
        })
    }

    /// Holes (1) or ground (0) for the samples in `region`, as `TerrainData.set_holes_region`.
    #[func]
    pub(super) fn set_holes_region(&mut self, region: Rect2i, holes: PackedByteArray) -> bool {
        let edit = |rect| Edit::Holes {
            rect,
            holes: holes.to_vec(),
        };
        self.edited("set_holes_region", region, edit, |s, (x, z, w, d)| {
            s.set_holes_region(x, z, w, d, holes.as_slice())
        })
    }

    /// Paints `layer`'s weights in `region`, as `TerrainData.set_layer_region`.
    #[func]
    pub(super) fn set_layer_region(
        &mut self,
        region: Rect2i,
        layer: i64,
        weights: PackedFloat32Array,
    ) -> bool {
        let edit = |rect| Edit::Paint {
            rect,
            layer: layer as u8,
            weights: weights.to_vec(),
        };
        self.edited("set_layer_region", region, edit, |s, (x, z, w, d)| {
            s.set_layer_region(x, z, w, d, layer, weights.as_slice())
        })
    }

    /// One dab of `brush` at terrain X/Z `center` lasting `delta` seconds, as `TerrainData.apply_brush`
    /// (the same heights and paint). Returns the rectangle of samples changed (empty when nothing did).
    #[func]
    pub(crate) fn apply_brush(
        &mut self,
        brush: Option<Gd<TerrainBrush>>,
        center: Vector2,
        delta: f64,
    ) -> Rect2i {
        let Some(b) = brush else {
            godot_error!("TerrainRegions.apply_brush: brush must be a TerrainBrush, got null");
            return Rect2i::default();
        };
        let b = b.bind().core();
        self.dab_at(
            "apply_brush",
            &b,
            [f64::from(center.x), f64::from(center.y)],
            delta,
        )
    }

    /// One dab of `b` at terrain X/Z `center`, its reach computed here (`apply_brush`, a replayed
    /// operation); `call` names the caller in errors.
    pub(crate) fn dab_at(
        &mut self,
        call: &str,
        b: &terrain_core::brush::Brush,
        center: [f64; 2],
        delta: f64,
    ) -> Rect2i {
        let reach = self.store().and_then(|s| {
            let bounds = terrain_core::terrain_edit::TerrainEdit::bounds(&&*s);
            terrain_core::terrain_edit::dab_reach(bounds, s.meta().spacing, center, b.size())
        });
        self.brush_dab(call, b, center, delta, reach)
    }

    /// One dab of `b` at terrain X/Z `center` (f64, the map's own coordinates: an endless map's are
    /// signed), `reach` the samples it can change (`terrain_edit::dab_reach`, computed once a dab by the
    /// caller). The core's written-once dab (`TerrainEdit::apply_brush`); `call` names the caller in errors.
    pub(crate) fn brush_dab(
        &mut self,
        call: &str,
        b: &terrain_core::brush::Brush,
        center: [f64; 2],
        delta: f64,
        reach: Option<terrain_core::sample_rect::SampleRect>,
    ) -> Rect2i {
        use terrain_core::terrain_edit::TerrainEdit;
        if b.tool.is_instancer_tool() {
            godot_error!("TerrainRegions.{call}: instance and detail brushes go to TerrainInstancer.apply_brush");
            return Rect2i::default();
        }
        let Some(s) = self.store() else {
            godot_error!("TerrainRegions.{call}: no folder is open");
            return Rect2i::default();
        };
        // With a log, the dab applied is the one its operation carries (a receiver applies the same).
        let logged = crate::data::terrain_edit_log::logged_dab(&self.edit_log, b, center, delta);
        let (b, center, delta) = logged
            .as_ref()
            .and_then(crate::data::terrain_edit_log::dab_parts)
            .unwrap_or((b, center, delta));
        let res = self.under_layers(reach, |_| {
            TerrainEdit::apply_brush(&mut &*s, b, center, delta)
        });
        self.report_failures();
        if let Ok(changed) = &res {
            self.dab_done(&s, logged.as_ref(), b, *changed);
        }
        match res {
            Ok(Some(r)) => {
                let r = to_rect2i(r);
                self.announce(r);
                r
            }
            Ok(None) => Rect2i::default(),
            Err(e) => {
                godot_error!("TerrainRegions.{call}: {e}; nothing changed");
                Rect2i::default()
            }
        }
    }

    /// Whether edits wait for `save()`.
    #[func]
    fn has_unsaved_changes(&self) -> bool {
        self.store().is_some_and(|s| s.has_unsaved()) || self.layer_base_unsaved()
    }

    /// Regions of the full resolution edited and not saved (the coarser levels are refreshed from them).
    #[func]
    fn get_unsaved_region_count(&self) -> i64 {
        self.store().map_or(0, |s| s.dirty_regions() as i64)
    }

    /// Forgets every unsaved edit (the files' data is drawn again). A running `save_async` ends first.
    #[func]
    fn discard_changes(&mut self) {
        // A running save_async writes what it took first (then those edits are saved, not discarded).
        self.wait_for_save();
        if let Some(s) = self.store() {
            if let Some([x, z, w, d]) = s.discard_changes() {
                self.announce(to_rect2i(s.meta().changed_rect(x, z, w, d)));
            }
            // The saved sculpted ground again, and the layers on it.
            let saved = terrain_core::terrain_regions::read_layer_base(s.dir()).unwrap_or_default();
            self.with_layers(|layers, ground| {
                if layers.stack.load_bytes(&saved).is_ok() {
                    layers.stack.mark_all(&*ground);
                    layers.finish(ground);
                }
            });
            self.saved_layer_base = self.layers.stack.kept_version();
        }
    }

    /// Reports regions found unreadable since the last call: an error naming the file and
    /// `region_failed`, once per region. Nodes drawing the map call it every frame.
    #[func]
    pub(crate) fn report_failures(&mut self) {
        let Some(s) = self.store() else {
            return;
        };
        for (m, x, z, message) in s.take_failures() {
            // Region indices counted from the query origin (an endless map's are signed).
            let r = (s.meta().region as i64) << m;
            let [ox, oz] = s.meta().origin.map(|o| o / r);
            let (x, z) = (x as i64 + ox, z as i64 + oz);
            godot_error!(
                "TerrainRegions: region ({x}, {z}) of level {m}: {message}; drawn as holes"
            );
            if m == 0 {
                self.signals().region_failed().emit(
                    Vector2i::new(x as i32, z as i32),
                    &GString::from(message.as_str()),
                );
            }
        }
    }
}

impl TerrainRegions {
    /// Runs an edit on the open map; on success emits `changed` and `region_changed`.
    fn edited(
        &mut self,
        what: &str,
        region: Rect2i,
        edit: impl FnOnce(SampleRect) -> Edit,
        f: impl FnOnce(
            &terrain_core::terrain_regions::TerrainRegions,
            (usize, usize, usize, usize),
        ) -> Result<(), terrain_core::terrain_regions::RegionError>,
    ) -> bool {
        let Some(s) = self.store() else {
            godot_error!("TerrainRegions.{what}: no folder is open");
            return false;
        };
        let Some([x, z, w, d]) =
            super::stored_rect(s.meta(), region).filter(|r| r[2] > 0 && r[3] > 0)
        else {
            godot_error!(
                "TerrainRegions.{what}: region {region} must be non-empty and inside the map's samples {}; nothing changed",
                super::bounds_of(s.meta())
            );
            return false;
        };
        let m = s.meta();
        let public = SampleRect {
            x: m.public(0, x),
            z: m.public(1, z),
            w,
            d,
        };
        let res = self.under_layers(Some(public), |_| f(&s, (x, z, w, d)));
        self.report_failures();
        match res {
            Ok(()) => {
                self.log_edit(|| Some(edit(public)));
                // What changed, slopes beside the edit included (as `TerrainData` reports).
                self.announce(to_rect2i(s.meta().changed_rect(x, z, w, d)));
                true
            }
            Err(e) => {
                godot_error!("TerrainRegions.{what}: {e}; nothing changed");
                false
            }
        }
    }

    fn announce(&mut self, r: Rect2i) {
        // The coarser levels over the edit are refreshed on the background lane (a save finds them done).
        if let Some(s) = self.store() {
            s.refresh_mips_in_background();
        }
        self.base_mut().emit_changed();
        self.signals().region_changed().emit(r);
    }
}
