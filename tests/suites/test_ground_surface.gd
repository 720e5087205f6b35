extends "res://wt_test.gd"
## What the ground is for gameplay (`get_surface`, `get_surface_name`, `get_surface_at_hit` on both
## terrain nodes; `TerrainLayer.surface_name` and `physics_material`): the layer the shader draws most,
## its name, friction and bounce, answered from the data.

const SIZE := 64


## Grass (painted west of x = 32, soft), rock (a height band over the east half, rough) and ice (painted
## in a square, slippery, bouncy) on a sloped, bumpy map.
func _setup() -> Array:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var h := PackedFloat32Array()
	for z in SIZE:
		for x in SIZE:
			h.append(0.2 * x + sin(x * 0.3) * cos(z * 0.2))
	t.heights = h
	var names := [&"grass", &"rock", &"ice"]
	var frictions := [0.8, 1.0, 0.05]
	var layers: Array[TerrainLayer] = []
	for i in 3:
		var l := TerrainLayer.new()
		l.surface_name = names[i]
		if i != 1:
			var pm := PhysicsMaterial.new()
			pm.friction = frictions[i]
			pm.bounce = 0.3 if i == 2 else 0.0
			l.physics_material = pm
		layers.append(l)
	layers[1].height_band = Vector2(12.0, 6.0)
	layers[0].height_band = Vector2(2.0, 6.0)
	var m := TerrainMaterial.new()
	m.layers = layers
	var w := PackedFloat32Array()
	w.resize(24 * SIZE)
	w.fill(1.0)
	check(t.set_layer_region(Rect2i(0, 0, 24, SIZE), 0, w), "grass painted")
	var ice := PackedFloat32Array()
	ice.resize(12 * 12)
	ice.fill(1.0)
	check(t.set_layer_region(Rect2i(40, 40, 12, 12), 2, ice), "ice painted")
	return [t, m]


## The index of the largest weight (the first of equals), -1 for none.
func _argmax(w: PackedFloat32Array) -> int:
	var best := -1
	for i in w.size():
		if w[i] > 0.0 and (best < 0 or w[i] > w[best]):
			best = i
	return best


func test_the_surface_is_the_layer_drawn_most() -> void:
	var s := _setup()
	var t: TerrainData = s[0]
	var m: TerrainMaterial = s[1]
	var made := following_node(t, Vector3(32, 0, 32))
	var tn: TerrainNode = made[0]
	tn.terrain_material = m
	var rng := RandomNumberGenerator.new()
	rng.seed = 56
	var seen := {}
	var wrong := 0
	for i in 10000:
		var p := Vector3(rng.randf_range(0.0, SIZE), 0.0, rng.randf_range(0.0, SIZE))
		var g: Dictionary = tn.get_surface(p)
		var w := tn.get_layer_weights(Vector2(p.x, p.z))
		var want := _argmax(w)
		var name: StringName = m.layers[want].surface_name if want >= 0 else &""
		if g["layer"] != want or g["surface"] != name or g["weights"] != w or tn.get_surface_name(p) != name:
			wrong += 1
		seen[g["surface"]] = seen.get(g["surface"], 0) + 1
	print("get_surface over 10,000 points: ", seen)
	check_eq(wrong, 0, "the surface is the layer drawn most, with its name and the weights")
	check(seen.get(&"grass", 0) > 1000 and seen.get(&"rock", 0) > 1000 and seen.get(&"ice", 0) > 100, "every layer is found: %s" % seen)
	# Friction and bounce: the layer's material, else the collision's, else Godot's defaults.
	var ice: Dictionary = tn.get_surface(Vector3(46, 0, 46))
	check_eq(ice["surface"], &"ice", "ice in the painted square")
	check(is_equal_approx(ice["friction"], 0.05) and is_equal_approx(ice["bounce"], 0.3), "ice's friction and bounce: %s" % ice)
	var rock: Dictionary = tn.get_surface(Vector3(60, 0, 10))
	check_eq(rock["surface"], &"rock", "rock high on the east side")
	check(is_equal_approx(rock["friction"], 1.0) and is_equal_approx(rock["bounce"], 0.0), "rock without a material: Godot's defaults (%s)" % rock)
	var ground := PhysicsMaterial.new()
	ground.friction = 0.6
	tn.collision.physics_material = ground
	check(is_equal_approx(tn.get_surface(Vector3(60, 0, 10))["friction"], 0.6), "rock without a material: the collision's")
	check(is_equal_approx(tn.get_surface(Vector3(46, 0, 46))["friction"], 0.05), "ice keeps its own")
	# A renamed layer answers at once.
	m.layers[2].surface_name = &"black_ice"
	check_eq(tn.get_surface_name(Vector3(46, 0, 46)), &"black_ice", "a new name is answered at once")
	made[0].queue_free()
	made[1].queue_free()


