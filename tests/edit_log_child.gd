extends SceneTree
## Child process of `test_terrain_edit_log.gd`: `--script res://edit_log_child.gd -- BASE LOG SEED`.
## Loads the base map BASE (a TerrainData) and the operations of the TerrainEditLog LOG, applies them to
## the base through `apply_edit` — in order when SEED is 0, else shuffled by SEED in blocks of 16 (out-of-order
## arrival), each block's first operation sent again — and prints "HASH <content hash> APPLIED <count> HELD <held> THREADS <RAYON_NUM_THREADS>".


func _init() -> void:
	var args := OS.get_cmdline_user_args()
	if args.size() < 3:
		quit(1)
		return
	var data := ResourceLoader.load(args[0], "", ResourceLoader.CACHE_MODE_IGNORE) as TerrainData
	var recorded := ResourceLoader.load(args[1], "", ResourceLoader.CACHE_MODE_IGNORE) as TerrainEditLog
	if data == null or recorded == null:
		quit(2)
		return
	var log := TerrainEditLog.new()
	log.map_id = recorded.map_id
	data.edit_log = log
	var ops: Array[PackedByteArray] = recorded.operations
	var order := range(ops.size())
	var seed := int(args[2])
	if seed != 0:
		var rng := RandomNumberGenerator.new()
		rng.seed = seed
		# Blocks of up to 16 shuffled, each block's first one sent again.
		var shuffled := []
		for start in range(0, order.size(), 16):
			var block := order.slice(start, start + 16)
			for i in range(block.size() - 1, 0, -1):
				var j := rng.randi_range(0, i)
				var tmp = block[i]
				block[i] = block[j]
				block[j] = tmp
			shuffled.append_array(block)
			shuffled.append(block[0])
		order = shuffled
	var refused := 0
	for i in order:
		var e := data.apply_edit(ops[i])
		refused += int(e != OK and e != ERR_ALREADY_EXISTS)
	print("HASH %d APPLIED %d HELD %d REFUSED %d THREADS %s" % [data.get_content_hash(Rect2i()), log.get_operation_count(), log.get_held_count(), refused, OS.get_environment("RAYON_NUM_THREADS")])
	quit(0)
