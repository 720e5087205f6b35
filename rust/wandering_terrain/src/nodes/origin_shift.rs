//! The floating origin of a terrain node (`terrain_core::origin_shift`): the world shifted by a whole
//! number of the terrain's grid steps, so what the engine sees stays near zero however far out the player
//! goes. The node owns the offset; its queries, collision, drawing and whatever stands on it
//! (`surface::TerrainSurface::frame`) apply it.

use godot::prelude::*;
use terrain_core::origin_shift::{shift_step, snap};

/// Largest origin offset per axis (world units): 16,777,216 steps of 1 stay exact in the `Vector3` the
/// API returns (f32 holds every whole number up to 2^24), and f64 sample arithmetic stays exact far beyond.
pub const MAX_OFFSET: f64 = 16_777_216.0;

#[derive(Default, Clone, Copy)]
pub struct OriginShift {
    /// World X/Z the origin has moved by (whole steps: exact).
    pub offset: [f64; 2],
    /// A shift happened since the pieces were last placed.
    pub moved: bool,
}

impl OriginShift {
    pub fn world(&self) -> [f64; 3] {
        [self.offset[0], 0.0, self.offset[1]]
    }

    pub fn as_vector(&self) -> Vector3 {
        Vector3::new(self.offset[0] as f32, 0.0, self.offset[1] as f32)
    }

    /// Snaps `by` to `steps` (X, Z) and applies it; returns the shift applied, or why nothing moved
    /// (`class` names the node in the message). Y is not shifted: heights stay as they are.
    pub fn shift(
        &mut self,
        class: &str,
        by: Vector3,
        steps: Option<[f64; 2]>,
    ) -> Result<[f64; 2], ShiftError> {
        let by = [f64::from(by.x), f64::from(by.z)];
        let (class, kept) = (class.to_string(), self.offset);
        if !by.iter().all(|v| v.is_finite()) {
            return Err(ShiftError::NotFinite { class, by, kept });
        }
        let Some(steps) = steps else {
            return Err(ShiftError::NoCommonStep { class, kept });
        };
        let d = [snap(by[0], steps[0]), snap(by[1], steps[1])];
        let next = [self.offset[0] + d[0], self.offset[1] + d[1]];
        if next.iter().any(|v| v.abs() > MAX_OFFSET) {
            return Err(ShiftError::TooFar { class, next, kept });
        }
        self.offset = next;
        self.moved |= d != [0.0, 0.0];
        Ok(d)
    }

    /// The steps a shift snaps to on X and Z: a multiple of `lattice` that is a whole number of samples
    /// `sample[axis]` apart.
    pub fn steps(lattice: f64, sample: [f64; 2]) -> Option<[f64; 2]> {
        Some([
            shift_step(lattice, sample[0])?,
            shift_step(lattice, sample[1])?,
        ])
    }
}

/// Why a shift of the origin was refused (the origin stays at `kept`).
#[derive(Debug)]
pub enum ShiftError {
    NotFinite {
        class: String,
        by: [f64; 2],
        kept: [f64; 2],
    },
    NoCommonStep {
        class: String,
        kept: [f64; 2],
    },
    TooFar {
        class: String,
        next: [f64; 2],
        kept: [f64; 2],
    },
}

impl std::fmt::Display for ShiftError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Self::NotFinite { class, by, kept } => write!(
                f,
                "{class}.shift_origin: the shift must be finite, got ({}, {}); the origin stays at {kept:?}",
                by[0], by[1]
            ),
            Self::NoCommonStep { class, kept } => write!(
                f,
                "{class}.shift_origin: the coarsest clipmap level's vertex step and the sample step share no multiple up to 1024 steps (set vertex_spacing to a multiple or a power-of-two fraction of the sample spacing); the origin stays at {kept:?}"
            ),
            Self::TooFar { class, next, kept } => write!(
                f,
                "{class}.shift_origin: the origin offset must stay within ±{MAX_OFFSET} world units per axis, got ({}, {}); the origin stays at {kept:?}",
                next[0], next[1]
            ),
        }
    }
}
