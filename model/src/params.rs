//! The model's typed parameters, as the model file stores them (docs/formats.md, "Model file"), and
//! the one list of their names: [`Params::NAMES`], [`Params::named`] and [`Params::COUNT`] are
//! what calibration, the bootstrap, `check` and the fleet report iterate over, so a parameter
//! added here reaches them all. The rules a parameter set must obey are in
//! [`super::constraints`], which depends on this file and not the other way round.

use super::law::{Law, Variant};
use serde::{Deserialize, Serialize};

/// The only model-file schema this build reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// What the model needs to know of the machine: how NUMA nodes group into sockets, and how
/// many computing cores one socket has (the model covers one socket's cores, section 2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub name: String,
    /// NUMA nodes of the whole machine, numbered like hwloc's logical indices.
    pub numa_nodes: u32,
    /// NUMA nodes per socket: nodes `0 .. numa_per_socket-1` are local to the computing cores
    /// (`#m` in section 3.3).
    pub numa_per_socket: u32,
    pub cores_per_socket: u32,
}

/// One instantiation of the model (`M_local` or `M_remote`), the ten parameters of section 3.1.
/// Bandwidths in MB/s (10^6 bytes/s), core counts are computing cores of the first socket.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// `N_par^max`: core count where computations + communications in parallel peak.
    pub n_par_max: u32,
    /// `T_par^max`: that peak total bandwidth.
    pub t_par_max: f64,
    /// `N_seq^max`: core count where computations alone peak.
    pub n_seq_max: u32,
    /// `T_seq^max`: that peak bandwidth of computations alone.
    pub t_seq_max: f64,
    /// `T_par^max2`: total bandwidth in parallel with `N_seq^max` computing cores.
    pub t_par_max2: f64,
    /// `alpha`: the worst-case share of `B_seq^comm` left to communications.
    pub alpha: f64,
    /// `delta_l`: total bandwidth lost per core between `N_par^max` and `N_seq^max`.
    pub delta_l: f64,
    /// `delta_r`: total bandwidth lost per core beyond `N_seq^max` (negative: gained).
    pub delta_r: f64,
    /// `B_seq^comp`: bandwidth of one computing core alone.
    pub b_seq_comp: f64,
    /// `B_seq^comm`: bandwidth of communications alone.
    pub b_seq_comm: f64,
    /// The law of communications in parallel, with its own parameters (`kappa` of the
    /// cpu-copy variant, [`super::cpu_copy`]), written beside the ten; the paper's has none,
    /// and its ten parameters are the list of `Params::NAMES`.
    #[serde(flatten)]
    pub law: Law,
}

/// What a parameter is, which decides the range it must lie in
/// ([`super::constraints`]) and how many decimals a report prints of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A number of computing cores of the first socket (`N_par^max`, `N_seq^max`).
    Cores,
    /// A bandwidth, MB/s (`T_par^max`, `B_seq^comp`...).
    Bandwidth,
    /// A slope of the total bandwidth, MB/s per core; it may be negative (`delta_l`, `delta_r`).
    Slope,
    /// `alpha`: the worst-case share of `B_seq^comm` left to communications, in (0, 1].
    CommShare,
}

impl ParamKind {
    /// Decimals a value of this kind is printed with: core counts whole, `alpha` to 3
    /// places, bandwidths and slopes to 0.1 MB/s.
    pub fn decimals(self) -> usize {
        match self {
            ParamKind::Cores => 0,
            ParamKind::CommShare => 3,
            ParamKind::Bandwidth | ParamKind::Slope => 1,
        }
    }
}

impl Params {
    /// How many parameters one side has (section 3.1).
    pub const COUNT: usize = 10;

