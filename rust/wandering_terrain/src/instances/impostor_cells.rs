//! The instancer's far cells on the RenderingServer: per far cell (`terrain_core::instances::far_cells`,
//! 16 × 16 instance cells at the default cell size) and mesh with an impostor, one MultiMesh of cards and
//! one instance, from the impostor distance to the mesh's `visibility_range`. Far cells are computed on
//! the workers like instance cells and follow the same edits.

use crate::instances::instance_cells::View;
use crate::instances::terrain_instance_mesh::Resolved;
use crate::surface::{cell_transform, Surface};
use godot::classes::rendering_server::{
    MultimeshTransformFormat, ShadowCastingSetting, VisibilityRangeFadeMode,
};
use godot::classes::RenderingServer;
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::cells::Schedule;
use terrain_core::instances::{
    far_cell_contents, far_factor, far_key, Area, CellDraw, CellKey, FarJob, InstanceStore,
    InstanceStream, FAR_FLOATS,
};

/// Far cells asked of the workers at most at once.
const IN_FLIGHT: usize = 8;
/// Main-thread time a frame (not waiting) asks far cells for (at least one): each copies its cells and
/// samples (~0.3 ms at a million trees on 2 m samples), and a flight at 100 m/s meets a new row of 512 m
/// far cells only every 5 s.
const ASK_BUDGET: std::time::Duration = std::time::Duration::from_micros(400);
/// Main-thread time a frame hands finished far cells to the RenderingServer (at least one).
const SHOW_BUDGET: std::time::Duration = std::time::Duration::from_micros(700);

struct FarMesh {
    mesh: usize,
    mm: Rid,
    inst: Rid,
    count: usize,
}

#[derive(Default)]
pub struct FarGpu {
    gpu: Vec<FarMesh>,
    origin: [f64; 2],
}

/// The far cells of one instancer.
#[derive(Default)]
pub struct FarCells {
    map: Schedule<CellKey, FarGpu>,
    stream: InstanceStream,
    ready: Vec<CellDraw>,
    /// The viewer's far cell at the last choice (None: choose again).
    last_view: Option<CellKey>,
    factor: i32,
}

/// What a frame's update needs from the instancer.
pub struct FarView<'a> {
    pub view: View<'a>,
    pub store: &'a InstanceStore,
    pub surface: &'a Surface,
    /// The camera in terrain space.
    pub viewer: Option<Vector3>,
    /// Terrain units per world unit on X/Z (distances are the meshes' world units).
    pub inv_scale: f32,
}

impl FarCells {
    /// Whether any mesh draws impostors.
    pub fn wanted(meshes: &[Resolved]) -> bool {
        meshes.iter().any(|r| r.impostor.is_some())
    }

    /// Drops everything (a new surface, meshes or store).
    pub fn clear(&mut self) {
        let mut rs = RenderingServer::singleton();
        for (_, c) in self.map.restart() {
            free_gpu(&mut rs, c.data);
        }
        self.stream = InstanceStream::default();
        self.ready.clear();
        self.last_view = None;
    }

    /// Instance cells `keys` changed: their far cells are drawn again.
    pub fn touch(&mut self, keys: &[CellKey]) {
        if self.factor > 0 {
            let f = self.factor;
            self.map.touch(keys.iter().map(|&k| far_key(k, f)));
        }
    }

    pub fn touch_all(&mut self) {
        self.map.touch_all();
        self.last_view = None;
    }

    /// One frame: shows finished far cells, chooses those in range of the viewer, asks for the rest.
    /// `wait`: until all are shown.
    pub fn update(&mut self, v: &FarView, wait: bool) -> bool {
        let factor = far_factor(v.store.cell_size());
        if factor != self.factor {
            self.clear();
            self.factor = factor;
        }
        let mut changed = false;
        loop {
            self.stream.poll(&mut self.ready);
            changed |= self.show_ready(v, wait);
            if let Some(p) = v.viewer {
                let here = far_key(v.store.cell_of(f64::from(p.x), f64::from(p.z)), factor);
                if self.last_view != Some(here) {
                    self.last_view = Some(here);
                    self.want(v, p);
                }
            }
            changed |= self.ask(v, wait);
            if !wait || self.stream.in_flight() == 0 {
                break;
            }
            self.stream.wait(&mut self.ready);
        }
        changed
    }

