extends "res://wt_test.gd"
## Real-world elevation files into TerrainData (`import_elevation`, `get_import_info`) and region maps
## (`TerrainRegions.import_heightmaps`): ESRI ASCII grids and SRTM tiles written here, the GeoTIFF fixture
## written by the core test `elevation_fixture` (geographic, 16-bit, tiled LZW, a NoData lake).

const VALLEY := "res://fixtures/elevation/valley.tif"


func _dir() -> String:
	var d := OS.get_user_data_dir().path_join("elevation_test")
	DirAccess.make_dir_recursive_absolute(d)
	return d


func _write(path: String, text: String) -> void:
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.store_string(text)
	f.close()


func _remove_folder(path: String) -> void:
	if DirAccess.dir_exists_absolute(path):
		for f in DirAccess.get_files_at(path):
			DirAccess.remove_absolute(path.path_join(f))
		DirAccess.remove_absolute(path)


## A 5 × 4 grid, 2.5 m cells, one NoData sample at column 3, row 1.
func _asc() -> String:
	var p := _dir().path_join("grid.asc")
	_write(p, "ncols 5\nnrows 4\nxllcorner 1000\nyllcorner 2000\ncellsize 2.5\nNODATA_value -9999\n"
		+ "10 11 12 13 14\n20 21 22 -9999 24\n30 31.5 32 33 34\n40 41 42 43 44.25\n")
	return p


func test_ascii_grid_imports_exactly_with_its_spacing_and_holes() -> void:
	var p := _asc()
	var info := TerrainData.get_import_info(p)
	check_eq(info.get("size"), Vector2i(5, 4), "size")
	check_eq(info.get("spacing"), 2.5, "spacing from cellsize")
	check_eq(info.get("nodata_count"), 1, "one NoData sample")
	check_eq(info.get("height_range"), Vector2(10, 44.25), "range of the samples present")
	check_eq(info.get("nodata_value"), -9999.0, "the NoData value")
	check_eq(info.get("format"), "ESRI ASCII grid", "format")
	var t := TerrainData.new()
	check_eq(t.import_elevation(p, TerrainData.NODATA_HOLES), OK, "import")
	check_eq(t.size, Vector2i(5, 4), "size")
	check_eq(t.spacing, 2.5, "spacing")
	var h := t.get_heights_region(Rect2i(0, 0, 5, 4))
	check_eq(h[0], 10.0, "north-west sample first")
	check_eq(h[11], 31.5, "row 2, column 1")
	check_eq(h[19], 44.25, "south-east sample")
	var holes := t.get_holes_region(Rect2i(0, 0, 5, 4))
	check(holes[8] == 1 and holes.count(1) == 1, "the NoData sample, and only it, is a hole")
	check(t.is_hole(Vector2(3.5 * 2.5, 1.5 * 2.5)), "get_height is cut there")
	var hole_height: float = h[8]
	check(hole_height > 12.0 and hole_height < 34.0, "the hole's height is filled from its neighbours, not the marker: %f" % hole_height)
	var filled := TerrainData.new()
	check_eq(filled.import_elevation(p, TerrainData.NODATA_FILL), OK, "import, filling")
	check(not filled.is_hole(Vector2(3.5 * 2.5, 1.5 * 2.5)), "filled, no hole")
	check(filled.heights == t.heights, "the same filled heights either way")
	# import_heightmap reads elevation files too (holes).
	var via := TerrainData.new()
	check_eq(via.import_heightmap(p, 0.0, 1.0, 0), OK, "import_heightmap of an .asc")
	check(via.heights == t.heights and via.is_hole(Vector2(3.5 * 2.5, 1.5 * 2.5)), "as import_elevation with holes")


