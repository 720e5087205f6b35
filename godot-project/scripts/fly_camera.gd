extends Camera3D
## A free-flying camera: WASD / left stick to move, Q/E down/up, right mouse button + mouse or right stick
## to look, Shift to go fast. Kept above the terrain node's surface.

@export var speed := 40.0
@export var fast_factor := 5.0
@export var mouse_sensitivity := 0.003
@export var terrain: TerrainNode
@export var min_height_above_ground := 1.5


func _unhandled_input(event: InputEvent) -> void:
	if event is InputEventMouseMotion and Input.is_mouse_button_pressed(MOUSE_BUTTON_RIGHT):
		rotation.y -= event.relative.x * mouse_sensitivity
		rotation.x = clampf(rotation.x - event.relative.y * mouse_sensitivity, -1.5, 1.5)


func _process(delta: float) -> void:
	var look := Vector2(Input.get_axis("camera_left", "camera_right"), Input.get_axis("camera_zoom_in", "camera_zoom_out"))
	rotation.y -= look.x * delta * 1.5
	rotation.x = clampf(rotation.x - look.y * delta * 1.5, -1.5, 1.5)
	var move := Vector3(Input.get_axis("player_left", "player_right"), 0, Input.get_axis("player_forward", "player_backward"))
	if Input.is_key_pressed(KEY_E):
		move.y += 1
	if Input.is_key_pressed(KEY_Q):
		move.y -= 1
	var v := speed * (fast_factor if Input.is_key_pressed(KEY_SHIFT) else 1.0)
	position += global_transform.basis * move * v * delta
	if terrain:
		var ground := terrain.get_height(Vector2(position.x, position.z))
		if not is_nan(ground):
			position.y = maxf(position.y, ground + min_height_above_ground)
