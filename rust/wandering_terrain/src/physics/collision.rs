//! Collision of the terrain nodes through `PhysicsServer3D` (tiling in `terrain_core::collision`): one
//! static body with one heightmap shape per tile, owned by the node, no nodes in the user's scene. Bodies
//! are kept in slots and reused, so moving and editing only rewrite the data of the tiles concerned (one
//! body per tile, not one body of many shapes: a body's shape change costs the engine time in its number
//! of shapes).

use crate::physics::collision_bands::{
    by_band, segment_distance, Bands, Reach, FAR_FACTOR, NEAR_SHARE,
};
use crate::physics::resting_bodies::TileSurface;
use godot::classes::physics_server_3d::{BodyMode, BodyParameter, BodyState};
use godot::classes::{Engine, PhysicsMaterial, PhysicsServer3D};
use godot::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use terrain_core::cells::{Cell, Schedule};
use terrain_core::clipmap_data::Frame;
use terrain_core::clipmap_stream::SharedSamples;
use terrain_core::collision::{TileGrid, TileId, Tiling};
use terrain_core::collision_stream::{block_for, CollisionStream, ReadyTile};
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
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

/// Default `collision_tolerance`: 1 cm, within the accuracy subdivision 4 itself has on hilly ground.
pub const DEFAULT_TOLERANCE: f64 = 0.01;
/// Largest `collision_tolerance`.
pub const MAX_TOLERANCE: f64 = 10.0;

/// What the grids depend on: spacing, size, subdivision, the tolerance in terrain units (its bits; the
/// node's frame only moves the grids).
type Key = (f64, Option<[usize; 2]>, u32, u32);

/// The body, its shape slots and which tile each holds.
#[derive(Default)]
pub struct CollisionTiles {
    pub settings: CollisionSettings,
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
    key: Option<Key>,
    /// The frame the shapes are placed for.
    frame: Option<Frame>,
    /// Every wanted tile is in place (nothing to ask the workers for).
    complete: bool,
    pending: Option<SampleRect>,
    /// Grids computed on worker threads, and those finished but not yet written.
    stream: CollisionStream,
    ready: Vec<ReadyTile>,
    /// Tiles in place, asked for or wanted, with their edit stamps (`terrain_core::cells`): a grid made
    /// before its tile's last edit is never shown.
    tiles: Schedule<TileId, ()>,
    /// An edited tile waits for its new grid (kept so an idle check need not walk the tiles).
    stale: bool,
    /// The kept range of the last update (tiles outside it are forgotten when it changes).
    kept: Option<Range2>,
    /// The target at the last update, and where it is heading (terrain units ahead of it).
    last_target: Option<[f64; 2]>,
    lead: [f64; 2],
    /// Tiles computed on the main thread because the workers had not brought them in time.
    late_tiles: u64,
    /// The tiling and spacing of the last update (the collision debug view).
    view: Option<(Tiling, f64)>,
    /// The process frame whose physics ticks are spending `WRITE_BUDGET`, and what they spent.
    budget_frame: u64,
    spent: Duration,
    /// Kept buffers: tiles to write and their grids.
    todo: Vec<TileId>,
    grids: Vec<TileGrid>,
    heights: Heights,
    /// Bodies over edited ground, woken (and lifted) when their tile is rewritten.
    resting: crate::physics::resting_bodies::RestingBodies,
    /// Tiles made at the far tolerance, and those being made again at the near one (`collision_bands.rs`).
    bands: Bands,
}

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

/// A tile in place whose ground an edit changed since.
fn is_edited(c: &Cell<()>) -> bool {
    c.shown > 0 && c.shown < c.stamp
}

/// Columns and rows of tiles, each [start, end).
type Range2 = ([usize; 2], [usize; 2]);

fn contains(r: Range2, id: &TileId) -> bool {
    (r.0[0]..r.0[1]).contains(&id[0]) && (r.1[0]..r.1[1]).contains(&id[1])
}

/// Main-thread time a frame spends handing finished tiles to the engine, shared by all the physics ticks
/// that run before it (nearest to the target first; the tile under the target is never held back). A
/// budget per tick let a frame that ran three ticks spend three times as much (measured: 3.5–6 ms frames
/// with Jolt). A 65² tile costs the engine about 8 µs in Godot Physics and 0.3 ms in Jolt, whose height
/// fields take longer to build.
const WRITE_BUDGET: Duration = Duration::from_micros(1000);

