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
pub const TILE: i64 = 16;
/// Samples in a tile.
pub const TILE_SAMPLES: usize = (TILE * TILE) as usize;

/// A tile's index: sample (x, z) lies in tile (x div TILE, z div TILE).
pub type TileKey = [i64; 2];

/// A tile's heights and control values, row-major (`TILE`² each). Samples outside a finite map hold 0.
/// A kept tile whose control values are all 0 keeps none (`control` empty): unpainted ground costs 4 bytes
/// a sample; a layer always gets both.
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

    /// The control values dropped when all are 0 (how a tile is kept).
    fn compact(mut self) -> Self {
        if self.control.iter().all(|&c| c == 0) {
            self.control = Vec::new();
        }
        self
    }

    /// Both arrays whole (how a layer gets a tile).
    fn expanded(mut self) -> Self {
        if self.control.is_empty() {
            self.control = vec![0; TILE_SAMPLES];
        }
        self
    }

    fn bytes(&self) -> usize {
        (self.heights.len() + self.control.len()) * 4
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

/// Groups rectangles into fewer, larger ones: a rectangle joins a group when their union is at most
/// twice the area they cover (a road's tiles along it become a few writes, far-apart tiles stay apart).
/// Every input lies inside exactly one output; outputs do not overlap inputs of other outputs.
pub fn cluster(mut rects: Vec<SampleRect>) -> Vec<SampleRect> {
    rects.sort_by_key(|r| (r.z, r.x));
    let area = |r: &SampleRect| r.w * r.d;
    let mut groups: Vec<(SampleRect, usize)> = Vec::new();
    for r in rects {
        let joined = groups.iter_mut().rev().find(|(g, covered)| {
            let u = g.union(r);
            area(&u) <= 2 * (covered + area(&r))
        });
        match joined {
            Some((g, covered)) => {
                *g = g.union(r);
                *covered += area(&r);
            }
            None => groups.push((r, area(&r))),
        }
    }
    // Grown groups may now overlap: merge those until none do.
    let mut out: Vec<SampleRect> = Vec::new();
    for (g, _) in groups {
        let mut g = g;
        while let Some(i) = out.iter().position(|o| !o.intersect(g).is_empty()) {
            g = g.union(out.swap_remove(i));
        }
        out.push(g);
    }
    out
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
    /// Goes up whenever the kept values change (what a map saves with its regions).
    kept_version: u64,
}

/// A tile to compose: its key, its version, its kept values and the layers over it in order.
type Pending = (TileKey, u64, Tile, Vec<Arc<dyn Layer>>);

/// Tiles to compose and everything their composition reads (worker-safe: `run` needs no stack).
pub struct ComposeJob {
    tiles: Vec<Pending>,
}

/// The final values of kept tiles before an edit (`LayerStack::before`).
pub struct Before {
    tiles: Vec<(TileKey, Tile)>,
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
        self.kept.values().map(Tile::bytes).sum()
    }

    /// Changes whenever the kept values do (compare with the version saved).
    pub fn kept_version(&self) -> u64 {
        self.kept_version
    }

    /// Bytes kept under `tiles` (one layer's share).
    pub fn kept_bytes_of(&self, tiles: &BTreeSet<TileKey>) -> usize {
        tiles
            .iter()
            .filter_map(|t| self.kept.get(t))
            .map(Tile::bytes)
            .sum()
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
                self.kept.insert(t, read_tile(t, ground).compact());
                self.kept_version += 1;
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

    /// Every layer's tiles dirty (after the kept values were loaded again); tiles not kept are kept from
    /// the ground as it is.
    pub fn mark_all(&mut self, ground: &dyn Ground) {
        let bounds = ground.bounds();
        let all: BTreeSet<TileKey> = self
            .layers
            .iter()
            .flat_map(|e| e.layer.tiles().iter().copied())
            .collect();
        for &t in &all {
            if !self.kept.contains_key(&t) && clip(t, bounds).is_some() {
                self.kept.insert(t, read_tile(t, ground).compact());
            }
        }
        self.mark(all);
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
                let kept = self.kept.get(&t)?.clone().expanded();
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
    /// waits for the next job) and forgets the kept values of tiles no layer covers any more. Neighbouring
    /// tiles go in one write (`cluster`): the rectangles written are returned.
    pub fn write(&mut self, composed: Composed, ground: &mut dyn Ground) -> Vec<SampleRect> {
        let bounds = ground.bounds();
        let mut fresh: Vec<(SampleRect, usize, Tile)> = Vec::new();
        for (t, version, tile) in composed.tiles {
            if self.versions.get(&t).copied().unwrap_or(0) != version {
                continue;
            }
            if !self.layers.iter().any(|e| e.layer.tiles().contains(&t)) {
                self.kept.remove(&t);
                self.versions.remove(&t);
                self.kept_version += 1;
            }
            if let Some((r, at)) = clip(t, bounds) {
                fresh.push((r, at, tile));
            }
        }
        let clusters = cluster(fresh.iter().map(|f| f.0).collect());
        for c in &clusters {
            let (mut h, mut ctl) = ground.read(*c);
            for (r, at, tile) in fresh.iter().filter(|f| !c.intersect(f.0).is_empty()) {
                for row in 0..r.d {
                    let src = at + row * TILE as usize;
                    let dst = ((r.z - c.z) as usize + row) * c.w + (r.x - c.x) as usize;
                    h[dst..dst + r.w].copy_from_slice(&tile.heights[src..src + r.w]);
                    ctl[dst..dst + r.w].copy_from_slice(&tile.control[src..src + r.w]);
                }
            }
            ground.write(*c, &h, &ctl);
        }
        clusters
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

    /// The final values of the kept tiles under `r`, before an edit there (None when no layer covers it:
    /// the edit needs no bookkeeping).
    pub fn before(&self, r: SampleRect, ground: &dyn Ground) -> Option<Before> {
        let tiles: Vec<(TileKey, Tile)> = tiles_over(r)
            .filter(|t| self.kept.contains_key(t))
            .map(|t| (t, read_tile(t, ground)))
            .collect();
        (!tiles.is_empty()).then_some(Before { tiles })
    }

    /// An edit changed the final values since `before`: under the layers, height differences are added
    /// to the kept heights and changed control values replace the kept ones (an undo of the edit takes
    /// them back); then the layers apply again on top there, composed now (an edit shows at once).
    /// Returns the rectangles written.
    pub fn sculpted(&mut self, before: Before, ground: &mut dyn Ground) -> Vec<SampleRect> {
        let mut touched = BTreeSet::new();
        for (t, old) in before.tiles {
            let now = read_tile(t, ground);
            let Some(tile) = self.kept.remove(&t) else {
                continue;
            };
            let mut kept = tile.expanded();
            for k in 0..TILE_SAMPLES {
                if now.heights[k] != old.heights[k] {
                    kept.heights[k] += now.heights[k] - old.heights[k];
                }
                if now.control[k] != old.control[k] {
                    kept.control[k] = now.control[k];
                }
            }
            self.kept.insert(t, kept.compact());
            touched.insert(t);
        }
        self.kept_version += 1;
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
            self.kept.insert(*t, read_tile(*t, ground).compact());
        }
        self.kept_version += 1;
        self.mark(keys);
    }

    /// Kept (sculpted) height of sample (x, z), or None where no layer covers it (the ground's own).
    pub fn sculpted_height(&self, x: i64, z: i64) -> Option<f32> {
        let t = [x.div_euclid(TILE), z.div_euclid(TILE)];
        let k = (z.rem_euclid(TILE) * TILE + x.rem_euclid(TILE)) as usize;
        self.kept.get(&t).map(|tile| tile.heights[k])
    }

    /// The kept values, for saving with the map: "WTLY", version 1, tile count, then per tile its key
    /// (two i64), whether it has control values (u32 0 or 1), its heights and then its control values
    /// if it has them (little-endian).
    pub fn to_bytes(&self) -> Vec<u8> {
        if self.kept.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(12 + self.kept.len() * 20 + self.kept_bytes());
        out.extend_from_slice(b"WTLY");
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&(self.kept.len() as u32).to_le_bytes());
        for (t, tile) in &self.kept {
            out.extend_from_slice(&t[0].to_le_bytes());
            out.extend_from_slice(&t[1].to_le_bytes());
            out.extend_from_slice(&u32::from(!tile.control.is_empty()).to_le_bytes());
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
    pub fn load_bytes(&mut self, bytes: &[u8]) -> Result<(), LayerBaseError> {
        let kept = if bytes.is_empty() {
            BTreeMap::new()
        } else {
            parse(bytes)?
        };
        self.kept = kept;
        self.versions.clear();
        self.dirty.clear();
        self.kept_version += 1;
        Ok(())
    }
}

/// Why saved layer data (`layer_base`, `layers.base`) was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum LayerBaseError {
    /// The data ends before what its header announces.
    Short { bytes: usize },
    /// Not kept layer data (another file, or another version).
    NotLayerData,
    /// A kept tile with a height that is not finite.
    NonFinite { tile: TileKey, height: f32 },
    /// Bytes after the last tile.
    Trailing { bytes: usize },
}

impl std::fmt::Display for LayerBaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Short { bytes } => write!(f, "kept layer data ends early ({bytes} bytes)"),
            Self::NotLayerData => f.write_str("not kept layer data (WTLY version 1)"),
            Self::NonFinite { tile, height } => {
                write!(f, "tile {tile:?} holds a non-finite height {height}")
            }
            Self::Trailing { bytes } => write!(f, "{bytes} bytes after the last tile"),
        }
    }
}

