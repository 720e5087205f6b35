//! `debug_view` of both terrain nodes: a material of the node's debug shader (made of the shipped
//! includes, `terrain_debug.gdshaderinc`) drawn instead of the node's material while a view is chosen. The
//! node's material and its parameters stay as they are and both get the node's parameters, so switching back
//! is instant; nothing is made while the view is OFF.

use crate::look::terrain_material::{self, TerrainMaterial};
use godot::classes::ShaderMaterial;
use godot::prelude::*;

/// A terrain node's `debug_view`: numbered alike on both nodes (the `DEBUG_VIEW_*` constants, the
/// inspector's list), each with its name and what the debug shader draws for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugView {
    Off,
    Checker,
    Heightmap,
    Normals,
    Slope,
    Levels,
    Holes,
    LayerWeights,
    Control,
    Collision,
    Regions,
    Instances,
    Navigation,
    SurfaceCache,
}

impl DebugView {
    /// Every view, in `debug_view` order.
    pub const ALL: [DebugView; 14] = [
        Self::Off,
        Self::Checker,
        Self::Heightmap,
        Self::Normals,
        Self::Slope,
        Self::Levels,
        Self::Holes,
        Self::LayerWeights,
        Self::Control,
        Self::Collision,
        Self::Regions,
        Self::Instances,
        Self::Navigation,
        Self::SurfaceCache,
    ];

    /// The view numbered `v`, if there is one.
    pub fn of(v: i64) -> Option<Self> {
        Self::ALL.get(usize::try_from(v).ok()?).copied()
    }

    /// The constant's name without `DEBUG_VIEW_` (errors, docs).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Off => "OFF",
            Self::Checker => "CHECKER",
            Self::Heightmap => "HEIGHTMAP",
            Self::Normals => "NORMALS",
            Self::Slope => "SLOPE",
            Self::Levels => "LEVELS",
            Self::Holes => "HOLES",
            Self::LayerWeights => "LAYER_WEIGHTS",
            Self::Control => "CONTROL",
            Self::Collision => "COLLISION",
            Self::Regions => "REGIONS",
            Self::Instances => "INSTANCES",
            Self::Navigation => "NAVIGATION",
            Self::SurfaceCache => "SURFACE_CACHE",
        }
    }

    /// The debug shader's `debug_mode` (terrain_debug.gdshaderinc) and whether holes show.
    const fn shader_mode(self) -> (i32, bool) {
        match self {
            Self::Checker => (3, false),
            Self::Normals => (1, false),
            Self::Slope => (5, false),
            Self::Levels => (6, false),
            Self::Holes => (4, true),
            Self::LayerWeights => (7, false),
            Self::Control => (8, false),
            // Cells the node fills in every frame (`CellView`).
            Self::Collision | Self::Regions | Self::Instances => (9, false),
            // What meshes blend into: the surface cache's albedo (magenta where none covers the ground).
            Self::SurfaceCache => (10, false),
            // The heightmap (NAVIGATION draws its lines over it: `NavView`).
            Self::Off | Self::Heightmap | Self::Navigation => (4, false),
        }
    }
}

/// The inspector's list of the views (`debug_view`'s enum hint), in `ALL`'s order (a test checks it).
pub const HINT: &str = "Off,Checker,Heightmap,Normals,Slope,Levels,Holes,Layer Weights,Control,Collision,Regions,Instances,Navigation,Surface Cache";

/// The last view's number.
pub const LAST: i64 = DebugView::ALL.len() as i64 - 1;
/// The views drawn from cells the node fills in every frame (`CellView`), as numbers for matching.
pub const COLLISION: i64 = DebugView::Collision as i64;
pub const REGIONS: i64 = DebugView::Regions as i64;
pub const INSTANCES: i64 = DebugView::Instances as i64;
/// The faces a navigation bake takes, drawn as lines over the heightmap (`NavView`).
pub const NAVIGATION: i64 = DebugView::Navigation as i64;
/// Side of the cells view's window, in cells (centred on the target).
pub const CELLS: usize = 64;

