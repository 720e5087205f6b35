//! Collision of the terrain nodes through `PhysicsServer3D`: the engine's side of the tile policy
//! (`terrain_core::collision_tiles`). One static body with one heightmap shape per tile, owned by the
//! node, no nodes in the user's scene. Bodies are kept in slots and reused, so moving and editing only
//! rewrite the data of the tiles concerned (one body per tile, not one body of many shapes: a body's shape
//! change costs the engine time in its number of shapes).

use crate::physics::resting_bodies::TileSurface;
use godot::classes::physics_server_3d::{BodyMode, BodyParameter, BodyState};
use godot::classes::{Engine, PhysicsMaterial, PhysicsServer3D};
use godot::prelude::*;
use std::collections::HashMap;
use terrain_core::clipmap_data::Frame;
use terrain_core::clipmap_stream::SharedSamples;
use terrain_core::collision::{TileGrid, TileId};
use terrain_core::collision_tiles::{self as plan, CollisionMode, TileSettings, TileSink};
use terrain_core::sample_rect::SampleRect;
use terrain_core::samples::Samples;

/// `collision_mode` values.
pub const MODE_DISABLED: i64 = 0;
pub const MODE_DYNAMIC: i64 = 1;
pub const MODE_FULL: i64 = 2;

/// What the user sets in a node's `collision` object (`terrain_collision.rs` validates it).
#[derive(Clone, PartialEq)]
pub struct CollisionSettings {
    pub mode: i64,
    pub radius: f64,
    pub layer: u32,
    pub mask: u32,
    pub material: Option<Gd<PhysicsMaterial>>,
    pub subdivision: u32,
    /// Lift the bodies a raise would swallow (`resting_bodies.rs`).
    pub lift_bodies: bool,
    /// Tiles follow the node's own target (camera) besides the collision targets.
    pub follow_target: bool,
    /// World units a tile's collision may differ from its full subdivision's, for fewer points where the
    /// ground is flat or gentle (`Tiling::with_tolerance`); 0: every tile at `subdivision`.
    pub tolerance: f64,
}

