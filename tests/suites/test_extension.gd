extends "res://wt_test.gd"
## The extension is loaded and its classes compute in Rust.


func test_probe_sums_in_rust() -> void:
	check(ClassDB.class_exists("TerrainCoreProbe"), "TerrainCoreProbe registered")
	var p = ClassDB.instantiate("TerrainCoreProbe")
	check_near(p.sum(PackedFloat32Array([1.5, 2.25, -0.75])), 3.0, 1e-9, "sum")
	check_eq(p.version(), "0.1.0", "version")
