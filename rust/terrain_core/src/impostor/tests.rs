use super::*;
use crate::progress::Progress;

fn close(a: [f32; 3], b: [f32; 3], eps: f32) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= eps)
}

#[test]
fn the_layout_refuses_what_cannot_be_baked() {
    assert!(ImpostorLayout::new(12, 2048).is_ok());
    assert_eq!(ImpostorLayout::new(1, 2048), Err(ImpostorError::Frames(1)));
    assert_eq!(
        ImpostorLayout::new(33, 2048),
        Err(ImpostorError::Frames(33))
    );
    assert_eq!(ImpostorLayout::new(8, 0), Err(ImpostorError::Atlas(0)));
    assert_eq!(
        ImpostorLayout::new(8, 9000),
        Err(ImpostorError::Atlas(9000))
    );
    assert_eq!(
        ImpostorLayout::new(32, 256),
        Err(ImpostorError::FrameSize(256, 32))
    );
    let l = ImpostorLayout::new(12, 2048).unwrap();
    assert_eq!((l.frame_size(), l.atlas_side()), (170, 2040));
    assert!(ImpostorError::Frames(1)
        .to_string()
        .contains("frames must be in [2, 32]"));
}

#[test]
fn the_encoding_round_trips_over_the_hemisphere() {
    for i in 0..=20 {
        for j in 0..=20 {
            let uv = [i as f32 / 20.0, j as f32 / 20.0];
            let d = hemi_oct_decode(uv);
            assert!((dot(d, d) - 1.0).abs() < 1e-5 && d[1] >= 0.0);
            let back = hemi_oct_encode(d);
            assert!(
                (back[0] - uv[0]).abs() < 1e-5 && (back[1] - uv[1]).abs() < 1e-5,
                "{uv:?} {back:?}"
            );
        }
    }
    // The centre looks straight down; the corners and edges lie on the horizon.
    assert!(close(hemi_oct_decode([0.5, 0.5]), [0.0, 1.0, 0.0], 1e-6));
    assert!(hemi_oct_decode([0.0, 0.5])[1].abs() < 1e-6);
    assert!(hemi_oct_decode([1.0, 1.0])[1].abs() < 1e-6);
}

#[test]
fn a_frames_own_direction_blends_only_that_frame() {
    let l = ImpostorLayout::new(8, 512).unwrap();
    for i in 0..8 {
        for j in 0..8 {
            let d = l.frame_direction(i, j);
            let b = l.blend(d);
            let top = b
                .iter()
                .copied()
                .fold(([0, 0], -1.0f32), |a, x| if x.1 > a.1 { x } else { a });
            assert_eq!(top.0, [i, j]);
            assert!(top.1 > 0.999, "{i} {j} {b:?}");
        }
    }
}

#[test]
fn blend_weights_sum_to_one_and_pick_neighbours() {
    let l = ImpostorLayout::new(12, 2048).unwrap();
    for k in 0..500 {
        let a = k as f32 * 0.7;
        let e = (k % 17) as f32 / 17.0 * 1.5;
        let d = normalize([a.cos() * e.cos(), e.sin(), a.sin() * e.cos()]);
        let b = l.blend(d);
        let s: f32 = b.iter().map(|x| x.1).sum();
        assert!((s - 1.0).abs() < 1e-5);
        for (f, w) in b {
            assert!(f[0] < 12 && f[1] < 12 && (-1e-6..=1.0 + 1e-6).contains(&w));
            // Each frame used is near the view: within the grid's diagonal spacing.
            if w > 1e-3 {
                let fd = l.frame_direction(f[0], f[1]);
                assert!(dot(fd, d) > 0.7, "{d:?} {fd:?}");
            }
        }
    }
}

#[test]
fn frame_bases_are_orthonormal_and_face_the_viewer() {
    let l = ImpostorLayout::new(9, 512).unwrap();
    for i in 0..9 {
        for j in 0..9 {
            let d = l.frame_direction(i, j);
            let [r, u, f] = frame_basis(d);
            assert!(close(f, d, 1e-5));
            assert!(dot(r, u).abs() < 1e-5 && dot(r, f).abs() < 1e-5 && dot(u, f).abs() < 1e-5);
            assert!((dot(r, r) - 1.0).abs() < 1e-5 && (dot(u, u) - 1.0).abs() < 1e-5);
        }
    }
}

/// A box of half size `h` centred at `c`, one colour.
fn cube(c: [f32; 3], h: f32, colour: [f32; 4]) -> BakeSurface {
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = positions.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = c;
                p[axis] += sign * h;
                p[u] += a * h;
                p[v] += b * h;
                positions.push(p);
            }
            indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    BakeSurface {
        positions,
        indices,
        material: BakeMaterial {
            albedo: colour,
            ..BakeMaterial::default()
        },
        ..BakeSurface::default()
    }
}

