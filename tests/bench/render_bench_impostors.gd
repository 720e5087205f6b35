extends "res://bench/render_bench_main_thread.gd"
## Forests to the horizon (renderer, 60 fps, default collision): 1,000,000 pines on a 4096² terrain of
## 2 m spacing (8 km a side), seen from the air. Primitives and draw calls a frame (RenderingServer's
## counters) with impostors to 8 km, against the same forest drawn with meshes to 8 km and today's 256 m
## forest; the bake time; the GPU memory of the atlases and far cells. The flights are
## render_bench_impostors_flight.gd.

const Trees := preload("res://render/tree_meshes.gd")


func run(quick: bool) -> void:
	var saved := _open()
	var data := _land()
	var pine := Trees.pine()
	var m := TerrainInstanceMesh.new()
	m.mesh = pine
	var t0 := Time.get_ticks_usec()
	m.bake_impostor()
	var imp: TerrainImpostor = m.impostor
	print("bench impostors (%s): bake at 2048² (16 × 16 frames) %.0f ms (goal <= 2000 ms)" % [renderer, (Time.get_ticks_usec() - t0) / 1000.0])
	var count := 200000 if quick else 1000000
	var views := []
	for mode in ["impostors to 8 km", "meshes to 8 km", "meshes to 256 m (no impostor)"]:
		views.append(await _view(data, pine, imp, mode, count))
	var a: Array = views[0]
	var b: Array = views[1]
	var c: Array = views[2]
	print("bench impostors (%s): %d trees from the air: primitives %d / draw calls %d with impostors to 8 km; %d / %d with meshes to 8 km (primitives x%.3f, goal <= 0.3); %d / %d with today's 256 m forest" % [
		renderer, count, a[0], a[1], b[0], b[1], float(a[0]) / maxf(b[0], 1.0), c[0], c[1]])
	var atlas_bytes: int = 2 * imp.albedo_texture.get_width() * imp.albedo_texture.get_height() * 4 * 4 / 3
	print("bench impostors (%s): GPU memory: atlases %.1f MiB (two RGBA8 2048² with mipmaps); far cells %.1f MiB (%d impostors × 64 B); video memory the renderer reports: %.1f MiB with impostors, %.1f MiB with meshes to 8 km, %.1f MiB at 256 m" % [
		renderer, atlas_bytes / 1048576.0, a[3] * 64.0 / 1048576.0, a[3], a[2] / 1048576.0, b[2] / 1048576.0, c[2] / 1048576.0])
	_close(saved)


## The 8 × 8 km land the forest stands on: 4096² samples 2 m apart.
func _land() -> TerrainData:
	var data := TerrainData.new()
	data.size = Vector2i(4096, 4096)
	data.spacing = 2.0
	data.generate_noise(7, 0.002, 6, 2.0, 0.5, 240.0, -1e9, TerrainData.NOISE_PERLIN)
	return data


## One view of the forest from the air drawn as `mode` says: [primitives, draw calls, video memory,
## impostors on the GPU].
func _view(data: TerrainData, pine: ArrayMesh, imp: TerrainImpostor, mode: String, count: int) -> Array:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	cam.far = 12000.0
	var sun := DirectionalLight3D.new()
	sun.rotation_degrees = Vector3(-50, 30, 0)
	sun.shadow_enabled = true
	sun.directional_shadow_max_distance = 400.0
	root.add_child(sun)
	var tn := TerrainNode.new()
	tn.terrain_data = data
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var m := TerrainInstanceMesh.new()
	m.mesh = pine
	m.scale_min = 0.8
	m.scale_max = 1.3
	if mode.begins_with("impostors"):
		m.impostor = imp
		m.impostor_distance = 200.0
		m.visibility_range = 8000.0
	elif mode.contains("8 km"):
		m.visibility_range = 8000.0
	else:
		m.visibility_range = 256.0
	var inst := TerrainInstancer.new()
	var ms: Array[TerrainInstanceMesh] = [m]
	inst.meshes = ms
	tn.add_child(inst)
	inst.scatter(0, Rect2(0, 0, 8192, 8192), count, 1)
	cam.position = Vector3(600, data.get_height(Vector2(600, 600)) + 150.0, 600)
	cam.rotation_degrees = Vector3(-12, -135, 0)
	inst.update_now()
	var waited := 0
	while waited < 3000 and (not tn.is_up_to_date() or not inst.is_up_to_date()):
		await tree.process_frame
		waited += 1
	for i in 3:
		await tree.process_frame
	await RenderingServer.frame_post_draw
	var prims := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_TOTAL_PRIMITIVES_IN_FRAME)
	var calls := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_TOTAL_DRAW_CALLS_IN_FRAME)
	var vmem := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_VIDEO_MEM_USED)
	var imps := inst.get_impostor_count(0)
	print("bench impostors (%s): %s: meshes drawn %d, impostors %d in %d far cells, instance cells %d; primitives %d, draw calls %d" % [
		renderer, mode, inst.get_drawn_count(0), imps, inst.get_far_cell_count(), inst.get_gpu_cell_count(), prims, calls])
	root.queue_free()
	await tree.process_frame
	await tree.process_frame
	return [prims, calls, vmem, imps]
