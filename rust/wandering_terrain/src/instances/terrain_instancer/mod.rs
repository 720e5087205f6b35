//! `TerrainInstancer`: trees, rocks and props placed on its parent terrain (store, rules and cell
//! buffers in `terrain_core::instances`; the servers' side in `instance_cells`).

use crate::instances::detail_cells::Detail;
mod brush;
mod detail;

use crate::follow::{active_camera, flags, weak, weak_with, Links};
use crate::instances::instance_cells::{body_current, Cells, View};
use crate::instances::terrain_detail_layer::TerrainDetailLayer;
use crate::instances::terrain_instance_mesh::{Resolved, TerrainInstanceMesh};
use crate::instances::terrain_instances::TerrainInstances;
use crate::object_array::objects_of;
use crate::surface::{host_of, TerrainSurface};
use godot::classes::{INode3D, Node, Node3D};
use godot::prelude::*;
use terrain_core::clipmap_data::Frame;
use terrain_core::instances::{
    self, draw_cell, scatter, Area, CellDraw, CellKey, InstanceStore, InstanceStream, Placement,
};
use terrain_core::material::layer_weights;
use terrain_core::samples::Samples;

/// Cells asked of the workers at most at once.
const IN_FLIGHT: usize = 64;
/// Cells per worker job.
const JOB_CELLS: usize = 8;
/// Instances of edited, shown cells recomputed on the main thread in the frame after an edit (the rest
/// go to the workers): about a millisecond.
const EDIT_NOW: usize = 20_000;
/// Main-thread time a frame hands finished cells' buffers to the RenderingServer (at least one cell).
const SHOW_BUDGET: std::time::Duration = std::time::Duration::from_micros(500);

/// Trees, rocks and props on the parent `TerrainNode` or `WanderingTerrain`, in the thousands to
/// millions: stored 32 bytes each in `instances` (cells of the terrain), drawn through `RenderingServer`
/// MultiMeshes (one per cell, mesh and LOD; only cells within a mesh's `visibility_range` of the camera
/// exist on the GPU) and, for meshes with collision shapes, collided through `PhysicsServer3D` bodies for
/// the cells within `collision_radius` of the terrain's target.
///
/// Instances keep their height above the ground: every edit of the terrain (brushes, region writes,
/// import, generation, undo) moves them with it by the next frames; over a hole they are neither drawn
/// nor collided, and they come back when it is filled. Positions and areas are world X/Z.
#[derive(GodotClass)]
#[class(tool, base=Node3D)]
pub struct TerrainInstancer {
    /// The kinds of instance (index = `mesh_index`; an empty slot places nothing). Reassign the array after
    /// editing it from a script; a plain `[...]` of TerrainInstanceMesh resources is taken too.
    #[export]
    #[var(set = set_meshes)]
    meshes: Array<Option<Gd<TerrainInstanceMesh>>>,
    /// Where the instances are stored (made when empty; save it as its own `.res` to keep the scene small).
    #[export]
    #[var(set = set_instances, get = get_instances_resource)]
    instances: Option<Gd<TerrainInstances>>,
    /// Instances of meshes with collision shapes get bodies within this distance of the terrain's target
    /// (cells overlapping it), [0, 100000]; 0: no collision.
    #[export(range = (0.0, 512.0, 1.0, or_greater))]
    #[export_group(name = "Collision")]
    #[var(set = set_collision_radius)]
    collision_radius: f64,
    /// Physics layers of the instances' bodies.
    #[export(flags_3d_physics)]
    #[var(set = set_collision_layer)]
    collision_layer: u32,
    /// Physics layers the instances' bodies scan.
    #[export(flags_3d_physics)]
    #[var(set = set_collision_mask)]
    collision_mask: u32,
    /// Grass, flowers and pebbles grown by rules around the camera (nothing stored; see
    /// TerrainDetailLayer; an empty slot grows nothing). Reassign the array after editing it from a script;
    /// a plain `[...]` of TerrainDetailLayer resources is taken too.
    #[export]
    #[export_group(name = "Detail")]
    #[var(set = set_detail_layers)]
    detail_layers: Array<Option<Gd<TerrainDetailLayer>>>,

    resolved: Vec<Resolved>,
    cells: Cells,
    detail: Detail,
    /// The detail layers must be resolved again (changed layers, surface, terrain transform).
    detail_stale: bool,
    /// Identity of the water the detail layers were resolved with.
    detail_water: Option<usize>,
    /// The terrain material the detail layers were resolved with (its blending and tints).
    detail_material: Option<InstanceId>,
    stream: InstanceStream,
    surface_key: Option<usize>,
    /// Terrain space → Godot world the cells are placed with (exact: f64).
    frame: Frame,
    /// The TerrainData whose edits this instancer follows.
    followed: Option<crate::data::edit_target::EditTarget>,
    /// Cells whose stamp must move on (edited) before the next request.
    ready: Vec<CellDraw>,
    dab_count: u64,
    /// Something changed (an edit, a reset): the cells wanted are chosen again.
    dirty: bool,
    /// The cells of the viewer and the target at the last look (a frame that keeps both skips it).
    last_view: Option<(CellKey, CellKey)>,
    /// Results came back or not everything could be asked: ask and collide again next frame.
    pending: bool,
    /// Main-thread time spent in frame updates so far (µs), for benches: all, showing results, choosing
    /// cells, asking, colliding, detail.
    work_usec: [u64; 8],
    /// The connections to the meshes, the detail layers (and the terrain material their rules read),
    /// the instances resource and the followed terrain resource (`follow::Links`).
    mesh_links: Links,
    detail_links: Links,
    detail_material_links: Links,
    instances_links: Links,
    followed_links: Links,
    base: Base<Node3D>,
}

