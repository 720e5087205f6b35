extends RefCounted
## The floating origin's main-thread cost, with a renderer and frames paced at 60 (the stamps of
## render_bench_main_thread.gd), default collision, 5,000 km out in the endless world with about 100k
## instances and a grass layer around the camera:
## - `origin shift`: a shift of 1 km (back and forth, the view unchanged) — the terrain work of the frame
##   it happens in and of each of the next 5 frames, against a still frame's (goals: ≤ 2 ms, ≤ 1 ms);
## - `origin shift flight`: a flight at 300 m/s with a FloatingOrigin shifting every km (60 s with
##   `--quick`, else 20 minutes: 360 km), after the same flight for 60 s without shifting (the reference):
##   worst and median terrain work per frame, shifts, resident memory growth, and whether a ray finds the
##   ground under the camera every tick (error lines fail the run).

const Util := preload("res://bench/timing.gd")
const Main := preload("res://bench/render_bench_main_thread.gd")

const FAR := Vector3(5.0e6, 0.0, -3.0e6)

var tree: SceneTree
var renderer: String


func _generator() -> TerrainGenerator:
	var g := TerrainGenerator.new()
	g.seed = 4096
	g.frequency = 1.0 / 700.0
	g.octaves = 8
	g.height = 220.0
	return g


## The world: [root, camera, terrain, instancer].
func _world(m) -> Array:
	var rig: Array = m._rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	tn.terrain_generator = _generator()
	root.add_child(tn)
	tn.shift_origin(FAR)
	var inst := TerrainInstancer.new()
	var mesh := TerrainInstanceMesh.new()
	var box := BoxMesh.new()
	box.size = Vector3(0.6, 3.0, 0.6)
	mesh.mesh = box
	mesh.visibility_range = 600.0
	inst.meshes = [mesh] as Array[TerrainInstanceMesh]
	var grass := TerrainDetailLayer.new()
	grass.density = 4.0
	grass.view_radius = 60.0
	grass.slope_max = 90.0
	inst.detail_layers = [grass] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	cam.position = Vector3(0, tn.get_height(Vector2.ZERO) + 40.0, 0)
	cam.rotation_degrees = Vector3(-20, 0, 0)
	cam.make_current()
	tn.target = tn.get_path_to(cam)
	inst.scatter(0, Rect2(-900, -900, 1800, 1800), 100000, 7)
	inst.update_now()
	return [root, cam, tn, inst]


func run(quick: bool) -> void:
	var m = Main.new()
	m.tree = tree
	m.renderer = renderer
	var saved: Array = m._open()
	var w := _world(m)
	var root: Node3D = w[0]
	var tn: TerrainNode = w[2]
	var inst: TerrainInstancer = w[3]
	var still := await m._median_frame_usec(quick)
	# A shifter between the stamps: shifts in the process pass when asked, and moves the world back.
	var shifter := Node.new()
	shifter.set_script(_shifter_script())
	shifter.set("tn", tn)
	shifter.set("world", root)
	tree.root.add_child(shifter)
	tree.root.move_child(shifter, m.last.get_index())
	var at: Array[float] = []
	var after: Array[float] = []
	for k in (6 if quick else 20):
		for i in 20:
			await tree.process_frame
		m.last.reset()
		m.last.recording = true
		shifter.set("pending", Vector3(1024.0 if k % 2 == 0 else -1024.0, 0, 0))
		for i in 7:
			await tree.process_frame
		m.last.recording = false
		# The frame that ran the shift is the first recorded: `process_frame` (this coroutine's wake-up) is
		# emitted before the nodes' _process, where the shifter shifts.
		var f: Array = m.last.frames
		at.append(f[0])
		for j in range(1, mini(6, f.size())):
			after.append(f[j])
	print("bench origin shift (%s) 5,000 km out, %d instances + grass (%d detail) around the camera, default collision: the shift's frame median %.3f ms (worst %.3f; goal ≤ 2 ms), each of the next 5 frames median %.3f ms (worst %.3f; goal ≤ 1 ms); a still frame %.3f ms" % [
		renderer, inst.get_drawn_count(0), inst.get_detail_drawn_count(0), Util.median(at), at.max(), Util.median(after), after.max(), still / 1000.0])
	shifter.queue_free()
	root.queue_free()
	await tree.process_frame
	if OS.get_environment("WT_SKIP_FLIGHT") == "":
		# The same flight without a floating origin first (the reference: what the flight costs anyway).
		await _flight(m, 60.0, false)
		await _flight(m, 60.0 if quick else 1200.0, true)
	m._close(saved)


