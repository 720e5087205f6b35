//! A terrain node's interaction field on the GPU: the CPU twin (`terrain_core::interaction_field`) says
//! what to draw each frame; a SubViewport keeps the RGBA8 field texture and draws only the rectangles
//! of this frame's stamps and uncovered strips (`shaders/interaction_field_stamp.gdshader`, one MultiMesh
//! of quads, its uniforms sent in a few calls: no per-texel upload on any renderer); the global uniforms
//! give it to every shader (`shaders/interaction_field.gdshaderinc`).

use std::sync::atomic::{AtomicI64, Ordering};

use godot::classes::node::InternalMode;
use godot::classes::rendering_server::{GlobalShaderParameterType as G, MultimeshTransformFormat};
use godot::classes::sub_viewport::{ClearMode, UpdateMode};
use godot::classes::{QuadMesh, RenderingServer, ShaderMaterial, SubViewport, ViewportTexture};
use godot::prelude::*;
use terrain_core::interaction_field::{self as core, InteractionConfig, MAX_STAMPS};

use super::terrain_interactor::{with_interactors, Params};

const STAMP_SHADER: &str =
    "res://addons/wandering_terrain/shaders/interaction_field_stamp.gdshader";

/// The global uniforms and their types (registered when the extension loads, so any shader including
/// `interaction_field.gdshaderinc` compiles with or without a terrain).
const GLOBALS: [(&str, G); 5] = [
    ("terrain_interaction_field", G::SAMPLER2D),
    ("terrain_interaction_window", G::VEC4),
    ("terrain_interaction_params", G::VEC4),
    ("terrain_interaction_origin", G::VEC4),
    ("terrain_interaction_scale", G::VEC4),
];

/// Quads drawn a frame: each stamp's rectangle in up to four pieces where the slots wrap, and the two
/// cleared strips' (the stamp shader places them from its uniforms).
const MAX_QUADS: usize = MAX_STAMPS * 4 + 8;
/// Floats per quad in a 2D MultiMesh buffer (a Transform2D).
const QUAD_FLOATS: usize = 8;

/// The instance id of the node whose field the globals show (0: none).
static OWNER: AtomicI64 = AtomicI64::new(0);

/// Registers the global uniforms (at extension load; kept when the project declares them itself).
pub fn register_globals() {
    let mut rs = RenderingServer::singleton();
    let settings = godot::classes::ProjectSettings::singleton();
    for (name, ty) in GLOBALS {
        if settings.has_setting(&format!("shader_globals/{name}")) {
            continue;
        }
        let default = match ty {
            G::VEC4 => Vector4::ZERO.to_variant(),
            _ => Variant::nil(),
        };
        rs.global_shader_parameter_add(&StringName::from(name), ty, &default);
    }
}

/// Checks a node's new field settings; false when refused (the error printed names the property and its
/// range).
pub fn settings_ok(class: &str, size: i64, texel: f64, recovery: f64) -> bool {
    match InteractionConfig::new(size, texel, recovery) {
        Ok(_) => true,
        Err(e) => {
            godot_error!("{class}.{e}; keeping the previous value");
            false
        }
    }
}

/// The stamp shader's uniform names, interned once.
struct Names {
    stamps: StringName,
    stamp_from: StringName,
    clears: StringName,
    frame_info: StringName,
    window_info: StringName,
    params: StringName,
    window: StringName,
    origin: StringName,
    scale: StringName,
    texture: StringName,
}

impl Names {
    fn new() -> Self {
        let n = StringName::from;
        Self {
            stamps: n("stamps"),
            stamp_from: n("stamp_from"),
            clears: n("clears"),
            frame_info: n("frame_info"),
            window_info: n("window_info"),
            params: n(GLOBALS[2].0),
            window: n(GLOBALS[1].0),
            origin: n(GLOBALS[3].0),
            scale: n(GLOBALS[4].0),
            texture: n(GLOBALS[0].0),
        }
    }
}

/// The viewport that keeps the field texture, and kept buffers for its draws.
struct Gpu {
    viewport: Gd<SubViewport>,
    item: Rid,
    multimesh: Rid,
    _quad: Gd<QuadMesh>,
    material: Gd<ShaderMaterial>,
    stamps: PackedVector4Array,
    stamp_from: PackedVector4Array,
    clears: PackedVector4Array,
    /// The window uniform last sent.
    window_sent: Option<Vector4i>,
}

