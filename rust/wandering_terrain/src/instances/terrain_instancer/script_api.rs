//! The instancer's script API: adding, removing, reading and scattering instances, their cells' data,
//! and what is drawn and collided now.

use super::*;

#[godot_api(secondary)]
impl TerrainInstancer {
    /// Adds instances of `mesh_index` at world transforms (their height above the ground is kept from then
    /// on). Transforms outside the terrain are skipped. Returns how many were added.
    #[func]
    fn add_instances(&mut self, mesh_index: i64, transforms: Array<Transform3D>) -> i64 {
        let Some(mesh) = self.mesh_arg("add_instances", mesh_index, false).flatten() else {
            return 0;
        };
        let Some(host) = self.host_or_error("add_instances") else {
            return 0;
        };
        let ps: Vec<Placement> = transforms
            .iter_shared()
            .map(|t| {
                let (basis, pos) = host.terrain_transform(t);
                let q = basis.orthonormalized().get_quaternion();
                let s = basis.get_scale();
                Placement {
                    pos,
                    rot: glam::Quat::from_xyzw(q.x, q.y, q.z, q.w),
                    scale: [s.x, s.y, s.z],
                }
            })
            .collect();
        self.add_placements(&host, mesh, &ps) as i64
    }

    /// Removes the instances of `mesh_index` (-1: every mesh) inside the world X/Z `area`. Returns how many.
    #[func]
    fn remove_instances(&mut self, mesh_index: i64, area: Rect2) -> i64 {
        let (Some(mesh), Some(host)) = (
            self.mesh_arg("remove_instances", mesh_index, true),
            self.host_or_error("remove_instances"),
        ) else {
            return 0;
        };
        let Some(area) = area_arg("remove_instances", area, &host) else {
            return 0;
        };
        let (n, cells) = self.with_store(|s| s.remove(mesh, area));
        self.touch(&cells);
        n as i64
    }

    /// World transforms of the instances of `mesh_index` inside the world X/Z `area`, standing on the
    /// ground as it is now (instances over holes included: they are kept, only not drawn).
    #[func]
    fn get_instances(&self, mesh_index: i64, area: Rect2) -> Array<Transform3D> {
        let mut out = Array::new();
        let (Some(mesh), Some(host)) = (
            self.mesh_arg("get_instances", mesh_index, false).flatten(),
            self.host_or_error("get_instances"),
        ) else {
            return out;
        };
        let Some(area) = area_arg("get_instances", area, &host) else {
            return out;
        };
        let Some(res) = self.instances.as_ref() else {
            return out;
        };
        let res = res.bind();
        with_samples(&host, |s| {
            res.store().for_each_in(mesh, area, &mut |x, z, i| {
                let g = instances::ground_of(s, x, z).unwrap_or(f32::NAN);
                let b = i.basis();
                let basis = Basis::from_cols(
                    Vector3::from_array(b.x_axis.to_array()),
                    Vector3::from_array(b.y_axis.to_array()),
                    Vector3::from_array(b.z_axis.to_array()),
                );
                let y = f64::from(g + i.offset);
                out.push(host.world_transform(basis, [x, y, z]));
            });
        });
        out
    }

    /// Instances of `mesh_index` (-1: every mesh) stored, drawn or not.
    #[func]
    fn get_instance_count(&self, mesh_index: i64) -> i64 {
        let Some(res) = self.instances.as_ref() else {
            return 0;
        };
        let s = res.bind();
        match usize::try_from(mesh_index) {
            Ok(m) => s.store().count(m) as i64,
            Err(_) => s.store().total() as i64,
        }
    }