impl Default for CollisionSettings {
    fn default() -> Self {
        // DYNAMIC by default: bounded memory whatever the terrain's size; FULL is one click away.
        Self {
            mode: MODE_DYNAMIC,
            radius: 64.0,
            layer: 1,
            mask: 1,
            material: None,
            subdivision: 4,
            lift_bodies: true,
            follow_target: true,
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

/// Default `collision_tolerance`: 1 cm, within the accuracy subdivision 4 itself has on hilly ground.
pub const DEFAULT_TOLERANCE: f64 = 0.01;
/// Largest `collision_tolerance`.
pub const MAX_TOLERANCE: f64 = 10.0;

/// A heightmap shape's heights in the engine's own float type: f32, or f64 in a double-precision Godot
/// build, whose heightmap shapes take only a PackedFloat64Array (gdext's `double-precision` feature makes
/// `real` f64; see docs/big-worlds.md).
type Heights = PackedArray<real>;

/// A heightmap shape's heights, width and depth from its data (the engine's copy, before an edit).
fn old_heights(data: &Variant) -> Option<(Vec<f32>, usize, usize)> {
    let d = data.try_to::<VarDictionary>().ok()?;
    let w = d.get("width")?.try_to::<i64>().ok()? as usize;
    let dp = d.get("depth")?.try_to::<i64>().ok()? as usize;
    let h = d.get("heights")?.try_to::<Heights>().ok()?;
    // `real` is f64 in a double-precision build.
    #[allow(clippy::unnecessary_cast)]
    let h: Vec<f32> = h.as_slice().iter().map(|&v| v as f32).collect();
    (w >= 2 && dp >= 2 && h.len() == w * dp).then_some((h, w, dp))
}

/// A tile's shape placement: grid `step` and `centre` in terrain units, through the node's frame.
fn shape_transform(centre: [f64; 2], step: f64, frame: &Frame) -> Transform3D {
    let (o, s) = (frame.origin, frame.scale);
    Transform3D::new(
        Basis::from_diagonal((step * s[0]) as f32, s[1] as f32, (step * s[2]) as f32),
        Vector3::new(
            (centre[0] * s[0] + o[0]) as f32,
            o[1] as f32,
            (centre[1] * s[2] + o[2]) as f32,
        ),
    )
}

/// Puts a tile's body where `xf` (the tile's whole placement) says: the scale on its shape (with
/// `rescale`: a new tile or a new scale), the translation on the body. A static body's transform reaches
/// the broadphase at once, so a query right after an origin shift finds the ground; a shape's transform
/// would wait for the next physics step.
fn place_slot(ps: &mut Gd<PhysicsServer3D>, (body, _): (Rid, Rid), xf: Transform3D, rescale: bool) {
    if rescale {
        ps.body_set_shape_transform(body, 0, Transform3D::new(xf.basis, Vector3::ZERO));
    }
    let at = Transform3D::new(Basis::IDENTITY, xf.origin);
    ps.body_set_state(body, BodyState::TRANSFORM, &at.to_variant());
}

/// Free slots kept with their data (a DYNAMIC working set); others keep a 2 x 2 placeholder.
const RESERVE: usize = 64;

/// The node's collision: the tile policy and the engine's bodies it drives.
#[derive(Default)]
pub struct CollisionTiles {
    pub settings: CollisionSettings,
    plan: plan::CollisionTiles,
    engine: EngineTiles,
    /// The layers' friction and bounce (None: no layer has a physics material, every tile takes the
    /// settings' material).
    surfaces: Option<SurfaceFrictions>,
    /// What the tiles follow besides the node's own target (`collision_targets.rs`).
    pub targets: crate::physics::collision_targets::CollisionTargets,
}

/// What a tile's body takes from the ground it holds: the blend's input (to find the tile's dominant
/// layer) and each layer's (friction, bounce) as the engine takes them (None: the settings' material).
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceFrictions {
    pub blending: terrain_core::material::Blending,
    pub layers: Vec<Option<(f32, f32)>>,
    /// The node's vertical over horizontal scale (the cliff layer reads world slopes).
    pub grad_scale: [f32; 2],
}

/// A physics material's (friction, bounce) as a body takes them: as StaticBody3D does, a rough material's
/// friction and an absorbent one's bounce are negative (the engines combine those by max).
pub fn engine_params(m: Option<&Gd<PhysicsMaterial>>) -> (f32, f32) {
    match m {
        Some(m) => {
            let f = m.get_friction() * if m.is_rough() { -1.0 } else { 1.0 };
            let b = m.get_bounce() * if m.is_absorbent() { -1.0 } else { 1.0 };
            (f, b)
        }
        None => (1.0, 0.0),
    }
}

/// The engine's tiles with each written tile's body given its dominant layer's friction and bounce.
struct Surfaced<'a, S: ?Sized> {
    engine: &'a mut EngineTiles,
    terrain: &'a S,
    surfaces: &'a SurfaceFrictions,
}

impl<S: Samples + ?Sized> TileSink for Surfaced<'_, S> {
    fn write(&mut self, id: TileId, g: &TileGrid, frame: &Frame) {
        self.engine.write(id, g, frame);
        let half = 0.5 * (g.width.max(g.depth) - 1) as f64 * g.step;
        let f = self.surfaces;
        let own = terrain_core::material::dominant_layer(
            &f.blending,
            self.terrain,
            g.centre,
            half,
            f.grad_scale,
        )
        .and_then(|l| f.layers.get(l).copied().flatten());
        let params = own.unwrap_or_else(|| engine_params(self.engine.settings.material.as_ref()));
        if let Some(&slot) = self.engine.used.get(&id) {
            self.engine.set_params(self.engine.slots[slot].0, params);
        }
    }
    fn release(&mut self, id: TileId) {
        self.engine.release(id);
    }
    fn place(
        &mut self,
        frame: &Frame,
        rescale: bool,
        tiles: &mut dyn Iterator<Item = (TileId, [f64; 2])>,
    ) {
        self.engine.place(frame, rescale, tiles);
    }
}

/// The bodies and shapes in the physics server, one slot a tile.
#[derive(Default)]
struct EngineTiles {
    /// Layers, mask, material and lifting (the body settings).
    settings: CollisionSettings,
    /// The physics space and the node reported as collider; None outside the tree.
    space: Option<(Rid, InstanceId)>,
    /// The tiles drawn while the scene tree shows collision shapes (`collision_debug.rs`).
    debug: Option<crate::physics::collision_debug::CollisionDebug>,
    /// (body, shape) per slot.
    slots: Vec<(Rid, Rid)>,
    /// Each slot's grid step (terrain units): a tile's step changes with the subdivision its ground takes
    /// (`collision_tolerance`), and the shape's scale with it.
    steps: Vec<f64>,
    /// Every slot's body, kept as the array an edit's body query leaves out (built once, not per edit).
    bodies: Array<Rid>,
    used: HashMap<TileId, usize>,
    free: Vec<usize>,
    heights: Heights,
    /// Bodies over edited ground, woken (and lifted) when their tile is rewritten.
    resting: crate::physics::resting_bodies::RestingBodies,
}

fn tile_settings(s: &CollisionSettings) -> TileSettings {
    TileSettings {
        mode: match s.mode {
            MODE_DISABLED => CollisionMode::Disabled,
            MODE_FULL => CollisionMode::Full,
            _ => CollisionMode::Dynamic,
        },
        radius: s.radius,
        subdivision: s.subdivision,
        tolerance: s.tolerance,
    }
}

impl CollisionTiles {
    /// Creates the body in `space`, reporting `owner` as the collider of hits; with `debug` (the world's
    /// scenario, when the tree shows collision shapes) the tiles are drawn there too.
    pub fn enter(&mut self, space: Rid, owner: InstanceId, debug: Option<Rid>) {
        self.exit();
        self.engine.space = Some((space, owner));
        self.engine.debug = debug.map(crate::physics::collision_debug::CollisionDebug::new);
    }

