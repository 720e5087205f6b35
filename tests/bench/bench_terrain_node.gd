extends RefCounted
## TerrainNode's per-frame work: laying out the rings for a moving target (only pieces whose level snapped
## are moved) and setting the target uniform. Reference in the same run: one GDScript `set_shader_parameter`
## plus one `Node3D.position` assignment per frame.

const Util := preload("res://bench/timing.gd")

var tree: SceneTree


func run(quick: bool) -> void:
	var root := Node3D.new()
	tree.root.add_child(root)
	var data := TerrainData.new()
	data.size = Vector2i(256, 256)
	var tn := TerrainNode.new()
	tn.terrain_data = data
	root.add_child(tn)
	var n := 2000 if quick else 20000
	var pts := PackedVector3Array()
	for i in n:
		pts.append(Vector3(i * 0.37, 0.0, i * 0.21))
	var ours := Util.median_usec(func():
		for p in pts:
			tn.place_at(p)
		, 5)
	var mi := MeshInstance3D.new()
	var mat := ShaderMaterial.new()
	root.add_child(mi)
	var ref := Util.median_usec(func():
		for p in pts:
			mi.position = p
			mat.set_shader_parameter("clipmap_target", Vector2(p.x, p.z))
		, 5)
	print("bench terrain_node place_at: %.2f us per frame (target moving 0.43 units per frame, %d levels); reference (1 position + 1 uniform from GDScript) %.2f us; ratio %.2f (goal < 50 us)" % [
		ours / n, tn.levels, ref / n, ours / ref])
	root.queue_free()
