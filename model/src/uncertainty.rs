//! What a model file may say of its own uncertainty: the bootstrap's interval of each
//! parameter and the refitted parameter sets (`calibrate --bootstrap N` computes them,
//! `predict --intervals` and `plot` read them back). Vocabulary of the model file, so it lives
//! beside [`Params`]; how the intervals are computed is `calibrate::bootstrap`'s business.

use super::params::Params;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// An interval `[low, high]` (95 % in the model file).
pub type Interval = [f64; 2];

/// The bootstrap's account of the parameters: optional in a model file; `predict --intervals`
/// reads the refitted models to give every bandwidth an interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Uncertainty {
    pub method: String,
    pub resamples: u32,
    /// How many of the resamples' refits found nothing better than the full fit and kept it
    /// (`None` in files written before it was counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_full_fit: Option<u32>,
    pub seed: u64,
    /// The intervals' level (0.95).
    pub level: f64,
    pub local: ParamIntervals,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<ParamIntervals>,
    /// The refitted parameter sets, one per resample.
    pub replicates: Vec<Replicate>,
}

/// One bootstrap resample's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Replicate {
    pub local: Params,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<Params>,
}

impl Replicate {
    /// The refit as a model of `machine`, to predict with or to check against the model's
    /// rules (a refit may break them: `predict --intervals` leaves those out).
    pub fn model(&self, machine: &super::Machine) -> super::Model {
        super::Model {
            schema_version: super::SCHEMA_VERSION,
            machine: machine.clone(),
            variant: self.local.law.variant(),
            local: self.local,
            remote: self.remote,
        }
    }
}

/// The interval of each parameter of one side, in the order of [`Params::NAMES`], and of
/// each parameter of its law ([`super::law`]: `kappa` of the cpu-copy variant). In the model
/// file an object named like the parameters (`"alpha": [0.91, 0.93]`), written and read
/// through [`Params::NAMES`] and the laws' parameters, so that a parameter added to
/// [`Params`] or a law is covered here with nothing to change.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamIntervals([Interval; Params::COUNT], Vec<(&'static str, Interval)>);

impl ParamIntervals {
    /// The intervals, in the order of [`Params::NAMES`], and those of the law's parameters
    /// (name, interval).
    pub fn new(intervals: [Interval; Params::COUNT], law: Vec<(&'static str, Interval)>) -> Self {
        ParamIntervals(intervals, law)
    }

    /// Zero-width intervals at `p`'s values (a bootstrap that produced nothing).
    pub fn point(p: &Params) -> Self {
        let law = p.law.params().map(|(lp, v)| (lp.name, [v, v])).collect();
        ParamIntervals(p.values().map(|v| [v, v]), law)
    }

    /// The intervals, in the order of [`Params::NAMES`].
    pub fn as_array(&self) -> [Interval; Params::COUNT] {
        self.0
    }

    /// The intervals of the law's parameters the side holds (name, interval), in the order
    /// the file gave them.
    pub fn law(&self) -> &[(&'static str, Interval)] {
        &self.1
    }

    /// The interval of the parameter called `name` (a law's included), `None` for no
    /// parameter.
    pub fn get(&self, name: &str) -> Option<Interval> {
        if let Some(&(_, iv)) = self.1.iter().find(|(n, _)| *n == name) {
            return Some(iv);
        }
        let i = Params::NAMES.iter().position(|n| *n == name)?;
        Some(self.0[i])
    }
}

/// Whether an interval's upper end is open: the data bound the parameter from below only,
/// and the interval says so by reaching the largest bandwidth a model file holds
/// ([`crate::units::MAX_BANDWIDTH`]). `calibrate` writes it for a `T_seq^max` that
/// equation 6 never reaches on the socket's cores, where every higher value predicts the
/// same bandwidths.
pub fn open_above([_, hi]: Interval) -> bool {
    hi >= crate::units::MAX_BANDWIDTH
}

/// As an object of the parameters' names, as a derived `Serialize` of one field per
/// parameter would write it (the law's last, as in the side's parameters).
impl Serialize for ParamIntervals {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = Params::COUNT + self.1.len();
        let mut s = serializer.serialize_struct("ParamIntervals", fields)?;
        for (name, interval) in Params::NAMES.iter().zip(&self.0) {
            s.serialize_field(name, interval)?;
        }
        for (name, interval) in &self.1 {
            s.serialize_field(name, interval)?;
        }
        s.end()
    }
}

/// Reads what [`Serialize`] writes, with the rules (and messages) of a derived
/// `Deserialize`: every parameter required, none twice, unknown fields ignored.
impl<'de> Deserialize<'de> for ParamIntervals {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("ParamIntervals", &Params::NAMES, IntervalsVisitor)
    }
}

struct IntervalsVisitor;

