//! Collision tiles made visible, as Godot draws collision shapes when *Debug → Visible Collision Shapes*
//! is on (`SceneTree.debug_collisions_hint`): a line mesh per tile through exactly the heights handed to
//! the physics engine, placed with the shape's own transform, kept in step as tiles are written, edited,
//! moved and dropped. Nothing exists (and nothing is spent) when the hint is off.

use godot::classes::base_material_3d::ShadingMode;
use godot::classes::mesh::ArrayType;
use godot::classes::{ProjectSettings, RenderingServer, StandardMaterial3D};
use godot::prelude::*;
use terrain_core::collision::TileGrid;

/// One shown tile: its mesh and instance, where it is, and its vertices in the shape's space.
struct Shown {
    mesh: Rid,
    instance: Rid,
    xf: Transform3D,
    local: PackedVector3Array,
}

pub struct CollisionDebug {
    scenario: Rid,
    material: Gd<StandardMaterial3D>,
    slots: Vec<Option<Shown>>,
}

impl CollisionDebug {
    pub fn new(scenario: Rid) -> Self {
        let mut material = StandardMaterial3D::new_gd();
        material.set_shading_mode(ShadingMode::UNSHADED);
        let colour = ProjectSettings::singleton()
            .get_setting("debug/shapes/collision/shape_color")
            .try_to::<Color>()
            .unwrap_or(Color::from_rgba(0.0, 0.6, 0.7, 0.42));
        material.set_albedo(colour);
        material.set_transparency(godot::classes::base_material_3d::Transparency::ALPHA);
        Self {
            scenario,
            material,
            slots: Vec::new(),
        }
    }

    /// Shows slot `slot` as tile grid `g` placed by `xf` (the shape's transform in the body).
    pub fn show(&mut self, slot: usize, g: &TileGrid, xf: Transform3D) {
        let mut rs = RenderingServer::singleton();
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, || None);
        }
        let shown = self.slots[slot].get_or_insert_with(|| {
            let mesh = rs.mesh_create();
            let instance = rs.instance_create2(mesh, self.scenario);
            Shown {
                mesh,
                instance,
                xf,
                local: PackedVector3Array::new(),
            }
        });
        // A heightmap shape is centred on its origin, one unit between points.
        let (w, d) = (g.width, g.depth);
        let (ox, oz) = ((w as f32 - 1.0) * 0.5, (d as f32 - 1.0) * 0.5);
        let point =
            |i: usize, j: usize| Vector3::new(i as f32 - ox, g.heights[j * w + i], j as f32 - oz);
        let mut lines = PackedVector3Array::new();
        // Open ground (NaN: a hole, or beyond the terrain) has no lines.
        let mut segment = |a: Vector3, b: Vector3| {
            if a.y.is_finite() && b.y.is_finite() {
                lines.push(a);
                lines.push(b);
            }
        };
        for j in 0..d {
            for i in 0..w {
                if i + 1 < w {
                    segment(point(i, j), point(i + 1, j));
                }
                if j + 1 < d {
                    segment(point(i, j), point(i, j + 1));
                }
            }
        }
        let mut arrays = VarArray::new();
        arrays.resize(ArrayType::MAX.ord() as usize, &Variant::nil());
        arrays.set(ArrayType::VERTEX.ord() as usize, &lines.to_variant());
        rs.mesh_clear(shown.mesh);
        rs.mesh_add_surface_from_arrays(
            shown.mesh,
            godot::classes::rendering_server::PrimitiveType::LINES,
            &arrays,
        );
        rs.mesh_surface_set_material(shown.mesh, 0, self.material.get_rid());
        rs.instance_set_transform(shown.instance, xf);
        rs.instance_set_visible(shown.instance, true);
        shown.xf = xf;
        shown.local = (0..d)
            .flat_map(|j| (0..w).map(move |i| (i, j)))
            .map(|(i, j)| point(i, j))
            .filter(|p| p.y.is_finite())
            .collect();
    }

    /// Moves a shown slot (the node moved).
    pub fn place(&mut self, slot: usize, xf: Transform3D) {
        if let Some(Some(s)) = self.slots.get_mut(slot) {
            s.xf = xf;
            RenderingServer::singleton().instance_set_transform(s.instance, xf);
        }
    }

    /// Hides a slot (its tile was dropped).
    pub fn hide(&mut self, slot: usize) {
        if let Some(Some(s)) = self.slots.get_mut(slot) {
            RenderingServer::singleton().instance_set_visible(s.instance, false);
            s.local = PackedVector3Array::new();
        }
    }

    /// The grid points of every shown tile (open ground left out), in world space (the bodies' space).
    pub fn points(&self) -> PackedVector3Array {
        let mut out = PackedVector3Array::new();
        for s in self.slots.iter().flatten() {
            for p in s.local.as_slice() {
                out.push(s.xf * *p);
            }
        }
        out
    }
}

impl Drop for CollisionDebug {
    fn drop(&mut self) {
        let mut rs = RenderingServer::singleton();
        for s in self.slots.drain(..).flatten() {
            rs.free_rid(s.instance);
            rs.free_rid(s.mesh);
        }
    }
}
