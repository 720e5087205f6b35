//! Heightfields from noise (the `noise` crate): fractal Brownian motion over a base noise, rows in parallel.
//!
//! Height of sample (x, z) = `max(noise(x * frequency, z * frequency) * height, sea_level)`. Unlike document
//! 000, whose `max(sea_level, noise) * height` compares the sea level with the normalised noise (so its sea
//! level is a fraction of `height`, and a negative `height` turns it into a ceiling), our `sea_level` is a
//! height in world units: the terrain never goes below it.

use crate::bezier_patch::Texel;
use crate::samples::Samples;
use crate::samples::{block_texels, slope};
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
    /// Domain warp: samples are displaced by up to this many samples along X and Z by two smooth noises
    /// before the fractal reads them (bends ridges and valleys); 0: none.
    pub warp: f64,
    /// Cycles per sample of the warping noises.
    pub warp_frequency: f64,
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
            warp: 0.0,
            warp_frequency: 1.0 / 256.0,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct NoiseParamsError(pub String);

impl std::error::Error for NoiseParamsError {}

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
        if !(self.warp.is_finite() && (0.0..=1.0e6).contains(&self.warp)) {
            return err(format!("warp must be in [0, 1000000], got {}", self.warp));
        }
        if !(self.warp_frequency.is_finite()
            && self.warp_frequency > 0.0
            && self.warp_frequency <= 1.0e3)
        {
            return err(format!(
                "warp_frequency must be in (0, 1000], got {}",
                self.warp_frequency
            ));
        }
        Ok(())
    }
}

/// The domain warp of a `NoiseParams`: two Perlin noises (seeds next to the fractal's) that displace a
/// sample's position before the fractal reads it.
#[derive(Clone, Debug)]
struct Warp {
    x: Perlin,
    z: Perlin,
    amount: f64,
    frequency: f64,
}

impl Warp {
    fn new(p: &NoiseParams) -> Self {
        Self {
            x: Perlin::new(p.seed.wrapping_add(101)),
            z: Perlin::new(p.seed.wrapping_add(202)),
            amount: p.warp,
            frequency: p.warp_frequency,
        }
    }

    /// Position (in samples) the fractal reads for sample (x, z); (x, z) itself without a warp.
    #[inline(always)]
    fn apply(&self, x: f64, z: f64) -> (f64, f64) {
        if self.amount == 0.0 {
            return (x, z);
        }
        let q = [x * self.frequency, z * self.frequency];
        (
            x + self.amount * self.x.get(q),
            z + self.amount * self.z.get(q),
        )
    }
}

