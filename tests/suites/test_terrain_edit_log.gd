extends "res://wt_test.gd"
## TerrainEditLog: every edit of a TerrainData or TerrainRegions recorded as an operation (a dab in 48
## bytes), replayed bit for bit — in this process, and in two child processes with different
## RAYON_NUM_THREADS, one of them receiving the operations out of order — and bad operations refused
## with the log intact.

const MAP := 4242


func _ground() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(192, 160)
	t.spacing = 1.0
	t.generate_noise(5, 0.02, 4, 2.0, 0.5, 12.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _logged(t: Resource) -> TerrainEditLog:
	var log := TerrainEditLog.new()
	log.map_id = MAP
	t.edit_log = log
	return log


## `n` edits of every kind at places drawn from a seeded generator: brush dabs of nine tools, an image
## brush (kept as the samples it changed), heights, paint and holes regions. Returns how many succeeded.
func _edit(t: Resource, n: int, origin := Vector2i.ZERO) -> int:
	var rng := RandomNumberGenerator.new()
	rng.seed = 77
	var tools := [TerrainBrush.RAISE, TerrainBrush.LOWER, TerrainBrush.SMOOTH, TerrainBrush.FLATTEN, TerrainBrush.PAINT, TerrainBrush.ERASE, TerrainBrush.HOLE_ADD, TerrainBrush.HOLE_REMOVE, TerrainBrush.ERODE]
	var stamp := Image.create(8, 8, false, Image.FORMAT_RGBA8)
	stamp.fill(Color(1, 1, 1, 0.6))
	var ok := 0
	for i in n:
		var at := Vector2(rng.randf_range(8, 184), rng.randf_range(8, 152)) + Vector2(origin)
		var r := Rect2i(Vector2i(rng.randi_range(0, 170), rng.randi_range(0, 140)) + origin, Vector2i(rng.randi_range(1, 20), rng.randi_range(1, 20)))
		var k := i % 10
		if k < 7:
			var b := TerrainBrush.new()
			b.tool = tools[(i / 10 * 7 + k) % tools.size()]
			b.size = rng.randf_range(4.0, 16.0)
			b.strength = rng.randf_range(0.5, 6.0)
			b.hardness = rng.randf()
			b.layer = i % 5
			b.height = 3.0
			# Recorded whether or not it changed anything (a receiver must count it too).
			t.apply_brush(b, at, 0.05)
			ok += 1
		elif k == 7:
			var v := PackedFloat32Array()
			v.resize(r.size.x * r.size.y)
			v.fill(rng.randf_range(-5, 5))
			ok += int(t.set_heights_region(r, v))
		elif k == 8:
			var w := PackedFloat32Array()
			w.resize(r.size.x * r.size.y)
			w.fill(rng.randf())
			ok += int(t.set_layer_region(r, i % 7, w))
		elif i % 20 == 9:
			var h := PackedByteArray()
			h.resize(r.size.x * r.size.y)
			h.fill(i % 3)
			ok += int(t.set_holes_region(r, h))
		else:
			var b := TerrainBrush.new()
			b.image = stamp
			b.size = 10.0
			b.strength = 4.0
			ok += int(t.apply_brush(b, at, 0.05).has_area())
	return ok


func test_a_dab_is_one_48_byte_operation_announced_after_the_edit() -> void:
	var t := _ground()
	var log := _logged(t)
	var got: Array[PackedByteArray] = []
	var on_op := func(op: PackedByteArray) -> void:
		got.append(op)
		# Deferred: the terrain can be read from the handler.
		t.get_height(Vector2(40, 40))
	log.operation_recorded.connect(on_op)
	var b := TerrainBrush.new()
	b.size = 10.0
	check(t.apply_brush(b, Vector2(40, 40), 0.1).has_area(), "the dab changed the ground")
	check_eq(log.get_operation_count(), 1, "one operation")
	var op := log.get_operation(0)
	check_eq(op.size(), TerrainEditLog.DAB_BYTES, "a dab's operation")
	check_eq(TerrainEditLog.DAB_BYTES, 48, "48 bytes")
	var d := TerrainEditLog.describe(op)
	check_eq(d["kind"], "dab", "described as a dab")
	check_eq(d["map_id"], MAP, "of this map")
	check_eq(d["sequence"], 0, "the first")
	check_eq(d["center"], Vector2(40, 40), "at the dab's centre")
	check_eq(got.size(), 0, "announced after the call returns")
	await tree.process_frame
	check_eq(got.size(), 1, "announced once")
	check(got.size() == 1 and got[0] == op, "with the operation's bytes")
	# Not recorded: an edit that failed.
	expect_error("must lie inside the")
	check(not t.set_heights_region(Rect2i(500, 500, 2, 2), PackedFloat32Array([1, 2, 3, 4])), "outside the terrain")
	check_eq(log.get_operation_count(), 1, "a refused edit is not recorded")
	log.operation_recorded.disconnect(on_op)


func test_a_replay_is_equal_bit_for_bit_in_this_process() -> void:
	var base := _ground()
	var t := base.duplicate() as TerrainData
	var log := _logged(t)
	var ok := _edit(t, 1000)
	check_eq(log.get_operation_count(), ok, "every successful edit recorded (%d)" % ok)
	check(ok >= 990, "nearly every edit succeeded (%d)" % ok)
	var want := t.get_content_hash(Rect2i())
	check(want != base.get_content_hash(Rect2i()), "the edits changed the map")
	var bytes := 0
	var dabs := 0
	for i in log.get_operation_count():
		var d := TerrainEditLog.describe(log.get_operation(i))
		bytes += int(d["bytes"])
		dabs += int(d["kind"] == "dab")
	print("edit log: %d operations (%d dabs), %d bytes" % [log.get_operation_count(), dabs, bytes])
	var copy := base.duplicate() as TerrainData
	var other := _logged(copy)
	for i in log.get_operation_count():
		check_eq(copy.apply_edit(log.get_operation(i)), OK, "operation %d applied" % i)
	check_eq(other.get_operation_count(), log.get_operation_count(), "the replay's log has them all")
	check_eq(copy.get_content_hash(Rect2i()), want, "same heights and control")
	check(copy.heights == t.heights, "the same heights, bit for bit")
	check(copy.control == t.control, "the same control values")
	check_eq(other.get_operation(500), log.get_operation(500), "the same bytes in both logs")


## The check of the issue: two processes with different RAYON_NUM_THREADS replay the same log (one in
## order, one shuffled with duplicates) and reach the recording's hash.
func test_two_processes_with_different_thread_counts_replay_the_same_map() -> void:
	var dir := "user://edit_log"
	DirAccess.make_dir_recursive_absolute(dir)
	var base := _ground()
	check_eq(ResourceSaver.save(base, dir.path_join("base.res")), OK, "base map saved")
	var t := base.duplicate() as TerrainData
	var log := _logged(t)
	_edit(t, 1000)
	check_eq(ResourceSaver.save(log, dir.path_join("log.res")), OK, "log saved")
	var want := t.get_content_hash(Rect2i())
	var command := OS.get_environment("WT_GODOT_COMMAND").split("\n", false)
	var godot: Array = [command[0], command.slice(1)] if command.size() > 0 else [OS.get_executable_path(), PackedStringArray()]
	var project := ProjectSettings.globalize_path("res://")
	var was := OS.get_environment("RAYON_NUM_THREADS")
	for run in [["1", "0"], ["2", "0"], ["2", "9"]]:
		OS.set_environment("RAYON_NUM_THREADS", run[0])
		var args: PackedStringArray = godot[1] + PackedStringArray(["--headless", "--path", project, "--script", "res://edit_log_child.gd", "--", ProjectSettings.globalize_path(dir.path_join("base.res")), ProjectSettings.globalize_path(dir.path_join("log.res")), run[1]])
		var out := []
		var code := OS.execute(godot[0], args, out, true)
		var line := ""
		for l in "\n".join(out).split("\n"):
			if l.begins_with("HASH "):
				line = l
		check_eq(code, 0, "threads %s, seed %s: the child ran" % run)
		var f := line.split(" ")
		check(f.size() == 10, "threads %s: it reported (%s)" % [run[0], line])
		if f.size() == 10:
			check_eq(int(f[1]), want, "threads %s, seed %s: the recording's hash" % run)
			check_eq(int(f[3]), log.get_operation_count(), "every operation applied")
			check_eq(int(f[5]), 0, "none left held")
			check_eq(int(f[7]), 0, "none refused")
			check_eq(f[9], run[0], "the child ran with RAYON_NUM_THREADS=%s" % run[0])
	OS.set_environment("RAYON_NUM_THREADS", was)


func test_operations_out_of_order_wait_for_their_turn() -> void:
	var base := _ground()
	var t := base.duplicate() as TerrainData
	var log := _logged(t)
	_edit(t, 60)
	var copy := base.duplicate() as TerrainData
	var other := _logged(copy)
	var ops := log.operations
	check_eq(copy.apply_edit(ops[2]), OK, "an early operation is accepted")
	check_eq(copy.apply_edit(ops[1]), OK, "another")
	check_eq(other.get_held_count(), 2, "both held")
	check_eq(other.get_operation_count(), 0, "nothing applied yet")
	check_eq(copy.get_content_hash(Rect2i()), base.get_content_hash(Rect2i()), "the map unchanged")
	check_eq(copy.apply_edit(ops[2]), ERR_ALREADY_EXISTS, "a held one sent again is a duplicate")
	check_eq(copy.apply_edit(ops[0]), OK, "the first")
	check_eq(other.get_operation_count(), 3, "it unblocked the held ones")
	check_eq(other.get_held_count(), 0, "nothing held")
	check_eq(copy.apply_edit(ops[1]), ERR_ALREADY_EXISTS, "an applied one sent again is ignored")
	for i in range(ops.size() - 1, 2, -1):
		copy.apply_edit(ops[i])
	check_eq(other.get_operation_count(), ops.size(), "all applied once the gap closed")
	check_eq(copy.get_content_hash(Rect2i()), t.get_content_hash(Rect2i()), "the same map")
	# A late joiner: the base map and the operations since it.
	var late := base.duplicate() as TerrainData
	_logged(late)
	for op in log.get_operations_since(0):
		late.apply_edit(op)
	check_eq(late.get_content_hash(Rect2i()), t.get_content_hash(Rect2i()), "a late joiner reaches the same map")
	check_eq(log.get_operations_since(58).size(), ops.size() - 58, "the operations since a saved copy")


func test_bad_operations_are_refused_and_the_log_kept() -> void:
	var base := _ground()
	var t := base.duplicate() as TerrainData
	var log := _logged(t)
	_edit(t, 20)
	var copy := base.duplicate() as TerrainData
	var other := _logged(copy)
	for i in 5:
		copy.apply_edit(log.get_operation(i))
	var hash := copy.get_content_hash(Rect2i())
	var op := log.get_operation(5)
	expect_error("truncated or malformed")
	check_eq(copy.apply_edit(op.slice(0, op.size() - 3)), ERR_INVALID_DATA, "a truncated operation")
	expect_error("must be 12 bytes")
	check_eq(copy.apply_edit(PackedByteArray([1, 2, 3])), ERR_INVALID_DATA, "three bytes")
	var kind := op.duplicate()
	kind[0] = 77
	expect_error("unknown operation kind 77")
	check_eq(copy.apply_edit(kind), ERR_INVALID_DATA, "an unknown kind")
	# The sixth operation of another map: only the map differs from what comes next here.
	var stranger := TerrainEditLog.new()
	stranger.map_id = 99
	var f2 := TerrainData.new()
	f2.edit_log = stranger
	for i in 6:
		f2.set_heights_region(Rect2i(0, 0, 2, 2), PackedFloat32Array([i, 2, 3, 4]))
	expect_error("belongs to map 99, this log's map_id is %d" % MAP)
	check_eq(copy.apply_edit(stranger.get_operation(5)), ERR_INVALID_PARAMETER, "another map's operation")
	check_eq(copy.get_content_hash(Rect2i()), hash, "nothing applied")
	check_eq(other.get_operation_count(), 5, "the log unchanged")
	check_eq(other.get_held_count(), 0, "nothing held")
	check_eq(copy.apply_edit(op), OK, "the good operation still applies")
	check_eq(other.get_operation_count(), 6, "and joins the log")
	var bare := base.duplicate() as TerrainData
	expect_error("edit_log is not set")
	check_eq(bare.apply_edit(op), ERR_UNCONFIGURED, "no log to order by")
	expect_error("map_id cannot change while the log holds 6 operations")
	other.map_id = 5
	check_eq(other.map_id, MAP, "map_id kept")
	expect_error("map_id must be in 0 .. 4294967295")
	TerrainEditLog.new().map_id = -1
	var damaged := other.operations
	damaged[3] = damaged[3].slice(0, 20)
	expect_error("operations[3]")
	other.operations = damaged
	check_eq(other.get_operation_count(), 6, "a damaged saved log is refused whole")
	check(TerrainEditLog.describe(PackedByteArray([9])).has("error"), "describe names what is wrong")


## A log saved as a file of its own, loaded back: the same operations, and a loaded log goes on recording.
func test_a_saved_log_loads_and_goes_on() -> void:
	var t := _ground()
	var log := _logged(t)
	_edit(t, 30)
	var path := "user://edit_log_saved.res"
	check_eq(ResourceSaver.save(log, path), OK, "saved")
	var loaded := ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE) as TerrainEditLog
	check(loaded != null, "loaded")
	if loaded == null:
		return
	check_eq(loaded.map_id, MAP, "its map id")
	check_eq(loaded.operations, log.operations, "its operations")
	t.edit_log = loaded
	t.set_holes_region(Rect2i(3, 3, 2, 2), PackedByteArray([1, 1, 1, 1]))
	check_eq(TerrainEditLog.describe(loaded.get_operation(loaded.get_operation_count() - 1))["sequence"], log.get_operation_count(), "recording goes on from where it was")
	# Not saved with the map (see TerrainData.edit_log).
	var data_path := "user://edit_log_map.res"
	check_eq(ResourceSaver.save(t, data_path), OK, "map saved")
	var map := ResourceLoader.load(data_path, "", ResourceLoader.CACHE_MODE_IGNORE) as TerrainData
	check(map.edit_log == null, "the map comes back without a log")
	check_eq(map.get_content_hash(Rect2i()), t.get_content_hash(Rect2i()), "with its edits")


