//! `TerrainNode` sources: what to draw (terrain data, a region map, an endless generator), following their
//! edits and replacements, and the endless (streamed) frame.

use super::*;
use crate::sample_rect::from_rect2i;

#[godot_api(secondary)]
impl TerrainNode {
    /// `region_changed` of an edited region map (signed samples: an endless map's lie on both sides of
    /// the origin): the windows (next worker job) and collision there.
    pub(crate) fn on_regions_edited(&mut self, region: Rect2i) {
        if self.terrain_data.is_some() {
            return;
        }
        let r = from_rect2i(region);
        self.gpu.mark_edited(r);
        self.collision.mark(r);
        self.surface_cache_edited(r);
        self.wake();
    }

    /// `changed` of the TerrainGenerator or TerrainRegions: the world is generated or opened anew.
    pub(crate) fn on_source_changed(&mut self) {
        // An edit of the region map drawn now (the same store): only its height range may have changed.
        let same = match (&self.terrain_data, &self.terrain_regions, &self.streamed) {
            (None, Some(r), Some(cur)) => r
                .bind()
                .store()
                .is_some_and(|s| Arc::ptr_eq(&(s as SharedSamples), cur)),
            _ => false,
        };
        if same {
            self.on_data_changed();
        } else {
            self.source_changed();
        }
    }

    /// Whether what is drawn was computed for the current target and every edit: false while the worker
    /// threads compute the data windows (after a move, an edit, or a teleport into an endless world).
    /// Wait for it before reading the screen, or to show a loading screen.
    #[func]
    pub(crate) fn is_up_to_date(&self) -> bool {
        // A server has no windows to wait for.
        if self.serving {
            return true;
        }
        let Some(p) = self.target_position() else {
            return true;
        };
        self.drawable && self.gpu.is_current(self.window_target(p))
    }

    /// `changed` of the terrain data: an edit (heights arrive by `region_changed`) or new spacing or size.
    /// Cheap for edits: the culling boxes follow only a new height range.
    pub(crate) fn on_data_changed(&mut self) {
        self.wake();
        let (range, size, spacing) = match (&self.terrain_data, &self.streamed) {
            (Some(d), _) => {
                let d = d.bind();
                (d.get_height_range(), d.get_size(), d.get_spacing())
            }
            (None, Some(g)) => {
                let (lo, hi) = g.height_bounds();
                (Vector2::new(lo, hi), size_of(&**g), g.spacing())
            }
            _ => (Vector2::ZERO, Vector2i::ZERO, 1.0),
        };
        if range != self.height_range {
            self.height_range = range;
            if let Some(m) = self.debug_material.as_mut() {
                m.set_shader_parameter("debug_height_range", &range.to_variant());
            }
            let mut rs = RenderingServer::singleton();
            for (i, p) in self.shown.iter().enumerate() {
                if let Some(p) = p {
                    rs.instance_set_custom_aabb(self.instances[i], self.piece_aabb(p.kind));
                }
            }
        }
        let key = self.data_key.map(|k| (k.1, k.2));
        let now = (spacing, (size.x as usize, size.y as usize));
        if key != Some(now) {
            // The windows are recomputed on the next update, which then binds the new values.
            self.data_key = None;
            self.update_material();
        }
    }

    /// Collects edited samples for the next frame's update of the data windows.
    pub(crate) fn on_region_changed(&mut self, region: Rect2i) {
        // One conversion for both nodes (`sample_rect.rs`).
        let r = from_rect2i(region);
        // The next worker job recomputes the texels the edit reached (drawn a frame or two later).
        self.gpu.mark_edited(r);
        self.collision.mark(r);
        self.surface_cache_edited(r);
        self.wake();
        self.nav_view.edits += 1;
    }
}

impl TerrainNode {
    /// A new data source (terrain data or generator, set or changed): the windows, collision and culling
    /// boxes start over.
    pub(crate) fn source_changed(&mut self) {
        self.check_sources = true;
        self.streamed = match (
            &self.terrain_data,
            &self.terrain_regions,
            &self.terrain_generator,
        ) {
            (Some(_), _, _) => None,
            (None, Some(r), _) => r.bind().store().map(|s| s as SharedSamples),
            (None, None, Some(g)) => match Generated::new(&g.bind().params(), 1.0) {
                Ok(g) => Some(Arc::new(g) as SharedSamples),
                Err(e) => {
                    godot_error!("TerrainNode.terrain_generator: {e}");
                    None
                }
            },
            _ => None,
        };
        self.data_key = None;
        self.collision.invalidate();
        self.wake();
        self.set_drawable(false);
        self.base_mut().update_configuration_warnings();
        self.on_data_changed();
    }

    /// More than one source set (checked a frame after a change, so a script that sets one and clears
    /// another is not warned about): only the first is drawn, and the user meant one of them.
    pub(crate) fn warn_if_many_sources(&self) {
        let set = [
            ("terrain_data", self.terrain_data.is_some()),
            ("terrain_regions", self.terrain_regions.is_some()),
            ("terrain_generator", self.terrain_generator.is_some()),
        ];
        let set: Vec<&str> = set.iter().filter(|s| s.1).map(|s| s.0).collect();
        if set.len() > 1 {
            // Not silent: the user meant one of them (an editable endless world is a TerrainRegions
            // made with the generator, not both properties).
            godot_warn!(
                "TerrainNode: {} are {} set; only {} is drawn, the others are unused. Clear the others (an editable endless world is terrain_regions = TerrainRegions.create_endless(generator, …) alone)",
                set.join(" and "),
                if set.len() == 2 { "both" } else { "all" },
                set[0]
            );
        }
    }

