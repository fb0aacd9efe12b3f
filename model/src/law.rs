//! The law communications in parallel follow, as a type: [`Law`] is one arm per law with
//! that law's own parameters (beyond the paper's ten of section 3.1), [`Variant`] its name.
//!
//! **Why a type.** The paper's model (equations 4 and 5) was made for messages a network
//! card writes by DMA; other transports need another law for communications in parallel
//! (the cpu-copy variant, [`super::cpu_copy`], for copies made by CPU cores). Everything
//! around the equations (the model file, the fit, the bootstrap's intervals, the rules a
//! model obeys, `check`, the reports) reads a law through this file: its name, what it says
//! in words, and its parameters with their ranges ([`LawParam`]), so that a new law is an arm
//! here, its equations in a file of their own and an arm in [`super::bandwidth::curve`].
//!
//! In a model file a law's parameters sit beside the ten in each side's object (`"kappa":
//! 0.3`) and the model names its law (`"variant": "cpu-copy"`, absent for the paper's); a
//! side's law is read from the names of the parameters it holds, which are therefore unique
//! across laws, and [`super::constraints`] checks that it is the model's.

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The most parameters a law may have of its own: the fit moves the paper's six continuous
/// parameters and these in one simplex whose size is fixed at compile time (`calibrate`'s
/// `fit`), for each size up to this.
pub const MAX_LAW_PARAMS: usize = 3;

/// Which law a model holds, by name: in model files (`"variant"`), headers and on the
/// command line (`calibrate --model`). Absent from a file: the paper's, as every file before
/// the cpu-copy variant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Equations 1-8 of the paper.
    #[default]
    Paper,
    /// Equations 1-3 and 6-8 of the paper, with communications in parallel following the
    /// load the computations put on the memory ([`super::cpu_copy`]).
    CpuCopy,
    /// Equations 1-3 and 6-8 of the paper, with communications in parallel kept whole at a
    /// light load and falling steeply near saturation ([`super::knee`]).
    Knee,
}

/// One parameter a law has of its own: its name in the model file, the range a model file's
/// value must lie in (`(low, high]`) and why, and where a fit keeps it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LawParam {
    pub name: &'static str,
    /// Its symbol in figures.
    pub symbol: &'static str,
    /// Values must be above this...
    pub low: f64,
    /// ...and at most this.
    pub high: f64,
    /// What the parameter is, for the message of a value out of range.
    pub meaning: &'static str,
    /// The least value a fit moves it to (above `low`: the fit's simplex needs a scale).
    pub fit_floor: f64,
    /// Where a fit starts when the data say nothing of it.
    pub start: f64,
    /// Decimals a report prints it with.
    pub decimals: usize,
}

/// `kappa` of the cpu-copy variant ([`super::cpu_copy`]).
const KAPPA: LawParam = LawParam {
    name: "kappa",
    symbol: "κ",
    low: 0.0,
    // The copies then keep under 0.1 % of their bandwidth from the first loaded core, which
    // no machine shows.
    high: 1e3,
    meaning: "the memory's queueing delay at full load relative to its unloaded latency",
    // Its law then keeps the copies whole up to saturation, which is all a smaller one
    // could say.
    fit_floor: 1e-4,
    // The copies lose half their bandwidth at half load.
    start: 1.0,
    decimals: 3,
};

/// `half_load` of the knee variant ([`super::knee`]).
const HALF_LOAD: LawParam = LawParam {
    name: "half_load",
    symbol: "u½",
    low: 0.0,
    // The load never exceeds 1: a half load 100 times saturation is copies untouched.
    high: 100.0,
    meaning: "the computations' load (their request over what the memory gives both streams) \
              at which the communications have lost half of what they can lose",
    // Below, the copies would lose all they can to the lightest load a core puts.
    fit_floor: 0.01,
    // The copies lose half of what they can at 60 % of the load (the H200 node's runs:
    // 0.42-0.63).
    start: 0.6,
    decimals: 3,
};

