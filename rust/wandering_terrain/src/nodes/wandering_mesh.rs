//! `WanderingMesh`: the camera-following LOD-ring PrimitiveMesh (generator in `terrain_core::wandering_mesh`).

use godot::classes::mesh::ArrayType;
use godot::classes::{IPrimitiveMesh, PrimitiveMesh};
use godot::prelude::*;
use terrain_core::wandering_mesh::{
    self as core, LodConfig, DEFAULT_VERTEX_BUDGET, MAX_HEIGHT, MAX_VERTEX_BUDGET,
};

/// A flat mesh of LOD rings for heightmap terrain (the wandering mesh of camera-following LOD rings with Bézier-patch heights): the finest patch at the
/// near edge, centred on X = 0, each further ring of patch layers half as dense. Place it in front of the
/// camera and let a terrain shader slide the heightfield under it (see `wandering_terrain.gdshader`).
///
/// The mesh lies in the X/Z plane (Y = 0): X in [-w/2, w/2], Z in [0, d]. Normals point up; UV maps the
/// mesh's X/Z bounds to [0, 1]. Its AABB is set from `height_min`/`height_max` and the mesh's radius, so the
/// shader may rotate and displace it without the "Extra Cull Margin" workaround.
///
/// Invalid values are refused with an error naming the property and the allowed range; the previous value
/// and mesh stay. Note: `lods` is a packed array, copied on assignment: `mesh.lods.append(2)` does not reach
/// the mesh; assign a new array (`mesh.lods = PackedInt32Array([2, 2])`).
#[derive(GodotClass)]
#[class(tool, base=PrimitiveMesh)]
pub struct WanderingMesh {
    /// Largest number of vertices a mesh may have, at most 16777216 (about 1 GB of mesh arrays); larger
    /// parameter sets are refused before any allocation.
    #[export(range = (1.0, 16777216.0))]
    #[export_group(name = "Limits")]
    #[var(set = set_vertex_budget)]
    vertex_budget: i64,

    /// Side of one finest-LOD patch square, in world units, [0.001, 1000000].
    #[export(range = (0.001, 1000.0, 0.001, or_greater))]
    #[export_group(name = "LOD Rings")]
    #[var(set = set_start_size)]
    start_size: f64,
    /// Subdivisions of the finest patch, as a power of two: 2^start_subdivision quads per side (1..=20).
    /// Each LOD ring uses one subdivision less, so at most `start_subdivision - 1` entries of `lods` are used.
    #[export(range = (1.0, 12.0, or_greater))]
    #[var(set = set_start_subdivision)]
    start_subdivision: i64,
    /// Patch layers of each successively coarser LOD ring (each entry >= 1). Entries past
    /// `start_subdivision - 1` are ignored, as in the original generator; at most 64 entries.
    #[export]
    #[var(set = set_lods)]
    lods: PackedInt32Array,

    /// Lowest terrain height the shader may displace vertices to (for the AABB used in culling).
    #[export]
    #[export_group(name = "Bounds")]
    #[var(set = set_height_min)]
    height_min: f64,
    /// Highest terrain height the shader may displace vertices to (for the AABB used in culling).
    #[export]
    #[var(set = set_height_max)]
    height_max: f64,

    config: LodConfig,
    /// Microseconds the last build spent in this extension (`get_last_build_usec`).
    last_build_usec: std::cell::Cell<i64>,
    base: Base<PrimitiveMesh>,
}

#[godot_api]
impl IPrimitiveMesh for WanderingMesh {
    fn init(base: Base<PrimitiveMesh>) -> Self {
        let config =
            LodConfig::new(1.0, 2, &[], DEFAULT_VERTEX_BUDGET).expect("defaults are valid");
        Self {
            vertex_budget: DEFAULT_VERTEX_BUDGET as i64,
            start_size: 1.0,
            start_subdivision: 2,
            lods: PackedInt32Array::new(),
            height_min: -256.0,
            height_max: 256.0,
            config,
            last_build_usec: std::cell::Cell::new(0),
            base,
        }
    }

    fn create_mesh_array(&self) -> AnyArray {
        // A fresh mesh has not run a setter yet; its base cannot be touched from init(), so the AABB is
        // brought up to date here (an engine-side call: it does not re-enter this object).
        let aabb = self.wanted_aabb();
        if self.base().get_custom_aabb() != aabb {
            self.to_gd().upcast::<PrimitiveMesh>().set_custom_aabb(aabb);
        }
        let t = std::time::Instant::now();
        let arrays = mesh_arrays(&self.config);
        self.last_build_usec.set(t.elapsed().as_micros() as i64);
        arrays.upcast_any_array()
    }
}

