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

/// Signal handlers that are Rust methods, not script methods: connections call them through callables made
/// once per object (so `is_connected` / `disconnect` find them again), and nothing `_on_…` shows in the
/// class reference. A handler holds its object by id: a connection never keeps it alive, and once the
/// object is freed the handler does nothing.
#[derive(Default)]
pub struct Handlers(Vec<(&'static str, Callable)>);

impl Handlers {
    /// The callable running `f` on `obj` for handler `name` (made on first use).
    pub fn get<T>(
        &mut self,
        obj: &Gd<T>,
        name: &'static str,
        f: fn(&mut T, &[&Variant]),
    ) -> Callable
    where
        T: GodotClass + godot::obj::Bounds<Declarer = godot::obj::bounds::DeclUser>,
    {
        if let Some((_, c)) = self.0.iter().find(|(n, _)| *n == name) {
            return c.clone();
        }
        let id = obj.instance_id();
        let c = Callable::from_linked_fn(name, obj, move |args: &[&Variant]| {
            if let Ok(mut o) = Gd::<T>::try_from_instance_id(id) {
                f(&mut o.bind_mut(), args);
            }
        });
        self.0.push((name, c.clone()));
        c
    }
}

/// A handler's first argument as `V` (the default when the signal sent none or another type).
pub fn arg<V: FromGodot + Default>(args: &[&Variant]) -> V {
    args.first()
        .and_then(|a| a.try_to::<V>().ok())
        .unwrap_or_default()
}
