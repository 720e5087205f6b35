extends "res://wt_test.gd"
## Pixel-art look on TerrainNode (terrain_pixel_art.gdshader): texels keep their on-screen size from 4 to
## 256 units away (mean run length of constant-colour pixels per row), the Bayer transition promotes the
## share of texels the band factor asks for, a sub-pixel camera move changes few pixels, and the shader alone
## (no gradient assigned) shows the terrain in colour.

const MAGENTA := Color(1, 0, 1)
const SHADER := "res://addons/wandering_terrain/shaders/terrain_pixel_art.gdshader"
const DEBUG_SHADER := "res://addons/wandering_terrain/shaders/terrain_pixel_art_debug.gdshader"
const SIZE := 1024
const PITCH := -35.0


func _terrain(hilly: bool) -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	if hilly:
		t.generate_noise(12, 1.0 / 96.0, 4, 2.0, 0.5, 30.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _material(path: String) -> ShaderMaterial:
	var m := ShaderMaterial.new()
	m.shader = load(path)
	var g := Gradient.new()
	g.offsets = PackedFloat32Array([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
	g.colors = PackedColorArray([Color(0.2, 0.3, 0.6), Color(0.8, 0.75, 0.45), Color(0.3, 0.6, 0.2), Color(0.15, 0.4, 0.15), Color(0.5, 0.45, 0.4), Color(0.95, 0.95, 1.0)])
	var gt := GradientTexture1D.new()
	gt.gradient = g
	gt.width = 256
	m.set_shader_parameter("gradient", gt)
	# A seamless noise image (made here, not by the threaded NoiseTexture2D) as the displacement.
	var n := FastNoiseLite.new()
	n.seed = 4
	n.frequency = 0.08
	var img := n.get_seamless_image(64, 64)
	img.generate_mipmaps()
	m.set_shader_parameter("displacement_tex", ImageTexture.create_from_image(img))
	m.set_shader_parameter("displacement_strength", 0.8)
	m.set_shader_parameter("height_range", Vector2(-5, 35))
	return m


## A scene with the terrain and a camera `dist` from the terrain's centre, pitched down.
func _scene(t: TerrainData, shader: String) -> Array:
	var root := lit_scene(0.6, Vector3(-55, 20, 0))
	var cam := Camera3D.new()
	cam.fov = 60.0
	cam.far = 4000.0
	root.add_child(cam)
	cam.make_current()
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.material = _material(shader)
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	root.add_child(tn)
	return [root, cam, tn]


func _place(cam: Camera3D, t: TerrainData, dist: float, side := 0.0) -> void:
	var c := Vector2(SIZE / 2.0, SIZE / 2.0)
	var look := Vector3(c.x, t.get_height(c), c.y)
	cam.rotation_degrees = Vector3(PITCH, 0, 0)
	cam.position = look + cam.global_transform.basis.z * dist + cam.global_transform.basis.x * side


func _is_bg(c: Color) -> bool:
	return c.r > 0.9 and c.b > 0.9 and c.g < 0.1


## Mean length of horizontal runs of identical colour over terrain pixels.
func _mean_run(img: Image) -> float:
	var pixels := 0
	var runs := 0
	for y in img.get_height():
		var prev := MAGENTA
		for x in img.get_width():
			var c := img.get_pixel(x, y)
			if _is_bg(c):
				prev = MAGENTA
				continue
			pixels += 1
			if c != prev:
				runs += 1
			prev = c
	return float(pixels) / maxi(runs, 1)


func test_block_size_is_constant_over_distance() -> void:
	for hilly in [false, true]:
		var t := _terrain(hilly)
		var s := _scene(t, SHADER)
		var runs: Array[float] = []
		for d in [4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]:
			_place(s[1], t, d)
			await frames(4)
			runs.append(_mean_run(tree.root.get_texture().get_image()))
			if d == 4.0 or d == 32.0 or d == 256.0:
				screenshot("pixel_art_%s_%d_%s" % ["hilly" if hilly else "flat", int(d), renderer])
		s[0].queue_free()
		var ratio: float = runs.max() / runs.min()
		print("pixel art %s view, mean run length at 4..256: %s; max/min %.2f" % ["hilly" if hilly else "flat", runs, ratio])
		check(runs.min() >= 2.0, "texels are blocks of pixels (%s)" % [runs])
		check(ratio <= 1.5, "%s view: max/min %.2f over 1.5 (%s)" % ["hilly" if hilly else "flat", ratio, runs])
		await tree.process_frame


func test_bayer_transition_promotes_the_share_the_band_asks_for() -> void:
	var t := _terrain(false)
	var s := _scene(t, DEBUG_SHADER)
	_place(s[1], t, 40.0)
	await frames(4)
	var img := screenshot("pixel_art_transition_" + renderer)
	s[0].queue_free()
	# Pixels by transition factor (red), in bins of 0.1: the share promoted (green) must follow it.
	var count := []
	var promoted := []
	var sum_t := []
	for b in 10:
		count.append(0)
		promoted.append(0)
		sum_t.append(0.0)
	for y in img.get_height():
		for x in img.get_width():
			var c := img.get_pixel(x, y)
			if _is_bg(c) or c.r <= 0.02 or c.r >= 0.98:
				continue
			var b := mini(int(c.r * 10.0), 9)
			count[b] += 1
			promoted[b] += int(c.g > 0.5)
			sum_t[b] += c.r
	var worst := 0.0
	var bins := 0
	for b in 10:
		if count[b] < 400:
			continue
		bins += 1
		var share: float = float(promoted[b]) / count[b]
		var want: float = sum_t[b] / count[b]
		worst = worst_of(worst, absf(share - want))
	print("pixel art transition: %d bins, worst |promoted share - transition factor| %.3f" % [bins, worst])
	check(bins >= 4, "transition bins measured (%d)" % bins)
	check(worst <= 0.05, "promoted share follows the band factor within 5%% (worst %.3f)" % worst)


## Share of terrain pixels (lower two thirds of the picture, away from silhouettes) that differ.
func _changed(a: Image, b: Image) -> float:
	var changed := 0
	var n := 0
	for y in range(a.get_height() / 3, a.get_height()):
		for x in a.get_width():
			var ca := a.get_pixel(x, y)
			if _is_bg(ca):
				continue
			n += 1
			changed += int(ca != b.get_pixel(x, y))
	check(n > 10000, "terrain pixels compared")
	return float(changed) / maxi(n, 1)


func test_sub_pixel_moves_change_few_pixels() -> void:
	var t := _terrain(false)
	var s := _scene(t, SHADER)
	# Texels of about 11 pixels at 320 x 240 here (density 2 at the reference distance).
	(s[2] as TerrainNode).material.set_shader_parameter("pixel_density", 2.0)
	var cam: Camera3D = s[1]
	var dist := 32.0
	_place(cam, t, dist)
	await frames(4)
	var a := tree.root.get_texture().get_image()
	var px_world := 2.0 * dist * tan(deg_to_rad(cam.fov / 2.0)) / a.get_height()
	# Texel edges are world-anchored: a move of k pixels flips about k / (texel size in pixels) of the
	# pixels, and nothing else (no mip or band flicker). A tenth and a quarter of a pixel:
	var shares := []
	for k in [0.1, 0.25]:
		_place(cam, t, dist, k * px_world)
		await frames(4)
		shares.append(_changed(a, tree.root.get_texture().get_image()))
	# Back where it was: the very same picture (no history, no shimmer).
	_place(cam, t, dist)
	await frames(4)
	var back := _changed(a, tree.root.get_texture().get_image())
	s[0].queue_free()
	print("pixel art stability: sideways moves of 0.1 / 0.25 pixel change %.2f%% / %.2f%% of terrain pixels; moving back changes %.2f%%" % [shares[0] * 100.0, shares[1] * 100.0, back * 100.0])
	check(shares[0] <= 0.02, "a tenth-pixel move changes %.2f%% of terrain pixels (bound 2%%)" % (shares[0] * 100.0))
	check(shares[1] <= 2.0 * shares[0] * 2.5 + 0.005, "changes grow with the move, not more (%.4f vs %.4f)" % [shares[1], shares[0]])
	check_eq(back, 0.0, "moving back restores the picture exactly")


func test_the_shader_alone_shows_colours() -> void:
	var t := _terrain(true)
	var s := _scene(t, SHADER)
	var m := ShaderMaterial.new()
	m.shader = load(SHADER)
	(s[2] as TerrainNode).material = m
	_place(s[1], t, 60.0)
	await frames(6)
	var img := screenshot("pixel_art_defaults_" + renderer)
	s[0].queue_free()
	var terrain := 0
	var white := 0
	var green := 0
	for y in range(0, img.get_height(), 2):
		for x in range(0, img.get_width(), 2):
			var c := img.get_pixel(x, y)
			if _is_bg(c):
				continue
			terrain += 1
			white += int(c.r > 0.85 and c.g > 0.85 and c.b > 0.85)
			green += int(c.g > c.r and c.g > c.b)
	print("pixel art defaults (%s): %d terrain pixels, %d white, %d green" % [renderer, terrain, white, green])
	check(terrain > 1000, "the terrain is drawn (%d pixels)" % terrain)
	# Heights 0..30 of the default range 0..40: grass and forest dominate, some rock; nothing is white.
	check(white * 20 < terrain, "not white (%d of %d)" % [white, terrain])
	check(green * 2 > terrain, "mostly grass and forest green (%d of %d)" % [green, terrain])
	await tree.process_frame
