//! Brushes: one dab of a tool at a point, scaled by the time it lasts (strength per second, so the mouse's
//! speed does not change the result), shaped by a falloff from the dab's centre to its rim.
//!
//! A dab reads and writes only the samples of its square (`dab_region`) and goes through `TerrainData`'s
//! edit calls (`set_heights_region`, `set_holes_region`, `update_control` for paint), the edit paths the
//! nodes follow. `apply` picks one function per kind of tool: holes, paint, heights, erosion.

use crate::control::HOLE;
use crate::samples::{sample_centre, sample_index};
use crate::terrain_data::{Region, TerrainData, TerrainDataError};
use glam::DVec2;
use std::fmt;

/// What a dab does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tool {
    /// Heights go up by `strength` world units per second at the centre.
    Raise,
    /// Heights go down likewise.
    Lower,
    /// Heights move toward the mean of their 3 x 3 neighbourhood.
    Smooth,
    /// Heights move toward `height` (the editor sets it to the height under the cursor at stroke start).
    Flatten,
    /// The same as Flatten with a height the user chose.
    SetHeight,
    /// Heights move toward the straight slope from `from` to `to` (X/Z, height).
    Slope { from: [f64; 3], to: [f64; 3] },
    /// Samples under the inner half of the dab become holes.
    HoleAdd,
    /// Samples under the inner half of the dab stop being holes.
    HoleRemove,
    /// The weight of a layer moves toward 1 (toward 0 with `erase`) at `strength` per second.
    Paint { layer: usize, erase: bool },
    /// Instances of an instancer's mesh are added (`erase`: removed; `mesh` None: every mesh) by the
    /// instancer's `apply_brush` (`instances::dab_add`); terrain data does not change.
    Instances { mesh: Option<usize>, erase: bool },
    /// Water droplets erode the ground under the dab (`erosion::simulate` inside the dab's square, blended
    /// in by the falloff): about a droplet per four samples per unit of strength and second.
    Erode,
    /// The painted density of an instancer's detail layer goes up (`erase`: down) by the instancer's
    /// `apply_brush` (`detail::density::dab`); terrain data does not change.
    Detail { layer: Option<usize>, erase: bool },
}

impl Tool {
    /// Whether the tool is a `TerrainInstancer`'s (instances, detail density) and leaves terrain data alone.
    pub fn is_instancer_tool(&self) -> bool {
        matches!(self, Self::Instances { .. } | Self::Detail { .. })
    }

    /// Whether the tool edits the control map (holes, paint) rather than heights.
    pub fn edits_control(&self) -> bool {
        matches!(self, Self::HoleAdd | Self::HoleRemove | Self::Paint { .. })
    }
}

/// How a dab's effect fades from its centre (1) to its rim (0).
#[derive(Clone, Debug, PartialEq)]
pub enum Falloff {
    /// Full strength out to `hardness` of the radius, then a smooth fall to 0 (0: soft, 1: hard edge).
    Hardness(f32),
    /// Weights sampled evenly from the centre (first) to the rim (last), at least two (`Brush::new` checks).
    Curve(Vec<f32>),
}

