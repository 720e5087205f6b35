extends "res://wt_test.gd"
## Friction per layer reaches the physics engine (this suite runs once per engine): each collision tile's
## body takes the friction of the layer drawn most over it, so a box sliding on ice goes as much further
## than on grass as the friction values say.

const SIZE := 128
## Away from where the other physics tests put their bodies.
const AT := Vector3(3000, 0, 3000)


## Flat ground: grass (friction 0.4) on the west half, ice (0.1) painted on the east half.
func _terrain() -> TerrainNode:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var layers: Array[TerrainLayer] = []
	for f in [0.4, 0.1]:
		var l := TerrainLayer.new()
		var pm := PhysicsMaterial.new()
		pm.friction = f
		l.physics_material = pm
		l.surface_name = &"grass" if f > 0.2 else &"ice"
		layers.append(l)
	var m := TerrainMaterial.new()
	m.layers = layers
	var w := PackedFloat32Array()
	w.resize(SIZE / 2 * SIZE)
	w.fill(1.0)
	check(t.set_layer_region(Rect2i(SIZE / 2, 0, SIZE / 2, SIZE), 1, w), "ice painted")
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.collision_mode = TerrainNode.COLLISION_FULL
	tn.terrain_material = m
	tn.terrain_data = t
	tn.position = AT
	tree.root.add_child(tn)
	return tn


## A 1 m box with friction 1 at (x, z) pushed along +X at `speed`; the distance it slides before it stops.
func _slide(x: float, z: float, speed: float) -> float:
	var b := RigidBody3D.new()
	var cs := CollisionShape3D.new()
	var box := BoxShape3D.new()
	box.size = Vector3.ONE
	cs.shape = box
	b.add_child(cs)
	var pm := PhysicsMaterial.new()
	pm.friction = 1.0
	b.physics_material_override = pm
	# Friction alone slows it (the project's default damping would add its own).
	b.linear_damp_mode = RigidBody3D.DAMP_MODE_REPLACE
	b.linear_damp = 0.0
	b.angular_damp_mode = RigidBody3D.DAMP_MODE_REPLACE
	b.angular_damp = 0.0
	b.position = AT + Vector3(x, 0.5, z)
	tree.root.add_child(b)
	# Settle, then push.
	for i in 20:
		await tree.physics_frame
	var start := b.global_position.x
	b.linear_velocity = Vector3(speed, 0, 0)
	var ticks := 0
	while ticks < 1200:
		await tree.physics_frame
		ticks += 1
		if ticks > 5 and b.linear_velocity.length() < 0.01:
			break
	var d := b.global_position.x - start
	b.queue_free()
	return d


## The median of five slides starting 8 m apart from `x0` (Godot Physics's box contacts on a heightmap
## vary from slide to slide; Jolt's do not).
func _median_slide(x0: float, speed: float) -> float:
	var d: Array[float] = []
	for k in 5:
		d.append(await _slide(x0 + 8.0 * k, 64.0, speed))
	d.sort()
	return d[2]


## The bound a slide ratio keeps: 10 % (the issue's goal) with Jolt; 15 % with Godot Physics, whose ratio
## measured 4.03–4.49 over runs where 4 is predicted (docs/ground-surfaces.md).
func _tolerance() -> float:
	return 0.15 if str(ProjectSettings.get_setting("physics/3d/physics_engine")).begins_with("Godot") else 0.1


func test_a_box_slides_further_on_ice_as_the_frictions_say() -> void:
	var tn := _terrain()
	await tree.physics_frame
	await tree.physics_frame
	await tree.physics_frame
	check_eq(tn.get_surface_name(AT + Vector3(100, 0, 64)), &"ice", "ice in the east")
	var speed := 2.0
	var grass := await _median_slide(10.0, speed)
	var ice := await _median_slide(70.0, speed)
	var engine := str(ProjectSettings.get_setting("physics/3d/physics_engine"))
	# d = v^2 / (2 mu g); both engines combine the box's friction 1 with the ground's by the smaller.
	var want_grass := speed * speed / (2.0 * 0.4 * 9.8)
	var want_ice := speed * speed / (2.0 * 0.1 * 9.8)
	print("friction %s: slid %.3f m on grass (predicted %.3f), %.3f m on ice (%.3f); ratio %.2f, predicted 4" % [engine, grass, want_grass, ice, want_ice, ice / grass])
	check(absf(ice / grass / 4.0 - 1.0) <= _tolerance(), "ice / grass distance %.2f, frictions say 4 (within %d %%)" % [ice / grass, roundi(_tolerance() * 100)])
	# A new collision material leaves the layers' own frictions (the tiles are made again with them).
	var other := PhysicsMaterial.new()
	other.friction = 0.8
	tn.collision.physics_material = other
	for i in 3:
		await tree.physics_frame
	var ice_again := await _median_slide(70.0, speed)
	check(absf(ice_again / want_ice - 1.0) <= _tolerance(), "ice keeps its friction after the collision's material changed (%.3f m)" % ice_again)
	tn.queue_free()
	await tree.physics_frame
	# Without the layers' materials every tile takes the collision's: equal slides, as on grass.
	var plain := _terrain()
	var ground := PhysicsMaterial.new()
	ground.friction = 0.4
	plain.collision.physics_material = ground
	for l in plain.terrain_material.layers:
		l.physics_material = null
	for i in 3:
		await tree.physics_frame
	var plain_grass := await _median_slide(10.0, speed)
	var plain_ice := await _median_slide(70.0, speed)
	print("friction %s without layer materials: %.3f m and %.3f m" % [engine, plain_grass, plain_ice])
	check(absf(plain_ice / want_grass - 1.0) < _tolerance() and absf(plain_grass / want_grass - 1.0) < _tolerance(), "no layer materials: the collision's friction everywhere (%.3f, %.3f m; predicted %.3f)" % [plain_grass, plain_ice, want_grass])
	plain.queue_free()
