//! `TerrainEditLog`: every edit of a `TerrainData` or `TerrainRegions` map kept as a compact operation
//! (the rules in `terrain_core::terrain_edit_log`), to send to other machines and replay there with the
//! same result bit for bit. The resources record into it (`edit_log`) and replay with `apply_edit`; the
//! replay goes through the same calls as the edit did (`Logged::apply`).

use crate::sample_rect::to_rect2i;
use godot::prelude::*;
use terrain_core::brush::Brush;
use terrain_core::sample_rect::SampleRect;
use terrain_core::terrain_edit::TerrainEdit;
use terrain_core::terrain_edit_log::{op, Arrival, Edit, EditLog, LogError, Op};

/// The edits of one map as operations (PackedByteArray each, ≤ 48 bytes for a brush dab), in the order
/// they were applied, to send to other machines and replay there with the same result bit for bit.
///
/// Set it as `TerrainData.edit_log` (or `TerrainRegions.edit_log`): every edit of the resource — brush
/// dabs and strokes, `set_heights_region`, `set_control_region`, `set_holes_region`, `set_layer_region`,
/// undo — is recorded and `operation_recorded` is emitted (deferred) with its bytes. On another machine,
/// pass those bytes to the resource's `apply_edit`. Operations carry their sequence number: one that
/// arrives early is held until those before it have arrived, one already applied is ignored. Save the
/// log as a file of its own (`ResourceSaver.save`: its `operations` are stored): a late joiner loads the
/// base map and replays the log (or `get_operations_since`).
/// Not recorded: whole-map replacements (`heights`, imports, generation, erosion) — send the map.
#[derive(GodotClass)]
#[class(tool, base=Resource, init)]
pub struct TerrainEditLog {
    /// The map the operations belong to (0 .. 4294967295): give each map its own, the same on every
    /// machine (a hash of its name, say). `apply_edit` refuses an operation recorded for another map id.
    /// Fixed once the log holds operations (`clear()` first).
    #[export(range = (0.0, 4294967295.0))]
    #[var(get = get_map_id, set = set_map_id)]
    map_id: PhantomVar<i64>,
    /// Every applied operation, in sequence order (stored in the resource).
    #[export(storage)]
    #[var(get = get_operations, set = set_operations)]
    operations: PhantomVar<Array<PackedByteArray>>,
    log: EditLog,
    /// A received operation being applied: the edit it makes joins the log as these bytes.
    incoming: Option<Vec<u8>>,
    /// The log has applied an operation from elsewhere (a replica): what its terrain's layers write is
    /// theirs to compose, never recorded here (the writer's log sends the ground they wrote).
    replica: bool,
    base: Base<Resource>,
}

#[godot_api]
impl TerrainEditLog {
    /// A local edit was recorded: `operation` is what to send to the other machines (emitted after the
    /// edit's call returned, so handlers may read the terrain).
    #[signal]
    fn operation_recorded(operation: PackedByteArray);

    #[func]
    fn get_map_id(&self) -> i64 {
        i64::from(self.log.map())
    }

    #[func]
    fn set_map_id(&mut self, value: i64) {
        let Ok(v) = u32::try_from(value) else {
            godot_error!(
                "TerrainEditLog.map_id must be in 0 .. 4294967295, got {value}; kept {}",
                self.log.map()
            );
            return;
        };
        if v == self.log.map() {
            return;
        }
        if self.log.next() > 0 {
            godot_error!(
                "TerrainEditLog.map_id cannot change while the log holds {} operations of map {} (clear() first); kept",
                self.log.next(),
                self.log.map()
            );
            return;
        }
        self.log = EditLog::new(v);
    }

    #[func]
    fn get_operations(&self) -> Array<PackedByteArray> {
        self.log
            .ops()
            .iter()
            .map(|b| PackedByteArray::from(b.as_slice()))
            .collect()
    }

    /// Replaces the log (a saved one): every operation must be this map's and carry its index as its
    /// sequence number; otherwise an error names the first bad one and the log stays as it was.
    #[func]
    fn set_operations(&mut self, value: Array<PackedByteArray>) {
        let ops = value.iter_shared().map(|b| b.to_vec()).collect();
        if let Err((i, e)) = self.log.load(self.log.map(), ops) {
            godot_error!("TerrainEditLog.operations[{i}]: {e}; the log was kept as it was");
        }
    }

