extends "res://wt_test.gd"
## Randomized robustness of every class: properties set to a seeded mix of valid, boundary and hostile
## values (NaN, infinities, 1e300, 1e-300, huge ints, wrong types), and random call sequences. For each
## value an oracle (the documented range) says whether it must be accepted: accepted values read back,
## refused ones log an error naming the property and leave the previous value. No call may take long, and a
## valid call afterwards must behave like a fresh object's. The seed is printed; set SEED to replay.

const SEED := 20261130
const PICKS := 40
const SLOW_USEC := 2000000

const FLOATS := [NAN, INF, -INF, 1e300, -1e300, 1e-300, -1e-300, 0.0, -0.0, 1e-40, 3.4e38, -1.0, 1.0,
	0.5, 1e-3, 9.99e-4, 1000.0, 1e4, 1e6, 1e7, 1.00001e7, 1e9, 2.0, 4.0, 16.0, 32.0]
const INTS := [0, -1, 1, 2, 3, 4, 7, 16, 17, 20, 21, 32, 33, 255, 256, 257, 16384, 16385, 1 << 24,
	(1 << 24) + 1, 1 << 31, -(1 << 31), 1 << 40, 9223372036854775807, -9223372036854775807]
const WRONG := ["abc", [1, 2], Vector3(1, 2, 3), null]

var rng := RandomNumberGenerator.new()


func _pick_float(lo: float, hi: float) -> float:
	if rng.randf() < 0.7:
		return FLOATS[rng.randi() % FLOATS.size()]
	return rng.randf_range(lo - (hi - lo) * 0.1, hi + (hi - lo) * 0.1)


func _pick_int(lo: int, hi: int) -> int:
	if rng.randf() < 0.7:
		return INTS[rng.randi() % INTS.size()]
	return rng.randi_range(lo - 2, hi + 2)


func _same(a: Variant, b: Variant) -> bool:
	if typeof(a) == TYPE_FLOAT and typeof(b) == TYPE_FLOAT and is_nan(a) and is_nan(b):
		return true
	return a == b


## Sets `prop` of `obj` to `v`; `valid` says whether it must be accepted. Checks the outcome.
func _try(obj: Object, cls: String, prop: String, v: Variant, valid: bool) -> void:
	var before = obj.get(prop)
	if not valid:
		# Wrong types are refused by the typed setter, whose message names it; values by our checks.
		expect_error(("%s::set_%s" % [cls, prop]) if v is String or v is Array or v is Vector3 or v == null else ("%s.%s" % [cls, prop]))
	var t0 := Time.get_ticks_usec()
	obj.set(prop, v)
	var dt := Time.get_ticks_usec() - t0
	check(dt < SLOW_USEC, "%s.%s = %s took %d us" % [cls, prop, v, dt])
	var after = obj.get(prop)
	if valid:
		check(_same(after, v), "%s.%s = %s accepted but reads back %s (seed %d)" % [cls, prop, v, after, SEED])
	else:
		check(_same(after, before), "%s.%s = %s refused but changed %s -> %s (seed %d)" % [cls, prop, v, before, after, SEED])


## Random picks for one float property with an accepted range [lo, hi] (plus wrong types).
func _floats(obj: Object, cls: String, prop: String, lo: float, hi: float, extra := Callable()) -> void:
	for i in PICKS:
		if rng.randf() < 0.1:
			_try(obj, cls, prop, WRONG[rng.randi() % 3], false)
			continue
		var v := _pick_float(lo, hi)
		var ok: bool = is_finite(v) and v >= lo and v <= hi and (not extra.is_valid() or extra.call(v))
		_try(obj, cls, prop, v, ok)


func _ints(obj: Object, cls: String, prop: String, ok: Callable) -> void:
	for i in PICKS:
		var v := _pick_int(0, 300)
		_try(obj, cls, prop, v, ok.call(v))


