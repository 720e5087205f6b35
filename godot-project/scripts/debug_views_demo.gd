extends Node3D
## The debug views of a TerrainNode (its `debug_view`), one picture each: a generated hill country with a
## few holes, three texture layers (one painted in a band), scattered boxes, seen from above at an angle;
## the REGIONS view draws the same ground from region files with one region edited. `cargo xtask demo`
## renders one picture per view.

@onready var terrain: TerrainNode = $TerrainNode

const VIEWS := {
	"Checker": TerrainNode.DEBUG_VIEW_CHECKER,
	"Heightmap": TerrainNode.DEBUG_VIEW_HEIGHTMAP,
	"Normals": TerrainNode.DEBUG_VIEW_NORMALS,
	"Slope": TerrainNode.DEBUG_VIEW_SLOPE,
	"Levels": TerrainNode.DEBUG_VIEW_LEVELS,
	"Holes": TerrainNode.DEBUG_VIEW_HOLES,
	"LayerWeights": TerrainNode.DEBUG_VIEW_LAYER_WEIGHTS,
	"Control": TerrainNode.DEBUG_VIEW_CONTROL,
	"Collision": TerrainNode.DEBUG_VIEW_COLLISION,
	"Instances": TerrainNode.DEBUG_VIEW_INSTANCES,
	"Navigation": TerrainNode.DEBUG_VIEW_NAVIGATION,
	"SurfaceCache": TerrainNode.DEBUG_VIEW_SURFACE_CACHE,
	# Last: it draws the region files instead of the data.
	"Regions": TerrainNode.DEBUG_VIEW_REGIONS,
}

var data: TerrainData
var regions: TerrainRegions


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
	var band := PackedFloat32Array()
	band.resize(512 * 40)
	band.fill(1.0)
	data.set_layer_region(Rect2i(0, 300, 512, 40), 2, band)
	terrain.terrain_data = data
	terrain.terrain_material = _look()
	var inst := TerrainInstancer.new()
	var m := TerrainInstanceMesh.new()
	m.mesh = BoxMesh.new()
	inst.meshes = [m] as Array[TerrainInstanceMesh]
	terrain.add_child(inst)
	inst.instances.cell_size = 16.0
	inst.scatter(0, Rect2(150, 150, 220, 220), 400, 3)
	# The same ground as region files, one region edited (not saved).
	var dir := OS.get_user_data_dir().path_join("debug_views_regions")
	data.save_regions(dir, 64, true)  # the demo remakes its own folder each run
	regions = TerrainRegions.open(dir)
	var flat := PackedFloat32Array()
	flat.resize(64 * 64)
	flat.fill(data.get_height(Vector2(290, 290)))
	regions.set_heights_region(Rect2i(256, 256, 64, 64), flat)


## Three colour layers in height bands (sand, grass, rock).
func _look() -> TerrainMaterial:
	var look := TerrainMaterial.new()
	var layers: Array[TerrainLayer] = []
	for b in [[Color(0.8, 0.7, 0.45), Vector2(0, 10)], [Color(0.3, 0.55, 0.25), Vector2(18, 10)], [Color(0.5, 0.45, 0.4), Vector2(36, 10)]]:
		var l := TerrainLayer.new()
		l.albedo_color = b[0]
		l.height_band = b[1]
		layers.append(l)
	look.layers = layers
	return look


func demo_views() -> Array:
	var cams := []
	for name in VIEWS:
		cams.append(get_node("Views/" + name))
	return cams


func prepare_view(cam: Camera3D) -> void:
	var view: int = VIEWS.get(String(cam.name), TerrainNode.DEBUG_VIEW_OFF)
	if view == TerrainNode.DEBUG_VIEW_REGIONS:
		terrain.terrain_data = null
		terrain.terrain_regions = regions
	terrain.debug_view = view


func view_ready() -> bool:
	return terrain.is_up_to_date()