    /// Operations applied so far (the next one's sequence number).
    #[func]
    fn get_operation_count(&self) -> i64 {
        i64::from(self.log.next())
    }

    /// The bytes of operation `index` (0 .. get_operation_count() - 1); empty outside.
    #[func]
    fn get_operation(&self, index: i64) -> PackedByteArray {
        match usize::try_from(index)
            .ok()
            .and_then(|i| self.log.ops().get(i))
        {
            Some(b) => PackedByteArray::from(b.as_slice()),
            None => {
                godot_error!(
                    "TerrainEditLog.get_operation: index must be in 0 .. {}, got {index}",
                    i64::from(self.log.next()) - 1
                );
                PackedByteArray::new()
            }
        }
    }

    /// The operations from sequence number `sequence` on: what a machine that has the map as of
    /// `sequence` operations (a saved copy) still needs.
    #[func]
    fn get_operations_since(&self, sequence: i64) -> Array<PackedByteArray> {
        let from = usize::try_from(sequence.max(0)).unwrap_or(0);
        self.log
            .ops()
            .iter()
            .skip(from)
            .map(|b| PackedByteArray::from(b.as_slice()))
            .collect()
    }

    /// Operations that arrived ahead of their turn and wait for earlier ones.
    #[func]
    fn get_held_count(&self) -> i64 {
        self.log.held() as i64
    }

    /// Forgets every operation and the held ones (the map_id stays): after sending a new base map.
    #[func]
    fn clear(&mut self) {
        self.log.clear();
    }

    /// What an operation holds, for logs and debugging: `kind` ("dab", "heights", "control", "holes",
    /// "paint"), `map_id`, `sequence`, `bytes`, and `region` (Rect2i) or `center` (Vector2, a dab's);
    /// `error` (and nothing else) when the bytes are not an operation.
    #[func]
    fn describe(operation: PackedByteArray) -> VarDictionary {
        let mut d = VarDictionary::new();
        let op = match Op::decode(operation.as_slice()) {
            Ok(op) => op,
            Err(e) => {
                d.set("error", e.to_string());
                return d;
            }
        };
        d.set("map_id", i64::from(op.map));
        d.set("sequence", i64::from(op.sequence));
        d.set("bytes", operation.len() as i64);
        let (kind, rect) = match &op.edit {
            Edit::Dab { center, .. } => {
                d.set("center", Vector2::new(center[0] as f32, center[1] as f32));
                ("dab", None)
            }
            Edit::Heights { rect, .. } => ("heights", Some(rect)),
            Edit::Control { rect, .. } => ("control", Some(rect)),
            Edit::Holes { rect, .. } => ("holes", Some(rect)),
            Edit::Paint { rect, .. } => ("paint", Some(rect)),
        };
        d.set("kind", kind);
        if let Some(r) = rect {
            d.set("region", to_rect2i(*r));
        }
        d
    }

    /// Bytes of a brush dab's operation (no slope, hardness falloff).
    #[constant]
    const DAB_BYTES: i64 = op::DAB_BYTES as i64;
}

impl TerrainEditLog {
    /// An edit was applied to the resource: a received operation joins the log as its bytes; a local
    /// one is recorded as the next operation and announced.
    pub(crate) fn edited(&mut self, edit: impl FnOnce() -> Option<Edit>) {
        if let Some(bytes) = self.incoming.take() {
            self.log.commit(bytes);
            return;
        }
        let Some(edit) = edit() else {
            return;
        };
        // A rectangle beyond what one operation may carry goes as bands of rows (set band by band, the
        // samples end the same).
        for edit in split(edit) {
            let bytes = self.log.prepare(edit).encode();
            self.log.commit(bytes.clone());
            let op = PackedByteArray::from(bytes.as_slice());
            // Deferred: the edit's resource is still borrowed by the call that made it.
            self.run_deferred_gd(move |this| this.signals().operation_recorded().emit(&op));
        }
    }
}

