//! `WanderingTerrain`'s queries: heights, normals, layer weights, bounds and navigation faces at world
//! positions (the terrain moves on X/Z with its camera: `to_terrain_xz`).

use super::*;

#[godot_api(secondary)]
impl WanderingTerrain {
    /// The first point where the ray from world `origin` along `direction` meets the terrain as drawn
    /// (the node's X/Z offset applied), exact to float precision; a vector of NaN when it misses or without
    /// terrain data. See `TerrainData.raycast`.
    #[func]
    pub(super) fn raycast(&self, origin: Vector3, direction: Vector3) -> Vector3 {
        let Some(d) = self.terrain_data.as_ref() else {
            return Vector3::new(f32::NAN, f32::NAN, f32::NAN);
        };
        let o = self.origin();
        let shift = Vector3::new(o.x, 0.0, o.y);
        d.bind().raycast(origin - shift, direction) + shift
    }

    /// The weight of every layer of `terrain_material` that the shader blends at world X/Z `pos` (painted
    /// layers, and height bands where nothing is painted; at most 4 non-zero, summing to 1). Empty without
    /// a TerrainMaterial or terrain data.
    #[func]
    pub(super) fn get_layer_weights(&self, pos: Vector2) -> PackedFloat32Array {
        let Some(d) = self.terrain_data.as_ref() else {
            return PackedFloat32Array::new();
        };
        let p = self.to_terrain_xz(pos);
        terrain_material::weights_at(
            self.terrain_material.as_ref(),
            d.bind().core(),
            p.0,
            p.1,
            [1.0, 1.0],
        )
    }

    /// The surface name at world X/Z `pos` for `get_surface_name` (`look/ground_surface.rs`).
    pub(crate) fn surface_name_at(&self, pos: Vector2) -> StringName {
        let p = self.to_terrain_xz(pos);
        let data = self.terrain_data.as_ref().map(|d| d.bind());
        crate::look::ground_surface::surface_name_at(
            self.terrain_material.as_ref(),
            data.as_ref()
                .map(|d| d.core() as &dyn terrain_core::samples::Samples),
            p.0,
            p.1,
            [1.0, 1.0],
        )
    }

    /// The ground at world X/Z `pos` for `get_surface` (`look/ground_surface.rs`).
    pub(crate) fn ground_at(&self, pos: Vector2) -> crate::look::ground_surface::Ground {
        let p = self.to_terrain_xz(pos);
        let data = self.terrain_data.as_ref().map(|d| d.bind());
        crate::look::ground_surface::ground_at(
            self.terrain_material.as_ref(),
            data.as_ref()
                .map(|d| d.core() as &dyn terrain_core::samples::Samples),
            p.0,
            p.1,
            [1.0, 1.0],
            || self.collision_object.settings().material,
        )
    }

    /// The box the drawn mesh is culled by, around the camera's placement (local to the mesh's
    /// placement: the rings' reach on X/Z, the data's height range on Y).
    #[func]
    pub(super) fn get_aabb(&self) -> Aabb {
        self.instance_aabb
    }

    /// The surface inside the world box `area` as triangles (world space, three vertices each, clockwise
    /// seen from above: what `NavigationMeshSourceGeometryData3D.add_faces` takes), on the drawn surface,
    /// hole triangles left out, flat ground merged where it stays within `tolerance` world units of the
    /// merged triangles (0: two triangles per square of samples). A navigation bake adds these by itself;
    /// this is for custom bakes and checks.
    #[func]
    pub(super) fn get_navigation_faces(&self, area: Aabb, tolerance: f64) -> PackedVector3Array {
        crate::physics::navigation::faces_in(
            &self.terrain_surface(),
            "WanderingTerrain",
            area,
            tolerance,
        )
    }

    /// Height of the terrain at world X/Z `pos` (what the shader draws there); NaN without terrain data.
    /// `pos` is a Vector2 (X, Z): from a Vector3 such as `global_position`, pass `Vector2(p.x, p.z)` or
    /// call `get_height_at(p)`.
    #[func]
    pub(super) fn get_height(&self, pos: Vector2) -> f32 {
        let o = self.origin();
        match &self.terrain_data {
            Some(d) => d.bind().get_height(pos - o),
            None => f32::NAN,
        }
    }

    /// World heights at world X/Z points (NaN without terrain data), the data bound once.
    pub(crate) fn ground_heights(&self, xz: &[Vector2], out: &mut Vec<f64>) {
        out.clear();
        let o = self.origin();
        match &self.terrain_data {
            Some(d) => {
                let d = d.bind();
                out.extend(xz.iter().map(|p| f64::from(d.get_height(*p - o))));
            }
            None => out.resize(xz.len(), f64::NAN),
        }
    }

    /// Whether world X/Z `pos` is over the terrain data (from this node's origin to `size × spacing`);
    /// false without terrain data. Beyond the edge `get_height` answers the nearest edge's height.
    #[func]
    pub(super) fn is_inside(&self, pos: Vector2) -> bool {
        let o = self.origin();
        self.terrain_data
            .as_ref()
            .is_some_and(|d| d.bind().is_inside(pos - o))
    }

    /// Unit normal of the drawn terrain at world X/Z `pos`.
    #[func]
    pub(super) fn get_normal(&self, pos: Vector2) -> Vector3 {
        let o = self.origin();
        match &self.terrain_data {
            Some(d) => d.bind().get_normal(pos - o),
            None => Vector3::UP,
        }
    }
}

impl WanderingTerrain {
    /// This node's position on X/Z: the terrain's origin.
    /// World X/Z → terrain X/Z (the node only moves the terrain).
    pub(super) fn to_terrain_xz(&self, pos: Vector2) -> (f64, f64) {
        let p = pos - self.origin();
        (f64::from(p.x), f64::from(p.y))
    }
}
