//! What a terrain node's collision follows: its own target (a TerrainNode's `target` or camera, a
//! WanderingTerrain's camera) and any number of other nodes — players, NPCs, vehicles — added with
//! `add_collision_target` or put in the group `terrain_collision_targets`, each with its radius. The tile
//! policy (`terrain_core::collision_tiles`) makes the union of their areas, each tile once.

use godot::classes::{Node3D, SceneTree};
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::collision_tiles::Target;

/// Nodes in this group are collision targets of every terrain node in their tree (radius: the node's
/// `terrain_collision_radius` metadata when set, else the terrain's `collision.radius`).
pub const GROUP: &str = "terrain_collision_targets";
/// The metadata a grouped node may carry: its own radius (world units).
pub const RADIUS_META: &str = "terrain_collision_radius";
/// Largest radius accepted (as `TerrainCollision.radius`).
pub const MAX_RADIUS: f64 = 100_000.0;

#[derive(Default)]
pub struct CollisionTargets {
    /// Added nodes and their radius (world units; 0: the collision's radius).
    added: Vec<(InstanceId, f64)>,
    /// The targets of this update, terrain X/Z (kept buffer).
    pub buf: Vec<Target>,
    /// The group's and the radius metadata's names, made on first use: a terrain node is also made on
    /// the editor's documentation thread, where no Godot value may be created.
    names: Option<(StringName, StringName)>,
    /// The last gather found targets besides the node's own (or a group of them).
    others: bool,
    /// A gather ran (`buf` is this node's targets).
    gathered: bool,
    /// Terrain X/Z of the targets besides the node's own, as the terrain contract hands them out (shared,
    /// not copied: what stands on the terrain reads them every frame).
    others_at: Arc<Vec<[f64; 2]>>,
}

/// What the terrain's collision follows, for what stands on it (`TerrainSurface`): the node's own target
/// (where it is now) and the others as last gathered.
#[derive(Clone, Default)]
pub struct Centres {
    pub primary: Option<[f64; 2]>,
    pub others: Arc<Vec<[f64; 2]>>,
}

impl CollisionTargets {
    /// Adds `node` (or sets its radius when it is a target already). Err: why `radius` is refused.
    pub fn add(&mut self, node: &Gd<Node3D>, radius: f64) -> Result<(), String> {
        if !(0.0..=MAX_RADIUS).contains(&radius) {
            return Err(format!(
                "radius must be in [0, {MAX_RADIUS}] world units (0: the collision's radius), got {radius}"
            ));
        }
        let id = node.instance_id();
        match self.added.iter_mut().find(|(n, _)| *n == id) {
            Some(e) => e.1 = radius,
            None => self.added.push((id, radius)),
        }
        Ok(())
    }

    /// Removes `node`; whether it was a target.
    pub fn remove(&mut self, node: &Gd<Node3D>) -> bool {
        let id = node.instance_id();
        let before = self.added.len();
        self.added.retain(|(n, _)| *n != id);
        self.added.len() != before
    }

    /// The added targets still alive (freed ones leave the list).
    pub fn nodes(&mut self) -> Array<Gd<Node3D>> {
        self.added
            .retain(|(id, _)| Gd::<Node3D>::try_from_instance_id(*id).is_ok());
        self.added
            .iter()
            .filter_map(|(id, _)| Gd::<Node3D>::try_from_instance_id(*id).ok())
            .collect()
    }

    pub fn clear(&mut self) {
        self.added.clear();
    }

    /// Terrain X/Z of `primary` (the node's own target where it is now) and of the other targets as the
    /// last gather saw them (None before the first gather).
    pub fn centres(&self, primary: Option<[f64; 2]>) -> Option<Centres> {
        self.gathered.then(|| Centres {
            primary,
            others: self.others_at.clone(),
        })
    }

    /// Whether there are targets besides the node's own (they move without telling the node).
    pub fn has_others(&self) -> bool {
        self.others || !self.added.is_empty()
    }

    /// This update's targets into `buf`: `primary` (the node's own target, terrain X/Z) and every added
    /// or grouped node inside `tree`, placed in terrain space by `to_terrain`. A freed node leaves the
    /// list; a node outside the tree is skipped.
    pub fn gather(
        &mut self,
        primary: Option<[f64; 2]>,
        tree: Option<&Gd<SceneTree>>,
        to_terrain: impl Fn(Vector3) -> [f64; 2],
    ) {
        self.buf.clear();
        self.others = false;
        self.gathered = true;
        if let Some(p) = primary {
            self.buf.push(Target::at(p));
        }
        let buf = &mut self.buf;
        self.added.retain(|&(id, radius)| {
            let Ok(n) = Gd::<Node3D>::try_from_instance_id(id) else {
                return false;
            };
            if n.is_inside_tree() {
                buf.push(target(id, to_terrain(n.get_global_position()), radius));
            }
            true
        });
        self.share_others();
        let Some(tree) = tree else {
            return;
        };
        let (group, meta) = self
            .names
            .get_or_insert_with(|| (StringName::from(GROUP), StringName::from(RADIUS_META)));
        // A group that does not exist costs no array.
        if !tree.has_group(&*group) {
            return;
        }
        self.others = true;
        for n in tree.get_nodes_in_group(&*group).iter_shared() {
            let Ok(n) = n.try_cast::<Node3D>() else {
                continue;
            };
            let id = n.instance_id();
            if self.added.iter().any(|(a, _)| *a == id) {
                continue;
            }
            let r = if n.has_meta(&*meta) {
                n.get_meta(&*meta).try_to_relaxed::<f64>().unwrap_or(0.0)
            } else {
                0.0
            };
            let r = if (0.0..=MAX_RADIUS).contains(&r) {
                r
            } else {
                0.0
            };
            self.buf
                .push(target(id, to_terrain(n.get_global_position()), r));
        }
        self.share_others();
    }

    /// `others_at` from `buf` (in place when nobody holds the last copy; nothing when it is the same).
    fn share_others(&mut self) {
        let others = self.buf.iter().filter(|t| t.id != PRIMARY).map(|t| t.at);
        if !others.clone().eq(self.others_at.iter().copied()) {
            let v = Arc::make_mut(&mut self.others_at);
            v.clear();
            v.extend(others);
        }
    }
}

/// The node's own target's id (`Target::at`).
const PRIMARY: u64 = 0;

fn target(id: InstanceId, at: [f64; 2], radius: f64) -> Target {
    Target {
        id: id.to_i64() as u64,
        at,
        radius,
    }
}

/// Connects `tree`'s `node_added` to a handler that wakes the terrain node `terrain` (through the engine:
/// no borrow of its Rust state, which may be running) when a node of the collision targets' group enters
/// the tree: a sleeping terrain (a still camera) would not see it otherwise.
pub fn wake_on_group_join(
    tree: &Gd<SceneTree>,
    terrain: InstanceId,
) -> godot::signal::ConnectHandle {
    let group = StringName::from(GROUP);
    tree.signals()
        .node_added()
        .connect(move |n: Gd<godot::classes::Node>| {
            if !n.is_in_group(&group) {
                return;
            }
            if let Ok(mut t) = Gd::<godot::classes::Node>::try_from_instance_id(terrain) {
                t.set_process(true);
                t.set_physics_process(true);
            }
        })
}
