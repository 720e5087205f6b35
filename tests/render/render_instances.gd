extends "res://wt_test.gd"
## TerrainInstancer drawn: an unlit red box per instance seen straight down by an orthographic camera
## covers exactly the pixels whose centres lie inside the boxes' tops placed by the CPU transforms
## (`get_instances`); over a new hole none is drawn, and they come back when it is filled.

const SIZE := 128
const RED := Color(1, 0, 0)
const Coverage := preload("res://render/coverage.gd")


func _scene() -> Array:
	RenderingServer.set_default_clear_color(Color(1, 0, 1))
	var t := TerrainData.new()
	t.size = Vector2i(SIZE, SIZE)
	t.generate_noise(5, 1.0 / 40.0, 3, 2.0, 0.5, 3.0, -1e9, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	tn.terrain_data = t
	tn.collision_mode = TerrainNode.COLLISION_DISABLED
	var m := TerrainInstanceMesh.new()
	var box := BoxMesh.new()
	box.size = Vector3(1.0, 2.0, 1.0)
	var mat := StandardMaterial3D.new()
	mat.shading_mode = BaseMaterial3D.SHADING_MODE_UNSHADED
	mat.albedo_color = RED
	box.material = mat
	m.mesh = box
	m.cast_shadow = 0
	m.visibility_range = 1000.0
	m.scale_min = 1.0
	m.scale_max = 1.5
	# The box's centre is 1 above its origin: its top is 2 above the ground.
	m.height_offset = 1.0
	var inst := TerrainInstancer.new()
	var meshes: Array[TerrainInstanceMesh] = [m]
	inst.meshes = meshes
	tn.add_child(inst)
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = 100.0
	cam.far = 1000.0
	cam.position = Vector3(SIZE / 2.0, 300.0, SIZE / 2.0)
	cam.rotation_degrees = Vector3(-90, 0, 0)
	tree.root.add_child(cam)
	cam.make_current()
	tree.root.add_child(tn)
	return [tn, inst, cam, t]


func test_instances_drawn_where_the_cpu_places_them() -> void:
	var s := _scene()
	var inst: TerrainInstancer = s[1]
	var cam: Camera3D = s[2]
	var t: TerrainData = s[3]
	inst.scatter(0, Rect2(4, 4, SIZE - 8, SIZE - 8), 300, 5)
	inst.update_now()
	await frames(3)
	var img := screenshot("instances_top_down")
	var ts := inst.get_instances(0, Rect2(0, 0, SIZE, SIZE))
	var c := Coverage.of(img, cam, ts)
	var agreement := float(c[0]) / maxf(c[1], 1.0)
	print("instances render (%s): %d predicted pixels, agreement %.4f" % [renderer, c[2], agreement])
	check(c[2] > 1500, "enough instance pixels in view (%d)" % c[2])
	check(agreement >= 0.99, "red pixels where the CPU transforms put the boxes: agreement %.4f" % agreement)
	# A hole under part of them: those are not drawn; filling it brings them back.
	var holes := PackedByteArray()
	holes.resize(40 * 40)
	holes.fill(1)
	t.set_holes_region(Rect2i(44, 44, 40, 40), holes)
	inst.update_now()
	await frames(3)
	img = screenshot("instances_over_a_hole")
	var red_in_hole := 0
	var h := img.get_height()
	var w := img.get_width()
	var sz := cam.size / h
	for py in h:
		for px in w:
			var x := cam.position.x + (px + 0.5 - w / 2.0) * sz
			var z := cam.position.z + (py + 0.5 - h / 2.0) * sz
			if x > 46.5 and x < 82.5 and z > 46.5 and z < 82.5:
				var col := img.get_pixel(px, py)
				red_in_hole += int(col.r > 0.8 and col.g < 0.2 and col.b < 0.2)
	check_eq(red_in_hole, 0, "no instance pixel inside the hole")
	holes.fill(0)
	t.set_holes_region(Rect2i(44, 44, 40, 40), holes)
	inst.update_now()
	await frames(3)
	img = screenshot("instances_hole_filled")
	c = Coverage.of(img, cam, ts)
	check(float(c[0]) / maxf(c[1], 1.0) >= 0.99, "back after filling: agreement %.4f" % (float(c[0]) / maxf(c[1], 1.0)))
	for n in s:
		if n is Node:
			n.queue_free()


## The INSTANCES view: once the instancer has settled, every cell holding instances is drawn green (shown
## and current) at its centre.
func test_instances_view_shows_the_cells() -> void:
	var s := _scene()
	var tn: TerrainNode = s[0]
	var inst: TerrainInstancer = s[1]
	var cam: Camera3D = s[2]
	inst.instances.cell_size = 8.0
	inst.scatter(0, Rect2(4, 4, SIZE - 8, SIZE - 8), 300, 5)
	inst.update_now()
	tn.debug_view = TerrainNode.DEBUG_VIEW_INSTANCES
	await frames(4)
	var img := screenshot("debug_view_instances_" + renderer)
	var green := 0
	var wrong := []
	for cz in range(2, 14):
		for cx in range(2, 14):
			var r := Rect2(cx * 8.0, cz * 8.0, 8.0, 8.0)
			if inst.get_instances(0, r).is_empty():
				continue
			# A cell centre may be covered by one of its red boxes: look beside them.
			var at := cam.unproject_position(Vector3(cx * 8.0 + 1.0, 0, cz * 8.0 + 1.0))
			var c := img.get_pixel(int(at.x), int(at.y))
			if c.r > 0.8 and c.g < 0.2 and c.b < 0.2:
				continue
			if c.g > c.r and c.g > c.b:
				green += 1
			else:
				wrong.append([cx, cz, c])
	check(green > 50, "cells with instances compared (%d)" % green)
	check(wrong.is_empty(), "every cell with instances is shown green: not %s" % [wrong.slice(0, 3)])
	tn.queue_free()
	cam.queue_free()
