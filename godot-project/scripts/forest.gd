class_name Forest
## Trees and rocks for the demo, made by code (no downloaded assets): a TerrainInstancer with a tree (two
## LODs, a trunk that collides, an impostor baked when the demo loads, so the forest reaches the horizon)
## and a rock, scattered by their placement rules: trees on grass below 28° of slope, rocks on steeper
## ground.


static func _material(c: Color, rough := 0.9) -> StandardMaterial3D:
	var m := StandardMaterial3D.new()
	m.albedo_color = c
	m.roughness = rough
	return m


## A trunk and two stacked cones of foliage; `segments` sets how round they are (the far LOD uses few).
static func tree_mesh(segments: int) -> ArrayMesh:
	var out := ArrayMesh.new()
	var trunk := CylinderMesh.new()
	trunk.top_radius = 0.18
	trunk.bottom_radius = 0.3
	trunk.height = 3.0
	trunk.radial_segments = maxi(segments / 2, 4)
	trunk.rings = 1
	var st := SurfaceTool.new()
	st.append_from(trunk, 0, Transform3D(Basis(), Vector3(0, 1.5, 0)))
	st.commit(out)
	st = SurfaceTool.new()
	for cone in [[2.2, 4.5, 2.2], [1.5, 3.5, 4.8]]:
		var c := CylinderMesh.new()
		c.top_radius = 0.0
		c.bottom_radius = cone[0]
		c.height = cone[1]
		c.radial_segments = segments
		c.rings = 1
		st.append_from(c, 0, Transform3D(Basis(), Vector3(0, cone[2] + cone[1] * 0.5, 0)))
	st.commit(out)
	out.surface_set_material(0, _material(Color(0.36, 0.24, 0.14)))
	out.surface_set_material(1, _material(Color(0.16, 0.36, 0.14)))
	return out


static func rock_mesh() -> ArrayMesh:
	var s := SphereMesh.new()
	s.radius = 1.0
	s.height = 1.3
	s.radial_segments = 7
	s.rings = 4
	var out := ArrayMesh.new()
	var st := SurfaceTool.new()
	st.append_from(s, 0, Transform3D())
	st.commit(out)
	out.surface_set_material(0, _material(Color(0.45, 0.43, 0.4)))
	return out


static func tree() -> TerrainInstanceMesh:
	var m := TerrainInstanceMesh.new()
	m.mesh = tree_mesh(10)
	m.lod_meshes = [tree_mesh(4)] as Array[Mesh]
	m.lod_distances = PackedFloat32Array([120.0])
	# Meshes to 300 m, impostors beyond, to the horizon.
	m.impostor_distance = 300.0
	m.visibility_range = 6000.0
	m.bake_impostor()
	var trunk := CylinderShape3D.new()
	trunk.radius = 0.3
	trunk.height = 3.0
	m.collision_shape = trunk
	m.collision_transform = Transform3D(Basis(), Vector3(0, 1.5, 0))
	m.density = 0.02
	m.scale_min = 0.8
	m.scale_max = 1.6
	m.align_to_normal = 0.1
	m.slope_max = 28.0
	m.layers = PackedInt32Array([1])
	return m


static func rock() -> TerrainInstanceMesh:
	var m := TerrainInstanceMesh.new()
	m.mesh = rock_mesh()
	m.visibility_range = 500.0
	var shape := SphereShape3D.new()
	shape.radius = 0.8
	m.collision_shape = shape
	m.density = 0.005
	m.scale_min = 0.6
	m.scale_max = 2.5
	m.align_to_normal = 0.8
	m.height_offset = -0.2
	m.slope_min = 12.0
	m.slope_max = 60.0
	return m


## An instancer under `terrain` with trees and rocks scattered over the square of half-side `half` around
## world X/Z `center` (deterministic: the same forest every run).
static func plant(terrain: Node3D, center: Vector2, half: float, trees: int, rocks: int) -> TerrainInstancer:
	var inst := TerrainInstancer.new()
	inst.name = "Forest"
	inst.meshes = [tree(), rock()] as Array[TerrainInstanceMesh]
	terrain.add_child(inst)
	var area := Rect2(center - Vector2(half, half), Vector2(2 * half, 2 * half))
	inst.scatter(0, area, trees, 1)
	inst.scatter(1, area, rocks, 2)
	return inst
