extends "res://wt_test.gd"
## TerrainDetailLayer drawn: with an unlit red probe box per instance seen straight down, the red pixels are
## exactly where get_detail_transforms puts the boxes, and the MultiMeshes hold those transforms (read back),
## also after an edit regrows the touched cells. The built-in grass and its pixel-art variant draw green
## blades over the ground.

const SIZE := 128
const RED := Color(1, 0, 0)
const Coverage := preload("res://render/coverage.gd")


func _terrain() -> TerrainNode:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(5, 1.0 / 40.0, 3, 2.0, 0.5, 3.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	return tn


func _scene(layer: TerrainDetailLayer, cam: Camera3D) -> Array:
	var tn := _terrain()
	var inst := TerrainInstancer.new()
	inst.detail_layers = [layer] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	return [tn, inst, cam]


func _probe_layer() -> TerrainDetailLayer:
	var l := TerrainDetailLayer.new()
	var box := BoxMesh.new()
	box.size = Vector3(1.0, 1.0, 1.0)
	var mat := StandardMaterial3D.new()
	mat.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
	mat.albedo_color = RED
	box.material = mat
	l.mesh = box
	l.density = 0.05
	l.view_radius = 200.0
	l.scale_min = 1.0
	l.scale_max = 1.4
	# Upright boxes, so that their tops seen from above are squares turned by the yaw.
	l.align_to_normal = 0.0
	l.slope_max = 90.0
	l.seed = 2
	return l


func _top_down() -> Camera3D:
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = 100.0
	cam.far = 1000.0
	cam.position = Vector3(SIZE / 2.0, 300.0, SIZE / 2.0)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	return cam


## Worst distance between the drawn origins and the CPU's, matched after sorting (INF if counts differ).
func _match_error(drawn: Array[Transform3D], cpu: Array[Transform3D]) -> float:
	if drawn.size() != cpu.size():
		return INF
	var key := func(a: Transform3D, b: Transform3D) -> bool:
		return a.origin.x < b.origin.x or (a.origin.x == b.origin.x and a.origin.z < b.origin.z)
	var a := drawn.duplicate()
	var b := cpu.duplicate()
	a.sort_custom(key)
	b.sort_custom(key)
	var worst := 0.0
	for i in a.size():
		worst = worst_of(worst, (a[i].origin - b[i].origin).length())
		worst = worst_of(worst, (a[i].basis.x - b[i].basis.x).length())
	return worst


func test_detail_drawn_where_get_detail_transforms_puts_it() -> void:
	RenderingServer.set_default_clear_color(Color(1, 0, 1))
	var s := _scene(_probe_layer(), _top_down())
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var cam: Camera3D = s[2]
	inst.update_now()
	await frames(3)
	var img := screenshot("detail_top_down")
	var all := Rect2(-10, -10, SIZE + 20, SIZE + 20)
	var ts := inst.get_detail_transforms(0, all)
	var c := Coverage.of(img, cam, ts)
	var agreement := float(c[0]) / maxf(c[1], 1.0)
	print("detail render (%s): %d instances, %d predicted pixels, agreement %.4f" % [renderer, ts.size(), c[2], agreement])
	check(c[2] > 2000, "enough detail pixels in view (%d)" % c[2])
	check(agreement >= 0.99, "red pixels where get_detail_transforms puts the boxes: agreement %.4f" % agreement)
	var drawn := inst.get_detail_drawn_transforms(0)
	check(_match_error(drawn, ts) <= 1e-4, "the MultiMeshes hold get_detail_transforms: %d vs %d, worst %f" % [drawn.size(), ts.size(), _match_error(drawn, ts)])
	# A smooth bump 2 high: the touched cells regrow on the new ground, the rest stay. (Gentle slopes: boxes
	# on a cliff would sink into it and be hidden.)
	var square := Rect2i(20, 20, 30, 30)
	var heights := tn.terrain_data.get_heights_region(square)
	var top := -INF
	for j in 30:
		for i in 30:
			heights[j * 30 + i] += 2.0 * sin(PI * i / 29.0) * sin(PI * j / 29.0)
			top = maxf(top, heights[j * 30 + i])
	tn.terrain_data.set_heights_region(square, heights)
	inst.update_now()
	await frames(3)
	var after := inst.get_detail_transforms(0, all)
	var before_drawn := drawn
	drawn = inst.get_detail_drawn_transforms(0)
	# Only the cells the edit touched were regrown: the drawn transforms far from it are the same bits.
	var far := func(ts: Array[Transform3D]) -> Array[Transform3D]:
		var out: Array[Transform3D] = []
		for tr in ts:
			if tr.origin.x > 80.0 or tr.origin.z > 80.0:
				out.append(tr)
		return out
	check(far.call(before_drawn).size() > 100 and far.call(before_drawn) == far.call(drawn), "far cells drawn exactly as before the edit")
	check(_match_error(drawn, after) <= 1e-4, "after an edit, drawn = get_detail_transforms: worst %f" % _match_error(drawn, after))
	var moved := 0
	for i in after.size():
		moved += int(i < ts.size() and absf(after[i].origin.y - ts[i].origin.y) > 0.5)
	check(moved > 10, "detail rose with the bump: %d" % moved)
	img = screenshot("detail_after_edit")
	c = Coverage.of(img, cam, after)
	check(float(c[0]) / maxf(c[1], 1.0) >= 0.99, "after the edit: agreement %.4f" % (float(c[0]) / maxf(c[1], 1.0)))
	for n in s:
		n.queue_free()


## Share of pixels in the lower half of the picture that are grass-green.
func _green_share(img: Image) -> float:
	var green := 0
	var n := 0
	for py in range(img.get_height() / 2, img.get_height()):
		for px in img.get_width():
			var col := img.get_pixel(px, py)
			green += int(col.g > col.r * 1.1 and col.g > col.b * 1.3)
			n += 1
	return float(green) / n


func test_built_in_grass_and_its_pixel_art_variant_draw_green_blades() -> void:
	RenderingServer.set_default_clear_color(Color(0.5, 0.6, 0.8))
	var cam := Camera3D.new()
	cam.position = Vector3(SIZE / 2.0, 6.0, SIZE / 2.0 + 10.0)
	cam.rotation_degrees = Vector3(-25, 0, 0)
	var sun := add_sun(tree.root)
	var l := TerrainDetailLayer.new()
	l.density = 12.0
	l.view_radius = 40.0
	var s := _scene(l, cam)
	var tn: TerrainNode = s[0]
	# Grey ground, so that only the grass is green.
	var look := TerrainMaterial.new()
	var grey := TerrainLayer.new()
	grey.albedo_color = Color(0.5, 0.5, 0.5)
	look.layers = [grey] as Array[TerrainLayer]
	tn.terrain_material = look
	var inst: TerrainInstancer = s[1]
	# Bare ground first (the terrain's plain look is not green).
	l.density = 0.01
	inst.update_now()
	await frames(3)
	var bare := _green_share(screenshot("detail_bare_ground"))
	l.density = 12.0
	await tree.process_frame
	inst.update_now()
	await frames(3)
	var grass := _green_share(screenshot("detail_grass"))
	print("grass render (%s): green share %.3f on bare ground, %.3f with grass" % [renderer, bare, grass])
	check(grass > bare + 0.3, "grass covers the ground: green share %.3f -> %.3f" % [bare, grass])
	var pixel := ShaderMaterial.new()
	pixel.shader = load("res://addons/wandering_terrain/shaders/detail_grass_pixel_art.gdshader")
	l.material = pixel
	await tree.process_frame
	inst.update_now()
	await frames(3)
	var pix := _green_share(screenshot("detail_grass_pixel_art"))
	check(pix > bare + 0.3, "pixel-art grass covers the ground: %.3f" % pix)
	check(tn.get_child_count() == 1, "one instancer")
	sun.queue_free()
	for n in s:
		n.queue_free()