func test_terrain_data_properties_and_calls() -> void:
	rng.seed = SEED
	print("robustness seed ", SEED)
	var t := TerrainData.new()
	t.size = Vector2i(40, 30)
	_floats(t, "TerrainData", "spacing", 0.001, 1e6)
	_ints(t, "TerrainData", "sample_budget", func(v): return v >= 1)
	t.sample_budget = 1 << 20
	for i in PICKS:
		var s := Vector2i(_pick_int(1, 300), _pick_int(1, 300))
		var ok := s.x >= 1 and s.y >= 1 and s.x <= 16384 and s.y <= 16384 and s.x * s.y <= (1 << 20)
		_try(t, "TerrainData", "size", s, ok)
	t.size = Vector2i(40, 30)
	t.spacing = 1.0
	# Random edits: a region inside or not, values of the right length or not, finite or not.
	for i in 200:
		var r := Rect2i(rng.randi_range(-5, 45), rng.randi_range(-5, 35), rng.randi_range(-2, 12), rng.randi_range(-2, 12))
		var inside := r.position.x >= 0 and r.position.y >= 0 and r.size.x >= 0 and r.size.y >= 0 and r.end.x <= 40 and r.end.y <= 30
		var n := maxi(r.size.x * r.size.y, 0) + (1 if rng.randf() < 0.1 else 0)
		var vals := PackedFloat32Array()
		vals.resize(n)
		for k in n:
			vals[k] = FLOATS[rng.randi() % FLOATS.size()] if rng.randf() < 0.05 else rng.randf_range(-50, 50)
		var finite := true
		for k in n:
			finite = finite and is_finite(vals[k])
		var ok := inside and n == r.size.x * r.size.y and finite
		if rng.randf() < 0.5:
			if not inside:
				expect_error("must lie inside")
			elif n != r.size.x * r.size.y:
				expect_error("values must hold")
			elif not finite:
				expect_error("values must be finite")
			var before := t.heights
			check_eq(t.set_heights_region(r, vals), ok, "set_heights_region(%s) accepted = valid" % r)
			if not ok:
				check(t.heights == before, "refused edit changed nothing")
		else:
			var holes := PackedByteArray()
			holes.resize(n)
			for k in n:
				holes[k] = int(rng.randf() < 0.2)
			if not inside:
				expect_error("must lie inside")
			elif n != r.size.x * r.size.y:
				expect_error("holes must hold")
			check_eq(t.set_holes_region(r, holes), inside and n == r.size.x * r.size.y, "set_holes_region(%s)" % r)
	# Queries never fail: NaN and huge positions give NaN or a height, never an error.
	# A finite position has a height unless it lies in a hole (outside, the edge samples continue).
	for v in [Vector2(NAN, 1), Vector2(INF, -INF), Vector2(1e30, -1e30), Vector2(-5, -5), Vector2(39.9, 29.9)]:
		var h := t.get_height(v)
		var n := t.get_normal(v)
		if is_finite(v.x) and is_finite(v.y):
			check(is_nan(h) == t.is_hole(v) and (is_nan(h) or is_finite(h)), "get_height(%s) = %s, is_hole %s" % [v, h, t.is_hole(v)])
			check(n.is_finite() and is_equal_approx(n.length(), 1.0), "get_normal(%s) = %s" % [v, n])
		else:
			check(is_nan(h) and not n.is_finite(), "get_height(%s) = %s, get_normal %s" % [v, h, n])
	check(t.get_heights(PackedVector2Array()).is_empty(), "empty batch")
	# A fresh object given the final state answers the same.
	var fresh := TerrainData.new()
	fresh.size = t.size
	fresh.spacing = t.spacing
	fresh.heights = t.heights
	fresh.control = t.control
	for k in 50:
		var p := Vector2(rng.randf_range(0, 40), rng.randf_range(0, 30))
		check(_same(fresh.get_height(p), t.get_height(p)), "same as a fresh object at %s" % p)


