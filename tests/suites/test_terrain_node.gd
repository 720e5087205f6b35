extends "res://wt_test.gd"
## TerrainNode from GDScript: contract properties, world-space height queries for a moved and scaled node,
## statistics, bad input.


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(64, 64)
	t.generate_noise(3, 0.1, 3, 2.0, 0.5, 6.0, -1e9, 0)
	return t


## An edit of terrain data reaches the drawn windows through a worker job: right after the call the node
## is not up to date while `get_height` already has the edit; a frame or more later it is drawn; and
## `update_now()` brings a further edit in at once.
func test_an_edit_is_drawn_by_the_workers_and_update_now_waits() -> void:
	var t := _data()
	var s := following_node(t, Vector3(40, 0, 40))
	var tn: TerrainNode = s[0]
	await wait_up_to_date([tn])
	var block := PackedFloat32Array()
	block.resize(16 * 16)
	block.fill(7.5)
	t.set_heights_region(Rect2i(32, 32, 16, 16), block)
	check(not tn.is_up_to_date(), "the edit waits for a worker job")
	check_near(tn.get_height(Vector2(40.5, 40.5)), 7.5, 1e-4, "get_height has the edit at once")
	var waited := await wait_up_to_date([tn])
	check(waited >= 1, "drawn a frame or more after the call (%d)" % waited)
	block.fill(9.0)
	t.set_heights_region(Rect2i(32, 32, 16, 16), block)
	check(not tn.is_up_to_date(), "the second edit waits too")
	tn.update_now()
	check(tn.is_up_to_date(), "update_now draws it at once")
	tn.queue_free()
	s[1].queue_free()


func test_a_still_named_target_costs_no_processing_and_a_move_wakes_it() -> void:
	var t := _data()
	var s := following_node(t, Vector3(40, 0, 40))
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	var waited := 0
	while (tn.is_processing() or tn.is_physics_processing()) and waited < 600:
		await tree.process_frame
		waited += 1
	check(not tn.is_processing() and not tn.is_physics_processing(), "asleep with a still target (waited %d frames)" % waited)
	check_eq(target.get_child_count(true) - target.get_child_count(), 1, "the target carries the internal watch")
	check_eq(target.get_child(0, true).get_class(), "TerrainTargetWatch", "the watch")
	# A move: the target's transform notification wakes the node, and the windows follow (the node may be
	# asleep again by the time a check looks: the windows shown tell that it ran).
	var shown: int = tn.get_work_stats()["windows_shown"]
	target.position = Vector3(50, 0, 30)
	await wait_up_to_date([tn])
	check(tn.get_work_stats()["windows_shown"] > shown, "a move wakes the node: the windows follow it")
	# Asleep again, then an edit wakes it and is drawn.
	waited = 0
	while tn.is_processing() and waited < 600:
		await tree.process_frame
		waited += 1
	check(not tn.is_processing(), "asleep again")
	var block := PackedFloat32Array()
	block.resize(16 * 16)
	block.fill(6.5)
	t.set_heights_region(Rect2i(42, 22, 16, 16), block)
	check(tn.is_processing() and tn.is_physics_processing(), "an edit wakes both passes")
	await wait_up_to_date([tn])
	# A new target: the old one loses its watch.
	var other := Node3D.new()
	tree.root.add_child(other)
	tn.target = tn.get_path_to(other)
	check(tn.is_processing(), "a new target wakes the node")
	await tree.process_frame
	check_eq(target.get_child_count(true), 0, "the old target's watch is gone")
	tn.queue_free()
	target.queue_free()
	other.queue_free()


