extends "res://wt_test.gd"
## Terrain materials on the GPU: the colour drawn at a point is the blend of the layers that
## get_layer_weights reports there (painted layers, height bands where nothing is painted), holes show the
## background, and the shipped lit shader draws the layers' textures on both nodes.

const MAGENTA := Color(1, 0, 1)
const PROBE := "res://render/material_probe.gdshader"
const WANDERING_PROBE := "res://render/wandering_material_probe.gdshader"
const SIZE := 128
## Layer colours (sRGB): sand, grass, snow (height bands), road, rock (painted).
const COLORS := [Color8(230, 200, 90), Color8(40, 150, 40), Color8(250, 250, 250), Color8(60, 60, 70), Color8(150, 80, 30)]


## Heights rise along X from 0 to ~38; a road painted across Z 50..62 (fading in over its edges), a rock
## patch, and a square hole.
func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var h := PackedFloat32Array()
	for z in SIZE:
		for x in SIZE:
			h.append(x * 0.3 + sin(z * 0.2) * 1.5)
	t.heights = h
	var road := PackedFloat32Array()
	for z in 12:
		for x in SIZE:
			road.append(clampf(minf(z, 11 - z) / 4.0, 0.0, 1.0))
	check(t.set_layer_region(Rect2i(0, 50, SIZE, 12), 3, road), "road painted")
	var rock := PackedFloat32Array()
	for z in 20:
		for x in 20:
			rock.append(0.35 + 0.03 * x)
	check(t.set_layer_region(Rect2i(90, 90, 20, 20), 4, rock), "rock painted")
	var hole := PackedByteArray()
	hole.resize(36)
	hole.fill(1)
	check(t.set_holes_region(Rect2i(20, 90, 6, 6), hole), "hole cut")
	return t


func _layer(i: int) -> TerrainLayer:
	var l := TerrainLayer.new()
	var img := Image.create_empty(16, 16, false, Image.FORMAT_RGBA8)
	img.fill(COLORS[i])
	l.albedo_texture = ImageTexture.create_from_image(img)
	l.uv_scale = 0.25
	return l


func _material() -> TerrainMaterial:
	var m := TerrainMaterial.new()
	var layers: Array[TerrainLayer] = []
	for i in COLORS.size():
		layers.append(_layer(i))
	layers[0].height_band = Vector2(0, 12)
	layers[1].height_band = Vector2(16, 10)
	layers[2].height_band = Vector2(36, 12)
	m.layers = layers
	m.texture_size = 64
	return m


## An unlit scene with an orthographic camera straight above the terrain's centre.
func _scene() -> Array:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = SIZE * 1.02
	cam.far = 500.0
	cam.position = Vector3(SIZE * 0.5, 200.0, SIZE * 0.5)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	root.add_child(cam)
	cam.make_current()
	return [root, cam]


## The blend of the layer colours with `weights`, as drawn: in linear light under Forward+/Mobile; the
## Compatibility renderer blends the sRGB values themselves (measured: its unshaded output of sRGB texture
## arrays matches that, single colours are exact on both).
func _blend(weights: PackedFloat32Array) -> Color:
	var linear := renderer != "opengl3"
	var c := Color(0, 0, 0)
	for i in weights.size():
		var l: Color = COLORS[i].srgb_to_linear() if linear else COLORS[i]
		c += Color(l.r, l.g, l.b) * weights[i]
	c.a = 1.0
	return c.linear_to_srgb() if linear else c


