@tool
extends EditorPlugin
## Renders the editor with the open world selected, the terrain toolbar and the brush ring over the ground,
## and the wandering terrain demo as the editor shows it (`<PATH>_wandering.png`), for the docs. Runs only when the editor is started with `-- --editor-screenshot PATH` (cargo xtask demo
## does, under Xvfb); prints `::png PATH` and quits.

const SCENE := "res://scenes/open_world.tscn"


func _enter_tree() -> void:
	var args := OS.get_cmdline_user_args()
	var i := args.find("--editor-screenshot")
	if i >= 0 and i + 1 < args.size():
		_shoot.call_deferred(args[i + 1])


func _frames(n: int) -> void:
	for k in n:
		await get_tree().process_frame


func _shoot(path: String) -> void:
	# The editor only draws when something changes; keep it drawing while the picture is made.
	var settings := EditorInterface.get_editor_settings()
	var was: bool = settings.get_setting("interface/editor/update_continuously")
	settings.set_setting("interface/editor/update_continuously", true)
	OS.low_processor_usage_mode = false
	await _frames(10)
	EditorInterface.open_scene_from_path(SCENE)
	EditorInterface.set_main_screen_editor("3D")
	await _frames(20)
	var root := EditorInterface.get_edited_scene_root()
	var tn: TerrainNode = root.get_node_or_null("TerrainNode") if root else null
	var plugin = Engine.get_meta("wandering_terrain_plugin", null)
	if tn == null or plugin == null or tn.terrain_data == null:
		push_error("editor screenshot: the open world or the terrain plugin is missing")
		get_tree().quit(1)
		return
	EditorInterface.edit_node(tn)
	await _frames(5)
	# The editor's camera over the road and the pit (the demo's RoadAndPit view).
	var vp := EditorInterface.get_editor_viewport_3d(0)
	var cam := vp.get_camera_3d()
	var c := Vector2(tn.terrain_data.size) * 0.5 + Vector2(-60, 250)
	cam.global_position = Vector3(c.x, tn.get_height(c) + 80.0, c.y)
	cam.global_rotation_degrees = Vector3(-28, 0, 0)
	await _frames(5)
	plugin.toolbar.select_tool(TerrainBrush.PAINT)
	plugin.brush.size = 40.0
	plugin.toolbar.refresh()
	# The road layer in the layer picker.
	plugin.toolbar._layer.select(4)
	plugin.toolbar._layer.item_selected.emit(4)
	var e := InputEventMouseMotion.new()
	e.position = Vector2(vp.size) * Vector2(0.62, 0.45)
	plugin._forward_3d_gui_input(cam, e)
	await _frames(30)
	await RenderingServer.frame_post_draw
	var img := get_tree().root.get_texture().get_image()
	img.save_png(path)
	print("::png ", path)
	# The wandering terrain demo as the editor shows it (its tool script generates the terrain there too).
	var second := path.get_basename() + "_wandering.png"
	EditorInterface.open_scene_from_path("res://scenes/wandering_terrain.tscn")
	await _frames(20)
	var wroot := EditorInterface.get_edited_scene_root()
	var wt: WanderingTerrain = wroot.get_node_or_null("EagleTerrain") if wroot else null
	if wt == null or wt.terrain_data == null:
		push_error("editor screenshot: the wandering terrain demo shows no terrain in the editor")
		get_tree().quit(1)
		return
	EditorInterface.edit_node(wt)
	cam = EditorInterface.get_editor_viewport_3d(0).get_camera_3d()
	cam.look_at_from_position(Vector3(150, 45, 190), Vector3(128, 0, 128))
	await _frames(30)
	await RenderingServer.frame_post_draw
	get_tree().root.get_texture().get_image().save_png(second)
	print("::png ", second)
	settings.set_setting("interface/editor/update_continuously", was)
	get_tree().quit(0)
