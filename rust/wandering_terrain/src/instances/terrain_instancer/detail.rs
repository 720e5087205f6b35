//! `TerrainInstancer`'s detail layers: resolving them against the parent terrain, the frame update of their
//! cells (`detail_cells`), the detail API and the density brush.

use super::{area_arg, with_samples, TerrainInstancer};
use crate::instances::detail_cells::{self, Frame};
use crate::surface::TerrainSurface;
use godot::prelude::*;
use terrain_core::detail::Ground;
use terrain_core::instances::Area;

#[godot_api(secondary)]
impl TerrainInstancer {
    /// A detail layer changed: its cells grow again.
    pub(super) fn on_detail_changed(&mut self) {
        self.detail.clear();
        self.detail_stale = true;
    }

    /// World transforms of the detail of `layer_index` inside the world X/Z `area`, as the terrain is now:
    /// exactly what is drawn where the area is within the layer's view radius (the detail is a pure
    /// function of the ground, the rules and the seed). At most 1,000,000.
    #[func]
    fn get_detail_transforms(&self, layer_index: i64, area: Rect2) -> Array<Transform3D> {
        let mut out = Array::new();
        let Some(host) = self.host_or_error("get_detail_transforms") else {
            return out;
        };
        let Some(area) = area_arg("get_detail_transforms", area, &host) else {
            return out;
        };
        // The layer as it is now (its `changed` reaches the drawn cells at the end of the frame).
        let n = self.detail_layers.len();
        let Some(layer) = usize::try_from(layer_index).ok().filter(|&i| i < n) else {
            godot_error!("TerrainInstancer.get_detail_transforms: layer_index must be in [0, {}] (the detail layers), got {layer_index}", n as i64 - 1);
            return out;
        };
        let Some(l) = self.detail_layers.at(layer) else {
            return out;
        };
        let core = match l.bind().core(host.to_world, self.ground(&host, layer)) {
            Ok((core, ..)) => core,
            Err(e) => {
                godot_error!("TerrainInstancer.get_detail_transforms: detail_layers[{layer}]: {e}");
                return out;
            }
        };
        const LIMIT: usize = 1_000_000;
        let far = terrain_core::detail::MAX_COORDINATE;
        if area.min.iter().chain(&area.max).any(|v| v.abs() > far) {
            godot_error!("TerrainInstancer.get_detail_transforms: area must lie within ±{far} terrain units, got {area:?}");
            return out;
        }
        let clipped = with_samples(&host, |s| terrain_core::detail::clip(s, area));
        if terrain_core::detail::candidates_in(&core, clipped)
            > terrain_core::detail::MAX_CANDIDATES
        {
            godot_error!("TerrainInstancer.get_detail_transforms: the area covers more than {} candidate points of the layer; ask for a smaller area", terrain_core::detail::MAX_CANDIDATES);
            return out;
        }
        let ts = with_samples(&host, |s| {
            detail_cells::transforms_in(&core, s, area, &host.frame, LIMIT + 1)
        });
        if ts.len() > LIMIT {
            godot_error!("TerrainInstancer.get_detail_transforms: more than {LIMIT} instances in the area; returning the first {LIMIT}");
        }
        for t in ts.into_iter().take(LIMIT) {
            out.push(t);
        }
        out
    }

    /// Detail instances of `layer_index` on the GPU now.
    #[func]
    fn get_detail_drawn_count(&self, layer_index: i64) -> i64 {
        usize::try_from(layer_index).map_or(0, |i| self.detail.drawn_count(i) as i64)
    }

    /// World transforms of the detail of `layer_index` as its MultiMeshes hold them (read back from the
    /// RenderingServer: slow; for tests and debugging).
    #[func]
    fn get_detail_drawn_transforms(&self, layer_index: i64) -> Array<Transform3D> {
        usize::try_from(layer_index)
            .map(|i| self.detail.drawn_transforms(i).into_iter().collect())
            .unwrap_or_default()
    }

    /// For each detail cell shown since the last call: the frames it took from coming into view (within a
    /// layer's radius) to being drawn (0: the same frame).
    #[func]
    fn take_detail_latencies(&mut self) -> PackedInt32Array {
        self.detail
            .take_latencies()
            .into_iter()
            .map(|v| v as i32)
            .collect()
    }

    /// Detail cells with a MultiMesh on the GPU (every layer).
    #[func]
    fn get_detail_cell_count(&self) -> i64 {
        self.detail.gpu_cells() as i64
    }

