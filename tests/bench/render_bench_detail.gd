extends "res://bench/render_bench_main_thread.gd"
## Detail (TerrainDetailLayer) as a player feels it (the main-thread bench's stamps, renderer, 60 fps,
## default collision): flying at 30 m/s, 2 m above an endless generated world, with grass at 8 per m² within
## 100 m (≈ 250,000 instances): the terrain + instancer work per frame against the terrain alone in the same
## run, the instancer's own detail work, instances drawn, detail memory, and the frames a cell coming into
## view takes to be drawn. Then a 64² density dab (DETAIL_REMOVE, size 64) on a 1024² TerrainData under the
## same grass: the call plus the next frame's terrain + instancer work, and the call plus every frame's
## until the regrown cells are drawn.


func run(quick: bool) -> void:
	var saved := _open()
	var g := TerrainGenerator.new()
	g.seed = 4096
	g.frequency = 1.0 / 700.0
	g.octaves = 8
	g.height = 120.0
	var seconds := 8.0 if quick else 30.0
	await _flight_with(g, null, seconds)
	await _flight_with(g, _grass(), seconds)
	await _density_dabs(quick)
	_close(saved)


## The layer measured, with one small triangle as its mesh (the mesh does not change the main thread's
## work: the same buffers are computed and uploaded).
func _grass() -> TerrainDetailLayer:
	var l := TerrainDetailLayer.new()
	var tri := ArrayMesh.new()
	var arrays := []
	arrays.resize(Mesh.ARRAY_MAX)
	arrays[Mesh.ARRAY_VERTEX] = PackedVector3Array([Vector3(-0.05, 0, 0), Vector3(0.05, 0, 0), Vector3(0, 0.3, 0)])
	tri.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
	l.mesh = tri
	l.density = 8.0
	l.view_radius = 100.0
	l.fade_distance = 20.0
	return l


func _flight_with(g: TerrainGenerator, layer: TerrainDetailLayer, seconds: float) -> void:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	tn.terrain_generator = g
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	cam.position = Vector3(0, tn.get_height(Vector2.ZERO) + 2.0, 0)
	# Looking up: the software rasteriser here cannot draw the view's 250,000 instances at 60 frames a
	# second, and what it draws is not main-thread work; every cell is still computed, uploaded and culled.
	cam.rotation_degrees = Vector3(89, -70, 0)
	var inst: TerrainInstancer = null
	var label := "terrain alone (reference)"
	if layer != null:
		inst = TerrainInstancer.new()
		inst.detail_layers = [layer] as Array[TerrainDetailLayer]
		tn.add_child(inst)
		label = "terrain + grass 8/m² within 100 m"
	var t_ready := Time.get_ticks_usec()
	while not tn.is_up_to_date() or (inst != null and not inst.is_up_to_date()):
		await tree.process_frame
	var ready_ms := (Time.get_ticks_usec() - t_ready) / 1000.0
	if inst != null:
		inst.take_detail_latencies()
	var dir := Vector3(1, 0, 0.37).normalized()
	first.mover = func(delta: float) -> void:
		cam.position += dir * 30.0 * delta
		cam.position.y = tn.get_height(Vector2(cam.position.x, cam.position.z)) + 2.0
	last.reset()
	last.recording = true
	var own: Array[float] = []
	var drawn: Array[float] = []
	var mem: Array[float] = []
	var w0: int = inst.get_work_breakdown()[5] if inst else 0
	var t_start := Time.get_ticks_msec()
	while Time.get_ticks_msec() - t_start < seconds * 1000.0:
		await tree.process_frame
		if inst != null:
			var w: int = inst.get_work_breakdown()[5]
			own.append((w - w0) / 1000.0)
			w0 = w
			drawn.append(inst.get_detail_drawn_count(0))
			var m := inst.get_detail_memory()
			mem.append((m[0] + m[1]) / 1048576.0)
	last.recording = false
	first.mover = Callable()
	var f := last.frames
	var extra := ""
	if inst != null:
		var lat := inst.take_detail_latencies()
		var lats: Array[float] = []
		for v in lat:
			lats.append(v)
		extra = "; detail's own work median %.3f ms, p99 %.3f ms, worst %.2f ms (goal <= 0.3 / 2 ms); drawn median %d; detail memory (GPU + CPU buffers) median %.1f MB, max %.1f MB; %d cells came into view, frames to drawn median %d, max %d (goal <= 3); first fill %.0f ms" % [
			Util.median(own), Util.quantile(own, 0.99), own.max(), int(Util.median(drawn)), Util.median(mem), mem.max(), lats.size(), int(Util.median(lats)) if lats.size() > 0 else -1, int(lats.max()) if lats.size() > 0 else -1, ready_ms]
	print("bench detail (%s) 30 m/s, 2 m over an endless world, %s: %d frames, terrain work per frame median %.3f ms, p99 %.3f ms, worst %.2f ms%s" % [
		renderer, label, f.size(), Util.median(f), Util.quantile(f, 0.99), f.max(), extra])
	root.queue_free()
	await tree.process_frame


func _density_dabs(quick: bool) -> void:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var data := TerrainData.new()
	data.size = Vector2i(1024, 1024)
	data.generate_noise(7, 0.004, 6, 2.0, 0.5, 60.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.terrain_data = data
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var c := Vector2(512, 512)
	cam.position = Vector3(c.x, data.get_height(c) + 2.0, c.y)
	cam.rotation_degrees = Vector3(89, 0, 0)
	var inst := TerrainInstancer.new()
	inst.detail_layers = [_grass()] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	while not tn.is_up_to_date() or not inst.is_up_to_date():
		await tree.process_frame
	for i in 30:
		await tree.process_frame
	var b := TerrainBrush.new()
	b.tool = TerrainBrush.DETAIL_REMOVE
	b.mesh_index = 0
	b.size = 64.0
	b.strength = 0.2
	var next_frame: Array[float] = []
	var settled: Array[float] = []
	for k in (5 if quick else 10):
		await tree.process_frame
		last.reset()
		last.recording = true
		var t0 := Time.get_ticks_usec()
		inst.apply_brush(b, c + Vector2(-40 + k * 9, 20), 1.0 / 60.0)
		var call_ms := (Time.get_ticks_usec() - t0) / 1000.0
		await tree.process_frame
		next_frame.append(call_ms + (last.frames[0] if last.frames.size() > 0 else 0.0))
		settled.append(call_ms + await _work_until_settled(1))
	print("bench detail (%s) 64² density dab under grass 8/m² within 100 m on a 1024² TerrainData: call + next frame %.3f ms (goal <= 1 ms), call + every frame until drawn %.3f ms; medians" % [
		renderer, Util.median(next_frame), Util.median(settled)])
	root.queue_free()
	await tree.process_frame
