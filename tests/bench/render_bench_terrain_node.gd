extends RefCounted
## TerrainNode at scale, under a real renderer (`cargo xtask bench` runs it under Xvfb): texture memory and
## resident memory of a 4096² terrain, the cost of a 256² edit (the call plus the node's work it causes),
## a still camera's frame, a target moving at 100 m/s, and a 16384² terrain loaded from a .res. References in
## the same run: the whole-terrain data texture (TerrainData.get_data_texture, what the node drew from before
## and what WanderingTerrain binds) and one GDScript property write.

const Util := preload("res://bench/timing.gd")

var tree: SceneTree
var renderer: String


static func rss() -> int:
	var f := FileAccess.open("/proc/self/statm", FileAccess.READ)
	# procfs files report length 0: read the line instead of the whole file.
	return int(f.get_line().split(" ")[1]) * 4096 if f != null else -1


static func tex_mem() -> int:
	return RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_TEXTURE_MEM_USED)


static func median(a: Array) -> float:
	var s := a.duplicate()
	s.sort()
	return s[s.size() / 2]


func frames(n: int) -> void:
	for i in n:
		await tree.process_frame
	await RenderingServer.frame_post_draw


func run(quick: bool) -> void:
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.far = 5000.0
	root.add_child(cam)
	cam.make_current()
	cam.position = Vector3(2048, 80, 2048)
	cam.rotation_degrees.x = -30.0
	await frames(3)
	# Warm-up: a small terrain drawn for a while, so shader compilation, the software rasteriser's first
	# allocations (pipelines, JIT code: about 130 MB on lavapipe, settling over some 30 frames) and the
	# thread pools are not counted as per-sample memory below.
	# Measured too: what the first terrain of the process costs a user whatever its size (an outside
	# measure from a fresh process counts it per sample: 16 B a sample for 4096² where the data and node
	# take 4.4). The small terrain's own samples (4 B each) are taken out.
	var cold0 := rss()
	var small := TerrainData.new()
	small.generate_noise(7, 0.004, 6, 2.0, 0.5, 120.0, -1e9, TerrainData.NOISE_PERLIN)
	var warm := TerrainNode.new()
	warm.terrain_data = small
	root.add_child(warm)
	await frames(30)
	var first_mb := (rss() - cold0 - small.size.x * small.size.y * 4) / 1e6
	warm.free()
	await frames(30)
	var n := 4096
	var rss0 := rss()
	var tex0 := tex_mem()
	var data := TerrainData.new()
	data.size = Vector2i(n, n)
	data.generate_noise(7, 0.004, 6, 2.0, 0.5, 120.0, -1e9, TerrainData.NOISE_PERLIN)
	var rss_data := rss()
	var tn := TerrainNode.new()
	tn.terrain_data = data
	root.add_child(tn)
	await frames(5)
	var tex1 := tex_mem()
	var rss1 := rss()
	print("bench terrain_node scale (%s): 4096² at defaults: texture memory %.2f MB (goal <= 32 MB); resident %.1f B/sample with the node (goal <= 8), %.1f B/sample for the data alone; the first terrain drawn in the process costs %.0f MB at once whatever its size (the renderer's pipelines and shader variants, the worker threads), which a measure from a fresh process spreads over the samples" % [
		renderer, (tex1 - tex0) / 1e6, float(rss1 - rss0) / (n * n), float(rss_data - rss0) / (n * n), first_mb])

	# A still camera: the node's whole frame (update_now is what _process runs).
	var reps := 2000 if quick else 20000
	tn.update_now()
	var still := Util.median_usec(func():
		for i in reps:
			tn.update_now()
		, 5) / reps
	var probe := Node3D.new()
	root.add_child(probe)
	var ref_write := Util.median_usec(func():
		for i in reps:
			probe.position = cam.position
		, 5) / reps
	print("bench terrain_node still camera (%s): %.2f us per frame (goal <= 5 us); reference: one Node3D.position write from GDScript %.2f us; ratio %.2f" % [
		renderer, still, ref_write, still / ref_write])

	# 256² edits near the camera: the call plus the node's update it causes (done now instead of next frame).
	var vals := PackedFloat32Array()
	vals.resize(256 * 256)
	for i in vals.size():
		vals[i] = 30.0 + 10.0 * sin(i * 0.001)
	var edits := 10 if quick else 40
	var t_edit: Array[float] = []
	var t_call: Array[float] = []
	var bytes: Array[float] = []
	for i in edits:
		var at := Vector2i(1900 + (i % 7) * 23, 1880 + (i % 5) * 31)
		await tree.process_frame
		tn.take_uploaded_bytes()
		var t0 := Time.get_ticks_usec()
		data.set_heights_region(Rect2i(at, Vector2i(256, 256)), vals)
		t_call.append(float(Time.get_ticks_usec() - t0))
		tn.update_now()
		t_edit.append(float(Time.get_ticks_usec() - t0))
		bytes.append(float(tn.take_uploaded_bytes()))
	await frames(1)

	# A target moving at 100 m/s (60 steps per second, 1 m spacing): the node's work per frame.
	var steps := 120 if quick else 600
	var t_move: Array[float] = []
	var dir := Vector3(1, 0, 0.37).normalized() * (100.0 / 60.0)
	cam.position = Vector3(800, 80, 1200)
	tn.update_now()
	for i in steps:
		cam.position += dir
		var t0 := Time.get_ticks_usec()
		tn.update_now()
		t_move.append(float(Time.get_ticks_usec() - t0))
		if i % 20 == 0:
			await tree.process_frame
	var worst: float = t_move.max()
	print("bench terrain_node moving 100 m/s (%s): median %.3f ms, worst %.3f ms per frame (goal <= 0.5 / 2 ms)" % [
		renderer, median(t_move) / 1000.0, worst / 1000.0])

	# Brushes: one dab of radius 128 samples (the call and the node's update), a 60-dab stroke, and the undo
	# data the editor keeps for a 60-dab stroke over a 512² area.
	var brush := TerrainBrush.new()
	brush.size = 256.0
	brush.strength = 2.0
	var t_dab: Array[float] = []
	for i in (10 if quick else 30):
		await tree.process_frame
		var t0 := Time.get_ticks_usec()
		data.apply_brush(brush, Vector2(2048 + i * 3, 2048 - i * 2), 1.0 / 60.0)
		tn.update_now()
		t_dab.append(float(Time.get_ticks_usec() - t0))
	brush.tool = TerrainBrush.RAISE
	brush.size = 64.0
	var stroke := TerrainBrushStroke.begin(tn, brush)
	var t_stroke := 0.0
	var worst_dab := 0.0
	for i in 60:
		# A zigzag over a 512² area.
		var p := Vector2(1800 + (i % 12) * 40.0, 1800 + (i / 12) * 100.0)
		var t0 := Time.get_ticks_usec()
		stroke.dab(tn.global_transform * Vector3(p.x, 0.0, p.y), 1.0 / 60.0)
		tn.update_now()
		var dt := float(Time.get_ticks_usec() - t0)
		t_stroke += dt
		worst_dab = maxf(worst_dab, dt)
	stroke.finish()
	print("bench terrain_node brush (%s): dab of radius 128 samples on 4096² %.3f ms median (goal <= 1 ms, incl. the node's update); 60-dab stroke (64-unit brush) %.1f ms in all, worst dab %.2f ms; undo data of that stroke over a 512² area %.2f MB = %.2fx the area's heights (goal <= 2x)" % [
		renderer, median(t_dab) / 1000.0, t_stroke / 1000.0, worst_dab / 1000.0, stroke.get_byte_size() / 1e6, stroke.get_byte_size() / (512.0 * 512.0 * 4.0)])

	# Reference: the same edits through the whole-terrain data texture.
	cam.position = Vector3(2048, 80, 2048)
	var tex := data.get_data_texture()
	await frames(2)
	var tex2 := tex_mem()
	var t_ref: Array[float] = []
	for i in mini(edits, 10):
		var at := Vector2i(1900 + (i % 7) * 23, 1880 + (i % 5) * 31)
		await tree.process_frame
		var t0 := Time.get_ticks_usec()
		data.set_heights_region(Rect2i(at, Vector2i(256, 256)), vals)
		t_ref.append(float(Time.get_ticks_usec() - t0))
	print("bench terrain_node edit 256² on 4096² (%s): %.3f ms median (goal <= 0.5 ms; the call %.3f ms, the node's update %.3f ms), %d bytes uploaded per edit; reference (whole-terrain data texture, %.0f MB) %.2f ms; ratio %.3f" % [
		renderer, median(t_edit) / 1000.0, median(t_call) / 1000.0, (median(t_edit) - median(t_call)) / 1000.0, int(median(bytes)), (tex2 - tex1) / 1e6, median(t_ref) / 1000.0, median(t_edit) / median(t_ref)])
	tex = null
	tn.queue_free()
	data = null
	await frames(3)
	if not quick:
		await _big(root, cam)
	root.queue_free()
	await frames(1)


