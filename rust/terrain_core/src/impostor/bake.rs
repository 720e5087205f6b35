//! Baking an octahedral impostor on the CPU: every frame is an orthographic view of the mesh rasterised
//! with a depth buffer (albedo with coverage, object-space normal, depth), so a bake needs no renderer
//! (a headless export or server bakes the same atlas as the editor) and is the same bytes on every run
//! and thread count: frames are independent and each is drawn by one thread in triangle order.

use super::{cross, dot, frame_basis, normalize, ImpostorError, ImpostorLayout};
use crate::progress::Progress;
use rayon::prelude::*;

/// A texture a surface samples (RGBA8, sRGB colour as Godot stores albedo textures).
#[derive(Clone, Debug, Default)]
pub struct BakeTexture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// What a surface looks like (StandardMaterial3D's albedo part).
#[derive(Clone, Debug)]
pub struct BakeMaterial {
    /// Albedo colour, sRGB, with alpha.
    pub albedo: [f32; 4],
    pub texture: Option<BakeTexture>,
    /// Vertex colours multiply the albedo (linear, as Godot takes them by default).
    pub vertex_color: bool,
    /// Pixels whose alpha is below this are not covered (alpha scissor; None: opaque).
    pub alpha_cut: Option<f32>,
}

impl Default for BakeMaterial {
    fn default() -> Self {
        Self {
            albedo: [1.0; 4],
            texture: None,
            vertex_color: false,
            alpha_cut: None,
        }
    }
}

/// One surface of a mesh in the bake's object space (a scene's parts already moved by their transforms).
#[derive(Clone, Debug, Default)]
pub struct BakeSurface {
    pub positions: Vec<[f32; 3]>,
    /// Per vertex; empty: the faces' own normals.
    pub normals: Vec<[f32; 3]>,
    /// Per vertex; empty: no texture lookups.
    pub uvs: Vec<[f32; 2]>,
    /// Per vertex, linear RGBA; empty: white.
    pub colors: Vec<[f32; 4]>,
    /// Triangles; empty: the positions in threes.
    pub indices: Vec<u32>,
    pub material: BakeMaterial,
}

/// A baked atlas: `layout.atlas_side()`² RGBA8 pixels each, frame (i, j) at pixel (i, j) × frame size.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedImpostor {
    pub layout: ImpostorLayout,
    /// The frames' centre in object space (the centre of the mesh's bounds).
    pub centre: [f32; 3],
    /// Half a frame's width in object units (the farthest vertex from `centre`).
    pub radius: f32,
    /// sRGB albedo; alpha 255 where the mesh covers the pixel, 0 elsewhere (colour spread there from
    /// the covered neighbours, so filtering does not darken the edges).
    pub albedo: Vec<u8>,
    /// Object-space normal as `n × 0.5 + 0.5` in RGB; A: depth towards the viewer, `d / radius × 0.5 +
    /// 0.5` (0.5 on the frame's plane through `centre`).
    pub normal_depth: Vec<u8>,
}

/// Bakes `surfaces` into an atlas of `layout`. Errors: `Empty` without a finite triangle, `Cancelled`
/// when `progress` asks (counted in frames).
pub fn bake(
    surfaces: &[BakeSurface],
    layout: ImpostorLayout,
    progress: &Progress,
) -> Result<BakedImpostor, ImpostorError> {
    let tris = triangles(surfaces);
    if tris.is_empty() {
        return Err(ImpostorError::Empty);
    }
    let (centre, radius) = bounds(&tris, surfaces);
    let textures: Vec<Option<LinearTexture>> = surfaces
        .iter()
        .map(|s| s.material.texture.as_ref().and_then(LinearTexture::new))
        .collect();
    let n = layout.frames();
    progress.set_total(u64::from(n * n));
    let frames: Vec<Frame> = (0..n * n)
        .into_par_iter()
        .map(|f| {
            if progress.is_cancelled() {
                return None;
            }
            let dir = layout.frame_direction(f % n, f / n);
            let mut fr = Frame::new(layout.frame_size());
            fr.draw(&tris, surfaces, &textures, frame_basis(dir), centre, radius);
            fr.dilate();
            progress.add(1);
            Some(fr)
        })
        .collect::<Option<Vec<_>>>()
        .ok_or(ImpostorError::Cancelled)?;
    let side = layout.atlas_side() as usize;
    let fs = layout.frame_size() as usize;
    let mut albedo = vec![0u8; side * side * 4];
    let mut normal_depth = vec![0u8; side * side * 4];
    for (f, fr) in frames.iter().enumerate() {
        let (i, j) = (f % n as usize, f / n as usize);
        for y in 0..fs {
            let dst = ((j * fs + y) * side + i * fs) * 4;
            albedo[dst..dst + fs * 4].copy_from_slice(&fr.albedo[y * fs * 4..(y + 1) * fs * 4]);
            normal_depth[dst..dst + fs * 4]
                .copy_from_slice(&fr.normal[y * fs * 4..(y + 1) * fs * 4]);
        }
    }
    Ok(BakedImpostor {
        layout,
        centre,
        radius,
        albedo,
        normal_depth,
    })
}

