extends "res://wt_test.gd"
## The surface cache (TerrainNode.surface_cache_*, terrain_surface.gdshaderinc, TerrainBlendMaterial):
## what a mesh reads is what the terrain draws (colour within 2/255, height = get_height at the texels),
## edits reach it within two frames, a move draws only the strips it uncovered, and a half-buried mesh
## shows no seam with the blend (and a clear one without it).

const MAGENTA := Color(1, 0, 1)
const PROBE := "res://render/material_probe.gdshader"
const SURFACE_PROBE := "res://render/surface_probe.gdshader"
const WANDERING_PROBE := "res://render/wandering_look_probe.gdshader"
const SIZE := 128
## Two painted layers (sRGB): grass on the west half, soil on the east.
const GRASS := Color8(60, 140, 50)
const SOIL := Color8(150, 100, 60)


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var h := PackedFloat32Array()
	for z in SIZE:
		for x in SIZE:
			h.append(2.0 * sin(x * 0.05) * cos(z * 0.04) + 0.01 * x)
	t.heights = h
	var w := PackedFloat32Array()
	w.resize(SIZE * SIZE / 2)
	w.fill(1.0)
	check(t.set_layer_region(Rect2i(SIZE / 2, 0, SIZE / 2, SIZE), 1, w), "soil painted")
	return t


func _layer(c: Color) -> TerrainLayer:
	var l := TerrainLayer.new()
	var img := Image.create_empty(16, 16, false, Image.FORMAT_RGBA8)
	img.fill(c)
	l.albedo_texture = ImageTexture.create_from_image(img)
	return l


func _material() -> TerrainMaterial:
	var m := TerrainMaterial.new()
	var layers: Array[TerrainLayer] = [_layer(GRASS), _layer(SOIL)]
	m.layers = layers
	m.auto_texturing = false
	m.texture_size = 64
	return m


## A root in the tree with a current camera straight above the terrain's centre (orthographic), magenta
## behind: [root, camera].
func _top_camera() -> Array:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	tree.root.add_child(root)
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = SIZE * 0.9
	cam.far = 500.0
	cam.position = Vector3(SIZE * 0.5, 200.0, SIZE * 0.5)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	root.add_child(cam)
	cam.make_current()
	return [root, cam]


## A scene with a camera straight above the terrain's centre (orthographic), and the terrain.
func _top_down(material: ShaderMaterial) -> Array:
	var rc := _top_camera()
	var root: Node3D = rc[0]
	var cam: Camera3D = rc[1]
	var t := _data()
	var tn := TerrainNode.new()
	if material:
		tn.material = material
	tn.terrain_material = _material()
	tn.terrain_data = t
	root.add_child(tn)
	tn.target = tn.get_path_to(cam)
	return [root, cam, tn, t]


## A plane over the whole terrain drawn with `mat`, 10 above its highest point.
func _plane(root: Node3D, mat: Material) -> MeshInstance3D:
	var m := MeshInstance3D.new()
	var p := PlaneMesh.new()
	p.size = Vector2(SIZE * 2, SIZE * 2)
	m.mesh = p
	m.material_override = mat
	m.position = Vector3(SIZE * 0.5, 10.0, SIZE * 0.5)
	root.add_child(m)
	return m


## Level 0's window origin for a camera at terrain x/z `c` (texel 1): surface_cache.rs's rule.
func _origin(c: Vector2, size: int) -> Vector2i:
	return Vector2i(floori(c.x) - size / 2, floori(c.y) - size / 2)


## The f32 in the height plane of the atlas at level-0 texel index `i`.
func _cached_height(img: Image, i: Vector2i, size: int) -> float:
	var slot := Vector2i(posmod(i.x, size), posmod(i.y, size))
	var c := img.get_pixel(2 * size + slot.x, slot.y)
	var b := PackedByteArray([roundi(c.r * 255), roundi(c.g * 255), roundi(c.b * 255), roundi(c.a * 255)])
	return b.decode_float(0)


