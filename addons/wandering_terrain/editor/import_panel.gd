@tool
extends HBoxContainer
## "Import…" in the terrain toolbar: pick a heightmap file (.png, .r16, .r32, .raw, .exr), say how its values
## map to heights, and it replaces the selected terrain's data (TerrainData.import_heightmap_async: read and
## decoded off the main thread, with a busy bar and Cancel; the size becomes the file's). One undo step
## restores the old size and heights. Elevation files (GeoTIFF, SRTM .hgt, ESRI .asc) open a dialog with
## the file's facts (size, spacing, heights, NoData count, projection) and the NoData choice; a file bigger
## than the data's sample_budget goes to a region folder (TerrainRegions.import_heightmaps_async) that the
## node then draws.

## Emitted when heights were imported (the plugin saves external data files with the scene).
signal imported(data: TerrainData)

const FILTERS := ["*.png ; PNG heightmap (8/16-bit)", "*.r16 ; Raw 16-bit", "*.r32, *.raw ; Raw 32-bit float", "*.exr ; OpenEXR",
	"*.tif, *.tiff ; GeoTIFF elevation", "*.hgt ; SRTM elevation tile", "*.asc ; ESRI ASCII grid"]
const ELEVATION := ["tif", "tiff", "hgt", "asc"]

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
var _spacing_before := 1.0
var _control_before := PackedInt32Array()
## The elevation dialog.
var _elevation: ConfirmationDialog
var _info: Label
var _nodata: OptionButton
var _to_regions: CheckBox
var _folder: LineEdit
var _region_size: SpinBox
## A region import under way.
var _regions: TerrainRegions
## Asks before a region import replaces the map in its folder (that cannot be undone).
var _replace: ConfirmationDialog


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
	if path.get_extension().to_lower() in ELEVATION:
		_ask_elevation(path)
	else:
		_options.popup_centered()


## What `TerrainData.get_import_info` found, as the dialog shows it.
static func describe(info: Dictionary) -> String:
	if info.is_empty():
		return "The file cannot be read (see the Output panel)."
	var size: Vector2i = info["size"]
	var xz: Vector2 = info["spacing_xz"]
	var range: Vector2 = info["height_range"]
	var lines := PackedStringArray([
		"%s, %d × %d samples of %s" % [info["format"], size.x, size.y, info["sample_format"]],
		("Spacing %.3f m (east–west %.3f m)" % [info["spacing"], xz.x]) if info["spacing_known"] else "Spacing not in the file (the data's is kept)",
		"Heights %.2f … %.2f m" % [range.x, range.y],
		"NoData samples: %d" % info["nodata_count"],
		"Projection: %s%s" % [info["projection"] if info["projection"] != "" else "unknown", " (degrees)" if info["geographic"] else ""],
	])
	return "\n".join(lines)


func _ask_elevation(path: String) -> void:
	if _elevation == null:
		_elevation = ConfirmationDialog.new()
		_elevation.title = "Import elevation data"
		_elevation.ok_button_text = "Import"
		var box := VBoxContainer.new()
		_info = Label.new()
		box.add_child(_info)
		_nodata = OptionButton.new()
		_nodata.add_item("NoData: cut holes", TerrainData.NODATA_HOLES)
		_nodata.add_item("NoData: fill from neighbours", TerrainData.NODATA_FILL)
		box.add_child(_nodata)
		_to_regions = CheckBox.new()
		_to_regions.text = "Into a region folder (for maps bigger than memory)"
		box.add_child(_to_regions)
		_folder = LineEdit.new()
		box.add_child(_folder)
		_region_size = SpinBox.new()
		_region_size.min_value = 16
		_region_size.max_value = 4096
		_region_size.exp_edit = true
		_region_size.value = 512
		_region_size.prefix = "Region size"
		box.add_child(_region_size)
		_elevation.add_child(box)
		_elevation.confirmed.connect(_confirm_elevation)
		add_child(_elevation)
	var info := TerrainData.get_import_info(path)
	_info.text = describe(info)
	var data: TerrainData = context.terrain_data if context and is_instance_valid(context) else null
	var size: Vector2i = info.get("size", Vector2i.ZERO)
	_to_regions.button_pressed = data == null or size.x * size.y > data.sample_budget
	_folder.text = "res://%s_regions" % path.get_file().get_basename()
	_elevation.get_ok_button().disabled = info.is_empty()
	_elevation.popup_centered()


## The elevation dialog's Import: into the data, or into a region folder, asking first when that folder
## already holds a map.
func _confirm_elevation() -> void:
	var folder := _folder.text if _to_regions.button_pressed else ""
	if folder == "" or not TerrainRegions.map_exists(folder):
		import_elevation_file(_path, _nodata.get_selected_id(), folder, int(_region_size.value))
		return
	if _replace == null:
		_replace = ConfirmationDialog.new()
		_replace.title = "Replace the map?"
		_replace.ok_button_text = "Replace"
		_replace.confirmed.connect(func():
			import_elevation_file(_path, _nodata.get_selected_id(), _folder.text, int(_region_size.value), true))
		add_child(_replace)
	_replace.dialog_text = ("%s already holds a region map.\nImporting replaces it: its regions and saved edits " +
		"are deleted, and undo does not bring them back.") % folder
	_replace.popup_centered()