    /// Bytes of detail instance buffers: [on the GPU, on the CPU waiting to be shown].
    #[func]
    fn get_detail_memory(&self) -> PackedInt64Array {
        self.detail.memory().iter().map(|&v| v as i64).collect()
    }
}

impl TerrainInstancer {
    /// The terrain's water (a water node beside this instancer: the contract's `water_of`), as last
    /// computed.
    pub(super) fn water(&self) -> Option<std::sync::Arc<terrain_core::water::WaterLevels>> {
        self.base()
            .get_parent()
            .and_then(|p| crate::surface::water_of(&p))
    }

    /// Detail's frame: its layers resolved when stale, then its cells (`detail_cells`).
    pub(super) fn update_detail(&mut self, host: &TerrainSurface, wait: bool) -> bool {
        // New water (computed again, or another): the layers grow again by their water rules.
        let water = self.water().map(|w| std::sync::Arc::as_ptr(&w) as usize);
        if water != self.detail_water {
            self.detail_water = water;
            self.detail_stale = true;
        }
        let material = host.material.as_ref().map(|m| m.instance_id());
        if self.detail_stale || material != self.detail_material {
            self.detail_stale = false;
            if material != self.detail_material {
                // The material's tints and bands are the layer rule's: its edits regrow detail.
                let me = self.to_gd();
                self.detail_material_links
                    .replace(host.material.iter().map(|m| {
                        m.signals()
                            .changed()
                            .builder()
                            .flags(crate::follow::flags(true))
                            .connect(crate::follow::weak(&me, Self::on_detail_changed))
                    }));
            }
            self.detail_material = material;
            let layers = self.resolve_detail(host);
            self.detail.set_layers(layers);
        }
        let Some(surface) = host.surface.as_ref().filter(|_| self.detail.has_layers()) else {
            return false;
        };
        let frame = Frame {
            viewer: self.viewer(host),
            surface,
            scenario: self
                .base()
                .get_world_3d()
                .map(|w| w.get_scenario())
                .unwrap_or(Rid::Invalid),
            placement: self.frame,
            visible: self.base().is_visible_in_tree(),
        };
        self.detail.update(&frame, wait)
    }

    /// What the ground says of detail layer `layer`: the terrain material's blending and layer tints, and
    /// the density painted on the layer.
    pub(super) fn ground(&self, host: &TerrainSurface, layer: usize) -> Ground {
        Ground {
            blending: host.material.as_ref().map(|m| m.bind().blending()),
            grad_scale: host.grad_scale,
            allowed: Vec::new(),
            tints: host
                .material
                .as_ref()
                .map(|m| m.bind().tints())
                .unwrap_or_default(),
            density: self
                .instances
                .as_ref()
                .map(|r| r.bind().density(layer))
                .unwrap_or_default(),
            water: self.water(),
        }
    }

    /// A DETAIL_ADD / DETAIL_REMOVE dab: detail layer `layer`'s painted density moves up or down under the
    /// brush, and the cells under it grow again. Returns the world rectangle that changed.
    pub(super) fn density_dab(
        &mut self,
        b: &terrain_core::brush::Brush,
        layer: Option<usize>,
        erase: bool,
        center: Vector2,
        delta: f64,
    ) -> Rect2 {
        let n = self.detail_layers.len();
        let most = n.min(terrain_core::detail::density::MAX_LAYERS);
        let Some(layer) = layer.filter(|&l| l < most) else {
            godot_error!("TerrainInstancer.apply_brush: the brush's mesh_index must name one of the {n} detail layers (the first {} can be painted)", terrain_core::detail::density::MAX_LAYERS);
            return Rect2::default();
        };
        let Some(host) = self.host_or_error("apply_brush") else {
            return Rect2::default();
        };
        let sp = with_samples(&host, |s| s.spacing());
        let c = host.terrain_of(Vector3::new(center.x, 0.0, center.y));
        let sc = f64::from(host.to_world.basis.get_scale().x.abs().max(1e-6));
        // The brush is sized in world units; the map is in samples.
        let radius = 0.5 * b.size() / sc / sp;
        if radius > terrain_core::detail::density::MAX_DAB_RADIUS {
            godot_error!("TerrainInstancer.apply_brush: a detail-density brush may be at most {} terrain samples wide, got {:.0}", 2.0 * terrain_core::detail::density::MAX_DAB_RADIUS, 2.0 * radius);
            return Rect2::default();
        }
        let at = [c[0] / sp, c[2] / sp];
        let weight = |dx: f64, dz: f64| b.weight_at(dx * sp * sc, dz * sp * sc);
        let touched = self.with_store_resource(|r| {
            let map = r.density_mut(layer);
            terrain_core::detail::density::dab(
                map,
                at,
                radius,
                b.strength() * delta,
                erase,
                &weight,
            )
        });
        let Some([x0, z0, w, d]) = touched else {
            return Rect2::default();
        };
        let area = Area {
            min: [x0 as f64 * sp, z0 as f64 * sp],
            max: [(x0 + w) as f64 * sp, (z0 + d) as f64 * sp],
        };
        let density = self
            .instances
            .as_ref()
            .map(|r| r.bind().density(layer))
            .unwrap_or_default();
        self.detail.set_density(layer, density, area);
        let lo = host.world_of([area.min[0], 0.0, area.min[1]]);
        let hi = host.world_of([area.max[0], 0.0, area.max[1]]);
        Rect2::new(
            Vector2::new(lo.x.min(hi.x), lo.z.min(hi.z)),
            Vector2::new((hi.x - lo.x).abs(), (hi.z - lo.z).abs()),
        )
    }