/// Whether `value` is a view; else an error naming `property` and the range.
pub fn check(property: &str, value: i64, kept: i64) -> bool {
    let ok = DebugView::of(value).is_some();
    if !ok {
        let names: Vec<&str> = DebugView::ALL.iter().map(|v| v.name()).collect();
        godot_error!(
            "{property} must be in [0, {LAST}] ({}), got {value}; keeping {kept}",
            names.join(", ")
        );
    }
    ok
}

/// Makes, updates or drops (`view` 0) the debug material of `shader` in `slot`, with the node's height
/// range and look (the layer views blend with it).
pub fn show(
    slot: &mut Option<Gd<ShaderMaterial>>,
    view: i64,
    shader: &str,
    property: &str,
    range: Vector2,
    look: Option<&mut Gd<TerrainMaterial>>,
) {
    if view == 0 {
        *slot = None;
        return;
    }
    let (mode, holes) = DebugView::of(view).unwrap_or(DebugView::Off).shader_mode();
    let m = slot.get_or_insert_with(|| terrain_material::default_material(shader, property));
    m.set_shader_parameter("debug_mode", &mode.to_variant());
    m.set_shader_parameter("show_holes", &holes.to_variant());
    m.set_shader_parameter("debug_height_range", &range.to_variant());
    terrain_material::bind(look, Some(m));
}

/// The window of cells of the COLLISION and REGIONS views: one state per cell (see
/// `terrain_debug.gdshaderinc`), sent as an R8 texture when it changed.
#[derive(Default)]
pub struct CellView {
    states: Vec<u8>,
    sent: Vec<u8>,
    texture: Option<Gd<godot::classes::ImageTexture>>,
    placed: Option<([f64; 2], f64)>,
}

impl CellView {
    /// The states to fill: `CELLS`² row-major, cell (0, 0) first.
    pub fn states_mut(&mut self) -> &mut Vec<u8> {
        &mut self.states
    }

    /// Shows the filled states on `m`, the window's first cell having corner `origin` and side `size`
    /// (terrain units).
    pub fn show(&mut self, m: &mut Gd<ShaderMaterial>, origin: [f64; 2], size: f64) {
        use godot::classes::image::Format;
        use godot::classes::{Image, ImageTexture};
        self.states.resize(CELLS * CELLS, 0);
        if self.texture.is_none() || self.states != self.sent {
            self.sent.clone_from(&self.states);
            let bytes = PackedByteArray::from(self.states.as_slice());
            let n = CELLS as i32;
            let Some(img) = Image::create_from_data(n, n, false, Format::R8, &bytes) else {
                return;
            };
            match self.texture.as_mut() {
                Some(t) => t.update(&img),
                None => {
                    self.texture = ImageTexture::create_from_image(&img);
                    m.set_shader_parameter("debug_cells", &self.texture.to_variant());
                }
            }
        }
        if self.placed != Some((origin, size)) {
            self.placed = Some((origin, size));
            let o = Vector2::new(origin[0] as f32, origin[1] as f32);
            m.set_shader_parameter("debug_cell_origin", &o.to_variant());
            m.set_shader_parameter("debug_cell_size", &(size as f32).to_variant());
        }
    }

    /// No cells to show (no region map, no instancer, no collision yet): all grey, without borders.
    pub fn show_none(&mut self, m: &mut Gd<ShaderMaterial>) {
        self.states.clear();
        // One huge cell: every point maps inside it, and its borders are never on screen.
        self.show(m, [-5.0e8, -5.0e8], 1.0e9);
    }

    /// A new material: everything is sent again.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// The NAVIGATION view: the faces a navigation bake takes from the node (`get_navigation_faces`, tolerance
/// `NAV_TOLERANCE`) over `NAV_HALF` world units around the target's `NAV_STEP` cell, drawn as lines in an
/// internal child; made again when the target enters another cell or the terrain is edited.
#[derive(Default)]
pub struct NavView {
    lines: Option<Gd<godot::classes::MeshInstance3D>>,
    key: Option<(i64, i64, u64)>,
    /// Edits seen (the node counts them).
    pub edits: u64,
}

/// The NAVIGATION view's tolerance (NavigationMesh's default cell height), reach and step (world units).
pub const NAV_TOLERANCE: f64 = 0.25;
pub const NAV_HALF: f32 = 48.0;
pub const NAV_STEP: f32 = 32.0;
/// How far above the faces the lines are drawn (world units), so the ground does not hide them.
pub const NAV_LIFT: f32 = 0.05;

impl NavView {
    /// Whether lines are shown (so turning the view off drops them).
    pub fn is_shown(&self) -> bool {
        self.lines.is_some()
    }

