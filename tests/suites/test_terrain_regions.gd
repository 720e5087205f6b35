extends "res://wt_test.gd"
## TerrainRegions: a map saved as a folder of region files and opened again bit for bit; queries equal the
## TerrainData's; a TerrainNode draws it (windows on worker threads) with get_height and raycast equal to the
## data's; prefetch / is_loaded; the memory budget holds; a generator written straight to disk; bad input.


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(300, 220)
	t.spacing = 1.5
	t.generate_noise(8, 0.05, 5, 2.0, 0.5, 30.0, -1e9, TerrainData.NOISE_PERLIN)
	var holes := PackedByteArray()
	holes.resize(12)
	holes.fill(1)
	t.set_holes_region(Rect2i(100, 60, 4, 3), holes)
	var w := PackedFloat32Array()
	w.resize(100)
	w.fill(1.0)
	t.set_layer_region(Rect2i(200, 150, 10, 10), 3, w)
	return t


func _folder(name: String) -> String:
	var p := OS.get_user_data_dir().path_join("regions_test").path_join(name)
	_remove(p)
	return p


## Saves a generator-backed map edited in one region (the header, that region and the levels above it are
## then the folder's only files) and opens the folder again with `g`.
func _save_one_region_and_reopen(regions: TerrainRegions, dir: String, g: TerrainGenerator) -> TerrainRegions:
	check_eq(regions.save(), OK, "saved")
	var files := Array(DirAccess.get_files_at(dir))
	var finest := files.filter(func(f): return f.begins_with("h0_"))
	var coarser := files.filter(func(f): return f.begins_with("h") and not f.begins_with("h0_"))
	check_eq(finest.size(), 1, "one region of the full resolution: %s" % [files])
	# The levels above it are saved where a far ring has read them; the rest are listed in stale.mips.
	check(coarser.size() <= regions.get_mip_count() - 1, "at most one region a coarser level: %s" % [files])
	check(coarser.size() == regions.get_mip_count() - 1 or files.has("stale.mips"), "every coarser level saved or recorded stale: %s" % [files])
	check_eq(files.size(), 2 + coarser.size() + int(files.has("stale.mips")), "nothing else: %s" % [files])
	var again := TerrainRegions.new()
	again.generator = g
	again.folder = dir
	return again


func _remove(path: String) -> void:
	if not DirAccess.dir_exists_absolute(path):
		return
	for f in DirAccess.get_files_at(path):
		DirAccess.remove_absolute(path.path_join(f))
	DirAccess.remove_absolute(path)


func test_regions_save_and_open_are_bit_exact() -> void:
	var t := _data()
	var dir := _folder("exact")
	check_eq(t.save_regions(dir, 64), OK, "saved")
	var r := TerrainRegions.open(dir)
	check(r.is_inside(Vector2(1, 1)) and not r.is_inside(Vector2(-1, 1)) and not TerrainRegions.new().is_inside(Vector2(1, 1)), "is_inside: on the map, beyond it, no folder")
	check(r != null, "opened")
	check_eq(r.get_size(), Vector2i(300, 220), "size")
	check_eq(r.get_spacing(), 1.5, "spacing")
	check_eq(r.get_region_size(), 64, "region size")
	check_eq(r.get_mip_count(), 4, "mips: 300, 150, 75, 38 samples a side")
	var all := Rect2i(0, 0, 300, 220)
	check(r.get_heights_region(all) == t.get_heights_region(all), "heights bit for bit")
	check(r.get_control_region(all) == t.get_control_region(all), "paint and holes bit for bit")
	var differ := 0
	for i in 2000:
		var p := Vector2(fmod(i * 0.731, 470.0) - 10.0, fmod(i * 0.377, 350.0) - 10.0)
		var a := r.get_height(p)
		var b := t.get_height(p)
		differ += int(not (a == b or (is_nan(a) and is_nan(b))))
	check_eq(differ, 0, "get_height equals the data's at 2000 points (holes included)")
	check(is_nan(r.get_height(Vector2(152.0, 93.0))), "the hole is there")
	_remove(dir)


