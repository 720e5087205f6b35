//! Which collision tiles a terrain keeps in its physics engine, and when each is made: the tile policy,
//! engine-free (the engine's side, bodies and shapes, is a `TileSink`: `physics/collision_tiles.rs` in the gdext
//! crate). Tiles within each target's radius of it, and of where it is heading, are wanted (any number of
//! targets: the camera, players, NPCs; a tile two targets want is one tile); their grids are computed on
//! the worker threads, nearest to a target's path first, and handed to the engine within a main-thread
//! budget a frame; a tile missing under a target is computed at once. An edit makes the
//! tiles it touches again (a grid made before a tile's last edit is never shown). FULL keeps every tile
//! of a bounded terrain. Far tiles take a looser tolerance (`collision_bands.rs`).

use crate::cells::{fill_window, Cell, Schedule};
use crate::clipmap_data::Frame;
use crate::clipmap_stream::SharedSamples;
use crate::collision::{TileGrid, TileId, Tiling};
use crate::collision_bands::{by_band, segment_distance, Bands, Reach, FAR_FACTOR, NEAR_SHARE};
use crate::collision_stream::{block_for, CollisionStream, ReadyTile};
use crate::sample_rect::SampleRect;
use crate::samples::Samples;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How much of the terrain collides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CollisionMode {
    Disabled,
    /// Tiles around the target, following it (bounded memory whatever the terrain's size).
    #[default]
    Dynamic,
    /// Every tile of a bounded terrain (streamed sources follow the target as DYNAMIC does).
    Full,
}

/// What the tiles depend on, as the user sets it (world units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileSettings {
    pub mode: CollisionMode,
    /// Collision exists within this distance of the target.
    pub radius: f64,
    /// Grid points per sample side (1: one a sample).
    pub subdivision: u32,
    /// How far a tile's collision may lie from its full subdivision's, for fewer points on gentle ground
    /// (`Tiling::with_tolerance`); 0: every tile at `subdivision`.
    pub tolerance: f64,
}

impl Default for TileSettings {
    fn default() -> Self {
        Self {
            mode: CollisionMode::Dynamic,
            radius: 64.0,
            subdivision: 4,
            tolerance: 0.01,
        }
    }
}

/// The physics engine's side: what happens to a tile the plan decides on.
pub trait TileSink {
    /// Tile `id`'s grid into the engine: a new tile, or new heights (an edit, a finer band) for one in
    /// place. `frame` places terrain units in the world.
    fn write(&mut self, id: TileId, grid: &TileGrid, frame: &Frame);
    /// Tile `id` leaves the engine.
    fn release(&mut self, id: TileId);
    /// The terrain's frame changed (`rescale`: its scale too): the tiles in place, each with the centre
    /// of its grid in terrain units, are placed anew; nothing is rebuilt.
    fn place(
        &mut self,
        frame: &Frame,
        rescale: bool,
        tiles: &mut dyn Iterator<Item = (TileId, [f64; 2])>,
    );
}

/// Main-thread time a frame spends handing finished tiles to the engine, shared by all the physics ticks
/// that run before it (nearest to the target first; the tile under the target is never held back). A
/// budget per tick let a frame that ran three ticks spend three times as much (measured: 3.5–6 ms frames
/// with Jolt). A 65² tile costs the engine about 8 µs in Godot Physics and 0.3 ms in Jolt, whose height
/// fields take longer to build.
pub const WRITE_BUDGET: Duration = Duration::from_micros(1000);

/// Tiles asked of the workers at a time, and per job (small jobs: the nearest tiles come back first).
const IN_FLIGHT: usize = 16;
const JOB_TILES: usize = 4;

/// Tiles are prepared where the target will be this many updates ahead, at its current speed.
const LEAD_TICKS: f64 = 15.0;

/// A missing tile within this many samples of the target is computed at once rather than waited for.
const LATE_REACH: f64 = 2.0;

