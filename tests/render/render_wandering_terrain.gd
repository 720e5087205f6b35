extends "res://wt_test.gd"
## The wandering terrain on the GPU: heights and normals drawn equal TerrainData.get_height/get_normal,
## and moving the followed camera by sub-sample offsets does not move the drawn geometry (no "wiggle").
##
## An orthographic camera looks straight down on a 64² terrain; the debug shader packs the height of each
## pixel into red (64 bands) and green (position in the band). Tolerances: heights 1e-3 of the height range; normals 2 degrees (the
## normal is stored in 8 bits per axis: measured 0.3 degree under Vulkan, 1.4 under llvmpipe's GL, which
## truncates instead of rounding).

const SIZE := 64
const ORTHO := 16.0
const CENTER := Vector2(32, 32)
const MAGENTA := Color(1, 0, 1)
const DEBUG_SHADER := "res://addons/wandering_terrain/shaders/wandering_terrain_debug.gdshader"


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(9, 0.25, 3, 2.0, 0.5, 10.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _range(t: TerrainData) -> Vector2:
	var r := t.get_height_range()
	return Vector2(r.x - 2.0, r.y + 2.0)


func _debug_material(t: TerrainData, mode: int) -> ShaderMaterial:
	var m := ShaderMaterial.new()
	m.shader = load(DEBUG_SHADER)
	m.set_shader_parameter("debug_mode", mode)
	m.set_shader_parameter("debug_height_range", _range(t))
	return m


func _top_camera(root: Node3D) -> Camera3D:
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = ORTHO
	cam.position = Vector3(CENTER.x, 60, CENTER.y)
	cam.rotation_degrees.x = -90.0
	cam.far = 200.0
	root.add_child(cam)
	cam.make_current()
	return cam


func _mesh() -> WanderingMesh:
	var m := WanderingMesh.new()
	m.start_size = 6.0
	m.start_subdivision = 5
	m.lods = PackedInt32Array([2, 2])
	return m


## A WanderingTerrain following `tracker` (a camera that is not rendering).
func _follow_scene(t: TerrainData, mode: int, tracker_pos: Vector3, snap: bool) -> Node3D:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	_top_camera(root)
	var tracker := Camera3D.new()
	tracker.name = "Tracker"
	root.add_child(tracker)
	tracker.look_at_from_position(tracker_pos, tracker_pos + Vector3(0, -0.2, 1))
	var wt := WanderingTerrain.new()
	wt.mesh = _mesh()
	wt.material = _debug_material(t, mode)
	wt.terrain_data = t
	wt.snap_to_grid = snap
	root.add_child(wt)
	wt.camera = wt.get_path_to(tracker)
	tree.root.add_child(root)
	return root


func _world_of(img: Image, px: int, py: int) -> Vector2:
	var ppu := img.get_height() / ORTHO
	return CENTER + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)


func _decode_height(c: Color, r: Vector2) -> float:
	var v := (floorf((c.r - 0.25) / 0.75 * 64.0) + (c.g - 0.25) / 0.75) / 64.0
	return r.x + v * (r.y - r.x)


func _heights(img: Image, r: Vector2, step: int) -> Dictionary:
	var out := {}
	for py in range(1, img.get_height() - 1, step):
		for px in range(1, img.get_width() - 1, step):
			var c := img.get_pixel(px, py)
			out[Vector2i(px, py)] = NAN if c.is_equal_approx(MAGENTA) else _decode_height(c, r)
	return out


func _compare_with_cpu(img: Image, t: TerrainData, label: String) -> void:
	var r := _range(t)
	var tol := 1e-3 * (r.y - r.x)
	var hs := _heights(img, r, 3)
	var worst := 0.0
	var bad := 0
	var holes := 0
	for k in hs:
		var gpu: float = hs[k]
		var w := _world_of(img, k.x, k.y)
		if is_nan(gpu):
			# Background is right over holes; at a hole's border rasterisation decides.
			holes += int(not t.is_hole(w) and not _near_triangle_edge(w))
			continue
		var cpu := t.get_height(w)
		if is_nan(cpu):
			holes += int(not _near_triangle_edge(w))
			continue
		worst = worst_of(worst, absf(gpu - cpu))
		if absf(gpu - cpu) > tol:
			bad += 1
			if bad <= 3:
				var v := (cpu - r.x) / (r.y - r.x) * 64.0
				print("  off pixel %s: color %s, want hi %d lo %.3f" % [k, img.get_pixel(k.x, k.y), floori(v), v - floori(v)])
	check(hs.size() - holes >= 1000, "%s: only %d pixels compared" % [label, hs.size() - holes])
	check_eq(holes, 0, label + ": background pixels where the terrain has no hole, or ground over a hole")
	check_eq(bad, 0, "%s: pixels off by more than %s (worst %s)" % [label, tol, worst])
	print("%s: %d pixels, worst |GPU - CPU| = %s (tolerance %s)" % [label, hs.size(), worst, tol])