#[godot_api]
impl INode3D for TerrainInstancer {
    /// A plain `[...]` set on `meshes` or `detail_layers` through an untyped reference (`$Path.meshes =
    /// [m]`): converted here, as the typed setters take only typed arrays; a wrong element is refused by
    /// name. Everything else goes the usual way.
    fn on_set(&mut self, property: StringName, value: Variant) -> bool {
        let Ok(plain) = value.try_to::<VarArray>() else {
            return false;
        };
        if property == "meshes" {
            if let Some(a) = objects_of::<TerrainInstanceMesh>("TerrainInstancer.meshes", &plain) {
                self.set_meshes(a);
            }
            return true;
        }
        if property == "detail_layers" {
            let who = "TerrainInstancer.detail_layers";
            if let Some(a) = objects_of::<TerrainDetailLayer>(who, &plain) {
                self.set_detail_layers(a);
            }
            return true;
        }
        false
    }

    fn init(base: Base<Node3D>) -> Self {
        Self {
            meshes: Array::new(),
            instances: None,
            collision_radius: 64.0,
            collision_layer: 1,
            collision_mask: 1,
            detail_layers: Array::new(),
            resolved: Vec::new(),
            cells: Cells::default(),
            detail: Detail::default(),
            detail_stale: true,
            detail_water: None,
            detail_material: None,
            stream: InstanceStream::default(),
            surface_key: None,
            frame: Frame::default(),
            followed: None,
            ready: Vec::new(),
            dab_count: 0,
            dirty: true,
            last_view: None,
            pending: false,
            work_usec: [0; 8],
            mesh_links: Links::default(),
            detail_links: Links::default(),
            detail_material_links: Links::default(),
            instances_links: Links::default(),
            followed_links: Links::default(),
            base,
        }
    }

    fn ready(&mut self) {
        self.base_mut().set_process(true);
    }

    fn process(&mut self, _delta: f64) {
        let t0 = std::time::Instant::now();
        self.update(false);
        self.work_usec[0] += t0.elapsed().as_micros() as u64;
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        self.check_setup()
    }

    fn on_notification(&mut self, what: godot::classes::notify::Node3DNotification) {
        use godot::classes::notify::Node3DNotification as N;
        match what {
            N::ENTER_TREE => {
                if self.instances.is_none() {
                    self.set_instances(Some(TerrainInstances::new_gd()));
                }
                self.resolve_meshes();
                self.reset();
            }
            N::EXIT_TREE => {
                self.follow(None);
                self.cells.clear();
                self.detail.clear();
                self.detail_stale = true;
                self.surface_key = None;
            }
            N::VISIBILITY_CHANGED => {
                let v = self.base().is_visible_in_tree();
                self.cells.set_visible(v);
                self.detail.set_visible(v);
            }
            // The terrain shifted its origin: the cells move in this frame (not the next).
            N::Unknown(crate::surface::NOTIFICATION_ORIGIN_SHIFTED) => {
                if let Some(host) = self.host() {
                    if host.frame != self.frame && host.key() == self.surface_key {
                        self.follow_frame(&host);
                    }
                }
            }
            _ => {}
        }
    }
}

#[godot_api]
impl TerrainInstancer {
    /// What keeps the instancer from working (the editor shows it as configuration warnings).
    #[func]
    pub(crate) fn check_setup(&self) -> PackedStringArray {
        let mut out = PackedStringArray::new();
        let Some(host) = self.host() else {
            out.push("TerrainInstancer must be a child of a TerrainNode or a WanderingTerrain.");
            return out;
        };
        let layer_count = host.material.as_ref().map(|m| m.bind().layer_count());
        for m in self.layer_rule_problems(layer_count) {
            out.push(&m);
        }
        out
    }

    #[func]
    fn set_meshes(&mut self, meshes: Array<Option<Gd<TerrainInstanceMesh>>>) {
        let me = self.to_gd();
        self.mesh_links
            .replace(meshes.iter_shared().flatten().map(|m| {
                m.signals()
                    .changed()
                    .builder()
                    .flags(flags(true))
                    .connect(weak(&me, Self::on_meshes_changed))
            }));
        self.meshes = meshes;
        self.on_meshes_changed();
    }

    /// A mesh changed (its look, shapes or rules): every shown cell is drawn again.
    fn on_meshes_changed(&mut self) {
        self.resolve_meshes();
        self.reset();
    }

    #[func]
    fn set_detail_layers(&mut self, layers: Array<Option<Gd<TerrainDetailLayer>>>) {
        let me = self.to_gd();
        self.detail_links
            .replace(layers.iter_shared().flatten().map(|l| {
                l.signals()
                    .changed()
                    .builder()
                    .flags(flags(true))
                    .connect(weak(&me, Self::on_detail_changed))
            }));
        self.detail_layers = layers;
        self.on_detail_changed();
    }

