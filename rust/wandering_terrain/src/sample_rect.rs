//! Rectangles of samples between GDScript (`Rect2i`: `region_changed`, edit calls) and the core
//! (`terrain_core::sample_rect::SampleRect`, signed; `Region`, a grid's own rectangles).

use godot::prelude::*;
use terrain_core::sample_rect::SampleRect;

/// A signal's rectangle as the core's (negative sizes are empty).
pub fn from_rect2i(r: Rect2i) -> SampleRect {
    SampleRect {
        x: i64::from(r.position.x),
        z: i64::from(r.position.y),
        w: r.size.x.max(0) as usize,
        d: r.size.y.max(0) as usize,
    }
}

/// The core's rectangle for GDScript (every map's samples fit an `i32`: at most 2^24 a side, an endless
/// map's centred on the origin).
pub fn to_rect2i(r: impl Into<SampleRect>) -> Rect2i {
    let r: SampleRect = r.into();
    Rect2i::new(
        Vector2i::new(r.x as i32, r.z as i32),
        Vector2i::new(r.w as i32, r.d as i32),
    )
}
