//! The tile policy against a recording engine: which tiles reach it, when, and how edits come back.

use super::*;
use crate::terrain_data::TerrainData;
use std::collections::HashMap;

/// An engine that keeps what it is handed: each tile's last grid, and every call.
#[derive(Default)]
struct Engine {
    tiles: HashMap<TileId, TileGrid>,
    writes: usize,
    releases: usize,
    placed: usize,
}

impl TileSink for Engine {
    fn write(&mut self, id: TileId, grid: &TileGrid, _frame: &Frame) {
        self.tiles.insert(id, grid.clone());
        self.writes += 1;
    }
    fn release(&mut self, id: TileId) {
        assert!(
            self.tiles.remove(&id).is_some(),
            "released a tile never written: {id:?}"
        );
        self.releases += 1;
    }
    fn place(
        &mut self,
        _frame: &Frame,
        _rescale: bool,
        tiles: &mut dyn Iterator<Item = (TileId, [f64; 2])>,
    ) {
        for (id, _) in tiles {
            assert!(self.tiles.contains_key(&id));
            self.placed += 1;
        }
    }
}

/// A 512² hilly terrain (1 unit spacing).
fn hills() -> TerrainData {
    let n = 512;
    let h = (0..n * n)
        .map(|i| {
            let (x, z) = ((i % n) as f32, (i / n) as f32);
            (x * 0.05).sin() * 8.0 + (z * 0.07).cos() * 6.0
        })
        .collect();
    TerrainData::from_heights(n, n, 1.0, h).unwrap()
}

fn settings(mode: CollisionMode) -> TileSettings {
    TileSettings {
        mode,
        radius: 40.0,
        subdivision: 1,
        tolerance: 0.0,
    }
}

/// The tile holding terrain point `p`, from the engine's grids (their centre and extent).
fn tile_at(e: &Engine, p: [f64; 2]) -> Option<&TileGrid> {
    e.tiles.values().find(|g| {
        let half = [
            (g.width - 1) as f64 * g.step * 0.5,
            (g.depth - 1) as f64 * g.step * 0.5,
        ];
        (0..2).all(|a| (p[a] - g.centre[a]).abs() <= half[a])
    })
}

/// Height of grid `g` at its point nearest to `p`.
fn grid_height(g: &TileGrid, p: [f64; 2]) -> f32 {
    let x0 = g.centre[0] - (g.width - 1) as f64 * g.step * 0.5;
    let z0 = g.centre[1] - (g.depth - 1) as f64 * g.step * 0.5;
    let i = ((p[0] - x0) / g.step).round() as usize;
    let k = ((p[1] - z0) / g.step).round() as usize;
    g.heights[k * g.width + i]
}

#[test]
fn dynamic_tiles_cover_the_radius_around_the_target_and_nothing_far() {
    let t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    plan.configure(settings(CollisionMode::Dynamic));
    // A sample's centre (samples sit at (i + 0.5) × spacing): a grid point at subdivision 1.
    let target = [256.5, 256.5];
    let n = plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at(target)],
        true,
        1,
    );
    assert!(n > 0 && n == e.tiles.len() && plan.tile_count() == n);
    // Every point within the radius has a tile; none lies wholly beyond the prepared ring.
    for k in 0..16 {
        let a = k as f64 / 16.0 * std::f64::consts::TAU;
        let p = [target[0] + 39.0 * a.cos(), target[1] + 39.0 * a.sin()];
        assert!(tile_at(&e, p).is_some(), "no tile at {p:?}");
    }
    for g in e.tiles.values() {
        let d = (g.centre[0] - target[0]).hypot(g.centre[1] - target[1]);
        assert!(d < 40.0 + 3.0 * 64.0, "a tile {d} units out");
    }
    // The grids are the terrain's heights.
    let g = tile_at(&e, target).unwrap();
    assert_eq!(
        grid_height(g, target),
        crate::samples::height_at(&t, 256.5, 256.5)
    );
}