## Compares every 3rd pixel with the blend get_layer_weights predicts at its point; returns the worst error.
func _compare(img: Image, cam: Camera3D, weights_at: Callable, is_hole: Callable, what: String) -> void:
	var worst := 0.0
	var where := Vector2i()
	var n := 0
	var holes := 0
	var seen := PackedInt32Array()
	seen.resize(COLORS.size())
	for py in range(1, img.get_height(), 3):
		for px in range(1, img.get_width(), 3):
			var o := cam.project_ray_origin(Vector2(px + 0.5, py + 0.5))
			var p := Vector2(o.x, o.z)
			if p.x < 1.0 or p.y < 1.0 or p.x > SIZE - 1.0 or p.y > SIZE - 1.0:
				continue
			# Points within half a pixel of a hole's edge may go either way.
			var hole_here: bool = is_hole.call(p)
			var edge := false
			for d in [Vector2(0.3, 0), Vector2(-0.3, 0), Vector2(0, 0.3), Vector2(0, -0.3)]:
				edge = edge or is_hole.call(p + d) != hole_here
			if edge:
				continue
			var got := img.get_pixel(px, py)
			var want := MAGENTA if hole_here else _blend(weights_at.call(p))
			var err := maxf(maxf(absf(got.r - want.r), absf(got.g - want.g)), absf(got.b - want.b))
			# NaN-safe: a non-finite error makes the worst INF for good.
			if not (err <= worst):
				where = Vector2i(px, py)
			worst = worst_of(worst, err)
			n += 1
			holes += int(hole_here)
			if not hole_here:
				var w: PackedFloat32Array = weights_at.call(p)
				for i in w.size():
					seen[i] += int(w[i] > 0.6)
	print("material %s: %d pixels (%d in the hole), worst colour error %.4f at %s" % [what, n, holes, worst, where])
	check(n > 1500 and holes > 4, "%s: pixels compared (%d, %d in the hole)" % [what, n, holes])
	check(worst < 0.035, "%s: drawn colour = blend of get_layer_weights (worst %.4f at %s)" % [what, worst, where])
	for i in seen.size():
		check(seen[i] > 3, "%s: layer %d dominates somewhere (%d pixels)" % [what, i, seen[i]])


func test_terrain_node_draws_the_blend_get_layer_weights_reports() -> void:
	var s := _scene()
	var root: Node3D = s[0]
	var cam: Camera3D = s[1]
	var t := _data()
	var tn := TerrainNode.new()
	var probe := ShaderMaterial.new()
	probe.shader = load(PROBE)
	tn.material = probe
	tn.terrain_material = _material()
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	await frames(4)
	var img := screenshot("material_terrain_node")
	_compare(img, cam, tn.get_layer_weights, t.is_hole, "TerrainNode")
	# A new paint stroke reaches the GPU through the data windows.
	var w := PackedFloat32Array()
	w.resize(100)
	w.fill(1.0)
	t.set_layer_region(Rect2i(60, 20, 10, 10), 4, w)
	await frames(3)
	var c := cam.unproject_position(Vector3(65, 0, 25))
	var got := tree.root.get_texture().get_image().get_pixel(int(c.x), int(c.y))
	check(absf(got.r - COLORS[4].r) < 0.03 and absf(got.g - COLORS[4].g) < 0.03, "painted rock shows after an edit: %s" % got)
	root.queue_free()
	await frames(1)


## A WanderingTerrain over `t` with the layers, under `root`, drawn with `material` (null: its own), its
## mesh ahead of the camera it follows: a tracker south of the terrain looking north.
func _wandering(root: Node3D, t: TerrainData, material: ShaderMaterial) -> WanderingTerrain:
	var wt := WanderingTerrain.new()
	if material:
		wt.material = material
	var mesh := WanderingMesh.new()
	mesh.start_size = 64.0
	mesh.start_subdivision = 5
	mesh.lods = PackedInt32Array([2, 2, 2, 2, 2, 2])
	wt.mesh = mesh
	wt.terrain_material = _material()
	wt.terrain_data = t
	var tracker := Camera3D.new()
	root.add_child(tracker)
	tracker.look_at_from_position(Vector3(SIZE * 0.5, 60, SIZE + 20), Vector3(SIZE * 0.5, 60, 0))
	root.add_child(wt)
	wt.camera = wt.get_path_to(tracker)
	return wt


