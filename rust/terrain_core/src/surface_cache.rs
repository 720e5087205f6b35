//! The terrain's surface cache: its shaded surface (albedo, normal, roughness, height) around the camera,
//! for any mesh to blend into the ground (a runtime-virtual-texture-like cache, kept as clipmap windows).
//!
//! Like the geometry clipmap's data windows, every level `L` keeps a `size × size` window of texels
//! around the camera, texel side `texel · 2^L` (terrain units), addressed toroidally (slot = index mod
//! size): when the camera moves, only the strips that came into view are drawn again; an edit, a paint
//! stroke or a path redraws the texels over its rectangle; a material change redraws everything. This
//! module decides *which* texels to draw; the GPU draws them (`shaders/terrain_surface_fill.gdshader`)
//! and any shader reads them (`shaders/terrain_surface.gdshaderinc`, the twin of the addressing here).
//!
//! The atlas: one RGBA8 image `PLANES · size` wide and `levels · size` high: level `L` in rows
//! `[L · size, (L + 1) · size)`, its planes side by side (albedo + roughness, normal + coverage, height as
//! the f32's four bytes). Texel `i` of level `L` stands for the terrain point `(i + 0.5) · texel · 2^L`.

use std::fmt;

/// Images per level: albedo + roughness, normal + coverage, height (f32 bits).
pub const PLANES: usize = 3;
/// Bytes per atlas texel (RGBA8).
pub const TEXEL_BYTES: usize = 4;
pub const MAX_LEVELS: usize = 4;
pub const MIN_SIZE: usize = 32;
pub const MAX_SIZE: usize = 1024;
/// Sides are multiples of this (whole texel rows for any level).
pub const SIZE_STEP: usize = 16;
/// Dirty rectangles kept per level before they merge into their bounding box.
const MAX_DIRTY: usize = 16;
/// Positions past this many texels from the origin are not followed (a NaN, an absurd transform).
const MAX_INDEX: f64 = 1e15;

/// Bad cache parameters: which one, and the allowed range.
#[derive(Clone, Debug, PartialEq)]
pub enum SurfaceCacheError {
    Levels(i64),
    Size(i64),
}

impl fmt::Display for SurfaceCacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Levels(v) => write!(f, "surface_cache_levels must be 1..={MAX_LEVELS}, got {v}"),
            Self::Size(v) => write!(
                f,
                "surface_cache_size must be {MIN_SIZE}..={MAX_SIZE} and a multiple of {SIZE_STEP}, got {v}"
            ),
        }
    }
}

impl std::error::Error for SurfaceCacheError {}

/// Valid cache parameters: levels and texels per window side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceCacheConfig {
    levels: usize,
    size: usize,
}

impl Default for SurfaceCacheConfig {
    /// 4 levels of 192²: 1.7 MiB of texels (the Compatibility renderer adds a depth buffer of the same
    /// size to every render target: 3.4 MiB there); at 1 m samples the finest level spans 192 m, the
    /// last 1.5 km.
    fn default() -> Self {
        Self {
            levels: 4,
            size: 192,
        }
    }
}

impl SurfaceCacheConfig {
    pub fn new(levels: i64, size: i64) -> Result<Self, SurfaceCacheError> {
        if !(1..=MAX_LEVELS as i64).contains(&levels) {
            return Err(SurfaceCacheError::Levels(levels));
        }
        if !(MIN_SIZE as i64..=MAX_SIZE as i64).contains(&size) || size % SIZE_STEP as i64 != 0 {
            return Err(SurfaceCacheError::Size(size));
        }
        Ok(Self {
            levels: levels as usize,
            size: size as usize,
        })
    }

