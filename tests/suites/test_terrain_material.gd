extends "res://wt_test.gd"
## TerrainLayer, TerrainMaterial and the material data of TerrainData: painting, weights, splat maps,
## saving, and refused input.

var _regions: Array[Rect2i] = []


func _on_region(r: Rect2i) -> void:
	_regions.append(r)


func _flat(n: int) -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(n, n)
	return t


func _ones(n: int, v := 1.0) -> PackedFloat32Array:
	var a := PackedFloat32Array()
	a.resize(n)
	a.fill(v)
	return a


func test_painting_layers() -> void:
	var t := _flat(16)
	check_eq(t.get_layer_weights(Vector2(5, 5)).size(), TerrainData.MAX_LAYERS, "one weight per layer")
	check_eq(t.get_layer_weights(Vector2(5, 5)).count(0.0), 63, "unpainted: all auto")
	t.region_changed.connect(_on_region)
	_regions.clear()
	check(t.set_layer_region(Rect2i(4, 4, 4, 4), 7, _ones(16)), "layer 7 painted")
	check_eq(_regions, [Rect2i(3, 3, 6, 6)] as Array[Rect2i], "region_changed with the patches around")
	var w := t.get_layer_weights(Vector2(6, 6))
	check_near(w[7], 1.0, 1e-6, "fully painted inside")
	# Half a sample outside the painted square, the bilinear blend is half.
	check_near(t.get_layer_weights(Vector2(8.0, 6.0))[7], 0.5, 1e-6, "bilinear at the edge")
	check(t.set_layer_region(Rect2i(4, 4, 4, 4), 9, _ones(16, 0.25)), "layer 9 over it")
	w = t.get_layer_weights(Vector2(6, 6))
	check_near(w[9], 64.0 / 255.0, 1e-6, "layer 9 at a quarter (8-bit)")
	check_near(w[7], 191.0 / 255.0, 1e-6, "layer 7 keeps the rest")
	check(t.set_layer_region(Rect2i(4, 4, 4, 4), 9, _ones(16, 0.0)), "layer 9 erased")
	check(t.set_layer_region(Rect2i(4, 4, 4, 4), 7, _ones(16, 0.0)), "layer 7 erased")
	check(t.control.is_empty(), "nothing painted: no control data stored")
	t.region_changed.disconnect(_on_region)
	expect_error("TerrainData.set_layer_region: layer must be in [0, 62], got 63; nothing changed")
	check(not t.set_layer_region(Rect2i(0, 0, 1, 1), 63, _ones(1)), "layer 63 refused")
	expect_error("TerrainData.set_layer_region: weights must be in [0, 1]; value 1 is NaN; nothing changed")
	check(not t.set_layer_region(Rect2i(0, 0, 2, 1), 1, PackedFloat32Array([0.5, NAN])), "NaN weight refused")
	expect_error("TerrainData.set_layer_region: weights must hold region.size.x * region.size.y = 4 values, got 1")
	check(not t.set_layer_region(Rect2i(0, 0, 2, 2), 1, _ones(1)), "wrong length refused")
	check(t.control.is_empty(), "refused paint changed nothing")
	check(t.set_layer_region(Rect2i(0, 0, 1, 1), 2, _ones(1)), "still usable")


func test_brush_paints_and_erases() -> void:
	var t := _flat(32)
	var b := TerrainBrush.new()
	b.tool = TerrainBrush.PAINT
	b.layer = 5
	b.size = 8.0
	b.strength = 10.0
	var r := t.apply_brush(b, Vector2(16, 16), 1.0)
	check(r.has_area(), "paint dab changed something")
	check(t.get_layer_weights(Vector2(16, 16))[5] > 0.99, "centre painted")
	check_eq(t.get_layer_weights(Vector2(2, 2))[5], 0.0, "outside untouched")
	b.tool = TerrainBrush.ERASE
	# The soft rim fades slower; every touched sample moves at least one 8-bit step per dab.
	for i in 40:
		t.apply_brush(b, Vector2(16, 16), 1.0)
	check(t.control.is_empty(), "erased back to nothing")
	expect_error("TerrainBrush.layer must be in [0, 62], got 70; keeping 5")
	b.layer = 70
	check_eq(b.layer, 5, "layer kept")


