@tool
extends "res://addons/wandering_terrain/editor/heights_job_panel.gd"
## "Generate…" in the terrain toolbar: a dialog edits a TerrainGenerator; the heights are generated off the
## main thread (TerrainData.generate_async) with a progress bar and Cancel, so the editor keeps running; the
## result is one undo step.

## The generator the dialog edits (kept between uses).
var generator := TerrainGenerator.new()
var _preview: TextureRect
## Side of the preview in samples (the whole terrain, scaled down).
const PREVIEW := 128


func _describe() -> Dictionary:
	return {
		"text": "Generate…",
		"tooltip": "Fill the terrain with fractal noise (off the main thread; one undo step)",
		"action": "generate",
	}


func _start_job(d: TerrainData, g: Resource) -> bool:
	return d.generate_async(g)


func _job_progress(d: TerrainData) -> float:
	return d.get_generation_progress()


func _finish_job(d: TerrainData) -> bool:
	return d.finish_generation()


func _cancel_job(d: TerrainData) -> void:
	d.cancel_generation()


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
