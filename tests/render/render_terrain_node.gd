extends "res://render/clipmap_views.gd"
## TerrainNode (geometry clipmap) on the GPU over TerrainData: the shared views (no cracks, GPU = CPU heights,
## no popping, coarse vertices), an edit across a level boundary, and holes.


func test_no_cracks_from_many_viewpoints() -> void:
	await _case_no_cracks_from_many_viewpoints()


func test_finest_level_equals_get_height() -> void:
	await _case_finest_level_equals_get_height()


func test_no_popping_when_levels_snap() -> void:
	await _case_no_popping_when_levels_snap()


func test_coarse_level_vertices_equal_get_height() -> void:
	await _case_coarse_level_vertices_equal_get_height()


func test_edit_across_a_level_boundary() -> void:
	var t := _data()
	var s := _debug_scene(t, 2, 4.0)
	var cam: Camera3D = s[1]
	var tn: TerrainNode = s[3]
	# Levels 1 and 2 meet about 66 units east of the target; the edit spans 40..100 units east.
	cam.size = 48.0
	var centre := Vector2(326.1, 256.1)
	cam.position = Vector3(centre.x, 300, centre.y)
	await frames(3)
	var before := tree.root.get_texture().get_image()
	var w := 61
	var d := 41
	var bump := PackedFloat32Array()
	for j in d:
		for i in w:
			bump.append(t.get_heights_region(Rect2i(296 + i, 236 + j, 1, 1))[0] + 12.0 * sin(PI * i / (w - 1)) * sin(PI * j / (d - 1)))
	check(t.set_heights_region(Rect2i(296, 236, w, d), bump), "edit accepted")
	var bytes := tn.take_uploaded_bytes()
	await frames(2)
	bytes = tn.take_uploaded_bytes()
	# The debug range must not move: keep the one from before the edit, widened for the bump.
	var r: Vector2 = s[4] + Vector2(0, 14)
	tn.material.set_shader_parameter("debug_height_range", r)
	await frames(2)
	# Even lattice points of level 1 are level 2's vertices too: compare every 4 units on both sides.
	var res := _vertex_check(t, centre, 4, r, "clipmap_edit_vertex_height_" + renderer)
	var after := tree.root.get_texture().get_image()
	var changed := 0
	for py in range(0, after.get_height(), 4):
		for px in range(0, after.get_width(), 4):
			changed += int(not after.get_pixel(px, py).is_equal_approx(before.get_pixel(px, py)))
	s[0].queue_free()
	check(res[0] >= 80, "only %d vertex pixels" % res[0])
	check_eq(res[2], 0, "vertices off by more than %s after the edit (worst %s)" % [res[3], res[1]])
	check(changed > 100, "the edit shows (%d pixels changed)" % changed)
	check(bytes > 0 and bytes < 1000000, "edit uploads only the touched layers (%d bytes)" % bytes)
	print("clipmap edit across levels 1/2: %d vertex pixels, worst |GPU - CPU| %s; %d bytes uploaded" % [res[0], res[1], bytes])


func test_holes_show_the_background_exactly() -> void:
	var t := _data()
	var holes := PackedByteArray()
	holes.resize(6 * 4)
	holes.fill(1)
	t.set_holes_region(Rect2i(250, 252, 6, 4), holes)
	t.set_holes_region(Rect2i(261, 258, 1, 1), PackedByteArray([1]))
	var s := _debug_scene(t, 0, 4.0)
	var cam: Camera3D = s[1]
	cam.size = 24.0
	cam.position = Vector3(256.05, 300, 256.05)
	await frames(3)
	var img := screenshot("clipmap_holes_" + renderer)
	s[0].queue_free()
	var ppu := img.get_height() / cam.size
	var wrong := 0
	var n_hole := 0
	var n := 0
	for py in range(0, img.get_height(), 2):
		for px in range(0, img.get_width(), 2):
			var w := Vector2(256.05, 256.05) + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)
			# Skip pixels within 0.08 units of a triangle edge (rasterisation decides those).
			var sp := w - Vector2(0.5, 0.5)
			var f := sp - sp.floor()
			if minf(minf(f.x, 1.0 - f.x), minf(f.y, 1.0 - f.y)) < 0.08 or absf(f.x + f.y - 1.0) < 0.12:
				continue
			var hole := t.is_hole(w)
			n_hole += int(hole)
			n += 1
			wrong += int(_is_bg(img.get_pixel(px, py)) != hole)
	check(n_hole > 300, "hole pixels compared (%d)" % n_hole)
	check_eq(wrong, 0, "background exactly over holes, terrain elsewhere (%d pixels, %d over holes)" % [n, n_hole])
	print("clipmap holes: %d pixels compared, %d over holes, %d wrong" % [n, n_hole, wrong])


func test_hole_overlay_tints_exactly_the_holes() -> void:
	var t := _data()
	var holes := PackedByteArray()
	holes.resize(6 * 4)
	holes.fill(1)
	t.set_holes_region(Rect2i(250, 252, 6, 4), holes)
	t.set_holes_region(Rect2i(261, 258, 1, 1), PackedByteArray([1]))
	var s := _debug_scene(t, 0, 4.0)
	var cam: Camera3D = s[1]
	cam.size = 24.0
	cam.position = Vector3(256.05, 300, 256.05)
	(s[3] as TerrainNode).material.set_shader_parameter("show_holes", true)
	await frames(3)
	var img := screenshot("clipmap_hole_overlay_" + renderer)
	s[0].queue_free()
	var ppu := img.get_height() / cam.size
	var wrong := 0
	var cut := 0
	var n_hole := 0
	for py in range(0, img.get_height(), 2):
		for px in range(0, img.get_width(), 2):
			var w := Vector2(256.05, 256.05) + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)
			var sp := w - Vector2(0.5, 0.5)
			var f := sp - sp.floor()
			if minf(minf(f.x, 1.0 - f.x), minf(f.y, 1.0 - f.y)) < 0.08 or absf(f.x + f.y - 1.0) < 0.12:
				continue
			var c := img.get_pixel(px, py)
			cut += int(_is_bg(c))
			var hole := t.is_hole(w)
			n_hole += int(hole)
			# Tinted: the overlay's blue over the height colours (which have none).
			wrong += int((c.b > 0.3 and not _is_bg(c)) != hole)
	check(n_hole > 300, "hole pixels compared (%d)" % n_hole)
	check_eq(cut, 0, "with the overlay nothing is cut")
	check_eq(wrong, 0, "tinted exactly over the holes is_hole reports")
