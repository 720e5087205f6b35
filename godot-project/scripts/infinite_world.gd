@tool
extends Node3D
## An endless world: a TerrainNode drawing a TerrainGenerator's terrain wherever the camera goes (no
## TerrainData, nothing stored), textured by the open world's TerrainMaterial, with grass, flowers and
## pebbles (Meadow) grown around the camera. Fly with WASD, Q/E down/up,
## Shift to go fast (right mouse button to look). A FloatingOrigin shifts the world back to the origin
## every km, so everything stays exact however far you fly. The HUD shows where you are (the camera plus
## the terrain's origin offset) and whether the terrain around you is complete.

@onready var terrain: TerrainNode = $TerrainNode
@onready var fly: Camera3D = $FlyCamera
@onready var hud: Label = $HUD/Label


var meadow: TerrainInstancer


func _ready() -> void:
	# Grass, flowers and pebbles wherever the camera goes (grown by rules: nothing stored).
	meadow = Meadow.grow(terrain)
	if Engine.is_editor_hint():
		return
	fly.position = Vector3(0, terrain.get_height(Vector2.ZERO) + 60.0, 0)


func _process(_delta: float) -> void:
	if Engine.is_editor_hint() or hud == null:
		return
	var cam := get_viewport().get_camera_3d()
	var p := cam.global_position if cam else fly.position
	# Where the camera really is: its position plus the shift of the world's origin (floats: doubles).
	var off := terrain.origin_offset
	p = Vector3(p.x + off.x, p.y, p.z + off.z)
	hud.text = "x %.0f  z %.0f  (%.1f km out)%s" % [p.x, p.z, Vector2(p.x, p.z).length() / 1000.0, "" if terrain.is_up_to_date() else "  streaming…"]


## Viewpoints for the demo renderer: near the origin, 40 km out, 270 km out and 5,000 km out — the same
## generator everywhere; the origin is shifted to each view (what FloatingOrigin does as you fly there).
var _views := [[Vector2(0, 0), 40.0, -12.0, 20.0, "Start"], [Vector2(40030, -15010), 1.7, -6.0, 200.0, "MeadowFortyKm"], [Vector2(40000, -15000), 180.0, -16.0, 200.0, "FortyKm"], [Vector2(-2.5e5, 1.0e5), 600.0, -30.0, 60.0, "Far"], [Vector2(5.0e6, 1.0e6), 30.0, -14.0, 140.0, "FiveThousandKm"]]


func demo_views() -> Array:
	var views: Array = []
	for v in _views:
		var cam := Camera3D.new()
		cam.name = v[4]
		cam.far = 12000.0
		add_child(cam)
		cam.rotation_degrees = Vector3(v[2], v[3], 0)
		views.append(cam)
	return views


func prepare_view(cam: Camera3D) -> void:
	if not cam:
		return
	for v in _views:
		if v[4] == cam.name:
			# The origin at the view, the camera near zero: exact however far out the view is.
			var at: Vector2 = v[0]
			terrain.origin_offset = Vector3(at.x, 0, at.y)
			var p := Vector2(at.x, at.y) - Vector2(terrain.origin_offset.x, terrain.origin_offset.z)
			cam.position = Vector3(p.x, terrain.get_height(p) + v[1], p.y)
	cam.make_current()


## Whether the terrain around the current view is complete (the demo renderer waits for it).
func view_ready() -> bool:
	# The meadow's cells are shown a few a frame as the camera moves; a picture takes them all at once.
	meadow.update_now()
	return terrain.is_up_to_date() and meadow.is_up_to_date()
