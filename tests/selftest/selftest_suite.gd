extends "res://wt_test.gd"
## Planted failures: `cargo xtask test` runs this folder separately and passes only when exactly
## test_passes passes and every other case is reported failed. It proves the runner cannot pass silently.


func test_passes() -> void:
	check_eq(1 + 1, 2, "arithmetic")


func test_failed_check() -> void:
	check_eq(1 + 1, 3, "planted failing check")


func test_script_error() -> void:
	var o: Object = RefCounted.new()
	o.call("no_such_method_planted_by_selftest")


func test_unexpected_error() -> void:
	push_error("planted unexpected error")


func test_expected_error_missing() -> void:
	expect_error("an error that never comes")


func test_engine_error() -> void:
	var img := Image.new()
	img.get_pixel(5, 5)


func test_extension_error_unexpected() -> void:
	var m := WanderingMesh.new()
	m.start_subdivision = -1


func test_nan_error_is_not_forgotten() -> void:
	# A NaN error followed by finite ones: plain maxf would end at 0.5 and pass.
	var worst := 0.0
	for e in [0.1, NAN, 0.5]:
		worst = worst_of(worst, e)
	check(worst <= 1.0, "planted NaN error: worst %s" % worst)
