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


## Whether world X/Z `w` lies within 0.08 units of a sample triangle's edge (rasterisation decides those).
func _near_triangle_edge(w: Vector2) -> bool:
	var sp := w - Vector2(0.5, 0.5)
	var f := sp - sp.floor()
	return minf(minf(f.x, 1.0 - f.x), minf(f.y, 1.0 - f.y)) < 0.08 or absf(f.x + f.y - 1.0) < 0.12


## The terrain with a 6 × 4 hole and a single-sample one, seen from above at 24 units across:
## [terrain, debug scene, camera].
func _holes_scene() -> Array:
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
	return [t, s, cam]


func test_holes_show_the_background_exactly() -> void:
	var h := _holes_scene()
	var t: TerrainData = h[0]
	var s: Array = h[1]
	var cam: Camera3D = h[2]
	await frames(3)
	var img := screenshot("clipmap_holes_" + renderer)
	s[0].queue_free()
	var wrong := 0
	var n_hole := 0
	var n := 0
	for py in range(0, img.get_height(), 2):
		for px in range(0, img.get_width(), 2):
			var w := _world(img, Vector2(256.05, 256.05), cam.size, px, py)
			if _near_triangle_edge(w):
				continue
			var hole := t.is_hole(w)
			n_hole += int(hole)
			n += 1
			wrong += int(_is_bg(img.get_pixel(px, py)) != hole)
	check(n_hole > 300, "hole pixels compared (%d)" % n_hole)
	check_eq(wrong, 0, "background exactly over holes, terrain elsewhere (%d pixels, %d over holes)" % [n, n_hole])
	print("clipmap holes: %d pixels compared, %d over holes, %d wrong" % [n, n_hole, wrong])


func test_hole_overlay_tints_exactly_the_holes() -> void:
	var h := _holes_scene()
	var t: TerrainData = h[0]
	var s: Array = h[1]
	var cam: Camera3D = h[2]
	(s[3] as TerrainNode).material.set_shader_parameter("show_holes", true)
	await frames(3)
	var img := screenshot("clipmap_hole_overlay_" + renderer)
	s[0].queue_free()
	var wrong := 0
	var cut := 0
	var n_hole := 0
	for py in range(0, img.get_height(), 2):
		for px in range(0, img.get_width(), 2):
			var w := _world(img, Vector2(256.05, 256.05), cam.size, px, py)
			if _near_triangle_edge(w):
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


## Pixel (px, py) of a top-down orthographic view of `size` units centred on `centre` → world X/Z.
func _world(img: Image, centre: Vector2, size: float, px: int, py: int) -> Vector2:
	var ppu := img.get_height() / size
	return centre + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)


