//! Heightmap files: PNG (8- and 16-bit), raw little-endian 16-bit unsigned and 32-bit float.
//!
//! Integer formats map their full range to `[min_height, max_height]` as height-band texturing does
//! (`h = min + v / max_value * (max - min)`; on export `v = round((h - min) / (max - min) * max_value)`,
//! clamped). Float formats hold heights in world units as they are, so their round trips are lossless.
//! PNG is decoded here rather than by Godot, whose loader reduces 16-bit PNGs to 8 bits.
//! Colour PNGs use their first (red) channel, as height-band texturing reads `.R`.

use std::fmt;

pub mod asc;
pub mod elevation;
pub mod geotiff;
pub mod hgt;
mod rows;

/// What went wrong with a heightmap or elevation file; each kind carries a message naming the file or
/// the setting.
#[derive(Clone, Debug, PartialEq)]
pub enum HeightmapError {
    /// The file's content is wrong or not supported: damaged, truncated, lying header, unknown format.
    Format(String),
    /// A file that cannot be opened or read.
    Read(String),
    /// A file or folder that cannot be written (an export, or the region files of an import).
    Write(String),
    /// A setting out of range (heights, raw width, bit depth, the sample budget, files that make no map).
    Invalid(String),
    /// The import was cancelled.
    Cancelled(String),
}

impl HeightmapError {
    pub fn message(&self) -> &str {
        match self {
            Self::Format(m)
            | Self::Read(m)
            | Self::Write(m)
            | Self::Invalid(m)
            | Self::Cancelled(m) => m,
        }
    }
}

impl fmt::Display for HeightmapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for HeightmapError {}

fn err<T>(m: impl Into<String>) -> Result<T, HeightmapError> {
    Err(HeightmapError::Format(m.into()))
}

fn invalid<T>(m: impl Into<String>) -> Result<T, HeightmapError> {
    Err(HeightmapError::Invalid(m.into()))
}

/// A decoded heightmap: heights row-major, `width * depth`.
#[derive(Clone, Debug, PartialEq)]
pub struct Heightmap {
    pub width: usize,
    pub depth: usize,
    pub heights: Vec<f32>,
}

fn check_range(min: f64, max: f64) -> Result<(), HeightmapError> {
    // Heights are f32 and bounded like TerrainData's (MAX_HEIGHT_VALUE).
    let lim = f64::from(crate::terrain_data::MAX_HEIGHT_VALUE);
    if (-lim..=lim).contains(&min) && (-lim..=lim).contains(&max) && min <= max {
        Ok(())
    } else {
        invalid(format!(
            "min_height and max_height must be numbers in [-{lim}, {lim}] with min_height <= max_height, got {min} and {max}"
        ))
    }
}

fn check_budget(width: u64, depth: u64, budget: u64) -> Result<(), HeightmapError> {
    if width == 0 || depth == 0 || u128::from(width) * u128::from(depth) > u128::from(budget) {
        return invalid(format!("heightmap of {width} x {depth} samples is outside 1 ..= {budget} samples (sample_budget)"));
    }
    Ok(())
}

fn map(v: f64, max_value: f64, min: f64, max: f64) -> f32 {
    (min + v / max_value * (max - min)) as f32
}

fn unmap(h: f32, max_value: f64, min: f64, max: f64) -> f64 {
    let span = max - min;
    let v = if span > 0.0 {
        (f64::from(h) - min) / span
    } else {
        0.0
    };
    (v * max_value).round().clamp(0.0, max_value)
}

/// Decodes an 8- or 16-bit PNG (grey, grey+alpha, RGB or RGBA; first channel used).
pub fn decode_png(
    bytes: &[u8],
    min: f64,
    max: f64,
    budget: u64,
) -> Result<Heightmap, HeightmapError> {
    check_range(min, max)?;
    let mut dec = png::Decoder::new(bytes);
    // Keep 16-bit samples; expand palettes and low bit depths to 8 bits.
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec
        .read_info()
        .map_err(|e| HeightmapError::Format(format!("not a readable PNG: {e}")))?;
    let (w, h) = (reader.info().width, reader.info().height);
    check_budget(u64::from(w), u64::from(h), budget)?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader
        .next_frame(&mut buf)
        .map_err(|e| HeightmapError::Format(format!("PNG data is damaged: {e}")))?;
    let channels = frame.color_type.samples();
    let (w, h) = (w as usize, h as usize);
    let mut heights = Vec::with_capacity(w * h);
    match frame.bit_depth {
        png::BitDepth::Sixteen => {
            for z in 0..h {
                let row = &buf[z * frame.line_size..];
                heights.extend((0..w).map(|x| {
                    let i = x * channels * 2;
                    map(
                        f64::from(u16::from_be_bytes([row[i], row[i + 1]])),
                        65535.0,
                        min,
                        max,
                    )
                }));
            }
        }
        png::BitDepth::Eight => {
            for z in 0..h {
                let row = &buf[z * frame.line_size..];
                heights.extend((0..w).map(|x| map(f64::from(row[x * channels]), 255.0, min, max)));
            }
        }
        d => return err(format!("unsupported PNG bit depth {d:?}")),
    }
    Ok(Heightmap {
        width: w,
        depth: h,
        heights,
    })
}