func test_generator_properties() -> void:
	rng.seed = SEED + 1
	var g := TerrainGenerator.new()
	_floats(g, "TerrainGenerator", "frequency", 1e-300, 1000.0, func(v): return v > 0.0)
	_ints(g, "TerrainGenerator", "octaves", func(v): return v >= 1 and v <= 32)
	_floats(g, "TerrainGenerator", "lacunarity", 1e-300, 16.0, func(v): return v > 0.0)
	_floats(g, "TerrainGenerator", "gain", 1e-300, 4.0, func(v): return v > 0.0)
	_floats(g, "TerrainGenerator", "height", -1e6, 1e6)
	_floats(g, "TerrainGenerator", "sea_level", -1e9, 1e9)
	_ints(g, "TerrainGenerator", "noise_type", func(v): return v >= 0 and v <= 3)
	_floats(g, "TerrainGenerator", "warp", 0.0, 1e6)
	_floats(g, "TerrainGenerator", "warp_frequency", 1e-300, 1000.0, func(v): return v > 0.0)
	var t := TerrainData.new()
	t.size = Vector2i(32, 32)
	check(t.generate(g), "generates with whatever valid settings remain")
	for h in t.heights:
		if not is_finite(h):
			check(false, "generated heights are finite")
			break


func test_wandering_mesh_properties() -> void:
	rng.seed = SEED + 2
	var m := WanderingMesh.new()
	_floats(m, "WanderingMesh", "start_size", 0.001, 1e6)
	_ints(m, "WanderingMesh", "vertex_budget", func(v): return v >= m.get_vertex_count() and v <= (1 << 24))
	m.vertex_budget = 1 << 22
	_floats(m, "WanderingMesh", "height_min", -1e7, 1e7)
	_floats(m, "WanderingMesh", "height_max", -1e7, 1e7)
	var box := m.get_aabb()
	check(is_finite(box.size.x) and is_finite(box.size.y), "finite culling box")
	var arrays := m.get_mesh_arrays()
	var fresh := WanderingMesh.new()
	fresh.vertex_budget = m.vertex_budget
	fresh.start_size = m.start_size
	check(fresh.get_mesh_arrays()[Mesh.ARRAY_VERTEX] == arrays[Mesh.ARRAY_VERTEX], "same mesh as a fresh object")


