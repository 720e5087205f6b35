extends Node3D
## Forests to the horizon (docs/impostors.md): an 8 km island coast (a 4096² terrain of 2 m spacing rising
## from the sea) with a million pines. Near the camera they are meshes; beyond `impostor_distance` they
## are octahedral impostors baked when the scene loads, out to 8 km. The demo shoots the view from the air
## before (meshes to 256 m only, as without impostors) and after, and a low view across the switch.

const SIZE := 4096
const SPACING := 2.0
const SEA := 0.0

@onready var terrain: TerrainNode = $TerrainNode
var _tree: TerrainInstanceMesh
var _impostor: TerrainImpostor
var _forest: TerrainInstancer
var _views: Array[Camera3D] = []


func _ready() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.spacing = SPACING
	var g := TerrainGenerator.new()
	g.seed = 808
	g.frequency = 1.0 / 1400.0
	g.octaves = 8
	g.height = 260.0
	g.sea_level = -1000.0
	g.erosion = 3.0
	g.erosion_scale = 60.0
	t.generate(g)
	# Land rising from the sea in the south-west to hills in the north-east.
	var h := t.heights
	for z in SIZE:
		for x in SIZE:
			h[z * SIZE + x] += 0.03 * (x + z - 1900)
	t.heights = h
	terrain.terrain_data = t
	var water := TerrainWater.new()
	water.sea_level = SEA
	# The coast: the south-west quarter of the map, where the land rises from the sea.
	water.area = Rect2i(0, 0, 2048, 2048)
	terrain.add_child(water)
	# The sea is known before the trees are placed (they keep to dry ground).
	water.update_water()
	_tree = Forest.tree()
	_tree.density = 0.02
	_tree.visibility_range = 8000.0
	_tree.impostor_distance = 250.0
	_tree.layers = PackedInt32Array()
	_impostor = _tree.impostor
	_forest = TerrainInstancer.new()
	_forest.name = "Forest"
	_forest.meshes = [_tree] as Array[TerrainInstanceMesh]
	terrain.add_child(_forest)
	_forest.scatter(0, Rect2(0, 0, SIZE * SPACING, SIZE * SPACING), 1000000, 3)
	var fly := get_node_or_null("FlyCamera") as Camera3D
	if fly != null and not Engine.is_editor_hint():
		fly.position = _above(Vector2(900, 900), 220.0)
	_view("AirBefore", Vector2(700, 700), 260.0, Vector3(-9, -135, 0))
	_view("AirAfter", Vector2(700, 700), 260.0, Vector3(-9, -135, 0))
	_view("SwitchUpClose", Vector2(2600, 2300), 40.0, Vector3(-6, -135, 0))


func _above(p: Vector2, up: float) -> Vector3:
	return Vector3(p.x, maxf(terrain.get_height(p), SEA) + up, p.y)


func _view(name: String, p: Vector2, up: float, degrees: Vector3) -> void:
	var cam := Camera3D.new()
	cam.name = name
	cam.far = 12000.0
	add_child(cam)
	cam.position = _above(p, up)
	cam.rotation_degrees = degrees
	_views.append(cam)


func demo_views() -> Array:
	return _views


## "Before" is the forest without impostors: meshes to 256 m, bare hills beyond.
func prepare_view(cam: Camera3D) -> void:
	var before := cam != null and cam.name.ends_with("Before")
	_tree.impostor = null if before else _impostor
	_tree.visibility_range = 256.0 if before else 8000.0
	if cam != null:
		# Everything in view now (a software renderer takes seconds a frame: streaming by frames would too).
		cam.make_current()
		_forest.update_now()


func view_ready() -> bool:
	return terrain.is_up_to_date() and _forest.is_up_to_date()
