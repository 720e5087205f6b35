extends RefCounted
## Erosion: the generator's erosion filter against plain generation (1024², the same fractal, medians),
## the droplet simulation on 1024² with 200,000 droplets (time and cost per droplet), and a roughness figure
## of each (mean |Laplacian|: how sharply the ground curves; more means carved valleys and ridges) with
## hillshaded pictures written to target/bench/ for the docs.

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func _generator(erosion: float) -> TerrainGenerator:
	var g := TerrainGenerator.new()
	g.seed = 21
	g.frequency = 1.0 / 300.0
	g.octaves = 6
	g.height = 120.0
	g.erosion = erosion
	g.erosion_scale = 40.0
	g.erosion_detail = 3
	g.erosion_balance = -0.2
	return g


## Mean |4-neighbour Laplacian| over the inner samples.
func _roughness(t: TerrainData) -> float:
	var h := t.heights
	var n := t.size.x
	var s := 0.0
	var c := 0
	for z in range(1, n - 1, 2):
		for x in range(1, n - 1, 2):
			var i := z * n + x
			s += absf(h[i - 1] + h[i + 1] + h[i - n] + h[i + n] - 4.0 * h[i])
			c += 1
	return s / c


## A hillshade of the 512² top-left corner (light from the north-west), saved as PNG.
func _picture(t: TerrainData, name: String) -> void:
	var n := 512
	var w := t.size.x
	var h := t.heights
	var img := Image.create(n, n, false, Image.FORMAT_RGB8)
	var light := Vector3(-1, 1.4, -1).normalized()
	for z in n:
		for x in n:
			var i := (z + 1) * w + x + 1
			var nrm := Vector3(h[i - 1] - h[i + 1], 2.0, h[i - w] - h[i + w]).normalized()
			var v := clampf(nrm.dot(light), 0.0, 1.0)
			var e := clampf(h[i] / 120.0 * 0.5 + 0.5, 0.0, 1.0)
			img.set_pixel(x, z, Color(0.35 + 0.5 * v * (0.7 + 0.3 * e), 0.32 + 0.5 * v * 0.9, 0.28 + 0.45 * v))
	var dir := ProjectSettings.globalize_path("res://").path_join("../target/bench")
	DirAccess.make_dir_recursive_absolute(dir)
	var path := dir.path_join(name + ".png")
	img.save_png(path)
	print("::png ", path)


func run(quick: bool) -> void:
	var n := 1024
	var plain_ms: Array[float] = []
	var filtered_ms: Array[float] = []
	var plain := TerrainData.new()
	plain.size = Vector2i(n, n)
	var filtered := TerrainData.new()
	filtered.size = Vector2i(n, n)
	for i in (3 if quick else 5):
		var t0 := Time.get_ticks_usec()
		plain.generate(_generator(0.0))
		var t1 := Time.get_ticks_usec()
		filtered.generate(_generator(3.0))
		var t2 := Time.get_ticks_usec()
		plain_ms.append((t1 - t0) / 1000.0)
		filtered_ms.append((t2 - t1) / 1000.0)
	print("bench erosion: 1024² generation %.0f ms plain, %.0f ms with the erosion filter (3 octaves): %.2f× (goal <= 2×)" % [
		Util.median(plain_ms), Util.median(filtered_ms), Util.median(filtered_ms) / Util.median(plain_ms)])
	var sim := TerrainErosion.new()
	sim.droplets = 200000
	sim.seed = 3
	var eroded := TerrainData.new()
	eroded.size = Vector2i(n, n)
	var sim_ms: Array[float] = []
	var report := {}
	for i in (1 if quick else 3):
		eroded.generate(_generator(0.0))
		var t0 := Time.get_ticks_usec()
		report = eroded.erode(sim, Rect2i())
		sim_ms.append((Time.get_ticks_usec() - t0) / 1000.0)
	var ms := Util.median(sim_ms)
	print("bench erosion: 1024² simulation with 200,000 droplets and %d thermal passes: %.0f ms (goal <= 2000 ms), %.2f µs a droplet, %d droplet steps; eroded %.0f, deposited %.0f, carried off %.0f" % [
		sim.thermal_iterations, ms, ms * 1000.0 / 200000.0, report.get("steps", 0), report.get("eroded", 0.0), report.get("deposited", 0.0), report.get("carried_off", 0.0)])
	print("bench erosion: roughness (mean |Laplacian|, height units): plain %.4f, erosion filter %.4f, simulation %.4f" % [
		_roughness(plain), _roughness(filtered), _roughness(eroded)])
	_picture(plain, "erosion_plain")
	_picture(filtered, "erosion_filter")
	_picture(eroded, "erosion_simulation")
