//! `TerrainNode`: renders a TerrainData as a geometry clipmap (layout in `terrain_core::clipmap`).

use crate::data::edit_target::EditTarget;
use crate::data::terrain_data::TerrainData;
use crate::data::terrain_generator::TerrainGenerator;
use crate::data::terrain_regions::TerrainRegions;
use crate::follow::{active_camera, weak, weak_with, Links};
use crate::look::terrain_material::{self, TerrainMaterial};
use crate::nodes::terrain_node::clipmap_data::ClipmapTexture;
use crate::physics::collision_tiles::CollisionTiles;
use crate::physics::terrain_collision::TerrainCollision;
use crate::surface::{Surface, TerrainHost, TerrainSurface};
use godot::classes::mesh::{ArrayType, PrimitiveType};
use godot::classes::rendering_server::ShadowCastingSetting;
use godot::classes::{
    ArrayMesh, INode3D, Node, Node3D, PhysicsMaterial, RenderingServer, ShaderMaterial,
};
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::clipmap::{
    build_meshes, layout, ClipmapConfig, PieceKind, PieceMesh, PlacedPiece,
};
use terrain_core::clipmap_data::Frame;
use terrain_core::clipmap_stream::{SharedSamples, StreamSource};
use terrain_core::generation::Generated;
use terrain_core::samples::{self, Samples};

pub(crate) mod clipmap_data;
mod clipmap_layers;
mod clipmap_texels;
mod clipmap_tiles;
mod collision;
mod debug;
mod draw;
mod origin_shift;
mod queries;
mod sleep;
mod source;
mod surface_cache;

crate::nodes::interaction_api::interaction_api!(TerrainNode);
use crate::work_stats::WorkStats;
pub use sleep::TerrainTargetWatch;

const DEFAULT_SHADER: &str = "res://addons/wandering_terrain/shaders/terrain_node.gdshader";
/// The debug views' shader (`debug_view`): the shipped includes, drawing what they compute as colours.
const DEBUG_SHADER: &str = "res://addons/wandering_terrain/shaders/terrain_node_debug.gdshader";

/// Shader parameters this node sets (runtime state, taken out of the material while a scene is saved).
const RUNTIME_PARAMS: &[&str] = &[
    "clipmap_data",
    "clipmap_window",
    "clipmap_split",
    "clipmap_fine_layer",
    "clipmap_fine_origin",
    "terrain_size",
    "spacing",
    "terrain_origin",
    "terrain_scale",
    "vertex_spacing",
    "tile_resolution",
    "morph_width",
    "clipmap_target",
    "clipmap_slot_shift",
    "terrain_shift",
    "layer_uv_shift",
    "surface_cache_far",
];

