extends RefCounted
## The terrain's main-thread cost per frame as a player feels it: with a real renderer, frames paced at 60
## per second (Engine.max_fps), every default feature on (collision DYNAMIC, subdivision 4, the engine the
## project uses). Two stamp nodes run first and last in the process pass and in every physics tick; a
## frame's cost is its process-pass span plus the spans of all physics ticks run before it (a slow tick
## makes the next frame run more of them, so timing only one hides the rest). Beside it, the whole frame
## (`wholes`): every physics tick from the first stamp to the next tick or the process pass (the engine's
## own physics step and sync included: they run after every node's `_physics_process`), plus the process
## pass — the main-thread time a player pays outside drawing, the terrain's and the engine's. The target
## moves in the physics pass, as a player body would. After each flight's first second, a ray straight down at the
## target must hit within 5 cm of get_height on every physics tick.
## Scenes: 300 m/s over an endless generated world (and the same with collision disabled, the reference),
## 100 m/s over a 4096² TerrainData, a still camera, and 256² edits under the target (the call plus every
## later frame's terrain work until the edit is drawn and collidable).

const Util := preload("res://bench/timing.gd")

var tree: SceneTree
var renderer: String


## Brackets the terrain's work: `first` runs before every other node, the other one after.
class Stamp extends Node:
	var first := false
	var other: Stamp
	var t0 := 0
	var physics_usec := 0
	var ticks := 0
	## Per frame: terrain work in ms, physics ticks run.
	var frames: Array[float] = []
	var tick_counts: Array[int] = []
	## Per frame: the process pass alone (ms).
	var process_spans: Array[float] = []
	## Per frame: the whole main-thread time of its physics ticks and process pass (ms; see the header).
	var wholes: Array[float] = []
	## The first stamp only: when the open physics tick began (0: none open), and the ticks' whole time.
	var tick_start := 0
	var whole_physics_usec := 0
	var recording := false
	## Called with the tick's delta before the terrain's physics work (moves the target), after `checker`
	## (checks the collision the last physics step had, where the target was during it). Not timed.
	var mover := Callable()
	var checker := Callable()
	## A TerrainNode whose work counters (`get_work_stats`) are recorded per frame (the last stamp only).
	var watched: TerrainNode
	## A TerrainInstancer whose main-thread time (`get_work_breakdown`) is recorded beside the node's.
	var watched_instancer: TerrainInstancer
	var _stats_before := {}
	var _instancer_before := PackedInt64Array()
	## Frames over 2 ms, counted by their largest part (`parts_of`), and the three worst with their parts
	## and counters ([ms, parts, counters]). Nothing is kept per frame: a dictionary a frame (even a slow
	## frame only) grew a 20-minute soak's memory by 40–60 MB, the bench's own, not the terrain's.
	var slow := 0
	var by_part := {}
	var worst: Array = []

	func _init(is_first: bool) -> void:
		first = is_first
		process_priority = -1000 if is_first else 1000
		process_physics_priority = -1000 if is_first else 1000

	func _process(_delta: float) -> void:
		if first:
			_close_tick()
			t0 = Time.get_ticks_usec()
			return
		var span := Time.get_ticks_usec() - other.t0
		var ms := (span + physics_usec) / 1000.0
		if recording:
			frames.append(ms)
			process_spans.append(span / 1000.0)
			tick_counts.append(ticks)
			wholes.append((span + other.whole_physics_usec) / 1000.0)
		other.whole_physics_usec = 0
		if is_instance_valid(watched):
			var now: Dictionary = watched.get_work_stats()
			var inst := watched_instancer.get_work_breakdown() if is_instance_valid(watched_instancer) else PackedInt64Array()
			if recording and ms > 2.0 and not _stats_before.is_empty():
				var d := {}
				for k in now:
					d[k] = now[k] - _stats_before[k]
				if inst.size() == _instancer_before.size() and inst.size() >= 6:
					d["instancer_usec"] = inst[0] - _instancer_before[0]
					d["grass_usec"] = inst[5] - _instancer_before[5]
				if inst.size() == _instancer_before.size() and inst.size() >= 8:
					d["grass_show_usec"] = inst[6] - _instancer_before[6]
					d["grass_choose_usec"] = inst[7] - _instancer_before[7]
				_count_slow(ms, d)
			_stats_before = now
			_instancer_before = inst
		physics_usec = 0
		ticks = 0

	## Counts a slow frame by its largest part and keeps it if it is among the three worst.
	func _count_slow(ms: float, d: Dictionary) -> void:
		var p := parts_of(ms, d)
		var top := "other"
		for k in p:
			if p[k] > p[top]:
				top = k
		slow += 1
		by_part[top] = by_part.get(top, 0) + 1
		worst.append([ms, p, d])
		worst.sort_custom(func(a: Array, b: Array) -> bool: return a[0] > b[0])
		if worst.size() > 3:
			worst.resize(3)

	## What a frame of `ms` spent by part, from its counters' growth `w` (`TerrainNode.get_work_stats` and
	## the instancer's breakdown): sending texture layers, the rest of the windows step (starting and
	## showing jobs, laying pieces out), collision hand-overs, instances, grass, and the remainder (the
	## node's per-frame calls and whatever else ran between the stamps).
	static func parts_of(ms: float, w: Dictionary) -> Dictionary:
		var up: float = w["upload_usec"] / 1000.0
		var win: float = (w["windows_usec"] - w["upload_usec"]) / 1000.0
		var col: float = w["collision_usec"] / 1000.0
		var grass: float = w.get("grass_usec", 0) / 1000.0
		var inst: float = w.get("instancer_usec", 0) / 1000.0 - grass
		return {"uploads": up, "windows": win, "collision": col, "instances": inst, "grass": grass,
			"other": maxf(ms - up - win - col - inst - grass, 0.0)}

	## Forgets what was recorded (the frames, their parts and slow frames' counters).
	func reset() -> void:
		frames.clear()
		tick_counts.clear()
		process_spans.clear()
		wholes.clear()
		slow = 0
		by_part = {}
		worst = []

	## The first stamp: the open tick (its nodes, then the engine's step) ends where the next tick or the
	## process pass begins.
	func _close_tick() -> void:
		if tick_start != 0:
			whole_physics_usec += Time.get_ticks_usec() - tick_start
			tick_start = 0

	func _physics_process(delta: float) -> void:
		if first:
			_close_tick()
			if checker.is_valid():
				checker.call()
			if mover.is_valid():
				mover.call(delta)
			t0 = Time.get_ticks_usec()
			tick_start = t0
			return
		physics_usec += Time.get_ticks_usec() - other.t0
		ticks += 1


