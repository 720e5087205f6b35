//! Fuzzing the elevation readers (GeoTIFF, SRTM, ESRI ASCII) with proptest: mutated and cut files never
//! panic, never read past the sample budget, and whatever reads is well-formed (width × depth finite
//! heights, missing samples filled) or an error naming the file.
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use terrain_core::heightmap_io::elevation::{read_all, Elevation};
use terrain_core::heightmap_io::geotiff::{self, Compression, Sample, WriteOptions};
use terrain_core::heightmap_io::hgt;

const BUDGET: u64 = 1 << 16;

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("wt_elev_fuzz_{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn check(path: &Path) {
    match read_all(&[path.to_path_buf()], BUDGET) {
        Ok(e) => well_formed(&e),
        Err(e) => {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            assert!(
                e.to_string().contains(&name),
                "the error names the file: {e:?}"
            );
        }
    }
}

fn well_formed(e: &Elevation) {
    assert_eq!(e.heights.len(), e.width * e.depth);
    assert_eq!(e.missing.len(), e.heights.len());
    assert!((e.width * e.depth) as u64 <= BUDGET);
    assert!(e.heights.iter().all(|v| v.is_finite()));
}

fn a_tiff(compression: Compression, tile: usize, sample: Sample) -> Vec<u8> {
    let p = dir().join(format!("seed_{compression:?}_{tile}_{sample:?}.tif"));
    let opt = WriteOptions {
        compression,
        tile,
        sample,
        nodata: Some(7.0),
        ..Default::default()
    };
    geotiff::write(&p, 37, 21, &opt, |z, row| {
        row.extend((0..37).map(|x| ((x * z) % 50) as f64))
    })
    .unwrap();
    std::fs::read(&p).unwrap()
}

fn mutate(
    mut bytes: Vec<u8>,
    flips: &[(prop::sample::Index, u8)],
    cut: prop::sample::Index,
) -> Vec<u8> {
    for (i, b) in flips {
        let k = i.index(bytes.len());
        bytes[k] = *b;
    }
    let n = cut.index(bytes.len() + 1).max(bytes.len() * 3 / 4);
    bytes.truncate(n);
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_geotiffs_never_panic(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
                                    cut in any::<prop::sample::Index>(), c in 0usize..4, tiled in any::<bool>(),
                                    s in 0usize..8, id in any::<u32>()) {
        let seed = a_tiff(Compression::ALL[c], if tiled { 16 } else { 0 }, Sample::ALL[s]);
        let p = dir().join(format!("m{id}.tif"));
        std::fs::write(&p, mutate(seed, &flips, cut)).unwrap();
        check(&p);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), id in any::<u32>()) {
        for ext in ["tif", "asc", "hgt"] {
            let p = dir().join(format!("N10E010_{id}.{ext}"));
            std::fs::write(&p, &bytes).unwrap();
            check(&p);
            let _ = std::fs::remove_file(&p);
        }
    }

    #[test]
    fn mutated_ascii_grids_never_panic(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
                                       cut in any::<prop::sample::Index>(), id in any::<u32>()) {
        let mut text = String::from("ncols 9\nnrows 7\nxllcorner 3\nyllcorner -2\ncellsize 0.5\nNODATA_value -99\n");
        for z in 0..7 {
            text.push_str(&(0..9).map(|x| if x == z { "-99".into() } else { format!("{}.25", x * z) }).collect::<Vec<_>>().join(" "));
            text.push('\n');
        }
        let p = dir().join(format!("g{id}.asc"));
        std::fs::write(&p, mutate(text.into_bytes(), &flips, cut)).unwrap();
        check(&p);
        let _ = std::fs::remove_file(&p);
    }
}

#[test]
fn a_cut_srtm_tile_is_refused() {
    let p = dir().join("S01W001.hgt");
    let bytes = hgt::encode(1201, |z, x| Some((z + x) as i16));
    std::fs::write(&p, &bytes[..bytes.len() - 2]).unwrap();
    let e = read_all(std::slice::from_ref(&p), u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("S01W001.hgt") && e.contains("2884800"), "{e}");
}
