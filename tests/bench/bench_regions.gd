extends RefCounted
## A huge map from region files: writes a generated 65536² map (16384² with --quick) to disk once (kept
## between runs in the user folder), opens it, and measures the time to the first complete frame, a flight
## at 300 m/s for 60 s of frames paced at 60 per second (10 s with --quick) — the main thread's terrain
## cost per frame and resident memory — and then jumps to eight places across the map, waiting for each to
## be drawn (resident memory after visiting the whole map). Also a save/open round trip of a 4096²
## TerrainData, against `ResourceSaver`/`load` of the same data as `.res` in the same run.

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func _generator() -> TerrainGenerator:
	var g := TerrainGenerator.new()
	g.seed = 65536
	g.frequency = 1.0 / 900.0
	g.octaves = 6
	g.height = 300.0
	return g


func _settle(tn: TerrainNode) -> float:
	var t0 := Time.get_ticks_usec()
	while not tn.is_up_to_date():
		tn.update_now(false)
		await tree.process_frame
	return (Time.get_ticks_usec() - t0) / 1000.0


func run(quick: bool) -> void:
	await _round_trip()
	var n := 16384 if quick else 65536
	var dir := OS.get_user_data_dir().path_join("bench_regions_%d" % n)
	if not FileAccess.file_exists(dir.path_join("terrain.regions")):
		var t0 := Time.get_ticks_msec()
		if TerrainRegions.generate(_generator(), Vector2i(n, n), 1.0, dir, 512) != OK:
			print("bench regions: could not write %s" % dir)
			return
		print("bench regions %d²: written in %.1f s (generated, 512² regions with mips)" % [n, (Time.get_ticks_msec() - t0) / 1000.0])
	var rss0 := Util.rss()
	var t_open := Time.get_ticks_usec()
	var regions := TerrainRegions.open(dir)
	var open_ms := (Time.get_ticks_usec() - t_open) / 1000.0
	# A query where nothing is loaded reads its region on the spot (the documented cost).
	var cold: Array[float] = []
	for k in 9:
		var p := Vector2(fmod(k * 0.29 + 0.07, 1.0) * n, fmod(k * 0.53 + 0.11, 1.0) * n)
		var t0 := Time.get_ticks_usec()
		regions.get_height(p)
		cold.append(float(Time.get_ticks_usec() - t0))
	var warm_t0 := Time.get_ticks_usec()
	for k in 1000:
		regions.get_height(Vector2(fmod(k * 0.29 + 0.07, 1.0) * 0.001 * n + 0.07 * n, 0.11 * n))
	var warm := (Time.get_ticks_usec() - warm_t0) / 1000.0
	print("bench regions %d² queries: get_height where nothing is loaded (reads a 512² region) median %.2f ms; where it is loaded %.2f us" % [n, Util.median(cold) / 1000.0, warm])
	var root := Node3D.new()
	tree.root.add_child(root)
	var target := Node3D.new()
	root.add_child(target)
	target.position = Vector3(n * 0.25, 0, n * 0.25)
	var tn := TerrainNode.new()
	tn.levels = 8
	tn.terrain_regions = regions
	tn.collision_mode = TerrainNode.COLLISION_DYNAMIC
	root.add_child(tn)
	tn.target = tn.get_path_to(target)
	var first_ms := await _settle(tn)
	var rss_first := Util.rss()
	var seconds := 10 if quick else 60
	var steps := seconds * 60
	var step_usec := 1000000.0 / 60.0
	var dir3 := Vector3(1, 0, 0.8).normalized() * (300.0 / 60.0)
	var costs: Array[float] = []
	var col_costs: Array[float] = []
	var peak := rss_first
	var start := Time.get_ticks_usec()
	for i in steps:
		target.position += dir3
		var t0 := Time.get_ticks_usec()
		tn.update_now(false)
		var t1 := Time.get_ticks_usec()
		tn.update_collision()
		costs.append(float(t1 - t0))
		col_costs.append(float(Time.get_ticks_usec() - t1))
		await tree.process_frame
		if i % 60 == 0:
			peak = maxi(peak, Util.rss())
		var next := start + (i + 1) * step_usec
		var now := Time.get_ticks_usec()
		if next > now:
			OS.delay_usec(int(next - now))
	var rss_flight := Util.rss()
	# Jumps across the whole map: each place drawn completely before the next.
	var jumps: Array[float] = []
	for k in 8:
		target.position = Vector3(fmod(k * 0.37 + 0.1, 1.0) * n, 0, fmod(k * 0.61 + 0.05, 1.0) * n)
		jumps.append(await _settle(tn))
		peak = maxi(peak, Util.rss())
	var h := tn.get_height(Vector2(target.position.x, target.position.z))
	costs.sort()
	col_costs.sort()
	print("bench regions %d² (%d region files of 512², %d mips): opened in %.2f ms, first complete frame %.0f ms; flight 300 m/s for %d s paced at 60 fps: main-thread cost of the drawn terrain median %.3f ms, p99 %.3f ms, worst %.3f ms, of DYNAMIC collision median %.3f ms, worst %.3f ms; jumps across the map drawn in median %.0f ms (worst %.0f); resident memory above the process before opening: %.0f MB after the first frame, %.0f MB after the flight, peak %.0f MB (goal <= 512 MB); regions cached %.0f MB, %d files read; height at the last place %.1f" % [
		n, (n / 512) * (n / 512), regions.get_mip_count(), open_ms, first_ms, seconds, Util.median(costs) / 1000.0, Util.quantile(costs, 0.99) / 1000.0, costs[-1] / 1000.0, Util.median(col_costs) / 1000.0, col_costs[-1] / 1000.0,
		Util.median(jumps), jumps.max(), (rss_first - rss0) / 1e6, (rss_flight - rss0) / 1e6, (peak - rss0) / 1e6, regions.get_cached_bytes() / 1e6, regions.get_loads(), h])
	print("bench regions resident: process %.0f MB before opening, %.0f MB at the peak" % [rss0 / 1e6, peak / 1e6])
	await _edits(tn, regions, target, rss0, n)
	root.queue_free()
	await tree.process_frame
	await _collision_reference(Util.median(col_costs), 600 if quick else 1800)


