//! The typeface of every figure, embedded in the binary: DejaVu Sans, regular and bold
//! (Bitstream Vera licence with DejaVu's public-domain changes, `fonts/LICENSE-DejaVu.txt`).
//! Embedding it means a figure renders the same on a headless compute node with no fontconfig
//! and no fonts installed as on a laptop.
//!
//! Two jobs:
//! - [`register`] the faces with plotters' `ab_glyph` font backend under [`FAMILY`]: plotters
//!   asks it for text sizes while laying out a chart, even for SVG;
//! - [`Typeset`], a backend wrapper that measures text with the real font metrics and, for
//!   bitmaps, draws each glyph on its baseline. plotters 0.3.7's own `ab_glyph` path puts the
//!   baseline at half the font size below the anchor, so text anchored at its top or centre
//!   comes out about a quarter of its size too high: tick labels sit beside the wrong tick.
//!   SVG text is left to the viewer, which places it by the `dy` plotters writes. Every text
//!   it measures or draws is first [`shown`]: escaped as messages escape it, when it holds a
//!   character no figure may hold raw.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontStyle,
};
use std::sync::OnceLock;

/// The family name figures ask for, and the one SVG files name: the embedded face first, so a
/// viewer that has DejaVu Sans sets text with the metrics the layout was computed with, then
/// any sans-serif face rather than the viewer's default serif one.
pub(crate) const FAMILY: &str = "DejaVu Sans, sans-serif";

static REGULAR: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("fonts/DejaVuSans-Bold.ttf");

struct Faces {
    regular: FontRef<'static>,
    bold: FontRef<'static>,
}

/// Why the embedded font cannot be used: a broken build, not user input.
#[derive(Debug, Clone)]
pub enum FontError {
    /// The embedded file `name` does not parse as a font.
    Parse {
        name: &'static str,
        err: ab_glyph::InvalidFont,
    },
    /// plotters refused to register the face for `style`.
    Register { style: String },
}

impl std::fmt::Display for FontError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FontError::Parse { name, err } => {
                write!(f, "the embedded font {name} does not parse: {err}")
            }
            FontError::Register { style } => {
                write!(f, "plotters refused the embedded font for style {style}")
            }
        }
    }
}

impl std::error::Error for FontError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FontError::Parse { err, .. } => Some(err),
            FontError::Register { .. } => None,
        }
    }
}

/// The parsed faces, or why the embedded files do not parse (a broken build, not user input).
fn faces() -> Result<&'static Faces, FontError> {
    static FACES: OnceLock<Result<Faces, FontError>> = OnceLock::new();
    FACES
        .get_or_init(|| {
            let parse = |bytes: &'static [u8], name: &'static str| {
                FontRef::try_from_slice(bytes).map_err(|err| FontError::Parse { name, err })
            };
            Ok(Faces {
                regular: parse(REGULAR, "DejaVuSans.ttf")?,
                bold: parse(BOLD, "DejaVuSans-Bold.ttf")?,
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Registers the embedded faces with plotters (once per process).
pub(crate) fn register() -> Result<(), FontError> {
    static REGISTERED: OnceLock<Result<(), FontError>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            faces()?;
            for (style, bytes) in [(FontStyle::Normal, REGULAR), (FontStyle::Bold, BOLD)] {
                plotters::style::register_font(FAMILY, style, bytes).map_err(|_| {
                    FontError::Register {
                        style: style.as_str().to_string(),
                    }
                })?;
            }
            Ok(())
        })
        .clone()
}

/// A font face scaled to a plotters text size.
///
/// plotters' size is 1.24 times the em size (its SVG backend writes `font-size = size / 1.24`),
/// so bitmaps use the same em size as SVG viewers and both come out alike.
fn scaled(
    style: FontStyle,
    size: f64,
) -> Result<ab_glyph::PxScaleFont<&'static FontRef<'static>>, FontError> {
    let faces = faces()?;
    let face = match style {
        FontStyle::Bold => &faces.bold,
        _ => &faces.regular,
    };
    let em = (size / 1.24) as f32;
    let units_per_em = face.units_per_em().unwrap_or(2048.0);
    Ok(face.as_scaled(PxScale::from(em * face.height_unscaled() / units_per_em)))
}

/// Advance width of `text` in pixels, kerning included.
fn advance<F: Font, S: ScaleFont<F>>(font: &S, text: &str) -> f32 {
    let mut width = 0.0;
    let mut prev = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = prev {
            width += font.kern(p, id);
        }
        width += font.h_advance(id);
        prev = Some(id);
    }
    width
}

/// What a figure shows of `text`: the text itself, or, when it holds a character a terminal
/// would not be shown raw ([`crate::error::needs_escape`]: a control character, a bidi or
/// other format control, a noncharacter), the same escapes on one line as every message
/// ([`crate::error::escape_line`]). File and machine names reach every figure's titles and
/// legends; raw, an ESC or U+0001 made the SVG not well-formed XML, and U+202E turned the
/// name around in any viewer. Every text is measured and drawn through here (the backend
/// below), so a layout is computed with the text that is drawn.
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(crate::error::needs_escape) {
        crate::error::escape_line(text).into()
    } else {
        text.into()
    }
}

