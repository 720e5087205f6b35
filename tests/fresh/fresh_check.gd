extends SceneTree
## Copied into a brand-new project by `cargo xtask test` (see rust/xtask/src/fresh_project.rs): builds a
## TerrainNode with generated data and its default material, reads get_height, renders a frame, prints the
## marker the runner looks for.


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var data := TerrainData.new()
	data.size = Vector2i(256, 256)
	var g := TerrainGenerator.new()
	g.height = 20.0
	if not data.generate(g):
		push_error("fresh: generate failed")
	var terrain := TerrainNode.new()
	terrain.terrain_data = data
	root.add_child(terrain)
	var cam := Camera3D.new()
	root.add_child(cam)
	cam.position = Vector3(128, data.get_height(Vector2(128, 128)) + 30.0, 160)
	cam.look_at(Vector3(128, 0, 100))
	cam.make_current()
	var h := terrain.get_height(Vector2(100.5, 90.25))
	if not is_finite(h):
		push_error("fresh: get_height is not finite")
	for i in 3:
		await process_frame
	await RenderingServer.frame_post_draw
	var img := root.get_texture().get_image()
	if img == null or img.is_empty():
		push_error("fresh: no frame rendered")
	print("fresh: ok, height %s, frame %dx%d" % [h, img.get_width(), img.get_height()])
	terrain.queue_free()
	cam.queue_free()
	await process_frame
	quit(0)
