//! `TerrainWater`: the sea and chosen lakes on a terrain. Levels come from `terrain_core::water`
//! (`water_levels`); the surface is drawn by `terrain_water.gdshader` (where: `terrain_water.gdshaderinc`)
//! and the queries answer by the same rule.

use crate::sample_rect::from_rect2i;
use crate::surface::{host_above, world_of};
use crate::water::river_surface;
use godot::classes::image::Format;
use godot::classes::{
    ArrayMesh, Curve3D, INode3D, Image, ImageTexture, Node3D, PlaneMesh, RenderingServer, Shader,
    ShaderMaterial,
};
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::clipmap_data::Frame;
use terrain_core::samples;
use terrain_core::water::{water_levels, Grid, WaterLevels};

mod analysis;
mod drawing;

const DEFAULT_SHADER: &str = "res://addons/wandering_terrain/shaders/terrain_water.gdshader";
const PIXEL_ART_SHADER: &str =
    "res://addons/wandering_terrain/shaders/terrain_water_pixel_art.gdshader";
/// Most samples the water map covers (4 + 4 bytes a sample on the GPU, about 20 while computing).
const MAX_SAMPLES: usize = 2048 * 2048;
/// How far the sea reaches beyond the map, terrain units.
const SEA_MARGIN: f32 = 20_000.0;
/// A dry sample's level in the map (finite: the GPU compares it).
const DRY: f32 = -1e30;

/// What the water map holds, as last computed.
struct WaterMap {
    /// The levels, the sea and the rivers (shared with instances and detail: `water_of`).
    water: Arc<WaterLevels>,
    /// Terrain → world, as of the computation (scales and directions).
    to_world: Transform3D,
    /// Terrain → Godot world, exact (positions; follows an origin shift).
    frame: Frame,
    /// Each water body drawn: its level and its rectangle (terrain X/Z origin and size).
    bodies: Vec<(f32, [f32; 4])>,
    /// Per lake point: its lake's level, NaN when it found none.
    found: Vec<f32>,
}

/// The sea and the lakes of a terrain, drawn and queried alike. A child (or grandchild) of a `TerrainNode`
/// or `WanderingTerrain` over a TerrainData or a region map. The **sea** stands at `sea_level` wherever the
/// map's edge floods up to it (a basin behind a coast whose rim is higher stays dry), and beyond the map.
/// **Lakes** stand at their spill level in the basins holding `lake_points` (world X/Z; take them from
/// `find_lakes`: each lake's `point`, through the terrain's transform). Water is where the ground is below
/// its level: the terrain's own depth hides the surface under ground, and `get_water_height` answers the
/// same, so what you see is what a query says.
///
/// The levels are computed when the node is in the tree and a property changed: at the next frame, or at
/// once when a query (`get_water_height`, `is_underwater`, …) asks first, so a query never answers for
/// water that is not computed yet. `is_up_to_date()` tells, `water_updated` is emitted after each
/// computation. Call `update_water()` after editing the terrain under the water.
///
/// ```gdscript
/// var water := TerrainWater.new()
/// water.sea_level = 2.0
/// var lakes := terrain.terrain_data.find_lakes(Rect2i(), 500.0, 1.0, 2.0)
/// for lake in lakes:
///     water.add_lake_point(lake["point"])   # lake_points.append() would change a copy
/// terrain.add_child(water)
/// if water.is_underwater(player.global_position):
///     swim()
/// ```
#[derive(GodotClass)]
#[class(tool, base=Node3D)]
pub struct TerrainWater {
    /// Whether there is a sea.
    #[export]
    #[var(set = set_sea)]
    sea: bool,
    /// Height of the sea, terrain units (within ±1e9).
    #[export(range = (-1000.0, 1000.0, 0.01, or_greater, or_less))]
    #[var(set = set_sea_level)]
    sea_level: f64,
    /// World X/Z of a point in each lake to fill (the `point` of a `find_lakes` result). A packed array is
    /// copied when read: `lake_points.append(p)` changes that copy, not the water. Call `add_lake_point(p)`,
    /// or assign the whole array (`lake_points = points`).
    #[export]
    #[var(set = set_lake_points)]
    lake_points: PackedVector2Array,
    /// River centre lines in terrain space (as `find_rivers` returns them): a ribbon of water
    /// `river_width` wide at each line's height, flowing downstream (its points run upstream first). Give
    /// each a TerrainPath in MODE_CARVE for its bed. Add one with `add_river(curve)` (or assign the array):
    /// `rivers.append(curve)` on a node in the tree is not noticed until the next change.
    #[export]
    #[var(set = set_rivers)]
    rivers: Array<Option<Gd<Curve3D>>>,
    /// Width of the rivers' water, terrain units (0, 100000]: the bed's width and its banks.
    #[export(range = (0.1, 100.0, 0.1, or_greater))]
    #[var(set = set_river_width)]
    river_width: f64,
    /// How fast the rivers flow, terrain units a second [0, 1000] (`get_flow`, the shader's ripples).
    #[export(range = (0.0, 10.0, 0.01, or_greater))]
    #[var(set = set_river_speed)]
    river_speed: f64,
    /// The samples the water is computed over; empty: the whole TerrainData (at most 2048²; a region map
    /// needs an area).
    #[export]
    #[var(set = set_area)]
    area: Rect2i,
    /// The surface's material; null: the default look (`terrain_water.gdshader`). A custom shader includes
    /// `terrain_water.gdshaderinc` and calls `tw_xz` (vertex) and `tw_here` (fragment) to draw only where the water is.
    #[export]
    #[var(set = set_material)]
    material: Option<Gd<ShaderMaterial>>,
    /// The pixel-art look (`terrain_water_pixel_art.gdshader`: texels banded by distance, stepped depth
    /// colours, dithered foam), to go with a pixel-art terrain, when `material` is null.
    #[export]
    #[var(set = set_pixel_art)]
    pixel_art: bool,

