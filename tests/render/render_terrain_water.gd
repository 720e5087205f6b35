extends "res://wt_test.gd"
## TerrainWater on the GPU: looking straight down, the water covers exactly the pixels where
## get_water_height says there is water (the ground below the level), ≥ 99.5 % agreement away from the
## shoreline's one-pixel border, on both renderers; nothing over dry ground.

const N := 200
const Suite := preload("res://suites/test_terrain_water.gd")


func test_water_covers_exactly_where_the_queries_say() -> void:
	RenderingServer.set_default_clear_color(Color(0, 0, 0))
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = N * 1.0
	cam.far = 500.0
	cam.position = Vector3(N * 0.5, 200.0, N * 0.5)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	root.add_child(cam)
	cam.make_current()
	var suite = Suite.new()
	var t: TerrainData = suite._terrain()
	# Rolling ground on the plain, so the shore is curved and the sea's edge crosses sample squares.
	var h := t.heights
	for z in N:
		for x in N:
			h[z * N + x] += 0.8 * sin(x * 0.11) * cos(z * 0.07)
	t.heights = h
	var tn := TerrainNode.new()
	var probe := ShaderMaterial.new()
	probe.shader = load("res://render/terrain_green_probe.gdshader")
	tn.material = probe
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var water := TerrainWater.new()
	water.sea_level = 10.3
	water.lake_points = PackedVector2Array([Vector2(50.5, 50.5)])
	var wp := ShaderMaterial.new()
	wp.shader = load("res://render/water_probe.gdshader")
	water.material = wp
	tn.add_child(water)
	water.update_water()
	await frames(4)
	var img := screenshot("terrain_water")
	var size := img.get_size()
	# The CPU's answer per pixel, then the comparison away from pixels whose neighbours disagree.
	var wet := PackedByteArray()
	wet.resize(size.x * size.y)
	for py in size.y:
		for px in size.x:
			var o := cam.project_ray_origin(Vector2(px + 0.5, py + 0.5))
			wet[py * size.x + px] = int(not is_nan(water.get_water_height(Vector2(o.x, o.z))))
	var compared := 0
	var agree := 0
	var water_pixels := 0
	var dry_drawn := 0
	for py in range(1, size.y - 1):
		for px in range(1, size.x - 1):
			var k := py * size.x + px
			var border := false
			for d in [-1, 1, -size.x, size.x]:
				border = border or wet[k + d] != wet[k]
			if border:
				continue
			var c := img.get_pixel(px, py)
			var drawn_water := c.r > 0.5 and c.b > 0.5 and c.g < 0.5
			compared += 1
			agree += int(drawn_water == (wet[k] == 1))
			water_pixels += wet[k]
			dry_drawn += int(drawn_water and wet[k] == 0)
	var share := float(agree) / maxf(compared, 1)
	print("water %s: %d pixels compared, %d water, agreement %.4f, water drawn over dry ground %d" % [renderer, compared, water_pixels, share, dry_drawn])
	check(compared > 20000 and water_pixels > 3000 and water_pixels < compared - 3000, "both water and ground in view (%d of %d)" % [water_pixels, compared])
	check(share >= 0.995, "the drawn water is where the queries say: %.4f" % share)
	check(dry_drawn <= compared / 1000, "no water over dry ground (%d pixels)" % dry_drawn)
	root.queue_free()
	await frames(1)


## The shipped looks (default and pixel art) compile and draw: water over the lake and the sea, the
## terrain (drawn green here) on the crests.
func test_the_default_and_pixel_art_looks_draw_water() -> void:
	for pixel_art in [false, true]:
		RenderingServer.set_default_clear_color(Color(0, 0, 0))
		var root := Node3D.new()
		tree.root.add_child(root)
		var cam := Camera3D.new()
		cam.projection = Camera3D.PROJECTION_ORTHOGONAL
		cam.size = N * 1.0
		cam.far = 500.0
		cam.position = Vector3(N * 0.5, 200.0, N * 0.5)
		cam.rotation_degrees = Vector3(-90, 0, 0)
		root.add_child(cam)
		cam.make_current()
		var sun := DirectionalLight3D.new()
		sun.rotation_degrees = Vector3(-60, 30, 0)
		root.add_child(sun)
		var suite = Suite.new()
		var tn := TerrainNode.new()
		var probe := ShaderMaterial.new()
		probe.shader = load("res://render/terrain_green_probe.gdshader")
		tn.material = probe
		tn.terrain_data = suite._terrain()
		root.add_child(tn)
		tn.target = tn.get_path_to(cam)
		var water := TerrainWater.new()
		water.pixel_art = pixel_art
		water.sea_level = 10.3
		water.lake_points = PackedVector2Array([Vector2(50.5, 50.5)])
		tn.add_child(water)
		await frames(4)
		var img := screenshot("terrain_water_look_%s" % ("pixel_art" if pixel_art else "default"))
		var at := func(p: Vector2) -> Color:
			var s := cam.unproject_position(Vector3(p.x, 0, p.y))
			return img.get_pixel(int(s.x), int(s.y))
		var lake: Color = at.call(Vector2(50.5, 50.5))
		var sea: Color = at.call(Vector2(20.5, 180.5))
		var crest: Color = at.call(Vector2(50.5, 23.0))
		var what := "pixel art" if pixel_art else "default"
		# Translucent water over the green-drawn ground: no longer pure green, blue in it.
		check(not lake.is_equal_approx(Color(0, 1, 0)) and lake.b > 0.15, "%s: the lake is water-coloured (%s)" % [what, lake])
		check(not sea.is_equal_approx(Color(0, 1, 0)) and sea.b > 0.15, "%s: the sea too (%s)" % [what, sea])
		check(crest.is_equal_approx(Color(0, 1, 0)), "%s: the crest is dry ground (%s)" % [what, crest])
		root.queue_free()
		await frames(1)


func test_deep_water_hides_the_floor() -> void:
	# A floor drawn pure green sloping into the sea: over shallow water the floor shows through; over
	# deep water (20 units) the default look is the water's own colour (`clarity`), not tinted glass.
	RenderingServer.set_default_clear_color(Color(0, 0, 0))
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = N * 1.0
	cam.far = 500.0
	cam.position = Vector3(N * 0.5, 200.0, N * 0.5)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	root.add_child(cam)
	cam.make_current()
	var t := TerrainData.new()
	t.size = Vector2i(N, N)
	var h := PackedFloat32Array()
	h.resize(N * N)
	for z in N:
		for x in N:
			h[z * N + x] = 10.0 - 0.2 * x
	t.heights = h
	var tn := TerrainNode.new()
	var probe := ShaderMaterial.new()
	probe.shader = load("res://render/terrain_green_probe.gdshader")
	tn.material = probe
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var water := TerrainWater.new()
	water.sea_level = 10.0
	tn.add_child(water)
	await frames(4)
	var img := screenshot("terrain_water_depth")
	var at := func(x: float) -> Color:
		var s := cam.unproject_position(Vector3(x, 0, N * 0.5))
		return img.get_pixel(int(s.x), int(s.y))
	var shallow: Color = at.call(5.5)    # 1 unit deep
	var deep: Color = at.call(100.5)     # 20 units deep
	print("water depth (%s): green over 1 unit %.3f, over 20 units %.3f" % [renderer, shallow.g, deep.g])
	check(deep.g < 0.3, "deep water hides the green floor (green %.3f)" % deep.g)
	check(shallow.g > deep.g + 0.1, "shallow water shows it (%.3f vs %.3f)" % [shallow.g, deep.g])
	root.queue_free()
	await frames(1)
