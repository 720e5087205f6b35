extends "res://wt_test.gd"
## TerrainNode collision in real physics (this suite runs once per physics engine): vertical rays hit the
## drawn surface within the bound of each collision_subdivision, spheres come to rest on it, edits reach
## collision within a few physics frames (under the target, on the next one), DYNAMIC collision follows its
## target, rays outside hit nothing.

const SIZE := 256


## Rough: 30 m of relief in features a few samples wide at 1 m spacing (slopes past 45 degrees, ridges
## one sample wide): the worst case for a piecewise-linear heightmap.
func _rough() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(5, 0.06, 5, 2.0, 0.5, 30.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


## Hilly: the wandering terrain demo's kind of ground (20 m hills 48 samples wide, five octaves of detail).
func _hilly() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(5, 1.0 / 48.0, 5, 2.0, 0.5, 20.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _node(t: TerrainData, mode: int, sub: int) -> TerrainNode:
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.collision_mode = mode
	tn.collision_subdivision = sub
	tn.terrain_data = t
	tree.root.add_child(tn)
	return tn


## A Node3D in the tree at `at`, for a node to follow.
func _target_at(at: Vector3) -> Node3D:
	var target := Node3D.new()
	tree.root.add_child(target)
	target.position = at
	return target


func _ray_down(x: float, z: float, top := 1000.0) -> Dictionary:
	var space := tree.root.get_world_3d().direct_space_state
	return space.intersect_ray(PhysicsRayQueryParameters3D.create(Vector3(x, top, z), Vector3(x, -1000.0, z)))


func _engine() -> String:
	return str(ProjectSettings.get_setting("physics/3d/physics_engine"))


## [worst, p95, hits, right collider] of |ray hit - get_height| for `n` random rays inside the samples' hull.
func _ray_errors(tn: TerrainNode, t: TerrainData, n: int, rng: RandomNumberGenerator) -> Array:
	var errs: Array[float] = []
	var hits := 0
	var ours := 0
	for i in n:
		var x := rng.randf_range(0.6, SIZE - 0.6)
		var z := rng.randf_range(0.6, SIZE - 0.6)
		var hit := _ray_down(x, z)
		if hit.is_empty():
			continue
		hits += 1
		ours += int(hit["collider"] == tn)
		errs.append(absf(hit["position"].y - t.get_height(Vector2(x, z))))
	errs.sort()
	if errs.is_empty():
		return [INF, INF, 0, 0]
	return [errs[-1], errs[int(errs.size() * 0.95)], hits, ours]


func test_vertical_rays_hit_the_drawn_surface() -> void:
	# Bounds per subdivision (metres) at 1 m spacing, from the measurements printed below with some margin.
	# The default, 4, keeps the hilly terrain's worst under 5 cm.
	await _rays(_rough(), "rough", {1: 1.5, 2: 0.6, 4: 0.2})
	await _rays(_hilly(), "hilly", {1: 0.3, 2: 0.1, 4: 0.05})


func _rays(t: TerrainData, label: String, bounds: Dictionary) -> void:
	var rng := RandomNumberGenerator.new()
	rng.seed = 1234
	var worst_prev := INF
	for sub in [1, 2, 4]:
		var tn := _node(t, TerrainNode.COLLISION_FULL, sub)
		await tree.physics_frame
		await tree.physics_frame
		var e := _ray_errors(tn, t, 10000, rng)
		print("collision %s, %s terrain, subdivision %d: %d / 10000 rays hit; |hit - get_height| worst %.4f m, p95 %.4f m" % [_engine(), label, sub, e[2], e[0], e[1]])
		check_eq(e[2], 10000, "every ray inside the terrain hits (subdivision %d)" % sub)
		check_eq(e[3], e[2], "the collider is the TerrainNode")
		check(e[0] <= bounds[sub], "subdivision %d: worst %s over the bound %s" % [sub, e[0], bounds[sub]])
		check(e[0] < worst_prev, "subdivision %d is more accurate than the one below" % sub)
		worst_prev = e[0]
		# Outside the terrain: nothing.
		var outside := 0
		for i in 200:
			var x := rng.randf_range(-50.0, -1.0) if i % 2 == 0 else rng.randf_range(SIZE + 1.0, SIZE + 50.0)
			outside += int(not _ray_down(x, rng.randf_range(0, SIZE)).is_empty())
		check_eq(outside, 0, "rays outside the terrain hit nothing")
		tn.queue_free()
		await tree.physics_frame


func test_spheres_come_to_rest_on_the_surface() -> void:
	# Gentle hills (8 m over 48 samples): slopes a sphere can rest on.
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(5, 1.0 / 48.0, 5, 2.0, 0.5, 8.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := _node(t, TerrainNode.COLLISION_FULL, 4)
	var rng := RandomNumberGenerator.new()
	rng.seed = 99
	var balls: Array[RigidBody3D] = []
	var r := 0.5
	var grip := PhysicsMaterial.new()
	grip.rough = true
	tn.physics_material = grip
	for i in 100:
		var b := RigidBody3D.new()
		var cs := CollisionShape3D.new()
		var sph := SphereShape3D.new()
		sph.radius = r
		cs.shape = sph
		b.add_child(cs)
		# Heavy damping and rough contact: the spheres settle where they land instead of rolling downhill.
		b.linear_damp = 8.0
		b.angular_damp = 40.0
		b.physics_material_override = grip
		var p := Vector2(rng.randf_range(20, SIZE - 20), rng.randf_range(20, SIZE - 20))
		b.position = Vector3(p.x, t.get_height(p) + 2.0, p.y)
		tree.root.add_child(b)
		balls.append(b)
	# Four simulated seconds (ticks, not wall time: a loaded machine runs fewer ticks a second).
	for i in 240:
		await tree.physics_frame
	var worst := 0.0
	var moving := 0
	for b in balls:
		var p := Vector2(b.global_position.x, b.global_position.z)
		var n := t.get_normal(p)
		# A sphere resting on a slope touches it uphill of its centre: centre = surface + r / n.y (plane).
		var want := t.get_height(p) + r / n.y
		worst = worst_of(worst, absf(b.global_position.y - want))
		moving += int(b.linear_velocity.length() > 0.2)
		b.queue_free()
	tn.queue_free()
	print("collision %s: 100 spheres, worst |rest - (get_height + r / n.y)| %.4f m, %d still moving" % [_engine(), worst, moving])
	# Bound: the ray bound of subdivision 4 on hilly ground plus the curvature under a 0.5 m sphere.
	check(worst <= 0.05, "spheres rest on the drawn surface (worst %s)" % worst)
	check(moving <= 10, "spheres come to rest (%d still moving)" % moving)


func test_edits_reach_collision_within_a_few_physics_frames() -> void:
	var t := _rough()
	var tn := _node(t, TerrainNode.COLLISION_FULL, 2)
	# Godot Physics adds new bodies to its broadphase in the physics step after physics_frame.
	await tree.physics_frame
	await tree.physics_frame
	var before: float = _ray_down(100.3, 80.7)["position"].y
	var block := PackedFloat32Array()
	block.resize(20 * 20)
	block.fill(77.0)
	t.set_heights_region(Rect2i(90, 70, 20, 20), block)
	# The edited tiles are computed on worker threads and handed to the engine as soon as they are ready:
	# a few physics frames at 60 a second (the bench measures it); here within 30 physics frames (counted,
	# not timed: a loaded machine runs fewer a second).
	var frames := 0
	var t0 := Time.get_ticks_msec()
	while frames < 30:
		await tree.physics_frame
		frames += 1
		if absf(_ray_down(100.3, 80.7)["position"].y - 77.0) < 1e-3:
			break
	print("collision %s: a 20² edit collidable after %d physics frames, %d ms" % [_engine(), frames, Time.get_ticks_msec() - t0])
	var hit := _ray_down(100.3, 80.7)
	check_near(hit["position"].y, 77.0, 1e-3, "ray sees the edit (was %s)" % before)
	check_near(hit["position"].y, t.get_height(Vector2(100.3, 80.7)), 1e-3, "and equals get_height")
	# Far away nothing changed.
	check_near(_ray_down(200.5, 200.5)["position"].y, t.get_height(Vector2(200.5, 200.5)), 0.2, "elsewhere unchanged")
	tn.queue_free()


func test_an_edit_under_the_target_collides_on_the_next_physics_frame() -> void:
	# The tile under the target is recomputed at once; the rest of the edit comes from the worker threads.
	var t := _rough()
	var target := _target_at(Vector3(120.3, 0, 130.6))
	var tn := _node(t, TerrainNode.COLLISION_DYNAMIC, 4)
	tn.target = tn.get_path_to(target)
	await tree.physics_frame
	await tree.physics_frame
	var block := PackedFloat32Array()
	block.resize(64 * 64)
	for k in 4:
		var h := 50.0 + k * 7.0
		block.fill(h)
		# Made right after a physics frame began: the terrain's physics pass of this frame follows.
		await tree.physics_frame
		t.set_heights_region(Rect2i(100, 110, 64, 64), block)
		await tree.physics_frame
		check_near(_ray_down(120.3, 130.6)["position"].y, h, 1e-3, "edit %d under the target collides" % k)
	tn.queue_free()
	target.queue_free()


func test_a_still_target_costs_no_physics_tick_and_collision_wakes() -> void:
	# With a still target and nothing on its way, the node stops its physics processing; a move, an
	# edit or a new setting turns it back on and collision follows as before.
	var t := _rough()
	var target := _target_at(Vector3(120.3, 0, 130.6))
	var tn := _node(t, TerrainNode.COLLISION_DYNAMIC, 4)
	tn.target = tn.get_path_to(target)
	var waited := 0
	while tn.is_physics_processing() and waited < 600:
		await tree.physics_frame
		waited += 1
	check(not tn.is_physics_processing(), "asleep with a still target (waited %d ticks)" % waited)
	var ticks0: int = tn.get_work_stats()["collision_steps"]
	for i in 10:
		await tree.physics_frame
	check_eq(tn.get_work_stats()["collision_steps"], ticks0, "no collision step while asleep")
	# An edit under the sleeping target collides on the next physics frame.
	var block := PackedFloat32Array()
	block.resize(64 * 64)
	block.fill(61.0)
	await tree.physics_frame
	t.set_heights_region(Rect2i(100, 110, 64, 64), block)
	check(tn.is_physics_processing(), "an edit wakes collision")
	await tree.physics_frame
	check_near(_ray_down(120.3, 130.6)["position"].y, 61.0, 1e-3, "the edit under the sleeping target collides")
	while tn.is_physics_processing() and waited < 1200:
		await tree.physics_frame
		waited += 1
	check(not tn.is_physics_processing(), "asleep again once the edit is in")
	# A move: the frame that sees it wakes collision; the ground there collides within a few ticks.
	# (It may be asleep again by the time a check looks: the collision steps counted tell that it ran.)
	var steps: int = tn.get_work_stats()["collision_steps"]
	target.position = Vector3(40.5, 0, 200.5)
	for i in 6:
		await tree.physics_frame
	check(tn.get_work_stats()["collision_steps"] > steps, "a move wakes collision")
	check_near(_ray_down(40.5, 200.5)["position"].y, tn.get_height(Vector2(40.5, 200.5)), 1e-3, "collision follows the target after waking")
	# A setting that needs a new step wakes it too.
	while tn.is_physics_processing() and waited < 1800:
		await tree.physics_frame
		waited += 1
	tn.collision_radius = 30.0
	check(tn.is_physics_processing(), "a new collision_radius wakes collision")
	tn.queue_free()
	target.queue_free()


func test_dynamic_collision_follows_the_target() -> void:
	var t := _rough()
	var target := Node3D.new()
	tree.root.add_child(target)
	# The target is known when the node enters the tree: its collision is built before the first physics
	# frame (whether or not one runs before the first ray).
	target.position = Vector3(5, 0, 250)
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_data = t
	tn.collision_mode = TerrainNode.COLLISION_DYNAMIC
	tn.collision_radius = 20.0
	tn.target = target.get_path()
	tree.root.add_child(tn)
	# Godot Physics adds new bodies to its broadphase in the physics step after physics_frame.
	await tree.physics_frame
	var misses := 0
	var most := 0
	for i in 60:
		var p := Vector2(5 + i * 4.1, 250 - i * 3.9)
		target.position = Vector3(p.x, 0, p.y)
		await tree.physics_frame
		misses += int(_ray_down(p.x, p.y).is_empty())
		most = maxi(most, tn.get_collision_tile_count())
	check_eq(misses, 0, "a ray at the target always hits")
	# Radius 20 plus two rings of 16-sample tiles (subdivision 4): at most 9 x 9 tiles.
	check(most <= 81, "only the tiles around the target (%d at most)" % most)
	# Far from the target there is no collision.
	target.position = Vector3(10, 0, 10)
	await tree.physics_frame
	check(_ray_down(240.5, 240.5).is_empty(), "no collision far from the target")
	tn.queue_free()
	target.queue_free()


func test_bad_collision_settings() -> void:
	var tn := TerrainNode.new()
	expect_error("TerrainNode.collision_subdivision must be 1, 2 or 4, got 3")
	tn.collision_subdivision = 3
	expect_error("TerrainNode.collision_mode must be 0 (DISABLED), 1 (DYNAMIC) or 2 (FULL), got 7")
	tn.collision_mode = 7
	expect_error("TerrainNode.collision_radius must be a finite number in (0, 100000], got NaN")
	tn.collision_radius = NAN
	check_eq(tn.collision_subdivision, 4, "subdivision kept")
	check_eq(tn.collision_mode, TerrainNode.COLLISION_DYNAMIC, "mode kept")
	check_eq(tn.collision_radius, 64.0, "radius kept")
	tn.free()


func test_holes_are_open_exactly_where_not_drawn() -> void:
	var t := _hilly()
	var holes := PackedByteArray()
	holes.resize(20 * 20)
	holes.fill(1)
	t.set_holes_region(Rect2i(100, 100, 20, 20), holes)
	# A single hole sample too: the four patches around it open.
	t.set_holes_region(Rect2i(60, 60, 1, 1), PackedByteArray([1]))
	var rng := RandomNumberGenerator.new()
	rng.seed = 5
	for sub in [1, 2, 4]:
		var tn := _node(t, TerrainNode.COLLISION_FULL, sub)
		# Godot Physics adds new bodies to its broadphase in the physics step after physics_frame.
		await tree.physics_frame
		await tree.physics_frame
		var wrong := 0
		var in_hole := 0
		for i in 3000:
			var p := Vector2(rng.randf_range(95, 125), rng.randf_range(95, 125)) if i % 3 else Vector2(rng.randf_range(58.5, 62.5), rng.randf_range(58.5, 62.5))
			var hole := t.is_hole(p)
			in_hole += int(hole)
			var hit := _ray_down(p.x, p.y)
			wrong += int(hit.is_empty() != hole)
		print("collision %s holes, subdivision %d: %d of 3000 rays disagree with is_hole (%d rays over holes)" % [_engine(), sub, wrong, in_hole])
		# Subdivision 1 is exact; finer grids keep a few small triangles at the corners of the outline.
		check(wrong == 0 if sub == 1 else wrong <= 30, "subdivision %d: %d rays disagree with is_hole" % [sub, wrong])
		check(in_hole > 500, "rays over holes tested")
		tn.queue_free()
		await tree.physics_frame
	# Spheres over the hole fall through; beside it they stay on the ground.
	var tn := _node(t, TerrainNode.COLLISION_FULL, 4)
	var balls: Array[RigidBody3D] = []
	for i in 20:
		var b := RigidBody3D.new()
		var cs := CollisionShape3D.new()
		cs.shape = SphereShape3D.new()
		(cs.shape as SphereShape3D).radius = 0.4
		b.add_child(cs)
		b.linear_damp = 2.0
		b.angular_damp = 20.0
		var p := Vector2(104 + (i % 5) * 3, 104 + (i / 5) * 3) if i < 10 else Vector2(60 + (i % 5) * 10, 150 + (i / 5) * 8)
		b.position = Vector3(p.x, t.get_heights_region(Rect2i(int(p.x), int(p.y), 1, 1))[0] + 2.0, p.y)
		tree.root.add_child(b)
		balls.append(b)
	# 2.5 simulated seconds.
	for i in 150:
		await tree.physics_frame
	var fell := 0
	var stayed := 0
	for i in 20:
		var b := balls[i]
		var p := Vector2(b.global_position.x, b.global_position.z)
		var ground: float = t.get_heights_region(Rect2i(clampi(int(p.x), 0, SIZE - 1), clampi(int(p.y), 0, SIZE - 1), 1, 1))[0]
		if i < 10:
			fell += int(b.global_position.y < ground - 3.0)
		else:
			stayed += int(b.global_position.y > ground - 1.0)
		b.queue_free()
	tn.queue_free()
	check_eq(fell, 10, "spheres over the hole fall through")
	check_eq(stayed, 10, "spheres beside it stay on the ground")


func test_wandering_terrain_collides_where_it_draws() -> void:
	var t := _hilly()
	var cam := Camera3D.new()
	tree.root.add_child(cam)
	cam.make_current()
	cam.position = Vector3(200, 40, 80)
	var wt := WanderingTerrain.new()
	wt.terrain_data = t
	wt.position = Vector3(100, 0, -50)
	wt.collision_mode = WanderingTerrain.COLLISION_FULL
	tree.root.add_child(wt)
	await tree.physics_frame
	await tree.physics_frame
	var rng := RandomNumberGenerator.new()
	rng.seed = 8
	var worst := 0.0
	var misses := 0
	for i in 1000:
		var p := Vector2(rng.randf_range(101, 355), rng.randf_range(-49, 205))
		var hit := _ray_down(p.x, p.y)
		if hit.is_empty():
			misses += 1
			continue
		check(hit["collider"] == wt, "collider is the WanderingTerrain")
		worst = worst_of(worst, absf(hit["position"].y - wt.get_height(p)))
	check_eq(misses, 0, "every ray over the moved terrain hits")
	check(worst <= 0.05, "hits equal get_height within the subdivision-4 bound (worst %s)" % worst)
	# DYNAMIC follows the camera.
	wt.collision_mode = WanderingTerrain.COLLISION_DYNAMIC
	wt.collision_radius = 16.0
	await tree.physics_frame
	await tree.physics_frame
	check(not _ray_down(200, 80).is_empty(), "collision under the camera")
	check(_ray_down(340, 190).is_empty(), "none far from it")
	wt.queue_free()
	cam.queue_free()


func test_collision_follows_the_node_and_its_data() -> void:
	var t := _hilly()
	var tn := _node(t, TerrainNode.COLLISION_FULL, 1)
	await tree.physics_frame
	await tree.physics_frame
	var tiles := tn.get_collision_tile_count()
	# Moved and scaled: the same tiles, placed anew.
	tn.position = Vector3(50, 3, -20)
	tn.scale = Vector3(2, 1.5, 2)
	await tree.physics_frame
	await tree.physics_frame
	# A sample centre: subdivision 1 is exact there (to Jolt's 8-bit quantisation of its height field).
	var p := Vector2(50 + 2 * 100.5, -20 + 2 * 60.5)
	var hit := _ray_down(p.x, p.y)
	check(not hit.is_empty() and absf(hit["position"].y - tn.get_height(p)) < 0.02, "moved node: ray hits its get_height (%s vs %s)" % [hit, tn.get_height(p)])
	check_eq(tn.get_collision_tile_count(), tiles, "moving rebuilt no tiles")
	# Another TerrainData of the same size: the new heights.
	var flat := TerrainData.new()
	flat.size = t.size
	var h := flat.heights
	h.fill(7.0)
	flat.heights = h
	tn.terrain_data = flat
	await tree.physics_frame
	await tree.physics_frame
	hit = _ray_down(p.x, p.y)
	check(not hit.is_empty() and absf(hit["position"].y - (3 + 1.5 * 7.0)) < 1e-3, "swapped data: new heights")
	# Disabled: nothing left.
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	await tree.physics_frame
	await tree.physics_frame
	check(_ray_down(p.x, p.y).is_empty(), "disabled: no collision")
	check_eq(tn.get_collision_tile_count(), 0, "no tiles")
	tn.queue_free()


## An endless generated world (terrain_generator): DYNAMIC collision follows a target flying far from the
## origin, rays at the target hit the drawn surface (get_height) within the subdivision's bound, and FULL
## behaves as DYNAMIC there (an endless world has no "every tile").
func test_endless_world_collides_around_a_flying_target() -> void:
	var g := TerrainGenerator.new()
	g.seed = 5
	g.frequency = 1.0 / 48.0
	g.height = 20.0
	var s := following_node(g, Vector3.ZERO, {
		tile_resolution = 8, levels = 3,
		collision_mode = TerrainNode.COLLISION_DYNAMIC, collision_radius = 20.0,
	})
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	var rng := RandomNumberGenerator.new()
	rng.seed = 11
	var misses := 0
	var worst := 0.0
	var most := 0
	for i in 60:
		# 300 m/s at 60 physics frames a second, 40 km out.
		var p := Vector2(40000.0 + i * 5.0, -25000.0 + i * 1.5)
		target.position = Vector3(p.x, 0, p.y)
		await tree.physics_frame
		await tree.physics_frame
		for k in 5:
			var q := p + Vector2(rng.randf_range(-8, 8), rng.randf_range(-8, 8))
			var hit := _ray_down(q.x, q.y)
			if hit.is_empty() or hit["collider"] != tn:
				misses += 1
				continue
			worst = worst_of(worst, absf(hit["position"].y - tn.get_height(q)))
		most = maxi(most, tn.get_collision_tile_count())
	check_eq(misses, 0, "rays near the target hit the terrain")
	# Subdivision 4 (the default) follows the drawn surface within a few centimetres on hilly ground.
	check(worst < 0.05, "worst |hit - get_height| %s m" % worst)
	check(most <= 81, "only the tiles around the target (%d at most)" % most)
	tn.collision_mode = TerrainNode.COLLISION_FULL
	await tree.physics_frame
	await tree.physics_frame
	check(tn.get_collision_tile_count() <= 81, "FULL follows the target on an endless world (%d tiles)" % tn.get_collision_tile_count())
	check(not _ray_down(target.position.x + 0.3, target.position.z).is_empty(), "and collides there")
	print("endless collision (%s): 300 rays 40 km out, worst |hit - get_height| %s m, at most %d tiles" % [_engine(), worst, most])
	tn.queue_free()
	target.queue_free()


## Moves its target `step` a physics tick and casts a ray under it at once, in the same tick, before the
## engine's step (as a character's move_and_slide would query); added after the terrain, so it runs after
## the terrain's collision update.
class Flyer extends Node:
	var target: Node3D
	var terrain: TerrainNode
	var step := Vector3.ZERO
	var ticks := 0
	var misses := 0

	func _physics_process(_delta: float) -> void:
		var q := target.position + step
		target.position = q
		ticks += 1
		var space := terrain.get_world_3d().direct_space_state
		var ray := PhysicsRayQueryParameters3D.create(q + Vector3(0, 1000, 0), q - Vector3(0, 1000, 0))
		misses += int(space.intersect_ray(ray).is_empty())


func test_a_fast_target_finds_ground_every_tick_with_the_cores_busy() -> void:
	var g := TerrainGenerator.new()
	g.seed = 4096
	g.frequency = 1.0 / 700.0
	g.height = 220.0
	# Default collision (DYNAMIC, radius 64 m, subdivision 4); the workers get no core of their own.
	var s := following_node(g, Vector3(0, 0, 0))
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	await tree.physics_frame
	await tree.physics_frame
	var busy := [true]
	var threads: Array[Thread] = []
	for i in 3:
		var th := Thread.new()
		th.start(func() -> void:
			var n := 0
			while busy[0]:
				n += 1)
		threads.append(th)
	var flyer := Flyer.new()
	flyer.target = target
	flyer.terrain = tn
	# 450 m/s at 60 ticks a second.
	flyer.step = Vector3(7.5, 0, 1.0)
	tree.root.add_child(flyer)
	while flyer.ticks < 400:
		await tree.physics_frame
	busy[0] = false
	for th in threads:
		th.wait_to_finish()
	check_eq(flyer.misses, 0, "ticks without ground under the target, of %d (%s)" % [flyer.ticks, _engine()])
	print("fast target with the cores busy (%s): %d ticks, %d without ground, %d tiles computed late" % [_engine(), flyer.ticks, flyer.misses, tn.get_collision_late_tiles()])
	flyer.queue_free()
	tn.queue_free()
	target.queue_free()


func test_visible_collision_shapes_draw_the_tiles_exactly() -> void:
	var t := _hilly()
	# Off (the default): nothing is drawn, nothing spent.
	var off := _node(t, TerrainNode.COLLISION_FULL, 1)
	off.update_collision()
	check(off.get_collision_debug_points().is_empty(), "no debug mesh without Visible Collision Shapes")
	off.queue_free()
	await tree.physics_frame
	tree.debug_collisions_hint = true
	var tn := _node(t, TerrainNode.COLLISION_FULL, 1)
	tn.position = Vector3(3, 1, -2)
	tn.update_collision()
	await tree.physics_frame
	var pts := tn.get_collision_debug_points()
	check(pts.size() >= SIZE * SIZE, "every tile drawn (%d points)" % pts.size())
	# The drawn points are the physics shape's: a vertical ray at each lands on it.
	var worst := 0.0
	var rng := RandomNumberGenerator.new()
	rng.seed = 4
	var tested := 0
	for k in 600:
		var p := pts[rng.randi_range(0, pts.size() - 1)]
		# Points beyond the ground (open, NaN) and on the shape's very rim are not ray targets.
		if is_nan(p.y) or p.x < 5.0 or p.z < -0.0 or p.x > SIZE + 1.0 or p.z > SIZE - 4.0:
			continue
		tested += 1
		var hit := _ray_down(p.x, p.z)
		worst = worst_of(worst, absf(hit.position.y - p.y) if not hit.is_empty() else INF)
	check(tested > 300, "points tested (%d)" % tested)
	# Jolt keeps its height field to 8 bits a block (see the moved-node case): its own quantisation.
	var tol := 0.02 if _engine().contains("Jolt") else 1e-3
	check(worst <= tol, "debug points on the physics surface (worst %f, %s)" % [worst, _engine()])
	# An edit redraws its tiles.
	var b := TerrainBrush.new()
	b.size = 40.0
	b.strength = 50.0
	t.apply_brush(b, Vector2(128, 128), 0.5)
	for i in 4:
		await tree.physics_frame
	tn.update_collision()
	pts = tn.get_collision_debug_points()
	worst = 0.0
	for p in pts:
		if absf(p.x - 131.5) < 8.0 and absf(p.z - 126.5) < 8.0:
			worst = worst_of(worst, absf(p.y - (t.get_height(Vector2(p.x - 3, p.z + 2)) + 1.0)))
	check(worst <= 1e-3, "the edited tiles are drawn with the new heights (worst %f)" % worst)
	tree.debug_collisions_hint = false
	tn.queue_free()


## Flat ground at `h` (`n`², 1 m spacing) under a node with the default collision (DYNAMIC, subdivision 4)
## following `target`.
func _flat(h: float, target: Node3D, n := 128) -> Array:
	var t := TerrainData.new()
	t.size = Vector2i(n, n)
	var hs := PackedFloat32Array()
	hs.resize(n * n)
	hs.fill(h)
	t.heights = hs
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_data = t
	tree.root.add_child(tn)
	tn.target = tn.get_path_to(target)
	return [tn, t]


## A 1 m box at (x, y, z), asleep on the ground (at most 600 physics ticks); [box, whether it slept].
func _sleeping_box(x: float, y: float, z: float) -> Array:
	var b := RigidBody3D.new()
	var cs := CollisionShape3D.new()
	cs.shape = BoxShape3D.new()
	b.add_child(cs)
	b.position = Vector3(x, y, z)
	tree.root.add_child(b)
	var n := 0
	while not b.sleeping and n < 600:
		await tree.physics_frame
		n += 1
	return [b, b.sleeping]


func _fill(t: TerrainData, r: Rect2i, h: float) -> void:
	var block := PackedFloat32Array()
	block.resize(r.size.x * r.size.y)
	block.fill(h)
	t.set_heights_region(r, block)


## An edit wakes the bodies resting on the edited ground (the engines never do it: a sleeping box stayed
## floating over lowered ground): lowered by 0.5 m, the box lands within 30 physics ticks.
func test_a_sleeping_body_on_lowered_ground_lands() -> void:
	var holder := Node3D.new()
	tree.root.add_child(holder)
	holder.position = Vector3(64.3, 0, 60.7)
	var f := _flat(10.0, holder)
	var t: TerrainData = f[1]
	var s := await _sleeping_box(64.3, 11.0, 60.7)
	var box: RigidBody3D = s[0]
	check(s[1], "the box fell asleep on the ground (%s)" % _engine())
	check_near(box.global_position.y, 10.5, 0.05, "resting on the ground")
	_fill(t, Rect2i(48, 44, 32, 32), 9.5)
	var ticks := 0
	while ticks < 30 and absf(box.global_position.y - 10.0) > 0.05:
		await tree.physics_frame
		ticks += 1
	print("collision %s: a sleeping box landed on ground lowered by 0.5 m after %d physics ticks" % [_engine(), ticks])
	check_near(box.global_position.y, 10.0, 0.05, "landed on the lowered ground within 30 ticks")
	box.queue_free()
	f[0].queue_free()
	holder.queue_free()


## A raise under a resting body lifts it by the rise instead of swallowing it (both engines; with
## `collision_lift_bodies` off it stays buried, as a body the engine never saw move).
func test_a_body_on_raised_ground_ends_on_top() -> void:
	var holder := Node3D.new()
	tree.root.add_child(holder)
	holder.position = Vector3(64.3, 0, 60.7)
	var f := _flat(10.0, holder)
	var tn: TerrainNode = f[0]
	var t: TerrainData = f[1]
	var s := await _sleeping_box(64.3, 11.0, 60.7)
	var box: RigidBody3D = s[0]
	check(s[1], "the box fell asleep (%s)" % _engine())
	_fill(t, Rect2i(48, 44, 32, 32), 12.0)   # +2 m: four times its half height
	for i in 30:
		await tree.physics_frame
	print("collision %s: a box on ground raised by 2 m rests at %.3f (ground 12)" % [_engine(), box.global_position.y])
	check_near(box.global_position.y, 12.5, 0.05, "on top of the raised ground")
	# An awake one too: a sudden raise of 0.75 m under a box bouncing on it.
	box.apply_central_impulse(Vector3(0, 2, 0))
	await tree.physics_frame
	_fill(t, Rect2i(48, 44, 32, 32), 12.75)
	for i in 60:
		await tree.physics_frame
	check_near(box.global_position.y, 13.25, 0.05, "an awake body on top too")
	# With the option off: the raise swallows it (what users had before).
	tn.collision_lift_bodies = false
	check(not tn.collision_lift_bodies, "the option reads back")
	for i in 120:
		await tree.physics_frame
	var before := box.global_position.y
	_fill(t, Rect2i(48, 44, 32, 32), 15.0)
	for i in 30:
		await tree.physics_frame
	check(box.global_position.y < before + 0.1, "not lifted with collision_lift_bodies off (%s → %s)" % [before, box.global_position.y])
	box.queue_free()
	tn.queue_free()
	holder.queue_free()


## A character walking over ground raised by 3 m at once ends on top (it fell through).
func test_a_character_on_ground_raised_by_3_m_ends_on_top() -> void:
	var ch := CharacterBody3D.new()
	var cs := CollisionShape3D.new()
	var cap := CapsuleShape3D.new()
	cap.radius = 0.4
	cap.height = 1.8
	cs.shape = cap
	ch.add_child(cs)
	ch.position = Vector3(40.3, 11.0, 60.7)
	tree.root.add_child(ch)
	var f := _flat(10.0, ch)
	var t: TerrainData = f[1]
	var walk := func(ticks: int) -> void:
		for i in ticks:
			await tree.physics_frame
			ch.velocity = Vector3(2.0, ch.velocity.y - 9.8 / 60.0, 0.0)
			ch.move_and_slide()
	await walk.call(60)
	check_near(ch.global_position.y, 10.9, 0.1, "walking on the ground")
	_fill(t, Rect2i(0, 0, 128, 128), 13.0)
	await walk.call(60)
	print("collision %s: a character on ground raised by 3 m is at %.3f (ground 13)" % [_engine(), ch.global_position.y])
	check_near(ch.global_position.y, 13.9, 0.1, "walking on top of the raised ground")
	check(ch.is_on_floor(), "on the floor")
	ch.queue_free()
	f[0].queue_free()


## `collision_tolerance`: flat ground takes a point a sample (17² a tile at subdivision 4, not 65²), the
## points still on the ground and rays hitting it; 0 keeps every point; a bad value is refused by name.
## (129² samples: whole tiles. A tile reaching past the map's edge holds open points there and keeps
## every point, as a tile with a hole does.)
func test_flat_ground_takes_fewer_collision_points() -> void:
	tree.debug_collisions_hint = true
	var holder := _target_at(Vector3(64.3, 0, 60.7))
	var counts: Array[int] = []
	for tol in [0.0, 0.01]:
		var f := _flat(10.0, holder, 129)
		var tn: TerrainNode = f[0]
		tn.collision_tolerance = tol
		tn.update_collision()
		await tree.physics_frame
		await tree.physics_frame
		var pts := tn.get_collision_debug_points()
		counts.append(pts.size())
		var worst := 0.0
		for p in pts:
			if not is_nan(p.y):
				worst = worst_of(worst, absf(p.y - 10.0))
		check(worst <= 1e-4, "tolerance %s: every point on the ground (worst %f)" % [tol, worst])
		var hit := _ray_down(64.3, 60.7)
		check(not hit.is_empty() and absf(hit["position"].y - 10.0) < 1e-3, "tolerance %s: a ray hits the ground: %s" % [tol, hit])
		tn.queue_free()
		await tree.physics_frame
	print("collision %s: flat ground, %d points at tolerance 0, %d at 0.01" % [_engine(), counts[0], counts[1]])
	check(counts[1] * 10 < counts[0], "flat ground takes far fewer points (%d vs %d)" % [counts[1], counts[0]])
	var node := TerrainNode.new()
	expect_error("TerrainNode.collision_tolerance must be in [0, 10]")
	node.collision_tolerance = NAN
	check_eq(node.collision_tolerance, 0.01, "tolerance kept")
	node.free()
	holder.queue_free()
	tree.debug_collisions_hint = false


## DYNAMIC collision is finest where bodies stand: tiles within a quarter of `collision_radius` of the target take
## `collision_tolerance`, farther tiles ten times it (fewer points for the engine); when the target moves
## on, the tiles it comes near are made again at the near tolerance (by the workers, collidable all along).
func test_collision_is_finest_near_the_target() -> void:
	var t := _hilly()
	var holder := _target_at(Vector3(60.3, 0, 60.7))
	var rng := RandomNumberGenerator.new()
	rng.seed = 77
	var counts: Array[int] = []
	tree.debug_collisions_hint = true
	for tol in [0.0, 0.01]:
		var tn := TerrainNode.new()
		tn.tile_resolution = 8
		tn.levels = 3
		tn.collision_tolerance = tol
		tn.terrain_data = t
		tree.root.add_child(tn)
		tn.target = tn.get_path_to(holder)
		holder.position = Vector3(60.3, 0, 60.7)
		for i in 40:
			await tree.physics_frame
		tn.update_collision()   # the same bands as the workers make
		await tree.physics_frame
		counts.append(tn.get_collision_debug_points().size())
		if tol == 0.0:
			tn.queue_free()
			await tree.physics_frame
			continue
		# Near: within 10 m of the target; far: 30 to 55 m away (past the near band's 16 m and a tile).
		var near := _ring_errors(tn, t, Vector2(60.3, 60.7), 0.0, 10.0, rng)
		var far := _ring_errors(tn, t, Vector2(60.3, 60.7), 30.0, 55.0, rng)
		print("collision %s: hilly ground, %d points exact, %d banded; |hit - get_height| worst near %.4f m, far %.4f m" % [_engine(), counts[0], counts[1], near, far])
		check(near <= 0.05 + 0.01, "near the target: within subdivision 4's bound and the tolerance (%f)" % near)
		check(far <= 0.05 + 0.1, "far: within the far tolerance (%f)" % far)
		check(counts[1] * 3 < counts[0] * 2, "far tiles take fewer points (%d vs %d)" % [counts[1], counts[0]])
		# The target moves 40 m: the ground there was far, now it is near again and fine.
		holder.position = Vector3(100.3, 0, 60.7)
		for i in 40:
			await tree.physics_frame
		var moved := _ring_errors(tn, t, Vector2(100.3, 60.7), 0.0, 10.0, rng)
		check(moved <= 0.05 + 0.01, "where the target went the ground is fine again (%f)" % moved)
		check_eq(tn.get_collision_late_tiles(), 0, "no tile was missing under the target")
		tn.queue_free()
		await tree.physics_frame
	tree.debug_collisions_hint = false
	holder.queue_free()


## Worst |ray hit - get_height| of 400 rays between `r0` and `r1` from `c` (NaN when a ray misses).
func _ring_errors(tn: TerrainNode, t: TerrainData, c: Vector2, r0: float, r1: float, rng: RandomNumberGenerator) -> float:
	var worst := 0.0
	for i in 400:
		var a := rng.randf() * TAU
		var d := rng.randf_range(r0, r1)
		var p := c + Vector2(cos(a), sin(a)) * d
		if p.x < 1.0 or p.y < 1.0 or p.x > SIZE - 2.0 or p.y > SIZE - 2.0:
			continue
		var hit := _ray_down(p.x, p.y)
		var e: float = absf(hit["position"].y - t.get_height(p)) if not hit.is_empty() and hit["collider"] == tn else NAN
		worst = worst_of(worst, e)
	return worst
