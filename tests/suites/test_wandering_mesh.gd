extends "res://wt_test.gd"
## WanderingMesh from GDScript: identity with document 000 (fixture hashes), inspector contract, AABB,
## and bad input refused with a named error while the previous mesh stays.

const FIXTURES := "res://fixtures/wandering_mesh/fixtures.json"


func _sha256(bytes: PackedByteArray) -> String:
	var ctx := HashingContext.new()
	ctx.start(HashingContext.HASH_SHA256)
	ctx.update(bytes)
	return ctx.finish().hex_encode()


func _mesh(size: float, sub: int, lods: Array) -> WanderingMesh:
	var m := WanderingMesh.new()
	m.start_size = size
	m.start_subdivision = sub
	m.lods = PackedInt32Array(lods)
	return m


func test_defaults_and_arrays() -> void:
	var m := WanderingMesh.new()
	check_eq(m.start_size, 1.0, "start_size default")
	check_eq(m.start_subdivision, 2, "start_subdivision default")
	check_eq(m.lods, PackedInt32Array(), "lods default")
	var a := m.get_mesh_arrays()
	var v: PackedVector3Array = a[Mesh.ARRAY_VERTEX]
	var n: PackedVector3Array = a[Mesh.ARRAY_NORMAL]
	var uv: PackedVector2Array = a[Mesh.ARRAY_TEX_UV]
	var idx: PackedInt32Array = a[Mesh.ARRAY_INDEX]
	check_eq(v.size(), 25, "vertices")
	check_eq(m.get_vertex_count(), 25, "get_vertex_count")
	check_eq(idx.size(), 96, "indices")
	check_eq(n.size(), 25, "normals")
	var up := 0
	for d in n:
		up += int(d.dot(Vector3.UP) > 0.9999)
	check_eq(up, 25, "normals pointing up (Godot compresses them: compared to 1e-4)")
	check_eq(uv[0], Vector2(0, 0), "uv of the first vertex")
	check_eq(uv[24], Vector2(1, 1), "uv of the last vertex")


func test_identical_to_document_fixtures() -> void:
	var data: Dictionary = JSON.parse_string(FileAccess.get_file_as_string(FIXTURES))
	var checked := 0
	for c in data["cases"]:
		if c["negative_index_count"] > 0 or c["vertex_count"] > 300000:
			continue
		var m := _mesh(c["start_size"], int(c["start_subdivision"]), c["lods"])
		var a := m.get_mesh_arrays()
		var what := "%s/%s/%s" % [c["start_size"], c["start_subdivision"], c["lods"]]
		var v: PackedVector3Array = a[Mesh.ARRAY_VERTEX]
		var idx: PackedInt32Array = a[Mesh.ARRAY_INDEX]
		check_eq(v.size(), int(c["vertex_count"]), what + " vertex count")
		check_eq(_sha256(v.to_byte_array()), c["vertices_sha256"], what + " vertices")
		check_eq(_sha256(idx.to_byte_array()), c["indices_sha256"], what + " indices")
		checked += 1
	check(checked >= 10, "checked %d cases" % checked)


func test_untyped_array_assignment() -> void:
	var m := WanderingMesh.new()
	m.start_subdivision = 4
	m.set("lods", [3, 1, 2])
	check_eq(m.lods, PackedInt32Array([3, 1, 2]), "lods from an untyped Array")
	check_eq(m.get_vertex_count(), 2447, "vertex count for 4, [3,1,2]")


func test_aabb_covers_rotated_mesh_and_heights() -> void:
	var fresh := WanderingMesh.new()
	fresh.get_mesh_arrays()
	check(fresh.custom_aabb.size.y > 0.0, "a fresh mesh has its AABB: %s" % fresh.custom_aabb)
	var m := _mesh(1.0, 3, [1])
	m.height_min = -20.0
	m.height_max = 50.0
	# The custom AABB is what culling uses (get_aabb() reports the flat vertices' box).
	var box := m.custom_aabb
	var v: PackedVector3Array = m.get_mesh_arrays()[Mesh.ARRAY_VERTEX]
	var r := 0.0
	for p in v:
		r = worst_of(r, Vector2(p.x, p.z).length())
	check(box.position.y <= -20.0 and box.end.y >= 50.0, "height range in AABB: %s" % box)
	check(-box.position.x >= r and box.end.x >= r and -box.position.z >= r and box.end.z >= r, "radius %f in %s" % [r, box])


