//! The interaction field: where players, NPCs and wheels pressed the ground lately (trampled grass, trails
//! in snow), around the camera, recovering over a set time.
//!
//! A `size × size` window of texels (side `texel`, terrain units) follows the camera, addressed toroidally
//! (slot = index mod size) like the clipmap data windows; it moves in steps of an eighth of its side, and
//! the strips that come into view are cleared. A texel holds the moment it will have recovered, in
//! 1/64 s units (24 bits): a stamp of strength `s` at time `now` raises it to `now + s · recovery`, never
//! lowers it, so the trample there is `clamp((t - now) / recovery, 0, 1)` with nothing to decay per frame
//! and a full recovery after `recovery` seconds. Interactors stamp every frame; this CPU twin keeps the
//! texels for `trample` (gameplay), the GPU keeps the same values in an RGBA8 texture
//! (`shaders/terrain_interaction_stamp.gdshader` draws the stamps this lists, with the same arithmetic, in
//! f32) that any shader reads (`shaders/terrain_interaction.gdshaderinc`).

use std::fmt;

/// Time units a second: a stored time is a whole number of these.
pub const UNITS_PER_SECOND: f64 = 64.0;
/// Largest stored time (24 bits, three RGBA8 channels): 72 hours of play; past it the field starts over.
pub const MAX_UNITS: u32 = (1 << 24) - 1;
/// Stamps drawn a frame (the stamp shader's uniform arrays); further interactors wait for the next frame.
pub const MAX_STAMPS: usize = 64;
pub const MIN_SIZE: usize = 64;
pub const MAX_SIZE: usize = 2048;
/// Window sides are multiples of this (whole steps of the window's move).
pub const SIZE_STEP: usize = 64;
pub const MIN_TEXEL: f64 = 0.01;
pub const MAX_TEXEL: f64 = 16.0;
pub const MIN_RECOVERY: f64 = 0.1;
/// Recovery times stay far below the 72-hour range of a stored time.
pub const MAX_RECOVERY: f64 = 3600.0;
/// Positions past this many texels from the origin are not followed (a NaN, an absurd transform); f32
/// texel coordinates stay exact below it.
const MAX_INDEX: f64 = 4.0e6;

/// A bad field setting: which property, and the allowed range.
#[derive(Clone, Debug, PartialEq)]
pub enum InteractionError {
    Size(i64),
    Texel(f64),
    Recovery(f64),
}

impl fmt::Display for InteractionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Size(v) => write!(
                f,
                "interaction_size must be {MIN_SIZE}..={MAX_SIZE} and a multiple of {SIZE_STEP}, got {v}"
            ),
            Self::Texel(v) => {
                write!(f, "interaction_texel_size must be {MIN_TEXEL}..={MAX_TEXEL}, got {v}")
            }
            Self::Recovery(v) => write!(
                f,
                "interaction_recovery_time must be {MIN_RECOVERY}..={MAX_RECOVERY} seconds, got {v}"
            ),
        }
    }
}

impl std::error::Error for InteractionError {}

/// Valid field settings: texels a side, texel side (terrain units), recovery time (seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InteractionConfig {
    size: usize,
    texel: f64,
    recovery: f64,
}

impl Default for InteractionConfig {
    /// 512² texels of 0.25 m (128 m around the camera, 1 MiB), recovering in 20 s.
    fn default() -> Self {
        Self {
            size: 512,
            texel: 0.25,
            recovery: 20.0,
        }
    }
}

