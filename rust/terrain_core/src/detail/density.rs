//! Painted detail density: one byte a terrain sample per detail layer (255: the rules' full density, 0:
//! none), multiplied with the rules. Sparse: only tiles that differ from 255 are stored, so an endless world
//! pays for what was painted. Tiles are shared (`Arc`) so that a worker's snapshot costs a pointer per tile
//! and a dab copies only the tiles it touches.
//!
//! The byte format (what `TerrainInstances.detail_density` saves), little-endian, in key order:
//!
//! ```text
//! "WTDD"  u32 version (1)  u32 layers
//! per layer:  u32 tiles   per tile:  i32 x  i32 z  then TILE² bytes (rows of samples)
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

/// The largest dab radius, in samples (a brush 8192 samples wide).
pub const MAX_DAB_RADIUS: f64 = 4096.0;

/// Samples along a tile's side.
pub const TILE: i64 = 64;
const TILE_BYTES: usize = (TILE * TILE) as usize;
const MAGIC: &[u8; 4] = b"WTDD";
const VERSION: u32 = 1;
/// The most layers with a painted density.
pub const MAX_LAYERS: usize = 64;

/// One layer's painted density.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DensityMap {
    tiles: BTreeMap<(i32, i32), Arc<[u8; TILE_BYTES]>>,
}

fn tile_of(x: i64, z: i64) -> ((i32, i32), usize) {
    let (tx, tz) = (x.div_euclid(TILE), z.div_euclid(TILE));
    let i = (z.rem_euclid(TILE) * TILE + x.rem_euclid(TILE)) as usize;
    (
        (
            tx.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            tz.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
        ),
        i,
    )
}

impl DensityMap {
    /// Sample (x, z)'s density byte.
    pub fn get(&self, x: i64, z: i64) -> u8 {
        let (k, i) = tile_of(x, z);
        self.tiles.get(&k).map_or(255, |t| t[i])
    }

    /// The share in [0, 1] at sample-space point (sx, sz) (the sample whose square holds it).
    pub fn at(&self, sx: f64, sz: f64) -> f32 {
        if self.tiles.is_empty() {
            return 1.0;
        }
        f32::from(self.get(sx.floor() as i64, sz.floor() as i64)) / 255.0
    }

    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// Stored tiles.
    pub fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// Sets samples `x0 .. x0 + w` × `z0 .. z0 + d` to `f(x, z, old)`; tiles that become all 255 are
    /// dropped. Returns whether anything changed.
    pub fn update(
        &mut self,
        x0: i64,
        z0: i64,
        w: usize,
        d: usize,
        f: &mut dyn FnMut(i64, i64, u8) -> u8,
    ) -> bool {
        let mut changed = false;
        let (x1, z1) = (x0 + w as i64, z0 + d as i64);
        let (t0, _) = tile_of(x0, z0);
        let (t1, _) = tile_of(x1 - 1, z1 - 1);
        for tz in t0.1..=t1.1 {
            for tx in t0.0..=t1.0 {
                let (bx, bz) = (i64::from(tx) * TILE, i64::from(tz) * TILE);
                let (ax, az) = (bx.max(x0), bz.max(z0));
                let (cx, cz) = ((bx + TILE).min(x1), (bz + TILE).min(z1));
                let mut tile = self.tiles.get(&(tx, tz)).cloned();
                let mut tile_changed = false;
                for z in az..cz {
                    for x in ax..cx {
                        let i = ((z - bz) * TILE + (x - bx)) as usize;
                        let old = tile.as_ref().map_or(255, |t| t[i]);
                        let new = f(x, z, old);
                        if new != old {
                            let t = tile.get_or_insert_with(|| Arc::new([255; TILE_BYTES]));
                            Arc::make_mut(t)[i] = new;
                            tile_changed = true;
                        }
                    }
                }
                if tile_changed {
                    changed = true;
                    match tile {
                        Some(t) if t.iter().any(|&v| v != 255) => {
                            self.tiles.insert((tx, tz), t);
                        }
                        _ => {
                            self.tiles.remove(&(tx, tz));
                        }
                    }
                }
            }
        }
        changed
    }

    /// Samples `x0 .. x0 + w` × `z0 .. z0 + d`, row by row.
    pub fn region(&self, x0: i64, z0: i64, w: usize, d: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(w * d);
        for z in z0..z0 + d as i64 {
            for x in x0..x0 + w as i64 {
                out.push(self.get(x, z));
            }
        }
        out
    }

