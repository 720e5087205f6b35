//! The interaction field's script methods and settings glue both terrain nodes share
//! (`interaction/interaction_field.rs`), written once: gdext registers methods per class, hence a macro
//! (as `terrain_host_api!`). The class has the fields `interaction_enabled`, `interaction_size`,
//! `interaction_texel_size`, `interaction_recovery_time`, `interaction` and `ground_heights` (world heights at world X/Z points, NaN where unknown).

macro_rules! interaction_api {
    ($class:ident) => {
        #[godot_api(secondary)]
        impl $class {
            /// How trampled the ground is at world `position` (X/Z): 0 untouched … 1 pressed flat just
            /// now by a `TerrainInteractor`, recovering linearly over `interaction_recovery_time`; what the
            /// grass and the deformable layers draw. 0 outside the field's window (`interaction_size` ×
            /// `interaction_texel_size` around the camera) and while the field is off.
            #[func]
            pub(crate) fn get_trample(&self, position: Vector3) -> f32 {
                self.interaction
                    .as_ref()
                    .map_or(0.0, |f| f.trample(position))
            }

            /// The field texture (null while the field is off or outside the tree): RGBA8, each texel the
            /// moment its ground will have recovered (1/64 s units in red, green, blue), toroidal around
            /// the camera. `interaction_field.gdshaderinc` reads it; shown in a TextureRect it is noise.
            #[func]
            pub(crate) fn get_interaction_texture(&self) -> Option<Gd<godot::classes::Texture2D>> {
                self.interaction
                    .as_ref()
                    .and_then(|f| f.texture())
                    .map(|t| t.upcast())
            }

            /// Forgets every press at once (a new level, a respawn).
            #[func]
            pub(crate) fn clear_interaction(&mut self) {
                if let Some(f) = self.interaction.as_mut() {
                    f.clear();
                }
            }
        }

        impl $class {
            pub(crate) fn enable_interaction(&mut self, v: bool) {
                self.interaction_enabled = v;
                self.detach_interaction();
                self.attach_interaction();
            }

            pub(crate) fn configure_interaction(&mut self, size: i64, texel: f64, recovery: f64) {
                use $crate::interaction::interaction_field::settings_ok;
                if settings_ok(stringify!($class), size, texel, recovery) {
                    self.interaction_size = size;
                    self.interaction_texel_size = texel;
                    self.interaction_recovery_time = recovery;
                    self.detach_interaction();
                    self.attach_interaction();
                }
            }

            pub(crate) fn attach_interaction(&mut self) {
                if self.interaction.is_some() {
                    return;
                }
                self.interaction =
                    $crate::interaction::interaction_field::InteractionField::made_for(
                        &self.base().clone().upcast(),
                        self.interaction_enabled,
                        self.interaction_size,
                        self.interaction_texel_size,
                        self.interaction_recovery_time,
                    );
                let id = self.base().instance_id();
                $crate::interaction::terrain_interactor::register_field(
                    id,
                    self.interaction.is_some(),
                );
            }

            pub(crate) fn detach_interaction(&mut self) {
                if let Some(mut f) = self.interaction.take() {
                    f.detach();
                    let id = self.base().instance_id();
                    $crate::interaction::terrain_interactor::register_field(id, false);
                }
            }

            /// Whether the field needs the process pass (an interactor in the tree, or a press recovering);
            /// a WanderingTerrain never sleeps.
            #[allow(dead_code)]
            pub(crate) fn interaction_busy(&self) -> bool {
                self.interaction.as_ref().is_some_and(|f| f.is_busy())
            }

            /// The process pass: time moves on by `dt`, the window follows world point `centre`, the
            /// interactors press.
            pub(crate) fn update_interaction(&mut self, dt: f64, centre: Vector3) {
                let Some(mut f) = self.interaction.take() else {
                    return;
                };
                let node = self.base().clone().upcast::<Node3D>();
                f.update(&node, dt, centre, |xz, out| self.ground_heights(xz, out));
                self.interaction = Some(f);
            }
        }
    };
}

pub(crate) use interaction_api;
