@tool
extends HBoxContainer
## "New…" in the terrain toolbar: gives the selected node a new, flat TerrainData of the chosen size and
## spacing (then sculpt, generate or import into it). One undo step puts the previous data back.

## Emitted with the new data once it is assigned.
signal created(data: TerrainData)

## Set by the plugin: the terrain node to give the data to.
var context: Node
var undo_redo: EditorUndoRedoManager
var _dialog: ConfirmationDialog
var _w: SpinBox
var _d: SpinBox
var _spacing: SpinBox


func _ready() -> void:
	var b := Button.new()
	b.text = "New…"
	b.tooltip_text = "Give the terrain a new flat TerrainData (size, spacing; one undo step)"
	b.pressed.connect(_open)
	add_child(b)


func _open() -> void:
	if _dialog == null:
		_dialog = ConfirmationDialog.new()
		_dialog.title = "New terrain data"
		_dialog.ok_button_text = "Create"
		var grid := GridContainer.new()
		grid.columns = 2
		_w = _spin(grid, "Samples along X", 1, 16384, 1, 1024)
		_d = _spin(grid, "Samples along Z", 1, 16384, 1, 1024)
		_spacing = _spin(grid, "Spacing (world units between samples)", 0.001, 1000.0, 0.001, 1.0)
		_dialog.add_child(grid)
		_dialog.confirmed.connect(func(): create(Vector2i(int(_w.value), int(_d.value)), _spacing.value))
		add_child(_dialog)
	_dialog.popup_centered()


func _spin(grid: GridContainer, label: String, lo: float, hi: float, step: float, value: float) -> SpinBox:
	var l := Label.new()
	l.text = label
	grid.add_child(l)
	var s := SpinBox.new()
	s.min_value = lo
	s.max_value = hi
	s.step = step
	s.value = value
	grid.add_child(s)
	return s


## Assigns a new flat TerrainData of `size` samples `spacing` apart to the selected node (also for scripts
## and tests); null when the size or spacing is refused (TerrainData's error names the property).
func create(size: Vector2i, spacing: float) -> TerrainData:
	if context == null or not is_instance_valid(context):
		return null
	var d := TerrainData.new()
	d.size = size
	d.spacing = spacing
	if d.size != size or not is_equal_approx(d.spacing, spacing):
		return null
	var old: TerrainData = context.terrain_data
	if undo_redo:
		undo_redo.create_action("Terrain: new data", UndoRedo.MERGE_DISABLE, context)
		undo_redo.add_do_property(context, "terrain_data", d)
		undo_redo.add_undo_property(context, "terrain_data", old)
		undo_redo.commit_action()
	else:
		context.terrain_data = d
	created.emit(d)
	return d