func test_brush_properties_and_calls() -> void:
	rng.seed = SEED + 4
	var b := TerrainBrush.new()
	_ints(b, "TerrainBrush", "tool", func(v): return v >= 0 and v <= 9)
	_ints(b, "TerrainBrush", "layer", func(v): return v >= 0 and v <= 62)
	_floats(b, "TerrainBrush", "size", 1e-300, 1e5, func(v): return v > 0.0)
	_floats(b, "TerrainBrush", "strength", 0.0, 1e5)
	_floats(b, "TerrainBrush", "hardness", 0.0, 1.0)
	_floats(b, "TerrainBrush", "height", -1e9, 1e9)
	var t := TerrainData.new()
	t.size = Vector2i(48, 48)
	# Sensible brush values for the dabs (the fuzzing above may leave 100000 units per second: cliffs of
	# kilometres within a sample, where positions' f32 rounding alone moves heights by metres).
	b.size = 6.0
	b.strength = 3.0
	b.height = 5.0
	# Random dabs anywhere (inside, outside, hostile points and durations): never an unexpected error.
	for i in 150:
		b.tool = rng.randi_range(0, 9)
		b.layer = rng.randi_range(0, 62)
		var c := Vector2(FLOATS[rng.randi() % FLOATS.size()], rng.randf_range(-10, 60)) if rng.randf() < 0.2 else Vector2(rng.randf_range(-10, 60), rng.randf_range(-10, 60))
		var dt: float = FLOATS[rng.randi() % FLOATS.size()] if rng.randf() < 0.2 else rng.randf_range(0, 0.2)
		var ok := is_finite(dt) and dt >= 0.0 and dt <= 10.0
		if not ok:
			expect_error("TerrainData.apply_brush: delta must be a number in [0, 10]")
		var r := t.apply_brush(b, c, dt)
		check(ok or r == Rect2i(), "refused dab changes nothing")
	for h in t.heights:
		if not is_finite(h):
			check(false, "heights stay finite")
			break
	# Rays from anywhere, in any direction: a point on the surface or NaN (and enough of them hit for
	# that to say something).
	var hits := 0
	for i in 300:
		var o := Vector3(rng.randf_range(-20, 70), FLOATS[rng.randi() % FLOATS.size()] if rng.randf() < 0.2 else rng.randf_range(-20, 40), rng.randf_range(-20, 70))
		var d := Vector3(rng.randf_range(-1, 1), rng.randf_range(-1, 1), rng.randf_range(-1, 1))
		if i >= 200:
			# Aimed from above at a point of the map: these hit unless a hole is there.
			o = Vector3(rng.randf_range(0, 48), 500.0, rng.randf_range(0, 48))
			d = Vector3(rng.randf_range(0, 48), 0.0, rng.randf_range(0, 48)) - o
		var hit := t.raycast(o, d)
		hits += int(not is_nan(hit.x))
		check(is_nan(hit.x) or absf(hit.y - t.get_height(Vector2(hit.x, hit.z))) < 1e-3, "raycast %s %s -> %s (get_height %s, hole %s)" % [o, d, hit, t.get_height(Vector2(hit.x, hit.z)), t.is_hole(Vector2(hit.x, hit.z))])
	check(hits >= 60, "at least 60 of 300 rays hit the surface, got %d" % hits)


func test_material_properties_and_paint_calls() -> void:
	rng.seed = SEED + 6
	var l := TerrainLayer.new()
	_floats(l, "TerrainLayer", "uv_scale", 1e-4, 100.0)
	_floats(l, "TerrainLayer", "roughness", 0.0, 1.0)
	for i in PICKS:
		var v := Vector2(_pick_float(-1e7, 1e7), _pick_float(0.0, 1e7))
		_try(l, "TerrainLayer", "height_band", v, v.x >= -1e7 and v.x <= 1e7 and v.y >= 0.0 and v.y <= 1e7)
	var m := TerrainMaterial.new()
	_floats(m, "TerrainMaterial", "triplanar_slope", 0.0, 1.0)
	_floats(m, "TerrainMaterial", "blend_sharpness", 0.0, 1.0)
	_floats(m, "TerrainMaterial", "cliff_slope", 0.0, 1.0)
	_ints(m, "TerrainMaterial", "cliff_layer", func(v): return v >= -1 and v <= 62)
	_ints(m, "TerrainMaterial", "texture_size", func(v): return v >= 16 and v <= 4096 and (v & (v - 1)) == 0)
	m.texture_size = 16
	m.layers = [l] as Array[TerrainLayer]
	check(m.get_albedo_array() != null, "material still builds after the fuzzing")
	# Random paint: regions inside or not, layers in range or not, weights of any value and length.
	var t := TerrainData.new()
	t.size = Vector2i(30, 20)
	for i in 200:
		var r := Rect2i(rng.randi_range(-3, 32), rng.randi_range(-3, 22), rng.randi_range(-1, 8), rng.randi_range(-1, 8))
		var inside := r.position.x >= 0 and r.position.y >= 0 and r.size.x >= 0 and r.size.y >= 0 and r.end.x <= 30 and r.end.y <= 20
		var layer: int = INTS[rng.randi() % INTS.size()] if rng.randf() < 0.2 else rng.randi_range(0, 62)
		var n := maxi(r.size.x * r.size.y, 0) + (1 if rng.randf() < 0.1 else 0)
		var w := PackedFloat32Array()
		w.resize(n)
		var in_range := true
		for k in n:
			w[k] = FLOATS[rng.randi() % FLOATS.size()] if rng.randf() < 0.05 else rng.randf()
			in_range = in_range and w[k] >= 0.0 and w[k] <= 1.0
		var ok := inside and layer >= 0 and layer <= 62 and n == r.size.x * r.size.y and in_range
		if not inside:
			expect_error("must lie inside")
		elif layer < 0 or layer > 62:
			expect_error("layer must be in [0, 62]")
		elif n != r.size.x * r.size.y:
			expect_error("weights must hold")
		elif not in_range:
			expect_error("weights must be in [0, 1]")
		var before := t.control
		check_eq(t.set_layer_region(r, layer, w), ok, "set_layer_region(%s, %d) accepted = valid" % [r, layer])
		if not ok:
			check(t.control == before, "refused paint changed nothing")
	for v in [Vector2(NAN, 1), Vector2(INF, -INF), Vector2(1e30, -1e30), Vector2(-5, -5)]:
		var lw := t.get_layer_weights(v)
		check(lw.size() == 63, "get_layer_weights(%s) has a value per layer" % v)
	var sum := 0.0
	for x in t.get_layer_weights(Vector2(15, 10)):
		sum += x
	check(sum <= 1.0001, "painted weights never exceed 1 (%s)" % sum)
	# The painted state survives a round trip through a fresh object.
	var fresh := TerrainData.new()
	fresh.size = t.size
	fresh.control = t.control
	check(fresh.get_layer_weights(Vector2(12.3, 7.7)) == t.get_layer_weights(Vector2(12.3, 7.7)), "same as a fresh object")


