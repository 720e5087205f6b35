//! Water over 1024² of generated hills (1 m samples): lakes by depression filling, and flow accumulation
//! (goals: lakes ≤ 200 ms, flow ≤ 300 ms). Reference: one pass over the heights (their sum).
use criterion::{criterion_group, criterion_main, Criterion};
use terrain_core::generation::{generate, NoiseParams};
use terrain_core::water::{find_lakes, flow, Grid};

fn bench(c: &mut Criterion) {
    let n = 1024;
    let mut h = vec![0.0; n * n];
    let p = NoiseParams {
        seed: 11,
        height: 80.0,
        frequency: 0.006,
        ..Default::default()
    };
    generate(&p, n, &mut h).unwrap();
    let g = Grid {
        heights: &h,
        w: n,
        d: n,
        spacing: 1.0,
    };
    let mut b = c.benchmark_group("water_1024");
    b.sample_size(10);
    b.bench_function("reference_sum_of_heights", |bb| {
        bb.iter(|| h.iter().map(|&v| f64::from(v)).sum::<f64>())
    });
    b.bench_function("find_lakes", |bb| {
        bb.iter(|| find_lakes(g, f32::NEG_INFINITY, 100.0, 0.5).unwrap().len())
    });
    b.bench_function("flow_accumulation", |bb| {
        bb.iter(|| flow(g, f32::NEG_INFINITY).unwrap().accumulation.len())
    });
    b.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
