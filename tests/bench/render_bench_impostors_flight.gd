extends "res://bench/render_bench_impostors.gd"
## Flights at 100 m/s, 150 m up, over 1,000,000 pines with impostors to 8 km (renderer, 60 fps, default
## collision): the terrain + instancer main-thread work per frame, and the instancer's own. Once looking
## ahead at the horizon (the software rasteriser draws every far card: about a frame a second here, so
## each frame moves ~100 m and its work is an upper bound), once looking down (the same streaming around
## the camera, few cards drawn: frames paced as on a player's machine).


func run(quick: bool) -> void:
	var saved := _open()
	var data := _land()
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	m.bake_impostor()
	var count := 200000 if quick else 1000000
	var seconds := 8.0 if quick else 30.0
	# The reference: the terrain alone, looking down.
	await _forest_flight(data, null, 0, seconds, -80.0)
	for pitch in [-80.0, -12.0]:
		await _forest_flight(data, m, count, seconds, pitch)
	_close(saved)


## Flies at 100 m/s, 150 m over the ground, over the forest with impostors to 8 km, pitched `pitch`°.
func _forest_flight(data: TerrainData, m: TerrainInstanceMesh, count: int, seconds: float, pitch: float) -> void:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	cam.far = 12000.0
	var tn := TerrainNode.new()
	tn.terrain_data = data
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var inst := TerrainInstancer.new()
	if m != null:
		m.impostor_distance = 200.0
		m.visibility_range = 8000.0
		var ms: Array[TerrainInstanceMesh] = [m]
		inst.meshes = ms
	tn.add_child(inst)
	if m != null:
		inst.scatter(0, Rect2(0, 0, 8192, 8192), count, 1)
	cam.position = Vector3(600, data.get_height(Vector2(600, 600)) + 150.0, 600)
	cam.rotation_degrees = Vector3(pitch, -135, 0)
	inst.update_now()
	while not tn.is_up_to_date() or not inst.is_up_to_date():
		await tree.process_frame
	var dir := Vector3(1, 0, 1).normalized()
	first.mover = func(delta: float) -> void:
		cam.position += dir * 100.0 * delta
		cam.position.y = tn.get_height(Vector2(cam.position.x, cam.position.z)) + 150.0
	last.reset()
	last.tick_counts.clear()
	last.recording = true
	var w0 := inst.get_work_stats()
	var t_start := Time.get_ticks_msec()
	var far_cells: Array[float] = []
	var own: Array[float] = []
	var u0 := inst.get_work_usec()
	while Time.get_ticks_msec() - t_start < seconds * 1000.0:
		await tree.process_frame
		far_cells.append(inst.get_far_cell_count())
		var u := inst.get_work_usec()
		own.append((u - u0) / 1000.0)
		u0 = u
	last.recording = false
	first.mover = Callable()
	var w1 := inst.get_work_stats()
	var f := last.frames
	var what := "%d trees with impostors to 8 km" % count if m != null else "the terrain alone (reference: an instancer without meshes)"
	print("bench impostors (%s) 100 m/s, 150 m up, pitch %d°, %s: %d frames, terrain + instancer work per frame median %.3f ms, p99 %.3f ms, worst %.2f ms (goal <= 0.5 / 2 ms); the instancer's own update median %.3f ms, worst %.2f ms, its far cells' share %.3f ms a frame; far cells on the GPU median %d" % [
		renderer, int(pitch), what, f.size(), Util.median(f), Util.quantile(f, 0.99), f.max(), Util.median(own), own.max(), (w1["far_usec"] - w0["far_usec"]) / 1000.0 / maxf(own.size(), 1), int(Util.median(far_cells))])
	root.queue_free()
	await tree.process_frame
