//! The LOD-ring mesh of the original wandering terrain ("wandering mesh"): a flat grid in front of the camera, finest near the
//! origin, each ring of patch layers outward half as dense as the one inside it.
//!
//! The output is identical (same vertices in the same order, same index list) to the original's generator
//! for every valid input; `tests/fixtures/wandering_mesh/fixtures.json` holds numbers from running it in
//! Godot. The order is the original's (clusters of `(subdivision + 1)²` vertex slots, refined ring by ring,
//! then one triangle fan per odd slot), but nothing per slot is stored: a few numbers per ring (`Level`)
//! give every vertex's position and every slot's vertex index, so vertices and indices are written in
//! parallel straight into caller-provided buffers (the Godot layer's packed arrays). A test keeps the
//! earlier cluster-slot generator as the oracle.
//!
//! Conventions (as the original wandering terrain shader): X is width, Z depth, Y = 0. The mesh spans X in `[-w/2, w/2]` and Z in
//! `[0, d]`; the finest LOD sits at the near edge (Z = 0), centred on X = 0. Triangles wind clockwise seen
//! from +Y (Godot's front face), so front faces look up.

use std::fmt;

/// Default vertex budget: meshes that would exceed it are refused before anything is allocated.
pub const DEFAULT_VERTEX_BUDGET: u64 = 4_000_000;
/// Largest accepted `start_subdivision`; beyond it a single patch would exceed any sensible budget.
pub const MAX_START_SUBDIVISION: i64 = 20;
/// Largest accepted length of `lods`. Entries past `start_subdivision - 1` are ignored, as in the original.
pub const MAX_LODS_LEN: usize = 64;
/// Largest accepted `start_size` (world units).
pub const MAX_START_SIZE: f64 = 1.0e6;
/// Smallest accepted `start_size`: positions and UVs stay normal f32 numbers at every subdivision.
pub const MIN_START_SIZE: f64 = 1.0e-3;
/// Hard ceiling of `vertex_budget`: 16 M vertices (about 1 GB of mesh arrays in Godot's copies), far inside
/// the 32-bit index range.
pub const MAX_VERTEX_BUDGET: u64 = 1 << 24;
/// Largest |height_min|, |height_max| (world units): a culling box must stay finite in f32.
pub const MAX_HEIGHT: f64 = 1.0e7;

/// Fan around an odd slot: its 8 neighbours, starting and ending at the (-1, -1) corner.
const TRI_FAN: [(i64, i64); 9] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

/// Why a set of parameters was refused. Each names the property, the value and the allowed range.
#[derive(Clone, Debug, PartialEq)]
pub enum LodConfigError {
    StartSize(f64),
    StartSubdivision(i64),
    LodsTooLong(usize),
    LodEntry { index: usize, value: i64 },
    VertexBudget { vertices: u128, budget: u64 },
}

impl fmt::Display for LodConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::StartSize(v) => write!(f, "start_size must be a number in [{MIN_START_SIZE}, {MAX_START_SIZE}], got {v}"),
            Self::StartSubdivision(v) => {
                write!(f, "start_subdivision must be in [1, {MAX_START_SUBDIVISION}], got {v}")
            }
            Self::LodsTooLong(n) => write!(f, "lods may hold at most {MAX_LODS_LEN} entries, got {n}"),
            Self::LodEntry { index, value } => write!(
                f,
                "lods[{index}] must be in [1, 2147483647] (patch layers of that LOD ring; 0 is refused because the \
                 original generator emits invalid indices for it), got {value}"
            ),
            Self::VertexBudget { vertices, budget } => write!(
                f,
                "these parameters would produce {vertices} vertices, over the vertex budget of {budget} \
                 (vertex_budget)"
            ),
        }
    }
}

impl std::error::Error for LodConfigError {}

/// Validated parameters of a wandering mesh. Only valid ones can exist.
#[derive(Clone, Debug, PartialEq)]
pub struct LodConfig {
    start_size: f64,
    start_subdivision: i64,
    /// Entries in use: those the original's generator reaches before subdivisions run out.
    lods: Vec<i64>,
}

/// Sizes derived from a config, computed without generating anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshCounts {
    pub vertices: u128,
    /// Upper bound of the index count (exact unless boundary slots are skipped; see `index_count`).
    pub fans: u128,
}

