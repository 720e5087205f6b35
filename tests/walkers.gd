extends Node
## Walkers for the many-targets checks (`physics/test_collision_targets.gd`, `bench/bench_collision_targets.gd`):
## moves its nodes a physics tick each (a random walk at 1.5–6 m/s) and casts a ray under every one at once,
## in the same tick (added after the terrain: its collision step ran first), counting misses, the worst
## error against get_height and the terrain's collision time each tick (its work stats).
var terrain: TerrainNode
var nodes: Array[Node3D] = []
var heading: PackedFloat32Array
var speed: PackedFloat32Array
var rng := RandomNumberGenerator.new()
var ticks := 0
var rays := 0
var misses := 0
var worst := 0.0
var step_usec: Array[int] = []
var last_usec := 0


func _physics_process(delta: float) -> void:
	var stats := terrain.get_work_stats()
	var used: int = stats["collision_usec"]
	if ticks > 0:
		step_usec.append(used - last_usec)
	last_usec = used
	ticks += 1
	var space := terrain.get_world_3d().direct_space_state
	for i in nodes.size():
		var n := nodes[i]
		if rng.randf() < 0.02:
			heading[i] += rng.randf_range(-1.5, 1.5)
		n.position += Vector3(cos(heading[i]), 0, sin(heading[i])) * speed[i] * delta
		var q := n.position + Vector3(rng.randf_range(-1, 1), 0, rng.randf_range(-1, 1))
		var hit := space.intersect_ray(PhysicsRayQueryParameters3D.create(q + Vector3(0, 1000, 0), q - Vector3(0, 1000, 0)))
		rays += 1
		if hit.is_empty() or hit["collider"] != terrain:
			misses += 1
			continue
		var e := absf(hit["position"].y - terrain.get_height(Vector2(q.x, q.z)))
		# NaN sticks (maxf would drop it at the next finite value).
		worst = NAN if is_nan(e) or is_nan(worst) else maxf(worst, e)


## `n` walkers spread over a `side` × `side` square around the origin, children and collision targets of
## `tn`, drawn from `seed`.
func spread(tn: TerrainNode, n: int, side: float, seed: int) -> void:
	terrain = tn
	rng.seed = seed
	for i in n:
		var w := Node3D.new()
		w.position = Vector3(rng.randf_range(-0.5, 0.5) * side, 0, rng.randf_range(-0.5, 0.5) * side)
		tn.add_child(w)
		tn.add_collision_target(w)
		nodes.append(w)
		heading.append(rng.randf() * TAU)
		speed.append(rng.randf_range(1.5, 6.0))
