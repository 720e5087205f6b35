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
        }
    };
}

pub(crate) use terrain_host_api;
