//! One edit as bytes: what a `TerrainEditLog` keeps, sends and replays. Little-endian, a 12-byte header
//! (kind, format, two kind-specific bytes, map id, sequence number) and a body of fixed layout per kind.
//! A brush dab is 48 bytes (a slope adds its two ends, a curve falloff its weights); a rectangle of
//! samples is its corner and size followed by the values. Decoding checks every byte count and value
//! before anything is applied: a malformed operation is refused whole.

use crate::brush::{Brush, Falloff, Tool};
use crate::control::MAX_LAYERS;
use crate::sample_rect::SampleRect;
use crate::terrain_edit::{EditError, TerrainEdit};
use std::fmt;

/// The byte layout's version; an operation of another version is refused (the same build on every
/// machine is what makes replays equal).
pub const FORMAT: u8 = 1;
/// Bytes before an operation's body.
pub const HEADER: usize = 12;
/// Bytes of a dab with a hardness falloff and no slope.
pub const DAB_BYTES: usize = HEADER + 36;
/// Most samples one rectangle operation may carry (a 2048² block, 16 MiB of heights): bounds what a
/// hostile operation can make a receiver allocate; a bigger edit is recorded in bands of rows.
pub const MAX_SAMPLES: usize = 2048 * 2048;

const KIND_DAB: u8 = 1;
const KIND_HEIGHTS: u8 = 2;
const KIND_CONTROL: u8 = 3;
const KIND_HOLES: u8 = 4;
const KIND_PAINT: u8 = 5;
/// Set in a dab's tool byte when a curve falloff's weights follow the body.
const CURVE_FLAG: u8 = 0x80;
/// Set in a paint dab's extra byte when it erases.
const ERASE_FLAG: u8 = 0x80;
const RECT_BYTES: usize = 24;

/// What an operation does.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// One dab of `brush` (no image mask: an image brush's dab is kept as the samples it changed) at
    /// terrain X/Z `center`, lasting `delta` seconds.
    Dab {
        brush: Brush,
        center: [f64; 2],
        delta: f32,
    },
    /// Heights of a rectangle, row-major.
    Heights { rect: SampleRect, values: Vec<f32> },
    /// Control values (paint and hole bit) of a rectangle, row-major.
    Control { rect: SampleRect, values: Vec<u32> },
    /// Holes (non-zero) and ground (zero) of a rectangle.
    Holes { rect: SampleRect, holes: Vec<u8> },
    /// `layer`'s painted weights (0..1) of a rectangle.
    Paint {
        rect: SampleRect,
        layer: u8,
        weights: Vec<f32>,
    },
}

/// An edit with the map it belongs to and its place in that map's log.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub map: u32,
    pub sequence: u32,
    pub edit: Edit,
}

/// Why bytes are not an operation (nothing was applied).
#[derive(Clone, Debug, PartialEq)]
pub enum OpError {
    /// Fewer bytes than the header, or a body of the wrong length for its kind.
    Length {
        kind: &'static str,
        got: usize,
        want: usize,
    },
    Format(u8),
    Kind(u8),
    /// A value out of its range: which one, and the range.
    Value {
        field: &'static str,
        why: String,
    },
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Length { kind, got, want } => write!(
                f,
                "a {kind} operation must be {want} bytes, got {got} (truncated or malformed)"
            ),
            Self::Format(v) => write!(
                f,
                "operation format {v} is not this build's ({FORMAT}): every machine must run the same build"
            ),
            Self::Kind(k) => write!(f, "unknown operation kind {k} (1 to 5)"),
            Self::Value { field, why } => write!(f, "operation field {field}: {why}"),
        }
    }
}

impl std::error::Error for OpError {}

fn tool_code(t: &Tool) -> Option<(u8, u8)> {
    Some(match *t {
        Tool::Raise => (0, 0),
        Tool::Lower => (1, 0),
        Tool::Smooth => (2, 0),
        Tool::Flatten => (3, 0),
        Tool::SetHeight => (4, 0),
        Tool::Slope { .. } => (5, 0),
        Tool::HoleAdd => (6, 0),
        Tool::HoleRemove => (7, 0),
        Tool::Paint { layer, erase } => (8, layer as u8 | if erase { ERASE_FLAG } else { 0 }),
        Tool::Erode => (9, 0),
        Tool::Instances { .. } | Tool::Detail { .. } => return None,
    })
}