func test_paint_is_saved_bit_exact() -> void:
	var t := _flat(24)
	var w := PackedFloat32Array()
	for i in 100:
		w.append(i / 99.0)
	t.set_layer_region(Rect2i(3, 5, 10, 10), 12, w)
	t.set_layer_region(Rect2i(8, 8, 10, 10), 40, w)
	var holes := PackedByteArray([1, 1, 1, 1])
	t.set_holes_region(Rect2i(1, 1, 2, 2), holes)
	for ext in ["res", "tres"]:
		var path := OS.get_user_data_dir().path_join("painted." + ext)
		check_eq(ResourceSaver.save(t, path), OK, "save " + ext)
		var back: TerrainData = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
		check(back.control == t.control, ext + ": control data bit-exact")
		check(back.get_layer_weights(Vector2(10.3, 10.7)) == t.get_layer_weights(Vector2(10.3, 10.7)), ext + ": weights equal")


func test_splat_maps() -> void:
	var t := _flat(20)
	var img := Image.create_empty(20, 20, false, Image.FORMAT_RGBA8)
	for z in 20:
		for x in 20:
			# Red rises along X over black; green in a corner; a transparent texel is a hole.
			img.set_pixel(x, z, Color8(0 if x < 3 and z < 3 else x * 12, 200 if x < 3 and z < 3 else 0, 0, 0 if x == 10 and z == 10 else 255))
	check(t.import_splat_map(img, 4), "splat map imported")
	check_near(t.get_layer_weights(Vector2(15.5, 5.5))[5], 180.0 / 255.0, 1e-6, "red is layer first + 1")
	check_near(t.get_layer_weights(Vector2(15.5, 5.5))[4], 75.0 / 255.0, 1e-6, "black is layer first")
	check(t.is_hole(Vector2(10.5, 10.5)), "transparent texel made a hole")
	var back := t.export_splat_map(4)
	check(back != null and back.get_data() == img.get_data(), "export gives the map back exactly")
	expect_error("TerrainData.import_splat_map: image must be 20 x 20 (the terrain's size), got 4 x 4; nothing changed")
	check(not t.import_splat_map(Image.create_empty(4, 4, false, Image.FORMAT_RGB8), 0), "wrong size refused")
	expect_error("TerrainData.import_splat_map: layer must be in [0, 62], got -1; nothing changed")
	check(not t.import_splat_map(img, -1), "bad first layer refused")
	expect_error("TerrainData.export_splat_map: first_layer must be in [0, 62], got 99")
	check(t.export_splat_map(99) == null, "bad first layer refused on export")


func test_material_builds_texture_arrays() -> void:
	var m := TerrainMaterial.new()
	check(m.get_albedo_array() == null, "no layers: no arrays")
	var a := TerrainLayer.new()
	var img := Image.create_empty(40, 20, false, Image.FORMAT_RGB8)
	img.fill(Color8(200, 10, 10))
	a.albedo_texture = ImageTexture.create_from_image(img)
	var b := TerrainLayer.new()
	m.texture_size = 64
	m.layers = [a, b] as Array[TerrainLayer]
	var arr := m.get_albedo_array()
	check(arr != null and arr.get_layers() == 2 and arr.get_width() == 64 and arr.get_height() == 64, "2 layers of 64²")
	check(arr.has_mipmaps(), "mipmapped")
	# A layer's change makes the material rebuild its arrays (their pixels are checked by the render tests).
	var emitted := [0]
	m.changed.connect(func(): emitted[0] += 1)
	img.fill(Color8(10, 10, 200))
	a.albedo_texture = ImageTexture.create_from_image(img)
	check(emitted[0] >= 1, "material changed when its layer did")
	check(m.get_albedo_array() != arr, "a new array after the change")
	var again := m.get_albedo_array()
	check(m.get_albedo_array() == again, "no rebuild without a change")
	# A layer's parameters are re-sent, not rebuilt into new arrays.
	var before: int = emitted[0]
	a.roughness = 0.3
	a.albedo_color = Color(0.5, 0.8, 0.5)
	check(emitted[0] > before, "the material follows a layer's parameters")
	check(m.get_albedo_array() == again, "and keeps its texture arrays")
	# Refused values.
	expect_error("TerrainMaterial.texture_size must be a power of two in [16, 4096], got 100; keeping 64")
	m.texture_size = 100
	expect_error("TerrainMaterial.triplanar_slope must be in [0, 1], got NaN; keeping 0.7")
	m.triplanar_slope = NAN
	expect_error("TerrainLayer.uv_scale must be in [0.0001, 100] (repeats per world unit), got inf; keeping 0.1")
	a.uv_scale = INF
	expect_error("TerrainLayer.height_band must be (centre in [-10000000, 10000000], width in [0, 10000000]), got (0, -1); keeping (0, 0)")
	a.height_band = Vector2(0, -1)
	var many: Array[TerrainLayer] = []
	for i in 64:
		many.append(TerrainLayer.new())
	expect_error("TerrainMaterial.layers must hold at most 63 layers, got 64; keeping the previous layers")
	m.layers = many
	check_eq(m.layers.size(), 2, "layers kept")
	# Texture memory has a budget: 1 GiB per array.
	many.resize(63)
	m.texture_size = 1024
	m.layers = many
	check_eq(m.layers.size(), 63, "63 layers of 1024² fit")
	expect_error("TerrainMaterial.texture_size 2048 with 63 layers would need 1344 MB per texture array, over the 1024 MB budget; keeping 1024")
	m.texture_size = 2048
	check_eq(m.texture_size, 1024, "texture_size kept")


