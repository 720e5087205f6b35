extends "res://wt_test.gd"
## TerrainData from GDScript: document 000 agreement, generation, edits with signals, file round trips,
## and bad input refused with a named error while the previous state stays.

const FIXTURES := "res://fixtures/terrain_data/fixtures.json"


func _fixture(i: int) -> Dictionary:
	var data: Dictionary = JSON.parse_string(FileAccess.get_file_as_string(FIXTURES))
	return data["cases"][i]


func _from_fixture(c: Dictionary) -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(int(c["size"][0]), int(c["size"][1]))
	t.heights = PackedFloat32Array(c["heights"])
	return t


func _ramp(t: TerrainData) -> void:
	var h := PackedFloat32Array()
	h.resize(t.size.x * t.size.y)
	for i in h.size():
		h[i] = sin(i * 0.37) * 5.0 + (i % t.size.x) * 0.25
	t.heights = h


func test_defaults() -> void:
	var t := TerrainData.new()
	check_eq(t.size, Vector2i(64, 64), "size")
	check_eq(t.spacing, 1.0, "spacing")
	check_eq(t.heights.size(), 64 * 64, "heights length")
	check_eq(t.get_height(Vector2(10, 10)), 0.0, "flat")


func test_get_height_matches_document() -> void:
	for i in 3:
		var c := _fixture(i)
		var t := _from_fixture(c)
		var r := t.get_height_range()
		var tol := 1e-5 * maxf(r.y - r.x, 1.0)
		var pts := PackedVector2Array()
		var want := PackedFloat32Array()
		var bad := 0
		for s in c["samples"]:
			var p := Vector2(s[0], s[1])
			pts.append(p)
			want.append(s[2])
			if absf(t.get_height(p) - s[2]) > tol:
				bad += 1
		check_eq(bad, 0, "case %s: samples off by more than %s" % [c["name"], tol])
		var batch := t.get_heights(pts)
		var same := 0
		for k in pts.size():
			same += int(batch[k] == t.get_height(pts[k]))
		check_eq(same, pts.size(), "case %s: get_heights equals get_height" % c["name"])


func test_data_image_is_documents_layout() -> void:
	var c := _fixture(0)
	var t := _from_fixture(c)
	var img := t.get_data_image()
	check_eq(img.get_format(), Image.FORMAT_RGBF, "format")
	check_eq(img.get_size(), Vector2i(13, 9), "image size")
	var data: Array = c["data"]
	var bad := 0
	for j in 9:
		for i in 13:
			var px := img.get_pixel(i, j)
			var k := (j * 13 + i) * 3
			if absf(px.r - data[k]) > 1e-4 or absf(px.g - data[k + 1]) > 1e-4 or absf(px.b - data[k + 2]) > 1e-4:
				bad += 1
	check_eq(bad, 0, "pixels differing from document 000's data")
	check(t.get_data_texture() is ImageTexture, "texture")


func test_normal_matches_finite_differences() -> void:
	var t := _from_fixture(_fixture(1))
	t.spacing = 2.0
	for p in [Vector2(10.3, 20.7), Vector2(33.1, 5.5), Vector2(50.0, 50.0)]:
		var n := t.get_normal(p)
		var e := 0.01
		var dx := (t.get_height(p + Vector2(e, 0)) - t.get_height(p - Vector2(e, 0))) / (2 * e)
		var dz := (t.get_height(p + Vector2(0, e)) - t.get_height(p - Vector2(0, e))) / (2 * e)
		var fd := Vector3(-dx, 1, -dz).normalized()
		check(n.angle_to(fd) < 0.01, "normal %s vs finite differences %s at %s" % [n, fd, p])
		check_near(n.length(), 1.0, 1e-5, "unit normal")


func test_generate_from_godot_noise_is_exact() -> void:
	var noise := FastNoiseLite.new()
	noise.seed = 7
	noise.frequency = 0.05
	var t := TerrainData.new()
	t.size = Vector2i(40, 30)
	check(t.generate_from_noise(noise, 12.0, -1e30), "generated")
	var h := t.heights
	var bad := 0
	for z in 30:
		for x in 40:
			var want := PackedFloat32Array([noise.get_noise_2d(x, z) * 12.0])[0]
			bad += int(h[z * 40 + x] != want)
	check_eq(bad, 0, "samples differing from get_noise_2d * height")
	t.generate_from_noise(noise, 12.0, 0.5)
	check(t.get_height_range().x >= 0.5, "sea level clamps in world units")