    #[func]
    fn set_instances(&mut self, instances: Option<Gd<TerrainInstances>>) {
        let me = self.to_gd();
        self.instances_links.replace(instances.iter().map(|i| {
            i.signals()
                .changed()
                .connect(weak(&me, Self::on_instances_changed))
        }));
        self.instances = instances;
        self.reset();
    }

    #[func]
    fn get_instances_resource(&self) -> Option<Gd<TerrainInstances>> {
        self.instances.clone()
    }

    /// The instances resource was replaced from outside (its data or cell size set): drawn again.
    fn on_instances_changed(&mut self) {
        self.reset();
    }

    #[func]
    fn set_collision_radius(&mut self, v: f64) {
        if !(0.0..=1e5).contains(&v) {
            godot_error!(
                "TerrainInstancer.collision_radius must be in [0, 100000], got {v}; keeping {}",
                self.collision_radius
            );
            return;
        }
        self.collision_radius = v;
        self.dirty = true;
    }
    #[func]
    fn set_collision_layer(&mut self, v: u32) {
        self.collision_layer = v;
        self.reset();
    }
    #[func]
    fn set_collision_mask(&mut self, v: u32) {
        self.collision_mask = v;
        self.reset();
    }

    /// Adds instances of `mesh_index` at world transforms (their height above the ground is kept from then
    /// on). Transforms outside the terrain are skipped. Returns how many were added.
    #[func]
    fn add_instances(&mut self, mesh_index: i64, transforms: Array<Transform3D>) -> i64 {
        let Some(mesh) = self.mesh_arg("add_instances", mesh_index, false).flatten() else {
            return 0;
        };
        let Some(host) = self.host_or_error("add_instances") else {
            return 0;
        };
        let ps: Vec<Placement> = transforms
            .iter_shared()
            .map(|t| {
                let (basis, pos) = host.terrain_transform(t);
                let q = basis.orthonormalized().get_quaternion();
                let s = basis.get_scale();
                Placement {
                    pos,
                    rot: glam::Quat::from_xyzw(q.x, q.y, q.z, q.w),
                    scale: [s.x, s.y, s.z],
                }
            })
            .collect();
        self.add_placements(&host, mesh, &ps) as i64
    }

    /// Removes the instances of `mesh_index` (-1: every mesh) inside the world X/Z `area`. Returns how many.
    #[func]
    fn remove_instances(&mut self, mesh_index: i64, area: Rect2) -> i64 {
        let (Some(mesh), Some(host)) = (
            self.mesh_arg("remove_instances", mesh_index, true),
            self.host_or_error("remove_instances"),
        ) else {
            return 0;
        };
        let Some(area) = area_arg("remove_instances", area, &host) else {
            return 0;
        };
        let (n, cells) = self.with_store(|s| s.remove(mesh, area));
        self.touch(&cells);
        n as i64
    }

    /// World transforms of the instances of `mesh_index` inside the world X/Z `area`, standing on the
    /// ground as it is now (instances over holes included: they are kept, only not drawn).
    #[func]
    fn get_instances(&self, mesh_index: i64, area: Rect2) -> Array<Transform3D> {
        let mut out = Array::new();
        let (Some(mesh), Some(host)) = (
            self.mesh_arg("get_instances", mesh_index, false).flatten(),
            self.host_or_error("get_instances"),
        ) else {
            return out;
        };
        let Some(area) = area_arg("get_instances", area, &host) else {
            return out;
        };
        let Some(res) = self.instances.as_ref() else {
            return out;
        };
        let res = res.bind();
        with_samples(&host, |s| {
            res.store().for_each_in(mesh, area, &mut |x, z, i| {
                let g = instances::ground_of(s, x, z).unwrap_or(f32::NAN);
                let b = i.basis();
                let basis = Basis::from_cols(
                    Vector3::from_array(b.x_axis.to_array()),
                    Vector3::from_array(b.y_axis.to_array()),
                    Vector3::from_array(b.z_axis.to_array()),
                );
                let y = f64::from(g + i.offset);
                out.push(host.world_transform(basis, [x, y, z]));
            });
        });
        out
    }

    /// Instances of `mesh_index` (-1: every mesh) stored, drawn or not.
    #[func]
    fn get_instance_count(&self, mesh_index: i64) -> i64 {
        let Some(res) = self.instances.as_ref() else {
            return 0;
        };
        let s = res.bind();
        match usize::try_from(mesh_index) {
            Ok(m) => s.store().count(m) as i64,
            Err(_) => s.store().total() as i64,
        }
    }

