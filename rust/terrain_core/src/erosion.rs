//! Erosion, two ways.
//!
//! - **A per-sample erosion filter** for generated terrain: gullies that run down the slope, computed at each
//!   sample from the terrain's height and gradient there (the "erosion filter" family of procedural
//!   techniques popularised for shaders by Clay John and Rune Skovbo Johansen: waves that vary across the
//!   slope direction, with a random phase per lattice cell blended smoothly, octave by octave). It needs no neighbourhood beyond the
//!   gradient, so an endless world or a region map gets the same heights window by window.
//! - **A simulation** for finite maps and brushes: hydraulic erosion by water droplets (after Hans Theobald
//!   Beyer's "Implementation of a method for hydraulic erosion", as popularised by Sebastian Lague: each
//!   droplet runs downhill, picks up sediment up to its capacity and drops it where it slows), then thermal
//!   erosion (material slides where the slope exceeds a talus angle). Droplets run one after another with
//!   numbers hashed from (seed, droplet), so a seed gives the same terrain on every run and machine.

use crate::hash::mix;
use crate::progress::Progress;

/// The per-sample filter's settings (all in the generator's units: samples and world heights).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Filter {
    /// Depth of the gullies, world units (0: off).
    pub strength: f64,
    /// Samples between gullies of the first octave.
    pub scale: f64,
    /// Octaves of gullies (each half the size and depth of the last).
    pub detail: usize,
    /// -1: deep gullies, 0: both, 1: sharp ridges.
    pub balance: f64,
    pub seed: u32,
}

/// The most filter octaves.
pub const MAX_DETAIL: usize = 6;

/// A number in [0, 1) for lattice point (x, z): a cheap 32-bit integer hash (the filter asks four a
/// sample per octave; points 2^32 cells apart repeat).
#[inline(always)]
fn lattice_unit(x: i64, z: i64, salt: u32) -> f64 {
    let mut h = (x as u32).wrapping_mul(0x9e37_79b1) ^ (z as u32).wrapping_mul(0x85eb_ca77) ^ salt;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h = h.wrapping_mul(0x297a_2d39);
    h ^= h >> 15;
    f64::from(h) / 4_294_967_296.0
}

/// `floor` without the library call it compiles to on baseline x86-64 (the filter takes 18 a sample).
/// Exact for |v| < 2^63, which lattice coordinates stay within.
#[inline(always)]
fn fast_floor(v: f64) -> f64 {
    let t = v as i64 as f64;
    if t > v {
        t - 1.0
    } else {
        t
    }
}

/// A smooth periodic wave of period 1 in [-1, 1] (a rounded triangle: cheaper than a cosine, close to it).
#[inline(always)]
fn wave(t: f64) -> f64 {
    let tri = (t - fast_floor(t)) * 4.0 - 2.0;
    let tri = 1.0 - tri.abs();
    tri * (1.5 - 0.5 * tri * tri)
}

impl Filter {
    /// Whether the filter changes anything.
    pub fn is_on(&self) -> bool {
        self.strength != 0.0
    }

