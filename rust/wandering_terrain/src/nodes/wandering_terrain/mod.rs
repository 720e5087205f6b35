//! `WanderingTerrain`: the follow logic of camera-following LOD rings. Places a WanderingMesh in front of the camera each frame
//! and feeds the wandering terrain shader (placement maths in `terrain_core::wandering_terrain`).

use crate::data::edit_target::EditTarget;
use crate::data::terrain_data::TerrainData;
use crate::follow::{active_camera, flags, weak, weak_with, Links};
use crate::look::terrain_material::{self, TerrainMaterial};
use crate::nodes::wandering_mesh::WanderingMesh;
use crate::physics::collision_tiles::CollisionTiles;
use crate::physics::terrain_collision::TerrainCollision;
use crate::surface::{Surface, TerrainHost, TerrainSurface};
use godot::classes::{
    Camera3D, INode3D, Node, Node3D, PhysicsMaterial, RenderingServer, ShaderMaterial,
};
use godot::prelude::*;
use terrain_core::clipmap_data::Frame;
use terrain_core::wandering_terrain::{place, Placement};

mod collision;
mod debug;
mod draw;
mod queries;
mod source;
mod surface_cache;

crate::nodes::interaction_api::interaction_api!(WanderingTerrain);
const DEFAULT_SHADER: &str = "res://addons/wandering_terrain/shaders/wandering_terrain.gdshader";
/// The debug views' shader (`debug_view`, see `debug_view.rs`).
const DEBUG_SHADER: &str =
    "res://addons/wandering_terrain/shaders/wandering_terrain_debug.gdshader";

/// Shader parameters this node sets (runtime state, taken out of the material while a scene is saved).
const RUNTIME_PARAMS: &[&str] = &[
    "data_tex",
    "control_tex",
    "has_control",
    "terrain_size",
    "spacing",
    "translation",
    "rotation",
];

/// Renders a `TerrainData` with camera-following LOD rings with Bézier-patch heights: one `WanderingMesh` that follows the camera, the
/// terrain data texture slid under it by `wandering_terrain.gdshader`.
///
/// Each frame it places the mesh at the camera (facing its view direction), sets the shader's `translation`
/// and `rotation`, and keeps `data_tex` current when the terrain data changes. The terrain covers
/// `[0, size * spacing]` on X and Z from this node's position (only the node's translation is used).
///
/// With `snap_to_grid`, the mesh moves in steps of its coarsest vertex spacing along its own axes, so moving
/// the camera never changes which terrain points the vertices sample: no "wiggly" terrain while moving
/// (turning still resamples it, as in the original). A custom AABB from the mesh's reach and the terrain's
/// height range replaces the original's "Extra Cull Margin" workaround.
#[derive(GodotClass)]
#[class(tool, base=Node3D)]
pub struct WanderingTerrain {
    /// The heightfield to draw and to answer `get_height` from.
    #[export]
    #[export_group(name = "Terrain")]
    #[var(set = set_terrain_data)]
    terrain_data: Option<Gd<TerrainData>>,
    /// Textures and their blending (layers painted per sample, height bands where nothing is painted). None:
    /// the shader's plain colours.
    #[export]
    #[var(set = set_terrain_material)]
    terrain_material: Option<Gd<TerrainMaterial>>,
    /// The LOD-ring mesh that follows the camera (one is created if empty).
    #[export]
    #[var(set = set_mesh)]
    mesh: Option<Gd<WanderingMesh>>,
    /// A ShaderMaterial using `wandering_terrain.gdshader` (or a shader with the same uniforms). One is
    /// created if empty; its transform and data uniforms are set by this node.
    #[export]
    #[var(set = set_material)]
    material: Option<Gd<ShaderMaterial>>,
    /// A debug view drawn instead of the material, made of the shipped shader includes (the views and
    /// numbers of `TerrainNode.debug_view`; LEVELS is white: the wandering terrain has no clipmap levels,
    /// REGIONS grey: it draws no region maps).
    /// No cost when OFF.
    #[var(set = set_debug_view, hint = ENUM, hint_string = crate::nodes::debug_view::HINT, usage_flags = [DEFAULT])]
    debug_view: i64,
    /// The debug view's material while one is shown.
    debug_material: Option<Gd<ShaderMaterial>>,
    /// The cells of the COLLISION and INSTANCES views.
    cells: crate::nodes::debug_view::CellView,
    /// The lines of the NAVIGATION view.
    nav_view: crate::nodes::debug_view::NavView,

