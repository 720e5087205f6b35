//! Layers over the sculpted terrain (roads, ramps, riverbeds, stamps): the terrain's final heights and
//! control values are the sculpted ones, then each layer in order, each writing within its tiles only.
//! This is the edit-layer idea of Unreal's landscape splines: the layer never bakes into the sculpted
//! ground, so moving it re-applies cleanly and removing it gives the ground back bit for bit.
//!
//! The sculpted values are kept only where some layer covers the ground, in tiles of `TILE`² samples
//! (8 bytes a sample: height and control), so memory grows with the layers' area, not the map's. A layer
//! that changes marks the tiles it changed dirty; a composition (`ComposeJob`, worker-safe) computes those
//! tiles from the kept values and every layer over them, and `write` puts them into the terrain. An edit
//! of the final terrain under a layer (a brush, an import) goes into the kept values (`sculpted`) and the
//! layers apply again on top: a road stays flat when the hill beside it is raised.

use crate::sample_rect::SampleRect;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Side of a tile, samples.
pub const TILE: i64 = 32;
/// Samples in a tile.
pub const TILE_SAMPLES: usize = (TILE * TILE) as usize;

/// A tile's index: sample (x, z) lies in tile (x div TILE, z div TILE).
pub type TileKey = [i64; 2];

/// A tile's heights and control values, row-major (`TILE`² each). Samples outside a finite map hold 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Tile {
    pub heights: Vec<f32>,
    pub control: Vec<u32>,
}

impl Tile {
    fn zero() -> Self {
        Self {
            heights: vec![0.0; TILE_SAMPLES],
            control: vec![0; TILE_SAMPLES],
        }
    }
}

/// The samples of tile `t`.
pub fn tile_rect(t: TileKey) -> SampleRect {
    SampleRect {
        x: t[0] * TILE,
        z: t[1] * TILE,
        w: TILE as usize,
        d: TILE as usize,
    }
}

/// The tiles rectangle `r` touches.
pub fn tiles_over(r: SampleRect) -> impl Iterator<Item = TileKey> {
    let empty = r.is_empty();
    let (x0, z0) = (r.x.div_euclid(TILE), r.z.div_euclid(TILE));
    let x1 = (r.x + r.w as i64 - 1).div_euclid(TILE);
    let z1 = (r.z + r.d as i64 - 1).div_euclid(TILE);
    (z0..=z1)
        .flat_map(move |z| (x0..=x1).map(move |x| [x, z]))
        .filter(move |_| !empty)
}

/// What a layer does to the terrain inside its tiles.
pub trait Layer: Send + Sync {
    /// The tiles it may change.
    fn tiles(&self) -> &BTreeSet<TileKey>;
    /// Writes the layer over tile `key`, which holds what is composed below it.
    fn apply(&self, key: TileKey, tile: &mut Tile);
}

/// A terrain's samples, read and written by rectangles (a TerrainData, a region map).
pub trait Ground {
    /// The samples of a finite map; None for an endless one.
    fn bounds(&self) -> Option<SampleRect>;
    /// Heights and control values of `r` (inside the bounds), row-major.
    fn read(&self, r: SampleRect) -> (Vec<f32>, Vec<u32>);
    /// Writes heights and control values of `r` (inside the bounds).
    fn write(&mut self, r: SampleRect, heights: &[f32], control: &[u32]);
}

/// Part of tile `t` inside the ground: the rectangle, and where it starts in the tile.
fn clip(t: TileKey, bounds: Option<SampleRect>) -> Option<(SampleRect, usize)> {
    let whole = tile_rect(t);
    let r = bounds.map_or(whole, |b| whole.intersect(b));
    if r.is_empty() {
        return None;
    }
    Some((r, ((r.z - whole.z) * TILE + (r.x - whole.x)) as usize))
}

