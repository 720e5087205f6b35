//! Collision tiles computed on the worker pool (the one clipmap streaming uses), so the main thread only
//! hands finished height grids to the physics engine. The node asks for tiles in the order it needs them
//! (under the target first, then ahead of it); each job copies the samples a tile reads into a
//! `SampleBlock` (a generator's fractal once per sample; a `TerrainData` block is copied on the main
//! thread when the job is asked for, so later edits do not race the worker) and computes the grid from it,
//! bit for bit what `Tiling::grid` gives on the source.
//!
//! Every request carries a stamp (the node's edit counter when asked): a grid computed before an edit of
//! its tile is recognised by its older stamp and not shown. `invalidate` (a new source, subdivision or
//! mode) makes every running job's result stale.

use crate::clipmap_stream::SharedSamples;
use crate::collision::{TileGrid, TileId, Tiling};
use crate::samples::SampleBlock;
use std::sync::mpsc::{channel, Receiver, Sender};

/// A finished tile: its grid and the stamp of its request.
#[derive(Debug)]
pub struct ReadyTile {
    pub id: TileId,
    pub stamp: u64,
    pub grid: TileGrid,
}

struct Batch {
    epoch: u64,
    tiles: Vec<ReadyTile>,
}

pub struct CollisionStream {
    tx: Sender<Batch>,
    rx: Receiver<Batch>,
    epoch: u64,
    /// Tiles asked for and not yet returned (stale ones included: they still occupy the worker).
    in_flight: usize,
    /// Grids handed back by the node, reused by the next jobs (no allocation once warm).
    spare: Vec<TileGrid>,
}

impl Default for CollisionStream {
    fn default() -> Self {
        let (tx, rx) = channel();
        Self {
            tx,
            rx,
            epoch: 0,
            in_flight: 0,
            spare: Vec::new(),
        }
    }
}

impl CollisionStream {
    /// Tiles asked for whose results have not been taken yet.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Results of jobs asked for before this call are not delivered (their tiles are asked for again).
    pub fn invalidate(&mut self) {
        self.epoch += 1;
    }

    /// A grid the node is done with, for a later job.
    pub fn recycle(&mut self, grid: TileGrid) {
        if self.spare.len() < 64 {
            self.spare.push(grid);
        }
    }

    /// Computes the grids of `ids` (stamped `stamp`) on the worker pool. `source` must stay readable by
    /// the worker: an endless generator or region folder (copied tile by tile on the worker), or a
    /// `SampleBlock` covering the tiles, copied by the caller (`block_for`).
    pub fn request(&mut self, source: SharedSamples, tiling: Tiling, ids: &[TileId], stamp: u64) {
        if ids.is_empty() {
            return;
        }
        let ids = ids.to_vec();
        let mut grids: Vec<TileGrid> = (0..ids.len())
            .map(|_| self.spare.pop().unwrap_or_default())
            .collect();
        self.in_flight += ids.len();
        let (tx, epoch) = (self.tx.clone(), self.epoch);
        crate::workers::spawn(move || {
            let run = std::panic::AssertUnwindSafe(|| {
                let mut block = SampleBlock::default();
                for (g, &id) in grids.iter_mut().zip(&ids) {
                    tiling.grid_of(&*source, id, &mut block, g);
                }
            });
            // A panicking job (a bug) must not abort the game: its tiles come back stale and are asked
            // for again.
            let epoch = match std::panic::catch_unwind(run) {
                Ok(()) => epoch,
                Err(_) => u64::MAX,
            };
            let tiles = ids
                .into_iter()
                .zip(grids)
                .map(|(id, grid)| ReadyTile { id, stamp, grid })
                .collect();
            // The receiver is gone only when the node was freed: nothing to deliver to.
            let _ = tx.send(Batch { epoch, tiles });
        });
    }

    /// Takes the finished tiles of current jobs into `out`, without waiting.
    pub fn poll(&mut self, out: &mut Vec<ReadyTile>) {
        while let Ok(b) = self.rx.try_recv() {
            self.take(b, out);
        }
    }

    /// Waits for every job asked for (a caller that needs collision now), taking their tiles into `out`.
    pub fn wait(&mut self, out: &mut Vec<ReadyTile>) {
        while self.in_flight > 0 {
            match self.rx.recv() {
                Ok(b) => self.take(b, out),
                Err(_) => break,
            }
        }
    }

    fn take(&mut self, b: Batch, out: &mut Vec<ReadyTile>) {
        self.in_flight = self.in_flight.saturating_sub(b.tiles.len());
        if b.epoch == self.epoch {
            out.extend(b.tiles);
        } else {
            for t in b.tiles {
                self.recycle(t.grid);
            }
        }
    }
}

