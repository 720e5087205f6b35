//! `TerrainPath`: a road, ramp or riverbed along a Path3D's curve, shaped into the terrain as a layer over
//! the sculpted ground (maths in `terrain_core::terrain_path`, the stack in `terrain_core::layers`).

use crate::follow::Links;
use crate::layers::layer_link::LayerLink;
use godot::classes::{Curve, IPath3D, Path3D};
use godot::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use terrain_core::control::{slot_of, MAX_LAYERS};
use terrain_core::terrain_path::{self as core, PathLayer, PathMode, PathPaint, PathShape};

/// Samples of the falloff curve kept for the workers.
const CURVE_SAMPLES: usize = 64;

/// A road, ramp or riverbed that stays editable: a `Path3D` under a `TerrainNode` or `WanderingTerrain`
/// (directly or deeper) whose curve shapes the terrain as a **layer over the sculpted ground**. Within
/// half of `width` the ground takes the curve's height (banked by each point's tilt); across
/// `falloff_width` it blends back to the ground; a paint layer, holes and a cleared verge ride along.
/// Nothing is baked: moving a point recomposes only the ground near the two segments it shapes (on a
/// worker thread, drawn a frame or two later); moving it back gives the same terrain bit for bit;
/// deleting the path gives the sculpted ground back. Sculpting, painting and erosion change the ground
/// under the path, and the path applies again on top (a road stays flat when the hill beside it rises).
/// `get_height`, raycasts, collision, instances and navigation follow the new ground like any edit.
///
/// Edit the curve with Godot's path tools (each handle drag is one undo step). Works at run time too. The
/// sculpted ground under the layers is saved with the TerrainData (`layer_base`) or the region map
/// (`layers.base`, by `save()`), so a reopened scene applies its paths again from it, never twice.
///
/// ```gdscript
/// var road := TerrainPath.new()
/// road.curve = Curve3D.new()
/// road.curve.add_point(Vector3(10, 4, 10))
/// road.curve.add_point(Vector3(60, 6, 40))
/// road.width = 6.0
/// road.paint_layer = 2
/// $TerrainNode.add_child(road)
/// road.apply_now()   # or wait a frame or two
/// ```
#[derive(GodotClass)]
#[class(tool, base=Path3D)]
pub struct TerrainPath {
    /// Width of the flat part, world units (0, 100000].
    #[export(range = (0.01, 200.0, 0.01, or_greater))]
    #[var(set = set_width)]
    width: f64,
    /// Width of the blend back to the ground on each side, world units [0, 100000].
    #[export(range = (0.0, 200.0, 0.01, or_greater))]
    #[var(set = set_falloff_width)]
    falloff_width: f64,
    /// The blend's weight across the falloff: x = 0 at the path's edge, x = 1 at the falloff's end, y the
    /// share of the path's height (1 → the path, 0 → the ground). Null: a smoothstep.
    #[export]
    #[var(set = set_falloff_curve)]
    falloff_curve: Option<Gd<Curve>>,
    /// What the path does to the heights: MODE_FOLLOW (cut and fill to the curve), MODE_RAISE (only
    /// where the curve is above the ground), MODE_LOWER (only below), MODE_CARVE (down to `depth` below the
    /// curve: a riverbed under its water line).
    #[export(enum = (Follow = 0, Raise = 1, Lower = 2, Carve = 3))]
    #[var(set = set_mode)]
    mode: i64,
    /// How far below the curve MODE_CARVE digs, world units [0, 100000].
    #[export(range = (0.0, 100.0, 0.01, or_greater))]
    #[var(set = set_depth)]
    depth: f64,
    /// Width scale per curve point (1 = `width`, [0, 1000]); points beyond the array use 1. The scale
    /// varies linearly along each segment, and scales the paint's width too.
    #[export]
    #[var(set = set_point_widths)]
    point_widths: PackedFloat32Array,

