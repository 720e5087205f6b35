//! What a layer node (`TerrainPath`, `TerrainStamp`) keeps of the terrain it lies on: the resource its
//! layer lives in (found through the terrain contract on the nearest terrain node above it), terrain space,
//! and the calls that set, poll and remove its layer there.

use crate::data::edit_target::EditTarget;
use crate::sample_rect::from_rect2i;
use crate::surface::host_above;
use godot::classes::Node3D;
use godot::prelude::*;
use std::collections::BTreeSet;
use std::sync::Arc;
use terrain_core::layers::{Layer, TileKey};
use terrain_core::sample_rect::SampleRect;

/// The terrain a layer node lies on, as of its last `attach`.
pub(crate) struct Attached {
    pub target: EditTarget,
    /// Terrain space ← world (scales and directions; positions go through `frame`).
    pub to_terrain: Transform3D,
    /// Terrain space → Godot world, exact (the terrain's origin shift included).
    pub frame: terrain_core::clipmap_data::Frame,
    pub spacing: f64,
    pub bounds: SampleRect,
}

#[derive(Default)]
pub(crate) struct LayerLink {
    pub attached: Option<Attached>,
    /// The layer's id in the stack (the node's instance id).
    id: u64,
    /// What keeps the layer from applying, once reported.
    pub problem: Option<String>,
}

impl LayerLink {
    /// Finds the terrain node above `node` and the resource its edits go to. A layer that lived in
    /// another resource leaves it. Err: what is missing, in the user's words.
    pub fn attach(
        &mut self,
        node: &Gd<Node3D>,
        class: &'static str,
    ) -> Result<&Attached, AttachError> {
        self.id = node.instance_id().to_i64() as u64;
        let host = host_above(&node.clone().upcast());
        let Some(host) = host else {
            self.detach();
            return Err(AttachError::NoTerrain { class });
        };
        let (who, surface) = {
            let h = host.dyn_bind();
            (h.class_name(), h.terrain_surface())
        };
        let Some(target) = surface.edits else {
            self.detach();
            return Err(AttachError::NothingToShape { who, class });
        };
        if self
            .attached
            .as_ref()
            .is_some_and(|a| a.target.id() != target.id())
        {
            self.detach();
        }
        let (spacing, bounds) = (target.spacing(), from_rect2i(target.bounds()));
        Ok(self.attached.insert(Attached {
            target,
            to_terrain: surface.to_world.affine_inverse(),
            frame: surface.frame,
            spacing,
            bounds,
        }))
    }

    /// Records what keeps the layer from applying (None: nothing); a new problem is reported once, as
    /// an error. True when it changed (the node's configuration warnings need updating).
    pub fn report(&mut self, class: &str, problem: Option<String>) -> bool {
        if problem == self.problem {
            return false;
        }
        if let Some(p) = &problem {
            godot_error!("{class}: {p}");
        }
        self.problem = problem;
        true
    }

    /// Whether the layer is in a terrain's resource with nothing keeping it from applying.
    pub fn is_shaping(&self) -> bool {
        self.attached.is_some() && self.problem.is_none()
    }

    /// The configuration warnings: the problem, if any.
    pub fn warnings(&self) -> PackedStringArray {
        self.problem
            .iter()
            .map(|p| GString::from(p.as_str()))
            .collect()
    }

    /// Puts the layer in its resource (above those of a lower `order`); `changed` names the tiles whose
    /// result differs from the layer it replaces (None: all of both). Composition starts on a worker.
    pub fn set(&mut self, order: i64, layer: Arc<dyn Layer>, changed: Option<BTreeSet<TileKey>>) {
        let id = self.id;
        if let Some(a) = self.attached.as_mut() {
            a.target.with_layers(|l, g| {
                l.stack.set(id, order, layer, changed, &*g);
                l.poll(g);
            });
        }
    }

