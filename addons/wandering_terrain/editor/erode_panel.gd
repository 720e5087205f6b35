@tool
extends "res://addons/wandering_terrain/editor/heights_job_panel.gd"
## "Erode…" in the terrain toolbar: a dialog edits a TerrainErosion; the whole terrain is eroded off the
## main thread (TerrainData.erode_async: droplets, then thermal passes) with a progress bar and Cancel; the
## result is one undo step. (The ERODE brush erodes under the cursor.)

## The settings the dialog edits (kept between uses).
var settings := TerrainErosion.new()


func _describe() -> Dictionary:
	return {
		"text": "Erode…",
		"tooltip": "Erode the whole terrain with water droplets and thermal passes (off the main thread; one undo step)",
		"action": "erode",
	}


func _start_job(d: TerrainData, s: Resource) -> bool:
	return d.erode_async(s, Rect2i())


func _job_progress(d: TerrainData) -> float:
	return d.get_erosion_progress()


func _finish_job(d: TerrainData) -> bool:
	return d.finish_erosion()


func _cancel_job(d: TerrainData) -> void:
	d.cancel_erosion()


func _open() -> void:
	if _dialog == null:
		_dialog = ConfirmationDialog.new()
		_dialog.title = "Erode terrain"
		_dialog.ok_button_text = "Erode"
		var inspector := EditorInspector.new()
		inspector.custom_minimum_size = Vector2(360, 320)
		_dialog.add_child(inspector)
		inspector.edit(settings)
		_dialog.confirmed.connect(func(): start(settings))
		add_child(_dialog)
	_dialog.popup_centered()
