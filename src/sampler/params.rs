//! Sampler hyperparameters, their validation, and run budgets.

use crate::error::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The six SG-MCMC samplers of Coullon, South & Nemeth (2023), with the conventions of SGMCMCJax.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SamplerKind {
    /// Stochastic gradient Langevin dynamics (Welling & Teh 2011).
    Sgld,
    /// SGLD with control variates (Baker et al. 2019).
    SgldCv,
    /// Stochastic gradient Hamiltonian Monte Carlo (Chen, Fox & Guestrin 2014).
    Sghmc,
    /// SGHMC with control variates.
    SghmcCv,
    /// Stochastic gradient Nosé-Hoover thermostat (Ding et al. 2014).
    Sgnht,
    /// SGNHT with control variates.
    SgnhtCv,
}

impl SamplerKind {
    /// All six kinds, in a fixed order.
    pub const ALL: [SamplerKind; 6] = [
        SamplerKind::Sgld,
        SamplerKind::SgldCv,
        SamplerKind::Sghmc,
        SamplerKind::SghmcCv,
        SamplerKind::Sgnht,
        SamplerKind::SgnhtCv,
    ];

    /// Whether the sampler uses control variates (needs a [`super::ControlVariate`]).
    pub fn is_cv(self) -> bool {
        matches!(self, SamplerKind::SgldCv | SamplerKind::SghmcCv | SamplerKind::SgnhtCv)
    }

    /// The dynamics without the gradient estimator: `Sgld`, `Sghmc` or `Sgnht`.
    pub fn base(self) -> SamplerKind {
        match self {
            SamplerKind::Sgld | SamplerKind::SgldCv => SamplerKind::Sgld,
            SamplerKind::Sghmc | SamplerKind::SghmcCv => SamplerKind::Sghmc,
            SamplerKind::Sgnht | SamplerKind::SgnhtCv => SamplerKind::Sgnht,
        }
    }

    /// Whether the leapfrog count `L` is used (SGHMC and SGHMC-CV).
    pub fn uses_leapfrog(self) -> bool {
        self.base() == SamplerKind::Sghmc
    }

    /// The kebab-case name (`"sgld"`, `"sgld-cv"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            SamplerKind::Sgld => "sgld",
            SamplerKind::SgldCv => "sgld-cv",
            SamplerKind::Sghmc => "sghmc",
            SamplerKind::SghmcCv => "sghmc-cv",
            SamplerKind::Sgnht => "sgnht",
            SamplerKind::SgnhtCv => "sgnht-cv",
        }
    }
}

impl fmt::Display for SamplerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SamplerKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim().to_ascii_lowercase().replace('_', "-");
        SamplerKind::ALL.iter().copied().find(|k| k.as_str() == t).ok_or_else(|| {
            Error::config(format!(
                "unknown sampler {s:?}; expected one of sgld, sgld-cv, sghmc, sghmc-cv, sgnht, sgnht-cv"
            ))
        })
    }
}

/// Minibatch size: a count of data points or a fraction of N.
///
/// Serialised as a plain number: a value in (0, 1] is a fraction of N, a value > 1 an integer count.
/// `Count(1)` (which would read back as the fraction 1.0) is written as `{"count": 1}`; both object
/// forms `{"count": n}` and `{"fraction": f}` are also accepted on input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BatchSize {
    /// A number of data points.
    Count(usize),
    /// A fraction of the N data points, in (0, 1].
    Fraction(f64),
}

impl BatchSize {
    /// The batch size in data points for `n_data` points, at least 1 and at most `n_data`
    /// (a fraction is rounded to the nearest integer, as `round(f N)`). Call `validate` first for errors.
    pub fn resolve(&self, n_data: usize) -> usize {
        let n = match *self {
            BatchSize::Count(c) => c,
            BatchSize::Fraction(f) => {
                let v = (f * n_data as f64).round();
                if v.is_finite() && v > 0.0 {
                    v as usize
                } else {
                    1
                }
            }
        };
        n.clamp(1, n_data.max(1))
    }

    /// Checks the batch against `n_data` and returns its size in data points.
    pub fn validate(&self, n_data: usize) -> Result<usize> {
        match *self {
            BatchSize::Count(0) => Err(Error::config("batch size must be at least 1")),
            BatchSize::Count(c) if c > n_data => {
                Err(Error::config(format!("batch size {c} is larger than the number of data points N = {n_data}")))
            }
            BatchSize::Fraction(f) if !(f > 0.0 && f <= 1.0) => {
                Err(Error::config(format!("batch {f} is neither a fraction in (0, 1] nor an integer count > 1")))
            }
            _ => Ok(self.resolve(n_data)),
        }
    }
}