    /// Places `count` instances of `mesh_index` at random points of the world X/Z `area` that pass the
    /// mesh's rules (on the terrain, slope, layers, no holes), with its scale, yaw, alignment and offset.
    /// Points that fail are skipped and others drawn, up to 4 × `count` points in all, so where most of the
    /// area is refused (off a finite terrain, too steep) fewer are placed: the return is how many were.
    /// Deterministic: the same seed and terrain give the same transforms on
    /// every machine. Instances already there stay, so a second call adds more; with `replace` true the
    /// mesh's instances inside `area` are removed first, so the same call gives the same instances however
    /// often it runs (a `scatter` in `_ready`).
    #[func]
    fn scatter(
        &mut self,
        mesh_index: i64,
        area: Rect2,
        count: i64,
        seed: i64,
        #[opt(default = false)] replace: bool,
    ) -> i64 {
        let (Some(mesh), Some(host)) = (
            self.mesh_arg("scatter", mesh_index, false).flatten(),
            self.host_or_error("scatter"),
        ) else {
            return 0;
        };
        let Some(area) = area_arg("scatter", area, &host) else {
            return 0;
        };
        if !(0..=10_000_000).contains(&count) {
            godot_error!("TerrainInstancer.scatter: count must be in [0, 10000000], got {count}");
            return 0;
        }
        if replace {
            let (_, cells) = self.with_store(|s| s.remove(Some(mesh), area));
            self.touch(&cells);
        }
        let (rules, layers) = self.rules_of(mesh);
        let water = self.water();
        let ps = with_samples(&host, |s| {
            let allowed = water_rule(layer_rule(&host, s, &layers), water, rules.placement, s);
            scatter(&rules, s, area, count as usize, seed as u64, &allowed)
        });
        self.add_placements(&host, mesh, &ps) as i64
    }

    /// Keys of the cells (stored or empty) overlapping the world X/Z `area` (at most 65536): the units of
    /// `get_cells_data` / `set_cells_data`, as the editor's undo keeps them.
    #[func]
    pub(crate) fn get_cell_keys(&self, area: Rect2) -> Array<Vector2i> {
        let host = self.host_or_error("get_cell_keys");
        let (Some(area), Some(res)) = (
            host.and_then(|h| area_arg("get_cell_keys", area, &h)),
            self.instances.as_ref(),
        ) else {
            return Array::new();
        };
        match res.bind().store().keys_over(area, 65536) {
            Some(keys) => keys.into_iter().map(|(x, z)| Vector2i::new(x, z)).collect(),
            None => {
                godot_error!("TerrainInstancer.get_cell_keys: area covers more than 65536 cells");
                Array::new()
            }
        }
    }

    /// The instances of cells `keys` (TerrainInstances' byte format).
    #[func]
    pub(crate) fn get_cells_data(&self, keys: Array<Vector2i>) -> PackedByteArray {
        let Some(res) = self.instances.as_ref() else {
            return PackedByteArray::new();
        };
        let keys: Vec<CellKey> = keys.iter_shared().map(|k| (k.x, k.y)).collect();
        PackedByteArray::from(res.bind().store().extract_cells(&keys).to_bytes())
    }

    /// Cells `keys` get the instances of `data` (from `get_cells_data`; cells absent there become empty).
    #[func]
    pub(crate) fn set_cells_data(&mut self, keys: Array<Vector2i>, data: PackedByteArray) {
        let other = match InstanceStore::from_bytes(data.as_slice()) {
            Ok(o) => o,
            Err(e) => {
                godot_error!("TerrainInstancer.set_cells_data: {e}");
                return;
            }
        };
        let keys: Vec<CellKey> = keys.iter_shared().map(|k| (k.x, k.y)).collect();
        let same = self.with_store(|s| {
            let ok = s.cell_size() == other.cell_size();
            if ok {
                s.replace_cells(&keys, &other);
            }
            ok
        });
        if !same {
            godot_error!("TerrainInstancer.set_cells_data: data has another cell size");
            return;
        }
        // Cells not shown yet are picked up by the next look at the view.
        self.touch(&keys);
        self.dirty = true;
    }

    /// Brings what is drawn and collided up to date now, waiting for the workers (after an edit, before
    /// reading the screen or casting rays). Returns whether anything was shown or changed.
    #[func]
    fn update_now(&mut self) -> bool {
        // A mesh changed by the lines just before: its deferred `changed` has not run yet.
        if !self.meshes_resolved() {
            self.on_meshes_changed();
        }
        self.update(true)
    }