func test_generate_noise_crate() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(128, 96)
	check(t.generate_noise(3, 0.02, 5, 2.0, 0.5, 20.0, -4.0, TerrainData.NOISE_PERLIN), "generated")
	var r := t.get_height_range()
	check(r.x >= -4.0 and r.y > 1.0, "range %s" % r)
	var first := t.heights
	t.generate_noise(3, 0.02, 5, 2.0, 0.5, 20.0, -4.0, TerrainData.NOISE_PERLIN)
	check(first == t.heights, "deterministic")
	t.generate_noise(4, 0.02, 5, 2.0, 0.5, 20.0, -4.0, TerrainData.NOISE_SUPER_SIMPLEX)
	check(first != t.heights, "seed and type change it")
	# The same settings as a TerrainGenerator resource give the same heights.
	var g := TerrainGenerator.new()
	g.seed = 3
	g.frequency = 0.02
	g.octaves = 5
	g.height = 20.0
	g.sea_level = -4.0
	check(t.generate(g), "generated from a TerrainGenerator")
	check(first == t.heights, "generator = generate_noise with the same settings")
	expect_error("TerrainGenerator.octaves must be in [1, 32], got 0")
	g.octaves = 0
	expect_error("TerrainGenerator.frequency must be in (0, 1000], got NaN")
	g.frequency = NAN
	expect_error("TerrainGenerator.noise_type must be in [0, 3]")
	g.noise_type = 9
	check(g.octaves == 5 and g.frequency == 0.02 and g.noise_type == 0, "bad settings keep the previous values")
	expect_error("TerrainData.generate: generator must be a TerrainGenerator, got null")
	check(not t.generate(null), "null generator refused")
	check(first == t.heights, "nothing changed")


var _regions: Array[Rect2i] = []


func _on_region(r: Rect2i) -> void:
	_regions.append(r)


func test_region_edit_updates_data_texture_and_signals() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(16, 12)
	_ramp(t)
	var tex := t.get_data_texture()
	var img := t.get_data_image()
	var changed := [0]
	t.changed.connect(func(): changed[0] += 1)
	t.region_changed.connect(_on_region)
	var vals := PackedFloat32Array([1, 2, 3, 4, 5, 6])
	check(t.set_heights_region(Rect2i(4, 5, 3, 2), vals), "edit accepted")
	check_eq(_regions, [Rect2i(3, 4, 5, 4)] as Array[Rect2i], "dirty region grown by the slope stencil")
	check_eq(changed[0], 1, "changed emitted")
	check_eq(t.get_heights_region(Rect2i(4, 5, 3, 2)), vals, "heights written")
	check(t.get_data_texture() == tex, "texture object kept")
	check_eq(t.get_data_image().get_pixel(5, 5).r, 2.0, "image updated in place")
	check(t.get_data_image() == img, "image object kept")
	# The derived data equals a full recompute.
	var fresh := TerrainData.new()
	fresh.size = t.size
	fresh.heights = t.heights
	check(fresh.get_data_image().get_data() == img.get_data(), "region update equals full recompute")
	check_eq(t.get_height(Vector2(5.5, 5.5)), 2.0, "get_height sees the edit")


func test_resource_round_trips_are_bit_exact() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(33, 17)
	t.spacing = 2.5
	t.generate_noise(11, 0.07, 4, 2.0, 0.5, 9.0, -1e9, 0)
	var h := t.heights
	h[5] = 1.0e-38
	h[6] = -123456.789
	t.heights = h
	var holes := PackedByteArray([1, 0, 1, 1, 0, 0])
	t.set_holes_region(Rect2i(4, 5, 3, 2), holes)
	for ext in ["tres", "res"]:
		var path: String = "user://wt_roundtrip." + ext
		check_eq(ResourceSaver.save(t, path), OK, "save " + ext)
		var back: TerrainData = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
		check(back != null, "load " + ext)
		if back:
			check_eq(back.size, t.size, ext + " size")
			check_eq(back.spacing, 2.5, ext + " spacing")
			check(back.heights.to_byte_array() == t.heights.to_byte_array(), ext + " heights bit-exact")
			check(back.control == t.control and back.control.size() == 33 * 17, ext + " control data kept")
			check(back.get_holes_region(Rect2i(4, 5, 3, 2)) == holes, ext + " holes kept")