impl Falloff {
    /// Weight at distance `r` in [0, 1] of the radius.
    #[inline]
    pub fn weight(&self, r: f32) -> f32 {
        if !(0.0..1.0).contains(&r) {
            return 0.0;
        }
        match self {
            Self::Hardness(h) => {
                let h = h.clamp(0.0, 1.0);
                if r <= h {
                    1.0
                } else {
                    let x = (r - h) / (1.0 - h).max(1e-6);
                    // Smoothstep down to 0 at the rim.
                    1.0 - x * x * (3.0 - 2.0 * x)
                }
            }
            Self::Curve(w) => {
                let n = w.len().max(2) - 1;
                let f = r * n as f32;
                let i = (f.floor() as usize).min(n - 1);
                let t = f - i as f32;
                let (a, b) = (w[i.min(w.len() - 1)], w[(i + 1).min(w.len() - 1)]);
                (a + (b - a) * t).clamp(0.0, 1.0)
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum BrushError {
    Size(f64),
    Strength(f64),
    Delta(f64),
    Height(f64),
    Falloff(usize),
    Terrain(TerrainDataError),
}

impl From<TerrainDataError> for BrushError {
    fn from(e: TerrainDataError) -> Self {
        Self::Terrain(e)
    }
}

impl std::error::Error for BrushError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Terrain(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for BrushError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Size(v) => write!(
                f,
                "size must be a number in (0, 100000] (world units), got {v}"
            ),
            Self::Strength(v) => write!(
                f,
                "strength must be a number in [0, 100000] (per second), got {v}"
            ),
            Self::Delta(v) => write!(f, "delta must be a number in [0, 10] (seconds), got {v}"),
            Self::Height(v) => write!(
                f,
                "height must be a number in [-1000000000, 1000000000], got {v}"
            ),
            Self::Falloff(n) => write!(f, "falloff needs at least 2 finite samples, got {n}"),
            Self::Terrain(e) => write!(f, "{e}"),
        }
    }
}

/// A brush image's alpha (0..1, row-major), stretched over the dab's square: it multiplies the falloff, so
/// with hardness 1 the dab is the image within its circle. Shared, not copied, between dabs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mask {
    width: usize,
    height: usize,
    alpha: std::sync::Arc<Vec<f32>>,
}

impl Mask {
    /// Largest side accepted (a brush image is a stamp, not a heightmap).
    pub const MAX_SIDE: usize = 2048;

    /// `None` unless `alpha` holds `width * height` finite values and both sides are in 1..=MAX_SIDE.
    pub fn new(width: usize, height: usize, alpha: Vec<f32>) -> Option<Self> {
        let ok = (1..=Self::MAX_SIDE).contains(&width)
            && (1..=Self::MAX_SIDE).contains(&height)
            && alpha.len() == width * height
            && alpha.iter().all(|a| a.is_finite());
        ok.then(|| Self {
            width,
            height,
            alpha: std::sync::Arc::new(alpha.iter().map(|a| a.clamp(0.0, 1.0)).collect()),
        })
    }

    /// Bilinear alpha at (u, v) in [0, 1]² of the dab's square (texel centres at (i + 0.5) / width); 0
    /// outside.
    pub fn sample(&self, u: f32, v: f32) -> f32 {
        if !((0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v)) {
            return 0.0;
        }
        let x = (u * self.width as f32 - 0.5).clamp(0.0, (self.width - 1) as f32);
        let y = (v * self.height as f32 - 0.5).clamp(0.0, (self.height - 1) as f32);
        let (x0, y0) = (x as usize, y as usize);
        let (x1, y1) = ((x0 + 1).min(self.width - 1), (y0 + 1).min(self.height - 1));
        let (tx, ty) = (x - x0 as f32, y - y0 as f32);
        let a = |x: usize, y: usize| self.alpha[y * self.width + x];
        let top = a(x0, y0) + (a(x1, y0) - a(x0, y0)) * tx;
        let bottom = a(x0, y1) + (a(x1, y1) - a(x0, y1)) * tx;
        top + (bottom - top) * ty
    }
}

/// A validated brush: tool, diameter (world units), strength per second, falloff, target height, and an
/// optional image mask.
#[derive(Clone, Debug, PartialEq)]
pub struct Brush {
    pub tool: Tool,
    size: f64,
    strength: f64,
    pub falloff: Falloff,
    height: f64,
    pub mask: Option<Mask>,
    /// The image's turn about the dab's centre, radians (positive: from +X toward +Z).
    rotation: f64,
}

impl Brush {
    pub fn new(
        tool: Tool,
        size: f64,
        strength: f64,
        falloff: Falloff,
        height: f64,
    ) -> Result<Self, BrushError> {
        if !(size > 0.0 && size <= 1.0e5) {
            return Err(BrushError::Size(size));
        }
        if !(0.0..=1.0e5).contains(&strength) {
            return Err(BrushError::Strength(strength));
        }
        if !(-1.0e9..=1.0e9).contains(&height) {
            return Err(BrushError::Height(height));
        }
        if let Falloff::Curve(w) = &falloff {
            if w.len() < 2 || w.iter().any(|v| !v.is_finite()) {
                return Err(BrushError::Falloff(w.len()));
            }
        }
        Ok(Self {
            tool,
            size,
            strength,
            falloff,
            height,
            mask: None,
            rotation: 0.0,
        })
    }

