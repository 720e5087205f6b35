use super::*;
use crate::brush::{Brush, Falloff, Tool};
use crate::sample_rect::SampleRect;
use crate::terrain_data::TerrainData;
use crate::test_terrains::Waves;

fn ground() -> TerrainData {
    Waves {
        x: (0.05, 3.0),
        z: (0.07, 2.0),
        jitter: (13, 0.01),
    }
    .terrain(96, 80, 1.0)
}

fn brush(tool: Tool, size: f64) -> Brush {
    Brush::new(tool, size, 2.5, Falloff::Hardness(0.3), 4.0).unwrap()
}

/// A counter-based stream of numbers in [0, 1) (the same on every run).
fn unit(i: u64) -> f64 {
    (crate::hash::mix(i ^ 0x9e37_79b9) >> 11) as f64 / (1u64 << 53) as f64
}

/// `n` edits of every kind at places drawn from `unit`.
fn edits(n: usize) -> Vec<Edit> {
    (0..n)
        .map(|i| {
            let u = |k: u64| unit(i as u64 * 8 + k);
            let at = [u(0) * 96.0, u(1) * 80.0];
            let rect = SampleRect {
                x: (u(2) * 80.0) as i64,
                z: (u(3) * 64.0) as i64,
                w: 1 + (u(4) * 15.0) as usize,
                d: 1 + (u(5) * 15.0) as usize,
            };
            let n = rect.w * rect.d;
            match i % 10 {
                0 | 1 => Edit::dab(&brush(Tool::Raise, 6.0 + 10.0 * u(6)), at, 0.016),
                2 => Edit::dab(&brush(Tool::Smooth, 9.0), at, 0.02),
                3 => Edit::dab(&brush(Tool::Flatten, 7.0), at, 0.05),
                4 => Edit::dab(&brush(Tool::Erode, 8.0), at, 0.1),
                5 => Edit::dab(
                    &brush(
                        Tool::Paint {
                            layer: i % 7,
                            erase: i % 3 == 0,
                        },
                        8.0,
                    ),
                    at,
                    0.1,
                ),
                6 => Edit::dab(&brush(Tool::HoleAdd, 3.0), at, 0.0),
                7 => Some(Edit::Heights {
                    rect,
                    values: (0..n)
                        .map(|k| (u(7) * 10.0) as f32 + k as f32 * 0.01)
                        .collect(),
                }),
                8 => Some(Edit::Paint {
                    rect,
                    layer: (i % 5) as u8,
                    weights: (0..n).map(|k| ((k % 4) as f32) * 0.25).collect(),
                }),
                _ => Some(Edit::Holes {
                    rect,
                    holes: (0..n).map(|k| u8::from(k % 3 == 0)).collect(),
                }),
            }
            .expect("every test edit has a compact form")
        })
        .collect()
}

/// Records `edits` on a copy of `ground()`: each applied as its bytes decode, as a receiver would.
fn record(edits: &[Edit]) -> (TerrainData, EditLog) {
    let mut t = ground();
    let mut log = EditLog::new(7);
    for e in edits {
        let op = log.prepare(e.clone());
        let bytes = op.encode();
        Op::decode(&bytes).unwrap().edit.apply(&mut t).unwrap();
        log.commit(bytes);
    }
    (t, log)
}

fn hash(t: &TerrainData) -> u64 {
    content_hash(t.heights(), t.control_map())
}

/// `ops` replayed in a pool of `threads` threads, each through `receive`.
fn replay(ops: &[Vec<u8>], threads: usize) -> TerrainData {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut t = ground();
        let mut log = EditLog::new(7);
        for b in ops {
            deliver(&mut log, &mut t, b);
        }
        assert_eq!(log.held(), 0);
        t
    })
}

/// One arrival: applied with every held operation it unblocks.
fn deliver(log: &mut EditLog, t: &mut TerrainData, b: &[u8]) {
    if let Arrival::Next(op) = log.receive(b).unwrap() {
        op.edit.apply(t).unwrap();
        log.commit(b.to_vec());
        while let Some((op, bytes)) = log.take_ready() {
            op.edit.apply(t).unwrap();
            log.commit(bytes);
        }
    }
}

#[test]
fn a_dab_is_48_bytes_and_every_kind_round_trips() {
    let d = Edit::dab(&brush(Tool::Raise, 8.0), [1.25, 2.5], 0.016).unwrap();
    let op = Op {
        map: 3,
        sequence: 9,
        edit: d,
    };
    assert_eq!(op.encode().len(), op::DAB_BYTES);
    assert_eq!(op::DAB_BYTES, 48);
    for e in edits(40) {
        let op = Op {
            map: 1,
            sequence: 2,
            edit: e,
        };
        assert_eq!(Op::decode(&op.encode()).unwrap(), op);
    }
    // A slope and a curve falloff have longer forms.
    let slope = Tool::Slope {
        from: [0.0, 1.0, 2.0],
        to: [30.0, 5.0, 40.0],
    };
    let b = Brush::new(slope, 5.0, 1.0, Falloff::Curve(vec![1.0, 0.5, 0.0]), 0.0).unwrap();
    let e = Edit::dab(&b, [3.0, 4.0], 0.5).unwrap();
    let op = Op {
        map: 1,
        sequence: 0,
        edit: e,
    };
    assert_eq!(Op::decode(&op.encode()).unwrap(), op);
}

