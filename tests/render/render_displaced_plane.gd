extends "res://wt_test.gd"
## A PlaneMesh displaced by shaders/debug_displace.gdshader, seen from the side with an orthographic
## camera: the hill's silhouette y = amplitude * (1 - x²/r²) must be terrain-coloured, the sky above not.

const SKY := Color(0.0, 0.0, 1.0)
const AMP := 3.0
const RADIUS := 5.0
const ORTHO_SIZE := 12.0  # vertical extent in world units
const CAM_Y := 3.0


func _is_terrain(c: Color) -> bool:
	return c.g > 0.5 and c.r < 0.35 and c.b < 0.35


func _is_sky(c: Color) -> bool:
	return c.b > 0.7 and c.g < 0.2 and c.r < 0.2


func test_hill_silhouette() -> void:
	RenderingServer.set_default_clear_color(SKY)
	var root := Node3D.new()
	var mi := MeshInstance3D.new()
	var plane := PlaneMesh.new()
	plane.size = Vector2(2 * RADIUS, 2 * RADIUS)
	plane.subdivide_width = 40
	plane.subdivide_depth = 40
	mi.mesh = plane
	var mat := ShaderMaterial.new()
	mat.shader = load("res://addons/wandering_terrain/shaders/debug_displace.gdshader")
	mat.set_shader_parameter("amplitude", AMP)
	mat.set_shader_parameter("radius", RADIUS)
	mi.material_override = mat
	# Vertex displacement moves geometry outside the PlaneMesh's flat AABB.
	mi.custom_aabb = AABB(Vector3(-RADIUS, 0, -RADIUS), Vector3(2 * RADIUS, AMP, 2 * RADIUS))
	root.add_child(mi)
	var cam := Camera3D.new()
	cam.projection = Camera3D.PROJECTION_ORTHOGONAL
	cam.size = ORTHO_SIZE
	cam.position = Vector3(0, CAM_Y, 20)
	root.add_child(cam)
	tree.root.add_child(root)
	cam.make_current()
	await frames(4)
	var img := screenshot("displaced_plane_" + renderer)
	root.queue_free()
	if not check(img != null, "no image"):
		return
	var w := img.get_width()
	var h := img.get_height()
	var px_per_unit := h / ORTHO_SIZE
	var terrain_ok := 0
	var sky_ok := 0
	var bad: PackedStringArray = []
	# Sample a grid of world points; skip a band of 2 px around the expected silhouette.
	for i in range(-30, 31):
		var x := i * 0.25
		var ridge := AMP * maxf(0.0, 1.0 - x * x / (RADIUS * RADIUS))
		for j in range(0, 33):
			var y := j * 0.25
			var col := int(w / 2.0 + x * px_per_unit)
			var row := int(h / 2.0 - (y - CAM_Y) * px_per_unit)
			if col < 0 or col >= w or row < 0 or row >= h:
				continue
			var c := img.get_pixel(col, row)
			var margin := 2.0 / px_per_unit
			if y < ridge - margin and y > margin and absf(x) < RADIUS - margin:
				if _is_terrain(c):
					terrain_ok += 1
				else:
					bad.append("(%.2f, %.2f) should be terrain, is %s" % [x, y, c])
			elif y > ridge + margin:
				if _is_sky(c):
					sky_ok += 1
				else:
					bad.append("(%.2f, %.2f) should be sky, is %s" % [x, y, c])
	check(bad.is_empty(), "%d wrong pixels, e.g. %s" % [bad.size(), ", ".join(bad.slice(0, 5))])
	# The hill has area 2/3 * 2r * amp = 20 units², i.e. ~320 samples at 0.25 spacing minus the margins.
	check(terrain_ok > 150, "only %d terrain pixels" % terrain_ok)
	check(sky_ok > 800, "only %d sky pixels" % sky_ok)
