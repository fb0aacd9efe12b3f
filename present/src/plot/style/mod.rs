//! What all figures share, one concern per file, so the three figures read as one family:
//!
//! - [`theme`]: colours and sizes;
//! - [`text`](mod@text): text styles, measured widths, header lines that shrink to fit;
//! - [`ticks`]: axis scales and tick positions;
//! - [`marks`]: data markers and lines;
//! - [`legend`]: legends that wrap at the figure's width;
//! - [`rich_text`]: lines mixing words and the paper's `T_par^max`-style symbols.
//!
//! The figures import everything from here.

mod legend;
mod marks;
mod rich_text;
mod text;
mod theme;
mod ticks;

pub(crate) use legend::*;
pub(crate) use marks::*;
pub(crate) use rich_text::*;
pub(crate) use text::*;
pub(crate) use theme::*;
pub(crate) use ticks::*;
