//! The terrain contract: what a terrain node offers to whatever stands on it (the instancer and its
//! detail layers, navigation, debug views, roads and water). Both terrain nodes implement
//! `TerrainHost` (`#[godot_dyn]`); a water node implements `TerrainWaterLevels` (what instances and detail
//! read of it, `water_of`); a feature finds its terrain with `host_of(node)` and never names a
//! node class, so nothing here or in a feature imports the nodes (they import the features, as a hub
//! owns its parts).

use crate::data::edit_target::EditTarget;
use crate::data::terrain_data::TerrainData;
use crate::look::terrain_material::TerrainMaterial;
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::clipmap_data::Frame;
use terrain_core::clipmap_stream::SharedSamples;
use terrain_core::instances::{block_over, Area};
use terrain_core::samples::Samples;

/// The heights a terrain node draws: a `TerrainData` in memory, or samples streamed from a region map
/// or a generator (shared with the workers).
pub(crate) enum Surface {
    Data(Gd<TerrainData>),
    Streamed(SharedSamples),
}

impl Surface {
    /// The samples, for one call (an in-memory TerrainData is bound for its duration).
    pub fn with_samples<R>(&self, f: impl FnOnce(&(dyn Samples + Send)) -> R) -> R {
        match self {
            Surface::Data(d) => f(d.bind().core()),
            Surface::Streamed(s) => f(&**s),
        }
    }

    /// Identity: a new one means everything standing on it is made again.
    pub fn key(&self) -> usize {
        match self {
            Surface::Data(d) => d.instance_id().to_i64() as usize,
            Surface::Streamed(s) => Arc::as_ptr(s) as *const u8 as usize,
        }
    }

    /// The TerrainData when the samples are in memory (edits there can be redrawn on the main thread).
    pub fn data(&self) -> Option<&Gd<TerrainData>> {
        match self {
            Surface::Data(d) => Some(d),
            Surface::Streamed(_) => None,
        }
    }

    /// Cells a worker job takes: in-memory data copies one cell's block a job (cells far apart would copy
    /// all between them), a streamed source is read by the worker itself, `streamed` cells a job.
    pub fn cells_per_job(&self, streamed: usize) -> usize {
        match self {
            Surface::Data(_) => 1,
            Surface::Streamed(_) => streamed,
        }
    }

    /// What a worker job over `areas` reads: a copy of the samples under them for in-memory data (the
    /// TerrainData stays editable meanwhile), the shared source otherwise.
    pub fn job_source(&self, areas: impl IntoIterator<Item = Area>) -> SharedSamples {
        match self {
            Surface::Data(d) => Arc::new(block_over(d.bind().core(), areas)),
            Surface::Streamed(s) => s.clone(),
        }
    }

    /// Width and depth in terrain units; None for an endless source.
    pub fn extent(&self) -> Option<[f64; 2]> {
        match self {
            Surface::Data(d) => {
                let d = d.bind();
                let (sp, s) = (d.get_spacing(), d.get_size());
                Some([f64::from(s.x) * sp, f64::from(s.y) * sp])
            }
            Surface::Streamed(s) => s
                .size()
                .map(|[w, d]| [w as f64 * s.spacing(), d as f64 * s.spacing()]),
        }
    }
}

/// What a terrain node presents, as of one call: the surface, terrain space → world, the followed target,
/// the material (its blending is the layer rules') and where edits are announced.
pub(crate) struct TerrainSurface {
    /// None while the node has neither data nor a generator.
    pub surface: Option<Surface>,
    /// What edits of the surface go to, whose signals (`changed`, `region_changed`) move it: the
    /// TerrainData, or the TerrainRegions a streamed surface is read from; None for a generated world.
    pub edits: Option<EditTarget>,
    /// Terrain space → Godot world, exact (f64): the node's placement less its origin shift. Positions go
    /// through this (`world_of`, `terrain_of`): far out, an f32 terrain position is off by metres.
    pub frame: Frame,
    /// `frame` narrowed to f32: for scales and directions, never for far positions.
    pub to_world: Transform3D,
    pub target: Option<Vector3>,
    /// Terrain X/Z of everything the node's collision follows (its own target and its collision
    /// targets, `collision_targets.rs`) as of its last physics tick; None before the first.
    pub collision_centres: Option<crate::physics::collision_targets::Centres>,
    /// The node draws nothing (server mode): what stands on it keeps its collision and draws nothing.
    pub serving: bool,
    pub material: Option<Gd<TerrainMaterial>>,
    pub grad_scale: [f32; 2],
}