## A 16384² terrain (1 GB of heights) saved to and loaded from a .res, then drawn.
func _big(root: Node3D, cam: Camera3D) -> void:
	var n := 16384
	var path := "user://bench_16384.res"
	var t := TerrainData.new()
	t.sample_budget = n * n
	t.size = Vector2i(n, n)
	var bump := PackedFloat32Array()
	bump.resize(512 * 512)
	bump.fill(25.0)
	t.set_heights_region(Rect2i(8000, 8000, 512, 512), bump)
	var t0 := Time.get_ticks_msec()
	ResourceSaver.save(t, path)
	var t_save := Time.get_ticks_msec() - t0
	t = null
	await frames(2)
	var rss0 := rss()
	t0 = Time.get_ticks_msec()
	var loaded: TerrainData = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	var t_load := Time.get_ticks_msec() - t0
	var tex0 := tex_mem()
	var tn := TerrainNode.new()
	tn.terrain_data = loaded
	cam.position = Vector3(8256, 80, 8256)
	t0 = Time.get_ticks_msec()
	root.add_child(tn)
	await frames(1)
	var t_first := Time.get_ticks_msec() - t0
	var h := tn.get_height(Vector2(8256, 8256))
	print("bench terrain_node 16384² (%s): saved in %d ms, loaded in %d ms, first frame %d ms; resident %.2f B/sample after loading and drawing, texture memory %.2f MB; height at the bump %.1f" % [
		renderer, t_save, t_load, t_first, float(rss() - rss0) / (float(n) * n), (tex_mem() - tex0) / 1e6, h])
	tn.queue_free()
	loaded = null
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))
	await frames(1)
