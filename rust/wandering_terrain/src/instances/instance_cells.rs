//! A `TerrainInstancer`'s cells on the servers: per cell, mesh and LOD one MultiMesh and one instance in
//! `RenderingServer` (no node per instance), and near the target one static body per cell in
//! `PhysicsServer3D` holding a shape per instance and collision shape. Bodies and MultiMesh instances are
//! pooled: a cell leaving hands them to the next one entering (a fast flight shows cells every frame, and
//! creating a MultiMesh, an instance and its settings for each LOD of each cell cost the main thread).

use crate::instances::terrain_instance_mesh::Resolved;
use crate::surface::cell_transform;
use godot::classes::physics_server_3d::{BodyMode, BodyState};
use godot::classes::rendering_server::{
    MultimeshTransformFormat, ShadowCastingSetting, VisibilityRangeFadeMode,
};
use godot::classes::{PhysicsServer3D, RenderingServer};
use godot::prelude::*;
use terrain_core::cells::{Cell, Schedule};
use terrain_core::clipmap_data::Frame;
use terrain_core::instances::{CellKey, MeshDraw};

/// One mesh of a cell on the GPU: a MultiMesh and an instance per LOD.
struct GpuMesh {
    mesh: usize,
    count: usize,
    lods: Vec<(Rid, Rid)>,
}

/// What the instancer keeps with a cell (its stamps are the schedule's): the GPU objects of what is shown,
/// the buffers (for the collision bodies) and the body.
#[derive(Default)]
pub struct CellGpu {
    gpu: Vec<GpuMesh>,
    /// What is shown, kept for the collision bodies.
    draw: Vec<MeshDraw>,
    body: Option<Rid>,
    /// The cell's `shown` stamp when the body was filled.
    body_of: u64,
}

/// A scheduled cell of instances.
pub type InstanceCell = Cell<CellGpu>;

impl CellGpu {
    pub fn drawn(&self, mesh: usize) -> usize {
        self.gpu
            .iter()
            .filter(|g| g.mesh == mesh)
            .map(|g| g.count)
            .sum()
    }
    /// Terrain-space origins of the shown instances of `mesh` (f64: exact far out).
    pub fn drawn_origins(&self, mesh: usize) -> impl Iterator<Item = [f64; 3]> + '_ {
        self.draw
            .iter()
            .filter(move |d| d.mesh == mesh)
            .flat_map(|d| {
                let o = d.origin;
                d.buffer.chunks_exact(12).map(move |c| {
                    [
                        o[0] + f64::from(c[3]),
                        f64::from(c[7]),
                        o[1] + f64::from(c[11]),
                    ]
                })
            })
    }

    /// The cell's lower corner in terrain space (its buffers are relative to it).
    fn origin(&self) -> [f64; 2] {
        self.draw.first().map_or([0.0, 0.0], |d| d.origin)
    }
    pub fn has_body(&self) -> bool {
        self.body.is_some()
    }
}

/// Whether `c`'s body holds what is shown.
pub fn body_current(c: &InstanceCell) -> bool {
    c.data.body.is_some() && c.data.body_of == c.shown
}

/// Where and how cells are shown.
pub struct View<'a> {
    pub meshes: &'a [Resolved],
    pub scenario: Rid,
    /// Terrain space → Godot world (exact: each cell is placed at its corner through it).
    pub frame: Frame,
    pub visible: bool,
}

/// The instancer's cells: their schedule (`terrain_core::cells`), a pool of bodies and one of meshes'
/// MultiMeshes and instances (hidden while parked).
#[derive(Default)]
pub struct Cells {
    pub map: Schedule<CellKey, CellGpu>,
    spare_bodies: Vec<Rid>,
    spare_gpu: Vec<GpuMesh>,
}

/// Meshes' GPU objects kept for reuse at most (each a MultiMesh and an instance per LOD).
const SPARE_GPU: usize = 128;

