@tool
extends HBoxContainer
## "Import…" in the terrain toolbar: pick a heightmap file (.png, .r16, .r32, .raw, .exr), say how its values
## map to heights, and it replaces the selected terrain's data (TerrainData.import_heightmap; the size becomes
## the file's). One undo step restores the old size and heights.

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


func _ready() -> void:
	var b := Button.new()
	b.text = "Import…"
	b.tooltip_text = "Replace the terrain's heights with a heightmap file (one undo step)"
	b.pressed.connect(_open)
	add_child(b)


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


## Imports `path` into the selected terrain's data (also for scripts and tests). On a bad file the error names
## it and nothing changes.
func import_file(path: String, min_height: float, max_height: float, raw_width: int) -> bool:
	var data: TerrainData = context.terrain_data if context and is_instance_valid(context) else null
	if data == null:
		push_warning("Terrain import: the selected node has no terrain_data; give it a TerrainData first.")
		return false
	var size_before := data.size
	var before := data.heights
	if data.import_heightmap(path, min_height, max_height, raw_width) != OK:
		return false
	if undo_redo:
		# Already imported: the step records both states. The size goes first so the heights fit it.
		undo_redo.create_action("Terrain: import %s" % path.get_file(), UndoRedo.MERGE_DISABLE, context)
		undo_redo.add_do_property(data, "size", data.size)
		undo_redo.add_do_property(data, "heights", data.heights)
		undo_redo.add_undo_property(data, "size", size_before)
		undo_redo.add_undo_property(data, "heights", before)
		undo_redo.commit_action(false)
	imported.emit(data)
	return true
