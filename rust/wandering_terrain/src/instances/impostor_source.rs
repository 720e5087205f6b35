//! What an impostor is baked from: a `TerrainInstanceMesh`'s nearest LOD (its `mesh`, or its scene's first
//! MeshInstance3D with the node's transform and material overrides) as the core baker's surfaces, and a
//! hash of it (geometry, material values, textures by identity) that tells when the bake is stale.

use godot::classes::base_material_3d::{Flags, TextureParam, Transparency};
use godot::classes::image::Format;
use godot::classes::mesh::{ArrayType, PrimitiveType};
use godot::classes::{
    ArrayMesh, BaseMaterial3D, Material, Mesh, MeshInstance3D, Node, Node3D, PackedScene,
    ShaderMaterial, Texture2D,
};
use godot::prelude::*;
use std::hash::{Hash, Hasher};
use terrain_core::impostor::{BakeMaterial, BakeSurface, BakeTexture};

/// A mesh to bake, with its place and the materials that override its own (a scene node's).
pub struct Source {
    pub mesh: Gd<Mesh>,
    pub transform: Transform3D,
    pub material_override: Option<Gd<Material>>,
    pub surface_overrides: Vec<Option<Gd<Material>>>,
}

impl Source {
    pub fn of_mesh(mesh: Gd<Mesh>) -> Self {
        Self {
            mesh,
            transform: Transform3D::IDENTITY,
            material_override: None,
            surface_overrides: Vec::new(),
        }
    }

    /// The first MeshInstance3D with a mesh of `scene` (tree order), placed relative to the scene's root.
    pub fn of_scene(scene: &Gd<PackedScene>) -> Result<Self, String> {
        let root = scene
            .instantiate()
            .ok_or_else(|| format!("cannot instantiate scene {}", scene.get_path()))?;
        let found = first_mesh_instance(&root, &root, Transform3D::IDENTITY);
        root.free();
        found.ok_or_else(|| {
            format!(
                "scene {} has no MeshInstance3D with a mesh",
                scene.get_path()
            )
        })
    }

    fn material(&self, surface: i32) -> Option<Gd<Material>> {
        self.material_override
            .clone()
            .or_else(|| {
                self.surface_overrides
                    .get(surface as usize)
                    .cloned()
                    .flatten()
            })
            .or_else(|| self.mesh.surface_get_material(surface))
    }

    /// The surfaces as the baker takes them (triangles only; points and lines are skipped). With
    /// `texels`, textures are read back as RGBA8 (a bake); without, only identified (a staleness hash).
    pub fn surfaces(&self, texels: bool) -> Vec<BakeSurface> {
        let mut out = Vec::new();
        let array_mesh = self.mesh.clone().try_cast::<ArrayMesh>().ok();
        for s in 0..self.mesh.get_surface_count() {
            if let Some(am) = &array_mesh {
                if am.surface_get_primitive_type(s) != PrimitiveType::TRIANGLES {
                    continue;
                }
            }
            let arrays = self.mesh.surface_get_arrays(s);
            let get = |t: ArrayType| arrays.get(t.ord() as usize).unwrap_or_default();
            let xf = self.transform;
            let nb = xf.basis.inverse().transposed();
            let positions: Vec<[f32; 3]> = get(ArrayType::VERTEX)
                .try_to::<PackedVector3Array>()
                .map(|a| a.as_slice().iter().map(|v| (xf * *v).to_array()).collect())
                .unwrap_or_default();
            let normals = get(ArrayType::NORMAL)
                .try_to::<PackedVector3Array>()
                .map(|a| {
                    a.as_slice()
                        .iter()
                        .map(|n| (nb * *n).normalized_or_zero().to_array())
                        .collect()
                })
                .unwrap_or_default();
            let uvs = get(ArrayType::TEX_UV)
                .try_to::<PackedVector2Array>()
                .map(|a| a.as_slice().iter().map(|v| [v.x, v.y]).collect())
                .unwrap_or_default();
            let colors = get(ArrayType::COLOR)
                .try_to::<PackedColorArray>()
                .map(|a| a.as_slice().iter().map(|c| [c.r, c.g, c.b, c.a]).collect())
                .unwrap_or_default();
            let indices = get(ArrayType::INDEX)
                .try_to::<PackedInt32Array>()
                .map(|a| a.as_slice().iter().map(|&i| i.max(0) as u32).collect())
                .unwrap_or_default();
            out.push(BakeSurface {
                positions,
                normals,
                uvs,
                colors,
                indices,
                material: bake_material(self.material(s), texels),
            });
        }
        out
    }

