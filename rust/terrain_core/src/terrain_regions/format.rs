//! A region folder's layout and header: `RegionMeta` (size, spacing, region size, mips, range, control,
//! where an endless map starts), and the `terrain.regions` text it is saved as.

use super::error::{invalid, RegionError};
use crate::sample_rect::SampleRect;
use std::collections::HashMap;
use std::path::Path;

/// The header's file name.
pub(crate) const HEADER: &str = "terrain.regions";

const MAGIC: &str = "wandering_terrain regions 1";

/// What the header says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionMeta {
    pub width: usize,
    pub depth: usize,
    pub spacing: f64,
    /// Samples per region side (a power of two, 16..=4096).
    pub region: usize,
    /// Mip levels stored (1 + until the map fits one region).
    pub mips: u32,
    pub range: (f32, f32),
    pub has_control: bool,
    /// Sample index (in the coordinates queries, edits and nodes use) of stored sample (0, 0): 0 for a
    /// map that starts at the origin; `-ENDLESS_SIDE / 2` for an endless map, centred on the origin.
    pub origin: [i64; 2],
    /// An endless map (generator-backed): it reports no size, so a node draws and collides with it like an
    /// endless generator, and stores only the regions someone edited.
    pub endless: bool,
}

/// Samples a side an endless map spans, centred on the origin: ±8,388,608 samples, more than a float
/// position can place to a centimetre (a float's step is 1 m at 8,388,608 m, and Godot's physics and
/// rendering use floats), so the bound is never the one a game meets.
pub const ENDLESS_SIDE: usize = 1 << 24;

/// The region sizes a map takes: a power of two in [16, 4096] samples a side.
pub fn check_region_size(region: usize) -> Result<(), RegionError> {
    if !(region.is_power_of_two() && (16..=4096).contains(&region)) {
        return invalid(format!(
            "region_size must be a power of two in [16, 4096], got {region}"
        ));
    }
    Ok(())
}

impl RegionMeta {
    pub fn new(
        width: usize,
        depth: usize,
        spacing: f64,
        region: usize,
    ) -> Result<Self, RegionError> {
        check_region_size(region)?;
        if width < 2 || depth < 2 || width > 1 << 24 || depth > 1 << 24 {
            return invalid(format!(
                "size must be in [2, 16777216] a side, got {width} x {depth}"
            ));
        }
        // One spacing rule for every source (a map saved from any valid TerrainData opens).
        crate::terrain_data::check_spacing(spacing)?;
        let mut mips = 1;
        while width.max(depth).div_ceil(1 << (mips - 1)) > region {
            mips += 1;
        }
        Ok(Self {
            width,
            depth,
            spacing,
            region,
            mips,
            range: (0.0, 0.0),
            has_control: false,
            origin: [0, 0],
            endless: false,
        })
    }

    /// An endless map's layout: `ENDLESS_SIDE`² samples centred on the origin.
    pub fn endless(spacing: f64, region: usize) -> Result<Self, RegionError> {
        let mut m = Self::new(ENDLESS_SIDE, ENDLESS_SIDE, spacing, region)?;
        m.origin = [-(ENDLESS_SIDE as i64 / 2); 2];
        m.endless = true;
        Ok(m)
    }

    /// The stored index of sample `p` (query coordinates) on axis `a`.
    pub fn stored(&self, a: usize, p: i64) -> i64 {
        p - self.origin[a]
    }

    /// The samples whose data (height or slopes) an edit of stored rectangle (x, z, w, d) changed, in query
    /// coordinates: the rectangle grown by the one sample a slope reads, kept inside the map (what
    /// `TerrainData`'s edits report too, so windows and collision refresh the slopes beside an edit).
    pub fn changed_rect(&self, x: usize, z: usize, w: usize, d: usize) -> SampleRect {
        let (x0, z0) = (x.saturating_sub(1), z.saturating_sub(1));
        let (x1, z1) = ((x + w + 1).min(self.width), (z + d + 1).min(self.depth));
        SampleRect {
            x: self.public(0, x0),
            z: self.public(1, z0),
            w: x1.saturating_sub(x0),
            d: z1.saturating_sub(z0),
        }
    }