    /// The same brush with another tool (a slope's ends moved into another frame).
    pub fn with_tool(self, tool: Tool) -> Self {
        Self { tool, ..self }
    }

    /// The same brush stamped through an image's alpha.
    pub fn with_mask(self, mask: Option<Mask>) -> Self {
        Self { mask, ..self }
    }

    /// The same brush with its image turned by `radians` (a non-finite angle is taken as 0).
    pub fn with_rotation(self, radians: f64) -> Self {
        let rotation = if radians.is_finite() {
            radians % std::f64::consts::TAU
        } else {
            0.0
        };
        Self { rotation, ..self }
    }

    pub fn rotation(&self) -> f64 {
        self.rotation
    }

    /// Where terrain offset (dx, dz) from the dab's centre falls in the image ([0, 1]² inside): the
    /// offset turned back by the rotation, over the dab's size.
    pub fn image_uv(&self, dx: f64, dz: f64) -> (f32, f32) {
        let d = DVec2::new(dx, dz);
        let d = if self.rotation == 0.0 {
            d
        } else {
            DVec2::from_angle(-self.rotation).rotate(d)
        };
        let uv = d / self.size + 0.5;
        (uv.x as f32, uv.y as f32)
    }
    pub fn size(&self) -> f64 {
        self.size
    }
    pub fn strength(&self) -> f64 {
        self.strength
    }
    /// The target height of Flatten and SetHeight.
    pub fn height(&self) -> f64 {
        self.height
    }
    /// The dab's weight at terrain offset (dx, dz) from its centre: the falloff times the image mask.
    pub fn weight_at(&self, dx: f64, dz: f64) -> f32 {
        let w = self
            .falloff
            .weight((dx.hypot(dz) / (0.5 * self.size)) as f32);
        match &self.mask {
            Some(m) if w > 0.0 => {
                let (u, v) = self.image_uv(dx, dz);
                w * m.sample(u, v)
            }
            _ => w,
        }
    }
}

/// The samples a dab at world X/Z `center` can touch (its square, clipped to the terrain); None outside.
pub fn dab_region(t: &TerrainData, center: [f64; 2], size: f64) -> Option<Region> {
    dab_rect([t.width(), t.depth()], t.spacing(), center, size)
}

/// `dab_region` for a map of `size` samples `spacing` apart.
pub fn dab_rect(size: [usize; 2], sp: f64, center: [f64; 2], dab: f64) -> Option<Region> {
    let r = 0.5 * dab;
    let lo = |c: f64| sample_index(c - r, sp).ceil();
    let hi = |c: f64| sample_index(c + r, sp).floor();
    let (x0, x1) = (
        lo(center[0]).max(0.0),
        hi(center[0]).min(size[0] as f64 - 1.0),
    );
    let (z0, z1) = (
        lo(center[1]).max(0.0),
        hi(center[1]).min(size[1] as f64 - 1.0),
    );
    if !(x0 <= x1 && z0 <= z1) {
        return None;
    }
    Some(Region {
        x: x0 as usize,
        z: z0 as usize,
        w: (x1 - x0) as usize + 1,
        d: (z1 - z0) as usize + 1,
    })
}

/// Applies one dab lasting `delta` seconds; returns the region whose drawn surface changed (None when the
/// dab is outside the terrain or changes nothing).
pub fn apply(
    t: &mut TerrainData,
    b: &Brush,
    center: [f64; 2],
    delta: f64,
) -> Result<Option<Region>, BrushError> {
    if !(0.0..=10.0).contains(&delta) {
        return Err(BrushError::Delta(delta));
    }
    if !(center[0].is_finite() && center[1].is_finite()) {
        return Ok(None);
    }
    if b.tool.is_instancer_tool() {
        return Ok(None);
    }
    let Some(r) = dab_region(t, center, b.size) else {
        return Ok(None);
    };
    let dab = Dab {
        b,
        center,
        spacing: t.spacing(),
        radius: 0.5 * b.size,
    };
    match b.tool {
        Tool::Erode => erode_dab(t, b, r, center, delta, &|x, z| dab.weight(x, z)),
        Tool::HoleAdd | Tool::HoleRemove => apply_holes(t, &dab, r),
        Tool::Paint { layer, erase } => apply_paint(t, &dab, r, delta, layer, erase),
        _ => apply_heights(t, &dab, r, delta),
    }
}

/// One dab: the brush and where it lands.
struct Dab<'a> {
    b: &'a Brush,
    center: [f64; 2],
    spacing: f64,
    radius: f64,
}

