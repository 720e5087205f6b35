//! Octahedral impostors: a mesh baked from N×N directions over the upper hemisphere into one atlas
//! (hemi-octahedral layout: the hemisphere folded onto a diamond, turned into a square), and the view
//! selection the card shader does (`shaders/terrain_impostor.gdshaderinc` is the GPU twin of the maths
//! here: the same encoding, frame bases and three-frame blend).
//!
//! A frame is an orthographic view of the mesh along one direction, `2 × radius` wide, centred on the
//! mesh's bounds; the card drawn far away faces the camera and blends the three frames nearest the view
//! direction, each sampled where the card's point projects onto that frame's plane ("virtual frame"
//! projection), so the blend stays sharp between frames.

mod bake;
mod mips;
#[cfg(test)]
mod tests;

pub use bake::{bake, BakeMaterial, BakeSurface, BakeTexture, BakedImpostor};
pub use mips::{chain, max_level, with_mips};

use std::fmt;

/// Views per side of the atlas (frames × frames views in all).
pub const FRAMES_RANGE: (u32, u32) = (2, 32);
/// Atlas side in pixels.
pub const ATLAS_RANGE: (u32, u32) = (64, 8192);
/// The smallest frame (pixels per side) worth baking.
pub const MIN_FRAME: u32 = 16;

#[derive(Clone, Debug, PartialEq)]
pub enum ImpostorError {
    Frames(i64),
    Atlas(i64),
    /// Frames too small for the atlas: (atlas, frames).
    FrameSize(i64, i64),
    /// Nothing to bake: no triangle with a finite position.
    Empty,
    Cancelled,
}

impl std::error::Error for ImpostorError {}

impl fmt::Display for ImpostorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Frames(v) => write!(
                f,
                "frames must be in [{}, {}] (views per side), got {v}",
                FRAMES_RANGE.0, FRAMES_RANGE.1
            ),
            Self::Atlas(v) => write!(
                f,
                "atlas_size must be in [{}, {}] pixels, got {v}",
                ATLAS_RANGE.0, ATLAS_RANGE.1
            ),
            Self::FrameSize(a, n) => write!(
                f,
                "atlas_size {a} with {n} frames gives frames under {MIN_FRAME} pixels: \
                 use atlas_size >= {} or fewer frames",
                n * i64::from(MIN_FRAME)
            ),
            Self::Empty => write!(f, "the mesh has no triangles to bake"),
            Self::Cancelled => write!(f, "the bake was cancelled"),
        }
    }
}

/// How an atlas is cut: `frames` × `frames` views of `frame_size()` pixels (the atlas is their square, the
/// asked size rounded down to a multiple of `frames`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImpostorLayout {
    frames: u32,
    atlas: u32,
}

impl ImpostorLayout {
    pub fn new(frames: i64, atlas: i64) -> Result<Self, ImpostorError> {
        if !(i64::from(FRAMES_RANGE.0)..=i64::from(FRAMES_RANGE.1)).contains(&frames) {
            return Err(ImpostorError::Frames(frames));
        }
        if !(i64::from(ATLAS_RANGE.0)..=i64::from(ATLAS_RANGE.1)).contains(&atlas) {
            return Err(ImpostorError::Atlas(atlas));
        }
        if atlas / frames < i64::from(MIN_FRAME) {
            return Err(ImpostorError::FrameSize(atlas, frames));
        }
        Ok(Self {
            frames: frames as u32,
            atlas: atlas as u32,
        })
    }
    pub fn frames(&self) -> u32 {
        self.frames
    }
    pub fn frame_size(&self) -> u32 {
        self.atlas / self.frames
    }
    /// The baked atlas's side: `frames × frame_size`.
    pub fn atlas_side(&self) -> u32 {
        self.frame_size() * self.frames
    }
    /// The direction frame (`i`, `j`) looks from (towards the viewer; y ≥ 0).
    pub fn frame_direction(&self, i: u32, j: u32) -> [f32; 3] {
        let n = (self.frames - 1) as f32;
        hemi_oct_decode([i as f32 / n, j as f32 / n])
    }
    /// The three frames to blend for view direction `d` (object space, towards the viewer) and their
    /// weights (summing to 1; the frame itself with weight 1 when `d` is a frame's direction).
    pub fn blend(&self, d: [f32; 3]) -> [([u32; 2], f32); 3] {
        let n = (self.frames - 1) as f32;
        let e = hemi_oct_encode(d);
        let g = [e[0] * n, e[1] * n];
        let base = [g[0].floor().min(n - 1.0), g[1].floor().min(n - 1.0)];
        let f = [g[0] - base[0], g[1] - base[1]];
        let b = [base[0] as u32, base[1] as u32];
        if f[0] + f[1] <= 1.0 {
            [
                (b, 1.0 - f[0] - f[1]),
                ([b[0] + 1, b[1]], f[0]),
                ([b[0], b[1] + 1], f[1]),
            ]
        } else {
            [
                ([b[0] + 1, b[1] + 1], f[0] + f[1] - 1.0),
                ([b[0], b[1] + 1], 1.0 - f[0]),
                ([b[0] + 1, b[1]], 1.0 - f[1]),
            ]
        }
    }
}

/// The upper hemisphere onto [0, 1]²: the direction's X/Z over its L1 norm (a diamond), turned 45° into
/// the square. Directions below the horizon are folded up (y taken as |y|).
pub fn hemi_oct_encode(d: [f32; 3]) -> [f32; 2] {
    let s = d[0].abs() + d[1].abs() + d[2].abs();
    let (x, z) = if s > 0.0 {
        (d[0] / s, d[2] / s)
    } else {
        (0.0, 0.0)
    };
    [
        ((x + z) * 0.5 + 0.5).clamp(0.0, 1.0),
        ((x - z) * 0.5 + 0.5).clamp(0.0, 1.0),
    ]
}

/// The inverse of `hemi_oct_encode` (a unit vector with y ≥ 0).
pub fn hemi_oct_decode(uv: [f32; 2]) -> [f32; 3] {
    let (a, b) = (uv[0] * 2.0 - 1.0, uv[1] * 2.0 - 1.0);
    let (x, z) = ((a + b) * 0.5, (a - b) * 0.5);
    let y = 1.0 - x.abs() - z.abs();
    normalize([x, y.max(0.0), z])
}

/// A frame's axes: right and up across the image, forward towards the viewer (`d`). Up follows the
/// world's Y; straight down from above it is -Z (any choice works: each frame is sampled through its own
/// axes).
pub fn frame_basis(d: [f32; 3]) -> [[f32; 3]; 3] {
    let f = normalize(d);
    let up_ref = if f[1].abs() > 0.999 {
        [0.0, 0.0, -1.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let right = normalize(cross(up_ref, f));
    let up = cross(f, right);
    [right, up, f]
}

pub(crate) fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = dot(v, v).sqrt();
    if l > 0.0 {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        [0.0, 1.0, 0.0]
    }
}

pub(crate) fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
