extends "res://wt_test.gd"
## The interaction field (`TerrainInteractor`; `get_trample`, `interaction_*` and `clear_interaction` on
## both terrain nodes): presses where interactors stand, recovery over time, the window around the
## camera, bad input.

const SIZE := 128


func _flat_data(h := 2.0) -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var hs := PackedFloat32Array()
	hs.resize(SIZE * SIZE)
	hs.fill(h)
	t.heights = hs
	return t


func _interactor(at: Vector3, radius := 1.0) -> TerrainInteractor:
	var i := TerrainInteractor.new()
	i.radius = radius
	i.position = at
	tree.root.add_child(i)
	return i


func _wait(n: int) -> void:
	for k in n:
		await tree.process_frame


func test_an_interactor_tramples_where_it_stands_and_the_ground_recovers() -> void:
	var made := following_node(_flat_data(), Vector3(64, 2, 64))
	var tn: TerrainNode = made[0]
	tn.interaction_recovery_time = 1.0
	var i := _interactor(Vector3(60, 2, 60))
	await _wait(3)
	check_near(tn.get_trample(Vector3(60, 0, 60)), 1.0, 0.05, "pressed flat under it")
	check_eq(tn.get_trample(Vector3(62, 0, 60)), 0.0, "untouched beyond its radius")
	var half := tn.get_trample(Vector3(60.6, 0, 60))
	check(half > 0.0 and half < 0.95, "fading over the falloff: %s" % half)
	# It walks away: the old spot recovers over interaction_recovery_time (1 s).
	i.position = Vector3(50, 2, 50)
	var t0 := Time.get_ticks_msec()
	await _wait(2)
	var v0 := tn.get_trample(Vector3(60, 0, 60))
	check(v0 > 0.7, "still pressed just after: %s" % v0)
	while Time.get_ticks_msec() - t0 < 1300:
		await tree.process_frame
	check_eq(tn.get_trample(Vector3(60, 0, 60)), 0.0, "recovered after the recovery time")
	check(tn.get_trample(Vector3(50, 0, 50)) > 0.9, "pressed where it stands now")
	# Too high above the ground: no press.
	i.position = Vector3(40, 5, 40)
	await _wait(2)
	check_eq(tn.get_trample(Vector3(40, 0, 40)), 0.0, "no press 3 m above the ground (reach 1 m)")
	i.reach = 4.0
	await _wait(2)
	check(tn.get_trample(Vector3(40, 0, 40)) > 0.9, "a press within reach")
	# Hidden: no press.
	i.visible = false
	i.position = Vector3(30, 2, 30)
	await _wait(2)
	check_eq(tn.get_trample(Vector3(30, 0, 30)), 0.0, "a hidden interactor presses nothing")
	tn.clear_interaction()
	await _wait(1)
	check_eq(tn.get_trample(Vector3(40, 0, 40)), 0.0, "clear_interaction forgets every press")
	i.free()
	for n in made:
		n.free()


func test_strength_shape_and_overlapping_presses() -> void:
	var made := following_node(_flat_data(), Vector3(64, 2, 64))
	var tn: TerrainNode = made[0]
	var a := _interactor(Vector3(60, 2, 60), 2.0)
	a.strength = 0.5
	a.falloff = 0.0
	var b := _interactor(Vector3(61, 2, 60), 2.0)
	b.strength = 0.25
	b.falloff = 0.0
	b.shape = TerrainInteractor.SHAPE_SQUARE
	await _wait(3)
	check_near(tn.get_trample(Vector3(59.5, 0, 60)), 0.5, 0.02, "strength 0.5 at a's core")
	check_near(tn.get_trample(Vector3(62.5, 0, 61.6)), 0.25, 0.02, "b's square corner, beyond a's disc")
	check(tn.get_trample(Vector3(60.5, 0, 60)) >= 0.49, "the stronger press wins where both press")
	a.free()
	b.free()
	for n in made:
		n.free()


