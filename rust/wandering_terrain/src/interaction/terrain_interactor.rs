//! `TerrainInteractor`: a node that presses the ground it stands on (`terrain_core::interaction_field`).

use std::cell::RefCell;

use godot::prelude::*;
use terrain_core::interaction_field::{Stamp, StampShape};

/// An interactor in the tree as the terrains read it every frame: its node (position, visibility) and a
/// copy of its settings (no bind a frame).
pub(crate) struct Entry {
    pub node: Gd<Node3D>,
    pub params: Params,
    /// The process frame it was last seen in, where, and where the frame before (for the sweep).
    track: std::cell::Cell<(u64, Vector3, Option<Vector3>)>,
}

impl Entry {
    /// Where it was the frame before `frame` (seen at `at` in `frame`), when it moved there in one step
    /// (not a teleport): every terrain reading it in `frame` gets the same answer.
    pub(crate) fn previous(&self, frame: u64, at: Vector3) -> Option<Vector3> {
        let (seen, pos, before) = self.track.get();
        let before = if seen == frame {
            before
        } else {
            let b = (seen + 1 == frame).then_some(pos);
            self.track.set((frame, at, b));
            b
        };
        let reach = 16.0 * self.params.radius + 4.0;
        before.filter(|b| (b.distance_to(at) as f64) <= reach)
    }
}

/// A `TerrainInteractor`'s settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Params {
    radius: f64,
    strength: f64,
    falloff: f64,
    square: bool,
    reach: f64,
}

thread_local! {
    /// The interactors in the tree (main thread only): the terrains read them every frame without a
    /// group lookup.
    static INTERACTORS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

thread_local! {
    /// The terrain nodes that keep a field (instance ids): a new interactor wakes them (a still terrain
    /// node turns its process pass off).
    static FIELDS: RefCell<Vec<InstanceId>> = const { RefCell::new(Vec::new()) };
}

/// A terrain node keeps a field (`add`) or no longer does.
pub(crate) fn register_field(node: InstanceId, add: bool) {
    FIELDS.with(|l| {
        let mut l = l.borrow_mut();
        l.retain(|i| *i != node);
        if add {
            l.push(node);
        }
    });
}

/// Turns the process pass of every terrain node with a field back on.
fn wake_fields() {
    let ids = FIELDS.with(|l| l.borrow().clone());
    for id in ids {
        if let Ok(mut n) = Gd::<Node>::try_from_instance_id(id) {
            n.set_process(true);
        }
    }
}

/// Calls `f` with every interactor in the tree.
pub(crate) fn with_interactors<R>(f: impl FnOnce(&[Entry]) -> R) -> R {
    INTERACTORS.with(|l| f(&l.borrow()))
}

/// Whether any interactor is in the tree.
pub(crate) fn any_interactor() -> bool {
    INTERACTORS.with(|l| !l.borrow().is_empty())
}

/// Presses the ground where it stands, every frame, into the interaction field of the terrain nodes in
/// the scene: grass bends away, deformable layers (snow, mud) sink and darken, and `get_trample` on the
/// terrain answers how trampled a point is; the press recovers over the terrain's
/// `interaction_recovery_time`. Make it a child of a player, an NPC or a wheel. Hidden, or higher than
/// `reach` above the ground, it presses nothing.
///
/// Every property refuses values outside its range with an error naming it and keeps the previous value.
#[derive(GodotClass)]
#[class(tool, init, base=Node3D)]
pub struct TerrainInteractor {
    /// Radius of the press (world units), [0.01, 100].
    #[export(range = (0.01, 100.0, 0.01, or_greater))]
    #[var(set = set_radius)]
    #[init(val = 0.5)]
    radius: f64,
    /// How hard it presses: the trample it leaves at its core, [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_strength)]
    #[init(val = 1.0)]
    strength: f64,
    /// The outer share of the radius over which the press fades to nothing, [0, 1] (0: a hard edge).
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_falloff)]
    #[init(val = 0.5)]
    falloff: f64,
    /// Footprint: `SHAPE_ROUND` (a disc) or `SHAPE_SQUARE` (a square along the terrain's axes, side twice
    /// the radius: a crate, a wheel's contact).
    #[export(enum = (Round = 0, Square = 1))]
    #[var(set = set_shape)]
    shape: i64,
    /// Presses only while at most this far above the ground (world units), [0, 1000]: a jump or a flying
    /// bird leaves no mark.
    #[export(range = (0.0, 1000.0, 0.01))]
    #[var(set = set_reach)]
    #[init(val = 1.0)]
    reach: f64,
    base: Base<Node3D>,
}

