//! A `TerrainInstancer`'s detail layers on the servers: the cells within each layer's view radius of the
//! camera are generated on the worker pool (`terrain_core::detail`) and handed to `RenderingServer` as one
//! MultiMesh per cell (transform and colour per instance, origins relative to the cell). Cells leaving the
//! radius give their MultiMesh to the next cell entering it.

use crate::instances::instance_cells::transform_of;
use crate::instances::terrain_detail_layer::ResolvedDetail;
use crate::surface::{cell_transform, Surface};
use godot::classes::rendering_server::{MultimeshTransformFormat, ShadowCastingSetting};
use godot::classes::{Material, Mesh, RenderingServer};
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::cells::Schedule;
use terrain_core::clipmap_data::Frame as TerrainFrame;
use terrain_core::detail::{
    Area, DetailDraw, DetailKey, DetailLayer, DetailResult, DetailStream, FLOATS,
};

/// Cells asked of the workers at most at once.
const IN_FLIGHT: usize = 48;
/// Cells per worker job on an endless source (a TerrainData job copies one cell's samples).
const JOB_CELLS: usize = 4;
/// Instances handed to the RenderingServer per frame at most (512 KB of buffers, under a millisecond; a
/// player flying at 30 m/s needs a tenth of that); the rest wait for
/// the next frames.
const SHOW_PER_FRAME: usize = 8_192;
/// Main-thread time spent showing cells per frame at most (at least one cell is shown): creating a GPU
/// buffer can cost more than its size says.
const SHOW_USEC: u128 = 600;
/// MultiMeshes kept for cells to come.
const SPARE: usize = 32;

/// What a detail cell keeps (its stamps are the schedule's).
#[derive(Default)]
struct DetailGpu {
    gpu: Option<(Rid, Rid)>,
    count: usize,
    /// The frame the cell came within the view radius (None: only in the ring grown ahead of the view).
    since: Option<u64>,
}

/// One layer's cells.
struct Field {
    /// The layer's index in the instancer's `detail_layers` (a layer that cannot grow is skipped, so
    /// positions here may differ).
    index: usize,
    core: Arc<DetailLayer>,
    radius: f32,
    fade: f32,
    look: ResolvedDetailLook,
    cells: Schedule<DetailKey, DetailGpu>,
    spare: Vec<(Rid, Rid)>,
    last_view: Option<DetailKey>,
}

struct ResolvedDetailLook {
    mesh: Gd<Mesh>,
    material: Option<Gd<Material>>,
    aabb: Aabb,
    shadow: i64,
}

/// What a frame's update needs from the instancer.
pub struct Frame<'a> {
    /// The camera in terrain space.
    pub viewer: Option<Vector3>,
    pub surface: &'a Surface,
    pub scenario: Rid,
    /// Terrain space → Godot world, exact (each cell is placed at its corner through it).
    pub placement: TerrainFrame,
    pub visible: bool,
}

#[derive(Default)]
pub struct Detail {
    fields: Vec<Field>,
    stream: DetailStream,
    ready: Vec<DetailResult>,
    /// The last stamp of the layers replaced: new layers take no result of theirs.
    epoch: u64,
    dirty: bool,
    /// Where the cells are placed (terrain space → Godot world).
    placement: TerrainFrame,
    /// Frame updates so far.
    frame: u64,
    /// Frames from coming into view to first shown, per cell since the last `take_latencies` (at most
    /// `LATENCIES` kept).
    latencies: Vec<u32>,
    /// Main-thread time so far: [showing finished cells, choosing and asking for cells] (µs).
    work_usec: [u64; 2],
}

const LATENCIES: usize = 4096;

impl Detail {
    /// New layers, each with its index in `detail_layers` (everything shown is dropped).
    pub fn set_layers(&mut self, layers: Vec<(usize, ResolvedDetail)>) {
        self.clear();
        self.fields = layers
            .into_iter()
            .map(|(index, r)| Field {
                index,
                core: Arc::new(r.core),
                radius: r.radius,
                fade: r.fade,
                look: ResolvedDetailLook {
                    mesh: r.mesh,
                    material: r.material,
                    aabb: r.aabb,
                    shadow: r.shadow,
                },
                cells: Schedule::after(self.epoch),
                spare: Vec::new(),
                last_view: None,
            })
            .collect();
    }

