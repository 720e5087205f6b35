//! Geometry clipmaps (Losasso & Hoppe 2004; Asirvatham & Hoppe, GPU Gems 2): camera-centred rings of detail, each level
//! twice as coarse as the one inside it, built from a few meshes shared by every level.
//!
//! Units: a level's meshes are made in its own lattice units (one unit = one quad) and placed with
//! `origin + position * scale`, `scale = vertex_spacing * 2^level`. With `N = tile_resolution`:
//! - a level's *core* is a (4N+1)² square of 4×4 tiles of N² quads with a one-quad filler cross between tile
//!   columns/rows 1 and 2; levels above 0 leave the (2N+1)² middle open for the finer level;
//! - an L-shaped *trim* of one quad on two sides makes the level (4N+2)² units, exactly the hole of the next
//!   coarser level; which two sides is chosen by two bits (the core sits at the low or high end of the hole on
//!   each axis, see `layout`);
//! - a *seam* of zero-area triangles along the (4N+2)² border joins every odd fine vertex to its two even
//!   neighbours, which are the coarser level's vertices: the union of all levels has no T-junction.
//!
//! Each level is snapped to multiples of its own scale, so vertices never slide over the terrain.
//! Every quad is split along the same diagonal (low-low to high-high corner) in every mesh and level, which the
//! shader's geomorphing relies on.

use std::fmt;

/// Largest `levels`.
pub const MAX_LEVELS: u32 = 16;
/// Accepted `tile_resolution` range (quads per tile side; even).
pub const MIN_TILE_RESOLUTION: u32 = 2;
pub const MAX_TILE_RESOLUTION: u32 = 256;

#[derive(Clone, Debug, PartialEq)]
pub enum ClipmapError {
    TileResolution(i64),
    Levels(i64),
    VertexSpacing(f64),
}

impl std::error::Error for ClipmapError {}

impl fmt::Display for ClipmapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TileResolution(v) => write!(
                f,
                "tile_resolution must be an even number in [{MIN_TILE_RESOLUTION}, {MAX_TILE_RESOLUTION}], got {v}"
            ),
            Self::Levels(v) => write!(f, "levels must be in [1, {MAX_LEVELS}], got {v}"),
            Self::VertexSpacing(v) => write!(f, "vertex_spacing must be a number in [0.001, 10000], got {v}"),
        }
    }
}

/// Validated clipmap parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipmapConfig {
    tile_resolution: u32,
    levels: u32,
    vertex_spacing: f64,
}

impl ClipmapConfig {
    pub fn new(
        tile_resolution: i64,
        levels: i64,
        vertex_spacing: f64,
    ) -> Result<Self, ClipmapError> {
        let n_ok = (i64::from(MIN_TILE_RESOLUTION)..=i64::from(MAX_TILE_RESOLUTION))
            .contains(&tile_resolution)
            && tile_resolution % 2 == 0;
        if !n_ok {
            return Err(ClipmapError::TileResolution(tile_resolution));
        }
        if !(1..=i64::from(MAX_LEVELS)).contains(&levels) {
            return Err(ClipmapError::Levels(levels));
        }
        // From a millimetre: smaller steps underflow the shader's f32 lattice maths at coarse levels' scale.
        if !(1.0e-3..=1.0e4).contains(&vertex_spacing) {
            return Err(ClipmapError::VertexSpacing(vertex_spacing));
        }
        Ok(Self {
            tile_resolution: tile_resolution as u32,
            levels: levels as u32,
            vertex_spacing,
        })
    }
    pub fn tile_resolution(&self) -> u32 {
        self.tile_resolution
    }
    pub fn levels(&self) -> u32 {
        self.levels
    }
    pub fn vertex_spacing(&self) -> f64 {
        self.vertex_spacing
    }
    pub fn scale(&self, level: u32) -> f64 {
        self.vertex_spacing * f64::from(1u32 << level)
    }
    /// Distance from the target to the nearest edge of the outermost level, at least (world units).
    pub fn reach(&self) -> f64 {
        let n = f64::from(self.tile_resolution);
        (2.0 * n) * self.scale(self.levels - 1)
    }
    /// Number of placed pieces per frame (see `layout`).
    pub fn piece_count(&self) -> usize {
        let l = self.levels as usize;
        // Level 0: 16 tiles + cross; others: 12 tiles + filler; every level but the last: trim + seam.
        17 + 13 * (l - 1) + 2 * (l - 1)
    }
}

