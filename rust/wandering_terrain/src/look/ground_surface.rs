//! What the ground is at a point, for gameplay (`get_surface`): the layer the shader draws most there (the
//! CPU twin of the blend, `terrain_core::material::layer_weights`), its `surface_name`, and the friction
//! and bounce of its `physics_material`.

use crate::look::terrain_material::TerrainMaterial;
use godot::classes::PhysicsMaterial;
use godot::prelude::*;
use terrain_core::samples::Samples;

/// The ground at a point.
pub struct Ground {
    /// The dominant layer (-1: no material, no layers, or a point off the terrain).
    pub layer: i64,
    /// Its `surface_name` (empty without one).
    pub name: StringName,
    pub friction: f64,
    pub bounce: f64,
}

impl Ground {
    /// The ground where no layer is known: the terrain collision's material (`fallback`) or Godot's
    /// defaults.
    fn plain(fallback: Option<Gd<PhysicsMaterial>>) -> Self {
        let (friction, bounce) = fallback.map_or((1.0, 0.0), |m| {
            (f64::from(m.get_friction()), f64::from(m.get_bounce()))
        });
        Self {
            layer: -1,
            name: StringName::default(),
            friction,
            bounce,
        }
    }

    /// As `get_surface` returns it, with `weights` (`get_layer_weights`).
    pub fn to_dictionary(&self, weights: PackedFloat32Array) -> VarDictionary {
        let mut d = VarDictionary::new();
        d.set("surface", &self.name);
        d.set("layer", self.layer);
        d.set("weights", &weights);
        d.set("friction", self.friction);
        d.set("bounce", self.bounce);
        d
    }
}

/// The layer drawn most at terrain X/Z (x, z) of `data` with `look` (strongest first; equal weights: the
/// one blended first, as the shader picks).
fn dominant(
    look: &TerrainMaterial,
    data: &dyn Samples,
    x: f64,
    z: f64,
    gs: [f32; 2],
) -> Option<usize> {
    let blend = terrain_core::material::layer_weights(look.blending_ref(), data, x, z, gs);
    blend.first().map(|&(layer, _)| layer)
}

/// The ground at terrain X/Z (x, z) of `data` (None: no source) drawn with `look`; `grad_scale` as
/// `weights_at`; `fallback`: the collision's physics material (asked only when a layer has none).
pub fn ground_at(
    look: Option<&Gd<TerrainMaterial>>,
    data: Option<&dyn Samples>,
    x: f64,
    z: f64,
    grad_scale: [f32; 2],
    fallback: impl Fn() -> Option<Gd<PhysicsMaterial>>,
) -> Ground {
    let (Some(look), Some(data)) = (look, data) else {
        return Ground::plain(fallback());
    };
    let look = look.bind();
    let Some(layer) = dominant(&look, data, x, z, grad_scale) else {
        return Ground::plain(fallback());
    };
    match look.layer(layer) {
        None => Ground {
            layer: layer as i64,
            ..Ground::plain(fallback())
        },
        Some(l) => {
            let l = l.bind();
            Ground {
                layer: layer as i64,
                name: l.surface_name(),
                ..Ground::plain(l.physics_material().or_else(fallback))
            }
        }
    }
}

/// `ground_at(..).name` alone: no physics material read (a footstep each frame).
pub fn surface_name_at(
    look: Option<&Gd<TerrainMaterial>>,
    data: Option<&dyn Samples>,
    x: f64,
    z: f64,
    grad_scale: [f32; 2],
) -> StringName {
    let (Some(look), Some(data)) = (look, data) else {
        return StringName::default();
    };
    let look = look.bind();
    dominant(&look, data, x, z, grad_scale)
        .map_or_else(StringName::default, |layer| look.surface_name(layer))
}

/// The layers' friction and bounce for the collision tiles (`collision_tiles.rs`); None when no layer of
/// `look` has a physics material (every tile then takes the collision's).
pub fn frictions(
    look: Option<&Gd<TerrainMaterial>>,
    grad_scale: [f32; 2],
) -> Option<crate::physics::collision_tiles::SurfaceFrictions> {
    let look = look?.bind();
    let layers: Vec<Option<(f32, f32)>> = (0..look.layer_count())
        .map(|i| {
            let m = look.layer(i)?.bind().physics_material()?;
            Some(crate::physics::collision_tiles::engine_params(Some(&m)))
        })
        .collect();
    layers
        .iter()
        .any(Option::is_some)
        .then(|| crate::physics::collision_tiles::SurfaceFrictions {
            blending: look.blending(),
            layers,
            grad_scale,
        })
}