    pub fn has_layers(&self) -> bool {
        !self.fields.is_empty()
    }

    /// Frees every cell on the servers; results on their way are ignored.
    pub fn clear(&mut self) {
        let mut rs = RenderingServer::singleton();
        for f in &mut self.fields {
            self.epoch = self.epoch.max(f.cells.stamp());
            for (_, c) in f.cells.restart() {
                if let Some((mm, inst)) = c.data.gpu {
                    rs.free_rid(inst);
                    rs.free_rid(mm);
                }
            }
            for (mm, inst) in f.spare.drain(..) {
                rs.free_rid(inst);
                rs.free_rid(mm);
            }
            f.last_view = None;
        }
        self.ready.clear();
        self.dirty = true;
    }

    /// Layer `i`'s painted density is now `density` (changed inside terrain `area`): those cells grow
    /// again from it.
    pub fn set_density(&mut self, i: usize, density: terrain_core::detail::DensityMap, area: Area) {
        let Some(f) = self.fields.iter_mut().find(|f| f.index == i) else {
            return;
        };
        let mut core = (*f.core).clone();
        core.ground.density = density;
        f.core = Arc::new(core);
        self.touch(area);
    }

    /// The ground under terrain `area` changed: its cells grow again.
    pub fn touch(&mut self, area: Area) {
        for f in &mut self.fields {
            let grid = &f.core.grid;
            if grid.count_in(area) <= f.cells.len() as u64 {
                f.cells.touch(grid.cells_in(area));
            } else {
                // A wide area (an endless map's discarded edits): walk the cells there are instead.
                f.cells.touch_where(|k| grid.overlaps(area, *k));
            }
        }
        self.dirty = true;
    }

    /// All the ground changed.
    pub fn touch_all(&mut self) {
        for f in &mut self.fields {
            f.cells.touch_all();
        }
        self.dirty = true;
    }

    pub fn is_up_to_date(&self) -> bool {
        self.stream.in_flight() == 0
            && self.ready.is_empty()
            && self.fields.iter().all(|f| f.cells.is_up_to_date())
    }

    /// Instances of layer `i` drawn now.
    pub fn drawn_count(&self, i: usize) -> usize {
        self.field(i).map_or(0, |f| {
            f.cells
                .values()
                .filter(|c| c.data.gpu.is_some())
                .map(|c| c.data.count)
                .sum()
        })
    }

    /// Layer `i` of `detail_layers` (None: it does not grow here).
    fn field(&self, i: usize) -> Option<&Field> {
        self.fields.iter().find(|f| f.index == i)
    }

    /// Cells with a MultiMesh on the GPU, over every layer.
    pub fn gpu_cells(&self) -> usize {
        self.fields
            .iter()
            .map(|f| f.cells.values().filter(|c| c.data.gpu.is_some()).count())
            .sum()
    }

    /// Bytes of instance buffers: on the GPU (shown cells) and on the CPU (results waiting to be shown).
    pub fn memory(&self) -> [usize; 2] {
        let per = FLOATS * 4;
        let gpu = self
            .fields
            .iter()
            .flat_map(|f| f.cells.values())
            .filter(|c| c.data.gpu.is_some())
            .map(|c| c.data.count * per)
            .sum();
        let cpu = self
            .ready
            .iter()
            .map(|r| r.draw.buffer.capacity() * 4)
            .sum();
        [gpu, cpu]
    }

    /// The world transforms layer `i`'s MultiMeshes hold (read back from the RenderingServer: slow, for
    /// tests and debugging), cells in key order.
    pub fn drawn_transforms(&self, i: usize) -> Vec<Transform3D> {
        let Some(f) = self.field(i) else {
            return Vec::new();
        };
        let rs = RenderingServer::singleton();
        let mut keys: Vec<&DetailKey> = f.cells.keys().collect();
        keys.sort();
        let mut out = Vec::new();
        for k in keys {
            let Some((mm, _)) = f.cells.get(k).and_then(|c| c.data.gpu) else {
                continue;
            };
            let at = cell_transform(&self.placement, cell_origin(&f.core, *k));
            let buffer = rs.multimesh_get_buffer(mm);
            for v in buffer.as_slice().chunks_exact(FLOATS) {
                out.push(at * transform_of(v));
            }
        }
        out
    }