    /// Painted layer along the path (an index into the TerrainMaterial's layers, 0 .. 62); -1: none.
    #[export(range = (-1.0, 62.0, 1.0))]
    #[export_group(name = "Paint")]
    #[var(set = set_paint_layer)]
    paint_layer: i64,
    /// Width painted at full weight, world units [0, 100000].
    #[export(range = (0.0, 200.0, 0.01, or_greater))]
    #[var(set = set_paint_width)]
    paint_width: f64,
    /// Width of the paint's fade on each side, world units [0, 100000].
    #[export(range = (0.0, 50.0, 0.01, or_greater))]
    #[var(set = set_paint_falloff)]
    paint_falloff: f64,
    /// How far the painted edge wanders in and out (a worn verge), world units [0, 100000].
    #[export(range = (0.0, 10.0, 0.01, or_greater))]
    #[var(set = set_paint_edge_noise)]
    paint_edge_noise: f64,

    /// Cuts holes within half the width (a tunnel's mouth, a gap under a bridge).
    #[export]
    #[export_group(name = "Holes and clearing")]
    #[var(set = set_holes)]
    holes: bool,
    /// Hides instances and keeps detail (grass) from growing within half the width plus `clear_margin`;
    /// they come back when the path moves away.
    #[export]
    #[var(set = set_clear_instances)]
    clear_instances: bool,
    /// World units beyond half the width that are cleared [0, 100000].
    #[export(range = (0.0, 20.0, 0.01, or_greater))]
    #[var(set = set_clear_margin)]
    clear_margin: f64,

    /// Order among the terrain's layers: lower first, a later one wins where they overlap (paths and
    /// stamps of the same order: the one added last wins).
    #[export]
    #[export_group(name = "Layer")]
    #[var(set = set_order)]
    order: i64,

    link: LayerLink,
    /// What keeps `paint_layer` from painting, as last warned.
    paint_warned: Option<String>,
    layer: Option<Arc<PathLayer>>,
    /// The curve, placement or settings changed: the layer is built again next frame.
    stale: bool,
    /// Set by the curve's `curve_changed` (which may come while this node is bound).
    curve_changed: Arc<AtomicBool>,
    /// The connection to `falloff_curve` (`follow::Links`).
    falloff_links: Links,
    base: Base<Path3D>,
}

#[godot_api]
impl IPath3D for TerrainPath {
    fn init(base: Base<Path3D>) -> Self {
        Self {
            width: 8.0,
            falloff_width: 6.0,
            falloff_curve: None,
            mode: 0,
            depth: 1.0,
            point_widths: PackedFloat32Array::new(),
            paint_layer: -1,
            paint_width: 6.0,
            paint_falloff: 1.0,
            paint_edge_noise: 0.0,
            holes: false,
            clear_instances: true,
            clear_margin: 1.0,
            order: 0,
            link: LayerLink::default(),
            paint_warned: None,
            layer: None,
            stale: true,
            curve_changed: Arc::default(),
            falloff_links: Links::default(),
            base,
        }
    }

    fn ready(&mut self) {
        // The handler does not bind this node: the curve may change inside a call that holds it
        // (`lay_on_ground`, a script's method). It raises a flag and wakes the process pass.
        let (flag, id) = (self.curve_changed.clone(), self.base().instance_id());
        self.signals().curve_changed().connect(move || {
            flag.store(true, Ordering::Relaxed);
            if let Ok(mut node) = Gd::<godot::classes::Node>::try_from_instance_id(id) {
                node.set_process(true);
            }
        });
        self.base_mut().set_notify_transform(true);
    }

    fn process(&mut self, _delta: f64) {
        if self.is_stale() {
            self.rebuild();
        }
        if !self.link.poll() && !self.is_stale() {
            self.base_mut().set_process(false);
        }
    }

    fn get_configuration_warnings(&self) -> PackedStringArray {
        self.check_setup()
    }

    fn on_notification(&mut self, what: godot::classes::notify::Node3DNotification) {
        use godot::classes::notify::Node3DNotification as N;
        match what {
            N::ENTER_TREE | N::TRANSFORM_CHANGED => self.touch(),
            N::EXIT_TREE => {
                self.link.detach();
                self.layer = None;
            }
            _ => {}
        }
    }
}

#[godot_api]
impl TerrainPath {
    /// `mode`: cut and fill to the curve (a road, a ramp that also cuts).
    #[constant]
    const MODE_FOLLOW: i64 = 0;
    /// `mode`: only where the curve is above the ground (an embankment).
    #[constant]
    const MODE_RAISE: i64 = 1;
    /// `mode`: only where the curve is below the ground (a cutting).
    #[constant]
    const MODE_LOWER: i64 = 2;
    /// `mode`: down to `depth` under the curve where the ground is higher (a riverbed).
    #[constant]
    const MODE_CARVE: i64 = 3;

