//! Kill test for region saves: a child process (this test binary, re-run with `WT_KILL_CHILD`) edits
//! every region of a map to one value per round and saves, over and over; the parent kills it at random
//! moments (20 runs). After each kill the map must open, every region file must pass its checksum, and
//! every region must hold one round's value throughout (its old content or its new, never a mix).
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
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
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis(40 + (seed >> 33) % 400));
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
    eprintln!("{saved} of 20 runs saved at least once; {mixed_rounds} were killed inside a save");
    assert!(saved >= 10, "the child saved in only {saved} of 20 runs");
    let _ = std::fs::remove_dir_all(&dir);
}