## Worst |cached height - get_height| over the level-0 texels inside `area` (texel indices); `tn` a
## TerrainNode or a WanderingTerrain.
func _height_error(tn: Node3D, area: Rect2i) -> float:
	var img: Image = tn.get_surface_cache_texture().get_image()
	var size: int = tn.surface_cache_size
	var worst := 0.0
	for z in range(area.position.y, area.end.y):
		for x in range(area.position.x, area.end.x):
			var want: float = tn.get_height(Vector2(x + 0.5, z + 0.5))
			worst = worst_of(worst, absf(_cached_height(img, Vector2i(x, z), size) - want))
	return worst


## The largest channel difference of two colours (NaN-safe in the callers through worst_of).
func _colour_error(a: Color, b: Color) -> float:
	return maxf(maxf(absf(a.r - b.r), absf(a.g - b.g)), absf(a.b - b.b))


## [pixels, worst, mean] colour error between two top-down pictures, every `step`-th pixel over the terrain
## away from the layer border (x = 64 in terrain units) and the terrain's edge.
func _picture_error(a: Image, b: Image, cam: Camera3D, step: int) -> Array:
	var n := 0
	var worst := 0.0
	var total := 0.0
	for py in range(2, b.get_height() - 2, step):
		for px in range(2, b.get_width() - 2, step):
			var o := cam.project_ray_origin(Vector2(px + 0.5, py + 0.5))
			if absf(o.x - SIZE * 0.5) < 2.0 or o.x < 2.0 or o.z < 2.0 or o.x > SIZE - 2 or o.z > SIZE - 2:
				continue
			var err := _colour_error(a.get_pixel(px, py), b.get_pixel(px, py))
			worst = worst_of(worst, err)
			total += err
			n += 1
	return [n, worst, total / maxi(n, 1)]


## Pixels of a read-back west of the terrain (x < -2, inside the cache's windows, whose texel indices are
## negative there) that are not magenta: terrain_surface must say "no ground" outside the terrain.
func _ground_west_of_terrain(read: Image, cam: Camera3D) -> int:
	var n := 0
	for py in range(0, read.get_height(), 4):
		for px in range(0, read.get_width(), 2):
			if cam.project_ray_origin(Vector2(px + 0.5, py + 0.5)).x < -2.0 and _colour_error(read.get_pixel(px, py), MAGENTA) > 0.02:
				n += 1
	return n


func test_a_mesh_reads_what_the_terrain_draws() -> void:
	var probe := ShaderMaterial.new()
	probe.shader = load(PROBE)
	var s := _top_down(probe)
	var root: Node3D = s[0]
	var cam: Camera3D = s[1]
	var tn: TerrainNode = s[2]
	await frames(3)
	var ground := screenshot("surface_cache_terrain")
	var plane_mat := ShaderMaterial.new()
	plane_mat.shader = load(SURFACE_PROBE)
	var plane := _plane(root, plane_mat)
	await frames(2)
	var read := screenshot("surface_cache_read_back")
	var e := _picture_error(ground, read, cam, 2)
	var n: int = e[0]
	var worst: float = e[1]
	var total: float = e[2] * n
	print("surface cache read back (%s): %d pixels, worst %.1f/255, mean %.2f/255" % [renderer, n, worst * 255.0, total / maxi(n, 1) * 255.0])
	check(n > 1000, "pixels compared: %d" % n)
	check(worst <= 2.5 / 255.0, "terrain_surface colour = the terrain's own (worst %.1f/255)" % (worst * 255.0))
	check_eq(_ground_west_of_terrain(read, cam), 0, "no ground read west of the terrain")
	# Heights: the f32 stored at every level-0 texel over the terrain is get_height there.
	var size: int = tn.surface_cache_size
	var o := _origin(Vector2(SIZE * 0.5, SIZE * 0.5), size)
	var area := Rect2i(o, Vector2i(size, size)).intersection(Rect2i(1, 1, SIZE - 2, SIZE - 2))
	var herr := _height_error(tn, area)
	print("surface cache heights (%s): %d texels, worst |h - get_height| %s" % [renderer, area.get_area(), herr])
	check(herr <= 1e-5, "cached heights = get_height (worst %s)" % herr)
	# The albedo plane holds the layers' colours as spatial shaders see them, sRGB-encoded: the painted
	# colour on Forward+ (linear there), encoded once more on Compatibility (which shades the stored values).
	var atlas: Image = tn.get_surface_cache_texture().get_image()
	for c in [[Vector2i(30, 64), GRASS], [Vector2i(100, 64), SOIL]]:
		var i: Vector2i = c[0]
		var got := atlas.get_pixel(posmod(i.x, size), posmod(i.y, size))
		var want: Color = c[1] if renderer != "opengl3" else c[1].linear_to_srgb()
		check(_colour_error(got, want) <= 1.5 / 255.0, "cached albedo at %s: %s, painted %s" % [i, got, want])
	# The SURFACE_CACHE debug view draws the same colours on the terrain itself.
	plane.queue_free()
	tn.debug_view = TerrainNode.DEBUG_VIEW_SURFACE_CACHE
	await frames(3)
	var view := screenshot("surface_cache_debug_view")
	var ve := _picture_error(ground, view, cam, 3)
	var vn: int = ve[0]
	var vworst: float = ve[1]
	check(vn > 500 and vworst <= 2.5 / 255.0, "the SURFACE_CACHE view draws the cache (%d pixels, worst %.1f/255)" % [vn, vworst * 255.0])
	root.queue_free()
	await frames(1)