var first: Stamp
var last: Stamp
## The median whole frame (ms) of the last `_median_frame_usec` and of the still scene an edit's frames are
## compared with; the whole main-thread time (ms) an edit added in `_work_until_settled`'s frames, beyond
## that still frame's.
var median_whole := 0.0
var still_whole := 0.0
var settled_whole_excess := 0.0


## Paces frames at 60 a second in a small window and puts the stamps in the tree; returns what `_close`
## restores.
func _open() -> Array:
	var saved := [Engine.max_fps, tree.root.size]
	Engine.max_fps = 60
	# A small window: the software rasteriser then keeps up with 60 frames a second (mostly one physics
	# tick a frame, as on a player's machine), so the numbers are the terrain's, not the rasteriser's.
	tree.root.size = Vector2i(320, 180)
	first = Stamp.new(true)
	last = Stamp.new(false)
	last.other = first
	tree.root.add_child(first)
	tree.root.add_child(last)
	return saved


func _close(saved: Array) -> void:
	first.queue_free()
	last.queue_free()
	Engine.max_fps = saved[0]
	tree.root.size = saved[1]


func run(quick: bool) -> void:
	var saved := _open()
	var seconds := 8.0 if quick else 30.0
	var g := TerrainGenerator.new()
	g.seed = 4096
	g.frequency = 1.0 / 700.0
	g.octaves = 8
	g.height = 220.0
	await _flight("endless world, 300 m/s", g, null, 300.0, seconds, TerrainNode.COLLISION_DYNAMIC)
	await _flight("endless world, 300 m/s, collision disabled (reference)", g, null, 300.0, seconds, TerrainNode.COLLISION_DISABLED)
	var data := TerrainData.new()
	data.size = Vector2i(4096, 4096)
	data.generate_noise(7, 0.004, 6, 2.0, 0.5, 120.0, -1e9, TerrainData.NOISE_PERLIN)
	await _flight("4096² TerrainData, 100 m/s", null, data, 100.0, seconds, TerrainNode.COLLISION_DYNAMIC)
	# A 65536² region map (generator-backed: its regions come from the generator, as unsaved ones do).
	var dir := OS.get_user_data_dir().path_join("bench_flight_regions")
	var regions := TerrainRegions.create(g, Vector2i(65536, 65536), 1.0, dir, 512, true)
	await _flight("65536² region map, 100 m/s", null, null, 100.0, seconds, TerrainNode.COLLISION_DYNAMIC, regions)
	await _still_and_edits(data, quick)
	await _wandering_edits(data, quick)
	await _region_edits(data, g, quick)
	_close(saved)


