//! Heightfields from noise (the `noise` crate): fractal Brownian motion over a base noise, rows in parallel.
//!
//! Height of sample (x, z) = `max(noise(x * frequency, z * frequency) * height, sea_level)`. Unlike document
//! 000, whose `max(sea_level, noise) * height` compares the sea level with the normalised noise (so its sea
//! level is a fraction of `height`, and a negative `height` turns it into a ceiling), our `sea_level` is a
//! height in world units: the terrain never goes below it.

use crate::bezier_patch::Texel;
use crate::progress::Progress;
use crate::samples::Samples;
use crate::samples::{block_texels, slope};
use noise::{Fbm, MultiFractal, NoiseFn, OpenSimplex, Perlin, SuperSimplex, Value};
use std::fmt;

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
    /// Depth of the erosion filter's gullies, world units (0: none; `erosion::Filter`).
    pub erosion: f64,
    /// Samples between the largest gullies.
    pub erosion_scale: f64,
    /// Octaves of gullies.
    pub erosion_detail: usize,
    /// -1: deep gullies … 1: sharp ridges.
    pub erosion_balance: f64,
    /// Where this world starts in the endless noise: sample (x, z) is the noise's sample
    /// (x + offset[0], z + offset[1]). Whole samples, so a world and its offset copy agree bit for bit.
    pub offset: [i64; 2],
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
            erosion: 0.0,
            erosion_scale: 24.0,
            erosion_detail: 3,
            erosion_balance: 0.0,
            offset: [0, 0],
        }
    }
}

/// A generator that cannot be made: a parameter outside the range that works (the message names it and
/// the range), or a spacing `TerrainData` would refuse.
#[derive(Clone, Debug, PartialEq)]
pub enum NoiseParamsError {
    Param(String),
    Spacing(crate::terrain_data::TerrainDataError),
}

impl std::error::Error for NoiseParamsError {}

impl fmt::Display for NoiseParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Param(m) => f.write_str(m),
            Self::Spacing(e) => e.fmt(f),
        }
    }
}

impl From<crate::terrain_data::TerrainDataError> for NoiseParamsError {
    fn from(e: crate::terrain_data::TerrainDataError) -> Self {
        Self::Spacing(e)
    }
}

impl NoiseParams {
    pub fn validate(&self) -> Result<(), NoiseParamsError> {
        let err = |m: String| Err(NoiseParamsError::Param(m));
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
        if !(self.erosion.is_finite() && self.erosion.abs() <= 1.0e5) {
            return err(format!(
                "erosion must be in [-100000, 100000], got {}",
                self.erosion
            ));
        }
        if !(self.erosion_scale.is_finite() && (1.0..=1.0e5).contains(&self.erosion_scale)) {
            return err(format!(
                "erosion_scale must be in [1, 100000] samples, got {}",
                self.erosion_scale
            ));
        }
        if !(1..=crate::erosion::MAX_DETAIL).contains(&self.erosion_detail) {
            return err(format!(
                "erosion_detail must be in [1, {}], got {}",
                crate::erosion::MAX_DETAIL,
                self.erosion_detail
            ));
        }
        if !(-1.0..=1.0).contains(&self.erosion_balance) {
            return err(format!(
                "erosion_balance must be in [-1, 1], got {}",
                self.erosion_balance
            ));
        }
        Ok(())
    }