/// A triangle's corners: (surface, vertex indices).
type Tri = (usize, [usize; 3]);

/// Every triangle with finite corners, in surface and index order.
fn triangles(surfaces: &[BakeSurface]) -> Vec<Tri> {
    let mut out = Vec::new();
    for (si, s) in surfaces.iter().enumerate() {
        let n = s.positions.len();
        let ok = |i: usize| i < n && s.positions[i].iter().all(|v| v.is_finite());
        let mut push = |a: usize, b: usize, c: usize| {
            if ok(a) && ok(b) && ok(c) {
                out.push((si, [a, b, c]));
            }
        };
        if s.indices.is_empty() {
            for t in 0..n / 3 {
                push(t * 3, t * 3 + 1, t * 3 + 2);
            }
        } else {
            for t in s.indices.chunks_exact(3) {
                push(t[0] as usize, t[1] as usize, t[2] as usize);
            }
        }
    }
    out
}

/// The centre of the triangles' bounds and the farthest corner's distance from it.
fn bounds(tris: &[Tri], surfaces: &[BakeSurface]) -> ([f32; 3], f32) {
    let corners = || {
        tris.iter()
            .flat_map(move |&(si, idx)| idx.map(|i| surfaces[si].positions[i]))
    };
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for p in corners() {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let c: [f32; 3] = std::array::from_fn(|k| (lo[k] + hi[k]) * 0.5);
    let r = corners()
        .map(|p| {
            dot(
                [p[0] - c[0], p[1] - c[1], p[2] - c[2]],
                [p[0] - c[0], p[1] - c[1], p[2] - c[2]],
            )
        })
        .fold(0.0f32, f32::max)
        .sqrt();
    // A point or a needle still gets a frame a little wider than itself.
    (c, r.max(1e-3))
}

struct LinearTexture {
    w: usize,
    h: usize,
    px: Vec<[f32; 4]>,
}

impl LinearTexture {
    fn new(t: &BakeTexture) -> Option<Self> {
        let (w, h) = (t.width as usize, t.height as usize);
        if w == 0 || h == 0 || t.rgba.len() < w * h * 4 {
            return None;
        }
        let px = t
            .rgba
            .chunks_exact(4)
            .take(w * h)
            .map(|c| {
                [
                    srgb_to_linear(f32::from(c[0]) / 255.0),
                    srgb_to_linear(f32::from(c[1]) / 255.0),
                    srgb_to_linear(f32::from(c[2]) / 255.0),
                    f32::from(c[3]) / 255.0,
                ]
            })
            .collect();
        Some(Self { w, h, px })
    }

    /// Bilinear, repeating (Godot's default for StandardMaterial3D textures).
    fn sample(&self, uv: [f32; 2]) -> [f32; 4] {
        let x = uv[0] * self.w as f32 - 0.5;
        let y = uv[1] * self.h as f32 - 0.5;
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let wrap = |v: f32, n: usize| (v as i64).rem_euclid(n as i64) as usize;
        let (xa, xb) = (wrap(x0, self.w), wrap(x0 + 1.0, self.w));
        let (ya, yb) = (wrap(y0, self.h), wrap(y0 + 1.0, self.h));
        let p = |x: usize, y: usize| self.px[y * self.w + x];
        let mut out = [0.0; 4];
        for (k, o) in out.iter_mut().enumerate() {
            let top = p(xa, ya)[k] * (1.0 - fx) + p(xb, ya)[k] * fx;
            let bottom = p(xa, yb)[k] * (1.0 - fx) + p(xb, yb)[k] * fx;
            *o = top * (1.0 - fy) + bottom * fy;
        }
        out
    }
}

pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

pub(crate) fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn to_byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// One view being drawn.
struct Frame {
    size: usize,
    depth: Vec<f32>,
    albedo: Vec<u8>,
    normal: Vec<u8>,
}

impl Frame {
    fn new(size: u32) -> Self {
        let n = (size * size) as usize;
        Self {
            size: size as usize,
            depth: vec![f32::NEG_INFINITY; n],
            albedo: vec![0; n * 4],
            normal: vec![0; n * 4],
        }
    }

    /// Rasterises every triangle, nearest surface wins (no face culling: a closed mesh shows its front
    /// faces anyway, and leaves modelled as single cards show from both sides as most tree materials
    /// draw them).
    fn draw(
        &mut self,
        tris: &[Tri],
        surfaces: &[BakeSurface],
        textures: &[Option<LinearTexture>],
        basis: [[f32; 3]; 3],
        centre: [f32; 3],
        radius: f32,
    ) {
        let [right, up, fwd] = basis;
        let fs = self.size as f32;
        // Object space → (pixel x, pixel y, depth in radii towards the viewer).
        let project = |p: [f32; 3]| {
            let q = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
            [
                (dot(q, right) / radius + 1.0) * 0.5 * fs,
                (1.0 - dot(q, up) / radius) * 0.5 * fs,
                dot(q, fwd) / radius,
            ]
        };
        for &(si, idx) in tris {
            let s = &surfaces[si];
            let v = idx.map(|i| project(s.positions[i]));
            let area = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1])
                - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1]);
            if area.abs() < 1e-12 || !area.is_finite() {
                continue;
            }
            let face_n = {
                let [a, b, c] = idx.map(|i| s.positions[i]);
                normalize(cross(
                    [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                    [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
                ))
            };
            let lo_x = v.iter().map(|p| p[0]).fold(f32::INFINITY, f32::min);
            let hi_x = v.iter().map(|p| p[0]).fold(f32::NEG_INFINITY, f32::max);
            let lo_y = v.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min);
            let hi_y = v.iter().map(|p| p[1]).fold(f32::NEG_INFINITY, f32::max);
            let x0 = (lo_x - 0.5).ceil().max(0.0) as usize;
            let y0 = (lo_y - 0.5).ceil().max(0.0) as usize;
            let x1 = ((hi_x - 0.5).floor() as i64).min(self.size as i64 - 1);
            let y1 = ((hi_y - 0.5).floor() as i64).min(self.size as i64 - 1);
            if x1 < x0 as i64 || y1 < y0 as i64 {
                continue;
            }
            for py in y0..=y1 as usize {
                for px in x0..=x1 as usize {
                    let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
                    let w0 = ((v[1][0] - x) * (v[2][1] - y) - (v[2][0] - x) * (v[1][1] - y)) / area;
                    let w1 = ((v[2][0] - x) * (v[0][1] - y) - (v[0][0] - x) * (v[2][1] - y)) / area;
                    let w2 = 1.0 - w0 - w1;
                    if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                        continue;
                    }
                    let w = [w0, w1, w2];
                    let z = w0 * v[0][2] + w1 * v[1][2] + w2 * v[2][2];
                    let at = py * self.size + px;
                    if z <= self.depth[at] {
                        continue;
                    }
                    let Some(colour) = shade(s, textures[si].as_ref(), idx, w) else {
                        continue;
                    };
                    let mut n = if s.normals.len() == s.positions.len() {
                        let ns = idx.map(|i| s.normals[i]);
                        normalize(std::array::from_fn(|k| {
                            w0 * ns[0][k] + w1 * ns[1][k] + w2 * ns[2][k]
                        }))
                    } else {
                        face_n
                    };
                    // Seen from behind: the side facing the viewer (as Godot lights two-sided faces).
                    if dot(n, fwd) < 0.0 {
                        n = n.map(|c| -c);
                    }
                    self.depth[at] = z;
                    let o = at * 4;
                    self.albedo[o..o + 4].copy_from_slice(&[
                        to_byte(linear_to_srgb(colour[0])),
                        to_byte(linear_to_srgb(colour[1])),
                        to_byte(linear_to_srgb(colour[2])),
                        255,
                    ]);
                    self.normal[o..o + 4].copy_from_slice(&[
                        to_byte(n[0] * 0.5 + 0.5),
                        to_byte(n[1] * 0.5 + 0.5),
                        to_byte(n[2] * 0.5 + 0.5),
                        to_byte(z * 0.5 + 0.5),
                    ]);
                }
            }
        }
    }

    /// Spreads the covered pixels' colour and normal into the uncovered ones next to them (alpha stays
    /// 0), a few pixels deep: filtered and mipmapped reads at the silhouette then blend with the mesh's
    /// own colour rather than black.
    fn dilate(&mut self) {
        let n = self.size;
        let mut filled: Vec<bool> = (0..n * n).map(|i| self.albedo[i * 4 + 3] > 0).collect();
        for _ in 0..4 {
            let mut next = filled.clone();
            for y in 0..n {
                for x in 0..n {
                    let at = y * n + x;
                    if filled[at] {
                        continue;
                    }
                    let mut sum = [0u32; 7];
                    let mut count = 0;
                    for (dx, dy) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                        let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                        if nx < 0 || ny < 0 || nx >= n as i64 || ny >= n as i64 {
                            continue;
                        }
                        let o = ny as usize * n + nx as usize;
                        if !filled[o] {
                            continue;
                        }
                        for k in 0..3 {
                            sum[k] += u32::from(self.albedo[o * 4 + k]);
                            sum[3 + k] += u32::from(self.normal[o * 4 + k]);
                        }
                        sum[6] += u32::from(self.normal[o * 4 + 3]);
                        count += 1;
                    }
                    if count == 0 {
                        continue;
                    }
                    for k in 0..3 {
                        self.albedo[at * 4 + k] = (sum[k] / count) as u8;
                        self.normal[at * 4 + k] = (sum[3 + k] / count) as u8;
                    }
                    self.normal[at * 4 + 3] = (sum[6] / count) as u8;
                    next[at] = true;
                }
            }
            filled = next;
        }
    }
}