    /// The camera to follow; empty: the viewport's current camera (in the editor, the editor's camera).
    #[export]
    #[export_group(name = "Following")]
    camera: NodePath,
    /// Move the mesh only in whole steps of its coarsest vertex spacing (no wobble while moving).
    #[export]
    snap_to_grid: bool,
    /// Distance (world units) the mesh starts behind the camera, so the ground below it is covered.
    #[export(range = (0.0, 100.0, or_greater))]
    #[var(set = set_back_offset)]
    back_offset: f64,

    /// Shadow casting of the terrain (GeometryInstance3D.ShadowCastingSetting).
    #[export(enum = (Off = 0, On = 1, DoubleSided = 2, ShadowsOnly = 3))]
    #[export_group(name = "Rendering")]
    #[var(set = set_cast_shadow)]
    cast_shadow: i64,
    /// Render layers of the terrain.
    #[export(flags_3d_render)]
    #[var(set = set_layers)]
    layers: u32,

    /// The terrain's shaded surface (albedo, normal, roughness, height) kept around the camera for meshes
    /// to blend into the ground: `TerrainBlendMaterial`, or any shader including `terrain_surface.gdshaderinc`
    /// (as `TerrainNode.surface_cache_enabled`). The first terrain with a cache in the scene provides it.
    #[export]
    #[export_group(name = "Surface cache")]
    #[var(set = set_surface_cache_enabled)]
    surface_cache_enabled: bool,
    /// Levels of the cache (1..=4); each doubles the texel and the reach (the first's texel is the
    /// terrain's sample spacing).
    #[export(range = (1.0, 4.0))]
    #[var(set = set_surface_cache_levels)]
    surface_cache_levels: i64,
    /// Texels per side of each level (32..=1024, a multiple of 16); 12 bytes a texel (see
    /// `TerrainNode.surface_cache_size`).
    #[export(range = (32.0, 1024.0, 16.0))]
    #[var(set = set_surface_cache_size)]
    surface_cache_size: i64,
    /// The cache while enabled and in the tree.
    surface_cache: Option<crate::look::surface_cache::SurfaceCache>,
    /// Keep an interaction field around the camera: `TerrainInteractor` nodes press it, grass bends away,
    /// deformable layers (`TerrainLayer.deformable`) sink and darken, `get_trample` answers gameplay. Made
    /// when the node enters the tree (1 MiB of GPU memory at the defaults; no upload per frame, only the
    /// pressed texels are drawn); the first terrain node with one gives it to the scene's shaders.
    #[export]
    #[export_group(name = "Interaction")]
    #[var(set = set_interaction_enabled)]
    interaction_enabled: bool,
    /// Texels per side of the field (64..=2048, a multiple of 64); 4 bytes a texel.
    #[export(range = (64.0, 2048.0, 64.0))]
    #[var(set = set_interaction_size)]
    interaction_size: i64,
    /// Side of a field texel (terrain units), [0.01, 16]: at 0.25 and 512 texels the field spans 128 m
    /// around the camera and keeps a footprint.
    #[export(range = (0.01, 16.0, 0.01))]
    #[var(set = set_interaction_texel_size)]
    interaction_texel_size: f64,
    /// Seconds a full press takes to recover (linearly), [0.1, 3600].
    #[export(range = (0.1, 3600.0, 0.1))]
    #[var(set = set_interaction_recovery_time)]
    interaction_recovery_time: f64,
    /// The field while enabled and in the tree.
    interaction: Option<crate::interaction::interaction_field::InteractionField>,
    /// What the cache was drawn from: size, spacing, the data and control textures.
    surface_source: Option<(Vector2i, f64, Option<Rid>, Option<Rid>)>,

