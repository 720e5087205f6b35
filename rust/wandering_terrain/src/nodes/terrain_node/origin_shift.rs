//! `TerrainNode`'s floating origin (`nodes/origin_shift.rs`): the data windows stay keyed in the node's
//! own placement, so a shift recomputes no texel; the pieces move by whole lattice steps, the shader's
//! addressing of the windows by whole texels (`clipmap_slot_shift`), and collision and what stands on the
//! terrain follow the shifted frame in the same frame.

use super::*;
use crate::nodes::origin_shift::OriginShift;
use crate::surface::NOTIFICATION_ORIGIN_SHIFTED;
use terrain_core::origin_shift::{slot_shift, whole};

impl TerrainNode {
    /// World position `pos` (Godot's, near zero) → where the windows are laid out: the node's placement
    /// before the shift. Non-finite axes lay out at 0, like the layout itself.
    pub(crate) fn window_target(&self, pos: Vector3) -> [f64; 2] {
        let o = self.origin.offset;
        [f64::from(pos.x) + o[0], f64::from(pos.z) + o[1]]
            .map(|t| if t.is_finite() { t } else { 0.0 })
    }

    /// One sample step in world units on X and Z (signed, as the node's scale).
    fn sample_steps(&self) -> [f64; 2] {
        let sp = self.sample_spacing();
        let f = self.placement_frame();
        [sp * f.scale[0], sp * f.scale[2]]
    }

    /// The steps `shift_origin` snaps to on X and Z: the coarsest level's lattice step made a whole number
    /// of samples; None when no small multiple is.
    pub(crate) fn origin_steps(&self) -> Option<[f64; 2]> {
        let lattice = self.config.scale(self.config.levels() - 1);
        OriginShift::steps(lattice, self.sample_steps().map(f64::abs))
    }

    /// The shift in whole samples on X and Z.
    fn shift_in_samples(&self) -> [i64; 2] {
        let s = self.sample_steps();
        [0, 1].map(|a| whole(self.origin.offset[a], s[a]))
    }

    /// The fine window's corner in the shader's (shifted) sample indices.
    pub(crate) fn fine_origin_sent(&self) -> Vector2 {
        let (o, k) = (self.gpu.fine_origin(), self.shift_in_samples());
        Vector2::new((o[0] - k[0]) as f32, (o[1] - k[1]) as f32)
    }

    /// Per layer, how far its toroidal slots move: the shift in that layer's index units (lattice steps for
    /// the levels, samples for the fine layer) modulo the window.
    pub(crate) fn slot_shifts(&self) -> PackedVector2Array {
        let w = self.gpu.window();
        let fine = self.gpu.fine_layer();
        let o = self.origin.offset;
        (0..=fine)
            .map(|l| {
                let k = if l == fine {
                    self.shift_in_samples()
                } else {
                    let u = self.config.scale(l as u32);
                    [whole(o[0], u), whole(o[1], u)]
                };
                let k = k.map(|k| slot_shift(k, w) as f32);
                Vector2::new(k[0], k[1])
            })
            .collect()
    }

    /// The shift in terrain units on X and Z (f64): what the shader's terrain positions are relative to.
    pub(crate) fn shift_in_terrain(&self) -> [f64; 2] {
        let f = self.placement_frame();
        let o = self.origin.offset;
        [o[0] / f.scale[0], o[1] / f.scale[2]]
    }

    /// The shift in terrain units, for the shader's edge test of a finite map.
    pub(crate) fn terrain_shift(&self) -> Vector2 {
        let s = self.shift_in_terrain();
        Vector2::new(s[0] as f32, s[1] as f32)
    }

    /// Sends the texture phases of the material's layers at the shift (exact: computed in f64 here).
    pub(crate) fn send_uv_shift(&mut self) {
        let shift = self.shift_in_terrain();
        let look = self.terrain_material.clone();
        for m in self.shader_materials() {
            terrain_material::bind_uv_shift(look.as_ref(), m, shift);
        }
    }

    /// Shifts the origin by `by` (snapped); everything follows now. Returns the shift applied.
    pub(crate) fn apply_origin_shift(&mut self, by: Vector3) -> Vector3 {
        self.wake();
        let steps = self.origin_steps();
        let d = match self.origin.shift("TerrainNode", by, steps) {
            Ok(d) => d,
            Err(e) => {
                godot_error!("{e}");
                return Vector3::ZERO;
            }
        };
        let applied = Vector3::new(d[0] as f32, 0.0, d[1] as f32);
        if d == [0.0, 0.0] {
            return applied;
        }
        // The pieces around the same target, drawn shifted; the shader's addressing; collision now.
        // Out of the tree there are no pieces: they are laid out shifted when the node comes back.
        if let (Some(t), false) = (self.gpu.shown_target(), self.instances.is_empty()) {
            self.layout_pieces(t);
        }
        self.update_material();
        self.last_pos = None;
        // The tiles placed anew, not followed: the target has not moved back yet (the game does that
        // after this call), and the next physics tick finds it where it was.
        let f = self.terrain_frame();
        self.collision.follow_frame(&f);
        self.collision_frame = Some(f);
        // Through `base_mut`: what reacts (children placing themselves, the game's handlers) may call back
        // into this node.
        self.base_mut()
            .propagate_notification(NOTIFICATION_ORIGIN_SHIFTED);
        self.signals().origin_shifted().emit(applied);
        applied
    }
}
