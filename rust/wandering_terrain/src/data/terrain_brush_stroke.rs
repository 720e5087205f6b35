//! `TerrainBrushStroke`: one brush stroke on a terrain node, in native code, with its undo data kept next
//! to the edit (chunks in `terrain_core::brush_stroke`; an instance or detail brush's cells in
//! `instances/instance_stroke.rs`). The editor's brush (and a game's) makes one call a dab, whatever the
//! tool; the stroke finds what to edit through the terrain contract (`surface.rs`), so it works alike on a
//! TerrainNode over a TerrainData or a region map and on a WanderingTerrain.

use crate::data::edit_target::EditTarget;
use crate::data::terrain_brush::TerrainBrush;
use crate::instances::instance_stroke::InstanceChunks;
use crate::sample_rect::from_rect2i;
use crate::surface::host_of;
use godot::classes::{Node, RefCounted};
use godot::prelude::*;
use terrain_core::brush_stroke::StrokeChunks;

/// Heights, control values for the hole and paint tools, or the instancer's cells for the instance and
/// detail tools.
enum Chunks {
    Heights(StrokeChunks<f32>),
    Control(StrokeChunks<i32>),
    Instances(InstanceChunks),
}

/// One brush stroke on a `TerrainNode` or `WanderingTerrain`: `begin` it, call `dab` for each dab (world
/// positions; the brush's settings are read at each dab), `finish` it, and hand `undo` / `redo` to an
/// UndoRedo action. Before a dab changes samples, the 32 × 32 chunks it can reach are saved (once per
/// stroke), so undo restores exactly what the stroke changed and the stroke keeps about twice the data of
/// the area it touched (`get_byte_size`). INSTANCE_ADD / INSTANCE_REMOVE and DETAIL_ADD / DETAIL_REMOVE
/// brushes paint the terrain's TerrainInstancer child the same way: the cells a dab can reach (or the
/// detail density) are kept before and after.
///
/// ```gdscript
/// var stroke := TerrainBrushStroke.begin($TerrainNode, brush)
/// stroke.dab(hit_position, delta)   # each frame the button is held
/// if stroke.finish():
///     undo_redo.create_action("Sculpt")
///     undo_redo.add_do_method(stroke.redo)
///     undo_redo.add_undo_method(stroke.undo)
///     undo_redo.commit_action(false)   # already applied
/// ```
#[derive(GodotClass)]
#[class(no_init, base=RefCounted)]
pub struct TerrainBrushStroke {
    /// What terrain tools edit (None for instance and detail tools, which paint the instancer).
    target: Option<EditTarget>,
    /// Terrain space → world (the node's transform and origin shift as the terrain applies them).
    frame: terrain_core::clipmap_data::Frame,
    brush: Gd<TerrainBrush>,
    tool: i64,
    chunks: Chunks,
    finished: bool,
    base: Base<RefCounted>,
}

#[godot_api]
impl TerrainBrushStroke {
    /// Starts a stroke of `brush` (its tool now is the stroke's) on `terrain`: a TerrainNode or
    /// WanderingTerrain with a TerrainData, or a TerrainNode with a TerrainRegions map. Null, with an error
    /// naming what is missing, otherwise. Instance and detail brushes need a TerrainInstancer child (on any
    /// terrain source).
    #[func]
    fn begin(terrain: Option<Gd<Node>>, brush: Option<Gd<TerrainBrush>>) -> Option<Gd<Self>> {
        let Some(brush) = brush else {
            godot_error!("TerrainBrushStroke.begin: brush must be a TerrainBrush, got null");
            return None;
        };
        let Some(host) = terrain.and_then(host_of) else {
            godot_error!(
                "TerrainBrushStroke.begin: terrain must be a TerrainNode or WanderingTerrain"
            );
            return None;
        };
        let who = host.dyn_bind().class_name();
        let surface = host.dyn_bind().terrain_surface();
        let tool = brush.bind().tool;
        let core_tool = brush.bind().core().tool;
        let (target, chunks) = if core_tool.is_instancer_tool() {
            // Instances and detail go on any terrain source, a generated world's included.
            let detail = matches!(core_tool, terrain_core::brush::Tool::Detail { .. });
            let node = host.clone().into_gd();
            let Some(c) = InstanceChunks::begin(&node, detail) else {
                godot_error!("TerrainBrushStroke.begin: instance and detail brushes paint the {who}'s TerrainInstancer: add one (with meshes or detail layers) under it first");
                return None;
            };
            (None, Chunks::Instances(c))
        } else {
            let Some(t) = surface.edits else {
                godot_error!("TerrainBrushStroke.begin: the {who} has no terrain_data or terrain_regions to edit (a generated world is edited through a TerrainRegions map)");
                return None;
            };
            let c = if TerrainBrush::tool_edits_control(tool) {
                Chunks::Control(StrokeChunks::new())
            } else {
                Chunks::Heights(StrokeChunks::new())
            };
            (Some(t), c)
        };
        Some(Gd::from_init_fn(|base| Self {
            target,
            frame: surface.frame,
            brush,
            tool,
            chunks,
            finished: false,
            base,
        }))
    }