/// Tiles asked of the workers at a time, and per job (small jobs: the nearest tiles come back first).
const IN_FLIGHT: usize = 16;
const JOB_TILES: usize = 4;

/// Tiles are prepared where the target will be this many updates ahead, at its current speed.
const LEAD_TICKS: f64 = 15.0;

/// A missing tile within this many samples of the target is computed at once rather than waited for.
const LATE_REACH: f64 = 2.0;

/// The tiles (columns, rows) within `radius` of any of `points`, as one rectangle.
fn tiles_around(tiling: &Tiling, spacing: f64, points: &[[f64; 2]], radius: f64) -> Range2 {
    let mut lo = [usize::MAX; 2];
    let mut hi = [0usize; 2];
    for &q in points {
        for id in tiling.tiles_near(spacing, q, radius) {
            for a in 0..2 {
                lo[a] = lo[a].min(id[a]);
                hi[a] = hi[a].max(id[a] + 1);
            }
        }
    }
    if lo[0] == usize::MAX {
        ([0, 0], [0, 0])
    } else {
        ([lo[0], hi[0]], [lo[1], hi[1]])
    }
}

/// Grid points per tile side in DYNAMIC mode (about 0.1 ms to build in Godot Physics, 0.3 ms in Jolt).
const DYNAMIC_TILE_POINTS: usize = 65;

/// Most tiles (bodies) of FULL collision: Jolt's default body limit is 10240 for the whole world.
const MAX_FULL_TILES: usize = 4096;

/// Free slots kept with their data (a DYNAMIC working set); others keep a 2 x 2 placeholder.
const RESERVE: usize = 64;

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

/// Tiles whose grids are computed together (in parallel) before being handed to the engine; bounds the
/// memory of a FULL build (64 tiles of subdivision 4: 69 MB).
const BATCH: usize = 64;

impl CollisionTiles {
    /// Creates the body in `space`, reporting `owner` as the collider of hits; with `debug` (the world's
    /// scenario, when the tree shows collision shapes) the tiles are drawn there too.
    pub fn enter(&mut self, space: Rid, owner: InstanceId, debug: Option<Rid>) {
        self.exit();
        self.space = Some((space, owner));
        self.debug = debug.map(crate::physics::collision_debug::CollisionDebug::new);
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
        self.debug
            .as_ref()
            .map_or_else(PackedVector3Array::new, |d| d.points())
    }

    /// Frees every body and shape.
    pub fn exit(&mut self) {
        self.free_slots();
        self.space = None;
        self.debug = None;
        self.resting.clear();
        self.used.clear();
        self.free.clear();
        self.key = None;
        self.frame = None;
        self.forget();
    }

    /// Forgets what the workers are doing and what they brought (a new key, a cleared collision).
    fn forget(&mut self) {
        self.stream.invalidate();
        for r in self.ready.drain(..) {
            self.stream.recycle(r.grid);
        }
        self.tiles.restart().for_each(drop);
        self.bands.clear();
        self.stale = false;
        self.kept = None;
        self.complete = false;
        self.last_target = None;
    }

    /// Layers, mask and material onto every body.
    pub fn apply_body_settings(&mut self) {
        for i in 0..self.slots.len() {
            self.apply_to(self.slots[i].0);
        }
    }

    fn apply_to(&self, body: Rid) {
        let mut ps = PhysicsServer3D::singleton();
        ps.body_set_collision_layer(body, self.settings.layer);
        ps.body_set_collision_mask(body, self.settings.mask);
        // As StaticBody3D does: a rough material's friction and an absorbent one's bounce are negative.
        let (friction, bounce) = match &self.settings.material {
            Some(m) => {
                let f = m.get_friction() * if m.is_rough() { -1.0 } else { 1.0 };
                let b = m.get_bounce() * if m.is_absorbent() { -1.0 } else { 1.0 };
                (f, b)
            }
            None => (1.0, 0.0),
        };
        ps.body_set_param(body, BodyParameter::FRICTION, &friction.to_variant());
        ps.body_set_param(body, BodyParameter::BOUNCE, &bounce.to_variant());
    }

