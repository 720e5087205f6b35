@tool
extends EditorInspectorPlugin
## A "Bake impostor" button with a progress bar at the top of a TerrainInstanceMesh's inspector. The bake
## runs off the main thread (TerrainImpostor.bake_async); when the instance mesh is saved in its own file,
## the impostor is saved next to it (`<name>_impostor.res`) so scenes share it instead of embedding 2 × 16 MiB.


func _can_handle(object: Object) -> bool:
	return object is TerrainInstanceMesh


func _parse_begin(object: Object) -> void:
	var row := BakeRow.new()
	row.mesh = object
	add_custom_control(row)


class BakeRow extends HBoxContainer:
	var mesh: TerrainInstanceMesh
	var button := Button.new()
	var bar := ProgressBar.new()
	var status := Label.new()
	var _baking: TerrainImpostor

	func _init() -> void:
		button.text = "Bake impostor"
		button.tooltip_text = "Bake this mesh's octahedral impostor (drawn beyond impostor_distance)."
		button.pressed.connect(bake)
		add_child(button)
		bar.custom_minimum_size = Vector2(80, 0)
		bar.size_flags_horizontal = Control.SIZE_EXPAND_FILL
		bar.max_value = 1.0
		bar.visible = false
		add_child(bar)
		status.size_flags_horizontal = Control.SIZE_EXPAND_FILL
		add_child(status)
		set_process(false)

	func _ready() -> void:
		set_process(false)
		if mesh != null and mesh.impostor != null and mesh.impostor.is_baked():
			status.text = "baked (%d × %d views)" % [mesh.impostor.baked_frames, mesh.impostor.baked_frames]

	## Starts the bake (a new TerrainImpostor when the mesh has none; its settings otherwise).
	func bake() -> void:
		if mesh == null or _baking != null:
			return
		if not mesh.bake_impostor_async():
			status.text = "cannot bake: see the Output panel"
			return
		_baking = mesh.impostor
		button.disabled = true
		bar.visible = true
		status.text = ""
		set_process(true)

	func _process(_delta: float) -> void:
		# Godot turns processing on at ready for a script with _process: only while a bake runs.
		if _baking == null:
			set_process(false)
			return
		bar.value = _baking.get_bake_progress()
		if _baking.poll_bake():
			return
		set_process(false)
		button.disabled = false
		bar.visible = false
		var imp := _baking
		_baking = null
		if not imp.is_baked():
			status.text = "bake failed: see the Output panel"
			return
		var base := mesh.resource_path
		if base != "" and not base.contains("::"):
			var path := base.get_basename() + "_impostor.res"
			if ResourceSaver.save(imp, path) == OK:
				imp.take_over_path(path)
		if mesh.impostor != imp:
			mesh.impostor = imp
		status.text = "baked in %.0f ms" % imp.get_last_bake_msec()