    /// A hash of what a bake reads (same build: same value), textures by identity.
    pub fn hash(&self) -> i64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for s in self.surfaces(false) {
            hash_surface(&s, &mut h);
        }
        for s in 0..self.mesh.get_surface_count() {
            if let Some(t) = self.material(s).as_ref().and_then(albedo_texture) {
                t.instance_id().to_i64().hash(&mut h);
                t.get_rid().to_u64().hash(&mut h);
            }
        }
        h.finish() as i64
    }
}

fn hash_surface(s: &BakeSurface, h: &mut impl Hasher) {
    let bits = |v: &[f32], h: &mut dyn Hasher| {
        for x in v {
            h.write_u32(x.to_bits());
        }
    };
    bits(s.positions.as_flattened(), h);
    bits(s.normals.as_flattened(), h);
    bits(s.uvs.as_flattened(), h);
    bits(s.colors.as_flattened(), h);
    s.indices.hash(h);
    let m = &s.material;
    bits(&m.albedo, h);
    m.vertex_color.hash(h);
    m.alpha_cut.map(f32::to_bits).hash(h);
}

fn first_mesh_instance(root: &Gd<Node>, n: &Gd<Node>, parent: Transform3D) -> Option<Source> {
    let here = match n.clone().try_cast::<Node3D>() {
        Ok(n3) if n != root => parent * n3.get_transform(),
        _ => parent,
    };
    if let Ok(mi) = n.clone().try_cast::<MeshInstance3D>() {
        if let Some(mesh) = mi.get_mesh() {
            let count = mesh.get_surface_count();
            return Some(Source {
                surface_overrides: (0..count)
                    .map(|s| mi.get_surface_override_material(s))
                    .collect(),
                material_override: mi.get_material_override(),
                mesh,
                transform: here,
            });
        }
    }
    n.get_children()
        .iter_shared()
        .find_map(|k| first_mesh_instance(root, &k, here))
}

fn albedo_texture(m: &Gd<Material>) -> Option<Gd<Texture2D>> {
    if let Ok(b) = m.clone().try_cast::<BaseMaterial3D>() {
        return b.get_texture(TextureParam::ALBEDO);
    }
    let s = m.clone().try_cast::<ShaderMaterial>().ok()?;
    ["texture_albedo", "albedo_texture"]
        .into_iter()
        .find_map(|p| s.get_shader_parameter(p).try_to::<Gd<Texture2D>>().ok())
}

/// StandardMaterial3D's albedo, texture, vertex colour and alpha cut; a ShaderMaterial's `albedo` /
/// `albedo_color` and `texture_albedo` / `albedo_texture` parameters when it has them; white otherwise.
fn bake_material(m: Option<Gd<Material>>, texels: bool) -> BakeMaterial {
    let mut out = BakeMaterial::default();
    let Some(m) = m else {
        return out;
    };
    if let Ok(b) = m.clone().try_cast::<BaseMaterial3D>() {
        let c = b.get_albedo();
        out.albedo = [c.r, c.g, c.b, c.a];
        out.vertex_color = b.get_flag(Flags::ALBEDO_FROM_VERTEX_COLOR);
        let t = b.get_transparency();
        out.alpha_cut = if t == Transparency::ALPHA_SCISSOR {
            Some(b.get_alpha_scissor_threshold())
        } else if t == Transparency::DISABLED {
            None
        } else {
            Some(0.5)
        };
    } else if let Ok(s) = m.clone().try_cast::<ShaderMaterial>() {
        for p in ["albedo", "albedo_color"] {
            if let Ok(c) = s.get_shader_parameter(p).try_to::<Color>() {
                out.albedo = [c.r, c.g, c.b, c.a];
                break;
            }
        }
    }
    if texels {
        out.texture = albedo_texture(&m).and_then(texels_of);
        if out
            .texture
            .as_ref()
            .is_some_and(|t| t.rgba.chunks_exact(4).any(|p| p[3] < 255))
            && out.alpha_cut.is_none()
            && m.clone().try_cast::<ShaderMaterial>().is_ok()
        {
            out.alpha_cut = Some(0.5);
        }
    }
    out
}

/// A texture's pixels as RGBA8 (decompressed, mipmaps dropped).
fn texels_of(t: Gd<Texture2D>) -> Option<BakeTexture> {
    let mut img = t.get_image()?;
    if img.is_compressed() {
        img.decompress();
    }
    if img.has_mipmaps() {
        img.clear_mipmaps();
    }
    if img.get_format() != Format::RGBA8 {
        img.convert(Format::RGBA8);
    }
    Some(BakeTexture {
        width: img.get_width() as u32,
        height: img.get_height() as u32,
        rgba: img.get_data().to_vec(),
    })
}
