//! How far a long job (generation, erosion, an elevation import) has come, shared between the worker
//! threads doing it and whoever watches it (a progress bar), with a flag that asks it to stop.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Units done of a total (rows, iterations; the job says which), and a cancel request.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
    cancel: AtomicBool,
}

impl Progress {
    /// `n` more units done.
    pub fn add(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    /// All units up to `n` done (a job that counts from its own position).
    pub fn set_done(&self, n: u64) {
        self.done.store(n, Ordering::Relaxed);
    }

    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// The job says how many units it has, once it knows (0 until then).
    pub fn set_total(&self, n: u64) {
        self.total.store(n, Ordering::Relaxed);
    }

    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Asks the job to stop; it checks between units.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The flag itself, for code that watches any job's cancel flag.
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_cancels() {
        let p = Progress::default();
        assert_eq!((p.done(), p.total(), p.is_cancelled()), (0, 0, false));
        p.set_total(10);
        p.add(3);
        p.add(4);
        assert_eq!((p.done(), p.total()), (7, 10));
        p.cancel();
        assert!(p.is_cancelled() && p.cancel_flag().load(Ordering::Relaxed));
    }
}
