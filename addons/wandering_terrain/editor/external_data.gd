@tool
extends HBoxContainer
## "Save data as .res…" in the terrain toolbar: shown while the selected terrain's TerrainData is embedded
## in its scene and large. A big heightfield inside a .tscn makes the scene slow to load and save and
## bloats its diffs; as its own binary .res the scene only references it (and the plugin writes that file
## whenever the scene is saved).

## Embedded data from this many samples on is offered a file of its own (512²: 1 MB of heights).
var min_samples := 512 * 512
## Set by the plugin: the selected terrain node.
var context: Node:
	set(v):
		context = v
		refresh()
## Emitted after the data moved to its own file.
signal saved(data: TerrainData)

var _button: Button
var _dialog: EditorFileDialog


func _ready() -> void:
	_button = Button.new()
	_button.text = "Save data as .res…"
	_button.tooltip_text = "This terrain's data is stored inside the scene. Large data loads and saves faster in its own .res file, which the scene then references."
	_button.pressed.connect(_open)
	add_child(_button)
	refresh()


func _data() -> TerrainData:
	return context.terrain_data if context and is_instance_valid(context) else null


## Whether the selected terrain's data lives inside a scene (or nowhere yet).
func is_embedded() -> bool:
	var d := _data()
	return d != null and (d.resource_path == "" or d.resource_path.contains("::"))


func refresh() -> void:
	if _button == null:
		return
	var d := _data()
	_button.visible = is_embedded() and d.size.x * d.size.y >= min_samples


func _open() -> void:
	if _dialog == null:
		_dialog = EditorFileDialog.new()
		_dialog.file_mode = EditorFileDialog.FILE_MODE_SAVE_FILE
		_dialog.add_filter("*.res", "Binary resource")
		_dialog.file_selected.connect(func(p): save_to(p))
		add_child(_dialog)
	_dialog.current_file = "%s_terrain.res" % (context.name.to_snake_case() if context else "terrain")
	_dialog.popup_file_dialog()


## Saves the selected terrain's data to `path` and makes the scene reference that file (also for scripts
## and tests). The scene is marked unsaved so the reference is written with it.
func save_to(path: String) -> Error:
	var d := _data()
	if d == null:
		return ERR_UNCONFIGURED
	if not path.ends_with(".res"):
		push_error("Terrain data: save to a .res file (binary), got %s" % path)
		return ERR_FILE_UNRECOGNIZED
	var err := save_safely(d, path)
	if err != OK:
		push_error("Terrain data: cannot save %s (error %d)" % [path, err])
		return err
	d.take_over_path(path)
	EditorInterface.mark_scene_as_unsaved()
	saved.emit(d)
	refresh()
	return OK


## Saves `d` to `path` (its own path when empty) through a temporary file renamed over the old one, so a
## crash while writing leaves the old file whole.
static func save_safely(d: Resource, path := "") -> Error:
	var target := path if path != "" else d.resource_path
	var tmp := target.get_basename() + ".saving." + target.get_extension()
	var err := ResourceSaver.save(d, tmp)
	if err != OK:
		DirAccess.remove_absolute(tmp)
		return err
	return DirAccess.rename_absolute(tmp, target)