impl LodConfig {
    /// Validates the parameters. `lods` entries beyond `start_subdivision - 1` are ignored (as in the
    /// document), but still must be >= 1 and at most `MAX_LODS_LEN` entries in all.
    pub fn new(
        start_size: f64,
        start_subdivision: i64,
        lods: &[i64],
        vertex_budget: u64,
    ) -> Result<Self, LodConfigError> {
        if !(MIN_START_SIZE..=MAX_START_SIZE).contains(&start_size) {
            return Err(LodConfigError::StartSize(start_size));
        }
        if !(1..=MAX_START_SUBDIVISION).contains(&start_subdivision) {
            return Err(LodConfigError::StartSubdivision(start_subdivision));
        }
        if lods.len() > MAX_LODS_LEN {
            return Err(LodConfigError::LodsTooLong(lods.len()));
        }
        if let Some((index, &value)) = lods
            .iter()
            .enumerate()
            .find(|(_, &v)| !(1..=i64::from(i32::MAX)).contains(&v))
        {
            return Err(LodConfigError::LodEntry { index, value });
        }
        let used = lods.len().min(start_subdivision as usize - 1);
        let cfg = LodConfig {
            start_size,
            start_subdivision,
            lods: lods[..used].to_vec(),
        };
        let vertices = cfg.counts().vertices;
        // The ceiling holds whatever budget a caller passes.
        let vertex_budget = vertex_budget.min(MAX_VERTEX_BUDGET);
        if vertices > u128::from(vertex_budget) {
            return Err(LodConfigError::VertexBudget {
                vertices,
                budget: vertex_budget,
            });
        }
        Ok(cfg)
    }

    pub fn start_size(&self) -> f64 {
        self.start_size
    }
    pub fn start_subdivision(&self) -> i64 {
        self.start_subdivision
    }
    /// The LOD entries in use.
    pub fn lods(&self) -> &[i64] {
        &self.lods
    }

    /// Subdivisions (a power of two) of each coarsest-level cluster.
    fn subdivision(&self) -> i64 {
        1 << (self.start_subdivision - self.lods.len() as i64)
    }

    /// Clusters of the coarsest level, (x, z).
    fn coarse_clusters(&self) -> (i64, i64) {
        let s: i64 = self.lods.iter().sum();
        (1 + 2 * s, 1 + s)
    }

    /// Vertex and fan counts, in wide integers so absurd inputs cannot overflow.
    pub fn counts(&self) -> MeshCounts {
        let sub = self.subdivision() as u128;
        let (cx, cy) = self.coarse_clusters();
        let (mut cx, mut cy) = (cx as u128, cy as u128);
        let mut vertices = (cx * sub + 1) * (cy * sub + 1);
        let mut fans = cx * cy * (sub / 2) * (sub / 2);
        for (i, &lod) in self.lods.iter().rev().enumerate() {
            let l = (lod as u128) << i;
            // The refined region: every cluster but the outer `l` layers, in x on both sides and in z at the far side.
            let (rx, ry) = (cx - 2 * l, cy - l);
            let (lx, ly) = (rx * 2 * sub + 1, ry * 2 * sub + 1);
            let rows = ly - 1;
            vertices += rows.div_ceil(2) * ((lx - 1) / 2) + (rows / 2) * (lx - 2);
            fans = fans - rx * ry * (sub / 2) * (sub / 2) + 4 * rx * ry * (sub / 2) * (sub / 2);
            cx = rx * 2;
            cy = ry * 2;
        }
        MeshCounts { vertices, fans }
    }

    /// Vertex spacing of the coarsest ring, in world units: moving the mesh by multiples of it keeps every
    /// ring's vertices on their own lattices.
    pub fn coarse_vertex_spacing(&self) -> f64 {
        self.start_size / self.subdivision() as f64
    }

    /// Largest distance of a vertex from the mesh origin.
    pub fn reach(&self) -> f64 {
        let (hw, d) = self.extent();
        (hw * hw + d * d).sqrt()
    }

    /// Half extent in X and extent in Z of the mesh, in world units.
    pub fn extent(&self) -> (f64, f64) {
        let (cx, cy) = self.coarse_clusters();
        (
            cx as f64 * self.start_size / 2.0,
            cy as f64 * self.start_size,
        )
    }
}

