//! A heightfield and its derived data (document 000's "terrain data": height, slope x, slope z per sample).
//!
//! Heights are `f32`, row-major (`index = z * width + x`), sample (x, z) at world
//! `((x + 0.5) * spacing, (z + 0.5) * spacing)`. The slope pass is document 000's: from the neighbours
//! (clamped to the sample itself at the edges) `n = normalize(dX, 2, dZ)`, `n.y *= -3`, slope = `n.xz / n.y`.
//! The normalisation cancels, so slope x = `(h[x+1] - h[x-1]) / 6` and likewise in z: the central difference
//! per sample scaled to a third of a sample, the offset of the Bézier control points.

use crate::bezier_patch;
use std::fmt;

/// Default budget of samples (8192²): larger terrains are refused before allocating.
pub const DEFAULT_SAMPLE_BUDGET: u64 = 8192 * 8192;
/// Largest side in samples: the data texture must fit Godot's and the GPUs' texture size limit.
pub const MAX_SIDE: i64 = 16384;

/// A rectangle of samples: x, z, width, depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Region {
    pub x: usize,
    pub z: usize,
    pub w: usize,
    pub d: usize,
}

impl Region {
    pub fn is_empty(&self) -> bool {
        self.w == 0 || self.d == 0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TerrainDataError {
    Size {
        width: i64,
        depth: i64,
        budget: u64,
    },
    Spacing(f64),
    HeightsLength {
        got: usize,
        want: usize,
    },
    NonFinite {
        property: &'static str,
        index: usize,
        value: f32,
    },
    Region {
        x: i64,
        z: i64,
        w: i64,
        d: i64,
        width: usize,
        depth: usize,
    },
}

impl fmt::Display for TerrainDataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Size { width, depth, budget } => write!(
                f,
                "size must be at least 1 x 1 samples, at most {MAX_SIDE} on a side and at most {budget} samples \
                 in all (sample_budget), got {width} x {depth}"
            ),
            Self::Spacing(v) => write!(f, "spacing must be a finite number in (0, 1000000], got {v}"),
            Self::HeightsLength { got, want } => {
                write!(f, "heights must hold size.x * size.y = {want} values, got {got}")
            }
            Self::NonFinite { property, index, value } => {
                write!(f, "{property} must be finite; value {index} is {value} (NaN and infinities are refused)")
            }
            Self::Region { x, z, w, d, width, depth } => write!(
                f,
                "region ({x}, {z}, {w} x {d}) must lie inside the {width} x {depth} samples of the terrain"
            ),
        }
    }
}

impl std::error::Error for TerrainDataError {}

/// Checks a size against the budget.
pub fn check_size(width: i64, depth: i64, budget: u64) -> Result<(usize, usize), TerrainDataError> {
    let ok = (1..=MAX_SIDE).contains(&width)
        && (1..=MAX_SIDE).contains(&depth)
        && (width as u128) * (depth as u128) <= u128::from(budget);
    if ok {
        Ok((width as usize, depth as usize))
    } else {
        Err(TerrainDataError::Size {
            width,
            depth,
            budget,
        })
    }
}

pub fn check_spacing(spacing: f64) -> Result<f64, TerrainDataError> {
    if spacing.is_finite() && spacing > 0.0 && spacing <= 1.0e6 {
        Ok(spacing)
    } else {
        Err(TerrainDataError::Spacing(spacing))
    }
}

pub fn check_finite(property: &'static str, values: &[f32]) -> Result<(), TerrainDataError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(TerrainDataError::NonFinite {
            property,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// The heightfield plus its derived (height, slope x, slope z) data, always kept in step.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainData {
    width: usize,
    depth: usize,
    spacing: f64,
    heights: Vec<f32>,
    data: Vec<[f32; 3]>,
    /// Lowest and highest height, kept current by edits: the nodes ask for it on every change.
    range: (f32, f32),
}

/// Lowest and highest value, (INF, -INF) for none.
fn min_max(values: &[f32]) -> (f32, f32) {
    values
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
            (lo.min(h), hi.max(h))
        })
}

impl TerrainData {
    /// A flat terrain of the given size.
    pub fn flat(width: usize, depth: usize, spacing: f64) -> Self {
        Self::from_heights(width, depth, spacing, vec![0.0; width * depth])
            .expect("flat terrain is valid")
    }