    /// What keeps the layer from shaping the terrain (the editor shows it as configuration warnings): empty
    /// when nothing does.
    #[func]
    pub(crate) fn check_setup(&self) -> PackedStringArray {
        let mut w = self.link.warnings();
        if let Some(p) = self.paint_problem() {
            w.push(&p);
        }
        w
    }

    /// Builds the layer now and composes the ground at once (instead of on a worker over
    /// the next frames): what a script that reads heights right after an edit calls.
    #[func]
    fn apply_now(&mut self) {
        // Always built again: Godot tells a node of its new transform only at the end of the frame.
        self.rebuild();
        self.link.finish();
    }

    /// Whether the terrain shows the path as it is now (nothing waits to be composed). False while the
    /// path cannot shape the terrain (out of the tree, or `check_setup()` names what is missing).
    #[func]
    fn is_applied(&mut self) -> bool {
        !self.is_stale() && self.link.is_shaping() && !self.link.busy()
    }

    /// Lays the curve on the ground: each point takes the height of the sculpted ground under it (the
    /// terrain without its paths and stamps), then, with `max_grade` > 0 (rise over run: 0.1 is 10 %),
    /// the heights are evened to that grade, half by cutting and half by filling. For a road that follows
    /// the land rather than land that follows the road. Returns false (curve unchanged) off a terrain.
    #[func]
    fn lay_on_ground(&mut self, #[opt(default = 0.0)] max_grade: f64) -> bool {
        let Some(mut curve) = self.base().get_curve() else {
            godot_error!("TerrainPath.lay_on_ground: the path has no curve");
            return false;
        };
        let node = self.to_gd().upcast::<godot::classes::Node3D>();
        let frame = match self.link.attach(&node, "TerrainPath") {
            Ok(a) => a.frame,
            Err(e) => {
                godot_error!("TerrainPath.lay_on_ground: {e}");
                return false;
            }
        };
        if !(max_grade.is_finite() && max_grade >= 0.0) {
            godot_error!(
                "TerrainPath.lay_on_ground: max_grade must be ≥ 0 (rise over run), got {max_grade}"
            );
            return false;
        }
        let to_world = self.base().get_global_transform();
        let to_local = to_world.affine_inverse();
        let n = curve.get_point_count();
        let pts: Vec<[f64; 3]> = (0..n)
            .map(|i| {
                let p = to_world * curve.get_point_position(i);
                frame.to_terrain([p.x, p.y, p.z].map(f64::from))
            })
            .collect();
        let link = &mut self.link;
        let heights = core::lay_on_ground(&pts, |x, z| link.sculpted_height(x, z), max_grade);
        for (i, (p, y)) in pts.iter().zip(heights).enumerate() {
            let w = crate::surface::world_of(&frame, [p[0], y, p[2]]);
            curve.set_point_position(i as i32, to_local * w);
        }
        self.touch();
        true
    }

    /// Bytes this path costs: the sculpted ground kept under the 16² tiles it reaches (4 a sample, 8
    /// where the ground is painted) and its own pieces.
    #[func]
    fn get_layer_bytes(&mut self) -> i64 {
        match self.layer.clone() {
            Some(l) => {
                let kept = self
                    .link
                    .kept_bytes_of(terrain_core::layers::Layer::tiles(&*l));
                (kept + l.heap_bytes()) as i64
            }
            None => 0,
        }
    }

    /// Samples the path writes (within its reach of the centre line: half the width and the widest of
    /// the falloff, paint and clearing).
    #[func]
    fn get_covered_samples(&self) -> i64 {
        self.layer
            .as_ref()
            .map_or(0, |l| l.covered_samples() as i64)
    }

    /// Microseconds the terrain's last composition of its layers took: [on its worker thread, writing it
    /// in on the main thread]. For benchmarks.
    #[func]
    fn get_compose_usec(&mut self) -> PackedInt64Array {
        self.link.last_usec().iter().map(|&u| u as i64).collect()
    }