func test_holes() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(16, 16)
	t.generate_noise(3, 0.1, 3, 2.0, 0.5, 6.0, -1e9, 0)
	check(t.control.is_empty(), "no control data until something is painted")
	_regions.clear()
	t.region_changed.connect(_on_region)
	check(t.set_holes_region(Rect2i(5, 6, 2, 1), PackedByteArray([1, 1])), "holes set")
	check_eq(_regions, [Rect2i(4, 5, 4, 3)] as Array[Rect2i], "region_changed with the patches around")
	t.region_changed.disconnect(_on_region)
	# Oracle: the square between samples split along its (x + 1, z)-(x, z + 1) diagonal; a triangle with a
	# hole sample at a corner is a hole.
	var marks := {Vector2i(5, 6): true, Vector2i(6, 6): true}
	var n_hole := 0
	var bad := 0
	for j in 60:
		for i in 60:
			var p := Vector2(3.03 + i * 0.1, 3.07 + j * 0.1)
			var s := p - Vector2(0.5, 0.5)
			var c := Vector2i(floori(s.x), floori(s.y))
			var f := s - Vector2(c)
			var corners := [c + Vector2i(1, 0), c + Vector2i(0, 1), c if f.x + f.y < 1.0 else c + Vector2i(1, 1)]
			var want := corners.any(func(k): return marks.has(k))
			n_hole += int(want)
			bad += int(t.is_hole(p) != want) + int(is_nan(t.get_height(p)) != want)
	check_eq(bad, 0, "is_hole and get_height follow the triangle rule (%d of 3600 points in holes)" % n_hole)
	check(n_hole > 300, "holes tested")
	check(not t.is_hole(Vector2(1, 1)) and is_finite(t.get_height(Vector2(1, 1))), "ground elsewhere")
	check_eq(t.get_holes_region(Rect2i(4, 6, 4, 1)), PackedByteArray([0, 1, 1, 0]), "marks read back")
	# New heights of the same size keep the holes; clearing removes them.
	t.generate_noise(4, 0.1, 3, 2.0, 0.5, 6.0, -1e9, 0)
	check(t.is_hole(Vector2(6.5, 6.5)), "holes survive new heights")
	t.set_holes_region(Rect2i(5, 6, 2, 1), PackedByteArray([0, 0]))
	check(not t.is_hole(Vector2(6.5, 6.5)) and is_finite(t.get_height(Vector2(6.5, 6.5))), "holes cleared")
	check(t.control.is_empty(), "no hole left: no control data stored")
	expect_error("TerrainData.set_holes_region: holes must hold region.size.x * region.size.y = 2 values, got 3")
	check(not t.set_holes_region(Rect2i(5, 6, 2, 1), PackedByteArray([1, 1, 1])), "wrong length refused")
	expect_error("TerrainData.control must hold size.x * size.y = 256 values, got 3 (or be empty)")
	t.control = PackedInt32Array([1, 2, 3])
	check_eq(t.control.size(), 0, "control kept")


func _roundtrip(t: TerrainData, file: String, lo: float, hi: float, bits: int, raw_width: int) -> PackedFloat32Array:
	var path := OS.get_user_data_dir().path_join(file)
	check_eq(t.export_heightmap(path, lo, hi, bits), OK, "export " + file)
	var back := TerrainData.new()
	check_eq(back.import_heightmap(path, lo, hi, raw_width), OK, "import " + file)
	check_eq(back.size, t.size, file + " size")
	return back.heights


func _max_err(a: PackedFloat32Array, b: PackedFloat32Array) -> float:
	var m := 0.0
	for i in mini(a.size(), b.size()):
		m = worst_of(m, absf(a[i] - b[i]))
	return m if a.size() == b.size() else INF


