//! Clipmap data windows kept current on a worker thread, for sources whose texels are costly to compute
//! (an endless generator evaluates its fractal for every sample). The main thread asks for a target and,
//! on a later frame, takes the finished windows together with the target they were computed for; it lays
//! the clipmap out around *that* target, so every level always shows complete, correct data — the view
//! trails the target by the job's duration instead of ever showing a window that is being filled.
//!
//! One job at a time: the windows move into the job and come back (no copy); a request while a job runs is
//! simply made again on a later frame with the newest target.

use crate::clipmap::ClipmapConfig;
use crate::clipmap_data::{ClipmapData, Frame};
use crate::sample_rect::SampleRect;
use crate::samples::Samples;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

/// A source that can be read on the worker pool.
pub type SharedSamples = Arc<dyn Samples + Send>;

struct Done {
    data: ClipmapData,
    changed: u64,
    target: [f64; 2],
    epoch: u64,
}

/// What a finished job brought: the layers whose texels changed (bit i = layer i) and the target the
/// windows now show.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finished {
    pub changed: u64,
    pub target: [f64; 2],
}

pub struct ClipmapStream {
    /// The windows, when no job holds them.
    idle: Option<ClipmapData>,
    tx: Sender<Done>,
    rx: Receiver<Done>,
    /// Bumped by `invalidate`: a job started before it returns windows that are recomputed from scratch.
    epoch: u64,
    /// Target of the windows the main thread has (None: nothing valid yet).
    shown: Option<[f64; 2]>,
    /// Samples edited since the last job started: the next job recomputes what depends on them.
    edited: Option<SampleRect>,
}

impl ClipmapStream {
    pub fn new(cfg: &ClipmapConfig) -> Self {
        let (tx, rx) = channel();
        Self {
            idle: Some(ClipmapData::new(cfg)),
            tx,
            rx,
            epoch: 0,
            shown: None,
            edited: None,
        }
    }

    /// Whether a job is running.
    pub fn busy(&self) -> bool {
        self.idle.is_none()
    }

    /// The windows as the last finished job left them; None while a job holds them.
    pub fn data(&self) -> Option<&ClipmapData> {
        self.idle.as_ref()
    }

    /// Target the shown windows were computed for; None before the first job finished.
    pub fn shown_target(&self) -> Option<[f64; 2]> {
        self.shown
    }

    /// Forget the windows (a new source or frame): the next job recomputes everything, and a running one's
    /// result is not shown.
    pub fn invalidate(&mut self) {
        self.epoch += 1;
        self.shown = None;
        if let Some(d) = self.idle.as_mut() {
            d.invalidate();
        }
    }

    /// Notes edited samples (an editable region map): the next job recomputes the texels they reach.
    pub fn mark(&mut self, r: SampleRect) {
        self.edited = Some(self.edited.map_or(r, |e| e.union(r)));
    }

    /// Whether edits wait for a job.
    pub fn has_edits(&self) -> bool {
        self.edited.is_some()
    }

    /// Starts moving the windows to `target` on the worker pool; false (nothing started) while a job runs.
    pub fn request(&mut self, source: SharedSamples, frame: Frame, target: [f64; 2]) -> bool {
        let Some(mut data) = self.idle.take() else {
            return false;
        };
        let edited = self.edited.take();
        let (tx, epoch) = (self.tx.clone(), self.epoch);
        crate::workers::spawn(move || {
            // A panic in a job (a bug) must not abort the game: the windows start over instead.
            let cfg = *data.config();
            let run = std::panic::AssertUnwindSafe(move || {
                // Edits first: texels that `follow` computes afresh are already current.
                let mut changed = edited.map_or(0, |r| data.refresh(&*source, &frame, r));
                changed |= data.follow(&*source, &frame, target);
                (data, changed)
            });
            let done = match std::panic::catch_unwind(run) {
                Ok((data, changed)) => Done {
                    data,
                    changed,
                    target,
                    epoch,
                },
                // Reported as stale: nothing is shown from it and the next request starts afresh.
                Err(_) => Done {
                    data: ClipmapData::new(&cfg),
                    changed: 0,
                    target,
                    epoch: u64::MAX,
                },
            };
            // The receiver is gone only when the stream was dropped: nothing to deliver to.
            let _ = tx.send(done);
        });
        true
    }

    /// Takes a finished job, if any, without waiting.
    pub fn poll(&mut self) -> Option<Finished> {
        let done = self.rx.try_recv().ok()?;
        Some(self.take(done))
    }

    /// Waits for the running job (for a first frame that must not be empty, and for tests).
    pub fn wait(&mut self) -> Option<Finished> {
        if self.idle.is_some() {
            return None;
        }
        let done = self.rx.recv().ok()?;
        Some(self.take(done))
    }

    fn take(&mut self, mut done: Done) -> Finished {
        if done.epoch != self.epoch {
            done.data.invalidate();
            self.idle = Some(done.data);
            return Finished {
                changed: 0,
                target: done.target,
            };
        }
        self.idle = Some(done.data);
        self.shown = Some(done.target);
        Finished {
            changed: done.changed,
            target: done.target,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::{Generated, NoiseParams};

    #[test]
    fn a_job_brings_back_the_windows_a_direct_follow_computes() {
        let cfg = ClipmapConfig::new(8, 4, 1.0).unwrap();
        let g = Generated::new(&NoiseParams::default(), 1.0).unwrap();
        let src: SharedSamples = Arc::new(g.clone());
        let mut stream = ClipmapStream::new(&cfg);
        let mut direct = ClipmapData::new(&cfg);
        let frame = Frame::default();
        for (i, t) in [
            [0.0, 0.0],
            [13.5, -7.25],
            [5000.0, 4321.0],
            [5003.0, 4330.0],
        ]
        .into_iter()
        .enumerate()
        {
            assert!(stream.request(src.clone(), frame, t));
            assert!(!stream.request(src.clone(), frame, t), "one job at a time");
            assert!(stream.busy() && stream.data().is_none());
            let f = stream.wait().unwrap();
            assert_eq!(f.target, t);
            assert_eq!(f.changed, direct.follow(&g, &frame, t), "step {i}");
            let d = stream.data().unwrap();
            for l in 0..d.layer_count() {
                assert_eq!(d.layer(l), direct.layer(l));
                assert_eq!(d.origin(l), direct.origin(l));
            }
            assert_eq!(stream.shown_target(), Some(t));
        }
    }

    #[test]
    fn a_result_from_before_invalidate_is_not_shown() {
        let cfg = ClipmapConfig::new(4, 3, 1.0).unwrap();
        let src: SharedSamples = Arc::new(Generated::new(&NoiseParams::default(), 1.0).unwrap());
        let mut stream = ClipmapStream::new(&cfg);
        stream.request(src.clone(), Frame::default(), [1.0, 2.0]);
        stream.invalidate();
        let f = stream.wait().unwrap();
        assert_eq!(f.changed, 0);
        assert_eq!(stream.shown_target(), None);
        let d = stream.data().unwrap();
        assert!((0..d.layer_count()).all(|l| d.origin(l).is_none()));
        // The next job computes everything.
        stream.request(src, Frame::default(), [1.0, 2.0]);
        assert_eq!(stream.wait().unwrap().changed, 0b1111);
    }
}
