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
## file.

const Toolbar := preload("res://addons/wandering_terrain/editor/brush_toolbar.gd")
const InstanceStroke := preload("res://addons/wandering_terrain/editor/instance_stroke.gd")
const GeneratePanel := preload("res://addons/wandering_terrain/editor/generate_panel.gd")
const ErodePanel := preload("res://addons/wandering_terrain/editor/erode_panel.gd")
const ImportPanel := preload("res://addons/wandering_terrain/editor/import_panel.gd")
const ExternalData := preload("res://addons/wandering_terrain/editor/external_data.gd")
const NewTerrainPanel := preload("res://addons/wandering_terrain/editor/new_terrain_panel.gd")
const AssetDock := preload("res://addons/wandering_terrain/editor/asset_dock.gd")

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
var cursor: MeshInstance3D
## The brush projected onto the ground under the cursor (Forward+ and Mobile draw decals): its falloff
## and image as one dab weighs them (TerrainBrush.get_stamp), turned with the image.
var decal: Decal
## What the decal's texture was made from.
var _stamp_key := []
## The stroke being painted: a Stroke (terrain data) or an InstanceStroke (the instancer's cells).
var stroke: RefCounted
## Seconds each dab lasts when > 0 (tests); otherwise the time since the last dab (strength per second).
var fixed_dab_seconds := 0.0
var _last_dab_pos := Vector3.INF
var _last_dab_usec := 0
## TerrainData and TerrainRegions edited since the last save (data in its own file and edited regions are
## written with the scene).
var _touched: Array[Resource] = []
## Region maps saving on a worker (`save_async`, started by the editor's save): the toolbar shows their
## progress, `is_saving()` ends them when done.
var _saving: Array[TerrainRegions] = []
## "N unsaved regions" in the toolbar while the selected region map has edits.
var _unsaved: Label
## Random image turns (Random mode).
var _rng := RandomNumberGenerator.new()
## The "Terrain Assets" bottom panel (asset_dock.gd).
var asset_dock: AssetDock
## The toolbar's debug view menu (debug_view of the selected TerrainNode or WanderingTerrain).
var debug_view: OptionButton
## The terrain material whose hole overlay is on: with a hole tool, holes are tinted instead of cut, so
## they can be seen and removed.
var _overlay_material: ShaderMaterial


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
	_unsaved = Label.new()
	_unsaved.tooltip_text = "Edited regions of this region map, written when the scene is saved"
	toolbar.add_child(_unsaved)
	debug_view = OptionButton.new()
	for v in ["View: normal", "Checker", "Heightmap", "Normals", "Slope", "Levels", "Holes", "Layer weights", "Control slots", "Collision tiles", "Regions", "Instance cells", "Navigation faces"]:
		debug_view.add_item(v)
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


func _exit_tree() -> void:
	if stroke != null:
		_end()
	# Region saves finish before the editor goes (save() waits for a running save_async).
	for d in _saving:
		if is_instance_valid(d) and d.save() != OK:
			push_error("Terrain: could not save the edited regions of %s" % d.folder)
	_saving.clear()
	if Engine.has_meta("wandering_terrain_plugin"):
		Engine.remove_meta("wandering_terrain_plugin")
	_drop_cursor()
	_hide_hole_overlay()
	_unsaved = null
	debug_view = null
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
	if is_saving():
		_show_save_progress()
	elif _unsaved:
		var src := _source()
		var n: int = src.get_unsaved_region_count() if src is TerrainRegions else 0
		_unsaved.visible = n > 0
		_unsaved.text = "%d unsaved regions" % n
	# Holding the button still keeps painting (strength is per second).
	if stroke != null and is_finite(_last_dab_pos.x) and fixed_dab_seconds <= 0.0:
		var now := Time.get_ticks_usec()
		var dt := (now - _last_dab_usec) / 1e6
		if dt >= 1.0 / 30.0:
			_dab(_last_dab_pos, minf(dt, 0.25))
			_last_dab_usec = now


## Writes the TerrainData the tools changed that live in their own resource files (embedded data is saved
## with its scene anyway); the editor calls this when it saves.
func _save_external_data() -> void:
	for d in _touched:
		if not is_instance_valid(d):
			continue
		if d is TerrainRegions:
			# Region maps write only their edited regions, each file safely, on a worker thread (an
			# endless map's first save refreshes a region at every level: seconds); the toolbar shows it.
			if d.has_unsaved_changes() and not _saving.has(d):
				if d.save_async() == OK:
					_saving.append(d)
				else:
					push_error("Terrain: could not save the edited regions of %s" % d.folder)
		elif d.resource_path != "" and not d.resource_path.contains("::"):
			ExternalData.save_safely(d)
	_touched.clear()
	if not _saving.is_empty():
		_show_save_progress()


## Ends the region saves that are done (an error names a map that could not be saved); true while one
## still runs.
func is_saving() -> bool:
	for d in _saving.duplicate():
		var e: Error = d.finish_save() if is_instance_valid(d) else OK
		if e == ERR_BUSY:
			continue
		if e != OK:
			push_error("Terrain: could not save the edited regions of %s" % d.folder)
		_saving.erase(d)
	return not _saving.is_empty()


func _show_save_progress() -> void:
	if not _unsaved:
		return
	var p := 0.0
	for d in _saving:
		p += maxf(d.get_save_progress(), 0.0) / _saving.size()
	_unsaved.visible = true
	_unsaved.text = "saving regions %d %%" % int(p * 100.0)


func _mark_touched(d: Resource) -> void:
	if not _touched.has(d):
		_touched.append(d)