func test_wandering_terrain_draws_the_same_blend() -> void:
	var s := _scene()
	var root: Node3D = s[0]
	var cam: Camera3D = s[1]
	var t := _data()
	var probe := ShaderMaterial.new()
	probe.shader = load(WANDERING_PROBE)
	var wt := _wandering(root, t, probe)
	await frames(4)
	var img := screenshot("material_wandering_terrain")
	_compare(img, cam, wt.get_layer_weights, t.is_hole, "WanderingTerrain")
	# A paint brush reaches the wandering terrain's control texture.
	var b := TerrainBrush.new()
	b.tool = TerrainBrush.PAINT
	b.layer = 4
	b.size = 10.0
	b.hardness = 1.0
	b.strength = 50.0
	t.apply_brush(b, Vector2(65, 25), 1.0)
	await frames(3)
	var c := cam.unproject_position(Vector3(65, 0, 25))
	var got := tree.root.get_texture().get_image().get_pixel(int(c.x), int(c.y))
	check(absf(got.r - COLORS[4].r) < 0.03 and absf(got.g - COLORS[4].g) < 0.03, "brush-painted rock shows on the wandering terrain: %s" % got)
	root.queue_free()
	await frames(1)


func test_texture_arrays_hold_the_layers() -> void:
	var m := TerrainMaterial.new()
	var a := TerrainLayer.new()
	var img := Image.create_empty(40, 20, false, Image.FORMAT_RGB8)
	img.fill(Color8(200, 10, 10))
	a.albedo_texture = ImageTexture.create_from_image(img)
	m.texture_size = 64
	m.layers = [a, TerrainLayer.new()] as Array[TerrainLayer]
	var arr := m.get_albedo_array()
	var red := arr.get_layer_data(0).get_pixel(5, 5)
	check(red.r8 == 200 and red.g8 == 10, "layer 0 is its texture (resized): %s" % red)
	check_eq(arr.get_layer_data(1).get_pixel(5, 5), Color(1, 1, 1), "layer without texture is white (tint only)")
	var flat := m.get_normal_array().get_layer_data(1).get_pixel(3, 3)
	check_eq(flat.to_rgba32(), Color8(128, 128, 255).to_rgba32(), "flat normal")
	img.fill(Color8(10, 10, 200))
	a.albedo_texture = ImageTexture.create_from_image(img)
	check(m.get_albedo_array().get_layer_data(0).get_pixel(5, 5).b8 == 200, "rebuilt with the new texture")


## A checker texture: `cells` x `cells` squares, black and white.
func _checker(cells: int) -> ImageTexture:
	var img := Image.create_empty(64, 64, false, Image.FORMAT_RGBA8)
	var s := 64 / cells
	for y in 64:
		for x in 64:
			img.set_pixel(x, y, Color.WHITE if ((x / s) + (y / s)) % 2 == 0 else Color.BLACK)
	return ImageTexture.create_from_image(img)


## Light/dark changes along the middle column of the cliff face (the picture's rows lo..hi).
func _transitions(img: Image, x: int, lo: int, hi: int) -> int:
	var n := 0
	var prev := -1
	for y in range(lo, hi):
		var v := img.get_pixel(x, y).get_luminance()
		var cur := 1 if v > 0.6 else (0 if v < 0.4 else prev)
		if prev >= 0 and cur != prev:
			n += 1
		prev = cur
	return n


func test_triplanar_keeps_cliffs_unstretched() -> void:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	tree.root.add_child(root)
	# A cliff 60 high over 10 samples (normal y about 0.16) facing -X, flat ground around it.
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var h := PackedFloat32Array()
	for z in SIZE:
		for x in SIZE:
			h.append(clampf((x - 60) / 10.0, 0.0, 1.0) * 60.0)
	t.heights = h
	var cam := Camera3D.new()
	cam.far = 500.0
	root.add_child(cam)
	cam.look_at_from_position(Vector3(20, 30, 64), Vector3(65, 30, 64))
	cam.make_current()
	var tn := TerrainNode.new()
	var probe := ShaderMaterial.new()
	probe.shader = load(PROBE)
	tn.material = probe
	var layer := TerrainLayer.new()
	layer.albedo_texture = _checker(2)
	layer.uv_scale = 0.25
	var look := TerrainMaterial.new()
	look.texture_size = 64
	look.layers = [layer] as Array[TerrainLayer]
	tn.terrain_material = look
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	# The cliff face spans these rows at the picture's middle column.
	var top := cam.unproject_position(Vector3(65, 55, 64))
	var bottom := cam.unproject_position(Vector3(65, 5, 64))
	var col := int(top.x)
	await frames(4)
	var flat := _transitions(screenshot("material_cliff_planar"), col, int(top.y), int(bottom.y))
	layer.triplanar = true
	await frames(3)
	var tri := _transitions(screenshot("material_cliff_triplanar"), col, int(top.y), int(bottom.y))
	print("cliff: %d checker edges up the face projected from above, %d triplanar (rows %d..%d)" % [flat, tri, int(top.y), int(bottom.y)])
	# 50 units of height at 4 units a checker period: ~25 edges when projected from the side; from above,
	# the face's 8 units of X give ~4.
	check(tri >= 18 and tri >= 3 * maxi(flat, 1), "triplanar shows the texture up the cliff (%d edges vs %d)" % [tri, flat])
	root.queue_free()
	await frames(1)


