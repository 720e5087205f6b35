@tool
extends VBoxContainer
## The "Terrain Assets" bottom panel: the selected terrain's TerrainMaterial layers and its TerrainInstancer's
## meshes and detail layers as thumbnails. Picking one sets the brush's layer (with the paint tool) or mesh
## (with the instance or detail tool); + adds one, ◀ ▶ move the picked one, Edit opens it in the inspector.
## Each change is one undo step. The viewport toolbar keeps the tools and the brush numbers.
##
## Painted samples and placed instances refer to positions in these lists: moving an entry moves what they
## show with it (as reordering Terrain3D's texture list does).

const ICON := 64
const LAYERS := 0
const MESHES := 1
const DETAIL := 2

var brush: TerrainBrush
## The viewport toolbar (brush_toolbar.gd): the tool and its pickers follow what is picked here.
var toolbar: Node
var undo_redo: EditorUndoRedoManager
## The terrain whose assets are listed (a TerrainNode or WanderingTerrain; null: none).
var terrain: Node3D
var instancer: TerrainInstancer
## One ItemList per kind (LAYERS, MESHES, DETAIL).
var lists: Array[ItemList] = []
var _watched: Array[Resource] = []


func _init() -> void:
	name = "TerrainAssets"
	custom_minimum_size = Vector2(0, 150)
	var row := HBoxContainer.new()
	row.size_flags_vertical = Control.SIZE_EXPAND_FILL
	add_child(row)
	for kind in [LAYERS, MESHES, DETAIL]:
		row.add_child(_section(kind))


func _section(kind: int) -> Control:
	var box := VBoxContainer.new()
	box.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	var head := HBoxContainer.new()
	box.add_child(head)
	var title := Label.new()
	title.text = ["Texture layers", "Instance meshes", "Detail layers"][kind]
	title.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	head.add_child(title)
	for b in [["+", "Add one", add_entry], ["◀", "Move the picked one back", move_entry.bind(-1)],
			["▶", "Move the picked one on", move_entry.bind(1)], ["Edit", "Open the picked one in the inspector", edit_entry]]:
		var button := Button.new()
		button.text = b[0]
		button.tooltip_text = b[1]
		button.pressed.connect(b[2].bind(kind))
		head.add_child(button)
	var list := ItemList.new()
	list.size_flags_vertical = Control.SIZE_EXPAND_FILL
	list.icon_mode = ItemList.ICON_MODE_TOP
	list.max_columns = 0
	list.same_column_width = true
	list.fixed_icon_size = Vector2i(ICON, ICON)
	list.item_selected.connect(pick.bind(kind))
	box.add_child(list)
	lists.append(list)
	return box


## Shows `node`'s assets (its material and `inst`'s lists) and follows their changes.
func set_context(node: Node3D, inst: TerrainInstancer) -> void:
	terrain = node
	instancer = inst
	for r in _watched:
		if is_instance_valid(r) and r.changed.is_connected(refresh):
			r.changed.disconnect(refresh)
	_watched.clear()
	for r in [_material(), instancer]:
		if r is Resource and not r.changed.is_connected(refresh):
			r.changed.connect(refresh)
			_watched.append(r)
	refresh()


func _material() -> TerrainMaterial:
	return terrain.terrain_material if terrain and is_instance_valid(terrain) else null


## The entries of `kind` (an empty array when there is nothing to list).
func _entries(kind: int) -> Array:
	match kind:
		LAYERS:
			var m := _material()
			return m.layers if m else []
		MESHES:
			return instancer.meshes if instancer else []
		_:
			return instancer.detail_layers if instancer else []


func refresh() -> void:
	for kind in lists.size():
		var list := lists[kind]
		list.clear()
		var entries := _entries(kind)
		var meshes: Array[Mesh] = []
		for i in entries.size():
			var e: Resource = entries[i]
			var label := e.resource_name if e and e.resource_name != "" else "%d" % i
			if e is TerrainLayer and e.name != "":
				label = e.name
			list.add_item("%d: %s" % [i, label], _thumbnail(e))
			if e is TerrainInstanceMesh or e is TerrainDetailLayer:
				meshes.append(e.mesh if e.mesh else BoxMesh.new())
		# Mesh previews need a renderer (a headless editor has none).
		if not meshes.is_empty() and DisplayServer.get_name() != "headless":
			var previews := EditorInterface.make_mesh_previews(meshes, ICON)
			for i in mini(previews.size(), list.item_count):
				if previews[i]:
					list.set_item_icon(i, previews[i])
	if brush:
		_select(LAYERS, brush.layer)
		_select(MESHES, brush.mesh_index)
		_select(DETAIL, brush.mesh_index)