/// The late path covers where the target will be this many updates ahead: a tile written in an update is
/// found by Godot Physics' queries only after the engine's next step (its broadphase refits then), so
/// a body moved and queried in the next tick, before that step, needs the tile one update earlier.
const LATE_UPDATES: f64 = 2.0;

/// Grid points per tile side in DYNAMIC mode (about 0.1 ms to build in Godot Physics, 0.3 ms in Jolt).
pub const DYNAMIC_TILE_POINTS: usize = 65;

/// Most tiles (bodies) of FULL collision: Jolt's default body limit is 10240 for the whole world.
pub const MAX_FULL_TILES: usize = 4096;

/// Tiles whose grids are computed together (in parallel) before being handed to the engine; bounds the
/// memory of a FULL build (64 tiles of subdivision 4: 69 MB).
const BATCH: usize = 64;

/// What the grids depend on: spacing, size, subdivision, the tolerance in terrain units (its bits; the
/// frame only moves the grids).
type Key = (f64, Option<[usize; 2]>, u32, u32);

/// Columns and rows of tiles, each [start, end).
type Range2 = ([usize; 2], [usize; 2]);

fn contains(r: Range2, id: &TileId) -> bool {
    (r.0[0]..r.0[1]).contains(&id[0]) && (r.1[0]..r.1[1]).contains(&id[1])
}

/// A tile in place whose ground an edit changed since.
fn is_edited(c: &Cell<()>) -> bool {
    c.shown > 0 && c.shown < c.stamp
}

/// Something collision follows: terrain X/Z `at`, the world `radius` around it that collides (0 or less:
/// the settings' radius), and an `id` that stays the same from update to update (its motion is followed
/// by id: the order of the targets may change).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    pub id: u64,
    pub at: [f64; 2],
    pub radius: f64,
}

impl Target {
    /// A target at `at` with the settings' radius.
    pub fn at(at: [f64; 2]) -> Self {
        Self {
            id: 0,
            at,
            radius: 0.0,
        }
    }
}

/// A target as last seen: where it is heading (terrain units ahead of it), its motion over the last
/// update (none for a jump: the late path covers where it will be `LATE_UPDATES` updates ahead), and its
/// radius in terrain units.
#[derive(Clone, Copy, Debug)]
struct Follow {
    id: u64,
    at: [f64; 2],
    lead: [f64; 2],
    step: [f64; 2],
    radius: f64,
}

impl Follow {
    fn ahead(&self) -> [f64; 2] {
        [self.at[0] + self.lead[0], self.at[1] + self.lead[1]]
    }

    /// Where it will be `LATE_UPDATES` updates ahead at its last speed.
    fn late_ahead(&self) -> [f64; 2] {
        [
            self.at[0] + LATE_UPDATES * self.step[0],
            self.at[1] + LATE_UPDATES * self.step[1],
        ]
    }
}

/// Tile ranges of one target: what it needs now, the ring to prepare, what to keep.
type Areas = [Range2; 3];
const MUST: usize = 0;
const WANT: usize = 1;
const KEEP: usize = 2;

/// Whether tile `id` is in area `k` of any target.
fn in_any(areas: &[Areas], k: usize, id: &TileId) -> bool {
    areas.iter().any(|a| contains(a[k], id))
}

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

