extends "res://wt_test.gd"
## TerrainNode over an endless generated world (terrain_generator): heights anywhere equal a generated
## TerrainData's over its extent, the data windows are computed on worker threads and shown when complete,
## the look and settings follow the generator.


func _generator(seed := 5) -> TerrainGenerator:
	var g := TerrainGenerator.new()
	g.seed = seed
	g.frequency = 0.03
	g.octaves = 5
	g.height = 25.0
	return g


## A TerrainNode on generator `g` following a fresh Node3D target at the origin; [node, target].
func _endless(g: TerrainGenerator) -> Array:
	return following_node(g)


## Frames until the node shows windows computed for its target (at most `limit`); the frames waited.
## Steps the node without waiting (`update_now(false)`: what its process does each frame).
func _settle(tn: TerrainNode, limit := 600) -> int:
	for i in limit:
		tn.update_now(false)
		if tn.is_up_to_date():
			return i
		await tree.process_frame
	return -1


func test_endless_heights_equal_a_generated_terrain_and_go_on_forever() -> void:
	var g := _generator()
	var t := TerrainData.new()
	t.size = Vector2i(96, 80)
	check(t.generate(g), "generated")
	var tn := TerrainNode.new()
	tn.terrain_generator = g
	var worst := 0.0
	for i in 400:
		# Away from the finite terrain's edges, where it clamps its samples.
		var p := Vector2(4.0 + fmod(i * 0.731, 88.0), 4.0 + fmod(i * 0.377, 72.0))
		worst = worst_of(worst, absf(tn.get_height(p) - t.get_height(p)))
		if i % 40 == 0:
			check(tn.get_normal(p).is_equal_approx(t.get_normal(p)), "normal at %s" % p)
	check_eq(worst, 0.0, "same surface as TerrainData.generate (worst difference)")
	for p in [Vector2(-3.0e4, 17.0), Vector2(1.0e6, -2.5e5), Vector2(-7.0e7, 7.0e7)]:
		var h := tn.get_height(p)
		check(is_finite(h) and absf(h) <= 25.0 * 1.25, "terrain at %s: %s" % [p, h])
	check(is_nan(tn.get_height(Vector2(NAN, 0))), "NaN position")
	# A moved and scaled node: samples one unit apart in the node's space.
	tn.position = Vector3(1000, 5, -40)
	tn.scale = Vector3(2, 3, 2)
	var q := Vector2(1021.0, -17.0)
	check_near(tn.get_height(q), t.get_height(Vector2(10.5, 11.5)) * 3 + 5, 1e-4, "moved and scaled")
	var hit := tn.raycast(Vector3(1021, 400, -17), Vector3(0.2, -1, 0.1))
	check(not is_nan(hit.x) and absf(hit.y - tn.get_height(Vector2(hit.x, hit.z))) < 1e-3, "raycast meets the endless world: %s" % hit)
	check(is_nan(tn.raycast(Vector3(1021, 400, -17), Vector3(0, 1, 0)).x), "a ray going up misses")
	# Small rings (reach 64 units across the ground) seen from high above: the ground under the camera is
	# still hit (the reach is across the ground, not along the ray): the editor picks this way.
	var saved := [tn.tile_resolution, tn.levels]
	tn.tile_resolution = 8
	tn.levels = 3
	var down := tn.raycast(Vector3(1021, 600, -17), Vector3(0.05, -1, 0))
	check(not is_nan(down.x) and absf(down.y - tn.get_height(Vector2(down.x, down.z))) < 1e-3, "a ray from 600 above meets the ground: %s" % down)
	tn.tile_resolution = saved[0]
	tn.levels = saved[1]
	# A domain-warped generator: still the same surface as its TerrainData.
	g.warp = 15.0
	g.warp_frequency = 0.01
	var tw := TerrainData.new()
	tw.size = Vector2i(64, 64)
	tw.generate(g)
	var same := 0
	for i in 100:
		var pw := Vector2(1000.0 + 2.0 * (5.0 + fmod(i * 0.61, 50.0)), -40.0 + 2.0 * (5.0 + fmod(i * 0.83, 50.0)))
		var local := Vector2((pw.x - 1000.0) / 2.0, (pw.y + 40.0) / 2.0)
		same += int(absf(tn.get_height(pw) - (tw.get_height(local) * 3 + 5)) < 1e-4)
	check_eq(same, 100, "warped world = warped TerrainData")
	g.warp = 0.0
	# A node scaled very small: a ray running level is followed a bounded distance, not for ever.
	var saved_scale := tn.scale
	tn.scale = Vector3(1e-4, 1, 1e-4)
	var t0 := Time.get_ticks_usec()
	# Above every hill (heights stay within ±31) but inside the slab a surface could reach: nothing to hit.
	tn.raycast(Vector3(1000, 50.0, -40), Vector3(1, -1e-6, 0))
	check(Time.get_ticks_usec() - t0 < 2000000, "a level ray under a tiny scale returns (%d us)" % (Time.get_ticks_usec() - t0))
	tn.scale = saved_scale
	# A new generator setting regenerates the world.
	var before := tn.get_height(q)
	g.seed = 6
	var after := tn.get_height(q)
	check(is_finite(before) and is_finite(after) and after != before, "generator changes reach the node (%s -> %s)" % [before, after])
	tn.free()


