extends "res://render/clipmap_views.gd"
## TerrainNode over an endless generated world on the GPU, far from the origin (the node is moved so the views
## around (256, 256) show generated samples 20000 units away): no cracks, drawn heights equal get_height
## (finest level per pixel and at vertices, level 3 at its vertices), no popping — with windows computed on
## worker threads. Every wait also waits until the node shows windows computed for its target.

## The node's offset: world (256, 256) shows the generated world at terrain (20256, -14744).
const FAR := Vector3(-20000, 0, 15000)

var _tn: TerrainNode


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
	_tn = tn
	return tn


func _height(_t: TerrainData, p: Vector2) -> float:
	return _tn.get_height(p)


func _range(_t: TerrainData) -> Vector2:
	# The fractal stays within about ±height (the node's culling bound is ±1.25 height).
	return Vector2(-45.0, 45.0)


func frames(n: int) -> void:
	await super(n)
	if _tn == null or not is_instance_valid(_tn):
		return
	var waited := 0
	while not _tn.is_up_to_date() and waited < 3000:
		await tree.process_frame
		waited += 1
	check(_tn.is_up_to_date(), "the windows arrive (waited %d frames)" % waited)
	# The frame that showed them has been drawn.
	await super(2)


func test_endless_no_cracks_from_many_viewpoints() -> void:
	await _case_no_cracks_from_many_viewpoints()


func test_endless_finest_level_equals_get_height() -> void:
	await _case_finest_level_equals_get_height()


func test_endless_no_popping_when_levels_snap() -> void:
	await _case_no_popping_when_levels_snap()


func test_endless_coarse_level_vertices_equal_get_height() -> void:
	await _case_coarse_level_vertices_equal_get_height()
