use super::*;
use crate::generation::{generate, NoiseParams};

fn hills(n: usize) -> Vec<f32> {
    let mut h = vec![0.0; n * n];
    generate(
        &NoiseParams {
            seed: 5,
            height: 40.0,
            frequency: 1.0 / 90.0,
            ..Default::default()
        },
        n,
        &mut h,
    )
    .unwrap();
    h
}

fn sum(h: &[f32]) -> f64 {
    h.iter().map(|&v| f64::from(v)).sum()
}

#[test]
fn droplets_conserve_material_and_are_deterministic() {
    let n = 256;
    let mut a = hills(n);
    let before = sum(&a);
    let sim = Simulation {
        droplets: 30_000,
        seed: 9,
        ..Simulation::default()
    };
    let r = simulate(&mut a, n, 1.0, [0, 0, n, n], &sim, &Progress::default()).unwrap();
    assert!(r.eroded > 100.0, "{r:?}");
    // Eroded = deposited + carried off, and the heights say the same.
    assert!(
        (r.eroded - r.deposited - r.carried_off).abs() <= 1e-6 * r.eroded,
        "{r:?}"
    );
    let lost = before - sum(&a);
    assert!(
        (lost - r.carried_off).abs() <= 1e-3 * r.eroded,
        "lost {lost}, {r:?}"
    );
    // Same seed, same heights, bit for bit; another seed differs.
    let mut b = hills(n);
    simulate(&mut b, n, 1.0, [0, 0, n, n], &sim, &Progress::default()).unwrap();
    assert_eq!(a, b);
    let mut c = hills(n);
    let other = Simulation { seed: 10, ..sim };
    simulate(&mut c, n, 1.0, [0, 0, n, n], &other, &Progress::default()).unwrap();
    assert_ne!(a, c);
}

#[test]
fn only_the_region_changes_and_cancel_keeps_the_heights() {
    let n = 128;
    let orig = hills(n);
    let mut h = orig.clone();
    let region = [20, 30, 60, 50];
    simulate(
        &mut h,
        n,
        1.0,
        region,
        &Simulation {
            droplets: 5000,
            ..Simulation::default()
        },
        &Progress::default(),
    )
    .unwrap();
    let mut changed_inside = 0;
    for z in 0..n {
        for x in 0..n {
            let inside = (20..80).contains(&x) && (30..80).contains(&z);
            let same = h[z * n + x] == orig[z * n + x];
            assert!(inside || same, "({x}, {z}) outside the region changed");
            changed_inside += usize::from(inside && !same);
        }
    }
    assert!(changed_inside > 500);
    let p = Progress::default();
    p.cancel();
    let mut kept = orig.clone();
    assert!(simulate(&mut kept, n, 1.0, [0, 0, n, n], &Simulation::default(), &p).is_none());
    assert_eq!(kept, orig);
}

#[test]
fn thermal_erosion_flattens_cliffs_to_the_talus_and_conserves() {
    let n = 64;
    // A 20-unit step.
    let orig: Vec<f32> = (0..n * n)
        .map(|i| if i % n < 32 { 20.0 } else { 0.0 })
        .collect();
    let mut h = orig.clone();
    let sim = Simulation {
        droplets: 0,
        thermal_iterations: 400,
        talus: 30.0,
        ..Simulation::default()
    };
    simulate(&mut h, n, 1.0, [0, 0, n, n], &sim, &Progress::default()).unwrap();
    assert!((sum(&h) - sum(&orig)).abs() < 1e-2);
    let steepest = (1..n)
        .map(|x| (h[10 * n + x - 1] - h[10 * n + x]).abs())
        .fold(0.0f32, f32::max);
    assert!(steepest < 20.0 * 0.2, "steepest step {steepest}");
}

#[test]
fn settings_out_of_range_are_refused() {
    let ok = Simulation::default();
    assert!(ok.check().is_ok());
    for bad in [
        Simulation { inertia: 1.0, ..ok },
        Simulation {
            capacity: 0.0,
            ..ok
        },
        Simulation { lifetime: 0, ..ok },
        Simulation { talus: 90.0, ..ok },
        Simulation {
            droplets: MAX_DROPLETS + 1,
            ..ok
        },
        Simulation {
            erosion: f32::NAN,
            ..ok
        },
    ] {
        assert!(bad.check().is_err(), "{bad:?}");
    }
}

#[test]
fn the_filter_cuts_gullies_down_slopes_and_leaves_flat_ground() {
    let f = Filter {
        strength: 4.0,
        scale: 16.0,
        detail: 3,
        balance: 0.0,
        seed: 1,
    };
    // Flat: unchanged.
    assert_eq!(f.apply(7.0, [0.0, 0.0], 3.0, 4.0), 7.0);
    // A slope down +X: heights vary across it (along Z), not along it.
    let along: Vec<f64> = (0..64)
        .map(|i| f.apply(0.0, [-0.5, 0.0], f64::from(i) * 0.25, 10.0))
        .collect();
    let across: Vec<f64> = (0..64)
        .map(|i| f.apply(0.0, [-0.5, 0.0], 10.0, f64::from(i) * 0.25))
        .collect();
    let var = |v: &[f64]| v.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>();
    assert!(
        var(&across) > 2.0 * var(&along),
        "across {} along {}",
        var(&across),
        var(&along)
    );
    assert!(across.iter().all(|v| v.abs() <= 4.0 * 1.5 + 1e-9));
    // Off: unchanged.
    assert_eq!(
        Filter { strength: 0.0, ..f }.apply(3.0, [1.0, 1.0], 5.0, 5.0),
        3.0
    );
}

#[test]
fn one_thread_or_many_give_the_same_heights() {
    let n = 160;
    let sim = Simulation {
        droplets: 8000,
        seed: 4,
        thermal_iterations: 12,
        ..Simulation::default()
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut h = hills(n);
            simulate(&mut h, n, 1.0, [0, 0, n, n], &sim, &Progress::default()).unwrap();
            h
        })
    };
    assert_eq!(run(1), run(3));
}
