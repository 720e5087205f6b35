//! Giving back to the system the free memory the C allocator keeps. Measured in the 20-minute soak
//! (Compatibility, Jolt, 300 m/s with an edit a second and a save a minute): resident memory rose about
//! 100 MB in four minutes beyond the regions cache, of which 69 MB was free memory inside the main
//! thread's heap — glibc returns only the heap's top by itself, and the frames' churn of short-lived
//! allocations leaves free chunks below live ones; `malloc_trim(0)` returned 104 MB at once. Called after
//! a region map's save, a moment a game already pays for; Linux with glibc only (nothing elsewhere).

/// Returns the allocator's free pages to the system (best effort).
pub fn return_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases pages of free chunks; it takes the arenas' own locks.
    unsafe {
        libc::malloc_trim(0);
    }
}
