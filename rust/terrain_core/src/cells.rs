//! One scheduler for whatever is made in cells on worker threads and shown on the main thread (instance
//! cells, detail cells, collision tiles): which cells are wanted, which need making, which results are
//! still fresh when they come back.
//!
//! Stamps: every edit takes the next number; a cell's `stamp` is its last edit's, `asked` the stamp it was
//! last asked for with, `shown` the stamp of what is shown (0: nothing). A cell needs work while `shown <
//! stamp` and it was not already asked for at that stamp; a result made for stamp s is fresh when the
//! cell is still wanted, s is newer than what is shown, and s is not from before the last `restart` (a new
//! surface or new rules). Workers may thus run late, finish out of order or be dropped: a result either
//! shows the cell's latest state or is thrown away.

use std::collections::HashMap;
use std::hash::Hash;

/// A wanted cell and what the caller keeps with it (GPU handles, say).
#[derive(Debug, Default)]
pub struct Cell<T> {
    /// The stamp of the cell's last edit (or of when it was first wanted).
    pub stamp: u64,
    /// The stamp of what is shown; 0 while nothing is.
    pub shown: u64,
    /// The stamp the cell was last asked for with; 0 if never.
    pub asked: u64,
    pub data: T,
}

impl<T> Cell<T> {
    /// Something is shown, and it shows the latest edit.
    pub fn is_current(&self) -> bool {
        self.shown >= self.stamp
    }

    /// Needs making and not already on its way.
    pub fn needs_work(&self) -> bool {
        self.shown < self.stamp && self.asked < self.stamp
    }
}

/// The cells wanted, keyed by `K`, each with the caller's `T`.
#[derive(Debug)]
pub struct Schedule<K, T> {
    cells: HashMap<K, Cell<T>>,
    /// The last stamp given out.
    now: u64,
    /// Results stamped before this are from before the last `restart`.
    since: u64,
}

impl<K: Copy + Eq + Hash, T: Default> Default for Schedule<K, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Copy + Eq + Hash, T: Default> Schedule<K, T> {
    pub fn new() -> Self {
        Self {
            cells: HashMap::new(),
            now: 1,
            since: 1,
        }
    }

    /// A schedule to which every result stamped up to `stamp` (by an older schedule it replaces) is stale.
    pub fn after(stamp: u64) -> Self {
        Self {
            cells: HashMap::new(),
            now: stamp + 1,
            since: stamp + 1,
        }
    }

    /// The current stamp (what a cell wanted now gets).
    pub fn stamp(&self) -> u64 {
        self.now
    }

    fn bump(&mut self) -> u64 {
        self.now += 1;
        self.now
    }

    /// `k` is wanted: added (needing work) if it was not.
    pub fn want(&mut self, k: K) -> &mut Cell<T> {
        let stamp = self.now;
        self.cells.entry(k).or_insert_with(|| Cell {
            stamp,
            shown: 0,
            asked: 0,
            data: T::default(),
        })
    }

    /// The cells `keys` changed (those wanted are made again); one new stamp for all of them.
    pub fn touch(&mut self, keys: impl IntoIterator<Item = K>) {
        let stamp = self.bump();
        for k in keys {
            if let Some(c) = self.cells.get_mut(&k) {
                c.stamp = stamp;
            }
        }
    }

    /// The wanted cells for which `hit` holds changed (a wide edit: walk the cells there are).
    pub fn touch_where(&mut self, hit: impl Fn(&K) -> bool) {
        let stamp = self.bump();
        for (k, c) in self.cells.iter_mut() {
            if hit(k) {
                c.stamp = stamp;
            }
        }
    }

    /// Every wanted cell changed.
    pub fn touch_all(&mut self) {
        self.touch_where(|_| true);
    }

