//! Heightfields from noise (the `noise` crate): fractal Brownian motion over a base noise, rows in parallel.
//!
//! Height of sample (x, z) = `max(noise(x * frequency, z * frequency) * height, sea_level)`. Unlike document
//! 000, whose `max(sea_level, noise) * height` compares the sea level with the normalised noise (so its sea
//! level is a fraction of `height`, and a negative `height` turns it into a ceiling), our `sea_level` is a
//! height in world units: the terrain never goes below it.

use noise::{Fbm, MultiFractal, NoiseFn, OpenSimplex, Perlin, SuperSimplex, Value};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Base noise of the fractal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseKind {
    Perlin = 0,
    OpenSimplex = 1,
    SuperSimplex = 2,
    Value = 3,
}

impl NoiseKind {
    pub fn from_index(i: i64) -> Option<Self> {
        [
            Self::Perlin,
            Self::OpenSimplex,
            Self::SuperSimplex,
            Self::Value,
        ]
        .get(usize::try_from(i).ok()?)
        .copied()
    }
}

/// Parameters of a generated heightfield.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseParams {
    pub kind: NoiseKind,
    pub seed: u32,
    /// Noise cycles per sample.
    pub frequency: f64,
    pub octaves: usize,
    pub lacunarity: f64,
    /// Amplitude factor per octave (persistence).
    pub gain: f64,
    /// World units for a noise value of 1.
    pub height: f64,
    /// Lowest height, in world units.
    pub sea_level: f64,
}

