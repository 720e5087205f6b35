//! What the node did on the main thread, counted so a slow frame can be attributed to its cause
//! (`TerrainNode.get_work_stats`): windows shown, layers uploaded, pieces laid out, collision tiles
//! handed to the physics engine, and the time each took. Counters only grow; a caller takes differences
//! between frames. Nothing is timed on a frame with nothing to do (a still camera reads no clock).

use godot::prelude::*;
use std::time::Instant;

#[derive(Default, Clone, Copy)]
pub(crate) struct WorkStats {
    /// Frames whose windows step did anything (a job started or finished), and its time.
    pub windows_steps: u64,
    pub windows_usec: u64,
    /// Finished jobs shown (the rings laid out anew).
    pub windows_shown: u64,
    /// Texture layers sent to the GPU, and the time spent sending them (part of `windows_usec`).
    pub layers_uploaded: u64,
    pub upload_usec: u64,
    /// Physics ticks that had collision work, tiles handed to the engine, and the time.
    pub collision_steps: u64,
    pub collision_tiles: u64,
    pub collision_usec: u64,
}

/// Microseconds since `t0`.
pub(crate) fn usec_since(t0: Instant) -> u64 {
    t0.elapsed().as_micros() as u64
}

impl WorkStats {
    pub(crate) fn to_dictionary(self) -> VarDictionary {
        let mut d = VarDictionary::new();
        for (k, v) in [
            ("windows_steps", self.windows_steps),
            ("windows_usec", self.windows_usec),
            ("windows_shown", self.windows_shown),
            ("layers_uploaded", self.layers_uploaded),
            ("upload_usec", self.upload_usec),
            ("collision_steps", self.collision_steps),
            ("collision_tiles", self.collision_tiles),
            ("collision_usec", self.collision_usec),
        ] {
            d.set(k, v as i64);
        }
        d
    }
}
