//! `TerrainInstanceMesh`: what a `TerrainInstancer` draws and collides for one kind of instance, and the
//! rules `scatter` and the instance brush place it by (`terrain_core::instances::Rules`).

use crate::follow::{flags, weak, Links};
use crate::instances::impostor_source::Source;
use crate::instances::terrain_impostor::TerrainImpostor;
use godot::classes::{
    ArrayMesh, CollisionShape3D, Mesh, MeshInstance3D, Node, Node3D, PackedScene, ShaderMaterial,
    Shape3D,
};
use godot::prelude::*;
use terrain_core::instances::Rules;
use terrain_core::placement_rules::{PlacementRules, WaterRule};

/// A mesh placed by a `TerrainInstancer`: its look (LOD meshes with visibility ranges, shadows), its
/// collision shapes, and its placement rules.
///
/// Give either `mesh` (and optionally `lod_meshes`) or a `scene`: the scene's MeshInstance3D nodes, in tree
/// order, are the LODs (a node's `visibility_range_end` ends its LOD when set) and its CollisionShape3D
/// nodes are the collision shapes (their transforms relative to the scene's root kept). Every property
/// refuses values outside its range with an error naming it and keeps the previous value.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainInstanceMesh {
    /// The mesh of the nearest LOD.
    #[export]
    #[export_group(name = "Look")]
    #[var(set = set_mesh)]
    mesh: Option<Gd<Mesh>>,
    /// A scene to take the LOD meshes and collision shapes from (used when `mesh` is empty).
    #[export]
    #[var(set = set_scene)]
    scene: Option<Gd<PackedScene>>,
    /// Coarser meshes: LOD 1, 2… (reassign the array after editing it from a script).
    #[export]
    #[var(set = set_lod_meshes)]
    lod_meshes: Array<Gd<Mesh>>,
    /// Where each LOD ends, in world units from the camera (increasing); a LOD without an entry ends at
    /// `visibility_range`.
    #[export]
    #[var(set = set_lod_distances)]
    lod_distances: PackedFloat32Array,
    /// Distance beyond which no instance of this mesh is drawn, nor kept on the GPU, (0, 100000].
    #[export(range = (1.0, 4096.0, 1.0, or_greater))]
    #[var(set = set_visibility_range)]
    visibility_range: f64,
    /// Width of the cross-fade between LODs and at the end of the range (0: switch at once), [0, 1000].
    #[export(range = (0.0, 64.0, 0.5, or_greater))]
    #[var(set = set_fade_margin)]
    fade_margin: f64,
    /// Shadow casting (GeometryInstance3D.ShadowCastingSetting).
    #[export(enum = (Off = 0, On = 1, DoubleSided = 2, ShadowsOnly = 3))]
    #[var(set = set_cast_shadow)]
    cast_shadow: i64,
    /// The baked octahedral impostor drawn beyond `impostor_distance` (up to `visibility_range`), in far
    /// cells of many instance cells each. Make it with `bake_impostor()` or the inspector's Bake button;
    /// it is baked again when the mesh, scene or their materials change.
    #[export]
    #[export_group(name = "Impostor")]
    #[var(set = set_impostor)]
    impostor: Option<Gd<TerrainImpostor>>,
    /// Where the meshes hand over to the impostor (world units from the camera to an instance cell's
    /// centre), (0, 100000]; the LODs end there (a longer `visibility_range` is the impostors' reach).
    /// Cross-fades over `fade_margin`.
    #[export(range = (1.0, 2048.0, 1.0, or_greater))]
    #[var(set = set_impostor_distance)]
    impostor_distance: f64,
    /// A collision shape for every instance near the instancer's target (with `collision_transform`); the
    /// scene's shapes are used when it is empty.
    #[export]
    #[export_group(name = "Collision")]
    collision_shape: Option<Gd<Shape3D>>,
    /// Where `collision_shape` sits on the instance (before the instance's scale and rotation).
    #[export]
    collision_transform: Transform3D,

    /// Instances per square world unit that painting fills an area up to, [0, 100].
    #[export(range = (0.0, 1.0, 0.0001, or_greater))]
    #[export_group(name = "Placement")]
    #[var(set = set_density)]
    density: f64,
    /// Smallest random scale, (0, scale_max].
    #[export(range = (0.01, 10.0, 0.01, or_greater))]
    #[var(set = set_scale_min)]
    scale_min: f64,
    /// Largest random scale, [scale_min, 1000].
    #[export(range = (0.01, 10.0, 0.01, or_greater))]
    #[var(set = set_scale_max)]
    scale_max: f64,
    /// A random turn about the up axis.
    #[export]
    random_yaw: bool,
    /// Stand the mesh on the ground by its lowest point: each instance is lifted by how far the mesh
    /// reaches below its origin (times its scale). For meshes centred on their origin, like Godot's
    /// BoxMesh or CylinderMesh, which otherwise sink halfway in. Off: the origin sits on the ground (for
    /// meshes modelled with their base at the origin, like most trees). Taken when instances are placed.
    #[export]
    sit_on_ground: bool,
    /// 0: upright; 1: along the ground's normal.
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_align_to_normal)]
    align_to_normal: f64,
    /// Height above the ground (kept through edits), [-1e5, 1e5].
    #[export]
    #[var(set = set_height_offset)]
    height_offset: f64,
    /// Flattest ground allowed, degrees, [0, slope_max].
    #[export(range = (0.0, 90.0, 0.1))]
    #[var(set = set_slope_min)]
    slope_min: f64,
    /// Steepest ground allowed, degrees, [slope_min, 90].
    #[export(range = (0.0, 90.0, 0.1))]
    #[var(set = set_slope_max)]
    slope_max: f64,
    /// Where it stands with respect to a TerrainWater on the terrain: WATER_AVOID (dry ground only, the
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
    /// Texture layers (indices into the terrain's TerrainMaterial) it may stand on; empty: any ground. A
    /// point passes with the probability of those layers' weight there (`get_layer_weights`).
    #[export]
    layers: PackedInt32Array,
    impostor_links: Links,
    /// Counts changes: an instancer asked to update now re-reads a mesh whose count moved (its
    /// `changed` handler runs deferred, after a script's next lines).
    revision: u64,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainInstanceMesh {
    fn init(base: Base<Resource>) -> Self {
        let r = Rules::default();
        Self {
            mesh: None,
            scene: None,
            lod_meshes: Array::new(),
            lod_distances: PackedFloat32Array::new(),
            visibility_range: 256.0,
            fade_margin: 0.0,
            cast_shadow: 1,
            impostor: None,
            impostor_distance: 200.0,
            impostor_links: Links::default(),
            revision: 0,
            collision_shape: None,
            collision_transform: Transform3D::IDENTITY,
            density: r.density,
            scale_min: f64::from(r.placement.scale[0]),
            scale_max: f64::from(r.placement.scale[1]),
            random_yaw: r.random_yaw,
            sit_on_ground: false,
            align_to_normal: f64::from(r.placement.align),
            height_offset: f64::from(r.placement.offset),
            slope_min: f64::from(r.placement.slope[0]),
            slope_max: f64::from(r.placement.slope[1]),
            water_placement: 0,
            water_depth_min: f64::from(r.placement.water_depth[0]),
            water_depth_max: f64::from(r.placement.water_depth[1]),
            layers: PackedInt32Array::new(),
            base,
        }
    }
}