    /// Takes heights (validated: length and finiteness) and computes the derived data.
    pub fn from_heights(
        width: usize,
        depth: usize,
        spacing: f64,
        heights: Vec<f32>,
    ) -> Result<Self, TerrainDataError> {
        if heights.len() != width * depth {
            return Err(TerrainDataError::HeightsLength {
                got: heights.len(),
                want: width * depth,
            });
        }
        check_finite("heights", &heights)?;
        let spacing = check_spacing(spacing)?;
        let mut data = vec![[0.0; 3]; heights.len()];
        slope_pass(
            &heights,
            width,
            depth,
            &mut data,
            Region {
                x: 0,
                z: 0,
                w: width,
                d: depth,
            },
        );
        let range = min_max(&heights);
        Ok(Self {
            width,
            depth,
            spacing,
            heights,
            data,
            range,
        })
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn depth(&self) -> usize {
        self.depth
    }
    pub fn spacing(&self) -> f64 {
        self.spacing
    }
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }
    /// (height, slope x, slope z) per sample: document 000's data texture.
    pub fn data(&self) -> &[[f32; 3]] {
        &self.data
    }
    pub fn into_heights(self) -> Vec<f32> {
        self.heights
    }

    pub fn set_spacing(&mut self, spacing: f64) -> Result<(), TerrainDataError> {
        self.spacing = check_spacing(spacing)?;
        Ok(())
    }

    /// Resized copy: the overlapping samples are kept, new ones are 0.
    pub fn resized(&self, width: usize, depth: usize) -> Self {
        let mut h = vec![0.0; width * depth];
        for z in 0..depth.min(self.depth) {
            let n = width.min(self.width);
            h[z * width..z * width + n]
                .copy_from_slice(&self.heights[z * self.width..z * self.width + n]);
        }
        Self::from_heights(width, depth, self.spacing, h).expect("resized terrain is valid")
    }

    /// Validates a region given as signed numbers (from a user).
    pub fn region(&self, x: i64, z: i64, w: i64, d: i64) -> Result<Region, TerrainDataError> {
        let inside = x >= 0
            && z >= 0
            && w >= 0
            && d >= 0
            && x + w <= self.width as i64
            && z + d <= self.depth as i64;
        if inside {
            Ok(Region {
                x: x as usize,
                z: z as usize,
                w: w as usize,
                d: d as usize,
            })
        } else {
            Err(TerrainDataError::Region {
                x,
                z,
                w,
                d,
                width: self.width,
                depth: self.depth,
            })
        }
    }

    /// Heights of a region, row-major.
    pub fn heights_region(&self, r: Region) -> Vec<f32> {
        let mut out = Vec::with_capacity(r.w * r.d);
        for z in r.z..r.z + r.d {
            out.extend_from_slice(&self.heights[z * self.width + r.x..z * self.width + r.x + r.w]);
        }
        out
    }

    /// Replaces the heights of a region and updates the derived data where it changed. Returns the region
    /// of derived data that changed (the region grown by one sample: neighbours' slopes depend on it).
    pub fn set_heights_region(
        &mut self,
        r: Region,
        values: &[f32],
    ) -> Result<Region, TerrainDataError> {
        if values.len() != r.w * r.d {
            return Err(TerrainDataError::HeightsLength {
                got: values.len(),
                want: r.w * r.d,
            });
        }
        check_finite("values", values)?;
        // Only when an edit overwrites the lowest or highest sample can the range shrink: then rescan.
        let (lo, hi) = self.range;
        let mut lost_extreme = false;
        for (row, z) in (r.z..r.z + r.d).enumerate() {
            let dst = &mut self.heights[z * self.width + r.x..z * self.width + r.x + r.w];
            lost_extreme |= dst.iter().any(|&h| h == lo || h == hi);
            dst.copy_from_slice(&values[row * r.w..(row + 1) * r.w]);
        }
        let (vlo, vhi) = min_max(values);
        self.range = if lost_extreme {
            min_max(&self.heights)
        } else {
            (lo.min(vlo), hi.max(vhi))
        };
        let grown = self.grow(r);
        slope_pass(&self.heights, self.width, self.depth, &mut self.data, grown);
        Ok(grown)
    }

    fn grow(&self, r: Region) -> Region {
        if r.is_empty() {
            return r;
        }
        let (x0, z0) = (r.x.saturating_sub(1), r.z.saturating_sub(1));
        let (x1, z1) = (
            (r.x + r.w + 1).min(self.width),
            (r.z + r.d + 1).min(self.depth),
        );
        Region {
            x: x0,
            z: z0,
            w: x1 - x0,
            d: z1 - z0,
        }
    }

    /// Height at world position (x, z): the Bézier patch, as the shader draws it. NaN for a non-finite
    /// position. Outside the terrain the maths continues with clamped samples, like the shader's sampling.
    #[inline]
    pub fn height_at(&self, x: f64, z: f64) -> f32 {
        if !(x.is_finite() && z.is_finite()) {
            return f32::NAN;
        }
        bezier_patch::height(
            &self.data,
            self.width,
            self.depth,
            x / self.spacing - 0.5,
            z / self.spacing - 0.5,
        )
    }

    /// Unit normal at world position (x, z) from the patch derivatives; (NaN, NaN, NaN) for a non-finite
    /// position.
    pub fn normal_at(&self, x: f64, z: f64) -> [f32; 3] {
        if !(x.is_finite() && z.is_finite()) {
            return [f32::NAN; 3];
        }
        let (_, hu, hv) = bezier_patch::height_and_gradient(
            &self.data,
            self.width,
            self.depth,
            x / self.spacing - 0.5,
            z / self.spacing - 0.5,
        );
        let s = self.spacing as f32;
        bezier_patch::normal_from_gradient(hu / s, hv / s)
    }

