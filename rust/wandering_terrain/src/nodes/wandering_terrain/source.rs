//! `WanderingTerrain` following its TerrainData: edits (`region_changed`) and new sizes or spacing
//! (`changed`).

use super::*;

#[godot_api(secondary)]
impl WanderingTerrain {
    /// Collects edited samples for the next physics frame's collision update.
    pub(super) fn on_region_changed(&mut self, region: Rect2i) {
        self.nav_view.edits += 1;
        self.collision.mark(crate::sample_rect::from_rect2i(region));
        self.surface_cache_edited(region);
    }

    /// Refreshes the shader's data uniforms and the culling box after the terrain data changed.
    pub(super) fn on_data_changed(&mut self) {
        if self.material.is_none() && self.debug_material.is_none() && self.surface_cache.is_none()
        {
            return;
        }
        let (tex, control, size, spacing, range) = match self.terrain_data.as_mut() {
            Some(d) => {
                let mut d = d.bind_mut();
                (
                    Some(d.get_data_texture()),
                    d.get_control_texture(),
                    d.get_size(),
                    d.get_spacing(),
                    d.get_height_range(),
                )
            }
            None => (None, None, Vector2i::ZERO, 1.0, Vector2::ZERO),
        };
        for mat in self.shader_materials() {
            mat.set_shader_parameter("data_tex", &tex.to_variant());
            mat.set_shader_parameter("has_control", &control.is_some().to_variant());
            mat.set_shader_parameter("control_tex", &control.to_variant());
            mat.set_shader_parameter(
                "terrain_size",
                &Vector2::new(size.x as f32, size.y as f32).to_variant(),
            );
            mat.set_shader_parameter("spacing", &(spacing as f32).to_variant());
        }
        if let Some(m) = self.debug_material.as_mut() {
            m.set_shader_parameter("debug_height_range", &range.to_variant());
        }
        let radius = self.mesh.as_ref().map(|m| m.bind().reach()).unwrap_or(0.0) as f32;
        let (lo, hi) = (range.x - 1.0, range.y + 1.0);
        self.instance_aabb = Aabb::new(
            Vector3::new(-radius, lo, -radius),
            Vector3::new(2.0 * radius, hi - lo, 2.0 * radius),
        );
        if let Some(rid) = self.instance {
            RenderingServer::singleton().instance_set_custom_aabb(rid, self.instance_aabb);
        }
        self.last = None;
        // Edits emit `changed` too; their regions reach the cache through `on_region_changed`.
        let key = (
            size,
            spacing,
            tex.map(|t| t.get_rid()),
            control.map(|t| t.get_rid()),
        );
        if self.surface_source != Some(key) {
            self.surface_source = Some(key);
            self.invalidate_surface_cache();
        }
    }
}