/// `steepness` of the knee variant ([`super::knee`]).
const STEEPNESS: LawParam = LawParam {
    name: "steepness",
    symbol: "h",
    low: 0.0,
    // Already the paper's step, rounded over a few thousandths of the load.
    high: 1e3,
    meaning: "how sharply the communications fall around the half load (Hill's coefficient)",
    // Below, the fall spreads beyond any load the computations can put.
    fit_floor: 0.5,
    // The H200 node's runs: 4.2-4.6 host to device, 5.6-9.0 device to host.
    start: 4.0,
    decimals: 2,
};

impl Variant {
    /// Every law, in the order `--help` lists them.
    pub const ALL: [Variant; 3] = [Variant::Paper, Variant::CpuCopy, Variant::Knee];

    /// Its name in model files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Paper => "paper",
            Variant::CpuCopy => "cpu-copy",
            Variant::Knee => "knee",
        }
    }

    /// The law of that name, if there is one.
    pub fn named(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// What it models, in one line for `--help`.
    pub fn help(self) -> &'static str {
        match self {
            Variant::Paper => "The paper's model (network transports)",
            Variant::CpuCopy => {
                "The variant for communications that slow down steadily as computations load \
                 memory (intra-node transports)"
            }
            Variant::Knee => {
                "The variant for communications that keep their bandwidth at a light load and \
                 fall steeply near saturation (GPU copies)"
            }
        }
    }

    /// Which communications it is for, as reports and messages say it ("a model of ...").
    pub fn about(self) -> &'static str {
        match self {
            Variant::Paper => "communications a network card writes into memory",
            Variant::CpuCopy => {
                "communications that slow down steadily as the computations load the memory \
                 (copies by CPU cores)"
            }
            Variant::Knee => {
                "communications that keep their bandwidth at a light load and fall steeply \
                 near saturation (GPU copies)"
            }
        }
    }

    /// The law `calibrate --method fit` fits beside it, to show its error for comparison:
    /// the paper's for every other law, the cpu-copy variant for the paper's.
    pub fn other(self) -> Variant {
        match self {
            Variant::Paper => Variant::CpuCopy,
            _ => Variant::Paper,
        }
    }

    /// The model it makes, as messages name it: "the paper's model", "a cpu-copy model".
    pub fn phrase(self) -> String {
        match self {
            Variant::Paper => "the paper's model".into(),
            v => format!("a {v} model"),
        }
    }

    pub fn is_paper(&self) -> bool {
        *self == Variant::Paper
    }

    /// Its own parameters, in the order a model file writes them.
    pub fn params(self) -> &'static [LawParam] {
        match self {
            Variant::Paper => &[],
            Variant::CpuCopy => &[KAPPA],
            Variant::Knee => &[HALF_LOAD, STEEPNESS],
        }
    }

    /// The law with its parameters set to `values` (in the order of [`Variant::params`];
    /// missing ones at their start, extra ones ignored).
    pub fn law(self, values: &[f64]) -> Law {
        let v = |i: usize| values.get(i).copied().unwrap_or(self.params()[i].start);
        match self {
            Variant::Paper => Law::Paper,
            Variant::CpuCopy => Law::CpuCopy { kappa: v(0) },
            Variant::Knee => Law::Knee {
                half_load: v(0),
                steepness: v(1),
            },
        }
    }

    /// The law with every parameter at its start.
    pub fn start(self) -> Law {
        self.law(&[])
    }

    /// The law and parameter a parameter name belongs to, if any.
    pub fn owning(name: &str) -> Option<(Variant, &'static LawParam)> {
        Variant::ALL
            .into_iter()
            .find_map(|v| v.params().iter().find(|p| p.name == name).map(|p| (v, p)))
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The law of one parameter set, with its own parameters: what [`super::bandwidth::curve`]
/// evaluates in place of equations 4 and 5 when it is not the paper's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Law {
    /// Equations 4 and 5 of the paper: nothing of its own.
    #[default]
    Paper,
    /// The cpu-copy variant's loaded-latency law ([`super::cpu_copy`]).
    CpuCopy {
        /// How fast the memory's queueing slows a core's copies as the computations load it.
        kappa: f64,
    },
    /// The knee variant's law ([`super::knee`]).
    Knee {
        /// The computations' load at which the communications have lost half of what they can.
        half_load: f64,
        /// How sharply they fall around it.
        steepness: f64,
    },
}