func test_heightmap_file_round_trips() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(50, 21)
	t.generate_noise(5, 0.05, 5, 2.0, 0.5, 30.0, -1e9, 0)
	var r := t.get_height_range()
	var span := r.y - r.x
	check(_roundtrip(t, "wt.r32", 0, 0, 0, 50) == t.heights, "r32 lossless")
	check(_roundtrip(t, "wt.exr", 0, 0, 0, 0) == t.heights, "exr lossless")
	check(_max_err(_roundtrip(t, "wt.r16", r.x, r.y, 0, 50), t.heights) <= span / 65535.0, "r16 within 1/65535 of the range")
	var png16 := _roundtrip(t, "wt16.png", r.x, r.y, 16, 0)
	check(_max_err(png16, t.heights) <= span / 65535.0, "png16 within 1/65535 of the range: %s" % _max_err(png16, t.heights))
	check(_max_err(_roundtrip(t, "wt8.png", r.x, r.y, 8, 0), t.heights) <= span / 255.0, "png8 within 1/255 of the range")
	# Godot's own loader would have reduced the 16-bit file to 8 bits: many more distinct values survive here.
	var distinct := {}
	for v in png16:
		distinct[v] = true
	check(distinct.size() > 300, "16-bit precision kept (%d distinct heights)" % distinct.size())


func test_image_import() -> void:
	var img := Image.create(6, 4, false, Image.FORMAT_RF)
	img.set_pixel(2, 1, Color(-7.25, 0, 0))
	var t := TerrainData.new()
	check(t.import_image(img, 0, 1), "RF image")
	check_eq(t.size, Vector2i(6, 4), "size from image")
	check_eq(t.heights[1 * 6 + 2], -7.25, "RF heights as they are")
	var rgb := Image.create(3, 2, false, Image.FORMAT_RGB8)
	rgb.set_pixel(1, 1, Color8(255, 0, 0))
	check(t.import_image(rgb, 10, 20), "RGB8 image")
	check_eq(t.heights[4], 20.0, "red channel mapped to max_height (document 004)")
	check_eq(t.heights[0], 10.0, "black is min_height")
	var half := Image.create(2, 2, false, Image.FORMAT_RH)
	half.set_pixel(1, 0, Color(3.5, 0, 0))
	check(t.import_image(half, 0, 1), "RH image")
	check_eq(t.heights[1], 3.5, "RH heights")
	check_eq(t.export_image().get_format(), Image.FORMAT_RF, "export_image format")


func _check_kept(t: TerrainData, before: PackedFloat32Array, size: Vector2i, what: String) -> void:
	check(t.heights == before, what + ": heights kept")
	check_eq(t.size, size, what + ": size kept")


func test_bad_sizes_and_heights() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(8, 8)
	_ramp(t)
	var before := t.heights
	for s in [Vector2i(0, 5), Vector2i(-3, 4), Vector2i(100000, 100000), Vector2i(16385, 1)]:
		expect_error("size must be at least 1 x 1 samples, at most 16384 on a side and at most 67108864 samples in all (sample_budget), got %d x %d" % [s.x, s.y])
		t.size = s
		_check_kept(t, before, Vector2i(8, 8), "size %s" % s)
	expect_error("heights must hold size.x * size.y = 64 values, got 3")
	t.heights = PackedFloat32Array([1, 2, 3])
	_check_kept(t, before, Vector2i(8, 8), "short heights")
	var nan_h := before.duplicate()
	nan_h[9] = NAN
	expect_error("heights must be finite, within ±1000000000; value 9 is NaN")
	t.heights = nan_h
	_check_kept(t, before, Vector2i(8, 8), "NaN heights")
	nan_h[9] = INF
	expect_error("heights must be finite, within ±1000000000; value 9 is inf")
	t.heights = nan_h
	_check_kept(t, before, Vector2i(8, 8), "inf heights")
	expect_error("spacing must be a number in [0.001, 1000000], got 0")
	t.spacing = 0.0
	expect_error("spacing must be a number in [0.001, 1000000], got NaN")
	t.spacing = NAN
	check_eq(t.spacing, 1.0, "spacing kept")
	expect_error("sample_budget must be >= 1, got 0")
	t.sample_budget = 0
	t.sample_budget = 100
	expect_error("at most 100 samples in all (sample_budget), got 11 x 10")
	t.size = Vector2i(11, 10)
	_check_kept(t, before, Vector2i(8, 8), "over budget")


