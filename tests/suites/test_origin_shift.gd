extends "res://wt_test.gd"
## TerrainNode's floating origin (shift_origin): a shift snaps to the terrain's grid and says what it
## applied; 5,000 km out, after shifting there, heights, normals and raycasts equal those of the same
## ground near the origin (a generator offset by the same whole samples) to the last bit; the data windows
## keep their texels (nothing is uploaded again); instances and detail stand where they should; bad input
## is refused by name and moves nothing.

## 5,000 km out on X and 3,000 km the other way on Z: whole steps of every grid used here.
const FAR := Vector3(5.0e6, 0.0, -3.0e6)


func _generator(offset := Vector2i.ZERO) -> TerrainGenerator:
	var g := TerrainGenerator.new()
	g.seed = 5
	g.frequency = 0.03
	g.octaves = 5
	g.height = 25.0
	g.offset = offset
	return g


## The same ground as `_generator()` seen FAR away, but near the origin (no shift needed).
func _reference() -> TerrainNode:
	var tn := TerrainNode.new()
	tn.terrain_generator = _generator(Vector2i(int(FAR.x), int(FAR.z)))
	return tn


func _settle(tn: TerrainNode, limit := 600) -> int:
	for i in limit:
		tn.update_now()
		if tn.is_up_to_date():
			return i
		await tree.process_frame
	return -1


## `n` process frames (the headless suites have no drawn frames to wait for).
func _frames(n: int) -> void:
	for i in n:
		await tree.process_frame


func test_a_shift_snaps_to_the_grid_and_is_announced() -> void:
	var s := following_node(_generator())
	var tn: TerrainNode = s[0]
	var got: Array[Vector3] = []
	tn.origin_shifted.connect(func(d: Vector3) -> void: got.append(d))
	# Levels 5 of vertex spacing 1: the coarsest lattice step is 16, a whole number of samples.
	check_eq(tn.get_origin_step(), Vector2(16, 16), "the step shifts snap to")
	var d := tn.shift_origin(FAR + Vector3(5.0, 7.0, -3.0))
	check_eq(d, FAR, "snapped to whole steps, Y not shifted")
	check_eq(tn.origin_offset, FAR, "the offset so far")
	check_eq(got, [FAR] as Array[Vector3], "origin_shifted carries the shift applied")
	check_eq(tn.shift_origin(Vector3(3.0, 0.0, -2.0)), Vector3.ZERO, "less than half a step: nothing")
	check_eq(got.size(), 1, "no signal for no shift")
	tn.origin_offset = Vector3.ZERO
	check_eq(tn.origin_offset, Vector3.ZERO, "setting the offset shifts back")
	check_eq(got.back(), -FAR, "by the difference")
	for n in s:
		n.queue_free()


func test_texture_phases_follow_the_shift_exactly() -> void:
	var s := following_node(_generator())
	var tn: TerrainNode = s[0]
	tn.shift_origin(FAR)
	# Texture phases far out, computed in f64: fract(offset * repeats per unit) per layer.
	var l := TerrainLayer.new()
	l.uv_scale = 0.37
	var look := TerrainMaterial.new()
	look.layers = [l] as Array[TerrainLayer]
	tn.terrain_material = look
	var ph: PackedVector2Array = tn.material.get_shader_parameter("layer_uv_shift")
	check(ph.size() == 1 and absf(ph[0].x - fposmod(5.0e6 * 0.37, 1.0)) < 1e-6 and absf(ph[0].y - fposmod(-3.0e6 * 0.37, 1.0)) < 1e-6, "the layer's texture phase at the offset: %s" % ph)
	check_eq(tn.shift_origin(Vector3(48, 0, 0)), Vector3(48, 0, 0), "another shift")
	ph = tn.material.get_shader_parameter("layer_uv_shift")
	check_near(ph[0].x, fposmod(5.000048e6 * 0.37, 1.0), 1e-6, "after another shift")
	for n in s:
		n.queue_free()


