//! What marks the ground: `TerrainInteractor` nodes press the interaction field a terrain node keeps
//! around the camera (`interaction_field.rs`, over `terrain_core::interaction_field`).

pub(crate) mod interaction_field;
pub(crate) mod terrain_interactor;