impl Default for NoiseParams {
    fn default() -> Self {
        Self {
            kind: NoiseKind::Perlin,
            seed: 0,
            frequency: 1.0 / 64.0,
            octaves: 5,
            lacunarity: 2.0,
            gain: 0.5,
            height: 32.0,
            sea_level: -1.0e9,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct NoiseParamsError(pub String);

impl fmt::Display for NoiseParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl NoiseParams {
    pub fn validate(&self) -> Result<(), NoiseParamsError> {
        let err = |m: String| Err(NoiseParamsError(m));
        if !(self.frequency.is_finite() && self.frequency > 0.0 && self.frequency <= 1.0e3) {
            return err(format!(
                "frequency must be in (0, 1000], got {}",
                self.frequency
            ));
        }
        if !(1..=Fbm::<Perlin>::MAX_OCTAVES).contains(&self.octaves) {
            return err(format!(
                "octaves must be in [1, {}], got {}",
                Fbm::<Perlin>::MAX_OCTAVES,
                self.octaves
            ));
        }
        if !(self.lacunarity.is_finite() && self.lacunarity > 0.0 && self.lacunarity <= 16.0) {
            return err(format!(
                "lacunarity must be in (0, 16], got {}",
                self.lacunarity
            ));
        }
        if !(self.gain.is_finite() && self.gain > 0.0 && self.gain <= 4.0) {
            return err(format!("gain must be in (0, 4], got {}", self.gain));
        }
        if !(self.height.is_finite() && self.height.abs() <= 1.0e6) {
            return err(format!(
                "height must be finite and in [-1000000, 1000000], got {}",
                self.height
            ));
        }
        // Heights are f32: a sea level beyond this would turn every sample into it or into infinity.
        if !(-1.0e9..=1.0e9).contains(&self.sea_level) {
            return err(format!(
                "sea_level must be a number in [-1000000000, 1000000000], got {}",
                self.sea_level
            ));
        }
        Ok(())
    }
}

fn fill<N: NoiseFn<f64, 2> + Sync>(
    noise: &N,
    p: &NoiseParams,
    width: usize,
    out: &mut [f32],
    progress: &Progress,
) {
    use rayon::prelude::*;
    out.par_chunks_mut(width).enumerate().for_each(|(z, row)| {
        // A cancelled run leaves its remaining rows as they are (the caller drops them).
        if progress.cancel.load(Ordering::Relaxed) {
            return;
        }
        let fz = z as f64 * p.frequency;
        for (x, h) in row.iter_mut().enumerate() {
            let v = noise.get([x as f64 * p.frequency, fz]) * p.height;
            *h = v.max(p.sea_level) as f32;
        }
        progress.rows.fetch_add(1, Ordering::Relaxed);
    });
}

/// Shared between a generation running on worker threads and whoever watches it: rows done, and a flag
/// that asks it to stop.
#[derive(Debug, Default)]
pub struct Progress {
    pub rows: AtomicUsize,
    pub cancel: AtomicBool,
}

fn fbm<T: Default + noise::Seedable + NoiseFn<f64, 2>>(p: &NoiseParams) -> Fbm<T> {
    // Frequency is applied to the coordinates in `fill`, so the fractal itself runs at frequency 1.
    Fbm::<T>::new(p.seed)
        .set_frequency(1.0)
        .set_octaves(p.octaves)
        .set_lacunarity(p.lacunarity)
        .set_persistence(p.gain)
}

/// Fills `out` (`width * depth`, row-major) with generated heights.
pub fn generate(p: &NoiseParams, width: usize, out: &mut [f32]) -> Result<(), NoiseParamsError> {
    generate_watched(p, width, out, &Progress::default()).map(|_| ())
}

/// `generate`, counting finished rows in `progress` and stopping early when its `cancel` is set. Returns
/// whether it ran to the end.
pub fn generate_watched(
    p: &NoiseParams,
    width: usize,
    out: &mut [f32],
    progress: &Progress,
) -> Result<bool, NoiseParamsError> {
    p.validate()?;
    match p.kind {
        NoiseKind::Perlin => fill(&fbm::<Perlin>(p), p, width, out, progress),
        NoiseKind::OpenSimplex => fill(&fbm::<OpenSimplex>(p), p, width, out, progress),
        NoiseKind::SuperSimplex => fill(&fbm::<SuperSimplex>(p), p, width, out, progress),
        NoiseKind::Value => fill(&fbm::<Value>(p), p, width, out, progress),
    }
    Ok(!progress.cancel.load(Ordering::Relaxed))
}

/// The same fractal evaluated once, single-threaded: the reference cost per sample for benchmarks.
pub fn sample_once(p: &NoiseParams, x: f64, z: f64) -> f64 {
    fbm::<Perlin>(p).get([x * p.frequency, z * p.frequency])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_clamped_by_sea_level() {
        let p = NoiseParams {
            seed: 3,
            height: 10.0,
            sea_level: -1.0,
            ..Default::default()
        };
        let (mut a, mut b) = (vec![0.0; 64 * 32], vec![0.0; 64 * 32]);
        generate(&p, 64, &mut a).unwrap();
        generate(&p, 64, &mut b).unwrap();
        assert_eq!(a, b);
        assert!(a.iter().all(|&h| h >= -1.0));
        assert!(a.iter().any(|&h| h > 0.5), "some relief");
        let q = NoiseParams { seed: 4, ..p };
        generate(&q, 64, &mut b).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn progress_counts_rows_and_cancel_stops() {
        let p = NoiseParams::default();
        let mut a = vec![0.0; 32 * 20];
        let pr = Progress::default();
        assert!(generate_watched(&p, 32, &mut a, &pr).unwrap());
        assert_eq!(pr.rows.load(Ordering::Relaxed), 20);
        let pr = Progress::default();
        pr.cancel.store(true, Ordering::Relaxed);
        let mut b = vec![0.0; 32 * 20];
        assert!(!generate_watched(&p, 32, &mut b, &pr).unwrap(), "cancelled");
        assert_eq!(pr.rows.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn bad_params_are_named() {
        let p = NoiseParams {
            octaves: 0,
            ..Default::default()
        };
        assert!(p.validate().unwrap_err().0.contains("octaves"));
        let p = NoiseParams {
            frequency: f64::NAN,
            ..Default::default()
        };
        assert!(p.validate().unwrap_err().0.contains("frequency"));
    }
}