/// Heightmap terrain drawn as a geometry clipmap (Losasso & Hoppe 2004; Asirvatham & Hoppe, GPU Gems 2): rings of tiles centred on `target`, each
/// level twice as coarse as the one inside it, joined by seam triangles (no cracks) and geomorphed near
/// their borders (no popping). The meshes are built once and shared by every level; each frame only moves
/// the pieces whose level snapped and sets the target position uniform. Pieces are culled by their own boxes.
///
/// The terrain data reaches the GPU as clipmap data windows: per level a small window of the surface at that
/// level's vertices, in one texture array, updated toroidally as the target moves (only new rows and
/// columns) and, after an edit, only where the edit reaches — so GPU memory is bounded by the view (under
/// 1 MB at defaults, whatever the terrain's size) and an edit costs what it touches. Every level draws
/// exactly `TerrainData.get_height()` at its vertices, and near the target per pixel. With nothing moving
/// and no edit, a frame costs one position read. The terrain covers
/// `[0, size * spacing]` of `terrain_data` in this node's space; the node may be moved and scaled (not
/// rotated); `get_height`/`get_normal` take world positions.
#[derive(GodotClass)]
#[class(tool, base=Node3D)]
pub struct TerrainNode {
    /// The heightfield to draw.
    #[export]
    #[export_group(name = "Terrain")]
    #[var(set = set_terrain_data)]
    terrain_data: Option<Gd<TerrainData>>,
    /// A map stored as a folder of region files, drawn when `terrain_data` is empty: only the regions
    /// around the target are read (on worker threads, within the resource's memory budget); the far rings
    /// draw from its coarser stored levels.
    #[export]
    #[var(set = set_terrain_regions)]
    terrain_regions: Option<Gd<TerrainRegions>>,
    /// An endless generated world, drawn when `terrain_data` and `terrain_regions` are empty: the generator's samples one unit
    /// apart in this node's space (scale the node for another spacing), computed around the target on
    /// worker threads. `get_height`, `get_normal`, `raycast`, materials and DYNAMIC collision work
    /// everywhere on it.
    #[export]
    #[var(set = set_terrain_generator)]
    terrain_generator: Option<Gd<TerrainGenerator>>,
    /// Textures and their blending (layers painted per sample, height bands where nothing is painted). None:
    /// the shader's plain colours.
    #[export]
    #[var(set = set_terrain_material)]
    terrain_material: Option<Gd<TerrainMaterial>>,
    /// A ShaderMaterial with `clipmap.gdshaderinc`'s uniforms; a default one (`terrain_node.gdshader`) is made
    /// if empty.
    #[export]
    #[var(set = set_material)]
    material: Option<Gd<ShaderMaterial>>,
    /// A debug view drawn instead of the material, made of the shipped shader includes so it shows what
    /// the real shader computes: OFF, CHECKER (sample cells), HEIGHTMAP (grey over the height range),
    /// NORMALS, SLOPE (grey: 0 flat … 1 vertical), LEVELS (a colour per clipmap level), HOLES (holes
    /// tinted instead of cut, over the heightmap), LAYER_WEIGHTS (the blended layers in a colour each, darker
    /// where the auto-shader chose them), CONTROL (the nearest sample's paint slots), COLLISION (the
    /// collision tiles in the physics engine around the target), REGIONS (a region map's regions: loaded,
    /// edited and unsaved, damaged), INSTANCES (a child TerrainInstancer's cells), NAVIGATION (the faces a
    /// navigation bake takes around the target, as lines over the heightmap). No cost when OFF.
    #[var(set = set_debug_view, hint = ENUM, hint_string = crate::nodes::debug_view::HINT, usage_flags = [DEFAULT])]
    debug_view: i64,
    /// The debug view's material while one is shown.
    debug_material: Option<Gd<ShaderMaterial>>,
    /// Whether the node draws. AUTO: it draws, unless this is a dedicated server (a `dedicated_server`
    /// export or a `--headless` run, outside the editor); ON: a server — nothing is drawn or computed
    /// for drawing (no meshes, data windows, textures, surface cache or interaction field: the work
    /// stats' `windows_*`, `layers_uploaded` and `surface_*` stay 0), while collision around the
    /// targets, `get_height`, `raycast` and region streaming for them go on; OFF: it always draws.
    #[export(enum = (Auto = 0, Server = 1, Draw = 2))]
    #[var(set = set_server_mode)]
    server_mode: i64,
    /// Server mode is on (resolved when the node enters the tree or the property changes).
    serving: bool,
    /// The cells of the COLLISION, REGIONS and INSTANCES views.
    cells: crate::nodes::debug_view::CellView,
    /// The lines of the NAVIGATION view.
    pub(crate) nav_view: crate::nodes::debug_view::NavView,

    /// The node the rings follow; empty: the current camera (in the editor, the editor's camera). The node
    /// is looked up once, and again when `target` is set or the node it found leaves the tree.
    #[export]
    #[export_group(name = "Clipmap")]
    #[var(set = set_target)]
    target: NodePath,
    /// Number of levels (rings), 1..=16. Reach doubles with each level.
    #[export(range = (1.0, 16.0))]
    #[var(set = set_levels)]
    levels: i64,
    /// Quads per tile side (even, 2..=256). A level is 4 tiles + 2 quads wide.
    #[export(range = (2.0, 256.0, 2.0))]
    #[var(set = set_tile_resolution)]
    tile_resolution: i64,
    /// World units between the finest level's vertices (> 0).
    #[export(range = (0.01, 100.0, 0.01, or_greater))]
    #[var(set = set_vertex_spacing)]
    vertex_spacing: f64,
    /// Width, in quads, of the band at each level's border where vertices blend into the coarser level.
    #[export(range = (0.0, 64.0, 0.5))]
    #[var(set = set_morph_width)]
    morph_width: f64,

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
    /// to blend into the ground: `TerrainBlendMaterial`, or any shader including `terrain_surface.gdshaderinc`.
    /// Drawn by the GPU only where the camera uncovered ground or an edit, a paint stroke or a material
    /// change landed. The first terrain node with a cache in the scene provides it.
    #[export]
    #[export_group(name = "Surface cache")]
    #[var(set = set_surface_cache_enabled)]
    surface_cache_enabled: bool,
    /// Levels of the cache (1..=4); each doubles the texel and the reach (the first's texel is the
    /// terrain's sample spacing).
    #[export(range = (1.0, 4.0))]
    #[var(set = set_surface_cache_levels)]
    surface_cache_levels: i64,
    /// Texels per side of each level (32..=1024, a multiple of 16); memory is 12 bytes a texel (1.7 MiB
    /// at the defaults, 4 levels of 192; twice that on Compatibility, which gives the atlas a depth buffer).
    #[export(range = (32.0, 1024.0, 16.0))]
    #[var(set = set_surface_cache_size)]
    surface_cache_size: i64,
    /// Beyond this distance from the camera (world units) the terrain draws its surface cache instead of
    /// blending its layers: one filtered read instead of up to four layers' textures (frames 0.75× as
    /// long on the bench view), the look the same but averaged over a cache texel (2–8 samples there).
    /// Past the cache's last level the layers are drawn again. 0: never; 0 or 16..=100000. Only the
    /// default material reads it, and only while this node's cache is the scene's.
    #[export(range = (0.0, 100000.0, or_greater))]
    #[var(set = set_surface_cache_far_distance)]
    surface_cache_far_distance: f64,
    /// The value the material has (sent when it changes, or when the cache starts or stops providing).
    surface_far_sent: f32,
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
    /// The windows' target (`last_target`) and fine origin the cache last saw.
    surface_windows: Option<(Vector2, Vector2)>,

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