## A target flying at `speed` m/s for `seconds` over a terrain from `g` or `data`.
func _flight(label: String, g: TerrainGenerator, data: TerrainData, speed: float, seconds: float, mode: int, regions: TerrainRegions = null) -> void:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	if g != null:
		tn.terrain_generator = g
	elif regions != null:
		tn.terrain_regions = regions
	else:
		tn.terrain_data = data
	tn.collision_mode = mode
	var start := Vector3(0, 0, 0) if g != null else Vector3(200, 0, 200)
	cam.position = start + Vector3(0, 300, 0)
	cam.rotation_degrees = Vector3(-30, -70, 0)
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	while not tn.is_up_to_date():
		await tree.process_frame
	var dir := Vector3(1, 0, 0.37).normalized()
	if g == null:
		dir = Vector3(1, 0, 1).normalized()
	var checked := [0, 0, 0.0]  # rays, misses, worst error
	var t_start := Time.get_ticks_msec()
	first.mover = func(delta: float) -> void:
		cam.position += dir * speed * delta
		var p := Vector2(cam.position.x, cam.position.z)
		cam.position.y = tn.get_height(p) + 300.0
	if mode != TerrainNode.COLLISION_DISABLED:
		first.checker = func() -> void:
			if Time.get_ticks_msec() - t_start < 1000:
				return
			var p := Vector2(cam.position.x, cam.position.z)
			var space := tn.get_world_3d().direct_space_state
			var q := PhysicsRayQueryParameters3D.create(Vector3(p.x, 5000, p.y), Vector3(p.x, -5000, p.y))
			var hit := space.intersect_ray(q)
			checked[0] += 1
			if hit.is_empty():
				checked[1] += 1
				return
			var e := absf(hit["position"].y - tn.get_height(p))
			checked[2] = e if not is_finite(e) or e > checked[2] or not is_finite(checked[2]) else checked[2]
	# A frame first: the frame recording starts in would count the setup above in its whole time (the
	# code after an await runs inside the frame, before the process pass's first stamp).
	await tree.process_frame
	var late0 := _late_tiles(tn)
	last.reset()
	last.watched = tn
	last.recording = true
	var cpu0 := Util.thread_cpu_ms()
	var rec_start := Time.get_ticks_msec()
	while Time.get_ticks_msec() - t_start < seconds * 1000.0:
		await tree.process_frame
	last.recording = false
	var cpu_line := Util.cpu_shares(cpu0, Util.thread_cpu_ms(), (Time.get_ticks_msec() - rec_start) / 1000.0)
	first.mover = Callable()
	first.checker = Callable()
	var f := last.frames
	var ticks := 0
	for t in last.tick_counts:
		ticks += t
	print("bench main thread (%s) %s: %d frames (%d physics ticks) in %.0f s, terrain work per frame median %.3f ms, p99 %.3f ms, worst %.2f ms (goal <= 0.5 / 2 ms); rays down at the target after 1 s: %d, %d missed, worst |hit - get_height| %.4f m (goal < 0.05); late collision tiles computed on the main thread: %d" % [
		renderer, label, f.size(), ticks, seconds, Util.median(f), Util.quantile(f, 0.99), f.max(), checked[0], checked[1], checked[2], _late_tiles(tn) - late0])
	print(whole_line(label, last.wholes, cpu_line))
	_attribute(label, last)
	last.watched = null
	root.queue_free()
	await tree.process_frame


