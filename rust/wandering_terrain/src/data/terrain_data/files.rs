//! `TerrainData` heightmap files and images: import and export at once (formats in
//! `terrain_core::heightmap_io`; the async import is `import.rs`, elevation files
//! `elevation.rs`).

use super::{budget_of, elevation, TerrainData};
use godot::classes::image::Format;
use godot::classes::{file_access::ModeFlags, FileAccess, Image};
use godot::global::Error;
use godot::prelude::*;
use terrain_core::heightmap_io::{self, FileFormat};
use terrain_core::terrain_data as core;

#[godot_api(secondary)]
impl TerrainData {
    /// Loads a heightmap file; `size` becomes the file's. By extension: `.png` (8- or 16-bit, decoded here
    /// with full 16-bit precision), `.r16` (raw little-endian unsigned 16-bit), `.r32`/`.raw` (raw
    /// little-endian float heights), `.exr` (float, through Godot's loader). Integer formats map their range
    /// to [min_height, max_height] (height-band texturing's heightmaps do the same); float formats hold
    /// heights as they are. Raw files need `raw_width` (samples per row). Elevation files (`.tif`,
    /// `.tiff`, `.hgt`, `.asc`) are read as `import_elevation(path, NODATA_HOLES)` does (heights in metres
    /// and the file's spacing; min_height, max_height and raw_width are not used).
    #[func]
    pub(super) fn import_heightmap(
        &mut self,
        path: GString,
        min_height: f64,
        max_height: f64,
        raw_width: i64,
    ) -> Error {
        let p = path.to_string();
        if heightmap_io::elevation::is_elevation(&p) {
            return self.import_elevation(path, Self::NODATA_HOLES);
        }
        let format = match FileFormat::from_path(&p) {
            Ok(f) => f,
            Err(e) => {
                godot_error!("TerrainData.import_heightmap: {e}");
                return Error::ERR_FILE_UNRECOGNIZED;
            }
        };
        if format == FileFormat::Exr {
            let Some(img) = Image::load_from_file(&path) else {
                godot_error!("TerrainData.import_heightmap: cannot load {p} as an EXR image");
                return Error::ERR_FILE_CORRUPT;
            };
            return if self.import_image(Some(img), min_height, max_height) {
                Error::OK
            } else {
                Error::ERR_INVALID_DATA
            };
        }
        if !FileAccess::file_exists(&path) {
            godot_error!("TerrainData.import_heightmap: no file at {p}");
            return Error::ERR_FILE_NOT_FOUND;
        }
        let bytes = FileAccess::get_file_as_bytes(&path);
        let budget = budget_of(self.sample_budget);
        let res = format.decode(
            bytes.as_slice(),
            min_height,
            max_height,
            raw_width.max(0) as usize,
            budget,
        );
        match res {
            Ok(h) => self.install(h, &format!("import_heightmap({p})")),
            Err(e) => {
                godot_error!("TerrainData.import_heightmap({p}): {e}; nothing changed");
                elevation::import_error_code(&e)
            }
        }
    }