#[godot_api]
impl INode3D for TerrainInteractor {
    fn on_notification(&mut self, what: godot::classes::notify::Node3DNotification) {
        use godot::classes::notify::Node3DNotification as N;
        match what {
            N::ENTER_TREE => {
                let node = self.to_gd().upcast::<Node3D>();
                let params = self.params();
                INTERACTORS.with(|l| {
                    let mut l = l.borrow_mut();
                    l.retain(|e| e.node != node);
                    l.push(Entry {
                        node,
                        params,
                        track: std::cell::Cell::new((u64::MAX - 1, Vector3::ZERO, None)),
                    });
                });
                wake_fields();
            }
            N::EXIT_TREE => {
                let node = self.to_gd().upcast::<Node3D>();
                INTERACTORS.with(|l| l.borrow_mut().retain(|e| e.node != node));
            }
            _ => {}
        }
    }
}

#[godot_api]
impl TerrainInteractor {
    /// `shape`: a disc.
    #[constant]
    pub const SHAPE_ROUND: i64 = 0;
    /// `shape`: a square along the terrain's axes.
    #[constant]
    pub const SHAPE_SQUARE: i64 = 1;

    #[func]
    fn set_radius(&mut self, v: f64) {
        if !(0.01..=1.0e4).contains(&v) {
            godot_error!(
                "TerrainInteractor.radius must be in [0.01, 10000] (world units), got {v}; keeping {}",
                self.radius
            );
            return;
        }
        self.radius = v;
        self.publish();
    }
    #[func]
    fn set_strength(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainInteractor.strength must be in [0, 1], got {v}; keeping {}",
                self.strength
            );
            return;
        }
        self.strength = v;
        self.publish();
    }
    #[func]
    fn set_falloff(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainInteractor.falloff must be in [0, 1], got {v}; keeping {}",
                self.falloff
            );
            return;
        }
        self.falloff = v;
        self.publish();
    }
    #[func]
    fn set_shape(&mut self, v: i64) {
        if !(0..=1).contains(&v) {
            godot_error!(
                "TerrainInteractor.shape must be SHAPE_ROUND (0) or SHAPE_SQUARE (1), got {v}; keeping {}",
                self.shape
            );
            return;
        }
        self.shape = v;
        self.publish();
    }
    #[func]
    fn set_reach(&mut self, v: f64) {
        if !(0.0..=1000.0).contains(&v) {
            godot_error!(
                "TerrainInteractor.reach must be in [0, 1000] (world units), got {v}; keeping {}",
                self.reach
            );
            return;
        }
        self.reach = v;
        self.publish();
    }
}

impl TerrainInteractor {
    fn params(&self) -> Params {
        Params {
            radius: self.radius,
            strength: self.strength,
            falloff: self.falloff,
            square: self.shape == Self::SHAPE_SQUARE,
            reach: self.reach,
        }
    }

    /// Gives the registry this interactor's new settings (when it is in the tree).
    fn publish(&self) {
        if !self.base().is_inside_tree() {
            return;
        }
        let node = self.to_gd().upcast::<Node3D>();
        let params = self.params();
        INTERACTORS.with(|l| {
            if let Some(e) = l.borrow_mut().iter_mut().find(|e| e.node == node) {
                e.params = params;
            }
        });
    }
}

impl Params {
    /// The press at world point `at` in a terrain's units, swept from terrain point `from` (`to_terrain`:
    /// `at` as a terrain point, `unit`:
    /// world units per terrain unit on X/Z), given the world height of the ground under it (NaN: unknown,
    /// no press).
    pub(crate) fn stamp(
        &self,
        at: Vector3,
        ground: f64,
        from: [f64; 2],
        to_terrain: [f64; 2],
        unit: f64,
    ) -> Option<Stamp> {
        // A NaN height (no ground) is not within reach.
        let within = at.y as f64 - ground <= self.reach;
        if !within || self.strength <= 0.0 {
            return None;
        }
        Some(Stamp {
            from,
            centre: to_terrain,
            radius: self.radius / unit,
            strength: self.strength as f32,
            falloff: self.falloff as f32,
            shape: if self.square {
                StampShape::Square
            } else {
                StampShape::Round
            },
        })
    }
}
