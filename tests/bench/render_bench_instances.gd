extends "res://bench/render_bench_main_thread.gd"
## TerrainInstancer as a player feels it (the main-thread bench's stamps, renderer, 60 fps, default
## collision): 1,000,000 trees on a 4096² terrain — scatter time, CPU bytes per instance, GPU cells in view;
## flying at 100 m/s over them (terrain + instancer work per frame, against the terrain alone in the same
## run); a radius-32 paint dab; a 256² height edit with 10,000 instances on it (against the same edit
## without the instancer).


func run(quick: bool) -> void:
	var saved := _open()
	var data := TerrainData.new()
	data.size = Vector2i(4096, 4096)
	data.generate_noise(7, 0.004, 6, 2.0, 0.5, 120.0, -1e9, TerrainData.NOISE_PERLIN)
	var seconds := 8.0 if quick else 30.0
	await _flight_over(data, null, seconds)
	await _flight_over(data, _tree_mesh(), seconds)
	await _edits(data, quick)
	_close(saved)


func _tree_mesh() -> TerrainInstanceMesh:
	var m := TerrainInstanceMesh.new()
	var c := CylinderMesh.new()
	c.top_radius = 0.0
	c.bottom_radius = 1.5
	c.height = 6.0
	c.radial_segments = 6
	c.rings = 1
	m.mesh = c
	m.visibility_range = 300.0
	var trunk := CylinderShape3D.new()
	trunk.radius = 0.3
	trunk.height = 3.0
	m.collision_shape = trunk
	m.collision_transform = Transform3D(Basis(), Vector3(0, 1.5, 0))
	m.scale_min = 0.8
	m.scale_max = 1.4
	return m


## Resident memory of this process (Linux; /proc files read through a shell: Godot sees them as empty).
func _rss_bytes() -> int:
	var out := []
	OS.execute("sh", ["-c", "cat /proc/%d/statm" % OS.get_process_id()], out)
	var f: PackedStringArray = str(out[0]).split(" ") if out.size() > 0 else PackedStringArray()
	return int(f[1]) * 4096 if f.size() > 1 else 0


## Flies a camera (the target) at 100 m/s over `data` with an instancer of 1,000,000 `mesh` (none: the
## reference) and prints the terrain + instancer work per frame.
func _flight_over(data: TerrainData, mesh: TerrainInstanceMesh, seconds: float) -> bool:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	tn.terrain_data = data
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var start := Vector3(200, 0, 200)
	cam.position = start + Vector3(0, data.get_height(Vector2(200, 200)) + 20.0, 0)
	cam.rotation_degrees = Vector3(-15, -135, 0)
	var label := "terrain alone (reference)"
	var inst: TerrainInstancer = null
	if mesh != null:
		inst = TerrainInstancer.new()
		var ms: Array[TerrainInstanceMesh] = [mesh]
		inst.meshes = ms
		tn.add_child(inst)
		var rss0 := _rss_bytes()
		var t0 := Time.get_ticks_usec()
		var n := inst.scatter(0, Rect2(0, 0, 4096, 4096), 1000000, 1)
		var ms_scatter := (Time.get_ticks_usec() - t0) / 1000.0
		var rss1 := _rss_bytes()
		var res: TerrainInstances = inst.instances
		print("bench instances (%s): scatter of %d on 4096²: %.0f ms (goal <= 1000 ms); CPU %.1f bytes per instance held by the store, %.1f by RSS growth (goal <= 40)" % [
			renderer, n, ms_scatter, float(res.get_memory_bytes()) / n, float(rss1 - rss0) / n])
		label = "terrain + 1,000,000 instances"
	while not tn.is_up_to_date() or (inst != null and not inst.is_up_to_date()):
		await tree.process_frame
	var dir := Vector3(1, 0, 1).normalized()
	first.mover = func(delta: float) -> void:
		cam.position += dir * 100.0 * delta
		cam.position.y = tn.get_height(Vector2(cam.position.x, cam.position.z)) + 20.0
	last.reset()
	last.tick_counts.clear()
	last.recording = true
	var t_start := Time.get_ticks_msec()
	var gpu_cells: Array[float] = []
	var own: Array[float] = []
	var w0 := inst.get_work_usec() if inst else 0
	var b0: PackedInt64Array = inst.get_work_breakdown() if inst else PackedInt64Array()
	while Time.get_ticks_msec() - t_start < seconds * 1000.0:
		await tree.process_frame
		if inst != null:
			gpu_cells.append(inst.get_gpu_cell_count())
			var w := inst.get_work_usec()
			own.append((w - w0) / 1000.0)
			w0 = w
	last.recording = false
	first.mover = Callable()
	var f := last.frames
	var extra := ""
	if inst != null:
		var b1: PackedInt64Array = inst.get_work_breakdown()
		var per := PackedStringArray()
		for i in range(1, b1.size()):
			per.append("%.3f" % ((b1[i] - b0[i]) / 1000.0 / maxf(own.size(), 1)))
		extra = "; the instancer's own update mean per frame: showing %s, choosing %s, asking %s, colliding %s ms; median %.3f ms, p99 %.3f ms, worst %.2f ms; GPU cells in view median %d, max %d; bodies %d" % [
			per[0], per[1], per[2], per[3], Util.median(own), Util.quantile(own, 0.99), own.max(), int(Util.median(gpu_cells)), int(gpu_cells.max()), inst.get_body_count()]
	print("bench instances (%s) 100 m/s over 4096², %s: %d frames, terrain work per frame median %.3f ms, p99 %.3f ms, worst %.2f ms (goal <= 0.5 / 2 ms)%s" % [
		renderer, label, f.size(), Util.median(f), Util.quantile(f, 0.99), f.max(), extra])
	root.queue_free()
	await tree.process_frame
	return inst != null


