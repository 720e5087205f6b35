//! `TerrainNode`'s surface cache (`look/surface_cache.rs`): made when the node enters the tree, given the
//! node's shader parameters like its own material, drawn where the data windows just showed new ground.

use super::*;
use crate::look::surface_cache::{SurfaceCache, TERRAIN_NODE_FILL};
use terrain_core::sample_rect::SampleRect;

crate::nodes::surface_cache_api::surface_cache_api!(TerrainNode);

impl TerrainNode {
    /// Makes the cache (enabled, in the tree) and gives its fill the node's parameters.
    pub(crate) fn attach_surface_cache(&mut self) {
        if self.surface_cache.is_some() {
            return;
        }
        self.surface_cache = SurfaceCache::made_for(
            &self.base().clone(),
            self.surface_cache_enabled,
            self.surface_cache_levels,
            self.surface_cache_size,
            &TERRAIN_NODE_FILL,
        );
        if self.surface_cache.is_none() {
            return;
        }
        self.update_material();
        self.apply_look();
        self.wake();
    }

    pub(crate) fn detach_surface_cache(&mut self) {
        if let Some(mut c) = self.surface_cache.take() {
            c.detach();
        }
        self.send_surface_far();
    }

    pub(crate) fn invalidate_surface_cache(&mut self) {
        if let Some(c) = self.surface_cache.as_mut() {
            c.copy_look(self.material.as_ref());
            c.invalidate_all();
            self.wake();
        }
    }

    /// The process pass: a cache invalidated (or just made) is drawn now around the shown target, not at
    /// the next window update (a still camera has none).
    pub(crate) fn refresh_surface_cache(&mut self) {
        let stale = self
            .surface_cache
            .as_ref()
            .is_some_and(SurfaceCache::is_stale);
        if let (true, true, Some(p)) = (stale, self.drawable, self.last_pos) {
            self.update_surface_cache(p);
        }
    }

    /// Whether the cache still waits to be drawn (the node must not sleep).
    pub(crate) fn surface_cache_waits(&self) -> bool {
        self.surface_cache
            .as_ref()
            .is_some_and(SurfaceCache::is_stale)
    }

    /// Edited samples `r` (unshifted sample indices): the cache texels over them are drawn again once the
    /// windows show the edit.
    pub(crate) fn surface_cache_edited(&mut self, r: SampleRect) {
        if self.surface_cache.is_none() || r.is_empty() {
            return;
        }
        let sp = self.sample_spacing();
        let sh = self.shift_in_terrain();
        let lo = [r.x as f64 * sp - sh[0], r.z as f64 * sp - sh[1]];
        let hi = [
            (r.x + r.w as i64) as f64 * sp - sh[0],
            (r.z + r.d as i64) as f64 * sp - sh[1],
        ];
        if let Some(c) = self.surface_cache.as_mut() {
            c.mark_edited(lo, hi);
        }
    }

    /// After the windows showed new data around the target at world position `pos`: the cache follows.
    pub(crate) fn update_surface_cache(&mut self, pos: Vector3) {
        if self.surface_cache.is_none() {
            return;
        }
        let t0 = std::time::Instant::now();
        let (o, s) = self.frame();
        let centre = [
            (f64::from(pos.x) - f64::from(o.x)) / f64::from(s.x),
            (f64::from(pos.z) - f64::from(o.z)) / f64::from(s.z),
        ];
        let sp = self.sample_spacing();
        self.surface_cache_data_moved();
        if let Some(c) = self.surface_cache.as_mut() {
            let before = c.texels_written();
            c.update(centre, sp, (o, s));
            if c.texels_written() != before {
                self.work.surface_usec += crate::work_stats::usec_since(t0);
            }
        }
        self.send_surface_far();
    }

    /// The windows moved: the level a texel reads changes along each level's edge (which follows the target
    /// continuously), the exact samples end at the fine window's edge (which snaps), and coverage at the
    /// coarsest level's. Texels drawn before would keep the data they saw (a coarser level's, before the
    /// finer arrived): the strips those edges swept are drawn again.
    fn surface_cache_data_moved(&mut self) {
        let (t, fine) = (self.last_target, self.fine_origin_sent());
        let Some((prev, prev_fine)) = self.surface_windows.replace((t, fine)) else {
            return;
        };
        let (o, s) = self.frame();
        let sp = self.sample_spacing();
        let (sx, sz) = (f64::from(s.x), f64::from(s.z));
        let to_tp = |v: Vector2| {
            [
                (f64::from(v.x) - f64::from(o.x)) / sx,
                (f64::from(v.y) - f64::from(o.z)) / sz,
            ]
        };
        let (p, q) = (to_tp(prev), to_tp(t));
        let reach0 = (2 * self.tile_resolution - 1) as f64 * self.vertex_spacing;
        let (levels, window) = (self.gpu.fine_layer(), self.gpu.window() as f64);
        let Some(c) = self.surface_cache.as_mut() else {
            return;
        };
        let (outer, texel0, reach_first) = (c.reach(), c.texel(), c.level_reach(0));
        // One cache texel where an edge lies (texel centres decide what they read), plus a sample.
        let margin = |r: f64| {
            let top = (outer / reach_first).log2();
            texel0 * (r / reach_first).log2().ceil().clamp(0.0, top).exp2() + sp
        };
        if prev != t {
            for l in 0..levels {
                let r = reach0 * f64::from(1u32 << l);
                let r = [r / sx, r / sz];
                if r[0].min(r[1]) > outer {
                    break;
                }
                let square = |c: [f64; 2]| [[c[0] - r[0], c[1] - r[1]], [c[0] + r[0], c[1] + r[1]]];
                let m = margin(r[0].max(r[1]));
                c.mark_window_moved(square(p), square(q), m);
            }
        }
        if prev_fine != fine {
            // Samples f of the fine window cover [f + 0.5, f + window - 0.5) * spacing.
            let rect = |f: Vector2| {
                let lo = [(f64::from(f.x) + 0.5) * sp, (f64::from(f.y) + 0.5) * sp];
                [
                    lo,
                    [lo[0] + (window - 1.0) * sp, lo[1] + (window - 1.0) * sp],
                ]
            };
            let m = margin(0.5 * window * sp);
            c.mark_window_moved(rect(prev_fine), rect(fine), m);
        }
    }

    /// Tells the material how far the terrain draws itself (0 unless this cache is the scene's).
    pub(crate) fn send_surface_far(&mut self) {
        let provides = self
            .surface_cache
            .as_ref()
            .is_some_and(SurfaceCache::provides);
        let far = if provides {
            self.surface_cache_far_distance as f32
        } else {
            0.0
        };
        if far == self.surface_far_sent {
            return;
        }
        self.surface_far_sent = far;
        if let Some(m) = self.material.as_mut() {
            m.set_shader_parameter("surface_cache_far", &far.to_variant());
        }
    }

    /// Terrain units between samples of the drawn source.
    pub(crate) fn sample_spacing(&self) -> f64 {
        match (&self.terrain_data, &self.streamed) {
            (Some(d), _) => d.bind().get_spacing(),
            (None, Some(g)) => g.spacing(),
            _ => 1.0,
        }
    }
}