    pub fn heap_bytes(&self) -> usize {
        self.tiles.len() * (TILE_BYTES + 48)
    }
}

/// A density brush dab on samples: every sample whose centre lies within `radius` (sample units) of
/// `center` moves toward 255 (toward 0 with `erase`) by `amount × weight(dx, dz)` of the full range, where
/// (dx, dz) is the sample's offset from the centre in sample units. Returns the samples' rectangle
/// touched (x0, z0, w, d), None if nothing changed.
pub fn dab(
    map: &mut DensityMap,
    center: [f64; 2],
    radius: f64,
    amount: f64,
    erase: bool,
    weight: &dyn Fn(f64, f64) -> f32,
) -> Option<[i64; 4]> {
    if !(radius > 0.0
        && radius <= MAX_DAB_RADIUS
        && amount > 0.0
        && center.iter().all(|v| v.is_finite() && v.abs() < 1e12))
    {
        return None;
    }
    let lo = |c: f64| (c - radius - 0.5).floor() as i64;
    let hi = |c: f64| (c + radius - 0.5).ceil() as i64 + 1;
    let (x0, z0) = (lo(center[0]), lo(center[1]));
    let (w, d) = ((hi(center[0]) - x0) as usize, (hi(center[1]) - z0) as usize);
    let step = (amount.min(1.0) * 255.0) as f32;
    let changed = map.update(x0, z0, w, d, &mut |x, z, old| {
        let (dx, dz) = (x as f64 + 0.5 - center[0], z as f64 + 0.5 - center[1]);
        if dx.hypot(dz) > radius {
            return old;
        }
        // At least one step where the brush reaches, so slow strokes still paint.
        let by = step * weight(dx, dz).clamp(0.0, 1.0);
        let by = if by > 0.0 { by.max(1.0) } else { 0.0 };
        let v = if erase {
            f32::from(old) - by
        } else {
            f32::from(old) + by
        };
        v.round().clamp(0.0, 255.0) as u8
    });
    changed.then_some([x0, z0, w as i64, d as i64])
}

/// Why bytes are not painted density.
#[derive(Debug, Clone, PartialEq)]
pub enum DensityFormatError {
    Magic,
    Version(u32),
    Truncated,
    Layers(u32),
    Order,
}

impl std::fmt::Display for DensityFormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Magic => write!(f, "not detail density data (no WTDD header)"),
            Self::Version(v) => write!(f, "detail density version {v} is not supported (1 is)"),
            Self::Truncated => write!(f, "detail density data is truncated"),
            Self::Layers(n) => write!(
                f,
                "detail density data has {n} layers (at most {MAX_LAYERS})"
            ),
            Self::Order => write!(f, "detail density tiles are repeated or out of order"),
        }
    }
}

impl std::error::Error for DensityFormatError {}

/// Every layer's map as bytes (layers beyond the last painted one left out; nothing painted: no bytes).
pub fn to_bytes(maps: &[DensityMap]) -> Vec<u8> {
    let n = maps
        .iter()
        .rposition(|m| !m.is_empty())
        .map_or(0, |i| i + 1);
    if n == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(n as u32).to_le_bytes());
    for m in &maps[..n] {
        out.extend_from_slice(&(m.tiles.len() as u32).to_le_bytes());
        for (&(x, z), t) in &m.tiles {
            out.extend_from_slice(&x.to_le_bytes());
            out.extend_from_slice(&z.to_le_bytes());
            out.extend_from_slice(&t[..]);
        }
    }
    out
}

