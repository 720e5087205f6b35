//! `cargo xtask textures`: writes the demo's ground textures (albedo + normal map per layer, tileable
//! 256² PNGs) into `godot-project/textures/`. Made from our own noise so the demo needs no downloads; the
//! PNGs are committed, this regenerates them.

use std::path::Path;

const SIZE: usize = 256;

/// A tileable value-noise lattice hash (period `p` cells).
fn hash(x: i64, y: i64, p: i64, seed: u32) -> f32 {
    let (x, y) = (x.rem_euclid(p) as u32, y.rem_euclid(p) as u32);
    let mut h = x
        .wrapping_mul(0x27d4_eb2d)
        .wrapping_add(y.wrapping_mul(0x1656_67b1))
        .wrapping_add(seed.wrapping_mul(0x9e37_79b9));
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    (h & 0xffff) as f32 / 65535.0
}

/// Smooth value noise at (u, v) in [0, 1)² with `p` cells per side, wrapping at the edges.
fn value(u: f32, v: f32, p: i64, seed: u32) -> f32 {
    let (x, y) = (u * p as f32, v * p as f32);
    let (ix, iy) = (x.floor() as i64, y.floor() as i64);
    let (fx, fy) = (x - ix as f32, y - iy as f32);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (s(fx), s(fy));
    let a = hash(ix, iy, p, seed) + (hash(ix + 1, iy, p, seed) - hash(ix, iy, p, seed)) * sx;
    let b = hash(ix, iy + 1, p, seed)
        + (hash(ix + 1, iy + 1, p, seed) - hash(ix, iy + 1, p, seed)) * sx;
    a + (b - a) * sy
}

/// Fractal sum of `octaves` of value noise starting at `p` cells, in [0, 1].
fn fbm(u: f32, v: f32, p: i64, octaves: u32, seed: u32) -> f32 {
    let (mut sum, mut amp, mut norm, mut cells) = (0.0, 1.0, 0.0, p);
    for o in 0..octaves {
        sum += value(u, v, cells, seed + o) * amp;
        norm += amp;
        amp *= 0.5;
        cells *= 2;
    }
    sum / norm
}

struct Look {
    name: &'static str,
    /// Height of the surface detail in [0, 1] at (u, v).
    height: fn(f32, f32) -> f32,
    /// Dark and light colour (sRGB), mixed by height and a colour noise.
    dark: [f32; 3],
    light: [f32; 3],
    /// Normal map strength.
    bump: f32,
}

fn looks() -> Vec<Look> {
    vec![
        Look {
            name: "sand",
            height: |u, v| {
                let warp = fbm(u, v, 4, 3, 11) * 6.0;
                0.6 * (0.5 + 0.5 * ((u * 12.0 + warp) * std::f32::consts::TAU).sin())
                    + 0.4 * fbm(u, v, 32, 3, 12)
            },
            dark: [0.70, 0.60, 0.40],
            light: [0.90, 0.82, 0.62],
            bump: 2.0,
        },
        Look {
            name: "grass",
            height: |u, v| 0.5 * fbm(u, v, 8, 4, 21) + 0.5 * fbm(u, v, 64, 2, 22),
            dark: [0.16, 0.30, 0.08],
            light: [0.42, 0.58, 0.20],
            bump: 3.0,
        },
        Look {
            name: "rock",
            height: |u, v| {
                let strata = (0.5
                    + 0.5 * ((v * 10.0 + fbm(u, v, 4, 3, 31) * 3.0) * std::f32::consts::TAU).sin())
                .powf(3.0);
                0.55 * fbm(u, v, 8, 5, 32) + 0.45 * strata
            },
            dark: [0.30, 0.27, 0.24],
            light: [0.62, 0.58, 0.52],
            bump: 6.0,
        },
        Look {
            name: "snow",
            height: |u, v| fbm(u, v, 6, 4, 41),
            dark: [0.80, 0.84, 0.90],
            light: [0.98, 0.98, 1.0],
            bump: 1.5,
        },
        Look {
            name: "road",
            height: |u, v| 0.7 * fbm(u, v, 48, 2, 51) + 0.3 * fbm(u, v, 6, 3, 52),
            dark: [0.25, 0.22, 0.20],
            light: [0.52, 0.47, 0.40],
            bump: 4.0,
        },
    ]
}

fn write_png(path: &Path, rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), SIZE as u32, SIZE as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(rgb).map_err(|e| e.to_string())
}

/// Writes `<name>_albedo.png` and `<name>_normal.png` for every look into `dir`.
pub fn generate(dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut written = Vec::new();
    for look in looks() {
        let h: Vec<f32> = (0..SIZE * SIZE)
            .map(|i| {
                let (x, y) = (i % SIZE, i / SIZE);
                (look.height)(x as f32 / SIZE as f32, y as f32 / SIZE as f32)
            })
            .collect();
        let at = |x: i64, y: i64| {
            h[(y.rem_euclid(SIZE as i64) * SIZE as i64 + x.rem_euclid(SIZE as i64)) as usize]
        };
        let mut albedo = Vec::with_capacity(SIZE * SIZE * 3);
        let mut normal = Vec::with_capacity(SIZE * SIZE * 3);
        for y in 0..SIZE as i64 {
            for x in 0..SIZE as i64 {
                let tint = fbm(x as f32 / SIZE as f32, y as f32 / SIZE as f32, 4, 2, 99);
                let t = (0.7 * at(x, y) + 0.3 * tint).clamp(0.0, 1.0);
                for c in 0..3 {
                    let v = look.dark[c] + (look.light[c] - look.dark[c]) * t;
                    albedo.push((v * 255.0).round() as u8);
                }
                // Tangent-space normal, OpenGL convention (green = up in the image = toward lower rows).
                let du = (at(x + 1, y) - at(x - 1, y)) * 0.5 * look.bump;
                let dv = (at(x, y + 1) - at(x, y - 1)) * 0.5 * look.bump;
                let n = [-du, dv, 1.0];
                let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                for c in n {
                    normal.push(((c / l * 0.5 + 0.5) * 255.0).round() as u8);
                }
            }
        }
        for (kind, data) in [("albedo", &albedo), ("normal", &normal)] {
            let path = dir.join(format!("{}_{kind}.png", look.name));
            write_png(&path, data)?;
            written.push(path.display().to_string());
        }
    }
    Ok(written)
}