    /// The detail layers in terrain space, with the terrain material's blending and tints (a layer that
    /// cannot grow on this terrain's scale is skipped with an error). Layer rules that match everything (no
    /// TerrainMaterial to read) or nothing (layers the material lacks) are said once here (each time the layers or the material change), not every frame.
    pub(super) fn resolve_detail(
        &self,
        host: &TerrainSurface,
    ) -> Vec<(
        usize,
        crate::instances::terrain_detail_layer::ResolvedDetail,
    )> {
        let layer_count = host.material.as_ref().map(|m| m.bind().layer_count());
        for m in self
            .layer_rule_problems(layer_count)
            .into_iter()
            .filter(|m| m.starts_with("detail_layers"))
        {
            godot_warn!("TerrainInstancer.{m}");
        }
        self.detail_layers
            .iter_shared()
            .enumerate()
            .filter_map(|(i, l)| l.map(|l| (i, l)))
            .filter_map(
                |(i, l)| match l.bind().resolve(host.to_world, self.ground(host, i)) {
                    Ok(r) => Some((i, r)),
                    Err(e) => {
                        godot_error!("TerrainInstancer.detail_layers[{i}]: {e}; not drawn");
                        None
                    }
                },
            )
            .collect()
    }

    /// The meshes and detail layers whose `layers` rule names texture layers: without a TerrainMaterial on
    /// the terrain there are none to read, and they stand everywhere their other rules allow.
    /// What the layer rules of the detail layers and meshes cannot match: every rule without a
    /// TerrainMaterial (`layer_count` None: they grow everywhere), rules naming only layers the material
    /// lacks (they grow nowhere).
    pub(super) fn layer_rule_problems(&self, layer_count: Option<usize>) -> Vec<String> {
        let detail = self
            .detail_layers
            .iter_shared()
            .map(|l| l.map(|l| l.bind().allowed_layers()));
        let meshes = self
            .meshes
            .iter_shared()
            .map(|m| m.map(|m| m.bind().allowed_layers()));
        let rules = detail
            .enumerate()
            .map(|(i, w)| (format!("detail_layers[{i}]"), "grows", w))
            .chain(
                meshes
                    .enumerate()
                    .map(|(i, w)| (format!("meshes[{i}]"), "stands", w)),
            );
        let mut out = Vec::new();
        for (what, verb, wanted) in rules {
            let Some(wanted) = wanted.filter(|w| !w.is_empty()) else {
                continue;
            };
            match layer_count {
                None => out.push(format!("{what} {verb} only on texture layers {wanted:?}, but the terrain has no TerrainMaterial: it {verb} everywhere its other rules allow. Give the terrain a terrain_material, or clear `layers`.")),
                Some(n) if wanted.iter().all(|&l| l >= n) => out.push(format!("{what} {verb} only on texture layers {wanted:?}, but the terrain's TerrainMaterial has {n} layers (indices 0 to {}): it {verb} nowhere. Name layers the material has in `layers`, or clear it.", n as i64 - 1)),
                Some(_) => {}
            }
        }
        out
    }
}
