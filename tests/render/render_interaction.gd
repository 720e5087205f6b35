extends "res://render/clipmap_views.gd"
## The interaction field on the GPU (TerrainInteractor, interaction_field.gdshaderinc): the field the
## shaders read equals get_trample, it recovers, grass tips bend outward from an interactor, and a
## deformable layer's drawn surface sinks by the press.

const FLAT := 2.0


func _flat() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var h := PackedFloat32Array()
	h.resize(SIZE * SIZE)
	h.fill(FLAT)
	t.heights = h
	return t


func _interactor(parent: Node, at: Vector3, radius: float) -> TerrainInteractor:
	var i := TerrainInteractor.new()
	i.radius = radius
	i.position = at
	parent.add_child(i)
	return i


## A top-down orthographic camera `view` units high over (x, z), child of `root`.
func _camera(root: Node, x: float, z: float, view: float) -> Camera3D:
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = view
	cam.far = 1000.0
	cam.position = Vector3(x, 300, z)
	cam.rotation_degrees.x = -90.0
	root.add_child(cam)
	cam.make_current()
	return cam


## The world X/Z at the centre of pixel (px, py) of `img` under camera `cam` (top-down, orthographic).
func _world(img: Image, cam: Camera3D, px: int, py: int) -> Vector2:
	var ppu := img.get_height() / cam.size
	return Vector2(cam.position.x + (px + 0.5 - img.get_width() / 2.0) / ppu,
		cam.position.z + (py + 0.5 - img.get_height() / 2.0) / ppu)


## [worst |GPU - CPU| trample over every 3rd pixel, pixels pressed (> 0.05), pixels compared].
func _field_error(tn: TerrainNode, cam: Camera3D, label: String) -> Array:
	var img := screenshot(label)
	var worst := 0.0
	var pressed := 0
	var compared := 0
	for py in range(0, img.get_height(), 3):
		for px in range(0, img.get_width(), 3):
			var w := _world(img, cam, px, py)
			var gpu := _decode(img.get_pixel(px, py), Vector2(0, 1))
			worst = worst_of(worst, absf(gpu - tn.get_trample(Vector3(w.x, 0, w.y))))
			pressed += int(gpu > 0.05)
			compared += 1
	return [worst, pressed, compared]


func test_the_field_shaders_read_is_what_get_trample_answers() -> void:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	tree.root.add_child(root)
	var target := Node3D.new()
	target.position = Vector3(56, 0, 56)
	root.add_child(target)
	var tn := _node(_flat(), target)
	tn.interaction_recovery_time = 1.5
	var cam := _camera(root, 50.0, 50.0, 40.0)
	var plane := MeshInstance3D.new()
	var pm := PlaneMesh.new()
	pm.size = Vector2(60, 60)
	plane.mesh = pm
	var mat := ShaderMaterial.new()
	mat.shader = load("res://render/trample_probe.gdshader")
	plane.material_override = mat
	plane.position = Vector3(50, 10, 50)
	root.add_child(plane)
	# A disc, a square, a weak wide press, and one walking across the window's wrap (the window's origin
	# is at slot 256: its slots wrap 64 units west of the target).
	_interactor(root, Vector3(45, FLAT, 45), 2.0)
	var sq := _interactor(root, Vector3(56, FLAT, 44), 1.5)
	sq.shape = TerrainInteractor.SHAPE_SQUARE
	var weak := _interactor(root, Vector3(50, FLAT, 58), 5.0)
	weak.strength = 0.3
	var walker := _interactor(root, Vector3(36, FLAT, 50), 0.6)
	for k in 30:
		walker.position.x += 0.25
		await tree.process_frame
	# The interactors stop pressing and the GPU catches up (GL and Mobile draw a stamp a frame or two after
	# the CPU holds it); paused, the field's time stands still: the picture and get_trample see the same
	# moment.
	for n in root.get_children():
		if n is TerrainInteractor:
			n.visible = false
	for k in 4:
		await tree.process_frame
	tree.paused = true
	await frames(3)
	var res := _field_error(tn, cam, "interaction_field_" + renderer)
	tree.paused = false
	check(res[1] > 200, "pressed pixels: %d" % res[1])
	# The texels' whole time units are 1/96 of the recovery time; the picture holds 16 bits.
	check(res[0] <= 0.002, "worst |GPU - CPU| trample %s" % res[0])
	check(res[2] > 3000, "pixels compared: %d" % res[2])
	print("interaction field: worst |GPU - CPU| trample %s over %d pixels compared, %d pressed (%s)" % [res[0], res[2], res[1], renderer])
	# Everything leaves: after the recovery time, no residual.
	for n in root.get_children():
		if n is TerrainInteractor:
			n.queue_free()
	var t0 := Time.get_ticks_msec()
	while Time.get_ticks_msec() - t0 < 1700:
		await tree.process_frame
	await frames(2)
	res = _field_error(tn, cam, "interaction_recovered_" + renderer)
	check_eq(res[1], 0, "pixels still pressed after the recovery time")
	check(res[0] <= 0.1, "residual %s" % res[0])
	root.queue_free()