    map: Option<WaterMap>,
    texture: Option<Gd<ImageTexture>>,
    river_meshes: Vec<Gd<ArrayMesh>>,
    default_material: Option<Gd<ShaderMaterial>>,
    plane: Option<Gd<PlaneMesh>>,
    instances: Vec<Rid>,
    /// Each instance's placement in terrain space (basis, origin), to place it anew after a shift.
    locals: Vec<(Basis, [f64; 3])>,
    stale: bool,
    base: Base<Node3D>,
}

#[godot_api]
impl INode3D for TerrainWater {
    fn init(base: Base<Node3D>) -> Self {
        Self {
            sea: true,
            sea_level: 0.0,
            lake_points: PackedVector2Array::new(),
            rivers: Array::new(),
            river_width: 8.0,
            river_speed: 1.0,
            area: Rect2i::default(),
            material: None,
            pixel_art: false,
            map: None,
            texture: None,
            river_meshes: Vec::new(),
            default_material: None,
            plane: None,
            instances: Vec::new(),
            locals: Vec::new(),
            stale: true,
            base,
        }
    }

    fn process(&mut self, _delta: f64) {
        if self.stale {
            self.update_water();
        }
        self.base_mut().set_process(false);
    }

    fn on_notification(&mut self, what: godot::classes::notify::Node3DNotification) {
        use godot::classes::notify::Node3DNotification as N;
        match what {
            N::ENTER_TREE => self.touch(),
            N::EXIT_TREE => self.clear_instances(),
            N::VISIBILITY_CHANGED => {
                let v = self.base().is_visible_in_tree();
                let mut rs = RenderingServer::singleton();
                for &i in &self.instances {
                    rs.instance_set_visible(i, v);
                }
            }
            N::Unknown(crate::surface::NOTIFICATION_ORIGIN_SHIFTED) => self.follow_frame(),
            _ => {}
        }
    }
}

#[godot_api]
impl TerrainWater {
    /// Emitted after the water levels were computed (a property changed, the node entered the tree, or
    /// `update_water()`): queries answer the new water from then on.
    #[signal]
    fn water_updated();

    /// Computes the water levels again from the terrain as it is now and redraws the surface (at once).
    /// False, with an error naming what is missing, off a terrain.
    #[func]
    fn update_water(&mut self) -> bool {
        self.stale = false;
        match self.compute() {
            Ok((map, ground)) => {
                self.map = Some(map);
                self.draw(&ground);
                self.signals().water_updated().emit();
                true
            }
            Err(e) => {
                godot_error!("TerrainWater: {e}");
                self.map = None;
                self.clear_instances();
                false
            }
        }
    }

    /// Height (world Y) of the water surface at world X/Z `pos`; NaN where there is no water (dry ground,
    /// or ground above the level).
    #[func]
    fn get_water_height(&mut self, pos: Vector2) -> f32 {
        self.water_at(pos).map_or(f32::NAN, |(surface, _)| surface)
    }

    /// Whether the water was computed for the node's current properties (false in the tree before the
    /// first computation, and after a property changed until the next frame or query computes it; out
    /// of the tree: whether nothing changed since it was last computed).
    #[func]
    fn is_up_to_date(&self) -> bool {
        !self.stale
    }

    /// Adds a lake at world X/Z `point` (the `point` of a `find_lakes` result) and computes the water
    /// again: what `lake_points.append(point)` cannot do (it changes a copy of the array).
    #[func]
    fn add_lake_point(&mut self, point: Vector2) {
        if !point.is_finite() {
            godot_error!(
                "TerrainWater.add_lake_point: point must be finite, got {point}; nothing added"
            );
            return;
        }
        self.lake_points.push(point);
        self.touch();
    }

    /// Adds a river (a curve in terrain space, as `find_rivers` returns them) and computes the water again.
    #[func]
    fn add_river(&mut self, curve: Option<Gd<Curve3D>>) {
        let Some(c) = curve else {
            godot_error!(
                "TerrainWater.add_river: curve must be a Curve3D, got null; nothing added"
            );
            return;
        };
        self.rivers.push(Some(&c));
        self.touch();
    }