#[test]
fn a_moving_target_releases_what_it_left_and_gets_ground_where_it_goes() {
    let t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    plan.configure(settings(CollisionMode::Dynamic));
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at([100.0, 100.0])],
        true,
        1,
    );
    let there = [420.0, 400.0];
    for f in 2..200 {
        plan.update(
            &mut e,
            &t,
            None,
            &Frame::default(),
            &[Target::at(there)],
            false,
            f,
        );
        if tile_at(&e, there).is_some() && tile_at(&e, [100.0, 100.0]).is_none() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        tile_at(&e, there).is_some(),
        "no ground under the target where it went"
    );
    assert!(
        tile_at(&e, [100.0, 100.0]).is_none(),
        "the tiles it left stay"
    );
    assert!(e.releases > 0);
    // A jump is not a path: the tile under the target came at once (computed late), not after the ring.
    assert!(plan.late_tiles() <= 4);
}

#[test]
fn the_tile_under_the_target_comes_at_once_whatever_the_budget() {
    let t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    plan.configure(settings(CollisionMode::Dynamic));
    // The first update without waiting: the tiles the target stands in are computed on this thread.
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at([300.5, 200.5])],
        false,
        1,
    );
    assert!(tile_at(&e, [300.5, 200.5]).is_some());
}

#[test]
fn an_edit_makes_its_tiles_again_and_never_shows_an_older_grid() {
    let mut t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    plan.configure(settings(CollisionMode::Dynamic));
    let target = [256.0, 256.0];
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at(target)],
        true,
        1,
    );
    let writes = e.writes;
    let r = crate::terrain_data::Region {
        x: 250,
        z: 250,
        w: 12,
        d: 12,
    };
    t.set_heights_region(r, &[50.0; 144]).unwrap();
    plan.mark(r.into());
    assert!(!plan.idle(&Frame::default(), &[Target::at(target)]));
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at(target)],
        true,
        2,
    );
    assert!(e.writes > writes, "the edited tiles were not written again");
    let g = tile_at(&e, [255.5, 255.5]).unwrap();
    assert_eq!(grid_height(g, [255.5, 255.5]), 50.0);
    assert!(!plan.edits_pending());
    // Settled: an update with nothing new writes nothing.
    let before = e.writes;
    assert!(plan.idle(&Frame::default(), &[Target::at(target)]));
    assert_eq!(
        plan.update(
            &mut e,
            &t,
            None,
            &Frame::default(),
            &[Target::at(target)],
            false,
            3
        ),
        0
    );
    assert_eq!(e.writes, before);
}

#[test]
fn an_edit_far_from_the_target_does_not_bring_tiles_there() {
    let mut t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    plan.configure(settings(CollisionMode::Dynamic));
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at([64.0, 64.0])],
        true,
        1,
    );
    let r = crate::terrain_data::Region {
        x: 400,
        z: 400,
        w: 16,
        d: 16,
    };
    t.set_heights_region(r, &[9.0; 256]).unwrap();
    plan.mark(r.into());
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at([64.0, 64.0])],
        true,
        2,
    );
    assert!(tile_at(&e, [408.0, 408.0]).is_none());
}

#[test]
fn full_covers_the_whole_terrain_within_the_body_budget() {
    let t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    plan.configure(settings(CollisionMode::Full));
    plan.update(&mut e, &t, None, &Frame::default(), &[], true, 1);
    assert!(e.tiles.len() <= MAX_FULL_TILES);
    for p in [[0.5, 0.5], [511.5, 511.5], [0.5, 511.5], [300.5, 17.5]] {
        assert!(tile_at(&e, p).is_some(), "no tile at {p:?}");
    }
}

#[test]
fn disabling_releases_every_tile_and_a_new_frame_places_without_rebuilding() {
    let t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    plan.configure(settings(CollisionMode::Dynamic));
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at([256.0, 256.0])],
        true,
        1,
    );
    let (n, writes) = (e.tiles.len(), e.writes);
    // Shifted: every tile placed again, none written.
    let shifted = Frame {
        origin: [1000.0, 0.0, -500.0],
        scale: [1.0; 3],
    };
    plan.follow_frame(&mut e, &shifted);
    assert_eq!((e.placed, e.writes), (n, writes));
    assert!(plan.configure(settings(CollisionMode::Disabled)));
    plan.update(
        &mut e,
        &t,
        None,
        &shifted,
        &[Target::at([256.0, 256.0])],
        false,
        2,
    );
    assert!(e.tiles.is_empty() && plan.tile_count() == 0);
    assert!(plan.idle(&shifted, &[Target::at([256.0, 256.0])]));
}

