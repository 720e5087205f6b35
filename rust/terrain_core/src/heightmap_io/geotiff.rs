//! GeoTIFF elevation: single-band 8/16/32-bit integer or 32/64-bit float samples, in strips or tiles,
//! uncompressed, LZW, Deflate or PackBits (decoded by the `tiff` crate), read one strip or one row of tiles
//! at a time. The GeoTIFF tags give the spacing (ModelPixelScale), the north-west corner
//! (ModelTiepoint), the projection (GeoKeyDirectory) and GDAL's NoData value. `write` makes the same
//! variants, for export and for the tests.

use super::rows::{guard, height, metres_per_degree, shown, ElevationInfo, RowReader};
use super::HeightmapError;
use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use tiff::decoder::{ChunkType, Decoder, DecodingResult};
use tiff::tags::{SampleFormat, Tag};
use tiff::ColorType;

// The GeoTIFF tags (the decoder knows them by name, so `Tag::Unknown(n)` would not match).
const MODEL_PIXEL_SCALE: Tag = Tag::ModelPixelScaleTag;
const MODEL_TIEPOINT: Tag = Tag::ModelTiepointTag;
const GEO_KEY_DIRECTORY: Tag = Tag::GeoKeyDirectoryTag;
const GDAL_NODATA: Tag = Tag::GdalNodata;
const GT_MODEL_TYPE: u16 = 1024;
const GEOGRAPHIC_TYPE: u16 = 2048;
const PROJECTED_CS_TYPE: u16 = 3072;

pub struct Reader {
    info: ElevationInfo,
    dec: Decoder<BufReader<File>>,
    /// Rows per strip, or the tile size.
    chunk: (usize, usize),
    tiled: bool,
    /// Decoded rows `[first, first + buf.len() / width)`.
    buf: Vec<f32>,
    first: usize,
    /// Next row `read_rows` returns.
    next: usize,
}

fn fail(path: &Path, what: impl std::fmt::Display) -> HeightmapError {
    HeightmapError::Format(format!("{}: {what}", shown(path)))
}

impl Reader {
    pub fn open(path: &Path) -> Result<Self, HeightmapError> {
        let file = File::open(path)
            .map_err(|e| HeightmapError::Read(format!("{}: cannot read: {e}", shown(path))))?;
        let mut dec = Decoder::new(BufReader::new(file))
            .map_err(|e| fail(path, format!("not a readable TIFF: {e}")))?;
        let (w, d) = dec
            .dimensions()
            .map_err(|e| fail(path, format!("not a readable TIFF: {e}")))?;
        let (w, d) = (w as usize, d as usize);
        let color = dec.colortype().map_err(|e| fail(path, e))?;
        let sample_format = sample_format(&mut dec, color, path)?;
        let (cw, ch) = dec.chunk_dimensions();
        let tiled = dec.get_chunk_type() == ChunkType::Tile;
        if w == 0 || d == 0 || cw == 0 || ch == 0 {
            return Err(fail(path, format!("empty image ({w} x {d} samples)")));
        }
        let info = geo_info(&mut dec, path, w, d, sample_format)?;
        Ok(Self {
            info,
            dec,
            chunk: (cw as usize, ch as usize),
            tiled,
            buf: Vec::new(),
            first: 0,
            next: 0,
        })
    }

    /// Decodes the strip or row of tiles holding row `z` into `buf`.
    fn load(&mut self, z: usize) -> Result<(), HeightmapError> {
        let (w, d) = (self.info.width, self.info.depth);
        let (cw, ch) = self.chunk;
        let band = z / ch;
        let rows = ch.min(d - band * ch);
        self.buf.clear();
        self.buf.resize(w * rows, f32::NAN);
        let across = if self.tiled { w.div_ceil(cw) } else { 1 };
        let nodata = self.info.nodata;
        for t in 0..across {
            let index = (band * across + t) as u32;
            let values = self
                .dec
                .read_chunk(index)
                .map_err(|e| fail(&self.info.path, format!("chunk {index} is damaged: {e}")))?;
            let values = to_heights(values, nodata);
            let (x0, cols) = if self.tiled {
                (t * cw, cw.min(w - t * cw))
            } else {
                (0, w)
            };
            if values.len() < cols * rows {
                return Err(fail(
                    &self.info.path,
                    format!(
                        "chunk {index} holds {} samples, want {}",
                        values.len(),
                        cols * rows
                    ),
                ));
            }
            // A chunk's rows are `cols` long (the decoder crops padded edge tiles).
            for r in 0..rows {
                self.buf[r * w + x0..r * w + x0 + cols]
                    .copy_from_slice(&values[r * cols..(r + 1) * cols]);
            }
        }
        self.first = band * ch;
        Ok(())
    }
}

