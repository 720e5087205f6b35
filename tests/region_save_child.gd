extends SceneTree
## Child process of `test_terrain_regions.gd`'s kill test: `--script res://region_save_child.gd -- FOLDER`.
## Edits every region of the map in FOLDER to one value k (1, 2, 3, …) and saves, over and over, writing
## "begin k" before each save and "end k USEC" after it (how long the save took) to FOLDER/../kill_log.txt, until it is killed (or for
## 15 seconds at most, so a child whose parent went away stops by itself).


func _init() -> void:
	var args := OS.get_cmdline_user_args()
	var folder: String = args[0] if args.size() > 0 else ""
	var regions := TerrainRegions.open(folder)
	if regions == null:
		quit(1)
		return
	var log := FileAccess.open(folder.get_base_dir().path_join("kill_log.txt"), FileAccess.WRITE)
	var size := regions.get_size()
	var values := PackedFloat32Array()
	values.resize(size.x * size.y)
	var deadline := Time.get_ticks_msec() + 15000
	var k := 1
	while Time.get_ticks_msec() < deadline:
		values.fill(float(k))
		regions.set_heights_region(Rect2i(Vector2i.ZERO, size), values)
		log.store_line("begin %d" % k)
		log.flush()
		var t0 := Time.get_ticks_usec()
		if regions.save() != OK:
			quit(2)
			return
		log.store_line("end %d %d" % [k, Time.get_ticks_usec() - t0])
		log.flush()
		k += 1
	quit(0)
