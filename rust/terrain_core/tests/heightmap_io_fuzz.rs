//! Fuzzing the heightmap parsers with proptest: arbitrary and mutated bytes never panic, never allocate past
//! the sample budget, and whatever decodes is well-formed (length = width * depth, finite heights).
//! (EXR files are decoded by Godot's own loader and checked through `import_image`.)
use proptest::prelude::*;
use terrain_core::heightmap_io::{
    decode_png, decode_raw_f32, decode_raw_u16, decode_u8, encode_png, FileFormat, Heightmap,
};

const BUDGET: u64 = 1 << 16;

fn well_formed(h: &Heightmap) {
    assert_eq!(h.heights.len(), h.width * h.depth);
    assert!(h.width >= 1 && h.depth >= 1);
    assert!((h.width * h.depth) as u64 <= BUDGET);
    assert!(h.heights.iter().all(|v| v.is_finite()));
}

fn a_png() -> Vec<u8> {
    let heights: Vec<f32> = (0..12 * 9).map(|i| (i % 17) as f32).collect();
    encode_png(&heights, 12, 9, 16, 0.0, 20.0).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600), width in 0usize..70,
                                lo in -1e6f64..1e6, span in 0f64..1e6) {
        let hi = lo + span;
        for h in [
            decode_png(&bytes, lo, hi, BUDGET),
            decode_raw_u16(&bytes, width, lo, hi, BUDGET),
            decode_raw_f32(&bytes, width, BUDGET),
            decode_u8(&bytes, width, lo, hi, BUDGET),
        ]
        .iter()
        .flatten()
        {
            well_formed(h);
        }
        for f in [FileFormat::Png, FileFormat::R16, FileFormat::R32, FileFormat::Exr] {
            if let Ok(h) = f.decode(&bytes, lo, hi, width, BUDGET) {
                well_formed(&h);
            }
        }
    }

    #[test]
    fn mutated_pngs_never_panic(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
                                cut in any::<prop::sample::Index>()) {
        let mut png = a_png();
        for (i, b) in flips {
            let k = i.index(png.len());
            png[k] = b;
        }
        let n = cut.index(png.len() + 1);
        for bytes in [&png[..], &png[..n]] {
            if let Ok(h) = decode_png(bytes, 0.0, 20.0, BUDGET) {
                well_formed(&h);
            }
        }
    }

    #[test]
    fn hostile_ranges_are_refused_or_finite(lo in prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(-1e300), Just(1e300), -10.0f64..10.0],
                                            hi in prop_oneof![Just(f64::NAN), Just(f64::NEG_INFINITY), Just(1e300), -10.0f64..10.0]) {
        let bytes = [1u8, 2, 3, 4, 250, 251, 252, 253];
        let decoded = [decode_raw_u16(&bytes, 2, lo, hi, BUDGET), decode_u8(&bytes, 4, lo, hi, BUDGET), decode_png(&a_png(), lo, hi, BUDGET)];
        for h in decoded.iter().flatten() {
            prop_assert!(h.heights.iter().all(|v| v.is_finite()), "{lo} {hi}");
        }
    }
}

#[test]
fn budget_is_checked_before_allocating() {
    // A PNG header claiming 2^31 x 2^31 pixels is refused by the budget, not by running out of memory.
    let mut png = a_png();
    // IHDR width/height start at byte 16.
    png[16..20].copy_from_slice(&0x7fff_ffffu32.to_be_bytes());
    png[20..24].copy_from_slice(&0x7fff_ffffu32.to_be_bytes());
    assert!(decode_png(&png, 0.0, 1.0, BUDGET).is_err());
    assert!(
        decode_raw_f32(&[0; 64], 1, 4).is_err(),
        "16 samples over a budget of 4"
    );
}
