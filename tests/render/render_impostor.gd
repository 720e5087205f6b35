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


func test_bad_input_keeps_the_last_atlas() -> void:
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	check(m.bake_impostor(), "bakes")
	var imp: TerrainImpostor = m.impostor
	var h: int = imp.get_atlas_hash()
	# The same mesh bakes the same atlas.
	check(imp.bake(m), "bakes again")
	check_eq(imp.get_atlas_hash(), h, "same mesh, same atlas hash")
	# An empty mesh, a scene without a MeshInstance3D, a zero-size atlas: refused by name, atlas kept.
	var empty := TerrainInstanceMesh.new()
	empty.mesh = ArrayMesh.new()
	expect_error("the mesh has no triangles to bake")
	check(not imp.bake(empty), "an empty mesh is refused")
	var scene := PackedScene.new()
	var n3 := Node3D.new()
	scene.pack(n3)
	n3.free()
	var from_scene := TerrainInstanceMesh.new()
	from_scene.scene = scene
	expect_error("has no MeshInstance3D")
	check(not imp.bake(from_scene), "a scene without meshes is refused")
	expect_error("atlas_size must be in [64, 8192]")
	imp.atlas_size = 0
	check_eq(imp.atlas_size, 2048, "atlas_size kept")
	expect_error("frames must be in [2, 32]")
	imp.frames = 0
	check_eq(imp.frames, 16, "frames kept")
	check_eq(imp.get_atlas_hash(), h, "the last atlas is kept")