func test_bad_regions() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(8, 8)
	_ramp(t)
	var before := t.heights
	expect_error("region (6, 0, 3 x 1) must lie inside the 8 x 8 samples of the terrain")
	check(not t.set_heights_region(Rect2i(6, 0, 3, 1), PackedFloat32Array([1, 2, 3])), "out of range refused")
	expect_error("values must hold region.size.x * region.size.y = 4 values, got 3")
	check(not t.set_heights_region(Rect2i(0, 0, 2, 2), PackedFloat32Array([1, 2, 3])), "wrong length refused")
	expect_error("values must be finite, within ±1000000000; value 1 is NaN")
	check(not t.set_heights_region(Rect2i(0, 0, 2, 1), PackedFloat32Array([1, NAN])), "NaN refused")
	_check_kept(t, before, Vector2i(8, 8), "bad regions")


func test_non_finite_positions() -> void:
	var t := TerrainData.new()
	_ramp(t)
	check(is_nan(t.get_height(Vector2(NAN, 3))), "NaN position gives NaN")
	check(is_nan(t.get_height(Vector2(2, INF))), "infinite position gives NaN")
	check(is_nan(t.get_normal(Vector2(NAN, NAN)).y), "NaN normal")
	var hs := t.get_heights(PackedVector2Array([Vector2(1, 1), Vector2(NAN, 0)]))
	check(not is_nan(hs[0]) and is_nan(hs[1]), "batch: NaN only where the position is")
	check(is_finite(t.get_height(Vector2(1e30, -1e30))), "far positions clamp")


func test_bad_files() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(8, 8)
	_ramp(t)
	var before := t.heights
	var dir := OS.get_user_data_dir()
	var f := FileAccess.open(dir.path_join("bad.r16"), FileAccess.WRITE)
	f.store_buffer(PackedByteArray([1, 2, 3, 4, 5, 6, 7]))
	f.close()
	expect_error("raw 16-bit file of 7 bytes is not a whole number of rows of width 2 (4 bytes per row): truncated or wrong width")
	check(t.import_heightmap(dir.path_join("bad.r16"), 0, 1, 2) != OK, "truncated raw")
	f = FileAccess.open(dir.path_join("bad.png"), FileAccess.WRITE)
	f.store_buffer("this is not a png".to_utf8_buffer())
	f.close()
	expect_error("not a readable PNG")
	check(t.import_heightmap(dir.path_join("bad.png"), 0, 1, 0) != OK, "corrupt png")
	expect_error("unsupported file type '.jpg'")
	check(t.import_heightmap(dir.path_join("x.jpg"), 0, 1, 0) != OK, "unsupported extension")
	expect_error("no file at")
	check(t.import_heightmap(dir.path_join("missing.png"), 0, 1, 0) != OK, "missing file")
	expect_error("width must be >= 1 to read a raw 16-bit file")
	check(t.import_heightmap(dir.path_join("bad.r16"), 0, 1, 0) != OK, "raw without width")
	var odd := Image.create(4, 4, false, Image.FORMAT_RGBA4444)
	expect_error("unsupported image format")
	check(not t.import_image(odd, 0, 1), "unsupported image format")
	expect_error("bit_depth must be 8 or 16, got 12")
	check(t.export_heightmap(dir.path_join("x.png"), 0, 1, 12) != OK, "bad bit depth")
	expect_error("TerrainData.export_heightmap: cannot write /nonexistent-dir/x.exr")
	check(t.export_heightmap("/nonexistent-dir/x.exr", 0, 1, 16) != OK, "unwritable EXR names the file")
	_check_kept(t, before, Vector2i(8, 8), "bad files")