/// One LOD as drawn: its mesh and its visibility range (world units).
#[derive(Clone)]
pub struct Lod {
    pub mesh: Gd<Mesh>,
    pub begin: f32,
    pub end: f32,
}

/// The impostor as the far cells draw it.
#[derive(Clone)]
pub struct ResolvedImpostor {
    /// The card (its surface material draws this mesh's impostor).
    pub card: Gd<ArrayMesh>,
    pub material: Gd<ShaderMaterial>,
    /// Where it starts (world units).
    pub distance: f32,
    /// The LOD 0 mesh's farthest point from its origin (cell bounds grow by it).
    pub reach: f32,
}

/// What the instancer needs of a mesh, resolved once per change.
#[derive(Clone, Default)]
pub struct Resolved {
    pub impostor: Option<ResolvedImpostor>,
    pub lods: Vec<Lod>,
    pub shapes: Vec<(Gd<Shape3D>, Transform3D)>,
    /// The LOD 0 mesh's box (instance bounds grow by it).
    pub aabb: Aabb,
    pub range: f32,
    pub fade: f32,
    pub shadow: i64,
}

impl Resolved {
    /// How far instance cells of this mesh are kept (the impostors take over beyond).
    pub fn near_range(&self) -> f32 {
        match &self.impostor {
            Some(i) => self.range.min(i.distance + self.fade),
            None => self.range,
        }
    }
}

