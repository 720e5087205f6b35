//! Elevation imports, timed against reading the same file (medians of 3): a 3601² SRTM tile into memory
//! (`read_all`, as `TerrainData.import_elevation`), and a 16384² float GeoTIFF into a region map
//! (`import_regions`) against one pass of its reader alone. Peak resident growth (VmHWM after a reset)
//! for each. `WT_ELEVATION_SIDE` sets the GeoTIFF's side (default 16384: a 1 GB file, 1.4 GB of regions).
use std::path::{Path, PathBuf};
use std::time::Instant;
use terrain_core::heightmap_io::elevation::{import_regions, open, read_all, scan, NoData};
use terrain_core::heightmap_io::geotiff::{self, Compression, Sample, WriteOptions};
use terrain_core::heightmap_io::hgt;
use terrain_core::progress::Progress;

fn status(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}

/// (median seconds of `runs`, peak resident growth in MB over them).
fn measure(runs: usize, mut f: impl FnMut()) -> (f64, u64) {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let base = status("VmRSS:");
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            // Earlier writes' dirty pages are flushed first, so a run does not pay for the one before.
            let _ = std::process::Command::new("sync").status();
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[runs / 2], status("VmHWM:").saturating_sub(base) >> 20)
}

fn read_bytes(p: &Path) {
    std::hint::black_box(std::fs::read(p).unwrap());
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-elevation");
    std::fs::create_dir_all(&dir).unwrap();
    let tile = dir.join("N46E010.hgt");
    std::fs::write(
        &tile,
        hgt::encode(3601, |z, x| Some(((x * 7 + z * 3) % 4000) as i16)),
    )
    .unwrap();
    let (read, _) = measure(3, || {
        let mut r = open(std::slice::from_ref(&tile)).unwrap();
        std::hint::black_box(scan(r.as_mut()).unwrap());
    });
    let (t, mem) = measure(3, || {
        std::hint::black_box(read_all(std::slice::from_ref(&tile), u64::MAX).unwrap());
    });
    println!("elevation/hgt_3601_into_memory: {:.3} s, {mem} MB peak growth; reading the file {:.3} s ({:.1}x)", t, read, t / read);

    let side: usize = std::env::var("WT_ELEVATION_SIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16384);
    let tif = dir.join("big.tif");
    let opt = WriteOptions {
        sample: Sample::F32,
        compression: Compression::None,
        rows_per_strip: 16,
        ..Default::default()
    };
    geotiff::write(&tif, side, side, &opt, |z, row| {
        row.extend((0..side).map(|x| ((x * 13 + z * 7) % 5000) as f64))
    })
    .unwrap();
    let (bytes, _) = measure(3, || read_bytes(&tif));
    let (decode, _) = measure(3, || {
        let mut r = open(std::slice::from_ref(&tif)).unwrap();
        std::hint::black_box(scan(r.as_mut()).unwrap());
    });
    // What the import must write at least: the region files' bytes (all mips, 1 MB files), written alone.
    let files = dir.join("write_reference");
    let region = vec![7u8; 512 * 512 * 4];
    let count = (side * side * 4 * 4 / 3).div_ceil(region.len());
    let (write, _) = measure(3, || {
        let _ = std::fs::remove_dir_all(&files);
        std::fs::create_dir_all(&files).unwrap();
        for i in 0..count {
            std::fs::write(files.join(format!("{i}.bin")), &region).unwrap();
        }
    });
    let _ = std::fs::remove_dir_all(&files);
    let out = dir.join("big_regions");
    let (t, mem) = measure(3, || {
        import_regions(
            std::slice::from_ref(&tif),
            &out,
            512,
            NoData::Holes,
            terrain_core::terrain_regions::Existing::Replace,
            &Progress::default(),
        )
        .unwrap();
    });
    println!(
        "elevation/geotiff_{side}_into_regions: {t:.2} s, {mem} MB peak growth; reading the file {decode:.2} s ({:.2}x), \
         writing its region files' bytes alone {write:.2} s (read + write {:.2}x), raw bytes {bytes:.2} s",
        t / decode,
        t / (decode + write)
    );
    let _ = std::fs::remove_file(&tif);
    let _ = std::fs::remove_dir_all(&out);
}
