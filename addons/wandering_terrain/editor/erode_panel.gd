@tool
extends HBoxContainer
## "Erode…" in the terrain toolbar: a dialog edits a TerrainErosion; the whole terrain is eroded off the
## main thread (TerrainData.erode_async: droplets, then thermal passes) with a progress bar and Cancel, so
## the editor keeps running; the result is one undo step. (The ERODE brush erodes under the cursor.)

## The settings the dialog edits (kept between uses).
var settings := TerrainErosion.new()
## Emitted when eroded heights were installed (the plugin saves external data files with the scene).
signal eroded(data: TerrainData)

## Set by the plugin: the terrain node to erode (its scene's history gets the undo step).
var context: Node
## The TerrainData being eroded (taken from `context` when a run starts).
var data: TerrainData
var undo_redo: EditorUndoRedoManager
var _before := PackedFloat32Array()
var _cancelled := false
var _button: Button
var _bar: ProgressBar
var _cancel: Button
var _dialog: ConfirmationDialog


func _ready() -> void:
	_button = Button.new()
	_button.text = "Erode…"
	_button.tooltip_text = "Erode the whole terrain with water droplets and thermal passes (off the main thread; one undo step)"
	_button.pressed.connect(_open)
	add_child(_button)
	_bar = ProgressBar.new()
	_bar.custom_minimum_size.x = 120
	_bar.max_value = 1.0
	_bar.step = 0.001
	_bar.hide()
	add_child(_bar)
	_cancel = Button.new()
	_cancel.text = "Cancel"
	_cancel.pressed.connect(cancel)
	_cancel.hide()
	add_child(_cancel)


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


## Starts eroding `data` (also for scripts and tests). False when one runs or the settings fail.
func start(s: TerrainErosion) -> bool:
	if running():
		return false
	data = context.terrain_data if context and is_instance_valid(context) else null
	if data == null:
		push_warning("Terrain erode: the selected node has no terrain_data; give it a TerrainData first.")
		return false
	_before = data.heights
	_cancelled = false
	if not data.erode_async(s, Rect2i()):
		return false
	_bar.value = 0.0
	_bar.show()
	_cancel.show()
	_button.disabled = true
	return true


func _exit_tree() -> void:
	# Nobody would claim an abandoned run: stop it and collect it now.
	if running():
		data.cancel_erosion()
		while not data.finish_erosion():
			OS.delay_msec(1)


func running() -> bool:
	return data != null and data.get_erosion_progress() >= 0.0


func cancel() -> void:
	if running():
		_cancelled = true
		data.cancel_erosion()


func _process(_delta: float) -> void:
	if not running():
		return
	_bar.value = data.get_erosion_progress()
	if not data.finish_erosion():
		return
	_bar.hide()
	_cancel.hide()
	_button.disabled = false
	if _cancelled or undo_redo == null:
		_before = PackedFloat32Array()
		return
	undo_redo.create_action("Terrain: erode", UndoRedo.MERGE_DISABLE, context)
	undo_redo.add_do_property(data, "heights", data.heights)
	undo_redo.add_undo_property(data, "heights", _before)
	undo_redo.commit_action(false)
	eroded.emit(data)
	_before = PackedFloat32Array()
