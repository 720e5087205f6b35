extends "res://wt_test.gd"
## The views every clipmap render suite shares (no cases of its own): no cracks from 24 viewpoints over a
## rough terrain, the drawn height equals get_height, no popping when a level snaps, coarse-level vertices
## equal get_height. A suite extends this and runs them over its data source (`_node`).

const MAGENTA := Color(1, 0, 1)
const DEBUG_SHADER := "res://addons/wandering_terrain/shaders/terrain_node_debug.gdshader"
const SIZE := 512


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(77, 0.04, 6, 2.0, 0.55, 40.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


## The last node `_node` made. Its windows are computed on worker threads (every source): every wait also
## waits until the node shows windows computed for its target.
var _tn: TerrainNode


func frames(n: int) -> void:
	await super(n)
	if _tn == null or not is_instance_valid(_tn):
		return
	var waited := 0
	while not _tn.is_up_to_date() and waited < 3000:
		await tree.process_frame
		waited += 1
	check(_tn.is_up_to_date(), "the windows arrive (waited %d frames)" % waited)
	# The frame that showed them has been drawn.
	await super(2)


func _node(t: TerrainData, target: Node3D) -> TerrainNode:
	var tn := TerrainNode.new()
	tn.tile_resolution = 16
	tn.levels = 5
	tn.vertex_spacing = 1.0
	tn.morph_width = 4.0
	tn.terrain_data = t
	target.get_parent().add_child(tn)
	tn.target = tn.get_path_to(target)
	_tn = tn
	return tn


## Height the CPU says is drawn at world X/Z `p` (a suite over another source overrides it).
func _height(t: TerrainData, p: Vector2) -> float:
	return t.get_height(p)


## Lowest and highest height of the terrain drawn.
func _range(t: TerrainData) -> Vector2:
	return t.get_height_range()


func _is_bg(c: Color) -> bool:
	return c.r > 0.9 and c.b > 0.9 and c.g < 0.1


## Magenta pixels below the first terrain pixel of their column: holes in the terrain.
func _holes(img: Image) -> PackedVector2Array:
	var holes := PackedVector2Array()
	for x in img.get_width():
		var seen := false
		for y in img.get_height():
			var bg := _is_bg(img.get_pixel(x, y))
			if not bg:
				seen = true
			elif seen:
				holes.append(Vector2(x, y))
	return holes


func _case_no_cracks_from_many_viewpoints() -> void:
	var t := _data()
	# Grey ambient light and a sun, so no terrain pixel takes the magenta background's tint.
	var root := lit_scene(0.5)
	var cam := Camera3D.new()
	cam.far = 2000.0
	root.add_child(cam)
	cam.make_current()
	var tn := _node(t, cam)
	var views := 0
	var total := 0
	var worst := ""
	for i in 24:
		var yaw := i * TAU / 24.0 + 0.3
		var p := Vector2(256, 256) + Vector2(cos(i * 1.7), sin(i * 2.3)) * 60.0
		var height_above: float = [1.5, 4.0, 12.0, 40.0, 120.0][i % 5]
		var pitch: float = [-3.0, -8.0, -20.0, -45.0, -75.0, -1.0][i % 6]
		var ground := _height(t, p)
		cam.position = Vector3(p.x, ground + height_above, p.y)
		cam.rotation_degrees = Vector3(pitch, rad_to_deg(yaw), 0)
		await frames(3)
		var img := tree.root.get_texture().get_image()
		var h := _holes(img)
		if h.size() > 0:
			screenshot("cracks_%d_%s" % [i, renderer])
			worst += " view %d (%d holes, e.g. %s)" % [i, h.size(), h[0]]
		total += h.size()
		views += 1
	screenshot("cracks_last_" + renderer)
	root.queue_free()
	check_eq(views, 24, "views rendered")
	check(total == 0, "background pixels inside the terrain:%s" % worst)


func _debug_scene(t: TerrainData, mode: int, morph: float) -> Array:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = 96.0
	cam.position = Vector3(256, 300, 256)
	cam.rotation_degrees.x = -90.0
	cam.far = 1000.0
	root.add_child(cam)
	cam.make_current()
	var target := Node3D.new()
	root.add_child(target)
	target.position = Vector3(256, 0, 256)
	var tn := _node(t, target)
	tn.morph_width = morph
	var m := ShaderMaterial.new()
	m.shader = load(DEBUG_SHADER)
	m.set_shader_parameter("debug_mode", mode)
	var r := _range(t)
	m.set_shader_parameter("debug_height_range", Vector2(r.x - 2.0, r.y + 2.0))
	tn.material = m
	return [root, cam, target, tn, Vector2(r.x - 2.0, r.y + 2.0)]


func _decode(c: Color, r: Vector2) -> float:
	var v := (floorf((c.r - 0.25) / 0.75 * 64.0) + (c.g - 0.25) / 0.75) / 64.0
	return r.x + v * (r.y - r.x)


func _case_finest_level_equals_get_height() -> void:
	var t := _data()
	var s := _debug_scene(t, 2, 4.0)
	var cam: Camera3D = s[1]
	# 10 pixels per unit, inside the finest level (65 quads of 1 unit); shifted so every 10th pixel centre
	# falls on a vertex.
	cam.size = 24.0
	cam.position = Vector3(256.05, 300, 256.05)
	var r: Vector2 = s[4]
	await frames(3)
	var img := screenshot("clipmap_vertex_height_" + renderer)
	var ppu := img.get_height() / cam.size
	var tol := 1e-3 * (r.y - r.x)
	var worst := 0.0
	var n := 0
	var bad := 0
	# Vertex heights at the finest level's vertices (pixel centres that land on the 1-unit lattice).
	for py in range(0, img.get_height()):
		for px in range(0, img.get_width()):
			var w := Vector2(256.05, 256.05) + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)
			if absf(w.x - roundf(w.x)) > 0.02 or absf(w.y - roundf(w.y)) > 0.02:
				continue
			var gpu := _decode(img.get_pixel(px, py), r)
			var cpu := _height(t, Vector2(roundf(w.x), roundf(w.y)))
			worst = worst_of(worst, absf(gpu - cpu))
			bad += int(absf(gpu - cpu) > tol)
			n += 1
	check(n >= 500, "only %d vertex pixels" % n)
	check_eq(bad, 0, "vertices off by more than %s (worst %s)" % [tol, worst])
	# And the patch height at every pixel (debug mode 0), as for the wandering terrain.
	(s[3] as TerrainNode).material.set_shader_parameter("debug_mode", 0)
	await frames(3)
	img = screenshot("clipmap_height_" + renderer)
	s[0].queue_free()
	var worst_px := 0.0
	var bad_px := 0
	var m := 0
	for py in range(0, img.get_height(), 3):
		for px in range(0, img.get_width(), 3):
			var w := Vector2(256.05, 256.05) + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)
			var d := absf(_decode(img.get_pixel(px, py), r) - _height(t, w))
			worst_px = worst_of(worst_px, d)
			bad_px += int(d > tol)
			m += 1
	check(m >= 1000, "pixels compared")
	check_eq(bad_px, 0, "pixels off by more than %s (worst %s)" % [tol, worst_px])
	print("clipmap finest level: %d vertex pixels, worst |GPU - CPU| %s; %d pixels (patch), worst %s; tolerance %s" % [n, worst, m, worst_px, tol])


