//! `TerrainData` generation: fractal noise from a `TerrainGenerator` (at once or on worker threads) and
//! heights from a Godot `Noise` (maths in `terrain_core::generation`).

use super::TerrainData;
use crate::async_job::{AsyncJob, Outcome};
use crate::data::terrain_generator::TerrainGenerator;
use godot::classes::Noise;
use godot::prelude::*;
use terrain_core::generation::{self, NoiseKind, NoiseParams};

/// A generation on worker threads: the heights (None: it stopped early), for the size it was started at.
pub(super) type GenerationJob =
    AsyncJob<Result<Option<Vec<f32>>, String>, terrain_core::progress::Progress, (usize, usize)>;

#[godot_api(secondary)]
impl TerrainData {
    /// Fills the terrain (current `size`) with the heights a `TerrainGenerator` describes (fractal noise,
    /// rows in parallel). Returns false and changes nothing without a generator.
    #[func]
    fn generate(&mut self, generator: Option<Gd<TerrainGenerator>>) -> bool {
        let Some(g) = generator else {
            godot_error!("TerrainData.generate: generator must be a TerrainGenerator, got null");
            return false;
        };
        let p = g.bind().params();
        self.generate_with(&p, "generate")
    }

    /// Starts generating heights as `generate` does, on worker threads: the game or the editor keeps running.
    /// Watch `get_generation_progress()` and call `finish_generation()` (e.g. once a frame) until it returns
    /// true; the heights are installed then, with `changed` and `region_changed`. `cancel_generation()` stops
    /// it and keeps the old heights. Returns false, with an error, without a generator or while one is running.
    #[func]
    fn generate_async(&mut self, generator: Option<Gd<TerrainGenerator>>) -> bool {
        let Some(g) = generator else {
            godot_error!(
                "TerrainData.generate_async: generator must be a TerrainGenerator, got null"
            );
            return false;
        };
        if self.job.is_some() {
            godot_error!(
                "TerrainData.generate_async: a generation is running; finish or cancel it first"
            );
            return false;
        }
        // A TerrainGenerator holds only valid settings (its setters check them): nothing to refuse here.
        let p = g.bind().params();
        let (w, d) = (self.core.width(), self.core.depth());
        self.job = Some(AsyncJob::start((w, d), move |watch| {
            let mut heights = vec![0.0; w * d];
            generation::generate_watched(&p, w, &mut heights, watch)
                .map(|done| done.then_some(heights))
                .map_err(|e| e.to_string())
        }));
        true
    }

    /// Share of a running generation done, 0..1; -1 when none runs.
    #[func]
    fn get_generation_progress(&self) -> f64 {
        match &self.job {
            Some(j) => j.watch().done() as f64 / j.info().1.max(1) as f64,
            None => -1.0,
        }
    }

    /// Asks a running generation to stop; `finish_generation()` then returns true and keeps the old heights.
    #[func]
    fn cancel_generation(&mut self) {
        if let Some(j) = &self.job {
            j.cancel();
        }
    }

    /// Installs a finished generation (true), or returns false while it still runs. True also when there
    /// is none, or it was cancelled (silently, whatever the work returned), or the size changed meanwhile
    /// (then with an error, heights kept).
    #[func]
    fn finish_generation(&mut self) -> bool {
        let job = match AsyncJob::take_ended(&mut self.job) {
            Ok(job) => job,
            Err(none) => return none,
        };
        match job.finish() {
            (Outcome::Done(Ok(Some(heights))), size) => {
                if size != (self.core.width(), self.core.depth()) {
                    godot_error!("TerrainData.finish_generation: size changed while generating; heights kept");
                } else {
                    self.replace_heights(heights, "generate_async");
                }
            }
            (Outcome::Done(Ok(None)) | Outcome::Cancelled, _) => {}
            (Outcome::Done(Err(e)), _) => {
                godot_error!("TerrainData.generate_async: {e}; nothing changed")
            }
            (Outcome::Failed, _) => {
                godot_error!("TerrainData.generate_async: the generation failed; nothing changed")
            }
        }
        true
    }

    /// Shorthand for `generate` with a generator of these settings (see `TerrainGenerator` for their
    /// meaning and ranges; `noise_type` is one of the NOISE_* constants). Returns false and changes nothing
    /// on bad parameters.
    #[func]
    #[allow(clippy::too_many_arguments)]
    fn generate_noise(
        &mut self,
        seed: i64,
        frequency: f64,
        octaves: i64,
        lacunarity: f64,
        gain: f64,
        height: f64,
        sea_level: f64,
        noise_type: i64,
    ) -> bool {
        let Some(kind) = NoiseKind::from_index(noise_type) else {
            godot_error!("TerrainData.generate_noise: noise_type must be in [0, 3] (NOISE_*), got {noise_type}");
            return false;
        };
        let p = NoiseParams {
            kind,
            seed: seed as u32,
            frequency,
            octaves: octaves.clamp(0, 1 << 20) as usize,
            lacunarity,
            gain,
            height,
            sea_level,
            ..Default::default()
        };
        self.generate_with(&p, "generate_noise")
    }

    /// Fills the terrain (current `size`) from a Godot `Noise` resource: height = max(noise.get_noise_2d(x, z)
    /// * height, sea_level) per sample, exactly as the resource computes it. Godot's image functions return
    /// 8-bit images, so the values are read with one native call per sample, on the calling thread.
    #[func]
    fn generate_from_noise(
        &mut self,
        noise: Option<Gd<Noise>>,
        height: f64,
        sea_level: f64,
    ) -> bool {
        let Some(noise) = noise else {
            godot_error!(
                "TerrainData.generate_from_noise: noise must be a Noise resource, got null"
            );
            return false;
        };
        if !height.is_finite() || sea_level.is_nan() {
            godot_error!("TerrainData.generate_from_noise: height must be finite and sea_level a number, got {height} and {sea_level}");
            return false;
        }
        let (w, d) = (self.core.width(), self.core.depth());
        let mut heights = Vec::with_capacity(w * d);
        for z in 0..d {
            for x in 0..w {
                let v = f64::from(noise.get_noise_2d(x as f32, z as f32)) * height;
                heights.push(v.max(sea_level) as f32);
            }
        }
        self.replace_heights(heights, "generate_from_noise")
    }
}

impl TerrainData {
    fn generate_with(&mut self, p: &NoiseParams, what: &str) -> bool {
        let (w, d) = (self.core.width(), self.core.depth());
        let mut heights = vec![0.0; w * d];
        if let Err(e) = generation::generate(p, w, &mut heights) {
            godot_error!("TerrainData.{what}: {e}; nothing changed");
            return false;
        }
        self.replace_heights(heights, what)
    }
}
