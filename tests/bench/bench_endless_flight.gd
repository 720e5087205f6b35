extends RefCounted
## The endless world's flight: a target moving at 300 m/s over a TerrainNode drawing a TerrainGenerator,
## frames paced at 60 per second of real time (so the worker threads get what a game would give them) for
## 60 s (10 s with --quick). Measures the main thread's terrain cost per frame (`update_now`, what
## `_process` runs: polling the worker, uploading finished layers, laying the rings out), how far the drawn
## windows trail the target, and resident memory at 5 s and at the end. Reference in the same run: one
## GDScript `set_shader_parameter` per frame.

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func run(quick: bool) -> void:
	var root := Node3D.new()
	tree.root.add_child(root)
	var target := Node3D.new()
	root.add_child(target)
	var g := TerrainGenerator.new()
	g.seed = 4096
	g.frequency = 1.0 / 700.0
	g.octaves = 8
	g.height = 220.0
	var tn := TerrainNode.new()
	tn.terrain_generator = g
	root.add_child(tn)
	tn.target = tn.get_path_to(target)
	# The first windows (a full fill), not counted.
	var t_first := Time.get_ticks_usec()
	while not tn.is_up_to_date():
		tn.update_now(false)
		await tree.process_frame
	var first_ms := (Time.get_ticks_usec() - t_first) / 1000.0
	var seconds := 10 if quick else 60
	var steps := seconds * 60
	var step_usec := 1000000.0 / 60.0
	var dir := Vector3(1, 0, 0.37).normalized() * (300.0 / 60.0)
	var costs: Array[float] = []
	var lag: Array[float] = []
	var rss5 := 0
	var uploaded := 0
	tn.take_uploaded_bytes()
	var start := Time.get_ticks_usec()
	for i in steps:
		target.position += dir
		var t0 := Time.get_ticks_usec()
		tn.update_now(false)
		costs.append(float(Time.get_ticks_usec() - t0))
		await tree.process_frame
		if i == 5 * 60:
			rss5 = Util.rss()
		uploaded += tn.take_uploaded_bytes()
		# Distance from the target to the centre the rings were laid out around (what the view trails by).
		var drawn: Vector2 = tn.material.get_shader_parameter("clipmap_target")
		lag.append(drawn.distance_to(Vector2(target.position.x, target.position.z)))
		var next := start + (i + 1) * step_usec
		var now := Time.get_ticks_usec()
		if next > now:
			OS.delay_usec(int(next - now))
	var rss_end := Util.rss()
	var mat := ShaderMaterial.new()
	var ref: Array[float] = []
	for r in 5:
		var t0 := Time.get_ticks_usec()
		for i in 2000:
			mat.set_shader_parameter("clipmap_target", Vector2(i, i))
		ref.append(float(Time.get_ticks_usec() - t0) / 2000.0)
	var m := Util.median(costs)
	print("bench endless flight: 300 m/s for %d s of frames at 60 per second (%d frames, %.1f km): main-thread terrain cost per frame median %.3f ms, p99 %.3f ms, worst %.3f ms (goal <= 0.5 / 2 ms); reference (one set_shader_parameter) %.4f ms, ratio %.0f; view trails the target by median %.1f m, worst %.1f m; %.2f MB uploaded per frame; RSS at 5 s %.1f MB, at %d s %.1f MB: growth %.1f MB (goal <= 32 MB); first windows in %.0f ms" % [
		seconds, steps, steps * 5.0 / 1000.0, m / 1000.0, Util.quantile(costs, 0.99) / 1000.0, costs.max() / 1000.0, Util.median(ref) / 1000.0, m / maxf(Util.median(ref), 0.001),
		Util.median(lag), lag.max(), uploaded / 1e6 / steps, rss5 / 1e6, seconds, rss_end / 1e6, (rss_end - rss5) / 1e6, first_ms])
	root.queue_free()
