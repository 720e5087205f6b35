//! A whole-terrain texture that edits update by rectangles (the wandering terrain's `data_tex` and
//! `control_tex`).
//!
//! Godot has no partial upload for a `Texture2D` (upstream #65762): `ImageTexture.update` re-sends the whole
//! image, 43 ms for a 4096² data texture under Vulkan, whatever the edit's size. On the rendering-device
//! renderers (Forward+, Mobile) the texture is therefore made on the `RenderingDevice` with copy-to usage
//! and wrapped in a `Texture2DRD` for the material; an edit writes its rectangle into a small staging
//! texture and copies it in on the GPU. The Compatibility renderer, a separate render thread (where the
//! device may not be called from here) and the headless dummy renderer keep an `ImageTexture` updated whole.

use godot::classes::image::Format;
use godot::classes::rendering_device::{DataFormat, TextureType, TextureUsageBits};
use godot::classes::{
    Image, ImageTexture, RdTextureFormat, RdTextureView, RenderingDevice, RenderingServer,
    Texture2D, Texture2Drd,
};
use godot::prelude::*;

use crate::staging_textures::StagingTextures;

/// What a texel holds: a data texel (height, slope x, slope z; sent as RGBA 32-bit float) or one float
/// (the control value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channels {
    Rgb,
    R,
}

impl Channels {
    fn image_format(self) -> Format {
        match self {
            Self::Rgb => Format::RGBF,
            Self::R => Format::RF,
        }
    }
    fn device_format(self) -> (DataFormat, Format) {
        match self {
            Self::Rgb => (DataFormat::R32G32B32A32_SFLOAT, Format::RGBAF),
            Self::R => (DataFormat::R32_SFLOAT, Format::RF),
        }
    }
    /// Floats per texel given to `update_rect`.
    fn given(self) -> usize {
        match self {
            Self::Rgb => 3,
            Self::R => 1,
        }
    }
    /// Floats per texel on the device.
    fn sent(self) -> usize {
        match self {
            Self::Rgb => 4,
            Self::R => 1,
        }
    }
}

pub struct EditableTexture {
    channels: Channels,
    backend: Backend,
}

enum Backend {
    /// An ImageTexture re-sent whole, and the image it is sent from when this keeps it (edits then write
    /// only their rectangle into it instead of the caller rebuilding the whole image).
    Image(Gd<ImageTexture>, Option<Gd<Image>>),
    Device(DeviceTexture),
}

struct DeviceTexture {
    rd: Gd<RenderingDevice>,
    rid: Rid,
    size: [u32; 2],
    wrap: Gd<Texture2Drd>,
    /// Staging textures by size (sides rounded up to `STAGING_STEP`), reused across edits.
    staging: StagingTextures,
    /// Kept upload buffer.
    bytes: PackedByteArray,
}

/// Staging sides are multiples of this: few distinct sizes, at most this many texels of slack a side.
const STAGING_STEP: u32 = 32;
/// Staging textures kept (the brush sizes in use), and the largest kept (texels).
const STAGING_KEPT: usize = 4;
const STAGING_KEPT_TEXELS: u32 = 1024 * 1024;

/// The rendering device, when textures may be made and updated on it from this thread: not with a separate
/// render thread (thread model "Separate", in the project or on the command line), where the device belongs
/// to that thread.
pub(crate) fn device() -> Option<Gd<RenderingDevice>> {
    let rs = RenderingServer::singleton();
    if !rs.is_on_render_thread() {
        return None;
    }
    rs.get_rendering_device()
}

impl EditableTexture {
    /// A texture of `image` (`FORMAT_RGBF` for `Rgb`, `FORMAT_RF` for `R`); `keep`: without the rendering
    /// device, keep `image` and update it by rectangle (else `update_rect` asks for the whole image).
    pub fn new(channels: Channels, image: &Gd<Image>, keep: bool) -> Option<Self> {
        let backend = match device().and_then(|rd| DeviceTexture::new(rd, channels, image)) {
            Some(d) => Backend::Device(d),
            None => Backend::Image(
                ImageTexture::create_from_image(image)?,
                keep.then(|| image.clone()),
            ),
        };
        Some(Self { channels, backend })
    }

    pub fn texture(&self) -> Gd<Texture2D> {
        match &self.backend {
            Backend::Image(t, _) => t.clone().upcast(),
            Backend::Device(d) => d.wrap.clone().upcast(),
        }
    }

    /// Whether edits reach the GPU by rectangle (else `update_rect` re-sends the whole image).
    pub fn by_rectangle(&self) -> bool {
        matches!(self.backend, Backend::Device(_))
    }

    /// The whole texture anew from `image`, of the same or another size; the texture object stays.
    pub fn replace(&mut self, image: &Gd<Image>) {
        match &mut self.backend {
            Backend::Image(t, kept) => {
                if t.get_width() == image.get_width() && t.get_height() == image.get_height() {
                    t.update(image);
                } else {
                    t.set_image(image);
                }
                if kept.is_some() {
                    *kept = Some(image.clone());
                }
            }
            Backend::Device(d) => d.replace(self.channels, image),
        }
    }

