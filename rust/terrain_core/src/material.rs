//! Terrain layers and their blending: the CPU twin of `shaders/terrain_material.gdshaderinc`.
//!
//! **Control data** (4 bytes a sample: two layer slots, their blend and the hole bit) is laid out in
//! `control`, its one owner.
//!
//! **Blending at a point** (what the shader draws): the four samples around it, weighted bilinearly, give up
//! to eight (slot, weight) pairs; the auto share is split over the two strongest height bands at the point's
//! height and, on steep ground, a cliff layer; equal layers merge; the **four** strongest layers are kept and renormalised. So a pixel fetches at
//! most four layers however many the material has: 8 texture reads (albedo + normal), 24 where triplanar.
//!

use crate::control::{slot_of, Paint, AUTO, HOLE, MAX_LAYERS};
use crate::terrain_data::{Region, TerrainData, TerrainDataError};

/// Layers that blend at one pixel.
pub const BLEND_LAYERS: usize = 4;

/// A layer's height band (auto-texturing): centre and half-width in terrain height units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub layer: usize,
    pub centre: f32,
    pub width: f32,
}

/// The two strongest height-band weights at height `h`, normalised (height-band texturing:
/// `clamp(1 - |h - c| / w, 0, 1)`). Above or below every band, the nearest band (in widths) takes it all;
/// without bands, layer 0 does. The shader twin is `tm_band_weights`.
pub fn band_weights(bands: &[Band], h: f32) -> [(usize, f32); 2] {
    let mut top = [(0usize, 0.0f32); 2];
    let mut nearest = (0usize, f32::INFINITY);
    for b in bands {
        let d = (h - b.centre).abs() / b.width;
        let w = (1.0 - d).clamp(0.0, 1.0);
        if d < nearest.1 {
            nearest = (b.layer, d);
        }
        if w > top[0].1 {
            top[1] = top[0];
            top[0] = (b.layer, w);
        } else if w > top[1].1 {
            top[1] = (b.layer, w);
        }
    }
    let sum = top[0].1 + top[1].1;
    if sum <= 0.0 {
        return [(nearest.0, 1.0), (nearest.0, 0.0)];
    }
    [(top[0].0, top[0].1 / sum), (top[1].0, top[1].1 / sum)]
}

/// What a material blends: its layer count and height bands (only what the weights depend on).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Blending {
    pub layer_count: usize,
    /// Used for auto where `auto_texturing` is on and some layer has a band; otherwise auto is layer 0.
    pub bands: Vec<Band>,
    /// 0..1: the kept weights are raised to the power 1 + 7 * sharpness and renormalised.
    pub sharpness: f32,
    /// Auto-texturing's cliff layer and the normal y below which it covers the ground (`cliff_weight`).
    pub cliff: Option<(usize, f32)>,
}

/// Share of auto ground that the cliff layer takes where the surface normal's y is `ny`: 0 above
/// `slope + 0.05`, 1 below `slope - 0.05`, linear between (a short blend instead of a hard edge).
pub fn cliff_weight(ny: f32, slope: f32) -> f32 {
    ((slope + 0.05 - ny) / 0.1).clamp(0.0, 1.0)
}

/// The layers blended at a point and their weights (at most `BLEND_LAYERS`, summing to 1, strongest first).
pub type Blend = Vec<(usize, f32)>;

