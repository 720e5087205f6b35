//! Elevation files written here in every variant and read back.

use super::super::geotiff::{self, Compression, Sample, WriteOptions};
use super::super::hgt;
use super::*;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wt_elev_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A value every sample type holds exactly (0..=100, whole), varying in both directions.
fn value(x: usize, z: usize) -> f64 {
    ((x * 7 + z * 13) % 101) as f64
}

fn read(path: &Path) -> Elevation {
    read_all(&[path.to_path_buf()], u64::MAX).unwrap()
}

#[test]
fn geotiff_every_sample_format_compression_and_layout_reads_exactly() {
    let dir = scratch("tiff_all");
    // 50 × 37 with 16² tiles: the right and bottom tiles are padded (the tiled-LZW case of image-tiff #395).
    let (w, d) = (50, 37);
    for sample in Sample::ALL {
        for compression in Compression::ALL {
            for tile in [0, 16] {
                let path = dir.join(format!("{sample:?}_{compression:?}_{tile}.tif"));
                let opt = WriteOptions {
                    sample,
                    compression,
                    tile,
                    rows_per_strip: 5,
                    ..Default::default()
                };
                geotiff::write(&path, w, d, &opt, |z, row| {
                    row.extend((0..w).map(|x| value(x, z)))
                })
                .unwrap();
                let e = read(&path);
                assert_eq!((e.width, e.depth), (w, d), "{path:?}");
                for z in 0..d {
                    for x in 0..w {
                        assert_eq!(
                            e.heights[z * w + x],
                            value(x, z) as f32,
                            "{path:?} at {x},{z}"
                        );
                    }
                }
                assert!(!e.missing.iter().any(|&m| m));
            }
        }
    }
}

#[test]
fn geotiff_floats_keep_their_precision() {
    let dir = scratch("tiff_float");
    let (w, d) = (33, 20);
    let f = |x: usize, z: usize| {
        -431.25 + 8848.0 * ((x * 31 + z * 17) as f64 / 997.0).sin().abs() + 1e-7
    };
    for (sample, tile) in [(Sample::F32, 16), (Sample::F64, 0)] {
        let path = dir.join(format!("{sample:?}.tif"));
        let opt = WriteOptions {
            sample,
            compression: Compression::Lzw,
            tile,
            ..Default::default()
        };
        geotiff::write(&path, w, d, &opt, |z, row| {
            row.extend((0..w).map(|x| f(x, z)))
        })
        .unwrap();
        let e = read(&path);
        for z in 0..d {
            for x in 0..w {
                // f32 data is bit-exact; f64 data rounds once to the nearest f32.
                assert_eq!(e.heights[z * w + x], f(x, z) as f32);
            }
        }
        assert_eq!(
            e.info.sample_format,
            if sample == Sample::F32 {
                "float32"
            } else {
                "float64"
            }
        );
    }
}

#[test]
fn geotiff_metadata_gives_spacing_origin_projection_and_nodata() {
    let dir = scratch("tiff_meta");
    let path = dir.join("utm.tif");
    let opt = WriteOptions {
        sample: Sample::I16,
        scale: [2.5, 2.5],
        corner: [500_000.0, 4_600_000.0],
        epsg: 32633,
        nodata: Some(-9999.0),
        ..Default::default()
    };
    geotiff::write(&path, 8, 6, &opt, |z, row| {
        row.extend((0..8).map(|x| if (x, z) == (3, 2) { -9999.0 } else { 100.0 }))
    })
    .unwrap();
    let e = read(&path);
    assert_eq!(e.info.spacing, [2.5, 2.5]);
    assert!(e.info.spacing_known && !e.info.geographic);
    assert_eq!(e.info.projection, "EPSG:32633");
    assert_eq!(e.info.origin, [500_001.25, 4_599_998.75]);
    assert_eq!(e.info.nodata, Some(-9999.0));
    assert!(e.missing[2 * 8 + 3] && e.missing.iter().filter(|&&m| m).count() == 1);
    // Filled from the neighbours, never the marker.
    assert_eq!(e.heights[2 * 8 + 3], 100.0);
    let stats = scan(open(&[path]).unwrap().as_mut()).unwrap();
    assert_eq!(
        stats,
        Stats {
            range: (100.0, 100.0),
            nodata_count: 1
        }
    );

    // Geographic: one arc-second at 45° N is about 30.9 m north–south and 21.9 m east–west.
    let path = dir.join("geo.tif");
    let s = 1.0 / 3600.0;
    let opt = WriteOptions {
        scale: [s, s],
        corner: [6.0, 45.0 + 50.0 * s],
        model_type: 2,
        epsg: 4326,
        ..Default::default()
    };
    geotiff::write(&path, 10, 101, &opt, |_, row| row.extend([1.0; 10])).unwrap();
    let i = read(&path).info;
    assert!(i.geographic && i.projection == "EPSG:4326");
    assert!((i.spacing[1] - 30.87).abs() < 0.05, "{:?}", i.spacing);
    assert!((i.spacing[0] - 21.87).abs() < 0.05, "{:?}", i.spacing);
}

