//! Runs an experiment kind the way every front end does: through the experiment contract (the config checked
//! once into the kind's valid type, then run with an observer and a stop flag). The tests use nothing else, so
//! a kind has no public run function of its own to keep in step.

use std::sync::atomic::AtomicBool;
use tunelab::data::Dataset;
use tunelab::experiments::{Experiment, Inputs};
use tunelab::Result;

/// Checks `cfg` and runs it. `upload` is the text of a CSV (or ratings) file, parsed as the config's data
/// request asks (the page's upload path); a request naming a file is read from disk (the CLI's path).
pub fn run<E: Experiment>(
    cfg: E::Config,
    upload: Option<&str>,
    mut observer: impl FnMut(&E::Detail),
    stop: &AtomicBool,
) -> Result<E::Output> {
    let exp = E::check(cfg)?;
    let data = match (exp.data_request(), upload) {
        (Some(req), Some(text)) => Some(req.parse(text)?),
        (Some(req), None) => tunelab::experiments::read_requested(&req)?,
        (None, _) => None,
    };
    exp.run(Inputs { data, ..Default::default() }, &mut |_, _, d| observer(&d), stop)
}

/// Checks `cfg` and runs it on a data set the test built.
pub fn run_data<E: Experiment>(
    cfg: E::Config,
    data: Option<&Dataset>,
    mut observer: impl FnMut(&E::Detail),
    stop: &AtomicBool,
) -> Result<E::Output> {
    tunelab::experiments::check_and_run::<E>(
        cfg,
        Inputs { data: data.cloned(), ..Default::default() },
        &mut observer,
        stop,
    )
}