pub struct InteractionField {
    core: core::InteractionField,
    gpu: Option<Gpu>,
    names: Names,
    /// The node's world origin and X/Z scale when the field was last pressed (its terrain frame).
    placed: Option<(Vector3, Vector3)>,
    /// The window the globals were last given.
    window_sent: Option<[i64; 2]>,
    was_mine: bool,
    owner: i64,
    /// The origin and scale, and the parameters, the globals were last given.
    placement_sent: Option<(Vector3, Vector3)>,
    params_sent: Option<Vector4>,
    /// Kept buffers: the visible interactors' positions and settings, their X/Z and ground heights.
    seen: Vec<(Vector3, Option<Vector3>, Params)>,
    /// Where the next frame's stamps start among `seen` when there are more than it draws.
    turn: usize,
    xz: Vec<Vector2>,
    heights: Vec<f64>,
}

impl InteractionField {
    /// The field of terrain node `node` with its `interaction_*` settings, its viewport an internal child
    /// of `node`; None while off, with invalid settings or outside the tree.
    pub fn made_for(
        node: &Gd<Node3D>,
        enabled: bool,
        size: i64,
        texel: f64,
        recovery: f64,
    ) -> Option<Self> {
        let config = InteractionConfig::new(size, texel, recovery).ok()?;
        if !enabled || !node.is_inside_tree() {
            return None;
        }
        let mut f = Self {
            core: core::InteractionField::new(config),
            gpu: None,
            names: Names::new(),
            placed: None,
            window_sent: None,
            was_mine: false,
            owner: node.instance_id().to_i64(),
            placement_sent: None,
            params_sent: None,
            seen: Vec::new(),
            turn: 0,
            xz: Vec::new(),
            heights: Vec::new(),
        };
        f.gpu = Gpu::new(config.size(), &mut node.clone().upcast());
        Some(f)
    }

    /// The field texture (None without a renderer's viewport).
    pub fn texture(&self) -> Option<Gd<ViewportTexture>> {
        self.gpu.as_ref().and_then(|g| g.viewport.get_texture())
    }

    /// Whether it needs the node's process pass: an interactor may press, or a press still recovers.
    pub fn is_busy(&self) -> bool {
        super::terrain_interactor::any_interactor() || !self.core.is_blank()
    }

    /// The trample (0..=1) at world point `at`.
    pub fn trample(&self, at: Vector3) -> f32 {
        let Some((o, s)) = self.placed else {
            return 0.0;
        };
        let x = (at.x as f64 - o.x as f64) / s.x as f64;
        let z = (at.z as f64 - o.z as f64) / s.z as f64;
        self.core.trample(x, z)
    }

    /// A frame: time moves on by `dt`, the window follows world point `centre`, every interactor presses
    /// (`ground`: the world heights of the ground at world X/Z points, NaN where unknown), and the GPU
    /// draws what changed.
    pub fn update(
        &mut self,
        node: &Gd<Node3D>,
        dt: f64,
        centre: Vector3,
        ground: impl FnOnce(&[Vector2], &mut Vec<f64>),
    ) {
        let placed = (
            node.get_global_position(),
            node.get_global_basis().get_scale(),
        );
        if self.placed.is_some_and(|p| p != placed) {
            // The terrain moved (a floating origin's shift, a script): its presses no longer fit it.
            self.core.clear();
        }
        self.placed = Some(placed);
        let (o, s) = placed;
        let to_terrain = |p: Vector3| {
            [
                (p.x as f64 - o.x as f64) / s.x as f64,
                (p.z as f64 - o.z as f64) / s.z as f64,
            ]
        };
        self.core.begin_frame(dt, to_terrain(centre));
        let seen = &mut self.seen;
        seen.clear();
        let frame = godot::classes::Engine::singleton().get_process_frames();
        with_interactors(|list| {
            for e in list {
                if e.node.is_visible_in_tree() {
                    let at = e.node.get_global_position();
                    seen.push((at, e.previous(frame, at), e.params));
                }
            }
        });
        self.xz.clear();
        self.xz
            .extend(self.seen.iter().map(|(p, _, _)| Vector2::new(p.x, p.z)));
        self.heights.clear();
        if !self.seen.is_empty() {
            ground(&self.xz, &mut self.heights);
        }
        // With more interactors than a frame draws, they take turns (the first drawn moves on each frame).
        let n = self.seen.len();
        let first = if n > MAX_STAMPS { self.turn % n } else { 0 };
        self.turn = self.turn.wrapping_add(MAX_STAMPS);
        for i in 0..n {
            let k = (first + i) % n;
            let (at, before, params) = &self.seen[k];
            let h = self.heights.get(k).copied().unwrap_or(f64::NAN);
            let from = to_terrain(before.unwrap_or(*at));
            if let Some(st) = params.stamp(*at, h, from, to_terrain(*at), s.x as f64) {
                self.core.stamp(&st);
            }
        }
        self.send_globals();
        if let Some(g) = self.gpu.as_mut() {
            g.draw(&self.core, &self.names);
        }
    }

