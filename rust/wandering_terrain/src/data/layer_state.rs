//! A terrain resource's layers (`terrain_core::layers::LayerStack`) and the composition of their dirty
//! tiles running on a worker thread: kept beside the samples they edit (`TerrainData`, `TerrainRegions`),
//! polled by the layer nodes (`TerrainPath`, `TerrainStamp`) each frame while work remains.

use godot::prelude::*;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use terrain_core::layers::{Composed, Ground, LayerStack};

#[derive(Default)]
pub(crate) struct LayerState {
    pub stack: LayerStack,
    /// The running composition: its result and how long it took on its thread.
    job: Option<JoinHandle<(Composed, Duration)>>,
    /// Microseconds the last composition took on its worker, and the main thread's write of it.
    pub last_usec: [u64; 2],
}

impl LayerState {
    /// Writes a finished composition and starts one over the tiles dirty since. True while work remains.
    pub fn poll(&mut self, ground: &mut dyn Ground) -> bool {
        if self.job.as_ref().is_some_and(|j| !j.is_finished()) {
            return true;
        }
        self.land(ground);
        if self.stack.has_dirty() {
            let job = self.stack.job();
            self.job = Some(std::thread::spawn(move || {
                let t0 = Instant::now();
                let done = job.run();
                (done, t0.elapsed())
            }));
        }
        self.job.is_some()
    }

    /// Composes and writes everything waiting, on this thread (a running job is waited for first).
    pub fn finish(&mut self, ground: &mut dyn Ground) {
        self.land(ground);
        self.stack.compose_now(ground);
    }

    /// Whether work waits or runs.
    pub fn busy(&self) -> bool {
        self.job.is_some() || self.stack.has_dirty()
    }

    fn land(&mut self, ground: &mut dyn Ground) {
        let Some(j) = self.job.take() else {
            return;
        };
        match j.join() {
            Ok((done, took)) => {
                let t0 = Instant::now();
                self.stack.write(done, ground);
                self.last_usec = [took, t0.elapsed()].map(|d| d.as_micros() as u64);
            }
            Err(_) => {
                godot_error!("terrain layers: a composition failed; its tiles are composed again")
            }
        }
    }
}