func test_raycast_meets_the_drawn_surface() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(96, 80)
	t.spacing = 0.75
	t.generate_noise(6, 0.09, 4, 2.0, 0.5, 12.0, -1e9, 0)
	var holes := PackedByteArray()
	holes.resize(36)
	holes.fill(1)
	t.set_holes_region(Rect2i(40, 30, 6, 6), holes)
	var rng := RandomNumberGenerator.new()
	rng.seed = 11
	var hits := 0
	var worst := 0.0
	for i in 300:
		var o := Vector3(rng.randf_range(0, 72), rng.randf_range(15, 40), rng.randf_range(0, 60))
		var d := Vector3(rng.randf_range(-1, 1), rng.randf_range(-1.5, -0.2), rng.randf_range(-1, 1))
		var hit := t.raycast(o, d)
		if is_nan(hit.x):
			continue
		hits += 1
		var h := t.get_height(Vector2(hit.x, hit.z))
		worst = worst_of(worst, absf(h - hit.y))
		# The ray got there without dipping under the surface before.
		var along := (hit - o).length() / d.length()
		var under := 0
		for k in range(1, 40):
			var p := o + d * (along * k / 40.0)
			var hp := t.get_height(Vector2(p.x, p.z))
			under += int(is_finite(hp) and p.y < hp - 1e-3)
		check_eq(under, 0, "ray %d reaches its hit from above" % i)
	check(hits > 120, "most rays hit (%d)" % hits)
	check(worst < 1e-4, "hits lie on the surface (worst %s)" % worst)
	var hole_center := Vector2((43 + 0.5) * 0.75, (33 + 0.5) * 0.75)
	check(is_nan(t.raycast(Vector3(hole_center.x, 50, hole_center.y), Vector3.DOWN).x), "straight down through a hole: nothing")
	check(is_nan(t.raycast(Vector3(-10, 50, 10), Vector3(-1, -1, 0)).x), "outside: nothing")
	check(is_nan(t.raycast(Vector3(10, 50, 10), Vector3.UP).x), "looking up: nothing")
	var down := t.raycast(Vector3(10.3, 50, 12.9), Vector3.DOWN)
	check_eq(down.y, t.get_height(Vector2(10.3, 12.9)), "straight down: exactly get_height")


func test_brushes() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(64, 64)
	t.generate_noise(2, 0.05, 3, 2.0, 0.5, 6.0, -1e9, 0)
	var before := t.heights
	var b := TerrainBrush.new()
	b.tool = TerrainBrush.RAISE
	b.size = 10.0
	b.strength = 4.0
	b.hardness = 0.5
	var h0 := t.get_heights_region(Rect2i(30, 30, 1, 1))[0]
	var r := t.apply_brush(b, Vector2(30.5, 30.5), 0.25)
	check(r.has_point(Vector2i(30, 30)) and r.size.x <= 13, "changed rectangle around the dab: %s" % r)
	check_near(t.get_heights_region(Rect2i(30, 30, 1, 1))[0], h0 + 1.0, 1e-4, "raised by strength x delta at the centre")
	var outside := 0
	var after := t.heights
	for z in 64:
		for x in 64:
			if not r.has_point(Vector2i(x, z)):
				outside += int(after[z * 64 + x] != before[z * 64 + x])
	check_eq(outside, 0, "nothing outside the rectangle changed")
	b.tool = TerrainBrush.LOWER
	t.apply_brush(b, Vector2(30.5, 30.5), 0.25)
	var back := t.heights
	var worst := 0.0
	for i in back.size():
		worst = worst_of(worst, absf(back[i] - before[i]))
	check(worst < 1e-5, "raise then lower restores the heights (worst %s)" % worst)
	# A falloff curve instead of hardness; holes.
	var c := Curve.new()
	c.add_point(Vector2(0, 1))
	c.add_point(Vector2(1, 0))
	b.falloff = c
	b.tool = TerrainBrush.HOLE_ADD
	t.apply_brush(b, Vector2(20.5, 40.5), 0.1)
	check(t.is_hole(Vector2(20.5, 40.5)) and is_nan(t.get_height(Vector2(20.5, 40.5))), "hole brush opens a hole")
	b.tool = TerrainBrush.HOLE_REMOVE
	t.apply_brush(b, Vector2(20.5, 40.5), 0.1)
	check(not t.is_hole(Vector2(20.5, 40.5)), "and closes it")
	b.tool = TerrainBrush.FLATTEN
	b.falloff = null
	b.height = 2.0
	for i in 100:
		t.apply_brush(b, Vector2(45.5, 12.5), 0.1)
	check_near(t.get_height(Vector2(45.5, 12.5)), 2.0, 1e-3, "flatten converges to the height")
	check_eq(t.apply_brush(b, Vector2(-500, -500), 0.1), Rect2i(), "outside the terrain: nothing")
	expect_error("TerrainBrush.size must be a number in (0, 100000], got 0")
	b.size = 0.0
	expect_error("TerrainBrush.tool must be in [0, 14] (RAISE .. ERODE)")
	b.tool = 15
	expect_error("TerrainData.apply_brush: delta must be a number in [0, 10]")
	t.apply_brush(b, Vector2(10, 10), NAN)
	expect_error("TerrainData.apply_brush: brush must be a TerrainBrush, got null")
	t.apply_brush(null, Vector2(10, 10), 0.1)
	check_eq(b.size, 10.0, "bad size kept the old one")


