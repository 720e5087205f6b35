//! The instancer's cells over the frames: which cells the view needs, asking the workers, showing what
//! they finished, following the terrain's edits, and the cell states of the INSTANCES debug view.

use super::*;

impl TerrainInstancer {
    /// `region_changed` of the followed TerrainData or TerrainRegions: the cells over the edited samples
    /// are redrawn.
    pub(super) fn on_region_changed(&mut self, region: Rect2i) {
        let Some(sp) = self.followed.as_ref().map(|d| d.spacing()) else {
            return;
        };
        // The samples' patches reach a sample beyond them.
        // Sample i moves the surface over [(i - 1.5), (i + 2.5)) × spacing (its patches' reach).
        let lo = |v: i32| (f64::from(v) - 1.5) * sp;
        let hi = |v: i32| (f64::from(v) + 2.0) * sp;
        let area = Area {
            min: [lo(region.position.x), lo(region.position.y)],
            max: [
                hi(region.position.x + region.size.x),
                hi(region.position.y + region.size.y),
            ],
        };
        let keys = self.with_store(|s| s.cells_in(area));
        self.touch(&keys);
        self.detail.touch(area);
    }

    /// `changed` of the followed TerrainData (new size, spacing or a whole replacement): every cell.
    pub(super) fn on_data_changed(&mut self) {
        self.dirty = true;
        self.cells.map.touch_all();
        self.far.touch_all();
        self.detail.touch_all();
    }
}

impl TerrainInstancer {
    /// The cell states (`cell_states`) of `terrain`'s first TerrainInstancer child, for the terrain's
    /// INSTANCES debug view; None (and `out` empty) without one.
    pub(crate) fn child_cell_states(
        terrain: &Gd<Node>,
        target: [f64; 2],
        n: usize,
        out: &mut Vec<u8>,
    ) -> Option<([f64; 2], f64)> {
        let child = terrain
            .get_children()
            .iter_shared()
            .find_map(|c| c.try_cast::<TerrainInstancer>().ok());
        match child {
            Some(i) => i.bind().cell_states(target, n, out),
            None => {
                out.clear();
                None
            }
        }
    }

    /// The instance cells around terrain X/Z `target` in a window of `n`² cells (row-major into `out`): 1
    /// where a cell's instances are shown and current, 2 where they are being made again, 0 elsewhere.
    /// Returns the corner and side (terrain units) of the window's first cell; None without instances.
    pub(crate) fn cell_states(
        &self,
        target: [f64; 2],
        n: usize,
        out: &mut Vec<u8>,
    ) -> Option<([f64; 2], f64)> {
        let Some(res) = self.instances.as_ref() else {
            out.clear();
            return None;
        };
        let b = res.bind();
        let store = b.store();
        let cs = store.cell_size();
        let (tx, tz) = store.cell_of(target[0], target[1]);
        let cells = self.cells.map.iter().map(|(k, c)| {
            let state = if c.shown == c.stamp { 1 } else { 2 };
            ([i64::from(k.0), i64::from(k.1)], state)
        });
        let first = terrain_core::cells::fill_window([i64::from(tx), i64::from(tz)], n, cells, out);
        Some(([first[0] as f64 * cs, first[1] as f64 * cs], cs))
    }
}

impl TerrainInstancer {
    /// One frame: shows finished cells, asks for the cells the view needs, drops those it left, and keeps
    /// bodies on the cells near the target. `wait`: until everything asked for is shown.
    pub(super) fn update(&mut self, wait: bool) -> bool {
        if !self.base().is_inside_tree() {
            return false;
        }
        let host = match self.host() {
            Some(h) if h.surface.is_some() => h,
            _ => {
                if self.surface_key.is_some() {
                    self.reset();
                }
                return false;
            }
        };
        if host.key() != self.surface_key {
            self.reset();
            self.surface_key = host.key();
            self.follow(host.edits.clone());
        }
        self.serving = host.serving;
        if host.frame != self.frame {
            self.follow_frame(&host);
        }
        let mut changed = false;
        loop {
            self.stream.poll(&mut self.ready);
            let t = std::time::Instant::now();
            if self.show_ready(wait) {
                changed = true;
                self.pending = true;
            }
            self.work.show_usec += usec_since(t);
            // A still frame with nothing new costs a position read and a channel poll; the cells wanted
            // are chosen again only when the viewer or the target enters another cell, or after an edit.
            let view = self.view_key(&host);
            let want = self.dirty || view != self.last_view;
            if want || self.pending {
                self.pending = false;
                let t = std::time::Instant::now();
                if want {
                    self.dirty = false;
                    self.last_view = view;
                    self.want_cells(&host);
                }
                let t1 = std::time::Instant::now();
                changed |= self.ask(&host);
                changed |= self.show_ready(wait);
                let t2 = std::time::Instant::now();
                self.collide(&host);
                self.work.choose_usec += (t1 - t).as_micros() as u64;
                self.work.ask_usec += (t2 - t1).as_micros() as u64;
                self.work.collide_usec += usec_since(t2);
            }
            if !wait || self.stream.in_flight() == 0 {
                break;
            }
            self.stream.wait(&mut self.ready);
        }
        // Impostors and detail are only drawn: a server has none.
        if host.serving {
            return changed;
        }
        let t = std::time::Instant::now();
        changed |= self.update_far(&host, wait);
        self.work.far_usec += usec_since(t);
        let t = std::time::Instant::now();
        changed |= self.update_detail(&host, wait);
        self.work.detail_usec += usec_since(t);
        changed
    }