    /// Gives the globals this field when no other node's field has them.
    fn send_globals(&mut self) {
        let mine = match OWNER.compare_exchange(0, self.owner, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(v) => v == self.owner,
        };
        let fresh = mine && !self.was_mine;
        self.was_mine = mine;
        if !mine {
            return;
        }
        let mut rs = RenderingServer::singleton();
        let n = &self.names;
        let cfg = self.core.config();
        if fresh {
            if let Some(t) = self.texture() {
                rs.global_shader_parameter_set(&n.texture, &t.to_variant());
            }
            self.window_sent = None;
            self.placement_sent = None;
            self.params_sent = None;
        }
        if let Some((o, s)) = self.placed.filter(|p| Some(*p) != self.placement_sent) {
            rs.global_shader_parameter_set(
                &n.origin,
                &Vector4::new(o.x, o.y, o.z, 0.0).to_variant(),
            );
            rs.global_shader_parameter_set(
                &n.scale,
                &Vector4::new(s.x, s.y, s.z, 0.0).to_variant(),
            );
            self.placement_sent = self.placed;
        }
        if let Some(w) = self.core.origin().filter(|w| Some(*w) != self.window_sent) {
            let size = cfg.size() as i64;
            let v = Vector4::new(
                w[0] as f32,
                w[1] as f32,
                w[0].rem_euclid(size) as f32,
                w[1].rem_euclid(size) as f32,
            );
            rs.global_shader_parameter_set(&n.window, &v.to_variant());
            self.window_sent = Some(w);
        }
        // All zero (size 0) while nothing is pressed: the shaders then read no texel (the terrain's vertices,
        // every grass blade), and the uniform, unchanged, is not sent again (no call a frame for a terrain
        // nobody walks on).
        let live = self.gpu.is_some() && self.window_sent.is_some() && !self.core.is_blank();
        let params = if live {
            Vector4::new(
                cfg.size() as f32,
                cfg.texel() as f32,
                self.core.now() as f32,
                (1.0 / cfg.recovery_units()) as f32,
            )
        } else {
            Vector4::ZERO
        };
        if self.params_sent != Some(params) {
            rs.global_shader_parameter_set(&n.params, &params.to_variant());
            self.params_sent = Some(params);
        }
    }

    /// Frees the viewport and gives the globals up.
    pub fn detach(&mut self) {
        if let Some(g) = self.gpu.take() {
            g.free();
        }
        if OWNER
            .compare_exchange(self.owner, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            let mut rs = RenderingServer::singleton();
            rs.global_shader_parameter_set(&self.names.params, &Vector4::ZERO.to_variant());
        }
        self.was_mine = false;
    }
}