#[test]
fn the_tile_states_show_tiles_in_place_and_edits_on_their_way() {
    let mut t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    let mut out = Vec::new();
    assert!(plan.tile_states([0.0, 0.0], 5, &mut out).is_none());
    plan.configure(settings(CollisionMode::Dynamic));
    let target = [256.0, 256.0];
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at(target)],
        true,
        1,
    );
    let (_, side) = plan.tile_states(target, 5, &mut out).unwrap();
    assert_eq!(out.len(), 25);
    assert_eq!(out[12], 1, "the tile under the target is in place");
    assert!(side > 0.0);
    // An edit in the tile east of the target's, beyond the radius (the workers make it, nothing waits).
    let r = crate::terrain_data::Region {
        x: 350,
        z: 255,
        w: 2,
        d: 2,
    };
    t.set_heights_region(r, &[1.0; 4]).unwrap();
    plan.mark(r.into());
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at(target)],
        false,
        2,
    );
    plan.tile_states(target, 5, &mut out).unwrap();
    assert_eq!(out[12], 1, "{out:?}");
    // The one or two tiles the edit touches (it straddles a row of tiles' border).
    let waiting = out.iter().filter(|&&s| s == 2).count();
    assert!((1..=2).contains(&waiting), "{out:?}");
    assert!(plan.edits_pending());
    plan.update(
        &mut e,
        &t,
        None,
        &Frame::default(),
        &[Target::at(target)],
        true,
        3,
    );
    plan.tile_states(target, 5, &mut out).unwrap();
    assert!(
        !out.contains(&2) && out.iter().filter(|&&s| s == 1).count() >= 9,
        "{out:?}"
    );
    assert!(!plan.edits_pending());
}

#[test]
fn a_fast_target_finds_ground_two_updates_ahead_even_with_the_workers_behind() {
    let t = hills();
    let (mut plan, mut e) = (CollisionTiles::default(), Engine::default());
    // A radius that holds two updates of motion; 40 units an update (a 300 m/s body at 7.5 updates a second); no update waits for the workers, and
    // what they compute for an update can only arrive by the next one. A tile written in an update is
    // queryable in Godot Physics only after the engine's step, so the ground must be there two updates
    // ahead: a body moved and queried before the next step stands on a tile written an update earlier.
    plan.configure(TileSettings {
        radius: 100.0,
        ..settings(CollisionMode::Dynamic)
    });
    let mut p = [40.5, 256.5];
    for f in 1..10 {
        plan.update(
            &mut e,
            &t,
            None,
            &Frame::default(),
            &[Target::at(p)],
            false,
            f,
        );
        let next = [p[0] + 40.0, p[1]];
        if f > 1 {
            for (q, what) in [
                (p, "under the target"),
                (next, "a step ahead"),
                ([p[0] + 80.0, p[1]], "two steps ahead"),
            ] {
                assert!(tile_at(&e, q).is_some(), "update {f}: no ground {what}");
            }
        }
        p = next;
    }
}