    /// Places `count` instances of `mesh_index` at random points of the world X/Z `area` that pass the
    /// mesh's rules (on the terrain, slope, layers, no holes), with its scale, yaw, alignment and offset.
    /// Points that fail are skipped and others drawn, up to 4 × `count` points in all, so where most of the
    /// area is refused (off a finite terrain, too steep) fewer are placed: the return is how many were.
    /// Deterministic: the same seed and terrain give the same transforms on
    /// every machine. Instances already there stay, so a second call adds more; with `replace` true the
    /// mesh's instances inside `area` are removed first, so the same call gives the same instances however
    /// often it runs (a `scatter` in `_ready`).
    #[func]
    fn scatter(
        &mut self,
        mesh_index: i64,
        area: Rect2,
        count: i64,
        seed: i64,
        #[opt(default = false)] replace: bool,
    ) -> i64 {
        let (Some(mesh), Some(host)) = (
            self.mesh_arg("scatter", mesh_index, false).flatten(),
            self.host_or_error("scatter"),
        ) else {
            return 0;
        };
        let Some(area) = area_arg("scatter", area, &host) else {
            return 0;
        };
        if !(0..=10_000_000).contains(&count) {
            godot_error!("TerrainInstancer.scatter: count must be in [0, 10000000], got {count}");
            return 0;
        }
        if replace {
            let (_, cells) = self.with_store(|s| s.remove(Some(mesh), area));
            self.touch(&cells);
        }
        let (rules, layers) = self.rules_of(mesh);
        let water = self.water();
        let ps = with_samples(&host, |s| {
            let allowed = water_rule(layer_rule(&host, s, &layers), water, rules.placement, s);
            scatter(&rules, s, area, count as usize, seed as u64, &allowed)
        });
        self.add_placements(&host, mesh, &ps) as i64
    }

    /// Keys of the cells (stored or empty) overlapping the world X/Z `area` (at most 65536): the units of
    /// `get_cells_data` / `set_cells_data`, as the editor's undo keeps them.
    #[func]
    fn get_cell_keys(&self, area: Rect2) -> Array<Vector2i> {
        let host = self.host_or_error("get_cell_keys");
        let (Some(area), Some(res)) = (
            host.and_then(|h| area_arg("get_cell_keys", area, &h)),
            self.instances.as_ref(),
        ) else {
            return Array::new();
        };
        match res.bind().store().keys_over(area, 65536) {
            Some(keys) => keys.into_iter().map(|(x, z)| Vector2i::new(x, z)).collect(),
            None => {
                godot_error!("TerrainInstancer.get_cell_keys: area covers more than 65536 cells");
                Array::new()
            }
        }
    }

    /// The instances of cells `keys` (TerrainInstances' byte format).
    #[func]
    fn get_cells_data(&self, keys: Array<Vector2i>) -> PackedByteArray {
        let Some(res) = self.instances.as_ref() else {
            return PackedByteArray::new();
        };
        let keys: Vec<CellKey> = keys.iter_shared().map(|k| (k.x, k.y)).collect();
        PackedByteArray::from(res.bind().store().extract_cells(&keys).to_bytes())
    }

    /// Cells `keys` get the instances of `data` (from `get_cells_data`; cells absent there become empty).
    #[func]
    fn set_cells_data(&mut self, keys: Array<Vector2i>, data: PackedByteArray) {
        let other = match InstanceStore::from_bytes(data.as_slice()) {
            Ok(o) => o,
            Err(e) => {
                godot_error!("TerrainInstancer.set_cells_data: {e}");
                return;
            }
        };
        let keys: Vec<CellKey> = keys.iter_shared().map(|k| (k.x, k.y)).collect();
        let same = self.with_store(|s| {
            let ok = s.cell_size() == other.cell_size();
            if ok {
                s.replace_cells(&keys, &other);
            }
            ok
        });
        if !same {
            godot_error!("TerrainInstancer.set_cells_data: data has another cell size");
            return;
        }
        // Cells not shown yet are picked up by the next look at the view.
        self.touch(&keys);
        self.dirty = true;
    }

    /// Brings what is drawn and collided up to date now, waiting for the workers (after an edit, before
    /// reading the screen or casting rays). Returns whether anything was shown or changed.
    #[func]
    fn update_now(&mut self) -> bool {
        self.update(true)
    }

    /// Whether every cell near the camera shows the ground as it is now (false while cells are computed).
    #[func]
    fn is_up_to_date(&self) -> bool {
        self.stream.in_flight() == 0
            && self.ready.is_empty()
            && self.cells.map.is_up_to_date()
            && (self.detail_layers.is_empty() || !self.detail_stale)
            && self.detail.is_up_to_date()
    }

    /// Instances of `mesh_index` drawn now (on the GPU, over ground, within range; every LOD counts once).
    #[func]
    fn get_drawn_count(&self, mesh_index: i64) -> i64 {
        let Ok(m) = usize::try_from(mesh_index) else {
            return 0;
        };
        self.cells
            .map
            .values()
            .map(|c| c.data.drawn(m))
            .sum::<usize>() as i64
    }

    /// World positions of the instances of `mesh_index` drawn now: what the MultiMeshes were given.
    #[func]
    fn get_drawn_positions(&self, mesh_index: i64) -> PackedVector3Array {
        let Ok(m) = usize::try_from(mesh_index) else {
            return PackedVector3Array::new();
        };
        let mut keys: Vec<&CellKey> = self.cells.map.keys().collect();
        keys.sort();
        keys.into_iter()
            .flat_map(|k| {
                self.cells
                    .map
                    .get(k)
                    .into_iter()
                    .flat_map(|c| c.data.drawn_origins(m))
            })
            .map(|p| crate::surface::world_of(&self.frame, p))
            .collect()
    }

    /// Main-thread time this instancer's frame updates took so far, in microseconds (difference two
    /// readings to time a stretch of frames).
    #[func]
    fn get_work_usec(&self) -> i64 {
        self.work_usec[0] as i64
    }

