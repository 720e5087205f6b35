extends "res://render/clipmap_views.gd"
## TerrainNode over a map opened from region files (TerrainData.save_regions → TerrainRegions), windows
## computed on worker threads: no cracks, the finest level's drawn heights equal get_height, no popping.
## (Coarse levels draw from the stored mips, so their vertices are close to get_height, not equal: that view
## is not repeated here.) Every wait also waits until the node shows windows computed for its target.

var _regions: TerrainRegions


func _node(t: TerrainData, target: Node3D) -> TerrainNode:
	var tn := super(t, target)
	if _regions == null:
		var dir := OS.get_user_data_dir().path_join("render_regions")
		check_eq(t.save_regions(dir, 64, true), OK, "saved (replacing the last run's)")
		_regions = TerrainRegions.open(dir)
	tn.terrain_data = null
	tn.terrain_regions = _regions
	return tn


func test_regions_no_cracks_from_many_viewpoints() -> void:
	await _case_no_cracks_from_many_viewpoints()


func test_regions_finest_level_equals_get_height() -> void:
	await _case_finest_level_equals_get_height()


func test_regions_no_popping_when_levels_snap() -> void:
	await _case_no_popping_when_levels_snap()


## The REGIONS view: the edited region orange until its changes are discarded, the loaded ones around the
## target green.
func test_regions_view_shows_loaded_and_edited_regions() -> void:
	var t := _data()
	var s := _debug_scene(t, 0, 4.0)
	var vals := PackedFloat32Array()
	vals.resize(16 * 16)
	vals.fill(5.0)
	check(_regions.set_heights_region(Rect2i(200, 200, 16, 16), vals), "a region edited")
	await frames(3)
	# Regions are 64 samples: sample i covers [i, i + 1) (spacing 1); skip a unit around region borders.
	var state := func(edited: bool) -> Callable:
		return func(p: Vector2) -> int:
			var f := Vector2(fposmod(p.x, 64.0), fposmod(p.y, 64.0))
			if minf(minf(f.x, 64.0 - f.x), minf(f.y, 64.0 - f.y)) < 1.0:
				return -1
			return 2 if edited and int(p.x) / 64 == 3 and int(p.y) / 64 == 3 else 1
	var seen: Array = await _case_cells_view(s, TerrainNode.DEBUG_VIEW_REGIONS, state.call(true), "debug_view_regions")
	check(seen[2] > 20 and seen[1] > 20, "edited and loaded regions both seen (%s)" % [seen])
	_regions.discard_changes()
	await frames(2)
	seen = await _case_cells_view(s, TerrainNode.DEBUG_VIEW_REGIONS, state.call(false), "debug_view_regions_discarded")
	check(seen[2] == 0, "no edited region after discarding")
	s[0].queue_free()
