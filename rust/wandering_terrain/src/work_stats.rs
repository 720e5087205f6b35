//! What a part of the terrain did on the main thread, counted so a slow frame can be attributed to its
//! cause: one counter type for every part (`TerrainNode.get_work_stats`, `TerrainInstancer.get_work_stats`),
//! each a set of named counters that only grow (a caller takes differences between frames) and reach
//! scripts as a Dictionary of the same names. Nothing is timed on a frame with nothing to do (a still camera
//! reads no clock).

use godot::prelude::*;
use std::time::Instant;

/// A struct of named `u64` counters and its Dictionary (the field names are the keys).
macro_rules! work_counters {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Default, Clone, Copy)]
        pub(crate) struct $name {
            $($(#[$fm])* pub $field: u64,)*
        }

        impl $name {
            pub(crate) fn to_dictionary(self) -> VarDictionary {
                let mut d = VarDictionary::new();
                $(d.set(stringify!($field), self.$field as i64);)*
                d
            }
        }
    };
}

work_counters! {
    /// A terrain node's: its data windows and its collision.
    WorkStats {
        /// Frames whose windows step did anything (a job started or finished), and its time.
        windows_steps,
        windows_usec,
        /// Finished jobs shown (the rings laid out anew).
        windows_shown,
        /// Texture layers sent to the GPU, and the time spent sending them (part of `windows_usec`).
        layers_uploaded,
        upload_usec,
        /// Physics ticks that had collision work, tiles handed to the engine, and the time.
        collision_steps,
        collision_tiles,
        collision_usec,
        /// The surface cache's updates (µs) and the texels it asked the GPU to draw.
        surface_usec,
        surface_texels,
    }
}

work_counters! {
    /// A TerrainInstancer's: its frame updates (µs) and their parts.
    InstancerWork {
        /// Every frame update.
        update_usec,
        /// Showing finished cells, choosing the cells the view needs, asking the workers, colliding.
        show_usec,
        choose_usec,
        ask_usec,
        collide_usec,
        /// Detail (grass), and its parts: showing its finished cells, choosing and asking for its cells.
        detail_usec,
        detail_show_usec,
        detail_choose_usec,
        /// Impostors' far cells: choosing, asking and showing them.
        far_usec,
    }
}

/// Microseconds since `t0`.
pub(crate) fn usec_since(t0: Instant) -> u64 {
    t0.elapsed().as_micros() as u64
}
