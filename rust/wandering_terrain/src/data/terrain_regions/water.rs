//! `TerrainRegions`' water analysis: lakes, rivers and flow of a rectangle of the map
//! (`data/water_analysis.rs`); on an endless map, an area around a point.

use super::TerrainRegions;
use crate::data::water_analysis::{self as wa, Area, MAX_SAMPLES};
use godot::classes::{Curve3D, Image};
use godot::prelude::*;

#[godot_api(secondary)]
impl TerrainRegions {
    /// The lakes of `area` (samples, query coordinates; at most 2048²), as `TerrainData.find_lakes`.
    #[func]
    fn find_lakes(
        &self,
        area: Rect2i,
        min_area: f64,
        min_depth: f64,
        #[opt(default = f64::NEG_INFINITY)] sea_level: f64,
    ) -> Array<VarDictionary> {
        match self.water_area("find_lakes", area) {
            Some(a) => wa::lakes(
                "TerrainRegions.find_lakes",
                &a,
                min_area,
                min_depth,
                sea_level,
            ),
            None => Array::new(),
        }
    }

    /// River centre lines of `area`, as `TerrainData.find_rivers`.
    #[func]
    fn find_rivers(
        &self,
        area: Rect2i,
        min_catchment: f64,
        #[opt(default = f64::NEG_INFINITY)] sea_level: f64,
    ) -> Array<Gd<Curve3D>> {
        match self.water_area("find_rivers", area) {
            Some(a) => wa::rivers("TerrainRegions.find_rivers", &a, min_catchment, sea_level),
            None => Array::new(),
        }
    }

    /// The flow of `area` as an RGBF image, as `TerrainData.get_flow_map`.
    #[func]
    fn get_flow_map(
        &self,
        area: Rect2i,
        #[opt(default = f64::NEG_INFINITY)] sea_level: f64,
    ) -> Option<Gd<Image>> {
        let a = self.water_area("get_flow_map", area)?;
        wa::flow_map("TerrainRegions.get_flow_map", &a, sea_level)
    }
}

impl TerrainRegions {
    fn water_area(&self, what: &str, area: Rect2i) -> Option<Area> {
        if self.store().is_none() {
            godot_error!("TerrainRegions.{what}: no folder is open; nothing to find water on");
            return None;
        }
        let (w, d) = (area.size.x.max(0) as usize, area.size.y.max(0) as usize);
        if w < 2 || d < 2 || w * d > MAX_SAMPLES {
            godot_error!(
                "TerrainRegions.{what}: area must hold 2 × 2 to 2048² samples, got {} × {}",
                area.size.x,
                area.size.y
            );
            return None;
        }
        let (s, [x, z, w, d]) = self.checked(area)?;
        Some(Area {
            heights: s.heights_region(x, z, w, d),
            rect: crate::sample_rect::from_rect2i(area),
            spacing: s.meta().spacing,
        })
    }
}
