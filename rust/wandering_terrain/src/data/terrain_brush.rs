//! `TerrainBrush`: a brush as a resource, for games and the editor (maths in `terrain_core::brush`).

use godot::classes::image::{AlphaMode, Format};
use godot::classes::{Curve, Image};
use godot::prelude::*;
use terrain_core::brush::{Brush, Falloff, Mask, Tool};

/// What `TerrainData.apply_brush` does at a point: raise, lower, smooth, flatten, set height, slope, add and
/// remove holes, or paint and erase a texture layer, over a round dab of `size` world units whose effect fades from the centre to the rim
/// (`falloff` curve, else `hardness`). `strength` is per second: `apply_brush(brush, pos, delta)` with each
/// frame's delta gives the same result however fast the mouse or the game calls it.
///
/// Every property refuses values outside its range with an error naming it and keeps the previous value.
#[derive(GodotClass)]
#[class(tool, init, base=Resource)]
pub struct TerrainBrush {
    /// RAISE, LOWER, SMOOTH, FLATTEN (toward `height`; an editor sets it to the ground under the cursor when
    /// a stroke starts), SET_HEIGHT (toward `height`), SLOPE (toward the straight slope from `slope_from` to
    /// `slope_to`), HOLE_ADD, HOLE_REMOVE (samples under the inner half of the dab), PAINT, ERASE (the weight
    /// of `layer` toward 1 or 0).
    #[export(enum = (Raise = 0, Lower = 1, Smooth = 2, Flatten = 3, SetHeight = 4, Slope = 5, HoleAdd = 6, HoleRemove = 7, Paint = 8, Erase = 9, InstanceAdd = 10, InstanceRemove = 11))]
    #[var(set = set_tool)]
    #[init(val = 0)]
    pub(crate) tool: i64,
    /// Diameter of the dab in terrain units (world units for an unmoved, unscaled terrain), (0, 100000].
    #[export(range = (0.1, 256.0, 0.1, or_greater))]
    #[var(set = set_size)]
    #[init(val = 8.0)]
    size: f64,
    /// Effect per second at the centre: world units for RAISE/LOWER, share of the way for the others.
    #[export(range = (0.0, 100.0, 0.01, or_greater))]
    #[var(set = set_strength)]
    #[init(val = 2.0)]
    strength: f64,
    /// Share of the radius at full strength before the fall to the rim (0: soft, 1: hard); used without
    /// a `falloff` curve.
    #[export(range = (0.0, 1.0, 0.01))]
    #[var(set = set_hardness)]
    #[init(val = 0.5)]
    hardness: f64,
    /// Optional falloff: the weight from the centre (x = 0) to the rim (x = 1).
    #[export]
    falloff: Option<Gd<Curve>>,
    /// Target height of FLATTEN and SET_HEIGHT (world units), [-1e9, 1e9].
    #[export]
    #[var(set = set_height)]
    height: f64,
    /// Optional stamp: the image's alpha (its brightness when it has no alpha) stretched over the dab's
    /// square multiplies the falloff (hardness 1: the image alone within the circle). At most 2048² texels.
    #[export]
    #[var(set = set_image)]
    image: Option<Gd<Image>>,
    /// The image's alpha, converted once when it is set.
    mask: Option<Mask>,
    /// The image's turn about the dab's centre, degrees (from +X toward +Z), [-3600, 3600]. The editor
    /// can set it per dab (a fixed angle, a random one, or following the stroke).
    #[export(range = (-360.0, 360.0, 0.1, or_greater, or_less))]
    #[var(set = set_image_rotation)]
    image_rotation: f64,
    /// PAINT / ERASE: the layer (index into the TerrainMaterial's layers), [0, 62].
    #[export(range = (0.0, 62.0, 1.0))]
    #[var(set = set_layer)]
    layer: i64,
    /// INSTANCE_ADD / INSTANCE_REMOVE: the instancer's mesh (index into its `meshes`), [-1, 255]; -1
    /// removes every mesh. `strength` is the share of the missing instances a second of painting adds
    /// (of the present ones it removes). DETAIL_ADD / DETAIL_REMOVE: the instancer's detail layer (index
    /// into its `detail_layers`); `strength` is the share of the full density a second of painting adds
    /// (removes).
    #[export(range = (-1.0, 255.0, 1.0))]
    #[var(set = set_mesh_index)]
    mesh_index: i64,
    /// SLOPE: start of the slope (terrain X, height, Z; the editor sets it with Alt+click).
    #[export]
    slope_from: Vector3,
    /// SLOPE: end of the slope (terrain X, height, Z; the editor sets it with Alt+Ctrl+click).
    #[export]
    slope_to: Vector3,
    base: Base<Resource>,
}

