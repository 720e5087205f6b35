// A stub of the Godot C# API surface the generated wrappers (addons/wandering_terrain/csharp/) and the C#
// examples of docs/csharp.md use: the
// declarations only, so that `cargo xtask test` can compile the wrappers with Mono's `mcs` where no .NET
// Godot is installed. Not the real GodotSharp: signatures follow Godot 4.6's C# API for what is used.
using System;
using System.Collections;
using System.Collections.Generic;

namespace Godot
{
    public enum Error { Ok = 0, Failed = 1 }

    public struct Vector2 { public float X, Y; }
    public struct Vector2I { public int X, Y; }
    public struct Vector3 { public float X, Y, Z; }
    public struct Vector3I { public int X, Y, Z; }
    public struct Vector4 { public float X, Y, Z, W; }
    public struct Vector4I { public int X, Y, Z, W; }
    public struct Rect2 { public Vector2 Position, Size; }
    public struct Rect2I { public Vector2I Position, Size; }
    public struct Transform2D { public Vector2 X, Y, Origin; }
    public struct Basis { public Vector3 X, Y, Z; }
    public struct Transform3D { public Basis Basis; public Vector3 Origin; }
    public struct Quaternion { public float X, Y, Z, W; }
    public struct Plane { public Vector3 Normal; public float D; }
    public struct Aabb { public Vector3 Position, Size; }
    public struct Projection { public Vector4 X, Y, Z, W; }
    public struct Color { public float R, G, B, A; }
    public struct Rid { public ulong Id; }

    public sealed class StringName
    {
        public StringName(string name) { }
        public static implicit operator StringName(string from) => new StringName(from);
        public static implicit operator string(StringName from) => "";
    }

    public sealed class NodePath
    {
        public NodePath(string path) { }
        public static implicit operator NodePath(string from) => new NodePath(from);
    }

    public struct Callable
    {
        public static Callable From(Action action) => default;
        public static Callable From<T0>(Action<T0> action) => default;
        public static Callable From<T0, T1>(Action<T0, T1> action) => default;
        public static Callable From<T0, T1, T2>(Action<T0, T1, T2> action) => default;
    }

    public struct Signal { }

    public struct Variant
    {
        public static Variant From<T>(in T from) => default;
        public T As<T>() => default;
        public GodotObject AsGodotObject() => null;
        public static implicit operator Variant(bool from) => default;
        public static implicit operator Variant(long from) => default;
        public static implicit operator Variant(double from) => default;
        public static implicit operator Variant(string from) => default;
        public static implicit operator Variant(StringName from) => default;
        public static implicit operator Variant(GodotObject from) => default;
    }

    public class GodotObject : IDisposable
    {
        public Variant Get(StringName property) => default;
        public void Set(StringName property, Variant value) { }
        public Variant Call(StringName method, params Variant[] args) => default;
        public Error Connect(StringName signal, Callable callable, uint flags = 0) => Error.Ok;
        public bool IsClass(string @class) => false;
        public string GetClass() => "";
        public void Dispose() { }
    }

    public static class ClassDB
    {
        public static Variant Instantiate(StringName @class) => default;
        public static Variant ClassCallStatic(StringName @class, StringName method, params Variant[] args) => default;
    }

    public class RefCounted : GodotObject { }
    public class Resource : RefCounted { }
    public static class GD
    {
        public static void Print(params object[] what) { }
    }

    public class Node : GodotObject
    {
        public Node GetNode(NodePath path) => null;
        public void AddChild(Node node, bool forceReadableName = false) { }
        public virtual void _Ready() { }
    }

    public class Node3D : Node
    {
        public Vector3 GlobalPosition { get; set; }
    }

    public class CollisionObject3D : Node3D { }
    public class PhysicsBody3D : CollisionObject3D { }
    public class CharacterBody3D : PhysicsBody3D { }
    public class Path3D : Node3D { }
    public class Image : Resource { }
    public class Texture : Resource { }
    public class Texture2D : Texture { }
    public class TextureLayered : Texture { }
    public class ImageTextureLayered : TextureLayered { }
    public class Texture2DArray : ImageTextureLayered { }
    public class Material : Resource { }
    public class ShaderMaterial : Material { }
    public class PhysicsMaterial : Resource { }
    public class Mesh : Resource { }
    public class ArrayMesh : Mesh { }
    public class PrimitiveMesh : Mesh { }
    public class Shape3D : Resource { }
    public class PackedScene : Resource { }
    public class Curve : Resource { }
    public class Curve3D : Resource { }
    public class Noise : Resource { }
}

namespace Godot.Collections
{
    public sealed class Dictionary { }

    public sealed class Array : IEnumerable<Variant>
    {
        public int Count => 0;
        public IEnumerator<Variant> GetEnumerator() => null;
        IEnumerator IEnumerable.GetEnumerator() => null;
    }

    public sealed class Array<T> : IEnumerable<T>
    {
        public int Count => 0;
        public T this[int index] { get => default; set { } }
        public void Add(T item) { }
        public IEnumerator<T> GetEnumerator() => null;
        IEnumerator IEnumerable.GetEnumerator() => null;
    }
}