fn read_tile(t: TileKey, ground: &dyn Ground) -> Tile {
    let mut tile = Tile::zero();
    if let Some((r, at)) = clip(t, ground.bounds()) {
        let (h, c) = ground.read(r);
        for row in 0..r.d {
            let (dst, src) = (at + row * TILE as usize, row * r.w);
            tile.heights[dst..dst + r.w].copy_from_slice(&h[src..src + r.w]);
            tile.control[dst..dst + r.w].copy_from_slice(&c[src..src + r.w]);
        }
    }
    tile
}

fn write_tile(t: TileKey, tile: &Tile, ground: &mut dyn Ground) -> Option<SampleRect> {
    let (r, at) = clip(t, ground.bounds())?;
    let (mut h, mut c) = (Vec::with_capacity(r.w * r.d), Vec::with_capacity(r.w * r.d));
    for row in 0..r.d {
        let src = at + row * TILE as usize;
        h.extend_from_slice(&tile.heights[src..src + r.w]);
        c.extend_from_slice(&tile.control[src..src + r.w]);
    }
    ground.write(r, &h, &c);
    Some(r)
}

/// One layer in the stack.
struct Entry {
    id: u64,
    order: i64,
    layer: Arc<dyn Layer>,
}

/// The layers in order and the sculpted values under them.
#[derive(Default)]
pub struct LayerStack {
    layers: Vec<Entry>,
    kept: BTreeMap<TileKey, Tile>,
    /// A tile's version goes up whenever its kept values or a layer over it change: a composition of an
    /// older version is stale there (the tile is dirty again).
    versions: BTreeMap<TileKey, u64>,
    counter: u64,
    dirty: BTreeSet<TileKey>,
}

/// A tile to compose: its key, its version, its kept values and the layers over it in order.
type Pending = (TileKey, u64, Tile, Vec<Arc<dyn Layer>>);

/// Tiles to compose and everything their composition reads (worker-safe: `run` needs no stack).
pub struct ComposeJob {
    tiles: Vec<Pending>,
}

/// Composed tiles, for `LayerStack::write`.
pub struct Composed {
    tiles: Vec<(TileKey, u64, Tile)>,
}

impl ComposeJob {
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// Each tile: the kept values, then each layer over it in order.
    pub fn run(self) -> Composed {
        let tiles = self
            .tiles
            .into_iter()
            .map(|(key, version, mut tile, layers)| {
                for l in &layers {
                    l.apply(key, &mut tile);
                }
                (key, version, tile)
            })
            .collect();
        Composed { tiles }
    }
}