func test_regions_drawn_by_a_terrain_node_like_the_data() -> void:
	var t := _data()
	var dir := _folder("node")
	t.save_regions(dir, 32)
	var regions := TerrainRegions.open(dir)
	var s := following_node(regions, Vector3(200, 0, 160))
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	await wait_up_to_date([tn])
	check_eq(tn.material.get_shader_parameter("terrain_size"), Vector2(300, 220), "a finite map")
	check(tn.check_setup().is_empty(), "no warnings: %s" % tn.check_setup())
	var worst := 0.0
	var holes_differ := 0
	var compared := 0
	for i in 300:
		var p := Vector2(3.0 + fmod(i * 1.37, 440.0), 3.0 + fmod(i * 0.91, 320.0))
		var a := tn.get_height(p)
		var b := t.get_height(p)
		# A hole (NaN) on one side must be a hole on the other.
		holes_differ += int(is_nan(a) != is_nan(b))
		if not is_nan(b):
			compared += 1
			worst = worst_of(worst, absf(a - b))
	check_eq(holes_differ, 0, "holes where the data has them")
	check(compared >= 250, "heights compared (%d of 300)" % compared)
	check_eq(worst, 0.0, "node heights = data heights")
	var hit := tn.raycast(Vector3(50, 200, 40), Vector3(0.5, -1, 0.3))
	var want := t.raycast(Vector3(50, 200, 40), Vector3(0.5, -1, 0.3))
	check(hit.is_equal_approx(want), "raycast %s = the data's %s" % [hit, want])
	# FULL collision over region files follows the target like DYNAMIC (the map is not all in memory).
	tn.collision_mode = TerrainNode.COLLISION_FULL
	await tree.physics_frame
	await tree.physics_frame
	var tiles := tn.get_collision_tile_count()
	check(tiles > 0 and tiles <= 81, "FULL over regions keeps to the target's tiles (%d)" % tiles)
	tn.terrain_data = t
	check(tn.check_setup().size() == 1, "two sources reported")
	tn.queue_free()
	target.queue_free()
	_remove(dir)


func test_regions_prefetch_and_the_memory_budget() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	t.generate_noise(3, 0.01, 4, 2.0, 0.5, 50.0, -1e9, 0)
	var dir := _folder("budget")
	t.save_regions(dir, 128)
	var r := TerrainRegions.open(dir)
	check(not r.is_loaded(Vector2(900, 900)), "nothing loaded at first")
	r.prefetch(Vector2(900, 900), 40.0)
	var waited := 0
	while not r.is_loaded(Vector2(900, 900)) and waited < 300:
		await tree.process_frame
		waited += 1
	check(r.is_loaded(Vector2(900, 900)) and r.is_loaded(Vector2(870, 930)), "prefetched on a worker (%d frames)" % waited)
	# 16 MB keeps 256 regions of 128² heights: the 64 of the map stay; then every query is a cache hit.
	r.budget_mb = 16
	for i in 500:
		r.get_height(Vector2(fmod(i * 37.0, 1024.0), fmod(i * 91.0, 1024.0)))
	var loads := r.get_loads()
	check(r.get_cached_bytes() <= 16 << 20, "within the budget (%d bytes)" % r.get_cached_bytes())
	for i in 200:
		r.get_height(Vector2(fmod(i * 13.0, 1024.0), fmod(i * 7.0, 1024.0)))
	check_eq(r.get_loads(), loads, "loaded regions are not read again")
	_remove(dir)


func test_regions_from_a_generator_written_straight_to_disk() -> void:
	var g := TerrainGenerator.new()
	g.seed = 21
	g.frequency = 0.02
	var dir := _folder("generated")
	check_eq(TerrainRegions.generate(g, Vector2i(200, 130), 1.0, dir, 64), OK, "written")
	var r := TerrainRegions.open(dir)
	var t := TerrainData.new()
	t.size = Vector2i(200, 130)
	t.generate(g)
	var all := Rect2i(0, 0, 200, 130)
	check(r.get_heights_region(all) == t.get_heights_region(all), "same samples as TerrainData.generate")
	check_eq(r.get_height_range(), t.get_height_range(), "height range")
	# A finite map written whole, opened as if it were generated: the generator would never be used, so
	# this is refused by name (it opened the finite map without a word).
	expect_error("holds a finite map with every region stored")
	check(TerrainRegions.open_generated(dir, g) == null, "open_generated refuses a map written whole")
	check(TerrainRegions.open(dir) != null, "open still opens it")
	# A finite map made by `create` (header only) is what open_generated is for.
	var made := _folder("created")
	check(TerrainRegions.create(g, Vector2i(200, 130), 1.0, made, 64) != null, "created")
	check(TerrainRegions.open_generated(made, g) != null, "open_generated opens a created map")
	_remove(made)
	_remove(dir)


func test_regions_bad_input_is_named() -> void:
	var t := _data()
	var dir := _folder("bad")
	expect_error("TerrainData.save_regions: region_size must be a power of two in [16, 4096], got 100")
	check_eq(t.save_regions(dir, 100), ERR_INVALID_PARAMETER, "region size refused")
	expect_error("TerrainRegions.folder: cannot read")
	check(TerrainRegions.open(dir.path_join("missing")) == null, "no folder")
	t.save_regions(dir, 64)
	var r := TerrainRegions.open(dir)
	expect_error("TerrainRegions.folder: cannot read")
	r.folder = dir.path_join("missing")
	check_eq(r.folder, dir, "the previous folder is kept")
	check_eq(r.get_size(), Vector2i(300, 220), "still usable")
	expect_error("TerrainRegions.budget_mb must be in [16, 1048576], got 5")
	r.budget_mb = 5
	check_eq(r.budget_mb, 256, "budget kept")
	# One spacing rule: every spacing a TerrainData takes saves and opens.
	t.spacing = 2000.0
	var far := _folder("spacing")
	check_eq(t.save_regions(far, 64), OK, "spacing 2000 saved")
	var rf := TerrainRegions.open(far)
	check(rf != null and rf.get_spacing() == 2000.0, "and opened with its spacing")
	_remove(far)
	expect_error("TerrainRegions: region")
	check(r.get_heights_region(Rect2i(290, 0, 20, 5)).is_empty(), "a region past the edge is refused")
	expect_error("TerrainRegions.generate: generator must be a TerrainGenerator, got null")
	check_eq(TerrainRegions.generate(null, Vector2i(10, 10), 1.0, dir, 16), ERR_INVALID_PARAMETER, "null generator")
	expect_error("TerrainRegions.generate: size must be in [2, 16777216]")
	check_eq(TerrainRegions.generate(TerrainGenerator.new(), Vector2i(1, 10), 1.0, dir, 16), ERR_INVALID_PARAMETER, "tiny size")
	_remove(dir)


