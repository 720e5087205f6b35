//! `TerrainCollision`: a terrain node's collision settings as one object (mode, radius, layers, mask,
//! physics material, subdivision, tolerance, lifting bodies), held by both terrain nodes as their
//! `collision` property. The settings' rules live here once; the tiles in the physics engine are the
//! node's (`collision_tiles.rs`), which follows this object's `changed`.

use crate::physics::collision_tiles::{
    CollisionSettings, MAX_TOLERANCE, MODE_DISABLED, MODE_DYNAMIC, MODE_FULL,
};
use godot::classes::{IResource, PhysicsMaterial, Resource};
use godot::prelude::*;
use terrain_core::collision::{check_radius, check_subdivision};

/// A terrain's collision: which tiles exist (`mode`, `radius` around the followed target), how finely they
/// follow the drawn surface (`subdivision`, `tolerance`), the physics layers and material, and what an edit
/// does to the bodies standing on it. Every terrain node has one (`collision`); a change applies at once.
///
/// ```gdscript
/// $TerrainNode.collision.radius = 128.0
/// $TerrainNode.collision.mode = TerrainCollision.FULL
/// ```
#[derive(GodotClass)]
#[class(tool, base=Resource)]
pub struct TerrainCollision {
    /// DISABLED: no collision. DYNAMIC: the tiles within `radius` of the target, following it. FULL: every
    /// tile, built when the node enters the tree (about 0.1 s for 4096² samples); over terrain_regions or
    /// terrain_generator FULL acts as DYNAMIC (the map is not all in memory).
    #[export(enum = (Disabled = 0, Dynamic = 1, Full = 2))]
    #[var(get = get_mode, set = set_mode)]
    mode: PhantomVar<i64>,
    /// DYNAMIC mode: distance (world units, max norm) around the target that has collision, (0, 100000].
    #[export(range = (1.0, 1024.0, 1.0, or_greater))]
    #[var(get = get_radius, set = set_radius)]
    radius: PhantomVar<f64>,
    /// Physics layers the terrain is in.
    #[export(flags_3d_physics)]
    #[var(get = get_layer, set = set_layer)]
    layer: PhantomVar<u32>,
    /// Physics layers the terrain scans (for a static body, only what other engines' queries report).
    #[export(flags_3d_physics)]
    #[var(get = get_mask, set = set_mask)]
    mask: PhantomVar<u32>,
    /// Friction and bounce of the ground.
    #[export]
    #[var(get = get_physics_material, set = set_physics_material)]
    physics_material: PhantomVar<Option<Gd<PhysicsMaterial>>>,
    /// Collision points per sample spacing: 1 uses the samples (linear between them), 2 and 4 follow the
    /// drawn Bézier surface between them more closely (see the accuracy table in the docs).
    #[export(enum = (One = 1, Two = 2, Four = 4))]
    #[var(get = get_subdivision, set = set_subdivision)]
    subdivision: PhantomVar<i64>,
    /// World units a tile's collision may differ from the full `subdivision`'s, [0, 10]: a tile where a
    /// coarser grid stays within it (flat or gentle ground) gets fewer points, which a physics engine builds
    /// faster (Jolt: about 16 times fewer at one point a sample). 0: every tile at the full subdivision.
    /// Tiles with holes always keep every point; tiles far from the target take 10 times as much.
    #[export(range = (0.0, 0.1, 0.001, or_greater))]
    #[var(get = get_tolerance, set = set_tolerance)]
    tolerance: PhantomVar<f64>,
    /// After an edit, bodies standing on the edited ground are woken (always: the engines do not wake a
    /// sleeping body when static ground changes), and with this on, a body whose bottom a raise put under
    /// the new surface is lifted by the rise there (a mound lifts a crate instead of swallowing it; a body
    /// buried on purpose, more than 0.25 m under the old ground, is left where it is).
    #[export]
    #[var(get = get_lift_bodies, set = set_lift_bodies)]
    lift_bodies: PhantomVar<bool>,
    /// Collision exists around the node's own target (a TerrainNode's `target`, else the camera; a
    /// WanderingTerrain's camera) as well as around its collision targets (`add_collision_target`, the
    /// group `terrain_collision_targets`). Off: only around the collision targets (a camera flying high
    /// over an RTS map needs no ground).
    #[export]
    #[var(get = get_follow_target, set = set_follow_target)]
    follow_target: PhantomVar<bool>,

    settings: CollisionSettings,
    base: Base<Resource>,
}

#[godot_api]
impl IResource for TerrainCollision {
    fn init(base: Base<Resource>) -> Self {
        Self {
            mode: PhantomVar::default(),
            radius: PhantomVar::default(),
            layer: PhantomVar::default(),
            mask: PhantomVar::default(),
            physics_material: PhantomVar::default(),
            subdivision: PhantomVar::default(),
            tolerance: PhantomVar::default(),
            lift_bodies: PhantomVar::default(),
            follow_target: PhantomVar::default(),
            settings: CollisionSettings::default(),
            base,
        }
    }
}