#[test]
fn non_finite_and_huge_floats_are_missing_never_heights() {
    let dir = scratch("tiff_nan");
    let path = dir.join("nan.tif");
    let bad = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -3.4028234663852886e38,
    ];
    geotiff::write(&path, 4, 3, &WriteOptions::default(), |z, row| {
        row.extend((0..4).map(|x| if z == 1 { bad[x] } else { 5.0 }))
    })
    .unwrap();
    let e = read(&path);
    assert_eq!(e.missing.iter().filter(|&&m| m).count(), 4);
    assert!(e.heights.iter().all(|&h| h == 5.0), "{:?}", e.heights);
}

#[test]
fn filling_spreads_inward_and_keeps_known_samples() {
    // A 5-wide void in a ramp: filled values stay within the known neighbours' range, known ones untouched.
    let (w, d) = (12, 9);
    let mut b: Vec<f32> = (0..w * d).map(|i| (i % w) as f32).collect();
    let hole = |x: usize, z: usize| (3..8).contains(&x) && (2..7).contains(&z);
    for z in 0..d {
        for x in 0..w {
            if hole(x, z) {
                b[z * w + x] = f32::NAN;
            }
        }
    }
    let mut f = Filler::default();
    f.fill(&mut b, w);
    for z in 0..d {
        for x in 0..w {
            let v = b[z * w + x];
            if hole(x, z) {
                assert!((2.0..=8.0).contains(&v), "{x},{z}: {v}");
            } else {
                assert_eq!(v, x as f32);
            }
        }
    }
    // A block with nothing known continues the row above; the first such block is sea level.
    let mut all = vec![f32::NAN; 8];
    f.fill(&mut all, 4);
    assert!(all.iter().all(|&v| v == (w - 1) as f32 || v.is_finite()));
    let mut g = Filler::default();
    let mut none = vec![f32::NAN; 6];
    g.fill(&mut none, 3);
    assert_eq!(none, vec![0.0; 6]);
}

fn srtm(dir: &Path, name: &str, side: usize, f: impl Fn(usize, usize) -> Option<i16>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, hgt::encode(side, f)).unwrap();
    p
}

/// Heights of the whole 2° × 2° box as one function of the global sample (row from the north, column
/// from the west).
fn world(col: usize, row: usize) -> i16 {
    ((col * 3 + row * 5) % 4000) as i16 - 100
}

