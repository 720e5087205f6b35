extends "res://wt_test.gd"
## TerrainDetailLayer on a TerrainInstancer: detail grown by rules around the camera. What is drawn equals
## get_detail_transforms, which stand on the ground; holes, slope, height and layer rules refuse ground;
## the density is what was asked; the transforms are a pure function of (seed, terrain, rules) — the same
## in another process (a golden digest) and after edits everywhere but where the edit was; endless worlds
## grow correct detail 100 km out; bad input is refused.

const SIZE := 256
const GOLDEN := "res://fixtures/detail/digest_seed3.txt"


func _data(flat := false) -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	if not flat:
		t.generate_noise(3, 1.0 / 40.0, 4, 2.0, 0.5, 12.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _layer(density := 1.0, radius := 60.0) -> TerrainDetailLayer:
	var l := TerrainDetailLayer.new()
	l.density = density
	l.view_radius = radius
	l.slope_max = 90.0
	l.seed = 3
	return l


## A terrain (data or generator) with an instancer growing `layers`, the camera at `cam_at`;
## [terrain, instancer, camera].
func _scene(source: Resource, layers: Array[TerrainDetailLayer], cam_at: Vector3) -> Array:
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	if source is TerrainData:
		tn.terrain_data = source
	else:
		tn.terrain_generator = source
	var inst := TerrainInstancer.new()
	inst.detail_layers = layers
	tn.add_child(inst)
	var cam := Camera3D.new()
	cam.position = cam_at
	cam.rotation_degrees = Vector3(-90, 0, 0)
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	return [tn, inst, cam]


func _free(s: Array) -> void:
	for n in s:
		n.queue_free()


## Worst |origin.y - get_height| over `ts` (INF if one is not finite).
func _glue_error(tn: TerrainNode, ts: Array[Transform3D]) -> float:
	var worst := 0.0
	for t in ts:
		worst = worst_of(worst, absf(t.origin.y - tn.get_height(Vector2(t.origin.x, t.origin.z))))
	return worst


func test_detail_covers_the_view_and_stands_on_the_ground() -> void:
	var s := _scene(_data(), [_layer(1.0, 300.0)], Vector3(SIZE / 2.0, 40.0, SIZE / 2.0))
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	inst.update_now()
	check(inst.is_up_to_date(), "up to date after update_now")
	var all := inst.get_detail_transforms(0, Rect2(-10, -10, SIZE + 20, SIZE + 20))
	# The radius covers the whole terrain: everything there is drawn, nothing else.
	check(all.size() > 0.95 * SIZE * SIZE and all.size() < 1.05 * SIZE * SIZE, "about 1 per m²: %d" % all.size())
	check_eq(inst.get_detail_drawn_count(0), all.size(), "drawn count equals get_detail_transforms")
	check(_glue_error(tn, all) <= 1e-3, "detail stands on get_height: %f" % _glue_error(tn, all))
	var mem := inst.get_detail_memory()
	check_eq(mem[0], all.size() * 64, "64 bytes an instance on the GPU")
	check_eq(mem[1], 0, "nothing waiting on the CPU")
	var w := inst.get_work_breakdown()
	check(w[5] > 0, "detail's main-thread time is counted")
	check_eq(w.size(), 9, "the breakdown splits detail into showing and choosing, and counts far cells")
	check(w[6] > 0 and w[7] > 0 and w[6] + w[7] <= w[5], "detail's showing and choosing are parts of its time: %s" % w)
	# The same counters by name, as TerrainNode.get_work_stats gives its own.
	var stats := inst.get_work_stats()
	var names := ["update_usec", "show_usec", "choose_usec", "ask_usec", "collide_usec", "detail_usec", "detail_show_usec", "detail_choose_usec", "far_usec"]
	check_eq(stats.keys(), names, "get_work_stats names the breakdown's counters in order")
	for i in names.size():
		check(stats[names[i]] >= w[i], "%s = %d, not less than the breakdown read before (%d)" % [names[i], stats[names[i]], w[i]])
	# update_now's work is counted by part; update_usec counts the process pass's frame updates.
	check(stats["detail_usec"] >= stats["detail_show_usec"] + stats["detail_choose_usec"], "detail's parts are within its time: %s" % stats)
	_free(s)


func test_cells_follow_the_camera_within_the_radius() -> void:
	var s := _scene(_data(), [_layer(2.0, 30.0)], Vector3(40, 30, 40))
	var inst: TerrainInstancer = s[1]
	var cam: Camera3D = s[2]
	inst.update_now()
	var near := inst.get_detail_drawn_count(0)
	var cells := inst.get_detail_cell_count()
	# Drawn: the cells within the radius (and at most a cell beyond it).
	var inside := inst.get_detail_transforms(0, Rect2(40 - 30, 40 - 30, 60, 60)).size()
	var outer := inst.get_detail_transforms(0, Rect2(40 - 45, 40 - 45, 90, 90)).size()
	check(near >= inside * 0.75 and near <= outer, "drawn %d: between the radius' disc and a cell beyond (%d, %d)" % [near, inside, outer])
	cam.position = Vector3(200, 30, 200)
	await tree.process_frame
	inst.update_now()
	var far := inst.get_detail_transforms(0, Rect2(200 - 45, 200 - 45, 90, 90)).size()
	check(inst.get_detail_drawn_count(0) <= far, "the old cells left with the camera")
	check(absi(inst.get_detail_cell_count() - cells) <= cells / 2 + 2, "about as many cells: %d then %d" % [cells, inst.get_detail_cell_count()])
	_free(s)


func test_density_is_within_five_percent_on_flat_ground() -> void:
	for d in [0.5, 4.0, 8.0]:
		var s := _scene(_data(true), [_layer(d, 100.0)], Vector3(128, 30, 128))
		var inst: TerrainInstancer = s[1]
		var n := inst.get_detail_transforms(0, Rect2(28, 28, 200, 200)).size()
		var want: float = d * 200.0 * 200.0
		check(absf(n / want - 1.0) <= 0.05, "density %s: %d of %f" % [d, n, want])
		_free(s)


func test_rules_refuse_holes_slopes_heights_and_other_layers() -> void:
	var t := _data()
	# A hole 40 samples wide in the middle.
	var holes := PackedByteArray()
	holes.resize(40 * 40)
	holes.fill(1)
	t.set_holes_region(Rect2i(100, 100, 40, 40), holes)
	# Layer 1 painted on the left half.
	var w := PackedFloat32Array()
	w.resize(128 * SIZE)
	w.fill(1.0)
	t.set_layer_region(Rect2i(0, 0, 128, SIZE), 1, w)
	var l := _layer(2.0, 300.0)
	var s := _scene(t, [l], Vector3(128, 40, 128))
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var look := TerrainMaterial.new()
	look.layers = [TerrainLayer.new(), TerrainLayer.new()] as Array[TerrainLayer]
	tn.terrain_material = look
	inst.update_now()
	var before_rules := inst.get_detail_drawn_count(0)
	var all := Rect2(0, 0, SIZE, SIZE)
	var ts := inst.get_detail_transforms(0, all)
	var over_holes := 0
	for tr in ts:
		over_holes += int(not is_finite(tn.get_height(Vector2(tr.origin.x, tr.origin.z))))
	check(ts.size() > 0, "detail grows")
	check_eq(over_holes, 0, "none over holes")
	check(inst.get_detail_transforms(0, Rect2(102, 102, 36, 36)).is_empty(), "the hole is bare")
	# Height and slope ranges (world units, degrees).
	l.height_min = 0.0
	l.height_max = 4.0
	var bad := 0
	ts = inst.get_detail_transforms(0, all)
	for tr in ts:
		bad += int(tr.origin.y < -1e-4 or tr.origin.y > 4.0001)
	check(ts.size() > 0 and bad == 0, "height range: %d of %d outside" % [bad, ts.size()])
	l.height_min = -1e6
	l.height_max = 1e6
	l.slope_max = 10.0
	bad = 0
	ts = inst.get_detail_transforms(0, all)
	for tr in ts:
		var n := tn.get_normal(Vector2(tr.origin.x, tr.origin.z))
		bad += int(rad_to_deg(acos(clampf(n.y, -1, 1))) > 10.01)
	check(ts.size() > 0 and bad == 0, "slope range: %d of %d steeper" % [bad, ts.size()])
	# Grows on layer 1 only: never where its weight is 0.
	l.slope_max = 90.0
	l.layers = PackedInt32Array([1])
	bad = 0
	ts = inst.get_detail_transforms(0, all)
	for tr in ts:
		var lw := tn.get_layer_weights(Vector2(tr.origin.x, tr.origin.z))
		bad += int(lw.size() < 2 or lw[1] <= 0.0)
	check(ts.size() > 0 and bad == 0, "layer rule: %d of %d on other ground" % [bad, ts.size()])
	check(inst.get_detail_transforms(0, Rect2(140, 0, 110, SIZE)).is_empty(), "the unpainted half is bare")
	# The rule changes reach what is drawn (their `changed` signals arrive at the end of the frame).
	await tree.process_frame
	inst.update_now()
	check_eq(inst.get_detail_drawn_count(0), ts.size(), "drawn follows the rules (%d before them)" % before_rules)
	# Editing the material in place (another tint) regrows the detail with the new tint.
	look.layers[1].albedo_color = Color(0, 0, 1)
	await tree.process_frame
	inst.update_now()
	check(inst.is_up_to_date(), "regrown after the material's edit")
	_free(s)


## A digest of transforms: positions to 1 mm, then hashed.
func _digest(ts: Array[Transform3D]) -> String:
	var parts := PackedStringArray()
	for t in ts:
		parts.append("%d,%d,%d,%d" % [roundi(t.origin.x * 1000), roundi(t.origin.y * 1000), roundi(t.origin.z * 1000), roundi(t.basis.x.x * 1000)])
	return ",".join(parts).sha256_text()


func test_detail_is_deterministic_across_processes_and_edits_change_only_their_cells() -> void:
	var t := _data()
	var s := _scene(t, [_layer(2.0, 60.0)], Vector3(128, 40, 128))
	var inst: TerrainInstancer = s[1]
	var a := inst.get_detail_transforms(0, Rect2(0, 0, 128, 128))
	var b := inst.get_detail_transforms(0, Rect2(128, 128, 128, 128))
	var digest := "%s %s %d %d" % [_digest(a), _digest(b), a.size(), b.size()]
	# Another process (an earlier run, another machine) got this.
	# The file: the digest line, then the first three transforms readable (mm and basis x.x in 1/1000),
	# so a failure shows what moved.
	var readable := PackedStringArray()
	for k in mini(3, a.size()):
		readable.append("%d,%d,%d,%d" % [roundi(a[k].origin.x * 1000), roundi(a[k].origin.y * 1000), roundi(a[k].origin.z * 1000), roundi(a[k].basis.x.x * 1000)])
	var f := FileAccess.open(GOLDEN, FileAccess.READ)
	if check(f != null, "golden file %s (this run: %s, first: %s)" % [GOLDEN, digest, readable]):
		var want := f.get_as_text().strip_edges().split("\n")
		check_eq(want.size(), 4, "golden file: a digest and three transforms")
		for k in mini(3, want.size() - 1):
			check_eq(readable[k] if k < readable.size() else "", want[k + 1], "detail instance %d as in the golden run" % k)
		check_eq(digest, want[0], "same detail as the golden run")
	# Drawn, then an edit in one corner: the other corner's detail and drawn count are unchanged.
	inst.update_now()
	var before := inst.get_detail_drawn_count(0)
	var heights := PackedFloat32Array()
	heights.resize(20 * 20)
	heights.fill(30.0)
	t.set_heights_region(Rect2i(200, 200, 20, 20), heights)
	var moved := inst.get_detail_transforms(0, Rect2(195, 195, 30, 30))
	var on_top := 0
	for tr in moved:
		on_top += int(absf(tr.origin.y - 30.0) < 1e-3)
	check(on_top > 100, "the edited square's detail stands on the new ground: %d" % on_top)
	check(not inst.is_up_to_date(), "the touched cells regrow")
	inst.update_now()
	check(inst.is_up_to_date(), "and are shown")
	check(absi(inst.get_detail_drawn_count(0) - before) < before / 10, "about as much drawn: %d then %d" % [before, inst.get_detail_drawn_count(0)])
	_free(s)


func test_endless_world_grows_correct_detail_100_km_out() -> void:
	var g := TerrainGenerator.new()
	g.seed = 5
	g.frequency = 0.03
	g.octaves = 5
	g.height = 25.0
	var at := Vector3(100000.0, 60.0, -100000.0)
	var s := _scene(g, [_layer(4.0, 40.0)], at)
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	inst.update_now()
	check(inst.get_detail_drawn_count(0) > 4.0 * 3.0 * 40.0 * 40.0 * 0.5, "detail drawn 100 km out: %d" % inst.get_detail_drawn_count(0))
	var ts := inst.get_detail_transforms(0, Rect2(at.x - 10, at.z - 10, 20, 20))
	check(ts.size() > 1200, "about 4 per m²: %d" % ts.size())
	# f32 world positions 100 km out are good to ~8 mm: the ground under a rounded position may differ by
	# its slope times that.
	check(_glue_error(tn, ts) <= 0.03, "on the ground: %f" % _glue_error(tn, ts))
	_free(s)


func test_painted_density_thins_detail_saves_and_undoes() -> void:
	var t := _data(true)
	var s := _scene(t, [_layer(2.0, 300.0)], Vector3(128, 40, 128))
	var inst: TerrainInstancer = s[1]
	inst.update_now()
	var spot := Rect2(100, 100, 30, 30)
	var full := inst.get_detail_transforms(0, spot).size()
	var away := Rect2(200, 200, 30, 30)
	var away_before := inst.get_detail_transforms(0, away).size()
	var drawn := inst.get_detail_drawn_count(0)
	var saved: PackedByteArray = inst.instances.detail_density
	check(saved.is_empty(), "nothing painted: no density bytes")
	var b := TerrainBrush.new()
	b.tool = TerrainBrush.DETAIL_REMOVE
	b.mesh_index = 0
	b.size = 80.0
	b.hardness = 1.0
	b.strength = 0.5
	var changed := inst.apply_brush(b, Vector2(115, 115), 1.0)
	check(changed.has_point(Vector2(115, 115)) and changed.size.x >= 80.0, "the dab's rectangle: %s" % changed)
	var half := inst.get_detail_transforms(0, spot).size()
	check(absf(float(half) / full - 0.5) < 0.08, "half the density: %d of %d" % [half, full])
	inst.update_now()
	check(inst.get_detail_drawn_count(0) < drawn, "drawn follows the paint")
	b.strength = 1.0
	inst.apply_brush(b, Vector2(115, 115), 1.0)
	check(inst.get_detail_transforms(0, spot).is_empty(), "painted down to none")
	check_eq(inst.get_detail_transforms(0, away).size(), away_before, "elsewhere untouched")
	# Saved and loaded with the instances resource: the same detail.
	var bytes: PackedByteArray = inst.instances.detail_density
	check(bytes.size() > 4096, "the painted tiles are stored (%d bytes)" % bytes.size())
	var path := "user://detail_density_test.res"
	check_eq(ResourceSaver.save(inst.instances, path), OK, "save")
	var loaded: TerrainInstances = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	check_eq(loaded.detail_density, bytes, "same bytes after a round trip")
	# Undo: the bytes from before; the detail comes back exactly.
	inst.instances.detail_density = saved
	await tree.process_frame
	check_eq(inst.get_detail_transforms(0, spot).size(), full, "undone: all back")
	inst.update_now()
	check_eq(inst.get_detail_drawn_count(0), drawn, "drawn as before")
	# Adding back paints up to the full density, not beyond.
	inst.instances.detail_density = bytes
	b.tool = TerrainBrush.DETAIL_ADD
	b.strength = 5.0
	inst.apply_brush(b, Vector2(115, 115), 1.0)
	check_eq(inst.get_detail_transforms(0, spot).size(), full, "painted back to the rules' density")
	expect_error("must name one of the 1 detail layers")
	b.mesh_index = 3
	inst.apply_brush(b, Vector2(115, 115), 1.0)
	expect_error("TerrainInstances.detail_density: not detail density data")
	inst.instances.detail_density = PackedByteArray([1, 2, 3, 4, 5])
	_free(s)


func test_bad_input_is_refused_and_the_layer_stays_usable() -> void:
	var l := _layer()
	expect_error("TerrainDetailLayer.density must be in (0, 64]")
	l.density = 0.0
	check_eq(l.density, 1.0, "density kept")
	expect_error("over the budget of 1000000")
	l.view_radius = 2000.0
	check_eq(l.view_radius, 60.0, "radius kept")
	expect_error("TerrainDetailLayer.layers: layer indices must be in [0, 63]")
	l.layers = PackedInt32Array([-1])
	check(l.layers.is_empty(), "layers kept")
	expect_error("TerrainDetailLayer.scale_min")
	l.scale_min = -1.0
	expect_error("TerrainDetailLayer.fade_distance must be in [0, 60]")
	l.fade_distance = 100.0
	var s := _scene(_data(), [l], Vector3(128, 30, 128))
	var inst: TerrainInstancer = s[1]
	expect_error("layer_index must be in [0, 0]")
	check(inst.get_detail_transforms(3, Rect2(0, 0, 10, 10)).is_empty(), "bad layer: empty")
	expect_error("area must be finite")
	inst.get_detail_transforms(0, Rect2(NAN, 0, 10, 10))
	expect_error("area must lie within")
	check(inst.get_detail_transforms(0, Rect2(1e20, 0, 10, 10)).is_empty(), "far away: empty, no panic")
	check(inst.get_detail_transforms(0, Rect2(0, 0, 10, 10)).size() > 50, "still usable")
	_free(s)


## A layer that grows only on some texture layers, on a terrain without a TerrainMaterial, is said so (the
## instancer's setup check, shown as its configuration warning; a warning in the log once per change) and
## grows everywhere its other rules allow; with a material the message goes.
func test_layer_rules_without_a_material_are_reported() -> void:
	var tn := TerrainNode.new()
	tn.terrain_data = _data()
	var inst := TerrainInstancer.new()
	tn.add_child(inst)
	tree.root.add_child(tn)
	var grass := TerrainDetailLayer.new()
	grass.layers = PackedInt32Array([1])
	inst.detail_layers = [grass] as Array[TerrainDetailLayer]
	var msgs := inst.check_setup()
	check(msgs.size() == 1 and msgs[0].contains("detail_layers[0]") and msgs[0].contains("no TerrainMaterial"), "reported: %s" % msgs)
	inst.update_now()
	check(inst.get_detail_transforms(0, Rect2(100, 100, 20, 20)).size() > 0, "it grows everywhere meanwhile")
	var look := TerrainMaterial.new()
	tn.terrain_material = look
	# A material without the layer the rule names: it grows nowhere, and that is said too.
	msgs = inst.check_setup()
	check(msgs.size() == 1 and msgs[0].contains("has 0 layers") and msgs[0].contains("nowhere"), "a rule naming a layer the material lacks: %s" % msgs)
	check("\n".join(tn.check_setup()).contains("detail_layers[0]"), "the terrain node says it too: %s" % tn.check_setup())
	look.layers = [TerrainLayer.new(), TerrainLayer.new()] as Array[TerrainLayer]
	check(inst.check_setup().is_empty(), "with a material that has the layer: nothing to say (%s)" % inst.check_setup())
	tn.queue_free()


## A TerrainPath clearing its verge: no detail within it; the grass grows back when the road goes.
func test_a_road_clears_detail_along_it() -> void:
	var t := _data()
	var s := _scene(t, [_layer(2.0, 300.0)], Vector3(128, 40, 128))
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	inst.update_now()
	var band := Rect2(20, 120, 216, 16)
	var before := inst.get_detail_transforms(0, band).size()
	check(before > 50, "grass where the road goes (%d)" % before)
	var road := TerrainPath.new()
	var c := Curve3D.new()
	c.add_point(Vector3(10, 0, 128))
	c.add_point(Vector3(246, 0, 128))
	road.curve = c
	road.width = 8.0
	road.clear_margin = 4.0
	tn.add_child(road)
	road.lay_on_ground()
	road.apply_now()
	inst.update_now()
	var on_road := inst.get_detail_transforms(0, Rect2(20, 122, 216, 12)).size()
	check_eq(on_road, 0, "no detail on the road and its 4 m verge")
	road.queue_free()
	await tree.process_frame
	await tree.process_frame
	inst.update_now()
	check_eq(inst.get_detail_transforms(0, band).size(), before, "the road gone: the same grass back")
	_free(s)