impl fmt::Display for BatchSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchSize::Count(c) => write!(f, "{c}"),
            BatchSize::Fraction(x) => write!(f, "{x}"),
        }
    }
}

impl BatchSize {
    /// Reads a plain number with the serde convention: (0, 1] is a fraction, > 1 an integer count.
    pub fn from_number(x: f64) -> Result<Self> {
        if x > 1.0 {
            if x.fract() == 0.0 && x <= usize::MAX as f64 {
                Ok(BatchSize::Count(x as usize))
            } else {
                Err(Error::config(format!("batch {x} is neither a fraction in (0, 1] nor an integer count > 1")))
            }
        } else {
            // Out-of-range fractions (<= 0, NaN) are kept and rejected by `validate` with a clear message.
            Ok(BatchSize::Fraction(x))
        }
    }
}

impl FromStr for BatchSize {
    type Err = Error;
    /// Parses `"0.1"` (fraction), `"1000"` (count), or `"10%"` (percentage of N).
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| Error::config(format!("invalid batch size {s:?}")))?;
            return Ok(BatchSize::Fraction(v / 100.0));
        }
        let v: f64 = t.parse().map_err(|_| Error::config(format!("invalid batch size {s:?}")))?;
        BatchSize::from_number(v)
    }
}

impl Serialize for BatchSize {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match *self {
            BatchSize::Count(1) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("count", &1u64)?;
                m.end()
            }
            BatchSize::Count(c) => s.serialize_u64(c as u64),
            BatchSize::Fraction(f) => s.serialize_f64(f),
        }
    }
}

/// The forms [`BatchSize`]'s `Deserialize` accepts: a positive number, `{"count": n}` or `{"fraction": f}`.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for BatchSize {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BatchSize".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Minibatch size: a number in (0, 1] is a fraction of N, a number above 1 a count of data points; `{\"count\": n}` and `{\"fraction\": f}` are also accepted.",
            "anyOf": [
                {"type": "number", "exclusiveMinimum": 0},
                {"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}}, "required": ["count"], "additionalProperties": false},
                {"type": "object", "properties": {"fraction": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}}, "required": ["fraction"], "additionalProperties": false}
            ]
        })
    }
}

impl<'de> Deserialize<'de> for BatchSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Num(f64),
            Count { count: usize },
            Fraction { fraction: f64 },
        }
        match Repr::deserialize(d)? {
            Repr::Num(x) => BatchSize::from_number(x).map_err(serde::de::Error::custom),
            Repr::Count { count } => Ok(BatchSize::Count(count)),
            Repr::Fraction { fraction } => Ok(BatchSize::Fraction(fraction)),
        }
    }
}

/// Hyperparameters of an SG-MCMC run, as given by a user or a tuner (unvalidated).
///
/// Every field has a default, so a JSON object may give only some of them
/// (`{"kind": "sghmc", "step": 1e-5, "batch": 0.01}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct SamplerParams {
    /// Which sampler.
    pub kind: SamplerKind,
    /// Step size h (SGMCMCJax convention: SGLD does `theta += h g + sqrt(2h) xi`). Default 1e-4.
    pub step: f64,
    /// Minibatch size. Default 10% of N (the paper's heuristic batch).
    pub batch: BatchSize,
    /// Leapfrog steps L per SGHMC sample. Default 10.
    pub leapfrog: usize,
    /// SGHMC friction alpha in (0, 1] (SGMCMCJax default 0.01).
    pub friction: f64,
    /// SGNHT thermostat / injected-noise constant a in (0, 1] (SGMCMCJax default 0.01).
    pub thermostat_a: f64,
    /// Draw minibatches with replacement (default: without, as in the paper).
    pub with_replacement: bool,
}

impl Default for SamplerParams {
    fn default() -> Self {
        Self {
            kind: SamplerKind::Sgld,
            step: 1e-4,
            batch: BatchSize::Fraction(0.1),
            leapfrog: 10,
            friction: 0.01,
            thermostat_a: 0.01,
            with_replacement: false,
        }
    }
}

/// Largest accepted leapfrog count (a guard against typos that would make one iteration run for hours).
pub const MAX_LEAPFROG: usize = 100_000;

impl SamplerParams {
    /// Parameters of `kind` with step `step` and batch `batch`, other fields at their defaults.
    pub fn new(kind: SamplerKind, step: f64, batch: BatchSize) -> Self {
        Self { kind, step, batch, ..Self::default() }
    }

