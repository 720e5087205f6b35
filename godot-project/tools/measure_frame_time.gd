extends SceneTree
## Frame time of the main demo scene: `cargo xtask demo --measure` (runs under Xvfb when there is no display).
## Warms up, then prints the median and mean wall time per drawn frame for each view.


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var scene: Node = load("res://scenes/wandering_terrain.tscn").instantiate()
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
		print("frametime %s at %dx%d (%s): median %.1f ms, mean %.1f ms per frame" % [
			cam.name, size.x, size.y, RenderingServer.get_current_rendering_driver_name(), times[30], mean / times.size()])
	quit(0)
