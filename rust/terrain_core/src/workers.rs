//! The worker threads that streamed clipmap windows and collision grids are computed on: one pool, one
//! thread fewer than the machine has cores (at least one), so the main thread keeps a core to itself and
//! its frames do not wait for a busy scheduler. The workers are batch work to the scheduler
//! (`thread_priority`): a job woken up must not take the core of the frame that asked for it.
//!
//! Jobs run after the call that spawned them returns, so the library must not be unloaded under them:
//! `shut_down` (called when the extension is deinitialised) lets the running and queued jobs finish and
//! joins every thread. A later `spawn` starts a new pool.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;

struct Pool {
    pool: rayon::ThreadPool,
    threads: std::sync::Arc<Mutex<Vec<JoinHandle<()>>>>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

fn lock() -> MutexGuard<'static, Option<Pool>> {
    // A poisoned lock only means a panic while spawning; the pool itself is still usable.
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

fn build() -> Pool {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let threads = std::sync::Arc::new(Mutex::new(Vec::new()));
    let handles = threads.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cores.saturating_sub(1).max(1))
        // Our own threads, so that `shut_down` can join them.
        .spawn_handler(move |t| {
            let name = format!("terrain-stream-{}", t.index());
            let h = std::thread::Builder::new().name(name).spawn(move || {
                crate::thread_priority::lower_this_thread();
                t.run()
            })?;
            handles.lock().unwrap_or_else(|e| e.into_inner()).push(h);
            Ok(())
        })
        .build()
        .expect("a thread pool for terrain streaming");
    Pool { pool, threads }
}

/// Runs `job` on a worker thread, later.
pub(crate) fn spawn(job: impl FnOnce() + Send + 'static) {
    lock().get_or_insert_with(build).pool.spawn(job);
}

/// Results of jobs on the pool, collected on the thread that asked: a job returns a batch of items, and
/// `in_flight` counts the items asked for and not yet taken (the streams' back-pressure).
pub struct Results<T> {
    tx: Sender<(usize, Vec<T>)>,
    rx: Receiver<(usize, Vec<T>)>,
    in_flight: usize,
}

impl<T: Send + 'static> Default for Results<T> {
    fn default() -> Self {
        let (tx, rx) = channel();
        Self {
            tx,
            rx,
            in_flight: 0,
        }
    }
}

impl<T: Send + 'static> Results<T> {
    /// Items asked for whose results have not been taken yet.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Runs `job` on a worker; it counts as `items` in flight until its results are taken.
    pub fn spawn(&mut self, items: usize, job: impl FnOnce() -> Vec<T> + Send + 'static) {
        self.in_flight += items;
        let tx = self.tx.clone();
        spawn(move || {
            // A panicking job still reports, so that nobody waits for it forever.
            let out =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).unwrap_or_default();
            let _ = tx.send((items, out));
        });
    }

    /// Finished results, without waiting.
    pub fn poll(&mut self, out: &mut Vec<T>) {
        while let Ok((n, b)) = self.rx.try_recv() {
            self.in_flight = self.in_flight.saturating_sub(n);
            out.extend(b);
        }
    }

    /// Every result asked for, waiting for them.
    pub fn wait(&mut self, out: &mut Vec<T>) {
        while self.in_flight > 0 {
            match self.rx.recv() {
                Ok((n, b)) => {
                    self.in_flight = self.in_flight.saturating_sub(n);
                    out.extend(b);
                }
                Err(_) => break,
            }
        }
    }
}

/// The background lane: one thread of its own for work nobody waits for (an edited region map's coarser
/// levels), in short jobs taken in order, so that it never queues before the streams' jobs on the pool.
struct Lane {
    tx: Sender<Box<dyn FnOnce() + Send>>,
    thread: JoinHandle<()>,
}

static LANE: Mutex<Option<Lane>> = Mutex::new(None);

thread_local! {
    static ON_LANE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `job` on the background lane, later (after the jobs queued there before it). A job the lane
/// queues after `shut_down` is dropped.
pub(crate) fn spawn_background(job: impl FnOnce() + Send + 'static) {
    let mut lane = LANE.lock().unwrap_or_else(|e| e.into_inner());
    if lane.is_none() && on_background_lane() {
        return;
    }
    let lane = lane.get_or_insert_with(|| {
        let (tx, rx) = channel::<Box<dyn FnOnce() + Send>>();
        let thread = std::thread::Builder::new()
            .name("terrain-background".into())
            .spawn(move || {
                ON_LANE.with(|c| c.set(true));
                crate::thread_priority::lower_this_thread();
                while let Ok(job) = rx.recv() {
                    job();
                }
            })
            .expect("a thread for terrain background work");
        Lane { tx, thread }
    });
    let _ = lane.tx.send(Box::new(job));
}

/// Whether this thread is the background lane (its jobs compute on it alone: no rayon fan-out that would
/// compete with the frame at normal priority).
pub(crate) fn on_background_lane() -> bool {
    ON_LANE.with(|c| c.get())
}

/// Lets every spawned job finish and joins the worker threads: after this no code of this library runs
/// on them (call it before the library is unloaded).
pub fn shut_down() {
    let lane = LANE.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(Lane { tx, thread }) = lane {
        drop(tx);
        let _ = thread.join();
    }
    let Some(Pool { pool, threads }) = lock().take() else {
        return;
    };
    // Dropping the pool ends its threads once the jobs already spawned have run.
    drop(pool);
    let handles = std::mem::take(&mut *threads.lock().unwrap_or_else(|e| e.into_inner()));
    for h in handles {
        let _ = h.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn shut_down_waits_for_every_spawned_job_and_a_new_pool_starts_after() {
        let done = Arc::new(AtomicUsize::new(0));
        for _ in 0..8 {
            let d = done.clone();
            spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(5));
                d.fetch_add(1, Ordering::SeqCst);
            });
        }
        shut_down();
        assert_eq!(done.load(Ordering::SeqCst), 8);
        let (tx, rx) = std::sync::mpsc::channel();
        spawn(move || tx.send(7).unwrap());
        assert_eq!(rx.recv().unwrap(), 7);
        shut_down();
    }
}
