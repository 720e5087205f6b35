@tool
extends EditorPlugin
## Editor side of Wandering Terrain: sculpting and hole tools for a selected TerrainNode or WanderingTerrain.
## A toolbar in the 3D editor picks the tool (default: none, the mouse selects as usual), size and strength;
## with a tool, the left mouse button paints (Ctrl: the opposite tool, Shift: smooth; holding still keeps
## painting); [ and ] change the size. Slope: Alt+click sets its start, Alt+Ctrl+click
## its end (each at the ground's height there), then strokes pull the ground toward the straight slope. Each stroke is one undo step that stores only the
## terrain it touched. The work is done by the runtime API games use too (TerrainData.apply_brush,
## TerrainNode.raycast); this script only turns mouse events into dabs. "Generate…" (editor/generate_panel.gd)
## fills the terrain off the main thread through TerrainData.generate_async; "Import…" (editor/import_panel.gd)
## loads a heightmap file; "New…" (editor/new_terrain_panel.gd) gives the node new flat data; "Save data as .res…" (editor/external_data.gd) moves large embedded data to its own
## file. This file is input and selection (which terrain, which tool, mouse to dabs, one native
## TerrainBrushStroke for every tool); the brush shown on the ground is editor/brush_cursor.gd, what the
## tools changed and its saving editor/edit_bookkeeping.gd.

const Toolbar := preload("res://addons/wandering_terrain/editor/brush_toolbar.gd")
const GeneratePanel := preload("res://addons/wandering_terrain/editor/generate_panel.gd")
const ErodePanel := preload("res://addons/wandering_terrain/editor/erode_panel.gd")
const ImportPanel := preload("res://addons/wandering_terrain/editor/import_panel.gd")
const ExternalData := preload("res://addons/wandering_terrain/editor/external_data.gd")
const NewTerrainPanel := preload("res://addons/wandering_terrain/editor/new_terrain_panel.gd")
const AssetDock := preload("res://addons/wandering_terrain/editor/asset_dock.gd")
const BrushCursor := preload("res://addons/wandering_terrain/editor/brush_cursor.gd")
const EditBookkeeping := preload("res://addons/wandering_terrain/editor/edit_bookkeeping.gd")
const ImpostorInspector := preload("res://addons/wandering_terrain/editor/impostor_inspector.gd")

## Distance between dabs along the mouse path, as a share of the brush size.
const DAB_SPACING := 0.25

var brush := TerrainBrush.new()
var toolbar: Toolbar
var generate_panel: GeneratePanel
var erode_panel: ErodePanel
var import_panel: ImportPanel
var external_data: ExternalData
var new_terrain_panel: NewTerrainPanel
var terrain: Node3D
## The brush on the ground (ring, decal) and the holes overlay (`editor/brush_cursor.gd`).
var _cursor := BrushCursor.new()
## The brush projected onto the ground under the mouse (Forward+ and Mobile draw decals).
var decal: Decal:
	get:
		return _cursor.decal
## The stroke being painted (every tool: terrain data, instances and detail keep their undo data in it).
var stroke: TerrainBrushStroke
## Seconds each dab lasts when > 0 (tests); otherwise the time since the last dab (strength per second).
var fixed_dab_seconds := 0.0
var _last_dab_pos := Vector3.INF
var _last_dab_usec := 0
## What the tools changed and its saving (`editor/edit_bookkeeping.gd`).
var _saves := EditBookkeeping.new()
## "N unsaved regions" in the toolbar while the selected region map has edits ("saving regions N %" while
## the editor's save writes them).
var _unsaved: Label:
	get:
		return _saves.label
## Random image turns (Random mode).
var _rng := RandomNumberGenerator.new()
## The "Terrain Assets" bottom panel (asset_dock.gd).
var asset_dock: AssetDock
## The toolbar's debug view menu (debug_view of the selected TerrainNode or WanderingTerrain).
var debug_view: OptionButton
## The "Bake impostor" row in TerrainInstanceMesh's inspector (editor/impostor_inspector.gd).
var impostor_inspector: ImpostorInspector