## Mean distance of the red tip pixels from (cx, cz) within `radius` (world units), and their count.
func _tips(img: Image, cam: Camera3D, c: Vector2, radius: float) -> Array:
	var sum := 0.0
	var n := 0
	for py in img.get_height():
		for px in img.get_width():
			var col := img.get_pixel(px, py)
			if not (col.r > 0.5 and col.g < 0.3 and col.b < 0.3):
				continue
			var d := _world(img, cam, px, py).distance_to(c)
			if d <= radius:
				sum += d
				n += 1
	return [sum / maxf(n, 1), n]


## A blade 1 unit high whose tip is a cube 0.1 wide (seen from any side), UV.y 1 at the root and 0 at the
## tip (the built-in clump's convention).
func _blade() -> ArrayMesh:
	var st := SurfaceTool.new()
	st.begin(Mesh.PRIMITIVE_TRIANGLES)
	var q := [Vector3(-0.02, 0, 0), Vector3(0.02, 0, 0), Vector3(0.02, 0.95, 0), Vector3(-0.02, 0.95, 0)]
	var quv := [1.0, 1.0, 0.05, 0.05]
	for k in [0, 1, 2, 0, 2, 3]:
		st.set_uv(Vector2(0, quv[k]))
		st.add_vertex(q[k])
	var box := BoxMesh.new()
	box.size = Vector3(0.1, 0.1, 0.1)
	var arrays := box.get_mesh_arrays()
	var verts: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
	var idx: PackedInt32Array = arrays[Mesh.ARRAY_INDEX]
	for k in idx:
		st.set_uv(Vector2(0, 0))
		st.add_vertex(verts[k] + Vector3(0, 1, 0))
	return st.commit()


