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
use std::sync::{Arc, Weak};

/// A source that can be read on the worker pool.
pub type SharedSamples = Arc<dyn Samples + Send>;

/// What a job reads: a source it keeps (a generator, a region map), or one it takes only when it starts
/// running (terrain data in memory, whose edits wait while a job reads it: a job queued behind others must
/// not hold them up). A source gone by then (an edit moved it) leaves the windows as they were, the job's
/// edits marked again: the next request does them.
#[derive(Clone)]
pub enum StreamSource {
    Kept(SharedSamples),
    WhenRunning(Weak<dyn Samples + Send>),
}

impl From<SharedSamples> for StreamSource {
    fn from(s: SharedSamples) -> Self {
        Self::Kept(s)
    }
}

struct Done {
    data: ClipmapData,
    changed: u64,
    target: [f64; 2],
    epoch: u64,
    /// The source was gone when the job started: the windows come back untouched, with the edits the
    /// job took (marked again).
    untouched: Option<Option<SampleRect>>,
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

    /// Forget the slots written so far (their texels were sent to the GPU); nothing while a job runs.
    pub fn clear_written(&mut self) {
        if let Some(d) = self.idle.as_mut() {
            d.clear_written();
        }
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
    pub fn request(
        &mut self,
        source: impl Into<StreamSource>,
        frame: Frame,
        target: [f64; 2],
    ) -> bool {
        let Some(mut data) = self.idle.take() else {
            return false;
        };
        let source = source.into();
        let edited = self.edited.take();
        let (tx, epoch) = (self.tx.clone(), self.epoch);
        crate::workers::spawn(move || {
            let source = match source {
                StreamSource::Kept(s) => s,
                StreamSource::WhenRunning(w) => match w.upgrade() {
                    Some(s) => s,
                    None => {
                        let _ = tx.send(Done {
                            data,
                            changed: 0,
                            target,
                            epoch,
                            untouched: Some(edited),
                        });
                        return;
                    }
                },
            };
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
                    untouched: None,
                },
                // Reported as stale: nothing is shown from it and the next request starts afresh.
                Err(_) => Done {
                    data: ClipmapData::new(&cfg),
                    changed: 0,
                    target,
                    epoch: u64::MAX,
                    untouched: None,
                },
            };
            // The receiver is gone only when the stream was dropped: nothing to deliver to.
            let _ = tx.send(done);
        });
        true
    }

    /// Moves the windows to `target` on this thread (with the edits marked so far), when no job runs:
    /// what a caller that must not wait for the pool does. None while a job runs.
    pub fn run_here<S: Samples + ?Sized>(
        &mut self,
        source: &S,
        frame: &Frame,
        target: [f64; 2],
    ) -> Option<Finished> {
        let data = self.idle.as_mut()?;
        let mut changed = self
            .edited
            .take()
            .map_or(0, |r| data.refresh(source, frame, r));
        changed |= data.follow(source, frame, target);
        self.shown = Some(target);
        Some(Finished { changed, target })
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
        if let Some(edited) = done.untouched {
            if done.epoch == self.epoch {
                if let Some(r) = edited {
                    self.mark(r);
                }
                self.idle = Some(done.data);
                return Finished {
                    changed: 0,
                    target: done.target,
                };
            }
        }
        if done.epoch != self.epoch {
            // Nothing of it is shown, and the windows start over: nothing valid is shown any more.
            done.data.invalidate();
            self.shown = None;
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
    use crate::clipmap_data::Texel;
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
            assert!(
                stream.run_here(&g, &frame, t).is_none(),
                "not while a job runs"
            );
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

    #[test]
    fn run_here_equals_a_job_and_a_source_gone_before_the_job_starts_is_stale() {
        let cfg = ClipmapConfig::new(8, 4, 1.0).unwrap();
        let g = Generated::new(&NoiseParams::default(), 1.0).unwrap();
        let frame = Frame::default();
        let mut here = ClipmapStream::new(&cfg);
        let mut job = ClipmapStream::new(&cfg);
        let src: SharedSamples = Arc::new(g.clone());
        for t in [[3.0, 4.0], [40.5, -12.0]] {
            let a = here.run_here(&g, &frame, t).unwrap();
            job.request(src.clone(), frame, t);
            assert_eq!(job.wait().unwrap(), a);
            let (x, y) = (here.data().unwrap(), job.data().unwrap());
            for l in 0..x.layer_count() {
                assert_eq!(x.layer(l), y.layer(l));
            }
            assert_eq!(here.shown_target(), Some(t));
        }
        // Taken only when the job runs: a source gone before that leaves the windows as they were, with
        // the edits the job took marked again.
        let gone: Arc<dyn Samples + Send> = Arc::new(g.clone());
        let weak = StreamSource::WhenRunning(Arc::downgrade(&gone));
        drop(gone);
        let before: Vec<Vec<Texel>> = (0..cfg.levels() as usize + 1)
            .map(|l| job.data().unwrap().layer(l).to_vec())
            .collect();
        job.mark(SampleRect {
            x: 0,
            z: 0,
            w: 4,
            d: 4,
        });
        job.request(weak, frame, [100.0, 100.0]);
        assert_eq!(job.wait().unwrap().changed, 0);
        assert_eq!(
            job.shown_target(),
            Some([40.5, -12.0]),
            "still the last windows"
        );
        assert!(job.has_edits(), "the edits wait for the next job");
        for (l, b) in before.iter().enumerate() {
            assert_eq!(job.data().unwrap().layer(l), &b[..]);
        }
    }
}