func _enter_tree() -> void:
	# Scripts and tests find the plugin here.
	Engine.set_meta("wandering_terrain_plugin", self)
	toolbar = Toolbar.new()
	toolbar.setup(brush)
	new_terrain_panel = NewTerrainPanel.new()
	new_terrain_panel.undo_redo = get_undo_redo()
	toolbar.add_child(new_terrain_panel)
	new_terrain_panel.created.connect(func(_d): _edit(terrain))
	generate_panel = GeneratePanel.new()
	generate_panel.undo_redo = get_undo_redo()
	toolbar.add_child(generate_panel)
	generate_panel.finished.connect(_mark_touched)
	erode_panel = ErodePanel.new()
	erode_panel.undo_redo = get_undo_redo()
	toolbar.add_child(erode_panel)
	erode_panel.finished.connect(_mark_touched)
	import_panel = ImportPanel.new()
	import_panel.undo_redo = get_undo_redo()
	toolbar.add_child(import_panel)
	import_panel.imported.connect(_mark_touched)
	external_data = ExternalData.new()
	toolbar.add_child(external_data)
	toolbar.add_child(_saves.label)
	debug_view = OptionButton.new()
	# The views as the class lists them (its debug_view property's enum hint): one list, never out of step.
	for v in _debug_view_names():
		debug_view.add_item("View: normal" if v == "Off" else v)
	debug_view.tooltip_text = "Debug view of the selected terrain (its debug_view property)"
	debug_view.item_selected.connect(func(i):
		if _is_terrain(terrain):
			terrain.debug_view = i)
	toolbar.add_child(debug_view)
	add_control_to_container(CONTAINER_SPATIAL_EDITOR_MENU, toolbar)
	toolbar.hide()
	asset_dock = AssetDock.new()
	asset_dock.brush = brush
	asset_dock.toolbar = toolbar
	asset_dock.undo_redo = get_undo_redo()
	add_control_to_bottom_panel(asset_dock, "Terrain Assets")
	impostor_inspector = ImpostorInspector.new()
	add_inspector_plugin(impostor_inspector)


## The debug views' names, in their numbers' order, from TerrainNode's `debug_view` property hint.
static func _debug_view_names() -> PackedStringArray:
	for p in ClassDB.class_get_property_list("TerrainNode"):
		if p["name"] == "debug_view":
			return (p["hint_string"] as String).split(",")
	return PackedStringArray(["Off"])


func _exit_tree() -> void:
	if stroke != null:
		_end()
	_saves.finish()
	if Engine.has_meta("wandering_terrain_plugin"):
		Engine.remove_meta("wandering_terrain_plugin")
	_drop_cursor()
	_cursor.hide_holes()
	debug_view = null
	if impostor_inspector:
		remove_inspector_plugin(impostor_inspector)
		impostor_inspector = null
	if asset_dock:
		remove_control_from_bottom_panel(asset_dock)
		asset_dock.queue_free()
		asset_dock = null
	if toolbar:
		remove_control_from_container(CONTAINER_SPATIAL_EDITOR_MENU, toolbar)
		toolbar.queue_free()
		toolbar = null


func _process(_delta: float) -> void:
	_update_hole_overlay()
	_saves.update_label(_source())
	# Holding the button still keeps painting (strength is per second).
	if stroke != null and is_finite(_last_dab_pos.x) and fixed_dab_seconds <= 0.0:
		var now := Time.get_ticks_usec()
		var dt := (now - _last_dab_usec) / 1e6
		if dt >= 1.0 / 30.0:
			_dab(_last_dab_pos, minf(dt, 0.25))
			_last_dab_usec = now


## Writes what the tools changed that lives in its own files (`edit_bookkeeping.gd`); the editor calls this
## when it saves.
func _save_external_data() -> void:
	_saves.save_external_data()


## True while a region map's save still runs (and ends those that are done).
func is_saving() -> bool:
	return _saves.is_saving()


func _mark_touched(d: Resource) -> void:
	_saves.mark_touched(d)


## Shows holes on the selected terrain's material while a hole tool is chosen (`show_holes`).
func _update_hole_overlay() -> void:
	var want: ShaderMaterial = null
	if toolbar and toolbar.visible and terrain and is_instance_valid(terrain):
		var t := toolbar.tool_for(false, false)
		if t == TerrainBrush.HOLE_ADD or t == TerrainBrush.HOLE_REMOVE:
			want = terrain.get("material") as ShaderMaterial
	_cursor.show_holes_on(want)


## Before the editor saves: the overlay is not saved with a material (it comes back on the next frame).
func _apply_changes() -> void:
	_cursor.hide_holes()