    /// Whether every cell near the camera shows the ground as it is now (false while cells are computed,
    /// and from a change of a mesh until its cells are chosen again).
    #[func]
    fn is_up_to_date(&self) -> bool {
        self.stream.in_flight() == 0
            && self.ready.is_empty()
            && self.cells.map.is_up_to_date()
            && (self.serving || self.detail_layers.is_empty() || !self.detail_stale)
            && (self.serving || self.detail.is_up_to_date())
            && self.meshes_resolved()
            && (self.serving || !FarCells::wanted(&self.resolved) || self.far.settled())
    }

    /// Instances of `mesh_index` drawn now (on the GPU, over ground, within range; every LOD counts once).
    #[func]
    fn get_drawn_count(&self, mesh_index: i64) -> i64 {
        let Ok(m) = usize::try_from(mesh_index) else {
            return 0;
        };
        self.cells
            .map
            .values()
            .map(|c| c.data.drawn(m))
            .sum::<usize>() as i64
    }

    /// World positions of the instances of `mesh_index` drawn now: what the MultiMeshes were given.
    #[func]
    fn get_drawn_positions(&self, mesh_index: i64) -> PackedVector3Array {
        let Ok(m) = usize::try_from(mesh_index) else {
            return PackedVector3Array::new();
        };
        let mut keys: Vec<&CellKey> = self.cells.map.keys().collect();
        keys.sort();
        keys.into_iter()
            .flat_map(|k| {
                self.cells
                    .map
                    .get(k)
                    .into_iter()
                    .flat_map(|c| c.data.drawn_origins(m))
            })
            .map(|p| crate::surface::world_of(&self.frame, p))
            .collect()
    }

    /// Main-thread time this instancer's frame updates took so far, in microseconds (difference two
    /// readings to time a stretch of frames).
    #[func]
    fn get_work_usec(&self) -> i64 {
        self.work.update_usec as i64
    }

    /// What the frame updates did so far, counters that only grow (µs): `update_usec` (all of it),
    /// `show_usec` (showing finished cells), `choose_usec` (choosing the cells the view needs), `ask_usec`,
    /// `collide_usec`, `detail_usec` (detail layers) and its parts `detail_show_usec` and
    /// `detail_choose_usec`, `far_usec` (impostors' far cells). The same counters as TerrainNode.get_work_stats: take differences.
    #[func]
    fn get_work_stats(&self) -> VarDictionary {
        self.stats().to_dictionary()
    }

    /// `get_work_stats` as an array, in its order (kept for scripts written before it).
    #[func]
    fn get_work_breakdown(&self) -> PackedInt64Array {
        let w = self.stats();
        [
            w.update_usec,
            w.show_usec,
            w.choose_usec,
            w.ask_usec,
            w.collide_usec,
            w.detail_usec,
            w.detail_show_usec,
            w.detail_choose_usec,
            w.far_usec,
        ]
        .iter()
        .map(|&v| v as i64)
        .collect()
    }

    /// Cells with MultiMeshes on the GPU (bounded by the view, not the instance count).
    #[func]
    fn get_gpu_cell_count(&self) -> i64 {
        self.cells.gpu_cells() as i64
    }

    /// Impostors of `mesh_index` on the GPU now (in far cells around the camera; each shows only beyond
    /// the mesh's `impostor_distance`).
    #[func]
    fn get_impostor_count(&self, mesh_index: i64) -> i64 {
        usize::try_from(mesh_index).map_or(0, |m| self.far.drawn(m) as i64)
    }

    /// Far cells (many instance cells each) with impostors on the GPU.
    #[func]
    fn get_far_cell_count(&self) -> i64 {
        self.far.gpu_cells() as i64
    }

    /// Physics bodies in the space (one per cell near the target with collidable instances).
    #[func]
    fn get_body_count(&self) -> i64 {
        self.cells.body_count() as i64
    }
}