    #[func]
    fn set_width(&mut self, v: f64) {
        if self.check("width", v, 1e-3, "in (0, 100000]") {
            self.width = v;
        }
    }
    #[func]
    fn set_falloff_width(&mut self, v: f64) {
        if self.check("falloff_width", v, 0.0, "in [0, 100000]") {
            self.falloff_width = v;
        }
    }
    #[func]
    fn set_falloff_curve(&mut self, v: Option<Gd<Curve>>) {
        let me = self.to_gd();
        self.falloff_links.replace(v.iter().map(|c| {
            c.signals()
                .changed()
                .builder()
                .flags(crate::follow::flags(true))
                .connect(crate::follow::weak(&me, Self::touch))
        }));
        self.falloff_curve = v;
        self.touch();
    }
    #[func]
    fn set_mode(&mut self, v: i64) {
        if PathMode::from_index(v).is_none() {
            godot_error!("TerrainPath.mode must be MODE_FOLLOW, MODE_RAISE, MODE_LOWER or MODE_CARVE (0..3), got {v}; keeping {}", self.mode);
            return;
        }
        self.mode = v;
        self.touch();
    }
    #[func]
    fn set_depth(&mut self, v: f64) {
        if self.check("depth", v, 0.0, "in [0, 100000]") {
            self.depth = v;
        }
    }
    #[func]
    fn set_point_widths(&mut self, v: PackedFloat32Array) {
        if let Some((i, w)) = v
            .as_slice()
            .iter()
            .enumerate()
            .find(|(_, w)| !(w.is_finite() && (0.0..=1000.0).contains(*w)))
        {
            godot_error!("TerrainPath.point_widths[{i}] must be in [0, 1000], got {w}; keeping the previous widths");
            return;
        }
        self.point_widths = v;
        self.touch();
    }
    #[func]
    fn set_paint_layer(&mut self, v: i64) {
        if !(-1..MAX_LAYERS as i64).contains(&v) {
            godot_error!(
                "TerrainPath.paint_layer must be -1 (none) or a layer in [0, 62], got {v}; keeping {}",
                self.paint_layer
            );
            return;
        }
        self.paint_layer = v;
        self.touch();
    }
    #[func]
    fn set_paint_width(&mut self, v: f64) {
        if self.check("paint_width", v, 0.0, "in [0, 100000]") {
            self.paint_width = v;
        }
    }
    #[func]
    fn set_paint_falloff(&mut self, v: f64) {
        if self.check("paint_falloff", v, 0.0, "in [0, 100000]") {
            self.paint_falloff = v;
        }
    }
    #[func]
    fn set_paint_edge_noise(&mut self, v: f64) {
        if self.check("paint_edge_noise", v, 0.0, "in [0, 100000]") {
            self.paint_edge_noise = v;
        }
    }
    #[func]
    fn set_holes(&mut self, v: bool) {
        self.holes = v;
        self.touch();
    }
    #[func]
    fn set_clear_instances(&mut self, v: bool) {
        self.clear_instances = v;
        self.touch();
    }
    #[func]
    fn set_clear_margin(&mut self, v: f64) {
        if self.check("clear_margin", v, 0.0, "in [0, 100000]") {
            self.clear_margin = v;
        }
    }
    #[func]
    fn set_order(&mut self, v: i64) {
        self.order = v;
        self.touch();
    }
}

impl TerrainPath {
    fn is_stale(&self) -> bool {
        self.stale || self.curve_changed.load(Ordering::Relaxed)
    }

    /// Something the layer is made of changed: build it again next frame.
    fn touch(&mut self) {
        self.stale = true;
        if self.base().is_inside_tree() {
            self.base_mut().set_process(true);
        }
    }

    /// A width-like setting: finite, at least `lo`, at most 100000; an error naming it otherwise.
    fn check(&mut self, property: &str, v: f64, lo: f64, allowed: &str) -> bool {
        if v.is_finite() && v >= lo && v <= f64::from(core::MAX_EXTENT) {
            self.touch();
            return true;
        }
        godot_error!(
            "TerrainPath.{property} must be {allowed}, got {v}; keeping the previous value"
        );
        false
    }

