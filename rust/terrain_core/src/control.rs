//! The control word: 4 bytes a sample in `TerrainData`'s control map (saved with it), one owner for its
//! layout in Rust (the shaders decode it in `terrain_data.gdshaderinc`; a test checks their constants).
//!
//! **Layout**:
//!
//! | bits | meaning |
//! |---|---|
//! | 0–5 | base slot |
//! | 6–11 | overlay slot |
//! | 12–19 | blend: the overlay's weight, 0..255 |
//! | 20–29 | unused (0) |
//! | 30 | cleared (`CLEAR`): no instances or detail stand here (a road's verge) |
//! | 31 | hole (`HOLE`) |
//!
//! A slot is 0 for **auto** (height-band texturing as in the classic XNA terrain tutorial's multitexturing: each layer with a band
//! `(centre, width)` weighs `clamp(1 - |h - centre| / width, 0, 1)`, normalised) or `1 + layer` for one of
//! up to 63 painted layers. A sample never painted is all zero: auto. This is the base/overlay/blend scheme
//! of Terrain3D's control map, with an auto slot instead of an auto bit, so painting can fade a layer out to
//! the height bands.
//!
//! On the GPU the control rides in the alpha of the clipmap data texel (and of the wandering terrain's control
//! texture) as a float holding an integer below 2^21: the low 20 bits of the control and the hole flag at
//! bit 20 (`gpu_control`), exact in an f32.

/// Control bit of a hole sample. Holes follow the physics engines' heightmaps, which drop every triangle
/// that has a NaN sample as a corner: the square between four samples is split into two triangles along
/// its (x + 1, z)–(x, z + 1) diagonal (Godot Physics' and Jolt's split), and a triangle with a hole sample
/// at a corner is a hole — `height_at` is NaN there, nothing is drawn and nothing collides.
pub const HOLE: u32 = 1 << 31;

/// Control bit of a cleared sample: instances there are hidden (kept, back when the bit goes) and detail
/// does not grow; what a terrain path sets along its verge. Not drawn (not in the GPU control value).
pub const CLEAR: u32 = 1 << 30;

/// Painted layers a material can have (slot 0 is auto).
pub const MAX_LAYERS: usize = 63;
/// The slot meaning "height bands" (auto-texturing).
pub const AUTO: u8 = 0;
/// Hole flag of the GPU control value.
pub const GPU_HOLE: u32 = 1 << 20;
/// The paint bits of a control value (slots and blend).
pub const PAINT_MASK: u32 = (1 << 20) - 1;

/// A sample's paint: two slots and the overlay's weight in 1/255.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paint {
    pub base: u8,
    pub overlay: u8,
    pub blend: u8,
}

impl Paint {
    pub fn decode(c: u32) -> Self {
        Self {
            base: (c & 63) as u8,
            overlay: ((c >> 6) & 63) as u8,
            blend: ((c >> 12) & 255) as u8,
        }
    }

    /// The control bits of this paint (no hole bit). Canonical: a single slot is stored as base = overlay,
    /// blend 0, so equal weights always encode the same way (saved data compares bit for bit).
    pub fn encode(self) -> u32 {
        let p = match self.blend {
            0 => Self {
                overlay: self.base,
                ..self
            },
            255 => Self {
                base: self.overlay,
                blend: 0,
                ..self
            },
            _ if self.base == self.overlay => Self { blend: 0, ..self },
            _ => self,
        };
        u32::from(p.base) | u32::from(p.overlay) << 6 | u32::from(p.blend) << 12
    }

    /// The two (slot, weight) pairs.
    pub fn weights(self) -> [(u8, f32); 2] {
        let b = f32::from(self.blend) / 255.0;
        [(self.base, 1.0 - b), (self.overlay, b)]
    }

    /// Weight of one slot in this sample.
    pub fn weight_of(self, slot: u8) -> f32 {
        self.weights()
            .iter()
            .filter(|(s, _)| *s == slot)
            .map(|(_, w)| w)
            .sum()
    }
}

/// The slot of painted layer `layer`.
pub fn slot_of(layer: usize) -> u8 {
    debug_assert!(layer < MAX_LAYERS);
    layer as u8 + 1
}

/// Sets the weight of `slot` in control value `c` to `w` (0..1, quantised to 1/255); the rest goes to the
/// strongest other slot of the sample (auto if there is none). Only two slots fit a sample: a third slot
/// painted over two drops the weaker. The hole and clear bits are kept.
pub fn paint(c: u32, slot: u8, w: f32) -> u32 {
    let p = Paint::decode(c);
    let [(a, wa), (b, wb)] = p.weights();
    let other = match (a == slot, b == slot) {
        (true, true) => AUTO,
        (true, false) => b,
        (false, true) => a,
        // Ties keep the base: the slot painted first.
        (false, false) if wb > wa => b,
        (false, false) => a,
    };
    let other = if other == slot { AUTO } else { other };
    let blend = (w.clamp(0.0, 1.0) * 255.0).round() as u8;
    let np = Paint {
        base: other,
        overlay: slot,
        blend,
    };
    (c & (HOLE | CLEAR)) | np.encode()
}

/// The value the shaders read: paint bits and the hole flag at bit 20, exact as an f32.
pub fn gpu_control(c: u32, hole: bool) -> f32 {
    ((c & PAINT_MASK) | if hole { GPU_HOLE } else { 0 }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn paint_sets_one_weight_and_keeps_the_strongest_other() {
        let c = paint(0, slot_of(2), 1.0);
        assert_eq!(Paint::decode(c).weight_of(slot_of(2)), 1.0);
        let c = paint(c, slot_of(5), 0.4);
        let p = Paint::decode(c);
        assert!(close(p.weight_of(slot_of(5)), 102.0 / 255.0));
        assert!(close(p.weight_of(slot_of(2)), 153.0 / 255.0));
        // Painting the same weight again changes nothing (idempotent).
        assert_eq!(paint(c, slot_of(5), 0.4), c);
        // A third layer drops the weaker one.
        let c3 = paint(c, slot_of(7), 0.2);
        assert_eq!(Paint::decode(c3).weight_of(slot_of(5)), 0.0);
        // Fading a layer to zero leaves the other alone; fading the only layer leaves auto.
        let solo = paint(0, slot_of(1), 1.0);
        assert_eq!(paint(solo, slot_of(1), 0.0), 0);
        assert_eq!(paint(c, slot_of(5), 0.0), paint(0, slot_of(2), 1.0));
        // The hole bit survives painting.
        assert_eq!(paint(HOLE, slot_of(3), 1.0) & HOLE, HOLE);
        assert_eq!(paint(CLEAR, slot_of(3), 1.0) & CLEAR, CLEAR);
    }

    #[test]
    fn encoding_is_canonical_and_fits_an_f32() {
        for c in [0, paint(0, 9, 1.0), paint(paint(0, 63, 1.0), 62, 0.5)] {
            assert_eq!(Paint::decode(c).encode(), c);
            let g = gpu_control(c | HOLE, true);
            assert_eq!(g as u32, (c & PAINT_MASK) | GPU_HOLE);
            assert!(g < (1u32 << 21) as f32);
        }
    }
}