/// A resource whose edits a `TerrainEditLog` records and replays (`TerrainData`, `TerrainRegions`):
/// its own edit calls, which record what they do.
pub(crate) trait Logged {
    const CLASS: &'static str;
    fn edit_log(&self) -> Option<Gd<TerrainEditLog>>;
    /// One dab at terrain X/Z `center` (its reach computed as `apply_brush` does).
    fn dab(&mut self, b: &Brush, center: [f64; 2], delta: f64);
    fn heights(&mut self, r: Rect2i, v: PackedFloat32Array);
    fn control(&mut self, r: Rect2i, v: PackedInt32Array);
    fn holes(&mut self, r: Rect2i, v: PackedByteArray);
    fn paint(&mut self, r: Rect2i, layer: i64, w: PackedFloat32Array);

    /// Applies `edit` through those calls (they record it: it joins the log on success).
    fn apply(&mut self, edit: &Edit) {
        match edit {
            Edit::Dab {
                brush,
                center,
                delta,
            } => self.dab(brush, *center, f64::from(*delta)),
            Edit::Heights { rect, values } => {
                self.heights(to_rect2i(*rect), values.as_slice().into())
            }
            Edit::Control { rect, values } => {
                let v: Vec<i32> = values.iter().map(|&c| c as i32).collect();
                self.control(to_rect2i(*rect), v.as_slice().into());
            }
            Edit::Holes { rect, holes } => self.holes(to_rect2i(*rect), holes.as_slice().into()),
            Edit::Paint {
                rect,
                layer,
                weights,
            } => self.paint(
                to_rect2i(*rect),
                i64::from(*layer),
                weights.as_slice().into(),
            ),
        }
    }
}

/// What a finished dab is recorded as: its operation (`logged`), or for a dab with no compact form (an
/// image brush) the samples it `changed`, read from `e`, the resource's samples now.
pub(crate) fn dab_edit<E: TerrainEdit + ?Sized>(
    logged: Option<&Edit>,
    b: &Brush,
    changed: Option<SampleRect>,
    e: &E,
) -> Option<Edit> {
    match (logged, changed) {
        (Some(op), _) => Some(op.clone()),
        (None, Some(rect)) if b.tool.edits_control() => e
            .control(rect)
            .ok()
            .map(|values| Edit::Control { rect, values }),
        (None, Some(rect)) => e
            .heights(rect)
            .ok()
            .map(|values| Edit::Heights { rect, values }),
        (None, None) => None,
    }
}

/// `apply_edit` of both resources: the ordering rule, then the edit and every held one it unblocks.
pub(crate) fn apply_edit<R: Logged>(
    r: &mut R,
    operation: &PackedByteArray,
) -> godot::global::Error {
    use godot::global::Error;
    let class = R::CLASS;
    let Some(mut log) = r.edit_log() else {
        godot_error!("{class}.apply_edit: edit_log is not set: set a TerrainEditLog with the map's map_id first; nothing applied");
        return Error::ERR_UNCONFIGURED;
    };
    let bytes = operation.as_slice();
    let arrival = log.bind_mut().log.receive(bytes);
    let mut next = match arrival {
        Ok(Arrival::Next(op)) => Some((op, bytes.to_vec())),
        Ok(Arrival::Held) => return Error::OK,
        Ok(Arrival::Duplicate) => return Error::ERR_ALREADY_EXISTS,
        Err(e) => {
            godot_error!("{class}.apply_edit: {e}; nothing applied, the log is unchanged");
            return match e {
                LogError::Op(_) => Error::ERR_INVALID_DATA,
                LogError::OtherMap { .. } => Error::ERR_INVALID_PARAMETER,
                LogError::Full { .. } => Error::ERR_OUT_OF_MEMORY,
            };
        }
    };
    log.bind_mut().replica = true;
    while let Some((op, bytes)) = next {
        let before = log.bind().log.next();
        log.bind_mut().incoming = Some(bytes);
        r.apply(&op.edit);
        let mut l = log.bind_mut();
        l.incoming = None;
        if l.log.next() == before {
            godot_error!("{class}.apply_edit: operation {} could not be applied to this map (is it the map it was recorded on?); the log stops before it", op.sequence);
            return Error::ERR_CANT_RESOLVE;
        }
        next = l.log.take_ready();
    }
    Error::OK
}

