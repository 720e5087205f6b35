//! `TerrainInstances`: the placed instances as a resource (store and format in
//! `terrain_core::instances`).

use godot::prelude::*;
use terrain_core::detail::density::{self, DensityMap};
use terrain_core::instances::InstanceStore;

/// Every instance a `TerrainInstancer` placed, grouped in cells of the terrain: 32 bytes an instance
/// (position in its cell, height above the ground, rotation, scale), and the density painted on its detail
/// layers (a byte a terrain sample, only where painted). Saved inside the scene or as its own
/// `.res`/`.tres`; loading gives back the same bits. Edit it through the instancer.
#[derive(GodotClass)]
#[class(tool, init, base=Resource)]
pub struct TerrainInstances {
    /// Side of a cell in terrain units, [1, 4096]: the unit of drawing, streaming and recomputation after
    /// an edit. Changing it regroups the instances.
    #[export(range = (1.0, 4096.0, 1.0))]
    #[var(get = get_cell_size, set = set_cell_size)]
    #[allow(dead_code)] // lives in `store`
    cell_size: f64,
    /// The instances in `terrain_core::instances`' byte format (stored in the resource).
    #[export(storage)]
    #[var(get = get_data, set = set_data)]
    #[allow(dead_code)]
    data: PackedByteArray,
    /// The painted density of the instancer's detail layers (by index), in
    /// `terrain_core::detail::density`'s byte format; empty: nothing painted.
    #[export(storage)]
    #[var(get = get_detail_density, set = set_detail_density)]
    #[allow(dead_code)]
    detail_density: PackedByteArray,
    store: InstanceStore,
    densities: Vec<DensityMap>,
    base: Base<Resource>,
}

#[godot_api]
impl TerrainInstances {
    #[func]
    fn get_cell_size(&self) -> f64 {
        self.store.cell_size()
    }
    #[func]
    fn set_cell_size(&mut self, v: f64) {
        match self.store.with_cell_size(v) {
            Ok(s) => {
                self.store = s;
                self.base_mut().emit_changed();
            }
            Err(e) => godot_error!("TerrainInstances.{e}; keeping {}", self.store.cell_size()),
        }
    }
    #[func]
    fn get_data(&self) -> PackedByteArray {
        PackedByteArray::from(self.store.to_bytes())
    }
    #[func]
    fn set_data(&mut self, bytes: PackedByteArray) {
        match InstanceStore::from_bytes(bytes.as_slice()) {
            Ok(s) => {
                self.store = s;
                self.base_mut().emit_changed();
            }
            Err(e) => godot_error!("TerrainInstances.data: {e}; keeping the previous instances"),
        }
    }
    #[func]
    pub(crate) fn get_detail_density(&self) -> PackedByteArray {
        PackedByteArray::from(density::to_bytes(&self.densities))
    }
    #[func]
    pub(crate) fn set_detail_density(&mut self, bytes: PackedByteArray) {
        match density::from_bytes(bytes.as_slice()) {
            Ok(d) => {
                self.densities = d;
                self.base_mut().emit_changed();
            }
            Err(e) => {
                godot_error!("TerrainInstances.detail_density: {e}; keeping the previous density")
            }
        }
    }
    /// Instances of every mesh.
    #[func]
    fn get_total_count(&self) -> i64 {
        self.store.total() as i64
    }
    /// CPU memory the instances take (their lists and cells), in bytes.
    #[func]
    fn get_memory_bytes(&self) -> i64 {
        self.store.heap_bytes() as i64
    }
}

impl TerrainInstances {
    pub fn store(&self) -> &InstanceStore {
        &self.store
    }
    pub fn store_mut(&mut self) -> &mut InstanceStore {
        &mut self.store
    }
    /// Detail layer `i`'s painted density (a snapshot: its tiles are shared, not copied).
    pub fn density(&self, i: usize) -> DensityMap {
        self.densities.get(i).cloned().unwrap_or_default()
    }
    pub fn density_mut(&mut self, i: usize) -> &mut DensityMap {
        if self.densities.len() <= i {
            self.densities.resize_with(i + 1, DensityMap::default);
        }
        &mut self.densities[i]
    }
}