## Shows holes on the selected terrain's material while a hole tool is chosen (`show_holes`).
func _update_hole_overlay() -> void:
	var want: ShaderMaterial = null
	if toolbar and toolbar.visible and terrain and is_instance_valid(terrain):
		var t := toolbar.tool_for(false, false)
		if t == TerrainBrush.HOLE_ADD or t == TerrainBrush.HOLE_REMOVE:
			want = terrain.get("material") as ShaderMaterial
	if want == _overlay_material:
		return
	_hide_hole_overlay()
	_overlay_material = want
	if want:
		want.set_shader_parameter("show_holes", true)


func _hide_hole_overlay() -> void:
	if _overlay_material and is_instance_valid(_overlay_material):
		_overlay_material.set_shader_parameter("show_holes", false)
	_overlay_material = null


## Before the editor saves: the overlay is not saved with a material (it comes back on the next frame).
func _apply_changes() -> void:
	_hide_hole_overlay()


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
	if _is_instance_tool(t):
		var inst := _instancer()
		if inst == null:
			push_warning("Terrain instances and detail: add a TerrainInstancer (with meshes or detail layers) under the terrain first.")
			return
		stroke = InstanceStroke.new(inst, t)
		brush.tool = stroke.tool
	else:
		brush.tool = t
		stroke = TerrainBrushStroke.begin(terrain, brush)
		if stroke == null:
			return
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
	if stroke is InstanceStroke:
		# The instancer takes world X/Z.
		stroke.before_dab(Vector2(world.x, world.z), brush.size)
		stroke.instancer.apply_brush(brush, Vector2(world.x, world.z), dt)
		return
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
	var s = stroke
	stroke = null
	var native: bool = s is TerrainBrushStroke
	var changed := true
	if native:
		changed = s.finish()
	else:
		s.finish()
		changed = not s.is_empty()
	if not changed:
		return
	var ur := get_undo_redo()
	var tool: int = s.get_tool() if native else s.tool
	# The terrain node as context: the action lands in its scene's history and marks the scene unsaved.
	ur.create_action("Terrain: %s stroke" % toolbar.tool_name(tool), UndoRedo.MERGE_DISABLE, terrain)
	if native:
		ur.add_do_method(s, "redo")
		ur.add_undo_method(s, "undo")
	else:
		ur.add_do_method(s, "apply", "after")
		ur.add_undo_method(s, "apply", "before")
	# Already applied while painting: commit without doing it again.
	ur.commit_action(false)


func _show_cursor(hit: Vector3) -> void:
	if not is_finite(hit.x):
		if cursor:
			cursor.visible = false
		if decal:
			decal.visible = false
		return
	if cursor == null:
		cursor = MeshInstance3D.new()
		cursor.mesh = _ring_mesh()
		cursor.cast_shadow = GeometryInstance3D.SHADOW_CASTING_SETTING_OFF
		var m := StandardMaterial3D.new()
		m.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
		m.albedo_color = Color(1.0, 0.85, 0.2)
		m.no_depth_test = true
		cursor.material_override = m
		# Not part of the scene: an internal child, never saved.
		terrain.add_child(cursor, false, Node.INTERNAL_MODE_BACK)
	if not is_equal_approx(cursor.get_meta("hardness", -1.0), brush.hardness):
		cursor.mesh = _ring_mesh()
		cursor.set_meta("hardness", brush.hardness)
	cursor.visible = true
	cursor.global_position = hit + Vector3(0, 0.05, 0)
	cursor.scale = Vector3.ONE * brush.size * 0.5
	_show_decal(hit)


## The decal at `hit`, the brush's world size (a TerrainNode's scale included), its texture remade when the
## brush's shape changed.
func _show_decal(hit: Vector3) -> void:
	if decal == null:
		decal = Decal.new()
		decal.modulate = Color(1.0, 0.85, 0.2)
		decal.albedo_mix = 0.6
		decal.normal_fade = 0.0
		terrain.add_child(decal, false, Node.INTERNAL_MODE_BACK)
	var key := [brush.hardness, brush.image, brush.image_rotation]
	# A falloff curve edited in place is the same object: its shape is part of the key.
	if brush.falloff:
		for i in 9:
			key.append(brush.falloff.sample(i / 8.0))
	if key != _stamp_key:
		_stamp_key = key
		decal.texture_albedo = ImageTexture.create_from_image(brush.get_stamp(64))
	# World units per terrain unit (a TerrainNode's scale; 1 for a WanderingTerrain).
	var s: Vector3 = Vector3.ONE / (terrain.to_terrain_position(hit + Vector3.ONE) - terrain.to_terrain_position(hit))
	var side := brush.size * Vector2(s.x, s.z)
	decal.size = Vector3(side.x, maxf(side.x, side.y), side.y)
	decal.global_transform = Transform3D(Basis.IDENTITY, hit)
	decal.visible = true


## A unit circle of lines (scaled to the brush radius), with an inner circle at the falloff's hardness.
func _ring_mesh() -> ImmediateMesh:
	var m := ImmediateMesh.new()
	for r in [1.0, maxf(brush.hardness, 0.05)]:
		m.surface_begin(Mesh.PRIMITIVE_LINE_STRIP)
		for i in 65:
			var a := TAU * i / 64.0
			m.surface_add_vertex(Vector3(cos(a) * r, 0, sin(a) * r))
		m.surface_end()
	return m


func _drop_cursor() -> void:
	if cursor and is_instance_valid(cursor):
		cursor.queue_free()
	cursor = null
	if decal and is_instance_valid(decal):
		decal.queue_free()
	decal = null
	_stamp_key = []