    /// How far the world has been shifted on X and Z (world units, whole grid steps): what was at world
    /// position p + origin_offset is drawn, collided and answered at p. Setting it shifts by the
    /// difference (`shift_origin`). Not saved with the scene: a game that saves where its player is saves
    /// this with it.
    #[var(get = get_origin_offset, set = set_origin_offset)]
    origin_offset: PhantomVar<Vector3>,

    config: ClipmapConfig,
    /// The regions' or generator's sample grid, while one of them is the source (windows computed on
    /// worker threads).
    streamed: Option<SharedSamples>,
    collision: CollisionTiles,
    /// The `collision` object (its settings; `collision` above holds the tiles made from them).
    collision_object: crate::nodes::collision_api::CollisionObject,
    meshes: Vec<Gd<ArrayMesh>>,
    instances: Vec<Rid>,
    placed: Vec<PlacedPiece>,
    shown: Vec<Option<PlacedPiece>>,
    /// The data windows and their texture.
    gpu: ClipmapTexture,
    /// What the windows were computed for: terrain frame, spacing and size; a change recomputes them.
    data_key: Option<(Frame, f64, (usize, usize))>,
    /// The fine window origin the material has (re-sent when it moves).
    sent_fine_origin: Option<Vector2>,
    /// Whether the pieces may be shown: data, a data texture and a usable frame.
    drawable: bool,
    /// Target of the last layout; None forces the next one.
    last_pos: Option<Vector3>,
    last_target: Vector2,
    height_range: Vector2,
    param_target: StringName,
    param_fine_origin: StringName,
    /// `clipmap_data`, set again whenever Compatibility's textures take turns (`clipmap_tiles.rs`).
    param_data: StringName,
    /// The node `target` names, once found (found again when `target` changes or the node leaves).
    target_node: std::cell::RefCell<Option<Gd<Node3D>>>,
    /// The terrain frame collision was last placed with; None after a transform change. Physics frames
    /// follow a still target at the cost of reading its position only.
    collision_frame: Option<Frame>,
    /// The floating origin: how far the world has been shifted (`shift_origin`).
    origin: crate::nodes::origin_shift::OriginShift,
    /// The connections to `terrain_data`, `terrain_regions`, `terrain_generator` and `terrain_material`
    /// (`follow::Links`).
    data_links: Links,
    regions_links: Links,
    generator_links: Links,
    look_links: Links,
    /// The scene tree's `node_added`: a node joining the collision targets' group wakes the node.
    tree_links: Links,
    /// What the main thread did, counted (`get_work_stats`).
    work: WorkStats,
    /// Physics processing is off (collision had nothing to do with the target where it was then), and
    /// the process pass too (`sleep.rs`: a still camera costs the terrain nothing).
    collision_asleep: bool,
    process_asleep: bool,
    /// The internal child of the target that wakes this node when the target moves (`sleep.rs`).
    watch: Option<Gd<TerrainTargetWatch>>,
    /// Running in the editor (no watch on the edited scene's nodes).
    in_editor: bool,
    /// The target position the last collision step saw, and the one this frame's update read.
    collision_seen: Option<Vector3>,
    frame_target: Option<Vector3>,
    /// The sources changed: on the next frame (past a script's sequence of assignments), warn if more
    /// than one is set.
    check_sources: bool,
    base: Base<Node3D>,
}