/// The maps in `bytes` (empty bytes: none painted). Allocates only what the bytes hold.
pub fn from_bytes(bytes: &[u8]) -> Result<Vec<DensityMap>, DensityFormatError> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], DensityFormatError> {
        let s = bytes.get(at..at + n).ok_or(DensityFormatError::Truncated)?;
        at += n;
        Ok(s)
    };
    if take(4)? != MAGIC {
        return Err(DensityFormatError::Magic);
    }
    let u32_of = |s: &[u8]| u32::from_le_bytes(s.try_into().expect("4 bytes"));
    let version = u32_of(take(4)?);
    if version != VERSION {
        return Err(DensityFormatError::Version(version));
    }
    let layers = u32_of(take(4)?);
    if layers as usize > MAX_LAYERS {
        return Err(DensityFormatError::Layers(layers));
    }
    let mut out = Vec::with_capacity(layers as usize);
    for _ in 0..layers {
        let tiles = u32_of(take(4)?);
        let mut m = DensityMap::default();
        let mut last: Option<(i32, i32)> = None;
        for _ in 0..tiles {
            let x = u32_of(take(4)?) as i32;
            let z = u32_of(take(4)?) as i32;
            // Key order is (x, z) as the BTreeMap sorts it.
            if last.is_some_and(|l| l >= (x, z)) {
                return Err(DensityFormatError::Order);
            }
            last = Some((x, z));
            let mut t = [0u8; TILE_BYTES];
            t.copy_from_slice(take(TILE_BYTES)?);
            m.tiles.insert((x, z), Arc::new(t));
        }
        out.push(m);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painting_stores_only_what_differs_and_round_trips() {
        let mut m = DensityMap::default();
        assert_eq!(m.get(-5, 7), 255);
        assert!(m.update(-70, -3, 140, 10, &mut |x, _, _| if x < 0 { 0 } else { 128 }));
        assert_eq!(m.get(-1, 0), 0);
        assert_eq!(m.get(5, 6), 128);
        assert_eq!(m.get(5, 7), 255);
        // -70..70 × -3..7 crosses tiles x -2..1 and z -1..0.
        assert_eq!(m.tile_count(), 8);
        // Painting the same again changes nothing.
        assert!(!m.update(-70, -3, 140, 10, &mut |x, _, _| if x < 0 { 0 } else { 128 }));
        let maps = vec![DensityMap::default(), m.clone()];
        let bytes = to_bytes(&maps);
        assert_eq!(from_bytes(&bytes).unwrap(), maps);
        assert_eq!(m.region(-2, 0, 4, 1), vec![0, 0, 128, 128]);
        // Back to full: tiles are dropped.
        m.update(-70, -3, 140, 10, &mut |_, _, _| 255);
        assert!(m.is_empty());
        assert_eq!(to_bytes(&[m]), to_bytes(&[]));
    }

    #[test]
    fn a_dab_moves_the_samples_within_its_radius() {
        let mut m = DensityMap::default();
        let r = dab(&mut m, [10.0, 10.0], 3.0, 0.5, true, &|_, _| 1.0).unwrap();
        assert_eq!(m.get(9, 9), 128);
        assert_eq!(m.get(20, 20), 255);
        // Corners of the box are beyond the radius.
        assert_eq!(m.get(r[0], r[1]), 255);
        dab(&mut m, [10.0, 10.0], 3.0, 1.0, true, &|_, _| 1.0);
        assert_eq!(m.get(9, 9), 0);
        // Adding back with a falloff: the centre goes up most.
        dab(&mut m, [10.0, 10.0], 3.0, 0.5, false, &|dx, dz| {
            (1.0 - dx.hypot(dz) / 3.0) as f32
        });
        assert!(m.get(9, 9) > m.get(8, 9) && m.get(8, 9) > 0);
        assert!(dab(&mut m, [f64::NAN, 0.0], 3.0, 1.0, false, &|_, _| 1.0).is_none());
    }

    #[test]
    fn a_snapshot_is_not_changed_by_later_paint() {
        let mut m = DensityMap::default();
        m.update(0, 0, 10, 10, &mut |_, _, _| 10);
        let snap = m.clone();
        m.update(0, 0, 10, 10, &mut |_, _, _| 20);
        assert_eq!(snap.get(3, 3), 10);
        assert_eq!(m.get(3, 3), 20);
    }

    #[test]
    fn bad_bytes_are_refused() {
        let mut m = DensityMap::default();
        m.update(0, 0, 1, 1, &mut |_, _, _| 1);
        let good = to_bytes(&[m]);
        assert_eq!(
            from_bytes(&good[..good.len() - 1]),
            Err(DensityFormatError::Truncated)
        );
        assert_eq!(from_bytes(b"NOPE"), Err(DensityFormatError::Magic));
        let mut v2 = good.clone();
        v2[4] = 2;
        assert_eq!(from_bytes(&v2), Err(DensityFormatError::Version(2)));
        let mut many = good.clone();
        many[8..12].copy_from_slice(&1000u32.to_le_bytes());
        assert_eq!(from_bytes(&many), Err(DensityFormatError::Layers(1000)));
    }
}