func _brush(tool: int, size: float, strength: float) -> TerrainBrush:
	var b := TerrainBrush.new()
	b.tool = tool
	b.size = size
	b.strength = strength
	return b


func test_regions_edited_like_the_data_and_saved_safely() -> void:
	var t := _data()
	t.spacing = 1.0
	var dir := _folder("edit")
	t.save_regions(dir, 32)
	var before := {}
	for f in DirAccess.get_files_at(dir):
		before[f] = FileAccess.get_file_as_bytes(dir.path_join(f))
	var regions := TerrainRegions.open(dir)
	var s := following_node(regions, Vector3(60, 0, 50), {collision_mode = TerrainNode.COLLISION_DYNAMIC})
	var tn: TerrainNode = s[0]
	var target: Node3D = s[1]
	await wait_up_to_date([tn])
	tn.take_uploaded_bytes()
	var changes := [0]
	regions.region_changed.connect(func(_r): changes[0] += 1)
	# The same strokes on the data and on the region map.
	var raise := _brush(TerrainBrush.RAISE, 18.0, 30.0)
	var hole := _brush(TerrainBrush.HOLE_ADD, 6.0, 1.0)
	var paint := _brush(TerrainBrush.PAINT, 10.0, 5.0)
	paint.layer = 2
	for i in 10:
		var c := Vector2(50 + i * 2.0, 45 + i * 1.5)
		check_eq(regions.apply_brush(raise, c, 0.05), t.apply_brush(raise, c, 0.05), "dab %d: the same rectangle" % i)
	check_eq(regions.apply_brush(hole, Vector2(80, 70), 0.1), t.apply_brush(hole, Vector2(80, 70), 0.1), "hole dab")
	check_eq(regions.apply_brush(paint, Vector2(40, 60), 0.2), t.apply_brush(paint, Vector2(40, 60), 0.2), "paint dab")
	check(regions.set_heights_region(Rect2i(200, 150, 3, 2), PackedFloat32Array([1, 2, 3, 4, 5, 6])), "set_heights_region")
	t.set_heights_region(Rect2i(200, 150, 3, 2), PackedFloat32Array([1, 2, 3, 4, 5, 6]))
	check(changes[0] == 13, "region_changed per edit (%d)" % changes[0])
	var all := Rect2i(0, 0, 300, 220)
	check(regions.get_heights_region(all) == t.get_heights_region(all), "heights equal the data's, bit for bit")
	check(regions.get_control_region(all) == t.get_control_region(all), "holes and paint equal the data's")
	check(regions.has_unsaved_changes() and regions.get_unsaved_region_count() > 0, "unsaved regions")
	# The node follows: queries at once, the windows in the next jobs, collision.
	for k in 30:
		await tree.process_frame
	check(tn.take_uploaded_bytes() > 0, "the edited windows were sent again")
	var worst := 0.0
	for i in 200:
		var p := Vector2(40.0 + fmod(i * 0.37, 50.0), 35.0 + fmod(i * 0.53, 45.0))
		var a := tn.get_height(p)
		var b := t.get_height(p)
		if is_nan(a) != is_nan(b):
			worst = INF
		elif not is_nan(b):
			worst = worst_of(worst, absf(a - b))
	check_eq(worst, 0.0, "the node's heights are the edited ones")
	await tree.physics_frame
	await tree.physics_frame
	var space := tn.get_world_3d().direct_space_state
	var q := PhysicsRayQueryParameters3D.create(Vector3(60.5, 500, 52.5), Vector3(60.5, -500, 52.5))
	var hit := space.intersect_ray(q)
	check(not hit.is_empty(), "collision under the raised ground")
	if not hit.is_empty():
		check_near(hit.position.y, t.get_height(Vector2(60.5, 52.5)), 0.05, "collision follows the edit")
	# Saving writes only the edited regions (and their levels), each whole; reopening gives the edits.
	check_eq(regions.save(), OK, "saved")
	check(not regions.has_unsaved_changes(), "nothing unsaved")
	var untouched := 0
	var rewritten := 0
	for f in before:
		if FileAccess.get_file_as_bytes(dir.path_join(f)) == before[f]:
			untouched += 1
		else:
			rewritten += 1
	check(untouched > 3 * rewritten, "most files untouched (%d kept, %d rewritten)" % [untouched, rewritten])
	var again := TerrainRegions.open(dir)
	check(again.get_heights_region(all) == t.get_heights_region(all), "reopened: the edits bit for bit")
	check(again.get_control_region(all) == t.get_control_region(all), "reopened: holes and paint")
	# Discard forgets edits not saved.
	regions.set_heights_region(Rect2i(0, 0, 2, 1), PackedFloat32Array([99, 99]))
	regions.discard_changes()
	check(regions.get_heights_region(all) == t.get_heights_region(all), "discarded")
	tn.queue_free()
	target.queue_free()
	_remove(dir)


