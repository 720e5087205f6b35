//! Background scheduling for the worker threads. Measured here (2 cores, software renderer): a worker
//! woken by a new job preempted the main thread in the middle of its frame, and the frame that started the
//! job took 2–4 ms instead of 0.1. On Linux (and Android) the workers are SCHED_BATCH: the scheduler does
//! not let a waking batch thread preempt a running one, and their share of the CPU stays the same (a nice
//! value was tried too: under load it starved the workers, and windows and collision came late).
//! Other platforms keep the normal policy: the result only changes timing, never output.

/// Marks the calling thread as batch work (best effort; nothing on other platforms).
pub(crate) fn lower_this_thread() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: a plain system call on the calling thread (pid 0 = this thread on Linux) with a valid
    // sched_param; an error leaves the policy as it was (ignored on purpose).
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_BATCH, &param);
    }
}

#[cfg(test)]
mod tests {
    /// The call succeeds and the thread keeps working (on Linux its policy is then SCHED_BATCH).
    #[test]
    fn a_lowered_thread_runs_as_batch_work_on_linux() {
        let policy = std::thread::spawn(|| {
            super::lower_this_thread();
            #[cfg(target_os = "linux")]
            // SAFETY: reads the calling thread's scheduling policy.
            return unsafe { libc::sched_getscheduler(0) };
            #[cfg(not(target_os = "linux"))]
            3
        })
        .join()
        .expect("the thread runs");
        assert_eq!(policy, 3, "SCHED_BATCH");
    }
}
