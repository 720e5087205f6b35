//! Cells' drawing buffers computed on the worker pool (the one clipmap and collision streaming use): the
//! main thread hands a cell's instances and a readable source to a worker and later swaps the finished
//! MultiMesh buffers in. A `TerrainData` source is copied into a `SampleBlock` by the caller when it asks
//! (so later edits do not race the worker); a worker copies an endless source's samples into a block
//! itself (a generator's fractal once per sample, not sixteen times per instance).
//!
//! Every request carries the cell's stamp (its edit counter when asked). Results come back in any order;
//! the node shows a result whose stamp is newer than what it shows and asks again while it is older than
//! the cell's current stamp, so a long stroke keeps showing recent ground instead of nothing.

use super::{placed, Area, Cell, CellKey, InstanceStore};
use crate::clipmap_stream::SharedSamples;
use crate::samples::{SampleBlock, Samples};

/// One mesh's visible instances in a cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshDraw {
    pub mesh: usize,
    /// The cell's lower corner in terrain space: the buffer's origins are relative to it, so they stay
    /// exact in f32 however far out the cell is (the node adds it in f64 when placing the cell).
    pub origin: [f64; 2],
    /// 12 floats per instance relative to `origin`, as Godot's MultiMesh takes them: each basis row, then
    /// the origin's coordinate of that row.
    pub buffer: Vec<f32>,
    /// Lowest and highest instance origin (relative to `origin`).
    pub lo: [f32; 3],
    pub hi: [f32; 3],
    /// The largest scale factor of an instance (bounds grow by the mesh's extent times this).
    pub max_scale: f32,
}

impl MeshDraw {
    pub fn count(&self) -> usize {
        self.buffer.len() / 12
    }
}

/// A cell's buffers for every mesh with visible instances.
#[derive(Debug, Clone)]
pub struct CellDraw {
    pub key: CellKey,
    pub stamp: u64,
    pub meshes: Vec<MeshDraw>,
}

/// The samples a cell's instances read (their patches and hole corners), with a margin.
pub fn cell_samples(area: Area, spacing: f64) -> ([i64; 2], [usize; 2]) {
    let lo = |v: f64| (v / spacing - 0.5).floor() as i64 - 2;
    let hi = |v: f64| (v / spacing - 0.5).floor() as i64 + 4;
    let (x0, z0) = (lo(area.min[0]), lo(area.min[1]));
    let (x1, z1) = (hi(area.max[0]), hi(area.max[1]));
    ([x0, z0], [(x1 - x0) as usize, (z1 - z0) as usize])
}

/// The drawing buffers of a cell on surface `s` (instances over holes left out).
pub fn draw_cell<S: Samples + ?Sized>(s: &S, origin: [f64; 2], cell: &Cell) -> Vec<MeshDraw> {
    let mut out = Vec::new();
    for (mesh, list) in cell.iter().enumerate() {
        let mut d = MeshDraw {
            mesh,
            origin,
            buffer: Vec::with_capacity(list.len() * 12),
            lo: [f32::INFINITY; 3],
            hi: [f32::NEG_INFINITY; 3],
            max_scale: 0.0,
        };
        for i in list {
            let (x, z) = (origin[0] + f64::from(i.x), origin[1] + f64::from(i.z));
            let Some((b, o)) = placed(s, x, z, i) else {
                continue;
            };
            // Relative to the cell: the stored in-cell position itself (exact), not `x` narrowed.
            let o = [i.x, o.y, i.z];
            for (r, o) in o.into_iter().enumerate() {
                d.buffer
                    .extend_from_slice(&[b.x_axis[r], b.y_axis[r], b.z_axis[r], o]);
                d.lo[r] = d.lo[r].min(o);
                d.hi[r] = d.hi[r].max(o);
            }
            d.max_scale = i.scale.iter().fold(d.max_scale, |m, s| m.max(s.abs()));
        }
        if !d.buffer.is_empty() {
            out.push(d);
        }
    }
    out
}

/// One far cell for `InstanceStream::request_far`.
pub struct FarJob {
    pub key: CellKey,
    pub stamp: u64,
    /// The far cell's corner (terrain units).
    pub origin: [f64; 2],
    /// Its instance cells' corners and contents.
    pub cells: Vec<([f64; 2], Cell)>,
    /// The instance cells' side.
    pub cell_size: f64,
}

/// Cell buffers computed on the worker pool.
#[derive(Default)]
pub struct InstanceStream {
    results: crate::workers::Results<CellDraw>,
}

