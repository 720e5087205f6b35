extends Node3D
## The ground players mark (docs/interaction.md): a walker with a TerrainInteractor crosses a meadow into
## snow. The grass bends away along its path; the snow layer (deformable) sinks and darkens into a trail.
## The terrain's layers also carry surface names and physics materials (docs/ground-surfaces.md): the
## walker reads `get_surface_name` at every step, as a footstep player would.

const SIZE := 128
## Where the walk starts and ends (it crosses from grass into snow at x = 64).
const FROM := Vector2(34, 60)
const TO := Vector2(100, 70)
const SPEED := 14.0

@onready var terrain: TerrainNode = $TerrainNode
@onready var walker: Node3D = $Walker
var _walked := 0.0
var _views: Array[Camera3D] = []
## The surfaces the walker stepped on, in order (each once).
var steps: Array[StringName] = []


func _ready() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(11, 1.0 / 70.0, 4, 2.0, 0.5, 3.0, -1e9, TerrainData.NOISE_PERLIN)
	var grass := _layer("grass", &"grass", 0.8)
	var snow := _layer("snow", &"snow", 0.3)
	snow.deformable = true
	snow.deform_depth = 0.22
	snow.deform_darken = 0.35
	var look := TerrainMaterial.new()
	look.auto_texturing = false
	look.layers = [grass, snow] as Array[TerrainLayer]
	# Snow east of x = 64, blended over four samples.
	var w := PackedFloat32Array()
	for z in SIZE:
		for x in SIZE:
			w.append(clampf((x - 62.0) / 4.0, 0.0, 1.0))
	t.set_layer_region(Rect2i(0, 0, SIZE, SIZE), 1, w)
	terrain.terrain_data = t
	terrain.terrain_material = look
	terrain.interaction_recovery_time = 300.0
	var meadow := TerrainDetailLayer.new()
	meadow.layers = PackedInt32Array([0])
	meadow.density = 14.0
	meadow.view_radius = 45.0
	meadow.scale_min = 0.7
	meadow.scale_max = 1.1
	$TerrainNode/TerrainInstancer.detail_layers = [meadow] as Array[TerrainDetailLayer]
	_view("Meadow", Vector3(50, 0, 64), Vector3(-7, 5.5, 9))
	_view("Snow", Vector3(86, 0, 67), Vector3(-8, 6, 8))
	_view("Overview", Vector3(66, 0, 65), Vector3(0, 26, 22))


func _layer(texture: String, surface: StringName, friction: float) -> TerrainLayer:
	var l := TerrainLayer.new()
	l.albedo_texture = load("res://textures/%s_albedo.png" % texture)
	l.normal_texture = load("res://textures/%s_normal.png" % texture)
	l.uv_scale = 0.25
	l.surface_name = surface
	var pm := PhysicsMaterial.new()
	pm.friction = friction
	l.physics_material = pm
	return l


func _view(view_name: String, at: Vector3, from: Vector3) -> void:
	var cam := Camera3D.new()
	cam.name = view_name
	cam.fov = 50.0
	add_child(cam)
	var g := Vector3(at.x, terrain.get_height(Vector2(at.x, at.z)), at.z)
	cam.look_at_from_position(g + from, g, Vector3.UP)
	_views.append(cam)


## The walker goes from FROM to TO along a gentle curve, on the ground.
func _process(delta: float) -> void:
	var length := FROM.distance_to(TO)
	if _walked >= length:
		return
	_walked = minf(_walked + SPEED * delta, length)
	var k := _walked / length
	var p := FROM.lerp(TO, k) + Vector2(0, 4.0 * sin(k * PI * 2.0))
	walker.position = Vector3(p.x, terrain.get_height(p), p.y)
	var s := terrain.get_surface_name(walker.position)
	if steps.is_empty() or steps[-1] != s:
		steps.append(s)


func demo_views() -> Array:
	return _views


func view_ready() -> bool:
	return _walked >= FROM.distance_to(TO) and terrain.is_up_to_date()