/// A copy of the samples the tiles `ids` read (the rectangle around all of them), for a job over a source
/// that the main thread goes on editing.
pub fn block_for<S: crate::samples::Samples + ?Sized>(
    source: &S,
    tiling: &Tiling,
    ids: &[TileId],
) -> SampleBlock {
    let (mut lo, mut hi) = ([i64::MAX; 2], [i64::MIN; 2]);
    for &id in ids {
        let (o, s) = tiling.tile_block(id);
        for a in 0..2 {
            lo[a] = lo[a].min(o[a]);
            hi[a] = hi[a].max(o[a] + s[a] as i64);
        }
    }
    if lo[0] > hi[0] {
        return SampleBlock::default();
    }
    let size = [(hi[0] - lo[0]) as usize, (hi[1] - lo[1]) as usize];
    SampleBlock::copy(source, lo[0], lo[1], size[0], size[1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generation::{Generated, NoiseParams};
    use crate::samples::Samples;
    use crate::terrain_data::{Region, TerrainData};
    use std::sync::Arc;

    /// A rough terrain with holes and paint: every read path of a grid is exercised.
    fn rough(n: usize) -> TerrainData {
        let mut t = crate::test_terrains::Waves {
            x: (0.37, 9.0),
            z: (0.21, 5.0),
            jitter: (13, 0.1),
        }
        .terrain(n, n, 1.5);
        let r = Region {
            x: 20,
            z: 30,
            w: 9,
            d: 5,
        };
        t.set_holes_region(r, &[1; 45]).unwrap();
        t.set_holes_region(
            Region {
                x: 0,
                z: 0,
                w: 1,
                d: 1,
            },
            &[1],
        )
        .unwrap();
        t
    }

    fn same_grid(a: &TileGrid, b: &TileGrid) -> bool {
        a.width == b.width
            && a.centre == b.centre
            && a.step == b.step
            && a.heights.len() == b.heights.len()
            && a.heights
                .iter()
                .zip(&b.heights)
                .all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// Asserts that each tile of `ids` computed from a `SampleBlock` of its samples has the source's bits.
    fn blocks_match<S: Samples + ?Sized>(
        s: &S,
        tiling: &Tiling,
        ids: impl Iterator<Item = TileId>,
    ) {
        for id in ids {
            let (mut a, mut b) = (TileGrid::default(), TileGrid::default());
            tiling.grid(s, id, &mut a);
            let ([bx, bz], [w, d]) = tiling.tile_block(id);
            tiling.grid(&SampleBlock::copy(s, bx, bz, w, d), id, &mut b);
            assert!(
                same_grid(&a, &b),
                "subdivision {} tile {id:?}",
                tiling.subdivision
            );
        }
    }

    /// Every tile of a finite tiling.
    fn all_tiles(tiling: &Tiling) -> impl Iterator<Item = TileId> {
        let [tx, tz] = tiling.tiles();
        (0..tz).flat_map(move |z| (0..tx).map(move |x| [x, z]))
    }

    #[test]
    fn a_tile_from_its_block_has_the_sources_bits() {
        let g = Generated::new(&NoiseParams::default(), 2.0).unwrap();
        // With holes (patch path) and without (rows of stored samples at subdivision 1).
        let plain = TerrainData::from_heights(70, 70, 1.5, rough(70).heights().to_vec()).unwrap();
        for (sub, t) in [1, 2, 4, 1]
            .into_iter()
            .zip([rough(70), rough(70), rough(70), plain])
        {
            let tiling = Tiling::with_points(&t, sub, 17);
            blocks_match(&t, &tiling, all_tiles(&tiling));
            let tiling = Tiling::with_points(&g, sub, 17);
            for p in [[0.0, 0.0], [-5000.25, 1234.5]] {
                blocks_match(&g, &tiling, tiling.tiles_near(2.0, p, 20.0));
            }
        }
    }

    #[test]
    fn a_tile_from_a_region_folder_block_has_the_folders_bits() {
        use crate::terrain_regions::{save, Existing, TerrainRegions};
        let dir = std::env::temp_dir().join(format!("wt_collision_blocks_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Regions of 32 samples: tiles and their blocks straddle region borders, holes included.
        save(&dir, &rough(70), 32, Existing::Refuse).unwrap();
        let r = TerrainRegions::open(&dir).unwrap();
        for sub in [1, 4] {
            let tiling = Tiling::with_points(&r, sub, 17);
            blocks_match(&r, &tiling, all_tiles(&tiling));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn jobs_bring_back_the_grids_and_stale_ones_are_dropped() {
        let t = rough(90);
        let tiling = Tiling::with_points(&t, 4, 33);
        let ids: Vec<TileId> = vec![[0, 0], [1, 0], [3, 2], [5, 5]];
        let mut s = CollisionStream::default();
        let block: SharedSamples = Arc::new(block_for(&t, &tiling, &ids));
        s.request(block.clone(), tiling, &ids, 7);
        assert_eq!(s.in_flight(), 4);
        let mut out = Vec::new();
        s.wait(&mut out);
        assert_eq!((s.in_flight(), out.len()), (0, 4));
        for r in &out {
            let mut want = TileGrid::default();
            tiling.grid(&t, r.id, &mut want);
            assert!(same_grid(&r.grid, &want), "{:?}", r.id);
            assert_eq!(r.stamp, 7);
        }
        // Invalidated while running: nothing delivered, the worker's grids come back for reuse.
        s.request(block, tiling, &ids, 8);
        s.invalidate();
        out.clear();
        s.wait(&mut out);
        assert!(out.is_empty() && s.in_flight() == 0);
        // An endless source is copied tile by tile on the worker.
        let g: SharedSamples = Arc::new(Generated::new(&NoiseParams::default(), 1.0).unwrap());
        let tiling = Tiling::with_points(&*g, 2, 65);
        let ids: Vec<TileId> = tiling.tiles_near(1.0, [1.0e5, -3.0e4], 30.0).collect();
        s.request(g.clone(), tiling, &ids, 1);
        s.wait(&mut out);
        assert_eq!(out.len(), ids.len());
        for r in &out {
            let mut want = TileGrid::default();
            tiling.grid(&*g, r.id, &mut want);
            assert!(same_grid(&r.grid, &want));
        }
        assert!(g.streamed());
    }
}