impl Blending {
    /// The blend at a point from its four surrounding samples' control values (c00, c10, c01, c11), the
    /// point's offsets (tx, tz) in [0, 1] from the first, its height and its normal's y.
    pub fn blend(&self, corners: [u32; 4], t: [f32; 2], h: f32, ny: f32) -> Blend {
        let (tx, tz) = (t[0], t[1]);
        let cw = [
            (1.0 - tx) * (1.0 - tz),
            tx * (1.0 - tz),
            (1.0 - tx) * tz,
            tx * tz,
        ];
        let mut acc: Vec<(usize, f32)> = Vec::with_capacity(10);
        let mut add = |layer: usize, w: f32| {
            if w <= 0.0 {
                return;
            }
            match acc.iter_mut().find(|(l, _)| *l == layer) {
                Some(e) => e.1 += w,
                None => acc.push((layer, w)),
            }
        };
        let mut auto = 0.0;
        for (c, k) in corners.iter().zip(cw) {
            for (slot, w) in Paint::decode(*c).weights() {
                let layer = usize::from(slot).wrapping_sub(1);
                if slot == AUTO || layer >= self.layer_count {
                    auto += w * k;
                } else {
                    add(layer, w * k);
                }
            }
        }
        if auto > 0.0 {
            let cliff = match self.cliff {
                Some((layer, slope)) if layer < self.layer_count => {
                    Some((layer, cliff_weight(ny, slope)))
                }
                _ => None,
            };
            let rest = 1.0 - cliff.map_or(0.0, |c| c.1);
            for (layer, w) in self.auto_weights(h) {
                add(layer, w * auto * rest);
            }
            if let Some((layer, c)) = cliff {
                add(layer, c * auto);
            }
        }
        // Strongest first; ties keep the order of first appearance (as the shader's selection does).
        let mut top: Blend = Vec::with_capacity(BLEND_LAYERS);
        for _ in 0..BLEND_LAYERS {
            let best = acc.iter().enumerate().filter(|(_, e)| e.1 > 0.0).fold(
                None::<(usize, f32)>,
                |b, (i, e)| match b {
                    Some((_, bw)) if bw >= e.1 => b,
                    _ => Some((i, e.1)),
                },
            );
            let Some((i, _)) = best else { break };
            top.push(acc[i]);
            acc[i].1 = 0.0;
        }
        let p = 1.0 + 7.0 * self.sharpness;
        top.iter_mut().for_each(|e| e.1 = e.1.powf(p));
        let sum: f32 = top.iter().map(|e| e.1).sum();
        top.iter_mut().for_each(|e| e.1 /= sum);
        top
    }

    fn auto_weights(&self, h: f32) -> [(usize, f32); 2] {
        if self.bands.is_empty() {
            [(0, 1.0), (0, 0.0)]
        } else {
            band_weights(&self.bands, h)
        }
    }
}

/// What the shader blends at terrain X/Z (x, z) of any surface: the layers and their weights (strongest
/// first, summing to 1; empty at a non-finite point). `grad_scale` turns terrain slopes into world slopes
/// (the node's vertical over horizontal scale per axis). `get_layer_weights` and the instancer's layer
/// rule both read it.
pub fn layer_weights<S: crate::samples::Samples + ?Sized>(
    blending: &Blending,
    data: &S,
    x: f64,
    z: f64,
    grad_scale: [f32; 2],
) -> Blend {
    if !(x.is_finite() && z.is_finite()) || blending.layer_count == 0 {
        return Blend::new();
    }
    let (sx, sz) = (x / data.spacing() - 0.5, z / data.spacing() - 0.5);
    let (corners, t) = data.control_corners(sx, sz);
    // The height bands see the surface as drawn around the point (holes do not matter to them).
    let (h, du, dv) = data.patch_gradient(sx, sz);
    let sp = data.spacing() as f32;
    let (gx, gz) = (du / sp * grad_scale[0], dv / sp * grad_scale[1]);
    let ny = 1.0 / (1.0 + gx * gx + gz * gz).sqrt();
    blending.blend(corners, t, h, ny)
}