func test_regions_damaged_files_are_reported_and_drawn_as_holes() -> void:
	var t := _data()
	var dir := _folder("damaged")
	t.save_regions(dir, 32)
	var f := FileAccess.open(dir.path_join("h0_1_1.bin"), FileAccess.READ_WRITE)
	f.seek(40)
	f.store_8(f.get_8() ^ 0x10)
	f.close()
	var bytes := FileAccess.get_file_as_bytes(dir.path_join("h0_1_1.bin"))
	var regions := TerrainRegions.open(dir)
	var failed := []
	regions.region_failed.connect(func(r, m): failed.append([r, m]))
	var p := Vector2(40 * 1.5, 40 * 1.5)
	check(is_nan(regions.get_height(p)), "a damaged region is a hole, not flat ground")
	expect_error("h0_1_1.bin: the checksum does not match")
	regions.report_failures()
	check_eq(failed.size(), 1, "region_failed once")
	if failed.size() == 1:
		check_eq(failed[0][0], Vector2i(1, 1), "the region")
		check(String(failed[0][1]).contains("h0_1_1.bin"), "the message names the file")
	check(is_nan(regions.get_height(p)), "still a hole")
	regions.report_failures()
	check_eq(failed.size(), 1, "reported once")
	expect_error("h0_1_1.bin")
	check(not regions.set_heights_region(Rect2i(40, 40, 2, 2), PackedFloat32Array([1, 2, 3, 4])), "an edit there is refused")
	check(regions.get_height(Vector2(5, 5)) == t.get_height(Vector2(5, 5)), "the rest of the map works")
	check(FileAccess.get_file_as_bytes(dir.path_join("h0_1_1.bin")) == bytes, "the damaged file is left as it is")
	_remove(dir)


func test_regions_from_a_generator_store_only_the_edits() -> void:
	var dir := _folder("generated")
	var g := TerrainGenerator.new()
	g.seed = 9
	g.height = 20.0
	var regions := TerrainRegions.create(g, Vector2i(512, 384), 1.0, dir, 64)
	check(regions != null, "created")
	check_eq(Array(DirAccess.get_files_at(dir)), ["terrain.regions"], "only the header on disk")
	var t := TerrainData.new()
	t.size = Vector2i(512, 384)
	t.generate(g)
	var all := Rect2i(0, 0, 512, 384)
	check(regions.get_heights_region(all) == t.get_heights_region(all), "every sample is the generator's")
	var b := _brush(TerrainBrush.RAISE, 12.0, 20.0)
	check_eq(regions.apply_brush(b, Vector2(100, 90), 0.1), t.apply_brush(b, Vector2(100, 90), 0.1), "a dab")
	var again := _save_one_region_and_reopen(regions, dir, g)
	check(again.get_heights_region(all) == t.get_heights_region(all), "reopened with the generator: the edit and the rest")
	expect_error("TerrainRegions.create: generator must be a TerrainGenerator")
	check(TerrainRegions.create(null, Vector2i(64, 64), 1.0, dir, 64) == null, "no generator")
	_remove(dir)


