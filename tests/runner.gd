extends SceneTree
## Runs every test suite in a folder: `-s res://runner.gd -- --dir res://suites [--out DIR] [--renderer R]
## [--filter TEXT[,TEXT…]]`. Frames each case with ::begin / ::end lines that `cargo xtask test` scans together with
## the engine's error lines (a Godot run exits 0 even after script errors, so the log decides).


func _initialize() -> void:
	_run.call_deferred()


func _arg(args: PackedStringArray, name: String, default: String) -> String:
	var i := args.find(name)
	return args[i + 1] if i >= 0 and i + 1 < args.size() else default


## `--filter` is empty (every case) or comma-separated texts: a case runs when its name or its suite's
## contains one of them and its name contains none of the texts written with a leading "-".
func _selected(filter: String, suite_name: String, name: String) -> bool:
	if filter == "":
		return true
	var chosen := false
	for f in filter.split(",", false):
		if f.begins_with("-"):
			if name.contains(f.substr(1)):
				return false
		elif name.contains(f) or suite_name.contains(f):
			chosen = true
	return chosen


func _run() -> void:
	var args := OS.get_cmdline_user_args()
	var dir := _arg(args, "--dir", "res://suites")
	var out := _arg(args, "--out", "")
	var renderer := _arg(args, "--renderer", "headless")
	var filter := _arg(args, "--filter", "")
	var files: PackedStringArray = []
	for f in DirAccess.get_files_at(dir):
		if f.ends_with(".gd"):
			files.append(dir.path_join(f))
	files.sort()
	var passed := 0
	var failed := 0
	for path in files:
		var suite_name := path.get_file().get_basename()
		var script: GDScript = load(path)
		if script == null or not script.can_instantiate():
			print("::begin %s/load" % suite_name)
			print("::fail could not load %s" % path)
			print("::end %s/load FAIL" % suite_name)
			failed += 1
			continue
		for m in script.get_script_method_list():
			var name: String = m["name"]
			if not name.begins_with("test_") or not _selected(filter, suite_name, name):
				continue
			var suite = script.new()
			suite.tree = self
			suite.out_dir = out
			suite.renderer = renderer
			var case_name := "%s/%s" % [suite_name, name]
			print("::begin ", case_name)
			var t0 := Time.get_ticks_usec()
			await suite.call(name)
			var fails: PackedStringArray = suite.failures()
			for f in fails:
				print("::fail ", f)
			var ok := fails.is_empty()
			print("::end %s %s  (%.1f ms)  %s" % [case_name, "", (Time.get_ticks_usec() - t0) / 1000.0, "PASS" if ok else "FAIL"])
			if ok:
				passed += 1
			else:
				failed += 1
	print("::summary passed=%d failed=%d" % [passed, failed])
	quit(1 if failed > 0 else 0)
