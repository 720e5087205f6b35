//! `TerrainInstancer`: trees, rocks and props placed on its parent terrain (store, rules and cell
//! buffers in `terrain_core::instances`; the servers' side in `instance_cells`).

use crate::instances::detail_cells::Detail;
mod bodies;
mod brush;
mod detail;
mod rules;
mod script_api;
mod streaming;

use rules::{layer_rule, water_rule, with_samples};
use script_api::area_arg;
use streaming::cell_distance;

use crate::follow::{active_camera, flags, weak, weak_with, Links};
use crate::instances::impostor_cells::{FarCells, FarView};
use crate::instances::instance_cells::{body_current, Cells, View};
use crate::instances::terrain_detail_layer::TerrainDetailLayer;
use crate::instances::terrain_instance_mesh::{Resolved, TerrainInstanceMesh};
use crate::instances::terrain_instances::TerrainInstances;
use crate::object_array::objects_of;
use crate::surface::{host_of, TerrainSurface};
use crate::work_stats::{usec_since, InstancerWork};
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
    /// The meshes' revisions `resolved` was made from.
    resolved_revisions: Vec<u64>,
    cells: Cells,
    /// Impostors beyond the meshes' reach, in far cells.
    far: FarCells,
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
    /// How many of `ready`'s first entries are edited cells recomputed on this thread: shown whatever
    /// `SHOW_BUDGET` (an edit shows on the next frame drawn, however fast the machine).
    redrawn: usize,
    dab_count: u64,
    /// Something changed (an edit, a reset): the cells wanted are chosen again.
    dirty: bool,
    /// The cells of the viewer and of the collision centres at the last look (a frame that keeps them
    /// skips it).
    last_view: Option<(CellKey, u64)>,
    /// The terrain is a server (`TerrainNode.server_mode`): no camera range, impostors or detail.
    serving: bool,
    /// Results came back or not everything could be asked: ask and collide again next frame.
    pending: bool,
    /// Main-thread time spent in frame updates so far (µs), for benches: all, showing results, choosing
    /// cells, asking, colliding, detail.
    work: InstancerWork,
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
            resolved_revisions: Vec::new(),
            cells: Cells::default(),
            far: FarCells::default(),
            detail: Detail::default(),
            detail_stale: true,
            detail_water: None,
            detail_material: None,
            stream: InstanceStream::default(),
            surface_key: None,
            frame: Frame::default(),
            followed: None,
            ready: Vec::new(),
            redrawn: 0,
            dab_count: 0,
            dirty: true,
            last_view: None,
            serving: false,
            pending: false,
            work: InstancerWork::default(),
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
        self.work.update_usec += usec_since(t0);
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
                self.far.clear();
                self.detail.clear();
                self.detail_stale = true;
                self.surface_key = None;
            }
            N::VISIBILITY_CHANGED => {
                let v = self.base().is_visible_in_tree();
                self.cells.set_visible(v);
                self.far.set_visible(v);
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
                    .connect(weak(&me, Self::on_mesh_signal))
            }));
        self.meshes = meshes;
        self.on_meshes_changed();
    }

    /// A mesh's `changed` (deferred): drawn again unless `update_now` already took the change.
    fn on_mesh_signal(&mut self) {
        if !self.meshes_resolved() {
            self.on_meshes_changed();
        }
    }

    /// A mesh changed (its look, shapes or rules): every shown cell is drawn again.
    pub(super) fn on_meshes_changed(&mut self) {
        // The GPU objects go first: they refer to the old resolution's impostor cards.
        self.reset();
        self.resolve_meshes();
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
    pub(crate) fn get_instances_resource(&self) -> Option<Gd<TerrainInstances>> {
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
}

impl TerrainInstancer {
    /// Each mesh slot's revision (0 for an empty slot).
    fn mesh_revisions(&self) -> impl Iterator<Item = u64> + '_ {
        self.meshes
            .iter_shared()
            .map(|m| m.map_or(0, |m| m.bind().revision()))
    }

    /// Whether `resolved` was made from the meshes as they are (no allocation: `is_up_to_date` polls it).
    pub(super) fn meshes_resolved(&self) -> bool {
        self.mesh_revisions()
            .eq(self.resolved_revisions.iter().copied())
    }

    fn resolve_meshes(&mut self) {
        self.resolved_revisions = self.mesh_revisions().collect();
        self.resolved = self
            .meshes
            .iter_shared()
            .map(|m| m.map(|m| m.bind().resolve()).unwrap_or_default())
            .collect();
        self.set_impostor_params();
    }

    /// The impostor materials' switch, fade, reach and the terrain's scale (custom data is in terrain
    /// units).
    fn set_impostor_params(&mut self) {
        let s = self.frame.scale;
        let scale = Vector3::new(s[0] as f32, s[1] as f32, s[2] as f32);
        for r in &mut self.resolved {
            if let Some(i) = &mut r.impostor {
                let params: [(&str, Variant); 5] = [
                    ("impostor_distance", i.distance.to_variant()),
                    ("impostor_fade", r.fade.to_variant()),
                    ("impostor_range", r.range.to_variant()),
                    ("impostor_cell_centres", true.to_variant()),
                    ("impostor_terrain_scale", scale.to_variant()),
                ];
                for (k, v) in params {
                    i.material.set_shader_parameter(k, &v);
                }
            }
        }
    }

    /// Everything shown is dropped and drawn again from the current surface and meshes.
    fn reset(&mut self) {
        self.cells.clear();
        self.far.clear();
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
}