    /// New settings (the node's `collision` object changed). Returns whether the tiles are made again
    /// (mode, radius, subdivision or tolerance changed: the node must step collision again).
    pub fn apply(&mut self, s: &CollisionSettings) -> bool {
        let old = std::mem::replace(&mut self.settings, s.clone());
        let body = (old.layer, old.mask, &old.material) != (s.layer, s.mask, &s.material);
        if body {
            self.apply_body_settings();
        }
        let tiles = (old.mode, old.radius, old.subdivision, old.tolerance)
            != (s.mode, s.radius, s.subdivision, s.tolerance);
        if tiles {
            self.invalidate();
        }
        tiles
    }

    /// `collision_tolerance` in terrain height units (the node's Y scale undone).
    fn terrain_tolerance(&self, frame: &Frame) -> f32 {
        let sy = frame.scale[1].abs();
        if sy > 0.0 {
            (self.settings.tolerance / sy) as f32
        } else {
            0.0
        }
    }

    /// Every tile is rebuilt on the next update (new mode, subdivision or terrain).
    pub fn invalidate(&mut self) {
        self.key = None;
    }

    /// Samples edited since the last update (the source's sample coordinates).
    pub fn mark(&mut self, r: SampleRect) {
        self.pending = Some(self.pending.map_or(r, |p| p.union(r)));
        self.note_bodies(r);
    }

    /// Notes the moving bodies over edited samples `r` now, while they still stand on the old ground: each
    /// is woken (and lifted) when the edited tile under it reaches the engine.
    fn note_bodies(&mut self, r: SampleRect) {
        let (Some((space, _)), Some(frame), Some(key)) = (self.space, self.frame, self.key) else {
            return;
        };
        if self.settings.mode == MODE_DISABLED || r.is_empty() {
            return;
        }
        // A sample's reach: the cells around it (one sample of margin each side).
        let sp = key.0;
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
        self.resting
            .note(space, Aabb::new(min, max - min), &self.bodies);
    }

    /// The tiles around terrain X/Z `target` in a window of `n`² tiles (row-major into `out`): 1 where a
    /// tile is in the physics engine, 2 where an edit's new grid is still on its way, 0 elsewhere. Returns
    /// the corner and side (terrain units) of the window's first tile; None before the first update.
    pub fn tile_states(
        &self,
        target: [f64; 2],
        n: usize,
        out: &mut Vec<u8>,
    ) -> Option<([f64; 2], f64)> {
        let Some((tiling, spacing)) = self.view else {
            out.clear();
            return None;
        };
        let side = tiling.tile_cells() as f64 * spacing;
        let (c0, _) = tiling.placement(spacing, [0, 0]);
        let corner0 = [c0[0] - side * 0.5, c0[1] - side * 0.5];
        let centre: [i64; 2] =
            std::array::from_fn(|a| ((target[a] - corner0[a]) / side).floor() as i64);
        let id = |t: &TileId| [t[0] as i64, t[1] as i64];
        let edited = self
            .tiles
            .iter()
            .filter(|(_, c)| is_edited(c))
            .map(|(t, _)| (id(t), 2u8));
        let cells = (self.used.keys().map(|t| (id(t), 1u8))).chain(edited);
        let first = terrain_core::cells::fill_window(centre, n, cells, out);
        Some((
            [
                corner0[0] + first[0] as f64 * side,
                corner0[1] + first[1] as f64 * side,
            ],
            side,
        ))
    }

    pub fn tile_count(&self) -> usize {
        self.used.len()
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
        self.late_tiles
    }

