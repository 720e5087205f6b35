extends SceneTree
## Child process of `physics/test_collision_targets.gd`: a game scene as a --headless run sees it (a
## camera, a TerrainNode with its defaults, a player as collision target), with the project's setting that
## keeps headless test runs drawing turned off, as in a user's project. Prints "SERVER drawing=… windows=…
## uploads=… surface=… tiles=… hit=… error=…".

var tn: TerrainNode
var player: Node3D
var ticks := 0


func _initialize() -> void:
	ProjectSettings.set_setting("wandering_terrain/server/draw_when_headless", false)
	var cam := Camera3D.new()
	root.add_child(cam)
	cam.position = Vector3(0, 50, 0)
	var g := TerrainGenerator.new()
	g.seed = 3
	g.frequency = 1.0 / 48.0
	g.height = 20.0
	tn = TerrainNode.new()
	tn.terrain_generator = g
	root.add_child(tn)
	player = Node3D.new()
	root.add_child(player)
	player.position = Vector3(-420, 0, 130)
	tn.add_collision_target(player)


func _physics_process(_delta: float) -> bool:
	ticks += 1
	if ticks < 90:
		return false
	var q := player.position + Vector3(0.3, 0, -0.4)
	var space := tn.get_world_3d().direct_space_state
	var hit := space.intersect_ray(PhysicsRayQueryParameters3D.create(q + Vector3(0, 1000, 0), q - Vector3(0, 1000, 0)))
	var err := absf(hit["position"].y - tn.get_height(Vector2(q.x, q.z))) if not hit.is_empty() else INF
	var s := tn.get_work_stats()
	print("SERVER drawing=%s windows=%d uploads=%d surface=%d tiles=%d hit=%s error=%f" % [tn.is_drawing(), s["windows_steps"], s["layers_uploaded"], s["surface_usec"], tn.get_collision_tile_count(), not hit.is_empty(), err])
	return true