fn mesh_index(kind: PieceKind) -> usize {
    match kind {
        PieceKind::Tile => 0,
        PieceKind::Cross => 1,
        PieceKind::Filler => 2,
        PieceKind::Trim(b) => 3 + (b as usize & 3),
        PieceKind::Seam => 7,
    }
}

fn array_mesh(p: &PieceMesh) -> Gd<ArrayMesh> {
    let mut v = PackedVector3Array::new();
    v.resize(p.positions.len());
    for (d, s) in v.as_mut_slice().iter_mut().zip(&p.positions) {
        *d = Vector3::new(s[0], 0.0, s[1]);
    }
    let mut n = PackedVector3Array::new();
    n.resize(p.positions.len());
    n.fill(Vector3::UP);
    let idx: PackedInt32Array = p.indices.iter().map(|&i| i as i32).collect();
    let mut arrays = VarArray::new();
    arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
    arrays.set(ArrayType::VERTEX.ord() as usize, &v.to_variant());
    arrays.set(ArrayType::NORMAL.ord() as usize, &n.to_variant());
    arrays.set(ArrayType::INDEX.ord() as usize, &idx.to_variant());
    let mut m = ArrayMesh::new_gd();
    m.add_surface_from_arrays(PrimitiveType::TRIANGLES, &arrays);
    m
}

#[godot_api]
impl INode3D for TerrainNode {
    fn init(base: Base<Node3D>) -> Self {
        let config = ClipmapConfig::new(32, 7, 1.0).expect("defaults are valid");
        Self {
            terrain_data: None,
            terrain_generator: None,
            streamed: None,
            terrain_regions: None,
            terrain_material: None,
            material: None,
            debug_view: 0,
            server_mode: crate::nodes::server_mode::AUTO,
            serving: false,
            cells: Default::default(),
            nav_view: Default::default(),
            debug_material: None,
            target: NodePath::default(),
            levels: 7,
            tile_resolution: 32,
            vertex_spacing: 1.0,
            morph_width: 8.0,
            cast_shadow: 1,
            layers: 1,
            surface_cache_enabled: true,
            surface_cache_levels: 4,
            surface_cache_size: 192,
            surface_cache_far_distance: 256.0,
            surface_far_sent: 0.0,
            surface_cache: None,
            interaction_enabled: true,
            interaction_size: 512,
            interaction_texel_size: 0.25,
            interaction_recovery_time: 20.0,
            interaction: None,
            surface_windows: None,
            collision_mode: PhantomVar::default(),
            collision_radius: PhantomVar::default(),
            collision_layer: PhantomVar::default(),
            collision_mask: PhantomVar::default(),
            physics_material: PhantomVar::default(),
            collision_subdivision: PhantomVar::default(),
            collision_tolerance: PhantomVar::default(),
            collision_lift_bodies: PhantomVar::default(),
            origin_offset: PhantomVar::default(),
            config,
            collision: CollisionTiles::default(),
            collision_object: Default::default(),
            collision_object_property: PhantomVar::default(),
            meshes: Vec::new(),
            instances: Vec::new(),
            placed: Vec::new(),
            shown: Vec::new(),
            gpu: ClipmapTexture::new(&config),
            data_key: None,
            sent_fine_origin: None,
            drawable: false,
            last_pos: None,
            last_target: Vector2::ZERO,
            height_range: Vector2::ZERO,
            param_target: StringName::from("clipmap_target"),
            param_fine_origin: StringName::from("clipmap_fine_origin"),
            param_data: StringName::from("clipmap_data"),
            target_node: std::cell::RefCell::new(None),
            collision_frame: None,
            origin: Default::default(),
            data_links: Links::default(),
            regions_links: Links::default(),
            generator_links: Links::default(),
            look_links: Links::default(),
            tree_links: Links::default(),
            work: WorkStats::default(),
            collision_asleep: false,
            process_asleep: false,
            watch: None,
            in_editor: false,
            collision_seen: None,
            frame_target: None,
            check_sources: false,
            base,
        }
    }

    fn ready(&mut self) {
        self.base_mut().set_process(true);
        self.base_mut().set_physics_process(true);
        self.collision_asleep = false;
        self.process_asleep = false;
    }

