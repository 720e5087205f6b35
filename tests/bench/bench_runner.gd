extends SceneTree
## Godot-side benchmarks: runs every res://bench/bench_*.gd (`run(quick: bool)`), each printing
## `bench <name>: ...` lines with medians and a ratio against a reference measured in the same run.


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args := OS.get_cmdline_user_args()
	var quick := args.has("--quick")
	# `--only TEXT`: just the benches whose file name contains TEXT.
	var only := args[args.find("--only") + 1] if args.find("--only") >= 0 and args.find("--only") + 1 < args.size() else ""
	print("bench: Godot ", Engine.get_version_info()["string"], ", ", OS.get_processor_count(), " cores", " (quick)" if quick else "")
	var files := Array(DirAccess.get_files_at("res://bench"))
	files.sort()
	for f in files:
		if f.begins_with("bench_") and f.ends_with(".gd") and f != "bench_runner.gd" and (only == "" or f.contains(only)):
			var script: GDScript = load("res://bench/" + f)
			if script == null or not script.can_instantiate():
				# A bench that does not parse must not hang the run.
				printerr("bench: %s cannot be loaded" % f)
				quit(1)
				return
			var b = script.new()
			if "tree" in b:
				b.tree = self
			if b.has_method("run"):
				await b.run(quick)
	quit(0)
