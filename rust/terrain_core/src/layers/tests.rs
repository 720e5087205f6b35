use super::*;

/// A finite terrain of `w` × `d` samples at the origin.
pub(crate) struct Grid {
    pub w: usize,
    pub h: Vec<f32>,
    pub c: Vec<u32>,
}

impl Grid {
    pub fn hills(w: usize) -> Self {
        Grid {
            w,
            h: (0..w * w)
                .map(|i| ((i % w) as f32 * 0.1).sin() * 5.0 + (i / w) as f32 * 0.05)
                .collect(),
            c: vec![0; w * w],
        }
    }
}

impl Ground for Grid {
    fn bounds(&self) -> Option<SampleRect> {
        Some(SampleRect {
            x: 0,
            z: 0,
            w: self.w,
            d: self.h.len() / self.w,
        })
    }
    fn read(&self, r: SampleRect) -> (Vec<f32>, Vec<u32>) {
        let (mut h, mut c) = (Vec::new(), Vec::new());
        for z in r.z..r.z + r.d as i64 {
            for x in r.x..r.x + r.w as i64 {
                let i = z as usize * self.w + x as usize;
                h.push(self.h[i]);
                c.push(self.c[i]);
            }
        }
        (h, c)
    }
    fn write(&mut self, r: SampleRect, h: &[f32], c: &[u32]) {
        for z in r.z..r.z + r.d as i64 {
            for x in r.x..r.x + r.w as i64 {
                let k = ((z - r.z) * r.w as i64 + (x - r.x)) as usize;
                let i = z as usize * self.w + x as usize;
                self.h[i] = h[k];
                self.c[i] = c[k];
            }
        }
    }
}

/// A flat pad at `height` over `rect`.
struct Pad {
    rect: SampleRect,
    height: f32,
    tiles: BTreeSet<TileKey>,
}

fn pad(x: i64, z: i64, w: usize, d: usize, height: f32) -> Arc<Pad> {
    let rect = SampleRect { x, z, w, d };
    Arc::new(Pad {
        rect,
        height,
        tiles: tiles_over(rect).collect(),
    })
}

impl Layer for Pad {
    fn tiles(&self) -> &BTreeSet<TileKey> {
        &self.tiles
    }
    fn apply(&self, key: TileKey, tile: &mut Tile) {
        let tr = tile_rect(key);
        let o = tr.intersect(self.rect);
        for z in o.z..o.z + o.d as i64 {
            for x in o.x..o.x + o.w as i64 {
                tile.heights[((z - tr.z) * TILE + x - tr.x) as usize] = self.height;
            }
        }
    }
}

fn at(g: &Grid, x: usize, z: usize) -> f32 {
    g.h[z * g.w + x]
}

#[test]
fn a_moved_layer_gives_the_old_ground_back_exactly() {
    let mut g = Grid::hills(200);
    let original = g.h.clone();
    let mut s = LayerStack::default();
    s.set(1, 0, pad(20, 30, 40, 10, 3.0), None, &g);
    s.compose_now(&mut g);
    assert_eq!(at(&g, 25, 35), 3.0);
    assert_eq!(
        at(&g, 19, 35),
        original[35 * 200 + 19],
        "outside: untouched"
    );
    s.set(1, 0, pad(100, 120, 40, 10, 3.0), None, &g);
    s.compose_now(&mut g);
    assert_eq!(at(&g, 25, 35), original[35 * 200 + 25]);
    assert_eq!(at(&g, 110, 125), 3.0);
    s.remove(1);
    s.compose_now(&mut g);
    assert_eq!(g.h, original, "every sample back, bit for bit");
    assert_eq!(
        s.kept_bytes(),
        0,
        "nothing kept once no layer covers the ground"
    );
}