    /// Collision: which tiles exist around the target (`mode`, `radius`), how finely they follow the drawn
    /// surface (`subdivision`, `tolerance`), the physics layers and material, and what edits do to the bodies
    /// on them. A `TerrainCollision` (assigning null makes a default one); its changes apply at once.
    #[export]
    #[export_group(name = "Collision")]
    #[var(rename = collision, get = get_collision, set = set_collision)]
    collision_object_property: PhantomVar<Option<Gd<TerrainCollision>>>,
    /// Moved to `collision.mode` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_collision_mode, set = set_collision_mode, usage_flags = [NONE])]
    collision_mode: PhantomVar<i64>,
    /// Moved to `collision.radius` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_collision_radius, set = set_collision_radius, usage_flags = [NONE])]
    collision_radius: PhantomVar<f64>,
    /// Moved to `collision.layer` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_collision_layer, set = set_collision_layer, usage_flags = [NONE])]
    collision_layer: PhantomVar<u32>,
    /// Moved to `collision.mask` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_collision_mask, set = set_collision_mask, usage_flags = [NONE])]
    collision_mask: PhantomVar<u32>,
    /// Moved to `collision.physics_material` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_physics_material, set = set_physics_material, usage_flags = [NONE])]
    physics_material: PhantomVar<Option<Gd<PhysicsMaterial>>>,
    /// Moved to `collision.subdivision` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_collision_subdivision, set = set_collision_subdivision, usage_flags = [NONE])]
    collision_subdivision: PhantomVar<i64>,
    /// Moved to `collision.tolerance` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_collision_tolerance, set = set_collision_tolerance, usage_flags = [NONE])]
    collision_tolerance: PhantomVar<f64>,
    /// Moved to `collision.lift_bodies` (kept so that saved scenes load; not shown or saved).
    #[var(get = get_collision_lift_bodies, set = set_collision_lift_bodies, usage_flags = [NONE])]
    collision_lift_bodies: PhantomVar<bool>,

    collision: CollisionTiles,
    /// The `collision` object (its settings; `collision` above holds the tiles made from them).
    collision_object: crate::nodes::collision_api::CollisionObject,
    /// The drawn mesh: a RenderingServer instance, not a MeshInstance3D child, so that a navigation bake
    /// parses the terrain's surface (`navigation.rs`) instead of the flat mesh the shader displaces.
    instance: Option<Rid>,
    /// The instance's transform and culling box (kept for when it is made again on entering a tree).
    instance_xform: Transform3D,
    instance_aabb: Aabb,
    last: Option<Placement>,
    // Interned once: the per-frame path allocates nothing.
    param_translation: StringName,
    param_rotation: StringName,
    /// The connections to `terrain_data`, `mesh` and `terrain_material` (`follow::Links`).
    data_links: Links,
    mesh_links: Links,
    look_links: Links,
    base: Base<Node3D>,
}

#[godot_api]
impl INode3D for WanderingTerrain {
    fn init(base: Base<Node3D>) -> Self {
        Self {
            terrain_data: None,
            terrain_material: None,
            mesh: None,
            material: None,
            debug_view: 0,
            debug_material: None,
            cells: Default::default(),
            nav_view: Default::default(),
            camera: NodePath::default(),
            snap_to_grid: true,
            back_offset: 0.0,
            cast_shadow: 1,
            layers: 1,
            surface_cache_enabled: true,
            surface_cache_levels: 4,
            surface_cache_size: 192,
            surface_cache: None,
            interaction_enabled: true,
            interaction_size: 512,
            interaction_texel_size: 0.25,
            interaction_recovery_time: 20.0,
            interaction: None,
            surface_source: None,
            collision_mode: PhantomVar::default(),
            collision_radius: PhantomVar::default(),
            collision_layer: PhantomVar::default(),
            collision_mask: PhantomVar::default(),
            physics_material: PhantomVar::default(),
            collision_subdivision: PhantomVar::default(),
            collision_tolerance: PhantomVar::default(),
            collision_lift_bodies: PhantomVar::default(),
            collision: CollisionTiles::default(),
            collision_object: Default::default(),
            collision_object_property: PhantomVar::default(),
            instance: None,
            instance_xform: Transform3D::IDENTITY,
            instance_aabb: Aabb::default(),
            last: None,
            param_translation: StringName::from("translation"),
            param_rotation: StringName::from("rotation"),
            data_links: Links::default(),
            mesh_links: Links::default(),
            look_links: Links::default(),
            base,
        }
    }

    fn ready(&mut self) {
        if self.mesh.is_none() {
            let mut m = WanderingMesh::new_gd();
            m.set("start_subdivision", &5.to_variant());
            m.set(
                "lods",
                &PackedInt32Array::from(&[2, 2, 2, 2][..]).to_variant(),
            );
            self.set_mesh(Some(m));
        }
        if self.material.is_none() {
            self.material = Some(terrain_material::default_material(
                DEFAULT_SHADER,
                "WanderingTerrain",
            ));
            self.apply_look();
        }
        self.make_instance();
        self.sync_instance();
        self.on_data_changed();
        self.base_mut().set_process(true);
        self.base_mut().set_physics_process(true);
    }

