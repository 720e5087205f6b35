extends "res://wt_test.gd"
## Terrain in Godot navigation: a NavigationRegion3D's standard bake sees TerrainNode and WanderingTerrain
## (the parser registered by the extension), paths go around a hole and stay on the ground, the parsed
## geometry type, collision mask and baking AABB are honoured, an endless world needs an AABB, and flat
## ground is merged into fewer triangles.

const SIZE := 128


## Hills with a pit in the middle whose floor is a hole 16 samples wide.
func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(2, 1.0 / 50.0, 3, 2.0, 0.5, 4.0, -1e9, TerrainData.NOISE_PERLIN)
	var holes := PackedByteArray()
	holes.resize(16 * 40)
	holes.fill(1)
	t.set_holes_region(Rect2i(56, 44, 16, 40), holes)
	return t


func _nav_mesh() -> NavigationMesh:
	var m := NavigationMesh.new()
	m.cell_size = 0.25
	m.cell_height = 0.25
	m.agent_radius = 0.5
	m.agent_max_slope = 50.0
	return m


## A NavigationRegion3D holding `terrain`; [region, terrain].
func _region(terrain: Node3D, m: NavigationMesh) -> Array:
	var region := NavigationRegion3D.new()
	region.navigation_mesh = m
	region.add_child(terrain)
	tree.root.add_child(region)
	return [region, terrain]


## Worst |y - get_height| over points (INF if one is not finite or over a hole).
func _gap(terrain: Node3D, ps: PackedVector3Array) -> float:
	var worst := 0.0
	for p in ps:
		worst = worst_of(worst, absf(p.y - terrain.get_height(Vector2(p.x, p.z))))
	return worst


func test_a_bake_sees_the_terrain_and_paths_go_around_the_hole() -> void:
	var tn := TerrainNode.new()
	tn.terrain_data = _data()
	var s := _region(tn, _nav_mesh())
	var region: NavigationRegion3D = s[0]
	region.bake_navigation_mesh(false)
	var m := region.navigation_mesh
	check(m.get_polygon_count() > 50, "the bake made polygons: %d" % m.get_polygon_count())
	var gap := _gap(tn, m.get_vertices())
	print("navigation: %d polygons, worst vertex gap to get_height %.3f m" % [m.get_polygon_count(), gap])
	check(gap <= 1.5, "navigation vertices on the ground: worst %.3f m" % gap)
	var map := region.get_world_3d().navigation_map
	var from := Vector3(64, 0, 30)
	var to := Vector3(64, 0, 100)
	from.y = tn.get_height(Vector2(from.x, from.z))
	to.y = tn.get_height(Vector2(to.x, to.z))
	# The map takes the new region in on a later physics step.
	var path := PackedVector3Array()
	for i in 120:
		await tree.physics_frame
		path = NavigationServer3D.map_get_path(map, from, to, true)
		if path.size() > 0:
			break
	check(path.size() >= 3, "a path with turns: %d points" % path.size())
	var over_hole := 0
	for i in path.size() - 1:
		for k in 21:
			var p := path[i].lerp(path[i + 1], k / 20.0)
			over_hole += int(tn.is_hole(Vector2(p.x, p.z)) if tn.has_method("is_hole") else not is_finite(tn.get_height(Vector2(p.x, p.z))))
	check_eq(over_hole, 0, "the path never crosses the hole")
	check(path.size() > 0 and path[-1].distance_to(to) < 1.0, "it reaches the other side")
	var path_gap := _gap(tn, path)
	print("navigation: path of %d points, worst gap to get_height %.3f m" % [path.size(), path_gap])
	check(path_gap <= 1.5, "path points within 1.5 m of get_height: %.3f" % path_gap)
	region.queue_free()


