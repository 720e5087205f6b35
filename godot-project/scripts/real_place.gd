extends Node3D
## A real place from survey data: the GeoTIFF the core tests write (`tests/fixtures/elevation/valley.tif`:
## geographic, one arc-second at 46.5° N, 16-bit metres, tiled LZW, a lake the survey did not see marked
## NoData) imported with `TerrainData.import_elevation`. Its spacing comes from the file (30.9 m); the
## lake's NoData is cut as holes, and a water plane below shows through them.

const FILE := "../tests/fixtures/elevation/valley.tif"

@onready var terrain: TerrainNode = $TerrainNode
@onready var camera: Camera3D = $Camera3D
@onready var water: MeshInstance3D = $Water


func _ready() -> void:
	var path := ProjectSettings.globalize_path("res://").path_join(FILE)
	var data := TerrainData.new()
	if data.import_elevation(path, TerrainData.NODATA_HOLES) != OK:
		push_error("real_place: cannot import %s (run from the repository)" % path)
		return
	# The finest ring's vertices one sample apart: the rings then reach over the whole 15 km map.
	terrain.vertex_spacing = data.spacing
	terrain.terrain_data = data
	var all := Rect2i(Vector2i.ZERO, data.size)
	var holes := data.get_holes_region(all)
	var heights := data.get_heights_region(all)
	# The water lies a little below the lowest shore: the lowest hole sample next to ground (filled from it).
	var low := INF
	var centre := Vector2.ZERO
	var w := data.size.x
	for i in holes.size():
		if holes[i] == 1:
			centre += Vector2(i % w + 0.5, i / w + 0.5)
			if i % w > 0 and i % w < w - 1 and i >= w and i + w < holes.size():
				if holes[i - 1] + holes[i + 1] + holes[i - w] + holes[i + w] < 4:
					low = minf(low, heights[i])
	var count := holes.count(1)
	centre = centre / maxf(count, 1) * data.spacing
	water.position = Vector3(centre.x, low - 2.0, centre.y)
	camera.position = Vector3(centre.x + 3600.0, low + 2300.0, centre.y + 4600.0)
	camera.look_at(Vector3(centre.x - 600.0, low, centre.y - 900.0))


func view_ready() -> bool:
	return terrain.terrain_data != null and terrain.is_up_to_date()
