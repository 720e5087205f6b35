//! `TerrainErosion`: the settings of an erosion simulation (`terrain_core::erosion::Simulation`), used by
//! `TerrainData.erode` / `erode_async` and the ERODE brush.

use godot::prelude::*;
use terrain_core::erosion::Simulation;

/// How `TerrainData.erode` erodes: hydraulic erosion by water droplets (each runs downhill, picks up
/// sediment up to its capacity and drops it where it slows; after Hans Theobald Beyer's method), then
/// thermal erosion (material slides where the ground is steeper than `talus`). The same settings and seed
/// give the same terrain on every run and machine. Every property refuses values outside its range with
/// an error naming it and keeps the previous value.
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainErosion {
    /// Droplets to run, [0, 20000000] (about 0.2 per sample gives visible channels).
    #[export(range = (0.0, 1000000.0, 1000.0, or_greater))]
    #[var(get = get_droplets, set = set_droplets)]
    #[allow(dead_code)]
    droplets: i64,
    /// Another seed runs other droplets.
    #[export]
    #[var(get = get_seed, set = set_seed)]
    #[allow(dead_code)]
    seed: i64,
    /// How much a droplet keeps its direction, [0, 1).
    #[export(range = (0.0, 0.99, 0.01))]
    #[var(get = get_inertia, set = set_inertia)]
    #[allow(dead_code)]
    inertia: f64,
    /// Sediment a droplet carries per unit of slope, speed and water, (0, 1000].
    #[export(range = (0.1, 32.0, 0.1, or_greater))]
    #[var(get = get_capacity, set = set_capacity)]
    #[allow(dead_code)]
    capacity: f64,
    /// Share of excess sediment dropped per step, [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(get = get_deposition, set = set_deposition)]
    #[allow(dead_code)]
    deposition: f64,
    /// Share of the missing capacity taken from the ground per step, [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(get = get_erosion, set = set_erosion)]
    #[allow(dead_code)]
    erosion: f64,
    /// Share of a droplet's water lost per step, [0, 1).
    #[export(range = (0.0, 0.5, 0.001))]
    #[var(get = get_evaporation, set = set_evaporation)]
    #[allow(dead_code)]
    evaporation: f64,
    /// Steps a droplet lives at most, [1, 1024].
    #[export(range = (1.0, 256.0, 1.0, or_greater))]
    #[var(get = get_lifetime, set = set_lifetime)]
    #[allow(dead_code)]
    lifetime: i64,
    /// Thermal passes after the droplets, [0, 1000].
    #[export(range = (0.0, 100.0, 1.0, or_greater))]
    #[var(get = get_thermal_iterations, set = set_thermal_iterations)]
    #[allow(dead_code)]
    thermal_iterations: i64,
    /// Steepest stable slope of loose material, degrees, (0, 90).
    #[export(range = (1.0, 89.0, 0.5))]
    #[var(get = get_talus, set = set_talus)]
    #[allow(dead_code)]
    talus: f64,
    sim: Simulation,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainErosion {
    fn init(base: Base<Resource>) -> Self {
        let sim = Simulation::default();
        Self {
            droplets: sim.droplets as i64,
            seed: sim.seed as i64,
            inertia: f64::from(sim.inertia),
            capacity: f64::from(sim.capacity),
            deposition: f64::from(sim.deposition),
            erosion: f64::from(sim.erosion),
            evaporation: f64::from(sim.evaporation),
            lifetime: sim.lifetime as i64,
            thermal_iterations: sim.thermal_iterations as i64,
            talus: f64::from(sim.talus),
            sim,
            base,
        }
    }
}

#[godot_api]
impl TerrainErosion {
    #[func]
    fn get_droplets(&self) -> i64 {
        let s = &self.sim;
        s.droplets as i64
    }
    #[func]
    fn set_droplets(&mut self, v: i64) {
        let mut n = self.sim;
        n.droplets = usize::try_from(v).unwrap_or(usize::MAX);
        self.apply(n);
    }
    #[func]
    fn get_seed(&self) -> i64 {
        let s = &self.sim;
        s.seed as i64
    }
    #[func]
    fn set_seed(&mut self, v: i64) {
        let mut n = self.sim;
        n.seed = v as u64;
        self.apply(n);
    }
    #[func]
    fn get_inertia(&self) -> f64 {
        let s = &self.sim;
        f64::from(s.inertia)
    }
    #[func]
    fn set_inertia(&mut self, v: f64) {
        let mut n = self.sim;
        n.inertia = v as f32;
        self.apply(n);
    }
    #[func]
    fn get_capacity(&self) -> f64 {
        let s = &self.sim;
        f64::from(s.capacity)
    }
    #[func]
    fn set_capacity(&mut self, v: f64) {
        let mut n = self.sim;
        n.capacity = v as f32;
        self.apply(n);
    }
    #[func]
    fn get_deposition(&self) -> f64 {
        let s = &self.sim;
        f64::from(s.deposition)
    }
    #[func]
    fn set_deposition(&mut self, v: f64) {
        let mut n = self.sim;
        n.deposition = v as f32;
        self.apply(n);
    }
    #[func]
    fn get_erosion(&self) -> f64 {
        let s = &self.sim;
        f64::from(s.erosion)
    }
    #[func]
    fn set_erosion(&mut self, v: f64) {
        let mut n = self.sim;
        n.erosion = v as f32;
        self.apply(n);
    }
    #[func]
    fn get_evaporation(&self) -> f64 {
        let s = &self.sim;
        f64::from(s.evaporation)
    }
    #[func]
    fn set_evaporation(&mut self, v: f64) {
        let mut n = self.sim;
        n.evaporation = v as f32;
        self.apply(n);
    }
    #[func]
    fn get_lifetime(&self) -> i64 {
        let s = &self.sim;
        s.lifetime as i64
    }
    #[func]
    fn set_lifetime(&mut self, v: i64) {
        let mut n = self.sim;
        n.lifetime = usize::try_from(v).unwrap_or(0);
        self.apply(n);
    }
    #[func]
    fn get_thermal_iterations(&self) -> i64 {
        let s = &self.sim;
        s.thermal_iterations as i64
    }
    #[func]
    fn set_thermal_iterations(&mut self, v: i64) {
        let mut n = self.sim;
        n.thermal_iterations = usize::try_from(v).unwrap_or(usize::MAX);
        self.apply(n);
    }
    #[func]
    fn get_talus(&self) -> f64 {
        let s = &self.sim;
        f64::from(s.talus)
    }
    #[func]
    fn set_talus(&mut self, v: f64) {
        let mut n = self.sim;
        n.talus = v as f32;
        self.apply(n);
    }
}

impl TerrainErosion {
    pub fn simulation(&self) -> Simulation {
        self.sim
    }

    fn apply(&mut self, s: Simulation) {
        match s.check() {
            Ok(()) => {
                self.sim = s;
                self.base_mut().emit_changed();
            }
            Err(e) => godot_error!("TerrainErosion.{e}; keeping the previous value"),
        }
    }
}