impl InteractionConfig {
    pub fn new(size: i64, texel: f64, recovery: f64) -> Result<Self, InteractionError> {
        if !(MIN_SIZE as i64..=MAX_SIZE as i64).contains(&size) || size % SIZE_STEP as i64 != 0 {
            return Err(InteractionError::Size(size));
        }
        if !(MIN_TEXEL..=MAX_TEXEL).contains(&texel) {
            return Err(InteractionError::Texel(texel));
        }
        if !(MIN_RECOVERY..=MAX_RECOVERY).contains(&recovery) {
            return Err(InteractionError::Recovery(recovery));
        }
        Ok(Self {
            size: size as usize,
            texel,
            recovery,
        })
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn texel(&self) -> f64 {
        self.texel
    }

    pub fn recovery(&self) -> f64 {
        self.recovery
    }

    /// The recovery time in stored units.
    pub fn recovery_units(&self) -> f64 {
        self.recovery * UNITS_PER_SECOND
    }

    /// GPU memory of the field texture (RGBA8).
    pub fn bytes(&self) -> usize {
        self.size * self.size * 4
    }
}

/// The footprint of a stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StampShape {
    Round,
    Square,
}

/// One interactor's press this frame, in terrain units: swept from `from` (where it was the frame before)
/// to `centre`, so a fast interactor leaves a trail, not a row of prints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stamp {
    pub from: [f64; 2],
    pub centre: [f64; 2],
    pub radius: f64,
    /// 0..=1: the trample it leaves at its core.
    pub strength: f32,
    /// 0..=1: the outer share of the radius over which it fades.
    pub falloff: f32,
    pub shape: StampShape,
}

/// A stamp as the GPU draws it: in window-local texel coordinates (texel `i` of the window has its centre
/// at `i + 0.5`), `peak` in time units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuStamp {
    pub from: [f32; 2],
    pub centre: [f32; 2],
    pub radius: f32,
    pub falloff: f32,
    pub square: bool,
    pub peak: f32,
}

impl GpuStamp {
    /// The press (0..=1) at window-local point (x, z): the stamp shader's `ifield_profile` (the distance to
    /// the swept segment, Euclidean for a disc, the largest axis for a square).
    pub fn profile(&self, x: f32, z: f32) -> f32 {
        let (ax, az) = (x - self.from[0], z - self.from[1]);
        let (ex, ez) = (self.centre[0] - self.from[0], self.centre[1] - self.from[1]);
        let ee = ex * ex + ez * ez;
        let k = if ee > 0.0 {
            ((ax * ex + az * ez) / ee).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dx = ax - ex * k;
        let dz = az - ez * k;
        let d = if self.square {
            dx.abs().max(dz.abs())
        } else {
            (dx * dx + dz * dz).sqrt()
        } / self.radius;
        ((1.0 - d) / self.falloff.max(1.0 / 64.0)).clamp(0.0, 1.0)
    }

    /// The stored time this stamp raises window-local texel (i, j) to at whole time `now` (0: none).
    pub fn time_at(&self, i: i64, j: i64, now: f32) -> u32 {
        let add = (self.peak * self.profile(i as f32 + 0.5, j as f32 + 0.5)).floor();
        if add < 1.0 {
            0
        } else {
            (now + add).min(MAX_UNITS as f32) as u32
        }
    }
}

/// What the GPU draws this frame: the stamps and the strips that came into view (window-local index rects
/// `[x0, z0, x1, z1)`, cleared before the stamps; the stamp shader splits both where the slots wrap).
#[derive(Clone, Debug, Default)]
pub struct FieldFrame {
    pub stamps: Vec<GpuStamp>,
    pub clears: Vec<[i64; 4]>,
    /// Everything is cleared (first frame, a jump, a restart).
    pub clear_all: bool,
}

impl FieldFrame {
    fn reset(&mut self) {
        self.stamps.clear();
        self.clears.clear();
        self.clear_all = false;
    }

    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty() && self.clears.is_empty() && !self.clear_all
    }
}

pub struct InteractionField {
    config: InteractionConfig,
    /// Stored times by slot, row-major.
    texels: Vec<u32>,
    /// The window's first texel index (x, z); None until it follows something.
    origin: Option<[i64; 2]>,
    /// Time in units (fractional); stamps use its whole part.
    now: f64,
    /// No texel holds a time past this: the field is blank once `now` passes it.
    live_until: f64,
    /// Cleared between frames: the next frame clears the GPU's texture.
    clear_pending: bool,
    frame: FieldFrame,
}

