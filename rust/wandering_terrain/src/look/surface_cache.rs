//! A terrain's surface cache on the GPU: terrain_core's `surface_cache.rs` decides which texels to draw;
//! here a SubViewport (an internal child of the node, never cleared) draws them with the terrain's fill
//! shader (`Fill`), and the global shader uniforms that `terrain_surface.gdshaderinc` reads are kept
//! current. One terrain owns the globals at a time (the first whose cache draws).

use godot::classes::node::InternalMode;
use godot::classes::rendering_server::GlobalShaderParameterType as G;
use godot::classes::sub_viewport::{ClearMode, UpdateMode};
use godot::classes::{RenderingServer, ShaderMaterial, SubViewport};
use godot::prelude::*;
use std::sync::atomic::{AtomicI64, Ordering};
use terrain_core::surface_cache::{self as plan, AtlasRect, SurfaceCacheConfig, PLANES};

/// A terrain class's fill: its shader and the uniforms of its look copied from the node's material (a
/// user's colours; the layers come from the TerrainMaterial).
pub struct Fill {
    shader: &'static str,
    label: &'static str,
    look: &'static [&'static str],
}

/// TerrainNode's fill (`terrain_node_look.gdshaderinc`).
pub const TERRAIN_NODE_FILL: Fill = Fill {
    shader: "res://addons/wandering_terrain/shaders/terrain_surface_fill.gdshader",
    label: "TerrainNode surface cache",
    look: &["albedo", "slope_albedo"],
};

/// WanderingTerrain's fill (`wandering_terrain_look.gdshaderinc`).
pub const WANDERING_FILL: Fill = Fill {
    shader: "res://addons/wandering_terrain/shaders/wandering_surface_fill.gdshader",
    label: "WanderingTerrain surface cache",
    look: &[
        "checker",
        "albedo",
        "color_tile_scaling",
        "color_tile_on",
        "color_tile_off",
        "border_thickness",
        "color_border",
    ],
};

/// The global uniforms, their types (registered when the extension loads, so any shader that includes
/// `terrain_surface.gdshaderinc` compiles, with or without a terrain).
const GLOBALS: [(&str, G); 6] = [
    ("terrain_surface_cache", G::SAMPLER2D),
    ("terrain_surface_params", G::VEC4),
    ("terrain_surface_windows_a", G::IVEC4),
    ("terrain_surface_windows_b", G::IVEC4),
    ("terrain_surface_origin", G::VEC4),
    ("terrain_surface_scale", G::VEC4),
];

/// Edited rectangles kept between two updates before they merge into one.
const MAX_MARKS: usize = 32;

/// The instance id of the node whose cache the globals show (0: none).
static OWNER: AtomicI64 = AtomicI64::new(0);

/// Registers the global uniforms (once, at extension load; kept when a project declares them itself in
/// its settings, which the server loaded already — asking the server would be an editor-only call).
pub fn register_globals() {
    let mut rs = RenderingServer::singleton();
    let settings = godot::classes::ProjectSettings::singleton();
    for (name, ty) in GLOBALS {
        if settings.has_setting(&format!("shader_globals/{name}")) {
            continue;
        }
        let name = StringName::from(name);
        let default = match ty {
            G::VEC4 => Vector4::ZERO.to_variant(),
            G::IVEC4 => Vector4i::ZERO.to_variant(),
            _ => Variant::nil(),
        };
        rs.global_shader_parameter_add(&name, ty, &default);
    }
}

/// Pieces of a frame the texels depend on: the node's (shifted) origin and scale.
type Placement = (Vector3, Vector3);

