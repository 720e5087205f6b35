//! Prints the time of each stage of wandering mesh generation (`cargo run --release --example mesh_timing`).
use std::time::Instant;
use terrain_core::wandering_mesh::{prepare, LodConfig, DEFAULT_VERTEX_BUDGET};

fn main() {
    let cfg = LodConfig::new(1.0, 8, &[4; 6], DEFAULT_VERTEX_BUDGET).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let p = prepare(&cfg);
        let t1 = t.elapsed();
        let mut pos = vec![[0.0f32; 3]; p.vertex_count()];
        let mut idx = vec![0i32; p.index_count()];
        // Touch the pages first, as Godot's zero-filling resize does: the timings below are the writing.
        idx.fill(1);
        pos.fill([1.0; 3]);
        let t2 = t.elapsed();
        p.write_vertices(&mut pos, |x, z| [x, 0.0, z]);
        let t3 = t.elapsed();
        p.write_indices(&mut idx);
        let t4 = t.elapsed();
        println!(
            "prepare {t1:?}, alloc + touch {:?}, vertices {:?}, indices {:?}",
            t2 - t1,
            t3 - t2,
            t4 - t3
        );
    }
}
