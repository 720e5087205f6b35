extends "res://wt_test.gd"
## TerrainInstancer collision in real physics (once per physics engine): rays and a falling ball hit a
## tree's trunk near the target; instances beyond collision_radius cost no body; a hole under a tree
## removes its trunk and filling the hole brings it back.

const SIZE := 256


func _scene() -> Array:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(4, 1.0 / 48.0, 3, 2.0, 0.5, 8.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.collision_mode = TerrainNode.COLLISION_FULL
	tn.terrain_data = t
	var target := Node3D.new()
	target.name = "Target"
	target.position = Vector3(60, 0, 60)
	tree.root.add_child(target)
	# Its own path: a previous case's "Target" may still be in the tree, pending deletion.
	tn.target = target.get_path()
	var m := TerrainInstanceMesh.new()
	var trunk_mesh := CylinderMesh.new()
	trunk_mesh.height = 4.0
	m.mesh = trunk_mesh
	var trunk := CylinderShape3D.new()
	trunk.radius = 0.5
	trunk.height = 4.0
	m.collision_shape = trunk
	m.collision_transform = Transform3D(Basis(), Vector3(0, 2, 0))
	var inst := TerrainInstancer.new()
	inst.collision_radius = 40.0
	var meshes: Array[TerrainInstanceMesh] = [m]
	inst.meshes = meshes
	tn.add_child(inst)
	tree.root.add_child(tn)
	return [tn, inst, target, t]


func _ray(x: float, z: float) -> Dictionary:
	var space := tree.root.get_world_3d().direct_space_state
	return space.intersect_ray(PhysicsRayQueryParameters3D.create(Vector3(x, 200, z), Vector3(x, -200, z)))


func _tree_at(tn: TerrainNode, x: float, z: float) -> Transform3D:
	return Transform3D(Basis(), Vector3(x, tn.get_height(Vector2(x, z)), z))


func test_rays_and_a_ball_hit_a_trunk_near_the_target_only() -> void:
	var s := _scene()
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var near := _tree_at(tn, 65.25, 58.5)
	var far := _tree_at(tn, 200.25, 200.5)
	var ts: Array[Transform3D] = [near, far]
	check_eq(inst.add_instances(0, ts), 2, "added")
	inst.update_now()
	await tree.physics_frame
	await tree.physics_frame
	check_eq(inst.get_body_count(), 1, "one body: the cell near the target")
	var hit := _ray(near.origin.x, near.origin.z)
	check(not hit.is_empty() and hit["collider"] == inst, "the ray hits the trunk: %s" % hit)
	if not hit.is_empty():
		check_near(hit["position"].y, near.origin.y + 4.0, 0.05, "at the trunk's top")
	var beside := _ray(near.origin.x + 1.0, near.origin.z)
	check(not beside.is_empty() and beside["collider"] == tn, "beside it, the terrain")
	var hit_far := _ray(far.origin.x, far.origin.z)
	check(not hit_far.is_empty() and hit_far["collider"] == tn, "far away, no trunk: the terrain")
	# A ball dropped on the trunk comes to rest on its top.
	var ball := RigidBody3D.new()
	var shape := CollisionShape3D.new()
	var sphere := SphereShape3D.new()
	sphere.radius = 0.3
	shape.shape = sphere
	ball.add_child(shape)
	ball.position = near.origin + Vector3(0, 8, 0)
	tree.root.add_child(ball)
	for i in 120:
		await tree.physics_frame
	check_near(ball.position.y, near.origin.y + 4.0 + 0.3, 0.1, "the ball rests on the trunk")
	ball.queue_free()
	# The target moves to the far tree: its cell gets the (pooled) body.
	s[2].position = Vector3(200, 0, 200)
	await tree.process_frame
	inst.update_now()
	await tree.physics_frame
	await tree.physics_frame
	check_eq(inst.get_body_count(), 1, "still one body")
	var moved := _ray(far.origin.x, far.origin.z)
	check(not moved.is_empty() and moved["collider"] == inst, "the far trunk collides once the target is near")
	for n in s:
		if n is Node:
			n.queue_free()


func test_a_hole_removes_the_trunk_and_filling_brings_it_back() -> void:
	var s := _scene()
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var t: TerrainData = s[3]
	var near := _tree_at(tn, 62.5, 62.5)
	var ts: Array[Transform3D] = [near]
	inst.add_instances(0, ts)
	inst.update_now()
	await tree.physics_frame
	await tree.physics_frame
	var hit := _ray(near.origin.x, near.origin.z)
	check(not hit.is_empty() and hit["collider"] == inst, "trunk before the hole")
	var holes := PackedByteArray()
	holes.resize(16)
	holes.fill(1)
	t.set_holes_region(Rect2i(60, 60, 4, 4), holes)
	await tree.process_frame
	inst.update_now()
	await tree.physics_frame
	await tree.physics_frame
	hit = _ray(near.origin.x, near.origin.z)
	check(hit.is_empty() or hit["collider"] != inst, "no trunk over the hole: %s" % hit)
	holes.fill(0)
	t.set_holes_region(Rect2i(60, 60, 4, 4), holes)
	inst.update_now()
	await tree.physics_frame
	await tree.physics_frame
	hit = _ray(near.origin.x, near.origin.z)
	check(not hit.is_empty() and hit["collider"] == inst, "the trunk is back once the hole is filled")
	for n in s:
		if n is Node:
			n.queue_free()


func test_a_scenes_collision_shape_keeps_its_place() -> void:
	var s := _scene()
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var meshes: Array[TerrainInstanceMesh] = [preload("res://suites/test_terrain_instancer.gd").scene_mesh(Vector3(0, 3, 0))]
	inst.meshes = meshes
	var at := _tree_at(tn, 58.5, 61.5)
	var ts: Array[Transform3D] = [at]
	inst.add_instances(0, ts)
	inst.update_now()
	await tree.physics_frame
	await tree.physics_frame
	var hit := _ray(at.origin.x, at.origin.z)
	check(not hit.is_empty() and hit["collider"] == inst, "the scene's sphere collides: %s" % hit)
	if not hit.is_empty():
		check_near(hit["position"].y, at.origin.y + 4.0, 0.05, "at the sphere's top, 3 + 1 above the ground")
	for n in s:
		if n is Node:
			n.queue_free()
