extends SceneTree
## Renders every demo scene in res://scenes/ to PNG: `-s res://tools/render_demo.gd -- --out DIR
## [--only NAME]` (`--only`: the scenes whose file name contains NAME).
## A scene root may offer `demo_views() -> Array[Camera3D]` to be shot once per view; otherwise its current
## camera is used; one offering `view_ready() -> bool` is waited for. Prints `::png PATH` per picture (read by `cargo xtask demo`).


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args := OS.get_cmdline_user_args()
	var i := args.find("--out")
	var out := args[i + 1] if i >= 0 and i + 1 < args.size() else OS.get_user_data_dir()
	DirAccess.make_dir_recursive_absolute(out)
	var o := args.find("--only")
	var only := args[o + 1] if o >= 0 and o + 1 < args.size() else ""
	var scenes: PackedStringArray = []
	for f in DirAccess.get_files_at("res://scenes"):
		if f.ends_with(".tscn") and (only == "" or f.contains(only)):
			scenes.append(f)
	scenes.sort()
	for f in scenes:
		var packed: PackedScene = load("res://scenes/" + f)
		var scene := packed.instantiate()
		root.add_child(scene)
		for n in 3:
			await process_frame
		var views: Array = scene.call("demo_views") if scene.has_method("demo_views") else [null]
		for cam in views:
			var view_name := f.get_basename()
			if cam != null:
				(cam as Camera3D).make_current()
				view_name += "_" + String(cam.name).to_snake_case()
			if scene.has_method("prepare_view"):
				scene.call("prepare_view", cam)
			# A scene whose terrain streams in says when its view is complete.
			var waited := 0
			while scene.has_method("view_ready") and waited < 3000:
				await process_frame
				waited += 1
				if scene.call("view_ready"):
					break
			for n in 6:
				await process_frame
			await RenderingServer.frame_post_draw
			var path := out.path_join(view_name + ".png")
			root.get_texture().get_image().save_png(path)
			print("::png ", path)
		scene.queue_free()
		await process_frame
	quit(0)