    fn shape(&self, scale: f32) -> PathShape {
        let curve = self.falloff_curve.as_ref().map(|c| {
            (0..CURVE_SAMPLES)
                .map(|i| c.sample(i as f32 / (CURVE_SAMPLES - 1) as f32))
                .collect()
        });
        let f = |v: f64| v as f32 * scale;
        PathShape {
            width: f(self.width),
            falloff: f(self.falloff_width),
            falloff_curve: curve,
            mode: PathMode::from_index(self.mode).unwrap_or(PathMode::Follow),
            depth: f(self.depth),
            paint: (self.paint_layer >= 0).then(|| PathPaint {
                slot: slot_of(self.paint_layer as usize),
                width: f(self.paint_width),
                falloff: f(self.paint_falloff),
                edge_noise: f(self.paint_edge_noise),
            }),
            holes: self.holes,
            clear_margin: self.clear_instances.then(|| f(self.clear_margin)),
        }
    }

    /// Builds the layer from the curve, in terrain space, and hands it to the terrain's resource. Bad
    /// points keep the path as it was, with an error.
    fn rebuild(&mut self) {
        self.stale = false;
        self.curve_changed.store(false, Ordering::Relaxed);
        if !self.base().is_inside_tree() {
            return;
        }
        let node = self.to_gd().upcast::<godot::classes::Node3D>();
        let (to_terrain, frame, spacing, bounds) = match self.link.attach(&node, "TerrainPath") {
            Ok(a) => (a.to_terrain, a.frame, a.spacing, a.bounds),
            Err(e) => {
                self.report(Some(e.to_string()));
                self.layer = None;
                return;
            }
        };
        let global = self.base().get_global_transform();
        // World units → terrain units across the path (a scaled terrain node scales widths too).
        let scale = (to_terrain.basis * global.basis).col_a().length();
        let points = match self.base().get_curve() {
            Some(c) => (0..c.get_point_count())
                .map(|i| {
                    let p = c.get_point_position(i);
                    // Through the world (near zero) into terrain space in f64: exact far out.
                    let at = |v: Vector3| {
                        let w = global * v;
                        frame.to_terrain([w.x, w.y, w.z].map(f64::from))
                    };
                    core::PathPoint {
                        position: at(p),
                        before: at(p + c.get_point_in(i)),
                        after: at(p + c.get_point_out(i)),
                        tilt: c.get_point_tilt(i),
                        width: self.point_widths.get(i as usize).unwrap_or(1.0),
                    }
                })
                .collect(),
            None => Vec::new(),
        };
        match PathLayer::new(self.shape(scale), &points, spacing, Some(bounds)) {
            Ok(layer) => {
                let layer = Arc::new(layer);
                let changed = self.layer.as_ref().map(|old| layer.changed_tiles(old));
                self.link.set(self.order, layer.clone(), changed);
                self.layer = Some(layer);
                self.report(None);
                let paint = self.paint_problem();
                if paint != self.paint_warned {
                    if let Some(p) = &paint {
                        godot_warn!("TerrainPath: {p}");
                    }
                    self.paint_warned = paint;
                    self.base_mut().update_configuration_warnings();
                }
            }
            Err(e) => self.report(Some(format!("{e}; the terrain keeps the path as it was"))),
        }
    }

    /// What keeps `paint_layer` from painting: a layer the terrain's TerrainMaterial lacks (or no
    /// TerrainMaterial at all).
    fn paint_problem(&self) -> Option<String> {
        if self.paint_layer < 0 || !self.base().is_inside_tree() {
            return None;
        }
        let host = crate::surface::host_above(&self.to_gd().upcast())?;
        let count = host
            .dyn_bind()
            .terrain_surface()
            .material
            .map(|m| m.bind().layer_count());
        let layer = self.paint_layer;
        match count {
            None => Some(format!("paint_layer is {layer}, but the terrain has no terrain_material: the paint is not drawn. Give the terrain a TerrainMaterial with a layer {layer}, or set paint_layer to -1")),
            Some(n) if layer as usize >= n => Some(format!("paint_layer is {layer}, but the terrain's TerrainMaterial has {n} layers (indices 0 to {}): the paint is not drawn. Pick one of its layers, or add layers", n as i64 - 1)),
            Some(_) => None,
        }
    }

    /// Reports a new problem once (an error and a configuration warning), or clears it.
    fn report(&mut self, problem: Option<String>) {
        if self.link.report("TerrainPath", problem) {
            self.base_mut().update_configuration_warnings();
        }
    }
}
