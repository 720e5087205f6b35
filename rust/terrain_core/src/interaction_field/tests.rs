use super::*;

fn stamp(x: f64, z: f64, radius: f64, strength: f32) -> Stamp {
    Stamp {
        from: [x, z],
        centre: [x, z],
        radius,
        strength,
        falloff: 0.5,
        shape: StampShape::Round,
    }
}

fn field() -> InteractionField {
    let mut f = InteractionField::new(InteractionConfig::default());
    f.begin_frame(0.0, [0.0, 0.0]);
    f
}

#[test]
fn settings_outside_their_ranges_are_refused_by_name() {
    assert!(InteractionConfig::new(512, 0.25, 20.0).is_ok());
    let e = InteractionConfig::new(100, 0.25, 20.0).unwrap_err();
    assert!(e.to_string().contains("interaction_size must be 64..=2048"));
    let e = InteractionConfig::new(512, f64::NAN, 20.0).unwrap_err();
    assert!(e.to_string().contains("interaction_texel_size"));
    let e = InteractionConfig::new(512, 0.25, 0.0).unwrap_err();
    assert!(e.to_string().contains("interaction_recovery_time"));
    assert_eq!(InteractionConfig::default().bytes(), 1 << 20);
}

#[test]
fn a_stamp_presses_to_its_strength_and_recovers_linearly() {
    let mut f = field();
    assert!(f.stamp(&stamp(10.0, 10.0, 2.0, 1.0)));
    assert!((f.trample(10.0, 10.0) - 1.0).abs() < 1e-3);
    // Beyond the radius: untouched.
    assert_eq!(f.trample(12.5, 10.0), 0.0);
    // Half the recovery time later, half; after it, nothing.
    f.begin_frame(10.0, [0.0, 0.0]);
    assert!((f.trample(10.0, 10.0) - 0.5).abs() < 1e-3);
    f.begin_frame(10.0, [0.0, 0.0]);
    assert_eq!(f.trample(10.0, 10.0), 0.0);
    assert!(f.is_blank());
}

#[test]
fn a_weaker_stamp_never_lowers_the_field_and_the_profile_fades_outward() {
    let mut f = field();
    f.stamp(&stamp(0.0, 0.0, 2.0, 1.0));
    f.begin_frame(1.0 / 60.0, [0.0, 0.0]);
    f.stamp(&stamp(0.0, 0.0, 2.0, 0.2));
    assert!(f.trample(0.0, 0.0) > 0.99);
    let inner = f.trample(0.5, 0.0);
    let outer = f.trample(1.6, 0.0);
    assert!(inner > outer && outer > 0.0, "{inner} {outer}");
}

#[test]
fn bad_stamps_draw_nothing() {
    let mut f = field();
    assert!(!f.stamp(&stamp(f64::NAN, 0.0, 1.0, 1.0)));
    assert!(!f.stamp(&stamp(0.0, 0.0, f64::NAN, 1.0)));
    assert!(!f.stamp(&stamp(0.0, 0.0, 1.0, f32::NAN)));
    assert!(!f.stamp(&stamp(0.0, 0.0, -1.0, 1.0)));
    assert!(!f.stamp(&stamp(1e6, 0.0, 1.0, 1.0)), "outside the window");
    assert!(f.frame().stamps.is_empty());
    assert_eq!(f.trample(f64::NAN, 0.0), 0.0);
}

#[test]
fn at_most_max_stamps_a_frame() {
    let mut f = field();
    for i in 0..MAX_STAMPS + 5 {
        f.stamp(&stamp(i as f64 * 0.1 - 20.0, 0.0, 0.5, 1.0));
    }
    assert_eq!(f.frame().stamps.len(), MAX_STAMPS);
}

#[test]
fn moving_the_window_clears_what_comes_into_view() {
    let mut f = field();
    // A press near the window's west edge (the window spans 128 m around the camera).
    f.stamp(&stamp(-60.0, 0.0, 1.0, 1.0));
    assert!(f.trample(-60.0, 0.0) > 0.9);
    // The camera goes east: the press leaves the window, its slots come back on the east side cleared.
    f.begin_frame(0.0, [40.0, 0.0]);
    assert_eq!(f.trample(-60.0, 0.0), 0.0);
    let s = f.config().size() as i64;
    let clears = &f.frame().clears;
    assert_eq!(clears.len(), 1, "{clears:?}");
    let c = clears[0];
    assert_eq!((c[1], c[3]), (0, s), "whole columns");
    assert_eq!(c[2], s, "on the east side");
    // The slots that held the press now stand for ground ~68 m east: blank there.
    let east = -60.0 + 128.0;
    assert_eq!(f.trample(east, 0.0), 0.0);
    // Back west: still blank (the strip was cleared when it came into view again).
    f.begin_frame(0.0, [0.0, 0.0]);
    assert_eq!(f.trample(-60.0, 0.0), 0.0);
}

#[test]
fn the_gpu_stamp_gives_the_texels_the_cpu_stored() {
    let mut f = field();
    f.begin_frame(3.3, [0.0, 0.0]);
    f.stamp(&Stamp {
        from: [0.4, -3.0],
        centre: [1.3, -2.2],
        radius: 1.7,
        strength: 0.8,
        falloff: 0.3,
        shape: StampShape::Square,
    });
    let g = f.frame().stamps[0];
    let o = f.origin().unwrap();
    let now = f.now().floor() as f32;
    let mut pressed = 0;
    for j in 0..512 {
        for i in 0..512 {
            let v = g.time_at(i, j, now);
            assert_eq!(f.texels[f.slot(o[0] + i, o[1] + j)], v);
            pressed += (v > 0) as u32;
        }
    }
    // A square of side 3.4 m at 0.25 m texels swept 1.2 m, its outer 30 % fading.
    assert!((200..=320).contains(&pressed), "{pressed}");
}

#[test]
fn the_field_starts_over_before_its_times_overflow() {
    let mut f = field();
    f.begin_frame(MAX_UNITS as f64 / UNITS_PER_SECOND - 30.0, [0.0, 0.0]);
    f.stamp(&stamp(0.0, 0.0, 1.0, 1.0));
    assert!(f.trample(0.0, 0.0) > 0.9);
    f.begin_frame(20.0, [0.0, 0.0]);
    assert!(f.frame().clear_all);
    assert_eq!(f.trample(0.0, 0.0), 0.0);
    assert!(f.now() < 1.0);
}

#[test]
fn a_clear_between_frames_reaches_the_next_frame() {
    let mut f = field();
    f.begin_frame(0.1, [0.0, 0.0]);
    assert!(!f.frame().clear_all);
    f.stamp(&stamp(0.0, 0.0, 1.0, 1.0));
    f.clear();
    f.begin_frame(0.1, [0.0, 0.0]);
    assert!(f.frame().clear_all);
    assert_eq!(f.trample(0.0, 0.0), 0.0);
    f.begin_frame(0.1, [0.0, 0.0]);
    assert!(!f.frame().clear_all);
}

#[test]
fn a_fast_stamp_leaves_a_trail_not_prints() {
    let mut f = field();
    // 1.5 m a frame with a 0.3 m radius: the whole path is pressed.
    f.stamp(&Stamp {
        from: [0.0, 0.0],
        centre: [1.5, 0.0],
        ..stamp(1.5, 0.0, 0.3, 1.0)
    });
    for k in 0..=15 {
        let x = k as f64 * 0.1;
        assert!(f.trample(x, 0.0) > 0.9, "{x}: {}", f.trample(x, 0.0));
    }
    assert_eq!(f.trample(0.75, 0.5), 0.0);
}