## A normal map tilting every normal by 30° toward `dir` (x: +U, y: image up).
func _tilt_map(dir: Vector2) -> ImageTexture:
	var n := Vector3(dir.x * 0.5, dir.y * 0.5, 0.866)
	var img := Image.create_empty(8, 8, false, Image.FORMAT_RGB8)
	img.fill(Color(n.x * 0.5 + 0.5, n.y * 0.5 + 0.5, n.z * 0.5 + 0.5))
	return ImageTexture.create_from_image(img)


func test_normal_maps_light_the_ground_the_right_way() -> void:
	# Dim ambient light; the sun is turned per case below.
	var root := lit_scene(0.1, Vector3.ZERO)
	var sun: DirectionalLight3D = root.get_node("Sun")
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = 40.0
	cam.far = 500.0
	cam.position = Vector3(64, 100, 64)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	root.add_child(cam)
	cam.make_current()
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var tn := TerrainNode.new()
	var layer := TerrainLayer.new()
	var look := TerrainMaterial.new()
	look.texture_size = 16
	look.layers = [layer] as Array[TerrainLayer]
	tn.terrain_material = look
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	var centre := cam.unproject_position(Vector3(64, 0, 64))
	# Sun low in +X (shining toward -X), then in +Z; the ground brightness for maps tilted toward +U, -U,
	# the image's up and down.
	var results := {}
	for sun_dir in ["+X", "+Z"]:
		sun.rotation_degrees = Vector3(-30, 90, 0) if sun_dir == "+X" else Vector3(-30, 0, 0)
		for tilt in [Vector2(1, 0), Vector2(-1, 0), Vector2(0, 1), Vector2(0, -1)]:
			layer.normal_texture = _tilt_map(tilt)
			await frames(3)
			var img := tree.root.get_texture().get_image()
			results["%s %s" % [sun_dir, tilt]] = img.get_pixelv(Vector2i(centre)).get_luminance()
	print("normal map lighting: ", results)
	# Godot's convention: +U is +X, the image's up (green) is -Z.
	check(results["+X (1.0, 0.0)"] > results["+X (-1.0, 0.0)"] + 0.1, "a map tilted toward +U is lit by a sun in +X")
	check(results["+Z (0.0, -1.0)"] > results["+Z (0.0, 1.0)"] + 0.1, "a map tilted toward the image's down (+Z) is lit by a sun in +Z")
	root.queue_free()
	await frames(1)


## The debug shader's layer colours (terrain_debug.gdshaderinc: WT_DEBUG_PALETTE; grey for none).
const DEBUG_PALETTE := [Color(0.9, 0.2, 0.2), Color(0.2, 0.8, 0.2), Color(0.2, 0.4, 0.95), Color(0.95, 0.85, 0.1), Color(0.8, 0.2, 0.9), Color(0.1, 0.85, 0.85), Color(0.95, 0.55, 0.1), Color(0.6, 0.6, 0.6)]


func _debug_color(layer: int) -> Color:
	return Color(0.5, 0.5, 0.5) if layer < 0 else DEBUG_PALETTE[layer % 8]


## [base slot, overlay slot, blend] of raw control word `c` (control.rs layout).
func _paint(c: int) -> Array:
	return [c & 63, (c >> 6) & 63, float((c >> 12) & 255) / 255.0]