impl InteractionField {
    pub fn new(config: InteractionConfig) -> Self {
        Self {
            config,
            texels: vec![0; config.size * config.size],
            origin: None,
            now: 0.0,
            live_until: 0.0,
            clear_pending: false,
            frame: FieldFrame::default(),
        }
    }

    pub fn config(&self) -> InteractionConfig {
        self.config
    }

    pub fn origin(&self) -> Option<[i64; 2]> {
        self.origin
    }

    /// The time in units (what the shaders compare stored times with).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// This frame's work for the GPU.
    pub fn frame(&self) -> &FieldFrame {
        &self.frame
    }

    /// Nothing is trampled anywhere.
    pub fn is_blank(&self) -> bool {
        self.now >= self.live_until
    }

    /// Forgets every press (this frame's work, or the next frame's, clears the GPU's texture).
    pub fn clear(&mut self) {
        self.texels.fill(0);
        self.live_until = 0.0;
        self.frame.clear_all = true;
        self.clear_pending = true;
    }

    /// Starts a frame: time moves on by `dt` seconds and the window follows `centre` (terrain units).
    pub fn begin_frame(&mut self, dt: f64, centre: [f64; 2]) {
        self.frame.reset();
        self.frame.clear_all = std::mem::take(&mut self.clear_pending);
        if dt.is_finite() && dt > 0.0 {
            self.now += dt * UNITS_PER_SECOND;
        }
        // Near the end of the stored range everything starts over (after 72 hours).
        if self.now + self.config.recovery_units() + 2.0 >= MAX_UNITS as f64 {
            self.now = 0.0;
            self.clear();
        }
        self.follow(centre);
        self.clear_pending = false;
    }

    fn follow(&mut self, centre: [f64; 2]) {
        let s = self.config.size as i64;
        let step = (s / 8).max(1);
        let idx = |v: f64| {
            let i = (v / self.config.texel).floor();
            i.is_finite().then_some(i).filter(|i| i.abs() < MAX_INDEX)
        };
        let (Some(cx), Some(cz)) = (idx(centre[0]), idx(centre[1])) else {
            return;
        };
        let snap = |c: f64| ((c as i64 - s / 2) as f64 / step as f64).round() as i64 * step;
        let new = [snap(cx), snap(cz)];
        let Some(old) = self.origin.replace(new) else {
            self.clear();
            return;
        };
        if new == old {
            return;
        }
        if (new[0] - old[0]).abs() >= s || (new[1] - old[1]).abs() >= s {
            if !self.is_blank() {
                self.clear();
            }
            return;
        }
        if self.is_blank() {
            return;
        }
        // The strips of the new window the old one did not cover (window-local index rects).
        let dx = new[0] - old[0];
        let dz = new[1] - old[1];
        if dx != 0 {
            let x = if dx > 0 { [s - dx, s] } else { [0, -dx] };
            self.clear_local([x[0], 0, x[1], s]);
        }
        if dz != 0 {
            let z = if dz > 0 { [s - dz, s] } else { [0, -dz] };
            self.clear_local([0, z[0], s, z[1]]);
        }
    }

    fn clear_local(&mut self, r: [i64; 4]) {
        let o = self.origin.expect("followed");
        for j in r[1]..r[3] {
            for i in r[0]..r[2] {
                let k = self.slot(o[0] + i, o[1] + j);
                self.texels[k] = 0;
            }
        }
        self.frame.clears.push(r);
    }

    fn slot(&self, i: i64, j: i64) -> usize {
        let s = self.config.size as i64;
        (j.rem_euclid(s) * s + i.rem_euclid(s)) as usize
    }

