extends "res://wt_test.gd"
## TerrainInstancer from GDScript: instances stand on the ground and follow every edit, holes hide them
## and filling brings them back, the API's counts and areas, deterministic scatter (golden transforms),
## bit-exact .res/.tres round trips, the instance brush, GPU cells bounded by the view, bad input.

const SIZE := 256
const GOLDEN := "res://fixtures/instances/scatter_seed7.txt"


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(3, 1.0 / 40.0, 4, 2.0, 0.5, 12.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _mesh(offset := 0.0) -> TerrainInstanceMesh:
	var m := TerrainInstanceMesh.new()
	var box := BoxMesh.new()
	box.size = Vector3(0.5, 2.0, 0.5)
	m.mesh = box
	m.height_offset = offset
	m.visibility_range = 2000.0
	return m


## A terrain with an instancer of `meshes` and a camera above its middle; returns [terrain, instancer, camera].
func _scene(t: TerrainData, meshes: Array[TerrainInstanceMesh]) -> Array:
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_data = t
	var inst := TerrainInstancer.new()
	inst.meshes = meshes
	tn.add_child(inst)
	var cam := Camera3D.new()
	cam.position = Vector3(SIZE / 2.0, 300.0, SIZE / 2.0)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	return [tn, inst, cam]


func _free(s: Array) -> void:
	for n in s:
		n.queue_free()


## Worst |y - (get_height + offset)| over transforms; INF if any is not finite.
func _glue_error(tn: TerrainNode, ts: Array, offset: float) -> float:
	var worst := 0.0
	for t: Transform3D in ts:
		worst = worst_of(worst, absf(t.origin.y - tn.get_height(Vector2(t.origin.x, t.origin.z)) - offset))
	return worst


func _drawn_error(tn: TerrainNode, ps: PackedVector3Array, offset: float) -> float:
	var worst := 0.0
	for p in ps:
		worst = worst_of(worst, absf(p.y - tn.get_height(Vector2(p.x, p.z)) - offset))
	return worst


func test_scattered_instances_stand_on_the_ground_and_follow_edits() -> void:
	var t := _data()
	var s := _scene(t, [_mesh(0.5)])
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var n := inst.scatter(0, Rect2(0, 0, SIZE, SIZE), 10000, 7)
	check_eq(n, 10000, "scatter places the count asked on open ground")
	check_eq(inst.get_instance_count(0), 10000, "count")
	var all := Rect2(-10, -10, SIZE + 20, SIZE + 20)
	check(_glue_error(tn, inst.get_instances(0, all), 0.5) <= 1e-4, "instances at get_height + offset")
	inst.update_now()
	check_eq(inst.get_drawn_count(0), 10000, "every instance drawn")
	check(_drawn_error(tn, inst.get_drawn_positions(0), 0.5) <= 1e-4, "drawn at get_height + offset")
	# A brush and a region write under the instances; drawn positions follow by the next frames.
	var b := TerrainBrush.new()
	b.size = 120.0
	b.strength = 30.0
	t.apply_brush(b, Vector2(128, 128), 0.5)
	var flat := PackedFloat32Array()
	flat.resize(64 * 64)
	flat.fill(3.25)
	t.set_heights_region(Rect2i(10, 10, 64, 64), flat)
	check(_glue_error(tn, inst.get_instances(0, all), 0.5) <= 1e-4, "get_instances follows at once")
	var frames_taken := 0
	while not inst.is_up_to_date() and frames_taken < 30:
		await tree.process_frame
		frames_taken += 1
	print("instancer: 10,000 instances under a brush and a region write drawn on the ground after %d frames" % frames_taken)
	# The first frame's signal comes before the nodes process: 2 is the next frame drawn.
	check(frames_taken <= 2, "the edit is drawn on the next frame (took %d)" % frames_taken)
	check_eq(inst.get_drawn_count(0), 10000, "all still drawn")
	check(_drawn_error(tn, inst.get_drawn_positions(0), 0.5) <= 1e-4, "drawn positions follow the edit")
	# Undo-like whole replacement (generation) also moves them.
	t.generate_noise(9, 1.0 / 30.0, 3, 2.0, 0.5, 20.0, -1e9, TerrainData.NOISE_PERLIN)
	inst.update_now()
	check(_drawn_error(tn, inst.get_drawn_positions(0), 0.5) <= 1e-4, "drawn positions follow a regeneration")
	_free(s)


func test_holes_hide_instances_and_filling_brings_them_back() -> void:
	var t := _data()
	var s := _scene(t, [_mesh()])
	var inst: TerrainInstancer = s[1]
	inst.scatter(0, Rect2(0, 0, SIZE, SIZE), 4000, 3)
	inst.update_now()
	check_eq(inst.get_drawn_count(0), 4000, "all drawn")
	var holes := PackedByteArray()
	holes.resize(60 * 60)
	holes.fill(1)
	t.set_holes_region(Rect2i(100, 100, 60, 60), holes)
	inst.update_now()
	var drawn := inst.get_drawn_count(0)
	check(drawn < 4000 - 150, "instances over the hole are not drawn (%d drawn)" % drawn)
	var inside := 0
	for p in inst.get_drawn_positions(0):
		if p.x > 101.5 and p.x < 158.5 and p.z > 101.5 and p.z < 158.5:
			inside += 1
	check_eq(inside, 0, "none drawn inside the hole")
	check_eq(inst.get_instance_count(0), 4000, "the data is kept")
	holes.fill(0)
	t.set_holes_region(Rect2i(100, 100, 60, 60), holes)
	inst.update_now()
	check_eq(inst.get_drawn_count(0), 4000, "filling the hole brings them back")
	_free(s)


func test_add_get_remove_in_world_space() -> void:
	var t := _data()
	var s := _scene(t, [_mesh(), _mesh()])
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	tn.position = Vector3(50, 2, -30)
	var ts: Array[Transform3D] = []
	for i in 100:
		var x := 60.0 + i * 2.0
		var z := -20.0 + (i % 10) * 7.0
		var b := Basis(Vector3.UP, i * 0.1).scaled(Vector3(1.5, 2.0, 1.5))
		ts.append(Transform3D(b, Vector3(x, tn.get_height(Vector2(x, z)) + 0.75, z)))
	ts.append(Transform3D(Basis(), Vector3(-500, 0, 0)))  # off the terrain: skipped
	check_eq(inst.add_instances(1, ts), 100, "added on the terrain only")
	var got := inst.get_instances(1, Rect2(0, -100, 1000, 1000))
	check_eq(got.size(), 100, "all back")
	var worst := 0.0
	for g: Transform3D in got:
		var best := INF
		for w: Transform3D in ts:
			best = minf(best, g.origin.distance_to(w.origin))
		worst = worst_of(worst, best)
	check(worst < 1e-3, "positions come back (worst %f)" % worst)
	var g0: Transform3D = got[0]
	check(absf(g0.basis.get_scale().y - 2.0) < 1e-3, "scale kept: %s" % g0.basis.get_scale())
	check_eq(inst.get_instance_count(0), 0, "other mesh untouched")
	var removed := inst.remove_instances(1, Rect2(60, -25, 50, 100))
	check(removed > 0 and removed < 100, "some removed (%d)" % removed)
	check_eq(inst.get_instance_count(1), 100 - removed, "count after removal")
	check_eq(inst.get_instances(1, Rect2(60, -25, 50, 100)).size(), 0, "none left in the area")
	inst.scatter(0, Rect2(60, -30, 200, 200), 50, 1)
	check_eq(inst.remove_instances(-1, Rect2(-1000, -1000, 3000, 3000)), 150 - removed, "mesh -1 removes every mesh")
	check_eq(inst.get_instance_count(-1), 0, "empty")
	_free(s)


## A canonical text of transforms: one line each, floats as their exact bits.
func _text(ts: Array) -> String:
	var lines := PackedStringArray()
	for tr: Transform3D in ts:
		var v := PackedFloat32Array([tr.basis.x.x, tr.basis.x.y, tr.basis.x.z, tr.basis.y.x, tr.basis.y.y,
			tr.basis.y.z, tr.basis.z.x, tr.basis.z.y, tr.basis.z.z, tr.origin.x, tr.origin.y, tr.origin.z])
		lines.append(v.to_byte_array().hex_encode())
	return "\n".join(lines)


func test_scatter_is_deterministic_and_matches_the_golden_run() -> void:
	var texts := []
	var inst_first := []
	for run in 2:
		var s := _scene(_data(), [_mesh()])
		var inst: TerrainInstancer = s[1]
		var m: TerrainInstanceMesh = inst.meshes[0]
		m.scale_min = 0.5
		m.scale_max = 1.5
		m.align_to_normal = 0.5
		m.slope_max = 25.0
		inst.scatter(0, Rect2(10, 20, 200, 180), 500, 7)
		texts.append(_text(inst.get_instances(0, Rect2(0, 0, SIZE, SIZE))))
		inst_first = inst.get_instances(0, Rect2(0, 0, SIZE, SIZE))
		_free(s)
	check(texts[0] == texts[1], "two scatters with one seed give the same transforms")
	var hash: String = texts[0].sha256_text()
	var first := _readable(inst_first)
	if not FileAccess.file_exists(GOLDEN):
		check(false, "no golden file %s; this run's hash is %s, first transforms:\n%s" % [GOLDEN, hash, "\n".join(first)])
		return
	# The file: the hash of every transform, then the first three readable (origin | basis x), so a
	# failure shows what moved.
	var want := FileAccess.get_file_as_string(GOLDEN).strip_edges().split("\n")
	check_eq(want.size(), 4, "golden file: a hash and three transforms")
	for k in mini(3, want.size() - 1):
		check_eq(first[k] if k < first.size() else "", want[k + 1], "instance %d as in the golden run" % k)
	check_eq(hash, want[0], "transforms equal those of the golden run (another process, another machine)")


## Origin and basis x of the first three transforms, to 0.1 mm.
func _readable(ts: Array) -> PackedStringArray:
	var out := PackedStringArray()
	for tr: Transform3D in ts.slice(0, 3):
		out.append("%.4f %.4f %.4f | %.4f %.4f %.4f" % [tr.origin.x, tr.origin.y, tr.origin.z, tr.basis.x.x, tr.basis.x.y, tr.basis.x.z])
	return out


## scatter places `count` where its rules allow, trying up to 4 × count points: on an area mostly off a
## finite terrain it places fewer, and returns what it placed; a second scatter adds more, and one with
## replace = true gives the same instances again.
func test_scatter_returns_what_it_placed_and_replace_makes_it_idempotent() -> void:
	var s := _scene(_data(), [_mesh()])
	var inst: TerrainInstancer = s[1]
	var area := Rect2(-SIZE * 9.0, 0, SIZE * 10.0, SIZE)  # a tenth of it on the terrain
	var n := inst.scatter(0, area, 2000, 5)
	check(n > 600 and n < 1000, "about a tenth of 8000 points land on the terrain: %d placed" % n)
	check_eq(inst.get_instance_count(0), n, "the return is what was placed")
	var first := _text(inst.get_instances(0, Rect2(0, 0, SIZE, SIZE)))
	check_eq(inst.scatter(0, area, 2000, 5, true), n, "replace: the same number again")
	check_eq(inst.get_instance_count(0), n, "not doubled")
	check(_text(inst.get_instances(0, Rect2(0, 0, SIZE, SIZE))) == first, "the same transforms")
	check_eq(inst.scatter(0, area, 2000, 5), n, "without replace the same points again...")
	check_eq(inst.get_instance_count(0), 2 * n, "...are added to those there")
	_free(s)


func test_res_and_tres_round_trip_bit_exact() -> void:
	var t := _data()
	var s := _scene(t, [_mesh(), _mesh()])
	var inst: TerrainInstancer = s[1]
	inst.scatter(0, Rect2(0, 0, SIZE, SIZE), 3000, 11)
	inst.scatter(1, Rect2(30, 30, 100, 100), 500, 12)
	var res: TerrainInstances = inst.instances
	var bytes := res.data
	for ext: String in ["res", "tres"]:
		var path := "user://instances_round_trip." + ext
		check_eq(ResourceSaver.save(res, path), OK, "save " + ext)
		var back: TerrainInstances = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
		check(back != null and back.data == bytes, "%s round trip is bit-exact" % ext)
		check(back != null and back.get_total_count() == 3500, "%s count" % ext)
	_free(s)


func test_the_instance_brush_fills_toward_the_density_and_erases() -> void:
	var t := _data()
	var m := _mesh()
	m.density = 0.05
	var s := _scene(t, [m])
	var inst: TerrainInstancer = s[1]
	var b := TerrainBrush.new()
	b.tool = TerrainBrush.INSTANCE_ADD
	b.mesh_index = 0
	b.size = 40.0
	b.strength = 2.0
	b.hardness = 1.0
	for i in 30:
		inst.apply_brush(b, Vector2(128, 128), 0.1)
	var n := inst.get_instance_count(0)
	var want := 0.05 * PI * 20.0 * 20.0
	check(n >= want * 0.85 and n <= want + 2, "painting fills to the density: %d of %f" % [n, want])
	for tr: Transform3D in inst.get_instances(0, Rect2(0, 0, SIZE, SIZE)):
		check(Vector2(tr.origin.x, tr.origin.z).distance_to(Vector2(128, 128)) < 20.0, "inside the dab")
	b.tool = TerrainBrush.INSTANCE_REMOVE
	var r := inst.apply_brush(b, Vector2(128, 128), 0.25)
	check(r.has_area(), "erasing reports its rectangle")
	var left := inst.get_instance_count(0)
	check(left < n and left > 0, "one short dab removes some: %d -> %d" % [n, left])
	for i in 20:
		inst.apply_brush(b, Vector2(128, 128), 0.5)
	check_eq(inst.get_instance_count(0), 0, "erasing long enough removes every one")
	_free(s)


func test_only_cells_in_view_are_on_the_gpu() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	var m := _mesh()
	m.visibility_range = 64.0
	var s := _scene(t, [m])
	var inst: TerrainInstancer = s[1]
	var cam: Camera3D = s[2]
	cam.position = Vector3(500, 20, 500)
	inst.scatter(0, Rect2(0, 0, 1024, 1024), 50000, 2)
	inst.update_now()
	var gpu := inst.get_gpu_cell_count()
	# Cells of 32 within 64 of the camera: at most a 6 x 6 block (of 1024 cells).
	check(gpu > 4 and gpu <= 36, "GPU cells bounded by the view: %d" % gpu)
	check(inst.get_drawn_count(0) < 3000, "only instances near the camera drawn: %d" % inst.get_drawn_count(0))
	cam.position = Vector3(100, 20, 900)
	inst.update_now()
	var far := inst.get_drawn_positions(0)
	var worst := 0.0
	for p in far:
		worst = worst_of(worst, Vector2(p.x - 100, p.z - 900).length())
	check(far.size() > 0 and worst < 64 + 2 * 32 * 1.5, "the cells follow the camera (farthest %f)" % worst)
	_free(s)


func test_bad_input_is_refused_with_the_property_named() -> void:
	var s := _scene(_data(), [_mesh()])
	var inst: TerrainInstancer = s[1]
	expect_error("mesh_index must be in [0, 0]")
	check_eq(inst.scatter(3, Rect2(0, 0, 10, 10), 10, 1), 0, "bad mesh index")
	expect_error("area must be finite")
	check_eq(inst.scatter(0, Rect2(NAN, 0, 10, 10), 10, 1), 0, "NaN area")
	expect_error("count must be in [0, 10000000]")
	check_eq(inst.scatter(0, Rect2(0, 0, 10, 10), -5, 1), 0, "negative count")
	var m := TerrainInstanceMesh.new()
	expect_error("density must be in [0, 100]")
	m.density = -1.0
	check_eq(m.density, 0.01, "density kept")
	expect_error("align_to_normal must be in [0, 1]")
	m.align_to_normal = NAN
	expect_error("visibility_range must be in (0, 100000]")
	m.visibility_range = 0.0
	m.scale_min = 3.0
	check_eq(m.scale_max, 3.0, "scale_max follows a larger scale_min")
	var b := TerrainBrush.new()
	expect_error("INSTANCE_ADD, INSTANCE_REMOVE, DETAIL_ADD or DETAIL_REMOVE")
	inst.apply_brush(b, Vector2(10, 10), 0.1)
	var res := TerrainInstances.new()
	expect_error("TerrainInstances.data: instance data is truncated")
	res.data = PackedByteArray([87, 84, 73, 78, 1, 0, 0, 0])
	check_eq(res.get_total_count(), 0, "kept empty")
	expect_error("cell_size must be in [1, 4096]")
	res.cell_size = 0.0
	check_eq(res.cell_size, 32.0, "cell size kept")
	var lone := TerrainInstancer.new()
	var one: Array[TerrainInstanceMesh] = [_mesh()]
	lone.meshes = one
	tree.root.add_child(lone)
	check(lone.check_setup().size() == 1, "warns outside a terrain")
	expect_error("must be a child of a TerrainNode")
	check_eq(lone.scatter(0, Rect2(0, 0, 1, 1), 1, 1), 0, "nothing without a terrain")
	lone.queue_free()
	_free(s)


func test_on_an_endless_world_and_under_a_wandering_terrain() -> void:
	# An endless generated world: cells far out computed on the workers, standing on get_height.
	var g := TerrainGenerator.new()
	g.seed = 5
	g.height = 40.0
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_generator = g
	var inst := TerrainInstancer.new()
	var meshes: Array[TerrainInstanceMesh] = [_mesh(0.25)]
	inst.meshes = meshes
	tn.add_child(inst)
	var cam := Camera3D.new()
	cam.position = Vector3(100000, 100, -50000)
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	var n := inst.scatter(0, Rect2(100000 - 100, -50000 - 100, 200, 200), 2000, 4)
	check_eq(n, 2000, "scatter far out on an endless world")
	inst.update_now()
	check_eq(inst.get_drawn_count(0), 2000, "all drawn around the camera")
	# 100 km out a world f32 position is good to 4 mm (Godot's single-precision coordinates): the ground's
	# slope times that is the tolerance of comparing get_height at the rounded position.
	var far_err := _drawn_error(tn, inst.get_drawn_positions(0), 0.25)
	check(far_err <= 0.02, "drawn at get_height + offset far out (worst %f)" % far_err)
	tn.queue_free()
	cam.queue_free()
	# A WanderingTerrain parent (moved on X/Z).
	var t := _data()
	var wt := WanderingTerrain.new()
	wt.terrain_data = t
	wt.position = Vector3(30, 0, -10)
	var inst2 := TerrainInstancer.new()
	var meshes2: Array[TerrainInstanceMesh] = [_mesh(0.5)]
	inst2.meshes = meshes2
	wt.add_child(inst2)
	var cam2 := Camera3D.new()
	cam2.position = Vector3(150, 200, 110)
	tree.root.add_child(cam2)
	cam2.make_current()
	tree.root.add_child(wt)
	check_eq(inst2.scatter(0, Rect2(40, 0, 200, 200), 1000, 8), 1000, "scatter under a WanderingTerrain")
	var worst := 0.0
	for tr: Transform3D in inst2.get_instances(0, Rect2(0, -20, 300, 300)):
		worst = worst_of(worst, absf(tr.origin.y - wt.get_height(Vector2(tr.origin.x, tr.origin.z)) - 0.5))
	check(worst <= 1e-4, "on the wandering terrain's get_height + offset (worst %f)" % worst)
	inst2.update_now()
	check_eq(inst2.get_drawn_count(0), 1000, "all drawn")
	wt.queue_free()
	cam2.queue_free()


## A scene as the mesh: its MeshInstance3Ds are the LODs (the first ends at its visibility_range_end).
static func scene_mesh(shape_at: Vector3) -> TerrainInstanceMesh:
	var root := Node3D.new()
	var lod0 := MeshInstance3D.new()
	lod0.mesh = BoxMesh.new()
	lod0.visibility_range_end = 50.0
	root.add_child(lod0)
	lod0.owner = root
	var lod1 := MeshInstance3D.new()
	lod1.mesh = PrismMesh.new()
	root.add_child(lod1)
	lod1.owner = root
	var cs := CollisionShape3D.new()
	var sphere := SphereShape3D.new()
	sphere.radius = 1.0
	cs.shape = sphere
	cs.position = shape_at
	root.add_child(cs)
	cs.owner = root
	var ps := PackedScene.new()
	ps.pack(root)
	root.free()
	var m := TerrainInstanceMesh.new()
	m.scene = ps
	m.visibility_range = 2000.0
	return m


func test_a_scene_gives_the_lods_and_cell_size_regroups() -> void:
	var s := _scene(_data(), [scene_mesh(Vector3(0, 3, 0))])
	var inst: TerrainInstancer = s[1]
	inst.scatter(0, Rect2(0, 0, SIZE, SIZE), 300, 6)
	inst.update_now()
	check_eq(inst.get_drawn_count(0), 300, "instances of a scene's mesh are drawn")
	var before := inst.get_instances(0, Rect2(0, 0, SIZE, SIZE))
	var res: TerrainInstances = inst.instances
	res.cell_size = 16.0
	check_eq(inst.get_instance_count(0), 300, "regrouped into cells of 16: none lost")
	var after := inst.get_instances(0, Rect2(0, 0, SIZE, SIZE))
	var worst := 0.0
	for a: Transform3D in after:
		var best := INF
		for b: Transform3D in before:
			best = minf(best, a.origin.distance_to(b.origin))
		worst = worst_of(worst, best)
	check(after.size() == 300 and worst < 1e-3, "the same places after regrouping (worst %f)" % worst)
	inst.update_now()
	check_eq(inst.get_drawn_count(0), 300, "and drawn again")
	_free(s)


func test_instances_follow_edits_of_a_region_map() -> void:
	var t := _data()
	var dir := OS.get_user_data_dir().path_join("instancer_regions")
	check_eq(t.save_regions(dir, 64, true), OK, "the data as a region map (replacing the last run's)")
	var s := _scene(t, [_mesh(0.5)])
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var regions := TerrainRegions.open(dir)
	tn.terrain_data = null
	tn.terrain_regions = regions
	inst.scatter(0, Rect2(0, 0, SIZE, SIZE), 4000, 7)
	var waited := 0
	while not inst.is_up_to_date() and waited < 200:
		await tree.process_frame
		waited += 1
	check(_drawn_error(tn, inst.get_drawn_positions(0), 0.5) <= 1e-4, "drawn on the region map's ground")
	var b := TerrainBrush.new()
	b.size = 120.0
	b.strength = 30.0
	check(regions.apply_brush(b, Vector2(128, 128), 0.5).has_area(), "raised")
	var all := Rect2(-10, -10, SIZE + 20, SIZE + 20)
	check(_glue_error(tn, inst.get_instances(0, all), 0.5) <= 1e-4, "get_instances follows at once")
	waited = 0
	while not inst.is_up_to_date() and waited < 60:
		await tree.process_frame
		waited += 1
	check(_drawn_error(tn, inst.get_drawn_positions(0), 0.5) <= 1e-4, "drawn positions follow the edit (%d frames)" % waited)
	_free(s)
	for f in DirAccess.get_files_at(dir):
		DirAccess.remove_absolute(dir.path_join(f))


## `meshes` and `detail_layers` take a plain `[...]` set through an untyped reference (as the docs' first
## try did), keep an empty slot (the inspector's *Add Element*) without an error, and refuse a wrong
## element by name, keeping what they had.
func test_array_properties_take_plain_arrays_and_empty_slots() -> void:
	var inst := TerrainInstancer.new()
	var n: Node = inst
	var m := TerrainInstanceMesh.new()
	n.meshes = [m]
	check_eq(inst.meshes.size(), 1, "a plain array of meshes is taken")
	check(inst.meshes[0] == m, "the same mesh")
	n.detail_layers = [TerrainDetailLayer.new(), null]
	check_eq(inst.detail_layers.size(), 2, "a plain array of layers with an empty slot")
	check(inst.detail_layers[1] == null, "the empty slot is kept")
	var slots: Array[TerrainInstanceMesh] = [m, null]
	inst.meshes = slots
	check_eq(inst.meshes.size(), 2, "a typed array with an empty slot")
	expect_error("TerrainInstancer.meshes: element 1 must be a TerrainInstanceMesh (or null), got Node3D")
	var wrong := Node3D.new()
	n.meshes = [m, wrong]
	wrong.free()
	check_eq(inst.meshes.size(), 2, "a wrong element changes nothing")
	check(inst.meshes[1] == null, "the previous meshes are kept")
	inst.free()


## sit_on_ground: a mesh centred on its origin (BoxMesh 2 high) stands on the ground by its lowest point,
## lifted by its half height times each instance's scale; off, its origin is on the ground.
func test_sit_on_ground_lifts_centred_meshes_by_their_lowest_point() -> void:
	var t := _data()
	var s := _scene(t, [_mesh(), _mesh()])
	var inst: TerrainInstancer = s[1]
	var sitting: TerrainInstanceMesh = inst.meshes[1]
	sitting.sit_on_ground = true
	sitting.scale_min = 0.5
	sitting.scale_max = 2.0
	inst.scatter(0, Rect2(20, 20, 200, 200), 50, 3)
	inst.scatter(1, Rect2(20, 20, 200, 200), 50, 3)
	var worst := 0.0
	var n := 0
	for k in 2:
		for tr: Transform3D in inst.get_instances(k, Rect2(0, 0, SIZE, SIZE)):
			var ground := t.get_height(Vector2(tr.origin.x, tr.origin.z))
			var sc := tr.basis.get_scale().y
			var want := ground + (1.0 * sc if k == 1 else 0.0)
			worst = worst_of(worst, absf(tr.origin.y - want))
			n += 1
	check(n > 60, "instances placed: %d" % n)
	check(worst < 1e-3, "origins at ground (+ half the box's height x scale when sitting): worst %s" % worst)
	_free(s)
