extends "res://wt_test.gd"
## WanderingTerrain (the follow node) from GDScript: placement uniforms, height queries through the node,
## data texture kept current, bad input.


func _setup() -> Array:
	var root := Node3D.new()
	var data := TerrainData.new()
	data.size = Vector2i(32, 32)
	data.generate_noise(1, 0.1, 3, 2.0, 0.5, 5.0, -1e9, 0)
	var cam := Camera3D.new()
	root.add_child(cam)
	var wt := WanderingTerrain.new()
	wt.terrain_data = data
	root.add_child(wt)
	wt.camera = wt.get_path_to(cam)
	tree.root.add_child(root)
	return [root, wt, cam, data]


func test_places_mesh_like_the_document() -> void:
	var s := _setup()
	var wt: WanderingTerrain = s[1]
	var cam: Camera3D = s[2]
	wt.snap_to_grid = false
	cam.rotation.y = 0.7
	cam.position = Vector3(10.3, 5, 12.9)
	await tree.process_frame
	await tree.process_frame
	var mat: ShaderMaterial = wt.material
	check(mat != null and mat.shader != null, "default material with the wandering terrain shader")
	var tr: Vector2 = mat.get_shader_parameter("translation")
	check(tr.distance_to(Vector2(10.3 - 0.5, 12.9 - 0.5)) < 1e-4, "translation = camera X/Z - 0.5, got %s" % tr)
	check_near(mat.get_shader_parameter("rotation"), PI - 0.7, 1e-5, "rotation = PI - camera yaw")
	check(mat.get_shader_parameter("data_tex") is Texture2D, "data_tex set")
	check_eq(mat.get_shader_parameter("terrain_size"), Vector2(32, 32), "terrain_size")
	s[0].queue_free()


func test_snapping_keeps_the_placement_on_a_grid() -> void:
	var s := _setup()
	var wt: WanderingTerrain = s[1]
	var cam: Camera3D = s[2]
	var mesh: WanderingMesh = wt.mesh
	var step := mesh.start_size / pow(2, mesh.start_subdivision - mini(mesh.lods.size(), mesh.start_subdivision - 1))
	cam.position = Vector3(10.3, 5, 12.9)
	await tree.process_frame
	var tr: Vector2 = wt.material.get_shader_parameter("translation") + Vector2(0.5, 0.5)
	var q := tr / step
	check(absf(q.x - roundf(q.x)) < 1e-4 and absf(q.y - roundf(q.y)) < 1e-4, "snapped to %s: %s" % [step, tr])
	check(tr.distance_to(Vector2(10.3, 12.9)) <= step, "near the camera")
	s[0].queue_free()


func test_height_through_the_node_uses_its_position() -> void:
	var s := _setup()
	var wt: WanderingTerrain = s[1]
	var data: TerrainData = s[3]
	wt.position = Vector3(100, 0, -50)
	check_eq(wt.get_height(Vector2(110.5, -40.25)), data.get_height(Vector2(10.5, 9.75)), "offset by the node position")
	check_eq(wt.get_height_at(Vector3(110.5, -7.0, -40.25)), wt.get_height(Vector2(110.5, -40.25)), "get_height_at(Vector3) = get_height(X, Z)")
	check(wt.get_normal(Vector2(110.5, -40.25)).is_equal_approx(data.get_normal(Vector2(10.5, 9.75))), "normal too")
	s[0].queue_free()


func test_data_texture_follows_edits() -> void:
	var s := _setup()
	var wt: WanderingTerrain = s[1]
	var data: TerrainData = s[3]
	var tex: Texture2D = wt.material.get_shader_parameter("data_tex")
	data.set_heights_region(Rect2i(3, 3, 1, 1), PackedFloat32Array([42.0]))
	check(wt.material.get_shader_parameter("data_tex") == tex, "same texture object")
	check_eq(data.get_data_image().get_pixel(3, 3).r, 42.0, "data image holds the edit")
	data.size = Vector2i(40, 20)
	check_eq(wt.material.get_shader_parameter("terrain_size"), Vector2(40, 20), "terrain_size follows a resize")
	check(wt.material.get_shader_parameter("data_tex") == tex, "same texture object after a resize")
	check_eq(tex.get_size(), Vector2(40, 20), "texture resized in place")
	s[0].queue_free()


func test_culling_box_follows_the_mesh() -> void:
	var s := _setup()
	var wt: WanderingTerrain = s[1]
	await tree.process_frame
	# (Its one internal child is the surface cache's SubViewport.)
	check_eq(wt.get_child_count(), 0, "no child nodes (the mesh is a RenderingServer instance)")
	var before := wt.get_aabb().size.x
	var mesh: WanderingMesh = wt.mesh
	mesh.start_size = mesh.start_size * 3.0
	await tree.process_frame
	check(wt.get_aabb().size.x > 2.5 * before, "box grew with the mesh: %s -> %s" % [before, wt.get_aabb().size.x])
	s[0].queue_free()


func test_queries_before_entering_the_tree() -> void:
	var data := TerrainData.new()
	data.size = Vector2i(16, 16)
	data.generate_noise(1, 0.2, 2, 2.0, 0.5, 4.0, -1e9, 0)
	var wt := WanderingTerrain.new()
	wt.terrain_data = data
	wt.position = Vector3(5, 0, 7)
	check_eq(wt.get_height(Vector2(8.5, 9.5)), data.get_height(Vector2(3.5, 2.5)), "local position used outside the tree")
	wt.free()


func test_bad_input() -> void:
	var s := _setup()
	var wt: WanderingTerrain = s[1]
	expect_error("WanderingTerrain.cast_shadow must be in [0, 3], got 7")
	wt.cast_shadow = 7
	check_eq(wt.cast_shadow, 1, "cast_shadow kept")
	wt.terrain_data = null
	check(is_nan(wt.get_height(Vector2(1, 1))), "no data: NaN")
	await tree.process_frame
	s[0].queue_free()


func test_setup_warning_without_data() -> void:
	var wt := WanderingTerrain.new()
	var w := wt.check_setup()
	check(w.size() == 1 and w[0].contains("terrain_data"), "warns without terrain_data: %s" % w)
	wt.terrain_data = TerrainData.new()
	check_eq(wt.check_setup().size(), 0, "no warning with data")
	wt.free()


func test_debug_view_refuses_unknown_views() -> void:
	var s := _setup()
	var wt: WanderingTerrain = s[1]
	wt.debug_view = WanderingTerrain.DEBUG_VIEW_CONTROL
	check_eq(wt.debug_view, WanderingTerrain.DEBUG_VIEW_CONTROL, "a view is taken")
	expect_error("WanderingTerrain.debug_view must be in [0, 13]")
	wt.debug_view = -1
	check_eq(wt.debug_view, WanderingTerrain.DEBUG_VIEW_CONTROL, "kept after a bad view")
	wt.debug_view = WanderingTerrain.DEBUG_VIEW_OFF
	check_eq(wt.debug_view, 0, "and off again")
	s[0].queue_free()