    fn process(&mut self, delta: f64) {
        if let Some(at) = self.follow() {
            self.update_surface_cache(at);
            self.update_interaction(delta, at);
        }
        self.update_cell_view();
    }

    fn physics_process(&mut self, _delta: f64) {
        self.step_collision(false);
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        self.check_setup()
    }

    fn on_notification(&mut self, what: godot::classes::notify::Node3DNotification) {
        use godot::classes::notify::Node3DNotification as N;
        match what {
            // Collision is ready before the first physics frame.
            N::ENTER_TREE => {
                // Navigation bakes see terrain nodes from then on.
                crate::physics::navigation::register();
                let handler = self.collision_handler();
                self.collision_object.follow(handler);
                self.on_collision_changed();
                let node = self.base().clone();
                if self.collision.enter_world(&node) {
                    self.update_collision();
                }
                // After the first `ready` (which sets the mesh up), the instance is made on every entry.
                if self.mesh.is_some() {
                    self.make_instance();
                }
                self.attach_surface_cache();
                self.attach_interaction();
            }
            N::EXIT_TREE => {
                self.detach_surface_cache();
                self.detach_interaction();
                self.collision.exit();
                if let Some(rid) = self.instance.take() {
                    RenderingServer::singleton().free_rid(rid);
                }
            }
            N::VISIBILITY_CHANGED => {
                if let Some(rid) = self.instance {
                    let v = self.base().is_visible_in_tree();
                    RenderingServer::singleton().instance_set_visible(rid, v);
                }
            }
            // The data textures and placement are runtime state: not saved into the scene with the material.
            N::EDITOR_PRE_SAVE => {
                if let Some(m) = self.material.as_mut() {
                    for name in RUNTIME_PARAMS {
                        m.set_shader_parameter(*name, &Variant::nil());
                    }
                    TerrainMaterial::clear_from(m);
                }
            }
            N::EDITOR_POST_SAVE => {
                self.on_data_changed();
                self.apply_look();
                self.last = None;
            }
            _ => {}
        }
    }
}

#[godot_api]
impl WanderingTerrain {
    /// What is missing for this node to draw and collide; empty when nothing is. The editor shows these as
    /// the node's configuration warnings.
    #[func]
    fn check_setup(&self) -> PackedStringArray {
        let mut w = PackedStringArray::new();
        if self.terrain_data.is_none() {
            w.push("No terrain_data: the mesh draws flat ground and nothing collides. Assign a TerrainData.");
        }
        crate::nodes::setup::parts_setup(&self.to_gd().upcast(), &mut w);
        w
    }

    #[func]
    fn set_terrain_data(&mut self, data: Option<Gd<TerrainData>>) {
        let me = self.to_gd();
        // The same two connections every follower of an edit target makes (`EditTarget::follow`).
        self.data_links.replace(data.iter().flat_map(|d| {
            EditTarget::Data(d.clone()).follow(
                weak(&me, Self::on_data_changed),
                weak_with(&me, Self::on_region_changed),
            )
        }));
        self.terrain_data = data;
        self.collision.invalidate();
        self.on_data_changed();
        self.base_mut().update_configuration_warnings();
    }

    #[func]
    fn set_back_offset(&mut self, value: f64) {
        if !(0.0..=1.0e6).contains(&value) {
            godot_error!(
                "WanderingTerrain.back_offset must be a number in [0, 1000000], got {value}; keeping {}",
                self.back_offset
            );
            return;
        }
        self.back_offset = value;
        self.last = None;
    }