/// Width and height (ascent to descent) of `text` in pixels at plotters size `size`, as
/// drawn ([`shown`]).
pub(crate) fn measure(text: &str, style: FontStyle, size: f64) -> Result<(u32, u32), FontError> {
    let font = scaled(style, size)?;
    let height = font.ascent() - font.descent();
    Ok((
        advance(&font, &shown(text)).ceil() as u32,
        height.ceil() as u32,
    ))
}

/// A drawing backend whose text is measured with the embedded font and, when `raster`, drawn
/// glyph by glyph on the wrapped backend's pixels (see the module documentation for why).
pub(crate) struct Typeset<B> {
    inner: B,
    raster: bool,
}

impl<B> Typeset<B> {
    /// For a vector backend (SVG): text stays text; only its measurement changes.
    pub(crate) fn vector(inner: B) -> Self {
        Typeset {
            inner,
            raster: false,
        }
    }

    /// For a pixel backend: glyphs are rasterised here.
    pub(crate) fn raster(inner: B) -> Self {
        Typeset {
            inner,
            raster: true,
        }
    }
}

fn font_error<E: std::error::Error + Send + Sync>(e: FontError) -> DrawingErrorKind<E> {
    DrawingErrorKind::FontError(Box::new(e))
}

impl<B: DrawingBackend> Typeset<B> {
    fn raster_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let font = scaled(style.style(), style.size()).map_err(font_error)?;
        let width = advance(&font, text);
        let em = (style.size() / 1.24) as f32;
        let anchor = style.anchor();
        let x0 = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        // Baseline below the anchor: the top of capitals on a top anchor (as SVG's 0.76em),
        // digits and capitals centred on a centre anchor, descenders ending on a bottom one.
        let baseline = match anchor.v_pos {
            VPos::Top => 0.76 * em,
            VPos::Center => 0.365 * em,
            VPos::Bottom => font.descent(),
        };
        let transform = style.transform();
        let mut cursor = x0;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                cursor += font.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(font.scale(), ab_glyph::point(cursor, baseline));
            cursor += font.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue; // a space
            };
            let bounds = outline.px_bounds();
            let mut pixels = Vec::new();
            outline.draw(|x, y, coverage| {
                if coverage > 0.0 {
                    pixels.push((
                        bounds.min.x as i32 + x as i32,
                        bounds.min.y as i32 + y as i32,
                        coverage,
                    ));
                }
            });
            for (x, y, coverage) in pixels {
                let (x, y) = transform.transform(x, y);
                self.inner.draw_pixel(
                    (pos.0 + x, pos.1 + y),
                    BackendColor {
                        alpha: color.alpha * f64::from(coverage.min(1.0)),
                        rgb: color.rgb,
                    },
                )?;
            }
        }
        Ok(())
    }
}

impl<B: DrawingBackend> Typeset<B> {
    /// A wide line as one quadrilateral per segment with round joins. plotters' own bitmap
    /// path offsets the vertices along the bisector of each corner, which thins steep
    /// segments: a model curve dropping fast looked hairline next to flat ones.
    fn thick_path<S: BackendStyle>(
        &mut self,
        points: &[BackendCoord],
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        let color = style.color();
        let half = f64::from(style.stroke_width()) / 2.0;
        for w in points.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            let (dx, dy) = (f64::from(x1 - x0), f64::from(y1 - y0));
            let len = dx.hypot(dy);
            if len == 0.0 {
                continue;
            }
            let (nx, ny) = (-dy / len * half, dx / len * half);
            let corner = |x: i32, y: i32, s: f64| {
                (
                    (f64::from(x) + s * nx).round() as i32,
                    (f64::from(y) + s * ny).round() as i32,
                )
            };
            self.inner.fill_polygon(
                [
                    corner(x0, y0, 1.0),
                    corner(x1, y1, 1.0),
                    corner(x1, y1, -1.0),
                    corner(x0, y0, -1.0),
                ],
                &color,
            )?;
        }
        if half >= 1.5 && points.len() > 2 {
            for &p in &points[1..points.len() - 1] {
                self.inner
                    .draw_circle(p, (half - 0.5).round() as u32, &color, true)?;
            }
        }
        Ok(())
    }
}

impl<B: DrawingBackend> DrawingBackend for Typeset<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if self.raster && style.stroke_width() > 1 {
            self.thick_path(&path.into_iter().collect::<Vec<_>>(), style)
        } else {
            self.inner.draw_path(path, style)
        }
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let text = shown(text);
        if self.raster {
            self.raster_text(&text, style, pos)
        } else {
            self.inner.draw_text(&text, style, pos)
        }
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        measure(text, style.style(), style.size()).map_err(font_error)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_faces_parse_and_register() {
        register().unwrap();
        let (w, h) = measure("40000", FontStyle::Normal, 26.0).unwrap();
        // Five digits of DejaVu Sans are 5 x 0.636 em wide; the em is 26 / 1.24 px.
        let em = 26.0 / 1.24;
        assert!((f64::from(w) - 5.0 * 0.636 * em).abs() <= 2.0, "{w}");
        assert!(f64::from(h) > em && f64::from(h) < 1.3 * em, "{h}");
        let (bold, _) = measure("40000", FontStyle::Bold, 26.0).unwrap();
        assert!(bold > w, "bold digits are wider: {bold} vs {w}");
    }
}
