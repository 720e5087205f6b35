//! What the terrain's objects share about following: the camera to follow, and the typed connections
//! they keep to the resources they draw (`changed`, `region_changed`, …).

use godot::classes::{object::ConnectFlags, Camera3D, EditorInterface, Engine, Node3D};
use godot::obj::bounds::DeclUser;
use godot::obj::Bounds;
use godot::prelude::*;
use godot::signal::ConnectHandle;

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

/// The connections one object keeps to other objects' signals (typed signals' `ConnectHandle`s): replaced
/// as a whole when what it follows changes, the old ones disconnected; disconnected when the holder goes.
/// Handlers hold their receiver by id (`weak`, `weak_with`): a connection never keeps it alive (no cycle
/// between resources that follow each other), and once it is freed the handler does nothing.
#[derive(Default)]
pub struct Links(Vec<ConnectHandle>);

impl Links {
    /// Drops the kept connections and keeps `new` instead.
    pub fn replace(&mut self, new: impl IntoIterator<Item = ConnectHandle>) {
        self.clear();
        self.0.extend(new);
    }

    /// Disconnects every kept connection (those the emitter's end already dropped are skipped).
    pub fn clear(&mut self) {
        for h in self.0.drain(..) {
            if h.is_connected() {
                h.disconnect();
            }
        }
    }
}

impl Drop for Links {
    fn drop(&mut self) {
        self.clear();
    }
}

/// A handler running `f` on the object `me` refers to, if it still exists (a signal without arguments).
pub fn weak<T>(me: &Gd<T>, f: fn(&mut T)) -> impl FnMut() + 'static
where
    T: GodotClass + Bounds<Declarer = DeclUser>,
{
    let id = me.instance_id();
    move || {
        if let Ok(mut o) = Gd::<T>::try_from_instance_id(id) {
            f(&mut o.bind_mut());
        }
    }
}

/// `weak` for a signal with one argument.
pub fn weak_with<T, A>(me: &Gd<T>, f: fn(&mut T, A)) -> impl FnMut(A) + 'static
where
    T: GodotClass + Bounds<Declarer = DeclUser>,
    A: 'static,
{
    let id = me.instance_id();
    move |a| {
        if let Ok(mut o) = Gd::<T>::try_from_instance_id(id) {
            f(&mut o.bind_mut(), a);
        }
    }
}

/// Connection flags: deferred suits resources that emit while their follower is busy with them.
pub fn flags(deferred: bool) -> ConnectFlags {
    if deferred {
        ConnectFlags::DEFERRED
    } else {
        ConnectFlags::default()
    }
}