    /// Enters `node`'s world: its physics space, `node` reported as the collider, the tiles drawn too when
    /// the tree shows collision shapes. False outside a world.
    pub fn enter_world(&mut self, node: &Gd<godot::classes::Node3D>) -> bool {
        let Some(world) = node.get_world_3d() else {
            return false;
        };
        let debug = node
            .get_tree()
            .is_debugging_collisions_hint()
            .then(|| world.get_scenario());
        self.enter(world.get_space(), node.instance_id(), debug);
        true
    }

    /// The grid points of the tiles drawn for *Visible Collision Shapes* (empty when not shown).
    pub fn debug_points(&self) -> PackedVector3Array {
        self.engine
            .debug
            .as_ref()
            .map_or_else(PackedVector3Array::new, |d| d.points())
    }

    /// Frees every body and shape.
    pub fn exit(&mut self) {
        let e = &mut self.engine;
        e.free_slots();
        e.space = None;
        e.debug = None;
        e.resting.clear();
        e.used.clear();
        e.free.clear();
        self.plan.reset();
    }

    /// Layers, mask and material onto every body.
    pub fn apply_body_settings(&mut self) {
        for i in 0..self.engine.slots.len() {
            self.engine.apply_to(self.engine.slots[i].0);
        }
    }

    /// New settings (the node's `collision` object changed). Returns whether the tiles are made again
    /// (mode, radius, subdivision or tolerance changed, or the material while layers carry their own),
    /// or followed elsewhere (`follow_target`): the node must step collision again.
    pub fn apply(&mut self, s: &CollisionSettings) -> bool {
        let old = std::mem::replace(&mut self.settings, s.clone());
        self.engine.settings = s.clone();
        // Tiles that took a layer's friction take the settings' back here: made again.
        let remake = self.surfaces.is_some() && old.material != s.material;
        if (old.layer, old.mask, &old.material) != (s.layer, s.mask, &s.material) {
            self.apply_body_settings();
        }
        if remake {
            self.plan.invalidate();
        }
        self.plan.configure(tile_settings(s)) || remake || old.follow_target != s.follow_target
    }

