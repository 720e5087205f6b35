extends Node3D
## Several WanderingMesh LOD settings side by side, in wireframe, each labelled with its parameters.

## [start_subdivision, lods] per mesh; start_size is chosen so every mesh is `width` wide.
@export var settings: Array = [
	[2, []],
	[3, [1]],
	[4, [3, 1, 2]],
	[4, [1, 1, 1]],
	[5, [2, 2, 2, 2]],
]
@export var width := 3.0
@export var spacing := 0.6


func _ready() -> void:
	var mat := ShaderMaterial.new()
	mat.shader = preload("res://materials/wireframe.gdshader")
	var x := 0.0
	var widths: Array[float] = []
	var meshes: Array[WanderingMesh] = []
	for s in settings:
		var m := WanderingMesh.new()
		var used: Array = s[1].slice(0, s[0] - 1)
		var rings := 0
		for l in used:
			rings += l
		m.start_size = width / (1 + 2 * rings)
		m.start_subdivision = s[0]
		m.lods = PackedInt32Array(s[1])
		m.height_min = 0.0
		m.height_max = 0.0
		var v: PackedVector3Array = m.get_mesh_arrays()[Mesh.ARRAY_VERTEX]
		var half := 0.0
		for p in v:
			half = maxf(half, p.x)
		meshes.append(m)
		widths.append(2.0 * half)
	var total := spacing * (widths.size() - 1)
	for w in widths:
		total += w
	x = -total / 2.0
	for i in meshes.size():
		var mi := MeshInstance3D.new()
		mi.mesh = meshes[i]
		mi.material_override = mat
		mi.position = Vector3(x + widths[i] / 2.0, 0, 0)
		add_child(mi)
		var label := Label3D.new()
		var s = settings[i]
		label.text = "%d, %s\n%d vertices" % [s[0], str(s[1]), meshes[i].get_vertex_count()]
		label.font_size = 48
		label.pixel_size = 0.004
		label.modulate = Color(0.1, 0.1, 0.3)
		label.outline_size = 0
		label.rotation_degrees.x = -90.0
		label.position = mi.position + Vector3(0, 0.01, -0.5)
		add_child(label)
		x += widths[i] + spacing
