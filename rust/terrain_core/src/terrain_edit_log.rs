//! Edits as data: every edit of a terrain kept as a compact operation (`op.rs`) in a log, so that other
//! machines replay it and reach the same heights and control bit for bit (same build, any thread count:
//! each edit computes every sample from the samples before it, whichever thread computes it).
//!
//! The ordering rule: a log applies operations in sequence order. Each operation carries its number
//! (the log that recorded it gave the next one); one that arrives early is held until those before it
//! have arrived, one already applied is a duplicate and ignored. One log writes (the server: clients
//! send it what they want done, it applies and records, everyone replays its operations), so numbers
//! never collide.

pub mod op;

pub use op::{Edit, Op, OpError};
use std::collections::BTreeMap;
use std::fmt;

/// Most operations held while waiting for an earlier one, and their bytes (above the largest operation,
/// `op::MAX_SAMPLES` values): beyond, an arrival is refused (a gap that never closes must not grow
/// memory without end).
pub const MAX_HELD: usize = 65_536;
pub const MAX_HELD_BYTES: usize = 64 << 20;
const _: () = assert!(MAX_HELD_BYTES > op::HEADER + 24 + 4 * op::MAX_SAMPLES);

/// What became of an operation that arrived.
#[derive(Debug, PartialEq)]
pub enum Arrival {
    /// The next in sequence: apply it, then `commit` its bytes.
    Next(Op),
    /// Ahead of the log: held until the operations before it arrive (`take_ready`).
    Held,
    /// Already in the log: ignored.
    Duplicate,
}

/// Why an arrival was refused (nothing applied, the log unchanged).
#[derive(Clone, Debug, PartialEq)]
pub enum LogError {
    Op(OpError),
    /// Recorded for another map.
    OtherMap {
        got: u32,
        want: u32,
    },
    /// Too many operations wait for an earlier one.
    Full {
        held: usize,
    },
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Op(e) => e.fmt(f),
            Self::OtherMap { got, want } => write!(
                f,
                "the operation belongs to map {got}, this log's map_id is {want}"
            ),
            Self::Full { held } => write!(
                f,
                "{held} operations already wait for an earlier one (at most {MAX_HELD}, {} MiB): the gap is not closing",
                MAX_HELD_BYTES >> 20
            ),
        }
    }
}

impl std::error::Error for LogError {}

impl From<OpError> for LogError {
    fn from(e: OpError) -> Self {
        Self::Op(e)
    }
}

/// The operations applied to one map, in order, and those that arrived early.
#[derive(Clone, Debug, Default)]
pub struct EditLog {
    map: u32,
    ops: Vec<Vec<u8>>,
    held: BTreeMap<u32, Vec<u8>>,
    held_bytes: usize,
}

impl EditLog {
    pub fn new(map: u32) -> Self {
        Self {
            map,
            ..Self::default()
        }
    }

    pub fn map(&self) -> u32 {
        self.map
    }

    /// The sequence number the next operation takes.
    pub fn next(&self) -> u32 {
        self.ops.len() as u32
    }

    pub fn ops(&self) -> &[Vec<u8>] {
        &self.ops
    }

    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Replaces the log with `ops` (a saved log): each must decode, belong to `map` and carry its index
    /// as its sequence number; on error nothing changes.
    pub fn load(&mut self, map: u32, ops: Vec<Vec<u8>>) -> Result<(), (usize, LogError)> {
        for (i, b) in ops.iter().enumerate() {
            let op = Op::decode(b).map_err(|e| (i, e.into()))?;
            if op.map != map {
                return Err((
                    i,
                    LogError::OtherMap {
                        got: op.map,
                        want: map,
                    },
                ));
            }
            if op.sequence as usize != i {
                let why = format!("operation {i} carries sequence number {}", op.sequence);
                let e = OpError::Value {
                    field: "sequence",
                    why,
                };
                return Err((i, e.into()));
            }
        }
        *self = Self {
            map,
            ops,
            ..Self::default()
        };
        Ok(())
    }

    /// `edit` as the next operation of this log (apply it, then `commit` the bytes).
    pub fn prepare(&self, edit: Edit) -> Op {
        Op {
            map: self.map,
            sequence: self.next(),
            edit,
        }
    }

    /// An applied operation joins the log (it must be the next in sequence).
    pub fn commit(&mut self, bytes: Vec<u8>) {
        debug_assert_eq!(Op::peek(&bytes).map(|p| p.1), Ok(self.next()));
        self.ops.push(bytes);
    }

    /// An operation from elsewhere: checked whole, then the next to apply, held, or a duplicate.
    pub fn receive(&mut self, bytes: &[u8]) -> Result<Arrival, LogError> {
        let op = Op::decode(bytes)?;
        if op.map != self.map {
            return Err(LogError::OtherMap {
                got: op.map,
                want: self.map,
            });
        }
        let next = self.next();
        if op.sequence < next || self.held.contains_key(&op.sequence) {
            return Ok(Arrival::Duplicate);
        }
        if op.sequence == next {
            return Ok(Arrival::Next(op));
        }
        if self.held.len() >= MAX_HELD || self.held_bytes + bytes.len() > MAX_HELD_BYTES {
            return Err(LogError::Full {
                held: self.held.len(),
            });
        }
        self.held_bytes += bytes.len();
        self.held.insert(op.sequence, bytes.to_vec());
        Ok(Arrival::Held)
    }

    /// The held operation that is now next in sequence, if it has arrived (decoded again: it was checked
    /// on arrival).
    pub fn take_ready(&mut self) -> Option<(Op, Vec<u8>)> {
        let bytes = self.held.remove(&self.next())?;
        self.held_bytes -= bytes.len();
        Op::decode(&bytes).ok().map(|op| (op, bytes))
    }

    /// Forgets every operation (a new base map) and the held ones.
    pub fn clear(&mut self) {
        *self = Self::new(self.map);
    }
}

/// A 64-bit hash of heights (their bits) and control values: equal on two machines exactly when they
/// hold the same terrain (up to hash collisions).
pub fn content_hash(heights: &[f32], control: &[u32]) -> u64 {
    // FNV-1a over 32-bit words, finished by SplitMix's mixer.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in heights
        .iter()
        .map(|v| v.to_bits())
        .chain(control.iter().copied())
    {
        h = (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    crate::hash::mix(h ^ (heights.len() as u64) << 32 ^ control.len() as u64)
}

#[cfg(test)]
mod tests;
