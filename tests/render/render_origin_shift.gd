extends "res://wt_test.gd"
## A floating origin on the GPU: the same view of an endless world drawn at the origin and 5,000 km out
## with the origin shifted there (the same ground: a generator offset by the same whole samples) is the
## same picture — geometry, per-pixel normals and textured layers (their phase far out computed exactly).

## 5,000 km out on X, 3,000 km the other way on Z.
const FAR := Vector3(5.0e6, 0.0, -3.0e6)


## A textured layer: a speckled 64² texture repeating every 10/3 units (a whole number of times in FAR).
func _material() -> TerrainMaterial:
	var img := Image.create_empty(64, 64, false, Image.FORMAT_RGBA8)
	var rng := RandomNumberGenerator.new()
	rng.seed = 9
	for y in 64:
		for x in 64:
			var v := rng.randf_range(0.3, 1.0)
			img.set_pixel(x, y, Color(v, v * 0.8, v * 0.5))
	var l := TerrainLayer.new()
	l.albedo_texture = ImageTexture.create_from_image(img)
	l.uv_scale = 0.3
	var m := TerrainMaterial.new()
	m.layers = [l] as Array[TerrainLayer]
	return m


## The view from (0.3, 40, 0.7) towards the horizon over generator `offset`, the origin shifted by
## `shift` first; the screenshot.
func _view(offset: Vector2i, shift: Vector3, name: String) -> Image:
	var root := lit_scene(0.3)
	var g := TerrainGenerator.new()
	g.seed = 5
	g.frequency = 0.02
	g.octaves = 5
	g.height = 30.0
	g.offset = offset
	var tn := TerrainNode.new()
	tn.terrain_generator = g
	tn.terrain_material = _material()
	root.add_child(tn)
	var cam := Camera3D.new()
	cam.position = Vector3(0.3, 40.0, 0.7)
	cam.rotation_degrees = Vector3(-25, 30, 0)
	cam.far = 1500.0
	root.add_child(cam)
	cam.make_current()
	check_eq(tn.shift_origin(shift), shift, "shifted")
	var waited := 0
	while not tn.is_up_to_date() and waited < 600:
		await tree.process_frame
		waited += 1
	check(tn.is_up_to_date(), "%s drawn within 600 frames" % name)
	await frames(4)
	var img := screenshot("origin_shift_%s_%s" % [name, renderer])
	root.queue_free()
	await frames(2)
	return img


func test_the_view_5000_km_out_equals_the_view_at_the_origin() -> void:
	var near := await _view(Vector2i(int(FAR.x), int(FAR.z)), Vector3.ZERO, "origin")
	var far := await _view(Vector2i.ZERO, FAR, "far")
	check_eq(far.get_size(), near.get_size(), "same size")
	var differ := 0
	var worst := 0
	var terrain := 0
	for y in near.get_height():
		for x in near.get_width():
			var a := near.get_pixel(x, y)
			var b := far.get_pixel(x, y)
			terrain += int(not a.is_equal_approx(Color(1, 0, 1)))
			var d := maxi(maxi(absi(a.r8 - b.r8), absi(a.g8 - b.g8)), absi(a.b8 - b.b8))
			if d > 0:
				differ += 1
				worst = maxi(worst, d)
	var total := near.get_width() * near.get_height()
	check(terrain > total / 3, "the terrain fills the view: %d of %d pixels" % [terrain, total])
	var share := float(differ) / total
	check(share <= 0.001 and worst <= 2, "pixels differing: %d (%.4f %%), worst by %d/255 (goal ≤ 0.1 %% by ≤ 2)" % [differ, share * 100.0, worst])
