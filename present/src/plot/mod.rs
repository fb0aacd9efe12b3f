//! The paper's figures, drawn by the tool itself so no Python step stands between a
//! measurement and a picture (Denis, Jeannot, Swartvagher, RR-9451):
//!
//! - [`grid`]: the placement grid of Figures 3-11, measured points and model lines for every
//!   placement of computation and communication data;
//! - [`stacked`]: the stacked view of Figure 2 with the model's key points (section 3.1);
//! - [`sweep`]: one trace's four phases with the spread of their samples, to judge noise;
//! - [`fleet`]: a survey's nodes, their parameters against the fleet's band and their curves;
//! - `sensitivity`: the sensitivity curve of `contention sensitivity` (Foyer and Goglin's
//!   Figure 7).
//!
//! What they share: [`data`], the measurements by placement, read from traces and tidy CSV;
//! `axes`, plot rectangles and their axes in pixels; `style`, the theme, text, ticks, marks
//! and legends of every figure; `fonts`, the typeface embedded in the binary.
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

    /// The format a file's extension names (`.svg`, `.png`), if either.
    pub fn of_path(path: &std::path::Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?;
        [ImageFormat::Svg, ImageFormat::Png]
            .into_iter()
            .find(|f| f.extension() == ext)
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

/// Why a figure could not be rendered: a failure of the drawing library, of the PNG encoder or
/// of the embedded font, never of the user's input (exit 1).
#[derive(Debug)]
pub enum RenderError {
    /// The embedded font does not parse or plotters refused it.
    Font(fonts::FontError),
    /// plotters failed while drawing (its error, from whichever backend drew).
    Draw(Box<dyn std::error::Error + Send + Sync>),
    /// The PNG encoder failed.
    Png(png::EncodingError),
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::Font(e) => write!(f, "{e}"),
            RenderError::Draw(e) => write!(f, "drawing failed: {e}"),
            RenderError::Png(e) => write!(f, "PNG encoding failed: {e}"),
        }
    }
}

/// `?` turns it into the crate's error, a failure of the system (exit 1).
impl From<RenderError> for crate::Error {
    fn from(err: RenderError) -> Self {
        crate::Error::Render {
            path: None,
            err: Box::new(err),
        }
    }
}

impl std::error::Error for RenderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RenderError::Font(e) => e.source(),
            RenderError::Draw(e) => Some(e.as_ref()),
            RenderError::Png(e) => Some(e),
        }
    }
}

impl From<fonts::FontError> for RenderError {
    fn from(e: fonts::FontError) -> Self {
        RenderError::Font(e)
    }
}

/// Renders `figure` as SVG text or PNG bytes. An error here is a failure of the drawing
/// library or of the embedded font, not of the user's input.
pub fn render(figure: &impl Figure, format: ImageFormat) -> Result<Vec<u8>, RenderError> {
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

fn draw_on<DB: DrawingBackend>(figure: &impl Figure, backend: DB) -> Result<(), RenderError>
where
    DB::ErrorType: 'static,
{
    let root = backend.into_drawing_area();
    let result = root
        .fill(&WHITE)
        .and_then(|()| figure.draw(&root))
        .and_then(|()| root.present());
    result.map_err(|e| RenderError::Draw(Box::new(e)))
}

fn encode_png(rgb: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>, RenderError> {
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
    let mut writer = encoder.write_header().map_err(RenderError::Png)?;
    writer.write_image_data(rgb).map_err(RenderError::Png)?;
    writer.finish().map_err(RenderError::Png)?;
    Ok(out)
}

/// `name` with every character that is not a letter, digit, `.`, `_` or `-` replaced by `_`,
/// for file names built from machine names and trace names.
/// How a figure names its model: `paper:NAME` as is, a file by its name alone. A directory
/// path in a subtitle says where the file was on one machine, not what it is, and breaks the
/// layout of a figure meant for a paper.
pub(crate) fn model_label(source: &str) -> String {
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

    /// A figure whose drawing fails, as a plotters backend error would.
    struct Broken;

    impl Figure for Broken {
        fn size(&self) -> (u32, u32) {
            (20, 10)
        }

        fn draw<DB: DrawingBackend>(
            &self,
            _root: &DrawingArea<DB, Shift>,
        ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
            Err(DrawingAreaErrorKind::LayoutError)
        }
    }

    #[test]
    fn a_drawing_failure_is_a_render_error_with_its_cause() {
        use std::error::Error as _;
        for format in [ImageFormat::Svg, ImageFormat::Png] {
            let e = render(&Broken, format).unwrap_err();
            assert!(matches!(e, RenderError::Draw(_)), "{e:?}");
            assert!(e.to_string().starts_with("drawing failed: "), "{e}");
            assert!(e.source().is_some());
            let e = crate::Error::Render {
                path: Some("f.png".into()),
                err: Box::new(e),
            };
            assert_eq!(e.exit_code(), crate::error::EXIT_FAILURE);
        }
        let parse = fonts::FontError::Parse {
            name: "x.ttf",
            err: ab_glyph::FontRef::try_from_slice(b"not a font").unwrap_err(),
        };
        assert!(parse
            .to_string()
            .starts_with("the embedded font x.ttf does not parse: "));
        assert!(RenderError::from(parse).source().is_some());
    }
}
