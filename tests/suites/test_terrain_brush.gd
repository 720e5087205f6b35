extends "res://wt_test.gd"
## TerrainBrush from GDScript: the editor's undo footprint and tool classes, from the core.


## The editor's undo footprint: every sample a dab changes lies in get_dab_rect (it is the core's footprint
## plus one sample), clipped to the terrain, empty off it; the tool classes come from the core.
func test_dab_rect_covers_what_a_dab_changes() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(64, 48)
	t.spacing = 0.5
	t.generate_noise(3, 0.1, 3, 2.0, 0.5, 4.0, -1e9, TerrainData.NOISE_PERLIN)
	var b := TerrainBrush.new()
	b.size = 7.3
	for center in [Vector2(10.2, 7.7), Vector2(0.3, 23.9), Vector2(31.9, 1.0)]:
		var r := b.get_dab_rect(center, t.spacing, t.get_bounds())
		var before := t.heights
		t.apply_brush(b, center, 0.1)
		var after := t.heights
		var outside := 0
		var changed := 0
		for z in t.size.y:
			for x in t.size.x:
				if before[z * t.size.x + x] != after[z * t.size.x + x]:
					changed += 1
					outside += int(not r.has_point(Vector2i(x, z)))
		check(changed > 20, "the dab at %s changed samples (%d)" % [center, changed])
		check_eq(outside, 0, "every changed sample inside %s" % r)
		check(Rect2i(Vector2i.ZERO, t.size).encloses(r), "clipped to the terrain: %s" % r)
	check(not b.get_dab_rect(Vector2(-50, -50), t.spacing, t.get_bounds()).has_area(), "off the terrain: empty")
	# Signed bounds (an endless map's): the same footprint, moved with them.
	var moved := Rect2i(Vector2i(-40, -30), t.size)
	var shift := Vector2(-40, -30) * t.spacing
	var r0 := b.get_dab_rect(Vector2(10.2, 7.7), t.spacing, t.get_bounds())
	check_eq(b.get_dab_rect(Vector2(10.2, 7.7) + shift, t.spacing, moved), Rect2i(r0.position + moved.position, r0.size), "signed bounds")
	check(TerrainBrush.tool_edits_control(TerrainBrush.PAINT) and TerrainBrush.tool_edits_control(TerrainBrush.HOLE_ADD), "paint and holes edit the control map")
	check(not TerrainBrush.tool_edits_control(TerrainBrush.RAISE) and not TerrainBrush.tool_edits_control(TerrainBrush.SMOOTH), "heights tools do not")