    /// The layers' friction and bounce (`SurfaceFrictions`); a change rebuilds every tile (their bodies
    /// take the new values; back to the settings' material with None).
    pub fn set_surfaces(&mut self, s: Option<SurfaceFrictions>) {
        if self.surfaces == s {
            return;
        }
        self.surfaces = s;
        self.apply_body_settings();
        self.plan.invalidate();
    }

    /// Every tile is rebuilt on the next update (a new terrain).
    pub fn invalidate(&mut self) {
        self.plan.invalidate();
    }

    /// Samples edited since the last update (the source's sample coordinates).
    pub fn mark(&mut self, r: SampleRect) {
        self.plan.mark(r);
        self.note_bodies(r);
    }

    /// Notes the moving bodies over edited samples `r` now, while they still stand on the old ground: each
    /// is woken (and lifted) when the edited tile under it reaches the engine.
    fn note_bodies(&mut self, r: SampleRect) {
        let (Some((space, _)), Some((sp, frame))) = (self.engine.space, self.plan.placed()) else {
            return;
        };
        if self.settings.mode == MODE_DISABLED || r.is_empty() {
            return;
        }
        // A sample's reach: the cells around it (one sample of margin each side).
        let t0 = [(r.x - 1) as f64 * sp, (r.z - 1) as f64 * sp];
        let t1 = [
            (r.x + r.w as i64 + 1) as f64 * sp,
            (r.z + r.d as i64 + 1) as f64 * sp,
        ];
        let a = frame.to_world([t0[0], 0.0, t0[1]]);
        let b = frame.to_world([t1[0], 0.0, t1[1]]);
        // Every height: a body anywhere over the samples stands on them (or falls onto them).
        let (lo, hi) = (frame.origin[1] - 1e5, frame.origin[1] + 1e5);
        let min = Vector3::new(a[0].min(b[0]) as f32, lo as f32, a[2].min(b[2]) as f32);
        let max = Vector3::new(a[0].max(b[0]) as f32, hi as f32, a[2].max(b[2]) as f32);
        let e = &mut self.engine;
        e.resting.note(space, Aabb::new(min, max - min), &e.bodies);
    }

    /// The tiles around terrain X/Z `target` in a window of `n`² tiles (`plan::CollisionTiles::tile_states`).
    pub fn tile_states(
        &self,
        target: [f64; 2],
        n: usize,
        out: &mut Vec<u8>,
    ) -> Option<([f64; 2], f64)> {
        self.plan.tile_states(target, n, out)
    }

    pub fn tile_count(&self) -> usize {
        self.plan.tile_count()
    }

    /// The physics layers the terrain collides on; 0 with collision off.
    pub fn layers(&self) -> u32 {
        if self.settings.mode == MODE_DISABLED {
            0
        } else {
            self.settings.layer
        }
    }

    /// Tiles computed on the main thread because the workers were late (see `update`).
    pub fn late_tiles(&self) -> u64 {
        self.plan.late_tiles()
    }

    /// Brings the tiles up to date (each physics frame; the policy is `plan::CollisionTiles::update`):
    /// the physics ticks of one process frame share its hand-over budget. Without a space or a terrain,
    /// or with collision disabled, every tile goes. Returns the tiles written.
    pub fn update<S: Samples + ?Sized>(
        &mut self,
        terrain: Option<&S>,
        shared: Option<&SharedSamples>,
        frame: &Frame,
        now: bool,
    ) -> usize {
        let (Some(_), Some(t), false) = (
            self.engine.space,
            terrain,
            self.settings.mode == MODE_DISABLED,
        ) else {
            self.clear();
            return 0;
        };
        let this_frame = Engine::singleton().get_process_frames();
        let written = match &self.surfaces {
            Some(surfaces) => {
                let mut sink = Surfaced {
                    engine: &mut self.engine,
                    terrain: t,
                    surfaces,
                };
                self.plan.update(
                    &mut sink,
                    t,
                    shared,
                    frame,
                    &self.targets.buf,
                    now,
                    this_frame,
                )
            }
            None => self.plan.update(
                &mut self.engine,
                t,
                shared,
                frame,
                &self.targets.buf,
                now,
                this_frame,
            ),
        };
        if !self.plan.edits_pending() {
            self.engine.resting.forget();
        }
        written
    }