    pub fn levels(&self) -> usize {
        self.levels
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The atlas image's width and height in texels.
    pub fn atlas_size(&self) -> [usize; 2] {
        [PLANES * self.size, self.levels * self.size]
    }

    /// GPU memory of the atlas.
    pub fn bytes(&self) -> usize {
        let [w, h] = self.atlas_size();
        w * h * TEXEL_BYTES
    }
}

/// A rectangle of texel indices `[x0, x1) × [z0, z1)` of one level (in the level's own index space).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexRect {
    pub x: [i64; 2],
    pub z: [i64; 2],
}

impl IndexRect {
    fn is_empty(&self) -> bool {
        self.x[0] >= self.x[1] || self.z[0] >= self.z[1]
    }

    fn intersect(&self, o: &IndexRect) -> IndexRect {
        IndexRect {
            x: [self.x[0].max(o.x[0]), self.x[1].min(o.x[1])],
            z: [self.z[0].max(o.z[0]), self.z[1].min(o.z[1])],
        }
    }

    fn union(&self, o: &IndexRect) -> IndexRect {
        IndexRect {
            x: [self.x[0].min(o.x[0]), self.x[1].max(o.x[1])],
            z: [self.z[0].min(o.z[0]), self.z[1].max(o.z[1])],
        }
    }

    fn area(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            ((self.x[1] - self.x[0]) * (self.z[1] - self.z[0])) as u64
        }
    }
}

/// An atlas rectangle to draw: pixels `[x, x + w) × [y, y + h)` of plane 0 (the fill repeats it for the
/// other planes, `size` to the right each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtlasRect {
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
}

/// Which texels of the cache are current, and which to draw next.
#[derive(Clone, Debug, Default)]
pub struct SurfaceCache {
    config: SurfaceCacheConfig,
    /// Terrain units per texel of level 0.
    texel: f64,
    /// Per level: the window's first index (its texels are `[origin, origin + size)` on each axis).
    origins: Vec<Option<[i64; 2]>>,
    /// Per level: rectangles of the window to draw again.
    dirty: Vec<Vec<IndexRect>>,
    /// Texels drawn so far (every plane counts once).
    written: u64,
}

impl SurfaceCache {
    pub fn new(config: SurfaceCacheConfig, texel: f64) -> Self {
        Self {
            config,
            texel,
            origins: vec![None; config.levels],
            dirty: vec![Vec::new(); config.levels],
            written: 0,
        }
    }

    pub fn config(&self) -> SurfaceCacheConfig {
        self.config
    }

    /// Terrain units per texel of level 0.
    pub fn texel(&self) -> f64 {
        self.texel
    }

    /// Level `l`'s window origin (first texel index per axis), once it has one.
    pub fn origin(&self, l: usize) -> Option<[i64; 2]> {
        self.origins.get(l).copied().flatten()
    }

    /// Texels drawn since the cache was made (a strip of `n` texels counts `n`).
    pub fn texels_written(&self) -> u64 {
        self.written
    }

    /// Everything is drawn again at the next update (a material change, an origin shift, new data).
    pub fn invalidate_all(&mut self) {
        self.origins.iter_mut().for_each(|o| *o = None);
        self.dirty.iter_mut().for_each(Vec::clear);
    }

    /// The texels over terrain rectangle `[x0, z0]..[x1, z1]` (terrain units, ends included) are drawn
    /// again at the next update, on every level that holds them. A texel at `(i + 0.5) · t` depends on the
    /// surface there, so a one-texel margin covers the patch reaching into neighbours.
    pub fn invalidate(&mut self, lo: [f64; 2], hi: [f64; 2]) {
        if !(lo
            .iter()
            .chain(&hi)
            .all(|v| (v / self.texel).abs() < MAX_INDEX))
        {
            return;
        }
        for l in 0..self.config.levels {
            let Some(o) = self.origin(l) else { continue };
            let t = self.level_texel(l);
            let r = IndexRect {
                x: [
                    (lo[0] / t).floor() as i64 - 1,
                    (hi[0] / t).floor() as i64 + 2,
                ],
                z: [
                    (lo[1] / t).floor() as i64 - 1,
                    (hi[1] / t).floor() as i64 + 2,
                ],
            }
            .intersect(&self.window(o));
            if r.is_empty() {
                continue;
            }
            let d = &mut self.dirty[l];
            d.push(r);
            if d.len() > MAX_DIRTY {
                let all = d.iter().skip(1).fold(d[0], |a, b| a.union(b));
                d.clear();
                d.push(all);
            }
        }
    }