func test_heights_normals_and_rays_are_exact_5000_km_out() -> void:
	var tn := TerrainNode.new()
	tn.terrain_generator = _generator()
	tn.shift_origin(FAR)
	var ref := _reference()
	var worst := 0.0
	var normals := 0
	for i in 500:
		var p := Vector2(fmod(i * 7.31, 600.0) - 300.0, fmod(i * 3.77, 600.0) - 300.0)
		worst = worst_of(worst, absf(tn.get_height(p) - ref.get_height(p)))
		normals += int(not tn.get_normal(p).is_equal_approx(ref.get_normal(p)))
	check_eq(worst, 0.0, "heights 5,000 km out equal the same ground at the origin (worst difference)")
	check_eq(normals, 0, "normals differing")
	var ray := 0.0
	for i in 40:
		var o := Vector3(i * 3.3 - 60.0, 80.0, 40.0 - i * 1.7)
		var dir := Vector3(0.3, -1.0, 0.2)
		ray = worst_of(ray, tn.raycast(o, dir).distance_to(ref.raycast(o, dir)))
	print("5,000 km out: worst height difference %s, raycast difference %s m" % [worst, ray])
	check(ray <= 1e-4, "raycasts 5,000 km out meet the ground where they do at the origin: %s" % ray)
	# Without the shift the same place is out of f32's reach: what the shift is for.
	var unshifted := TerrainNode.new()
	unshifted.terrain_generator = _generator()
	var lost := 0.0
	for i in 50:
		var p := Vector2(i * 0.37 + 0.11, i * 0.21)
		var q := Vector2(FAR.x + p.x, FAR.z + p.y)
		lost = maxf(lost, absf(unshifted.get_height(q) - ref.get_height(p)))
	check(lost > 1e-3, "positions 5,000 km out in f32 miss the ground by more than a millimetre: %s" % lost)
	for n in [tn, ref, unshifted]:
		n.free()


func test_the_windows_keep_their_texels_through_a_shift() -> void:
	var s := following_node(_generator(), FAR + Vector3(3.5, 0, -2.25))
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	await _settle(tn)
	check(tn.is_up_to_date(), "drawn far out")
	await _frames(2)
	tn.take_uploaded_bytes()
	var d := tn.shift_origin(target.position)
	target.position -= d
	check(target.position.length() < 20.0, "the target is near the origin: %s" % target.position)
	tn.update_now()
	check(tn.is_up_to_date(), "still up to date at once")
	await _frames(3)
	check_eq(tn.take_uploaded_bytes(), 0, "bytes uploaded for the shift (none: the texels are kept)")
	var ref := _reference()
	var p := Vector2(target.position.x, target.position.z)
	check_eq(tn.get_height(p), ref.get_height(p), "the ground under the target")
	ref.free()
	for n in s:
		n.queue_free()


func test_instances_and_detail_stand_exactly_where_they_belong() -> void:
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_generator = _generator()
	tn.shift_origin(FAR)
	var inst := TerrainInstancer.new()
	var m := TerrainInstanceMesh.new()
	var box := BoxMesh.new()
	box.size = Vector3(0.5, 2.0, 0.5)
	m.mesh = box
	m.visibility_range = 2000.0
	inst.meshes = [m] as Array[TerrainInstanceMesh]
	var l := TerrainDetailLayer.new()
	l.density = 1.0
	l.view_radius = 40.0
	l.slope_max = 90.0
	inst.detail_layers = [l] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	var cam := Camera3D.new()
	cam.position = Vector3(0, 60, 0)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	var at: Array[Transform3D] = []
	for i in 20:
		at.append(Transform3D(Basis(), Vector3(i * 1.37 - 13.0, 0.0, 7.5 - i * 0.81)))
	check_eq(inst.add_instances(0, at), 20, "added 5,000 km out")
	inst.update_now()
	var drawn := inst.get_drawn_positions(0)
	check_eq(drawn.size(), 20, "drawn")
	# Each where it was put (its height above the ground kept: at y = 0 here).
	var worst := 0.0
	for p in drawn:
		var near := INF
		for t in at:
			near = minf(near, p.distance_to(t.origin))
		worst = worst_of(worst, near)
	print("5,000 km out: instances drawn within %s m of where they were put" % worst)
	check(worst <= 1e-3, "instances drawn where they were put: %s m" % worst)
	var listed := inst.get_instances(0, Rect2(-20, -20, 40, 40))
	var agree := 0.0
	for i in listed.size():
		agree = worst_of(agree, listed[i].origin.distance_to(drawn[i]))
	check(listed.size() == 20 and agree <= 1e-3, "get_instances equals what is drawn: %d, %s m" % [listed.size(), agree])
	var grown := inst.get_detail_drawn_transforms(0)
	check(grown.size() > 1000, "detail grown 5,000 km out: %d" % grown.size())
	var glue := 0.0
	for t: Transform3D in grown:
		glue = worst_of(glue, absf(t.origin.y - tn.get_height(Vector2(t.origin.x, t.origin.z))))
	check(glue <= 1e-3, "detail stands on the ground: %s" % glue)
	var asked := inst.get_detail_transforms(0, Rect2(-60, -60, 120, 120))
	var by_key := {}
	for t: Transform3D in asked:
		by_key[Vector2i(roundi(t.origin.x * 64.0), roundi(t.origin.z * 64.0))] = t.origin.y
	var unmatched := 0
	for t: Transform3D in grown:
		if not by_key.has(Vector2i(roundi(t.origin.x * 64.0), roundi(t.origin.z * 64.0))):
			unmatched += 1
	check_eq(unmatched, 0, "drawn detail equals get_detail_transforms")
	# A second shift moves the cells, not their contents: the same instances, one step further.
	var step := Vector3(tn.get_origin_step().x, 0, 0)
	tn.shift_origin(step)
	var moved := inst.get_drawn_positions(0)
	var off := 0.0
	for i in moved.size():
		off = worst_of(off, (moved[i] + step).distance_to(drawn[i]))
	check(off <= 1e-3, "after another shift every instance moved by it: %s" % off)
	tn.queue_free()
	cam.queue_free()


