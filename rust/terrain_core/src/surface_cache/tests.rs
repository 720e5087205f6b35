use super::*;

/// What each atlas slot of every level holds: the texel index last drawn there (a model of the GPU side:
/// a drawn slot takes the index the window puts there, as the fill shader computes it).
struct Atlas {
    slots: Vec<Vec<Option<[i64; 2]>>>,
}

impl Atlas {
    fn new(c: &SurfaceCacheConfig) -> Self {
        Self {
            slots: vec![vec![None; c.size() * c.size()]; c.levels()],
        }
    }

    /// Draws `rects` as the fill shader would: each slot gets the index of the window's texel there.
    fn draw(&mut self, cache: &SurfaceCache, rects: &[AtlasRect]) {
        let s = cache.config().size();
        for r in rects {
            let l = r.y / s;
            let o = cache.origin(l).unwrap();
            for y in r.y..r.y + r.h {
                for x in r.x..r.x + r.w {
                    let slot = [x as i64, (y - l * s) as i64];
                    let idx = [0, 1].map(|a| o[a] + (slot[a] - o[a]).rem_euclid(s as i64));
                    self.slots[l][(y - l * s) * s + x] = Some(idx);
                }
            }
        }
    }

    /// Every slot of every level holds the window's texel that maps there.
    fn check(&self, cache: &SurfaceCache) {
        let s = cache.config().size() as i64;
        for (l, slots) in self.slots.iter().enumerate() {
            let o = cache.origin(l).unwrap();
            for zi in o[1]..o[1] + s {
                for xi in o[0]..o[0] + s {
                    let slot = (zi.rem_euclid(s) * s + xi.rem_euclid(s)) as usize;
                    assert_eq!(slots[slot], Some([xi, zi]), "level {l} texel {xi},{zi}");
                }
            }
        }
    }
}

fn small() -> SurfaceCacheConfig {
    SurfaceCacheConfig::new(3, 32).unwrap()
}

#[test]
fn config_keeps_only_valid_values() {
    assert!(SurfaceCacheConfig::new(0, 256).is_err());
    assert!(SurfaceCacheConfig::new(5, 256).is_err());
    assert!(SurfaceCacheConfig::new(4, 100).is_err());
    assert!(SurfaceCacheConfig::new(4, 16).is_err());
    assert!(SurfaceCacheConfig::new(4, 2048).is_err());
    let e = SurfaceCacheConfig::new(4, 100).unwrap_err().to_string();
    assert!(
        e.contains("surface_cache_size") && e.contains("multiple of 16"),
        "{e}"
    );
    // The defaults fit the 4 MiB budget even where the renderer doubles a render target (depth).
    assert!(2 * SurfaceCacheConfig::default().bytes() <= 4 * 1024 * 1024);
}

#[test]
fn the_first_update_draws_every_window_then_a_still_camera_draws_nothing() {
    let c = small();
    let mut cache = SurfaceCache::new(c, 1.0);
    let mut out = Vec::new();
    assert_eq!(cache.update([100.3, -40.2], &mut out), 3 * 32 * 32);
    let mut atlas = Atlas::new(&c);
    atlas.draw(&cache, &out);
    atlas.check(&cache);
    assert_eq!(cache.update([100.3, -40.2], &mut out), 0);
    assert!(out.is_empty());
    // Within the same texel on every level: still nothing.
    assert_eq!(cache.update([100.9, -40.1], &mut out), 0);
}