    /// The filtered height of sample (x, z) whose unfiltered height is `h` and gradient (world height per
    /// sample, central differences of the unfiltered neighbours) is `g`.
    #[inline]
    pub fn apply(&self, h: f64, g: [f64; 2], x: f64, z: f64) -> f64 {
        let slope = g[0].hypot(g[1]);
        if !self.is_on() || slope.is_nan() || slope <= 1e-12 {
            return h;
        }
        // Waves vary across the fall line, so their crests and troughs run down it: gullies and ridges.
        let across = [-g[1] / slope, g[0] / slope];
        let mut sum = 0.0;
        let mut norm = 0.0;
        let mut amp = 1.0;
        let mut freq = 1.0 / self.scale;
        for octave in 0..self.detail {
            let (px, pz) = (x * freq, z * freq);
            let (cx, cz) = (fast_floor(px), fast_floor(pz));
            // Smooth weights of the four surrounding lattice points.
            let smooth = |t: f64| t * t * (3.0 - 2.0 * t);
            let (wx, wz) = (smooth(px - cx), smooth(pz - cz));
            let salt = self.seed.wrapping_mul(0x27d4_eb2f) ^ octave as u32;
            let (ix, iz) = (cx as i64, cz as i64);
            // Each lattice point's wave is measured from the point itself, so a turn of the slope
            // direction shifts it by at most a cell's worth (measured from the origin, the phase would
            // spin far from it).
            let phase = |dx: i64, dz: i64| {
                let (kx, kz) = (cx + dx as f64, cz + dz as f64);
                let along = (px - kx) * across[0] + (pz - kz) * across[1];
                wave(along + lattice_unit(ix + dx, iz + dz, salt))
            };
            let w0 = phase(0, 0) * (1.0 - wx) + phase(1, 0) * wx;
            let w1 = phase(0, 1) * (1.0 - wx) + phase(1, 1) * wx;
            sum += amp * (w0 * (1.0 - wz) + w1 * wz - self.balance);
            norm += amp;
            amp *= 0.5;
            freq *= 2.0;
        }
        // Strongest where the ground falls (gullies need a slope), none on the flat.
        let typical = self.strength.abs() / self.scale;
        let fade = slope / (slope + typical);
        h + self.strength * fade * sum / norm
    }
}

/// How a simulation erodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Simulation {
    /// Water droplets to run (0: no hydraulic pass).
    pub droplets: usize,
    pub seed: u64,
    /// How much a droplet keeps its direction, [0, 1).
    pub inertia: f32,
    /// Sediment a droplet can carry per unit of speed, water and fall.
    pub capacity: f32,
    /// Share of excess sediment dropped per step, [0, 1].
    pub deposition: f32,
    /// Share of missing capacity taken from the ground per step, [0, 1].
    pub erosion: f32,
    /// Share of water lost per step, [0, 1).
    pub evaporation: f32,
    /// Steps a droplet lives at most.
    pub lifetime: usize,
    /// Thermal passes (0: none).
    pub thermal_iterations: usize,
    /// The steepest stable slope of loose material, degrees (0, 90).
    pub talus: f32,
}

impl Default for Simulation {
    fn default() -> Self {
        Self {
            droplets: 100_000,
            seed: 0,
            inertia: 0.05,
            capacity: 4.0,
            deposition: 0.3,
            erosion: 0.3,
            evaporation: 0.01,
            lifetime: 48,
            thermal_iterations: 8,
            talus: 35.0,
        }
    }
}

/// A setting out of its range.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationError(pub String);

impl std::fmt::Display for SimulationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimulationError {}

/// The most droplets one run takes.
pub const MAX_DROPLETS: usize = 20_000_000;

impl Simulation {
    pub fn check(&self) -> Result<(), SimulationError> {
        let e = |m: String| Err(SimulationError(m));
        if self.droplets > MAX_DROPLETS {
            return e(format!(
                "droplets must be in [0, {MAX_DROPLETS}], got {}",
                self.droplets
            ));
        }
        for (name, v, hi_open) in [
            ("inertia", self.inertia, true),
            ("evaporation", self.evaporation, true),
            ("deposition", self.deposition, false),
            ("erosion", self.erosion, false),
        ] {
            let ok = v >= 0.0 && if hi_open { v < 1.0 } else { v <= 1.0 };
            if !ok {
                let hi = if hi_open { "1)" } else { "1]" };
                return e(format!("{name} must be in [0, {hi}, got {v}"));
            }
        }
        if !(self.capacity > 0.0 && self.capacity <= 1000.0) {
            return e(format!(
                "capacity must be in (0, 1000], got {}",
                self.capacity
            ));
        }
        if !(1..=1024).contains(&self.lifetime) {
            return e(format!(
                "lifetime must be in [1, 1024], got {}",
                self.lifetime
            ));
        }
        if self.thermal_iterations > 1000 {
            return e(format!(
                "thermal_iterations must be in [0, 1000], got {}",
                self.thermal_iterations
            ));
        }
        if !(self.talus > 0.0 && self.talus < 90.0) {
            return e(format!(
                "talus must be in (0, 90) degrees, got {}",
                self.talus
            ));
        }
        Ok(())
    }
}

