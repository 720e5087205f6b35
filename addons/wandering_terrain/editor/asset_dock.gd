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
## Mesh previews are being made (they run the editor's message queue, which may select the terrain again
## and call refresh once more: that inner call lists without previews).
var _previewing := false


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
	for b in [["+", "Add one", func(): add_entry(kind)], ["◀", "Move the picked one back", func(): move_entry(-1, kind)],
			["▶", "Move the picked one on", func(): move_entry(1, kind)], ["Edit", "Open the picked one in the inspector", func(): edit_entry(kind)]]:
		var button := Button.new()
		button.text = b[0]
		button.tooltip_text = b[1]
		button.pressed.connect(b[2])
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
		if is_instance_valid(r) and r.changed.is_connected(_queue_refresh):
			r.changed.disconnect(_queue_refresh)
	_watched.clear()
	# The material's changes (the instancer's lists change through this dock or the inspector, which
	# selects the terrain again).
	var m := _material()
	if m and not m.changed.is_connected(_queue_refresh):
		m.changed.connect(_queue_refresh)
		_watched.append(m)
	refresh()


var _refresh_queued := false


## One refresh at the end of the frame, however many changes (a slider drag changes the material often).
func _queue_refresh() -> void:
	if not _refresh_queued:
		_refresh_queued = true
		_deferred_refresh.call_deferred()


func _deferred_refresh() -> void:
	_refresh_queued = false
	if is_instance_valid(terrain):
		set_context(terrain, instancer)


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
		# Mesh previews need a renderer (a headless editor has none) and may not nest (see `_previewing`).
		var nested: bool = _previewing or (toolbar != null and toolbar._previewing)
		if not meshes.is_empty() and DisplayServer.get_name() != "headless" and not nested:
			_previewing = true
			var previews := EditorInterface.make_mesh_previews(meshes, ICON)
			_previewing = false
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
	# The lists follow either way (an instancer is a node: it has no `changed` to watch).
	undo_redo.add_do_method(self, "_deferred_refresh")
	undo_redo.add_undo_method(self, "_deferred_refresh")
	undo_redo.commit_action()


func add_entry(kind: int) -> void:
	if kind == LAYERS and _material() == null and terrain:
		# A terrain without a material gets one holding the new layer.
		var m := TerrainMaterial.new()
		m.layers = [TerrainLayer.new()] as Array[TerrainLayer]
		undo_redo.create_action("Add a terrain material", UndoRedo.MERGE_DISABLE, terrain)
		undo_redo.add_do_property(terrain, "terrain_material", m)
		undo_redo.add_undo_property(terrain, "terrain_material", null)
		undo_redo.add_do_method(self, "_deferred_refresh")
		undo_redo.add_undo_method(self, "_deferred_refresh")
		undo_redo.commit_action()
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
	if i >= list.size() or j < 0 or j >= list.size():
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
