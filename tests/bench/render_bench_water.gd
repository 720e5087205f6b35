extends RefCounted
## TerrainWater's main-thread cost per frame, with a renderer and frames paced at 60 (the stamps of
## render_bench_main_thread.gd): a 1024² TerrainData with default collision, the camera over the coast;
## median terrain work per frame without water (the reference) and with a sea, the lakes find_lakes finds
## and two rivers; the time to compute the water (update_water) and the water map's GPU bytes.

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
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	t.generate_noise(5, 1.0 / 150.0, 6, 2.0, 0.5, 40.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	root.add_child(tn)
	cam.position = Vector3(512, 60, 600)
	cam.rotation_degrees = Vector3(-35, 0, 0)
	tn.target = tn.get_path_to(cam)
	var without := await m._median_frame_usec(quick)
	var water := TerrainWater.new()
	water.sea_level = 0.0
	for lake in t.find_lakes(Rect2i(), 200.0, 0.5, 0.0):
		water.lake_points.append(lake["point"])
	var rivers := t.find_rivers(Rect2i(), 5000.0, 0.0)
	for c in rivers.slice(0, 2):
		water.rivers.append(c)
	tn.add_child(water)
	var t0 := Time.get_ticks_usec()
	water.update_water()
	var update_ms := (Time.get_ticks_usec() - t0) / 1000.0
	var with_water := await m._median_frame_usec(quick)
	print("bench water (%s) 1024² TerrainData, sea + %d lakes + %d rivers (%d bodies drawn): terrain work per frame median %.3f ms with water vs %.3f ms without (goal: ≤ 0.2 ms added); update_water %.1f ms; water map on the GPU %d bytes (8 a sample)" % [
		renderer, water.lake_points.size(), water.rivers.size(), water.get_body_count(), with_water / 1000.0, without / 1000.0, update_ms, 1024 * 1024 * 8])
	root.queue_free()
	await tree.process_frame
	m._close(saved)
