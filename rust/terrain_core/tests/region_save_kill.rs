//! Kill test for region saves: a child process (this test binary, re-run with `WT_KILL_CHILD`) edits
//! every region of a map to one value per round and saves, over and over; the parent kills it at a random
//! moment of a save (20 runs): after the child reports its second save, within the time one save took
//! (measured between the two reports, so the aim does not depend on how fast this machine saves). After each kill the map must open, every region file must pass its checksum, and
//! every region must hold one round's value throughout (its old content or its new, never a mix).
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use terrain_core::terrain_data::TerrainData;
use terrain_core::terrain_regions::{save, Existing, TerrainRegions};

const SIDE: usize = 256;
const REGION: usize = 32;

fn child(dir: &Path) {
    let r = TerrainRegions::open(dir).unwrap();
    for round in 1.. {
        r.set_heights_region(0, 0, SIDE, SIDE, &vec![round as f32; SIDE * SIDE])
            .unwrap();
        r.save().unwrap();
        println!("saved {round}");
    }
}

#[test]
fn a_killed_save_leaves_every_region_old_or_new() {
    if let Ok(dir) = std::env::var("WT_KILL_CHILD") {
        child(Path::new(&dir));
        return;
    }
    let dir: PathBuf = std::env::temp_dir().join(format!("wt_kill_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    save(
        &dir,
        &TerrainData::flat(SIDE, SIDE, 1.0),
        REGION,
        Existing::Refuse,
    )
    .unwrap();
    let mut seed = 0x9e37_79b9_u64;
    let (mut saved, mut mixed_rounds) = (0, 0);
    for run in 0..20 {
        let mut c = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_killed_save_leaves_every_region_old_or_new",
                "--nocapture",
            ])
            .env("WT_KILL_CHILD", &dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(c.stdout.take().unwrap());
        let mut saved_line = |what: &str| {
            let mut line = String::new();
            while !line.starts_with("saved") {
                line.clear();
                let n = out.read_line(&mut line).unwrap();
                assert!(n > 0, "run {run}: the child ended before its {what} save");
            }
            Instant::now()
        };
        let first = saved_line("first");
        let one_save = saved_line("second") - first;
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let fraction = (seed >> 33) as f64 / (1u64 << 31) as f64;
        std::thread::sleep(one_save.mul_f64(fraction));
        c.kill().unwrap();
        c.wait().unwrap();
        let r = TerrainRegions::open(&dir)
            .unwrap_or_else(|e| panic!("run {run}: the map does not open: {e}"));
        for rz in 0..SIDE / REGION {
            for rx in 0..SIDE / REGION {
                let h = r.heights_region(rx * REGION, rz * REGION, REGION, REGION);
                assert!(
                    h.iter()
                        .all(|&v| v == h[0] && v.is_finite() && v.fract() == 0.0),
                    "run {run}: region ({rx}, {rz}) mixes contents"
                );
            }
        }
        assert!(
            r.take_failures().is_empty(),
            "run {run}: {:?}",
            r.take_failures()
        );
        let all = r.heights_region(0, 0, SIDE, SIDE);
        saved += usize::from(all.iter().any(|&v| v != 0.0));
        // Regions of different rounds at once: the kill landed inside a save.
        mixed_rounds += usize::from(all.iter().any(|&v| v != all[0]));
    }
    eprintln!("{mixed_rounds} of 20 runs were killed inside a save");
    assert_eq!(saved, 20, "every run saved twice before its kill");
    // Each run lands inside a save with a good chance (about 0.6 here): none in 20 means the aim is off.
    assert!(mixed_rounds >= 1, "no kill landed inside a save");
    let _ = std::fs::remove_dir_all(&dir);
}
