//! What an edit of a terrain node writes to: its `TerrainData` or its `TerrainRegions` map, behind one set
//! of calls (a brush stroke's dabs and undo, the terrain layers of paths and stamps).

use crate::data::layer_state::LayerState;
use crate::data::terrain_data::TerrainData;
use crate::data::terrain_regions::TerrainRegions;
use crate::sample_rect::{from_rect2i, to_rect2i};
use godot::prelude::*;
use godot::signal::ConnectHandle;
use terrain_core::brush::Brush;
use terrain_core::layers::Ground;
use terrain_core::sample_rect::SampleRect;

/// What an edit of a terrain node writes to: its TerrainData, or its region map.
#[derive(Clone)]
pub(crate) enum EditTarget {
    Data(Gd<TerrainData>),
    Regions(Gd<TerrainRegions>),
}

impl EditTarget {
    /// Connects `changed` (the whole resource changed) and `edited` (its `region_changed`: samples in a
    /// rectangle were edited) to the resource's signals; the handles are the follower's to keep.
    pub fn follow(
        &self,
        changed: impl FnMut() + 'static,
        edited: impl FnMut(Rect2i) + 'static,
    ) -> [ConnectHandle; 2] {
        match self {
            EditTarget::Data(d) => [
                d.signals().changed().connect(changed),
                d.signals().region_changed().connect(edited),
            ],
            EditTarget::Regions(r) => [
                r.signals().changed().connect(changed),
                r.signals().region_changed().connect(edited),
            ],
        }
    }

    /// Identity of the resource.
    pub fn id(&self) -> InstanceId {
        match self {
            EditTarget::Data(d) => d.instance_id(),
            EditTarget::Regions(r) => r.instance_id(),
        }
    }

    /// Runs `f` on the resource's terrain layers with its samples as their ground (None: a region map
    /// with no folder open).
    pub fn with_layers<R>(
        &mut self,
        f: impl FnOnce(&mut LayerState, &mut dyn Ground) -> R,
    ) -> Option<R> {
        match self {
            EditTarget::Data(d) => Some(d.bind_mut().with_layers(f)),
            EditTarget::Regions(r) => r.bind_mut().with_layers(f),
        }
    }

    pub fn bounds(&self) -> Rect2i {
        match self {
            EditTarget::Data(d) => d.bind().get_bounds(),
            EditTarget::Regions(r) => r.bind().get_bounds(),
        }
    }

    pub fn spacing(&self) -> f64 {
        match self {
            EditTarget::Data(d) => d.bind().get_spacing(),
            EditTarget::Regions(r) => r.bind().get_spacing(),
        }
    }

    pub fn heights(&self, r: SampleRect) -> Vec<f32> {
        let r = to_rect2i(r);
        match self {
            EditTarget::Data(d) => d.bind().get_heights_region(r).to_vec(),
            EditTarget::Regions(g) => g.bind().get_heights_region(r).to_vec(),
        }
    }

    pub fn control(&self, r: SampleRect) -> Vec<i32> {
        let r = to_rect2i(r);
        match self {
            EditTarget::Data(d) => d.bind().get_control_region(r).to_vec(),
            EditTarget::Regions(g) => g.bind().get_control_region(r).to_vec(),
        }
    }

    pub fn set_heights(&mut self, r: SampleRect, v: &[f32]) {
        let (r, v) = (to_rect2i(r), PackedFloat32Array::from(v));
        match self {
            EditTarget::Data(d) => d.bind_mut().set_heights_region(r, v),
            EditTarget::Regions(g) => g.bind_mut().set_heights_region(r, v),
        };
    }

    pub fn set_control(&mut self, r: SampleRect, v: &[i32]) {
        let (r, v) = (to_rect2i(r), PackedInt32Array::from(v));
        match self {
            EditTarget::Data(d) => d.bind_mut().set_control_region(r, v),
            EditTarget::Regions(g) => g.bind_mut().set_control_region(r, v),
        };
    }

    /// The samples one dab of `size` centred at terrain X/Z `at` (f64) can change, clipped to the
    /// resource's samples: computed once a dab (the stroke's undo chunks and the layers' sculpted ground).
    pub fn dab_reach(&self, at: [f64; 2], size: f64) -> Option<SampleRect> {
        terrain_core::terrain_edit::dab_reach(
            Some(from_rect2i(self.bounds())),
            self.spacing(),
            at,
            size,
        )
    }

    /// One dab at terrain X/Z `at` (f64 all the way), `reach` from `dab_reach`. Returns the rectangle
    /// changed (empty when nothing did).
    pub fn apply_brush(
        &mut self,
        b: &Brush,
        at: [f64; 2],
        seconds: f64,
        reach: Option<SampleRect>,
    ) -> Rect2i {
        match self {
            EditTarget::Data(d) => d.bind_mut().brush_dab("apply_brush", b, at, seconds, reach),
            EditTarget::Regions(g) => g.bind_mut().brush_dab("apply_brush", b, at, seconds, reach),
        }
    }
}