    /// The query coordinate of stored sample `s` on axis `a`.
    pub fn public(&self, a: usize, s: usize) -> i64 {
        s as i64 + self.origin[a]
    }

    /// Samples per side of mip level `m`.
    pub fn mip_size(&self, m: u32) -> [usize; 2] {
        [self.width.div_ceil(1 << m), self.depth.div_ceil(1 << m)]
    }

    /// Regions per side of mip level `m`.
    pub fn regions(&self, m: u32) -> [usize; 2] {
        self.mip_size(m).map(|s| s.div_ceil(self.region))
    }

    /// Samples per side of region (rx, rz) of mip `m`.
    pub(super) fn region_dims(&self, m: u32, rx: usize, rz: usize) -> [usize; 2] {
        let [w, d] = self.mip_size(m);
        [
            (w - rx * self.region).min(self.region),
            (d - rz * self.region).min(self.region),
        ]
    }

    /// The header's text (`files` writes it, last and safely).
    pub(super) fn to_text(self) -> String {
        let text = format!(
            "{MAGIC}\nwidth {}\ndepth {}\nspacing {:?}\nregion {}\nmips {}\nrange {:?} {:?}\ncontrol {}\n",
            self.width,
            self.depth,
            self.spacing,
            self.region,
            self.mips,
            self.range.0,
            self.range.1,
            u8::from(self.has_control)
        );
        // Only endless maps say where they start: older readers open every other map unchanged.
        if self.endless {
            format!(
                "{text}endless 1\norigin {} {}\n",
                self.origin[0], self.origin[1]
            )
        } else {
            text
        }
    }

    /// Parses a header's `bytes`, read from `path` (named in errors).
    pub(super) fn parse(bytes: Vec<u8>, path: &Path) -> Result<Self, RegionError> {
        let bad = |what: &str| RegionError::Damaged(format!("{}: {what}", path.display()));
        let text = String::from_utf8(bytes).map_err(|_| bad("not text: the header is damaged"))?;
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(bad(&format!("not a region folder header (want `{MAGIC}`)")));
        }
        let mut kv = HashMap::new();
        for l in lines {
            if let Some((k, v)) = l.split_once(' ') {
                kv.insert(k.to_string(), v.to_string());
            }
        }
        let get = |k: &str| kv.get(k).ok_or_else(|| bad(&format!("missing `{k}`")));
        let num = |k: &str| -> Result<f64, RegionError> {
            get(k)?
                .parse::<f64>()
                .map_err(|_| bad(&format!("`{k}` is not a number")))
        };
        let int = |k: &str| -> Result<usize, RegionError> {
            get(k)?
                .parse::<usize>()
                .map_err(|_| bad(&format!("`{k}` is not a whole number")))
        };
        let mut meta = Self::new(
            int("width")?,
            int("depth")?,
            num("spacing")?,
            int("region")?,
        )
        .map_err(|e| bad(e.message()))?;
        if int("mips")? != meta.mips as usize {
            return Err(bad("`mips` does not match the size and region size"));
        }
        let r: Vec<f32> = get("range")?
            .split(' ')
            .filter_map(|v| v.parse().ok())
            .collect();
        if r.len() != 2 || !r.iter().all(|v| v.is_finite()) {
            return Err(bad("`range` must be two finite numbers"));
        }
        meta.range = (r[0], r[1]);
        meta.has_control = int("control")? == 1;
        if kv.contains_key("endless") {
            if int("endless")? != 1 || (meta.width, meta.depth) != (ENDLESS_SIDE, ENDLESS_SIDE) {
                return Err(bad("`endless` must be 1, with a size of 16777216 a side"));
            }
            let o: Vec<i64> = get("origin")?
                .split(' ')
                .filter_map(|v| v.parse().ok())
                .collect();
            let half = -(ENDLESS_SIDE as i64 / 2);
            if o != [half, half] {
                return Err(bad(&format!("`origin` must be {half} {half}")));
            }
            meta.origin = [half, half];
            meta.endless = true;
        }
        Ok(meta)
    }
}
