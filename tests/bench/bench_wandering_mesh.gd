extends RefCounted
## WanderingMesh: regenerate + hand the arrays to GDScript (`get_mesh_arrays()`), vs Godot's own C++
## PlaneMesh of about the same vertex count measured the same way in the same run, and vs document 000's
## GDScript generator (figures measured on this machine: ~116 ms and ~4.6 s, notes/godot-on-this-machine.md).

const Util := preload("res://bench/timing.gd")


func _time_mesh(m: PrimitiveMesh, reps: int) -> float:
	return Util.median_usec(func():
		m.request_update()
		var a := m.get_mesh_arrays()
		assert(a[Mesh.ARRAY_VERTEX].size() > 0), reps)


func run(quick: bool) -> void:
	var cases := [[6, [2, 2, 2, 2], 116.0], [8, [4, 4, 4, 4, 4, 4], 4600.0]]
	for c in cases:
		var m := WanderingMesh.new()
		m.start_subdivision = c[0]
		m.lods = PackedInt32Array(c[1])
		var n := m.get_vertex_count()
		var side := int(sqrt(n))
		var plane := PlaneMesh.new()
		plane.subdivide_width = side - 2
		plane.subdivide_depth = side - 2
		var reps := 3 if quick else (7 if n > 100000 else 31)
		var ours := _time_mesh(m, reps)
		# Our share measured inside the extension, per build (median of the same number of builds).
		var share: Array[float] = []
		for i in reps:
			m.request_update()
			m.get_mesh_arrays()
			share.append(m.get_last_build_usec() / 1000.0)
		share.sort()
		var ref := _time_mesh(plane, reps)
		# The engine's own share of get_mesh_arrays(): packing the same arrays into a RenderingServer surface
		# and reading them back, with no generator at all.
		var arrays := m.get_mesh_arrays()
		var floor := Util.median_usec(func():
			var am := ArrayMesh.new()
			am.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
			am.surface_get_arrays(0), reps)
		print("bench wandering_mesh %d %s: %d vertices, get_mesh_arrays median %.2f ms (engine hand-over alone %.2f ms; our share measured inside the extension %.2f ms, goal <= 15 ms for the big mesh); PlaneMesh %d² vertices %.2f ms (ratio ours/PlaneMesh %.2f); document 000 GDScript %.0f ms -> %.0fx faster" % [
			c[0], str(c[1]), n, ours / 1000.0, floor / 1000.0, share[share.size() / 2], side, ref / 1000.0, ours / ref, c[2], c[2] * 1000.0 / ours])