## A WanderingTerrain gives meshes its surface as a TerrainNode does: the read-back equals its own look
## (layers; then its plain colour set on its material), heights are get_height's, an edit arrives within
## two frames.
func test_a_wandering_terrain_gives_meshes_its_surface() -> void:
	var rc := _top_camera()
	var root: Node3D = rc[0]
	var cam: Camera3D = rc[1]
	var t := _data()
	var probe := ShaderMaterial.new()
	probe.shader = load(WANDERING_PROBE)
	var wt := WanderingTerrain.new()
	var mesh := WanderingMesh.new()
	mesh.start_size = 64.0
	mesh.start_subdivision = 5
	mesh.lods = PackedInt32Array([2, 2, 2, 2, 2, 2])
	wt.mesh = mesh
	# A top-down camera: the mesh must reach behind it too.
	wt.back_offset = SIZE
	wt.material = probe
	wt.terrain_material = _material()
	wt.terrain_data = t
	root.add_child(wt)
	await frames(3)
	check(wt.get_surface_cache_texture() != null, "the wandering terrain keeps a cache")
	var ground := screenshot("surface_cache_wandering_terrain")
	var plane_mat := ShaderMaterial.new()
	plane_mat.shader = load(SURFACE_PROBE)
	var plane := _plane(root, plane_mat)
	await frames(2)
	var read := screenshot("surface_cache_wandering_read_back")
	var e := _picture_error(ground, read, cam, 2)
	print("wandering surface cache read back (%s): %d pixels, worst %.1f/255, mean %.2f/255" % [renderer, e[0], e[1] * 255.0, e[2] * 255.0])
	check(e[0] > 1000 and e[1] <= 2.5 / 255.0, "terrain_surface = the wandering terrain's look (%d pixels, worst %.1f/255)" % [e[0], e[1] * 255.0])
	var size: int = wt.surface_cache_size
	var o := _origin(Vector2(SIZE * 0.5, SIZE * 0.5), size)
	var area := Rect2i(o, Vector2i(size, size)).intersection(Rect2i(1, 1, SIZE - 2, SIZE - 2))
	var herr := _height_error(wt, area)
	print("wandering surface cache heights (%s): worst |h - get_height| %s" % [renderer, herr])
	check(herr <= 1e-4, "cached heights = get_height (worst %s)" % herr)
	var r := Rect2i(60, 60, 8, 8)
	var h := t.get_heights_region(r)
	for i in h.size():
		h[i] += 3.0
	t.set_heights_region(r, h)
	await tree.process_frame
	await tree.process_frame
	await RenderingServer.frame_post_draw
	herr = _height_error(wt, Rect2i(58, 58, 12, 12))
	check(herr <= 1e-4, "an edit reaches the wandering cache within two frames (worst %s)" % herr)
	# No layers: the plain colour the user gave the terrain's material is what meshes read.
	wt.terrain_material = null
	probe.set_shader_parameter("albedo", Color8(200, 40, 40))
	wt.material = probe
	await frames(3)
	plane.visible = false
	await frames(2)
	ground = screenshot("surface_cache_wandering_plain")
	plane.visible = true
	await frames(2)
	read = screenshot("surface_cache_wandering_plain_read_back")
	# The plain look's roughness (1) is stored, not an unset value.
	var rough := wt.get_surface_cache_texture().get_image().get_pixel(5, 64).a
	check(is_equal_approx(rough, 1.0), "the plain look's roughness is cached: %s" % rough)
	e = _picture_error(ground, read, cam, 3)
	check_eq(_ground_west_of_terrain(read, cam), 0, "no ground read west of the wandering terrain")
	check(e[0] > 500 and e[1] <= 2.5 / 255.0, "the material's own colour reaches the cache (%d pixels, worst %.1f/255)" % [e[0], e[1] * 255.0])
	root.queue_free()
	await frames(1)