## The whole-frame line: physics ticks (the engine's step included) and process pass on the main thread,
## and what each thread group took of the 2 cores (CPU ms per second).
func whole_line(label: String, w: Array[float], cpu_line: String) -> String:
	return "bench main thread (%s) %s: whole main-thread frame (every node and the engine's physics step, drawing excluded) median %.3f ms, p99 %.3f ms, worst %.2f ms; CPU ms per second by thread: %s" % [
		renderer, label, Util.median(w), Util.quantile(w, 0.99), w.max(), cpu_line]


## Prints the frames over 2 ms of terrain work counted by their largest part (`Stamp.parts_of`) and the
## three worst split into their parts.
func _attribute(label: String, st: Stamp) -> void:
	var lines := PackedStringArray()
	for e in st.worst:
		var p: Dictionary = e[1]
		var w: Dictionary = e[2]
		lines.append("%.2f ms = uploads %.2f (%d layers) + windows %.2f (%d shown) + collision %.2f (%d tiles, %d ticks) + instances %.2f + grass %.2f (showing %.2f, choosing %.2f) + other %.2f" % [
			e[0], p["uploads"], w["layers_uploaded"], p["windows"], w["windows_shown"], p["collision"], w["collision_tiles"], w["collision_steps"], p["instances"], p["grass"], w.get("grass_show_usec", 0) / 1000.0, w.get("grass_choose_usec", 0) / 1000.0, p["other"]])
	var by := st.by_part
	print("bench main thread (%s) %s: %d frames over 2 ms, by largest part: uploads %d, windows %d, collision %d, instances %d, grass %d, other %d; worst: %s" % [
		renderer, label, st.slow, by.get("uploads", 0), by.get("windows", 0), by.get("collision", 0), by.get("instances", 0), by.get("grass", 0), by.get("other", 0), "; ".join(lines) if lines.size() > 0 else "none"])


