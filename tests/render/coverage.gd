extends RefCounted
## Pixel coverage of unit-square tops seen straight down by an orthographic camera, for the render tests of
## things placed on the terrain (instances, detail): which pixels should be red, and which are.


## [intersection, union, predicted] pixel counts of the red pixels against the boxes' tops (pixel centres).
static func of(img: Image, cam: Camera3D, ts: Array) -> Array:
	var w := img.get_width()
	var h := img.get_height()
	var s := cam.size / h
	var pred := PackedByteArray()
	pred.resize(w * h)
	for tr: Transform3D in ts:
		var o: Vector3 = tr.origin
		var ax := Vector2(tr.basis.x.x, tr.basis.x.z)
		var az := Vector2(tr.basis.z.x, tr.basis.z.z)
		var r := (ax.length() + az.length()) * 0.5 + 0.1
		var x0 := int(floor((o.x - r - cam.position.x) / s + w / 2.0))
		var x1 := int(ceil((o.x + r - cam.position.x) / s + w / 2.0))
		var y0 := int(floor((o.z - r - cam.position.z) / s + h / 2.0))
		var y1 := int(ceil((o.z + r - cam.position.z) / s + h / 2.0))
		var inv := Basis(Vector3(ax.x, 0, ax.y), Vector3.UP, Vector3(az.x, 0, az.y)).inverse()
		for py in range(maxi(y0, 0), mini(y1 + 1, h)):
			for px in range(maxi(x0, 0), mini(x1 + 1, w)):
				var p := Vector3(cam.position.x + (px + 0.5 - w / 2.0) * s, 0, cam.position.z + (py + 0.5 - h / 2.0) * s)
				var l := inv * (p - Vector3(o.x, 0, o.z))
				if absf(l.x) <= 0.5 and absf(l.z) <= 0.5:
					pred[py * w + px] = 1
	var both := 0
	var either := 0
	var predicted := 0
	for py in h:
		for px in w:
			var c := img.get_pixel(px, py)
			var red := c.r > 0.8 and c.g < 0.2 and c.b < 0.2
			var p := pred[py * w + px] == 1
			predicted += int(p)
			both += int(red and p)
			either += int(red or p)
	return [both, either, predicted]
