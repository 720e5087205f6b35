extends Node3D
## Roads, a ramp, a riverbed and a crater that stay editable: TerrainPath and TerrainStamp nodes under a
## TerrainNode. Nothing here edits the terrain's samples: each feature is a layer over the sculpted
## hills, composed again when its curve, settings or transform change, and removed without a trace.
##
## The road is laid on the ground with an 8 % grade limit (`lay_on_ground`), so it cuts through crests
## and fills hollows; the ramp only raises (an embankment up the slope), the riverbed carves 2.5 m under
## its curve with sand on its banks, and the crater is a height image stamped with BLEND_ADD.

const SIZE := 512
const ROAD_LAYER := 4
const SAND_LAYER := 0

@onready var terrain: TerrainNode = $TerrainNode
var _layers: Array = []


func _ready() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(21, 1.0 / 140.0, 5, 2.0, 0.5, 28.0, -1e9, TerrainData.NOISE_PERLIN)
	# Up into the material's grass band.
	var h := t.heights
	for i in h.size():
		h[i] += 75.0
	t.heights = h
	terrain.terrain_data = t
	_road()
	_ramp()
	_riverbed()
	_crater()


func _path(points: Array, width: float, falloff: float) -> TerrainPath:
	var p := TerrainPath.new()
	var c := Curve3D.new()
	for i in points.size():
		var v: Vector3 = points[i]
		# Smooth handles: a third of the way to the neighbours.
		var prev: Vector3 = points[maxi(i - 1, 0)]
		var next: Vector3 = points[mini(i + 1, points.size() - 1)]
		var tangent := (next - prev) / 6.0
		c.add_point(v, -tangent, tangent)
	p.curve = c
	p.width = width
	p.falloff_width = falloff
	terrain.add_child(p)
	_layers.append(p)
	return p


func _road() -> void:
	var road := _path([Vector3(40, 0, 90), Vector3(140, 0, 60), Vector3(230, 0, 150), Vector3(330, 0, 120), Vector3(470, 0, 200)], 7.0, 8.0)
	road.name = "Road"
	road.paint_layer = ROAD_LAYER
	road.paint_width = 6.0
	road.paint_falloff = 1.0
	road.paint_edge_noise = 0.6
	road.lay_on_ground(0.08)


func _ramp() -> void:
	var a := Vector2(300, 330)
	var b := Vector2(380, 300)
	var low := terrain.get_height(a)
	var ramp := _path([Vector3(a.x, low, a.y), Vector3(b.x, low + 14.0, b.y)], 9.0, 10.0)
	ramp.name = "Ramp"
	ramp.mode = TerrainPath.MODE_RAISE
	ramp.paint_layer = ROAD_LAYER
	ramp.paint_width = 8.0


func _riverbed() -> void:
	var river := _path([Vector3(60, 0, 470), Vector3(150, 0, 400), Vector3(200, 0, 300), Vector3(120, 0, 230)], 8.0, 9.0)
	river.name = "Riverbed"
	river.lay_on_ground(0.03)
	river.mode = TerrainPath.MODE_CARVE
	river.depth = 2.5
	river.paint_layer = SAND_LAYER
	river.paint_width = 14.0
	river.paint_falloff = 3.0
	river.paint_edge_noise = 1.5


func _crater() -> void:
	var img := Image.create(128, 128, false, Image.FORMAT_RF)
	for z in 128:
		for x in 128:
			var r := Vector2(x + 0.5 - 64, z + 0.5 - 64).length() / 64.0
			# A bowl 1 deep, a rim 0.25 high at 0.8 of the radius, fading out beyond.
			var bowl := -1.0 + r * r / 0.64 if r < 0.8 else 0.0
			var rim := 0.25 * exp(-pow((r - 0.8) / 0.12, 2.0))
			img.set_pixel(x, z, Color(bowl + rim, 0, 0))
	var s := TerrainStamp.new()
	s.name = "Crater"
	s.image = img
	s.size = Vector2(110, 110)
	s.height = 12.0
	s.falloff = 0.15
	terrain.add_child(s)
	s.position = Vector3(400, 0, 420)
	_layers.append(s)


## One camera per feature: from `eye` (X/Z, height above the ground there) towards `at` (X/Z).
func _camera(cam_name: String, eye: Vector3, at: Vector2) -> Camera3D:
	var cam := Camera3D.new()
	cam.name = cam_name
	cam.far = 3000.0
	add_child(cam)
	var target := Vector3(at.x, terrain.get_height(at), at.y)
	cam.look_at_from_position(Vector3(eye.x, terrain.get_height(Vector2(eye.x, eye.z)) + eye.y, eye.z), target)
	return cam


func demo_views() -> Array:
	return [
		_camera("Road", Vector3(120, 70, -40), Vector2(260, 140)),
		_camera("Ramp", Vector3(270, 30, 390), Vector2(345, 312)),
		_camera("Riverbed", Vector3(235, 55, 400), Vector2(150, 370)),
		_camera("Crater", Vector3(400, 70, 320), Vector2(400, 425)),
	]


func view_ready() -> bool:
	return _layers.all(func(l): return l.is_applied()) and terrain.is_up_to_date()