func test_geotiff_fixture_into_data_and_regions_agrees() -> void:
	var info := TerrainData.get_import_info(VALLEY)
	check_eq(info.get("size"), Vector2i(500, 460), "size")
	check(info.get("geographic", false), "geographic")
	check_eq(info.get("projection"), "EPSG:4326", "projection")
	check_near(info.get("spacing", 0.0), 30.87, 0.05, "one arc-second north-south at 46.5° N")
	var xz: Vector2 = info.get("spacing_xz", Vector2())
	check_near(xz.x, 21.3, 0.1, "east-west, shorter by cos(latitude)")
	check_eq(info.get("sample_format"), "int16", "int16 samples")
	var lake: int = info.get("nodata_count", 0)
	check(lake > 6000 and lake < 9000, "the lake is NoData: %d" % lake)
	var t := TerrainData.new()
	check_eq(t.import_elevation(VALLEY, TerrainData.NODATA_HOLES), OK, "import")
	check_near(t.spacing, info["spacing"], 1e-9, "the file's spacing")
	check_eq(t.get_holes_region(Rect2i(0, 0, 500, 460)).count(1), lake, "holes are exactly the NoData samples")
	var folder := _dir().path_join("valley_regions")
	_remove_folder(folder)
	var r := TerrainRegions.new()
	check_eq(r.import_heightmap(VALLEY, folder, 128, TerrainData.NODATA_HOLES), OK, "into a region map")
	check_eq(r.get_size(), Vector2i(500, 460), "region map size")
	check_near(r.get_spacing(), t.spacing, 1e-9, "region map spacing")
	var all := Rect2i(0, 0, 500, 460)
	check(r.get_heights_region(all) == t.get_heights_region(all), "the same heights bit for bit")
	check(r.get_control_region(all) == t.get_control_region(all), "the same holes")


func _hgt(path: String, offset: int) -> void:
	# 1201² big-endian samples: 7 × column (plus the tile's column offset) + 100 per 100 rows; row blocks
	# are built once and reused, so GDScript writes 2.9 MB quickly. Row 600, column 5 is a void.
	var f := FileAccess.open(path, FileAccess.WRITE)
	f.big_endian = true
	var rows := {}
	for z in 1201:
		var band := z / 100
		if not rows.has(band):
			var b := PackedByteArray()
			b.resize(2402)
			for x in 1201:
				var v := (offset + x) * 7 % 2000 + 100 * band
				b[2 * x] = (v >> 8) & 0xff
				b[2 * x + 1] = v & 0xff
			rows[band] = b
		if z == 600:
			var b: PackedByteArray = rows[band].duplicate()
			b[10] = 0x80
			b[11] = 0x00
			f.store_buffer(b)
		else:
			f.store_buffer(rows[band])
	f.close()


func test_srtm_mosaic_streams_into_regions_without_a_seam() -> void:
	var d := _dir()
	_hgt(d.path_join("N46E010.hgt"), 0)
	_hgt(d.path_join("N46E011.hgt"), 1200)
	var paths := PackedStringArray([d.path_join("N46E011.hgt"), d.path_join("N46E010.hgt")])
	var folder := d.path_join("srtm_regions")
	_remove_folder(folder)
	var r := TerrainRegions.new()
	check_eq(r.import_heightmaps_async(paths, folder, 256, TerrainData.NODATA_FILL), OK, "started")
	check(r.get_import_progress() >= 0.0, "running")
	var frames := 0
	while r.get_import_progress() < 1.0 and frames < 2000:
		await tree.process_frame
		frames += 1
	check(r.finish_import(), "finished and opened")
	check_eq(r.get_size(), Vector2i(2401, 1201), "two tiles share a column")
	check_near(r.get_spacing(), 92.6, 0.2, "three arc-seconds north-south")
	var row := r.get_heights_region(Rect2i(0, 150, 2401, 1))
	var worst := 0.0
	for x in 2401:
		var e := absf(row[x] - float(x * 7 % 2000 + 100))
		worst = e if is_nan(e) or e > worst else worst
	check_eq(worst, 0.0, "a row across both tiles is the one function (no seam)")
	var filled := r.get_heights_region(Rect2i(5, 600, 1, 1))[0]
	check(filled > 0.0 and filled < 2700.0, "the void is filled: %f" % filled)
	check_eq(r.get_control_region(Rect2i(0, 0, 2401, 1201)).count(0), 2401 * 1201, "filled, no holes")
	check_eq(r.get_import_progress(), -1.0, "no import runs")


