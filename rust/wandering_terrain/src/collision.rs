//! Collision of the terrain nodes through `PhysicsServer3D` (tiling in `terrain_core::collision`): one
//! static body with one heightmap shape per tile, owned by the node, no nodes in the user's scene. Bodies
//! are kept in slots and reused, so moving and editing only rewrite the data of the tiles concerned (one
//! body per tile, not one body of many shapes: a body's shape change costs the engine time in its number
//! of shapes).

use godot::classes::physics_server_3d::{BodyMode, BodyParameter};
use godot::classes::{PhysicsMaterial, PhysicsServer3D};
use godot::prelude::*;
use std::collections::HashMap;
use terrain_core::clipmap_data::Frame;
use terrain_core::collision::{check_radius, check_subdivision, TileGrid, TileId, Tiling};
use terrain_core::samples::Samples;
use terrain_core::terrain_data::Region;

/// `collision_mode` values.
pub const MODE_DISABLED: i64 = 0;
pub const MODE_DYNAMIC: i64 = 1;
pub const MODE_FULL: i64 = 2;

/// What the user sets in the node's Collision group (validated by the node's setters).
#[derive(Clone)]
pub struct CollisionSettings {
    pub mode: i64,
    pub radius: f64,
    pub layer: u32,
    pub mask: u32,
    pub material: Option<Gd<PhysicsMaterial>>,
    pub subdivision: u32,
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
        }
    }
}

/// What the grids depend on: spacing, size, subdivision (the node's frame only moves them).
type Key = (f64, Option<[usize; 2]>, u32);

/// The body, its shape slots and which tile each holds.
#[derive(Default)]
pub struct TerrainCollision {
    pub settings: CollisionSettings,
    /// The physics space and the node reported as collider; None outside the tree.
    space: Option<(Rid, InstanceId)>,
    /// (body, shape) per slot.
    slots: Vec<(Rid, Rid)>,
    used: HashMap<TileId, usize>,
    free: Vec<usize>,
    key: Option<Key>,
    /// The frame the shapes are placed for.
    frame: Option<Frame>,
    /// The tile ranges last time (see `ranges`): unchanged and complete means no tile to add or drop.
    wanted: Option<[Range2; 3]>,
    complete: bool,
    pending: Option<Region>,
    /// Kept buffers: tiles to write and their grids.
    todo: Vec<TileId>,
    grids: Vec<TileGrid>,
    heights: PackedFloat32Array,
}

/// Columns and rows of tiles, each [start, end).
type Range2 = ([usize; 2], [usize; 2]);

fn contains(r: Range2, id: &TileId) -> bool {
    (r.0[0]..r.0[1]).contains(&id[0]) && (r.1[0]..r.1[1]).contains(&id[1])
}

/// Tiles of the ring around the needed ones written per physics frame (about 0.2 ms each).
const PREFETCH_TILES: usize = 2;

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

/// Tiles whose grids are computed together (in parallel) before being handed to the engine; bounds the
/// memory of a FULL build (64 tiles of subdivision 4: 69 MB).
const BATCH: usize = 64;

impl TerrainCollision {
    /// Creates the body in `space`, reporting `owner` as the collider of hits.
    pub fn enter(&mut self, space: Rid, owner: InstanceId) {
        self.exit();
        self.space = Some((space, owner));
    }