## [mean colour, mean neighbour contrast] over the picture's pixels above terrain x in [x0, x1] (away
## from the edges in z).
func _patch_stats(img: Image, cam: Camera3D, x0: float, x1: float) -> Array:
	var n := 0
	var mean := 0.0
	var contrast := 0.0
	for py in range(4, img.get_height() - 4, 2):
		for px in range(2, img.get_width() - 3):
			var o := cam.project_ray_origin(Vector2(px + 0.5, py + 0.5))
			if o.x < x0 or o.x > x1 or o.z < 4.0 or o.z > SIZE - 4:
				continue
			var c := img.get_pixel(px, py)
			mean += (c.r + c.g + c.b) / 3.0
			contrast += _colour_error(c, img.get_pixel(px + 1, py))
			n += 1
	return [mean / maxi(n, 1), contrast / maxi(n, 1)]


## Far away (surface_cache_far_distance) the terrain draws its cache: the same look (a plain layer's
## colour within a few /255), averaged over a cache texel (a checker finer than a texel turns flat).
func test_the_far_terrain_draws_its_cache() -> void:
	var s := _top_down(null)
	var root: Node3D = s[0]
	var cam: Camera3D = s[1]
	var tn: TerrainNode = s[2]
	var checker := TerrainLayer.new()
	var img := Image.create_empty(64, 64, false, Image.FORMAT_RGBA8)
	for y in 64:
		for x in 64:
			img.set_pixel(x, y, Color.WHITE if ((x / 8) + (y / 8)) % 2 == 0 else Color.BLACK)
	checker.albedo_texture = ImageTexture.create_from_image(img)
	# 8 cells a 4 m repeat: 0.5 m cells, about a pixel here; a cache texel is 1 m.
	checker.uv_scale = 0.25
	var look := _material()
	look.layers = [checker, _layer(SOIL)] as Array[TerrainLayer]
	tn.terrain_material = look
	# Lit from straight above (Compatibility has no ambient light from the clear colour).
	var sun := DirectionalLight3D.new()
	sun.rotation_degrees = Vector3(-90, 0, 0)
	root.add_child(sun)
	await frames(3)
	var near := screenshot("surface_cache_far_off")
	tn.surface_cache_far_distance = 16.0
	await frames(3)
	var far := screenshot("surface_cache_far_on")
	var a := _patch_stats(near, cam, SIZE * 0.5 + 3.0, SIZE - 4.0)
	var b := _patch_stats(far, cam, SIZE * 0.5 + 3.0, SIZE - 4.0)
	var ca := _patch_stats(near, cam, 4.0, SIZE * 0.5 - 3.0)
	var cb := _patch_stats(far, cam, 4.0, SIZE * 0.5 - 3.0)
	print("far terrain from the cache (%s): plain layer mean %.1f/255 vs %.1f/255; checker contrast %.1f/255 drawn, %.1f/255 from the cache" % [renderer, a[0] * 255.0, b[0] * 255.0, ca[1] * 255.0, cb[1] * 255.0])
	check(absf(a[0] - b[0]) <= 3.0 / 255.0, "the far terrain keeps the plain layer's colour (%.1f vs %.1f /255)" % [a[0] * 255.0, b[0] * 255.0])
	check(ca[1] > 0.15 and cb[1] < ca[1] * 0.5, "the far terrain is the cache's (checker contrast %.3f -> %.3f)" % [ca[1], cb[1]])
	# Refused by name, the old value kept; 0 draws the layers again.
	expect_error("surface_cache_far_distance must be 0 (never) or in [16, 100000]")
	tn.surface_cache_far_distance = 5.0
	check_eq(tn.surface_cache_far_distance, 16.0, "kept")
	tn.surface_cache_far_distance = 0.0
	await frames(3)
	var back := _patch_stats(screenshot("surface_cache_far_back"), cam, 4.0, SIZE * 0.5 - 3.0)
	check(absf(back[1] - ca[1]) < 0.01, "0 draws the layers again (contrast %.3f)" % back[1])
	root.queue_free()
	await frames(1)


