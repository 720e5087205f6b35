//! `TerrainData.erode` / `erode_async`: the erosion simulation (`terrain_core::erosion`) on a region of
//! the heights, on a worker thread for the async form.

use super::TerrainData;
use crate::async_job::{AsyncJob, Outcome};
use crate::data::terrain_erosion::TerrainErosion;
use godot::prelude::*;
use terrain_core::erosion::{simulate, Report, Simulation};
use terrain_core::progress::Progress;
use terrain_core::terrain_data::Region;

/// An erosion running on a worker thread: the region's new heights when it finishes (None: cancelled).
pub(super) type ErosionJob = AsyncJob<Option<(Vec<f32>, Report)>, Progress, ErosionInfo>;

/// What `finish_erosion` needs besides the heights.
pub(super) struct ErosionInfo {
    region: Rect2i,
    size: (usize, usize),
    /// Progress units: thousands of droplets plus thermal passes.
    units: usize,
}

/// The region's heights eroded (a copy; the terrain is not touched).
fn run(
    mut heights: Vec<f32>,
    r: Region,
    spacing: f64,
    sim: &Simulation,
    progress: &Progress,
) -> Option<(Vec<f32>, Report)> {
    let report = simulate(&mut heights, r.w, spacing, [0, 0, r.w, r.d], sim, progress)?;
    Some((heights, report))
}

#[godot_api(secondary)]
impl TerrainData {
    /// Erodes the heights inside `region` (x, z, width, depth; the whole terrain when its size is 0) with
    /// `settings`: water droplets, then thermal passes. Samples outside the region do not change. Emits
    /// `changed` and `region_changed` like any edit. Returns a Dictionary: `eroded`, `deposited`,
    /// `carried_off` (height units summed over samples) and `steps`; empty, with an error, on bad input.
    #[func]
    fn erode(&mut self, settings: Option<Gd<TerrainErosion>>, region: Rect2i) -> VarDictionary {
        let Some((sim, r, rect)) = self.erosion_args("erode", settings, region) else {
            return VarDictionary::new();
        };
        let heights = self.core.heights_region(r);
        match run(heights, r, self.core.spacing(), &sim, &Progress::default()) {
            Some((h, report)) => {
                self.set_heights_region(rect, PackedFloat32Array::from(h.as_slice()));
                report_dict(&report)
            }
            None => VarDictionary::new(),
        }
    }

    /// Starts `erode` on a worker thread; watch `get_erosion_progress()` and call `finish_erosion()` (e.g.
    /// once a frame) until it returns true: the region's heights are installed then. `cancel_erosion()`
    /// keeps the heights. Edits made to the region meanwhile are replaced by the result. Returns false,
    /// with an error, on bad input or while one runs.
    #[func]
    fn erode_async(&mut self, settings: Option<Gd<TerrainErosion>>, region: Rect2i) -> bool {
        if self.erosion_job.is_some() {
            godot_error!(
                "TerrainData.erode_async: an erosion is running; finish or cancel it first"
            );
            return false;
        }
        let Some((sim, r, rect)) = self.erosion_args("erode_async", settings, region) else {
            return false;
        };
        let heights = self.core.heights_region(r);
        let spacing = self.core.spacing();
        let info = ErosionInfo {
            region: rect,
            size: (self.core.width(), self.core.depth()),
            units: sim.droplets.div_ceil(1000) + sim.thermal_iterations,
        };
        self.erosion_job = Some(AsyncJob::start(info, move |watch| {
            run(heights, r, spacing, &sim, watch)
        }));
        true
    }

    /// Share of a running erosion done, 0..1; -1 when none runs.
    #[func]
    fn get_erosion_progress(&self) -> f64 {
        match &self.erosion_job {
            Some(j) => {
                let units = j.info().units.max(1) as f64;
                (j.watch().done() as f64 / units).min(1.0)
            }
            None => -1.0,
        }
    }

    /// Asks a running erosion to stop; `finish_erosion()` then returns true and keeps the heights.
    #[func]
    fn cancel_erosion(&mut self) {
        if let Some(j) = &self.erosion_job {
            j.cancel();
        }
    }

    /// Installs a finished erosion (true), or returns false while it runs. True also when none runs or it
    /// was cancelled (heights kept).
    #[func]
    fn finish_erosion(&mut self) -> bool {
        let job = match AsyncJob::take_ended(&mut self.erosion_job) {
            Ok(job) => job,
            Err(none) => return none,
        };
        match job.finish() {
            (Outcome::Done(Some((h, _))), info) => {
                if info.size != (self.core.width(), self.core.depth()) {
                    godot_error!(
                        "TerrainData.finish_erosion: the size changed while eroding; heights kept"
                    );
                } else {
                    self.set_heights_region(info.region, PackedFloat32Array::from(h.as_slice()));
                }
            }
            (Outcome::Done(None) | Outcome::Cancelled, _) => {}
            (Outcome::Failed, _) => {
                godot_error!("TerrainData.erode_async: the erosion failed; nothing changed")
            }
        }
        true
    }
}

impl TerrainData {
    fn erosion_args(
        &self,
        what: &str,
        settings: Option<Gd<TerrainErosion>>,
        region: Rect2i,
    ) -> Option<(Simulation, Region, Rect2i)> {
        let Some(s) = settings else {
            godot_error!("TerrainData.{what}: settings must be a TerrainErosion, got null");
            return None;
        };
        let rect = if region.size == Vector2i::ZERO {
            Rect2i::new(
                Vector2i::ZERO,
                Vector2i::new(self.core.width() as i32, self.core.depth() as i32),
            )
        } else {
            region
        };
        let r = self.region(rect)?;
        let sim = s.bind().simulation();
        Some((sim, r, rect))
    }
}

fn report_dict(r: &Report) -> VarDictionary {
    let mut d = VarDictionary::new();
    d.set("eroded", r.eroded);
    d.set("deposited", r.deposited);
    d.set("carried_off", r.carried_off);
    d.set("steps", r.steps as i64);
    d
}
