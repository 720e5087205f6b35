extends "res://wt_test.gd"
## Octahedral impostors against the mesh they were baked from, lit by the same sun: seen from 8 azimuths ×
## 3 elevations at the switch distance, the card's silhouette and colours match the mesh's; across the
## switch of a TerrainInstancer the picture changes gradually (no pop), and far cells draw the forest
## beyond the meshes' reach.

const Trees := preload("res://render/tree_meshes.gd")

const DIST := 150.0


func _camera(root: Node3D, fov: float) -> Camera3D:
	var cam := Camera3D.new()
	cam.fov = fov
	cam.near = 1.0
	cam.far = 5000.0
	root.add_child(cam)
	cam.make_current()
	return cam


## [silhouette IoU, mean colour difference over both silhouettes' common pixels (0..1), pixels].
static func compare(a: Image, b: Image) -> Array:
	var bg := Color(1, 0, 1)
	var inter := 0
	var union := 0
	var diff := 0.0
	for y in a.get_height():
		for x in a.get_width():
			var ca := a.get_pixel(x, y)
			var cb := b.get_pixel(x, y)
			var ia := not ca.is_equal_approx(bg) and absf(ca.r - 1.0) + ca.g + absf(ca.b - 1.0) > 0.06
			var ib := not cb.is_equal_approx(bg) and absf(cb.r - 1.0) + cb.g + absf(cb.b - 1.0) > 0.06
			if ia or ib:
				union += 1
			if ia and ib:
				inter += 1
				diff += (absf(ca.r - cb.r) + absf(ca.g - cb.g) + absf(ca.b - cb.b)) / 3.0
	return [float(inter) / maxf(union, 1.0), diff / maxf(inter, 1.0), union]


func test_the_impostor_looks_like_its_mesh_from_every_side() -> void:
	var root := lit_scene(0.35, Vector3(-55, 40, 0))
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	check(m.bake_impostor(), "the pine bakes")
	var imp: TerrainImpostor = m.impostor
	check(imp != null and imp.is_baked(), "an atlas is stored")
	print("impostor bake (%s): %.0f ms, %d frames, radius %.2f" % [renderer, imp.get_last_bake_msec(), imp.baked_frames, imp.radius])
	var mesh_node := MeshInstance3D.new()
	mesh_node.mesh = m.mesh
	root.add_child(mesh_node)
	var card := MeshInstance3D.new()
	card.mesh = imp.make_card_mesh()
	root.add_child(card)
	var cam := _camera(root, 5.0)
	var worst_iou := 1.0
	var worst_diff := 0.0
	var sum_iou := 0.0
	var sum_diff := 0.0
	var n := 0
	for el in [5.0, 25.0, 55.0]:
		for k in 8:
			var az := deg_to_rad(22.5 + 45.0 * k)
			var e := deg_to_rad(el)
			var centre := Vector3(0, 5, 0)
			cam.position = centre + DIST * Vector3(cos(e) * cos(az), sin(e), cos(e) * sin(az))
			cam.look_at(centre)
			mesh_node.visible = true
			card.visible = false
			await frames(2)
			var a := screenshot("impostor_mesh_%d_%d" % [int(el), k])
			mesh_node.visible = false
			card.visible = true
			await frames(2)
			var b := screenshot("impostor_card_%d_%d" % [int(el), k])
			var r := compare(a, b)
			# As errors (1 - IoU), NaN-safe.
			worst_iou = 1.0 - worst_of(1.0 - worst_iou, 1.0 - r[0])
			worst_diff = worst_of(worst_diff, r[1])
			sum_iou += r[0]
			sum_diff += r[1]
			n += 1
			check(r[2] > 800, "the tree covers enough pixels (%d) at elevation %d azimuth %d" % [r[2], el, k])
	print("impostor vs mesh (%s): IoU worst %.4f mean %.4f; colour difference worst %.2f/255 mean %.2f/255 over %d views" % [renderer, worst_iou, sum_iou / n, worst_diff * 255.0, sum_diff / n * 255.0, n])
	check(worst_iou >= 0.93, "silhouette IoU >= 0.93 from every view (worst %.4f)" % worst_iou)
	check(sum_diff / n * 255.0 <= 8.0, "mean colour difference <= 8/255 (%.2f)" % (sum_diff / n * 255.0))
	root.free()


