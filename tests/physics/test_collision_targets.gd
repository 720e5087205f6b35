extends "res://wt_test.gd"
## Collision around many targets and a terrain node as a server (this suite runs once per physics engine):
## targets added, grouped, removed and freed; 64 walkers on a 16 km endless world with a ray under each every
## tick; server mode draws nothing and keeps collision; a --headless run of a game scene is a server.


const Walkers := preload("res://walkers.gd")
const Util := preload("res://bench/timing.gd")


func _ray_down(x: float, z: float) -> Dictionary:
	var space := tree.root.get_world_3d().direct_space_state
	return space.intersect_ray(PhysicsRayQueryParameters3D.create(Vector3(x, 1000.0, z), Vector3(x, -1000.0, z)))


func _engine() -> String:
	return str(ProjectSettings.get_setting("physics/3d/physics_engine"))


func _generator() -> TerrainGenerator:
	var g := TerrainGenerator.new()
	g.seed = 57
	g.frequency = 1.0 / 48.0
	g.height = 20.0
	return g


## Brings collision up to date and lets the engine step once: Godot Physics finds a tile written in a
## tick only after its next step (its broadphase refits then; `physics_frame` comes before the step).
func _collide(tn: TerrainNode) -> void:
	tn.update_collision()
	await tree.physics_frame
	await tree.physics_frame


func _node3d(at: Vector3) -> Node3D:
	var n := Node3D.new()
	tree.root.add_child(n)
	n.position = at
	return n


func test_collision_targets_each_get_ground_and_leave_it() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(1024, 1024)
	t.generate_noise(5, 1.0 / 48.0, 5, 2.0, 0.5, 20.0, -1e9, TerrainData.NOISE_PERLIN)
	var s := following_node(t, Vector3(20, 0, 20), {tile_resolution = 8, levels = 3})
	var tn: TerrainNode = s[0]
	var camera: Node3D = s[1]
	tn.collision.radius = 24.0
	var spots := [Vector3(900, 0, 100), Vector3(150, 0, 880), Vector3(600, 0, 600)]
	var targets: Array[Node3D] = []
	for p in spots:
		var n := _node3d(p)
		check(tn.add_collision_target(n), "added a target at %s" % p)
		targets.append(n)
	check(tn.add_collision_target(targets[2], 8.0), "a target's radius changed")
	check_eq(tn.get_collision_targets().size(), 3, "three targets")
	await _collide(tn)
	for p in spots + [camera.position]:
		var hit := _ray_down(p.x + 0.3, p.z - 0.2)
		check(not hit.is_empty() and hit["collider"] == tn, "ground under %s" % p)
		if not hit.is_empty():
			check_near(hit["position"].y, tn.get_height(Vector2(p.x + 0.3, p.z - 0.2)), 0.05, "at the drawn height")
	check(_ray_down(400, 300).is_empty(), "none where no target is")
	# The small radius: ground 6 m away, none 30 m away (tiles are 16 m).
	check(not _ray_down(606, 600).is_empty(), "within the 8 m radius")
	check(_ray_down(640, 600).is_empty(), "beyond it")
	var with_three := tn.get_collision_tile_count()
	# The grouped way, with a radius of its own.
	var grouped := _node3d(Vector3(300, 0, 700))
	grouped.set_meta("terrain_collision_radius", 10.0)
	grouped.add_to_group("terrain_collision_targets")
	await _collide(tn)
	check(not _ray_down(300.5, 700.5).is_empty(), "ground under a node of the group")
	check(tn.get_collision_tile_count() > with_three, "its tiles came")
	grouped.queue_free()
	check(tn.remove_collision_target(targets[0]), "removed")
	check(not tn.remove_collision_target(targets[0]), "not a target any more")
	await tree.physics_frame
	await _collide(tn)
	check(_ray_down(900.3, 100.2).is_empty(), "its ground went")
	check(not _ray_down(150.3, 880.2).is_empty(), "the others' stayed")
	targets[1].free()
	await tree.physics_frame
	check_eq(tn.get_collision_targets().size(), 1, "a freed target left the list")
	await _collide(tn)
	check(_ray_down(150.3, 880.2).is_empty(), "and its ground went")
	# Only the targets, not the camera.
	tn.collision.follow_target = false
	await _collide(tn)
	check(_ray_down(20.3, 20.2).is_empty(), "follow_target off: no ground under the camera")
	check(not _ray_down(600.3, 600.2).is_empty(), "the target keeps its ground")
	tn.collision.follow_target = true
	await _collide(tn)
	check(not _ray_down(20.3, 20.2).is_empty(), "follow_target on: ground under the camera again")
	expect_error("radius must be in [0, 100000]")
	check(not tn.add_collision_target(targets[2], -1.0), "a negative radius is refused")
	expect_error("radius must be in [0, 100000]")
	check(not tn.add_collision_target(targets[2], NAN), "NaN is refused")
	expect_error("node must be a Node3D, got null")
	check(not tn.add_collision_target(null), "null is refused")
	check_eq(tn.get_collision_targets().size(), 1, "the list unchanged")
	tn.clear_collision_targets()
	check_eq(tn.get_collision_targets().size(), 0, "cleared")
	tn.queue_free()
	camera.queue_free()
	targets[2].queue_free()