    /// The erosion filter these parameters ask for.
    pub fn filter(&self) -> crate::erosion::Filter {
        crate::erosion::Filter {
            strength: self.erosion,
            scale: self.erosion_scale,
            detail: self.erosion_detail,
            balance: self.erosion_balance,
            seed: self.seed,
        }
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
    let filter = p.filter();
    let [ox, oz] = p.offset;
    if filter.is_on() {
        let base = |x: i64, z: i64| {
            let (wx, wz) = warp.apply(x as f64, z as f64);
            noise.get([wx * p.frequency, wz * p.frequency]) * p.height
        };
        fill_filtered(&base, &filter, p.sea_level, p.offset, width, out, progress);
        return;
    }
    out.par_chunks_mut(width).enumerate().for_each(|(z, row)| {
        // A cancelled run leaves its remaining rows as they are (the caller drops them).
        if progress.is_cancelled() {
            return;
        }
        for (x, h) in row.iter_mut().enumerate() {
            let (x, z) = ((x as i64).saturating_add(ox), (z as i64).saturating_add(oz));
            let (wx, wz) = warp.apply(x as f64, z as f64);
            let v = noise.get([wx * p.frequency, wz * p.frequency]) * p.height;
            *h = v.max(p.sea_level) as f32;
        }
        progress.add(1);
    });
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
    Ok(!progress.is_cancelled())
}

/// Rows of samples filled in bands: a band's unfiltered heights (with a sample of margin all round, for
/// the gradient) once each, then the erosion filter per sample. The same arithmetic as
/// `Generated::height`, so any window equals the whole map's.
fn fill_filtered(
    base: &(dyn Fn(i64, i64) -> f64 + Sync),
    filter: &crate::erosion::Filter,
    sea_level: f64,
    offset: [i64; 2],
    width: usize,
    out: &mut [f32],
    progress: &Progress,
) {
    use rayon::prelude::*;
    const BAND: usize = 32;
    out.par_chunks_mut(width * BAND)
        .enumerate()
        .for_each(|(band, rows)| {
            if progress.is_cancelled() {
                return;
            }
            let z0 = ((band * BAND) as i64).saturating_add(offset[1]);
            let d = rows.len() / width;
            let mut b = Vec::new();
            filtered_block(
                base, filter, sea_level, offset[0], z0, width, d, &mut b, rows,
            );
            progress.add(d as u64);
        });
}

/// Filtered heights of samples `x0 .. x0 + w` × `z0 .. z0 + d` into `out`, row-major (`b`: scratch for
/// the unfiltered block with its margin).
#[allow(clippy::too_many_arguments)]
fn filtered_block(
    base: &dyn Fn(i64, i64) -> f64,
    filter: &crate::erosion::Filter,
    sea_level: f64,
    x0: i64,
    z0: i64,
    w: usize,
    d: usize,
    b: &mut Vec<f64>,
    out: &mut [f32],
) {
    let bw = w + 2;
    b.clear();
    for j in -1..=d as i64 {
        let z = z0.saturating_add(j);
        b.extend((-1..=w as i64).map(|i| base(x0.saturating_add(i), z)));
    }
    for j in 0..d {
        for i in 0..w {
            let c = (j + 1) * bw + i + 1;
            let g = [(b[c + 1] - b[c - 1]) * 0.5, (b[c + bw] - b[c - bw]) * 0.5];
            let (x, z) = (x0.saturating_add(i as i64), z0.saturating_add(j as i64));
            let v = filter.apply(b[c], g, x as f64, z as f64);
            out[j * w + i] = v.max(sea_level) as f32;
        }
    }
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
        crate::terrain_data::check_spacing(spacing)?;
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

    /// Height of the noise's sample (x, z) (this world's offset already added) before the erosion filter
    /// and the sea level.
    #[inline(always)]
    fn base(&self, x: i64, z: i64) -> f64 {
        let f = self.params.frequency;
        let (wx, wz) = self.warp.apply(x as f64, z as f64);
        self.fractal.get([wx * f, wz * f]) * self.params.height
    }

    /// Height of sample (x, z): `fill`'s formula (with the erosion filter, `filtered_block`'s).
    #[inline(always)]
    pub fn height(&self, x: i64, z: i64) -> f32 {
        let [ox, oz] = self.params.offset;
        let (x, z) = (x.saturating_add(ox), z.saturating_add(oz));
        let b = self.base(x, z);
        let filter = self.params.filter();
        let v = if filter.is_on() {
            let h = |dx: i64, dz: i64| self.base(x.saturating_add(dx), z.saturating_add(dz));
            let g = [(h(1, 0) - h(-1, 0)) * 0.5, (h(0, 1) - h(0, -1)) * 0.5];
            filter.apply(b, g, x as f64, z as f64)
        } else {
            b
        };
        v.max(self.params.sea_level) as f32
    }

    /// Lowest and highest height any sample can have (fractal values stay within about ±1; a margin is
    /// added for the base noises that overshoot a little).
    pub fn bounds(&self) -> (f32, f32) {
        // The erosion filter moves a sample by at most its strength times (1 + |balance|).
        let a = self.params.height.abs() * 1.25
            + self.params.erosion.abs() * (1.0 + self.params.erosion_balance.abs());
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
        let filter = self.params.filter();
        if filter.is_on() {
            heights.resize(w * d, 0.0);
            let mut b = Vec::new();
            let base = |x: i64, z: i64| self.base(x, z);
            filtered_block(
                &base,
                &filter,
                self.params.sea_level,
                x0.saturating_add(self.params.offset[0]),
                z0.saturating_add(self.params.offset[1]),
                w,
                d,
                &mut b,
                heights,
            );
            return;
        }
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
    fn an_offset_world_is_the_same_noise_further_on() {
        for erosion in [0.0, 5.0] {
            let p = NoiseParams {
                seed: 3,
                height: 50.0,
                warp: 12.0,
                erosion,
                ..Default::default()
            };
            let off = [5_000_000, -3_000_017];
            let q = NoiseParams { offset: off, ..p };
            let (g, h) = (
                Generated::new(&p, 1.0).unwrap(),
                Generated::new(&q, 1.0).unwrap(),
            );
            let n = 40;
            let mut map = vec![0.0; n * n];
            generate(&q, n, &mut map).unwrap();
            let (mut blk, mut c) = (Vec::new(), Vec::new());
            h.read_block(0, 0, n, n, &mut blk, &mut c);
            for z in 0..n as i64 {
                for x in 0..n as i64 {
                    let want = g.height(x + off[0], z + off[1]);
                    let i = (z as usize) * n + x as usize;
                    assert_eq!(h.height(x, z), want, "({x}, {z}) erosion {erosion}");
                    assert_eq!(map[i], want, "map ({x}, {z}) erosion {erosion}");
                    assert_eq!(blk[i], want, "block ({x}, {z}) erosion {erosion}");
                }
            }
        }
    }

    #[test]
    fn eroded_windows_equal_the_whole_map_bit_for_bit() {
        let p = NoiseParams {
            seed: 11,
            height: 60.0,
            frequency: 1.0 / 80.0,
            erosion: 6.0,
            erosion_scale: 20.0,
            erosion_detail: 4,
            erosion_balance: -0.3,
            ..Default::default()
        };
        let n = 100;
        let mut whole = vec![0.0; n * n];
        generate(&p, n, &mut whole).unwrap();
        let plain = {
            let mut v = vec![0.0; n * n];
            generate(&NoiseParams { erosion: 0.0, ..p }, n, &mut v).unwrap();
            v
        };
        assert!(whole.iter().zip(&plain).filter(|(a, b)| a != b).count() > n * n / 2);
        let g = Generated::new(&p, 1.0).unwrap();
        for z in 0..n {
            for x in 0..n {
                assert_eq!(g.height(x as i64, z as i64), whole[z * n + x], "({x}, {z})");
            }
        }
        // A block read far out equals the samples one by one, and stays within the bounds.
        let (mut h, mut c) = (Vec::new(), Vec::new());
        let (x0, z0) = (1_000_003, -7_000_001);
        g.read_block(x0, z0, 37, 29, &mut h, &mut c);
        let (lo, hi) = g.bounds();
        for j in 0..29 {
            for i in 0..37 {
                let v = g.height(x0 + i as i64, z0 + j as i64);
                assert_eq!(h[j * 37 + i], v);
                assert!(v.is_finite() && v >= lo && v <= hi);
            }
        }
        let bad = NoiseParams {
            erosion_detail: 0,
            ..p
        };
        assert!(bad.validate().is_err());
        assert!(NoiseParams {
            erosion_balance: 2.0,
            ..p
        }
        .validate()
        .is_err());
    }

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
        assert_eq!(pr.done(), 20);
        let pr = Progress::default();
        pr.cancel();
        let mut b = vec![0.0; 32 * 20];
        assert!(!generate_watched(&p, 32, &mut b, &pr).unwrap(), "cancelled");
        assert_eq!(pr.done(), 0);
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
        assert!(matches!(
            Generated::new(&p, 0.0),
            Err(NoiseParamsError::Spacing(_))
        ));
        assert!(Generated::new(&p, 0.0)
            .unwrap_err()
            .to_string()
            .contains("spacing"));
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
        assert!(bad.validate().unwrap_err().to_string().contains("warp"));
    }

    #[test]
    fn bad_params_are_named() {
        let p = NoiseParams {
            octaves: 0,
            ..Default::default()
        };
        assert!(p.validate().unwrap_err().to_string().contains("octaves"));
        let p = NoiseParams {
            frequency: f64::NAN,
            ..Default::default()
        };
        assert!(p.validate().unwrap_err().to_string().contains("frequency"));
    }
}
