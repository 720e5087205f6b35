//! The placement rules' face for the instancer's meshes and detail layers: the layer rule (the share of
//! the ground made of the allowed texture layers), the water rule, and a mesh's rules.

use super::*;

/// The surface's samples, for one call (`host_or_error` made sure there is a surface).
pub(super) fn with_samples<R>(
    host: &TerrainSurface,
    f: impl FnOnce(&(dyn Samples + Send)) -> R,
) -> R {
    match &host.surface {
        Some(s) => s.with_samples(f),
        None => unreachable!("checked by host_or_error"),
    }
}

/// The share of the ground at terrain (x, z) made of `layers` (1 without a layer rule or a material).
pub(super) fn layer_rule<'a>(
    host: &'a TerrainSurface,
    s: &'a (dyn Samples + Send),
    layers: &'a [usize],
) -> impl Fn(f64, f64) -> f32 + Sync + 'a {
    let blending = host.material.as_ref().map(|m| m.bind().blending());
    let grad = host.grad_scale;
    move |x, z| match (&blending, layers.is_empty()) {
        (Some(b), false) => layer_weights(b, s, x, z, grad)
            .iter()
            .filter(|(l, _)| layers.contains(l))
            .map(|e| e.1)
            .sum(),
        _ => 1.0,
    }
}

/// `allowed` where the placement rules' water rule lets an instance stand (the ground under `water`'s
/// surface, or dry), 0 elsewhere.
pub(super) fn water_rule<'a>(
    allowed: impl Fn(f64, f64) -> f32 + Sync + 'a,
    water: Option<std::sync::Arc<terrain_core::water::WaterLevels>>,
    p: terrain_core::placement_rules::PlacementRules,
    s: &'a (dyn Samples + Send),
) -> impl Fn(f64, f64) -> f32 + Sync + 'a {
    move |x, z| {
        let depth = water
            .as_ref()
            .and_then(|w| w.depth_at(x, z, terrain_core::samples::height_at(s, x, z)));
        if p.allows_water(depth) {
            allowed(x, z)
        } else {
            0.0
        }
    }
}

impl TerrainInstancer {
    pub(super) fn rules_of(&self, mesh: usize) -> (instances::Rules, Vec<usize>) {
        match self.meshes.at(mesh) {
            Some(m) => {
                let m = m.bind();
                (m.rules(), m.allowed_layers())
            }
            // An empty slot: rules that place nothing.
            None => (
                instances::Rules {
                    density: 0.0,
                    ..Default::default()
                },
                Vec::new(),
            ),
        }
    }
}
