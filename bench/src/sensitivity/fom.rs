//! Reading a command's figure of merit from what it prints: by default the last number of its
//! standard output; with `--fom-after TEXT`, the first number after the last occurrence of
//! TEXT (e.g. `--fom-after "Triad:"` on STREAM's output), which covers the benchmarks we know
//! (STREAM, XSBench's `Lookups/s:`, NPB's `Mop/s total =`); with `--fom-regex`, the last match
//! of a regular expression (its first capture group if it has one), for everything else.

/// Every number in `text`, in order: an optional sign, digits with an optional fraction, an
/// optional exponent (`1.5e9`). Thousands separators are not understood (`8,033,367` is three
/// numbers): pass the command an option to print plain numbers, or anchor on the text after.
pub(crate) fn numbers(text: &str) -> Vec<f64> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        // A number glued to a word (`x86`, `avx512`, `v1`) is part of a name, not a value.
        let in_word = i > 0 && (b[i - 1].is_ascii_alphabetic() || b[i - 1] == b'_');
        if starts && in_word {
            // Skip the rest of the name.
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            continue;
        }
        if !starts {
            i += 1;
            continue;
        }
        let begin = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
        let mut j = i;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j < b.len() && b[j] == b'.' {
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
        }
        if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
            let mut k = j + 1;
            if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                k += 1;
            }
            if k < b.len() && b[k].is_ascii_digit() {
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                j = k;
            }
        }
        if let Ok(v) = text[begin..j].parse::<f64>() {
            out.push(v);
        }
        i = j.max(i + 1);
    }
    out
}

/// Where the figure of merit is in a command's output.
#[derive(Debug, Clone)]
pub enum Rule {
    /// The last number printed.
    Last,
    /// The first number after the last occurrence of this text.
    After(String),
    /// The last match of this expression (its first capture group if any).
    Regex(regex::Regex),
}

/// What was looked for and not found in a command's output, for the user's message.
#[derive(Debug, Clone, PartialEq, Eq)]
// Each variant names what the output lacks, hence the shared `No`.
#[allow(clippy::enum_variant_names)]
pub(crate) enum FomError {
    /// `--fom-regex` does not match.
    NoMatch { re: String },
    /// Its last match holds no number.
    NoNumberInMatch { re: String, text: String },
    /// `--fom-after` text does not occur.
    NoAnchor { anchor: String },
    /// No number follows its last occurrence.
    NoNumberAfter { anchor: String },
    /// No number at all (the default rule).
    NoNumber,
}

impl std::fmt::Display for FomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FomError::NoMatch { re } => write!(f, "the output has no match of `{re}`"),
            FomError::NoNumberInMatch { re, text } => {
                write!(f, "the last match of `{re}`, `{text}`, holds no number")
            }
            FomError::NoAnchor { anchor } => {
                write!(f, "the output does not contain `{anchor}`")
            }
            FomError::NoNumberAfter { anchor } => {
                write!(f, "no number follows the last `{anchor}` in the output")
            }
            FomError::NoNumber => f.write_str("the output contains no number"),
        }
    }
}

impl std::error::Error for FomError {}

/// The figure of merit in `output` by `rule`. The error says what was looked for, for the
/// user's message.
pub(crate) fn extract(output: &str, rule: &Rule) -> Result<f64, FomError> {
    match rule {
        Rule::Regex(re) => {
            let m = re
                .captures_iter(output)
                .last()
                .ok_or_else(|| FomError::NoMatch { re: re.to_string() })?;
            let text = m.get(1).or_else(|| m.get(0)).map_or("", |g| g.as_str());
            numbers(text)
                .first()
                .copied()
                .ok_or_else(|| FomError::NoNumberInMatch {
                    re: re.to_string(),
                    text: text.to_string(),
                })
        }
        Rule::After(anchor) => {
            let pos = output.rfind(anchor).ok_or_else(|| FomError::NoAnchor {
                anchor: anchor.clone(),
            })?;
            numbers(&output[pos + anchor.len()..])
                .first()
                .copied()
                .ok_or_else(|| FomError::NoNumberAfter {
                    anchor: anchor.clone(),
                })
        }
        Rule::Last => numbers(output).last().copied().ok_or(FomError::NoNumber),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_plain_signed_fractional_and_exponent_numbers() {
        assert_eq!(
            numbers("a 12 b -3.5, .25 and 1.5e9 or 2E-3; end."),
            vec![12.0, -3.5, 0.25, 1.5e9, 2e-3]
        );
        // Names with digits are not values; a trailing dot is punctuation.
        assert_eq!(numbers("avx512 x86_64 v1 took 7."), vec![7.0]);
        assert_eq!(numbers("1e"), vec![1.0]);
        assert_eq!(numbers("v.5 a.b 3"), vec![3.0]);
        assert!(numbers("no digits here").is_empty());
    }

    const STREAM: &str = "\
Function    Best Rate MB/s  Avg time     Min time     Max time
Copy:           36521.1     0.047203     0.043811     0.052119
Triad:          40120.7     0.061201     0.059820     0.063010
Solution Validates: avg error less than 1.000000e-13 on all three arrays
";

    #[test]
    fn default_is_the_last_number() {
        assert_eq!(extract(STREAM, &Rule::Last), Ok(1e-13));
        assert_eq!(extract("rate 5 MB/s\n", &Rule::Last), Ok(5.0));
        assert!(extract("done\n", &Rule::Last)
            .unwrap_err()
            .to_string()
            .contains("no number"));
    }

    #[test]
    fn anchor_takes_the_first_number_after_its_last_occurrence() {
        let after = |t: &str| Rule::After(t.to_string());
        assert_eq!(extract(STREAM, &after("Triad:")), Ok(40120.7));
        assert_eq!(extract("x: 1\nx: 2\n", &after("x:")), Ok(2.0));
        let e = extract(STREAM, &after("Scale:")).unwrap_err().to_string();
        assert!(e.contains("`Scale:`"), "{e}");
        let e = extract("Triad: n/a", &after("Triad:"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no number follows"), "{e}");
    }

    #[test]
    fn regex_takes_the_last_match_and_its_first_group() {
        let re = |r: &str| Rule::Regex(regex::Regex::new(r).unwrap());
        assert_eq!(extract(STREAM, &re(r"Copy:\s+([0-9.]+)")), Ok(36521.1));
        // Without a group, the whole match; the last of several.
        assert_eq!(extract("t=1 ms\nt=2 ms\n", &re(r"t=\d+")), Ok(2.0));
        assert!(extract(STREAM, &re("Scale"))
            .unwrap_err()
            .to_string()
            .contains("no match"));
        assert!(extract(STREAM, &re("(Triad)"))
            .unwrap_err()
            .to_string()
            .contains("holds no number"));
    }
}
