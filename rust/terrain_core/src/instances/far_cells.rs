//! Far cells: the impostors of `factor` × `factor` instance cells drawn as one MultiMesh per mesh, so a
//! forest to the horizon costs a few hundred draw calls, not one per small cell and LOD.
//!
//! Near cells hand their last mesh LOD over to the impostor by the engine's visibility range, measured from
//! the camera to the centre of the cell's box (`cell_box`, set as the cell's custom bounds). A far cell
//! gives every impostor its small cell's box centre (the MultiMesh's custom data), and the card shader
//! shows it exactly where that centre is beyond the switch distance: the two sides meet per cell, neither
//! both nor none drawn.

use super::{draw_cell, Cell, CellKey, InstanceStore, MeshDraw};
use crate::samples::Samples;

/// Terrain units a far cell spans, about (a whole number of instance cells): few enough draw calls to
/// the horizon, and a far cell's buffer small enough to hand to the engine within a frame.
pub const FAR_CELL: f64 = 512.0;

/// Floats per impostor in a far cell's buffer: the 12 of the transform, then its small cell's box centre
/// relative to the impostor's own origin (x, y, z, terrain units; the card shader adds it to the
/// instance's world position, scaled by the terrain) and 0.
pub const FAR_FLOATS: usize = 16;

/// Instance cells per far cell side for a store's cell size.
pub fn far_factor(cell_size: f64) -> i32 {
    (FAR_CELL / cell_size).round().clamp(1.0, 1024.0) as i32
}

/// The far cell holding instance cell `k`.
pub fn far_key(k: CellKey, factor: i32) -> CellKey {
    (k.0.div_euclid(factor), k.1.div_euclid(factor))
}

/// The instance cells of far cell `far` (row by row).
pub fn small_cells(far: CellKey, factor: i32) -> impl Iterator<Item = CellKey> {
    let (x0, z0) = (
        i64::from(far.0) * i64::from(factor),
        i64::from(far.1) * i64::from(factor),
    );
    (0..i64::from(factor)).flat_map(move |dz| {
        (0..i64::from(factor)).filter_map(move |dx| {
            let (x, z) = (x0 + dx, z0 + dz);
            (i32::try_from(x).ok()?, i32::try_from(z).ok()?).into()
        })
    })
}

/// A cell's bounds for one mesh, relative to the cell's corner: the box of its instances' origins grown
/// by `reach` (the mesh's farthest point from its origin) times the largest scale. Its centre is where the
/// switch to the impostor is measured from.
pub fn cell_box(d: &MeshDraw, reach: f32) -> ([f32; 3], [f32; 3]) {
    let g = reach * d.max_scale;
    (d.lo.map(|v| v - g), d.hi.map(|v| v + g))
}

/// The centre of `cell_box` (the same for any reach).
pub fn box_centre(d: &MeshDraw) -> [f32; 3] {
    [0, 1, 2].map(|k| (d.lo[k] + d.hi[k]) * 0.5)
}

/// One far cell's impostor buffers (`FAR_FLOATS` per instance, relative to `origin`, the far cell's
/// corner) for the meshes `impostor` marks, from the instance cells `cells` (their corners and contents)
/// on surface `s`.
pub fn draw_far_cell<S: Samples + ?Sized>(
    s: &S,
    origin: [f64; 2],
    cells: &[([f64; 2], Cell)],
    impostor: &[bool],
) -> Vec<MeshDraw> {
    let mut out: Vec<MeshDraw> = Vec::new();
    for (corner, cell) in cells {
        let dx = (corner[0] - origin[0]) as f32;
        let dz = (corner[1] - origin[1]) as f32;
        for d in draw_cell(s, *corner, cell) {
            if !impostor.get(d.mesh).copied().unwrap_or(false) {
                continue;
            }
            let i = match out.iter().position(|o| o.mesh == d.mesh) {
                Some(i) => i,
                None => {
                    out.push(MeshDraw {
                        mesh: d.mesh,
                        origin,
                        buffer: Vec::new(),
                        lo: [f32::INFINITY; 3],
                        hi: [f32::NEG_INFINITY; 3],
                        max_scale: 0.0,
                    });
                    out.len() - 1
                }
            };
            let o = &mut out[i];
            let c = box_centre(&d);
            o.buffer.reserve(d.count() * FAR_FLOATS);
            for t in d.buffer.chunks_exact(12) {
                o.buffer.extend_from_slice(&[t[0], t[1], t[2], t[3] + dx]);
                o.buffer.extend_from_slice(&[t[4], t[5], t[6], t[7]]);
                o.buffer.extend_from_slice(&[t[8], t[9], t[10], t[11] + dz]);
                o.buffer
                    .extend_from_slice(&[c[0] - t[3], c[1] - t[7], c[2] - t[11], 0.0]);
            }
            let shift = [dx, 0.0, dz];
            for (k, s) in shift.into_iter().enumerate() {
                o.lo[k] = o.lo[k].min(d.lo[k] + s);
                o.hi[k] = o.hi[k].max(d.hi[k] + s);
            }
            o.max_scale = o.max_scale.max(d.max_scale);
        }
    }
    out
}

