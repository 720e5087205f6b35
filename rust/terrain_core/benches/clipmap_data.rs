//! Clipmap data windows: the CPU work of a 256² edit on a 4096² terrain around the target (every level's
//! window touched), of one step of a target moving at 100 m/s, and of filling every window from scratch;
//! the same for an endless generated world (300 m/s).
use criterion::{criterion_group, criterion_main, Criterion};
use terrain_core::clipmap::ClipmapConfig;
use terrain_core::clipmap_data::{ClipmapData, Frame};
use terrain_core::generation::{generate, Generated, NoiseParams};
use terrain_core::terrain_data::TerrainData;

fn bench(c: &mut Criterion) {
    let n = 4096;
    let mut h = vec![0.0; n * n];
    let p = NoiseParams {
        seed: 3,
        height: 100.0,
        frequency: 0.004,
        ..Default::default()
    };
    generate(&p, n, &mut h).unwrap();
    let mut t = TerrainData::from_heights(n, n, 1.0, h).unwrap();
    let cfg = ClipmapConfig::new(32, 7, 1.0).unwrap();
    let frame = Frame::default();
    let mut cd = ClipmapData::new(&cfg);
    cd.follow(&t, &frame, [2048.0, 2048.0]);
    let mut g = c.benchmark_group("clipmap_data");
    let vals = vec![30.0f32; 256 * 256];
    let r = t.region(1920, 1900, 256, 256).unwrap();
    let grown = t.set_heights_region(r, &vals).unwrap();
    g.bench_function("refresh_after_256x256_edit_on_4096", |b| {
        b.iter(|| cd.refresh(&t, &frame, grown))
    });
    g.bench_function("set_heights_region_256x256", |b| {
        b.iter(|| t.set_heights_region(r, &vals).unwrap())
    });
    let mut x = 2048.0;
    g.bench_function("follow_step_100m_per_s", |b| {
        b.iter(|| {
            x += 100.0 / 60.0;
            if x > 3000.0 {
                x = 1000.0;
            }
            cd.follow(&t, &frame, [x, 2048.0])
        })
    });
    g.bench_function("fill_all_windows", |b| {
        b.iter(|| {
            cd.invalidate();
            cd.follow(&t, &frame, [2048.0, 2048.0])
        })
    });
    // The endless generator: the same fractal computed per sample instead of read.
    let gen = Generated::new(&p, 1.0).unwrap();
    let mut ge = ClipmapData::new(&cfg);
    ge.follow(&gen, &frame, [0.0, 0.0]);
    let mut gx = 0.0;
    g.bench_function("generated_follow_step_300m_per_s", |b| {
        b.iter(|| {
            gx += 300.0 / 60.0;
            ge.follow(&gen, &frame, [gx, 0.0])
        })
    });
    g.sample_size(10);
    g.bench_function("generated_fill_all_windows", |b| {
        b.iter(|| {
            ge.invalidate();
            ge.follow(&gen, &frame, [0.0, 0.0])
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
