extends "res://wt_test.gd"
## TerrainWater from GDScript: the sea floods what the map's edge reaches below its level and not the
## basins behind a coast; a chosen lake stands at its spill level; the queries agree with get_height
## (water exactly where the ground is below the level); bad input is refused by name.

const N := 200


## A plain at 10 with two paraboloid bowls (rims 13 and 12, spillways east) — `test_water_analysis`'s.
func _terrain() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(N, N)
	var h := PackedFloat32Array()
	h.resize(N * N)
	h.fill(10.0)
	for b: Array in [[50, 50, 25.0, 5.0, 3.0], [140, 140, 25.0, 5.0, 2.0]]:
		for z in N:
			for x in N:
				var d := Vector2(x - b[0], z - b[1]).length()
				var r: float = b[2]
				var level: float = 10.0 + b[4]
				var bowl := func(dd: float) -> float: return level - (b[3] + b[4]) * (1.0 - (dd / r) * (dd / r))
				if d < r + 5.0 and z == b[1] and x > b[0] + r:
					h[z * N + x] = level
				elif d < r + 3.0:
					h[z * N + x] = bowl.call(d)
				elif d < r + 5.0:
					h[z * N + x] = bowl.call(r + 3.0)
	t.heights = h
	return t


func _scene(t: TerrainData) -> Array:
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	var water := TerrainWater.new()
	water.sea_level = 10.5
	water.lake_points = PackedVector2Array([Vector2(50.5, 50.5)])
	tn.add_child(water)
	water.update_water()
	return [tn, water]


func test_the_sea_and_a_chosen_lake() -> void:
	var s := _scene(_terrain())
	var tn: TerrainNode = s[0]
	var water: TerrainWater = s[1]
	check_eq(water.get_lake_levels(), PackedFloat32Array([13.0]), "the lake point's lake stands at its rim")
	check_eq(water.get_body_count(), 2, "the sea and one lake")
	check_near(water.get_water_height(Vector2(50.5, 50.5)), 13.0, 1e-5, "the lake's surface")
	check_near(water.get_water_depth(Vector2(50.5, 50.5)), 13.0 - tn.get_height(Vector2(50.5, 50.5)), 1e-4, "its depth")
	check(is_nan(water.get_water_height(Vector2(140.5, 140.5))), "the other basin, behind its rim, stays dry")
	check_near(water.get_water_height(Vector2(10.5, 180.5)), 10.5, 1e-5, "the sea over the plain")
	check(is_nan(water.get_water_height(Vector2(50.5, 23.0))), "no water on the crest")
	check(water.is_underwater(Vector3(50.5, 12.0, 50.5)), "under the lake's surface")
	check(not water.is_underwater(Vector3(50.5, 13.5, 50.5)), "above it")
	check_near(water.get_water_height(Vector2(-300, 90)), 10.5, 1e-5, "the sea beyond the map")
	# Water exactly where the ground is below the level of the corner rule.
	var mismatches := 0
	for i in 2000:
		var p := Vector2(fmod(i * 7.31, N), fmod(i * 3.77, N))
		var wh := water.get_water_height(p)
		var g := tn.get_height(p)
		if not is_nan(wh) and not (g < wh):
			mismatches += 1
	check_eq(mismatches, 0, "water never stands on ground above it")
	# Raise the sea over the lower rim: the other basin joins the sea (on request).
	water.sea_level = 12.5
	water.update_water()
	check_near(water.get_water_height(Vector2(140.5, 140.5)), 12.5, 1e-5, "a sea above the rim floods the basin")
	tn.queue_free()


func test_bad_input_is_refused() -> void:
	var s := _scene(_terrain())
	var tn: TerrainNode = s[0]
	var water: TerrainWater = s[1]
	expect_error("TerrainWater.sea_level must be within ±1e9, got NaN")
	water.sea_level = NAN
	check_eq(water.sea_level, 10.5, "sea level kept")
	expect_error("TerrainWater.lake_points[1] must be finite")
	water.lake_points = PackedVector2Array([Vector2(1, 1), Vector2(INF, 0)])
	check_eq(water.lake_points.size(), 1, "points kept")
	var loose := TerrainWater.new()
	tree.root.add_child(loose)
	expect_error("TerrainWater: TerrainWater must be a child (or grandchild) of a TerrainNode or a WanderingTerrain")
	check(not loose.update_water(), "no terrain: refused")
	check(is_nan(loose.get_water_height(Vector2.ZERO)), "and no water")
	loose.queue_free()
	water.area = Rect2i(0, 0, 1, 1)
	expect_error("TerrainWater: area must cover 2 × 2 to 2048² samples")
	check(not water.update_water(), "too small an area")
	tn.queue_free()