#[godot_api]
impl TerrainCollision {
    /// `mode`: no collision.
    #[constant]
    const DISABLED: i64 = MODE_DISABLED;
    /// `mode`: tiles around the followed target (a TerrainNode's `target`, a WanderingTerrain's camera).
    #[constant]
    const DYNAMIC: i64 = MODE_DYNAMIC;
    /// `mode`: every tile.
    #[constant]
    const FULL: i64 = MODE_FULL;

    #[func]
    fn get_mode(&self) -> i64 {
        self.settings.mode
    }
    #[func]
    fn set_mode(&mut self, v: i64) {
        self.changed_if(|s| s.store_mode("TerrainCollision.mode", v));
    }
    #[func]
    fn get_radius(&self) -> f64 {
        self.settings.radius
    }
    #[func]
    fn set_radius(&mut self, v: f64) {
        self.changed_if(|s| s.store_radius("TerrainCollision.radius", v));
    }
    #[func]
    fn get_layer(&self) -> u32 {
        self.settings.layer
    }
    #[func]
    fn set_layer(&mut self, v: u32) {
        self.changed_if(|s| s.store(|c| c.layer = v));
    }
    #[func]
    fn get_mask(&self) -> u32 {
        self.settings.mask
    }
    #[func]
    fn set_mask(&mut self, v: u32) {
        self.changed_if(|s| s.store(|c| c.mask = v));
    }
    #[func]
    fn get_physics_material(&self) -> Option<Gd<PhysicsMaterial>> {
        self.settings.material.clone()
    }
    #[func]
    fn set_physics_material(&mut self, v: Option<Gd<PhysicsMaterial>>) {
        self.changed_if(|s| s.store(|c| c.material = v));
    }
    #[func]
    fn get_subdivision(&self) -> i64 {
        i64::from(self.settings.subdivision)
    }
    #[func]
    fn set_subdivision(&mut self, v: i64) {
        self.changed_if(|s| s.store_subdivision("TerrainCollision.subdivision", v));
    }
    #[func]
    fn get_tolerance(&self) -> f64 {
        self.settings.tolerance
    }
    #[func]
    fn set_tolerance(&mut self, v: f64) {
        self.changed_if(|s| s.store_tolerance("TerrainCollision.tolerance", v));
    }
    #[func]
    fn get_lift_bodies(&self) -> bool {
        self.settings.lift_bodies
    }
    #[func]
    fn set_lift_bodies(&mut self, v: bool) {
        self.changed_if(|s| s.store(|c| c.lift_bodies = v));
    }
    #[func]
    fn get_follow_target(&self) -> bool {
        self.settings.follow_target
    }
    #[func]
    fn set_follow_target(&mut self, v: bool) {
        self.changed_if(|s| s.store(|c| c.follow_target = v));
    }
}

impl TerrainCollision {
    /// The settings as they are now.
    pub(crate) fn settings(&self) -> &CollisionSettings {
        &self.settings
    }

    /// Runs a store; `changed` is emitted when it changed anything (the nodes holding this object apply it).
    fn changed_if(&mut self, f: impl FnOnce(&mut Self) -> bool) {
        if f(self) {
            self.base_mut().emit_changed();
        }
    }

    /// Stores what `f` sets (values that need no check); whether anything changed.
    pub(crate) fn store(&mut self, f: impl FnOnce(&mut CollisionSettings)) -> bool {
        let before = self.settings.clone();
        f(&mut self.settings);
        self.settings != before
    }

    // The checked stores: `what` names the property in the message (the node's old names forward here).
    // On bad input the old value stays and false is returned.

    pub(crate) fn store_mode(&mut self, what: &str, v: i64) -> bool {
        if !(MODE_DISABLED..=MODE_FULL).contains(&v) {
            godot_error!(
                "{what} must be 0 (DISABLED), 1 (DYNAMIC) or 2 (FULL), got {v}; keeping {}",
                self.settings.mode
            );
            return false;
        }
        self.store(|c| c.mode = v)
    }

    pub(crate) fn store_radius(&mut self, what: &str, v: f64) -> bool {
        match check_radius(v) {
            Ok(r) => self.store(|c| c.radius = r),
            Err(e) => refuse(what, &e, self.settings.radius),
        }
    }

    pub(crate) fn store_subdivision(&mut self, what: &str, v: i64) -> bool {
        match check_subdivision(v) {
            Ok(s) => self.store(|c| c.subdivision = s),
            Err(e) => refuse(what, &e, self.settings.subdivision),
        }
    }

    pub(crate) fn store_tolerance(&mut self, what: &str, v: f64) -> bool {
        if !(v.is_finite() && (0.0..=MAX_TOLERANCE).contains(&v)) {
            godot_error!(
                "{what} must be in [0, {MAX_TOLERANCE}] (world units), got {v}; keeping {}",
                self.settings.tolerance
            );
            return false;
        }
        self.store(|c| c.tolerance = v)
    }
}

/// A core check's refusal under the property's own name (`what`): the core names the old node property,
/// its rule follows the first word. Returns false (nothing stored).
fn refuse(what: &str, e: &dyn std::fmt::Display, kept: impl std::fmt::Display) -> bool {
    let e = e.to_string();
    let rule = e.split_once(' ').map_or(e.as_str(), |(_, rest)| rest);
    godot_error!("{what} {rule}; keeping {kept}");
    false
}