## A pine forest on a 1 km terrain: meshes to `impostor_distance`, impostors beyond.
func _forest(root: Node3D, with_impostor: bool, fade := 0.0, count := 4000) -> Array:
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	t.generate_noise(3, 1.0 / 300.0, 3, 2.0, 0.5, 30.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	m.visibility_range = 1500.0
	m.fade_margin = fade
	m.cast_shadow = 0
	m.scale_min = 0.9
	m.scale_max = 1.2
	if with_impostor:
		m.impostor_distance = 120.0
		m.bake_impostor()
	var inst := TerrainInstancer.new()
	var meshes: Array[TerrainInstanceMesh] = [m]
	inst.meshes = meshes
	tn.add_child(inst)
	root.add_child(tn)
	if count > 0:
		inst.scatter(0, Rect2(0, 0, 1024, 1024), count, 7)
	return [tn, inst, m]


## Tree pixels: where `img` differs from the bare ground's picture `bare`.
static func _tree_mask(img: Image, bare: Image) -> PackedByteArray:
	var out := PackedByteArray()
	out.resize(img.get_width() * img.get_height())
	for y in img.get_height():
		for x in img.get_width():
			var c := img.get_pixel(x, y)
			var g := bare.get_pixel(x, y)
			out[y * img.get_width() + x] = 1 if absf(c.r - g.r) + absf(c.g - g.g) + absf(c.b - g.b) > 0.06 else 0
	return out


func test_far_cells_draw_the_forest_the_meshes_would() -> void:
	var root := lit_scene(0.35, Vector3(-55, 40, 0))
	var cam := _camera(root, 60.0)
	cam.position = Vector3(100, 120, 100)
	cam.look_at(Vector3(700, 20, 700))
	var bare_f := _forest(root, false, 0.0, 0)
	await frames(3)
	var bare := screenshot("impostor_forest_bare")
	bare_f[0].free()
	var a := _forest(root, false)
	var inst_a: TerrainInstancer = a[1]
	inst_a.update_now()
	await frames(3)
	var img_a := screenshot("impostor_forest_meshes")
	var count := inst_a.get_instance_count(0)
	var drawn_meshes := inst_a.get_drawn_count(0)
	a[0].free()
	var b := _forest(root, true)
	var inst_b: TerrainInstancer = b[1]
	inst_b.update_now()
	await frames(3)
	var img_b := screenshot("impostor_forest_impostors")
	check(inst_b.get_far_cell_count() > 0, "far cells on the GPU (%d)" % inst_b.get_far_cell_count())
	check(inst_b.get_impostor_count(0) > count / 2, "impostors drawn (%d of %d)" % [inst_b.get_impostor_count(0), count])
	check(inst_b.get_drawn_count(0) < drawn_meshes / 2, "fewer meshes (%d of %d)" % [inst_b.get_drawn_count(0), drawn_meshes])
	var ma := _tree_mask(img_a, bare)
	var mb := _tree_mask(img_b, bare)
	var w := img_a.get_width()
	var inter := 0
	var union := 0
	var na := 0
	var nb := 0
	# Far trees are a pixel or two: compare where the forest is (tree pixels per 10 × 10 block), and the
	# exact pixels for the record.
	var blocks_a := {}
	var blocks_b := {}
	for i in ma.size():
		na += ma[i]
		nb += mb[i]
		if ma[i] or mb[i]:
			union += 1
		if ma[i] and mb[i]:
			inter += 1
		var key := Vector2i((i % w) / 10, (i / w) / 10)
		blocks_a[key] = blocks_a.get(key, 0) + ma[i]
		blocks_b[key] = blocks_b.get(key, 0) + mb[i]
	var moved := 0
	for k in blocks_a:
		moved += absi(blocks_a[k] - blocks_b[k])
	var block_error := float(moved) / maxf(na, 1.0)
	var iou := float(inter) / maxf(union, 1.0)
	print("forest (%s): %d trees, %d far cells, %d impostors; tree pixels %d (meshes) vs %d (impostors), per-block difference %.3f, pixel IoU %.3f" % [renderer, count, inst_b.get_far_cell_count(), inst_b.get_impostor_count(0), na, nb, block_error, iou])
	check(na > 5000, "the forest covers pixels (%d)" % na)
	check(nb > na * 0.85 and nb < na * 1.15, "as many tree pixels (%d vs %d)" % [nb, na])
	check(block_error <= 0.2, "impostors stand where the meshes stood: per-block difference %.3f" % block_error)
	root.free()


func test_crossing_the_switch_changes_the_picture_gradually() -> void:
	# The camera backs away from a stand of trees so their cells cross `impostor_distance`: the largest
	# change between consecutive frames is no larger than when meshes alone are drawn along the same path.
	var root := lit_scene(0.35, Vector3(-55, 40, 0))
	var cam := _camera(root, 30.0)
	var worst := []
	for with_impostor in [false, true]:
		var f := _forest(root, with_impostor)
		var inst: TerrainInstancer = f[1]
		var prev: Image = null
		var step_worst := 0.0
		for k in 16:
			var d := 90.0 + k * 4.0
			cam.position = Vector3(512.0 - d, 60.0, 512.0 - d)
			cam.look_at(Vector3(512, 20, 512))
			inst.update_now()
			await frames(2)
			var img := tree.root.get_texture().get_image()
			if prev != null:
				step_worst = worst_of(step_worst, _mean_diff(prev, img))
			prev = img
		worst.append(step_worst)
		f[0].free()
	print("switch crossing (%s): largest frame-to-frame change %.2f/255 with meshes only, %.2f/255 with impostors" % [renderer, worst[0] * 255.0, worst[1] * 255.0])
	check(worst[0] > 0.5 / 255.0, "the camera's path changes the picture (%.2f/255)" % (worst[0] * 255.0))
	check(worst[1] <= worst[0] * 1.5 + 1.0 / 255.0, "no pop: %.2f/255 vs %.2f/255" % [worst[1] * 255.0, worst[0] * 255.0])
	root.free()


static func _mean_diff(a: Image, b: Image) -> float:
	var sum := 0.0
	for y in range(0, a.get_height(), 2):
		for x in range(0, a.get_width(), 2):
			var ca := a.get_pixel(x, y)
			var cb := b.get_pixel(x, y)
			sum += (absf(ca.r - cb.r) + absf(ca.g - cb.g) + absf(ca.b - cb.b)) / 3.0
	return sum / (ceili(a.get_height() / 2.0) * ceili(a.get_width() / 2.0))


## Distinct colours of the pixels not sky.
static func _colours(img: Image) -> int:
	var seen := {}
	for y in img.get_height():
		for x in img.get_width():
			var c := img.get_pixel(x, y)
			if not (c.r > 0.9 and c.b > 0.9 and c.g < 0.1):
				seen[c.to_rgba32()] = true
	return seen.size()


func test_the_pixel_art_card_is_flat_bands_of_whole_texels() -> void:
	var root := lit_scene(0.35, Vector3(-55, 40, 0))
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	m.bake_impostor()
	var imp: TerrainImpostor = m.impostor
	var card := MeshInstance3D.new()
	card.mesh = imp.make_card_mesh()
	root.add_child(card)
	var cam := _camera(root, 5.0)
	cam.position = Vector3(0, 5, 0) + DIST * Vector3(cos(0.3), 0.2, sin(0.3)).normalized()
	cam.look_at(Vector3(0, 5, 0))
	await frames(2)
	var smooth := screenshot("impostor_card_smooth")
	imp.pixel_art = true
	card.mesh = imp.make_card_mesh()
	await frames(2)
	var pixel := screenshot("impostor_card_pixel_art")
	var r := compare(smooth, pixel)
	var cs := _colours(smooth)
	var cp := _colours(pixel)
	print("pixel-art impostor (%s): silhouette IoU with the smooth card %.3f; %d colours (smooth: %d)" % [renderer, r[0], cp, cs])
	check(r[2] > 800, "the card draws (%d pixels)" % r[2])
	check(r[0] >= 0.8, "the same tree's outline (IoU %.3f)" % r[0])
	check(cp * 3 <= cs, "flat bands: %d colours against %d" % [cp, cs])
	root.free()
