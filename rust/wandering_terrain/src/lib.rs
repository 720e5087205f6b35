//! wandering_terrain: the GDExtension. Thin Godot classes over `terrain_core`; one module per class.

use godot::prelude::*;

mod probe;

struct WanderingTerrainExtension;

#[gdextension]
unsafe impl ExtensionLibrary for WanderingTerrainExtension {}