func test_bad_files_change_nothing() -> void:
	var t := TerrainData.new()
	t.size = Vector2i(20, 10)
	var before := t.heights
	expect_error("TerrainData.get_import_info")
	check(TerrainData.get_import_info("user://missing.tif").is_empty(), "missing file: empty info")
	var bad := _dir().path_join("short.asc")
	_write(bad, "ncols 3\nnrows 3\ncellsize 1\n1 2 3\n4 5\n")
	expect_error("short.asc: truncated")
	check_eq(t.import_elevation(bad, TerrainData.NODATA_HOLES), ERR_FILE_CORRUPT, "truncated grid refused")
	expect_error("nodata must be NODATA_HOLES (0) or NODATA_FILL (1), got 7")
	check_eq(t.import_elevation(_asc(), 7), ERR_INVALID_PARAMETER, "bad nodata refused")
	expect_error("missing.asc; nothing changed")
	check_eq(t.import_elevation(_dir().path_join("missing.asc"), TerrainData.NODATA_FILL), ERR_FILE_NOT_FOUND, "missing file")
	var binary := _dir().path_join("binary.asc")
	var f := FileAccess.open(binary, FileAccess.WRITE)
	f.store_buffer(PackedByteArray([0x6e, 0x63, 0x6f, 0x6c, 0x73, 0x20, 0xff, 0xfe, 0x0a, 0x80]))
	f.close()
	expect_error("binary.asc: not text")
	check_eq(t.import_elevation(binary, TerrainData.NODATA_FILL), ERR_FILE_CORRUPT, "a binary file named .asc is damaged content")
	check(t.heights == before and t.size == Vector2i(20, 10), "nothing changed")
	var tif := _dir().path_join("not.tif")
	_write(tif, "II*\u0000 definitely not a tiff")
	expect_error("not.tif")
	check_eq(t.import_elevation(tif, TerrainData.NODATA_FILL), ERR_FILE_CORRUPT, "damaged GeoTIFF refused")
	t.sample_budget = 100
	expect_error("sample_budget")
	check_eq(t.import_elevation(VALLEY, TerrainData.NODATA_FILL), ERR_INVALID_PARAMETER, "over the budget: use a region map")
	check(t.heights == before, "still nothing changed")
	# An import into a folder that holds a map is refused, naming the folder, unless told to overwrite; one
	# that fails leaves the folder's map as it was even then.
	var folder := _dir().path_join("kept")
	_remove_folder(folder)
	var r := TerrainRegions.new()
	check_eq(r.import_heightmap(_asc(), folder, 16, TerrainData.NODATA_FILL), OK, "first import")
	var was := r.get_heights_region(Rect2i(0, 0, 5, 4))
	var files := {}
	for name in DirAccess.get_files_at(folder):
		files[name] = FileAccess.get_file_as_bytes(folder.path_join(name))
	var other := TerrainRegions.new()
	expect_error("TerrainRegions.import_heightmaps: %s already holds a map" % folder)
	check_eq(other.import_heightmap(_asc(), folder, 32, TerrainData.NODATA_HOLES), ERR_ALREADY_EXISTS, "a second import refused")
	expect_error("TerrainRegions.import_heightmaps_async: %s already holds a map" % folder)
	check_eq(other.import_heightmaps_async(PackedStringArray([_asc()]), folder, 32, TerrainData.NODATA_HOLES), ERR_ALREADY_EXISTS, "refused at once, nothing started")
	check_eq(other.get_import_progress(), -1.0, "no import runs")
	for name in DirAccess.get_files_at(folder):
		check(files.get(name) == FileAccess.get_file_as_bytes(folder.path_join(name)), "%s unchanged" % name)
	check_eq(DirAccess.get_files_at(folder).size(), files.size(), "no file added or removed")
	expect_error("short.asc: truncated")
	check_eq(r.import_heightmap(bad, folder, 16, TerrainData.NODATA_FILL, true), ERR_FILE_CORRUPT, "failing import")
	check(TerrainRegions.open(folder).get_heights_region(Rect2i(0, 0, 5, 4)) == was, "the folder kept its map")
	expect_error("region_size must be a power of two")
	check_eq(r.import_heightmap(_asc(), folder, 100, TerrainData.NODATA_FILL), ERR_INVALID_PARAMETER, "bad region size")
	expect_error("only .hgt tiles make a mosaic")
	check_eq(r.import_heightmaps(PackedStringArray([_asc(), _asc()]), folder, 16, 0, true), ERR_INVALID_PARAMETER, "two grids are no mosaic")