impl Law {
    /// Its name.
    pub fn variant(&self) -> Variant {
        match self {
            Law::Paper => Variant::Paper,
            Law::CpuCopy { .. } => Variant::CpuCopy,
            Law::Knee { .. } => Variant::Knee,
        }
    }

    /// Its parameters' values, in the order of [`Variant::params`].
    pub fn values(&self) -> LawValues {
        match *self {
            Law::Paper => LawValues::of(&[]),
            Law::CpuCopy { kappa } => LawValues::of(&[kappa]),
            Law::Knee {
                half_load,
                steepness,
            } => LawValues::of(&[half_load, steepness]),
        }
    }

    /// Its parameters with their descriptions, in the order of [`Variant::params`].
    pub fn params(&self) -> impl Iterator<Item = (&'static LawParam, f64)> {
        self.variant().params().iter().zip(self.values())
    }

    /// The law of a side whose object holds the law parameters `found` (name, value): the
    /// paper's for none; an error when they are of several laws or miss some of one.
    fn of_found(found: &[(&'static str, f64)]) -> Result<Law, String> {
        let Some(&(first, _)) = found.first() else {
            return Ok(Law::Paper);
        };
        let (variant, _) = Variant::owning(first).expect("only law parameters are found");
        let mut values = Vec::new();
        for p in variant.params() {
            match found.iter().find(|(n, _)| *n == p.name) {
                Some(&(_, v)) => values.push(v),
                None => {
                    return Err(format!(
                        "{first} is a parameter of the {variant} model, which needs {} too",
                        p.name
                    ))
                }
            }
        }
        if let Some((stray, _)) = found
            .iter()
            .find(|(n, _)| !variant.params().iter().any(|p| p.name == *n))
        {
            return Err(format!(
                "{first} and {stray} are parameters of two different models: a side holds one \
                 model's"
            ));
        }
        Ok(variant.law(&values))
    }
}

/// A law's parameter values, in the order of its [`Variant::params`], held on the stack: the
/// fit reads and writes them at every evaluation of its objective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LawValues {
    values: [f64; MAX_LAW_PARAMS],
    len: usize,
}

impl LawValues {
    /// `values`, of at most [`MAX_LAW_PARAMS`].
    pub fn of(values: &[f64]) -> LawValues {
        let mut out = LawValues {
            values: [0.0; MAX_LAW_PARAMS],
            len: values.len(),
        };
        out.values[..values.len()].copy_from_slice(values);
        out
    }
}

impl std::ops::Deref for LawValues {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.values[..self.len]
    }
}

impl std::ops::DerefMut for LawValues {
    fn deref_mut(&mut self) -> &mut [f64] {
        &mut self.values[..self.len]
    }
}

impl IntoIterator for LawValues {
    type Item = f64;
    type IntoIter = std::iter::Take<std::array::IntoIter<f64, MAX_LAW_PARAMS>>;
    fn into_iter(self) -> Self::IntoIter {
        self.values.into_iter().take(self.len)
    }
}

/// Written as the law's parameters, which the side's object holds beside the paper's ten
/// (`#[serde(flatten)]` in [`super::Params`]).
impl Serialize for Law {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.variant().params().len()))?;
        for (p, v) in self.params() {
            map.serialize_entry(p.name, &v)?;
        }
        map.end()
    }
}