func test_edits_and_moves_redraw_only_what_changed() -> void:
	var s := _top_down(null)
	var root: Node3D = s[0]
	var cam: Camera3D = s[1]
	var tn: TerrainNode = s[2]
	var t: TerrainData = s[3]
	await frames(3)
	var size: int = tn.surface_cache_size
	var first: int = tn.get_work_stats()["surface_texels"]
	check_eq(first, size * size * tn.surface_cache_levels, "the first update draws every level whole")
	# A raise of 3 m under the camera: the cache holds the new heights within two frames.
	var r := Rect2i(60, 60, 8, 8)
	var h := t.get_heights_region(r)
	for i in h.size():
		h[i] += 3.0
	t.set_heights_region(r, h)
	await tree.process_frame
	await tree.process_frame
	await RenderingServer.frame_post_draw
	var herr := _height_error(tn, Rect2i(58, 58, 12, 12))
	check(herr <= 1e-5, "an edit reaches the cache within two frames (worst %s)" % herr)
	# Paint: soil over a patch of the grass half, in the cache within two frames.
	var w := PackedFloat32Array()
	w.resize(64)
	w.fill(1.0)
	t.set_layer_region(Rect2i(40, 60, 8, 8), 1, w)
	await tree.process_frame
	await tree.process_frame
	await RenderingServer.frame_post_draw
	var atlas: Image = tn.get_surface_cache_texture().get_image()
	var got := atlas.get_pixel(posmod(44, size), posmod(64, size))
	var want: Color = SOIL if renderer != "opengl3" else SOIL.linear_to_srgb()
	check(_colour_error(got, want) <= 1.5 / 255.0, "a paint stroke reaches the cache within two frames: %s, painted %s" % [got, want])
	var after_edit: int = tn.get_work_stats()["surface_texels"]
	check(after_edit - first < 4000, "an edit and a stroke redraw only their texels (%d)" % (after_edit - first))
	# One texel east: level 0 draws one column; coarser levels a column each at most.
	cam.position.x += 1.0
	await frames(2)
	var moved: int = tn.get_work_stats()["surface_texels"] - after_edit
	print("surface cache (%s): first %d texels, edit %d, one-texel move %d" % [renderer, first, after_edit - first, moved])
	# The strips it uncovered, and those along the data levels' edges, which moved with the target.
	var whole: int = size * size * tn.surface_cache_levels
	check(moved >= size and moved <= whole / 8, "a one-texel move draws strips only (%d texels of %d)" % [moved, whole])
	# GPU memory of the cache: the texture memory it adds when turned on.
	tn.surface_cache_enabled = false
	await frames(2)
	var off := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_TEXTURE_MEM_USED)
	var off_video := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_VIDEO_MEM_USED)
	tn.surface_cache_enabled = true
	await frames(3)
	var on := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_TEXTURE_MEM_USED)
	var on_video := RenderingServer.get_rendering_info(RenderingServer.RENDERING_INFO_VIDEO_MEM_USED)
	var mib := (on - off) / 1048576.0
	print("surface cache (%s): %.2f MiB of texture memory, %.2f MiB of video memory" % [renderer, mib, (on_video - off_video) / 1048576.0])
	# Forward+ does not count render targets in these counters (0 there); Compatibility counts the atlas
	# and the depth buffer it gives every render target.
	if on > off:
		check(mib > 1.6 and mib <= 4.0, "the cache takes at most 4 MiB at the defaults (%.2f MiB)" % mib)
	else:
		print("surface cache (%s): the renderer does not count render targets; the atlas is %d bytes" % [renderer, size * 3 * size * tn.surface_cache_levels * 4])
	check(tn.get_surface_cache_texture() != null, "and draws again")
	# Bad sizes are refused by name and the old ones kept.
	expect_error("surface_cache_size must be 32..=1024")
	tn.surface_cache_size = 100
	check_eq(tn.surface_cache_size, 192, "surface_cache_size kept")
	expect_error("surface_cache_levels must be 1..=4")
	tn.surface_cache_levels = 9
	check_eq(tn.surface_cache_levels, 4, "surface_cache_levels kept")
	root.queue_free()
	await frames(1)