#[test]
fn hgt_tile_with_voids_and_a_two_by_two_mosaic_without_seams() {
    let dir = scratch("hgt");
    let s = 1201;
    let one = srtm(&dir, "N45E006.hgt", s, |z, x| {
        (z != 600 || x != 7).then(|| world(x, z))
    });
    let e = read(&one);
    assert_eq!((e.width, e.depth), (s, s));
    assert_eq!(e.info.origin, [6.0, 46.0]);
    assert_eq!(e.missing.iter().filter(|&&m| m).count(), 1);
    assert!(e.missing[600 * s + 7]);
    assert!(
        (e.info.spacing[1] - 92.6).abs() < 0.2,
        "{:?}",
        e.info.spacing
    );
    // Four tiles cut from the same world (their shared edges agree, as SRTM's do).
    let mut paths = Vec::new();
    for (lat, lon) in [(45, 6), (45, 7), (46, 6), (46, 7)] {
        let (r0, c0) = ((46 - lat) * (s - 1), (lon - 6) * (s - 1));
        paths.push(srtm(&dir, &format!("N{lat}E00{lon}.hgt"), s, |z, x| {
            Some(world(c0 + x, r0 + z))
        }));
    }
    let m = read_all(&paths, u64::MAX).unwrap();
    assert_eq!((m.width, m.depth), (2 * s - 1, 2 * s - 1));
    assert_eq!(m.info.origin, [6.0, 47.0]);
    for row in 0..m.depth {
        for col in 0..m.width {
            assert_eq!(
                m.heights[row * m.width + col],
                f32::from(world(col, row)),
                "{col},{row}"
            );
        }
    }
    // A missing tile is NoData; a tile of the wrong size or name is refused naming it.
    let three = read_all(&paths[..3], u64::MAX).unwrap();
    assert!(three.missing[2 * s - 2] && !three.missing[(2 * s - 2) * three.width + 2 * s - 2]);
    let bad = dir.join("N45E008.hgt");
    std::fs::write(&bad, [0u8; 100]).unwrap();
    let e = read_all(&[bad], u64::MAX).unwrap_err().to_string();
    assert!(e.contains("N45E008.hgt") && e.contains("2884802"), "{e}");
    let named = dir.join("mountain.hgt");
    std::fs::copy(&one, &named).unwrap();
    assert!(read_all(&[named], u64::MAX)
        .unwrap_err()
        .to_string()
        .contains("south-west corner"));
}

#[test]
fn asc_grid_with_nodata_centres_and_wrapped_lines() {
    let dir = scratch("asc");
    let p = dir.join("grid.asc");
    std::fs::write(
        &p,
        "ncols 4\nNROWS 3\nxllcenter 100\nyllcenter 200\ncellsize 10\nNODATA_value -1\n\
         1 2 3\n4\n5 -1 7 8\n9.5 10 11 12\n",
    )
    .unwrap();
    let e = read(&p);
    assert_eq!((e.width, e.depth), (4, 3));
    assert_eq!(e.info.spacing, [10.0, 10.0]);
    assert_eq!(e.info.origin, [100.0, 220.0]);
    assert_eq!(
        e.missing,
        [[false; 5].as_slice(), &[true], &[false; 6]].concat()
    );
    assert_eq!(e.heights[8], 9.5);
    for (text, want) in [
        ("ncols 2\nnrows 2\ncellsize 1\n1 2 3\n", "truncated"),
        ("ncols 2\nnrows 1\ncellsize 1\n1 2 3\n", "more values"),
        ("ncols 2\nnrows 1\ncellsize 1\n1 x\n", "'x'"),
        ("ncols 2\nnrows 1\n1 2\n", "cellsize"),
        ("ncols -2\nnrows 1\ncellsize 1\n1 2\n", "ncols"),
    ] {
        std::fs::write(&p, text).unwrap();
        let e = read_all(std::slice::from_ref(&p), u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want) && e.contains("grid.asc"), "{text:?}: {e}");
    }
}