/// A generated mesh: positions (Y = 0) and the triangle index list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WanderingMeshData {
    pub positions: Vec<[f32; 3]>,
    pub indices: Vec<i32>,
}

/// One ring of the mesh: level 0 is the coarsest grid, each further level refines part of the previous one
/// (the original's clusters of `(subdivision + 1)²` vertex slots, subdivided ring by ring). Everything about
/// a vertex or a cluster follows from these few numbers, so nothing per slot is stored and the vertices and
/// the index list are written in parallel.
#[derive(Clone, Debug)]
struct Level {
    /// Vertex lattice of the level's region: columns and rows (local coordinates x, y).
    lx: i64,
    ly: i64,
    /// Index of the level's first new vertex.
    vstart: i64,
    /// Vertex spacing and the X of column 0, as the original computes them (f64, rounded to f32 when used).
    spacing: f64,
    offset: f64,
    /// Column, in the previous level's lattice, of this level's column 0: a vertex at even (x, y) is the
    /// previous level's vertex (x / 2 + prev_x, y / 2).
    prev_x: i64,
    /// Clusters: columns and rows; cluster (cx, cy) has its slot (0, 0) at local (cx, cy) * subdivision.
    ccx: i64,
    ccy: i64,
    /// Clusters the next level refines (and so are not drawn): cx in [refine_x.0, refine_x.1], cy <= refine_z.
    refine_x: (i64, i64),
    refine_z: i64,
    /// Index of the level's first cluster in creation order.
    cstart: usize,
}

impl Level {
    /// New vertices of row y (level 0: all of them; finer levels: odd rows every interior column, even rows
    /// the odd columns).
    fn row_len(&self, first: bool, y: i64) -> i64 {
        if first {
            self.lx
        } else if y % 2 == 1 {
            self.lx - 2
        } else {
            (self.lx - 1) / 2
        }
    }

    fn rows(&self, first: bool) -> i64 {
        if first {
            self.ly
        } else {
            self.ly - 1
        }
    }

    fn is_refined(&self, cx: i64, cy: i64) -> bool {
        (self.refine_x.0..=self.refine_x.1).contains(&cx) && cy <= self.refine_z
    }
}

/// The levels of a config, in the original's order (coarse to fine).
fn levels(cfg: &LodConfig) -> Vec<Level> {
    let sub = cfg.subdivision();
    let (ccx, ccy) = cfg.coarse_clusters();
    let mut spacing = cfg.start_size / sub as f64;
    let first = Level {
        lx: ccx * sub + 1,
        ly: ccy * sub + 1,
        vstart: 0,
        spacing,
        offset: -(ccx as f64 * cfg.start_size) / 2.0,
        prev_x: 0,
        ccx,
        ccy,
        refine_x: (1, 0),
        refine_z: -1,
        cstart: 0,
    };
    let mut vertices = first.lx * first.ly;
    let mut clusters = (ccx * ccy) as usize;
    let mut out = vec![first];
    // (first x, last x, last z) of the clusters of the previous level to subdivide.
    let (mut tx, mut ty, mut tz) = (0i64, ccx - 1, ccy - 1);
    for (i, &lod) in cfg.lods.iter().rev().enumerate() {
        let l = lod << i;
        tx += l;
        ty -= l;
        tz -= l;
        spacing /= 2.0;
        let cells = (ty - tx + 1, tz + 1);
        let prev = out.last_mut().expect("level 0");
        prev.refine_x = (tx, ty);
        prev.refine_z = tz;
        let lv = Level {
            lx: cells.0 * 2 * sub + 1,
            ly: cells.1 * 2 * sub + 1,
            vstart: vertices,
            spacing,
            offset: -((cells.0 * sub) as f64 * spacing),
            prev_x: tx * sub,
            ccx: cells.0 * 2,
            ccy: cells.1 * 2,
            refine_x: (1, 0),
            refine_z: -1,
            cstart: clusters,
        };
        vertices += (0..lv.rows(false))
            .map(|y| lv.row_len(false, y))
            .sum::<i64>();
        clusters += (lv.ccx * lv.ccy) as usize;
        out.push(lv);
        tx = 0;
        ty = cells.0 * 2 - 1;
        tz = cells.1 * 2 - 1;
    }
    out
}

