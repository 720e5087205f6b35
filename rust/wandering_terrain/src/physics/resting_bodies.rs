//! Bodies on ground that an edit moves. A physics engine does not wake a sleeping body when the static
//! ground under it changes (Jolt and Godot Physics alike: a box stayed floating over lowered ground or
//! buried under raised ground), and a raise taller than a body's half height swallows an awake one. So an
//! edit notes the bodies over its area at once, and when the edited collision tile under such a body is
//! handed to the engine, the body is woken and — if the raise put its bottom under the new surface while
//! it stood on the old one — lifted by the rise there.

use godot::classes::physics_server_3d::{BodyMode, BodyState, ShapeType};
use godot::classes::{Node3D, PhysicsServer3D, PhysicsShapeQueryParameters3D};
use godot::prelude::*;

/// Most bodies one edit notes (a query's result cap).
const MAX_BODIES: i32 = 256;
/// A body whose bottom was this far (world units) under the old ground was buried on purpose (a cave,
/// a tunnel under a hole): it is not lifted.
const BURIED: f32 = 0.25;

/// A tile's heights as the engine holds them: `width × depth` points of a heightmap shape placed by `xf`
/// (points one unit apart in its local X/Z, centred on its origin).
pub struct TileSurface<'a> {
    pub heights: &'a [f32],
    pub width: usize,
    pub depth: usize,
    pub xf: Transform3D,
}

impl TileSurface<'_> {
    /// Ground height (world Y) under world X/Z (x, z), bilinear between the points; None off the tile or
    /// over a hole.
    pub fn height_at(&self, x: f32, z: f32) -> Option<f32> {
        let b = self.xf.basis;
        let (sx, sy, sz) = (b.col_a().x, b.col_b().y, b.col_c().z);
        let u = (x - self.xf.origin.x) / sx + (self.width - 1) as f32 * 0.5;
        let v = (z - self.xf.origin.z) / sz + (self.depth - 1) as f32 * 0.5;
        let (w1, d1) = ((self.width - 1) as f32, (self.depth - 1) as f32);
        if !(u >= 0.0 && v >= 0.0 && u <= w1 && v <= d1) {
            return None;
        }
        let (i, j) = (
            (u as usize).min(self.width - 2),
            (v as usize).min(self.depth - 2),
        );
        let (fu, fv) = (u - i as f32, v - j as f32);
        let h = |a: usize, c: usize| self.heights[c * self.width + a];
        let top = h(i, j) + (h(i + 1, j) - h(i, j)) * fu;
        let bottom = h(i, j + 1) + (h(i + 1, j + 1) - h(i, j + 1)) * fu;
        let y = (top + (bottom - top) * fv) * sy + self.xf.origin.y;
        y.is_finite().then_some(y)
    }
}

/// Bodies noted by edits, waiting for their tile's new ground; and the box shape the notes are made with.
#[derive(Default)]
pub struct RestingBodies {
    noted: Vec<Rid>,
    probe: Option<Rid>,
}

impl RestingBodies {
    /// Notes every moving body (rigid or kinematic) overlapping the world box `area` in `space`; `ours`
    /// (the terrain's own tile bodies) are left out of the query, or they would fill its results.
    pub fn note(&mut self, space: Rid, area: Aabb, ours: &Array<Rid>) {
        let mut ps = PhysicsServer3D::singleton();
        let probe = *self.probe.get_or_insert_with(|| ps.box_shape_create());
        ps.shape_set_data(probe, &(area.size * 0.5).to_variant());
        let Some(mut state) = ps.space_get_direct_state(space) else {
            return;
        };
        let mut q = PhysicsShapeQueryParameters3D::new_gd();
        q.set_shape_rid(probe);
        q.set_transform(Transform3D::new(Basis::IDENTITY, area.center()));
        q.set_collide_with_areas(false);
        q.set_collide_with_bodies(true);
        q.set_exclude(ours);
        let hits = state.intersect_shape_ex(&q).max_results(MAX_BODIES).done();
        for hit in hits.iter_shared() {
            let Some(rid) = hit.get("rid").and_then(|r| r.try_to::<Rid>().ok()) else {
                continue;
            };
            let moving = matches!(
                ps.body_get_mode(rid),
                BodyMode::RIGID | BodyMode::RIGID_LINEAR | BodyMode::KINEMATIC
            );
            if moving && !self.noted.contains(&rid) {
                self.noted.push(rid);
            }
        }
    }

    /// Whether bodies wait for new ground.
    pub fn is_empty(&self) -> bool {
        self.noted.is_empty()
    }

    /// Whether a noted body stands over the tile `new` (then its old ground is worth reading).
    pub fn any_over(&self, new: &TileSurface) -> bool {
        let ps = PhysicsServer3D::singleton();
        self.noted.iter().any(|&rid| {
            body_transform(&ps, rid)
                .is_some_and(|xf| new.height_at(xf.origin.x, xf.origin.z).is_some())
        })
    }