## What the brushes edit on the selected terrain: its TerrainData, else (TerrainNode) its TerrainRegions.
func _source() -> Resource:
	if terrain == null or not is_instance_valid(terrain):
		return null
	if terrain.terrain_data != null:
		return terrain.terrain_data
	return terrain.get("terrain_regions")


func _handles(object: Object) -> bool:
	return _is_terrain(object)


## The nodes the tools work on (everything else goes through the terrain contract the two share).
func _is_terrain(object: Object) -> bool:
	return object is TerrainNode or object is WanderingTerrain


func _edit(object: Object) -> void:
	if stroke != null:
		_end()
	_drop_cursor()
	terrain = object as Node3D
	if toolbar and terrain:
		toolbar.set_layers(terrain.terrain_material)
		toolbar.set_instancer(_instancer())
	if asset_dock and terrain:
		asset_dock.set_context(terrain, _instancer())
	if generate_panel and not generate_panel.running():
		generate_panel.context = terrain
	if erode_panel and not erode_panel.running():
		erode_panel.context = terrain
	if import_panel:
		import_panel.context = terrain
	if external_data:
		external_data.context = terrain
	if new_terrain_panel:
		new_terrain_panel.context = terrain
	if debug_view:
		debug_view.visible = _is_terrain(terrain)
		if debug_view.visible:
			debug_view.select(terrain.debug_view)


func _make_visible(visible: bool) -> void:
	if toolbar:
		toolbar.visible = visible
	if not visible:
		if stroke != null:
			_end()
		_drop_cursor()


## The edited terrain's first TerrainInstancer child (null: none).
func _instancer() -> TerrainInstancer:
	if terrain == null or not is_instance_valid(terrain):
		return null
	for c in terrain.get_children():
		if c is TerrainInstancer:
			return c
	return null


## The tools that go to the TerrainInstancer (instances and detail density) rather than terrain data.
static func _is_instance_tool(t: int) -> bool:
	return t in [TerrainBrush.INSTANCE_ADD, TerrainBrush.INSTANCE_REMOVE, TerrainBrush.DETAIL_ADD, TerrainBrush.DETAIL_REMOVE]


func _forward_3d_gui_input(camera: Camera3D, event: InputEvent) -> int:
	if terrain == null or not is_instance_valid(terrain):
		return AFTER_GUI_INPUT_PASS
	# Instances go on any terrain source; the other tools edit terrain data.
	var instance_tool := _is_instance_tool(toolbar.tool_for(false, false))
	if instance_tool and toolbar.instancer != _instancer():
		toolbar.set_instancer(_instancer())
	if _source() == null and not (instance_tool and _instancer()):
		return AFTER_GUI_INPUT_PASS
	if event is InputEventKey and event.pressed and not event.echo:
		if event.keycode == KEY_BRACKETLEFT or event.keycode == KEY_BRACKETRIGHT:
			brush.size = clampf(brush.size * (0.8 if event.keycode == KEY_BRACKETLEFT else 1.25), 0.5, 4096.0)
			toolbar.refresh()
			return AFTER_GUI_INPUT_STOP
		return AFTER_GUI_INPUT_PASS
	if not (event is InputEventMouse):
		return AFTER_GUI_INPUT_PASS
	if toolbar.tool_for(false, false) == Toolbar.NONE and stroke == null:
		_show_cursor(Vector3(NAN, NAN, NAN))
		return AFTER_GUI_INPUT_PASS
	var hit := _hit(camera, event.position)
	_show_cursor(hit)
	if event is InputEventMouseButton and event.button_index == MOUSE_BUTTON_LEFT:
		if event.pressed and event.alt_pressed and is_finite(hit.x) and toolbar.tool_for(false, false) == TerrainBrush.SLOPE:
			# The slope's ends, in terrain space.
			if event.ctrl_pressed:
				brush.slope_to = _to_terrain(hit)
			else:
				brush.slope_from = _to_terrain(hit)
			return AFTER_GUI_INPUT_STOP
		if event.pressed and is_finite(hit.x):
			_begin(hit, event)
			return AFTER_GUI_INPUT_STOP if stroke != null else AFTER_GUI_INPUT_PASS
		if not event.pressed and stroke != null:
			_end()
			return AFTER_GUI_INPUT_STOP
	if event is InputEventMouseMotion and stroke != null:
		# The release was lost (focus, freelook): the stroke ends here.
		if not (event.button_mask & MOUSE_BUTTON_MASK_LEFT):
			_end()
			return AFTER_GUI_INPUT_PASS
		if is_finite(hit.x):
			_dabs_to(hit)
		return AFTER_GUI_INPUT_STOP
	return AFTER_GUI_INPUT_PASS