func test_grass_tips_bend_outward_from_an_interactor() -> void:
	RenderingServer.set_default_clear_color(Color(0, 0, 0))
	var root := Node3D.new()
	tree.root.add_child(root)
	var target := Node3D.new()
	target.position = Vector3(256, 0, 256)
	root.add_child(target)
	var tn := _node(_flat(), target)
	var layer := TerrainDetailLayer.new()
	layer.mesh = _blade()
	var mat := ShaderMaterial.new()
	mat.shader = load("res://render/trample_blade_probe.gdshader")
	mat.set_shader_parameter("wind_strength", 0.0)
	mat.set_shader_parameter("trample_bend", 1.0)
	layer.material = mat
	layer.density = 4.0
	layer.view_radius = 60.0
	layer.scale_min = 1.0
	layer.scale_max = 1.0
	var inst := TerrainInstancer.new()
	inst.detail_layers = [layer] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	var c := Vector2(256.3, 256.2)
	var cam := _camera(root, c.x, c.y, 8.0)
	# Detail grows within view_radius of the camera (in 3D).
	cam.position.y = FLAT + 12.0
	# The terrain on a render layer the camera does not see: only the tips show, red on black.
	tn.layers = 1 << 5
	cam.cull_mask = 1
	inst.update_now()
	await frames(4)
	var placed := inst.get_detail_transforms(0, Rect2(c - Vector2(4, 4), Vector2(8, 8))).size()
	check(placed > 100, "blades placed in view: %d" % placed)
	var img_before := screenshot("trample_grass_before_" + renderer)
	# A cone-shaped press (falloff 1): its slope points outward everywhere (on a flat core, blades fall
	# their own way).
	var i := _interactor(root, Vector3(c.x, FLAT, c.y), 1.5)
	i.falloff = 1.0
	await frames(4)
	var img_after := screenshot("trample_grass_after_" + renderer)
	var k := tn.get_trample(Vector3(c.x, 0, c.y))
	i.queue_free()
	root.queue_free()
	# A blade 1 high rooted r from the interactor leans out by sin(80° × trample) with a trample of about
	# 0.9 (1 - r / 1.5): its tip ends at least ~0.9 from the interactor whatever r. So the disc of radius 0.9
	# empties (the tips that were there moved out by 0.9 or more); the mean distance of the tips within 2.6
	# grows too, less (the leaning cubes show more pixels, the ring is cut at 2.6).
	var inner := [_tips(img_before, cam, c, 0.9), _tips(img_after, cam, c, 0.9)]
	var wide := [_tips(img_before, cam, c, 2.6), _tips(img_after, cam, c, 2.6)]
	check(inner[0][1] > 50, "tips near the interactor before: %d pixels" % inner[0][1])
	check(inner[1][1] <= 0.1 * inner[0][1], "tips left near it: %d of %d pixels" % [inner[1][1], inner[0][1]])
	var shift: float = wide[1][0] - wide[0][0]
	check(shift > 0.03, "tips within 2.6 moved outward by %s units on average" % shift)
	check(k > 0.85, "pressed under the interactor: %s" % k)
	print("grass tips (%s): tip pixels within 0.9 of the interactor %d -> %d; mean distance within 2.6 %.3f -> %.3f (+%.3f units)" % [renderer, inner[0][1], inner[1][1], wide[0][0], wide[1][0], shift])


func test_a_deformable_layer_sinks_by_the_press() -> void:
	var t := _flat()
	var s := _debug_scene(t, 2, 4.0)
	var cam: Camera3D = s[1]
	var tn: TerrainNode = s[3]
	var snow := TerrainLayer.new()
	snow.deformable = true
	snow.deform_depth = 0.5
	var m := TerrainMaterial.new()
	m.layers = [snow] as Array[TerrainLayer]
	tn.terrain_material = m
	var r := Vector2(FLAT - 1.0, FLAT + 1.0)
	tn.material.set_shader_parameter("debug_height_range", r)
	var i := _interactor(s[0], Vector3(256, FLAT, 256), 4.0)
	# 10 pixels per unit; every 10th pixel centre on a vertex of the finest level.
	cam.size = 24.0
	cam.position = Vector3(256.05, 300, 256.05)
	await frames(3)
	var img := screenshot("deform_vertex_height_" + renderer)
	var ppu := img.get_height() / cam.size
	var worst := 0.0
	var deepest := 0.0
	var n := 0
	for py in img.get_height():
		for px in img.get_width():
			var w := Vector2(256.05, 256.05) + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)
			if absf(w.x - roundf(w.x)) > 0.02 or absf(w.y - roundf(w.y)) > 0.02:
				continue
			var g := Vector2(roundf(w.x), roundf(w.y))
			var want := FLAT - snow.deform_depth * tn.get_trample(Vector3(g.x, 0, g.y))
			var got := _decode(img.get_pixel(px, py), r)
			worst = worst_of(worst, absf(got - want))
			deepest = maxf(deepest, FLAT - got)
			n += 1
	check(n >= 400, "vertex pixels: %d" % n)
	check(worst <= 0.01, "drawn dent vs stamp: worst %s units" % worst)
	check(deepest >= 0.45, "the press sank the surface by %s (depth 0.5)" % deepest)
	print("deformable layer: drawn dent = depth x get_trample within %s units at %d vertices, deepest %s (%s)" % [worst, n, deepest, renderer])
	# Not deformable: flat.
	snow.deformable = false
	await frames(3)
	img = tree.root.get_texture().get_image()
	var c := img.get_width() / 2
	check_near(_decode(img.get_pixel(c, img.get_height() / 2), r), FLAT, 0.005, "no dent without deformable")
	i.queue_free()
	s[0].queue_free()