## The issue's check: 64 targets walking at random over a 16 km endless world on a server (no drawing, no
## camera followed): a ray under every target hits every tick within subdivision 4's accuracy.
func test_64_walkers_on_a_16_km_endless_world_have_ground_every_tick() -> void:
	var tn := TerrainNode.new()
	tn.server_mode = TerrainNode.SERVER_MODE_ON
	tn.terrain_generator = _generator()
	tn.collision.radius = 16.0
	tn.collision.follow_target = false
	tree.root.add_child(tn)
	var w := Walkers.new()
	w.spread(tn, 64, 16000.0, 64)
	var rss0 := Util.rss()
	# The players join: the engine steps before their first query (see `_collide`).
	await _collide(tn)
	tree.root.add_child(w)
	while w.ticks < 600:
		await tree.physics_frame
	check_eq(w.misses, 0, "rays under the 64 targets without ground, of %d (%s)" % [w.rays, _engine()])
	check(w.worst < 0.05, "worst |hit - get_height| %s m" % w.worst)
	check(not tn.is_drawing(), "a server")
	var stats := tn.get_work_stats()
	check_eq(stats["windows_steps"], 0, "no data windows")
	check_eq(stats["layers_uploaded"], 0, "no texture uploads")
	var ticks := w.step_usec.duplicate()
	ticks.sort()
	var median: int = ticks[ticks.size() / 2]
	var p99: int = ticks[int(ticks.size() * 0.99)]
	print("64 walkers on a 16 km endless world (%s, server): %d ticks, %d rays, %d without ground, worst %.4f m; terrain collision main thread median %d µs, p99 %d µs, worst %d µs; %d tiles, %d computed late; RSS %d MB (+%d MB for the tiles)" % [
		_engine(), w.ticks, w.rays, w.misses, w.worst, median, p99, ticks[-1], tn.get_collision_tile_count(),
		tn.get_collision_late_tiles(), Util.rss() >> 20, (Util.rss() - rss0) >> 20])
	w.queue_free()
	tn.queue_free()


## Server mode with a camera in the scene: nothing drawn or computed for drawing, collision under a target;
## switched off, the same node draws (the counters move: the check can fail).
func test_a_server_draws_nothing_and_keeps_collision() -> void:
	var cam := Camera3D.new()
	tree.root.add_child(cam)
	cam.position = Vector3(10, 40, 10)
	cam.make_current()
	var tn := TerrainNode.new()
	tn.server_mode = TerrainNode.SERVER_MODE_ON
	tn.terrain_generator = _generator()
	tree.root.add_child(tn)
	var player := _node3d(Vector3(300, 0, -200))
	tn.add_collision_target(player)
	for i in 30:
		await tree.physics_frame
	var stats := tn.get_work_stats()
	check(not tn.is_drawing(), "server mode")
	check(tn.is_up_to_date(), "nothing to wait for")
	check_eq(stats["windows_steps"], 0, "no windows computed")
	check_eq(stats["layers_uploaded"], 0, "nothing uploaded")
	check_eq(stats["surface_usec"], 0, "no surface cache")
	check(stats["collision_steps"] > 0, "collision steps")
	var hit := _ray_down(300.4, -199.6)
	check(not hit.is_empty() and hit["collider"] == tn, "ground under the player")
	check(not _ray_down(10.2, 10.2).is_empty(), "and under the camera (its target)")
	check(is_finite(tn.get_height(Vector2(5000, 5000))), "get_height anywhere")
	check(not is_nan(tn.raycast(Vector3(300, 100, -200), Vector3(0, -1, 0)).y), "raycast")
	expect_error("server_mode must be SERVER_MODE_AUTO (0), SERVER_MODE_ON (1) or SERVER_MODE_OFF (2), got 7")
	tn.server_mode = 7
	check_eq(tn.server_mode, TerrainNode.SERVER_MODE_ON, "kept")
	tn.server_mode = TerrainNode.SERVER_MODE_OFF
	for i in 10:
		await tree.process_frame
	check(tn.is_drawing(), "drawing again")
	check(tn.get_work_stats()["windows_steps"] > 0, "windows computed once drawing")
	tn.queue_free()
	player.queue_free()
	cam.queue_free()


