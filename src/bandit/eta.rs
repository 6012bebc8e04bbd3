//! The reduction factor eta of successive halving (MAMBA, Coullon, South & Nemeth 2023, Algorithm 1; Sequential
//! Halving, Karnin, Koren & Somekh 2013; Hyperband, Li et al. 2018): each round keeps the best `1 / eta` of the
//! arms, so eta must be at least 2 (with 1 no arm is ever dropped and the schedule never ends).
//!
//! [`Eta`] is checked once, where it is made ([`Eta::new`], or when a config is parsed: it deserialises from a
//! plain integer and refuses one below 2 with serde's "invalid value" error, which the strict config parser
//! places at the field's path, e.g. `` `tuner.eta` ``); the schedules and tuners that take an `Eta` need no
//! check of their own.

use crate::error::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize};

/// What an eta must be, in serde's "expected ..." words.
const EXPECTED: &str = "a reduction factor eta >= 2";

/// A successive-halving reduction factor, at least 2. Serialised as the plain integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Eta(usize);

impl Eta {
    /// eta = 2 (halving).
    pub const TWO: Eta = Eta(2);
    /// eta = 3 (MAMBA's and Hyperband's default; the paper, sec. 3.1: "typically eta = 2 or 3").
    pub const THREE: Eta = Eta(3);

    /// `n` as a reduction factor; a configuration error when it is below 2.
    pub fn new(n: usize) -> Result<Eta> {
        if n < 2 {
            return Err(Error::config(format!("the reduction factor eta must be >= 2, got {n}")));
        }
        Ok(Eta(n))
    }

    /// The factor as an integer (at least 2).
    pub fn get(self) -> usize {
        self.0
    }
}

impl std::fmt::Display for Eta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<Eta> for usize {
    fn from(eta: Eta) -> usize {
        eta.0
    }
}

impl TryFrom<usize> for Eta {
    type Error = Error;
    fn try_from(n: usize) -> Result<Eta> {
        Eta::new(n)
    }
}

impl<'de> Deserialize<'de> for Eta {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Eta, D::Error> {
        let n = u64::deserialize(deserializer)?;
        match usize::try_from(n) {
            Ok(k) if k >= 2 => Ok(Eta(k)),
            _ => Err(serde::de::Error::invalid_value(serde::de::Unexpected::Unsigned(n), &EXPECTED)),
        }
    }
}

/// The schema of an integer of at least 2, written in place (as `usize`'s is).
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Eta {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Eta".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "integer", "format": "uint", "minimum": 2 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_refuses_0_and_1_and_accepts_2() {
        for n in [0, 1] {
            match Eta::new(n) {
                Err(Error::Config(m)) => assert_eq!(m, format!("the reduction factor eta must be >= 2, got {n}")),
                other => panic!("eta = {n}: {other:?}"),
            }
        }
        assert_eq!(Eta::new(2).unwrap().get(), 2);
        assert_eq!(Eta::new(3).unwrap(), Eta::THREE);
        assert_eq!(Eta::try_from(2).unwrap(), Eta::TWO);
    }

    #[test]
    fn serde_is_the_plain_integer_and_refuses_below_2() {
        assert_eq!(serde_json::to_string(&Eta::THREE).unwrap(), "3");
        assert_eq!(serde_json::from_str::<Eta>("2").unwrap(), Eta::TWO);
        for bad in ["1", "0"] {
            let e = serde_json::from_str::<Eta>(bad).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("invalid value: integer `{bad}`, expected a reduction factor eta >= 2")),
                "{e}"
            );
        }
        assert!(serde_json::from_str::<Eta>("-1").is_err());
        assert!(serde_json::from_str::<Eta>("\"3\"").is_err());
    }
}