    /// Heights at many world positions (x, z pairs), in parallel.
    pub fn heights_at(&self, points: &[[f32; 2]], out: &mut [f32]) {
        use rayon::prelude::*;
        const CHUNK: usize = 16 * 1024;
        out.par_chunks_mut(CHUNK)
            .zip(points.par_chunks(CHUNK))
            .for_each(|(o, p)| {
                for (o, p) in o.iter_mut().zip(p) {
                    *o = self.height_at(f64::from(p[0]), f64::from(p[1]));
                }
            });
    }

    /// Lowest and highest height (0, 0 for no samples).
    pub fn height_range(&self) -> (f32, f32) {
        if self.range.0 > self.range.1 {
            (0.0, 0.0)
        } else {
            self.range
        }
    }
}

/// Document 000's slope pass over a region of `data` (rows in parallel for large regions).
pub fn slope_pass(heights: &[f32], width: usize, depth: usize, data: &mut [[f32; 3]], r: Region) {
    use rayon::prelude::*;
    let row = |z: usize, out: &mut [[f32; 3]]| {
        let base = z * width;
        let up = if z > 0 { base - width } else { base };
        let down = if z + 1 < depth { base + width } else { base };
        for x in r.x..r.x + r.w {
            let h = heights[base + x];
            let hmx = if x > 0 { heights[base + x - 1] } else { h };
            let hpx = if x + 1 < width {
                heights[base + x + 1]
            } else {
                h
            };
            let (hmz, hpz) = (heights[up + x], heights[down + x]);
            out[x] = [h, (hpx - hmx) / 6.0, (hpz - hmz) / 6.0];
        }
    };
    let rows = &mut data[r.z * width..(r.z + r.d) * width];
    // Small regions (brush strokes) are not worth waking the thread pool for.
    if r.w * r.d >= 64 * 1024 {
        rows.par_chunks_mut(width)
            .enumerate()
            .for_each(|(i, out)| row(r.z + i, out));
    } else {
        rows.chunks_mut(width)
            .enumerate()
            .for_each(|(i, out)| row(r.z + i, out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_edit_matches_full_recompute() {
        let h: Vec<f32> = (0..7 * 5).map(|i| ((i * 13) % 7) as f32).collect();
        let mut t = TerrainData::from_heights(7, 5, 1.0, h.clone()).unwrap();
        let r = t.region(2, 1, 3, 2).unwrap();
        let grown = t
            .set_heights_region(r, &[9.0, 8.0, 7.0, 6.0, 5.0, 4.0])
            .unwrap();
        assert_eq!(
            grown,
            Region {
                x: 1,
                z: 0,
                w: 5,
                d: 4
            }
        );
        let full = TerrainData::from_heights(7, 5, 1.0, t.heights().to_vec()).unwrap();
        assert_eq!(t.data(), full.data());
        assert_eq!(t.height_range(), full.height_range());
        assert_eq!(t.heights_region(r), vec![9.0, 8.0, 7.0, 6.0, 5.0, 4.0]);
        // Overwriting the highest and the lowest samples shrinks the range.
        let whole = t.region(0, 0, 7, 5).unwrap();
        t.set_heights_region(whole, &[1.5; 35]).unwrap();
        assert_eq!(t.height_range(), (1.5, 1.5));
        t.set_heights_region(t.region(3, 3, 1, 1).unwrap(), &[-4.0])
            .unwrap();
        assert_eq!(t.height_range(), (-4.0, 1.5));
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(check_size(0, 5, 100).is_err());
        assert!(check_size(-1, 5, 100).is_err());
        assert!(check_size(11, 10, 100)
            .unwrap_err()
            .to_string()
            .contains("sample_budget"));
        assert!(TerrainData::from_heights(2, 2, 1.0, vec![0.0; 3])
            .unwrap_err()
            .to_string()
            .contains("4 values, got 3"));
        let e = TerrainData::from_heights(2, 1, 1.0, vec![0.0, f32::NAN])
            .unwrap_err()
            .to_string();
        assert!(e.contains("value 1 is NaN"), "{e}");
        let t = TerrainData::flat(4, 4, 1.0);
        assert!(t.region(3, 0, 2, 1).is_err());
        assert!(t.region(-1, 0, 1, 1).is_err());
        assert!(check_spacing(0.0).is_err() && check_spacing(f64::NAN).is_err());
    }

    #[test]
    fn resize_keeps_overlap() {
        let t = TerrainData::from_heights(3, 2, 1.0, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(t.resized(2, 3).heights(), &[1.0, 2.0, 4.0, 5.0, 0.0, 0.0]);
    }
}
