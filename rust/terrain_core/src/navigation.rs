//! Navigation faces: the terrain's surface in an area as triangles for a navigation-mesh bake (Recast
//! voxelises them). Vertices sit on the drawn surface at the sample centres; triangles with a hole follow
//! the drawing and collision rule (the square between four samples split along its (x + 1, z)–(x, z + 1)
//! diagonal, a triangle open where the hole test at its centre says so) and are left out.
//!
//! Flat ground is simplified with a quadtree: a square block of sample squares without holes becomes two
//! triangles when every sample in it lies within `tolerance` of them (the navigation mesh's cell height,
//! below which the voxels cannot tell the difference); otherwise it splits in four. A block's corners are
//! on the surface, so neighbouring blocks of different sizes meet within the tolerance.

use crate::samples::Samples;
use rayon::prelude::*;

/// The largest block side (sample squares) simplification merges.
pub const MAX_BLOCK: usize = 64;
/// The most samples an area may hold (16384²): a bigger bake must be split into tiles.
pub const MAX_SAMPLES: u64 = 1 << 28;

/// Triangles on the surface: shared vertices (terrain space) and three indices a triangle, in Godot's
/// clockwise winding seen from above (what `NavigationMeshSourceGeometryData3D.add_faces` takes; Recast's
/// own order, for `append_arrays`, swaps the last two).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Faces {
    /// Terrain X/Z the vertices are relative to (the first sample's centre), so they stay exact in f32
    /// however far out the area is.
    pub origin: [f64; 2],
    /// Relative to `origin` on X/Z; heights as they are.
    pub vertices: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
    /// Triangles before simplification (the area's open sample triangles).
    pub full: usize,
}

impl Faces {
    pub fn triangles(&self) -> usize {
        self.indices.len() / 3
    }

    /// A vertex in terrain space, exactly (f64).
    pub fn vertex(&self, i: usize) -> [f64; 3] {
        let v = self.vertices[i];
        [
            self.origin[0] + f64::from(v[0]),
            f64::from(v[1]),
            self.origin[1] + f64::from(v[2]),
        ]
    }

    /// Every triangle's three vertices in turn, in terrain space.
    pub fn corners(&self) -> impl Iterator<Item = [f64; 3]> + '_ {
        self.indices.iter().map(|&i| self.vertex(i as usize))
    }
}

/// Why faces cannot be made.
#[derive(Debug, Clone, PartialEq)]
pub enum NavigationError {
    /// The area holds more samples than `MAX_SAMPLES`.
    TooLarge(u64),
    Tolerance(f32),
}

impl std::fmt::Display for NavigationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge(n) => write!(
                f,
                "the bake area holds {n} terrain samples, over the {MAX_SAMPLES} one bake can take; bake it in tiles (a smaller filter_baking_aabb)"
            ),
            Self::Tolerance(t) => write!(f, "the tolerance must be finite and ≥ 0, got {t}"),
        }
    }
}

impl std::error::Error for NavigationError {}

/// The surface's faces over terrain rectangle [x0, x1] × [z0, z1] (the samples whose centres lie in it;
/// a finite grid's area is clipped to it), simplified to `tolerance`.
pub fn faces<S: Samples + ?Sized>(
    s: &S,
    min: [f64; 2],
    max: [f64; 2],
    tolerance: f32,
) -> Result<Faces, NavigationError> {
    if !(tolerance.is_finite() && tolerance >= 0.0) {
        return Err(NavigationError::Tolerance(tolerance));
    }
    let sp = s.spacing();
    let first = |v: f64| (v / sp - 0.5).ceil();
    let last = |v: f64| (v / sp - 0.5).floor();
    let (mut i0, mut i1) = (first(min[0]), last(max[0]));
    let (mut j0, mut j1) = (first(min[1]), last(max[1]));
    if let Some([w, d]) = s.size() {
        i0 = i0.max(0.0);
        j0 = j0.max(0.0);
        i1 = i1.min(w as f64 - 1.0);
        j1 = j1.min(d as f64 - 1.0);
    }
    if !(i1 > i0 && j1 > j0) || [i0, i1, j0, j1].iter().any(|v| !v.is_finite()) {
        return Ok(Faces::default());
    }
    let samples = (i1 - i0 + 1.0) * (j1 - j0 + 1.0);
    if samples > MAX_SAMPLES as f64 {
        return Err(NavigationError::TooLarge(samples as u64));
    }
    let (i0, j0) = (i0 as i64, j0 as i64);
    let (w, d) = ((i1 as i64 - i0 + 1) as usize, (j1 as i64 - j0 + 1) as usize);
    let grid = Grid::read(s, [i0, j0], w, d);
    let mut blocks = Vec::new();
    for bz in (0..d - 1).step_by(MAX_BLOCK) {
        for bx in (0..w - 1).step_by(MAX_BLOCK) {
            blocks.push((bx, bz));
        }
    }
    // Each block gives grid points (z × w + x), three a triangle; they become shared vertices.
    let parts: Vec<Vec<u32>> = blocks
        .par_iter()
        .map(|&(bx, bz)| {
            let mut out = Vec::new();
            grid.block(bx, bz, MAX_BLOCK, tolerance, &mut out);
            out
        })
        .collect();
    let mut index_of = vec![u32::MAX; w * d];
    let mut vertices = Vec::new();
    let mut indices = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for p in parts {
        for g in p {
            let slot = &mut index_of[g as usize];
            if *slot == u32::MAX {
                *slot = vertices.len() as u32;
                let (x, z) = (g as usize % w, g as usize / w);
                // Sample (i, j) sits at ((i + 0.5), (j + 0.5)) × spacing: relative to the first one.
                vertices.push([(x as f64 * sp) as f32, grid.h(x, z), (z as f64 * sp) as f32]);
            }
            indices.push(*slot);
        }
    }
    Ok(Faces {
        origin: [
            crate::samples::sample_centre(i0 as f64, sp),
            crate::samples::sample_centre(j0 as f64, sp),
        ],
        vertices,
        indices,
        full: grid.open_triangles(),
    })
}