    /// Texels `w × d` at (x, z), row-major, `Channels::given` floats each. `whole` makes the whole image for
    /// a renderer without rectangle updates when this does not keep its image.
    pub fn update_rect(
        &mut self,
        at: [u32; 2],
        size: [u32; 2],
        texels: &[f32],
        whole: impl FnOnce() -> Gd<Image>,
    ) {
        match &mut self.backend {
            Backend::Image(t, Some(kept)) => {
                let bytes: PackedByteArray = texels.iter().flat_map(|v| v.to_le_bytes()).collect();
                let (w, d) = (size[0] as i32, size[1] as i32);
                let fmt = self.channels.image_format();
                if let Some(patch) = Image::create_from_data(w, d, false, fmt, &bytes) {
                    let src = Rect2i::new(Vector2i::ZERO, Vector2i::new(w, d));
                    kept.blit_rect(&patch, src, Vector2i::new(at[0] as i32, at[1] as i32));
                }
                t.update(&*kept);
            }
            Backend::Image(t, None) => t.update(&whole()),
            Backend::Device(d) => d.update_rect(self.channels, at, size, texels),
        }
    }
}

impl DeviceTexture {
    fn new(mut rd: Gd<RenderingDevice>, channels: Channels, image: &Gd<Image>) -> Option<Self> {
        let size = [image.get_width() as u32, image.get_height() as u32];
        let rid = create(&mut rd, channels, image)?;
        let mut wrap = Texture2Drd::new_gd();
        wrap.set_texture_rd_rid(rid);
        Some(Self {
            rd,
            rid,
            size,
            wrap,
            staging: StagingTextures::new(channels.device_format().0, STAGING_KEPT),
            bytes: PackedByteArray::new(),
        })
    }

    fn replace(&mut self, channels: Channels, image: &Gd<Image>) {
        let Some(rid) = create(&mut self.rd, channels, image) else {
            godot_error!("TerrainData: cannot make the data texture on the rendering device");
            return;
        };
        self.wrap.set_texture_rd_rid(rid);
        self.rd.free_rid(self.rid);
        self.rid = rid;
        self.size = [image.get_width() as u32, image.get_height() as u32];
    }

    fn update_rect(&mut self, channels: Channels, at: [u32; 2], size: [u32; 2], texels: &[f32]) {
        let [w, d] = size;
        if w == 0 || d == 0 || at[0] + w > self.size[0] || at[1] + d > self.size[1] {
            return;
        }
        let (given, sent) = (channels.given(), channels.sent());
        debug_assert_eq!(texels.len(), (w * d) as usize * given);
        let side = |v: u32| v.div_ceil(STAGING_STEP) * STAGING_STEP;
        let ssize = [side(w), side(d)];
        let Some(staging) = self.staging.get(&mut self.rd, ssize, "TerrainData") else {
            return;
        };
        // The rectangle at the staging texture's corner; the rest of it is never copied.
        self.bytes.resize((ssize[0] * ssize[1]) as usize * sent * 4);
        let out = self.bytes.as_mut_slice();
        let row_out = ssize[0] as usize * sent * 4;
        for (z, row) in texels.chunks_exact(w as usize * given).enumerate() {
            let dst = &mut out[z * row_out..];
            for (x, t) in row.chunks_exact(given).enumerate() {
                let o = &mut dst[x * sent * 4..(x + 1) * sent * 4];
                for (c, v) in o.chunks_exact_mut(4).enumerate() {
                    // The fourth channel of a data texel is unused: 1, as Godot's RGB → RGBA conversion.
                    let f = if c < given { t[c] } else { 1.0 };
                    v.copy_from_slice(&f.to_le_bytes());
                }
            }
        }
        let err = self.rd.texture_update(staging, 0, &self.bytes);
        let err = if err == godot::global::Error::OK {
            self.rd.texture_copy(
                staging,
                self.rid,
                Vector3::ZERO,
                Vector3::new(at[0] as f32, at[1] as f32, 0.0),
                Vector3::new(w as f32, d as f32, 1.0),
                0,
                0,
                0,
                0,
            )
        } else {
            err
        };
        if err != godot::global::Error::OK {
            godot_error!(
                "TerrainData: updating the data texture on the rendering device failed ({err:?})"
            );
        }
        // A big rectangle (an import, a whole-terrain edit) keeps neither its staging texture nor its bytes.
        if ssize[0] * ssize[1] > STAGING_KEPT_TEXELS {
            self.staging.forget(&mut self.rd, ssize);
            self.bytes = PackedByteArray::new();
        }
    }
}

/// The device texture of `image`: sampled, updated and copied into.
fn create(rd: &mut Gd<RenderingDevice>, channels: Channels, image: &Gd<Image>) -> Option<Rid> {
    let (format, image_format) = channels.device_format();
    debug_assert_eq!(image.get_format(), channels.image_format());
    let mut f = RdTextureFormat::new_gd();
    f.set_format(format);
    f.set_texture_type(TextureType::TYPE_2D);
    f.set_width(image.get_width() as u32);
    f.set_height(image.get_height() as u32);
    // Copy-from too: `Texture2D.get_image()` reads the texture back through it.
    f.set_usage_bits(
        TextureUsageBits::SAMPLING_BIT
            | TextureUsageBits::CAN_UPDATE_BIT
            | TextureUsageBits::CAN_COPY_TO_BIT
            | TextureUsageBits::CAN_COPY_FROM_BIT,
    );
    let data = if image.get_format() == image_format {
        image.get_data()
    } else {
        let mut c = image.duplicate_resource();
        c.convert(image_format);
        c.get_data()
    };
    let layers: Array<PackedByteArray> = array![&data];
    let rid = rd
        .texture_create_ex(&f, &RdTextureView::new_gd())
        .data(&layers)
        .done();
    rid.is_valid().then_some(rid)
}

impl Drop for DeviceTexture {
    fn drop(&mut self) {
        // The wrapper lets go of the device texture first (materials may still hold it).
        self.wrap.set_texture_rd_rid(Rid::Invalid);
        self.staging.free_all(&mut self.rd);
        self.rd.free_rid(self.rid);
    }
}