## A still camera over `data`, then 256² edits under it: the call, then every frame's terrain work until
## a ray sees the new height (collidable) and the windows are current (drawn).
func _still_and_edits(data: TerrainData, quick: bool) -> void:
	var rig := _rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	tn.terrain_data = data
	var c := Vector2(2048.5, 2048.5)
	cam.position = Vector3(c.x, data.get_height(c) + 150.0, c.y)
	cam.rotation_degrees = Vector3(-30, 0, 0)
	# Reference: the same scene drawn, the terrain's work outside the stamps (it runs after them) and an
	# empty script node between them. On this 2-core machine the software rasteriser's threads still run
	# when the next frame's passes start, and whatever runs first pays for it: this measures that.
	var dummy := Node.new()
	dummy.set_script(_empty_node_script())
	root.add_child(dummy)
	tn.process_priority = 2000
	tn.process_physics_priority = 2000
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var empty := await _median_frame_usec(quick)
	dummy.queue_free()
	tn.process_priority = 0
	tn.process_physics_priority = 0
	var still := await _median_frame_usec(quick)
	still_whole = median_whole
	# The floor: the same node with its processing off (what a still frame would cost if nothing of the
	# terrain ran at all).
	tn.set_process(false)
	tn.set_physics_process(false)
	var off := await _median_frame_usec(quick)
	tn.set_process(true)
	tn.set_physics_process(true)
	var totals: Array[float] = []
	var calls: Array[float] = []
	var ticks_needed: Array[float] = []
	var latency: Array[float] = []
	var drawn_frames: Array[float] = []
	var process_parts: Array[float] = []
	var whole_excess: Array[float] = []
	var space := tn.get_world_3d().direct_space_state
	var vals := PackedFloat32Array()
	vals.resize(256 * 256)
	for k in (5 if quick else 10):
		var h := 40.0 + k * 3.0
		vals.fill(h)
		var at := Vector2i(int(c.x) - 128 + (k % 3) * 7, int(c.y) - 128 + (k / 3) * 5)
		last.reset()
		last.recording = true
		var t0 := Time.get_ticks_usec()
		data.set_heights_region(Rect2i(at, Vector2i(256, 256)), vals)
		var call := (Time.get_ticks_usec() - t0) / 1000.0
		var ticks := 0
		var frames := 0
		# Collidable (a ray down sees the new height) and drawn (the windows hold the edit) are timed apart:
		# the windows are computed on the workers and shown a frame or two later.
		var collidable := -1
		var drawn := -1
		while frames < 120:
			await tree.process_frame
			frames += 1
			ticks += last.tick_counts[-1] if last.tick_counts.size() > 0 else 0
			var q := PhysicsRayQueryParameters3D.create(Vector3(c.x, 5000, c.y), Vector3(c.x, -5000, c.y))
			var hit := space.intersect_ray(q)
			if collidable < 0 and not hit.is_empty() and absf(hit["position"].y - h) < 1e-3:
				collidable = ticks
				latency.append((Time.get_ticks_usec() - t0) / 1000.0)
			if drawn < 0 and tn.is_up_to_date():
				drawn = frames
			if collidable >= 0 and drawn >= 0:
				break
		drawn_frames.append(drawn)
		if collidable < 0:
			latency.append(-1.0)  # never within 120 frames: shows as a negative median
		# The rest of the edited tiles arrive within the write budget on later frames.
		var sum := call + await _work_until_settled(frames)
		# The call ran inside the first recorded frame: its whole time holds it already.
		whole_excess.append(settled_whole_excess)
		var in_process := 0.0
		for f in last.process_spans:
			in_process += f
		totals.append(sum)
		process_parts.append(in_process)
		calls.append(call)
		ticks_needed.append(collidable)
	print("bench main thread (%s) 4096² TerrainData: still camera %.1f µs a frame (goal <= 5 µs; references, the same scene drawn: an empty script node in its place %.1f µs, the node with its processing off %.1f µs); 256² edit under the target: call %.3f ms + later frames' terrain work until drawn, collidable and settled = %.3f ms median (%.3f ms of it in process passes: the data windows), worst %.3f ms (goal <= 0.5 ms), collidable after %d physics ticks, %.0f ms median (goal <= 3 ticks); drawn after %d frames (the windows are computed on the workers); whole main thread (every node and the engine's physics step) beyond a still frame's %.3f ms, the call and those frames: %.3f ms median" % [
		renderer, still, empty, off, Util.median(calls), Util.median(totals), Util.median(process_parts), totals.max(), int(Util.median(ticks_needed)), Util.median(latency), int(Util.median(drawn_frames)), still_whole, Util.median(whole_excess)])
	# Away from the target's collision (300 units off): a radius-128 raise dab and a 64² paint, each the call
	# plus every later frame's terrain work until the terrain is back to a still frame's.
	var brush := TerrainBrush.new()
	brush.size = 256.0
	brush.strength = 2.0
	var dab := await _edit_cost(func(k: int) -> void:
		data.apply_brush(brush, Vector2(c.x + 300 + k * 3, c.y - k * 2), 1.0 / 60.0), quick)
	var dab_whole := edit_whole
	var patch := PackedFloat32Array()
	patch.resize(64 * 64)
	patch.fill(1.0)
	var paint := await _edit_cost(func(k: int) -> void:
		data.set_layer_region(Rect2i(int(c.x) + 300 + k * 5, int(c.y) - 32, 64, 64), k % 3, patch), quick)
	print("bench main thread (%s) 4096² TerrainData, 300 units from the target: radius-128 dab %.3f ms (goal <= 0.7 ms), 64² paint %.3f ms (goal <= 0.3 ms): the call plus every later frame's terrain work until settled, medians; whole main thread beyond a still frame's: dab %.3f ms, paint %.3f ms" % [
		renderer, dab, paint, dab_whole, edit_whole])
	root.queue_free()
	await tree.process_frame