impl RowReader for Reader {
    fn info(&self) -> &ElevationInfo {
        &self.info
    }

    fn read_rows(&mut self, rows: usize, out: &mut Vec<f32>) -> Result<(), HeightmapError> {
        let w = self.info.width;
        let name = shown(&self.info.path);
        guard(&name, || {
            for _ in 0..rows {
                let z = self.next;
                if z >= self.info.depth {
                    return Err(fail(&self.info.path, "read past the last row"));
                }
                if z < self.first || z >= self.first + self.buf.len() / w {
                    self.load(z)?;
                }
                let r = z - self.first;
                out.extend_from_slice(&self.buf[r * w..(r + 1) * w]);
                self.next += 1;
            }
            Ok(())
        })
    }
}

fn sample_format(
    dec: &mut Decoder<BufReader<File>>,
    color: ColorType,
    path: &Path,
) -> Result<&'static str, HeightmapError> {
    let ColorType::Gray(bits) = color else {
        return Err(fail(
            path,
            format!("holds {color:?} samples; only single-band elevation is read"),
        ));
    };
    let format = dec
        .find_tag_unsigned_vec::<u16>(Tag::SampleFormat)
        .ok()
        .flatten()
        .and_then(|v| v.first().copied())
        .map_or(SampleFormat::Uint, SampleFormat::from_u16_exhaustive);
    Ok(match (format, bits) {
        (SampleFormat::Uint, 8) => "uint8",
        (SampleFormat::Uint, 16) => "uint16",
        (SampleFormat::Uint, 32) => "uint32",
        (SampleFormat::Int, 8) => "int8",
        (SampleFormat::Int, 16) => "int16",
        (SampleFormat::Int, 32) => "int32",
        (SampleFormat::IEEEFP, 32) => "float32",
        (SampleFormat::IEEEFP, 64) => "float64",
        (f, b) => {
            return Err(fail(
                path,
                format!(
                    "{b}-bit {f:?} samples are not supported; use 8/16/32-bit integers or 32/64-bit floats"
                ),
            ))
        }
    })
}

fn f64s(dec: &mut Decoder<BufReader<File>>, tag: Tag) -> Option<Vec<f64>> {
    dec.find_tag(tag)
        .ok()
        .flatten()
        .and_then(|v| v.into_f64_vec().ok())
}

/// The GeoTIFF keys: spacing, origin, projection, NoData.
fn geo_info(
    dec: &mut Decoder<BufReader<File>>,
    path: &Path,
    w: usize,
    d: usize,
    sample_format: &'static str,
) -> Result<ElevationInfo, HeightmapError> {
    let scale = f64s(dec, MODEL_PIXEL_SCALE)
        .filter(|s| s.len() >= 2 && s[..2].iter().all(|v| v.is_finite() && *v > 0.0));
    let tie = f64s(dec, MODEL_TIEPOINT).filter(|t| t.len() >= 6 && t.iter().all(|v| v.is_finite()));
    let keys: Vec<u16> = dec
        .find_tag(GEO_KEY_DIRECTORY)
        .ok()
        .flatten()
        .and_then(|v| v.into_u16_vec().ok())
        .unwrap_or_default();
    let key = |k: u16| {
        keys.get(4..)
            .unwrap_or(&[])
            .chunks_exact(4)
            .find(|e| e[0] == k && e[1] == 0)
            .map(|e| e[3])
    };
    let geographic = key(GT_MODEL_TYPE) == Some(2);
    let projection = match (key(PROJECTED_CS_TYPE), key(GEOGRAPHIC_TYPE)) {
        (Some(c), _) if c != 0 && c != 32767 => format!("EPSG:{c}"),
        (_, Some(c)) if c != 0 && c != 32767 => format!("EPSG:{c}"),
        _ => String::new(),
    };
    let nodata = dec
        .find_tag(GDAL_NODATA)
        .ok()
        .flatten()
        .and_then(|v| v.into_string().ok())
        .and_then(|s| {
            s.trim_matches(|c: char| c == '\0' || c.is_whitespace())
                .parse::<f64>()
                .ok()
        });
    // The tiepoint ties raster point (i, j) to model (x, y); the north-west sample centre follows.
    let origin = match (&tie, &scale) {
        (Some(t), Some(s)) => [t[3] - (t[0] - 0.5) * s[0], t[4] + (t[1] - 0.5) * s[1]],
        _ => [0.0, 0.0],
    };
    let spacing = match &scale {
        Some(s) if geographic => {
            let lat = origin[1] - s[1] * (d as f64 - 1.0) * 0.5;
            let m = metres_per_degree(lat.clamp(-90.0, 90.0));
            [s[0] * m[0], s[1] * m[1]]
        }
        Some(s) => [s[0], s[1]],
        None => [1.0, 1.0],
    };
    Ok(ElevationInfo {
        path: path.to_path_buf(),
        format: "GeoTIFF",
        width: w,
        depth: d,
        spacing,
        spacing_known: scale.is_some(),
        geographic,
        projection,
        origin,
        nodata,
        sample_format,
    })
}