## A new map never replaces one without leave: each way of making a map into a folder that holds one
## (create, create_endless, generate, save_regions; imports in test_elevation_import) is refused with an error
## naming the folder, and every file stays as it was; the saved map opens again; overwrite = true replaces it.
func test_regions_a_new_map_never_replaces_one_without_overwrite() -> void:
	var dir := _folder("kept")
	var g := TerrainGenerator.new()
	g.seed = 3
	check(not TerrainRegions.map_exists(dir), "no map in a new folder")
	var regions := TerrainRegions.create_endless(g, 1.0, dir, 64)
	check(regions != null, "an endless map made")
	if regions == null:
		return
	var flat := PackedFloat32Array()
	flat.resize(16)
	flat.fill(42.0)
	check(regions.set_heights_region(Rect2i(-10, -10, 4, 4), flat), "edited")
	check_eq(regions.save(), OK, "the edit saved")
	check(TerrainRegions.map_exists(dir), "map_exists sees it")
	var before := _snapshot(dir)
	check(before.size() > 1, "the header and the saved regions: %d files" % before.size())
	var t := _data()
	expect_error("TerrainRegions.create_endless: %s already holds a map" % dir)
	check(TerrainRegions.create_endless(g, 1.0, dir, 64) == null, "create_endless refused")
	expect_error("TerrainRegions.create: %s already holds a map" % dir)
	check(TerrainRegions.create(g, Vector2i(64, 64), 1.0, dir, 64) == null, "create refused")
	expect_error("TerrainRegions.generate: %s already holds a map" % dir)
	check_eq(TerrainRegions.generate(g, Vector2i(64, 64), 1.0, dir, 64), ERR_ALREADY_EXISTS, "generate refused")
	expect_error("TerrainData.save_regions: %s already holds a map" % dir)
	check_eq(t.save_regions(dir, 64), ERR_ALREADY_EXISTS, "save_regions refused")
	check(_snapshot(dir) == before, "every file as it was")
	var again := TerrainRegions.open_generated(dir, g)
	check(again != null and again.get_heights_region(Rect2i(-10, -10, 4, 4)) == flat, "the saved edit opens again")
	check(again != null and again.get_height(Vector2(200, 200)) == regions.get_height(Vector2(200, 200)), "with the generator's ground")
	expect_error("TerrainRegions.open_generated: generator must be a TerrainGenerator, got null")
	check(TerrainRegions.open_generated(dir, null) == null, "open_generated without a generator")
	check_eq(t.save_regions(dir, 64, true), OK, "overwrite = true replaces it")
	var replaced := TerrainRegions.open(dir)
	check(replaced != null and replaced.get_size() == t.size and not replaced.is_endless(), "the new map is there")
	var now := _snapshot(dir)
	var old_regions := before.keys().filter(func(f): return f != "terrain.regions")
	check(old_regions.all(func(f): return not now.has(f)), "the old map's region files are gone: %s" % [old_regions])
	check(TerrainRegions.create(g, Vector2i(64, 64), 1.0, dir, 64, true) != null, "create with overwrite")
	check_eq(TerrainRegions.generate(g, Vector2i(64, 64), 1.0, dir, 64, true), OK, "generate with overwrite")
	_remove(dir)


## The files of `dir` with their bytes.
func _snapshot(dir: String) -> Dictionary:
	var out := {}
	for f in DirAccess.get_files_at(dir):
		out[f] = FileAccess.get_file_as_bytes(dir.path_join(f))
	return out


