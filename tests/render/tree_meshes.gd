extends RefCounted
## Trees made from Godot's primitive meshes, one ArrayMesh each (a surface per part, with its material):
## what the impostor tests bake and draw.


## `prim`'s arrays moved by `xf`.
static func _moved(prim: PrimitiveMesh, xf: Transform3D) -> Array:
	var arrays := prim.get_mesh_arrays()
	var v: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
	var n: PackedVector3Array = arrays[Mesh.ARRAY_NORMAL]
	for i in v.size():
		v[i] = xf * v[i]
		n[i] = (xf.basis * n[i]).normalized()
	arrays[Mesh.ARRAY_VERTEX] = v
	arrays[Mesh.ARRAY_NORMAL] = n
	arrays[Mesh.ARRAY_TANGENT] = null
	return arrays


## A trunk `height` tall standing on the origin, surface 0 of `mesh`.
static func _trunk(mesh: ArrayMesh, height: float, top: float, bottom: float, c: Color) -> void:
	var trunk := CylinderMesh.new()
	trunk.top_radius = top
	trunk.bottom_radius = bottom
	trunk.height = height
	trunk.radial_segments = 10
	mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, _moved(trunk, Transform3D(Basis(), Vector3(0, height * 0.5, 0))))
	mesh.surface_set_material(0, _material(c))


static func _material(c: Color) -> StandardMaterial3D:
	var m := StandardMaterial3D.new()
	m.albedo_color = c
	m.roughness = 1.0
	return m


## A pine 10 m tall: a brown trunk and three stacked green cones, base at the origin.
static func pine(green := Color(0.16, 0.36, 0.14)) -> ArrayMesh:
	var mesh := ArrayMesh.new()
	_trunk(mesh, 3.0, 0.18, 0.3, Color(0.35, 0.22, 0.12))
	var crown := CylinderMesh.new()
	crown.top_radius = 0.0
	crown.radial_segments = 14
	for i in 3:
		crown.bottom_radius = 2.6 - i * 0.6
		crown.height = 4.0 - i * 0.5
		var y := 2.0 + i * 2.1 + crown.height * 0.5
		mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, _moved(crown, Transform3D(Basis(), Vector3(0, y, 0))))
		mesh.surface_set_material(1 + i, _material(green.lightened(i * 0.06)))
	return mesh


## A broadleaf 8 m tall: a trunk and a crown of three overlapping spheres.
static func broadleaf(green := Color(0.28, 0.45, 0.16)) -> ArrayMesh:
	var mesh := ArrayMesh.new()
	_trunk(mesh, 4.0, 0.2, 0.32, Color(0.33, 0.24, 0.15))
	var ball := SphereMesh.new()
	ball.radial_segments = 16
	ball.rings = 8
	var parts := [[Vector3(0, 5.6, 0), 2.4], [Vector3(1.3, 4.8, 0.4), 1.6], [Vector3(-1.0, 5.0, -0.9), 1.7]]
	var arrays := []
	for p in parts:
		ball.radius = p[1]
		ball.height = p[1] * 2.0
		var a := _moved(ball, Transform3D(Basis(), p[0]))
		arrays.append(a)
	for i in arrays.size():
		mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays[i])
		mesh.surface_set_material(1 + i, _material(green.darkened(i * 0.08)))
	return mesh
