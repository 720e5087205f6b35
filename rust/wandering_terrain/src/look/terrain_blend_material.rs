//! `TerrainBlendMaterial`: a ready-made material for rocks, walls and trunks that grow out of the ground
//! (`terrain_blend.gdshader` over the surface cache, `surface_cache.rs`).

use godot::classes::{IShaderMaterial, Shader, ShaderMaterial, Texture2D};
use godot::prelude::*;

const SHADER: &str = "res://addons/wandering_terrain/shaders/terrain_blend.gdshader";

/// A lit material (albedo colour and texture, roughness, normal map) whose lower part takes on the
/// terrain under it: colour, normal and roughness blend toward the ground's over `blend_height` above the
/// exact terrain surface, so a rock or a wall shows no seam where it meets the ground. Reads the surface
/// cache of the scene's terrain (`surface_cache_enabled` of a TerrainNode or WanderingTerrain); without
/// one it draws as without the blend.
/// For your own shaders: `#include "res://addons/wandering_terrain/shaders/terrain_surface.gdshaderinc"`.
#[derive(GodotClass)]
#[class(tool, base=ShaderMaterial)]
pub struct TerrainBlendMaterial {
    /// The mesh's colour (multiplies `albedo_texture`).
    #[export]
    #[var(set = set_albedo_color)]
    albedo_color: Color,
    /// The mesh's texture (multiplied by `albedo_color`); none: the colour alone.
    #[export]
    #[var(set = set_albedo_texture)]
    albedo_texture: Option<Gd<Texture2D>>,
    /// [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_roughness)]
    roughness: f64,
    /// A tangent-space normal map (OpenGL convention, green up); none: the mesh's own normals.
    #[export]
    #[var(set = set_normal_texture)]
    normal_texture: Option<Gd<Texture2D>>,
    /// Strength of `normal_texture`, [-16, 16].
    #[export(range = (-16.0, 16.0, 0.01))]
    #[var(set = set_normal_scale)]
    normal_scale: f64,
    /// UV scale of the textures (x, y used), each in [-1e4, 1e4].
    #[export]
    #[var(set = set_uv1_scale)]
    uv1_scale: Vector3,
    /// Blend into the ground (off: a plain material).
    #[export]
    #[export_group(name = "Terrain blend")]
    #[var(set = set_blend_enabled)]
    blend_enabled: bool,
    /// Height above the terrain surface (world units) over which the mesh takes on the ground, [0.001, 1e6].
    #[export(range = (0.01, 1000.0, 0.01, or_greater))]
    #[var(set = set_blend_height)]
    blend_height: f64,
    /// 0: the blend spreads over all of `blend_height`; 1: nearly a hard line at half of it. [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_blend_sharpness)]
    blend_sharpness: f64,
    base: Base<ShaderMaterial>,
}

#[godot_api]
impl IShaderMaterial for TerrainBlendMaterial {
    fn init(base: Base<ShaderMaterial>) -> Self {
        // The editor's documentation makes one on a worker thread for its defaults: no loading there.
        if crate::on_main_thread() {
            // Its shader reads the terrain's global uniforms.
            crate::register_globals();
            match try_load::<Shader>(SHADER) {
                Ok(s) => base.to_init_gd().set_shader(&s),
                Err(e) => godot_error!("TerrainBlendMaterial: cannot load {SHADER}: {e}"),
            }
        }
        Self {
            albedo_color: Color::WHITE,
            albedo_texture: None,
            roughness: 1.0,
            normal_texture: None,
            normal_scale: 1.0,
            uv1_scale: Vector3::ONE,
            blend_enabled: true,
            blend_height: 0.5,
            blend_sharpness: 0.5,
            base,
        }
    }

    // Material's virtuals for script-made materials; ShaderMaterial answers these itself.
    fn get_shader_rid(&self) -> Rid {
        self.base()
            .get_shader()
            .map_or(Rid::Invalid, |s| s.get_rid())
    }

    fn get_shader_mode(&self) -> godot::classes::shader::Mode {
        godot::classes::shader::Mode::SPATIAL
    }
}

/// `v` if inside `lo..=hi` (and finite), else an error naming the property and the range.
fn in_range(name: &str, v: f64, lo: f64, hi: f64) -> Option<f64> {
    if (lo..=hi).contains(&v) {
        Some(v)
    } else {
        godot_error!(
            "TerrainBlendMaterial.{name} must be in [{lo}, {hi}], got {v}; keeping the previous value"
        );
        None
    }
}

#[godot_api]
impl TerrainBlendMaterial {
    fn param(&mut self, name: &str, v: Variant) {
        self.base_mut().set_shader_parameter(name, &v);
    }

    #[func]
    fn set_albedo_color(&mut self, v: Color) {
        self.albedo_color = v;
        self.param("albedo_color", v.to_variant());
    }

    #[func]
    fn set_albedo_texture(&mut self, v: Option<Gd<Texture2D>>) {
        self.param("albedo_texture", v.to_variant());
        self.albedo_texture = v;
    }

    #[func]
    fn set_roughness(&mut self, v: f64) {
        if let Some(v) = in_range("roughness", v, 0.0, 1.0) {
            self.roughness = v;
            self.param("roughness", (v as f32).to_variant());
        }
    }

    #[func]
    fn set_normal_texture(&mut self, v: Option<Gd<Texture2D>>) {
        self.param("use_normal_texture", v.is_some().to_variant());
        self.param("normal_texture", v.to_variant());
        self.normal_texture = v;
    }

    #[func]
    fn set_normal_scale(&mut self, v: f64) {
        if let Some(v) = in_range("normal_scale", v, -16.0, 16.0) {
            self.normal_scale = v;
            self.param("normal_scale", (v as f32).to_variant());
        }
    }

    #[func]
    fn set_uv1_scale(&mut self, v: Vector3) {
        let ok = [v.x, v.y, v.z].iter().all(|c| (-1e4..=1e4).contains(c));
        if !ok {
            godot_error!(
                "TerrainBlendMaterial.uv1_scale components must be in [-1e4, 1e4], got {v}; keeping the previous value"
            );
            return;
        }
        self.uv1_scale = v;
        self.param("uv1_scale", v.to_variant());
    }

    #[func]
    fn set_blend_enabled(&mut self, v: bool) {
        self.blend_enabled = v;
        self.param("blend_enabled", v.to_variant());
    }

    #[func]
    fn set_blend_height(&mut self, v: f64) {
        // Below 1 mm the blend divides by almost nothing; the shader needs a positive f32.
        if let Some(v) = in_range("blend_height", v, 0.001, 1e6) {
            self.blend_height = v;
            self.param("blend_height", (v as f32).to_variant());
        }
    }

    #[func]
    fn set_blend_sharpness(&mut self, v: f64) {
        if let Some(v) = in_range("blend_sharpness", v, 0.0, 1.0) {
            self.blend_sharpness = v;
            self.param("blend_sharpness", (v as f32).to_variant());
        }
    }
}
