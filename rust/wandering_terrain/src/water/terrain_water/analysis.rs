//! What the water is: the levels computed from the terrain's samples under the area (sea, lakes and
//! rivers: `terrain_core::water`), the bodies drawn for them, and the queries' answer at a point.

use super::*;

/// Why the water cannot be computed (`update_water` reports it).
#[derive(Debug)]
pub(super) enum WaterSetupError {
    NoTerrain,
    NoMap,
    Area { w: usize, d: usize },
    Levels(terrain_core::water::WaterError),
}

impl std::fmt::Display for WaterSetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Self::NoTerrain => write!(f, "TerrainWater must be a child (or grandchild) of a TerrainNode or a WanderingTerrain"),
            Self::NoMap => write!(f, "the terrain has no terrain_data or terrain_regions to put water on (a generated world gets water through a TerrainRegions map)"),
            Self::Area { w, d } => write!(f, "area must cover 2 × 2 to 2048² samples of the map, got {w} × {d} (set TerrainWater.area)"),
            Self::Levels(e) => write!(f, "{e}"),
        }
    }
}

impl TerrainWater {
    /// The water level map from the terrain's samples over the area.
    pub(super) fn compute(&self) -> Result<(WaterMap, Vec<f32>), WaterSetupError> {
        let host = host_above(&self.to_gd().upcast()).ok_or(WaterSetupError::NoTerrain)?;
        let surface = host.dyn_bind().terrain_surface();
        let target = surface.edits.clone().ok_or(WaterSetupError::NoMap)?;
        let bounds = from_rect2i(target.bounds());
        let rect = if self.area.size == Vector2i::ZERO {
            bounds
        } else {
            from_rect2i(self.area).intersect(bounds)
        };
        if rect.w < 2 || rect.d < 2 || rect.w * rect.d > MAX_SAMPLES {
            return Err(WaterSetupError::Area {
                w: rect.w,
                d: rect.d,
            });
        }
        let spacing = target.spacing();
        let heights = target.heights(rect);
        let points: Vec<[usize; 2]> = self
            .lake_points
            .as_slice()
            .iter()
            .map(|p| {
                let t = surface.terrain_of(Vector3::new(p.x, 0.0, p.y));
                let s = |v: f64, o: i64| (v / spacing - 0.5).round() as i64 - o;
                let (x, z) = (s(t[0], rect.x), s(t[2], rect.z));
                if x < 0 || z < 0 {
                    [usize::MAX, usize::MAX]
                } else {
                    [x as usize, z as usize]
                }
            })
            .collect();
        let sea = self.sea.then_some(self.sea_level as f32);
        let grid = Grid {
            heights: &heights,
            w: rect.w,
            d: rect.d,
            spacing,
        };
        let (levels, found) = water_levels(grid, sea.unwrap_or(f32::NEG_INFINITY), &points)
            .map_err(WaterSetupError::Levels)?;
        let mut rivers = Vec::new();
        for (i, c) in self.rivers.iter_shared().enumerate() {
            let Some(c) = c else { continue };
            match river_surface::from_curve(&c, spacing, 0.5 * self.river_width) {
                Some(r) => rivers.push(r),
                None => godot_error!("TerrainWater.rivers[{i}]: a river needs a curve of two finite points or more; skipped"),
            }
        }
        let mut map = WaterMap {
            water: Arc::new(WaterLevels {
                levels,
                rect,
                spacing,
                sea,
                rivers,
            }),
            to_world: surface.to_world,
            frame: surface.frame,
            bodies: Vec::new(),
            found: found.iter().map(|l| l.unwrap_or(f32::NAN)).collect(),
        };
        map.bodies = bodies(&map.water);
        Ok((map, heights))
    }

    /// The map, terrain X/Z of world X/Z `pos`, and the ground's height there (terrain units).
    pub(super) fn ground_at(&self, pos: Vector2) -> Option<(&WaterMap, [f64; 3], f32)> {
        let map = self.map.as_ref()?;
        if !pos.is_finite() {
            return None;
        }
        let t = map
            .frame
            .to_terrain([f64::from(pos.x), 0.0, f64::from(pos.y)]);
        let (x, z) = (t[0], t[2]);
        let surface = host_above(&self.to_gd().upcast())?
            .dyn_bind()
            .terrain_surface();
        let ground = surface
            .surface?
            .with_samples(|s| samples::height_at(s, x, z));
        Some((map, t, ground))
    }

    /// (water surface, ground), world Y, at world X/Z `pos`; None where there is no water: the highest of
    /// the sea's or a lake's level (the corner rule) and the rivers' surfaces there, if the ground is
    /// below it.
    pub(super) fn water_at(&mut self, pos: Vector2) -> Option<(f32, f32)> {
        self.make_current();
        let (map, t, ground) = self.ground_at(pos)?;
        let (x, z) = (t[0], t[2]);
        let level = map.water.level_at(x, z);
        if !(level.is_finite() && ground < level) {
            return None;
        }
        let w = |y: f32| map.frame.to_world([x, f64::from(y), z])[1] as f32;
        Some((w(level), w(ground)))
    }
}

/// One body per water level: its level and the rectangle (terrain X/Z) of its samples, a sample wider on
/// each side; the sea reaches `SEA_MARGIN` beyond the map.
pub(super) fn bodies(map: &WaterLevels) -> Vec<(f32, [f32; 4])> {
    let mut out: Vec<(f32, [i64; 4])> = Vec::new();
    for (i, &l) in map.levels.iter().enumerate() {
        if !l.is_finite() {
            continue;
        }
        let (x, z) = ((i % map.rect.w) as i64, (i / map.rect.w) as i64);
        match out.iter_mut().find(|(level, _)| *level == l) {
            Some((_, b)) => *b = [b[0].min(x), b[1].min(z), b[2].max(x), b[3].max(z)],
            None => out.push((l, [x, z, x, z])),
        }
    }
    let sp = map.spacing as f32;
    let to_terrain = |i: i64, o: i64| ((o + i) as f32 + 0.5) * sp;
    let mut bodies: Vec<(f32, [f32; 4])> = out
        .into_iter()
        .map(|(l, b)| {
            let (x0, z0) = (
                to_terrain(b[0] - 1, map.rect.x),
                to_terrain(b[1] - 1, map.rect.z),
            );
            let (x1, z1) = (
                to_terrain(b[2] + 1, map.rect.x),
                to_terrain(b[3] + 1, map.rect.z),
            );
            (l, [x0, z0, x1 - x0, z1 - z0])
        })
        .collect();
    if let Some(sea) = map.sea {
        let (x0, z0) = (to_terrain(0, map.rect.x), to_terrain(0, map.rect.z));
        let (w, d) = (map.rect.w as f32 * sp, map.rect.d as f32 * sp);
        let b = [
            x0 - SEA_MARGIN,
            z0 - SEA_MARGIN,
            w + 2.0 * SEA_MARGIN,
            d + 2.0 * SEA_MARGIN,
        ];
        match bodies.iter_mut().find(|(l, _)| *l == sea) {
            Some(body) => body.1 = b,
            None => bodies.push((sea, b)),
        }
    }
    bodies
}
