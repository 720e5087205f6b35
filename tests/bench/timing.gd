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


## Median of a list of numbers.
static func median(a: Array) -> float:
	var s := a.duplicate()
	s.sort()
	return s[s.size() / 2]


## The value at fraction `q` (0..1) of a list of numbers, e.g. 0.99 for the 99th percentile.
static func quantile(a: Array, q: float) -> float:
	var s := a.duplicate()
	s.sort()
	return s[mini(int(s.size() * q), s.size() - 1)]


## Resident memory of this process in bytes (Linux), -1 elsewhere.
static func rss() -> int:
	var f := FileAccess.open("/proc/self/statm", FileAccess.READ)
	# procfs files report length 0: read the line instead of the whole file.
	return int(f.get_line().split(" ")[1]) * 4096 if f != null else -1