    /// Writes the heights to a file; the format follows the extension as in `import_heightmap`. PNG takes
    /// `bit_depth` 8 or 16; integer formats map [min_height, max_height] to their full range (values
    /// outside are clamped). Float formats (`.r32`, `.raw`, `.exr`) write heights as they are.
    #[func]
    fn export_heightmap(
        &mut self,
        path: GString,
        min_height: f64,
        max_height: f64,
        bit_depth: i64,
    ) -> Error {
        let p = path.to_string();
        let format = match FileFormat::from_path(&p) {
            Ok(f) => f,
            Err(e) => {
                godot_error!("TerrainData.export_heightmap: {e}");
                return Error::ERR_FILE_UNRECOGNIZED;
            }
        };
        let bytes = if format == FileFormat::Exr {
            // Encoded by Godot into memory, written below: a failure to write names the file.
            self.export_image()
                .save_exr_to_buffer_ex()
                .grayscale(true)
                .done()
        } else {
            let (w, d) = (self.core.width(), self.core.depth());
            let bits = bit_depth.clamp(0, 64) as u32;
            match format.encode(self.core.heights(), w, d, bits, min_height, max_height) {
                Ok(b) => PackedByteArray::from(b.as_slice()),
                Err(e) => {
                    godot_error!("TerrainData.export_heightmap({p}): {e}");
                    return elevation::import_error_code(&e);
                }
            }
        };
        if bytes.is_empty() {
            godot_error!("TerrainData.export_heightmap({p}): this Godot build cannot encode EXR; use .r32 for lossless heights");
            return Error::ERR_UNAVAILABLE;
        }
        let Some(mut f) = FileAccess::open(&path, ModeFlags::WRITE) else {
            godot_error!("TerrainData.export_heightmap: cannot write {p}");
            return FileAccess::get_open_error();
        };
        f.store_buffer(&bytes);
        f.close();
        Error::OK
    }

    /// Takes heights from an Image; `size` becomes the image's. 8-bit formats (L8, R8, RGB8, RGBA8, LA8, RG8)
    /// use their first channel mapped to [min_height, max_height]; float formats (RF, RH, RGF, RGH, RGBF,
    /// RGBH, RGBAF, RGBAH) hold heights as they are. Returns false and changes nothing otherwise.
    #[func]
    fn import_image(&mut self, image: Option<Gd<Image>>, min_height: f64, max_height: f64) -> bool {
        let Some(image) = image else {
            godot_error!("TerrainData.import_image: image is null");
            return false;
        };
        if image.is_empty() {
            godot_error!("TerrainData.import_image: image is empty");
            return false;
        }
        let fmt = image.get_format();
        let float = [
            Format::RF,
            Format::RH,
            Format::RGF,
            Format::RGH,
            Format::RGBF,
            Format::RGBH,
            Format::RGBAF,
            Format::RGBAH,
        ];
        let byte = [
            Format::L8,
            Format::R8,
            Format::RGB8,
            Format::RGBA8,
            Format::LA8,
            Format::RG8,
        ];
        let (w, d) = (image.get_width() as usize, image.get_height() as usize);
        if let Err(e) = core::check_size(w as i64, d as i64, budget_of(self.sample_budget)) {
            godot_error!("TerrainData.import_image: {e}");
            return false;
        }
        let mut img = image.duplicate_resource();
        let budget = budget_of(self.sample_budget);
        let decoded = if float.contains(&fmt) {
            img.convert(Format::RF);
            heightmap_io::decode_raw_f32(img.get_data().as_slice(), w, budget)
        } else if byte.contains(&fmt) {
            // R8 keeps the first channel (L8 would mix RGB into luminance); heightmaps are read from red.
            img.convert(Format::R8);
            heightmap_io::decode_u8(img.get_data().as_slice(), w, min_height, max_height, budget)
        } else {
            godot_error!(
                "TerrainData.import_image: unsupported image format {fmt:?}; use L8, R8, RGB8, RGBA8, LA8, RG8 or a float format (RF, RH, RGF, RGH, RGBF, RGBH, RGBAF, RGBAH)"
            );
            return false;
        };
        match decoded {
            Ok(h) => self.install(h, "import_image") == Error::OK,
            Err(e) => {
                godot_error!("TerrainData.import_image: {e}; nothing changed");
                false
            }
        }
    }

    /// The heights as a `FORMAT_RF` Image (world units, lossless).
    #[func]
    fn export_image(&self) -> Gd<Image> {
        let bytes = heightmap_io::encode_raw_f32(self.core.heights());
        let (w, d) = (self.core.width() as i32, self.core.depth() as i32);
        Image::create_from_data(
            w,
            d,
            false,
            Format::RF,
            &PackedByteArray::from(bytes.as_slice()),
        )
        .expect("image")
    }
}