    /// Terrain units per texel of level `l`.
    pub fn level_texel(&self, l: usize) -> f64 {
        self.texel * (1u64 << l) as f64
    }

    fn window(&self, o: [i64; 2]) -> IndexRect {
        let s = self.config.size as i64;
        IndexRect {
            x: [o[0], o[0] + s],
            z: [o[1], o[1] + s],
        }
    }

    /// Follows the camera at terrain position `centre` and writes into `out` the atlas rectangles to draw:
    /// the strips each level's window uncovered, and the dirty texels inside the windows. Returns the
    /// texels to draw (once per plane). A non-finite or absurd centre changes nothing.
    pub fn update(&mut self, centre: [f64; 2], out: &mut Vec<AtlasRect>) -> u64 {
        out.clear();
        // Indices stay far inside i64 (and a texel's index inside f64's integers).
        if !centre.iter().all(|c| (c / self.texel).abs() < MAX_INDEX) {
            return 0;
        }
        let s = self.config.size as i64;
        let mut n = 0;
        for l in 0..self.config.levels {
            let t = self.level_texel(l);
            let o = [0, 1].map(|a| (centre[a] / t).floor() as i64 - s / 2);
            let new = self.window(o);
            let mut draw = std::mem::take(&mut self.dirty[l]);
            match self.origin(l) {
                Some(old) if old == o => {}
                // Overlapping windows: the uncovered strips (an x strip of full height, a z strip of the
                // rest); the old dirty rectangles keep what still lies inside.
                Some(old) if (o[0] - old[0]).abs() < s && (o[1] - old[1]).abs() < s => {
                    let keep = self.window(old).intersect(&new);
                    // What lies in `new` past `keep` on an axis (empty when it did not move there).
                    let past = |moved_up: bool, k: [i64; 2], n: [i64; 2]| {
                        if moved_up {
                            [k[1], n[1]]
                        } else {
                            [n[0], k[0]]
                        }
                    };
                    let x_strip = IndexRect {
                        x: past(o[0] > old[0], keep.x, new.x),
                        z: new.z,
                    };
                    let z_strip = IndexRect {
                        x: keep.x,
                        z: past(o[1] > old[1], keep.z, new.z),
                    };
                    draw.retain_mut(|r| {
                        *r = r.intersect(&keep);
                        !r.is_empty()
                    });
                    draw.extend([x_strip, z_strip].into_iter().filter(|r| !r.is_empty()));
                }
                _ => {
                    draw.clear();
                    draw.push(new);
                }
            }
            self.origins[l] = Some(o);
            for r in &draw {
                n += r.area();
                atlas_rects(r, s, l, out);
            }
            draw.clear();
            self.dirty[l] = draw;
        }
        self.written += n;
        n
    }
}

/// The atlas rectangles (plane 0) holding index rectangle `r` of level `l`: the toroidal slots split it
/// where an index crosses a multiple of `s` (at most four pieces for `r` no larger than the window).
fn atlas_rects(r: &IndexRect, s: i64, l: usize, out: &mut Vec<AtlasRect>) {
    let split = |a: [i64; 2]| {
        let start = a[0].rem_euclid(s);
        let len = a[1] - a[0];
        let first = len.min(s - start);
        [(start, first), (0, len - first)]
    };
    for (z0, zh) in split(r.z) {
        for (x0, xw) in split(r.x) {
            if zh > 0 && xw > 0 {
                out.push(AtlasRect {
                    x: x0 as usize,
                    y: l * s as usize + z0 as usize,
                    w: xw as usize,
                    h: zh as usize,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests;