## Per-frame change of the drawn geometry (vertex heights) under a fixed top-down camera while the target
## flies along a line: [max per-pixel change of each frame].
func _fly(t: TerrainData, morph: float, label: String) -> Array[float]:
	var s := _debug_scene(t, 2, morph)
	var target: Node3D = s[2]
	var r: Vector2 = s[4]
	var out: Array[float] = []
	var prev := {}
	for f in 36:
		target.position = Vector3(256 + f * 0.45, 0, 256 + f * 0.3)
		await frames(2)
		var img := tree.root.get_texture().get_image()
		var cur := {}
		for py in range(0, img.get_height(), 4):
			for px in range(0, img.get_width(), 4):
				cur[Vector2i(px, py)] = _decode(img.get_pixel(px, py), r)
		if not prev.is_empty():
			var m := 0.0
			for k in cur:
				m = worst_of(m, absf(cur[k] - prev[k]))
			out.append(m)
		prev = cur
	screenshot("fly_%s_%s" % [label, renderer])
	s[0].queue_free()
	await tree.process_frame
	return out


func _case_no_popping_when_levels_snap() -> void:
	var t := _data()
	var r := _range(t)
	var range_h := r.y - r.x
	var morphed := await _fly(t, 4.0, "morph")
	var popping := await _fly(t, 0.0, "nomorph")
	var m_max: float = morphed.max()
	var p_max: float = popping.max()
	var sorted := morphed.duplicate()
	sorted.sort()
	var median: float = sorted[sorted.size() / 2]
	# Documented bound: no pixel's drawn height changes by more than 2% of the height range between frames
	# (the target moves 0.54 units per frame), and no frame exceeds 4x the median frame (no spikes at snaps).
	check(m_max <= 0.02 * range_h, "per-frame change %s over 2%% of the range %s" % [m_max, range_h])
	check(m_max <= 4.0 * maxf(median, 1e-3 * range_h), "spike: max %s vs median %s" % [m_max, median])
	# The measurement sees pops: without geomorphing, snaps change the geometry by much more.
	check(p_max > 2.0 * m_max, "without morphing the max change %s should exceed 2x %s" % [p_max, m_max])
	print("clipmap flight: max per-frame change %s (median %s) with morphing, %s without; range %s" % [m_max, median, p_max, range_h])