/// The instance cells of far cell `far` that hold something, with their corners (copied: a worker draws
/// them while the store is edited).
pub fn far_cell_contents(
    store: &InstanceStore,
    far: CellKey,
    factor: i32,
) -> Vec<([f64; 2], Cell)> {
    small_cells(far, factor)
        .filter_map(|k| {
            let c = store.cell(k)?;
            (!c.iter().all(Vec::is_empty)).then(|| (store.cell_area(k).min, c.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instances::Instance;
    use crate::terrain_data::TerrainData;

    #[test]
    fn far_keys_group_cells_both_sides_of_zero() {
        assert_eq!(far_factor(32.0), 16);
        assert_eq!(far_factor(4096.0), 1);
        assert_eq!(far_key((15, -1), 16), (0, -1));
        assert_eq!(far_key((16, -16), 16), (1, -1));
        assert_eq!(far_key((-17, 0), 16), (-2, 0));
        let all: Vec<CellKey> = small_cells((-1, 2), 4).collect();
        assert_eq!(all.len(), 16);
        assert!(all.iter().all(|&k| far_key(k, 4) == (-1, 2)));
    }

    #[test]
    fn a_far_cell_holds_every_impostor_with_its_cells_centre() {
        let flat = TerrainData::from_heights(200, 200, 1.0, vec![5.0; 200 * 200]).unwrap();
        let inst = |x: f32, z: f32| Instance {
            x,
            z,
            offset: 0.0,
            rot: [0, 0, 0, 32767],
            scale: [1.0; 3],
        };
        let cells = vec![
            (
                [0.0, 0.0],
                vec![vec![inst(1.0, 2.0), inst(3.0, 4.0)], vec![inst(5.0, 5.0)]],
            ),
            ([32.0, 64.0], vec![vec![inst(8.0, 9.0)]]),
        ];
        let out = draw_far_cell(&flat, [0.0, 0.0], &cells, &[true, false]);
        assert_eq!(out.len(), 1, "mesh 1 has no impostor");
        let d = &out[0];
        assert_eq!(d.buffer.len(), 3 * FAR_FLOATS);
        // Positions relative to the far corner, heights the ground's.
        let pos: Vec<[f32; 3]> = d
            .buffer
            .chunks_exact(FAR_FLOATS)
            .map(|c| [c[3], c[7], c[11]])
            .collect();
        assert_eq!(
            pos,
            vec![[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [40.0, 5.0, 73.0]]
        );
        // Each carries its own cell's centre (the first two share one), relative to itself.
        let centres: Vec<[f32; 3]> = d
            .buffer
            .chunks_exact(FAR_FLOATS)
            .zip(&pos)
            .map(|(c, p)| [c[12] + p[0], c[13] + p[1], c[14] + p[2]])
            .collect();
        assert_eq!(centres[0], [2.0, 5.0, 3.0]);
        assert_eq!(centres[1], centres[0]);
        assert_eq!(centres[2], [40.0, 5.0, 73.0]);
        assert_eq!((d.lo, d.hi), ([1.0, 5.0, 2.0], [40.0, 5.0, 73.0]));
    }
}
