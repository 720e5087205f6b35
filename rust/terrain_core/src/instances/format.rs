//! The instance store as bytes (what `TerrainInstances` saves in a scene or `.res`): little-endian, cells in
//! key order, so the same store always gives the same bytes and loading gives back the same bits.
//!
//! ```text
//! "WTIN"  u32 version (1)  f64 cell_size  u32 cells
//! per cell:  i32 x  i32 z  u32 meshes
//!   per mesh:  u32 count  then count × (f32 x, f32 z, f32 offset, i16 rot[4], f32 scale[3])  (32 bytes)
//! ```

use super::{Cell, CellKey, Instance, InstanceStore, MAX_MESHES};

const MAGIC: &[u8; 4] = b"WTIN";
const VERSION: u32 = 1;
const INSTANCE_BYTES: usize = 32;

/// Why bytes are not an instance store.
#[derive(Debug, Clone, PartialEq)]
pub enum FormatError {
    Magic,
    Version(u32),
    Truncated,
    CellSize(f64),
    /// Cells out of key order or repeated.
    Order,
    Meshes(u32),
    /// A non-finite value or a position outside its cell.
    Value,
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Magic => write!(f, "not instance data (no WTIN header)"),
            Self::Version(v) => write!(f, "instance data version {v} is not supported (1 is)"),
            Self::Truncated => write!(f, "instance data is truncated"),
            Self::CellSize(v) => write!(f, "instance data has an invalid cell size {v}"),
            Self::Order => write!(f, "instance data cells are repeated or out of order"),
            Self::Meshes(n) => write!(
                f,
                "instance data has {n} meshes in a cell (at most {MAX_MESHES})"
            ),
            Self::Value => write!(
                f,
                "instance data holds a non-finite value or a position outside its cell"
            ),
        }
    }
}

impl std::error::Error for FormatError {}

impl InstanceStore {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(20 + self.total() * INSTANCE_BYTES + self.cells.len() * 16);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.cell_size.to_le_bytes());
        out.extend_from_slice(&(self.cells.len() as u32).to_le_bytes());
        for (&(x, z), cell) in &self.cells {
            out.extend_from_slice(&x.to_le_bytes());
            out.extend_from_slice(&z.to_le_bytes());
            out.extend_from_slice(&(cell.len() as u32).to_le_bytes());
            for list in cell {
                out.extend_from_slice(&(list.len() as u32).to_le_bytes());
                for i in list {
                    for v in [i.x, i.z, i.offset] {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                    for r in i.rot {
                        out.extend_from_slice(&r.to_le_bytes());
                    }
                    for v in i.scale {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
        out
    }

    /// Reads `to_bytes`' format; never allocates more than the bytes can hold.
    pub fn from_bytes(b: &[u8]) -> Result<Self, FormatError> {
        let mut r = Reader { b, at: 0 };
        if r.take(4)? != MAGIC {
            return Err(FormatError::Magic);
        }
        let v = r.u32()?;
        if v != VERSION {
            return Err(FormatError::Version(v));
        }
        let cell_size = f64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
        let mut store =
            InstanceStore::new(cell_size).map_err(|_| FormatError::CellSize(cell_size))?;
        let cells = r.u32()?;
        let limit = cell_size as f32;
        let mut last: Option<CellKey> = None;
        for _ in 0..cells {
            let key = (r.i32()?, r.i32()?);
            if last.is_some_and(|l| l >= key) {
                return Err(FormatError::Order);
            }
            last = Some(key);
            let meshes = r.u32()?;
            if meshes as usize > MAX_MESHES {
                return Err(FormatError::Meshes(meshes));
            }
            let mut cell: Cell = Vec::with_capacity(meshes as usize);
            for m in 0..meshes as usize {
                let n = r.u32()? as usize;
                if n > r.left() / INSTANCE_BYTES {
                    return Err(FormatError::Truncated);
                }
                let mut list = Vec::with_capacity(n);
                for _ in 0..n {
                    let (x, z, offset) = (r.f32()?, r.f32()?, r.f32()?);
                    let rot = [r.i16()?, r.i16()?, r.i16()?, r.i16()?];
                    let scale = [r.f32()?, r.f32()?, r.f32()?];
                    let inside = |v: f32| (0.0..limit).contains(&v);
                    let finite = offset.is_finite() && scale.iter().all(|s| s.is_finite());
                    if !(inside(x) && inside(z) && finite) {
                        return Err(FormatError::Value);
                    }
                    list.push(Instance {
                        x,
                        z,
                        offset,
                        rot,
                        scale,
                    });
                }
                if store.counts.len() <= m {
                    store.counts.resize(m + 1, 0);
                }
                store.counts[m] += n;
                cell.push(list);
            }
            store.cells.insert(key, cell);
        }
        if r.left() != 0 {
            return Err(FormatError::Truncated);
        }
        Ok(store)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.b.len() - self.at
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        if self.left() < n {
            return Err(FormatError::Truncated);
        }
        self.at += n;
        Ok(&self.b[self.at - n..self.at])
    }
    fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn i32(&mut self) -> Result<i32, FormatError> {
        Ok(i32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn f32(&mut self) -> Result<f32, FormatError> {
        Ok(f32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn i16(&mut self) -> Result<i16, FormatError> {
        Ok(i16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
}