## The texels of the atlas (every plane, every level) that differ between two pictures of it.
func _atlas_difference(a: Image, b: Image) -> int:
	var n := 0
	for y in a.get_height():
		for x in a.get_width():
			if not a.get_pixel(x, y).is_equal_approx(b.get_pixel(x, y)):
				n += 1
	return n


## The cache keeps what the data shows now, not what it showed when a texel was drawn: the camera moves
## while the data windows follow it a job behind (so texels are first drawn from coarser levels), and
## afterwards the cache equals one drawn from scratch.
func test_the_cache_follows_the_data_not_its_first_sight() -> void:
	var s := _top_down(null)
	var root: Node3D = s[0]
	var cam: Camera3D = s[1]
	var tn: TerrainNode = s[2]
	await frames(3)
	for i in 30:
		cam.position.x = SIZE * 0.5 + 40.0 * sin(i * 0.7)
		cam.position.z = SIZE * 0.5 + 40.0 * cos(i * 0.5)
		await tree.process_frame
	cam.position = Vector3(SIZE * 0.5, 200.0, SIZE * 0.5)
	var waited := 0
	while not tn.is_up_to_date() and waited < 300:
		await tree.process_frame
		waited += 1
	await frames(4)
	var kept: Image = tn.get_surface_cache_texture().get_image()
	tn.surface_cache_enabled = false
	tn.surface_cache_enabled = true
	await frames(4)
	var fresh: Image = tn.get_surface_cache_texture().get_image()
	var n := _atlas_difference(kept, fresh)
	print("surface cache after a flight (%s): %d of %d atlas texels differ from a fresh cache" % [renderer, n, kept.get_width() * kept.get_height()])
	check_eq(n, 0, "the cache after the flight equals a fresh one")
	root.queue_free()
	await frames(1)


