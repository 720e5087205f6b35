//! Work on its own thread that the main thread polls (once a frame, say): `TerrainData`'s generation,
//! erosion and imports, and `TerrainRegions`' imports. One type, so every such job starts, reports its
//! progress, cancels and finishes the same way: the resource keeps an `Option<AsyncJob<..>>`, refuses a
//! second start while it is `Some`, and its `finish_*` call takes the job once it has ended.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use terrain_core::progress::Progress;

/// What a job's work shares with the main thread while it runs: at least the cancel flag it checks (the
/// core's `Progress` also counts units done).
pub trait Watch: Default + Send + Sync + 'static {
    fn cancel_flag(&self) -> &AtomicBool;
}

impl Watch for AtomicBool {
    fn cancel_flag(&self) -> &AtomicBool {
        self
    }
}

impl Watch for Progress {
    fn cancel_flag(&self) -> &AtomicBool {
        Progress::cancel_flag(self)
    }
}

/// How a job ended.
pub enum Outcome<T> {
    /// The work's result.
    Done(T),
    /// Cancelled: whatever the work returned is dropped (a cancel after its last step still wins, so a
    /// cancelled job never changes anything).
    Cancelled,
    /// The work panicked (a bug): nothing to install.
    Failed,
}

/// A job on its own thread: its shared watch `W`, the result `T` and what the starter keeps beside it
/// (`I`: the size it was started for, a region, the call's name for messages).
pub struct AsyncJob<T, W: Watch = AtomicBool, I = ()> {
    watch: Arc<W>,
    handle: JoinHandle<T>,
    info: I,
}

impl<T: Send + 'static, W: Watch, I> AsyncJob<T, W, I> {
    /// Runs `work` on a new thread with a fresh watch.
    pub fn start(info: I, work: impl FnOnce(&W) -> T + Send + 'static) -> Self {
        let watch = Arc::new(W::default());
        let shared = watch.clone();
        let handle = std::thread::spawn(move || work(&shared));
        Self {
            watch,
            handle,
            info,
        }
    }

    pub fn watch(&self) -> &W {
        &self.watch
    }

    pub fn info(&self) -> &I {
        &self.info
    }

    pub fn is_running(&self) -> bool {
        !self.handle.is_finished()
    }

    /// Takes the job out of `slot` once it has ended. Otherwise what a `finish_*` call returns:
    /// `Err(false)` while it runs, `Err(true)` when there is none.
    pub fn take_ended(slot: &mut Option<Self>) -> Result<Self, bool> {
        match slot {
            None => Err(true),
            Some(j) if j.is_running() => Err(false),
            Some(_) => slot.take().ok_or(true),
        }
    }

    /// Asks the work to stop; `finish` then reports `Cancelled`.
    pub fn cancel(&self) {
        self.watch.cancel_flag().store(true, Ordering::Relaxed);
    }

    /// Waits for the work (at once, for an ended job) and says how it ended, with the starter's info.
    pub fn finish(self) -> (Outcome<T>, I) {
        let cancelled = self.watch.cancel_flag().load(Ordering::Relaxed);
        let outcome = match self.handle.join() {
            Ok(_) if cancelled => Outcome::Cancelled,
            Ok(v) => Outcome::Done(v),
            Err(_) => Outcome::Failed,
        };
        (outcome, self.info)
    }
}

/// A `Progress`-watched job's progress for a script: -1 when none runs, the share of units done, [0, 1),
/// while it runs (1 only once it has ended: a bar never reads 100 % before the job is finished), 1 when it
/// is ready for its `finish_*` call.
pub fn progress_of<T: Send + 'static, I>(slot: &Option<AsyncJob<T, Progress, I>>) -> f64 {
    match slot {
        None => -1.0,
        Some(j) if !j.is_running() => 1.0,
        Some(j) => {
            let total = j.watch().total().max(1);
            (j.watch().done() as f64 / total as f64).min(0.999)
        }
    }
}