fn to_heights(values: DecodingResult, nodata: Option<f64>) -> Vec<f32> {
    fn conv<T: Copy + Into<f64>>(v: Vec<T>, nodata: Option<f64>) -> Vec<f32> {
        v.into_iter().map(|x| height(x.into(), nodata)).collect()
    }
    match values {
        DecodingResult::U8(v) => conv(v, nodata),
        DecodingResult::U16(v) => conv(v, nodata),
        DecodingResult::U32(v) => conv(v, nodata),
        DecodingResult::I8(v) => conv(v, nodata),
        DecodingResult::I16(v) => conv(v, nodata),
        DecodingResult::I32(v) => conv(v, nodata),
        DecodingResult::F32(v) => conv(v, nodata),
        DecodingResult::F64(v) => conv(v, nodata),
        DecodingResult::U64(v) => v.into_iter().map(|x| height(x as f64, nodata)).collect(),
        DecodingResult::I64(v) => v.into_iter().map(|x| height(x as f64, nodata)).collect(),
        DecodingResult::F16(v) => v.into_iter().map(|x| height(x.to_f64(), nodata)).collect(),
    }
}

/// How `write` stores samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    U8,
    U16,
    U32,
    I8,
    I16,
    I32,
    F32,
    F64,
}

impl Sample {
    pub const ALL: [Sample; 8] = [
        Self::U8,
        Self::U16,
        Self::U32,
        Self::I8,
        Self::I16,
        Self::I32,
        Self::F32,
        Self::F64,
    ];

    fn bytes(self) -> usize {
        match self {
            Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 => 2,
            Self::U32 | Self::I32 | Self::F32 => 4,
            Self::F64 => 8,
        }
    }

    /// TIFF SampleFormat: 1 unsigned, 2 signed, 3 float.
    fn format(self) -> u16 {
        match self {
            Self::U8 | Self::U16 | Self::U32 => 1,
            Self::I8 | Self::I16 | Self::I32 => 2,
            Self::F32 | Self::F64 => 3,
        }
    }

    /// One value, little-endian, rounded and clamped to the type.
    fn put(self, v: f64, out: &mut Vec<u8>) {
        let r = v.round();
        match self {
            Self::U8 => out.push(r.clamp(0.0, 255.0) as u8),
            Self::U16 => out.extend((r.clamp(0.0, 65535.0) as u16).to_le_bytes()),
            Self::U32 => out.extend((r.clamp(0.0, u32::MAX as f64) as u32).to_le_bytes()),
            Self::I8 => out.extend((r.clamp(-128.0, 127.0) as i8).to_le_bytes()),
            Self::I16 => out.extend((r.clamp(-32768.0, 32767.0) as i16).to_le_bytes()),
            Self::I32 => {
                out.extend((r.clamp(i32::MIN as f64, i32::MAX as f64) as i32).to_le_bytes())
            }
            Self::F32 => out.extend((v as f32).to_le_bytes()),
            Self::F64 => out.extend(v.to_le_bytes()),
        }
    }
}

/// TIFF compression codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None = 1,
    Lzw = 5,
    Deflate = 8,
    PackBits = 32773,
}

impl Compression {
    pub const ALL: [Compression; 4] = [Self::None, Self::Lzw, Self::Deflate, Self::PackBits];