## A lit side view of a box (a wall) half-buried in the painted terrain at the layer border, the camera
## looking at its foot: the mean colour difference between the rows just above and just below the
## contact line.
func _seam(blend: bool) -> float:
	RenderingServer.set_default_clear_color(MAGENTA)
	var root := Node3D.new()
	tree.root.add_child(root)
	add_sun(root)
	var t := _data()
	var tn := TerrainNode.new()
	tn.terrain_material = _material()
	tn.terrain_data = t
	root.add_child(tn)
	var at := Vector3(SIZE * 0.5 - 10.0, 0.0, SIZE * 0.5)
	at.y = t.get_height(Vector2(at.x, at.z))
	var box := MeshInstance3D.new()
	var bm := BoxMesh.new()
	bm.size = Vector3(12, 4, 2)
	box.mesh = bm
	var mat := TerrainBlendMaterial.new()
	mat.albedo_color = Color8(120, 120, 125)
	mat.blend_enabled = blend
	mat.blend_height = 0.6
	mat.blend_sharpness = 0.3
	box.material_override = mat
	box.position = at
	root.add_child(box)
	var cam := Camera3D.new()
	root.add_child(cam)
	cam.fov = 30.0
	cam.look_at_from_position(at + Vector3(0, 1.5, 12), at, Vector3.UP)
	cam.make_current()
	tn.target = tn.get_path_to(cam)
	await frames(3)
	var img := screenshot("surface_blend_" + ("on" if blend else "off"))
	# The contact line along the box's front face (z + 1), sampled across its width.
	var diff := 0.0
	var n := 0
	for k in 9:
		var x := at.x - 2.0 + k * 0.5
		var z := at.z + 1.0
		var y := t.get_height(Vector2(x, z))
		var above := cam.unproject_position(Vector3(x, y + 0.15, z))
		var below := cam.unproject_position(Vector3(x, y, z + 0.3))
		if not (Rect2(Vector2.ZERO, img.get_size()).has_point(above) and Rect2(Vector2.ZERO, img.get_size()).has_point(below)):
			continue
		var a := img.get_pixelv(Vector2i(above))
		var b := img.get_pixelv(Vector2i(below))
		diff += (absf(a.r - b.r) + absf(a.g - b.g) + absf(a.b - b.b)) / 3.0
		n += 1
	check(n >= 7, "contact points in view: %d" % n)
	root.queue_free()
	await frames(1)
	return diff / maxi(n, 1)


func test_a_blended_mesh_shows_no_seam_with_the_ground() -> void:
	var with_blend := await _seam(true)
	var without := await _seam(false)
	print("seam at the contact line (%s): %.1f/255 blended, %.1f/255 without" % [renderer, with_blend * 255.0, without * 255.0])
	check(with_blend <= 6.0 / 255.0, "blended: the contact line is hidden (%.1f/255)" % (with_blend * 255.0))
	check(without >= 20.0 / 255.0, "without the blend the seam shows (%.1f/255): the test bites" % (without * 255.0))


func test_no_terrain_draws_the_mesh_as_without_the_blend() -> void:
	RenderingServer.set_default_clear_color(MAGENTA)
	var pics: Array[Image] = []
	for blend in [true, false]:
		var root := Node3D.new()
		tree.root.add_child(root)
		add_sun(root)
		var box := MeshInstance3D.new()
		box.mesh = BoxMesh.new()
		var mat := TerrainBlendMaterial.new()
		mat.albedo_color = Color8(120, 120, 125)
		mat.blend_enabled = blend
		box.material_override = mat
		root.add_child(box)
		var cam := Camera3D.new()
		root.add_child(cam)
		cam.look_at_from_position(Vector3(0, 1, 3), Vector3.ZERO, Vector3.UP)
		cam.make_current()
		await frames(2)
		pics.append(tree.root.get_texture().get_image())
		root.queue_free()
		await frames(1)
	var worst := 0.0
	for y in range(0, pics[0].get_height(), 4):
		for x in range(0, pics[0].get_width(), 4):
			var a := pics[0].get_pixel(x, y)
			var b := pics[1].get_pixel(x, y)
			worst = worst_of(worst, _colour_error(a, b))
	check(worst <= 1.0 / 255.0, "no terrain: the blend changes nothing (worst %.1f/255)" % (worst * 255.0))
	# Bad values are refused by name, the old ones kept.
	var m := TerrainBlendMaterial.new()
	expect_error("TerrainBlendMaterial.blend_height must be in")
	m.blend_height = -1.0
	check_eq(m.blend_height, 0.5, "blend_height kept")
	expect_error("TerrainBlendMaterial.blend_sharpness must be in")
	m.blend_sharpness = NAN
	check_eq(m.blend_sharpness, 0.5, "blend_sharpness kept")