## A flight at 300 m/s over the endless world, with a FloatingOrigin shifting every km when `shifting`.
func _flight(m, seconds: float, shifting: bool) -> void:
	var rig: Array = m._rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	tn.terrain_generator = _generator()
	root.add_child(tn)
	var inst := TerrainInstancer.new()
	var grass := TerrainDetailLayer.new()
	grass.density = 2.0
	grass.view_radius = 40.0
	grass.slope_max = 90.0
	inst.detail_layers = [grass] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	var fo := FloatingOrigin.new()
	if shifting:
		root.add_child(fo)
		fo.terrain = fo.get_path_to(tn)
	cam.make_current()
	cam.rotation_degrees = Vector3(-10, -90, 0)
	tn.target = tn.get_path_to(cam)
	var pilot := Node.new()
	pilot.set_script(_pilot_script())
	pilot.set("cam", cam)
	pilot.set("tn", tn)
	tree.root.add_child(pilot)
	cam.position = Vector3(0, tn.get_height(Vector2.ZERO) + 120.0, 0)
	for i in 120:
		await tree.process_frame
	var rss0 := OS.get_static_memory_usage()
	var mem0 := _rss_mb()
	m.last.reset()
	m.last.recording = true
	pilot.set("flying", true)
	var frames := int(seconds * 60.0)
	for i in frames:
		await tree.process_frame
	pilot.set("flying", false)
	m.last.recording = false
	var f: Array = m.last.frames
	var sorted := f.duplicate()
	sorted.sort()
	var over := f.filter(func(x: float) -> bool: return x > 4.0).size()
	print("bench origin shift flight (%s) %.0f s of frames at 300 m/s per physics tick (%.0f km flown in %d ticks) %s: %d shifts; terrain work per frame median %.3f ms, p99 %.3f ms, worst %.3f ms (goal ≤ 4 ms; %d frames over 4 ms of %d); resident memory growth %.1f MB (goal ≤ 32 MB; static %.1f MB); ground under the camera missing on %d of %d physics ticks; origin offset at the end %s" % [
		renderer, seconds, pilot.get("ticks") * 5.0 / 1000.0, pilot.get("ticks"), "with a FloatingOrigin every km" if shifting else "without shifting (reference)", fo.get_shift_count(), Util.median(f), sorted[int(sorted.size() * 0.99)], sorted.back(), over, f.size(), _rss_mb() - mem0, (OS.get_static_memory_usage() - rss0) / 1048576.0, pilot.get("missing"), pilot.get("ticks"), tn.origin_offset])
	pilot.queue_free()
	root.queue_free()
	if not shifting:
		fo.free()
	await tree.process_frame


## Resident memory of this process (MB).
func _rss_mb() -> float:
	return Util.rss() / 1048576.0


func _shifter_script() -> GDScript:
	var sc := GDScript.new()
	sc.source_code = """extends Node
var tn: Node
var world: Node
var pending := Vector3.ZERO
func _process(_d: float) -> void:
	if pending == Vector3.ZERO:
		return
	var d: Vector3 = tn.shift_origin(pending)
	pending = Vector3.ZERO
	for n in world.get_children():
		if n is Node3D and n != tn:
			n.position -= d
"""
	sc.reload()
	return sc


## Flies the camera east at 300 m/s in the physics pass, 120 m above the ground, and casts a ray down
## every tick (the ground must be there).
func _pilot_script() -> GDScript:
	var sc := GDScript.new()
	sc.source_code = """extends Node
var cam: Camera3D
var tn: Node
var flying := false
var missing := 0
var ticks := 0
func _physics_process(delta: float) -> void:
	if not flying:
		return
	var p := cam.position + Vector3(300.0 * delta, 0, 0)
	p.y = tn.get_height(Vector2(p.x, p.z)) + 120.0
	cam.position = p
	ticks += 1
	var space := cam.get_world_3d().direct_space_state
	var hit := space.intersect_ray(PhysicsRayQueryParameters3D.create(p, p - Vector3(0, 400, 0)))
	if hit.is_empty():
		missing += 1
"""
	sc.reload()
	return sc