    /// `get_work_usec` split: [all, showing finished cells, choosing cells, asking, colliding, detail,
    /// detail: showing its finished cells, detail: choosing and asking for its cells] (µs).
    #[func]
    fn get_work_breakdown(&self) -> PackedInt64Array {
        let [show, choose] = self.detail.work_usec();
        let mut w = self.work_usec;
        (w[6], w[7]) = (show, choose);
        w.iter().map(|&v| v as i64).collect()
    }

    /// Cells with MultiMeshes on the GPU (bounded by the view, not the instance count).
    #[func]
    fn get_gpu_cell_count(&self) -> i64 {
        self.cells.gpu_cells() as i64
    }

    /// Physics bodies in the space (one per cell near the target with collidable instances).
    #[func]
    fn get_body_count(&self) -> i64 {
        self.cells.body_count() as i64
    }

    /// `region_changed` of the followed TerrainData or TerrainRegions: the cells over the edited samples
    /// are redrawn.
    fn on_region_changed(&mut self, region: Rect2i) {
        let Some(sp) = self.followed.as_ref().map(|d| d.spacing()) else {
            return;
        };
        // The samples' patches reach a sample beyond them.
        // Sample i moves the surface over [(i - 1.5), (i + 2.5)) × spacing (its patches' reach).
        let lo = |v: i32| (f64::from(v) - 1.5) * sp;
        let hi = |v: i32| (f64::from(v) + 2.0) * sp;
        let area = Area {
            min: [lo(region.position.x), lo(region.position.y)],
            max: [
                hi(region.position.x + region.size.x),
                hi(region.position.y + region.size.y),
            ],
        };
        let keys = self.with_store(|s| s.cells_in(area));
        self.touch(&keys);
        self.detail.touch(area);
    }

    /// `changed` of the followed TerrainData (new size, spacing or a whole replacement): every cell.
    fn on_data_changed(&mut self) {
        self.dirty = true;
        self.cells.map.touch_all();
        self.detail.touch_all();
    }
}

/// The surface's samples, for one call (`host_or_error` made sure there is a surface).
fn with_samples<R>(host: &TerrainSurface, f: impl FnOnce(&(dyn Samples + Send)) -> R) -> R {
    match &host.surface {
        Some(s) => s.with_samples(f),
        None => unreachable!("checked by host_or_error"),
    }
}

/// The share of the ground at terrain (x, z) made of `layers` (1 without a layer rule or a material).
pub(super) fn layer_rule<'a>(
    host: &'a TerrainSurface,
    s: &'a (dyn Samples + Send),
    layers: &'a [usize],
) -> impl Fn(f64, f64) -> f32 + Sync + 'a {
    let blending = host.material.as_ref().map(|m| m.bind().blending());
    let grad = host.grad_scale;
    move |x, z| match (&blending, layers.is_empty()) {
        (Some(b), false) => layer_weights(b, s, x, z, grad)
            .iter()
            .filter(|(l, _)| layers.contains(l))
            .map(|e| e.1)
            .sum(),
        _ => 1.0,
    }
}

/// `allowed` where the placement rules' water rule lets an instance stand (the ground under `water`'s
/// surface, or dry), 0 elsewhere.
fn water_rule<'a>(
    allowed: impl Fn(f64, f64) -> f32 + Sync + 'a,
    water: Option<std::sync::Arc<terrain_core::water::WaterLevels>>,
    p: terrain_core::placement_rules::PlacementRules,
    s: &'a (dyn Samples + Send),
) -> impl Fn(f64, f64) -> f32 + Sync + 'a {
    move |x, z| {
        let depth = water
            .as_ref()
            .and_then(|w| w.depth_at(x, z, terrain_core::samples::height_at(s, x, z)));
        if p.allows_water(depth) {
            allowed(x, z)
        } else {
            0.0
        }
    }
}

impl TerrainInstancer {
    /// The cell states (`cell_states`) of `terrain`'s first TerrainInstancer child, for the terrain's
    /// INSTANCES debug view; None (and `out` empty) without one.
    pub(crate) fn child_cell_states(
        terrain: &Gd<Node>,
        target: [f64; 2],
        n: usize,
        out: &mut Vec<u8>,
    ) -> Option<([f64; 2], f64)> {
        let child = terrain
            .get_children()
            .iter_shared()
            .find_map(|c| c.try_cast::<TerrainInstancer>().ok());
        match child {
            Some(i) => i.bind().cell_states(target, n, out),
            None => {
                out.clear();
                None
            }
        }
    }

    /// The instance cells around terrain X/Z `target` in a window of `n`² cells (row-major into `out`): 1
    /// where a cell's instances are shown and current, 2 where they are being made again, 0 elsewhere.
    /// Returns the corner and side (terrain units) of the window's first cell; None without instances.
    pub(crate) fn cell_states(
        &self,
        target: [f64; 2],
        n: usize,
        out: &mut Vec<u8>,
    ) -> Option<([f64; 2], f64)> {
        let Some(res) = self.instances.as_ref() else {
            out.clear();
            return None;
        };
        let b = res.bind();
        let store = b.store();
        let cs = store.cell_size();
        let (tx, tz) = store.cell_of(target[0], target[1]);
        let cells = self.cells.map.iter().map(|(k, c)| {
            let state = if c.shown == c.stamp { 1 } else { 2 };
            ([i64::from(k.0), i64::from(k.1)], state)
        });
        let first = terrain_core::cells::fill_window([i64::from(tx), i64::from(tz)], n, cells, out);
        Some(([first[0] as f64 * cs, first[1] as f64 * cs], cs))
    }
}