func test_node_weights_follow_height_bands_and_paint() -> void:
	var t := _flat(32)
	var h := PackedFloat32Array()
	for z in 32:
		for x in 32:
			h.append(x * 1.0)
	t.heights = h
	var m := TerrainMaterial.new()
	var low := TerrainLayer.new()
	low.height_band = Vector2(0, 10)
	var high := TerrainLayer.new()
	high.height_band = Vector2(20, 10)
	var road := TerrainLayer.new()
	m.layers = [low, high, road] as Array[TerrainLayer]
	var tn := TerrainNode.new()
	tn.terrain_data = t
	check_eq(tn.get_layer_weights(Vector2(5, 5)).size(), 0, "no material: no weights")
	tn.terrain_material = m
	# Height 7.5 (x = 8): low 0.25, high 0 -> all low; height 12.5: low 0, high 0.75 -> all high;
	# height 10: low 0 and high 0 -> nearest band (tie: the first).
	var w := tn.get_layer_weights(Vector2(8.0, 5))
	check_near(w[0], 1.0, 1e-5, "low band alone at 7.5")
	w = tn.get_layer_weights(Vector2(13.0, 5))
	check_near(w[1], 1.0, 1e-5, "high band alone at 12.5")
	w = tn.get_layer_weights(Vector2(10.5, 5))
	check_near(w[0], 1.0, 1e-5, "between the bands: the nearest")
	t.set_layer_region(Rect2i(0, 0, 32, 32), 2, _ones(32 * 32, 0.5))
	w = tn.get_layer_weights(Vector2(8.0, 5))
	check_near(w[2], 0.5, 0.003, "paint on top of the bands")
	check_near(w[0], 0.5, 0.003, "bands fill the rest")
	m.auto_texturing = false
	w = tn.get_layer_weights(Vector2(13.0, 5))
	check_near(w[0], 0.5, 0.003, "without auto-texturing unpainted ground is layer 0")
	tn.free()


## `layers` takes a plain `[...]` through an untyped reference and keeps an empty slot (drawn as a default
## layer, so painted indices keep their meaning); a wrong element is refused by name.
func test_layers_take_plain_arrays_and_empty_slots() -> void:
	var look := TerrainMaterial.new()
	var r: Resource = look
	var a := TerrainLayer.new()
	r.layers = [a, null]
	check_eq(look.layers.size(), 2, "a plain array with an empty slot")
	var m := ShaderMaterial.new()
	look.apply_to(m)
	check_eq(m.get_shader_parameter("layer_count"), 2, "the empty slot is drawn as a layer (painted indices keep their meaning)")
	expect_error("TerrainMaterial.layers: element 0 must be a TerrainLayer (or null), got int")
	r.layers = [3]
	check_eq(look.layers.size(), 2, "a wrong element changes nothing")