func test_gpu_height_equals_get_height() -> void:
	var t := _data()
	var root := _follow_scene(t, 0, Vector3(32, 10, 20), true)
	await frames(4)
	var img := screenshot("wandering_height_" + renderer)
	root.queue_free()
	_compare_with_cpu(img, t, "WanderingTerrain")


func test_document_workflow_mesh_instance() -> void:
	# Document 000's own set-up: MeshInstance3D + WanderingMesh + ShaderMaterial, uniforms set by a script.
	var t := _data()
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	_top_camera(root)
	var mi := MeshInstance3D.new()
	var mesh := _mesh()
	mesh.height_min = -20
	mesh.height_max = 20
	mi.mesh = mesh
	var mat := _debug_material(t, 0)
	mi.material_override = mat
	mi.position = Vector3(32, 0, 21)
	mat.set_shader_parameter("terrain_size", Vector2(t.size))
	mat.set_shader_parameter("data_tex", t.get_data_texture())
	mat.set_shader_parameter("translation", Vector2(mi.position.x - 0.5, mi.position.z - 0.5))
	mat.set_shader_parameter("rotation", 0.0)
	root.add_child(mi)
	tree.root.add_child(root)
	await frames(4)
	var img := screenshot("document_workflow_" + renderer)
	root.queue_free()
	_compare_with_cpu(img, t, "MeshInstance3D workflow")


func test_gpu_normal_equals_get_normal() -> void:
	var t := _data()
	var root := _follow_scene(t, 1, Vector3(32, 10, 20), true)
	await frames(4)
	var img := screenshot("wandering_normal_" + renderer)
	root.queue_free()
	var worst := 0.0
	var n_px := 0
	for py in range(1, img.get_height() - 1, 3):
		for px in range(1, img.get_width() - 1, 3):
			var c := img.get_pixel(px, py)
			var gpu := Vector3(c.r * 2.0 - 1.0, c.b, c.g * 2.0 - 1.0).normalized()
			var cpu := t.get_normal(_world_of(img, px, py))
			worst = worst_of(worst, rad_to_deg(gpu.angle_to(cpu)))
			n_px += 1
	check(n_px >= 1000, "pixels compared")
	check(worst <= 2.0, "normal off by %.3f degrees (tolerance 2)" % worst)
	print("normals: %d pixels, worst angle %.3f degrees" % [n_px, worst])


func _vertex_heights(t: TerrainData, tracker_pos: Vector3, snap: bool, name: String) -> Dictionary:
	var root := _follow_scene(t, 2, tracker_pos, snap)
	await frames(4)
	var img := screenshot(name)
	root.queue_free()
	await tree.process_frame
	return _heights(img, _range(t), 2)


func _max_diff(a: Dictionary, b: Dictionary) -> float:
	var worst := 0.0
	for k in a:
		if is_nan(a[k]) or is_nan(b[k]):
			return INF
		worst = worst_of(worst, absf(a[k] - b[k]))
	return worst


func test_no_wobble_when_moving() -> void:
	# The mesh (start_size 6, subdivision 5, lods [2, 2]) snaps in steps of its coarsest vertex spacing,
	# 6 / 2^3 = 0.75; the base position is the middle of a snap cell, the moves stay inside it.
	var t := _data()
	var r := _range(t)
	var tol := 1e-3 * (r.y - r.x)
	var start := Vector3(32.25, 10, 20.25)
	var base := await _vertex_heights(t, start, true, "wobble_base_" + renderer)
	var offsets := [Vector3(0.13, 0, 0.29), Vector3(-0.21, 0, 0.05), Vector3(0.33, 0, -0.31)]
	for i in offsets.size():
		var moved := await _vertex_heights(t, start + offsets[i], true, "wobble_moved_%d_%s" % [i, renderer])
		var d := _max_diff(base, moved)
		check(d <= tol, "snapped: camera moved by %s changed drawn heights by %s (tolerance %s)" % [offsets[i], d, tol])
	# The measurement can see wobble: without snapping (document 000's placement) the same move changes
	# the drawn geometry.
	var loose_a := await _vertex_heights(t, start, false, "wobble_loose_a_" + renderer)
	var loose_b := await _vertex_heights(t, start + offsets[0], false, "wobble_loose_b_" + renderer)
	var dl := _max_diff(loose_a, loose_b)
	check(dl > tol, "unsnapped movement should wobble measurably, changed by only %s" % dl)
	# A move across a snap step shifts the LOD rings by one step: only points near ring borders change.
	var stepped := await _vertex_heights(t, start + Vector3(0.75, 0, 0.75), true, "wobble_step_" + renderer)
	var changed := 0
	for k in base:
		changed += int(absf(base[k] - stepped[k]) > tol)
	var frac := float(changed) / base.size()
	check(frac < 0.25, "a snap step changed %.1f%% of the pixels" % (frac * 100.0))
	print("wobble: unsnapped sub-sample move changes drawn heights by up to %s; snapped moves by <= %s; a whole snap step changes %.1f%% of pixels (ring borders)" % [dl, tol, frac * 100.0])