impl Edit {
    /// A dab as an operation; None for what has no compact form (an image mask, an instancer's tool):
    /// those are kept as the samples they changed.
    pub fn dab(brush: &Brush, center: [f64; 2], delta: f64) -> Option<Edit> {
        tool_code(&brush.tool)?;
        if brush.mask.is_some() {
            return None;
        }
        // Through its bytes and back: what is applied here is exactly what a receiver applies.
        let op = Op {
            map: 0,
            sequence: 0,
            edit: Edit::Dab {
                brush: brush.clone(),
                center,
                delta: delta as f32,
            },
        };
        Op::decode(&op.encode()).ok().map(|o| o.edit)
    }

    fn kind(&self) -> u8 {
        match self {
            Self::Dab { .. } => KIND_DAB,
            Self::Heights { .. } => KIND_HEIGHTS,
            Self::Control { .. } => KIND_CONTROL,
            Self::Holes { .. } => KIND_HOLES,
            Self::Paint { .. } => KIND_PAINT,
        }
    }

    /// Applies the edit through the edit contract; the rectangle whose surface changed.
    pub fn apply<E: TerrainEdit + ?Sized>(
        &self,
        e: &mut E,
    ) -> Result<Option<SampleRect>, EditError> {
        match self {
            Self::Dab {
                brush,
                center,
                delta,
            } => e.apply_brush(brush, *center, f64::from(*delta)),
            Self::Heights { rect, values } => e.set_heights(*rect, values).map(Some),
            Self::Control { rect, values } => e.set_control(*rect, values).map(Some),
            Self::Holes { rect, holes } => e.set_holes(*rect, holes).map(Some),
            Self::Paint {
                rect,
                layer,
                weights,
            } => e.set_layer(*rect, i64::from(*layer), weights).map(Some),
        }
    }
}

impl Op {
    /// The operation's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(DAB_BYTES);
        let (a, b) = match &self.edit {
            Edit::Dab { brush, .. } => {
                let (tool, extra) = tool_code(&brush.tool).unwrap_or((0, 0));
                let curve = matches!(brush.falloff, Falloff::Curve(_));
                (tool | if curve { CURVE_FLAG } else { 0 }, extra)
            }
            Edit::Paint { layer, .. } => (*layer, 0),
            _ => (0, 0),
        };
        out.extend([self.edit.kind(), FORMAT, a, b]);
        out.extend(self.map.to_le_bytes());
        out.extend(self.sequence.to_le_bytes());
        match &self.edit {
            Edit::Dab {
                brush,
                center,
                delta,
            } => encode_dab(&mut out, brush, *center, *delta),
            Edit::Heights { rect, values } => {
                put_rect(&mut out, rect);
                values.iter().for_each(|v| out.extend(v.to_le_bytes()));
            }
            Edit::Control { rect, values } => {
                put_rect(&mut out, rect);
                values.iter().for_each(|v| out.extend(v.to_le_bytes()));
            }
            Edit::Holes { rect, holes } => {
                put_rect(&mut out, rect);
                out.extend(holes.iter().map(|&h| u8::from(h != 0)));
            }
            Edit::Paint { rect, weights, .. } => {
                put_rect(&mut out, rect);
                weights.iter().for_each(|v| out.extend(v.to_le_bytes()));
            }
        }
        out
    }

    /// The header's map id and sequence number, without decoding the body.
    pub fn peek(bytes: &[u8]) -> Result<(u32, u32), OpError> {
        if bytes.len() < HEADER {
            return Err(OpError::Length {
                kind: "header",
                got: bytes.len(),
                want: HEADER,
            });
        }
        if bytes[1] != FORMAT {
            return Err(OpError::Format(bytes[1]));
        }
        Ok((u32_at(bytes, 4), u32_at(bytes, 8)))
    }

    /// Bytes back into an operation, every field checked.
    pub fn decode(bytes: &[u8]) -> Result<Op, OpError> {
        let (map, sequence) = Op::peek(bytes)?;
        let body = &bytes[HEADER..];
        let edit = match bytes[0] {
            KIND_DAB => decode_dab(bytes[2], bytes[3], body)?,
            KIND_HEIGHTS => {
                let (rect, v) = rect_body("heights", body, 4)?;
                let values: Vec<f32> = v.chunks_exact(4).map(f32_of).collect();
                if let Some(bad) = values.iter().find(|h| !(h.is_finite() && h.abs() <= 1.0e9)) {
                    return Err(value(
                        "values",
                        format!("heights must be finite, within ±1e9, got {bad}"),
                    ));
                }
                Edit::Heights { rect, values }
            }
            KIND_CONTROL => {
                let (rect, v) = rect_body("control", body, 4)?;
                let values = v.chunks_exact(4).map(|c| u32_at(c, 0)).collect();
                Edit::Control { rect, values }
            }
            KIND_HOLES => {
                let (rect, v) = rect_body("holes", body, 1)?;
                Edit::Holes {
                    rect,
                    holes: v.to_vec(),
                }
            }
            KIND_PAINT => {
                let layer = bytes[2];
                if usize::from(layer) >= MAX_LAYERS {
                    return Err(value(
                        "layer",
                        format!("must be in 0 .. {}, got {layer}", MAX_LAYERS - 1),
                    ));
                }
                let (rect, v) = rect_body("paint", body, 4)?;
                let weights: Vec<f32> = v.chunks_exact(4).map(f32_of).collect();
                if let Some(bad) = weights.iter().find(|w| !(0.0..=1.0).contains(*w)) {
                    return Err(value("weights", format!("must be in [0, 1], got {bad}")));
                }
                Edit::Paint {
                    rect,
                    layer,
                    weights,
                }
            }
            k => return Err(OpError::Kind(k)),
        };
        Ok(Op {
            map,
            sequence,
            edit,
        })
    }
}

