extends "res://wt_test.gd"
## Erosion: TerrainData.erode (droplets, then thermal passes) conserves material, changes only its region,
## is the same for a seed; erode_async reports progress and cancel keeps the heights; the ERODE brush
## erodes under the dab only; the generator's erosion filter gives a TerrainData the same heights as an
## endless world at the same points; bad settings are refused.

const SIZE := 192


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(4, 1.0 / 60.0, 5, 2.0, 0.5, 30.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _sum(h: PackedFloat32Array) -> float:
	var s := 0.0
	for v in h:
		s += v
	return s


func _settings(droplets := 20000) -> TerrainErosion:
	var e := TerrainErosion.new()
	e.droplets = droplets
	e.seed = 7
	return e


func test_erode_conserves_material_in_its_region_and_repeats_for_a_seed() -> void:
	var t := _data()
	var before := t.heights
	var r := t.erode(_settings(), Rect2i())
	var after := t.heights
	check(float(r.get("eroded", 0.0)) > 50.0, "material moved: %s" % r)
	var lost := _sum(before) - _sum(after)
	var carried: float = r.get("carried_off", -1.0)
	print("erosion: eroded %.1f, deposited %.1f, carried off %.1f, heights lost %.1f" % [r["eroded"], r["deposited"], carried, lost])
	check(absf(lost - carried) <= 0.001 * float(r["eroded"]), "heights lost = sediment carried off the map (within 0.1 %%): %f vs %f" % [lost, carried])
	var again := _data()
	again.erode(_settings(), Rect2i())
	check(again.heights == after, "the same seed gives the same heights")
	# A region: nothing outside it changes.
	var t2 := _data()
	var orig := t2.heights
	var region := Rect2i(40, 50, 80, 60)
	t2.erode(_settings(5000), region)
	var outside := 0
	var inside := 0
	var h2 := t2.heights
	for z in SIZE:
		for x in SIZE:
			var i := z * SIZE + x
			if region.has_point(Vector2i(x, z)):
				inside += int(h2[i] != orig[i])
			else:
				outside += int(h2[i] != orig[i])
	check_eq(outside, 0, "samples outside the region changed")
	check(inside > 1000, "the region eroded: %d samples" % inside)


func test_erode_async_reports_progress_and_cancel_keeps_the_heights() -> void:
	var t := _data()
	var orig := t.heights
	check(t.erode_async(_settings(200000), Rect2i()), "started")
	expect_error("an erosion is running")
	check(not t.erode_async(_settings(), Rect2i()), "one at a time")
	t.cancel_erosion()
	while not t.finish_erosion():
		await tree.process_frame
	check(t.heights == orig, "cancelled: heights kept")
	check_eq(t.get_erosion_progress(), -1.0, "none running")
	check(t.erode_async(_settings(20000), Rect2i()), "started again")
	while not t.finish_erosion():
		var p := t.get_erosion_progress()
		check(p >= 0.0 and p <= 1.0, "progress in [0, 1]: %f" % p)
		await tree.process_frame
	var sync := _data()
	sync.erode(_settings(20000), Rect2i())
	check(t.heights == sync.heights, "async gives the same heights as erode")
	check(t.heights != orig, "and changed them")


func test_erode_brush_changes_only_under_the_dab() -> void:
	var t := _data()
	var orig := t.heights
	var b := TerrainBrush.new()
	b.tool = TerrainBrush.ERODE
	b.size = 40.0
	b.strength = 5.0
	var changed := t.apply_brush(b, Vector2(96, 96), 0.5)
	check(changed.size.x > 0, "the dab changed a region: %s" % changed)
	var h := t.heights
	var far := 0
	var near := 0
	for z in SIZE:
		for x in SIZE:
			var d := Vector2(x + 0.5, z + 0.5).distance_to(Vector2(96, 96))
			var moved := h[z * SIZE + x] != orig[z * SIZE + x]
			far += int(moved and d > 21.0 * sqrt(2.0) + 1.0)
			near += int(moved)
	check_eq(far, 0, "nothing moved beyond the dab's square")
	check(near > 100, "the dab eroded: %d samples" % near)


func test_generated_erosion_is_the_same_on_terrain_data_and_endless_worlds() -> void:
	var g := TerrainGenerator.new()
	g.seed = 12
	g.frequency = 1.0 / 70.0
	g.height = 50.0
	g.erosion = 5.0
	g.erosion_scale = 18.0
	g.erosion_detail = 4
	g.erosion_balance = -0.2
	var t := TerrainData.new()
	t.size = Vector2i(96, 96)
	t.generate(g)
	var plain := TerrainData.new()
	plain.size = Vector2i(96, 96)
	g.erosion = 0.0
	plain.generate(g)
	g.erosion = 5.0
	check(t.heights != plain.heights, "the filter changes the heights")
	var tn := TerrainNode.new()
	tn.terrain_generator = g
	var mismatches := 0
	for z in range(0, 96, 7):
		for x in range(0, 96, 5):
			var p := Vector2(x + 0.5, z + 0.5)
			mismatches += int(tn.get_height(p) != t.get_height(p))
	check_eq(mismatches, 0, "endless heights equal the generated TerrainData's at sample centres")
	var far := tn.get_height(Vector2(123456.5, -98765.5))
	check(is_finite(far), "finite 150 km out: %f" % far)
	check_eq(tn.get_height(Vector2(123456.5, -98765.5)), far, "and the same when asked again")
	expect_error("TerrainGenerator.erosion_detail must be in [1, 6]")
	g.erosion_detail = 9
	check_eq(g.erosion_detail, 4, "kept")
	tn.free()


func test_bad_settings_are_refused() -> void:
	var e := TerrainErosion.new()
	expect_error("TerrainErosion.talus must be in (0, 90) degrees")
	e.talus = 95.0
	check_eq(e.talus, 35.0, "talus kept")
	expect_error("TerrainErosion.inertia must be in [0, 1)")
	e.inertia = 1.0
	expect_error("TerrainErosion.droplets must be in [0, 20000000]")
	e.droplets = -1
	var t := _data()
	expect_error("TerrainData.erode: settings must be a TerrainErosion, got null")
	check(t.erode(null, Rect2i()).is_empty(), "null settings: nothing")
	expect_error("TerrainData")
	check(t.erode(e, Rect2i(-10, 0, 20, 20)).is_empty(), "a region outside the terrain: nothing")
