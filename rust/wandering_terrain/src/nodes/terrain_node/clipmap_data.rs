//! The GPU side of the clipmap data windows (`terrain_core::clipmap_data`): all layers in one
//! `Texture2DArray` (works in both renderers); a layer is re-sent only when its texels changed, which costs a
//! few hundred microseconds instead of re-sending a whole-terrain texture. The windows of every source are
//! computed on a worker thread (`terrain_core::clipmap_stream`: moves and edits) and shown when complete;
//! the main thread only uploads the layers a finished job changed.

use super::clipmap_layers::ClipmapLayers;
use godot::classes::TextureLayered;
use godot::prelude::*;
use terrain_core::clipmap::ClipmapConfig;
use terrain_core::clipmap_data::{window_size, Frame};
use terrain_core::clipmap_stream::{ClipmapStream, Finished, StreamSource};
use terrain_core::sample_rect::SampleRect;
use terrain_core::samples::Samples;

/// The data windows of one TerrainNode and their texture.
pub struct ClipmapTexture {
    windows: ClipmapStream,
    window: usize,
    layer_count: usize,
    /// The fine window's corner (sample index in the node's placement, before any origin shift).
    fine_origin: [i64; 2],
    /// Target of the running or last streamed job.
    requested: Option<[f64; 2]>,
    texture: Option<ClipmapLayers>,
    /// Bytes sent to the GPU since the last `take_uploaded`.
    uploaded: u64,
    /// Layers sent and the time spent sending them, ever (`work_stats`).
    layers_sent: u64,
    send_usec: u64,
    /// The texture to draw from changed since `take_swapped` last said.
    swapped: bool,
}

/// What a streamed update did: whether the texture was created, and the target of newly shown windows
/// (the clipmap is laid out around it).
#[derive(Default)]
pub struct StreamStep {
    pub created: bool,
    pub shown: Option<[f64; 2]>,
}

impl ClipmapTexture {
    pub fn new(cfg: &ClipmapConfig) -> Self {
        Self {
            windows: ClipmapStream::new(cfg),
            window: window_size(cfg),
            layer_count: cfg.levels() as usize + 1,
            texture: None,
            uploaded: 0,
            layers_sent: 0,
            send_usec: 0,
            swapped: false,
            fine_origin: [0, 0],
            requested: None,
        }
    }

    /// A `Texture2DArrayRD` on Forward+ and Mobile (written by rectangles), else a `Texture2DArray`.
    pub fn texture(&self) -> Option<Gd<TextureLayered>> {
        self.texture.as_ref().map(ClipmapLayers::texture)
    }
    pub fn window(&self) -> usize {
        self.window
    }
    /// Tiles a side each window layer is stored as (1 on the rendering device; `clipmap_tiles.rs`).
    pub fn split(&self) -> i32 {
        self.texture.as_ref().map_or(1, ClipmapLayers::split)
    }
    pub fn fine_layer(&self) -> usize {
        self.layer_count - 1
    }
    /// Sample index of the fine window's corner (for the shader's coverage test).
    pub fn fine_origin(&self) -> [i64; 2] {
        self.fine_origin
    }
    /// The target the shown windows were computed for.
    pub fn shown_target(&self) -> Option<[f64; 2]> {
        self.windows.shown_target()
    }
    /// Bytes uploaded since the last call.
    pub fn take_uploaded(&mut self) -> u64 {
        std::mem::take(&mut self.uploaded)
    }

    /// Layers sent to the GPU and the microseconds spent sending them, since the node was made.
    pub fn sent(&self) -> (u64, u64) {
        (self.layers_sent, self.send_usec)
    }

    /// Everything is recomputed on the next update (new terrain, spacing or frame).
    pub fn invalidate(&mut self) {
        self.windows.invalidate();
        self.requested = None;
    }

    /// Notes samples an edit changed: the next job recomputes the texels they reach.
    pub fn mark_edited(&mut self, r: SampleRect) {
        self.windows.mark(r);
    }

    /// Whether the shown windows were computed for `target`, with every edit, and no job is running.
    pub fn is_current(&self, target: [f64; 2]) -> bool {
        let s = &self.windows;
        !s.busy() && !s.has_edits() && s.shown_target() == Some(target)
    }

    /// Whether windows were shown since the last `invalidate`.
    pub fn has_shown(&self) -> bool {
        self.windows.shown_target().is_some()
    }

    /// Shows a finished job's windows (uploading its changed layers) and starts the next job towards
    /// `target` when the last one is done or edits wait. Never waits.
    pub fn update_streamed(
        &mut self,
        source: StreamSource,
        frame: &Frame,
        target: [f64; 2],
    ) -> StreamStep {
        let mut step = StreamStep::default();
        if let Some(done) = self.take_finished(false) {
            step.created = self.apply(done.changed);
            step.shown = Some(done.target);
        }
        let ask = self.requested != Some(target) || self.windows.has_edits();
        if ask && self.windows.request(source, *frame, target) {
            self.requested = Some(target);
        }
        step
    }

    /// Brings the windows to `target` and every edit now, on this thread: waits for a running job, then
    /// computes what is left here (a first frame, or a caller that asked to wait). The layers both
    /// changed are sent once.
    pub fn update_here(
        &mut self,
        source: &dyn Samples,
        frame: &Frame,
        target: [f64; 2],
    ) -> StreamStep {
        let mut changed = 0;
        if self.windows.busy() {
            changed = self.take_finished(true).map_or(0, |d| d.changed);
        }
        let Some(done) = self.windows.run_here(source, frame, target) else {
            return StreamStep::default();
        };
        self.requested = Some(target);
        StreamStep {
            created: self.apply(changed | done.changed),
            shown: Some(done.target),
        }
    }

    /// A finished job whose windows are shown now (their layers still to send), waiting for the running
    /// one with `block`. A stale result (windows invalidated meanwhile) is dropped and asked for again.
    fn take_finished(&mut self, block: bool) -> Option<Finished> {
        let done = if block {
            self.windows.wait()
        } else {
            self.windows.poll()
        }?;
        if self.windows.shown_target() == Some(done.target) {
            return Some(done);
        }
        self.requested = None;
        None
    }

    /// Sends what the shown windows wrote since the last send (every layer into a new texture the first
    /// time); true when the texture was created. `changed`: the layers a job reported (for a check).
    fn apply(&mut self, changed: u64) -> bool {
        let Some(data) = self.windows.data() else {
            return false;
        };
        if let Some(o) = data.origin(data.fine_layer()) {
            self.fine_origin = o;
        }
        debug_assert!(
            (0..data.layer_count()).all(|l| changed & (1 << l) == 0 || !data.written(l).is_empty())
        );
        let t0 = std::time::Instant::now();
        let created = self.texture.is_none();
        if created {
            self.texture = ClipmapLayers::new(data);
            if self.texture.is_none() {
                godot_error!("TerrainNode: cannot create the clipmap data texture");
            }
            self.layers_sent += self.layer_count as u64;
            self.uploaded += data.bytes() as u64;
        } else if let Some(tex) = self.texture.as_mut() {
            let sent = tex.send(data);
            self.layers_sent += sent.layers;
            self.uploaded += sent.bytes;
            self.swapped |= sent.swapped;
        }
        self.windows.clear_written();
        self.send_usec += t0.elapsed().as_micros() as u64;
        created
    }

    /// Whether the texture to draw from changed since the last call (its turn-taking copies,
    /// `clipmap_tiles.rs`): the materials' `clipmap_data` must follow.
    pub fn take_swapped(&mut self) -> bool {
        std::mem::take(&mut self.swapped)
    }
}