    /// The far side in terrain units and the impostors' reach.
    fn reach(&self, v: &FarView) -> (f64, f64) {
        let side = v.store.cell_size() * f64::from(self.factor);
        let range = v
            .view
            .meshes
            .iter()
            .filter(|r| r.impostor.is_some())
            .map(|r| r.range)
            .fold(0.0f32, f32::max);
        (side, f64::from(range * v.inv_scale))
    }

    fn area(&self, v: &FarView, k: CellKey) -> Area {
        let (side, _) = self.reach(v);
        let min = [f64::from(k.0) * side, f64::from(k.1) * side];
        Area {
            min,
            max: [min[0] + side, min[1] + side],
        }
    }

    fn want(&mut self, v: &FarView, p: Vector3) {
        let (side, range) = self.reach(v);
        let (px, pz) = (f64::from(p.x), f64::from(p.z));
        let lo = |c: f64| ((c - range) / side).floor() as i64;
        let hi = |c: f64| ((c + range) / side).floor() as i64;
        let mut keep = std::collections::HashSet::new();
        for z in lo(pz)..=hi(pz) {
            for x in lo(px)..=hi(px) {
                let (Ok(x), Ok(z)) = (i32::try_from(x), i32::try_from(z)) else {
                    continue;
                };
                if self.area(v, (x, z)).distance(px, pz) <= range {
                    keep.insert((x, z));
                    self.map.want((x, z));
                }
            }
        }
        let gone: Vec<CellKey> = self
            .map
            .keys()
            .filter(|k| !keep.contains(k))
            .copied()
            .collect();
        for k in gone {
            // A far side beyond the reach before leaving (no churn at the border).
            if self.area(v, k).distance(px, pz) > range + side {
                if let Some(c) = self.map.remove(k) {
                    free_gpu(&mut RenderingServer::singleton(), c.data);
                }
            }
        }
    }

    fn ask(&mut self, v: &FarView, wait: bool) -> bool {
        let room = IN_FLIGHT.saturating_sub(self.stream.in_flight());
        if room == 0 {
            return false;
        }
        let Some(p) = v.viewer else {
            return false;
        };
        let need = self.map.nearest(room, |k| {
            self.area(v, *k).distance(f64::from(p.x), f64::from(p.z)) as f32
        });
        if need.is_empty() {
            return false;
        }
        let impostor: Arc<[bool]> = v.view.meshes.iter().map(|r| r.impostor.is_some()).collect();
        let t0 = std::time::Instant::now();
        for (_, k, stamp) in need {
            if !wait && t0.elapsed() > ASK_BUDGET {
                break;
            }
            let area = self.area(v, k);
            let job = FarJob {
                key: k,
                stamp,
                origin: area.min,
                cells: far_cell_contents(v.store, k, self.factor),
                cell_size: v.store.cell_size(),
            };
            let source = v.surface.job_source(job.cells.iter().map(|(c, _)| Area {
                min: *c,
                max: [c[0] + job.cell_size, c[1] + job.cell_size],
            }));
            self.stream.request_far(source, vec![job], impostor.clone());
            self.map.asked(k, stamp);
        }
        true
    }

    fn show_ready(&mut self, v: &FarView, wait: bool) -> bool {
        if self.ready.is_empty() {
            return false;
        }
        let t0 = std::time::Instant::now();
        let mut rest = std::mem::take(&mut self.ready);
        let mut pending = rest.drain(..);
        let mut any = false;
        for r in pending.by_ref() {
            any |= self.show(r, v);
            if !wait && t0.elapsed() > SHOW_BUDGET {
                break;
            }
        }
        self.ready = pending.collect();
        any
    }