    /// Main-thread time so far: [showing finished cells, choosing and asking for cells] (µs).
    pub fn work_usec(&self) -> [u64; 2] {
        self.work_usec
    }

    /// Frames each cell took from coming into view to being shown, since the last call.
    pub fn take_latencies(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.latencies)
    }

    /// Places every cell anew (the terrain moved or its origin shifted): a transform each, buffers kept.
    pub fn set_world(&mut self, placement: &TerrainFrame) {
        self.placement = *placement;
        let mut rs = RenderingServer::singleton();
        for f in &self.fields {
            for (k, c) in f.cells.iter() {
                if let Some((_, inst)) = c.data.gpu {
                    let xf = cell_transform(placement, cell_origin(&f.core, *k));
                    rs.instance_set_transform(inst, xf);
                }
            }
        }
    }

    pub fn set_visible(&mut self, visible: bool) {
        let mut rs = RenderingServer::singleton();
        for f in &self.fields {
            for c in f.cells.values() {
                if let Some((_, inst)) = c.data.gpu {
                    rs.instance_set_visible(inst, visible);
                }
            }
        }
    }

    /// One frame: shows finished cells, chooses the cells in view when the camera entered another cell
    /// (or after an edit) and asks the workers for those that need growing. `wait`: until all is shown.
    /// Returns whether anything was shown.
    pub fn update(&mut self, frame: &Frame, wait: bool) -> bool {
        if self.fields.is_empty() {
            return false;
        }
        if frame.placement != self.placement {
            self.set_world(&frame.placement);
        }
        self.frame += 1;
        let mut shown = false;
        loop {
            let t0 = std::time::Instant::now();
            self.stream.poll(&mut self.ready);
            shown |= self.show_ready(frame, if wait { usize::MAX } else { SHOW_PER_FRAME });
            let t1 = std::time::Instant::now();
            let dirty = std::mem::take(&mut self.dirty);
            for i in 0..self.fields.len() {
                // Looked at again each half cell the viewer moves: the ring grown ahead is half a cell.
                let key = frame.viewer.map(|v| {
                    let half = self.fields[i].core.grid.cell_size() * 0.5;
                    let k = |c: f32| (f64::from(c) / half).floor().clamp(-1e9, 1e9) as i32;
                    (k(v.x), k(v.z))
                });
                if dirty || key != self.fields[i].last_view {
                    self.fields[i].last_view = key;
                    self.want_cells(i, frame.viewer);
                }
            }
            self.ask(frame);
            self.work_usec[0] += (t1 - t0).as_micros() as u64;
            self.work_usec[1] += t1.elapsed().as_micros() as u64;
            if !wait || (self.stream.in_flight() == 0 && self.ready.is_empty()) {
                break;
            }
            self.stream.wait(&mut self.ready);
        }
        shown
    }

    /// Adds the cells within the radius and a ring of half a cell beyond it (grown ahead, so that a cell is
    /// usually drawn before it comes into view), and drops those a cell and a half beyond it.
    fn want_cells(&mut self, i: usize, viewer: Option<Vector3>) {
        let frame = self.frame;
        let f = &mut self.fields[i];
        let Some(v) = viewer else {
            let keys: Vec<DetailKey> = f.cells.keys().copied().collect();
            keys.into_iter().for_each(|k| drop_cell(f, k));
            return;
        };
        let cell = f.core.grid.cell_size() as f32;
        let (r, ahead) = (f.radius, f.radius + 0.5 * cell);
        let area = Area {
            min: [f64::from(v.x - ahead), f64::from(v.z - ahead)],
            max: [f64::from(v.x + ahead), f64::from(v.z + ahead)],
        };
        for k in f.core.grid.cells_in(area) {
            let d = cell_distance(&f.core, k, v);
            if d > ahead {
                continue;
            }
            let c = f.cells.want(k);
            if d <= r && c.data.since.is_none() {
                c.data.since = Some(frame);
                if c.shown > 0 && self.latencies.len() < LATENCIES {
                    self.latencies.push(0);
                }
            }
        }
        let beyond = r + 1.5 * cell;
        let gone: Vec<DetailKey> = f
            .cells
            .keys()
            .filter(|&&k| cell_distance(&f.core, k, v) > beyond)
            .copied()
            .collect();
        gone.into_iter().for_each(|k| drop_cell(f, k));
    }

    /// Asks the workers for the cells that need growing, nearest first.
    fn ask(&mut self, frame: &Frame) {
        let room = IN_FLIGHT.saturating_sub(self.stream.in_flight());
        if room == 0 {
            return;
        }
        let v = frame.viewer.unwrap_or(Vector3::ZERO);
        let mut need: Vec<(f32, usize, DetailKey, u64)> = Vec::new();
        for (i, f) in self.fields.iter().enumerate() {
            need.extend(
                f.cells
                    .needs(|k| cell_distance(&f.core, *k, v))
                    .map(|(d, k, stamp)| (d, i, k, stamp)),
            );
        }
        need.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        need.truncate(room);
        let per_job = frame.surface.cells_per_job(JOB_CELLS);
        for i in 0..self.fields.len() {
            let mine: Vec<(DetailKey, u64)> = need
                .iter()
                .filter(|n| n.1 == i)
                .map(|n| (n.2, n.3))
                .collect();
            let f = &mut self.fields[i];
            for chunk in mine.chunks(per_job) {
                let source = frame
                    .surface
                    .job_source(chunk.iter().map(|c| f.core.grid.cell_area(c.0)));
                self.stream
                    .request(i, f.core.clone(), source, chunk.to_vec());
                for (k, stamp) in chunk {
                    f.cells.asked(*k, *stamp);
                }
            }
        }
    }

    /// Hands finished cells to the RenderingServer, up to `budget` instances (at least one cell).
    fn show_ready(&mut self, frame: &Frame, budget: usize) -> bool {
        if self.ready.is_empty() {
            return false;
        }
        let mut rs = RenderingServer::singleton();
        let mut used = 0;
        let mut any = false;
        let mut taken = 0;
        let t0 = std::time::Instant::now();
        for r in &mut self.ready {
            let late = budget != usize::MAX && t0.elapsed().as_micros() > SHOW_USEC;
            if used > 0 && (used + r.draw.count() > budget || late) {
                break;
            }
            taken += 1;
            let Some(f) = self.fields.get_mut(r.layer) else {
                continue;
            };
            if !f.cells.is_fresh(&r.key, r.stamp) {
                continue;
            }
            used += r.draw.count();
            if let Some(since) = f
                .cells
                .get(&r.key)
                .filter(|c| c.shown == 0)
                .and_then(|c| c.data.since)
            {
                if self.latencies.len() < LATENCIES {
                    self.latencies.push((self.frame - since) as u32);
                }
            }
            show(
                &mut rs,
                f,
                r.key,
                r.stamp,
                &std::mem::take(&mut r.draw),
                frame,
            );
            any = true;
        }
        self.ready.drain(..taken);
        any
    }
}