    /// Brings the tiles up to date (each physics frame): drops and adds tiles for the mode and the target
    /// (terrain-space X/Z), rewrites the tiles that pending edits touched. Grids are computed on worker
    /// threads, ahead of the target along its motion; this call hands finished ones to the engine (a few a
    /// frame) and computes at once only a missing tile under the target (`late_tiles` counts those).
    /// `now`: wait for the workers and bring every wanted tile and edit in before returning (a caller that
    /// needs collision this instant). `shared`: the source itself when workers may read it (an endless or
    /// region source); otherwise the samples a job needs are copied first. Returns the tiles written.
    pub fn update<S: Samples + ?Sized>(
        &mut self,
        terrain: Option<&S>,
        shared: Option<&SharedSamples>,
        frame: &Frame,
        target: Option<[f64; 2]>,
        now: bool,
    ) -> usize {
        let (Some(_), Some(t)) = (self.space, terrain) else {
            self.clear();
            return 0;
        };
        if self.settings.mode == MODE_DISABLED {
            self.clear();
            return 0;
        }
        let tolerance = self.terrain_tolerance(frame);
        let key = (
            t.spacing(),
            t.size(),
            self.settings.subdivision,
            tolerance.to_bits(),
        );
        if self.key != Some(key) {
            self.clear();
            self.key = Some(key);
            self.pending = None;
        }
        // A still target, no edit and nothing on its way: nothing to do.
        if !now && self.idle(frame, target) {
            return 0;
        }
        // DYNAMIC: small tiles, quick to build while the target moves; FULL: the smallest tiles that keep
        // the whole terrain within a body budget.
        // An endless world has no "every tile", and a region folder's would load the whole map: FULL follows
        // the target like DYNAMIC over streamed sources.
        let full = self.settings.mode == MODE_FULL && !t.streamed();
        let tiling = if full {
            Tiling::for_count(t, self.settings.subdivision, MAX_FULL_TILES)
        } else {
            Tiling::with_points(t, self.settings.subdivision, DYNAMIC_TILE_POINTS)
        }
        .with_tolerance(tolerance);
        // Far tiles take a looser tolerance (`collision_bands.rs`); none when every tile is exact, nor in
        // FULL mode (made once for bodies anywhere, not refined as the target goes).
        let far = (tolerance > 0.0 && !full).then(|| tiling.with_tolerance(tolerance * FAR_FACTOR));
        self.view = Some((tiling, t.spacing()));
        self.follow_frame(frame);
        self.follow_target(target, t.spacing() * tiling.tile_cells() as f64);
        if let Some(r) = self.pending.take() {
            if tiling.count_touching(r) <= self.tiles.len() {
                self.tiles.touch(tiling.tiles_touching(r));
            } else {
                // A wide mark (an endless map's discarded edits): walk the tiles there are instead.
                self.tiles.touch_where(|&id| tiling.touches(id, r));
            }
            self.bands.edited(|&id| tiling.touches(id, r));
            self.stale = true;
        }
        let ranges = self.ranges(&tiling, t, full, frame, target);
        self.drop_outside(ranges);
        let near = self.near_band(t.spacing(), frame);
        let bands = far.zip(near);
        let mut written = self.take_ready(&tiling, &ranges, now);
        // After the hand-over: a coarse tile that just arrived beside a target about to stop is refined
        // too (the next updates may be idle).
        if let (Some(near), Some(_)) = (near, far) {
            self.refine(&tiling, &near);
        }
        written += self.compute_late(&tiling, bands, t, frame, &ranges, now);
        self.ask_workers(&tiling, bands, t, shared, &ranges);
        if !self.stale {
            self.resting.forget();
        }
        written
    }

    /// The near band around the target and its path ahead (None without a target: every tile is near).
    fn near_band(&self, spacing: f64, frame: &Frame) -> Option<Reach> {
        let p = self.last_target?;
        let scale = frame.scale[0].abs().min(frame.scale[2].abs()).max(1e-9);
        Some(Reach {
            from: p,
            to: [p[0] + self.lead[0], p[1] + self.lead[1]],
            reach: self.settings.radius / scale * NEAR_SHARE,
            spacing,
        })
    }

    /// Coarse tiles in place that the target came near are made again at the near tolerance.
    fn refine(&mut self, tiling: &Tiling, near: &Reach) {
        let mut ids = std::mem::take(&mut self.todo);
        // A tile waiting for an edit is made anew anyway (at the band it is asked in), and under the
        // target at once: it must not count as a refinement.
        let tiles = &self.tiles;
        let edited = |id: &TileId| tiles.get(id).is_some_and(is_edited);
        self.bands
            .take_near(&self.used, tiling, near, edited, &mut ids);
        if !ids.is_empty() {
            self.tiles.touch(ids.iter().copied());
            self.stale = true;
        }
        self.todo = ids;
    }

    /// The node moved, was scaled or shifted its origin: the same grids, placed anew (a transform per tile,
    /// nothing rebuilt). Cheap enough for the frame of an origin shift.
    pub fn follow_frame(&mut self, frame: &Frame) {
        let (Some(old), Some((tiling, spacing))) = (self.frame, self.view.as_ref()) else {
            self.frame = Some(*frame);
            return;
        };
        if old == *frame {
            return;
        }
        self.frame = Some(*frame);
        let rescale = old.scale != frame.scale;
        let mut ps = PhysicsServer3D::singleton();
        for (&id, &slot) in &self.used {
            let (centre, _) = tiling.placement(*spacing, id);
            let xf = shape_transform(centre, self.steps[slot], frame);
            place_slot(&mut ps, self.slots[slot], xf, rescale);
            if let Some(d) = self.debug.as_mut() {
                d.place(slot, xf);
            }
        }
    }