/// The tile policy of one terrain (see the module).
#[derive(Default)]
pub struct CollisionTiles {
    settings: TileSettings,
    /// The tiles the engine holds.
    used: HashSet<TileId>,
    key: Option<Key>,
    /// The frame the tiles are placed for.
    frame: Option<Frame>,
    /// Every wanted tile is in place (nothing to ask the workers for).
    complete: bool,
    pending: Option<SampleRect>,
    /// Grids computed on worker threads, and those finished but not yet written.
    stream: CollisionStream,
    ready: Vec<ReadyTile>,
    /// Tiles in place, asked for or wanted, with their edit stamps (`cells`): a grid made before its
    /// tile's last edit is never shown.
    tiles: Schedule<TileId, ()>,
    /// An edited tile waits for its new grid (kept so an idle check need not walk the tiles).
    stale: bool,
    /// The kept ranges of the last update (tiles outside them are forgotten when they change).
    kept: Vec<Range2>,
    /// The targets as given to the last update, and as followed (terrain units, with their motion).
    last_targets: Vec<Target>,
    follows: Vec<Follow>,
    /// Each target's areas in this update (kept buffer).
    areas: Vec<Areas>,
    /// Tiles computed on the main thread because the workers had not brought them when a target stood
    /// on them (tiles made ahead of it, where it is going, do not count).
    late_tiles: u64,
    /// The tiling and spacing of the last update (the tile-state view, the engine's placement).
    view: Option<(Tiling, f64)>,
    /// The frame (the caller's count) whose updates are spending `WRITE_BUDGET`, and what they spent.
    budget_frame: u64,
    spent: Duration,
    /// Kept buffers: tiles to write and their grids, tiles with their priorities, the near bands.
    todo: Vec<TileId>,
    grids: Vec<TileGrid>,
    ranked: Vec<(TileId, (bool, bool, i64))>,
    near: Vec<Reach>,
    /// Tiles made at the far tolerance, and those being made again at the near one.
    bands: Bands,
}

impl CollisionTiles {
    /// New settings; whether the tiles are made again (the caller must update again).
    pub fn configure(&mut self, s: TileSettings) -> bool {
        let changed = s != self.settings;
        self.settings = s;
        if changed {
            self.invalidate();
        }
        changed
    }

    pub fn settings(&self) -> &TileSettings {
        &self.settings
    }

    /// Every tile is made again on the next update (a new terrain).
    pub fn invalidate(&mut self) {
        self.key = None;
    }

    /// Samples edited since the last update (the source's sample coordinates).
    pub fn mark(&mut self, r: SampleRect) {
        self.pending = Some(self.pending.map_or(r, |p| p.union(r)));
    }

    /// The sample spacing and frame of the tiles in place (None before the first update).
    pub fn placed(&self) -> Option<(f64, Frame)> {
        Some((self.key?.0, self.frame?))
    }

    /// The tiles the engine holds.
    pub fn tile_count(&self) -> usize {
        self.used.len()
    }

    /// Tiles computed on the main thread because the workers were late (see `update`).
    pub fn late_tiles(&self) -> u64 {
        self.late_tiles
    }

    /// An edited tile still waits for its new grid.
    pub fn edits_pending(&self) -> bool {
        self.stale
    }

    /// Whether tile `id` is in the engine.
    pub fn has_tile(&self, id: &TileId) -> bool {
        self.used.contains(id)
    }