pub struct SurfaceCache {
    plan: plan::SurfaceCache,
    viewport: Option<Gd<SubViewport>>,
    item: Rid,
    fill: Gd<ShaderMaterial>,
    look: &'static [&'static str],
    rects: Vec<AtlasRect>,
    placed: Option<Placement>,
    /// Edited terrain rectangles (terrain units, lo and hi corners): each is drawn at the next two window
    /// updates, so the one that shows the edit's data surely draws it.
    fresh: Vec<[f64; 4]>,
    older: Vec<[f64; 4]>,
    /// Everything waits to be drawn (made, or invalidated): the node updates it without waiting for new
    /// window data.
    stale: bool,
    /// What changes only with the frame, the spacing or the owner (the fill's size and texel; the
    /// globals' texture, parameters, origin and scale) was sent; a drawing frame sends the windows only.
    constants_sent: bool,
    /// The globals were this cache's at the last update.
    was_mine: bool,
    owner: i64,
}

/// Checks a node's new `surface_cache_levels` and `surface_cache_size` (`class`: the node's, for the
/// error); false when refused (the error printed names the property and its range).
pub fn settings_ok(class: &str, levels: i64, size: i64) -> bool {
    match SurfaceCacheConfig::new(levels, size) {
        Ok(_) => true,
        Err(e) => {
            godot_error!("{class}.{e}; keeping the previous value");
            false
        }
    }
}

impl SurfaceCache {
    /// The cache of terrain node `node` with its `surface_cache_*` settings, attached to it; None while
    /// it is off, its settings are invalid or the node is outside the tree.
    pub fn made_for(
        node: &Gd<Node3D>,
        enabled: bool,
        levels: i64,
        size: i64,
        fill: &Fill,
    ) -> Option<Self> {
        let cfg = SurfaceCacheConfig::new(levels, size).ok()?;
        if !enabled || !node.is_inside_tree() {
            return None;
        }
        let mut cache = SurfaceCache::new(cfg, fill);
        cache.attach(&mut node.clone().upcast(), node.instance_id().to_i64());
        Some(cache)
    }

    pub fn new(config: SurfaceCacheConfig, fill: &Fill) -> Self {
        Self {
            plan: plan::SurfaceCache::new(config, 1.0),
            viewport: None,
            item: Rid::Invalid,
            fill: crate::look::terrain_material::default_material(fill.shader, fill.label),
            look: fill.look,
            rects: Vec::new(),
            placed: None,
            fresh: Vec::new(),
            older: Vec::new(),
            stale: true,
            constants_sent: false,
            was_mine: false,
            owner: 0,
        }
    }

    /// The fill's material: the node sets its parameters on it as on its own material.
    pub fn material_mut(&mut self) -> &mut Gd<ShaderMaterial> {
        &mut self.fill
    }

    /// Copies the look's uniforms from the node's `material` (unset ones go back to the fill's defaults).
    pub fn copy_look(&mut self, material: Option<&Gd<ShaderMaterial>>) {
        for name in self.look {
            let v = material.map_or(Variant::nil(), |m| m.get_shader_parameter(*name));
            self.fill.set_shader_parameter(*name, &v);
        }
    }

    /// Whether the scene's shaders read this cache (the globals were this cache's at its last update).
    pub fn provides(&self) -> bool {
        self.was_mine && self.viewport.is_some()
    }

    pub fn texels_written(&self) -> u64 {
        self.plan.texels_written()
    }

    /// The atlas texture (None before the node entered the tree).
    pub fn texture(&self) -> Option<Gd<godot::classes::ViewportTexture>> {
        self.viewport.as_ref().and_then(|v| v.get_texture())
    }

    /// Makes the viewport, an internal child of `node` (added deferred: `node` may be running).
    pub fn attach(&mut self, node: &mut Gd<Node>, owner: i64) {
        if self.viewport.is_some() {
            return;
        }
        let [w, h] = self.plan.config().atlas_size();
        let mut vp = SubViewport::new_alloc();
        vp.set_size(Vector2i::new(w as i32, h as i32));
        vp.set_disable_3d(true);
        vp.set_transparent_background(true);
        vp.set_clear_mode(ClearMode::NEVER);
        vp.set_update_mode(UpdateMode::DISABLED);
        let mut rs = RenderingServer::singleton();
        let item = rs.canvas_item_create();
        if let Some(world) = vp.get_world_2d() {
            rs.canvas_item_set_parent(item, world.get_canvas());
        }
        rs.canvas_item_set_material(item, self.fill.get_rid());
        node.call_deferred(
            "add_child",
            &[
                vp.to_variant(),
                false.to_variant(),
                InternalMode::BACK.to_variant(),
            ],
        );
        self.item = item;
        self.viewport = Some(vp);
        self.owner = owner;
        self.plan.invalidate_all();
    }

