//! wandering_terrain: the GDExtension. Thin Godot classes over `terrain_core`; one module per class,
//! named like the class and like the `terrain_core` module it wraps.

use godot::prelude::*;

mod clipmap_data;
mod collision;
mod follow;
mod terrain_brush;
mod terrain_data;
mod terrain_generator;
mod terrain_layer;
mod terrain_material;
mod terrain_node;
mod terrain_regions;
mod wandering_mesh;
mod wandering_terrain;

struct WanderingTerrainExtension;

#[gdextension]
unsafe impl ExtensionLibrary for WanderingTerrainExtension {}