    /// Every parameter's name and kind, in the order of the model file's fields and of
    /// [`Params::values`].
    pub const FIELDS: [(&'static str, ParamKind); Self::COUNT] = [
        ("n_par_max", ParamKind::Cores),
        ("t_par_max", ParamKind::Bandwidth),
        ("n_seq_max", ParamKind::Cores),
        ("t_seq_max", ParamKind::Bandwidth),
        ("t_par_max2", ParamKind::Bandwidth),
        ("alpha", ParamKind::CommShare),
        ("delta_l", ParamKind::Slope),
        ("delta_r", ParamKind::Slope),
        ("b_seq_comp", ParamKind::Bandwidth),
        ("b_seq_comm", ParamKind::Bandwidth),
    ];

    /// The parameters' names, in the order of [`Params::FIELDS`].
    pub const NAMES: [&'static str; Self::COUNT] = {
        let mut names = [""; Self::COUNT];
        let mut i = 0;
        while i < Self::COUNT {
            names[i] = Self::FIELDS[i].0;
            i += 1;
        }
        names
    };

    /// Positions in [`Params::NAMES`] of the parameters other code names one by one: a
    /// name is always read from the one list, never spelt again.
    pub const N_PAR_MAX: usize = 0;
    pub const T_PAR_MAX: usize = 1;
    pub const N_SEQ_MAX: usize = 2;
    pub const T_SEQ_MAX: usize = 3;
    pub const ALPHA: usize = 5;
    pub const DELTA_L: usize = 6;
    pub const DELTA_R: usize = 7;
    pub const B_SEQ_COMP: usize = 8;

    /// The kind of the parameter called `name` (as in a model file, or `local.NAME` /
    /// `remote.NAME` as reports write it), if it is one.
    pub fn kind_of(name: &str) -> Option<ParamKind> {
        let bare = name.rsplit('.').next().unwrap_or(name);
        Self::FIELDS
            .iter()
            .find(|(n, _)| *n == bare)
            .map(|(_, k)| *k)
    }

    /// The values in the order of [`Params::NAMES`], core counts as `f64`.
    pub fn values(&self) -> [f64; Self::COUNT] {
        [
            f64::from(self.n_par_max),
            self.t_par_max,
            f64::from(self.n_seq_max),
            self.t_seq_max,
            self.t_par_max2,
            self.alpha,
            self.delta_l,
            self.delta_r,
            self.b_seq_comp,
            self.b_seq_comm,
        ]
    }

    /// The values with their names, in the order of `Params::NAMES`.
    pub fn named(&self) -> [(&'static str, f64); Self::COUNT] {
        let v = self.values();
        std::array::from_fn(|i| (Self::NAMES[i], v[i]))
    }
}

/// A whole model file: the machine and its local and (on multi-socket machines) remote
/// parameter sets. Fields beyond these are allowed in the file and ignored here, so later
/// versions of `calibrate` can add provenance without breaking older readers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub schema_version: u32,
    pub machine: Machine,
    /// Which model the parameters are of; written only when not the paper's.
    #[serde(default, skip_serializing_if = "Variant::is_paper")]
    pub variant: Variant,
    pub local: Params,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<Params>,
}

impl Model {
    /// Whether a NUMA node (hwloc logical index) is on the first socket, the one whose cores
    /// compute: `m < #m` in equations 7 and 8.
    pub fn is_local(&self, numa: u32) -> bool {
        numa < self.machine.numa_per_socket
    }

    /// The NUMA nodes placements may use: all of them with a remote parameter set, the first
    /// socket's only without one.
    pub fn predictable_nodes(&self) -> u32 {
        if self.remote.is_some() {
            self.machine.numa_nodes
        } else {
            self.machine.numa_per_socket.min(self.machine.numa_nodes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        super::super::paper::model("henri")
    }

    /// The one list of names must follow the struct: the model file's fields, in order, with
    /// the values [`Params::values`] gives.
    #[test]
    fn the_names_are_the_model_file_fields_in_order() {
        let p = model().remote.unwrap();
        // Each field alone, as `"name":value`, in the order the file writes them.
        let text = serde_json::to_string(&p).unwrap();
        let fields: Vec<String> = text
            .trim_matches(|c| c == '{' || c == '}')
            .split(',')
            .map(str::to_string)
            .collect();
        let named: Vec<String> = p
            .named()
            .iter()
            .map(|(name, v)| format!("\"{name}\":{}", serde_json::to_string(v).unwrap()))
            .collect();
        // Core counts are written as integers, the values as f64: compare numerically.
        assert_eq!(fields.len(), named.len());
        for (f, n) in fields.iter().zip(&named) {
            let (fk, fv) = f.split_once(':').unwrap();
            let (nk, nv) = n.split_once(':').unwrap();
            assert_eq!(fk, nk);
            assert_eq!(
                fv.parse::<f64>().unwrap(),
                nv.parse::<f64>().unwrap(),
                "{fk}"
            );
        }
        let kind = |name| Params::FIELDS.iter().find(|(n, _)| *n == name).map(|f| f.1);
        assert_eq!(kind("alpha"), Some(ParamKind::CommShare));
        assert_eq!(kind("n_seq_max"), Some(ParamKind::Cores));
        assert_eq!(kind("nope"), None);
        // The positions other code names parameters by.
        for (i, name) in [
            (Params::N_PAR_MAX, "n_par_max"),
            (Params::T_PAR_MAX, "t_par_max"),
            (Params::N_SEQ_MAX, "n_seq_max"),
            (Params::T_SEQ_MAX, "t_seq_max"),
            (Params::ALPHA, "alpha"),
            (Params::DELTA_L, "delta_l"),
            (Params::DELTA_R, "delta_r"),
            (Params::B_SEQ_COMP, "b_seq_comp"),
        ] {
            assert_eq!(Params::NAMES[i], name);
        }
    }

    #[test]
    fn locality_follows_numa_per_socket() {
        let mut m = model();
        m.machine.numa_nodes = 4;
        m.machine.numa_per_socket = 2;
        assert!(m.is_local(1) && !m.is_local(2));
        assert_eq!(m.predictable_nodes(), 4);
        m.remote = None;
        assert_eq!(m.predictable_nodes(), 2);
    }
}