## A river from find_rivers, its bed carved by a TerrainPath: water at the line's height over the bed,
## flowing downstream at river_speed; none beside it.
func test_a_river_flows_in_its_bed() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(128, 128)
	var h := PackedFloat32Array()
	for z in 128:
		for x in 128:
			h.append(20.0 + 0.05 * z + 0.2 * absf(x - 64))
	t.heights = h
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	var rivers := t.find_rivers(Rect2i(), 300.0)
	if not check(rivers.size() >= 1, "a river"):
		tn.queue_free()
		return
	var bed := TerrainPath.new()
	bed.curve = rivers[0]
	bed.mode = TerrainPath.MODE_CARVE
	bed.depth = 1.5
	bed.width = 4.0
	bed.falloff_width = 2.0
	tn.add_child(bed)
	bed.apply_now()
	var water := TerrainWater.new()
	water.sea = false
	water.rivers = [rivers[0]]
	water.river_width = 8.0
	water.river_speed = 2.0
	tn.add_child(water)
	check(water.update_water(), "updated")
	var p := Vector2(64.5, 60.5)
	var line_y := 20.0 + 0.05 * 60.0
	check_near(water.get_water_height(p), line_y, 0.05, "the surface at the line's height")
	check_near(water.get_water_depth(p), 1.5, 0.06, "over the carved bed")
	var flow := water.get_flow(p)
	check(flow.y < -1.9 and absf(flow.x) < 0.2, "flowing downstream at river_speed: %s" % flow)
	check(is_nan(water.get_water_height(Vector2(80.5, 60.5))), "none on the valley side")
	check_eq(water.get_flow(Vector2(80.5, 60.5)), Vector2.ZERO, "no flow on dry ground")
	check_eq(water.get_body_count(), 1, "one river drawn")
	tn.queue_free()