    #[func]
    fn get_collision(&self) -> Option<Gd<TerrainCollision>> {
        Some(self.collision_object.0.clone())
    }
    #[func]
    fn set_collision(&mut self, v: Option<Gd<TerrainCollision>>) {
        let handler = self.collision_handler();
        self.collision_object.replace(v, handler);
        self.on_collision_changed();
    }
    #[func]
    fn get_collision_mode(&self) -> i64 {
        let s = self.collision_object.settings();
        s.mode
    }
    #[func]
    fn set_collision_mode(&mut self, v: i64) {
        if self
            .collision_object
            .forward(|s| s.store_mode("WanderingTerrain.collision_mode", v))
        {
            self.collision_changed_here();
        }
    }
    #[func]
    fn get_collision_radius(&self) -> f64 {
        let s = self.collision_object.settings();
        s.radius
    }
    #[func]
    fn set_collision_radius(&mut self, v: f64) {
        if self
            .collision_object
            .forward(|s| s.store_radius("WanderingTerrain.collision_radius", v))
        {
            self.collision_changed_here();
        }
    }
    #[func]
    fn get_collision_layer(&self) -> u32 {
        let s = self.collision_object.settings();
        s.layer
    }
    #[func]
    fn set_collision_layer(&mut self, v: u32) {
        if self.collision_object.forward(|s| s.store(|c| c.layer = v)) {
            self.collision_changed_here();
        }
    }
    #[func]
    fn get_collision_mask(&self) -> u32 {
        let s = self.collision_object.settings();
        s.mask
    }
    #[func]
    fn set_collision_mask(&mut self, v: u32) {
        if self.collision_object.forward(|s| s.store(|c| c.mask = v)) {
            self.collision_changed_here();
        }
    }
    #[func]
    fn get_physics_material(&self) -> Option<Gd<PhysicsMaterial>> {
        let s = self.collision_object.settings();
        s.material
    }
    #[func]
    fn set_physics_material(&mut self, v: Option<Gd<PhysicsMaterial>>) {
        if self
            .collision_object
            .forward(|s| s.store(|c| c.material = v))
        {
            self.collision_changed_here();
        }
    }
    #[func]
    fn get_collision_subdivision(&self) -> i64 {
        let s = self.collision_object.settings();
        i64::from(s.subdivision)
    }
    #[func]
    fn set_collision_subdivision(&mut self, v: i64) {
        if self
            .collision_object
            .forward(|s| s.store_subdivision("WanderingTerrain.collision_subdivision", v))
        {
            self.collision_changed_here();
        }
    }
    #[func]
    fn get_collision_tolerance(&self) -> f64 {
        let s = self.collision_object.settings();
        s.tolerance
    }
    #[func]
    fn set_collision_tolerance(&mut self, v: f64) {
        if self
            .collision_object
            .forward(|s| s.store_tolerance("WanderingTerrain.collision_tolerance", v))
        {
            self.collision_changed_here();
        }
    }
    #[func]
    fn get_collision_lift_bodies(&self) -> bool {
        let s = self.collision_object.settings();
        s.lift_bodies
    }
    #[func]
    fn set_collision_lift_bodies(&mut self, v: bool) {
        if self
            .collision_object
            .forward(|s| s.store(|c| c.lift_bodies = v))
        {
            self.collision_changed_here();
        }
    }

    #[func]
    fn set_mesh(&mut self, mesh: Option<Gd<WanderingMesh>>) {
        // The culling box follows the mesh's reach; deferred, since a mesh emits `changed` while it is being
        // regenerated for this node.
        let me = self.to_gd();
        self.mesh_links.replace(mesh.iter().map(|m| {
            m.signals()
                .changed()
                .builder()
                .flags(flags(true))
                .connect(weak(&me, Self::on_data_changed))
        }));
        self.mesh = mesh;
        self.sync_instance();
        self.on_data_changed();
    }

    #[func]
    fn set_material(&mut self, material: Option<Gd<ShaderMaterial>>) {
        self.material = material;
        self.sync_instance();
        self.on_data_changed();
        self.apply_look();
    }

    /// Shows debug view `value` (see the property); out of range is refused with an error.
    #[func]
    fn set_debug_view(&mut self, value: i64) {
        if !crate::nodes::debug_view::check("WanderingTerrain.debug_view", value, self.debug_view) {
            return;
        }
        self.debug_view = value;
        let range = self
            .terrain_data
            .as_ref()
            .map_or(Vector2::ZERO, |d| d.bind().get_height_range());
        self.cells.reset();
        crate::nodes::debug_view::show(
            &mut self.debug_material,
            value,
            DEBUG_SHADER,
            "WanderingTerrain.debug_view",
            range,
            self.terrain_material.as_mut(),
        );
        self.sync_instance();
        self.on_data_changed();
    }

    #[func]
    fn set_surface_cache_enabled(&mut self, v: bool) {
        self.enable_surface_cache(v);
    }