impl TerrainSurface {
    /// Identity of the surface (`Surface::key`).
    pub fn key(&self) -> Option<usize> {
        self.surface.as_ref().map(Surface::key)
    }

    /// Terrain position → Godot world (computed in f64, narrowed once the result is small).
    pub fn world_of(&self, t: [f64; 3]) -> Vector3 {
        world_of(&self.frame, t)
    }

    /// Godot world position → terrain, in f64.
    pub fn terrain_of(&self, w: Vector3) -> [f64; 3] {
        self.frame.to_terrain([w.x, w.y, w.z].map(f64::from))
    }

    /// A world transform in terrain space: its basis through the scale, its origin in f64.
    pub fn terrain_transform(&self, t: Transform3D) -> (Basis, [f64; 3]) {
        let inv = self.to_world.basis.inverse();
        (inv * t.basis, self.terrain_of(t.origin))
    }

    /// A terrain-space basis and origin as a world transform (the origin placed in f64).
    pub fn world_transform(&self, basis: Basis, origin: [f64; 3]) -> Transform3D {
        Transform3D::new(self.to_world.basis * basis, self.world_of(origin))
    }
}

/// Terrain position → Godot world through `frame`, in f64 until the (small) result.
pub(crate) fn world_of(frame: &Frame, t: [f64; 3]) -> Vector3 {
    let w = frame.to_world(t);
    Vector3::new(w[0] as f32, w[1] as f32, w[2] as f32)
}

/// The transform of something whose contents are relative to terrain point (x, z) (`origin`) at the
/// terrain's base height: a cell of instances or detail. Its contents stay exact in f32 however far out
/// it is; moving the terrain (or shifting the origin) moves only this.
pub(crate) fn cell_transform(frame: &Frame, origin: [f64; 2]) -> Transform3D {
    let s = frame.scale.map(|v| v as f32);
    Transform3D::new(
        Basis::from_diagonal(s[0], s[1], s[2]),
        world_of(frame, [origin[0], 0.0, origin[1]]),
    )
}

/// A frame narrowed to a transform (scales and directions; positions near the origin).
pub(crate) fn transform_of(frame: &Frame) -> Transform3D {
    cell_transform(frame, [0.0, 0.0])
}

/// Custom notification a terrain node sends down the tree after a shift of its floating origin
/// (`Node.propagate_notification`): what stands on the terrain places itself anew in the same frame.
pub(crate) const NOTIFICATION_ORIGIN_SHIFTED: i32 = 47_310;

/// The contract both terrain nodes implement.
pub(crate) trait TerrainHost {
    /// What stands on the terrain reads this.
    fn terrain_surface(&self) -> TerrainSurface;
    /// The node's class, for error messages ("TerrainNode", "WanderingTerrain").
    fn class_name(&self) -> &'static str;
    /// The physics layers the terrain collides on; 0 with collision off.
    fn collision_layers(&self) -> u32;
}

/// What a water node on a terrain offers what else stands there (instances and detail place themselves by
/// it): the levels as last computed. `TerrainWater` implements it (`#[godot_dyn]`).
pub(crate) trait TerrainWaterLevels {
    fn water_levels(&self) -> Option<Arc<terrain_core::water::WaterLevels>>;
}

/// The water of `terrain`'s first child that has some (a TerrainWater), as last computed.
pub(crate) fn water_of(terrain: &Gd<Node>) -> Option<Arc<terrain_core::water::WaterLevels>> {
    terrain.get_children().iter_shared().find_map(|c| {
        c.try_dynify::<dyn TerrainWaterLevels>()
            .ok()
            .map(|w| w.dyn_bind().water_levels())
    })?
}

/// `node` as a terrain, when it is one.
pub(crate) fn host_of(node: Gd<Node>) -> Option<DynGd<Node, dyn TerrainHost>> {
    node.try_dynify::<dyn TerrainHost>().ok()
}

/// The nearest terrain above `node` (its parent, or further up: a road under a folder node under the
/// terrain), for what stands on a terrain without being its direct child.
pub(crate) fn host_above(node: &Gd<Node>) -> Option<DynGd<Node, dyn TerrainHost>> {
    let mut up = node.get_parent();
    while let Some(p) = up {
        if let Some(h) = host_of(p.clone()) {
            return Some(h);
        }
        up = p.get_parent();
    }
    None
}