#[test]
fn layers_apply_in_order_and_sculpting_under_them_keeps_them_on_top() {
    let mut g = Grid::hills(128);
    let mut s = LayerStack::default();
    s.set(1, 0, pad(10, 10, 30, 30, 2.0), None, &g);
    s.set(2, 0, pad(30, 30, 30, 30, 7.0), None, &g);
    s.compose_now(&mut g);
    assert_eq!(
        at(&g, 35, 35),
        7.0,
        "the later layer wins where they overlap"
    );
    assert_eq!(at(&g, 15, 15), 2.0);
    // A lower order puts a layer under the others.
    s.set(2, -1, pad(30, 30, 30, 30, 7.0), None, &g);
    s.compose_now(&mut g);
    assert_eq!(at(&g, 35, 35), 2.0, "order -1 goes first");
    // A sculpt edit raises a block across the pad's edge by 4: beside the pad the ground rises, on the
    // pad it stays flat; removing the pads shows the raised sculpted ground under it.
    let r = SampleRect {
        x: 0,
        z: 0,
        w: 20,
        d: 20,
    };
    let (before, before_c) = g.read(r);
    let under = s.sculpted_height(15, 15).unwrap();
    let raised: Vec<f32> = before.iter().map(|v| v + 4.0).collect();
    let kept = s.before(r, &g).expect("the pad's tiles are kept");
    g.write(r, &raised, &before_c);
    s.sculpted(kept, &mut g);
    assert_eq!(at(&g, 15, 15), 2.0, "the pad stays flat");
    assert_eq!(
        at(&g, 5, 5),
        before[5 * 20 + 5] + 4.0,
        "beside it the ground rose"
    );
    s.remove(1);
    s.remove(2);
    s.compose_now(&mut g);
    assert_eq!(
        at(&g, 15, 15),
        under + 4.0,
        "the sculpted ground under it rose too"
    );
    assert_eq!(s.kept_bytes(), 0);
}

#[test]
fn clusters_hold_every_rectangle_and_join_neighbours() {
    let t = |x: i64, z: i64| tile_rect([x, z]);
    let rects = vec![t(0, 0), t(1, 0), t(2, 1), t(3, 1), t(40, 40), t(1, 1)];
    let c = cluster(rects.clone());
    assert!(c.len() <= 3 && c.len() >= 2, "{c:?}");
    for r in &rects {
        assert_eq!(
            c.iter().filter(|g| g.intersect(*r) == *r).count(),
            1,
            "{r:?} in one group"
        );
    }
    for (i, a) in c.iter().enumerate() {
        for b in &c[i + 1..] {
            assert!(a.intersect(*b).is_empty(), "groups do not overlap");
        }
    }
}

#[test]
fn a_stale_composition_is_not_written() {
    let mut g = Grid::hills(64);
    let mut s = LayerStack::default();
    s.set(1, 0, pad(0, 0, 10, 10, 1.0), None, &g);
    let old = s.job();
    s.set(1, 0, pad(0, 0, 10, 10, 5.0), None, &g);
    let fresh = s.job();
    s.write(fresh.run(), &mut g);
    let written = s.write(old.run(), &mut g);
    assert!(written.is_empty(), "the older job's tiles were stale");
    assert_eq!(at(&g, 5, 5), 5.0);
}

#[test]
fn kept_values_survive_a_save_and_reload() {
    let mut g = Grid::hills(100);
    let original = g.h.clone();
    let mut s = LayerStack::default();
    s.set(1, 0, pad(40, 40, 20, 20, 9.0), None, &g);
    s.compose_now(&mut g);
    let bytes = s.to_bytes();
    // 40..60 lies in tiles 2 and 3 of 16 on each axis; unpainted: heights only.
    assert_eq!(
        bytes.len(),
        12 + 4 * (20 + TILE_SAMPLES * 4),
        "four tiles kept"
    );
    // A reopened map: the composed heights and the kept values, then the layer again.
    let mut s2 = LayerStack::default();
    s2.load_bytes(&bytes).unwrap();
    let composed = g.h.clone();
    s2.set(1, 0, pad(40, 40, 20, 20, 9.0), None, &g);
    s2.compose_now(&mut g);
    assert_eq!(
        g.h, composed,
        "applied again from the kept values: no double application"
    );
    s2.remove(1);
    s2.compose_now(&mut g);
    assert_eq!(g.h, original);
    assert!(matches!(
        s2.load_bytes(&bytes[..100]),
        Err(LayerBaseError::Short { bytes: 100 })
    ));
    assert_eq!(
        s2.load_bytes(b"nonsense data"),
        Err(LayerBaseError::NotLayerData)
    );
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        s2.load_bytes(&longer),
        Err(LayerBaseError::Trailing { bytes: 1 })
    );
}
