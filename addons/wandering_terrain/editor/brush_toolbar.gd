@tool
extends HBoxContainer
## The terrain brush toolbar of the 3D editor: tool, size, strength, hardness, the layer to paint (the
## TerrainMaterial's layers, with their albedo as a thumbnail) and, for the instance tools, the mesh to
## place (the TerrainInstancer's meshes, with previews) and its density; for the detail tools, the detail
## layer whose density is painted.

## Tool names by TerrainBrush tool value; the first entry of the menu is "no tool" (the mouse selects).
const NONE := 100
const NAMES := ["Raise", "Lower", "Smooth", "Flatten", "Set height", "Slope", "Hole", "Fill hole", "Paint", "Erase paint", "Instances", "Remove instances", "Detail", "Remove detail", "Erode"]
const TIPS := [
	"Raise the ground (Ctrl: lower, Shift: smooth)",
	"Lower the ground (Ctrl: raise, Shift: smooth)",
	"Smooth: heights toward their neighbours' mean",
	"Flatten to the height under the cursor where the stroke starts",
	"Set heights to the Height value",
	"Slope: Alt+click its start, Alt+Ctrl+click its end, then paint",
	"Cut holes: nothing drawn, nothing to stand on (Ctrl: fill)",
	"Fill holes (Ctrl: cut)",
	"Paint the selected layer (Ctrl: erase it back to auto-texturing)",
	"Erase the selected layer back to auto-texturing (Ctrl: paint)",
	"Place instances of the selected mesh up to its density (Ctrl: remove); needs a TerrainInstancer child",
	"Remove instances of the selected mesh (Ctrl: place)",
	"Paint the selected detail layer's density up to its rules' full density (Ctrl: down); needs a TerrainInstancer with detail layers",
	"Paint the selected detail layer's density down to none (Ctrl: up)",
	"Erode: water droplets carve the ground under the brush (Strength: droplets per second)",
]

var brush: TerrainBrush
var _tool: OptionButton
var _size: SpinBox
var _strength: SpinBox
var _hardness: SpinBox
var _height: SpinBox
## The image's turn: a fixed angle, a new random one each dab, or along the stroke.
const ROTATION_FIXED := 0
const ROTATION_RANDOM := 1
const ROTATION_FOLLOW := 2
var rotation_mode := ROTATION_FIXED
var _rotation: SpinBox
var _rotation_mode: OptionButton
var _layer: OptionButton
var _image: Button
var _image_clear: Button
var _image_dialog: EditorFileDialog
var _mesh: OptionButton
var _density: SpinBox
var _scale_min: SpinBox
var _scale_max: SpinBox
var _yaw: CheckBox
## The instancer whose meshes the mesh picker lists (null: none under the edited terrain).
var instancer: TerrainInstancer
## Mesh previews are being made (they run the editor's message queue, which may call set_instancer again).
var _previewing := false


func setup(b: TerrainBrush) -> void:
	brush = b
	_tool = OptionButton.new()
	_tool.add_item("No brush", NONE)
	_tool.set_item_tooltip(0, "The mouse selects and moves nodes as usual")
	for i in NAMES.size():
		_tool.add_item(NAMES[i], i)
		_tool.set_item_tooltip(i + 1, TIPS[i])
	_tool.tooltip_text = "Terrain brush tool"
	# The picker lists meshes for the instance tools and detail layers for the detail tools.
	_tool.item_selected.connect(func(_i): set_instancer(instancer))
	add_child(_tool)
	_size = _spin("Size", 0.5, 4096.0, 0.5, "Brush diameter in world units ([ and ] while painting)")
	_strength = _spin("Strength", 0.0, 100.0, 0.1, "Effect per second at the centre")
	_hardness = _spin("Hardness", 0.0, 1.0, 0.05, "Share of the radius at full strength")
	_height = _spin("Height", -100000.0, 100000.0, 0.1, "Target of Set height (Flatten takes the ground where a stroke starts)")
	_size.value_changed.connect(func(v): brush.size = v)
	_strength.value_changed.connect(func(v): brush.strength = v)
	_hardness.value_changed.connect(func(v): brush.hardness = v)
	_height.value_changed.connect(func(v): brush.height = v)
	_layer = OptionButton.new()
	_layer.tooltip_text = "Layer to paint (the terrain's TerrainMaterial layers)"
	_layer.item_selected.connect(func(i): brush.layer = _layer.get_item_id(i))
	add_child(_layer)
	_image = Button.new()
	_image.text = "Image…"
	_image.tooltip_text = "Stamp the brush through an image (its alpha, or its brightness without alpha)"
	_image.pressed.connect(_pick_image)
	add_child(_image)
	_image_clear = Button.new()
	_image_clear.text = "×"
	_image_clear.tooltip_text = "Back to a round brush"
	_image_clear.pressed.connect(func(): set_image_file(""))
	_image_clear.hide()
	add_child(_image_clear)
	_rotation = _spin("Turn", -360.0, 360.0, 1.0, "The brush image's turn in degrees (Fixed mode)")
	_rotation.value_changed.connect(func(v): brush.image_rotation = v)
	_rotation_mode = OptionButton.new()
	_rotation_mode.add_item("Fixed", ROTATION_FIXED)
	_rotation_mode.add_item("Random", ROTATION_RANDOM)
	_rotation_mode.add_item("Follow stroke", ROTATION_FOLLOW)
	_rotation_mode.tooltip_text = "How the brush image turns: a fixed angle, a random one each dab, or along the stroke"
	_rotation_mode.item_selected.connect(func(i): rotation_mode = _rotation_mode.get_item_id(i))
	add_child(_rotation_mode)
	_show_rotation(false)
	_mesh = OptionButton.new()
	_mesh.tooltip_text = "Mesh the instance tools place and remove (the TerrainInstancer's meshes)"
	_mesh.item_selected.connect(func(i): _pick_mesh(_mesh.get_item_id(i)))
	add_child(_mesh)
	_density = _spin("Density", 0.0, 100.0, 0.0001, "Instances per square unit the instance brush fills up to (the selected mesh's density)")
	_density.value_changed.connect(func(v): _set_rule("density", v))
	_scale_min = _spin("Scale", 0.01, 1000.0, 0.01, "Smallest random scale of the selected mesh")
	_scale_min.value_changed.connect(func(v): _set_rule("scale_min", v))
	_scale_max = _spin("–", 0.01, 1000.0, 0.01, "Largest random scale of the selected mesh")
	_scale_max.value_changed.connect(func(v): _set_rule("scale_max", v))
	_yaw = CheckBox.new()
	_yaw.text = "Random yaw"
	_yaw.tooltip_text = "Turn each placed instance of the selected mesh by a random angle about the up axis"
	_yaw.toggled.connect(func(v): _set_rule("random_yaw", v))
	add_child(_yaw)
	set_instancer(null)
	refresh()


