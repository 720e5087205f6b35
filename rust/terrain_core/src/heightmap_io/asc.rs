//! ESRI ASCII grids (`.asc`): a header of `ncols`, `nrows`, `xllcorner`/`xllcenter`,
//! `yllcorner`/`yllcenter`, `cellsize` (or GDAL's `dx`/`dy`) and an optional `NODATA_value` (−9999 when
//! absent), then the values north row first, separated by any white space. A `.prj` file beside it names
//! the projection; a geographic one (GEOGCS without PROJCS) means degrees.

use super::rows::{height, metres_per_degree, shown, ElevationInfo, RowReader};
use super::HeightmapError;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Most samples a side.
pub const MAX_SIDE: usize = 1 << 24;

pub struct Reader {
    info: ElevationInfo,
    lines: BufReader<File>,
    /// Tokens of the line being read, and the next one to use.
    line: String,
    at: usize,
    rows_read: usize,
}

fn fail(path: &Path, what: impl std::fmt::Display) -> HeightmapError {
    HeightmapError::Format(format!("{}: {what}", shown(path)))
}

/// A failed read: bytes that are not text are damaged content (a binary file named `.asc`), anything else
/// a file that cannot be read.
fn read_failure(path: &Path, e: std::io::Error) -> HeightmapError {
    if e.kind() == std::io::ErrorKind::InvalidData {
        return fail(path, "not text: not an ESRI ASCII grid");
    }
    HeightmapError::Read(format!("{}: cannot read: {e}", shown(path)))
}

impl Reader {
    pub fn open(path: &Path) -> Result<Self, HeightmapError> {
        let f = File::open(path)
            .map_err(|e| HeightmapError::Read(format!("{}: cannot read: {e}", shown(path))))?;
        let mut lines = BufReader::new(f);
        let mut keys: Vec<(String, f64)> = Vec::new();
        let mut line = String::new();
        // Header lines are "key value"; the first line starting with a number is data.
        loop {
            line.clear();
            let n = lines
                .read_line(&mut line)
                .map_err(|e| read_failure(path, e))?;
            let mut t = line.split_whitespace();
            let Some(k) = t.next() else {
                if n == 0 {
                    return Err(fail(path, "no values after the header"));
                }
                continue;
            };
            if k.parse::<f64>().is_ok() {
                break;
            }
            let v = t
                .next()
                .and_then(|v| v.parse::<f64>().ok())
                .ok_or_else(|| {
                    fail(path, format!("header line '{}' has no number", line.trim()))
                })?;
            keys.push((k.to_ascii_lowercase(), v));
            if keys.len() > 16 {
                return Err(fail(path, "not an ESRI ASCII grid (header too long)"));
            }
        }
        let get = |k: &str| keys.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
        let side = |k: &str| -> Result<usize, HeightmapError> {
            match get(k) {
                Some(v) if v >= 1.0 && v <= MAX_SIDE as f64 && v.fract() == 0.0 => Ok(v as usize),
                Some(v) => Err(fail(
                    path,
                    format!("{k} must be a whole number in [1, {MAX_SIDE}], got {v}"),
                )),
                None => Err(fail(path, format!("the header has no {k}"))),
            }
        };
        let (w, d) = (side("ncols")?, side("nrows")?);
        let cell = match (get("cellsize"), get("dx"), get("dy")) {
            (Some(c), _, _) => [c, c],
            (None, Some(x), Some(y)) => [x, y],
            _ => return Err(fail(path, "the header has no cellsize (nor dx and dy)")),
        };
        if !cell.iter().all(|c| c.is_finite() && *c > 0.0) {
            return Err(fail(
                path,
                format!("cellsize must be a positive number, got {cell:?}"),
            ));
        }
        let (x, xc) = match (get("xllcorner"), get("xllcenter")) {
            (Some(v), _) => (v, false),
            (None, Some(v)) => (v, true),
            _ => (0.0, false),
        };
        let (y, yc) = match (get("yllcorner"), get("yllcenter")) {
            (Some(v), _) => (v, false),
            (None, Some(v)) => (v, true),
            _ => (0.0, false),
        };
        // Centre of the north-west sample.
        let origin = [
            x + if xc { 0.0 } else { cell[0] * 0.5 },
            y + if yc { 0.0 } else { cell[1] * 0.5 } + cell[1] * (d as f64 - 1.0),
        ];
        let prj = std::fs::read_to_string(path.with_extension("prj")).unwrap_or_default();
        let geographic = prj.contains("GEOGCS") && !prj.contains("PROJCS");
        let projection = prj
            .split('"')
            .nth(1)
            .map(str::to_string)
            .unwrap_or_default();
        let spacing = if geographic {
            let m = metres_per_degree(
                (origin[1] - cell[1] * (d as f64 - 1.0) * 0.5).clamp(-90.0, 90.0),
            );
            [cell[0] * m[0], cell[1] * m[1]]
        } else {
            cell
        };
        let info = ElevationInfo {
            path: path.to_path_buf(),
            format: "ESRI ASCII grid",
            width: w,
            depth: d,
            spacing,
            spacing_known: true,
            geographic,
            projection,
            origin,
            nodata: Some(get("nodata_value").unwrap_or(-9999.0)),
            sample_format: "text",
        };
        Ok(Self {
            info,
            lines,
            line,
            at: 0,
            rows_read: 0,
        })
    }

    /// The next value, reading lines as needed; None at the end of the file.
    fn token(&mut self) -> Result<Option<f64>, HeightmapError> {
        loop {
            let rest = &self.line[self.at..];
            let start = rest.len() - rest.trim_start().len();
            let rest = &rest[start..];
            if !rest.is_empty() {
                let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
                let tok = &rest[..len];
                self.at += start + len;
                return tok.parse::<f64>().map(Some).map_err(|_| {
                    fail(
                        &self.info.path,
                        format!("'{tok}' in row {} is not a number", self.rows_read + 1),
                    )
                });
            }
            self.line.clear();
            self.at = 0;
            let n = self
                .lines
                .read_line(&mut self.line)
                .map_err(|e| read_failure(&self.info.path, e))?;
            if n == 0 {
                return Ok(None);
            }
        }
    }
}

impl RowReader for Reader {
    fn info(&self) -> &ElevationInfo {
        &self.info
    }

    fn read_rows(&mut self, rows: usize, out: &mut Vec<f32>) -> Result<(), HeightmapError> {
        let (w, d, nodata) = (self.info.width, self.info.depth, self.info.nodata);
        for _ in 0..rows {
            if self.rows_read >= d {
                return Err(fail(&self.info.path, "read past the last row"));
            }
            for _ in 0..w {
                let v = self.token()?.ok_or_else(|| {
                    fail(
                        &self.info.path,
                        format!(
                            "truncated: the header says {w} x {d} values, the file ends in row {}",
                            self.rows_read + 1
                        ),
                    )
                })?;
                out.push(height(v, nodata));
            }
            self.rows_read += 1;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), HeightmapError> {
        match self.token()? {
            None => Ok(()),
            Some(_) => Err(fail(
                &self.info.path,
                format!(
                    "holds more values than its header's {} x {}",
                    self.info.width, self.info.depth
                ),
            )),
        }
    }
}
