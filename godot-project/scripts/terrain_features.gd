class_name TerrainFeatures
extends RefCounted
## Demo helpers that edit terrain through its public API — a TerrainData or a TerrainRegions (the same
## calls; a region map's samples may be signed): a painted road along a path, a pit with a hole at its
## bottom (a cave entrance), a flattened plateau.


## Paints `layer` along the polyline `path` (terrain X/Z): full weight within `width / 2`, fading to zero
## over `fade` more units. One set_layer_region call for the path's bounding box.
static func paint_road(data: Resource, path: PackedVector2Array, width: float, fade: float, layer: int) -> void:
	var sp: float = data.get_spacing()
	var all: Rect2i = data.get_bounds()
	var reach := width * 0.5 + fade
	var lo := Vector2(INF, INF)
	var hi := Vector2(-INF, -INF)
	for p in path:
		lo = lo.min(p)
		hi = hi.max(p)
	var x0 := clampi(floori((lo.x - reach) / sp), all.position.x, all.end.x - 1)
	var z0 := clampi(floori((lo.y - reach) / sp), all.position.y, all.end.y - 1)
	var x1 := clampi(ceili((hi.x + reach) / sp), all.position.x, all.end.x - 1)
	var z1 := clampi(ceili((hi.y + reach) / sp), all.position.y, all.end.y - 1)
	var w := x1 - x0 + 1
	var d := z1 - z0 + 1
	var weights := PackedFloat32Array()
	weights.resize(w * d)
	# Walk the path in steps of a sample; each step raises the weights of the samples around it.
	for i in path.size() - 1:
		var a := path[i]
		var b := path[i + 1]
		var steps := maxi(1, ceili(a.distance_to(b) / sp))
		for s in steps + 1:
			var c := a.lerp(b, float(s) / steps)
			var r := ceili(reach / sp)
			var cx := floori(c.x / sp)
			var cz := floori(c.y / sp)
			for z in range(maxi(cz - r, z0), mini(cz + r, z1) + 1):
				for x in range(maxi(cx - r, x0), mini(cx + r, x1) + 1):
					var dist := Vector2((x + 0.5) * sp, (z + 0.5) * sp).distance_to(c)
					var v := clampf(1.0 - (dist - width * 0.5) / fade, 0.0, 1.0)
					var k := (z - z0) * w + (x - x0)
					weights[k] = maxf(weights[k], v)
	data.set_layer_region(Rect2i(x0, z0, w, d), layer, weights)


## Lowers a round pit of `radius` by up to `depth` at `center` (terrain X/Z) and opens a hole of
## `hole_radius` at its bottom.
static func dig_pit(data: Resource, center: Vector2, radius: float, depth: float, hole_radius: float) -> void:
	var sp: float = data.get_spacing()
	var r := ceili(radius / sp)
	var region := Rect2i(floori(center.x / sp) - r, floori(center.y / sp) - r, 2 * r + 1, 2 * r + 1)
	region = region.intersection(data.get_bounds())
	var h: PackedFloat32Array = data.get_heights_region(region)
	var holes := PackedByteArray()
	holes.resize(h.size())
	for z in region.size.y:
		for x in region.size.x:
			var p := Vector2((region.position.x + x + 0.5) * sp, (region.position.y + z + 0.5) * sp)
			var t := p.distance_to(center) / radius
			var k := z * region.size.x + x
			if t < 1.0:
				h[k] -= depth * (1.0 - t * t) * (1.0 - t * t)
			holes[k] = 1 if p.distance_to(center) < hole_radius else 0
	data.set_heights_region(region, h)
	data.set_holes_region(region, holes)


## Flattens a round plateau at `height` within `radius` of `center` (terrain X/Z), blending back to the
## ground over `fade` more units.
static func flatten(data: Resource, center: Vector2, radius: float, fade: float, height: float) -> void:
	var sp: float = data.get_spacing()
	var r := ceili((radius + fade) / sp)
	var region := Rect2i(floori(center.x / sp) - r, floori(center.y / sp) - r, 2 * r + 1, 2 * r + 1)
	region = region.intersection(data.get_bounds())
	var h: PackedFloat32Array = data.get_heights_region(region)
	for z in region.size.y:
		for x in region.size.x:
			var p := Vector2((region.position.x + x + 0.5) * sp, (region.position.y + z + 0.5) * sp)
			var t := clampf((p.distance_to(center) - radius) / fade, 0.0, 1.0)
			var k := z * region.size.x + x
			h[k] = lerpf(height, h[k], t * t * (3.0 - 2.0 * t))
	data.set_heights_region(region, h)
