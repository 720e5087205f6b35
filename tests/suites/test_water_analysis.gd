extends "res://wt_test.gd"
## Lakes, rivers and flow from GDScript (TerrainData and TerrainRegions `find_lakes`, `find_rivers`,
## `get_flow_map`): three bowls with known rims give three lakes at their rims with their areas, a sea
## takes the lower one; a river follows a valley's floor and can carve it; the flow map conserves the
## catchment; a region map answers as its TerrainData; bad input is refused by name.


## A plain at 10 with paraboloid bowls (cx, cz, r, depth, rim): each crosses 10 + rim at r, rises to a
## crest beyond, with a spillway east at exactly 10 + rim.
func _bowls(n: int, list: Array) -> TerrainData:
	var h := PackedFloat32Array()
	h.resize(n * n)
	h.fill(10.0)
	for z in n:
		for x in n:
			for b: Array in list:
				var d := Vector2(x - b[0], z - b[1]).length()
				var r: float = b[2]
				var level: float = 10.0 + b[4]
				var bowl := func(dd: float) -> float: return level - (b[3] + b[4]) * (1.0 - (dd / r) * (dd / r))
				if d < r + 5.0 and z == b[1] and x > b[0] + r:
					h[z * n + x] = level
				elif d < r + 3.0:
					h[z * n + x] = bowl.call(d)
				elif d < r + 5.0:
					h[z * n + x] = bowl.call(r + 3.0)
	var t := TerrainData.new()
	t.size = Vector2i(n, n)
	t.heights = h
	return t


const BOWLS := [[70, 70, 40.0, 6.0, 3.0], [180, 80, 30.0, 4.0, 1.0], [120, 190, 25.0, 8.0, 2.5]]


func test_three_bowls_give_three_lakes_at_their_rims() -> void:
	var t := _bowls(256, BOWLS)
	var lakes := t.find_lakes(Rect2i(), 10.0, 0.1)
	check_eq(lakes.size(), 3, "three lakes")
	for b: Array in BOWLS:
		var centre := Vector2(b[0] + 0.5, b[1] + 0.5)
		var found := lakes.filter(func(l): return l["point"].distance_to(centre) <= 1.5)
		if not check_eq(found.size(), 1, "a lake at %s" % centre):
			continue
		var l: Dictionary = found[0]
		check_near(l["level"], 10.0 + b[4], 0.01, "spill level")
		var area: float = PI * b[2] * b[2]
		check(absf(l["area"] - area) <= 0.01 * area, "area %.1f m² vs π r² %.1f" % [l["area"], area])
		check_near(l["depth"], b[3] + b[4], 0.05, "depth")
		check((l["bounds"] as Rect2).has_point(centre), "bounds hold the lake")
	var with_sea := t.find_lakes(Rect2i(), 10.0, 0.1, 11.5)
	check_eq(with_sea.size(), 2, "a sea at 11.5 takes the lake whose rim is at 11")
	# Twice the spacing: four times the area.
	t.spacing = 2.0
	var big := t.find_lakes(Rect2i(), 10.0, 0.1)
	check_near(big[0]["area"], lakes[0]["area"] * 4.0, 1e-3, "areas in terrain units²")


## A plane falling towards z = 0 with a V valley along sample column 64.
func _valley(n: int) -> TerrainData:
	var h := PackedFloat32Array()
	for z in n:
		for x in n:
			h.append(0.05 * z + 0.2 * absf(x - 64))
	var t := TerrainData.new()
	t.size = Vector2i(n, n)
	t.heights = h
	return t