func test_debug_views_show_what_the_shader_computes() -> void:
	var t := _data()
	var holes := PackedByteArray()
	holes.resize(16)
	holes.fill(1)
	t.set_holes_region(Rect2i(250, 252, 4, 4), holes)
	var s := _debug_scene(t, 0, 4.0)
	var tn: TerrainNode = s[3]
	var own := ShaderMaterial.new()
	own.shader = load("res://addons/wandering_terrain/shaders/terrain_node.gdshader")
	tn.material = own
	var cam: Camera3D = s[1]
	var centre := Vector2(256.05, 256.05)
	cam.size = 24.0
	cam.position = Vector3(centre.x, 300, centre.y)
	var r := t.get_height_range()
	var worst := {}
	# The compatibility renderer converts to sRGB with an approximation: mid tones land up to 8 levels off.
	var tol := (8.0 if renderer == "opengl3" else 3.0) / 255.0
	for view in [TerrainNode.DEBUG_VIEW_HEIGHTMAP, TerrainNode.DEBUG_VIEW_CHECKER, TerrainNode.DEBUG_VIEW_NORMALS, TerrainNode.DEBUG_VIEW_SLOPE, TerrainNode.DEBUG_VIEW_HOLES]:
		tn.debug_view = view
		await frames(3)
		var img := screenshot("debug_view_%d_%s" % [view, renderer])
		var w := 0.0
		var n := 0
		for py in range(1, img.get_height(), 5):
			for px in range(1, img.get_width(), 5):
				var p := _world(img, centre, cam.size, px, py)
				# Away from triangle edges (rasterisation) and sample-cell edges (the checker).
				var g := p - p.floor()
				if _near_triangle_edge(p) or minf(minf(g.x, 1.0 - g.x), minf(g.y, 1.0 - g.y)) < 0.08:
					continue
				var c := img.get_pixel(px, py)
				var hole := t.is_hole(p)
				var want: Color
				match view:
					TerrainNode.DEBUG_VIEW_HEIGHTMAP:
						var v := (t.get_height(p) - r.x) / (r.y - r.x)
						want = Color(v, v, v)
					TerrainNode.DEBUG_VIEW_CHECKER:
						var v := 0.8 if (int(floor(p.x)) + int(floor(p.y))) % 2 == 0 else 0.3
						want = Color(v, v, v)
					TerrainNode.DEBUG_VIEW_NORMALS:
						var nn := t.get_normal(p)
						want = Color(nn.x * 0.5 + 0.5, nn.z * 0.5 + 0.5, nn.y)
					TerrainNode.DEBUG_VIEW_SLOPE:
						var v := 1.0 - t.get_normal(p).y
						want = Color(v, v, v)
					TerrainNode.DEBUG_VIEW_HOLES:
						if hole:
							# Tinted, not cut.
							w = worst_of(w, 0.0 if (c.b > 0.3 and not _is_bg(c)) else 1.0)
							n += 1
							continue
						var v := (t.get_height(p) - r.x) / (r.y - r.x)
						want = Color(v, v, v)
				if hole and view != TerrainNode.DEBUG_VIEW_HOLES:
					continue
				n += 1
				w = worst_of(w, maxf(maxf(absf(c.r - want.r), absf(c.g - want.g)), absf(c.b - want.b)))
		worst[view] = [w, n]
		check(n > 500, "view %d: pixels compared (%d)" % [view, n])
		check(w <= tol, "view %d: the predicted colours (worst %f over %d pixels, %s)" % [view, w, n, renderer])
	print("debug views (%s): worst per view %s" % [renderer, worst])
	# Levels: the centre is level 0's colour, a far corner another level's.
	tn.debug_view = TerrainNode.DEBUG_VIEW_LEVELS
	cam.size = 200.0
	await frames(3)
	var img := screenshot("debug_view_levels_" + renderer)
	var mid := img.get_pixel(img.get_width() / 2 + 3, img.get_height() / 2 + 3)
	var far := img.get_pixel(4, 4)
	check(mid.r > 0.8 and mid.g < 0.55 and mid.b < 0.55, "level 0 is red: %s" % mid)
	check(not far.is_equal_approx(mid), "a far level has another colour: %s" % far)
	tn.debug_view = TerrainNode.DEBUG_VIEW_OFF
	await frames(2)
	var back := screenshot("debug_view_off_" + renderer)
	var c0 := back.get_pixel(back.get_width() / 2 + 3, back.get_height() / 2 + 3)
	check(not c0.is_equal_approx(mid), "OFF draws the node's material again")
	expect_error("TerrainNode.debug_view must be in [0, 13]")
	tn.debug_view = 14
	check_eq(tn.debug_view, TerrainNode.DEBUG_VIEW_OFF, "kept")
	s[0].queue_free()


## The COLLISION view: green exactly where a ray down hits a collision tile, grey elsewhere (a pixel whose
## neighbours 1.5 units off disagree lies on the collision's rim and is skipped).
func test_collision_view_shows_the_tiles_in_the_physics_engine() -> void:
	var t := _data()
	var s := _debug_scene(t, 0, 4.0)
	var tn: TerrainNode = s[3]
	var cam: Camera3D = s[1]
	cam.size = 240.0
	tn.collision_radius = 40.0
	await frames(2)
	tn.update_collision()
	var space := tn.get_world_3d().direct_space_state
	var hits := func(p: Vector2) -> bool:
		var q := PhysicsRayQueryParameters3D.create(Vector3(p.x, 1000, p.y), Vector3(p.x, -1000, p.y))
		return not space.intersect_ray(q).is_empty()
	var expected := func(p: Vector2) -> int:
		var h: bool = hits.call(p)
		for d in [Vector2(1.5, 0), Vector2(-1.5, 0), Vector2(0, 1.5), Vector2(0, -1.5)]:
			if hits.call(p + d) != h:
				return -1
		return 1 if h else 0
	var seen: Array = await _case_cells_view(s, TerrainNode.DEBUG_VIEW_COLLISION, expected, "debug_view_collision")
	check(seen[1] > 200 and seen[0] > 200, "tiles and ground without collision both seen (%s)" % [seen])
	s[0].queue_free()