/// A flat mesh in lattice units: positions (x, z) and triangle indices (clockwise seen from +Y).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PieceMesh {
    pub positions: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
}

impl PieceMesh {
    /// Quads over the given unit cells (x0, z0, w, d): a (w+1)×(d+1) grid appended to this mesh.
    fn add_grid(&mut self, x0: i32, z0: i32, w: u32, d: u32) {
        let base = self.positions.len() as u32;
        for j in 0..=d {
            for i in 0..=w {
                self.positions
                    .push([(x0 + i as i32) as f32, (z0 + j as i32) as f32]);
            }
        }
        let row = w + 1;
        for j in 0..d {
            for i in 0..w {
                let a = base + j * row + i; // (i, j)
                let b = a + 1; // (i+1, j)
                let c = a + row; // (i, j+1)
                let e = c + 1; // (i+1, j+1)
                               // Diagonal a–e; clockwise seen from +Y (Godot's front face), as the wandering mesh.
                self.indices.extend_from_slice(&[a, b, e, a, e, c]);
            }
        }
    }
}

/// Which shared mesh a placed piece uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceKind {
    Tile,
    /// The full filler cross of level 0.
    Cross,
    /// The filler cross of an outer level, without its middle (which lies in the hole).
    Filler,
    /// The L-shaped trim; `bits` = x bit | z bit << 1 (a set bit: the trim is on that axis's low side).
    Trim(u8),
    Seam,
}

/// All shared meshes of a clipmap with tile resolution N.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipmapMeshes {
    pub tile: PieceMesh,
    pub cross: PieceMesh,
    pub filler: PieceMesh,
    pub trims: [PieceMesh; 4],
    pub seam: PieceMesh,
}

impl ClipmapMeshes {
    pub fn get(&self, kind: PieceKind) -> &PieceMesh {
        match kind {
            PieceKind::Tile => &self.tile,
            PieceKind::Cross => &self.cross,
            PieceKind::Filler => &self.filler,
            PieceKind::Trim(b) => &self.trims[b as usize & 3],
            PieceKind::Seam => &self.seam,
        }
    }
}

/// Builds the shared meshes. Tiles are placed at their own corner; cross, filler and trims at the level's core
/// origin; the seam at the level's outer (4N+2)² square origin.
pub fn build_meshes(cfg: &ClipmapConfig) -> ClipmapMeshes {
    let n = cfg.tile_resolution as i32;
    let nu = n as u32;
    let mut tile = PieceMesh::default();
    tile.add_grid(0, 0, nu, nu);

    let m = 2 * n; // the filler column / row index
    let full = 4 * nu + 1;
    let mut cross = PieceMesh::default();
    cross.add_grid(m, 0, 1, full);
    cross.add_grid(0, m, 2 * nu, 1);
    cross.add_grid(m + 1, m, 2 * nu, 1);

    let mut filler = PieceMesh::default();
    filler.add_grid(m, 0, 1, nu);
    filler.add_grid(m, 3 * n + 1, 1, nu);
    filler.add_grid(0, m, nu, 1);
    filler.add_grid(3 * n + 1, m, nu, 1);

    let trims = [0u8, 1, 2, 3].map(|bits| {
        let low_x = bits & 1 != 0;
        let low_z = bits & 2 != 0;
        let col_x = if low_x { -1 } else { 4 * n + 1 };
        let row_z = if low_z { -1 } else { 4 * n + 1 };
        let z0 = if low_z { -1 } else { 0 };
        let mut t = PieceMesh::default();
        // The column spans the whole outer square on Z; the row the core's width on X.
        t.add_grid(col_x, z0, 1, 4 * nu + 2);
        t.add_grid(0, row_z, 4 * nu + 1, 1);
        t
    });

    // Seam: walk the border of the (4N+2)² square; each triangle joins two even border vertices (the coarser
    // level's) through the odd one between them. Both windings, so it covers the crack from either side.
    let side = 4 * n + 2;
    let mut border = Vec::new();
    for i in 0..side {
        border.push([i, 0]);
    }
    for j in 0..side {
        border.push([side, j]);
    }
    for i in (1..=side).rev() {
        border.push([i, side]);
    }
    for j in (1..=side).rev() {
        border.push([0, j]);
    }
    let mut seam = PieceMesh {
        positions: border.iter().map(|p| [p[0] as f32, p[1] as f32]).collect(),
        indices: vec![],
    };
    let count = border.len() as u32;
    for k in (0..count).step_by(2) {
        let (a, b, c) = (k, k + 1, (k + 2) % count);
        seam.indices.extend_from_slice(&[a, b, c, a, c, b]);
    }
    ClipmapMeshes {
        tile,
        cross,
        filler,
        trims,
        seam,
    }
}