## The share of sample (x, z)'s paint that is a layer of the material (the rest is auto).
func _painted(control: PackedInt32Array, x: int, z: int) -> float:
	var p := _paint(control[z * SIZE + x])
	var n := COLORS.size()
	return (1.0 - p[2] if p[0] > 0 and p[0] <= n else 0.0) + (p[2] if p[1] > 0 and p[1] <= n else 0.0)


## Both nodes' LAYER_WEIGHTS and CONTROL debug views draw the colours predicted from get_layer_weights and
## the raw control words.
func test_layer_debug_views_show_the_blend_and_the_slots() -> void:
	var t := _data()
	var control := t.get_control()
	for kind in ["TerrainNode", "WanderingTerrain"]:
		var s := _scene()
		var root: Node3D = s[0]
		var cam: Camera3D = s[1]
		var node: Node3D
		if kind == "TerrainNode":
			var tn := TerrainNode.new()
			tn.terrain_material = _material()
			tn.terrain_data = t
			root.add_child(tn)
			tn.target = tn.get_path_to(cam)
			node = tn
		else:
			node = _wandering(root, t, null)
		for view in [TerrainNode.DEBUG_VIEW_LAYER_WEIGHTS, TerrainNode.DEBUG_VIEW_CONTROL]:
			node.set("debug_view", view)
			await frames(3)
			var img := screenshot("debug_view_%d_%s" % [view, kind])
			var worst := 0.0
			var n := 0
			var kinds := {}
			for py in range(1, img.get_height(), 4):
				for px in range(1, img.get_width(), 4):
					var o := cam.project_ray_origin(Vector2(px + 0.5, py + 0.5))
					var p := Vector2(o.x, o.z)
					if p.x < 2.0 or p.y < 2.0 or p.x > SIZE - 2.0 or p.y > SIZE - 2.0:
						continue
					var near_hole := false
					for d in [Vector2(0, 0), Vector2(1.2, 0), Vector2(-1.2, 0), Vector2(0, 1.2), Vector2(0, -1.2)]:
						near_hole = near_hole or t.is_hole(p + d)
					if near_hole:
						continue
					var want: Color
					if view == TerrainNode.DEBUG_VIEW_CONTROL:
						# The nearest sample: away from sample-cell borders.
						var g := p - p.floor()
						if minf(minf(g.x, 1.0 - g.x), minf(g.y, 1.0 - g.y)) < 0.1:
							continue
						var pt := _paint(control[int(p.y) * SIZE + int(p.x)])
						want = _debug_color(pt[0] - 1).lerp(_debug_color(pt[1] - 1), pt[2])
						kinds[want.to_html()] = true
					else:
						var w: PackedFloat32Array = node.call("get_layer_weights", p)
						var c := Color(0, 0, 0)
						for i in w.size():
							c += _debug_color(i) * w[i]
						var sp := p - Vector2(0.5, 0.5)
						var f := sp - sp.floor()
						var x0 := int(sp.x)
						var z0 := int(sp.y)
						var painted := lerpf(lerpf(_painted(control, x0, z0), _painted(control, x0 + 1, z0), f.x),
							lerpf(_painted(control, x0, z0 + 1), _painted(control, x0 + 1, z0 + 1), f.x), f.y)
						want = c * lerpf(0.55, 1.0, painted)
						kinds[int(painted * 4.0)] = true
					var got := img.get_pixel(px, py)
					worst = worst_of(worst, maxf(maxf(absf(got.r - want.r), absf(got.g - want.g)), absf(got.b - want.b)))
					n += 1
			print("%s debug view %d (%s): %d pixels, worst %.4f, %d kinds" % [kind, view, renderer, n, worst, kinds.size()])
			check(n > 1000, "%s view %d: pixels compared (%d)" % [kind, view, n])
			check(kinds.size() >= 3, "%s view %d: several colours or paint shares seen (%d)" % [kind, view, kinds.size()])
			check(worst < 0.04, "%s view %d: the predicted colours (worst %.4f)" % [kind, view, worst])
		root.queue_free()
		await frames(1)
