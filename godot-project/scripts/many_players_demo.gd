extends Node3D
## Collision around many players (docs/multiplayer.md): eight walkers on a hilly map, each a collision target
## of the terrain (`add_collision_target`, 10 m around each), the camera none (`collision.follow_target`
## off). With *Visible Collision Shapes* on, the terrain draws its collision tiles: a patch under every
## walker, nothing elsewhere — what a dedicated server keeps in its physics engine.

const SIZE := 512
const WALKERS := 8
const RADIUS := 10.0

@onready var terrain: TerrainNode = $TerrainNode
var walkers: Array[Node3D] = []
var _t := 0.0
var _views: Array[Camera3D] = []


func _enter_tree() -> void:
	# Before the terrain enters the tree: it draws its tiles only when the tree shows collision shapes.
	get_tree().debug_collisions_hint = true


func _ready() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(21, 1.0 / 60.0, 5, 2.0, 0.5, 18.0, -1e9, TerrainData.NOISE_PERLIN)
	var grass := TerrainLayer.new()
	grass.albedo_texture = load("res://textures/grass_albedo.png")
	grass.normal_texture = load("res://textures/grass_normal.png")
	grass.uv_scale = 0.25
	var look := TerrainMaterial.new()
	look.auto_texturing = false
	look.layers = [grass] as Array[TerrainLayer]
	terrain.terrain_data = t
	terrain.terrain_material = look
	terrain.collision.follow_target = false
	var body := CapsuleMesh.new()
	body.radius = 2.5
	body.height = 9.0
	var red := StandardMaterial3D.new()
	red.albedo_color = Color(0.85, 0.2, 0.15)
	body.material = red
	for i in WALKERS:
		var w := Node3D.new()
		var m := MeshInstance3D.new()
		m.mesh = body
		m.position.y = 4.5
		w.add_child(m)
		add_child(w)
		terrain.add_collision_target(w, RADIUS)
		walkers.append(w)
	_walk(0.0)
	var cam := Camera3D.new()
	cam.name = "Overview"
	cam.fov = 55.0
	add_child(cam)
	var c := Vector3(SIZE * 0.5, 0, SIZE * 0.5)
	cam.look_at_from_position(c + Vector3(0, 330, 260), c + Vector3(0, 0, 20), Vector3.UP)
	_views.append(cam)


## Each walker on a circle of its own around the map's middle.
func _walk(time: float) -> void:
	for i in walkers.size():
		var a := time * (0.03 + 0.005 * i) + TAU * i / walkers.size()
		var r := 70.0 + 45.0 * (i % 4)
		var p := Vector2(SIZE * 0.5 + r * cos(a), SIZE * 0.5 + r * sin(a))
		walkers[i].position = Vector3(p.x, terrain.get_height(p), p.y)


func _physics_process(delta: float) -> void:
	_t += delta
	_walk(_t)


func demo_views() -> Array:
	return _views


func view_ready() -> bool:
	return _t > 1.0 and terrain.is_up_to_date()