func test_defaults_and_material() -> void:
	var tn := TerrainNode.new()
	check_eq(tn.levels, 7, "levels")
	check_eq(tn.tile_resolution, 32, "tile_resolution")
	check_eq(tn.vertex_spacing, 1.0, "vertex_spacing")
	tn.terrain_data = _data()
	var cam := Camera3D.new()
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	check(tn.material is ShaderMaterial and tn.material.shader != null, "default material")
	var tex = tn.material.get_shader_parameter("clipmap_data")
	check(tex is Texture2DArray, "clipmap data texture bound")
	if tex is Texture2DArray:
		# One layer per level plus the fine layer, each 4N + 6 texels wide, whatever the terrain's size;
		# without a rendering device each layer is stored as split² tiles (clipmap_split).
		var split: int = tn.material.get_shader_parameter("clipmap_split")
		check_eq(tn.material.get_shader_parameter("clipmap_fine_layer"), 7, "7 levels, then the fine layer")
		check_eq(tn.material.get_shader_parameter("clipmap_window"), 134, "window")
		check_eq(tex.get_layers(), 8 * split * split, "layers (split %d)" % split)
		check_eq(tex.get_width(), ceili(134.0 / split), "tile side")
	cam.queue_free()
	# Defaults: 7 levels of 32-sample tiles at 1 m: level 6 spaced 64 m reaches 64 of its samples out.
	check_eq(tn.get_reach(), 4096.0, "reach = 2N * finest spacing * 2^(levels-1)")
	tn.queue_free()


func test_configuration_warning_without_data() -> void:
	var tn := TerrainNode.new()
	var w: PackedStringArray = tn.check_setup()
	check(w.size() == 1 and w[0].contains("terrain_data"), "warns without terrain_data: %s" % w)
	tree.root.add_child(tn)
	tn.terrain_data = _data()
	check_eq(tn.check_setup().size(), 0, "no warning with data")
	tn.queue_free()


func test_height_in_world_space() -> void:
	var t := _data()
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.position = Vector3(100, 5, -20)
	tn.scale = Vector3(2, 3, 2)
	tree.root.add_child(tn)
	var p := Vector2(110.5, -3.0)
	var local := Vector2((p.x - 100) / 2, (p.y + 20) / 2)
	check_near(tn.get_height(p), t.get_height(local) * 3 + 5, 1e-4, "moved and scaled node")
	# The first try with a global_position: get_height_at takes the Vector3 (its Y ignored).
	check_eq(tn.get_height_at(Vector3(p.x, 1234.0, p.y)), tn.get_height(p), "get_height_at(Vector3) = get_height(X, Z)")
	var n := tn.get_normal(p)
	var e := 0.01
	var dx := (tn.get_height(p + Vector2(e, 0)) - tn.get_height(p - Vector2(e, 0))) / (2 * e)
	var dz := (tn.get_height(p + Vector2(0, e)) - tn.get_height(p - Vector2(0, e))) / (2 * e)
	check(n.angle_to(Vector3(-dx, 1, -dz).normalized()) < 0.01, "world normal matches the world heights")
	tn.queue_free()


## "Am I on the map?": is_inside is true over a finite map's samples (edges included, the node's position and
## scale applied) and false beyond them, where get_height answers the nearest edge's height; true anywhere
## over an endless world; false without terrain.
func test_is_inside_answers_whether_a_position_is_on_the_map() -> void:
	var t := _data()
	var extent := Vector2(t.size) * t.spacing
	check(t.is_inside(Vector2.ZERO) and t.is_inside(extent) and t.is_inside(extent * 0.5), "the data: corners and middle")
	check(not t.is_inside(Vector2(-0.01, 1)) and not t.is_inside(extent + Vector2(0, 0.01)), "the data: just beyond")
	check(not t.is_inside(Vector2(NAN, 1)) and not t.is_inside(Vector2(INF, 1)), "not a position")
	check_eq(t.get_height(Vector2(-50, extent.y * 0.5)), t.get_height(Vector2(0, extent.y * 0.5)), "beyond the edge: the edge's height")
	var tn := TerrainNode.new()
	check(not tn.is_inside(Vector2(1, 1)), "no terrain: nowhere")
	tn.terrain_data = t
	tn.position = Vector3(100, 5, -20)
	tn.scale = Vector3(2, 3, 2)
	tree.root.add_child(tn)
	check(tn.is_inside(Vector2(100, -20)) and tn.is_inside(Vector2(100, -20) + extent * 2.0), "the node's corners in the world")
	check(not tn.is_inside(Vector2(99.9, -10)) and not tn.is_inside(Vector2(100, -20) + extent * 2.0 + Vector2(0.1, 0)), "beyond them")
	var g := TerrainGenerator.new()
	tn.terrain_data = null
	tn.terrain_generator = g
	check(tn.is_inside(Vector2(-1e6, 3e5)), "an endless world: everywhere")
	tn.queue_free()