## A stroke in the editor's way (TerrainBrushStroke on a TerrainNode) and its undo are recorded too.
func test_a_stroke_and_its_undo_are_recorded() -> void:
	var base := _ground()
	var t := base.duplicate() as TerrainData
	var log := _logged(t)
	var node := TerrainNode.new()
	node.terrain_data = t
	tree.root.add_child(node)
	var b := TerrainBrush.new()
	b.size = 12.0
	var stroke := TerrainBrushStroke.begin(node, b)
	for i in 10:
		stroke.dab(Vector3(30 + i, 0, 40), 0.05)
	stroke.finish()
	var dabs := log.get_operation_count()
	check(dabs >= 10, "the stroke's dabs recorded (%d)" % dabs)
	stroke.undo()
	check(log.get_operation_count() > dabs, "the undo recorded")
	check_eq(t.get_content_hash(Rect2i()), base.get_content_hash(Rect2i()), "undone")
	var copy := base.duplicate() as TerrainData
	_logged(copy)
	for op in log.operations:
		copy.apply_edit(op)
	check_eq(copy.get_content_hash(Rect2i()), t.get_content_hash(Rect2i()), "replayed: the same (undone) map")
	node.queue_free()


## A region map records and replays the same way (a second copy of its folder as the other machine).
func test_a_region_map_replays_the_same() -> void:
	var base := _ground()
	var dirs := ["user://edit_log_regions/a", "user://edit_log_regions/b"]
	for d in dirs:
		check_eq(base.save_regions(d, 64, true), OK, "map saved to %s" % d)
	var a := TerrainRegions.open(dirs[0])
	var b := TerrainRegions.open(dirs[1])
	var log := _logged(a)
	var other := _logged(b)
	var ok := _edit(a, 200)
	check_eq(log.get_operation_count(), ok, "recorded")
	for op in log.operations:
		b.apply_edit(op)
	check_eq(other.get_operation_count(), ok, "replayed")
	var all := Rect2i(Vector2i.ZERO, a.get_size())
	check_eq(b.get_content_hash(all), a.get_content_hash(all), "the same heights and control")
	check(a.get_content_hash(all) != base.get_content_hash(Rect2i()), "the edits changed the map")