impl Dab<'_> {
    /// The brush's weight at sample (x, z): falloff times mask, 0 beyond the rim.
    fn weight(&self, x: usize, z: usize) -> f32 {
        let sp = self.spacing;
        let (px, pz) = (sample_centre(x as f64, sp), sample_centre(z as f64, sp));
        let d2 = (px - self.center[0]).powi(2) + (pz - self.center[1]).powi(2);
        // Beyond the rim with a margin for rounding (the weight there is 0): no square root for the
        // dab's corners, a fifth of its square.
        if d2 > (self.radius * self.radius) * (1.0 + 1e-9) {
            return 0.0;
        }
        let w = self.b.falloff.weight((d2.sqrt() / self.radius) as f32);
        match &self.b.mask {
            Some(m) if w > 0.0 => {
                let (u, v) = self.b.image_uv(px - self.center[0], pz - self.center[1]);
                w * m.sample(u, v)
            }
            _ => w,
        }
    }

    /// The columns of row `z` of `r` (indices into the row, [start, end)) that the dab's circle can reach:
    /// the others have weight 0, so a row's work is its chord, not the square's side (a fifth of the
    /// square's samples lie in its corners). One sample of margin each side: `weight` decides at the rim.
    fn row_span(&self, z: usize, r: Region) -> (usize, usize) {
        let sp = self.spacing;
        let dz = sample_centre(z as f64, sp) - self.center[1];
        let half2 = self.radius * self.radius * (1.0 + 1e-9) - dz * dz;
        if half2 < 0.0 {
            return (0, 0);
        }
        let half = half2.sqrt();
        let lo = sample_index(self.center[0] - half, sp).floor() - 1.0 - r.x as f64;
        let hi = sample_index(self.center[0] + half, sp).ceil() + 2.0 - r.x as f64;
        let clip = |v: f64| v.clamp(0.0, r.w as f64) as usize;
        (clip(lo), clip(hi))
    }

    /// The share of the way toward a target where the falloff is w: 1 - e^(-strength * delta * w), so
    /// two dabs of delta / 2 do what one of delta does (strength per second, whatever the frame rate).
    fn blend(&self, delta: f64, w: f32) -> f32 {
        (1.0 - (-self.b.strength * delta * f64::from(w)).exp()) as f32
    }
}

/// HOLE_ADD / HOLE_REMOVE: samples where the weight passes one half.
fn apply_holes(t: &mut TerrainData, dab: &Dab, r: Region) -> Result<Option<Region>, BrushError> {
    let add = dab.b.tool == Tool::HoleAdd;
    let mut marks = Vec::with_capacity(r.w * r.d);
    let mut changed = false;
    for z in r.z..r.z + r.d {
        for x in r.x..r.x + r.w {
            let was = t.control(x as i64, z as i64) & HOLE != 0;
            let now = if dab.weight(x, z) > 0.5 { add } else { was };
            changed |= now != was;
            marks.push(u8::from(now));
        }
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(t.set_holes_region(r, &marks)?))
}