func test_level_stats() -> void:
	var tn := TerrainNode.new()
	var stats: Array = tn.get_level_stats()
	check_eq(stats.size(), 7, "one entry per level")
	var v := 0
	var tris := 0
	for s: Vector2i in stats:
		v += s.x
		tris += s.y
	# Level 0: 16 tiles of 33² vertices (2 * 32² triangles) plus the cross.
	check(stats[0].x > 16 * 33 * 33 and stats[0].y > 16 * 2 * 32 * 32, "level 0 %s" % stats[0])
	print("TerrainNode defaults: %d vertices, %d triangles in %d levels; reach %s" % [v, tris, stats.size(), tn.get_reach()])
	tn.free()


func test_bad_input() -> void:
	var tn := TerrainNode.new()
	expect_error("tile_resolution must be an even number in [2, 256], got 7")
	tn.tile_resolution = 7
	expect_error("tile_resolution must be an even number in [2, 256], got -4")
	tn.tile_resolution = -4
	check_eq(tn.tile_resolution, 32, "tile_resolution kept")
	expect_error("levels must be in [1, 16], got 0")
	tn.levels = 0
	expect_error("levels must be in [1, 16], got 1000000")
	tn.levels = 1000000
	check_eq(tn.levels, 7, "levels kept")
	expect_error("vertex_spacing must be a number in [0.001, 10000], got NaN")
	tn.vertex_spacing = NAN
	expect_error("vertex_spacing must be a number in [0.001, 10000], got -1")
	tn.vertex_spacing = -1.0
	check_eq(tn.vertex_spacing, 1.0, "vertex_spacing kept")
	expect_error("morph_width must be in [0, tile_resolution = 32], got 40")
	tn.morph_width = 40.0
	check_eq(tn.morph_width, 8.0, "morph_width kept")
	check(is_nan(tn.get_height(Vector2(1, 1))), "no data: NaN")
	tn.free()


func test_leaving_and_reentering_the_tree() -> void:
	var parent := Node3D.new()
	tree.root.add_child(parent)
	var tn := TerrainNode.new()
	tn.terrain_data = _data()
	check_eq(tn.get_piece_count(), 0, "nothing drawn outside the tree")
	parent.add_child(tn)
	var n := tn.get_piece_count()
	check(n > 0, "pieces drawn in the tree")
	parent.remove_child(tn)
	check_eq(tn.get_piece_count(), 0, "freed on leaving")
	parent.add_child(tn)
	check_eq(tn.get_piece_count(), n, "drawn again after re-entering")
	# Moving the node updates the shader's terrain frame.
	tn.position = Vector3(10, 2, 30)
	tn.scale = Vector3(2, 2, 2)
	await tree.process_frame
	check_eq(tn.material.get_shader_parameter("terrain_origin"), Vector3(10, 2, 30), "terrain_origin follows the node")
	check_eq(tn.material.get_shader_parameter("terrain_scale"), Vector3(2, 2, 2), "terrain_scale follows the node")
	parent.queue_free()