    /// The tiles around terrain X/Z `target` in a window of `n`² tiles (row-major into `out`): 1 where a
    /// tile is in the engine, 2 where an edit's new grid is still on its way, 0 elsewhere. Returns the
    /// corner and side (terrain units) of the window's first tile; None before the first update.
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
        let cells = (self.used.iter().map(|t| (id(t), 1u8))).chain(edited);
        let first = fill_window(centre, n, cells, out);
        Some((
            [
                corner0[0] + first[0] as f64 * side,
                corner0[1] + first[1] as f64 * side,
            ],
            side,
        ))
    }

    /// Drops every tile from the engine and forgets what the workers are doing.
    pub fn clear(&mut self, sink: &mut impl TileSink) {
        for id in self.used.drain() {
            sink.release(id);
        }
        self.forget();
    }

    /// Forgets everything, the tiles in the engine included (the engine's side was freed: a new space).
    pub fn reset(&mut self) {
        self.used.clear();
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
        self.kept.clear();
        self.complete = false;
        self.last_targets.clear();
        self.follows.clear();
    }

    /// `tolerance` in terrain height units (the frame's Y scale undone).
    fn terrain_tolerance(&self, frame: &Frame) -> f32 {
        let sy = frame.scale[1].abs();
        if sy > 0.0 {
            (self.settings.tolerance / sy) as f32
        } else {
            0.0
        }
    }

    /// Brings the tiles up to date (each physics tick): drops and adds tiles for the mode and the targets
    /// (terrain X/Z), makes again the tiles pending edits touched. Grids are computed on worker threads,
    /// ahead of each target along its motion; this call hands finished ones to `sink` (within
    /// `WRITE_BUDGET` per `frame_no`, the caller's frame count) and computes at once only a missing tile
    /// under a target (`late_tiles` counts those). `now`: waits for the workers and brings every wanted
    /// tile and edit in before returning. `shared`: the source itself when workers may read it (an
    /// endless or region source); otherwise the samples a job needs are copied first. Returns the tiles
    /// written.
    #[allow(clippy::too_many_arguments)]
    pub fn update<S: Samples + ?Sized>(
        &mut self,
        sink: &mut impl TileSink,
        t: &S,
        shared: Option<&SharedSamples>,
        frame: &Frame,
        targets: &[Target],
        now: bool,
        frame_no: u64,
    ) -> usize {
        if self.settings.mode == CollisionMode::Disabled {
            self.clear(sink);
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
            self.clear(sink);
            self.key = Some(key);
            self.pending = None;
        }
        // Still targets, no edit and nothing on its way: nothing to do.
        if !now && self.idle(frame, targets) {
            return 0;
        }
        // DYNAMIC: small tiles, quick to build while the targets move; FULL: the smallest tiles that keep
        // the whole terrain within a body budget. An endless world has no "every tile", and a region
        // folder's would load the whole map: FULL follows the targets like DYNAMIC over streamed sources.
        let full = self.settings.mode == CollisionMode::Full && !t.streamed();
        let tiling = if full {
            Tiling::for_count(t, self.settings.subdivision, MAX_FULL_TILES)
        } else {
            Tiling::with_points(t, self.settings.subdivision, DYNAMIC_TILE_POINTS)
        }
        .with_tolerance(tolerance);
        // Far tiles take a looser tolerance; none when every tile is exact, nor in FULL mode (made once
        // for bodies anywhere, not refined as the targets go).
        let far = (tolerance > 0.0 && !full).then(|| tiling.with_tolerance(tolerance * FAR_FACTOR));
        self.view = Some((tiling, t.spacing()));
        self.follow_frame(sink, frame);
        self.follow_targets(targets, frame, t.spacing() * tiling.tile_cells() as f64);
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
        let mut areas = std::mem::take(&mut self.areas);
        self.ranges(&tiling, t, full, &mut areas);
        self.drop_outside(sink, &areas);
        let mut near = std::mem::take(&mut self.near);
        self.near_bands(t.spacing(), &mut near);
        // Without targets every tile is near (none is refined later).
        let bands = far
            .filter(|_| !near.is_empty())
            .map(|f| (f, near.as_slice()));
        let mut written = self.take_ready(sink, &tiling, &areas, now, frame_no);
        // After the hand-over: a coarse tile that just arrived beside a target about to stop is refined
        // too (the next updates may be idle).
        if far.is_some() && !near.is_empty() {
            self.refine(&tiling, &near);
        }
        written += self.compute_late(sink, &tiling, bands, t, frame, &areas, now);
        self.ask_workers(&tiling, bands, t, shared, &areas);
        self.areas = areas;
        self.near = near;
        written
    }

    /// The near band around each target and its path ahead (none without targets: every tile is near).
    fn near_bands(&self, spacing: f64, out: &mut Vec<Reach>) {
        out.clear();
        out.extend(self.follows.iter().map(|f| Reach {
            from: f.at,
            to: f.ahead(),
            reach: f.radius * NEAR_SHARE,
            spacing,
        }));
    }

    /// Coarse tiles in place that a target came near are made again at the near tolerance.
    fn refine(&mut self, tiling: &Tiling, near: &[Reach]) {
        let mut ids = std::mem::take(&mut self.todo);
        // A tile waiting for an edit is made anew anyway (at the band it is asked in), and under a
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

    /// The terrain moved, was scaled or shifted its origin: the same grids, placed anew (nothing
    /// rebuilt). Cheap enough for the frame of an origin shift.
    pub fn follow_frame(&mut self, sink: &mut impl TileSink, frame: &Frame) {
        let (Some(old), Some((tiling, spacing))) = (self.frame, self.view) else {
            self.frame = Some(*frame);
            return;
        };
        if old == *frame {
            return;
        }
        self.frame = Some(*frame);
        let mut tiles = self
            .used
            .iter()
            .map(|&id| (id, tiling.placement(spacing, id).0));
        sink.place(frame, old.scale != frame.scale, &mut tiles);
    }

    /// Whether an update for `targets` and `frame` would do nothing: still targets, no edit, nothing on
    /// its way, or collision disabled and cleared.
    pub fn idle(&self, frame: &Frame, targets: &[Target]) -> bool {
        if self.settings.mode == CollisionMode::Disabled {
            return self.used.is_empty();
        }
        self.key.is_some()
            && targets == self.last_targets.as_slice()
            && self.frame == Some(*frame)
            && self.pending.is_none()
            && self.settled()
    }

    /// Nothing left to do until a target moves or an edit arrives.
    fn settled(&self) -> bool {
        self.complete && !self.stale && self.ready.is_empty() && self.stream.in_flight() == 0
    }

    /// Keeps the targets and how far ahead of each to prepare tiles: its motion over `LEAD_TICKS`
    /// updates (nothing for a jump: a teleport prepares around where it lands). A target is matched to
    /// its last position by id (the same index first: the order rarely changes).
    fn follow_targets(&mut self, targets: &[Target], frame: &Frame, tile: f64) {
        // Radii are in world units; the tiling works in terrain units.
        let scale = frame.scale[0].abs().min(frame.scale[2].abs()).max(1e-9);
        let old = std::mem::take(&mut self.follows);
        self.follows
            .extend(targets.iter().enumerate().map(|(i, t)| {
                let last = old
                    .get(i)
                    .filter(|f| f.id == t.id)
                    .or_else(|| old.iter().find(|f| f.id == t.id));
                let world = if t.radius > 0.0 {
                    t.radius
                } else {
                    self.settings.radius
                };
                let radius = world / scale;
                let (lead, step) = match last {
                    Some(q) => {
                        let d = [t.at[0] - q.at[0], t.at[1] - q.at[1]];
                        let len = d[0].hypot(d[1]);
                        let most = radius.max(tile) * 2.0;
                        if len.is_finite() && len <= most {
                            let k = (LEAD_TICKS * len).min(most) / len.max(1e-12);
                            ([d[0] * k, d[1] * k], d)
                        } else {
                            ([0.0; 2], [0.0; 2])
                        }
                    }
                    None => ([0.0; 2], [0.0; 2]),
                };
                Follow {
                    id: t.id,
                    at: t.at,
                    lead,
                    step,
                    radius,
                }
            }));
        self.last_targets.clear();
        self.last_targets.extend_from_slice(targets);
    }

    /// Drops the tiles, results and edit marks outside what is kept; edited tiles beyond what is wanted
    /// are dropped rather than rewritten (they are prepared again if a target comes near). Only the
    /// ranges that changed since the last update are walked (and every tile while an edit is on its way):
    /// with many targets a walk over every tile for each was most of a tick's cost.
    fn drop_outside(&mut self, sink: &mut impl TileSink, areas: &[Areas]) {
        let mut gone = std::mem::take(&mut self.todo);
        gone.clear();
        if self.stale {
            let tiles = &self.tiles;
            gone.extend(
                self.used
                    .iter()
                    .filter(|id| tiles.get(id).is_some_and(is_edited) && !in_any(areas, WANT, id)),
            );
        }
        // Tiles only a changed range held: those no range keeps now go (in place or not: whatever the
        // workers bring for them is stale).
        let same = self.kept.len() == areas.len()
            && self.kept.iter().zip(areas).all(|(k, a)| *k == a[KEEP]);
        if !same {
            let mut left = Vec::new();
            for (i, old) in self.kept.iter().enumerate() {
                if areas.get(i).is_some_and(|a| a[KEEP] == *old) {
                    continue;
                }
                for z in old.1[0]..old.1[1] {
                    for x in old.0[0]..old.0[1] {
                        if !in_any(areas, KEEP, &[x, z]) {
                            left.push([x, z]);
                        }
                    }
                }
            }
            // A wholly new set of ranges (the first update, FULL, a new key) leaves nothing to compare.
            if self.kept.is_empty() {
                let used = &self.used;
                left.extend(
                    self.tiles
                        .keys()
                        .chain(used.iter())
                        .filter(|id| !in_any(areas, KEEP, id)),
                );
            }
            left.sort_unstable();
            left.dedup();
            gone.extend(left);
            self.kept.clear();
            self.kept.extend(areas.iter().map(|a| a[KEEP]));
        }
        gone.sort_unstable();
        gone.dedup();
        for id in &gone {
            if self.used.remove(id) {
                sink.release(*id);
            }
            self.tiles.remove(*id);
        }
        self.todo = gone;
        let tiles = &self.tiles;
        self.bands.retain(|id| tiles.get(id).is_some());
        self.ready.retain(|r| in_any(areas, KEEP, &r.id));
    }

    /// Writes `grid` for tile `id` through `sink` and counts it in place.
    fn write(&mut self, sink: &mut impl TileSink, grid: &TileGrid, frame: &Frame, id: TileId) {
        sink.write(id, grid, frame);
        self.used.insert(id);
    }

    /// Distance (samples, max norm) from the nearest target, or where one will be `LATE_UPDATES`
    /// ahead, to the point `c`.
    fn target_distance(follows: &[Follow], c: [f64; 2], spacing: f64) -> i64 {
        let d = |q: [f64; 2]| (c[0] - q[0]).abs().max((c[1] - q[1]).abs());
        let near = follows
            .iter()
            .map(|f| d(f.at).min(d(f.late_ahead())))
            .fold(f64::INFINITY, f64::min);
        let near = if near.is_finite() { near } else { d([0.0; 2]) };
        (near / spacing) as i64
    }

    /// Takes finished grids from the workers and writes those still current, nearest to a target first,
    /// within `WRITE_BUDGET` a frame (all of them when `now`).
    fn take_ready(
        &mut self,
        sink: &mut impl TileSink,
        tiling: &Tiling,
        areas: &[Areas],
        now: bool,
        frame_no: u64,
    ) -> usize {
        let mut ready = std::mem::take(&mut self.ready);
        if now {
            self.stream.wait(&mut ready);
        } else {
            self.stream.poll(&mut ready);
        }
        // Current: asked for after the tile's last edit, and either new or replacing an edited tile.
        let tiles = &self.tiles;
        ready.retain_mut(|r| {
            let current = in_any(areas, KEEP, &r.id)
                && tiles
                    .get(&r.id)
                    .is_some_and(|c| r.stamp >= c.stamp && c.shown < c.stamp);
            if !current {
                self.stream.recycle(std::mem::take(&mut r.grid));
            }
            current
        });
        let spacing = self.key.map_or(1.0, |k| k.0);
        let follows = &self.follows;
        // Within `under` of a target (or where it will be `LATE_UPDATES` ahead) a tile holds it: never
        // held back by the budget.
        let dist = |r: &ReadyTile| Self::target_distance(follows, r.grid.centre, spacing);
        let under = (tiling.tile_cells() as f64 * 0.5 + LATE_REACH) as i64;
        ready.sort_by_cached_key(dist);
        let frame = self.frame.unwrap_or_default();
        // Updates run in the same frame share its budget.
        if frame_no != self.budget_frame {
            self.budget_frame = frame_no;
            self.spent = Duration::ZERO;
        }
        let left = WRITE_BUDGET.saturating_sub(self.spent);
        let start = Instant::now();
        let mut written = 0;
        for r in ready.drain(..) {
            let d = Self::target_distance(&self.follows, r.grid.centre, spacing);
            if !(now || d <= under || start.elapsed() < left) {
                self.ready.push(r);
                continue;
            }
            self.tiles.accept_latest(&r.id, r.stamp);
            self.bands.written(&r.id);
            self.write(sink, &r.grid, &frame, r.id);
            self.stream.recycle(r.grid);
            written += 1;
        }
        self.spent += start.elapsed();
        written
    }

    /// Computes on this thread the tiles a target cannot wait for: a missing or edited tile under it or
    /// where it will be `LATE_UPDATES` updates ahead (the workers fell behind, or an edit reached the
    /// ground it stands on), every tile it needs when it has none yet (the first frame, a teleport), and
    /// with `now` everything wanted and every edit.
    #[allow(clippy::too_many_arguments)]
    fn compute_late<S: Samples + ?Sized>(
        &mut self,
        sink: &mut impl TileSink,
        tiling: &Tiling,
        bands: Option<(Tiling, &[Reach])>,
        t: &S,
        frame: &Frame,
        areas: &[Areas],
        now: bool,
    ) -> usize {
        let sp = t.spacing();
        let mut todo = std::mem::take(&mut self.todo);
        todo.clear();
        let mut late = 0;
        for (i, a) in areas.iter().enumerate() {
            let f = self.follows.get(i).copied();
            let must = a[MUST];
            let first = !(must.1[0]..must.1[1])
                .any(|z| (must.0[0]..must.0[1]).any(|x| self.used.contains(&[x, z])));
            let area = match (now, first, f) {
                (true, _, _) => a[WANT],
                (false, true, _) => a[MUST],
                // Where the target is and where it will be `LATE_UPDATES` ahead: with the workers behind
                // (no core for them), a body moving fast must not reach a tile that is not there yet.
                (false, false, Some(f)) => {
                    tiles_around(tiling, sp, &[f.at, f.late_ahead()], LATE_REACH * sp)
                }
                (false, false, None) => continue,
            };
            // Late: missing where the target stands (tiles made for where it is going are not).
            let here = f.map_or(area, |f| tiles_around(tiling, sp, &[f.at], LATE_REACH * sp));
            for z in area.1[0]..area.1[1] {
                for x in area.0[0]..area.0[1] {
                    let id = [x, z];
                    // Within the radius (the main thread does not compute far ahead of a fast target).
                    if !(contains(a[MUST], &id) || now) {
                        continue;
                    }
                    // Missing, or edited: the ground under a target is never stale.
                    let used = self.used.contains(&id);
                    // A tile being refined stays collidable as it is until the workers bring it.
                    let edited = self.tiles.get(&id).is_some_and(is_edited)
                        && !(used && !now && self.bands.is_refining(&id));
                    if (!used || edited) && !self.ready.iter().any(|r| r.id == id) {
                        if !(now || first) {
                            late += usize::from(!used && contains(here, &id));
                        }
                        todo.push(id);
                    }
                }
            }
        }
        // Targets close together want the same tiles: each is made once.
        todo.sort_unstable();
        todo.dedup();
        self.late_tiles += late as u64;
        // Each tile at its band's tolerance, as the workers would make it.
        for (ids, tl, far) in by_band(tiling, bands, &mut todo) {
            for batch in ids.chunks(BATCH) {
                let mut grids = std::mem::take(&mut self.grids);
                tl.grids(t, batch, &mut grids);
                for (&id, g) in batch.iter().zip(&grids) {
                    self.tiles.mark_current(id);
                    self.bands.asked(id, far);
                    self.bands.written(&id);
                    self.write(sink, g, frame, id);
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

    /// Asks the workers for edited tiles and for the wanted tiles that are missing, nearest to a target
    /// and its path ahead first, up to `IN_FLIGHT` tiles at a time. `bands`: the far tiling and the near
    /// bands, when far tiles take a looser tolerance.
    fn ask_workers<S: Samples + ?Sized>(
        &mut self,
        tiling: &Tiling,
        bands: Option<(Tiling, &[Reach])>,
        t: &S,
        shared: Option<&SharedSamples>,
        areas: &[Areas],
    ) {
        let sp = t.spacing();
        let mut ranked = std::mem::take(&mut self.ranked);
        ranked.clear();
        // New and edited tiles in the wanted rings whose grid was not asked for since their last edit,
        // ranked by the target whose ring holds them: edited first, then those it needs now, then by
        // distance to the path from it to where it is heading.
        let mut complete = true;
        for (i, a) in areas.iter().enumerate() {
            // Targets sharing a ring (FULL: the whole terrain) walk it once.
            if areas[..i].iter().any(|b| b[WANT] == a[WANT]) {
                continue;
            }
            let path = self.follows.get(i).map(|f| (f.at, f.ahead()));
            let want = a[WANT];
            for z in want.1[0]..want.1[1] {
                for x in want.0[0]..want.0[1] {
                    let id = [x, z];
                    let c = self.tiles.want(id);
                    complete &= c.shown > 0;
                    if c.needs_work() {
                        let d = path.map_or(0.0, |(p, q)| {
                            segment_distance(tiling.placement(sp, id).0, p, q) / sp
                        });
                        ranked.push((id, (!is_edited(c), !contains(a[MUST], &id), d as i64)));
                    }
                }
            }
        }
        self.complete = complete;
        // While an edit is on its way: edited tiles beyond the rings (or asked-for ones an edit overtook),
        // and whether any edited tile still waits (no walk over the tiles otherwise).
        if self.stale {
            let follows = &self.follows;
            ranked.extend(
                self.tiles
                    .iter()
                    .filter(|(id, c)| {
                        !in_any(areas, WANT, id) && c.needs_work() && (c.shown > 0 || c.asked > 0)
                    })
                    .map(|(id, c)| {
                        let d = Self::target_distance(follows, tiling.placement(sp, *id).0, sp);
                        (*id, (!is_edited(c), true, d))
                    }),
            );
            self.stale = self.tiles.iter().any(|(_, c)| is_edited(c));
        }
        // A tile in two targets' rings is asked for once, at its better rank.
        ranked.sort_unstable();
        ranked.dedup_by_key(|r| r.0);
        ranked.sort_unstable_by_key(|r| r.1);
        let mut wanted = std::mem::take(&mut self.todo);
        wanted.clear();
        wanted.extend(ranked.iter().map(|r| r.0));
        // Edited tiles all at once (they are collidable again as soon as possible); new ones a few at a
        // time, so the nearest come back first whatever the targets do next.
        let n_edited = ranked.iter().take_while(|r| !r.1 .0).count();
        let room = IN_FLIGHT.saturating_sub(self.stream.in_flight());
        wanted.truncate(n_edited.max(room));
        self.ranked = ranked;
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

    /// Each target's tile ranges (columns, rows): what it needs now, the ring to prepare, and what to
    /// keep (into `out`, one entry per target; FULL: every tile for each).
    fn ranges<S: Samples + ?Sized>(
        &self,
        tiling: &Tiling,
        t: &S,
        full: bool,
        out: &mut Vec<Areas>,
    ) {
        out.clear();
        let [tx, tz] = tiling.tiles();
        if full {
            // Every target has the whole terrain (each keeps its own late path under it).
            let all = ([0, tx], [0, tz]);
            out.extend(std::iter::repeat_n([all; 3], self.follows.len().max(1)));
            return;
        }
        let tile = tiling.tile_cells() as f64 * t.spacing();
        let sp = t.spacing();
        // Where a target is heading is prepared and kept as well.
        out.extend(self.follows.iter().map(|f| {
            let (p, ahead, r) = (f.at, f.ahead(), f.radius);
            [
                tiles_around(tiling, sp, &[p], r),
                tiles_around(tiling, sp, &[p, ahead], r + tile),
                tiles_around(tiling, sp, &[p, ahead], r + 2.0 * tile),
            ]
        }));
    }
}

#[cfg(test)]
mod tests;
