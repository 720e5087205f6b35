class_name Meadow
## Grass, flowers and pebbles for the demo worlds, made by code (no downloaded assets): TerrainDetailLayers
## grown by rules around the camera — nothing is stored, so they cover endless worlds too. Grass and flowers
## grow on the grass layer of the open world's TerrainMaterial (layer 1), pebbles on sand and rock.

const FLOWER_SHADER := preload("res://materials/flower.gdshader")


## A stem and a small four-petalled head (UV.y: 1 at the root, 0 at the head, as the detail include expects).
static func flower_mesh() -> ArrayMesh:
	var st := SurfaceTool.new()
	st.begin(Mesh.PRIMITIVE_TRIANGLES)
	st.set_normal(Vector3.UP)
	var top := Vector3(0.02, 0.45, 0.0)
	for v in [[Vector3(-0.012, 0, 0), 1.0], [Vector3(0.012, 0, 0), 1.0], [top, 0.3]]:
		st.set_uv(Vector2(0.5, v[1]))
		st.add_vertex(v[0])
	for k in 4:
		var a := k * PI / 2.0
		var d := Vector3(cos(a), 0.25, sin(a)) * 0.07
		var s := Vector3(-sin(a), 0, cos(a)) * 0.035
		for p in [top, top + d + s, top + d - s]:
			st.set_uv(Vector2(0.5, 0.0))
			st.add_vertex(p)
	return st.commit()


static func pebble_mesh() -> Mesh:
	var s := SphereMesh.new()
	s.radius = 0.12
	s.height = 0.14
	s.radial_segments = 6
	s.rings = 3
	var m := StandardMaterial3D.new()
	m.albedo_color = Color(0.5, 0.48, 0.45)
	m.roughness = 1.0
	s.material = m
	return s


static func _layer(density: float, radius: float, seed: int, layers: PackedInt32Array) -> TerrainDetailLayer:
	var l := TerrainDetailLayer.new()
	l.density = density
	l.view_radius = radius
	l.fade_distance = radius * 0.25
	l.seed = seed
	l.layers = layers
	return l


static func layers() -> Array[TerrainDetailLayer]:
	var grass := _layer(6.0, 70.0, 1, PackedInt32Array([1]))
	grass.slope_max = 35.0
	var out: Array[TerrainDetailLayer] = [grass]
	for c in [[Color(0.95, 0.85, 0.2), 2], [Color(0.95, 0.95, 1.0), 3], [Color(0.75, 0.35, 0.9), 4]]:
		var f := _layer(0.12, 50.0, c[1], PackedInt32Array([1]))
		f.mesh = flower_mesh()
		var mat := ShaderMaterial.new()
		mat.shader = FLOWER_SHADER
		mat.set_shader_parameter("petal_color", c[0])
		f.material = mat
		f.slope_max = 25.0
		f.align_to_normal = 0.2
		out.append(f)
	var pebbles := _layer(0.4, 40.0, 7, PackedInt32Array([0, 3]))
	pebbles.mesh = pebble_mesh()
	pebbles.align_to_normal = 1.0
	pebbles.height_offset = -0.03
	pebbles.scale_min = 0.5
	pebbles.scale_max = 2.0
	pebbles.slope_max = 60.0
	out.append(pebbles)
	return out


## A TerrainInstancer growing the meadow under `terrain` (a TerrainNode or WanderingTerrain).
static func grow(terrain: Node3D) -> TerrainInstancer:
	var inst := TerrainInstancer.new()
	inst.name = "Meadow"
	inst.detail_layers = layers()
	terrain.add_child(inst)
	return inst