## Starts importing an elevation file (also for scripts and tests): into the selected terrain's data, or,
## with a `folder`, into region files there that the node then draws (its terrain_data is cleared). One
## undo step either way. A folder that holds a map is refused unless `overwrite` is true (the dialog asks).
func import_elevation_file(path: String, nodata: int, folder := "", region_size := 512, overwrite := false) -> bool:
	if running() or context == null or not is_instance_valid(context):
		return false
	if folder != "":
		var regions := TerrainRegions.new()
		if regions.import_heightmaps_async(PackedStringArray([path]), folder, region_size, nodata, overwrite) != OK:
			return false
		_regions = regions
		_file = path
		_busy(true, false)
		return true
	var data: TerrainData = context.terrain_data
	if data == null:
		push_warning("Terrain import: the selected node has no terrain_data; give it a TerrainData first.")
		return false
	_remember(data)
	if data.import_elevation_async(path, nodata) != OK:
		_before = PackedFloat32Array()
		return false
	_data = data
	_file = path
	_busy(true, true)
	return true


func _remember(data: TerrainData) -> void:
	_size_before = data.size
	_before = data.heights
	_spacing_before = data.spacing
	_control_before = data.control


func _busy(on: bool, indeterminate := true) -> void:
	_bar.indeterminate = indeterminate
	_bar.max_value = 1.0
	_bar.step = 0.0
	_bar.visible = on
	_cancel.visible = on
	_button.disabled = on


## Starts importing `path` into the selected terrain's data (also for scripts and tests); the result lands
## in a later frame (`running()` turns false). On a bad file the error names it and nothing changes.
func import_file(path: String, min_height: float, max_height: float, raw_width: int) -> bool:
	if running():
		return false
	var data: TerrainData = context.terrain_data if context and is_instance_valid(context) else null
	if data == null:
		push_warning("Terrain import: the selected node has no terrain_data; give it a TerrainData first.")
		return false
	_remember(data)
	if data.import_heightmap_async(path, min_height, max_height, raw_width) != OK:
		_before = PackedFloat32Array()
		return false
	_data = data
	_file = path
	_busy(true)
	return true


func running() -> bool:
	return _data != null or _regions != null


func cancel() -> void:
	if _data != null:
		_data.cancel_import()
	if _regions != null:
		_regions.cancel_import()


func _exit_tree() -> void:
	for job in [_data, _regions]:
		if job != null:
			job.cancel_import()
			while job.get_import_progress() >= 0.0 and job.get_import_progress() < 1.0:
				OS.delay_msec(1)
			job.finish_import()


func _process(_delta: float) -> void:
	if _regions != null:
		_process_regions()
		return
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
	_busy(false)
	var changed: bool = installed[0]
	if changed and undo_redo:
		# Already imported: the step records both states. The size goes first so the heights fit it.
		undo_redo.create_action("Terrain: import %s" % _file.get_file(), UndoRedo.MERGE_DISABLE, context)
		undo_redo.add_do_property(data, "size", data.size)
		undo_redo.add_do_property(data, "spacing", data.spacing)
		undo_redo.add_do_property(data, "heights", data.heights)
		undo_redo.add_do_property(data, "control", data.control)
		undo_redo.add_undo_property(data, "size", _size_before)
		undo_redo.add_undo_property(data, "spacing", _spacing_before)
		undo_redo.add_undo_property(data, "heights", _before)
		undo_redo.add_undo_property(data, "control", _control_before)
		undo_redo.commit_action(false)
	_before = PackedFloat32Array()
	if changed:
		imported.emit(data)


## A region import: the bar shows the rows read; when done the node draws the folder (one undo step).
func _process_regions() -> void:
	var p := _regions.get_import_progress()
	_bar.value = p
	if p < 1.0:
		return
	var regions := _regions
	_regions = null
	_busy(false)
	if not regions.finish_import() or context == null or not is_instance_valid(context):
		return
	if undo_redo:
		undo_redo.create_action("Terrain: import %s into regions" % _file.get_file(), UndoRedo.MERGE_DISABLE, context)
		undo_redo.add_do_property(context, "terrain_data", null)
		undo_redo.add_do_property(context, "terrain_regions", regions)
		undo_redo.add_undo_property(context, "terrain_data", context.terrain_data)
		undo_redo.add_undo_property(context, "terrain_regions", context.terrain_regions)
		undo_redo.commit_action()
	else:
		context.terrain_data = null
		context.terrain_regions = regions
