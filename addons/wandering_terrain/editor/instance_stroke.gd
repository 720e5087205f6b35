@tool
extends RefCounted
## One instance-brush stroke's undo data: the instancer's cells it touched, before and after. A cell is
## saved the first time a dab reaches it, before the dab changes it, so a stroke keeps only the cells it
## painted over. A detail-density stroke keeps the painted density before and after (sparse: only painted
## tiles are stored).

var instancer: TerrainInstancer
var tool: int
## Vector2i cell -> {before, after} (the cell's instances in TerrainInstances' byte format).
var cells := {}
## DETAIL_ADD / DETAIL_REMOVE: {before, after} of TerrainInstances.detail_density.
var density := {}


func _init(target: TerrainInstancer, brush_tool: int) -> void:
	instancer = target
	tool = brush_tool
	if _is_detail():
		density["before"] = instancer.instances.detail_density if instancer.instances else PackedByteArray()


func _is_detail() -> bool:
	return tool == TerrainBrush.DETAIL_ADD or tool == TerrainBrush.DETAIL_REMOVE


## Saves the cells a dab of `size` (world units) at world X/Z `center` can touch.
func before_dab(center: Vector2, size: float) -> void:
	if _is_detail():
		return
	var r := size * 0.5
	for key: Vector2i in instancer.get_cell_keys(Rect2(center - Vector2(r, r), Vector2(size, size))):
		if not cells.has(key):
			cells[key] = {"before": instancer.get_cells_data([key] as Array[Vector2i])}


## Records the state after the stroke; cells it did not change are dropped.
func finish() -> void:
	if _is_detail():
		density["after"] = instancer.instances.detail_density
		if density["after"] == density["before"]:
			density.clear()
		return
	for key: Vector2i in cells.keys():
		var c: Dictionary = cells[key]
		c["after"] = instancer.get_cells_data([key] as Array[Vector2i])
		if c["after"] == c["before"]:
			cells.erase(key)


func is_empty() -> bool:
	return cells.is_empty() and density.is_empty()


## Writes every cell's "before" or "after" state (undo / redo).
func apply(which: String) -> void:
	if not density.is_empty():
		instancer.instances.detail_density = density[which]
		return
	for key: Vector2i in cells:
		instancer.set_cells_data([key] as Array[Vector2i], cells[key][which])