#[godot_api]
impl TerrainInstanceMesh {
    #[func]
    fn set_mesh(&mut self, v: Option<Gd<Mesh>>) {
        self.mesh = v;
        self.rebake_if_stale();
        self.changed();
    }
    #[func]
    fn set_scene(&mut self, v: Option<Gd<PackedScene>>) {
        self.scene = v;
        self.rebake_if_stale();
        self.changed();
    }
    #[func]
    fn set_lod_meshes(&mut self, v: Array<Gd<Mesh>>) {
        self.lod_meshes = v;
        self.changed();
    }
    #[func]
    fn set_lod_distances(&mut self, v: PackedFloat32Array) {
        let s = v.as_slice();
        if s.iter().any(|d| !(d.is_finite() && *d > 0.0)) || s.windows(2).any(|w| w[0] >= w[1]) {
            godot_error!(
                "TerrainInstanceMesh.lod_distances must be increasing values > 0, got {v}"
            );
            return;
        }
        self.lod_distances = v;
        self.changed();
    }
    #[func]
    fn set_visibility_range(&mut self, v: f64) {
        if !(v > 0.0 && v <= 1e5) {
            godot_error!("TerrainInstanceMesh.visibility_range must be in (0, 100000], got {v}");
            return;
        }
        self.visibility_range = v;
        self.changed();
    }
    #[func]
    fn set_fade_margin(&mut self, v: f64) {
        if !(0.0..=1000.0).contains(&v) {
            godot_error!("TerrainInstanceMesh.fade_margin must be in [0, 1000], got {v}");
            return;
        }
        self.fade_margin = v;
        self.changed();
    }
    #[func]
    fn set_cast_shadow(&mut self, v: i64) {
        if !(0..=3).contains(&v) {
            godot_error!("TerrainInstanceMesh.cast_shadow must be in [0, 3], got {v}");
            return;
        }
        self.cast_shadow = v;
        self.changed();
    }
    #[func]
    fn set_impostor(&mut self, v: Option<Gd<TerrainImpostor>>) {
        let me = self.to_gd();
        self.impostor_links.replace(v.iter().map(|i| {
            // Deferred: a bake started from this resource emits while it is borrowed.
            i.signals()
                .changed()
                .builder()
                .flags(flags(true))
                .connect(weak(&me, Self::changed))
        }));
        self.impostor = v;
        self.changed();
    }
    #[func]
    fn set_impostor_distance(&mut self, v: f64) {
        if !(v > 0.0 && v <= 1e5) {
            godot_error!(
                "TerrainInstanceMesh.impostor_distance must be in (0, 100000], got {v}; keeping {}",
                self.impostor_distance
            );
            return;
        }
        self.impostor_distance = v;
        self.changed();
    }

    /// Bakes `impostor` on a thread (making a TerrainImpostor when there is none, set here at once):
    /// `impostor.get_bake_progress()`, and `impostor.poll_bake()` each frame installs it (emitting
    /// `bake_finished`). False when it cannot start (the error says why).
    #[func]
    fn bake_impostor_async(&mut self) -> bool {
        let src = match self.impostor_source() {
            Ok(s) => s,
            Err(e) => {
                godot_error!(
                    "TerrainInstanceMesh.bake_impostor_async: {e}; keeping the last atlas"
                );
                return false;
            }
        };
        let mut imp = self
            .impostor
            .clone()
            .unwrap_or_else(TerrainImpostor::new_gd);
        if !imp.bind_mut().bake_source_async(&src) {
            return false;
        }
        if self.impostor.as_ref() != Some(&imp) {
            self.set_impostor(Some(imp));
        }
        true
    }