/// Shows `draw` as cell `key` of `f`.
fn show(
    rs: &mut Gd<RenderingServer>,
    f: &mut Field,
    key: DetailKey,
    stamp: u64,
    draw: &DetailDraw,
    frame: &Frame,
) {
    let origin = cell_origin(&f.core, key);
    let Some(c) = f.cells.accept(&key, stamp) else {
        return;
    };
    if draw.count() == 0 {
        if let Some(g) = c.data.gpu.take() {
            park(rs, &mut f.spare, g);
        }
        c.data.count = 0;
        return;
    }
    let (mm, inst) = match c.data.gpu {
        Some(g) => g,
        None => {
            let g = f
                .spare
                .pop()
                .unwrap_or_else(|| new_gpu(rs, &f.look, f.radius, f.fade, frame));
            rs.instance_set_scenario(g.1, frame.scenario);
            rs.instance_set_visible(g.1, frame.visible);
            c.data.count = usize::MAX;
            c.data.gpu = Some(g);
            g
        }
    };
    if c.data.count != draw.count() {
        rs.multimesh_allocate_data_ex(
            mm,
            draw.count() as i32,
            MultimeshTransformFormat::TRANSFORM_3D,
        )
        .color_format(true)
        .done();
    }
    // The cell's box, so the server need not walk the instances: the origins' box grown by the mesh's
    // reach at the largest scale.
    let reach = f
        .look
        .aabb
        .position
        .abs()
        .coord_max(f.look.aabb.end().abs())
        .length()
        * draw.max_scale;
    let lo = Vector3::from_array(draw.lo) - Vector3::splat(reach);
    let hi = Vector3::from_array(draw.hi) + Vector3::splat(reach);
    rs.multimesh_set_custom_aabb(mm, Aabb::new(lo, hi - lo));
    rs.multimesh_set_buffer(mm, &PackedFloat32Array::from(draw.buffer.as_slice()));
    rs.instance_set_transform(inst, cell_transform(&frame.placement, origin));
    c.data.count = draw.count();
}