## An endless map (create_endless): the endless generator's world on both sides of the origin, editable at
## negative samples; the node follows (queries, windows, collision); saving stores only the edited region
## and the levels above it; discarding brings the generator's ground back.
func test_regions_endless_map_is_the_generators_world_and_editable() -> void:
	var dir := _folder("endless")
	var g := TerrainGenerator.new()
	g.seed = 4
	g.height = 25.0
	var regions := TerrainRegions.create_endless(g, 1.0, dir, 64)
	check(regions != null and regions.is_endless(), "created endless")
	if regions == null:
		return
	check_eq(regions.get_bounds(), Rect2i(-8388608, -8388608, 16777216, 16777216), "signed bounds around the origin")
	check(regions.is_inside(Vector2(-3e6, 2e6)), "is_inside anywhere on an endless map")
	check_eq(Array(DirAccess.get_files_at(dir)), ["terrain.regions"], "only the header on disk")
	var target := Node3D.new()
	tree.root.add_child(target)
	target.position = Vector3(-300, 0, -260)
	var nodes: Array[TerrainNode] = []
	for source in ["terrain_regions", "terrain_generator"]:
		var tn := TerrainNode.new()
		tn.tile_resolution = 16
		tn.levels = 5
		tn.set(source, regions if source == "terrain_regions" else g)
		# Only the region map's collision: a ray then meets the edited ground.
		tn.collision_mode = TerrainNode.COLLISION_DYNAMIC if source == "terrain_regions" else TerrainNode.COLLISION_DISABLED
		tree.root.add_child(tn)
		tn.target = tn.get_path_to(target)
		nodes.append(tn)
	await wait_up_to_date(nodes)
	var mine := nodes[0]
	var gen := nodes[1]
	var worst := 0.0
	for i in 200:
		var p := Vector2(-340.0 + fmod(i * 0.37, 80.0), -300.0 + fmod(i * 0.53, 80.0))
		worst = worst_of(worst, absf(mine.get_height(p) - gen.get_height(p)))
	check_eq(worst, 0.0, "the endless generator's ground, bit for bit")
	mine.take_uploaded_bytes()
	# A dab and a rectangle at negative samples.
	var before := regions.get_heights_region(Rect2i(-320, -256, 64, 64))
	var b := _brush(TerrainBrush.RAISE, 16.0, 40.0)
	var r := regions.apply_brush(b, Vector2(-290, -230), 0.2)
	check(r.has_area() and r.position.x < 0 and r.position.y < 0, "the dab's rectangle is signed: %s" % r)
	check(regions.set_heights_region(Rect2i(-300, -235, 3, 2), PackedFloat32Array([1, 2, 3, 4, 5, 6])), "set_heights_region at negative samples")
	check(regions.get_heights_region(Rect2i(-300, -235, 3, 2)) == PackedFloat32Array([1, 2, 3, 4, 5, 6]), "read back")
	check(regions.get_heights_region(Rect2i(-320, -256, 64, 64)) != before, "the samples changed")
	check(regions.get_height(Vector2(-289.5, -229.5)) > gen.get_height(Vector2(-289.5, -229.5)) + 1.0, "raised")
	for k in 30:
		await tree.process_frame
	check(mine.take_uploaded_bytes() > 0, "the edited windows were sent again")
	worst = 0.0
	for i in 200:
		var p := Vector2(-320.0 + fmod(i * 0.37, 50.0), -256.0 + fmod(i * 0.53, 50.0))
		worst = worst_of(worst, absf(mine.get_height(p) - regions.get_height(p)))
	check_eq(worst, 0.0, "the node's heights are the edited ones")
	await tree.physics_frame
	await tree.physics_frame
	var space := mine.get_world_3d().direct_space_state
	var q := PhysicsRayQueryParameters3D.create(Vector3(-289.5, 500, -229.5), Vector3(-289.5, -500, -229.5))
	var hit := space.intersect_ray(q)
	check(not hit.is_empty(), "collision under the raised ground")
	if not hit.is_empty():
		check_near(hit.position.y, regions.get_height(Vector2(-289.5, -229.5)), 0.05, "collision follows the edit")
	# Saving stores the edited region and the levels above it, nothing else; reopening gives the edits.
	var edited := regions.get_heights_region(Rect2i(-320, -256, 64, 64))
	var again := _save_one_region_and_reopen(regions, dir, g)
	check(again.is_endless(), "reopened endless")
	check(again.get_heights_region(Rect2i(-320, -256, 64, 64)) == edited, "reopened: the edits bit for bit")
	check_eq(again.get_height(Vector2(5000.5, -7000.5)), gen.get_height(Vector2(5000.5, -7000.5)), "and the generator elsewhere")
	# Paint and holes at negative samples: read back, and a hole keeps the paint around it.
	var paint_rect := Rect2i(-330, -300, 8, 8)
	var ones := PackedFloat32Array()
	ones.resize(64)
	ones.fill(1.0)
	check(regions.set_layer_region(paint_rect, 2, ones), "paint at negative samples")
	var painted := regions.get_control_region(paint_rect)
	check(painted.size() == 64 and painted[0] != 0 and painted[63] == painted[0], "the paint reads back: %s" % [painted.slice(0, 3)])
	var hole := PackedByteArray([1, 1, 1, 1])
	check(regions.set_holes_region(Rect2i(-328, -298, 2, 2), hole), "a hole in the paint")
	var after_hole := regions.get_control_region(paint_rect)
	check_eq(after_hole[0], painted[0], "the paint beside the hole is kept")
	check(after_hole[2 * 8 + 2] != painted[2 * 8 + 2], "the hole is set")
	check(is_nan(regions.get_height(Vector2(-326.5, -296.5))), "a hole there")
	# Discarding unsaved edits brings back what was saved, also when they lie far apart (the span is then
	# millions of collision tiles and detail cells: only those in use are looked at).
	var near := Rect2i(-310, -290, 2, 1)
	check(regions.set_heights_region(near, PackedFloat32Array([99, 99])), "an unsaved edit near the target")
	check(regions.set_heights_region(Rect2i(3000000, 3000000, 2, 1), PackedFloat32Array([5, 5])), "and one 3000 km away")
	check_eq(regions.get_height(Vector2(-309.5, -289.5)), 99.0, "read back")
	var at := Vector3(-309.5, 500, -289.5)
	var ticks := await _ray_meets(space, at, 99.0)
	check(ticks >= 0, "the collision has the edit (%d physics ticks)" % ticks)
	var t0 := Time.get_ticks_msec()
	regions.discard_changes()
	var ground := gen.get_height(Vector2(-309.5, -289.5))
	check_eq(regions.get_height(Vector2(-309.5, -289.5)), ground, "discarded")
	ticks = await _ray_meets(space, at, ground)
	check(ticks >= 0, "the collision follows the discard (%d physics ticks)" % ticks)
	check(Time.get_ticks_msec() - t0 < 3000, "a discard spanning 3000 km settles at once (%d ms)" % (Time.get_ticks_msec() - t0))
	# An endless folder opened without its generator is refused, by name.
	expect_error("holds an endless map")
	var bare := TerrainRegions.open(dir)
	check(bare == null, "no generator: refused")
	for tn in nodes:
		tn.queue_free()
	target.queue_free()
	_remove(dir)