## The same DYNAMIC collision flight over a 4096² TerrainData in memory: the reference for the regions'
## collision cost (the grids are the same maths; regions add the cache lookups).
func _collision_reference(regions_median: float, steps: int) -> void:
	var t := TerrainData.new()
	t.size = Vector2i(4096, 4096)
	t.generate(_generator())
	var root := Node3D.new()
	tree.root.add_child(root)
	var target := Node3D.new()
	root.add_child(target)
	target.position = Vector3(500, 0, 500)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.collision_mode = TerrainNode.COLLISION_DYNAMIC
	root.add_child(tn)
	tn.target = tn.get_path_to(target)
	tn.update_collision()
	var dir3 := Vector3(1, 0, 0.8).normalized() * (300.0 / 60.0)
	var costs: Array[float] = []
	for i in steps:
		target.position += dir3
		var t0 := Time.get_ticks_usec()
		tn.update_collision()
		costs.append(float(Time.get_ticks_usec() - t0))
		if i % 10 == 0:
			await tree.process_frame
	var m := Util.median(costs)
	print("bench regions collision reference: the same DYNAMIC flight over a 4096² TerrainData costs median %.3f ms per frame; regions / data %.2f" % [m / 1000.0, regions_median / maxf(m, 1.0)])
	root.queue_free()


## Save/open a 4096² TerrainData as region files vs as a .res, bit for bit.
func _round_trip() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(4096, 4096)
	t.generate(_generator())
	var dir := OS.get_user_data_dir().path_join("bench_regions_round_trip")
	var t0 := Time.get_ticks_usec()
	t.save_regions(dir, 512, true)
	var save_ms := (Time.get_ticks_usec() - t0) / 1000.0
	t0 = Time.get_ticks_usec()
	var r := TerrainRegions.open(dir)
	var all := Rect2i(0, 0, 4096, 4096)
	var back := r.get_heights_region(all)
	var open_ms := (Time.get_ticks_usec() - t0) / 1000.0
	var exact := back == t.get_heights_region(all)
	var res := OS.get_user_data_dir().path_join("bench_round_trip.res")
	t0 = Time.get_ticks_usec()
	ResourceSaver.save(t, res)
	var res_save := (Time.get_ticks_usec() - t0) / 1000.0
	t0 = Time.get_ticks_usec()
	var again: TerrainData = ResourceLoader.load(res, "", ResourceLoader.CACHE_MODE_IGNORE)
	var res_load := (Time.get_ticks_usec() - t0) / 1000.0
	print("bench regions round trip 4096²: save_regions %.0f ms, open + read every height %.0f ms, bit-exact %s; reference .res: save %.0f ms, load %.0f ms; ratio (regions / .res) save %.2f, read %.2f" % [
		save_ms, open_ms, exact, res_save, res_load, save_ms / res_save, open_ms / res_load])
	DirAccess.remove_absolute(res)
	for f in DirAccess.get_files_at(dir):
		DirAccess.remove_absolute(dir.path_join(f))
	DirAccess.remove_absolute(dir)
	again = null