/// The layer drawn most over the square of terrain units centred at `centre` with half side `half`:
/// the blend's weights summed over a 5 × 5 grid of points (a collision tile's dominant ground; the first
/// of equals). None without layers or off the data.
pub fn dominant_layer<S: crate::samples::Samples + ?Sized>(
    blending: &Blending,
    data: &S,
    centre: [f64; 2],
    half: f64,
    grad_scale: [f32; 2],
) -> Option<usize> {
    const N: usize = 5;
    let mut sums = [0.0f32; MAX_LAYERS];
    for j in 0..N {
        for i in 0..N {
            let f = |k: usize| (k as f64 / (N - 1) as f64) * 2.0 - 1.0;
            let (x, z) = (centre[0] + f(i) * half, centre[1] + f(j) * half);
            for (layer, w) in layer_weights(blending, data, x, z, grad_scale) {
                if layer < MAX_LAYERS {
                    sums[layer] += w;
                }
            }
        }
    }
    let (best, w) = sums
        .iter()
        .enumerate()
        .fold((0, 0.0f32), |b, (i, &w)| if w > b.1 { (i, w) } else { b });
    (w > 0.0).then_some(best)
}

/// The control value of one splat-map texel (red, green, blue select layers first + 1 .. first + 3, black —
/// what is left — layer `first`): the two strongest of the four, renormalised. `None` for an all-zero texel
/// that still has black: layer `first` alone.
pub fn splat_to_control(rgb: [u8; 3], first: usize) -> u32 {
    let r = [rgb[0], rgb[1], rgb[2]].map(|v| f32::from(v) / 255.0);
    let black = (1.0 - r[0] - r[1] - r[2]).max(0.0);
    let weights = [black, r[0], r[1], r[2]];
    let mut order = [0usize, 1, 2, 3];
    // Stable: equal weights keep the lower layer first.
    order.sort_by(|a, b| weights[*b].total_cmp(&weights[*a]));
    let (a, b) = (order[0], order[1]);
    let sum = weights[a] + weights[b];
    let blend = if sum > 0.0 { weights[b] / sum } else { 0.0 };
    let slot = |i: usize| slot_of((first + i).min(MAX_LAYERS - 1));
    Paint {
        base: slot(a),
        overlay: slot(b),
        blend: (blend * 255.0).round() as u8,
    }
    .encode()
}

/// The splat-map texel (red, green, blue = weights of layers first + 1 .. first + 3) of a control value.
pub fn control_to_splat(c: u32, first: usize) -> [u8; 3] {
    let mut rgb = [0u8; 3];
    for (slot, w) in Paint::decode(c).weights() {
        let layer = usize::from(slot).wrapping_sub(1);
        if slot != AUTO && layer > first && layer <= first + 3 {
            let v = &mut rgb[layer - first - 1];
            *v = (f32::from(*v) + w * 255.0).round().min(255.0) as u8;
        }
    }
    rgb
}

/// Paints a whole terrain from an RGBA splat map (`width * depth * 4` bytes, row-major like the heights):
/// red, green, blue and black select layers `first + 1`, `first + 2`, `first + 3` and `first` (the
/// two strongest per sample are kept); a texel with alpha below 128 makes its sample a hole (holes are only
/// added, never cleared, so a map without alpha keeps the holes). Returns the changed region.
pub fn import_splat(
    t: &mut TerrainData,
    rgba: &[u8],
    first: i64,
) -> Result<Region, TerrainDataError> {
    if !(0..MAX_LAYERS as i64).contains(&first) {
        return Err(TerrainDataError::Layer(first));
    }
    let all = t.all();
    if rgba.len() != all.w * all.d * 4 {
        return Err(TerrainDataError::Length {
            property: "image",
            of: "size.x * size.y RGBA8 texels (the image must be as large as the terrain)",
            got: rgba.len() / 4,
            want: all.w * all.d,
        });
    }
    let first = first as usize;
    Ok(t.update_control(all, |k, c| {
        let px = &rgba[k * 4..k * 4 + 4];
        let hole = if px[3] < 128 { HOLE } else { c & HOLE };
        hole | splat_to_control([px[0], px[1], px[2]], first)
    }))
}

