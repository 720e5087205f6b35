//! `TerrainData`'s water analysis: lakes, rivers and flow of its heights (`data/water_analysis.rs`).

use super::TerrainData;
use crate::data::water_analysis::{self as wa, Area, MAX_SAMPLES};
use godot::classes::{Curve3D, Image};
use godot::prelude::*;

#[godot_api(secondary)]
impl TerrainData {
    /// The lakes of `area` (samples; an empty Rect2i: the whole terrain): water standing in its
    /// depressions at their spill levels (Priority-Flood depression filling; the area's edge drains away),
    /// above `sea_level` (lower basins joined to the edge are sea), at least `min_area` (terrain units²)
    /// and `min_depth` deep. One Dictionary a lake, largest first: `level`, `area`, `depth`, `bounds`
    /// (Rect2, terrain X/Z), `point` (Vector2: its deepest place), `samples`. At most 2048² samples a call.
    #[func]
    fn find_lakes(
        &self,
        area: Rect2i,
        min_area: f64,
        min_depth: f64,
        #[opt(default = f64::NEG_INFINITY)] sea_level: f64,
    ) -> Array<VarDictionary> {
        match self.water_area("find_lakes", area) {
            Some(a) => wa::lakes("TerrainData.find_lakes", &a, min_area, min_depth, sea_level),
            None => Array::new(),
        }
    }

    /// River centre lines of `area` (as `find_lakes`): where at least `min_catchment` terrain units² drain
    /// through, following the steepest way down (across lakes and flats, the way out the flood found),
    /// from each river's source to the area's edge, the sea, or the river it joins. One Curve3D a river
    /// (terrain space, points on the ground, upstream first), longest first: hand one to a TerrainPath
    /// (MODE_CARVE) for its bed.
    #[func]
    fn find_rivers(
        &self,
        area: Rect2i,
        min_catchment: f64,
        #[opt(default = f64::NEG_INFINITY)] sea_level: f64,
    ) -> Array<Gd<Curve3D>> {
        match self.water_area("find_rivers", area) {
            Some(a) => wa::rivers("TerrainData.find_rivers", &a, min_catchment, sea_level),
            None => Array::new(),
        }
    }

    /// The flow of `area` as an RGBF image, a pixel a sample: red/green the direction water leaves it in
    /// (X, Z; 0 where it leaves the area or meets the sea), blue the catchment in terrain units² (what
    /// drains through it). For shaders and scatter rules. Null on bad input.
    #[func]
    fn get_flow_map(
        &self,
        area: Rect2i,
        #[opt(default = f64::NEG_INFINITY)] sea_level: f64,
    ) -> Option<Gd<Image>> {
        let a = self.water_area("get_flow_map", area)?;
        wa::flow_map("TerrainData.get_flow_map", &a, sea_level)
    }
}

impl TerrainData {
    fn water_area(&self, what: &str, area: Rect2i) -> Option<Area> {
        let r = if area.size == Vector2i::ZERO {
            self.core.all()
        } else {
            self.region(area)?
        };
        if r.w * r.d > MAX_SAMPLES || r.w < 2 || r.d < 2 {
            godot_error!(
                "TerrainData.{what}: area must hold 2 × 2 to 2048² samples, got {} × {}; pass a smaller area",
                r.w,
                r.d
            );
            return None;
        }
        Some(Area {
            heights: self.core.heights_region(r),
            rect: r.into(),
            spacing: self.core.spacing(),
        })
    }
}
