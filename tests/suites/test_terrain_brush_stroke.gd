extends "res://wt_test.gd"
## TerrainBrushStroke from GDScript: a stroke on either terrain node equals the same dabs through
## TerrainData.apply_brush at terrain positions, undo and redo restore bit for bit, only what changed is
## kept, and bad use is refused by name.


func _data() -> TerrainData:
	var t := TerrainData.new()
	t.size = Vector2i(96, 80)
	t.generate_noise(5, 0.05, 3, 2.0, 0.5, 6.0, -1e9, TerrainData.NOISE_PERLIN)
	return t


func _brush(tool: int) -> TerrainBrush:
	var b := TerrainBrush.new()
	b.tool = tool
	b.size = 9.0
	b.strength = 3.0
	return b


## World positions of a stroke across the node (its transform applied to terrain positions).
func _path(node: Node3D, terrain_xz: Array) -> Array[Vector3]:
	var out: Array[Vector3] = []
	for p: Vector2 in terrain_xz:
		out.append(node.global_transform * Vector3(p.x, 0, p.y))
	return out


const PATH := [Vector2(20.3, 30.1), Vector2(26.8, 33.4), Vector2(33.2, 36.9), Vector2(60.5, 40.0)]


## On a moved and scaled TerrainNode: the stroke does what apply_brush does at the terrain positions;
## undo gives back the heights bit for bit, redo the stroke's; the undo data is what it touched.
func test_stroke_on_a_terrain_node_equals_apply_brush_and_undoes_exactly() -> void:
	var t := _data()
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.position = Vector3(-40, 3, 25)
	tn.scale = Vector3(2, 1.5, 2)
	tree.root.add_child(tn)
	var reference := t.duplicate(true) as TerrainData
	var before := t.heights
	var b := _brush(TerrainBrush.RAISE)
	var s := TerrainBrushStroke.begin(tn, b)
	check(s != null, "a stroke begins on a TerrainNode")
	if s == null:
		tn.queue_free()
		return
	check_eq(s.get_tool(), TerrainBrush.RAISE, "its tool")
	for w in _path(tn, PATH):
		var r := s.dab(w, 0.1)
		check(r.has_area(), "the dab at %s changed samples" % w)
	for w in _path(tn, PATH):
		var p := tn.to_terrain_position(w)
		check(Vector2(p.x, p.z).distance_to(PATH[_path(tn, PATH).find(w)]) < 1e-4, "to_terrain_position undoes the node's transform")
		reference.apply_brush(b, Vector2(p.x, p.z), 0.1)
	var after := t.heights
	check(after == reference.heights, "the same heights as apply_brush at the terrain positions")
	check(s.finish(), "the stroke changed something")
	# Four chunks of 32² around the first three dabs and two around the last, before and after.
	check(s.get_byte_size() > 0 and s.get_byte_size() <= 8 * 32 * 32 * 4 * 2, "undo data %d bytes" % s.get_byte_size())
	s.undo()
	check(t.heights == before, "undo restores every sample")
	s.redo()
	check(t.heights == after, "redo gives the stroke's heights")
	expect_error("TerrainBrushStroke.dab: the stroke is finished")
	check(not s.dab(_path(tn, PATH)[0], 0.1).has_area(), "a finished stroke takes no dab")
	check(t.heights == after, "and changes nothing")
	tn.queue_free()


## A paint stroke keeps control values; one that changes nothing needs no undo step.
func test_paint_and_empty_strokes() -> void:
	var t := _data()
	var wt := WanderingTerrain.new()
	wt.terrain_data = t
	tree.root.add_child(wt)
	var b := _brush(TerrainBrush.PAINT)
	b.layer = 2
	var before := t.get_control_region(t.get_bounds())
	var s := TerrainBrushStroke.begin(wt, b)
	check(s != null, "a stroke begins on a WanderingTerrain")
	if s == null:
		wt.queue_free()
		return
	for w in _path(wt, PATH):
		s.dab(w, 0.2)
	var painted := t.get_control_region(t.get_bounds())
	check(painted != before, "painted")
	check(s.finish(), "changed")
	s.undo()
	check(t.get_control_region(t.get_bounds()) == before, "undo removes the paint")
	s.redo()
	check(t.get_control_region(t.get_bounds()) == painted, "redo paints again")
	# Off the map: nothing to keep.
	var off := TerrainBrushStroke.begin(wt, b)
	off.dab(Vector3(-500, 0, -500), 0.2)
	check(not off.finish(), "a stroke off the map changes nothing")
	check_eq(off.get_byte_size(), 0, "and keeps nothing")
	wt.queue_free()


