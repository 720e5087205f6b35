//! The undo data of an instance or detail-density brush stroke (`TerrainBrushStroke` with an
//! INSTANCE_* or DETAIL_* brush): the TerrainInstancer's cells a dab can reach are saved the first time,
//! before it changes them, so a stroke keeps only the cells it painted over; a detail stroke keeps the
//! painted density map before and after.

use crate::data::terrain_brush::TerrainBrush;
use crate::instances::terrain_instancer::TerrainInstancer;
use godot::classes::Node;
use godot::prelude::*;
use std::collections::BTreeMap;

pub(crate) struct InstanceChunks {
    instancer: Gd<TerrainInstancer>,
    detail: bool,
    /// Cell → [before, after] (TerrainInstances' byte format).
    cells: BTreeMap<(i32, i32), [PackedByteArray; 2]>,
    /// The detail density map [before, after] (detail strokes).
    density: [PackedByteArray; 2],
}

impl InstanceChunks {
    /// A stroke on `terrain`'s first TerrainInstancer child (`detail`: a density brush); None without one.
    pub fn begin(terrain: &Gd<Node>, detail: bool) -> Option<Self> {
        let instancer = terrain
            .get_children()
            .iter_shared()
            .find_map(|c| c.try_cast::<TerrainInstancer>().ok())?;
        let mut s = Self {
            instancer,
            detail,
            cells: BTreeMap::new(),
            density: Default::default(),
        };
        if detail {
            s.density[0] = s.density();
        }
        Some(s)
    }

    fn density(&self) -> PackedByteArray {
        let res = self.instancer.bind().get_instances_resource();
        res.map(|r| r.bind().get_detail_density())
            .unwrap_or_default()
    }

    fn cell_data(&self, k: (i32, i32)) -> PackedByteArray {
        let keys: Array<Vector2i> = [Vector2i::new(k.0, k.1)].into_iter().collect();
        self.instancer.bind().get_cells_data(keys)
    }

    /// One dab of `brush` at world X/Z `at` lasting `seconds`: the cells it can reach are saved first.
    /// Returns the world X/Z rectangle whose instances changed (empty: none).
    pub fn dab(&mut self, brush: &Gd<TerrainBrush>, at: Vector2, seconds: f64) -> Rect2 {
        if !self.detail {
            let size = brush.bind().core().size() as f32;
            let area = Rect2::new(at - Vector2::splat(size * 0.5), Vector2::splat(size));
            let keys = self.instancer.bind().get_cell_keys(area);
            for k in keys.iter_shared().map(|k| (k.x, k.y)) {
                if !self.cells.contains_key(&k) {
                    let before = self.cell_data(k);
                    self.cells.insert(k, [before, PackedByteArray::new()]);
                }
            }
        }
        self.instancer
            .bind_mut()
            .apply_brush(Some(brush.clone()), at, seconds)
    }

    /// Records the state after the stroke and drops the cells it did not change; whether anything did.
    pub fn finish(&mut self) -> bool {
        if self.detail {
            self.density[1] = self.density();
            return self.density[0] != self.density[1];
        }
        let keys: Vec<(i32, i32)> = self.cells.keys().copied().collect();
        for k in keys {
            let after = self.cell_data(k);
            let c = self.cells.get_mut(&k).expect("listed");
            c[1] = after;
        }
        self.cells.retain(|_, [before, after]| before != after);
        !self.cells.is_empty()
    }

    /// Writes every cell's (or the density's) state before the stroke, or `after` it.
    pub fn write(&mut self, after: bool) {
        let i = usize::from(after);
        if self.detail {
            // Not bound while the resource announces the change (the instancer follows it).
            let res = self.instancer.bind().get_instances_resource();
            if let Some(mut r) = res {
                r.bind_mut().set_detail_density(self.density[i].clone());
            }
            return;
        }
        for (k, states) in &self.cells {
            let keys: Array<Vector2i> = [Vector2i::new(k.0, k.1)].into_iter().collect();
            self.instancer
                .bind_mut()
                .set_cells_data(keys, states[i].clone());
        }
    }

    /// Bytes kept for undo and redo.
    pub fn byte_size(&self) -> usize {
        let cells: usize = self.cells.values().map(|[b, a]| b.len() + a.len()).sum();
        cells + self.density[0].len() + self.density[1].len()
    }
}