/// Read from the side's object's fields other than the ten: those named like a law's
/// parameters make the law, the others are left to the model file's readers (fields a later
/// version may add).
impl<'de> Deserialize<'de> for Law {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Law, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Law;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a side's parameters")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Law, A::Error> {
                let mut found: Vec<(&'static str, f64)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    match Variant::owning(&key) {
                        Some((_, p)) if found.iter().any(|(n, _)| *n == p.name) => {
                            return Err(de::Error::duplicate_field(p.name));
                        }
                        Some((_, p)) => {
                            // Flattened beside the ten, the reader's path stops at the side:
                            // the parameter says its own name.
                            let value = map.next_value().map_err(|e: A::Error| {
                                de::Error::custom(format_args!("{}: {e}", p.name))
                            })?;
                            found.push((p.name, value));
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Law::of_found(&found).map_err(de::Error::custom)
            }
        }
        d.deserialize_map(Fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A side's law is read from its parameters' names, and the fit's simplex has a size for
    /// each law: names must be unique across laws and of no law too many.
    #[test]
    fn each_law_names_its_own_parameters_within_what_the_fit_moves() {
        let mut seen = Vec::new();
        for v in Variant::ALL {
            assert_eq!(Variant::named(v.name()), Some(v));
            assert_eq!(v.start().variant(), v, "{v}");
            assert!(v.params().len() <= MAX_LAW_PARAMS, "{v}");
            for p in v.params() {
                assert!(!seen.contains(&p.name), "{} twice", p.name);
                assert!(p.low < p.fit_floor && p.fit_floor <= p.start && p.start <= p.high);
                assert_eq!(Variant::owning(p.name).map(|o| o.0), Some(v));
                seen.push(p.name);
            }
            let values: Vec<f64> = v.params().iter().map(|p| p.start * 2.0).collect();
            assert_eq!(*v.law(&values).values(), values[..], "{v}");
        }
        assert_eq!(Variant::named("nope"), None);
        assert_eq!(Variant::owning("alpha"), None);
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Side {
        alpha: f64,
        #[serde(flatten)]
        law: Law,
    }

    #[test]
    fn a_law_is_written_beside_the_paper_s_parameters_and_read_back_from_their_names() {
        let cpu = Side {
            alpha: 0.5,
            law: Law::CpuCopy { kappa: 0.25 },
        };
        let text = serde_json::to_string(&cpu).unwrap();
        assert_eq!(text, r#"{"alpha":0.5,"kappa":0.25}"#);
        assert_eq!(serde_json::from_str::<Side>(&text).unwrap(), cpu);
        let paper = Side {
            alpha: 0.5,
            law: Law::Paper,
        };
        assert_eq!(serde_json::to_string(&paper).unwrap(), r#"{"alpha":0.5}"#);
        // Unknown fields are left alone, as in every model file.
        let later: Side = serde_json::from_str(r#"{"alpha":0.5,"note":"x","kappa":1}"#).unwrap();
        assert_eq!(later.law, Law::CpuCopy { kappa: 1.0 });
        let twice = serde_json::from_str::<Side>(r#"{"alpha":0.5,"kappa":1,"kappa":2}"#);
        assert!(twice
            .unwrap_err()
            .to_string()
            .contains("duplicate field `kappa`"));
        let text = serde_json::from_str::<Side>(r#"{"alpha":0.5,"kappa":"x"}"#);
        assert!(text
            .unwrap_err()
            .to_string()
            .starts_with("kappa: invalid type: string"));
        // A law of two parameters is read from both, and refused with one.
        let knee: Side =
            serde_json::from_str(r#"{"alpha":0.4,"steepness":7.5,"half_load":0.6}"#).unwrap();
        assert_eq!(
            knee.law,
            Law::Knee {
                half_load: 0.6,
                steepness: 7.5
            }
        );
        let half = serde_json::from_str::<Side>(r#"{"alpha":0.4,"half_load":0.6}"#);
        assert!(half
            .unwrap_err()
            .to_string()
            .contains("half_load is a parameter of the knee model, which needs steepness too"));
    }
}
