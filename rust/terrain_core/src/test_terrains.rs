//! Terrains the core's tests share: waves along X and Z plus a deterministic jitter (a hash of the sample
//! index), so patches have slopes, curvature and small bumps, and any two tests that want the same ground
//! build it the same way.

use crate::terrain_data::TerrainData;

/// Heights `sin(x·fx)·ax + cos(z·fz)·az + ((i · 7919) mod m) · j` for sample (x, z) = index i.
#[derive(Clone, Copy, Debug)]
pub struct Waves {
    /// Frequency and amplitude along X.
    pub x: (f32, f32),
    /// Frequency and amplitude along Z.
    pub z: (f32, f32),
    /// The jitter's modulus and step ((1, 0.0): none).
    pub jitter: (usize, f32),
}

impl Waves {
    /// `w × d` samples of these waves, as heights row-major.
    pub fn heights(&self, w: usize, d: usize) -> Vec<f32> {
        (0..w * d)
            .map(|i| {
                let (x, z) = ((i % w) as f32, (i / w) as f32);
                (x * self.x.0).sin() * self.x.1
                    + (z * self.z.0).cos() * self.z.1
                    + ((i * 7919) % self.jitter.0) as f32 * self.jitter.1
            })
            .collect()
    }

    /// A `w × d` terrain of these waves, samples `spacing` apart.
    pub fn terrain(&self, w: usize, d: usize, spacing: f64) -> TerrainData {
        TerrainData::from_heights(w, d, spacing, self.heights(w, d)).expect("a valid test terrain")
    }
}