impl InstanceStream {
    /// Cells asked for whose results have not been taken yet.
    pub fn in_flight(&self) -> usize {
        self.results.in_flight()
    }

    /// Computes the buffers of `cells` (key, stamp) of `store` on a worker. `source` must stay readable:
    /// an endless source (a block is copied per cell on the worker) or a `SampleBlock` covering the cells
    /// (`block_for`).
    pub fn request(
        &mut self,
        source: SharedSamples,
        store: &InstanceStore,
        cells: &[(CellKey, u64)],
    ) {
        if cells.is_empty() {
            return;
        }
        let jobs: Vec<(CellKey, u64, [f64; 2], Area, Cell)> = cells
            .iter()
            .map(|&(k, stamp)| {
                let a = store.cell_area(k);
                (
                    k,
                    stamp,
                    a.min,
                    a,
                    store.cell(k).cloned().unwrap_or_default(),
                )
            })
            .collect();
        self.results.spawn(jobs.len(), move || {
            let mut block = SampleBlock::default();
            let endless = source.size().is_none();
            jobs.into_iter()
                .map(|(key, stamp, origin, area, cell)| {
                    let meshes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        if endless {
                            let (o, n) = cell_samples(area, source.spacing());
                            block.copy_from(&*source, o[0], o[1], n[0], n[1]);
                            draw_cell(&block, origin, &cell)
                        } else {
                            draw_cell(&*source, origin, &cell)
                        }
                    }))
                    .unwrap_or_default();
                    CellDraw { key, stamp, meshes }
                })
                .collect()
        });
    }

    /// Computes far cells' impostor buffers (`draw_far_cell`) on a worker: each job is a far cell's key,
    /// stamp, corner and instance cells (`far_cell_contents`); `impostor` marks the meshes that have one.
    /// `source` as for `request` (a block covering every job's cells for a finite source).
    pub fn request_far(
        &mut self,
        source: SharedSamples,
        jobs: Vec<FarJob>,
        impostor: std::sync::Arc<[bool]>,
    ) {
        if jobs.is_empty() {
            return;
        }
        self.results.spawn(jobs.len(), move || {
            let endless = source.size().is_none();
            jobs.into_iter()
                .map(|job| {
                    let meshes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        if endless {
                            let areas = job.cells.iter().map(|(c, _)| Area {
                                min: *c,
                                max: [c[0] + job.cell_size, c[1] + job.cell_size],
                            });
                            // One copy of the samples per far cell (an endless source's fractal
                            // once per sample).
                            let block = block_over(&*source, areas);
                            super::draw_far_cell(&block, job.origin, &job.cells, &impostor)
                        } else {
                            super::draw_far_cell(&*source, job.origin, &job.cells, &impostor)
                        }
                    }))
                    .unwrap_or_default();
                    CellDraw {
                        key: job.key,
                        stamp: job.stamp,
                        meshes,
                    }
                })
                .collect()
        });
    }

    /// Finished cells, without waiting.
    pub fn poll(&mut self, out: &mut Vec<CellDraw>) {
        self.results.poll(out);
    }

    /// Every cell asked for, waiting for them.
    pub fn wait(&mut self, out: &mut Vec<CellDraw>) {
        self.results.wait(out);
    }
}

/// A copy of the samples `cells` read from a finite source (taken on the caller's thread).
pub fn block_for<S: Samples + ?Sized>(
    s: &S,
    store: &InstanceStore,
    cells: &[CellKey],
) -> SampleBlock {
    block_over(s, cells.iter().map(|&k| store.cell_area(k)))
}

/// A copy of the samples that what stands on `areas` reads (`cell_samples` of each), one rectangle
/// around them all.
pub fn block_over<S: Samples + ?Sized>(
    s: &S,
    areas: impl IntoIterator<Item = Area>,
) -> SampleBlock {
    let (mut lo, mut hi) = ([i64::MAX; 2], [i64::MIN; 2]);
    for a in areas {
        let (o, n) = cell_samples(a, s.spacing());
        for a in 0..2 {
            lo[a] = lo[a].min(o[a]);
            hi[a] = hi[a].max(o[a] + n[a] as i64);
        }
    }
    if lo[0] > hi[0] {
        return SampleBlock::default();
    }
    SampleBlock::copy(
        s,
        lo[0],
        lo[1],
        (hi[0] - lo[0]) as usize,
        (hi[1] - lo[1]) as usize,
    )
}
