//! The atlases' mipmaps, made here rather than by the engine: colour averaged by coverage (the
//! transparent texels' spread colour does not bleed in), and the coverage of every level kept at the
//! base level's for the card's alpha test (after Castaño's "alpha test coverage preserving" mipmaps:
//! each level's alpha is scaled so as many texels pass the test as in the base). Plain box-filtered
//! alpha fades a far tree to nothing: a cone covering a third of its frame averages below the threshold
//! within a few levels.

/// The sizes of a full chain down to 1×1 (each level half the last, rounded down, at least 1), as
/// Godot's `Image` lays mipmaps out.
pub fn chain(side: u32) -> Vec<u32> {
    let mut out = vec![side];
    let mut s = side;
    while s > 1 {
        s = (s / 2).max(1);
        out.push(s);
    }
    out
}

/// The deepest level worth sampling for frames of `frame_size` pixels: frames of 4 × 4 texels. Below,
/// a frame is too few texels to keep a shape's coverage under an alpha test (a far tree would vanish
/// from most views); the card shader clamps its level here.
pub fn max_level(frame_size: u32) -> u32 {
    (frame_size.max(4) / 4).ilog2()
}

/// `base` (RGBA8, `side`², `frames` × `frames` frames) followed by every mip level. Without `weights`
/// (the albedo): RGB averaged by alpha, and each frame's alpha scaled to keep its share of texels at or
/// above `cut`. With them (the normal-depth atlas): a box filter weighted by the albedo's alpha.
pub fn with_mips(base: &[u8], side: u32, frames: u32, weights: Option<&[u8]>, cut: f32) -> Vec<u8> {
    let sizes = chain(side);
    let total: usize = sizes.iter().map(|&s| (s * s * 4) as usize).sum();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(base);
    let mut level = base.to_vec();
    let mut wlevel: Vec<u8> = weights.map_or_else(|| alpha_of(base), <[u8]>::to_vec);
    let targets = frame_shares(base, side as usize, frames as usize, cut);
    for pair in sizes.windows(2) {
        let (src, dst) = (pair[0] as usize, pair[1] as usize);
        let (next, wnext) = down(&level, &wlevel, src, dst, weights.is_none());
        level = next;
        wlevel = wnext;
        if weights.is_none() {
            keep_coverage(&mut level, dst, frames as usize, &targets, cut);
            wlevel = alpha_of(&level);
        }
        out.extend_from_slice(&level);
    }
    out
}

/// Each frame's share of texels at or above `cut` (row by row of frames).
fn frame_shares(level: &[u8], side: usize, frames: usize, cut: f32) -> Vec<f32> {
    let fs = side / frames;
    (0..frames * frames)
        .map(|f| {
            let alpha: Vec<u8> = frame_texels(side, fs, f % frames, f / frames)
                .map(|i| level[i * 4 + 3])
                .collect();
            passing(&alpha, cut)
        })
        .collect()
}

/// The texel indices of frame (i, j) at a level of side `side` with frames of `fs` texels.
fn frame_texels(side: usize, fs: usize, i: usize, j: usize) -> impl Iterator<Item = usize> {
    (0..fs).flat_map(move |y| (0..fs).map(move |x| (j * fs + y) * side + i * fs + x))
}

fn alpha_of(px: &[u8]) -> Vec<u8> {
    px.chunks_exact(4).map(|c| c[3]).collect()
}

/// The share of texels whose alpha is at least `cut`.
fn passing(alpha: &[u8], cut: f32) -> f32 {
    let c = (cut * 255.0).ceil() as u8;
    alpha.iter().filter(|&&a| a >= c).count() as f32 / alpha.len().max(1) as f32
}