func test_the_field_follows_the_camera_and_forgets_what_it_left() -> void:
	var gen := TerrainGenerator.new()
	var made := following_node(gen, Vector3(0, 0, 0))
	var tn: TerrainNode = made[0]
	var target: Node3D = made[1]
	await _wait(2)
	var h := tn.get_height_at(Vector3(5, 0, 5))
	var i := _interactor(Vector3(5, h, 5))
	await _wait(3)
	check(tn.get_trample(Vector3(5, 0, 5)) > 0.9, "pressed near the camera")
	i.free()
	# The field spans interaction_size × interaction_texel_size (128 m) around the camera.
	target.position = Vector3(400, 0, 0)
	await _wait(3)
	check_eq(tn.get_trample(Vector3(5, 0, 5)), 0.0, "outside the window: 0")
	target.position = Vector3(0, 0, 0)
	await _wait(3)
	check_eq(tn.get_trample(Vector3(5, 0, 5)), 0.0, "forgotten when the window left it")
	for n in made:
		n.free()


func test_wandering_terrain_keeps_a_field_too() -> void:
	var wt := WanderingTerrain.new()
	wt.terrain_data = _flat_data(1.0)
	tree.root.add_child(wt)
	var cam := Camera3D.new()
	cam.position = Vector3(64, 20, 64)
	tree.root.add_child(cam)
	cam.make_current()
	var i := _interactor(Vector3(70, 1, 70))
	await _wait(3)
	check(wt.get_trample(Vector3(70, 0, 70)) > 0.9, "pressed: %s" % wt.get_trample(Vector3(70, 0, 70)))
	check(wt.get_interaction_texture() != null or tree.root.get_viewport().get_texture() == null,
		"a field texture")
	i.free()
	cam.free()
	wt.free()


func test_bad_settings_are_refused_by_name() -> void:
	var made := following_node(_flat_data(), Vector3(64, 2, 64))
	var tn: TerrainNode = made[0]
	var i := _interactor(Vector3(60, 2, 60))
	expect_error("TerrainInteractor.radius must be in [0.01, 10000]")
	i.radius = NAN
	check_eq(i.radius, 1.0, "radius kept")
	expect_error("TerrainInteractor.strength must be in [0, 1]")
	i.strength = 2.0
	check_eq(i.strength, 1.0, "strength kept")
	expect_error("TerrainInteractor.falloff must be in [0, 1]")
	i.falloff = -1.0
	expect_error("TerrainInteractor.reach must be in [0, 1000]")
	i.reach = INF
	expect_error("TerrainNode.interaction_size must be 64..=2048 and a multiple of 64, got 100")
	tn.interaction_size = 100
	check_eq(tn.interaction_size, 512, "size kept")
	expect_error("TerrainNode.interaction_texel_size must be 0.01..=16")
	tn.interaction_texel_size = NAN
	expect_error("TerrainNode.interaction_recovery_time must be 0.1..=3600")
	tn.interaction_recovery_time = 0.0
	expect_error("TerrainLayer.deform_depth must be in [0, 4]")
	var l := TerrainLayer.new()
	l.deform_depth = NAN
	check_eq(l.deform_depth, 0.1, "depth kept")
	expect_error("TerrainLayer.deform_darken must be in [0, 1]")
	l.deform_darken = 3.0
	# Still working after all that.
	await _wait(3)
	check(tn.get_trample(Vector3(60, 0, 60)) > 0.9, "the field still presses")
	check_eq(tn.get_trample(Vector3(NAN, 0, 60)), 0.0, "NaN position: 0")
	# Off: no field, 0 everywhere, no texture.
	tn.interaction_enabled = false
	check_eq(tn.get_trample(Vector3(60, 0, 60)), 0.0, "off: 0")
	check(tn.get_interaction_texture() == null, "off: no texture")
	tn.interaction_enabled = true
	await _wait(3)
	check(tn.get_trample(Vector3(60, 0, 60)) > 0.9, "on again")
	i.free()
	for n in made:
		n.free()