func test_the_target_is_found_again_when_replaced() -> void:
	# The node `target` names is looked up once; freed and replaced by another at the same path, the new one
	# is followed.
	var tn := TerrainNode.new()
	tn.terrain_data = _data()
	tree.root.add_child(tn)
	var a := Node3D.new()
	a.name = "FollowMe"
	a.position = Vector3(10, 0, 12)
	tree.root.add_child(a)
	tn.target = NodePath("../FollowMe")
	tn.update_now()
	check_eq(tn.material.get_shader_parameter("clipmap_target"), Vector2(10, 12), "follows the first node")
	a.free()
	var b := Node3D.new()
	b.name = "FollowMe"
	b.position = Vector3(-7, 0, 33)
	tree.root.add_child(b)
	tn.update_now()
	check_eq(tn.material.get_shader_parameter("clipmap_target"), Vector2(-7, 33), "follows its replacement")
	# Setting `target` looks the node up anew.
	var c := Node3D.new()
	c.position = Vector3(3, 0, 4)
	tree.root.add_child(c)
	tn.target = c.get_path()
	tn.update_now()
	check_eq(tn.material.get_shader_parameter("clipmap_target"), Vector2(3, 4), "follows a new target")
	tn.queue_free()
	b.queue_free()
	c.queue_free()


func test_reconfigure_in_tree() -> void:
	var tn := TerrainNode.new()
	tn.terrain_data = _data()
	var at := Node3D.new()
	at.position = Vector3(20, 0, 30)
	tree.root.add_child(at)
	tree.root.add_child(tn)
	tn.target = tn.get_path_to(at)
	tn.update_now()
	tn.levels = 3
	tn.tile_resolution = 8
	tn.vertex_spacing = 0.5
	# Level 2 has spacing 0.5 x 4 = 2 and reaches 16 of its samples out: 32 m.
	check_eq(tn.get_reach(), 32.0, "reach follows the parameters")
	await tree.process_frame
	tn.update_now()
	# The windows are remade for the new rings: one layer per level plus the fine one, 4N + 6 wide.
	var tex = tn.material.get_shader_parameter("clipmap_data")
	check(tex is Texture2DArray, "clipmap data texture bound after reconfiguring")
	if tex is Texture2DArray:
		var split: int = tn.material.get_shader_parameter("clipmap_split")
		check_eq(tex.get_layers(), 4 * split * split, "layers for 3 levels")
		check_eq(tn.material.get_shader_parameter("clipmap_window"), 38, "window for tile_resolution 8")
		check_eq(tex.get_width(), ceili(38.0 / split), "its tiles")
	check(tn.is_up_to_date(), "drawn again, up to date")
	check_near(tn.get_height(Vector2(10.3, 20.7)), tn.terrain_data.get_height(Vector2(10.3, 20.7)), 1e-5, "heights unchanged")
	tn.queue_free()
	at.queue_free()


func test_raycast_in_world_space() -> void:
	var t := _data()
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.position = Vector3(100, 5, -20)
	tn.scale = Vector3(2, 3, 2)
	var o := Vector3(130.5, 60, 10.25)
	var hit := tn.raycast(o, Vector3(0.3, -1, 0.2))
	check(is_finite(hit.x), "hits the moved, scaled terrain")
	check_near(hit.y, tn.get_height(Vector2(hit.x, hit.z)), 1e-3, "on the drawn surface")
	var empty := TerrainNode.new()
	check(is_nan(empty.raycast(o, Vector3.DOWN).x), "no data: nothing")
	empty.free()
	tn.free()


## The NAVIGATION view's lines (an internal child), if any.
func _nav_lines(tn: Node) -> MeshInstance3D:
	for c in tn.get_children(true):
		if c is MeshInstance3D and not c.is_queued_for_deletion():
			return c
	return null


