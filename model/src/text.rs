//! Text read from files or typed by the user, made safe to print: control characters
//! escaped (a file name or machine name must not drive the user's terminal) and long values
//! clipped. Here, below every other module, because the model's own checks
//! ([`crate::constraints`]) print a machine's name too.

/// `text` with control characters (other than newline and tab) written as `\u{..}` escapes:
/// a file name or machine name read from a file must not drive the user's terminal, nor,
/// through an invisible format control (`is_hidden`), show the user other text than it
/// holds (`U+202E` turns `gnp.exe` around).
pub fn escape(text: &str) -> String {
    escape_but(text, &['\n', '\t'])
}

/// [`escape`] for a text that must stay on one line (a host name in a table, where a newline
/// would start a line that looks like the table's own): newline and tab escaped too.
pub fn escape_line(text: &str) -> String {
    escape_but(text, &[])
}

/// The most characters of a value the user typed that a message repeats.
const CLIP_CHARS: usize = 40;

/// A value the user typed, as a message repeats it: on one line ([`escape_line`]) and at
/// most 40 characters (`CLIP_CHARS`), cut with `...` (a factor of 1,000 digits printed a
/// message 1,000 characters wide).
pub fn clip(text: &str) -> String {
    cut(&escape_line(text), CLIP_CHARS)
}

/// `text` cut after `chars` characters, with `...`; whole when it is no longer.
pub fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// Characters a message must not print raw although `char::is_control` (General Category
/// Cc) says nothing of them: the format controls (Cf: the bidirectional marks, embeddings,
/// overrides and isolates `U+200E`/`U+200F`, `U+202A`-`U+202E`, `U+2066`-`U+2069`,
/// `U+061C`, the zero-width characters, the byte order mark, the tags) and the line and
/// paragraph separators `U+2028`/`U+2029`, which some terminals break lines at. A name read
/// from a file with them shows other text than it holds (a reversed extension, a hidden
/// word) or a line the tool did not print. The table is Unicode 15's Cf, which changes
/// rarely; a code point added later is at worst printed raw, as before.
pub fn is_hidden(c: char) -> bool {
    const FORMAT: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x2028, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
    ];
    let c = u32::from(c);
    FORMAT.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// Whether a message must escape `c`: a control character (Cc), one of [`is_hidden`], or a
/// noncharacter (`U+FDD0`-`U+FDEF` and the last two code points of every plane), which no
/// font draws and XML refuses (`U+FFFE`, `U+FFFF`): a figure's SVG holding one raw is not
/// well-formed, and figures draw names through this escaper too.
pub fn needs_escape(c: char) -> bool {
    c.is_control() || is_hidden(c) || is_noncharacter(c)
}

/// The 66 noncharacters of Unicode: `U+FDD0`-`U+FDEF`, and `U+xxFFFE`/`U+xxFFFF` of every
/// plane.
fn is_noncharacter(c: char) -> bool {
    let c = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&c) || c & 0xFFFE == 0xFFFE
}

/// `text` with every control character but those of `kept` written as a `\u{..}` escape.
fn escape_but(text: &str, kept: &[char]) -> String {
    let escaped = |c: char| needs_escape(c) && !kept.contains(&c);
    if !text.chars().any(escaped) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if escaped(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
