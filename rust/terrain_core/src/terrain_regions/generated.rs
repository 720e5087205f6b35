//! Generator-backed region maps: a folder holding only a header (and the regions someone edited and
//! saved); every other region is computed from a `Generated` terrain when read. A huge generated map then
//! costs no disk until it is edited. Mip 0 is the generator's samples; a coarser mip's sample is the
//! generator's sample nearest the centre of the 2^m × 2^m block it stands for (a box filter would need
//! 4^m evaluations a sample) — edited areas are box-filtered from mip 0 as in any region map.

use super::files::{Existing, Scratch};
use super::{Fallback, RegionError, RegionMeta, TerrainRegions};
use crate::generation::Generated;
use crate::samples::Samples;
use std::path::Path;
use std::sync::Arc;

/// The fallback that computes regions of a `meta`-sized map from `g`: stored sample s is the generator's
/// sample `s + origin`, so an endless map is the endless generator's world, sample for sample.
pub fn fallback(g: Arc<Generated>, meta: RegionMeta) -> Fallback {
    Arc::new(move |m, rx, rz, [w, d]| {
        use rayon::prelude::*;
        let r = meta.region;
        let [mw, md] = meta.mip_size(0);
        let half = if m == 0 { 0 } else { 1usize << (m - 1) };
        // Rows in parallel: a 512² region of an 8-octave generator took 66 ms on one thread, and an
        // edit's first touch of an endless map reads a region at every mip level.
        let mut out = vec![0.0f32; w * d];
        let fill = |(j, row): (usize, &mut [f32])| {
            let z = meta.public(1, (((rz * r + j) << m) + half).min(md - 1));
            for (i, h) in row.iter_mut().enumerate() {
                let x = meta.public(0, (((rx * r + i) << m) + half).min(mw - 1));
                *h = g.height(x, z);
            }
        };
        // Not on a worker thread: a rayon worker waiting for its rows runs other queued jobs, and one
        // reading a coarser level would wait for the stale-mips lock this read may be holding. Not on the
        // background lane either: its work must not fan out at normal priority.
        if rayon::current_thread_index().is_some() || crate::workers::on_background_lane() {
            out.chunks_mut(w.max(1)).enumerate().for_each(fill);
        } else {
            out.par_chunks_mut(w.max(1)).enumerate().for_each(fill);
        }
        out
    })
}

/// Writes a generator-backed map's header to `dir` (a map there is refused unless `existing` is
/// `Replace`; other files stay) and opens it: `width × depth` samples `spacing` apart in regions of
/// `region`².
pub fn create(
    dir: &Path,
    g: Arc<Generated>,
    [width, depth]: [usize; 2],
    spacing: f64,
    region: usize,
    existing: Existing,
) -> Result<TerrainRegions, RegionError> {
    let meta = RegionMeta::new(width, depth, spacing, region)?;
    write_header(dir, &g, meta, existing)
}

/// Writes an endless generator-backed map's header to `dir` (see `create`): `RegionMeta::endless`, samples
/// `spacing` apart in regions of `region`², signed sample coordinates around the origin.
pub fn create_endless(
    dir: &Path,
    g: Arc<Generated>,
    spacing: f64,
    region: usize,
    existing: Existing,
) -> Result<TerrainRegions, RegionError> {
    write_header(dir, &g, RegionMeta::endless(spacing, region)?, existing)
}