#[test]
fn damaged_tiffs_are_refused_naming_the_file() {
    let dir = scratch("tiff_bad");
    let good = dir.join("good.tif");
    geotiff::write(
        &good,
        40,
        30,
        &WriteOptions {
            compression: Compression::Lzw,
            tile: 16,
            ..Default::default()
        },
        |z, row| row.extend((0..40).map(|x| value(x, z))),
    )
    .unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let bad = dir.join("bad.tif");
    for cut in [4, 16, 100, bytes.len() / 2] {
        std::fs::write(&bad, &bytes[..cut]).unwrap();
        let e = read_all(std::slice::from_ref(&bad), u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.tif"), "{e}");
    }
    // An RGB image is not elevation.
    let rgb = dir.join("rgb.tif");
    let mut f = std::fs::File::create(&rgb).unwrap();
    tiff::encoder::TiffEncoder::new(&mut f)
        .unwrap()
        .write_image::<tiff::encoder::colortype::RGB8>(4, 3, &[9u8; 36])
        .unwrap();
    let e = read_all(std::slice::from_ref(&rgb), u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("rgb.tif") && e.contains("single-band"), "{e}");
    // A header that lies: the width says more samples than the tiles hold.
    let mut lying = bytes.clone();
    let ifd = u32::from_le_bytes(lying[4..8].try_into().unwrap()) as usize;
    let count = u16::from_le_bytes([lying[ifd], lying[ifd + 1]]) as usize;
    for k in 0..count {
        let e = ifd + 2 + 12 * k;
        if u16::from_le_bytes([lying[e], lying[e + 1]]) == 256 {
            lying[e + 8..e + 12].copy_from_slice(&400u32.to_le_bytes());
        }
    }
    let liar = dir.join("liar.tif");
    std::fs::write(&liar, &lying).unwrap();
    let e = read_all(std::slice::from_ref(&liar), u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("liar.tif"), "{e}");
    let e = read_all(&[dir.join("missing.tif")], u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.tif"));
    assert!(read_all(std::slice::from_ref(&good), 100)
        .unwrap_err()
        .to_string()
        .contains("sample_budget"));
}

#[test]
fn region_import_equals_saving_the_same_terrain() {
    use crate::terrain_regions::{self, Existing, TerrainRegions};
    let dir = scratch("regions");
    let path = dir.join("map.tif");
    let (w, d) = (300, 290);
    let f = |x: usize, z: usize| {
        if (x / 40, z / 40) == (3, 2) {
            -32768.0
        } else {
            value(x, z) * 1.5
        }
    };
    let opt = WriteOptions {
        sample: Sample::F32,
        nodata: Some(-32768.0),
        scale: [2.0, 2.0],
        ..Default::default()
    };
    geotiff::write(&path, w, d, &opt, |z, row| {
        row.extend((0..w).map(|x| f(x, z)))
    })
    .unwrap();
    let out = dir.join("out");
    let meta = import_regions(
        std::slice::from_ref(&path),
        &out,
        64,
        NoData::Holes,
        Existing::Refuse,
        &Progress::default(),
    )
    .unwrap();
    assert_eq!((meta.width, meta.depth, meta.spacing), (w, d, 2.0));
    assert!(meta.has_control && meta.mips > 1);
    let regions = TerrainRegions::open(&out).unwrap();
    let mem = read(&path);
    assert_eq!(regions.heights_region(0, 0, w, d), mem.heights);
    let control = regions.control_region(0, 0, w, d);
    for (c, &m) in control.iter().zip(&mem.missing) {
        assert_eq!(*c == crate::control::HOLE, m);
    }
    // Coarse mips equal those of saving the same data.
    let mut t =
        crate::terrain_data::TerrainData::from_heights(w, d, 2.0, mem.heights.clone()).unwrap();
    t.set_control_map(control.clone()).unwrap();
    let saved = dir.join("saved");
    terrain_regions::save(&saved, &t, 64, Existing::Refuse).unwrap();
    for m in 1..meta.mips {
        let name = format!("h{m}_0_0.bin");
        assert_eq!(
            std::fs::read(out.join(&name)).unwrap(),
            std::fs::read(saved.join(&name)).unwrap(),
            "{name}"
        );
    }
    assert!(!out.join(".importing").exists());
    // An import over the map is refused unless told to replace it; a failing one leaves the map as it
    // was even then.
    let before = std::fs::read(out.join("terrain.regions")).unwrap();
    let asc = dir.join("short.asc");
    std::fs::write(&asc, "ncols 3\nnrows 400\ncellsize 1\n1 2 3\n").unwrap();
    let again = import_regions(
        std::slice::from_ref(&path),
        &out,
        64,
        NoData::Holes,
        Existing::Refuse,
        &Progress::default(),
    );
    assert!(matches!(&again, Err(HeightmapError::Invalid(m)) if m.contains("already holds a map")));
    assert_eq!(std::fs::read(out.join("terrain.regions")).unwrap(), before);
    let replace = Existing::Replace;
    assert!(import_regions(
        &[asc],
        &out,
        64,
        NoData::Fill,
        replace,
        &Progress::default()
    )
    .is_err());
    assert_eq!(std::fs::read(out.join("terrain.regions")).unwrap(), before);
    assert!(!out.join(".importing").exists());
    assert!(TerrainRegions::open(&out).is_ok());
}
