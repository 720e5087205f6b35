//! `WanderingTerrain`'s surface cache (`look/surface_cache.rs`, drawn by `wandering_surface_fill.gdshader`):
//! the node's whole terrain is on the GPU, so the cache follows the camera each frame and draws edits at
//! once.

use super::*;
use crate::look::surface_cache::{SurfaceCache, WANDERING_FILL};

crate::nodes::surface_cache_api::surface_cache_api!(WanderingTerrain);

impl WanderingTerrain {
    /// Makes the cache (enabled, in the tree) and gives its fill the node's parameters.
    pub(super) fn attach_surface_cache(&mut self) {
        if self.surface_cache.is_some() {
            return;
        }
        self.surface_cache = SurfaceCache::made_for(
            &self.base().clone(),
            self.surface_cache_enabled,
            self.surface_cache_levels,
            self.surface_cache_size,
            &WANDERING_FILL,
        );
        if self.surface_cache.is_none() {
            return;
        }
        self.surface_source = None;
        self.on_data_changed();
        self.apply_look();
    }

    pub(super) fn detach_surface_cache(&mut self) {
        if let Some(mut c) = self.surface_cache.take() {
            c.detach();
        }
    }

    /// Everything is drawn again (new data, material or look).
    pub(super) fn invalidate_surface_cache(&mut self) {
        if let Some(c) = self.surface_cache.as_mut() {
            c.copy_look(self.material.as_ref());
            c.invalidate_all();
        }
    }

    /// Edited samples `r`: the cache texels over them are drawn again.
    pub(super) fn surface_cache_edited(&mut self, r: Rect2i) {
        let Some(c) = self.surface_cache.as_mut() else {
            return;
        };
        let sp = self
            .terrain_data
            .as_ref()
            .map_or(1.0, |d| d.bind().get_spacing());
        let lo = [f64::from(r.position.x) * sp, f64::from(r.position.y) * sp];
        let end = r.end();
        c.mark_edited(lo, [f64::from(end.x) * sp, f64::from(end.y) * sp]);
    }

    /// Each frame: the cache follows the camera at world position `pos` (the data is all on the GPU).
    pub(super) fn update_surface_cache(&mut self, pos: Vector3) {
        if self.surface_cache.is_none() || self.terrain_data.is_none() {
            return;
        }
        let o = self.origin();
        let centre = [f64::from(pos.x - o.x), f64::from(pos.z - o.y)];
        let sp = self
            .terrain_data
            .as_ref()
            .map_or(1.0, |d| d.bind().get_spacing());
        let placed = (Vector3::new(o.x, 0.0, o.y), Vector3::ONE);
        if let Some(c) = self.surface_cache.as_mut() {
            c.update(centre, sp, placed);
        }
    }
}
