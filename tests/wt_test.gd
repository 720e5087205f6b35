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


## Announces that the next calls must log an error containing `text`. The runner fails the case when
## no such error appears, and any other error line still fails it.
func expect_error(text: String) -> void:
	print("::expect-error ", text)


func failures() -> PackedStringArray:
	return _failures


## Waits for `n` drawn frames; then the root viewport's texture holds the last one.
func frames(n: int) -> void:
	for i in n:
		await tree.process_frame
	await RenderingServer.frame_post_draw


## Waits (process frames) until every node or resource in `things` says `is_up_to_date()`, at most
## `max_frames`; a check fails when they do not. Returns the frames waited.
func wait_up_to_date(things: Array, max_frames := 600) -> int:
	var waited := 0
	while waited < max_frames and not things.all(func(t): return t.is_up_to_date()):
		await tree.process_frame
		waited += 1
	check(things.all(func(t): return t.is_up_to_date()), "up to date within %d frames" % max_frames)
	return waited


func screenshot(name: String) -> Image:
	var img := tree.root.get_texture().get_image()
	if img != null and out_dir != "":
		var path := out_dir.path_join(name + ".png")
		img.save_png(path)
		print("::png ", path)
	return img