/// PAINT: a layer's weight toward 1 (or 0 erasing) in the control map.
fn apply_paint(
    t: &mut TerrainData,
    dab: &Dab,
    r: Region,
    delta: f64,
    layer: usize,
    erase: bool,
) -> Result<Option<Region>, BrushError> {
    if layer >= crate::control::MAX_LAYERS {
        return Err(BrushError::Terrain(TerrainDataError::Layer(layer as i64)));
    }
    let slot = crate::control::slot_of(layer);
    let target = if erase { 0.0 } else { 1.0 };
    let before: Vec<u32> = (0..r.w * r.d)
        .map(|k| t.control((r.x + k % r.w) as i64, (r.z + k / r.w) as i64))
        .collect();
    let after: Vec<u32> = before
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let w = dab.weight(r.x + k % r.w, r.z + k / r.w);
            if w <= 0.0 {
                return c;
            }
            let cur = crate::control::Paint::decode(c).weight_of(slot);
            let mut next = cur + (target - cur) * dab.blend(delta, w);
            // Weights are 8-bit: a step under half a unit would round back and stall short of the
            // target, so every touched sample moves at least one unit.
            if cur != target && ((next - cur) * 255.0).abs() < 0.5 {
                next = cur + (target - cur).signum() / 255.0;
            }
            crate::control::paint(c, slot, next)
        })
        .collect();
    if after == before {
        return Ok(None);
    }
    Ok(Some(t.update_control(r, |k, _| after[k])))
}

/// RAISE, LOWER, SMOOTH, FLATTEN, SET_HEIGHT and SLOPE: new heights under the dab. The terrain stays as
/// it was until the dab is written (smoothing reads the heights from before it); rows are independent,
/// so they are computed in parallel, each reporting whether it changed.
fn apply_heights(
    t: &mut TerrainData,
    dab: &Dab,
    r: Region,
    delta: f64,
) -> Result<Option<Region>, BrushError> {
    use rayon::prelude::*;
    let (b, sp) = (dab.b, dab.spacing);
    let step = (b.strength * delta) as f32;
    let mut after = vec![0.0f32; r.w * r.d];
    let src: &TerrainData = t;
    let row = |(i, out): (usize, &mut [f32])| -> bool {
        let z = r.z + i;
        let start = z * src.width() + r.x;
        out.copy_from_slice(&src.heights()[start..start + r.w]);
        let mut changed = false;
        let (j0, j1) = dab.row_span(z, r);
        for (j, h) in out.iter_mut().enumerate().take(j1).skip(j0) {
            let x = r.x + j;
            let w = dab.weight(x, z);
            if w <= 0.0 {
                continue;
            }
            let old = *h;
            let toward = |target: f32| old + (target - old) * dab.blend(delta, w);
            *h = match b.tool {
                Tool::Raise => old + step * w,
                Tool::Lower => old - step * w,
                Tool::Smooth => toward(neighbourhood_mean(src, x, z)),
                Tool::Flatten | Tool::SetHeight => toward(b.height as f32),
                Tool::Slope { from, to } => toward(slope_height(
                    from,
                    to,
                    [sample_centre(x as f64, sp), sample_centre(z as f64, sp)],
                ) as f32),
                _ => unreachable!("apply sends only height tools here"),
            };
            // A NaN result counts as a change (and is refused when written).
            changed |= *h != old;
        }
        changed
    };
    // Below a few thousand samples the thread hand-off costs more than it saves.
    let changed = if r.w * r.d >= 4096 {
        after
            .par_chunks_mut(r.w)
            .enumerate()
            .map(row)
            .reduce(|| false, |a, b| a | b)
    } else {
        after
            .chunks_mut(r.w)
            .enumerate()
            .map(row)
            .fold(false, |a, b| a | b)
    };
    if !changed {
        return Ok(None);
    }
    Ok(Some(t.set_heights_region(r, &after)?))
}

/// Mean of the 3 x 3 samples around (x, z) (clamped at the terrain's edges).
fn neighbourhood_mean(t: &TerrainData, x: usize, z: usize) -> f32 {
    let mut sum = 0.0;
    for dz in -1i64..=1 {
        for dx in -1i64..=1 {
            sum += t.texel(x as i64 + dx, z as i64 + dz)[0];
        }
    }
    sum / 9.0
}

/// Height of the straight slope from `a` to `b` (X, height, Z) at X/Z `p`, held flat beyond the ends.
fn slope_height(a: [f64; 3], b: [f64; 3], p: [f64; 2]) -> f64 {
    // The ramp runs on X/Z from a to b: p's share of the way along it, its height between theirs.
    let (a2, b2) = (DVec2::new(a[0], a[2]), DVec2::new(b[0], b[2]));
    let along = b2 - a2;
    let len2 = along.length_squared();
    if len2.is_nan() || len2 <= 0.0 {
        return a[1];
    }
    let s = ((DVec2::from(p) - a2).dot(along) / len2).clamp(0.0, 1.0);
    a[1] + (b[1] - a[1]) * s
}