    /// Levels 1..=4; out of range is refused with an error and the old value kept.
    #[func]
    fn set_surface_cache_levels(&mut self, v: i64) {
        self.configure_surface_cache(v, self.surface_cache_size);
    }

    /// 32..=1024, a multiple of 16; out of range is refused with an error and the old value kept.
    #[func]
    fn set_surface_cache_size(&mut self, v: i64) {
        self.configure_surface_cache(self.surface_cache_levels, v);
    }

    #[func]
    fn set_interaction_enabled(&mut self, v: bool) {
        self.enable_interaction(v);
    }

    /// 64..=2048, a multiple of 64; out of range is refused with an error and the old value kept.
    #[func]
    fn set_interaction_size(&mut self, v: i64) {
        self.configure_interaction(
            v,
            self.interaction_texel_size,
            self.interaction_recovery_time,
        );
    }

    /// 0.01..=16; out of range (or NaN) is refused with an error and the old value kept.
    #[func]
    fn set_interaction_texel_size(&mut self, v: f64) {
        self.configure_interaction(self.interaction_size, v, self.interaction_recovery_time);
    }

    /// 0.1..=3600 seconds; out of range (or NaN) is refused with an error and the old value kept.
    #[func]
    fn set_interaction_recovery_time(&mut self, v: f64) {
        self.configure_interaction(self.interaction_size, self.interaction_texel_size, v);
    }

    #[func]
    fn set_cast_shadow(&mut self, value: i64) {
        if !(0..=3).contains(&value) {
            godot_error!("WanderingTerrain.cast_shadow must be in [0, 3], got {value}");
            return;
        }
        self.cast_shadow = value;
        self.sync_instance();
    }

    #[func]
    fn set_layers(&mut self, value: u32) {
        self.layers = value;
        self.sync_instance();
    }

    #[func]
    fn set_terrain_material(&mut self, look: Option<Gd<TerrainMaterial>>) {
        let me = self.to_gd();
        self.look_links.replace(
            look.iter()
                .map(|l| l.signals().changed().connect(weak(&me, Self::apply_look))),
        );
        self.terrain_material = look;
        self.apply_look();
    }

    /// `changed` of the TerrainMaterial (or one of its layers): its parameters go to the shader again.
    fn apply_look(&mut self) {
        terrain_material::bind(self.terrain_material.as_mut(), self.material.as_ref());
        terrain_material::bind(self.terrain_material.as_mut(), self.debug_material.as_ref());
        let fill = self
            .surface_cache
            .as_mut()
            .map(|c| c.material_mut().clone());
        terrain_material::bind(self.terrain_material.as_mut(), fill.as_ref());
        self.invalidate_surface_cache();
        let frictions =
            crate::look::ground_surface::frictions(self.terrain_material.as_ref(), [1.0, 1.0]);
        self.collision.set_surfaces(frictions);
    }
}

// Its physics processing never sleeps: new tiles need nothing more.
crate::nodes::collision_api::collision_api!(WanderingTerrain, |_: &mut WanderingTerrain| {});
crate::nodes::debug_view_api::debug_view_api!(WanderingTerrain);

crate::nodes::terrain_host_api::terrain_host_api!(WanderingTerrain);

#[godot_dyn]
impl TerrainHost for WanderingTerrain {
    /// What stands on the terrain (the node only moves the terrain on X/Z).
    fn terrain_surface(&self) -> TerrainSurface {
        let o = self.origin();
        let frame = Frame {
            origin: [f64::from(o.x), 0.0, f64::from(o.y)],
            scale: [1.0; 3],
        };
        TerrainSurface {
            surface: self.terrain_data.clone().map(Surface::Data),
            edits: self
                .terrain_data
                .clone()
                .map(crate::data::edit_target::EditTarget::Data),
            frame,
            to_world: crate::surface::transform_of(&frame),
            target: self.followed_camera().map(|c| c.get_global_position()),
            collision_centres: self.collision.centres(
                self.followed_camera()
                    .map(|c| c.get_global_position())
                    .map(|p| [f64::from(p.x - o.x), f64::from(p.z - o.y)]),
            ),
            serving: false,
            material: self.terrain_material.clone(),
            grad_scale: [1.0, 1.0],
        }
    }

    fn class_name(&self) -> &'static str {
        "WanderingTerrain"
    }

    fn collision_layers(&self) -> u32 {
        self.collision.layers()
    }
}
