extends RefCounted
## Timing helpers for the Godot-side benches.


## Median of `reps` timings (µs) of `fn`.
static func median_usec(fn: Callable, reps: int) -> float:
	var t: Array[float] = []
	for i in reps:
		var t0 := Time.get_ticks_usec()
		fn.call()
		t.append(float(Time.get_ticks_usec() - t0))
	t.sort()
	return t[t.size() / 2]
