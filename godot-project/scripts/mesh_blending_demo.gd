extends Node3D
## Meshes that grow out of the ground (docs/mesh-blending.md): a rock half-buried, a wall on a slope and a
## tree trunk on grass, each drawn with a TerrainBlendMaterial over the TerrainNode's surface cache. The demo
## shoots each twice: before (blend off) and after.

const SIZE := 256

@onready var terrain: TerrainNode = $TerrainNode
var _blended: Array[TerrainBlendMaterial] = []
var _views: Array[Camera3D] = []


func _ready() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(7, 1.0 / 90.0, 5, 2.0, 0.5, 16.0, -1e9, TerrainData.NOISE_PERLIN)
	# Up into the material's grass band.
	var h := t.heights
	for i in h.size():
		h[i] += 75.0
	t.heights = h
	terrain.terrain_data = t
	_rock(Vector2(96, 120))
	_wall(Vector2(150, 96))
	_trunk(Vector2(120, 170))


## A material for `albedo` (a texture path or a colour), blending its bottom `height` into the ground.
func _blend(albedo, normal: String, height: float) -> TerrainBlendMaterial:
	var m := TerrainBlendMaterial.new()
	if albedo is String:
		m.albedo_texture = load(albedo)
	else:
		m.albedo_color = albedo
	if normal != "":
		m.normal_texture = load(normal)
	m.uv1_scale = Vector3(2, 2, 2)
	m.blend_height = height
	m.blend_sharpness = 0.25
	_blended.append(m)
	return m


## A view from `from` (offset from the ground at `at`) onto `at`, before and after.
func _view(name: String, at: Vector3, from: Vector3) -> void:
	for when in ["Before", "After"]:
		var cam := Camera3D.new()
		cam.name = name + when
		cam.fov = 50.0
		add_child(cam)
		cam.look_at_from_position(at + from, at + Vector3(0, 0.6, 0), Vector3.UP)
		_views.append(cam)


func _ground(p: Vector2) -> Vector3:
	return Vector3(p.x, terrain.get_height(p), p.y)


## A lumpy rock: a sphere whose vertices are pushed along their normals by noise, half in the ground.
func _rock(p: Vector2) -> void:
	var arrays := SphereMesh.new().get_mesh_arrays()
	var v: PackedVector3Array = arrays[Mesh.ARRAY_VERTEX]
	var n := FastNoiseLite.new()
	n.frequency = 1.6
	for i in v.size():
		v[i] = v[i] * (1.0 + 0.35 * n.get_noise_3dv(v[i]))
	arrays[Mesh.ARRAY_VERTEX] = v
	var st := SurfaceTool.new()
	st.create_from_arrays(arrays)
	st.generate_normals()
	st.generate_tangents()
	var rock := MeshInstance3D.new()
	rock.mesh = st.commit()
	rock.material_override = _blend("res://textures/rock_albedo.png", "res://textures/rock_normal.png", 0.8)
	rock.scale = Vector3(5, 3, 4)
	rock.position = _ground(p) + Vector3(0, 0.2, 0)
	add_child(rock)
	_view("Rock", _ground(p), Vector3(-3, 2.2, 8))


## A stone wall across a slope: its foot follows nothing, the ground fades onto it.
func _wall(p: Vector2) -> void:
	var wall := MeshInstance3D.new()
	var box := BoxMesh.new()
	box.size = Vector3(14, 7.0, 1.2)
	wall.mesh = box
	wall.material_override = _blend("res://textures/road_albedo.png", "res://textures/road_normal.png", 0.6)
	# Its foot under the ground all along, its top 3 m above the highest end.
	var hi := maxf(terrain.get_height(p + Vector2(-7, 0)), terrain.get_height(p + Vector2(7, 0)))
	wall.position = Vector3(p.x, hi - 0.5, p.y)
	add_child(wall)
	# Seen from the lower side, so no crest hides its foot.
	var side := 12.0 if terrain.get_height(p + Vector2(0, 12)) < terrain.get_height(p + Vector2(0, -12)) else -12.0
	var front := _ground(p + Vector2(-3, side))
	var up := maxf(front.y, _ground(p).y) - _ground(p).y + 4.0
	_view("Wall", _ground(p), Vector3(-3, up, side))


## A trunk on grass (and a crown that does not blend).
func _trunk(p: Vector2) -> void:
	var trunk := MeshInstance3D.new()
	var c := CylinderMesh.new()
	c.top_radius = 0.35
	c.bottom_radius = 0.55
	c.height = 7.0
	trunk.mesh = c
	trunk.material_override = _blend(Color8(105, 80, 60), "", 0.45)
	trunk.position = _ground(p) + Vector3(0, 3.2, 0)
	add_child(trunk)
	var crown := MeshInstance3D.new()
	var s := SphereMesh.new()
	s.radius = 3.0
	s.height = 5.0
	crown.mesh = s
	var green := StandardMaterial3D.new()
	green.albedo_color = Color8(60, 110, 45)
	crown.material_override = green
	crown.position = _ground(p) + Vector3(0, 7.5, 0)
	add_child(crown)
	_view("Trunk", _ground(p), Vector3(2.5, 1.4, 5.5))


func demo_views() -> Array:
	return _views


func prepare_view(cam: Camera3D) -> void:
	for m in _blended:
		m.blend_enabled = cam != null and cam.name.ends_with("After")


func view_ready() -> bool:
	return terrain.is_up_to_date()
