//! `TerrainDetailLayer`: one kind of detail (grass, flowers, pebbles) a `TerrainInstancer` grows around the
//! camera by rules (`terrain_core::detail`), and what it is drawn with.

use crate::look::terrain_material::default_material;
use godot::classes::mesh::{ArrayType, PrimitiveType};
use godot::classes::{ArrayMesh, Material, Mesh};
use godot::prelude::*;
use terrain_core::detail::{DetailGrid, DetailLayer, DetailRules, Ground};
use terrain_core::placement_rules::{PlacementRules, WaterRule};

const DEFAULT_SHADER: &str = "res://addons/wandering_terrain/shaders/detail_grass.gdshader";

/// The most instances a layer may have within its view radius (density × π × view_radius²): 1,000,000,
/// 64 bytes each on the GPU.
pub const MAX_VISIBLE: f64 = 1.0e6;

/// Detail grown by rules around the camera on a `TerrainInstancer`'s terrain (any source: TerrainData,
/// region maps, endless generated worlds). Nothing is stored: the instances of a piece of ground are a pure
/// function of the terrain there, these rules and `seed` (a jittered grid hashed per grid square), the same
/// in the editor and the game, on every machine. Edits of the terrain regrow the detail they touch.
///
/// Without a `mesh`, a clump of grass blades is drawn with the built-in grass shader
/// (`shaders/detail_grass.gdshader`: wind, the ground layer's tint, distance fade). Distances, sizes and
/// heights are world units. Every property refuses values outside its range with an error naming it and
/// keeps the previous value.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainDetailLayer {
    /// What one instance looks like (null: the built-in grass clump, about 0.5 × 0.5 × 0.6).
    #[export]
    #[export_group(name = "Look")]
    #[var(set = set_mesh)]
    mesh: Option<Gd<Mesh>>,
    /// Drawn with this material instead of the mesh's (null: the mesh's own; the built-in clump uses the
    /// grass shader). Shaders that include `detail_grass.gdshaderinc` get the wind, tint and fade.
    #[export]
    #[var(set = set_material)]
    material: Option<Gd<Material>>,
    /// Instances per square metre, (0, 64]; density × π × view_radius² must stay ≤ 1,000,000.
    #[export(range = (0.01, 16.0, 0.01, or_greater))]
    #[export_group(name = "Placement")]
    #[var(set = set_density)]
    density: f64,
    /// Detail grows within this distance of the camera, [1, 2000].
    #[export(range = (1.0, 400.0, 1.0, or_greater))]
    #[var(set = set_view_radius)]
    view_radius: f64,
    /// Over the last `fade_distance` of the radius, instances shrink away (shaders with the include),
    /// [0, view_radius].
    #[export(range = (0.0, 100.0, 0.5, or_greater))]
    #[var(set = set_fade_distance)]
    fade_distance: f64,
    /// Smallest random scale, (0, scale_max].
    #[export(range = (0.05, 4.0, 0.01, or_greater))]
    #[var(set = set_scale_min)]
    scale_min: f64,
    /// Largest random scale, [scale_min, 1000].
    #[export(range = (0.05, 4.0, 0.01, or_greater))]
    #[var(set = set_scale_max)]
    scale_max: f64,
    /// How much darker a random instance may be, [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_color_jitter)]
    color_jitter: f64,
    /// 0: upright; 1: along the ground's normal.
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_align_to_normal)]
    align_to_normal: f64,
    /// Height above the ground (negative sinks the base in), [-1000, 1000].
    #[export]
    #[var(set = set_height_offset)]
    height_offset: f64,
    /// Texture layers (indices into the terrain's TerrainMaterial) it grows on; empty: any ground. A point
    /// grows with the probability of those layers' weight there (`get_layer_weights`).
    #[export]
    #[var(set = set_layers)]
    layers: PackedInt32Array,
    /// Flattest ground, degrees, [0, slope_max].
    #[export(range = (0.0, 90.0, 0.1))]
    #[var(set = set_slope_min)]
    slope_min: f64,
    /// Steepest ground, degrees, [slope_min, 90].
    #[export(range = (0.0, 90.0, 0.1))]
    #[var(set = set_slope_max)]
    slope_max: f64,
    /// Where it grows with respect to a TerrainWater on the terrain: WATER_AVOID (dry ground only, the
    /// default), WATER_ANY, WATER_ONLY (under water between water_depth_min and water_depth_max: reeds,
    /// kelp).
    #[export(enum = (Avoid = 0, Any = 1, Only = 2))]
    #[var(set = set_water_placement)]
    water_placement: i64,
    /// Shallowest water with WATER_ONLY, terrain units, [0, water_depth_max].
    #[export(range = (0.0, 100.0, 0.01, or_greater))]
    #[var(set = set_water_depth_min)]
    water_depth_min: f64,
    /// Deepest water with WATER_ONLY, terrain units, [water_depth_min, 100000].
    #[export(range = (0.0, 100.0, 0.01, or_greater))]
    #[var(set = set_water_depth_max)]
    water_depth_max: f64,
    /// Lowest ground (world height), [-1e6, height_max].
    #[export]
    #[var(set = set_height_min)]
    height_min: f64,
    /// Highest ground (world height), [height_min, 1e6].
    #[export]
    #[var(set = set_height_max)]
    height_max: f64,
    /// Another seed grows another pattern.
    #[export]
    #[var(set = set_seed)]
    seed: i64,
    /// Shadow casting (GeometryInstance3D.ShadowCastingSetting).
    #[export(enum = (Off = 0, On = 1, DoubleSided = 2, ShadowsOnly = 3))]
    #[var(set = set_cast_shadow)]
    cast_shadow: i64,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainDetailLayer {
    fn init(base: Base<Resource>) -> Self {
        Self {
            mesh: None,
            material: None,
            density: 4.0,
            view_radius: 60.0,
            fade_distance: 10.0,
            scale_min: 0.7,
            scale_max: 1.3,
            color_jitter: 0.3,
            align_to_normal: 0.6,
            height_offset: 0.0,
            layers: PackedInt32Array::new(),
            slope_min: 0.0,
            slope_max: 40.0,
            water_placement: 0,
            water_depth_min: 0.0,
            water_depth_max: 1e5,
            height_min: -1e6,
            height_max: 1e6,
            seed: 0,
            cast_shadow: 0,
            base,
        }
    }
}

