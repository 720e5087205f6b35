//! Rectangles of samples: `SampleRect` in a source's own coordinates, signed (an endless source's samples
//! lie on both sides of the origin: what an edit marks for the windows and collision to follow), and
//! `Region`, its unsigned view inside one grid (a TerrainData's rows and columns).

/// A rectangle of samples inside one grid: x, z, width, depth (the unsigned view of a `SampleRect`).
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

    /// The smallest region holding both (edits accumulated between two frames): `SampleRect::union`.
    pub fn union(self, other: Region) -> Region {
        let u = SampleRect::from(self).union(other.into());
        Region {
            x: u.x as usize,
            z: u.z as usize,
            w: u.w,
            d: u.d,
        }
    }
}

/// A rectangle of samples in a source's own (query) coordinates: signed, as an endless source's samples
/// lie on both sides of the origin. What an edit marks for the windows and collision to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SampleRect {
    pub x: i64,
    pub z: i64,
    pub w: usize,
    pub d: usize,
}

impl SampleRect {
    pub fn is_empty(&self) -> bool {
        self.w == 0 || self.d == 0
    }

    /// The overlap of both (empty when they do not meet).
    pub fn intersect(self, other: SampleRect) -> SampleRect {
        let x0 = self.x.max(other.x);
        let z0 = self.z.max(other.z);
        let x1 = (self.x + self.w as i64).min(other.x + other.w as i64);
        let z1 = (self.z + self.d as i64).min(other.z + other.d as i64);
        if x1 <= x0 || z1 <= z0 {
            return SampleRect::default();
        }
        SampleRect {
            x: x0,
            z: z0,
            w: (x1 - x0) as usize,
            d: (z1 - z0) as usize,
        }
    }

    /// The rectangle grown by `n` samples on every side (a margin around an edit).
    pub fn grown(self, n: usize) -> SampleRect {
        SampleRect {
            x: self.x - n as i64,
            z: self.z - n as i64,
            w: self.w + 2 * n,
            d: self.d + 2 * n,
        }
    }

    /// The smallest rectangle holding both (edits accumulated between two frames).
    pub fn union(self, other: SampleRect) -> SampleRect {
        if self.is_empty() {
            return other;
        }
        if other.is_empty() {
            return self;
        }
        let (x0, z0) = (self.x.min(other.x), self.z.min(other.z));
        let x1 = (self.x + self.w as i64).max(other.x + other.w as i64);
        let z1 = (self.z + self.d as i64).max(other.z + other.d as i64);
        SampleRect {
            x: x0,
            z: z0,
            w: (x1 - x0) as usize,
            d: (z1 - z0) as usize,
        }
    }
}

impl From<Region> for SampleRect {
    fn from(r: Region) -> Self {
        Self {
            x: r.x as i64,
            z: r.z as i64,
            w: r.w,
            d: r.d,
        }
    }
}