## Vertex heights (debug mode 2) at lattice points `step` apart in a top-down view centred on `centre`
## (`view` units high: 5 pixels per unit by default, shifted so pixel centres fall on whole units):
## [compared, worst, bad].
func _vertex_check(t: TerrainData, centre: Vector2, step: int, r: Vector2, label: String, view := 48.0) -> Array:
	var img := screenshot(label)
	var ppu := img.get_height() / view
	var tol := 1e-3 * (r.y - r.x)
	var worst := 0.0
	var n := 0
	var bad := 0
	for py in img.get_height():
		for px in img.get_width():
			var w := centre + Vector2((px + 0.5 - img.get_width() / 2.0) / ppu, (py + 0.5 - img.get_height() / 2.0) / ppu)
			var g := Vector2(roundf(w.x / step) * step, roundf(w.y / step) * step)
			if absf(w.x - g.x) > 0.02 or absf(w.y - g.y) > 0.02:
				continue
			var d := absf(_decode(img.get_pixel(px, py), r) - _height(t, g))
			worst = worst_of(worst, d)
			bad += int(d > tol)
			n += 1
	return [n, worst, bad, tol]


func _case_coarse_level_vertices_equal_get_height() -> void:
	var t := _data()
	var s := _debug_scene(t, 2, 4.0)
	var cam: Camera3D = s[1]
	var r: Vector2 = s[4]
	# Level 3 (lattice step 8) spans 132..264 units from the target at (256, 256) with N = 16; this view
	# covers 161..209 units east, inside level 3 and before its morph band.
	cam.size = 48.0
	var centre := Vector2(441.1, 256.1)
	cam.position = Vector3(centre.x, 300, centre.y)
	await frames(3)
	var res := _vertex_check(t, centre, 8, r, "clipmap_level3_vertex_height_" + renderer)
	s[0].queue_free()
	check(res[0] >= 30, "only %d level-3 vertex pixels" % res[0])
	check_eq(res[2], 0, "level-3 vertices off by more than %s (worst %s)" % [res[3], res[1]])
	print("clipmap level 3: %d vertex pixels, worst |GPU - CPU| %s; tolerance %s" % [res[0], res[1], res[3]])


## The state a cells-view pixel shows (terrain_debug.gdshaderinc: WT_DEBUG_CELL_STATES): 0 grey, 1 green,
## 2 orange, 3 red, by hue (the shading and the dark borders keep it).
func _cell_state(c: Color) -> int:
	if absf(c.r - c.g) < 0.04 and absf(c.g - c.b) < 0.04:
		return 0
	if c.g > c.r and c.g > c.b:
		return 1
	if c.r > c.g and c.g > 2.0 * c.b:
		return 2
	return 3


## Draws the node's cells view `view` and compares every 4th pixel's state with `expected(p)` (a state,
## or -1 where it may go either way); returns the count of pixels seen per state.
func _case_cells_view(s: Array, view: int, expected: Callable, label: String) -> Array:
	var tn: TerrainNode = s[3]
	var cam: Camera3D = s[1]
	tn.material = null
	tn.debug_view = view
	await frames(3)
	var img := screenshot("%s_%s" % [label, renderer])
	var seen := [0, 0, 0, 0]
	var wrong := 0
	var first := ""
	for py in range(2, img.get_height(), 4):
		for px in range(2, img.get_width(), 4):
			var o := cam.project_ray_origin(Vector2(px + 0.5, py + 0.5))
			var p := Vector2(o.x, o.z)
			var want: int = expected.call(p)
			if want < 0:
				continue
			var got := _cell_state(img.get_pixel(px, py))
			seen[got] += 1
			if got != want:
				wrong += 1
				if first == "":
					first = "at %s: %d, want %d (%s)" % [p, got, want, img.get_pixel(px, py)]
	check_eq(wrong, 0, "%s: every pixel in its cell's state colour (first wrong %s)" % [label, first])
	print("%s (%s): pixels per state %s" % [label, renderer, seen])
	return seen