impl TerrainInstancer {
    fn host(&self) -> Option<TerrainSurface> {
        let parent: Gd<Node> = self.base().get_parent()?;
        host_of(parent).map(|h| h.dyn_bind().terrain_surface())
    }

    fn host_or_error(&self, what: &str) -> Option<TerrainSurface> {
        let h = self.host();
        match &h {
            None => godot_error!("TerrainInstancer.{what}: the instancer must be a child of a TerrainNode or WanderingTerrain"),
            Some(h) if h.surface.is_none() => {
                godot_error!("TerrainInstancer.{what}: the parent terrain has no terrain data or generator");
                return None;
            }
            _ => {}
        }
        h
    }

    fn mesh_arg(&self, what: &str, m: i64, any: bool) -> Option<Option<usize>> {
        if any && m == -1 {
            return Some(None);
        }
        let n = self.meshes.len() as i64;
        if !(0..n.min(instances::MAX_MESHES as i64)).contains(&m) {
            let lo = if any { "-1" } else { "0" };
            godot_error!("TerrainInstancer.{what}: mesh_index must be in [{lo}, {}] (the meshes array), got {m}", n - 1);
            return None;
        }
        Some(Some(m as usize))
    }

    fn rules_of(&self, mesh: usize) -> (instances::Rules, Vec<usize>) {
        match self.meshes.at(mesh) {
            Some(m) => {
                let m = m.bind();
                (m.rules(), m.allowed_layers())
            }
            // An empty slot: rules that place nothing.
            None => (
                instances::Rules {
                    density: 0.0,
                    ..Default::default()
                },
                Vec::new(),
            ),
        }
    }

    /// `f` on the instances resource (made when there is none), without its `changed` signal (the
    /// caller redraws what it changed).
    fn with_store_resource<R>(&mut self, f: impl FnOnce(&mut TerrainInstances) -> R) -> R {
        if self.instances.is_none() {
            self.instances = Some(TerrainInstances::new_gd());
        }
        let mut r = self.instances.clone().expect("made above");
        let mut r = r.bind_mut();
        f(&mut r)
    }

    fn with_store<R>(&mut self, f: impl FnOnce(&mut InstanceStore) -> R) -> R {
        if self.instances.is_none() {
            self.instances = Some(TerrainInstances::new_gd());
        }
        let mut r = self.instances.clone().expect("made above");
        let mut r = r.bind_mut();
        f(r.store_mut())
    }

    fn add_placements(&mut self, host: &TerrainSurface, mesh: usize, ps: &[Placement]) -> usize {
        let (n, cells) = with_samples(host, |s| {
            self.with_store(|st| {
                let r = st.add(mesh, ps, &|x, z| instances::ground_of(s, x, z));
                if ps.len() > 4096 {
                    st.shrink();
                }
                r
            })
        })
        .unwrap_or_default();
        self.touch(&cells);
        n
    }

    /// Cells whose instances or ground changed: recomputed by the next frames.
    fn touch(&mut self, keys: &[CellKey]) {
        if keys.is_empty() {
            return;
        }
        self.dirty = true;
        self.cells.map.touch(keys.iter().copied());
    }

    fn resolve_meshes(&mut self) {
        self.resolved = self
            .meshes
            .iter_shared()
            .map(|m| m.map(|m| m.bind().resolve()).unwrap_or_default())
            .collect();
    }

    /// Everything shown is dropped and drawn again from the current surface and meshes.
    fn reset(&mut self) {
        self.cells.clear();
        self.detail.clear();
        self.detail_stale = true;
        self.surface_key = None;
        self.dirty = true;
    }

    /// Connects to the resource whose edits move the instances.
    fn follow(&mut self, data: Option<crate::data::edit_target::EditTarget>) {
        use crate::data::edit_target::EditTarget;
        if self.followed.as_ref().map(EditTarget::id) == data.as_ref().map(EditTarget::id) {
            return;
        }
        let me = self.to_gd();
        self.followed_links.replace(data.iter().flat_map(|d| {
            d.follow(
                weak(&me, Self::on_data_changed),
                weak_with(&me, Self::on_region_changed),
            )
        }));
        self.followed = data;
    }

