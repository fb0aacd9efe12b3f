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

/// The most core counts the default sweep measures ([`CoreList::default_sweep`]).
pub(crate) const DENSE_SWEEP: u32 = 18;

/// The counts a sparse default sweep measures every one of, from 1.
const DENSE_HEAD: u32 = 6;

const FORMS: &str = "write a count (`4`), an inclusive range (`1..18`) or a comma list (`1,2,4,8`)";

impl CoreList {
    /// The list `1..=max`.
    pub fn up_to(max: u32) -> Self {
        CoreList((1..=max).collect())
    }

    /// The sweep `measure` makes when `--cores` is not given, on a socket of `max` free
    /// cores: every count up to `DENSE_SWEEP` of them, and on a larger socket the first
    /// `DENSE_HEAD` counts (where communications start to lose bandwidth, from the first
    /// computing core on a real node) then counts spaced geometrically up to `max`, so that
    /// the default's three runs stay within 15 minutes on a 128-core socket (18 counts x 3
    /// runs x at most 14.4 s a point, with --max-phase 1.5) where every count would take 90.
    /// A geometric grid puts as many counts between 8 and 16 cores as between 64 and 128:
    /// the breakpoints of section 3.2 (`N_seq^max`, `N_par^max`) are read to within a
    /// step of 12-25 %, and `--cores 1..N` measures every count.
    pub fn default_sweep(max: u32) -> Self {
        if max <= DENSE_SWEEP {
            return CoreList::up_to(max);
        }
        let steps = DENSE_SWEEP - DENSE_HEAD;
        let ratio = (f64::from(max) / f64::from(DENSE_HEAD)).powf(1.0 / f64::from(steps));
        let mut counts: Vec<u32> = (1..=DENSE_HEAD).collect();
        for i in 1..=steps {
            let n = (f64::from(DENSE_HEAD) * ratio.powi(i as i32)).round() as u32;
            counts.push(n.clamp(DENSE_HEAD + 1, max));
        }
        counts.push(max);
        CoreList::from_counts(&counts)
    }

    /// The list of `counts` (any order, duplicates allowed).
    pub fn from_counts(counts: &[u32]) -> Self {
        let mut v = counts.to_vec();
        v.sort_unstable();
        v.dedup();
        CoreList(v)
    }

    /// The counts, ascending.
    pub fn counts(&self) -> &[u32] {
        &self.0
    }

    /// Refuses counts above `limit` (the cores of one socket, for the model), naming `what`
    /// that limit is.
    pub fn check_max(&self, limit: u32, what: &str) -> Result<(), CoreListError> {
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
    fn the_default_sweep_is_every_count_up_to_18_and_18_counts_geometric_beyond() {
        assert_eq!(
            CoreList::default_sweep(14).counts(),
            (1..=14).collect::<Vec<_>>()
        );
        assert_eq!(CoreList::default_sweep(18).counts().len(), 18);
        for max in [19, 30, 62, 126, 254, 4096] {
            let c = CoreList::default_sweep(max);
            let v = c.counts();
            assert!(v.len() <= DENSE_SWEEP as usize, "{max}: {v:?}");
            assert_eq!(&v[..6], &[1, 2, 3, 4, 5, 6], "{max}");
            assert_eq!(*v.last().unwrap(), max, "{max}: the last core is measured");
            // Geometric: no step beyond the 6th more than 35 % of the count before it
            // up to 126 cores (the ratio is (max / 6)^(1/12): 1.29 there).
            for w in v[5..].windows(2) {
                assert!(
                    f64::from(w[1]) <= f64::from(w[0]) * 1.35 + 1.0 || max > 126,
                    "{max}: {v:?}"
                );
            }
        }
        assert_eq!(
            CoreList::default_sweep(126).counts(),
            &[1, 2, 3, 4, 5, 6, 8, 10, 13, 17, 21, 27, 35, 46, 59, 76, 98, 126]
        );
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