## World point under the mouse on the drawn terrain (NaN when none).
func _hit(camera: Camera3D, pos: Vector2) -> Vector3:
	return terrain.raycast(camera.project_ray_origin(pos), camera.project_ray_normal(pos))


## World -> terrain space (both nodes say how they place their terrain).
func _to_terrain(p: Vector3) -> Vector3:
	return terrain.to_terrain_position(p)


func _begin(hit: Vector3, event: InputEventMouseButton) -> void:
	if stroke != null:
		_end()
	var local := _to_terrain(hit)
	var t := toolbar.tool_for(event.ctrl_pressed, event.shift_pressed)
	if t == TerrainBrush.SLOPE and brush.slope_from.is_equal_approx(brush.slope_to):
		push_warning("Terrain slope: Alt+click its start and Alt+Ctrl+click its end first.")
		return
	if _is_instance_tool(t) and _instancer() == null:
		push_warning("Terrain instances and detail: add a TerrainInstancer (with meshes or detail layers) under the terrain first.")
		return
	brush.tool = t
	stroke = TerrainBrushStroke.begin(terrain, brush)
	if stroke == null:
		return
	if not _is_instance_tool(t):
		_mark_touched(_source())
	if brush.tool == TerrainBrush.FLATTEN:
		brush.height = local.y
	_last_dab_pos = Vector3.INF
	_last_dab_usec = Time.get_ticks_usec()
	_dab(hit, fixed_dab_seconds if fixed_dab_seconds > 0.0 else 1.0 / 30.0)


func _dabs_to(hit: Vector3) -> void:
	var step := maxf(brush.size * DAB_SPACING, 0.05)
	var now := Time.get_ticks_usec()
	var dt := clampf((now - _last_dab_usec) / 1e6, 0.0, 0.25)
	var dist := _last_dab_pos.distance_to(hit) if is_finite(_last_dab_pos.x) else step
	var n := maxi(int(dist / step), 0)
	if n == 0:
		return
	# The time since the last dab is shared by the dabs along the path: strength stays per second.
	var each := fixed_dab_seconds if fixed_dab_seconds > 0.0 else dt / n
	var from := _last_dab_pos
	for i in range(1, n + 1):
		_dab(from.lerp(hit, float(i) / n) if is_finite(from.x) else hit, each)
	_last_dab_usec = now


func _dab(world: Vector3, dt: float) -> void:
	_turn_image(_last_dab_pos, world)
	_last_dab_pos = world
	# One call a dab: the stroke saves what the dab can reach for undo, then applies it.
	stroke.dab(world, dt)


## The brush image's turn for the next dab (toolbar: fixed, random, or along the stroke from `from`).
func _turn_image(from: Vector3, to: Vector3) -> void:
	if brush.image == null:
		return
	match toolbar.rotation_mode:
		Toolbar.ROTATION_RANDOM:
			brush.image_rotation = _rng.randf_range(-180.0, 180.0)
		Toolbar.ROTATION_FOLLOW:
			var d := _to_terrain(to) - _to_terrain(from) if is_finite(from.x) else Vector3.ZERO
			if Vector2(d.x, d.z).length() > 1e-6:
				brush.image_rotation = rad_to_deg(atan2(d.z, d.x))


func _end() -> void:
	var s := stroke
	stroke = null
	if not s.finish():
		return
	var ur := get_undo_redo()
	var tool := s.get_tool()
	# The terrain node as context: the action lands in its scene's history and marks the scene unsaved.
	ur.create_action("Terrain: %s stroke" % toolbar.tool_name(tool), UndoRedo.MERGE_DISABLE, terrain)
	ur.add_do_method(s, "redo")
	ur.add_undo_method(s, "undo")
	# Already applied while painting: commit without doing it again.
	ur.commit_action(false)


func _show_cursor(hit: Vector3) -> void:
	_cursor.show(terrain, brush, hit)


func _drop_cursor() -> void:
	_cursor.drop()