    /// Shows (`on`) or drops the lines of `node` for a target at world `at`.
    pub fn update(
        &mut self,
        node: &mut Gd<godot::classes::Node3D>,
        host: &crate::surface::TerrainSurface,
        class: &str,
        at: Vector3,
        on: bool,
    ) {
        use godot::classes::base_material_3d::ShadingMode;
        use godot::classes::mesh::PrimitiveType;
        use godot::classes::node::InternalMode;
        use godot::classes::{ArrayMesh, MeshInstance3D, StandardMaterial3D};
        if !on {
            if let Some(mut l) = self.lines.take() {
                l.queue_free();
            }
            self.key = None;
            return;
        }
        let cell = |v: f32| (v / NAV_STEP).floor();
        let key = (cell(at.x) as i64, cell(at.z) as i64, self.edits);
        if self.key == Some(key) && self.lines.is_some() {
            return;
        }
        self.key = Some(key);
        let centre = Vector2::new((cell(at.x) + 0.5) * NAV_STEP, (cell(at.z) + 0.5) * NAV_STEP);
        let area = Aabb::new(
            Vector3::new(centre.x - NAV_HALF, -1.0e7, centre.y - NAV_HALF),
            Vector3::new(2.0 * NAV_HALF, 2.0e7, 2.0 * NAV_HALF),
        );
        let faces = crate::physics::navigation::faces_in(host, class, area, NAV_TOLERANCE);
        let lift = Vector3::new(0.0, NAV_LIFT, 0.0);
        let mut v = PackedVector3Array::new();
        for t in faces.as_slice().chunks_exact(3) {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                v.push(a + lift);
                v.push(b + lift);
            }
        }
        let lines = self.lines.get_or_insert_with(|| {
            let mut l = MeshInstance3D::new_alloc();
            l.set_as_top_level(true);
            l.set_cast_shadows_setting(
                godot::classes::geometry_instance_3d::ShadowCastingSetting::OFF,
            );
            let mut m = StandardMaterial3D::new_gd();
            m.set_shading_mode(ShadingMode::UNSHADED);
            m.set_albedo(Color::from_rgb(0.1, 0.9, 1.0));
            l.set_material_override(&m);
            l.set_transform(Transform3D::IDENTITY);
            // Deferred: adding a child now would notify the node while it runs this.
            node.call_deferred(
                "add_child",
                &[
                    l.to_variant(),
                    false.to_variant(),
                    InternalMode::BACK.to_variant(),
                ],
            );
            l
        });
        let mut mesh = ArrayMesh::new_gd();
        if !v.is_empty() {
            let mut arrays = VarArray::new();
            arrays.resize(
                godot::classes::mesh::ArrayType::MAX.ord() as usize,
                &Variant::nil(),
            );
            arrays.set(
                godot::classes::mesh::ArrayType::VERTEX.ord() as usize,
                &v.to_variant(),
            );
            mesh.add_surface_from_arrays(PrimitiveType::LINES, &arrays);
        }
        lines.set_mesh(&mesh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inspector_list_names_every_view_in_order() {
        let listed: Vec<String> = HINT
            .split(',')
            .map(|n| n.replace(' ', "_").to_uppercase())
            .collect();
        let names: Vec<&str> = DebugView::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(listed, names);
        for (i, v) in DebugView::ALL.iter().enumerate() {
            assert_eq!(*v as usize, i, "{v:?} is numbered by its place");
            assert_eq!(DebugView::of(i as i64), Some(*v));
        }
        assert_eq!(DebugView::of(LAST + 1), None);
        assert_eq!(DebugView::of(-1), None);
    }
}
