extends "res://wt_test.gd"
## TerrainImpostor: baking from a TerrainInstanceMesh (mesh or scene), the same atlas every time, bad
## input refused by name with the last atlas kept, re-baking when the mesh changes, saving and loading,
## and the instancer's far cells of impostors.

const Trees := preload("res://render/tree_meshes.gd")


func test_a_bake_is_the_same_atlas_every_time() -> void:
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	check(m.impostor == null, "no impostor before a bake")
	check(m.bake_impostor(), "bakes")
	var imp: TerrainImpostor = m.impostor
	check(imp.is_baked(), "baked")
	check_eq(imp.baked_frames, 16, "default frames")
	check_eq(imp.albedo_texture.get_width(), 2048, "2048 atlas (16 frames of 128)")
	var h: int = imp.get_atlas_hash()
	check(h != 0, "a hash")
	check(imp.bake(m.mesh), "bakes again (from the Mesh itself)")
	check_eq(imp.get_atlas_hash(), h, "same mesh, same atlas hash")
	var other := TerrainImpostor.new()
	check(other.bake(m.mesh), "a second impostor bakes")
	check_eq(other.get_atlas_hash(), h, "another object, same atlas hash")
	# The pine is 9.2 tall and 5.2 wide: its farthest point from the box's centre is 4.6 away.
	check(imp.radius > 4.5 and imp.radius < 4.8, "the card spans the tree (radius %.2f)" % imp.radius)
	print("impostor bake: %.0f ms at 2048² (16 × 16 frames)" % imp.get_last_bake_msec())


func test_bad_input_keeps_the_last_atlas() -> void:
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	check(m.bake_impostor(), "bakes")
	var imp: TerrainImpostor = m.impostor
	var h: int = imp.get_atlas_hash()
	expect_error("the mesh has no triangles to bake")
	check(not imp.bake(ArrayMesh.new()), "an empty mesh is refused")
	var scene := PackedScene.new()
	var n3 := Node3D.new()
	scene.pack(n3)
	n3.free()
	expect_error("has no MeshInstance3D")
	check(not imp.bake(scene), "a scene without meshes is refused")
	expect_error("neither a mesh nor a scene")
	check(not TerrainInstanceMesh.new().bake_impostor(), "nothing to bake is refused")
	expect_error("source must be a Mesh or a PackedScene, got TerrainInstanceMesh")
	check(not imp.bake(m), "a TerrainInstanceMesh is pointed at its own bake_impostor()")
	expect_error("source is null")
	check(not imp.bake(null), "null is refused")
	expect_error("atlas_size must be in [64, 8192]")
	imp.atlas_size = 0
	check_eq(imp.atlas_size, 2048, "atlas_size kept")
	expect_error("frames must be in [2, 32]")
	imp.frames = 0
	check_eq(imp.frames, 16, "frames kept")
	expect_error("gives frames under 16 pixels")
	imp.frames = 32
	imp.atlas_size = 256
	check_eq(imp.atlas_size, 2048, "atlas_size kept when frames would be too small")
	expect_error("impostor_distance must be in (0, 100000]")
	m.impostor_distance = -1.0
	check_eq(m.impostor_distance, 200.0, "impostor_distance kept")
	check_eq(imp.get_atlas_hash(), h, "the last atlas is kept")
	check(imp.is_baked(), "still baked")


func test_a_scene_bakes_its_first_mesh_with_its_transform() -> void:
	var root := Node3D.new()
	var mi := MeshInstance3D.new()
	mi.mesh = Trees.pine()
	mi.position = Vector3(0, 1, 0)
	root.add_child(mi)
	mi.owner = root
	var scene := PackedScene.new()
	scene.pack(root)
	root.free()
	var m := TerrainInstanceMesh.new()
	m.scene = scene
	check(m.bake_impostor(), "a scene bakes")
	var direct := TerrainInstanceMesh.new()
	direct.mesh = Trees.pine()
	direct.bake_impostor()
	check_near(m.impostor.centre.y, direct.impostor.centre.y + 1.0, 1e-4, "the node's offset moves the centre")


func test_a_changed_mesh_bakes_again_and_a_saved_impostor_loads() -> void:
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	m.bake_impostor()
	var imp: TerrainImpostor = m.impostor
	var h: int = imp.get_atlas_hash()
	m.mesh = Trees.broadleaf()
	check(imp.get_atlas_hash() != h, "a new mesh bakes a new atlas")
	var h2: int = imp.get_atlas_hash()
	# The same mesh with another colour: baked again when the instancer resolves it.
	var b := Trees.broadleaf(Color(0.6, 0.3, 0.1))
	m.mesh = b
	check(imp.get_atlas_hash() != h2, "a new material bakes a new atlas")
	var path := "user://impostor_roundtrip.res"
	check_eq(ResourceSaver.save(imp, path), OK, "saved")
	var back: TerrainImpostor = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	check(back != null and back.is_baked(), "loads baked")
	check_eq(back.baked_frames, imp.baked_frames, "frames kept")
	check_near(back.radius, imp.radius, 1e-6, "radius kept")
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))


func test_async_bake_reports_progress_and_finishes() -> void:
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	check(m.bake_impostor_async(), "started")
	var imp: TerrainImpostor = m.impostor
	check(imp != null, "the impostor is set at the start")
	var done := []
	imp.bake_finished.connect(func(ok: bool) -> void: done.append(ok))
	check(imp.is_baking() and not imp.is_baked(), "baking")
	expect_error("a bake is already running")
	check(not imp.bake_async(m.mesh), "a second start is refused")
	var frames_waited := 0
	while imp.poll_bake() and frames_waited < 2000:
		var p := imp.get_bake_progress()
		check(p >= 0.0 and p <= 1.0, "progress in [0, 1] (%s)" % p)
		await tree.process_frame
		frames_waited += 1
	check_eq(done, [true], "bake_finished(true) once")
	check(imp.is_baked() and not imp.is_baking(), "installed")
	var sync := TerrainImpostor.new()
	sync.bake(m.mesh)
	check_eq(imp.get_atlas_hash(), sync.get_atlas_hash(), "async and sync bakes are the same atlas")


func test_a_mesh_change_is_not_up_to_date_until_drawn_again() -> void:
	# Right after a TerrainInstanceMesh changes (its `changed` reaches the instancer deferred), the instancer
	# does not say it is up to date, and update_now draws the change at once.
	var t := TerrainData.new()
	t.size = Vector2i(256, 256)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	var m := TerrainInstanceMesh.new()
	m.mesh = Trees.pine()
	m.visibility_range = 2000.0
	var inst := TerrainInstancer.new()
	inst.meshes = [m] as Array[TerrainInstanceMesh]
	tn.add_child(inst)
	var cam := Camera3D.new()
	cam.position = Vector3(128, 50, 128)
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	inst.scatter(0, Rect2(0, 0, 256, 256), 500, 1)
	inst.update_now()
	check(inst.is_up_to_date(), "up to date after update_now")
	check_eq(inst.get_impostor_count(0), 0, "no impostors before a bake")
	m.impostor_distance = 20.0
	check(m.bake_impostor(), "bakes")
	check(not inst.is_up_to_date(), "not up to date right after the mesh changed")
	inst.update_now()
	check(inst.is_up_to_date(), "up to date after update_now")
	check(inst.get_impostor_count(0) == inst.get_instance_count(0), "every instance has its impostor at once (%d of %d)" % [inst.get_impostor_count(0), inst.get_instance_count(0)])
	tn.free()
	cam.free()