func test_a_river_follows_the_valley_floor_and_carves_it() -> void:
	var t := _valley(128)
	var rivers := t.find_rivers(Rect2i(), 300.0)
	if not check(rivers.size() >= 1, "a river"):
		return
	var c: Curve3D = rivers[0]
	check(c.point_count >= 2, "with points (%d)" % c.point_count)
	var worst := 0.0
	for i in c.point_count:
		var p := c.get_point_position(i)
		worst = worst_of(worst, absf(p.x - 64.5))
		worst = worst_of(worst, absf(p.y - t.get_height(Vector2(p.x, p.z))) if i > 0 else 0.0)
	check(worst <= 1.0, "on the valley floor, on the ground (worst %.3f)" % worst)
	check(c.get_point_position(0).z > c.get_point_position(c.point_count - 1).z, "upstream first")
	check(c.get_point_position(c.point_count - 1).z < 1.0, "down to the low edge")
	# Its bed: a TerrainPath carving 1.5 m under the curve.
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	var bed := TerrainPath.new()
	bed.curve = c
	bed.mode = TerrainPath.MODE_CARVE
	bed.depth = 1.5
	bed.width = 3.0
	bed.falloff_width = 2.0
	tn.add_child(bed)
	bed.apply_now()
	check_near(t.get_height(Vector2(64.5, 60.5)), 0.05 * 60 - 1.5, 0.05, "the bed carved under the river")
	tn.queue_free()


func test_the_flow_map_conserves_the_catchment() -> void:
	var t := _valley(96)
	var img := t.get_flow_map(Rect2i())
	if not check(img != null, "a flow map"):
		return
	check_eq(img.get_size(), Vector2i(96, 96), "a pixel a sample")
	var out := 0.0
	for z in 96:
		for x in 96:
			var c := img.get_pixel(x, z)
			if c.r == 0.0 and c.g == 0.0:
				out += c.b
	check_near(out, 96.0 * 96.0, 0.5, "what leaves at the outlets is every sample's area")
	var slope := img.get_pixel(40, 50)
	check(slope.r > 0.5, "on the valley's west side water runs east, towards the floor (%s)" % slope)
	var floor := img.get_pixel(64, 50)
	check(floor.g < -0.9 and floor.b > 200.0, "on the floor it runs down the valley, gathering (%s)" % floor)


func test_a_region_map_answers_as_its_terrain_data() -> void:
	var t := _bowls(192, [[60, 60, 30.0, 5.0, 2.0], [140, 130, 25.0, 3.0, 1.5]])
	var folder := "user://test_water_analysis_regions"
	check_eq(t.save_regions(folder, 64, true), OK, "regions written")
	var regions := TerrainRegions.open(folder)
	var a := t.find_lakes(Rect2i(), 1.0, 0.0)
	var b := regions.find_lakes(Rect2i(0, 0, 192, 192), 1.0, 0.0)
	check_eq(b.size(), a.size(), "as many lakes")
	for i in mini(a.size(), b.size()):
		check_eq(b[i]["level"], a[i]["level"], "lake %d level" % i)
		check_eq(b[i]["area"], a[i]["area"], "lake %d area" % i)
	# A part of the map: only the lake inside it.
	var part := regions.find_lakes(Rect2i(20, 20, 90, 90), 1.0, 0.0)
	check_eq(part.size(), 1, "one lake in the part")


func test_bad_input_is_refused() -> void:
	var t := _valley(32)
	expect_error("TerrainData.find_lakes: sea_level must be a number")
	check(t.find_lakes(Rect2i(), 1.0, 0.0, NAN).is_empty(), "NaN sea level")
	expect_error("TerrainData.find_lakes: min_area must be ≥ 0, got -1")
	check(t.find_lakes(Rect2i(), -1.0, 0.0).is_empty(), "negative area")
	expect_error("TerrainData.find_rivers: min_catchment must be at least two samples' area")
	check(t.find_rivers(Rect2i(), 0.5).is_empty(), "tiny catchment")
	expect_error("TerrainData: region")
	check(t.get_flow_map(Rect2i(30, 30, 10, 10)) == null, "an area off the map")
	var regions := TerrainRegions.new()
	expect_error("TerrainRegions.find_lakes: no folder is open")
	check(regions.find_lakes(Rect2i(0, 0, 16, 16), 1.0, 0.0).is_empty(), "an empty region map")
	var folder := "user://test_water_analysis_bad"
	check_eq(t.save_regions(folder, 16, true), OK, "regions written")
	regions = TerrainRegions.open(folder)
	expect_error("TerrainRegions.find_lakes: area must hold 2 × 2 to 2048² samples")
	check(regions.find_lakes(Rect2i(), 1.0, 0.0).is_empty(), "a region map needs an area")
	check(t.find_lakes(Rect2i(), 0.0, 0.0).is_empty(), "a tilted plane has no lake")
