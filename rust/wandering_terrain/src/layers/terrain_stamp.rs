//! `TerrainStamp`: a height image placed on the terrain by the node's transform, as a layer over the
//! sculpted ground (maths in `terrain_core::terrain_stamp`, the stack in `terrain_core::layers`).

use crate::layers::layer_link::LayerLink;
use godot::classes::image::Format;
use godot::classes::{INode3D, Image, Node3D};
use godot::prelude::*;
use std::sync::Arc;
use terrain_core::terrain_stamp::{StampBlend, StampImage, StampLayer, StampPlacement};

/// A height image (a crater, a mesa, an imported feature) stamped into the terrain under a `TerrainNode`
/// or `WanderingTerrain`, as a **layer over the sculpted ground**: move, turn or scale the node and the
/// ground is composed again where it was and where it is (drawn a frame or two later); delete it and the
/// sculpted ground comes back bit for bit. The image covers `size` (world units, centred on the node, along
/// its X and Z), its red channel scaled by `height` (and the node's Y scale) above the node's height.
///
/// ```gdscript
/// var crater := TerrainStamp.new()
/// crater.image = load("res://crater.exr")   # any image; red = height, 0..1
/// crater.size = Vector2(80, 80)
/// crater.height = -12.0
/// crater.blend_mode = TerrainStamp.BLEND_ADD
/// $TerrainNode.add_child(crater)
/// crater.position = Vector3(200, 0, 150)
/// ```
#[derive(GodotClass)]
#[class(tool, base=Node3D)]
pub struct TerrainStamp {
    /// The heights: the red channel (0..1 for 8-bit images; any value for float images). Null: nothing.
    #[export]
    #[var(set = set_image)]
    image: Option<Gd<Image>>,
    /// Ground covered, world units (each > 0), centred on the node along its X and Z.
    #[export]
    #[var(set = set_size)]
    size: Vector2,
    /// Height of the image's 1 (world units, within ±1000000; negative digs).
    #[export(range = (-500.0, 500.0, 0.01, or_greater, or_less))]
    #[var(set = set_height)]
    height: f64,
    /// How the image meets the ground: BLEND_ADD (ground + image), BLEND_MAX (the higher: a mesa),
    /// BLEND_MIN (the lower: a crater's bowl), BLEND_REPLACE (the image's heights above the node).
    #[export(enum = (Add = 0, Max = 1, Min = 2, Replace = 3))]
    #[var(set = set_blend_mode)]
    blend_mode: i64,
    /// Share of the stamp's result that replaces the ground, [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_strength)]
    strength: f64,
    /// Share of the way from the edge to the centre over which the stamp fades in, [0, 1].
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_falloff)]
    falloff: f64,
    /// Order among the terrain's layers: lower first, a later one wins where they overlap.
    #[export]
    #[var(set = set_order)]
    order: i64,

    link: LayerLink,
    pixels: Option<Arc<StampImage>>,
    applied: bool,
    stale: bool,
    base: Base<Node3D>,
}

#[godot_api]
impl INode3D for TerrainStamp {
    fn init(base: Base<Node3D>) -> Self {
        Self {
            image: None,
            size: Vector2::new(64.0, 64.0),
            height: 10.0,
            blend_mode: 0,
            strength: 1.0,
            falloff: 0.25,
            order: 0,
            link: LayerLink::default(),
            pixels: None,
            applied: false,
            stale: true,
            base,
        }
    }

    fn ready(&mut self) {
        self.base_mut().set_notify_transform(true);
    }

    fn process(&mut self, _delta: f64) {
        if self.stale {
            self.rebuild();
        }
        if !self.link.poll() && !self.stale {
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
                self.applied = false;
            }
            _ => {}
        }
    }
}

#[godot_api]
impl TerrainStamp {
    /// `blend_mode`: the ground plus the image's heights.
    #[constant]
    const BLEND_ADD: i64 = 0;
    /// `blend_mode`: the higher of the two (a mesa that does not bury hills).
    #[constant]
    const BLEND_MAX: i64 = 1;
    /// `blend_mode`: the lower of the two (a bowl that does not fill valleys).
    #[constant]
    const BLEND_MIN: i64 = 2;
    /// `blend_mode`: the image's heights above the node replace the ground's.
    #[constant]
    const BLEND_REPLACE: i64 = 3;

    /// What keeps the layer from shaping the terrain (the editor shows it as configuration warnings): empty
    /// when nothing does.
    #[func]
    pub(crate) fn check_setup(&self) -> PackedStringArray {
        self.link.warnings()
    }

    /// Builds the layer now and composes the ground at once.
    #[func]
    fn apply_now(&mut self) {
        // Always built again: Godot tells a node of its new transform only at the end of the frame.
        self.rebuild();
        self.link.finish();
    }

    /// Whether the terrain shows the stamp as it is now. False while the stamp cannot shape the terrain
    /// (out of the tree, or `check_setup()` names what is missing).
    #[func]
    fn is_applied(&mut self) -> bool {
        !self.stale && self.link.is_shaping() && !self.link.busy()
    }

