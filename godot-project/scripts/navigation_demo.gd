@tool
extends Node3D
## Navigation on an endless world: the standard NavigationRegion3D bakes the terrain (the extension's
## source-geometry parser adds its faces) in a 160 m window around the camera, on a thread, again whenever
## the camera has moved 40 m from the last window's centre. The baked polygons are drawn in translucent
## blue, and a path between two points of the window in red.
##
## The recipe for any endless or region-map world: put the terrain in a group, bake the NavigationMesh from
## that group (`geometry_source_geometry_mode` = groups explicit) with `filter_baking_aabb` set to a box
## around the player, and call `bake_navigation_mesh(true)`: the faces are parsed on the main thread (a
## few milliseconds for this window), the bake runs on a worker thread.

const WINDOW := 160.0
const REBAKE_DISTANCE := 40.0

@onready var terrain: TerrainNode = $TerrainNode
@onready var region: NavigationRegion3D = $NavigationRegion3D
@onready var fly: Camera3D = $FlyCamera
var _centre := Vector2(INF, INF)
var _baked := 0
var _overlay: MeshInstance3D
var _path: MeshInstance3D


func _ready() -> void:
	if Engine.is_editor_hint():
		return
	region.bake_finished.connect(_on_baked)
	fly.position = Vector3(0, terrain.get_height(Vector2.ZERO) + 3.0, 0)


func _process(_delta: float) -> void:
	if Engine.is_editor_hint():
		return
	var cam := get_viewport().get_camera_3d()
	var p := Vector2(cam.global_position.x, cam.global_position.z) if cam else Vector2.ZERO
	if p.distance_to(_centre) > REBAKE_DISTANCE and not region.is_baking() and terrain.is_up_to_date():
		_centre = p
		var y := terrain.get_height(p)
		region.navigation_mesh.filter_baking_aabb = AABB(Vector3(p.x - WINDOW / 2, y - 300.0, p.y - WINDOW / 2), Vector3(WINDOW, 600.0, WINDOW))
		region.bake_navigation_mesh(true)


func _on_baked() -> void:
	_baked += 1
	_draw_polygons()
	# A path across the window, once the map has the new polygons (a few physics steps later).
	var a := Vector3(_centre.x - WINDOW * 0.35, 0, _centre.y - WINDOW * 0.3)
	var b := Vector3(_centre.x + WINDOW * 0.35, 0, _centre.y + WINDOW * 0.3)
	a.y = terrain.get_height(Vector2(a.x, a.z))
	b.y = terrain.get_height(Vector2(b.x, b.z))
	var path := PackedVector3Array()
	for i in 60:
		await get_tree().physics_frame
		path = NavigationServer3D.map_get_path(get_world_3d().navigation_map, a, b, true)
		if path.size() > 1:
			break
	_draw_path(path)


## The baked polygons as a translucent overlay, 15 cm above them.
func _draw_polygons() -> void:
	var m := region.navigation_mesh
	var st := SurfaceTool.new()
	st.begin(Mesh.PRIMITIVE_TRIANGLES)
	var verts := m.get_vertices()
	for i in m.get_polygon_count():
		var poly := m.get_polygon(i)
		for k in range(1, poly.size() - 1):
			for idx in [poly[0], poly[k], poly[k + 1]]:
				st.add_vertex(verts[idx] + Vector3(0, 0.15, 0))
	if _overlay == null:
		_overlay = MeshInstance3D.new()
		var mat := StandardMaterial3D.new()
		mat.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
		mat.transparency = BaseMaterial3D.TRANSPARENCY_ALPHA
		mat.albedo_color = Color(0.2, 0.5, 1.0, 0.45)
		mat.cull_mode = BaseMaterial3D.CULL_DISABLED
		_overlay.material_override = mat
		add_child(_overlay)
	_overlay.mesh = st.commit()


## The path as a chain of red boxes 0.4 m high.
func _draw_path(path: PackedVector3Array) -> void:
	var st := SurfaceTool.new()
	st.begin(Mesh.PRIMITIVE_TRIANGLES)
	for i in path.size() - 1:
		var a := path[i] + Vector3(0, 0.3, 0)
		var b := path[i + 1] + Vector3(0, 0.3, 0)
		var side := (b - a).cross(Vector3.UP).normalized() * 0.5
		for v in [a - side, a + side, b + side, a - side, b + side, b - side]:
			st.add_vertex(v)
	if _path == null:
		_path = MeshInstance3D.new()
		var mat := StandardMaterial3D.new()
		mat.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
		mat.albedo_color = Color(0.9, 0.1, 0.1)
		mat.cull_mode = BaseMaterial3D.CULL_DISABLED
		_path.material_override = mat
		add_child(_path)
	_path.mesh = st.commit() if path.size() > 1 else null


## One view for the demo renderer: high above the window around it, looking down at the baked polygons.
func demo_views() -> Array:
	var cam := Camera3D.new()
	cam.name = "Baked"
	cam.far = 6000.0
	add_child(cam)
	cam.position = Vector3(0, terrain.get_height(Vector2.ZERO) + 130.0, 0)
	cam.rotation_degrees = Vector3(-84, 0, 0)
	return [cam]


func prepare_view(cam: Camera3D) -> void:
	if cam:
		cam.make_current()


## Ready when the window around the view has been baked and drawn.
func view_ready() -> bool:
	return _baked > 0 and _path != null and terrain.is_up_to_date()
