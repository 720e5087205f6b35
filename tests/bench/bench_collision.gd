extends RefCounted
## Collision: building FULL collision for a 4096² terrain per subdivision (what entering the tree costs),
## rebuilding after a 256² edit, and DYNAMIC collision when the target crosses tile borders. Reference in
## the same run: a Godot HeightMapShape3D of the same point count built from GDScript (map_data assignment).

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func run(quick: bool) -> void:
	var engine := str(ProjectSettings.get_setting("physics/3d/physics_engine"))
	var n := 2048 if quick else 4096
	var data := TerrainData.new()
	data.size = Vector2i(n, n)
	data.generate_noise(7, 0.004, 6, 2.0, 0.5, 120.0, -1e9, TerrainData.NOISE_PERLIN)
	for sub in [1, 2, 4]:
		var tn := TerrainNode.new()
		tn.tile_resolution = 8
		tn.levels = 2
		tn.terrain_data = data
		tn.collision_subdivision = sub
		tn.collision_mode = TerrainNode.COLLISION_FULL
		var t0 := Time.get_ticks_usec()
		tree.root.add_child(tn)
		var t_build := (Time.get_ticks_usec() - t0) / 1000.0
		var tiles := tn.get_collision_tile_count()
		# FULL tiles: 129 points a side, doubled while the terrain needs over 4096 of them.
		var side_points := 129
		while pow(ceili((n - 1) / float((side_points - 1) / sub)), 2) > 4096:
			side_points = 2 * side_points - 1
		var points := tiles * side_points * side_points
		# Reference: the same number of points through one HeightMapShape3D from GDScript.
		var side := int(sqrt(points))
		var heights := PackedFloat32Array()
		heights.resize(side * side)
		var shape := HeightMapShape3D.new()
		var t1 := Time.get_ticks_usec()
		shape.map_width = side
		shape.map_depth = side
		shape.map_data = heights
		var t_ref := (Time.get_ticks_usec() - t1) / 1000.0
		# A 256² edit: the call, then the collision update on the next physics frame.
		var vals := PackedFloat32Array()
		vals.resize(256 * 256)
		vals.fill(50.0)
		data.set_heights_region(Rect2i(n / 2, n / 2, 256, 256), vals)
		var t2 := Time.get_ticks_usec()
		var written := tn.update_collision()
		var t_edit := (Time.get_ticks_usec() - t2) / 1000.0
		print("bench collision %s %d² FULL subdivision %d: built in %.0f ms (goal <= 300 ms; %d tiles, %.1f M points, %.0f MB of heights); one HeightMapShape3D of as many points from GDScript %.0f ms; 256² edit: %d tiles rewritten in %.2f ms" % [
			engine, n, sub, t_build, tiles, points / 1e6, points * 4 / 1e6, t_ref, written, t_edit])
		tn.queue_free()
		shape = null
		await tree.process_frame
	# DYNAMIC: a target crossing tile borders (one tile every 64 m).
	var target := Node3D.new()
	tree.root.add_child(target)
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 2
	tn.terrain_data = data
	tn.collision_mode = TerrainNode.COLLISION_DYNAMIC
	tn.collision_radius = 64.0
	tree.root.add_child(tn)
	tn.target = tn.get_path_to(target)
	var times: Array[float] = []
	var writing: Array[float] = []
	tn.update_collision()
	# 100 m/s at 60 physics frames per second, across the map.
	for i in 1200:
		target.position = Vector3(100 + i * 100.0 / 60.0, 0, n / 2.0 + i * 0.3)
		var t0 := Time.get_ticks_usec()
		var written := tn.update_collision()
		var dt := (Time.get_ticks_usec() - t0) / 1000.0
		times.append(dt)
		if written > 0:
			writing.append(dt)
	times.sort()
	writing.sort()
	print("bench collision %s DYNAMIC radius 64, subdivision %d, target at 100 m/s: %.3f ms median, %.2f ms worst per physics frame; frames that wrote tiles (%d of 1200): %.2f ms median (goal <= 1 ms median when crossing a tile border); %d tiles" % [
		engine, tn.collision_subdivision, times[times.size() / 2], times[-1], writing.size(), writing[writing.size() / 2] if writing.size() > 0 else 0.0, tn.get_collision_tile_count()])
	tn.queue_free()
	target.queue_free()
	await tree.process_frame