    fn process(&mut self, delta: f64) {
        if std::mem::take(&mut self.check_sources) {
            self.warn_if_many_sources();
        }
        if self.serving {
            self.report_region_failures();
            return;
        }
        self.update_frame(false);
        self.refresh_surface_cache();
        if let Some(p) = self.frame_target.or(self.last_pos) {
            self.update_interaction(delta, p);
        }
        self.update_cell_view();
        self.report_region_failures();
        self.sleep_if_still();
    }

    fn physics_process(&mut self, _delta: f64) {
        self.step_collision(false);
        self.sleep_collision_if_idle();
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        self.check_setup()
    }

    fn on_notification(&mut self, what: godot::classes::notify::Node3DNotification) {
        use godot::classes::notify::Node3DNotification as N;
        match what {
            // Instances live while the node is in the tree (ready() runs once; a node may re-enter).
            N::ENTER_TREE => {
                // Navigation bakes see terrain nodes from then on.
                crate::physics::navigation::register();
                if self.material.is_none() {
                    self.material = Some(terrain_material::default_material(
                        DEFAULT_SHADER,
                        "TerrainNode",
                    ));
                    self.apply_look();
                }
                self.base_mut().set_notify_transform(true);
                self.target_node.replace(None);
                self.collision_frame = None;
                self.in_editor = Self::editor_hint();
                self.serving = crate::nodes::server_mode::serving(self.server_mode);
                let tree = self.base().get_tree();
                let id = self.base().instance_id();
                self.tree_links
                    .replace([crate::physics::collision_targets::wake_on_group_join(
                        &tree, id,
                    )]);
                self.wake();
                self.rebuild();
                // Collision is ready before the first physics frame.
                let handler = self.collision_handler();
                self.collision_object.follow(handler);
                self.on_collision_changed();
                let node = self.base().clone();
                if self.collision.enter_world(&node) {
                    self.update_collision();
                }
                if !self.serving {
                    self.attach_surface_cache();
                    self.attach_interaction();
                }
            }
            N::EXIT_TREE => {
                self.tree_links.clear();
                self.detach_surface_cache();
                self.detach_interaction();
                self.target_node.replace(None);
                self.drop_watch();
                self.free_instances();
                self.collision.exit();
            }
            // The data texture and per-frame values are runtime state: not saved into the scene with the
            // material (they would bloat it and fail to load).
            N::EDITOR_PRE_SAVE => {
                if let Some(m) = self.material.as_mut() {
                    for name in RUNTIME_PARAMS {
                        m.set_shader_parameter(*name, &Variant::nil());
                    }
                    TerrainMaterial::clear_from(m);
                }
            }
            N::EDITOR_POST_SAVE => {
                self.update_material();
                self.apply_look();
                self.sent_fine_origin = None;
            }
            N::VISIBILITY_CHANGED => self.apply_flags(),
            // Origin and scale feed the shader, the data windows and the pieces' culling boxes.
            N::TRANSFORM_CHANGED => {
                self.collision_frame = None;
                self.wake();
                self.data_key = None;
                self.height_range = Vector2::new(f32::NAN, f32::NAN);
                self.on_data_changed();
            }
            _ => {}
        }
    }
}

#[godot_api]
impl TerrainNode {
    /// Emitted by `shift_origin` after the world moved by `shift` (the shift applied): move the camera,
    /// the player and everything else placed in world coordinates by `-shift` in the same frame.
    #[signal]
    fn origin_shifted(shift: Vector3);

    /// Shifts the world's origin by `by` (X and Z; snapped to `get_origin_step()`, Y ignored) so that
    /// positions near `by` come near zero, where 32-bit floats are exact: after it, what was at world
    /// position p + shift is drawn, collided and answered at p. The terrain, its collision and everything
    /// standing on it follow in this frame; returns the shift applied and emits `origin_shifted`, so the
    /// game moves its own nodes by `-shift`. Needs no rebuilding: the data windows, collision tiles and
    /// cells keep their contents. A `FloatingOrigin` node does this by itself when the camera goes far.
    #[func]
    pub(crate) fn shift_origin(&mut self, by: Vector3) -> Vector3 {
        self.apply_origin_shift(by)
    }

    #[func]
    fn get_origin_offset(&self) -> Vector3 {
        self.origin.as_vector()
    }

    #[func]
    fn set_origin_offset(&mut self, offset: Vector3) {
        let now = self.origin.as_vector();
        self.apply_origin_shift(Vector3::new(offset.x - now.x, 0.0, offset.z - now.z));
    }