    /// The far cells of impostors around the camera.
    fn update_far(&mut self, host: &TerrainSurface, wait: bool) -> bool {
        if !FarCells::wanted(&self.resolved) {
            return false;
        }
        let (Some(res), Some(surface)) = (self.instances.clone(), host.surface.as_ref()) else {
            return false;
        };
        let res = res.bind();
        let scenario = self
            .base()
            .get_world_3d()
            .map(|w| w.get_scenario())
            .unwrap_or(Rid::Invalid);
        let scale = host.to_world.basis.get_scale().x.abs().max(1e-6);
        let v = FarView {
            view: View {
                meshes: &self.resolved,
                scenario,
                frame: self.frame,
                visible: self.base().is_visible_in_tree(),
            },
            store: res.store(),
            surface,
            viewer: self.viewer(host),
            inv_scale: 1.0 / scale,
        };
        self.far.update(&v, wait)
    }

    /// The terrain moved, was scaled, or shifted its origin: the cells are placed anew (their contents
    /// untouched). Detail's rules are in terrain units (heights from the terrain's base): a new scale or
    /// height regrows it; a move on X/Z only moves the cells.
    pub(super) fn follow_frame(&mut self, host: &TerrainSurface) {
        let f = host.frame;
        if f.scale != self.frame.scale || f.origin[1] != self.frame.origin[1] {
            self.detail.clear();
            self.detail_stale = true;
        }
        self.frame = f;
        self.cells.set_world(&self.frame);
        self.far.set_world(&self.frame);
        self.set_impostor_params();
        self.detail.set_world(&self.frame);
    }