    /// The noted bodies now over the tile `new` (whose ground was `old`: heights, width, depth and
    /// placement, which differ when the edit changed the tile's subdivision) are woken, lifted by the rise
    /// with `lift`, and forgotten.
    pub fn ground_changed(
        &mut self,
        new: &TileSurface,
        old: Option<(Vec<f32>, usize, usize, Transform3D)>,
        lift: bool,
    ) {
        let mut ps = PhysicsServer3D::singleton();
        let before = old.as_ref().map(|(h, w, d, xf)| TileSurface {
            heights: h,
            width: *w,
            depth: *d,
            xf: *xf,
        });
        let mut i = 0;
        while i < self.noted.len() {
            let rid = self.noted[i];
            let Some(xf) = body_transform(&ps, rid) else {
                // Freed meanwhile.
                self.noted.swap_remove(i);
                continue;
            };
            let Some(new_y) = new.height_at(xf.origin.x, xf.origin.z) else {
                i += 1;
                continue;
            };
            self.noted.swap_remove(i);
            if ps.body_get_mode(rid) != BodyMode::KINEMATIC {
                ps.body_set_state(rid, BodyState::SLEEPING, &false.to_variant());
            }
            let old_y = before
                .as_ref()
                .and_then(|b| b.height_at(xf.origin.x, xf.origin.z));
            let (true, Some(old_y)) = (lift, old_y) else {
                continue;
            };
            // Stood on (or above) the old ground, and the raise put its bottom under the new one.
            if new_y > old_y {
                if let Some(bottom) = body_bottom(&mut ps, rid, xf) {
                    if bottom >= old_y - BURIED && bottom < new_y {
                        lift_body(&mut ps, rid, new_y - old_y);
                    }
                }
            }
        }
    }

    /// Forgets the noted bodies (every edited tile is in place: those left were not over any).
    pub fn forget(&mut self) {
        self.noted.clear();
    }

    /// Frees the probe shape (the node left its world).
    pub fn clear(&mut self) {
        self.noted.clear();
        if let Some(p) = self.probe.take() {
            PhysicsServer3D::singleton().free_rid(p);
        }
    }
}

fn body_transform(ps: &Gd<PhysicsServer3D>, rid: Rid) -> Option<Transform3D> {
    if !rid.is_valid() || ps.body_get_space(rid) == Rid::Invalid {
        return None;
    }
    ps.body_get_state(rid, BodyState::TRANSFORM).try_to().ok()
}

/// Moves a body up by `rise`: through its node when it has one (a CharacterBody3D's position is its
/// node's), else on the server.
fn lift_body(ps: &mut Gd<PhysicsServer3D>, rid: Rid, rise: f32) {
    let id = ps.body_get_object_instance_id(rid);
    let node = InstanceId::try_from_i64(id as i64)
        .and_then(|id| Gd::<Node3D>::try_from_instance_id(id).ok());
    // A rigid body's node follows its server state; a kinematic one's server state follows its node.
    match node {
        Some(mut n) => {
            let p = n.get_global_position();
            n.set_global_position(p + Vector3::UP * rise);
        }
        None => {
            if let Some(mut xf) = body_transform(ps, rid) {
                xf.origin.y += rise;
                ps.body_set_state(rid, BodyState::TRANSFORM, &xf.to_variant());
            }
        }
    }
}

/// Lowest world Y of a body's shapes (body transform `xf`); None when no shape has a known extent.
fn body_bottom(ps: &mut Gd<PhysicsServer3D>, rid: Rid, xf: Transform3D) -> Option<f32> {
    let mut bottom: Option<f32> = None;
    for i in 0..ps.body_get_shape_count(rid) {
        let shape = ps.body_get_shape(rid, i);
        let Some(local) = shape_aabb(ps, shape) else {
            continue;
        };
        let at = xf * ps.body_get_shape_transform(rid, i);
        for k in 0..8 {
            let c = local.position
                + Vector3::new(
                    if k & 1 == 0 { 0.0 } else { local.size.x },
                    if k & 2 == 0 { 0.0 } else { local.size.y },
                    if k & 4 == 0 { 0.0 } else { local.size.z },
                );
            let y = (at * c).y;
            bottom = Some(bottom.map_or(y, |b: f32| b.min(y)));
        }
    }
    bottom
}

/// A shape's box in its own space, from its data (the shapes bodies stand on the ground with).
fn shape_aabb(ps: &mut Gd<PhysicsServer3D>, shape: Rid) -> Option<Aabb> {
    let data = ps.shape_get_data(shape);
    let centred = |h: Vector3| Some(Aabb::new(-h, h * 2.0));
    match ps.shape_get_type(shape) {
        ShapeType::SPHERE => {
            let r = data.try_to::<f32>().ok()?;
            centred(Vector3::splat(r))
        }
        ShapeType::BOX => centred(data.try_to::<Vector3>().ok()?),
        ShapeType::CAPSULE | ShapeType::CYLINDER => {
            let d = data.try_to::<VarDictionary>().ok()?;
            let r = d.get("radius")?.try_to::<f32>().ok()?;
            let h = d.get("height")?.try_to::<f32>().ok()?;
            centred(Vector3::new(r, h * 0.5, r))
        }
        ShapeType::CONVEX_POLYGON => {
            let pts = data.try_to::<PackedVector3Array>().ok()?;
            let first = *pts.as_slice().first()?;
            Some(
                pts.as_slice()
                    .iter()
                    .fold(Aabb::new(first, Vector3::ZERO), |a, p| a.expand(*p)),
            )
        }
        _ => None,
    }
}
