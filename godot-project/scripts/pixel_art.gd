@tool
extends Node3D
## Pixel-art terrain (terrain_pixel_art.gdshader on a TerrainNode): texels keep their size on screen from a
## close-up to the whole map. Toggle `low_poly` for the faceted look (large vertex spacing, flat shading).
## Fly with the camera (WASD/QE, right mouse to look). The terrain is generated when the scene loads, in the
## editor too (not saved into the scene).

@export var terrain_size := Vector2i(512, 512)
@export var low_poly := false

@onready var terrain: TerrainNode = $TerrainNode
@onready var fly: Camera3D = $FlyCamera
var _data: TerrainData
var _material: ShaderMaterial


func _ready() -> void:
	var data := TerrainData.new()
	_data = data
	data.size = terrain_size
	var g := TerrainGenerator.new()
	g.seed = 77
	g.frequency = 1.0 / 90.0
	g.octaves = 5
	g.height = 38.0
	g.sea_level = -6.0
	data.generate(g)
	terrain.terrain_data = data
	_material = _make_material()
	terrain.material = _material
	set_low_poly(low_poly)
	if Engine.is_editor_hint():
		return
	var c := Vector2(terrain_size) * 0.5
	fly.position = Vector3(c.x, terrain.get_height(c) + 20.0, c.y + 30.0)
	fly.rotation_degrees.x = -30.0


func _make_material() -> ShaderMaterial:
	var m := ShaderMaterial.new()
	m.shader = load("res://addons/wandering_terrain/shaders/terrain_pixel_art.gdshader")
	# Water, sand, grass, forest, rock, snow: the classic altitude palette.
	var g := Gradient.new()
	g.offsets = PackedFloat32Array([0.0, 0.12, 0.18, 0.45, 0.7, 0.86, 1.0])
	g.colors = PackedColorArray([Color("1d3b7a"), Color("2f68b8"), Color("d8c784"), Color("5e9e3a"), Color("2f6b2a"), Color("7b7064"), Color("f2f4f7")])
	var gt := GradientTexture1D.new()
	gt.gradient = g
	m.set_shader_parameter("gradient", gt)
	var n := FastNoiseLite.new()
	n.frequency = 0.09
	var img := n.get_seamless_image(64, 64)
	img.generate_mipmaps()
	m.set_shader_parameter("displacement_tex", ImageTexture.create_from_image(img))
	m.set_shader_parameter("displacement_strength", 0.25)
	m.set_shader_parameter("height_range", Vector2(-6, 38))
	m.set_shader_parameter("pixel_density", 4.0)
	return m


## The faceted low-poly look: a vertex every 4 units and flat-shaded triangles.
func set_low_poly(on: bool) -> void:
	low_poly = on
	terrain.vertex_spacing = 4.0 if on else 1.0
	terrain.material.set_shader_parameter("flat_shading", on)


## Viewpoints for the demo renderer: a close-up, a mid view, the whole map, and the mid view low-poly.
func demo_views() -> Array:
	var views: Array = []
	var c := Vector2(terrain_size) * 0.5
	for v in [[Vector2(10, 40), 4.0, -25.0, "CloseUp"], [Vector2(0, 120), 45.0, -28.0, "Mid"], [Vector2(0, 560), 420.0, -42.0, "WholeMap"], [Vector2(0, 120), 45.0, -28.0, "LowPoly"]]:
		var cam := Camera3D.new()
		cam.name = v[3]
		cam.far = 4000.0
		add_child(cam)
		var p: Vector2 = c + v[0]
		cam.position = Vector3(p.x, terrain.get_height(p) + v[1], p.y)
		cam.rotation_degrees = Vector3(v[2], 0, 0)
		views.append(cam)
	return views


## Generated data and material are not saved with the scene: they are made again when the scene loads.
func _notification(what: int) -> void:
	if what == NOTIFICATION_EDITOR_PRE_SAVE and terrain:
		terrain.terrain_data = null
		terrain.material = null
	elif what == NOTIFICATION_EDITOR_POST_SAVE and terrain:
		terrain.terrain_data = _data
		terrain.material = _material


func prepare_view(cam: Camera3D) -> void:
	if cam:
		cam.make_current()
		set_low_poly(cam.name == "LowPoly")