func test_a_wandering_terrain_sinks_too() -> void:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	var t := TerrainData.new()
	t.size = Vector2i(64, 64)
	var h := PackedFloat32Array()
	h.resize(64 * 64)
	h.fill(FLAT)
	t.heights = h
	var snow := TerrainLayer.new()
	snow.deformable = true
	snow.deform_depth = 0.5
	var look := TerrainMaterial.new()
	look.layers = [snow] as Array[TerrainLayer]
	var cam := _camera(root, 32.0, 32.0, 16.0)
	# The terrain follows another camera (not rendering), looking along +Z over the press.
	var tracker := Camera3D.new()
	root.add_child(tracker)
	tracker.look_at_from_position(Vector3(32, 10, 28), Vector3(32, 9.8, 29))
	var wt := WanderingTerrain.new()
	var wm := WanderingMesh.new()
	wm.start_size = 6.0
	wm.start_subdivision = 5
	wm.lods = PackedInt32Array([2, 2])
	wt.mesh = wm
	var m := ShaderMaterial.new()
	m.shader = load("res://addons/wandering_terrain/shaders/wandering_terrain_debug.gdshader")
	m.set_shader_parameter("debug_mode", 2)
	var r := Vector2(FLAT - 1.0, FLAT + 1.0)
	m.set_shader_parameter("debug_height_range", r)
	wt.material = m
	wt.terrain_data = t
	wt.terrain_material = look
	root.add_child(wt)
	wt.camera = wt.get_path_to(tracker)
	tree.root.add_child(root)
	# A cone-shaped press 5 units wide: linear between the mesh's vertices except at its tip.
	var i := _interactor(root, Vector3(32, FLAT, 32), 5.0)
	i.falloff = 1.0
	await frames(4)
	# Paused: the field's time stands still between the picture and get_trample.
	tree.paused = true
	await frames(2)
	var img := screenshot("deform_wandering_" + renderer)
	tree.paused = false
	var worst := 0.0
	var deepest := 0.0
	var n := 0
	for py in range(0, img.get_height(), 3):
		for px in range(0, img.get_width(), 3):
			var c := img.get_pixel(px, py)
			if c.is_equal_approx(MAGENTA):
				continue
			var w := _world(img, cam, px, py)
			# Not the cone's tip, where the mesh cuts the peak between vertices.
			if w.distance_to(Vector2(32, 32)) < 0.6:
				continue
			var want := FLAT - snow.deform_depth * wt.get_trample(Vector3(w.x, 0, w.y))
			var got := _decode(c, r)
			worst = worst_of(worst, absf(got - want))
			deepest = maxf(deepest, FLAT - got)
			n += 1
	root.queue_free()
	check(n > 2000, "pixels compared: %d" % n)
	check(worst <= 0.01, "drawn dent vs depth x get_trample: worst %s units" % worst)
	check(deepest >= 0.4, "the press sank the surface by %s (depth 0.5)" % deepest)
	print("wandering terrain's deformable layer: drawn (vertex-interpolated) dent = depth x get_trample within %s units over %d pixels, deepest %s (%s)" % [worst, n, deepest, renderer])
