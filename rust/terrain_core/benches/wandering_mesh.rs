//! Wandering mesh generation (vertices + index list), the two cases the original wandering terrain's figures name.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use terrain_core::wandering_mesh::{prepare, LodConfig, DEFAULT_VERTEX_BUDGET};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("wandering_mesh");
    g.sample_size(20);
    for (name, sub, lods) in [
        ("6_[2,2,2,2]", 6, vec![2; 4]),
        ("8_[4,4,4,4,4,4]", 8, vec![4; 6]),
    ] {
        let cfg = LodConfig::new(1.0, sub, &lods, DEFAULT_VERTEX_BUDGET).unwrap();
        g.bench_with_input(BenchmarkId::new("generate", name), &cfg, |b, cfg| {
            b.iter(|| {
                let p = prepare(cfg);
                let mut pos = vec![[0.0f32; 3]; p.vertex_count()];
                p.write_vertices(&mut pos, |x, z| [x, 0.0, z]);
                let mut idx = vec![0i32; p.index_count()];
                p.write_indices(&mut idx);
                (pos, idx)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