    /// The node moved, was scaled or shifted its origin: the same grids, placed anew (a transform per tile,
    /// nothing rebuilt). Cheap enough for the frame of an origin shift.
    pub fn follow_frame(&mut self, frame: &Frame) {
        self.plan.follow_frame(&mut self.engine, frame);
    }

    /// This update's targets: the node's own (`primary`, terrain X/Z; dropped when `follow_target` is
    /// off) and the collision targets, placed by `to_terrain` (`collision_targets.rs`).
    pub fn gather_targets(
        &mut self,
        primary: Option<[f64; 2]>,
        tree: Option<&Gd<godot::classes::SceneTree>>,
        to_terrain: impl Fn(Vector3) -> [f64; 2],
    ) {
        let primary = primary.filter(|_| self.settings.follow_target);
        self.targets.gather(primary, tree, to_terrain);
    }

    /// Terrain X/Z of what collision follows: the node's own target where it is now (`primary`, when
    /// `follow_target`) and the collision targets as last gathered; None before the first gather.
    pub fn centres(
        &self,
        primary: Option<[f64; 2]>,
    ) -> Option<crate::physics::collision_targets::Centres> {
        let primary = primary.filter(|_| self.settings.follow_target);
        self.targets.centres(primary)
    }

    /// Whether an update for the gathered targets and `frame` would do nothing
    /// (`plan::CollisionTiles::idle`); with collision disabled, once every body is freed.
    pub fn idle(&self, frame: &Frame) -> bool {
        if self.settings.mode == MODE_DISABLED {
            return self.engine.slots.is_empty();
        }
        self.plan.idle(frame, &self.targets.buf)
    }

    /// Drops every tile; with collision disabled the bodies and shapes are freed too.
    fn clear(&mut self) {
        self.plan.clear(&mut self.engine);
        if self.settings.mode == MODE_DISABLED {
            self.engine.free_slots();
            self.engine.free.clear();
        }
    }
}

impl TileSink for EngineTiles {
    /// Writes a tile's grid into its slot (taking a free slot or a new shape for a new tile).
    fn write(&mut self, id: TileId, g: &TileGrid, frame: &Frame) {
        self.heights.resize(g.heights.len());
        for (d, s) in self.heights.as_mut_slice().iter_mut().zip(&g.heights) {
            *d = *s as real;
        }
        // A new dictionary each time: one kept would keep a reference to `heights`, and the next write's
        // resize would copy it.
        let mut data = Dictionary::<GString, Variant>::new();
        data.set("width", g.width as i64);
        data.set("depth", g.depth as i64);
        data.set("heights", &self.heights.to_variant());
        data.set("min_height", g.min_height);
        data.set("max_height", g.max_height);
        let data = data.to_variant();
        let xf = shape_transform(g.centre, g.step, frame);
        let mut ps = PhysicsServer3D::singleton();
        // A tile in place (an edit) keeps its placement: only its heights change; the bodies noted over
        // it wake (and a raise lifts them), reading the old heights only when one is there.
        if let Some(&slot) = self.used.get(&id) {
            let shape = self.slots[slot].1;
            let surface = TileSurface {
                heights: &g.heights,
                width: g.width,
                depth: g.depth,
                xf,
            };
            let over = !self.resting.is_empty() && self.resting.any_over(&surface);
            let old_xf = shape_transform(g.centre, self.steps[slot], frame);
            let old = over
                .then(|| old_heights(&ps.shape_get_data(shape)))
                .flatten()
                .map(|(h, w, d)| (h, w, d, old_xf));
            ps.shape_set_data(shape, &data);
            if self.steps[slot] != g.step {
                // The edit changed the subdivision its ground takes: the shape's scale follows.
                self.steps[slot] = g.step;
                place_slot(&mut ps, self.slots[slot], xf, true);
            }
            if over {
                self.resting
                    .ground_changed(&surface, old, self.settings.lift_bodies);
            }
            if let Some(d) = self.debug.as_mut() {
                d.show(slot, g, xf);
            }
            return;
        }
        let slot = self.free.pop().unwrap_or_else(|| self.new_slot());
        self.used.insert(id, slot);
        let (body, shape) = self.slots[slot];
        ps.shape_set_data(shape, &data);
        place_slot(&mut ps, (body, shape), xf, true);
        self.steps[slot] = g.step;
        ps.body_set_shape_disabled(body, 0, false);
        if let Some(d) = self.debug.as_mut() {
            d.show(slot, g, xf);
        }
    }