func _spin(label: String, lo: float, hi: float, step: float, tip: String) -> SpinBox:
	var l := Label.new()
	l.text = label
	add_child(l)
	var s := SpinBox.new()
	s.min_value = lo
	s.max_value = hi
	s.step = step
	s.tooltip_text = tip
	add_child(s)
	return s


func refresh() -> void:
	_size.set_value_no_signal(brush.size)
	_strength.set_value_no_signal(brush.strength)
	_hardness.set_value_no_signal(brush.hardness)
	_height.set_value_no_signal(brush.height)


func _pick_image() -> void:
	if _image_dialog == null:
		_image_dialog = EditorFileDialog.new()
		_image_dialog.file_mode = EditorFileDialog.FILE_MODE_OPEN_FILE
		_image_dialog.access = EditorFileDialog.ACCESS_FILESYSTEM
		for f in ["*.png", "*.jpg", "*.jpeg", "*.webp", "*.exr"]:
			_image_dialog.add_filter(f)
		_image_dialog.file_selected.connect(set_image_file)
		add_child(_image_dialog)
	_image_dialog.popup_file_dialog()


## Uses the image at `path` as the brush's stamp ("" clears it; also for scripts and tests).
func set_image_file(path: String) -> void:
	if path == "":
		brush.image = null
	else:
		var img := Image.load_from_file(path)
		if img == null:
			push_error("Terrain brush: cannot load the image %s" % path)
			return
		brush.image = img
	_image.text = path.get_file() if brush.image else "Image…"
	_image_clear.visible = brush.image != null
	_show_rotation(brush.image != null)


## The turn controls matter only with an image.
func _show_rotation(on: bool) -> void:
	get_child(_rotation.get_index() - 1).visible = on
	_rotation.visible = on
	_rotation_mode.visible = on


## Lists `material`'s layers in the layer picker (name and albedo thumbnail), keeping the selection.
func set_layers(material: TerrainMaterial) -> void:
	_layer.clear()
	if material == null or material.layers.is_empty():
		_layer.add_item("No layers", 0)
		_layer.set_item_tooltip(0, "Give the terrain a TerrainMaterial with layers to paint them")
		return
	for i in material.layers.size():
		var l: TerrainLayer = material.layers[i]
		var label := l.name if l.name != "" else "Layer %d" % i
		_layer.add_item("%d: %s" % [i, label], i)
		if l.albedo_texture:
			var img := l.albedo_texture.get_image()
			if img:
				img = img.duplicate()
				if img.is_compressed():
					img.decompress()
				img.convert(Image.FORMAT_RGBA8)
				img.resize(24, 24)
				_layer.set_item_icon(i, ImageTexture.create_from_image(img))
	_layer.select(clampi(brush.layer, 0, material.layers.size() - 1))
	brush.layer = _layer.get_selected_id()


