//! `TerrainLayer`: one texture layer of a `TerrainMaterial` (blending in `terrain_core::material`).

use godot::classes::{PhysicsMaterial, Texture2D};
use godot::prelude::*;

/// One ground texture of a `TerrainMaterial`: albedo and normal map, a tint, how often it repeats, whether
/// it switches to triplanar projection on steep slopes, and an optional height band for auto-texturing
/// (height-band texturing: weight `clamp(1 - |h - centre| / width, 0, 1)`, normalised over the layers).
///
/// Every property refuses values outside its range with an error naming it and keeps the previous value;
/// any change emits `changed` (the material re-sends its parameters); a new texture also emits
/// `textures_changed` (the material rebuilds its texture arrays — only then).
#[derive(GodotClass)]
#[class(tool, init, base=Resource)]
pub struct TerrainLayer {
    /// A name for the editor's layer list.
    #[export]
    #[var(set = set_name)]
    name: GString,
    /// Colour texture (any format; resized to the material's `texture_size`). None: plain `albedo_color`.
    #[export]
    #[var(set = set_albedo_texture)]
    albedo_texture: Option<Gd<Texture2D>>,
    /// Normal map (OpenGL convention, green up, as Godot's). None: the terrain's own normal.
    #[export]
    #[var(set = set_normal_texture)]
    normal_texture: Option<Gd<Texture2D>>,
    /// Tint multiplied with the albedo texture (sRGB).
    #[export]
    #[var(set = set_albedo_color)]
    #[init(val = Color::WHITE)]
    albedo_color: Color,
    /// Surface roughness, [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_roughness)]
    #[init(val = 0.9)]
    roughness: f64,
    /// Texture repeats per world unit (0.1: one repeat every 10 units), [0.0001, 100].
    #[export(range = (0.0001, 100.0, 0.0001))]
    #[var(set = set_uv_scale)]
    #[init(val = 0.1)]
    uv_scale: f64,
    /// Project the texture from three sides where the ground is steeper than the material's
    /// `triplanar_slope` (cliffs do not stretch it).
    #[export]
    #[var(set = set_triplanar)]
    triplanar: bool,
    /// Auto-texturing band: (centre height, width) in terrain heights; width 0 (default) takes no part.
    /// Centre within ±1e7, width in [0, 1e7].
    #[export]
    #[var(set = set_height_band)]
    height_band: Vector2,
    /// What the ground is for gameplay where this layer dominates (`get_surface`): a name your footstep,
    /// dust or tyre code looks up, e.g. `&"grass"`, `&"rock"`, `&"ice"`. Empty: none given.
    #[export]
    #[export_group(name = "Surface")]
    #[var(set = set_surface_name)]
    surface_name: StringName,
    /// Friction and bounce where this layer dominates (`get_surface`); None: the terrain collision's
    /// `physics_material` (or Godot's defaults, friction 1 and bounce 0).
    #[export]
    #[var(set = set_physics_material)]
    physics_material: Option<Gd<PhysicsMaterial>>,
    /// Snow, mud, sand: where interactors pressed the ground (`TerrainInteractor`, the node's interaction
    /// field), this layer's drawn surface sinks by up to `deform_depth` and darkens by up to
    /// `deform_darken`, recovering with the field. Drawn only: heights, collision and `get_height` keep
    /// the undented ground (`get_trample` × `deform_depth` is the dent).
    #[export]
    #[export_group(name = "Deformation")]
    #[var(set = set_deformable)]
    deformable: bool,
    /// How deep a full press sinks the drawn surface (world units), [0, 4].
    #[export(range = (0.0, 4.0, 0.01))]
    #[var(set = set_deform_depth)]
    #[init(val = 0.1)]
    deform_depth: f64,
    /// How much a full press darkens the layer (0: not at all, 1: black), [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_deform_darken)]
    #[init(val = 0.3)]
    deform_darken: f64,
    base: Base<Resource>,
}

#[godot_api]
impl TerrainLayer {
    /// Emitted (before `changed`) when `albedo_texture` or `normal_texture` is replaced.
    #[signal]
    pub(crate) fn textures_changed();