## After a flight of small steps and an edit, every slot of every layer of the clipmap data texture holds
## what the terrain says there: on Forward+ and Mobile the windows reach the GPU by their written
## rectangles (a Texture2DArrayRD: strips for a move, the footprint for an edit), read back from the GPU
## here. The Compatibility renderer stores each layer as 4 × 4 tiles in three textures that take turns and
## re-sends the written tiles whole (the other cases check what it draws;
## its `get_layer_data` gave back other texels than those sent, so nothing is read back there).
func test_clipmap_texture_holds_the_terrain_after_moves_and_edits() -> void:
	var t := _data()
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.position = Vector3(256, 120, 300)
	cam.rotation_degrees.x = -40.0
	root.add_child(cam)
	cam.make_current()
	var target := Node3D.new()
	root.add_child(target)
	target.position = Vector3(230.3, 0, 280.6)
	var tn := _node(t, target)
	await frames(2)
	var tex = tn.material.get_shader_parameter("clipmap_data")
	if renderer == "vulkan":
		check(tex is Texture2DArrayRD, "Forward+: the windows live on the rendering device (%s)" % tex)
	else:
		check(tex is Texture2DArray, "Compatibility: a Texture2DArray (%s)" % tex)
	tn.take_uploaded_bytes()
	var moved := 0
	var drawn_from := {}
	for i in 30:
		target.position += Vector3(1.7, 0, -1.3)
		await frames(1)
		moved += tn.take_uploaded_bytes()
		drawn_from[tn.material.get_shader_parameter("clipmap_data").get_instance_id()] = true
	var layer_bytes := 70 * 70 * 16
	var tile_bytes := 18 * 18 * 16   # a 70² window as 4 × 4 tiles of 18²
	if renderer == "vulkan":
		check(moved < 30 * 2 * layer_bytes, "moves send strips, not layers (%d bytes for 30 steps)" % moved)
	else:
		check_eq(tn.material.get_shader_parameter("clipmap_split"), 4, "Compatibility: layers stored as 4 × 4 tiles")
		check_eq(tex.get_layers(), 16 * (tn.material.get_shader_parameter("clipmap_fine_layer") + 1), "16 texture layers a window layer")
		# Each tile reaches the three textures that take turns (whole layers into one texture: ~100 layers here).
		check(moved > 0 and moved % tile_bytes == 0 and moved < 30 * 4 * layer_bytes, "moves send the tiles their strips cross (%d bytes for 30 steps)" % moved)
		check_eq(drawn_from.size(), 3, "three textures take turns (a frame updates the one drawn from longest ago)")
	var bump := PackedFloat32Array()
	var r := Rect2i(262, 230, 9, 7)
	for v in t.get_heights_region(r):
		bump.append(v + 5.0)
	check(t.set_heights_region(r, bump), "edit accepted")
	await frames(2)
	var edited := tn.take_uploaded_bytes()
	if renderer == "vulkan":
		check(edited > 0 and edited < 2 * layer_bytes, "an edit sends its footprint (%d bytes)" % edited)
	else:
		var layers: int = tn.material.get_shader_parameter("clipmap_fine_layer") + 1
		# (with the tiles the texture taking its turn missed during the moves)
		check(edited > 0 and edited < layers * layer_bytes, "an edit sends the tiles of its footprint, not its layers (%d bytes)" % edited)
	tex = tn.material.get_shader_parameter("clipmap_data")
	var w: int = tn.material.get_shader_parameter("clipmap_window")
	var fine: int = tn.material.get_shader_parameter("clipmap_fine_layer")
	var fo: Vector2 = tn.material.get_shader_parameter("clipmap_fine_origin")
	var at := Vector2(target.position.x, target.position.z)
	if renderer != "vulkan":
		root.queue_free()
		return
	var res := _layers_match(t, tex, w, fine, Vector2i(fo), at)
	root.queue_free()
	check(res[0] > 5000, "compared %d texels" % res[0])
	check(res[1] <= 1e-4, "texels equal the terrain (worst %s, %d off)" % [res[1], res[2]])
	print("clipmap texture (%s) after 30 steps and an edit: %d texels compared, worst %s; %d bytes for the steps, %d for the edit" % [renderer, res[0], res[1], moved, edited])


## Compares every slot of `tex`'s layers whose point lies inside `t` with the terrain: the fine layer's
## with the sample's height, a level's with get_height at its lattice point (windows laid out around the
## target `at`, 2N + 2 = 34 indices before its cell). Returns [texels compared, worst error, count off].
func _layers_match(t: TerrainData, tex: TextureLayered, w: int, fine: int, fine_origin: Vector2i, at: Vector2) -> Array:
	var worst := 0.0
	var count := 0
	var off := 0
	var n := t.size.x
	var samples := t.get_heights_region(Rect2i(0, 0, n, n))
	for layer in tex.get_layers():
		var img := tex.get_layer_data(layer)
		var u := pow(2.0, layer)
		var o := fine_origin if layer == fine else Vector2i(floori(at.x / u) - 34, floori(at.y / u) - 34)
		for sz in w:
			for sx in w:
				var gx: int = o.x + posmod(sx - o.x, w)
				var gz: int = o.y + posmod(sz - o.y, w)
				var want := NAN
				if layer == fine:
					if gx < 0 or gz < 0 or gx >= n or gz >= n:
						continue
					want = samples[gz * n + gx]
				else:
					var p := Vector2(gx * u, gz * u)
					if p.x < 1 or p.y < 1 or p.x > n - 2 or p.y > n - 2:
						continue
					want = t.get_height(p)
				var e := absf(img.get_pixel(sx, sz).r - want)
				worst = worst_of(worst, e)
				count += 1
				off += int(not (e <= 1e-4))
	return [count, worst, off]
