//! Reading contention graph files and explicit penalty files (docs/formats.md,
//! "Contention graph"; docs/guide.md, "contention network") into validated [`Graph`] and [`Explicit`] values.
//!
//! Every refusal names the file and the field (`communications[2].dst`) and exits 2.

use crate::error::Result;
use crate::network::{Communication, Explicit, Graph, GraphProblem, MAX_ALPHA, MIN_ALPHA};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The graph file as written: the link given as `alpha` (seconds per byte) or `bandwidth`
/// (MB/s, 10^6 bytes per second, of a communication alone), not both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphFile {
    #[serde(default)]
    #[allow(dead_code)]
    description: Option<String>,
    alpha: Option<f64>,
    bandwidth: Option<f64>,
    communications: Vec<Communication>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PenaltyFile {
    steps: Vec<UniqueKeys>,
}

/// One step's penalties; a communication named twice is refused (JSON readers disagree on
/// which of two equal keys wins, so the file does not say what its author meant).
#[derive(Debug)]
struct UniqueKeys(BTreeMap<String, f64>);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = UniqueKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of communication id to penalty")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<UniqueKeys, A::Error> {
                let mut out = BTreeMap::new();
                while let Some((k, v)) = map.next_entry::<String, f64>()? {
                    if out.contains_key(&k) {
                        return Err(serde::de::Error::custom(format!(
                            "`{k}` is given twice in this step; give each communication once"
                        )));
                    }
                    out.insert(k, v);
                }
                Ok(UniqueKeys(out))
            }
        }
        d.deserialize_map(Visitor)
    }
}

fn read(path: &Path, what: &'static str) -> Result<String> {
    super::read::text(path, what)
}

/// Why a graph or penalty file was refused: the file, the field and the rule it breaks.
#[derive(Debug)]
pub enum GraphFileError {
    /// JSON that does not fit the layout (`kind`: "graph" or "penalty"; `field` its path,
    /// `(file)` for the whole file).
    Json {
        kind: &'static str,
        path: PathBuf,
        field: String,
        err: serde_json::Error,
    },
    /// A graph field that breaks a rule of the file (the link's `alpha` or `bandwidth`).
    Field {
        path: PathBuf,
        field: &'static str,
        rule: String,
    },
    /// A graph that parses but breaks the model's rules, every broken one listed.
    Problems {
        path: PathBuf,
        problems: Vec<GraphProblem>,
    },
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::wrap!(Input: GraphFileError);
impl std::fmt::Display for GraphFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraphFileError::Json {
                kind,
                path,
                field,
                err,
            } => write!(
                f,
                "{kind} file `{}` is invalid: {field}: {err}",
                path.display()
            ),
            GraphFileError::Field { path, field, rule } => write!(
                f,
                "graph file `{}` is invalid: {field}: {rule}",
                path.display()
            ),
            GraphFileError::Problems { path, problems } => {
                write!(f, "graph file `{}` is invalid:", path.display())?;
                for p in problems {
                    write!(f, "\n  {p}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for GraphFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GraphFileError::Json { err, .. } => Some(err),
            GraphFileError::Field { .. } | GraphFileError::Problems { .. } => None,
        }
    }
}

/// Deserializes `text`, a refusal naming `kind` file `path` and the field at fault.
fn parse_json<T: for<'de> Deserialize<'de>>(
    text: &str,
    kind: &'static str,
    path: &Path,
) -> Result<T, GraphFileError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let at = e.path().to_string();
        let field = if at == "." { "(file)".to_string() } else { at };
        GraphFileError::Json {
            kind,
            path: path.into(),
            field,
            err: e.into_inner(),
        }
    })
}

/// Loads and validates a contention graph file.
pub fn load_graph(path: &Path) -> Result<Graph> {
    Ok(parse_graph(&read(path, "graph file")?, path)?)
}