impl Gpu {
    fn new(size: usize, node: &mut Gd<Node>) -> Option<Self> {
        let shader = godot::tools::try_load::<godot::classes::Shader>(STAMP_SHADER).ok()?;
        let mut material = ShaderMaterial::new_gd();
        material.set_shader(&shader);
        let mut vp = SubViewport::new_alloc();
        vp.set_size(Vector2i::new(size as i32, size as i32));
        vp.set_disable_3d(true);
        // Transparent: an RGBA8 target, whose bytes hold the stored times exactly.
        vp.set_transparent_background(true);
        vp.set_clear_mode(ClearMode::NEVER);
        vp.set_update_mode(UpdateMode::DISABLED);
        let mut rs = RenderingServer::singleton();
        let item = rs.canvas_item_create();
        if let Some(world) = vp.get_world_2d() {
            rs.canvas_item_set_parent(item, world.get_canvas());
        }
        rs.canvas_item_set_material(item, material.get_rid());
        let mut quad = QuadMesh::new_gd();
        quad.set_size(Vector2::ONE);
        let multimesh = rs.multimesh_create();
        rs.multimesh_set_mesh(multimesh, quad.get_rid());
        rs.multimesh_allocate_data(
            multimesh,
            MAX_QUADS as i32,
            MultimeshTransformFormat::TRANSFORM_2D,
        );
        // Identity transforms, set once: the shader places every quad.
        let mut quads = PackedFloat32Array::new();
        for _ in 0..MAX_QUADS {
            quads.extend([1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        }
        debug_assert_eq!(quads.len(), MAX_QUADS * QUAD_FLOATS);
        rs.multimesh_set_buffer(multimesh, &quads);
        // The quads cover any pixel: no culling by the (unit) mesh's bounds.
        rs.canvas_item_set_custom_rect_ex(item, true)
            .rect(Rect2::new(Vector2::ZERO, Vector2::splat(size as f32)))
            .done();
        rs.canvas_item_add_multimesh(item, multimesh);
        node.call_deferred(
            "add_child",
            &[
                vp.to_variant(),
                false.to_variant(),
                InternalMode::BACK.to_variant(),
            ],
        );
        let mut stamps = PackedVector4Array::new();
        stamps.resize(MAX_STAMPS);
        let mut stamp_from = PackedVector4Array::new();
        stamp_from.resize(MAX_STAMPS);
        let mut clears = PackedVector4Array::new();
        clears.resize(2);
        Some(Self {
            viewport: vp,
            item,
            multimesh,
            _quad: quad,
            material,
            stamps,
            stamp_from,
            clears,
            window_sent: None,
        })
    }

    /// Draws this frame's work of `core` (nothing when there is none).
    fn draw(&mut self, core: &core::InteractionField, n: &Names) {
        let f = core.frame();
        if f.is_empty() {
            return;
        }
        let size = core.config().size() as u32;
        let s = self.stamps.as_mut_slice();
        let p = self.stamp_from.as_mut_slice();
        for (i, st) in f.stamps.iter().enumerate() {
            let r = if st.square { -st.radius } else { st.radius };
            s[i] = Vector4::new(st.centre[0], st.centre[1], r, st.falloff);
            p[i] = Vector4::new(st.from[0], st.from[1], st.peak, 0.0);
        }
        let c = self.clears.as_mut_slice();
        for (i, r) in f.clears.iter().take(2).enumerate() {
            c[i] = Vector4::new(r[0] as f32, r[1] as f32, r[2] as f32, r[3] as f32);
        }
        let o = core.origin().unwrap_or_default();
        let window = Vector4i::new(
            size as i32,
            o[0].rem_euclid(size as i64) as i32,
            o[1].rem_euclid(size as i64) as i32,
            0,
        );
        let frame = Vector4::new(
            core.now().floor() as f32,
            f.stamps.len() as f32,
            f.clears.len().min(2) as f32,
            if f.clear_all { 1.0 } else { 0.0 },
        );
        let mut rs = RenderingServer::singleton();
        // Straight to the server: the material's own parameter list is never read back.
        let m = self.material.get_rid();
        if !f.stamps.is_empty() {
            rs.material_set_param(m, &n.stamps, &self.stamps.to_variant());
            rs.material_set_param(m, &n.stamp_from, &self.stamp_from.to_variant());
        }
        if !f.clears.is_empty() {
            rs.material_set_param(m, &n.clears, &self.clears.to_variant());
        }
        rs.material_set_param(m, &n.frame_info, &frame.to_variant());
        if self.window_sent != Some(window) {
            rs.material_set_param(m, &n.window_info, &window.to_variant());
            self.window_sent = Some(window);
        }
        self.viewport.set_update_mode(UpdateMode::ONCE);
    }

    fn free(self) {
        let mut rs = RenderingServer::singleton();
        rs.free_rid(self.item);
        rs.free_rid(self.multimesh);
        let mut vp = self.viewport;
        if vp.is_instance_valid() {
            vp.queue_free();
        }
    }
}

impl InteractionField {
    /// Forgets every press (the GPU clears its texture at the next frame).
    pub fn clear(&mut self) {
        self.core.clear();
    }
}
