//! Detail cells: generating one (grass at 8 per m², a cell of about 17 m: the 100 m radius' cells) on an
//! endless generated world through a copied block, as a worker does. Per-instance throughput (`thrpt`).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use terrain_core::detail::{
    generate_cell, DetailDraw, DetailGrid, DetailLayer, DetailRules, Ground,
};
use terrain_core::generation::{Generated, NoiseParams};
use terrain_core::instances::cell_samples;
use terrain_core::placement_rules::PlacementRules;
use terrain_core::samples::{SampleBlock, Samples};

fn bench(c: &mut Criterion) {
    let g = Generated::new(&NoiseParams::default(), 1.0).unwrap();
    let rules = DetailRules {
        density: 8.0,
        placement: PlacementRules {
            slope: [0.0, 90.0],
            ..DetailRules::default().placement
        },
        ..DetailRules::default()
    };
    let layer = DetailLayer {
        grid: DetailGrid::new(rules.density, 100.0 / 6.0).unwrap(),
        rules,
        ground: Ground::default(),
    };
    let key = (7, -3);
    let mut d = DetailDraw::default();
    let (o, n) = cell_samples(layer.grid.cell_area(key), g.spacing());
    let block = SampleBlock::copy(&g, o[0], o[1], n[0], n[1]);
    generate_cell(&layer, &block, key, &mut d);
    let mut group = c.benchmark_group("detail");
    group.throughput(Throughput::Elements(d.count() as u64));
    group.bench_function("generate_cell_8_per_m2", |b| {
        b.iter(|| {
            let block = SampleBlock::copy(&g, o[0], o[1], n[0], n[1]);
            generate_cell(&layer, &block, key, &mut d);
            d.count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
