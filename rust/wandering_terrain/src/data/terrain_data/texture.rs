//! `TerrainData`'s derived data on the GPU side: the kept `FORMAT_RGBF` image (r = height, g/b = slopes)
//! and the data texture the shaders sample, updated by the rectangle an edit touched.

use super::{data_bytes, TerrainData};
use crate::data::terrain_data::editable_texture::{Channels, EditableTexture};
use godot::classes::image::Format;
use godot::classes::{Image, ImageTexture, Texture2D};
use godot::prelude::*;
use terrain_core::terrain_data::Region;

#[godot_api(secondary)]
impl TerrainData {
    /// The data image (`FORMAT_RGBF`, r = height, g = slope x, b = slope z), kept and updated by edits.
    #[func]
    fn get_data_image(&mut self) -> Gd<Image> {
        if self.image.is_none() {
            self.image = Some(self.whole_data_image());
        }
        self.image.clone().expect("data image")
    }

    /// The data texture for the shaders' `data_tex`: one texture object, updated in place by edits (by
    /// rectangle on Forward+ and Mobile, see `editable_texture.rs`).
    #[func]
    pub fn get_data_texture(&mut self) -> Gd<Texture2D> {
        if self.texture.is_none() {
            let kept = self.image.is_some();
            let img = self.get_data_image();
            self.texture = EditableTexture::new(Channels::Rgb, &img, false);
            // The device holds the data: the image is made again if someone asks for it.
            if !kept
                && self
                    .texture
                    .as_ref()
                    .is_some_and(EditableTexture::by_rectangle)
            {
                self.image = None;
            }
        }
        match &self.texture {
            Some(t) => t.texture(),
            None => {
                godot_error!("TerrainData.get_data_texture: the texture could not be made");
                ImageTexture::new_gd().upcast()
            }
        }
    }
}

impl TerrainData {
    /// Copies a rectangle of the derived data into the kept image and re-uploads the texture.
    pub(super) fn update_texture_region(&mut self, r: Region) {
        if r.is_empty() || (self.image.is_none() && self.texture.is_none()) {
            return;
        }
        let rows = self.core.texels_region(r);
        if let Some(img) = self.image.as_mut() {
            let patch = Image::create_from_data(
                r.w as i32,
                r.d as i32,
                false,
                Format::RGBF,
                &data_bytes(&rows),
            )
            .expect("patch image");
            let src = Rect2i::new(Vector2i::ZERO, Vector2i::new(r.w as i32, r.d as i32));
            img.blit_rect(&patch, src, Vector2i::new(r.x as i32, r.z as i32));
        }
        if let Some(tex) = self.texture.as_mut() {
            // Without rectangle updates the whole kept image is re-sent (it exists then: see get_data_texture).
            let image = &self.image;
            tex.update_rect(
                [r.x as u32, r.z as u32],
                [r.w as u32, r.d as u32],
                rows.as_flattened(),
                || image.clone().expect("the image of a texture updated whole"),
            );
        }
    }

    /// The whole data as a new image.
    pub(super) fn whole_data_image(&self) -> Gd<Image> {
        let (w, d) = (self.core.width() as i32, self.core.depth() as i32);
        let all = self.core.texels_region(self.core.all());
        Image::create_from_data(w, d, false, Format::RGBF, &data_bytes(&all)).expect("data image")
    }
}