## Physics ticks until a ray down from `from` meets the ground within 5 cm of `height` (-1 after 120).
func _ray_meets(space: PhysicsDirectSpaceState3D, from: Vector3, height: float) -> int:
	var q := PhysicsRayQueryParameters3D.create(from, from - Vector3(0, 2000, 0))
	for k in 120:
		var hit := space.intersect_ray(q)
		if not hit.is_empty() and absf(hit.position.y - height) < 0.05:
			return k
		await tree.physics_frame
	return -1


## A child Godot process saving every region of a map over and over is killed 20 times (5 at random
## moments, 15 at random moments inside a save): after
## each kill the map opens and every region holds one save's content whole — the last saved value, or the
## one being saved (files are written to a temporary name, synced and renamed, the header last). Kills that
## leave a temporary file behind landed while a region file was being written.
func test_regions_save_survives_a_kill_of_a_godot_process() -> void:
	var dir := _folder("kill/map")
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	check_eq(t.save_regions(dir, 256), OK, "a map of 16 regions")
	var log_path := dir.get_base_dir().path_join("kill_log.txt")
	var project := ProjectSettings.globalize_path("res://")
	var rng := RandomNumberGenerator.new()
	rng.seed = 2512
	# How to start this Godot (the test runner says; else this executable).
	var command := OS.get_environment("WT_GODOT_COMMAND").split("\n", false)
	var godot: Array = [command[0], command.slice(1)] if command.size() > 0 else [OS.get_executable_path(), PackedStringArray()]
	var inside := 0
	var writing := 0
	# Each region's content before the run: what the last check found (0 at first).
	var old: Array[float] = []
	old.resize(16)
	old.fill(0.0)
	for run in 20:
		DirAccess.remove_absolute(log_path)
		var args: PackedStringArray = godot[1] + PackedStringArray(["--headless", "--path", project, "--script", "res://region_save_child.gd", "--", dir])
		var child := OS.execute_with_pipe(godot[0], args, false)
		check(not child.is_empty(), "run %d: the child started" % run)
		if child.is_empty():
			return
		# Wait until it is saving, then a random moment more.
		var waited := 0
		while not _kill_log(log_path)[2] and waited < 5000:
			OS.delay_msec(5)
			waited += 5
		if not _kill_log(log_path)[2]:
			OS.kill(child["pid"])
			check(false, "run %d: the child never began saving" % run)
			return
		if run % 4 == 0:
			OS.delay_msec(rng.randi_range(0, 300))
		else:
			# Three kills in four are aimed inside a save: once a save has ended (the child logs how long
			# it took), at the next "begin" without its "end", a random part of that duration later; so
			# where the kills land does not depend on how fast this machine saves or edits.
			var aimed := 0
			while _kill_log(log_path)[3] == 0 and aimed < 5000:
				OS.delay_msec(1)
				aimed += 1
			while _kill_log(log_path)[0] <= _kill_log(log_path)[1] and aimed < 5000:
				OS.delay_msec(1)
				aimed += 1
			OS.delay_usec(int(rng.randf() * 0.8 * _kill_log(log_path)[3]))
		check_eq(OS.kill(child["pid"]), OK, "run %d: killed" % run)
		var state := _kill_log(log_path)
		var began: int = state[0]
		var ended: int = state[1]
		inside += int(began > ended)
		writing += int(Array(DirAccess.get_files_at(dir)).any(func(f): return f.ends_with(".tmp")))
		var r := TerrainRegions.open(dir)
		check(r != null, "run %d: the map opens after the kill" % run)
		if r == null:
			return
		var bad := 0
		for rz in 4:
			for rx in 4:
				var h := r.get_heights_region(Rect2i(rx * 256, rz * 256, 256, 256))
				var v := h[0]
				var whole := h.count(v) == h.size()
				# Old content: the last save of this run, or before it the previous run's.
				var before := float(ended) if ended > 0 else old[rz * 4 + rx]
				bad += int(not (whole and (v == before or (began > ended and v == float(began)))))
				old[rz * 4 + rx] = v
		check_eq(bad, 0, "run %d (killed after save %d, %s): every region holds one save's content whole" % [run, ended, "inside save %d" % began if began > ended else "between saves"])
	print("kill test: %d of 20 kills landed inside a save, %d while a region file was being written; last values %s" % [inside, writing, old])
	# 15 kills aimed inside a save (polling at 1 ms may miss the start of a short one): most land there.
	check(inside >= 8, "kills landed inside a save (%d of 20)" % inside)
	_remove(dir)


## [last "begin k", last "end k", whether a save began, the last save's duration in µs] from the
## child's log; a last line without its newline (being written) is not counted.
func _kill_log(path: String) -> Array:
	var text := FileAccess.get_file_as_string(path) if FileAccess.file_exists(path) else ""
	var lines := text.split("\n")
	lines.resize(lines.size() - 1)
	var out := [0, 0, false, 0]
	for l in lines:
		var word := l.get_slice(" ", 0)
		var k := l.get_slice(" ", 1)
		if not k.is_valid_int():
			continue
		if word == "begin":
			out[0] = int(k)
			out[2] = true
		elif word == "end":
			out[1] = int(k)
			out[3] = int(l.get_slice(" ", 2))
	return out


