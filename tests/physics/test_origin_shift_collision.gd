extends "res://wt_test.gd"
## Collision 5,000 km out with the origin shifted there (this suite runs once per physics engine): rays
## hit the ground where they hit the same ground near the origin (a generator offset by the same whole
## samples), and a shift moves the tiles in place at once.

const FAR := Vector3(5.0e6, 0.0, -3.0e6)


func _node(offset: Vector2i) -> TerrainNode:
	var g := TerrainGenerator.new()
	g.seed = 5
	g.frequency = 0.03
	g.octaves = 5
	g.height = 25.0
	g.offset = offset
	var tn := TerrainNode.new()
	tn.tile_resolution = 8
	tn.levels = 3
	tn.terrain_generator = g
	return tn


func _hits() -> PackedVector3Array:
	var space := tree.root.get_world_3d().direct_space_state
	var out := PackedVector3Array()
	for i in 60:
		var x := fmod(i * 3.71, 50.0) - 25.0
		var z := fmod(i * 2.13, 50.0) - 25.0
		var hit := space.intersect_ray(PhysicsRayQueryParameters3D.create(Vector3(x, 300, z), Vector3(x, -300, z)))
		out.append(hit.get("position", Vector3(NAN, NAN, NAN)))
	return out


func _physics_frames(n: int) -> void:
	for i in n:
		await tree.physics_frame


func test_rays_5000_km_out_hit_where_they_hit_at_the_origin() -> void:
	var ref := _node(Vector2i(int(FAR.x), int(FAR.z)))
	tree.root.add_child(ref)
	ref.update_collision()
	await _physics_frames(3)
	var want := _hits()
	ref.free()
	await _physics_frames(2)
	var tn := _node(Vector2i.ZERO)
	# Placed far out first (the tiles are made there), then shifted: the tiles move, no rebuild.
	var target := Node3D.new()
	tree.root.add_child(target)
	target.position = FAR
	tree.root.add_child(tn)
	tn.target = tn.get_path_to(target)
	tn.update_collision()
	await _physics_frames(2)
	var d := tn.shift_origin(target.position)
	target.position -= d
	await _physics_frames(2)
	var got := _hits()
	var worst := 0.0
	var misses := 0
	for i in want.size():
		if is_nan(want[i].x):
			continue
		if is_nan(got[i].x):
			misses += 1
			continue
		worst = worst_of(worst, absf(got[i].y - want[i].y))
	print("collision 5,000 km out (%s): worst ray difference from the origin's %.6f m" % [ProjectSettings.get_setting("physics/3d/physics_engine"), worst])
	check_eq(misses, 0, "rays that missed 5,000 km out")
	check(worst <= 0.005, "collision 5,000 km out vs at the origin: %s m (goal 5 mm)" % worst)
	var glue := 0.0
	for p in got:
		if not is_nan(p.x):
			glue = worst_of(glue, absf(p.y - tn.get_height(Vector2(p.x, p.z))))
	check(glue <= 0.05, "collision follows get_height there: %s" % glue)
	tn.free()
	target.free()