    /// One frame: shows finished cells, asks for the cells the view needs, drops those it left, and keeps
    /// bodies on the cells near the target. `wait`: until everything asked for is shown.
    fn update(&mut self, wait: bool) -> bool {
        if !self.base().is_inside_tree() {
            return false;
        }
        let host = match self.host() {
            Some(h) if h.surface.is_some() => h,
            _ => {
                if self.surface_key.is_some() {
                    self.reset();
                }
                return false;
            }
        };
        if host.key() != self.surface_key {
            self.reset();
            self.surface_key = host.key();
            self.follow(host.edits.clone());
        }
        if host.frame != self.frame {
            self.follow_frame(&host);
        }
        let mut changed = false;
        loop {
            self.stream.poll(&mut self.ready);
            let t = std::time::Instant::now();
            if self.show_ready(wait) {
                changed = true;
                self.pending = true;
            }
            self.work_usec[1] += t.elapsed().as_micros() as u64;
            // A still frame with nothing new costs a position read and a channel poll; the cells wanted
            // are chosen again only when the viewer or the target enters another cell, or after an edit.
            let view = self.view_key(&host);
            let want = self.dirty || view != self.last_view;
            if want || self.pending {
                self.pending = false;
                let t = std::time::Instant::now();
                if want {
                    self.dirty = false;
                    self.last_view = view;
                    self.want_cells(&host);
                }
                let t1 = std::time::Instant::now();
                changed |= self.ask(&host);
                changed |= self.show_ready(wait);
                let t2 = std::time::Instant::now();
                self.collide(&host);
                self.work_usec[2] += (t1 - t).as_micros() as u64;
                self.work_usec[3] += (t2 - t1).as_micros() as u64;
                self.work_usec[4] += t2.elapsed().as_micros() as u64;
            }
            if !wait || self.stream.in_flight() == 0 {
                break;
            }
            self.stream.wait(&mut self.ready);
        }
        let t = std::time::Instant::now();
        changed |= self.update_detail(&host, wait);
        self.work_usec[5] += t.elapsed().as_micros() as u64;
        changed
    }

    /// The terrain moved, was scaled, or shifted its origin: the cells are placed anew (their contents
    /// untouched). Detail's rules are in terrain units (heights from the terrain's base): a new scale or
    /// height regrows it; a move on X/Z only moves the cells.
    fn follow_frame(&mut self, host: &TerrainSurface) {
        let f = host.frame;
        if f.scale != self.frame.scale || f.origin[1] != self.frame.origin[1] {
            self.detail.clear();
            self.detail_stale = true;
        }
        self.frame = f;
        self.cells.set_world(&self.frame);
        self.detail.set_world(&self.frame);
    }

    /// The cells the viewer and the target are in.
    fn view_key(&self, host: &TerrainSurface) -> Option<(CellKey, CellKey)> {
        let res = self.instances.as_ref()?.bind();
        let inv = host.to_world.affine_inverse();
        let cell = |p: Vector3| res.store().cell_of(f64::from(p.x), f64::from(p.z));
        let v = self.viewer(host).map_or((i32::MIN, i32::MIN), cell);
        let t = host.target.map_or((i32::MIN, i32::MIN), |t| cell(inv * t));
        Some((v, t))
    }

    /// Hands finished buffers to the RenderingServer, for `SHOW_BUDGET` a frame (at least one cell; all
    /// with `wait`): a fast flight finishes cells every frame, and handing their buffers over is main-thread
    /// work (the soak's worst frames); the rest are shown on the next frames, oldest first.
    fn show_ready(&mut self, wait: bool) -> bool {
        if self.ready.is_empty() {
            return false;
        }
        let scenario = self
            .base()
            .get_world_3d()
            .map(|w| w.get_scenario())
            .unwrap_or(Rid::Invalid);
        let view = View {
            meshes: &self.resolved,
            scenario,
            frame: self.frame,
            visible: self.base().is_visible_in_tree(),
        };
        let mut any = false;
        let t0 = std::time::Instant::now();
        let mut rest = std::mem::take(&mut self.ready);
        let mut pending = rest.drain(..);
        for r in pending.by_ref() {
            any |= self.cells.show(r.key, r.stamp, r.meshes, &view);
            if !wait && t0.elapsed() > SHOW_BUDGET {
                break;
            }
        }
        self.ready = pending.collect();
        any
    }

    /// The camera (or the target) in terrain space.
    fn viewer(&self, host: &TerrainSurface) -> Option<Vector3> {
        let cam = active_camera(&self.to_gd().upcast())
            .map(|c| c.get_global_position())
            .or(host.target)?;
        Some(host.to_world.affine_inverse() * cam)
    }

    /// Adds the cells within view (and within the collision radius of the target) and drops the rest.
    fn want_cells(&mut self, host: &TerrainSurface) {
        let Some(res) = self.instances.clone() else {
            return;
        };
        let res = res.bind();
        let store = res.store();
        let scale = host.to_world.basis.get_scale().x.abs().max(1e-6);
        let range = self.resolved.iter().map(|r| r.range).fold(0.0f32, f32::max) / scale;
        let coll = (self.collision_radius as f32) / scale;
        let mut centres: Vec<(Vector3, f32)> = Vec::with_capacity(2);
        if let Some(v) = self.viewer(host) {
            centres.push((v, range));
        }
        if let (Some(t), true) = (host.target, coll > 0.0) {
            centres.push((host.to_world.affine_inverse() * t, coll));
        }
        let cs = store.cell_size() as f32;
        let mut keep = std::collections::HashSet::new();
        for (c, r) in centres {
            let area = Area {
                min: [f64::from(c.x - r), f64::from(c.z - r)],
                max: [f64::from(c.x + r), f64::from(c.z + r)],
            };
            for k in store.cells_in(area) {
                if cell_distance(store, k, c) <= r {
                    keep.insert(k);
                    self.cells.map.want(k);
                }
            }
        }
        // Cells leave a cell size beyond the range (no churn at the border).
        let gone: Vec<CellKey> = self
            .cells
            .map
            .keys()
            .filter(|k| !keep.contains(k))
            .copied()
            .collect();
        let viewer = self.viewer(host);
        for k in gone {
            let near = viewer.is_some_and(|v| cell_distance(store, k, v) <= range + cs);
            if !near || store.cell(k).is_none() {
                self.cells.drop_cell(k);
            }
        }
    }

