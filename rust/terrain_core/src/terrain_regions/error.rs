//! `RegionError`: what went wrong with a region map, for every part of `terrain_regions`.

use std::fmt;

/// What went wrong with a region map; each kind carries a message naming the setting or the file.
#[derive(Clone, Debug, PartialEq)]
pub enum RegionError {
    /// A setting out of range (region size, map size, spacing) or an edit that does not fit the map.
    Invalid(String),
    /// A file that cannot be opened or read.
    Read(String),
    /// A file or folder that cannot be written, created, moved or removed.
    Write(String),
    /// A file whose content is wrong: a header that does not parse, a failed checksum, a short region.
    Damaged(String),
    /// A new map asked for in a folder that already holds one, without leave to replace it.
    Exists(String),
}

impl RegionError {
    pub fn message(&self) -> &str {
        match self {
            Self::Invalid(m)
            | Self::Read(m)
            | Self::Write(m)
            | Self::Damaged(m)
            | Self::Exists(m) => m,
        }
    }
}

impl std::error::Error for RegionError {}

impl fmt::Display for RegionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// A terrain setting or edit refused by `TerrainData`'s rules (the same rules for region maps).
impl From<crate::terrain_data::TerrainDataError> for RegionError {
    fn from(e: crate::terrain_data::TerrainDataError) -> Self {
        Self::Invalid(e.to_string())
    }
}

pub(super) fn invalid<T>(m: String) -> Result<T, RegionError> {
    Err(RegionError::Invalid(m))
}

pub(super) fn read_error<T>(m: String) -> Result<T, RegionError> {
    Err(RegionError::Read(m))
}

pub(super) fn write_error<T>(m: String) -> Result<T, RegionError> {
    Err(RegionError::Write(m))
}