#[godot_api]
impl TerrainBrush {
    /// `tool` values.
    #[constant]
    const RAISE: i64 = 0;
    /// Lowers the ground.
    #[constant]
    const LOWER: i64 = 1;
    /// Moves heights toward their neighbours' mean.
    #[constant]
    const SMOOTH: i64 = 2;
    /// Moves heights toward `height`.
    #[constant]
    const FLATTEN: i64 = 3;
    /// Moves heights toward `height`.
    #[constant]
    const SET_HEIGHT: i64 = 4;
    /// Moves heights toward the slope from `slope_from` to `slope_to`.
    #[constant]
    const SLOPE: i64 = 5;
    /// Opens holes.
    #[constant]
    const HOLE_ADD: i64 = 6;
    /// Closes holes.
    #[constant]
    const HOLE_REMOVE: i64 = 7;
    /// Paints `layer` (its weight toward 1, `strength` per second).
    #[constant]
    const PAINT: i64 = 8;
    /// Erases `layer` (its weight toward 0; unpainted ground shows the height bands).
    #[constant]
    const ERASE: i64 = 9;
    /// With `TerrainInstancer.apply_brush`: adds instances of `mesh_index` toward its density.
    #[constant]
    const INSTANCE_ADD: i64 = 10;
    /// With `TerrainInstancer.apply_brush`: removes instances of `mesh_index` (-1: every mesh).
    #[constant]
    const INSTANCE_REMOVE: i64 = 11;
    /// With `TerrainInstancer.apply_brush`: paints detail layer `mesh_index`'s density up (toward its
    /// rules' full density).
    #[constant]
    const DETAIL_ADD: i64 = 12;
    /// With `TerrainInstancer.apply_brush`: paints detail layer `mesh_index`'s density down (toward none).
    #[constant]
    const DETAIL_REMOVE: i64 = 13;
    /// Water droplets erode the ground under the brush (`TerrainErosion`'s simulation in the dab).
    #[constant]
    const ERODE: i64 = 14;

    #[func]
    fn set_tool(&mut self, v: i64) {
        if !(0..=14).contains(&v) {
            godot_error!(
                "TerrainBrush.tool must be in [0, 14] (RAISE .. ERODE), got {v}; keeping {}",
                self.tool
            );
            return;
        }
        self.tool = v;
    }
    #[func]
    fn set_size(&mut self, v: f64) {
        if !(v > 0.0 && v <= 1.0e5) {
            godot_error!(
                "TerrainBrush.size must be a number in (0, 100000], got {v}; keeping {}",
                self.size
            );
            return;
        }
        self.size = v;
    }
    #[func]
    fn set_strength(&mut self, v: f64) {
        if !(0.0..=1.0e5).contains(&v) {
            godot_error!(
                "TerrainBrush.strength must be a number in [0, 100000], got {v}; keeping {}",
                self.strength
            );
            return;
        }
        self.strength = v;
    }
    #[func]
    fn set_hardness(&mut self, v: f64) {
        if !(0.0..=1.0).contains(&v) {
            godot_error!(
                "TerrainBrush.hardness must be a number in [0, 1], got {v}; keeping {}",
                self.hardness
            );
            return;
        }
        self.hardness = v;
    }
    #[func]
    fn set_image(&mut self, v: Option<Gd<Image>>) {
        let Some(img) = v else {
            self.image = None;
            self.mask = None;
            return;
        };
        let (w, h) = (img.get_width(), img.get_height());
        let max = Mask::MAX_SIDE as i32;
        if !(1..=max).contains(&w) || !(1..=max).contains(&h) {
            godot_error!(
                "TerrainBrush.image must be 1 x 1 to {max} x {max} texels, got {w} x {h}; keeping the previous image"
            );
            return;
        }
        let mut copy = img.duplicate_resource();
        if copy.is_compressed() {
            copy.decompress();
        }
        let use_alpha = copy.detect_alpha() != AlphaMode::NONE;
        copy.convert(Format::RGBA8);
        let data = copy.get_data();
        let alpha: Vec<f32> = data
            .as_slice()
            .chunks_exact(4)
            .map(|p| {
                let v = if use_alpha {
                    p[3] as f32
                } else {
                    (p[0] as f32 + p[1] as f32 + p[2] as f32) / 3.0
                };
                v / 255.0
            })
            .collect();
        self.mask = Mask::new(w as usize, h as usize, alpha);
        self.image = Some(img);
    }
    #[func]
    fn set_layer(&mut self, v: i64) {
        let max = terrain_core::control::MAX_LAYERS as i64 - 1;
        if !(0..=max).contains(&v) {
            godot_error!(
                "TerrainBrush.layer must be in [0, {max}], got {v}; keeping {}",
                self.layer
            );
            return;
        }
        self.layer = v;
    }
    #[func]
    fn set_mesh_index(&mut self, v: i64) {
        if !(-1..=255).contains(&v) {
            godot_error!(
                "TerrainBrush.mesh_index must be in [-1, 255], got {v}; keeping {}",
                self.mesh_index
            );
            return;
        }
        self.mesh_index = v;
    }
    #[func]
    fn set_image_rotation(&mut self, v: f64) {
        if !(-3600.0..=3600.0).contains(&v) {
            godot_error!(
                "TerrainBrush.image_rotation must be degrees in [-3600, 3600], got {v}; keeping {}",
                self.image_rotation
            );
            return;
        }
        self.image_rotation = v;
    }