/// The splat map of layers `first .. first + 3` (RGBA8, `width * depth * 4` bytes): red, green, blue =
/// weights of layers `first + 1 .. first + 3`, black what is left; alpha 0 at holes, 255 elsewhere.
pub fn export_splat(t: &TerrainData, first: usize) -> Vec<u8> {
    let (w, d) = (t.width(), t.depth());
    let mut out = Vec::with_capacity(w * d * 4);
    for z in 0..d as i64 {
        for x in 0..w as i64 {
            let c = t.control(x, z);
            let [r, g, b] = control_to_splat(c, first);
            out.extend_from_slice(&[r, g, b, if c & HOLE != 0 { 0 } else { 255 }]);
        }
    }
    out
}

/// Reorients a normal-map texel `d` (rgb * 2 - 1: x along +U, y along the image's up = -V (OpenGL/Godot
/// convention), z out of the surface) onto the terrain surface with gradient (gx, gz), UV = world X/Z: the
/// change of basis into the surface's own frame (tangent (1, gx, 0), bitangent (0, gz, 1), normal), exact
/// for a heightfield. The shader twin is `tm_reorient`.
pub fn reorient(gx: f32, gz: f32, d: [f32; 3]) -> [f32; 3] {
    let norm = |v: [f32; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / l, v[1] / l, v[2] / l]
    };
    let t = norm([1.0, gx, 0.0]);
    let b = norm([0.0, gz, 1.0]);
    let n = norm([-gx, 1.0, -gz]);
    let (x, y, z) = (d[0], -d[1], d[2]);
    norm([
        t[0] * x + b[0] * y + n[0] * z,
        t[1] * x + b[1] * y + n[1] * z,
        t[2] * x + b[2] * y + n[2] * z,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::paint;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    #[test]
    fn a_tiles_dominant_layer_is_the_one_drawn_most_over_it() {
        // Layer 1 painted on the east 12 of 16 columns; layer 0 (the auto layer without bands) elsewhere.
        let mut t = TerrainData::flat(16, 16, 1.0);
        let control = (0..256)
            .map(|i| {
                if i % 16 >= 4 {
                    paint(0, slot_of(1), 1.0)
                } else {
                    0
                }
            })
            .collect();
        t.set_control_map(control).unwrap();
        let b = Blending {
            layer_count: 2,
            ..Blending::default()
        };
        assert_eq!(dominant_layer(&b, &t, [2.0, 8.0], 1.5, [1.0; 2]), Some(0));
        assert_eq!(dominant_layer(&b, &t, [10.0, 8.0], 4.0, [1.0; 2]), Some(1));
        // A tile over both: the larger share wins.
        assert_eq!(dominant_layer(&b, &t, [6.0, 8.0], 5.0, [1.0; 2]), Some(1));
        // No layers: none.
        assert_eq!(
            dominant_layer(&Blending::default(), &t, [8.0, 8.0], 4.0, [1.0; 2]),
            None
        );
    }

    #[test]
    fn height_bands_match_the_xna_tutorial() {
        // Sand at 0 (±8), grass at 12, rock at 20, snow at 30 (±6): its four bands and its normalisation.
        let bands = [
            (0, 0.0, 8.0),
            (1, 12.0, 6.0),
            (2, 20.0, 6.0),
            (3, 30.0, 6.0),
        ]
        .map(|(layer, centre, width)| Band {
            layer,
            centre,
            width,
        });
        let raw = |h: f32| bands.map(|b| (1.0 - (h - b.centre).abs() / b.width).clamp(0.0, 1.0));
        for h in [0.0, 3.0, 7.0, 9.0, 12.0, 15.5, 20.0, 24.0, 28.0, 30.0, 33.0] {
            let r = raw(h);
            let sum: f32 = r.iter().sum();
            let got = band_weights(&bands, h);
            let mut full = [0.0; 4];
            for (l, w) in got {
                full[l] += w;
            }
            for i in 0..4 {
                assert!(
                    close(full[i], r[i] / sum),
                    "h {h} layer {i}: {} vs {}",
                    full[i],
                    r[i] / sum
                );
            }
        }
        // h = 7: sand 0.125, grass 1/6 → 3/7 and 4/7.
        let w = band_weights(&bands, 7.0);
        assert_eq!(w[0].0, 1);
        assert!(close(w[0].1, 4.0 / 7.0) && close(w[1].1, 3.0 / 7.0));
        // Beyond every band (the tutorial would divide by zero): the nearest band.
        assert_eq!(band_weights(&bands, 50.0)[0], (3, 1.0));
        assert_eq!(band_weights(&bands, -20.0)[0], (0, 1.0));
    }

    #[test]
    fn blend_keeps_four_layers_and_sums_to_one() {
        let m = Blending {
            layer_count: 8,
            ..Blending::default()
        };
        // Eight different layers around the point: the four strongest survive.
        let corners = [(0, 1), (2, 3), (4, 5), (6, 7)]
            .map(|(a, b)| paint(paint(0, slot_of(a), 1.0), slot_of(b), 0.5));
        let b = m.blend(corners, [0.3, 0.3], 0.0, 1.0);
        assert_eq!(b.len(), 4);
        assert!(close(b.iter().map(|e| e.1).sum::<f32>(), 1.0));
        assert!(b.windows(2).all(|p| p[0].1 >= p[1].1));
        // Unpainted with no bands: layer 0; a layer beyond the material's count counts as auto.
        assert_eq!(m.blend([0; 4], [0.5, 0.5], 3.0, 1.0), vec![(0, 1.0)]);
        let far = paint(0, slot_of(20), 1.0);
        assert_eq!(m.blend([far; 4], [0.1, 0.9], 3.0, 1.0), vec![(0, 1.0)]);
        // Auto splits over the height bands.
        let banded = Blending {
            layer_count: 4,
            bands: vec![
                Band {
                    layer: 1,
                    centre: 0.0,
                    width: 10.0,
                },
                Band {
                    layer: 2,
                    centre: 10.0,
                    width: 10.0,
                },
            ],
            sharpness: 0.0,
            cliff: Some((3, 0.7)),
        };
        let b = banded.blend([0; 4], [0.0, 0.0], 2.5, 1.0);
        assert_eq!(b.len(), 2);
        assert!(close(b[0].1, 0.75) && b[0].0 == 1);
        // Steep ground: the cliff layer takes the auto share below the slope limit, blending over ±0.05.
        assert_eq!(banded.blend([0; 4], [0.0, 0.0], 2.5, 0.5), vec![(3, 1.0)]);
        let half = banded.blend([0; 4], [0.0, 0.0], 2.5, 0.7);
        assert!(close(half.iter().find(|e| e.0 == 3).unwrap().1, 0.5));
    }

    #[test]
    fn splat_texels_round_trip() {
        for rgb in [
            [0, 0, 0],
            [255, 0, 0],
            [0, 128, 127],
            [0, 0, 255],
            [60, 0, 0],
        ] {
            let c = splat_to_control(rgb, 4);
            assert_eq!(control_to_splat(c, 4), rgb, "{rgb:?}");
        }
        // Three channels keep the two strongest.
        let c = splat_to_control([100, 50, 105], 0);
        let p = Paint::decode(c);
        assert_eq!((p.base, p.overlay), (slot_of(3), slot_of(1)));
    }

    #[test]
    fn splat_maps_round_trip_through_the_terrain() {
        let mut t = TerrainData::flat(5, 4, 1.0);
        let mut rgba = Vec::new();
        for k in 0..20u8 {
            rgba.extend_from_slice(&[k * 12, if k % 3 == 0 { 255 - k * 12 } else { 0 }, 0, 255]);
        }
        rgba[7 * 4 + 3] = 0;
        import_splat(&mut t, &rgba, 3).unwrap();
        assert!(t.control(2, 1) & HOLE != 0);
        assert_eq!(export_splat(&t, 3), rgba);
        // Painted weights read back: sample 4 is red 48 (layer 4) over black (layer 3).
        let mut w = [0.0; 8];
        t.layer_weights_at(4.5, 0.5, &mut w);
        assert!(
            close(w[4], 48.0 / 255.0) && close(w[3], 207.0 / 255.0),
            "{w:?}"
        );
        assert!(import_splat(&mut t, &rgba[4..], 3).is_err());
        assert!(import_splat(&mut t, &rgba, 63).is_err());
    }

    /// The detail normals we ship (the change of basis into the heightfield's frame) against whiteout and
    /// RNM blending of the same detail onto the surface normal (details tilted up to 45°): all equal on flat
    /// ground; RNM (the shortest rotation from up to the surface normal) equals it on slopes along an axis
    /// and differs by up to 7° on diagonal ones; whiteout exaggerates by up to 28°. Printed with
    /// `--nocapture`; the docs quote it.
    #[test]
    fn change_of_basis_against_whiteout_and_rnm() {
        let norm = |v: [f32; 3]| {
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            [v[0] / l, v[1] / l, v[2] / l]
        };
        let angle = |a: [f32; 3], b: [f32; 3]| {
            (a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
                .clamp(-1.0, 1.0)
                .acos()
                .to_degrees()
        };
        for (gx, gz, limit_w, limit_r) in [
            (0.0f32, 0.0f32, 0.01f32, 0.01f32),
            (0.5, 0.0, 15.0, 0.1),
            (1.0, 0.0, 25.0, 0.1),
            (0.7, -0.7, 32.0, 8.0),
        ] {
            // The surface normal in the flat map's tangent space (x = +X, y = image up = -Z, z = +Y).
            let nw = norm([-gx, 1.0, -gz]);
            let n = [nw[0], -nw[2], nw[1]];
            let (mut worst_w, mut worst_r) = (0.0f32, 0.0f32);
            for i in 0..9 {
                for j in 0..9 {
                    let d = norm([(i as f32 - 4.0) * 0.25, (j as f32 - 4.0) * 0.25, 1.0]);
                    let ours = reorient(gx, gz, d);
                    let to_world = |r: [f32; 3]| norm([r[0], r[2], -r[1]]);
                    let whiteout = to_world(norm([n[0] + d[0], n[1] + d[1], n[2] * d[2]]));
                    let t = [n[0], n[1], n[2] + 1.0];
                    let u = [-d[0], -d[1], d[2]];
                    let k = (t[0] * u[0] + t[1] * u[1] + t[2] * u[2]) / t[2];
                    let rnm = to_world(norm([t[0] * k - u[0], t[1] * k - u[1], t[2] * k - u[2]]));
                    worst_w = worst_w.max(angle(ours, whiteout));
                    worst_r = worst_r.max(angle(ours, rnm));
                }
            }
            println!("slope ({gx}, {gz}): change of basis vs whiteout {worst_w:.2}°, vs RNM {worst_r:.2}°");
            assert!(
                worst_w <= limit_w && worst_r <= limit_r,
                "{worst_w} {worst_r}"
            );
        }
    }

    #[test]
    fn reorienting_onto_flat_ground_changes_nothing() {
        let d = [0.3f32, -0.2, 0.9];
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let r = reorient(0.0, 0.0, d);
        // x stays along X, the image's up (green) points to -Z, out of the map is up.
        let want = [d[0] / l, d[2] / l, -d[1] / l];
        for i in 0..3 {
            assert!(close(r[i], want[i]));
        }
        // The flat detail normal becomes the surface normal.
        let n = reorient(0.5, -0.25, [0.0, 0.0, 1.0]);
        let l = (0.25f32 + 1.0 + 0.0625).sqrt();
        assert!(close(n[0], -0.5 / l) && close(n[1], 1.0 / l) && close(n[2], 0.25 / l));
    }
}