    /// One dab at world `position` lasting `seconds` (strength is per second): the chunks it can reach
    /// are saved first. Returns the rectangle of samples it changed (empty when none; an instance or
    /// detail brush: the world X/Z rectangle whose instances changed, rounded out). A finished stroke
    /// refuses more dabs.
    #[func]
    fn dab(&mut self, position: Vector3, seconds: f64) -> Rect2i {
        if self.finished {
            godot_error!("TerrainBrushStroke.dab: the stroke is finished; begin a new one");
            return Rect2i::default();
        }
        let (target, chunks) = match (&mut self.target, &mut self.chunks) {
            (_, Chunks::Instances(c)) => {
                // The instancer takes world X/Z; it returns the world rectangle it changed.
                let r = c.dab(&self.brush, Vector2::new(position.x, position.z), seconds);
                let (lo, hi) = (r.position.floor(), r.end().ceil());
                return Rect2i::new(
                    Vector2i::new(lo.x as i32, lo.y as i32),
                    Vector2i::new((hi.x - lo.x) as i32, (hi.y - lo.y) as i32),
                );
            }
            (Some(t), c) => (t, c),
            (None, _) => return Rect2i::default(),
        };
        // In f64 through the frame and into the dab: terrain X/Z far out stays exact.
        let p = self
            .frame
            .to_terrain([position.x, position.y, position.z].map(f64::from));
        let at = [p[0], p[2]];
        let brush = self.brush.bind().core();
        // The dab's reach, once: the chunks saved for undo (a sample of margin) and the layers' ground.
        let reach = target.dab_reach(at, brush.size());
        let bounds = from_rect2i(target.bounds());
        let rect = reach.map_or_else(Default::default, |r| r.grown(1).intersect(bounds));
        match chunks {
            Chunks::Heights(c) => {
                for (k, r) in c.unsaved(rect, bounds) {
                    c.save(k, r, target.heights(r));
                }
            }
            Chunks::Control(c) => {
                for (k, r) in c.unsaved(rect, bounds) {
                    c.save(k, r, target.control(r));
                }
            }
            Chunks::Instances(_) => {}
        }
        target.apply_brush(&brush, at, seconds, reach)
    }

    /// Ends the stroke: records the state after it and drops the chunks it did not change. Returns
    /// whether it changed anything (an empty stroke needs no undo step).
    #[func]
    fn finish(&mut self) -> bool {
        self.finished = true;
        match (&self.target, &mut self.chunks) {
            (_, Chunks::Instances(c)) => c.finish(),
            (Some(t), Chunks::Heights(c)) => c.finish(|r| t.heights(r)),
            (Some(t), Chunks::Control(c)) => c.finish(|r| t.control(r)),
            (None, _) => false,
        }
    }

    /// Writes back what the stroke's samples held before it.
    #[func]
    fn undo(&mut self) {
        self.write(false);
    }

    /// Writes the stroke's samples as it left them.
    #[func]
    fn redo(&mut self) {
        self.write(true);
    }

    /// Bytes kept for undo and redo.
    #[func]
    fn get_byte_size(&self) -> i64 {
        (match &self.chunks {
            Chunks::Heights(c) => c.byte_size(),
            Chunks::Control(c) => c.byte_size(),
            Chunks::Instances(c) => c.byte_size(),
        }) as i64
    }

    /// The stroke's tool (the brush's when it began).
    #[func]
    fn get_tool(&self) -> i64 {
        self.tool
    }
}

impl TerrainBrushStroke {
    fn write(&mut self, after: bool) {
        if !self.finished {
            godot_error!("TerrainBrushStroke: finish the stroke before undo or redo");
            return;
        }
        match (&mut self.target, &mut self.chunks) {
            (_, Chunks::Instances(c)) => c.write(after),
            (Some(t), Chunks::Heights(c)) => c.states(after).for_each(|(r, v)| t.set_heights(r, v)),
            (Some(t), Chunks::Control(c)) => c.states(after).for_each(|(r, v)| t.set_control(r, v)),
            (None, _) => {}
        }
    }
}
