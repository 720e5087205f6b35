@tool
extends HBoxContainer
## "Generate…" in the terrain toolbar: a dialog edits a TerrainGenerator; the heights are generated off the
## main thread (TerrainData.generate_async) with a progress bar and Cancel, so the editor keeps running; the
## result is one undo step.

## The generator the dialog edits (kept between uses).
var generator := TerrainGenerator.new()
## Emitted when generated heights were installed (the plugin saves external data files with the scene).
signal generated(data: TerrainData)

## Set by the plugin: the terrain node to fill (its scene's history gets the undo step).
var context: Node
## The TerrainData being generated into (taken from `context` when a generation starts).
var data: TerrainData
var undo_redo: EditorUndoRedoManager
var _before := PackedFloat32Array()
var _cancelled := false
var _button: Button
var _bar: ProgressBar
var _cancel: Button
var _dialog: ConfirmationDialog
var _preview: TextureRect
## Side of the preview in samples (the whole terrain, scaled down).
const PREVIEW := 128


func _ready() -> void:
	_button = Button.new()
	_button.text = "Generate…"
	_button.tooltip_text = "Fill the terrain with fractal noise (off the main thread; one undo step)"
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
		_dialog.title = "Generate terrain"
		_dialog.ok_button_text = "Generate"
		var box := HBoxContainer.new()
		_dialog.add_child(box)
		var inspector := EditorInspector.new()
		inspector.custom_minimum_size = Vector2(360, 320)
		inspector.size_flags_horizontal = Control.SIZE_EXPAND_FILL
		box.add_child(inspector)
		inspector.edit(generator)
		inspector.property_edited.connect(func(_p): update_preview())
		_preview = TextureRect.new()
		_preview.custom_minimum_size = Vector2(256, 256)
		_preview.expand_mode = TextureRect.EXPAND_IGNORE_SIZE
		_preview.stretch_mode = TextureRect.STRETCH_KEEP_ASPECT_CENTERED
		_preview.tooltip_text = "The whole terrain with these settings (scaled down; dark = low)"
		box.add_child(_preview)
		_dialog.confirmed.connect(func(): start(generator))
		add_child(_dialog)
	update_preview()
	_dialog.popup_centered()


## Redraws the preview: the generator's heights over the selected terrain's whole size, at PREVIEW samples
## a side (the same noise at a frequency scaled to match), as grey levels. Returns the preview image.
func update_preview() -> Image:
	var target: TerrainData = context.terrain_data if context and is_instance_valid(context) else null
	var size := target.size if target else Vector2i(512, 512)
	var scale := float(maxi(size.x, size.y)) / PREVIEW
	var g := generator.duplicate() as TerrainGenerator
	g.frequency = minf(generator.frequency * scale, 1000.0)
	# The erosion filter's gullies are sized in samples too.
	g.erosion_scale = maxf(generator.erosion_scale / scale, 1.0)
	var small := TerrainData.new()
	small.size = Vector2i(maxi(1, roundi(size.x / scale)), maxi(1, roundi(size.y / scale)))
	if not small.generate(g):
		return null
	var h := small.heights
	var r := small.get_height_range()
	var span := maxf(r.y - r.x, 1e-6)
	var bytes := PackedByteArray()
	bytes.resize(h.size())
	for i in h.size():
		bytes[i] = clampi(roundi((h[i] - r.x) / span * 255.0), 0, 255)
	var img := Image.create_from_data(small.size.x, small.size.y, false, Image.FORMAT_L8, bytes)
	if _preview:
		_preview.texture = ImageTexture.create_from_image(img)
	return img


## Starts generating into `data` (also for scripts and tests). False when one runs or the settings fail.
func start(g: TerrainGenerator) -> bool:
	if running():
		return false
	data = context.terrain_data if context and is_instance_valid(context) else null
	if data == null:
		push_warning("Terrain generate: the selected node has no terrain_data; give it a TerrainData first.")
		return false
	_before = data.heights
	_cancelled = false
	if not data.generate_async(g):
		return false
	_bar.value = 0.0
	_bar.show()
	_cancel.show()
	_button.disabled = true
	return true


func _exit_tree() -> void:
	# Nobody would claim an abandoned generation: stop it and collect it now (a cancel ends within a row).
	if running():
		data.cancel_generation()
		while not data.finish_generation():
			OS.delay_msec(1)


func running() -> bool:
	return data != null and data.get_generation_progress() >= 0.0


func cancel() -> void:
	if running():
		_cancelled = true
		data.cancel_generation()


func _process(_delta: float) -> void:
	if not running():
		return
	_bar.value = data.get_generation_progress()
	if not data.finish_generation():
		return
	_bar.hide()
	_cancel.hide()
	_button.disabled = false
	if _cancelled or undo_redo == null:
		_before = PackedFloat32Array()
		return
	# Already generated: the step only records both states (8 bytes a sample while it is in the history).
	undo_redo.create_action("Terrain: generate", UndoRedo.MERGE_DISABLE, context)
	undo_redo.add_do_property(data, "heights", data.heights)
	undo_redo.add_undo_property(data, "heights", _before)
	undo_redo.commit_action(false)
	generated.emit(data)
	_before = PackedFloat32Array()