/// Targets walking apart and together: every target always stands on a tile (never waiting for the
/// workers), a tile two targets want is written once, and the tiles are the union of their areas.
#[test]
fn many_targets_each_stand_on_ground_and_share_tiles() {
    let t = hills();
    let mut e = Engine::default();
    let mut plan = CollisionTiles::default();
    plan.configure(settings(CollisionMode::Dynamic));
    let walk = |k: u64, f: usize| -> Target {
        // Eight walkers on circles of their own; 0 and 1 walk side by side (their areas overlap).
        let a = f as f64 * 0.01 + k as f64 * 0.8;
        let r = 60.0 + 20.0 * (k % 4) as f64;
        let c = if k < 2 {
            [256.0, 256.0]
        } else {
            [120.0 + 35.0 * k as f64, 250.0]
        };
        let side = if k == 1 { 6.0 } else { 0.0 };
        Target {
            id: 100 + k,
            at: [c[0] + r * a.cos() + side, c[1] + r * a.sin()],
            radius: if k == 3 { 20.0 } else { 0.0 },
        }
    };
    let mut targets = Vec::new();
    for f in 1..300 {
        targets.clear();
        targets.extend((0..8).map(|k| walk(k, f)));
        plan.update(
            &mut e,
            &t,
            None,
            &Frame::default(),
            &targets,
            false,
            f as u64,
        );
        for tg in &targets {
            assert!(
                tile_at(&e, tg.at).is_some(),
                "frame {f}: no ground under target {}",
                tg.id
            );
        }
    }
    assert_eq!(plan.tile_count(), e.tiles.len());
    // Bring everything in: the tiles are those within each target's radius (max norm), grown by the
    // ring, and no more than the union of the rings.
    plan.update(&mut e, &t, None, &Frame::default(), &targets, true, 400);
    let (tiling, sp) = plan.view.unwrap();
    let tile = tiling.tile_cells() as f64 * sp;
    for tg in &targets {
        let r = if tg.radius > 0.0 { tg.radius } else { 40.0 };
        for q in [[-r, -r], [r, r], [-r, r], [r, -r], [0.0, 0.0]] {
            let p = [tg.at[0] + q[0] * 0.99, tg.at[1] + q[1] * 0.99];
            if (0.0..511.0).contains(&p[0]) && (0.0..511.0).contains(&p[1]) {
                assert!(
                    tile_at(&e, p).is_some(),
                    "target {} radius corner {q:?}",
                    tg.id
                );
            }
        }
    }
    for g in e.tiles.values() {
        let near = targets.iter().any(|tg| {
            let r = if tg.radius > 0.0 { tg.radius } else { 40.0 } + 3.0 * tile;
            (g.centre[0] - tg.at[0]).abs() <= r && (g.centre[1] - tg.at[1]).abs() <= r
        });
        assert!(near, "a tile at {:?} that no target wants", g.centre);
    }
    // One target leaves: its tiles go, the others' stay.
    let gone = targets.remove(5);
    plan.update(&mut e, &t, None, &Frame::default(), &targets, true, 401);
    assert!(
        tile_at(&e, gone.at).is_none()
            || targets.iter().any(|tg| {
                (tg.at[0] - gone.at[0]).abs() < 100.0 && (tg.at[1] - gone.at[1]).abs() < 100.0
            })
    );
    for tg in &targets {
        assert!(tile_at(&e, tg.at).is_some());
    }
    // No targets: no tiles.
    plan.update(&mut e, &t, None, &Frame::default(), &[], true, 402);
    assert_eq!(e.tiles.len(), 0);
}

/// Two targets on the same spot want the same tiles: each is written once.
#[test]
fn targets_on_the_same_ground_share_its_tiles() {
    let t = hills();
    let (mut one, mut two) = (Engine::default(), Engine::default());
    let (mut a, mut b) = (CollisionTiles::default(), CollisionTiles::default());
    a.configure(settings(CollisionMode::Dynamic));
    b.configure(settings(CollisionMode::Dynamic));
    let p = [200.0, 300.0];
    let twins = [
        Target {
            id: 1,
            at: p,
            radius: 0.0,
        },
        Target {
            id: 2,
            at: [p[0] + 1.0, p[1]],
            radius: 0.0,
        },
    ];
    a.update(
        &mut one,
        &t,
        None,
        &Frame::default(),
        &[Target::at(p)],
        true,
        1,
    );
    b.update(&mut two, &t, None, &Frame::default(), &twins, true, 1);
    assert!(two.tiles.len() <= one.tiles.len() + 8);
    assert_eq!(two.writes, two.tiles.len(), "no tile written twice");
}
