extends RefCounted
## What the interaction field costs the main thread, as a player feels it: a real renderer, frames paced
## at 60 per second, every default feature on (collision included), 64 TerrainInteractors walking at
## 1.5 m/s around a still camera over a 1024² map. Two stamp nodes bracket the process pass (the terrain's
## work: its field presses 64 stamps, sends the globals and the stamp draw's uniforms); the walkers move
## before the first stamp (not counted). The same scene with the field off (`interaction_enabled`
## false) is the reference, in the same run; and the field's GPU texture size.

const Util := preload("res://bench/timing.gd")
const WALKERS := 64

var tree: SceneTree
var renderer: String


class Stamp extends Node:
	var first := false
	var other: Stamp
	var t0 := 0
	var spans: Array[float] = []
	var recording := false

	func _init(is_first: bool) -> void:
		first = is_first
		process_priority = -1000 if is_first else 1000

	func _process(_delta: float) -> void:
		if first:
			t0 = Time.get_ticks_usec()
		elif recording:
			spans.append((Time.get_ticks_usec() - other.t0) / 1000.0)


## Walks every interactor a step (1.5 m/s, turning now and then), before the first stamp.
class Walkers extends Node:
	var list: Array[Node3D] = []
	var dirs: Array[Vector2] = []
	var rng := RandomNumberGenerator.new()

	func _init() -> void:
		process_priority = -2000

	func _process(delta: float) -> void:
		for i in list.size():
			if rng.randf() < 0.02:
				dirs[i] = Vector2.from_angle(rng.randf() * TAU)
			var p := list[i].position + Vector3(dirs[i].x, 0, dirs[i].y) * 1.5 * delta
			p.x = clampf(p.x, 482.0, 542.0)
			p.z = clampf(p.z, 482.0, 542.0)
			list[i].position = p


func _frames(first: Stamp, last: Stamp, n: int) -> Array[float]:
	last.spans.clear()
	last.recording = true
	for i in n:
		await tree.process_frame
	last.recording = false
	return last.spans.duplicate()


func run(quick: bool) -> void:
	Engine.max_fps = 60
	var root := Node3D.new()
	tree.root.add_child(root)
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	t.generate_noise(3, 1.0 / 200.0, 4, 2.0, 0.5, 20.0, -1e9, TerrainData.NOISE_PERLIN)
	var cam := Camera3D.new()
	cam.position = Vector3(512, 60, 560)
	cam.rotation_degrees = Vector3(-35, 0, 0)
	root.add_child(cam)
	cam.make_current()
	var tn := TerrainNode.new()
	tn.terrain_data = t
	root.add_child(tn)
	var walkers := Walkers.new()
	walkers.rng.seed = 7
	root.add_child(walkers)
	for i in WALKERS:
		var it := TerrainInteractor.new()
		it.position = Vector3(482.0 + walkers.rng.randf() * 60.0, 0, 482.0 + walkers.rng.randf() * 60.0)
		it.position.y = tn.get_height_at(it.position)
		it.reach = 100.0
		root.add_child(it)
		walkers.list.append(it)
		walkers.dirs.append(Vector2.from_angle(walkers.rng.randf() * TAU))
	var first := Stamp.new(true)
	var last := Stamp.new(false)
	last.other = first
	root.add_child(first)
	root.add_child(last)
	for i in 120:
		await tree.process_frame
	var n := 120 if quick else 600
	var on := await _frames(first, last, n)
	var pressed := tn.get_trample(walkers.list[0].position)
	var mem_on := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_TEXTURE_MEM_USED)
	tn.interaction_enabled = false
	for i in 30:
		await tree.process_frame
	var mem_off := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_TEXTURE_MEM_USED)
	var off := await _frames(first, last, n)
	tn.interaction_enabled = true
	var engine: String = ProjectSettings.get_setting("physics/3d/physics_engine")
	var m_on := Util.median(on)
	var m_off := Util.median(off)
	print("interaction (%s, %s): %d walkers, %d frames paced at 60 fps; terrain process pass median %.3f ms with the field, %.3f ms without (field %.3f ms); p99 %.3f / %.3f ms; trample under a walker %.2f; field texture %d KiB, GPU texture memory %+d KiB with the field" % [
		renderer, engine if engine != "" else "DEFAULT", WALKERS, n, m_on, m_off, m_on - m_off,
		Util.quantile(on, 0.99), Util.quantile(off, 0.99), pressed,
		tn.interaction_size * tn.interaction_size * 4 / 1024, (mem_on - mem_off) / 1024])
	Engine.max_fps = 0
	root.queue_free()
	await tree.process_frame