/// One piece placed for a frame: world X/Z of its local origin and its scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedPiece {
    pub kind: PieceKind,
    pub level: u32,
    pub origin: [f64; 2],
    pub scale: f64,
}

impl Default for PlacedPiece {
    fn default() -> Self {
        Self {
            kind: PieceKind::Tile,
            level: 0,
            origin: [0.0; 2],
            scale: 1.0,
        }
    }
}

/// Places every piece for a target at world X/Z `target` into `out` (`piece_count()` long); no allocation.
pub fn layout(cfg: &ClipmapConfig, target: [f64; 2], out: &mut [PlacedPiece]) {
    assert_eq!(out.len(), cfg.piece_count(), "layout buffer length");
    let target = target.map(|t| if t.is_finite() { t } else { 0.0 });
    let n = f64::from(cfg.tile_resolution);
    let mut k = 0;
    let mut put = |kind, level, origin: [f64; 2], scale| {
        out[k] = PlacedPiece {
            kind,
            level,
            origin,
            scale,
        };
        k += 1;
    };
    for level in 0..cfg.levels {
        let u = cfg.scale(level);
        // Lattice index of the target's quad, and the core origin: the target sits in the filler cross.
        let m = target.map(|t| (t / u).floor());
        let a = m.map(|m| (m - 2.0 * n) * u);
        for ty in 0..4 {
            for tx in 0..4 {
                if level > 0 && (1..=2).contains(&tx) && (1..=2).contains(&ty) {
                    continue;
                }
                let off = |t: i32| (f64::from(t) * n + if t >= 2 { 1.0 } else { 0.0 }) * u;
                put(PieceKind::Tile, level, [a[0] + off(tx), a[1] + off(ty)], u);
            }
        }
        put(
            if level == 0 {
                PieceKind::Cross
            } else {
                PieceKind::Filler
            },
            level,
            a,
            u,
        );
        if level + 1 < cfg.levels {
            // Odd index: the core sits at the high end of the coarser hole, the trim on the low side.
            let odd = m.map(|m| m.rem_euclid(2.0) != 0.0);
            let bits = u8::from(odd[0]) | (u8::from(odd[1]) << 1);
            put(PieceKind::Trim(bits), level, a, u);
            let outer = [
                a[0] - if odd[0] { u } else { 0.0 },
                a[1] - if odd[1] { u } else { 0.0 },
            ];
            put(PieceKind::Seam, level, outer, u);
        }
    }
    debug_assert_eq!(k, out.len());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_property() {
        assert!(ClipmapConfig::new(3, 4, 1.0)
            .unwrap_err()
            .to_string()
            .contains("tile_resolution"));
        assert!(ClipmapConfig::new(0, 4, 1.0).is_err());
        assert!(ClipmapConfig::new(8, 0, 1.0)
            .unwrap_err()
            .to_string()
            .contains("levels"));
        assert!(ClipmapConfig::new(8, 17, 1.0).is_err());
        assert!(ClipmapConfig::new(8, 4, f64::NAN)
            .unwrap_err()
            .to_string()
            .contains("vertex_spacing"));
        assert!(ClipmapConfig::new(8, 4, 1.0).is_ok());
    }

    #[test]
    fn layout_fills_the_buffer() {
        let cfg = ClipmapConfig::new(8, 5, 0.5).unwrap();
        let mut out = vec![PlacedPiece::default(); cfg.piece_count()];
        layout(&cfg, [12.3, -40.7], &mut out);
        assert_eq!(
            out.iter().filter(|p| p.kind == PieceKind::Tile).count(),
            16 + 12 * 4
        );
        assert_eq!(out.iter().filter(|p| p.kind == PieceKind::Seam).count(), 4);
    }
}