    /// Frees the viewport and gives the globals up (the node leaves the tree, or the cache is turned off).
    pub fn detach(&mut self) {
        if self.item.is_valid() {
            RenderingServer::singleton().free_rid(self.item);
            self.item = Rid::Invalid;
        }
        // Queued: freeing a child now would notify the node, which may be running this.
        if let Some(mut vp) = self.viewport.take() {
            if vp.is_instance_valid() {
                vp.queue_free();
            }
        }
        if OWNER
            .compare_exchange(self.owner, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            let mut rs = RenderingServer::singleton();
            rs.global_shader_parameter_set("terrain_surface_params", &Vector4::ZERO.to_variant());
        }
        self.placed = None;
    }

    /// Everything is drawn again (a material, source or frame change).
    pub fn invalidate_all(&mut self) {
        self.plan.invalidate_all();
        self.stale = true;
    }

    /// Whether the cache waits to be drawn whole (the node updates it even with a still camera).
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Terrain rectangle `lo`..`hi` (terrain units of the shader, after the origin shift) changed.
    pub fn mark_edited(&mut self, lo: [f64; 2], hi: [f64; 2]) {
        self.fresh.push([lo[0], lo[1], hi[0], hi[1]]);
        // Bounded while nothing is drawn (a node not drawable yet): many edits become their bounding box.
        if self.fresh.len() > MAX_MARKS {
            let all = self.fresh.iter().fold(self.fresh[0], |a, r| {
                [
                    a[0].min(r[0]),
                    a[1].min(r[1]),
                    a[2].max(r[2]),
                    a[3].max(r[3]),
                ]
            });
            self.fresh.clear();
            self.fresh.push(all);
        }
    }

    /// A data window (or a level's reach) moved from rectangle `a` to `b` (`[lo, hi]`, terrain units of
    /// the shader): the texels along its edges read other data now, those within `m` of the edges' old
    /// and new places are drawn at the next update.
    pub fn mark_window_moved(&mut self, a: [[f64; 2]; 2], b: [[f64; 2]; 2], m: f64) {
        for k in 0..2 {
            let j = 1 - k;
            let span = [a[0][j].min(b[0][j]) - m, a[1][j].max(b[1][j]) + m];
            for e in 0..2 {
                if a[e][k] == b[e][k] {
                    continue;
                }
                let mut lo = [0.0; 2];
                let mut hi = [0.0; 2];
                (lo[k], hi[k]) = (a[e][k].min(b[e][k]) - m, a[e][k].max(b[e][k]) + m);
                (lo[j], hi[j]) = (span[0], span[1]);
                self.plan.invalidate(lo, hi);
            }
        }
    }

    /// The terrain units the cache reaches from its centre (half its last level's side).
    pub fn reach(&self) -> f64 {
        self.level_reach(self.plan.config().levels() - 1)
    }

    /// Half the side of level `l` (terrain units).
    pub fn level_reach(&self, l: usize) -> f64 {
        0.5 * self.plan.config().size() as f64 * self.plan.texel() * f64::from(1u32 << l)
    }

    /// Terrain units per texel of the first level.
    pub fn texel(&self) -> f64 {
        self.plan.texel()
    }

