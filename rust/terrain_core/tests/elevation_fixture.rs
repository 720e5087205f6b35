//! The elevation fixture the Godot tests, the demo and docs/terrain-data.md's "real places" picture use:
//! `tests/fixtures/elevation/valley.tif`, a GeoTIFF as survey data comes (geographic, one arc-second at
//! 46.5° N, 16-bit integer metres, tiled LZW with padded edge tiles, a NoData lake), written here.
//! The test writes it again and wants the same bytes; `WT_BLESS=1` rewrites the committed file.
use std::path::PathBuf;
use terrain_core::generation::{Generated, NoiseParams};
use terrain_core::heightmap_io::elevation::read_all;
use terrain_core::heightmap_io::geotiff::{self, Compression, Sample, WriteOptions};

const W: usize = 500;
const D: usize = 460;
const NODATA: f64 = -32767.0;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/elevation/valley.tif")
}

fn write(path: &std::path::Path) {
    let params = NoiseParams {
        seed: 7,
        frequency: 1.0 / 260.0,
        octaves: 6,
        height: 900.0,
        warp: 40.0,
        erosion: 60.0,
        erosion_scale: 60.0,
        ..Default::default()
    };
    let g = Generated::new(&params, 1.0).unwrap();
    let s = 1.0 / 3600.0;
    let opt = WriteOptions {
        sample: Sample::I16,
        compression: Compression::Lzw,
        tile: 128,
        scale: [s, s],
        corner: [10.0, 46.5 + D as f64 * s],
        model_type: 2,
        epsg: 4326,
        nodata: Some(NODATA),
        ..Default::default()
    };
    geotiff::write(path, W, D, &opt, |z, row| {
        row.extend((0..W).map(|x| {
            let h = 1400.0 + f64::from(g.height(x as i64, z as i64));
            // A lake the survey did not see: NoData.
            let (dx, dz) = (x as f64 - 330.0, z as f64 - 300.0);
            if dx * dx / 3600.0 + dz * dz / 1600.0 < 1.0 {
                NODATA
            } else {
                h.round()
            }
        }))
    })
    .unwrap();
}

#[test]
fn the_valley_fixture_is_what_this_test_writes() {
    let fresh = std::env::temp_dir().join(format!("wt_valley_{}.tif", std::process::id()));
    write(&fresh);
    if std::env::var("WT_BLESS").is_ok() {
        std::fs::create_dir_all(fixture().parent().unwrap()).unwrap();
        std::fs::copy(&fresh, fixture()).unwrap();
    }
    assert_eq!(
        std::fs::read(&fresh).unwrap(),
        std::fs::read(fixture())
            .expect("tests/fixtures/elevation/valley.tif (WT_BLESS=1 writes it)"),
        "the committed fixture differs from what this test writes"
    );
    let e = read_all(&[fixture()], u64::MAX).unwrap();
    assert_eq!((e.width, e.depth), (W, D));
    assert!(e.info.geographic && e.info.projection == "EPSG:4326");
    let lake = e.missing.iter().filter(|&&m| m).count();
    assert!((6_000..9_000).contains(&lake), "{lake} NoData samples");
    assert!(e.heights.iter().all(|h| (0.0..4000.0).contains(h)));
}
