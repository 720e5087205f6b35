//! What the terrain nodes share about following: the camera to follow, and keeping a `changed`
//! connection to the resources they draw.

use godot::classes::{object::ConnectFlags, Camera3D, EditorInterface, Engine, Node3D, Resource};
use godot::prelude::*;

/// The camera a terrain follows by default: the editor's 3D camera in the editor, else the viewport's current
/// camera.
pub fn active_camera(node: &Gd<Node3D>) -> Option<Gd<Camera3D>> {
    if Engine::singleton().is_editor_hint() {
        if let Some(vp) = EditorInterface::singleton().get_editor_viewport_3d() {
            return vp.get_camera_3d();
        }
    }
    node.get_viewport().and_then(|vp| vp.get_camera_3d())
}

/// Moves `callable`'s connection to the `changed` signal from `old` to `new`. Deferred connections suit
/// resources that emit `changed` while the receiver is busy with them.
pub fn relink_changed<T, U>(
    old: Option<Gd<T>>,
    new: Option<Gd<U>>,
    callable: &Callable,
    deferred: bool,
) where
    T: Inherits<Resource>,
    U: Inherits<Resource>,
{
    relink("changed", old, new, callable, deferred);
}

/// Moves `callable`'s connection to `signal` from `old` to `new`.
pub fn relink<T, U>(
    signal: &str,
    old: Option<Gd<T>>,
    new: Option<Gd<U>>,
    callable: &Callable,
    deferred: bool,
) where
    T: Inherits<Resource>,
    U: Inherits<Resource>,
{
    if let Some(old) = old {
        let mut old = old.upcast::<Resource>();
        if old.is_connected(signal, callable) {
            old.disconnect(signal, callable);
        }
    }
    if let Some(new) = new {
        let flags = if deferred {
            ConnectFlags::DEFERRED
        } else {
            ConnectFlags::default()
        };
        new.upcast::<Resource>()
            .connect_flags(signal, callable, flags);
    }
}