    /// Starts again: every cell is given back (the caller frees what it holds) and results of requests
    /// made before now are stale.
    pub fn restart(&mut self) -> impl Iterator<Item = (K, Cell<T>)> + '_ {
        self.since = self.bump();
        self.cells.drain()
    }

    /// `k` is no longer wanted; its cell is given back.
    pub fn remove(&mut self, k: K) -> Option<Cell<T>> {
        self.cells.remove(&k)
    }

    pub fn get(&self, k: &K) -> Option<&Cell<T>> {
        self.cells.get(k)
    }

    pub fn get_mut(&mut self, k: &K) -> Option<&mut Cell<T>> {
        self.cells.get_mut(k)
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &Cell<T>)> {
        self.cells.iter()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut Cell<T>)> {
        self.cells.iter_mut()
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.cells.keys()
    }

    pub fn values(&self) -> impl Iterator<Item = &Cell<T>> {
        self.cells.values()
    }

    /// Every wanted cell shows its latest edit.
    pub fn is_up_to_date(&self) -> bool {
        self.cells.values().all(Cell::is_current)
    }

    /// The cells needing work with their distance (`distance`) and stamp, unsorted (a caller merging
    /// several schedules sorts them together).
    pub fn needs<'a>(
        &'a self,
        distance: impl Fn(&K) -> f32 + 'a,
    ) -> impl Iterator<Item = (f32, K, u64)> + 'a {
        self.cells
            .iter()
            .filter(|(_, c)| c.needs_work())
            .map(move |(k, c)| (distance(k), *k, c.stamp))
    }

    /// The cells to ask the workers for now: those needing work, nearest first, at most `room` (what
    /// the in-flight cap leaves). Mark them with `asked` once requested.
    pub fn nearest(&self, room: usize, distance: impl Fn(&K) -> f32) -> Vec<(f32, K, u64)> {
        if room == 0 {
            return Vec::new();
        }
        let mut need: Vec<(f32, K, u64)> = self.needs(distance).collect();
        need.sort_by(|a, b| a.0.total_cmp(&b.0));
        need.truncate(room);
        need
    }

    /// `k` was asked for with `stamp`.
    pub fn asked(&mut self, k: K, stamp: u64) {
        if let Some(c) = self.cells.get_mut(&k) {
            c.asked = c.asked.max(stamp);
        }
    }

    /// Whether a result made for `k` at `stamp` should be shown: the cell is still wanted, the result is
    /// newer than what is shown and not from before the last restart.
    pub fn is_fresh(&self, k: &K, stamp: u64) -> bool {
        stamp >= self.since && self.cells.get(k).is_some_and(|c| stamp > c.shown)
    }

    /// The results asked for will not come (the workers' queue was dropped): every cell needing work is
    /// asked for again.
    pub fn forget_asks(&mut self) {
        for c in self.cells.values_mut() {
            c.asked = 0;
        }
    }

    /// `k` was made on this thread from the current state: wanted, shown and current.
    pub fn mark_current(&mut self, k: K) {
        let c = self.want(k);
        c.shown = c.stamp;
        c.asked = c.asked.max(c.stamp);
    }

    /// Takes a result for `k` made at `stamp` only if it shows the cell's last edit and the cell does not
    /// show that yet (stricter than `accept`: for what must never lag an edit, like collision). Returns
    /// whether to show it; it is then marked shown.
    pub fn accept_latest(&mut self, k: &K, stamp: u64) -> bool {
        match self.cells.get_mut(k) {
            Some(c) if stamp >= self.since && stamp >= c.stamp && c.shown < c.stamp => {
                c.shown = stamp;
                true
            }
            _ => false,
        }
    }

    /// Takes a result for `k` made at `stamp` if it is fresh (`is_fresh`): marks it shown and gives the
    /// cell to show it in.
    pub fn accept(&mut self, k: &K, stamp: u64) -> Option<&mut Cell<T>> {
        if !self.is_fresh(k, stamp) {
            return None;
        }
        let c = self.cells.get_mut(k)?;
        c.shown = stamp;
        Some(c)
    }
}