    /// Whether an update for `target` and `frame` would do nothing: a still target, no edit, nothing on
    /// its way, or collision disabled and cleared (the node then need not even look at its terrain).
    pub fn idle(&self, frame: &Frame, target: Option<[f64; 2]>) -> bool {
        if self.settings.mode == MODE_DISABLED {
            // Disabled and already cleared (no bodies left).
            return self.slots.is_empty();
        }
        self.key.is_some()
            && target == self.last_target
            && self.frame == Some(*frame)
            && self.pending.is_none()
            && self.settled()
    }

    /// Nothing left to do until the target moves or an edit arrives.
    fn settled(&self) -> bool {
        self.complete && !self.stale && self.ready.is_empty() && self.stream.in_flight() == 0
    }

    /// Keeps the target and how far ahead of it to prepare tiles: its motion over `LEAD_TICKS` updates
    /// (nothing for a jump: a teleport prepares around where it lands).
    fn follow_target(&mut self, target: Option<[f64; 2]>, tile: f64) {
        self.lead = match (target, self.last_target) {
            (Some(p), Some(q)) => {
                let d = [p[0] - q[0], p[1] - q[1]];
                let step = d[0].hypot(d[1]);
                let most = self.settings.radius.max(tile) * 2.0;
                if step.is_finite() && step <= most {
                    let k = (LEAD_TICKS * step).min(most) / step.max(1e-12);
                    [d[0] * k, d[1] * k]
                } else {
                    [0.0; 2]
                }
            }
            _ => [0.0; 2],
        };
        self.last_target = target;
    }

    /// Drops the tiles, results and edit marks outside what is kept; edited tiles beyond what is wanted
    /// are dropped rather than rewritten (they are prepared again if the target comes near).
    fn drop_outside(&mut self, [_, want, keep]: [Range2; 3]) {
        let tiles = &self.tiles;
        let mut gone = std::mem::take(&mut self.todo);
        gone.clear();
        gone.extend(self.used.keys().filter(|id| {
            !contains(keep, id) || (tiles.get(id).is_some_and(is_edited) && !contains(want, id))
        }));
        for id in &gone {
            let slot = self.used.remove(id).expect("used tile");
            self.release(slot);
            self.tiles.remove(*id);
        }
        // Tiles neither in place nor kept are forgotten: whatever the workers bring for them is stale.
        // Tiles are wanted only inside the kept range, so only a new range leaves some outside.
        if self.kept != Some(keep) {
            self.kept = Some(keep);
            gone.clear();
            let used = &self.used;
            gone.extend(
                self.tiles
                    .keys()
                    .filter(|&id| !used.contains_key(id) && !contains(keep, id)),
            );
            for id in &gone {
                self.tiles.remove(*id);
            }
        }
        self.todo = gone;
        let tiles = &self.tiles;
        self.bands.retain(|id| tiles.get(id).is_some());
        let mut ready = std::mem::take(&mut self.ready);
        ready.retain(|r| contains(keep, &r.id));
        self.ready = ready;
    }

    /// Takes finished grids from the workers and writes those still current, nearest to the target first,
    /// within `WRITE_BUDGET` a frame (all of them when `now`).
    fn take_ready(&mut self, tiling: &Tiling, ranges: &[Range2; 3], now: bool) -> usize {
        let mut ready = std::mem::take(&mut self.ready);
        if now {
            self.stream.wait(&mut ready);
        } else {
            self.stream.poll(&mut ready);
        }
        let keep = ranges[2];
        // Current: asked for after the tile's last edit, and either new or replacing an edited tile.
        let tiles = &self.tiles;
        ready.retain_mut(|r| {
            let current = contains(keep, &r.id)
                && tiles
                    .get(&r.id)
                    .is_some_and(|c| r.stamp >= c.stamp && c.shown < c.stamp);
            if !current {
                self.stream.recycle(std::mem::take(&mut r.grid));
            }
            current
        });
        let p = self.last_target.unwrap_or([0.0; 2]);
        let spacing = self.key.map_or(1.0, |k| k.0);
        // Distance (samples, max norm) from the target to a tile's centre; within `under` it holds the
        // target.
        let dist = |r: &ReadyTile| {
            let c = r.grid.centre;
            ((c[0] - p[0]).abs().max((c[1] - p[1]).abs()) / spacing) as i64
        };
        let under = (tiling.tile_cells() as f64 * 0.5 + LATE_REACH) as i64;
        ready.sort_unstable_by_key(dist);
        let frame = self.frame.unwrap_or_default();
        // Ticks run before the same process frame share its budget.
        let this_frame = Engine::singleton().get_process_frames();
        if this_frame != self.budget_frame {
            self.budget_frame = this_frame;
            self.spent = Duration::ZERO;
        }
        let left = WRITE_BUDGET.saturating_sub(self.spent);
        let start = Instant::now();
        let mut written = 0;
        for r in ready.drain(..) {
            if !(now || dist(&r) <= under || start.elapsed() < left) {
                self.ready.push(r);
                continue;
            }
            self.tiles.accept_latest(&r.id, r.stamp);
            self.bands.written(&r.id);
            self.write(&r.grid, &frame, r.id);
            self.stream.recycle(r.grid);
            written += 1;
        }
        self.spent += start.elapsed();
        written
    }

