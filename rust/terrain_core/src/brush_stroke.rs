//! One brush stroke's undo data, kept next to the edit: the samples it touched, in 32 × 32 chunks, before
//! and after. A chunk is saved the first time a dab can reach it, before the dab changes it, so a stroke
//! keeps about twice the data of the area it touched and nothing else (the start / operate / stop shape
//! of an editor operation). Generic over the values saved: heights, or control values for holes and paint.

use crate::sample_rect::SampleRect;
use std::collections::BTreeMap;

/// Chunk side, samples.
pub const CHUNK: i64 = 32;

/// One chunk's rectangle (clipped to the map) and its values before and after the stroke.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk<V> {
    pub rect: SampleRect,
    pub before: Vec<V>,
    pub after: Vec<V>,
}

/// The chunks a stroke saved, in key order (undo writes them back in a fixed order).
#[derive(Clone, Debug, Default)]
pub struct StrokeChunks<V> {
    chunks: BTreeMap<[i64; 2], Chunk<V>>,
}

impl<V: Clone + PartialEq> StrokeChunks<V> {
    pub fn new() -> Self {
        Self {
            chunks: BTreeMap::new(),
        }
    }

    /// The chunks rectangle `dab` touches inside `bounds` that are not saved yet: (key, rectangle).
    pub fn unsaved(&self, dab: SampleRect, bounds: SampleRect) -> Vec<([i64; 2], SampleRect)> {
        let dab = dab.intersect(bounds);
        if dab.is_empty() {
            return Vec::new();
        }
        let first = [dab.x.div_euclid(CHUNK), dab.z.div_euclid(CHUNK)];
        let last = [
            (dab.x + dab.w as i64 - 1).div_euclid(CHUNK),
            (dab.z + dab.d as i64 - 1).div_euclid(CHUNK),
        ];
        let mut out = Vec::new();
        for cz in first[1]..=last[1] {
            for cx in first[0]..=last[0] {
                if self.chunks.contains_key(&[cx, cz]) {
                    continue;
                }
                let whole = SampleRect {
                    x: cx * CHUNK,
                    z: cz * CHUNK,
                    w: CHUNK as usize,
                    d: CHUNK as usize,
                };
                let r = whole.intersect(bounds);
                if !r.is_empty() {
                    out.push(([cx, cz], r));
                }
            }
        }
        out
    }

    /// Saves chunk `key`'s values before the stroke reaches it.
    pub fn save(&mut self, key: [i64; 2], rect: SampleRect, before: Vec<V>) {
        self.chunks.entry(key).or_insert(Chunk {
            rect,
            before,
            after: Vec::new(),
        });
    }

    /// Ends the stroke: `read` gives each chunk's values now; chunks the stroke did not change are
    /// dropped. Returns whether anything changed.
    pub fn finish(&mut self, mut read: impl FnMut(SampleRect) -> Vec<V>) -> bool {
        for c in self.chunks.values_mut() {
            c.after = read(c.rect);
        }
        self.chunks.retain(|_, c| c.after != c.before);
        !self.chunks.is_empty()
    }

    /// Each chunk's rectangle and its values before (`after` false) or after the stroke.
    pub fn states(&self, after: bool) -> impl Iterator<Item = (SampleRect, &[V])> {
        self.chunks.values().map(move |c| {
            let v = if after { &c.after } else { &c.before };
            (c.rect, v.as_slice())
        })
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Bytes kept for undo and redo.
    pub fn byte_size(&self) -> usize {
        self.chunks
            .values()
            .map(|c| (c.before.len() + c.after.len()) * std::mem::size_of::<V>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x: i64, z: i64, w: usize, d: usize) -> SampleRect {
        SampleRect { x, z, w, d }
    }

    #[test]
    fn a_dab_saves_each_chunk_it_reaches_once_clipped_to_the_map() {
        let bounds = rect(0, 0, 100, 70);
        let mut s = StrokeChunks::<f32>::new();
        let first = s.unsaved(rect(20, 20, 20, 20), bounds);
        let keys: Vec<[i64; 2]> = first.iter().map(|c| c.0).collect();
        assert_eq!(keys, [[0, 0], [1, 0], [0, 1], [1, 1]]);
        for (k, r) in &first {
            s.save(*k, *r, vec![0.0; r.w * r.d]);
        }
        // The same place again: nothing new; further right, only the new chunks, the map's edge clipped.
        assert!(s.unsaved(rect(25, 25, 10, 10), bounds).is_empty());
        let next = s.unsaved(rect(90, 60, 30, 30), bounds);
        assert_eq!(
            next,
            vec![
                ([2, 1], rect(64, 32, 32, 32)),
                ([3, 1], rect(96, 32, 4, 32)),
                ([2, 2], rect(64, 64, 32, 6)),
                ([3, 2], rect(96, 64, 4, 6))
            ]
        );
        assert!(
            s.unsaved(rect(200, 200, 5, 5), bounds).is_empty(),
            "off the map"
        );
    }

    #[test]
    fn negative_samples_of_an_endless_map_chunk_the_same_way() {
        let bounds = rect(-1000, -1000, 2000, 2000);
        let s = StrokeChunks::<i32>::new();
        let got = s.unsaved(rect(-33, -1, 2, 2), bounds);
        let keys: Vec<[i64; 2]> = got.iter().map(|c| c.0).collect();
        assert_eq!(keys, [[-2, -1], [-1, -1], [-2, 0], [-1, 0]]);
        assert_eq!(got[0].1, rect(-64, -32, 32, 32));
    }

    #[test]
    fn finish_keeps_only_changed_chunks_and_gives_both_states() {
        let bounds = rect(0, 0, 64, 64);
        let mut s = StrokeChunks::<f32>::new();
        for (k, r) in s.unsaved(rect(0, 0, 64, 64), bounds) {
            s.save(k, r, vec![1.0; r.w * r.d]);
        }
        assert_eq!(s.byte_size(), 4 * 32 * 32 * 4);
        // Only the chunk at (1, 1) changed.
        let changed = s.finish(|r| {
            let v = if r.x == 32 && r.z == 32 { 2.0 } else { 1.0 };
            vec![v; r.w * r.d]
        });
        assert!(changed && !s.is_empty());
        let before: Vec<(SampleRect, f32)> = s.states(false).map(|(r, v)| (r, v[0])).collect();
        let after: Vec<(SampleRect, f32)> = s.states(true).map(|(r, v)| (r, v[0])).collect();
        assert_eq!(before, [(rect(32, 32, 32, 32), 1.0)]);
        assert_eq!(after, [(rect(32, 32, 32, 32), 2.0)]);
        assert_eq!(s.byte_size(), 2 * 32 * 32 * 4);
        let mut none = StrokeChunks::<f32>::new();
        assert!(!none.finish(|r| vec![0.0; r.w * r.d]));
    }
}