/// Fills the `n`² window of cell states centred on cell `centre` (row-major into `out`, 0 where no cell
/// is listed) from `cells` (cell index, state); returns the index of the window's first cell. The cell
/// views' one window arithmetic (collision tiles, instance cells, regions).
pub fn fill_window(
    centre: [i64; 2],
    n: usize,
    cells: impl Iterator<Item = ([i64; 2], u8)>,
    out: &mut Vec<u8>,
) -> [i64; 2] {
    let first = centre.map(|c| c - n as i64 / 2);
    out.clear();
    out.resize(n * n, 0);
    for (k, state) in cells {
        let (x, z) = (k[0] - first[0], k[1] - first[1]);
        if (0..n as i64).contains(&x) && (0..n as i64).contains(&z) {
            out[z as usize * n + x as usize] = state;
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    type S = Schedule<(i32, i32), u32>;

    #[test]
    fn a_window_of_cell_states_centres_on_its_cell_and_drops_the_rest() {
        let mut out = vec![9; 2];
        let cells = [([10, 20], 1), ([9, 19], 2), ([12, 20], 3), ([11, 21], 4)];
        let first = fill_window([10, 20], 3, cells.into_iter(), &mut out);
        assert_eq!(first, [9, 19]);
        // Row-major from the first cell; (12, 20) lies outside the 3 × 3 window.
        assert_eq!(out, vec![2, 0, 0, 0, 1, 0, 0, 0, 4]);
    }

    fn dist(k: &(i32, i32)) -> f32 {
        (k.0 as f32).hypot(k.1 as f32)
    }

    #[test]
    fn new_cells_are_asked_nearest_first_under_the_room_left() {
        let mut s = S::new();
        for x in -3..=3 {
            s.want((x, 0));
        }
        let asks = s.nearest(3, dist);
        let keys: Vec<i32> = asks.iter().map(|a| a.1 .0.abs()).collect();
        assert_eq!(keys, [0, 1, 1]);
        for (_, k, st) in &asks {
            s.asked(*k, *st);
        }
        // Asked cells are not asked again; the rest come next.
        let next: Vec<i32> = s.nearest(10, dist).iter().map(|a| a.1 .0.abs()).collect();
        assert_eq!(next, [2, 2, 3, 3]);
        assert!(s.nearest(0, dist).is_empty());
    }

    #[test]
    fn a_result_from_before_an_edit_is_shown_and_the_cell_made_again() {
        let mut s = S::new();
        s.want((0, 0));
        let (_, k, st) = s.nearest(1, dist)[0];
        s.asked(k, st);
        s.touch([k]);
        // The old result still shows something (better than nothing) but the cell is not current.
        assert!(s.accept(&k, st).is_some());
        assert!(!s.get(&k).unwrap().is_current());
        let again = s.nearest(1, dist);
        assert_eq!(again.len(), 1, "edited after it was asked: asked again");
        let st2 = again[0].2;
        assert!(st2 > st);
        s.asked(k, st2);
        assert!(s.nearest(1, dist).is_empty());
        assert!(s.accept(&k, st2).is_some());
        assert!(s.is_up_to_date());
        // A late result older than what is shown is thrown away.
        assert!(s.accept(&k, st).is_none());
    }

    #[test]
    fn results_for_dropped_cells_or_from_before_a_restart_are_stale() {
        let mut s = S::new();
        s.want((1, 1)).data = 7;
        s.want((2, 2));
        let asks = s.nearest(5, dist);
        let back: Vec<(i32, i32, u32)> = s.restart().map(|(k, c)| (k.0, k.1, c.data)).collect();
        assert_eq!(back.len(), 2);
        assert!(back.contains(&(1, 1, 7)));
        assert!(s.is_empty());
        s.want((1, 1));
        for (_, k, st) in &asks {
            assert!(!s.is_fresh(k, *st), "asked before the restart");
        }
        let st = s.nearest(5, dist)[0].2;
        assert!(s.is_fresh(&(1, 1), st));
        assert!(s.remove((1, 1)).is_some());
        assert!(!s.is_fresh(&(1, 1), st), "no longer wanted");
        // A schedule replacing this one takes none of its results.
        let mut next = S::after(s.stamp());
        next.want((1, 1));
        assert!(!next.is_fresh(&(1, 1), st));
        assert!(next.is_fresh(&(1, 1), next.stamp()));
    }

    #[test]
    fn the_strict_rule_takes_only_results_of_the_last_edit() {
        let mut s = S::new();
        s.want((0, 0));
        let st = s.stamp();
        s.asked((0, 0), st);
        s.touch([(0, 0)]);
        assert!(!s.accept_latest(&(0, 0), st), "made before the edit");
        let st2 = s.nearest(1, dist)[0].2;
        assert!(s.accept_latest(&(0, 0), st2));
        assert!(!s.accept_latest(&(0, 0), st2), "already shown");
        s.touch([(0, 0)]);
        s.mark_current((0, 0));
        assert!(s.is_up_to_date() && s.nearest(1, dist).is_empty());
        s.mark_current((3, 3));
        assert!(s.get(&(3, 3)).is_some_and(|c| c.is_current()));
    }

    #[test]
    fn touches_mark_only_wanted_cells_and_wide_touches_walk_them() {
        let mut s = S::new();
        for k in [(0, 0), (5, 5), (9, 9)] {
            s.want(k);
            let st = s.stamp();
            s.asked(k, st);
            s.accept(&k, st);
        }
        assert!(s.is_up_to_date());
        s.touch([(5, 5), (100, 100)]);
        assert!(s.get(&(100, 100)).is_none(), "a touch wants nothing new");
        let need: Vec<(i32, i32)> = s.nearest(9, dist).iter().map(|a| a.1).collect();
        assert_eq!(need, [(5, 5)]);
        s.touch_where(|k| k.0 > 6);
        let mut need: Vec<(i32, i32)> = s.nearest(9, dist).iter().map(|a| a.1).collect();
        need.sort();
        assert_eq!(need, [(5, 5), (9, 9)]);
        s.touch_all();
        assert_eq!(s.nearest(9, dist).len(), 3);
    }
}
