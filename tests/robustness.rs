//! Bad input never panics: a bounded, seeded loop over mutations of real files (a trace of
//! this machine, a paper model file, a tidy CSV sweep) fed through the readers and what comes
//! after them (calibrate, evaluate, predict). Every input must give a result or an error that
//! names the file; none may panic or allocate without bound.
//!
//! Mutations: truncation, random bytes, a number replaced by an extreme or mistyped value
//! (NaN, 1e999, -1, 0, null, a string, an array, a huge integer), emptied arrays, duplicated
//! points or rows, a CSV column dropped or added, and arbitrary bytes.

mod common;

use common::SplitMix64;
use contention::calibrate::{self, Options};
use contention::dataset::Input;
use contention::io::{model_file, tidy_csv, trace_file};
use contention::{evaluate, model};
use std::panic::{catch_unwind, AssertUnwindSafe};

const TRACE: &str = include_str!("data/traces/vm-local.json");
const MODEL: &str = include_str!("../src/model/paper/paper-henri.json");
const CSV: &str = include_str!("data/henri-sweep.csv");

/// Mutations per file: enough to hit every mutation kind many times, bounded so the test takes
/// seconds.
const PER_FILE: usize = 1000;

const REPLACEMENTS: [&str; 12] = [
    "NaN",
    "1e999",
    "-1",
    "0",
    "null",
    "\"x\"",
    "[]",
    "{}",
    "4294967295",
    "1e308",
    "-0",
    "",
];

fn mutate(text: &str, rng: &mut SplitMix64) -> String {
    let bytes = text.as_bytes();
    let pick = |rng: &mut SplitMix64, n: usize| (rng.next_u64() % n.max(1) as u64) as usize;
    match rng.next_u64() % 8 {
        0 => {
            // The inputs are ASCII, so any byte offset is a character boundary.
            text[..pick(rng, text.len())].to_string()
        }
        1 => {
            let mut b = bytes.to_vec();
            for _ in 0..1 + pick(rng, 4) {
                let i = pick(rng, b.len());
                b[i] = b" ,:[]{}\"0123456789.-eE\nax"[pick(rng, 25)];
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        2 | 3 => {
            // Replace the k-th number.
            let starts: Vec<usize> = (0..bytes.len())
                .filter(|&i| {
                    (bytes[i].is_ascii_digit() || bytes[i] == b'-')
                        && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'.')
                })
                .collect();
            let Some(&s) = starts.get(pick(rng, starts.len())) else {
                return text.to_string();
            };
            let e = (s + 1..bytes.len())
                .find(|&i| !(bytes[i].is_ascii_digit() || b".eE+-".contains(&bytes[i])))
                .unwrap_or(bytes.len());
            format!(
                "{}{}{}",
                &text[..s],
                REPLACEMENTS[pick(rng, REPLACEMENTS.len())],
                &text[e..]
            )
        }
        4 => {
            // Empty one array.
            let opens: Vec<usize> = text.match_indices('[').map(|(i, _)| i).collect();
            let Some(&s) = opens.get(pick(rng, opens.len())) else {
                return text.to_string();
            };
            let mut depth = 0;
            let end = text[s..]
                .char_indices()
                .find_map(|(i, c)| {
                    match c {
                        '[' => depth += 1,
                        ']' => depth -= 1,
                        _ => {}
                    }
                    (depth == 0).then_some(s + i)
                })
                .unwrap_or(text.len() - 1);
            format!("{}[]{}", &text[..s], &text[end + 1..])
        }
        5 => {
            // Duplicate a line (a CSV row, or a line of a JSON object).
            let lines: Vec<&str> = text.lines().collect();
            let i = pick(rng, lines.len());
            let mut out: Vec<&str> = lines.clone();
            out.insert(i, lines[i]);
            out.join("\n")
        }
        6 => {
            // Drop or add a column (meaningful for CSV; noise for JSON).
            let add = rng.next_u64().is_multiple_of(2);
            let col = pick(rng, 7);
            text.lines()
                .map(|l| {
                    let mut f: Vec<&str> = l.split(',').collect();
                    if add {
                        f.insert(col.min(f.len()), "extra");
                    } else if col < f.len() {
                        f.remove(col);
                    }
                    f.join(",")
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        _ => (0..pick(rng, 200))
            .map(|_| (pick(rng, 95) as u8 + 32) as char)
            .collect(),
    }
}

/// Runs `f` on `PER_FILE` mutations of `text`; every error must name `source`.
fn fuzz(name: &str, text: &str, seed: u64, f: impl Fn(&str) -> contention::Result<()>) -> usize {
    let mut rng = SplitMix64(seed);
    let mut panics = Vec::new();
    for i in 0..PER_FILE {
        let input = mutate(text, &mut rng);
        match catch_unwind(AssertUnwindSafe(|| f(&input))) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("fuzz")
                        || msg.contains("no data")
                        || msg.contains("placement")
                        || msg.contains("the calibrated parameters break"),
                    "{name} mutation {i}: error does not name the file: {msg}"
                );
            }
            Err(_) => panics.push(i),
        }
    }
    assert!(
        panics.is_empty(),
        "{name}: {} of {PER_FILE} mutations panicked (seed {seed}, mutations {panics:?})",
        panics.len()
    );
    PER_FILE
}

fn downstream(input: Input, opts: &Options) -> contention::Result<()> {
    let inputs = [input];
    let (fitted, _) = calibrate::calibrate(&inputs, opts)?;
    let m = &fitted.model;
    let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
    model::predict(m, &model::all_placements(m), &cores)?;
    evaluate::evaluate(m, "fuzz-model.json", &inputs)?;
    Ok(())
}

#[test]
fn mutated_traces_models_and_csvs_never_panic() {
    // Quiet the default panic hook: a panic is reported by the assertion, with its seed.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut tried = 0;
    tried += fuzz("trace", TRACE, 1, |t| {
        let trace = trace_file::parse(t, "fuzz.json")?;
        downstream(Input::from_trace(&trace, "fuzz.json")?, &Options::default())
    });
    tried += fuzz("model", MODEL, 2, |t| {
        let m = model_file::parse(t, "fuzz.json")?;
        let cores: Vec<u32> = (1..=m.machine.cores_per_socket).collect();
        model::predict(&m, &model::all_placements(&m), &cores)?;
        Ok(())
    });
    tried += fuzz("csv", CSV, 3, |t| {
        let rows = tidy_csv::parse(t, "fuzz.csv")?;
        let opts = Options {
            numa_per_socket: Some(1),
            ..Options::default()
        };
        downstream(Input::from_rows(&rows, "fuzz.csv"), &opts)
    });
    std::panic::set_hook(hook);
    eprintln!("robustness: {tried} mutated inputs tried, none panicked");
    assert_eq!(tried, 3 * PER_FILE);
}
