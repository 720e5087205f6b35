extends RefCounted
## Collision around many targets on a server (headless, nothing drawn): 64 walkers over a 16 km endless
## world, a ray under each every tick; the terrain's main-thread collision time per tick (median, p99)
## against the same world with one walker in the same run, and the resident memory.

const Util := preload("res://bench/timing.gd")
const Walkers := preload("res://walkers.gd")

var tree: SceneTree


func run(quick: bool) -> void:
	var engine := str(ProjectSettings.get_setting("physics/3d/physics_engine"))
	var ticks := 300 if quick else 1200
	var one := await _walk(1, ticks)
	var many := await _walk(64, ticks)
	print("bench collision_targets (%s): 64 walkers on 16 km: terrain collision %.0f µs a tick median, p99 %.0f µs, worst %.0f µs (1 walker: %.0f µs median, ratio %.1f); %d ticks, %d rays without ground of %d, worst |hit - get_height| %.4f m; %d tiles; RSS %d MB (%+d MB with 64 walkers)" % [
		engine, many[0], many[1], many[2], one[0], many[0] / maxf(one[0], 1.0), ticks, many[3], ticks * 64, many[4], many[5], many[6] >> 20, (many[6] - one[6]) >> 20])


## `n` walkers for `ticks` physics ticks on a server: [median µs, p99, worst, misses, worst error, tiles, RSS].
func _walk(n: int, ticks: int) -> Array:
	var g := TerrainGenerator.new()
	g.seed = 57
	g.frequency = 1.0 / 48.0
	g.height = 20.0
	var tn := TerrainNode.new()
	tn.server_mode = TerrainNode.SERVER_MODE_ON
	tn.terrain_generator = g
	tn.collision.radius = 16.0
	tn.collision.follow_target = false
	tree.root.add_child(tn)
	var w := Walkers.new()
	w.spread(tn, n, 16000.0, 64)
	tn.update_collision()
	await tree.physics_frame
	await tree.physics_frame
	tree.root.add_child(w)
	while w.ticks < ticks:
		await tree.physics_frame
	var t := w.step_usec.slice(10)
	var out := [Util.median(t), Util.quantile(t, 0.99), Util.quantile(t, 1.0), w.misses, w.worst, tn.get_collision_tile_count(), Util.rss()]
	w.queue_free()
	tn.queue_free()
	await tree.process_frame
	return out
