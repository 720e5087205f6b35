@tool
extends Node3D
## Open world on a TerrainNode (geometry clipmap), textured by a TerrainMaterial (sand, grass and snow by
## height bands, rock on cliffs, a painted road, a pit with a hole), with trees and rocks (Forest) and grass, flowers and pebbles (Meadow): a 4096² terrain generated when the scene loads — in the
## editor too, so the real terrain shows there (it is not saved into the scene) — a fly camera, and a few
## fixed viewpoints for the demo renderer.

@export var terrain_size := Vector2i(4096, 4096)
@export var height := 220.0
@export var sea_level := -30.0

@onready var terrain: TerrainNode = $TerrainNode
@onready var fly: Camera3D = $FlyCamera
var _data: TerrainData


func _ready() -> void:
	_data = TerrainData.new()
	_data.size = terrain_size
	var g := TerrainGenerator.new()
	g.seed = 4096
	g.frequency = 1.0 / 700.0
	g.octaves = 8
	g.height = height
	g.sea_level = sea_level
	# Gullies down the slopes (the generator's erosion filter).
	g.erosion = 4.0
	g.erosion_scale = 48.0
	g.erosion_detail = 3
	_data.generate(g)
	var c := Vector2(terrain_size) * 0.5
	# A road winding past the centre and a pit with a cave entrance near it.
	var road := PackedVector2Array()
	for i in 61:
		var t := i / 60.0
		road.append(c + Vector2(lerpf(-700, 700, t), sin(t * 7.0) * 120.0 + 60.0))
	TerrainFeatures.paint_road(_data, road, 8.0, 4.0, 4)
	TerrainFeatures.dig_pit(_data, c + Vector2(-60, 160), 50.0, 40.0, 8.0)
	terrain.terrain_data = _data
	# Forests over the whole map, to the horizon (made again on every load, like the terrain; not saved
	# in the scene).
	var forest := Forest.plant(terrain, c, 2000.0, 240000, 30000)
	# Grass, flowers and pebbles around the camera (grown by rules, nothing stored).
	forest.detail_layers = Meadow.layers()
	if Engine.is_editor_hint():
		return
	fly.position = Vector3(c.x, terrain.get_height(c) + 60.0, c.y)


## Viewpoints for the demo renderer: low over the ground, a mid-height overview, and a high one.
func demo_views() -> Array:
	var views: Array = []
	var c := Vector2(terrain_size) * 0.5
	for v in [[Vector2(-300, 200), 6.0, -4.0, 30.0, "Ground"], [Vector2(400, -100), 140.0, -18.0, 200.0, "Overview"], [Vector2(0, 900), 900.0, -40.0, 0.0, "High"], [Vector2(-60, 250), 80.0, -28.0, 0.0, "RoadAndPit"], [Vector2(150, -420), 30.0, -14.0, 35.0, "Forest"], [Vector2(150, -330), 1.7, -6.0, 20.0, "Meadow"]]:
		var cam := Camera3D.new()
		cam.name = v[4]
		cam.far = 12000.0
		add_child(cam)
		var p: Vector2 = c + v[0]
		cam.position = Vector3(p.x, terrain.get_height(p) + v[1], p.y)
		cam.rotation_degrees = Vector3(v[2], v[3], 0)
		views.append(cam)
	return views


## Generated data is not saved with the scene: it is made again when the scene loads.
func _notification(what: int) -> void:
	if what == NOTIFICATION_EDITOR_PRE_SAVE and terrain:
		terrain.terrain_data = null
	elif what == NOTIFICATION_EDITOR_POST_SAVE and terrain:
		terrain.terrain_data = _data


func prepare_view(cam: Camera3D) -> void:
	if cam:
		cam.make_current()
		# The instances and detail around the new view, before the picture.
		for inst in find_children("*", "TerrainInstancer", true, false):
			inst.update_now()