    /// Bakes `impostor` from this mesh now (making a TerrainImpostor when there is none). On an error (no
    /// mesh, a scene without a MeshInstance3D, nothing to bake) it says why and keeps the last atlas.
    /// Returns whether the atlas was replaced.
    #[func]
    fn bake_impostor(&mut self) -> bool {
        let mut imp = match &self.impostor {
            Some(i) => i.clone(),
            None => TerrainImpostor::new_gd(),
        };
        let src = match self.impostor_source() {
            Ok(s) => s,
            Err(e) => {
                godot_error!("TerrainInstanceMesh.bake_impostor: {e}; keeping the last atlas");
                return false;
            }
        };
        let ok = imp.bind_mut().bake_source(&src);
        if ok && self.impostor.as_ref() != Some(&imp) {
            self.set_impostor(Some(imp));
        } else if ok {
            self.changed();
        }
        ok
    }

    #[func]
    fn set_density(&mut self, v: f64) {
        self.set_rule("density", |r| r.density = v);
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
            godot_error!("TerrainInstanceMesh.water_placement must be WATER_AVOID, WATER_ANY or WATER_ONLY (0..2), got {v}; keeping {}", self.water_placement);
            return;
        }
        self.water_placement = v;
        self.changed();
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
}

impl TerrainInstanceMesh {
    /// A change: counted, and `changed` emitted.
    fn changed(&mut self) {
        self.revision += 1;
        self.base_mut().emit_changed();
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The placement rules as the core takes them.
    pub fn rules(&self) -> Rules {
        Rules {
            density: self.density,
            random_yaw: self.random_yaw,
            lift: if self.sit_on_ground {
                self.mesh
                    .as_ref()
                    .map(|m| -m.get_aabb().position.y)
                    .filter(|v| v.is_finite())
                    .map_or(0.0, |v| v.clamp(-1e5, 1e5))
            } else {
                0.0
            },
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

    pub fn allowed_layers(&self) -> Vec<usize> {
        self.layers
            .as_slice()
            .iter()
            .filter(|&&l| l >= 0)
            .map(|&l| l as usize)
            .collect()
    }

    /// Applies a change to the rules if they stay valid.
    fn set_rule(&mut self, name: &str, change: impl FnOnce(&mut Rules)) {
        let mut r = self.rules();
        change(&mut r);
        if let Err(e) = r.check() {
            godot_error!("TerrainInstanceMesh.{name}: {e}; keeping the previous value");
            return;
        }
        self.density = r.density;
        let p = r.placement;
        (self.scale_min, self.scale_max) = (f64::from(p.scale[0]), f64::from(p.scale[1]));
        self.align_to_normal = f64::from(p.align);
        self.height_offset = f64::from(p.offset);
        (self.slope_min, self.slope_max) = (f64::from(p.slope[0]), f64::from(p.slope[1]));
        (self.water_depth_min, self.water_depth_max) =
            (f64::from(p.water_depth[0]), f64::from(p.water_depth[1]));
        self.changed();
    }

    /// What an impostor is baked from: `mesh`, else the scene's first MeshInstance3D.
    pub fn impostor_source(&self) -> Result<Source, String> {
        if let Some(m) = &self.mesh {
            return Ok(Source::of_mesh(m.clone()));
        }
        match &self.scene {
            Some(sc) => Source::of_scene(sc),
            None => Err("TerrainInstanceMesh has neither a mesh nor a scene".into()),
        }
    }

    /// Bakes the impostor again when what it was baked from changed (mesh, scene, materials, layout).
    fn rebake_if_stale(&self) {
        if let (Some(imp), Ok(src)) = (&self.impostor, self.impostor_source()) {
            rebake_if_stale(imp.clone(), &src);
        }
    }

    /// The impostor as drawn, when baked (its source gathered once: a scene is instantiated for it).
    fn resolve_impostor(&self) -> Option<ResolvedImpostor> {
        let imp = self.impostor.clone()?;
        let src = self.impostor_source().ok();
        if let Some(src) = &src {
            rebake_if_stale(imp.clone(), src);
        }
        let imp = imp.bind();
        let card = imp.make_card_mesh()?;
        let material = card
            .surface_get_material(0)?
            .try_cast::<ShaderMaterial>()
            .ok()?;
        let reach = src.map_or(imp.radius() * 2.0, |s| {
            let a = s.transform * s.mesh.get_aabb();
            let (lo, hi) = (a.position, a.end());
            let far = |l: f32, h: f32| l.abs().max(h.abs());
            Vector3::new(far(lo.x, hi.x), far(lo.y, hi.y), far(lo.z, hi.z)).length()
        });
        Some(ResolvedImpostor {
            card,
            material,
            distance: self.impostor_distance.min(self.visibility_range) as f32,
            reach,
        })
    }

    /// The LODs, shapes and bounds to draw and collide with.
    pub fn resolve(&self) -> Resolved {
        let mut out = Resolved {
            impostor: self.resolve_impostor(),
            range: self.visibility_range as f32,
            fade: self.fade_margin as f32,
            shadow: self.cast_shadow,
            ..Resolved::default()
        };
        let mut meshes: Vec<(Gd<Mesh>, Option<f32>)> = Vec::new();
        if let Some(m) = &self.mesh {
            meshes.push((m.clone(), None));
            meshes.extend(self.lod_meshes.iter_shared().map(|m| (m, None)));
        }
        if let Some(sh) = &self.collision_shape {
            out.shapes.push((sh.clone(), self.collision_transform));
        }
        if let Some(scene) = self.scene.as_ref().and_then(|s| s.instantiate()) {
            if meshes.is_empty() || out.shapes.is_empty() {
                let (m, s) = scene_parts(&scene);
                if meshes.is_empty() {
                    meshes = m;
                }
                if out.shapes.is_empty() {
                    out.shapes = s;
                }
            }
            scene.free();
        }
        let dist = self.lod_distances.as_slice();
        // With an impostor the meshes end where it starts.
        let last = out.impostor.as_ref().map_or(out.range, |i| i.distance);
        let mut begin = 0.0f32;
        for (i, (mesh, end)) in meshes.into_iter().enumerate() {
            if begin >= last {
                break;
            }
            let end = end
                .or_else(|| dist.get(i).copied())
                .unwrap_or(last)
                .min(last);
            if i == 0 {
                out.aabb = mesh.get_aabb();
            }
            out.lods.push(Lod { mesh, begin, end });
            begin = end;
        }
        if let Some(l) = out.lods.last_mut() {
            l.end = last;
        }
        out
    }
}

/// Bakes `imp` again when what it was baked from (`src`, the layout) changed since.
fn rebake_if_stale(mut imp: Gd<TerrainImpostor>, src: &Source) {
    let stale = {
        let b = imp.bind();
        b.is_baked() && b.hash_of(src) != b.source_hash()
    };
    if stale {
        imp.bind_mut().bake_source(src);
    }
}

/// The MeshInstance3D meshes (with their visibility_range_end when set) and the collision shapes (with
/// their transforms relative to `root`) of an instantiated scene, in tree order.
type SceneParts = (
    Vec<(Gd<Mesh>, Option<f32>)>,
    Vec<(Gd<Shape3D>, Transform3D)>,
);

fn scene_parts(root: &Gd<Node>) -> SceneParts {
    let mut meshes = Vec::new();
    let mut shapes = Vec::new();
    let mut stack = vec![(root.clone(), Transform3D::IDENTITY)];
    while let Some((n, parent)) = stack.pop() {
        let here = match n.clone().try_cast::<Node3D>() {
            Ok(n3) if n3.clone().upcast::<Node>() != *root => parent * n3.get_transform(),
            _ => parent,
        };
        if let Ok(mi) = n.clone().try_cast::<MeshInstance3D>() {
            if let Some(m) = mi.get_mesh() {
                let end = mi.get_visibility_range_end();
                meshes.push((m, (end > 0.0).then_some(end)));
            }
        }
        if let Ok(cs) = n.clone().try_cast::<CollisionShape3D>() {
            if let Some(s) = cs.get_shape() {
                shapes.push((s, here));
            }
        }
        let kids: Vec<Gd<Node>> = n.get_children().iter_shared().collect();
        for k in kids.into_iter().rev() {
            stack.push((k, here));
        }
    }
    (meshes, shapes)
}
