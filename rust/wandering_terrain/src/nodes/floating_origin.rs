//! `FloatingOrigin`: the recipe of a floating origin as a node. It watches a target (the camera by
//! default) and, when it goes farther than `distance` from the origin, shifts the terrain's origin there
//! and moves the other nodes of the world back by the same amount, in the same frame.

use crate::nodes::terrain_node::TerrainNode;
use godot::classes::{INode, Node, Node3D};
use godot::prelude::*;

/// Keeps a big world near the origin, where 32-bit positions are exact: when `target` (empty: the current
/// camera) is farther than `distance` from the origin on X/Z, the `terrain`'s origin is shifted to it
/// (`TerrainNode.shift_origin`, snapped to the terrain's grid) and every other 3D child of `world` is moved
/// back by the shift — the camera, the player, whatever the game placed in world coordinates. The terrain
/// moves what stands on it (instances, detail, water, collision) itself. `origin_shifted` tells the game
/// (to move what is elsewhere in the tree: saved positions, particles, other worlds).
#[derive(GodotClass)]
#[class(base=Node)]
pub struct FloatingOrigin {
    /// The TerrainNode whose origin moves.
    #[export]
    terrain: NodePath,
    /// The node whose distance from the origin is watched; empty: the current camera.
    #[export]
    target: NodePath,
    /// The node whose 3D children are moved back by each shift (the terrain excepted); empty: the
    /// terrain's parent.
    #[export]
    world: NodePath,
    /// Distance from the origin (world units, X/Z) past which the origin is shifted, [1, 1000000]. 1 km
    /// keeps positions to a tenth of a millimetre.
    #[export(range = (1.0, 100000.0, 1.0, or_greater))]
    #[var(set = set_distance)]
    distance: f64,
    /// Shifts so far.
    shifts: i64,
    base: Base<Node>,
}

#[godot_api]
impl INode for FloatingOrigin {
    fn init(base: Base<Node>) -> Self {
        Self {
            terrain: NodePath::default(),
            target: NodePath::default(),
            world: NodePath::default(),
            distance: 1000.0,
            shifts: 0,
            base,
        }
    }

    fn process(&mut self, _delta: f64) {
        self.check_now();
    }
}

#[godot_api]
impl FloatingOrigin {
    /// Emitted after a shift by `shift` (the world moved by -shift).
    #[signal]
    fn origin_shifted(shift: Vector3);

    #[func]
    fn set_distance(&mut self, v: f64) {
        if !(v.is_finite() && (1.0..=1.0e6).contains(&v)) {
            godot_error!(
                "FloatingOrigin.distance must be in [1, 1000000] world units, got {v}; keeping {}",
                self.distance
            );
            return;
        }
        self.distance = v;
    }

    /// Shifts now if the target is beyond `distance` (each frame does this). Returns the shift applied
    /// (zero when none was needed).
    #[func]
    fn check_now(&mut self) -> Vector3 {
        let Some(mut terrain) = self.terrain_node() else {
            return Vector3::ZERO;
        };
        let Some(at) = self.target_position() else {
            return Vector3::ZERO;
        };
        if !at.is_finite() || Vector2::new(at.x, at.z).length() as f64 <= self.distance {
            return Vector3::ZERO;
        }
        let shift = terrain
            .bind_mut()
            .shift_origin(Vector3::new(at.x, 0.0, at.z));
        if shift == Vector3::ZERO {
            return shift;
        }
        self.move_world(&terrain, shift);
        self.shifts += 1;
        self.signals().origin_shifted().emit(shift);
        shift
    }

    /// Shifts done so far.
    #[func]
    fn get_shift_count(&self) -> i64 {
        self.shifts
    }
}

impl FloatingOrigin {
    fn terrain_node(&self) -> Option<Gd<TerrainNode>> {
        let n: Gd<Node> = self.base().get_node_or_null(&self.terrain)?;
        match n.try_cast::<TerrainNode>() {
            Ok(t) => Some(t),
            Err(n) => {
                godot_error!(
                    "FloatingOrigin.terrain must name a TerrainNode, got a {}",
                    n.get_class()
                );
                None
            }
        }
    }

    fn target_position(&self) -> Option<Vector3> {
        if self.target.is_empty() {
            let cam = self.base().get_viewport().and_then(|vp| vp.get_camera_3d());
            return cam.map(|c| c.get_global_position());
        }
        let n: Gd<Node> = self.base().get_node_or_null(&self.target)?;
        n.try_cast::<Node3D>().ok().map(|n| n.get_global_position())
    }

    /// Moves the world's 3D children (not the terrain, which moved its own) back by `shift`.
    fn move_world(&self, terrain: &Gd<TerrainNode>, shift: Vector3) {
        let world = if self.world.is_empty() {
            terrain.get_parent()
        } else {
            self.base().get_node_or_null(&self.world)
        };
        let Some(world) = world else {
            return;
        };
        let skip = terrain.instance_id();
        for child in world.get_children().iter_shared() {
            if child.instance_id() == skip {
                continue;
            }
            if let Ok(mut n) = child.try_cast::<Node3D>() {
                let p = n.get_position();
                n.set_position(p - shift);
            }
        }
    }
}
