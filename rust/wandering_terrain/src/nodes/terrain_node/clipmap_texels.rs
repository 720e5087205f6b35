//! A clipmap data texel as the GPU takes it (RGBA 32-bit float, little-endian), shared by the two ways
//! the windows reach a texture (`clipmap_layers.rs`, `clipmap_tiles.rs`), and what a send cost.

use terrain_core::clipmap_data::Texel;

/// Bytes per texel (RGBA, 32-bit float).
pub const TEXEL_BYTES: usize = std::mem::size_of::<Texel>();

/// What a send cost: layers touched and bytes given to the renderer.
#[derive(Clone, Copy, Default)]
pub struct Sent {
    pub layers: u64,
    pub bytes: u64,
    /// The texture to draw from changed (`ClipmapLayers::texture`).
    pub swapped: bool,
}

/// RGBAF bytes of texels (little-endian f32 quadruples: one copy on little-endian machines).
pub fn write_texels(texels: &[Texel], out: &mut [u8]) {
    #[cfg(target_endian = "little")]
    {
        // SAFETY: a Texel is [f32; 4] (16 bytes, no padding); reading a slice of them as bytes is valid.
        let bytes = unsafe {
            std::slice::from_raw_parts(texels.as_ptr().cast::<u8>(), std::mem::size_of_val(texels))
        };
        out.copy_from_slice(bytes);
    }
    #[cfg(not(target_endian = "little"))]
    for (o, t) in out.chunks_exact_mut(TEXEL_BYTES).zip(texels) {
        for (b, v) in o.chunks_exact_mut(4).zip(t) {
            b.copy_from_slice(&v.to_le_bytes());
        }
    }
}
