//! Times edits on a region map (a diagnostic; `cargo run --release -p terrain_core --example
//! region_edit_timing -- FOLDER`).
use std::time::Instant;
use terrain_core::brush::{Brush, Falloff, Tool};
use terrain_core::terrain_edit::TerrainEdit;
use terrain_core::terrain_regions::TerrainRegions;

fn main() {
    let dir = std::env::args().nth(1).expect("a region folder");
    let r = TerrainRegions::open(std::path::Path::new(&dir)).unwrap();
    let n = r.meta().width;
    let (x, z) = (n / 4, n / 4);
    let _ = r.heights_region(x - 200, z - 200, 700, 700);
    for k in 0..5 {
        let t0 = Instant::now();
        let h = r.heights_region(x + k * 13, z + k * 7, 256, 256);
        let t1 = Instant::now();
        r.set_heights_region(x + k * 13, z + k * 7, 256, 256, &h)
            .unwrap();
        let t2 = Instant::now();
        let b = Brush::new(Tool::Raise, 256.0, 2.0, Falloff::Hardness(0.5), 0.0).unwrap();
        TerrainEdit::apply_brush(
            &mut &r,
            &b,
            [(x + 128) as f64, (z + 128) as f64],
            1.0 / 60.0,
        )
        .unwrap();
        let t3 = Instant::now();
        println!(
            "read 256² {:.2} ms, set 256² {:.2} ms, 256 dab {:.2} ms",
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3,
            (t3 - t2).as_secs_f64() * 1e3
        );
    }
    r.discard_changes();
}