    /// Takes the layer out of its resource: its ground is composed again at once.
    pub fn detach(&mut self) {
        let id = self.id;
        if let Some(mut a) = self.attached.take() {
            a.target.with_layers(|l, g| {
                l.stack.remove(id);
                l.finish(g);
            });
        }
    }

    /// Lands finished compositions and starts the next; true while work remains.
    pub fn poll(&mut self) -> bool {
        self.attached
            .as_mut()
            .and_then(|a| a.target.with_layers(|l, g| l.poll(g)))
            .unwrap_or(false)
    }

    /// Composes everything waiting now.
    pub fn finish(&mut self) {
        if let Some(a) = self.attached.as_mut() {
            a.target.with_layers(|l, g| l.finish(g));
        }
    }

    /// Height of the sculpted ground (what lies under the layers) at terrain position (x, z): the four
    /// samples around it blended bilinearly. None off the map.
    pub fn sculpted_height(&mut self, x: f64, z: f64) -> Option<f64> {
        let a = self.attached.as_mut()?;
        let (sx, sz) = (x / a.spacing - 0.5, z / a.spacing - 0.5);
        let b = a.bounds;
        let fx = sx.clamp(b.x as f64, (b.x + b.w as i64 - 1) as f64);
        let fz = sz.clamp(b.z as f64, (b.z + b.d as i64 - 1) as f64);
        if !(fx - sx).abs().max((fz - sz).abs()).le(&1.0) {
            return None;
        }
        let (ix, iz) = (fx.floor() as i64, fz.floor() as i64);
        let (tx, tz) = (fx - ix as f64, fz - iz as f64);
        let hs = a.target.with_layers(|l, g| {
            let mut v = [0.0f64; 4];
            for (k, (dx, dz)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
                let (x, z) = (
                    (ix + dx).min(b.x + b.w as i64 - 1),
                    (iz + dz).min(b.z + b.d as i64 - 1),
                );
                v[k] = f64::from(
                    l.stack
                        .sculpted_height(x, z)
                        .unwrap_or_else(|| g.read(SampleRect { x, z, w: 1, d: 1 }).0[0]),
                );
            }
            v
        })?;
        let top = hs[0] + (hs[1] - hs[0]) * tx;
        let bottom = hs[2] + (hs[3] - hs[2]) * tx;
        Some(top + (bottom - top) * tz)
    }

    /// Whether composition waits or runs in the resource.
    pub fn busy(&mut self) -> bool {
        self.attached
            .as_mut()
            .and_then(|a| a.target.with_layers(|l, _| l.busy()))
            .unwrap_or(false)
    }

    /// Microseconds the resource's last composition took on its worker and writing it on the main thread.
    pub fn last_usec(&mut self) -> [u64; 2] {
        self.attached
            .as_mut()
            .and_then(|a| a.target.with_layers(|l, _| l.last_usec))
            .unwrap_or([0, 0])
    }

    /// Bytes of sculpted ground kept under `tiles`.
    pub fn kept_bytes_of(&mut self, tiles: &BTreeSet<TileKey>) -> usize {
        self.attached
            .as_mut()
            .and_then(|a| a.target.with_layers(|l, _| l.stack.kept_bytes_of(tiles)))
            .unwrap_or(0)
    }
}

/// Why a layer node finds nothing to shape (reported in the user's words, once).
#[derive(Debug)]
pub(crate) enum AttachError {
    NoTerrain {
        class: &'static str,
    },
    NothingToShape {
        who: &'static str,
        class: &'static str,
    },
}

impl std::fmt::Display for AttachError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Self::NoTerrain { class } => write!(
                f,
                "{class} must be a child (or grandchild) of a TerrainNode or a WanderingTerrain"
            ),
            Self::NothingToShape { who, class } => write!(
                f,
                "the {who} has no terrain_data or terrain_regions for the {class} to shape (a generated world gets layers through a TerrainRegions map)"
            ),
        }
    }
}