    /// The grid `shift_origin` snaps to on X and Z (world units): the coarsest clipmap level's vertex step,
    /// made a whole number of samples. Shifts by whole steps keep every drawn vertex where it was.
    #[func]
    fn get_origin_step(&self) -> Vector2 {
        self.origin_steps()
            .map_or(Vector2::ZERO, |s| Vector2::new(s[0] as f32, s[1] as f32))
    }

    #[func]
    fn set_target(&mut self, target: NodePath) {
        self.target = target;
        self.target_node.replace(None);
        self.drop_watch();
        self.wake();
    }

    /// What is missing for this node to draw and collide, and what keeps its children (paths, stamps,
    /// the instancer) from working, each named; empty when nothing is. The editor shows these as the
    /// node's configuration warnings.
    #[func]
    fn check_setup(&self) -> PackedStringArray {
        let mut w = PackedStringArray::new();
        let sources = [
            self.terrain_data.is_some(),
            self.terrain_regions.is_some(),
            self.terrain_generator.is_some(),
        ];
        match sources.iter().filter(|s| **s).count() {
            0 => w.push("No terrain_data, terrain_regions or terrain_generator: nothing is drawn and nothing collides. Assign a TerrainData (new, imported from a heightmap, or generated with a TerrainGenerator), a TerrainRegions folder for a huge map, or a TerrainGenerator for an endless world."),
            1 => {}
            _ => w.push("More than one of terrain_data, terrain_regions and terrain_generator is set: the first of them in that order is drawn; the others are unused."),
        }
        if let Some(r) = &self.terrain_regions {
            if r.bind().store().is_none() {
                w.push("terrain_regions has no folder open: set its folder to one written by TerrainData.save_regions or TerrainRegions.generate.");
            }
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
        self.source_changed();
    }

    #[func]
    fn set_terrain_regions(&mut self, regions: Option<Gd<TerrainRegions>>) {
        let me = self.to_gd();
        // The same two connections every follower of an edit target makes (`EditTarget::follow`).
        self.regions_links.replace(regions.iter().flat_map(|r| {
            EditTarget::Regions(r.clone()).follow(
                weak(&me, Self::on_source_changed),
                weak_with(&me, Self::on_regions_edited),
            )
        }));
        self.terrain_regions = regions;
        self.source_changed();
    }

    #[func]
    fn set_terrain_generator(&mut self, generator: Option<Gd<TerrainGenerator>>) {
        let me = self.to_gd();
        self.generator_links.replace(generator.iter().map(|g| {
            g.signals()
                .changed()
                .connect(weak(&me, Self::on_source_changed))
        }));
        self.terrain_generator = generator;
        self.source_changed();
    }

    #[func]
    fn set_material(&mut self, material: Option<Gd<ShaderMaterial>>) {
        self.material = material;
        self.apply_override();
        self.update_material();
        self.apply_look();
    }

    /// Switches server mode (see the property); out of range is refused with an error.
    #[func]
    fn set_server_mode(&mut self, value: i64) {
        if !crate::nodes::server_mode::check("TerrainNode.server_mode", value) {
            return;
        }
        self.server_mode = value;
        if !self.base().is_inside_tree() {
            return;
        }
        let serving = crate::nodes::server_mode::serving(value);
        if serving == self.serving {
            return;
        }
        self.serving = serving;
        if serving {
            self.detach_surface_cache();
            self.detach_interaction();
        } else {
            self.attach_surface_cache();
            self.attach_interaction();
        }
        self.rebuild();
    }

    /// Whether the node draws (false in server mode: see `server_mode`).
    #[func]
    fn is_drawing(&self) -> bool {
        !self.serving
    }

    /// `server_mode`: a server on a dedicated server export or a `--headless` run, else drawing.
    #[constant]
    const SERVER_MODE_AUTO: i64 = crate::nodes::server_mode::AUTO;
    /// `server_mode`: never draws (a server).
    #[constant]
    const SERVER_MODE_ON: i64 = crate::nodes::server_mode::ON;
    /// `server_mode`: always draws.
    #[constant]
    const SERVER_MODE_OFF: i64 = crate::nodes::server_mode::OFF;

    /// Shows debug view `value` (see the property); out of range is refused with an error.
    #[func]
    fn set_debug_view(&mut self, value: i64) {
        if !crate::nodes::debug_view::check("TerrainNode.debug_view", value, self.debug_view) {
            return;
        }
        self.debug_view = value;
        self.show_debug_view();
        self.wake();
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
        self.send_uv_shift();
        self.invalidate_surface_cache();
        let frictions = crate::look::ground_surface::frictions(
            self.terrain_material.as_ref(),
            self.grad_scale(),
        );
        self.collision.set_surfaces(frictions);
        self.wake();
    }

    #[func]
    fn set_surface_cache_enabled(&mut self, v: bool) {
        self.enable_surface_cache(v);
    }

    /// 0 (never) or 16..=100000 world units; anything else is refused with an error and the old value kept.
    #[func]
    fn set_surface_cache_far_distance(&mut self, v: f64) {
        if !(v == 0.0 || (16.0..=1.0e5).contains(&v)) {
            godot_error!(
                "TerrainNode.surface_cache_far_distance must be 0 (never) or in [16, 100000], got {v}; keeping {}",
                self.surface_cache_far_distance
            );
            return;
        }
        self.surface_cache_far_distance = v;
        self.send_surface_far();
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
    fn set_levels(&mut self, value: i64) {
        self.reconfigure(self.tile_resolution, value, self.vertex_spacing);
    }

    #[func]
    fn set_tile_resolution(&mut self, value: i64) {
        self.reconfigure(value, self.levels, self.vertex_spacing);
    }

    #[func]
    fn set_vertex_spacing(&mut self, value: f64) {
        self.reconfigure(self.tile_resolution, self.levels, value);
    }

    #[func]
    fn set_morph_width(&mut self, value: f64) {
        let max = self.tile_resolution as f64;
        if !(value.is_finite() && (0.0..=max).contains(&value)) {
            godot_error!(
                "TerrainNode.morph_width must be in [0, tile_resolution = {max}], got {value}"
            );
            return;
        }
        self.morph_width = value;
        self.update_material();
    }

    #[func]
    fn set_cast_shadow(&mut self, value: i64) {
        if !(0..=3).contains(&value) {
            godot_error!("TerrainNode.cast_shadow must be in [0, 3], got {value}");
            return;
        }
        self.cast_shadow = value;
        self.apply_flags();
    }

    #[func]
    fn set_layers(&mut self, value: u32) {
        self.layers = value;
        self.apply_flags();
    }

    /// Brings the terrain up to date with its target and data now. Each frame does this without waiting:
    /// the data windows of a move or an edit are computed on worker threads and drawn on a following
    /// frame. This call computes them on the calling thread instead, on every source (terrain data, a
    /// region map, an endless world: its regions around the target are read or generated first, which
    /// may take a second after a teleport), so `is_up_to_date()` is true when it returns. A still target
    /// and no edit cost only reading the target's position. Returns whether anything was shown anew.
    /// `wait` false: one frame's step without waiting, as the node's own process runs it (what a bench
    /// times, or a script driving the node by hand).
    #[func]
    fn update_now(&mut self, #[opt(default = true)] wait: bool) -> bool {
        self.update_frame(wait)
    }

    /// Lays the rings out around world position `pos` and brings the data windows there, waiting for them
    /// with terrain data (as `update_now`).
    #[func]
    fn place_at(&mut self, pos: Vector3) {
        self.update_windows(pos, true);
    }

    /// What the node did on the main thread since it was made, to find what a slow frame spent its time
    /// on (take the difference between two frames' dictionaries). Counters: `windows_steps` (frames whose
    /// data windows started or showed a worker's job) and `windows_usec` (their time, uploads and layout
    /// included), `windows_shown` (jobs shown), `layers_uploaded` and `upload_usec` (texture layers sent
    /// to the GPU), `collision_steps` (physics ticks with collision work), `collision_tiles` (tiles
    /// handed to the physics engine) and `collision_usec`, `surface_usec` (the surface cache's updates)
    /// and `surface_texels` (cache texels it asked the GPU to draw).
    #[func]
    fn get_work_stats(&self) -> VarDictionary {
        let mut w = self.work;
        (w.layers_uploaded, w.upload_usec) = self.gpu.sent();
        w.surface_texels = self
            .surface_cache
            .as_ref()
            .map_or(0, |c| c.texels_written());
        w.to_dictionary()
    }

    /// Bytes of terrain data sent to the GPU since the last call (for measurements).
    #[func]
    fn take_uploaded_bytes(&mut self) -> i64 {
        self.gpu.take_uploaded() as i64
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
            .forward(|s| s.store_mode("TerrainNode.collision_mode", v))
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
            .forward(|s| s.store_radius("TerrainNode.collision_radius", v))
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
            .forward(|s| s.store_subdivision("TerrainNode.collision_subdivision", v))
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
            .forward(|s| s.store_tolerance("TerrainNode.collision_tolerance", v))
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
}

impl TerrainNode {
    /// This node's frame for the core (terrain space -> world).
    /// Terrain slopes → world slopes: vertical over horizontal scale per axis.
    fn grad_scale(&self) -> [f32; 2] {
        let (_, s) = self.frame();
        [s.y / s.x, s.y / s.z]
    }

    /// World X/Z → terrain X/Z (this node's position and scale taken off, its origin shift added), in f64.
    fn to_terrain_xz(&self, pos: Vector2) -> (f64, f64) {
        let t = self
            .terrain_frame()
            .to_terrain([f64::from(pos.x), 0.0, f64::from(pos.y)]);
        (t[0], t[2])
    }

    /// Terrain space → the node's own placement, before any origin shift: what the data windows are
    /// keyed in (a shift moves no texel, only how the shader addresses them).
    fn placement_frame(&self) -> Frame {
        let (o, s) = self.frame();
        Frame {
            origin: [o.x, o.y, o.z].map(f64::from),
            scale: [s.x, s.y, s.z].map(f64::from),
        }
    }

    /// Terrain space → Godot world: the placement less the origin shift (exact, f64). What queries,
    /// collision and everything standing on the terrain go through.
    fn terrain_frame(&self) -> Frame {
        self.placement_frame().shifted(self.origin.world())
    }

    /// The samples drawn (terrain data, else the streamed source), for one call.
    fn with_samples<R>(&self, f: impl FnOnce(&(dyn Samples + Send)) -> R) -> Option<R> {
        match (&self.terrain_data, &self.streamed) {
            (Some(d), _) => Some(f(d.bind().core())),
            (None, Some(g)) => Some(f(&**g)),
            _ => None,
        }
    }

    /// Global position and scale of this node (terrain space -> world).
    fn frame(&self) -> (Vector3, Vector3) {
        if !self.base().is_inside_tree() {
            let t = self.base().get_transform();
            return (t.origin, t.basis.get_scale());
        }
        let t = self.base().get_global_transform();
        (t.origin, t.basis.get_scale())
    }

    fn target_position(&self) -> Option<Vector3> {
        if !self.target.is_empty() {
            let mut found = self.target_node.borrow_mut();
            if let Some(n) = found.as_ref() {
                if n.is_instance_valid() && n.is_inside_tree() {
                    return Some(n.get_global_position());
                }
            }
            let n: Gd<Node> = self.base().get_node_or_null(&self.target)?;
            let n = n.try_cast::<Node3D>().ok()?;
            *found = Some(n.clone());
            return Some(n.get_global_position());
        }
        let cam = active_camera(&self.to_gd().upcast());
        cam.map(|c| c.get_global_position())
    }
}

/// A sample grid's size for the shader: negative for an endless one (nothing is outside it).
fn size_of<S: Samples + ?Sized>(s: &S) -> Vector2i {
    s.size().map_or(Vector2i::new(-1, -1), |[w, d]| {
        Vector2i::new(w as i32, d as i32)
    })
}

crate::nodes::terrain_host_api::terrain_host_api!(TerrainNode);

#[godot_dyn]
impl TerrainHost for TerrainNode {
    /// What a child `TerrainInstancer` (and navigation, debug views) stands on.
    fn terrain_surface(&self) -> TerrainSurface {
        let surface = match (&self.terrain_data, &self.streamed) {
            (Some(d), _) => Some(Surface::Data(d.clone())),
            (None, Some(g)) => Some(Surface::Streamed(g.clone())),
            _ => None,
        };
        let edits = match (&self.terrain_data, &self.terrain_regions) {
            (Some(d), _) => Some(crate::data::edit_target::EditTarget::Data(d.clone())),
            (None, Some(r)) => Some(crate::data::edit_target::EditTarget::Regions(r.clone())),
            _ => None,
        };
        let frame = self.terrain_frame();
        TerrainSurface {
            surface,
            edits,
            frame,
            to_world: crate::surface::transform_of(&frame),
            target: self.target_position(),
            collision_centres: self
                .collision
                .centres(self.target_position().map(|p| self.terrain_xz(frame, p))),
            serving: self.serving,
            material: self.terrain_material.clone(),
            grad_scale: self.grad_scale(),
        }
    }

    fn class_name(&self) -> &'static str {
        "TerrainNode"
    }

    fn collision_layers(&self) -> u32 {
        self.collision.layers()
    }
}