    fn pack(self, raw: &[u8]) -> Vec<u8> {
        match self {
            Self::None => raw.to_vec(),
            Self::Lzw => weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
                .encode(raw)
                .expect("LZW encoding of a byte buffer"),
            Self::Deflate => {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(raw).expect("in memory");
                e.finish().expect("in memory")
            }
            Self::PackBits => packbits(raw),
        }
    }
}

/// PackBits: runs of 2..=128 equal bytes as (1 − n, byte), the rest as literal groups of ≤ 128.
fn packbits(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 128 + 1);
    let mut i = 0;
    while i < raw.len() {
        let run = raw[i..]
            .iter()
            .take(128)
            .take_while(|&&b| b == raw[i])
            .count();
        if run >= 2 {
            out.push((1 - run as i32) as u8);
            out.push(raw[i]);
            i += run;
            continue;
        }
        let start = i;
        while i < raw.len() && i - start < 128 && !(i + 1 < raw.len() && raw[i] == raw[i + 1]) {
            i += 1;
        }
        if i == start {
            i += 1;
        }
        out.push((i - start - 1) as u8);
        out.extend_from_slice(&raw[start..i]);
    }
    out
}

/// How `write` lays a file out.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    pub sample: Sample,
    pub compression: Compression,
    /// Tile side (a multiple of 16), or 0 for strips of `rows_per_strip` rows.
    pub tile: usize,
    pub rows_per_strip: usize,
    /// ModelPixelScale (x, y) and the model coordinates of the north-west corner.
    pub scale: [f64; 2],
    pub corner: [f64; 2],
    /// 2 for geographic (degrees), 1 for projected.
    pub model_type: u16,
    /// EPSG code of the projected or geographic system (0: none).
    pub epsg: u16,
    pub nodata: Option<f64>,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            sample: Sample::F32,
            compression: Compression::Deflate,
            tile: 0,
            rows_per_strip: 16,
            scale: [1.0, 1.0],
            corner: [0.0, 0.0],
            model_type: 1,
            epsg: 0,
            nodata: None,
        }
    }
}

/// Writes a little-endian single-band GeoTIFF of `width × depth` samples. `row(z, out)` appends row z's
/// values (north first), so a map bigger than memory can be written strip by strip. Edge tiles are padded
/// with the last row and column.
pub fn write(
    path: &Path,
    width: usize,
    depth: usize,
    opt: &WriteOptions,
    mut row: impl FnMut(usize, &mut Vec<f64>),
) -> Result<(), HeightmapError> {
    let io =
        |e: std::io::Error| HeightmapError::Write(format!("{}: cannot write: {e}", shown(path)));
    if width == 0 || depth == 0 || width > u32::MAX as usize || depth > u32::MAX as usize {
        return Err(fail(
            path,
            format!("cannot write {width} x {depth} samples"),
        ));
    }
    let (cw, ch) = if opt.tile > 0 {
        (opt.tile, opt.tile)
    } else {
        (width, opt.rows_per_strip.clamp(1, depth))
    };
    let (across, down) = (width.div_ceil(cw), depth.div_ceil(ch));
    let mut f = BufWriter::new(File::create(path).map_err(io)?);
    f.write_all(b"II*\0\0\0\0\0").map_err(io)?;
    let mut offsets = vec![0u32; across * down];
    let mut counts = vec![0u32; across * down];
    let mut pos = 8u64;
    let mut rows = Vec::new();
    let mut line = Vec::with_capacity(width);
    let mut raw = Vec::new();
    for band in 0..down {
        // The rows of this band, the last one repeated below the image (tile padding).
        rows.clear();
        for z in band * ch..band * ch + ch {
            if z < depth {
                line.clear();
                row(z, &mut line);
                line.resize(width, *line.last().unwrap_or(&0.0));
                rows.push(line.clone());
            } else if opt.tile > 0 {
                rows.push(rows.last().cloned().unwrap_or_default());
            }
        }
        for t in 0..across {
            raw.clear();
            for r in &rows {
                for c in t * cw..t * cw + cw {
                    if c < width || opt.tile > 0 {
                        opt.sample.put(r[c.min(width - 1)], &mut raw);
                    }
                }
            }
            let packed = opt.compression.pack(&raw);
            offsets[band * across + t] = u32::try_from(pos).map_err(|_| fail(path, "over 4 GB"))?;
            counts[band * across + t] = packed.len() as u32;
            f.write_all(&packed).map_err(io)?;
            pos += packed.len() as u64;
        }
    }
    let ifd = ifd(width, depth, cw, ch, opt, &offsets, &counts, pos);
    f.write_all(&ifd.1).map_err(io)?;
    f.flush().map_err(io)?;
    let mut f = f.into_inner().map_err(|e| io(e.into_error()))?;
    f.seek(SeekFrom::Start(4)).map_err(io)?;
    f.write_all(&(ifd.0 as u32).to_le_bytes()).map_err(io)
}