/// An ERODE dab: droplets inside the dab's square of samples (their number from the strength and time,
/// their seed from the centre), the result blended into the ground by the brush's weight.
fn erode_dab(
    t: &mut TerrainData,
    b: &Brush,
    r: Region,
    center: [f64; 2],
    delta: f64,
    weight: &dyn Fn(usize, usize) -> f32,
) -> Result<Option<Region>, BrushError> {
    let before = t.heights_region(r);
    let mut after = before.clone();
    let droplets = ((r.w * r.d) as f64 * b.strength * delta * 0.25).ceil() as usize;
    let sim = crate::erosion::Simulation {
        droplets: droplets.min(crate::erosion::MAX_DROPLETS),
        seed: center[0].to_bits() ^ center[1].to_bits().rotate_left(21),
        thermal_iterations: 1,
        ..Default::default()
    };
    let progress = crate::progress::Progress::default();
    if crate::erosion::simulate(
        &mut after,
        r.w,
        t.spacing(),
        [0, 0, r.w, r.d],
        &sim,
        &progress,
    )
    .is_none()
    {
        return Ok(None);
    }
    let mut changed = false;
    for z in 0..r.d {
        for x in 0..r.w {
            let k = z * r.w + x;
            let w = weight(r.x + x, r.z + z);
            let v = before[k] + (after[k] - before[k]) * w;
            changed |= v != before[k];
            after[k] = v;
        }
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(t.set_heights_region(r, &after)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn terrain() -> TerrainData {
        let (w, d) = (40, 36);
        let h = (0..w * d)
            .map(|i| ((i % w) as f32 * 0.3).sin() * 3.0 + ((i / w) as f32 * 0.2).cos() * 2.0)
            .collect();
        TerrainData::from_heights(w, d, 0.5, h).unwrap()
    }

    fn brush(tool: Tool, size: f64, hardness: f32) -> Brush {
        Brush::new(tool, size, 2.0, Falloff::Hardness(hardness), 1.5).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn nothing_outside_the_dab_changes(cx in 0.0f64..20.0, cz in 0.0f64..18.0, size in 0.3f64..8.0,
                                           tool in 0usize..6, hard in 0.0f32..1.0) {
            let mut t = terrain();
            let before = t.heights().to_vec();
            let tool = [Tool::Raise, Tool::Lower, Tool::Smooth, Tool::Flatten, Tool::SetHeight,
                        Tool::Slope { from: [1.0, -2.0, 1.0], to: [15.0, 5.0, 12.0] }][tool];
            let b = brush(tool, size, hard);
            let region = dab_region(&t, [cx, cz], size);
            apply(&mut t, &b, [cx, cz], 0.1).unwrap();
            for (i, (a, c)) in before.iter().zip(t.heights()).enumerate() {
                let (x, z) = (i % 40, i / 40);
                let inside = region.is_some_and(|r| x >= r.x && x < r.x + r.w && z >= r.z && z < r.z + r.d);
                prop_assert!(inside || a == c, "sample ({x}, {z}) outside the dab changed");
            }
        }

        #[test]
        fn a_rows_span_holds_every_sample_the_dab_weighs(cx in 0.0f64..20.0, cz in 0.0f64..18.0, size in 0.3f64..12.0, sp in 0.25f64..3.0) {
            let t = TerrainData::from_heights(24, 20, sp, vec![0.0; 24 * 20]).unwrap();
            let b = brush(Tool::Raise, size, 0.0);
            let center = [cx * sp, cz * sp];
            if let Some(r) = dab_region(&t, center, size) {
                let dab = Dab { b: &b, center, spacing: sp, radius: 0.5 * size };
                for z in r.z..r.z + r.d {
                    let (j0, j1) = dab.row_span(z, r);
                    for j in 0..r.w {
                        prop_assert!((j0..j1).contains(&j) || dab.weight(r.x + j, z) == 0.0);
                    }
                }
            }
        }

        #[test]
        fn raise_then_lower_is_the_identity(cx in 2.0f64..18.0, cz in 2.0f64..16.0, size in 0.5f64..6.0, dt in 0.0f64..0.5) {
            let mut t = terrain();
            let before = t.heights().to_vec();
            apply(&mut t, &brush(Tool::Raise, size, 0.3), [cx, cz], dt).unwrap();
            apply(&mut t, &brush(Tool::Lower, size, 0.3), [cx, cz], dt).unwrap();
            for (a, c) in before.iter().zip(t.heights()) {
                prop_assert!((a - c).abs() <= 1e-5 * (1.0 + a.abs()), "{a} vs {c}");
            }
        }

        #[test]
        fn smooth_stays_within_its_window(cx in 2.0f64..18.0, cz in 2.0f64..16.0, size in 0.5f64..6.0, dt in 0.0f64..2.0) {
            let mut t = terrain();
            let before = t.clone();
            apply(&mut t, &brush(Tool::Smooth, size, 0.5), [cx, cz], dt).unwrap();
            for z in 0..36i64 {
                for x in 0..40i64 {
                    let mut lo = f32::INFINITY;
                    let mut hi = f32::NEG_INFINITY;
                    for dz in -1..=1 {
                        for dx in -1..=1 {
                            let h = before.texel(x + dx, z + dz)[0];
                            lo = lo.min(h);
                            hi = hi.max(h);
                        }
                    }
                    let h = t.texel(x, z)[0];
                    prop_assert!(h >= lo - 1e-5 && h <= hi + 1e-5, "({x}, {z}): {h} outside [{lo}, {hi}]");
                }
            }
        }
    }

    #[test]
    fn an_image_mask_shapes_the_dab() {
        // Left half opaque, right half clear: only samples left of the centre rise.
        let mask = Mask::new(2, 1, vec![1.0, 0.0]).unwrap();
        let b = brush(Tool::Raise, 10.0, 1.0).with_mask(Some(mask.clone()));
        let mut t = TerrainData::flat(32, 32, 1.0);
        apply(&mut t, &b, [16.0, 16.0], 0.5).unwrap().unwrap();
        let h = |x: i64| t.texel(x, 16)[0];
        assert!(
            h(12) > 0.9 && h(14) > 0.5,
            "left side raised: {} {}",
            h(12),
            h(14)
        );
        assert_eq!(h(19), 0.0, "right side untouched");
        assert!(h(15) > h(16) && h(16) > h(17), "bilinear in between");
        assert_eq!(mask.sample(1.5, 0.5), 0.0);
        assert!(Mask::new(0, 1, vec![]).is_none() && Mask::new(1, 1, vec![f32::NAN]).is_none());
    }

    #[test]
    fn paint_fades_a_layer_in_and_out_inside_the_dab_only() {
        let mut t = TerrainData::flat(16, 16, 1.0);
        let paint = |erase| brush(Tool::Paint { layer: 5, erase }, 6.0, 4.0);
        let r = apply(&mut t, &paint(false), [8.0, 8.0], 0.5)
            .unwrap()
            .unwrap();
        let mut w = [0.0f32; 8];
        t.layer_weights_at(7.5, 7.5, &mut w);
        assert!(w[5] > 0.6, "{w:?}");
        for _ in 0..20 {
            apply(&mut t, &paint(false), [8.0, 8.0], 0.5).unwrap();
        }
        assert_eq!(
            crate::control::Paint::decode(t.control(7, 7)).weight_of(6),
            1.0
        );
        for z in 0..16 {
            for x in 0..16 {
                let inside = (r.x..r.x + r.w).contains(&x) && (r.z..r.z + r.d).contains(&z);
                assert!(inside || t.control(x as i64, z as i64) == 0);
            }
        }
        for _ in 0..40 {
            apply(&mut t, &paint(true), [8.0, 8.0], 0.5).unwrap();
        }
        assert!(
            t.control_map().is_empty(),
            "erasing everything leaves no control map"
        );
    }

    #[test]
    fn flatten_converges_and_holes_follow_the_dab() {
        let mut t = terrain();
        let b = brush(Tool::Flatten, 4.0, 0.5);
        for _ in 0..200 {
            apply(&mut t, &b, [10.0, 9.0], 0.05).unwrap();
        }
        let h = t.height_at(10.0, 9.0);
        assert!((h - 1.5).abs() < 1e-3, "flattened to the target: {h}");
        let r = apply(&mut t, &brush(Tool::HoleAdd, 3.0, 1.0), [5.0, 5.0], 0.1)
            .unwrap()
            .unwrap();
        assert!(t.height_at(5.0, 5.0).is_nan() && r.w > 0);
        apply(&mut t, &brush(Tool::HoleRemove, 3.0, 1.0), [5.0, 5.0], 0.1).unwrap();
        assert!(t.height_at(5.0, 5.0).is_finite());
        // Per-second strength: two dabs of 0.05 s equal one of 0.1 s, for Raise and for Flatten.
        for tool in [Tool::Raise, Tool::Flatten] {
            let (mut a, mut c) = (terrain(), terrain());
            let b = brush(tool, 4.0, 0.5);
            apply(&mut a, &b, [10.0, 9.0], 0.05).unwrap();
            apply(&mut a, &b, [10.0, 9.0], 0.05).unwrap();
            apply(&mut c, &b, [10.0, 9.0], 0.1).unwrap();
            for (x, y) in a.heights().iter().zip(c.heights()) {
                assert!((x - y).abs() < 1e-4, "{tool:?}: {x} vs {y}");
            }
        }
        let raise = brush(Tool::Raise, 4.0, 0.5);
        let mut a = terrain();
        assert!(Brush::new(Tool::Raise, 1.0, 1.0, Falloff::Curve(vec![]), 0.0).is_err());
        assert!(
            Brush::new(Tool::Raise, 0.0, 1.0, Falloff::Hardness(0.5), 0.0)
                .unwrap_err()
                .to_string()
                .contains("size")
        );
        assert!(apply(&mut a, &raise, [1.0, 1.0], f64::NAN).is_err());
        assert_eq!(
            apply(&mut a, &raise, [-100.0, 1.0], 0.1).unwrap(),
            None,
            "outside the terrain"
        );
        assert_eq!(Falloff::Curve(vec![1.0, 0.0]).weight(0.25), 0.75);
    }
}

#[cfg(test)]
mod rotation_tests {
    use super::*;

    fn terrain() -> TerrainData {
        TerrainData::flat(64, 64, 1.0)
    }

    #[test]
    fn a_turned_image_dabs_like_the_image_turned() {
        let w = 9;
        let m: Vec<f32> = (0..w * w).map(|i| ((i * 37) % 11) as f32 / 10.0).collect();
        // The image turned a quarter from +X toward +Z: texel (i, j) of the turned image is texel
        // (j, w - 1 - i) of the original.
        let turned: Vec<f32> = (0..w * w)
            .map(|k| {
                let (i, j) = (k % w, k / w);
                m[(w - 1 - i) * w + j]
            })
            .collect();
        let base = Brush::new(Tool::Raise, 18.0, 10.0, Falloff::Hardness(1.0), 0.0).unwrap();
        let a = base
            .clone()
            .with_mask(Mask::new(w, w, m))
            .with_rotation(std::f64::consts::FRAC_PI_2);
        let b = base.with_mask(Mask::new(w, w, turned));
        let (mut ta, mut tb) = (terrain(), terrain());
        apply(&mut ta, &a, [32.0, 32.0], 0.1).unwrap();
        apply(&mut tb, &b, [32.0, 32.0], 0.1).unwrap();
        let worst = ta
            .heights()
            .iter()
            .zip(tb.heights())
            .fold(0.0f32, |m, (x, y)| {
                m.max((x - y).abs())
                    .max(if x.is_nan() { f32::INFINITY } else { 0.0 })
            });
        assert!(worst < 1e-4, "worst {worst}");
        assert!(
            ta.heights().iter().any(|&h| h > 0.1),
            "the dab raised something"
        );
        // A full turn is no turn; a non-finite angle is none.
        let c = Brush::new(Tool::Raise, 18.0, 10.0, Falloff::Hardness(1.0), 0.0)
            .unwrap()
            .with_rotation(f64::NAN);
        assert_eq!(c.rotation(), 0.0);
    }
}
