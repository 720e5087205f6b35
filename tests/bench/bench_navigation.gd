extends RefCounted
## Navigation: a standard bake of a 1024 × 1024 m window of the open-world demo's terrain (4096², 1 m
## spacing, the demo's generator settings): the time the terrain's parser takes (NavigationServer3D's
## parse_source_geometry_data) against the whole bake (parse + bake_from_source_geometry_data, measured
## in the same run), and the triangles the parser hands over against the unmerged count.

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func run(quick: bool) -> void:
	var data := TerrainData.new()
	data.size = Vector2i(4096, 4096)
	data.generate_noise(4096, 1.0 / 700.0, 8, 2.0, 0.5, 220.0, -30.0, TerrainData.NOISE_PERLIN)
	var region := NavigationRegion3D.new()
	var tn := TerrainNode.new()
	tn.terrain_data = data
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	region.add_child(tn)
	tree.root.add_child(region)
	var m := NavigationMesh.new()
	# Cells of 1 m: one bake of 0.25 m cells over 1024 m exceeds Recast's 65535 vertices per polygon mesh
	# (big areas are baked as several regions, or with coarser cells).
	m.cell_size = 1.0
	m.cell_height = 0.25
	m.agent_max_slope = 45.0
	var box := AABB(Vector3(1536, -500, 1536), Vector3(1024, 1000, 1024))
	m.filter_baking_aabb = box
	var parse_ms: Array[float] = []
	var bake_ms: Array[float] = []
	var triangles := 0
	for i in (2 if quick else 5):
		var geo := NavigationMeshSourceGeometryData3D.new()
		var t0 := Time.get_ticks_usec()
		NavigationServer3D.parse_source_geometry_data(m, geo, region)
		var t1 := Time.get_ticks_usec()
		NavigationServer3D.bake_from_source_geometry_data(m, geo)
		var t2 := Time.get_ticks_usec()
		parse_ms.append((t1 - t0) / 1000.0)
		bake_ms.append((t2 - t0) / 1000.0)
		triangles = geo.get_indices().size() / 3
	var full := tn.get_navigation_faces(box, 0.0).size() / 3
	var ours: Array[float] = []
	for i in 3:
		var t0 := Time.get_ticks_usec()
		tn.get_navigation_faces(box, 0.25)
		ours.append((Time.get_ticks_usec() - t0) / 1000.0)
	print("bench navigation: the faces alone (get_navigation_faces, merged) %.1f ms" % Util.median(ours))
	# A player's window (the endless-world recipe): parsing 160 × 160 m.
	var small := NavigationMesh.new()
	small.cell_size = 0.5
	small.cell_height = 0.25
	small.filter_baking_aabb = AABB(Vector3(2000, -500, 2000), Vector3(160, 1000, 160))
	var win_parse: Array[float] = []
	var win_bake: Array[float] = []
	for i in 5:
		var geo := NavigationMeshSourceGeometryData3D.new()
		var t0 := Time.get_ticks_usec()
		NavigationServer3D.parse_source_geometry_data(small, geo, region)
		var t1 := Time.get_ticks_usec()
		NavigationServer3D.bake_from_source_geometry_data(small, geo)
		win_parse.append((t1 - t0) / 1000.0)
		win_bake.append((Time.get_ticks_usec() - t1) / 1000.0)
	print("bench navigation: a 160 × 160 m window (cells 0.5 m): parsing %.2f ms on the main thread, baking %.0f ms (on a thread with bake_navigation_mesh(true))" % [Util.median(win_parse), Util.median(win_bake)])
	print("bench navigation: 1024 × 1024 m window of the open-world terrain (1 m spacing, cells 1 m × 0.25 m): parsing the terrain %.1f ms (goal <= 100 ms), whole bake %.0f ms, parsing %.1f %% of it (goal <= 10 %%); %d triangles handed to the bake, %d before merging (%.1f %%); %d polygons baked" % [
		Util.median(parse_ms), Util.median(bake_ms), 100.0 * Util.median(parse_ms) / Util.median(bake_ms), triangles, full, 100.0 * triangles / maxf(full, 1), m.get_polygon_count()])
	region.queue_free()
	await tree.process_frame