## A road (TerrainPath) laid, sculpted beside and under, and moved: the ground it wrote is recorded after
## the edits that made it write, so a machine without the road node replays to the same map.
func test_a_path_move_replays_as_the_ground_it_wrote() -> void:
	var base := _ground()
	var t := base.duplicate() as TerrainData
	var log := _logged(t)
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_data = t
	tree.root.add_child(tn)
	var road := TerrainPath.new()
	var c := Curve3D.new()
	for p in [Vector3(20, 4, 30), Vector3(90, 6, 80), Vector3(170, 3, 120)]:
		c.add_point(p)
	road.curve = c
	road.width = 8.0
	tn.add_child(road)
	await _applied(road)
	var laid := log.get_operation_count()
	check(laid >= 2, "laying the road recorded the ground it wrote (%d operations)" % laid)
	_edit(t, 120)
	road.curve.set_point_position(1, Vector3(100, 9, 40))
	await _applied(road)
	_edit(t, 40)
	check(t.get_content_hash(Rect2i()) != base.get_content_hash(Rect2i()), "the map changed")
	var copy := base.duplicate() as TerrainData
	_logged(copy)
	for op in log.operations:
		copy.apply_edit(op)
	check_eq(copy.get_content_hash(Rect2i()), t.get_content_hash(Rect2i()), "a machine without the road reaches the same map")
	tn.queue_free()