#[test]
fn a_move_of_one_texel_draws_only_the_strip_it_uncovered() {
    let c = small();
    let mut cache = SurfaceCache::new(c, 1.0);
    let mut out = Vec::new();
    cache.update([100.5, 10.5], &mut out);
    // One texel of level 0 to +x, inside level 1's and 2's texels (100.5 -> 101.5 stays in [100, 102)).
    assert_eq!(cache.update([101.5, 10.5], &mut out), 32);
    // One column of level 0 (split where its slots wrap).
    assert!(out.iter().all(|r| r.y < 32 && r.w == 1), "{out:?}");
    assert_eq!(out.iter().map(|r| r.h).sum::<usize>(), 32);
    // And one to +z: one row (10.5 -> 11.5 stays in level 1's [10, 12) and level 2's [8, 12)).
    assert_eq!(cache.update([101.5, 11.5], &mut out), 32);
    // Two back: two rows of level 0, and level 1's texel changes too (z 5.75 -> 4.75): one row there.
    assert_eq!(cache.update([101.5, 9.5], &mut out), 96);
}

#[test]
fn a_random_flight_keeps_every_slot_current() {
    let c = small();
    let mut cache = SurfaceCache::new(c, 0.5);
    let mut atlas = Atlas::new(&c);
    let mut out = Vec::new();
    let mut p = [3.0, -7.0];
    let mut seed = 12345u64;
    let mut rnd = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as f64 / (1u64 << 31) as f64) - 0.5
    };
    for i in 0..400 {
        // Small steps, sometimes long ones and jumps; sometimes an edit.
        let k = if i % 50 == 49 {
            200.0
        } else if i % 7 == 0 {
            9.0
        } else {
            1.3
        };
        p = [p[0] + rnd() * k, p[1] + rnd() * k];
        if i % 11 == 0 {
            cache.invalidate([p[0] + rnd() * 10.0, p[1]], [p[0] + 5.0, p[1] + 3.0]);
        }
        cache.update(p, &mut out);
        atlas.draw(&cache, &out);
        atlas.check(&cache);
        // No rectangle reaches past its level's rows or the plane.
        assert!(out
            .iter()
            .all(|r| r.x + r.w <= 32 && (r.y % 32) + r.h <= 32));
    }
}

#[test]
fn an_edit_redraws_its_texels_on_every_level_that_holds_them() {
    let c = small();
    let mut cache = SurfaceCache::new(c, 1.0);
    let mut out = Vec::new();
    cache.update([0.5, 0.5], &mut out);
    let before = cache.texels_written();
    // A 4 x 2 unit edit: level 0 redraws 4+3 x 2+3 texels (one texel of margin each side, a texel's patch
    // reaching its neighbours), coarser levels fewer.
    cache.invalidate([2.0, 2.0], [5.5, 3.5]);
    let n = cache.update([0.5, 0.5], &mut out);
    assert_eq!(cache.texels_written() - before, n);
    assert!(
        out.iter().any(|r| r.y < 32 && r.w * r.h == 6 * 4),
        "{out:?}"
    );
    assert!(
        out.iter().any(|r| r.y >= 64),
        "the coarsest level holds it too: {out:?}"
    );
    assert!(n < 60, "{n} texels for a small edit");
    // Far outside every window: nothing; NaN: nothing.
    cache.invalidate([1e5, 1e5], [1e5 + 1.0, 1e5 + 1.0]);
    cache.invalidate([f64::NAN, 0.0], [1.0, 1.0]);
    assert_eq!(cache.update([0.5, 0.5], &mut out), 0);
    assert_eq!(cache.update([f64::NAN, 0.5], &mut out), 0);
    // Absurd positions (a node scaled to nothing, a huge transform) neither panic nor draw.
    assert_eq!(cache.update([1e300, 0.5], &mut out), 0);
    cache.invalidate([-1e300, 0.0], [1e300, 1.0]);
    assert_eq!(cache.update([0.5, 0.5], &mut out), 0);
}

#[test]
fn invalidate_all_redraws_everything() {
    let c = small();
    let mut cache = SurfaceCache::new(c, 1.0);
    let mut out = Vec::new();
    cache.update([0.5, 0.5], &mut out);
    cache.invalidate_all();
    assert_eq!(cache.update([0.5, 0.5], &mut out), 3 * 32 * 32);
}
