extends RefCounted
## The soak: a long paced flight at 300 m/s over an endless region map (generator-backed, editable) with
## default collision, a TerrainInstancer (boxes scattered along the route, ahead of the camera) and a grass layer; an edit
## ahead of the camera every second (a 32² raise, made in the physics pass as a game would) and a save of
## the map every minute. 20 minutes of frames, or 60 s with `--quick` (a save every 20 s). Prints the
## distribution of the terrain's work per frame (the stamps of render_bench_main_thread.gd: the edit calls
## count, the saves are timed apart — a game's own call), the frames over 2 and 4 ms attributed to their
## largest part, resident memory growth, and whether a ray found the ground under the camera every tick.
## Goals: no error lines, memory growth ≤ 32 MB, worst frame ≤ 4 ms.

const Util := preload("res://bench/timing.gd")
const Main := preload("res://bench/render_bench_main_thread.gd")

var tree: SceneTree
var renderer: String


func run(quick: bool) -> void:
	var seconds := 60.0 if quick else 1200.0
	# WT_SOAK_SECONDS flies another length (a memory hunt needs minutes, not 20 of them).
	if OS.get_environment("WT_SOAK_SECONDS") != "":
		seconds = float(OS.get_environment("WT_SOAK_SECONDS"))
	var save_every := 20.0 if quick else 60.0
	var m = Main.new()
	m.tree = tree
	m.renderer = renderer
	var saved: Array = m._open()
	var g := TerrainGenerator.new()
	g.seed = 4096
	g.frequency = 1.0 / 700.0
	g.octaves = 8
	g.height = 220.0
	var dir := OS.get_user_data_dir().path_join("bench_soak_regions")
	var regions := TerrainRegions.create_endless(g, 1.0, dir, 512, true)
	# The regions kept in memory grow up to their budget (256 MB by default; WT_SOAK_BUDGET_MB sets
	# another): memory growth is reported with and without the regions cache's own growth. (A budget
	# smaller than a band of regions and the mip pyramid above them thrashes: 32 MB reloaded regions on
	# every edit and left the ground missing.)
	if OS.get_environment("WT_SOAK_BUDGET_MB") != "":
		regions.budget_mb = int(OS.get_environment("WT_SOAK_BUDGET_MB"))
	var rig: Array = m._rig()
	var root: Node3D = rig[0]
	var cam: Camera3D = rig[1]
	var tn := TerrainNode.new()
	tn.terrain_regions = regions
	root.add_child(tn)
	var inst := TerrainInstancer.new()
	var mesh := TerrainInstanceMesh.new()
	var box := BoxMesh.new()
	box.size = Vector3(0.6, 3.0, 0.6)
	mesh.mesh = box
	mesh.visibility_range = 400.0
	inst.meshes = [mesh] as Array[TerrainInstanceMesh]
	var grass := TerrainDetailLayer.new()
	grass.density = 2.0
	grass.view_radius = 40.0
	grass.slope_max = 90.0
	inst.detail_layers = [grass] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	cam.make_current()
	cam.rotation_degrees = Vector3(-10, -90, 0)
	cam.position = Vector3(0, tn.get_height(Vector2.ZERO) + 120.0, 0)
	tn.target = tn.get_path_to(cam)
	# Boxes along the route (a band 400 m wide), about 400 a km, scattered ahead of the camera as it flies
	# (a kilometre at a time, between frames): scattering all 361 km of a 20-minute route first read its
	# ground — some 1,400 regions of the endless map — before the flight began (over 50 minutes).
	var scattered := [2500.0]
	inst.scatter(0, Rect2(-500, -200, scattered[0] + 500.0, 400), int((scattered[0] + 500.0) * 0.4), 7)
	var scatter_ahead := func() -> void:
		while scattered[0] < cam.position.x + 2500.0:
			inst.scatter(0, Rect2(scattered[0], -200, 1000, 400), 400, 7 + int(scattered[0]))
			scattered[0] += 1000.0
	var pilot := Node.new()
	pilot.set_script(_pilot_script())
	pilot.set("cam", cam)
	pilot.set("tn", tn)
	pilot.set("regions", regions)
	tree.root.add_child(pilot)
	for i in 120:
		await tree.process_frame
	var mem0 := _rss_mb()
	var cache0 := regions.get_cached_bytes() / 1048576.0
	var static0 := Performance.get_monitor(Performance.MEMORY_STATIC)
	var video0 := Performance.get_monitor(Performance.RENDER_VIDEO_MEM_USED)
	var objects0 := Performance.get_monitor(Performance.OBJECT_COUNT)
	m.last.reset()
	m.last.watched = tn
	m.last.watched_instancer = inst
	m.last.recording = true
	pilot.set("flying", true)
	var t0 := Time.get_ticks_msec()
	var next_save := save_every
	var saves: Array[float] = []
	var save_errors := 0
	# The frames a save ran in: their whole main-thread time holds it (it runs before the process pass's
	# first stamp), so the whole-frame figures leave them out (the saves are reported apart).
	var save_frames := {}
	var cpu0 := Util.thread_cpu_ms()
	while Time.get_ticks_msec() - t0 < seconds * 1000.0:
		await tree.process_frame
		# Like the save below: the game's own call, resumed before this frame's first stamp (not terrain work).
		scatter_ahead.call()
		if (Time.get_ticks_msec() - t0) / 1000.0 >= next_save:
			next_save += save_every
			# Resumed before the first stamp of this frame: the save is timed apart, not as terrain work.
			save_frames[m.last.wholes.size()] = true
			var s0 := Time.get_ticks_usec()
			save_errors += int(regions.save() != OK)
			saves.append((Time.get_ticks_usec() - s0) / 1000.0)
			# A line a save: a run cut short still tells how far it got and how it went.
			var so_far: Array[float] = m.last.frames
			# Where the memory went: the regions cache, Godot's own allocations (objects, resources),
			# and video memory (on a software driver it lives in this process's resident memory).
			print("bench soak (%s) progress: %.0f s, %d frames, worst so far %.3f ms, save %.1f ms, resident memory growth %.1f MB (regions cache %+.1f MB, Godot static %+.1f MB, video %+.1f MB, objects %+d)" % [
				renderer, (Time.get_ticks_msec() - t0) / 1000.0, so_far.size(), so_far.max() if so_far.size() > 0 else 0.0, saves.back(), _rss_mb() - mem0,
				regions.get_cached_bytes() / 1048576.0 - cache0, (Performance.get_monitor(Performance.MEMORY_STATIC) - static0) / 1048576.0,
				(Performance.get_monitor(Performance.RENDER_VIDEO_MEM_USED) - video0) / 1048576.0, int(Performance.get_monitor(Performance.OBJECT_COUNT) - objects0)])
	pilot.set("flying", false)
	m.last.recording = false
	var cpu_line := Util.cpu_shares(cpu0, Util.thread_cpu_ms(), (Time.get_ticks_msec() - t0) / 1000.0)
	var wholes: Array[float] = []
	for i in m.last.wholes.size():
		if not save_frames.has(i):
			wholes.append(m.last.wholes[i])
	var f: Array[float] = m.last.frames
	var sorted := f.duplicate()
	sorted.sort()
	var over2 := f.filter(func(x: float) -> bool: return x > 2.0).size()
	var over4 := f.filter(func(x: float) -> bool: return x > 4.0).size()
	print("bench soak (%s) %.0f s at 300 m/s over an endless region map (regions kept: %d MB budget, %.1f MB at the end; %.0f km in %d physics ticks), %d instances drawn at the end + grass, an edit a second (%d made), a save every %.0f s (%d, median %.1f ms, worst %.1f ms, %d failed): terrain work per frame median %.3f ms, p90 %.3f, p99 %.3f, p99.9 %.3f, worst %.3f ms (goal <= 4 ms); %d frames over 2 ms, %d over 4 ms of %d; resident memory growth %.1f MB, %.1f MB of it beyond the regions cache's growth (goal <= 32 MB; Godot's static memory %+.1f MB of that); ground under the camera missing on %d of %d ticks" % [
		renderer, seconds, regions.budget_mb, regions.get_cached_bytes() / 1048576.0, pilot.get("ticks") * 5.0 / 1000.0, pilot.get("ticks"), inst.get_drawn_count(0), pilot.get("edits"), save_every, saves.size(), Util.median(saves) if saves.size() > 0 else 0.0, saves.max() if saves.size() > 0 else 0.0, save_errors,
		Util.median(f), Util.quantile(f, 0.9), Util.quantile(f, 0.99), Util.quantile(f, 0.999), sorted.back(), over2, over4, f.size(), _rss_mb() - mem0, _rss_mb() - mem0 - (regions.get_cached_bytes() / 1048576.0 - cache0), (Performance.get_monitor(Performance.MEMORY_STATIC) - static0) / 1048576.0, pilot.get("missing"), pilot.get("ticks")])
	print(m.whole_line("soak, frames with a save left out", wholes, cpu_line))
	m._attribute("soak", m.last)
	var em: Array[float] = pilot.get("edit_ms")
	var worst_at := f.find(sorted.back())
	print("bench soak (%s): the edits (read, raise, write back: the game's calls, in the physics pass) median %.3f ms, worst %.3f ms; the worst frame was frame %d of %d" % [
		renderer, Util.median(em), em.max(), worst_at, f.size()])
	m.last.watched = null
	m.last.watched_instancer = null
	pilot.queue_free()
	root.queue_free()
	regions.discard_changes()
	await tree.process_frame
	m._close(saved)


## Resident memory of this process (MB).
func _rss_mb() -> float:
	return Util.rss() / 1048576.0


## Flies the camera east at 300 m/s in the physics pass, 120 m above the ground; casts a ray down every
## tick (the ground must be there) and raises a 32² patch 60 m ahead every 60 ticks.
func _pilot_script() -> GDScript:
	var sc := GDScript.new()
	sc.source_code = """extends Node
var cam: Camera3D
var tn: Node
var regions: Resource
var flying := false
var missing := 0
var ticks := 0
var edits := 0
var edit_ms: Array[float] = []
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
	if ticks % 60 == 0:
		var r := Rect2i(int(p.x) + 60, int(p.z) - 16, 32, 32)
		var t0 := Time.get_ticks_usec()
		var h: PackedFloat32Array = regions.get_heights_region(r)
		for i in h.size():
			h[i] += 2.0
		if regions.set_heights_region(r, h):
			edits += 1
		edit_ms.append((Time.get_ticks_usec() - t0) / 1000.0)
"""
	sc.reload()
	return sc
