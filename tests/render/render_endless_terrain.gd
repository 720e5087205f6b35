extends "res://render/clipmap_views.gd"
## TerrainNode over an endless generated world on the GPU, far from the origin (the node is moved so the views
## around (256, 256) show generated samples 20000 units away): no cracks, drawn heights equal get_height
## (finest level per pixel and at vertices, level 3 at its vertices), no popping — with windows computed on
## worker threads. Every wait also waits until the node shows windows computed for its target.

## The node's offset: world (256, 256) shows the generated world at terrain (20256, -14744).
const FAR := Vector3(-20000, 0, 15000)



func _node(t: TerrainData, target: Node3D) -> TerrainNode:
	var tn := super(t, target)
	var g := TerrainGenerator.new()
	# The settings `_data()` generates with (the rough 512² terrain of the data suite).
	g.seed = 77
	g.frequency = 0.04
	g.octaves = 6
	g.gain = 0.55
	g.height = 40.0
	tn.terrain_data = null
	tn.terrain_generator = g
	tn.position = FAR
	return tn


func _height(_t: TerrainData, p: Vector2) -> float:
	return _tn.get_height(p)


func _range(_t: TerrainData) -> Vector2:
	# The fractal stays within about ±height (the node's culling bound is ±1.25 height).
	return Vector2(-45.0, 45.0)


func test_endless_no_cracks_from_many_viewpoints() -> void:
	await _case_no_cracks_from_many_viewpoints()


func test_endless_finest_level_equals_get_height() -> void:
	await _case_finest_level_equals_get_height()


func test_endless_no_popping_when_levels_snap() -> void:
	await _case_no_popping_when_levels_snap()


func test_endless_coarse_level_vertices_equal_get_height() -> void:
	await _case_coarse_level_vertices_equal_get_height()


## A target flying at 300 m/s (5 units per 60th of a second) over the endless world; at every 30th frame,
## once the windows for it are shown, the finest level's drawn vertex heights equal get_height.
func test_endless_flight_gpu_equals_cpu_every_30th_frame() -> void:
	var t := _data()
	var s := _debug_scene(t, 2, 4.0)
	var cam: Camera3D = s[1]
	var target: Node3D = s[2]
	var r: Vector2 = s[4]
	# 10 pixels per unit: a 32 x 24 view around the target, inside level 0 and clear of its morph band.
	cam.size = 24.0
	var checks := 0
	var worst := 0.0
	var bad := 0
	var n := 0
	for f in 151:
		var p := Vector2(256 + f * 5.0, 256 + f * 1.5)
		target.position = Vector3(p.x, 0, p.y)
		var centre := Vector2(roundf(p.x) + 0.05, roundf(p.y) + 0.05)
		cam.position = Vector3(centre.x, 300, centre.y)
		if f % 30 != 0:
			await tree.process_frame
			continue
		await frames(2)
		var res := _vertex_check(t, centre, 1, r, "endless_flight_%d_%s" % [f, renderer], cam.size)
		check(res[0] >= 500, "frame %d: only %d vertex pixels" % [f, res[0]])
		n += res[0]
		worst = worst_of(worst, res[1])
		bad += res[2]
		checks += 1
	s[0].queue_free()
	check_eq(checks, 6, "checks made")
	check_eq(bad, 0, "vertices off by more than %s during the flight (worst %s)" % [1e-3 * (r.y - r.x), worst])
	print("endless flight: %d checks, %d vertex pixels, worst |GPU - CPU| %s" % [checks, n, worst])
