extends Node3D
## Water that knows the terrain: a coast where the sea meets generated hills, the lakes `find_lakes` finds
## in their basins (each at its spill level, none flooded by the sea behind its rim), and the longest
## rivers `find_rivers` traces from the hills to the sea, each with a bed carved by a TerrainPath and a
## TerrainWater ribbon flowing down it. The last view is the same water in the pixel-art look over the
## pixel-art terrain.

const SIZE := 512
const SEA := 4.0

@onready var terrain: TerrainNode = $TerrainNode
var water: TerrainWater
var _lit_look: TerrainMaterial


func _ready() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	var g := TerrainGenerator.new()
	g.seed = 1234
	g.frequency = 1.0 / 160.0
	g.octaves = 6
	g.height = 45.0
	g.sea_level = -1000.0
	t.generate(g)
	# Land rising from the sea in the south to hills in the north.
	var h := t.heights
	for z in SIZE:
		for x in SIZE:
			h[z * SIZE + x] += 0.1 * (z - 150)
	t.heights = h
	terrain.terrain_data = t
	water = TerrainWater.new()
	water.sea_level = SEA
	for lake in t.find_lakes(Rect2i(), 300.0, 1.0, SEA):
		water.lake_points.append(lake["point"])
	var rivers := t.find_rivers(Rect2i(), 6000.0, SEA)
	var kept: Array[Curve3D] = []
	for c in rivers.slice(0, 3):
		var bed := TerrainPath.new()
		bed.curve = c
		bed.mode = TerrainPath.MODE_CARVE
		bed.depth = 1.2
		bed.width = 4.0
		bed.falloff_width = 3.0
		bed.paint_layer = 0
		bed.paint_width = 7.0
		bed.paint_edge_noise = 0.8
		terrain.add_child(bed)
		kept.append(c)
	water.rivers = kept
	water.river_width = 10.0
	terrain.add_child(water)
	_lit_look = terrain.terrain_material


func _camera(cam_name: String, eye: Vector3, at: Vector2) -> Camera3D:
	var cam := Camera3D.new()
	cam.name = cam_name
	cam.far = 3000.0
	add_child(cam)
	var target := Vector3(at.x, maxf(terrain.get_height(at), SEA), at.y)
	cam.look_at_from_position(Vector3(eye.x, maxf(terrain.get_height(Vector2(eye.x, eye.z)), SEA) + eye.y, eye.z), target)
	return cam


func demo_views() -> Array:
	var lake := Vector2(SIZE * 0.5, SIZE * 0.6)
	if water.lake_points.size() > 0:
		lake = water.lake_points[0]
	var river_mid := Vector2(SIZE * 0.5, SIZE * 0.4)
	if water.rivers.size() > 0:
		var c: Curve3D = water.rivers[0]
		var p := c.sample_baked(c.get_baked_length() * 0.5)
		river_mid = Vector2(p.x, p.z)
	return [
		_camera("Coast", Vector3(SIZE * 0.5, 90, -60), Vector2(SIZE * 0.5, 140)),
		_camera("Lake", Vector3(lake.x - 60, 45, lake.y + 70), lake),
		_camera("River", Vector3(river_mid.x + 25, 30, river_mid.y - 35), river_mid),
		_camera("PixelArt", Vector3(SIZE * 0.5, 90, -60), Vector2(SIZE * 0.5, 140)),
	]


func prepare_view(cam: Camera3D) -> void:
	var pixel := cam != null and cam.name == "PixelArt"
	water.pixel_art = pixel
	if pixel:
		var m := ShaderMaterial.new()
		m.shader = load("res://addons/wandering_terrain/shaders/terrain_pixel_art.gdshader")
		m.set_shader_parameter("height_range", Vector2(-20, 70))
		terrain.material = m
	water.update_water()


func view_ready() -> bool:
	return terrain.is_up_to_date() and terrain.get_children().all(func(c): return not (c is TerrainPath) or c.is_applied())
