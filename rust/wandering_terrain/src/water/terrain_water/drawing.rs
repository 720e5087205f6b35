//! Drawing the water: its level map sent to the GPU and one surface a water body placed in the world
//! (`terrain_water.gdshader`), placed anew when the terrain moves or shifts its origin.

use super::*;

impl TerrainWater {
    /// Sends the map to the GPU and puts one plane a water level in the world.
    /// `ground`: the heights under the map (the shader's depth tint).
    pub(super) fn draw(&mut self, ground: &[f32]) {
        self.clear_instances();
        let Some(map) = &self.map else {
            return;
        };
        let (w, d) = (map.water.rect.w, map.water.rect.d);
        let heights_of = |i: usize| map.water.levels[i];
        let mut bytes = PackedByteArray::new();
        bytes.resize(w * d * 8);
        for (i, out) in bytes.as_mut_slice().chunks_exact_mut(8).enumerate() {
            let l = heights_of(i);
            let l = if l.is_finite() { l } else { DRY };
            out[0..4].copy_from_slice(&l.to_le_bytes());
            out[4..8].copy_from_slice(&ground.get(i).copied().unwrap_or(0.0).to_le_bytes());
        }
        let Some(img) = Image::create_from_data(w as i32, d as i32, false, Format::RGF, &bytes)
        else {
            godot_error!("TerrainWater: the water map image could not be made");
            return;
        };
        let texture = match self.texture.as_mut() {
            Some(t) if t.get_width() == w as i32 && t.get_height() == d as i32 => {
                t.update(&img);
                t.clone()
            }
            _ => {
                let t = ImageTexture::create_from_image(&img).expect("water map texture");
                self.texture = Some(t.clone());
                t
            }
        };
        let mut material = self.material.clone().unwrap_or_else(|| {
            self.default_material
                .get_or_insert_with(|| {
                    let mut m = ShaderMaterial::new_gd();
                    let path = if self.pixel_art {
                        PIXEL_ART_SHADER
                    } else {
                        DEFAULT_SHADER
                    };
                    m.set_shader(&load::<Shader>(path));
                    m
                })
                .clone()
        });
        let sp = map.water.spacing as f32;
        let origin = Vector2::new(
            ((map.water.rect.x as f64 + 0.5) * map.water.spacing) as f32,
            ((map.water.rect.z as f64 + 0.5) * map.water.spacing) as f32,
        );
        material.set_shader_parameter("water_map", &texture.to_variant());
        material.set_shader_parameter("water_map_origin", &origin.to_variant());
        material.set_shader_parameter("water_spacing", &sp.to_variant());
        material.set_shader_parameter(
            "water_map_size",
            &Vector2i::new(w as i32, d as i32).to_variant(),
        );
        let outside = map.water.sea.unwrap_or(DRY);
        material.set_shader_parameter("water_outside_level", &outside.to_variant());
        let plane = self
            .plane
            .get_or_insert_with(|| {
                let mut p = PlaneMesh::new_gd();
                p.set_size(Vector2::new(1.0, 1.0));
                p
            })
            .clone();
        let Some(world) = self.base().get_world_3d() else {
            return;
        };
        let mut rs = RenderingServer::singleton();
        let visible = self.base().is_visible_in_tree();
        let mut made = Vec::new();
        for &(level, b) in &map.bodies {
            let i = rs.instance_create2(plane.get_rid(), world.get_scenario());
            let local = (
                Basis::from_scale(Vector3::new(b[2], 1.0, b[3])),
                [b[0] + 0.5 * b[2], level, b[1] + 0.5 * b[3]].map(f64::from),
            );
            rs.instance_set_transform(i, placed(map, local));
            self.locals.push(local);
            rs.instance_geometry_set_material_override(i, material.get_rid());
            rs.instance_geometry_set_shader_parameter(i, "water_level", &level.to_variant());
            rs.instance_geometry_set_shader_parameter(
                i,
                "water_bounds",
                &Vector4::new(b[0], b[1], b[2], b[3]).to_variant(),
            );
            rs.instance_set_visible(i, visible);
            made.push(i);
        }
        self.river_meshes = map
            .water
            .rivers
            .iter()
            .filter_map(river_surface::mesh)
            .collect();
        for m in &self.river_meshes {
            let i = rs.instance_create2(m.get_rid(), world.get_scenario());
            let local = (Basis::IDENTITY, [0.0; 3]);
            rs.instance_set_transform(i, placed(map, local));
            self.locals.push(local);
            rs.instance_geometry_set_material_override(i, material.get_rid());
            rs.instance_geometry_set_shader_parameter(i, "water_river", &1.0f32.to_variant());
            rs.instance_set_visible(i, visible);
            made.push(i);
        }
        material.set_shader_parameter("river_speed", &(self.river_speed as f32).to_variant());
        self.instances = made;
    }

    pub(super) fn clear_instances(&mut self) {
        let mut rs = RenderingServer::singleton();
        for i in self.instances.drain(..) {
            rs.free_rid(i);
        }
        self.locals.clear();
    }

    /// The terrain shifted its origin (or moved): the surfaces are placed anew, nothing recomputed.
    pub(super) fn follow_frame(&mut self) {
        let Some(host) = host_above(&self.to_gd().upcast()) else {
            return;
        };
        let frame = host.dyn_bind().terrain_surface().frame;
        let Some(map) = self.map.as_mut() else {
            return;
        };
        if map.frame == frame {
            return;
        }
        map.frame = frame;
        let mut rs = RenderingServer::singleton();
        for (&i, &local) in self.instances.iter().zip(&self.locals) {
            rs.instance_set_transform(i, placed(map, local));
        }
    }
}

/// A surface placed in terrain space (basis, origin) as the map's frame puts it in the world.
pub(super) fn placed(map: &WaterMap, (basis, origin): (Basis, [f64; 3])) -> Transform3D {
    Transform3D::new(map.to_world.basis * basis, world_of(&map.frame, origin))
}

impl Drop for TerrainWater {
    fn drop(&mut self) {
        self.clear_instances();
    }
}
