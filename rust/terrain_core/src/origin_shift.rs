//! Floating origin: a terrain drawn, collided and answered as if the world were shifted by a whole number
//! of samples, so that every position handed to the engine (32-bit floats in Godot, its physics and its
//! shaders) stays near zero however far out the world goes. The CPU keeps world keys (sample, lattice and
//! cell indices) and f64 positions; only what crosses into the engine is made relative to the shift.
//!
//! A shift is snapped so that it moves every grid the terrain draws from by whole steps: the clipmap's
//! lattices (the coarsest level's step is a multiple of every finer one) and the sample grid. Then what is
//! drawn after a shift is bit for bit what was drawn before it, and the data windows keep their texels: only
//! their toroidal addressing moves by `slot_shift`.

/// The smallest shift step along one axis: a multiple of `lattice` (the coarsest clipmap level's vertex
/// step) that is also a whole number of `sample` steps, in world units. None when no multiple up to 1024
/// lattice steps is (spacings that share no small common multiple).
pub fn shift_step(lattice: f64, sample: f64) -> Option<f64> {
    if !(lattice.is_finite() && sample.is_finite() && lattice > 0.0 && sample > 0.0) {
        return None;
    }
    (1..=1024u32).map(|m| lattice * f64::from(m)).find(|&s| {
        let k = s / sample;
        (k - k.round()).abs() <= 1e-9 * k.max(1.0)
    })
}

/// `by` rounded to the nearest multiple of `step` (a whole number of steps, exactly).
pub fn snap(by: f64, step: f64) -> f64 {
    if !by.is_finite() || step <= 0.0 {
        return 0.0;
    }
    (by / step).round() * step
}

/// A snapped offset in whole `unit`s (lattice or sample steps).
pub fn whole(offset: f64, unit: f64) -> i64 {
    (offset / unit).round() as i64
}

/// How far the toroidal slots of a window `window` texels wide move when its indices move by `whole`
/// units: the shader adds this to an index before taking it modulo the window.
pub fn slot_shift(whole: i64, window: usize) -> i64 {
    whole.rem_euclid(window as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_common_multiples() {
        assert_eq!(shift_step(64.0, 1.0), Some(64.0));
        assert_eq!(shift_step(64.0, 2.0), Some(64.0));
        // A lattice of 48 over samples 32 apart: 96 is the first step on both.
        assert_eq!(shift_step(48.0, 32.0), Some(96.0));
        assert_eq!(shift_step(32.0, 0.7), Some(224.0));
        assert_eq!(shift_step(1.0, f64::NAN), None);
        assert_eq!(shift_step(1.0, 0.0), None);
        assert_eq!(shift_step(1.0, std::f64::consts::PI), None);
    }

    #[test]
    fn snapping_is_exact_far_out() {
        assert_eq!(snap(5.0e6 + 20.0, 64.0), 5.0e6);
        assert_eq!(snap(-1000.0, 64.0), -1024.0);
        assert_eq!(snap(f64::NAN, 64.0), 0.0);
        assert_eq!(whole(5.0e6, 64.0), 78125);
        assert_eq!(slot_shift(-1, 134), 133);
        assert_eq!(slot_shift(78125, 134), 78125 % 134);
    }
}