impl std::error::Error for LayerBaseError {}

fn parse(bytes: &[u8]) -> Result<BTreeMap<TileKey, Tile>, LayerBaseError> {
    let short = || LayerBaseError::Short { bytes: bytes.len() };
    let take = |at: &mut usize, n: usize| -> Result<&[u8], LayerBaseError> {
        let s = bytes.get(*at..*at + n).ok_or_else(short)?;
        *at += n;
        Ok(s)
    };
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap());
    let mut at = 0;
    if take(&mut at, 4)? != b"WTLY" || word(take(&mut at, 4)?) != 1 {
        return Err(LayerBaseError::NotLayerData);
    }
    let n = word(take(&mut at, 4)?) as usize;
    let mut kept = BTreeMap::new();
    for _ in 0..n {
        let k = take(&mut at, 16)?;
        let key = [0, 8].map(|o| i64::from_le_bytes(k[o..o + 8].try_into().unwrap()));
        let has_control = word(take(&mut at, 4)?) != 0;
        let heights: Vec<f32> = take(&mut at, TILE_SAMPLES * 4)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        if let Some(&h) = heights.iter().find(|h| !h.is_finite()) {
            return Err(LayerBaseError::NonFinite {
                tile: key,
                height: h,
            });
        }
        let control = if has_control {
            take(&mut at, TILE_SAMPLES * 4)?
                .chunks_exact(4)
                .map(word)
                .collect()
        } else {
            Vec::new()
        };
        kept.insert(key, Tile { heights, control });
    }
    if at != bytes.len() {
        return Err(LayerBaseError::Trailing {
            bytes: bytes.len() - at,
        });
    }
    Ok(kept)
}

#[cfg(test)]
pub(crate) mod tests;