## Whether world X/Z `w` is within reach of a triangle edge (rasterisation decides such pixels).
func _near_triangle_edge(w: Vector2) -> bool:
	var sp := w - Vector2(0.5, 0.5)
	var f := sp - sp.floor()
	return minf(minf(f.x, 1.0 - f.x), minf(f.y, 1.0 - f.y)) < 0.08 or absf(f.x + f.y - 1.0) < 0.12


## Background exactly where `is_hole` says, ground elsewhere.
func _check_holes(img: Image, t: TerrainData, min_holes: int) -> void:
	var wrong := 0
	var n_hole := 0
	var n := 0
	for py in range(0, img.get_height(), 2):
		for px in range(0, img.get_width(), 2):
			var w := _world_of(img, px, py)
			if _near_triangle_edge(w):
				continue
			var hole := t.is_hole(w)
			n_hole += int(hole)
			n += 1
			var c := img.get_pixel(px, py)
			wrong += int((c.r > 0.9 and c.b > 0.9 and c.g < 0.1) != hole)
	check(n_hole > min_holes, "hole pixels compared (%d)" % n_hole)
	check_eq(wrong, 0, "background exactly over holes (%d pixels, %d over holes)" % [n, n_hole])


func test_holes_show_the_background_exactly() -> void:
	var t := _data()
	var holes := PackedByteArray()
	holes.resize(4 * 3)
	holes.fill(1)
	t.set_holes_region(Rect2i(28, 30, 4, 3), holes)
	t.set_holes_region(Rect2i(36, 34, 1, 1), PackedByteArray([1]))
	var root := _follow_scene(t, 0, Vector3(CENTER.x, 30, CENTER.y - 12), true)
	await frames(3)
	var img := screenshot("wandering_holes_" + renderer)
	root.queue_free()
	_check_holes(img, t, 100)


## Edits after the first draw reach the GPU exactly: by rectangle on Forward+ (a staging texture copied
## into the device texture), whole on Compatibility.
func test_edits_after_drawing_are_drawn_exactly() -> void:
	var t := _data()
	# A hole before the first draw makes the control texture; the later ones update it.
	t.set_holes_region(Rect2i(40, 40, 1, 1), PackedByteArray([1]))
	var root := _follow_scene(t, 0, Vector3(CENTER.x, 30, CENTER.y - 12), true)
	await frames(3)
	var r := t.get_height_range()
	var vals := PackedFloat32Array()
	vals.resize(9 * 7)
	for i in vals.size():
		vals[i] = lerpf(r.x, r.y, float(i) / vals.size())
	t.set_heights_region(Rect2i(22, 24, 9, 7), vals)
	var brush := TerrainBrush.new()
	brush.size = 6.0
	brush.strength = 2.0
	check(t.apply_brush(brush, Vector2(37.5, 29.5), 0.5).has_area(), "the dab changed the terrain")
	var holes := PackedByteArray()
	holes.resize(3 * 2)
	holes.fill(1)
	t.set_holes_region(Rect2i(28, 36, 3, 2), holes)
	t.set_holes_region(Rect2i(40, 40, 1, 1), PackedByteArray([0]))
	await frames(3)
	var img := screenshot("wandering_edited_" + renderer)
	root.queue_free()
	_compare_with_cpu(img, t, "WanderingTerrain after edits")
	_check_holes(img, t, 20)
	# The texture reads back what was sent (the device texture can be copied from).
	var back := t.get_data_texture().get_image()
	var data := t.get_data_image()
	check(back != null and back.get_size() == data.get_size(), "the data texture reads back")
	if back != null:
		var off := 0
		for z in range(20, 34):
			for x in range(20, 42):
				off += int(back.get_pixel(x, z).r != data.get_pixel(x, z).r)
		check_eq(off, 0, "read back equal to the data image over the edits")


## Views with no cells on this node (REGIONS: it draws no region maps) are grey, not the unset texture's
## white read as "damaged" red.
func test_regions_view_without_regions_is_grey() -> void:
	var t := _data()
	var root := _follow_scene(t, 0, Vector3(32, 10, 20), true)
	var wt: WanderingTerrain = root.get_child(root.get_child_count() - 1)
	wt.debug_view = WanderingTerrain.DEBUG_VIEW_REGIONS
	await frames(3)
	var img := screenshot("wandering_regions_view_" + renderer)
	root.queue_free()
	var grey := 0
	var other := 0
	for py in range(2, img.get_height(), 6):
		for px in range(2, img.get_width(), 6):
			var c := img.get_pixel(px, py)
			if c.is_equal_approx(MAGENTA):
				continue
			if absf(c.r - c.g) < 0.04 and absf(c.g - c.b) < 0.04:
				grey += 1
			else:
				other += 1
	check(grey > 500, "terrain pixels seen (%d)" % grey)
	check_eq(other, 0, "every terrain pixel grey")