## Long calls report progress: `generate_async` writes on a worker (progress rising to 1, the same samples
## as `generate`, the folder opened by `finish_generation`), a cancelled one leaves no map; `save_async`
## saves an endless map's first edit on a worker with its progress, while edits go on, and `save()` waits
## for a running one.
func test_generation_and_saves_report_progress() -> void:
	var g := TerrainGenerator.new()
	g.seed = 8
	var dir := _folder("async_generated")
	var r := TerrainRegions.new()
	check_eq(r.get_generation_progress(), -1.0, "nothing runs")
	check_eq(r.generate_async(g, Vector2i(700, 500), 1.0, dir, 64), OK, "started")
	expect_error("a generation or an import is running")
	check_eq(r.generate_async(g, Vector2i(700, 500), 1.0, dir, 64), ERR_BUSY, "one at a time")
	var seen: Array[float] = []
	var frames := 0
	while not r.finish_generation() and frames < 1200:
		seen.append(r.get_generation_progress())
		await tree.process_frame
		frames += 1
	check(r.get_size() == Vector2i(700, 500), "the folder is open when finished")
	check(seen.all(func(p): return p >= 0.0 and p <= 1.0), "progress within [0, 1]: %s" % [seen.slice(0, 5)])
	var sorted := seen.duplicate()
	sorted.sort()
	check(seen == sorted, "progress never goes back")
	var t := TerrainData.new()
	t.size = Vector2i(700, 500)
	t.generate(g)
	check(r.get_heights_region(Rect2i(0, 0, 700, 500)) == t.get_heights_region(Rect2i(0, 0, 700, 500)), "the samples generate() writes")
	var cancelled := _folder("async_cancelled")
	var c := TerrainRegions.new()
	check_eq(c.generate_async(g, Vector2i(4096, 4096), 1.0, cancelled, 256), OK, "a big one started")
	c.cancel_generation()
	while not c.finish_generation():
		await tree.process_frame
	check(not TerrainRegions.map_exists(cancelled), "a cancelled generation leaves no map")
	_remove(dir)
	# An endless map's save on a worker. Its first save after an edit generates no coarser level: it
	# writes the edited region and the record of the levels still to refresh (16 of them).
	var endless_dir := _folder("async_endless")
	var e := TerrainRegions.create_endless(g, 1.0, endless_dir, 128, true)
	var block := PackedFloat32Array()
	block.resize(64)
	block.fill(42.0)
	e.set_heights_region(Rect2i(-3000, 5000, 8, 8), block)
	var t0 := Time.get_ticks_usec()
	check_eq(e.save(), OK, "the first save")
	var first_ms := (Time.get_ticks_usec() - t0) / 1000.0
	var first_files := Array(DirAccess.get_files_at(endless_dir))
	first_files.sort()
	# (The background lane may have refreshed a level or two since the edit: those are written too.)
	var coarse := first_files.filter(func(f): return f.begins_with("h") and not f.begins_with("h0_"))
	check(first_files.has("h0_65512_65575.bin") and first_files.has("stale.mips") and first_files.has("terrain.regions"), "the edited region and the record: %s" % [first_files])
	check(coarse.size() < 4 and first_files.size() == 3 + coarse.size(), "not a region at each of %d coarser levels: %s (%.0f ms)" % [e.get_mip_count() - 1, first_files, first_ms])
	e.set_heights_region(Rect2i(-2990, 5000, 8, 8), block)
	check_eq(e.save_async(), OK, "save started")
	check(e.get_save_progress() >= 0.0, "a save runs")
	e.set_heights_region(Rect2i(9000, 9000, 8, 8), block)   # an edit while saving: never lost
	var progress: Array[float] = []
	while e.finish_save() == ERR_BUSY:
		progress.append(e.get_save_progress())
		await tree.process_frame
	check(progress.all(func(p): return p >= 0.0 and p < 1.0), "progress while running: %s" % [progress.slice(0, 5)])
	check_eq(e.get_save_progress(), -1.0, "no save runs once finished")
	var on_disk := TerrainRegions.open_generated(endless_dir, g).get_height(Vector2(9004.5, 9004.5)) == 42.0
	check(on_disk or e.has_unsaved_changes(), "the edit made during the save is written by it or waits for the next")
	check_eq(e.save_async(), OK, "a second save")
	check_eq(e.save(), OK, "save() waits for the running one, then saves the rest")
	check(not e.has_unsaved_changes(), "all saved")
	var again := TerrainRegions.open_generated(endless_dir, g)
	check_eq(again.get_height(Vector2(-2995.5, 5004.5)), 42.0, "the first edit is on disk")
	check_eq(again.get_height(Vector2(9004.5, 9004.5)), 42.0, "and the second")
	_remove(endless_dir)