/// The linear colour of surface `s` at barycentric `w` of triangle `idx`, or None where its alpha is cut.
fn shade(
    s: &BakeSurface,
    tex: Option<&LinearTexture>,
    idx: [usize; 3],
    w: [f32; 3],
) -> Option<[f32; 3]> {
    let m = &s.material;
    let mut c = [
        srgb_to_linear(m.albedo[0]),
        srgb_to_linear(m.albedo[1]),
        srgb_to_linear(m.albedo[2]),
        m.albedo[3],
    ];
    if let (Some(t), true) = (tex, s.uvs.len() == s.positions.len()) {
        let uv = [0, 1]
            .map(|k| w[0] * s.uvs[idx[0]][k] + w[1] * s.uvs[idx[1]][k] + w[2] * s.uvs[idx[2]][k]);
        let t = t.sample(uv);
        for (ck, tk) in c.iter_mut().zip(t) {
            *ck *= tk;
        }
    }
    if m.vertex_color && s.colors.len() == s.positions.len() {
        let [a, b, d] = idx.map(|i| s.colors[i]);
        for (k, ck) in c.iter_mut().enumerate() {
            *ck *= w[0] * a[k] + w[1] * b[k] + w[2] * d[k];
        }
    }
    if m.alpha_cut.is_some_and(|cut| c[3] < cut) {
        return None;
    }
    Some([c[0], c[1], c[2]])
}
