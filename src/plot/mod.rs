//! The paper's figures, drawn by the tool itself so no Python step stands between a
//! measurement and a picture (Denis, Jeannot, Swartvagher, RR-9451):
//!
//! - [`grid`]: the placement grid of Figures 3-11, measured points and model lines for every
//!   placement of computation and communication data;
//! - [`stacked`]: the stacked view of Figure 2 with the model's key points (section 3.1);
//! - [`sweep`]: one trace's four phases with the spread of their samples, to judge noise;
//! - [`fleet`]: a survey's nodes, their parameters against the fleet's band and their curves.
//!
//! Each figure is computed first as plain data (which the `--csv` output writes unchanged, so
//! the CSV is exactly what is drawn), then drawn on any plotters backend. [`render`] turns a
//! figure into SVG text or PNG bytes in memory; writing files is the command's business.

mod axes;
pub mod data;
pub mod fleet;
mod fonts;
pub mod grid;
pub mod sensitivity;
pub mod stacked;
mod style;
pub mod sweep;

use plotters::coord::Shift;
use plotters::prelude::*;

/// The image formats figures are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// Vector; text stays text (searchable, editable), no font needed to write it.
    Svg,
    /// 300 dpi bitmap with the embedded font rasterised.
    Png,
}

impl ImageFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Svg => "svg",
            ImageFormat::Png => "png",
        }
    }
}

/// Resolution recorded in PNG files: figures are laid out so that at this resolution their
/// text is 6-8 pt, and word processors and LaTeX place them at that size by default.
pub const PNG_DPI: u32 = 300;

/// A figure: its size in pixels (at [`PNG_DPI`]) and how to draw it.
pub trait Figure {
    fn size(&self) -> (u32, u32);

    /// Draws on `root`, already filled white and as large as [`Figure::size`].
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>;
}

/// Renders `figure` as SVG text or PNG bytes. An error here is a failure of the drawing
/// library or of the embedded font, not of the user's input.
pub fn render(figure: &impl Figure, format: ImageFormat) -> Result<Vec<u8>, String> {
    fonts::register()?;
    let size = figure.size();
    match format {
        ImageFormat::Svg => {
            let mut svg = String::new();
            {
                let backend = fonts::Typeset::vector(SVGBackend::with_string(&mut svg, size));
                draw_on(figure, backend)?;
            }
            Ok(svg.into_bytes())
        }
        ImageFormat::Png => {
            let (w, h) = size;
            let mut rgb = vec![255u8; w as usize * h as usize * 3];
            {
                let backend = fonts::Typeset::raster(BitMapBackend::with_buffer(&mut rgb, size));
                draw_on(figure, backend)?;
            }
            encode_png(&rgb, size)
        }
    }
}

fn draw_on<DB: DrawingBackend>(figure: &impl Figure, backend: DB) -> Result<(), String> {
    let root = backend.into_drawing_area();
    let result = root
        .fill(&WHITE)
        .and_then(|()| figure.draw(&root))
        .and_then(|()| root.present());
    result.map_err(|e| format!("drawing failed: {e}"))
}

fn encode_png(rgb: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let per_metre = (f64::from(PNG_DPI) / 0.0254).round() as u32;
    encoder.set_pixel_dims(Some(png::PixelDimensions {
        xppu: per_metre,
        yppu: per_metre,
        unit: png::Unit::Meter,
    }));
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .write_image_data(rgb)
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    writer
        .finish()
        .map_err(|e| format!("PNG encoding failed: {e}"))?;
    Ok(out)
}

/// `name` with every character that is not a letter, digit, `.`, `_` or `-` replaced by `_`,
/// for file names built from machine names and trace names.
/// How a figure names its model: `paper:NAME` as is, a file by its name alone. A directory
/// path in a subtitle says where the file was on one machine, not what it is, and breaks the
/// layout of a figure meant for a paper.
pub fn model_label(source: &str) -> String {
    if source.starts_with("paper:") {
        return source.to_string();
    }
    std::path::Path::new(source)
        .file_name()
        .map_or_else(|| source.to_string(), |n| n.to_string_lossy().into_owned())
}

pub fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "figure".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_are_safe() {
        assert_eq!(file_stem("henri-subnuma"), "henri-subnuma");
        assert_eq!(file_stem("a b/c"), "a_b_c");
        assert_eq!(file_stem(""), "figure");
    }
}
