//! `TerrainNode` queries: heights, normals, raycasts, layer weights and navigation faces of what the node
//! draws (the same surface on terrain data, region maps and endless worlds), and the rings' statistics.

use super::*;

#[godot_api(secondary)]
impl TerrainNode {
    /// The weight of every layer of `terrain_material` that the shader blends at world X/Z `pos` (painted
    /// layers, and height bands where nothing is painted; at most 4 non-zero, summing to 1). Empty without
    /// a TerrainMaterial or terrain data.
    #[func]
    pub(crate) fn get_layer_weights(&self, pos: Vector2) -> PackedFloat32Array {
        let p = self.to_terrain_xz(pos);
        let look = self.terrain_material.as_ref();
        match (&self.terrain_data, &self.streamed) {
            (Some(d), _) => {
                terrain_material::weights_at(look, d.bind().core(), p.0, p.1, self.grad_scale())
            }
            (None, Some(g)) => {
                terrain_material::weights_at(look, &**g, p.0, p.1, self.grad_scale())
            }
            _ => PackedFloat32Array::new(),
        }
    }

    /// The surface name at world X/Z `pos` for `get_surface_name` (`look/ground_surface.rs`).
    pub(crate) fn surface_name_at(&self, pos: Vector2) -> StringName {
        use crate::look::ground_surface::surface_name_at;
        let p = self.to_terrain_xz(pos);
        let (look, gs) = (self.terrain_material.as_ref(), self.grad_scale());
        self.with_samples(|t| surface_name_at(look, Some(t), p.0, p.1, gs))
            .unwrap_or_default()
    }

    /// The ground at world X/Z `pos` for `get_surface` (`look/ground_surface.rs`).
    pub(crate) fn ground_at(&self, pos: Vector2) -> crate::look::ground_surface::Ground {
        use crate::look::ground_surface::ground_at;
        let p = self.to_terrain_xz(pos);
        let look = self.terrain_material.as_ref();
        let fallback = || self.collision_object.settings().material;
        let gs = self.grad_scale();
        match (&self.terrain_data, &self.streamed) {
            (Some(d), _) => ground_at(look, Some(d.bind().core()), p.0, p.1, gs, fallback),
            (None, Some(g)) => ground_at(look, Some(&**g), p.0, p.1, gs, fallback),
            _ => ground_at(look, None, p.0, p.1, gs, fallback),
        }
    }

    /// The surface inside the world box `area` as triangles (world space, three vertices each, clockwise
    /// seen from above: what `NavigationMeshSourceGeometryData3D.add_faces` takes), on the drawn surface,
    /// hole triangles left out, flat ground merged where it stays within `tolerance` world units of the
    /// merged triangles (0: two triangles per square of samples). A navigation bake adds these by itself;
    /// this is for custom bakes and checks.
    #[func]
    pub(crate) fn get_navigation_faces(&self, area: Aabb, tolerance: f64) -> PackedVector3Array {
        crate::physics::navigation::faces_in(
            &self.terrain_surface(),
            "TerrainNode",
            area,
            tolerance,
        )
    }

    /// World heights at world X/Z points (NaN without terrain), the frame and samples taken once.
    pub(crate) fn ground_heights(&self, xz: &[Vector2], out: &mut Vec<f64>) {
        out.clear();
        let f = self.terrain_frame();
        let made = self.with_samples(|t| {
            for p in xz {
                let q = f.to_terrain([f64::from(p.x), 0.0, f64::from(p.y)]);
                out.push(samples::height_at(t, q[0], q[2]) as f64 * f.scale[1] + f.origin[1]);
            }
        });
        if made.is_none() {
            out.resize(xz.len(), f64::NAN);
        }
    }

    /// Height of the drawn terrain at world X/Z `pos` (this node's position and scale applied, and its
    /// origin shift: exact however far out the world is); NaN without terrain data.
    /// `pos` is a Vector2 (X, Z): from a Vector3 such as `global_position`, pass `Vector2(p.x, p.z)` or
    /// call `get_height_at(p)`.
    #[func]
    pub(crate) fn get_height(&self, pos: Vector2) -> f32 {
        let (x, z) = self.to_terrain_xz(pos);
        let f = self.terrain_frame();
        self.with_samples(|t| {
            (samples::height_at(t, x, z) as f64 * f.scale[1] + f.origin[1]) as f32
        })
        .unwrap_or(f32::NAN)
    }