    /// Presses the field with `stamp` this frame; false when it is not drawn (outside the window, no
    /// strength, a bad value, or `MAX_STAMPS` already drawn this frame).
    pub fn stamp(&mut self, stamp: &Stamp) -> bool {
        let Some(o) = self.origin else {
            return false;
        };
        if self.frame.stamps.len() >= MAX_STAMPS {
            return false;
        }
        let t = self.config.texel;
        let s = self.config.size as i64;
        let r = stamp.radius / t;
        let (cx, cz) = (
            stamp.centre[0] / t - o[0] as f64,
            stamp.centre[1] / t - o[1] as f64,
        );
        let (fx, fz) = (
            stamp.from[0] / t - o[0] as f64,
            stamp.from[1] / t - o[1] as f64,
        );
        let finite = [r, cx, cz, fx, fz].iter().all(|v| v.is_finite());
        // NaN strength or falloff fail these tests too.
        let valid = stamp.strength > 0.0 && stamp.falloff >= 0.0;
        if !finite || r <= 0.0 || !valid {
            return false;
        }
        let lo = [
            (cx.min(fx) - r).floor() as i64,
            (cz.min(fz) - r).floor() as i64,
        ];
        let hi = [
            (cx.max(fx) + r).ceil() as i64,
            (cz.max(fz) + r).ceil() as i64,
        ];
        let rect = [lo[0].max(0), lo[1].max(0), hi[0].min(s), hi[1].min(s)];
        if rect[0] >= rect[2] || rect[1] >= rect[3] {
            return false;
        }
        let g = GpuStamp {
            from: [fx as f32, fz as f32],
            centre: [cx as f32, cz as f32],
            radius: r as f32,
            falloff: stamp.falloff.min(1.0),
            square: stamp.shape == StampShape::Square,
            peak: (stamp.strength.min(1.0) as f64 * self.config.recovery_units()) as f32,
        };
        let now = self.now.floor() as f32;
        // Slots stepped along (no division a texel).
        let sx0 = (o[0] + rect[0]).rem_euclid(s) as usize;
        let mut sz = (o[1] + rect[1]).rem_euclid(s) as usize;
        let su = s as usize;
        for j in rect[1]..rect[3] {
            let row = &mut self.texels[sz * su..(sz + 1) * su];
            let mut sx = sx0;
            for i in rect[0]..rect[2] {
                let v = g.time_at(i, j, now);
                if v > row[sx] {
                    row[sx] = v;
                }
                sx += 1;
                if sx == su {
                    sx = 0;
                }
            }
            sz += 1;
            if sz == su {
                sz = 0;
            }
        }
        self.live_until = self.live_until.max(now as f64 + g.peak as f64);
        self.frame.stamps.push(g);
        true
    }

    /// The trample (0..=1) of the stored time in window texel index (i, j) (0 outside the window).
    fn texel_value(&self, i: i64, j: i64) -> f32 {
        let (Some(o), s) = (self.origin, self.config.size as i64) else {
            return 0.0;
        };
        if i < o[0] || j < o[1] || i >= o[0] + s || j >= o[1] + s {
            return 0.0;
        }
        let t = self.texels[self.slot(i, j)] as f64;
        ((t - self.now) / self.config.recovery_units()).clamp(0.0, 1.0) as f32
    }

    /// The trample at terrain point (x, z): 0 untouched (or outside the window) … 1 pressed flat just now;
    /// bilinear between texel centres, as the shaders read it.
    pub fn trample(&self, x: f64, z: f64) -> f32 {
        let t = self.config.texel;
        let (ax, az) = (x / t - 0.5, z / t - 0.5);
        if !(ax.is_finite() && az.is_finite()) || ax.abs() > MAX_INDEX || az.abs() > MAX_INDEX {
            return 0.0;
        }
        let (i, j) = (ax.floor(), az.floor());
        let (fx, fz) = ((ax - i) as f32, (az - j) as f32);
        let (i, j) = (i as i64, j as i64);
        let a = self.texel_value(i, j) * (1.0 - fx) + self.texel_value(i + 1, j) * fx;
        let b = self.texel_value(i, j + 1) * (1.0 - fx) + self.texel_value(i + 1, j + 1) * fx;
        a * (1.0 - fz) + b * fz
    }
}

#[cfg(test)]
#[path = "interaction_field/tests.rs"]
mod tests;
