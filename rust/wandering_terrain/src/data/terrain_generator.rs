//! `TerrainGenerator`: the settings of a generated heightfield as a resource (maths in
//! `terrain_core::generation`).

use godot::prelude::*;
use terrain_core::generation::{NoiseKind, NoiseParams};

/// How `TerrainData.generate` makes heights: fractal Brownian motion (octaves of a base noise, each
/// `lacunarity` times the frequency and `gain` times the amplitude of the one before), computed natively
/// on all cores. Height of sample (x, z) = `max(noise(x * frequency, z * frequency) * height, sea_level)`,
/// `sea_level` in world units; with `warp` the fractal reads a displaced position instead (domain warping).
/// A `TerrainNode` can also draw a generator as an endless world (`terrain_generator`).
///
/// Every property refuses values outside its range with an error naming it and keeps the previous value.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
#[allow(dead_code)] // the fields declare the properties; the values live in `params`
pub struct TerrainGenerator {
    /// Base noise of the fractal.
    #[export(enum = (Perlin = 0, OpenSimplex = 1, SuperSimplex = 2, Value = 3))]
    #[var(get = get_noise_type, set = set_noise_type)]
    noise_type: i64,
    /// Seed of the base noise (the low 32 bits are used).
    #[export]
    #[var(get = get_seed, set = set_seed)]
    seed: i64,
    /// Noise cycles per sample, in (0, 1000].
    #[export(range = (0.0001, 1.0, 0.0001, or_greater))]
    #[var(get = get_frequency, set = set_frequency)]
    frequency: f64,
    /// Number of octaves, 1..=32.
    #[export(range = (1.0, 32.0))]
    #[var(get = get_octaves, set = set_octaves)]
    octaves: i64,
    /// Frequency factor from one octave to the next, in (0, 16].
    #[export(range = (0.01, 16.0, 0.01))]
    #[var(get = get_lacunarity, set = set_lacunarity)]
    lacunarity: f64,
    /// Amplitude factor from one octave to the next (persistence), in (0, 4].
    #[export(range = (0.01, 4.0, 0.01))]
    #[var(get = get_gain, set = set_gain)]
    gain: f64,
    /// World units for a noise value of 1, in [-1000000, 1000000].
    #[export(range = (-1000.0, 1000.0, 0.1, or_greater, or_less))]
    #[var(get = get_height, set = set_height)]
    height: f64,
    /// The floor of the terrain in world units, in [-1e9, 1e9]: every height below it is raised to it, so
    /// seas and lakes come out flat (the ground there is the water's level; the terrain draws no water).
    /// The default, -1e9, is far below any height the noise makes: no floor.
    #[export]
    #[var(get = get_sea_level, set = set_sea_level)]
    sea_level: f64,

