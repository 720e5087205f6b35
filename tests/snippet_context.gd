extends "res://wt_test.gd"
## Runs the docs' GDScript blocks (`cargo xtask test` writes each into res://doc_snippets/scripts/ and a
## case into res://doc_snippets/test_doc_snippets.gd; see rust/xtask/src/doc_snippets.rs) in the scene
## the docs assume: the snippet's node has a child `TerrainNode` (a 512² TerrainData, a `TerrainInstancer`
## with one box mesh and a grass layer) and a sibling `Terrain` (the same, for scripts written to sit beside
## it), a current camera, and the input action the recipes name (`dig`). A block that fails to load, or
## whose run logs an error, fails.


func _terrain(named: String) -> TerrainNode:
	var t := TerrainData.new()
	t.size = Vector2i(512, 512)
	t.generate_noise(3, 1.0 / 60.0, 4, 2.0, 0.5, 10.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.name = named
	tn.terrain_data = t
	var inst := TerrainInstancer.new()
	inst.name = "TerrainInstancer"
	var m := TerrainInstanceMesh.new()
	m.mesh = BoxMesh.new()
	inst.meshes = [m] as Array[TerrainInstanceMesh]
	inst.detail_layers = [TerrainDetailLayer.new()] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	return tn


## Loads the block's script (a parse or type error fails here) and, when `run`, instantiates it in the
## scene above, calls its `run()` if it has one, and lets 30 physics frames pass.
func run_snippet(path: String, where: String, run: bool) -> void:
	var script := load(path) as Script
	if not check(script != null and script.can_instantiate(), "%s loads" % where) or not run:
		return
	var base := script.get_instance_base_type()
	var node = ClassDB.instantiate(base)
	if not check(node is Node, "%s: a script on a node (extends %s)" % [where, base]):
		return
	# What the docs tell the reader to set up.
	if not InputMap.has_action("dig"):
		InputMap.add_action("dig")
	var holder := Node3D.new()
	tree.root.add_child(holder)
	var cam := Camera3D.new()
	cam.position = Vector3(128, 60, 128)
	holder.add_child(cam)
	cam.make_current()
	holder.add_child(_terrain("Terrain"))
	node.name = "Snippet"
	node.add_child(_terrain("TerrainNode"))
	node.set_script(script)
	holder.add_child(node)
	if node.has_method("run"):
		await node.run()
	# Time for what a block starts in _ready (a bake reaching the navigation map, say): half a second
	# of physics frames.
	for i in 30:
		await tree.physics_frame
	holder.queue_free()
	await tree.process_frame