    /// Computes on this thread the tiles the target cannot wait for: a missing or edited tile under it
    /// (the workers fell behind, or an edit reached the ground it stands on), every tile it needs when it
    /// has none yet (the first frame, a teleport), and with `now` everything wanted and every edit.
    fn compute_late<S: Samples + ?Sized>(
        &mut self,
        tiling: &Tiling,
        bands: Option<(Tiling, Reach)>,
        t: &S,
        frame: &Frame,
        [must, want, _]: &[Range2; 3],
        now: bool,
    ) -> usize {
        let first = !self.used.keys().any(|id| contains(*must, id));
        let area = match (now, first, self.last_target) {
            (true, _, _) => *want,
            (false, true, _) => *must,
            (false, false, Some(p)) => {
                tiles_around(tiling, t.spacing(), &[p], LATE_REACH * t.spacing())
            }
            (false, false, None) => return 0,
        };
        self.todo.clear();
        let mut late = 0;
        for z in area.1[0]..area.1[1] {
            for x in area.0[0]..area.0[1] {
                let id = [x, z];
                if contains(*must, &id) || now {
                    // Missing, or edited: the ground under the target is never stale.
                    let used = self.used.contains_key(&id);
                    // A tile being refined stays collidable as it is until the workers bring it.
                    let edited = self.tiles.get(&id).is_some_and(is_edited)
                        && !(used && !now && self.bands.is_refining(&id));
                    if (!used || edited) && !self.ready.iter().any(|r| r.id == id) {
                        late += usize::from(!used);
                        self.todo.push(id);
                    }
                }
            }
        }
        let mut todo = std::mem::take(&mut self.todo);
        if !(now || first) {
            self.late_tiles += late as u64;
        }
        // Each tile at its band's tolerance, as the workers would make it.
        for (ids, tl, far) in by_band(tiling, bands, &mut todo) {
            for batch in ids.chunks(BATCH) {
                let mut grids = std::mem::take(&mut self.grids);
                tl.grids(t, batch, &mut grids);
                for (&id, g) in batch.iter().zip(&grids) {
                    self.tiles.mark_current(id);
                    self.bands.asked(id, far);
                    self.bands.written(&id);
                    self.write(g, frame, id);
                }
                self.grids = grids;
            }
        }
        let written = todo.len();
        self.todo = todo;
        if now {
            // Written now: whatever the workers still bring for these tiles is not needed.
            self.stream.invalidate();
            self.tiles.forget_asks();
            for r in self.ready.drain(..) {
                self.stream.recycle(r.grid);
            }
        }
        written
    }