func test_generate_async_matches_generate() -> void:
	var g := TerrainGenerator.new()
	g.seed = 11
	g.octaves = 6
	var want := TerrainData.new()
	want.size = Vector2i(512, 384)
	check(want.generate(g), "sync generation")
	var t := TerrainData.new()
	t.size = Vector2i(512, 384)
	check_eq(t.get_generation_progress(), -1.0, "no generation running")
	check(t.generate_async(g), "started")
	expect_error("TerrainData.generate_async: a generation is running; finish or cancel it first")
	check(not t.generate_async(g), "a second start is refused while one runs")
	var seen := PackedFloat64Array()
	var frames_waited := 0
	while not t.finish_generation():
		seen.append(t.get_generation_progress())
		await tree.process_frame
		frames_waited += 1
		if frames_waited > 3000:
			break
	check(frames_waited <= 3000, "finished within 3000 frames")
	for k in seen.size():
		check(seen[k] >= 0.0 and seen[k] <= 1.0, "progress %s within 0..1" % seen[k])
		if k > 0:
			check(seen[k] >= seen[k - 1], "progress never goes back")
	check(t.heights == want.heights, "async heights equal generate's")
	check_eq(t.get_generation_progress(), -1.0, "none running after finish")
	# A cancelled generation keeps the old heights; the terrain stays usable.
	var big := TerrainData.new()
	big.size = Vector2i(4096, 4096)
	g.octaves = 12
	check(big.generate_async(g), "big started")
	check(big.get_generation_progress() < 1.0, "still running")
	big.cancel_generation()
	var waited := 0
	while not big.finish_generation() and waited < 3000:
		await tree.process_frame
		waited += 1
	check_eq(big.get_height_range(), Vector2(0, 0), "cancelled: heights kept (flat)")
	check(big.generate_async(g), "a new generation may start after a cancel")
	big.cancel_generation()
	# Dropping a terrain mid-generation stops its worker (no hang at exit).
	big = null


func test_brush_image_shapes_the_dab() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(32, 32)
	var b := TerrainBrush.new()
	b.size = 10.0
	b.hardness = 1.0
	b.strength = 2.0
	# No alpha: brightness is the stamp. Left half white, right half black.
	var img := Image.create_empty(2, 1, false, Image.FORMAT_RGB8)
	img.set_pixel(0, 0, Color.WHITE)
	img.set_pixel(1, 0, Color.BLACK)
	b.image = img
	t.apply_brush(b, Vector2(16, 16), 0.5)
	check(t.get_height(Vector2(12.5, 16.5)) > 0.9, "the white half raises")
	check_eq(t.get_heights_region(Rect2i(19, 14, 3, 5)).count(0.0), 15, "the black half does not")
	# With alpha, the alpha is the stamp.
	var a := Image.create_empty(1, 2, false, Image.FORMAT_RGBA8)
	a.set_pixel(0, 0, Color(0, 0, 0, 0))
	a.set_pixel(0, 1, Color(0, 0, 0, 1))
	b.image = a
	var before := t.get_heights_region(Rect2i(14, 11, 5, 3))
	t.apply_brush(b, Vector2(16, 16), 0.5)
	check(t.get_heights_region(Rect2i(14, 11, 5, 3)) == before, "transparent top half untouched")
	check(t.get_height(Vector2(16.5, 20.5)) > 0.9, "opaque bottom half raised")
	expect_error("TerrainBrush.image must be 1 x 1 to 2048 x 2048 texels, got 4096 x 1; keeping the previous image")
	b.image = Image.create_empty(4096, 1, false, Image.FORMAT_L8)
	check(b.image == a, "image kept")
	b.image = null
	t.apply_brush(b, Vector2(8, 8), 0.5)
	check(t.get_height(Vector2(10.5, 8.5)) > 0.9, "no image: a round dab again")