## Editing the huge map under the target: 256² edits (a set_heights_region and a raise dab of 256 samples)
## timed on the main thread together with the next frames' terrain work (windows, collision), resident
## memory while editing, and `save()` of 16 dirty 512² regions (with the levels above them).
func _edits(tn: TerrainNode, regions: TerrainRegions, target: Node3D, rss0: int, n: int) -> void:
	var p := Vector2(target.position.x, target.position.z)
	var brush := TerrainBrush.new()
	brush.tool = TerrainBrush.RAISE
	brush.size = 256.0
	brush.strength = 2.0
	var costs: Array[float] = []
	var calls: Array[float] = []
	var draws: Array[float] = []
	var peak := Util.rss()
	var rect := Rect2i(int(p.x) - 128, int(p.y) - 128, 256, 256)
	var values := regions.get_heights_region(rect)
	for k in 40:
		var c := p + Vector2(k * 13.0, k * 7.0)
		var t0 := Time.get_ticks_usec()
		if k % 2 == 0:
			regions.set_heights_region(rect, values)
		else:
			regions.apply_brush(brush, c, 1.0 / 60.0)
		var t1 := Time.get_ticks_usec()
		# The frames after it: their terrain work on the main thread counts too (timed call by call; the
		# node's own processing then finds nothing left to do).
		var frames := 0.0
		var draw := 0.0
		for f in 5:
			var f0 := Time.get_ticks_usec()
			tn.update_now(false)
			var f1 := Time.get_ticks_usec()
			tn.update_collision()
			frames += Time.get_ticks_usec() - f0
			draw += f1 - f0
			await tree.process_frame
		costs.append(float(t1 - t0) + frames)
		draws.append(draw)
		calls.append(float(t1 - t0))
		peak = maxi(peak, Util.rss())
	costs.sort()
	calls.sort()
	print("bench regions %d² edits: a 256² edit (set_heights_region, or a raise dab 256 samples wide) on the main thread median %.3f ms (worst %.3f); with the next 5 frames' update_now + update_collision median %.3f ms, worst %.3f ms (goal <= 1 ms; of it update_now, the windows, median %.3f ms); resident while editing %.0f MB above the process before opening (cache budget %d MB + 64 MB); %d regions unsaved" % [
		n, Util.median(calls) / 1000.0, calls[-1] / 1000.0, Util.median(costs) / 1000.0, costs[-1] / 1000.0, Util.median(draws) / 1000.0, (peak - rss0) / 1e6, regions.budget_mb, regions.get_unsaved_region_count()])
	regions.discard_changes()
	# 16 dirty 512² regions, a 4 × 4 block, then one save.
	var base := Vector2i(int(p.x) / 512 * 512, int(p.y) / 512 * 512)
	for j in 4:
		for i in 4:
			var small := Rect2i(base + Vector2i(i * 512 + 100, j * 512 + 100), Vector2i(8, 8))
			regions.set_heights_region(small, regions.get_heights_region(small))
	var dirty := regions.get_unsaved_region_count()
	var t0 := Time.get_ticks_usec()
	var err := regions.save()
	var save_ms := (Time.get_ticks_usec() - t0) / 1000.0
	print("bench regions %d² save: 16 dirty 512² regions (%d region files with the levels above) saved in %.1f ms (goal <= 300 ms), %s" % [n, dirty, save_ms, error_string(err)])