    fn show(&mut self, r: CellDraw, v: &FarView) -> bool {
        let side = v.store.cell_size() * f64::from(self.factor);
        let Some(cell) = self.map.accept(&r.key, r.stamp) else {
            return false;
        };
        let cell = &mut cell.data;
        let mut rs = RenderingServer::singleton();
        cell.origin = [f64::from(r.key.0) * side, f64::from(r.key.1) * side];
        let mut old = std::mem::take(&mut cell.gpu);
        for d in &r.meshes {
            let Some(res) = v.view.meshes.get(d.mesh) else {
                continue;
            };
            let Some(imp) = &res.impostor else {
                continue;
            };
            let mut g = match old.iter().position(|g| g.mesh == d.mesh) {
                Some(i) => old.swap_remove(i),
                None => {
                    let mm = rs.multimesh_create();
                    rs.multimesh_set_mesh(mm, imp.card.get_rid());
                    let inst = rs.instance_create2(mm, v.view.scenario);
                    rs.instance_set_visible(inst, v.view.visible);
                    rs.instance_geometry_set_cast_shadows_setting(
                        inst,
                        ShadowCastingSetting::from_ord(res.shadow as i32),
                    );
                    FarMesh {
                        mesh: d.mesh,
                        mm,
                        inst,
                        count: usize::MAX,
                    }
                }
            };
            // Whole far cells nearer than the switch or beyond the reach are culled by the engine (the
            // shader decides per instance cell inside).
            let half_diag = (side * 0.75) as f32 / v.inv_scale;
            rs.instance_geometry_set_visibility_range(
                g.inst,
                (imp.distance - half_diag).max(0.0),
                res.range + half_diag,
                0.0,
                0.0,
                VisibilityRangeFadeMode::DISABLED,
            );
            rs.instance_set_transform(g.inst, cell_transform(&v.view.frame, cell.origin));
            let n = d.buffer.len() / FAR_FLOATS;
            if g.count != n {
                rs.multimesh_allocate_data_ex(
                    g.mm,
                    n as i32,
                    MultimeshTransformFormat::TRANSFORM_3D,
                )
                .color_format(false)
                .custom_data_format(true)
                .done();
                g.count = n;
            }
            rs.multimesh_set_buffer(g.mm, &PackedFloat32Array::from(d.buffer.as_slice()));
            cell.gpu.push(g);
        }
        for g in old {
            free_mesh(&mut rs, g);
        }
        true
    }

    pub fn set_world(&mut self, frame: &terrain_core::clipmap_data::Frame) {
        let mut rs = RenderingServer::singleton();
        for c in self.map.values() {
            for g in &c.data.gpu {
                rs.instance_set_transform(g.inst, cell_transform(frame, c.data.origin));
            }
        }
    }

    pub fn set_visible(&mut self, visible: bool) {
        let mut rs = RenderingServer::singleton();
        for c in self.map.values() {
            for g in &c.data.gpu {
                rs.instance_set_visible(g.inst, visible);
            }
        }
    }

    /// Impostors of `mesh` on the GPU.
    pub fn drawn(&self, mesh: usize) -> usize {
        self.map
            .values()
            .flat_map(|c| c.data.gpu.iter())
            .filter(|g| g.mesh == mesh)
            .map(|g| g.count)
            .sum()
    }

    /// Far cells with something on the GPU.
    pub fn gpu_cells(&self) -> usize {
        self.map.values().filter(|c| !c.data.gpu.is_empty()).count()
    }

    /// Whether the far cells around the viewer were chosen and all are shown as they are now.
    pub fn settled(&self) -> bool {
        self.last_view.is_some()
            && self.ready.is_empty()
            && self.stream.in_flight() == 0
            && self.map.values().all(|c| c.is_current())
    }
}

fn free_gpu(rs: &mut Gd<RenderingServer>, c: FarGpu) {
    for g in c.gpu {
        free_mesh(rs, g);
    }
}

fn free_mesh(rs: &mut Gd<RenderingServer>, g: FarMesh) {
    rs.free_rid(g.inst);
    rs.free_rid(g.mm);
}