func test_bad_shifts_are_refused() -> void:
	var tn := TerrainNode.new()
	tn.terrain_generator = _generator()
	expect_error("TerrainNode.shift_origin: the shift must be finite")
	check_eq(tn.shift_origin(Vector3(NAN, 0, 0)), Vector3.ZERO, "NaN")
	expect_error("TerrainNode.shift_origin: the origin offset must stay within ±16777216")
	check_eq(tn.shift_origin(Vector3(2.0e7, 0, 0)), Vector3.ZERO, "too far")
	check_eq(tn.origin_offset, Vector3.ZERO, "nothing moved")
	check_eq(tn.shift_origin(FAR), FAR, "the node stays usable: a valid shift still works")
	tn.free()


func test_floating_origin_shifts_when_the_camera_goes_far() -> void:
	var world := Node3D.new()
	tree.root.add_child(world)
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_generator = _generator()
	world.add_child(tn)
	var cam := Camera3D.new()
	world.add_child(cam)
	cam.make_current()
	var player := Node3D.new()
	world.add_child(player)
	var fo := FloatingOrigin.new()
	world.add_child(fo)
	fo.terrain = fo.get_path_to(tn)
	var shifts: Array[Vector3] = []
	fo.origin_shifted.connect(func(d: Vector3) -> void: shifts.append(d))
	cam.position = Vector3(900, 50, -300)
	player.position = Vector3(890, 20, -290)
	await _frames(2)
	check_eq(shifts.size(), 0, "within 1 km: no shift")
	# Levels 3 of vertex spacing 1: shifts snap to 4 units.
	cam.position = Vector3(1501, 50, -299)
	player.position = Vector3(1490, 20, -290)
	var ground := tn.get_height(Vector2(1490, -290))
	await _frames(2)
	check_eq(shifts, [Vector3(1500, 0, -300)] as Array[Vector3], "one shift, to the camera snapped to the grid")
	check_eq(tn.origin_offset, Vector3(1500, 0, -300), "the terrain's offset")
	check_eq(cam.position, Vector3(1, 50, 1), "the camera moved back by the shift")
	check_eq(player.position, Vector3(-10, 20, 10), "and the rest of the world with it")
	check_eq(tn.position, Vector3.ZERO, "the terrain itself does not move")
	check_eq(fo.get_shift_count(), 1, "shift count")
	check_eq(tn.get_height(Vector2(player.position.x, player.position.z)), ground, "the same ground under the player after the shift")
	check_eq(ground, _reference_at(Vector2(1490, -290)), "which is the unshifted world's there")
	expect_error("FloatingOrigin.distance must be in [1, 1000000] world units, got 0")
	fo.distance = 0.0
	check_eq(fo.distance, 1000.0, "kept")
	world.queue_free()


## The unshifted world's height at world X/Z `p` (a fresh node, no shift).
func _reference_at(p: Vector2) -> float:
	var tn := TerrainNode.new()
	tn.terrain_generator = _generator()
	var h := tn.get_height(p)
	tn.free()
	return h


func test_water_answers_through_the_shift() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(64, 64)
	var h := PackedFloat32Array()
	h.resize(64 * 64)
	for z in 64:
		for x in 64:
			h[z * 64 + x] = 0.0 if x < 32 else 20.0
	t.heights = h
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_data = t
	tree.root.add_child(tn)
	var water := TerrainWater.new()
	water.sea_level = 5.0
	tn.add_child(water)
	water.update_water()
	check_near(water.get_water_height(Vector2(10.5, 20.5)), 5.0, 1e-5, "sea before the shift")
	var d := tn.shift_origin(Vector3(16, 0, 8))
	check_eq(d, Vector3(16, 0, 8), "shifted")
	check_near(water.get_water_height(Vector2(10.5 - 16, 20.5 - 8)), 5.0, 1e-5, "the same sea, where it now is")
	check(is_nan(water.get_water_height(Vector2(50.5 - 16, 20.5 - 8))), "the same dry ground")
	check(water.is_underwater(Vector3(10.5 - 16, 2.0, 20.5 - 8)), "under it")
	tn.queue_free()
