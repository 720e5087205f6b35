//! Placeholder class proving the extension loads and Rust computes; replaced by the real classes.

use godot::prelude::*;

/// Reports what the loaded native library is. Placeholder until the terrain classes land.
#[derive(GodotClass)]
#[class(init, base=RefCounted)]
pub struct TerrainCoreProbe {
    base: Base<RefCounted>,
}

#[godot_api]
impl TerrainCoreProbe {
    /// Sum of `values` computed in Rust.
    #[func]
    fn sum(values: PackedFloat32Array) -> f64 {
        values.as_slice().iter().map(|&v| f64::from(v)).sum()
    }
    /// The crate version of the loaded library.
    #[func]
    fn version() -> GString {
        env!("CARGO_PKG_VERSION").into()
    }
}
