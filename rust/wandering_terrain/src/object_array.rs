//! Array-of-resource properties (`TerrainInstancer.meshes`, `detail_layers`, `TerrainMaterial.layers`) that
//! take what a script gives them: a typed array, or a plain `[...]` of the right objects set through an
//! untyped node reference (GDScript converts only where it knows the property's type). An empty slot
//! (null, as the inspector's *Add Element* makes) is kept and stands for nothing; any other element is
//! refused with an error naming it.

use godot::prelude::*;

/// `v` as an array of `T` slots, or None after an error naming `who`, the element and its type.
pub fn objects_of<T>(who: &str, v: &VarArray) -> Option<Array<Option<Gd<T>>>>
where
    T: GodotClass + Inherits<Object>,
{
    let mut out: Array<Option<Gd<T>>> = Array::new();
    for (i, e) in v.iter_shared().enumerate() {
        if e.is_nil() {
            out.push(None::<Gd<T>>.as_ref());
            continue;
        }
        match e.try_to::<Gd<T>>() {
            Ok(g) => out.push(Some(&g)),
            Err(_) => {
                let got = match e.try_to::<Gd<Object>>() {
                    Ok(o) => o.get_class().to_string(),
                    Err(_) => godot::global::type_string(e.get_type().ord() as i64).to_string(),
                };
                godot_error!(
                    "{who}: element {i} must be a {} (or null), got {got}; nothing changed",
                    T::class_id()
                );
                return None;
            }
        }
    }
    Some(out)
}
