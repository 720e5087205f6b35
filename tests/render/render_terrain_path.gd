extends "res://wt_test.gd"
## TerrainPath on the GPU: the layer a path paints is drawn where get_layer_weights says, its worn edge
## included (the material test's pixel comparison, with a road painted by a path over its terrain).

const MaterialSuite := preload("res://render/render_terrain_material.gd")


func test_a_paths_paint_is_drawn_where_the_cpu_says() -> void:
	var mat = MaterialSuite.new()
	mat.tree = tree
	mat.renderer = renderer
	var s: Array = mat._scene()
	var root: Node3D = s[0]
	var cam: Camera3D = s[1]
	var t: TerrainData = mat._data()
	var tn := TerrainNode.new()
	var probe := ShaderMaterial.new()
	probe.shader = load(MaterialSuite.PROBE)
	tn.material = probe
	tn.terrain_material = mat._material()
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	# A diagonal road painting layer 4 with a noisy edge; far below the ground in MODE_RAISE, so it
	# leaves the heights and only paints.
	var road := TerrainPath.new()
	var c := Curve3D.new()
	c.add_point(Vector3(8, -500, 20))
	c.add_point(Vector3(64, -500, 70), Vector3(-20, 0, -25), Vector3(20, 0, 25))
	c.add_point(Vector3(120, -500, 112))
	road.curve = c
	road.mode = TerrainPath.MODE_RAISE
	road.paint_layer = 4
	road.paint_width = 9.0
	road.paint_falloff = 3.0
	road.paint_edge_noise = 1.2
	tn.add_child(road)
	road.apply_now()
	await frames(4)
	var img := screenshot("terrain_path_paint")
	mat._compare(img, cam, tn.get_layer_weights, t.is_hole, "TerrainPath paint")
	for f in mat.failures():
		check(false, f)
	# On the road's centre the painted layer's colour, where get_layer_weights says it is whole.
	var on_road := 0
	for k in 20:
		var p := c.sample(1, 0.05 * k)
		var w := tn.get_layer_weights(Vector2(p.x, p.z))
		if w[4] > 0.99:
			var px := cam.unproject_position(Vector3(p.x, 0, p.z))
			var got := img.get_pixel(int(px.x), int(px.y))
			var want: Color = MaterialSuite.COLORS[4]
			on_road += int(absf(got.r - want.r) < 0.035 and absf(got.g - want.g) < 0.035 and absf(got.b - want.b) < 0.035)
	check(on_road >= 15, "the road's colour along its centre (%d of 20 points)" % on_road)
	root.queue_free()
	await frames(1)
