//! Serde helpers that save floats exactly, NaN and infinities included (JSON has no NaN): a run's checkpoint
//! stores a chain's position or a running mean as the bits of each f64, so a resumed run continues from the
//! very same numbers.

/// One `f64` as its bits: `#[serde(with = "crate::exact::float")]`.
pub mod float {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(v.to_bits())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        u64::deserialize(d).map(f64::from_bits)
    }
}

/// A `Vec<f64>` as the bits of each value: `#[serde(with = "crate::exact::floats")]`.
pub mod floats {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| x.to_bits()))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Vec::<u64>::deserialize(d).map(|v| v.into_iter().map(f64::from_bits).collect())
    }
}

/// A `Vec<f64>` with its reserved capacity (a store that reports the floats it holds counts its capacity):
/// `#[serde(with = "crate::exact::reserved")]`.
pub mod reserved {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Reserved {
        capacity: usize,
        #[serde(with = "super::floats")]
        values: Vec<f64>,
    }

    pub fn serialize<S: Serializer>(v: &Vec<f64>, s: S) -> Result<S::Ok, S::Error> {
        Reserved { capacity: v.capacity(), values: v.clone() }.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        let r = Reserved::deserialize(d)?;
        if r.capacity < r.values.len() || r.capacity > crate::limits::MAX_SAVED_FLOATS {
            return Err(serde::de::Error::custom("a saved store's capacity is out of range"));
        }
        let mut v = Vec::with_capacity(r.capacity);
        v.extend_from_slice(&r.values);
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct T {
        #[serde(with = "super::float")]
        x: f64,
        #[serde(with = "super::floats")]
        v: Vec<f64>,
    }

    #[test]
    fn every_float_comes_back_with_its_bits() {
        let t = T { x: f64::NAN, v: vec![f64::INFINITY, -0.0, 0.1 + 0.2, f64::MIN_POSITIVE / 3.0] };
        let back: T = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        assert!(back.x.is_nan());
        assert_eq!(
            back.v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            t.v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}