    /// Whether world X/Z `pos` is over the terrain (this node's position and scale applied): on a finite
    /// map's samples, anywhere on an endless world; false without terrain. Beyond a finite map's edge
    /// `get_height` answers the nearest edge's height, and nothing is drawn or collides there.
    #[func]
    pub(crate) fn is_inside(&self, pos: Vector2) -> bool {
        let (x, z) = self.to_terrain_xz(pos);
        self.with_samples(|t| samples::is_inside(t, x, z))
            .unwrap_or(false)
    }

    /// Unit normal of the drawn terrain at world X/Z `pos`, in world space.
    #[func]
    pub(crate) fn get_normal(&self, pos: Vector2) -> Vector3 {
        let (x, z) = self.to_terrain_xz(pos);
        let (_, s) = self.frame();
        self.with_samples(|t| {
            let n = samples::normal_at(t, x, z);
            Vector3::new(n[0] / s.x, n[1] / s.y, n[2] / s.z).normalized()
        })
        .unwrap_or(Vector3::UP)
    }

    /// The first point where the ray from world `origin` along `direction` meets the drawn terrain (this
    /// node's position and scale applied, and its origin shift), exact to float precision; a vector of NaN
    /// when it misses or without terrain data. See `TerrainData.raycast`; over terrain_regions or
    /// terrain_generator a ray is followed as far as the rings reach (`get_reach`).
    #[func]
    pub(crate) fn raycast(&self, origin: Vector3, direction: Vector3) -> Vector3 {
        let f = self.terrain_frame();
        let nan = Vector3::new(f32::NAN, f32::NAN, f32::NAN);
        if f.scale.contains(&0.0) {
            return nan;
        }
        let lo = f.to_terrain([origin.x, origin.y, origin.z].map(f64::from));
        let ld = [direction.x, direction.y, direction.z]
            .map(f64::from)
            .iter()
            .zip(f.scale)
            .map(|(d, s)| d / s)
            .collect::<Vec<_>>();
        let ld = [ld[0], ld[1], ld[2]];
        let reach = match &self.streamed {
            // An endless world is followed as far as the rings reach across the ground (what can be seen:
            // a camera high above still sees the ground under it, so the reach is horizontal), capped so a
            // node scaled very small does not walk millions of patches; a region map, like terrain data,
            // as far as the map goes (reading the regions along the ray).
            Some(g) if self.terrain_data.is_none() && g.size().is_none() => {
                let across =
                    ld[0].hypot(ld[2]) / (ld[0] * ld[0] + ld[1] * ld[1] + ld[2] * ld[2]).sqrt();
                (self.config.reach() / f.scale[0].abs().min(f.scale[2].abs()) / across)
                    .min(terrain_core::raycast::ENDLESS_REACH * g.spacing())
            }
            _ => f64::INFINITY,
        };
        self.with_samples(|t| terrain_core::raycast::raycast_within(t, lo, ld, reach))
            .flatten()
            .map_or(nan, |h| crate::surface::world_of(&f, h))
    }

    /// Vertices and triangles drawn per level (Array of Vector2i(vertices, triangles)), seams included.
    #[func]
    pub(crate) fn get_level_stats(&self) -> Array<Vector2i> {
        let meshes = build_meshes(&self.config);
        let mut placed = vec![PlacedPiece::default(); self.config.piece_count()];
        layout(&self.config, [0.0, 0.0], &mut placed);
        let mut out = Array::new();
        for level in 0..self.config.levels() {
            let (mut v, mut t) = (0i32, 0i32);
            for p in placed.iter().filter(|p| p.level == level) {
                let m = meshes.get(p.kind);
                v += m.positions.len() as i32;
                t += (m.indices.len() / 3) as i32;
            }
            out.push(Vector2i::new(v, t));
        }
        out
    }

    /// Number of pieces (rendering instances) currently drawn; 0 outside the scene tree.
    #[func]
    pub(crate) fn get_piece_count(&self) -> i64 {
        self.instances.len() as i64
    }

    /// Distance from the target to the nearest edge of the outermost level (world units).
    #[func]
    pub(crate) fn get_reach(&self) -> f64 {
        self.config.reach()
    }
}