func _collision(obj: Object, cls: String) -> void:
	_ints(obj, cls, "collision_mode", func(v): return v >= 0 and v <= 2)
	_ints(obj, cls, "collision_subdivision", func(v): return v == 1 or v == 2 or v == 4)
	_floats(obj, cls, "collision_radius", 1e-300, 1e5, func(v): return v > 0.0)


func test_nodes_properties() -> void:
	rng.seed = SEED + 3
	var data := TerrainData.new()
	data.size = Vector2i(64, 64)
	data.generate_noise(1, 0.05, 3, 2.0, 0.5, 5.0, -1e9, 0)
	var cam := Camera3D.new()
	tree.root.add_child(cam)
	cam.make_current()
	var tn := TerrainNode.new()
	tn.terrain_data = data
	tree.root.add_child(tn)
	_ints(tn, "TerrainNode", "levels", func(v): return v >= 1 and v <= 16)
	tn.levels = 3
	_ints(tn, "TerrainNode", "tile_resolution", func(v): return v >= 2 and v <= 256 and v % 2 == 0)
	tn.tile_resolution = 8
	_floats(tn, "TerrainNode", "vertex_spacing", 0.001, 1e4)
	tn.vertex_spacing = 1.0
	_floats(tn, "TerrainNode", "morph_width", 0.0, 8.0)
	_ints(tn, "TerrainNode", "cast_shadow", func(v): return v >= 0 and v <= 3)
	_collision(tn, "TerrainNode")
	var wt := WanderingTerrain.new()
	wt.terrain_data = data
	tree.root.add_child(wt)
	_floats(wt, "WanderingTerrain", "back_offset", 0.0, 1e6)
	_collision(wt, "WanderingTerrain")
	# Hostile targets: the nodes keep working (no NaN reaches the shader or physics).
	for p in [Vector3(NAN, 0, 0), Vector3(INF, 0, -INF), Vector3(1e30, 0, 1e30), Vector3(10, 5, 10)]:
		cam.position = p
		await tree.process_frame
		await tree.physics_frame
		var tgt = tn.material.get_shader_parameter("clipmap_target")
		check(tgt is Vector2 and is_finite(tgt.x) and is_finite(tgt.y), "finite target uniform for %s" % p)
	check(is_finite(tn.get_height(Vector2(10, 10))), "queries work afterwards")
	tn.queue_free()
	wt.queue_free()
	cam.queue_free()


