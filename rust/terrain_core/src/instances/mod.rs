//! Placed instances (trees, rocks, props): stored per cell of the terrain, 32 bytes each, glued to the
//! ground.
//!
//! An instance keeps its position inside its cell, its height *above the ground*, its rotation and its
//! scale; never its absolute height. Its drawn height is read from the terrain when its cell is drawn, so
//! every edit (brush, region write, import, generation, undo) moves it with the ground, and a hole hides it
//! without deleting it (it comes back when the hole is filled).
//!
//! Cells are squares of `cell_size` terrain units keyed by their integer coordinates, so the store works the
//! same on a finite map and an endless world (a position far out keeps full precision inside its cell). A
//! cell is the unit of drawing (one MultiMesh per cell, mesh and LOD), of streaming around the camera and of
//! recomputation after an edit. The default, 32 units, keeps a cell's MultiMesh small enough to be culled
//! usefully and rebuilt within a frame after an edit (a few hundred instances at forest density), while a
//! 200 m view holds ~130 cells, few enough draw calls.

mod far_cells;
mod format;
mod placement;
mod rotation;
mod stream;

pub use far_cells::{
    box_centre, cell_box, draw_far_cell, far_cell_contents, far_factor, far_key, small_cells,
    FAR_CELL, FAR_FLOATS,
};
pub use format::FormatError;
pub use placement::{dab_add, dab_removes, scatter, Rules, RulesError};
pub use stream::{
    block_for, block_over, cell_samples, draw_cell, CellDraw, FarJob, InstanceStream, MeshDraw,
};

use crate::samples::Samples;
use glam::{Mat3, Quat, Vec3};
use std::collections::BTreeMap;

/// Integer coordinates of a cell (X, Z).
pub type CellKey = (i32, i32);

/// Terrain units per cell side accepted by `InstanceStore::new`.
pub const CELL_SIZE_RANGE: (f64, f64) = (1.0, 4096.0);

/// Quaternion components are stored in units of 1/32767 (angle error under 1e-4 rad).
const ROT_UNIT: f32 = 32767.0;

/// One placed instance: 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Instance {
    /// Position inside its cell, terrain units from the cell's lower corner, in [0, cell_size).
    pub x: f32,
    pub z: f32,
    /// Height above the ground, kept through edits.
    pub offset: f32,
    /// Rotation quaternion (x, y, z, w), w ≥ 0, in units of 1/32767.
    pub rot: [i16; 4],
    pub scale: [f32; 3],
}

impl Instance {
    pub fn rotation(&self) -> Quat {
        let q = self.rot.map(|c| f32::from(c) / ROT_UNIT);
        Quat::from_array(rotation::normalized(q))
    }

    /// Rotation and scale as a basis (columns are the scaled axes).
    pub fn basis(&self) -> Mat3 {
        Mat3::from_quat(self.rotation()) * Mat3::from_diagonal(Vec3::from(self.scale))
    }
}

/// Encodes a rotation for `Instance::rot` (normalised; the sign that makes w ≥ 0).
pub fn encode_rotation(q: Quat) -> [i16; 4] {
    // Scalar maths (`rotation.rs`): the same bits on every architecture.
    let [x, y, z, w] = q.to_array();
    let len2 = (x * x + y * y) + (z * z + w * w);
    let q = if q.is_finite() && len2 > 1e-12 {
        rotation::normalized([x, y, z, w])
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    let q = if q[3] < 0.0 { q.map(|c| -c) } else { q };
    q.map(|c| (c * ROT_UNIT).round().clamp(-ROT_UNIT, ROT_UNIT) as i16)
}

/// An instance to place: terrain-space position (its height absolute), rotation and scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub pos: [f64; 3],
    pub rot: Quat,
    pub scale: [f32; 3],
}

/// A rectangle of terrain space: [x0, z0] to [x1, z1), x0 ≤ x1, z0 ≤ z1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Area {
    pub min: [f64; 2],
    pub max: [f64; 2],
}

impl Area {
    pub fn contains(&self, x: f64, z: f64) -> bool {
        x >= self.min[0] && x < self.max[0] && z >= self.min[1] && z < self.max[1]
    }
    /// Distance on X/Z from (x, z) to the rectangle (0 inside): how far a cell is from a viewer.
    pub fn distance(&self, x: f64, z: f64) -> f64 {
        let d = |v: f64, lo: f64, hi: f64| (lo - v).max(v - hi).max(0.0);
        d(x, self.min[0], self.max[0]).hypot(d(z, self.min[1], self.max[1]))
    }