## A rig whose camera looks at the centre of `data` from 150 above; `[root, cam, centre]`.
func _centre_rig(data: Resource, c := Vector2(2048.5, 2048.5)) -> Array:
	var rig := _rig()
	var cam: Camera3D = rig[1]
	cam.position = Vector3(c.x, data.get_height(c) + 150.0, c.y)
	cam.rotation_degrees = Vector3(-30, 0, 0)
	return [rig[0], cam, c]


## [256² edit, radius-128 dab]: each the median of the call plus every later frame's terrain work until
## settled, made on `source` (a TerrainData or TerrainRegions: the same calls) under `c`.
## Then the same two with the whole main thread beyond a still frame's (`_edit_cost`'s `edit_whole`).
func _edits_under(source: Resource, c: Vector2, quick: bool) -> Array:
	await _median_frame_usec(true)
	still_whole = median_whole
	var vals := PackedFloat32Array()
	vals.resize(256 * 256)
	var edit := await _edit_cost(func(k: int) -> void:
		vals.fill(40.0 + k)
		source.set_heights_region(Rect2i(int(c.x) - 128 + k * 3, int(c.y) - 128, 256, 256), vals), quick)
	var edit_w := edit_whole
	var brush := TerrainBrush.new()
	brush.size = 256.0
	brush.strength = 2.0
	var dab := await _edit_cost(func(k: int) -> void:
		source.apply_brush(brush, Vector2(c.x + k * 3, c.y - k * 2), 1.0 / 60.0), quick)
	return [edit, dab, edit_w, edit_whole]


## A 4096² WanderingTerrain: a 256² edit and a radius-128 dab under the camera, the call plus every later
## frame's terrain work; the reference is what re-sending the whole data texture costs (what every edit
## cost before edits were sent by rectangle, and what Compatibility still pays).
func _wandering_edits(data: TerrainData, quick: bool) -> void:
	var rig := _centre_rig(data)
	var root: Node3D = rig[0]
	var wt := WanderingTerrain.new()
	wt.terrain_data = data
	root.add_child(wt)
	wt.camera = wt.get_path_to(rig[1])
	for i in 10:
		await tree.process_frame
	var costs: Array = await _edits_under(data, rig[2], quick)
	var img := data.get_data_image()
	var whole := ImageTexture.create_from_image(img)
	var resend: Array[float] = []
	for k in 5:
		var t0 := Time.get_ticks_usec()
		whole.update(img)
		resend.append((Time.get_ticks_usec() - t0) / 1000.0)
		await tree.process_frame
	print("bench main thread (%s) 4096² WanderingTerrain: 256² edit %.3f ms (goal <= 2 ms), radius-128 dab %.3f ms: the call plus every later frame's terrain work until settled, medians; reference: re-sending the whole data texture %.3f ms; whole main thread beyond a still frame's %.3f ms: edit %.3f ms, dab %.3f ms" % [
		renderer, costs[0], costs[1], Util.median(resend), still_whole, costs[2], costs[3]])
	root.queue_free()
	await tree.process_frame


## The same 4096² ground as region files, and an endless map of the flight's generator (at negative
## samples, 3 km out): a 256² `set_heights_region` and a radius-128 dab under the target with default
## collision, the call plus every later frame's terrain work until settled.
func _region_edits(data: TerrainData, g: TerrainGenerator, quick: bool) -> void:
	var dir := OS.get_user_data_dir().path_join("bench_main_thread_regions")
	if data.save_regions(dir, 512, true) != OK:
		push_error("bench: cannot write the region map")
		return
	await _regions_edited("4096² region map (512² regions)", TerrainRegions.open(dir), Vector2(2048.5, 2048.5), quick)
	var endless := TerrainRegions.create_endless(g, 1.0, OS.get_user_data_dir().path_join("bench_main_thread_endless"), 512, true)
	await _regions_edited("endless map (512² regions), 3 km out at negative samples", endless, Vector2(-2200.5, -2100.5), quick)