    #[func]
    fn set_name(&mut self, v: GString) {
        self.name = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_albedo_texture(&mut self, v: Option<Gd<Texture2D>>) {
        self.albedo_texture = v;
        self.signals().textures_changed().emit();
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_normal_texture(&mut self, v: Option<Gd<Texture2D>>) {
        self.normal_texture = v;
        self.signals().textures_changed().emit();
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_albedo_color(&mut self, v: Color) {
        if ![v.r, v.g, v.b, v.a]
            .iter()
            .all(|c| (0.0..=16.0).contains(c))
        {
            godot_error!(
                "TerrainLayer.albedo_color components must be in [0, 16], got {v}; keeping {}",
                self.albedo_color
            );
            return;
        }
        self.albedo_color = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_roughness(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainLayer.roughness must be in [0, 1], got {v}; keeping {}",
                self.roughness
            );
            return;
        }
        self.roughness = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_uv_scale(&mut self, v: f64) {
        if !(1.0e-4..=100.0).contains(&v) {
            godot_error!(
                "TerrainLayer.uv_scale must be in [0.0001, 100] (repeats per world unit), got {v}; keeping {}",
                self.uv_scale
            );
            return;
        }
        self.uv_scale = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_triplanar(&mut self, v: bool) {
        self.triplanar = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_surface_name(&mut self, v: StringName) {
        self.surface_name = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_physics_material(&mut self, v: Option<Gd<PhysicsMaterial>>) {
        self.physics_material = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_deformable(&mut self, v: bool) {
        self.deformable = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_deform_depth(&mut self, v: f64) {
        if !(0.0..=4.0).contains(&v) {
            godot_error!(
                "TerrainLayer.deform_depth must be in [0, 4] (world units), got {v}; keeping {}",
                self.deform_depth
            );
            return;
        }
        self.deform_depth = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_deform_darken(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainLayer.deform_darken must be in [0, 1], got {v}; keeping {}",
                self.deform_darken
            );
            return;
        }
        self.deform_darken = v;
        self.base_mut().emit_changed();
    }
    #[func]
    fn set_height_band(&mut self, v: Vector2) {
        if !((-1.0e7..=1.0e7).contains(&v.x) && (0.0..=1.0e7).contains(&v.y)) {
            godot_error!(
                "TerrainLayer.height_band must be (centre in [-10000000, 10000000], width in [0, 10000000]), got {v}; keeping {}",
                self.height_band
            );
            return;
        }
        self.height_band = v;
        self.base_mut().emit_changed();
    }
}

impl TerrainLayer {
    pub fn surface_name(&self) -> StringName {
        self.surface_name.clone()
    }
    pub fn physics_material(&self) -> Option<Gd<PhysicsMaterial>> {
        self.physics_material.clone()
    }
    pub fn albedo_texture(&self) -> Option<Gd<Texture2D>> {
        self.albedo_texture.clone()
    }
    pub fn normal_texture(&self) -> Option<Gd<Texture2D>> {
        self.normal_texture.clone()
    }
    /// rgb tint (linear), a roughness.
    pub fn color(&self) -> Vector4 {
        let c = self.albedo_color.srgb_to_linear();
        Vector4::new(c.r, c.g, c.b, self.roughness as f32)
    }
    /// x repeats per unit, y triplanar, z band centre, w band width.
    /// Texture repeats per terrain unit.
    pub fn uv_scale(&self) -> f64 {
        self.uv_scale
    }

    /// (depth, darken) of a full press; zero unless deformable (the shader's `layer_deform`).
    pub fn deform(&self) -> Vector2 {
        if self.deformable {
            Vector2::new(self.deform_depth as f32, self.deform_darken as f32)
        } else {
            Vector2::ZERO
        }
    }

    pub fn params(&self) -> Vector4 {
        Vector4::new(
            self.uv_scale as f32,
            if self.triplanar { 1.0 } else { 0.0 },
            self.height_band.x,
            self.height_band.y,
        )
    }
}