    /// Depth of the water at world X/Z `pos` (world units, surface minus ground); NaN where there is none.
    #[func]
    fn get_water_depth(&mut self, pos: Vector2) -> f32 {
        self.water_at(pos)
            .map_or(f32::NAN, |(surface, ground)| surface - ground)
    }

    /// Whether world point `point` lies below the water surface.
    #[func]
    fn is_underwater(&mut self, point: Vector3) -> bool {
        self.water_at(Vector2::new(point.x, point.z))
            .is_some_and(|(surface, _)| point.y < surface)
    }

    /// Per lake point, its lake's level (terrain units; NaN when the point is dry or in the sea).
    #[func]
    fn get_lake_levels(&mut self) -> PackedFloat32Array {
        self.make_current();
        self.map.as_ref().map_or(PackedFloat32Array::new(), |m| {
            m.found.iter().copied().collect()
        })
    }

    /// Water bodies drawn (the sea and each lake level).
    #[func]
    fn get_body_count(&mut self) -> i64 {
        self.make_current();
        self.instances.len() as i64
    }

    #[func]
    fn set_sea(&mut self, v: bool) {
        self.sea = v;
        self.touch();
    }
    #[func]
    fn set_sea_level(&mut self, v: f64) {
        if !(v.is_finite() && v.abs() <= 1e9) {
            godot_error!(
                "TerrainWater.sea_level must be within ±1e9, got {v}; keeping {}",
                self.sea_level
            );
            return;
        }
        self.sea_level = v;
        self.touch();
    }
    #[func]
    fn set_lake_points(&mut self, v: PackedVector2Array) {
        if let Some((i, p)) = v
            .as_slice()
            .iter()
            .enumerate()
            .find(|(_, p)| !p.is_finite())
        {
            godot_error!("TerrainWater.lake_points[{i}] must be finite, got {p}; keeping the previous points");
            return;
        }
        self.lake_points = v;
        self.touch();
    }
    #[func]
    fn set_pixel_art(&mut self, v: bool) {
        self.pixel_art = v;
        self.default_material = None;
        self.touch();
    }
    #[func]
    fn set_rivers(&mut self, v: Array<Option<Gd<Curve3D>>>) {
        self.rivers = v;
        self.touch();
    }
    #[func]
    fn set_river_width(&mut self, v: f64) {
        if !(v.is_finite() && v > 0.0 && v <= 1e5) {
            godot_error!(
                "TerrainWater.river_width must be in (0, 100000], got {v}; keeping {}",
                self.river_width
            );
            return;
        }
        self.river_width = v;
        self.touch();
    }
    #[func]
    fn set_river_speed(&mut self, v: f64) {
        if !(v.is_finite() && (0.0..=1000.0).contains(&v)) {
            godot_error!(
                "TerrainWater.river_speed must be in [0, 1000], got {v}; keeping {}",
                self.river_speed
            );
            return;
        }
        self.river_speed = v;
        self.touch();
    }

    /// Where the water at world X/Z `pos` flows: world X/Z, `river_speed` long in a river, zero in the sea,
    /// a lake, or on dry ground.
    #[func]
    fn get_flow(&mut self, pos: Vector2) -> Vector2 {
        self.make_current();
        let Some((map, t, ground)) = self.ground_at(pos) else {
            return Vector2::ZERO;
        };
        let (x, z) = (t[0], t[2]);
        match map.water.river_at(x, z) {
            // In a river's water, and the river is the highest water there.
            Some((y, dir)) if f64::from(ground) < y && y as f32 >= map.water.level_at(x, z) => {
                let d = map.to_world.basis * Vector3::new(dir[0] as f32, 0.0, dir[1] as f32);
                Vector2::new(d.x, d.z).normalized_or_zero() * self.river_speed as f32
            }
            _ => Vector2::ZERO,
        }
    }

    #[func]
    fn set_area(&mut self, v: Rect2i) {
        if v.size.x < 0 || v.size.y < 0 {
            godot_error!(
                "TerrainWater.area must have a size ≥ 0, got {v}; keeping {}",
                self.area
            );
            return;
        }
        self.area = v;
        self.touch();
    }
    #[func]
    fn set_material(&mut self, v: Option<Gd<ShaderMaterial>>) {
        self.material = v;
        self.touch();
    }
}

impl TerrainWater {
    fn touch(&mut self) {
        self.stale = true;
        if self.base().is_inside_tree() {
            self.base_mut().set_process(true);
        }
    }

    /// Computes the water now if a change waits for the next frame: a query never answers for water that
    /// is not computed yet (a node just added, a property just set).
    fn make_current(&mut self) {
        if self.stale && self.base().is_inside_tree() {
            self.update_water();
        }
    }
}

#[godot_dyn]
impl crate::surface::TerrainWaterLevels for TerrainWater {
    /// The levels as last computed (what instances and detail on the terrain place themselves by).
    fn water_levels(&self) -> Option<Arc<WaterLevels>> {
        self.map.as_ref().map(|m| m.water.clone())
    }
}