## Region folders and endless worlds: hostile positions, rays and rectangles never hang or panic, refused
## rectangles name the class, a valid read afterwards is bit-exact, the budget follows its range.
func test_regions_and_endless_calls() -> void:
	rng.seed = SEED + 9
	var t := TerrainData.new()
	t.size = Vector2i(40, 30)
	t.generate_noise(4, 0.1, 3, 2.0, 0.5, 8.0, -1e9, 0)
	var dir := OS.get_user_data_dir().path_join("robust_regions")
	check_eq(t.save_regions(dir, 16, true), OK, "saved (replacing the last run's)")
	var r := TerrainRegions.open(dir)
	_ints(r, "TerrainRegions", "budget_mb", func(v): return v >= 16 and v <= 1048576)
	var tn := TerrainNode.new()
	tn.terrain_generator = TerrainGenerator.new()
	var hits := 0
	var normals := 0
	for k in 150:
		var p := Vector2(_pick_float(-1e6, 1e6), _pick_float(-1e6, 1e6))
		var t0 := Time.get_ticks_usec()
		var a := r.get_height(p)
		var b := tn.get_height(p)
		var n := tn.get_normal(p)
		r.is_loaded(p)
		var hit := tn.raycast(Vector3(p.x, _pick_float(-1e3, 1e3), p.y), Vector3(_pick_float(-1, 1), _pick_float(-1, 1), _pick_float(-1, 1)))
		var dt := Time.get_ticks_usec() - t0
		check(dt < SLOW_USEC, "queries at %s took %d us" % [p, dt])
		# No holes on either: a finite position has a finite height (the map's edges continue; the endless
		# world within its ±1e9 samples), a non-finite one NaN.
		var finite := is_finite(p.x) and is_finite(p.y)
		check(is_finite(a) if finite else is_nan(a), "regions height at %s: %s" % [p, a])
		if finite and absf(p.x) <= 1e9 and absf(p.y) <= 1e9:
			check(is_finite(b), "endless height at %s: %s" % [p, b])
		elif not finite:
			check(is_nan(b), "endless height at %s: %s" % [p, b])
		check(is_nan(hit.x) or hit.is_finite(), "ray hit %s" % hit)
		check(not n.is_finite() or is_equal_approx(n.length(), 1.0), "normal %s" % n)
		hits += int(hit.is_finite())
		normals += int(n.is_finite())
	# And rays straight down at finite points: every one meets the endless ground.
	for k in 30:
		var at := Vector3(rng.randf_range(-1e4, 1e4), 2000.0, rng.randf_range(-1e4, 1e4))
		hits += int(tn.raycast(at, Vector3.DOWN).is_finite())
	check(hits >= 30 and normals >= 50, "enough rays hit (%d) and normals are finite (%d of 150)" % [hits, normals])
	expect_error("TerrainRegions.prefetch: radius must be a finite number >= 0, got NaN")
	r.prefetch(Vector2(1, 1), NAN)
	for k in 40:
		var rect := Rect2i(_pick_int(-5, 45), _pick_int(-5, 35), _pick_int(0, 45), _pick_int(0, 35))
		var inside := rect.position.x >= 0 and rect.position.y >= 0 and rect.size.x >= 0 and rect.size.y >= 0 and rect.position.x + rect.size.x <= 40 and rect.position.y + rect.size.y <= 30
		if not inside:
			expect_error("TerrainRegions: region")
		var got := r.get_heights_region(rect)
		if inside:
			check(got == t.get_heights_region(rect), "region %s bit for bit" % rect)
		else:
			check(got.is_empty(), "region %s refused" % rect)
	for f in DirAccess.get_files_at(dir):
		DirAccess.remove_absolute(dir.path_join(f))
	DirAccess.remove_absolute(dir)
	tn.free()