impl Cells {
    /// Shows `draw`, made for cell `key` at `stamp`, if it is fresh (its MultiMeshes created, resized or
    /// freed as the meshes need). Returns whether it was shown.
    pub fn show(&mut self, key: CellKey, stamp: u64, draw: Vec<MeshDraw>, view: &View) -> bool {
        let Some(cell) = self.map.accept(&key, stamp) else {
            return false;
        };
        let cell = &mut cell.data;
        let mut rs = RenderingServer::singleton();
        let mut old = std::mem::take(&mut cell.gpu);
        for d in &draw {
            let Some(res) = view.meshes.get(d.mesh).filter(|r| !r.lods.is_empty()) else {
                continue;
            };
            let buffer = PackedFloat32Array::from(d.buffer.as_slice());
            let mut g = match old
                .iter()
                .position(|g| g.mesh == d.mesh && g.lods.len() == res.lods.len())
            {
                Some(i) => old.swap_remove(i),
                None => match self
                    .spare_gpu
                    .iter()
                    .position(|g| g.mesh == d.mesh && g.lods.len() == res.lods.len())
                {
                    // Parked by a cell that left: the same mesh and LODs, placed here and shown.
                    Some(i) => {
                        let g = self.spare_gpu.swap_remove(i);
                        let xf = cell_transform(&view.frame, d.origin);
                        for &(_, inst) in &g.lods {
                            rs.instance_set_transform(inst, xf);
                            rs.instance_set_visible(inst, view.visible);
                        }
                        g
                    }
                    None => GpuMesh {
                        mesh: d.mesh,
                        count: usize::MAX,
                        lods: res
                            .lods
                            .iter()
                            .map(|l| new_lod(&mut rs, l, res, view, d.origin))
                            .collect(),
                    },
                },
            };
            // With an impostor the switch is measured to a box the far cells know (`cell_box`).
            if let Some(imp) = &res.impostor {
                let (lo, hi) = terrain_core::instances::cell_box(d, imp.reach);
                let lo = Vector3::from_array(lo);
                let aabb = Aabb::new(lo, Vector3::from_array(hi) - lo);
                for &(_, inst) in &g.lods {
                    rs.instance_set_custom_aabb(inst, aabb);
                }
            }
            for &(mm, _) in &g.lods {
                if g.count != d.count() {
                    rs.multimesh_allocate_data(
                        mm,
                        d.count() as i32,
                        MultimeshTransformFormat::TRANSFORM_3D,
                    );
                }
                rs.multimesh_set_buffer(mm, &buffer);
            }
            g.count = d.count();
            cell.gpu.push(g);
        }
        for g in old {
            park_gpu(&mut self.spare_gpu, &mut rs, g);
        }
        cell.draw = draw;
        true
    }

    /// Frees a cell's GPU objects and body and forgets it.
    pub fn drop_cell(&mut self, key: CellKey) {
        if let Some(c) = self.map.remove(key) {
            self.free(c.data);
        }
    }

    fn free(&mut self, mut c: CellGpu) {
        let mut rs = RenderingServer::singleton();
        for g in c.gpu.drain(..) {
            park_gpu(&mut self.spare_gpu, &mut rs, g);
        }
        if let Some(b) = c.body.take() {
            self.park(b);
        }
    }

    /// Frees everything, pooled bodies and meshes included (meshes and their settings may have changed);
    /// results asked for before are stale.
    pub fn clear(&mut self) {
        let gone: Vec<CellGpu> = self.map.restart().map(|(_, c)| c.data).collect();
        for c in gone {
            self.free(c);
        }
        let mut rs = RenderingServer::singleton();
        for g in self.spare_gpu.drain(..) {
            free_gpu(&mut rs, g);
        }
        let mut ps = PhysicsServer3D::singleton();
        for b in self.spare_bodies.drain(..) {
            ps.free_rid(b);
        }
    }

    /// Moves every shown instance and body with the terrain (a move, or a shift of the origin): one
    /// transform per cell, the buffers untouched.
    pub fn set_world(&mut self, frame: &Frame) {
        let mut rs = RenderingServer::singleton();
        let mut ps = PhysicsServer3D::singleton();
        for c in self.map.values() {
            let xf = cell_transform(frame, c.data.origin());
            for g in &c.data.gpu {
                for &(_, inst) in &g.lods {
                    rs.instance_set_transform(inst, xf);
                }
            }
            if let Some(b) = c.data.body {
                ps.body_set_state(b, BodyState::TRANSFORM, &xf.to_variant());
            }
        }
    }

    pub fn set_visible(&mut self, visible: bool) {
        let mut rs = RenderingServer::singleton();
        for c in self.map.values() {
            for g in &c.data.gpu {
                for &(_, inst) in &g.lods {
                    rs.instance_set_visible(inst, visible);
                }
            }
        }
    }

