//! Core-count lists as users type them: `1..18` (inclusive), `4`, `1,2,4,8`, or a mix
//! such as `1..4,8,16`.

use std::fmt;
use std::str::FromStr;

/// A sorted, duplicate-free list of computing-core counts, each at least 1.
///
/// The model of Denis et al. (section 3.2) is defined for `n = 1 ..` the cores of one socket;
/// the upper bound depends on the machine and is checked where the machine is known
/// (`CoreList::check_max`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreList(Vec<u32>);

/// Why a core list was refused; the message names the bad text and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreListError(String);

impl fmt::Display for CoreListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CoreListError {}

/// The largest core count a list may hold, checked while parsing, before anything is
/// allocated (`1..4294967295` would otherwise build a 16 GiB list). It equals the model's
/// bound on `cores_per_socket` (`model::constraints::MAX_CORES_PER_SOCKET`; this file cannot
/// reach it, see above): no count beyond it can be predicted or measured.
pub(crate) const MAX_COUNT: u32 = 4096;

const FORMS: &str = "write a count (`4`), an inclusive range (`1..18`) or a comma list (`1,2,4,8`)";

impl CoreList {
    /// The list `1..=max`.
    pub(crate) fn up_to(max: u32) -> Self {
        CoreList((1..=max).collect())
    }

    /// The list of `counts` (any order, duplicates allowed).
    pub(crate) fn from_counts(counts: &[u32]) -> Self {
        let mut v = counts.to_vec();
        v.sort_unstable();
        v.dedup();
        CoreList(v)
    }

    /// The counts, ascending.
    pub(crate) fn counts(&self) -> &[u32] {
        &self.0
    }

    /// Refuses counts above `limit` (the cores of one socket, for the model), naming `what`
    /// that limit is.
    pub(crate) fn check_max(&self, limit: u32, what: &str) -> Result<(), CoreListError> {
        match self.0.iter().find(|&&n| n > limit) {
            Some(n) => Err(CoreListError(format!(
                "core count {n} is beyond {what} ({limit}); use counts in 1..{limit}"
            ))),
            None => Ok(()),
        }
    }
}

fn parse_count(text: &str, whole: &str) -> Result<u32, CoreListError> {
    let n: u32 = text.trim().parse().map_err(|_| {
        CoreListError(format!(
            "`{text}` in `{whole}` is not a core count; {FORMS}"
        ))
    })?;
    if n == 0 {
        return Err(CoreListError(format!(
            "core counts start at 1, `{whole}` has 0; {FORMS}"
        )));
    }
    if n > MAX_COUNT {
        return Err(CoreListError(format!(
            "core count {n} in `{whole}` is beyond any socket (at most {MAX_COUNT} cores); {FORMS}"
        )));
    }
    Ok(n)
}

impl FromStr for CoreList {
    type Err = CoreListError;

    fn from_str(whole: &str) -> Result<Self, Self::Err> {
        if whole.trim().is_empty() {
            return Err(CoreListError(format!("empty core list; {FORMS}")));
        }
        let mut counts = Vec::new();
        for part in whole.split(',') {
            match part.split_once("..") {
                Some((lo, hi)) => {
                    let hi = hi.strip_prefix('=').unwrap_or(hi);
                    let (lo, hi) = (parse_count(lo, whole)?, parse_count(hi, whole)?);
                    if lo > hi {
                        return Err(CoreListError(format!(
                            "range `{}` goes down ({lo} > {hi}); write it low to high, `{hi}..{lo}`",
                            part.trim()
                        )));
                    }
                    counts.extend(lo..=hi);
                }
                None => counts.push(parse_count(part, whole)?),
            }
        }
        counts.sort_unstable();
        counts.dedup();
        Ok(CoreList(counts))
    }
}

impl fmt::Display for CoreList {
    /// Consecutive runs print as `a..b`, so `1..18` round-trips.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut i = 0;
        while i < self.0.len() {
            let start = self.0[i];
            let mut end = start;
            while i + 1 < self.0.len() && self.0[i + 1] == end + 1 {
                i += 1;
                end += 1;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if end > start {
                write!(f, "{start}..{end}")?;
            } else {
                write!(f, "{start}")?;
            }
            i += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<u32>, String> {
        s.parse::<CoreList>()
            .map(|c| c.counts().to_vec())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn accepts_the_documented_forms() {
        assert_eq!(parse("1..4").unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(parse("1..=3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse("4").unwrap(), vec![4]);
        assert_eq!(parse("8,1,2,4").unwrap(), vec![1, 2, 4, 8]);
        assert_eq!(parse("1..3,2,9").unwrap(), vec![1, 2, 3, 9]);
        assert_eq!(parse(" 2 .. 3 ").unwrap(), vec![2, 3]);
    }

    #[test]
    fn refuses_bad_ranges_naming_them() {
        let zero = parse("0..3").unwrap_err();
        assert!(zero.contains("start at 1"), "{zero}");
        let down = parse("5..2").unwrap_err();
        assert!(down.contains("`5..2`") && down.contains("2..5"), "{down}");
        let word = parse("x").unwrap_err();
        assert!(word.contains("`x`") && word.contains("1..18"), "{word}");
        assert!(parse("").is_err());
        assert!(parse("1,,2").is_err());
        assert!(parse("-1").is_err());
    }

    #[test]
    fn displays_runs_compactly() {
        let list: CoreList = "1..4,8,9,12".parse().unwrap();
        assert_eq!(list.to_string(), "1..4,8..9,12");
        assert_eq!(list.counts().last(), Some(&12));
    }

    #[test]
    fn check_max_names_the_limit() {
        let list: CoreList = "1..20".parse().unwrap();
        let err = list.check_max(18, "the cores per socket").unwrap_err();
        assert!(err.to_string().contains("core count 19") && err.to_string().contains("1..18"));
        assert!(CoreList::up_to(18).check_max(18, "x").is_ok());
    }
}