    /// This frame's update: the windows follow the target (see `update_now`; `wait`: computed on this thread).
    pub(crate) fn update_frame(&mut self, wait: bool) -> bool {
        let p = self.target_position();
        self.frame_target = p;
        let Some(p) = p else {
            return false;
        };
        self.update_windows(p, wait)
    }

    /// Shows the windows a worker finished (the rings are laid out around the target they were computed
    /// for) and asks for the next ones when the target moved or edits wait. Terrain data in memory waits
    /// for them on its first frame (never drawn empty); every source waits when `wait` asks.
    pub(crate) fn update_windows(&mut self, pos: Vector3, wait: bool) -> bool {
        if self.instances.is_empty() {
            return false;
        }
        let target = self.window_target(pos);
        // A still target, no edit, no running job: nothing to do (not even reading the node's frame).
        if Some(pos) == self.last_pos && self.data_key.is_some() && self.gpu.is_current(target) {
            return false;
        }
        let t0 = std::time::Instant::now();
        let shown = self.step_windows(pos, target, wait);
        self.work.windows_steps += 1;
        self.work.windows_shown += u64::from(shown);
        self.work.windows_usec += crate::work_stats::usec_since(t0);
        shown
    }

    /// `update_windows` past its still-target check: starts and shows jobs, lays the pieces out.
    fn step_windows(&mut self, pos: Vector3, target: [f64; 2], wait: bool) -> bool {
        let Some(flat) = self.flat_frame() else {
            self.set_drawable(false);
            return false;
        };
        let step = match (self.terrain_data.clone(), self.streamed.clone()) {
            (Some(d), _) => {
                let d = d.bind();
                let core = d.core();
                self.check_data_key(flat, core.spacing(), Some([core.width(), core.depth()]));
                // Terrain in memory is never drawn empty (first frame), and waits when asked: computed
                // here then, as a job would. Otherwise a job takes it only when it starts running, so a
                // job waiting in the pool does not hold up the data's edits.
                if wait || !self.gpu.has_shown() {
                    self.gpu.update_here(core, &flat, target)
                } else {
                    let weak = StreamSource::WhenRunning(d.shared_weak());
                    self.gpu.update_streamed(weak, &flat, target)
                }
            }
            (None, Some(g)) => {
                self.check_data_key(flat, g.spacing(), g.size());
                // Asked to wait (`update_now`, `place_at`): computed here, reading (and generating) the
                // regions on this thread, so what is drawn is current when the call returns.
                if wait {
                    self.gpu.update_here(&*g, &flat, target)
                } else {
                    self.gpu.update_streamed(g.into(), &flat, target)
                }
            }
            _ => return false,
        };
        if step.created {
            self.gpu.take_swapped();
            self.update_material();
        } else if self.gpu.take_swapped() {
            // Compatibility's textures take turns (`clipmap_tiles.rs`): the materials follow.
            if let Some(tex) = self.gpu.texture() {
                let name = self.param_data.clone();
                self.set_param(&name, &tex.to_variant());
            }
        }
        let Some(t) = step.shown else {
            return false;
        };
        self.layout_pieces(t);
        self.update_surface_cache(pos);
        self.last_pos = Some(pos);
        let fo = self.fine_origin_sent();
        if Some(fo) != self.sent_fine_origin {
            let name = self.param_fine_origin.clone();
            self.set_param(&name, &fo.to_variant());
            self.sent_fine_origin = Some(fo);
        }
        self.set_drawable(true);
        true
    }

    /// A new frame, spacing or size: the windows start over.
    fn check_data_key(&mut self, flat: Frame, spacing: f64, size: Option<[usize; 2]>) {
        let key = (
            flat,
            spacing,
            size.map_or((usize::MAX, usize::MAX), |[w, d]| (w, d)),
        );
        if self.data_key != Some(key) {
            self.gpu.invalidate();
            self.data_key = Some(key);
        }
    }

    /// The frame the texels depend on: X/Z only (heights are scaled and lifted in the shader). None for a
    /// node scaled to (almost) nothing on X/Z, which has no terrain to draw: nothing non-finite reaches the
    /// texels or the shader.
    pub(crate) fn flat_frame(&self) -> Option<Frame> {
        let frame = self.placement_frame();
        let usable = frame.scale[0].abs() >= 1e-6
            && frame.scale[2].abs() >= 1e-6
            && frame
                .origin
                .iter()
                .chain(&frame.scale)
                .all(|v| v.is_finite());
        usable.then_some(Frame {
            origin: [frame.origin[0], 0.0, frame.origin[2]],
            scale: [frame.scale[0], 1.0, frame.scale[2]],
        })
    }
}

impl TerrainNode {
    /// A region map's unreadable regions, reported once each (from the process pass).
    pub(crate) fn report_region_failures(&mut self) {
        if self.terrain_data.is_none() {
            if let Some(r) = self.terrain_regions.as_mut() {
                r.bind_mut().report_failures();
            }
        }
    }
}