/// Index of the vertex at local (x, y) of level `k`, or -1 where the level has none (a border position its
/// finer ring does not own). Coordinates are never negative: halving is a shift.
#[inline]
fn vertex_id(levels: &[Level], mut k: usize, mut x: i64, mut y: i64) -> i32 {
    loop {
        let lv = &levels[k];
        if k == 0 {
            return (y * lv.lx + x) as i32;
        }
        if (x | y) & 1 == 0 {
            x = (x >> 1) + lv.prev_x;
            y >>= 1;
            k -= 1;
            continue;
        }
        if x == 0 || x == lv.lx - 1 || y == lv.ly - 1 {
            return -1;
        }
        // Rows before y: the odd ones hold lx - 2 new vertices, the even ones (lx - 1) / 2.
        let odd = y >> 1;
        let start = odd * (lv.lx - 2) + (y - odd) * ((lv.lx - 1) >> 1) + lv.vstart;
        return (if y & 1 == 0 {
            start + (x >> 1)
        } else {
            start + x - 1
        }) as i32;
    }
}

/// The vertex indices of a cluster's slots (row-major, `size²`) whose slot (0, 0) is local (ox, oy) of level
/// `k`: each row is an arithmetic run except where a slot is the previous level's vertex (even x of an even
/// row), which `vertex_id` looks up.
fn fill_slots(levels: &[Level], k: usize, ox: i64, oy: i64, size: usize, slots: &mut [i32]) {
    let lv = &levels[k];
    for j in 0..size {
        let y = oy + j as i64;
        let row = &mut slots[j * size..(j + 1) * size];
        if k == 0 {
            let first = (y * lv.lx + ox) as i32;
            row.iter_mut()
                .enumerate()
                .for_each(|(i, v)| *v = first + i as i32);
            continue;
        }
        let odd = y >> 1;
        let start = odd * (lv.lx - 2) + (y - odd) * ((lv.lx - 1) >> 1) + lv.vstart;
        for (i, v) in row.iter_mut().enumerate() {
            let x = ox + i as i64;
            *v = if y & 1 == 1 {
                if x == 0 || x == lv.lx - 1 {
                    -1
                } else {
                    (start + x - 1) as i32
                }
            } else if x & 1 == 0 {
                vertex_id(levels, k - 1, (x >> 1) + lv.prev_x, y >> 1)
            } else if y == lv.ly - 1 {
                -1
            } else {
                (start + (x >> 1)) as i32
            };
        }
    }
}

/// Visits each triangle of a cluster's fans in the original's order.
#[inline]
fn fans(c: &[i32], size: usize, mut emit: impl FnMut([i32; 3])) {
    // Slot offsets of the fan's neighbours from its centre, in TRI_FAN's order.
    let s = size as isize;
    let steps = TRI_FAN.map(|(dx, dy)| dy as isize * s + dx as isize);
    for y in (1..size - 1).step_by(2) {
        for x in (1..size - 1).step_by(2) {
            let centre = (y * size + x) as isize;
            let at = |d: isize| c[(centre + d) as usize];
            let cc = c[centre as usize];
            let mut l = at(steps[0]);
            for &d in &steps[1..] {
                let n = at(d);
                if n == -1 {
                    continue;
                }
                emit([cc, l, n]);
                l = n;
            }
        }
    }
}

/// A mesh prepared up to its face list: knows its exact sizes before anything big is written.
pub struct PreparedMesh {
    levels: Vec<Level>,
    subdivision: i64,
    vertices: usize,
    /// Start of each cluster's triangles in the index list (in indices); one more entry at the end.
    offsets: Vec<usize>,
}

/// Clusters per parallel job when writing indices.
const CLUSTERS_PER_JOB: usize = 4096;

impl PreparedMesh {
    pub fn vertex_count(&self) -> usize {
        self.vertices
    }
    pub fn index_count(&self) -> usize {
        *self.offsets.last().unwrap()
    }

