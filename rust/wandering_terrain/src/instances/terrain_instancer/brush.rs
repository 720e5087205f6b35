//! `TerrainInstancer.apply_brush`: the instance brush (INSTANCE_ADD, INSTANCE_REMOVE) and the detail
//! density brush (DETAIL_ADD, DETAIL_REMOVE, in `detail.rs`).

use super::{layer_rule, with_samples, TerrainInstancer};
use crate::data::terrain_brush::TerrainBrush;
use godot::prelude::*;
use terrain_core::brush::Tool;
use terrain_core::instances::{dab_add, dab_removes, Area};

#[godot_api(secondary)]
impl TerrainInstancer {
    /// One dab of an INSTANCE_ADD or INSTANCE_REMOVE brush at world X/Z `center` lasting `delta` seconds
    /// (its `mesh_index`, size, strength, falloff and image). Returns the world X/Z rectangle whose
    /// instances changed (empty: none).
    #[func]
    pub(crate) fn apply_brush(
        &mut self,
        brush: Option<Gd<TerrainBrush>>,
        center: Vector2,
        delta: f64,
    ) -> Rect2 {
        let none = Rect2::default();
        let Some(brush) = brush else {
            godot_error!("TerrainInstancer.apply_brush: brush is null");
            return none;
        };
        let b = brush.bind().core();
        if !(0.0..=10.0).contains(&delta) || !center.is_finite() {
            godot_error!("TerrainInstancer.apply_brush: delta must be in [0, 10] and center finite, got {delta}, {center}");
            return none;
        }
        let (mesh, erase) = match b.tool {
            Tool::Instances { mesh, erase } => (mesh, erase),
            Tool::Detail { layer, erase } => {
                return self.density_dab(&b, layer, erase, center, delta)
            }
            _ => {
                godot_error!("TerrainInstancer.apply_brush: the brush's tool must be INSTANCE_ADD, INSTANCE_REMOVE, DETAIL_ADD or DETAIL_REMOVE");
                return none;
            }
        };
        let Some(host) = self.host_or_error("apply_brush") else {
            return none;
        };
        let c = host.terrain_of(Vector3::new(center.x, 0.0, center.y));
        let scale = host.to_world.basis.get_scale();
        let (cx, cz) = (c[0], c[2]);
        // The brush is sized in world units; the dab works in terrain units.
        let sc = f64::from(scale.x.abs().max(1e-6));
        let radius = 0.5 * b.size() / sc;
        let amount = b.strength() * delta;
        self.dab_count += 1;
        let seed = self.dab_count ^ (cx.to_bits().rotate_left(17) ^ cz.to_bits());
        let area = Area {
            min: [cx - radius, cz - radius],
            max: [cx + radius, cz + radius],
        };
        let changed = if erase {
            let (n, cells) = self.with_store(|s| {
                s.remove_where(mesh, area, &mut |x, z| {
                    dab_removes(
                        amount,
                        seed,
                        b.weight_at((x - cx) * sc, (z - cz) * sc),
                        x,
                        z,
                    )
                })
            });
            self.touch(&cells);
            n
        } else {
            let Some(mesh) = mesh.filter(|&m| m < self.meshes.len()) else {
                godot_error!("TerrainInstancer.apply_brush: the brush's mesh_index must name one of the {} meshes", self.meshes.len());
                return none;
            };
            let (rules, layers) = self.rules_of(mesh);
            let mut existing = 0;
            if let Some(r) = self.instances.as_ref() {
                let r = r.bind();
                let rr = radius * radius;
                r.store().for_each_in(mesh, area, &mut |x, z, _| {
                    existing += usize::from((x - cx).powi(2) + (z - cz).powi(2) < rr);
                });
            }
            let water = self.water();
            let ps = with_samples(&host, |s| {
                let allowed =
                    super::water_rule(layer_rule(&host, s, &layers), water, rules.placement, s);
                let shaped =
                    |x: f64, z: f64| b.weight_at((x - cx) * sc, (z - cz) * sc) * allowed(x, z);
                dab_add(&rules, s, [cx, cz], radius, existing, amount, seed, &shaped)
            });
            self.add_placements(&host, mesh, &ps)
        };
        if changed == 0 {
            return none;
        }
        let lo = host.world_of([area.min[0], 0.0, area.min[1]]);
        let hi = host.world_of([area.max[0], 0.0, area.max[1]]);
        Rect2::new(
            Vector2::new(lo.x.min(hi.x), lo.z.min(hi.z)),
            Vector2::new((hi.x - lo.x).abs(), (hi.z - lo.z).abs()),
        )
    }
}