/// Builds the surface arrays; data crosses into Godot once, written straight into the packed arrays.
fn mesh_arrays(cfg: &LodConfig) -> VarArray {
    let prepared = core::prepare(cfg);
    let n = prepared.vertex_count();
    let (half_w, depth) = cfg.extent();
    let (sx, sz) = ((0.5 / half_w) as f32, (1.0 / depth) as f32);

    let mut vertices = PackedVector3Array::new();
    vertices.resize(n);
    prepared.write_vertices(vertices.as_mut_slice(), |x, z| Vector3::new(x, 0.0, z));
    // UVs: the mesh's [-w/2, w/2] x [0, d] to [0, 1]², from the same positions.
    let mut uvs = PackedVector2Array::new();
    uvs.resize(n);
    prepared.write_vertices(uvs.as_mut_slice(), |x, z| {
        Vector2::new(x * sx + 0.5, z * sz)
    });
    let mut normals = PackedVector3Array::new();
    normals.resize(n);
    prepared.write_vertices(normals.as_mut_slice(), |_, _| Vector3::UP);
    let mut indices = PackedInt32Array::new();
    indices.resize(prepared.index_count());
    prepared.write_indices(indices.as_mut_slice());

    let mut arrays = VarArray::new();
    arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
    arrays.set(ArrayType::VERTEX.ord() as usize, &vertices.to_variant());
    arrays.set(ArrayType::NORMAL.ord() as usize, &normals.to_variant());
    arrays.set(ArrayType::TEX_UV.ord() as usize, &uvs.to_variant());
    arrays.set(ArrayType::INDEX.ord() as usize, &indices.to_variant());
    arrays
}

#[godot_api]
impl WanderingMesh {
    /// Microseconds the last build of the mesh spent in this extension (laying out and writing the
    /// vertex, UV, normal and index arrays), without the engine's own handling of them: for measurements.
    #[func]
    fn get_last_build_usec(&self) -> i64 {
        self.last_build_usec.get()
    }

    #[func]
    fn set_start_size(&mut self, value: f64) {
        self.apply(
            "start_size",
            value,
            self.start_subdivision,
            &self.lods.clone(),
            self.vertex_budget,
        );
    }

    #[func]
    fn set_start_subdivision(&mut self, value: i64) {
        self.apply(
            "start_subdivision",
            self.start_size,
            value,
            &self.lods.clone(),
            self.vertex_budget,
        );
    }

    #[func]
    fn set_lods(&mut self, value: PackedInt32Array) {
        self.apply(
            "lods",
            self.start_size,
            self.start_subdivision,
            &value,
            self.vertex_budget,
        );
    }

    #[func]
    fn set_vertex_budget(&mut self, value: i64) {
        if !(1..=MAX_VERTEX_BUDGET as i64).contains(&value) {
            godot_error!(
                "WanderingMesh.vertex_budget must be in [1, {MAX_VERTEX_BUDGET}], got {value}; keeping {}",
                self.vertex_budget
            );
            return;
        }
        self.apply(
            "vertex_budget",
            self.start_size,
            self.start_subdivision,
            &self.lods.clone(),
            value,
        );
    }

    /// Raises `height_max` too when needed (saved files set `height_min` first).
    #[func]
    fn set_height_min(&mut self, value: f64) {
        if !(-MAX_HEIGHT..=MAX_HEIGHT).contains(&value) {
            godot_error!("WanderingMesh.height_min must be a number in [-{MAX_HEIGHT}, {MAX_HEIGHT}], got {value}");
            return;
        }
        self.height_min = value;
        self.height_max = self.height_max.max(value);
        self.update_aabb();
    }

    /// Lowers `height_min` too when needed.
    #[func]
    fn set_height_max(&mut self, value: f64) {
        if !(-MAX_HEIGHT..=MAX_HEIGHT).contains(&value) {
            godot_error!("WanderingMesh.height_max must be a number in [-{MAX_HEIGHT}, {MAX_HEIGHT}], got {value}");
            return;
        }
        self.height_max = value;
        self.height_min = self.height_min.min(value);
        self.update_aabb();
    }

    /// Number of vertices the current parameters produce (computed without generating the mesh).
    #[func]
    fn get_vertex_count(&self) -> i64 {
        self.config.counts().vertices as i64
    }

    /// Vertex spacing of the coarsest ring (world units).
    pub fn coarse_vertex_spacing(&self) -> f64 {
        self.config.coarse_vertex_spacing()
    }

    /// Largest distance of a vertex from the mesh origin (world units).
    pub fn reach(&self) -> f64 {
        self.config.reach()
    }

    /// Validates a candidate parameter set; on success stores it and regenerates, else reports and keeps
    /// the previous values and mesh.
    fn apply(&mut self, property: &str, size: f64, sub: i64, lods: &PackedInt32Array, budget: i64) {
        let entries: Vec<i64> = lods.as_slice().iter().map(|&v| i64::from(v)).collect();
        match LodConfig::new(size, sub, &entries, budget.max(1) as u64) {
            Ok(cfg) => {
                self.start_size = size;
                self.start_subdivision = sub;
                self.lods = lods.clone();
                self.vertex_budget = budget;
                self.config = cfg;
                self.update_aabb();
                self.base_mut().request_update();
            }
            Err(e) => godot_error!("WanderingMesh.{property}: {e}; keeping the previous value"),
        }
    }

    /// The shader rotates the mesh about its origin and lifts it to the terrain: a box holding the mesh's
    /// disc of radius r and the height range covers every placement.
    fn update_aabb(&mut self) {
        let aabb = self.wanted_aabb();
        self.base_mut().set_custom_aabb(aabb);
    }

    fn wanted_aabb(&self) -> Aabb {
        // One unit of slack for the shader's rounding.
        let r = self.config.reach() + 1.0;
        let (lo, hi) = (self.height_min, self.height_max);
        Aabb::new(
            Vector3::new(-r as f32, lo as f32, -r as f32),
            Vector3::new(2.0 * r as f32, (hi - lo) as f32, 2.0 * r as f32),
        )
    }
}