    /// Asks the workers for edited tiles and for the wanted tiles that are missing, nearest to the target
    /// and its path ahead first, up to `IN_FLIGHT` tiles at a time.
    /// `bands`: the far tiling and the near band, when far tiles take a looser tolerance.
    fn ask_workers<S: Samples + ?Sized>(
        &mut self,
        tiling: &Tiling,
        bands: Option<(Tiling, Reach)>,
        t: &S,
        shared: Option<&SharedSamples>,
        [must, want, _]: &[Range2; 3],
    ) {
        let mut wanted = std::mem::take(&mut self.todo);
        wanted.clear();
        // New and edited tiles in the wanted ring whose grid was not asked for since their last edit.
        let mut complete = true;
        for z in want.1[0]..want.1[1] {
            for x in want.0[0]..want.0[1] {
                let c = self.tiles.want([x, z]);
                complete &= c.shown > 0;
                if c.needs_work() {
                    wanted.push([x, z]);
                }
            }
        }
        self.complete = complete;
        // While an edit is on its way: edited tiles beyond the ring (or asked-for ones an edit overtook),
        // and whether any edited tile still waits (no walk over the tiles otherwise).
        if self.stale {
            wanted.extend(
                self.tiles
                    .iter()
                    .filter(|(id, c)| {
                        !contains(*want, id) && c.needs_work() && (c.shown > 0 || c.asked > 0)
                    })
                    .map(|(id, _)| *id),
            );
            self.stale = self.tiles.iter().any(|(_, c)| is_edited(c));
        }
        // Nearest first to the path from the target to where it is heading.
        let p = self.last_target.unwrap_or([0.0; 2]);
        let a = [p[0] + self.lead[0], p[1] + self.lead[1]];
        let sp = t.spacing();
        let tiles = &self.tiles;
        let edited = |id: &TileId| tiles.get(id).is_some_and(is_edited);
        wanted.sort_unstable_by_key(|&id| {
            let (c, _) = tiling.placement(sp, id);
            let d = segment_distance(c, p, a) / sp;
            (!edited(&id), !contains(*must, &id), d as i64)
        });
        // Edited tiles all at once (they are collidable again as soon as possible); new ones a few at a
        // time, so the nearest come back first whatever the target does next.
        let n_edited = wanted.iter().take_while(|id| edited(id)).count();
        let room = IN_FLIGHT.saturating_sub(self.stream.in_flight());
        wanted.truncate(n_edited.max(room));
        let stamp = self.tiles.stamp();
        // Near tiles first (in the order above), then the far ones at the looser tolerance.
        for (ids, tl, far) in by_band(tiling, bands, &mut wanted) {
            for job in ids.chunks(JOB_TILES) {
                let source = match shared {
                    Some(s) => s.clone(),
                    None => Arc::new(block_for(t, &tl, job)) as SharedSamples,
                };
                self.stream.request(source, tl, job, stamp);
                for &id in job {
                    self.tiles.asked(id, stamp);
                    self.bands.asked(id, far);
                }
            }
        }
        self.todo = wanted;
    }

    /// Tile ranges (columns, rows) the target needs now, the ring to prepare, and what to keep.
    fn ranges<S: Samples + ?Sized>(
        &self,
        tiling: &Tiling,
        t: &S,
        full: bool,
        frame: &Frame,
        target: Option<[f64; 2]>,
    ) -> [Range2; 3] {
        let [tx, tz] = tiling.tiles();
        if full {
            let all = ([0, tx], [0, tz]);
            return [all; 3];
        }
        let Some(p) = target else {
            return [([0, 0], [0, 0]); 3];
        };
        // The radius is in world units; the tiling works in terrain units.
        let scale = frame.scale[0].abs().min(frame.scale[2].abs()).max(1e-9);
        let r = self.settings.radius / scale;
        let tile = tiling.tile_cells() as f64 * t.spacing();
        // Where the target is heading is prepared and kept as well.
        let ahead = [p[0] + self.lead[0], p[1] + self.lead[1]];
        let sp = t.spacing();
        [
            tiles_around(tiling, sp, &[p], r),
            tiles_around(tiling, sp, &[p, ahead], r + tile),
            tiles_around(tiling, sp, &[p, ahead], r + 2.0 * tile),
        ]
    }

    /// Writes a tile's grid into its slot (taking a free slot or a new shape for a new tile).
    fn write(&mut self, g: &TileGrid, frame: &Frame, id: TileId) {
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

    /// Drops every tile; with collision disabled the bodies and shapes are freed too.
    fn clear(&mut self) {
        let slots: Vec<usize> = self.used.drain().map(|(_, s)| s).collect();
        for slot in slots {
            self.release(slot);
        }
        if self.settings.mode == MODE_DISABLED {
            self.free_slots();
            self.free.clear();
        }
        self.forget();
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

    /// Disables a slot's shape and keeps it for reuse — up to `RESERVE` free slots; beyond that the
    /// slot's data is dropped (an emptied shape costs nothing; FULL → DYNAMIC frees its heights).
    fn release(&mut self, slot: usize) {
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
}
