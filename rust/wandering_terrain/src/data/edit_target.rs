//! What an edit of a terrain node writes to: its `TerrainData` or its `TerrainRegions` map, behind one set
//! of calls (a brush stroke's dabs and undo, the terrain layers of paths and stamps).

use crate::data::layer_state::LayerState;
use crate::data::terrain_brush::TerrainBrush;
use crate::data::terrain_data::TerrainData;
use crate::data::terrain_regions::TerrainRegions;
use crate::sample_rect::to_rect2i;
use godot::classes::Resource;
use godot::prelude::*;
use terrain_core::layers::Ground;
use terrain_core::sample_rect::SampleRect;

/// What an edit of a terrain node writes to: its TerrainData, or its region map.
pub(crate) enum EditTarget {
    Data(Gd<TerrainData>),
    Regions(Gd<TerrainRegions>),
}

impl EditTarget {
    /// The resource a terrain node's edits go to (`TerrainSurface::edits`); None for a generated world.
    pub fn of(edits: Option<Gd<Resource>>) -> Option<Self> {
        match edits?.try_cast::<TerrainData>() {
            Ok(d) => Some(EditTarget::Data(d)),
            Err(e) => e.try_cast::<TerrainRegions>().ok().map(EditTarget::Regions),
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

    pub fn apply_brush(&mut self, b: &Gd<TerrainBrush>, at: Vector2, seconds: f64) -> Rect2i {
        match self {
            EditTarget::Data(d) => d.bind_mut().apply_brush(Some(b.clone()), at, seconds),
            EditTarget::Regions(g) => g.bind_mut().apply_brush(Some(b.clone()), at, seconds),
        }
    }
}
