//! The terrain in Godot's navigation-mesh bakes: a source-geometry parser registered with
//! `NavigationServer3D` (once, when the first terrain node enters a tree; freed when the extension
//! unloads). For every `TerrainNode` and `WanderingTerrain` a bake parses, it adds the surface's faces
//! (`terrain_core::navigation`: on the drawn surface, holes left out, flat ground merged within the
//! navigation mesh's cell height) so the editor's *Bake NavigationMesh* button,
//! `NavigationRegion3D.bake_navigation_mesh()` and `NavigationServer3D.parse_source_geometry_data` all see
//! the terrain.
//!
//! gdext gates the navigation classes behind its experimental-API feature; the server and the resources
//! are called dynamically here (by method and property name) instead of enabling it for the whole crate.

use crate::surface::{host_of, TerrainSurface};
use godot::classes::{Engine, Node, Object};
use godot::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use terrain_core::navigation::faces;

/// The parser's RID (0: not registered).
static PARSER: AtomicU64 = AtomicU64::new(0);
/// Set when the main loop has ended: no parser is registered any more.
static CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// NavigationMesh.geometry_parsed_geometry_type values.
const PARSED_MESH_INSTANCES: i64 = 0;
const PARSED_STATIC_COLLIDERS: i64 = 1;

fn server() -> Option<Gd<Object>> {
    let e = Engine::singleton();
    let name = StringName::from("NavigationServer3D");
    e.has_singleton(&name)
        .then(|| e.get_singleton(&name))
        .flatten()
}

/// Registers the parser (the first call does; later ones return at once).
pub fn register() {
    if PARSER.load(Ordering::Relaxed) != 0 || CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let Some(mut ns) = server() else {
        return;
    };
    let rid: Rid = ns.call("source_geometry_parser_create", &[]).to();
    let callback = Callable::from_fn("wandering_terrain_navigation_parser", |args| {
        parse(args);
    });
    ns.call(
        "source_geometry_parser_set_callback",
        &[rid.to_variant(), callback.to_variant()],
    );
    PARSER.store(rid.to_u64(), Ordering::Relaxed);
}

/// Frees the parser when the main loop ends (the servers are still alive then) and keeps it from being
/// registered again.
pub fn close() {
    CLOSED.store(true, Ordering::Relaxed);
    let id = PARSER.swap(0, Ordering::Relaxed);
    if id == 0 {
        return;
    }
    if let Some(mut ns) = server() {
        // The server drops our callable now, while this library's code is loaded, not in its own
        // teardown (a headless editor that had baked crashed at exit now and then).
        ns.call(
            "source_geometry_parser_set_callback",
            &[Rid::new(id).to_variant(), Callable::invalid().to_variant()],
        );
        ns.call("free_rid", &[Rid::new(id).to_variant()]);
    }
}

/// What a bake needs of a terrain node.
struct Source {
    host: TerrainSurface,
    who: &'static str,
    layers: u32,
}

fn source_of(node: &Gd<Node>) -> Option<Source> {
    let h = host_of(node.clone())?;
    let h = h.dyn_bind();
    Some(Source {
        host: h.terrain_surface(),
        who: h.class_name(),
        layers: h.collision_layers(),
    })
}

/// The parser: `args` are the navigation mesh, the source geometry data and the parsed node.
fn parse(args: &[&Variant]) {
    let [mesh, data, node] = args else {
        return;
    };
    let (Ok(mesh), Ok(mut data), Ok(node)) = (
        mesh.try_to::<Gd<Object>>(),
        data.try_to::<Gd<Object>>(),
        node.try_to::<Gd<Node>>(),
    ) else {
        return;
    };
    let Some(src) = source_of(&node) else {
        return;
    };
    let parsed = mesh
        .get("geometry_parsed_geometry_type")
        .try_to::<i64>()
        .unwrap_or(2);
    let mask = mesh
        .get("geometry_collision_mask")
        .try_to::<i64>()
        .unwrap_or(-1) as u32;
    // As a mesh the terrain is always there; as a static collider only with collision on a masked layer.
    let wanted = match parsed {
        PARSED_MESH_INSTANCES => true,
        PARSED_STATIC_COLLIDERS => src.layers & mask != 0,
        _ => true,
    };
    if !wanted {
        return;
    }
    let Some(surface) = src.host.surface.as_ref() else {
        return;
    };
    let to_world = src.host.to_world;
    let cell_height = mesh.get("cell_height").try_to::<f32>().unwrap_or(0.25);
    let aabb = mesh
        .get("filter_baking_aabb")
        .try_to::<Aabb>()
        .unwrap_or_default();
    let offset = mesh
        .get("filter_baking_aabb_offset")
        .try_to::<Vector3>()
        .unwrap_or(Vector3::ZERO);
    let has_aabb = aabb.size.x > 0.0 && aabb.size.y > 0.0 && aabb.size.z > 0.0;
    let size = surface.extent();
    // What the source data applies to added geometry (the bake root's inverse), times ours.
    let root = root_transform(&mut data);
    let to_root = root * to_world;
    let (min, max) = if has_aabb {
        // The bake clips to the box in the root node's space.
        terrain_rect(
            to_root.affine_inverse(),
            Aabb::new(aabb.position + offset, aabb.size),
        )
    } else if let Some(size) = size {
        ([0.0, 0.0], size)
    } else {
        godot_error!(
            "{}: an endless or region-map terrain is baked inside the NavigationMesh's filter_baking_aabb (+ offset); set one with a volume (e.g. a window around the player)",
            src.who
        );
        return;
    };
    let f = match terrain_faces(&src.host, min, max, cell_height) {
        Ok(f) => f,
        Err(e) => {
            godot_error!("{}: navigation bake: {e}", src.who);
            return;
        }
    };
    if f.indices.is_empty() {
        return;
    }
    // Shared vertices, placed here (append_arrays applies no transform), and Recast's winding.
    // Each vertex placed in f64 (`world_of`), then into the bake root's space: exact far out.
    let mut verts = Vec::with_capacity(f.vertices.len() * 3);
    for i in 0..f.vertices.len() {
        let p = root * crate::surface::world_of(&src.host.frame, f.vertex(i));
        verts.extend_from_slice(&[p.x, p.y, p.z]);
    }
    let indices: PackedInt32Array = f
        .indices
        .chunks_exact(3)
        .flat_map(|t| [t[0] as i32, t[2] as i32, t[1] as i32])
        .collect();
    data.call(
        "append_arrays",
        &[
            PackedFloat32Array::from(verts.as_slice()).to_variant(),
            indices.to_variant(),
        ],
    );
}