/// Heights at the sample centres and the hole triangles of a rectangle of samples.
struct Grid {
    w: usize,
    d: usize,
    heights: Vec<f32>,
    /// Per sample square (w - 1 by d - 1): bit 0 its lower triangle (x, z)(x + 1, z)(x, z + 1) is a hole,
    /// bit 1 its upper one.
    holes: Vec<u8>,
    /// Summed-area table of squares with a hole, (w) × (d) with a zero row and column.
    hole_sums: Vec<u32>,
}

impl Grid {
    fn read<S: Samples + ?Sized>(s: &S, o: [i64; 2], w: usize, d: usize) -> Self {
        let rows: Vec<(Vec<f32>, Vec<u8>)> = (0..d)
            .into_par_iter()
            .map(|z| {
                let sz = (o[1] + z as i64) as f64;
                // A patch's corners interpolate the samples (`bezier_patch`): the surface at a sample
                // centre is the sample's height.
                let h: Vec<f32> = (0..w)
                    .map(|x| s.texel(o[0] + x as i64, o[1] + z as i64)[0])
                    .collect();
                let holes: Vec<u8> = if z + 1 < d {
                    (0..w - 1)
                        .map(|x| {
                            let sx = (o[0] + x as i64) as f64;
                            let lower = s.is_hole_at_sample(sx + 1.0 / 3.0, sz + 1.0 / 3.0);
                            let upper = s.is_hole_at_sample(sx + 2.0 / 3.0, sz + 2.0 / 3.0);
                            u8::from(lower) | (u8::from(upper) << 1)
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                (h, holes)
            })
            .collect();
        let mut heights = Vec::with_capacity(w * d);
        let mut holes = Vec::with_capacity((w - 1) * (d - 1));
        for (h, o) in rows {
            heights.extend(h);
            holes.extend(o);
        }
        let mut hole_sums = vec![0u32; w * d];
        for z in 0..d - 1 {
            for x in 0..w - 1 {
                let v = u32::from(holes[z * (w - 1) + x] != 0);
                hole_sums[(z + 1) * w + x + 1] =
                    v + hole_sums[z * w + x + 1] + hole_sums[(z + 1) * w + x]
                        - hole_sums[z * w + x];
            }
        }
        Self {
            w,
            d,
            heights,
            holes,
            hole_sums,
        }
    }

    fn h(&self, x: usize, z: usize) -> f32 {
        self.heights[z * self.w + x]
    }

    /// Squares with a hole in squares [x, x + n) × [z, z + m).
    fn holes_in(&self, x: usize, z: usize, n: usize, m: usize) -> u32 {
        let s = |x: usize, z: usize| self.hole_sums[z * self.w + x];
        s(x + n, z + m) + s(x, z) - s(x + n, z) - s(x, z + m)
    }

    fn open_triangles(&self) -> usize {
        self.holes
            .iter()
            .map(|&h| 2 - (h & 1) as usize - (h >> 1) as usize)
            .sum()
    }

    /// Faces of the block of `n` × `n` squares at square (x, z) (clipped to the grid: a rectangle at its
    /// edges), merged where flat.
    fn block(&self, x: usize, z: usize, n: usize, tol: f32, out: &mut Vec<u32>) {
        let (sw, sd) = (self.w - 1, self.d - 1);
        if x >= sw || z >= sd {
            return;
        }
        let (nx, nz) = (n.min(sw - x), n.min(sd - z));
        if n == 1 {
            let hole = self.holes[z * sw + x];
            self.quad(x, z, [1, 1], hole, out);
            return;
        }
        if self.holes_in(x, z, nx, nz) == 0 && self.flat(x, z, [nx, nz], tol) {
            self.quad(x, z, [nx, nz], 0, out);
            return;
        }
        let h = n / 2;
        for (dx, dz) in [(0, 0), (h, 0), (0, h), (h, h)] {
            self.block(x + dx, z + dz, h, tol, out);
        }
    }

    /// Whether every sample of the block lies within `tol` of its two corner triangles.
    fn flat(&self, x: usize, z: usize, [nx, nz]: [usize; 2], tol: f32) -> bool {
        let (a, b) = (self.h(x, z), self.h(x + nx, z));
        let (c, e) = (self.h(x, z + nz), self.h(x + nx, z + nz));
        if ![a, b, c, e].iter().all(|v| v.is_finite()) {
            return false;
        }
        for dz in 0..=nz {
            for dx in 0..=nx {
                let (u, v) = (dx as f32 / nx as f32, dz as f32 / nz as f32);
                // The same diagonal as the sample squares: (x + n, z)–(x, z + n).
                let plane = if u + v <= 1.0 {
                    a + (b - a) * u + (c - a) * v
                } else {
                    e + (c - e) * (1.0 - u) + (b - e) * (1.0 - v)
                };
                let h = self.h(x + dx, z + dz);
                let e = (h - plane).abs();
                if e.is_nan() || e > tol {
                    return false;
                }
            }
        }
        true
    }

    /// The two triangles of the `nx` × `nz`-square quad at (x, z), less those marked in `hole`, as grid
    /// points.
    fn quad(&self, x: usize, z: usize, [nx, nz]: [usize; 2], hole: u8, out: &mut Vec<u32>) {
        let v = |dx: usize, dz: usize| ((z + dz) * self.w + x + dx) as u32;
        if hole & 1 == 0 {
            out.extend([v(0, 0), v(nx, 0), v(0, nz)]);
        }
        if hole & 2 == 0 {
            out.extend([v(nx, 0), v(nx, nz), v(0, nz)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::HOLE;
    use crate::samples::height_at;
    use crate::terrain_data::TerrainData;

    fn hills(n: usize) -> TerrainData {
        crate::test_terrains::Waves {
            x: (0.09, 5.0),
            z: (0.05, 3.0),
            jitter: (1, 0.0),
        }
        .terrain(n, n, 1.0)
    }

    #[test]
    fn faces_lie_on_the_surface_and_wind_clockwise_from_above() {
        let t = hills(129);
        let f = faces(&t, [0.0, 0.0], [128.0, 128.0], 0.0).unwrap();
        // No simplification at tolerance 0 on curved ground: every triangle between the 128² sample centres.
        assert_eq!(f.triangles(), f.full);
        assert_eq!(f.full, 127 * 127 * 2);
        let corners: Vec<[f32; 3]> = f.corners().map(|v| v.map(|c| c as f32)).collect();
        for tri in corners.chunks(3) {
            for v in tri {
                let h = height_at(&t, f64::from(v[0]), f64::from(v[2]));
                assert!((h - v[1]).abs() < 1e-4, "{v:?} vs {h}");
            }
            let (a, b, c) = (tri[0], tri[1], tri[2]);
            let e1 = [b[0] - a[0], b[2] - a[2]];
            let e2 = [c[0] - a[0], c[2] - a[2]];
            // Clockwise seen from above (x right, z down on the screen): a positive 2D cross product.
            assert!(e1[0] * e2[1] - e1[1] * e2[0] > 0.0);
        }
    }

    #[test]
    fn flat_ground_is_merged_and_stays_within_the_tolerance() {
        let n = 257;
        // Flat but for a bump in one corner.
        let h = (0..n * n)
            .map(|i| {
                let (x, z) = ((i % n) as f32, (i / n) as f32);
                let r = ((x - 40.0).powi(2) + (z - 40.0).powi(2)).sqrt();
                3.0 + (6.0 - r * 0.4).max(0.0)
            })
            .collect();
        let t = TerrainData::from_heights(n, n, 1.0, h).unwrap();
        let f = faces(&t, [0.0, 0.0], [256.0, 256.0], 0.25).unwrap();
        assert!(
            f.triangles() > 0 && f.triangles() * 20 < f.full,
            "{} of {}",
            f.triangles(),
            f.full
        );
        // Every sample lies within the tolerance of the triangle over it, and the triangles cover the
        // area: each of its 257² samples is compared at least once (shared edges more often).
        let (mut worst, mut compared) = (0.0f32, 0usize);
        let corners: Vec<[f32; 3]> = f.corners().map(|v| v.map(|c| c as f32)).collect();
        for tri in corners.chunks(3) {
            let (a, b, c) = (tri[0], tri[1], tri[2]);
            let (x0, x1) = (a[0].min(b[0]).min(c[0]), a[0].max(b[0]).max(c[0]));
            let (z0, z1) = (a[2].min(b[2]).min(c[2]), a[2].max(b[2]).max(c[2]));
            let mut z = z0;
            while z <= z1 {
                let mut x = x0;
                while x <= x1 {
                    // Barycentric weights.
                    let det = (b[2] - c[2]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[2] - c[2]);
                    let l1 = ((b[2] - c[2]) * (x - c[0]) + (c[0] - b[0]) * (z - c[2])) / det;
                    let l2 = ((c[2] - a[2]) * (x - c[0]) + (a[0] - c[0]) * (z - c[2])) / det;
                    let l3 = 1.0 - l1 - l2;
                    if l1 >= -1e-4 && l2 >= -1e-4 && l3 >= -1e-4 {
                        let plane = l1 * a[1] + l2 * b[1] + l3 * c[1];
                        let h = height_at(&t, f64::from(x), f64::from(z));
                        let e = (h - plane).abs();
                        // NaN-safe: f32::max would drop a NaN error.
                        worst = if e.is_nan() {
                            f32::INFINITY
                        } else {
                            worst.max(e)
                        };
                        compared += 1;
                    }
                    x += 1.0;
                }
                z += 1.0;
            }
        }
        assert!(worst <= 0.25 + 1e-4, "worst {worst}");
        assert!(
            compared >= n * n,
            "{compared} samples compared, want ≥ {}",
            n * n
        );
    }

    #[test]
    fn hole_triangles_are_left_out_and_the_area_is_clipped() {
        let mut t = hills(65);
        let mut control = vec![0u32; 65 * 65];
        for z in 20..30 {
            for x in 20..30 {
                control[z * 65 + x] = HOLE;
            }
        }
        t.set_control_map(control).unwrap();
        let f = faces(&t, [0.0, 0.0], [64.0, 64.0], 0.1).unwrap();
        let corners: Vec<[f32; 3]> = f.corners().map(|v| v.map(|c| c as f32)).collect();
        for tri in corners.chunks(3) {
            let cx = (tri[0][0] + tri[1][0] + tri[2][0]) / 3.0;
            let cz = (tri[0][2] + tri[1][2] + tri[2][2]) / 3.0;
            let sp = (f64::from(cx) - 0.5, f64::from(cz) - 0.5);
            assert!(
                !t.is_hole_at_sample(sp.0, sp.1),
                "a face over the hole at {cx}, {cz}"
            );
        }
        assert!(f.full < 64 * 64 * 2);
        // An area: only samples whose centres are inside it.
        let part = faces(&t, [10.0, 10.0], [20.0, 15.0], 0.0).unwrap();
        assert!((0..part.vertices.len())
            .map(|i| part.vertex(i))
            .all(|v| (10.0..=20.0).contains(&v[0]) && (10.0..=15.0).contains(&v[2])));
        assert_eq!(part.full, 9 * 4 * 2);
        // Outside the terrain: nothing.
        assert!(faces(&t, [100.0, 100.0], [200.0, 200.0], 0.0)
            .unwrap()
            .vertices
            .is_empty());
    }

    #[test]
    fn bad_input_is_refused() {
        let t = hills(9);
        assert!(matches!(
            faces(&t, [0.0; 2], [8.0; 2], f32::NAN),
            Err(NavigationError::Tolerance(_))
        ));
        assert!(faces(&t, [0.0; 2], [8.0; 2], -1.0).is_err());
        let g = crate::generation::Generated::new(&crate::generation::NoiseParams::default(), 1.0)
            .unwrap();
        assert!(matches!(
            faces(&g, [0.0; 2], [1e6, 1e6], 0.1),
            Err(NavigationError::TooLarge(_))
        ));
        assert!(faces(&g, [f64::NAN, 0.0], [1.0, 1.0], 0.1)
            .unwrap()
            .vertices
            .is_empty());
    }
}
