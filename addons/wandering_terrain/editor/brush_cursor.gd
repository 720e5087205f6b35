@tool
extends RefCounted
## What the editor shows of the brush on the ground: a ring (the size, and the falloff's hardness inside)
## and, where the renderer draws decals, the brush projected onto the ground (its falloff and image as one
## dab weighs them, `TerrainBrush.get_stamp`, turned with the image); and the holes overlay while a hole
## tool is chosen. Internal children of the terrain, never saved.

var cursor: MeshInstance3D
var decal: Decal
## What the decal's texture was made from.
var _stamp_key := []
## The terrain material whose hole overlay is on: with a hole tool, holes are tinted instead of cut, so
## they can be seen and removed.
var _overlay_material: ShaderMaterial


## Shows the brush at world point `hit` on `terrain` (hidden when `hit` is NaN).
func show(terrain: Node3D, brush: TerrainBrush, hit: Vector3) -> void:
	if not is_finite(hit.x):
		if cursor:
			cursor.visible = false
		if decal:
			decal.visible = false
		return
	if cursor == null:
		cursor = MeshInstance3D.new()
		cursor.mesh = _ring_mesh(brush)
		cursor.cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_OFF
		var m := StandardMaterial3D.new()
		m.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
		m.albedo_color = Color(1.0, 0.85, 0.2)
		m.no_depth_test = true
		cursor.material_override = m
		# Not part of the scene: an internal child, never saved.
		terrain.add_child(cursor, false, Node.INTERNAL_MODE_BACK)
	if not is_equal_approx(cursor.get_meta("hardness", -1.0), brush.hardness):
		cursor.mesh = _ring_mesh(brush)
		cursor.set_meta("hardness", brush.hardness)
	cursor.visible = true
	cursor.global_position = hit + Vector3(0, 0.05, 0)
	cursor.scale = Vector3.ONE * brush.size * 0.5
	_show_decal(terrain, brush, hit)


## The decal at `hit`, the brush's world size (a TerrainNode's scale included), its texture remade when the
## brush's shape changed.
func _show_decal(terrain: Node3D, brush: TerrainBrush, hit: Vector3) -> void:
	if decal == null:
		decal = Decal.new()
		decal.modulate = Color(1.0, 0.85, 0.2)
		decal.albedo_mix = 0.6
		decal.normal_fade = 0.0
		terrain.add_child(decal, false, Node.INTERNAL_MODE_BACK)
	var key := [brush.hardness, brush.image, brush.image_rotation]
	# A falloff curve edited in place is the same object: its shape is part of the key.
	if brush.falloff:
		for i in 9:
			key.append(brush.falloff.sample(i / 8.0))
	if key != _stamp_key:
		_stamp_key = key
		decal.texture_albedo = ImageTexture.create_from_image(brush.get_stamp(64))
	# World units per terrain unit (a TerrainNode's scale; 1 for a WanderingTerrain).
	var s: Vector3 = Vector3.ONE / (terrain.to_terrain_position(hit + Vector3.ONE) - terrain.to_terrain_position(hit))
	var side := brush.size * Vector2(s.x, s.z)
	decal.size = Vector3(side.x, maxf(side.x, side.y), side.y)
	decal.global_transform = Transform3D(Basis.IDENTITY, hit)
	decal.visible = true


## A unit circle of lines (scaled to the brush radius), with an inner circle at the falloff's hardness.
static func _ring_mesh(brush: TerrainBrush) -> ImmediateMesh:
	var m := ImmediateMesh.new()
	for r in [1.0, maxf(brush.hardness, 0.05)]:
		m.surface_begin(Mesh.PRIMITIVE_LINE_STRIP)
		for i in 65:
			var a := TAU * i / 64.0
			m.surface_add_vertex(Vector3(cos(a) * r, 0, sin(a) * r))
		m.surface_end()
	return m


func drop() -> void:
	if cursor and is_instance_valid(cursor):
		cursor.queue_free()
	cursor = null
	if decal and is_instance_valid(decal):
		decal.queue_free()
	decal = null
	_stamp_key = []


## Shows holes on `material` (the selected terrain's, while a hole tool is chosen; null: none).
func show_holes_on(material: ShaderMaterial) -> void:
	if material == _overlay_material:
		return
	hide_holes()
	_overlay_material = material
	if material:
		material.set_shader_parameter("show_holes", true)


func hide_holes() -> void:
	if _overlay_material and is_instance_valid(_overlay_material):
		_overlay_material.set_shader_parameter("show_holes", false)
	_overlay_material = null