    /// The cells the viewer and the target are in.
    pub(super) fn view_key(&self, host: &TerrainSurface) -> Option<(CellKey, u64)> {
        use std::hash::{Hash, Hasher};
        let res = self.instances.as_ref()?.bind();
        let cell = |p: Vector3| res.store().cell_of(f64::from(p.x), f64::from(p.z));
        let v = self.viewer(host).map_or((i32::MIN, i32::MIN), cell);
        // The cells every collision centre is in, as one number.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for c in collision_centres(host) {
            cell(c).hash(&mut h);
        }
        Some((v, h.finish()))
    }

    /// Hands finished buffers to the RenderingServer, for `SHOW_BUDGET` a frame (at least one cell; all
    /// with `wait`): a fast flight finishes cells every frame, and handing their buffers over is main-thread
    /// work (the soak's worst frames); the rest are shown on the next frames, oldest first.
    pub(super) fn show_ready(&mut self, wait: bool) -> bool {
        if self.ready.is_empty() {
            return false;
        }
        let scenario = self
            .base()
            .get_world_3d()
            .map(|w| w.get_scenario())
            .unwrap_or(Rid::Invalid);
        let view = View {
            meshes: &self.resolved,
            scenario,
            frame: self.frame,
            visible: self.base().is_visible_in_tree(),
        };
        let mut any = false;
        let t0 = std::time::Instant::now();
        let mut rest = std::mem::take(&mut self.ready);
        let mut pending = rest.drain(..);
        let mut shown = 0;
        for r in pending.by_ref() {
            any |= self.cells.show(r.key, r.stamp, r.meshes, &view);
            shown += 1;
            if !wait && shown >= self.redrawn && t0.elapsed() > SHOW_BUDGET {
                break;
            }
        }
        self.ready = pending.collect();
        self.redrawn = self.redrawn.saturating_sub(shown);
        any
    }

    /// The camera (or the target) in terrain space; none on a server (nothing is drawn).
    pub(super) fn viewer(&self, host: &TerrainSurface) -> Option<Vector3> {
        if host.serving {
            return None;
        }
        let cam = active_camera(&self.to_gd().upcast())
            .map(|c| c.get_global_position())
            .or(host.target)?;
        Some(host.to_world.affine_inverse() * cam)
    }

    /// Adds the cells within view (and within the collision radius of the target) and drops the rest.
    pub(super) fn want_cells(&mut self, host: &TerrainSurface) {
        let Some(res) = self.instances.clone() else {
            return;
        };
        let res = res.bind();
        let store = res.store();
        let scale = host.to_world.basis.get_scale().x.abs().max(1e-6);
        let range = self
            .resolved
            .iter()
            .map(Resolved::near_range)
            .fold(0.0f32, f32::max)
            / scale;
        let coll = (self.collision_radius as f32) / scale;
        let mut centres: Vec<(Vector3, f32)> = Vec::with_capacity(2);
        if let Some(v) = self.viewer(host) {
            centres.push((v, range));
        }
        if coll > 0.0 {
            centres.extend(collision_centres(host).map(|c| (c, coll)));
        }
        let cs = store.cell_size() as f32;
        let mut keep = std::collections::HashSet::new();
        for (c, r) in centres {
            let area = Area {
                min: [f64::from(c.x - r), f64::from(c.z - r)],
                max: [f64::from(c.x + r), f64::from(c.z + r)],
            };
            for k in store.cells_in(area) {
                if cell_distance(store, k, c) <= r {
                    keep.insert(k);
                    self.cells.map.want(k);
                }
            }
        }
        // Cells leave a cell size beyond the range (no churn at the border).
        let gone: Vec<CellKey> = self
            .cells
            .map
            .keys()
            .filter(|k| !keep.contains(k))
            .copied()
            .collect();
        let viewer = self.viewer(host);
        for k in gone {
            let near = viewer.is_some_and(|v| cell_distance(store, k, v) <= range + cs);
            if !near || store.cell(k).is_none() {
                self.cells.drop_cell(k);
            }
        }
    }

    /// Asks the workers for the cells that need computing, nearest first.
    pub(super) fn ask(&mut self, host: &TerrainSurface) -> bool {
        let room = IN_FLIGHT.saturating_sub(self.stream.in_flight());
        let viewer = self
            .viewer(host)
            .or_else(|| collision_centres(host).next())
            .unwrap_or(Vector3::ZERO);
        let Some(res) = self.instances.clone() else {
            return false;
        };
        let res = res.bind();
        let store = res.store();
        // All that need work, nearest first: edited cells on screen may be redrawn here (below), the rest
        // are asked for up to the room left.
        let mut need = self
            .cells
            .map
            .nearest(usize::MAX, |k| cell_distance(store, *k, viewer));
        if need.is_empty() {
            return false;
        }
        // Edited cells already on screen are recomputed here, from the terrain data itself, so an edit
        // shows on the next frame drawn (up to a budget; the rest go to the workers).
        let Some(surface) = host.surface.as_ref() else {
            return false;
        };
        if let Some(d) = surface.data() {
            let d = d.bind();
            let cells = &mut self.cells.map;
            let mut now = Vec::new();
            let mut budget = EDIT_NOW;
            need.retain(|&(_, k, stamp)| {
                let (Some(c), Some(stored)) = (cells.get_mut(&k), store.cell(k)) else {
                    return true;
                };
                let n: usize = stored.iter().map(Vec::len).sum();
                if c.shown == 0 || n > budget {
                    return true;
                }
                budget -= n;
                let meshes = draw_cell(d.core(), store.cell_area(k).min, stored);
                now.push(CellDraw {
                    key: k,
                    stamp,
                    meshes,
                });
                c.asked = stamp;
                false
            });
            // First in line, and not held back by the showing budget.
            self.redrawn += now.len();
            self.ready.splice(0..0, now);
        }
        if need.is_empty() {
            return true;
        }
        if need.len() > room {
            // The rest are asked for when these come back.
            self.pending = true;
            need.truncate(room);
        }
        for chunk in need.chunks(surface.cells_per_job(JOB_CELLS)) {
            let cells: Vec<(CellKey, u64)> = chunk.iter().map(|c| (c.1, c.2)).collect();
            let source = surface.job_source(cells.iter().map(|c| store.cell_area(c.0)));
            self.stream.request(source, store, &cells);
            for (k, stamp) in cells {
                self.cells.map.asked(k, stamp);
            }
        }
        true
    }
}

/// Where the host's collision is (terrain space): its collision centres, or before its first physics
/// tick its target.
pub(super) fn collision_centres(host: &TerrainSurface) -> impl Iterator<Item = Vector3> + '_ {
    let inv = host.to_world.affine_inverse();
    let (primary, others, target) = match &host.collision_centres {
        Some(c) => (c.primary, c.others.as_slice(), None),
        None => (None, &[][..], host.target.map(|t| inv * t)),
    };
    let at = |c: [f64; 2]| Vector3::new(c[0] as f32, 0.0, c[1] as f32);
    primary
        .into_iter()
        .chain(others.iter().copied())
        .map(at)
        .chain(target)
}

/// Distance on X/Z from terrain point `p` to cell `k`'s square.
pub(super) fn cell_distance(store: &InstanceStore, k: CellKey, p: Vector3) -> f32 {
    let a = store.cell_area(k);
    a.distance(f64::from(p.x), f64::from(p.z)) as f32
}
