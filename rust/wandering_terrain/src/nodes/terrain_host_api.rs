//! Script methods both terrain nodes share through the terrain contract (`surface.rs`), written once:
//! gdext registers methods per class, hence a macro (as `collision_api!`).

macro_rules! terrain_host_api {
    ($class:ident) => {
        #[godot_api(secondary)]
        impl $class {
            /// World position → this terrain's own space (samples × spacing from its first sample; the
            /// node's placement undone: a TerrainNode's position and scale, a WanderingTerrain's X/Z
            /// offset), and the origin shift added back (`TerrainNode.shift_origin`). What `TerrainData`
            /// and `TerrainRegions` calls take.
            #[func]
            pub(crate) fn to_terrain_position(&self, world: Vector3) -> Vector3 {
                use $crate::surface::TerrainHost;
                let t = self.terrain_surface().terrain_of(world);
                Vector3::new(t[0] as f32, t[1] as f32, t[2] as f32)
            }

            /// Height of the drawn terrain under world point `position` (its X and Z; Y is ignored): the
            /// same as `get_height(Vector2(position.x, position.z))`, for a `global_position` as it is.
            #[func]
            pub(crate) fn get_height_at(&self, position: Vector3) -> f32 {
                self.get_height(Vector2::new(position.x, position.z))
            }

            /// What the ground is under world point `position` (its X and Z), for footsteps, dust or grip:
            /// `{surface: StringName, layer: int, weights: PackedFloat32Array, friction: float,
            /// bounce: float}` — the layer the shader draws most there (`layer`; -1 without a
            /// TerrainMaterial or data), its `TerrainLayer.surface_name` (`&""` without one), the
            /// weights of every layer (`get_layer_weights`), and the friction and bounce of the layer's
            /// `physics_material` (else the collision's, else 1 and 0). Answered from the data: no
            /// physics query.
            #[func]
            pub(crate) fn get_surface(&self, position: Vector3) -> VarDictionary {
                let at = Vector2::new(position.x, position.z);
                self.ground_at(at).to_dictionary(self.get_layer_weights(at))
            }

            /// `get_surface(position)["surface"]` without building a Dictionary (a footstep each frame).
            #[func]
            pub(crate) fn get_surface_name(&self, position: Vector3) -> StringName {
                self.surface_name_at(Vector2::new(position.x, position.z))
            }

            /// `get_surface` where a ray hit (the Dictionary `PhysicsDirectSpaceState3D.intersect_ray`
            /// returns; its `position`). An empty `hit` (the ray hit nothing) gives an empty Dictionary.
            #[func]
            pub(crate) fn get_surface_at_hit(&self, hit: VarDictionary) -> VarDictionary {
                match hit.get("position").map(|p| p.try_to::<Vector3>()) {
                    Some(Ok(p)) => self.get_surface(p),
                    None if hit.is_empty() => VarDictionary::new(),
                    _ => {
                        godot_error!(
                            "{}.get_surface_at_hit: hit must be a ray's result with a Vector3 `position` (or empty), got {hit}",
                            stringify!($class)
                        );
                        VarDictionary::new()
                    }
                }
            }
        }
    };
}

pub(crate) use terrain_host_api;