fn write_header(
    dir: &Path,
    g: &Arc<Generated>,
    mut meta: RegionMeta,
    existing: Existing,
) -> Result<TerrainRegions, RegionError> {
    meta.range = g.height_bounds();
    let scratch = Scratch::new(dir, ".saving", existing)?;
    meta.write(scratch.path())?;
    scratch.commit()?;
    TerrainRegions::open_with(dir, fallback(g.clone(), meta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::NoiseParams;
    use crate::terrain_regions::{REGION_ABSENT, REGION_EDITED, STALE_MIPS_FILE};

    /// A generation and a save report their progress to the end (a progress bar reaches 100 % exactly),
    /// a cancelled generation leaves the folder as it was, and `stores_every_region` tells a map written
    /// whole from a generated one.
    #[test]
    fn writing_and_saving_count_their_progress() {
        use crate::progress::Progress;
        use crate::terrain_regions::write_regions_with;
        let dir = std::env::temp_dir().join(format!("wt_progress_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let g = Arc::new(Generated::new(&NoiseParams::default(), 1.0).unwrap());
        let meta = RegionMeta::new(300, 200, 1.0, 64).unwrap();
        let gen = g.clone();
        let source = move |rx: usize, rz: usize, [w, d]: [usize; 2]| {
            let h = (0..w * d)
                .map(|i| gen.height((rx * 64 + i % w) as i64, (rz * 64 + i / w) as i64))
                .collect();
            (h, Vec::new())
        };
        let cancelled = Progress::default();
        cancelled.cancel();
        assert!(write_regions_with(&dir, meta, Existing::Refuse, &source, &cancelled).is_err());
        assert!(
            !crate::terrain_regions::map_exists(&dir),
            "a cancelled write leaves no map"
        );
        let p = Progress::default();
        write_regions_with(&dir, meta, Existing::Refuse, &source, &p).unwrap();
        // 5 × 4 regions, then 3 × 2, 2 × 1, 1.
        assert_eq!((p.done(), p.total()), (29, 29));
        assert!(TerrainRegions::open(&dir).unwrap().stores_every_region());
        let _ = std::fs::remove_dir_all(&dir);
        let r = create(&dir, g, [300, 200], 1.0, 64, Existing::Refuse).unwrap();
        assert!(
            !r.stores_every_region(),
            "a generated map stores no region yet"
        );
        r.set_heights_region(130, 140, 10, 10, &[7.0; 100]).unwrap();
        let p = Progress::default();
        let written = r.save_counting(&p).unwrap();
        assert_eq!(
            written, 1,
            "the edited region; the coarser levels recorded stale"
        );
        assert!(
            p.done() == written as u64 && p.done() == p.total(),
            "{} of {}",
            p.done(),
            p.total()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

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
        let r = create(&dir, g.clone(), [1000, 700], 1.0, 64, Existing::Refuse).unwrap();
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
        assert_eq!(r.save().unwrap(), 1);
        // The edited mip-0 region and the record of the coarser levels it made stale, nothing else: no
        // coarser region is generated to be saved.
        let saved = files(&dir);
        assert_eq!(saved, ["h0_2_2.bin", STALE_MIPS_FILE, "terrain.regions"]);
        assert!(!r.has_unsaved());
        let again = TerrainRegions::open_with(&dir, fallback(g.clone(), *r.meta())).unwrap();
        let back = again.heights_region(0, 0, 1000, 700);
        assert_eq!(back[145 * 1000 + 135], 7.0);
        assert_eq!(back[500 * 1000 + 900], g.height(900, 500));
        assert_eq!(back, r.heights_region(0, 0, 1000, 700));
        // Every coarser level over the edit is the box filter of it, in the map that saved and in the
        // one opened from its files; reading it is not an unsaved edit.
        for m in 1..r.meta().mips {
            let (x, z) = (135 >> m, 145 >> m);
            assert_eq!(again.mip(m).texel(x, z), r.mip(m).texel(x, z), "level {m}");
        }
        assert_eq!(again.mip(1).texel(67, 72)[0], 7.0);
        assert!(!again.has_unsaved() && again.dirty_regions() == 0);
        // Saving again writes the refreshed levels and ends the record.
        assert_eq!(again.save().unwrap(), r.meta().mips as usize - 1);
        assert_eq!(files(&dir).len(), 1 + r.meta().mips as usize);
        assert!(!files(&dir).contains(&STALE_MIPS_FILE.to_string()));
        // A new map over this one is refused, every file as it was; replacing it on purpose drops the
        // saved edit.
        let bytes = |d: &Path| {
            files(d)
                .iter()
                .map(|n| std::fs::read(d.join(n)).unwrap())
                .collect::<Vec<_>>()
        };
        let before = (files(&dir), bytes(&dir));
        for again in [
            create(&dir, g.clone(), [64, 64], 1.0, 16, Existing::Refuse).map(|_| ()),
            create_endless(&dir, g.clone(), 1.0, 16, Existing::Refuse).map(|_| ()),
        ] {
            let Err(RegionError::Exists(m)) = again else {
                panic!("not refused: {again:?}")
            };
            assert!(
                m.contains(&dir.display().to_string()) && m.contains("overwrite"),
                "{m}"
            );
            assert_eq!((files(&dir), bytes(&dir)), before);
        }
        let new = create(&dir, g.clone(), [64, 64], 1.0, 16, Existing::Replace).unwrap();
        assert_eq!(files(&dir), vec!["terrain.regions".to_string()]);
        assert_eq!(new.meta().width, 64);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_endless_map_is_the_generators_world_and_stores_only_what_was_edited() {
        use crate::samples::{height_at, normal_at};
        let dir = std::env::temp_dir().join(format!("wt_endless_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let params = NoiseParams {
            seed: 9,
            ..Default::default()
        };
        let g = Arc::new(Generated::new(&params, 2.0).unwrap());
        let r = create_endless(&dir, g.clone(), 2.0, 64, Existing::Refuse).unwrap();
        assert_eq!(r.size(), None, "an endless map has no size");
        assert!(r.meta().endless);
        // The surface is the endless generator's, on both sides of the origin, bit for bit.
        for (x, z) in [
            (0.3, 0.7),
            (-1000.25, 37.5),
            (-5.0e5, -3.3e6),
            (1.6e7, -1.2e7),
        ] {
            assert_eq!(height_at(&r, x, z), height_at(&*g, x, z), "at ({x}, {z})");
            assert_eq!(normal_at(&r, x, z), normal_at(&*g, x, z), "at ({x}, {z})");
        }
        assert_eq!(r.texel(-70, -3), g.texel(-70, -3));
        // An edit at negative samples (the core's edit calls take stored indices).
        let (sx, sz) = (r.meta().stored(0, -140), r.meta().stored(1, -150));
        r.set_heights_region(sx as usize, sz as usize, 10, 10, &[7.0; 100])
            .unwrap();
        assert_eq!(r.texel(-135, -145)[0], 7.0);
        assert_eq!(r.texel(-143, -145), g.texel(-143, -145));
        let mut states = Vec::new();
        r.region_states(-3, -3, 2, 2, &mut states);
        assert_eq!(
            states,
            vec![REGION_EDITED, REGION_ABSENT, REGION_ABSENT, REGION_ABSENT],
            "region (-3, -3) holds samples -192 .. -129"
        );
        let t0 = std::time::Instant::now();
        r.save().unwrap();
        let first_save = t0.elapsed();
        let mut saved: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        saved.sort();
        // One mip-0 region, the record of the stale coarser levels and the header: none of the 16 coarser
        // levels is generated to be saved.
        assert_eq!(saved.len(), 3, "{saved:?} ({first_save:?})");
        let again = TerrainRegions::open_with(&dir, fallback(g.clone(), *r.meta())).unwrap();
        assert!(again.meta().endless);
        assert_eq!(again.meta().origin, r.meta().origin);
        for z in -160..-130 {
            for x in -150..-120 {
                assert_eq!(again.texel(x, z), r.texel(x, z), "sample ({x}, {z})");
            }
        }
        assert_eq!(again.texel(5000, 70), g.texel(5000, 70));
        // A far ring reads a coarser mip: over the edit the edit's mean, elsewhere the generator's sample
        // nearest the block's centre.
        let c = again.coarse(8.0).expect("mip 2");
        assert_eq!(c.texel(-35, -37)[0], 7.0);
        assert_eq!(c.texel(-40, -40)[0], g.height(-158, -158));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn windows_over_an_endless_map_follow_an_edit_at_negative_samples() {
        use crate::clipmap::ClipmapConfig;
        use crate::clipmap_data::{ClipmapData, Frame};
        let dir = std::env::temp_dir().join(format!("wt_endless_win_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let g = Arc::new(Generated::new(&NoiseParams::default(), 1.0).unwrap());
        let r = create_endless(&dir, g.clone(), 1.0, 32, Existing::Refuse).unwrap();
        let cfg = ClipmapConfig::new(8, 5, 1.0).unwrap();
        let frame = Frame::default();
        let target = [-300.0, -260.0];
        let (mut kept, mut gen) = (ClipmapData::new(&cfg), ClipmapData::new(&cfg));
        kept.follow(&r, &frame, target);
        gen.follow(&*g, &frame, target);
        // Near levels read mip 0: the endless generator's windows exactly.
        for l in [0, 1, kept.fine_layer()] {
            assert_eq!(kept.layer(l), gen.layer(l), "layer {l}");
        }
        let (x, z) = (-310i64, -270i64);
        let (sx, sz) = (
            r.meta().stored(0, x) as usize,
            r.meta().stored(1, z) as usize,
        );
        r.set_heights_region(sx, sz, 20, 12, &[-40.0; 240]).unwrap();
        let mask = kept.refresh(&r, &frame, r.meta().changed_rect(sx, sz, 20, 12));
        assert_ne!(mask, 0, "the edit lies in the windows");
        // The kept windows equal windows made afresh after the edit, coarse levels (mips) included.
        let mut fresh = ClipmapData::new(&cfg);
        fresh.follow(&r, &frame, target);
        for l in 0..cfg.levels() as usize {
            assert!(kept.layer(l) == fresh.layer(l), "layer {l}");
        }
        let (a, b) = (
            kept.layer(kept.fine_layer()),
            fresh.layer(fresh.fine_layer()),
        );
        let diff: Vec<_> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        assert!(
            diff.is_empty(),
            "fine layer: {} texels differ, first {:?}: {:?} vs {:?}; origin {:?}",
            diff.len(),
            diff[0],
            a[diff[0]],
            b[diff[0]],
            kept.origin(kept.fine_layer())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