impl<'de> Visitor<'de> for IntervalsVisitor {
    type Value = ParamIntervals;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct ParamIntervals")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamIntervals, A::Error> {
        let mut seen: [Option<Interval>; Params::COUNT] = [None; Params::COUNT];
        let mut law: Vec<(&'static str, Interval)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if let Some((_, p)) = super::Variant::owning(&key) {
                if law.iter().any(|(n, _)| *n == p.name) {
                    return Err(de::Error::duplicate_field(p.name));
                }
                law.push((p.name, map.next_value()?));
                continue;
            }
            match Params::NAMES.iter().position(|n| *n == key) {
                Some(i) if seen[i].is_some() => {
                    return Err(de::Error::duplicate_field(Params::NAMES[i]))
                }
                Some(i) => seen[i] = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let mut out = [[0.0; 2]; Params::COUNT];
        for (i, interval) in seen.into_iter().enumerate() {
            out[i] = interval.ok_or_else(|| de::Error::missing_field(Params::NAMES[i]))?;
        }
        Ok(ParamIntervals(out, law))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ParamIntervals, A::Error> {
        let mut out = [[0.0; 2]; Params::COUNT];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = seq.next_element()?.ok_or_else(|| {
                let expected = format!("struct ParamIntervals with {} elements", Params::COUNT);
                de::Error::invalid_length(i, &expected.as_str())
            })?;
        }
        // The array form has no names for a law's parameters: the paper's ten only.
        Ok(ParamIntervals(out, Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A derived `Deserialize` of one field per parameter, as [`ParamIntervals`] was before it
    /// was keyed by [`Params::NAMES`]: its errors are the ones model files have always met.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Fields {
        n_par_max: Interval,
        t_par_max: Interval,
        n_seq_max: Interval,
        t_seq_max: Interval,
        t_par_max2: Interval,
        alpha: Interval,
        delta_l: Interval,
        delta_r: Interval,
        b_seq_comp: Interval,
        b_seq_comm: Interval,
    }

    fn intervals() -> ParamIntervals {
        ParamIntervals::new(std::array::from_fn(|i| [i as f64, i as f64 + 0.5]), vec![])
    }

    #[test]
    fn written_and_read_as_one_field_per_parameter() {
        let iv = intervals();
        let text = serde_json::to_string(&iv).unwrap();
        let fields: Vec<String> = Params::NAMES
            .iter()
            .zip(iv.as_array())
            .map(|(name, [lo, hi])| format!("\"{name}\":[{lo:?},{hi:?}]"))
            .collect();
        assert_eq!(text, format!("{{{}}}", fields.join(",")));
        let derived: Fields = serde_json::from_str(&text).unwrap();
        assert_eq!(derived.alpha, [5.0, 5.5]);
        let back: ParamIntervals = serde_json::from_str(&text).unwrap();
        assert_eq!(back, iv);
        // The array form a derived struct also reads, and refuses when short.
        let seq = serde_json::to_string(&iv.as_array()).unwrap();
        assert_eq!(serde_json::from_str::<ParamIntervals>(&seq).unwrap(), iv);
        let short = serde_json::to_string(&iv.as_array()[..3]).unwrap();
        let err = serde_json::from_str::<ParamIntervals>(&short).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "invalid length 3, expected struct ParamIntervals with {} elements",
                Params::COUNT
            )),
            "{err}"
        );
    }

    #[test]
    fn a_cpu_copy_side_writes_and_reads_kappa_s_interval_last() {
        let iv = ParamIntervals::new(intervals().as_array(), vec![("kappa", [0.2, 0.4])]);
        let text = serde_json::to_string(&iv).unwrap();
        assert!(text.ends_with(",\"kappa\":[0.2,0.4]}"), "{text}");
        let back: ParamIntervals = serde_json::from_str(&text).unwrap();
        assert_eq!(back.get("kappa"), Some([0.2, 0.4]));
        assert_eq!(back, iv);
        assert_eq!(intervals().get("kappa"), None);
        let twice = text.replacen('{', "{\"kappa\":[1.0,2.0],", 1);
        let err = serde_json::from_str::<ParamIntervals>(&twice).unwrap_err();
        assert!(err.to_string().contains("duplicate field `kappa`"), "{err}");
    }

    #[test]
    fn broken_objects_are_refused_as_a_derived_struct_refuses_them() {
        let text = serde_json::to_string(&intervals()).unwrap();
        let unknown = text.replacen('{', "{\"extra\":{\"x\":1},", 1);
        let missing = text.replacen("\"alpha\":[5.0,5.5],", "", 1);
        let twice = text.replacen('{', "{\"alpha\":[1.0,2.0],", 1);
        let mistyped = text.replacen("[5.0,5.5]", "\"x\"", 1);
        for bad in [&unknown, &missing, &twice, &mistyped, &"3".to_string()] {
            let ours = serde_json::from_str::<ParamIntervals>(bad).map_err(|e| e.to_string());
            let derived = serde_json::from_str::<Fields>(bad).map_err(|e| e.to_string());
            assert_eq!(ours.is_ok(), derived.is_ok(), "{bad}");
            if let (Err(a), Err(b)) = (&ours, &derived) {
                assert_eq!(a.replace("ParamIntervals", "Fields"), *b, "{bad}");
            }
        }
        assert!(serde_json::from_str::<ParamIntervals>(&unknown).is_ok());
        assert!(serde_json::from_str::<ParamIntervals>(&missing).is_err());
    }

    #[test]
    fn a_point_is_the_values_twice() {
        let p = super::super::paper::model("henri").local;
        let iv = ParamIntervals::point(&p).as_array();
        assert_eq!(iv[5], [p.alpha, p.alpha]);
        assert_eq!(iv[0], [17.0, 17.0]);
        let point = ParamIntervals::point(&p);
        assert_eq!(point.get("b_seq_comm"), Some([p.b_seq_comm; 2]));
        assert_eq!(point.get("nope"), None);
    }
}
