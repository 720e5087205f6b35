extends RefCounted
## A road being edited as a player or a level designer does it: one point of a 1 km TerrainPath (11
## points, 8 m wide, 6 m falloff) on a 2048² TerrainData (1 m samples) under a TerrainNode with default
## collision, moved 3 m at a time. Measured with a renderer, frames paced at 60 (the stamps of
## render_bench_main_thread.gd): the composition's time on its worker thread, the main thread's terrain
## work in each frame after the move until the road is drawn, collidable and settled, and the road's memory
## per covered sample. Reference: the same scene's frames with nothing moving.

const Util := preload("res://bench/timing.gd")
const Main := preload("res://bench/render_bench_main_thread.gd")

var tree: SceneTree
var renderer: String


func run(quick: bool) -> void:
	var m = Main.new()
	m.tree = tree
	m.renderer = renderer
	var saved: Array = m._open()
	var rig: Array = m._rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var data := TerrainData.new()
	data.size = Vector2i(2048, 2048)
	data.generate_noise(7, 0.004, 6, 2.0, 0.5, 60.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.terrain_data = data
	root.add_child(tn)
	var centre := Vector2(1024.0, 1024.0)
	# The camera (the collision's target) looks down on the point that moves: the edit is under the player.
	cam.position = Vector3(centre.x, data.get_height(centre) + 60.0, centre.y + 50.0)
	cam.rotation_degrees = Vector3(-50, 0, 0)
	tn.target = tn.get_path_to(cam)
	var road := TerrainPath.new()
	var c := Curve3D.new()
	for i in 11:
		var x := 524.0 + i * 100.0
		var z := centre.y + (30.0 if i % 2 == 0 else -30.0)
		c.add_point(Vector3(x, data.get_height(Vector2(x, z)), z), Vector3(-30, 0, 0), Vector3(30, 0, 0))
	road.curve = c
	road.width = 8.0
	road.falloff_width = 6.0
	tn.add_child(road)
	road.apply_now()
	var full := road.get_compose_usec()
	var still := await m._median_frame_usec(quick)
	var compose: Array[float] = []
	var write: Array[float] = []
	var per_frame: Array[float] = []
	var worst := 0.0
	var totals: Array[float] = []
	var frames_needed: Array[float] = []
	var space := tn.get_world_3d().direct_space_state
	for k in (6 if quick else 16):
		m.last.reset()
		m.last.tick_counts.clear()
		m.last.process_spans.clear()
		m.last.recording = true
		var p := c.get_point_position(5)
		var to := p + Vector3(0, 0, 3.0 if k % 2 == 0 else -3.0)
		c.set_point_position(5, to)
		var frames := 0
		var hit_ok := false
		while frames < 120:
			await tree.process_frame
			frames += 1
			if road.is_applied() and tn.is_up_to_date():
				var q := PhysicsRayQueryParameters3D.create(to + Vector3.UP * 500, to + Vector3.DOWN * 500)
				var hit := space.intersect_ray(q)
				if not hit.is_empty() and absf(hit["position"].y - tn.get_height(Vector2(to.x, to.z))) < 0.005:
					hit_ok = true
					break
		frames_needed.append(frames if hit_ok else -1)
		totals.append(await m._work_until_settled(frames))
		for f in m.last.frames:
			per_frame.append(f)
			worst = maxf(worst, f)
		var u := road.get_compose_usec()
		compose.append(u[0] / 1000.0)
		write.append(u[1] / 1000.0)
	var covered := road.get_covered_samples()
	var bytes := road.get_layer_bytes()
	print("bench terrain path (%s) 1 km road, 8 m + 6 m falloff, 1 m samples: moving one point recomposes in %.2f ms on a worker (goal <= 20 ms; the whole road: %.2f ms), written in %.3f ms; main-thread terrain work per frame after the move median %.3f ms, worst %.3f ms (goal <= 1 ms; reference: still frames %.3f ms), %.3f ms summed until drawn, collidable and settled; drawn and collidable after %d frames; memory %.1f bytes per covered sample (%d bytes, %d samples; goal <= 16)" % [
		renderer, Util.median(compose), full[0] / 1000.0, Util.median(write), Util.median(per_frame), worst, still / 1000.0, Util.median(totals), int(Util.median(frames_needed)), float(bytes) / maxf(covered, 1), bytes, covered])
	root.queue_free()
	await tree.process_frame
	m._close(saved)
