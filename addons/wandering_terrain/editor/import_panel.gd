@tool
extends HBoxContainer
## "Import…" in the terrain toolbar: pick a heightmap file (.png, .r16, .r32, .raw, .exr), say how its values
## map to heights, and it replaces the selected terrain's data (TerrainData.import_heightmap_async: read and
## decoded off the main thread, with a busy bar and Cancel; the size becomes the file's). One undo step
## restores the old size and heights.

## Emitted when heights were imported (the plugin saves external data files with the scene).
signal imported(data: TerrainData)

const FILTERS := ["*.png ; PNG heightmap (8/16-bit)", "*.r16 ; Raw 16-bit", "*.r32, *.raw ; Raw 32-bit float", "*.exr ; OpenEXR"]

## Set by the plugin: the terrain node to fill (its scene's history gets the undo step).
var context: Node
var undo_redo: EditorUndoRedoManager
var _files: EditorFileDialog
var _options: ConfirmationDialog
var _path := ""
var _min: SpinBox
var _max: SpinBox
var _width: SpinBox
var _button: Button
var _bar: ProgressBar
var _cancel: Button
## The import under way: its data, file and the state before it (for the undo step).
var _data: TerrainData
var _file := ""
var _size_before := Vector2i.ZERO
var _before := PackedFloat32Array()


func _ready() -> void:
	_button = Button.new()
	_button.text = "Import…"
	_button.tooltip_text = "Replace the terrain's heights with a heightmap file (off the main thread; one undo step)"
	_button.pressed.connect(_open)
	add_child(_button)
	_bar = ProgressBar.new()
	_bar.custom_minimum_size.x = 120
	_bar.indeterminate = true
	_bar.hide()
	add_child(_bar)
	_cancel = Button.new()
	_cancel.text = "Cancel"
	_cancel.pressed.connect(cancel)
	_cancel.hide()
	add_child(_cancel)


func _open() -> void:
	if _files == null:
		_files = EditorFileDialog.new()
		_files.file_mode = EditorFileDialog.FILE_MODE_OPEN_FILE
		_files.access = EditorFileDialog.ACCESS_FILESYSTEM
		_files.filters = PackedStringArray(FILTERS)
		_files.file_selected.connect(_ask_options)
		add_child(_files)
		_options = ConfirmationDialog.new()
		_options.title = "Import heightmap"
		_options.ok_button_text = "Import"
		var grid := GridContainer.new()
		grid.columns = 2
		_min = _spin(grid, "Height of black (integer formats)", 0.0)
		_max = _spin(grid, "Height of white (integer formats)", 100.0)
		_width = _spin(grid, "Samples per row (raw files)", 0.0)
		_width.min_value = 0
		_width.step = 1
		_options.add_child(grid)
		_options.confirmed.connect(func(): import_file(_path, _min.value, _max.value, int(_width.value)))
		add_child(_options)
	_files.popup_file_dialog()


func _spin(grid: GridContainer, label: String, value: float) -> SpinBox:
	var l := Label.new()
	l.text = label
	grid.add_child(l)
	var s := SpinBox.new()
	s.min_value = -1e9
	s.max_value = 1e9
	s.step = 0.01
	s.value = value
	grid.add_child(s)
	return s


func _ask_options(path: String) -> void:
	_path = path
	_options.popup_centered()


## Starts importing `path` into the selected terrain's data (also for scripts and tests); the result lands
## in a later frame (`running()` turns false). On a bad file the error names it and nothing changes.
func import_file(path: String, min_height: float, max_height: float, raw_width: int) -> bool:
	if running():
		return false
	var data: TerrainData = context.terrain_data if context and is_instance_valid(context) else null
	if data == null:
		push_warning("Terrain import: the selected node has no terrain_data; give it a TerrainData first.")
		return false
	_size_before = data.size
	_before = data.heights
	if not data.import_heightmap_async(path, min_height, max_height, raw_width):
		_before = PackedFloat32Array()
		return false
	_data = data
	_file = path
	_bar.show()
	_cancel.show()
	_button.disabled = true
	return true


func running() -> bool:
	return _data != null


func cancel() -> void:
	if running():
		_data.cancel_import()


func _exit_tree() -> void:
	if running():
		_data.cancel_import()
		while not _data.finish_import():
			OS.delay_msec(1)


func _process(_delta: float) -> void:
	if not running() or _data.get_import_progress() < 1.0:
		return
	# finish_import installs the result and emits `changed`, or changes nothing (cancelled or failed).
	var data := _data
	var installed := [false]
	var mark := func(): installed[0] = true
	data.changed.connect(mark)
	data.finish_import()
	data.changed.disconnect(mark)
	_data = null
	_bar.hide()
	_cancel.hide()
	_button.disabled = false
	var changed: bool = installed[0]
	if changed and undo_redo:
		# Already imported: the step records both states. The size goes first so the heights fit it.
		undo_redo.create_action("Terrain: import %s" % _file.get_file(), UndoRedo.MERGE_DISABLE, context)
		undo_redo.add_do_property(data, "size", data.size)
		undo_redo.add_do_property(data, "heights", data.heights)
		undo_redo.add_undo_property(data, "size", _size_before)
		undo_redo.add_undo_property(data, "heights", _before)
		undo_redo.commit_action(false)
	_before = PackedFloat32Array()
	if changed:
		imported.emit(data)