/// One level down: each texel the 2×2 (clamped) texels above it, colour weighted by `w` (the albedo's
/// own alpha, or the albedo's coverage for the normal atlas), alpha averaged.
fn down(src: &[u8], w: &[u8], s: usize, d: usize, own_alpha: bool) -> (Vec<u8>, Vec<u8>) {
    let mut out = vec![0u8; d * d * 4];
    let mut wout = vec![0u8; d * d];
    for y in 0..d {
        for x in 0..d {
            let mut acc = [0u32; 4];
            let mut plain = [0u32; 4];
            let mut wsum = 0u32;
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (sx, sy) = ((2 * x + dx).min(s - 1), (2 * y + dy).min(s - 1));
                let i = sy * s + sx;
                let wi = u32::from(w[i]);
                for k in 0..4 {
                    acc[k] += u32::from(src[i * 4 + k]) * wi;
                    plain[k] += u32::from(src[i * 4 + k]);
                }
                wsum += wi;
            }
            let o = (y * d + x) * 4;
            for k in 0..4 {
                out[o + k] = if wsum > 0 && (k < 3 || !own_alpha) {
                    ((acc[k] + wsum / 2) / wsum) as u8
                } else {
                    ((plain[k] + 2) / 4) as u8
                };
            }
            wout[y * d + x] = ((wsum + 2) / 4) as u8;
        }
    }
    (out, wout)
}

/// Scales each frame's alpha at this level (side `side`) so its share of texels at or above `cut` is
/// its base share (or as near as a scale reaches); the whole level at once when frames do not divide it.
fn keep_coverage(level: &mut [u8], side: usize, frames: usize, targets: &[f32], cut: f32) {
    if !side.is_multiple_of(frames) || side / frames == 0 {
        let target = targets.iter().sum::<f32>() / targets.len().max(1) as f32;
        let all: Vec<usize> = (0..side * side).collect();
        scale_alpha(level, &all, target, cut);
        return;
    }
    let fs = side / frames;
    for (f, &target) in targets.iter().enumerate() {
        let texels: Vec<usize> = frame_texels(side, fs, f % frames, f / frames).collect();
        scale_alpha(level, &texels, target, cut);
    }
}

/// Scales the alpha of `texels` so the share at or above `cut` is `target`, as near as a scale reaches.
fn scale_alpha(level: &mut [u8], texels: &[usize], target: f32, cut: f32) {
    let alpha: Vec<u8> = texels.iter().map(|&i| level[i * 4 + 3]).collect();
    let share = |scale: f32| {
        let c = cut * 255.0;
        alpha.iter().filter(|&&a| f32::from(a) * scale >= c).count() as f32 / alpha.len() as f32
    };
    let (mut lo, mut hi) = (0.0f32, 16.0f32);
    for _ in 0..24 {
        let mid = 0.5 * (lo + hi);
        if share(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // The nearer of the two scales around the target (a frame of few texels jumps past it).
    let scale = if (share(lo) - target).abs() < (share(hi) - target).abs() {
        lo
    } else {
        hi
    };
    for &i in texels {
        let a = &mut level[i * 4 + 3];
        *a = (f32::from(*a) * scale).round().min(255.0) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_stops_at_frames_of_four_texels() {
        assert_eq!(max_level(128), 5);
        assert_eq!(max_level(170), 5);
        assert_eq!(max_level(16), 2);
    }

    #[test]
    fn the_chain_is_godots() {
        assert_eq!(chain(8), vec![8, 4, 2, 1]);
        assert_eq!(chain(2040)[..4], [2040, 1020, 510, 255]);
        assert_eq!(*chain(2040).last().unwrap(), 1);
    }

    #[test]
    fn a_small_shape_keeps_its_coverage_down_the_levels() {
        // A 64² frame with a 20 × 20 opaque square (10 % covered).
        let side = 64u32;
        let mut base = vec![0u8; 64 * 64 * 4];
        for y in 22..42 {
            for x in 22..42 {
                base[(y * 64 + x) * 4..(y * 64 + x) * 4 + 4].copy_from_slice(&[0, 200, 0, 255]);
            }
        }
        let all = with_mips(&base, side, 1, None, 0.5);
        let sizes = chain(side);
        assert_eq!(
            all.len(),
            sizes.iter().map(|s| (s * s * 4) as usize).sum::<usize>()
        );
        let mut at = 0;
        // Down to 16²: below, whole texels are a coarse share of the frame.
        for &s in &sizes[..3] {
            let n = (s * s * 4) as usize;
            let level = &all[at..at + n];
            let share = passing(&alpha_of(level), 0.5);
            assert!((share - 0.0977).abs() < 0.04, "level {s}: {share}");
            // No black bleeds into the colour of covered texels.
            assert!(level
                .chunks_exact(4)
                .filter(|c| c[3] >= 128)
                .all(|c| c[1] == 200));
            at += n;
        }
    }
}