/// What a run moved, in height units summed over samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Report {
    pub eroded: f64,
    pub deposited: f64,
    /// Sediment carried out of the region by droplets that left it.
    pub carried_off: f64,
    /// Droplet steps run.
    pub steps: u64,
}

/// A rectangle of samples: x, z, width, depth.
pub type Rect = [usize; 4];

/// A uniform number in [0, 1) for droplet `i`, draw `k`.
fn unit(seed: u64, i: u64, k: u64) -> f64 {
    let h = mix(mix(seed ^ 0x5851_f42d_4c95_7f2d).wrapping_add(i.wrapping_mul(4).wrapping_add(k)));
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Erodes `region` of the row-major `heights` grid (`width` samples wide, `spacing` apart): the
/// hydraulic pass, then the thermal one. The region is worked on in f64 (so that a million small moves
/// conserve material) and written back at the end; samples outside it do not change. When
/// `progress.cancel` is set it stops, leaves `heights` as they were and returns None; `progress.rows`
/// counts thousands of droplets and thermal passes.
pub fn simulate(
    heights: &mut [f32],
    width: usize,
    spacing: f64,
    region: Rect,
    sim: &Simulation,
    progress: &Progress,
) -> Option<Report> {
    let [x0, z0, w, d] = region;
    let mut report = Report::default();
    if w < 4 || d < 4 {
        return Some(report);
    }
    let mut buf: Vec<f64> = Vec::with_capacity(w * d);
    for z in z0..z0 + d {
        buf.extend(
            heights[z * width + x0..z * width + x0 + w]
                .iter()
                .map(|&v| f64::from(v)),
        );
    }
    let grid = Grid {
        width: w,
        lo: [1.0, 1.0],
        hi: [w as f64 - 2.0, d as f64 - 2.0],
        spacing,
    };
    for i in 0..sim.droplets as u64 {
        if i % 1000 == 0 {
            if progress.is_cancelled() {
                return None;
            }
            progress.add(1);
        }
        let start = [
            grid.lo[0] + (grid.hi[0] - grid.lo[0]) * unit(sim.seed, i, 0),
            grid.lo[1] + (grid.hi[1] - grid.lo[1]) * unit(sim.seed, i, 1),
        ];
        droplet(&mut buf, &grid, sim, start, &mut report);
    }
    let talus = f64::from(sim.talus).to_radians().tan() * spacing;
    let mut scratch = Vec::new();
    for _ in 0..sim.thermal_iterations {
        if progress.is_cancelled() {
            return None;
        }
        thermal(&mut buf, w, d, talus, &mut scratch);
        progress.add(1);
    }
    for (z, row) in buf.chunks_exact(w).enumerate() {
        let dst = &mut heights[(z0 + z) * width + x0..(z0 + z) * width + x0 + w];
        for (o, &v) in dst.iter_mut().zip(row) {
            *o = v as f32;
        }
    }
    Some(report)
}

/// Where droplets may stand in the region's buffer: a sample inside its edge, so the four samples a
/// droplet touches are always in it.
struct Grid {
    width: usize,
    lo: [f64; 2],
    hi: [f64; 2],
    spacing: f64,
}

impl Grid {
    fn inside(&self, p: [f64; 2]) -> bool {
        p[0] >= self.lo[0] && p[1] >= self.lo[1] && p[0] <= self.hi[0] && p[1] <= self.hi[1]
    }

    /// Height and gradient (per sample) at point `p`, bilinear over its four samples.
    fn sample(&self, h: &[f64], p: [f64; 2]) -> (f64, [f64; 2], usize, [f64; 2]) {
        let (ix, iz) = (p[0].floor() as usize, p[1].floor() as usize);
        let (u, v) = (p[0] - ix as f64, p[1] - iz as f64);
        let i = iz * self.width + ix;
        let (a, b, c, e) = (h[i], h[i + 1], h[i + self.width], h[i + self.width + 1]);
        let gx = (b - a) * (1.0 - v) + (e - c) * v;
        let gz = (c - a) * (1.0 - u) + (e - b) * u;
        let height = a * (1.0 - u) * (1.0 - v) + b * u * (1.0 - v) + c * (1.0 - u) * v + e * u * v;
        (height, [gx, gz], i, [u, v])
    }

    /// Adds `amount` to the four samples around a point, bilinearly (negative: takes it).
    fn spread(&self, h: &mut [f64], i: usize, uv: [f64; 2], amount: f64) {
        let (u, v) = (uv[0], uv[1]);
        h[i] += amount * (1.0 - u) * (1.0 - v);
        h[i + 1] += amount * u * (1.0 - v);
        h[i + self.width] += amount * (1.0 - u) * v;
        h[i + self.width + 1] += amount * u * v;
    }
}

fn droplet(h: &mut [f64], g: &Grid, sim: &Simulation, start: [f64; 2], r: &mut Report) {
    let mut p = start;
    let mut dir = [0.0f64, 0.0];
    let (inertia, evaporation) = (f64::from(sim.inertia), f64::from(sim.evaporation));
    let (mut speed, mut water, mut sediment) = (1.0f64, 1.0f64, 0.0f64);
    for _ in 0..sim.lifetime {
        let (height, grad, i, uv) = g.sample(h, p);
        r.steps += 1;
        dir = [
            dir[0] * inertia - grad[0] * (1.0 - inertia),
            dir[1] * inertia - grad[1] * (1.0 - inertia),
        ];
        let len = dir[0].hypot(dir[1]);
        if len.is_nan() || len <= 1e-12 {
            break;
        }
        dir = [dir[0] / len, dir[1] / len];
        let next = [p[0] + dir[0], p[1] + dir[1]];
        if !g.inside(next) {
            // Off the region with its load: counted as carried off.
            r.carried_off += sediment;
            sediment = 0.0;
            break;
        }
        let (new_height, ..) = g.sample(h, next);
        let fall = new_height - height;
        // Capacity grows with the slope, the speed and the water.
        let slope = (-fall / g.spacing).max(0.01);
        let capacity = slope * speed * water * f64::from(sim.capacity);
        if sediment > capacity || fall > 0.0 {
            // Uphill: fill the pit behind (at most the rise); otherwise drop part of the excess.
            let drop = if fall > 0.0 {
                fall.min(sediment)
            } else {
                (sediment - capacity) * f64::from(sim.deposition)
            };
            sediment -= drop;
            g.spread(h, i, uv, drop);
            r.deposited += drop;
        } else {
            // Never dig deeper than the fall, so no pits.
            let take = ((capacity - sediment) * f64::from(sim.erosion)).min(-fall);
            g.spread(h, i, uv, -take);
            sediment += take;
            r.eroded += take;
        }
        speed = (speed * speed + fall.abs() / g.spacing).sqrt().min(32.0);
        water *= 1.0 - evaporation;
        p = next;
    }
    // What is still carried settles where the droplet ends.
    if sediment > 0.0 {
        let (_, _, i, uv) = g.sample(h, p);
        g.spread(h, i, uv, sediment);
        r.deposited += sediment;
    }
}

/// One thermal pass over a `w` × `d` buffer: where a sample stands more than `talus` above a 4-neighbour,
/// an eighth of the excess slides down. Every move is computed from the heights before the pass, so the
/// result does not depend on the order or the thread count, and height is conserved.
fn thermal(h: &mut [f64], w: usize, d: usize, talus: f64, scratch: &mut Vec<f64>) {
    use rayon::prelude::*;
    scratch.clear();
    scratch.extend_from_slice(h);
    let old = &scratch[..];
    let flow = |a: f64, b: f64| ((a - b - talus) * 0.125).max(0.0);
    h.par_chunks_mut(w).enumerate().for_each(|(z, row)| {
        for (x, out) in row.iter_mut().enumerate() {
            let c = old[z * w + x];
            let mut delta = 0.0;
            for (nx, nz) in [
                (x.wrapping_sub(1), z),
                (x + 1, z),
                (x, z.wrapping_sub(1)),
                (x, z + 1),
            ] {
                if nx >= w || nz >= d {
                    continue;
                }
                let n = old[nz * w + nx];
                delta += flow(n, c) - flow(c, n);
            }
            *out = c + delta;
        }
    });
}

#[cfg(test)]
mod tests;