/// Encodes a greyscale PNG of `bits` (8 or 16) per sample.
pub fn encode_png(
    heights: &[f32],
    width: usize,
    depth: usize,
    bits: u32,
    min: f64,
    max: f64,
) -> Result<Vec<u8>, HeightmapError> {
    check_range(min, max)?;
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width as u32, depth as u32);
        enc.set_color(png::ColorType::Grayscale);
        let data: Vec<u8> = match bits {
            8 => {
                enc.set_depth(png::BitDepth::Eight);
                heights
                    .iter()
                    .map(|&h| unmap(h, 255.0, min, max) as u8)
                    .collect()
            }
            16 => {
                enc.set_depth(png::BitDepth::Sixteen);
                heights
                    .iter()
                    .flat_map(|&h| (unmap(h, 65535.0, min, max) as u16).to_be_bytes())
                    .collect()
            }
            b => return invalid(format!("bit_depth must be 8 or 16, got {b}")),
        };
        let mut w = enc
            .write_header()
            .map_err(|e| HeightmapError::Invalid(e.to_string()))?;
        w.write_image_data(&data)
            .map_err(|e| HeightmapError::Invalid(e.to_string()))?;
    }
    Ok(out)
}

fn raw_rows(
    len: usize,
    width: usize,
    bytes_per: usize,
    what: &str,
    budget: u64,
) -> Result<usize, HeightmapError> {
    if width == 0 {
        return invalid(format!("width must be >= 1 to read a raw {what} file"));
    }
    let row = width * bytes_per;
    if len == 0 || !len.is_multiple_of(row) {
        return err(format!(
            "raw {what} file of {len} bytes is not a whole number of rows of width {width} ({row} bytes per row): \
             truncated or wrong width"
        ));
    }
    check_budget(width as u64, (len / row) as u64, budget)?;
    Ok(len / row)
}

/// Raw little-endian unsigned 16-bit samples, `width` per row.
pub fn decode_raw_u16(
    bytes: &[u8],
    width: usize,
    min: f64,
    max: f64,
    budget: u64,
) -> Result<Heightmap, HeightmapError> {
    check_range(min, max)?;
    let depth = raw_rows(bytes.len(), width, 2, "16-bit", budget)?;
    let heights = bytes
        .chunks_exact(2)
        .map(|b| {
            map(
                f64::from(u16::from_le_bytes([b[0], b[1]])),
                65535.0,
                min,
                max,
            )
        })
        .collect();
    Ok(Heightmap {
        width,
        depth,
        heights,
    })
}

pub fn encode_raw_u16(heights: &[f32], min: f64, max: f64) -> Result<Vec<u8>, HeightmapError> {
    check_range(min, max)?;
    Ok(heights
        .iter()
        .flat_map(|&h| (unmap(h, 65535.0, min, max) as u16).to_le_bytes())
        .collect())
}

/// Raw little-endian 32-bit float heights (world units), `width` per row. Non-finite values are refused.
pub fn decode_raw_f32(
    bytes: &[u8],
    width: usize,
    budget: u64,
) -> Result<Heightmap, HeightmapError> {
    let depth = raw_rows(bytes.len(), width, 4, "32-bit float", budget)?;
    let heights: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if let Some(i) = heights.iter().position(|h| !h.is_finite()) {
        return err(format!(
            "raw 32-bit float file holds a non-finite height ({}) at sample {i}",
            heights[i]
        ));
    }
    Ok(Heightmap {
        width,
        depth,
        heights,
    })
}

pub fn encode_raw_f32(heights: &[f32]) -> Vec<u8> {
    heights.iter().flat_map(|h| h.to_le_bytes()).collect()
}

/// 8-bit channel values mapped to `[min, max]` like an 8-bit PNG (for images handed over in memory).
pub fn decode_u8(
    values: &[u8],
    width: usize,
    min: f64,
    max: f64,
    budget: u64,
) -> Result<Heightmap, HeightmapError> {
    check_range(min, max)?;
    let depth = raw_rows(values.len(), width, 1, "8-bit", budget)?;
    let heights = values
        .iter()
        .map(|&v| map(f64::from(v), 255.0, min, max))
        .collect();
    Ok(Heightmap {
        width,
        depth,
        heights,
    })
}

/// Heightmap file formats, chosen by a path's extension (the one place that knows the list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// 8- or 16-bit PNG.
    Png,
    /// Raw little-endian unsigned 16-bit (`.r16`).
    R16,
    /// Raw little-endian 32-bit float (`.r32`, `.raw`).
    R32,
    /// OpenEXR float (read and written through the engine).
    Exr,
}

impl FileFormat {
    /// The accepted extensions, for messages.
    pub const EXTENSIONS: &'static str =
        ".png, .r16, .r32, .raw or .exr (elevation data: .tif, .tiff, .hgt or .asc)";