    pub fn is_valid(&self) -> bool {
        self.min.iter().chain(&self.max).all(|v| v.is_finite())
            && self.min[0] <= self.max[0]
            && self.min[1] <= self.max[1]
    }
}

/// Why an instance store refuses an input.
#[derive(Debug, Clone, PartialEq)]
pub enum InstancesError {
    CellSize(f64),
    Mesh(usize),
    Area,
}

impl std::fmt::Display for InstancesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::CellSize(v) => write!(
                f,
                "cell_size must be in [{}, {}] terrain units, got {v}",
                CELL_SIZE_RANGE.0, CELL_SIZE_RANGE.1
            ),
            Self::Mesh(m) => write!(f, "mesh_index must be in [0, {MAX_MESHES}), got {m}"),
            Self::Area => write!(f, "area must be finite with a size ≥ 0"),
        }
    }
}

impl std::error::Error for InstancesError {}

/// Meshes an instancer may hold (a mesh index is stored per cell list).
pub const MAX_MESHES: usize = 256;

/// The instances of one cell, per mesh index.
pub type Cell = Vec<Vec<Instance>>;

/// Every instance, grouped by cell. Ordered (BTreeMap) so saving gives the same bytes every time.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceStore {
    cell_size: f64,
    cells: BTreeMap<CellKey, Cell>,
    counts: Vec<usize>,
}

impl Default for InstanceStore {
    fn default() -> Self {
        Self::new(32.0).expect("the default cell size is valid")
    }
}

impl InstanceStore {
    pub fn new(cell_size: f64) -> Result<Self, InstancesError> {
        if !(CELL_SIZE_RANGE.0..=CELL_SIZE_RANGE.1).contains(&cell_size) {
            return Err(InstancesError::CellSize(cell_size));
        }
        Ok(Self {
            cell_size,
            cells: BTreeMap::new(),
            counts: Vec::new(),
        })
    }

    pub fn cell_size(&self) -> f64 {
        self.cell_size
    }

    /// The same instances in cells of another size (their positions kept to f32 rounding).
    pub fn with_cell_size(&self, cell_size: f64) -> Result<Self, InstancesError> {
        let mut out = Self::new(cell_size)?;
        for (&key, cell) in &self.cells {
            for (mesh, list) in cell.iter().enumerate() {
                for i in list {
                    let [x, z] = self.world_xz(key, i);
                    out.insert_at(mesh, x, z, *i);
                }
            }
        }
        out.shrink();
        Ok(out)
    }

    pub fn cell_of(&self, x: f64, z: f64) -> CellKey {
        let c = |v: f64| {
            (v / self.cell_size)
                .floor()
                .clamp(i32::MIN as f64, i32::MAX as f64) as i32
        };
        (c(x), c(z))
    }

    /// The terrain-space rectangle of a cell.
    pub fn cell_area(&self, key: CellKey) -> Area {
        let s = self.cell_size;
        let min = [f64::from(key.0) * s, f64::from(key.1) * s];
        Area {
            min,
            max: [min[0] + s, min[1] + s],
        }
    }

    /// Terrain X/Z of an instance of cell `key`.
    pub fn world_xz(&self, key: CellKey, i: &Instance) -> [f64; 2] {
        let a = self.cell_area(key);
        [a.min[0] + f64::from(i.x), a.min[1] + f64::from(i.z)]
    }

    pub fn count(&self, mesh: usize) -> usize {
        self.counts.get(mesh).copied().unwrap_or(0)
    }

    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    /// Mesh indices that have instances + 1.
    pub fn mesh_slots(&self) -> usize {
        self.counts.len()
    }

    pub fn cells(&self) -> impl Iterator<Item = (&CellKey, &Cell)> {
        self.cells.iter()
    }

    pub fn cell(&self, key: CellKey) -> Option<&Cell> {
        self.cells.get(&key)
    }

    /// The range of cell keys overlapping `area` (half-open: a max exactly on a cell border does not reach
    /// the next cell).
    fn key_range(&self, area: Area) -> (CellKey, CellKey) {
        let a = self.cell_of(area.min[0], area.min[1]);
        let last = |v: f64, lo: i32| {
            let c =
                ((v / self.cell_size).ceil() - 1.0).clamp(i32::MIN as f64, i32::MAX as f64) as i32;
            c.max(lo)
        };
        (a, (last(area.max[0], a.0), last(area.max[1], a.1)))
    }

