//! Prints the time of each stage of wandering mesh generation (`cargo run --release --example mesh_timing`).
use std::time::Instant;
use terrain_core::wandering_mesh::{prepare, LodConfig, DEFAULT_VERTEX_BUDGET};

fn main() {
    let cfg = LodConfig::new(1.0, 8, &[4; 6], DEFAULT_VERTEX_BUDGET).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let p = prepare(&cfg);
        let t1 = t.elapsed();
        let mut idx = vec![0i32; p.index_count()];
        let t2 = t.elapsed();
        p.write_indices(&mut idx);
        let t3 = t.elapsed();
        println!("prepare {t1:?}, alloc {:?}, indices {:?}", t2 - t1, t3 - t2);
    }
}
