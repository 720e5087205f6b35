//! `TerrainNode` drawing: laying the ring pieces out around the target, the data windows, the
//! RenderingServer instances and meshes, and the material's parameters.

use super::*;

impl TerrainNode {
    /// Moves the pieces whose level snapped and sets the target uniform. `target`: the windows' target, in
    /// the node's placement before the origin shift (the pieces are laid out there, then drawn shifted).
    pub(crate) fn layout_pieces(&mut self, target: [f64; 2]) {
        layout(&self.config, target, &mut self.placed);
        let mut rs = RenderingServer::singleton();
        let off = self.origin.offset;
        for (i, p) in self.placed.iter().enumerate() {
            if self.shown[i] == Some(*p) && !self.origin.moved {
                continue;
            }
            if self.shown[i].map(|s| s.kind) != Some(p.kind) {
                rs.instance_set_base(self.instances[i], self.meshes[mesh_index(p.kind)].get_rid());
                rs.instance_set_custom_aabb(self.instances[i], self.piece_aabb(p.kind));
            }
            let s = p.scale as f32;
            // Whole lattice steps of the coarsest level are subtracted (`origin_shift`): exact, small.
            let xf = Transform3D::new(
                Basis::from_diagonal(s, 1.0, s),
                Vector3::new(
                    (p.origin[0] - off[0]) as f32,
                    0.0,
                    (p.origin[1] - off[1]) as f32,
                ),
            );
            rs.instance_set_transform(self.instances[i], xf);
            self.shown[i] = Some(*p);
        }
        self.origin.moved = false;
        // The shader's morphing needs a finite target (the layout falls back to 0 likewise).
        let t = Vector2::new((target[0] - off[0]) as f32, (target[1] - off[1]) as f32);
        let t = if t.is_finite() { t } else { Vector2::ZERO };
        if t != self.last_target {
            self.last_target = t;
            let name = self.param_target.clone();
            self.set_param(&name, &t.to_variant());
        }
    }

    pub(crate) fn set_drawable(&mut self, drawable: bool) {
        if drawable != self.drawable {
            self.drawable = drawable;
            self.apply_flags();
        }
    }

    pub(crate) fn reconfigure(&mut self, n: i64, levels: i64, spacing: f64) {
        match ClipmapConfig::new(n, levels, spacing) {
            Ok(cfg) => {
                self.tile_resolution = n;
                self.levels = levels;
                self.vertex_spacing = spacing;
                self.morph_width = self.morph_width.min(n as f64);
                self.config = cfg;
                self.gpu = ClipmapTexture::new(&cfg);
                self.data_key = None;
                if !self.instances.is_empty() {
                    self.rebuild();
                }
            }
            Err(e) => godot_error!("TerrainNode.{e}; keeping the previous value"),
        }
    }

    /// Box of a piece in its own (scaled) space: its lattice extent and the terrain's height range.
    pub(crate) fn piece_aabb(&self, kind: PieceKind) -> Aabb {
        let m = &self.meshes[mesh_index(kind)];
        let b = m.get_aabb();
        let (o, s) = self.frame();
        let lo = self.height_range.x * s.y + o.y - 1.0;
        let hi = self.height_range.y * s.y + o.y + 1.0;
        Aabb::new(
            Vector3::new(b.position.x, lo, b.position.z),
            Vector3::new(b.size.x, hi - lo, b.size.z),
        )
    }

    pub(crate) fn free_instances(&mut self) {
        let mut rs = RenderingServer::singleton();
        for rid in self.instances.drain(..) {
            rs.free_rid(rid);
        }
        self.shown.clear();
    }