/// One IFD entry's value: (type, count, little-endian bytes).
type Entry = (u16, u16, u32, Vec<u8>);

fn code(t: Tag) -> u16 {
    t.to_u16()
}

/// The image file directory placed at `at` (word aligned): (its offset, bytes).
#[allow(clippy::too_many_arguments)]
fn ifd(
    w: usize,
    d: usize,
    cw: usize,
    ch: usize,
    opt: &WriteOptions,
    offsets: &[u32],
    counts: &[u32],
    at: u64,
) -> (u64, Vec<u8>) {
    const SHORT: u16 = 3;
    const LONG: u16 = 4;
    const DOUBLE: u16 = 12;
    const ASCII: u16 = 2;
    let shorts = |t: u16, v: &[u16]| -> Entry {
        (
            t,
            SHORT,
            v.len() as u32,
            v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        )
    };
    let longs = |t: u16, v: &[u32]| -> Entry {
        (
            t,
            LONG,
            v.len() as u32,
            v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        )
    };
    let doubles = |t: u16, v: &[f64]| -> Entry {
        (
            t,
            DOUBLE,
            v.len() as u32,
            v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        )
    };
    let bits = (opt.sample.bytes() * 8) as u16;
    let mut e: Vec<Entry> = vec![
        longs(256, &[w as u32]),
        longs(257, &[d as u32]),
        shorts(258, &[bits]),
        shorts(259, &[opt.compression as u16]),
        shorts(262, &[1]),
        shorts(277, &[1]),
        shorts(284, &[1]),
        shorts(339, &[opt.sample.format()]),
    ];
    if opt.tile > 0 {
        e.push(longs(322, &[cw as u32]));
        e.push(longs(323, &[ch as u32]));
        e.push(longs(324, offsets));
        e.push(longs(325, counts));
    } else {
        e.push(longs(273, offsets));
        e.push(longs(278, &[ch as u32]));
        e.push(longs(279, counts));
    }
    e.push(doubles(
        code(MODEL_PIXEL_SCALE),
        &[opt.scale[0], opt.scale[1], 0.0],
    ));
    e.push(doubles(
        code(MODEL_TIEPOINT),
        &[0.0, 0.0, 0.0, opt.corner[0], opt.corner[1], 0.0],
    ));
    let cs_key = if opt.model_type == 2 {
        GEOGRAPHIC_TYPE
    } else {
        PROJECTED_CS_TYPE
    };
    e.push(shorts(
        code(GEO_KEY_DIRECTORY),
        &[
            1,
            1,
            0,
            2,
            GT_MODEL_TYPE,
            0,
            1,
            opt.model_type,
            cs_key,
            0,
            1,
            opt.epsg,
        ],
    ));
    if let Some(n) = opt.nodata {
        let mut s = format!("{n}").into_bytes();
        s.push(0);
        e.push((code(GDAL_NODATA), ASCII, s.len() as u32, s));
    }
    e.sort_by_key(|x| x.0);
    let base = at.next_multiple_of(2);
    let mut out = vec![0u8; (base - at) as usize];
    let table = 2 + e.len() * 12 + 4;
    let mut extra: Vec<u8> = Vec::new();
    let mut dir = Vec::with_capacity(table);
    dir.extend((e.len() as u16).to_le_bytes());
    for (tag, ty, count, bytes) in &e {
        dir.extend(tag.to_le_bytes());
        dir.extend(ty.to_le_bytes());
        dir.extend(count.to_le_bytes());
        if bytes.len() <= 4 {
            let mut v = bytes.clone();
            v.resize(4, 0);
            dir.extend(v);
        } else {
            let off = base + table as u64 + extra.len() as u64;
            dir.extend((off as u32).to_le_bytes());
            extra.extend(bytes);
            if extra.len() % 2 == 1 {
                extra.push(0);
            }
        }
    }
    dir.extend(0u32.to_le_bytes());
    out.extend(dir);
    out.extend(extra);
    (base, out)
}