    /// Domain warp, in samples, [0, 1000000]: positions are displaced by up to this much by two smooth
    /// noises before the fractal reads them, bending ridges and valleys; 0: none.
    #[export(range = (0.0, 200.0, 0.1, or_greater))]
    #[var(get = get_warp, set = set_warp)]
    warp: f64,
    /// Cycles per sample of the warping noises, in (0, 1000].
    #[export(range = (0.0001, 1.0, 0.0001, or_greater))]
    #[var(get = get_warp_frequency, set = set_warp_frequency)]
    warp_frequency: f64,
    /// Depth of the erosion filter's gullies, world units, [-100000, 100000] (0: none). Gullies run down
    /// the slopes, computed per sample from the height and its gradient, so endless worlds, region maps
    /// and `TerrainData.generate` give the same heights at the same point.
    #[export(range = (0.0, 50.0, 0.1, or_greater))]
    #[export_group(name = "Erosion")]
    #[var(get = get_erosion, set = set_erosion)]
    #[allow(dead_code)]
    erosion: f64,
    /// Samples between the largest gullies, [1, 100000].
    #[export(range = (1.0, 256.0, 1.0, or_greater))]
    #[var(get = get_erosion_scale, set = set_erosion_scale)]
    #[allow(dead_code)]
    erosion_scale: f64,
    /// Octaves of gullies (each half the size and depth of the last), [1, 6].
    #[export(range = (1.0, 6.0, 1.0))]
    #[var(get = get_erosion_detail, set = set_erosion_detail)]
    #[allow(dead_code)]
    erosion_detail: i64,
    /// -1: deep gullies … 0: both … 1: sharp ridges.
    #[export(range = (-1.0, 1.0, 0.01))]
    #[var(get = get_erosion_balance, set = set_erosion_balance)]
    #[allow(dead_code)]
    erosion_balance: f64,
    /// Where the world starts in the endless noise, in whole samples: sample (x, z) is the noise's sample
    /// (x + offset.x, z + offset.y). The same world starts elsewhere (a new starting place without a new
    /// seed); whole samples keep it exact, so a shifted copy matches the original bit for bit.
    #[export]
    #[export_group(name = "")]
    #[var(get = get_offset, set = set_offset)]
    #[allow(dead_code)]
    offset: PhantomVar<Vector2i>,
    params: NoiseParams,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainGenerator {
    fn init(base: Base<Resource>) -> Self {
        let params = NoiseParams::default();
        Self {
            noise_type: 0,
            seed: 0,
            frequency: params.frequency,
            octaves: params.octaves as i64,
            lacunarity: params.lacunarity,
            gain: params.gain,
            height: params.height,
            sea_level: params.sea_level,
            warp: params.warp,
            warp_frequency: params.warp_frequency,
            erosion: params.erosion,
            erosion_scale: params.erosion_scale,
            erosion_detail: params.erosion_detail as i64,
            erosion_balance: params.erosion_balance,
            offset: PhantomVar::default(),
            params,
            base,
        }
    }
}

#[godot_api]
impl TerrainGenerator {
    #[func]
    fn get_noise_type(&self) -> i64 {
        self.params.kind as i64
    }
    #[func]
    fn set_noise_type(&mut self, v: i64) {
        match NoiseKind::from_index(v) {
            Some(kind) => self.apply(NoiseParams { kind, ..self.params }),
            None => godot_error!(
                "TerrainGenerator.noise_type must be in [0, 3] (Perlin, OpenSimplex, SuperSimplex, Value), got {v}; keeping {}",
                self.params.kind as i64
            ),
        }
    }
    #[func]
    fn get_offset(&self) -> Vector2i {
        let [x, z] = self.params.offset;
        Vector2i::new(x as i32, z as i32)
    }
    #[func]
    fn set_offset(&mut self, v: Vector2i) {
        self.apply(NoiseParams {
            offset: [i64::from(v.x), i64::from(v.y)],
            ..self.params
        });
    }
    #[func]
    fn get_seed(&self) -> i64 {
        i64::from(self.params.seed)
    }
    #[func]
    fn set_seed(&mut self, v: i64) {
        self.apply(NoiseParams {
            seed: v as u32,
            ..self.params
        });
    }
    #[func]
    fn get_frequency(&self) -> f64 {
        self.params.frequency
    }
    #[func]
    fn set_frequency(&mut self, v: f64) {
        self.apply(NoiseParams {
            frequency: v,
            ..self.params
        });
    }
    #[func]
    fn get_octaves(&self) -> i64 {
        self.params.octaves as i64
    }
    #[func]
    fn set_octaves(&mut self, v: i64) {
        // Out-of-range counts become an invalid count the validation names.
        let octaves = usize::try_from(v).unwrap_or(0).min(1 << 20);
        if octaves as i64 != v {
            godot_error!(
                "TerrainGenerator.octaves must be in [1, 32], got {v}; keeping {}",
                self.params.octaves
            );
            return;
        }
        self.apply(NoiseParams {
            octaves,
            ..self.params
        });
    }
    #[func]
    fn get_lacunarity(&self) -> f64 {
        self.params.lacunarity
    }
    #[func]
    fn set_lacunarity(&mut self, v: f64) {
        self.apply(NoiseParams {
            lacunarity: v,
            ..self.params
        });
    }
    #[func]
    fn get_gain(&self) -> f64 {
        self.params.gain
    }
    #[func]
    fn set_gain(&mut self, v: f64) {
        self.apply(NoiseParams {
            gain: v,
            ..self.params
        });
    }
    #[func]
    fn get_height(&self) -> f64 {
        self.params.height
    }
    #[func]
    fn set_height(&mut self, v: f64) {
        self.apply(NoiseParams {
            height: v,
            ..self.params
        });
    }
    #[func]
    fn get_sea_level(&self) -> f64 {
        self.params.sea_level
    }
    #[func]
    fn set_sea_level(&mut self, v: f64) {
        self.apply(NoiseParams {
            sea_level: v,
            ..self.params
        });
    }
    #[func]
    fn get_warp(&self) -> f64 {
        self.params.warp
    }
    #[func]
    fn set_warp(&mut self, v: f64) {
        self.apply(NoiseParams {
            warp: v,
            ..self.params
        });
    }
    #[func]
    fn get_warp_frequency(&self) -> f64 {
        self.params.warp_frequency
    }
    #[func]
    fn set_warp_frequency(&mut self, v: f64) {
        self.apply(NoiseParams {
            warp_frequency: v,
            ..self.params
        });
    }
    #[func]
    fn get_erosion(&self) -> f64 {
        self.params.erosion
    }
    #[func]
    fn set_erosion(&mut self, v: f64) {
        self.apply(NoiseParams {
            erosion: v,
            ..self.params
        });
    }
    #[func]
    fn get_erosion_scale(&self) -> f64 {
        self.params.erosion_scale
    }
    #[func]
    fn set_erosion_scale(&mut self, v: f64) {
        self.apply(NoiseParams {
            erosion_scale: v,
            ..self.params
        });
    }
    #[func]
    fn get_erosion_detail(&self) -> i64 {
        self.params.erosion_detail as i64
    }
    #[func]
    fn set_erosion_detail(&mut self, v: i64) {
        self.apply(NoiseParams {
            erosion_detail: usize::try_from(v).unwrap_or(0),
            ..self.params
        });
    }
    #[func]
    fn get_erosion_balance(&self) -> f64 {
        self.params.erosion_balance
    }
    #[func]
    fn set_erosion_balance(&mut self, v: f64) {
        self.apply(NoiseParams {
            erosion_balance: v,
            ..self.params
        });
    }
}

impl TerrainGenerator {
    /// The validated settings.
    pub fn params(&self) -> NoiseParams {
        self.params
    }

    fn apply(&mut self, p: NoiseParams) {
        match p.validate() {
            Ok(()) => {
                self.params = p;
                self.base_mut().emit_changed();
            }
            Err(e) => godot_error!("TerrainGenerator.{e}; keeping the previous value"),
        }
    }
}
