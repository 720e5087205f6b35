extends RefCounted
## WanderingTerrain's per-frame work (placing the mesh for a moving camera: snapping, instance transform,
## two shader uniforms), vs the same placement written in GDScript as document 000 does it, in the same run.

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func run(quick: bool) -> void:
	var root := Node3D.new()
	var data := TerrainData.new()
	data.size = Vector2i(256, 256)
	var wt := WanderingTerrain.new()
	wt.terrain_data = data
	root.add_child(wt)
	tree.root.add_child(root)
	var n := 2000 if quick else 20000
	var xf := []
	for i in n:
		xf.append(Transform3D(Basis(Vector3.UP, i * 0.001), Vector3(10.0 + i * 0.037, 5.0, 20.0 + i * 0.021)))
	var ours := Util.median_usec(func():
		for t: Transform3D in xf:
			wt.place_for(t)
		, 5)
	# Document 000's per-frame placement in GDScript on a MeshInstance3D with a ShaderMaterial.
	var mi := MeshInstance3D.new()
	var mat := ShaderMaterial.new()
	mat.shader = load("res://addons/wandering_terrain/shaders/wandering_terrain.gdshader")
	mi.material_override = mat
	root.add_child(mi)
	var doc := Util.median_usec(func():
		for t: Transform3D in xf:
			var shader := mi.material_override as ShaderMaterial
			mi.position = Vector3(t.origin.x, 0.0, t.origin.z)
			shader.set_shader_parameter("translation", Vector2(mi.position.x - 0.5, mi.position.z - 0.5))
			shader.set_shader_parameter("rotation", PI - t.basis.get_euler().y)
		, 5)
	print("bench wandering_terrain place_for: %.2f us per frame (moving camera); document 000's GDScript placement %.2f us; ratio %.2f (goal < 50 us)" % [
		ours / n, doc / n, ours / doc])
	root.queue_free()