/// Parses and validates graph-file JSON; `path` names it in errors.
pub fn parse_graph(text: &str, path: &Path) -> Result<Graph, GraphFileError> {
    let file: GraphFile = parse_json(text, "graph", path)?;
    let refuse = |field: &'static str, rule: &str| GraphFileError::Field {
        path: path.into(),
        field,
        rule: rule.to_string(),
    };
    let alpha = match (file.alpha, file.bandwidth) {
        (Some(a), None) => a,
        // The same bounds as alpha's (1 B/s to 10^18 B/s), checked here so that the
        // refusal names the field the user wrote.
        (None, Some(b)) if (1e-6 / MAX_ALPHA..=1e-6 / MIN_ALPHA).contains(&b) => 1e-6 / b,
        (None, Some(b)) => {
            return Err(refuse(
                "bandwidth",
                &format!(
                    "must be a number of MB/s between {:e} and {:e}, not {b}",
                    1e-6 / MAX_ALPHA,
                    1e-6 / MIN_ALPHA
                ),
            ))
        }
        (Some(_), Some(_)) => {
            return Err(refuse(
                "alpha",
                "give the link as `alpha` (s/B) or `bandwidth` (MB/s), not both",
            ))
        }
        (None, None) => {
            return Err(refuse(
                "alpha",
                "required: the link's `alpha` (seconds per byte) or `bandwidth` (MB/s)",
            ))
        }
    };
    let graph = Graph {
        alpha,
        communications: file.communications,
    };
    let problems = graph.problems();
    if problems.is_empty() {
        Ok(graph)
    } else {
        Err(GraphFileError::Problems {
            path: path.into(),
            problems,
        })
    }
}

/// Loads a file of explicit penalties: `{"steps": [{"ID": PENALTY, ...}, ...]}`.
pub fn load_penalties(path: &Path) -> Result<Explicit> {
    Ok(parse_penalties(&read(path, "penalty file")?, path)?)
}

/// Parses penalty-file JSON; `path` names it in errors.
pub fn parse_penalties(text: &str, path: &Path) -> Result<Explicit, GraphFileError> {
    let file: PenaltyFile = parse_json(text, "penalty", path)?;
    Ok(Explicit {
        steps: file.steps.into_iter().map(|s| s.0).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_graph(text, Path::new("g.json"))
            .unwrap_err()
            .to_string()
    }

    const ONE: &str = r#"{"alpha": 1e-9, "communications": [
        {"id": "a", "src": "n0", "dst": "n1", "bytes": 1000}]}"#;

    #[test]
    fn parses_alpha_or_bandwidth() {
        let g = parse_graph(ONE, Path::new("g.json")).unwrap();
        assert_eq!(g.alpha, 1e-9);
        assert_eq!(g.communications[0].start, 0.0);
        let g = parse_graph(
            &ONE.replace("\"alpha\": 1e-9", "\"bandwidth\": 1000"),
            Path::new("g.json"),
        )
        .unwrap();
        assert!((g.alpha - 1e-9).abs() < 1e-24);
    }

    #[test]
    fn refusals_name_file_and_field() {
        let e = err(&ONE.replace("\"bytes\": 1000", "\"bytes\": \"big\""));
        assert!(
            e.starts_with("graph file `g.json` is invalid: communications[0].bytes:"),
            "{e}"
        );
        let e = err(&ONE.replace("\"dst\"", "\"dest\""));
        assert!(e.contains("communications[0]") && e.contains("dest"), "{e}");
        let e = err(&ONE.replace("\"alpha\": 1e-9,", ""));
        assert!(e.contains("alpha: required"), "{e}");
        let e = err(&ONE.replace("\"alpha\": 1e-9", "\"alpha\": 1e-9, \"bandwidth\": 5"));
        assert!(e.contains("not both"), "{e}");
        let e = err(&ONE.replace("\"n1\"", "\"n0\""));
        assert!(
            e.contains("communications[0].dst: is the source node"),
            "{e}"
        );
        let e = err(&ONE.replace("1e-9", "-1"));
        assert!(e.contains("alpha: must be a positive"), "{e}");
    }

    #[test]
    fn every_broken_rule_is_listed_and_json_errors_chain_to_serde() {
        use std::error::Error as _;
        let text = ONE.replace("1e-9", "-1").replace("\"n1\"", "\"n0\"");
        let e = parse_graph(&text, Path::new("g.json")).unwrap_err();
        let GraphFileError::Problems { problems, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!(problems.len(), 2, "{e}");
        let listed: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            e.to_string(),
            format!("graph file `g.json` is invalid:\n  {}", listed.join("\n  "))
        );
        let e = parse_penalties("[", Path::new("p.json")).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("penalty file `p.json` is invalid: "));
        assert!(e.source().is_some());
        assert_eq!(crate::Error::from(e).exit_code(), 2);
    }
}