    /// Asks the workers for the cells that need computing, nearest first.
    fn ask(&mut self, host: &TerrainSurface) -> bool {
        let room = IN_FLIGHT.saturating_sub(self.stream.in_flight());
        let viewer = self.viewer(host).unwrap_or(Vector3::ZERO);
        let Some(res) = self.instances.clone() else {
            return false;
        };
        let res = res.bind();
        let store = res.store();
        // All that need work, nearest first: edited cells on screen may be redrawn here (below), the rest
        // are asked for up to the room left.
        let mut need = self
            .cells
            .map
            .nearest(usize::MAX, |k| cell_distance(store, *k, viewer));
        if need.is_empty() {
            return false;
        }
        // Edited cells already on screen are recomputed here, from the terrain data itself, so an edit
        // shows on the next frame drawn (up to a budget; the rest go to the workers).
        let Some(surface) = host.surface.as_ref() else {
            return false;
        };
        if let Some(d) = surface.data() {
            let d = d.bind();
            let (cells, ready) = (&mut self.cells.map, &mut self.ready);
            let mut budget = EDIT_NOW;
            need.retain(|&(_, k, stamp)| {
                let (Some(c), Some(stored)) = (cells.get_mut(&k), store.cell(k)) else {
                    return true;
                };
                let n: usize = stored.iter().map(Vec::len).sum();
                if c.shown == 0 || n > budget {
                    return true;
                }
                budget -= n;
                let meshes = draw_cell(d.core(), store.cell_area(k).min, stored);
                ready.push(CellDraw {
                    key: k,
                    stamp,
                    meshes,
                });
                c.asked = stamp;
                false
            });
        }
        if need.is_empty() {
            return true;
        }
        if need.len() > room {
            // The rest are asked for when these come back.
            self.pending = true;
            need.truncate(room);
        }
        for chunk in need.chunks(surface.cells_per_job(JOB_CELLS)) {
            let cells: Vec<(CellKey, u64)> = chunk.iter().map(|c| (c.1, c.2)).collect();
            let source = surface.job_source(cells.iter().map(|c| store.cell_area(c.0)));
            self.stream.request(source, store, &cells);
            for (k, stamp) in cells {
                self.cells.map.asked(k, stamp);
            }
        }
        true
    }

    /// Bodies on the shown cells within the collision radius of the target; the others' go to the pool.
    fn collide(&mut self, host: &TerrainSurface) {
        let has_shapes = self.resolved.iter().any(|r| !r.shapes.is_empty());
        let (Some(t), Some(res), true) = (host.target, self.instances.clone(), has_shapes) else {
            if self.cells.body_count() > 0 {
                let keys: Vec<CellKey> = self.cells.map.keys().copied().collect();
                keys.into_iter().for_each(|k| self.cells.uncollide(k));
            }
            return;
        };
        let Some(space) = self.base().get_world_3d().map(|w| w.get_space()) else {
            return;
        };
        let res = res.bind();
        let store = res.store();
        let scale = host.to_world.basis.get_scale().x.abs().max(1e-6);
        let radius = self.collision_radius as f32 / scale;
        let t = host.to_world.affine_inverse() * t;
        let view = View {
            meshes: &self.resolved,
            scenario: Rid::Invalid,
            frame: self.frame,
            visible: true,
        };
        let owner = self.base().instance_id();
        let layers = [self.collision_layer, self.collision_mask];
        let keys: Vec<CellKey> = self.cells.map.keys().copied().collect();
        for k in keys {
            let near = radius > 0.0 && cell_distance(store, k, t) <= radius;
            let Some(c) = self.cells.map.get(&k) else {
                continue;
            };
            if near && c.shown > 0 && !body_current(c) {
                self.cells.collide(k, &view, space, layers, owner);
            } else if !near && c.data.has_body() {
                self.cells.uncollide(k);
            }
        }
    }
}

/// A world X/Z rectangle in terrain space (an error naming `what` when it is not finite).
fn area_arg(what: &str, area: Rect2, host: &TerrainSurface) -> Option<Area> {
    let a = host.terrain_of(Vector3::new(area.position.x, 0.0, area.position.y));
    let b = host.terrain_of(Vector3::new(area.end().x, 0.0, area.end().y));
    let out = Area {
        min: [a[0].min(b[0]), a[2].min(b[2])],
        max: [a[0].max(b[0]), a[2].max(b[2])],
    };
    if !(out.is_valid() && area.size.x >= 0.0 && area.size.y >= 0.0) {
        godot_error!("TerrainInstancer.{what}: area must be finite with a size ≥ 0, got {area}");
        return None;
    }
    Some(out)
}

/// Distance on X/Z from terrain point `p` to cell `k`'s square.
fn cell_distance(store: &InstanceStore, k: CellKey, p: Vector3) -> f32 {
    let a = store.cell_area(k);
    a.distance(f64::from(p.x), f64::from(p.z)) as f32
}