## The NAVIGATION view draws exactly the edges of the faces a bake takes (get_navigation_faces over 96 units
## around the target's 32-unit cell, tolerance 0.25), follows edits, and is dropped when turned off.
func test_navigation_view_draws_the_faces_a_bake_takes() -> void:
	var root := Node3D.new()
	tree.root.add_child(root)
	var t := TerrainData.new()
	t.size = Vector2i(128, 128)
	t.generate_noise(4, 0.03, 3, 2.0, 0.5, 6.0, -1e9, TerrainData.NOISE_PERLIN)
	var flat := PackedFloat32Array()
	flat.resize(20 * 20)
	flat.fill(1.0)
	t.set_heights_region(Rect2i(50, 50, 20, 20), flat)
	var cam := Camera3D.new()
	root.add_child(cam)
	cam.position = Vector3(60, 50, 70)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	tn.debug_view = TerrainNode.DEBUG_VIEW_NAVIGATION
	await _process_frames(3)
	var c := (Vector2(floorf(60 / 32.0), floorf(70 / 32.0)) + Vector2(0.5, 0.5)) * 32.0
	var area := AABB(Vector3(c.x - 48, -1e7, c.y - 48), Vector3(96, 2e7, 96))
	for pass_no in 2:
		var faces := tn.get_navigation_faces(area, 0.25)
		var lines := _nav_lines(tn)
		check(lines != null, "lines drawn (pass %d)" % pass_no)
		if lines == null:
			break
		var v: PackedVector3Array = lines.mesh.surface_get_arrays(0)[Mesh.ARRAY_VERTEX]
		check(faces.size() > 100, "faces in the area (%d)" % faces.size())
		check_eq(v.size(), faces.size() * 2, "two line ends per face edge")
		var wrong := 0
		var lift := Vector3(0, 0.05, 0)
		for f in faces.size() / 3:
			for e in 3:
				wrong += int(not v[f * 6 + e * 2].is_equal_approx(faces[f * 3 + e] + lift))
				wrong += int(not v[f * 6 + e * 2 + 1].is_equal_approx(faces[f * 3 + (e + 1) % 3] + lift))
		check_eq(wrong, 0, "every line is a face edge, in order (pass %d)" % pass_no)
		# An edit: the lines follow.
		flat.fill(4.0)
		t.set_heights_region(Rect2i(50, 50, 20, 20), flat)
		await _process_frames(3)
	tn.debug_view = TerrainNode.DEBUG_VIEW_OFF
	await _process_frames(3)
	check(_nav_lines(tn) == null, "dropped when the view is off")
	root.queue_free()


func _process_frames(n: int) -> void:
	for i in n:
		await tree.process_frame


## Internal signal handlers are not script methods: nothing named `_on_…` in any class's method list (the
## class reference shows what scripts can call).
func test_no_internal_handlers_in_the_class_reference() -> void:
	var shown := PackedStringArray()
	for c in ["TerrainNode", "WanderingTerrain", "TerrainInstancer", "TerrainMaterial", "TerrainData", "TerrainRegions", "TerrainDetailLayer", "TerrainInstanceMesh", "TerrainBrushStroke"]:
		check(ClassDB.class_exists(c), "%s is registered" % c)
		for m in ClassDB.class_get_method_list(c, true):
			if String(m["name"]).begins_with("_on_"):
				shown.append("%s.%s" % [c, m["name"]])
	check(shown.is_empty(), "internal handlers exposed: %s" % shown)


## The NAVIGATION view follows the target where it is now, also when the data windows need not move (a small
## terrain the rings cover whole): it once stayed where the windows were last laid out.
func test_navigation_view_follows_the_target_when_the_windows_stay() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(128, 128)
	t.generate_noise(4, 0.03, 3, 2.0, 0.5, 6.0, -1e9, TerrainData.NOISE_PERLIN)
	var at := Node3D.new()
	at.position = Vector3(120, 0, 120)
	tree.root.add_child(at)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	tn.target = tn.get_path_to(at)
	tn.debug_view = TerrainNode.DEBUG_VIEW_NAVIGATION
	await _process_frames(3)
	at.position = Vector3(60, 0, 70)
	await _process_frames(3)
	var lines := _nav_lines(tn)
	check(lines != null, "lines drawn")
	if lines != null:
		var v: PackedVector3Array = lines.mesh.surface_get_arrays(0)[Mesh.ARRAY_VERTEX]
		var c := (Vector2(floorf(60 / 32.0), floorf(70 / 32.0)) + Vector2(0.5, 0.5)) * 32.0
		var faces := tn.get_navigation_faces(AABB(Vector3(c.x - 48, -1e7, c.y - 48), Vector3(96, 2e7, 96)), 0.25)
		check(faces.size() > 100, "faces around the target: %d" % faces.size())
		check_eq(v.size(), faces.size() * 2, "the lines are the faces around where the target is now")
	tn.queue_free()
	at.queue_free()