    /// Keys of the stored cells overlapping `area`.
    pub fn cells_in(&self, area: Area) -> Vec<CellKey> {
        if !area.is_valid() {
            return Vec::new();
        }
        let (a, b) = self.key_range(area);
        let span = (i64::from(b.0) - i64::from(a.0) + 1) * (i64::from(b.1) - i64::from(a.1) + 1);
        if span as usize > self.cells.len() {
            // A huge area: walk the stored cells instead of the area's.
            return self
                .cells
                .keys()
                .filter(|k| (a.0..=b.0).contains(&k.0) && (a.1..=b.1).contains(&k.1))
                .copied()
                .collect();
        }
        let mut out = Vec::new();
        for cz in a.1..=b.1 {
            for cx in a.0..=b.0 {
                if self.cells.contains_key(&(cx, cz)) {
                    out.push((cx, cz));
                }
            }
        }
        out
    }

    /// Keys of every cell overlapping `area`, stored or empty (at most `limit`; None beyond).
    pub fn keys_over(&self, area: Area, limit: usize) -> Option<Vec<CellKey>> {
        if !area.is_valid() {
            return Some(Vec::new());
        }
        let (a, b) = self.key_range(area);
        let span = (i64::from(b.0) - i64::from(a.0) + 1) * (i64::from(b.1) - i64::from(a.1) + 1);
        if span as u64 > limit as u64 {
            return None;
        }
        Some(
            (a.1..=b.1)
                .flat_map(|z| (a.0..=b.0).map(move |x| (x, z)))
                .collect(),
        )
    }

    fn insert_at(&mut self, mesh: usize, x: f64, z: f64, mut i: Instance) -> CellKey {
        let key = self.cell_of(x, z);
        let a = self.cell_area(key);
        // Kept inside its cell after f32 rounding.
        let inside =
            |v: f64, lo: f64| ((v - lo) as f32).clamp(0.0, (self.cell_size as f32).next_down());
        i.x = inside(x, a.min[0]);
        i.z = inside(z, a.min[1]);
        let cell = self.cells.entry(key).or_default();
        if cell.len() <= mesh {
            cell.resize_with(mesh + 1, Vec::new);
        }
        cell[mesh].push(i);
        if self.counts.len() <= mesh {
            self.counts.resize(mesh + 1, 0);
        }
        self.counts[mesh] += 1;
        key
    }

    /// Adds placements of `mesh`. `ground(x, z)` is the surface height with holes ignored, None where there
    /// is no terrain (those placements are skipped). Returns how many were added and the cells touched.
    pub fn add(
        &mut self,
        mesh: usize,
        placements: &[Placement],
        ground: &dyn Fn(f64, f64) -> Option<f32>,
    ) -> Result<(usize, Vec<CellKey>), InstancesError> {
        if mesh >= MAX_MESHES {
            return Err(InstancesError::Mesh(mesh));
        }
        let mut touched = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut added = 0;
        for p in placements {
            let [x, y, z] = p.pos;
            if !(x.is_finite() && y.is_finite() && z.is_finite()) {
                continue;
            }
            let Some(g) = ground(x, z).filter(|g| g.is_finite()) else {
                continue;
            };
            let scale = p.scale.map(|s| if s.is_finite() { s } else { 1.0 });
            let i = Instance {
                x: 0.0,
                z: 0.0,
                offset: (y - f64::from(g)) as f32,
                rot: encode_rotation(p.rot),
                scale,
            };
            let key = self.insert_at(mesh, x, z, i);
            if touched.last() != Some(&key) && seen.insert(key) {
                touched.push(key);
            }
            added += 1;
        }
        Ok((added, touched))
    }

    /// Removes the instances of `mesh` (None: every mesh) for which `remove(x, z)` holds, in the cells
    /// overlapping `area`. Returns how many and the cells touched.
    pub fn remove_where(
        &mut self,
        mesh: Option<usize>,
        area: Area,
        remove: &mut dyn FnMut(f64, f64) -> bool,
    ) -> (usize, Vec<CellKey>) {
        let mut removed = 0;
        let mut touched = Vec::new();
        for key in self.cells_in(area) {
            let origin = self.cell_area(key).min;
            let Some(cell) = self.cells.get_mut(&key) else {
                continue;
            };
            let mut n = 0;
            for (m, list) in cell.iter_mut().enumerate() {
                if mesh.is_some_and(|k| k != m) {
                    continue;
                }
                let before = list.len();
                list.retain(|i| {
                    let (x, z) = (origin[0] + f64::from(i.x), origin[1] + f64::from(i.z));
                    !(area.contains(x, z) && remove(x, z))
                });
                let gone = before - list.len();
                self.counts[m] -= gone;
                n += gone;
            }
            if n > 0 {
                removed += n;
                touched.push(key);
                if cell.iter().all(Vec::is_empty) {
                    self.cells.remove(&key);
                }
            }
        }
        (removed, touched)
    }

