extends RefCounted
## What a TerrainMaterial costs, under a real renderer (`cargo xtask bench` runs it under Xvfb; on this
## machine a software GPU, so frame times are CPU-bound shading): frame time of a TerrainNode view with
## the plain colours (reference, same run), with 5 textured layers (height bands, cliff layer, paint), with
## triplanar rock, and the cost of painting (a 64² set_layer_region on 4096², the call plus the node's
## update and the bytes it uploads).

var tree: SceneTree
var renderer: String


static func median(a: Array) -> float:
	var s := a.duplicate()
	s.sort()
	return s[s.size() / 2]


func frames(n: int) -> void:
	for i in n:
		await tree.process_frame
	await RenderingServer.frame_post_draw


## Median wall time per drawn frame over `n` frames (ms).
func _frame_ms(n: int) -> float:
	var t: Array[float] = []
	for i in n:
		var t0 := Time.get_ticks_usec()
		await frames(1)
		t.append((Time.get_ticks_usec() - t0) / 1000.0)
	return median(t)


func _layer(color: Color, band: Vector2) -> TerrainLayer:
	var l := TerrainLayer.new()
	var n := FastNoiseLite.new()
	n.frequency = 0.05
	var img := n.get_seamless_image(128, 128)
	img.convert(Image.FORMAT_RGBA8)
	for y in 128:
		for x in 128:
			img.set_pixel(x, y, color * (0.6 + 0.4 * img.get_pixel(x, y).r))
	l.albedo_texture = ImageTexture.create_from_image(img)
	# A real normal map (the noise as a bump map), not the noise itself.
	var bump := n.get_seamless_image(128, 128)
	bump.convert(Image.FORMAT_RGBA8)
	bump.bump_map_to_normal_map(4.0)
	l.normal_texture = ImageTexture.create_from_image(bump)
	l.height_band = band
	return l


func run(quick: bool) -> void:
	var root := Node3D.new()
	tree.root.add_child(root)
	var sun := DirectionalLight3D.new()
	sun.rotation_degrees = Vector3(-50, 30, 0)
	root.add_child(sun)
	var cam := Camera3D.new()
	cam.far = 3000.0
	root.add_child(cam)
	cam.make_current()
	var n := 4096
	var data := TerrainData.new()
	data.size = Vector2i(n, n)
	data.generate_noise(9, 1.0 / 600.0, 7, 2.0, 0.5, 200.0, -20.0, TerrainData.NOISE_PERLIN)
	var tn := TerrainNode.new()
	# The layers drawn everywhere (the rows kept comparable with earlier runs); the far cache below.
	tn.surface_cache_far_distance = 0.0
	tn.terrain_data = data
	root.add_child(tn)
	var c := Vector2(n / 2, n / 2)
	cam.position = Vector3(c.x, data.get_height(c) + 60.0, c.y)
	cam.rotation_degrees.x = -25.0
	tn.target = tn.get_path_to(cam)
	await frames(10)
	var count := 10 if quick else 40
	var plain := await _frame_ms(count)
	var look := TerrainMaterial.new()
	var layers: Array[TerrainLayer] = [
		_layer(Color(0.85, 0.75, 0.5), Vector2(-10, 40)), _layer(Color(0.3, 0.55, 0.2), Vector2(70, 90)),
		_layer(Color(0.95, 0.95, 1.0), Vector2(190, 50)), _layer(Color(0.5, 0.47, 0.43), Vector2.ZERO),
		_layer(Color(0.3, 0.28, 0.25), Vector2.ZERO)]
	look.layers = layers
	look.cliff_layer = 3
	look.texture_size = 256
	tn.terrain_material = look
	# Paint the road layer in stripes over the view so painted and auto ground both show.
	var w := PackedFloat32Array()
	w.resize(512 * 8)
	w.fill(1.0)
	for k in 16:
		data.set_layer_region(Rect2i(int(c.x) - 256, int(c.y) - 400 + k * 40, 512, 8), 4, w)
	await frames(10)
	var textured := await _frame_ms(count)
	layers[3].triplanar = true
	await frames(10)
	var triplanar := await _frame_ms(count)
	print("bench terrain_material frame (%s, 1 view, 4096², camera 60 m up): plain colours %.2f ms, 5 textured layers %.2f ms (ratio %.2f), with triplanar rock %.2f ms (ratio %.2f); median of %d frames" % [
		renderer, plain, textured, textured / plain, triplanar, triplanar / plain, count])
	# The far terrain from the surface cache (surface_cache_far_distance), against the layers drawn everywhere
	# (the same 5 layers with triplanar rock; re-measured here, interleaved, for drift).
	var far := {}
	for d in [0.0, 256.0, 128.0, 0.0]:
		tn.surface_cache_far_distance = d
		await frames(10)
		far[d] = far.get(d, []) + [await _frame_ms(count)]
	var full: float = median(far[0.0])
	print("bench terrain_material far from the cache (%s): layers everywhere %.2f ms, from the cache beyond 256 m %.2f ms (ratio %.2f), beyond 128 m %.2f ms (ratio %.2f)" % [
		renderer, full, far[256.0][0], far[256.0][0] / full, far[128.0][0], far[128.0][0] / full])
	for v in [0.0, 128.0, 256.0]:
		tn.surface_cache_far_distance = v
		await frames(6)
		var path := OS.get_user_data_dir().path_join("bench_far_%s_%d.png" % [renderer, int(v)])
		tree.root.get_viewport().get_texture().get_image().save_png(path)
		print("bench terrain_material picture: ", path)
	tn.surface_cache_far_distance = 0.0
	# Painting: a 64² region of one layer, then the node's next update.
	var patch := PackedFloat32Array()
	patch.resize(64 * 64)
	patch.fill(0.5)
	var call: Array[float] = []
	var update: Array[float] = []
	var bytes := 0
	tn.take_uploaded_bytes()
	for i in (10 if quick else 40):
		var t0 := Time.get_ticks_usec()
		data.set_layer_region(Rect2i(int(c.x) - 32 + (i % 5) * 8, int(c.y) - 32, 64, 64), 1 + i % 3, patch)
		var t1 := Time.get_ticks_usec()
		tn.update_now()
		var t2 := Time.get_ticks_usec()
		call.append((t1 - t0) / 1000.0)
		update.append((t2 - t1) / 1000.0)
		bytes = tn.take_uploaded_bytes()
	print("bench terrain_material paint 64² on 4096² (%s): call %.3f ms, node update %.3f ms (median), %d bytes uploaded per edit; control data 4 B/sample (%.0f MB for 4096², none until painted)" % [
		renderer, median(call), median(update), bytes, n * n * 4 / 1048576.0])
	root.queue_free()
	await frames(2)