#[godot_api]
impl TerrainDetailLayer {
    #[func]
    fn set_mesh(&mut self, v: Option<Gd<Mesh>>) {
        self.mesh = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_material(&mut self, v: Option<Gd<Material>>) {
        self.material = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_density(&mut self, v: f64) {
        if !(v > 0.0 && v <= 64.0) {
            return self.refuse("density", "(0, 64] per square metre", v);
        }
        if !self.within_budget(v, self.view_radius, "density") {
            return;
        }
        self.density = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_view_radius(&mut self, v: f64) {
        if !(1.0..=2000.0).contains(&v) {
            return self.refuse("view_radius", "[1, 2000]", v);
        }
        if !self.within_budget(self.density, v, "view_radius") {
            return;
        }
        self.view_radius = v;
        self.fade_distance = self.fade_distance.min(v);
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_fade_distance(&mut self, v: f64) {
        if !(0.0..=self.view_radius).contains(&v) {
            return self.refuse("fade_distance", &format!("[0, {}]", self.view_radius), v);
        }
        self.fade_distance = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_scale_min(&mut self, v: f64) {
        // The other end follows, as a Range does (a scene loads min before max).
        self.set_rule("scale_min", |r| r.placement.set_scale_min(v as f32));
    }
    #[func]
    fn set_scale_max(&mut self, v: f64) {
        self.set_rule("scale_max", |r| r.placement.set_scale_max(v as f32));
    }
    #[func]
    fn set_color_jitter(&mut self, v: f64) {
        self.set_rule("color_jitter", |r| r.color_jitter = v as f32);
    }
    #[func]
    fn set_align_to_normal(&mut self, v: f64) {
        self.set_rule("align_to_normal", |r| r.placement.align = v as f32);
    }
    #[func]
    fn set_height_offset(&mut self, v: f64) {
        self.set_rule("height_offset", |r| r.placement.offset = v as f32);
    }
    #[func]
    fn set_slope_min(&mut self, v: f64) {
        self.set_rule("slope_min", |r| r.placement.set_slope_min(v as f32));
    }
    #[func]
    fn set_slope_max(&mut self, v: f64) {
        self.set_rule("slope_max", |r| r.placement.set_slope_max(v as f32));
    }
    #[func]
    fn set_water_placement(&mut self, v: i64) {
        if WaterRule::from_index(v).is_none() {
            godot_error!("TerrainDetailLayer.water_placement must be WATER_AVOID, WATER_ANY or WATER_ONLY (0..2), got {v}; keeping {}", self.water_placement);
            return;
        }
        self.water_placement = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_water_depth_min(&mut self, v: f64) {
        self.set_rule("water_depth_min", |r| {
            r.placement.set_water_depth_min(v as f32)
        });
    }
    #[func]
    fn set_water_depth_max(&mut self, v: f64) {
        self.set_rule("water_depth_max", |r| {
            r.placement.set_water_depth_max(v as f32)
        });
    }
    /// `water_placement`: only on dry ground (the default).
    #[constant]
    const WATER_AVOID: i64 = 0;
    /// `water_placement`: on dry ground and under water alike.
    #[constant]
    const WATER_ANY: i64 = 1;
    /// `water_placement`: only under water, between `water_depth_min` and `water_depth_max`.
    #[constant]
    const WATER_ONLY: i64 = 2;
    #[func]
    fn set_height_min(&mut self, v: f64) {
        if !(-1e6..=1e6).contains(&v) {
            return self.refuse("height_min", "[-1000000, 1000000]", v);
        }
        self.height_min = v;
        self.height_max = self.height_max.max(v);
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_height_max(&mut self, v: f64) {
        if !(-1e6..=1e6).contains(&v) {
            return self.refuse("height_max", "[-1000000, 1000000]", v);
        }
        self.height_max = v;
        self.height_min = self.height_min.min(v);
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_layers(&mut self, v: PackedInt32Array) {
        if let Some(bad) = v.as_slice().iter().find(|&&l| !(0..64).contains(&l)) {
            godot_error!(
                "TerrainDetailLayer.layers: layer indices must be in [0, 63], got {bad}; keeping the previous layers"
            );
            return;
        }
        self.layers = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_seed(&mut self, v: i64) {
        self.seed = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_cast_shadow(&mut self, v: i64) {
        if !(0..=3).contains(&v) {
            return self.refuse("cast_shadow", "[0, 3]", v as f64);
        }
        self.cast_shadow = v;
        self.base_mut().emit_changed();
    }
}

/// A layer as the instancer draws it: the core's rules in terrain units and the servers' side.
pub struct ResolvedDetail {
    pub core: DetailLayer,
    /// View radius and fade start, terrain units.
    pub radius: f32,
    pub fade: f32,
    pub mesh: Gd<Mesh>,
    pub material: Option<Gd<Material>>,
    /// The mesh's box (a cell's bounds grow by it).
    pub aabb: Aabb,
    pub shadow: i64,
}

impl TerrainDetailLayer {
    fn refuse(&self, name: &str, range: &str, v: f64) {
        godot_error!(
            "TerrainDetailLayer.{name} must be in {range}, got {v}; keeping the previous value"
        );
    }

    fn within_budget(&self, density: f64, radius: f64, name: &str) -> bool {
        let n = density * std::f64::consts::PI * radius * radius;
        if n > MAX_VISIBLE {
            godot_error!(
                "TerrainDetailLayer.{name}: density × π × view_radius² would be {n:.0} instances, over the budget of {MAX_VISIBLE}; keeping the previous value"
            );
            return false;
        }
        true
    }

    /// The texture layers this layer grows on (empty: any ground).
    pub fn allowed_layers(&self) -> Vec<usize> {
        self.layers.as_slice().iter().map(|&l| l as usize).collect()
    }

    /// The rules in world units (density per m², heights in world units).
    fn rules(&self) -> DetailRules {
        DetailRules {
            density: self.density,
            height: [self.height_min as f32, self.height_max as f32],
            color_jitter: self.color_jitter as f32,
            seed: self.seed as u64,
            placement: PlacementRules {
                scale: [self.scale_min as f32, self.scale_max as f32],
                slope: [self.slope_min as f32, self.slope_max as f32],
                align: self.align_to_normal as f32,
                offset: self.height_offset as f32,
                water: WaterRule::from_index(self.water_placement).unwrap_or_default(),
                water_depth: [self.water_depth_min as f32, self.water_depth_max as f32],
            },
        }
    }

    /// Applies a change to the rules if they stay valid.
    fn set_rule(&mut self, name: &str, change: impl FnOnce(&mut DetailRules)) {
        let mut r = self.rules();
        change(&mut r);
        if let Err(e) = r.check() {
            godot_error!("TerrainDetailLayer.{name}: {e}; keeping the previous value");
            return;
        }
        let p = r.placement;
        (self.scale_min, self.scale_max) = (f64::from(p.scale[0]), f64::from(p.scale[1]));
        (self.slope_min, self.slope_max) = (f64::from(p.slope[0]), f64::from(p.slope[1]));
        (self.water_depth_min, self.water_depth_max) =
            (f64::from(p.water_depth[0]), f64::from(p.water_depth[1]));
        self.align_to_normal = f64::from(p.align);
        self.height_offset = f64::from(p.offset);
        self.color_jitter = f64::from(r.color_jitter);
        self.base_mut().emit_changed();
    }

    /// The layer in terrain space: `to_world` is the terrain's (a uniform horizontal scale, a vertical
    /// scale and a translation); `ground` the terrain material's blending and tints. An error when the
    /// terrain's scale makes the density or heights unusable.
    pub fn resolve(
        &self,
        to_world: Transform3D,
        ground: Ground,
    ) -> Result<ResolvedDetail, DetailLayerError> {
        let (core, radius, fade) = self.core(to_world, ground)?;
        let (mesh, material) = match &self.mesh {
            Some(m) => (m.clone(), self.material.clone()),
            None => (
                grass_clump().upcast(),
                self.material.clone().or_else(|| {
                    Some(default_material(DEFAULT_SHADER, "TerrainDetailLayer").upcast())
                }),
            ),
        };
        Ok(ResolvedDetail {
            core,
            radius,
            fade,
            aabb: mesh.get_aabb(),
            mesh,
            material,
            shadow: self.cast_shadow,
        })
    }

    /// The core's layer in terrain space, its view radius and fade start (terrain units).
    pub fn core(
        &self,
        to_world: Transform3D,
        mut ground: Ground,
    ) -> Result<(DetailLayer, f32, f32), DetailLayerError> {
        let s = f64::from(to_world.basis.get_scale().x.abs());
        let sy = f64::from(to_world.basis.get_scale().y.abs());
        if !(s > 1e-6 && sy > 1e-6) {
            return Err(DetailLayerError::Scale);
        }
        let oy = f64::from(to_world.origin.y);
        let w = self.rules();
        let rules = DetailRules {
            density: w.density * s * s,
            height: w
                .height
                .map(|v| ((f64::from(v) - oy) / sy).clamp(-1e30, 1e30) as f32),
            placement: PlacementRules {
                scale: w.placement.scale.map(|v| (f64::from(v) / s) as f32),
                offset: (f64::from(w.placement.offset) / sy) as f32,
                ..w.placement
            },
            ..w
        };
        rules.check().map_err(DetailLayerError::Rules)?;
        // Cells of about a sixth of the radius: ~120 cells in view, a few entering per second of flight.
        let cell = (self.view_radius / 6.0).clamp(4.0, 256.0) / s;
        let grid = DetailGrid::new(rules.density, cell).ok_or(DetailLayerError::Grid)?;
        ground.allowed = self.layers.as_slice().iter().map(|&l| l as usize).collect();
        Ok((
            DetailLayer {
                rules,
                grid,
                ground,
            },
            (self.view_radius / s) as f32,
            ((self.view_radius - self.fade_distance) / s) as f32,
        ))
    }
}

/// Why a detail layer cannot grow on a terrain (the instancer reports it and leaves the layer out).
#[derive(Debug)]
pub enum DetailLayerError {
    /// The terrain's horizontal or vertical scale is 0.
    Scale,
    /// The rules, brought to the terrain's scale, left their ranges.
    Rules(terrain_core::detail::DetailRulesError),
    /// The density or the view radius is not finite.
    Grid,
}

impl std::fmt::Display for DetailLayerError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Self::Scale => write!(f, "the terrain's scale must be > 0"),
            Self::Rules(e) => write!(f, "on this terrain's scale, {e}"),
            Self::Grid => write!(f, "density and radius must be finite"),
        }
    }
}

/// Seven blades in a clump, tapered triangles leaning out (UV.y: 1 at the root, 0 at the tip; normals up,
/// so grass takes the light of the ground it stands on).
fn grass_clump() -> Gd<ArrayMesh> {
    let mut verts = PackedVector3Array::new();
    let mut normals = PackedVector3Array::new();
    let mut uvs = PackedVector2Array::new();
    for b in 0..7 {
        let a = b as f32 * 2.399_963; // the golden angle: blades spread evenly around the clump
        let r = 0.05 + 0.15 * ((b * 5 % 7) as f32 / 6.0);
        let (dx, dz) = (a.cos(), a.sin());
        let root = Vector3::new(dx * r, 0.0, dz * r);
        let side = Vector3::new(-dz, 0.0, dx) * 0.035;
        let h = 0.4 + 0.2 * ((b * 3 % 7) as f32 / 6.0);
        let tip = root + Vector3::new(dx * 0.12, h, dz * 0.12);
        for (p, uv) in [
            (root - side, Vector2::new(0.0, 1.0)),
            (root + side, Vector2::new(1.0, 1.0)),
            (tip, Vector2::new(0.5, 0.0)),
        ] {
            verts.push(p);
            normals.push(Vector3::UP);
            uvs.push(uv);
        }
    }
    let mut arrays = VarArray::new();
    arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
    arrays.set(ArrayType::VERTEX.ord() as usize, &verts.to_variant());
    arrays.set(ArrayType::NORMAL.ord() as usize, &normals.to_variant());
    arrays.set(ArrayType::TEX_UV.ord() as usize, &uvs.to_variant());
    let mut m = ArrayMesh::new_gd();
    m.add_surface_from_arrays(PrimitiveType::TRIANGLES, &arrays);
    m
}