func _check_refused(m: WanderingMesh, prop: String, value: Variant, needle: String) -> void:
	var before: Variant = m.get(prop)
	var count_before := m.get_vertex_count()
	var hash_before := _sha256((m.get_mesh_arrays()[Mesh.ARRAY_INDEX] as PackedInt32Array).to_byte_array())
	expect_error(needle)
	# Refused before any work: the mesh below is byte-identical (a hang would trip the runner's timeout).
	m.set(prop, value)
	check_eq(m.get(prop), before, "%s kept after refusing %s" % [prop, str(value).left(40)])
	check_eq(m.get_vertex_count(), count_before, "vertex count kept")
	var hash_after := _sha256((m.get_mesh_arrays()[Mesh.ARRAY_INDEX] as PackedInt32Array).to_byte_array())
	check_eq(hash_after, hash_before, "mesh kept")


func test_bad_start_size() -> void:
	var m := _mesh(2.0, 3, [1])
	_check_refused(m, "start_size", 0.0, "start_size must be a number in [0.001, 1000000], got 0")
	_check_refused(m, "start_size", -1.5, "start_size must be a number in [0.001, 1000000], got -1.5")
	_check_refused(m, "start_size", NAN, "start_size must be a number in [0.001, 1000000], got NaN")
	_check_refused(m, "start_size", INF, "start_size must be a number in [0.001, 1000000], got inf")
	_check_refused(m, "start_size", 1e-40, "start_size must be a number in [0.001, 1000000], got 0.0000000000000000000000000000000000000001")


func test_bad_start_subdivision() -> void:
	var m := _mesh(1.0, 3, [1])
	_check_refused(m, "start_subdivision", 0, "start_subdivision must be in [1, 20], got 0")
	_check_refused(m, "start_subdivision", -4, "start_subdivision must be in [1, 20], got -4")
	_check_refused(m, "start_subdivision", 1000, "start_subdivision must be in [1, 20], got 1000")


func test_bad_lods() -> void:
	var m := _mesh(1.0, 6, [2, 2])
	_check_refused(m, "lods", PackedInt32Array([0, 2, 1]), "lods[0] must be in [1, 2147483647]")
	_check_refused(m, "lods", PackedInt32Array([2, -3]), "lods[1] must be in [1, 2147483647]")
	var huge := PackedInt32Array()
	huge.resize(1_000_000)
	huge.fill(1)
	_check_refused(m, "lods", huge, "lods may hold at most 64 entries, got 1000000")


func test_vertex_budget() -> void:
	var m := _mesh(1.0, 3, [1])
	_check_refused(m, "start_subdivision", 20, "would produce 2473903259649 vertices, over the vertex budget of 4000000")
	_check_refused(m, "lods", PackedInt32Array([2147483647]), "over the vertex budget of 4000000")
	_check_refused(m, "vertex_budget", 0, "vertex_budget must be in [1, 16777216], got 0")
	_check_refused(m, "vertex_budget", 1 << 40, "vertex_budget must be in [1, 16777216], got 1099511627776")
	_check_refused(m, "vertex_budget", 100, "would produce 161 vertices, over the vertex budget of 100")
	m.vertex_budget = 10_000_000
	m.lods = PackedInt32Array()
	m.start_subdivision = 11
	check_eq(m.get_vertex_count(), 4198401, "a raised budget admits 2049² vertices")


func test_height_range_saved_order() -> void:
	# Files store height_min before height_max: a large height_min must not be refused.
	var m := WanderingMesh.new()
	m.height_min = 1000.0
	m.height_max = 1500.0
	check_eq(m.height_min, 1000.0, "height_min")
	check_eq(m.height_max, 1500.0, "height_max")
	m.height_max = 10.0
	check_eq(m.height_min, 10.0, "height_min follows a lower height_max")
	expect_error("height_min must be a number in [-10000000, 10000000], got NaN")
	m.height_min = NAN
	check_eq(m.height_min, 10.0, "kept")


func test_long_lods_are_cut_like_the_document() -> void:
	var m := _mesh(2.5, 3, [2, 2, 2, 2, 2])
	check_eq(m.get_vertex_count(), 427, "only start_subdivision - 1 entries are used")
	check_eq(m.lods.size(), 5, "the property keeps what was set")


func test_renders_into_an_array_mesh() -> void:
	var m := _mesh(1.0, 4, [2, 1])
	var am := ArrayMesh.new()
	am.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, m.get_mesh_arrays())
	check_eq(am.get_surface_count(), 1, "surface accepted by Godot")
	check_eq(m.get_faces().size(), (m.get_mesh_arrays()[Mesh.ARRAY_INDEX] as PackedInt32Array).size(), "faces")


func test_build_time_is_reported() -> void:
	var m := WanderingMesh.new()
	m.start_subdivision = 6
	m.lods = PackedInt32Array([2, 2])
	m.get_mesh_arrays()
	check(m.get_last_build_usec() > 0, "the last build's time in the extension is reported (%d us)" % m.get_last_build_usec())