## A game scene run with --headless (the project's default: no draw_when_headless) is a server by itself.
func test_a_headless_run_of_a_game_scene_is_a_server() -> void:
	var command := OS.get_environment("WT_GODOT_COMMAND").split("\n", false)
	var godot: Array = [command[0], command.slice(1)] if command.size() > 0 else [OS.get_executable_path(), PackedStringArray()]
	var project := ProjectSettings.globalize_path("res://")
	var args: PackedStringArray = godot[1] + PackedStringArray(["--headless", "--path", project, "--script", "res://server_child.gd"])
	var out := []
	var code := OS.execute(godot[0], args, out, true)
	var line := ""
	for l in "\n".join(out).split("\n"):
		if l.begins_with("SERVER "):
			line = l
	check_eq(code, 0, "the child ran")
	var f := {}
	for kv in line.trim_prefix("SERVER ").split(" "):
		var p := kv.split("=")
		if p.size() == 2:
			f[p[0]] = p[1]
	check(f.size() == 7, "it reported: %s" % line)
	if f.size() == 7:
		check_eq(f["drawing"], "false", "AUTO is a server when headless")
		check_eq(int(f["windows"]), 0, "no windows")
		check_eq(int(f["uploads"]), 0, "no uploads")
		check_eq(int(f["surface"]), 0, "no surface cache")
		check(int(f["tiles"]) > 0, "collision tiles")
		check_eq(f["hit"], "true", "a ray under the target hits")
		check(float(f["error"]) < 0.05, "at the drawn height (%s)" % f["error"])


## Trees collide around every collision target, not only around the camera: a trunk beside a far player
## stops a ray; on a server (nothing drawn) too, with no impostors or grass computed.
func test_trees_collide_around_every_target() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(512, 512)
	t.generate_noise(4, 1.0 / 48.0, 3, 2.0, 0.5, 8.0, -1e9, TerrainData.NOISE_PERLIN)
	var s := following_node(t, Vector3(40, 0, 40), {tile_resolution = 8, levels = 3})
	var tn: TerrainNode = s[0]
	var camera: Node3D = s[1]
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
	inst.collision_radius = 30.0
	inst.meshes = [m] as Array[TerrainInstanceMesh]
	tn.add_child(inst)
	var at := Vector2(420.25, 380.5)
	var tree_xf := Transform3D(Basis(), Vector3(at.x, tn.get_height(at), at.y))
	var ts: Array[Transform3D] = [tree_xf]
	check_eq(inst.add_instances(0, ts), 1, "a tree far from the camera")
	inst.update_now()
	await _collide(tn)
	check_eq(inst.get_body_count(), 0, "no body: no target near it")
	var player := _node3d(Vector3(at.x + 3, 0, at.y))
	tn.add_collision_target(player)
	await _collide(tn)
	inst.update_now()
	await _collide(tn)
	check_eq(inst.get_body_count(), 1, "a body once a player stands beside it")
	var hit := _ray_down(at.x, at.y)
	check(not hit.is_empty() and hit["collider"] == inst, "a ray hits the trunk: %s" % hit)
	# A server: the same, nothing drawn.
	tn.server_mode = TerrainNode.SERVER_MODE_ON
	inst.update_now()
	await _collide(tn)
	check(inst.is_up_to_date(), "up to date on a server")
	check_eq(inst.get_body_count(), 1, "the trunk's body stays on a server")
	hit = _ray_down(at.x, at.y)
	check(not hit.is_empty() and hit["collider"] == inst, "and stops a ray")
	tn.remove_collision_target(player)
	await _collide(tn)
	inst.update_now()
	await _collide(tn)
	check_eq(inst.get_body_count(), 0, "gone with the player")
	tn.queue_free()
	camera.queue_free()
	player.queue_free()


## Players that join by the group, on a server with nobody yet and on a client whose collision sleeps (a
## still camera): their ground comes without any call on the terrain.
func test_a_node_joining_the_group_gets_ground_on_a_sleeping_terrain() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(512, 512)
	t.generate_noise(5, 1.0 / 48.0, 5, 2.0, 0.5, 20.0, -1e9, TerrainData.NOISE_PERLIN)
	for serving in [true, false]:
		var s := following_node(t, Vector3(30, 0, 30), {tile_resolution = 8, levels = 3})
		var tn: TerrainNode = s[0]
		tn.server_mode = TerrainNode.SERVER_MODE_ON if serving else TerrainNode.SERVER_MODE_OFF
		tn.collision.follow_target = not serving
		for i in 20:
			await tree.physics_frame
		if not serving:
			check(not tn.is_physics_processing(), "a still camera: collision sleeps")
		# Spawned with the group already set (as from a scene file).
		var p := Node3D.new()
		p.position = Vector3(400, 0, 420)
		p.add_to_group("terrain_collision_targets")
		tree.root.add_child(p)
		# Already in the tree, put in the group later.
		var q := _node3d(Vector3(120, 0, 380))
		for i in 6:
			await tree.physics_frame
		q.add_to_group("terrain_collision_targets")
		for i in 6:
			await tree.physics_frame
		var label := "server" if serving else "client"
		check(not _ray_down(400.3, 420.2).is_empty(), "%s: ground under the spawned player" % label)
		check(not _ray_down(120.3, 380.2).is_empty(), "%s: ground under the node grouped later" % label)
		tn.queue_free()
		s[1].queue_free()
		p.queue_free()
		q.queue_free()
		await tree.physics_frame