## A region map: the stroke edits the regions, and undo restores them.
func test_stroke_on_a_region_map() -> void:
	var dir := OS.get_user_data_dir().path_join("stroke_regions")
	check_eq(_data().save_regions(dir, 32, true), OK, "a region map")
	var r := TerrainRegions.open(dir)
	var tn := TerrainNode.new()
	tn.terrain_regions = r
	tree.root.add_child(tn)
	var all := r.get_bounds()
	var before := r.get_heights_region(all)
	var s := TerrainBrushStroke.begin(tn, _brush(TerrainBrush.LOWER))
	for w in _path(tn, PATH):
		s.dab(w, 0.1)
	var after := r.get_heights_region(all)
	check(after != before, "the stroke lowered the region map")
	check(s.finish(), "changed")
	s.undo()
	check(r.get_heights_region(all) == before, "undo restores the regions")
	s.redo()
	check(r.get_heights_region(all) == after, "redo")
	tn.queue_free()


func test_bad_use_is_refused_by_name() -> void:
	var b := _brush(TerrainBrush.RAISE)
	var plain := Node3D.new()
	expect_error("TerrainBrushStroke.begin: terrain must be a TerrainNode or WanderingTerrain")
	check(TerrainBrushStroke.begin(plain, b) == null, "not a terrain")
	plain.free()
	expect_error("TerrainBrushStroke.begin: terrain must be a TerrainNode or WanderingTerrain")
	check(TerrainBrushStroke.begin(null, b) == null, "null terrain")
	var tn := TerrainNode.new()
	expect_error("TerrainBrushStroke.begin: the TerrainNode has no terrain_data or terrain_regions")
	check(TerrainBrushStroke.begin(tn, b) == null, "nothing to edit")
	tn.terrain_data = _data()
	expect_error("TerrainBrushStroke.begin: brush must be a TerrainBrush")
	check(TerrainBrushStroke.begin(tn, null) == null, "no brush")
	# Instance and detail brushes paint the terrain's TerrainInstancer: none here.
	expect_error("TerrainBrushStroke.begin: instance and detail brushes paint the TerrainNode's TerrainInstancer: add one")
	check(TerrainBrushStroke.begin(tn, _brush(TerrainBrush.INSTANCE_ADD)) == null, "instance brushes need an instancer")
	var s := TerrainBrushStroke.begin(tn, b)
	expect_error("TerrainBrushStroke: finish the stroke before undo or redo")
	s.undo()
	tn.free()


## Instance and detail brushes go through the same stroke: the instancer's cells (or the detail density) a
## stroke painted come back bit for bit on undo, and the stroke's on redo; a stroke that changed nothing
## needs no undo step.
func test_instance_and_detail_strokes_undo_and_redo_exactly() -> void:
	var tn := TerrainNode.new()
	tn.terrain_data = _data()
	var inst := TerrainInstancer.new()
	var m := TerrainInstanceMesh.new()
	m.mesh = BoxMesh.new()
	m.density = 0.2
	inst.meshes = [m] as Array[TerrainInstanceMesh]
	var grass := TerrainDetailLayer.new()
	inst.detail_layers = [grass] as Array[TerrainDetailLayer]
	tn.add_child(inst)
	tree.root.add_child(tn)
	inst.scatter(0, Rect2(0, 0, 96, 80), 40, 3)
	var area := Rect2(0, 0, 96, 80)
	var keys := inst.get_cell_keys(area)
	var before := inst.get_cells_data(keys)
	var b := _brush(TerrainBrush.INSTANCE_ADD)
	b.size = 30.0
	b.hardness = 1.0
	var s := TerrainBrushStroke.begin(tn, b)
	check(s != null, "an instance stroke begins on a terrain with an instancer")
	for p in _path(tn, PATH):
		s.dab(p, 0.5)
	check(s.finish(), "the stroke added instances")
	var painted := inst.get_cells_data(keys)
	check(inst.get_instance_count(0) > 40, "more instances after the stroke: %d" % inst.get_instance_count(0))
	check(s.get_byte_size() > 0 and s.get_tool() == TerrainBrush.INSTANCE_ADD, "undo data kept, tool %d" % s.get_tool())
	s.undo()
	check(inst.get_cells_data(keys) == before and inst.get_instance_count(0) == 40, "undo gives back the cells bit for bit")
	s.redo()
	check(inst.get_cells_data(keys) == painted, "redo gives back the stroke's cells")
	# A stroke far off the instances that erases nothing changes nothing.
	b.tool = TerrainBrush.INSTANCE_REMOVE
	var none := TerrainBrushStroke.begin(tn, b)
	none.dab(tn.global_transform * Vector3(500, 0, 500), 0.5)
	check(not none.finish(), "an erase where nothing stands is no undo step")
	# Detail density: the painted density map before and after.
	b.tool = TerrainBrush.DETAIL_REMOVE
	var d0 := inst.instances.detail_density
	var ds := TerrainBrushStroke.begin(tn, b)
	for p in _path(tn, PATH):
		ds.dab(p, 0.5)
	check(ds.finish(), "the detail stroke painted the density")
	var d1 := inst.instances.detail_density
	check(d1 != d0, "the density changed")
	ds.undo()
	check(inst.instances.detail_density == d0, "undo gives back the density")
	ds.redo()
	check(inst.instances.detail_density == d1, "redo gives back the stroke's density")
	tn.queue_free()