    /// Fills cell `key`'s body with a shape per shown instance and collision shape (a body from the pool).
    pub fn collide(
        &mut self,
        key: CellKey,
        view: &View,
        space: Rid,
        layers: [u32; 2],
        owner: InstanceId,
    ) {
        let spare = &mut self.spare_bodies;
        let Some(cell) = self.map.get_mut(&key) else {
            return;
        };
        let shown = cell.shown;
        let cell = &mut cell.data;
        let mut ps = PhysicsServer3D::singleton();
        let body = match cell.body {
            Some(b) => {
                ps.body_clear_shapes(b);
                b
            }
            None => {
                let b = spare.pop().unwrap_or_else(|| {
                    let b = ps.body_create();
                    ps.body_set_mode(b, BodyMode::STATIC);
                    b
                });
                ps.body_attach_object_instance_id(b, owner.to_i64() as u64);
                ps.body_set_collision_layer(b, layers[0]);
                ps.body_set_collision_mask(b, layers[1]);
                ps.body_set_space(b, space);
                cell.body = Some(b);
                b
            }
        };
        let xf = cell_transform(&view.frame, cell.origin());
        ps.body_set_state(body, BodyState::TRANSFORM, &xf.to_variant());
        for d in &cell.draw {
            let Some(res) = view.meshes.get(d.mesh) else {
                continue;
            };
            for c in d.buffer.chunks_exact(12) {
                let t = transform_of(c);
                for (shape, st) in &res.shapes {
                    ps.body_add_shape_ex(body, shape.get_rid())
                        .transform(t * *st)
                        .done();
                }
            }
        }
        cell.body_of = shown;
    }

    /// Returns cell `key`'s body to the pool.
    pub fn uncollide(&mut self, key: CellKey) {
        if let Some(b) = self.map.get_mut(&key).and_then(|c| c.data.body.take()) {
            self.park(b);
        }
    }

    /// Bodies in the physics space.
    pub fn body_count(&self) -> usize {
        self.map.values().filter(|c| c.data.body.is_some()).count()
    }

    /// Cells with something on the GPU.
    pub fn gpu_cells(&self) -> usize {
        self.map.values().filter(|c| !c.data.gpu.is_empty()).count()
    }

    fn park(&mut self, b: Rid) {
        let mut ps = PhysicsServer3D::singleton();
        ps.body_clear_shapes(b);
        ps.body_set_space(b, Rid::Invalid);
        self.spare_bodies.push(b);
    }
}

/// One instance of a MultiMesh buffer (`MultimeshTransformFormat::TRANSFORM_3D`: each basis row, then the
/// origin's coordinate of that row; the instancer's cells and the detail cells both write it).
pub fn transform_of(c: &[f32]) -> Transform3D {
    Transform3D::new(
        Basis::from_rows(
            Vector3::new(c[0], c[1], c[2]),
            Vector3::new(c[4], c[5], c[6]),
            Vector3::new(c[8], c[9], c[10]),
        ),
        Vector3::new(c[3], c[7], c[11]),
    )
}

fn new_lod(
    rs: &mut Gd<RenderingServer>,
    l: &crate::instances::terrain_instance_mesh::Lod,
    res: &Resolved,
    view: &View,
    origin: [f64; 2],
) -> (Rid, Rid) {
    let mm = rs.multimesh_create();
    rs.multimesh_set_mesh(mm, l.mesh.get_rid());
    let inst = rs.instance_create2(mm, view.scenario);
    rs.instance_set_transform(inst, cell_transform(&view.frame, origin));
    rs.instance_set_visible(inst, view.visible);
    let (mode, margin) = if res.fade > 0.0 {
        (VisibilityRangeFadeMode::SELF, res.fade)
    } else {
        (VisibilityRangeFadeMode::DISABLED, 0.0)
    };
    let begin_margin = if l.begin > 0.0 { margin } else { 0.0 };
    rs.instance_geometry_set_visibility_range(inst, l.begin, l.end, begin_margin, margin, mode);
    rs.instance_geometry_set_cast_shadows_setting(
        inst,
        ShadowCastingSetting::from_ord(res.shadow as i32),
    );
    (mm, inst)
}

/// Hides a mesh's GPU objects for the next cell that shows that mesh (freed beyond `SPARE_GPU`).
fn park_gpu(spare: &mut Vec<GpuMesh>, rs: &mut Gd<RenderingServer>, g: GpuMesh) {
    if spare.len() < SPARE_GPU {
        for &(_, inst) in &g.lods {
            rs.instance_set_visible(inst, false);
        }
        spare.push(g);
    } else {
        free_gpu(rs, g);
    }
}

fn free_gpu(rs: &mut Gd<RenderingServer>, g: GpuMesh) {
    for (mm, inst) in g.lods {
        rs.free_rid(inst);
        rs.free_rid(mm);
    }
}