    /// Checks every field against a data set of `n_data` points. Fields a sampler does not use
    /// (friction for SGLD, L for SGLD/SGNHT, ...) are not checked.
    pub fn validate(&self, n_data: usize) -> Result<ValidSamplerParams> {
        if n_data == 0 {
            return Err(Error::config("the target has no data points (N = 0)"));
        }
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(Error::config(format!("step size must be a positive finite number, got {}", self.step)));
        }
        let batch = self.batch.validate(n_data)?;
        let base = self.kind.base();
        if base == SamplerKind::Sghmc {
            if self.leapfrog == 0 {
                return Err(Error::config("leapfrog steps L must be at least 1"));
            }
            if self.leapfrog > MAX_LEAPFROG {
                return Err(Error::config(format!(
                    "leapfrog steps L = {} exceeds the limit {MAX_LEAPFROG}",
                    self.leapfrog
                )));
            }
            if !(self.friction > 0.0 && self.friction <= 1.0) {
                return Err(Error::config(format!("SGHMC friction must be in (0, 1], got {}", self.friction)));
            }
        }
        if base == SamplerKind::Sgnht && !(self.thermostat_a > 0.0 && self.thermostat_a <= 1.0) {
            return Err(Error::config(format!(
                "SGNHT thermostat constant a must be in (0, 1], got {}",
                self.thermostat_a
            )));
        }
        Ok(ValidSamplerParams { raw: self.clone(), batch, n_data })
    }
}

/// Validated sampler parameters for a data set of a given size (built by [`SamplerParams::validate`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidSamplerParams {
    raw: SamplerParams,
    batch: usize,
    n_data: usize,
}

impl ValidSamplerParams {
    /// The parameters as given.
    pub fn params(&self) -> &SamplerParams {
        &self.raw
    }
    /// Sampler kind.
    pub fn kind(&self) -> SamplerKind {
        self.raw.kind
    }
    /// Step size h.
    pub fn step(&self) -> f64 {
        self.raw.step
    }
    /// Resolved batch size n (1 <= n <= N).
    pub fn batch(&self) -> usize {
        self.batch
    }
    /// The N the parameters were validated against.
    pub fn n_data(&self) -> usize {
        self.n_data
    }
    /// Leapfrog steps per sample (1 for samplers other than SGHMC).
    pub fn leapfrog(&self) -> usize {
        if self.raw.kind.uses_leapfrog() {
            self.raw.leapfrog
        } else {
            1
        }
    }
    /// SGHMC friction alpha.
    pub fn friction(&self) -> f64 {
        self.raw.friction
    }
    /// SGNHT constant a.
    pub fn thermostat_a(&self) -> f64 {
        self.raw.thermostat_a
    }
    /// Minibatches drawn with replacement.
    pub fn with_replacement(&self) -> bool {
        self.raw.with_replacement
    }
    /// Whether every step uses the full data set (n = N drawn without replacement): exact gradients.
    pub fn full_batch(&self) -> bool {
        self.batch == self.n_data && !self.raw.with_replacement
    }
    /// Data points touched by one gradient estimate: n, or 2n with control variates (the batch at theta
    /// and at the MAP); a full batch costs N (the control variate cancels exactly, see `Chain`).
    pub fn grad_evals_per_gradient(&self) -> u64 {
        if self.full_batch() {
            self.n_data as u64
        } else if self.raw.kind.is_cv() {
            2 * self.batch as u64
        } else {
            self.batch as u64
        }
    }
    /// Data points touched by one iteration (one kept-or-not sample): L gradients for SGHMC, one otherwise.
    pub fn grad_evals_per_iter(&self) -> u64 {
        self.grad_evals_per_gradient() * self.leapfrog() as u64
    }
}

/// How much work one call of [`super::Chain::run`] may do, counted from the start of that call.
///
/// Serialised as `{"iterations": n}`, `{"grad_evals": n}` or `{"seconds": s}`; counts may be written as
/// whole floats (`{"grad_evals": 2.0e7}`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// A number of iterations (samples before thinning; an SGHMC iteration is L leapfrog steps).
    Iterations(u64),
    /// Data points touched by gradient estimates. The run stops at the first iteration boundary at or
    /// past the budget, so it may overshoot by less than one iteration's cost.
    GradEvals(u64),
    /// Wall-clock seconds. The clock is read after the first iteration, then at most every
    /// `Chain::check_interval` iterations with shorter chunks near the end (overshoot about one iteration).
    Seconds(f64),
}

impl Budget {
    /// Checks that the budget is positive and finite.
    pub fn validate(&self) -> Result<Budget> {
        match *self {
            Budget::Iterations(0) => Err(Error::config("iteration budget must be at least 1")),
            Budget::GradEvals(0) => Err(Error::config("gradient-evaluation budget must be at least 1")),
            Budget::Seconds(s) if !(s.is_finite() && s > 0.0) => {
                Err(Error::config(format!("seconds budget must be positive and finite, got {s}")))
            }
            b => Ok(b),
        }
    }