fn fill<N: NoiseFn<f64, 2> + Sync>(
    noise: &N,
    p: &NoiseParams,
    width: usize,
    out: &mut [f32],
    progress: &Progress,
) {
    let warp = Warp::new(p);
    use rayon::prelude::*;
    out.par_chunks_mut(width).enumerate().for_each(|(z, row)| {
        // A cancelled run leaves its remaining rows as they are (the caller drops them).
        if progress.cancel.load(Ordering::Relaxed) {
            return;
        }
        for (x, h) in row.iter_mut().enumerate() {
            let (wx, wz) = warp.apply(x as f64, z as f64);
            let v = noise.get([wx * p.frequency, wz * p.frequency]) * p.height;
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

/// The fractal of a `NoiseParams`, built once (its permutation tables) and evaluated anywhere.
#[derive(Clone, Debug)]
enum Fractal {
    Perlin(Fbm<Perlin>),
    OpenSimplex(Fbm<OpenSimplex>),
    SuperSimplex(Fbm<SuperSimplex>),
    Value(Fbm<Value>),
}

impl Fractal {
    #[inline(always)]
    fn get(&self, p: [f64; 2]) -> f64 {
        match self {
            Self::Perlin(n) => n.get(p),
            Self::OpenSimplex(n) => n.get(p),
            Self::SuperSimplex(n) => n.get(p),
            Self::Value(n) => n.get(p),
        }
    }
}

/// An endless generated terrain: the sample grid of `NoiseParams` over every index, computed where it is
/// needed (no storage). Sample (x, z) is what `generate` writes at (x, z), so a `TerrainData` generated with
/// the same parameters holds exactly these samples over its extent.
#[derive(Clone, Debug)]
pub struct Generated {
    params: NoiseParams,
    spacing: f64,
    fractal: Fractal,
    warp: Warp,
}

impl Generated {
    pub fn new(params: &NoiseParams, spacing: f64) -> Result<Self, NoiseParamsError> {
        params.validate()?;
        crate::terrain_data::check_spacing(spacing).map_err(|e| NoiseParamsError(e.to_string()))?;
        let fractal = match params.kind {
            NoiseKind::Perlin => Fractal::Perlin(fbm(params)),
            NoiseKind::OpenSimplex => Fractal::OpenSimplex(fbm(params)),
            NoiseKind::SuperSimplex => Fractal::SuperSimplex(fbm(params)),
            NoiseKind::Value => Fractal::Value(fbm(params)),
        };
        Ok(Self {
            params: *params,
            spacing,
            fractal,
            warp: Warp::new(params),
        })
    }

    pub fn params(&self) -> &NoiseParams {
        &self.params
    }

    /// Height of sample (x, z): `fill`'s formula.
    #[inline(always)]
    pub fn height(&self, x: i64, z: i64) -> f32 {
        let f = self.params.frequency;
        let (wx, wz) = self.warp.apply(x as f64, z as f64);
        let v = self.fractal.get([wx * f, wz * f]) * self.params.height;
        v.max(self.params.sea_level) as f32
    }

    /// Lowest and highest height any sample can have (fractal values stay within about ±1; a margin is
    /// added for the base noises that overshoot a little).
    pub fn bounds(&self) -> (f32, f32) {
        let a = self.params.height.abs() * 1.25;
        let lo = (-a).max(self.params.sea_level);
        let hi = a.max(self.params.sea_level);
        (lo as f32, hi as f32)
    }

    /// The four corner texels of the patch at sample-space (sx, sz) and its parameters: the 12 samples
    /// around the patch are computed once each (the same arithmetic as `TerrainData`'s patch).
    #[inline]
    fn patch(&self, sx: f64, sz: f64) -> ([Texel; 4], f32, f32) {
        let ([ix, iz], tu, tv) = crate::bezier_patch::locate(sx, sz);
        let h = |dx: i64, dz: i64| self.height(ix.saturating_add(dx), iz.saturating_add(dz));
        // The block's corners are not read: 12 samples, not 16.
        let rows = [
            [0.0, h(0, -1), h(1, -1), 0.0],
            [h(-1, 0), h(0, 0), h(1, 0), h(2, 0)],
            [h(-1, 1), h(0, 1), h(1, 1), h(2, 1)],
            [0.0, h(0, 2), h(1, 2), 0.0],
        ];
        (block_texels(&rows), tu, tv)
    }
}

impl Samples for Generated {
    fn spacing(&self) -> f64 {
        self.spacing
    }
    #[inline]
    fn texel(&self, x: i64, z: i64) -> Texel {
        let h = |dx: i64, dz: i64| self.height(x.saturating_add(dx), z.saturating_add(dz));
        [h(0, 0), slope(h(-1, 0), h(1, 0)), slope(h(0, -1), h(0, 1))]
    }
    fn control(&self, _x: i64, _z: i64) -> u32 {
        0
    }
    #[inline]
    fn patch_gradient(&self, sx: f64, sz: f64) -> (f32, f32, f32) {
        let (c, tu, tv) = self.patch(sx, sz);
        crate::bezier_patch::gradient_in_patch(&c, tu, tv)
    }
    #[inline]
    fn patch_height(&self, sx: f64, sz: f64) -> f32 {
        let (c, tu, tv) = self.patch(sx, sz);
        crate::bezier_patch::height_in_patch(&c, tu, tv)
    }
    fn is_hole_at_sample(&self, _sx: f64, _sz: f64) -> bool {
        false
    }
    fn patch_bounds(&self, ix: i64, iz: i64) -> (f32, f32) {
        // The 12 samples of the patch once each (the trait's default reads 20).
        let (c, _, _) = self.patch(ix as f64 + 0.5, iz as f64 + 0.5);
        crate::bezier_patch::control_bounds(&c)
    }
    fn size(&self) -> Option<[usize; 2]> {
        None
    }
    fn streamed(&self) -> bool {
        true
    }
    fn height_bounds(&self) -> (f32, f32) {
        self.bounds()
    }
    fn read_block(
        &self,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
        heights: &mut Vec<f32>,
        control: &mut Vec<u32>,
    ) {
        // The fractal once per sample (the default reads whole texels).
        heights.clear();
        control.clear();
        for j in 0..d as i64 {
            let z = z0.saturating_add(j);
            heights.extend((0..w as i64).map(|i| self.height(x0.saturating_add(i), z)));
        }
    }
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
    fn endless_samples_equal_a_generated_terrain_inside_it() {
        use crate::samples::{height_at, normal_at};
        use crate::terrain_data::TerrainData;
        let p = NoiseParams {
            seed: 9,
            frequency: 0.05,
            height: 30.0,
            ..Default::default()
        };
        let (w, d) = (48, 40);
        let mut h = vec![0.0; w * d];
        generate(&p, w, &mut h).unwrap();
        let t = TerrainData::from_heights(w, d, 2.0, h).unwrap();
        let g = Generated::new(&p, 2.0).unwrap();
        for z in 1..d as i64 - 1 {
            for x in 1..w as i64 - 1 {
                assert_eq!(Samples::texel(&g, x, z), t.texel(x, z), "texel ({x}, {z})");
            }
        }
        // Away from the edges (where the finite terrain clamps) the surfaces are the same bits.
        for i in 0..500 {
            let (x, z) = (
                6.0 + (i as f64 * 0.731) % 80.0,
                6.0 + (i as f64 * 0.377) % 64.0,
            );
            assert_eq!(height_at(&g, x, z).to_bits(), t.height_at(x, z).to_bits());
            assert_eq!(normal_at(&g, x, z), t.normal_at(x, z));
            let (sx, sz) = (x / 2.0 - 0.5, z / 2.0 - 0.5);
            assert_eq!(g.patch_gradient(sx, sz), t.patch_gradient(sx, sz));
        }
        // Endless: far away and at negative indices it is still terrain, within its bounds.
        let (lo, hi) = g.bounds();
        for &(x, z) in &[(-1.0e5, 3.0), (7.5e6, -2.5e6), (1e12, 1e12)] {
            let v = height_at(&g, x, z);
            assert!(v.is_finite() && v >= lo && v <= hi, "{v} at ({x}, {z})");
        }
        assert!(height_at(&g, f64::NAN, 0.0).is_nan());
        assert!(Generated::new(&p, 0.0).unwrap_err().0.contains("spacing"));
        // Rays meet the endless surface far out, at get_height, from any angle that comes down.
        for &(o, d) in &[
            ([5.0e4, 200.0, -3.0e4], [0.3, -1.0, 0.2]),
            ([-1.0e5, 40.0, 7.0], [1.0, -0.05, 0.3]),
            ([0.5, 60.0, 0.5], [0.0, -1.0, 0.0]),
        ] {
            let hit = crate::raycast::raycast(&g, o, d).expect("a hit");
            let want = height_at(&g, hit[0], hit[2]);
            assert_eq!(hit[1] as f32, want, "{o:?} {d:?}");
        }
        assert!(crate::raycast::raycast(&g, [0.0, 500.0, 0.0], [0.0, 1.0, 0.0]).is_none());
        // Beyond f64's sample resolution the walk cannot advance: a miss, at once.
        assert!(crate::raycast::raycast(&g, [3.4e38, 0.0, 0.0], [1.0, -0.3, 0.0]).is_none());
    }

    #[test]
    fn a_warped_world_is_the_same_endless_and_generated() {
        let p = NoiseParams {
            seed: 2,
            frequency: 0.04,
            warp: 12.0,
            warp_frequency: 0.02,
            ..Default::default()
        };
        let (w, d) = (40, 30);
        let mut h = vec![0.0; w * d];
        generate(&p, w, &mut h).unwrap();
        let g = Generated::new(&p, 1.0).unwrap();
        for z in 0..d {
            for x in 0..w {
                assert_eq!(g.height(x as i64, z as i64), h[z * w + x]);
            }
        }
        let mut plain = vec![0.0; w * d];
        generate(&NoiseParams { warp: 0.0, ..p }, w, &mut plain).unwrap();
        assert_ne!(plain, h, "the warp changes the terrain");
        let bad = NoiseParams { warp: -1.0, ..p };
        assert!(bad.validate().unwrap_err().0.contains("warp"));
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