impl LayerStack {
    /// No layer and nothing kept: edits need no bookkeeping.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty() && self.kept.is_empty()
    }

    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    /// Bytes of kept sculpted values.
    pub fn kept_bytes(&self) -> usize {
        self.kept.len() * TILE_SAMPLES * 8
    }

    /// Tiles whose composition waits (`job`).
    pub fn has_dirty(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Adds or replaces layer `id` at `order` (lower first; equal orders keep the order they came in).
    /// `changed` names the tiles whose result differs from the layer it replaces (None: all of both).
    /// The tiles it covers first are kept from the ground as it is now (sculpted, as no layer wrote there).
    pub fn set(
        &mut self,
        id: u64,
        order: i64,
        layer: Arc<dyn Layer>,
        changed: Option<BTreeSet<TileKey>>,
        ground: &dyn Ground,
    ) {
        let bounds = ground.bounds();
        for &t in layer.tiles() {
            if !self.kept.contains_key(&t) && clip(t, bounds).is_some() {
                self.kept.insert(t, read_tile(t, ground));
            }
        }
        let dirty = match (changed, self.layers.iter().position(|e| e.id == id)) {
            (Some(c), Some(_)) => c,
            (_, Some(i)) => {
                let old = self.layers[i].layer.tiles();
                old.union(layer.tiles()).copied().collect()
            }
            (_, None) => layer.tiles().clone(),
        };
        match self.layers.iter().position(|e| e.id == id) {
            Some(i) if self.layers[i].order == order => self.layers[i].layer = layer,
            Some(i) => {
                let mut dirty = dirty.clone();
                dirty.extend(self.layers[i].layer.tiles());
                self.layers.remove(i);
                self.insert(id, order, layer);
                self.mark(dirty);
                return;
            }
            None => self.insert(id, order, layer),
        }
        self.mark(dirty);
    }

    fn insert(&mut self, id: u64, order: i64, layer: Arc<dyn Layer>) {
        let at = self.layers.partition_point(|e| e.order <= order);
        self.layers.insert(at, Entry { id, order, layer });
    }

    /// Removes layer `id`: its tiles go back to the kept values and the layers still there.
    pub fn remove(&mut self, id: u64) {
        if let Some(i) = self.layers.iter().position(|e| e.id == id) {
            let e = self.layers.remove(i);
            self.mark(e.layer.tiles().iter().copied());
        }
    }

    pub fn contains(&self, id: u64) -> bool {
        self.layers.iter().any(|e| e.id == id)
    }

    fn mark(&mut self, tiles: impl IntoIterator<Item = TileKey>) {
        for t in tiles {
            if !self.kept.contains_key(&t) {
                continue;
            }
            self.counter += 1;
            self.versions.insert(t, self.counter);
            self.dirty.insert(t);
        }
    }

    /// The dirty tiles' composition (the dirty set is emptied; `write` takes the result).
    pub fn job(&mut self) -> ComposeJob {
        let dirty = std::mem::take(&mut self.dirty);
        self.job_over(dirty)
    }

    fn job_over(&self, tiles: BTreeSet<TileKey>) -> ComposeJob {
        let tiles = tiles
            .into_iter()
            .filter_map(|t| {
                let kept = self.kept.get(&t)?.clone();
                let layers = self
                    .layers
                    .iter()
                    .filter(|e| e.layer.tiles().contains(&t))
                    .map(|e| e.layer.clone())
                    .collect();
                Some((t, self.versions.get(&t).copied().unwrap_or(0), kept, layers))
            })
            .collect();
        ComposeJob { tiles }
    }

    /// Writes composed tiles that are still current into the ground (a stale one is dirty again and
    /// waits for the next job) and forgets the kept values of tiles no layer covers any more. Returns
    /// the rectangles written, a row of neighbouring tiles as one.
    pub fn write(&mut self, composed: Composed, ground: &mut dyn Ground) -> Vec<SampleRect> {
        let mut rects: Vec<SampleRect> = Vec::new();
        for (t, version, tile) in composed.tiles {
            if self.versions.get(&t).copied().unwrap_or(0) != version {
                continue;
            }
            let Some(r) = write_tile(t, &tile, ground) else {
                continue;
            };
            match rects.last_mut() {
                Some(last) if last.z == r.z && last.d == r.d && last.x + last.w as i64 == r.x => {
                    last.w += r.w
                }
                _ => rects.push(r),
            }
            if !self.layers.iter().any(|e| e.layer.tiles().contains(&t)) {
                self.kept.remove(&t);
                self.versions.remove(&t);
            }
        }
        rects
    }

    /// Composes and writes every dirty tile now (on the calling thread).
    pub fn compose_now(&mut self, ground: &mut dyn Ground) -> Vec<SampleRect> {
        let done = self.job().run();
        self.write(done, ground)
    }

    /// Whether any kept tile lies under `r` (an edit there needs `sculpted`).
    pub fn covers(&self, r: SampleRect) -> bool {
        !self.kept.is_empty() && tiles_over(r).any(|t| self.kept.contains_key(&t))
    }

    /// An edit changed the final values of `r` from `before` (heights, control) to what the ground holds
    /// now: under the layers, height differences are added to the kept heights and changed control values
    /// replace the kept ones; then the layers apply again on top there (composed now: an edit's result
    /// shows at once). Returns the rectangles written.
    pub fn sculpted(
        &mut self,
        r: SampleRect,
        before: (&[f32], &[u32]),
        ground: &mut dyn Ground,
    ) -> Vec<SampleRect> {
        let (after_h, after_c) = ground.read(r);
        let mut touched = BTreeSet::new();
        for t in tiles_over(r) {
            let Some(kept) = self.kept.get_mut(&t) else {
                continue;
            };
            let tr = tile_rect(t);
            let o = r.intersect(tr);
            for z in o.z..o.z + o.d as i64 {
                for x in o.x..o.x + o.w as i64 {
                    let i = ((z - r.z) * r.w as i64 + (x - r.x)) as usize;
                    let k = ((z - tr.z) * TILE + (x - tr.x)) as usize;
                    kept.heights[k] += after_h[i] - before.0[i];
                    if after_c[i] != before.1[i] {
                        kept.control[k] = after_c[i];
                    }
                }
            }
            touched.insert(t);
        }
        self.mark(touched.iter().copied());
        for t in &touched {
            self.dirty.remove(t);
        }
        let done = self.job_over(touched).run();
        self.write(done, ground)
    }

    /// The whole ground was replaced (a generation, an import): the kept values are read from it again
    /// and every layer's tiles are dirty.
    pub fn replaced(&mut self, ground: &dyn Ground) {
        let keys: Vec<TileKey> = self.kept.keys().copied().collect();
        for t in &keys {
            self.kept.insert(*t, read_tile(*t, ground));
        }
        self.mark(keys);
    }

    /// Kept (sculpted) height of sample (x, z), or None where no layer covers it (the ground's own).
    pub fn sculpted_height(&self, x: i64, z: i64) -> Option<f32> {
        let t = [x.div_euclid(TILE), z.div_euclid(TILE)];
        let k = (z.rem_euclid(TILE) * TILE + x.rem_euclid(TILE)) as usize;
        self.kept.get(&t).map(|tile| tile.heights[k])
    }

    /// The kept values, for saving with the map: "WTLY", version 1, tile count, then per tile its key
    /// (two i64) and its heights and control values (little-endian).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(12 + self.kept.len() * (16 + TILE_SAMPLES * 8));
        out.extend_from_slice(b"WTLY");
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&(self.kept.len() as u32).to_le_bytes());
        for (t, tile) in &self.kept {
            out.extend_from_slice(&t[0].to_le_bytes());
            out.extend_from_slice(&t[1].to_le_bytes());
            tile.heights
                .iter()
                .for_each(|h| out.extend_from_slice(&h.to_le_bytes()));
            tile.control
                .iter()
                .for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
        }
        out
    }

    /// Takes kept values saved by `to_bytes` (empty bytes: none). Nothing changes on damaged data.
    pub fn load_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.is_empty() {
            self.kept.clear();
            return Ok(());
        }
        let per = 16 + TILE_SAMPLES * 8;
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        if bytes.len() < 12 || &bytes[0..4] != b"WTLY" || word(4) != 1 {
            return Err("not kept layer data (WTLY version 1)".into());
        }
        let n = word(8) as usize;
        if bytes.len() != 12 + n * per {
            return Err(format!(
                "{} bytes for {n} tiles, want {}",
                bytes.len(),
                12 + n * per
            ));
        }
        let mut kept = BTreeMap::new();
        for chunk in bytes[12..].chunks_exact(per) {
            let key = [0, 8].map(|o| i64::from_le_bytes(chunk[o..o + 8].try_into().unwrap()));
            let values = &chunk[16..];
            let heights: Vec<f32> = values[..TILE_SAMPLES * 4]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            if let Some(h) = heights.iter().find(|h| !h.is_finite()) {
                return Err(format!("tile {key:?} holds a non-finite height {h}"));
            }
            let control = values[TILE_SAMPLES * 4..]
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            kept.insert(key, Tile { heights, control });
        }
        self.kept = kept;
        self.versions.clear();
        self.dirty.clear();
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests;