## A radius-32 paint dab and a 256² height edit under 10,000 instances, each the call plus the later
## frames' terrain + instancer work until settled; the edit also without the instancer (the reference).
func _edits(data: TerrainData, quick: bool) -> void:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	tn.terrain_data = data
	var c := Vector2(2048.5, 2048.5)
	cam.position = Vector3(c.x, data.get_height(c) + 150.0, c.y)
	cam.rotation_degrees = Vector3(-60, 0, 0)
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var vals := PackedFloat32Array()
	vals.resize(256 * 256)
	var edit := func(k: int) -> void:
		vals.fill(40.0 + k * 3.0)
		data.set_heights_region(Rect2i(Vector2i(c) + Vector2i(300 - 128, -128 + k * 3), Vector2i(256, 256)), vals)
	for i in 30:
		await tree.process_frame
	var without := await _edit_cost(edit, quick)
	var inst := TerrainInstancer.new()
	var ms: Array[TerrainInstanceMesh] = [_tree_mesh()]
	inst.meshes = ms
	inst.meshes[0].density = 0.05
	tn.add_child(inst)
	inst.scatter(0, Rect2(c + Vector2(300 - 128, -128), Vector2(256, 256)), 10000, 3)
	inst.update_now()
	for i in 30:
		await tree.process_frame
	var with := await _edit_cost(edit, quick)
	var brush := TerrainBrush.new()
	brush.tool = TerrainBrush.INSTANCE_ADD
	brush.mesh_index = 0
	brush.size = 64.0
	brush.strength = 3.0
	var dab := await _edit_cost(func(k: int) -> void:
		inst.apply_brush(brush, c + Vector2(-200 + k * 70, 40), 1.0 / 60.0), quick)
	print("bench instances (%s) 4096²: 256² height edit with 10,000 instances on it %.3f ms, without the instancer %.3f ms: the instancer's extra %.3f ms (goal <= 1 ms); radius-32 paint dab %.3f ms (goal <= 1 ms); call + later frames' work until settled, medians" % [
		renderer, with, without, with - without, dab])
	root.queue_free()
	await tree.process_frame