fn new_gpu(
    rs: &mut Gd<RenderingServer>,
    look: &ResolvedDetailLook,
    radius: f32,
    fade: f32,
    frame: &Frame,
) -> (Rid, Rid) {
    let mm = rs.multimesh_create();
    rs.multimesh_set_mesh(mm, look.mesh.get_rid());
    let inst = rs.instance_create2(mm, frame.scenario);
    if let Some(m) = &look.material {
        rs.instance_geometry_set_material_override(inst, m.get_rid());
    }
    rs.instance_geometry_set_cast_shadows_setting(
        inst,
        ShadowCastingSetting::from_ord(look.shadow as i32),
    );
    // The include's per-instance fade, in world units.
    let scale = frame.placement.scale[0].abs() as f32;
    rs.instance_geometry_set_shader_parameter(
        inst,
        "detail_fade",
        &Vector2::new(fade * scale, radius * scale).to_variant(),
    );
    (mm, inst)
}

fn park(rs: &mut Gd<RenderingServer>, spare: &mut Vec<(Rid, Rid)>, g: (Rid, Rid)) {
    if spare.len() < SPARE {
        rs.instance_set_visible(g.1, false);
        spare.push(g);
    } else {
        rs.free_rid(g.1);
        rs.free_rid(g.0);
    }
}

fn drop_cell(f: &mut Field, k: DetailKey) {
    if let Some(c) = f.cells.remove(k) {
        if let Some(g) = c.data.gpu {
            park(&mut RenderingServer::singleton(), &mut f.spare, g);
        }
    }
}

/// The cell's lower corner in terrain space (its buffer's origins are relative to it).
fn cell_origin(core: &DetailLayer, k: DetailKey) -> [f64; 2] {
    core.grid.cell_area(k).min
}

/// Distance on X/Z from terrain point `p` to cell `k`.
fn cell_distance(core: &DetailLayer, k: DetailKey, p: Vector3) -> f32 {
    let a = core.grid.cell_area(k);
    a.distance(f64::from(p.x), f64::from(p.z)) as f32
}

/// The layer's instances inside terrain `area` on `s`, as world transforms, at most `limit`.
pub fn transforms_in<S: terrain_core::samples::Samples + ?Sized>(
    core: &DetailLayer,
    s: &S,
    area: Area,
    placement: &TerrainFrame,
    limit: usize,
) -> Vec<Transform3D> {
    terrain_core::detail::instances_in(core, s, area, limit)
        .into_iter()
        .map(|(p, b, _)| {
            // Through the cell's frame, as drawn, so the f32 rounding is the same.
            let key = core.grid.cell_of(p[0], p[2]);
            let o = core.grid.cell_area(key).min;
            let local = Transform3D::new(
                Basis::from_cols(
                    Vector3::from_array(b.x_axis.to_array()),
                    Vector3::from_array(b.y_axis.to_array()),
                    Vector3::from_array(b.z_axis.to_array()),
                ),
                Vector3::new((p[0] - o[0]) as f32, p[1] as f32, (p[2] - o[1]) as f32),
            );
            cell_transform(placement, o) * local
        })
        .collect()
}
