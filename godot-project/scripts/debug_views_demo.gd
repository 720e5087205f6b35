extends Node3D
## The debug views of a TerrainNode (its `debug_view`), one picture each: a generated hill country with a
## few holes, seen from above at an angle. `cargo xtask demo` renders one picture per view.

@onready var terrain: TerrainNode = $TerrainNode

const VIEWS := {
	"Checker": TerrainNode.DEBUG_VIEW_CHECKER,
	"Heightmap": TerrainNode.DEBUG_VIEW_HEIGHTMAP,
	"Normals": TerrainNode.DEBUG_VIEW_NORMALS,
	"Slope": TerrainNode.DEBUG_VIEW_SLOPE,
	"Levels": TerrainNode.DEBUG_VIEW_LEVELS,
	"Holes": TerrainNode.DEBUG_VIEW_HOLES,
}


func _ready() -> void:
	var data := TerrainData.new()
	data.size = Vector2i(512, 512)
	var g := TerrainGenerator.new()
	g.seed = 11
	g.frequency = 1.0 / 160.0
	g.height = 40.0
	data.generate(g)
	var holes := PackedByteArray()
	holes.resize(24 * 16)
	holes.fill(1)
	data.set_holes_region(Rect2i(250, 250, 24, 16), holes)
	terrain.terrain_data = data


func demo_views() -> Array:
	var cams := []
	for name in VIEWS:
		cams.append(get_node("Views/" + name))
	return cams


func prepare_view(cam: Camera3D) -> void:
	terrain.debug_view = VIEWS.get(String(cam.name), TerrainNode.DEBUG_VIEW_OFF)


func view_ready() -> bool:
	return terrain.is_up_to_date()