    /// The samples one dab centred at terrain X/Z `center` may change, with one sample of margin, on a
    /// terrain holding samples `bounds` (`get_bounds()` of a TerrainData or TerrainRegions: an endless
    /// map's are signed) `spacing` apart, clipped to them (empty when the dab misses): what the editor saves
    /// for undo before a dab (`terrain_core::brush::dab_rect`, the same footprint `apply_brush` uses).
    #[func]
    pub(crate) fn get_dab_rect(&self, center: Vector2, spacing: f64, bounds: Rect2i) -> Rect2i {
        if !(spacing.is_finite() && spacing > 0.0) || bounds.size.x <= 0 || bounds.size.y <= 0 {
            return Rect2i::default();
        }
        let (w, d) = (bounds.size.x as usize, bounds.size.y as usize);
        let o = [bounds.position.x, bounds.position.y].map(f64::from);
        let c = [center.x, center.y];
        let c = [0, 1].map(|a| f64::from(c[a]) - o[a] * spacing);
        let Some(r) = terrain_core::brush::dab_rect([w, d], spacing, c, self.size) else {
            return Rect2i::default();
        };
        let (x0, z0) = (r.x.saturating_sub(1), r.z.saturating_sub(1));
        let (x1, z1) = ((r.x + r.w + 1).min(w), (r.z + r.d + 1).min(d));
        Rect2i::new(
            bounds.position + Vector2i::new(x0 as i32, z0 as i32),
            Vector2i::new((x1 - x0) as i32, (z1 - z0) as i32),
        )
    }

    /// Whether `tool` edits the control map (holes, paint) rather than heights: what a stroke saves.
    #[func]
    pub(crate) fn tool_edits_control(tool: i64) -> bool {
        // The core's tool classes (one owner): a brush of that tool, its defaults otherwise.
        let mut b = TerrainBrush::new_gd();
        b.bind_mut().tool = tool;
        let edits = b.bind().core().tool.edits_control();
        edits
    }

    /// The brush's weight over its square (falloff times `image`, turned by `image_rotation`), what one dab
    /// does relative to its centre: a `resolution`² `FORMAT_LA8` image, white with the weight as alpha
    /// (1/255 steps), whose texel (i, j) is the weight at offset ((i + 0.5) / resolution - 0.5,
    /// (j + 0.5) / resolution - 0.5) × `size` along X and Z. Ready for a cursor's decal (the editor's) or a
    /// preview. `resolution` in [2, 1024].
    #[func]
    fn get_stamp(&self, resolution: i64) -> Option<Gd<Image>> {
        if !(2..=1024).contains(&resolution) {
            godot_error!(
                "TerrainBrush.get_stamp: resolution must be in [2, 1024], got {resolution}"
            );
            return None;
        }
        let b = self.core();
        let n = resolution as usize;
        let mut bytes = PackedByteArray::new();
        bytes.resize(n * n * 2);
        for (k, out) in bytes.as_mut_slice().chunks_exact_mut(2).enumerate() {
            let at = |i: usize| ((i as f64 + 0.5) / n as f64 - 0.5) * b.size();
            let w = b.weight_at(at(k % n), at(k / n));
            out.copy_from_slice(&[255, (w.clamp(0.0, 1.0) * 255.0).round() as u8]);
        }
        Image::create_from_data(n as i32, n as i32, false, Format::LA8, &bytes)
    }

    #[func]
    fn set_height(&mut self, v: f64) {
        if !(-1.0e9..=1.0e9).contains(&v) {
            godot_error!("TerrainBrush.height must be a number in [-1000000000, 1000000000], got {v}; keeping {}", self.height);
            return;
        }
        self.height = v;
    }
}

impl TerrainBrush {
    /// The core brush in terrain space (the terrain's own X/Z and heights).
    pub fn core(&self) -> Brush {
        let tool = match self.tool {
            1 => Tool::Lower,
            2 => Tool::Smooth,
            3 => Tool::Flatten,
            4 => Tool::SetHeight,
            5 => Tool::Slope {
                from: [self.slope_from.x, self.slope_from.y, self.slope_from.z].map(f64::from),
                to: [self.slope_to.x, self.slope_to.y, self.slope_to.z].map(f64::from),
            },
            6 => Tool::HoleAdd,
            7 => Tool::HoleRemove,
            8 | 9 => Tool::Paint {
                layer: self.layer as usize,
                erase: self.tool == 9,
            },
            10 | 11 => Tool::Instances {
                mesh: usize::try_from(self.mesh_index).ok(),
                erase: self.tool == 11,
            },
            14 => Tool::Erode,
            12 | 13 => Tool::Detail {
                layer: usize::try_from(self.mesh_index).ok(),
                erase: self.tool == 13,
            },
            _ => Tool::Raise,
        };
        let falloff = match &self.falloff {
            // Sampled once per dab: 33 points from centre to rim.
            Some(c) => Falloff::Curve((0..33).map(|i| c.sample(i as f32 / 32.0)).collect()),
            None => Falloff::Hardness(self.hardness as f32),
        };
        Brush::new(tool, self.size, self.strength, falloff, self.height)
            .expect("properties are validated")
            .with_mask(self.mask.clone())
            .with_rotation(self.image_rotation.to_radians())
    }
}
