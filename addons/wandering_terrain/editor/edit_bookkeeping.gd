@tool
extends RefCounted
## The editor's bookkeeping of edits: the terrain resources the tools changed (written when the scene is
## saved: data in its own file, a region map's edited regions on a worker with progress), and the toolbar's
## "N unsaved regions" / "saving regions N %" label.

const ExternalData := preload("res://addons/wandering_terrain/editor/external_data.gd")

## TerrainData and TerrainRegions edited since the last save.
var _touched: Array[Resource] = []
## Region maps saving on a worker (`save_async`): `is_saving()` ends them when done.
var _saving: Array[TerrainRegions] = []
## The toolbar's label.
var label: Label


func _init() -> void:
	label = Label.new()
	label.tooltip_text = "Edited regions of this region map, written when the scene is saved"


func mark_touched(d: Resource) -> void:
	if d != null and not _touched.has(d):
		_touched.append(d)


## Writes the resources the tools changed that live in their own files (embedded data is saved with its
## scene anyway); region maps save their edited regions on a worker.
func save_external_data() -> void:
	for d in _touched:
		if not is_instance_valid(d):
			continue
		if d is TerrainRegions:
			# Region maps write only their edited regions, each file safely, on a worker thread (an
			# endless map's first save refreshes a region at every level: seconds); the toolbar shows it.
			if d.has_unsaved_changes() and not _saving.has(d):
				if d.save_async() == OK:
					_saving.append(d)
				else:
					push_error("Terrain: could not save the edited regions of %s" % d.folder)
		elif d.resource_path != "" and not d.resource_path.contains("::"):
			ExternalData.save_safely(d)
	_touched.clear()
	if not _saving.is_empty():
		_show_progress()


## Ends the region saves that are done (an error names a map that could not be saved); true while one
## still runs.
func is_saving() -> bool:
	for d in _saving.duplicate():
		var e: Error = d.finish_save() if is_instance_valid(d) else OK
		if e == ERR_BUSY:
			continue
		if e != OK:
			push_error("Terrain: could not save the edited regions of %s" % d.folder)
		_saving.erase(d)
	return not _saving.is_empty()


## Each editor frame: the save progress, or the selected map's unsaved regions.
func update_label(source: Resource) -> void:
	if is_saving():
		_show_progress()
		return
	var n: int = source.get_unsaved_region_count() if source is TerrainRegions else 0
	label.visible = n > 0
	label.text = "%d unsaved regions" % n


## Region saves finish before the editor goes (save() waits for a running save_async).
func finish() -> void:
	for d in _saving:
		if is_instance_valid(d) and d.save() != OK:
			push_error("Terrain: could not save the edited regions of %s" % d.folder)
	_saving.clear()


func _show_progress() -> void:
	var p := 0.0
	for d in _saving:
		p += maxf(d.get_save_progress(), 0.0) / _saving.size()
	label.visible = true
	label.text = "saving regions %d %%" % int(p * 100.0)
