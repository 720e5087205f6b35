extends RefCounted
## TerrainData from typed GDScript: get_height per call vs Image.get_pixel in the same kind of loop (goal:
## at most 2x), get_heights per point for 1 M points, generate_from_noise per sample vs the same noise read
## with one get_noise_2d call per sample from GDScript; generate_async's wall time against generate's and
## the longest main-thread frame while it runs (the game keeps running).

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func run(quick: bool) -> void:
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	t.generate_noise(1, 0.01, 5, 2.0, 0.5, 40.0, -1e9, 0)
	var img: Image = t.get_data_image()
	var n := 20000 if quick else 200000
	var reps := 3 if quick else 9
	var pts := PackedVector2Array()
	pts.resize(n)
	for i in n:
		pts[i] = Vector2(fmod(i * 7.919, 1023.0), fmod(i * 3.1415, 1023.0))
	var ours := Util.median_usec(func():
		var s := 0.0
		for p: Vector2 in pts:
			s += t.get_height(p)
		, reps)
	var ref := Util.median_usec(func():
		var s := 0.0
		for p: Vector2 in pts:
			s += img.get_pixel(int(p.x), int(p.y)).r
		, reps)
	var empty := Util.median_usec(func():
		var s := 0.0
		for p: Vector2 in pts:
			s += p.x
		, reps)
	print("bench terrain_data get_height: %.0f ns/call in a typed loop; Image.get_pixel loop %.0f ns/call; ratio %.2f (goal <= 2); empty loop %.0f ns" % [
		ours * 1000.0 / n, ref * 1000.0 / n, ours / ref, empty * 1000.0 / n])

	var m := 100000 if quick else 1000000
	var many := PackedVector2Array()
	many.resize(m)
	for i in m:
		many[i] = Vector2(fmod(i * 7.919, 1023.0), fmod(i * 3.1415, 1023.0))
	var batch := Util.median_usec(func(): t.get_heights(many), reps)
	print("bench terrain_data get_heights: %d points, %.1f ns/point (goal <= 30)" % [m, batch * 1000.0 / m])

	var noise := FastNoiseLite.new()
	var side := 128 if quick else 512
	var g := TerrainData.new()
	g.size = Vector2i(side, side)
	var gen := Util.median_usec(func(): g.generate_from_noise(noise, 10.0, -1e9), 3)
	var gd := Util.median_usec(func():
		var h := PackedFloat32Array()
		h.resize(side * side)
		var i := 0
		for z in side:
			for x in side:
				h[i] = noise.get_noise_2d(x, z) * 10.0
				i += 1
		, 3)
	print("bench terrain_data generate_from_noise %d²: %.0f ns/sample (incl. slope pass); same get_noise_2d loop in GDScript %.0f ns/sample; ratio %.2f" % [
		side, gen * 1000.0 / (side * side), gd * 1000.0 / (side * side), gen / gd])

	await _generate_async(quick)


func _generate_async(quick: bool) -> void:
	var side := 512 if quick else 2048
	var gen := TerrainGenerator.new()
	gen.octaves = 6
	var t := TerrainData.new()
	t.size = Vector2i(side, side)
	var sync := Util.median_usec(func(): t.generate(gen), 3)
	var walls := PackedFloat64Array()
	var longest := PackedFloat64Array()
	for r in 3:
		var start := Time.get_ticks_usec()
		var last := start
		var worst := 0
		t.generate_async(gen)
		while not t.finish_generation():
			await tree.process_frame
			var now := Time.get_ticks_usec()
			worst = maxi(worst, now - last)
			last = now
		walls.append(Time.get_ticks_usec() - start)
		longest.append(worst)
	walls.sort()
	longest.sort()
	print("bench terrain_data generate_async %d²: %.0f ms wall vs generate %.0f ms (ratio %.2f); longest frame while it ran %.1f ms (medians of 3)" % [
		side, walls[1] / 1000.0, sync / 1000.0, walls[1] / sync, longest[1] / 1000.0])