func test_endless_windows_stream_in_on_worker_threads() -> void:
	var s := _endless(_generator())
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	var waited := await _settle(tn)
	check(waited >= 0, "the first windows arrive")
	var tex = tn.material.get_shader_parameter("clipmap_data")
	var split: int = tn.material.get_shader_parameter("clipmap_split")
	check(tex is Texture2DArray and tex.get_layers() == 6 * split * split, "5 levels + the fine layer bound")
	check_eq(tn.material.get_shader_parameter("terrain_size"), Vector2(-1, -1), "endless: no edges")
	# A jump far away: the node keeps showing the old, complete windows until the new ones are done.
	target.position = Vector3(25000, 0, -12000)
	tn.update_now(false)
	var during := tn.is_up_to_date()
	waited = await _settle(tn)
	check(waited >= 0, "windows for the new place arrive")
	check(not during, "not up to date while the job runs")
	check(tn.take_uploaded_bytes() > 0, "layers were sent")
	# Standing still sends nothing.
	for i in 5:
		tn.update_now(false)
		await tree.process_frame
	check_eq(tn.take_uploaded_bytes(), 0, "still target: nothing sent")
	check(tn.check_setup().is_empty(), "no warnings with a generator: %s" % tn.check_setup())
	var log := WarningLog.new()
	OS.add_logger(log)
	tn.terrain_data = TerrainData.new()
	check(tn.check_setup().size() == 1 and tn.check_setup()[0].contains("More than one"), "two sources are reported")
	await tree.process_frame
	await tree.process_frame
	check(log.has("terrain_data and terrain_generator are both set"), "and warned about, not silently drawn: %s" % log.lines)
	# A script that sets one source and clears the other in a row is not warned about.
	log.lines.clear()
	tn.terrain_generator = _generator(6)
	tn.terrain_data = null
	await tree.process_frame
	await tree.process_frame
	check(not log.has("are both set"), "no warning for a change made in a row: %s" % log.lines)
	OS.remove_logger(log)
	tn.terrain_data = null
	tn.queue_free()
	target.queue_free()


## A 300 m/s flight: the windows catch up when it stops and the ground is there where it landed (the
## main thread's costs are printed for the record; the frame-budget bench measures them with a renderer).
func test_endless_flight_catches_up_and_lands_on_ground() -> void:
	var s := _endless(_generator())
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	await _settle(tn)
	# 300 m/s at 60 frames a second, for 4 s of frames: the main thread only polls, uploads and lays out.
	var costs: Array[int] = []
	var x := 0.0
	for f in 240:
		x += 5.0
		target.position = Vector3(x, 0, 0.3 * x)
		var t0 := Time.get_ticks_usec()
		tn.update_now(false)
		costs.append(Time.get_ticks_usec() - t0)
		await tree.process_frame
	costs.sort()
	var waited := await _settle(tn)
	check(waited >= 0, "catches up after the flight")
	var p := Vector2(x + 3.3, 0.3 * x - 2.1)
	check(is_finite(tn.get_height(p)), "height where it landed")
	print("endless flight (headless, 240 frames at 5 m/frame): update_now(false) median %d us, worst %d us; caught up in %d frames" % [costs[costs.size() / 2], costs[-1], waited])
	tn.queue_free()
	target.queue_free()


func test_endless_layer_weights() -> void:
	var g := _generator()
	var tn := TerrainNode.new()
	tn.terrain_generator = g
	check(tn.get_layer_weights(Vector2(3, 4)).is_empty(), "no TerrainMaterial: empty")
	var look := TerrainMaterial.new()
	var low := TerrainLayer.new()
	low.height_band = Vector2(-30, 30)
	var high := TerrainLayer.new()
	high.height_band = Vector2(10, 30)
	look.layers = [low, high] as Array[TerrainLayer]
	tn.terrain_material = look
	var sums := 0
	for i in 50:
		var w := tn.get_layer_weights(Vector2(i * 37.0 - 900.0, i * 11.0))
		sums += int(w.size() == 2 and absf(w[0] + w[1] - 1.0) < 1e-4)
	check_eq(sums, 50, "weights sum to 1 everywhere")
	tn.free()


## `update_now()` does what its name says on an endless world too: after a teleport 40 km away it
## returns with the windows there computed (`is_up_to_date()`), without a frame passing; the same on a
## region map. (It returned at once and the windows took 36–44 frames.)
func test_update_now_waits_on_every_source() -> void:
	var s := _endless(_generator())
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	tn.update_now()
	check(tn.is_up_to_date(), "endless: the first windows at once")
	target.position = Vector3(40000, 0, -25000)
	tn.update_now()
	check(tn.is_up_to_date(), "endless: after a teleport, up to date when update_now returns")
	tn.queue_free()
	target.queue_free()
	var dir := "user://update_now_regions"
	check_eq(TerrainRegions.generate(_generator(), Vector2i(512, 512), 1.0, dir, 128, true), OK, "a region map")
	var r := following_node(TerrainRegions.open(dir), Vector3(100, 0, 100))
	tn = r[0]
	target = r[1]
	tn.update_now()
	check(tn.is_up_to_date(), "region map: up to date when update_now returns")
	target.position = Vector3(400, 0, 380)
	tn.update_now()
	check(tn.is_up_to_date(), "region map: after a move, up to date when update_now returns")
	tn.queue_free()
	target.queue_free()