/// The faces of `host`'s surface over terrain rectangle `min`..`max`, merged within `tolerance` world
/// units of height.
fn terrain_faces(
    host: &TerrainSurface,
    min: [f64; 2],
    max: [f64; 2],
    tolerance: f32,
) -> Result<terrain_core::navigation::Faces, terrain_core::navigation::NavigationError> {
    let sy = host.to_world.basis.get_scale().y.abs().max(1e-6);
    match &host.surface {
        Some(s) => s.with_samples(|s| faces(s, min, max, tolerance / sy)),
        None => Ok(Default::default()),
    }
}

/// `get_navigation_faces` of both terrain nodes: world-space triangles (clockwise from above, as
/// `NavigationMeshSourceGeometryData3D.add_faces` takes them) of the surface inside the world box `area`,
/// merged where flat within `tolerance` (0: one per sample triangle). An error names `who`.
pub fn faces_in(
    host: &TerrainSurface,
    who: &str,
    area: Aabb,
    tolerance: f64,
) -> PackedVector3Array {
    if !(0.0..=1e4).contains(&tolerance) {
        godot_error!(
            "{who}.get_navigation_faces: tolerance must be in [0, 10000], got {tolerance}"
        );
        return PackedVector3Array::new();
    }
    if !(area.position.is_finite() && area.size.is_finite()) {
        godot_error!("{who}.get_navigation_faces: area must be finite, got {area}");
        return PackedVector3Array::new();
    }
    let (min, max) = terrain_rect(host.to_world.affine_inverse(), area.abs());
    match terrain_faces(host, min, max, tolerance as f32) {
        Ok(f) => f.corners().map(|v| host.world_of(v)).collect(),
        Err(e) => {
            godot_error!("{who}.get_navigation_faces: {e}");
            PackedVector3Array::new()
        }
    }
}

/// The transform `NavigationMeshSourceGeometryData3D` applies to added faces (the bake root's inverse),
/// read by adding a probe and taking it back out: the class exposes no getter for it.
fn root_transform(data: &mut Gd<Object>) -> Transform3D {
    let vertices: PackedFloat32Array = data.call("get_vertices", &[]).to();
    let indices: PackedInt32Array = data.call("get_indices", &[]).to();
    let (o, x, y, z) = (Vector3::ZERO, Vector3::RIGHT, Vector3::UP, Vector3::BACK);
    let probe = PackedVector3Array::from(&[o, x, z, o, y, x][..]);
    data.call(
        "add_faces",
        &[probe.to_variant(), Transform3D::IDENTITY.to_variant()],
    );
    let after: PackedFloat32Array = data.call("get_vertices", &[]).to();
    data.call("set_vertices", &[vertices.to_variant()]);
    data.call("set_indices", &[indices.to_variant()]);
    let n = vertices.len();
    let a = after.as_slice();
    if a.len() < n + 18 {
        return Transform3D::IDENTITY;
    }
    let p = |i: usize| Vector3::new(a[n + 3 * i], a[n + 3 * i + 1], a[n + 3 * i + 2]);
    let origin = p(0);
    Transform3D::new(
        Basis::from_cols(p(1) - origin, p(4) - origin, p(2) - origin),
        origin,
    )
}

/// The X/Z rectangle in terrain space covering `aabb` seen through `inv` (root space → terrain space).
fn terrain_rect(inv: Transform3D, aabb: Aabb) -> ([f64; 2], [f64; 2]) {
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    for i in 0..8 {
        let c = aabb.position
            + Vector3::new(
                if i & 1 != 0 { aabb.size.x } else { 0.0 },
                if i & 2 != 0 { aabb.size.y } else { 0.0 },
                if i & 4 != 0 { aabb.size.z } else { 0.0 },
            );
        let t = inv * c;
        lo = [lo[0].min(f64::from(t.x)), lo[1].min(f64::from(t.z))];
        hi = [hi[0].max(f64::from(t.x)), hi[1].max(f64::from(t.z))];
    }
    (lo, hi)
}
