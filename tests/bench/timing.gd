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


## CPU time (ms) each group of this process's threads has used so far (Linux; empty elsewhere): the main
## thread as "main", the others by name without their trailing number ("terrain-stream" are the
## terrain's workers, "llvmpipe" the software renderer's, "WorkerThread" the engine's pool; threads nobody
## named are "unnamed", the engine's render thread among them). Threads
## that ended since are not counted: compare two calls over a span where the groups' threads live.
static func thread_cpu_ms() -> Dictionary:
	var out := {}
	var pid := OS.get_process_id()
	var main_name := ""
	for tid in DirAccess.get_directories_at("/proc/self/task"):
		var f := FileAccess.open("/proc/self/task/%s/stat" % tid, FileAccess.READ)
		if f == null:
			continue
		var line := f.get_line()
		# "tid (name) state ..." — the name may hold spaces and parentheses: split at the last ')'.
		var close := line.rfind(")")
		var name := line.substr(line.find("(") + 1, close - line.find("(") - 1)
		var rest := line.substr(close + 2).split(" ")
		# Fields 14 and 15 (utime, stime) are rest[11] and rest[12], in clock ticks (100 a second).
		var ms := (int(rest[11]) + int(rest[12])) * 10.0
		var group := "main" if int(tid) == pid else name.rstrip("0123456789:-_ ")
		if int(tid) == pid:
			main_name = name
		out[group] = out.get(group, 0.0) + ms
	# Threads nobody named carry the program's name (the engine's render thread among them).
	var stem := main_name.rstrip("0123456789:-_ ")
	if stem != "" and out.has(stem):
		out["unnamed"] = out[stem]
		out.erase(stem)
	return out


## CPU ms per second of wall time each thread group used between two `thread_cpu_ms` readings, as
## "group N" sorted by use, the groups under 5 ms/s left out.
static func cpu_shares(before: Dictionary, after: Dictionary, seconds: float) -> String:
	var rows := []
	for g in after:
		var per_s: float = (after[g] - before.get(g, 0.0)) / seconds
		if per_s >= 5.0:
			rows.append([per_s, g])
	rows.sort_custom(func(a: Array, b: Array) -> bool: return a[0] > b[0])
	var parts := PackedStringArray()
	for r in rows:
		parts.append("%s %.0f" % [r[1], r[0]])
	return ", ".join(parts)