func test_geometry_type_mask_and_aabb_are_honoured() -> void:
	var tn := TerrainNode.new()
	tn.terrain_data = _data()
	tn.collision_layer = 4
	var m := _nav_mesh()
	var s := _region(tn, m)
	var region: NavigationRegion3D = s[0]
	m.geometry_parsed_geometry_type = NavigationMesh.PARSED_GEOMETRY_STATIC_COLLIDERS
	m.geometry_collision_mask = 1
	region.bake_navigation_mesh(false)
	check_eq(m.get_polygon_count(), 0, "a mask without the terrain's layer bakes nothing from it")
	m.geometry_collision_mask = 4
	region.bake_navigation_mesh(false)
	check(m.get_polygon_count() > 0, "its layer in the mask: baked")
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	region.bake_navigation_mesh(false)
	check_eq(m.get_polygon_count(), 0, "no collision: not a static collider")
	m.geometry_parsed_geometry_type = NavigationMesh.PARSED_GEOMETRY_MESH_INSTANCES
	region.bake_navigation_mesh(false)
	check(m.get_polygon_count() > 0, "as a mesh it is always there")
	# The baking AABB limits the faces (the region moved: the box is in its space).
	region.position = Vector3(10, 0, 5)
	tn.position = Vector3(-10, 0, -5)
	m.filter_baking_aabb = AABB(Vector3(10, -50, 10), Vector3(30, 100, 20))
	m.filter_baking_aabb_offset = Vector3(5, 0, 0)
	region.bake_navigation_mesh(false)
	var outside := 0
	for v in m.get_vertices():
		outside += int(v.x < 15.0 - 0.01 or v.x > 45.0 + 0.01 or v.z < 10.0 - 0.01 or v.z > 30.0 + 0.01)
	check(m.get_polygon_count() > 0 and outside == 0, "only inside the box: %d polygons, %d vertices outside" % [m.get_polygon_count(), outside])
	region.queue_free()


func test_endless_worlds_need_an_aabb() -> void:
	var g := TerrainGenerator.new()
	g.seed = 3
	g.height = 10.0
	var tn := TerrainNode.new()
	tn.terrain_generator = g
	var m := _nav_mesh()
	var s := _region(tn, m)
	var region: NavigationRegion3D = s[0]
	expect_error("TerrainNode: an endless or region-map terrain is baked inside the NavigationMesh's filter_baking_aabb")
	region.bake_navigation_mesh(false)
	check_eq(m.get_polygon_count(), 0, "nothing without a box")
	m.filter_baking_aabb = AABB(Vector3(5000, -100, -3000), Vector3(40, 200, 40))
	region.bake_navigation_mesh(false)
	check(m.get_polygon_count() > 0, "a window 5 km out bakes")
	check(_gap(tn, m.get_vertices()) <= 1.5, "on the ground: %.3f" % _gap(tn, m.get_vertices()))
	region.queue_free()


func test_wandering_terrain_bakes_its_surface_not_its_flat_mesh() -> void:
	var data := _data()
	var wt := WanderingTerrain.new()
	wt.terrain_data = data
	wt.position = Vector3(3, 0, -2)
	var s := _region(wt, _nav_mesh())
	var region: NavigationRegion3D = s[0]
	await tree.process_frame
	region.bake_navigation_mesh(false)
	var m := region.navigation_mesh
	check(m.get_polygon_count() > 50, "polygons: %d" % m.get_polygon_count())
	var gap := _gap(wt, m.get_vertices())
	check(gap <= 1.5, "on the surface (no flat plane at y = 0): worst %.3f m" % gap)
	region.queue_free()


func test_flat_ground_is_merged() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(257, 257)
	t.generate_noise(2, 1.0 / 60.0, 4, 2.0, 0.5, 6.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	var box := AABB(Vector3(0, -100, 0), Vector3(256, 200, 256))
	var full := tn.get_navigation_faces(box, 0.0).size() / 3
	var merged := tn.get_navigation_faces(box, 0.25).size() / 3
	print("navigation faces on 256² hills: %d triangles merged from %d (cell height 0.25)" % [merged, full])
	check(full >= 0.99 * 255 * 255 * 2, "tolerance 0 on curved ground: about two triangles per square (%d)" % full)
	check(merged < full / 2, "merged within the cell height: %d of %d" % [merged, full])
	var zeros := PackedFloat32Array()
	zeros.resize(257 * 257)
	t.set_heights(zeros)
	var flat := tn.get_navigation_faces(box, 0.25).size() / 3
	check(flat * 100 < full, "flat ground merged: %d of %d" % [flat, full])
	var faces := tn.get_navigation_faces(AABB(Vector3(10, -10, 10), Vector3(20, 20, 20)), 0.0)
	var out := 0
	for v in faces:
		out += int(v.x < 10.0 or v.x > 30.0 or v.z < 10.0 or v.z > 30.0)
	check(faces.size() > 0 and out == 0, "faces stay in the box")
	expect_error("TerrainNode.get_navigation_faces: tolerance must be in [0, 10000]")
	check(tn.get_navigation_faces(box, -1.0).is_empty(), "bad tolerance: empty")
	tn.queue_free()
