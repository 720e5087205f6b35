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
		check(t.save_regions(dir, 64), "saved")
		_regions = TerrainRegions.open(dir)
	tn.terrain_data = null
	tn.terrain_regions = _regions
	_streamed = true
	return tn


func test_regions_no_cracks_from_many_viewpoints() -> void:
	await _case_no_cracks_from_many_viewpoints()


func test_regions_finest_level_equals_get_height() -> void:
	await _case_finest_level_equals_get_height()


func test_regions_no_popping_when_levels_snap() -> void:
	await _case_no_popping_when_levels_snap()
