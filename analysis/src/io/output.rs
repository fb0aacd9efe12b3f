//! Where a report goes: standard output, or a file written atomically; and the one form of
//! every JSON the tool writes (reports, model files).

use crate::error::{Error, IoAction, Result};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// Writes `text` to `path` (atomically) or, without one, to standard output.
pub fn emit(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        Some(p) => super::atomic::write(p, text.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                // A closed pipe (`| head`) is the reader's choice, not a failure.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(|e| Error::io(IoAction::Write(""), "standard output", e)),
            }
        }
    }
}

/// Pretty-printed JSON, newline-terminated: how every report's JSON and every model file is
/// written.
pub fn pretty_json<T: Serialize>(value: &T) -> String {
    // Serializing plain structs of numbers and strings cannot fail.
    let s = serde_json::to_string_pretty(value).expect("report serializes");
    // serde_json escapes the C0 controls (ESC, BEL) but leaves the C1 ones (U+0080 to
    // U+009F) raw, and some terminals obey the C1 CSI (U+009B) alone: a file name in a report
    // printed to the terminal could drive it. Outside strings JSON holds only ASCII, so each
    // is inside a string, where its `\u` escape is the same text. The invisible format
    // controls and separators (a bidi override turns a name around on the terminal) are
    // escaped the same way ([`crate::error::is_hidden`]), past U+FFFF as a surrogate pair.
    let mut out = String::with_capacity(s.len() + 1);
    for c in s.chars() {
        if ('\u{80}'..='\u{9f}').contains(&c) || crate::error::is_hidden(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzz of issue 35 found `predict -f json` printing a model path's C1 CSI (U+009B)
    /// raw: serde_json escapes ESC and BEL, not the C1 controls, which some terminals obey.
    #[test]
    fn json_never_holds_a_raw_control_character_and_means_the_same() {
        let name = "model\x1b[31m\u{9b}2J\x07\u{85}\u{202e}\u{2028}\u{e0041}.json";
        let text = pretty_json(&serde_json::json!({ "model": name, name: 1 }));
        let hidden = ['\u{202e}', '\u{2028}', '\u{e0041}'];
        let raw = text
            .chars()
            .find(|&c| (c.is_control() || hidden.contains(&c)) && c != '\n');
        assert_eq!(raw, None, "{text:?}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["model"], name);
        assert_eq!(back[name], 1);
    }
}
