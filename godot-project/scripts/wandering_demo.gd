@tool
extends Node3D
## The wandering terrain demo (a tool script: in the editor it generates the terrain too, so the scene shows
## it, and keeps it out of the saved scene; only the game moves the capsule and the cameras): a capsule walks over a generated terrain (its height from TerrainData.get_height),
## an orbiting camera whose distance follows a Curve of its inclination, and one WanderingTerrain per view
## (shoulder cam, eagle view, global map), each with a WanderingMesh suited to it and drawn only by its
## camera (render layers 2, 3, 4).
## Keys: WASD walk, arrows orbit / zoom; gamepad: left stick walk, right stick orbit / zoom.

@export_group("Terrain")
@export var terrain_size := Vector2i(256, 256)
@export var terrain_height := 24.0
@export var sea_level := -6.0

@export_group("Camera")
## Turning speed around Y (rad/s) and inclination speed (rad/s).
@export var yaw_speed := PI
@export var pitch_speed := PI
## Inclination range (radians above the horizon).
@export var min_pitch := 0.1
@export var max_pitch := PI / 2 - PI / 5
@export var max_camera_distance := 16.0
## Camera distance (as a fraction of max_camera_distance) for the normalised inclination.
@export var distance_per_pitch: Curve

@export_group("Subject")
@export var max_speed := 16.0

var yaw := PI / 4.0
var pitch := 0.5
var pitch_norm := 0.5
var move_speed := 0.0
var move_angle := 0.0

@onready var data: TerrainData = TerrainData.new()
@onready var target: MeshInstance3D = $Target
@onready var shoulder_cam: Camera3D = $ShoulderCam
@onready var eagle_cam: Camera3D = $EagleCam
@onready var map_cam: Camera3D = $MapCam


func _ready() -> void:
	if distance_per_pitch == null:
		distance_per_pitch = Curve.new()
		distance_per_pitch.add_point(Vector2(0, 0.45))
		distance_per_pitch.add_point(Vector2(1, 1))
	data.size = terrain_size
	data.generate_noise(2024, 1.0 / 48.0, 5, 2.0, 0.5, terrain_height, sea_level, TerrainData.NOISE_PERLIN)
	# A painted road across the map and a pit with a cave entrance (the look: wandering_look.tres).
	var road := PackedVector2Array()
	for i in 41:
		var t := i / 40.0
		road.append(Vector2(lerpf(10, terrain_size.x - 10, t), terrain_size.y * 0.5 + sin(t * 9.0) * 30.0 + 20.0))
	TerrainFeatures.paint_road(data, road, 2.5, 1.5, 4)
	TerrainFeatures.dig_pit(data, Vector2(terrain_size) * 0.5 + Vector2(30, -25), 14.0, 10.0, 2.5)
	for wt in [$ShoulderTerrain, $EagleTerrain, $MapTerrain]:
		wt.terrain_data = data
	if Engine.is_editor_hint():
		_editor_view(true)
		return
	target.position = Vector3(terrain_size.x / 2.0, 0, terrain_size.y / 2.0)
	_walk(Vector2.ZERO, Vector2.ZERO, 0.0)
	# The map camera looks straight down on the whole terrain.
	map_cam.size = maxf(terrain_size.x, terrain_size.y) * 1.05
	map_cam.position = Vector3(terrain_size.x / 2.0, 200.0, terrain_size.y / 2.0)


func _process(delta: float) -> void:
	if Engine.is_editor_hint():
		return
	var left := Vector2(Input.get_axis("player_left", "player_right"), Input.get_axis("player_forward", "player_backward"))
	var right := Vector2(Input.get_axis("camera_left", "camera_right"), Input.get_axis("camera_zoom_in", "camera_zoom_out"))
	_walk(left, right, delta)


## One step of the controller: right stick orbits / zooms, left stick walks relative to the view.
func _walk(left: Vector2, right: Vector2, delta: float) -> void:
	yaw = fposmod(yaw + right.x * yaw_speed * delta, TAU)
	pitch = clampf(pitch - right.y * pitch_speed * delta, min_pitch, max_pitch)
	pitch_norm = clampf(pitch_norm - right.y * pitch_speed * delta, 0.0, 1.0)
	var step := left.rotated(yaw) * 0.1
	move_speed = step.length()
	if not is_zero_approx(move_speed):
		move_angle = atan2(step.x, step.y)
	target.rotation.y = move_angle
	target.translate(Vector3(0, 0, move_speed * delta * max_speed))
	var capsule := target.mesh as CapsuleMesh
	var ground := data.get_height(Vector2(target.position.x, target.position.z))
	target.position.y = ground + capsule.height / 2.0
	var distance := distance_per_pitch.sample_baked(pitch_norm) * max_camera_distance
	var ray := Vector3.BACK.rotated(Vector3.LEFT, pitch).rotated(Vector3.DOWN, yaw)
	shoulder_cam.look_at_from_position(target.position + ray * distance, target.position)
	var high := Vector3.BACK.rotated(Vector3.LEFT, 1.0).rotated(Vector3.DOWN, yaw)
	eagle_cam.look_at_from_position(target.position + high * 90.0, target.position)


## For the demo renderer: the views to shoot.
func demo_views() -> Array:
	return [shoulder_cam, eagle_cam, map_cam]


func prepare_view(cam: Camera3D) -> void:
	if cam:
		cam.make_current()


## In the editor one terrain (the eagle view's mesh) follows the editor's camera and the other two hide; the
## game's set-up comes back for saving.
func _editor_view(on: bool) -> void:
	var terrains := [$ShoulderTerrain, $EagleTerrain, $MapTerrain]
	var cams := [NodePath("../ShoulderCam"), NodePath("../EagleCam"), NodePath("../MapCam")]
	for i in 3:
		terrains[i].camera = NodePath() if on else cams[i]
		terrains[i].visible = i == 1 or not on
		terrains[i].terrain_data = data if on else null


## Generated data and the editor's view set-up are not saved with the scene: they are made again when the
## scene loads.
func _notification(what: int) -> void:
	if not Engine.is_editor_hint() or not is_node_ready():
		return
	if what == NOTIFICATION_EDITOR_PRE_SAVE:
		_editor_view(false)
	elif what == NOTIFICATION_EDITOR_POST_SAVE:
		_editor_view(true)
