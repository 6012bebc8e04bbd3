//! Where a chain's kept draws go: [`Chain::run`](super::Chain::run) hands every kept draw to a [`Sink`] as it is
//! made (as nuts-rs's samplers write into a storage trait), so a caller that only needs running moments, an
//! evenly thinned buffer or a round's scored samples holds those and never the whole chain.
//!
//! A `Vec<f64>` is the sink that keeps every draw (row-major, `d` values each). Sinks combine: `&mut S`, a pair
//! `(A, B)` (both, in that order), `Option<S>` (`None` keeps nothing) and [`Discard`] (a burn-in). The SG-MCMC
//! layer's stores (`experiments::sgmcmc::samples`: moments, stride buffer, round store, drill-down draws) are
//! sinks too.

/// Receives a chain's kept draws, in chain order.
pub trait Sink {
    /// One kept draw (the chain's position, `d` values), valid only for this call.
    fn push(&mut self, draw: &[f64]);

    /// A hint before a run: about `floats` more floats are coming (a `Vec` reserves them). Ignored by default.
    fn reserve(&mut self, floats: usize) {
        let _ = floats;
    }
}

/// Keeps every draw, appended row after row.
impl Sink for Vec<f64> {
    #[inline]
    fn push(&mut self, draw: &[f64]) {
        self.extend_from_slice(draw);
    }
    fn reserve(&mut self, floats: usize) {
        Vec::reserve(self, floats);
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline]
    fn push(&mut self, draw: &[f64]) {
        (**self).push(draw);
    }
    fn reserve(&mut self, floats: usize) {
        (**self).reserve(floats);
    }
}

/// Both sinks get every draw (the first, then the second).
impl<A: Sink, B: Sink> Sink for (A, B) {
    #[inline]
    fn push(&mut self, draw: &[f64]) {
        self.0.push(draw);
        self.1.push(draw);
    }
    fn reserve(&mut self, floats: usize) {
        self.0.reserve(floats);
        self.1.reserve(floats);
    }
}

/// A sink that may be absent (`None` drops the draws).
impl<S: Sink> Sink for Option<S> {
    #[inline]
    fn push(&mut self, draw: &[f64]) {
        if let Some(s) = self {
            s.push(draw);
        }
    }
    fn reserve(&mut self, floats: usize) {
        if let Some(s) = self {
            s.reserve(floats);
        }
    }
}

/// Drops every draw: a burn-in, or a run that only needs the chain's end state and counters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Discard;

impl Sink for Discard {
    #[inline]
    fn push(&mut self, _draw: &[f64]) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinks_combine() {
        let mut all = Vec::new();
        let mut firsts = Vec::new();
        struct First<'a>(&'a mut Vec<f64>);
        impl Sink for First<'_> {
            fn push(&mut self, draw: &[f64]) {
                self.0.push(draw[0]);
            }
        }
        {
            let mut s = (&mut all, Some(First(&mut firsts)));
            s.reserve(6);
            for r in [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] {
                s.push(&r);
            }
            let mut none: Option<Vec<f64>> = None;
            none.push(&[7.0, 8.0]);
            Discard.push(&[9.0]);
        }
        assert_eq!(all, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert!(all.capacity() >= 6);
        assert_eq!(firsts, [1.0, 3.0, 5.0]);
    }
}
