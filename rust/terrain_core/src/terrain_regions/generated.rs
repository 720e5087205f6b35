//! Generator-backed region maps: a folder holding only a header (and the regions someone edited and
//! saved); every other region is computed from a `Generated` terrain when read. A huge generated map then
//! costs no disk until it is edited. Mip 0 is the generator's samples; a coarser mip's sample is the
//! generator's sample nearest the centre of the 2^m × 2^m block it stands for (a box filter would need
//! 4^m evaluations a sample) — edited areas are box-filtered from mip 0 as in any region map.

use super::files::Scratch;
use super::{Fallback, RegionError, RegionMeta, TerrainRegions};
use crate::generation::Generated;
use crate::samples::Samples;
use std::path::Path;
use std::sync::Arc;

/// The fallback that computes regions of a `meta`-sized map from `g`.
pub fn fallback(g: Arc<Generated>, meta: RegionMeta) -> Fallback {
    Arc::new(move |m, rx, rz, [w, d]| {
        let r = meta.region;
        let [mw, md] = meta.mip_size(0);
        let half = if m == 0 { 0 } else { 1usize << (m - 1) };
        let mut out = Vec::with_capacity(w * d);
        for j in 0..d {
            let z = (((rz * r + j) << m) + half).min(md - 1);
            for i in 0..w {
                let x = (((rx * r + i) << m) + half).min(mw - 1);
                out.push(g.height(x as i64, z as i64));
            }
        }
        out
    })
}

/// Writes a generator-backed map's header to `dir` (replacing a map there; other files stay) and opens
/// it: `width × depth` samples `spacing` apart in regions of `region`².
pub fn create(
    dir: &Path,
    g: Arc<Generated>,
    width: usize,
    depth: usize,
    spacing: f64,
    region: usize,
) -> Result<TerrainRegions, RegionError> {
    let mut meta = RegionMeta::new(width, depth, spacing, region)?;
    meta.range = g.height_bounds();
    let scratch = Scratch::new(dir, ".saving")?;
    meta.write(scratch.path())?;
    scratch.commit()?;
    TerrainRegions::open_with(dir, fallback(g, meta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::NoiseParams;

    #[test]
    fn a_generated_map_stores_only_what_was_edited() {
        let dir = std::env::temp_dir().join(format!("wt_generated_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let g = Arc::new(
            Generated::new(
                &NoiseParams {
                    seed: 5,
                    ..Default::default()
                },
                1.0,
            )
            .unwrap(),
        );
        let r = create(&dir, g.clone(), 1000, 700, 1.0, 64).unwrap();
        let files = |d: &Path| {
            let mut v: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(files(&dir), vec!["terrain.regions".to_string()]);
        // Every sample is the generator's.
        let h = r.heights_region(0, 0, 1000, 700);
        for z in (0..700).step_by(37) {
            for x in (0..1000).step_by(41) {
                assert_eq!(h[z * 1000 + x], g.height(x as i64, z as i64));
            }
        }
        r.set_heights_region(130, 140, 10, 10, &[7.0; 100]).unwrap();
        r.save().unwrap();
        // One mip-0 region and the regions above it, nothing else.
        let saved = files(&dir);
        assert!(saved.contains(&"h0_2_2.bin".to_string()), "{saved:?}");
        assert_eq!(saved.len(), 1 + r.meta().mips as usize, "{saved:?}");
        let again = TerrainRegions::open_with(&dir, fallback(g.clone(), *r.meta())).unwrap();
        let back = again.heights_region(0, 0, 1000, 700);
        assert_eq!(back[145 * 1000 + 135], 7.0);
        assert_eq!(back[500 * 1000 + 900], g.height(900, 500));
        assert_eq!(back, r.heights_region(0, 0, 1000, 700));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
