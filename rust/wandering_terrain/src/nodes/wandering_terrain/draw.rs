//! `WanderingTerrain`'s drawing: the mesh instance in the RenderingServer, placed in front of the camera
//! each frame (placement maths in `terrain_core::wandering_terrain`).

use super::*;

#[godot_api(secondary)]
impl WanderingTerrain {
    /// Places the mesh for a camera at `camera_transform` now (called every frame with the followed camera;
    /// scripts may call it to place the mesh for another viewpoint).
    #[func]
    pub(super) fn place_for(&mut self, camera_transform: Transform3D) {
        let Some(mesh) = self.mesh.as_ref() else {
            return;
        };
        let o = self.origin();
        let p = camera_transform.origin;
        // A camera looking straight down has no horizontal forward: its screen-up direction serves.
        let mut fwd = -camera_transform.basis.col_c();
        if fwd.x.abs() + fwd.z.abs() < 1e-4 {
            fwd = camera_transform.basis.col_b();
        }
        let step = mesh.bind().coarse_vertex_spacing();
        let snap = if self.snap_to_grid { step } else { 0.0 };
        let pl = place(
            [f64::from(p.x - o.x), f64::from(p.z - o.y)],
            [f64::from(fwd.x), f64::from(fwd.z)],
            snap,
            self.back_offset,
        );
        if self.last == Some(pl) {
            return;
        }
        self.last = Some(pl);
        let node_pos = Vector3::new(
            pl.position[0] as f32 + o.x,
            0.0,
            pl.position[1] as f32 + o.y,
        );
        self.instance_xform = Transform3D::new(Basis::IDENTITY, node_pos);
        if let Some(rid) = self.instance {
            RenderingServer::singleton().instance_set_transform(rid, self.instance_xform);
        }
        let translation =
            Vector2::new(pl.position[0] as f32 - 0.5, pl.position[1] as f32 - 0.5).to_variant();
        let rotation = (pl.rotation as f32).to_variant();
        for mat in self
            .material
            .iter_mut()
            .chain(self.debug_material.iter_mut())
        {
            mat.set_shader_parameter(&self.param_translation, &translation);
            mat.set_shader_parameter(&self.param_rotation, &rotation);
        }
    }
}

impl WanderingTerrain {
    pub(super) fn origin(&self) -> Vector2 {
        let p = if self.base().is_inside_tree() {
            self.base().get_global_position()
        } else {
            self.base().get_position()
        };
        Vector2::new(p.x, p.z)
    }

    /// Makes the RenderingServer instance in this node's world (once per entry into a tree).
    pub(super) fn make_instance(&mut self) {
        if self.instance.is_some() {
            return;
        }
        let Some(world) = self.base().get_world_3d() else {
            return;
        };
        let mut rs = RenderingServer::singleton();
        let rid = rs.instance_create();
        rs.instance_set_scenario(rid, world.get_scenario());
        // Clicking the terrain in the editor selects this node.
        rs.instance_attach_object_instance_id(rid, self.base().instance_id().to_i64() as u64);
        rs.instance_set_visible(rid, self.base().is_visible_in_tree());
        self.instance = Some(rid);
        self.sync_instance();
        rs.instance_set_transform(rid, self.instance_xform);
        rs.instance_set_custom_aabb(rid, self.instance_aabb);
    }

    pub(super) fn sync_instance(&mut self) {
        let Some(rid) = self.instance else {
            return;
        };
        let mut rs = RenderingServer::singleton();
        let mesh = self.mesh.as_ref().map_or(Rid::Invalid, |m| m.get_rid());
        rs.instance_set_base(rid, mesh);
        let mat = self
            .debug_material
            .as_ref()
            .or(self.material.as_ref())
            .map_or(Rid::Invalid, |m| m.get_rid());
        rs.instance_geometry_set_material_override(rid, mat);
        rs.instance_set_layer_mask(rid, self.layers);
        rs.instance_geometry_set_cast_shadows_setting(
            rid,
            godot::classes::rendering_server::ShadowCastingSetting::from_ord(
                self.cast_shadow as i32,
            ),
        );
        // Setting the base resets the box.
        rs.instance_set_custom_aabb(rid, self.instance_aabb);
        self.last = None;
    }

    /// Places the mesh for the followed camera; its position (None without one).
    pub(super) fn follow(&mut self) -> Option<Vector3> {
        let t = self.followed_camera()?.get_global_transform();
        self.place_for(t);
        Some(t.origin)
    }

    pub(super) fn followed_camera(&self) -> Option<Gd<Camera3D>> {
        if !self.camera.is_empty() {
            return self
                .base()
                .get_node_or_null(&self.camera)
                .and_then(|n: Gd<Node>| n.try_cast::<Camera3D>().ok());
        }
        active_camera(&self.to_gd().upcast())
    }
}