## Lists `target`'s meshes in the mesh picker (previews of their meshes), keeping the selection.
func set_instancer(target: TerrainInstancer) -> void:
	instancer = target
	_mesh.clear()
	if _detail_tool():
		_list_detail_layers(target)
		return
	if target == null or target.meshes.is_empty():
		_mesh.add_item("No instancer", 0)
		_mesh.set_item_tooltip(0, "Add a TerrainInstancer with meshes under the terrain to place instances")
		_pick_mesh(-1)
		return
	var meshes: Array[Mesh] = []
	for m: TerrainInstanceMesh in target.meshes:
		meshes.append(m.mesh if m and m.mesh else BoxMesh.new())
	# Previews need a renderer (a headless editor has none). Making them runs the editor's message queue,
	# which can select the terrain again and call this once more: that inner call lists without previews.
	var previews: Array = []
	if DisplayServer.get_name() != "headless" and not _previewing:
		_previewing = true
		previews = EditorInterface.make_mesh_previews(meshes, 24)
		_previewing = false
	for i in meshes.size():
		var m: TerrainInstanceMesh = target.meshes[i]
		var label := m.resource_name if m and m.resource_name != "" else "Mesh %d" % i
		_mesh.add_item("%d: %s" % [i, label], i)
		if i < previews.size() and previews[i]:
			_mesh.set_item_icon(i, previews[i])
	_mesh.select(clampi(brush.mesh_index, 0, meshes.size() - 1))
	_pick_mesh(_mesh.get_selected_id())


func _detail_tool() -> bool:
	var t := _tool.get_selected_id() if _tool else NONE
	return t == TerrainBrush.DETAIL_ADD or t == TerrainBrush.DETAIL_REMOVE


## Lists `target`'s detail layers in the picker (their mesh's name, or "Grass" for the built-in clump).
func _list_detail_layers(target: TerrainInstancer) -> void:
	if target == null or target.detail_layers.is_empty():
		_mesh.add_item("No detail layers", 0)
		_mesh.set_item_tooltip(0, "Add a TerrainInstancer with detail layers under the terrain to paint their density")
		_pick_mesh(-1)
		return
	for i in target.detail_layers.size():
		var l: TerrainDetailLayer = target.detail_layers[i]
		var label := "Detail %d" % i
		if l and l.resource_name != "":
			label = l.resource_name
		elif l and l.mesh == null:
			label = "Grass"
		_mesh.add_item("%d: %s" % [i, label], i)
	_mesh.select(clampi(brush.mesh_index, 0, target.detail_layers.size() - 1))
	_pick_mesh(_mesh.get_selected_id())


func _pick_mesh(i: int) -> void:
	if i >= 0:
		brush.mesh_index = i
	var m := _picked()
	for c: Control in [_density, _scale_min, _scale_max]:
		c.editable = m != null
	_yaw.disabled = m == null
	if m:
		_density.set_value_no_signal(m.density)
		_scale_min.set_value_no_signal(m.scale_min)
		_scale_max.set_value_no_signal(m.scale_max)
		_yaw.set_pressed_no_signal(m.random_yaw)


func _picked() -> TerrainInstanceMesh:
	if _detail_tool():
		return null
	var i := brush.mesh_index
	return instancer.meshes[i] if instancer and i >= 0 and i < instancer.meshes.size() else null


## Sets a placement rule of the picked mesh (its setter checks the range; the toolbar shows what it kept).
func _set_rule(property: String, v: Variant) -> void:
	var m := _picked()
	if m:
		m.set(property, v)
		_pick_mesh(-1)


## The tool for a stroke: the selected one (NONE: no brush), Shift smooths (sculpting tools), Ctrl inverts.
func tool_for(ctrl: bool, shift: bool) -> int:
	var t := _tool.get_selected_id()
	if t == NONE:
		return NONE
	if shift and t <= TerrainBrush.SLOPE:
		return TerrainBrush.SMOOTH
	if ctrl:
		match t:
			TerrainBrush.RAISE: return TerrainBrush.LOWER
			TerrainBrush.LOWER: return TerrainBrush.RAISE
			TerrainBrush.HOLE_ADD: return TerrainBrush.HOLE_REMOVE
			TerrainBrush.HOLE_REMOVE: return TerrainBrush.HOLE_ADD
			TerrainBrush.PAINT: return TerrainBrush.ERASE
			TerrainBrush.ERASE: return TerrainBrush.PAINT
			TerrainBrush.INSTANCE_ADD: return TerrainBrush.INSTANCE_REMOVE
			TerrainBrush.INSTANCE_REMOVE: return TerrainBrush.INSTANCE_ADD
			TerrainBrush.DETAIL_ADD: return TerrainBrush.DETAIL_REMOVE
			TerrainBrush.DETAIL_REMOVE: return TerrainBrush.DETAIL_ADD
	return t


func tool_name(t: int) -> String:
	return NAMES[t]


## Selects a tool (NONE or a TerrainBrush tool; also for scripts and tests).
func select_tool(t: int) -> void:
	_tool.select(_tool.get_item_index(t))
	set_instancer(instancer)