    /// Builds the shared meshes and one rendering instance per piece.
    pub(crate) fn rebuild(&mut self) {
        self.wake();
        self.free_instances();
        // A server draws nothing: no pieces, so no data windows either (`update_windows`).
        if !self.base().is_inside_tree() || self.serving {
            return;
        }
        let m = build_meshes(&self.config);
        self.meshes = vec![
            array_mesh(&m.tile),
            array_mesh(&m.cross),
            array_mesh(&m.filler),
            array_mesh(&m.trims[0]),
            array_mesh(&m.trims[1]),
            array_mesh(&m.trims[2]),
            array_mesh(&m.trims[3]),
            array_mesh(&m.seam),
        ];
        let Some(world) = self.base().get_world_3d() else {
            return;
        };
        let scenario = world.get_scenario();
        let mut rs = RenderingServer::singleton();
        let mat = self.drawn_rid();
        let count = self.config.piece_count();
        for _ in 0..count {
            let i = rs.instance_create();
            rs.instance_set_scenario(i, scenario);
            rs.instance_geometry_set_material_override(i, mat);
            self.instances.push(i);
        }
        self.placed = vec![PlacedPiece::default(); count];
        self.shown = vec![None; count];
        self.last_pos = None;
        self.apply_flags();
        self.update_material();
        if let Some(p) = self.target_position() {
            self.place_at(p);
        }
    }

    pub(crate) fn apply_flags(&mut self) {
        let mut rs = RenderingServer::singleton();
        let shadow = ShadowCastingSetting::from_ord(self.cast_shadow as i32);
        // Without data (or before its texture exists) there is nothing to draw.
        let visible = self.base().is_inside_tree()
            && self.base().is_visible_in_tree()
            && (self.terrain_data.is_some() || self.streamed.is_some())
            && self.drawable;
        for &i in &self.instances {
            rs.instance_set_layer_mask(i, self.layers);
            rs.instance_geometry_set_cast_shadows_setting(i, shadow);
            rs.instance_set_visible(i, visible);
        }
    }

    pub(crate) fn update_material(&mut self) {
        let (o, s) = self.frame();
        // An endless world has no edges: a negative size tells the shader so.
        let (size, spacing) = match (self.terrain_data.as_ref(), &self.streamed) {
            (Some(d), _) => {
                let d = d.bind();
                (d.get_size(), d.get_spacing())
            }
            (None, Some(g)) => (size_of(&**g), g.spacing()),
            _ => (Vector2i::ZERO, 1.0),
        };
        let tex = self.gpu.texture();
        let (window, split, fine, fine_origin) = (
            self.gpu.window() as i32,
            self.gpu.split(),
            self.gpu.fine_layer() as i32,
            self.fine_origin_sent(),
        );
        let (slots, shift) = (self.slot_shifts(), self.terrain_shift());
        self.sent_fine_origin = Some(fine_origin);
        let (param_target, param_fine_origin) =
            (self.param_target.clone(), self.param_fine_origin.clone());
        let (vertex_spacing, tile_resolution, morph_width, last_target) = (
            self.vertex_spacing,
            self.tile_resolution,
            self.morph_width,
            self.last_target,
        );
        for mat in self.shader_materials() {
            mat.set_shader_parameter("clipmap_data", &tex.to_variant());
            mat.set_shader_parameter("clipmap_window", &window.to_variant());
            mat.set_shader_parameter("clipmap_split", &split.to_variant());
            mat.set_shader_parameter("clipmap_fine_layer", &fine.to_variant());
            mat.set_shader_parameter(&param_fine_origin, &fine_origin.to_variant());
            mat.set_shader_parameter(
                "terrain_size",
                &Vector2::new(size.x as f32, size.y as f32).to_variant(),
            );
            mat.set_shader_parameter("spacing", &(spacing as f32).to_variant());
            mat.set_shader_parameter("terrain_origin", &o.to_variant());
            mat.set_shader_parameter("terrain_scale", &s.to_variant());
            mat.set_shader_parameter("vertex_spacing", &(vertex_spacing as f32).to_variant());
            mat.set_shader_parameter("tile_resolution", &(tile_resolution as f32).to_variant());
            mat.set_shader_parameter("morph_width", &(morph_width as f32).to_variant());
            mat.set_shader_parameter(&param_target, &last_target.to_variant());
            mat.set_shader_parameter("clipmap_slot_shift", &slots.to_variant());
            mat.set_shader_parameter("terrain_shift", &shift.to_variant());
        }
        self.send_uv_shift();
        self.invalidate_surface_cache();
        // A new material (or one cleared by a save) gets the far distance again.
        self.surface_far_sent = f32::NAN;
        self.send_surface_far();
    }
}