## Instances and detail stay on dry ground by default; WATER_ONLY puts them under water of the depth asked.
func test_instances_and_detail_know_the_water() -> void:
	var s := _scene(_terrain())
	var tn: TerrainNode = s[0]
	var water: TerrainWater = s[1]
	var dry := TerrainInstanceMesh.new()
	dry.mesh = BoxMesh.new()
	var reeds := TerrainInstanceMesh.new()
	reeds.mesh = BoxMesh.new()
	reeds.water_placement = TerrainInstanceMesh.WATER_ONLY
	reeds.water_depth_max = 1.0
	var grass := TerrainDetailLayer.new()
	grass.view_radius = 150.0
	grass.density = 0.2
	grass.slope_max = 90.0
	var kelp := TerrainDetailLayer.new()
	kelp.view_radius = 150.0
	kelp.density = 0.2
	kelp.slope_max = 90.0
	kelp.water_placement = TerrainDetailLayer.WATER_ONLY
	kelp.water_depth_min = 1.0
	var inst := TerrainInstancer.new()
	inst.meshes = [dry, reeds]
	inst.detail_layers = [grass, kelp]
	tn.add_child(inst)
	var cam := Camera3D.new()
	cam.position = Vector3(N / 2.0, 60, N / 2.0)
	tree.root.add_child(cam)
	cam.make_current()
	inst.scatter(0, Rect2(0, 0, N, N), 2000, 1)
	inst.scatter(1, Rect2(0, 0, N, N), 500, 2)
	inst.update_now()
	var wet_dry := 0
	for tr: Transform3D in inst.get_instances(0, Rect2(0, 0, N, N)):
		wet_dry += int(not is_nan(water.get_water_height(Vector2(tr.origin.x, tr.origin.z))))
	check(inst.get_instance_count(0) > 100, "dry-ground instances placed (%d)" % inst.get_instance_count(0))
	check_eq(wet_dry, 0, "none of them in water")
	var bad_reeds := 0
	for tr: Transform3D in inst.get_instances(1, Rect2(0, 0, N, N)):
		var d := water.get_water_depth(Vector2(tr.origin.x, tr.origin.z))
		bad_reeds += int(not (d > 0.0 and d <= 1.0 + 1e-4))
	check(inst.get_instance_count(1) > 50, "reeds placed (%d)" % inst.get_instance_count(1))
	check_eq(bad_reeds, 0, "every reed in water up to 1 m deep")
	var grass_wet := 0
	var all_grass := inst.get_detail_transforms(0, Rect2(0, 0, N, N))
	for tr in all_grass:
		grass_wet += int(not is_nan(water.get_water_height(Vector2(tr.origin.x, tr.origin.z))))
	check(all_grass.size() > 100, "grass grows (%d)" % all_grass.size())
	check_eq(grass_wet, 0, "no grass in water")
	var kelp_bad := 0
	var all_kelp := inst.get_detail_transforms(1, Rect2(0, 0, N, N))
	for tr in all_kelp:
		kelp_bad += int(not (water.get_water_depth(Vector2(tr.origin.x, tr.origin.z)) >= 1.0 - 1e-4))
	check(all_kelp.size() > 20, "kelp grows (%d)" % all_kelp.size())
	check_eq(kelp_bad, 0, "kelp only a metre deep or more")
	# Without water (the sea gone, no lake): the grass grows where the water was.
	water.sea = false
	water.lake_points = PackedVector2Array()
	water.update_water()
	inst.update_now()
	check(inst.get_detail_transforms(0, Rect2(0, 0, N, N)).size() > all_grass.size(), "the grass grows where the sea was")
	expect_error("TerrainInstanceMesh.water_placement must be WATER_AVOID, WATER_ANY or WATER_ONLY (0..2), got 5")
	dry.water_placement = 5
	expect_error("TerrainDetailLayer.water_depth_min: water depth range must be 0 ≤ min ≤ max ≤ 100000")
	kelp.water_depth_min = -1.0
	cam.queue_free()
	tn.queue_free()


## What a new user writes: lakes added one by one, queries right after adding the node (no frame passes),
## and a property change read at once. Each answer is the computed water, never NaN for water that waits
## for a frame; `is_up_to_date()` and `water_updated` say when it was computed.
func test_queries_answer_at_once_and_lakes_add_up() -> void:
	var tn := TerrainNode.new()
	tn.terrain_data = _terrain()
	tree.root.add_child(tn)
	var water := TerrainWater.new()
	water.sea_level = 10.5
	water.lake_points.append(Vector2(140.5, 140.5))   # a copy: changes nothing
	check_eq(water.lake_points.size(), 0, "append on the property changes a copy (why add_lake_point exists)")
	water.add_lake_point(Vector2(50.5, 50.5))
	water.add_lake_point(Vector2(140.5, 140.5))
	check_eq(water.lake_points.size(), 2, "add_lake_point adds to the node's points")
	var updates := [0]
	water.water_updated.connect(func(): updates[0] += 1)
	tn.add_child(water)
	check(not water.is_up_to_date(), "just added: not computed yet")
	# No frame has passed: the query computes what it needs.
	check_near(water.get_water_height(Vector2(50.5, 50.5)), 13.0, 1e-5, "the first lake at once")
	check_near(water.get_water_height(Vector2(140.5, 140.5)), 12.0, 1e-5, "the second lake at once")
	check(water.is_up_to_date(), "computed by the query")
	check_eq(updates[0], 1, "water_updated once")
	water.sea_level = 12.5
	check(not water.is_up_to_date(), "a property changed: stale until computed")
	check_near(water.get_water_height(Vector2(10.5, 180.5)), 12.5, 1e-5, "the new sea level read at once")
	check_eq(updates[0], 2, "water_updated again")
	await tree.process_frame
	await tree.process_frame
	check_eq(updates[0], 2, "nothing computed twice")
	expect_error("TerrainWater.add_lake_point: point must be finite")
	water.add_lake_point(Vector2(NAN, 3))
	check_eq(water.lake_points.size(), 2, "a bad point is refused by name")
	tn.queue_free()