#[test]
fn image_and_instancer_brushes_have_no_compact_form() {
    let mask = crate::brush::Mask::new(2, 2, vec![1.0; 4]);
    let b = brush(Tool::Raise, 4.0).with_mask(mask);
    assert!(Edit::dab(&b, [1.0, 1.0], 0.1).is_none());
    let b = brush(
        Tool::Instances {
            mesh: None,
            erase: false,
        },
        4.0,
    );
    assert!(Edit::dab(&b, [1.0, 1.0], 0.1).is_none());
}

#[test]
fn truncated_or_damaged_operations_are_refused() {
    for e in edits(10) {
        let bytes = Op {
            map: 1,
            sequence: 0,
            edit: e,
        }
        .encode();
        for n in 0..bytes.len() {
            assert!(
                Op::decode(&bytes[..n]).is_err(),
                "{n} of {} bytes",
                bytes.len()
            );
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(Op::decode(&long).is_err());
        let mut kind = bytes.clone();
        kind[0] = 99;
        assert_eq!(Op::decode(&kind), Err(OpError::Kind(99)));
        let mut format = bytes.clone();
        format[1] = op::FORMAT + 1;
        assert_eq!(Op::decode(&format), Err(OpError::Format(op::FORMAT + 1)));
    }
    // A dab whose size is NaN, a paint layer past the last.
    let mut b = Op {
        map: 1,
        sequence: 0,
        edit: Edit::dab(&brush(Tool::Raise, 4.0), [1.0, 1.0], 0.1).unwrap(),
    }
    .encode();
    b[op::HEADER + 20..op::HEADER + 24].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(matches!(
        Op::decode(&b),
        Err(OpError::Value { field: "brush", .. })
    ));
    let mut b = Op {
        map: 1,
        sequence: 0,
        edit: Edit::Paint {
            rect: SampleRect {
                x: 0,
                z: 0,
                w: 1,
                d: 1,
            },
            layer: 1,
            weights: vec![0.5],
        },
    }
    .encode();
    b[2] = 63;
    assert!(matches!(
        Op::decode(&b),
        Err(OpError::Value { field: "layer", .. })
    ));
}

#[test]
fn replays_are_equal_bit_for_bit_whatever_the_threads() {
    let (recorded, log) = record(&edits(1000));
    let want = hash(&recorded);
    assert_ne!(want, hash(&ground()));
    for threads in [1, 2, 5] {
        let t = replay(log.ops(), threads);
        assert_eq!(hash(&t), want, "{threads} threads");
        assert_eq!(
            t.heights().iter().map(|h| h.to_bits()).collect::<Vec<_>>(),
            recorded
                .heights()
                .iter()
                .map(|h| h.to_bits())
                .collect::<Vec<_>>()
        );
        assert_eq!(t.control_map(), recorded.control_map());
    }
}

#[test]
fn operations_out_of_order_are_held_until_their_turn() {
    let (recorded, log) = record(&edits(200));
    // Reversed in blocks of 7, some sent twice.
    let mut shuffled: Vec<Vec<u8>> = Vec::new();
    for block in log.ops().chunks(7) {
        shuffled.extend(block.iter().rev().cloned());
        shuffled.push(block[0].clone());
    }
    let t = replay(&shuffled, 2);
    assert_eq!(hash(&t), hash(&recorded));
}

#[test]
fn a_refused_arrival_leaves_the_log_as_it_was() {
    let (_, log) = record(&edits(5));
    let mut other = EditLog::new(8);
    let b = &log.ops()[0];
    assert_eq!(
        other.receive(b),
        Err(LogError::OtherMap { got: 7, want: 8 })
    );
    let mut mine = EditLog::new(7);
    assert!(mine.receive(&b[..b.len() - 1]).is_err());
    assert_eq!((mine.next(), mine.held()), (0, 0));
    assert_eq!(mine.receive(&log.ops()[2]), Ok(Arrival::Held));
    assert_eq!(mine.receive(&log.ops()[2]), Ok(Arrival::Duplicate));
    assert!(matches!(mine.receive(b), Ok(Arrival::Next(_))));
    // A saved log loads only when every operation is this map's and in its place.
    let mut ops = log.ops().to_vec();
    assert!(mine.load(7, ops.clone()).is_ok());
    assert_eq!(mine.next(), 5);
    ops.swap(1, 2);
    assert!(matches!(mine.load(7, ops), Err((1, _))));
    assert_eq!(mine.next(), 5);
}