    /// Disables a tile's shape and keeps its slot for reuse — up to `RESERVE` free slots; beyond that the
    /// slot's data is dropped (an emptied shape costs nothing; FULL → DYNAMIC frees its heights).
    fn release(&mut self, id: TileId) {
        let Some(slot) = self.used.remove(&id) else {
            return;
        };
        let mut ps = PhysicsServer3D::singleton();
        let (body, shape) = self.slots[slot];
        ps.body_set_shape_disabled(body, 0, true);
        if let Some(d) = self.debug.as_mut() {
            d.hide(slot);
        }
        if self.free.len() >= RESERVE {
            let mut empty = Dictionary::<GString, Variant>::new();
            empty.set("width", 2i64);
            empty.set("depth", 2i64);
            empty.set(
                "heights",
                &Heights::from(&[0.0 as real; 4][..]).to_variant(),
            );
            empty.set("min_height", 0.0f32);
            empty.set("max_height", 0.0f32);
            ps.shape_set_data(shape, &empty.to_variant());
        }
        self.free.push(slot);
    }

    fn place(
        &mut self,
        frame: &Frame,
        rescale: bool,
        tiles: &mut dyn Iterator<Item = (TileId, [f64; 2])>,
    ) {
        let mut ps = PhysicsServer3D::singleton();
        for (id, centre) in tiles {
            let Some(&slot) = self.used.get(&id) else {
                continue;
            };
            let xf = shape_transform(centre, self.steps[slot], frame);
            place_slot(&mut ps, self.slots[slot], xf, rescale);
            if let Some(d) = self.debug.as_mut() {
                d.place(slot, xf);
            }
        }
    }
}

impl EngineTiles {
    fn apply_to(&self, body: Rid) {
        let mut ps = PhysicsServer3D::singleton();
        ps.body_set_collision_layer(body, self.settings.layer);
        ps.body_set_collision_mask(body, self.settings.mask);
        self.set_params(body, engine_params(self.settings.material.as_ref()));
    }

    /// A tile body's (friction, bounce).
    fn set_params(&self, body: Rid, (friction, bounce): (f32, f32)) {
        let mut ps = PhysicsServer3D::singleton();
        ps.body_set_param(body, BodyParameter::FRICTION, &friction.to_variant());
        ps.body_set_param(body, BodyParameter::BOUNCE, &bounce.to_variant());
    }

    /// A static body in the space with one (empty) heightmap shape.
    fn new_slot(&mut self) -> usize {
        let (space, owner) = self.space.expect("in a space");
        let mut ps = PhysicsServer3D::singleton();
        let body = ps.body_create();
        ps.body_set_mode(body, BodyMode::STATIC);
        ps.body_attach_object_instance_id(body, owner.to_i64() as u64);
        let shape = ps.heightmap_shape_create();
        ps.body_add_shape_ex(body, shape).disabled(true).done();
        ps.body_set_space(body, space);
        self.apply_to(body);
        self.slots.push((body, shape));
        self.steps.push(0.0);
        self.bodies.push(body);
        self.slots.len() - 1
    }

    /// Frees every slot's body and shape, and what is kept per slot.
    fn free_slots(&mut self) {
        let mut ps = PhysicsServer3D::singleton();
        for (b, s) in self.slots.drain(..) {
            ps.free_rid(b);
            ps.free_rid(s);
        }
        self.steps.clear();
        self.bodies.clear();
    }
}
