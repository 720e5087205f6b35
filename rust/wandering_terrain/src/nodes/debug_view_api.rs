//! The `debug_view` constants both terrain nodes share, written once (as `collision_api!` does for
//! collision): views are numbered alike on both nodes, and gdext registers constants per class, hence a
//! macro. The views themselves are in `debug_view.rs`.

macro_rules! debug_view_api {
    ($class:ident) => {
        #[godot_api(secondary)]
        impl $class {
            /// `debug_view`: the node's own material.
            #[constant]
            const DEBUG_VIEW_OFF: i64 = $crate::nodes::debug_view::DebugView::Off as i64;
            /// `debug_view`: sample cells in alternating greys (spacing and UV).
            #[constant]
            const DEBUG_VIEW_CHECKER: i64 = $crate::nodes::debug_view::DebugView::Checker as i64;
            /// `debug_view`: heights in grey over the terrain's height range.
            #[constant]
            const DEBUG_VIEW_HEIGHTMAP: i64 =
                $crate::nodes::debug_view::DebugView::Heightmap as i64;
            /// `debug_view`: the normal as a colour (r = x, g = z, b = y; x and z * 0.5 + 0.5).
            #[constant]
            const DEBUG_VIEW_NORMALS: i64 = $crate::nodes::debug_view::DebugView::Normals as i64;
            /// `debug_view`: slope in grey (0 flat … 1 vertical).
            #[constant]
            const DEBUG_VIEW_SLOPE: i64 = $crate::nodes::debug_view::DebugView::Slope as i64;
            /// `debug_view`: a colour per clipmap level (a WanderingTerrain, which has none, draws white).
            #[constant]
            const DEBUG_VIEW_LEVELS: i64 = $crate::nodes::debug_view::DebugView::Levels as i64;
            /// `debug_view`: holes tinted instead of cut, over the heightmap.
            #[constant]
            const DEBUG_VIEW_HOLES: i64 = $crate::nodes::debug_view::DebugView::Holes as i64;
            /// `debug_view`: the layers the material blends, in a colour each, darker where the
            /// auto-shader chose.
            #[constant]
            const DEBUG_VIEW_LAYER_WEIGHTS: i64 =
                $crate::nodes::debug_view::DebugView::LayerWeights as i64;
            /// `debug_view`: the nearest sample's control slots (base layer's colour, overlay mixed in;
            /// auto grey).
            #[constant]
            const DEBUG_VIEW_CONTROL: i64 = $crate::nodes::debug_view::DebugView::Control as i64;
            /// `debug_view`: collision tiles around the target (a TerrainNode's `target`, a
            /// WanderingTerrain's camera): green in the physics engine, orange while an edit's new grid is
            /// on its way, grey without collision.
            #[constant]
            const DEBUG_VIEW_COLLISION: i64 =
                $crate::nodes::debug_view::DebugView::Collision as i64;
            /// `debug_view`: a region map's regions around the target: grey not in memory, green loaded,
            /// orange edited and unsaved, red damaged (drawn as holes). Region maps are drawn by a
            /// TerrainNode; a WanderingTerrain draws grey.
            #[constant]
            const DEBUG_VIEW_REGIONS: i64 = $crate::nodes::debug_view::DebugView::Regions as i64;
            /// `debug_view`: the instance cells of a child TerrainInstancer around the target: green shown,
            /// orange being made again.
            #[constant]
            const DEBUG_VIEW_INSTANCES: i64 =
                $crate::nodes::debug_view::DebugView::Instances as i64;
            /// `debug_view`: the faces a navigation bake takes around the target (`get_navigation_faces`,
            /// tolerance 0.25), as cyan lines over the heightmap.
            #[constant]
            const DEBUG_VIEW_NAVIGATION: i64 =
                $crate::nodes::debug_view::DebugView::Navigation as i64;
            /// `debug_view`: the surface cache meshes blend into (`surface_cache_enabled`): its albedo,
            /// unshaded; magenta where no cache covers the ground (beyond its last level, or a node without
            /// one).
            #[constant]
            const DEBUG_VIEW_SURFACE_CACHE: i64 =
                $crate::nodes::debug_view::DebugView::SurfaceCache as i64;
        }
    };
}

pub(crate) use debug_view_api;
