@tool
extends HBoxContainer
## A toolbar button that runs a heights job of a TerrainData off the main thread (generate, erode): its
## progress bar and Cancel, and one undo step holding the heights before and after. Subclasses say how the
## job starts, reports and finishes, and open their own settings dialog.

## Emitted when new heights were installed (the plugin saves external data files with the scene).
signal finished(data: TerrainData)

## Set by the plugin: the terrain node to change (its scene's history gets the undo step).
var context: Node
## The TerrainData the job changes (taken from `context` when it starts).
var data: TerrainData
var undo_redo: EditorUndoRedoManager
var _before := PackedFloat32Array()
var _cancelled := false
var _button: Button
var _bar: ProgressBar
var _cancel: Button
var _dialog: ConfirmationDialog


## The button's text and tooltip, and the undo step's name.
func _describe() -> Dictionary:
	return {"text": "", "tooltip": "", "action": ""}


## Starts the job on `d` with `settings`; false (with an error from the TerrainData) when it cannot.
func _start_job(_d: TerrainData, _settings: Resource) -> bool:
	return false


## 0..1 while the job runs; -1 when none runs.
func _job_progress(_d: TerrainData) -> float:
	return -1.0


## Installs a finished job (true) or returns false while it runs.
func _finish_job(_d: TerrainData) -> bool:
	return true


func _cancel_job(_d: TerrainData) -> void:
	pass


## Opens the settings dialog (the button's action).
func _open() -> void:
	pass


func _ready() -> void:
	var what := _describe()
	_button = Button.new()
	_button.text = what["text"]
	_button.tooltip_text = what["tooltip"]
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


## Starts the job on the selected terrain (also for scripts and tests). False when one runs or it fails.
func start(settings: Resource) -> bool:
	if running():
		return false
	data = context.terrain_data if context and is_instance_valid(context) else null
	if data == null:
		push_warning("Terrain %s: the selected node has no terrain_data; give it a TerrainData first." % _describe()["action"])
		return false
	_before = data.heights
	_cancelled = false
	if not _start_job(data, settings):
		return false
	_bar.value = 0.0
	_bar.show()
	_cancel.show()
	_button.disabled = true
	return true


func _exit_tree() -> void:
	# Nobody would claim an abandoned job: stop it and collect it now.
	if running():
		_cancel_job(data)
		while not _finish_job(data):
			OS.delay_msec(1)


func running() -> bool:
	return data != null and _job_progress(data) >= 0.0


func cancel() -> void:
	if running():
		_cancelled = true
		_cancel_job(data)


func _process(_delta: float) -> void:
	if not running():
		return
	_bar.value = _job_progress(data)
	if not _finish_job(data):
		return
	_bar.hide()
	_cancel.hide()
	_button.disabled = false
	if _cancelled or undo_redo == null:
		_before = PackedFloat32Array()
		return
	# Already done: the step only records both states (8 bytes a sample while it is in the history).
	undo_redo.create_action("Terrain: %s" % _describe()["action"], UndoRedo.MERGE_DISABLE, context)
	undo_redo.add_do_property(data, "heights", data.heights)
	undo_redo.add_undo_property(data, "heights", _before)
	undo_redo.commit_action(false)
	finished.emit(data)
	_before = PackedFloat32Array()