    /// Writes every vertex, in the original's order, as `make(x, z)` (Y is 0) into `out`, which must be
    /// exactly `vertex_count()` long. Runs in parallel over rows; positions are computed in f32 exactly as
    /// the original (`Vector3(x, 0, y) * spacing + offset`).
    pub fn write_vertices<T: Send>(&self, out: &mut [T], make: impl Fn(f32, f32) -> T + Sync) {
        use rayon::prelude::*;
        assert_eq!(out.len(), self.vertex_count(), "vertex buffer length");
        let mut rows = Vec::new();
        let mut rest = out;
        for (k, lv) in self.levels.iter().enumerate() {
            for y in 0..lv.rows(k == 0) {
                let (mine, tail) = rest.split_at_mut(lv.row_len(k == 0, y) as usize);
                rows.push((k, y, mine));
                rest = tail;
            }
        }
        rows.into_par_iter().for_each(|(k, y, row)| {
            let lv = &self.levels[k];
            let (d, off) = (lv.spacing as f32, lv.offset as f32);
            let z = y as f32 * d;
            let (first, step) = match (k, y % 2) {
                (0, _) => (0, 1),
                (_, 1) => (1, 1),
                _ => (1, 2),
            };
            for (i, v) in row.iter_mut().enumerate() {
                let x = first + i as i64 * step;
                *v = make(x as f32 * d + off, z);
            }
        });
    }

    /// Writes the index list into `out`, which must be exactly `index_count()` long. Runs in parallel over
    /// groups of clusters; each cluster's place in the list is known from `offsets`.
    pub fn write_indices(&self, out: &mut [i32]) {
        use rayon::prelude::*;
        assert_eq!(out.len(), self.index_count(), "index buffer length");
        let n = self.offsets.len() - 1;
        let mut jobs = Vec::with_capacity(n / CLUSTERS_PER_JOB + 1);
        let mut rest = out;
        for first in (0..n).step_by(CLUSTERS_PER_JOB) {
            let last = (first + CLUSTERS_PER_JOB).min(n);
            let (mine, tail) = rest.split_at_mut(self.offsets[last] - self.offsets[first]);
            jobs.push((first..last, mine));
            rest = tail;
        }
        let size = (self.subdivision + 1) as usize;
        jobs.into_par_iter().for_each(|(range, out)| {
            let mut slots = vec![0i32; size * size];
            let mut k = 0;
            let mut at = 0;
            for c in range {
                if self.offsets[c + 1] == self.offsets[c] {
                    continue;
                }
                while k + 1 < self.levels.len() && c >= self.levels[k + 1].cstart {
                    k += 1;
                }
                let lv = &self.levels[k];
                let local = (c - lv.cstart) as i64;
                let (ox, oy) = (
                    local % lv.ccx * self.subdivision,
                    local / lv.ccx * self.subdivision,
                );
                fill_slots(&self.levels, k, ox, oy, size, &mut slots);
                fans(&slots, size, |t| {
                    out[at..at + 3].copy_from_slice(&t);
                    at += 3;
                });
            }
        });
    }
}

/// Lays out the levels and each cluster's place in the index list; nothing per vertex is computed yet.
pub fn prepare(cfg: &LodConfig) -> PreparedMesh {
    let levels = levels(cfg);
    let sub = cfg.subdivision();
    // Every fan has 8 triangles, less one per missing neighbour: a finer level has no vertex at the odd
    // positions of its left, right and far borders (sub / 2 of them on each border side of a cluster).
    let full = 8 * (sub / 2) * (sub / 2);
    let mut offsets = Vec::with_capacity(
        levels
            .last()
            .map_or(0, |l| l.cstart + (l.ccx * l.ccy) as usize)
            + 1,
    );
    let mut total = 0usize;
    for (k, lv) in levels.iter().enumerate() {
        for cy in 0..lv.ccy {
            for cx in 0..lv.ccx {
                offsets.push(total);
                if lv.is_refined(cx, cy) {
                    continue;
                }
                let sides = if k == 0 {
                    0
                } else {
                    let (ox, oy) = (cx * sub, cy * sub);
                    i64::from(ox == 0)
                        + i64::from(ox + sub == lv.lx - 1)
                        + i64::from(oy + sub == lv.ly - 1)
                };
                total += 3 * (full - sides * (sub / 2)) as usize;
            }
        }
    }
    offsets.push(total);
    let last = levels.last().expect("level 0");
    let vertices = (last.vstart
        + (0..last.rows(levels.len() == 1))
            .map(|y| last.row_len(levels.len() == 1, y))
            .sum::<i64>()) as usize;
    PreparedMesh {
        levels,
        subdivision: sub,
        vertices,
        offsets,
    }
}