impl TerrainInstancer {
    pub(super) fn host(&self) -> Option<TerrainSurface> {
        let parent: Gd<Node> = self.base().get_parent()?;
        host_of(parent).map(|h| h.dyn_bind().terrain_surface())
    }

    pub(super) fn host_or_error(&self, what: &str) -> Option<TerrainSurface> {
        let h = self.host();
        match &h {
            None => godot_error!("TerrainInstancer.{what}: the instancer must be a child of a TerrainNode or WanderingTerrain"),
            Some(h) if h.surface.is_none() => {
                godot_error!("TerrainInstancer.{what}: the parent terrain has no terrain data or generator");
                return None;
            }
            _ => {}
        }
        h
    }

    pub(super) fn mesh_arg(&self, what: &str, m: i64, any: bool) -> Option<Option<usize>> {
        if any && m == -1 {
            return Some(None);
        }
        let n = self.meshes.len() as i64;
        if !(0..n.min(instances::MAX_MESHES as i64)).contains(&m) {
            let lo = if any { "-1" } else { "0" };
            godot_error!("TerrainInstancer.{what}: mesh_index must be in [{lo}, {}] (the meshes array), got {m}", n - 1);
            return None;
        }
        Some(Some(m as usize))
    }

    /// `f` on the instances resource (made when there is none), without its `changed` signal (the
    /// caller redraws what it changed).
    pub(super) fn with_store_resource<R>(
        &mut self,
        f: impl FnOnce(&mut TerrainInstances) -> R,
    ) -> R {
        if self.instances.is_none() {
            self.instances = Some(TerrainInstances::new_gd());
        }
        let mut r = self.instances.clone().expect("made above");
        let mut r = r.bind_mut();
        f(&mut r)
    }

    pub(super) fn with_store<R>(&mut self, f: impl FnOnce(&mut InstanceStore) -> R) -> R {
        if self.instances.is_none() {
            self.instances = Some(TerrainInstances::new_gd());
        }
        let mut r = self.instances.clone().expect("made above");
        let mut r = r.bind_mut();
        f(r.store_mut())
    }

    pub(super) fn add_placements(
        &mut self,
        host: &TerrainSurface,
        mesh: usize,
        ps: &[Placement],
    ) -> usize {
        let (n, cells) = with_samples(host, |s| {
            self.with_store(|st| {
                let r = st.add(mesh, ps, &|x, z| instances::ground_of(s, x, z));
                if ps.len() > 4096 {
                    st.shrink();
                }
                r
            })
        })
        .unwrap_or_default();
        self.touch(&cells);
        n
    }

    /// Cells whose instances or ground changed: recomputed by the next frames.
    pub(super) fn touch(&mut self, keys: &[CellKey]) {
        if keys.is_empty() {
            return;
        }
        self.dirty = true;
        self.cells.map.touch(keys.iter().copied());
        self.far.touch(keys);
    }
}

/// A world X/Z rectangle in terrain space (an error naming `what` when it is not finite).
pub(super) fn area_arg(what: &str, area: Rect2, host: &TerrainSurface) -> Option<Area> {
    let a = host.terrain_of(Vector3::new(area.position.x, 0.0, area.position.y));
    let b = host.terrain_of(Vector3::new(area.end().x, 0.0, area.end().y));
    let out = Area {
        min: [a[0].min(b[0]), a[2].min(b[2])],
        max: [a[0].max(b[0]), a[2].max(b[2])],
    };
    if !(out.is_valid() && area.size.x >= 0.0 && area.size.y >= 0.0) {
        godot_error!("TerrainInstancer.{what}: area must be finite with a size ≥ 0, got {area}");
        return None;
    }
    Some(out)
}

impl TerrainInstancer {
    /// The counters, the detail cells' own parts included.
    fn stats(&self) -> InstancerWork {
        let [show, choose] = self.detail.work_usec();
        InstancerWork {
            detail_show_usec: show,
            detail_choose_usec: choose,
            ..self.work
        }
    }
}