    pub fn from_path(path: &str) -> Result<Self, HeightmapError> {
        let ext = path
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "png" => Ok(Self::Png),
            "r16" => Ok(Self::R16),
            "r32" | "raw" => Ok(Self::R32),
            "exr" => Ok(Self::Exr),
            _ => err(format!(
                "unsupported file type '.{ext}' ({path}); use {}",
                Self::EXTENSIONS
            )),
        }
    }

    /// Decodes a file's bytes (not EXR: the engine decodes that). `raw_width` is the samples per row of
    /// raw files.
    pub fn decode(
        self,
        bytes: &[u8],
        min: f64,
        max: f64,
        raw_width: usize,
        budget: u64,
    ) -> Result<Heightmap, HeightmapError> {
        match self {
            Self::Png => decode_png(bytes, min, max, budget),
            Self::R16 => decode_raw_u16(bytes, raw_width, min, max, budget),
            Self::R32 => decode_raw_f32(bytes, raw_width, budget),
            Self::Exr => err("EXR files are decoded by the engine"),
        }
    }

    /// Encodes heights (not EXR). `bits` is the PNG bit depth (8 or 16).
    pub fn encode(
        self,
        heights: &[f32],
        width: usize,
        depth: usize,
        bits: u32,
        min: f64,
        max: f64,
    ) -> Result<Vec<u8>, HeightmapError> {
        match self {
            Self::Png => encode_png(heights, width, depth, bits, min, max),
            Self::R16 => encode_raw_u16(heights, min, max),
            Self::R32 => Ok(encode_raw_f32(heights)),
            Self::Exr => err("EXR files are encoded by the engine"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(FileFormat::from_path("a/b.PNG").unwrap(), FileFormat::Png);
        assert_eq!(FileFormat::from_path("x.raw").unwrap(), FileFormat::R32);
        assert_eq!(FileFormat::from_path("x.r16").unwrap(), FileFormat::R16);
        assert_eq!(FileFormat::from_path("x.exr").unwrap(), FileFormat::Exr);
        let e = FileFormat::from_path("x.tga").unwrap_err().to_string();
        assert!(e.contains(".tga") && e.contains(".r16"), "{e}");
        assert!(FileFormat::from_path("noext").is_err());
        // 8-bit values map like an 8-bit PNG.
        let h = decode_u8(&[0, 255, 51, 102], 2, -10.0, 40.0, 100).unwrap();
        assert_eq!(h.heights, vec![-10.0, 40.0, 0.0, 10.0]);
    }

    fn ramp(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| -5.0 + 17.0 * i as f32 / (n - 1) as f32)
            .collect()
    }

    #[test]
    fn png16_round_trip_within_one_step() {
        let h = ramp(37 * 11);
        let bytes = encode_png(&h, 37, 11, 16, -5.0, 12.0).unwrap();
        let back = decode_png(&bytes, -5.0, 12.0, u64::MAX).unwrap();
        assert_eq!((back.width, back.depth), (37, 11));
        for (a, b) in h.iter().zip(&back.heights) {
            assert!((a - b).abs() <= 17.0 / 65535.0 * 0.5 + 1e-5, "{a} {b}");
        }
    }

    #[test]
    fn png8_round_trip_within_one_step() {
        let h = ramp(20 * 3);
        let back = decode_png(
            &encode_png(&h, 20, 3, 8, -5.0, 12.0).unwrap(),
            -5.0,
            12.0,
            u64::MAX,
        )
        .unwrap();
        for (a, b) in h.iter().zip(&back.heights) {
            assert!((a - b).abs() <= 17.0 / 255.0 * 0.5 + 1e-5);
        }
    }

    #[test]
    fn raw_round_trips() {
        let h = ramp(9 * 4);
        assert_eq!(
            decode_raw_f32(&encode_raw_f32(&h), 9, u64::MAX)
                .unwrap()
                .heights,
            h
        );
        let back = decode_raw_u16(
            &encode_raw_u16(&h, -5.0, 12.0).unwrap(),
            9,
            -5.0,
            12.0,
            u64::MAX,
        )
        .unwrap();
        assert_eq!(back.depth, 4);
        for (a, b) in h.iter().zip(&back.heights) {
            assert!((a - b).abs() <= 17.0 / 65535.0 * 0.5 + 1e-5);
        }
    }

    #[test]
    fn damaged_input_is_refused() {
        let h = ramp(9 * 4);
        let f = encode_raw_f32(&h);
        assert!(decode_raw_f32(&f[..f.len() - 1], 9, u64::MAX)
            .unwrap_err()
            .to_string()
            .contains("truncated"));
        assert!(decode_raw_u16(&[0, 0, 0], 2, 0.0, 1.0, u64::MAX).is_err());
        let png = encode_png(&h, 9, 4, 16, -5.0, 12.0).unwrap();
        assert!(decode_png(&png[..png.len() / 2], -5.0, 12.0, u64::MAX).is_err());
        assert!(decode_png(b"not a png", 0.0, 1.0, u64::MAX).is_err());
        assert!(decode_png(&png, 0.0, 1.0, 10)
            .unwrap_err()
            .to_string()
            .contains("sample_budget"));
        assert!(decode_png(&png, 2.0, 1.0, u64::MAX)
            .unwrap_err()
            .to_string()
            .contains("min_height"));
    }
}
