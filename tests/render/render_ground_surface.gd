extends "res://wt_test.gd"
## `get_surface` against what the GPU draws: the layer-weights debug view (each layer in its palette colour,
## blended by the shader's weights) seen from above; away from blend borders every pixel's layer is the one
## `get_surface` names there.

const SIZE := 128
## terrain_debug.gdshaderinc's WT_DEBUG_PALETTE (the first three).
const PALETTE := [Color(0.9, 0.2, 0.2), Color(0.2, 0.8, 0.2), Color(0.2, 0.4, 0.95)]


func _terrain() -> TerrainNode:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var h := PackedFloat32Array()
	for z in SIZE:
		for x in SIZE:
			h.append(10.0 + 6.0 * sin(x * 0.05) * cos(z * 0.04))
	t.heights = h
	var layers: Array[TerrainLayer] = []
	for n in [&"grass", &"rock", &"ice"]:
		var l := TerrainLayer.new()
		l.surface_name = n
		layers.append(l)
	# Rock by height band where nothing is painted; grass painted west, ice in a square.
	layers[1].height_band = Vector2(10.0, 100.0)
	var m := TerrainMaterial.new()
	m.layers = layers
	var w := PackedFloat32Array()
	w.resize(40 * SIZE)
	w.fill(1.0)
	t.set_layer_region(Rect2i(0, 0, 40, SIZE), 0, w)
	var ice := PackedFloat32Array()
	ice.resize(30 * 30)
	ice.fill(1.0)
	t.set_layer_region(Rect2i(80, 70, 30, 30), 2, ice)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.terrain_material = m
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	return tn


## The palette layer a pixel shows (its colour's direction nearest a palette colour's), -1 for none near.
func _layer_of(c: Color) -> int:
	var v := Vector3(c.r, c.g, c.b)
	if v.length() < 0.05:
		return -1
	var best := -1
	var best_d := 0.05
	for i in PALETTE.size():
		var p: Color = PALETTE[i]
		var d := v.normalized().distance_to(Vector3(p.r, p.g, p.b).normalized())
		if d < best_d:
			best = i
			best_d = d
	return best


func test_get_surface_is_the_layer_the_gpu_draws_most() -> void:
	RenderingServer.set_default_clear_color(Color(0, 0, 0))
	var root := Node3D.new()
	tree.root.add_child(root)
	var tn := _terrain()
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = 120.0
	cam.far = 1000.0
	cam.position = Vector3(64, 300, 64)
	cam.rotation_degrees.x = -90.0
	root.add_child(cam)
	cam.make_current()
	root.add_child(tn)
	tn.debug_view = TerrainNode.DEBUG_VIEW_LAYER_WEIGHTS
	await frames(3)
	var img := screenshot("ground_surface_layers_" + renderer)
	var ppu := img.get_height() / cam.size
	var compared := 0
	var equal := 0
	var all := 0
	var all_equal := 0
	var seen := [0, 0, 0]
	for py in img.get_height():
		for px in img.get_width():
			var w := Vector2(cam.position.x + (px + 0.5 - img.get_width() / 2.0) / ppu,
				cam.position.z + (py + 0.5 - img.get_height() / 2.0) / ppu)
			if w.x < 1 or w.y < 1 or w.x > SIZE - 2 or w.y > SIZE - 2:
				continue
			var at := Vector3(w.x, 0, w.y)
			var cpu: int = tn.get_surface(at)["layer"]
			var gpu := _layer_of(img.get_pixel(px, py))
			all += 1
			all_equal += int(gpu == cpu)
			# Away from blend borders: one layer holds (nearly) all the weight here and a pixel away.
			var clear := true
			for o in [Vector2.ZERO, Vector2(1, 0) / ppu, Vector2(-1, 0) / ppu, Vector2(0, 1) / ppu, Vector2(0, -1) / ppu]:
				var ws := tn.get_layer_weights(w + o)
				var top := 0.0
				for x in ws:
					top = maxf(top, x)
				clear = clear and top >= 0.99
			if not clear:
				continue
			compared += 1
			equal += int(gpu == cpu)
			if cpu >= 0 and cpu < 3:
				seen[cpu] += 1
	root.queue_free()
	var share := float(compared) / maxf(all, 1)
	print("get_surface vs the GPU's layer view (%s): %d of %d pixels away from blend borders (%.1f %%) agree: %d; all pixels: %d of %d agree (%.2f %%); per layer %s" % [renderer, compared, all, share * 100.0, equal, all_equal, all, 100.0 * all_equal / maxf(all, 1), seen])
	check(compared > 20000, "pixels away from borders: %d" % compared)
	check_eq(equal, compared, "away from blend borders, the drawn layer is get_surface's")
	check(seen[0] > 1000 and seen[1] > 1000 and seen[2] > 1000, "every layer seen: %s" % [seen])