/// Generates the whole mesh into owned vectors.
pub fn generate(cfg: &LodConfig) -> WanderingMeshData {
    let p = prepare(cfg);
    let mut positions = vec![[0.0f32; 3]; p.vertex_count()];
    p.write_vertices(&mut positions, |x, z| [x, 0.0, z]);
    let mut indices = vec![0; p.index_count()];
    p.write_indices(&mut indices);
    WanderingMeshData { positions, indices }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parallel_layout_equals_the_cluster_generator() {
        for (size, s, l) in [
            (1.0, 1, vec![]),
            (2.5, 2, vec![]),
            (1.0, 3, vec![1]),
            (0.7, 4, vec![3, 1, 2]),
            (1.0, 5, vec![1, 2, 1, 3]),
            (3.0, 6, vec![2, 2, 2, 2]),
            (1.0, 6, vec![1, 1, 1, 1, 1]),
            (2.0, 7, vec![4, 1, 3]),
            (1.0, 8, vec![4, 4, 4, 4, 4, 4]),
        ] {
            let c = cfg(size, s, &l);
            let (new, old) = (generate(&c), reference::old_generate(&c));
            assert_eq!(new.positions, old.positions, "{s} {l:?}");
            assert_eq!(new.indices, old.indices, "{s} {l:?}");
        }
    }

    fn cfg(size: f64, sub: i64, lods: &[i64]) -> LodConfig {
        LodConfig::new(size, sub, lods, DEFAULT_VERTEX_BUDGET).unwrap()
    }

    #[test]
    fn counts_match_generation() {
        for (s, l) in [
            (1, vec![]),
            (2, vec![]),
            (3, vec![1]),
            (4, vec![3, 1, 2]),
            (5, vec![1, 2, 1, 3]),
            (6, vec![2, 2, 2, 2]),
        ] {
            let c = cfg(1.0, s, &l);
            let m = generate(&c);
            assert_eq!(c.counts().vertices, m.positions.len() as u128, "{s} {l:?}");
        }
    }

    #[test]
    fn smallest_mesh_is_one_fan_pair() {
        let m = generate(&cfg(1.0, 1, &[]));
        assert_eq!(m.positions.len(), 9);
        assert_eq!(&m.indices[..6], &[4, 0, 1, 4, 1, 2]);
    }

    #[test]
    fn refuses_bad_input_with_names() {
        let e = |r: Result<LodConfig, LodConfigError>| r.unwrap_err().to_string();
        assert!(e(LodConfig::new(0.0, 2, &[], 10)).contains("start_size"));
        assert!(e(LodConfig::new(f64::NAN, 2, &[], 10)).contains("start_size"));
        assert!(e(LodConfig::new(f64::INFINITY, 2, &[], 10)).contains("start_size"));
        assert!(e(LodConfig::new(1.0, 0, &[], 10)).contains("start_subdivision"));
        assert!(e(LodConfig::new(1.0, -3, &[], 10)).contains("[1, 20]"));
        assert!(e(LodConfig::new(1.0, 6, &[0, 2, 1], u64::MAX)).contains("lods[0]"));
        assert!(e(LodConfig::new(1.0, 6, &[2, -1], u64::MAX)).contains("lods[1]"));
        assert!(e(LodConfig::new(1.0, 6, &vec![1; 1_000_000], u64::MAX)).contains("at most 64"));
        let big = e(LodConfig::new(
            1.0,
            20,
            &[i32::MAX as i64; 19],
            DEFAULT_VERTEX_BUDGET,
        ));
        assert!(big.contains("vertex budget"), "{big}");
    }

    /// The cluster-slot generator this module used before the parallel layout: the oracle it must equal.
    mod reference {
        use super::super::*;

        /// Cluster storage: `count` clusters of `size * size` vertex slots each, flat. A slot holds a vertex index
        /// or -1 for "no vertex" (a boundary position the finer ring does not own).
        struct Clusters {
            size: usize,
            slots: Vec<i32>,
            ignore: Vec<bool>,
        }

        impl Clusters {
            fn cluster(&self, c: usize) -> &[i32] {
                &self.slots[c * self.size * self.size..(c + 1) * self.size * self.size]
            }
        }

        /// Generates vertices and clusters in the original's order. Positions go to `positions` (pushed).
        fn build(cfg: &LodConfig, positions: &mut Vec<[f32; 3]>) -> Clusters {
            let start_size = cfg.start_size;
            let subdivision = cfg.subdivision();
            let size = (subdivision + 1) as usize;
            let mut vertices_distance = start_size / subdivision as f64;
            let (mut ccx, mut ccy) = cfg.coarse_clusters();

            // Godot's Vector3 is f32: the original's `Vector3(x, 0, y) * distance + offset` rounds the distance and
            // the offset to f32 first, then multiplies and adds in f32.
            let push_row = |positions: &mut Vec<[f32; 3]>,
                            xs: &mut dyn Iterator<Item = i64>,
                            y: i64,
                            d: f64,
                            off: f64| {
                let (d, off) = (d as f32, off as f32);
                let z = y as f32 * d;
                positions.extend(xs.map(|x| [x as f32 * d + off, 0.0, z]));
            };

            let (lx, ly) = (ccx * subdivision + 1, ccy * subdivision + 1);
            let offset = -(ccx as f64 * start_size) / 2.0;
            for y in 0..ly {
                push_row(positions, &mut (0..lx), y, vertices_distance, offset);
            }
            let mut cl = Clusters {
                size,
                slots: Vec::new(),
                ignore: Vec::new(),
            };
            let counts = cfg.counts();
            let total_clusters =
                counts.fans / ((subdivision as u128 / 2).pow(2)) + (ccx * ccy) as u128;
            cl.slots.reserve(total_clusters as usize * size * size);
            for y in 0..ccy {
                for x in 0..ccx {
                    let start_y = y * subdivision;
                    for j in 0..=subdivision {
                        let row = (start_y + j) * lx + x * subdivision;
                        cl.slots.extend((0..=subdivision).map(|i| (row + i) as i32));
                    }
                    cl.ignore.push(false);
                }
            }
            let mut last_clusters = 0usize;

            // Refine ring by ring, coarse to fine: (first x, last x, last z) of the clusters to subdivide.
            let (mut tx, mut ty, mut tz) = (0i64, ccx - 1, ccy - 1);
            for (i, &lod) in cfg.lods.iter().rev().enumerate() {
                let stride = ty + 1;
                let l = lod << i;
                tx += l;
                ty -= l;
                tz -= l;
                vertices_distance /= 2.0;
                let cells = (ty - tx + 1, tz + 1);
                let offset = -((cells.0 * subdivision) as f64 * vertices_distance);
                let (lx, ly) = (cells.0 * 2 * subdivision + 1, cells.1 * 2 * subdivision + 1);

                // New vertices: odd rows get every interior x, even rows only odd x (even ones exist already).
                let vertices_start = positions.len() as i64;
                for y in 0..ly - 1 {
                    if y % 2 == 1 {
                        push_row(positions, &mut (1..lx - 1), y, vertices_distance, offset);
                    } else {
                        push_row(
                            positions,
                            &mut (1..lx - 1).step_by(2),
                            y,
                            vertices_distance,
                            offset,
                        );
                    }
                }

                let current_cell_count = cl.ignore.len();
                let half = subdivision / 2;
                let sz = size as i64;
                for cell_y in 0..(tz + 1) * 2 {
                    for cell_x in tx * 2..(ty + 1) * 2 {
                        let (px, py) = (cell_x / 2, cell_y / 2);
                        let (sx, sy) = (cell_x - px * 2, cell_y - py * 2);
                        let parent = last_clusters + (py * stride + px) as usize;
                        cl.ignore[parent] = true;
                        let (vsx, vsy) = ((cell_x - tx * 2) * subdivision, cell_y * subdivision);
                        let (fsx, fsy) = (vsx - 1, vsy);
                        let (psx, psy) = (sx * half, sy * half);
                        let base = cl.slots.len();
                        cl.slots.resize(base + size * size, 0);
                        for y in 0..sz {
                            let line = fsy + y;
                            let full_lines = line / 2;
                            let half_lines = line - full_lines;
                            let line_start = full_lines * (lx - 2)
                                + half_lines * ((lx - 1) / 2)
                                + vertices_start;
                            for x in 0..sz {
                                let from_prev = y % 2 == 0 && x % 2 == 0;
                                let invalid =
                                    x + vsx == 0 || x + vsx == lx - 1 || y + vsy == ly - 1;
                                let id = if from_prev {
                                    cl.slots[parent * size * size
                                        + ((psy + y / 2) * sz + psx + x / 2) as usize]
                                } else if invalid {
                                    -1
                                } else if line % 2 == 0 {
                                    (line_start + (fsx + x) / 2) as i32
                                } else {
                                    (line_start + fsx + x) as i32
                                };
                                cl.slots[base + (y * sz + x) as usize] = id;
                            }
                        }
                        cl.ignore.push(false);
                    }
                }
                ccx = cells.0;
                ccy = cells.1;
                tx = 0;
                ty = cells.0 * 2 - 1;
                tz = cells.1 * 2 - 1;
                last_clusters = current_cell_count;
            }
            let _ = (ccx, ccy);
            cl
        }

        /// A mesh prepared up to its face list: knows its exact sizes before anything big is written.
        struct OldPreparedMesh {
            positions: Vec<[f32; 3]>,
            clusters: Clusters,
            /// Start of each cluster's triangles in the index list (in indices); one more entry at the end.
            offsets: Vec<usize>,
        }

        impl OldPreparedMesh {
            pub fn index_count(&self) -> usize {
                *self.offsets.last().unwrap()
            }

            /// Writes the index list into `out`, which must be exactly `index_count()` long. Runs in parallel over
            /// groups of clusters; each cluster's place in the list is known from `offsets`.
            pub fn write_indices(&self, out: &mut [i32]) {
                use rayon::prelude::*;
                assert_eq!(out.len(), self.index_count(), "index buffer length");
                let size = self.clusters.size;
                let n = self.clusters.ignore.len();
                let mut jobs = Vec::with_capacity(n / CLUSTERS_PER_JOB + 1);
                let mut rest = out;
                for first in (0..n).step_by(CLUSTERS_PER_JOB) {
                    let last = (first + CLUSTERS_PER_JOB).min(n);
                    let (mine, tail) = rest.split_at_mut(self.offsets[last] - self.offsets[first]);
                    jobs.push((first..last, mine));
                    rest = tail;
                }
                jobs.into_par_iter().for_each(|(range, out)| {
                    let mut k = 0;
                    for c in range {
                        if self.clusters.ignore[c] {
                            continue;
                        }
                        fans(self.clusters.cluster(c), size, |t| {
                            out[k..k + 3].copy_from_slice(&t);
                            k += 3;
                        });
                    }
                });
            }
        }

        /// Builds the vertices and the cluster layout; the index list is written by `PreparedMesh::write_indices`.
        fn old_prepare(cfg: &LodConfig) -> OldPreparedMesh {
            let mut positions = Vec::with_capacity(cfg.counts().vertices as usize);
            let clusters = build(cfg, &mut positions);
            let size = clusters.size;
            // Every fan has 8 triangles, less one per missing ("-1") neighbour: such slots sit on a cluster's
            // border at odd positions, next to exactly one fan centre.
            let full = 8 * ((size - 1) / 2) * ((size - 1) / 2);
            let mut offsets = Vec::with_capacity(clusters.ignore.len() + 1);
            let mut total = 0usize;
            for (c, &ignored) in clusters.ignore.iter().enumerate() {
                offsets.push(total);
                if !ignored {
                    let missing = clusters.cluster(c).iter().filter(|&&v| v == -1).count();
                    total += 3 * (full - missing);
                }
            }
            offsets.push(total);
            OldPreparedMesh {
                positions,
                clusters,
                offsets,
            }
        }

        /// Generates the whole mesh into owned vectors.
        pub fn old_generate(cfg: &LodConfig) -> WanderingMeshData {
            let p = old_prepare(cfg);
            let mut indices = vec![0; p.index_count()];
            p.write_indices(&mut indices);
            WanderingMeshData {
                positions: p.positions,
                indices,
            }
        }
    }
}
