//! The colours and sizes every figure uses, so the figures read as one family.
//!
//! Sizes are pixels of a 300 dpi PNG ([`crate::plot::PNG_DPI`]): a figure placed at its design
//! width on paper has 6-8 pt text.

use plotters::style::RGBColor;

/// Communications: blue, as in the paper's figures (matplotlib's first colour).
pub(crate) const COMM: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
/// Computations: orange.
pub(crate) const COMP: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
/// Computations alone in the stacked view: green, as in Figure 2.
pub(crate) const COMP_ALONE: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
pub(crate) const INK: RGBColor = RGBColor(0x20, 0x20, 0x20);
pub(crate) const MUTED: RGBColor = RGBColor(0x60, 0x60, 0x60);
pub(crate) const GRID_LINE: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
/// Cores of alternate NUMA nodes of the first socket (Figure 4's grey areas).
pub(crate) const SHADE: RGBColor = RGBColor(0xec, 0xec, 0xec);

/// Tick labels and legend text.
pub(crate) const TICK: u32 = 26;
/// Axis descriptions and panel titles.
pub(crate) const LABEL: u32 = 28;
/// Figure titles.
pub(crate) const TITLE: u32 = 34;
/// Blank border around every figure.
pub(crate) const MARGIN: i32 = 24;
/// Room for the tick labels of a y axis (six digits of MB/s).
pub(crate) const Y_TICKS: i32 = 100;
/// Radius of data markers.
pub(crate) const MARKER: i32 = 7;
