//! The edit contract: what every editable terrain offers to what edits it — a brush stroke, the layers of
//! paths and stamps, the water finders, an edit replayed from a log. A `TerrainData` in memory and a
//! `TerrainRegions` map on disk both implement `TerrainEdit`, so an edit is written once over the trait
//! and does the same to either (the read side is `samples::Samples`).
//!
//! Rectangles are `SampleRect`s in the terrain's own sample coordinates (signed: an endless map's samples
//! lie on both sides of the origin); a brush's centre is in terrain units (sample index × spacing), f64
//! all the way. Every call checks its input and changes nothing on error.

use crate::brush::{Brush, BrushError, Tool};
use crate::sample_rect::{Region, SampleRect};
use crate::terrain_data::{TerrainData, TerrainDataError};
use crate::terrain_regions::{RegionError, TerrainRegions};
use std::fmt;

/// Why an edit was refused (nothing changed). One type for every editable terrain: `TerrainData`'s rules
/// (`Terrain`), a region map's files (`Regions`), a brush's settings (`Brush`).
#[derive(Clone, Debug, PartialEq)]
pub enum EditError {
    /// A rectangle that does not lie inside the terrain's samples.
    Outside {
        rect: SampleRect,
        bounds: SampleRect,
    },
    Terrain(TerrainDataError),
    Regions(RegionError),
    Brush(BrushError),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Outside { rect: r, bounds: b } => write!(
                f,
                "region ({}, {}, {} x {}) must be non-empty and lie inside the terrain's samples ({}, {}, {} x {})",
                r.x, r.z, r.w, r.d, b.x, b.z, b.w, b.d
            ),
            Self::Terrain(e) => e.fmt(f),
            Self::Regions(e) => e.fmt(f),
            Self::Brush(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EditError {}

impl From<TerrainDataError> for EditError {
    fn from(e: TerrainDataError) -> Self {
        Self::Terrain(e)
    }
}

impl From<RegionError> for EditError {
    fn from(e: RegionError) -> Self {
        Self::Regions(e)
    }
}

impl From<BrushError> for EditError {
    fn from(e: BrushError) -> Self {
        match e {
            BrushError::Terrain(t) => Self::Terrain(t),
            e => Self::Brush(e),
        }
    }
}

/// What every editable terrain offers. Writes return the rectangle whose drawn surface changed (the
/// edited one grown by a sample where neighbours' slopes or blends depend on it).
pub trait TerrainEdit {
    /// The samples there are; None for an endless map (every rectangle is inside).
    fn bounds(&self) -> Option<SampleRect>;
    /// Terrain units between two samples.
    fn spacing(&self) -> f64;
    /// Heights of `r`, row-major.
    fn heights(&self, r: SampleRect) -> Result<Vec<f32>, EditError>;
    /// Control values (paint and hole bit) of `r`, row-major.
    fn control(&self, r: SampleRect) -> Result<Vec<u32>, EditError>;
    /// Replaces the heights of `r` (row-major, finite).
    fn set_heights(&mut self, r: SampleRect, values: &[f32]) -> Result<SampleRect, EditError>;
    /// Replaces the control values of `r` (row-major).
    fn set_control(&mut self, r: SampleRect, values: &[u32]) -> Result<SampleRect, EditError>;

    /// Marks (non-zero) or clears (zero) holes in `r`, as `TerrainData::set_holes_region`.
    fn set_holes(&mut self, r: SampleRect, holes: &[u8]) -> Result<SampleRect, EditError> {
        edit_control(self, r, &|t, all| t.set_holes_region(all, holes))
    }

    /// Paints `layer`'s weights (0..1, row-major) in `r`, as `TerrainData::set_layer_region`.
    fn set_layer(
        &mut self,
        r: SampleRect,
        layer: i64,
        weights: &[f32],
    ) -> Result<SampleRect, EditError> {
        edit_control(self, r, &|t, all| t.set_layer_region(all, layer, weights))
    }

    /// One dab of `b` centred at terrain (x, z) `center`, lasting `delta` seconds. Returns the rectangle
    /// changed (None when the dab is outside the terrain or changes nothing). The samples around the dab
    /// are copied into a small `TerrainData`, the dab applied there (`brush::apply`) and what changed
    /// written back: one rule for every terrain.
    fn apply_brush(
        &mut self,
        b: &Brush,
        center: [f64; 2],
        delta: f64,
    ) -> Result<Option<SampleRect>, EditError> {
        let sp = self.spacing();
        let Some((block, local)) = dab_block(self.bounds(), sp, center, b.size()) else {
            return Ok(None);
        };
        let mut t = TerrainData::from_heights(block.w, block.d, sp, self.heights(block)?)?;
        let control = self.control(block)?;
        if control.iter().any(|&c| c != 0) {
            t.set_control_map(control)?;
        }
        // A slope's ends are terrain positions: into the block's frame, as the dab's centre.
        let shifted;
        let b = match b.tool {
            Tool::Slope { from, to } => {
                let (dx, dz) = (block.x as f64 * sp, block.z as f64 * sp);
                let at = |p: [f64; 3]| [p[0] - dx, p[1], p[2] - dz];
                shifted = b.clone().with_tool(Tool::Slope {
                    from: at(from),
                    to: at(to),
                });
                &shifted
            }
            _ => b,
        };
        let Some(c) = crate::brush::apply(&mut t, b, local, delta)? else {
            return Ok(None);
        };
        let changed = SampleRect {
            x: block.x + c.x as i64,
            z: block.z + c.z as i64,
            w: c.w,
            d: c.d,
        };
        if b.tool.edits_control() {
            let all = t.control_map();
            let mut v = Vec::with_capacity(c.w * c.d);
            for j in c.z..c.z + c.d {
                v.extend((c.x..c.x + c.w).map(|i| all.get(j * block.w + i).copied().unwrap_or(0)));
            }
            self.set_control(changed, &v)?;
        } else {
            self.set_heights(changed, &t.heights_region(c))?;
        }
        Ok(Some(changed))
    }
}

/// Runs a `TerrainData` control edit (holes, paint) on a copy of `r`'s control values and writes the
/// result back: the paint rules are `TerrainData`'s, whatever holds the map.
fn edit_control<E: TerrainEdit + ?Sized>(
    e: &mut E,
    r: SampleRect,
    f: &dyn Fn(&mut TerrainData, Region) -> Result<Region, TerrainDataError>,
) -> Result<SampleRect, EditError> {
    let inside = inside(e.bounds(), r)?;
    let mut t = TerrainData::flat(r.w, r.d, e.spacing());
    t.set_control_map(e.control(inside)?)?;
    let all = t.region(0, 0, r.w as i64, r.d as i64)?;
    f(&mut t, all)?;
    let control = if t.control_map().is_empty() {
        vec![0; r.w * r.d]
    } else {
        t.control_map().to_vec()
    };
    e.set_control(inside, &control)
}

/// Samples read around a dab beyond its square (smoothing and erosion read neighbours).
const DAB_MARGIN: i64 = 8;

/// The rectangle of samples one dab reads (its reach and a margin, inside `bounds`) and the dab's centre
/// relative to that rectangle's first sample. None when the dab misses the terrain or its centre is not
/// finite.
pub fn dab_block(
    bounds: Option<SampleRect>,
    spacing: f64,
    center: [f64; 2],
    size: f64,
) -> Option<(SampleRect, [f64; 2])> {
    let reach = dab_reach(bounds, spacing, center, size)?;
    let block = SampleRect {
        x: reach.x - DAB_MARGIN,
        z: reach.z - DAB_MARGIN,
        w: reach.w + 2 * DAB_MARGIN as usize,
        d: reach.d + 2 * DAB_MARGIN as usize,
    };
    let block = bounds.map_or(block, |b| block.intersect(b));
    let local = [
        center[0] - block.x as f64 * spacing,
        center[1] - block.z as f64 * spacing,
    ];
    Some((block, local))
}

/// The samples one dab can change (`brush::dab_rect` in the terrain's own coordinates): what the layers
/// over an edit keep as sculpted, computed once a dab.
pub fn dab_reach(
    bounds: Option<SampleRect>,
    spacing: f64,
    center: [f64; 2],
    size: f64,
) -> Option<SampleRect> {
    if !(center[0].is_finite() && center[1].is_finite() && spacing > 0.0) {
        return None;
    }
    // An endless map: the rectangle around the dab stands in for the bounds (a dab is at most
    // brush::MAX_SIZE wide, so it fits).
    let b = bounds.unwrap_or_else(|| {
        let reach = (0.5 * size / spacing).ceil() as i64 + 2;
        let c = [0, 1].map(|a| (center[a] / spacing).floor() as i64);
        SampleRect {
            x: c[0] - reach,
            z: c[1] - reach,
            w: (2 * reach + 1) as usize,
            d: (2 * reach + 1) as usize,
        }
    });
    let local = [
        center[0] - b.x as f64 * spacing,
        center[1] - b.z as f64 * spacing,
    ];
    let r = crate::brush::dab_rect([b.w, b.d], spacing, local, size)?;
    Some(SampleRect {
        x: b.x + r.x as i64,
        z: b.z + r.z as i64,
        w: r.w,
        d: r.d,
    })
}

/// `r` when it is non-empty and inside `bounds`.
pub fn inside(bounds: Option<SampleRect>, r: SampleRect) -> Result<SampleRect, EditError> {
    let ok = !r.is_empty() && bounds.is_none_or(|b| b.intersect(r) == r);
    if ok {
        Ok(r)
    } else {
        Err(EditError::Outside {
            rect: r,
            bounds: bounds.unwrap_or_default(),
        })
    }
}

/// `r` as rows and columns of a grid starting at sample 0 (checked inside `bounds` first).
fn region_of(bounds: Option<SampleRect>, r: SampleRect) -> Result<Region, EditError> {
    let r = inside(bounds, r)?;
    Ok(Region {
        x: r.x as usize,
        z: r.z as usize,
        w: r.w,
        d: r.d,
    })
}

impl TerrainEdit for TerrainData {
    fn bounds(&self) -> Option<SampleRect> {
        Some(self.all().into())
    }

    fn spacing(&self) -> f64 {
        TerrainData::spacing(self)
    }

    fn heights(&self, r: SampleRect) -> Result<Vec<f32>, EditError> {
        Ok(self.heights_region(region_of(TerrainEdit::bounds(self), r)?))
    }

    fn control(&self, r: SampleRect) -> Result<Vec<u32>, EditError> {
        let r = region_of(TerrainEdit::bounds(self), r)?;
        let mut out = Vec::with_capacity(r.w * r.d);
        for z in r.z..r.z + r.d {
            out.extend((r.x..r.x + r.w).map(|x| TerrainData::control(self, x as i64, z as i64)));
        }
        Ok(out)
    }

    fn set_heights(&mut self, r: SampleRect, values: &[f32]) -> Result<SampleRect, EditError> {
        let r = region_of(TerrainEdit::bounds(self), r)?;
        Ok(self.set_heights_region(r, values)?.into())
    }

    fn set_control(&mut self, r: SampleRect, values: &[u32]) -> Result<SampleRect, EditError> {
        let r = region_of(TerrainEdit::bounds(self), r)?;
        if values.len() != r.w * r.d {
            return Err(TerrainDataError::Length {
                property: "values",
                of: "region.size.x * region.size.y",
                got: values.len(),
                want: r.w * r.d,
            }
            .into());
        }
        Ok(self.update_control(r, |k, _| values[k]).into())
    }

    fn set_holes(&mut self, r: SampleRect, holes: &[u8]) -> Result<SampleRect, EditError> {
        let r = region_of(TerrainEdit::bounds(self), r)?;
        Ok(self.set_holes_region(r, holes)?.into())
    }

    fn set_layer(
        &mut self,
        r: SampleRect,
        layer: i64,
        weights: &[f32],
    ) -> Result<SampleRect, EditError> {
        let r = region_of(TerrainEdit::bounds(self), r)?;
        Ok(self.set_layer_region(r, layer, weights)?.into())
    }

    /// In place: the whole terrain is the dab's block already.
    fn apply_brush(
        &mut self,
        b: &Brush,
        center: [f64; 2],
        delta: f64,
    ) -> Result<Option<SampleRect>, EditError> {
        Ok(crate::brush::apply(self, b, center, delta)?.map(SampleRect::from))
    }
}

/// A region map, edited through a shared reference (it guards its own state: the workers read it while
/// the main thread edits).
impl TerrainEdit for &TerrainRegions {
    fn bounds(&self) -> Option<SampleRect> {
        let m = self.meta();
        (!m.endless).then(|| SampleRect {
            x: m.origin[0],
            z: m.origin[1],
            w: m.width,
            d: m.depth,
        })
    }

    fn spacing(&self) -> f64 {
        self.meta().spacing
    }

    fn heights(&self, r: SampleRect) -> Result<Vec<f32>, EditError> {
        let s = self.stored_rect(r)?;
        Ok(self.heights_region(s.x, s.z, s.w, s.d))
    }

    fn control(&self, r: SampleRect) -> Result<Vec<u32>, EditError> {
        let s = self.stored_rect(r)?;
        Ok(self.control_region(s.x, s.z, s.w, s.d))
    }

    fn set_heights(&mut self, r: SampleRect, values: &[f32]) -> Result<SampleRect, EditError> {
        let s = self.stored_rect(r)?;
        self.set_heights_region(s.x, s.z, s.w, s.d, values)?;
        Ok(r)
    }

    fn set_control(&mut self, r: SampleRect, values: &[u32]) -> Result<SampleRect, EditError> {
        let s = self.stored_rect(r)?;
        self.set_control_region(s.x, s.z, s.w, s.d, values)?;
        Ok(r)
    }
}

impl TerrainRegions {
    /// A rectangle in the map's own (public) sample coordinates as stored rows and columns, checked
    /// inside the map (an endless map's too: it spans `ENDLESS_SIDE` samples).
    pub fn stored_rect(&self, r: SampleRect) -> Result<Region, EditError> {
        let m = self.meta();
        let all = SampleRect {
            x: m.origin[0],
            z: m.origin[1],
            w: m.width,
            d: m.depth,
        };
        let r = inside(Some(all), r)?;
        Ok(Region {
            x: m.stored(0, r.x) as usize,
            z: m.stored(1, r.z) as usize,
            w: r.w,
            d: r.d,
        })
    }
}

#[cfg(test)]
mod tests;
