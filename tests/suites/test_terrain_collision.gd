extends "res://wt_test.gd"
## TerrainCollision: both terrain nodes' collision settings as one object — defaults, checked setters, a
## change applied at once (and to every node sharing the object), the old node properties forwarded, and
## scenes saved with the old properties still loading.


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(256, 256)
	t.generate_noise(5, 0.02, 3, 2.0, 0.5, 12.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func test_every_node_has_one_with_the_defaults() -> void:
	for n: Node in [TerrainNode.new(), WanderingTerrain.new()]:
		var c: TerrainCollision = n.collision
		check(c != null, "%s has a collision object" % n.get_class())
		check_eq(c.mode, TerrainCollision.DYNAMIC, "mode")
		check_eq(c.radius, 64.0, "radius")
		check_eq(c.layer, 1, "layer")
		check_eq(c.mask, 1, "mask")
		check_eq(c.subdivision, 4, "subdivision")
		check_eq(c.tolerance, 0.01, "tolerance")
		check_eq(c.lift_bodies, true, "lift_bodies")
		check(c.physics_material == null, "no material")
		n.collision = null
		check(n.collision != null and n.collision != c, "null makes a default one")
		n.free()


func test_bad_values_are_refused_and_the_old_ones_kept() -> void:
	var c := TerrainCollision.new()
	expect_error("TerrainCollision.mode must be 0 (DISABLED), 1 (DYNAMIC) or 2 (FULL), got 7")
	c.mode = 7
	expect_error("TerrainCollision.radius must be a finite number in (0, 100000], got NaN")
	c.radius = NAN
	expect_error("TerrainCollision.subdivision must be 1, 2 or 4, got 3")
	c.subdivision = 3
	expect_error("TerrainCollision.tolerance must be in [0, 10]")
	c.tolerance = -1.0
	check_eq(c.mode, TerrainCollision.DYNAMIC, "mode kept")
	check_eq(c.radius, 64.0, "radius kept")
	check_eq(c.subdivision, 4, "subdivision kept")
	check_eq(c.tolerance, 0.01, "tolerance kept")
	var changed := [0]
	c.changed.connect(func() -> void: changed[0] += 1)
	c.radius = 20.0
	c.radius = 20.0
	check_eq(changed[0], 1, "changed once: a value set again is no change")


## The old node properties read and write the object (scripts written before it keep working).
func test_the_old_properties_forward_to_it() -> void:
	var tn := TerrainNode.new()
	tn.collision_radius = 33.0
	tn.collision_mode = TerrainNode.COLLISION_FULL
	tn.collision_layer = 6
	check_eq(tn.collision.radius, 33.0, "collision_radius → collision.radius")
	check_eq(tn.collision.mode, TerrainCollision.FULL, "collision_mode → collision.mode")
	check_eq(tn.collision.layer, 6, "collision_layer → collision.layer")
	tn.collision.subdivision = 2
	check_eq(tn.collision_subdivision, 2, "collision.subdivision ← collision_subdivision")
	expect_error("TerrainNode.collision_mode must be 0 (DISABLED), 1 (DYNAMIC) or 2 (FULL), got 9")
	tn.collision_mode = 9
	check_eq(tn.collision.mode, TerrainCollision.FULL, "a bad old-name value is refused too")
	# Not in the inspector nor saved: only `collision` is.
	var listed := {}
	for p in tn.get_property_list():
		listed[p["name"]] = p["usage"]
	check(listed.has("collision") and listed["collision"] & PROPERTY_USAGE_STORAGE != 0, "collision is saved")
	check(not listed.has("collision_mode") or listed["collision_mode"] & (PROPERTY_USAGE_STORAGE | PROPERTY_USAGE_EDITOR) == 0, "collision_mode is neither shown nor saved")
	tn.free()


## A change to the object reaches the tiles at once, on every node sharing it.
func test_a_change_applies_at_once_to_every_holder() -> void:
	var shared := TerrainCollision.new()
	shared.radius = 20.0
	var nodes: Array[TerrainNode] = []
	var freed: Array[Node] = []
	for i in 2:
		var made := following_node(_data(), Vector3(128, 0, 128), {"collision": shared})
		nodes.append(made[0])
		freed.append_array(made)
	var around: Array[int] = []
	for tn in nodes:
		tn.update_collision()
		around.append(tn.get_collision_tile_count())
		check(around.back() > 0, "DYNAMIC: tiles around the target")
	shared.mode = TerrainCollision.DISABLED
	for tn in nodes:
		tn.update_collision()
		check_eq(tn.get_collision_tile_count(), 0, "DISABLED reached this node at once")
	shared.mode = TerrainCollision.FULL
	for i in nodes.size():
		nodes[i].update_collision()
		check(nodes[i].get_collision_tile_count() > around[i], "FULL reached this node at once: more tiles than around the target")
	check_eq(nodes[0].get_collision_tile_count(), nodes[1].get_collision_tile_count(), "the same tiles on both")
	# A node given another object leaves the shared one.
	nodes[1].collision = TerrainCollision.new()
	shared.mode = TerrainCollision.DISABLED
	nodes[0].update_collision()
	nodes[1].update_collision()
	check_eq(nodes[0].get_collision_tile_count(), 0, "the shared object's change")
	check(nodes[1].get_collision_tile_count() > 0, "not the node that left it")
	for n in freed:
		n.queue_free()
	await tree.process_frame


## A scene saved before the object existed (the old properties in the file) loads into it.
func test_a_scene_saved_with_the_old_properties_loads() -> void:
	var path := "user://old_collision_scene.tscn"
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_string("[gd_scene format=3]\n\n[node name=\"Terrain\" type=\"TerrainNode\"]\ncollision_mode = 0\ncollision_radius = 40.0\ncollision_subdivision = 1\ncollision_lift_bodies = false\n")
	f.close()
	var scene: PackedScene = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	var tn: TerrainNode = scene.instantiate()
	check_eq(tn.collision.mode, TerrainCollision.DISABLED, "collision_mode loaded")
	check_eq(tn.collision.radius, 40.0, "collision_radius loaded")
	check_eq(tn.collision.subdivision, 1, "collision_subdivision loaded")
	check_eq(tn.collision.lift_bodies, false, "collision_lift_bodies loaded")
	# Saved again, the object is stored (and the old names are not).
	var packed := PackedScene.new()
	packed.pack(tn)
	check_eq(ResourceSaver.save(packed, path), OK, "saved again")
	var text := FileAccess.get_file_as_string(path)
	check(text.contains("TerrainCollision") and not text.contains("collision_mode"), "the object saved, not the old names")
	var again: TerrainNode = (ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE) as PackedScene).instantiate()
	check_eq(again.collision.radius, 40.0, "the object's settings load back")
	tn.free()
	again.free()
	DirAccess.remove_absolute(ProjectSettings.globalize_path(path))