fn value(field: &'static str, why: String) -> OpError {
    OpError::Value { field, why }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn f32_of(b: &[u8]) -> f32 {
    f32::from_bits(u32_at(b, 0))
}

fn f64_at(b: &[u8], at: usize) -> f64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    f64::from_le_bytes(a)
}

fn i64_at(b: &[u8], at: usize) -> i64 {
    f64_at(b, at).to_bits() as i64
}

fn put_rect(out: &mut Vec<u8>, r: &SampleRect) {
    out.extend(r.x.to_le_bytes());
    out.extend(r.z.to_le_bytes());
    out.extend((r.w as u32).to_le_bytes());
    out.extend((r.d as u32).to_le_bytes());
}

/// A rectangle and its values (`size` bytes each), the count checked against the body's length.
fn rect_body<'a>(
    kind: &'static str,
    body: &'a [u8],
    size: usize,
) -> Result<(SampleRect, &'a [u8]), OpError> {
    if body.len() < RECT_BYTES {
        return Err(OpError::Length {
            kind,
            got: HEADER + body.len(),
            want: HEADER + RECT_BYTES,
        });
    }
    let rect = SampleRect {
        x: i64_at(body, 0),
        z: i64_at(body, 8),
        w: u32_at(body, 16) as usize,
        d: u32_at(body, 20) as usize,
    };
    let n = rect.w.saturating_mul(rect.d);
    if rect.is_empty() || n > MAX_SAMPLES {
        return Err(value(
            "rect",
            format!(
                "size must be 1 .. {MAX_SAMPLES} samples, got {} x {}",
                rect.w, rect.d
            ),
        ));
    }
    let want = HEADER + RECT_BYTES + n * size;
    if HEADER + body.len() != want {
        return Err(OpError::Length {
            kind,
            got: HEADER + body.len(),
            want,
        });
    }
    Ok((rect, &body[RECT_BYTES..]))
}

fn encode_dab(out: &mut Vec<u8>, b: &Brush, center: [f64; 2], delta: f32) {
    out.extend(center[0].to_le_bytes());
    out.extend(center[1].to_le_bytes());
    out.extend(delta.to_le_bytes());
    out.extend((b.size() as f32).to_le_bytes());
    out.extend((b.strength() as f32).to_le_bytes());
    let hardness = match &b.falloff {
        Falloff::Hardness(h) => *h,
        Falloff::Curve(_) => 0.0,
    };
    out.extend(hardness.to_le_bytes());
    out.extend((b.height() as f32).to_le_bytes());
    if let Tool::Slope { from, to } = b.tool {
        from.iter()
            .chain(&to)
            .for_each(|v| out.extend(v.to_le_bytes()));
    }
    if let Falloff::Curve(w) = &b.falloff {
        out.extend((w.len() as u16).to_le_bytes());
        w.iter().for_each(|v| out.extend(v.to_le_bytes()));
    }
}