/// The parts of a dab operation (`Edit::Dab`) as the brush calls take them.
pub(crate) fn dab_parts(e: &Edit) -> Option<(&Brush, [f64; 2], f64)> {
    match e {
        Edit::Dab {
            brush,
            center,
            delta,
        } => Some((brush, *center, f64::from(*delta))),
        _ => None,
    }
}

/// A dab as its operation carries it, when `log` records and the dab has a compact form.
pub(crate) fn logged_dab(
    log: &Option<Gd<TerrainEditLog>>,
    b: &Brush,
    center: [f64; 2],
    delta: f64,
) -> Option<Edit> {
    log.as_ref()?;
    Edit::dab(b, center, delta)
}

/// What a resource's terrain layers (paths, stamps) wrote into it while a log records: kept until the edit
/// that caused them is recorded (a dab under a road: the dab, then the road applied again on top), or
/// recorded at once when a composition lands outside any edit (a road moved). Receivers replay them as
/// the samples written, so the ground under a layer is the same everywhere without the layer's node.
#[derive(Default)]
pub(crate) struct LayerWrites {
    pending: Vec<SampleRect>,
    /// Inside an edit (`under_layers`): writes wait for its operation.
    depth: u32,
}

impl LayerWrites {
    /// The layers wrote `rects` (kept when `logged`).
    pub fn wrote<R: Into<SampleRect> + Copy>(&mut self, logged: bool, rects: &[R]) {
        if logged {
            self.pending.extend(rects.iter().map(|&r| r.into()));
        }
    }

    pub fn enter(&mut self) {
        self.depth += 1;
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub fn in_edit(&self) -> bool {
        self.depth > 0
    }

    /// Records what the layers wrote (from `e`, the resource's samples now) as heights and control
    /// operations into `log`.
    pub fn flush<E: TerrainEdit + ?Sized>(&mut self, log: &Option<Gd<TerrainEditLog>>, e: &E) {
        if self.pending.is_empty() {
            return;
        }
        let rects = std::mem::take(&mut self.pending);
        let Some(log) = log else {
            return;
        };
        let mut log = log.clone();
        let mut l = log.bind_mut();
        // A replica records nothing of its own layers (they are not the source; see `replica`).
        if l.replica {
            return;
        }
        for rect in rects {
            if let (Ok(values), Ok(control)) = (e.heights(rect), e.control(rect)) {
                l.edited(|| Some(Edit::Heights { rect, values }));
                l.edited(|| {
                    Some(Edit::Control {
                        rect,
                        values: control,
                    })
                });
            }
        }
    }
}

/// `edit` as operations that each carry at most `op::MAX_SAMPLES` samples: a rectangle beyond it in bands
/// of rows (a dab as it is).
fn split(edit: Edit) -> Vec<Edit> {
    let rect = match &edit {
        Edit::Heights { rect, .. }
        | Edit::Control { rect, .. }
        | Edit::Holes { rect, .. }
        | Edit::Paint { rect, .. } => *rect,
        Edit::Dab { .. } => return vec![edit],
    };
    if rect.w * rect.d <= op::MAX_SAMPLES || rect.w == 0 {
        return vec![edit];
    }
    let rows = (op::MAX_SAMPLES / rect.w).max(1);
    (0..rect.d)
        .step_by(rows)
        .map(|z0| {
            let d = rows.min(rect.d - z0);
            let band = SampleRect {
                z: rect.z + z0 as i64,
                d,
                ..rect
            };
            let cut = || z0 * rect.w..(z0 + d) * rect.w;
            match &edit {
                Edit::Heights { values, .. } => Edit::Heights {
                    rect: band,
                    values: values[cut()].to_vec(),
                },
                Edit::Control { values, .. } => Edit::Control {
                    rect: band,
                    values: values[cut()].to_vec(),
                },
                Edit::Holes { holes, .. } => Edit::Holes {
                    rect: band,
                    holes: holes[cut()].to_vec(),
                },
                Edit::Paint { layer, weights, .. } => Edit::Paint {
                    rect: band,
                    layer: *layer,
                    weights: weights[cut()].to_vec(),
                },
                Edit::Dab { .. } => edit.clone(),
            }
        })
        .collect()
}
