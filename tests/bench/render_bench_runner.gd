extends SceneTree
## Godot-side benchmarks that need a real renderer: runs every res://bench/render_bench_*.gd
## (`run(quick: bool)`) under the renderer it was started with (`cargo xtask bench` starts it under Xvfb).


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args := OS.get_cmdline_user_args()
	var quick := args.has("--quick")
	# `--only TEXT`: just the benches whose file name contains TEXT.
	var at := args.find("--only")
	var only: String = args[at + 1] if at >= 0 and at + 1 < args.size() else ""
	var renderer := RenderingServer.get_current_rendering_driver_name()
	print("bench: Godot ", Engine.get_version_info()["string"], ", ", renderer, " (quick)" if quick else "")
	var files := Array(DirAccess.get_files_at("res://bench"))
	files.sort()
	for f in files:
		if f.begins_with("render_bench_") and f.ends_with(".gd") and f != "render_bench_runner.gd" and (only == "" or f.contains(only)):
			var b = load("res://bench/" + f).new()
			b.tree = self
			b.renderer = renderer
			await b.run(quick)
	quit(0)