fn decode_dab(tool: u8, extra: u8, body: &[u8]) -> Result<Edit, OpError> {
    if body.len() < 36 {
        return Err(short_dab(body, 36));
    }
    let center = [f64_at(body, 0), f64_at(body, 8)];
    let f = |at: usize| f32_of(&body[at..at + 4]);
    let (delta, size, strength, hardness, height) = (f(16), f(20), f(24), f(28), f(32));
    let (t, at) = read_tool(tool & !CURVE_FLAG, extra, body, 36)?;
    let (falloff, at) = read_falloff(tool & CURVE_FLAG != 0, hardness, body, at)?;
    if body.len() != at {
        return Err(short_dab(body, at));
    }
    if !(0.0..=10.0).contains(&delta) {
        return Err(value(
            "delta",
            format!("must be in [0, 10] seconds, got {delta}"),
        ));
    }
    if !(center[0].is_finite() && center[1].is_finite()) {
        return Err(value("center", "must be finite".into()));
    }
    let (size, strength, height) = (f64::from(size), f64::from(strength), f64::from(height));
    let brush = Brush::new(t, size, strength, falloff, height)
        .map_err(|e| value("brush", e.to_string()))?;
    Ok(Edit::Dab {
        brush,
        center,
        delta,
    })
}

/// A dab's body shorter than `want` bytes.
fn short_dab(body: &[u8], want: usize) -> OpError {
    OpError::Length {
        kind: "dab",
        got: HEADER + body.len(),
        want: HEADER + want,
    }
}

/// The tool of tool code `code` (a slope's ends read from `body` at `at`); the tool and where the body
/// goes on.
fn read_tool(code: u8, extra: u8, body: &[u8], at: usize) -> Result<(Tool, usize), OpError> {
    let t = match code {
        0 => Tool::Raise,
        1 => Tool::Lower,
        2 => Tool::Smooth,
        3 => Tool::Flatten,
        4 => Tool::SetHeight,
        5 => {
            if body.len() < at + 48 {
                return Err(short_dab(body, at + 48));
            }
            let p = |k: usize| std::array::from_fn(|i| f64_at(body, at + 8 * (3 * k + i)));
            let (from, to) = (p(0), p(1));
            if from.iter().chain(&to).any(|v| !v.is_finite()) {
                return Err(value("slope", "ends must be finite".into()));
            }
            return Ok((Tool::Slope { from, to }, at + 48));
        }
        6 => Tool::HoleAdd,
        7 => Tool::HoleRemove,
        8 => {
            let layer = usize::from(extra & !ERASE_FLAG);
            if layer >= MAX_LAYERS {
                let why = format!("must be in 0 .. {}, got {layer}", MAX_LAYERS - 1);
                return Err(value("layer", why));
            }
            Tool::Paint {
                layer,
                erase: extra & ERASE_FLAG != 0,
            }
        }
        9 => Tool::Erode,
        c => {
            let why = format!("must be a tool code 0 .. 9, got {c}");
            return Err(value("tool", why));
        }
    };
    Ok((t, at))
}

/// The falloff: a curve's weights read from `body` at `at` (`curve`), else `hardness`; the falloff and
/// where the body goes on.
fn read_falloff(
    curve: bool,
    hardness: f32,
    body: &[u8],
    at: usize,
) -> Result<(Falloff, usize), OpError> {
    if !curve {
        if !(0.0..=1.0).contains(&hardness) {
            let why = format!("must be in [0, 1], got {hardness}");
            return Err(value("hardness", why));
        }
        return Ok((Falloff::Hardness(hardness), at));
    }
    if body.len() < at + 2 {
        return Err(short_dab(body, at + 2));
    }
    let n = usize::from(u16::from_le_bytes([body[at], body[at + 1]]));
    let at = at + 2;
    if body.len() < at + 4 * n {
        return Err(short_dab(body, at + 4 * n));
    }
    let w: Vec<f32> = body[at..at + 4 * n].chunks_exact(4).map(f32_of).collect();
    Ok((Falloff::Curve(w), at + 4 * n))
}
