//! The surface cache's script method and settings glue both terrain nodes share (`look/surface_cache.rs`),
//! written once: gdext registers methods per class, hence a macro (as `terrain_host_api!`). The class
//! provides `attach_surface_cache` and `detach_surface_cache` (what a new cache needs differs per node).

macro_rules! surface_cache_api {
    ($class:ident) => {
        #[godot_api(secondary)]
        impl $class {
            /// The surface cache's atlas (null while the cache is off or the node is outside the tree):
            /// levels in rows of `surface_cache_size`, three planes side by side — albedo (sRGB) and
            /// roughness, the world normal (× 0.5 + 0.5) and coverage, the height's f32 bytes. Show it in a
            /// TextureRect to see the cache.
            #[func]
            pub(crate) fn get_surface_cache_texture(
                &self,
            ) -> Option<Gd<godot::classes::Texture2D>> {
                self.surface_cache
                    .as_ref()
                    .and_then(|c| c.texture())
                    .map(|t| t.upcast())
            }
        }

        impl $class {
            pub(crate) fn enable_surface_cache(&mut self, v: bool) {
                self.surface_cache_enabled = v;
                self.detach_surface_cache();
                self.attach_surface_cache();
            }

            pub(crate) fn configure_surface_cache(&mut self, levels: i64, size: i64) {
                if $crate::look::surface_cache::settings_ok(stringify!($class), levels, size) {
                    (self.surface_cache_levels, self.surface_cache_size) = (levels, size);
                    self.detach_surface_cache();
                    self.attach_surface_cache();
                }
            }

            /// Every material the node sets its shader parameters on: its own, the debug view's, the
            /// cache's fill.
            pub(crate) fn shader_materials(
                &mut self,
            ) -> impl Iterator<Item = &mut Gd<godot::classes::ShaderMaterial>> {
                self.material
                    .iter_mut()
                    .chain(self.debug_material.iter_mut())
                    .chain(
                        self.surface_cache
                            .iter_mut()
                            .map($crate::look::surface_cache::SurfaceCache::material_mut),
                    )
            }
        }
    };
}

pub(crate) use surface_cache_api;