#[test]
fn a_cube_covers_its_frames_and_is_the_same_bytes_twice() {
    let l = ImpostorLayout::new(4, 256).unwrap();
    let s = vec![cube([0.0, 1.0, 0.0], 1.0, [1.0, 0.0, 0.0, 1.0])];
    let a = bake(&s, l, &Progress::default()).unwrap();
    let b = bake(&s, l, &Progress::default()).unwrap();
    assert_eq!(a, b);
    assert!(close(a.centre, [0.0, 1.0, 0.0], 1e-6));
    assert!((a.radius - 3f32.sqrt()).abs() < 1e-5);
    let side = l.atlas_side() as usize;
    let fs = l.frame_size() as usize;
    for f in 0..16 {
        let (i, j) = (f % 4, f / 4);
        // The frame's centre pixel is covered, red, and its normal faces the viewer.
        let (x, y) = (i * fs + fs / 2, j * fs + fs / 2);
        let o = (y * side + x) * 4;
        assert_eq!(&a.albedo[o..o + 4], &[255, 0, 0, 255]);
        let n = [0, 1, 2].map(|k| f32::from(a.normal_depth[o + k]) / 255.0 * 2.0 - 1.0);
        let d = l.frame_direction(i as u32, j as u32);
        assert!(dot(n, d) > 0.5, "frame {i},{j}: n {n:?} d {d:?}");
        // Depth: the face seen is in front of the centre plane.
        assert!(a.normal_depth[o + 3] > 128);
        // The frame's corner is beyond the cube: uncovered.
        let o = ((j * fs) * side + i * fs) * 4;
        assert_eq!(a.albedo[o + 3], 0);
    }
}

#[test]
fn the_silhouette_is_where_the_mesh_projects() {
    // Straight from above a 2 × 2 cube (radius √3) covers 2/(2√3) of the frame's width.
    let l = ImpostorLayout::new(3, 300).unwrap();
    let s = vec![cube([0.0; 3], 1.0, [1.0; 4])];
    let a = bake(&s, l, &Progress::default()).unwrap();
    let fs = 100usize;
    let side = 300usize;
    let (i, j) = (1usize, 1usize);
    let covered = (0..fs)
        .flat_map(|y| (0..fs).map(move |x| (x, y)))
        .filter(|&(x, y)| a.albedo[((j * fs + y) * side + i * fs + x) * 4 + 3] > 0)
        .count();
    let want = (fs as f32 / 3f32.sqrt()).powi(2);
    assert!(
        (covered as f32 - want).abs() / want < 0.03,
        "{covered} vs {want}"
    );
}

#[test]
fn alpha_cut_and_textures_shape_what_is_covered() {
    let l = ImpostorLayout::new(2, 64).unwrap();
    let mut s = cube([0.0; 3], 1.0, [1.0; 4]);
    // A 2 × 1 texture: left half transparent, right half opaque green.
    s.material.texture = Some(BakeTexture {
        width: 2,
        height: 1,
        rgba: vec![255, 255, 255, 0, 0, 255, 0, 255],
    });
    s.material.alpha_cut = Some(0.5);
    s.uvs = s
        .positions
        .iter()
        .map(|p| [0.25 + 0.5 * f32::from(p[0] > 0.0), 0.5])
        .collect();
    let a = bake(&[s], l, &Progress::default()).unwrap();
    let covered: Vec<&[u8]> = a.albedo.chunks_exact(4).filter(|c| c[3] > 0).collect();
    assert!(!covered.is_empty());
    // Where the texture's alpha is at least half, green is at least half the colour.
    assert!(
        covered.iter().all(|c| c[1] > 200 && c[0] <= 188),
        "only the green half is covered"
    );
    let full = a
        .albedo
        .chunks_exact(4)
        .filter(|c| c[1] == 255 && c[0] == 0)
        .count();
    assert!(full > 0, "the opaque half is plain green");
    // The side facing -X (transparent) is not covered in the frame looking from -X.
    let pure_white = a
        .albedo
        .chunks_exact(4)
        .filter(|c| c[3] > 0 && c[0] == 255)
        .count();
    assert_eq!(pure_white, 0);
}

#[test]
fn bad_input_is_refused() {
    let l = ImpostorLayout::new(4, 256).unwrap();
    assert_eq!(
        bake(&[], l, &Progress::default()),
        Err(ImpostorError::Empty)
    );
    let nan = BakeSurface {
        positions: vec![[f32::NAN; 3]; 3],
        ..BakeSurface::default()
    };
    assert_eq!(
        bake(&[nan], l, &Progress::default()),
        Err(ImpostorError::Empty)
    );
    let p = Progress::default();
    p.cancel();
    let s = vec![cube([0.0; 3], 1.0, [1.0; 4])];
    assert_eq!(bake(&s, l, &p), Err(ImpostorError::Cancelled));
}
