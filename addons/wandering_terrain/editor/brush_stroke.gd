@tool
extends RefCounted
## One brush stroke's undo data: the terrain it touched, in 32 x 32 chunks, before and after. A chunk is
## saved the first time a dab reaches it, before the dab changes it, so the stroke stores about twice the
## data of the area it touched and nothing else. `data` is a TerrainData or a TerrainRegions (the same
## region calls).

const CHUNK := 32

var data: Resource
var tool: int
## Whether the tool edits the control map (holes, paint) rather than heights (the core's tool classes).
var control: bool
## Vector2i chunk -> {rect, before, after} (heights, or control values for the hole and paint tools).
var chunks := {}


func _init(terrain_data: Resource, brush_tool: int) -> void:
	data = terrain_data
	tool = brush_tool
	control = TerrainBrush.tool_edits_control(brush_tool)


func _read(r: Rect2i) -> Variant:
	return data.get_control_region(r) if control else data.get_heights_region(r)


## Saves the chunks one dab of `brush` at terrain X/Z `center` can touch (its footprint from the core:
## `TerrainBrush.get_dab_rect`).
func before_dab(center: Vector2, brush: TerrainBrush) -> void:
	var all: Rect2i = data.get_bounds()
	var r := brush.get_dab_rect(center, data.get_spacing(), all)
	if not r.has_area():
		return
	var hi := r.end - Vector2i.ONE
	for cz in range(floori(r.position.y / float(CHUNK)), floori(hi.y / float(CHUNK)) + 1):
		for cx in range(floori(r.position.x / float(CHUNK)), floori(hi.x / float(CHUNK)) + 1):
			var key := Vector2i(cx, cz)
			if chunks.has(key):
				continue
			var c := Rect2i(cx * CHUNK, cz * CHUNK, CHUNK, CHUNK).intersection(all)
			if c.has_area():
				chunks[key] = {"rect": c, "before": _read(c)}


## Records the state after the stroke; chunks it did not change are dropped.
func finish() -> void:
	for key in chunks.keys():
		var c: Dictionary = chunks[key]
		c["after"] = _read(c["rect"])
		if c["after"] == c["before"]:
			chunks.erase(key)


func is_empty() -> bool:
	return chunks.is_empty()


## Writes every chunk's "before" or "after" state (undo / redo).
func apply(which: String) -> void:
	for c in chunks.values():
		if control:
			data.set_control_region(c["rect"], c[which])
		else:
			data.set_heights_region(c["rect"], c[which])


## Bytes the stroke keeps for undo and redo.
func byte_size() -> int:
	var n := 0
	for c in chunks.values():
		n += (c["before"].size() + c["after"].size()) * 4
	return n
