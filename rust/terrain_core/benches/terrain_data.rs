//! TerrainData costs: slope pass, generation (vs the noise crate's own per-sample cost), get_height and the
//! batch sampler. Per-element throughput is reported by criterion (`thrpt`).
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use terrain_core::brush::{self, Brush, Falloff, Tool};
use terrain_core::generation::{generate, NoiseParams};
use terrain_core::terrain_data::{slope_pass, Region, TerrainData};

fn terrain(n: usize) -> TerrainData {
    let mut h = vec![0.0; n * n];
    generate(
        &NoiseParams {
            seed: 1,
            height: 40.0,
            ..Default::default()
        },
        n,
        &mut h,
    )
    .unwrap();
    TerrainData::from_heights(n, n, 1.0, h).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("terrain_data");
    let n = 1024;
    let t = terrain(n);
    let mut data = vec![[0.0f32; 3]; n * n];
    g.throughput(Throughput::Elements((n * n) as u64));
    g.bench_function("slope_pass_1024x1024", |b| {
        b.iter(|| {
            slope_pass(
                t.heights(),
                n,
                n,
                Region {
                    x: 0,
                    z: 0,
                    w: n,
                    d: n,
                },
                &mut data,
            )
        })
    });

    // The noise crate's own cost per sample (single thread), the reference for generation.
    let p = NoiseParams::default();
    let fbm = Fbm::<Perlin>::new(p.seed)
        .set_frequency(1.0)
        .set_octaves(p.octaves)
        .set_lacunarity(p.lacunarity)
        .set_persistence(p.gain);
    g.throughput(Throughput::Elements(4096));
    g.bench_function("noise_crate_fbm_row_4096_single_thread", |b| {
        b.iter(|| {
            (0..4096)
                .map(|x| fbm.get([x as f64 * p.frequency, 17.0 * p.frequency]))
                .sum::<f64>()
        })
    });
    g.sample_size(10);
    let side = 4096;
    let mut out = vec![0.0f32; side * side];
    g.throughput(Throughput::Elements((side * side) as u64));
    g.bench_function("generate_4096x4096", |b| {
        b.iter(|| generate(&p, side, &mut out).unwrap())
    });

    g.sample_size(30);
    let pts: Vec<[f32; 2]> = (0..1_000_000)
        .map(|i| {
            [
                ((i * 7919) % 100_003) as f32 / 100_003.0 * n as f32,
                ((i * 104_729) % 99_991) as f32 / 99_991.0 * n as f32,
            ]
        })
        .collect();
    g.throughput(Throughput::Elements(1));
    g.bench_function("get_height_single", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % pts.len();
            t.height_at(f64::from(pts[i][0]), f64::from(pts[i][1]))
        })
    });
    let mut hs = vec![0.0f32; pts.len()];
    g.throughput(Throughput::Elements(pts.len() as u64));
    g.bench_with_input(
        BenchmarkId::new("get_heights", "1M points"),
        &pts,
        |b, pts| b.iter(|| t.heights_at(pts, &mut hs)),
    );
    // The same count at points inside one patch: what the patch arithmetic costs once the samples are
    // in cache (the random points above add the memory reads).
    let near: Vec<[f32; 2]> = pts
        .iter()
        .map(|p| [100.0 + p[0].fract(), 100.0 + p[1].fract()])
        .collect();
    g.bench_with_input(
        BenchmarkId::new("get_heights", "1M points in one patch"),
        &near,
        |b, pts| b.iter(|| t.heights_at(pts, &mut hs)),
    );

    // One editor dab on a 4096² terrain: a radius-128 raise (65,536 samples) and a 64² paint.
    g.sample_size(30);
    let mut big = terrain(4096);
    let raise = Brush::new(Tool::Raise, 256.0, 2.0, Falloff::Hardness(0.0), 0.0).unwrap();
    let paint = Brush::new(
        Tool::Paint {
            layer: 1,
            erase: false,
        },
        64.0,
        2.0,
        Falloff::Hardness(0.0),
        0.0,
    )
    .unwrap();
    g.throughput(Throughput::Elements(256 * 256));
    let mut k = 0u32;
    g.bench_function("brush_raise_r128_on_4096", |b| {
        b.iter(|| {
            k = k.wrapping_add(1);
            let c = [2048.0 + f64::from(k % 7), 2048.0];
            brush::apply(&mut big, &raise, c, 1.0 / 60.0).unwrap()
        })
    });
    g.throughput(Throughput::Elements(64 * 64));
    g.bench_function("brush_paint_64_on_4096", |b| {
        b.iter(|| {
            k = k.wrapping_add(1);
            let c = [1024.0 + f64::from(k % 7), 1024.0];
            brush::apply(&mut big, &paint, c, 1.0 / 60.0).unwrap()
        })
    });
    // Picking rays: 256 slanted rays from 60 units up, across the terrain (the editor's cursor, a game's
    // mouse picking).
    let rays: Vec<([f64; 3], [f64; 3])> = (0..256)
        .map(|i| {
            let a = i as f64 * 0.731;
            let o = [
                100.0 + (i * 37 % 800) as f64,
                60.0,
                100.0 + (i * 61 % 800) as f64,
            ];
            ([o[0], o[1], o[2]], [a.cos(), -0.6, a.sin()])
        })
        .collect();
    g.throughput(Throughput::Elements(rays.len() as u64));
    g.bench_function("raycast/256 rays on 1024x1024", |b| {
        b.iter(|| {
            rays.iter()
                .filter(|(o, d)| terrain_core::raycast::raycast(&t, *o, *d).is_some())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