    /// After the data windows showed new data: follows the camera at `centre` (terrain units), draws what
    /// it uncovered and what edits changed, and keeps the globals current. `texel`: the terrain's sample
    /// spacing (level 0's texel); `placed`: the node's origin and scale.
    pub fn update(&mut self, centre: [f64; 2], texel: f64, placed: Placement) {
        let Some(vp) = self.viewport.as_mut() else {
            return;
        };
        if !vp.is_inside_tree() {
            return;
        }
        self.stale = false;
        if self.placed != Some(placed) || self.plan.texel() != texel {
            self.plan = plan::SurfaceCache::new(self.plan.config(), texel);
            self.placed = Some(placed);
            self.constants_sent = false;
        }
        for r in self.older.drain(..).chain(self.fresh.iter().copied()) {
            self.plan.invalidate([r[0], r[1]], [r[2], r[3]]);
        }
        std::mem::swap(&mut self.older, &mut self.fresh);
        self.plan.update(centre, &mut self.rects);
        let mine = OWNER.load(Ordering::Acquire) == self.owner
            || OWNER
                .compare_exchange(0, self.owner, Ordering::AcqRel, Ordering::Acquire)
                .is_ok();
        if mine && !self.was_mine {
            self.constants_sent = false;
        }
        self.was_mine = mine;
        if self.rects.is_empty() {
            return;
        }
        self.draw(texel);
        if mine {
            self.publish(placed);
        }
        self.constants_sent = true;
    }

    /// Asks the viewport to draw this frame's rectangles on every plane.
    fn draw(&mut self, texel: f64) {
        let cfg = self.plan.config();
        let size = cfg.size();
        // The shader's `ivec2[4]`: x, z pairs (levels past the last repeat it).
        let windows: PackedInt32Array = (0..4)
            .flat_map(|l| {
                let o = self.plan.origin(l.min(cfg.levels() - 1)).unwrap_or([0, 0]);
                [o[0] as i32, o[1] as i32]
            })
            .collect();
        let m = &mut self.fill;
        if !self.constants_sent {
            m.set_shader_parameter("cache_size", &(size as i32).to_variant());
            m.set_shader_parameter("cache_texel", &(texel as f32).to_variant());
        }
        m.set_shader_parameter("cache_windows", &windows.to_variant());
        let mut rs = RenderingServer::singleton();
        rs.canvas_item_clear(self.item);
        for r in &self.rects {
            for p in 0..PLANES {
                let at = Rect2::new(
                    Vector2::new((p * size + r.x) as f32, r.y as f32),
                    Vector2::new(r.w as f32, r.h as f32),
                );
                rs.canvas_item_add_rect(self.item, at, Color::WHITE);
            }
        }
        if let Some(vp) = self.viewport.as_mut() {
            vp.set_update_mode(UpdateMode::ONCE);
        }
    }

    /// The globals `terrain_surface.gdshaderinc` reads: the windows each time, the rest when not sent.
    fn publish(&self, (o, s): Placement) {
        let cfg = self.plan.config();
        let mut rs = RenderingServer::singleton();
        let w = |l: usize| self.plan.origin(l.min(cfg.levels() - 1)).unwrap_or([0, 0]);
        let pair = |a: usize| {
            let (p, q) = (w(a), w(a + 1));
            Vector4i::new(p[0] as i32, p[1] as i32, q[0] as i32, q[1] as i32)
        };
        rs.global_shader_parameter_set("terrain_surface_windows_a", &pair(0).to_variant());
        rs.global_shader_parameter_set("terrain_surface_windows_b", &pair(2).to_variant());
        if self.constants_sent {
            return;
        }
        if let Some(t) = self.texture() {
            rs.global_shader_parameter_set("terrain_surface_cache", &t.to_variant());
        }
        let params = Vector4::new(
            self.plan.texel() as f32,
            cfg.size() as f32,
            cfg.levels() as f32,
            1.0,
        );
        rs.global_shader_parameter_set("terrain_surface_params", &params.to_variant());
        rs.global_shader_parameter_set(
            "terrain_surface_origin",
            &Vector4::new(o.x, o.y, o.z, 0.0).to_variant(),
        );
        rs.global_shader_parameter_set(
            "terrain_surface_scale",
            &Vector4::new(s.x, s.y, s.z, 0.0).to_variant(),
        );
    }
}
