extends RefCounted
## Base of every Godot-side test suite. Methods named test_* are cases; they may await.
## Checks record failures and keep going, so one run reports every broken expectation.

## The running SceneTree (add nodes to tree.root, await tree.process_frame).
var tree: SceneTree
## Folder for pictures and other artefacts of this run.
var out_dir: String
## "headless", "opengl3" or "vulkan".
var renderer: String

var _failures: PackedStringArray = []


func check(cond: bool, msg: String) -> bool:
	if not cond:
		_failures.append(msg)
	return cond


func check_eq(got: Variant, want: Variant, msg := "") -> bool:
	return check(got == want, "%s: got %s, want %s" % [msg, str(got), str(want)])


func check_near(got: float, want: float, tol: float, msg := "") -> bool:
	return check(absf(got - want) <= tol, "%s: got %s, want %s (tol %s)" % [msg, got, want, tol])


## The running worst of errors, NaN-safe: a non-finite error makes it INF for good, so a check on it
## fails (`maxf(worst, NaN)` would keep the NaN only until the next finite value).
static func worst_of(worst: float, e: float) -> float:
	return INF if not (is_finite(e) and is_finite(worst)) else maxf(worst, e)


## Collects the warnings Godot logs while it is registered (`OS.add_logger(log)` … `OS.remove_logger(log)`):
## for checks that a call warns (warning lines do not fail a case, so the runner cannot see them).
class WarningLog extends Logger:
	var lines: PackedStringArray = []
	var _lock := Mutex.new()

	func _log_error(_function: String, _file: String, _line: int, code: String, rationale: String, _editor_notify: bool, error_type: int, _script_backtraces: Array[ScriptBacktrace]) -> void:
		if error_type == ERROR_TYPE_WARNING:
			_lock.lock()
			lines.append(rationale if rationale != "" else code)
			_lock.unlock()

	## Whether a warning containing `text` was logged.
	func has(text: String) -> bool:
		_lock.lock()
		var found := Array(lines).any(func(l: String) -> bool: return l.contains(text))
		_lock.unlock()
		return found


## Announces that the next calls must log an error containing `text`. The runner fails the case when
## no such error appears, and any other error line still fails it.
func expect_error(text: String) -> void:
	print("::expect-error ", text)


func failures() -> PackedStringArray:
	return _failures


## Waits for `n` drawn frames; then the root viewport's texture holds the last one. First waits (at
## most 600 process frames) for every visible TerrainNode and TerrainInstancer in the tree to draw what
## their target and data ask for: windows and cells are computed on worker threads, and under load a few
## frames may not be enough, which made pictures depend on the machine's load.
func frames(n: int) -> void:
	var waited := 0
	while waited < 600 and not _terrain_nodes_current():
		await tree.process_frame
		waited += 1
	for i in n:
		await tree.process_frame
	await RenderingServer.frame_post_draw


func _terrain_nodes_current() -> bool:
	for cls in ["TerrainNode", "TerrainInstancer"]:
		for n in tree.root.find_children("*", cls, true, false):
			if n.is_visible_in_tree() and not n.is_up_to_date():
				return false
	return true


## Waits (process frames) until every node or resource in `things` says `is_up_to_date()`, at most
## `max_frames`; a check fails when they do not. Returns the frames waited.
func wait_up_to_date(things: Array, max_frames := 600) -> int:
	var waited := 0
	while waited < max_frames and not things.all(func(t): return t.is_up_to_date()):
		await tree.process_frame
		waited += 1
	check(things.all(func(t): return t.is_up_to_date()), "up to date within %d frames" % max_frames)
	return waited


## A TerrainNode over `source` (a TerrainData, TerrainRegions or TerrainGenerator) following a fresh
## Node3D target at `at`; both are in the tree. Small rings (tile_resolution 16, levels 5) unless
## `settings` (property → value, set before the node enters the tree) says otherwise. Returns
## [node, target]; free both at the end.
func following_node(source: Resource, at := Vector3.ZERO, settings := {}) -> Array:
	var target := Node3D.new()
	tree.root.add_child(target)
	target.position = at
	var tn := TerrainNode.new()
	tn.tile_resolution = 16
	tn.levels = 5
	if source is TerrainData:
		tn.terrain_data = source
	elif source is TerrainRegions:
		tn.terrain_regions = source
	elif source is TerrainGenerator:
		tn.terrain_generator = source
	else:
		check(false, "following_node: %s is not a terrain source" % source)
	for key in settings:
		check(key in tn, "following_node: TerrainNode has no property %s" % key)
		tn.set(key, settings[key])
	tree.root.add_child(tn)
	tn.target = tn.get_path_to(target)
	return [tn, target]


## A sun (DirectionalLight3D) turned by `degrees`, added to `parent`.
func add_sun(parent: Node, degrees := Vector3(-50, 30, 0)) -> DirectionalLight3D:
	var sun := DirectionalLight3D.new()
	sun.rotation_degrees = degrees
	parent.add_child(sun)
	return sun


## The lit scene of the render cases: a magenta clear colour (no terrain pixel may keep it), grey ambient
## light of `ambient` and a sun (child "Sun") turned by `sun_degrees`, under a fresh root in the tree
## (returned; free it at the end).
func lit_scene(ambient: float, sun_degrees := Vector3(-50, 30, 0)) -> Node3D:
	RenderingServer.set_default_clear_color(Color(1, 0, 1))
	var root := Node3D.new()
	tree.root.add_child(root)
	var env := Environment.new()
	env.background_mode = Environment.BG_CLEAR_COLOR
	env.ambient_light_source = Environment.AMBIENT_SOURCE_COLOR
	env.ambient_light_color = Color(ambient, ambient, ambient)
	var we := WorldEnvironment.new()
	we.environment = env
	root.add_child(we)
	add_sun(root, sun_degrees).name = "Sun"
	return root


func screenshot(name: String) -> Image:
	var img := tree.root.get_texture().get_image()
	if img != null and out_dir != "":
		var path := out_dir.path_join(name + ".png")
		img.save_png(path)
		print("::png ", path)
	return img