    /// The same kind of budget scaled by `factor` (rounded down for counts, at least 1): for schedules.
    pub fn scaled(&self, factor: f64) -> Budget {
        let sc = |v: u64| ((v as f64 * factor).floor() as u64).max(1);
        match *self {
            Budget::Iterations(n) => Budget::Iterations(sc(n)),
            Budget::GradEvals(n) => Budget::GradEvals(sc(n)),
            Budget::Seconds(s) => Budget::Seconds(s * factor),
        }
    }
}

impl<'de> Deserialize<'de> for Budget {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case", deny_unknown_fields)]
        enum Repr {
            Iterations(f64),
            GradEvals(f64),
            Seconds(f64),
        }
        fn count<E: serde::de::Error>(what: &str, v: f64) -> std::result::Result<u64, E> {
            if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64 {
                Ok(v as u64)
            } else {
                Err(E::custom(format!("{what} budget must be a whole non-negative number, got {v}")))
            }
        }
        match Repr::deserialize(d)? {
            Repr::Iterations(v) => Ok(Budget::Iterations(count("iteration", v)?)),
            Repr::GradEvals(v) => Ok(Budget::GradEvals(count("gradient-evaluation", v)?)),
            Repr::Seconds(v) => Ok(Budget::Seconds(v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_roundtrip() {
        for k in SamplerKind::ALL {
            assert_eq!(k.to_string().parse::<SamplerKind>().unwrap(), k);
            let j = serde_json::to_string(&k).unwrap();
            assert_eq!(j, format!("\"{}\"", k.as_str()));
            assert_eq!(serde_json::from_str::<SamplerKind>(&j).unwrap(), k);
        }
        assert!("SGLD_CV".parse::<SamplerKind>().unwrap().is_cv());
        assert!("sgd".parse::<SamplerKind>().is_err());
    }

    #[test]
    fn batch_serde_and_resolve() {
        let b: BatchSize = serde_json::from_str("0.01").unwrap();
        assert_eq!(b, BatchSize::Fraction(0.01));
        assert_eq!(b.resolve(10_000), 100);
        let b: BatchSize = serde_json::from_str("1000").unwrap();
        assert_eq!(b, BatchSize::Count(1000));
        let b: BatchSize = serde_json::from_str("1000.0").unwrap();
        assert_eq!(b, BatchSize::Count(1000));
        assert_eq!(serde_json::from_str::<BatchSize>("1").unwrap(), BatchSize::Fraction(1.0));
        assert!(serde_json::from_str::<BatchSize>("2.5").is_err());
        for b in [BatchSize::Count(1), BatchSize::Count(7), BatchSize::Fraction(0.5), BatchSize::Fraction(1.0)] {
            let j = serde_json::to_string(&b).unwrap();
            assert_eq!(serde_json::from_str::<BatchSize>(&j).unwrap(), b, "{j}");
        }
        assert_eq!(BatchSize::Fraction(1e-9).resolve(100), 1);
        assert_eq!("10%".parse::<BatchSize>().unwrap(), BatchSize::Fraction(0.1));
        assert_eq!("64".parse::<BatchSize>().unwrap(), BatchSize::Count(64));
    }

    #[test]
    fn params_defaults_from_partial_json() {
        let p: SamplerParams = serde_json::from_str(r#"{"kind": "sghmc-cv", "step": 1e-5, "batch": 0.01}"#).unwrap();
        assert_eq!(p.kind, SamplerKind::SghmcCv);
        assert_eq!(p.leapfrog, 10);
        assert_eq!(p.friction, 0.01);
        assert!(!p.with_replacement);
        let v = p.validate(1000).unwrap();
        assert_eq!(v.batch(), 10);
        assert_eq!(v.grad_evals_per_iter(), 2 * 10 * 10);
    }

    #[test]
    fn budget_serde() {
        assert_eq!(serde_json::from_str::<Budget>(r#"{"grad_evals": 2.0e7}"#).unwrap(), Budget::GradEvals(20_000_000));
        assert_eq!(serde_json::from_str::<Budget>(r#"{"iterations": 5}"#).unwrap(), Budget::Iterations(5));
        assert_eq!(serde_json::from_str::<Budget>(r#"{"seconds": 0.5}"#).unwrap(), Budget::Seconds(0.5));
        assert!(serde_json::from_str::<Budget>(r#"{"iterations": 2.5}"#).is_err());
        assert!(serde_json::from_str::<Budget>(r#"{"minutes": 2}"#).is_err());
        for b in [Budget::Iterations(3), Budget::GradEvals(9), Budget::Seconds(1.5)] {
            let j = serde_json::to_string(&b).unwrap();
            assert_eq!(serde_json::from_str::<Budget>(&j).unwrap(), b);
        }
    }
}