    /// Frees every body and shape.
    pub fn exit(&mut self) {
        let mut ps = PhysicsServer3D::singleton();
        for (b, s) in self.slots.drain(..) {
            ps.free_rid(b);
            ps.free_rid(s);
        }
        self.space = None;
        self.used.clear();
        self.free.clear();
        self.key = None;
        self.frame = None;
        self.wanted = None;
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

    // The nodes' Collision properties delegate here; `class` names the node in messages.

    pub fn set_mode(&mut self, class: &str, v: i64) {
        if !(MODE_DISABLED..=MODE_FULL).contains(&v) {
            godot_error!(
                "{class}.collision_mode must be 0 (DISABLED), 1 (DYNAMIC) or 2 (FULL), got {v}; keeping {}",
                self.settings.mode
            );
            return;
        }
        self.settings.mode = v;
        self.invalidate();
    }

    pub fn set_radius(&mut self, class: &str, v: f64) {
        match check_radius(v) {
            Ok(r) => {
                self.settings.radius = r;
                self.invalidate();
            }
            Err(e) => godot_error!("{class}.{e}; keeping {}", self.settings.radius),
        }
    }

    pub fn set_subdivision(&mut self, class: &str, v: i64) {
        match check_subdivision(v) {
            Ok(s) => {
                self.settings.subdivision = s;
                self.invalidate();
            }
            Err(e) => godot_error!("{class}.{e}; keeping {}", self.settings.subdivision),
        }
    }

    pub fn set_layer(&mut self, v: u32) {
        self.settings.layer = v;
        self.apply_body_settings();
    }

    pub fn set_mask(&mut self, v: u32) {
        self.settings.mask = v;
        self.apply_body_settings();
    }

    pub fn set_material(&mut self, v: Option<Gd<PhysicsMaterial>>) {
        self.settings.material = v;
        self.apply_body_settings();
    }

    /// Every tile is rebuilt on the next update (new mode, subdivision or terrain).
    pub fn invalidate(&mut self) {
        self.key = None;
    }

    /// Samples edited since the last update.
    pub fn mark(&mut self, r: Region) {
        self.pending = Some(self.pending.map_or(r, |p| p.union(r)));
    }

    pub fn tile_count(&self) -> usize {
        self.used.len()
    }

    /// Brings the tiles up to date (each physics frame): drops and adds tiles for the mode and the target
    /// (terrain-space X/Z), rewrites the tiles that pending edits touched. Returns the tiles written.
    pub fn update<S: Samples + ?Sized>(
        &mut self,
        terrain: Option<&S>,
        frame: &Frame,
        target: Option<[f64; 2]>,
    ) -> usize {
        let (Some(_), Some(t)) = (self.space, terrain) else {
            self.clear();
            return 0;
        };
        if self.settings.mode == MODE_DISABLED {
            self.clear();
            return 0;
        }
        let key = (t.spacing(), t.size(), self.settings.subdivision);
        if self.key != Some(key) {
            self.clear();
            self.key = Some(key);
            self.pending = None;
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
        };
        if self.frame != Some(*frame) {
            // The node moved or was scaled: the same grids, placed anew.
            self.frame = Some(*frame);
            let mut ps = PhysicsServer3D::singleton();
            for (&id, &slot) in &self.used {
                let (centre, step) = tiling.placement(t.spacing(), id);
                ps.body_set_shape_transform(
                    self.slots[slot].0,
                    0,
                    shape_transform(centre, step, frame),
                );
            }
        }
        self.todo.clear();
        // Edits first, for tiles that stay.
        if let Some(r) = self.pending.take() {
            for id in tiling.tiles_touching(r) {
                if self.used.contains_key(&id) {
                    self.todo.push(id);
                }
            }
        }
        let ranges = self.ranges(&tiling, t, full, frame, target);
        if Some(ranges) != self.wanted || !self.complete {
            self.wanted = Some(ranges);
            let [must, want, keep] = ranges;
            let gone: Vec<TileId> = self
                .used
                .keys()
                .filter(|id| !contains(keep, id))
                .copied()
                .collect();
            for id in gone {
                let slot = self.used.remove(&id).expect("used tile");
                self.release(slot);
            }
            // Edited tiles that were just dropped are not rewritten.
            let used = &self.used;
            self.todo.retain(|id| used.contains_key(id));
            // Tiles the target needs now, then a few of the ring around them, so crossing a tile border
            // finds its tiles ready and the work is spread over frames.
            let mut prefetch = 0;
            self.complete = true;
            for z in want.1[0]..want.1[1] {
                for x in want.0[0]..want.0[1] {
                    let id = [x, z];
                    if self.used.contains_key(&id) || self.todo.contains(&id) {
                        continue;
                    }
                    if contains(must, &id) {
                        self.todo.push(id);
                    } else if prefetch < PREFETCH_TILES {
                        self.todo.push(id);
                        prefetch += 1;
                    } else {
                        self.complete = false;
                    }
                }
            }
        }
        let todo = std::mem::take(&mut self.todo);
        for batch in todo.chunks(BATCH) {
            let mut grids = std::mem::take(&mut self.grids);
            tiling.grids(t, batch, &mut grids);
            for (&id, g) in batch.iter().zip(&grids) {
                self.write(g, frame, id);
            }
            self.grids = grids;
        }
        let written = todo.len();
        self.todo = todo;
        written
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
        let range = |radius: f64| {
            let mut lo = [usize::MAX; 2];
            let mut hi = [0usize; 2];
            for id in tiling.tiles_near(t.spacing(), p, radius) {
                for a in 0..2 {
                    lo[a] = lo[a].min(id[a]);
                    hi[a] = hi[a].max(id[a] + 1);
                }
            }
            if lo[0] == usize::MAX {
                ([0, 0], [0, 0])
            } else {
                ([lo[0], hi[0]], [lo[1], hi[1]])
            }
        };
        [range(r), range(r + tile), range(r + 2.0 * tile)]
    }

    /// Writes a tile's grid into its slot (taking a free slot or a new shape for a new tile).
    fn write(&mut self, g: &TileGrid, frame: &Frame, id: TileId) {
        self.heights.resize(g.heights.len());
        self.heights.as_mut_slice().copy_from_slice(&g.heights);
        let mut data = Dictionary::<GString, Variant>::new();
        data.set("width", g.width as i64);
        data.set("depth", g.depth as i64);
        data.set("heights", &self.heights.to_variant());
        data.set("min_height", g.min_height);
        data.set("max_height", g.max_height);
        let (o, s) = (frame.origin, frame.scale);
        let xf = Transform3D::new(
            Basis::from_diagonal((g.step * s[0]) as f32, s[1] as f32, (g.step * s[2]) as f32),
            Vector3::new(
                (g.centre[0] * s[0] + o[0]) as f32,
                o[1] as f32,
                (g.centre[1] * s[2] + o[2]) as f32,
            ),
        );
        let mut ps = PhysicsServer3D::singleton();
        let slot = match self.used.get(&id) {
            Some(&slot) => slot,
            None => {
                let slot = match self.free.pop() {
                    Some(s) => s,
                    None => self.new_slot(),
                };
                self.used.insert(id, slot);
                slot
            }
        };
        let (body, shape) = self.slots[slot];
        ps.shape_set_data(shape, &data.to_variant());
        ps.body_set_shape_transform(body, 0, xf);
        ps.body_set_shape_disabled(body, 0, false);
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
        self.slots.len() - 1
    }

    /// Drops every tile; with collision disabled the bodies and shapes are freed too.
    fn clear(&mut self) {
        let slots: Vec<usize> = self.used.drain().map(|(_, s)| s).collect();
        for slot in slots {
            self.release(slot);
        }
        if self.settings.mode == MODE_DISABLED {
            let mut ps = PhysicsServer3D::singleton();
            for (b, s) in self.slots.drain(..) {
                ps.free_rid(b);
                ps.free_rid(s);
            }
            self.free.clear();
        }
        self.wanted = None;
    }

    /// Disables a slot's shape and keeps it for reuse — up to `RESERVE` free slots; beyond that the
    /// slot's data is dropped (an emptied shape costs nothing; FULL → DYNAMIC frees its heights).
    fn release(&mut self, slot: usize) {
        let mut ps = PhysicsServer3D::singleton();
        let (body, shape) = self.slots[slot];
        ps.body_set_shape_disabled(body, 0, true);
        if self.free.len() >= RESERVE {
            let mut empty = Dictionary::<GString, Variant>::new();
            empty.set("width", 2i64);
            empty.set("depth", 2i64);
            empty.set(
                "heights",
                &PackedFloat32Array::from(&[0.0f32; 4][..]).to_variant(),
            );
            empty.set("min_height", 0.0f32);
            empty.set("max_height", 0.0f32);
            ps.shape_set_data(shape, &empty.to_variant());
        }
        self.free.push(slot);
    }
}
