//! What keeps the parts standing on a terrain node from working (a path with nothing to shape, a detail
//! layer that matches no ground layer), listed in the node's own `check_setup()` too: a user who asks the
//! terrain what is wrong hears about its children.

use crate::instances::terrain_instancer::TerrainInstancer;
use crate::layers::terrain_path::TerrainPath;
use crate::layers::terrain_stamp::TerrainStamp;
use godot::prelude::*;

/// Deepest level of descendants asked (a road under a folder under the terrain is two levels down).
const DEPTH: usize = 3;

/// The `check_setup()` entries of `node`'s paths, stamps and instancers (to `DEPTH` levels down), each
/// prefixed with the child's name. Another terrain node below is not looked into (it reports its own).
pub(crate) fn parts_setup(node: &Gd<Node>, out: &mut PackedStringArray) {
    walk(node, DEPTH, out);
}

fn walk(node: &Gd<Node>, depth: usize, out: &mut PackedStringArray) {
    if depth == 0 {
        return;
    }
    for child in node.get_children().iter_shared() {
        if crate::surface::host_of(child.clone()).is_some() {
            continue;
        }
        let (entries, class) = if let Ok(p) = child.clone().try_cast::<TerrainPath>() {
            (p.bind().check_setup(), "TerrainPath")
        } else if let Ok(s) = child.clone().try_cast::<TerrainStamp>() {
            (s.bind().check_setup(), "TerrainStamp")
        } else if let Ok(i) = child.clone().try_cast::<TerrainInstancer>() {
            (i.bind().check_setup(), "TerrainInstancer")
        } else {
            (PackedStringArray::new(), "")
        };
        let name = child.get_name();
        for e in entries.as_slice() {
            out.push(&format!("{name} ({class}): {e}"));
        }
        walk(&child, depth - 1, out);
    }
}
