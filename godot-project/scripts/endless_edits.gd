@tool
extends Node3D
## An endless world that is edited: the infinite world's generator as an endless TerrainRegions
## (`create_endless`), with a plateau, a painted road and a pit with a cave entrance made about 2.5 km
## from the origin, at negative coordinates. Saving stores only the regions those edits touch (in
## user://endless_edits_demo); the rest of the world still comes from the generator. In the editor the scene
## shows the unedited world (its TerrainNode draws the generator); running it makes the edits.

const FOLDER := "user://endless_edits_demo"
## Where to look for a site: the lowest dry ground near here.
const AROUND := Vector2(-2000, -1500)

@onready var terrain: TerrainNode = $TerrainNode
@onready var fly: Camera3D = $FlyCamera

var regions: TerrainRegions
var site := AROUND


func _ready() -> void:
	if Engine.is_editor_hint():
		return
	var g: TerrainGenerator = terrain.terrain_generator
	# The demo remakes its world each run (overwrite = true); a game keeps its saved edits with
	# open_generated(FOLDER, g) when TerrainRegions.map_exists(FOLDER).
	regions = TerrainRegions.create_endless(g, 1.0, FOLDER, 256, true)
	if regions == null:
		return
	var ground := INF
	for j in 11:
		for i in 11:
			var p := AROUND + Vector2(i - 5, j - 5) * 100.0
			var h := regions.get_height(p)
			if h > g.sea_level + 8.0 and h < ground:
				ground = h
				site = p
	# A plateau raised above the valley floor and a road across it, saved; then a pit beside it, not saved
	# yet (the regions view shows it orange).
	TerrainFeatures.flatten(regions, site, 70.0, 40.0, ground + 10.0)
	var road := PackedVector2Array()
	for i in 41:
		var t := i / 40.0
		road.append(site + Vector2(lerpf(-400, 400, t), sin(t * 6.0) * 60.0 + 20.0))
	TerrainFeatures.paint_road(regions, road, 8.0, 4.0, 4)
	regions.save()
	print("endless edits: %d region files in %s" % [DirAccess.get_files_at(FOLDER).size() - 1, FOLDER])
	TerrainFeatures.dig_pit(regions, site + Vector2(170, -40), 45.0, 30.0, 7.0)
	terrain.terrain_generator = null
	terrain.terrain_regions = regions
	fly.position = Vector3(site.x, ground + 80.0, site.y + 160.0)


## Viewpoints for the demo renderer: the edits, then the same view with the regions debug view (loaded
## regions green, the pit's unsaved ones orange).
func demo_views() -> Array:
	var views: Array = []
	for v in ["Edits", "Regions"]:
		var cam := Camera3D.new()
		cam.name = v
		cam.far = 12000.0
		add_child(cam)
		var h: float = regions.get_height(site) if regions else 0.0
		cam.position = Vector3(site.x + 60.0, h + 150.0, site.y + 280.0)
		cam.rotation_degrees = Vector3(-38.0, 0.0, 0.0)
		views.append(cam)
	return views


func prepare_view(cam: Camera3D) -> void:
	if cam:
		cam.make_current()
		terrain.target = terrain.get_path_to(cam)
		terrain.debug_view = TerrainNode.DEBUG_VIEW_REGIONS if cam.name == "Regions" else TerrainNode.DEBUG_VIEW_OFF


func view_ready() -> bool:
	return terrain.is_up_to_date()
