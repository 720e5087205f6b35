extends "res://wt_test.gd"
## TerrainStamp from GDScript: a crater image stamped into the terrain where the node stands, in each
## blend mode; moving it and deleting it give the sculpted ground back bit for bit; bad input is refused.

const SIZE := 160


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(4, 1.0 / 25.0, 3, 2.0, 0.5, 8.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


## A bowl: 1 at the rim and beyond, 0 at the centre (red channel, 64²).
func _crater() -> Image:
	var img := Image.create(64, 64, false, Image.FORMAT_RF)
	for z in 64:
		for x in 64:
			var r := Vector2(x + 0.5 - 32, z + 0.5 - 32).length() / 32.0
			img.set_pixel(x, z, Color(minf(r, 1.0), 0, 0))
	return img


func _stamp(blend: int) -> TerrainStamp:
	var s := TerrainStamp.new()
	s.image = _crater()
	s.size = Vector2(40, 40)
	s.height = 10.0
	s.blend_mode = blend
	s.falloff = 0.0
	return s


func test_a_crater_lands_where_the_node_is_and_moves_back_exactly() -> void:
	var t := _data()
	var sculpted := t.heights
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	var s := _stamp(TerrainStamp.BLEND_REPLACE)
	tn.add_child(s)
	s.position = Vector3(80, 2, 80)
	s.apply_now()
	# The image's centre texels lie half a texel off the centre: 0.022 there.
	check_near(tn.get_height(Vector2(80, 80)), 2.0, 0.4, "the bowl's bottom at the node's height")
	check_near(tn.get_height(Vector2(80 + 19, 80)), 12.0, 0.6, "the rim at the node's height + height")
	check_eq(t.heights[10 * SIZE + 10], sculpted[10 * SIZE + 10], "outside the square: untouched")
	var here := t.heights
	s.position = Vector3(40, 2, 110)
	s.apply_now()
	check_near(tn.get_height(Vector2(40, 110)), 2.0, 0.4, "moved: the bowl follows")
	s.position = Vector3(80, 2, 80)
	s.apply_now()
	check(t.heights == here, "moved back: bit-identical")
	s.rotation_degrees = Vector3(0, 30, 0)
	s.scale = Vector3(1.5, 1, 1.5)
	s.apply_now()
	check_near(tn.get_height(Vector2(80 + 28, 80)), 12.0, 0.8, "scaled: the rim 1.5 times as far")
	tn.remove_child(s)
	s.free()
	check(t.heights == sculpted, "deleted: the sculpted ground")
	tn.queue_free()


func test_blend_modes() -> void:
	var t := _data()
	var before := t.heights
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	var k := 80 * SIZE + 80
	var s := _stamp(TerrainStamp.BLEND_ADD)
	s.height = -6.0
	tn.add_child(s)
	s.position = Vector3(80.5, 0, 80.5)
	s.apply_now()
	check_near(t.heights[k], before[k], 0.2, "add: the bowl's 0 adds nothing at the centre")
	check_near(t.heights[80 * SIZE + 97], before[80 * SIZE + 97] - 6.0 * (17.0 / 20.0), 0.4, "add: -6 × the image near the rim")
	s.blend_mode = TerrainStamp.BLEND_MAX
	s.height = 30.0
	s.position = Vector3(80.5, -100, 80.5)
	s.apply_now()
	check_eq(t.heights[k], before[k], "max: a stamp far below leaves the ground")
	s.blend_mode = TerrainStamp.BLEND_MIN
	s.apply_now()
	# The centre sample's image value: 0.022 (half a texel off the bowl's centre) × 30.
	var bottom := -100.0 + 30.0 * Vector2(0.5, 0.5).length() / 32.0
	check_near(t.heights[k], bottom, 0.05, "min: the stamp far below wins")
	s.strength = 0.5
	s.apply_now()
	check_near(t.heights[k], (before[k] + bottom) * 0.5, 0.05, "strength 0.5: half way")
	tn.queue_free()


func test_bad_input_is_refused() -> void:
	var s := _stamp(TerrainStamp.BLEND_ADD)
	expect_error("TerrainStamp.size must be > 0")
	s.size = Vector2(0, 10)
	check_eq(s.size, Vector2(40, 40), "size kept")
	expect_error("TerrainStamp.strength must be in [0, 1], got 2")
	s.strength = 2.0
	expect_error("TerrainStamp.blend_mode must be BLEND_ADD")
	s.blend_mode = 9
	expect_error("TerrainStamp.height must be within ±1000000")
	s.height = INF
	check_eq(s.height, 10.0, "height kept")
	var t := _data()
	var sculpted := t.heights
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tree.root.add_child(tn)
	var blank := TerrainStamp.new()
	tn.add_child(blank)
	blank.apply_now()
	check(t.heights == sculpted, "no image: nothing")
	blank.image = _crater()
	blank.position = Vector3(-9000, 0, 0)
	blank.apply_now()
	check(t.heights == sculpted, "far off the map: nothing")
	tn.queue_free()
	s.free()
