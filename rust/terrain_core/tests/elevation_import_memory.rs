//! A region-map import of a file larger than the region cache's budget keeps resident memory within
//! that budget + 64 MB: a 6144 × 4096 float GeoTIFF (96 MB; 120 MB with its NoData flags if held whole)
//! streams into regions while the peak resident set (VmHWM, reset first) is watched. Its own test binary, so
//! no other test shares the process.
use std::path::PathBuf;
use terrain_core::heightmap_io::elevation::{import_regions, NoData};
use terrain_core::heightmap_io::geotiff::{self, Compression, Sample, WriteOptions};
use terrain_core::progress::Progress;
use terrain_core::terrain_regions::MIN_BUDGET;

fn status(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with(key)).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

#[test]
fn region_import_stays_within_budget_plus_64_mb() {
    let dir = std::env::temp_dir().join(format!("wt_elev_mem_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.tif");
    let (w, d) = (6144, 4096);
    let opt = WriteOptions {
        sample: Sample::F32,
        compression: Compression::None,
        rows_per_strip: 8,
        nodata: Some(-1.0),
        ..Default::default()
    };
    geotiff::write(&path, w, d, &opt, |z, row| {
        row.extend((0..w).map(|x| {
            if (x / 700 + z / 300) % 11 == 0 {
                -1.0
            } else {
                ((x ^ z) % 997) as f64
            }
        }))
    })
    .unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 2 * MIN_BUDGET);
    // Reset the peak resident set to now (Linux: "5" to clear_refs), then import.
    std::fs::write("/proc/self/clear_refs", "5").unwrap();
    let base = status("VmRSS:");
    let out: PathBuf = dir.join("regions");
    let meta = import_regions(
        std::slice::from_ref(&path),
        &out,
        512,
        NoData::Holes,
        terrain_core::terrain_regions::Existing::Replace,
        &Progress::default(),
    )
    .unwrap();
    let peak = status("VmHWM:");
    assert_eq!((meta.width, meta.depth), (w, d));
    assert!(meta.has_control);
    let grew = peak.saturating_sub(base);
    eprintln!(
        "region import of {} MB: resident grew {} MB (budget {} MB + 64 MB)",
        (w * d * 4) >> 20,
        grew >> 20,
        MIN_BUDGET >> 20
    );
    assert!(
        grew <= MIN_BUDGET + (64 << 20),
        "resident memory grew {} MB",
        grew >> 20
    );
    let _ = std::fs::remove_dir_all(&dir);
}