func test_without_a_material_or_off_the_map() -> void:
	var s := _setup()
	var made := following_node(s[0], Vector3(32, 0, 32))
	var tn: TerrainNode = made[0]
	var g: Dictionary = tn.get_surface(Vector3(10, 0, 10))
	check(g["layer"] == -1 and g["surface"] == &"" and is_equal_approx(g["friction"], 1.0), "no material: no layer, no name, defaults (%s)" % g)
	tn.terrain_material = s[1]
	var nan: Dictionary = tn.get_surface(Vector3(NAN, 0, 1))
	check(nan["layer"] == -1 and nan["surface"] == &"", "a NaN position: no layer (%s)" % nan)
	made[0].queue_free()
	made[1].queue_free()


func test_a_ray_hit_tells_its_surface() -> void:
	var s := _setup()
	var made := following_node(s[0], Vector3(32, 0, 32))
	var tn: TerrainNode = made[0]
	tn.terrain_material = s[1]
	await wait_up_to_date([tn])
	await tree.physics_frame
	await tree.physics_frame
	var space := tn.get_world_3d().direct_space_state
	var hit := space.intersect_ray(PhysicsRayQueryParameters3D.create(Vector3(46, 100, 46), Vector3(46, -100, 46)))
	check(not hit.is_empty(), "the ray hits the terrain")
	if not hit.is_empty():
		var g: Dictionary = tn.get_surface_at_hit(hit)
		check_eq(g["surface"], &"ice", "the hit is on ice")
		check_eq(g, tn.get_surface(hit["position"]), "the same as get_surface at the hit")
	check_eq(tn.get_surface_at_hit({}), {}, "no hit: an empty Dictionary")
	expect_error("TerrainNode.get_surface_at_hit: hit must be a ray's result with a Vector3 `position`")
	check_eq(tn.get_surface_at_hit({"position": "here"}), {}, "a malformed hit: empty")
	made[0].queue_free()
	made[1].queue_free()


func test_a_wandering_terrain_tells_its_surface_too() -> void:
	var s := _setup()
	var wt := WanderingTerrain.new()
	wt.terrain_data = s[0]
	wt.terrain_material = s[1]
	wt.position = Vector3(100, 0, 0)
	tree.root.add_child(wt)
	check_eq(wt.get_surface_name(Vector3(146, 0, 46)), &"ice", "ice, the node's offset applied")
	var g: Dictionary = wt.get_surface(Vector3(110, 0, 10))
	check_eq(g["surface"], &"grass", "grass in the west")
	check(is_equal_approx(g["friction"], 0.8), "grass's friction: %s" % g)
	check_eq(g["weights"], wt.get_layer_weights(Vector2(110, 10)), "the weights")
	wt.queue_free()


## The cost of a call from typed GDScript (printed; the bench measures it in a release build).
func test_a_call_is_cheap() -> void:
	var s := _setup()
	var made := following_node(s[0], Vector3(32, 0, 32))
	var tn: TerrainNode = made[0]
	tn.terrain_material = s[1]
	var n := 20000
	var p := Vector3(20.5, 0, 30.5)
	var t0 := Time.get_ticks_usec()
	var name: StringName
	for i in n:
		name = tn.get_surface_name(p)
	var t1 := Time.get_ticks_usec()
	for i in n:
		tn.get_surface(p)
	var t2 := Time.get_ticks_usec()
	var h := 0.0
	for i in n:
		h = tn.get_height_at(p)
	var t3 := Time.get_ticks_usec()
	print("get_surface_name %.0f ns a call, get_surface %.0f ns, get_height_at (reference) %.0f ns (this build)" % [(t1 - t0) * 1000.0 / n, (t2 - t1) * 1000.0 / n, (t3 - t2) * 1000.0 / n])
	check_eq(name, &"grass", "the answer")
	made[0].queue_free()
	made[1].queue_free()