func _applied(layer: Node) -> void:
	var n := 0
	while n < 300 and not layer.is_applied():
		await tree.process_frame
		n += 1
	check(layer.is_applied(), "the layer applied within 300 frames")


## An edit beyond what one operation carries (2048² samples) is recorded in bands of rows and replays to
## the same map.
func test_a_huge_edit_goes_in_bands() -> void:
	var base := TerrainData.new()
	base.size = Vector2i(2100, 2100)
	var t := base.duplicate() as TerrainData
	var log := _logged(t)
	var v := PackedFloat32Array()
	v.resize(2100 * 2100)
	for i in v.size():
		v[i] = float(i % 977) * 0.01
	check(t.set_heights_region(Rect2i(0, 0, 2100, 2100), v), "the whole map set")
	check_eq(log.get_operation_count(), 2, "two bands")
	for i in 2:
		var d := TerrainEditLog.describe(log.get_operation(i))
		check(d["region"].size.x * d["region"].size.y <= 2048 * 2048, "band %d within one operation (%s)" % [i, d["region"]])
	var copy := base.duplicate() as TerrainData
	_logged(copy)
	for op in log.operations:
		check_eq(copy.apply_edit(op), OK, "applied")
	check_eq(copy.get_content_hash(Rect2i()), t.get_content_hash(Rect2i()), "the same map")