func _select(kind: int, i: int) -> void:
	if i >= 0 and i < lists[kind].item_count:
		lists[kind].select(i)


## A layer's albedo (or its colour), small.
func _thumbnail(e: Resource) -> Texture2D:
	if not (e is TerrainLayer):
		return null
	var img: Image
	if e.albedo_texture and e.albedo_texture.get_image():
		img = e.albedo_texture.get_image().duplicate()
		if img.is_compressed():
			img.decompress()
		img.convert(Image.FORMAT_RGBA8)
		img.resize(ICON, ICON)
	else:
		img = Image.create_empty(ICON, ICON, false, Image.FORMAT_RGBA8)
		img.fill(e.albedo_color)
	return ImageTexture.create_from_image(img)


## Picking entry `i` of `kind`: the brush paints that layer or places that mesh or detail layer.
func pick(i: int, kind: int) -> void:
	if kind == LAYERS:
		brush.layer = i
		if toolbar and not (toolbar.tool_for(false, false) in [TerrainBrush.PAINT, TerrainBrush.ERASE]):
			toolbar.select_tool(TerrainBrush.PAINT)
	else:
		brush.mesh_index = i
		var want := TerrainBrush.INSTANCE_ADD if kind == MESHES else TerrainBrush.DETAIL_ADD
		var other := TerrainBrush.INSTANCE_REMOVE if kind == MESHES else TerrainBrush.DETAIL_REMOVE
		if toolbar and not (toolbar.tool_for(false, false) in [want, other]):
			toolbar.select_tool(want)
	if toolbar:
		toolbar.set_layers(_material())
		toolbar.set_instancer(instancer)


func _owner(kind: int) -> Object:
	return _material() if kind == LAYERS else instancer


func _property(kind: int) -> String:
	return ["layers", "meshes", "detail_layers"][kind]


## One undo step setting the list of `kind` to `value`.
func _commit(kind: int, what: String, value: Array) -> void:
	var o := _owner(kind)
	var p := _property(kind)
	undo_redo.create_action(what, UndoRedo.MERGE_DISABLE, o)
	undo_redo.add_do_property(o, p, value)
	undo_redo.add_undo_property(o, p, o.get(p).duplicate())
	undo_redo.commit_action()


func add_entry(kind: int) -> void:
	if kind == LAYERS and _material() == null and terrain:
		# A terrain without a material gets one holding the new layer.
		var m := TerrainMaterial.new()
		m.layers = [TerrainLayer.new()] as Array[TerrainLayer]
		undo_redo.create_action("Add a terrain material", UndoRedo.MERGE_DISABLE, terrain)
		undo_redo.add_do_property(terrain, "terrain_material", m)
		undo_redo.add_undo_property(terrain, "terrain_material", null)
		undo_redo.commit_action()
		set_context(terrain, instancer)
		return
	if _owner(kind) == null:
		push_warning("Terrain Assets: add a TerrainInstancer under the terrain first")
		return
	var list: Array = _entries(kind).duplicate()
	list.append([TerrainLayer, TerrainInstanceMesh, TerrainDetailLayer][kind].new())
	_commit(kind, "Add a terrain asset", list)


func move_entry(step: int, kind: int) -> void:
	var picked := lists[kind].get_selected_items()
	if picked.is_empty():
		return
	var i := picked[0]
	var j := i + step
	var list: Array = _entries(kind).duplicate()
	if j < 0 or j >= list.size():
		return
	var e = list[i]
	list[i] = list[j]
	list[j] = e
	_commit(kind, "Move a terrain asset", list)
	lists[kind].select(j)
	pick(j, kind)


func edit_entry(kind: int) -> void:
	var picked := lists[kind].get_selected_items()
	var list := _entries(kind)
	if not picked.is_empty() and picked[0] < list.size() and list[picked[0]]:
		EditorInterface.edit_resource(list[picked[0]])