    /// Removes every instance of `mesh` (None: every mesh) inside `area`.
    pub fn remove(&mut self, mesh: Option<usize>, area: Area) -> (usize, Vec<CellKey>) {
        self.remove_where(mesh, area, &mut |_, _| true)
    }

    /// Calls `f(x, z, instance)` for every instance of `mesh` inside `area`, cell by cell.
    pub fn for_each_in(&self, mesh: usize, area: Area, f: &mut dyn FnMut(f64, f64, &Instance)) {
        for key in self.cells_in(area) {
            let origin = self.cell_area(key).min;
            let Some(list) = self.cells.get(&key).and_then(|c| c.get(mesh)) else {
                continue;
            };
            for i in list {
                let (x, z) = (origin[0] + f64::from(i.x), origin[1] + f64::from(i.z));
                if area.contains(x, z) {
                    f(x, z, i);
                }
            }
        }
    }

    /// Cells `keys` as their own store (an undo snapshot; `replace_cells` puts them back).
    pub fn extract_cells(&self, keys: &[CellKey]) -> InstanceStore {
        let mut out = Self::new(self.cell_size).expect("same cell size");
        for k in keys {
            if let Some(cell) = self.cells.get(k) {
                out.put(*k, cell.clone());
            }
        }
        out
    }

    /// Cells `keys` become those of `other` (absent there: empty).
    pub fn replace_cells(&mut self, keys: &[CellKey], other: &InstanceStore) {
        for k in keys {
            if let Some(old) = self.cells.remove(k) {
                for (m, l) in old.iter().enumerate() {
                    self.counts[m] -= l.len();
                }
            }
            if let Some(new) = other.cells.get(k) {
                self.put(*k, new.clone());
            }
        }
    }

    fn put(&mut self, key: CellKey, cell: Cell) {
        for (m, l) in cell.iter().enumerate() {
            if self.counts.len() <= m {
                self.counts.resize(m + 1, 0);
            }
            self.counts[m] += l.len();
        }
        self.cells.insert(key, cell);
    }

    /// Frees the lists' spare capacity (after a bulk add).
    pub fn shrink(&mut self) {
        for cell in self.cells.values_mut() {
            for l in cell.iter_mut() {
                l.shrink_to_fit();
            }
            cell.shrink_to_fit();
        }
    }

    /// Bytes held by the instances and their lists (the CPU memory the store costs, map nodes estimated).
    pub fn heap_bytes(&self) -> usize {
        let per_cell = std::mem::size_of::<CellKey>() + std::mem::size_of::<Cell>() + 16;
        self.cells
            .values()
            .map(|c| {
                per_cell
                    + c.capacity() * std::mem::size_of::<Vec<Instance>>()
                    + c.iter()
                        .map(|l| l.capacity() * std::mem::size_of::<Instance>())
                        .sum::<usize>()
            })
            .sum()
    }
}

/// Where an instance stands on a surface: its terrain-space transform (basis columns and origin), or
/// None over a hole or cleared ground (a path's verge: hidden, not deleted). The height is the surface's
/// (`samples::height_at` without the hole test) + offset.
pub fn placed<S: Samples + ?Sized>(s: &S, x: f64, z: f64, i: &Instance) -> Option<(Mat3, Vec3)> {
    let sp = s.spacing();
    let (sx, sz) = (x / sp - 0.5, z / sp - 0.5);
    if s.is_hole_at_sample(sx, sz) || crate::samples::is_cleared(s, sx, sz) {
        return None;
    }
    let y = s.patch_height(sx, sz) + i.offset;
    Some((i.basis(), Vec3::new(x as f32, y, z as f32)))
}

/// Ground height for `InstanceStore::add` on a surface: holes ignored (an instance placed over a hole
/// keeps its offset for when the hole is filled), None outside a finite grid's samples.
pub fn ground_of<S: Samples + ?Sized>(s: &S, x: f64, z: f64) -> Option<f32> {
    if !crate::samples::is_inside(s, x, z) {
        return None;
    }
    let sp = s.spacing();
    Some(s.patch_height(x / sp - 0.5, z / sp - 0.5))
}

#[cfg(test)]
mod tests;