    #[func]
    fn set_image(&mut self, v: Option<Gd<Image>>) {
        self.pixels = None;
        self.image = v;
        self.touch();
    }
    #[func]
    fn set_size(&mut self, v: Vector2) {
        let ok = |c: f32| c.is_finite() && c > 0.0 && c <= 1e7;
        if !(ok(v.x) && ok(v.y)) {
            godot_error!(
                "TerrainStamp.size must be > 0 and at most 10000000 on both axes, got {v}; keeping {}",
                self.size
            );
            return;
        }
        self.size = v;
        self.touch();
    }
    #[func]
    fn set_height(&mut self, v: f64) {
        if !(v.is_finite() && v.abs() <= 1e6) {
            godot_error!(
                "TerrainStamp.height must be within ±1000000, got {v}; keeping {}",
                self.height
            );
            return;
        }
        self.height = v;
        self.touch();
    }
    #[func]
    fn set_blend_mode(&mut self, v: i64) {
        if StampBlend::from_index(v).is_none() {
            godot_error!("TerrainStamp.blend_mode must be BLEND_ADD, BLEND_MAX, BLEND_MIN or BLEND_REPLACE (0..3), got {v}; keeping {}", self.blend_mode);
            return;
        }
        self.blend_mode = v;
        self.touch();
    }
    #[func]
    fn set_strength(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainStamp.strength must be in [0, 1], got {v}; keeping {}",
                self.strength
            );
            return;
        }
        self.strength = v;
        self.touch();
    }
    #[func]
    fn set_falloff(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainStamp.falloff must be in [0, 1], got {v}; keeping {}",
                self.falloff
            );
            return;
        }
        self.falloff = v;
        self.touch();
    }
    #[func]
    fn set_order(&mut self, v: i64) {
        self.order = v;
        self.touch();
    }
}

impl TerrainStamp {
    fn touch(&mut self) {
        self.stale = true;
        if self.base().is_inside_tree() {
            self.base_mut().set_process(true);
        }
    }

    /// The image's red channel as floats (kept until the image is set again).
    fn pixels(&mut self) -> Option<Arc<StampImage>> {
        if self.pixels.is_none() {
            let img = self.image.as_ref()?;
            if img.is_empty() {
                return None;
            }
            let mut copy = Image::new_gd();
            copy.copy_from(img);
            if copy.is_compressed() {
                copy.decompress();
            }
            copy.convert(Format::RF);
            let (w, d) = (copy.get_width() as usize, copy.get_height() as usize);
            let data = copy.get_data();
            let values = data
                .as_slice()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect::<Vec<_>>();
            if values.len() != w * d {
                return None;
            }
            self.pixels = Some(Arc::new(StampImage {
                width: w,
                depth: d,
                values,
            }));
        }
        self.pixels.clone()
    }

    fn rebuild(&mut self) {
        self.stale = false;
        if !self.base().is_inside_tree() {
            return;
        }
        let node = self.to_gd().upcast::<Node3D>();
        let (to_terrain, frame, spacing, bounds) = match self.link.attach(&node, "TerrainStamp") {
            Ok(a) => (a.to_terrain, a.frame, a.spacing, a.bounds),
            Err(e) => return self.report(Some(e.to_string())),
        };
        let Some(image) = self.pixels() else {
            // No image: the stamp covers nothing (its old ground comes back).
            if self.applied {
                self.link.detach();
                self.applied = false;
            }
            return self.report(None);
        };
        // Terrain space → the stamp's own (its X/Z square of `size`, centred on it). The stamp's origin
        // in terrain space is taken in f64 (exact far out); its axes through the scale.
        let global = self.base().get_global_transform();
        let basis = to_terrain.basis * global.basis;
        let o =
            frame.to_terrain([global.origin.x, global.origin.y, global.origin.z].map(f64::from));
        let inv = basis.inverse();
        let base = o[1] as f32;
        let y_scale = basis.col_b().length();
        let row = |r: usize, size: f32| {
            let b = inv.rows[r];
            let b64 = [b.x, b.y, b.z].map(f64::from);
            // local[r] = b · (p - o): the origin's part in f64.
            let shift = b64[0] * o[0] + b64[1] * o[1] + b64[2] * o[2];
            let size = f64::from(size);
            [
                b64[0] / size,
                b64[2] / size,
                (b64[1] * o[1] - shift) / size + 0.5,
            ]
        };
        let place = StampPlacement {
            to_uv: [row(0, self.size.x), row(2, self.size.y)],
            base,
            height: (self.height * f64::from(y_scale)) as f32,
            blend: StampBlend::from_index(self.blend_mode).unwrap_or(StampBlend::Add),
            strength: self.strength as f32,
            falloff: self.falloff as f32,
        };
        match StampLayer::new(image, place, spacing, Some(bounds)) {
            Ok(layer) => {
                self.link.set(self.order, Arc::new(layer), None);
                self.applied = true;
                self.report(None);
            }
            Err(e) => self.report(Some(format!("{e}; the terrain keeps the stamp as it was"))),
        }
    }

    fn report(&mut self, problem: Option<String>) {
        if self.link.report("TerrainStamp", problem) {
            self.base_mut().update_configuration_warnings();
        }
    }
}