func test_brush_image_turns() -> void:
	# An uneven 9 × 9 stamp, and the same stamp turned clockwise (from +X toward +Z) on the CPU.
	var img := Image.create_empty(9, 9, false, Image.FORMAT_L8)
	for y in 9:
		for x in 9:
			img.set_pixel(x, y, Color.from_hsv(0, 0, float((x * 37 + y * 11) % 9) / 8.0))
	var turned := img.duplicate()
	turned.rotate_90(CLOCKWISE)
	var a := TerrainBrush.new()
	a.size = 18.0
	a.hardness = 1.0
	a.strength = 10.0
	a.image = img
	a.image_rotation = 90.0
	var b := a.duplicate()
	b.image = turned
	b.image_rotation = 0.0
	var ta := TerrainData.new()
	ta.size = Vector2i(64, 64)
	var tb := TerrainData.new()
	tb.size = Vector2i(64, 64)
	ta.apply_brush(a, Vector2(32, 32), 0.1)
	tb.apply_brush(b, Vector2(32, 32), 0.1)
	var worst := 0.0
	var ha := ta.heights
	var hb := tb.heights
	for i in ha.size():
		worst = worst_of(worst, absf(ha[i] - hb[i]))
	check(ta.get_height_range().y > 0.1, "the dab raised ground")
	check(worst < 1e-4, "a 90° turn dabs like the image turned clockwise (worst %f)" % worst)
	expect_error("TerrainBrush.image_rotation must be degrees in [-3600, 3600], got inf; keeping 90")
	a.image_rotation = INF
	check_eq(a.image_rotation, 90.0, "kept")


func test_import_heightmap_async_matches_import() -> void:
	var src := TerrainData.new()
	src.size = Vector2i(80, 50)
	src.generate_noise(4, 0.05, 3, 2.0, 0.5, 20.0, -1e9, 0)
	var file := OS.get_user_data_dir().path_join("async_import.r16")
	check_eq(src.export_heightmap(file, -5.0, 25.0, 16), OK, "export")
	var sync := TerrainData.new()
	check_eq(sync.import_heightmap(file, -5.0, 25.0, 80), OK, "sync import")
	var t := TerrainData.new()
	check_eq(t.get_import_progress(), -1.0, "no import yet")
	check_eq(t.import_heightmap_async(file, -5.0, 25.0, 80), OK, "async import started")
	expect_error("TerrainData.import_heightmap_async: an import is running; finish or cancel it first")
	check_eq(t.import_heightmap_async(file, -5.0, 25.0, 80), ERR_BUSY, "a second one is refused")
	check(t.get_import_progress() >= 0.0, "progress while it runs")
	var n := 0
	while not t.finish_import() and n < 5000:
		OS.delay_msec(1)
		n += 1
	check(n < 5000, "the import ends")
	check_eq(t.size, Vector2i(80, 50), "size from the file")
	check(t.heights == sync.heights, "the same heights as import_heightmap")
	check_eq(t.get_import_progress(), -1.0, "done")
	# Cancelled: nothing changes.
	var other := TerrainData.new()
	check_eq(other.import_heightmap_async(file, -5.0, 25.0, 80), OK, "started again")
	other.cancel_import()
	n = 0
	while not other.finish_import() and n < 5000:
		OS.delay_msec(1)
		n += 1
	check(n < 5000, "a cancelled import ends")
	check_eq(other.size, Vector2i(64, 64), "a cancelled import keeps the old size")
	expect_error("TerrainData.import_heightmap_async: no file at")
	check_eq(other.import_heightmap_async("user://missing.r16", 0.0, 1.0, 8), ERR_FILE_NOT_FOUND, "a missing file is refused at once")
	expect_error("is not a whole number of rows")
	check_eq(other.import_heightmap_async(file, -5.0, 25.0, 81), OK, "a mis-described raw file starts")
	n = 0
	while not other.finish_import() and n < 5000:
		OS.delay_msec(1)
		n += 1
	check(n < 5000, "a failing import ends")
	check_eq(other.size, Vector2i(64, 64), "and fails without changing anything")