func _regions_edited(label: String, regions: TerrainRegions, c: Vector2, quick: bool) -> void:
	var rig := _centre_rig(regions, c)
	var root: Node3D = rig[0]
	var tn := TerrainNode.new()
	tn.terrain_regions = regions
	root.add_child(tn)
	tn.target = tn.get_path_to(rig[1])
	while not tn.is_up_to_date():
		await tree.process_frame
	var costs: Array = await _edits_under(regions, rig[2], quick)
	regions.discard_changes()
	print("bench main thread (%s) %s, under the target with default collision: 256² edit %.3f ms, radius-128 dab %.3f ms (goal <= 1 ms): the call plus every later frame's terrain work until settled, medians; whole main thread (every node and the engine's physics step) beyond a still frame's %.3f ms: edit %.3f ms, dab %.3f ms" % [
		renderer, label, costs[0], costs[1], still_whole, costs[2], costs[3]])
	root.queue_free()
	await tree.process_frame


## Median over a few edits made by `edit(k)` of the call's time plus the terrain's work on every later frame
## until it is back to a still frame's for ten frames (ms).
## `edit_whole` is then the median of the whole main-thread time those frames took beyond a still frame's
## (`still_whole`), the call included (it runs inside the first of them).
func _edit_cost(edit: Callable, quick: bool) -> float:
	var totals: Array[float] = []
	var wholes: Array[float] = []
	for k in (5 if quick else 10):
		await tree.process_frame
		last.reset()
		last.recording = true
		var t0 := Time.get_ticks_usec()
		edit.call(k)
		var call := (Time.get_ticks_usec() - t0) / 1000.0
		totals.append(call + await _work_until_settled(0))
		wholes.append(settled_whole_excess)
	edit_whole = Util.median(wholes)
	return Util.median(totals)


var edit_whole := 0.0


## Waits (at most 120 recorded frames in all, `frames` of them already past) until the terrain's work is
## back to a still frame's for ten frames, stops recording, and returns the recorded work (ms) without
## those trailing still frames.
func _work_until_settled(frames: int) -> float:
	var quiet := 0
	while quiet < 10 and frames < 120:
		await tree.process_frame
		frames += 1
		quiet = quiet + 1 if last.frames.size() > 0 and last.frames[-1] < 0.1 else 0
	last.recording = false
	var sum := 0.0
	for i in last.frames.size() - quiet:
		sum += last.frames[i]
	# The whole time from the first recorded frame on: the edit's call ran inside it, even when the
	# terrain's own work after it was a still frame's.
	settled_whole_excess = 0.0
	for i in mini(maxi(last.frames.size() - quiet, 1), last.wholes.size()):
		settled_whole_excess += last.wholes[i] - still_whole
	return sum


## A root and a far-seeing camera in the tree: [root, camera].
func _rig() -> Array:
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.far = 4000.0
	root.add_child(cam)
	return [root, cam]


## Median terrain work per frame over a few seconds of frames (µs), after settling.
func _median_frame_usec(quick: bool) -> float:
	for i in 30:
		await tree.process_frame
	last.reset()
	last.recording = true
	for i in (120 if quick else 300):
		await tree.process_frame
	last.recording = false
	median_whole = Util.median(last.wholes)
	return Util.median(last.frames) * 1000.0


## A script whose node does nothing in either pass (the reference's stand-in for the terrain).
func _empty_node_script() -> GDScript:
	var sc := GDScript.new()
	sc.source_code = "extends Node\nfunc _process(_d: float) -> void:\n\tpass\nfunc _physics_process(_d: float) -> void:\n\tpass\n"
	sc.reload()
	return sc


## Tiles the workers brought too late (a build before the counter existed: 0, for a before/after run).
func _late_tiles(tn: TerrainNode) -> int:
	return tn.call("get_collision_late_tiles") if tn.has_method("get_collision_late_tiles") else 0
