extends SceneTree
## Frame time of the terrain demo scenes: `cargo xtask demo --measure` (runs under Xvfb when there is no
## display). Warms up, then prints the median and mean wall time per drawn frame for each view.

const SCENES := ["res://scenes/wandering_terrain.tscn", "res://scenes/open_world.tscn"]


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	for path in SCENES:
		await _measure(path)
	quit(0)


func _measure(path: String) -> void:
	var scene: Node = load(path).instantiate()
	root.add_child(scene)
	var size := root.get_visible_rect().size
	for cam in scene.call("demo_views"):
		scene.call("prepare_view", cam)
		for i in 20:
			await process_frame
		var times: Array[float] = []
		for i in 60:
			var t0 := Time.get_ticks_usec()
			await RenderingServer.frame_post_draw
			times.append((Time.get_ticks_usec() - t0) / 1000.0)
		times.sort()
		var mean := 0.0
		for t in times:
			mean += t
		print("frametime %s %s at %dx%d (%s): median %.1f ms, mean %.1f ms per frame" % [
			path.get_file().get_basename(), cam.name, size.x, size.y, RenderingServer.get_current_rendering_driver_name(), times[30], mean / times.size()])
	scene.queue_free()
	await process_frame
